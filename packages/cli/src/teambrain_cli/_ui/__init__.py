"""``tb ui``: a local web page over the brain, the review queue, what is stale and whether
memory helps. Serves 127.0.0.1 only, behind a per-run secret (see :mod:`.guard`); reads and acts
through the same services as the CLI verbs."""
