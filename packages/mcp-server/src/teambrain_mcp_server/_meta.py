"""What the server is (its log levels, its installed version), importable without the SDK."""

from __future__ import annotations

import importlib.metadata
from typing import Literal

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


def package_version() -> str:
    """The installed version of teambrain-mcp-server."""
    try:
        return importlib.metadata.version("teambrain-mcp-server")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"
