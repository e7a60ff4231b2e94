"""A fork server for the tests' ``tb``: the same program, without paying its start-up each time.

Most of a short ``tb`` process is its interpreter starting and importing pydantic, apsw, the
schema and the retrieval modules (55-90% of ``tb list``, ``tb lint``, ``tb init``: measured in
docs/contributing.md). The integration tests run ``tb`` some 1,500 times. So each test process
starts, on its first ``tb``, one server that has imported every module of the first-party
packages below distill (and ruamel.yaml and numpy, which they import lazily), and then forks a
child for each ``tb`` it is asked to run. The child is a real process of its own: it takes the
test's argv, environment, working directory, umask and three pipes (passed over a Unix socket),
runs ``tb``'s console-script entry point, and exits the way the script would (``SystemExit``,
``atexit``, buffers flushed; a quick ``os._exit`` too: its parent waits for it and reports the
status). What it cannot take is what an interpreter reads only as it starts, so a run goes to a
real process instead whenever

- the executable is not this environment's ``tb`` (an installed wheel, ``tb-capture``...);
- the environment differs from the server's in a variable read at start-up (``PYTHON*``:
  ``PYTHONPATH`` plugins and shadowed packages; the locale; the BLAS thread counts);
- ``TEAMBRAIN_TEST_FORK=0`` is set (compare a run without it, or rule it out when debugging).

Tests about start-up itself (what a process imports, its time, the hook's path) start their
own processes and never come here. The server exits when its test process does (it watches a
pipe only that process can write to).
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

BIN = Path(sys.executable).parent
SWITCH = "TEAMBRAIN_TEST_FORK"
# First-party packages whose every module the server imports; distill and the MCP server stay
# out (their SDKs are what "imports no LLM client" checks look for), as do onnxruntime and mcp.
PACKAGES = (
    "teambrain_kit", "teambrain_schema", "teambrain_capture", "teambrain_retrieval",
    "teambrain_sync", "teambrain_cli",
)  # fmt: skip
LAZY = ("ruamel.yaml", "numpy")
_LEN = struct.Struct("!I")


def read_at_start(name: str) -> bool:
    """Whether the interpreter, or a library the server imported, reads ``name`` only once, as
    it starts: then a run whose value differs cannot be a fork."""
    return name.startswith(("PYTHON", "LC_", "OPENBLAS_", "OMP_", "MKL_")) or name == "LANG"


# ---------------------------------------------------------------------------------------------
# The server (run as a script by the client below; one per test process).


def _preload() -> None:
    import importlib
    import pkgutil

    for top in PACKAGES:
        package = importlib.import_module(top)
        for info in pkgutil.walk_packages(package.__path__, top + "."):
            importlib.import_module(info.name)
    for name in LAZY:
        importlib.import_module(name)


def _receive(conn: socket.socket) -> tuple[dict[str, object], list[int]]:
    head, fds, _flags, _addr = socket.recv_fds(conn, _LEN.size, 3)
    while len(head) < _LEN.size:
        head += conn.recv(_LEN.size - len(head))
    (size,) = _LEN.unpack(head)
    body = b""
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise EOFError("the client went away")
        body += chunk
    return json.loads(body), list(fds)


def _probe() -> int:
    """What a child was given, for test_forkserver.py: it prints it as JSON, sleeps for
    ``PROBE_SLEEP`` seconds if that is set, and exits 3."""
    print(json.dumps({
        "argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ), "umask": os.umask(0),
        "stdin": sys.stdin.read(), "pid": os.getpid(), "preloaded": "numpy" in sys.modules,
    }), flush=True)  # fmt: skip
    if os.environ.get("PROBE_SLEEP"):
        import time

        time.sleep(float(os.environ["PROBE_SLEEP"]))
    return 3


def _run_child(request: Mapping[str, object], fds: Sequence[int], entry: object) -> None:
    """In the forked child: become the process ``subprocess.run`` would have started."""
    import time

    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, fd in zip((0, 1, 2), fds, strict=True):
        os.dup2(fd, target)
        os.close(fd)
    os.umask(int(request["umask"]))  # type: ignore[call-overload]
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update(request["env"])  # type: ignore[arg-type]
    time.tzset()
    tempfile.tempdir = None
    sys.argv = list(request["argv"])  # type: ignore[call-overload]
    _exit_like_the_script(_probe if request.get("probe") else entry)


def _exit_like_the_script(entry: object) -> None:
    """``sys.exit(main())`` and the interpreter's exit: its status, non-daemon threads joined,
    ``atexit`` run, the standard streams flushed. Then ``os._exit``: tearing down the ~600
    modules the server imported would cost more than the run (a real ``tb`` has fewer)."""
    try:
        code: object = entry()  # type: ignore[operator]
    except SystemExit as stop:
        code = stop.code
    except BaseException:  # as the interpreter reports an uncaught one
        sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]
        code = 1
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = 120 if status == 0 else status  # as Python does when a flush fails
    os._exit(status & 0xFF)


def _serve(address: str, parent_fd: int) -> None:
    sys.path[0] = str(BIN)  # as the console script has it: its own folder first
    from teambrain_cli._main import main

    _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    os.write(1, b"ready\n")
    chooser = selectors.DefaultSelector()
    chooser.register(listener, selectors.EVENT_READ)
    chooser.register(parent_fd, selectors.EVENT_READ)
    while True:
        for key, _events in chooser.select(timeout=1.0):
            if key.fileobj == parent_fd:  # the test process ended: so does the server
                os.unlink(address)
                os.rmdir(os.path.dirname(address))
                os._exit(0)
            conn, _ = listener.accept()
            if os.fork() == 0:
                try:  # the waiter: whatever happens, it never goes back to serving
                    listener.close()
                    os.close(parent_fd)
                    chooser.close()
                    _wait_for_child(conn, main)
                finally:
                    os._exit(1)
            conn.close()
        _reap()


def _reap() -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _wait_for_child(conn: socket.socket, entry: object) -> None:
    """In the waiter, a fork of the server: fork the child that runs ``tb``, tell the client its
    pid, wait for it and tell the client how it ended (even when it left through ``os._exit``)."""
    try:
        request, fds = _receive(conn)
    except (OSError, EOFError, ValueError):
        os._exit(1)
    pid = os.fork()
    if pid == 0:
        try:  # the child: it ends in os._exit, a failure to set it up included
            conn.close()
            _run_child(request, fds, entry)
        except BaseException:
            sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]
        finally:
            os._exit(1)
    for fd in fds:
        os.close(fd)
    try:
        conn.sendall(f"{pid}\n".encode())
        _, status, usage = os.wait4(pid, 0)
        cpu = usage.ru_utime + usage.ru_stime
        conn.sendall(f"{os.waitstatus_to_exitcode(status)} {cpu}\n".encode())
    finally:
        os._exit(0)


# ---------------------------------------------------------------------------------------------
# The client (in the test process).

_lock = threading.Lock()
_server: dict[int, tuple[str, dict[str, str]] | None] = {}  # by pid: forked pytest workers
# Each server, and the write end of the pipe it watches: open for as long as this process lives.
_keep: list[tuple[subprocess.Popen[bytes], int]] = []
# The CPU (user + system, s) of every child forked for this process so far: not counted in its
# RUSAGE_CHILDREN until the server ends (benchmarks/suite_cpu.py adds it to each test's CPU).
cpu_of_forks = [0.0]


def _stop() -> None:
    """At exit: end the servers and wait for them, so their CPU counts as this process's
    children's (as the real processes' would)."""
    for server, write_end in _keep:
        os.close(write_end)
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()


def _start() -> tuple[str, dict[str, str]] | None:
    folder = tempfile.mkdtemp(prefix="forkserver-")
    address = os.path.join(folder, "socket")
    read_end, write_end = os.pipe()
    os.set_inheritable(read_end, True)
    env = dict(os.environ)
    server = subprocess.Popen(
        [sys.executable, __file__, address, str(read_end)], pass_fds=(read_end,), env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    os.close(read_end)
    assert server.stdout is not None
    if server.stdout.readline() != b"ready\n":
        os.close(write_end)
        return None
    server.stdout.close()
    if not _keep:
        atexit.register(_stop)
    _keep.append((server, write_end))
    return address, {name: value for name, value in env.items() if read_at_start(name)}


def _address_for(argv: Sequence[str], cwd: Path | str, env: Mapping[str, str]) -> str | None:
    if os.environ.get(SWITCH) == "0" or env.get(SWITCH) == "0":
        return None
    if Path(argv[0]) != BIN / "tb" or not os.path.isdir(cwd):
        return None  # a real process, and subprocess's own error for a missing folder
    with _lock:
        if os.getpid() not in _server:
            _server[os.getpid()] = _start()
        started = _server[os.getpid()]
    if started is None:
        return None
    address, at_start = started
    if {name: value for name, value in env.items() if read_at_start(name)} != at_start:
        return None
    return address


def run(
    argv: Sequence[str], *, cwd: Path | str, env: Mapping[str, str], input: str | None = None,
    timeout: float | None = None, probe: bool = False,
) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """``subprocess.run(argv, cwd=cwd, env=env, input=input, capture_output=True, text=True,
    timeout=timeout, check=False)``, through the fork server when it can be."""
    address = _address_for(argv, cwd, env)
    if address is None:
        return subprocess.run(
            list(argv), cwd=cwd, env=dict(env), input=input, capture_output=True, text=True,
            timeout=timeout, check=False,
        )  # fmt: skip
    return _forked(address, list(argv), cwd, env, input, timeout, probe)


def _forked(
    address: str, argv: list[str], cwd: Path | str, env: Mapping[str, str], input: str | None,
    timeout: float | None, probe: bool,
) -> subprocess.CompletedProcess[str]:  # fmt: skip
    import time

    deadline = None if timeout is None else time.monotonic() + timeout
    umask = os.umask(0o022)
    os.umask(umask)
    request = {"argv": argv, "cwd": os.path.abspath(cwd), "env": dict(env), "umask": umask}
    body = json.dumps({**request, "probe": probe}).encode()
    # No input: the test process's own stdin, as subprocess.run leaves it (/dev/null under xdist).
    in_r, in_w = os.pipe() if input is not None else (os.open(os.devnull, os.O_RDONLY), -1)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(address)
        socket.send_fds(conn, [_LEN.pack(len(body))], [in_r, out_w, err_w])
        conn.sendall(body)
    finally:
        for fd in (in_r, out_w, err_w):
            os.close(fd)
    encoding = "utf-8" if sys.flags.utf8_mode else None
    feeder = None
    if input is not None:
        feeder = threading.Thread(target=_feed, args=(in_w, input, encoding), daemon=True)
        feeder.start()
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    said = b""
    chooser = selectors.DefaultSelector()
    for fd in (out_r, err_r):
        chooser.register(fd, selectors.EVENT_READ)
    chooser.register(conn, selectors.EVENT_READ)
    pid: int | None = None
    code: int | None = None
    try:
        while chooser.get_map():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                if pid is not None:
                    os.kill(pid, signal.SIGKILL)
                raise subprocess.TimeoutExpired(
                    argv, timeout or 0.0, output=_text(chunks[out_r], encoding),
                    stderr=_text(chunks[err_r], encoding),
                )  # fmt: skip
            for key, _events in chooser.select(left):
                if key.fileobj is conn:
                    data = conn.recv(4096)
                    said += data
                    lines = said.split(b"\n")
                    if pid is None and len(lines) > 1:
                        pid = int(lines[0])
                    if len(lines) > 2:
                        code, cpu = int(lines[1].split()[0]), float(lines[1].split()[1])
                        with _lock:
                            cpu_of_forks[0] += cpu
                    if not data:
                        chooser.unregister(conn)
                    continue
                fd = int(key.fd)
                data = os.read(fd, 65536)
                if data:
                    chunks[fd].append(data)
                else:
                    chooser.unregister(fd)
    finally:
        chooser.close()
        conn.close()
        os.close(out_r)
        os.close(err_r)
        if feeder is not None:
            feeder.join(timeout=5)  # a child killed before it read its input: the write fails
    if code is None:
        raise RuntimeError(f"the fork server lost {argv}: it said {said!r}")
    return subprocess.CompletedProcess(
        argv, code, _text(chunks[out_r], encoding), _text(chunks[err_r], encoding)
    )


def _feed(fd: int, input: str, encoding: str | None) -> None:
    try:
        if input:
            data = input.encode(encoding or _locale_encoding())
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
    except BrokenPipeError:
        pass
    finally:
        os.close(fd)


def _locale_encoding() -> str:
    import locale

    return locale.getpreferredencoding(False)


def _text(chunks: list[bytes], encoding: str | None) -> str:
    """As ``text=True`` decodes: the locale's encoding, universal newlines."""
    text = b"".join(chunks).decode(encoding or _locale_encoding())
    return text.replace("\r\n", "\n").replace("\r", "\n")


if __name__ == "__main__":
    _serve(sys.argv[1], int(sys.argv[2]))
