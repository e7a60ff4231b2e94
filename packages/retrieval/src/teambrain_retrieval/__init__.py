"""teambrain retrieval: hybrid FTS5 + vector search over the team brain on SQLite.

The entry point is :func:`open_retriever`, which gives a :class:`Retriever` for one brain:
``search``, ``search_paths``, ``context``, ``similar``, ``memory``, ``refresh``, ``rebuild``,
``stats``, opened as :class:`RetrieverOptions` say. :class:`SqliteBackend` is the
contract's RetrievalBackend underneath. Embedders are ``teambrain.embedders`` entry points (the
built-in local, ollama and openai ones are declared in this package's pyproject.toml; other
packages add plugins the same way); :func:`register_embedder` adds one in-process.

Names load lazily, so importing this package costs nothing until a name is used (apsw, numpy
and onnxruntime load later still, when a search or an embedding needs them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teambrain_schema.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    # the facade
    "open_retriever": "_retriever",
    "Retriever": "_retriever",
    "RetrieverOptions": "_retriever",
    "Hit": "_search._hits",
    "Similar": "_search._hits",
    "ContextPack": "_search._hits",
    "RefreshReport": "_index._refresher",
    "brain_id_for": "_setup",
    "org_brain_root": "_setup",
    "org_brain_location": "_setup",
    "org_brain_missing": "_setup",
    "org_brain_egress": "_setup",
    "Catalog": "_index._catalog",
    "CatalogEntry": "_index._catalog",
    "brain_catalog": "_index._catalog",
    "DUPLICATE_COSINE": "_search._duplicates",
    "DUPLICATE_TERM_OVERLAP": "_search._duplicates",
    "PARAPHRASE_COSINE": "_search._duplicates",
    "PARAPHRASE_TERM_OVERLAP": "_search._duplicates",
    "is_near_duplicate": "_search._duplicates",
    "term_overlap": "_search._duplicates",
    "Situation": "_search._situation",
    "gather_situation": "_search._situation",
    # the live view: the default branch as last fetched, this checkout's changes on top
    "LiveView": "_index._live",
    "LiveSettings": "_index._live",
    "live_settings": "_index._live",
    "fetch_default_branch": "_index._live",
    # the backend and its pieces
    "SqliteBackend": "_search._backend",
    "ServedBrain": "_index._store",
    "embed_text": "_index._store",
    "fuse_rrf": "_search._fusion",
    "RRF_K": "_search._fusion",
    "CANDIDATES": "_search._fusion",
    "sanitise_fts_query": "_query",
    "query_terms": "_query",
    "trim_to_budget": "_search._trim",
    "Trimmed": "_search._trim",
    "extract_mentions": "_pathmatch",
    "path_score": "_pathmatch",
    # what index.db holds (tb verify) and pruning brains no longer here
    "inventory_index": "_index._inventory",
    "prune_index": "_index._inventory",
    "IndexInventory": "_index._inventory",
    "IndexedBrain": "_index._inventory",
    # the shared index (retrieval.backend: postgres); the driver loads only on connecting
    "shared_index_egress": "_postgres._config",
    "shared_index_url": "_postgres._config",
    "fill_shared_index": "_postgres._fill",
    "shared_brain_id": "_postgres._fill",
    "connect_shared_index": "_postgres._connect",
    "SharedIndexUnavailable": "_postgres._connect",
    # embedders
    "Embedder": "_index._embedders",
    "EmbedderUnavailable": "_index._embedders",
    "register_embedder": "_index._embedders",
    "embedder_providers": "_index._embedders",
    "make_embedder": "_index._embedders",
    "embedder_egress": "_index._embedders",
    "HashEmbedder": "_index._embedders",
    "FailingEmbedder": "_index._embedders",
    "LocalOnnxEmbedder": "_index._local",
    "LocalModel": "_index._local",
    "LOCAL_MODELS": "_index._local",
    "DEFAULT_LOCAL_MODEL": "_index._local",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # explicit re-exports for type checkers
    from ._index._catalog import (
        Catalog as Catalog,
        CatalogEntry as CatalogEntry,
        brain_catalog as brain_catalog,
    )
    from ._index._embedders import (
        Embedder as Embedder,
        EmbedderUnavailable as EmbedderUnavailable,
        FailingEmbedder as FailingEmbedder,
        HashEmbedder as HashEmbedder,
        embedder_egress as embedder_egress,
        embedder_providers as embedder_providers,
        make_embedder as make_embedder,
        register_embedder as register_embedder,
    )
    from ._index._inventory import (
        IndexedBrain as IndexedBrain,
        IndexInventory as IndexInventory,
        inventory_index as inventory_index,
        prune_index as prune_index,
    )
    from ._index._live import (
        LiveSettings as LiveSettings,
        LiveView as LiveView,
        fetch_default_branch as fetch_default_branch,
        live_settings as live_settings,
    )
    from ._index._local import (
        DEFAULT_LOCAL_MODEL as DEFAULT_LOCAL_MODEL,
        LOCAL_MODELS as LOCAL_MODELS,
        LocalModel as LocalModel,
        LocalOnnxEmbedder as LocalOnnxEmbedder,
    )
    from ._index._refresher import RefreshReport as RefreshReport
    from ._index._store import ServedBrain as ServedBrain, embed_text as embed_text
    from ._pathmatch import extract_mentions as extract_mentions, path_score as path_score
    from ._postgres._config import (
        shared_index_egress as shared_index_egress,
        shared_index_url as shared_index_url,
    )
    from ._postgres._connect import (
        SharedIndexUnavailable as SharedIndexUnavailable,
        connect_shared_index as connect_shared_index,
    )
    from ._postgres._fill import (
        fill_shared_index as fill_shared_index,
        shared_brain_id as shared_brain_id,
    )
    from ._query import query_terms as query_terms, sanitise_fts_query as sanitise_fts_query
    from ._retriever import (
        Retriever as Retriever,
        RetrieverOptions as RetrieverOptions,
        open_retriever as open_retriever,
    )
    from ._search._backend import SqliteBackend as SqliteBackend
    from ._search._duplicates import (
        DUPLICATE_COSINE as DUPLICATE_COSINE,
        DUPLICATE_TERM_OVERLAP as DUPLICATE_TERM_OVERLAP,
        PARAPHRASE_COSINE as PARAPHRASE_COSINE,
        PARAPHRASE_TERM_OVERLAP as PARAPHRASE_TERM_OVERLAP,
        is_near_duplicate as is_near_duplicate,
        term_overlap as term_overlap,
    )
    from ._search._fusion import CANDIDATES as CANDIDATES, RRF_K as RRF_K, fuse_rrf as fuse_rrf
    from ._search._hits import ContextPack as ContextPack, Hit as Hit, Similar as Similar
    from ._search._situation import Situation as Situation, gather_situation as gather_situation
    from ._search._trim import Trimmed as Trimmed, trim_to_budget as trim_to_budget
    from ._setup import (
        brain_id_for as brain_id_for,
        org_brain_egress as org_brain_egress,
        org_brain_location as org_brain_location,
        org_brain_missing as org_brain_missing,
        org_brain_root as org_brain_root,
    )
