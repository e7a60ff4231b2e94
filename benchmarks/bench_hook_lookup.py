"""The capture hook before and after a change, side by side: whole-process wall and CPU time.

Runs the installed ``tb-capture <tool>`` on a PostToolUse payload (session already open), and the
same with an older copy of teambrain_capture and teambrain_schema put first on PYTHONPATH
(``BEFORE_SITE``), interleaved with ``python -c pass``. CPU time (user + system, from
``getrusage``) moves less than wall time when other processes load the machine.

    BEFORE_SITE=/tmp/old-site python benchmarks/bench_hook_lookup.py [tool]
"""

from __future__ import annotations

import compileall
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = int(os.environ.get("BENCH_RUNS", "60"))


def _run(command: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, input=stdin, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    tool = sys.argv[1] if len(sys.argv) > 1 else "claude-code"
    hook = shutil.which("tb-capture", path=str(Path(sys.executable).parent))
    assert hook, "tb-capture is not installed"
    old_site = os.environ.get("BEFORE_SITE")
    # Bytecode as an installed wheel has it (PYTHONDONTWRITEBYTECODE would recompile every run).
    for package in ("teambrain_capture", "teambrain_schema", "teambrain_cli"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        for location in spec.submodule_search_locations:
            compileall.compile_dir(location, quiet=1)
    if old_site:
        compileall.compile_dir(old_site, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        base = {"session_id": "bench-1", "cwd": str(repo), "transcript_path": str(repo / "t")}
        start = json.dumps({**base, "hook_event_name": "SessionStart"}).encode()
        edit = json.dumps({**base, "hook_event_name": "PostToolUse", "tool_name": "Edit",
                           "tool_input": {"file_path": str(repo / "a.py"), "old_string": "x" * 3000,
                                          "new_string": "y" * 3000}, "tool_response": {}}).encode()  # fmt: skip
        env = {**os.environ, "TEAMBRAIN_HOME": str(Path(tmp) / "home")}
        env.pop("PYTHONPATH", None)
        variants = {"after (this checkout)": env}
        if old_site:
            variants["before (BEFORE_SITE)"] = {**env, "PYTHONPATH": old_site}
        for variant in variants.values():
            _run([hook, tool], start, variant)
        samples: dict[str, list[tuple[float, float]]] = {"bare": []} | {k: [] for k in variants}
        for _ in range(RUNS):
            samples["bare"].append(_run([sys.executable, "-c", "pass"], b"", env))
            for name, variant in variants.items():
                samples[name].append(_run([hook, tool], edit, variant))
    bare_wall = statistics.median(w for w, _ in samples["bare"])
    bare_cpu = statistics.median(c for _, c in samples["bare"])
    print(f"tb-capture {tool}, PostToolUse, median of {RUNS} interleaved runs (whole process)")
    for name, values in samples.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"  {name:24s} wall {wall * 1000:6.1f} ms ({wall / bare_wall:4.2f}x)   "
              f"cpu {cpu * 1000:6.1f} ms ({cpu / bare_cpu:4.2f}x)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
