"""Damaged caches are discarded and rebuilt, said once — never an error: the saved vector
matrix (``cache/vectors-*.npz``) under every damage hypothesis can make, and damaged rows of
index.db's vectors table."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from teambrain_kit.paths import BrainLayout, machine_layout
from teambrain_retrieval import Retriever
from teambrain_retrieval._search._matrix_file import FIELDS, MatrixFileDamaged, read_matrix_file

OpenRetriever = Callable[..., Retriever]
QUERY = "memory topic deploy"


def _saved() -> list[Path]:
    return sorted((machine_layout().home / "cache").glob("vectors-*.npz"))


def _answer(retriever: Retriever) -> list[tuple[str, float]]:
    return [(hit.id, round(hit.score, 6)) for hit in retriever.search(QUERY, 5)]


@pytest.fixture
def saved_brain(
    layout: BrainLayout, make_memory: Callable[..., Path], open_test_retriever: OpenRetriever
) -> Iterator[tuple[Path, dict[str, Any], list[tuple[str, float]]]]:
    """A brain whose matrix was saved: (the file, its arrays, the answer it gives)."""
    for index in range(6):
        make_memory(f"Memory {index}", f"Deploy note {index} about topic {index % 3}.")
    first = open_test_retriever(layout)
    expected = _answer(first)
    first.close()
    [path] = _saved()
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    yield path, arrays, expected


def _write(path: Path, arrays: dict[str, Any]) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def _reopen_and_check(
    layout: BrainLayout, open_test_retriever: OpenRetriever, notices: list[str],
    expected: list[tuple[str, float]],
) -> None:  # fmt: skip
    """A new process on the damaged cache answers as before, says so at most once, and leaves
    a cache that validates (or none)."""
    notices.clear()
    again = open_test_retriever(layout)
    assert _answer(again) == expected
    assert _answer(again) == expected
    again.close()
    said = [notice for notice in notices if "vectors cache" in notice]
    assert len(said) <= 1, said
    for path in _saved():
        with np.load(path, allow_pickle=False) as data:
            generation = int(data["generation"])
        read_matrix_file(path, generation, None)  # raises if what was left is damaged


ISSUE_CASES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "a key missing": lambda a: {k: v for k, v in a.items() if k != "expires"},
    "more ids than rows": lambda a: {**a, "ids": np.concatenate([a["ids"], a["ids"][:2]])},
    "a 1-D matrix": lambda a: {**a, "matrix": a["matrix"].reshape(-1)},
    "a string expiry": lambda a: {**a, "expires": a["expires"].astype(str)},
    "rows swapped": lambda a: {**a, "matrix": a["matrix"][::-1].copy()},
    "NaN vectors": lambda a: {**a, "matrix": np.full_like(a["matrix"], np.nan)},
    "another dimension": lambda a: {**a, "matrix": a["matrix"][:, :7].copy()},
    "no generation": lambda a: {k: v for k, v in a.items() if k != "generation"},
}


@pytest.mark.parametrize("damage", sorted(ISSUE_CASES))
def test_a_damaged_saved_matrix_is_discarded_said_once_and_rebuilt(
    saved_brain: tuple[Path, dict[str, Any], list[tuple[str, float]]], layout: BrainLayout,
    open_test_retriever: OpenRetriever, notices: list[str], damage: str,
) -> None:  # fmt: skip
    path, arrays, expected = saved_brain
    _write(path, ISSUE_CASES[damage](arrays))
    _reopen_and_check(layout, open_test_retriever, notices, expected)
    assert any("discarded the damaged vectors cache" in notice for notice in notices), notices
    assert _saved(), "the matrix is saved again"


@pytest.mark.parametrize(
    "content", [b"", b"PK\x03\x04garbage", b"\x93NUMPY\x01\x00", b"\x00" * 4096],
    ids=["empty", "zip header", "npy header", "zeros"],
)  # fmt: skip
def test_bytes_that_are_no_matrix_file_are_discarded(
    saved_brain: tuple[Path, dict[str, Any], list[tuple[str, float]]], layout: BrainLayout,
    open_test_retriever: OpenRetriever, notices: list[str], content: bytes,
) -> None:  # fmt: skip
    path, _arrays, expected = saved_brain
    path.write_bytes(content)
    _reopen_and_check(layout, open_test_retriever, notices, expected)


def test_a_fifo_or_a_folder_in_place_of_the_file_never_blocks(
    saved_brain: tuple[Path, dict[str, Any], list[tuple[str, float]]], layout: BrainLayout,
    open_test_retriever: OpenRetriever, notices: list[str],
) -> None:  # fmt: skip
    path, _arrays, expected = saved_brain
    path.unlink()
    os.mkfifo(path)
    notices.clear()
    again = open_test_retriever(layout)
    assert _answer(again) == expected
    again.close()
    path.unlink()
    path.mkdir()
    again = open_test_retriever(layout)
    assert _answer(again) == expected
    again.close()


dtypes = st.sampled_from([np.int64, np.int32, np.uint32, np.float32, np.float64, np.bool_,
                          np.dtype("<U4"), np.dtype("S3")])  # fmt: skip
any_array = dtypes.flatmap(
    lambda dtype: hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, max_side=7))
)


@st.composite
def damage(draw: st.DrawFn, arrays: dict[str, Any]) -> dict[str, Any]:
    """One to three of: a key dropped, an array replaced by any other, a few rows cut or
    repeated, a value flipped, an unknown key added."""
    damaged = dict(arrays)
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["drop", "replace", "cut", "repeat", "flip", "add"]))
        name = draw(st.sampled_from(sorted(damaged) or ["extra"]))
        value = damaged.get(name)
        if how == "drop" and name in damaged:
            del damaged[name]
        elif how == "replace":
            damaged[name] = draw(any_array)
        elif how in ("cut", "repeat") and isinstance(value, np.ndarray) and value.ndim:
            count = draw(st.integers(1, max(1, len(value))))
            damaged[name] = (
                value[:-count] if how == "cut" else np.concatenate([value, value[:count]])
            )
        elif how == "flip" and isinstance(value, np.ndarray) and value.ndim:
            damaged[name] = value[::-1].copy()  # rows in another order
        else:
            damaged[f"x{len(damaged)}"] = draw(any_array)
    return damaged


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.data())
def test_any_damage_to_the_saved_matrix_is_discarded_and_the_answer_unchanged(
    saved_brain: tuple[Path, dict[str, Any], list[tuple[str, float]]], layout: BrainLayout,
    open_test_retriever: OpenRetriever, notices: list[str], data: st.DataObject,
) -> None:  # fmt: skip
    path, arrays, expected = saved_brain
    _write(path, data.draw(damage(arrays)))
    _reopen_and_check(layout, open_test_retriever, notices, expected)


@given(content=st.binary(max_size=2048), cut=st.integers(0, 4000))
@settings(max_examples=200, deadline=None)
def test_the_reader_refuses_any_bytes_in_one_line(tmp_path_factory: pytest.TempPathFactory,
                                                  content: bytes, cut: int) -> None:  # fmt: skip
    """Arbitrary bytes, or a valid file cut short: a reason, never another exception."""
    folder = tmp_path_factory.mktemp("npz")
    good = {name: np.zeros((2,) if name in ("rowids", "expires") else (), dtype=np.int64)
            for name in FIELDS}  # fmt: skip
    buffer = io.BytesIO()
    np.savez(buffer, **good)
    for i, payload in enumerate((content, buffer.getvalue()[:cut])):
        path = folder / f"{i}.npz"
        path.write_bytes(payload)
        try:
            read_matrix_file(path, 0, None)
        except MatrixFileDamaged as exc:
            assert exc.reason and "\n" not in exc.reason


def _vector_blobs(change: Callable[[Any], None]) -> None:
    import apsw

    db = apsw.Connection(str(machine_layout().index_db))
    with db:
        change(db)
    db.close()


VECTOR_DAMAGE: dict[str, str] = {
    "a short blob": "UPDATE vectors SET vec = x'0000' WHERE key IN (SELECT key FROM vectors LIMIT 1)",
    "a blob of another dimension": "UPDATE vectors SET vec = zeroblob(4 * 7), dim = 7 WHERE key IN (SELECT key FROM vectors LIMIT 2)",
    "a dimension that disagrees with the blob": "UPDATE vectors SET dim = dim + 1",
    "text in place of the blob": "UPDATE vectors SET vec = 'not bytes'",
    "a null dimension": "UPDATE vectors SET dim = 0",
}


@pytest.mark.parametrize("damage", sorted(VECTOR_DAMAGE))
def test_damaged_vector_rows_are_embedded_again(
    saved_brain: tuple[Path, dict[str, Any], list[tuple[str, float]]], layout: BrainLayout,
    open_test_retriever: OpenRetriever, notices: list[str], damage: str,
) -> None:  # fmt: skip
    path, _arrays, expected = saved_brain
    path.unlink()  # the matrix is read from the rows
    _vector_blobs(lambda db: db.execute(VECTOR_DAMAGE[damage]))
    _reopen_and_check(layout, open_test_retriever, notices, expected)
