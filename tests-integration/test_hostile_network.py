"""An approved host that turns hostile, from the installed ``tb`` on a real repository: the
embedder and the distill driver of brain.yaml point at a server on 127.0.0.1 this machine
approved, and that server redirects to a second origin, answers with a gzip bomb or an endless
stream; the environment names a proxy. The second origin and the proxy must receive nothing,
and every verb says what happened in one line, within a bounded amount of memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import forkserver
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "packages" / "distill" / "tests"))

from distill_testkit import SessionWriter, write_config
from teambrain_kit.paths import BrainLayout, MachineLayout

TB = str(Path(sys.executable).parent / "tb")
KEY = "sk-hostile-test-" + "q" * 24
MEMORY = """---
id: 01KB2F0A1S9Y4Q7V3C8D5E6F01
class: decision
scope: team
status: active
priority: advisory
title: Payments go through the gateway
created: 2026-11-01
---

Call the payment gateway for every charge; retry three times.
"""
Answer = Callable[[BaseHTTPRequestHandler], None]


class Host:
    """A server on 127.0.0.1 that records each request (path, headers, body) and answers with
    ``self.answer`` (default: 500)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, str], bytes]] = []
        self.answer: Answer | None = None
        host = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                host.seen.append((self.path, dict(self.headers), body))
                if host.answer is None:
                    _send(self, 500, b"{}")
                else:
                    host.answer(self)

            do_GET = do_POST = _any

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def reset(self, answer: Answer | None = None) -> None:
        self.seen.clear()
        self.answer = answer

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _send(handler: BaseHTTPRequestHandler, status: int, body: bytes, **headers: str) -> None:
    handler.send_response(status)
    handler.send_header("Content-Length", str(len(body)))
    handler.send_header("Connection", "close")
    for name, value in headers.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.end_headers()
    handler.wfile.write(body)


def _bomb(unpacked_mib: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1024 * 1024)
    return b"".join(packer.compress(zeros) for _ in range(unpacked_mib)) + packer.flush()


BOMB = _bomb(600)  # about 0.6 MB on the wire, 600 MiB unpacked: the review's reply


def _bomb_answer(handler: BaseHTTPRequestHandler) -> None:
    _send(handler, 200, BOMB, Content_Type="application/json", Content_Encoding="gzip")


def _endless_answer(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    piece = b"a" * 65536
    try:
        handler.wfile.write(b"6\r\ndata: \r\n")
        while True:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
    except OSError:
        pass


@pytest.fixture(scope="module")
def hosts() -> Iterator[tuple[Host, Host, Host]]:
    """The approved host, a second origin, and a proxy (each records what it receives)."""
    made = (Host(), Host(), Host())
    yield made
    for host in made:
        host.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A repository with a brain and one memory, a machine home with captured sessions."""
    root = tmp_path_factory.mktemp("hostile-net")
    repo, home = root / "repo", root / "home"
    repo.mkdir()
    git = lambda *a: subprocess.run(["git", *a], cwd=repo, check=True, capture_output=True)  # noqa: E731
    git("init", "-q", "-b", "main")
    env = {**os.environ, "TEAMBRAIN_HOME": str(home), KEY_ENV: KEY}
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "no_proxy", "NO_PROXY"):  # fmt: skip
        env.pop(name, None)
    subprocess.run([TB, "init"], cwd=repo, env=env, check=True, capture_output=True)
    memory = repo / ".teambrain" / "memories" / "decisions" / "01KB2F0A1S9Y4Q7V3C8D5E6F01-pay.md"
    memory.write_text(MEMORY)
    git("add", "-A")
    git("commit", "-qm", "brain")
    machine = MachineLayout(home)
    writer = SessionWriter(machine, "sess-net", repo=str(repo)).event("session_start")
    writer.intent("SESSION-TEXT fix the checkout timeout").tool("edit", "src/checkout.py")
    writer.end("committed", []).write()
    return {"repo": repo, "home": home, "env": env}


KEY_ENV = "TB_HOSTILE_KEY"


def _embedder(world: dict[str, Any], provider: str, url: str) -> None:
    layout = BrainLayout(world["repo"])
    text = layout.brain_yaml.read_text()
    start = text.index("  embedder:\n")
    end = text.index("    plugin: null\n", start)
    block = (
        f"  embedder:\n    provider: {provider}\n    model: null\n    path: null\n"
        f"    base_url: {url}\n    api_key_env: {KEY_ENV if provider == 'openai' else 'null'}\n"
        "    timeout_s: 20.0\n"
    )
    layout.brain_yaml.write_text(text[:start] + block + text[end:])
    _trust(world)


def _distiller(world: dict[str, Any], url: str) -> None:
    layout = BrainLayout(world["repo"])
    write_config(
        layout, driver="openai", model="gpt-test", api_key_env=KEY_ENV, base_url=url + "/v1",
        timeout_s=20, max_retries=0,
    )  # fmt: skip
    _trust(world)


def _trust(world: dict[str, Any]) -> None:
    done = _tb(world, "trust", "--yes")
    assert done.returncode == 0, done.stderr


def _tb(world: dict[str, Any], *args: str, env: dict[str, str] | None = None) -> Any:
    return forkserver.run(
        [TB, *args], cwd=world["repo"], env={**world["env"], **(env or {})}, timeout=120
    )


def _tb_peak(world: dict[str, Any], *args: str) -> tuple[Any, int]:
    """``tb`` run under a parent that reports the peak memory of it (in MiB)."""
    wrapper = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:])\n"
        "print('PEAK', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(done.returncode)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", wrapper, TB, *args], cwd=world["repo"], env=world["env"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    peak_kib = int(lines[-1].split()[1])
    done.stderr = "\n".join(lines[:-1])
    return done, peak_kib // 1024


def _one_line_no_traceback(output: str, needle: str) -> None:
    assert "Traceback" not in output, output
    assert any(needle in line for line in output.splitlines()), output


def _redirect_to(other: Host) -> Answer:
    return lambda h: _send(h, 302 if h.command == "POST" and "embed" in h.path else 307, b"",
                           Location=other.url + h.path)  # fmt: skip


def test_a_redirect_from_the_approved_embedder_sends_nothing_to_the_second_origin(
    world: dict[str, Any], hosts: tuple[Host, Host, Host]
) -> None:
    approved, other, _ = hosts
    approved.reset(_redirect_to(other))
    other.reset()
    _embedder(world, "openai", approved.url + "/v1")
    done = _tb(world, "reindex")
    assert done.returncode == 0, done.stderr
    _one_line_no_traceback(done.stderr, f"a redirect to {other.url}: not followed")
    assert approved.seen and other.seen == []  # the key and the memory text stayed put
    assert KEY not in done.stderr
    relevant = _tb(world, "relevant", "-q", "payment gateway")
    assert relevant.returncode == 0 and "Payments go through the gateway" in relevant.stdout
    assert other.seen == []


def test_an_environment_proxy_receives_nothing_from_the_embedder(
    world: dict[str, Any], hosts: tuple[Host, Host, Host]
) -> None:
    approved, _, proxy = hosts
    approved.reset()
    proxy.reset()
    _embedder(world, "ollama", approved.url)
    names = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ALL_PROXY")
    env = dict.fromkeys(names, proxy.url)
    done = _tb(world, "relevant", "-q", "payment gateway", env=env)
    assert done.returncode == 0, done.stderr
    assert proxy.seen == []
    assert approved.seen and approved.seen[0][0] == "/api/embed"

    # tb trust and tb verify say which proxy is used: none, and the environment's is not.
    trust = _tb(world, "trust", env=env)
    assert "proxy: none, requests go straight to each destination ($http_proxy" in trust.stderr
    # This machine names one: shown (its password never), and kept apart from approvals.
    named = _tb(world, "trust", "--proxy", "http://me:pw0rd@proxy.corp.example:3128")
    assert named.returncode == 0, named.stderr
    shown = json.loads(_tb(world, "trust", "--json").stdout)
    assert shown["proxy"] == "http://me:***@proxy.corp.example:3128"
    verify = json.loads(_tb(world, "verify", "--json", env=env).stdout)
    evidence = next(c for c in verify["checks"] if c["id"] == "egress")["evidence"]
    line = next(line for line in evidence if line.startswith("proxy: "))
    assert "proxy: http://me:***@proxy.corp.example:3128 (this machine's" in line
    assert "$http_proxy" in line and "not used" in line
    assert "pw0rd" not in json.dumps(verify)
    # a loopback destination never goes through it
    approved.reset()
    assert _tb(world, "relevant", "-q", "payment gateway").returncode == 0
    assert approved.seen
    assert _tb(world, "trust", "--proxy", "none").returncode == 0
    assert json.loads(_tb(world, "trust", "--json").stdout)["proxy"] is None
    bad = _tb(world, "trust", "--proxy", "socks5://proxy:1080")
    assert bad.returncode == 1 and "--proxy: it must start with http://" in bad.stderr


@pytest.mark.parametrize(
    ("answer", "said"),
    [(_endless_answer, "the reply passed 32 MiB"),
     (_bomb_answer, "the reply unpacks (gzip) to more than 32 MiB")],
)  # fmt: skip
def test_an_endless_or_bombed_embedder_reply_stops_at_the_cap(
    world: dict[str, Any], hosts: tuple[Host, Host, Host], answer: Answer, said: str
) -> None:
    approved, _, _ = hosts
    approved.reset(answer)
    _embedder(world, "ollama", approved.url)
    done, peak = _tb_peak(world, "reindex")
    assert done.returncode == 0, done.stderr
    _one_line_no_traceback(done.stderr, said)
    assert peak < 400, peak


def test_a_redirect_from_the_approved_model_server_re_sends_nothing(
    world: dict[str, Any], hosts: tuple[Host, Host, Host]
) -> None:
    approved, other, _ = hosts
    approved.reset(_redirect_to(other))
    other.reset()
    _embedder(world, "none", "null")
    _distiller(world, approved.url)
    done = _tb(world, "distill", "--json")
    assert done.returncode == 2, done.stderr
    message = json.loads(done.stdout)["sessions"][0]["detail"]
    assert f"answered HTTP 307, a redirect to {other.url}: not followed" in message
    assert len(approved.seen) == 1 and b"SESSION-TEXT" in approved.seen[0][2]
    assert other.seen == []  # the session summary was not re-sent anywhere
    assert KEY not in done.stdout + done.stderr


def test_a_gzip_bomb_from_the_model_server_stops_at_the_cap(
    world: dict[str, Any], hosts: tuple[Host, Host, Host]
) -> None:
    """0.6 MB of gzip, not streamed: `tb distill` peaked at about 1.3 GB reading it."""
    approved, _, _ = hosts
    approved.reset(_bomb_answer)
    _embedder(world, "none", "null")
    _distiller(world, approved.url)
    done, peak = _tb_peak(world, "distill")
    assert done.returncode == 2, done.stderr
    _one_line_no_traceback(
        done.stdout + done.stderr, "the reply unpacks (gzip) to more than 16 MiB"
    )
    assert peak < 400, peak


def test_an_endless_stream_from_the_model_server_stops_at_the_cap(
    world: dict[str, Any], hosts: tuple[Host, Host, Host]
) -> None:
    approved, _, _ = hosts
    approved.reset(_endless_answer)
    _embedder(world, "none", "null")
    _distiller(world, approved.url)
    done, peak = _tb_peak(world, "distill")
    assert done.returncode == 2, done.stderr
    _one_line_no_traceback(done.stdout + done.stderr, "the reply passed 16 MiB")
    assert peak < 400, peak
