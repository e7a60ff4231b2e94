import pytest
from hypothesis import given, strategies as st
from teambrain_retrieval import extract_mentions, path_score


def test_mentions_from_prose_and_tags() -> None:
    body = (
        "Checkout is `src/shop/checkout/`: `cart.py` and `flow.py`. See "
        "`tests/test_checkout.py::test_checkout_timeout`, https://example.com/a/b and "
        "`shop.payments.gateway.PaymentGateway`, e.g. v1.2 and 3.14."
    )
    found = extract_mentions(body, ["checkout", "src/shop/checkout"])
    assert "src/shop/checkout" in found
    assert {"cart.py", "flow.py", "tests/test_checkout.py"} <= set(found)
    assert "shop/payments/gateway/PaymentGateway" in found
    assert not any("example.com" in m for m in found)
    assert "checkout" not in found  # a plain word tag is not a path
    assert not any(m in ("e.g", "v1.2", "3.14") for m in found)


@pytest.mark.parametrize(
    ("query", "mention", "low", "high"),
    [
        ("tests/test_checkout.py", "tests/test_checkout.py", 1.0, 1.0),
        ("src/shop/checkout/cart.py", "src/shop/checkout", 0.8, 1.0),  # enclosing folder
        ("src/shop", "src/shop/checkout/cart.py", 0.8, 0.8),  # inside the queried folder
        ("src/shop/checkout/cart.py", "cart.py", 0.5, 0.8),  # trailing file name
        ("src/shop/payments/gateway.py", "shop/payments/gateway/PaymentGateway", 0.4, 0.4),
        ("src/shop/**", "src/shop/checkout/flow.py", 0.9, 0.9),  # glob
        ("src/**/*.py", "src/shop/cart.py", 0.9, 0.9),
        ("src/shop/checkout/cart.py", "src", 0.0, 0.0),  # too generic to count
        ("src/shop/checkout/cart.py", "docs/readme.md", 0.0, 0.0),
        ("src/shop/checkout/cart.py", "src/shop/payments/providers", 0.0, 0.0),  # siblings
        ("lib/cart.py", "checkout", 0.0, 0.0),
    ],
)
def test_path_scores(query: str, mention: str, low: float, high: float) -> None:
    assert low <= path_score(query, mention) <= high


def test_closer_folders_score_higher() -> None:
    query = "src/shop/checkout/cart.py"
    assert path_score(query, "src/shop/checkout") > path_score(query, "src/shop")


@given(st.text(max_size=60), st.text(max_size=60))
def test_path_score_never_raises_and_is_bounded(query: str, mention: str) -> None:
    assert 0.0 <= path_score(query, mention) <= 1.0


@given(st.text(max_size=300), st.lists(st.text(max_size=20), max_size=5))
def test_extract_mentions_never_raises(body: str, tags: list[str]) -> None:
    assert len(extract_mentions(body, tags)) <= 64


def test_names_with_accents_and_other_scripts_are_paths_in_either_unicode_form() -> None:
    import unicodedata

    decomposed = unicodedata.normalize("NFD", "docs/menü/café.md")
    body = f"Menus: {decomposed}, `naïve.py` and 文档/设计.md."
    found = extract_mentions(body, [])
    assert found == ["docs/menü/café.md", "naïve.py", "文档/设计.md"]  # composed
    assert all(unicodedata.is_normalized("NFC", m) for m in found)
    for query in ("docs/menü/café.md", decomposed):
        assert path_score(query, found[0]) == 1.0
        assert path_score(unicodedata.normalize("NFD", "docs/menü/*.md"), found[0]) == 0.9
    assert path_score("src/naïve.py", "naïve.py") >= 0.5


def test_a_long_word_is_read_once_and_a_url_after_it_is_still_no_path() -> None:
    """Every letter of a long word started a URL scheme that rescanned the rest of the word
    (20,000 letters took 0.6 s, a 256 KB memory minutes); a scheme now starts where its word
    does."""
    word = "x" * 20000
    found = extract_mentions(f"{word} https://example.com/a/b.py and src/app.py", [])
    assert found == ["src/app.py"]
    assert extract_mentions(f"{word}.py", []) == [f"{word}.py"]


@pytest.mark.parametrize("unit", ["a/", "a.b/", "*a", "**/", "a"])
def test_path_score_grows_linearly(unit: str) -> None:
    """Issue 32 point 3: a path or glob of thousands of components costs about 16x more when
    16x longer (thread CPU time: a loaded machine does not count)."""
    import time

    mention = "src/" + "a" * 200 + ".py"

    def cost(size: int) -> float:
        query = unit * (size // len(unit))
        best = float("inf")
        for _ in range(3):
            started = time.thread_time()
            path_score(query, mention)
            path_score(mention, query)
            best = min(best, time.thread_time() - started)
        return best

    small, large = cost(3_000), cost(48_000)
    assert large <= 64 * max(small, 0.005), (small, large)
