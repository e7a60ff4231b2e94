"""The real default model: loaded once per session (it is the slow part of this suite)."""

import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from teambrain_retrieval import EmbedderUnavailable, LocalOnnxEmbedder, make_embedder
from teambrain_retrieval._index._local import MINILM_L6_INT8, LocalModel
from teambrain_schema import EmbedderConfig


@pytest.fixture(scope="session")
def minilm() -> LocalOnnxEmbedder:
    embedder = make_embedder(EmbedderConfig(), Path("."))
    assert isinstance(embedder, LocalOnnxEmbedder)
    embedder.load()
    return embedder


def test_default_model_embeds_meaningfully(minilm: LocalOnnxEmbedder) -> None:
    assert minilm.name == "local:minilm-l6-int8"
    docs = minilm.embed_documents(
        ["Run the test suite with make test, never bare pytest.",
         "Redis connection pool exhausted under load; raise max_connections.",
         "Payments go through the PaymentGateway interface."]
    )  # fmt: skip
    assert docs.shape == (3, 384) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    query = minilm.embed_query("too many connections errors in the cache")
    assert int(np.argmax(docs @ query)) == 1
    # Batching does not change vectors (padding is masked out of the pooling).
    alone = minilm.embed_documents(["Payments go through the PaymentGateway interface."])
    assert np.allclose(alone[0], docs[2], atol=1e-5)


def test_a_server_asks_for_the_optimised_session_and_both_embed_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One-shot commands create the session without onnxruntime's graph optimisations (it
    starts ~0.1 s of CPU sooner); a process that called favour_query_speed (tb serve, tb ui) creates
    it optimised. Both give the same vectors, to float rounding: memories one embedded are
    found by queries the other embeds."""
    import onnxruntime as ort
    from teambrain_retrieval import favour_query_speed
    from teambrain_retrieval._index import _local

    level = ort.GraphOptimizationLevel
    monkeypatch.setattr(_local, "_QUERY_SPEED", threading.Event())  # as a command starts
    oneshot = make_embedder(EmbedderConfig(), Path("."))
    assert isinstance(oneshot, LocalOnnxEmbedder)
    assert oneshot.load().get_session_options().graph_optimization_level == level.ORT_DISABLE_ALL
    favour_query_speed()
    assert _local._QUERY_SPEED.is_set()
    served = make_embedder(EmbedderConfig(), Path("."))
    assert isinstance(served, LocalOnnxEmbedder)
    assert served.load().get_session_options().graph_optimization_level == level.ORT_ENABLE_ALL
    texts = ["Run the test suite with make test, never bare pytest.", "Redis pool exhausted"]
    assert np.allclose(served.embed_documents(texts), oneshot.embed_documents(texts), atol=1e-4)
    query = "too many connections errors in the cache"
    assert float(served.embed_query(query) @ oneshot.embed_query(query)) > 0.9999


def test_a_wrong_checksum_refuses_to_run(tmp_path: Path) -> None:
    weights = tmp_path / "model.onnx"
    weights.write_bytes(b"not the model")
    tampered = LocalModel(
        key="tampered", weights=lambda: weights,
        weights_sha256=MINILM_L6_INT8.weights_sha256,
        tokenizer=MINILM_L6_INT8.tokenizer, tokenizer_sha256=MINILM_L6_INT8.tokenizer_sha256,
    )  # fmt: skip
    with pytest.raises(EmbedderUnavailable, match="sha256 mismatch"):
        LocalOnnxEmbedder(tampered).embed_query("x")


def test_missing_or_broken_configured_model_is_unavailable(tmp_path: Path) -> None:
    missing = make_embedder(EmbedderConfig(path=str(tmp_path / "nope.onnx")), tmp_path)
    assert missing is not None
    with pytest.raises(EmbedderUnavailable, match="missing"):
        missing.embed_query("x")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"garbage")
    embedder = make_embedder(EmbedderConfig(path="broken.onnx"), tmp_path)
    assert embedder is not None and embedder.name.startswith("local:broken-")
    with pytest.raises(EmbedderUnavailable, match="cannot load"):
        embedder.embed_query("x")


def test_a_configured_copy_of_the_model_works(tmp_path: Path, minilm: LocalOnnxEmbedder) -> None:
    copy = tmp_path / "models"
    copy.mkdir()
    shutil.copy(MINILM_L6_INT8.weights(), copy / "model.onnx")
    embedder = make_embedder(EmbedderConfig(path="models"), tmp_path)
    assert embedder is not None and embedder.name.startswith("local:model-8199be6f699a")
    text = "Structured logging with structlog"
    assert np.allclose(embedder.embed_query(text), minilm.embed_query(text), atol=1e-5)


def test_unknown_local_model_name(tmp_path: Path) -> None:
    with pytest.raises(EmbedderUnavailable, match="unknown local model"):
        make_embedder(EmbedderConfig(model="gpt-embed-9000"), tmp_path)


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/stdin", "fifo", "sparse", "folder"])
def test_a_configured_path_that_is_no_model_file_is_refused_at_once(
    tmp_path: Path, target: str
) -> None:
    import os
    import time

    if target == "fifo":
        os.mkfifo(tmp_path / "model.fifo")  # reading it would wait for a writer forever
        target = "model.fifo"
    elif target == "sparse":
        with open(tmp_path / "huge.onnx", "wb") as handle:
            handle.truncate(5 * 1024**3)
        target = "huge.onnx"
    elif target == "folder":  # a folder whose model.onnx is a link to a device
        (tmp_path / "models").mkdir()
        (tmp_path / "models" / "model.onnx").symlink_to("/dev/zero")
        target = "models"
    started = time.process_time()  # CPU time: reading 5 GB costs it, a busy machine does not
    with pytest.raises(EmbedderUnavailable, match=r"retrieval\.embedder\.path: .*not a model"):
        make_embedder(EmbedderConfig(path=target), tmp_path)  # a blocked read never returns
    assert time.process_time() - started < 5


def test_hashing_a_model_file_has_a_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import threading

    from teambrain_retrieval._index import _model_files

    path = tmp_path / "slow.onnx"
    path.write_bytes(b"x" * 100)
    release = threading.Event()
    real_read = os.read

    def stalled(fd: int, size: int) -> bytes:  # a network mount that stopped answering
        release.wait(10)
        return real_read(fd, size)

    monkeypatch.setattr(_model_files.os, "read", stalled)
    with pytest.raises(TimeoutError, match="took longer than"):
        _model_files.file_sha256(path, timeout=0.2)
    release.set()


def test_a_committed_model_file_runs_only_once_approved(
    tmp_path: Path, minilm: LocalOnnxEmbedder
) -> None:
    import subprocess

    from teambrain_kit.egress import approve_egress
    from teambrain_kit.paths import BrainLayout, machine_layout
    from teambrain_retrieval import RetrieverOptions, embedder_egress, open_retriever
    from teambrain_schema.brain import load_brain_config

    repo = tmp_path / "repo"
    (repo / ".teambrain" / "memories" / "learnings").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "models").mkdir()
    shutil.copy(MINILM_L6_INT8.weights(), repo / "models" / "model.onnx")
    layout = BrainLayout(repo)
    layout.brain_yaml.write_text("version: 1\nretrieval:\n  embedder:\n    path: models\n")
    notices: list[str] = []

    def embedder_in_use() -> str:
        retriever = open_retriever(layout, RetrieverOptions(warn=notices.append))
        try:
            return retriever.embedder_status()
        finally:
            retriever.close()

    assert embedder_in_use().startswith("none:") and "model file" in notices[-1]
    egress = embedder_egress(load_brain_config(layout).retrieval.embedder, repo)
    assert egress is not None and egress.credential is None
    assert egress.extra == ("sha256 8199be6f699a395f",)
    approve_egress(machine_layout(), repo, [egress])
    assert embedder_in_use().startswith("local:model-8199be6f699a")
    # A later commit changes the model file: it runs only once approved again.
    with open(repo / "models" / "model.onnx", "ab") as handle:
        handle.write(b"\0")
    assert embedder_in_use().startswith("none:") and "changed since" in notices[-1]
