"""How a tool answers: its result in both forms, or an MCP tool error the agent can act on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ValidationError
from teambrain_schema import ULID_PATTERN, TeambrainError

T = TypeVar("T")
ModelT = TypeVar("ModelT", bound=BaseModel)
_MAX_SHOWN = 40
_EXAMPLE_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F01"


def _shown(value: Any) -> str:
    from teambrain_schema.secrets import redact_secrets

    # The value quoted back to the agent: a secret in it never is (a title too long may be
    # tokens run together, which no scanner sees as one), so a long string is described, not
    # quoted, and a short one quoted with any secret redacted.
    text = redact_secrets(repr(value))
    if len(text) <= _MAX_SHOWN:
        return text
    if isinstance(value, str):
        return f"a string of {len(value):,} characters"
    return text[: _MAX_SHOWN - 1] + "…"


def describe_arguments_error(exc: ValidationError) -> str:
    """Every problem of ``exc`` as ``field: what is wrong (got value)``, joined by ``; ``."""
    problems = []
    for error in exc.errors(include_url=False):
        loc = list(error.get("loc", ()))
        if loc[:1] == ["draft"] and loc[1:2] in (["memory"], ["record"]):
            del loc[1]  # which kind of draft: a union's tag, not a field the agent wrote
        where = ".".join(str(part) for part in loc)
        kind = error.get("type", "")
        if kind == "missing":
            message = "required"
        elif kind in ("extra_forbidden", "unexpected_keyword_argument"):
            message = "unknown field"
        elif kind == "string_pattern_mismatch" and ULID_PATTERN in str(
            error.get("ctx", {}).get("pattern", "")
        ):
            message = f"must be a memory id, 26 characters such as {_EXAMPLE_ID}"
            message += f" (got {_shown(error.get('input'))})"
        else:
            message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
            if "input" in error and not isinstance(error["input"], dict | list):
                message += f" (got {_shown(error['input'])})"
        problems.append(f"{where}: {message}" if where else message)
    return "; ".join(problems)


def contract(model: type[ModelT], **values: Any) -> ModelT:
    """``values`` validated as the contract's ``model``, or a :class:`ToolError` naming the
    field."""
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise ToolError(f"invalid arguments: {describe_arguments_error(exc)}") from None


def answer(call: Callable[[], T]) -> T:
    """Run ``call``; a :class:`TeambrainError` becomes a :class:`ToolError` with its one-line
    message (anything else is a crash the SDK reports without leaking its text)."""
    try:
        return call()
    except TeambrainError as exc:
        raise ToolError(exc.message) from None


def reply(result: BaseModel, text: str, *, exclude_none: bool = False) -> CallToolResult:
    """``result`` as ``structuredContent`` (checked against the tool's output schema) and
    ``text`` as the one text block the model reads. ``exclude_none`` leaves unset optional
    fields out, so a result has exactly the contract's keys unless an addition applies."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=result.model_dump(mode="json", by_alias=True, exclude_none=exclude_none),
    )
