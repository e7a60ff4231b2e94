"""`tb distill` from the installed `tb`, on a real git repository, against a real model server:
llama-cpp-python serving SmolLM2-135M-Instruct (built by prepare.sh), directly through a
recording proxy (the openai driver), and through the Ollama and Anthropic stand-ins (standins.py).
Each issue-29 defect has its regression here. SmolLM2-135M is far too small to learn anything:
what it produced is saved under .cache/results/ and reported, never asserted as quality."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from distill_testkit import SessionWriter, write_config
from lane import RESULTS, LlamaServer, tb_path
from standins import Spy
from teambrain_kit.paths import BrainLayout, MachineLayout

# A CPU model on a shared 2-core machine: grammar-constrained answers run at 1-40 tokens/s.
pytestmark = pytest.mark.timeout(1800)

KEY_ENV = "LOCAL_MODEL_KEY"
STORY = (
    "$session\n\nForget the task above. Write a very long, detailed story about a cat who "
    "learns to program, at least 2000 words.\n"
)


def tb_distill(repo: Path, home: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """`tb trust --yes` (this machine approves the configured endpoint), then `tb distill`."""
    env = {**os.environ, "TEAMBRAIN_HOME": str(home), KEY_ENV: "sk-local-lane"}
    trusted = subprocess.run([tb_path(), "trust", "--yes"], cwd=repo, env=env, capture_output=True,
                             text=True, timeout=120, check=False)  # fmt: skip
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    done = subprocess.run(
        [tb_path(), "distill", "--json", *args], cwd=repo, env=env, capture_output=True,
        text=True, timeout=900, check=False,
    )  # fmt: skip
    assert done.stdout, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def sessions(repo: Path, home: Path, git_run, count: int = 2) -> list[str]:
    """``count`` committed sessions of the kind teams have: a failing test fixed by an edit."""
    machine = MachineLayout(home)
    sids = []
    topics = [
        ("fix the flaky checkout timeout test with the fake clock", "tests/test_checkout.py",
         "tests: use FakeClock in checkout timeout tests"),
        ("partial refunds through PaymentGateway.refund in integer cents", "src/payments/refund.py",
         "payments: partial refunds in integer cents"),
    ]  # fmt: skip
    for index in range(count):
        intent, path, subject = topics[index % len(topics)]
        git_run("commit", "-q", "--allow-empty", "-m", subject, cwd=repo)
        sha = git_run("rev-parse", "HEAD", cwd=repo).strip()
        sid = f"lane-{index}"
        writer = SessionWriter(machine, sid, repo=str(repo)).event("session_start").intent(intent)
        writer.tool("explore", path).tool("test", path, 1).tool("edit", path).tool("test", path, 0)
        writer.end("committed", [sha]).write()
        sids.append(sid)
    return sids


def configure(repo: Path, **distill: Any) -> BrainLayout:
    layout = BrainLayout(repo)
    # timeout_s at its most: a busy 2-core machine runs this model at 1-40 tokens a second.
    settings: dict[str, Any] = {
        "max_output_tokens": 256, "temperature": 0, "max_retries": 1, "timeout_s": 600,
    }  # fmt: skip
    write_config(layout, **{**settings, **distill})
    return layout


def save(name: str, report: dict[str, Any], proxy: Spy) -> None:
    """What the model produced, for the closing note (never asserted as quality)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    answers = ["".join(e.text) for e in proxy.exchanges]
    (RESULTS / f"{name}.json").write_text(
        json.dumps({"report": report, "answers": answers}, indent=1, ensure_ascii=False)
    )


def test_openai_driver_end_to_end_with_the_limit_honoured(
    repo: Path, tb, git_run, teambrain_home: Path, spy: Spy
) -> None:
    """Points 1, 4, 6: the limit in both names, honoured at the wire; the answer read; every
    candidate judged on its own; the counts in the report are the requests sent."""
    assert tb("init", cwd=repo).returncode == 0
    configure(repo, driver="openai", model="smollm2", api_key_env=KEY_ENV,
              base_url=f"{spy.url}/v1")  # fmt: skip
    sids = sessions(repo, teambrain_home, git_run)  # two: the second meets the first's candidate
    code, report = tb_distill(repo, teambrain_home)
    save("openai", report, spy)
    assert code in (0, 3), report  # never an outage: the server answered every request
    assert {s["sid"] for s in report["sessions"]} == set(sids)
    assert not [
        s
        for s in report["sessions"]
        if s["detail"].startswith(("unavailable", "timeout", "rejected"))
    ]
    for exchange in spy.exchanges:
        assert exchange.body["max_tokens"] == 256 and exchange.body["max_completion_tokens"] == 256
        assert exchange.body["temperature"] == 0 and exchange.body["stream"] is True
        assert exchange.events <= 256 + 1  # about one token an event: the server stopped
        assert exchange.body["tools"][0]["function"]["parameters"]["required"] == ["candidates"]
    attempts = sum(s["attempts"] for s in report["sessions"])
    resends = sum(s["resends"] for s in report["sessions"])
    assert attempts + resends == len(spy.exchanges) == report["usage"]["calls"]
    kept = {c["title"] for c in report["candidates"]}
    assert report["yielded_nothing"] == sum(
        1 for s in report["sessions"] if s["status"] == "distilled" and s["queued"] == 0
    )
    for dropped in report["dropped"]:  # each dropped one says why
        if dropped["reason"] == "invalid":
            assert dropped["detail"] and dropped["title"] not in kept
        else:
            assert dropped["reason"] == "duplicate" and dropped["matches"]


def test_a_cut_off_answer_is_re_asked_then_fails_only_that_session(
    repo: Path, tb, git_run, teambrain_home: Path, spy: Spy
) -> None:
    """Points 1 and 2: a model asked for a 2000-word story stops at 256 tokens
    (finish_reason length), is re-asked shorter, and the session fails as invalid — not as an
    outage, and the run goes on to the next session."""
    assert tb("init", cwd=repo).returncode == 0
    layout = configure(repo, driver="openai", model="smollm2", api_key_env=KEY_ENV,
                       base_url=f"{spy.url}/v1", structured_output="prompt")  # fmt: skip
    (layout.prompts / "distill-session.md").write_text(STORY)
    sessions(repo, teambrain_home, git_run)
    code, report = tb_distill(repo, teambrain_home)
    save("cut-off", report, spy)
    # Never an outage, and the run goes on: each session is asked twice (the story, cut off at
    # 256 tokens, then the re-ask), and ends as an invalid answer or — when the re-ask brought
    # JSON, even wrapped in prose — distilled with each candidate judged on its own.
    assert code in (0, 3), report
    assert report["stopped"] is None
    assert len(report["sessions"]) == 2
    for session in report["sessions"]:
        assert (session["attempts"], session["resends"]) == (2, 0), session
        assert session["status"] == "distilled" or session["detail"].startswith("invalid: ")
    assert len(spy.exchanges) == 4
    for first, reask in (spy.exchanges[0:2], spy.exchanges[2:4]):
        assert first.finish == "length" and first.events <= 257  # the server stopped at 256
        last = reask.body["messages"][-1]["content"]
        assert "cut off after 256 tokens" in last
        assert "".join(first.text)[:200] not in json.dumps(reask.body)  # not echoed back
        assert [m["role"] for m in reask.body["messages"]] == ["system", "user"]


def test_a_timeout_closes_the_request_and_is_named_a_timeout(
    repo: Path, tb, git_run, teambrain_home: Path, spy: Spy, llama: LlamaServer
) -> None:
    """Point 5: a 4096-token story cannot arrive in 3 s. The request is closed (the server logs
    the disconnect and stops), not re-sent, and the report says timeout, not cost cap."""
    assert tb("init", cwd=repo).returncode == 0
    layout = configure(repo, driver="openai", model="smollm2", api_key_env=KEY_ENV,
                       base_url=f"{spy.url}/v1", structured_output="prompt",
                       max_output_tokens=4096, timeout_s=3, max_retries=2)  # fmt: skip
    (layout.prompts / "distill-session.md").write_text(STORY)
    sessions(repo, teambrain_home, git_run, count=3)
    log_before = len(llama.log_text())
    code, report = tb_distill(repo, teambrain_home)
    save("timeout", report, spy)
    assert code == 2, report
    failed = [s for s in report["sessions"] if s["status"] == "failed"]
    assert len(failed) == 2 and all(s["detail"].startswith("timeout: ") for s in failed)
    assert all("distill.timeout_s" in s["detail"] and "cost cap" not in s["detail"] for s in failed)
    assert report["stopped"] and "2 sessions in a row" in report["stopped"]
    assert [s["status"] for s in report["sessions"]][-1] == "deferred"
    assert len(spy.exchanges) == 2  # one request a session: never re-sent
    assert all(e.client_closed and e.finish is None for e in spy.exchanges)
    # The server notices each closed stream at its next token (after the prompt, which a busy
    # machine may still be reading) and stops generating it. A request closed while it still
    # waited for the single slot never starts generating (llama-cpp-python then logs
    # nothing): every answer that started must have stopped, and none may start later.
    deadline = time.monotonic() + 900
    settled = 0
    while settled < 3:
        assert time.monotonic() < deadline, llama.log_text()[-2000:]
        log = llama.log_text()[log_before:]
        started, stopped = log.count("Llama.generate"), log.count("Disconnected from client")
        settled = settled + 1 if stopped >= max(started, 1) else 0
        time.sleep(2)


def test_ollama_driver_through_the_ollama_stand_in(
    repo: Path, tb, git_run, teambrain_home: Path, ollama
) -> None:
    """The ollama driver: json_schema (Ollama's format) and max_tokens, the only limit Ollama
    reads, honoured by the real model behind the stand-in."""
    assert tb("init", cwd=repo).returncode == 0
    configure(repo, driver="ollama", model="smollm2:135m", base_url=f"{ollama.url}/v1")
    sessions(repo, teambrain_home, git_run, count=1)
    code, report = tb_distill(repo, teambrain_home)
    save("ollama", report, ollama)
    assert code in (0, 3), report
    assert not [
        s
        for s in report["sessions"]
        if s["detail"].startswith(("unavailable", "timeout", "rejected"))
    ]
    for exchange in ollama.exchanges:
        assert exchange.body["max_tokens"] == 256 and "max_completion_tokens" not in exchange.body
        assert exchange.body["response_format"]["type"] == "json_schema"
        assert exchange.events <= 257


def test_anthropic_driver_through_the_anthropic_stand_in(
    repo: Path, tb, git_run, teambrain_home: Path, anthropic
) -> None:
    assert tb("init", cwd=repo).returncode == 0
    configure(repo, driver="anthropic", model="claude-standin", api_key_env=KEY_ENV,
              base_url=anthropic.url)  # fmt: skip
    sessions(repo, teambrain_home, git_run, count=1)
    code, report = tb_distill(repo, teambrain_home)
    save("anthropic", report, anthropic)
    assert code in (0, 3), report
    assert not [
        s
        for s in report["sessions"]
        if s["detail"].startswith(("unavailable", "timeout", "rejected"))
    ]
    for exchange in anthropic.exchanges:
        assert exchange.body["max_tokens"] == 256 and exchange.body["stream"] is True
        assert exchange.body["tool_choice"] == {"type": "tool", "name": "DistillAnswer"}
        assert exchange.events <= 257


def test_doctor_online_asks_the_real_server(repo: Path, tb, teambrain_home: Path, spy: Spy) -> None:
    """Point 7: `tb doctor --online` sends the configured endpoint one request of a few tokens
    and reports that the real server answered as the configured model."""
    assert tb("init", cwd=repo).returncode == 0
    configure(repo, driver="openai", model="smollm2", api_key_env=KEY_ENV,
              base_url=f"{spy.url}/v1")  # fmt: skip
    env = {**os.environ, "TEAMBRAIN_HOME": str(teambrain_home), KEY_ENV: "sk-local-lane"}
    assert subprocess.run([tb_path(), "trust", "--yes"], cwd=repo, env=env,
                          check=False, capture_output=True).returncode == 0  # fmt: skip
    done = subprocess.run([tb_path(), "doctor", "--json", "--online"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900, check=False)  # fmt: skip
    found = {f["name"]: f for f in json.loads(done.stdout)["findings"]}
    endpoint = found["distill endpoint"]
    assert endpoint["status"] == "ok", endpoint
    assert f"{spy.url} answered as smollm2" in endpoint["detail"]
    [exchange] = spy.exchanges
    assert exchange.body["max_tokens"] == 16 and exchange.events <= 17


def test_a_root_base_url_and_a_refused_mode_against_the_real_server(
    repo: Path, tb, git_run, teambrain_home: Path, spy: Spy
) -> None:
    """`distill.base_url` written as the server's root (no /v1) reaches llama-cpp-python's
    /v1, and its refusal of json_schema (HTTP 500: it knows only text and json_object) moves
    the run to json_object instead of failing every session; the report's notes say so."""
    assert tb("init", cwd=repo).returncode == 0
    configure(repo, driver="openai", model="smollm2", api_key_env=KEY_ENV, base_url=spy.url,
              structured_output="json_schema")  # fmt: skip
    sids = sessions(repo, teambrain_home, git_run, count=1)
    code, report = tb_distill(repo, teambrain_home)
    save("fallback", report, spy)
    assert code in (0, 3), report
    assert [s["sid"] for s in report["sessions"]] == sids
    assert not [
        s
        for s in report["sessions"]
        if s["detail"].startswith(("unavailable", "timeout", "rejected"))
    ]
    assert all(e.path == "/v1/chat/completions" for e in spy.exchanges)
    first, *rest = spy.exchanges
    # llama-cpp-python 0.3.36 refuses it as a request validation error sent with HTTP 500
    assert first.status == 500 and first.body["response_format"]["type"] == "json_schema"
    assert rest and all(e.body["response_format"]["type"] == "json_object" for e in rest)
    [note] = [n for n in report["notes"] if "structured_output" in n]
    assert "refused distill.structured_output json_schema" in note
    assert "set distill.structured_output: json_object" in note
