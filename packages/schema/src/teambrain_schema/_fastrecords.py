"""A fast reader for graph records in the plain shape people and ``tb propose`` write, with
ruamel.yaml as the rule (as :mod:`._fastyaml` is for memory front-matter).

ruamel's round-trip loader costs ~10 ms per record under load: at 10,000 records, ``tb lint``
took over a minute. A record is usually top-level ``key: value`` lines and two nested mappings
(``attributes``, ``edges``) of plain or quoted scalars and flow lists — node ids
(``team:payments``) and globs (``src/payments/**``) included. :func:`record_mapping` reads
exactly that and answers None for anything else (a comment, a block list such as the list form
of ``edges``, an anchor, a tab…); the caller then uses ruamel. Every plain scalar's type is
ruamel's resolver's, and the mappings it returns carry the same ``lc`` line API as ruamel's,
so a record parses to the same record, problems and lines either way (a property test compares
them).
"""

from __future__ import annotations

import re
from typing import Any

from ._fastyaml import _NO, _ODD, _STR, _non_printable, _plain, _quoted, _tag

_KEY = r"[A-Za-z_][A-Za-z0-9_-]*"
_TOP = re.compile(rf"({_KEY}):(?: (.*))?\Z")
_CHILD = re.compile(rf"  ({_KEY}):(?: (.*))?\Z")
_PLAIN_START = re.compile(r"[A-Za-z0-9_./]")
# Flow items: node ids, memory ids, globs. Never a leading `*`/`&`/`!` (alias, anchor, tag).
_ITEM = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./@+=:*-]*\Z")


class _LineColumns:
    """ruamel's ``lc`` API over recorded lines: ``key(k)`` and ``item(i)`` → (line, column)
    with 0-based lines."""

    def __init__(self) -> None:
        self.keys: dict[str, int] = {}
        self.items: dict[int, int] = {}

    def key(self, name: str) -> tuple[int, int]:
        return self.keys[name], 0

    def item(self, index: int) -> tuple[int, int]:
        return self.items[index], 0


class FastMap(dict[str, Any]):
    """A mapping read by :func:`record_mapping`, with ruamel's ``lc`` line API."""

    def __init__(self) -> None:
        super().__init__()
        self.lc = _LineColumns()


class FastList(list[Any]):
    """A flow list read by :func:`record_mapping`, with ruamel's ``lc`` line API."""

    def __init__(self, items: list[Any], line: int) -> None:
        super().__init__(items)
        self.lc = _LineColumns()
        self.lc.items = dict.fromkeys(range(len(items)), line)


def record_mapping(text: str) -> FastMap | None:
    """The mapping ``text`` holds when it is in the plain record shape, else None."""
    if not text or _ODD.search(text) or _non_printable(text):
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    result = FastMap()
    parent: str | None = None  # the last top-level key with an empty value
    for number, line in enumerate(lines):
        if not line:
            continue  # a blank line, as YAML reads it: nothing
        if line.startswith(" "):
            child = _CHILD.match(line)
            if child is None or parent is None:
                return None
            key, value = child.group(1), _value(child.group(2), number)
            mapping = result[parent]
            if mapping is None:
                mapping = result[parent] = FastMap()
            if value is _NO or key in mapping or _tag(key) != _STR:
                return None
            mapping[key] = value
            mapping.lc.keys[key] = number
            continue
        top = _TOP.match(line)
        if top is None:
            return None
        key, raw = top.group(1), top.group(2)
        if key in result or _tag(key) != _STR:
            return None
        value = _value(raw, number)
        if value is _NO:
            return None
        result[key] = value
        result.lc.keys[key] = number
        parent = key if value is None and not (raw or "").strip() else None
    return result or None


def _value(raw: str | None, line: int) -> Any:
    text = (raw or "").rstrip(" ")
    if not text:
        return None
    if text[0] == "[":
        return _flow_list(text, line)
    if text[0] in "\"'":
        return _quoted(text)
    if not _PLAIN_START.match(text) or ": " in text or " #" in text or text.endswith(":"):
        return _NO
    if any(char in text for char in "[]{},&*!|>%@`"):
        return _NO
    return _plain(text)


def _flow_list(text: str, line: int) -> Any:
    if not text.endswith("]") or "#" in text:
        return _NO
    inner = text[1:-1].strip(" ")
    if not inner:
        return FastList([], line)
    items: list[Any] = []
    for part in inner.split(","):
        item = part.strip(" ")
        if item[:1] in ('"', "'"):
            value = _quoted(item)
        elif _ITEM.match(item) and not item.endswith(":") and _tag(item) == _STR:
            value = item
        else:
            return _NO
        if value is _NO:
            return _NO
        items.append(value)
    return FastList(items, line)
