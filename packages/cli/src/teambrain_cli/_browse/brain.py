"""The brain as people browse it: every memory with its class, tags, scope, status, supersedes
chain and staleness (:func:`list_memories`), and one memory in full with its provenance and its
history in git (:func:`show_memory`), now or as of a ref or a moment (:func:`open_view`)."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from teambrain_schema import MEMORY_CLASSES, UserError
from teambrain_schema.paths import BrainLayout

from .._console.context import require_brain
from .._console.ids import resolve_id

if TYPE_CHECKING:
    from teambrain_schema.brain import Brain, FileProblem
    from teambrain_sync import GitRepo, HistoryEntry

StatusFilter = Literal["active", "retired", "all"]
_CLASS_ORDER = {name: position for position, name in enumerate(MEMORY_CLASSES)}


@dataclass(frozen=True)
class BrainView:
    """Which brain is browsed: the working tree's (``commit`` None), or a past one materialised
    from git (``layout`` then points into a temporary copy; ``repo_root`` stays the repository,
    for its history and its files)."""

    layout: BrainLayout
    repo_root: Path
    commit: str | None = None
    requested: str | None = None  # the ref or moment asked for
    committed_at: dt.datetime | None = None

    @property
    def until(self) -> str:
        """The revision history is read up to."""
        return self.commit or "HEAD"

    def to_json(self) -> dict[str, object]:
        return {
            "repository": str(self.repo_root),
            "commit": self.commit,
            "requested": self.requested,
            "committed_at": self.committed_at.isoformat() if self.committed_at else None,
        }


@contextlib.contextmanager
def open_view(
    start: Path | None = None, *, ref: str | None = None, at: str | None = None
) -> Iterator[BrainView]:
    """The brain of the repository enclosing ``start``: the working tree's, or with ``ref``
    (a commit, tag or branch) and/or ``at`` (a moment: the latest commit at or before it on
    ``ref``, default HEAD) the brain as it was then, exactly as ``tb relevant --ref/--at`` reads
    it. A past brain lives in a temporary directory removed when the block ends."""
    if ref is None and at is None:
        layout = require_brain(start)
        yield BrainView(layout, layout.repo_root)
        return
    from teambrain_sync import brain_at, commit_at, open_repo, parse_timestamp, resolve_commit

    repo = open_repo(start or Path.cwd())
    if repo.head() is None:
        raise UserError(
            f"{repo.root} has no commits yet: --ref and --at read the brain as committed "
            "(commit it first)"
        )
    moment = parse_timestamp(at) if at is not None else None
    commit = commit_at(repo, moment, ref or "HEAD") if moment else resolve_commit(repo, ref or "")
    with brain_at(repo, commit) as snapshot:
        yield BrainView(
            snapshot.layout, repo.root, commit.sha, commit.requested, commit.committed_at
        )


@dataclass(frozen=True)
class MemorySummary:
    """One memory of the brain as a row: what it is, where it is, and why it may be stale."""

    id: str
    title: str
    memory_class: str
    scope: str
    status: str  # active | retired (a file under retired/ is retired whatever it says)
    priority: str
    tags: tuple[str, ...]
    created: dt.date
    path: str  # repository-relative
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()  # live memories that name this one in `supersedes`
    stale: tuple[str, ...] = ()  # one reason per citation that no longer holds, or a TTL run out
    expires_on: dt.date | None = None
    retired_reason: str | None = None

    @property
    def is_stale(self) -> bool:
        return bool(self.stale)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "class": self.memory_class,
            "scope": self.scope,
            "status": self.status,
            "priority": self.priority,
            "tags": list(self.tags),
            "created": self.created.isoformat(),
            "path": self.path,
            "supersedes": list(self.supersedes),
            "superseded_by": list(self.superseded_by),
            "stale": list(self.stale),
            "expires_on": self.expires_on.isoformat() if self.expires_on else None,
            "retired_reason": self.retired_reason,
        }


@dataclass(frozen=True)
class MemoryFilter:
    """Which memories a listing keeps. Empty tuples keep everything; every tag given must be
    carried; ``stale`` True keeps only memories that may be stale, False only the others."""

    classes: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()
    priorities: tuple[str, ...] = ()
    status: StatusFilter = "active"
    stale: bool | None = None

    def matches(self, memory: MemorySummary) -> bool:
        """True when ``memory`` passes every condition."""
        if self.status not in ("all", memory.status):
            return False
        if self.classes and memory.memory_class not in self.classes:
            return False
        if self.scopes and memory.scope not in self.scopes:
            return False
        if self.priorities and memory.priority not in self.priorities:
            return False
        wanted = {tag.casefold() for tag in self.tags}
        if wanted and not wanted <= {tag.casefold() for tag in memory.tags}:
            return False
        return self.stale is None or memory.is_stale == self.stale


@dataclass
class BrainListing:
    """The memories a filter kept, in class then title order; how many the brain holds in all;
    the files that could not be read (each with its one-line reason)."""

    view: BrainView
    memories: list[MemorySummary] = field(default_factory=list)
    total: int = 0
    problems: list[FileProblem] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "brain": self.view.to_json(),
            "total": self.total,
            "memories": [memory.to_json() for memory in self.memories],
            "unreadable": [
                {"path": p.relpath, "line": p.line, "rule": p.rule, "message": p.message}
                for p in self.problems
            ],
        }


def _retirement_reasons(view: BrainView, retired: set[str]) -> dict[str, str]:
    """Why each retired memory was retired: INDEX.md as generated, else the retirement's
    commit message (proposals no longer touch INDEX.md; the default branch regenerates it)."""
    from teambrain_schema.brain import read_text_safely
    from teambrain_schema.index_md import parse_retirement_reasons
    from teambrain_sync import open_repo, retirement_reasons

    layout = view.layout
    try:
        text = read_text_safely(layout.index_md, layout.repo_root, max_bytes=4 * 1024 * 1024)
        found = parse_retirement_reasons(text)
    except Exception:  # no INDEX.md, or one we will not read: reasons are a nicety here
        found = {}
    missing = retired - set(found)
    if missing:
        with contextlib.suppress(Exception):  # no git, no history: no reason to show
            found.update(retirement_reasons(open_repo(view.repo_root), missing))
    return found


def _summaries(
    view: BrainView, brain: Brain, *, check_citations: bool, today: dt.date | None
) -> list[MemorySummary]:
    from teambrain_schema.citation_checker import CitationChecker
    from teambrain_schema.staleness import stale_memories

    stale: dict[str, tuple[str, ...]] = {}
    if check_citations:
        checker = CitationChecker(view.repo_root, commit=view.commit)
        found = stale_memories(view.layout, brain=brain, checker=checker, today=today)
        stale = {memory.id: tuple(memory.reasons) for memory in found}
    usable = [f for f in brain.files if f.is_usable and f.document is not None]
    reasons = _retirement_reasons(
        view, {f.document.front.id for f in usable if f.document and f.location == "retired"}
    )
    superseders: dict[str, list[str]] = {}
    for brain_file in usable:
        assert brain_file.document is not None
        front = brain_file.document.front
        if brain_file.location == "memories" and front.status == "active":
            for old in front.supersedes:
                superseders.setdefault(old, []).append(front.id)
    rows = []
    for brain_file in usable:
        assert brain_file.document is not None
        front = brain_file.document.front
        retired = brain_file.location == "retired" or front.status == "retired"
        rows.append(
            MemorySummary(
                id=front.id, title=front.title, memory_class=front.class_, scope=front.scope,
                status="retired" if retired else "active", priority=front.priority,
                tags=tuple(front.tags), created=front.created, path=brain_file.relpath,
                supersedes=tuple(front.supersedes),
                superseded_by=tuple(sorted(superseders.get(front.id, ()))),
                stale=() if retired else stale.get(front.id, ()),
                expires_on=front.expires_on(),
                retired_reason=reasons.get(front.id) if retired else None,
            )
        )  # fmt: skip
    rows.sort(key=lambda r: (r.status != "active", _CLASS_ORDER.get(r.memory_class, 9),
                             r.title.casefold(), r.id))  # fmt: skip
    return rows


def list_memories(
    view: BrainView,
    wanted: MemoryFilter | None = None,
    *,
    check_citations: bool = True,
    today: dt.date | None = None,
) -> BrainListing:
    """The memories of ``view`` that ``wanted`` keeps (default: every active one). With
    ``check_citations`` each live memory's citations are checked against the repository (at
    the view's commit) and its TTL against ``today``, which a ``stale`` filter needs."""
    from teambrain_schema.brain import load_brain

    wanted = wanted or MemoryFilter()
    if wanted.stale is not None:
        check_citations = True
    brain = load_brain(view.layout)
    rows = _summaries(view, brain, check_citations=check_citations, today=today)
    return BrainListing(
        view=view,
        memories=[row for row in rows if wanted.matches(row)],
        total=len(rows),
        problems=brain.problems,
    )


def find_memory_id(ids: Sequence[str], given: str) -> str:
    """The one id of ``ids`` that ``given`` names: the whole id (any case), or a prefix or
    suffix of at least four characters no other id has. A user error otherwise."""
    return resolve_id(ids, given, what="memory", listing="tb list --status all")


@dataclass(frozen=True)
class MemoryRef:
    """Another memory a memory points at (or is pointed at by): its title and status when the
    brain holds it, None when it does not."""

    id: str
    title: str | None = None
    status: str | None = None
    path: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "title": self.title, "status": self.status, "path": self.path}


@dataclass(frozen=True)
class Provenance:
    """Where a memory comes from: its file, the commit that last changed it, when it was
    created, its evidence (agent sessions, commits), and whether the file holds changes no
    commit has yet."""

    path: str
    created: dt.date
    last_commit: str | None = None
    uncommitted: bool = False
    evidence_sessions: tuple[str, ...] = ()
    evidence_commits: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "created": self.created.isoformat(),
            "last_commit": self.last_commit,
            "uncommitted": self.uncommitted,
            "evidence": {
                "sessions": list(self.evidence_sessions),
                "commits": list(self.evidence_commits),
            },
        }


@dataclass(frozen=True)
class MemoryDetail:
    """One memory in full: the row, its body as written, the fenced view an agent is given,
    its provenance and history, its supersedes chain both ways."""

    view: BrainView
    summary: MemorySummary
    body: str
    agent_view: str
    provenance: Provenance
    history: tuple[HistoryEntry, ...] = ()
    supersedes: tuple[MemoryRef, ...] = ()
    superseded_by: tuple[MemoryRef, ...] = ()
    ttl_days: int | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "brain": self.view.to_json(),
            **self.summary.to_json(),
            "ttl_days": self.ttl_days,
            "body": self.body,
            "agent_view": self.agent_view,
            "provenance": self.provenance.to_json(),
            "history": [entry.to_json() for entry in self.history],
            "supersedes": [ref.to_json() for ref in self.supersedes],
            "superseded_by": [ref.to_json() for ref in self.superseded_by],
        }


def _uncommitted(repo: GitRepo, relpath: str) -> bool:
    """True when the work tree's file differs from HEAD's, or git does not track it yet."""
    done = repo.git(
        "status", "--porcelain", "--untracked-files=all", "--", relpath, check=False,
        env={"GIT_OPTIONAL_LOCKS": "0", "GIT_LITERAL_PATHSPECS": "1"},
    )  # fmt: skip
    return done.returncode == 0 and bool(done.stdout.strip())


def show_memory(
    view: BrainView, given: str, *, today: dt.date | None = None, history_limit: int = 50
) -> MemoryDetail:
    """The memory ``given`` names (see :func:`find_memory_id`) in full. A user error when the
    brain has no such memory."""
    from teambrain_schema import EnvironmentProblem
    from teambrain_schema.brain import load_brain
    from teambrain_schema.render import render_memory
    from teambrain_sync import memory_history, open_repo

    brain = load_brain(view.layout)
    files = {f.document.front.id: f for f in brain.files if f.is_usable and f.document is not None}
    memory_id = find_memory_id(list(files), given)
    rows = {r.id: r for r in _summaries(view, brain, check_citations=True, today=today)}
    row = rows[memory_id]
    document = files[memory_id].document
    assert document is not None
    front = document.front
    history: list[HistoryEntry] = []
    uncommitted = False
    with contextlib.suppress(EnvironmentProblem):  # no git: no history to show
        repo = open_repo(view.repo_root)
        history = memory_history(repo, row.path, until=view.until, limit=history_limit)
        uncommitted = view.commit is None and _uncommitted(repo, row.path)

    def ref(other: str) -> MemoryRef:
        found = rows.get(other)
        if found is None:
            return MemoryRef(other)
        return MemoryRef(other, found.title, found.status, found.path)

    evidence = front.evidence
    return MemoryDetail(
        view=view,
        summary=row,
        body=document.body,
        agent_view=render_memory(front.id, document.body),
        provenance=Provenance(
            path=row.path,
            created=front.created,
            last_commit=history[0].commit if history else None,
            uncommitted=uncommitted,
            evidence_sessions=tuple(evidence.sessions) if evidence else (),
            evidence_commits=tuple(evidence.commits) if evidence else (),
        ),
        history=tuple(history),
        supersedes=tuple(ref(old) for old in front.supersedes),
        superseded_by=tuple(ref(new) for new in row.superseded_by),
        ttl_days=front.ttl_days,
    )
