"""The openai and ollama drivers: both speak the OpenAI chat API through the openai SDK.

Ollama is reached at its OpenAI-compatible ``/v1`` endpoint (as instructor itself does), so the
``[ollama]`` extra needs instructor and openai, not the ollama client. Ollama models get JSON
mode, which every model supports; OpenAI models get tool calling.
"""

from __future__ import annotations

from typing import Any

from teambrain_schema import DistillConfig

from ._instructed import InstructedDriver, read_credential, require_module
from ._request import Request

OLLAMA_DEFAULT_URL = "http://localhost:11434/v1"
# Explicit, so the SDK's own environment variables (OPENAI_BASE_URL) never redirect us.
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"


class OpenAIDriver(InstructedDriver):
    """Calls the Chat Completions API with the credential from ``distill.api_key_env``;
    ``distill.base_url`` points it at any OpenAI-compatible server."""

    name = "openai"
    extra = "openai"

    def __init__(self, config: DistillConfig, *, transport: Any = None) -> None:
        super().__init__(config, transport=transport)
        self._secret = read_credential(config, required=True)

    def base_url(self) -> str:
        return self.config.base_url or OPENAI_DEFAULT_URL

    def mode(self, instructor: Any) -> Any:
        return instructor.Mode.TOOLS

    def build_client(self) -> Any:
        openai = require_module("openai", driver=self.name, extra=self.extra)
        instructor = require_module("instructor", driver=self.name, extra=self.extra)
        options: dict[str, Any] = {
            "api_key": self._secret,
            "timeout": self.config.timeout_s,
            "max_retries": self.config.max_retries,
            "base_url": self.base_url(),
        }
        options["http_client"] = self.http_client(openai)
        return instructor.from_openai(openai.OpenAI(**options), mode=self.mode(instructor))

    def create_kwargs(self, request: Request) -> dict[str, Any]:
        return {
            "model": request.model,
            "max_completion_tokens": self.config.max_output_tokens,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.prompt},
            ],
        }


class OllamaDriver(OpenAIDriver):
    """A local (or self-hosted) Ollama server; no credential unless ``distill.api_key_env``
    names one (for a server behind an authenticating proxy)."""

    name = "ollama"
    extra = "ollama"

    def __init__(self, config: DistillConfig, *, transport: Any = None) -> None:
        InstructedDriver.__init__(self, config, transport=transport)
        self._secret = read_credential(config, required=False) or "ollama"

    def base_url(self) -> str:
        return self.config.base_url or OLLAMA_DEFAULT_URL

    def mode(self, instructor: Any) -> Any:
        return instructor.Mode.JSON

    def create_kwargs(self, request: Request) -> dict[str, Any]:
        kwargs = super().create_kwargs(request)
        kwargs["max_tokens"] = kwargs.pop("max_completion_tokens")
        return kwargs
