"""Ctrl-C stops ``tb ui`` even while a page is being prepared: the stop removes the snapshots of
past brains without waiting on a call that holds the pages' lock (the first page's warm-up may
hold it for minutes, waiting for another process's work on the index)."""

from __future__ import annotations

import contextlib
import shutil
import threading
from pathlib import Path
from typing import Any

from teambrain_capture import RepoKeys
from teambrain_cli._ui.context import PastBrain, UiContext
from teambrain_kit.paths import BrainLayout, MachineLayout


def _context(tmp_path: Path) -> UiContext:
    return UiContext(
        BrainLayout(tmp_path / "repo"), MachineLayout(tmp_path / "home"), RepoKeys(None)
    )


def _past(ctx: UiContext, snapshot: Path) -> None:
    snapshot.mkdir(parents=True)
    stack = contextlib.ExitStack()
    stack.callback(shutil.rmtree, snapshot, True)
    past: Any = PastBrain(commit=None, view=None, stack=stack)  # type: ignore[arg-type]
    ctx._past["abc"] = past


def _held(ctx: UiContext) -> tuple[threading.Event, threading.Event]:
    """A call holding the lock (as a warm-up waiting on the index does) until released."""
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with ctx.locked():
            holding.set()
            release.wait(60)

    threading.Thread(target=hold, daemon=True).start()
    assert holding.wait(10)
    return holding, release


def test_a_stop_while_a_page_is_prepared_ends_and_removes_the_snapshots(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    _past(ctx, tmp_path / "snapshot")
    _, release = _held(ctx)
    try:
        settled: list[bool] = []
        stopper = threading.Thread(target=lambda: settled.append(ctx.stop(wait_s=0.1)), daemon=True)
        stopper.start()
        stopper.join(20)  # a hang, not a timing: the lock is held until the test ends
        assert not stopper.is_alive(), "stop waited for the call holding the lock"
        assert not (tmp_path / "snapshot").exists()
        assert settled == [False]  # so tb ui ends the process itself, not the interpreter's exit
    finally:
        release.set()


def test_a_stop_with_nothing_running_takes_the_lock_and_empties_the_past(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    _past(ctx, tmp_path / "snapshot")
    assert ctx.stop() is True
    assert not (tmp_path / "snapshot").exists() and not ctx._past
