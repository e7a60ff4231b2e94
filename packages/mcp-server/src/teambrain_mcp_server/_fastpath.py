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
from pathlib import Path
from typing import Any

from ._stdio import Incoming, StdioWire

SNAPSHOT = Path(__file__).with_name("_handshake.json")
REPLAYED_ID = "teambrain-fast-path-initialize"
VERSION_MARK = "{version}"
DISABLE_ENV = "TEAMBRAIN_FAST_PATH"  # "0": every message goes to the SDK (tests compare both)


# What the recording depends on besides this package: the SDK that answered and the contract
# whose models the tools' schemas come from. Another installed version of either (a
# range-compatible install, an editable one) may answer differently, so the SDK answers then.
RECORDED_WITH = ("mcp", "teambrain-schema")
PROTOCOL_MARK = "{protocol}"


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
    wire: StdioWire, build_done: threading.Event, version: str
) -> tuple[list[str], Incoming | None]:
    """Answer the handshake until the server is built or a message needs it; returns the lines
    to replay to the SDK and the message it must answer first (None: nothing pending).
    Raises ``EOFError`` when the client closed stdin before anything needed the SDK."""
    handshake = None if os.environ.get(DISABLE_ENV) == "0" else Handshake.load(version)
    initialize: dict[str, Any] | None = None
    initialized: dict[str, Any] | None = None
    revision: str | None = None
    while True:
        try:
            item = wire.receive(timeout=0.05)
        except queue.Empty:
            if build_done.is_set():
                return replay_lines(initialize, initialized), None
            continue
        if item is None:
            raise EOFError
        if handshake is None:
            return replay_lines(initialize, initialized), item
        method, message = item.method, item.message
        if method == "initialize" and initialize is None and item.is_request:
            revision = handshake.negotiate(message)
            if revision is None:
                return replay_lines(initialize, initialized), item
            initialize = message
            wire.send(
                {
                    "jsonrpc": "2.0",
                    "id": item.id,
                    "result": handshake.result(revision, "initialize"),
                }
            )
        elif (
            method == "notifications/initialized" and initialize is not None and initialized is None
            and plain_params(message)
        ):  # fmt: skip
            initialized = message
        elif method == "ping" and item.is_request and plain_params(message):
            wire.send({"jsonrpc": "2.0", "id": item.id, "result": {}})
        elif (
            method == "tools/list" and item.is_request and revision is not None
            and initialized is not None and plain_params(message)
        ):  # fmt: skip
            wire.send(
                {
                    "jsonrpc": "2.0",
                    "id": item.id,
                    "result": handshake.result(revision, "tools/list"),
                }
            )
        else:
            return replay_lines(initialize, initialized), item


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
    """What the SDK server (fast path off) answers to the handshake, per revision."""
    import subprocess

    import mcp_types.version as versions

    from ._meta import package_version

    initialize: dict[str, Any] | None = None
    tools_list: dict[str, Any] | None = None
    env = {**os.environ, DISABLE_ENV: "0"}
    for revision in versions.HANDSHAKE_PROTOCOL_VERSIONS:
        lines = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": revision, "capabilities": {},
                "clientInfo": {"name": "record", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ]  # fmt: skip
        done = subprocess.run(
            command, input="".join(json.dumps(line) + "\n" for line in lines), cwd=cwd,
            env=env, capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        replies = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
        init = replies[1]["result"]
        init["serverInfo"]["version"] = VERSION_MARK
        assert init["protocolVersion"] == revision, (revision, init["protocolVersion"])
        init["protocolVersion"] = PROTOCOL_MARK
        assert package_version() not in json.dumps(init) + json.dumps(replies[2]["result"])
        # One answer for every revision: the format holds no per-revision differences, so a
        # SDK that answers differently per revision must be recorded in another format.
        assert initialize in (None, init), f"initialize differs for {revision}"
        assert tools_list in (None, replies[2]["result"]), f"tools/list differs for {revision}"
        initialize, tools_list = init, replies[2]["result"]
    return {
        "recordedWith": installed_versions(),
        "latest": versions.LATEST_HANDSHAKE_VERSION,
        "revisions": list(versions.HANDSHAKE_PROTOCOL_VERSIONS),
        "initialize": initialize,
        "toolsList": tools_list,
        "initializeParams": params_schema(),
    }


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
