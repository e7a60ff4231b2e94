"""Where a test run's CPU goes: every Python process it starts (``tb <verb>``, ``tb-capture``,
the MCP server, pytest's workers), by command, by test file and by the heavy libraries it
loaded; and each test's wall time against the CPU it used, to show where a run waits instead of
computing. Not part of ``make bench`` (it runs the suite, ~7 minutes for the integration tests
on 2 cores); run it when deciding what to make cheaper:

    .venv/bin/python benchmarks/suite_cpu.py                     # -m integration tests-integration
    .venv/bin/python benchmarks/suite_cpu.py tests-integration/test_verify.py

Each process reports its own CPU (user + system) at exit through a ``sitecustomize`` put first on
``PYTHONPATH``. Processes a test starts with an environment of its own (the install tests' scratch
environments) and processes killed by a signal report nothing: the "not reported" line is the
rest of the run's CPU, node (the agent CLIs), git, pip and chromium among it. A pytest plugin
beside it times each test (setup to teardown) and the CPU of its worker, of every child the
worker waited for and of every ``tb`` forked for it (tests-integration/forkserver.py): the wall
time of a test that CPU does not account for is waiting (a sleep, a timeout, a child's
back-off). A run's wall time is at least its CPU over the cores and at least (CPU + waiting)
over the workers, so only less of either makes it shorter. Run as root, the
script also switches on the kernel's process accounting for the run and breaks every process
that ended down by name (machine-wide: keep the machine otherwise quiet).
"""

from __future__ import annotations

import collections
import json
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("onnxruntime", "mcp", "numpy", "pydantic", "ruamel.yaml", "apsw")
LOG_ENV = "TEAMBRAIN_SUITE_CPU_LOG"

# Kept to the standard library's cheapest modules: a hook's process must not grow by much.
SITECUSTOMIZE = f"""
import atexit, os, sys

def _report():
    import json, resource
    where = os.environ.get({LOG_ENV!r})
    if not where:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    record = {{
        "argv": [os.path.basename(sys.argv[0]) if sys.argv else "", *sys.argv[1:2]],
        "cpu": usage.ru_utime + usage.ru_stime,
        "test": os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[0],
        "heavy": [name for name in {HEAVY!r} if name in sys.modules],
    }}
    try:
        with open(os.path.join(where, f"{{os.getpid()}}.jsonl"), "a") as out:
            out.write(json.dumps(record) + "\\n")
    except OSError:
        pass

atexit.register(_report)
"""

# Loaded into pytest's workers with ``-p``: one line per test, setup to teardown.
TEST_PLUGIN = f"""
import json, os, resource, sys, time

import pytest


def _cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    forks = sys.modules.get("forkserver")  # the tests' tb, forked: tests-integration/forkserver.py
    forked = forks.cpu_of_forks[0] if forks else 0.0
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + forked


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    wall, cpu = time.monotonic(), _cpu()
    yield
    record = {{"test": item.nodeid.split("@")[0], "wall": time.monotonic() - wall,
               "cpu": _cpu() - cpu, "worker": os.getpid(), "end": time.monotonic()}}
    where = os.path.join(os.environ[{LOG_ENV!r}], f"tests-{{os.getpid()}}.jsonl")
    with open(where, "a") as out:
        out.write(json.dumps(record) + "\\n")
"""


def command_of(argv: list[str]) -> str:
    """``tb <verb>`` for tb, the script's name otherwise (pytest runs as ``__main__.py``, its
    workers as ``-c``)."""
    name = argv[0] if argv else ""
    if name == "tb":
        return f"tb {argv[1] if len(argv) > 1 else ''}".strip()
    return {"-c": "pytest worker", "__main__.py": "pytest"}.get(name, name)


def main(argv: list[str]) -> int:
    pytest_args = argv or ["-m", "integration", "tests-integration"]
    with tempfile.TemporaryDirectory(prefix="suite-cpu-") as scratch:
        site = Path(scratch) / "site"
        logs = Path(scratch) / "logs"
        site.mkdir()
        logs.mkdir()
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE, "utf-8")
        (site / "suite_cpu_tests.py").write_text(TEST_PLUGIN, "utf-8")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
        env[LOG_ENV] = str(logs)
        accounting = Path(scratch) / "acct"
        counting = start_accounting(accounting)
        by_name = None
        started = time.monotonic()
        try:
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-n", "auto", "-q", "-p", "no:cacheprovider",
                 "-p", "suite_cpu_tests", *pytest_args],
                cwd=ROOT, env=env, check=False,
            )  # fmt: skip
        finally:  # accounting is machine-wide: never left on, even after a Ctrl-C
            if counting:
                by_name = stop_accounting(accounting)
        wall = time.monotonic() - started
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        total = children.ru_utime + children.ru_stime
        records = read_lines(logs, "[0-9]*.jsonl")  # one per process (the sitecustomize)
        tests = read_lines(logs, "tests-*.jsonl")  # one per test (the pytest plugin)
    report(records, total, wall)
    report_waiting(tests)
    if by_name is None:
        print("(as root, the kernel's process accounting also breaks the rest down by name)")
    else:
        table(
            "every process that ended on this machine meanwhile, by the name of its last thread "
            "(the kernel's process accounting; node's and chromium's threads have names of "
            "their own)",
            by_name,
            25,
        )
    return done.returncode


def read_lines(folder: Path, pattern: str) -> list[dict[str, Any]]:
    """The JSON records of the files in ``folder`` matching ``pattern``, one per line."""
    return [
        json.loads(line) for path in folder.glob(pattern) for line in path.read_text().splitlines()
    ]  # fmt: skip


# The kernel's BSD process accounting (acct(2), root only): one record per process that ends,
# whichever environment it ran in. Version 3 records are 64 bytes; CPU is in comp_t ticks.
ACCT_RECORD = 64
ACCT_HZ = 100


def start_accounting(path: Path) -> bool:
    """Switch process accounting on into ``path``; False when this is not root or the kernel
    has none."""
    import ctypes

    if os.geteuid() != 0:
        return False
    path.touch()
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.acct(str(path).encode()) == 0)


def stop_accounting(path: Path) -> dict[str, list[float]]:
    """Switch process accounting off; the CPU seconds of each process it recorded, by name."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).acct(None)
    data = path.read_bytes()

    def seconds(comp: int) -> float:  # 13-bit mantissa, 3-bit base-8 exponent
        return ((comp & 0x1FFF) << (3 * (comp >> 13))) / ACCT_HZ

    found: dict[str, list[float]] = collections.defaultdict(list)
    for start in range(0, len(data) - ACCT_RECORD + 1, ACCT_RECORD):
        record = data[start : start + ACCT_RECORD]
        if record[1] != 3:  # another format: leave it out
            continue
        user, system = struct.unpack_from("<HH", record, 32)
        name = record[48:64].split(b"\0")[0].decode(errors="replace")
        found[name].append(seconds(user) + seconds(system))
    return found


def report(records: list[dict[str, Any]], total: float, wall: float) -> None:
    reported = sum(r["cpu"] for r in records)
    print(
        f"\npytest: {wall:.1f} s of wall time, {total:.1f} s of CPU (every process it waited for)"
    )
    print(f"reported by {len(records)} Python processes: {reported:.1f} s")
    print(f"not reported (node, git, pip, chromium, ...): {total - reported:.1f} s\n")

    by_command: dict[str, list[float]] = collections.defaultdict(list)
    by_file: dict[str, list[float]] = collections.defaultdict(list)
    by_heavy: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
    for record in records:
        command = command_of(record["argv"])
        by_command[command].append(record["cpu"])
        if not command.startswith("pytest"):
            by_file[record["test"] or "(no test)"].append(record["cpu"])
            by_heavy[(command, ",".join(record["heavy"]) or "-")].append(record["cpu"])
    table("by command", by_command, 25)
    table("by test file (pytest's own processes left out)", by_file, 25)
    table("by command and the heavy libraries it loaded", by_heavy, 30)


def report_waiting(tests: list[dict[str, Any]]) -> None:
    """Each test's wall time against its CPU (its worker's and every child the worker waited
    for): the difference is waiting. A child the test did not wait for (a server it killed and
    never reaped) counts as waiting here."""
    if not tests:
        return
    wall = sum(test["wall"] for test in tests)
    cpu = sum(test["cpu"] for test in tests)
    ends: dict[int, float] = {}
    for test in tests:
        ends[test["worker"]] = max(ends.get(test["worker"], 0.0), test["end"])
    last = max(ends.values())
    print(
        f"{len(tests)} tests: {wall:.1f} s of wall summed over tests, {cpu:.1f} s of CPU, "
        f"{wall - cpu:.1f} s waiting"
    )
    slack = ", ".join(f"{last - end:.1f} s" for end in sorted(ends.values()))
    print(f"idle at the end, each worker (before the last test anywhere ended): {slack}\n")

    def waited(test: dict[str, Any]) -> float:
        return float(test["wall"] - test["cpu"])

    by_file: dict[str, list[float]] = collections.defaultdict(list)
    for test in tests:
        by_file[test["test"].split("::")[0]].append(max(0.0, waited(test)))
    table("waiting (wall time the CPU does not account for), by test file", by_file, 15, "wait s")
    print("the tests that waited longest:")
    print(f"  {'wait s':>8} {'wall s':>6} {'CPU s':>6}  test")
    for test in sorted(tests, key=waited, reverse=True)[:15]:
        print(f"  {waited(test):8.1f} {test['wall']:6.1f} {test['cpu']:6.1f}  {test['test']}")
    print()


def table(title: str, groups: Mapping[Any, list[float]], rows: int, measure: str = "CPU s") -> None:
    print(f"{title}:")
    print(f"  {measure:>8} {'runs':>5} {'median ms':>9}  what")
    ranked = sorted(groups.items(), key=lambda item: -sum(item[1]))
    for key, runs in ranked[:rows]:
        cpus = sorted(runs)
        what = " / ".join(key) if isinstance(key, tuple) else key
        print(f"  {sum(cpus):8.1f} {len(cpus):5d} {1000 * cpus[len(cpus) // 2]:9.0f}  {what}")
    print()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
