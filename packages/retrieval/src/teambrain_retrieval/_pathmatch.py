"""Which memories are about a file or folder: path mentions in bodies and tags, matched to globs.

A memory mentions paths in prose (``src/shop/checkout/``, ``tests/test_checkout.py::test_x``,
``money.py``) and in tags (``src/shop/checkout``); dotted module names
(``shop.payments.gateway``) count too. A query path matches a mention exactly, as an enclosing
folder, as a file inside a queried folder, or by its trailing components.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from teambrain_schema.globmatch import glob_matcher
from teambrain_schema.paths import composed_form

# Names in any script, with combining accents (macOS spells "é" as "e" + U+0301).
_MARKS = "\u0300-\u036f"
_PATHLIKE = re.compile(rf"[\w{_MARKS}.~@+\-/*]+")
_FILE_NAME = re.compile(rf"^[\w{_MARKS}\-.+@]*[\w{_MARKS}\-+@]\.[A-Za-z][A-Za-z0-9]{{0,7}}$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){2,}$")
_WILDCARD = re.compile(r"[*?\[]")
# A scheme starts where its run of scheme characters does: starting anywhere inside a long word
# rescanned the rest of it each time (20,000 letters took 0.6 s).
_URL = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://\S+")
# Extensions that look like files but are almost always prose ("e.g.", "v1.2", "i.e.").
_NOT_EXTENSIONS = frozenset({"g", "e", "etc"})
MAX_MENTIONS = 64


def extract_mentions(body: str, tags: Iterable[str]) -> list[str]:
    """Paths a memory names: slash paths, file names and dotted modules, normalised."""
    found: dict[str, None] = {}
    prose = _URL.sub(" ", body).replace("::", " ")
    candidates = [*_PATHLIKE.findall(prose), *tags]
    for raw in candidates:
        token = raw.strip("./-*").rstrip(":")
        if not token or "://" in raw or token.startswith("@"):
            continue
        if "/" in token:
            mention = "/".join(part for part in token.split("/") if part and part != ".")
        elif _MODULE.match(token) and not _FILE_NAME.match(token):
            mention = token.replace(".", "/")
        elif _FILE_NAME.match(token) and token.rsplit(".", 1)[1].lower() not in _NOT_EXTENSIONS:
            mention = token
        else:
            continue
        if mention and "*" not in mention:
            found.setdefault(composed_form(mention), None)
        if len(found) >= MAX_MENTIONS:
            break
    return list(found)


def _components(path: str) -> tuple[str, ...]:
    parts = [p for p in composed_form(path).strip().strip("/").lower().split("/") if p and p != "."]
    if parts and "." in parts[-1].lstrip("."):
        parts[-1] = parts[-1].rsplit(".", 1)[0]
    return tuple(parts)


def _is_prefix(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    return len(short) <= len(long) and long[: len(short)] == short


def _suffix_run(query: tuple[str, ...], mention: tuple[str, ...]) -> int:
    """Length of the longest tail of ``query`` found as a contiguous run inside ``mention``
    (of its last 32 components: a path of thousands of ``a/`` cost their square)."""
    query = query[-32:]
    for length in range(len(query), 0, -1):
        tail = query[-length:]
        if any(mention[i : i + length] == tail for i in range(len(mention) - length + 1)):
            return length
    return 0


def _literal_prefix(glob: str) -> tuple[str, ...]:
    parts = []
    for part in glob.strip().strip("/").split("/"):
        if _WILDCARD.search(part):
            break
        parts.append(part)
    return _components("/".join(parts)) if parts else ()


def path_score(query: str, mention: str) -> float:
    """How strongly ``mention`` (a path a memory names) is about ``query`` (a path or glob).

    1.0 exact · 0.9 glob match · 0.8 mention inside the queried folder · 0.6–1.0 an enclosing
    folder (closer is better) · 0.5–0.8 trailing components (``cart.py``) · 0.4 the path's last two or
    more components inside the mention (a dotted module naming a source file) · 0 unrelated.
    """
    query = query.strip()
    if not query or not mention:
        return 0.0
    m = _components(mention)
    if not m:
        return 0.0
    if _WILDCARD.search(query):
        pattern, named = composed_form(query.strip("/")).lower(), composed_form(mention).lower()
        # Linear in the name whatever the glob: ``*a*a*a*a*b.py`` must not backtrack.
        if glob_matcher(pattern, segments=False)(named) or glob_matcher(
            pattern + "/*", segments=False
        )(named):
            return 0.9
        q = _literal_prefix(query)
        if q and m == q:
            return 1.0  # the very folder the glob is about
        if q and len(m) >= 2 and _is_prefix(m, q):
            return 0.6 + 0.3 * len(m) / len(q)
        if q and _is_prefix(q, m):
            return 0.8
        return 0.0
    q = _components(query)
    if not q:
        return 0.0
    if m == q:
        return 1.0
    if _is_prefix(q, m):
        return 0.8
    if len(m) >= 2 and _is_prefix(m, q):
        return 0.6 + 0.4 * len(m) / len(q)
    if q[-len(m) :] == m and (len(m) >= 2 or "." in mention.rsplit("/", 1)[-1]):
        return 0.5 + 0.3 * len(m) / len(q)
    if _suffix_run(q, m) >= 2:  # e.g. the module shop.payments.gateway in src/shop/payments/
        return 0.4
    return 0.0
