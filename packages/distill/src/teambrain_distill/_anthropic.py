"""The anthropic driver: Claude through the Messages API, the answer as a forced tool call
(extra ``[anthropic]``). ``distill.structured_output: prompt`` puts the schema in the system
text instead, for Anthropic-compatible servers that do not force tools."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from teambrain_schema import DistillConfig

from ._default_urls import ANTHROPIC_DEFAULT_URL
from ._remote import (
    Message,
    RemoteDriver,
    Reply,
    StreamedAnswer,
    read_credential,
    require_module,
)
from ._request import Request


class AnthropicDriver(RemoteDriver):
    """Calls the Messages API with the credential from ``distill.api_key_env``."""

    name = "anthropic"
    extra = "anthropic"
    default_mode = "tools"

    def __init__(self, config: DistillConfig, **options: Any) -> None:
        super().__init__(config, **options)
        self._secret = read_credential(config, required=True)

    def base_url(self) -> str:
        """The server's root: the SDK adds ``/v1/messages`` itself, so a ``base_url`` written
        with ``/v1`` (as for the OpenAI-compatible endpoint of the same server: llama.cpp's
        server, LiteLLM) would reach ``/v1/v1/messages`` and a 404."""
        url = self.config.base_url or ANTHROPIC_DEFAULT_URL
        parts = urlsplit(url)
        path = parts.path.rstrip("/")
        if path.endswith("/v1"):
            return parts._replace(path=path.removesuffix("/v1")).geturl()
        return url

    def build_client(self) -> Any:
        anthropic = require_module("anthropic", driver=self.name, extra=self.extra)
        return anthropic.Anthropic(
            api_key=self._secret,
            base_url=self.base_url(),
            timeout=self.http_timeout(),
            max_retries=0,
            http_client=self.http_client(anthropic),
        )

    def create_kwargs(self, request: Request, messages: list[Message]) -> dict[str, Any]:
        system = next(text for role, text in messages if role == "system")
        kwargs: dict[str, Any] = {
            "model": request.model,
            "max_tokens": self.config.max_output_tokens,
            "system": system,
            "messages": [
                {"role": role, "content": text} for role, text in messages if role != "system"
            ],
            "stream": True,
        }
        if self.config.temperature is not None:
            # The SDK no longer names sampling settings (current Claude models take none);
            # Anthropic-compatible servers still read it from the body.
            kwargs["extra_body"] = {"temperature": min(self.config.temperature, 1.0)}
        if self.mode == "tools":
            kwargs["tools"] = [
                {
                    "name": request.schema_name,
                    "description": "Give your answer by calling this tool.",
                    "input_schema": request.json_schema,
                }
            ]
            kwargs["tool_choice"] = {"type": "tool", "name": request.schema_name}
        return kwargs

    def open_stream(self, client: Any, request: Request, messages: list[Message]) -> Any:
        return client.messages.create(**self.create_kwargs(request, messages))

    def take(self, event: Any, answer: StreamedAnswer) -> None:
        kind = getattr(event, "type", "")
        if kind == "message_start":
            usage = getattr(event.message, "usage", None)
            answer.prompt_tokens = getattr(usage, "input_tokens", None)
        elif kind == "content_block_start":
            block = event.content_block
            if getattr(block, "type", "") == "text":
                answer.add_text(getattr(block, "text", ""))
        elif kind == "content_block_delta":
            delta = event.delta
            piece_kind = getattr(delta, "type", "")
            if piece_kind == "input_json_delta":
                answer.add_arguments(delta.partial_json)
            elif piece_kind == "text_delta":
                answer.add_text(delta.text)
            elif piece_kind == "thinking_delta":
                answer.add_thinking(getattr(delta, "thinking", ""))
        elif kind == "message_delta":
            reason = getattr(event.delta, "stop_reason", None)
            if reason:
                answer.finish = "length" if reason == "max_tokens" else reason
            usage = getattr(event, "usage", None)
            answer.output_tokens = getattr(usage, "output_tokens", answer.output_tokens)

    def reply_from_body(self, body: dict[str, Any]) -> Reply:
        return _reply_from_message(body)


def _reply_from_message(body: dict[str, Any]) -> Reply:
    blocks = [b for b in body.get("content") or [] if isinstance(b, dict)]
    tool = next((b for b in blocks if b.get("type") == "tool_use"), None)
    text = "".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
    reason = str(body.get("stop_reason") or "")
    usage = body.get("usage") or {}
    return Reply(
        text=json.dumps(tool.get("input")) if tool is not None else text,
        finish="length" if reason == "max_tokens" else reason,
        prompt_tokens=usage.get("input_tokens"),
        output_tokens=usage.get("output_tokens"),
    )
