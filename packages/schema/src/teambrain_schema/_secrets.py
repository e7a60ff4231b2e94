"""Secret detection and redaction: one rule set shared by lint, capture and propose.

Stdlib only (``re``, ``math``): the capture hook redacts on its hot path.
"""

from __future__ import annotations

import math
import re

# ``typing`` and ``dataclasses`` (with ``inspect``) cost the capture hook ~10 ms per user
# prompt: this module is on its path, so it imports neither at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

REDACTION_TEMPLATE: Final = "[REDACTED:{rule}]"


class SecretFinding(tuple[str, int, int, int]):
    """One secret found in a text: which rule, where (0-based offsets, 1-based line).
    Immutable and compared by value, like a frozen dataclass."""

    __slots__ = ()

    def __new__(cls, rule: str, start: int, end: int, line: int) -> SecretFinding:
        return tuple.__new__(cls, (rule, start, end, line))

    @property
    def rule(self) -> str:
        return self[0]

    @property
    def start(self) -> int:
        return self[1]

    @property
    def end(self) -> int:
        return self[2]

    @property
    def line(self) -> int:
        return self[3]

    def __repr__(self) -> str:
        return f"SecretFinding(rule={self.rule!r}, start={self.start}, end={self.end}, line={self.line})"


# (rule id, pattern, group holding the secret or 0 for the whole match)
_RULES: Final[tuple[tuple[str, str, int], ...]] = (
    (
        "private-key",
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        0,
    ),
    (
        "aws-access-key-id",
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[0-9A-Z]{16}\b",
        0,
    ),
    (
        "aws-secret-access-key",
        r"(?i)aws_?secret_?(?:access_?)?key[\"'\s]*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        1,
    ),
    ("gcp-api-key", r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])", 0),
    ("google-oauth-token", r"\bya29\.[0-9A-Za-z_\-]{20,}", 0),
    ("azure-storage-key", r"(?i)AccountKey=([A-Za-z0-9+/]{86}==)", 1),
    ("github-token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b", 0),
    ("github-fine-grained-token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", 0),
    ("gitlab-token", r"\bgl(?:pat|ptt|dt|rt|cbt|soat|ffct|imt|agent)-[A-Za-z0-9_\-]{20,}\b", 0),
    ("slack-token", r"\bxox[abposr]-(?:[A-Za-z0-9]+-){1,4}[A-Za-z0-9]{6,}\b", 0),
    (
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,}",
        0,
    ),
    ("anthropic-api-key", r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{40,}", 0),
    (
        "openai-api-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}",
        0,
    ),
    ("openai-like-api-key", r"\bsk-(?:proj-|svcacct-|live-|test-)?[A-Za-z0-9]{32,}\b", 0),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b", 0),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", 0),
    ("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}", 0),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{34,}\b", 0),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b", 0),
    ("twilio-key", r"\bSK[0-9a-f]{32}\b", 0),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", 0),
    ("bearer-token", r"(?i)\bbearer\s+([A-Za-z0-9._~+/\-]{20,}=*)", 1),
    (
        "url-password",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@\"'`]{1,128}:([^\s@/\"'`]{3,128})@",
        1,
    ),
)

_COMPILED: Final = tuple((rule, re.compile(pattern), group) for rule, pattern, group in _RULES)

# name = value where the name says it is a credential; the value is judged by entropy.
_ASSIGNMENT: Final = re.compile(
    r"(?i)(?<![A-Za-z0-9])([A-Za-z0-9_.\-]*(?:secret|token|passw(?:or)?d|passwd|pwd|api[_\-]?key|apikey"
    r"|access[_\-]?key|auth[_\-]?key|client[_\-]?secret|private[_\-]?key|credential)[A-Za-z0-9_.\-]*)"
    r"[\"']?\s*(?:=|:|:=|=>)\s*[\"'`]?([^\s\"'`,;)}\]]{8,256})"
)
_PLACEHOLDER: Final = re.compile(
    r"(?i)^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{.*\}\}|<[^>]*>|\*+|x+|\.{3,}|changeme|"
    r"your[_\-]?\w*|example\w*|placeholder|redacted|none|null|true|false|os\.environ.*|env\(.*)$"
)
_REDACTED_MARK: Final = re.compile(r"\[REDACTED:[a-z\-]+\]?")
MIN_ASSIGNMENT_ENTROPY: Final = 3.0


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (0 for the empty string)."""
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _looks_secret(value: str) -> bool:
    if _PLACEHOLDER.match(value) or _REDACTED_MARK.search(value):
        return False
    if value.isalpha() and value.islower() and len(value) < 16:
        return False  # ``password: required`` and friends are prose, not secrets
    return shannon_entropy(value) >= MIN_ASSIGNMENT_ENTROPY


def find_secrets(text: str) -> list[SecretFinding]:
    """Every secret in ``text``, ordered by position, overlaps merged."""
    spans: list[tuple[int, int, str]] = []
    for rule, pattern, group in _COMPILED:
        for match in pattern.finditer(text):
            if not _REDACTED_MARK.search(match.group(group)):
                spans.append((match.start(group), match.end(group), rule))
    for match in _ASSIGNMENT.finditer(text):
        if _looks_secret(match.group(2)):
            spans.append((match.start(2), match.end(2), "high-entropy-assignment"))
    spans.sort(key=lambda span: (span[0], -span[1]))
    merged: list[tuple[int, int, str]] = []
    for start, end, rule in spans:
        if merged and start < merged[-1][1]:
            prev_start, prev_end, prev_rule = merged[-1]
            merged[-1] = (prev_start, max(prev_end, end), prev_rule)
            continue
        merged.append((start, end, rule))
    return [
        SecretFinding(rule=rule, start=start, end=end, line=text.count("\n", 0, start) + 1)
        for start, end, rule in merged
    ]


def redact_secrets(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<rule>]``."""
    findings = find_secrets(text)
    if not findings:
        return text
    parts: list[str] = []
    cursor = 0
    for finding in findings:
        parts.append(text[cursor : finding.start])
        parts.append(REDACTION_TEMPLATE.format(rule=finding.rule))
        cursor = finding.end
    parts.append(text[cursor:])
    return "".join(parts)


def has_secret(text: str) -> bool:
    """True when :func:`find_secrets` finds anything in ``text``."""
    return bool(find_secrets(text))
