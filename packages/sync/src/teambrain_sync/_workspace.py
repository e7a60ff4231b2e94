"""Building a proposal commit without touching the user's work tree, index or HEAD.

A workspace is the brain of a base commit materialised in a temporary directory. Proposals edit
files there (so lint and INDEX.md generation see the brain as it would be after the merge), and
the commit is made with plumbing only: a temporary ``GIT_INDEX_FILE`` loaded from the base tree,
``hash-object``, ``update-index``, ``write-tree``, ``commit-tree`` and a create-only
``update-ref``. Nothing is checked out and the user's branch never moves.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from teambrain_schema import BRAIN_DIRNAME, EnvironmentProblem, UserError
from teambrain_schema.atomic import write_bytes_atomic, write_text_atomic
from teambrain_schema.brain import Brain, brain_file_from_text, load_brain
from teambrain_schema.git import unsafe_git_path
from teambrain_schema.local_files import read_file_within
from teambrain_schema.paths import BrainLayout

from ._git import GitFailed, GitRepo, first_line
from ._snapshot import ResolvedCommit, materialise_brain, read_blobs

PROPOSAL_REF_PREFIX = "refs/heads/teambrain/"
# A memory file is at most 256 KB; INDEX.md of a large brain a few MB.
MAX_WORKSPACE_FILE_BYTES = 16 * 1024 * 1024


@dataclass
class BrainWorkspace:
    """An editable copy of the brain at ``base``; :meth:`commit` records the edits on a branch.

    The brain is parsed once (:meth:`load`) and then kept up to date file by file as the
    proposal writes and removes memories: parsing every memory is the expensive part of
    lint and INDEX.md, so a proposal pays for it once.
    """

    repo: GitRepo
    base: ResolvedCommit
    layout: BrainLayout
    changes: dict[str, bool] = field(default_factory=dict)  # relpath: written (True) or removed
    _brain: Brain | None = field(default=None, repr=False)

    def load(self) -> Brain:
        """Every memory and retired file of the workspace, parsed (once)."""
        if self._brain is None:
            self._brain = load_brain(self.layout)
        return self._brain

    def path_of(self, relpath: str) -> Path:
        """The workspace file for a repository-relative path under ``.teambrain/``."""
        parts = PurePosixPath(relpath).parts
        problem = unsafe_git_path(relpath, self.layout.repo_root)  # the check of git's paths
        if problem is not None or parts[0] != BRAIN_DIRNAME:
            raise ValueError(f"not a brain path: {relpath!r} ({problem or 'outside the brain'})")
        return self.layout.repo_root.joinpath(*parts)

    def read(self, relpath: str) -> str | None:
        """The text of ``relpath`` as the workspace has it now (None when absent)."""
        path = self.path_of(relpath)
        try:  # never through a committed link out of the brain, never a device or FIFO
            data = read_file_within(path, self.layout.root, max_bytes=MAX_WORKSPACE_FILE_BYTES)
        except OSError:
            return None
        return data.decode("utf-8")

    def write(self, relpath: str, text: str) -> None:
        """Create or replace ``relpath`` in the proposal."""
        write_text_atomic(self.path_of(relpath), text)
        self.changes[relpath] = True
        self._track(relpath, text)

    def remove(self, relpath: str) -> None:
        """Delete ``relpath`` in the proposal."""
        self.path_of(relpath).unlink(missing_ok=True)
        self.changes[relpath] = False
        self._track(relpath, None)

    def discard(self, relpath: str) -> None:
        """Drop this proposal's change to ``relpath``: the base's version comes back."""
        if relpath not in self.changes:
            return
        del self.changes[relpath]
        [data] = read_blobs(self.repo, [f"{self.base.sha}:{relpath}"])
        path = self.path_of(relpath)
        if data is None:
            path.unlink(missing_ok=True)
        else:
            write_bytes_atomic(path, data)
        self._track(relpath, data.decode("utf-8", "replace") if data is not None else None)

    def _track(self, relpath: str, text: str | None) -> None:
        """Keep the parsed brain in step with a memory or retired file that changed."""
        if self._brain is None:
            return
        files = [f for f in self._brain.files if f.relpath != relpath]
        if text is not None:
            entry = brain_file_from_text(self.layout, relpath, text)
            if entry is not None:
                files.append(entry)
        self._brain = Brain(self.layout, files)

    def commit(self, branch: str, message: str) -> str:
        """Commit the edits on top of the base as new branch ``branch``; returns the commit id.

        The branch must not exist yet (it is created atomically, never overwritten).
        """
        check_branch_name(self.repo, branch)
        ref = f"refs/heads/{branch}"
        if self.repo.ref_exists(ref):
            raise UserError(f"branch {branch} already exists; delete it or review it first")
        with tempfile.TemporaryDirectory(prefix="teambrain-index-") as scratch:
            env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
            try:
                self.repo.git("read-tree", self.base.sha, env=env)
            except GitFailed as exc:
                if "invalid path" not in exc.stderr:
                    raise
                raise EnvironmentProblem(
                    f"{self.base.requested} (commit {self.base.short}) holds a path git refuses "
                    f"to use ({first_line(exc.stderr)}): a crafted commit; nothing was proposed "
                    "— remove it from the default branch first"
                ) from None
            self._stage(env)
            tree = self.repo.text("write-tree", env=env)
            commit = self._commit_tree(tree, message)
        done = self.repo.git(
            "update-ref", "--stdin", "-m", "teambrain: proposal",
            input=f"create {ref} {commit}\n".encode(), check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise UserError(f"branch {branch} could not be created (does it exist already?)")
        return commit

    def _stage(self, env: dict[str, str]) -> None:
        written = sorted(path for path, present in self.changes.items() if present)
        removed = sorted(path for path, present in self.changes.items() if not present)
        lines: list[str] = []
        if written:
            files = "".join(f"{self.path_of(path)}\n" for path in written)
            done = self.repo.git(
                "hash-object", "-w", "--no-filters", "--stdin-paths",
                env=env, input=files.encode("utf-8"),
            )  # fmt: skip
            ids = done.stdout.decode("ascii").split()
            lines.extend(f"100644 {oid}\t{path}" for oid, path in zip(ids, written, strict=True))
        zero = "0" * len(self.base.sha)
        lines.extend(f"0 {zero}\t{path}" for path in removed)
        if lines:
            payload = "".join(line + "\x00" for line in lines).encode("utf-8")
            self.repo.git("update-index", "-z", "--index-info", env=env, input=payload)

    def _commit_tree(self, tree: str, message: str) -> str:
        try:
            done = self.repo.git(
                "commit-tree", tree, "-p", self.base.sha, "-F", "-", input=message.encode("utf-8")
            )
        except GitFailed as exc:
            if "identity" in exc.stderr or "who you are" in exc.stderr:
                raise EnvironmentProblem(
                    "git does not know who you are: set `git config user.name` and "
                    "`git config user.email` (or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL)"
                ) from None
            raise
        return done.stdout.decode("ascii").strip()


def check_branch_name(repo: GitRepo, branch: str) -> None:
    """:class:`UserError` unless ``branch`` is a valid branch name."""
    done = repo.git("check-ref-format", "--branch", branch, check=False)
    if done.returncode != 0 or branch.startswith("-"):
        raise UserError(f"{branch!r} is not a valid branch name")


@contextlib.contextmanager
def open_workspace(repo: GitRepo, base: ResolvedCommit) -> Iterator[BrainWorkspace]:
    """A workspace holding the brain at ``base``; its temporary directory goes when the block
    ends (the commit, once made, lives in the repository)."""
    scratch = Path(tempfile.mkdtemp(prefix="teambrain-proposal-"))
    try:
        layout = materialise_brain(repo, base, scratch / repo.root.name)
        yield BrainWorkspace(repo=repo, base=base, layout=layout)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
