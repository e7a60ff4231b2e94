"""What real model servers do that scripted stand-ins did not, each against the real SDKs
over a mocked transport (only the wire is fake):

- keep-alive comments (OpenAI-compatible servers, OpenRouter) and ``ping`` events (Anthropic's
  Messages API) that never end while no token comes;
- an error sent as an event in the middle of a stream (vLLM's serving_chat sends
  ``data: {"error": …}``; llama.cpp's server an ``error`` event; Anthropic an ``error`` event
  with ``overloaded_error``) and an error object in the body of an HTTP 200;
- bytes that are not UTF-8, or a raw NUL, in a streamed answer;
- a server that refuses the way the answer's shape was asked for (llama-cpp-python refuses
  ``json_schema``, LM Studio ``json_object``, llama-server without ``--jinja`` tools);
- ``distill.base_url`` written as the server's root (``http://localhost:11434``): Ollama,
  vLLM and LM Studio answer only under ``/v1``;
- a server that does not stream and sends a 10 MB answer in one piece;
- a reasoning model that sends only ``reasoning_content``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from teambrain_distill import ModelOutputInvalid, ModelTimedOut, ModelUnavailable
from test_drivers_http import KEY, Answer, Clock, Wire, make_llm

GOOD = json.dumps({"title": "ok", "count": 1})


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_LLM_KEY", KEY)


def _openai_chunk(content: str | None = None, finish: str | None = None) -> bytes:
    delta = {} if content is None else {"content": content}
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
    return f"data: {json.dumps(chunk)}\n\n".encode()


def _anthropic_event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _anthropic_head() -> Iterator[bytes]:
    yield _anthropic_event("message_start", {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1}}})  # fmt: skip
    yield _anthropic_event("content_block_start", {"type": "content_block_start", "index": 0,
                           "content_block": {"type": "text", "text": ""}})  # fmt: skip


def _text_delta(text: str) -> bytes:
    return _anthropic_event("content_block_delta", {"type": "content_block_delta", "index": 0,
                            "delta": {"type": "text_delta", "text": text}})  # fmt: skip


class Streamed:
    """A wire answering every request with the byte chunks ``make()`` yields; records the
    requests and whether each stream was closed."""

    def __init__(self, make: Any) -> None:
        self.make = make
        self.requests: list[httpx2.Request] = []
        self.closed: list[bool] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        index = len(self.closed)
        self.closed.append(False)
        wire, chunks = self, self.make()

        class Tracked(httpx2.SyncByteStream):
            def __iter__(self) -> Iterator[bytes]:
                yield from chunks

            def close(self) -> None:
                wire.closed[index] = True

        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Tracked())


@pytest.mark.parametrize("driver", ["openai", "ollama", "anthropic"])
def test_keep_alives_without_a_token_still_meet_the_deadline(driver: str) -> None:
    """The SDKs swallow keep-alive comments and pings, so no event ever reached the check:
    the deadline is now checked for every piece of bytes received."""

    def keep_alive() -> Iterator[bytes]:
        if driver == "anthropic":
            yield from _anthropic_head()
        for _ in range(200):  # bounded here; a real server goes on for ever
            yield _anthropic_event("ping", {"type": "ping"}) if driver == "anthropic" else (
                b": keep-alive\n\n")  # fmt: skip

    wire = Streamed(keep_alive)
    llm = make_llm(driver, wire, clock=Clock(1.0), timeout_s=7.5, max_retries=2)
    with pytest.raises(ModelTimedOut, match=r"no complete answer within 7.5s"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(wire.requests) == 1 and wire.closed == [True]


@pytest.mark.parametrize("driver", ["openai", "anthropic"])
def test_an_error_event_mid_stream_is_the_servers_error_re_sent(driver: str) -> None:
    def failing() -> Iterator[bytes]:
        if driver == "anthropic":
            yield from _anthropic_head()
            yield _text_delta('{"ti')
            yield _anthropic_event("error", {"type": "error", "error": {
                "type": "overloaded_error", "message": "Overloaded"}})  # fmt: skip
        else:
            yield _openai_chunk('{"ti')
            yield b'data: {"error": {"message": "Overloaded", "type": "server_error", "code": 503}}\n\n'
            yield b"data: [DONE]\n\n"

    wire = Streamed(failing)
    llm = make_llm(driver, wire, max_retries=1)
    with pytest.raises(
        ModelUnavailable,
        match=r"the server sent an error instead of an answer: Overloaded \(after 1 re-send",
    ):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(wire.requests) == 2  # a server error: re-sent once, as distill.max_retries says


@pytest.mark.parametrize(
    "body",
    [
        {"error": {"message": "model is loading", "type": "server_error"}},
        {"error": "model is loading"},
        {"type": "error", "error": {"type": "api_error", "message": "model is loading"}},
    ],
)
@pytest.mark.parametrize("driver", ["openai", "anthropic"])
def test_an_error_in_an_http_200_body_is_named_not_read_as_an_empty_answer(
    driver: str, body: dict[str, Any]
) -> None:
    calls: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        calls.append(request)
        return httpx2.Response(200, json=body)

    llm = make_llm(driver, answer, max_retries=1)
    with pytest.raises(ModelUnavailable, match=r"instead of an answer: model is loading"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(calls) == 2


@pytest.mark.parametrize("driver", ["openai", "anthropic"])
def test_bytes_that_are_not_utf8_are_a_bad_character_not_an_outage(driver: str) -> None:
    text = '{"title": "ok\xff", "count": 1}'

    def answer() -> Iterator[bytes]:
        if driver == "anthropic":
            yield from _anthropic_head()
            chunk = _text_delta(text.replace("\xff", "@@"))
        else:
            chunk = _openai_chunk(text.replace("\xff", "@@"))
        yield chunk.replace(b"@@", b"\xff")  # a lone byte no UTF-8 text has
        yield _openai_chunk(finish="stop") if driver != "anthropic" else _anthropic_event(
            "message_stop", {"type": "message_stop"})  # fmt: skip

    llm = make_llm(driver, Streamed(answer))
    assert llm.complete(system="s", prompt="p", schema=Answer).title == "ok\ufffd"


def test_an_event_that_is_not_json_is_an_invalid_answer_not_an_outage() -> None:
    def answer() -> Iterator[bytes]:
        yield _openai_chunk('{"title": "ok')
        yield b'data: {"choices": [{"index": 0, "delta": {"content": "\x00"}}]}\n\n'

    wire = Streamed(answer)
    llm = make_llm("openai", wire, max_retries=1)
    with pytest.raises(ModelOutputInvalid, match=r"the server's stream could not be read"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(wire.requests) == 2  # re-asked, and the run may go on: not an outage


class RefusesShapes(Wire):
    """Refuses (HTTP 400, its own words) every request asking for a shape in ``refused``."""

    def __init__(self, driver: str, refused: set[str], message: str, status: int = 400) -> None:
        super().__init__(driver, [GOOD])
        self.refused = refused
        self.message = message
        self.refusal = status
        self.shapes: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        shape = "tools" if "tools" in body else (body.get("response_format") or {}).get(
            "type", "prompt")  # fmt: skip
        self.shapes.append(shape)
        if shape in self.refused:
            self.requests.append(request)
            return httpx2.Response(self.refusal, json={"error": {"message": self.message,
                                                        "type": "invalid_request_error"}})  # fmt: skip
        return super().__call__(request)


@pytest.mark.parametrize(
    ("driver", "configured", "refused", "message", "shapes", "status"),
    [
        # llama-cpp-python 0.3: json_schema is not a response_format it knows (its request
        # validation error, sent as HTTP 500)
        ("openai", "json_schema", {"json_schema"},
         "1 validation error: {'loc': ('body', 'response_format', 'type'), 'msg': \"Input "
         "should be 'text' or 'json_object'\"}",
         ["json_schema", "json_object", "json_object"], 500),
        # LM Studio: only json_schema
        ("openai", "json_object", {"json_object"}, "'response_format.type' must be 'json_schema'",
         ["json_object", "prompt", "prompt"], 400),
        # llama-server started without --jinja; an Ollama model without tool support
        ("openai", "auto", {"tools"}, "tools param requires --jinja flag",
         ["tools", "json_schema", "json_schema"], 400),
        ("ollama", "auto", {"json_schema"}, "invalid format: json_schema is not supported",
         ["json_schema", "json_object", "json_object"], 422),
    ],
)  # fmt: skip
def test_a_refused_shape_falls_back_to_a_weaker_one_for_the_run(
    driver: str, configured: str, refused: set[str], message: str, shapes: list[str], status: int
) -> None:
    wire = RefusesShapes(driver, refused, message, status)
    llm = make_llm(driver, wire, structured_output=configured)
    assert llm.complete(system="s", prompt="p", schema=Answer).title == "ok"
    assert llm.complete(system="s", prompt="p", schema=Answer).title == "ok"
    assert wire.shapes == shapes  # the refused shape is asked once, not once a session
    [note] = llm.notes
    assert f"refused distill.structured_output {shapes[0]}" in note and message in note
    assert f"set distill.structured_output: {shapes[1]}" in note


def test_a_refusal_about_something_else_does_not_change_the_shape() -> None:
    wire = RefusesShapes("openai", {"tools"}, "the prompt is longer than the context window")
    llm = make_llm("openai", wire, max_retries=0)
    with pytest.raises(Exception, match=r"HTTP 400: the prompt is longer"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert wire.shapes == ["tools"] and llm.notes == []


@pytest.mark.parametrize(
    ("driver", "base_url", "path"),
    [
        ("ollama", "http://localhost:11434", "/v1/chat/completions"),
        ("ollama", "http://localhost:11434/", "/v1/chat/completions"),
        ("ollama", "http://localhost:11434/api", "/v1/chat/completions"),
        ("ollama", "http://localhost:11434/v1", "/v1/chat/completions"),
        ("openai", "http://127.0.0.1:8000", "/v1/chat/completions"),
        ("openai", "http://127.0.0.1:8000/v1/", "/v1/chat/completions"),
        ("openai", "https://example.test/api/openai/v1", "/api/openai/v1/chat/completions"),
    ],
)
def test_a_base_url_written_as_the_servers_root_reaches_its_v1(
    driver: str, base_url: str, path: str
) -> None:
    wire = Wire(driver, [GOOD])
    make_llm(driver, wire, base_url=base_url).complete(system="s", prompt="p", schema=Answer)
    assert wire.requests[0].url.path == path


def test_api_root_keeps_a_url_with_a_path() -> None:
    from teambrain_distill._openai import api_root

    assert api_root("http://h:1") == "http://h:1/v1"
    assert api_root("http://h:1/openai/v1") == "http://h:1/openai/v1"


def test_a_huge_answer_in_one_piece_counts_as_cut_off() -> None:
    def whole(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": "A" * 1_000_000}}]})  # fmt: skip

    llm = make_llm("openai", whole, max_output_tokens=256, max_retries=0)
    with pytest.raises(ModelOutputInvalid, match=r"cut off at 256 tokens"):
        llm.complete(system="s", prompt="p", schema=Answer)


def test_an_answer_of_reasoning_only_says_so() -> None:
    def reasoning() -> Iterator[bytes]:
        chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                 "choices": [{"index": 0, "finish_reason": None,
                              "delta": {"content": "", "reasoning_content": "thinking {x}"}}]}  # fmt: skip
        yield f"data: {json.dumps(chunk)}\n\n".encode()
        yield _openai_chunk(finish="stop")

    llm = make_llm("openai", Streamed(reasoning), max_retries=0)
    with pytest.raises(ModelOutputInvalid, match=r"only its reasoning \(12 characters"):
        llm.complete(system="s", prompt="p", schema=Answer)


def test_a_prompt_the_servers_context_window_cut_is_noted_once() -> None:
    """Ollama's /v1 keeps the last num_ctx tokens of a longer prompt and says nothing; the
    usage it reports shows it."""

    def cut(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": GOOD}}],
            "usage": {"prompt_tokens": 2048, "completion_tokens": 9}})  # fmt: skip

    llm = make_llm("ollama", cut)
    for _ in range(2):
        llm.complete(system="s", prompt="word " * 8_000, schema=Answer)
    [note] = llm.notes
    assert "read 2048 prompt tokens of about" in note and "num_ctx 8192" in note
    small = make_llm("ollama", cut)
    small.complete(system="s", prompt="word " * 1_000, schema=Answer)
    assert small.notes == []


@pytest.mark.parametrize(
    ("base_url", "path"),
    [
        ("http://127.0.0.1:8080", "/v1/messages"),
        ("http://127.0.0.1:8080/v1", "/v1/messages"),
        ("http://127.0.0.1:8080/v1/", "/v1/messages"),
        ("https://gateway.test/anthropic/v1", "/anthropic/v1/messages"),
    ],
)
def test_an_anthropic_base_url_with_v1_does_not_double_it(base_url: str, path: str) -> None:
    """The SDK adds /v1/messages itself; a base_url copied from the same server's
    OpenAI-compatible endpoint (…/v1) reached /v1/v1/messages, a 404."""
    wire = Wire("anthropic", [GOOD])
    make_llm("anthropic", wire, base_url=base_url).complete(system="s", prompt="p", schema=Answer)
    assert wire.requests[0].url.path == path
