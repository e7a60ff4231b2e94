"""Turning arbitrary user text into a safe FTS5 query.

FTS5 has its own syntax (quotes, ``AND``/``OR``/``NOT``, ``NEAR``, ``-``, ``:``, ``*``, ``^``,
parentheses, column filters). User text must never be parsed as that syntax: it would raise on
unbalanced quotes and silently change meaning on ``-`` or ``:``. So we extract plain word terms,
quote each one, and OR them: BM25 then ranks by how many terms match and how rare they are. A
query that ANDs every term returns nothing as soon as one word is missing (see
docs/retrieval.md, "Why OR").
"""

from __future__ import annotations

import re

# Runs of letters and digits: the same boundaries the unicode61 tokenizer uses (underscores,
# dots, dashes and slashes split identifiers into their parts, as in the index).
_TERM = re.compile(r"[^\W_]+", re.UNICODE)
# Enough terms for any real question; bounds the cost of pathological input.
MAX_TERMS = 64
MAX_TERM_CHARS = 64
# Words too common to rank anything: dropped from keyword queries (unless nothing else is
# left). They hardly change BM25's order — their IDF is near zero — but OR'd they match almost
# every memory, which made a query three times slower on SciFact at equal quality.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "may",
        "might",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)


def query_terms(text: str) -> list[str]:
    """The distinct lower-case word terms of ``text``, in order of first appearance."""
    seen: set[str] = set()
    terms: list[str] = []
    for match in _TERM.finditer(text.casefold()):
        term = match.group(0)[:MAX_TERM_CHARS]
        if term not in seen:
            seen.add(term)
            terms.append(term)
            if len(terms) >= MAX_TERMS:
                break
    return terms


def terms_left_out(text: str) -> int:
    """How many distinct words of ``text`` a search does not use: only the first
    ``MAX_TERMS`` (64) count. ``tb relevant`` and ``memory_search`` say so when it is not 0."""
    seen: set[str] = set()
    for match in _TERM.finditer(text.casefold()):
        seen.add(match.group(0)[:MAX_TERM_CHARS])
    return max(0, len(seen) - MAX_TERMS)


def terms_note(text: str) -> str | None:
    """One line saying which words of a query were not searched, or None when all were."""
    left = terms_left_out(text)
    if not left:
        return None
    return (
        f"searched the first {MAX_TERMS} distinct words of the query; {left} more were not "
        "used (ask a shorter question to search them)"
    )


def keyword_terms(text: str) -> list[str]:
    """The terms a keyword search uses: :func:`query_terms` without stopwords, unless the text
    has nothing but stopwords (then all of them)."""
    terms = query_terms(text)
    content = [term for term in terms if term not in STOPWORDS]
    return content or terms


def sanitise_fts_query(text: str) -> str:
    """An FTS5 MATCH expression for ``text``: every keyword term double-quoted, OR'd together.

    Returns ``""`` when ``text`` has no word characters (the caller then skips keyword search).
    Quoting makes operators such as ``NOT``, ``NEAR`` or ``AND`` plain words.
    """
    return " OR ".join(f'"{term}"' for term in keyword_terms(text))
