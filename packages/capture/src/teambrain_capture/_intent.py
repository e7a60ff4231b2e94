"""The ``intent`` event: what the user asked for, summarised on this machine, never the prompt.

The summary keeps the gist of the prose and nothing else: code blocks, inline code that is not a
name, pasted logs and stack traces, shell transcripts, quoted text and ``<private>…</private>``
spans are dropped; secrets are redacted with the rule set lint uses; filler words go; what is left
is lower-cased, at most 200 characters, and never repeats a long run of the prompt verbatim.
"""

from __future__ import annotations

import re

from teambrain_kit.secrets import find_secrets, redact_secrets

MAX_INTENT_CHARS = 200  # teambrain_schema.MAX_INTENT_CHARS (a test keeps them equal)
# The summary reads the start of the prompt only, so its cost is bounded whatever the prompt's
# size (the hook has 10 s): the ask is near the start, and the gist fits in 200 characters.
MAX_SUMMARY_INPUT = 16_000
# Longer runs without whitespace are dropped before anything else: no word of the summary is
# that long, and the secret rules' cost grows with the square of a run's length.
MAX_RUN = 100
# The longest run of characters copied from the prompt as they were (separators break longer ones).
MAX_VERBATIM = 48
MAX_WORD = 32
MAX_PATH_WORD = 80
# Which style summarise_intent writes (bench_intent_summary.py measures both).
READABLE = True
EMPTY_SUMMARY = "(no prose: the prompt held only code, logs or quoted text)"
SEPARATOR = " · "
SECRET_MARK = "[secret]"  # noqa: S105  (what a redacted secret reads as)
_SECRET_WORD = "tbredactedsecret"  # noqa: S105  # stands in for a redacted secret until the words are joined

_LONG_RUN = re.compile(rf"(?<!\S)\S{{{MAX_RUN + 1},}}")
_PRIVATE = re.compile(r"(?is)<private\b[^>]*>.*?(?:</private\s*>|\Z)")
_FENCE = re.compile(r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)")
_INLINE_CODE = re.compile(r"`([^`\n]*)`")
_QUOTED = re.compile(r"[\"“”«»]([^\"“”«»\n]{0,400})[\"“”«»]")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://([^\s/?#'\"<>`]+)[^\s'\"<>`]*")
_EMAIL = re.compile(r"\b[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+\b")
_HOME = re.compile(r"(?:/home|/Users)/[^/\s]+|[A-Za-z]:\\Users\\[^\\\s]+")
_REDACTED = re.compile(r"\[REDACTED:[a-z\-]+\]")
_LOG_LINE = re.compile(
    r"""(?ix)^\s*(?:
        \d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}        # 2026-05-01 12:00 timestamps
      | \d{2}:\d{2}:\d{2}                        # 12:00:01
      | \[?(?:trace|debug|info|notice|warn|warning|error|err|fatal|critical|crit)\]?[\s:|]  # levels
      | traceback\ \(most\ recent\ call\ last\)
      | file\ ".*",\ line\ \d+
      | at\ [\w$.<>/]+\s*\(                      # JS / Java frames
      | at\ \S+:\d+
      | \#\d+\s+0x[0-9a-f]+                      # native frames
      | goroutine\ \d+
      | panic:
      | [\w.]*(?:error|exception|warning)\b[^\n]{0,200}:   # ValueError: … / E   AssertionError
      | e\s{2,}
      | [$%#>]\s                                 # shell prompts and transcripts
      | (?:npm|yarn|pnpm)\ (?:err|warn)!?
      | -{2,}\s*$|={3,}|\*{3,}
      | \|                                       # tables
    )"""
)
_CODE_LINE = re.compile(
    r"""(?x)(?:
        [;{}]\s*$                                # statement ends and braces
      | ^\s*(?:def|class|import|from|return|function|const|let|var|public|private|fn|func|package)\s
      | ^\s*[@#]\w+\(                            # decorators, preprocessor
      | ^\s*</?[a-zA-Z][\w\-]*(?:\s[^>]*)?/?>\s*$     # markup
      | (?:==|!=|=>|->|::|\+=|&&|\|\|)\S
    )"""
)
_WORD = re.compile(r"[\w][\w'’./\-:@+#]*")
_PATHISH = re.compile(r"^[\w.\-]+(?:/[\w.\-]+)+$|^[\w\-]+\.[a-z]{1,5}$")

_STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "hi",
        "hello",
        "hey",
        "please",
        "thanks",
        "thank",
        "pls",
        "kindly",
        "could",
        "would",
        "can",
        "let",
        "lets",
        "let's",
        "i'm",
        "i've",
        "i'd",
        "we're",
        "we've",
        "you're",
        "it's",
        "that's",
        "there's",
        "also",
        "really",
        "maybe",
        "perhaps",
        "just",
        "basically",
        "actually",
        "ok",
        "okay",
        "sure",
        "like",
        "want",
        "need",
        "think",
        "know",
        "something",
        "anything",
        "everything",
        "get",
        "got",
        "go",
        "going",
        "make",
        "sure",
        "see",
        "look",
        "here's",
        "what's",
        "i'll",
        "we'll",
        "you'll",
    ]  # negations stay: "do not touch payments" must not lose its "not"
)


# Kept by the "readable" style although they are stopwords: they carry the relations a lesson
# is made of ("fails because", "after tax", "where is", "same as", "only in templates").
_RELATIONS = frozenset(
    ["after", "again", "against", "because", "before", "both", "each", "few", "how", "more",
     "most", "only", "other", "same", "should", "than", "until", "what", "when", "where",
     "which", "while", "why"]
)  # fmt: skip


def _drop_lines(text: str) -> str:
    kept = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            kept.append("")
            continue
        if line.startswith(("    ", "\t")) or stripped.startswith(">"):
            continue  # indented code, quoted replies
        if _LOG_LINE.match(line) or _CODE_LINE.search(line):
            continue
        letters = sum(char.isalpha() or char.isspace() for char in stripped)
        if letters < 0.6 * len(stripped):
            continue  # hashes, numbers, punctuation soup
        kept.append(stripped)
    return "\n".join(kept)


def _inline_code(match: re.Match[str]) -> str:
    content = match.group(1).strip()
    return content if content and len(content) <= 40 and " " not in content else " "


def _quoted(match: re.Match[str]) -> str:
    content = match.group(1)
    return content if len(content.split()) <= 3 else " "


def _keep_word(word: str, readable: bool = False) -> str | None:
    word = word.replace("’", "'").strip(".:-/@+#'")
    if word.lower().endswith("'s"):
        word = word[:-2]
    if not word:
        return None
    lowered = word.lower()
    if lowered in _STOPWORDS and not (readable and lowered in _RELATIONS):
        return None
    if _PATHISH.match(word):
        return lowered if len(word) <= MAX_PATH_WORD else None
    if len(word) > MAX_WORD:
        return None  # ids, hashes and anything the secret rules might have missed
    if sum(char.isdigit() for char in word) > 6:
        return None  # numbers, ids and timestamps say nothing about intent
    if readable and any(char.isupper() for char in word[1:]):
        return word  # an identifier as the code spells it: FakeClock, PaymentGateway, SKU
    return lowered


def _words(text: str, readable: bool = False) -> list[str]:
    words: list[str] = []
    for match in _WORD.finditer(text):
        found = match.group(0)
        word = SECRET_MARK if found == _SECRET_WORD else _keep_word(found, readable)
        if word and (not words or words[-1] != word):
            words.append(word)
    return words


def _verbatim_window(summary: str, haystack: str) -> int | None:
    """Start of the first ``MAX_VERBATIM``-long piece of ``summary`` found in ``haystack``."""
    lowered = summary.lower()
    for start in range(len(summary) - MAX_VERBATIM + 1):
        if lowered[start : start + MAX_VERBATIM] in haystack:
            return start
    return None


def _assemble(words: list[str], haystack: str) -> str:
    summary = ""
    run = ""  # the text since the last separator, which may be a verbatim copy
    for word in words:
        candidate_run = f"{run} {word}" if run else word
        joiner = " " if summary else ""
        if len(candidate_run) >= MAX_VERBATIM and candidate_run.lower() in haystack:
            joiner, candidate_run = SEPARATOR, word
        if len(summary) + len(joiner) + len(word) > MAX_INTENT_CHARS:
            break
        summary += joiner + word
        run = candidate_run
    # Whatever the joins produced, no window may still be a verbatim copy.
    while (start := _verbatim_window(summary, haystack)) is not None:
        cut = summary.rfind(" ", start, start + MAX_VERBATIM)
        summary = summary[:cut] if cut > 0 else summary[:start]
    return summary.strip(" ·")


def read_part(prompt: str) -> str:
    """The part of ``prompt`` the summary reads: its first :data:`MAX_SUMMARY_INPUT`
    characters, cut back to whitespace so no word (or secret) is split."""
    if len(prompt) <= MAX_SUMMARY_INPUT:
        return prompt
    parts = prompt[:MAX_SUMMARY_INPUT].rsplit(None, 1)
    return parts[0] if len(parts) == 2 else ""


def summarise_intent(prompt: str) -> str:
    """A private, ≤ 200-character summary of ``prompt`` for the ``intent`` event. It reads
    at most :data:`MAX_SUMMARY_INPUT` characters, so it takes milliseconds for any prompt."""
    return _summarise(prompt, readable=READABLE)


def _summarise(prompt: str, readable: bool) -> str:
    """``readable``: keep the relation words (:data:`_RELATIONS`) and identifiers' case."""
    prompt = read_part(prompt)
    text = prompt.replace("\r\n", "\n").replace("\r", "\n")
    text = _LONG_RUN.sub(" ", text)
    text = _PRIVATE.sub(" ", text)
    text = redact_secrets(text)
    text = _FENCE.sub("\n", text)
    text = _drop_lines(text)
    text = _INLINE_CODE.sub(_inline_code, text)
    text = _QUOTED.sub(_quoted, text)
    text = _URL.sub(lambda match: match.group(1).rpartition("@")[2], text)
    text = _EMAIL.sub(" ", text)
    text = _HOME.sub("~", text)
    text = _REDACTED.sub(f" {_SECRET_WORD} ", text)
    words = _words(text, readable)
    # Whitespace-normalised, as the summary is: a copy that only re-spaced the prompt is a copy.
    haystack = " ".join(prompt.lower().split())
    summary = _assemble(words, haystack)
    if find_secrets(summary):  # defence in depth: joins must not form a secret either
        summary = _REDACTED.sub(SECRET_MARK, redact_secrets(summary))[:MAX_INTENT_CHARS]
    return summary or EMPTY_SUMMARY
