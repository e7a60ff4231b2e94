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
    assert "src/shop/checkout/" in found  # a folder keeps its slash
    assert "src/shop/checkout" in found  # the tag, as written
    assert {"cart.py", "flow.py", "tests/test_checkout.py"} <= set(found)
    assert "shop.payments.gateway.PaymentGateway" in found  # a module keeps its dots
    assert not any("example.com" in m for m in found)
    assert "checkout" not in found  # a plain word tag is not a path
    assert not any(m in ("e.g", "v1.2", "3.14") for m in found)


def test_mentions_as_teams_write_them() -> None:
    body = (
        "Never edit `migrations/` by hand; see `payments.refunds`, `Variant.rename`, "
        "`<PlanPicker>`, `useSeries()`, `{{ ref('fct_orders') }}`, the `Dockerfile`, "
        "`SyncWorker.doWork()`, ./internal/... and `config.yaml`."
    )
    found = extract_mentions(body, [], title="Refunds: `refunds.py` rounds")
    assert found[:2] == ["refunds.py", "migrations/"]  # the title is read first
    assert {"payments.refunds", "Variant.rename", "PlanPicker", "useSeries", "fct_orders",
            "Dockerfile", "SyncWorker.doWork", "internal/", "config.yaml"} <= set(found)  # fmt: skip
    assert "ref" not in found and "the" not in found


@pytest.mark.parametrize(
    ("query", "mention", "low", "high"),
    [
        ("tests/test_checkout.py", "tests/test_checkout.py", 1.0, 1.0),
        ("src/shop/checkout/cart.py", "src/shop/checkout", 0.5, 0.6),  # its folder
        ("src/shop/checkout/cart.py", "src/shop/checkout/", 0.5, 0.6),
        ("src/shop", "src/shop/checkout/cart.py", 0.8, 0.8),  # inside the queried folder
        ("src/shop/checkout/cart.py", "cart.py", 0.8, 0.8),  # the file name alone
        ("src/shop/checkout/cart.py", "checkout/cart.py", 0.85, 0.85),  # a path's tail
        ("src/shop/payments/gateway.py", "shop.payments.gateway.PaymentGateway", 0.9, 0.9),
        ("src/catalog/variants.py", "catalog.variants.Variant.rename", 0.9, 0.9),
        ("src/shop/payments/refunds.py", "payments.refunds", 0.9, 0.9),
        ("app/src/main/java/com/acme/sync/SyncWorker.kt", "SyncWorker.doWork", 0.75, 0.75),
        ("app/src/main/java/com/acme/sync/SyncWorker.kt", "com.acme.sync.SyncWorker", 0.9, 0.9),
        ("src/shop/payments/refunds.py", "shop.payments", 0.5, 0.5),  # the package
        ("migrations/0042_add_reason.py", "migrations/", 0.5, 0.6),  # a one-part folder
        ("src/shop/payments/refunds.py", "payments/", 0.45, 0.5),  # a folder without its root
        ("src/shop/payments/refunds.py", "src/", 0.3, 0.4),  # far above: weak
        ("apps/web/billing/PlanPicker.tsx", "PlanPicker", 0.7, 0.7),  # the component's stem
        ("apps/web/billing/PlanPicker.test.tsx", "PlanPicker", 0.5, 0.5),  # its test: related
        ("dbt/models/marts/fct_orders.sql", "fct_orders", 0.7, 0.7),
        ("Dockerfile", "Dockerfile", 1.0, 1.0),
        ("deploy/Dockerfile", "Dockerfile", 0.8, 0.8),
        ("src/shop/**", "src/shop/checkout/flow.py", 0.9, 0.9),  # glob
        ("src/**/*.py", "src/shop/cart.py", 0.9, 0.9),
        ("src/shop/checkout/cart.py", "docs/readme.md", 0.0, 0.0),
        ("src/shop/checkout/cart.py", "src/shop/payments/providers", 0.0, 0.0),  # siblings
        ("src/shop/payments/payouts.py", "shop.payments.webhooks.handle_event", 0.0, 0.0),
        ("src/shop/accounts/profiles.py", "shop.checkout.coupons", 0.0, 0.0),
        ("lib/cart.py", "checkout", 0.0, 0.0),
        ("src/shop/checkout/cart.py", "cart.ts", 0.0, 0.0),  # another file of that stem
    ],
)
def test_path_scores(query: str, mention: str, low: float, high: float) -> None:
    assert low <= path_score(query, mention) <= high


def test_closer_folders_score_higher() -> None:
    query = "src/shop/checkout/cart.py"
    assert path_score(query, "src/shop/checkout") > path_score(query, "src/shop")
    assert path_score(query, "src/shop") > path_score(query, "src/")


def test_every_kind_of_file_match_outscores_any_folder() -> None:
    query = "src/shop/checkout/cart.py"
    file_level = [path_score(query, m) for m in ("cart.py", "checkout/cart.py",
                                                  "shop.checkout.cart", "shop.checkout.cart.Cart.total")]  # fmt: skip
    folders = [path_score(query, m) for m in ("src/shop/checkout/", "checkout/", "shop.checkout")]
    assert min(file_level) > max(folders)


def test_a_symbol_the_file_defines_names_it() -> None:
    from teambrain_retrieval import PathMatcher, defined_symbols

    source = "class RefundPolicy:\n    def max_days(self):\n        pass\n\ndef issue_refund():\n    pass\n"
    symbols = defined_symbols(source)
    assert symbols == {"refundpolicy", "maxdays", "issuerefund"}
    matcher = PathMatcher([(1, "issue_refund"), (2, "RefundPolicy.max_days"), (3, "ledger.PostEntry"),
                           (4, "unrelated_name")])  # fmt: skip
    found = matcher.match("src/shop/payments/refunds.py", symbols)
    assert set(found) == {1, 2}
    assert found[1]["issue_refund"] == found[2]["RefundPolicy.max_days"] == 0.75
    go = PathMatcher([(3, "ledger.PostEntry")])
    assert go.match("internal/ledger/postings.go", defined_symbols("func PostEntry() {}\n"))[3] == {
        "ledger.PostEntry": 0.75
    }
    assert go.match("internal/ledger/balances.go")[3] == {"ledger.PostEntry": 0.3}  # its package


def test_an_ambiguous_file_name_counts_less() -> None:
    from teambrain_retrieval import PathMatcher

    matcher = PathMatcher([(1, "limits.go"), (2, "internal/fx/limits.go")])
    found = matcher.match("internal/fx/limits.go", ambiguous=True)
    assert found[1] == {"limits.go": 0.5} and found[2] == {"internal/fx/limits.go": 1.0}


def test_several_paths_add_up_once_each() -> None:
    from teambrain_retrieval import PathMatcher, pair_paths

    matcher = PathMatcher([
        (1, "src/a.py"), (1, "src/b.py"),  # names two of the three files
        (2, "src/a.py"),  # names one
        (3, "src/"),  # holds all three: counts once
    ])  # fmt: skip
    paths = ["src/a.py", "src/b.py", "src/c.py"]
    totals = {}
    for rowid in (1, 2, 3):
        matches = [(p, found[rowid]) for p in paths if rowid in (found := matcher.match(p))]
        totals[rowid] = pair_paths(matches)[0]
    assert totals[1] == 2.0 and totals[2] == 1.0 and totals[3] == 0.55
    assert totals[1] > totals[2] > totals[3]


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
