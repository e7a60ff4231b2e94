"""The one way teambrain runs git: an argument list (never a shell), a scrubbed environment, a
timeout that really ends the command, and errors as one line. Stdlib only (the hook uses it).

Every command runs with git's repository-locating variables removed (``GIT_DIR``,
``GIT_INDEX_FILE``, ``GIT_WORK_TREE``, …, the list ``git rev-parse --local-env-vars`` prints), so
a variable inherited from a git hook or a wrapper script can never point a read or a write at
another repository or at the user's index. Identity and configuration variables
(``GIT_AUTHOR_*``, ``GIT_COMMITTER_*``, ``GIT_CONFIG_GLOBAL``, ``GIT_SSH_COMMAND``, …) pass
through. ``GIT_TERMINAL_PROMPT=0`` makes a command that needs credentials fail instead of
waiting for a password nobody will type.

git runs in its own process group, and a timeout kills the whole group: ``git push`` hands the
network to a helper (``git-remote-http``, ``ssh``) that would otherwise keep the output pipes
open, and wait, after git itself was killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ._errors import EnvironmentProblem

__all__ = ["GitFailed", "first_line", "git_env", "git_output", "network_timeout", "run_git"]

# Repository-locating variables (git rev-parse --local-env-vars, minus the config ones, which
# only carry `git -c` settings and are safe to keep).
SCRUBBED_ENV = (
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_DIR",
    "GIT_GRAFT_FILE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_NAMESPACE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_OBJECT_DIRECTORY",
    "GIT_PREFIX",
    "GIT_REPLACE_REF_BASE",
    "GIT_SHALLOW_FILE",
    "GIT_WORK_TREE",
)
DEFAULT_TIMEOUT_S = 60.0
# A push or fetch: long enough for a slow network, short enough that a remote that accepts the
# connection and never answers does not hold the user forever. TEAMBRAIN_GIT_NETWORK_TIMEOUT
# (seconds) overrides it.
NETWORK_TIMEOUT_ENV = "TEAMBRAIN_GIT_NETWORK_TIMEOUT"
NETWORK_TIMEOUT_S = 120.0


class GitFailed(EnvironmentProblem):
    """A git command exited non-zero: the command, its exit code and git's own message."""

    def __init__(self, args: Sequence[str], returncode: int, stderr: str) -> None:
        self.args_run = tuple(args)
        self.returncode = returncode
        self.stderr = stderr
        detail = first_line(stderr) or f"exit code {returncode}"
        super().__init__(f"git {' '.join(args[:2])} failed: {detail}")


def first_line(text: str) -> str:
    """The first non-empty line of ``text`` (git's messages put the reason there)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip().removeprefix("fatal: ").removeprefix("error: ")
    return ""


def git_executable() -> str:
    """The git on PATH, or :class:`EnvironmentProblem` saying how to get one."""
    import shutil

    found = shutil.which("git")
    if found is None:
        raise EnvironmentProblem(
            "git is not installed or not on PATH; teambrain needs git (https://git-scm.com)"
        )
    return found


def network_timeout() -> float:
    """Seconds a push or fetch may take: ``$TEAMBRAIN_GIT_NETWORK_TIMEOUT`` or 120."""
    raw = os.environ.get(NETWORK_TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else NETWORK_TIMEOUT_S
    except ValueError:
        return NETWORK_TIMEOUT_S
    return value if 0 < value < 86_400 else NETWORK_TIMEOUT_S


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs with: ours minus repository-locating variables, plus ``extra``."""
    env = {key: value for key, value in os.environ.items() if key not in SCRUBBED_ENV}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_EDITOR", "true")  # nothing we run may open an editor
    if extra:
        env.update(extra)
    return env


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def run_git(
    args: Sequence[str],
    *,
    cwd: str | Path,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git <args>`` in ``cwd`` and return the finished process (bytes in, bytes out).

    A missing git, an unusable ``cwd`` or a timeout is an :class:`EnvironmentProblem` (the
    timeout kills git and every helper it started); a non-zero exit raises :class:`GitFailed`
    unless ``check`` is false.
    """
    command = [git_executable(), *args]
    try:
        process = subprocess.Popen(
            command, cwd=cwd, env=git_env(env), start_new_session=True,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
    except OSError as exc:
        raise EnvironmentProblem(f"cannot run git: {exc.strerror or exc}") from None
    try:
        stdout, stderr = process.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.communicate()
        raise EnvironmentProblem(
            f"git {' '.join(args[:2])} did not finish within {timeout:.0f} s"
        ) from None
    except BaseException:  # KeyboardInterrupt: never leave git running behind us
        _kill_group(process)
        process.wait()
        raise
    done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if check and done.returncode != 0:
        raise GitFailed(args, done.returncode, stderr.decode("utf-8", "replace"))
    return done


def git_output(
    args: Sequence[str],
    *,
    cwd: str | Path,
    input: bytes | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> bytes | None:
    """The stdout of ``git <args>`` in ``cwd``, or None when git is missing, fails or times out
    (for best-effort facts: a branch name, a commit list, a blob id)."""
    try:
        return run_git(args, cwd=cwd, input=input, check=True, timeout=timeout).stdout
    except EnvironmentProblem:
        return None
