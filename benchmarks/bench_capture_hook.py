"""The capture hook's cost per agent tool call, as a ratio to a bare interpreter start.

Runs the installed ``tb-capture claude-code`` on a realistic PostToolUse payload (an Edit of a
~6 KB file region inside a git repository, session already open) many times, interleaved with
``python -c pass`` from the same interpreter, and prints both medians and their ratio.
Target: ≤ 1.5×. Also times a UserPromptSubmit (intent summary) and a session start, which run
once per turn and once per session.

The packages' bytecode is compiled first, as installing a wheel does: this workplace sets
PYTHONDONTWRITEBYTECODE, and without bytecode every hook would recompile its modules.
"""

from __future__ import annotations

import compileall
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = int(os.environ.get("BENCH_RUNS", "60"))
TARGET_RATIO = 1.5
BIN = Path(sys.executable).parent


def _payload(repo: Path, event: str, **fields: object) -> bytes:
    base = {
        "session_id": "bench-session-0001",
        "transcript_path": str(repo / "transcript.jsonl"),
        "cwd": str(repo),
        "permission_mode": "default",
        "hook_event_name": event,
    }
    return json.dumps({**base, **fields}).encode()


def _time(command: list[str], stdin: bytes, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, input=stdin, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _compile_bytecode() -> None:
    for package in ("teambrain_capture", "teambrain_kit", "teambrain_schema"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        for location in spec.submodule_search_locations:
            compileall.compile_dir(location, quiet=1)


def main() -> int:
    hook = shutil.which("tb-capture", path=str(BIN))
    if hook is None:
        print("tb-capture is not installed (run `make install`)")
        return 1
    _compile_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "src").mkdir()
        env = {**os.environ, "TEAMBRAIN_HOME": str(Path(tmp) / "home")}
        old = "def total(cart):\n    return sum(item.price for item in cart)\n" * 60
        edit = _payload(
            repo,
            "PostToolUse",
            tool_name="Edit",
            tool_use_id="toolu_01ABCDEF",
            tool_input={"file_path": str(repo / "src/cart.py"), "old_string": old, "new_string": old.replace("sum", "fsum")},
            tool_response={"filePath": str(repo / "src/cart.py"), "oldString": old, "newString": old, "structuredPatch": [], "userModified": False},
            duration_ms=12,
        )  # fmt: skip
        start = _payload(repo, "SessionStart", source="startup", model="claude-sonnet-4-5")
        prompt = _payload(
            repo,
            "UserPromptSubmit",
            prompt="Fix the rounding bug in the cart total; keep prices as Decimal.\n```py\n"
            + old
            + "```\n",
        )
        _time([hook, "claude-code"], start, env)  # the session is open before we measure
        bare, edits, prompts = [], [], []
        for _ in range(RUNS):
            bare.append(_time([sys.executable, "-c", "pass"], b"", env))
            edits.append(_time([hook, "claude-code"], edit, env))
            prompts.append(_time([hook, "claude-code"], prompt, env))
        opens = []
        for index in range(max(5, RUNS // 6)):
            fresh = start.replace(b"bench-session-0001", f"bench-open-{index:04d}".encode())
            opens.append(_time([hook, "claude-code"], fresh, env))
        events = (
            Path(env["TEAMBRAIN_HOME"]) / "spool/sessions/bench-session-0001.jsonl"
        ).read_text()
        assert events.count('"ev":"tool_use"') == RUNS, "the hook did not record every call"
    base = statistics.median(bare)
    rows = [
        ("baseline: python -c pass", base),
        ("PostToolUse (Edit, ~6 KB payload)", statistics.median(edits)),
        ("UserPromptSubmit (intent summary)", statistics.median(prompts)),
        ("SessionStart (new session)", statistics.median(opens)),
    ]
    print(f"median of {RUNS} runs each, interleaved")
    for name, seconds in rows:
        print(f"  {name:38s} {seconds * 1000:7.2f} ms   {seconds / base:5.2f}x")
    ratio = statistics.median(edits) / base
    verdict = "ok" if ratio <= TARGET_RATIO else "ABOVE TARGET"
    print(
        f"tool-call hook / bare interpreter = {ratio:.2f}x (target <= {TARGET_RATIO}x): {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
