"""Reading a model's JSON answer out of the text it actually sent.

Local models and OpenAI-compatible servers wrap the JSON they were asked for: in a ```json
fence, after a sentence of prose, behind a ``<think>…</think>`` block, or with a closing remark.
:func:`read_json` finds the answer in such text. It tries a fixed, small number of slices, each
decoded once, so its cost stays linear in the answer's length whatever the text holds.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel

# Reasoning models (qwen3, deepseek-r1, …) think aloud first; what they think is not the answer.
_THINK = re.compile(r"(?is)<(think|thinking|reasoning)>.*?(?:</\1\s*>|\Z)")
# …and when the chat template opened the block in the prompt (DeepSeek-R1, QwQ, Qwen3 served
# with a template that ends in "<think>\n"), the answer holds only the closing tag: everything
# before the last one is thinking.
_CLOSING_THINK = re.compile(r"(?is)^.*</(?:think|thinking|reasoning)\s*>")
_FENCE = re.compile(r"(?s)```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)(?:```|\Z)")
MAX_FENCES = 4
MAX_OPENINGS = 8


ModelT = TypeVar("ModelT", bound=BaseModel)


class NotJSON(ValueError):
    """The text holds no JSON object (or array) that could be the answer."""


def _first_opening(text: str) -> tuple[str, str] | None:
    brace, bracket = text.find("{"), text.find("[")
    if brace < 0 and bracket < 0:
        return None
    if bracket < 0 or 0 <= brace < bracket:
        return "{", "}"
    return "[", "]"


def _slices(text: str) -> Iterator[str]:
    yield text
    for count, match in enumerate(_FENCE.finditer(text)):
        if count >= MAX_FENCES:
            break
        yield match.group(1)
    pair = _first_opening(text)
    if pair is not None:  # from the first opening to the last closing of the same kind
        start, end = text.find(pair[0]), text.rfind(pair[1])
        if 0 <= start < end:
            yield text[start : end + 1]


def _openings(text: str) -> Iterator[int]:
    """The first few positions where a JSON object or array may start, in text order."""
    position, found = 0, 0
    while found < MAX_OPENINGS:
        brace, bracket = text.find("{", position), text.find("[", position)
        candidates = [p for p in (brace, bracket) if p >= 0]
        if not candidates:
            return
        position = min(candidates)
        yield position
        position += 1
        found += 1


def read_json(text: str) -> Any:
    """The JSON object (or array) ``text`` answers with; raises :class:`NotJSON` with a
    one-line reason when there is none."""
    stripped = _CLOSING_THINK.sub(" ", _THINK.sub(" ", text)).strip()
    if not stripped:
        raise NotJSON("the answer was empty")
    for piece in _slices(stripped):
        try:
            # strict=False: models write line breaks and tabs raw inside strings; the fields'
            # own rules judge them afterwards (a title must be one line).
            value = json.loads(piece, strict=False)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict | list):
            return value
    decoder = json.JSONDecoder(strict=False)
    for start in _openings(stripped):
        try:
            value, _end = decoder.raw_decode(stripped, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict | list):
            return value
    raise NotJSON(f"the answer holds no JSON object (it began: {preview(stripped)!r})")


def preview(text: str, limit: int = 60) -> str:
    """The start of ``text`` on one line, without control or format characters (a bidi
    override in a model's answer must not reorder the report it is quoted in)."""
    flat = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text[: limit * 4])
    return " ".join(flat.split())[:limit]


def read_answer(text: str, schema: type[ModelT], context: dict[str, Any] | None) -> ModelT:
    """``text`` read as JSON (fenced, wrapped in prose or bare) and validated as ``schema``."""
    return schema.model_validate(read_json(text), context=context)
