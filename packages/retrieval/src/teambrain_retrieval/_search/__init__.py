"""Search: ranking what the index holds and turning it into answers.

:class:`._backend.SqliteBackend` (the contract's RetrievalBackend: keyword and vector rankings
fused by reciprocal rank, the per-generation caches of :mod:`._vectors` and
:mod:`._matrix_file`), :mod:`._fusion`, the answers a :class:`~teambrain_retrieval.Retriever`
gives (:mod:`._answers`: search, paths, context, near-duplicates), the hits they are made of
(:mod:`._hits`), and the budget and situation they are cut to (:mod:`._trim`,
:mod:`._situation`, :mod:`._duplicates`). It reads the index through its store and embeddings
(:mod:`.._index`), never SQL of its own; nothing in the index imports it.
"""
