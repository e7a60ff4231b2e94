"""The shared Postgres index as a committed setting: `retrieval.backend: postgres` arrives by
git like any other, and the installed `tb` lists it with `tb trust`, `tb doctor` and
`tb verify` as a destination this machine has not approved — by the variable that holds the
connection string, never the string — until `tb trust` approves it here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SECRET_URL = "postgresql://ci:hunter2-very-secret@db.example.com/brains"


def _shared_brain(repo: Path, tb: Any, git_run: Any) -> None:
    assert tb("init", cwd=repo).returncode == 0
    yaml = repo / ".teambrain" / "brain.yaml"
    text = yaml.read_text()
    text = text.replace("  backend: sqlite\n", "  backend: postgres\n", 1)
    yaml.write_text(text.replace("  url_env: null\n", "  url_env: TB_SHARED_PG\n", 1))
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
    assert report["migrated"] == [1, 2]

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
