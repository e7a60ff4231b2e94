"""Helpers for end-to-end tests: real git repositories in temp dirs, the installed ``tb``."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # teamharness, gh_standin

from tbrun import git, run_tb
from teamharness import BrainKind, Team, build_seed, make_team

# The model lane (models/: a real llama-cpp-python server, ~7 minutes to build once) runs as
# `make test-models`, not in `make test`; docs/distill.md says why.
collect_ignore = [] if os.environ.get("TEAMBRAIN_MODEL_LANE") == "1" else ["models"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty git repository with one commit."""
    path = tmp_path / "repo"
    path.mkdir()
    git("init", "-q", "-b", "main", cwd=path)
    (path / "README.md").write_text("# demo\n")
    git("add", "README.md", cwd=path)
    git("commit", "-q", "-m", "initial", cwd=path)
    return path


@pytest.fixture
def tb() -> object:
    """``tb(*args, cwd=..., env=..., input=...)`` runs the installed console script."""
    return run_tb


@pytest.fixture
def git_run() -> object:
    """``git_run(*args, cwd=...)`` runs git and returns stdout."""
    return git


@pytest.fixture(scope="session")
def wheels() -> Path:
    """The seven wheels built from the workspace and the third-party wheels they need (see
    wheelhouse.py): built once for these sources and shared by every test process and every
    later run (tests-integration/.cache/). Read it, never write into it."""
    from wheelhouse import cached_wheelhouse

    return cached_wheelhouse()


@pytest.fixture(scope="session")
def installed(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``installed("pip" | "uv-tool" | "pipx")``: the bin directory of teambrain-cli installed
    from the wheels by that installer into a scratch prefix, once per test process."""
    from wheelhouse import install_with_pip, install_with_pipx, install_with_uv_tool

    installers = {
        "pip": install_with_pip,
        "uv-tool": install_with_uv_tool,
        "pipx": install_with_pipx,
    }
    done: dict[str, Path] = {}

    def get(installer: str) -> Path:
        if installer not in done:
            done[installer] = installers[installer](wheels, tmp_path_factory.mktemp(installer))
        return done[installer]

    return get


@pytest.fixture(scope="session")
def _team_seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Seed remotes built once per test process, by kind of brain (see teamharness)."""
    return {}


def _team_factory(
    seeds: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, where: Callable[[int], Path]
) -> Callable[..., Team]:
    """The ``factory(names, brain=…, gh=…, embedder=…)`` both team fixtures give; team N is
    made in ``where(N)``."""
    made = 0

    def factory(
        names: Sequence[str] = ("ada", "bob", "cyd"),
        *,
        brain: BrainKind = "demo",
        gh: bool = True,
        embedder: str = "local",
    ) -> Team:
        nonlocal made
        key = f"{brain}-{embedder}"
        if key not in seeds:
            seeds[key] = build_seed(tmp_path_factory.mktemp("team-seed"), brain, embedder=embedder)
        made += 1
        return make_team(where(made), names, seed=seeds[key], gh=gh)

    return factory


@pytest.fixture
def team_factory(
    tmp_path: Path, _team_seeds: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., Team]:
    """``team_factory(names=("ada", "bob", "cyd"), brain="demo", gh=True, embedder="local")``:
    a team of developers sharing one bare remote, with a ``gh`` stand-in (see teamharness.py)."""
    return _team_factory(_team_seeds, tmp_path_factory, lambda n: tmp_path / f"team{n}")


@pytest.fixture(scope="module")
def module_team_factory(
    _team_seeds: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., Team]:
    """``team_factory`` for a team the tests of a module share (built once per test process:
    pytest-xdist may give a module's tests to several, so each test must stand on its own —
    its own developers, say — whatever ran before it)."""
    return _team_factory(
        _team_seeds, tmp_path_factory, lambda n: tmp_path_factory.mktemp(f"module-team{n}")
    )


class AttackerHost:
    """A TCP listener on 127.0.0.1 standing in for a host a hostile commit points at: it
    records every connection and the first bytes sent, and answers HTTP 500."""

    def __init__(self) -> None:
        import socket
        import threading

        self.received: list[bytes] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self.port = self._server.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    data = conn.recv(65536)
                except OSError:
                    data = b""
                self.received.append(data)
                with contextlib.suppress(OSError):
                    conn.sendall(
                        b"HTTP/1.1 500 no\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._server.close()


@pytest.fixture
def attacker_host() -> Iterator[AttackerHost]:
    """An :class:`AttackerHost` for the test (closed afterwards)."""
    host = AttackerHost()
    yield host
    host.close()


@pytest.fixture(scope="session")
def ui_world(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The repository ``tb ui`` is tested on, built once per test process (see uiworld.py)."""
    from uiworld import build_world

    return build_world(tmp_path_factory.mktemp("ui-world"))


@pytest.fixture(scope="session")
def ui_server(ui_world: Any) -> Iterator[Any]:
    """One ``tb ui --no-browser`` serving ``ui_world`` for the whole test process."""
    from uiworld import start_ui

    server = start_ui(ui_world.dev)
    try:
        yield server
    finally:
        server.stop()


def memory_file(
    repo: Path, memory_id: str, title: str, body: str, *, folder: str = "learnings",
    memory_class: str = "learning",
) -> Path:  # fmt: skip
    """Write one valid memory file into ``repo``'s brain (advisory, team scope)."""
    path = repo / ".teambrain" / "memories" / folder / f"{memory_id}-note.md"
    path.write_text(
        f"---\nid: {memory_id}\nclass: {memory_class}\nscope: team\nstatus: active\n"
        f"priority: advisory\ntitle: {title}\ncreated: 2026-01-05\n"
        "evidence: {sessions: [], commits: []}\nsupersedes: []\ntags: []\nttl_days: null\n"
        f"---\n{body}\n"
    )
    return path


@pytest.fixture
def write_memory() -> object:
    """``write_memory(repo, memory_id, title, body, folder=..., memory_class=...)``."""
    return memory_file
