"""Printing: data to stdout, messages to stderr, stable JSON, and colour only for a terminal."""

from __future__ import annotations

import json
import os
import re
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
    """A human-facing message on stderr (keeps stdout clean for data), wrapped to fit when
    stderr is a terminal."""
    click.echo(wrap_text(message, terminal_width(err=True)), err=True)


def echo(text: str, *, hang: int | None = None) -> None:
    """Human-facing text on stdout, each line wrapped to fit when stdout is a terminal (its
    continuation indented under the line's text, or by ``hang``); whole when piped."""
    click.echo(wrap_text(text, terminal_width(), hang=hang))


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LABEL = re.compile(r"\s*(?:\d+\.|[-*•]|note:|fix:|Note:)\s+")


def wrap_text(text: str, width: int | None, *, hang: int | None = None) -> str:
    """``text`` with each line longer than ``width`` wrapped (long words such as paths broken
    too), continuation lines indented under the line's text; unchanged when ``width`` is None."""
    if width is None:
        return text
    import textwrap

    out: list[str] = []
    for line in text.split("\n"):
        if len(_ANSI.sub("", line)) <= width or "\r" in line:  # fits, or redraws itself
            out.append(line)
            continue
        label = _LABEL.match(line)
        start = len(label.group(0)) if label else len(line) - len(line.lstrip())
        indent = " " * min(start if hang is None else hang, width // 2)
        out.extend(
            textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False,
                          drop_whitespace=True) or [line[:width]]
        )  # fmt: skip
    return "\n".join(out)


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


def terminal_width(*, err: bool = False) -> int | None:
    """The terminal's width when stdout (``err``: stderr) is one, None when it is piped
    (nothing is cut then)."""
    try:
        if not (sys.stderr if err else sys.stdout).isatty():
            return None
    except (AttributeError, ValueError):
        return None
    if not os.environ.get("COLUMNS"):
        try:
            return (
                os.get_terminal_size((sys.stderr if err else sys.stdout).fileno()).columns
                or DEFAULT_WIDTH
            )
        except (OSError, ValueError, AttributeError):
            pass
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
                    subsequent_indent=indent, break_long_words=True, break_on_hyphens=False,
                )
            )  # fmt: skip
    return out


PAGER_ENV = "TB_PAGER"


def pager_command(env: dict[str, str] | None = None) -> str | None:
    """The pager for long output on a terminal, as gh chooses: ``$TB_PAGER``, else ``$PAGER``,
    else ``less``; None when set empty or to ``cat`` (no pager)."""
    env = dict(os.environ) if env is None else env
    for name in (PAGER_ENV, "PAGER"):
        if name in env:
            chosen = env[name].strip()
            return None if chosen in ("", "cat") else chosen
    return "less"


def page(text: str) -> None:
    """``text`` on stdout, through the pager when stdout is a terminal (``less`` gets ``LESS=FRX``
    unless ``$LESS`` says otherwise: one screen or less is printed and left on the screen);
    straight out when piped, when no pager is wanted (or ``TERM`` is unset or ``dumb``), or
    when the pager cannot start."""
    import subprocess

    try:
        terminal = sys.stdout.isatty()
    except (AttributeError, ValueError):
        terminal = False
    # A terminal that cannot run a pager (TERM unset or dumb: less would stop to complain).
    capable = os.environ.get("TERM", "") not in ("", "dumb")
    command = pager_command() if terminal and capable else None
    if command is None:
        click.echo(text, nl=False)
        return
    env = {**os.environ}
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    try:
        proc = subprocess.Popen(["sh", "-c", command], stdin=subprocess.PIPE, env=env)
    except OSError:
        click.echo(text, nl=False)
        return
    assert proc.stdin is not None
    try:
        proc.stdin.write(text.encode("utf-8", "replace"))
        proc.stdin.close()
    except BrokenPipeError:  # the reader quit early (q in less)
        pass
    try:
        proc.wait()
    except KeyboardInterrupt:
        proc.wait()
    if proc.returncode == 127:  # no such pager: the text is not lost
        click.echo(text, nl=False)
