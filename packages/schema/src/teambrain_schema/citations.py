"""Citations: what a memory says about the code, read from its body (stdlib only, no git).

A memory cites paths and globs (in backticks, or in prose as ``a/b/`` or ``a/b.py``), Python
``module.symbol`` names, ``Class.method`` members and code-shaped names (``charge_card()``),
``make`` targets, ``npm run`` scripts and ``python -m`` modules in backticks, and evidence
commits. :func:`extract_citations` lists them;
:mod:`teambrain_schema.citation_checker` checks them against the repository.

What is not a citation, so never stale: URLs, absolute or home paths, a dotted name whose
module is not a file of this repository (``structlog.get_logger``), code in fenced blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .code_names import MEMBER, code_name

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["MAX_EVIDENCE_CHECKED", "Citation", "extract_citations"]

# Evidence commits of one memory that are followed (issue 32 point 4): a committed list of
# 5,200 commits made lint take 13-23 s. The first ones are checked; lint warns about the rest.
MAX_EVIDENCE_CHECKED = 64

_OPENING = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_CLOSING = re.compile(r" {0,3}(`{3,}|~{3,})[ \t\r]*")
_SPAN = re.compile(r"`([^`\n]+)`")
_EXTENSION = r"\.[A-Za-z][A-Za-z0-9]{0,7}"
# A path in prose: two or more segments, ending in "/" (a folder) or a file extension. Names
# may hold combining accents: macOS spells "é" as "e" plus U+0301, which is not a word character.
_PROSE_PATH = re.compile(
    rf"(?<![\w/.@:~$\\-])(?:\./)?((?:[A-Za-z0-9_][\w\u0300-\u036f.-]*/)+"
    rf"(?:[\w-][\w\u0300-\u036f.-]*{_EXTENSION})?)(?![\w\u0300-\u036f/])"
)
_CODE_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "js",
        "mjs",
        "cjs",
        "ts",
        "tsx",
        "jsx",
        "go",
        "rs",
        "java",
        "kt",
        "kts",
        "rb",
        "php",
        "cs",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "swift",
        "scala",
        "sh",
        "bash",
        "zsh",
        "sql",
        "toml",
        "yaml",
        "yml",
        "json",
        "ini",
        "cfg",
        "conf",
        "md",
        "rst",
        "txt",
        "lock",
        "proto",
        "graphql",
        "tf",
        "html",
        "css",
        "scss",
        "vue",
        "svelte",
        "ex",
        "exs",
        "erl",
        "clj",
        "dart",
        "lua",
        "pl",
        "r",
    ]
)
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
_MAKE = re.compile(r"^make\s+(.+)$")
_SCRIPT = re.compile(r"^(?:npm|pnpm|yarn|bun)\s+run\s+([\w:.\-]+)")
_PYTHON_M = re.compile(r"^python3?\s+-m\s+([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")
_SHA = re.compile(r"^[0-9a-f]{7,64}$")
_GLOB_CHARS = frozenset("*?[")
# "github.com/acme/shop/", "docs.python.org/3/": a web address without its scheme, not a path.
_HOST = re.compile(r"^(?:[a-z0-9-]+\.)+[a-z]{2,6}$")


@dataclass(frozen=True)
class Citation:
    """One thing a memory says exists: ``kind`` is path, glob, symbol (``module.name``), member
    (``Class.method``), name (a code-shaped identifier), command, script, module or commit;
    ``text`` is how the memory wrote it; ``target`` what is looked up (a repository-relative
    path or glob, a dotted name, a make target, a commit id)."""

    kind: str
    text: str
    target: str


def _is_code_file(name: str) -> bool:
    """``money.py``, ``Makefile.toml``: a file name ending in a known code extension."""
    stem, dot, extension = name.rpartition(".")
    return bool(dot and stem) and extension.lower() in _CODE_EXTENSIONS


def _path_target(text: str) -> str | None:
    """``text`` as a repository-relative path or glob, or None when it is not one."""
    value = text.strip().strip("\"'")
    if not value or any(c.isspace() for c in value) or "://" in value:
        return None
    if value[0] in "/~$-@<(" or any(c in value for c in "=(){}<>,;|&\\!"):
        return None
    value = value.split("::", 1)[0]  # a pytest node id
    value = re.sub(r"(?::\d+){1,2}$", "", value)  # a line (and column) number
    while value.startswith("./"):
        value = value[2:]
    if not value or value.startswith("../") or value in {".", ".."}:
        return None
    if "/" in value:
        return None if _HOST.match(value.split("/", 1)[0]) else value
    # One segment: a file name with a code extension (``money.py``), or a glob (``*.py``).
    if _is_code_file(value) or (any(c in _GLOB_CHARS for c in value) and "." in value):
        return value
    return None


_MAKE_VALUE_OPTIONS = frozenset({"-f", "-I", "-o", "-W"})
_MAKE_NUMBER_OPTIONS = frozenset({"-j", "-l"})  # their number is optional


def _make_target(words: list[str]) -> str | None:
    """The first target of a ``make`` command line: not a VAR=value, not an option or the value
    an option takes (``make -C docs html`` names ``html``). None when it names none (or when
    ``-C`` points make at another directory, whose Makefile is not the one to check)."""
    skip = False
    for index, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word in _MAKE_NUMBER_OPTIONS:
            following = words[index + 1] if index + 1 < len(words) else ""
            skip = following.replace(".", "", 1).isdigit()
            continue
        if word in ("-C", "--directory") or word.startswith(("-C", "--directory=")):
            return None
        if word in _MAKE_VALUE_OPTIONS:
            skip = True
            continue
        if "=" in word or word.startswith("-"):
            continue
        return word
    return None


def _without_fences(body: str) -> str:
    """``body`` without its fenced code blocks (CommonMark's rule: the closing fence is a line
    of the same character, at least as long; a fence never closed is left as prose). Linear
    in the body: a regex for this backtracked quadratically (3 s on 20,000 backticks)."""
    if "```" not in body and "~~~" not in body:
        return body
    lines = body.split("\n")
    closers: list[tuple[str, int]] = []  # per line: fence character and run length, or ("", 0)
    for line in lines:
        match = _CLOSING.fullmatch(line)
        closers.append((match.group(1)[0], len(match.group(1))) if match else ("", 0))
    # longest[c][i]: the longest closing run of character c on line i or after it
    longest = {c: [0] * (len(lines) + 1) for c in "`~"}
    for index in range(len(lines) - 1, -1, -1):
        for c in "`~":
            run = closers[index][1] if closers[index][0] == c else 0
            longest[c][index] = max(run, longest[c][index + 1])
    kept: list[str] = []
    index = 0
    while index < len(lines):
        match = _OPENING.fullmatch(lines[index])
        if match:
            char, size = match.group(1)[0], len(match.group(1))
            opens = not (char == "`" and "`" in match.group(2))  # ```x``` is inline code
            if opens and longest[char][index + 1] >= size:
                end = index + 1
                while closers[end][0] != char or closers[end][1] < size:
                    end += 1
                index = end + 1  # the block and its fences go
                continue
        kept.append(lines[index])
        index += 1
    return "\n".join(kept)


def extract_citations(body: str, evidence_commits: Sequence[str] = ()) -> list[Citation]:
    """Every citation in a memory body (code in fenced blocks is an example, not a citation),
    plus its evidence commits; each target once, in order of appearance."""
    text = _without_fences(body)
    found: list[Citation] = []
    seen: set[tuple[str, str]] = set()

    def add(kind: str, written: str, target: str) -> None:
        if (kind, target) not in seen:
            seen.add((kind, target))
            found.append(Citation(kind, written, target))

    for match in _SPAN.finditer(text):
        span = match.group(1).strip()
        script = _SCRIPT.match(span)
        if script:
            add("script", span, script.group(1))
            continue
        module = _PYTHON_M.match(span)
        if module:
            add("module", span, module.group(1))
            continue
        make = _MAKE.match(span)
        if make:
            target = _make_target(make.group(1).split())
            if target:
                add("command", span, target)
            continue
        path = _path_target(span)
        if path is not None:
            add("glob" if any(c in _GLOB_CHARS for c in path) else "path", span, path)
            continue
        member = MEMBER.match(span)
        if member:  # `PaymentGateway.charge`, `Gateway::charge()`
            add("member", span, f"{member.group(1)}.{member.group(2)}")
            continue
        dotted = span.removesuffix("()")
        if _DOTTED.match(dotted):
            add("symbol", span, dotted)
            continue
        name = code_name(span)
        if name is not None:  # `charge_card`, `chargeCard()`, `PaymentGateway`
            add("name", span, name)
    prose = _SPAN.sub(" ", text)
    for match in _PROSE_PATH.finditer(prose):
        written = match.group(1)
        if _HOST.match(written.split("/", 1)[0]):
            continue
        if written.endswith("/") or _is_code_file(written.rsplit("/", 1)[-1]):
            add("path", written, written)
    checked = 0
    for sha in evidence_commits:
        if checked == MAX_EVIDENCE_CHECKED:
            break
        if isinstance(sha, str) and _SHA.match(sha):
            add("commit", sha, sha)
            checked += 1
    return found
