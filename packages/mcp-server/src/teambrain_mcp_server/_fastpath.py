"""Answer the MCP handshake before the SDK loads: ``tb serve`` cold start in tens of ms.

Importing the MCP SDK and building the server takes about a second (the SDK's pydantic models
for every protocol revision), and agent tools give a server only a few seconds before they
start without it (Codex CLI omits a "pending" server; Gemini CLI shows it disconnected under
load). So the server claims stdio with its stdlib wire, starts building the real server on a
thread, and answers ``initialize``, ``notifications/initialized``, ``ping`` and ``tools/list``
itself from ``_handshake.json`` — what the SDK server answered (one answer, the same for each
handshake protocol revision but the revision it names), recorded by ``make handshake`` (``python
-m teambrain_mcp_server._fastpath --write``) and checked against the live SDK server by the
tests. The recording names the versions of the SDK and of teambrain-schema it was made with;
when the installed ones differ, the SDK answers everything. The first other message (a tool call), or the build
finishing, hands over: the SDK's session gets the client's ``initialize`` replayed (its answer
dropped) and serves everything from then on.

Same input, same answer: the fast path answers only a message it can prove the SDK accepts as
it would answer it — an envelope with no other keys, no parameters where it answers with none,
and ``initialize`` parameters that satisfy the JSON Schema of the SDK's own model (recorded
with the answers) in JSON's strict types. Anything it cannot prove (a ``capabilities`` list, a
numeric ``clientInfo.name``, a key it does not know that the SDK might read) is handed over
unanswered, so the SDK answers it; a differential test drives both paths with generated
conversations.

The first ``memory_context`` is answered here too (issue 38: an agent's first call within a
second, while the SDK still loads): a ``tools/call`` naming it with no arguments (absent or
``{}``, nothing else in ``params``) after the handshake runs the service's call on a thread
(the brain opened beside the SDK's import, ``BrainService.prepare``) and writes the answer in
the recorded shape of the SDK's (``toolsCall``: its text block, ``structuredContent`` and
``isError``, recorded from the live server the same way). Any argument, a ``_meta``, a tool
error the service did not name (a crash), a result the tool's output model would refuse: the
request is handed over and the SDK answers it. While the call runs, a
``notifications/cancelled`` naming it drops its answer, as the SDK's does, and a ``ping`` is
answered; every other message waits for the call to end (then answered here or handed over,
in order), and a client that closes stdin still gets the answer.

Why not a warm per-machine daemon reached through a shim: it would also keep the index warm, but
adds a long-lived process per user with its own lifecycle, socket permissions and a version
skew between shim and daemon; answering the handshake early meets the start-up budget without
any of that, and the index is warm after the first call anyway.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._stdio import ClientGone, Incoming, RequestId, StdioWire

SNAPSHOT = Path(__file__).with_name("_handshake.json")
REPLAYED_ID = "teambrain-fast-path-initialize"
VERSION_MARK = "{version}"
DISABLE_ENV = "TEAMBRAIN_FAST_PATH"  # "0": every message goes to the SDK (tests compare both)


# What the recording depends on besides this package: the SDK that answered and the contract
# whose models the tools' schemas come from. Another installed version of either (a
# range-compatible install, an editable one) may answer differently, so the SDK answers then.
RECORDED_WITH = ("mcp", "teambrain-schema")
PROTOCOL_MARK = "{protocol}"
TEXT_MARK = "{text}"
STRUCTURED_MARK = "{structured}"
CONTEXT_TOOL = "memory_context"


def installed_versions() -> dict[str, str]:
    """The installed versions of the distributions the recording depends on."""
    import importlib.metadata

    found = {}
    for name in RECORDED_WITH:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "0+unknown"
    return found


class Handshake:
    """The recorded answers: one ``initialize`` (its ``protocolVersion`` filled per revision)
    and one ``tools/list`` for every handshake revision the SDK speaks."""

    def __init__(self, data: dict[str, Any], version: str) -> None:
        self.latest: str = data["latest"]
        self.revisions: frozenset[str] = frozenset(data["revisions"])
        self.initialize: dict[str, Any] = data["initialize"]
        self.tools_list: dict[str, Any] = data["toolsList"]
        self.params_schema: dict[str, Any] = data["initializeParams"]
        # What the SDK writes for a tool's answer and for a tool error, the values marked.
        self.call_result: dict[str, Any] = data["toolsCall"]["result"]
        self.call_error: dict[str, Any] = data["toolsCall"]["error"]
        self.version = version

    @classmethod
    def load(cls, version: str) -> Handshake | None:
        """The recording, or None (the SDK answers) when it is unreadable or was recorded with
        other versions of the SDK or the contract than those installed."""
        try:
            data = json.loads(SNAPSHOT.read_text("utf-8"))
            if data["recordedWith"] != installed_versions():
                return None
            return cls(data, version)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def negotiate(self, message: dict[str, Any]) -> str | None:
        """The revision the SDK would pick for this ``initialize`` (None: let the SDK answer)."""
        params = message.get("params")
        if not plain_envelope(message) or not isinstance(params, dict):
            return None
        if not conforms(params, self.params_schema, self.params_schema.get("$defs", {})):
            return None
        requested = params["protocolVersion"]
        return requested if requested in self.revisions else self.latest

    def result(self, revision: str, method: str) -> dict[str, Any]:
        answer = self.initialize if method == "initialize" else self.tools_list
        text = (
            json.dumps(answer)
            .replace(json.dumps(VERSION_MARK), json.dumps(self.version))
            .replace(json.dumps(PROTOCOL_MARK), json.dumps(revision))
        )
        result: dict[str, Any] = json.loads(text)
        return result

    def answer(self, answer: ToolAnswer) -> dict[str, Any]:
        """A tool's answer as the SDK writes it (the recorded shape, its marks filled)."""
        template = self.call_error if answer.error else self.call_result
        result: dict[str, Any] = fill(template, answer.text, answer.structured)
        return result


def fill(template: Any, text: str, structured: dict[str, Any] | None) -> Any:
    """``template`` with :data:`TEXT_MARK` replaced by ``text`` and the object
    ``{STRUCTURED_MARK: true}`` by ``structured``."""
    if template == TEXT_MARK:
        return text
    if isinstance(template, dict):
        if template == {STRUCTURED_MARK: True}:
            return structured
        return {key: fill(value, text, structured) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(item, text, structured) for item in template]
    return template


class ToolAnswer:
    """What a tool answered: its text block and structured result, or a tool error's text."""

    def __init__(
        self, text: str, structured: dict[str, Any] | None = None, *, error: bool = False,
        after_sent: Callable[[], None] | None = None,
    ) -> None:  # fmt: skip
        self.text = text
        self.structured = structured
        self.error = error
        self.after_sent = after_sent  # told once the answer is written (the model's load)


class HandOver(Exception):
    """The fast path cannot answer this call as the SDK would: the SDK answers it."""


class FastTools:
    """The tool calls the fast path may answer: filled by the server's build once the brain's
    service exists (``offer``), or closed when it never will (``close``).

    Also when the SDK's import may start (:meth:`sdk_turn`). Python runs one thread at a time,
    so a second of imports beside the first answer makes it a second slower: the SDK waits
    while the brain opens and, when the first ``memory_context`` came meanwhile, until its
    answer is written; it starts at once when a message needs it (``want_sdk``)."""

    WAIT_S = 1.5  # the longest the SDK's import waits for either (a cold home opens slowly)

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._context: Callable[[], ToolAnswer] | None = None
        self._calling = threading.Event()
        self._sdk_wanted = threading.Event()

    def offer(self, context: Callable[[], ToolAnswer]) -> None:
        self._context = context
        self._ready.set()

    def close(self) -> None:
        self._ready.set()

    def wait_offered(self, timeout: float) -> None:
        """Wait until the service exists (or never will), at most ``timeout`` seconds."""
        self._ready.wait(timeout)

    def context(self) -> ToolAnswer:
        """``memory_context``'s answer, once the service exists; :class:`HandOver` when the
        build failed before it did."""
        self._calling.set()
        self._ready.wait()
        if self._context is None:
            raise HandOver
        return self._context()

    def want_sdk(self) -> None:
        """A message needs the SDK, or the first answer is out: its import may start."""
        self._sdk_wanted.set()

    def sdk_turn(self, opening: threading.Thread) -> None:
        """Return when the SDK's import may start: wanted, or the brain opened (``opening``
        ended) with no call waiting for it, or after :attr:`WAIT_S` for each."""
        deadline = time.monotonic() + self.WAIT_S
        while opening.is_alive() and time.monotonic() < deadline:
            if self._sdk_wanted.wait(0.02):
                return
        if self._calling.is_set():
            self._sdk_wanted.wait(self.WAIT_S)


_ENVELOPE_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
# JSON Schema words that only annotate; any other word the checker does not know means "not
# proven" (the SDK answers), never "accepted".
_ANNOTATIONS = frozenset({"title", "description", "default"})
_JSON_TYPES: dict[str, Any] = {
    "object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
}  # fmt: skip


def plain_envelope(message: dict[str, Any]) -> bool:
    """Whether a message holds only the JSON-RPC keys the fast path reads."""
    return message.keys() <= _ENVELOPE_KEYS


def plain_params(message: dict[str, Any]) -> bool:
    """Whether a request carries no parameters (absent or an empty object)."""
    return plain_envelope(message) and message.get("params", {}) == {}


def conforms(value: Any, schema: Any, defs: dict[str, Any]) -> bool:
    """Whether ``value`` certainly validates against ``schema`` (pydantic's JSON Schema of a
    model) as the SDK validates it: True only when proven with JSON's strict types (no
    coercion), False for anything else, including schema words this checker does not know.

    An object's unknown keys are allowed where the model ignores them, except a key with an
    underscore, which pydantic may read as a field's Python name (``client_info``)."""
    if not isinstance(schema, dict) or not schema.keys() <= _KNOWN_WORDS:
        return False
    if "$ref" in schema:
        target = defs.get(str(schema["$ref"]).removeprefix("#/$defs/"))
        if target is None or not conforms(value, target, defs):
            return False
    if "anyOf" in schema and not any(conforms(value, branch, defs) for branch in schema["anyOf"]):
        return False
    if "enum" in schema and not any(
        type(value) is type(option) and value == option for option in schema["enum"]
    ):
        return False
    if "type" in schema and not _has_type(value, schema["type"]):
        return False
    if isinstance(value, list) and "items" in schema:
        return all(conforms(item, schema["items"], defs) for item in value)
    if isinstance(value, dict) and ("properties" in schema or "additionalProperties" in schema):
        return _object_conforms(value, schema, defs)
    return True


_KNOWN_WORDS = _ANNOTATIONS | {
    "$defs", "$ref", "anyOf", "enum", "type", "items", "properties", "required",
    "additionalProperties",
}  # fmt: skip


def _has_type(value: Any, name: Any) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    wanted = _JSON_TYPES.get(name) if isinstance(name, str) else None
    if wanted is bool or wanted is type(None):
        return type(value) is wanted
    return wanted is not None and isinstance(value, wanted) and not isinstance(value, bool)


def _object_conforms(value: dict[str, Any], schema: dict[str, Any], defs: dict[str, Any]) -> bool:
    properties = schema.get("properties", {})
    if any(name not in value for name in schema.get("required", ())):
        return False
    extra = schema.get("additionalProperties")
    for key, item in value.items():
        if key in properties:
            proven = conforms(item, properties[key], defs)
        elif extra is False or "_" in key:
            proven = False
        else:
            proven = not isinstance(extra, dict) or conforms(item, extra, defs)
        if not proven:
            return False
    return True


def serve_fast(
    wire: StdioWire, build_done: threading.Event, version: str, tools: FastTools | None = None
) -> tuple[list[str], list[Incoming | None]]:
    """Answer the handshake (and, with ``tools``, the first ``memory_context``) until the server
    is built or a message needs it; returns the lines to replay to the SDK and the messages it
    must read first, in order (``None``: the client closed stdin). Raises ``EOFError`` when the
    client closed stdin before anything needed the SDK."""
    try:
        return _serve_fast(wire, build_done, version, tools)
    finally:
        if tools is not None:
            tools.want_sdk()


def _serve_fast(
    wire: StdioWire, build_done: threading.Event, version: str, tools: FastTools | None
) -> tuple[list[str], list[Incoming | None]]:
    handshake = None if os.environ.get(DISABLE_ENV) == "0" else Handshake.load(version)
    initialize: dict[str, Any] | None = None
    initialized: dict[str, Any] | None = None
    revision: str | None = None
    held: deque[Incoming | None] = deque()  # what arrived while a call ran, in order
    call: _Call | None = None
    while True:
        if call is not None:  # a memory_context is being answered
            finished = call.done.wait(0.01)
            while True:  # what has arrived, a cancellation too, counts before the answer
                try:
                    item = wire.receive(timeout=0)
                except queue.Empty:
                    break
                if item is None:
                    held.append(item)
                elif _cancels(item, call.item.id):
                    call.cancelled = True  # the SDK never answers a cancelled request
                elif item.method == "ping" and item.is_request and plain_params(item.message):
                    _send(wire, {"jsonrpc": "2.0", "id": item.id, "result": {}})
                else:
                    held.append(item)  # answered (or handed over) once the call is
            if not finished:
                continue
            done_call, call = call, None
            if done_call.answer is None:  # the SDK answers it, then what waited
                return replay_lines(initialize, initialized), [done_call.item, *held]
            if not done_call.cancelled and handshake is not None:
                result = handshake.answer(done_call.answer)
                _send(wire, {"jsonrpc": "2.0", "id": done_call.item.id, "result": result})
            if tools is not None:
                tools.want_sdk()  # the first answer is out (or dropped): the SDK may load
            if done_call.answer.after_sent is not None:
                done_call.answer.after_sent()
            continue
        if held:
            item = held.popleft()
        else:
            try:
                item = wire.receive(timeout=0.05)
            except queue.Empty:
                if build_done.is_set():
                    return replay_lines(initialize, initialized), []
                continue
        if item is None:
            raise EOFError
        if handshake is None:
            return replay_lines(initialize, initialized), [item, *held]
        method, message = item.method, item.message
        if method == "initialize" and initialize is None and item.is_request:
            revision = handshake.negotiate(message)
            if revision is None:
                return replay_lines(initialize, initialized), [item, *held]
            initialize = message
            _send(wire, {"jsonrpc": "2.0", "id": item.id,
                         "result": handshake.result(revision, "initialize")})  # fmt: skip
        elif (
            method == "notifications/initialized" and initialize is not None and initialized is None
            and plain_params(message)
        ):  # fmt: skip
            initialized = message
        elif method == "ping" and item.is_request and plain_params(message):
            _send(wire, {"jsonrpc": "2.0", "id": item.id, "result": {}})
        elif (
            method == "tools/list" and item.is_request and revision is not None
            and initialized is not None and plain_params(message)
        ):  # fmt: skip
            _send(wire, {"jsonrpc": "2.0", "id": item.id,
                         "result": handshake.result(revision, "tools/list")})  # fmt: skip
        elif (
            method == "tools/call" and item.is_request and revision is not None
            and initialized is not None and tools is not None and context_call(message)
        ):  # fmt: skip
            call = _Call(item, tools.context)
        else:
            return replay_lines(initialize, initialized), [item, *held]


def context_call(message: dict[str, Any]) -> bool:
    """Whether a ``tools/call`` is one the fast path answers as the SDK would: ``memory_context``
    with no arguments (absent or ``{}``) and nothing else in ``params`` (no ``_meta``: a
    progress token, a task, a key the SDK might read)."""
    params = message.get("params")
    return (
        plain_envelope(message)
        and isinstance(params, dict)
        and params.keys() <= {"name", "arguments"}
        and params.get("name") == CONTEXT_TOOL
        and type(params.get("arguments", {})) is dict
        and not params.get("arguments")
    )


class _Call:
    """One tool call answered on a thread of its own while the wire is still read."""

    def __init__(self, item: Incoming, run: Callable[[], ToolAnswer]) -> None:
        self.item = item
        self.answer: ToolAnswer | None = None  # None once done: hand the request over
        self.cancelled = False
        self.done = threading.Event()
        threading.Thread(target=self._run, args=(run,), name="fast-call", daemon=True).start()

    def _run(self, run: Callable[[], ToolAnswer]) -> None:
        try:
            self.answer = run()
        except Exception:  # anything but a tool error the service named: the SDK answers
            self.answer = None
        finally:
            self.done.set()


def _correlated(value: Any) -> RequestId | None:
    """An id as the SDK correlates it: a string or integer (not a boolean), ``"7"`` as ``7``."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def _cancels(item: Incoming, request_id: RequestId | None) -> bool:
    """Whether ``item`` is a ``notifications/cancelled`` naming ``request_id``."""
    params = item.message.get("params")
    return (
        item.method == "notifications/cancelled"
        and "id" not in item.message
        and plain_envelope(item.message)
        and isinstance(params, dict)
        and request_id is not None
        and _correlated(params.get("requestId")) == _correlated(request_id)
    )


def _send(wire: StdioWire, message: dict[str, Any]) -> None:
    try:
        wire.send(message)
    except ClientGone:
        wire.mark_gone()


def replay_lines(
    initialize: dict[str, Any] | None, initialized: dict[str, Any] | None
) -> list[str]:
    """The lines that bring a fresh SDK session to where the fast path's client is."""
    lines = []
    if initialize is not None:
        lines.append(json.dumps({**initialize, "id": REPLAYED_ID}, ensure_ascii=False))
    if initialized is not None:
        lines.append(json.dumps(initialized, ensure_ascii=False))
    return lines


def record(command: list[str], cwd: Path) -> dict[str, Any]:
    """What the SDK server (fast path off) answers to the handshake, per revision, and how it
    writes a tool's answer and a tool error (a ``memory_context`` in an empty brain, and one
    with an argument it does not take), in a brain made in ``cwd``."""
    import subprocess

    import mcp_types.version as versions

    from ._meta import package_version

    initialize: dict[str, Any] | None = None
    tools_list: dict[str, Any] | None = None
    tools_call: dict[str, Any] | None = None
    repo = _empty_brain(cwd / "repo")
    env = {**os.environ, DISABLE_ENV: "0", "TEAMBRAIN_HOME": str(cwd / "home")}
    for revision in versions.HANDSHAKE_PROTOCOL_VERSIONS:
        lines = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": revision, "capabilities": {},
                "clientInfo": {"name": "record", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": CONTEXT_TOOL, "arguments": {}}},
            {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
             "params": {"name": CONTEXT_TOOL, "arguments": {"record": 1}}},
        ]  # fmt: skip
        done = subprocess.run(
            command, input="".join(json.dumps(line) + "\n" for line in lines), cwd=repo,
            env=env, capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        # Messages end at "\n" alone: splitlines() would also cut one at a U+0085 or U+2028
        # inside a string (an unknown tool's name is echoed back as it was sent).
        messages = (json.loads(line) for line in done.stdout.split("\n") if line.strip())
        replies = {m["id"]: m for m in messages if "id" in m}
        init = replies[1]["result"]
        init["serverInfo"]["version"] = VERSION_MARK
        assert init["protocolVersion"] == revision, (revision, init["protocolVersion"])
        init["protocolVersion"] = PROTOCOL_MARK
        assert package_version() not in json.dumps(init) + json.dumps(replies[2]["result"])
        calls = {"result": _marked(replies[3]["result"]), "error": _marked(replies[4]["result"])}
        assert calls["result"].get("isError") is not True, replies[3]
        assert calls["error"].get("isError") is True, replies[4]
        # One answer for every revision: the format holds no per-revision differences, so a
        # SDK that answers differently per revision must be recorded in another format.
        assert initialize in (None, init), f"initialize differs for {revision}"
        assert tools_list in (None, replies[2]["result"]), f"tools/list differs for {revision}"
        assert tools_call in (None, calls), f"tools/call differs for {revision}"
        initialize, tools_list, tools_call = init, replies[2]["result"], calls
    return {
        "recordedWith": installed_versions(),
        "latest": versions.LATEST_HANDSHAKE_VERSION,
        "revisions": list(versions.HANDSHAKE_PROTOCOL_VERSIONS),
        "initialize": initialize,
        "toolsList": tools_list,
        "toolsCall": tools_call,
        "initializeParams": params_schema(),
    }


def _marked(result: dict[str, Any]) -> dict[str, Any]:
    """A tool's answer with its one text block and its structured result marked: the shape the
    fast path fills (anything else in it, the SDK's, is kept as it was)."""
    content = result.get("content")
    assert isinstance(content, list) and len(content) == 1, result
    assert content[0].keys() == {"type", "text"} and content[0]["type"] == "text", result
    marked = {**result, "content": [{**content[0], "text": TEXT_MARK}]}
    if "structuredContent" in result:
        assert isinstance(result["structuredContent"], dict), result
        marked["structuredContent"] = {STRUCTURED_MARK: True}
    return marked


def _empty_brain(repo: Path) -> Path:
    """A git repository holding an empty brain (keywords only), as ``tb init`` makes one."""
    from teambrain_kit.git import run_git
    from teambrain_kit.paths import BrainLayout
    from teambrain_schema import BRAIN_YAML_TEMPLATE, MEMORY_CLASSES

    layout = BrainLayout(repo)
    for memory_class in MEMORY_CLASSES:
        layout.class_dir(memory_class).mkdir(parents=True, exist_ok=True)
    layout.retired.mkdir(parents=True, exist_ok=True)
    layout.brain_yaml.write_text(
        BRAIN_YAML_TEMPLATE.replace("    provider: local\n", "    provider: none\n"), "utf-8"
    )
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=record", "-c", "user.email=record@example.invalid",
                  "commit", "-qm", "brain"]):  # fmt: skip
        run_git(args, cwd=repo)
    return repo


def params_schema() -> dict[str, Any]:
    """The JSON Schema of the SDK's ``initialize`` parameters, without its annotations."""
    from mcp_types import InitializeRequestParams

    def strip(node: Any) -> Any:
        if isinstance(node, list):
            return [strip(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for word, item in node.items():
            if word in _ANNOTATIONS:
                continue
            if word in ("properties", "$defs"):
                out[word] = {name: strip(sub) for name, sub in item.items()}
            elif word in ("enum", "required"):
                out[word] = item
            else:
                out[word] = strip(item)
        return out

    # The model the SDK's runner validates ``initialize`` with (a test checks it is the same).
    schema = InitializeRequestParams.model_json_schema(by_alias=True, mode="validation")
    return dict(strip(schema))


def main() -> None:
    """``python -m teambrain_mcp_server._fastpath --write``: record ``_handshake.json``."""
    import shutil
    import sys
    import tempfile

    here = Path(sys.executable).parent / "teambrain-mcp-server"
    command = [
        str(here)
        if here.exists()
        else shutil.which("teambrain-mcp-server") or "teambrain-mcp-server"
    ]
    with tempfile.TemporaryDirectory() as scratch:
        data = record(command, Path(scratch))
    text = json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if "--write" in sys.argv:
        SNAPSHOT.write_text(text, "utf-8")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
