import re

from hypothesis import given, settings, strategies as st
from teambrain_capture import summarise_intent
from teambrain_capture._intent import EMPTY_SUMMARY, MAX_INTENT_CHARS, MAX_VERBATIM
from teambrain_kit.secrets import find_secrets
from teambrain_schema import MAX_INTENT_CHARS as SCHEMA_MAX_INTENT_CHARS, IntentData

# Secrets of the kinds the shared rule set knows, split so this file holds none verbatim.
SECRETS = [
    "AKIA" + "IOSFODNN7EXAMPLE",
    "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP",
    "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa-ZyXwVuTsRqPoNmLkJiHgFe",
    "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "eyJhbGciOiJIUzI1NiJ9"
    + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "npm_" + "abcdefghijklmnopqrstuvwxyz0123456789",
    "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
]
ASSIGNMENTS = [
    "DB_PASSWORD=" + "s3cr3tP4ssw0rd!x",
    "api_key: " + "Zq8Lm2Xv9Rt4Wn6Kp1Bs",
    "postgres://admin:" + "hunter2hunter2@db.internal/prod",
    "Authorization: Bearer " + "abcdef0123456789ABCDEF0123456789abcd",
]

REALISTIC = (
    """Hi! Could you please fix the flaky checkout timeout test in src/shop/checkout/cart.py?
It fails on CI whenever the fake clock isn't used. My AWS key is AKIA"""
    + """IOSFODNN7EXAMPLE by the way.

```python
def test_timeout(cart):
    assert cart.checkout(timeout=1) == "ok"
```

Traceback (most recent call last):
  File "tests/test_checkout.py", line 12, in test_timeout
AssertionError: timed out after 1s

> the last agent said: "just add a sleep(5) before the assertion and it will be fine"

<private>my manager thinks this whole module should be deleted</private>
Use the FakeClock fixture from conftest; do not touch the payments gateway.
"""
)


def test_constants_match_the_schema() -> None:
    assert MAX_INTENT_CHARS == SCHEMA_MAX_INTENT_CHARS


def test_a_realistic_prompt_keeps_the_gist_and_nothing_private() -> None:
    summary = summarise_intent(REALISTIC)
    IntentData(summary=summary)
    for kept in (
        "fix",
        "flaky",
        "checkout",
        "timeout",
        "src/shop/checkout/cart.py",
        "fakeclock",
        "not",
        "payments",
    ):
        assert kept in summary.lower(), kept
    assert "FakeClock" in summary  # identifiers as the code spells them
    for dropped in (
        "AKIA",
        "assert cart",
        "Traceback",
        "AssertionError",
        "sleep",
        "manager",
        "deleted",
    ):
        assert dropped.lower() not in summary, dropped
    assert "[secret]" in summary


def test_only_code_logs_and_quotes_give_a_placeholder() -> None:
    prompt = "```\nprint('x')\n```\n> quoted\n2026-05-01 12:00:01 ERROR boom\n    indented()"
    assert summarise_intent(prompt) == EMPTY_SUMMARY
    assert summarise_intent("") == EMPTY_SUMMARY


def test_unclosed_private_and_fences_drop_everything_after_them() -> None:
    assert "after" not in summarise_intent("fix login <private>salary after all")
    assert "after" not in summarise_intent("fix login\n```\ncode after")


def test_urls_keep_only_their_host_and_emails_go() -> None:
    summary = summarise_intent(
        "check https://user:pw@ci.example.com/job/42?token=abc and mail bob@example.com"
    )
    assert "ci.example.com" in summary
    assert "token" not in summary and "job/42" not in summary and "bob" not in summary


def test_home_directories_are_not_recorded() -> None:
    summary = summarise_intent("the config in /home/alice/projects/shop/settings.py is wrong")
    assert "alice" not in summary


def test_a_prompt_without_stopwords_is_not_copied_verbatim() -> None:
    prompt = "refactor paymentgateway retries exponential backoff jitter circuitbreaker metrics dashboards alerts"
    summary = summarise_intent(prompt)
    assert len(summary) > 40
    assert _longest_common_run(summary, prompt) < MAX_VERBATIM


def _longest_common_run(summary: str, prompt: str) -> int:
    best = 0
    for start in range(len(summary)):
        length = best + 1
        while start + length <= len(summary) and summary[start : start + length] in prompt:
            best = length
            length += 1
    return best


words = st.sampled_from(
    [
        "fix",
        "the",
        "flaky",
        "test",
        "in",
        "cart.py",
        "please",
        "refactor",
        "payments",
        "gateway",
        "retry",
        "logic",
        "and",
        "add",
        "docs",
        "for",
        "checkout",
        "timeout",
        "clock",
        "fixture",
        "conftest",
        "migrate",
        "database",
        "schema",
        "users",
        "table",
        "index",
    ]
)
prose = st.lists(words, min_size=0, max_size=80).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(prose, st.sampled_from(SECRETS + ASSIGNMENTS)), min_size=1, max_size=12),
    st.sampled_from([" ", "\n", ". ", ", "]),
)
def test_no_secret_survives_and_no_long_run_is_copied(parts: list[str], joiner: str) -> None:
    prompt = joiner.join(parts)
    summary = summarise_intent(prompt)
    assert 0 < len(summary) <= MAX_INTENT_CHARS
    IntentData(summary=summary)
    assert not find_secrets(summary)
    for secret in SECRETS + ASSIGNMENTS:
        value = re.split(r"[=:@ ]", secret)[-1] if secret in ASSIGNMENTS else secret
        for piece in (value[i : i + 12] for i in range(0, max(1, len(value) - 11), 4)):
            assert piece.lower() not in summary, (secret, summary)
    flat_prompt, flat_summary = " ".join(prompt.lower().split()), " ".join(summary.lower().split())
    for start in range(0, max(0, len(flat_summary) - 59)):  # the bar: no 60-char run
        assert flat_summary[start : start + 60] not in flat_prompt


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=3000))
def test_any_text_gives_a_valid_short_summary(prompt: str) -> None:
    summary = summarise_intent(prompt)
    assert 0 < len(summary) <= MAX_INTENT_CHARS
    IntentData(summary=summary)
    flat_prompt, flat_summary = " ".join(prompt.lower().split()), " ".join(summary.lower().split())
    for start in range(0, max(0, len(flat_summary) - MAX_VERBATIM + 1)):
        assert flat_summary[start : start + MAX_VERBATIM] not in flat_prompt


def test_a_re_spaced_copy_of_the_prompt_is_still_a_copy() -> None:
    prompt = ("Migrate billing service webhooks\nretry queue Redis streams\nconsumer groups "
              "acknowledgement semantics\nCustomer Alice Johnson account number overdue invoices")  # fmt: skip
    flat = " ".join(prompt.lower().split())
    summary = " ".join(summarise_intent(prompt).lower().split())
    for start in range(0, max(0, len(summary) - MAX_VERBATIM + 1)):
        assert summary[start : start + MAX_VERBATIM] not in flat


@settings(max_examples=100, deadline=None)
@given(
    prose,
    st.lists(
        st.sampled_from(["zorblax", "quintessa", "mervane", "tollivar"]), min_size=1, max_size=5
    ),
)
def test_private_code_and_quotes_never_leak(before: str, secret_words: list[str]) -> None:
    hidden = " ".join(secret_words)
    for wrapped in (
        f"<private>{hidden}</private>",
        f"<PRIVATE note='x'>{hidden}</PRIVATE>",
        f"```\n{hidden}\n```",
        f"~~~sh\n{hidden}\n~~~",
        f"> {hidden}",
        f'"{hidden} and more words quoted here"',
        f"    {hidden}()",
        f"2026-05-01T10:00:00Z INFO {hidden}",
    ):
        summary = summarise_intent(f"{before}\n{wrapped}\n{before}")
        for word in secret_words:
            assert word not in summary, (wrapped, summary)


def test_the_summary_keeps_relations_and_identifiers_a_model_learns_from() -> None:
    """Issue 29: keywords alone ("fails ci sleeps real") lose why and when; the summary keeps
    the relation words and the identifiers' spelling (benchmarks/bench_intent_summary.py
    measures the difference on a labelled corpus)."""
    summary = summarise_intent(
        "Apply discounts after tax for EU customers but before tax for US customers. It "
        "fails because OrderAdmin does N+1 queries; where is PaymentGateway configured?"
    )
    for kept in ("after tax", "before tax", "because", "OrderAdmin", "where", "PaymentGateway"):
        assert kept in summary, (kept, summary)
    assert len(summary) <= MAX_INTENT_CHARS
