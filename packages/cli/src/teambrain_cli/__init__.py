"""tb: the teambrain command line."""

from ._main import cli, main

__all__ = ["cli", "main"]
