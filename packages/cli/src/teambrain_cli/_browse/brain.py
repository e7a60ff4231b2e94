"""The brain as people browse it: every memory with its class, tags, scope, status, supersedes
chain and staleness (:func:`list_memories`), and one memory in full with its provenance and its
history in git (:func:`show_memory`), now or as of a ref or a moment (:func:`open_view`)."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from teambrain_schema import MEMORY_CLASSES, UserError
from teambrain_schema.paths import BrainLayout

from .._console.context import require_brain
from .._console.ids import resolve_id

if TYPE_CHECKING:
    from teambrain_retrieval import Catalog
    from teambrain_schema.brain import Brain, FileProblem
    from teambrain_schema.citation_checker import CitationChecker
    from teambrain_schema.frontmatter import MemoryDocument
    from teambrain_sync import GitRepo, HistoryEntry

    from .graph import NodeLink

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
    body: str = field(default="", repr=False, compare=False)  # for --search; not in to_json

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
    search: str = ""  # every word of it in the id, title, tags or body (see search_matches)

    def matches(self, memory: MemorySummary) -> bool:
        """True when ``memory`` passes every condition."""
        if self.search.strip() and not search_matches(self.search, memory):
            return False
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


_SEARCH_WORD = re.compile(r"\w+")


def search_matches(search: str, memory: MemorySummary) -> bool:
    """Whether every word of ``search`` is a word of ``memory``'s id, title, tags or body (any
    case; a word of four letters or more also as the start of one: ``check`` finds
    ``checkout``, but ``3`` is not found in ``01KB…V3C8``)."""
    words = {
        w.casefold()
        for text in (memory.id, memory.title, *memory.tags, memory.body)
        for w in _SEARCH_WORD.findall(text)
    }
    for wanted in (w.casefold() for w in _SEARCH_WORD.findall(search)):
        if wanted in words:
            continue
        if len(wanted) < 4 or not any(word.startswith(wanted) for word in words):
            return False
    return True


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
    if not retired:  # nothing to explain: INDEX.md is not even read
        return {}
    from teambrain_schema.brain import read_text_safely
    from teambrain_schema.index_md import parse_retirement_reasons

    layout = view.layout
    try:
        text = read_text_safely(layout.index_md, layout.repo_root, max_bytes=4 * 1024 * 1024)
        found = parse_retirement_reasons(text)
    except Exception:  # no INDEX.md, or one we will not read: reasons are a nicety here
        found = {}
    missing = retired - set(found)
    if missing:
        from teambrain_sync import open_repo, retirement_reasons

        with contextlib.suppress(Exception):  # no git, no history: no reason to show
            found.update(retirement_reasons(open_repo(view.repo_root), missing))
    return found


def _finished(view: BrainView, rows: list[MemorySummary]) -> list[MemorySummary]:
    """``rows`` with who supersedes each and why each retired one was retired, in ``tb list``'s
    order: active first, by class, then title."""
    superseders: dict[str, list[str]] = {}
    for row in rows:
        if row.status == "active":
            for old in row.supersedes:
                superseders.setdefault(old, []).append(row.id)
    reasons = _retirement_reasons(view, {row.id for row in rows if row.status == "retired"})
    done = []
    for row in rows:
        by = tuple(sorted(superseders.get(row.id, ())))
        reason = reasons.get(row.id) if row.status == "retired" else None
        done.append(
            dataclasses.replace(row, superseded_by=by, retired_reason=reason)
            if by or reason
            else row
        )
    done.sort(key=lambda r: (r.status != "active", _CLASS_ORDER.get(r.memory_class, 9),
                             r.title.casefold(), r.id))  # fmt: skip
    return done


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
    rows = []
    for brain_file in brain.files:
        if not brain_file.is_usable or brain_file.document is None:
            continue
        front = brain_file.document.front
        retired = brain_file.location == "retired" or front.status == "retired"
        rows.append(
            MemorySummary(
                id=front.id, title=front.title, memory_class=front.class_, scope=front.scope,
                status="retired" if retired else "active", priority=front.priority,
                tags=tuple(front.tags), created=front.created, path=brain_file.relpath,
                supersedes=tuple(front.supersedes),
                stale=() if retired else stale.get(front.id, ()),
                expires_on=front.expires_on(), body=brain_file.document.body,
            )
        )  # fmt: skip
    return _finished(view, rows)


def list_indexed(
    view: BrainView, catalog: Catalog, stale: Mapping[str, tuple[str, ...]] | None = None
) -> BrainListing:
    """:func:`list_memories`'s rows for every memory of ``view``, from the search index's
    ``catalog`` of it (``teambrain_retrieval.brain_catalog``) instead of reading every file:
    a large brain lists in a fraction of the time. Retired memories, whose text the index does
    not keep, are read from their files. ``stale`` gives the reasons of the memories checked
    (the caller decides which: :func:`stale_reasons`); the others show none."""
    from teambrain_schema.brain import FileProblem, brain_file_from_text, read_text_safely
    from teambrain_schema.frontmatter import MAX_MEMORY_FILE_BYTES

    problems = []
    for line in catalog.problems:
        relpath, _, message = line.partition(": ")
        problems.append(FileProblem(relpath, 1, "read", message))
    rows = []
    for entry in catalog.entries:
        title, tags, created = entry.title, entry.tags, entry.created
        memory_class, ttl_days = entry.memory_class, entry.ttl_days
        if entry.retired:  # a tombstone in the index: its file says what it was
            try:
                root = view.layout.repo_root  # a past brain: its own copy, not today's file
                text = read_text_safely(root / entry.path, root, max_bytes=MAX_MEMORY_FILE_BYTES)
                found = brain_file_from_text(view.layout, entry.path, text)
            except Exception:
                found = None
            if found is not None and found.document is not None:
                front = found.document.front
                title, tags, created = front.title, tuple(front.tags), front.created
                memory_class, ttl_days = front.class_, front.ttl_days
        created = created or dt.date(1970, 1, 1)
        rows.append(
            MemorySummary(
                id=entry.id, title=title or entry.id, memory_class=memory_class or "learning",
                scope=entry.scope, status="retired" if entry.retired else "active",
                priority=entry.priority, tags=tuple(tags), created=created, path=entry.path,
                supersedes=entry.supersedes, body=entry.body,
                stale=() if entry.retired or stale is None else stale.get(entry.id, ()),
                expires_on=created + dt.timedelta(days=ttl_days) if ttl_days is not None else None,
            )
        )  # fmt: skip
    rows = _finished(view, rows)
    return BrainListing(view=view, memories=rows, total=len(rows), problems=problems)


def stale_reasons(
    view: BrainView, catalog: Catalog, ids: Collection[str], *,
    checker: CitationChecker | None = None, today: dt.date | None = None,
) -> dict[str, tuple[str, ...]]:  # fmt: skip
    """Why each live memory of ``ids`` may be stale — its citations the repository (at the
    view's commit) no longer bears out, its TTL run out — as :func:`list_memories` says it."""
    from teambrain_schema.citation_checker import CitationChecker
    from teambrain_schema.staleness import StaleMemory

    checker = checker or CitationChecker(view.repo_root, commit=view.commit)
    today = today or dt.datetime.now(dt.UTC).date()
    wanted = [e for e in catalog.entries if e.id in ids and not e.retired and e.status == "active"]
    found = checker.stale_reasons([(e.body, e.evidence_commits) for e in wanted])
    reasons = {}
    for entry, cited in zip(wanted, found, strict=True):
        expires = (
            entry.created + dt.timedelta(days=entry.ttl_days)
            if entry.created and entry.ttl_days is not None else None
        )  # fmt: skip
        expired = expires if expires is not None and today >= expires else None
        lines = (
            *cited,
            *StaleMemory(entry.id, entry.title, entry.path, expired_on=expired).reasons,
        )
        if lines:
            reasons[entry.id] = lines
    return reasons


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
    nodes: tuple[NodeLink, ...] = ()  # the graph's nodes it is linked to (docs/graph.md)
    history_more: bool = False  # older commits than ``history`` holds were left out

    @property
    def history_note(self) -> str | None:
        """What the history left out and how to see it, when it did."""
        if not self.history_more:
            return None
        return (
            f"older commits not shown (the newest {len(self.history)}): "
            f"git log --follow -- {self.summary.path}"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "brain": self.view.to_json(),
            **self.summary.to_json(),
            "ttl_days": self.ttl_days,
            "body": self.body,
            "agent_view": self.agent_view,
            "provenance": self.provenance.to_json(),
            "history": [entry.to_json() for entry in self.history],
            "history_more": self.history_more,
            "supersedes": [ref.to_json() for ref in self.supersedes],
            "superseded_by": [ref.to_json() for ref in self.superseded_by],
            "nodes": [node.to_json() for node in self.nodes],
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
    brain has no such memory.

    Only the files it needs are read: ids are in file names (``<ULID>-<slug>.md``), so the id
    is resolved from the names, the memory's file parsed, and the few files that mention its id
    (those superseding it: one ``git grep``) and those it supersedes. A brain whose file names
    do not all carry distinct ids, or a file that does not hold the id its name says, is read
    whole, as before."""
    brain = _brain_for(view.layout, given)
    files = {f.document.front.id: f for f in brain.files if f.is_usable and f.document is not None}
    memory_id = find_memory_id(list(files), given)
    rows = {r.id: r for r in _summaries(view, brain, check_citations=True, today=today)}
    document = files[memory_id].document
    assert document is not None
    return _detail(view, rows[memory_id], document, rows, history_limit)


def _brain_for(layout: BrainLayout, given: str) -> Brain:
    """The files of ``layout``'s brain :func:`show_memory` needs for the memory ``given`` names:
    that memory's, those that mention its id, those it supersedes; every file when the names
    cannot be trusted to say which (see :func:`show_memory`)."""
    from teambrain_schema.brain import brain_file_paths, load_brain, load_brain_files
    from teambrain_schema.ids import is_ulid

    paths = brain_file_paths(layout)
    by_id: dict[str, Path] = {}
    for path in paths:
        name = path.name
        named = name[:26].upper()
        if not (is_ulid(named) and name[26:27] in ("-", ".")) or named in by_id:
            return load_brain(layout)  # a name that says no id, or says one twice
        by_id[named] = path
    try:
        memory_id = find_memory_id(list(by_id), given)
    except UserError:
        return load_brain(layout)  # whole, for the message a full read gives
    own = load_brain_files(layout, [by_id[memory_id]])
    document = own.files[0].document
    if document is None or document.front.id != memory_id:
        return load_brain(layout)
    wanted = {by_id[memory_id]}
    mentioning = _files_mentioning(layout, memory_id)
    if mentioning is None:
        return load_brain(layout)
    wanted.update(mentioning)
    wanted.update(by_id[old] for old in document.front.supersedes if old in by_id)
    return load_brain_files(layout, [path for path in paths if path in wanted])


def _files_mentioning(layout: BrainLayout, memory_id: str) -> set[Path] | None:
    """The brain files whose text holds ``memory_id`` (any case), found by ``git grep`` over
    the folders as they are on disk (tracked or not); None when git cannot say."""
    from teambrain_schema import EnvironmentProblem
    from teambrain_schema.git import run_git

    folders = [layout.relative(f) for f in (layout.memories, layout.retired) if f.is_dir()]
    if not folders:
        return set()
    try:
        done = run_git(
            ["grep", "--no-index", "-l", "-z", "-i", "-F", "-e", memory_id, "--", *folders],
            cwd=layout.repo_root, check=False,
        )  # fmt: skip
    except EnvironmentProblem:  # no git here
        return None
    if done.returncode not in (0, 1):  # 1: no file matched
        return None
    from teambrain_schema.git import git_path

    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    root = layout.repo_root
    return {root / name for name in names if name and git_path(name, root) is not None}


def show_listed(
    view: BrainView, listing: BrainListing, given: str, *, history_limit: int = 50
) -> MemoryDetail:
    """:func:`show_memory` for a brain already listed (:func:`list_indexed`, its stale reasons
    worked out for this memory): only this memory's file is read."""
    from teambrain_schema.brain import brain_file_from_text, read_text_safely
    from teambrain_schema.frontmatter import MAX_MEMORY_FILE_BYTES

    rows = {row.id: row for row in listing.memories}
    row = rows[find_memory_id(list(rows), given)]
    root = view.layout.repo_root
    text = read_text_safely(root / row.path, root, max_bytes=MAX_MEMORY_FILE_BYTES)
    found = brain_file_from_text(view.layout, row.path, text)
    if found is None or found.document is None:
        raise UserError(f"{row.path}: not a readable memory file any more")
    return _detail(view, row, found.document, rows, history_limit)


def _detail(
    view: BrainView, row: MemorySummary, document: MemoryDocument,
    rows: Mapping[str, MemorySummary], history_limit: int,
) -> MemoryDetail:  # fmt: skip
    from teambrain_schema import EnvironmentProblem
    from teambrain_schema.render import render_memory
    from teambrain_sync import memory_history, open_repo

    from .graph import memory_nodes

    front = document.front
    history: list[HistoryEntry] = []
    uncommitted = False
    with contextlib.suppress(EnvironmentProblem):  # no git: no history to show
        repo = open_repo(view.repo_root)
        # One more than shown: whether older commits were left out is said, never silent.
        history = memory_history(repo, row.path, until=view.until, limit=history_limit + 1)
        uncommitted = view.commit is None and _uncommitted(repo, row.path)
    older = len(history) > history_limit
    history = history[:history_limit]

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
        history_more=older,
        supersedes=tuple(ref(old) for old in front.supersedes),
        superseded_by=tuple(ref(new) for new in row.superseded_by),
        ttl_days=front.ttl_days,
        nodes=memory_nodes(view.layout, front.id, list(front.tags)),
    )
