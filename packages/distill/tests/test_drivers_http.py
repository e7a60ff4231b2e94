"""The anthropic, openai and ollama drivers against mocked HTTP transports: the real SDKs and
instructor run; only the wire is fake (httpx2.MockTransport). No test here touches the network."""

from __future__ import annotations

import json
from collections.abc import Callable
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
    ModelUnavailable,
)
from teambrain_distill._anthropic import AnthropicDriver
from teambrain_distill._openai import OllamaDriver, OpenAIDriver
from teambrain_schema import DistillConfig, EnvironmentProblem

KEY = "sk-test-0123456789abcdef"


class Answer(BaseModel):
    title: str = Field(max_length=20)
    count: int

    @field_validator("title")
    @classmethod
    def _no_todo(cls, value: str) -> str:
        if "TODO" in value:
            raise ValueError("must not contain TODO")
        return value


Handler = Callable[[httpx2.Request, dict[str, Any]], httpx2.Response]


class Wire:
    """Records every request and answers with ``outputs`` in turn (the last one repeats)."""

    def __init__(self, driver: str, outputs: list[Any], status: int = 200) -> None:
        self.driver = driver
        self.outputs = outputs
        self.status = status
        self.requests: list[httpx2.Request] = []
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        body = json.loads(request.content)
        self.bodies.append(body)
        if self.status != 200:
            return httpx2.Response(
                self.status, json={"error": {"message": "nope", "type": "error"}}
            )
        output = self.outputs[min(len(self.bodies), len(self.outputs)) - 1]
        return httpx2.Response(200, json=self._response(body, output))

    def _response(self, body: dict[str, Any], output: Any) -> dict[str, Any]:
        text = output if isinstance(output, str) else json.dumps(output)
        if self.driver == "anthropic":
            tool = body["tools"][0]["name"]
            return {
                "id": f"msg_{len(self.bodies)}", "type": "message", "role": "assistant",
                "model": body["model"], "stop_reason": "tool_use", "stop_sequence": None,
                "content": [{"type": "tool_use", "id": f"tu_{len(self.bodies)}", "name": tool,
                             "input": output if isinstance(output, dict) else {"raw": output}}],
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }  # fmt: skip
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if self.driver == "openai":
            tool = body["tools"][0]["function"]["name"]
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{len(self.bodies)}", "type": "function",
                 "function": {"name": tool, "arguments": text}}]}  # fmt: skip
        return {
            "id": f"c{len(self.bodies)}", "object": "chat.completion", "created": 1,
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }  # fmt: skip


def make_llm(driver: str, wire: Wire, **config: Any) -> LLM:
    settings: dict[str, Any] = {"driver": driver, "model": f"{driver}-model", "max_retries": 2}
    if driver != "ollama":
        settings["api_key_env"] = "TEST_LLM_KEY"
    settings.update(config)
    cfg = DistillConfig.model_validate(settings)
    cls = {"anthropic": AnthropicDriver, "openai": OpenAIDriver, "ollama": OllamaDriver}[driver]
    return LLM(cfg, driver=cls(cfg, transport=httpx2.MockTransport(wire)), record=False)


DRIVERS = ["anthropic", "openai", "ollama"]


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
    sent = json.dumps(wire.bodies[0])
    assert "SYSTEM-TEXT" in sent and "PROMPT-TEXT" in sent
    assert wire.bodies[0]["model"] == f"{driver}-model"
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


@pytest.mark.parametrize("driver", DRIVERS)
def test_invalid_output_is_re_asked_with_the_error(driver: str) -> None:
    wire = Wire(driver, [{"title": "TODO later", "count": 1}, {"title": "done", "count": 1}])
    llm = make_llm(driver, wire)
    assert llm.complete(system="s", prompt="p", schema=Answer).title == "done"
    assert len(wire.requests) == 2
    assert "must not contain TODO" in json.dumps(wire.bodies[1])  # the re-ask says why
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


@pytest.mark.parametrize("driver", ["anthropic", "openai"])
def test_a_refused_credential_is_reported_without_the_key(driver: str) -> None:
    wire = Wire(driver, [], status=401)
    llm = make_llm(driver, wire)
    with pytest.raises(ModelUnavailable) as caught:
        llm.complete(system="s", prompt="p", schema=Answer)
    message = str(caught.value)
    assert "TEST_LLM_KEY" in message and "401" in message and KEY not in message
    assert caught.value.exit_code == 2
    assert len(wire.requests) == 1  # a 401 is not retried


@pytest.mark.parametrize("driver", DRIVERS)
def test_server_errors_are_retried_by_the_sdk_then_reported(driver: str, monkeypatch) -> None:
    monkeypatch.setattr("time.sleep", lambda _s: None)  # the SDK's back-off
    wire = Wire(driver, [], status=503)
    llm = make_llm(driver, wire, max_retries=1)
    with pytest.raises(ModelUnavailable, match=r"HTTP 503.*after 1 retries"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(wire.requests) == 2


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_timeout_is_bounded_and_reported(driver: str, monkeypatch) -> None:
    monkeypatch.setattr("time.sleep", lambda _s: None)
    seen: list[Any] = []

    def slow(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.extensions.get("timeout"))
        raise httpx2.ReadTimeout("timed out", request=request)

    cfg: dict[str, Any] = {"driver": driver, "model": "m", "timeout_s": 7.5, "max_retries": 1}
    if driver != "ollama":
        cfg["api_key_env"] = "TEST_LLM_KEY"
    config = DistillConfig.model_validate(cfg)
    cls = {"anthropic": AnthropicDriver, "openai": OpenAIDriver, "ollama": OllamaDriver}[driver]
    llm = LLM(config, driver=cls(config, transport=httpx2.MockTransport(slow)), record=False)
    with pytest.raises(ModelUnavailable, match=r"timed out after 7.5s"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(seen) == 2  # one try and one retry
    assert all(t and t.get("read") == 7.5 for t in seen)  # every request carries the timeout


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
    cls = AnthropicDriver if driver == "anthropic" else OpenAIDriver
    with pytest.raises(EnvironmentProblem, match="TEST_LLM_KEY, which is not set"):
        cls(config)


@pytest.mark.parametrize(
    ("driver", "module", "extra"),
    [
        ("anthropic", "anthropic", "anthropic"),
        ("openai", "openai", "openai"),
        ("ollama", "instructor", "ollama"),
    ],
)
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


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_huge_invalid_answer_never_makes_a_re_ask_past_the_token_cap(driver: str) -> None:
    """A 1 MB invalid answer: the re-ask carries it back (~250k tokens); the cap is 200k.
    The estimate before the re-ask cannot know the answer's size; the transport does."""
    wire = Wire(driver, [{"title": "x" * 1_000_000, "count": 1}])
    llm = make_llm(driver, wire, max_retries=3)
    llm.budget = CostBudget(max_calls=10, max_input_tokens=200_000)
    with pytest.raises(CostCapReached, match=r"distill\.max_input_tokens"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(wire.requests) == 1  # the re-ask was stopped before it was sent
    assert llm.budget.input_tokens <= 200_000


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
def test_the_sdks_own_re_sends_are_counted(driver: str, monkeypatch) -> None:
    monkeypatch.setattr("time.sleep", lambda _s: None)
    wire = Flaky(driver, failures=2)
    llm = make_llm(driver, wire, max_retries=2)
    answer = llm.complete(system="s", prompt="p", schema=Answer)
    assert answer.title == "ok"
    assert len(wire.requests) == 3
    assert llm.budget.calls == 3  # every request sent, not one per complete()


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_cap_stops_the_sdks_re_sends_too(driver: str, monkeypatch) -> None:
    monkeypatch.setattr("time.sleep", lambda _s: None)
    wire = Flaky(driver, failures=5)
    llm = make_llm(driver, wire, max_retries=5)
    llm.budget = CostBudget(max_calls=2, max_input_tokens=10**6)
    with pytest.raises(CostCapReached, match=r"distill\.max_calls"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert len(wire.requests) == 2
