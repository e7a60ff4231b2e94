"""The org brain's read policies (AgentMemorySource), enforced on every answer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from teambrain_retrieval import Retriever, Situation, org_brain_egress
from teambrain_schema.brain import load_brain_config
from teambrain_schema.egress import approve_egress
from teambrain_schema.ontology import STARTER_FILES
from teambrain_schema.paths import BrainLayout, machine_layout
from teambrain_schema.read_policy import load_read_policy, parse_source

SECURITY = "01KB2F0A1S9Y4Q7V3C8D5E6F21"
RUNBOOK = "01KB2F0A1S9Y4Q7V3C8D5E6F22"
BIG = "01KB2F0A1S9Y4Q7V3C8D5E6F23"


def _source(org: BrainLayout, name: str, text: str) -> None:
    folder = org.root / "sources"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)


@pytest.fixture
def setup(
    tmp_path: Path, new_brain: Callable[..., BrainLayout], write: Callable[..., Path]
) -> tuple[BrainLayout, BrainLayout]:
    org = new_brain(tmp_path / "org")
    write(org, "Rotate credentials quarterly", "Rotate every credential quarterly.", scope="org",
          memory_id=SECURITY, class_="convention")  # fmt: skip
    write(org, "Payments rollback", "Rotate the release back and replay webhooks.", scope="org",
          memory_id=RUNBOOK, tags=["service:payments"])  # fmt: skip
    write(org, "Long credentials guide", "Rotate credentials. " + "More detail here. " * 60,
          scope="org", memory_id=BIG)  # fmt: skip
    (org.root / "ontology").mkdir()
    for name, text in STARTER_FILES.items():
        (org.root / "ontology" / name).write_text(text)
    services = org.root / "graph" / "services"
    services.mkdir(parents=True)
    (services / "payments.yaml").write_text(
        "nodeKind: service\nid: service:payments\nattributes:\n  title: Payments\n"
        "  owners: [team:x]\n  paths: [src/payments/**]\n"
    )
    layout = new_brain(tmp_path / "shop", "version: 1\nname: shop\norg_brain: ../org\n")
    write(layout, "Local note", "Nothing about credentials.")
    approve_egress(
        machine_layout(), layout.repo_root,
        [org_brain_egress(load_brain_config(layout), layout.repo_root)],
    )  # fmt: skip
    return org, layout


POLICY = """\
kind: AgentMemorySource
spec:
  appliesTo:
    repositories: [shop]
  include:
    graphKinds: [Service]
    paths: [memories/**]
  exclude:
    paths: [memories/conventions/**]
  defaultQueryMode: graph-and-grep
  maxContextBytes: 400
"""


def test_without_sources_everything_org_scoped_is_served(
    setup: tuple[BrainLayout, BrainLayout], open_test_retriever: Callable[..., Retriever]
) -> None:
    _org, layout = setup
    ids = {hit.id for hit in open_test_retriever(layout).search("rotate credentials", 8)}
    assert {SECURITY, RUNBOOK, BIG} <= ids


def test_a_policy_limits_paths_kinds_and_bytes(
    setup: tuple[BrainLayout, BrainLayout], open_test_retriever: Callable[..., Retriever]
) -> None:
    org, layout = setup
    _source(org, "shop.yaml", POLICY)
    retriever = open_test_retriever(layout)
    ids = [hit.id for hit in retriever.search("rotate credentials", 8)]
    assert SECURITY not in ids  # memories/conventions/ is excluded
    assert BIG not in ids  # past the 400-byte cap (the runbook came first)
    assert RUNBOOK in ids
    pack = retriever.context(Situation(repo="shop", changed_paths=["src/payments/api.py"]))
    assert [h.id for h in pack.relevant] == [RUNBOOK]
    assert pack.relevant[0].provenance.via == "via service payments → tag"


def test_a_repository_no_source_names_reads_nothing_of_the_org_brain(
    setup: tuple[BrainLayout, BrainLayout],
    open_test_retriever: Callable[..., Retriever],
    notices: list[str],
) -> None:
    org, layout = setup
    _source(org, "other.yaml", POLICY.replace("[shop]", "[mobile]"))
    ids = {hit.id for hit in open_test_retriever(layout).search("rotate credentials", 8)}
    assert ids.isdisjoint({SECURITY, RUNBOOK, BIG})
    assert "no read policy names shop: nothing of the org brain is served" in notices


def test_grep_only_walks_no_org_graph_and_graph_only_serves_only_what_edges_reach(
    setup: tuple[BrainLayout, BrainLayout], open_test_retriever: Callable[..., Retriever]
) -> None:
    org, layout = setup
    _source(
        org, "shop.yaml", POLICY.replace("graph-and-grep", "grep-only").replace("400", "100000")
    )
    situation = Situation(repo="shop", changed_paths=["src/payments/api.py"])
    grep = open_test_retriever(layout).context(situation).relevant
    assert all(hit.provenance.via is None for hit in grep)  # the org graph is not walked
    _source(
        org, "shop.yaml", POLICY.replace("graph-and-grep", "graph-only").replace("400", "100000")
    )
    retriever = open_test_retriever(layout)
    found = {h.id for h in retriever.search("rotate credentials", 8)}
    assert found.isdisjoint({SECURITY, RUNBOOK, BIG})  # no edge led to them
    assert [h.id for h in retriever.context(situation).relevant] == [RUNBOOK]


def test_sources_parse_and_add_up(tmp_path: Path) -> None:
    source, problems = parse_source(".teambrain/sources/x.yaml", POLICY)
    assert problems == [] and source is not None and source.applies_to("SHOP")
    _bad, problems = parse_source(
        ".teambrain/sources/x.yaml",
        "kind: AgentMemorySource\nspec:\n  appliesTo: {repositories: []}\n  defaultQueryMode: grep\n"
        "  maxContextBytes: -1\n  include:\n    paths: [../etc]\n  colour: red\n",
    )
    messages = [(p.line, p.message) for p in problems]
    assert (8, "spec: unknown key 'colour'") in messages
    assert (4, "defaultQueryMode: one of graph-and-grep, graph-only, grep-only") in messages
    assert (5, "maxContextBytes: a number of bytes (1 or more)") in messages
    assert (3, "spec.appliesTo.repositories: names no repository") in messages
    (tmp_path / ".git").mkdir()
    org = BrainLayout(tmp_path)
    (org.root / "sources").mkdir(parents=True)
    (org.root / "sources" / "a.yaml").write_text(POLICY)
    (org.root / "sources" / "b.yaml").write_text(
        POLICY.replace("[Service]", "[Runbook]")
        .replace("400", "900")
        .replace("memories/**", "graph/**")
    )
    policy, problems = load_read_policy(org, "shop")
    assert problems == [] and policy is not None
    assert policy.graph_kinds == ("Service", "Runbook")
    assert policy.include_paths == ("memories/**", "graph/**")
    assert policy.max_context_bytes == 400
    assert policy.allows_path(".teambrain/memories/learnings/x.md")
    assert not policy.allows_path(".teambrain/memories/conventions/x.md")
    assert not policy.allows_path(".teambrain/notes/x.md")
    assert policy.allows_kind("service") and not policy.allows_kind("team")
