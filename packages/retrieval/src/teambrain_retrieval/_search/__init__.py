"""Search: ranking what the index holds and turning it into answers.

:class:`._backend.SqliteBackend` (the contract's RetrievalBackend: keyword and vector rankings
fused by reciprocal rank, the per-generation caches of :mod:`._vectors` and
:mod:`._matrix_file`), :mod:`._fusion`, the answers a :class:`~teambrain_retrieval.Retriever`
gives (:mod:`._answers`: search, paths, context, near-duplicates), the hits they are made of
(:mod:`._hits`), and the budget and situation they are cut to (:mod:`._trim`,
:mod:`._situation`, :mod:`._duplicates`); a context ranked by the session's own work
(:mod:`._context`), the graph's edges followed (:mod:`._graphlinks`), the org brain's read
policies applied (:mod:`._policy`), and notes searched as a source of their own
(:mod:`._notes`). It reads the index through its store and embeddings (:mod:`.._index`; notes
keep their own refresher), never SQL of its own; nothing in the index imports it.
"""
