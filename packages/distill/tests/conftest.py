"""Fixtures of the distill tests; the helpers live in distill_testkit.py."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from distill_testkit import SessionWriter, make_brain
from teambrain_kit.paths import BrainLayout, MachineLayout


@pytest.fixture
def brain(tmp_path: Path) -> BrainLayout:
    return make_brain(tmp_path)


@pytest.fixture
def machine(teambrain_home: Path) -> MachineLayout:
    return MachineLayout(teambrain_home)


@pytest.fixture
def session(machine: MachineLayout) -> Callable[..., SessionWriter]:
    """``session(sid, **options)``: a writer with session_start already added."""

    def make(sid: str, **options: Any) -> SessionWriter:
        return SessionWriter(machine, sid, **options).event("session_start")

    return make
