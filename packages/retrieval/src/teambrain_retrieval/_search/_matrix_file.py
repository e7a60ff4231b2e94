"""The saved vector matrix of a brain (``cache/vectors-<key>.npz``), written for the next process
and read as untrusted input.

A process saves the matrix it built so the next one need not read every vector row, while
index.db's write counter (its generation) is unchanged; the file is derived, so a file that
does not validate is discarded and rebuilt, never an error. Reading
it never blocks on a FIFO or follows a final symlink, never unpickles, and checks what the
backend relies on: every array present with its dtype and shape, one row per id, the
embedder's dimension, finite values, and a CRC-32 of the arrays written with them (a file
mixed from two saves, truncated or flipped fails it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._numpy import prepare_numpy
from ._vectors import NO_EXPIRY, VectorMatrix, excluded_mask, writable_float32

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
    from teambrain_kit.local_files import open_local_file

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


def cache_file(directory: Path, embedder: str, served: Sequence[tuple[str, Sequence[str]]]) -> Path:
    """Where the matrix of ``embedder``'s vectors for these (brain, scopes) is saved."""
    key = json.dumps([embedder, [[brain, list(scopes)] for brain, scopes in served]])
    name = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return directory / f"vectors-{name}.npz"


@dataclass
class SavedMatrix:
    """A vector matrix saved to a private file, valid for one generation of the index."""

    generation: int
    complete: bool
    arrays: dict[str, Any]

    @classmethod
    def load(
        cls, path: Path, generation: int, dim: int | None, warn: Callable[[str], None]
    ) -> SavedMatrix | None:
        """The matrix saved at ``path`` for ``generation``; None when there is none. A file
        that does not validate is deleted (it is rebuilt and saved again), said once."""
        prepare_numpy()
        try:
            arrays = read_matrix_file(path, generation, dim)
        except MatrixFileDamaged as exc:
            warn(f"discarded the damaged vectors cache {path} ({exc.reason}); rebuilding it")
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        if arrays is None:
            return None
        return cls(generation, bool(arrays["complete"]), arrays)

    @staticmethod
    def save(path: Path, vectors: VectorMatrix, generation: int, complete: bool) -> None:
        import numpy as np
        from teambrain_kit.private_dirs import ensure_private_dir

        ensure_private_dir(path.parent)
        arrays = {
            "generation": np.int64(generation), "complete": np.bool_(complete),
            "rowids": np.array(vectors.rowids, dtype=np.int64),
            "ids": np.array(vectors.ids, dtype=np.str_), "sources": vectors.sources,
            "matrix": vectors.matrix, "expires": vectors.expires,
        }  # fmt: skip
        arrays[CHECKSUM] = np.uint32(checksum(arrays))
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".vectors-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez(handle, **arrays)
            os.replace(temp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)

    def matrix_for(self, excluded: frozenset[str]) -> VectorMatrix | None:
        a = self.arrays
        ids = [str(i) for i in a["ids"]]
        if not ids:
            return None
        expires = a["expires"]
        return VectorMatrix(
            rowids=[int(r) for r in a["rowids"]],
            ids=ids,
            sources=a["sources"],
            # Read from the file into memory of its own (the saved matrix is used once), so it
            # is already writable and edits can patch it in place: copying 30 MB cost 50 ms.
            matrix=writable_float32(a["matrix"]),
            expires=expires,
            excluded=excluded_mask(ids, excluded),
            any_expiry=bool((expires != NO_EXPIRY).any()),
        )
