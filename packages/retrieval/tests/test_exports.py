import re
import subprocess
import sys
from pathlib import Path

import teambrain_retrieval

PINNED = {
    "open_retriever", "Retriever", "Hit", "Similar", "ContextPack", "RefreshReport",
    "Situation", "gather_situation", "SqliteBackend", "ServedBrain", "fuse_rrf",
    "sanitise_fts_query", "trim_to_budget", "Embedder", "EmbedderUnavailable",
    "register_embedder", "make_embedder", "HashEmbedder", "LocalOnnxEmbedder",
}  # fmt: skip


def test_public_api_is_pinned_and_resolves() -> None:
    assert set(teambrain_retrieval.__all__) >= PINNED
    # Exactly these: a name added or dropped is an API change the pin must record.
    assert sorted(teambrain_retrieval.__all__) == PUBLIC_API
    for name in teambrain_retrieval.__all__:
        assert getattr(teambrain_retrieval, name) is not None, name


def test_type_checking_reexports_match_the_lazy_table() -> None:
    source = Path(teambrain_retrieval.__file__).read_text()
    typed = set(re.findall(r"(\w+) as \1\b", source))
    assert typed == set(teambrain_retrieval.__all__)


def test_importing_the_facade_loads_no_numpy_or_onnxruntime() -> None:
    code = (
        "import sys\n"
        "from teambrain_retrieval import open_retriever, gather_situation, Hit\n"
        "print(','.join(m for m in ('numpy', 'onnxruntime') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_backend_satisfies_the_contract_protocol() -> None:
    from teambrain_schema import RetrievalBackend

    assert issubclass(teambrain_retrieval.SqliteBackend, RetrievalBackend)


# The whole public API of teambrain_retrieval, sorted.
PUBLIC_API = [
    "CANDIDATES",
    "Catalog",
    "CatalogEntry",
    "ContextPack",
    "DEFAULT_LOCAL_MODEL",
    "DUPLICATE_COSINE",
    "DUPLICATE_TERM_OVERLAP",
    "Embedder",
    "EmbedderUnavailable",
    "FailingEmbedder",
    "HashEmbedder",
    "Hit",
    "IndexInventory",
    "IndexedBrain",
    "LOCAL_MODELS",
    "LiveSettings",
    "LiveView",
    "LocalModel",
    "LocalOnnxEmbedder",
    "MIN_MEMBERS",
    "PARAPHRASE_COSINE",
    "PARAPHRASE_TERM_OVERLAP",
    "RRF_K",
    "RefreshReport",
    "Retriever",
    "RetrieverOptions",
    "ServedBrain",
    "SharedIndexUnavailable",
    "Similar",
    "Situation",
    "SqliteBackend",
    "TeamCell",
    "Trimmed",
    "USAGE_METRICS",
    "UsageCell",
    "brain_catalog",
    "brain_id_for",
    "combine_cells",
    "connect_shared_index",
    "embed_text",
    "embedder_egress",
    "embedder_providers",
    "extract_mentions",
    "fetch_default_branch",
    "fill_shared_index",
    "fuse_rrf",
    "gather_situation",
    "inventory_index",
    "is_near_duplicate",
    "live_settings",
    "make_embedder",
    "open_retriever",
    "org_brain_egress",
    "org_brain_location",
    "org_brain_missing",
    "org_brain_root",
    "path_score",
    "prune_index",
    "publish_usage",
    "query_terms",
    "register_embedder",
    "sanitise_fts_query",
    "shared_brain_id",
    "shared_index_egress",
    "shared_index_url",
    "team_usage",
    "term_overlap",
    "trim_to_budget",
]
