"""The stdio wire's reading of a line: a JSON-RPC message, or the error reply it gets."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_mcp_server._stdio import (
    INVALID_REQUEST,
    MAX_DEPTH,
    PARSE_ERROR,
    Incoming,
    Refusal,
    StdioWire,
    parse_message,
)

PING = b'{"jsonrpc":"2.0","id":7,"method":"ping"}'


def _nested(depth: int) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":'
        + b"[" * depth
        + b"]" * depth
        + b"}}"
    )


@pytest.mark.parametrize(
    ("line", "code", "request_id"),
    [
        (b"{not json", PARSE_ERROR, None),
        (b"[" * 100_000 + b"]" * 100_000, PARSE_ERROR, None),
        (_nested(MAX_DEPTH), PARSE_ERROR, 3),
        (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"\\ud800"}}', PARSE_ERROR, 5),
        (b'{"jsonrpc":"2.0","id":6,"method":"ping","params":{"\\udfff":1}}', PARSE_ERROR, 6),
        (b'{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":"\xff"}}', PARSE_ERROR, 8),
        (b"\xfe\xff", PARSE_ERROR, None),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}', PARSE_ERROR, None),
        (b"[]", INVALID_REQUEST, None),
        (b"[" + PING + b"]", INVALID_REQUEST, None),
        (b"42", INVALID_REQUEST, None),
        (b'"ping"', INVALID_REQUEST, None),
        (b"null", INVALID_REQUEST, None),
        (b"{}", INVALID_REQUEST, None),
        (b'{"jsonrpc":"1.0","id":3,"method":"ping"}', INVALID_REQUEST, 3),
        (b'{"id":3,"method":"ping"}', INVALID_REQUEST, 3),
        (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":"a","method":4}', INVALID_REQUEST, "a"),
        (b'{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}', INVALID_REQUEST, 4),
        (b'{"jsonrpc":"2.0","id":4}', INVALID_REQUEST, 4),
        (b'{"jsonrpc":"2.0","result":{}}', INVALID_REQUEST, None),
    ],
)
def test_a_line_that_is_no_message_gets_the_json_rpc_error(
    line: bytes, code: int, request_id: Any
) -> None:
    outcome = parse_message(line)
    assert isinstance(outcome, Refusal), outcome
    assert (outcome.code, outcome.id) == (code, request_id)
    reply = outcome.reply()
    assert json.loads(json.dumps(reply)) == reply
    assert reply["error"]["message"].startswith(
        "Parse error" if code == PARSE_ERROR else "Invalid Request"
    )


@pytest.mark.parametrize(
    "line",
    [
        PING,
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b'{"jsonrpc":"2.0","id":"x","result":{}}',
        b'{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"no"}}',
        b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"\\ud83d\\ude00 \xc3\xa9"}}',
        _nested(MAX_DEPTH - 3),
    ],
)
def test_a_message_is_passed_on(line: bytes) -> None:
    outcome = parse_message(line + b"\r\n")
    assert isinstance(outcome, Incoming)
    assert outcome.message == json.loads(line)


def test_a_blank_line_is_ignored() -> None:
    assert parse_message(b"  \r\n") is None


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_are_a_message_a_refusal_or_blank(line: bytes) -> None:
    outcome = parse_message(line)
    if isinstance(outcome, Refusal):
        json.dumps(outcome.reply(), ensure_ascii=False).encode("utf-8")  # always writable
    else:
        assert outcome is None or isinstance(outcome.message, dict)


@settings(max_examples=300, deadline=None)
@given(
    json_values,
    st.one_of(st.none(), st.integers(), st.text(max_size=5)),
    st.sampled_from(["ping", "tools/list", None]),
)
def test_any_json_is_passed_on_only_as_a_json_rpc_envelope(
    params: Any, request_id: Any, method: str | None
) -> None:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    if method is not None:
        message["method"] = method
        message["params"] = params
    else:
        message["result"] = params
    outcome = parse_message(json.dumps(message).encode())
    envelope_ok = request_id is not None and (method is None or isinstance(params, dict))
    assert isinstance(outcome, Incoming) is envelope_ok, outcome
    if isinstance(outcome, Refusal):
        assert outcome.code == INVALID_REQUEST
        assert outcome.id in (None, request_id)


def test_the_wire_answers_a_refused_line_and_passes_on_the_next() -> None:
    read_in, write_in = os.pipe()
    read_out, write_out = os.pipe()
    wire = StdioWire(read_in, write_out, max_message_bytes=1000)
    wire.start()
    os.write(write_in, b"{oops\n" + b"[" * 5000 + b"\n" + PING + b"\n")
    os.close(write_in)
    received = wire.receive(timeout=30)
    assert received is not None and received.message["id"] == 7
    assert wire.receive(timeout=30) is None  # end of input
    with os.fdopen(read_out, "rb") as out:
        os.close(write_out)
        replies = [json.loads(line) for line in out.read().splitlines()]
    assert [(r["id"], r["error"]["code"]) for r in replies] == [
        (None, PARSE_ERROR),
        (None, INVALID_REQUEST),  # larger than the wire takes
    ]
