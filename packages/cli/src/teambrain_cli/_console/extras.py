"""The one command that adds an extra (a model client) to the teambrain this ``tb`` runs from,
for the installer that put it there: pip, ``uv tool install`` or pipx each need their own."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def installer() -> str:
    """``uv-tool``, ``pipx`` or ``pip``: what made the environment ``tb`` runs in (uv and pipx
    leave a receipt in the environment they make)."""
    prefix = Path(sys.prefix)
    if (prefix / "uv-receipt.toml").is_file():
        return "uv-tool"
    if (prefix / "pipx_metadata.json").is_file():
        return "pipx"
    return "pip"


def extra_install_command(extra: str) -> str:
    """The command that installs ``teambrain-cli[extra]`` where this ``tb`` lives. uv replaces
    the tool with the extras named; pipx needs ``--force`` (without it, it keeps the installed
    one and adds nothing); pip is this environment's own unless it is the active one."""
    spec = f"'teambrain-cli[{extra}]'"
    kind = installer()
    if kind == "uv-tool":
        return f"uv tool install --compile-bytecode {spec}"
    if kind == "pipx":
        return f"pipx install --force {spec}"
    active = os.environ.get("VIRTUAL_ENV")
    if sys.prefix == sys.base_prefix or (active and Path(active).resolve() == Path(sys.prefix).resolve()):  # fmt: skip
        return f"pip install {spec}"
    return f"{sys.executable} -m pip install {spec}"
