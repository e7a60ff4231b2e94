import functools

import pytest
from hypothesis import given, strategies as st
from teambrain_retrieval._index._local import MINILM_L6_INT8
from teambrain_retrieval._index._wordpiece import TokenizerError, WordPieceTokenizer

# Ids produced by Hugging Face `tokenizers` 0.23 from the same tokenizer.json (truncation 256).
REFERENCE = {
    "Run tests with make test, never bare pytest.": [
        101, 2448, 5852, 2007, 2191, 3231, 1010, 2196, 6436, 1052, 17250, 3367, 1012, 102],
    "Café naïve résumé — “quotes” ½ 10⁻³ µg/mL ≥5% α-β 中文字": [
        101, 7668, 15743, 13746, 1517, 1523, 16614, 1524, 1092, 2184, 30079, 18107, 1085, 2290,
        1013, 19875, 1609, 2629, 1003, 1155, 1011, 1156, 1746, 1861, 100, 102],
    "test_checkout_timeout is FLAKY without the fake_clock!": [
        101, 3231, 1035, 4638, 5833, 1035, 2051, 5833, 2003, 13109, 4817, 2100, 2302, 1996,
        8275, 1035, 5119, 999, 102],
    "": [101, 102],
}  # fmt: skip


@pytest.fixture(scope="module")
def tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer(MINILM_L6_INT8.tokenizer)


@pytest.mark.parametrize("text", list(REFERENCE))
def test_matches_the_reference_tokenizer(tokenizer: WordPieceTokenizer, text: str) -> None:
    assert tokenizer.encode(text) == REFERENCE[text]


def test_truncates_to_the_budget(tokenizer: WordPieceTokenizer) -> None:
    ids = tokenizer.encode(" ".join(["word"] * 400), 256)
    assert len(ids) == 256 and ids[0] == 101 and ids[-1] == 102


def test_rejects_a_file_that_is_not_a_wordpiece_tokenizer(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "BPE"}}')
    with pytest.raises(TokenizerError):
        WordPieceTokenizer(bad)
    bad.write_text("not json")
    with pytest.raises(TokenizerError):
        WordPieceTokenizer(bad)


@functools.cache
def _shared_tokenizer() -> WordPieceTokenizer:
    """One tokenizer for every example (loading its 30,522-word vocabulary is the slow part)."""
    return WordPieceTokenizer(MINILM_L6_INT8.tokenizer)


@given(st.text(max_size=300))
def test_any_text_encodes_within_bounds(text: str) -> None:
    ids = _shared_tokenizer().encode(text, 64)
    assert 2 <= len(ids) <= 64 and ids[0] == 101 and ids[-1] == 102
