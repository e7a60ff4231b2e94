"""What users of llm, gh and basic-memory expect of a CLI: bare `tb` helps, summaries whole,
examples in every verb's help, suggestions for typos, the versions of all eight packages,
shell completion, colour only on a terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from hypothesis import given, strategies as st
from teambrain_cli._main import SUMMARIES, cli, run

VERBS = cli.list_commands(click.Context(cli))


def test_bare_tb_prints_help_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert run([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: tb [OPTIONS] COMMAND") and "Commands:" in out


def test_no_summary_is_cut_and_every_verb_has_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--help"]) == 0
    out = capsys.readouterr().out
    assert "..." not in out.split("Commands:", 1)[1]  # ("[ARGS]..." in the usage line is click's)
    assert set(SUMMARIES) == set(VERBS)  # a new verb needs its one line
    for verb, summary in SUMMARIES.items():
        assert len(summary) <= 80 and not summary.endswith("."), verb


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_help_has_examples(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([verb, "--help"]) == 0
    out = capsys.readouterr().out
    assert "Examples:" in out and f"tb {verb}" in out.split("Examples:", 1)[1]


def test_a_mistyped_verb_or_tool_gets_a_suggestion(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["lnt"]) == 1
    assert "Did you mean 'lint'?" in capsys.readouterr().err
    assert run(["candidate"]) == 1
    assert "Did you mean 'candidates'?" in capsys.readouterr().err
    assert run(["install", "cursr"]) == 1
    assert "did you mean 'cursor'?" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (["list", "-c", "decison"], "decision"),
        (["relevant", "-q", "x", "--view", "humn"], "human"),
        (["digest", "--format", "mardown"], "markdown"),
        (["completion", "bsh"], "bash"),
        (["candidates", "list", "--status", "pendng"], "pending"),
        (["trust", "distil"], "distill"),
    ],
)
def test_a_mistyped_value_gets_a_suggestion(
    args: list[str], meant: str, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(args) == 1
    assert f"Did you mean {meant!r}?" in capsys.readouterr().err


def test_version_lists_the_eight_packages(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"]) == 0
    out = capsys.readouterr().out
    for name in ("cli", "mcp-server", "sync", "distill", "retrieval", "capture", "schema", "kit"):
        assert f"teambrain-{name} " in out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_and_completing_a_verb(
    shell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["completion", shell]) == 0
    assert "_TB_COMPLETE" in capsys.readouterr().out
    tb = Path(sys.executable).parent / "tb"
    done = subprocess.run([str(tb)], env={**os.environ, "_TB_COMPLETE": "bash_complete",
                          "COMP_WORDS": "tb cand", "COMP_CWORD": "1"}, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert "candidates" in done.stdout


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    from teambrain_cli._console import output

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdout", Tty())
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert output.paint("x", fg="red") != "x"
    monkeypatch.setenv("NO_COLOR", "1")
    assert output.paint("x", fg="red") == "x"
    monkeypatch.delenv("NO_COLOR")
    with open(os.devnull, "w") as devnull:
        monkeypatch.setattr(sys, "stdout", devnull)
        assert output.paint("x", fg="red") == "x"


def test_fit_and_fit_middle_keep_within_the_width() -> None:
    from teambrain_cli._console.output import fit, fit_middle

    path = (
        ".teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F04-test-checkout-timeout-is-flaky.md"
    )
    for width in (10, 40, 86, 100):
        assert len(fit(path, width)) <= width and len(fit_middle(path, width)) <= width
    assert fit_middle(path, 40).endswith("flaky.md") and fit(path, None) == path


@given(
    text=st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")) | st.just("\n"),
                 max_size=400),
    width=st.integers(min_value=20, max_value=200),
)  # fmt: skip
def test_wrap_text_fits_every_line_and_keeps_every_character(text: str, width: int) -> None:
    from teambrain_cli._console.output import wrap_text

    wrapped = wrap_text(text, width)
    assert all(len(line) <= width for line in wrapped.split("\n"))
    assert "".join(wrapped.split()) == "".join(text.split())
    assert wrap_text(text, None) == text


def test_wrap_text_leaves_a_coloured_line_that_fits_alone() -> None:
    from teambrain_cli._console.output import wrap_text

    line = click.style("ok", fg="green") + " " + "x" * 95
    assert wrap_text(line, 100) == line
    assert wrap_text("  1. " + "word " * 30, 40).split("\n")[1].startswith("     word")


@pytest.mark.parametrize(
    ("words", "usage"),
    [
        ([], "Usage: tb [OPTIONS] COMMAND"),
        # A verb's documentation page, as `git help <verb>` prints its manual (issue 42 point 3;
        # `tb install -h` is the options in brief).
        (["install"], "# `tb install`\n"),
        (["candidates", "show"], "## `tb candidates show ID`\n"),
    ],
)
def test_tb_help_is_the_verbs_help_as_in_git_and_gh(
    words: list[str], usage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["help", *words]) == 0
    assert capsys.readouterr().out.startswith(usage)


def test_tb_help_of_an_unknown_verb_is_a_user_error_with_a_suggestion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["help", "lnt"]) == 1
    assert "Did you mean 'lint'?" in capsys.readouterr().err
    assert run(["help", "install", "cursor"]) == 1
    assert "`tb install` has no subcommand 'cursor'" in capsys.readouterr().err


def test_candidates_alone_takes_the_options_of_candidates_list(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    assert run(["candidates", "--json", "--status", "all"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "ok": True, "candidates": [], "other_repositories_pending": 0, "unreadable": [],
    }  # fmt: skip
    assert run(["candidates", "--json", "show", "7QH2"]) == 1
    captured = capsys.readouterr()
    assert "`tb candidates show --json`" in captured.err
    assert json.loads(captured.out)["ok"] is False
    assert run(["candidates", "--all-repos", "show", "7QH2"]) == 1  # show has no --all-repos
    assert "is an option of `tb candidates list`, not of `show`" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [["completion"], ["completion", "tcsh"], ["list", "--class"], ["digest", "--format", "x"]],
)
def test_every_usage_error_is_one_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("tb: ") and err.count("\n") == 1, err


def test_no_subcommand_summary_is_cut_on_a_narrow_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert run(["candidates", "--help"]) == 0
    commands = capsys.readouterr().out.split("Commands:", 1)[1]
    assert "..." not in commands and "`tb propose --all` will not" in commands


def _complete(words: str, cwd: Path) -> list[str]:
    """What bash completion offers for the last word of ``words`` (click's protocol)."""
    tb = Path(sys.executable).parent / "tb"
    env = {**os.environ, "_TB_COMPLETE": "bash_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}  # fmt: skip
    done = subprocess.run([str(tb)], env=env, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return [line.split(",", 1)[1] for line in done.stdout.splitlines()]


def test_completion_offers_tool_names_settings_memory_and_candidate_ids(repo: Path) -> None:
    assert "claude-code" in _complete("tb install cl", repo)
    assert "cursor" in _complete("tb install ", repo)
    assert _complete("tb trust dis", repo) == ["distill"]
    memory = repo / ".teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F04-flaky.md"
    memory.parent.mkdir(parents=True)
    memory.write_text("---\nid: 01KB2F0A1S9Y4Q7V3C8D5E6F04\n---\n")
    assert _complete("tb show 01kb", repo) == ["01KB2F0A1S9Y4Q7V3C8D5E6F04"]
    assert _complete("tb retire ", repo) == ["01KB2F0A1S9Y4Q7V3C8D5E6F04"]
    assert run(["init"]) == 0
    (repo / "CLAUDE.md").write_text(
        "# Notes\n\n## Tests\n\nRun the fake clock in checkout tests.\n"
    )
    assert run(["import"]) == 0
    queued = _complete("tb candidates show ", repo)
    assert len(queued) == 1 and _complete("tb propose ", repo) == queued
    assert _complete("tb candidates drop ", repo) == queued


def test_install_before_init_says_the_brain_comes_from_tb_init(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    assert run(["install", "claude-code", "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("`tb init`" in note for note in notes), notes
    assert run(["init"]) == 0
    capsys.readouterr()
    assert run(["install", "cursor", "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert not any("`tb init`" in note for note in notes), notes


@pytest.mark.parametrize("code", ["EROFS", "EACCES"])
def test_a_home_that_cannot_be_written_says_where_to_put_it(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A read-only or forbidden $TEAMBRAIN_HOME: the one line names the folder and the two ways
    out; a refusal elsewhere (a repository file) gets no such advice."""
    import errno

    from teambrain_cli import _main
    from teambrain_kit.paths import machine_layout

    home = machine_layout().home

    def refuse(where: Path) -> Callable[..., object]:
        def main(*_args: object, **_kwargs: object) -> object:
            raise OSError(getattr(errno, code), os.strerror(getattr(errno, code)), str(where))

        return main

    monkeypatch.setattr(_main.cli, "main", refuse(home / "spool"))
    assert run(["import"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{home}: make it writable, or set TEAMBRAIN_HOME" in err
    monkeypatch.setattr(_main.cli, "main", refuse(tmp_path / "AGENTS.md"))
    assert run(["export"]) == 2
    assert "TEAMBRAIN_HOME" not in capsys.readouterr().err
