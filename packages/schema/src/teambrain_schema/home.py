"""Where this machine's teambrain files live: the one rule, in the stdlib alone (no pathlib),
so the capture hook can ask on every agent tool call without paying for imports."""

from __future__ import annotations

import os

__all__ = ["HOME_ENV", "ORG_BRAIN_ENV", "teambrain_home_dir"]

HOME_ENV = "TEAMBRAIN_HOME"
# Where the org brain is checked out on this machine (overrides brain.yaml's ``org_brain``);
# ``tb`` and ``tb serve`` also take it from ``[org_brain] path`` in ``user/config.toml``.
ORG_BRAIN_ENV = "TEAMBRAIN_ORG_BRAIN"


def teambrain_home_dir() -> str:
    """``$TEAMBRAIN_HOME`` when set (``~`` expanded), else ``~/.teambrain``."""
    configured = os.environ.get(HOME_ENV)
    if configured:
        return os.path.expanduser(configured)
    return os.path.join(os.path.expanduser("~"), ".teambrain")
