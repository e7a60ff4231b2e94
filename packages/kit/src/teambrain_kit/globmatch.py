"""Glob matching in time linear in the name, whatever the pattern (issue 32 point 3).

A glob comes from committed text (a memory's citation, a query) and is matched against file
names a commit can also choose. Translated to a backtracking regular expression, every extra
``*a`` multiplies the work: ``*a*a*a*a*a*a*a*a*a*b.py`` against a long name took ~53 s. Here a
pattern is cut at its stars into star-free pieces, and each piece is found at its leftmost place
after the previous one: a star absorbs anything, so the leftmost place is never wrong (the
classic greedy glob algorithm). ``**`` segments work the same way one level up, over the name's
``/``-separated segments. The work is (name length) x (pattern length) at most, without
backtracking.

Two flavours:
- ``segments=True`` (citations): ``*`` and ``?`` stay inside one segment, a ``**`` segment
  matches zero or more segments, ``[`` is a plain character, and a trailing ``/`` in the name
  is ignored. A ``**`` inside a segment is a plain ``*``, as in git's wildmatch.
- ``segments=False`` (``fnmatch`` semantics): ``*`` and ``?`` match any character including
  ``/``, and ``[...]``/``[!...]`` classes work.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from functools import lru_cache

__all__ = ["glob_matcher"]


class _Class:
    """A ``[...]`` class: matches one character."""

    __slots__ = ("match",)

    def __init__(self, match: Callable[[str], object]) -> None:
        self.match = match


# A token: a literal character (str of length 1), "?" as None, or a class.
_Token = str | None | _Class


def _parse_class(pattern: str, index: int) -> tuple[_Class, int] | None:
    """The ``[...]`` class opening at ``index`` (as a one-character matcher: fnmatch's own
    translation, which has no repetition) and the index after it, or None (a plain ``[``)."""
    j = index + 1
    if j < len(pattern) and pattern[j] == "!":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    end = pattern.find("]", j)
    if end < 0:
        return None
    return _Class(re.compile(fnmatch.translate(pattern[index : end + 1])).match), end + 1


def _tokens(pattern: str, classes: bool) -> list[_Token | tuple[()]]:
    """``pattern`` as tokens, with ``()`` for a star."""
    out: list[_Token | tuple[()]] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "*":
            if not out or out[-1] != ():
                out.append(())
            index += 1
        elif char == "?":
            out.append(None)
            index += 1
        elif char == "[" and classes and (parsed := _parse_class(pattern, index)) is not None:
            out.append(parsed[0])
            index = parsed[1]
        else:
            out.append(char)
            index += 1
    return out


def _token_matches(token: _Token, char: str) -> bool:
    if token is None:
        return True
    if isinstance(token, str):
        return token == char
    return token.match(char) is not None


class _Piece:
    """A star-free run of tokens: found with ``str.find`` when it is all literal."""

    __slots__ = ("literal", "tokens")

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        plain = all(isinstance(t, str) for t in tokens)
        self.literal = "".join(t for t in tokens if isinstance(t, str)) if plain else None

    def at(self, name: str, index: int) -> bool:
        if self.literal is not None:
            return name.startswith(self.literal, index)
        if index + len(self.tokens) > len(name):
            return False
        return all(_token_matches(t, name[index + k]) for k, t in enumerate(self.tokens))

    def find(self, name: str, start: int, stop: int) -> int:
        """Leftmost index in ``[start, stop - len]`` where the piece matches, or -1."""
        if self.literal is not None:
            return name.find(self.literal, start, stop)
        for index in range(start, stop - len(self.tokens) + 1):
            if self.at(name, index):
                return index
        return -1


def _star_match(pieces: list[_Piece], starred: bool, name: str) -> bool:
    """Whether ``name`` is ``pieces`` joined by stars (``starred``: there is at least one
    star, so the first piece is anchored at the start and the last at the end)."""
    if not starred:
        return len(pieces) == 1 and len(name) == len(pieces[0].tokens) and pieces[0].at(name, 0)
    first, last = pieces[0], pieces[-1]
    if len(first.tokens) + len(last.tokens) > len(name):
        return False
    if not first.at(name, 0) or not last.at(name, len(name) - len(last.tokens)):
        return False
    position, stop = len(first.tokens), len(name) - len(last.tokens)
    for piece in pieces[1:-1]:
        found = piece.find(name, position, stop)
        if found < 0:
            return False
        position = found + len(piece.tokens)
    return True


def _string_matcher(pattern: str, classes: bool) -> Callable[[str], bool]:
    tokens = _tokens(pattern, classes)
    pieces: list[_Piece] = [_Piece([])]
    for token in tokens:
        if token == ():
            pieces.append(_Piece([]))
        else:
            pieces[-1].tokens.append(token)  # type: ignore[arg-type]
    pieces = [_Piece(p.tokens) for p in pieces]
    starred = len(pieces) > 1
    return lambda name: _star_match(pieces, starred, name)


def _segments_matcher(pattern: str) -> Callable[[str], bool]:
    if pattern.endswith("/") and pattern.strip("/"):
        pattern = pattern[:-1]  # a folder cited as ``src/*/``
    parts = pattern.split("/")
    # A trailing ``/**`` is what is under the folder: at least one segment.
    open_end = len(parts) > 1 and parts[-1] == "**"
    # Runs of segment matchers between "**" segments, the same greedy walk over segments.
    runs: list[list[Callable[[str], bool]]] = [[]]
    for part in parts:
        if part == "**":
            if runs[-1] or len(runs) == 1:
                runs.append([])
        else:
            runs[-1].append(_string_matcher(part, classes=False))
    starred = len(runs) > 1

    def run_at(run: list[Callable[[str], bool]], names: list[str], index: int) -> bool:
        return index + len(run) <= len(names) and all(
            m(names[index + k]) for k, m in enumerate(run)
        )

    def match(name: str) -> bool:
        if name.endswith("/"):
            name = name[:-1]
        names = name.split("/")
        if not starred:
            return len(names) == len(runs[0]) and run_at(runs[0], names, 0)
        first, last = runs[0], runs[-1]
        if len(first) + len(last) + open_end > len(names):
            return False
        if not run_at(first, names, 0) or not run_at(last, names, len(names) - len(last)):
            return False
        position, stop = len(first), len(names) - len(last)
        for run in runs[1:-1]:
            found = next(
                (i for i in range(position, stop - len(run) + 1) if run_at(run, names, i)), -1
            )
            if found < 0:
                return False
            position = found + len(run)
        return not open_end or position < stop

    return match


@lru_cache(maxsize=512)
def glob_matcher(pattern: str, *, segments: bool) -> Callable[[str], bool]:
    """A predicate telling whether a name matches ``pattern`` (see the module's docstring for
    the two flavours), in time linear in the name for a given pattern."""
    if segments:
        return _segments_matcher(pattern)
    return _string_matcher(pattern, classes=True)
