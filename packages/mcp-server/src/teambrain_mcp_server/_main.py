"""Running the server: ``teambrain-mcp-server`` and ``tb serve`` both end up in :func:`serve`."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn, cast, get_args

from teambrain_schema import UserError

from ._fastpath import FastTools, serve_fast
from ._meta import LogLevel, package_version
from ._stdio import StdioWire

if TYPE_CHECKING:
    from ._heartbeat import HeartbeatWriter


def _log_plainly(level: str) -> None:
    # One plain line per record on stderr (stdout is the protocol); set up before the SDK
    # would install its own multi-line console handler.
    logging.basicConfig(
        level=level, stream=sys.stderr, format="teambrain-mcp %(levelname)s %(name)s: %(message)s"
    )


class _Ending:
    """How a server ends when told to (SIGINT, SIGTERM) or when the client closed stdout:
    promptly, with exit code 0 and its heartbeat entry marked stopped."""

    GRACE_S = 1.0  # the most the heartbeat may hold up the exit

    def __init__(self) -> None:
        self.heartbeat: HeartbeatWriter | None = None
        self._started = False

    def on_signals(self) -> None:
        """End on SIGINT and SIGTERM. asyncio would turn SIGINT into a cancellation that waits
        for the stdin reader forever (agent tools then escalate to SIGTERM)."""

        def handler(_signum: int, _frame: FrameType | None) -> None:
            self.now()

        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, handler)

    def cleanup(self) -> None:
        """Mark the heartbeat entry stopped (idempotent)."""
        if self.heartbeat is not None:
            self.heartbeat.stop()

    def now(self) -> NoReturn:
        """Leave now, from any thread: nothing is left to flush to a client that is gone or
        told us to stop, and a thread blocked reading stdin would keep the process alive."""
        if not self._started:
            self._started = True
            worker = threading.Thread(target=self.cleanup, name="ending", daemon=True)
            worker.start()
            worker.join(self.GRACE_S)
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os._exit(0)


def _situation_early(repo: Path | None) -> None:
    """Ask git about the session served (branch, changes, history; kept for the process) before
    the first ``memory_context`` needs it. A head start only: never raises."""
    try:
        from teambrain_retrieval import gather_situation

        from ._target import resolve_target

        root = resolve_target(repo).repo_root
        if root is not None:
            gather_situation(root)
    except Exception:  # the first call asks again and reports any problem itself
        return


def serve(repo: Path | None = None, *, log_level: str = "WARNING") -> int:
    """Serve the brain of ``repo`` (default: the current directory's repository) over stdio
    until the client closes the connection; returns the exit code."""
    level = log_level.upper()
    if level not in get_args(LogLevel):
        raise UserError(f"--log-level: {log_level!r} is not one of {', '.join(get_args(LogLevel))}")
    _log_plainly(level)
    ending = _Ending()
    ending.on_signals()
    if sys.stdin.isatty():
        print(
            "teambrain MCP server on stdio. Agent tools start it for you (see `tb help mcp`, or "
            "https://github.com/teambrain/teambrain/blob/main/docs/mcp.md); "
            "press Ctrl-C to stop.",
            file=sys.stderr,
        )
    wire = StdioWire.claim_stdio(on_gone=ending.now)
    wire.start()
    built: dict[str, Any] = {}
    done = threading.Event()
    tools = FastTools()

    def build() -> None:  # the SDK and the server load while the handshake is answered
        try:
            # git's answers about the session (a tenth of a second of waiting on git) while
            # the service's models are imported beside them
            threading.Thread(
                target=_situation_early, args=(repo,), name="situation", daemon=True
            ).start()
            from teambrain_capture import apply_machine_settings
            from teambrain_retrieval import favour_query_speed

            from ._fastcall import context_answer
            from ._service import build_service

            apply_machine_settings()  # the org brain's location on this machine, for retrieval
            favour_query_speed()  # a server embeds query after query
            service = build_service(repo)
            built["service"] = service
            ending.heartbeat = service.heartbeat  # a fast answer announces the server
            # The brain opens while the SDK loads: the first memory_context finds it ready,
            # and is answered before the SDK has loaded.
            opening = threading.Thread(target=service.prepare, name="prepare-brain", daemon=True)
            opening.start()
            tools.offer(lambda: context_answer(service))
            tools.sdk_turn(opening)  # the first answer before the SDK's import, not beside it

            from ._handover import serve_on_wire
            from ._server import build_server

            built["server"] = build_server(service=service, log_level=cast(LogLevel, level))
            built["serve"] = serve_on_wire
            ending.heartbeat = built["server"].service.heartbeat  # a signal marks it stopped
        except BaseException as exc:  # re-raised on the main thread
            built["error"] = exc
        finally:
            tools.close()  # a build that failed before the service: the SDK path reports it
            done.set()

    threading.Thread(target=build, name="build-server", daemon=True).start()
    try:
        replay, pending = serve_fast(wire, done, package_version(), tools)
    except EOFError:  # the client went away before it needed the server
        tools.wait_offered(ending.GRACE_S)
        service = built.get("service")  # a fast answer may have announced the server
        ending.heartbeat = service.heartbeat if service is not None else None
        ending.cleanup()
        return 0
    done.wait()
    if "error" in built:
        raise built["error"]
    server = built["server"]
    ending.heartbeat = server.service.heartbeat
    built["serve"](server, wire, replay, pending)
    ending.cleanup()
    return 0


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point of ``teambrain-mcp-server``."""
    parser = argparse.ArgumentParser(
        prog="teambrain-mcp-server",
        description="The teambrain MCP server (stdio): the team brain's memory tools "
        "(`tb help mcp` describes each).",
    )
    parser.add_argument(
        "--repo",
        type=Path,
        default=None,
        help="serve this repository's brain (default: the current directory's repository)",
    )
    parser.add_argument(
        "--log-level",
        type=str.upper,
        choices=get_args(LogLevel),
        default="WARNING",
        help="what the server logs to stderr (default: WARNING)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    options = parser.parse_args(argv)
    leave(serve(options.repo, log_level=options.log_level))


def leave(code: int) -> NoReturn:
    """End the process once :func:`serve` returned (the client closed the connection, the
    heartbeat is marked stopped): ``atexit`` runs and the standard streams are flushed, but the
    interpreter is not torn down. The server's daemon threads (the brain's opening, the model's
    load, git's answers) may still be inside native code or writing to stderr, and a teardown
    under them can abort the process (SIGABRT) instead of exiting 0."""
    import atexit

    with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more can be read
        sys.stdout.flush()
        sys.stderr.flush()
    atexit._run_exitfuncs()
    os._exit(code)
