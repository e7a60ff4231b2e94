"""The saved vector matrix of a brain (``cache/vectors-<key>.npz``) read as untrusted input.

A process saves the matrix it built so the next one need not read every vector row; the file
is derived, so a file that does not validate is discarded and rebuilt, never an error. Reading
it never blocks on a FIFO or follows a final symlink, never unpickles, and checks what the
backend relies on: every array present with its dtype and shape, one row per id, the
embedder's dimension, finite values, and a CRC-32 of the arrays written with them (a file
mixed from two saves, truncated or flipped fails it).
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

FIELDS = ("generation", "complete", "rowids", "ids", "sources", "matrix", "expires")
CHECKSUM = "checksum"


class MatrixFileDamaged(Exception):
    """The saved matrix cannot be used; ``reason`` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def checksum(arrays: dict[str, Any]) -> int:
    """CRC-32 of the arrays' names, dtypes, shapes and bytes, in :data:`FIELDS` order."""
    import numpy as np

    crc = 0
    for name in FIELDS:
        array = np.asarray(arrays[name])
        crc = zlib.crc32(f"{name}:{array.dtype.str}:{array.shape};".encode(), crc)
        crc = zlib.crc32(np.ascontiguousarray(array).reshape(-1).view(np.uint8).data, crc)
    return crc


def read_matrix_file(path: Path, generation: int, dim: int | None) -> dict[str, Any] | None:
    """The arrays saved at ``path`` for index generation ``generation``; None when there is no
    file, or it is of another generation or an older format (not damage: just not usable now).
    Raises :class:`MatrixFileDamaged` for anything else that does not validate. ``dim``: the
    embedder's dimension as the index stores it (None: not known)."""
    import numpy as np
    from teambrain_schema.local_files import open_local_file

    try:
        handle = open_local_file(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MatrixFileDamaged(str(exc) or type(exc).__name__) from None
    try:
        with handle, np.load(handle, allow_pickle=False) as data:
            names = set(data.files)
            if CHECKSUM not in names and names <= {*FIELDS}:
                return None  # written before files carried a checksum
            missing = [name for name in (*FIELDS, CHECKSUM) if name not in names]
            if missing:
                raise MatrixFileDamaged(f"{missing[0]} is missing")
            arrays = {name: data[name] for name in (*FIELDS, CHECKSUM)}
    except MatrixFileDamaged:
        raise
    except Exception as exc:  # any way numpy or zipfile can fail on bad bytes (MemoryError too)
        text = str(exc).strip().splitlines()
        raise MatrixFileDamaged(
            f"unreadable: {text[0][:120] if text else type(exc).__name__}"
        ) from None
    saved = _scalar(arrays["generation"], "iu", "generation")
    if saved != generation:
        return None
    _check(arrays, dim)
    stored = _scalar(arrays[CHECKSUM], "iu", CHECKSUM)
    if stored != checksum(arrays):
        raise MatrixFileDamaged("its checksum does not match its contents")
    return {name: arrays[name] for name in FIELDS}


def _scalar(array: Any, kinds: str, name: str) -> int:
    if array.shape != () or array.dtype.kind not in kinds:
        raise MatrixFileDamaged(f"{name} is not a number")
    return int(array)


def _check(arrays: dict[str, Any], dim: int | None) -> None:
    import numpy as np

    _scalar(arrays["complete"], "b", "complete")
    rowids, ids, sources = arrays["rowids"], arrays["ids"], arrays["sources"]
    matrix, expires = arrays["matrix"], arrays["expires"]
    for name, array, kind in (
        ("rowids", rowids, "i"), ("ids", ids, "U"), ("sources", sources, "U"),
        ("expires", expires, "i"),
    ):  # fmt: skip
        if array.ndim != 1 or array.dtype.kind != kind:
            raise MatrixFileDamaged(
                f"{name} is not a list of {'texts' if kind == 'U' else 'numbers'}"
            )
    rows = len(rowids)
    if not len(ids) == len(sources) == len(expires) == rows:
        raise MatrixFileDamaged(f"{rows} rows but {len(ids)} ids, {len(expires)} expiry days")
    if matrix.ndim != 2 or matrix.dtype != np.float32 or matrix.shape[0] != rows:
        raise MatrixFileDamaged(f"the matrix has shape {matrix.shape}, not ({rows}, dimension)")
    if matrix.shape[1] == 0 or (dim is not None and matrix.shape[1] != dim):
        raise MatrixFileDamaged(f"vectors of {matrix.shape[1]} dimensions, not {dim}")
    if len(np.unique(rowids)) != rows:
        raise MatrixFileDamaged("a row appears twice")
    if not np.isfinite(matrix).all():
        raise MatrixFileDamaged("the matrix holds NaN or infinite values")
