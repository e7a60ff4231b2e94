"""Edit JSON and JSONC config files the way a person would: change only what must change.

Agent tools keep their settings in JSON (Claude Code: strict, a comment is an error) or JSONC
(VS Code, Gemini CLI: ``//`` and ``/* */`` comments, trailing commas). ``tb install`` must add its
entries without reformatting the file, reordering keys or losing comments, so edits here are text
insertions and replacements at the positions a parse tree gives, indented like their neighbours.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WHITESPACE = " \t\r\n"
MISSING: Any = object()
# No setting of any tool is a number this long; Python's int() refuses 4,300 digits and more.
MAX_NUMBER_CHARS = 400


class JsoncError(ValueError):
    """Text that does not parse; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{message} at line {line}, column {column}")
        self.message = message
        self.line = line
        self.column = column


@dataclass
class Node:
    """A parsed value and where its text lies (``start`` inclusive, ``end`` exclusive)."""

    kind: str  # object, array, string, number, true, false, null
    start: int
    end: int
    value: Any = None  # leaves only
    keys: list[str] = field(default_factory=list)  # objects: member keys, in order
    key_starts: list[int] = field(default_factory=list)  # objects: where each key's quote is
    children: list[Node] = field(default_factory=list)  # object values or array items

    def child(self, step: str | int) -> Node | None:
        """The member ``step`` of an object (the last one wins, as in JSON.parse) or item of an
        array."""
        if self.kind == "object" and isinstance(step, str):
            for index in range(len(self.keys) - 1, -1, -1):
                if self.keys[index] == step:
                    return self.children[index]
        if self.kind == "array" and isinstance(step, int) and 0 <= step < len(self.children):
            return self.children[step]
        return None

    def to_python(self) -> Any:
        """The plain value (dicts, lists, str, int, float, bool, None)."""
        if self.kind == "object":
            return {
                key: child.to_python() for key, child in zip(self.keys, self.children, strict=True)
            }
        if self.kind == "array":
            return [child.to_python() for child in self.children]
        return self.value


class _Parser:
    def __init__(self, text: str, *, comments: bool) -> None:
        self.text = text
        self.comments = comments
        self.pos = 0

    def fail(self, message: str, at: int | None = None) -> JsoncError:
        where = self.pos if at is None else at
        line = self.text.count("\n", 0, where) + 1
        column = where - (self.text.rfind("\n", 0, where) + 1) + 1
        return JsoncError(message, line, column)

    def skip(self) -> None:
        text, length = self.text, len(self.text)
        while self.pos < length:
            char = text[self.pos]
            if char in _WHITESPACE:
                self.pos += 1
            elif text.startswith("//", self.pos) or text.startswith("/*", self.pos):
                if not self.comments:
                    raise self.fail("comments are not allowed in this JSON file")
                if text[self.pos + 1] == "/":
                    newline = text.find("\n", self.pos)
                    self.pos = length if newline == -1 else newline
                else:
                    close = text.find("*/", self.pos + 2)
                    if close == -1:
                        raise self.fail("unterminated comment")
                    self.pos = close + 2
            else:
                return

    def parse_document(self) -> Node:
        self.skip()
        node = self.value(depth=0)
        self.skip()
        if self.pos != len(self.text):
            raise self.fail("unexpected text after the JSON value")
        return node

    def value(self, depth: int) -> Node:
        if depth > 200:
            raise self.fail("nested too deeply")
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of file")
        char = self.text[self.pos]
        if char == "{":
            return self.container(depth, "object", "}")
        if char == "[":
            return self.container(depth, "array", "]")
        if char == '"':
            start = self.pos
            return Node("string", start, self.string_end(), value=self.string_value(start))
        for word, literal in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.pos):
                start, self.pos = self.pos, self.pos + len(word)
                return Node(word, start, self.pos, value=literal)
        match = _NUMBER.match(self.text, self.pos)
        if match and match.end() > self.pos:
            start, self.pos = self.pos, match.end()
            number = match.group(0)
            if len(number) > MAX_NUMBER_CHARS:  # int() refuses 4,300+ digits (ValueError)
                raise self.fail(f"a number of {len(number):,} characters", start)
            value: Any = int(number) if number.lstrip("-").isdigit() else float(number)
            return Node("number", start, self.pos, value=value)
        raise self.fail(f"unexpected character {char!r}")

    def string_end(self) -> int:
        text, index = self.text, self.pos + 1
        while index < len(text):
            char = text[index]
            if char == "\\":
                index += 2
                continue
            if char == '"':
                self.pos = index + 1
                return self.pos
            if char == "\n":
                break
            index += 1
        raise self.fail("unterminated string")

    def string_value(self, start: int) -> str:
        try:
            value = json.loads(self.text[start : self.pos])
        except ValueError:
            raise self.fail("invalid string escape", start) from None
        assert isinstance(value, str)
        return value

    def container(self, depth: int, kind: str, close: str) -> Node:
        node = Node(kind, self.pos, self.pos)
        self.pos += 1
        self.skip()
        while True:
            if self.pos < len(self.text) and self.text[self.pos] == close:
                self.pos += 1
                node.end = self.pos
                return node
            if kind == "object":
                if self.pos >= len(self.text) or self.text[self.pos] != '"':
                    raise self.fail("expected a property name in double quotes")
                key_start = self.pos
                self.string_end()
                node.keys.append(self.string_value(key_start))
                node.key_starts.append(key_start)
                self.skip()
                if self.pos >= len(self.text) or self.text[self.pos] != ":":
                    raise self.fail("expected ':'")
                self.pos += 1
                self.skip()
            node.children.append(self.value(depth + 1))
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                comma = self.pos
                self.pos += 1
                self.skip()
                if self.pos < len(self.text) and self.text[self.pos] == close and not self.comments:
                    raise self.fail("trailing comma", comma)
                continue
            if self.pos < len(self.text) and self.text[self.pos] == close:
                continue
            raise self.fail(f"expected ',' or '{close}'")


def parse(text: str, *, comments: bool = True) -> Node:
    """Parse JSON (``comments=False``: strict) or JSONC into a :class:`Node` tree."""
    return _Parser(text, comments=comments).parse_document()


def loads(text: str, *, comments: bool = True) -> Any:
    """The plain value of a JSON or JSONC document."""
    return parse(text, comments=comments).to_python()


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _indent_of_line(text: str, pos: int) -> str:
    start = _line_start(text, pos)
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def indent_unit(text: str) -> str:
    """The file's indentation step: the first indented line's leading whitespace (2 spaces when
    nothing is indented)."""
    for line in text.split("\n"):
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


class JsoncDocument:
    """A JSON/JSONC text and the edits that keep everything else as it was."""

    def __init__(self, text: str, *, comments: bool = True) -> None:
        self.comments = comments
        self.text = text
        self.root = parse(text, comments=comments)
        self.unit = indent_unit(text)

    def node(self, path: list[str | int]) -> Node | None:
        """The node at ``path`` (keys and indexes), or None."""
        node: Node | None = self.root
        for step in path:
            if node is None:
                return None
            node = node.child(step)
        return node

    def get(self, path: list[str | int]) -> Any:
        """The plain value at ``path``, or :data:`MISSING`."""
        node = self.node(path)
        return MISSING if node is None else node.to_python()

    def _replace(self, start: int, end: int, new: str) -> None:
        self.text = self.text[:start] + new + self.text[end:]
        self.root = parse(self.text, comments=self.comments)

    def _format(self, value: Any, indent: str, *, inline: bool) -> str:
        if inline:
            return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        dumped = json.dumps(value, ensure_ascii=False, indent=self.unit)
        return dumped.replace("\n", "\n" + indent)

    def _after_value(self, end: int) -> tuple[int, bool]:
        """Where a new sibling goes after a value ending at ``end``: past a trailing comma and a
        comment on the same line. Also says whether a comma already follows."""
        text, pos = self.text, end
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        has_comma = pos < len(text) and text[pos] == ","
        if has_comma:
            pos += 1
            while pos < len(text) and text[pos] in " \t":
                pos += 1
        if text.startswith("//", pos):
            newline = text.find("\n", pos)
            pos = len(text) if newline == -1 else newline
        elif text.startswith("/*", pos):
            close = text.find("*/", pos)
            if close != -1 and "\n" not in text[pos:close]:
                pos = close + 2
        elif not has_comma:
            pos = end
        return pos, has_comma

    def _insert(self, container: Node, entry_for: Any) -> None:
        """Insert a member/item into ``container``; ``entry_for(indent, inline)`` renders it."""
        text = self.text
        close = container.end - 1
        if not container.children:
            ws_start = close
            while ws_start > container.start + 1 and text[ws_start - 1] in _WHITESPACE:
                ws_start -= 1
            outer = _indent_of_line(text, container.start)
            inner = outer + self.unit
            tail = text[ws_start:close]
            closing = tail if "\n" in tail else "\n" + outer
            self._replace(ws_start, close, "\n" + inner + entry_for(inner, False) + closing)
            return
        last = container.children[-1]
        first_start = (
            container.key_starts[0] if container.kind == "object" else container.children[0].start
        )
        inline = "\n" not in text[container.start : first_start]
        position, has_comma = self._after_value(last.end)
        if inline:
            piece = ("" if has_comma else ",") + " " + entry_for("", True)
            self._replace(position, position, piece)
            return
        indent = _indent_of_line(text, first_start)
        piece = "\n" + indent + entry_for(indent, False)
        if has_comma:
            self._replace(position, position, piece)
        else:
            self.text = text[: last.end] + "," + text[last.end : position] + piece + text[position:]
            self.root = parse(self.text, comments=self.comments)

    def set(self, path: list[str | int], value: Any) -> None:
        """Set the value at ``path``, creating missing objects on the way."""
        if not path:
            raise ValueError("cannot replace the whole document")
        parent = self.root
        for depth, step in enumerate(path):
            child = parent.child(step)
            if child is None:
                if parent.kind != "object" or not isinstance(step, str):
                    raise TypeError(f"cannot create {step!r} inside a JSON {parent.kind}")
                nested: Any = value
                for key in reversed(path[depth + 1 :]):
                    nested = {key: nested}
                key_text = json.dumps(step, ensure_ascii=False)

                def member(
                    indent: str, inline: bool, key_text: str = key_text, nested: Any = nested
                ) -> str:
                    return f"{key_text}: {self._format(nested, indent, inline=inline)}"

                self._insert(parent, member)
                return
            if depth < len(path) - 1 and child.kind not in ("object", "array"):
                raise TypeError(f"{path[: depth + 1]} is a JSON {child.kind}, not an object")
            parent = child
        node = parent
        indent = _indent_of_line(self.text, node.start)
        inline = "\n" not in self.text[node.start : node.end] and node.kind in ("object", "array")
        self._replace(
            node.start, node.end, self._format(value, indent, inline=inline and bool(node.children))
        )

    def append(self, path: list[str | int], value: Any) -> None:
        """Append ``value`` to the array at ``path`` (created when missing)."""
        node = self.node(path)
        if node is None:
            self.set(path, [value])
            return
        if node.kind != "array":
            raise TypeError(f"{path} is a JSON {node.kind}, not an array")

        def item(indent: str, inline: bool) -> str:
            return self._format(value, indent, inline=inline)

        self._insert(node, item)
