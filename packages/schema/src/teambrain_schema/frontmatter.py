"""Memory files: ``---`` YAML front-matter ``---`` then a markdown body.

Parsing keeps the original text, so an unchanged document serialises byte for byte as it was
read; a changed one keeps its comments and key order (ruamel.yaml round-trip mode).
"""

from __future__ import annotations

import copy
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from teambrain_kit.yaml import YamlProblem, dump_yaml, key_line, load_yaml, to_plain

from ._fastyaml import simple_mapping
from ._memory import MemoryFrontMatter

__all__ = [
    "MAX_MEMORY_FILE_BYTES",
    "FrontMatterError",
    "MemoryDocument",
    "describe_validation_error",
    "new_memory_text",
    "parse_memory",
    "serialise_memory",
    "split_front_matter",
]

DELIMITER = "---"
MAX_MEMORY_FILE_BYTES = 256 * 1024
FRONT_MATTER_KEYS = (
    "id", "class", "scope", "status", "priority", "title", "created",
    "evidence", "supersedes", "tags", "ttl_days",
)  # fmt: skip


class FrontMatterError(ValueError):
    """A memory file that cannot be read as the contract says: message, 1-based file line, field."""

    def __init__(
        self, message: str, *, line: int = 1, field: str | None = None, rule: str = "frontmatter"
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.field = field
        self.rule = "schema" if field is not None else rule


@dataclass(frozen=True)
class MemoryDocument:
    """A memory file as parsed: the validated front-matter, the body and what is needed to
    write it back unchanged."""

    front: MemoryFrontMatter
    body: str
    raw_body: str = ""
    original: str | None = None
    data: Any = field(default=None, compare=False, repr=False)
    yaml_start_line: int = 2
    # The front-matter's YAML text when ``data`` was not built (the fast reader took it):
    # round-trip data for line numbers and edits is parsed from it on first need.
    yaml_text: str | None = field(default=None, compare=False, repr=False)

    def round_trip_data(self) -> Any:
        """The front-matter as ruamel round-trip data (comments, order, key lines), or None."""
        if self.data is None and self.yaml_text is not None:
            try:
                object.__setattr__(self, "data", load_yaml(self.yaml_text))
            except YamlProblem:  # cannot happen for text the fast reader accepted
                object.__setattr__(self, "yaml_text", None)
        return self.data

    def replace(
        self, *, front: MemoryFrontMatter | None = None, body: str | None = None
    ) -> MemoryDocument:
        """A copy with a new front-matter and/or body; serialising it keeps comments and order."""
        new_front = front if front is not None else self.front
        new_body = body if body is not None else self.body
        return MemoryDocument(
            front=new_front,
            body=new_body,
            raw_body=self.raw_body if new_body == self.body else _canonical_body(new_body),
            original=self.original if (new_front == self.front and new_body == self.body) else None,
            data=self.data,
            yaml_start_line=self.yaml_start_line,
            yaml_text=self.yaml_text,
        )

    def field_line(self, name: str) -> int:
        """1-based file line of front-matter key ``name`` (line 1 when unknown)."""
        data = self.round_trip_data()
        if data is None:
            return 1
        line = key_line(data, name)
        return self.yaml_start_line + line - 1 if line is not None else 1


def split_front_matter(text: str) -> tuple[str, str, int]:
    """Split a memory file into (yaml text, raw body, file line where the YAML starts)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != DELIMITER:
        raise FrontMatterError("file must start with a '---' front-matter line", line=1)
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n") in (DELIMITER, "..."):
            return "".join(lines[1:index]), "".join(lines[index + 1 :]), 2
    raise FrontMatterError("front-matter is not closed by a '---' line", line=1)


def parse_memory(text: str) -> MemoryDocument:
    """Parse and validate a memory file's text (raises :class:`FrontMatterError`)."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MEMORY_FILE_BYTES:
        raise FrontMatterError(
            f"file is larger than {MAX_MEMORY_FILE_BYTES // 1024} KB", rule="read"
        )
    if "\x00" in text:
        raise FrontMatterError("file contains NUL bytes (binary content)", rule="read")
    yaml_text, raw_body, start = split_front_matter(text)
    plain = simple_mapping(yaml_text)  # the common case, ~20× cheaper than ruamel
    data = None
    if plain is None:
        data = _round_trip(yaml_text, start)
        plain = to_plain(data)
    try:
        front = MemoryFrontMatter.model_validate(plain)
    except ValidationError as exc:
        message, name = describe_validation_error(exc)
        if data is None:
            data = _round_trip(yaml_text, start)  # for the line of the failing key
        line = key_line(data, name.split(".")[0]) if name else None
        raise FrontMatterError(message, line=start + (line or 1) - 1, field=name) from None
    return MemoryDocument(
        front=front, body=raw_body.strip(), raw_body=raw_body, original=text, data=data,
        yaml_start_line=start, yaml_text=yaml_text if data is None else None,
    )  # fmt: skip


def _round_trip(yaml_text: str, start: int) -> Any:
    """The front-matter through ruamel (round-trip mode), or :class:`FrontMatterError`."""
    try:
        data = load_yaml(yaml_text)
    except YamlProblem as exc:
        raise FrontMatterError(exc.message, line=start + (exc.line or 1) - 1) from None
    if not isinstance(data, dict):
        raise FrontMatterError("front-matter must be a YAML mapping", line=start)
    return data


def serialise_memory(document: MemoryDocument) -> str:
    """The file text of ``document``: the original bytes when nothing changed."""
    if document.original is not None:
        return document.original
    yaml_text = dump_yaml(_updated_mapping(document.round_trip_data(), document.front))
    return f"{DELIMITER}\n{yaml_text}{DELIMITER}\n{document.raw_body or _canonical_body(document.body)}"


def new_memory_text(front: MemoryFrontMatter, body: str) -> str:
    """The canonical text of a new memory file."""
    return serialise_memory(
        MemoryDocument(front=front, body=body.strip(), raw_body=_canonical_body(body))
    )


def _canonical_body(body: str) -> str:
    return f"\n{body.strip()}\n"


def _updated_mapping(existing: Any, front: MemoryFrontMatter) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    values = front.model_dump(mode="python", by_alias=True)
    # Work on a copy: serialising must not change the parsed document it came from.
    target = copy.deepcopy(existing) if existing is not None else CommentedMap()
    for key in FRONT_MATTER_KEYS:
        value = values.get(key)
        if key == "evidence" and value is None:
            if key in target:
                del target[key]
            continue
        if key in target and to_plain(target[key]) == _plain_value(value):
            continue  # untouched: keep its original style and comments
        if existing is not None and key not in target and value in (None, []):
            continue  # an edit adds no empty field the file left out (a reviewer reads the diff)
        target[key] = _yaml_value(
            value, CommentedMap, CommentedSeq, flow=key in ("supersedes", "tags")
        )
    for key in list(target):
        if key not in FRONT_MATTER_KEYS:
            del target[key]
    return target


def _plain_value(value: Any) -> Any:
    return to_plain(value) if not isinstance(value, dt.date) else value


def _yaml_value(value: Any, mapping_type: Any, seq_type: Any, *, flow: bool) -> Any:
    if isinstance(value, dict):
        mapping = mapping_type()
        for key, item in value.items():
            mapping[key] = _yaml_value(item, mapping_type, seq_type, flow=True)
        return mapping
    if isinstance(value, list):
        seq = seq_type(value)
        if flow:
            seq.fa.set_flow_style()
        return seq
    return value


def describe_validation_error(exc: ValidationError) -> tuple[str, str | None]:
    """One line for the first pydantic error, and the dotted field it concerns."""
    first = exc.errors()[0]
    location = ".".join(str(part) for part in first.get("loc", ()) if not isinstance(part, int))
    message = first.get("msg", "invalid value")
    if first.get("type") == "extra_forbidden":
        message = "unknown field"
    elif first.get("type") == "missing":
        message = "required field is missing"
    message = message.removeprefix("Value error, ")
    return (f"{location}: {message}" if location else message), (location or None)
