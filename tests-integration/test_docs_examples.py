"""Every `tb` command line shown in the README and docs/ is one `tb` accepts: the verb exists
and every option and value parses as written (a line with a `<placeholder>` is a template, and
a block preceded by `<!-- illustrative -->` is exempt). The README's own walkthrough runs in
full, from installed wheels, in test_readme_walkthrough.py."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
from teambrain_cli import cli

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"(<!-- illustrative -->\s*)?```(?:sh|bash|shell|console)\n(.*?)```", re.S)


def tb_lines(text: str) -> list[str]:
    """The `tb …` command segments of the shell blocks of ``text`` (not illustrative ones)."""
    found = []
    for block in _BLOCK.finditer(text):
        if block.group(1):
            continue
        joined = block.group(2).replace("\\\n", " ")
        for line in joined.splitlines():
            line = line.strip().removeprefix("$ ")
            try:
                words = shlex.split(line, comments=True)
            except ValueError:
                continue
            segment: list[str] = []
            for word in [*words, "&&"]:
                if word in ("&&", "||", ";", "|", ">", ">>", "2>"):
                    if segment and segment[0] == "tb":
                        found.append(shlex.join(segment))
                    segment = []
                else:
                    segment.append(word)
    return found


def parse(args: list[str]) -> None:
    """Parse ``tb args`` as click would run it, subcommands included; raise on a usage error."""
    command: click.Command = cli
    name = "tb"
    parent: click.Context | None = None
    while True:
        ctx = command.make_context(name, list(args), parent=parent)
        if not isinstance(command, click.Group):
            return
        rest = [*ctx._protected_args, *ctx.args]  # the subcommand and what follows it
        if not rest:
            return
        sub = command.get_command(ctx, rest[0])
        if sub is None:
            raise click.UsageError(f"no such command {rest[0]!r}")
        command, name, args, parent = sub, rest[0], rest[1:], ctx


def is_template(line: str) -> bool:
    """A synopsis (`tb lint [--json]`) or a line with a <placeholder> (`tb retire <id>`)."""
    return ("<" in line and ">" in line) or any(w.startswith("[") for w in shlex.split(line))


CASES = [
    (page, line)
    for page in PAGES
    for line in tb_lines(page.read_text("utf-8"))
    if not is_template(line)
]


def test_the_pages_show_enough_examples_to_check() -> None:
    assert len(CASES) > 50


@pytest.mark.parametrize(
    ("page", "line"), CASES, ids=[f"{p.relative_to(ROOT)}:{i}" for i, (p, _) in enumerate(CASES)]
)
def test_every_documented_tb_line_parses(page: Path, line: str) -> None:
    args = shlex.split(line)[1:]
    try:
        parse(args)
    except click.exceptions.Exit:
        pass  # --help, --version
    except click.ClickException as exc:
        pytest.fail(f"{page.relative_to(ROOT)}: `{line}`: {exc.format_message()}")
