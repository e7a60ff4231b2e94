"""The one git runner: scrubbed environment, one-line errors, timeouts that end git's helpers."""

import os
import stat
import threading
from pathlib import Path

import pytest
from teambrain_kit._errors import EnvironmentProblem
from teambrain_kit.git import GitFailed, git_output, network_timeout, run_git


def test_a_failing_command_is_a_one_line_git_failed(tmp_path: Path) -> None:
    with pytest.raises(GitFailed) as info:
        run_git(["rev-parse", "HEAD"], cwd=tmp_path)
    assert info.value.exit_code == 2 and "\n" not in info.value.message
    assert git_output(["rev-parse", "HEAD"], cwd=tmp_path) is None


def test_repository_locating_variables_never_reach_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    run_git(["init", "-q"], cwd=repo)
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "index"))
    out = run_git(["rev-parse", "--absolute-git-dir"], cwd=repo).stdout.decode().strip()
    assert Path(out) == (repo / ".git").resolve()


def test_a_missing_git_is_an_environment_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EnvironmentProblem, match="git is not installed"):
        run_git(["--version"], cwd=tmp_path)
    assert git_output(["--version"], cwd=tmp_path) is None


def test_a_timeout_ends_git_and_the_helpers_holding_its_pipes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git push hands the network to a helper; killing git alone left the helper holding the
    output pipes and the caller waiting forever."""
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    marker = tmp_path / "helper.pid"
    fake.write_text(f"#!/bin/sh\nsleep 600 &\necho $! > {marker}\nwait\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    errors: list[BaseException] = []

    def push() -> None:
        try:
            run_git(["push", "origin", "x"], cwd=tmp_path, timeout=1)
        except BaseException as exc:  # handed to the test thread
            errors.append(exc)

    worker = threading.Thread(target=push, daemon=True)
    worker.start()
    worker.join(60)  # liveness, not timing: without the group kill this never returns
    assert not worker.is_alive(), "run_git hung after its timeout"
    assert len(errors) == 1 and isinstance(errors[0], EnvironmentProblem)
    assert "did not finish within 1 s" in str(errors[0])
    helper = int(marker.read_text())
    for _ in range(200):
        if not _running(helper):
            break
        threading.Event().wait(0.05)
    assert not _running(helper), "the helper outlived the timeout"


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for a reaper (PID 1 in a container may never reap)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


@pytest.mark.parametrize(
    ("value", "expected"), [("", 120.0), ("5", 5.0), ("0", 120.0), ("abc", 120.0), ("-3", 120.0)]
)
def test_the_network_timeout_comes_from_the_environment(
    value: str, expected: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEAMBRAIN_GIT_NETWORK_TIMEOUT", value)
    assert network_timeout() == expected
