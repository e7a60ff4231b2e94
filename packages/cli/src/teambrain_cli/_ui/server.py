"""Running ``tb ui``: a socket on 127.0.0.1 (a random port unless one is asked for), the
address with this run's secret printed, the browser opened when there is one, and the pages
served until Ctrl-C."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from teambrain_schema import EnvironmentProblem

from .context import UiContext

LOOPBACK = "127.0.0.1"


class OneLineFormatter(logging.Formatter):
    """What the server logs (uvicorn, asyncio) as one line on stderr: the message and the
    exception's class and first line, never a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            detail = " ".join(str(exc).split())[:200]
            text += f": {exc.__class__.__name__}" + (f": {detail}" if detail else "")
        return "tb ui: " + " ".join(text.split())


# Errors only (a local page needs no access log; a client's bad request is its own business),
# one line each; asyncio's own errors (an accept that failed) go the same way.
LOG_CONFIG: dict[str, object] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"one_line": {"()": OneLineFormatter}},
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "formatter": "one_line",
            "stream": "ext://sys.stderr",
        },
    },
    "loggers": {
        "uvicorn": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
        "uvicorn.error": {"level": "ERROR"},
        "uvicorn.access": {"handlers": [], "level": "CRITICAL", "propagate": False},
        "asyncio": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
    },
}


def bind_loopback(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 only (port 0: one the system picks); a port in
    use or not ours to take is an environment problem (exit 2)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((LOOPBACK, port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        raise EnvironmentProblem(
            f"cannot listen on {LOOPBACK}:{port}: {exc.strerror or exc}"
        ) from None
    return sock


def can_open_browser() -> bool:
    """Whether opening a browser can show a page to the person at this machine: a desktop
    (macOS, Windows, an X or Wayland display) or a browser named in ``$BROWSER``. Without one,
    Python's webbrowser would start a text browser in this very terminal."""
    if os.environ.get("BROWSER"):
        return True
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def opener_file(url: str) -> Path:
    """A private local page (mode 0600) that sends the browser on to ``url``: the browser is
    started with this file's name, so the secret never shows in the process list other users
    of this machine can read (as Jupyter does)."""
    import html
    import tempfile

    fd, name = tempfile.mkstemp(prefix="tb-ui-", suffix=".html")
    target = html.escape(url, quote=True)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(
            f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={target}">'
            f'<title>tb ui</title><p><a href="{target}">Open the teambrain page</a></p>\n'
        )
    return Path(name)


def open_browser(url: str) -> Path | None:
    """Ask the desktop to open ``url`` (through :func:`opener_file`); the file to remove when
    the server stops, or None when no browser could be started."""
    import webbrowser

    page = opener_file(url)
    try:
        if webbrowser.open(page.as_uri(), new=2):
            return page
    except webbrowser.Error:
        pass
    page.unlink(missing_ok=True)
    return None


def serve(
    ctx: UiContext,
    sock: socket.socket,
    *,
    on_listening: Callable[[], None] | None = None,
) -> None:
    """Serve the pages on ``sock`` until interrupted (SIGINT, SIGTERM)."""
    import uvicorn

    from .app import build_app
    from .connections import ACCEPT_BATCH, ConnectionBook, connection_limit, guarded_protocol

    app, warm = build_app(ctx)
    config = uvicorn.Config(
        app, http=guarded_protocol(ConnectionBook(connection_limit())), backlog=ACCEPT_BATCH,
        log_config=LOG_CONFIG,
        log_level="error", access_log=False, lifespan="off",
        server_header=False, date_header=False, proxy_headers=False,
        timeout_graceful_shutdown=2,
    )  # fmt: skip
    server = uvicorn.Server(config)

    def when_listening() -> None:
        if on_listening is not None:
            on_listening()
        # The first page reads the index: have it ready (a problem is reported by the page).
        with contextlib.suppress(Exception):
            warm()

    threading.Thread(target=when_listening, daemon=True).start()
    server.run(sockets=[sock])  # run_ui stops the pages and closes the socket


def run_ui(
    *,
    port: int,
    browser: bool,
    ref: str | None = None,
    at: str | None = None,
    echo: Callable[[str], None],
    say: Callable[[str], None],
    start: str = "brain",
    query: dict[str, str] | None = None,
) -> None:
    """``tb ui``: serve the brain of the repository around the current directory; print the
    address (``echo``, stdout) and what happens (``say``, stderr). ``start`` and ``query``: the
    page the address opens (``tb list --web``: the brain filtered; ``tb show --web``:
    ``memory/<id>``)."""
    from urllib.parse import urlencode

    from teambrain_capture import repo_keys
    from teambrain_retrieval import favour_query_speed
    from teambrain_sync import open_repo, require_brain_at

    from .._console.context import machine, require_brain
    from .._console.travel import describe_moment, resolve_moment
    from .._console.trust import ask_to_approve

    layout = require_brain()
    favour_query_speed()  # the page searches as you type, for as long as it runs
    # Search sends nothing off this machine unless approved here (asked on a terminal only).
    ask_to_approve(layout, machine(), ("retrieval.embedder", "org_brain"))
    wanted = dict(query or {})
    if ref is not None or at is not None:
        commit = resolve_moment(ref, at, layout.repo_root)  # a bad ref or moment: exit 1 now
        require_brain_at(open_repo(layout.repo_root), commit)  # and so is one without a brain
        say(f"tb ui: starting at {describe_moment(commit)}")
        wanted.update({k: v for k, v in (("ref", ref), ("at", at)) if v is not None})
    if wanted:
        start += "?" + urlencode(wanted)
    ctx = UiContext(layout, machine(), repo_keys(layout.repo_root, machine(), say=say))
    sock = bind_loopback(port)
    ctx.port = sock.getsockname()[1]
    url = f"http://{LOOPBACK}:{ctx.port}{ctx.base}/{start}"
    opening = browser and can_open_browser()

    opened: list[Path] = []

    def when_listening() -> None:
        page = open_browser(url) if opening else None
        if page is not None:
            opened.append(page)
        elif opening:
            say("tb ui: could not open a browser: open the address above in yours.")

    # uvicorn stops cleanly on SIGINT and SIGTERM, then raises the signal again for the
    # handler it found; from the moment the address is printed, both end here, after the
    # snapshots of past brains are removed (once, however the serving ended).
    previous = signal.signal(signal.SIGTERM, _interrupt)
    settled = True
    try:
        echo(url)
        say(f"tb ui: serving the brain of {layout.repo_root} on {LOOPBACK} only; Ctrl-C stops it.")  # fmt: skip
        if browser and not opening:
            say("tb ui: no browser to open here: open the address above in yours.")
        serve(ctx, sock, on_listening=when_listening)
    except KeyboardInterrupt:
        pass
    finally:
        settled = ctx.stop()
        sock.close()
        signal.signal(signal.SIGTERM, previous)
        for page in opened:
            page.unlink(missing_ok=True)
    say("tb ui: stopped.")
    if not settled:
        # A page is still being prepared: the interpreter's exit would wait on, or free objects
        # under, the thread preparing it (an index connection mid-write). End here instead.
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(0)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
