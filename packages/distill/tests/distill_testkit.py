"""Shared by the distill tests and the end-to-end tests: a brain in a real git repository,
spool sessions written as the capture hook writes them, and a scripted driver that answers
per session (conftest.py puts this folder on sys.path)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from teambrain_distill import DEFAULT_PROMPTS, AttemptGuard, Request
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_schema import BRAIN_YAML_TEMPLATE, MEMORY_CLASSES

NOW = dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.UTC)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def commit(repo: Path, subject: str) -> str:
    git(repo, "commit", "-q", "--allow-empty", "-m", subject)
    return git(repo, "rev-parse", "HEAD")


def write_config(layout: BrainLayout, **distill: Any) -> None:
    """brain.yaml with the ``distill:`` keys replaced by ``distill`` (the fake driver and its
    model unless given: a fresh brain.yaml names no model)."""
    distill = {"driver": "fake", "model": "fake-distiller-1", **distill}
    text = BRAIN_YAML_TEMPLATE
    for key, value in distill.items():
        lines = text.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith(f"  {key}:"))
        lines[at] = f"  {key}: {json.dumps(value)}"
        text = "\n".join(lines) + "\n"
    layout.brain_yaml.write_text(text)


def make_brain(tmp_path: Path) -> BrainLayout:
    """A git repository named ``shop`` with an initialised brain and one commit."""
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    layout = BrainLayout(repo)
    for memory_class in MEMORY_CLASSES:
        layout.class_dir(memory_class).mkdir(parents=True)
    layout.retired.mkdir()
    layout.prompts.mkdir()
    for name, text in DEFAULT_PROMPTS.items():
        (layout.prompts / name).write_text(text)
    write_config(layout)
    commit(repo, "initial")
    return layout


@dataclass
class SessionWriter:
    """Writes a session's events to the spool like the capture hook does."""

    machine: MachineLayout
    sid: str
    repo: str = "shop"
    branch: str = "main"
    start: dt.datetime = NOW - dt.timedelta(hours=2)
    lines: list[dict[str, Any]] = field(default_factory=list)

    def event(self, ev: str, data: dict[str, Any] | None = None, **extra: Any) -> SessionWriter:
        moment = self.start + dt.timedelta(minutes=len(self.lines))
        record = {
            "v": 1, "sid": self.sid, "t": moment.isoformat().replace("+00:00", "Z"),
            "tool": "claude-code", "model": "claude-sonnet", "repo": self.repo,
            "branch": self.branch, "ev": ev, "data": data or {}, **extra,
        }  # fmt: skip
        self.lines.append(record)
        return self

    def intent(self, summary: str) -> SessionWriter:
        return self.event("intent", {"summary": summary})

    def tool(
        self, kind: str, path: str | None = None, exit_code: int | None = None
    ) -> SessionWriter:
        data: dict[str, Any] = {"kind": kind}
        if path is not None:
            data["path"] = path
        if exit_code is not None:
            data["exit_code"] = exit_code
        return self.event("tool_use", data)

    def end(self, outcome: str = "committed", commits: list[str] | None = None) -> SessionWriter:
        return self.event(
            "session_end",
            {"outcome": outcome, "duration_s": 600.0, "turns": 7, "commit_shas": commits or []},
        )

    def write(self) -> Path:
        path = self.machine.session_file(self.sid)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            for record in self.lines:
                handle.write(json.dumps(record) + "\n")
        self.lines = []
        return path


def proposal(
    title: str,
    body: str = "Use the fake clock in timeout tests; real sleeps make them flaky.",
    *,
    memory_class: str = "learning",
    sessions: list[str] | None = None,
    commits: list[str] | None = None,
    tags: list[str] | None = None,
) -> dict[str, Any]:
    """One proposed memory as a model would answer it."""
    return {
        "class": memory_class, "title": title, "body": body, "tags": tags or ["testing"],
        "priority": "advisory", "scope": "team",
        "evidence": {"sessions": sessions or ["S1"], "commits": commits or []},
    }  # fmt: skip


class ScriptedDriver:
    """Answers each request from ``answers[sid]`` (found through the validation context), or
    from ``default``; every request it saw is kept for assertions. Each answer is a list of
    responses, one per attempt, like a fixture."""

    name = "scripted"

    def __init__(self, answers: dict[str, list[Any]], default: list[Any] | None = None) -> None:
        self.answers = answers
        self.default = default if default is not None else [{"candidates": []}]
        self.requests: list[Request] = []

    def generate(
        self,
        request: Request,
        schema: type[BaseModel],
        *,
        guard: AttemptGuard,
        context: dict[str, Any] | None = None,
    ) -> Any:
        from teambrain_distill._fake import FakeDriver

        self.requests.append(request)
        sid = next(iter((context or {}).get("sessions", {}).values()), None)
        responses = self.answers.get(sid or "", self.default)
        replay = FakeDriver(Path("/nonexistent"))
        replay.store.load = lambda _request: _Fixture(responses)  # type: ignore[method-assign]
        return replay.generate(request, schema, guard=guard, context=context)


@dataclass
class _Fixture:
    responses: list[Any]
    path: Path = Path("scripted.json")
