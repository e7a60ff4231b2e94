"""MCP server start-up: cold start to the first ``tools/list`` answer.

Each server is started as an agent tool starts it (a fresh process speaking JSON-RPC on stdio:
``initialize``, ``notifications/initialized``, ``tools/list``) and timed from spawn to the
``tools/list`` response. The baseline is a bare MCPServer hello-world with one tool, started the
same way by the same interpreter, so the ratio shows what teambrain adds. Also measured: the
first ``memory_search`` (which loads retrieval and the model) and warm searches.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
RUNS = 7
PROTOCOL = "2025-11-25"  # what agent tools negotiate through the initialize handshake

HELLO = textwrap.dedent(
    """
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("hello")

    @server.tool()
    def hello(name: str) -> str:
        \"\"\"Say hello.\"\"\"
        return f"hello {name}"

    if __name__ == "__main__":
        server.run()
    """
)


class RawClient:
    """Just enough JSON-RPC over a child's stdio to time it (no client library in the way)."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.next_id = 0

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False
    ) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("server closed stdout")
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]  # type: ignore[no-any-return]

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.send(method, params)
        return self.receive()

    def handshake_and_list(self) -> list[str]:
        self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        self.send("notifications/initialized", notify=True)
        tools = self.request("tools/list")
        return [tool["name"] for tool in tools["tools"]]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def time_to_tools_list(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    client = RawClient(argv, cwd, env)
    try:
        names = client.handshake_and_list()
        elapsed = time.perf_counter() - client.started
        assert names, "no tools listed"
        return elapsed
    finally:
        client.close()


def demo_repository(work: Path, env: dict[str, str]) -> Path:
    """The demo app with its brain committed, set up with the installed ``tb`` (under this
    run's own TEAMBRAIN_HOME, never the real one)."""
    repo = work / "repo"
    shutil.copytree(ROOT / "demo" / "app", repo)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.test"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, env=env, check=True)
    subprocess.run([str(BIN / "tb"), "init"], cwd=repo, env=env, check=True, capture_output=True)
    shutil.copytree(ROOT / "demo" / "brain" / "memories", repo / ".teambrain" / "memories",
                    dirs_exist_ok=True)  # fmt: skip
    subprocess.run([str(BIN / "tb"), "reindex"], cwd=repo, env=env, check=True, capture_output=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run([*git, "commit", "-qm", "brain"], cwd=repo, env=env, check=True)
    return repo


def search_timings(cwd: Path, env: dict[str, str], warm_runs: int = 20) -> tuple[float, float]:
    client = RawClient([str(BIN / "teambrain-mcp-server")], cwd, env)
    try:
        client.handshake_and_list()
        arguments = {"name": "memory_search", "arguments": {"query": "payment retries", "k": 5}}
        started = time.perf_counter()
        result = client.request("tools/call", arguments)
        first = time.perf_counter() - started
        assert not result.get("isError"), result
        warm = []
        for _ in range(warm_runs):
            started = time.perf_counter()
            client.request("tools/call", arguments)
            warm.append(time.perf_counter() - started)
        return first, statistics.median(warm)
    finally:
        client.close()


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        work = Path(tmp)
        env = {**os.environ, "TEAMBRAIN_HOME": str(work / "home"), "HOME": str(work)}
        repo = demo_repository(work, env)
        hello = work / "hello_server.py"
        hello.write_text(HELLO)
        subjects = {
            "baseline: bare MCPServer hello-world": [sys.executable, str(hello)],
            "teambrain-mcp-server": [str(BIN / "teambrain-mcp-server")],
            "tb serve": [str(BIN / "tb"), "serve"],
        }
        # One untimed start each, so every subject meets a warm OS file cache.
        for argv in subjects.values():
            time_to_tools_list(argv, repo, env)
        samples: dict[str, list[float]] = {name: [] for name in subjects}
        for _ in range(RUNS):  # interleaved, so drift hits every subject alike
            for name, argv in subjects.items():
                samples[name].append(time_to_tools_list(argv, repo, env))
        baseline = statistics.median(samples["baseline: bare MCPServer hello-world"])
        bare = []
        for _ in range(RUNS):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
            bare.append(time.perf_counter() - started)
        python_pass = statistics.median(bare)
        print(f"cold start → first tools/list answer (median of {RUNS} runs)")
        print(f"  {'python -c pass':<40} {python_pass * 1000:7.1f} ms")
        for name, values in samples.items():
            median = statistics.median(values)
            print(
                f"  {name:<40} {median * 1000:7.1f} ms   ×{median / baseline:.2f} of the "
                f"hello-world, +{(median - python_pass) * 1000:.0f} ms over python -c pass "
                "(target: ≤ 250 ms in all)"
            )
        first, warm = search_timings(repo, env)
        print("memory_search over stdio on the demo brain")
        print(f"  first call (loads retrieval)             {first * 1000:7.1f} ms")
        print(f"  warm call (median of 20)                 {warm * 1000:7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
