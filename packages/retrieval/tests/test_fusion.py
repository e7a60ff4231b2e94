import pytest
from hypothesis import given, strategies as st
from teambrain_retrieval import fuse_rrf


def test_scores_are_sums_of_reciprocal_ranks() -> None:
    fused = dict(fuse_rrf([["a", "b", "c"], ["b", "d"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 63)
    assert fused["d"] == pytest.approx(1 / 62)


def test_agreement_beats_a_single_first_place() -> None:
    order = [key for key, _ in fuse_rrf([["x", "both"], ["y", "both"]])]
    assert order[0] == "both"


def test_only_the_first_depth_entries_count() -> None:
    fused = dict(fuse_rrf([["a", "b", "c"]], depth=2))
    assert set(fused) == {"a", "b"}


def test_repeats_within_one_ranking_count_once_at_their_best_place() -> None:
    fused = dict(fuse_rrf([["a", "a", "b"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 63)


def test_ties_keep_first_seen_order() -> None:
    assert [key for key, _ in fuse_rrf([["a"], ["b"]])] == ["a", "b"]
    assert [key for key, _ in fuse_rrf([["b"], ["a"]])] == ["b", "a"]


def test_empty_inputs() -> None:
    assert fuse_rrf([]) == []
    assert fuse_rrf([[], []]) == []


@given(st.lists(st.lists(st.integers(0, 30), max_size=50), max_size=4))
def test_fusion_is_sorted_and_covers_every_key(rankings: list[list[int]]) -> None:
    fused = fuse_rrf(rankings, depth=40)
    scores = [score for _, score in fused]
    assert scores == sorted(scores, reverse=True)
    assert {key for key, _ in fused} == {key for r in rankings for key in r[:40]}
