"""The index: everything that writes or reads index.db, and what fills it.

All SQL text for SQLite lives in this sub-package: the database and its migrations
(:mod:`._db`), the documents (:mod:`._store`), the embedding pass and its vector cache
(:mod:`._embedding`), keeping the index in step with the memory files (:mod:`._refresher`,
:mod:`._scan`, :mod:`._worklock`, :mod:`._live`), opening and recovering index.db
(:mod:`._open`), and listing what it holds (:mod:`._catalog`, :mod:`._inventory`). The
embedders turn text into vectors (:mod:`._embedders`, :mod:`._model_files`, :mod:`._local`,
:mod:`._wordpiece`).

It imports nothing from :mod:`.._search` or the facade (an import-linter contract); the two
share only the top-level leaves: :mod:`.._query` and :mod:`.._pathmatch` (the same words and
paths are indexed and matched), :mod:`.._git`, :mod:`.._numpy`, :mod:`.._notices`.
"""
