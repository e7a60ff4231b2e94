"""Running git for sync: a :class:`GitRepo` (a work tree and its git directories) over schema's
one git runner (:func:`teambrain_kit.git.run_git`: argument lists, a scrubbed environment,
timeouts that kill git's helpers too). See that module for what is scrubbed and why.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from teambrain_kit.git import GitFailed, first_line, run_git
from teambrain_schema import EnvironmentProblem

DEFAULT_TIMEOUT_S: Final = 60.0
__all__ = ["DEFAULT_TIMEOUT_S", "GitFailed", "GitRepo", "first_line", "open_repo"]


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
