"""Prompt-injection scan: text in a memory that addresses the agent reading it, not the task.

A memory reaches agents as data inside a fence (the rendering rule), but a proposal that tries
to instruct them ("ignore previous instructions"), impersonate the system or a tool call, break
out of its fence or forge another memory's header has no business in the brain at all. Proposals
are refused before review; lint and verify can run the same rules over committed files.

The rules look for the shape of an attack, not for topics: a memory may *talk about* prompt
injection, system prompts or MCP tools, but not speak in their voice. Stdlib only, linear-time
patterns (no nested quantifiers), so it is safe on hostile input of any size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["InjectionFinding", "find_injections"]


@dataclass(frozen=True)
class InjectionFinding:
    """One suspected injection: which rule, where (0-based offsets, 1-based line), and what."""

    rule: str
    start: int
    end: int
    line: int
    excerpt: str


_QUALIFIER = (
    r"(?:previous|prior|preceding|above|earlier|foregoing|original|initial|system|developer)"
)
_OBJECT = r"(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|context|commands|constraints|guardrails)"
_FLAGS = re.IGNORECASE | re.MULTILINE

# (rule id, pattern). Each pattern is a rare word sequence that speaks *to* the agent; a memory
# may still mention these topics in other words.
_RULES: Final[tuple[tuple[str, str], ...]] = (
    (
        "ignore-instructions",
        rf"\b(?:ignore|disregard|forget)\s+(?:(?:all|any|every|the|your|my|these|those|of)\s+){{0,3}}{_QUALIFIER}\s+{_OBJECT}\b",
    ),
    (
        "ignore-instructions",
        r"\b(?:ignore|disregard|forget)\s+(?:all|any|every)\s+(?:of\s+)?(?:your\s+|the\s+)?(?:instructions?|prompts?|directives|guardrails)\b",
    ),
    (
        "ignore-instructions",
        r"\b(?:ignore|disregard|forget)\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been|'ve\s+been)\s+told|(?:said\s+|written\s+)?(?:above|before\s+this))",
    ),
    ("ignore-instructions", r"\bnew\s+(?:system\s+)?instructions?\s*:"),
    (
        "role-reassignment",
        r"\byou\s+are\s+now\s+(?:an?|the|my|DAN|unrestricted|unfiltered|jailbroken|uncensored|free\s+(?:of|from))\b",
    ),
    (
        "role-reassignment",
        r"\byou\s+are\s+no\s+longer\s+(?:bound|restricted|limited|an?\s+AI|an?\s+assistant|required\s+to\s+follow)\b",
    ),
    ("role-reassignment", r"\bfrom\s+now\s+on,?\s+you\s+are\b"),
    (
        "role-reassignment",
        r"\b(?:act|behave|respond)\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|uncensored|DAN)\b",
    ),
    ("role-reassignment", r"\b(?:developer|god|jailbreak|DAN)\s+mode\s+(?:enabled|activated|on)\b"),
    (
        "system-impersonation",
        r"^[ \t>#*]*(?:system(?:\s+(?:prompt|message|instructions?|override))?|developer\s+(?:prompt|message|instructions?))\s*:",
    ),
    ("system-impersonation", r"</?\s*(?:system|developer|assistant|human|user)\s*>"),
    ("system-impersonation", r"^[ \t>]*\[\s*/?\s*(?:system|developer|assistant|INST)\s*\]"),
    ("system-impersonation", r"<<\s*/?\s*SYS\s*>>"),
    (
        "system-impersonation",
        r"<\|\s*(?:im_start|im_end|im_sep|endoftext|system|user|assistant|eot_id|start_header_id|end_header_id)\s*\|>",
    ),
    ("system-impersonation", r"^[ \t]*(?:Human|Assistant)\s*:"),
    (
        "prompt-exfiltration",
        r"\b(?:reveal|print|repeat|output|show|leak|dump)\s+(?:your|the)\s+(?:full\s+|entire\s+|hidden\s+|original\s+)?(?:system\s+prompt|instructions|hidden\s+prompt|initial\s+prompt)\b",
    ),
    (
        "tool-call-forgery",
        r"</?\s*(?:antml:[A-Za-z_]+|function_calls|function_results|tool_use|tool_result|tool_calls?)\b[^<>\n]{0,200}>",
    ),
    ("tool-call-forgery", r"[\"']type[\"']\s*:\s*[\"'](?:tool_use|tool_result)[\"']"),
    (
        "tool-call-forgery",
        r"\bmcp__[A-Za-z0-9_\-]+__[A-Za-z0-9_\-]+\s*(?:\(|\{|\s+with\s+(?:arguments|args|params|parameters|input)\b)",
    ),
    ("fake-memory-header", r"\[\s*team\s+memory\b"),
    ("fake-memory-header", r"\bdata,?\s+not\s+instructions\b"),
    ("fake-memory-header", r"</?\s*team[\s_\-]*memory\s*>|\bend\s+of\s+(?:the\s+)?team\s+memory\b"),
)
_COMPILED: Final = tuple((rule, re.compile(pattern, _FLAGS)) for rule, pattern in _RULES)

# A bare fence line (``` or ~~~, the kind that closes a block) directly followed by a line that
# speaks as the system, a turn marker or another memory: the classic break-out.
_FENCE = re.compile(r"^[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*$", re.MULTILINE)
_AFTER_FENCE = re.compile(
    r"(?:system|developer|assistant|human)\s*:|\[\s*team\s+memory|<\|?\s*(?:system|im_start)"
    r"|(?:ignore|disregard)\s|(?:end\s+of|</?)\s*(?:team\s+)?memory",
    re.IGNORECASE,
)
# Characters that hide text from a human reviewer but not from a model: bidi controls, zero-width
# characters other than ZWJ, and the Unicode "tag" block used for ASCII smuggling.
_INVISIBLE = re.compile(
    "[\u202a-\u202e\u2066-\u2069\u200b\u200c\u2060-\u2064\ufeff\U000e0000-\U000e007f]+"
)
_EXCERPT_CHARS = 60


def _excerpt(text: str, start: int, end: int) -> str:
    from .secrets import redact_secrets

    snippet = text[start : min(end, start + _EXCERPT_CHARS)]
    snippet = _INVISIBLE.sub(lambda m: f"<U+{ord(m.group()[0]):04X}>", snippet)
    # An excerpt is printed (lint, propose, import, memory_propose): a secret is never.
    return redact_secrets(" ".join(snippet.split()))


_HIDDEN_MARKS = frozenset(
    ["\u034f", "\u180b", "\u180c", "\u180d", "\u180e", "\u180f"]
    + [chr(c) for c in range(0xFE00, 0xFE10)]
)


def reading_form(text: str) -> str:
    """``text`` as an agent reads it once rendered: format and control characters (soft hyphen,
    ZWJ, LRM, bidi controls, tag characters…), the combining grapheme joiner and variation
    selectors removed, compatibility forms folded (NFKC). A keyword split by an invisible
    character is whole again here, as it is for the model."""
    import unicodedata

    if text.isascii():
        return text
    kept = []
    for char in text:
        if char in "\n\t":
            kept.append(char)
            continue
        code = ord(char)
        if char in _HIDDEN_MARKS or 0xE0100 <= code <= 0xE01EF:
            continue
        category = unicodedata.category(char)
        if category in ("Cc", "Cf"):
            continue
        kept.append("\n" if category in ("Zl", "Zp") else char)
    return unicodedata.normalize("NFKC", "".join(kept))


_FOLDS: list[dict[int, str]] = []  # loaded on first use: most text is ASCII


def fold_confusables(text: str) -> str:
    """``text`` with every non-ASCII character that looks like ASCII text replaced by it — a
    Cyrillic ``а``, a Greek ``Τ``, a fullwidth ``Ａ`` — per Unicode's confusables table (UTS #39,
    vendored in ``_confusables.py``). ASCII text comes back as it is."""
    if text.isascii():
        return text
    if not _FOLDS:
        from ._confusables import TABLE

        _FOLDS.append({ord(line[0]): line[1:] for line in TABLE.split("\n") if line})
    return text.translate(_FOLDS[0])


def scan_forms(text: str) -> list[str]:
    """What the injection rules read besides ``text``: its :func:`reading_form` with look-alike
    characters folded to the ASCII they imitate, as written and case-folded (a capital
    Cyrillic "І" imitates an "l" and its small letter an "i"). A header spelled with Cyrillic
    letters is still a header to the model reading it."""
    if text.isascii():
        return [text]
    forms: list[str] = []
    for variant in (text, text.casefold()):
        # Folded after NFKC (a fullwidth "［" is a "[" only then) and before it (a few
        # look-alikes, such as the ogonek "˛" of an "i", decompose under NFKC).
        for form in (
            fold_confusables(reading_form(variant)),
            fold_confusables(reading_form(fold_confusables(variant))),
        ):
            if form not in forms:
                forms.append(form)
    return forms


def find_injections(text: str) -> list[InjectionFinding]:
    """Every suspected prompt injection in ``text`` — and in its :func:`scan_forms`, the text
    the agent will read with look-alike letters folded — ordered by position, one per span."""
    spans: list[tuple[int, int, str]] = []
    for rule, pattern in _COMPILED:
        spans.extend((m.start(), m.end(), rule) for m in pattern.finditer(text))
    seen_lines: set[int] | None = None
    lines = _Lines(text)
    for visible in scan_forms(text):
        if visible == text:
            continue
        # Offsets in these refer to the scanned form; its lines are the text's lines.
        if seen_lines is None:
            seen_lines = {lines.of(start) for start, _, _ in spans}
        visible_lines = _Lines(visible)
        for rule, pattern in _COMPILED:
            for m in pattern.finditer(visible):
                line = visible_lines.of(m.start())
                if line not in seen_lines:
                    spans.append((lines.start(line), lines.start(line + 1), rule))
                    seen_lines.add(line)
    for fence in _FENCE.finditer(text):
        next_start = fence.end() + 1
        next_end = text.find("\n", next_start)
        following = text[next_start : next_end if next_end != -1 else len(text)]
        if following and (
            _AFTER_FENCE.match(following.lstrip(" \t>#*"))
            or any(_AFTER_FENCE.match(form.lstrip(" \t>#*")) for form in scan_forms(following))
        ):
            spans.append((fence.start(), next_start + len(following), "fence-escape"))
    spans.extend((m.start(), m.end(), "invisible-text") for m in _INVISIBLE.finditer(text))
    spans.sort(key=lambda span: (span[0], -span[1]))
    findings: list[InjectionFinding] = []
    last_end = -1
    for start, end, rule in spans:
        if start < last_end:
            continue  # overlapping matches describe the same text once
        last_end = end
        findings.append(
            InjectionFinding(
                rule=rule,
                start=start,
                end=end,
                line=lines.of(start) + 1,
                excerpt=_excerpt(text, start, end),
            )
        )
    return findings


class _Lines:
    """Line numbers of offsets in one text, from one pass over its newlines: counting them
    again for every finding made a text with thousands of findings quadratic."""

    def __init__(self, text: str) -> None:
        self.length = len(text)
        self.breaks = [m.start() for m in _NEWLINE.finditer(text)]

    def of(self, offset: int) -> int:
        """The 0-based line of ``offset``."""
        from bisect import bisect_left

        return bisect_left(self.breaks, offset)

    def start(self, line: int) -> int:
        """Where 0-based ``line`` starts (the end of the text past the last line)."""
        if line <= 0:
            return 0
        return self.breaks[line - 1] + 1 if line <= len(self.breaks) else self.length


_NEWLINE = re.compile("\n")


def has_injection(text: str) -> bool:
    """True when :func:`find_injections` finds anything in ``text``."""
    return bool(find_injections(text))
