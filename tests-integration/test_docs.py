"""Every verb, flag and config key is documented (a test fails otherwise)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from teambrain_cli import cli
from teambrain_schema import BrainConfig

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
VERBS = cli.list_commands(click.Context(cli))


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_and_flag_is_documented(verb: str) -> None:
    page = DOCS / "cli" / f"{verb}.md"
    assert page.is_file(), f"docs/cli/{verb}.md is missing"
    text = page.read_text("utf-8")
    assert f"tb {verb}" in text
    command = cli.get_command(click.Context(cli), verb)
    assert command is not None
    commands = [(verb, command)]
    if isinstance(command, click.Group):  # `tb candidates list|show|drop`: each one's flags too
        for name in command.list_commands(click.Context(command)):
            sub = command.get_command(click.Context(command), name)
            assert sub is not None
            assert f"tb {verb} {name}" in text, f"tb {verb} {name} is not documented"
            commands.append((f"{verb} {name}", sub))
    for label, each in commands:
        for param in each.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("-") and opt not in ("-h", "--help"):
                    assert f"`{opt}" in text or f" {opt}" in text, (
                        f"{opt} of tb {label} is not documented"
                    )


def _keys(model: type, prefix: str = "") -> list[str]:
    keys = []
    for name, field in model.model_fields.items():  # type: ignore[attr-defined]
        dotted = f"{prefix}{name}"
        annotation = field.annotation
        if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
            keys.extend(_keys(annotation, dotted + "."))
        else:
            keys.append(dotted)
    return keys


def test_every_brain_yaml_key_is_documented() -> None:
    text = (DOCS / "config.md").read_text("utf-8")
    missing = [key for key in _keys(BrainConfig) if f"`{key}`" not in text]
    assert not missing, f"undocumented brain.yaml keys: {missing}"


def test_readme_quick_start_is_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    quick = readme.split("## Quick start", 1)[1].split("##", 1)[0]
    commands = [
        line.split("#")[0].strip()
        for line in quick.split("```sh", 1)[1].split("```", 1)[0].strip().splitlines()
    ]
    assert commands == ["make demo", "make test"]
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    # the property tests draw the same examples at every run of the gate (conftest.py's "ci")
    assert 'export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"' in ci.splitlines()
    assert [
        line for line in ci.splitlines()
        if line and not line.startswith(("#", "set ", "cd ", "export HYPOTHESIS_PROFILE="))
    ] == [
        "make test", "make test-versions", "make lint", "make types", "make imports", "make build-check",
        "make changelog-check",
    ]  # fmt: skip


def test_every_distill_driver_is_in_the_drivers_table() -> None:
    """docs/distill.md's driver table names exactly the drivers `distill.driver` accepts."""
    from typing import get_args

    from teambrain_schema import DistillConfig

    text = (DOCS / "distill.md").read_text("utf-8")
    table = text.split("\n## Drivers\n", 1)[1].split("\n#", 1)[0]
    rows = {line.split("`")[1] for line in table.splitlines() if line.startswith("| `")}
    assert rows == set(get_args(DistillConfig.model_fields["driver"].annotation))


def test_every_mcp_tool_has_its_section() -> None:
    """docs/mcp.md has a `## \\`<tool>(…)\\`` section for each tool the server lists."""
    from teambrain_mcp_server import TOOL_NAMES

    headings = (DOCS / "mcp.md").read_text("utf-8").splitlines()
    for name in TOOL_NAMES:
        assert any(line.startswith(f"## `{name}(") for line in headings), (
            f"docs/mcp.md has no `## \\`{name}(...)\\`` section"
        )
