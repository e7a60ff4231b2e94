"""One request to a model, and the stable key the fake driver files its recorded answer under."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from teambrain_schema.tokens import estimate_tokens

# Bump when the key's ingredients change, so old fixtures stop matching instead of lying.
KEY_VERSION = 1


def canonical_json(data: Any) -> str:
    """JSON with sorted keys and no insignificant whitespace: equal data, equal text."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Request:
    """What is sent: the system text, the prompt, the answer's schema and the pinned model."""

    system: str
    prompt: str
    schema_name: str
    json_schema: dict[str, Any]
    model: str

    @classmethod
    def build(cls, *, system: str, prompt: str, schema: type[BaseModel], model: str) -> Request:
        """The request for ``schema`` (its JSON Schema is part of what the model sees)."""
        return cls(
            system=system,
            prompt=prompt,
            schema_name=schema.__name__,
            json_schema=schema.model_json_schema(by_alias=True),
            model=model,
        )

    def key(self) -> str:
        """sha256 over the canonical JSON of everything that shapes the answer."""
        payload = {
            "v": KEY_VERSION,
            "system": self.system,
            "prompt": self.prompt,
            "schema": {"name": self.schema_name, "json": self.json_schema},
            "model": self.model,
        }
        return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()

    def input_tokens(self) -> int:
        """Estimated input tokens of one attempt: system, prompt and the schema the SDK sends."""
        return (
            estimate_tokens(self.system)
            + estimate_tokens(self.prompt)
            + estimate_tokens(canonical_json(self.json_schema))
        )
