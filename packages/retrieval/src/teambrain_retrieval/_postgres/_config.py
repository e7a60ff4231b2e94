"""What ``retrieval.backend: postgres`` asks of a machine: its approval (an egress like the
embedder's), and the connection string from the environment variable brain.yaml names.

Nothing here imports the driver: ``tb trust``, ``tb doctor`` and ``tb verify`` describe the
setting without connecting.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from teambrain_kit.egress import Egress
    from teambrain_schema import RetrievalConfig

SHARED_INDEX_SENDS = (
    "search queries and their embeddings (and, from CI's `tb reindex --shared`, memory text)"
)


def shared_index_egress(config: RetrievalConfig) -> Egress | None:
    """The shared index as a destination this machine must approve (None: sqlite backend).

    The destination is the environment variable that holds the connection string — its value
    (host, user, password) never reaches brain.yaml or the approvals file; a commit that
    renames the variable asks again.
    """
    from teambrain_kit.egress import Egress

    if config.backend != "postgres" or config.url_env is None:
        return None
    return Egress(
        "retrieval.backend", SHARED_INDEX_SENDS,
        f"postgres database named by ${config.url_env}", config.url_env,
    )  # fmt: skip


def shared_index_url(
    config: RetrievalConfig, environ: Mapping[str, str] | None = None
) -> tuple[str | None, str | None]:
    """(connection string, None), or (None, why there is none) for the postgres backend."""
    if config.backend != "postgres" or config.url_env is None:
        return None, "retrieval.backend is sqlite"
    value = (os.environ if environ is None else environ).get(config.url_env, "").strip()
    if not value:
        return None, f"${config.url_env} is not set on this machine"
    return value, None
