"""tb distill end to end: real git repositories, the installed `tb`, spool sessions in a temp
TEAMBRAIN_HOME, and models that are either recorded fixtures (the fake driver) or a local HTTP
server speaking the Anthropic Messages API on 127.0.0.1 (the real SDK, over real HTTP)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "packages" / "distill" / "tests"))

from distill_testkit import SessionWriter, proposal, write_config
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_schema import MemoryFrontMatter
from teambrain_schema.frontmatter import new_memory_text
from teambrain_schema.ids import new_ulid

ANSWERS = {
    "INTENT-TIMEOUT": [
        proposal("Checkout timeout tests need the fake clock", commits=["C1"], tags=["testing", "checkout"]),
        proposal("Run the checkout tests with make test-checkout", "Use make test-checkout; it sets the fake clock.",
                 memory_class="convention", commits=["C1"]),
    ],
    "INTENT-REFUND": [
        proposal("Refunds go through PaymentGateway.refund", "Call PaymentGateway.refund(amount_cents); never the provider SDK.",
                 memory_class="decision", commits=["C1"], tags=["payments"]),
    ],
}  # fmt: skip


class FakeAnthropic(BaseHTTPRequestHandler):
    """POST /v1/messages → a tool_use answer chosen by the intent in the prompt."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        FakeAnthropic.requests.append(
            {
                "body": body,
                "key": self.headers.get("x-api-key") or self.headers.get("authorization"),
            }
        )
        prompt = body["messages"][0]["content"]
        candidates = next((a for marker, a in ANSWERS.items() if marker in prompt), [])
        answer = {
            "id": "msg", "type": "message", "role": "assistant", "model": body["model"],
            "stop_reason": "tool_use", "stop_sequence": None,
            "content": [{"type": "tool_use", "id": "tu", "name": body["tools"][0]["name"],
                         "input": {"candidates": candidates}}],
            "usage": {"input_tokens": 100, "output_tokens": 50},
        }  # fmt: skip
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def anthropic_url() -> Iterator[str]:
    FakeAnthropic.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeAnthropic)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def spool_sessions(repo: Path, home: Path, git_run) -> None:
    """Two committed sessions, one abandoned one, in the spool of ``home``."""
    machine = MachineLayout(home)
    git_run(
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "tests: use FakeClock in checkout timeout tests",
        cwd=repo,
    )
    sha1 = git_run("rev-parse", "HEAD", cwd=repo).strip()
    git_run("commit", "-q", "--allow-empty", "-m", "payments: partial refunds", cwd=repo)
    sha2 = git_run("rev-parse", "HEAD", cwd=repo).strip()
    for sid, intent, sha, outcome in (
        ("sess-timeout", "INTENT-TIMEOUT fix the flaky checkout timeout test", sha1, "committed"),
        ("sess-refund", "INTENT-REFUND add partial refunds", sha2, "committed"),
        ("sess-explore", "How are webhooks retried?", None, "abandoned"),
    ):
        writer = SessionWriter(machine, sid, repo=str(repo)).event("session_start").intent(intent)
        writer.tool("explore", "src/shop/checkout/cart.py").tool(
            "test", "tests/test_checkout.py", 1
        )
        writer.tool("edit", "tests/test_checkout.py").tool("test", "tests/test_checkout.py", 0)
        writer.end(outcome, [sha[:12]] if sha else []).write()


def distill_json(
    tb, repo: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[int, dict[str, Any]]:
    done = tb("distill", "--json", *args, cwd=repo, env=env)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def materialise(repo: Path, home: Path) -> None:
    """Write every pending candidate as a memory file, the way a reviewer would accept it."""
    layout = BrainLayout(repo)
    for path in sorted((home / "spool" / "candidates").glob("*.json")):
        candidate = json.loads(path.read_text())
        draft = candidate["draft"]
        front = MemoryFrontMatter.model_validate(
            {"id": new_ulid(), "class": draft["class"], "scope": draft["scope"], "status": "active",
             "priority": draft["priority"], "title": draft["title"], "created": "2026-11-26",
             "evidence": draft["evidence"], "tags": draft["tags"]}
        )  # fmt: skip
        layout.memory_path(front.class_, front.id, "from-distill").write_text(
            new_memory_text(front, draft["body"])
        )


def test_record_with_a_real_sdk_then_replay_with_the_fake_driver(
    repo: Path, tb, git_run, teambrain_home: Path, tmp_path: Path, anthropic_url: str
) -> None:
    assert tb("init", cwd=repo).returncode == 0
    layout = BrainLayout(repo)
    # 1. Record: the anthropic driver (real SDK, real HTTP to 127.0.0.1) on a scratch spool.
    scratch = tmp_path / "scratch-home"
    spool_sessions(repo, scratch, git_run)
    write_config(layout, driver="anthropic", model="claude-test", api_key_env="TEST_LLM_KEY",
                 base_url=anthropic_url, fixtures="fixtures")  # fmt: skip
    env = {"TEAMBRAIN_HOME": str(scratch), "TEST_LLM_KEY": "sk-local-test"}
    # The destination is brain.yaml's (committed): nothing is sent until this machine approves.
    code, refused = distill_json(tb, repo, "--record", env=env)
    assert code == 2 and "not approved on this machine" in refused["error"]["message"]
    assert FakeAnthropic.requests == []
    assert tb("trust", "--yes", cwd=repo, env=env).returncode == 0
    code, report = distill_json(tb, repo, "--record", env=env)
    assert code == 0, report
    assert [s["sid"] for s in report["sessions"]] == ["sess-refund", "sess-timeout", "sess-explore"]
    assert len(report["candidates"]) == 3 and len(report["recorded"]) == 3
    assert {r["key"].removeprefix("Bearer ") for r in FakeAnthropic.requests} == {"sk-local-test"}
    assert "sk-local-test" not in json.dumps(report)

    # 2. Replay offline: the fake driver, the same sessions in the test's own spool.
    spool_sessions_copy = scratch / "spool" / "sessions"
    (teambrain_home / "spool" / "sessions").mkdir(parents=True, exist_ok=True)
    for path in spool_sessions_copy.glob("*.jsonl"):
        (teambrain_home / "spool" / "sessions" / path.name).write_bytes(path.read_bytes())
    write_config(layout, model="claude-test", fixtures="fixtures")
    FakeAnthropic.requests = []
    code, first = distill_json(tb, repo)
    assert code == 0, first
    assert FakeAnthropic.requests == []  # nothing left the process
    titles = sorted(c["title"] for c in first["candidates"])
    assert titles == sorted(p["title"] for answers in ANSWERS.values() for p in answers)
    for candidate in first["candidates"]:
        assert candidate["evidence"]["sessions"] == [candidate["sid"]]
        assert len(candidate["evidence"]["commits"]) == 1
    files = sorted((teambrain_home / "spool" / "candidates").glob("*.json"))
    assert len(files) == 3
    assert {json.loads(f.read_text())["proposer"] for f in files} == {"distiller"}

    # 3. A second run over the same sessions proposes nothing new.
    code, second = distill_json(tb, repo)
    assert code == 0 and second["candidates"] == [] and second["sessions"] == []
    assert second["ignored"]["already_distilled"] == 3 and second["usage"]["calls"] == 0
    # Even with the watermark gone, the same answers are near-duplicates of what is pending.
    (teambrain_home / "distill" / "watermark.json").unlink()
    code, third = distill_json(tb, repo)
    assert code == 0 and third["candidates"] == [] and len(third["dropped"]) == 3
    assert {
        (d["reason"], m["kind"], m["reason"]) for d in third["dropped"] for m in d["matches"]
    } == {("duplicate", "candidate", "same content")}
    assert len(list((teambrain_home / "spool" / "candidates").glob("*.json"))) == 3

    # The candidates, accepted as memory files, pass lint.
    materialise(repo, teambrain_home)
    assert tb("reindex", cwd=repo).returncode == 0
    lint = tb("lint", cwd=repo)
    assert lint.returncode == 0, lint.stdout + lint.stderr

    human = tb("distill", cwd=repo)
    assert human.returncode == 0 and "Nothing to distill" in human.stdout


def _fixture_for_invalid(repo: Path, teambrain_home: Path, git_run) -> None:
    """A fixture whose every answer is invalid, for the only session in the spool."""
    from teambrain_distill import LLM, DistillOptions, distill
    from teambrain_schema.brain import load_brain_config

    machine = MachineLayout(teambrain_home)
    SessionWriter(machine, "sess-1", repo=str(repo)).event("session_start").intent("x").tool(
        "edit", "a.py"
    ).end().write()

    class Invalid:
        name = "scripted"

        def generate(self, request, schema, *, guard, context=None):
            from teambrain_distill import FixtureStore

            path = FixtureStore(repo / ".teambrain" / "fixtures").save(
                request, {}, recorded_with="hand"
            )
            data = json.loads(path.read_text())
            data["responses"] = [{}, "{not json"]  # states no candidates, then no JSON
            path.write_text(json.dumps(data))
            return schema(candidates=[])

    layout = BrainLayout(repo)
    llm = LLM(
        load_brain_config(layout).distill, brain_dir=layout.root, driver=Invalid(), record=False
    )
    distill(layout, machine, options=DistillOptions(dry_run=True), llm=llm)


def test_invalid_model_output_is_retried_then_reported(
    repo: Path, tb, git_run, teambrain_home: Path
) -> None:
    assert tb("init", cwd=repo).returncode == 0
    write_config(BrainLayout(repo), max_retries=2)
    _fixture_for_invalid(repo, teambrain_home, git_run)
    done = tb("distill", cwd=repo)
    assert done.returncode == 3
    assert "invalid answer after 3 attempt(s)" in done.stdout
    assert done.stderr.strip() == "tb: 1 session(s) failed; see above"
    assert not list((teambrain_home / "spool" / "candidates").glob("*.json"))
    assert not (teambrain_home / "distill" / "watermark.json").exists()
    code, report = distill_json(tb, repo)
    assert code == 3 and report["ok"] is False and report["usage"]["calls"] == 3


def test_dry_run_cost_cap_and_bad_input(
    repo: Path, tb, git_run, teambrain_home: Path, tmp_path: Path
) -> None:
    assert tb("init", cwd=repo).returncode == 0
    layout = BrainLayout(repo)
    write_config(layout)  # the fake driver: a fresh brain.yaml names no model
    (layout.root / "fixtures").mkdir()
    (layout.root / "fixtures" / "fallback.json").write_text(
        json.dumps(
            {
                "v": 1,
                "schema": "DistillAnswer",
                "responses": [{"candidates": [proposal("From the fallback")]}],
            }
        )
    )
    machine = MachineLayout(teambrain_home)
    for sid in ("a", "b"):
        SessionWriter(machine, sid, repo=str(repo)).event("session_start").intent(sid).tool(
            "edit", "x.py"
        ).end().write()
    before = sorted(str(p) for p in teambrain_home.rglob("*"))
    code, dry = distill_json(tb, repo, "--dry-run")
    assert code == 0 and dry["dry_run"] is True and len(dry["candidates"]) == 1
    assert sorted(str(p) for p in teambrain_home.rglob("*")) == before

    write_config(layout, max_calls=1)
    done = tb("distill", cwd=repo)
    assert done.returncode == 0
    assert (
        "Stopped early: cost cap reached: 1 of 1 model calls used (distill.max_calls)"
        in done.stdout
    )
    assert "Deferred (distilled next run): 1 session(s)" in done.stdout

    bad = tb("distill", "--since", "last tuesday", cwd=repo)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "--since" in bad.stderr
    (layout.prompts / "distill-session.md").unlink()
    missing = tb("distill", "--json", cwd=repo)
    assert missing.returncode == 2 and "run `tb init`" in missing.stderr
    assert json.loads(missing.stdout)["ok"] is False
    assert tb("init", cwd=repo).returncode == 0  # restores the default template
    assert (layout.prompts / "distill-session.md").is_file()
