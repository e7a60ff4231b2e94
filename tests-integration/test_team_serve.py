"""The team loop (issue 27 points 3, 7, 8, 9) with several developers on teamharness.py's
team: clones with their own homes and identities, one bare remote, pull requests merged by the
``gh`` stand-in in GitHub's styles, and agents on the real ``tb serve``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from teamharness import Developer, Team

TeamFactory = Callable[..., Team]
CART = "src/shop/checkout/cart.py"


def _feature(team: Team, dev: Developer, branch: str, steps: list[tuple[str, str]]) -> list[str]:
    """A feature branch off origin/main: each step appends code to the cart and commits it;
    pushed, a pull request opened. The commits, oldest first."""
    dev.git("checkout", "-q", "-b", branch, "origin/main")
    commits = []
    for code, message in steps:
        path = dev.clone / CART
        path.write_text(path.read_text("utf-8") + code, "utf-8")
        dev.git("commit", "-q", "-am", message)
        commits.append(dev.git("rev-parse", "HEAD").strip())
    dev.git("push", "-q", "origin", branch)
    dev.git("checkout", "-q", "main")
    done = team.gh("pr", "create", "--head", branch, "--title", branch, "--body", "", who=dev)
    assert done.returncode == 0, done.stderr
    return commits


def _lint(dev: Developer) -> dict[str, Any]:
    done = dev.tb("lint", "--json")
    assert done.returncode in (0, 3), done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _about(found: list[dict[str, Any]], memory_id: str, rule: str) -> list[str]:
    return [v["message"] for v in found if memory_id in v["path"] and v["rule"] == rule]


def test_squash_merged_evidence_and_a_renamed_function_across_the_team(
    team_factory: TeamFactory,
) -> None:
    """Point 3. Ada's memory cites the commit of her feature branch, which the maintainer
    squash-merges (two commits, the branch deleted). For Ada, who still has the commit, it was
    squash-merged (a note, and --fix-citations cites the squash commit); for Bob, who never
    fetched the branch, it is unverifiable — for neither is the memory stale. Once Bob renames
    the function the memory names next to its file, it is stale for everyone."""
    team = team_factory(("ada", "bob"))
    ada, bob = team["ada"], team["bob"]
    evidence, _ = _feature(team, ada, "feature/discounts", [
        ("\n\ndef apply_discount(total_cents: int, percent: int) -> int:\n"
         "    return total_cents * (100 - percent) // 100\n", "Discounts in whole percent"),
        ("\n\nMAX_DISCOUNT = 50\n", "Cap discounts"),
    ])  # fmt: skip
    feature_pr = team.pr_for("feature/discounts")["number"]
    draft = {
        "class": "learning",
        "title": "Discounts round down to the cent",
        "body": f"`apply_discount()` in `{CART}` rounds down; never round up a discount.",
        "evidence": {"sessions": [], "commits": [evidence]},
    }
    proposed = ada.propose(draft)
    memory_id = proposed["results"][0]["memory_id"]
    team.merge(team.pr_for(proposed["branch"])["number"], "squash", check=True)  # memory first
    team.merge(feature_pr, "squash", check=True)  # then its code, the branch deleted
    ada.pull()
    bob.pull()
    squash = team.default_tip()

    for dev in (ada, bob):
        found = _lint(dev)
        assert _about(found["violations"], memory_id, "stale-citation") == [], dev.name
    [note] = _about(_lint(ada)["notes"], memory_id, "evidence-commit")
    assert f"was squash-merged as {squash[:12]} in pull request #{feature_pr}" in note
    [note] = _about(_lint(bob)["notes"], memory_id, "evidence-commit")
    assert "unverifiable" in note and "not in this clone" in note
    hit = bob.call_tool("memory_search", {"query": "discounts round down"})["results"][0]
    assert hit["id"] == memory_id and not hit.get("stale")

    fix = ada.tb_json("propose", "--fix-citations")
    assert fix["fixes"][0]["evidence"][0]["to"] == squash
    team.merge(team.pr_for(fix["branch"])["number"], "rebase", check=True)
    bob.pull()
    assert _about(_lint(bob)["notes"], memory_id, "evidence-commit") == []  # reachable now

    bob.git("checkout", "-q", "-b", "rename", "origin/main")
    cart = bob.clone / CART
    cart.write_text(cart.read_text("utf-8").replace("apply_discount", "discounted"), "utf-8")
    bob.git("commit", "-q", "-am", "Shorter name")
    bob.git("push", "-q", "origin", "rename")
    done = team.gh("pr", "create", "--head", "rename", "--title", "rename", "--body", "", who=bob)
    assert done.returncode == 0, done.stderr
    team.merge(team.pr_for("rename")["number"], "merge", check=True)
    ada.pull()
    reason = "`apply_discount` is no longer defined in `src/shop/checkout/cart.py`"
    assert _about(_lint(ada)["violations"], memory_id, "stale-citation") == [reason]
    hit = ada.call_tool("memory_search", {"query": "discounts round down"})["results"][0]
    assert hit["id"] == memory_id and hit["stale"] == [reason]


def _many_memories(dev: Developer, count: int) -> None:
    """``count`` memories committed straight to the default branch and pushed (setup)."""
    folder = dev.clone / ".teambrain" / "memories" / "learnings"
    for index in range(count):
        memory_id = f"01KE{index:022d}"
        (folder / f"{memory_id}-rule-{index}.md").write_text(
            f"---\nid: {memory_id}\nclass: learning\nscope: team\nstatus: active\n"
            f"priority: advisory\ntitle: Checkout rule {index}\ncreated: 2026-11-16\n---\n\n"
            f"Checkout retries payment capture at most {index % 5 + 1} times (rule {index}).\n",
            "utf-8",
        )
    assert dev.tb("reindex", "--index-md-only").returncode == 0
    dev.git("add", "-A")
    dev.git("commit", "-q", "-m", "A large brain")
    dev.git("push", "-q", "origin", "HEAD:main")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_newcomers_first_answer_says_it_is_partial(team_factory: TeamFactory) -> None:
    """Point 8. A newcomer's first memory_context on a brain none of it embedded yet says so
    (coverage, and a line in the text); the same running tb serve covers the whole brain a
    little later, without tb reindex or a restart."""
    import anyio
    from teambrain_schema import MemoryContextResult, MemorySearchResult

    team = team_factory(("ada",))
    _many_memories(team["ada"], 120)
    newcomer = team.add_developer("dan")
    async with newcomer.serve() as client:
        first = await client.call_tool("memory_context", {})
        result = MemoryContextResult.model_validate(first.structured_content)
        assert result.coverage is not None, result.notes
        assert result.coverage.memories == 127 and result.coverage.embedded < 127
        assert "partial answer" in first.content[0].text  # type: ignore[union-attr]
        with anyio.fail_after(240):
            while True:
                found = await client.call_tool("memory_search", {"query": "payment capture"})
                search = MemorySearchResult.model_validate(found.structured_content)
                if search.coverage is None:
                    break
                await anyio.sleep(0.5)
        assert search.results and "partial" not in found.content[0].text  # type: ignore[union-attr]


def _org_brain(where: Path, env: dict[str, str]) -> None:
    """An org brain repository at ``where``, made with the real ``tb init``, with one
    org-scoped memory."""
    import subprocess

    from teamharness import tb_executable

    where.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=where, env=env, check=True)
    done = subprocess.run([tb_executable(), "init"], cwd=where, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    memory_id = "01KF0000000000000000000001"
    (where / ".teambrain" / "memories" / "conventions" / f"{memory_id}-rotate.md").write_text(
        f"---\nid: {memory_id}\nclass: convention\nscope: org\nstatus: active\n"
        "priority: advisory\ntitle: Rotate credentials quarterly\ncreated: 2026-11-16\n---\n\n"
        "Every service rotates its credentials every quarter (org security baseline).\n",
        "utf-8",
    )
    subprocess.run(["git", "add", "-A"], cwd=where, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "org brain"], cwd=where, env=env, check=True)


def _finding(dev: Developer, name: str) -> dict[str, Any]:
    done = dev.tb("doctor", "--json")
    found = [f for f in json.loads(done.stdout)["findings"] if f["name"] == name]
    assert len(found) == 1, done.stdout
    return found[0]


def test_each_machine_says_where_its_org_brain_is(team_factory: TeamFactory) -> None:
    """Point 9. brain.yaml names the org brain by a path relative to the repository (the
    team's default). Ada has it there; Bob keeps his checkouts elsewhere: tb doctor says it is
    missing and how to say where it is, and once his user config says, it is found, approved
    with tb trust, and served to his agent."""
    team = team_factory(("ada", "bob"))
    ada, bob = team["ada"], team["bob"]
    for dev in (ada, bob):
        dev.env.pop("TEAMBRAIN_ORG_BRAIN", None)  # only what each machine's own config says
    brain_yaml = ada.clone / ".teambrain" / "brain.yaml"
    brain_yaml.write_text(
        brain_yaml.read_text("utf-8").replace("org_brain: null", "org_brain: ../org-brain"),
        "utf-8",
    )
    ada.git("commit", "-q", "-am", "The org brain, next to each checkout by default")
    ada.git("push", "-q", "origin", "HEAD:main")
    _org_brain(ada.clone.parent / "org-brain", ada.env)  # where brain.yaml says
    bob.pull()
    elsewhere = bob.clone.parent / "src" / "acme-org-brain"
    _org_brain(elsewhere, bob.env)

    assert _finding(ada, "org brain")["status"] == "ok"
    missing = _finding(bob, "org brain")
    assert missing["status"] == "problem"
    assert f"org brain not found at {bob.clone / '../org-brain'}" in missing["detail"]
    assert "TEAMBRAIN_ORG_BRAIN" in missing["detail"] and "user/config.toml" in missing["detail"]
    assert bob.tb("doctor").returncode == 2

    user = bob.home / "user"
    user.mkdir(parents=True, exist_ok=True)
    (user / "config.toml").write_text(f'[org_brain]\npath = "{elsewhere}"\n', "utf-8")
    found = _finding(bob, "org brain")
    assert found["status"] == "ok" and str(elsewhere) in found["detail"]
    assert bob.tb("trust", "org_brain", "--yes").returncode == 0  # outside the repository
    hits = bob.call_tool("memory_search", {"query": "rotate credentials quarterly"})["results"]
    assert hits[0]["title"] == "Rotate credentials quarterly"
    assert hits[0]["provenance"]["brain"] == "acme-org-brain"


async def _search(client: Any, query: str) -> dict[str, Any]:
    found = await client.call_tool("memory_search", {"query": query})
    assert not found.is_error, found.content[0].text
    data: dict[str, Any] = found.structured_content
    return data


def _long_lived_branch(bob: Developer) -> str:
    """Bob on a feature branch of his own with a memory edit not committed yet (his own
    change, served on top of the default branch); the id of the memory he edited."""
    bob.git("checkout", "-q", "-b", "feature/long-lived", "origin/main")
    learnings = bob.clone / ".teambrain" / "memories" / "learnings"
    memory_id = "01KH0000000000000000000001"
    (learnings / f"{memory_id}-flags.md").write_text(
        f"---\nid: {memory_id}\nclass: learning\nscope: team\nstatus: active\n"
        "priority: advisory\ntitle: Feature flags default off\ncreated: 2026-11-16\n---\n\n"
        "New feature flags ship switched off (Bob's draft, not committed).\n",
        "utf-8",
    )
    return memory_id


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_memory_merged_on_the_remote_reaches_a_running_serve_after_a_fetch(
    team_factory: TeamFactory,
) -> None:
    """Point 7. Bob's agent has `tb serve` running on his long-lived feature branch. Ada's
    memory is proposed and merged on the remote; once Bob's clone fetched (no pull, no restart)
    the first call serves it, its provenance naming the default branch's commit served, with
    Bob's own uncommitted memory still served on top. Nothing was merged into his branch."""
    team = team_factory(("ada", "bob"))
    ada, bob = team["ada"], team["bob"]
    own = _long_lived_branch(bob)
    head = bob.git("rev-parse", "HEAD").strip()
    async with bob.serve() as client:
        before = await _search(client, "tenant cache keys")
        assert "Cache keys carry the tenant id" not in [r["title"] for r in before["results"]]
        proposed = ada.propose({
            "class": "convention", "title": "Cache keys carry the tenant id",
            "body": "Every cache key starts with the tenant id, so tenants never share entries.",
            "evidence": {"sessions": [], "commits": []},
        })  # fmt: skip
        memory_id = proposed["results"][0]["memory_id"]
        team.merge(team.pr_for(proposed["branch"])["number"], "squash", check=True)
        merged = team.default_tip()
        still = await _search(client, "tenant cache keys")
        assert memory_id not in [r["id"] for r in still["results"]]  # not fetched yet
        bob.fetch()
        after = await _search(client, "tenant cache keys")  # the first call after the fetch
        [hit] = [r for r in after["results"] if r["id"] == memory_id]
        assert hit["provenance"]["commit"] == merged
        mine = await _search(client, "feature flags switched off")
        [draft] = [r for r in mine["results"] if r["id"] == own]
        assert draft["provenance"].get("commit") is None  # uncommitted: no commit holds it
    assert bob.git("rev-parse", "HEAD").strip() == head  # no pull, no merge into his branch
    assert bob.git("status", "--porcelain", "--", ".teambrain/memories/conventions") == ""


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_running_serve_fetches_the_default_branch_when_this_machine_says(
    team_factory: TeamFactory,
) -> None:
    """Point 7. With ``fetch_minutes`` set on Bob's machine his running `tb serve` fetches the
    default branch itself (nobody runs git): Ada's merged memory is served within a couple of
    fetch intervals. Only the default branch is fetched."""
    import anyio

    team = team_factory(("ada", "bob"))
    ada, bob = team["ada"], team["bob"]
    _long_lived_branch(bob)
    every = {"TEAMBRAIN_FETCH_MINUTES": "0.02", "TEAMBRAIN_FETCH_TIMEOUT": "20"}  # 1.2 s
    async with bob.serve(env=every) as client:
        await _search(client, "tenant cache keys")  # the server runs, and fetches
        proposed = ada.propose({
            "class": "convention", "title": "Cache keys carry the tenant id",
            "body": "Every cache key starts with the tenant id, so tenants never share entries.",
            "evidence": {"sessions": [], "commits": []},
        })  # fmt: skip
        memory_id = proposed["results"][0]["memory_id"]
        team.merge(team.pr_for(proposed["branch"])["number"], "squash", check=True)
        with anyio.fail_after(60):
            while True:
                found = await _search(client, "tenant cache keys")
                if memory_id in [r["id"] for r in found["results"]]:
                    break
                await anyio.sleep(0.5)
    assert bob.git("rev-parse", "origin/main").strip() == team.default_tip()
    remotes = bob.git("for-each-ref", "--format=%(refname)", "refs/remotes")
    assert proposed["branch"] not in remotes  # the default branch alone was fetched


def test_an_org_brain_place_from_the_user_config_is_named_as_such(
    team_factory: TeamFactory,
) -> None:
    """Point 9: where the org brain's place came from is said as it was said — `[org_brain]
    path` in the user config, not `$TEAMBRAIN_ORG_BRAIN` (which `tb` sets from it) — by `tb
    doctor` and by the warning of a search that cannot find it; the variable still wins."""
    team = team_factory(("ada",), embedder="none")
    ada = team["ada"]
    ada.env.pop("TEAMBRAIN_ORG_BRAIN", None)
    brain_yaml = ada.clone / ".teambrain" / "brain.yaml"
    brain_yaml.write_text(
        brain_yaml.read_text("utf-8").replace("org_brain: null", "org_brain: ../org-brain"),
        "utf-8",
    )
    user = ada.home / "user"
    user.mkdir(parents=True, exist_ok=True)
    nowhere = ada.clone.parent / "not-cloned-yet"
    (user / "config.toml").write_text(f'[org_brain]\npath = "{nowhere}"\n', "utf-8")
    said = "(from `[org_brain] path` in $TEAMBRAIN_HOME/user/config.toml)"
    missing = _finding(ada, "org brain")
    assert missing["status"] == "problem" and f"{nowhere} {said}" in missing["detail"], missing
    searched = ada.tb("relevant", "--query", "checkout")
    assert searched.returncode == 0 and said in searched.stderr, searched.stderr

    elsewhere = ada.clone.parent / "also-not-there"
    env_said = ada.tb("doctor", "--json", env={"TEAMBRAIN_ORG_BRAIN": str(elsewhere)})
    assert f"{elsewhere} (from $TEAMBRAIN_ORG_BRAIN)" in env_said.stdout


def test_a_trunk_default_branch_is_found_without_the_remotes_head(
    team_factory: TeamFactory,
) -> None:
    """A team whose default branch is `trunk`, and a clone that does not know the remote's HEAD
    (made with `git init`, `git remote add`, `git fetch`, as CI and an existing checkout do):
    the default branch is still the one proposals start from and agents are served — not the
    feature branch checked out (whose commits rode along) and not a stale checkout."""
    team = team_factory(("ada",), embedder="none")
    ada = team["ada"]
    ada.git("push", "-q", "origin", "origin/main:refs/heads/trunk")
    ada.git("--git-dir", str(team.remote), "symbolic-ref", "HEAD", "refs/heads/trunk")
    ada.git("push", "-q", "origin", ":main")
    bob_dir = team.root / "bob-by-hand"
    bob_dir.mkdir()
    bob = Developer("bob", bob_dir, ada.home.parent / "bob-home", {
        **ada.env, "TEAMBRAIN_HOME": str(ada.home.parent / "bob-home"),
    }, team)  # fmt: skip
    bob.git("init", "-q", "-b", "work")
    bob.git("remote", "add", "origin", str(team.remote))
    bob.git("fetch", "-q", "origin")
    assert bob.git("symbolic-ref", "-q", "refs/remotes/origin/HEAD", check=False) == ""
    bob.git("checkout", "-q", "-b", "feature/x", "origin/trunk")
    (bob_dir / "feature.txt").write_text("work in progress\n", "utf-8")
    bob.git("add", "feature.txt")
    bob.git("commit", "-q", "-m", "Work in progress")

    planned = bob.tb_json("propose", "--draft", str(ada.draft_file(_LESSON)), "--dry-run")
    assert planned["base"]["ref"] == "origin/trunk", planned["base"]

    ada.fetch()
    ada.git("checkout", "-q", "-b", "lesson", "origin/trunk")
    out = ada.tb_json("propose", "--draft", str(ada.draft_file(_LESSON)))
    assert out["base"]["ref"] == "origin/trunk", out["base"]
    ada.git("push", "-q", "origin", f"{out['branch']}:trunk")
    bob.git("fetch", "-q", "origin")
    tip = bob.git("rev-parse", "origin/trunk").strip()
    hits = bob.call_tool("memory_search", {"query": "ledger rows append"})["results"]
    assert hits and hits[0]["title"] == _LESSON["title"], hits
    assert hits[0]["provenance"]["commit"] == tip


_LESSON = {"class": "learning", "title": "Ledger rows are append-only",
           "body": "Never update ledger rows; append a correcting entry instead."}  # fmt: skip
