"""Credentials typed in prose: a labelled corpus of sentences with a password, token or key in
them and of look-alikes that hold none. `make bench` prints the same recall and false-positive
rate (benchmarks/bench_secrets.py)."""

from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from teambrain_schema.secrets import find_secrets, redact_secrets

DATA = Path(__file__).parent / "data"


def _secret_lines() -> list[tuple[str, str]]:
    text = (DATA / "secret_prose.tsv").read_text("utf-8")
    rows = (line.split("\t") for line in text.splitlines())
    return [(row[0], row[1]) for row in rows if len(row) == 2 and not row[0].startswith("#")]


def _benign_lines() -> list[str]:
    lines = (DATA / "benign_prose.txt").read_text("utf-8").splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def test_the_corpus_is_big_enough_to_mean_something() -> None:
    assert len(_secret_lines()) >= 300 and len(_benign_lines()) >= 300


def test_recall_on_credentials_typed_in_prose() -> None:
    lines = _secret_lines()
    missed = [text for text, secret in lines if secret in redact_secrets(text)]
    assert len(missed) / len(lines) <= 0.02, missed[:10]


def test_false_positives_on_sentences_about_credentials() -> None:
    lines = _benign_lines()
    changed = [text for text in lines if redact_secrets(text) != text]
    assert len(changed) / len(lines) <= 0.02, changed[:10]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "The staging DB password is hunter2-correct-horse-battery",
            "hunter2-correct-horse-battery",
        ),
        ("my pw for the VPN was Summer2024!", "Summer2024!"),
        ("mysql -u app -pS3cretPass orders", "S3cretPass"),
        ("login root:toor please", "toor"),
        ("redis://:S3cretR3dis@cache:6379/0", "S3cretR3dis"),
        ("he told me the password, it's Blu3berry!", "Blu3berry!"),
    ],
)
def test_the_issue_s_examples(text: str, secret: str) -> None:
    assert secret not in redact_secrets(text)


@pytest.mark.parametrize(
    "text",
    ["the password field is required", "token bucket", "api key rotation is monthly",
     "pass the test", "the token limit is 128k for this model", "password = getpass()",
     "the login page is at /auth/login", "pin the dependency to 1.26"],
)  # fmt: skip
def test_look_alikes_are_kept(text: str) -> None:
    assert redact_secrets(text) == text


@given(st.text(max_size=200))
def test_redaction_is_total_and_idempotent(text: str) -> None:
    once = redact_secrets(text)
    assert redact_secrets(once) == once
    for finding in find_secrets(text):
        assert 0 <= finding.start < finding.end <= len(text)


@pytest.mark.parametrize(
    ("text", "kept"),
    [("pass the --token flag to it", True), ("use --password when prompted", True),
     ("run with --secret mysecret99", False), ("--password=hunter2", False)],
)  # fmt: skip
def test_flags_in_prose_are_judged_like_values(text: str, kept: bool) -> None:
    assert (redact_secrets(text) == text) is kept
