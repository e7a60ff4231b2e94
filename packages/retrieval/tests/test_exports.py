import subprocess
import sys

import teambrain_retrieval
from teambrain_kit.lazy import export_problems


def test_public_api_is_pinned_and_resolves() -> None:
    # Exactly these: a name added or dropped is an API change the pin must record.
    assert sorted(teambrain_retrieval.__all__) == PUBLIC_API
    for name in teambrain_retrieval.__all__:
        assert getattr(teambrain_retrieval, name) is not None, name


def test_the_public_names_are_written_once() -> None:
    """``_EXPORTS`` in ``__init__.py`` is the one list of public names: ``__all__``, the lazy
    loader and the type checkers' re-exports (``make exports``) come from it; the pin above
    records it deliberately."""
    assert export_problems(teambrain_retrieval) == []


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
    "NoteHit",
    "PARAPHRASE_COSINE",
    "PARAPHRASE_TERM_OVERLAP",
    "PathMatcher",
    "RRF_K",
    "Ranked",
    "RecentCommit",
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
    "defined_symbols",
    "embed_text",
    "embedder_egress",
    "embedder_providers",
    "extract_mentions",
    "favour_query_speed",
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
    "pair_paths",
    "path_score",
    "prune_index",
    "publish_usage",
    "query_terms",
    "rank_situation",
    "register_embedder",
    "sanitise_fts_query",
    "shared_brain_id",
    "shared_index_egress",
    "shared_index_url",
    "team_usage",
    "term_overlap",
    "terms_note",
    "trim_to_budget",
]
