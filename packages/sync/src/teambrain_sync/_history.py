"""A memory's history in git: the commits that added, edited, moved and retired its file, and the
merge (pull request, where the subject names one) that brought each into the branch.

One ``git log --follow --topo-order`` per memory (a retirement is a rename into ``retired/``,
which ``--follow`` crosses; in date order, a commit on the main line dated no later than the
rename on a merged branch is walked before the rename switches the path, and the file's start is
lost — topological order walks the branch first), one ``git rev-list`` per commit for the merge that brought it in. Reads
only git's object store: the work tree, index and HEAD are never touched.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from dataclasses import dataclass
from typing import Literal

from teambrain_schema.git import git_path

from ._git import GitRepo

Change = Literal["added", "edited", "moved", "retired", "restored", "deleted"]
MAX_HISTORY = 200
# "Merge pull request #12 from …" (merge commits), "Title (#12)" (squash merges).
_PR_MERGE = re.compile(r"^Merge pull request #(\d+)\b")
_PR_SQUASH = re.compile(r"\(#(\d+)\)\s*$")
_RETIRED = "/retired/"


@dataclass(frozen=True)
class MergedBy:
    """The merge commit that brought a change into the branch, and its pull request number
    when its subject names one (``Merge pull request #12``, ``… (#12)``)."""

    commit: str
    subject: str
    pull_request: int | None


@dataclass(frozen=True)
class HistoryEntry:
    """One commit that changed a memory file: what it did to the file and who did it."""

    commit: str
    date: dt.datetime  # author date, aware
    author: str
    subject: str
    change: Change
    path: str  # the file's path after the commit (before it, for a deletion)
    old_path: str | None = None  # where a move came from
    pull_request: int | None = None  # named by the commit itself (a squash merge)
    merged_by: MergedBy | None = None

    @property
    def short(self) -> str:
        return self.commit[:12]

    def to_json(self) -> dict[str, object]:
        """Plain data for ``--json`` and the web page."""
        return {
            "commit": self.commit,
            "date": self.date.isoformat(),
            "author": self.author,
            "subject": self.subject,
            "change": self.change,
            "path": self.path,
            "old_path": self.old_path,
            "pull_request": self.pull_request
            or (self.merged_by.pull_request if self.merged_by else None),
            "merged_by": None
            if self.merged_by is None
            else {"commit": self.merged_by.commit, "subject": self.merged_by.subject},
        }


def _pull_request(subject: str) -> int | None:
    found = _PR_MERGE.match(subject) or _PR_SQUASH.search(subject)
    return int(found.group(1)) if found else None


def _change(status: str, path: str, old_path: str | None) -> Change:
    if status.startswith("A"):
        return "added"
    if status.startswith("D"):
        return "deleted"
    if status.startswith(("R", "C")) and old_path is not None:
        if _RETIRED in f"/{path}" and _RETIRED not in f"/{old_path}":
            return "retired"
        if _RETIRED in f"/{old_path}" and _RETIRED not in f"/{path}":
            return "restored"
        return "moved"
    return "edited"


def _merged_by(repo: GitRepo, commit: str, until: str) -> MergedBy | None:
    """The merge on ``until``'s first-parent line that brought ``commit`` in: the oldest one
    descending from it, unless ``commit`` was already in that merge's first parent (then it was
    committed on the line itself, and no merge brought it)."""
    done = repo.git(
        "rev-list", "--first-parent", "--merges", "--ancestry-path", "--reverse",
        "--format=%s", f"{commit}..{until}", "--", check=False,
    )  # fmt: skip
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    if done.returncode != 0 or len(lines) < 2 or not lines[0].startswith("commit "):
        return None
    sha, subject = lines[0].removeprefix("commit ").strip(), lines[1].strip()
    inside = repo.git("merge-base", "--is-ancestor", commit, f"{sha}^1", check=False)
    if inside.returncode == 0:
        return None
    return MergedBy(sha, subject, _pull_request(subject))


def memory_history(
    repo: GitRepo, relpath: str, *, until: str = "HEAD", limit: int = MAX_HISTORY
) -> list[HistoryEntry]:
    """The commits that changed the memory file ``relpath`` (repository-relative, as it is at
    ``until``), newest first, following moves (a retirement included) back to the commit that
    added it; at most ``limit``. Empty when the file was never committed (or ``until`` names
    no commit)."""
    if repo.rev_parse(f"{until}^{{commit}}") is None:
        return []
    # Separators no commit message can hold by chance: subjects and names are anyone's text.
    record_mark, field_mark = f"<{secrets.token_hex(8)}>", f"<{secrets.token_hex(8)}>"
    done = repo.git(
        "log", "--follow", "--topo-order", "-M", "--name-status", "-z", f"--max-count={max(1, limit)}",
        f"--format={record_mark}%H{field_mark}%aI{field_mark}%an{field_mark}%s",
        until, "--", relpath, env={"GIT_LITERAL_PATHSPECS": "1"}, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return []
    entries: list[HistoryEntry] = []
    for record in done.stdout.decode("utf-8", "replace").split(record_mark):
        header, _, rest = record.partition("\x00")
        fields = header.split(field_mark)
        if len(fields) != 4:
            continue
        sha, date, author, subject = fields
        tokens = [t for t in rest.lstrip("\n").split("\x00") if t]
        if not tokens:
            continue
        status = tokens[0]
        old_path, path = (tokens[1], tokens[2]) if len(tokens) >= 3 else (None, tokens[-1])
        if git_path(path) is None:
            continue  # a crafted name ('..', '.git', a control character) is never shown
        if old_path is not None and git_path(old_path) is None:
            old_path = None
        try:
            when = dt.datetime.fromisoformat(date)
        except ValueError:
            continue
        entries.append(
            HistoryEntry(
                commit=sha, date=when, author=author, subject=subject,
                change=_change(status, path, old_path), path=path, old_path=old_path,
                pull_request=_pull_request(subject), merged_by=_merged_by(repo, sha, until),
            )
        )  # fmt: skip
    return entries
