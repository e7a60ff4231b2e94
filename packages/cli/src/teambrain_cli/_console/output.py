"""Printing: data to stdout, messages to stderr, stable JSON."""

from __future__ import annotations

import json
from typing import Any

import click


def emit_json(data: Any) -> None:
    """Print ``data`` as indented, key-sorted JSON on stdout."""
    click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str))


def say(message: str) -> None:
    """A human-facing message on stderr (keeps stdout clean for data)."""
    click.echo(message, err=True)
