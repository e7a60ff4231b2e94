"""`tb digest` and `tb metrics` end to end: the installed `tb`, a real git repository, the demo's
session generator filling a real spool, a local HTTP server standing in for Slack."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
Tb = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def week(repo: Path, teambrain_home: Path) -> Path:
    """The demo generator's week of sessions (seed 2: 48 sessions, one torn line)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "demo" / "gen_sessions.py")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "wrote 48 synthetic sessions" in done.stdout
    return repo


def digest_json(tb: Tb, repo: Path, *args: str) -> dict[str, Any]:
    done = tb("digest", "--format", "json", *args, cwd=repo)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def test_the_generated_week_digests_with_small_cells_hidden(week: Path, tb: Tb) -> None:
    data = digest_json(tb, week)
    assert data["sessions"]["total"] == 48
    assert data["spool"]["torn_lines"] == 1
    # The generator's content does not depend on the date: these figures are fixed by the seed.
    # codex is rare in the demo week: it is folded away with the next-smallest tool (cursor).
    assert data["sessions"]["by_tool"] == {"claude-code": 28, "(other)": 20}
    assert data["sessions"]["by_outcome"] == {"committed": 34, "abandoned": 7, "(other)": 7}
    assert data["candidates"] == {"proposed": "<5", "sessions_proposing": "<5"}
    assert data["tests"] == {
        "runs": 64,
        "sessions_with_tests": 37,
        "failures": 10,
        "sessions_with_failures": 9,
    }
    trend = data["sessions"]["trend"]
    assert "<5" in [b["sessions"] for b in trend] and any(
        isinstance(b["sessions"], int) for b in trend
    )
    efficiency = data["context_efficiency"]
    assert (
        efficiency["explore_per_session_with_memory"]
        < efficiency["explore_per_session_without_memory"]
    )
    # The same cells are hidden in Markdown.
    markdown = tb("digest", "--format", "markdown", cwd=week).stdout
    assert "| Candidates proposed | <5 |" in markdown
    assert f"| Sessions | {data['sessions']['total']} |" in markdown
    # Another repository's filter sees none of these sessions.
    assert digest_json(tb, week, "--repo", "elsewhere")["sessions"]["total"] == "<5"


def test_dry_run_and_report_files(week: Path, tb: Tb, tmp_path: Path) -> None:
    done = tb("digest", cwd=week)
    assert done.returncode == 0
    assert done.stdout.startswith("*teambrain digest*") and "Dry run" in done.stderr
    out = tmp_path / "reports" / "digest.md"
    out.parent.mkdir()
    done = tb("digest", "--format", "markdown", "--out", str(out), cwd=week)
    assert done.returncode == 0 and out.read_text().startswith("# teambrain digest")
    assert tb("init", cwd=week).returncode == 0
    inside = week / ".teambrain" / "memories" / "learnings" / "digest.md"
    done = tb("digest", "--format", "markdown", "--out", str(inside), cwd=week)
    assert done.returncode == 1 and not inside.exists()
    assert done.stderr.count("\n") == 1 and "never written inside a brain" in done.stderr


def test_the_digest_is_posted_to_a_configured_webhook(
    week: Path, tb: Tb, teambrain_home: Path, local_webhook: Any
) -> None:
    url, received = local_webhook.url, local_webhook.received
    (teambrain_home / "user").mkdir(parents=True, exist_ok=True)
    (teambrain_home / "user" / "config.toml").write_text(
        '[digest]\nslack_webhook_env = "ACME_SLACK"\n'
    )
    done = tb("digest", cwd=week, env={"ACME_SLACK": url})
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout == "" and "posted to Slack" in done.stderr and "secret-token" not in done.stderr
    )
    assert len(received) == 1 and "*48* sessions" in received[0]["text"]
    # The variable set but not an https URL: exit 2, and the value is not echoed.
    done = tb("digest", cwd=week, env={"ACME_SLACK": "http://chat.example/secret-token"})
    assert done.returncode == 2 and "secret-token" not in done.stderr + done.stdout


def test_metrics_on_an_indexed_brain(week: Path, tb: Tb, git_run: Any) -> None:
    assert tb("init", cwd=week).returncode == 0
    shutil.copytree(
        ROOT / "demo" / "brain" / "memories", week / ".teambrain" / "memories", dirs_exist_ok=True
    )
    shutil.copytree(ROOT / "demo" / "app", week, dirs_exist_ok=True)  # the code it describes
    assert tb("reindex", cwd=week).returncode == 0
    git_run("add", "-A", cwd=week)
    git_run("commit", "-qm", "brain", cwd=week)
    head = git_run("rev-parse", "HEAD", cwd=week).strip()
    done = tb("metrics", "--json", cwd=week)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["memories"] == {
        "active": 7, "required": 2, "expired": 0, "superseded": 0, "retired": 0, "unreadable": 0,
        "stale": 0,
    }  # fmt: skip
    git_run("rm", "-q", "tests/fakes.py", cwd=week)
    git_run("commit", "-qm", "drop the fakes", cwd=week)
    stale = json.loads(tb("metrics", "--json", cwd=week).stdout)["memories"]["stale"]
    assert stale == 1  # the payments decision cites tests/fakes.py
    assert data["index"]["state"] == "fresh" and data["index"]["head"] == head
    assert data["index"]["documents"] == 7
    assert data["embedder"]["state"] == "in use" and data["embedder"]["name"].startswith("local:")
    assert data["serve"]["state"] == "not running"
    assert data["last_7_days"]["sessions"] == 48 and data["spool"]["torn_lines"] == 1
    # An edited memory makes the index stale until the next search or reindex.
    memory = next((week / ".teambrain" / "memories" / "map").glob("*.md"))
    memory.write_text(memory.read_text() + "\nAlso see src/shop/cart.\n")
    text = tb("metrics", cwd=week).stdout
    assert "Index        stale — 1 memory file(s) changed since the last index" in text
    assert tb("reindex", cwd=week).returncode == 0
    assert json.loads(tb("metrics", "--json", cwd=week).stdout)["index"]["state"] == "fresh"


def test_a_solo_user_sees_their_own_numbers_and_shared_outputs_keep_suppressing(
    repo: Path, tb: Tb, tmp_path: Path
) -> None:
    """Issue 42 point 4: three sessions proposing nine candidates. `tb metrics` and `tb digest
    --format text` (this machine's own view) show 3 and 9, each marked with the sessions it
    rests on; the Slack message, markdown, json and any --out file still show <5."""
    import datetime as dt

    from teambrain_capture import JoinKeys, append_event, make_event
    from teambrain_schema.paths import machine_layout

    machine = machine_layout()
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    draft = {"class": "learning", "title": "A learning", "body": "Run the fake clock in tests."}
    retrieved = {"ids": ["01JDQ8M6Z1V5K7G3X9T2B4N8RA"], "via": "context", "token_estimate": 640}
    events = [("session_start", {}), ("memory_retrieved", retrieved)]
    events += [("candidate_proposed", {"draft": draft})] * 3
    for i in range(3):
        keys = JoinKeys(f"solo-{i}", "claude-code", "opus", "acme/shop", "main")
        for ev, data in events:
            append_event(machine, make_event(ev, data, keys, now=now - dt.timedelta(hours=3 - i)))
    metrics = tb("metrics", cwd=repo)
    assert metrics.returncode == 0, metrics.stderr
    assert "Last 7 days  3 [3 of 5] sessions · 3 [3 of 5] with memory" in metrics.stdout
    assert "<5" not in metrics.stdout and "Your own numbers" in metrics.stdout
    own = tb("digest", "--format", "text", cwd=repo)
    assert own.returncode == 0, own.stderr
    assert "proposed 9 [3 of 5] in 3 [3 of 5] sessions" in own.stdout
    assert "avg context size   640 tokens [3 of 5]" in own.stdout
    # Everything that may leave the machine keeps suppressing.
    assert json.loads(tb("metrics", "--json", cwd=repo).stdout)["last_7_days"]["sessions"] == "<5"
    data = json.loads(tb("digest", "--format", "json", cwd=repo).stdout)
    assert data["candidates"] == {"proposed": "<5", "sessions_proposing": "<5"}
    assert "[3 of 5]" not in tb("digest", "--format", "markdown", cwd=repo).stdout
    slack = tb("digest", cwd=repo)
    assert "<5 candidates proposed" in slack.stdout and "[3 of" not in slack.stdout
    assert "`tb digest --format text` shows your own numbers" in slack.stderr
    out = tmp_path / "week.txt"
    assert tb("digest", "--format", "text", "--out", str(out), cwd=repo).returncode == 0
    assert "proposed <5 in <5 sessions" in out.read_text() and "[3 of" not in out.read_text()
