"""Running the server: ``teambrain-mcp-server`` and ``tb serve`` both end up in :func:`serve`."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import cast, get_args

from teambrain_schema import UserError

from ._server import LogLevel, build_server, package_version


def _log_plainly(level: str) -> None:
    # One plain line per record on stderr (stdout is the protocol); set up before the SDK
    # would install its own multi-line console handler.
    logging.basicConfig(
        level=level, stream=sys.stderr, format="teambrain-mcp %(levelname)s %(name)s: %(message)s"
    )


def _stop_on_sigterm() -> None:
    # Agent tools end servers with SIGTERM; turning it into KeyboardInterrupt lets the same
    # clean-exit path run (heartbeat marked stopped).
    def handler(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def serve(repo: Path | None = None, *, log_level: str = "WARNING") -> int:
    """Serve the brain of ``repo`` (default: the current directory's repository) over stdio
    until the client closes the connection; returns the exit code."""
    level = log_level.upper()
    if level not in get_args(LogLevel):
        raise UserError(f"--log-level: {log_level!r} is not one of {', '.join(get_args(LogLevel))}")
    _log_plainly(level)
    server = build_server(repo, log_level=cast(LogLevel, level))
    target = server.service.target
    if sys.stdin.isatty():
        where = target.repo_root or target.start
        print(
            f"teambrain MCP server for {where} on stdio. Agent tools start it for you "
            "(see docs/mcp.md); press Ctrl-C to stop.",
            file=sys.stderr,
        )
    _stop_on_sigterm()
    interrupted = False
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if server.service.heartbeat is not None:
            server.service.heartbeat.stop()
    if interrupted:
        # Stopped by a signal while the client still holds stdin open: the transport's reader
        # thread is blocked in read() and would keep the process alive, and there is nothing
        # left to clean up, so leave now.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point of ``teambrain-mcp-server``."""
    parser = argparse.ArgumentParser(
        prog="teambrain-mcp-server",
        description="The teambrain MCP server (stdio): memory_context, memory_search, "
        "memory_propose, memory_feedback.",
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
    sys.exit(serve(options.repo, log_level=options.log_level))
