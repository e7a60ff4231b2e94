"""The anthropic, openai and ollama drivers against mocked HTTP transports: the real SDKs run
and stream; only the wire is fake (httpx2.MockTransport answering with server-sent events the
way each API streams). No test here touches the network."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from pydantic import BaseModel, Field, field_validator
from teambrain_distill import (
    LLM,
    CostBudget,
    CostCapReached,
    DriverNotInstalled,
    ModelOutputInvalid,
    ModelRejectedRequest,
    ModelTimedOut,
    ModelUnavailable,
)
from teambrain_distill._anthropic import AnthropicDriver
from teambrain_distill._openai import OllamaDriver, OpenAIDriver
from teambrain_distill._remote import MAX_QUOTED_ANSWER, PIECE_MARGIN
from teambrain_schema import DistillConfig, EnvironmentProblem

KEY = "sk-test-0123456789abcdef"
DRIVERS = ["anthropic", "openai", "ollama"]
CLASSES = {"anthropic": AnthropicDriver, "openai": OpenAIDriver, "ollama": OllamaDriver}


class Answer(BaseModel):
    title: str = Field(max_length=20)
    count: int

    @field_validator("title")
    @classmethod
    def _no_todo(cls, value: str) -> str:
        if "TODO" in value:
            raise ValueError("must not contain TODO")
        return value


@dataclass
class Out:
    """One scripted answer: its text, how the stream ends, and where the text goes (``tool``:
    the tool call's arguments; ``content``: the message text). ``endless`` keeps streaming
    ``text`` until the client closes the stream."""

    text: str
    finish: str = "stop"
    where: str = "tool"
    endless: bool = False


def _sse(events: Iterator[tuple[str | None, dict[str, Any]]]) -> Iterator[bytes]:
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        yield f"{head}data: {json.dumps(data)}\n\n".encode()


def _pieces(out: Out) -> Iterator[str]:
    size = 4
    while True:
        for start in range(0, len(out.text), size):
            yield out.text[start : start + size]
        if not out.endless:
            return


class Wire:
    """Records every request and answers with ``outputs`` in turn (the last one repeats), as
    a stream of server-sent events; knows whether each stream was closed and how much of it
    was read."""

    def __init__(self, driver: str, outputs: list[Any], status: int = 200) -> None:
        self.driver = driver
        self.outputs = outputs
        self.status = status
        self.requests: list[httpx2.Request] = []
        self.bodies: list[dict[str, Any]] = []
        self.closed: list[bool] = []
        self.pieces_sent: list[int] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        body = json.loads(request.content)
        self.bodies.append(body)
        if self.status != 200:
            return httpx2.Response(
                self.status, json={"error": {"message": "nope", "type": "error"}}
            )
        output = self.outputs[min(len(self.bodies), len(self.outputs)) - 1]
        if not isinstance(output, Out):
            output = Out(output if isinstance(output, str) else json.dumps(output))
        if self.driver != "anthropic" and "tools" not in body:
            output.where = "content"
        index = len(self.closed)
        self.closed.append(False)
        self.pieces_sent.append(0)
        events = (
            self._anthropic(body, output) if self.driver == "anthropic" else self._openai(output)
        )
        return httpx2.Response(
            200,
            headers={"content-type": "text/event-stream"},
            stream=self._tracked(index, _sse(events)),
        )

    def _tracked(self, index: int, chunks: Iterator[bytes]) -> httpx2.SyncByteStream:
        wire = self

        class Tracked(httpx2.SyncByteStream):
            def __iter__(self) -> Iterator[bytes]:
                for chunk in chunks:
                    wire.pieces_sent[index] += 1
                    yield chunk

            def close(self) -> None:  # what closing the connection is on a real wire
                wire.closed[index] = True

        return Tracked()

    def _openai(self, out: Out) -> Iterator[tuple[str | None, dict[str, Any]]]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip

        first: dict[str, Any] = {"role": "assistant", "content": ""}
        if out.where == "tool":
            first["tool_calls"] = [{"index": 0, "id": "call_1", "type": "function",
                                    "function": {"name": "Answer", "arguments": ""}}]  # fmt: skip
        yield None, chunk(first)
        for piece in _pieces(out):
            if out.where == "tool":
                yield None, chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
            else:
                yield None, chunk({"content": piece})
        yield None, chunk({}, out.finish)
        yield None, {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                     "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                              "total_tokens": 15}}  # fmt: skip

    def _anthropic(
        self, body: dict[str, Any], out: Out
    ) -> Iterator[tuple[str | None, dict[str, Any]]]:
        tool = body["tools"][0]["name"] if "tools" in body and out.where == "tool" else None
        yield "message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}  # fmt: skip
        block = {"type": "tool_use", "id": "tu_1", "name": tool, "input": {}} if tool else {
            "type": "text", "text": ""}  # fmt: skip
        yield "content_block_start", {"type": "content_block_start", "index": 0,
                                      "content_block": block}  # fmt: skip
        for piece in _pieces(out):
            delta = ({"type": "input_json_delta", "partial_json": piece} if tool
                     else {"type": "text_delta", "text": piece})  # fmt: skip
            yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": 0}
        reason = {"stop": "tool_use" if tool else "end_turn", "length": "max_tokens"}[out.finish]
        yield "message_delta", {"type": "message_delta",
                                "delta": {"stop_reason": reason, "stop_sequence": None},
                                "usage": {"output_tokens": 5}}  # fmt: skip
        yield "message_stop", {"type": "message_stop"}


def config_for(driver: str, **config: Any) -> DistillConfig:
    settings: dict[str, Any] = {"driver": driver, "model": f"{driver}-model", "max_retries": 2}
    if driver != "ollama":
        settings["api_key_env"] = "TEST_LLM_KEY"
    settings.update(config)
    return DistillConfig.model_validate(settings)


def make_llm(driver: str, wire: Any, *, clock: Any = None, **config: Any) -> LLM:
    cfg = config_for(driver, **config)
    options: dict[str, Any] = {"transport": httpx2.MockTransport(wire), "sleep": lambda _s: None}
    if clock is not None:
        options["clock"] = clock
    return LLM(cfg, driver=CLASSES[driver](cfg, **options), record=False)


def sent_text(body: dict[str, Any]) -> str:
    return json.dumps(body)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_LLM_KEY", KEY)


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_valid_answer_comes_back_validated(driver: str) -> None:
    wire = Wire(driver, [{"title": "ok", "count": 3}])
    llm = make_llm(driver, wire)
    answer = llm.complete(system="SYSTEM-TEXT", prompt="PROMPT-TEXT", schema=Answer)
    assert answer.model_dump() == {"title": "ok", "count": 3}
    [request] = wire.requests
    sent = sent_text(wire.bodies[0])
    assert "SYSTEM-TEXT" in sent and "PROMPT-TEXT" in sent
    assert wire.bodies[0]["model"] == f"{driver}-model"
    assert wire.bodies[0]["stream"] is True
    expected_host = {
        "anthropic": "api.anthropic.com",
        "openai": "api.openai.com",
        "ollama": "localhost",
    }
    assert request.url.host == expected_host[driver]
    if driver == "ollama":
        assert request.url.port == 11434 and request.url.path == "/v1/chat/completions"
    auth = request.headers.get("x-api-key") or request.headers.get("authorization", "")
    assert (KEY in auth) == (driver != "ollama")
    assert llm.budget.calls == 1 and llm.budget.input_tokens > 0
    assert wire.closed == [True]


# -- point 1: the output limit, in the words each server reads ------------------------------------
@pytest.mark.parametrize(
    ("driver", "base_url", "fields"),
    [
        ("openai", None, {"max_completion_tokens": 512}),
        ("openai", "https://example-resource.openai.azure.com/openai/v1", {"max_completion_tokens": 512}),
        ("openai", "http://127.0.0.1:8080/v1", {"max_tokens": 512, "max_completion_tokens": 512}),
        ("ollama", None, {"max_tokens": 512}),
        ("ollama", "http://gpu-box:11434/v1", {"max_tokens": 512}),
        ("anthropic", None, {"max_tokens": 512}),
        ("anthropic", "http://127.0.0.1:9000", {"max_tokens": 512}),
    ],
)  # fmt: skip
def test_the_output_limit_is_sent_as_the_server_reads_it(
    driver: str, base_url: str | None, fields: dict[str, int]
) -> None:
    wire = Wire(driver, [{"title": "ok", "count": 1}])
    make_llm(driver, wire, base_url=base_url, max_output_tokens=512).complete(
        system="s", prompt="p", schema=Answer
    )
    body = wire.bodies[0]
    sent = {k: body[k] for k in ("max_tokens", "max_completion_tokens") if k in body}
    assert sent == fields


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_server_that_ignores_the_limit_is_cut_off_and_closed(driver: str) -> None:
    """The answer never ends (a server that ignored max_tokens): the stream is closed soon
    after the limit, the answer counts as cut off, and it is re-asked, not waited for."""
    wire = Wire(driver, [Out('{"title": "aaaa', endless=True)])
    llm = make_llm(driver, wire, max_output_tokens=256, max_retries=1)
    with pytest.raises(ModelOutputInvalid, match=r"cut off at 256 tokens"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert wire.closed == [True, True]
    assert all(sent <= 256 + PIECE_MARGIN + 8 for sent in wire.pieces_sent)


# -- point 2: a cut-off answer is an invalid answer, re-asked, never an outage --------------------
@pytest.mark.parametrize("driver", DRIVERS)
def test_finish_reason_length_is_re_asked_shorter_then_invalid(driver: str) -> None:
    wire = Wire(driver, [Out('{"title": "ZZQ', finish="length")])
    llm = make_llm(driver, wire, max_retries=2)
    with pytest.raises(ModelOutputInvalid, match=r"after 3 attempt\(s\).*cut off") as caught:
        llm.complete(system="s", prompt="p", schema=Answer)
    assert caught.value.exit_code == 3
    assert len(wire.requests) == 3  # one answer and two re-asks, each one request
    reask = sent_text(wire.bodies[1])
    assert "cut off after" in reask and "ZZQ" not in reask  # the cut-off text is not echoed
    roles = [m["role"] for m in wire.bodies[1]["messages"]]
    assert roles in (["system", "user"], ["user"])  # turns still alternate


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_cut_off_answer_then_a_complete_one_succeeds(driver: str) -> None:
    wire = Wire(driver, [Out('{"title": "o', finish="length"), {"title": "ok", "count": 2}])
    llm = make_llm(driver, wire)
    assert llm.complete(system="s", prompt="p", schema=Answer).count == 2
    assert llm.last_guard is not None and llm.last_guard.attempts == 2
    assert llm.last_guard.resends == 0


# -- point 4: JSON in a fence or in prose is read ---------------------------------------------
@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"title": "ok", "count": 4}\n```',
        'Here is the answer:\n\n{"title": "ok", "count": 4}\n\nLet me know if you need more.',
        '<think>The user wants {a count}.</think>\n{"title": "ok", "count": 4}',
        'Sure! ```\n{"title": "ok", "count": 4}\n``` Done.',
    ],
)
def test_json_wrapped_in_prose_or_a_fence_is_read(driver: str, text: str) -> None:
    wire = Wire(driver, [Out(text, where="content")])
    llm = make_llm(driver, wire, structured_output="prompt")
    assert llm.complete(system="s", prompt="p", schema=Answer).count == 4
    assert len(wire.requests) == 1


@pytest.mark.parametrize("driver", ["openai", "ollama"])
def test_a_server_that_answers_in_text_despite_the_tool_is_read(driver: str) -> None:
    wire = Wire(driver, [Out('```json\n{"title": "ok", "count": 5}\n```', where="content")])
    llm = make_llm(driver, wire, structured_output="tools")
    assert llm.complete(system="s", prompt="p", schema=Answer).count == 5


# -- structured output modes and temperature ---------------------------------------------------
@pytest.mark.parametrize(
    ("driver", "mode", "expect"),
    [
        ("openai", "auto", "tools"),
        ("ollama", "auto", "json_schema"),
        ("openai", "json_schema", "json_schema"),
        ("openai", "json_object", "json_object"),
        ("openai", "prompt", "prompt"),
        ("anthropic", "auto", "tools"),
        ("anthropic", "prompt", "prompt"),
    ],
)
def test_each_structured_output_mode_asks_for_the_shape(
    driver: str, mode: str, expect: str
) -> None:
    wire = Wire(driver, [{"title": "ok", "count": 1}])
    make_llm(driver, wire, structured_output=mode).complete(system="SYS", prompt="p", schema=Answer)
    body = wire.bodies[0]
    system = body["system"] if driver == "anthropic" else body["messages"][0]["content"]
    assert ("tools" in body) == (expect == "tools")
    assert ("JSON Schema" in system) == (expect != "tools")  # the shape is always shown
    if expect == "json_schema":
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["schema"]["required"] == ["title", "count"]
    if expect == "json_object":
        assert body["response_format"]["type"] == "json_object"
    if expect == "prompt":
        assert "response_format" not in body and "tools" not in body


def test_anthropic_refuses_modes_it_has_not() -> None:
    with pytest.raises(ValueError, match="structured_output: json_schema is not an anthropic"):
        config_for("anthropic", structured_output="json_schema")


@pytest.mark.parametrize("driver", DRIVERS)
def test_temperature_is_sent_only_when_set(driver: str) -> None:
    wire = Wire(driver, [{"title": "ok", "count": 1}])
    make_llm(driver, wire, temperature=0.2).complete(system="s", prompt="p", schema=Answer)
    make_llm(driver, wire).complete(system="s", prompt="p", schema=Answer)
    assert wire.bodies[0]["temperature"] == 0.2
    assert "temperature" not in wire.bodies[1]


# -- re-asks and the cost cap ------------------------------------------------------------------
@pytest.mark.parametrize("driver", DRIVERS)
def test_invalid_output_is_re_asked_with_the_error(driver: str) -> None:
    wire = Wire(driver, [{"title": "TODO later", "count": 1}, {"title": "done", "count": 1}])
    llm = make_llm(driver, wire)
    assert llm.complete(system="s", prompt="p", schema=Answer).title == "done"
    assert len(wire.requests) == 2
    assert "must not contain TODO" in sent_text(wire.bodies[1])  # the re-ask says why
    assert llm.budget.calls == 2


@pytest.mark.parametrize("driver", DRIVERS)
def test_invalid_output_stops_at_the_retry_bound(driver: str) -> None:
    wire = Wire(driver, [{"title": "x" * 30, "count": 1}])
    llm = make_llm(driver, wire, max_retries=2)
    with pytest.raises(ModelOutputInvalid, match=r"after 3 attempt\(s\): title") as caught:
        llm.complete(system="s", prompt="p", schema=Answer)
    assert caught.value.attempts == 3 and caught.value.exit_code == 3
    assert len(wire.requests) == 3


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_re_ask_the_budget_cannot_pay_for_is_not_sent(driver: str) -> None:
    wire = Wire(driver, [{"title": "x" * 30, "count": 1}])
    llm = make_llm(driver, wire, max_retries=5)
    llm.budget = CostBudget(max_calls=2, max_input_tokens=10**6)
    with pytest.raises(CostCapReached, match=r"distill\.max_calls"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(wire.requests) == 2


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_re_ask_quotes_a_bounded_part_of_a_long_invalid_answer(driver: str) -> None:
    wire = Wire(
        driver, [Out(json.dumps({"title": "x" * 20_000, "count": 1})), {"title": "ok", "count": 1}]
    )
    llm = make_llm(driver, wire, max_output_tokens=64_000)
    llm.complete(system="s", prompt="p", schema=Answer)
    assert (
        len(sent_text(wire.bodies[1])) < len(sent_text(wire.bodies[0])) + MAX_QUOTED_ANSWER + 2_000
    )


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_request_past_the_token_cap_is_refused_unsent(driver: str) -> None:
    wire = Wire(driver, [{"title": "x" * 30, "count": 1}])
    llm = make_llm(driver, wire, max_retries=3)
    llm.budget = CostBudget(max_calls=10, max_input_tokens=100)
    with pytest.raises(CostCapReached, match=r"distill\.max_input_tokens"):
        llm.complete(system="s" * 2_000, prompt="p", schema=Answer)
    assert wire.requests == []
    assert llm.budget.input_tokens <= 100


# -- point 5: timeouts close the request and are not re-sent; errors are named truthfully ------
class Clock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("driver", DRIVERS)
def test_an_answer_past_the_deadline_is_closed_not_re_sent(driver: str) -> None:
    wire = Wire(driver, [Out("{", endless=True)])
    llm = make_llm(driver, wire, clock=Clock(1.0), timeout_s=7.5, max_retries=2)
    with pytest.raises(
        ModelTimedOut, match=r"no complete answer within 7.5s \(distill\.timeout_s\)"
    ) as caught:
        llm.complete(system="s", prompt="p", schema=Answer)
    assert caught.value.exit_code == 2
    assert "cost cap" not in str(caught.value)
    assert len(wire.requests) == 1 and wire.closed == [True]  # closed, and never re-sent


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_read_timeout_is_bounded_named_and_not_re_sent(driver: str) -> None:
    seen: list[Any] = []

    def slow(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.extensions.get("timeout"))
        raise httpx2.ReadTimeout("timed out", request=request)

    llm = make_llm(driver, slow, timeout_s=7.5, max_retries=2)
    with pytest.raises(ModelTimedOut, match=r"within 7.5s"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(seen) == 1
    assert seen[0] and seen[0].get("read") == 7.5  # the request carries the timeout


@pytest.mark.parametrize(
    ("driver", "base_url", "expected"),
    [("openai", None, 60.0), ("openai", "http://127.0.0.1:8080/v1", 300.0),
     ("ollama", None, 300.0), ("anthropic", None, 60.0)],
)  # fmt: skip
def test_the_default_timeout_fits_the_server(
    driver: str, base_url: str | None, expected: float
) -> None:
    assert config_for(driver, base_url=base_url).timeout() == expected
    assert config_for(driver, base_url=base_url, timeout_s=12).timeout() == 12


@pytest.mark.parametrize("driver", ["anthropic", "openai"])
def test_a_refused_credential_is_reported_without_the_key(driver: str) -> None:
    wire = Wire(driver, [], status=401)
    llm = make_llm(driver, wire)
    with pytest.raises(ModelUnavailable) as caught:
        llm.complete(system="s", prompt="p", schema=Answer)
    message = str(caught.value)
    assert "TEST_LLM_KEY" in message and "401" in message and KEY not in message
    assert "re-send" not in message  # it was not re-sent, so it does not say so
    assert caught.value.exit_code == 2
    assert len(wire.requests) == 1


@pytest.mark.parametrize("driver", DRIVERS)
def test_server_errors_are_re_sent_then_reported_with_the_true_count(driver: str) -> None:
    wire = Wire(driver, [], status=503)
    llm = make_llm(driver, wire, max_retries=1)
    with pytest.raises(ModelUnavailable, match=r"HTTP 503.*after 1 re-send\(s\)"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(wire.requests) == 2


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_request_the_server_refuses_is_named_for_that_session(driver: str) -> None:
    wire = Wire(driver, [], status=400)
    llm = make_llm(driver, wire)
    with pytest.raises(ModelRejectedRequest, match=r"HTTP 400"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(wire.requests) == 1


class Flaky(Wire):
    """Answers 500 ``failures`` times, then a valid answer."""

    def __init__(self, driver: str, failures: int) -> None:
        super().__init__(driver, [{"title": "ok", "count": 1}])
        self.failures = failures

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        if self.failures > 0:
            self.failures -= 1
            self.requests.append(request)
            return httpx2.Response(500, json={"error": {"message": "boom", "type": "error"}})
        return super().__call__(request)


@pytest.mark.parametrize("driver", DRIVERS)
def test_re_sends_are_counted(driver: str) -> None:
    wire = Flaky(driver, failures=2)
    llm = make_llm(driver, wire, max_retries=2)
    answer = llm.complete(system="s", prompt="p", schema=Answer)
    assert answer.title == "ok"
    assert len(wire.requests) == 3
    assert llm.budget.calls == 3  # every request sent, not one per complete()
    assert llm.last_guard is not None
    assert (llm.last_guard.attempts, llm.last_guard.resends) == (1, 2)


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_cap_stops_re_sends_too(driver: str) -> None:
    wire = Flaky(driver, failures=5)
    llm = make_llm(driver, wire, max_retries=5)
    llm.budget = CostBudget(max_calls=2, max_input_tokens=10**6)
    with pytest.raises(CostCapReached, match=r"distill\.max_calls"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(wire.requests) == 2


# -- credentials, SDKs, recording --------------------------------------------------------------
@pytest.mark.parametrize("driver", DRIVERS)
def test_the_sdks_own_variables_are_not_consulted(driver: str, monkeypatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.setenv(name, "sk-ambient-credential")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://elsewhere.example")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://elsewhere.example/v1")
    wire = Wire(driver, [{"title": "ok", "count": 3}])
    make_llm(driver, wire).complete(system="s", prompt="p", schema=Answer)
    [request] = wire.requests
    assert request.url.host != "elsewhere.example"
    assert "sk-ambient-credential" not in str(request.headers)


@pytest.mark.parametrize("driver", ["anthropic", "openai"])
def test_the_credential_comes_only_from_the_named_variable(driver: str, monkeypatch) -> None:
    monkeypatch.delenv("TEST_LLM_KEY")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ambient")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-ambient")
    config = DistillConfig.model_validate(
        {"driver": driver, "model": "m", "api_key_env": "TEST_LLM_KEY"}
    )
    with pytest.raises(EnvironmentProblem, match="TEST_LLM_KEY, which is not set"):
        CLASSES[driver](config)


@pytest.mark.parametrize(
    ("driver", "module", "extra"),
    [("anthropic", "anthropic", "anthropic"), ("openai", "openai", "openai"),
     ("ollama", "openai", "ollama")],
)  # fmt: skip
def test_a_missing_sdk_names_the_extra(driver: str, module: str, extra: str, monkeypatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` raise ImportError
    wire = Wire(driver, [{"title": "ok", "count": 1}])
    llm = make_llm(driver, wire)
    with pytest.raises(ImportError, match=rf"pip install 'teambrain-distill\[{extra}\]'") as caught:
        llm.complete(system="s", prompt="p", schema=Answer)
    assert isinstance(caught.value, DriverNotInstalled) and caught.value.exit_code == 2
    assert wire.requests == []


def test_recording_writes_a_fixture_the_fake_driver_replays(tmp_path) -> None:
    wire = Wire("anthropic", [{"title": "ok", "count": 3}])
    llm = make_llm("anthropic", wire, fixtures=str(tmp_path / "fx"))
    llm.record = True
    llm.complete(system="s", prompt="p", schema=Answer)
    [path] = llm.recorded
    data = json.loads(path.read_text())
    assert data["recorded_with"] == "anthropic:anthropic-model"
    assert data["request"] == {"system": "s", "prompt": "p"}
    fake = LLM(
        DistillConfig.model_validate(
            {"driver": "fake", "model": "anthropic-model", "fixtures": str(tmp_path / "fx")}
        )
    )
    assert fake.complete(system="s", prompt="p", schema=Answer).model_dump() == {
        "title": "ok",
        "count": 3,
    }
