"""Running git: the git CLI through argument lists (never a shell), with a scrubbed environment.

Every command runs in the repository's work tree with git's repository-locating variables
removed (``GIT_DIR``, ``GIT_INDEX_FILE``, ``GIT_WORK_TREE``, …, the list ``git rev-parse
--local-env-vars`` prints), so a variable inherited from a git hook or a wrapper script can never
point a write at another repository or at the user's index. Identity and configuration
variables (``GIT_AUTHOR_*``, ``GIT_COMMITTER_*``, ``GIT_CONFIG_GLOBAL``, ``GIT_SSH_COMMAND``, …)
pass through. ``GIT_TERMINAL_PROMPT=0`` makes a push that needs credentials fail instead of
waiting for a password nobody will type.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from teambrain_schema import EnvironmentProblem

# Repository-locating variables (git rev-parse --local-env-vars, minus the config ones, which
# only carry `git -c` settings and are safe to keep).
SCRUBBED_ENV: Final = (
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
DEFAULT_TIMEOUT_S: Final = 60.0
NETWORK_TIMEOUT_S: Final = 300.0


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
    found = shutil.which("git")
    if found is None:
        raise EnvironmentProblem(
            "git is not installed or not on PATH; teambrain needs git (https://git-scm.com)"
        )
    return found


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs with: ours minus repository-locating variables, plus ``extra``."""
    env = {key: value for key, value in os.environ.items() if key not in SCRUBBED_ENV}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_EDITOR", "true")  # nothing we run may open an editor
    if extra:
        env.update(extra)
    return env


def run_git(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git <args>`` in ``cwd`` and return the finished process (bytes in, bytes out).

    A missing git or a timeout is an :class:`EnvironmentProblem`; a non-zero exit raises
    :class:`GitFailed` unless ``check`` is false.
    """
    command = [git_executable(), *args]
    try:
        done = subprocess.run(
            command, cwd=cwd, env=git_env(env), input=input, capture_output=True,
            timeout=timeout, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise EnvironmentProblem(
            f"git {' '.join(args[:2])} did not finish within {timeout:.0f} s"
        ) from None
    except OSError as exc:
        raise EnvironmentProblem(f"cannot run git: {exc.strerror or exc}") from None
    if check and done.returncode != 0:
        raise GitFailed(args, done.returncode, done.stderr.decode("utf-8", "replace"))
    return done


@dataclass(frozen=True)
class GitRepo:
    """A git work tree: its top-level directory and its (possibly shared) git directories.

    In a linked worktree ``git_dir`` is the worktree's private directory and ``common_dir`` the
    main repository's, where objects and branches live.
    """

    root: Path
    git_dir: Path
    common_dir: Path

    def git(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        input: bytes | None = None,
        check: bool = True,
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run git in this work tree (see :func:`run_git`)."""
        return run_git(args, cwd=self.root, env=env, input=input, check=check, timeout=timeout)

    def text(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        """Run git and return its stdout decoded, without the trailing newline."""
        return self.git(*args, env=env).stdout.decode("utf-8", "replace").rstrip("\n")

    def rev_parse(self, rev: str) -> str | None:
        """The object id ``rev`` names, or None when it names nothing."""
        done = self.git("rev-parse", "--verify", "--quiet", "--end-of-options", rev, check=False)
        value = done.stdout.decode("ascii", "replace").strip()
        return value if done.returncode == 0 and value else None

    def head(self) -> str | None:
        """The commit HEAD points at (None on an unborn branch)."""
        return self.rev_parse("HEAD^{commit}")

    def current_branch(self) -> str | None:
        """The branch checked out here, or None with a detached HEAD."""
        done = self.git("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        value = done.stdout.decode("utf-8", "replace").strip()
        return value if done.returncode == 0 and value else None

    def remotes(self) -> list[str]:
        """Names of the configured remotes, sorted."""
        out = self.text("remote")
        return sorted(line for line in out.splitlines() if line.strip())

    def config(self, key: str) -> str | None:
        """A config value, or None when unset."""
        done = self.git("config", "--get", key, check=False)
        value = done.stdout.decode("utf-8", "replace").strip()
        return value if done.returncode == 0 and value else None

    def ref_exists(self, ref: str) -> bool:
        """True when the full ref name ``ref`` exists."""
        return self.git("show-ref", "--verify", "--quiet", ref, check=False).returncode == 0


def open_repo(start: Path | None = None) -> GitRepo:
    """The git work tree enclosing ``start`` (default: the current directory).

    Raises :class:`EnvironmentProblem` when git is missing, ``start`` is outside any
    repository, or the repository is bare.
    """
    where = (start or Path.cwd()).resolve()
    done = run_git(
        ["rev-parse", "--is-bare-repository", "--show-toplevel", "--git-dir", "--git-common-dir"],
        cwd=where,
        check=False,
    )
    if done.returncode != 0:
        message = first_line(done.stderr.decode("utf-8", "replace"))
        if "not a git repository" in message:
            raise EnvironmentProblem(
                f"{where} is not inside a git repository (run `git init` first)"
            )
        raise EnvironmentProblem(f"git cannot use {where}: {message}")
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    if lines and lines[0] == "true":
        raise EnvironmentProblem(f"{where} is a bare git repository; run tb in a checkout")
    if len(lines) < 4:
        raise EnvironmentProblem(f"{where} is not inside a git work tree")
    root = Path(lines[1])
    return GitRepo(
        root=root,
        git_dir=(where / lines[2]).resolve(),
        common_dir=(where / lines[3]).resolve(),
    )
