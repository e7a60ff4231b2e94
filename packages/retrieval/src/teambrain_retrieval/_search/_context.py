"""Ranking the brain for a session's situation: what ``memory_context()`` tells an agent first.

A memory's score adds up its evidence (docs/retrieval.md, "Context for a session"):

- **paths this session changed** (:data:`Situation.changed_paths`): each changed path and each
  of the memory's mentions pair up once, strongest first, and the pairs' scores add up — a
  memory naming two of my three files beats one naming one; a folder holding all three counts
  once. A path pair scores 0.245–1.0 (see :mod:`._pathmatch`).
- **words**: the branch name's (its last segment in full, a namespace or a ticket id a little),
  the branch's own commit subjects' and the changed paths' own words, each weighted by how rare
  it is in the brain (a word every memory has adds nothing), more in a title or tag than in a
  body. A word that is also a folder or file name of a changed path counts as a path word.
  The commits' and paths' words count a third for a memory about other code.
- **meaning**: when the embedding model is loaded, the branch name and commit subjects against
  each memory's embedding (a floor keeps unrelated memories out).
- **recent history of the default branch** (other people's work): paths of its last commits,
  the newest weighing :data:`RECENT_WEIGHT` and each older one less, so it orders memories when
  nothing else does and never outranks a memory about a path this session changed.

Each memory keeps *why*: the changed path and the mention it matched, the words, the meaning,
the recent commit. Nothing is read from git here; the situation is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._pathmatch import pair_paths
from .._query import STOPWORDS, query_terms
from ._situation import NOISE_WORDS, Situation

if TYPE_CHECKING:
    from ._backend import SqliteBackend

# Words: the branch name's last segment, a namespace (``tom/``, ``feature/``) gives 0.3 of it
# (Situation.branch_words), the branch's commit subjects, the changed paths' own words.
# A branch word that is also a folder or file name of a changed path says what the path
# already says: it counts as a word of the changed paths.
BRANCH_WEIGHT = 0.8
SUBJECT_WEIGHT = 0.35
PATH_WORD_WEIGHT = 0.2
BODY_ONLY = 0.7  # a word in the body alone, against one in the title or tags
# The changed paths' and commits' words, and meaning, count a third for a memory that cites
# code, none of it what this session changed: it is about something else that shares a word.
ELSEWHERE = 0.35
# Meaning: cosine mapped from [floor, floor + span] onto [0, weight].
VECTOR_WEIGHT = 0.3
VECTOR_FLOOR = 0.3
VECTOR_SPAN = 0.35
# Other people's recent work: the newest commit of the default branch, then each older one
# times the decay. Below the weakest match of a changed path (a far package, 0.245).
RECENT_WEIGHT = 0.24
RECENT_DECAY = 0.8
RECENT_MAX_PATHS = 50  # a commit touching more (a merge, a reformat) says little about anything
# Evidence below this is not worth an agent's tokens; a word worth less than MIN_WORD is not
# looked for (nor named in why).
MIN_SCORE = 0.1
MIN_WORD = 0.02
MAX_TERMS = 40
BRANCH = "branch name"
COMMITS = "this branch's commits"
MAX_WHY = 4


@dataclass(frozen=True)
class Ranked:
    """A memory (its index row) ranked for a situation: score and why."""

    rowid: int
    score: float
    why: tuple[str, ...]


@dataclass
class _Evidence:
    score: float = 0.0
    paths: tuple[tuple[str, str, float], ...] = ()
    words: dict[str, tuple[list[str], float]] | None = None  # by source: the words, the score
    meaning: float = 0.0
    recent: tuple[float, str] | None = None


def _idf_weight(df: int, total: int) -> float:
    """How rare a word is, from 0 (in every memory) to 1 (in one), BM25's idf normalised."""
    if df <= 0 or total <= 0:
        return 0.0
    idf = math.log(1.0 + (total - df + 0.5) / (df + 0.5))
    top = math.log(1.0 + (total - 0.5) / 1.5)
    return max(0.0, min(1.0, idf / top)) if top > 0 else 0.0


def situation_terms(situation: Situation) -> dict[str, tuple[float, str]]:
    """The words to look for, each with its weight and where it came from (the strongest
    source when it comes from several)."""
    found: dict[str, tuple[float, str]] = {}

    def add(text: str, weight: float, source: str) -> None:
        for term in query_terms(text):
            if term in STOPWORDS or term in NOISE_WORDS or term.isdigit() or len(term) < 2:
                continue
            if weight > found.get(term, (0.0, ""))[0]:
                found[term] = (weight, source)

    # A word that is also a folder or file name of a changed path says what the path already
    # says (a branch `fx-cutoff` or a commit `fx: …` for internal/fx/rates.go): it counts as a
    # word of the changed paths, under the name of where it came from.
    own_words = {term for word in situation.path_words() for term in query_terms(word)}
    for word, weight in situation.branch_words():
        add(word, PATH_WORD_WEIGHT if word.lower() in own_words else BRANCH_WEIGHT * weight, BRANCH)
    for subject in situation.branch_subjects:
        for term in query_terms(subject):
            add(term, PATH_WORD_WEIGHT if term in own_words else SUBJECT_WEIGHT, COMMITS)
    for word in situation.path_words():
        add(word, PATH_WORD_WEIGHT, "words of the changed paths")
    strongest = sorted(found.items(), key=lambda item: -item[1][0])[:MAX_TERMS]
    return dict(strongest)


def semantic_text(situation: Situation) -> str:
    """What the session is about in words, for the embedding: the branch name and the branch's
    commit subjects (empty when neither says anything)."""
    words = " ".join(word for word, weight in situation.branch_words() if weight >= 1.0)
    return " ".join(p for p in (words, *situation.branch_subjects) if p.strip())


def rank_situation(
    backend: SqliteBackend, situation: Situation, *, semantic: bool = True
) -> list[Ranked]:
    """The live memories relevant to ``situation``, best first (see the module docstring).
    ``semantic=False`` leaves the embedding out (the model is not loaded yet)."""
    live = backend.live_rows()
    if not live:
        return []
    matcher = backend.path_matcher()
    evidence: dict[int, _Evidence] = {}

    def of(rowid: int) -> _Evidence:
        found = evidence.get(rowid)
        if found is None:
            found = evidence[rowid] = _Evidence()
        return found

    # 1. paths this session changed
    own = set(situation.changed_paths)
    per_row: dict[int, list[tuple[str, dict[str, float]]]] = {}
    if matcher:
        for path in situation.changed_paths:
            symbols = situation.symbols.get(path, ())
            ambiguous = path in situation.ambiguous
            for rowid, found in matcher.match(path, symbols, ambiguous=ambiguous).items():
                per_row.setdefault(rowid, []).append((path, found))
    for rowid, matches in per_row.items():
        total, pairs = pair_paths(matches)
        item = of(rowid)
        item.score += total
        item.paths = tuple(pairs)

    # 2. words: the branch name says what the work is about; the words of the changed paths
    # and the commits count less for a memory about other code (when this session changed some)
    elsewhere = matcher.citing if own else set()
    terms = situation_terms(situation)
    total_docs = len(live)
    for term, (weight, source) in terms.items():
        anywhere, titled = backend.term_rows(term)
        rarity = _idf_weight(len(anywhere), total_docs)
        if weight * rarity < MIN_WORD:
            continue
        for rowid in anywhere:
            item = of(rowid)
            damp = ELSEWHERE if source != BRANCH and rowid in elsewhere and not item.paths else 1.0
            gained = weight * rarity * (1.0 if rowid in titled else BODY_ONLY) * damp
            item.score += gained
            if item.words is None:
                item.words = {}
            words = item.words.setdefault(source, ([], 0.0))
            item.words[source] = ([*words[0], term], words[1] + gained)

    # 3. meaning
    text = semantic_text(situation) if semantic else ""
    if text and backend.embedder is not None:
        for rowid, cosine in backend.vector_ranking(text, 40):
            strength = (cosine - VECTOR_FLOOR) / VECTOR_SPAN
            if strength > 0.0 and rowid in live:
                item = of(rowid)
                damp = ELSEWHERE if rowid in elsewhere and not item.paths else 1.0
                item.meaning = min(1.0, strength) * VECTOR_WEIGHT * damp
                item.score += item.meaning

    # 4. the default branch's recent history
    if matcher:
        weight = RECENT_WEIGHT
        for commit in situation.recent:
            paths = [p for p in commit.paths if p not in own]
            if paths and len(commit.paths) <= RECENT_MAX_PATHS:
                for path in paths:
                    for rowid, found in matcher.match(path).items():
                        # recency first: the newest commit's memories lead
                        strength = weight * (0.5 + 0.5 * max(found.values()))
                        item = of(rowid)
                        if item.recent is None or strength > item.recent[0]:
                            item.recent = (strength, path)
            weight *= RECENT_DECAY
        for item in evidence.values():
            if item.recent is not None:
                item.score += item.recent[0]

    ranked = [
        Ranked(rowid, item.score, _why(item, situation))
        for rowid, item in evidence.items()
        if item.score >= MIN_SCORE and rowid in live
    ]
    ranked.sort(key=lambda r: (-r.score, live.get(r.rowid) != "map", r.rowid))
    return ranked


def _why(item: _Evidence, situation: Situation) -> tuple[str, ...]:
    reasons: list[str] = []
    for path, mention, _score in item.paths[:MAX_WHY]:
        how = situation.changes.get(path, "changed")
        cited = "" if mention.rstrip("/") == path.rstrip("/") else f" (cites {mention})"
        reasons.append(f"{how}: {path}{cited}")
    for source, (words, gained) in (item.words or {}).items():
        if gained >= MIN_WORD:
            reasons.append(f"{source}: {', '.join(words[:6])}")
    if item.meaning >= MIN_WORD:
        reasons.append("close in meaning to the branch name and commits")
    if item.recent is not None and not item.paths:
        where = situation.default_branch or "the default branch"
        reasons.append(f"recently changed on {where}: {item.recent[1]}")
    return tuple(reasons)


def rank_paths(
    backend: SqliteBackend,
    globs: Sequence[str],
    symbols: Mapping[str, frozenset[str]] | None = None,
    ambiguous: frozenset[str] = frozenset(),
) -> list[Ranked]:
    """Memories about these paths, folders or globs, best first: each path and each mention
    pair up once and the pairs add up (as for a session's changed paths); map memories first
    among equals."""
    live = backend.live_rows()
    matcher = backend.path_matcher()
    per_row: dict[int, list[tuple[str, dict[str, float]]]] = {}
    for pattern in globs:
        found_for = matcher.match(
            pattern, (symbols or {}).get(pattern, ()), ambiguous=pattern in ambiguous
        )
        for rowid, found in found_for.items():
            per_row.setdefault(rowid, []).append((pattern, found))
    ranked = []
    for rowid, matches in per_row.items():
        if rowid not in live:
            continue
        total, pairs = pair_paths(matches)
        why = tuple(
            f"{path}" + ("" if mention.rstrip("/") == path.rstrip("/") else f" (cites {mention})")
            for path, mention, _ in pairs[:MAX_WHY]
        )
        ranked.append(Ranked(rowid, total, why))
    ranked.sort(key=lambda r: (-r.score, live.get(r.rowid) != "map", r.rowid))
    return ranked
