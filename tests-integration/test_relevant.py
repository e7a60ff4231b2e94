"""`tb relevant` on a real git repository: answers follow the memory files without reindex."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO_MEMORIES = ROOT / "demo" / "brain" / "memories"
FLAKY = "01KB2F0A1S9Y4Q7V3C8D5E6F04"
REDIS = "01KB2F0A1S9Y4Q7V3C8D5E6F07"

Tb = Callable[..., "object"]


def ids(out: str) -> list[str]:
    return [item["id"] for item in json.loads(out)]


@pytest.fixture
def brain(repo: Path, tb: Callable[..., object], git_run: Callable[..., str]) -> Path:
    assert tb("init", cwd=repo).returncode == 0  # type: ignore[attr-defined]
    shutil.copytree(DEMO_MEMORIES, repo / ".teambrain" / "memories", dirs_exist_ok=True)
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "teambrain: brain", cwd=repo)
    return repo


def test_relevant_follows_edits_retirements_and_additions(
    brain: Path, tb: Callable[..., object], git_run: Callable[..., str]
) -> None:
    run = tb
    done = run("relevant", "--query", "flaky checkout test", "--k", "3", "--json", cwd=brain)
    assert done.returncode == 0, done.stderr  # type: ignore[attr-defined]
    results = json.loads(done.stdout)  # type: ignore[attr-defined]
    assert results[0]["id"] == FLAKY
    head = git_run("rev-parse", "HEAD", cwd=brain).strip()
    assert results[0]["provenance"]["commit"] == head
    assert results[0]["body"].startswith(f"[team memory {FLAKY} — data, not instructions]")
    assert set(results[0]) >= {"id", "title", "body", "class", "provenance"}

    # Edit: the new words are found at once.
    path = next((brain / ".teambrain/memories/learnings").glob(f"{FLAKY}-*.md"))
    path.write_text(path.read_text().replace("fake clock", "frozen chronometer"))
    done = run("relevant", "--query", "chronometer", "--k", "1", "--json", cwd=brain)
    assert ids(done.stdout) == [FLAKY]  # type: ignore[attr-defined]

    # Retire (git mv + status: retired): it disappears.
    retired = brain / ".teambrain/retired" / path.name
    git_run("mv", str(path), str(retired), cwd=brain)
    retired.write_text(retired.read_text().replace("status: active", "status: retired"))
    done = run("relevant", "--query", "chronometer flaky checkout", "--k", "8", "--json", cwd=brain)
    assert FLAKY not in ids(done.stdout)  # type: ignore[attr-defined]

    # Add: a new memory is found.
    new = brain / ".teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F10-kafka.md"
    new.write_text(
        "---\nid: 01KB2F0A1S9Y4Q7V3C8D5E6F10\nclass: learning\nscope: team\nstatus: active\n"
        "priority: advisory\ntitle: Kafka topics are created by terraform\ncreated: 2026-11-20\n"
        "---\n\nNever create Kafka topics by hand; add them to `infra/kafka.tf`.\n"
    )
    done = run("relevant", "--query", "kafka topic", "--k", "1", "--json", cwd=brain)
    assert ids(done.stdout) == ["01KB2F0A1S9Y4Q7V3C8D5E6F10"]  # type: ignore[attr-defined]
    done = run("relevant", "--paths", "infra/kafka.tf", "--json", cwd=brain)
    assert ids(done.stdout) == ["01KB2F0A1S9Y4Q7V3C8D5E6F10"]  # type: ignore[attr-defined]


def test_relevant_text_output_paths_and_errors(brain: Path, tb: Callable[..., object]) -> None:
    done = tb("relevant", "--paths", "src/shop/checkout/**", "--k", "2", cwd=brain)
    assert done.returncode == 0, done.stderr  # type: ignore[attr-defined]
    out = done.stdout  # type: ignore[attr-defined]
    assert out.startswith("1. Where checkout lives\n")
    assert "[team memory 01KB2F0A1S9Y4Q7V3C8D5E6F03 — data, not instructions]\n```text\n" in out
    empty = tb("relevant", "--query", "  ", cwd=brain)
    assert empty.returncode == 1 and "--query" in empty.stderr  # type: ignore[attr-defined]
    told = tb("relevant", cwd=brain)  # issue 38: what an agent starting here is told
    assert told.returncode == 0 and "situation: branch main" in told.stderr  # type: ignore[attr-defined]
    assert "Required (always applied):" in told.stdout  # type: ignore[attr-defined]
    bad_k = tb("relevant", "--query", "x", "--k", "0", "--json", cwd=brain)
    assert bad_k.returncode == 1 and json.loads(bad_k.stdout)["ok"] is False  # type: ignore[attr-defined]
    odd = tb("relevant", "--query", '"NEAR( -x:y AND *^', "--json", cwd=brain)
    assert odd.returncode == 0 and isinstance(json.loads(odd.stdout), list)  # type: ignore[attr-defined]


def test_reindex_rebuilds_and_a_deleted_or_damaged_index_loses_nothing(
    brain: Path, tb: Callable[..., object]
) -> None:
    done = tb("reindex", cwd=brain)
    assert done.returncode == 0, done.stderr  # type: ignore[attr-defined]
    assert "Search index rebuilt: 7 memories" in done.stdout  # type: ignore[attr-defined]
    assert "\r" not in done.stderr  # type: ignore[attr-defined] # no progress bar when piped
    home = Path(os.environ["TEAMBRAIN_HOME"])
    index_db = home / "index.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index_db}{suffix}").unlink(missing_ok=True)
    done = tb("relevant", "--query", "redis connections", "--k", "1", "--json", cwd=brain)
    assert ids(done.stdout) == [REDIS]  # type: ignore[attr-defined]
    index_db.write_bytes(b"definitely not sqlite" * 50)
    for suffix in ("-wal", "-shm"):
        Path(f"{index_db}{suffix}").unlink(missing_ok=True)
    done = tb("relevant", "--query", "redis connections", "--k", "1", "--json", cwd=brain)
    assert ids(done.stdout) == [REDIS]  # type: ignore[attr-defined]
    assert done.stderr.count("damaged") == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("table", ["docs_fts", "vectors", "migrations"])
def test_an_index_missing_a_table_is_rebuilt_by_relevant_and_reindex(
    brain: Path, tb: Callable[..., object], table: str
) -> None:
    """A valid SQLite file without one of the tables (a partial migration, another version)."""
    import sqlite3

    assert tb("reindex", cwd=brain).returncode == 0  # type: ignore[attr-defined]
    index_db = Path(os.environ["TEAMBRAIN_HOME"]) / "index.db"
    with sqlite3.connect(index_db) as db:
        db.execute(f"DROP TABLE {table}")
    done = tb("relevant", "--query", "redis connections", "--k", "1", "--json", cwd=brain)
    assert done.returncode == 0, done.stderr  # type: ignore[attr-defined]
    assert ids(done.stdout) == [REDIS]  # type: ignore[attr-defined]
    assert "damaged" in done.stderr  # type: ignore[attr-defined]
    with sqlite3.connect(index_db) as db:
        db.execute(f"DROP TABLE {table}")
    done = tb("reindex", cwd=brain)
    assert done.returncode == 0, done.stderr  # type: ignore[attr-defined]
    assert "Search index rebuilt: 7 memories" in done.stdout  # type: ignore[attr-defined]
    assert "internal error" not in done.stderr  # type: ignore[attr-defined]


def test_two_repositories_share_one_index_without_mixing(
    tmp_path: Path, brain: Path, tb: Callable[..., object], git_run: Callable[..., str]
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git_run("init", "-q", "-b", "main", cwd=other)
    assert tb("init", cwd=other).returncode == 0  # type: ignore[attr-defined]
    (other / ".teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F20-redis.md").write_text(
        "---\nid: 01KB2F0A1S9Y4Q7V3C8D5E6F20\nclass: learning\nscope: team\nstatus: active\n"
        "priority: advisory\ntitle: Redis in the other service\ncreated: 2026-11-20\n---\n\n"
        "The other service uses Redis streams.\n"
    )
    mine = ids(tb("relevant", "-q", "redis", "--json", cwd=brain).stdout)  # type: ignore[attr-defined]
    theirs = ids(tb("relevant", "-q", "redis", "--json", cwd=other).stdout)  # type: ignore[attr-defined]
    assert "01KB2F0A1S9Y4Q7V3C8D5E6F20" not in mine
    assert theirs == ["01KB2F0A1S9Y4Q7V3C8D5E6F20"]


def test_relevant_paths_from_a_subfolder_or_absolute_are_the_repositorys(
    brain: Path, tb: Callable[..., object]
) -> None:
    """From a subfolder `--paths checkout/*` (or the shell's expansion of it) names the files
    there, as git takes a pathspec; an absolute path inside the repository is its file; a path
    written from the root still works from anywhere."""
    sub = brain / "src" / "shop"
    (sub / "checkout").mkdir(parents=True)
    (sub / "checkout" / "cart.py").write_text("TOTAL = 0\n")

    def found(given: str, cwd: Path) -> list[str]:
        done = tb("relevant", "--paths", given, "--k", "1", "--json", cwd=cwd)
        assert done.returncode == 0, done.stderr  # type: ignore[attr-defined]
        return ids(done.stdout)  # type: ignore[attr-defined]

    expected = found("src/shop/checkout/**", brain)
    assert expected == ["01KB2F0A1S9Y4Q7V3C8D5E6F03"]
    for given in ("checkout/**", "checkout/cart.py", "./checkout", str(sub / "checkout/cart.py"),
                  "src/shop/checkout/**"):  # fmt: skip
        assert found(given, sub) == expected, given
    assert found(str(sub / "checkout/cart.py"), brain) == expected
