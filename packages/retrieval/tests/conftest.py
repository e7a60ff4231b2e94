"""Fixtures: a brain in a temp git repository, memory files, retrievers with the test embedder."""

from __future__ import annotations

import datetime as dt
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_retrieval import HashEmbedder, Retriever, RetrieverOptions, open_retriever
from teambrain_schema import BRAIN_YAML_TEMPLATE, BrainConfig
from teambrain_schema.ids import new_ulid

MakeMemory = Callable[..., Path]


def init_brain(root: Path, brain_yaml: str = BRAIN_YAML_TEMPLATE) -> BrainLayout:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    layout = BrainLayout(root)
    for folder in ("decisions", "conventions", "map", "learnings"):
        (layout.memories / folder).mkdir(parents=True, exist_ok=True)
    layout.retired.mkdir(parents=True, exist_ok=True)
    layout.brain_yaml.write_text(brain_yaml, "utf-8")
    return layout


def memory_text(memory_id: str, title: str, body: str, **front: Any) -> str:
    fields: dict[str, Any] = {
        "id": memory_id, "class": "learning", "scope": "team", "status": "active",
        "priority": "advisory", "title": title, "created": "2026-11-16",
    }  # fmt: skip
    fields.update({key.rstrip("_"): value for key, value in front.items()})
    lines = ["---"]
    for key, value in fields.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{k}: [{', '.join(v)}]" for k, v in value.items())
            lines.append(f"{key}: {{{inner}}}")
        elif isinstance(value, list):
            lines.append(f"{key}: [{', '.join(str(v) for v in value)}]")
        elif value is None:
            lines.append(f"{key}: null")
        else:
            text = str(value)
            lines.append(f"{key}: '{text}'" if ":" in text else f"{key}: {text}")
    lines += ["---", "", body, ""]
    return "\n".join(lines)


def write_memory(
    layout: BrainLayout,
    title: str,
    body: str,
    *,
    memory_id: str | None = None,
    retired: bool = False,
    **front: Any,
) -> Path:
    memory_id = memory_id or new_ulid()
    memory_class = front.get("class_", "learning")
    folder = {"decision": "decisions", "convention": "conventions", "map": "map",
              "learning": "learnings"}[memory_class]  # fmt: skip
    directory = layout.retired if retired else layout.memories / folder
    path = directory / f"{memory_id}-note.md"
    if retired:
        front.setdefault("status", "retired")
    path.write_text(memory_text(memory_id, title, body, **front), "utf-8")
    return path


@pytest.fixture
def layout(tmp_path: Path) -> BrainLayout:
    return init_brain(tmp_path / "repo")


@pytest.fixture
def make_memory(layout: BrainLayout) -> MakeMemory:
    def make(title: str, body: str, **front: Any) -> Path:
        return write_memory(layout, title, body, **front)

    return make


class Notices(list[str]):
    """Collected one-line notices (what a user would see on stderr)."""


@pytest.fixture
def notices() -> Notices:
    return Notices()


TODAY = dt.date(2026, 12, 1)


@pytest.fixture
def open_test_retriever(notices: Notices) -> Callable[..., Retriever]:
    def make(
        layout: BrainLayout,
        *,
        config: BrainConfig | None = None,
        home: MachineLayout | None = None,
        **options: Any,
    ) -> Retriever:
        options.setdefault("embedder", HashEmbedder())
        options.setdefault("warn", notices.append)
        options.setdefault("today", lambda: TODAY)
        options.setdefault("refresh_interval", 0.0)
        return open_retriever(layout, RetrieverOptions(**options), config=config, home=home)

    return make


@pytest.fixture
def new_brain() -> Callable[..., BrainLayout]:
    """``new_brain(root, brain_yaml=...)``: another brain in a fresh git repository."""
    return init_brain


@pytest.fixture
def write() -> Callable[..., Path]:
    """``write(layout, title, body, **front)``: a memory file in any brain."""
    return write_memory
