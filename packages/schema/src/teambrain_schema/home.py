"""Where this machine's teambrain files live: the one rule, in the stdlib alone (no pathlib),
so the capture hook can ask on every agent tool call without paying for imports."""

from __future__ import annotations

import os

__all__ = ["HOME_ENV", "teambrain_home_dir"]

HOME_ENV = "TEAMBRAIN_HOME"


def teambrain_home_dir() -> str:
    """``$TEAMBRAIN_HOME`` when set (``~`` expanded), else ``~/.teambrain``."""
    configured = os.environ.get(HOME_ENV)
    if configured:
        return os.path.expanduser(configured)
    return os.path.join(os.path.expanduser("~"), ".teambrain")
