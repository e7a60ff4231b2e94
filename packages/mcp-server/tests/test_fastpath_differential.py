"""The fast path against the SDK: generated JSON-RPC conversations get the same answers from
both, and closing stdin ends the conversation whatever was in flight (a cancelled call too).

Both run in this process over pipes, exactly as ``tb serve`` runs them over stdio: the fast
path first (``serve_fast``, with the server's build never finishing, so it answers all it can),
then the SDK's server (``serve_on_wire``) from where the fast path handed over."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st
from teambrain_mcp_server._fastpath import DISABLE_ENV, SNAPSHOT, conforms, serve_fast
from teambrain_mcp_server._handover import serve_on_wire
from teambrain_mcp_server._meta import package_version
from teambrain_mcp_server._server import TeambrainServer, build_server
from teambrain_mcp_server._stdio import StdioWire

END_S = 30  # a bound against hanging forever, not a timing assertion


def converse(server: TeambrainServer, lines: list[str], *, fast: bool) -> list[dict[str, Any]]:
    """Send ``lines`` and close stdin; the replies, once the conversation ended."""
    read_in, write_in = os.pipe()
    read_out, write_out = os.pipe()
    wire = StdioWire(read_in, write_out)
    wire.start()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            previous = os.environ.get(DISABLE_ENV)
            os.environ[DISABLE_ENV] = "1" if fast else "0"
            try:
                replay, pending = serve_fast(wire, threading.Event(), package_version())
            finally:
                if previous is None:
                    del os.environ[DISABLE_ENV]
                else:
                    os.environ[DISABLE_ENV] = previous
            serve_on_wire(server, wire, replay, pending)
        except EOFError:  # stdin closed before anything needed the SDK: tb serve exits 0
            pass
        except BaseException as exc:
            failure.append(exc)

    # stdout is read while the conversation runs, as a client does: a pipe holds 64 KiB, and a
    # few tools/list answers fill it, so reading only at the end would block the server's write.
    received: list[bytes] = []

    def drain() -> None:
        with os.fdopen(read_out, "rb") as stdout:
            received.append(stdout.read())

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    conversation = threading.Thread(target=run, daemon=True)
    conversation.start()
    with os.fdopen(write_in, "wb") as stdin:
        stdin.write("".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass"))
    conversation.join(END_S)
    assert not conversation.is_alive(), f"still serving {END_S} s after stdin closed: {lines}"
    os.close(write_out)
    reader.join(END_S)
    assert not reader.is_alive(), "stdout still open after the conversation ended"
    out = received[0].decode("utf-8")
    os.close(read_in)
    assert not failure, failure
    return [json.loads(line) for line in out.split("\n") if line.strip()]


def canonical(replies: list[dict[str, Any]]) -> list[str]:
    """Replies in a stable order (the SDK answers concurrent requests in any order)."""
    return sorted(json.dumps(reply, sort_keys=True) for reply in replies)


def assert_same_answers(
    conversation: list[dict[str, Any]], fast: list[dict[str, Any]], sdk: list[dict[str, Any]]
) -> None:
    """The same replies from both. A request the conversation cancels may be answered or not,
    by either (MCP: a cancellation races the answer, and the client ignores a late one): the
    fast path answers what it can at once, the SDK's server drops a request whose cancellation
    it read first. Those replies are compared where both sides gave them."""
    cancelled = {
        json.dumps(message["params"].get("requestId"))
        for message in conversation
        if message.get("method") == "notifications/cancelled"
        and isinstance(message.get("params"), dict)
    }

    def split(replies: list[dict[str, Any]]) -> tuple[list[str], dict[str, set[str]]]:
        settled = canonical([r for r in replies if json.dumps(r.get("id")) not in cancelled])
        racing: dict[str, set[str]] = {}
        for reply in replies:
            if json.dumps(reply.get("id")) in cancelled:
                racing.setdefault(json.dumps(reply.get("id")), set()).update(canonical([reply]))
        return settled, racing

    (fast_settled, fast_racing), (sdk_settled, sdk_racing) = split(fast), split(sdk)
    lines = [json.dumps(message) for message in conversation]
    assert fast_settled == sdk_settled, lines
    for rid in fast_racing.keys() & sdk_racing.keys():
        one, other = fast_racing[rid], sdk_racing[rid]
        assert one <= other or other <= one, (rid, one, other, lines)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TeambrainServer]:
    """One SDK server on a repository with no brain: the handshake needs none."""
    repo = tmp_path_factory.mktemp("repo")
    (repo / ".git").mkdir()
    yield build_server(repo, heartbeat=False)


# -- generated conversations ----------------------------------------------------------------

json_leaf = st.none() | st.booleans() | st.integers(-3, 2**64) | st.text(max_size=6)
json_value = st.recursive(
    json_leaf | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)  # fmt: skip
# Names a client might send, the SDK's field names in either spelling, and anything else.
keys = st.sampled_from([
    "roots", "sampling", "elicitation", "experimental", "extensions", "tasks", "listChanged",
    "list_changed", "context", "tools", "form", "url", "name", "version", "title",
    "description", "websiteUrl", "website_url", "icons", "src", "mimeType", "sizes", "theme",
    "protocolVersion", "protocol_version", "capabilities", "clientInfo", "client_info", "_meta",
    "progressToken", "list", "cancel", "requests", "create", "createMessage",
]) | st.text(max_size=8)  # fmt: skip

capability = st.fixed_dictionaries({}, optional={
    "listChanged": st.booleans() | json_value, "context": st.just({}), "tools": st.just({}),
    "form": st.just({}), "url": st.just({}),
})  # fmt: skip
icon = st.fixed_dictionaries(
    {"src": st.text(max_size=8)},
    optional={"mimeType": st.text(max_size=5) | st.none(), "sizes": st.lists(st.text(max_size=5)),
              "theme": st.sampled_from(["light", "dark", "dim"])},
)  # fmt: skip
client_info = st.fixed_dictionaries(
    {"name": st.text(max_size=8), "version": st.text(max_size=8)},
    optional={"title": st.text(max_size=8) | st.none(), "description": st.text(max_size=8),
              "websiteUrl": st.text(max_size=8), "icons": st.lists(icon, max_size=2)},
)  # fmt: skip
capabilities = st.dictionaries(
    st.sampled_from(["roots", "sampling", "elicitation", "experimental", "extensions", "tasks"]),
    capability | st.dictionaries(st.text(max_size=5), st.just({}), max_size=2) | st.none(),
    max_size=4,
)  # fmt: skip
revisions = st.sampled_from(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25",
                             "2026-07-28", "1999-01-01", ""])  # fmt: skip


@st.composite
def damaged(draw: st.DrawFn, value: Any) -> Any:
    """``value`` as it is, or with one node replaced, one key added or one key dropped."""
    how = draw(st.sampled_from(["keep", "keep", "replace", "add", "drop"]))
    if how == "keep" or not isinstance(value, dict):
        return draw(json_value) if how == "replace" and not isinstance(value, dict) else value
    value = dict(value)
    if how == "add":
        value[draw(keys)] = draw(json_value | capability | client_info)
    elif how == "drop" and value:
        value.pop(draw(st.sampled_from(sorted(value))))
    else:
        key = draw(st.sampled_from(sorted(value))) if value else draw(keys)
        inner = value.get(key)
        value[key] = draw(damaged(inner)) if isinstance(inner, dict) else draw(json_value)
    return value


initialize_params = st.builds(
    lambda version, caps, info: {"protocolVersion": version, "capabilities": caps,
                                 "clientInfo": info},
    revisions | json_value, capabilities | json_value, client_info | json_value,
).flatmap(damaged)  # fmt: skip
ids = st.integers(0, 3) | st.sampled_from(["a", "1", ""])
no_params = st.sampled_from([None, {}]) | st.builds(
    dict, st.dictionaries(keys, json_value, max_size=2)
)


def request(method: str, params: Any, request_id: Any, extra: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, **extra}
    if params is not None:
        message["params"] = params
    return message


extras = st.just({}) | st.dictionaries(
    st.sampled_from(["x", "result", "error"]), json_value, max_size=1
)
message = st.one_of(
    st.builds(request, st.just("initialize"), initialize_params, ids, extras),
    st.builds(request, st.sampled_from(["ping", "tools/list", "resources/list", "nope"]),
              no_params, ids, extras),
    st.builds(lambda params: {k: v for k, v in
                              {"jsonrpc": "2.0", "method": "notifications/initialized",
                               "params": params}.items() if v is not None}, no_params),
    st.builds(lambda rid: {"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": rid}}, ids),
    st.builds(lambda rid: {"jsonrpc": "2.0", "id": rid, "result": {}}, ids),
)  # fmt: skip
GOOD_INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
conversations = st.lists(message, min_size=1, max_size=5) | st.lists(message, max_size=4).map(
    lambda rest: [GOOD_INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *rest]
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversation=conversations)
# Four tools/list answers are more than a pipe holds: found when the test read stdout only at
# the end, which blocked the server's write (a client reads as the server writes).
@example(
    conversation=[
        GOOD_INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *[{"jsonrpc": "2.0", "id": n, "method": "tools/list"} for n in range(5)],
    ]
)
# A request cancelled right after it is sent: the SDK's server answered it or not, by timing
# (1 run in 15 here), and the landing gate failed on the difference.
@example(
    conversation=[
        GOOD_INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
        {"jsonrpc": "2.0", "id": "", "method": "tools/list", "result": [], "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": ""}},
    ]
)
def test_the_fast_path_answers_what_the_sdk_answers(
    server: TeambrainServer, conversation: list[dict[str, Any]]
) -> None:
    lines = [json.dumps(line) for line in conversation]
    fast = converse(server, lines, fast=True)
    sdk = converse(server, lines, fast=False)
    assert_same_answers(conversation, fast, sdk)


@pytest.mark.parametrize(
    "params",
    [
        {"protocolVersion": "2025-06-18", "capabilities": [], "clientInfo": {"name": "t", "version": "1"}},
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": 7, "version": "1"}},
        {"protocolVersion": "2025-06-18", "capabilities": {"roots": {"listChanged": "maybe"}},
         "clientInfo": {"name": "t", "version": "1"}},
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
        {"protocolVersion": 2025, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    ],
    ids=["capabilities list", "numeric name", "listChanged text", "no version", "numeric revision"],
)  # fmt: skip
def test_an_initialize_the_sdk_rejects_gets_its_invalid_params_answer_from_the_fast_path_too(
    server: TeambrainServer, params: dict[str, Any]
) -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    fast = converse(server, [line], fast=True)
    assert [reply.get("error", {}).get("code") for reply in fast] == [-32602]
    assert fast == converse(server, [line], fast=False)


def test_the_recorded_schema_is_of_the_model_the_sdk_validates_initialize_with() -> None:
    import mcp_types
    from mcp.server import runner

    assert runner.InitializeRequestParams is mcp_types.InitializeRequestParams  # type: ignore[attr-defined]


def test_the_checker_proves_only_what_the_schema_says_in_strict_json_types() -> None:
    schema = json.loads(SNAPSHOT.read_text("utf-8"))["initializeParams"]
    defs = schema["$defs"]
    good = {"protocolVersion": "x", "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "n", "version": "1", "other": [1]}}  # fmt: skip
    assert conforms(good, schema, defs)
    for bad in (
        {**good, "capabilities": []},
        {**good, "capabilities": {"roots": {"listChanged": 1}}},
        {**good, "clientInfo": {"name": 1, "version": "1"}},
        {**good, "clientInfo": {"name": "n", "version": "1", "website_url": "u"}},
        {**good, "_meta": {"progressToken": True}},
    ):
        assert not conforms(bad, schema, defs), bad
    assert not conforms("x", {"type": "string", "pattern": "^x$"}, {})  # an unknown word


TOOL_CALL = {"jsonrpc": "2.0", "method": "tools/call",
             "params": {"name": "memory_feedback", "arguments": {"id": "01J0000000000000000000000A",
                                                                 "useful": True}}}  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    calls=st.lists(st.tuples(ids, st.booleans(), ids), min_size=1, max_size=4),
    fast=st.booleans(),
)
def test_closing_stdin_ends_the_conversation_whatever_was_cancelled(
    server: TeambrainServer, calls: list[tuple[Any, bool, Any]], fast: bool
) -> None:
    """Calls, some cancelled (by their own id, its text, or another id), then stdin closed:
    ``converse`` fails if the server still runs after that."""
    lines = [
        json.dumps(GOOD_INITIALIZE),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
    for call_id, cancel, cancelled_id in calls:
        lines.append(json.dumps({**TOOL_CALL, "id": call_id}))
        if cancel:
            lines.append(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                     "params": {"requestId": cancelled_id}}))  # fmt: skip
    replies = converse(server, lines, fast=fast)
    assert all("error" not in reply or reply["error"]["code"] != -32603 for reply in replies)
