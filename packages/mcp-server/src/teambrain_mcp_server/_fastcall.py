"""``memory_context`` answered without the MCP SDK: what the fast path (``_fastpath``) writes
for an agent's first call while the SDK still loads.

The same call the SDK's tool makes (``BrainService.context``), the same text block
(``context_text``) and structured result (the model's JSON dump by alias, checked against the
tool's output model as the SDK checks it), the same one-line tool error for a problem the
service names. Anything else raises, and the fast path hands the request to the SDK.

Imports only what the service has loaded already (teambrain-schema, pydantic): nothing here
adds to the start-up.
"""

from __future__ import annotations

from teambrain_schema import MemoryContextResult, TeambrainError

from ._fastpath import CONTEXT_TOOL, ToolAnswer
from ._service import BrainService
from ._text import context_text


def tool_error_text(tool: str, message: str) -> str:
    """A tool error's text as ``TeambrainServer`` words it: the tool's name first, once."""
    return message if message.startswith(f"{tool}:") else f"{tool}: {message}"


def context_answer(service: BrainService) -> ToolAnswer:
    """``memory_context``'s answer, as the SDK's tool gives it (``_tools/context.py``)."""
    try:
        try:
            result = service.context()
        except TeambrainError as exc:
            return ToolAnswer(tool_error_text(CONTEXT_TOOL, exc.message), error=True)
        structured = result.model_dump(mode="json", by_alias=True)
        # The SDK validates a structured result against the tool's output model before it
        # answers (a refusal is its internal error): a result that would fail is handed over.
        MemoryContextResult.model_validate(structured)
        return ToolAnswer(context_text(result), structured, after_sent=service.answered)
    finally:
        if service.heartbeat is not None:  # as TeambrainServer.call_tool does, answer or not
            service.heartbeat.touch()
