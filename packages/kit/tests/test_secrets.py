import pytest
from hypothesis import given, settings, strategies as st
from teambrain_kit.secrets import find_secrets, has_secret, redact_secrets

# Assembled at run time so this file itself holds no scannable secret.
A36 = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
SAMPLES = {
    "aws-access-key-id": "AKIA" + "IOSFODNN7EXAMPLQ",
    "aws-secret-access-key": "aws_secret_access_key = "
    + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "gcp-api-key": "AIza" + "SyA-1234567890abcdefghijklmnopqrstu",
    "github-token": "ghp_" + A36,
    "github-fine-grained-token": "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnop",
    "gitlab-token": "glpat-" + "xYz12345678901234567",
    "slack-token": "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "slack-webhook": "https://hooks.slack.com/services/"
    + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "anthropic-api-key": "sk-ant-api03-" + "a" * 20 + "B" * 20 + "c" * 10,
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    "jwt": "eyJhbGciOiJIUzI1NiJ9."
    + "eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "bearer-token": "Authorization: Bearer " + "abcDEF123456ghiJKL789012mnoPQR",
    "url-password": "postgres://admin:" + "s3cr3tP4ss" + "@db.internal:5432/app",
    "high-entropy-assignment": "DB_PASSWORD=" + "x7Gp2LqW9zR4",
    "npm-token": "npm_" + A36,
    "huggingface-token": "hf_" + A36,
}

# Where a rule redacts only part of the sample, the part that must disappear.
SECRET_PART = {
    "aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "private-key": "MIIEowIBAAKCAQEA",
    "bearer-token": "abcDEF123456ghiJKL789012mnoPQR",
    "url-password": "s3cr3tP4ss",
    "high-entropy-assignment": "x7Gp2LqW9zR4",
}


@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_each_rule_finds_and_redacts(rule: str) -> None:
    text = f"before {SAMPLES[rule]} after"
    findings = find_secrets(text)
    assert [f.rule for f in findings] == [rule]
    redacted = redact_secrets(text)
    assert f"[REDACTED:{rule}]" in redacted
    assert redacted.startswith("before ")
    assert not has_secret(redacted)


@pytest.mark.parametrize(
    "prose",
    [
        "The password field is required on the login form.",
        "Set token: ${GITHUB_TOKEN} in CI, never a literal.",
        "api_key = os.environ['API_KEY']",
        "Rotate the secret every 90 days; see docs/security.md.",
        "Use git commit -m 'fix: token refresh' and push.",
        "password: <your password here>",
    ],
)
def test_prose_and_placeholders_are_not_secrets(prose: str) -> None:
    assert find_secrets(prose) == []


def test_findings_carry_lines() -> None:
    text = "line one\nline two\nkey ghp_" + A36 + "\n"
    assert find_secrets(text)[0].line == 3


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=500))
def test_redaction_is_total_and_idempotent(text: str) -> None:
    once = redact_secrets(text)
    assert redact_secrets(once) == once
    assert not has_secret(once)


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.text(max_size=50), suffix=st.text(max_size=50), rule=st.sampled_from(sorted(SAMPLES))
)
def test_embedded_secrets_never_survive(prefix: str, suffix: str, rule: str) -> None:
    secret = SAMPLES[rule]
    redacted = redact_secrets(f"{prefix} {secret} {suffix}")
    assert SECRET_PART.get(rule, secret) not in redacted


def test_a_finding_is_an_immutable_value() -> None:
    from teambrain_kit.secrets import SecretFinding

    finding = SecretFinding(rule="github-token", start=4, end=44, line=1)
    assert finding == SecretFinding("github-token", 4, 44, 1) and hash(finding) == hash(
        SecretFinding("github-token", 4, 44, 1)
    )
    assert (finding.rule, finding.start, finding.end, finding.line) == ("github-token", 4, 44, 1)
    assert repr(finding) == "SecretFinding(rule='github-token', start=4, end=44, line=1)"
    with pytest.raises(AttributeError):
        finding.rule = "other"  # type: ignore[misc]


@pytest.mark.parametrize("run", ["-", "_", ".", "-_."])
def test_long_runs_of_name_characters_are_read_once(run: str) -> None:
    """A separator line of 20,000 dashes (a log, a table) took 37 s: every dash started a
    credential name that rescanned the rest of the line. Names now start where their run
    does; one after such a run is still found."""
    line = run * (20000 // len(run))
    secret = "x7Gp2LqW9zR4"
    text = f"{line}\n{line}db_password={secret}\n--api-key: {secret}"
    assert redact_secrets(text).count("[REDACTED:") == 2
    assert secret not in redact_secrets(text)
    assert find_secrets(line) == []


def test_each_of_many_findings_has_its_own_line() -> None:
    secret = "x7Gp2LqW9zR4"
    text = "\n".join(f"note {i}\nDB_PASSWORD={secret}{i}" for i in range(2000))
    assert [f.line for f in find_secrets(text)] == list(range(2, 4001, 2))
