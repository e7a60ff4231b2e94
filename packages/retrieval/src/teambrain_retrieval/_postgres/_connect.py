"""Opening a connection to the shared index, with a deadline on every step.

Every failure becomes :class:`SharedIndexUnavailable` with a one-line reason that never
contains the connection string (it may carry a password).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg


class SharedIndexUnavailable(RuntimeError):
    """The shared index cannot answer: unreachable, too slow, wrong schema or embedder."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _driver() -> Any:
    try:
        import psycopg
    except ImportError as exc:  # the optional extra is not installed
        raise SharedIndexUnavailable(
            "the Postgres driver is not installed (pip install 'teambrain-retrieval[postgres]')"
        ) from exc
    return psycopg


def connect(url: str, *, timeout_s: float = 2.0) -> psycopg.Connection[Any]:
    """An autocommit connection to ``url`` whose connection attempt and every statement give
    up after ``timeout_s`` seconds (libpq's connect_timeout counts whole seconds, at least 2)."""
    psycopg = _driver()
    statement_ms = max(1, int(timeout_s * 1000))
    try:
        conn = psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=max(2, math.ceil(timeout_s)),
            options=f"-c statement_timeout={statement_ms} -c lock_timeout={statement_ms}",
            application_name="teambrain",
            # Never prepared: a prepared query gets a generic plan after five runs, blind to
            # how common each term is, and the keyword half's went from 8 ms to 200 ms.
            prepare_threshold=None,
        )
    except psycopg.Error as exc:
        raise SharedIndexUnavailable(f"cannot connect ({describe(exc)})") from None
    return conn  # type: ignore[no-any-return]


connect_shared_index = connect  # the name the package exports


def describe(exc: BaseException) -> str:
    """A short, secret-free description of a driver error: its SQLSTATE class or its first
    line with anything after ``password`` or ``@`` cut (libpq messages name host and user)."""
    state = getattr(exc, "sqlstate", None)
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    for marker in ("password", "@"):
        if marker in first:
            first = first.split(marker, 1)[0].rstrip(" :=") + " …"
    if state == "57014":
        return "timed out"
    return f"{first[:160]}" + (f" [{state}]" if state else "")
