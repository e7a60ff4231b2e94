"""``tb help <topic>``: the documentation shipped in this package — the pages of the
repository's ``docs/`` (one per verb, and the guides), copied into ``pages/`` by ``make
help-pages`` (a test fails while they differ) — found by topic and rendered for a terminal."""
