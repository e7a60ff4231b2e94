"""JSON Schema documents for every public model, committed under ``docs/schemas/``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter


def _models() -> dict[str, Any]:
    from . import _backend, _config, _envelope, _memory

    return {
        "memory-front-matter": _memory.MemoryFrontMatter,
        "memory-draft": _memory.MemoryDraft,
        "candidate": _memory.Candidate,
        "session-event": _envelope.ENVELOPE_ADAPTER,
        "brain-yaml": _config.BrainConfig,
        "adapters-yaml": _config.AdaptersFile,
        "indexable-doc": _backend.IndexableDoc,
        "scored": _backend.Scored,
        "index-stats": _backend.IndexStats,
        **_mcp_models(),
    }


def _mcp_models() -> dict[str, type[BaseModel]]:
    """``mcp-<kebab name>`` for every MCP tool's arguments and answer: each public model of
    ``_mcp`` named ``…Input`` or ``…Result`` (a new tool's models get their documents without
    being listed here)."""
    from . import _mcp

    models = {}
    for name, value in vars(_mcp).items():
        if (
            isinstance(value, type)
            and issubclass(value, BaseModel)
            and value.__module__ == _mcp.__name__
            and not name.startswith("_")
            and name.endswith(("Input", "Result"))
        ):
            models["mcp-" + re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()] = value
    return models


def json_schema_documents() -> dict[str, str]:
    """File name → JSON Schema text for every public model (stable, sorted keys)."""
    documents: dict[str, str] = {}
    for name, model in _models().items():
        if isinstance(model, TypeAdapter):
            schema = model.json_schema(mode="validation")
        else:
            assert issubclass(model, BaseModel)
            schema = model.model_json_schema(mode="validation", by_alias=True)
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"teambrain/{name}.json",
            **schema,
        }
        documents[f"{name}.json"] = (
            json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        )
    return documents


def export_json_schemas(directory: Path) -> list[Path]:
    """Write every schema document into ``directory``; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in json_schema_documents().items():
        path = directory / name
        path.write_text(text, "utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # python -m teambrain_schema._schemas docs/schemas
    import sys

    for written_path in export_json_schemas(
        Path(sys.argv[1] if len(sys.argv) > 1 else "docs/schemas")
    ):
        print(written_path)
