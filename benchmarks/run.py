"""`make bench`: run every benchmarks/bench_*.py in order; each prints its numbers beside a
named baseline measured in the same run. Pass names to run a subset: `run.py retrieval hook`."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        scripts = [s for s in scripts if any(name in s.stem for name in argv)]
    if not scripts:
        print("no benchmarks matched")
        return 1
    failed = []
    for script in scripts:
        print(f"\n=== {script.stem} ===", flush=True)
        started = time.monotonic()
        done = subprocess.run([sys.executable, str(script)], check=False)
        print(f"--- {script.stem}: {time.monotonic() - started:.1f} s", flush=True)
        if done.returncode != 0:
            failed.append(script.stem)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
