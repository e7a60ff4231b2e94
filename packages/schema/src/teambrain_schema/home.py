"""Where this machine's teambrain files live: the one rule, in the stdlib alone (no pathlib),
so the capture hook can ask on every agent tool call without paying for imports."""

from __future__ import annotations

import os

__all__ = [
    "FETCH_MINUTES_ENV",
    "FETCH_TIMEOUT_ENV",
    "HOME_ENV",
    "ORG_BRAIN_ENV",
    "SERVE_FROM_ENV",
    "teambrain_home_dir",
]

HOME_ENV = "TEAMBRAIN_HOME"
# Where the org brain is checked out on this machine (overrides brain.yaml's ``org_brain``);
# ``tb`` and ``tb serve`` also take it from ``[org_brain] path`` in ``user/config.toml``.
ORG_BRAIN_ENV = "TEAMBRAIN_ORG_BRAIN"
# What agents are served: "default-branch" (the default branch as last fetched with this
# checkout's memory changes on top; the default) or "checkout" (the checkout's files only).
SERVE_FROM_ENV = "TEAMBRAIN_SERVE_FROM"
# How often ``tb serve`` fetches the default branch (minutes; 0, the default: never), and how
# long one fetch may take (seconds). Also ``[serve]`` in ``user/config.toml``.
FETCH_MINUTES_ENV = "TEAMBRAIN_FETCH_MINUTES"
FETCH_TIMEOUT_ENV = "TEAMBRAIN_FETCH_TIMEOUT"


def teambrain_home_dir() -> str:
    """``$TEAMBRAIN_HOME`` when set (``~`` expanded), else ``~/.teambrain``."""
    configured = os.environ.get(HOME_ENV)
    if configured:
        return os.path.expanduser(configured)
    return os.path.join(os.path.expanduser("~"), ".teambrain")
