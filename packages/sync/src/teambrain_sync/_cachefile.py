"""The small JSON caches sync keeps beside the proposal patches (``$TEAMBRAIN_HOME/proposals/``):
one entry per repository, written whole and atomically (0600), a failure costing only the next
offline answer."""

from __future__ import annotations

import json
from pathlib import Path

from teambrain_kit.atomic import write_text_atomic
from teambrain_kit.private_dirs import ensure_private_dir


def keep_entry(path: Path, key: str, entry: object, *, max_entries: int | None = None) -> None:
    """Set ``key`` to ``entry`` in the JSON object of ``path`` (the oldest entries dropped
    beyond ``max_entries``); an unreadable or unwritable file is only a cache: nothing raised."""
    try:
        data = json.loads(path.read_text("utf-8")) if path.is_file() else {}
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data.pop(key, None)
    while max_entries is not None and data and len(data) >= max_entries:
        data.pop(next(iter(data)))
    data[key] = entry
    try:
        ensure_private_dir(path.parent)
        write_text_atomic(path, json.dumps(data, indent=1) + "\n", mode=0o600)
    except OSError:
        pass
