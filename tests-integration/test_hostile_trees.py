"""Issue 32: a brain folder nested thousands deep, which had every verb end in "internal error:
RecursionError" (os.walk recursed once per level), is one problem that lint names; every other
verb answers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from test_hostile_writes import MEMORY, _brain, _clean
from untrusted import run_bounded


def test_a_folder_nested_thousands_deep_is_one_problem_not_an_internal_error(
    repo: Path, tb: Any, git_run: Any
) -> None:
    _brain(repo, tb, git_run)
    top = repo / ".teambrain" / "memories" / "map"
    _nest(top, LEVELS)
    try:
        _deep_verbs(repo)
    finally:
        _unnest(top, LEVELS)  # shutil.rmtree (pytest's cleanup) recurses out of the stack too


LEVELS = 1_500  # past Python's recursion limit (1,000), which os.walk recursed into


def _nest(top: Path, levels: int) -> None:
    cwd = os.getcwd()
    os.chdir(top)
    try:
        for _ in range(levels):  # one level at a time: a path this long has no single name
            os.mkdir("d")
            os.chdir("d")
        Path("01KB2F0A1S9Y4Q7V3C8D5E6F05-deep.md").write_text(MEMORY)
    finally:
        os.chdir(cwd)


def _unnest(top: Path, levels: int) -> None:
    cwd = os.getcwd()
    os.chdir(top)
    try:
        for _ in range(levels):
            os.chdir("d")
        Path("01KB2F0A1S9Y4Q7V3C8D5E6F05-deep.md").unlink()
        for _ in range(levels):
            os.chdir("..")
            os.rmdir("d")
    finally:
        os.chdir(cwd)


def _deep_verbs(repo: Path) -> None:
    verbs = [("lint",), ("list",), ("reindex", "--index-md-only"), ("metrics",),
             ("relevant", "-q", "payment gateway"), ("show", "01KB2F0A1S9Y4Q7V3C8D5E6F01")]  # fmt: skip
    for args in verbs:
        done, _ = run_bounded(repo, *args)
        said = _clean(done)
        if args == ("lint",):
            assert "folders nested more than 16 deep: not read" in said
        if args == ("list",):
            assert "Payments go through the gateway" in said
