"""One-line notices for the user, on stderr, each said once per process."""

from __future__ import annotations

import sys


def say_once(message: str, _said: set[str] = set()) -> None:  # noqa: B006 - process-wide memo
    """Print ``teambrain: message`` on stderr, once per process."""
    if message not in _said:
        _said.add(message)
        print(f"teambrain: {message}", file=sys.stderr, flush=True)
