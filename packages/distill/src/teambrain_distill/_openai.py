"""The openai and ollama drivers: both speak the OpenAI chat API through the openai SDK.

What each server honours differs, so the request says it every way the server may read it:

- the output limit: OpenAI itself reads ``max_completion_tokens`` (its reasoning models refuse
  ``max_tokens``); llama.cpp's and llama-cpp-python's servers, LM Studio, vLLM's older releases
  and Ollama read ``max_tokens`` and silently ignore the other. Any ``distill.base_url`` server
  therefore gets both; Ollama gets ``max_tokens``. Whatever a server does with them, the stream
  is closed here once the answer passes the limit.
- the answer's shape (``distill.structured_output``): a forced tool call by default (OpenAI,
  vLLM, llama-cpp-python); ``json_schema`` for Ollama (its ``format``) and LM Studio;
  ``json_object`` or ``prompt`` for servers that know neither. Whatever the mode, the answer is
  read from the tool call or from the message text, fenced or wrapped in prose.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from teambrain_schema import DistillConfig

from ._default_urls import OLLAMA_DEFAULT_URL, OPENAI_DEFAULT_URL
from ._remote import (
    Message,
    RemoteDriver,
    Reply,
    StreamedAnswer,
    read_credential,
    require_module,
)
from ._request import Request

OPENAI_HOSTS = ("api.openai.com", ".openai.azure.com")


def api_root(url: str, *, native: tuple[str, ...] = ()) -> str:
    """Where the Chat Completions API of the server at ``url`` lives: ``url`` itself when it
    names a path, else its ``/v1`` (``http://localhost:11434`` or ``http://127.0.0.1:8080/``
    as written for the server's own root). Ollama only answers under ``/v1`` (and its native
    API under ``/api``, which ``native`` maps to ``/v1``); vLLM and LM Studio only under
    ``/v1``; llama.cpp's server under both."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if path in ("", *native):
        return parts._replace(path="/v1").geturl()
    return url


class OpenAIDriver(RemoteDriver):
    """Calls the Chat Completions API with the credential from ``distill.api_key_env``;
    ``distill.base_url`` points it at any OpenAI-compatible server."""

    name = "openai"
    extra = "openai"
    default_mode = "tools"

    def __init__(self, config: DistillConfig, **options: Any) -> None:
        super().__init__(config, **options)
        self._secret = read_credential(config, required=True)

    def base_url(self) -> str:
        return api_root(self.config.base_url or OPENAI_DEFAULT_URL)

    def is_openai(self) -> bool:
        """True for OpenAI's own API (and Azure's), which know the newer parameter names."""
        host = (urlsplit(self.base_url()).hostname or "").lower()
        return host == OPENAI_HOSTS[0] or host.endswith(OPENAI_HOSTS[1])

    def limit_fields(self) -> dict[str, int]:
        limit = self.config.max_output_tokens
        if self.is_openai():
            return {"max_completion_tokens": limit}
        return {"max_tokens": limit, "max_completion_tokens": limit}

    def build_client(self) -> Any:
        openai = require_module("openai", driver=self.name, extra=self.extra)
        return openai.OpenAI(
            api_key=self._secret,
            base_url=self.base_url(),
            timeout=self.http_timeout(),
            max_retries=0,
            http_client=self.http_client(openai),
        )

    def create_kwargs(self, request: Request, messages: list[Message]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": [{"role": role, "content": text} for role, text in messages],
            "stream": True,
            "stream_options": {"include_usage": True},
            **self.limit_fields(),
        }
        if self.config.temperature is not None:
            kwargs["temperature"] = self.config.temperature
        schema = request.json_schema
        if self.mode == "tools":
            kwargs["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": request.schema_name,
                        "description": "Give your answer by calling this function.",
                        "parameters": schema,
                    },
                }
            ]
            kwargs["tool_choice"] = {"type": "function", "function": {"name": request.schema_name}}
        elif self.mode == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": schema},
            }
        elif self.mode == "json_object":
            response_format: dict[str, Any] = {"type": "json_object"}
            if not self.is_openai():  # llama-cpp-python's grammar from a schema, ignored elsewhere
                response_format["schema"] = schema
            kwargs["response_format"] = response_format
        return kwargs

    def open_stream(self, client: Any, request: Request, messages: list[Message]) -> Any:
        return client.chat.completions.create(**self.create_kwargs(request, messages))

    def take(self, event: Any, answer: StreamedAnswer) -> None:
        usage = getattr(event, "usage", None)
        if usage is not None:
            answer.prompt_tokens = getattr(usage, "prompt_tokens", None)
            answer.output_tokens = getattr(usage, "completion_tokens", None)
        for choice in event.choices or ():
            delta = choice.delta
            if delta is not None:
                answer.add_text(delta.content)
                for call in delta.tool_calls or ():
                    answer.add_arguments(call.function.arguments if call.function else None)
                extra = delta.model_extra or {}
                for key in ("reasoning_content", "reasoning"):
                    if isinstance(extra.get(key), str):
                        answer.add_thinking(extra[key])
            if choice.finish_reason:
                answer.finish = choice.finish_reason

    def reply_from_body(self, body: dict[str, Any]) -> Reply:
        return _reply_from_completion(body)


def _reply_from_completion(body: dict[str, Any]) -> Reply:
    choice = (body.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    calls = message.get("tool_calls") or []
    arguments = "".join(str((c.get("function") or {}).get("arguments") or "") for c in calls)
    usage = body.get("usage") or {}
    return Reply(
        text=arguments or str(message.get("content") or ""),
        finish=str(choice.get("finish_reason") or ""),
        prompt_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
    )


class OllamaDriver(OpenAIDriver):
    """A local (or self-hosted) Ollama server at its OpenAI-compatible ``/v1`` endpoint; no
    credential unless ``distill.api_key_env`` names one (a server behind an authenticating
    proxy). Its ``format`` comes from ``response_format`` json_schema."""

    name = "ollama"
    extra = "ollama"
    default_mode = "json_schema"

    def __init__(self, config: DistillConfig, **options: Any) -> None:
        RemoteDriver.__init__(self, config, **options)
        self._secret = read_credential(config, required=False) or "ollama"

    def base_url(self) -> str:
        return api_root(self.config.base_url or OLLAMA_DEFAULT_URL, native=("/api",))

    def limit_fields(self) -> dict[str, int]:
        return {"max_tokens": self.config.max_output_tokens}
