from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from mcp import Client
from teambrain_capture import (
    JoinKeys,
    list_candidates,
    mark_session_active,
    read_jsonl,
    repo_join_key,
)
from teambrain_mcp_server import build_server
from teambrain_schema import parse_event
from teambrain_schema.paths import MachineLayout

pytestmark = pytest.mark.anyio

PAYMENTS_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F01"  # a demo memory

DRAFT = {
    "class": "learning",
    "title": "Checkout tests need the fake clock",
    "body": "Use `FakeClock` in checkout tests; the real clock makes the timeout test flaky.",
    "tags": ["testing", "checkout"],
}
KEYS = JoinKeys(sid="sess-1", tool="claude-code", model="claude-x", repo="shop", branch="main")


def _snapshot(repo: Path) -> dict[str, bytes]:
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in repo.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }


async def test_a_valid_draft_is_queued_locally_and_the_repository_is_untouched(
    brain_repo: Path, machine: MachineLayout, git: Callable[..., str]
) -> None:
    before = _snapshot(brain_repo)
    async with Client(build_server(brain_repo)) as client:
        result = await client.call_tool("memory_propose", {"draft": DRAFT})
        again = await client.call_tool(
            "memory_propose", {"draft": {**DRAFT, "body": DRAFT["body"] + "  "}}
        )
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["queued"] is True
    candidate_id = result.structured_content["candidate_id"]
    assert candidate_id in result.content[0].text  # type: ignore[union-attr]
    # The same content (whitespace aside) is one candidate.
    assert again.structured_content == result.structured_content
    [candidate] = list_candidates(machine).candidates
    assert candidate.repo == repo_join_key(brain_repo)  # queued for this repository only
    assert candidate.candidate_id == candidate_id
    assert candidate.proposer == "agent" and candidate.sid is None
    assert candidate.draft.title == DRAFT["title"] and candidate.draft.class_ == "learning"
    assert _snapshot(brain_repo) == before
    assert git("status", "--porcelain", cwd=brain_repo) == ""
    assert not machine.sessions.exists()  # no session known: no events


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"class": "gossip"}, "draft.class"),
        ({"title": "x" * 81}, "draft.title"),
        ({"title": "two\nlines"}, "draft.title"),
        ({"body": ""}, "draft.body"),
        ({"body": "word " * 401}, "draft.body"),
        ({"tags": ["has space"]}, "draft.tags"),
        ({"priority": "urgent"}, "draft.priority"),
        ({"ttl_days": 0}, "draft.ttl_days"),
        ({"supersedes": ["nope"]}, "draft.supersedes"),
        ({"author": "me"}, "draft.author"),
        ({"body": "Deploy with AKIAIOSFODNN7EXAMPLE and the usual flags."}, "draft.body"),
        ({"title": "Token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}, "draft.title"),
    ],
)
async def test_an_invalid_draft_is_a_tool_error_naming_the_field_and_nothing_is_written(
    brain_repo: Path, machine: MachineLayout, change: dict[str, Any], field: str
) -> None:
    mark_session_active(machine, brain_repo, KEYS)
    async with Client(build_server(brain_repo, env={})) as client:
        result = await client.call_tool("memory_propose", {"draft": {**DRAFT, **change}})
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith("memory_propose: ") and f" {field}" in text, text
    assert "ghp_a1B2" not in text and "AKIAIOSFODNN7" not in text
    assert list_candidates(machine).candidates == []
    assert not machine.session_file(KEYS.sid).exists()


async def test_with_a_session_the_proposal_is_recorded_with_its_join_keys(
    brain_repo: Path, machine: MachineLayout
) -> None:
    mark_session_active(machine, brain_repo, KEYS)
    async with Client(build_server(brain_repo, env={"CLAUDE_CODE_SESSION_ID": "sess-1"})) as client:
        result = await client.call_tool("memory_propose", {"draft": DRAFT})
    assert result.structured_content is not None
    candidate_id = result.structured_content["candidate_id"]
    [candidate] = list_candidates(machine).candidates
    assert candidate.sid == "sess-1"
    [record] = read_jsonl(machine.session_file("sess-1")).records
    event = parse_event(json.dumps(record))
    assert event.ev == "candidate_proposed"
    assert (event.sid, event.tool, event.model, event.repo, event.branch) == (
        "sess-1", "claude-code", "claude-x", "shop", "main",
    )  # fmt: skip
    assert event.data.candidate_id == candidate_id  # type: ignore[union-attr]
    assert event.data.draft.title == DRAFT["title"]  # type: ignore[union-attr]


async def test_a_session_id_from_the_tool_that_no_hook_opened_records_nothing(
    brain_repo: Path, machine: MachineLayout
) -> None:
    mark_session_active(machine, brain_repo, KEYS)
    async with Client(build_server(brain_repo, env={"CLAUDE_CODE_SESSION_ID": "other"})) as client:
        assert not (await client.call_tool("memory_propose", {"draft": DRAFT})).is_error
    assert list_candidates(machine).candidates[0].sid is None
    assert not machine.session_file("sess-1").exists()
    assert not machine.session_file("other").exists()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
drafts = st.fixed_dictionaries(
    {},
    optional={
        "class": st.sampled_from(["decision", "convention", "map", "learning", "x"]) | json_values,
        "title": st.text(max_size=90) | json_values,
        "body": st.text(max_size=200) | json_values,
        "tags": st.lists(st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True), max_size=3)
        | json_values,
        "priority": st.sampled_from(["required", "advisory"]) | json_values,
    },
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(draft=drafts | json_values)
def test_any_draft_is_either_queued_whole_or_refused_with_nothing_written(
    brain_repo: Path, machine: MachineLayout, draft: Any
) -> None:
    import anyio

    async def propose() -> Any:
        async with Client(build_server(brain_repo, heartbeat=False)) as client:
            return await client.call_tool("memory_propose", {"draft": draft})

    before = {c.candidate_id for c in list_candidates(machine).candidates}
    result = anyio.run(propose)
    after = list_candidates(machine)
    assert after.broken == []
    new = [c for c in after.candidates if c.candidate_id not in before]
    if result.is_error:
        assert new == []
        assert result.content[0].text.startswith("memory_propose: ")  # type: ignore[union-attr]
    else:
        assert result.structured_content is not None
        queued = result.structured_content["candidate_id"]
        assert queued in {c.candidate_id for c in after.candidates}
        assert len(new) <= 1


async def test_a_graph_record_is_checked_against_the_ontology_and_queued_apart(
    brain_repo: Path, machine: MachineLayout
) -> None:
    from teambrain_capture import list_records
    from teambrain_schema.ontology import STARTER_FILES

    ontology = brain_repo / ".teambrain" / "ontology"
    ontology.mkdir()
    for name, text in STARTER_FILES.items():
        (ontology / name).write_text(text)
    team = brain_repo / ".teambrain" / "graph" / "teams"
    team.mkdir(parents=True)
    (team / "payments.yaml").write_text(
        "nodeKind: team\nid: team:payments\nattributes: {title: Payments}\n"
    )
    good = {
        "nodeKind": "service", "id": "service:payments",
        "attributes": {"title": "Payments", "owners": ["team:payments"], "paths": ["src/payments/**"]},
        "edges": [{"kind": "documented_by", "to": PAYMENTS_ID}],
    }  # fmt: skip
    async with Client(build_server(brain_repo, env={})) as client:
        queued = await client.call_tool("memory_propose", {"draft": good})
        refused = await client.call_tool(
            "memory_propose", {"draft": {**good, "edges": {"depends_on": ["service:nowhere"]}}}
        )
        malformed = await client.call_tool(
            "memory_propose", {"draft": {"nodeKind": "service", "id": "a b"}}
        )
    assert not queued.is_error, queued.content
    assert queued.structured_content is not None
    assert (
        "graph record service:payments queued for .teambrain/graph/services/payments.yaml"
        in (queued.structured_content["note"])
    )
    [record] = list_records(machine).records
    assert record.candidate_id == queued.structured_content["candidate_id"]
    assert record.record.id == "service:payments" and record.proposer == "agent"
    assert list_candidates(machine).candidates == []  # never a memory candidate
    assert refused.is_error
    text = refused.content[0].text  # type: ignore[union-attr]
    assert "record rejected by the ontology: .teambrain/graph/services/payments.yaml:" in text
    assert "graph-dangling: depends_on: no node 'service:nowhere'" in text
    assert malformed.is_error and "draft.id" in malformed.content[0].text  # type: ignore[union-attr]
    assert len(list_records(machine).records) == 1
