"""The anthropic driver: Claude through instructor's tool-calling mode (extra ``[anthropic]``)."""

from __future__ import annotations

from typing import Any

from teambrain_schema import DistillConfig

from ._instructed import InstructedDriver, read_credential, require_module
from ._request import Request

# Explicit, so the SDK's own environment variables (ANTHROPIC_BASE_URL) never redirect us.
ANTHROPIC_DEFAULT_URL = "https://api.anthropic.com"


class AnthropicDriver(InstructedDriver):
    """Calls the Messages API with the credential from ``distill.api_key_env``."""

    name = "anthropic"
    extra = "anthropic"

    def __init__(self, config: DistillConfig, *, transport: Any = None) -> None:
        super().__init__(config, transport=transport)
        self._secret = read_credential(config, required=True)

    def build_client(self) -> Any:
        anthropic = require_module("anthropic", driver=self.name, extra=self.extra)
        instructor = require_module("instructor", driver=self.name, extra=self.extra)
        options: dict[str, Any] = {
            "api_key": self._secret,
            "timeout": self.config.timeout_s,
            "max_retries": self.config.max_retries,
            "base_url": self.config.base_url or ANTHROPIC_DEFAULT_URL,
        }
        options["http_client"] = self.http_client(anthropic)
        return instructor.from_anthropic(anthropic.Anthropic(**options))

    def create_kwargs(self, request: Request) -> dict[str, Any]:
        return {
            "model": request.model,
            "max_tokens": self.config.max_output_tokens,
            "system": request.system,
            "messages": [{"role": "user", "content": request.prompt}],
        }
