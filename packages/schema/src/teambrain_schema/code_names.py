"""Code names as people cite them, and whether a file still defines them.

People rarely write ``shop.payments.gateway.PaymentGateway``; they write `PaymentGateway.charge`,
`charge_card()` or `PaymentGateway` next to `src/shop/payments/gateway.py`. Such a name is a
*member* (``Class.method``, ``Class::method``, ``Class#method``) or a *name* (an identifier that
looks like code: ``snake_case``, ``camelCase``, ``CapWords`` with two humps or more, or any
identifier written as a call, ``total()``). A single plain word (`retry`, `main`) is prose.

Whether a file *defines* a name is read with a few language-agnostic patterns (``def``,
``class``, ``function``, ``func``, ``fn``, ``struct``… followed by the name; an assignment or a
method at the start of a line; a C-family function header). The same patterns judge the old and
the new version of a file, so a definition they cannot see is never called removed.
Stdlib only.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["MEMBER", "code_name", "defined_in", "defined_names", "defines", "mentions"]

# `Class.method`, `Class::method`, `Class#method`, optionally called: a class is CapWords.
MEMBER = re.compile(r"^([A-Z][A-Za-z0-9_]*)(?:\.|::|#)([A-Za-z_]\w*)(?:\(\))?$")
_IDENTIFIER = re.compile(r"^([A-Za-z_]\w*)(\(\))?$")
_SNAKE = re.compile(r"[A-Za-z0-9]_+[A-Za-z0-9]|^_+[a-z]")
_CAMEL = re.compile(r"[a-z0-9][A-Z]")
_MIN_NAME = 3

_KEYWORDS = (
    r"def|class|function\*?|func|fn|struct|enum|interface|trait|type|typedef|union|impl|"
    r"module|object|record|protocol|extension|typealias|const|let|var|val|fun|sub|defp|defmacro|"
    r"mixin|namespace|macro_rules!|data\s+class|case\s+class|enum\s+class"
)
_MODIFIERS = (
    r"(?:(?:export|default|public|private|protected|internal|static|readonly|final|override|"
    r"abstract|declare|async|get|set|open|inline|virtual|pub(?:\([^)\n]*\))?|unsafe|extern)\s+)*"
)
_C_FAMILY = frozenset(
    [
        "c",
        "h",
        "cc",
        "cpp",
        "cxx",
        "hpp",
        "hh",
        "java",
        "cs",
        "kt",
        "kts",
        "scala",
        "swift",
        "dart",
        "php",
        "m",
        "mm",
        "groovy",
    ]
)
_NOT_A_TYPE = frozenset(
    [
        "return",
        "else",
        "new",
        "throw",
        "await",
        "yield",
        "case",
        "if",
        "while",
        "for",
        "switch",
        "delete",
        "goto",
        "sizeof",
        "not",
        "and",
        "or",
        "in",
        "is",
        "do",
        "try",
        "catch",
        "echo",
        "print",
    ]
)


def code_name(span: str) -> str | None:
    """The name a backticked ``span`` cites when it is a code-shaped identifier (``charge_card``,
    ``chargeCard``, ``PaymentGateway``, ``total()``), else None."""
    match = _IDENTIFIER.match(span)
    if match is None:
        return None
    name, called = match.group(1), match.group(2)
    if len(name) < _MIN_NAME:
        return None
    humps = sum(1 for c in name if c.isupper())
    if called or _SNAKE.search(name) or _CAMEL.search(name) or (name[0].isupper() and humps >= 2):
        return name
    return None


_NAME = r"(?P<name>[A-Za-z_]\w*)"


def _definitions(c_family: bool) -> re.Pattern[str]:
    alternatives = [
        # def charge / class Gateway / func (g *Gateway) Charge / fn charge / const charge
        rf"(?:^|[\s;{{(])(?:async\s+)?(?:{_KEYWORDS})\s+(?:\([^)\n]*\)\s*)?(?:self\.|\w+\.)?"
        rf"\*?{_NAME}",
        # charge = …, charge: Callable = …, this.charge = … (at the start of a line)
        rf"^[ \t]*{_MODIFIERS}(?:self\.|this\.|@)?{_NAME}\s*[?!]?\s*(?::[^=\n]{{0,120}})?"
        rf"=(?![=>~])",
        # charge(amount) {   /   async charge(amount): Promise<void> {   (a method)
        rf"^[ \t]*{_MODIFIERS}\*?{_NAME}\s*(?:<[^>\n]*>)?\s*\([^\n]*\)[^\n;]*\{{\s*$",
        # charge: function (…) / charge: (…) => …   (an object's method)
        rf"^[ \t]*['\"]?{_NAME}['\"]?\s*:\s*(?:async\s+)?(?:function\b|\()",
        # charge() {   (a shell function)
        rf"^[ \t]*{_NAME}\s*\(\)\s*\{{",
    ]
    if c_family:
        # int charge(int amount) {   /   public Receipt charge(Order order)
        alternatives.append(rf"^[ \t]*(?:[\w<>\[\],*&:~]+[ \t]+)+[*&]*{_NAME}\s*\([^;\n]*$")
    # One named group per alternative: re allows a name once, so number them.
    numbered = [a.replace("?P<name>", f"?P<n{i}>") for i, a in enumerate(alternatives)]
    return re.compile("|".join(f"(?:{a})" for a in numbered), re.MULTILINE)


_PATTERNS = {False: _definitions(c_family=False), True: _definitions(c_family=True)}


@lru_cache(maxsize=2048)
def defined_names(text: str, c_family: bool) -> frozenset[str]:
    """Every name ``text`` defines (one pass over it; kept for the texts seen last)."""
    found: set[str] = set()
    for match in _PATTERNS[c_family].finditer(text):
        name = next((value for value in match.groups() if value), None)
        if name is None:
            continue
        words = text[text.rfind("\n", 0, match.start()) + 1 : match.end()].split()
        if words and words[0] in _NOT_A_TYPE:
            continue  # `return charge(order)`: a call
        found.add(name)
    return frozenset(found)


def defined_in(text: str, path: str) -> frozenset[str]:
    """Every name the file ``path`` with content ``text`` defines (its extension says whether
    C-family function headers count)."""
    extension = path.rpartition(".")[2].lower() if "." in path.rpartition("/")[2] else ""
    return defined_names(text, extension in _C_FAMILY)


def defines(text: str, name: str, path: str) -> bool:
    """True when the file ``path`` with content ``text`` defines ``name`` (a class, function,
    method, constant or attribute of that name)."""
    return name in text and name in defined_in(text, path)


@lru_cache(maxsize=4096)
def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")


_STRINGS = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")
_COMMENTS = re.compile(r"(?:#|//).*$", re.MULTILINE)


@lru_cache(maxsize=512)
def _code(text: str) -> str:
    """``text`` without one-line string literals and line comments: a name left only in
    ``"/checkout"`` or ``# was charge()`` is not a use of it."""
    return _COMMENTS.sub("", _STRINGS.sub('""', text))


def mentions(text: str, name: str) -> bool:
    """True when ``name`` appears in ``text``'s code as a whole word (``charge``, not
    ``charge_card``; not only in a string or a comment)."""
    return name in text and _word(name).search(_code(text)) is not None
