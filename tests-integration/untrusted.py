"""Driving the installed ``tb`` against hostile input: a bounded run (time, memory, an open
stdin like an agent's) that fails the test instead of hanging it, and a pseudo-terminal that
answers ``tb``'s ``[y/N]`` questions."""

from __future__ import annotations

import os
import pty
import resource
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

TB = str(Path(sys.executable).parent / "tb")
# "Within seconds" of CPU time (the process's and its children's), which a loaded machine does
# not stretch: walking a whole disk or expanding a bomb costs minutes of it.
LIMIT_S = 30
# A hang costs no CPU and never returns: the run is killed after this many times its CPU limit
# of wall-clock time (room for a 2-core machine shared with other test runs).
HANG_FACTOR = 3
# A reader that slurps /dev/zero fails here instead of eating the machine.
MEMORY_LIMIT = 3 * 1024**3


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_bounded(
    cwd: Path, *args: str, open_stdin: bool = True, env: dict[str, str] | None = None,
    limit_s: float = LIMIT_S,
) -> tuple[subprocess.CompletedProcess[str], float]:  # fmt: skip
    """``tb *args`` in ``cwd`` with its stdin an open pipe nobody writes to (or /dev/null),
    within 3 GB; returns the finished process and the CPU seconds it and its children used
    (callers compare them with ``limit_s``). A run still going after ``HANG_FACTOR * limit_s``
    seconds of wall-clock time fails the test as hung."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.Popen(
        [TB, *args], cwd=cwd, stdin=subprocess.PIPE if open_stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_limits,
        env={**os.environ, "TEAMBRAIN_DEBUG": "", **(env or {})},
    )  # fmt: skip
    try:
        out, err = process.communicate(timeout=HANG_FACTOR * limit_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"tb {' '.join(args)} hung for {HANG_FACTOR * limit_s:.0f} s")
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    return done, cpu_seconds_since(before)


def cpu_seconds_since(before: resource.struct_rusage) -> float:
    """CPU seconds (user and system) of the child processes reaped since ``before`` was taken
    with ``resource.getrusage(resource.RUSAGE_CHILDREN)``."""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def on_a_terminal(cwd: Path, args: list[str], answer: bytes) -> tuple[int, str]:
    """Run ``tb *args`` on a pseudo-terminal, type ``answer`` at its first ``[y/N]``; return
    the exit code and everything it printed."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(cwd)
        os.execv(TB, [TB, *args])
    output, answered = b"", False
    deadline = time.monotonic() + LIMIT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        if not answered and b"[y/N]" in output:
            os.write(fd, answer)
            answered = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), output.decode("utf-8", "replace")
