"""Every `tb …` command that tb's own messages, fixes and help name (in backticks, in the
source of every package) is one `tb` accepts as written: a hint that fails when typed sends a
user nowhere (issue 28 point 6). Placeholders (`<id>`, `ID`, `…`) are templates and skipped; a
verb or option named in prose (`tb retire`, `tb digest --since`) only has to exist."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
from test_docs_examples import parse

ROOT = Path(__file__).resolve().parents[1]
HINT = re.compile(r"`(tb [^`\n]+)`|listing=\"(tb [^\"\n]+)\"")
TEMPLATE = re.compile(r"<|>|\.\.\.|…|\[|\{|\b[A-Z]{2,}\b")


def hints() -> list[tuple[str, str]]:
    found = set()
    for source in sorted((ROOT / "packages").glob("*/src/**/*.py")):
        for match in HINT.finditer(source.read_text("utf-8")):
            line = (match.group(1) or match.group(2)).strip()
            if TEMPLATE.search(line) or "|" in line or "/--" in line:
                continue
            found.add((str(source.relative_to(ROOT)), line))
    return sorted(found)


CASES = hints()


def test_there_are_hints_to_check() -> None:
    assert len(CASES) > 30


@pytest.mark.parametrize(("source", "line"), CASES, ids=[f"{s}:{line}" for s, line in CASES])
def test_every_hint_tb_gives_parses(source: str, line: str) -> None:
    try:
        words = shlex.split(line)
    except ValueError:
        pytest.skip("not a command line")
    try:
        parse(words[1:])
    except click.exceptions.Exit:
        pass
    except (click.MissingParameter, click.BadOptionUsage) as exc:
        if "requires an argument" not in exc.format_message() and not isinstance(
            exc, click.MissingParameter
        ):
            pytest.fail(f"{source}: `{line}`: {exc.format_message()}")
        # a verb or an option named in prose (`tb retire`, `--since`), not a whole command
    except click.ClickException as exc:
        pytest.fail(f"{source}: `{line}`: {exc.format_message()}")


def help_examples() -> list[str]:
    """The `tb …` lines of every verb's and subcommand's --help "Examples:" section, each
    without the description after it (two spaces or more) and without what a pipe feeds."""
    from teambrain_cli import cli

    found: list[str] = []

    def walk(command: click.Command, path: list[str]) -> None:
        ctx = click.Context(command, info_name=" ".join(path))
        text = command.get_help(ctx)
        if "Examples:" in text:
            for raw in text.split("Examples:", 1)[1].splitlines():
                line = re.split(r"\s{2,}|\s\||\s&&|\s>", raw.strip())[0]
                if line.startswith("tb ") and not TEMPLATE.search(line):
                    found.append(line)
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None:
                    walk(sub, [*path, name])

    walk(cli, ["tb"])
    return sorted(set(found))


EXAMPLES = help_examples()


def test_the_help_shows_examples_to_check() -> None:
    assert len(EXAMPLES) > 40


@pytest.mark.parametrize("line", EXAMPLES)
def test_every_help_example_parses(line: str) -> None:
    try:
        parse(shlex.split(line)[1:])
    except click.exceptions.Exit:
        pass
    except click.ClickException as exc:
        pytest.fail(f"`{line}` (an example in --help): {exc.format_message()}")
