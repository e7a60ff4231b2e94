"""A scripted stand-in for the model APIs that agent CLIs stream from, on 127.0.0.1.

The real-agent suite points each CLI at this server instead of its vendor's API. It speaks five
wire protocols, all streaming (SSE) as the CLIs use them, plus their non-streaming and
token-counting side endpoints:

=========================  ===================================================  ================
protocol                   endpoints                                            CLIs
=========================  ===================================================  ================
Anthropic Messages         ``POST /v1/messages``, ``/v1/messages/count_tokens``  Claude Code
OpenAI Responses           ``POST /v1/responses``                               Codex CLI
Gemini                     ``POST /v1beta/models/M:streamGenerateContent``,     Gemini CLI
                           ``:generateContent``, ``:countTokens``
OpenAI Chat Completions    ``POST /v1/chat/completions``                        opencode, Qwen
                                                                                Code, Crush, …
Augment                    ``POST /chat-stream`` (NDJSON), ``/get-models``      Auggie
=========================  ===================================================  ================

Every request is answered from the conversation it carries (the stand-in keeps no per-session
state, so retries and parallel sessions are harmless), by one script:

1. a tool whose name ends in ``memory_context`` is offered and was not called yet: call it;
2. then ``memory_search`` (with :attr:`StandIn.query`);
3. then, when :attr:`StandIn.read_tool` is offered, read :attr:`StandIn.read_path` with it (the
   arguments are filled from the tool's own schema: its path parameter, or its command);
4. then answer with text.

A request that offers none of those tools (titles, classifiers, summaries) gets a short text.
Claude Code and Codex CLI can hide MCP tools behind a tool-search tool (deferred loading): when
one is offered and the memory tools are not, the stand-in searches first, and again (up to
:data:`MAX_TOOL_SEARCHES` times) while the search says the server is still connecting.

Every request is logged (:attr:`StandIn.requests`), and so is every tool result it is sent back
(:attr:`StandIn.tool_results`): a tool result is exactly what a model reads, so that is where the
suite checks for the rendering rule's fence and notice. The server is bounded: it stops after
``deadline_s`` and refuses requests beyond ``max_requests`` (HTTP 429 with a clear message).

Adding a CLI that speaks one of these protocols needs nothing here: point it at :attr:`url` and
name its read tool. A new protocol is one :class:`Protocol` subclass (parse the conversation,
render a step) registered in :data:`PROTOCOLS` with the paths it answers.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

MEMORY_CONTEXT = "memory_context"
MEMORY_SEARCH = "memory_search"
# Tools that load deferred tools (MCP tools are often deferred): Claude Code, Codex CLI.
TOOL_SEARCH = ("ToolSearch", "tool_search")
TOOL_QUERY = "teambrain"
# Claude Code's ToolSearch answers "Some MCP servers are still connecting: teambrain ... try
# searching again" when the server is slow to start; a model does, a few times.
MAX_TOOL_SEARCHES = 5
# Between searches: Factory Droid's ToolSearch answers at once, "No deferred tools matched", while
# a server is still starting; a real model's next turn comes seconds later.
SEARCH_PAUSE_S = 1.5
FINAL_ANSWER = "Done: I read the team memory and the file."
SIDE_ANSWER = "OK"


@dataclass
class Step:
    """What the model does next: call a tool (``tool`` set) or answer with ``text``."""

    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    namespace: str | None = None  # Responses API: the namespace the tool was offered in


@dataclass
class Tool:
    """A tool offered to the model: its name (as the CLI spells it) and input schema."""

    name: str
    schema: dict[str, Any]
    namespace: str | None = None
    alias: str | None = None  # the name to match by, when the CLI's own says too little

    @property
    def qualified(self) -> str:
        """The name with its namespace (``mcp__teambrain.memory_context``), for matching."""
        return self.alias or qualified(self.name, self.namespace)


def qualified(name: str, namespace: str | None) -> str:
    return f"{namespace}.{name}" if namespace else name


@dataclass
class ToolResult:
    """A tool result the CLI sent back: ``text`` is what the model reads, verbatim (structured
    results are kept as the JSON text they arrived as)."""

    protocol: str
    call_id: str
    name: str
    text: str


@dataclass
class Conversation:
    """What one request says: the tools offered, the tools already called, their results."""

    tools: list[Tool] = field(default_factory=list)
    called: list[str] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)


@dataclass
class Exchange:
    """One request to the stand-in and what it answered."""

    method: str
    path: str
    protocol: str
    body: Any
    answer: str


def _as_text(value: Any) -> str:
    """A tool result's content as the model sees it: strings as they are, text parts joined,
    anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(
        isinstance(part, dict) and isinstance(part.get("text"), str) for part in value
    ):
        return "\n".join(part["text"] for part in value)
    return json.dumps(value, ensure_ascii=False)


def _ends_with(name: str, suffix: str) -> bool:
    return name == suffix or name.endswith(
        # mcp__server__tool (Claude Code, Qwen Code), server.tool, server/tool, server-tool
        # (Copilot CLI)
        ("_" + suffix, "__" + suffix, "." + suffix, "/" + suffix, "-" + suffix)
    )


def _called(conversation: Conversation, suffix: str) -> bool:
    return any(_ends_with(name, suffix) for name in conversation.called)


def read_arguments(tool: Tool, path: str) -> dict[str, Any]:
    """Arguments that make ``tool`` read ``path``, from its input schema: its path-like parameter,
    or else its command parameter (``cat <path>``, as a string or an argv list)."""
    properties = tool.schema.get("properties") or {}
    for key in (
        "file_path",
        "absolute_path",
        "filePath",
        "filepath",
        "path",
        "file",
        "target_file",
    ):
        if key in properties:
            return {key: path}
    for key in ("files", "paths"):  # a list of files to read (Cline's read_files)
        items = (properties.get(key) or {}).get("items") or {}
        if "path" in (items.get("properties") or {}):
            return {key: [{"path": path}]}
        if items.get("type") == "string":
            return {key: [path]}
    for key in ("command", "cmd"):
        if key in properties:
            kind = properties[key].get("type")
            return {key: ["cat", path] if kind == "array" else f"cat {path}"}
    raise ValueError(f"cannot tell how {tool.name} reads a file: {sorted(properties)}")


def search_arguments(tool: Tool) -> dict[str, Any]:
    """Arguments for a tool-search tool: a keyword query (a model does not know the exact names
    of deferred tools), plus its result limit when it has one."""
    properties = tool.schema.get("properties") or {}
    arguments: dict[str, Any] = {"query": TOOL_QUERY}
    for key in ("max_results", "limit"):
        if key in properties:
            arguments[key] = 8
    return arguments


class Protocol:
    """One wire protocol: turn a request into a :class:`Conversation`, a :class:`Step` into a
    response. Subclasses set ``name`` and implement the three methods."""

    name: ClassVar[str] = ""

    def parse(self, body: dict[str, Any]) -> Conversation:
        raise NotImplementedError

    def streams(self, path: str, body: dict[str, Any]) -> bool:
        return bool(body.get("stream"))

    def events(self, step: Step, body: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
        """The SSE events of a streamed answer: (event name or None, data)."""
        raise NotImplementedError

    def whole(self, step: Step, body: dict[str, Any]) -> Any:
        """The JSON body of a non-streamed answer."""
        raise NotImplementedError

    def raw(self, step: Step, body: dict[str, Any]) -> tuple[str, bytes] | None:
        """(content type, bytes) for protocols that answer neither SSE nor one JSON body."""
        return None


def _call_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


class AnthropicMessages(Protocol):
    """``POST /v1/messages`` (https://docs.anthropic.com/en/api/messages-streaming)."""

    name = "anthropic"

    def parse(self, body: dict[str, Any]) -> Conversation:
        found = Conversation()
        for tool in body.get("tools") or []:
            if isinstance(tool, dict) and "name" in tool:
                found.tools.append(Tool(tool["name"], tool.get("input_schema") or {}))
        names: dict[str, str] = {}
        for message in body.get("messages") or []:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_use":
                    found.called.append(block["name"])
                    names[block["id"]] = block["name"]
                elif block.get("type") == "tool_result":
                    call_id = block.get("tool_use_id", "")
                    text = _as_text(block.get("content", ""))
                    found.results.append(
                        ToolResult(self.name, call_id, names.get(call_id, ""), text)
                    )
        return found

    def _message(self, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": _call_id("msg_"), "type": "message", "role": "assistant",
            "model": body.get("model", "stand-in"), "content": [], "stop_reason": None,
            "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1},
        }  # fmt: skip

    def _block(self, step: Step) -> dict[str, Any]:
        if step.tool:
            return {"type": "tool_use", "id": _call_id("toolu_"), "name": step.tool, "input": {}}
        return {"type": "text", "text": ""}

    def events(self, step: Step, body: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
        yield "message_start", {"type": "message_start", "message": self._message(body)}
        block = self._block(step)
        yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}  # fmt: skip
        delta = (
            {"type": "input_json_delta", "partial_json": json.dumps(step.arguments)}
            if step.tool
            else {"type": "text_delta", "text": step.text}
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": 0}
        stop = "tool_use" if step.tool else "end_turn"
        yield (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
        yield "message_stop", {"type": "message_stop"}

    def whole(self, step: Step, body: dict[str, Any]) -> Any:
        message = self._message(body)
        block = self._block(step)
        if step.tool:
            block["input"] = step.arguments
        else:
            block["text"] = step.text
        message["content"] = [block]
        message["stop_reason"] = "tool_use" if step.tool else "end_turn"
        return message


class OpenAIResponses(Protocol):
    """``POST /v1/responses`` as Codex CLI streams it; MCP tools may be grouped in a
    ``namespace`` and hidden behind a ``tool_search`` tool."""

    name = "responses"

    def parse(self, body: dict[str, Any]) -> Conversation:
        found = Conversation()

        def offer(tools: Any, namespace: str | None) -> None:
            for tool in tools if isinstance(tools, list) else []:
                if not isinstance(tool, dict):
                    continue
                if tool.get("type") == "namespace":
                    offer(tool.get("tools"), tool.get("name"))
                elif tool.get("type") == "tool_search":
                    found.tools.append(Tool("tool_search", tool.get("parameters") or {}))
                elif "name" in tool:
                    schema = tool.get("parameters") or {}
                    found.tools.append(Tool(tool["name"], schema, namespace))

        offer(body.get("tools"), None)
        names: dict[str, str] = {}
        for item in body.get("input") or []:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "function_call":
                name = qualified(item.get("name", ""), item.get("namespace"))
                found.called.append(name)
                names[item.get("call_id", "")] = name
            elif kind == "tool_search_call":
                found.called.append("tool_search")
            elif kind == "tool_search_output":
                offer(item.get("tools"), None)
            elif kind == "function_call_output":
                call_id = item.get("call_id", "")
                output = item.get("output")
                text = _as_text(output.get("content") if isinstance(output, dict) else output)
                found.results.append(ToolResult(self.name, call_id, names.get(call_id, ""), text))
        return found

    def _item(self, step: Step) -> dict[str, Any]:
        if step.tool == "tool_search":
            return {
                "type": "tool_search_call", "id": _call_id("ts_"), "call_id": _call_id("call_"),
                "status": "completed", "execution": "client", "arguments": step.arguments,
            }  # fmt: skip
        if step.tool:
            item = {
                "type": "function_call", "id": _call_id("fc_"), "call_id": _call_id("call_"),
                "name": step.tool, "arguments": json.dumps(step.arguments), "status": "completed",
            }  # fmt: skip
            if step.namespace:
                item["namespace"] = step.namespace
            return item
        return {
            "type": "message", "id": _call_id("msg_"), "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": step.text, "annotations": []}],
        }  # fmt: skip

    def _response(self, body: dict[str, Any], status: str, output: list[Any]) -> dict[str, Any]:
        return {
            "id": self.response_id, "object": "response", "created_at": int(time.time()),
            "status": status, "model": body.get("model", "stand-in"), "output": output,
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                      "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}},
        }  # fmt: skip

    def events(self, step: Step, body: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
        self.response_id = _call_id("resp_")
        yield "response.created", {"type": "response.created", "response": self._response(body, "in_progress", [])}  # fmt: skip
        item = self._item(step)
        yield "response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}  # fmt: skip
        if item["type"] == "message":
            yield "response.output_text.delta", {
                "type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
                "content_index": 0, "delta": step.text,
            }  # fmt: skip
        yield "response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}  # fmt: skip
        yield "response.completed", {"type": "response.completed", "response": self._response(body, "completed", [item])}  # fmt: skip

    def whole(self, step: Step, body: dict[str, Any]) -> Any:
        self.response_id = _call_id("resp_")
        return self._response(body, "completed", [self._item(step)])


class Gemini(Protocol):
    """``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` and ``:generateContent``."""

    name = "gemini"

    def streams(self, path: str, body: dict[str, Any]) -> bool:
        return ":streamGenerateContent" in path

    def parse(self, body: dict[str, Any]) -> Conversation:
        found = Conversation()
        for group in body.get("tools") or []:
            for declaration in group.get("functionDeclarations") or []:
                schema = declaration.get("parametersJsonSchema") or declaration.get("parameters")
                found.tools.append(Tool(declaration["name"], schema or {}))
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                if "functionCall" in part:
                    found.called.append(part["functionCall"].get("name", ""))
                elif "functionResponse" in part:
                    answer = part["functionResponse"]
                    response = answer.get("response")
                    text = _as_text(
                        response.get("output", response) if isinstance(response, dict) else response
                    )
                    name = answer.get("name", "")
                    found.results.append(ToolResult(self.name, answer.get("id", name), name, text))
        return found

    def _chunk(self, step: Step) -> dict[str, Any]:
        part: dict[str, Any] = (
            {"functionCall": {"name": step.tool, "args": step.arguments}}
            if step.tool
            else {"text": step.text}
        )
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "stand-in",
        }  # fmt: skip

    def events(self, step: Step, body: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
        yield None, self._chunk(step)

    def whole(self, step: Step, body: dict[str, Any]) -> Any:
        return self._chunk(step)


class ChatCompletions(Protocol):
    """``POST /v1/chat/completions`` (OpenAI-compatible CLIs)."""

    name = "chat"

    def parse(self, body: dict[str, Any]) -> Conversation:
        found = Conversation()
        for tool in body.get("tools") or []:
            function = tool.get("function") if isinstance(tool, dict) else None
            if isinstance(function, dict) and "name" in function:
                found.tools.append(Tool(function["name"], function.get("parameters") or {}))
        names: dict[str, str] = {}
        for message in body.get("messages") or []:
            for call in message.get("tool_calls") or []:
                name = (call.get("function") or {}).get("name", "")
                found.called.append(name)
                names[call.get("id", "")] = name
            if message.get("role") == "tool":
                call_id = message.get("tool_call_id", "")
                text = _as_text(message.get("content", ""))
                found.results.append(ToolResult(self.name, call_id, names.get(call_id, ""), text))
        return found

    def _chunk(self, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            "id": self.completion_id, "object": "chat.completion.chunk",
            "created": int(time.time()), "model": "stand-in",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }  # fmt: skip

    def _call(self, step: Step) -> dict[str, Any]:
        return {
            "id": _call_id("call_"), "type": "function",
            "function": {"name": step.tool, "arguments": json.dumps(step.arguments)},
        }  # fmt: skip

    def events(self, step: Step, body: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
        self.completion_id = _call_id("chatcmpl-")
        if step.tool:
            call = {"index": 0, **self._call(step)}
            yield None, self._chunk({"role": "assistant", "content": None, "tool_calls": [call]}, None)  # fmt: skip
            yield None, self._chunk({}, "tool_calls")
        else:
            yield None, self._chunk({"role": "assistant", "content": step.text}, None)
            yield None, self._chunk({}, "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = self._chunk({}, None)
            usage["choices"] = []
            usage["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            yield None, usage
        yield None, "[DONE]"

    def whole(self, step: Step, body: dict[str, Any]) -> Any:
        self.completion_id = _call_id("chatcmpl-")
        message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
        if step.tool:
            message["tool_calls"] = [self._call(step)]
        return {
            "id": self.completion_id, "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "stand-in"),
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if step.tool else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }  # fmt: skip


class Augment(Protocol):
    """Augment's own API, as Auggie 0.36.0 speaks it: ``POST <tenant>/chat-stream`` answered with
    newline-delimited JSON. A node of type 5 is a tool call, a request node of type 1 a tool
    result; MCP tools are offered as ``<tool>_<server>`` with ``mcp_server_name`` and
    ``mcp_tool_name`` (matched here as ``server.tool``)."""

    name = "augment"
    TOOL_USE, TOOL_RESULT = 5, 1

    def parse(self, body: dict[str, Any]) -> Conversation:
        found = Conversation()
        aliases: dict[str, str] = {}
        for tool in body.get("tool_definitions") or []:
            server, mcp_name = tool.get("mcp_server_name"), tool.get("mcp_tool_name")
            alias = f"{server}.{mcp_name}" if server and mcp_name else None
            aliases[tool.get("name", "")] = alias or tool.get("name", "")
            schema = json.loads(tool.get("input_schema_json") or "{}")
            found.tools.append(Tool(tool.get("name", ""), schema, alias=alias))
        names: dict[str, str] = {}
        request_nodes = []
        for turn in body.get("chat_history") or []:
            request_nodes += turn.get("request_nodes") or []
            for node in turn.get("response_nodes") or []:
                use = node.get("tool_use") if node.get("type") == self.TOOL_USE else None
                if isinstance(use, dict):
                    name = aliases.get(use.get("tool_name", ""), use.get("tool_name", ""))
                    found.called.append(name)
                    names[use.get("tool_use_id", "")] = name
        for node in [*request_nodes, *(body.get("nodes") or [])]:
            result = node.get("tool_result_node") if node.get("type") == self.TOOL_RESULT else None
            if isinstance(result, dict):
                call_id = result.get("tool_use_id", "")
                text = _as_text(result.get("content", ""))
                found.results.append(ToolResult(self.name, call_id, names.get(call_id, ""), text))
        return found

    def streams(self, path: str, body: dict[str, Any]) -> bool:
        return False

    def raw(self, step: Step, body: dict[str, Any]) -> tuple[str, bytes] | None:
        if step.tool:
            use = {"tool_use_id": _call_id("toolu_"), "tool_name": step.tool, "input_json": json.dumps(step.arguments)}  # fmt: skip
            lines: list[dict[str, Any]] = [
                {
                    "text": "",
                    "nodes": [{"id": 1, "type": self.TOOL_USE, "content": "", "tool_use": use}],
                },
                {"text": "", "stop_reason": 3},  # tool use
            ]
        else:
            lines = [{"text": step.text}, {"text": "", "stop_reason": 1}]  # end of turn
        return "application/json", "".join(json.dumps(line) + "\n" for line in lines).encode()


# Augment's side endpoints: what a tenant with no models, remote tools or MCP configs answers.
# ``enable_hooks``: Auggie runs hooks only when its server's feature flag says so.
SIDE_ANSWERS: dict[str, Any] = {
    "/get-models": {"default_model": "", "models": [], "feature_flags": {"enable_hooks": True}},
    "/agents/list-remote-tools": {"tools": []},
}

# (path test, protocol class): the first match answers a POST.
PROTOCOLS: list[tuple[Any, type[Protocol]]] = [
    (lambda path: path.endswith("/messages"), AnthropicMessages),
    (lambda path: path.endswith("/responses"), OpenAIResponses),
    (lambda path: ":streamGenerateContent" in path or ":generateContent" in path, Gemini),
    (lambda path: path.endswith("/chat/completions"), ChatCompletions),
    (lambda path: path.endswith("/chat-stream"), Augment),
]


@dataclass
class StandIn:
    """The server and its script. Use as a context manager; read :attr:`url` for the base URL.

    ``read_tool`` is the name of the CLI's own file-reading tool (``Read``, ``read_file``,
    ``shell``…); ``read_path`` the file it reads. ``deadline_s`` bounds the server's life and
    ``max_requests`` the number of requests it answers."""

    read_tool: str | None = None
    read_path: str = "README.md"
    query: str = "which payment provider SDK may I import"
    deadline_s: float = 600.0
    max_requests: int = 200
    requests: list[Exchange] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _server: ThreadingHTTPServer | None = field(default=None, repr=False)
    _timer: threading.Timer | None = field(default=None, repr=False)

    # The script ------------------------------------------------------------------------------

    def next_step(self, conversation: Conversation) -> Step:
        """Call memory_context, then memory_search, then the read tool, then answer."""
        offered = {tool.qualified: tool for tool in conversation.tools}
        memory = [name for name in offered if _ends_with(name, MEMORY_CONTEXT) or _ends_with(name, MEMORY_SEARCH)]  # fmt: skip
        if not memory:
            searcher = next((offered[name] for name in TOOL_SEARCH if name in offered), None)
            searches = sum(name in TOOL_SEARCH for name in conversation.called)
            if searcher is not None and searches < MAX_TOOL_SEARCHES:
                if searches:  # a model takes a moment before it searches again
                    time.sleep(SEARCH_PAUSE_S)
                return Step(searcher.name, search_arguments(searcher), namespace=searcher.namespace)
            return Step(text=SIDE_ANSWER)
        for suffix, arguments in (
            (MEMORY_CONTEXT, {}),
            (MEMORY_SEARCH, {"query": self.query, "k": 3}),
        ):
            name = next((name for name in memory if _ends_with(name, suffix)), None)
            if name is not None and not _called(conversation, suffix):
                tool = offered[name]
                return Step(tool.name, dict(arguments), namespace=tool.namespace)
        reader = offered.get(self.read_tool or "")
        if reader is not None and self.read_tool not in conversation.called:
            return Step(reader.name, read_arguments(reader, self.read_path), namespace=reader.namespace)  # fmt: skip
        return Step(text=FINAL_ANSWER)

    # What was seen ---------------------------------------------------------------------------

    def memory_results(self, suffix: str) -> list[ToolResult]:
        """The results of calls to the tool whose name ends in ``suffix``, first seen first."""
        return [result for result in self.tool_results if _ends_with(result.name, suffix)]

    def called(self, suffix: str) -> bool:
        """Did the CLI send back a result of a tool ending in ``suffix``?"""
        return bool(self.memory_results(suffix))

    def transcript(self) -> str:
        """Every exchange on one line each, for assertion messages."""
        return "\n".join(f"{ex.method} {ex.path} [{ex.protocol}] -> {ex.answer}" for ex in self.requests)  # fmt: skip

    # The server ------------------------------------------------------------------------------

    def _record(self, exchange: Exchange, conversation: Conversation | None) -> None:
        with self._lock:
            self.requests.append(exchange)
            seen = {result.call_id for result in self.tool_results}
            for result in conversation.results if conversation else []:
                if result.call_id not in seen:
                    self.tool_results.append(result)
                    seen.add(result.call_id)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send_json(self, status: int, data: Any) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _over_budget(self) -> bool:
                with standin._lock:
                    over = len(standin.requests) >= standin.max_requests
                if over:
                    message = f"stand-in request cap ({standin.max_requests}) reached: {self.path}"
                    standin.refused.append(message)
                    self._send_json(429, {"error": {"type": "rate_limit_error", "message": message}})  # fmt: skip
                return over

            def do_GET(self) -> None:
                if self._over_budget():
                    return
                standin._record(Exchange("GET", self.path, "", None, "empty list"), None)
                self._send_json(200, {"object": "list", "data": [], "models": []})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self._over_budget():
                    return
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = None
                path = self.path.split("?", 1)[0]
                if path.endswith("/count_tokens") or path.endswith(":countTokens"):
                    standin._record(Exchange("POST", self.path, "tokens", body, "count"), None)
                    self._send_json(200, {"input_tokens": 10, "totalTokens": 10})
                    return
                kind = next((cls for test, cls in PROTOCOLS if test(path)), None)
                if kind is None and not path.startswith("/v1"):  # a vendor's side endpoints
                    standin._record(Exchange("POST", self.path, "side", body, "side"), None)
                    self._send_json(200, SIDE_ANSWERS.get(path, {}))
                    return
                if kind is None or not isinstance(body, dict):
                    standin._record(Exchange("POST", self.path, "", body, "404"), None)
                    self._send_json(404, {"error": {"message": f"stand-in: no route {path}"}})
                    return
                protocol = kind()
                conversation = protocol.parse(body)
                step = standin.next_step(conversation)
                answer = f"call {step.tool}" if step.tool else f"text {step.text!r}"
                standin._record(Exchange("POST", self.path, protocol.name, body, answer), conversation)  # fmt: skip
                other = protocol.raw(step, body)
                if other is not None:
                    self.send_response(200)
                    self.send_header("Content-Type", other[0])
                    self.send_header("Content-Length", str(len(other[1])))
                    self.end_headers()
                    self.wfile.write(other[1])
                    return
                if not protocol.streams(path, body):
                    self._send_json(200, protocol.whole(step, body))
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    for event, data in protocol.events(step, body):
                        text = data if isinstance(data, str) else json.dumps(data)
                        head = f"event: {event}\n" if event else ""
                        self.wfile.write(f"{head}data: {text}\n\n".encode())
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler

    def __enter__(self) -> StandIn:
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        server.daemon_threads = True
        self._server = server
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        self._timer = threading.Timer(self.deadline_s, server.shutdown)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
