"""Hand-written drafts for ``tb propose --draft FILE``.

Three formats, all holding the fields of a draft (``class``, ``title``, ``body``, ``tags``,
``priority``, ``scope``, ``evidence``, ``supersedes``, ``ttl_days``):

- markdown with YAML front-matter (any other name, ``.md`` usually): the front-matter holds
  every field but ``body``, and the markdown after it is the body — a memory file without
  ``id``, ``status`` and ``created``, which ``tb propose`` assigns;
- ``.json``: one JSON object, exactly the ``draft`` of the MCP tool ``memory_propose``;
- ``.yaml`` / ``.yml``: one YAML mapping with a ``body`` key.

``-`` reads standard input and tells the formats apart by their first character.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from teambrain_kit.yaml import YamlProblem, load_yaml
from teambrain_schema import MAX_BODY_BYTES, MemoryDraft, UserError, ValidationFailure

# A draft file is a body and a little front-matter: the body's cap (schema.MAX_BODY_BYTES)
# bounds what is read, so a draft too big here is too big everywhere.
MAX_DRAFT_BYTES = MAX_BODY_BYTES + 16 * 1024
ASSIGNED_FIELDS = ("id", "status", "created")


def read_draft_source(source: str) -> str:
    """The text of a draft file (or stdin for ``-``), bounded and UTF-8; errors name it."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_DRAFT_BYTES + 1)
        else:
            with open(source, "rb") as handle:
                data = handle.read(MAX_DRAFT_BYTES + 1)
    except OSError as exc:
        raise UserError(f"{source}: cannot read draft ({exc.strerror or exc})") from None
    if len(data) > MAX_DRAFT_BYTES:
        raise ValidationFailure(f"{source}: draft is larger than {MAX_DRAFT_BYTES // 1024} KB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationFailure(f"{source}: not UTF-8 text (byte {exc.start})") from None


def _front_matter(text: str, source: str) -> dict[str, Any]:
    from teambrain_schema.frontmatter import FrontMatterError, split_front_matter

    try:  # the memory file's own rule: a draft splits exactly as a memory does
        yaml_text, raw_body, first_line = split_front_matter(text)
    except FrontMatterError as exc:
        raise ValidationFailure(f"{source}: {exc.message}") from None
    data = _yaml_mapping(yaml_text, source, first_line=first_line)
    if "body" in data:
        raise ValidationFailure(f"{source}: body goes after the front-matter, not in it")
    return {**data, "body": raw_body.strip()}


def _yaml_mapping(text: str, source: str, *, first_line: int = 1) -> dict[str, Any]:
    try:
        data = load_yaml(text)
    except YamlProblem as exc:
        line = first_line + (exc.line or 1) - 1
        raise ValidationFailure(f"{source}:{line}: {exc.message}") from None
    if not isinstance(data, dict):
        raise ValidationFailure(f"{source}: a draft must be a mapping of fields")
    return {str(key): value for key, value in data.items()}


def parse_draft_text(text: str, source: str) -> dict[str, Any]:
    """The draft fields in ``text`` (format from ``source``'s suffix, or sniffed for ``-``)."""
    stripped = text.lstrip("\ufeff")
    suffix = Path(source).suffix.lower() if source != "-" else ""
    if suffix == ".json" or (source == "-" and stripped.lstrip().startswith("{")):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ValidationFailure(
                f"{source}: invalid JSON at line {exc.lineno}: {exc.msg}"
            ) from None
        if not isinstance(data, dict):
            raise ValidationFailure(f"{source}: a draft must be a JSON object")
        return data
    if suffix in (".yaml", ".yml") or (source == "-" and not stripped.startswith("---")):
        return _yaml_mapping(stripped, source)
    if not stripped.startswith("---"):
        raise ValidationFailure(
            f"{source}: a markdown draft starts with '---' front-matter (class, title, tags…)"
        )
    return _front_matter(stripped, source)


def load_draft_file(source: str) -> MemoryDraft:
    """Read and validate the draft in ``source`` (a path or ``-``); errors name the file and
    the field (schema and secret problems exit 3, an unreadable file exits 1)."""
    from teambrain_schema.drafts import validate_draft

    data = parse_draft_text(read_draft_source(source), source)
    assigned = [name for name in ASSIGNED_FIELDS if name in data]
    if assigned:
        raise ValidationFailure(
            f"{source}: draft.{assigned[0]}: a draft has no {'/'.join(ASSIGNED_FIELDS)}; "
            "tb propose assigns them"
        )
    try:
        return validate_draft(data)
    except ValidationFailure as exc:
        raise ValidationFailure(f"{source}: {exc.message}") from None
