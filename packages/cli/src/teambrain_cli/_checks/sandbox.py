"""``tb verify --strict``: run capture, retrieval and the MCP server inside an OS sandbox with no
network, prove they still work, and prove they attempt no connection.

Linux: a user + network namespace (``unshare -rn``), whose only interface is a downed loopback.
macOS: ``sandbox-exec`` with a profile denying all network access. Every Python process started
inside also carries an audit hook (through a generated ``sitecustomize``) that logs each
``socket.connect`` and name lookup to a file, so even an attempt the sandbox blocks is seen.
Native code's attempts bypass that hook, so HOME points at an empty directory too: a library
phoning home leaves its files there (onnxruntime's telemetry did), and any file is a failure.
Everything runs on a scratch copy: nothing is written to your spool, index or repository.
"""

from __future__ import annotations

import json
import os
import platform
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teambrain_schema.paths import BrainLayout, MachineLayout

from .results import CheckResult
from .scratch import GIT_IDENTITY, scratch_brain

TIMEOUT_S = 120.0
MACOS_PROFILE = "(version 1)(allow default)(deny network*)"
SITECUSTOMIZE = r"""
import os, sys, ipaddress
_LOG = os.environ.get("TEAMBRAIN_EGRESS_LOG")

def _local(host):
    if host in (None, "", "localhost") or isinstance(host, (bytes, bytearray)):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False

def _hook(event, args):
    if not _LOG:
        return
    what = None
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg") and len(args) > 1:
        address = args[1]
        if isinstance(address, tuple) and address and not _local(address[0]):
            what = f"{event} {address[0]}:{address[1] if len(address) > 1 else ''}"
    elif event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex") and args:
        if not _local(args[0]):
            what = f"{event} {args[0]}"
    if what:
        with open(_LOG, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()} {sys.argv[0]} {what}\n")

sys.addaudithook(_hook)
"""


def sandbox_prefix() -> tuple[list[str] | None, str]:
    """The command prefix that runs a program without network, and what it is (or why none)."""
    system = platform.system()
    if system == "Linux":
        unshare = shutil.which("unshare")
        if unshare is None:
            return None, "unshare is not installed"
        probe = subprocess.run(
            [unshare, "-rn", "true"], capture_output=True, text=True, check=False
        )
        if probe.returncode != 0:
            reason = (probe.stderr.strip().splitlines() or ["not permitted"])[-1]
            return None, f"unprivileged user namespaces are unavailable ({reason})"
        return [unshare, "-rn", "--"], "Linux user + network namespace (unshare -rn)"
    if system == "Darwin":
        sandbox = shutil.which("sandbox-exec")
        if sandbox is None:
            return None, "sandbox-exec is not available"
        return [sandbox, "-p", MACOS_PROFILE], "macOS sandbox-exec, network denied"
    return None, f"no supported OS sandbox on {system}"


@dataclass
class SandboxRun:
    """Where the sandboxed programs run and what they reported."""

    prefix: list[str]
    env: dict[str, str]
    repo: Path
    log: Path
    worked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def run(
        self, argv: list[str], *, stdin: str = "", label: str
    ) -> subprocess.CompletedProcess[str] | None:
        try:
            done = subprocess.run([*self.prefix, *argv], input=stdin, cwd=self.repo, env=self.env,
                                  capture_output=True, text=True, timeout=TIMEOUT_S, check=False)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.failed.append(f"{label}: {exc}")
            return None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
            self.failed.append(f"{label}: exit {done.returncode}: {last}")
            return None
        return done


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    return found or name


def _exercise_capture(run: SandboxRun, home: Path) -> None:
    sid = "verify-strict"
    base = {"session_id": sid, "cwd": str(run.repo), "transcript_path": str(home / "t.jsonl")}
    payloads = [
        {**base, "hook_event_name": "SessionStart", "source": "startup", "model": "sandbox-model"},
        {**base, "hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": {"file_path": str(run.repo / "README.md")}, "tool_response": {}},
    ]  # fmt: skip
    for payload in payloads:
        if (
            run.run(
                [_tool("tb-capture"), "claude-code"], stdin=json.dumps(payload), label="capture"
            )
            is None
        ):
            return
    session = home / "spool" / "sessions" / f"{sid}.jsonl"
    events = session.read_text().splitlines() if session.exists() else []
    if len(events) >= 2:
        run.worked.append(f"capture ({len(events)} events recorded)")
    else:
        run.failed.append(f"capture: expected 2 events in {session.name}, found {len(events)}")


def _exercise_retrieval(run: SandboxRun) -> None:
    done = run.run(
        [_tool("tb"), "relevant", "--query", "how do we run the tests", "--json"], label="retrieval"
    )
    if done is not None:
        run.worked.append(f"retrieval ({len(json.loads(done.stdout))} results)")


def _exercise_serve(run: SandboxRun) -> None:
    requests: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tb-verify", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_search", "arguments": {"query": "tests"}}},
    ]  # fmt: skip
    try:
        process = subprocess.Popen([*run.prefix, _tool("tb"), "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, cwd=run.repo, env=run.env, text=True)  # fmt: skip
    except OSError as exc:
        run.failed.append(f"serve: {exc}")
        return
    assert process.stdin is not None and process.stdout is not None
    replies: queue.Queue[dict[str, Any]] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            try:
                replies.put(json.loads(line))
            except ValueError:
                continue

    threading.Thread(target=read, daemon=True).start()
    answers: dict[object, dict[str, Any]] = {}
    try:
        for request in requests:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            if "id" not in request:
                continue
            while request["id"] not in answers:
                reply = replies.get(timeout=TIMEOUT_S)
                answers[reply.get("id")] = reply
    except (queue.Empty, BrokenPipeError, OSError) as exc:
        run.failed.append(f"serve: no answer ({exc.__class__.__name__})")
        return
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    tools = answers[2].get("result", {})
    names = sorted(t["name"] for t in tools.get("tools", [])) if isinstance(tools, dict) else []
    search = answers[3].get("result", {})
    if len(names) == 4 and isinstance(search, dict) and not search.get("isError"):
        run.worked.append("serve (initialize, tools/list, memory_search)")
    else:
        run.failed.append(f"serve: tools {names}, search answer {str(search)[:120]}")


def check_sandbox_egress(machine: MachineLayout, layout: BrainLayout | None) -> CheckResult:
    """Capture, retrieval and serve work without network and attempt no connection."""
    title = "Capture, retrieval and serve work in a network-less sandbox"
    prefix, what = sandbox_prefix()
    if prefix is None:
        return CheckResult("sandbox-egress", title, "UNVERIFIED", f"no OS sandbox: {what}")
    with tempfile.TemporaryDirectory(prefix="teambrain-strict-") as scratch:
        root = Path(scratch)
        home = root / "home"
        home.mkdir(mode=0o700)
        if machine.index_db.is_file():  # embeddings are cached by content: no re-embedding
            shutil.copy2(machine.index_db, home / "index.db")
        site = root / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
        log = root / "egress.log"
        user_home = root / "user-home"  # anything written outside TEAMBRAIN_HOME shows up here
        user_home.mkdir()
        if layout is not None:
            repo = layout.repo_root
        else:
            repo = scratch_brain(
                root, memory_id="01KB2F0A1S9Y4Q7V3C8D5E6F02", memory_class="convention",
                priority="required", title="Run the tests with make test", slug="run-the-tests",
                body="Run `make test`.", files={"README.md": "sandbox\n"},
            )  # fmt: skip
        env = {
            **os.environ, "TEAMBRAIN_HOME": str(home), "TEAMBRAIN_EGRESS_LOG": str(log), "HOME": str(user_home),
            "PYTHONPATH": os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]),
            **GIT_IDENTITY,
        }  # fmt: skip
        run = SandboxRun(prefix=prefix, env=env, repo=repo, log=log)
        _exercise_capture(run, home)
        _exercise_retrieval(run)
        _exercise_serve(run)
        attempts = log.read_text().splitlines() if log.exists() else []
        # Native code (a library's own telemetry) is invisible to the audit hook, but it leaves
        # files behind, e.g. a device id under ~/.cache: anything written to HOME is reported.
        strays = sorted(str(p.relative_to(user_home)) for p in user_home.rglob("*") if p.is_file())
    evidence = [
        f"sandbox: {what}",
        *(f"worked: {w}" for w in run.worked),
        *(f"failed: {f}" for f in run.failed),
    ]
    if strays:
        return CheckResult(
            "sandbox-egress",
            title,
            "FAIL",
            f"wrote outside $TEAMBRAIN_HOME: {strays[0]}",
            [*evidence, *_first([f"wrote ~/{p}" for p in strays])],
        )
    if attempts:
        return CheckResult(
            "sandbox-egress",
            title,
            "FAIL",
            f"{len(attempts)} network attempt(s) from teambrain code",
            [*evidence, *_first(attempts)],
        )
    if run.failed:
        return CheckResult(
            "sandbox-egress",
            title,
            "FAIL",
            f"not everything works without network: {run.failed[0]}",
            evidence,
        )
    return CheckResult(
        "sandbox-egress",
        title,
        "PASS",
        "capture, retrieval and serve worked with no network and attempted no connection",
        evidence,
    )


def _first(lines: list[str], count: int = 10) -> list[str]:
    """The first ``count`` lines, and how many more there are (a cap says when it is hit)."""
    return lines if len(lines) <= count else [*lines[:count], f"… and {len(lines) - count} more"]
