"""One module per verb; each defines ``command``. Verb name = module name with ``_`` → ``-``."""
