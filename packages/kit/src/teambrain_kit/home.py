"""Where this machine's teambrain files live: the one rule, in the stdlib alone (no pathlib),
so the capture hook can ask on every agent tool call without paying for imports."""

from __future__ import annotations

import os

__all__ = [
    "FETCH_MINUTES_ENV",
    "FETCH_TIMEOUT_ENV",
    "ORG_BRAIN_ENV",
    "SERVE_FROM_ENV",
    "env_setting_source",
    "note_from_user_config",
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


# The variables above that ``apply_machine_settings`` (teambrain-capture) set in this process
# from ``user/config.toml``, with the setting that said it: messages name what the user wrote.
_FROM_USER_CONFIG: dict[str, tuple[str, str]] = {}


def note_from_user_config(env_name: str, setting: str) -> None:
    """Record that ``$env_name`` now holds ``setting`` of ``user/config.toml`` (e.g.
    ``[org_brain] path``), copied there because the environment did not say."""
    _FROM_USER_CONFIG[env_name] = (setting, os.environ.get(env_name, ""))


def env_setting_source(env_name: str) -> str:
    """Who said what ``$env_name`` holds, for a message: the user config's setting when it was
    copied from there (and nobody changed the variable since), else the variable."""
    noted = _FROM_USER_CONFIG.get(env_name)
    if noted is not None and noted[1] == os.environ.get(env_name, ""):
        return f"`{noted[0]}` in ${HOME_ENV}/user/config.toml"
    return f"${env_name}"
