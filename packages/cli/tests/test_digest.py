import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from teambrain_capture import JoinKeys, append_event, make_event, user_dir
from teambrain_cli._main import run
from teambrain_kit.paths import machine_layout

MEMORY = "01KB2F0A1S9Y4Q7V3C8D5E6F01"


def write_week(sessions: int = 6, tool: str = "claude-code") -> None:
    """``sessions`` sessions over the last three days, each shown one memory, exploring twice."""
    machine = machine_layout()
    now = dt.datetime.now(dt.UTC)
    for i in range(sessions):
        keys = JoinKeys(sid=f"{tool}-{i}", tool=tool, model="opus", repo="acme/shop", branch="main")
        start = now - dt.timedelta(days=i % 3, hours=2)
        append_event(machine, make_event("session_start", {}, keys, now=start))
        append_event(
            machine,
            make_event(
                "memory_retrieved",
                {"ids": [MEMORY], "via": "context", "token_estimate": 400},
                keys,
                now=start,
            ),
        )
        for _ in range(2):
            append_event(
                machine,
                make_event("tool_use", {"kind": "explore", "path": "a.py"}, keys, now=start),
            )
        end = {"outcome": "committed", "duration_s": 900.0, "turns": 12, "commit_shas": []}
        append_event(machine, make_event("session_end", end, keys, now=start))


def configure_webhook(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    user_dir().mkdir(parents=True, exist_ok=True)
    (user_dir() / "config.toml").write_text('[digest]\nslack_webhook_env = "TB_SLACK_URL"\n')
    monkeypatch.setenv("TB_SLACK_URL", url)


def test_without_a_webhook_the_slack_message_is_a_dry_run(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_week()
    assert run(["digest"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("*teambrain digest* · all repositories")
    assert "• *6* sessions (claude-code 6)" in out
    assert "Dry run: not posted to Slack (no digest.slack_webhook_env in" in err


def test_with_a_webhook_the_digest_is_posted(
    repo: Path,
    local_webhook: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_week(4)
    configure_webhook(monkeypatch, local_webhook.url)
    assert run(["digest"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "Digest posted to Slack (webhook from $TB_SLACK_URL)" in err
    assert len(local_webhook.received) == 1
    text = local_webhook.received[0]["text"]
    assert "*&lt;5* sessions" in text and "<" not in text  # four sessions: suppressed, escaped
    assert "secret-token" not in out + err


def test_a_failing_webhook_is_exit_2_and_never_shows_the_url(
    repo: Path,
    local_webhook: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    local_webhook.status = 403
    configure_webhook(monkeypatch, local_webhook.url)
    assert run(["digest"]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "HTTP 403" in err and "$TB_SLACK_URL" in err
    assert "secret-token" not in out + err and "127.0.0.1" not in out + err


@pytest.mark.parametrize(
    ("fmt", "marker"),
    [
        ("text", "teambrain digest · all repositories"),
        ("markdown", "# teambrain digest — all repositories"),
    ],
)
def test_formats_print_the_whole_report(
    repo: Path, capsys: pytest.CaptureFixture[str], fmt: str, marker: str
) -> None:
    write_week()
    assert run(["digest", "--format", fmt]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(marker) and err == ""


def test_json_format_and_its_failures_stay_parseable(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_week()
    assert run(["digest", "--format", "json", "--repo", "acme/shop"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sessions"]["total"] == 6 and data["window"]["repo"] == "acme/shop"
    assert data["memory"]["top_memories"] == [{"id": MEMORY, "sessions": 6}]
    assert data["context_efficiency"]["explore_per_session_with_memory"] == 2
    assert run(["digest", "--format", "json", "--since", "last tuesday"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["error"]["exit_code"] == 1 and "--since 'last tuesday'" in err


def test_out_writes_the_format_its_suffix_names(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_week()
    reports = tmp_path / "reports"
    reports.mkdir()
    assert run(["digest", "--out", str(reports / "week.md")]) == 0
    assert (reports / "week.md").read_text().startswith("# teambrain digest")
    assert run(["digest", "--out", str(reports / "week.json")]) == 0
    assert json.loads((reports / "week.json").read_text())["sessions"]["total"] == 6
    assert run(["digest", "--format", "text", "--out", str(reports / "week.md")]) == 0
    assert (reports / "week.md").read_text().startswith("teambrain digest ·")
    out, err = capsys.readouterr()
    assert out == "" and "Wrote the text digest to" in err


def test_out_is_refused_inside_the_brain(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["init"]) == 0
    target = repo / ".teambrain" / "memories" / "learnings" / "digest.md"
    assert run(["digest", "--format", "markdown", "--out", str(target)]) == 1
    assert not target.exists()
    assert "never written inside a brain" in capsys.readouterr().err


def test_memory_titles_come_from_the_brain_here(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["init"]) == 0
    folder = repo / ".teambrain" / "memories" / "decisions"
    (folder / f"{MEMORY}-payments-go-through-the-gateway.md").write_text(
        f"---\nid: {MEMORY}\nclass: decision\nscope: team\nstatus: active\npriority: required\n"
        "title: Payments go through the gateway\ncreated: 2026-06-01\n---\n\nUse the gateway.\n"
    )
    write_week()
    capsys.readouterr()
    assert run(["digest", "--format", "text"]) == 0
    assert f"6 sessions  {MEMORY} (Payments go through the gateway)" in capsys.readouterr().out


def test_an_empty_spool_is_a_report_of_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["digest", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sessions"]["total"] == "<5" and data["spool"]["torn_lines"] == 0


def test_repo_dot_means_the_repository_here(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_week(5, tool="cursor")  # recorded for acme/shop
    machine = machine_layout()
    now = dt.datetime.now(dt.UTC)
    for i in range(5):  # recorded for this checkout (no remote: its folder name)
        keys = JoinKeys(sid=f"here-{i}", tool="codex", model="m", repo=repo.name, branch="main")
        at = now - dt.timedelta(hours=i + 1)
        append_event(machine, make_event("session_start", {}, keys, now=at))
        append_event(machine, make_event("intent", {"summary": "add logging"}, keys, now=at))
    assert run(["digest", "--format", "json", "--repo", "."]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["window"]["repo"] == repo.name and data["sessions"]["by_tool"] == {"codex": 5}
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    monkeypatch.chdir(outside)
    assert run(["digest", "--repo", "."]) == 1
    assert "--repo .: not inside a git repository" in capsys.readouterr().err


def test_json_errors_follow_the_format_click_reads(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Failures print the JSON error exactly when the report would have been JSON on stdout."""
    bad = ["--since", "last tuesday"]
    for argv, parseable in [
        (["--format=json", *bad], True),
        (["--format", "text", "--format", "json", *bad], True),
        (["--format", "json", "--format", "text", *bad], False),
        (["--format", "json", "--out", str(tmp_path / "week.json"), *bad], False),
        (["--since", "--format", "json"], False),  # "--format" is the value of --since
        (["--format", "json", "--bogus"], True),
    ]:
        assert run(["digest", *argv]) == 1
        out, err = capsys.readouterr()
        assert err.startswith("tb: ") and err.count("\n") == 1, argv
        if parseable:
            assert json.loads(out)["error"] == {"message": err[4:-1], "exit_code": 1}, argv
        else:
            assert out == "", argv
