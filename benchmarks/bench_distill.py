"""The distiller's own cost, next to baselines from the same run (the model's time is not
ours to measure: the fake driver answers instantly).

- start-up: `python -c pass` (baseline) vs `import teambrain_distill` (lazy: no SDK) vs
  `import teambrain_distill, anthropic, openai` (what a real driver pays once);
- reading the spool: 500 sessions of 60 events, per session (baseline: read_jsonl alone);
- a whole `distill()` run over 100 sessions with a scripted driver, exact checks only vs with
  retrieval's similarity (the local model), per session;
- `tb distill` as a process when there is nothing to do (the common cron case).
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "packages" / "distill" / "tests"))
TB = Path(sys.executable).parent / "tb"


def process_ms(
    code: list[str], runs: int = 5, cwd: Path | None = None, env: dict | None = None
) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(code, check=True, capture_output=True, cwd=cwd, env=env)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    import os

    from distill_testkit import NOW, ScriptedDriver, SessionWriter, make_brain, proposal
    from teambrain_capture import read_jsonl
    from teambrain_distill import LLM, DistillOptions, distill
    from teambrain_distill._sessions import read_sessions
    from teambrain_kit.paths import MachineLayout
    from teambrain_schema.brain import load_brain_config

    py = sys.executable
    print("start-up (median of 5 processes)")
    base = process_ms([py, "-c", "pass"])
    print(f"  python -c pass (baseline)            {base:7.1f} ms")
    print(
        f"  import teambrain_distill             {process_ms([py, '-c', 'import teambrain_distill']):7.1f} ms"
    )
    sdk = process_ms([py, "-c", "import teambrain_distill, anthropic, openai"], runs=3)
    print(
        f"  + anthropic, openai                  {sdk:7.1f} ms  (once per run, real drivers only)"
    )

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ["TEAMBRAIN_HOME"] = str(work / "home")
        machine = MachineLayout(work / "home")
        brain = make_brain(work)
        for index in range(500):
            writer = SessionWriter(machine, f"s-{index:04d}", start=NOW - dt.timedelta(hours=3))
            writer.event("session_start").intent(f"task {index}: fix the checkout flow")
            for step in range(28):
                writer.tool("edit", f"src/shop/module_{step % 7}.py").tool(
                    "test", "tests", step % 2
                )
            writer.end(commits=[]).write()
        files = sorted(machine.sessions.glob("*.jsonl"))
        started = time.perf_counter()
        for path in files:
            read_jsonl(path)
        raw = (time.perf_counter() - started) / len(files) * 1000
        started = time.perf_counter()
        sessions = read_sessions(machine)
        whitelisted = (time.perf_counter() - started) / len(files) * 1000
        print("\nreading the spool (500 sessions x 60 events)")
        print(f"  read_jsonl (baseline)                {raw:7.2f} ms/session")
        print(
            f"  read_sessions (whitelist + validate) {whitelisted:7.2f} ms/session  ({len(sessions)} sessions)"
        )

        for path in files[100:]:
            path.unlink()
        import random

        words = [w.strip(".,;:`()") for w in Path(__file__).read_text().split() if w.isascii()]
        rng = random.Random(7)

        def text(n: int) -> str:
            return " ".join(rng.choice(words) or "x" for _ in range(n))

        answers = {
            f"s-{i:04d}": [{"candidates": [proposal(f"Learning {i}: {text(6)}"[:80], text(40))]}]
            for i in range(100)
        }
        print("\ndistill() over 100 sessions, scripted driver (1 candidate each)")
        for similarity in (False, True):
            for path in (work / "home" / "spool" / "candidates").glob("*.json"):
                path.unlink()
            (work / "home" / "distill" / "watermark.json").unlink(missing_ok=True)
            llm = LLM(
                load_brain_config(brain).distill,
                brain_dir=brain.root,
                driver=ScriptedDriver(answers),
                record=False,
            )
            llm.budget.max_calls = 1000
            started = time.perf_counter()
            report = distill(
                brain, machine, options=DistillOptions(now=NOW), llm=llm, similarity=similarity
            )
            per = (time.perf_counter() - started) / 100 * 1000
            label = (
                "with retrieval similarity (local model)"
                if similarity
                else "exact checks only (baseline)"
            )
            print(f"  {label:<40} {per:7.1f} ms/session  ({len(report.candidates)} queued)")

        env = {**os.environ}
        idle = process_ms([str(TB), "distill"], runs=3, cwd=brain.repo_root, env=env)
        print(
            f"\n`tb distill` with nothing to do       {idle:7.1f} ms  (baseline python -c pass {base:.1f} ms)"
        )
        print(json.dumps({"startup_ms": base, "idle_tb_distill_ms": idle}))


if __name__ == "__main__":
    main()
