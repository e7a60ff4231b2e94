import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from teambrain_capture import (
    JoinKeys,
    apply_machine_settings,
    find_active_session,
    load_user_config,
    mark_session_active,
    mark_session_ended,
    read_feedback,
    record_feedback,
    user_dir,
)
from teambrain_kit.paths import machine_layout
from teambrain_schema import EnvironmentProblem


def test_feedback_round_trip(teambrain_home: Path) -> None:
    record_feedback("01JDQ8M6Z1V5K7G3X9T2B4N8RA", True, sid="s-1")
    record_feedback("01JDQ8M6Z1V5K7G3X9T2B4N8RA", False)
    votes = read_feedback()
    assert [(v.id, v.useful, v.sid) for v in votes] == [
        ("01JDQ8M6Z1V5K7G3X9T2B4N8RA", True, "s-1"),
        ("01JDQ8M6Z1V5K7G3X9T2B4N8RA", False, None),
    ]
    assert (user_dir() / "feedback.jsonl").parent == teambrain_home / "user"


def test_user_config_defaults_and_errors(teambrain_home: Path) -> None:
    assert load_user_config().retention_days == 30
    user_dir().mkdir(parents=True)
    (user_dir() / "config.toml").write_text(
        '[capture]\nretention_days = 7\n[digest]\nslack_webhook_env = "SLACK_URL"\n'
    )
    config = load_user_config()
    assert (config.retention_days, config.slack_webhook_env) == (7, "SLACK_URL")
    (user_dir() / "config.toml").write_text("[capture]\nretention_days = 0\n")
    with pytest.raises(EnvironmentProblem, match="retention_days"):
        load_user_config()
    (user_dir() / "config.toml").write_text("[capture\n")
    with pytest.raises(EnvironmentProblem, match=r"config\.toml"):
        load_user_config()


def test_the_org_brains_place_on_this_machine_comes_from_user_config_or_the_environment(
    teambrain_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27 point 9: `[org_brain] path` reaches retrieval as $TEAMBRAIN_ORG_BRAIN; the
    environment, when set, wins; a broken config changes nothing here."""
    # Recorded first, so whatever apply_machine_settings writes is undone after the test.
    monkeypatch.setenv("TEAMBRAIN_ORG_BRAIN", "recorded")
    monkeypatch.delenv("TEAMBRAIN_ORG_BRAIN")
    apply_machine_settings()
    assert "TEAMBRAIN_ORG_BRAIN" not in os.environ  # nothing configured
    user_dir().mkdir(parents=True)
    (user_dir() / "config.toml").write_text('[org_brain]\npath = "~/src/acme-org-brain"\n')
    assert load_user_config().org_brain == "~/src/acme-org-brain"
    apply_machine_settings()
    assert os.environ["TEAMBRAIN_ORG_BRAIN"] == "~/src/acme-org-brain"
    monkeypatch.setenv("TEAMBRAIN_ORG_BRAIN", "/elsewhere")
    apply_machine_settings()
    assert os.environ["TEAMBRAIN_ORG_BRAIN"] == "/elsewhere"
    (user_dir() / "config.toml").write_text("[org_brain]\npath = 3\n")
    with pytest.raises(EnvironmentProblem, match=r"org_brain\.path"):
        load_user_config()
    monkeypatch.delenv("TEAMBRAIN_ORG_BRAIN")
    apply_machine_settings()  # broken: said by tb doctor, never raised here
    assert "TEAMBRAIN_ORG_BRAIN" not in os.environ


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ('[serve]\nfrom = "HEAD"\n', "serve.from"),
        ("[serve]\nfetch_minutes = -1\n", "serve.fetch_minutes"),
        ("[serve]\nfetch_minutes = true\n", "serve.fetch_minutes"),
        ('[serve]\nfetch_timeout_s = "10"\n', "serve.fetch_timeout_s"),
        ("[serve]\nfetch_timeout_s = 0.5\n", "serve.fetch_timeout_s"),
    ],
)
def test_a_serve_setting_that_does_not_read_is_named(
    teambrain_home: Path, text: str, wrong: str
) -> None:
    user_dir().mkdir(parents=True)
    (user_dir() / "config.toml").write_text(text)
    with pytest.raises(EnvironmentProblem, match=wrong.replace(".", r"\.")):
        load_user_config()


def test_serving_settings_reach_retrieval_through_the_environment(
    teambrain_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27 point 7: `[serve]` becomes $TEAMBRAIN_SERVE_FROM, $TEAMBRAIN_FETCH_MINUTES and
    $TEAMBRAIN_FETCH_TIMEOUT (retrieval may not read user/); the environment wins."""
    names = ("TEAMBRAIN_SERVE_FROM", "TEAMBRAIN_FETCH_MINUTES", "TEAMBRAIN_FETCH_TIMEOUT")
    for name in names:  # recorded first, so what apply_machine_settings writes is undone
        monkeypatch.setenv(name, "recorded")
        monkeypatch.delenv(name)
    user_dir().mkdir(parents=True)
    (user_dir() / "config.toml").write_text(
        '[serve]\nfrom = "checkout"\nfetch_minutes = 2.5\nfetch_timeout_s = 30\n'
    )
    monkeypatch.setenv("TEAMBRAIN_FETCH_TIMEOUT", "9")
    apply_machine_settings()
    assert [os.environ[name] for name in names] == ["checkout", "2.5", "9"]


def test_active_session_lookup(tmp_path: Path, teambrain_home: Path) -> None:
    machine = machine_layout()
    repo = tmp_path / "repo"
    repo.mkdir()
    first = JoinKeys(sid="a", tool="cursor", model="m", repo="r", branch="main")
    second = JoinKeys(sid="b", tool="claude-code", model="m", repo="r", branch="main")
    assert find_active_session(machine, repo) is None
    mark_session_active(machine, repo, first)
    time.sleep(0.02)
    mark_session_active(machine, repo, second)
    assert find_active_session(machine, repo) == second
    assert find_active_session(machine, repo, sid="a") == first
    assert find_active_session(machine, repo, now=time.time() + 13 * 3600) is None
    mark_session_ended(machine, repo, "b")
    assert find_active_session(machine, repo) == first
    assert find_active_session(machine, tmp_path) is None


def test_hook_path_imports_only_the_standard_library() -> None:
    code = (
        "import sys\n"
        "from teambrain_capture import append_event, make_event, JoinKeys, mark_session_active, safe_sid\n"
        "heavy = [m for m in ('pydantic', 'ruamel', 'numpy', 'apsw', 'mcp', 'click') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert done.stdout.strip() == ""
