"""The brain view of ``tb ui``: memories by class, tag, scope, priority and status (``tb
list``'s service), search through the retrieval agents use, one memory in full (``tb show``'s
service), and all of it as of a ref or a moment, exactly as ``--ref``/``--at`` serve it."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING

from .._browse import MemoryFilter, MemorySummary

if TYPE_CHECKING:
    from teambrain_retrieval import Hit
    from teambrain_sync import ResolvedCommit

    from .context import Browsed

PAGE_SIZE = 100
MAX_TAGS_SHOWN = 40
SEARCH_K = 20
STATUSES = ("active", "retired", "all")


@dataclass(frozen=True)
class Travel:
    """Where in time a page is: what was asked for, the commit it resolved to, and when."""

    ref: str | None
    at: str | None
    commit: ResolvedCommit

    @property
    def label(self) -> str:
        when = self.commit.committed_at.strftime("%Y-%m-%d %H:%M UTC")
        return f"{self.commit.requested}: commit {self.commit.short} ({when})"


@dataclass(frozen=True)
class Facet:
    """One value a listing can be narrowed to, how many memories it would keep, and whether
    it is chosen now."""

    value: str
    count: int
    chosen: bool


@dataclass(frozen=True)
class SearchHit:
    """A search result as the page shows it: the memory, its rank and score, a snippet of its
    body around the words searched for, and the fenced text the agent is given."""

    rank: int
    id: str
    title: str
    memory_class: str
    priority: str
    tags: list[str]
    path: str
    commit: str | None
    stale: list[str]
    agent_view: str
    why: list[str] = field(default_factory=list)  # why retrieval chose it (query words, …)
    score: float = 0.0
    snippet: list[tuple[str, bool]] = field(default_factory=list)  # (text, matches the query)


@dataclass
class BrainPage:
    """What the brain view shows for one set of filters (or one search)."""

    rows: list[MemorySummary] = field(default_factory=list)
    matching: int = 0
    total: int = 0
    page: int = 1
    pages: int = 1
    facets: dict[str, list[Facet]] = field(default_factory=dict)
    # Tags present but not offered as facets (only the MAX_TAGS_SHOWN most used are): said.
    tags_left_out: int = 0
    query: str = ""
    hits: list[SearchHit] | None = None
    problems: list[str] = field(default_factory=list)


def wanted_from(params: Mapping[str, str]) -> MemoryFilter:
    """The filter a query string asks for (``class``, ``tag``, ``scope``, ``priority``:
    one value each; ``status``: active, retired or all; ``stale=1``)."""

    def one(name: str) -> tuple[str, ...]:
        value = (params.get(name) or "").strip()
        return (value,) if value else ()

    status = params.get("status") or "active"
    return MemoryFilter(
        classes=one("class"), tags=one("tag"), scopes=one("scope"), priorities=one("priority"),
        status=status if status in STATUSES else "active",  # type: ignore[arg-type]
        stale=True if params.get("stale") == "1" else None,
    )  # fmt: skip


_DIMENSIONS: dict[str, Callable[[Sequence[MemorySummary]], Iterable[str]]] = {
    # facet → the values of rows for it, one per row and value (counted at C speed)
    "class": lambda rows: map(attrgetter("memory_class"), rows),
    "priority": lambda rows: map(attrgetter("priority"), rows),
    "scope": lambda rows: map(attrgetter("scope"), rows),
    "tag": lambda rows: chain.from_iterable(map(attrgetter("tags"), rows)),
    "status": lambda rows: map(attrgetter("status"), rows),
}


def _facets(
    rows: Sequence[MemorySummary], wanted: MemoryFilter, kept: Sequence[MemorySummary]
) -> tuple[dict[str, list[Facet]], int]:
    """For each dimension, the values present among the memories every *other* filter keeps;
    and how many tags are present but not offered (only the ``MAX_TAGS_SHOWN`` most used are).

    ``kept`` (the rows the whole filter keeps) serves every dimension no value is chosen in;
    a dimension with a chosen value takes one pass with its own filter left open."""
    replace = dataclasses.replace
    relaxed = {
        "class": replace(wanted, classes=()), "priority": replace(wanted, priorities=()),
        "scope": replace(wanted, scopes=()), "tag": replace(wanted, tags=()),
        "status": replace(wanted, status="all"),
    }  # fmt: skip
    counts: dict[str, Counter[str]] = {}
    for name, values in _DIMENSIONS.items():
        loose = relaxed[name]
        among = kept if loose == wanted else [row for row in rows if loose.matches(row)]
        counts[name] = Counter(values(among))
    chosen = {
        "class": wanted.classes, "priority": wanted.priorities, "scope": wanted.scopes,
        "tag": wanted.tags,
    }  # fmt: skip
    facets: dict[str, list[Facet]] = {}
    for name, picked in chosen.items():
        ordered = sorted(counts[name].items(), key=lambda item: (-item[1], item[0]))
        limit = MAX_TAGS_SHOWN if name == "tag" else len(ordered)
        shown = dict(ordered[:limit])
        shown.update({v: counts[name][v] for v in picked if v not in shown})
        facets[name] = [Facet(value, count, value in picked) for value, count in shown.items()]
    status = counts["status"]
    facets["status"] = [
        Facet("active", status["active"], wanted.status == "active"),
        Facet("retired", status["retired"], wanted.status == "retired"),
        Facet("all", status["active"] + status["retired"], wanted.status == "all"),
    ]
    return facets, max(0, len(counts["tag"]) - len(facets["tag"]))


def marked(row: MemorySummary, stale: Mapping[str, tuple[str, ...]]) -> MemorySummary:
    """``row`` with the stale reasons found for it (a live memory's only)."""
    found = stale.get(row.id)
    return dataclasses.replace(row, stale=found) if found and row.status == "active" else row


def browse(browsed: Browsed, wanted: MemoryFilter, page: int) -> BrainPage:
    """One page of the memories ``wanted`` keeps, with the facets to narrow it further; the
    rows shown carry their stale reasons (every row does when the stale filter is on)."""
    rows = browsed.listing.memories
    if wanted.stale is not None:
        browsed.check_all()
        rows = [marked(row, browsed.stale) for row in rows]
    kept = [row for row in rows if wanted.matches(row)]
    pages = max(1, -(-len(kept) // PAGE_SIZE))
    page = min(max(page, 1), pages)
    shown = kept[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    browsed.check({row.id for row in shown})
    facets, tags_left_out = _facets(rows, wanted, kept)
    return BrainPage(
        rows=[marked(row, browsed.stale) for row in shown],
        matching=len(kept),
        total=browsed.listing.total,
        page=page,
        pages=pages,
        facets=facets,
        tags_left_out=tags_left_out,
        problems=[f"{p.relpath}: {p.message}" for p in browsed.listing.problems],
    )


def search_hits(hits: Sequence[Hit], query: str = "") -> list[SearchHit]:
    """Retrieval's ranked hits as the page shows them, each with its fused score, a snippet
    of its body around ``query``'s words and the agent's fenced view."""
    found = []
    for rank, hit in enumerate(hits, start=1):
        result = hit.to_result()
        front = hit.memory.front
        found.append(
            SearchHit(
                rank=rank, id=front.id, title=front.title, memory_class=front.class_,
                priority=front.priority, tags=list(front.tags), path=hit.provenance.path,
                commit=hit.provenance.commit, stale=list(hit.stale), agent_view=result.body,
                why=list(hit.why),
                score=hit.score, snippet=snippet(hit.memory.body, query),
            )
        )  # fmt: skip
    return found


SNIPPET_CHARS = 240
_WORD = re.compile(r"\w{3,}")


def _stem(word: str) -> str:
    """A prefix that still matches the word's other forms (payments → paymen, tested → test)."""
    word = word.casefold()
    return word[: max(4, len(word) - 2)] if len(word) > 5 else word


def snippet(body: str, query: str, width: int = SNIPPET_CHARS) -> list[tuple[str, bool]]:
    """About ``width`` characters of ``body`` (whitespace folded), starting a little before the
    first word of ``query`` it holds, as (text, is a match) pieces: the page marks the
    matches and escapes every piece like any other text."""
    text = " ".join(body.replace("`", "").replace("**", "").split())  # Markdown's marks: noise here
    stems = sorted({_stem(w) for w in _WORD.findall(query)}, key=len, reverse=True)
    pattern = (
        re.compile(r"\b(?:" + "|".join(map(re.escape, stems)) + r")\w*", re.IGNORECASE)
        if stems
        else None
    )
    start = 0
    first = pattern.search(text) if pattern else None
    if first is not None and first.start() > width // 3:
        start = text.rfind(" ", 0, first.start() - width // 4) + 1
    end = len(text) if len(text) - start <= width else text.rfind(" ", start, start + width)
    if end <= start:
        end = min(len(text), start + width)
    piece = text[start:end]
    pieces: list[tuple[str, bool]] = [("…", False)] if start > 0 else []
    at = 0
    for match in pattern.finditer(piece) if pattern else ():
        if match.start() > at:
            pieces.append((piece[at : match.start()], False))
        pieces.append((match.group(), True))
        at = match.end()
    if at < len(piece):
        pieces.append((piece[at:], False))
    if end < len(text):
        pieces.append(("…", False))
    return pieces
