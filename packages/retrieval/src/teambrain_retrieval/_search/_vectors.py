"""The vector matrix: every servable document's vector in one array, searched with one
matrix product per query.

Built from stored rows (``DocStore.vector_rows``), patched after small writes instead of
rebuilt, and filtered by the same rules as the keyword half (TTL, superseded, source). numpy
only: no SQL here, so the search of a matrix can run beside the keyword half's SQLite query.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._numpy import prepare_numpy

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from .._index._embedders import Vectors

NO_EXPIRY = dt.date.max.toordinal()


def expiry_day(expires: str | None) -> int:
    """The first day (ordinal) a row is expired on; a day that never comes without a TTL."""
    return dt.date.fromisoformat(expires).toordinal() if expires else NO_EXPIRY


@dataclass
class VectorMatrix:
    """Vectors of every servable document, ready for one matrix product per query."""

    rowids: list[int]
    ids: list[str]
    sources: Any  # NDArray[np.str_]: each row's source (memory, codemap)
    matrix: Any  # NDArray[np.float32] (n, dim)
    expires: Any  # NDArray[np.int64]: first expired day as an ordinal, a huge value without TTL
    excluded: Any  # NDArray[np.bool_]: superseded or retired elsewhere
    any_expiry: bool
    position: dict[int, int] | None = None  # rowid → row, built when first needed


def excluded_mask(ids: list[str], excluded: frozenset[str]) -> Any:
    """NDArray[np.bool_]: which of ``ids`` are superseded or retired elsewhere."""
    import numpy as np

    return np.array([doc_id in excluded for doc_id in ids], dtype=np.bool_)


def writable_float32(array: Any) -> Any:
    import numpy as np

    if array.dtype == np.float32 and array.flags.writeable and array.flags.c_contiguous:
        return array
    return np.array(array, dtype=np.float32)


def build_matrix(
    rows: list[Any], excluded: frozenset[str], base: VectorMatrix | None = None
) -> VectorMatrix | None:
    """A matrix of ``rows`` (``DocStore.vector_rows``), appended to ``base`` when given."""
    prepare_numpy()
    import numpy as np

    dims = [r[3] for r in rows]
    if base is not None:
        dim = int(base.matrix.shape[1])
    elif rows:
        dim = max(set(dims), key=dims.count)
    else:
        return None
    rows = [r for r in rows if r[3] == dim]
    new_matrix = np.frombuffer(
        bytearray().join(r[4] for r in rows),  # writable: edits patch rows in place
        dtype=np.float32,
    ).reshape(len(rows), dim)
    new_expires = np.array(
        [expiry_day(r[2]) for r in rows],
        dtype=np.int64,
    )
    rowids, ids = [r[0] for r in rows], [r[1] for r in rows]
    new_sources = np.array([r[5] for r in rows], dtype=np.str_)
    if base is not None:
        rowids, ids = base.rowids + rowids, base.ids + ids
        new_sources = np.concatenate([base.sources, new_sources])
        new_matrix = np.concatenate([base.matrix, new_matrix])
        new_expires = np.concatenate([base.expires, new_expires])
    if not rowids:
        return None
    return VectorMatrix(
        rowids=rowids,
        ids=ids,
        sources=new_sources,
        matrix=new_matrix,
        expires=new_expires,
        excluded=excluded_mask(ids, excluded),
        any_expiry=bool((new_expires != NO_EXPIRY).any()),
    )


def without_rows(old: VectorMatrix, changed: set[int]) -> VectorMatrix | None:
    """``old`` less the rows in ``changed`` (None when nothing is left)."""
    prepare_numpy()
    import numpy as np

    keep = np.array([rowid not in changed for rowid in old.rowids], dtype=np.bool_)
    base = VectorMatrix(
        rowids=[r for r, k in zip(old.rowids, keep, strict=True) if k],
        ids=[i for i, k in zip(old.ids, keep, strict=True) if k],
        sources=old.sources[keep],
        matrix=old.matrix[keep],
        expires=old.expires[keep],
        excluded=old.excluded[keep],
        any_expiry=old.any_expiry,
    )
    return base if base.rowids else None


def patched_in_place(
    old: VectorMatrix | None, changed: set[int], rows: list[Any], excluded: frozenset[str]
) -> VectorMatrix | None:
    """The common small change — memories edited, none added, removed or filtered out —
    as row writes into ``old``'s arrays instead of copying the whole matrix; None when the
    change is not of that kind."""
    if old is None or len(rows) != len(changed):
        return None
    if old.position is None:
        old.position = {rowid: index for index, rowid in enumerate(old.rowids)}
    dim = int(old.matrix.shape[1])
    places = [old.position.get(r[0]) for r in rows]
    width = old.sources.dtype.itemsize // 4  # characters a fixed-width str row holds
    if (
        any(place is None for place in places)
        or any(r[3] != dim or len(r[5]) > width for r in rows)
        or not old.matrix.flags.writeable
    ):
        return None
    prepare_numpy()
    import numpy as np

    ids = list(old.ids)
    for place, row in zip(places, rows, strict=True):
        assert place is not None
        old.matrix[place] = np.frombuffer(row[4], dtype=np.float32)
        old.expires[place] = expiry_day(row[2])
        old.sources[place] = row[5]
        ids[place] = row[1]
    # A search already running on the previous snapshot sees each row either before or
    # after its write; both are answers that were true a moment ago.
    return VectorMatrix(
        rowids=old.rowids,
        ids=ids,
        sources=old.sources,
        matrix=old.matrix,
        expires=old.expires,
        excluded=excluded_mask(ids, excluded),
        any_expiry=bool((old.expires != NO_EXPIRY).any()),
        position=old.position,
    )


def nearest(
    matrix: VectorMatrix | None,
    vector: Vectors | None,
    limit: int,
    sources: Sequence[str] | None,
    today: Callable[[], dt.date],
) -> list[tuple[int, float]]:
    """Best-first (rowid, cosine) of the live rows of ``matrix`` nearest to ``vector``: no
    SQL, so it can run beside the keyword half."""
    if vector is None or matrix is None or matrix.matrix.shape[1] != vector.shape[0]:
        return []
    prepare_numpy()
    import numpy as np

    scores: NDArray[np.float32] = matrix.matrix @ vector.astype(np.float32)
    if matrix.any_expiry:
        scores[matrix.expires <= today().toordinal()] = -np.inf
    scores[matrix.excluded] = -np.inf
    if sources:
        scores[~np.isin(matrix.sources, list(sources))] = -np.inf
    count = min(limit, len(scores))
    if count <= 0:
        return []
    top = np.argpartition(-scores, count - 1)[:count]
    found = [(matrix.rowids[int(i)], float(scores[int(i)])) for i in top if np.isfinite(scores[i])]
    # Ties go to the older row, so the order never depends on how the matrix was built.
    return sorted(found, key=lambda item: (-item[1], item[0]))
