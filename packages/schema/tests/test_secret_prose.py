"""Credentials typed in prose: a labelled corpus of sentences with a password, token or key in
them and of look-alikes that hold none. `make bench` prints the same recall and false-positive
rate (benchmarks/bench_secrets.py)."""

from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from teambrain_schema.scrub import scrub_text
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


def _labelled(name: str) -> tuple[list[tuple[str, str]], list[str]]:
    """A corpus of ``TEXT<TAB>SECRET`` lines (an empty SECRET: a benign sentence)."""
    secrets, benign = [], []
    for line in (DATA / name).read_text("utf-8").splitlines():
        if line and not line.startswith("#"):
            text, _, secret = line.partition("\t")
            (secrets.append((text, secret)) if secret else benign.append(text))
    return secrets, benign


def _rates(name: str) -> tuple[float, float]:
    """Recall and false-positive rate of what capture keeps (``scrub_text``: the cheap gate,
    then the rules) on corpus ``name``."""
    secrets, benign = _labelled(name)
    caught = sum(secret not in scrub_text(text) for text, secret in secrets)
    changed = sum(scrub_text(text) != text for text in benign)
    return caught / len(secrets), changed / len(benign)


def test_the_capture_path_keeps_what_the_rules_catch() -> None:
    """The tuned corpus through ``scrub_text`` (what reaches the spool): its gate let "my PIN
    is 1234" and "curl -u ops:b4tt3ry …" through unredacted (94 % recall)."""
    lines = _secret_lines()
    missed = [text for text, secret in lines if secret in scrub_text(text)]
    assert missed == []


def test_wide_phrasings_passphrases_pairs_codes_and_keys() -> None:
    """Phrasings written differently from the generated corpus (issue 32 point 14): 38 % of
    them were caught before."""
    recall, false_positives = _rates("secret_prose_wide.tsv")
    assert recall >= 0.97 and false_positives == 0.0, (recall, false_positives)


def test_held_out_phrasings_never_tuned_on() -> None:
    """Written before the rules for them and measured once (34 of 36, 0 of 30 benign; 42 %
    before): the rate a phrasing nobody here tuned for is caught with."""
    recall, false_positives = _rates("secret_prose_holdout_wide.tsv")
    assert recall >= 0.9 and false_positives <= 0.05, (recall, false_positives)
    recall, false_positives = _rates("secret_prose_holdout.tsv")
    assert recall >= 0.95 and false_positives <= 0.05, (recall, false_positives)


def test_a_word_then_the_value_in_any_phrasing_or_language() -> None:
    """Issue 37 point 12: "a secret introduced by a word, then the value" — short words (pw,
    psw, p/w, creds), every connector (became, 's, a dash, brackets, was changed to) and the
    word for a password in other languages. Both corpora were written before the change; the
    rules were tuned on the first (53 % → 100 %, false positives 4 % → 0 %) and the second,
    held out, was measured once after (50 % → 88 %, 1 of 45 look-alikes as before)."""
    recall, false_positives = _rates("secret_prose_word_value.tsv")
    assert recall == 1.0 and false_positives == 0.0, (recall, false_positives)
    recall, false_positives = _rates("secret_prose_holdout_37.tsv")
    assert recall >= 0.85 and false_positives <= 0.05, (recall, false_positives)


@pytest.mark.parametrize(
    "text",
    ["password on Windows10 machines is managed by IT", "the clave is la paciencia",
     "das Passwort ist zu kurz", "パスワードは変更されました", "pwd=$(pwd)", "new pass: pending",
     "pw (the usual one) works", "the password's strength meter is broken",
     "la password è scaduta", "password to reset: see the wiki"],
)  # fmt: skip
def test_word_then_value_look_alikes_are_kept(text: str) -> None:
    assert scrub_text(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("the wifi password is purple monkey dishwasher", "purple monkey dishwasher"),
        ("passphrase: correct horse battery staple", "correct horse battery staple"),
        ("log in with root / t00rt00r", "t00rt00r"),
        ("admin / admin123 works on the staging box", "admin123"),
        ("the door code is 4471", "4471"),
        ("the license key is ZX12-CV34-BN56", "ZX12-CV34-BN56"),
        ("the token is 9e8d7c6b5a4f3e2d", "9e8d7c6b5a4f3e2d"),
    ],
)
def test_wide_phrasings_reach_no_spool(text: str, secret: str) -> None:
    assert secret not in scrub_text(text)


@pytest.mark.parametrize(
    "text",
    ["the error code is 404", "the code is beautiful.", "the key is a UUID",
     "the password is stored in the vault", "the password is something users forget",
     "follows moved code: 01KB2F0A1S9Y4Q7V3C8D5E6F03 Where checkout lives",
     "use python 3.11 / 3.12 in CI", "read / write access is enough",
     "use x86 / arm64 runners", "try amd64 / aarch64 images", "use node18 / node20 in CI",
     "use utf-8 / latin-1 encoding", "use staging / prod-eu1 clusters"],
)  # fmt: skip
def test_wide_look_alikes_are_kept(text: str) -> None:
    assert scrub_text(text) == text


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


def test_a_message_naming_a_rule_is_not_a_secret_in_brackets() -> None:
    """teambrain's own messages ("contains a secret (github-token)") pass through redaction on
    the page; the rule's name in brackets after "secret" is not a credential."""
    from teambrain_schema.secrets import _RULE_NAMES, find_secrets

    for rule in sorted(_RULE_NAMES):
        message = f"draft.body: contains a secret ({rule}); remove it before proposing"
        assert find_secrets(message) == [], rule
    assert find_secrets("the secret (Zx9-kQ2p-77w) is in the vault")  # a value still is one
