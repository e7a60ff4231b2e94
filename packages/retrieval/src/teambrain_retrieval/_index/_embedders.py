"""Embedders: the interface, the registry, the remote providers and the test fake.

An embedder turns text into L2-normalised float32 vectors. Which one runs is chosen in
brain.yaml (``retrieval.embedder.provider``); the registry maps that name to a factory. Loading
is lazy: nothing heavy (numpy, onnxruntime, a model file) is touched until the first ``embed_*``
call, and a failure to load raises :class:`EmbedderUnavailable` with a reason the caller shows
once before falling back to keyword search.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .._numpy import prepare_numpy
from .._query import query_terms

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from teambrain_kit.egress import Egress
    from teambrain_schema import EmbedderConfig

    Vectors = NDArray[np.float32]


class EmbedderUnavailable(RuntimeError):
    """The embedder cannot produce vectors; ``reason`` says why in one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@runtime_checkable
class Embedder(Protocol):
    """Text → unit vectors. ``name`` identifies the vector space (cached vectors are keyed by
    it), so two embedders with the same name must produce the same vectors."""

    name: str

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """One row per text, shape (len(texts), dim), float32, rows of unit length."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """The vector of a search query, shape (dim,)."""
        ...


EmbedderFactory = Callable[["EmbedderConfig", Path], Embedder]
# The built-in providers are this package's ``teambrain.embedders`` entry points (pyproject.toml:
# local, ollama, openai), the same mechanism plugins use; :func:`register_embedder` adds or
# replaces one in this process (tests inject fakes with it).
DISTRIBUTION = "teambrain-retrieval"
_REGISTRY: dict[str, EmbedderFactory] = {}


def register_embedder(provider: str, factory: EmbedderFactory) -> None:
    """Make ``provider`` (a ``retrieval.embedder.provider`` value) build embedders with
    ``factory(config, repo_root)`` in this process; it wins over a built-in of that name, and a
    later registration replaces an earlier one."""
    _REGISTRY[provider] = factory


def _builtin_providers() -> tuple[str, ...]:
    from teambrain_kit.plugins import EMBEDDERS_GROUP, builtin_names

    return builtin_names(EMBEDDERS_GROUP, DISTRIBUTION)


def embedder_providers() -> list[str]:
    """Provider names: the built-in ones and those registered in this process (``none`` is
    always accepted and means keyword search only)."""
    return sorted({*_builtin_providers(), *_REGISTRY, "none"})


def _provider_factory(provider: str) -> EmbedderFactory:
    factory = _REGISTRY.get(provider)
    if factory is not None:
        return factory
    from teambrain_kit.plugins import EMBEDDERS_GROUP, PluginProblem, load_builtin

    if provider not in _builtin_providers():
        stale = "" if _builtin_providers() else f" ({DISTRIBUTION}'s installed metadata lists no providers: reinstall it)"  # fmt: skip
        raise EmbedderUnavailable(f"unknown embedder provider {provider!r}{stale}")
    try:
        built_in: EmbedderFactory = load_builtin(EMBEDDERS_GROUP, DISTRIBUTION, provider)
    except PluginProblem as exc:
        raise EmbedderUnavailable(exc.message) from None
    return built_in


def make_embedder(config: EmbedderConfig, repo_root: Path) -> Embedder | None:
    """The embedder ``config`` asks for (not loaded yet), or None for provider ``none``.

    Raises :class:`EmbedderUnavailable` for a provider nobody registered.
    """
    if config.plugin is not None:
        from teambrain_kit.plugins import (
            EMBEDDERS_GROUP,
            PluginProblem,
            load_plugin,
            plugin_call,
        )

        label = f"{EMBEDDERS_GROUP} plugin {config.plugin!r}"
        try:
            plugin: EmbedderFactory = load_plugin(EMBEDDERS_GROUP, config.plugin)
            built = plugin_call(label, plugin, config, repo_root, bounded=True)
        except PluginProblem as exc:
            raise EmbedderUnavailable(exc.message) from None
        return PluginEmbedder(built, label)
    if config.provider == "none":
        return None
    return _provider_factory(config.provider)(config, repo_root)


EMBEDDER_SENDS = "memory text and search queries"
OLLAMA_DEFAULT_URL = "http://localhost:11434"
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_KEY_ENV = "OPENAI_API_KEY"


MODEL_FILE_RUNS = "nothing leaves: this model file runs here on memory text"


def embedder_egress(config: EmbedderConfig, repo_root: Path | None = None) -> Egress | None:
    """What the embedder ``config`` asks for needs this machine's approval for: where it sends
    memory text and queries (and with which credential), or the model file it runs; None for
    the bundled model and ``none``.

    A plugin counts as sending: what its code does is not ours to know, and it receives
    ``base_url`` and ``api_key_env`` too. A model file named by ``retrieval.embedder.path``
    (relative to ``repo_root``) sends nothing but is a committed program for onnxruntime: it
    is approved by path and sha256, so a commit that changes it asks again (None when it is
    not a readable model file at all: building the embedder then says why).
    """
    from teambrain_kit.egress import Egress, normalise_url

    if config.plugin is not None:
        extra = (f"base_url {normalise_url(config.base_url)}",) if config.base_url else ()
        return Egress(
            "retrieval.embedder", EMBEDDER_SENDS, f"plugin {config.plugin}",
            config.api_key_env, extra,
        )  # fmt: skip
    if config.provider == "ollama":
        url = normalise_url(config.base_url or OLLAMA_DEFAULT_URL)
        return Egress("retrieval.embedder", EMBEDDER_SENDS, url)
    if config.provider == "openai":
        url = normalise_url(config.base_url or OPENAI_DEFAULT_URL)
        key = config.api_key_env or OPENAI_DEFAULT_KEY_ENV
        return Egress("retrieval.embedder", EMBEDDER_SENDS, url, key)
    if config.provider == "local" and config.path:
        from ._model_files import configured_model_path, file_sha256, model_file_problem

        weights = configured_model_path(config, repo_root or Path.cwd())
        if weights is None or model_file_problem(weights) is not None:
            return None
        try:
            digest = file_sha256(weights)
        except OSError:
            return None
        where = f"model file {weights.resolve().as_posix()}"
        return Egress(
            "retrieval.embedder", MODEL_FILE_RUNS, where, None, (f"sha256 {digest[:16]}",)
        )
    if config.provider in ("local", "none"):
        return None
    # A provider some installed package registered: treated like a plugin.
    return Egress("retrieval.embedder", EMBEDDER_SENDS, f"provider {config.provider}",
                  config.api_key_env)  # fmt: skip


def normalise_rows(matrix: Any) -> Vectors:
    """``matrix`` as float32 rows of unit length (zero rows stay zero)."""
    prepare_numpy()
    import numpy as np

    array = np.asarray(matrix, dtype=np.float32)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    result: Vectors = (array / np.maximum(norms, 1e-12)).astype(np.float32)
    return result


class HashEmbedder:
    """A deterministic, dependency-free embedder for tests: hashed word and word-pair features.

    Texts sharing words get a high cosine, unrelated texts a low one; it understands nothing.
    Use it wherever a test needs vectors but not a language model.
    """

    def __init__(self, dim: int = 256, name: str = "test:hash-256") -> None:
        self.dim = dim
        self.name = name
        self.calls = 0
        self.embedded = 0  # document texts embedded (the cache should keep this low)
        self.queries = 0

    def _features(self, text: str) -> list[tuple[int, float]]:
        words = [term[:6] for term in query_terms(text)]  # crude stemming by prefix
        features = words + [f"{a}_{b}" for a, b in itertools.pairwise(words)]
        out = []
        for feature in features:
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            index = int.from_bytes(digest[:4], "little") % self.dim
            sign = 1.0 if digest[4] & 1 else -1.0
            out.append((index, sign))
        return out

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        self.embedded += len(texts)
        return self._vectors(texts)

    def _vectors(self, texts: Sequence[str]) -> Vectors:
        prepare_numpy()
        import numpy as np

        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for index, sign in self._features(text):
                matrix[row, index] += sign
        return normalise_rows(matrix)

    def embed_query(self, text: str) -> Vectors:
        self.queries += 1
        row: Vectors = self._vectors([text])[0]
        return row


class PluginEmbedder:
    """What an embedder plugin built, held to the :class:`Embedder` contract: a failure of any
    kind inside it, or vectors of the wrong shape, a changing dimension or non-finite values,
    is :class:`EmbedderUnavailable` naming the plugin (the caller falls back to keyword
    search), and what it prints goes to stderr."""

    def __init__(self, inner: Any, label: str) -> None:
        name = getattr(inner, "name", None)
        methods = [getattr(inner, m, None) for m in ("embed_documents", "embed_query")]
        if not isinstance(name, str) or not name or not all(map(callable, methods)):
            raise EmbedderUnavailable(
                f"{label} built {type(inner).__name__}, not an embedder "
                "(it needs a name and embed_documents / embed_query)"
            )
        self.name = name
        self.label = label
        self._inner = inner
        self._dim: int | None = None

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        rows = self._vectors(self._inner.embed_documents, list(texts))
        if rows.ndim != 2 or rows.shape[0] != len(texts):
            raise EmbedderUnavailable(
                f"{self.label}: {len(texts)} texts gave vectors of shape {rows.shape}"
            )
        return normalise_rows(rows)

    def embed_query(self, text: str) -> Vectors:
        rows = self._vectors(self._inner.embed_query, text)
        if rows.ndim == 2 and rows.shape[0] == 1:
            rows = rows[0]
        if rows.ndim != 1:
            raise EmbedderUnavailable(f"{self.label}: a query gave vectors of shape {rows.shape}")
        vector: Vectors = normalise_rows(rows)[0]
        return vector

    def _vectors(self, method: Callable[[Any], Any], argument: Any) -> Vectors:
        from teambrain_kit.plugins import PluginProblem, plugin_call

        try:
            raw = plugin_call(self.label, method, argument, passes=(EmbedderUnavailable,))
        except PluginProblem as exc:
            raise EmbedderUnavailable(exc.message) from None
        prepare_numpy()
        import numpy as np

        try:
            array = np.asarray(raw, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise EmbedderUnavailable(f"{self.label}: not a matrix of numbers ({exc})") from None
        dim = array.shape[-1] if array.ndim else 0
        if dim == 0 or (self._dim is not None and dim != self._dim):
            raise EmbedderUnavailable(
                f"{self.label}: vectors of {dim} dimensions (expected {self._dim or 'some'})"
            )
        if not np.isfinite(array).all():
            raise EmbedderUnavailable(f"{self.label}: vectors hold NaN or infinite values")
        self._dim = dim
        result: Vectors = array
        return result


class FailingEmbedder:
    """An embedder that cannot load (for tests of the keyword-only fallback)."""

    def __init__(self, reason: str = "model file missing", name: str = "test:failing") -> None:
        self.name = name
        self.reason = reason

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        raise EmbedderUnavailable(self.reason)

    def embed_query(self, text: str) -> Vectors:
        raise EmbedderUnavailable(self.reason)


# ---------------------------------------------------------------- remote providers (opt-in)


# The most one embedding reply may hold, unpacked: 64 texts of 3,072 dimensions in JSON are
# about 5 MB. A reply past it (a gzip bomb, an endless body) stops with one line.
MAX_EMBED_REPLY_BYTES = 32 * 1024 * 1024


def _post_json(url: str, payload: dict[str, Any], headers: dict[str, str], timeout: float) -> Any:
    """POST ``payload`` to ``url`` through the project's one HTTP client
    (:mod:`teambrain_kit.outbound`): no redirect followed, no proxy from the environment,
    the reply read within :data:`MAX_EMBED_REPLY_BYTES` and ``timeout`` seconds in all."""
    from teambrain_kit.outbound import OutboundError, origin_of, send

    if not url.startswith(("http://", "https://")):
        raise EmbedderUnavailable(f"base_url must be http(s): {origin_of(url)}")
    where = origin_of(url)
    try:
        with send(
            url, method="POST", body=json.dumps(payload).encode("utf-8"),
            headers={"Content-Type": "application/json", **headers},
            timeout=timeout, deadline_s=timeout, max_bytes=MAX_EMBED_REPLY_BYTES,
        ) as reply:  # fmt: skip
            if not 200 <= reply.status < 300:
                raise EmbedderUnavailable(f"{where} answered HTTP {reply.status}")
            return reply.json()
    except OutboundError as exc:
        raise EmbedderUnavailable(exc.message) from None


def _check_vectors(rows: Any, expected: int, where: str) -> Vectors:
    if not isinstance(rows, list) or len(rows) != expected:
        raise EmbedderUnavailable(f"{where}: expected {expected} embeddings")
    width = {len(row) if isinstance(row, list) else -1 for row in rows}
    if len(width) != 1 or min(width) < 1:
        raise EmbedderUnavailable(f"{where}: embeddings of mixed or no dimension")
    for row in rows:
        if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in row):
            raise EmbedderUnavailable(f"{where}: embeddings hold non-numbers")
    return normalise_rows(rows)


class _RemoteEmbedder:
    batch = 64

    def __init__(self, name: str, timeout: float) -> None:
        self.name = name
        self.timeout = timeout

    def _embed_batch(self, texts: list[str]) -> Vectors:
        raise NotImplementedError

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        prepare_numpy()
        import numpy as np

        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        parts = [
            self._embed_batch(list(texts[i : i + self.batch]))
            for i in range(0, len(texts), self.batch)
        ]
        result: Vectors = np.vstack(parts)
        return result

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self.embed_documents([text])[0]
        return row


class OllamaEmbedder(_RemoteEmbedder):
    """An Ollama server's ``/api/embed`` (default ``http://localhost:11434``, ``nomic-embed-text``)."""

    def __init__(self, model: str, base_url: str, timeout: float) -> None:
        super().__init__(f"ollama:{model}", timeout)
        self.model = model
        self.url = base_url.rstrip("/") + "/api/embed"

    def _embed_batch(self, texts: list[str]) -> Vectors:
        answer = _post_json(self.url, {"model": self.model, "input": texts}, {}, self.timeout)
        rows = answer.get("embeddings") if isinstance(answer, dict) else None
        return _check_vectors(rows, len(texts), self.url)


class OpenAIEmbedder(_RemoteEmbedder):
    """An OpenAI-compatible ``/embeddings`` endpoint; the key comes from the named variable."""

    def __init__(self, model: str, base_url: str, key_env: str | None, timeout: float) -> None:
        super().__init__(f"openai:{model}", timeout)
        self.model = model
        self.url = base_url.rstrip("/") + "/embeddings"
        self.key_env = key_env

    def _embed_batch(self, texts: list[str]) -> Vectors:
        key = os.environ.get(self.key_env) if self.key_env else None
        if not key:
            variable = self.key_env or "retrieval.embedder.api_key_env"
            raise EmbedderUnavailable(f"openai embedder: {variable} is not set")
        answer = _post_json(
            self.url,
            {"model": self.model, "input": texts},
            {"Authorization": f"Bearer {key}"},
            self.timeout,
        )
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list):
            raise EmbedderUnavailable(f"{self.url}: no 'data' in the answer")
        ordered = sorted(
            (item for item in data if isinstance(item, dict)),
            key=lambda item: item.get("index", 0),
        )
        return _check_vectors([item.get("embedding") for item in ordered], len(texts), self.url)


def ollama_embedder(config: EmbedderConfig, repo_root: Path) -> Embedder:
    """Provider ``ollama`` (this package's ``teambrain.embedders`` entry point)."""
    return OllamaEmbedder(
        config.model or "nomic-embed-text",
        config.base_url or OLLAMA_DEFAULT_URL,
        config.timeout_s,
    )


def openai_embedder(config: EmbedderConfig, repo_root: Path) -> Embedder:
    """Provider ``openai`` (this package's ``teambrain.embedders`` entry point)."""
    return OpenAIEmbedder(
        config.model or "text-embedding-3-small",
        config.base_url or OPENAI_DEFAULT_URL,
        config.api_key_env or OPENAI_DEFAULT_KEY_ENV,
        config.timeout_s,
    )
