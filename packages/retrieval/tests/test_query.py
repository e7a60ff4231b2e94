import apsw
import pytest
from hypothesis import given, settings, strategies as st
from teambrain_retrieval import query_terms, sanitise_fts_query
from teambrain_retrieval._query import keyword_terms


def test_terms_are_lowercase_distinct_words_in_order() -> None:
    assert query_terms("Redis redis POOL, pool-size") == ["redis", "pool", "size"]


def test_identifiers_split_like_the_index_tokenizer() -> None:
    assert query_terms("test_checkout_timeout src/shop/cart.py") == [
        "test", "checkout", "timeout", "src", "shop", "cart", "py",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ['"unbalanced', "a AND b", "NOT x", "x NEAR y", "NEAR(a b, 3)", "-excluded", "title:foo",
     "foo*", "^start", "(a OR b", "a) OR (b", "{title body}: x", "a + b", "'single'", "AND",
     "OR OR OR", "*", "::", "col:*"],
)  # fmt: skip
def test_fts_syntax_in_user_text_is_quoted(text: str) -> None:
    query = sanitise_fts_query(text)
    db = apsw.Connection(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(title, body, tokenize='porter unicode61')")
    db.execute("INSERT INTO t VALUES ('and or not near', 'title foo excluded start')")
    if query:
        db.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()
    for term in keyword_terms(text):
        assert f'"{term}"' in query


def test_operators_become_plain_words() -> None:
    assert sanitise_fts_query("x AND y NOT z NEAR w") == '"x" OR "y" OR "z" OR "near" OR "w"'
    assert sanitise_fts_query("NOT AND OR") == '"not" OR "and" OR "or"'


def test_stopwords_are_dropped_unless_nothing_else_is_left() -> None:
    assert sanitise_fts_query("how do I run the tests?") == '"run" OR "tests"'
    assert sanitise_fts_query("the who") == '"the" OR "who"'


def test_text_without_words_gives_an_empty_query() -> None:
    assert sanitise_fts_query("  -- :: ** ()") == ""


def test_term_count_is_bounded() -> None:
    assert len(query_terms(" ".join(f"w{i}" for i in range(500)))) == 64


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_makes_a_query_fts5_accepts(text: str) -> None:
    query = sanitise_fts_query(text)
    db = apsw.Connection(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(a, b, c, tokenize='porter unicode61')")
    if query:
        db.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()
