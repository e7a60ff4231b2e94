"""The model lane (`make test-models`): a real llama-cpp-python server with SmolLM2-135M, started
once for the session on 127.0.0.1, and the stand-ins in front of it (standins.py). Prepared by
prepare.sh; without it every test here fails with the command that prepares it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "packages" / "distill" / "tests"))

from lane import RESULTS, VENV_PYTHON, LlamaServer, free_port, model_path  # noqa: E402
from standins import AnthropicStandIn, OllamaStandIn, Spy  # noqa: E402


@pytest.fixture(scope="session")
def llama() -> Iterator[LlamaServer]:
    model = model_path()
    if model is None:
        pytest.fail("the model lane is not prepared: run `make test-models` (or "
                    "tests-integration/models/prepare.sh)", pytrace=False)  # fmt: skip
    port = free_port()
    RESULTS.mkdir(parents=True, exist_ok=True)
    log = RESULTS / "llama-server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [str(VENV_PYTHON), "-m", "llama_cpp.server", "--model", str(model),
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192",
             "--n_threads", str(min(2, os.cpu_count() or 1)), "--model_alias", "smollm2"],
            stdout=sink, stderr=subprocess.STDOUT,
            # Threads that sleep at barriers instead of spinning: on a machine shared with
            # other work, spinning OpenMP threads slow the model down many times over.
            env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"},
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{url}/v1/models", timeout=5) as answer:
                    json.loads(answer.read())
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the llama server did not start; see {log}", pytrace=False)
                time.sleep(0.5)
        yield LlamaServer(url, log, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def spy(llama: LlamaServer) -> Iterator[Spy]:
    proxy = Spy(llama.url)
    yield proxy
    proxy.close()


@pytest.fixture
def ollama(llama: LlamaServer) -> Iterator[OllamaStandIn]:
    proxy = OllamaStandIn(llama.url)
    yield proxy
    proxy.close()


@pytest.fixture
def anthropic(llama: LlamaServer) -> Iterator[AnthropicStandIn]:
    proxy = AnthropicStandIn(llama.url)
    yield proxy
    proxy.close()
