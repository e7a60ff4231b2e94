"""A fast reader for the front-matter teambrain itself writes, with ruamel.yaml as the rule.

Reading a brain parses every memory's front-matter; ruamel's round-trip loader (pure Python)
costs ~1 ms per file, most of a full index build or a ``tb lint``. The front-matter that
``tb propose``, ``tb init`` and people copying them write is a small subset of YAML: one
``key: value`` per line, one nested mapping (``evidence``), flow lists of plain or quoted
words, plain and quoted single-line strings, dates, integers, ``null``.

:func:`simple_mapping` reads exactly that subset and answers ``None`` for anything else — a
comment, a block list, an escape, a tab, a duplicate key, a value whose type is not obvious —
and the caller then uses ruamel. Inside the subset, every plain scalar's type is decided by
ruamel's own resolver, so the result is what ``to_plain(load_yaml(text))`` gives (a property
test compares the two on generated texts).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from typing import Any

_KEY = r"[A-Za-z_][A-Za-z0-9_-]*"
_TOP = re.compile(rf"({_KEY}):(?: (.*))?\Z")
_CHILD = re.compile(rf"  ({_KEY}):(?: (.*))?\Z")
_PLAIN_START = re.compile(r"[A-Za-z0-9_]")
_ITEM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./@+=-]*\Z")
_DOUBLE = re.compile(r'"([^"\\]*)"\Z')
_SINGLE = re.compile(r"'((?:[^']|'')*)'\Z")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
_INT = re.compile(r"(?:0|[1-9][0-9]*)\Z")
# Characters ruamel reads as line breaks or a byte-order mark, or refuses: left to ruamel.
_ODD = re.compile("[\t\r\x85\u2028\u2029\ufeff]")

_STR = "tag:yaml.org,2002:str"
_NO = object()  # "not in the subset"


@functools.lru_cache(maxsize=1)
def _resolver() -> Any:
    from ruamel.yaml import YAML

    return YAML(typ="rt", pure=True).resolver


@functools.lru_cache(maxsize=4096)  # keys and most values repeat from file to file
def _tag(value: str) -> str:
    """The tag ruamel's round-trip loader gives ``value`` as an untagged plain scalar."""
    from ruamel.yaml.nodes import ScalarNode

    return str(_resolver().resolve(ScalarNode, value, (True, False)))


def _non_printable(text: str) -> bool:
    from ruamel.yaml.reader import Reader

    return Reader.NON_PRINTABLE.search(text) is not None


def simple_mapping(text: str) -> dict[str, Any] | None:
    """The plain mapping ``text`` holds when it is in the subset described above, else None."""
    if not text or _ODD.search(text) or _non_printable(text):
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    result: dict[str, Any] = {}
    parent: str | None = None  # the last top-level key with an empty value
    for line in lines:
        if line.startswith(" "):
            child = _CHILD.match(line)
            if child is None or parent is None:
                return None
            key, value = child.group(1), _value(child.group(2))
            mapping = result[parent]
            if mapping is None:
                mapping = result[parent] = {}
            if value is _NO or key in mapping or _tag(key) != _STR:
                return None
            mapping[key] = value
            continue
        top = _TOP.match(line)
        if top is None:
            return None
        key, raw = top.group(1), top.group(2)
        if key in result or _tag(key) != _STR:
            return None
        value = _value(raw)
        if value is _NO:
            return None
        result[key] = value
        parent = key if value is None and not (raw or "").strip() else None
    return result or None


def _value(raw: str | None) -> Any:
    text = (raw or "").rstrip(" ")
    if not text:
        return None
    if text[0] == "[":
        return _flow_list(text)
    if text[0] in "\"'":
        return _quoted(text)
    if not _PLAIN_START.match(text) or ": " in text or " #" in text or text.endswith(":"):
        return _NO
    return _plain(text)


def _flow_list(text: str) -> Any:
    if not text.endswith("]"):
        return _NO
    inner = text[1:-1].strip(" ")
    if not inner:
        return []
    items: list[str] = []
    for part in inner.split(","):
        item = part.strip(" ")
        if item[:1] in ('"', "'"):
            value = _quoted(item)
        elif _ITEM.match(item) and _tag(item) == _STR:
            value = item
        else:
            return _NO
        if value is _NO:
            return _NO
        items.append(value)
    return items


def _quoted(text: str) -> Any:
    double = _DOUBLE.match(text)
    if double is not None:
        return double.group(1)
    single = _SINGLE.match(text)
    if single is not None:
        return single.group(1).replace("''", "'")
    return _NO


def _plain(text: str) -> Any:
    tag = _tag(text)
    if tag == _STR:
        return text
    if tag.endswith(":int") and _INT.match(text):
        # int() refuses 4,300+ digits with a ValueError; the safe loader reports it as a line
        return int(text) if len(text) <= 400 else _NO
    if tag.endswith(":timestamp") and _DATE.match(text):
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            return _NO
    if tag.endswith(":null") and text == "null":
        return None
    if tag.endswith(":bool") and text in ("true", "false"):
        return text == "true"
    return _NO
