"""Printing: data to stdout, messages to stderr, stable JSON, and colour only for a terminal."""

from __future__ import annotations

import json
import os
import shutil
import sys
from typing import Any

import click

# Wide enough for a row of `tb list` and the lines of `tb doctor` when stdout is not a terminal.
DEFAULT_WIDTH = 100


def emit_json(data: Any) -> None:
    """Print ``data`` as indented, key-sorted JSON on stdout."""
    click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str))


def say(message: str) -> None:
    """A human-facing message on stderr (keeps stdout clean for data)."""
    click.echo(message, err=True)


def colour_on(*, err: bool = False) -> bool:
    """Whether to colour what goes to stdout (``err``: stderr): only on a terminal, never with
    ``NO_COLOR`` set to anything (https://no-color.org) or ``TERM=dumb``."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    stream = sys.stderr if err else sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def paint(text: str, *, err: bool = False, **style: Any) -> str:
    """``text`` styled (``fg``, ``bold``, ``dim`` as in :func:`click.style`) when colour is on,
    exactly ``text`` otherwise."""
    return click.style(text, **style) if colour_on(err=err) else text


def terminal_width() -> int | None:
    """The terminal's width when stdout is one, None when it is piped (nothing is cut then)."""
    try:
        if not sys.stdout.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def fit(text: str, width: int | None) -> str:
    """``text`` cut to ``width`` characters with an ellipsis (whole when ``width`` is None)."""
    if width is None or len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"


def fit_middle(text: str, width: int | None) -> str:
    """``text`` (a path, typically) cut in the middle to ``width`` characters, keeping its start
    and its end, which say the most (whole when ``width`` is None)."""
    if width is None or len(text) <= width:
        return text
    if width < 5:
        return text[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return f"{text[:head]}…{text[-tail:]}"


def wrap_lines(text: str, width: int | None, indent: str = "") -> list[str]:
    """``text``'s lines, each indented and, on a terminal (``width`` given), wrapped to fit."""
    import textwrap

    out: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            out.append("")
        elif width is None:
            out.append(indent + line)
        else:
            out.extend(
                textwrap.wrap(
                    line, max(width, len(indent) + 20), initial_indent=indent,
                    subsequent_indent=indent, break_long_words=False, break_on_hyphens=False,
                )
            )  # fmt: skip
    return out
