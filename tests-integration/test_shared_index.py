"""The shared Postgres index as a committed setting: `retrieval.backend: postgres` arrives by
git like any other, and the installed `tb` lists it with `tb trust`, `tb doctor` and
`tb verify` as a destination this machine has not approved — by the variable that holds the
connection string, never the string — until `tb trust` approves it here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


SECRET_URL = "postgresql://ci:hunter2-very-secret@db.example.com/brains"


def _shared_brain(repo: Path, tb: Any, git_run: Any) -> None:
    assert tb("init", cwd=repo).returncode == 0
    yaml = repo / ".teambrain" / "brain.yaml"
    text = yaml.read_text()
    # (brain.yaml's template has a comment line between the two keys)
    assert "\n  backend: sqlite\n" in text and "\n  url_env: null\n" in text
    text = text.replace("\n  backend: sqlite\n", "\n  backend: postgres\n", 1)
    yaml.write_text(text.replace("\n  url_env: null\n", "\n  url_env: TB_SHARED_PG\n", 1))
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "teammate: a shared index", cwd=repo)


def test_the_shared_index_is_a_destination_to_approve(repo: Path, tb: Any, git_run: Any) -> None:
    _shared_brain(repo, tb, git_run)
    env = {"TB_SHARED_PG": SECRET_URL}
    listed = tb("trust", "--json", cwd=repo, env=env)
    assert listed.returncode == 0, listed.stderr
    settings = {s["setting"]: s for s in json.loads(listed.stdout)["settings"]}
    shared = settings["retrieval.backend"]
    assert shared["state"] == "not approved"
    assert shared["destination"] == "postgres database named by $TB_SHARED_PG"
    assert shared["credential"] == "TB_SHARED_PG"

    doctor = tb("doctor", cwd=repo, env=env)
    verify = tb("verify", cwd=repo, env=env)
    for done in (listed, doctor, verify):
        assert "hunter2" not in done.stdout + done.stderr
    assert "retrieval.backend" in doctor.stdout + doctor.stderr
    assert "retrieval.backend" in verify.stdout + verify.stderr

    approved = tb("trust", "retrieval.backend", "--yes", "--json", cwd=repo, env=env)
    assert approved.returncode == 0, approved.stderr
    again = json.loads(tb("trust", "--json", cwd=repo, env=env).stdout)
    states = {s["setting"]: s["state"] for s in again["settings"]}
    assert states["retrieval.backend"] == "approved"
    trust_file = Path(again["trust_file"])
    assert "hunter2" not in trust_file.read_text()


def test_backend_postgres_without_url_env_is_a_one_line_config_error(
    repo: Path, tb: Any, git_run: Any
) -> None:
    assert tb("init", cwd=repo).returncode == 0
    yaml = repo / ".teambrain" / "brain.yaml"
    yaml.write_text(yaml.read_text().replace("  backend: sqlite\n", "  backend: postgres\n", 1))
    done = tb("lint", cwd=repo)
    assert done.returncode != 0
    assert "url_env" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


MEMORY = """---
id: {id}
class: decision
scope: team
status: active
priority: {priority}
title: {title}
created: 2026-11-01
---

{body}
"""


def _memory(repo: Path, memory_id: str, title: str, body: str, priority: str = "advisory") -> Path:
    path = repo / ".teambrain" / "memories" / "decisions" / f"{memory_id}-m.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MEMORY.format(id=memory_id, title=title, body=body, priority=priority))
    return path


def test_tb_reindex_shared_fills_postgres_incrementally(
    repo: Path, tb: Any, git_run: Any, postgres_url: str
) -> None:
    import psycopg

    _shared_brain(repo, tb, git_run)
    git_run("remote", "add", "origin", "https://github.com/acme/shop.git", cwd=repo)
    first = _memory(repo, "01KB2F0A1S9Y4Q7V3C8D5E6F01", "Payments go through the gateway",
                    "Call the payment gateway for every charge; retry three times.")  # fmt: skip
    _memory(repo, "01KB2F0A1S9Y4Q7V3C8D5E6F02", "Releases are tagged",
            "Tag every release vX.Y.Z and build the wheels from the tag.")  # fmt: skip
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "two memories", cwd=repo)
    env = {"TB_SHARED_PG": postgres_url}

    refused = tb("reindex", "--shared", cwd=repo, env=env)
    assert refused.returncode != 0 and "not approved" in refused.stderr
    assert tb("trust", "--yes", cwd=repo, env=env).returncode == 0

    done = tb("reindex", "--shared", "--json", cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["shared_index"]
    head = git_run("rev-parse", "HEAD", cwd=repo).strip()
    assert report["brain"] == "github.com/acme/shop" and report["commit"] == head
    assert (report["documents"], report["written"], report["embedded"]) == (2, 2, 2)
    assert report["migrated"] == [1, 2, 3]

    again = json.loads(tb("reindex", "--shared", "--json", cwd=repo, env=env).stdout)
    assert (again["shared_index"]["written"], again["shared_index"]["embedded"]) == (0, 0)
    assert again["shared_index"]["migrated"] == []

    first.write_text(first.read_text().replace("three times", "five times"))
    git_run("commit", "-qam", "edit one", cwd=repo)
    edited = json.loads(tb("reindex", "--shared", "--json", cwd=repo, env=env).stdout)
    assert (edited["shared_index"]["written"], edited["shared_index"]["embedded"]) == (1, 1)

    first.unlink()
    git_run("commit", "-qam", "drop one", cwd=repo)
    dropped = json.loads(tb("reindex", "--shared", "--json", cwd=repo, env=env).stdout)
    assert dropped["shared_index"]["removed"] == 1
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT id, commit FROM teambrain.docs").fetchall()
        (brain_commit,) = conn.execute("SELECT commit FROM teambrain.brains").fetchone()
    assert [r[0] for r in rows] == ["01KB2F0A1S9Y4Q7V3C8D5E6F02"]
    assert brain_commit == git_run("rev-parse", "HEAD", cwd=repo).strip()


def test_tb_reindex_shared_on_an_unreachable_database_is_one_line(
    repo: Path, tb: Any, git_run: Any, tmp_path: Path
) -> None:
    _shared_brain(repo, tb, git_run)
    env = {"TB_SHARED_PG": f"postgresql://ci:hunter2-very-secret@/x?host={tmp_path}&port=5999"}
    assert tb("trust", "--yes", cwd=repo, env=env).returncode == 0
    done = tb("reindex", "--shared", cwd=repo, env=env)
    assert done.returncode != 0
    assert "shared index: cannot connect" in done.stderr
    assert "hunter2" not in done.stderr and "Traceback" not in done.stderr


def test_a_second_clone_answers_without_embedding_what_ci_embedded(
    repo: Path, tb: Any, git_run: Any, postgres_url: str, tmp_path: Path
) -> None:
    """CI fills the shared index; a teammate's fresh clone (its own TEAMBRAIN_HOME) builds its
    index without embedding anything, answers `tb relevant`, and embeds itself — saying so
    once — when the database is unreachable."""
    _shared_brain(repo, tb, git_run)
    git_run("remote", "add", "origin", "https://github.com/acme/shop.git", cwd=repo)
    _memory(repo, "01KB2F0A1S9Y4Q7V3C8D5E6F01", "Payments go through the gateway",
            "Call the payment gateway for every charge; retry three times.")  # fmt: skip
    _memory(repo, "01KB2F0A1S9Y4Q7V3C8D5E6F02", "Releases are tagged",
            "Tag every release vX.Y.Z and build the wheels from the tag.")  # fmt: skip
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "two memories", cwd=repo)
    env = {"TB_SHARED_PG": postgres_url}
    assert tb("trust", "--yes", cwd=repo, env=env).returncode == 0
    assert tb("reindex", "--shared", cwd=repo, env=env).returncode == 0

    clone = tmp_path / "clone"
    git_run("clone", "-q", str(repo), str(clone), cwd=tmp_path)
    git_run("remote", "set-url", "origin", "https://github.com/acme/shop.git", cwd=clone)
    mate = {**env, "TEAMBRAIN_HOME": str(tmp_path / "mate-home")}
    assert tb("trust", "--yes", cwd=clone, env=mate).returncode == 0
    built = tb("reindex", "--json", cwd=clone, env=mate)
    assert built.returncode == 0, built.stderr
    index = json.loads(built.stdout)["search_index"]
    assert (index["memories"], index["newly_embedded"]) == (2, 0), built.stderr
    answer = tb("relevant", "--query", "payment gateway charge", cwd=clone, env=mate)
    assert answer.returncode == 0 and "Payments go through the gateway" in answer.stdout

    down = {**mate, "TEAMBRAIN_HOME": str(tmp_path / "other-home"),
            "TB_SHARED_PG": f"postgresql://x:pw@/db?host={tmp_path}&port=5999"}  # fmt: skip
    assert tb("trust", "--yes", cwd=clone, env=down).returncode == 0
    fallback = tb("reindex", "--json", cwd=clone, env=down)
    assert fallback.returncode == 0, fallback.stderr
    assert json.loads(fallback.stdout)["search_index"]["newly_embedded"] == 2
    said = [line for line in fallback.stderr.splitlines() if "shared index" in line]
    assert len(said) == 1 and "embedding on this machine instead" in said[0], fallback.stderr


def test_members_publish_their_weekly_figures_and_read_the_teams(
    repo: Path, tb: Any, git_run: Any, postgres_url: str, tmp_path: Path
) -> None:
    """The installed `tb`: three members opted in publish their weekly digest figures to the
    shared database with their own roles; each reads the team's (`tb metrics --team`), made of
    all three; the database holds figures and memory ids, not their sessions."""
    import datetime as dt

    import psycopg
    from teambrain_capture import JoinKeys, append_event, make_event
    from teambrain_kit.paths import machine_layout
    from teambrain_retrieval._postgres import connect, migrate

    _shared_brain(repo, tb, git_run)
    git_run("remote", "add", "origin", "https://github.com/acme/shop.git", cwd=repo)
    tag = postgres_url.split("?", 1)[0].rsplit("/", 1)[1]
    with connect(postgres_url) as admin:
        migrate(admin)
        admin.execute(
            f"""CREATE ROLE shop_{tag} NOLOGIN;
            GRANT USAGE ON SCHEMA teambrain TO shop_{tag};
            GRANT SELECT ON ALL TABLES IN SCHEMA teambrain TO shop_{tag};
            GRANT INSERT, UPDATE, DELETE ON teambrain.usage TO shop_{tag};
            GRANT EXECUTE ON FUNCTION teambrain.team_usage(text) TO shop_{tag};
            INSERT INTO teambrain.access(role, brain) VALUES ('shop_{tag}', 'github.com/acme/shop');
            CREATE ROLE ann_{tag} LOGIN IN ROLE shop_{tag};
            CREATE ROLE ben_{tag} LOGIN IN ROLE shop_{tag};
            CREATE ROLE cat_{tag} LOGIN IN ROLE shop_{tag};"""
        )
    monday = dt.date.today() - dt.timedelta(days=dt.date.today().weekday() + 7)
    start = dt.datetime.combine(monday + dt.timedelta(days=1), dt.time(9), dt.UTC)
    memory = "01KB2F0A1S9Y4Q7V3C8D5E6F01"
    for name, sessions in (("ann", 6), ("ben", 7), ("cat", 5)):
        home = tmp_path / f"home-{name}"
        (home / "user").mkdir(parents=True)
        (home / "user" / "config.toml").write_text("[digest]\npublish_to_team = true\n")
        env = {"TEAMBRAIN_HOME": str(home),
               "TB_SHARED_PG": postgres_url.replace("postgres:@", f"{name}_{tag}:@", 1)}  # fmt: skip
        assert tb("trust", "--yes", cwd=repo, env=env).returncode == 0
        machine = machine_layout(home)
        for i in range(sessions):
            keys = JoinKeys(sid=f"secret-sid-{name}-{i}", tool="claude-code", model="opus",
                            repo="github.com/acme/shop", branch="main")  # fmt: skip
            at = start + dt.timedelta(minutes=i)
            append_event(machine, make_event("session_start", {}, keys, now=at))
            append_event(machine, make_event("memory_retrieved", {"ids": [memory]}, keys, now=at))
        done = tb("digest", "--publish", "--since", monday.isoformat(), cwd=repo, env=env)
        assert done.returncode == 0, done.stderr
    shown = tb("metrics", "--team", "--json", cwd=repo, env=env)
    assert shown.returncode == 0, shown.stderr
    week = next(w for w in json.loads(shown.stdout)["weeks"] if w["week"] == monday.isoformat())
    assert week["sessions"] == {"value": 18, "members": 3, "hidden": 0}
    assert week["memories_used"] == [{"id": memory, "sessions": 18, "members": 3}]
    with psycopg.connect(postgres_url) as conn:
        stored = repr(conn.execute("SELECT * FROM teambrain.usage").fetchall())
    assert "secret-sid" not in stored and str(tmp_path) not in stored


def _poll(check: Any) -> Any:
    """``check()`` until true, for at most the issue's bound (10 s after CI's step ended)."""
    import time

    import anyio

    async def run() -> bool:
        limit = time.monotonic() + 10.0
        while time.monotonic() < limit:
            if await check():
                return True
            await anyio.sleep(0.25)
        return bool(await check())

    return run()


@pytest.mark.anyio
async def test_a_merge_reaches_a_running_tb_serve_by_notification_without_a_fetch(
    repo: Path, tb: Any, git_run: Any, postgres_url: str, tmp_path: Path
) -> None:
    """Point 5: `tb serve` runs in a teammate's clone; CI merges a memory and runs
    `tb reindex --shared`; the running server serves it (named by CI's commit, which the clone
    never fetched) within 10 s — a required memory in memory_context too — and a retirement
    disappears as fast."""
    import os

    from mcp import Client, StdioServerParameters

    _shared_brain(repo, tb, git_run)
    git_run("remote", "add", "origin", "https://github.com/acme/shop.git", cwd=repo)
    _memory(repo, "01KB2F0A1S9Y4Q7V3C8D5E6F01", "Payments go through the gateway",
            "Call the payment gateway for every charge; retry three times.")  # fmt: skip
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "one memory", cwd=repo)
    env = {"TB_SHARED_PG": postgres_url}
    assert tb("trust", "--yes", cwd=repo, env=env).returncode == 0
    assert tb("reindex", "--shared", cwd=repo, env=env).returncode == 0

    clone = tmp_path / "clone"
    git_run("clone", "-q", str(repo), str(clone), cwd=tmp_path)
    git_run("remote", "set-url", "origin", "https://github.com/acme/shop.git", cwd=clone)
    mate = {**env, "TEAMBRAIN_HOME": str(tmp_path / "mate-home")}
    assert tb("trust", "--yes", cwd=clone, env=mate).returncode == 0
    params = StdioServerParameters(
        command=str(Path(sys.executable).parent / "tb"), args=["serve"], cwd=clone,
        env={**os.environ, **mate},
    )  # fmt: skip

    async with Client(params) as client:

        async def search(query: str) -> list[dict[str, Any]]:
            found = await client.call_tool("memory_search", {"query": query, "k": 5})
            assert not found.is_error, found.content
            assert found.structured_content is not None
            return list(found.structured_content["results"])

        assert [r["id"] for r in await search("payment gateway")] == ["01KB2F0A1S9Y4Q7V3C8D5E6F01"]
        new = "01KB2F0A1S9Y4Q7V3C8D5E6F03"
        _memory(repo, new, "Cache keys carry the tenant", "Every cache key starts with the "
                "tenant id.", priority="required")  # fmt: skip
        git_run("add", "-A", cwd=repo)
        git_run("commit", "-qm", "a teammate's memory, merged", cwd=repo)
        merged = git_run("rev-parse", "HEAD", cwd=repo).strip()
        assert tb("reindex", "--shared", cwd=repo, env=env).returncode == 0

        async def served() -> bool:
            return new in [r["id"] for r in await search("cache key tenant")]

        assert await _poll(served)
        hit = next(r for r in await search("cache key tenant") if r["id"] == new)
        assert merged in json.dumps(hit)  # the commit it is served from: CI's
        context = await client.call_tool("memory_context", {})
        assert context.structured_content is not None
        assert new in [m["id"] for m in context.structured_content["required"]]
        assert git_run("cat-file", "-t", merged, cwd=repo).strip() == "commit"
        unfetched = subprocess.run(["git", "cat-file", "-e", merged], cwd=clone, check=False)
        assert unfetched.returncode != 0  # the clone never fetched it

        old = repo / ".teambrain" / "memories" / "decisions" / "01KB2F0A1S9Y4Q7V3C8D5E6F01-m.md"
        (repo / ".teambrain" / "retired").mkdir(exist_ok=True)
        git_run("mv", str(old), str(repo / ".teambrain" / "retired" / old.name), cwd=repo)
        git_run("commit", "-qm", "retire the gateway rule", cwd=repo)
        assert tb("reindex", "--shared", cwd=repo, env=env).returncode == 0

        async def retired() -> bool:
            return "01KB2F0A1S9Y4Q7V3C8D5E6F01" not in [
                r["id"] for r in await search("payment gateway")
            ]

        assert await _poll(retired)
        assert new in [r["id"] for r in await search("cache key tenant")]


@pytest.mark.anyio
async def test_a_newcomer_s_first_answers_come_from_the_shared_index(
    repo: Path, tb: Any, git_run: Any, postgres_url: str, tmp_path: Path
) -> None:
    """Point 3: a teammate's fresh clone that never built its index answers `tb relevant` and
    its `tb serve`'s first memory_context and memory_search from the shared index — named by
    CI's commit, its own unmerged memory on top — and `tb serve` builds the local index
    meanwhile; an unreachable database falls back to the local index, said once."""
    import os

    from mcp import Client, StdioServerParameters

    _shared_brain(repo, tb, git_run)
    git_run("remote", "add", "origin", "https://github.com/acme/shop.git", cwd=repo)
    _memory(repo, "01KB2F0A1S9Y4Q7V3C8D5E6F01", "Payments go through the gateway",
            "Call the payment gateway for every charge; retry three times.",
            priority="required")  # fmt: skip
    _memory(repo, "01KB2F0A1S9Y4Q7V3C8D5E6F02", "Releases are tagged",
            "Tag every release vX.Y.Z and build the wheels from the tag.")  # fmt: skip
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "two memories", cwd=repo)
    ci_commit = git_run("rev-parse", "HEAD", cwd=repo).strip()
    env = {"TB_SHARED_PG": postgres_url}
    assert tb("trust", "--yes", cwd=repo, env=env).returncode == 0
    assert tb("reindex", "--shared", cwd=repo, env=env).returncode == 0

    clone = tmp_path / "clone"
    git_run("clone", "-q", str(repo), str(clone), cwd=tmp_path)
    git_run("remote", "set-url", "origin", "https://github.com/acme/shop.git", cwd=clone)
    mine = _memory(clone, "01KB2F0A1S9Y4Q7V3C8D5E6F09", "Release notes come first",
                   "Write the release notes before you tag the release.")  # fmt: skip
    mate = {**env, "TEAMBRAIN_HOME": str(tmp_path / "mate-home")}
    assert tb("trust", "--yes", cwd=clone, env=mate).returncode == 0
    answer = tb("relevant", "--query", "tag the release", "--json", cwd=clone, env=mate)
    assert answer.returncode == 0, answer.stderr
    assert f"answered from the shared index at CI's commit {ci_commit[:12]}" in answer.stderr
    results = {r["id"]: r for r in json.loads(answer.stdout) if "id" in r}
    assert results["01KB2F0A1S9Y4Q7V3C8D5E6F02"]["provenance"]["commit"] == ci_commit
    assert results["01KB2F0A1S9Y4Q7V3C8D5E6F09"]["provenance"]["commit"] is None  # mine
    assert results["01KB2F0A1S9Y4Q7V3C8D5E6F09"]["provenance"]["path"] == (
        mine.relative_to(clone).as_posix()
    )

    params = StdioServerParameters(
        command=str(Path(sys.executable).parent / "tb"), args=["serve"], cwd=clone,
        env={**os.environ, **mate, "TEAMBRAIN_HOME": str(tmp_path / "server-home")},
    )  # fmt: skip
    assert tb("trust", "--yes", cwd=clone, env={**mate, "TEAMBRAIN_HOME": str(
        tmp_path / "server-home")}).returncode == 0  # fmt: skip
    async with Client(params) as client:
        context = await client.call_tool("memory_context", {})
        assert context.structured_content is not None, context.content
        pack = context.structured_content
        assert [m["id"] for m in pack["required"]] == ["01KB2F0A1S9Y4Q7V3C8D5E6F01"]
        # From the shared index unless the background build (three memories) already won.
        shared = [note for note in pack["notes"] if "answered from the shared index" in note]
        assert all(ci_commit[:12] in note for note in shared), pack["notes"]

        async def local() -> bool:
            found = await client.call_tool("memory_search", {"query": "tag the release"})
            assert found.structured_content is not None
            ids = [r["id"] for r in found.structured_content["results"]]
            return "01KB2F0A1S9Y4Q7V3C8D5E6F09" in ids and not any(
                "shared index" in note for note in
                (await client.call_tool("memory_context", {})).structured_content["notes"]
            )  # fmt: skip

        assert await _poll(local)  # the local index, built meanwhile, answers now

    down = {**mate, "TEAMBRAIN_HOME": str(tmp_path / "other-home"),
            "TB_SHARED_PG": f"postgresql://x:pw@/db?host={tmp_path}&port=5999"}  # fmt: skip
    assert tb("trust", "--yes", cwd=clone, env=down).returncode == 0
    fallback = tb("relevant", "--query", "tag the release", "--json", cwd=clone, env=down)
    assert fallback.returncode == 0, fallback.stderr
    assert "01KB2F0A1S9Y4Q7V3C8D5E6F02" in fallback.stdout
    said = [line for line in fallback.stderr.splitlines() if "shared index" in line]
    assert len(said) == 1 and "cannot connect" in said[0], fallback.stderr
