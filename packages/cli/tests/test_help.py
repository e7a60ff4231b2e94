"""``tb help <topic>`` (issue 42 point 3): the documentation a wheel user has is docs/'s, every
topic renders, every link leads to a topic or an address, and every message that sends a
reader to the documentation names a topic (and section) that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_cli._help.pages import find_page, page_text, pages, render, section, slug
from teambrain_cli._help.sync import differences
from teambrain_cli._main import run

ROOT = Path(__file__).resolve().parents[3]


def test_the_shipped_pages_are_the_docs_pages() -> None:
    changed = differences(ROOT / "docs")
    assert not changed, f"run `make help-pages`: these pages differ from docs/: {changed}"


def test_every_verb_has_its_page_and_every_topic_renders() -> None:
    import click
    from teambrain_cli._main import cli

    verbs = cli.list_commands(click.Context(cli))
    known = pages()
    assert set(verbs) <= {t for t, p in known.items() if p.is_verb}
    for topic, page in known.items():
        text = render(page, page_text(page))
        assert text.startswith("# ") and "](" not in re.sub(
            r"^```.*?^```", "", text, flags=re.S | re.M
        ), topic
        for target in re.findall(r"\(tb help ([\w.-]+)(?:#([\w-]+))?\)", text):
            assert target[0] in known, (topic, target)
            if target[1]:
                assert section(page_text(known[target[0]]), target[1]) is not None, (topic, target)


def _messages() -> list[tuple[str, str]]:
    """Every `tb help <topic>[#section]` the packages' sources send a reader to."""
    found = []
    for path in sorted((ROOT / "packages").glob("*/src/**/*")):
        if path.suffix not in (".py", ".js", ".yaml", ".html") or "_help" in path.parts:
            continue
        for match in re.finditer(r"tb help ([a-z][\w.-]*)(?:#([\w-]+))?", path.read_text("utf-8")):
            found.append((f"{path.relative_to(ROOT)}: {match.group(0)}", match.group(0)))
    return found


def test_every_message_names_a_topic_that_exists() -> None:
    messages = _messages()
    assert len(messages) >= 8  # doctor, distill, the brain.yaml comments, serve, sync, …
    for where, words in messages:
        topic = words.split()[2]
        if topic in ("topics",) or topic.startswith(("<", "VERB")):
            continue
        name, _, anchor = topic.partition("#")
        page, _ = find_page((name,))
        if anchor:
            assert section(page_text(page), anchor) is not None, where


def test_no_message_sends_a_wheel_user_to_docs() -> None:
    """Issue 42 point 3: docs/… exists only in a clone; messages and the comments of files tb
    writes (brain.yaml, adapters.yaml, the opencode plugin) point to `tb help` instead."""
    literal = re.compile(r"""(["'])(?:(?!\1).)*\bdocs/[\w./#-]*(?:(?!\1).)*\1""")
    offenders = []
    for path in sorted((ROOT / "packages").glob("*/src/**/*")):
        if path.suffix not in (".py", ".js", ".yaml") or "_help" in path.parts:
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            stripped = line.strip()
            if "https://" in line or stripped.startswith(('"""', "``", "python -m")):
                continue
            comment = stripped.startswith(("#", "//")) and path.suffix in (".yaml", ".js")
            if literal.search(line) or (comment and "docs/" in line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {stripped}")
    allowed = {"packages/schema/src/teambrain_schema/_schemas.py"}  # a developer's make target
    assert [o for o in offenders if o.split(":")[0] not in allowed] == []


@pytest.mark.parametrize(
    ("words", "starts"),
    [
        (["config"], "# Configuration: `.teambrain/brain.yaml`"),
        (["propose"], "# `tb propose`"),
        (["candidates", "show"], "## `tb candidates show ID`"),
        (["docs/config.md#machine-local"], "## Machine-local settings"),
        (["distill-guide"], "# The distiller"),
        (["cli/propose.md"], "# `tb propose`"),
    ],
)
def test_tb_help_prints_the_page_of_a_topic(
    words: list[str], starts: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["help", *words]) == 0
    out = capsys.readouterr().out
    assert out.startswith(starts), out[:200]


def test_topics_lists_guides_and_verbs(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["help", "topics"]) == 0
    out = capsys.readouterr().out
    assert "  config " in out and "  mcp " in out and "  propose " in out


def test_an_unknown_topic_or_section_is_a_user_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["help", "confg"]) == 1
    assert "Did you mean 'config'" in capsys.readouterr().err
    assert run(["help", "config#nowhere"]) == 1
    assert "config has no section #nowhere" in capsys.readouterr().err


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=600), st.text(max_size=40))
def test_rendering_and_sections_never_raise(text: str, anchor: str) -> None:
    page = pages()["config"]
    rendered = render(page, text)
    assert rendered.endswith("\n")
    section(text, anchor)
    slug(anchor)
