"""Which memories are about a file or folder: the paths, names and modules they cite, matched to
the paths a person or a session touches.

Teams cite code in many ways, and each is kept as a *mention* of its kind:

- a path, ``src/shop/payments/refunds.py`` (or a part of one, ``payments/refunds.py``);
- a folder, written with its trailing slash: ``migrations/``, ``src/payments/``;
- a file name alone, ``refunds.py``;
- a dotted module or symbol, ``shop.payments.refunds``, ``catalog.variants.Variant.rename``,
  ``SyncWorker.doWork``, ``ledger.PostEntry``;
- a code identifier that names a file by its stem: a component ``<PlanPicker>``, a hook
  ``useSeries()``, a dbt model ``fct_orders``.

A path matches a mention exactly; through its tail (a file name, a partial path); as a file
inside a cited folder, anchored at the root or anywhere in the path (closer folders count more);
through a module whose leading parts are the file's last folders and stem (the rest being a
symbol inside it); through an identifier equal to its stem; and, for a folder, by the mentions
inside it. One matcher serves ``tb relevant --paths`` and ``memory_context()``:
:class:`PathMatcher` indexes the mentions of a brain once, so matching a path costs a few
dictionary lookups per contiguous run of its parts, whatever the size of the brain.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from teambrain_schema.globmatch import glob_matcher
from teambrain_schema.paths import composed_form

# Names in any script, with combining accents (macOS spells "é" as "e" + U+0301).
_MARKS = "\u0300-\u036f"
_PATHLIKE = re.compile(rf"[\w{_MARKS}.~@+\-/*]+")
_FILE_NAME = re.compile(rf"^[\w{_MARKS}\-.+@]*[\w{_MARKS}\-+@]\.[A-Za-z][A-Za-z0-9]{{0,7}}$")
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")
# Code identifiers: snake_case (a letter or digit on each side of an underscore) or camelCase /
# PascalCase (a lower-case letter followed by an upper-case one).
_SNAKE = re.compile(r"^_*[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)+_*$")
_CAMEL = re.compile(r"^[A-Za-z][A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*$")
_WILDCARD = re.compile(r"[*?\[]")
# A scheme starts where its run of scheme characters does: starting anywhere inside a long word
# rescanned the rest of it each time (20,000 letters took 0.6 s).
_URL = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://\S+")
# Extensions that look like files but are almost always prose ("e.g.", "v1.2", "i.e.").
_NOT_EXTENSIONS = frozenset({"g", "e", "etc", "com", "org", "net"})
# File extensions: a dotted name ending in one of these is a file name, any other dotted
# identifier a module or symbol (``payments.refunds``, ``Variant.rename``).
EXTENSIONS = frozenset([
    "py", "pyi", "pyx", "ts", "tsx", "js", "jsx", "mjs", "cjs", "go", "rs", "kt", "kts", "java",
    "scala", "sc", "rb", "php", "cs", "fs", "fsx", "swift", "m", "mm", "c", "h", "cc", "cpp",
    "cxx", "hpp", "hh", "sql", "tf", "tfvars", "hcl", "yml", "yaml", "json", "jsonc", "json5",
    "toml", "ini", "cfg", "conf", "env", "properties", "md", "mdx", "rst", "txt", "adoc", "csv",
    "tsv", "html", "htm", "css", "scss", "sass", "less", "vue", "svelte", "astro", "sh", "bash",
    "zsh", "fish", "ps1", "bat", "cmd", "lock", "proto", "graphql", "gql", "xml", "xsd", "gradle",
    "ex", "exs", "erl", "hrl", "clj", "cljs", "edn", "hs", "ml", "mli", "lua", "r", "rmd", "pl",
    "pm", "dart", "ipynb", "bzl", "bazel", "nix", "sum", "mod", "mk", "cmake", "svg", "png",
    "jpg", "jpeg", "gif", "webp", "pdf", "parquet", "avro", "j2", "jinja", "jinja2", "tpl",
    "tmpl", "prisma", "sol", "zig", "elm", "el", "jl", "nim", "cr", "groovy", "rake", "gemspec",
    "plist", "storyboard", "xib", "pbxproj", "xcconfig", "wasm", "asm", "s", "cu", "tex", "bib",
    "log", "patch", "diff", "service", "timer", "spec", "jar", "whl", "db", "sqlite", "csproj",
    "sln", "xaml", "razor", "cshtml", "ejs", "hbs", "mustache", "pug", "haml", "erb", "twig",
    "liquid", "njk", "vim", "ipc", "pem", "crt", "csr", "der", "key", "pub",
])  # fmt: skip
# File names without an extension that are still file names.
FILE_NAMES = frozenset([
    "Dockerfile", "Containerfile", "Makefile", "GNUmakefile", "Jenkinsfile", "Procfile",
    "Gemfile", "Rakefile", "Vagrantfile", "Brewfile", "Justfile", "Tiltfile", "Caddyfile",
    "Earthfile", "Pipfile", "Snakefile", "CODEOWNERS", "LICENSE", "NOTICE", "OWNERS", "BUILD",
    "WORKSPACE",
])  # fmt: skip
MAX_MENTIONS = 64
# A path is matched by the runs of its last parts (a path of thousands of parts would cost
# their square otherwise); its first parts still anchor folder citations.
_MAX_PARTS = 32

# How strongly each kind of match says a memory is about the queried path.
EXACT = 1.0
TAIL_SCORE = {1: 0.8, 2: 0.85}  # a file name alone, a path's last two parts; longer: 0.9
TAIL_LONG = 0.9
MODULE_FILE = 0.9  # a module naming the file (``shop.payments.refunds[.symbol]``)
MODULE_STEM = 0.75  # a dotted name led by the file's stem (``SyncWorker.doWork``)
MODULE_PACKAGE = 0.5  # a module naming the file's folder (``shop.payments``)
MODULE_PACKAGE_SHORT = 0.45  # a one-part package (``ledger``)
IDENTIFIER = 0.7  # an identifier equal to the file's stem (``<PlanPicker>``, ``fct_orders``)
SYMBOL = 0.75  # a name the file defines (``issue_refund``, ``RefundPolicy.max_days``)
PACKAGE_SYMBOL = 0.3  # an upper-case name of the file's package, defined who knows where
# A file name another file of the repository also has (``limits.go`` in two folders), or
# an identifier equal to such a file's stem, says less about which of them is meant.
AMBIGUOUS_NAME = 0.5
INSIDE = 0.8  # a mention inside a queried folder
GLOB = 0.9  # a mention a queried glob matches
# A folder around the path, by how many levels below it the path is (closer is better); a
# folder cited without its leading parts (``payments/``) counts a little less.
FOLDER_SCORE = (0.55, 0.45, 0.38, 0.34)
FLOATING = 0.9


def _folder(depth: int, anchored: bool) -> float:
    score = FOLDER_SCORE[min(depth, len(FOLDER_SCORE)) - 1]
    return score if anchored else score * FLOATING


def _is_identifier(token: str) -> bool:
    return len(token) >= 4 and bool(_SNAKE.match(token) or _CAMEL.match(token))


def _mention_of(raw: str) -> str | None:
    """The mention a token of prose or a tag makes, normalised, or None."""
    if "://" in raw:
        return None
    folder = "/" in raw and raw.rstrip(".*:").endswith("/")
    token = raw.strip("./-*").rstrip(":")
    if not token or token.startswith("@") or "*" in token:
        return None
    if "/" in token or folder:
        parts = [part for part in token.split("/") if part and part != "."]
        if not parts:
            return None
        return "/".join(parts) + ("/" if folder else "")
    if "." in token:
        last = token.rsplit(".", 1)[1]
        named = _FILE_NAME.match(token) and last.lower() not in _NOT_EXTENSIONS
        if named and (last.lower() in EXTENSIONS or not _DOTTED.match(token)):
            return token
        if _DOTTED.match(token) and last.lower() not in _NOT_EXTENSIONS:
            parts = token.split(".")
            if any(len(part) > 1 for part in parts):
                return token
        return None
    return token if token in FILE_NAMES or _is_identifier(token) else None


def extract_mentions(body: str, tags: Iterable[str], title: str = "") -> list[str]:
    """Paths, folders, file names, dotted modules and code identifiers a memory names in its
    title, body and tags, normalised (a folder keeps its trailing ``/``; a module its dots)."""
    found: dict[str, None] = {}
    candidates: list[str] = []
    for text in (title, body):
        prose = _URL.sub(" ", text).replace("::", " ")
        candidates += _PATHLIKE.findall(prose)
    candidates += list(tags)
    for raw in candidates:
        mention = _mention_of(raw)
        if mention:
            found.setdefault(composed_form(mention), None)
        if len(found) >= MAX_MENTIONS:
            break
    return list(found)


# --------------------------------------------------------------------------- matching


@dataclass(frozen=True)
class Mention:
    """A stored mention, parsed: ``kind`` is path, folder, name, module or identifier;
    ``parts`` its lower-case components (a module's dotted parts; an identifier's letters and
    digits alone)."""

    text: str
    kind: str
    parts: tuple[str, ...]


def _lower_parts(path: str) -> list[str]:
    """``path``'s parts in lower case; of a path of thousands of parts only its first and last
    :data:`_MAX_PARTS` (indexing every prefix would cost their square)."""
    parts = [p for p in composed_form(path).strip().lower().split("/") if p and p != "."]
    if len(parts) > 2 * _MAX_PARTS:
        parts = parts[:_MAX_PARTS] + parts[-_MAX_PARTS:]
    return parts


def _stem(name: str) -> str:
    """A file name without its extensions (``CartSummary.test.tsx`` → ``cartsummary``); a name
    that starts with a dot or has none is itself."""
    head = name.split(".", 1)[0]
    return head if head else name


def _squash(word: str) -> str:
    return re.sub(r"[_\-]", "", word.lower())


def parse_mention(text: str) -> Mention | None:
    """``text`` (as :func:`extract_mentions` stores it) parsed for matching."""
    text = text.strip()
    if not text:
        return None
    if "/" in text:
        parts = tuple(_lower_parts(text))
        if not parts:
            return None
        return Mention(text, "folder" if text.endswith("/") else "path", parts)
    if text in FILE_NAMES:
        return Mention(text, "name", (text.lower(),))
    if "." in text:
        last = text.rsplit(".", 1)[1].lower()
        if last in EXTENSIONS or not _DOTTED.match(text):
            return Mention(text, "name", (composed_form(text).lower(),))
        return Mention(text, "module", tuple(p.lower() for p in text.split(".")[:_MAX_PARTS]))
    return Mention(text, "identifier", (_squash(composed_form(text)),))


@dataclass(frozen=True)
class _Query:
    parts: tuple[str, ...]  # lower-case, extension kept on the last part
    stems: tuple[str, ...]  # the same, the last part without its extensions
    is_file: bool  # its last part has an extension (a folder may still be meant)
    is_folder: bool  # written with a trailing slash, or without an extension


def _query(path: str) -> _Query | None:
    parts = _lower_parts(path)
    if not parts:
        return None
    last = parts[-1]
    has_ext = "." in last.lstrip(".")
    stems = (*parts[:-1], _stem(last) if has_ext else last)
    return _Query(tuple(parts), stems, has_ext, path.rstrip().endswith("/") or not has_ext)


def _runs(length: int) -> Iterator[tuple[int, int]]:
    """(start, end) of the contiguous runs worth matching: every run ending in the last
    :data:`_MAX_PARTS` parts, and the runs from the first part (anchored folders)."""
    seen: set[tuple[int, int]] = set()
    for end in range(length, max(0, length - _MAX_PARTS), -1):
        for start in range(max(0, end - _MAX_PARTS), end):
            seen.add((start, end))
            yield start, end
    for end in range(1, min(length, _MAX_PARTS) + 1):
        if (0, end) not in seen:
            yield 0, end


def _score_path(q: _Query, m: Mention, start: int, end: int) -> float:
    """``m`` (a path, folder or file name) equals ``q.parts[start:end]``."""
    k = len(q.parts)
    if end == k:  # the path itself, or its tail
        if start == 0:
            return EXACT
        return TAIL_SCORE[1] if m.kind == "name" else TAIL_SCORE.get(end - start, TAIL_LONG)
    if m.kind == "name":
        return 0.0  # a file name equal to one of the folders
    return _folder(k - end, start == 0)  # a folder around the path


def _score_module(q: _Query, m: Mention, start: int, end: int) -> float:
    """The first ``end - start`` parts of module ``m`` equal ``q.stems[start:end]``."""
    k = len(q.stems)
    length = end - start
    rest = len(m.parts) - length
    if end == k:  # the module names the file (the rest: a symbol in it) or the queried folder
        if q.is_file:
            return MODULE_FILE if length >= 2 else MODULE_STEM
        return INSIDE if rest else MODULE_FILE
    if not rest:  # the module is a package holding the path
        if end == k - 1:
            return MODULE_PACKAGE if length >= 2 else MODULE_PACKAGE_SHORT
        return _folder(k - end, False) * 0.8
    if end == k - 1 and m.text.split(".")[length][:1].isupper():
        return PACKAGE_SYMBOL  # a symbol of the file's package (``ledger.PostEntry``)
    return 0.0  # the module goes on elsewhere: another file or folder


class PathMatcher:
    """The mentions of a set of memories, indexed for matching paths (see the module
    docstring). Build it from ``(rowid, mention)`` pairs; :meth:`match` a path or glob."""

    def __init__(self, mentions: Iterable[tuple[int, str]]) -> None:
        self._all: list[tuple[int, Mention]] = []
        self._paths: dict[tuple[str, ...], list[tuple[int, Mention]]] = {}
        self._inside: dict[tuple[str, ...], list[tuple[int, Mention]]] = {}
        # dotted names by every prefix (a file named by a module's leading parts), by the whole
        # name (a package holding a path), and by the prefixes followed by an upper-case name
        # (a symbol of a package: ``ledger.PostEntry``)
        self._modules: dict[tuple[str, ...], list[tuple[int, Mention]]] = {}
        self._packages: dict[tuple[str, ...], list[tuple[int, Mention]]] = {}
        self._package_symbols: dict[tuple[str, ...], list[tuple[int, Mention]]] = {}
        self._identifiers: dict[str, list[tuple[int, Mention]]] = {}
        self._module_parts: dict[str, list[tuple[int, Mention]]] = {}
        self.citing: set[int] = set()  # rows citing code: a path, file, folder, module or name
        for rowid, text in mentions:
            m = parse_mention(text)
            if m is None:
                continue
            entry = (rowid, m)
            self._all.append(entry)
            self.citing.add(rowid)
            if m.kind == "module":
                written = m.text.split(".")
                for length in range(1, len(m.parts) + 1):
                    self._modules.setdefault(m.parts[:length], []).append(entry)
                    if length < len(m.parts) and written[length][:1].isupper():
                        self._package_symbols.setdefault(m.parts[:length], []).append(entry)
                self._packages.setdefault(m.parts, []).append(entry)
                for part in dict.fromkeys(m.parts):
                    self._module_parts.setdefault(_squash(part), []).append(entry)
            elif m.kind == "identifier":
                self._identifiers.setdefault(m.parts[0], []).append(entry)
            else:
                self._paths.setdefault(m.parts, []).append(entry)
                for length in range(1, len(m.parts)):
                    self._inside.setdefault(m.parts[:length], []).append(entry)

    def __len__(self) -> int:
        return len(self._all)

    def match(
        self, query: str, symbols: Iterable[str] = (), *, ambiguous: bool = False
    ) -> dict[int, dict[str, float]]:
        """``{rowid: {mention: score}}`` of every memory whose mentions match ``query`` (a path,
        a folder or a glob), each mention with its best score. ``symbols``: the names the file
        defines (:func:`defined_symbols`), matched by identifiers and dotted names citing
        them. ``ambiguous``: another file of the repository has the same name, so a file name
        or stem alone counts less."""
        found: dict[int, dict[str, float]] = {}

        def keep(rowid: int, mention: str, score: float) -> None:
            if score > 0.0:
                best = found.setdefault(rowid, {})
                if score > best.get(mention, 0.0):
                    best[mention] = score

        query = query.strip()
        if _WILDCARD.search(query):
            for rowid, m in self._all:
                keep(rowid, m.text, _glob_score(query, m))
            return found
        q = _query(query)
        if q is None:
            return found
        for start, end in _runs(len(q.parts)):
            for rowid, m in self._paths.get(q.parts[start:end], ()):
                score = _score_path(q, m, start, end)
                if ambiguous and m.kind == "name":
                    score = min(score, AMBIGUOUS_NAME)
                keep(rowid, m.text, score)
            # A module that goes on past a folder of the path names something else: only the
            # leading parts of one ending at the file, or a whole one (a package), can match.
            run = q.stems[start:end]
            if end == len(q.stems):
                candidates = self._modules.get(run, ())
            elif end == len(q.stems) - 1:
                candidates = [*self._packages.get(run, ()), *self._package_symbols.get(run, ())]
            else:
                candidates = self._packages.get(run, ())
            for rowid, m in candidates:
                keep(rowid, m.text, _score_module(q, m, start, end))
        if q.is_file:
            # ``PlanPicker.test.tsx`` tests what ``<PlanPicker>`` names: related, not the same
            secondary = q.parts[-1].lstrip(".").count(".") > 1
            strength = AMBIGUOUS_NAME if ambiguous or secondary else IDENTIFIER
            for rowid, m in self._identifiers.get(_squash(q.stems[-1]), ()):
                keep(rowid, m.text, strength)
        for symbol in symbols:
            for rowid, m in self._identifiers.get(symbol, ()):
                keep(rowid, m.text, SYMBOL)
            for rowid, m in self._module_parts.get(symbol, ()):
                keep(rowid, m.text, SYMBOL)
        if q.is_folder:
            for rowid, m in self._inside.get(q.parts, ()):
                keep(rowid, m.text, INSIDE)
        return found


def _glob_score(glob: str, m: Mention) -> float:
    """How strongly ``m`` is about what ``glob`` matches."""
    pattern = composed_form(glob.strip().strip("/")).lower()
    named = "/".join(m.parts)
    # Linear in the name whatever the glob: ``*a*a*a*a*b.py`` must not backtrack.
    if glob_matcher(pattern, segments=False)(named) or glob_matcher(pattern + "/*", segments=False)(
        named
    ):
        return GLOB
    literal: list[str] = []
    for part in pattern.split("/"):
        if _WILDCARD.search(part):
            break
        literal.append(part)
    prefix = tuple(p for p in literal if p and p != ".")
    if not prefix or m.kind in ("module", "identifier", "name"):
        return 0.0
    if m.parts == prefix:
        return EXACT  # the very folder the glob is about
    if len(m.parts) < len(prefix) and prefix[: len(m.parts)] == m.parts:
        return _folder(len(prefix) - len(m.parts), True)
    if prefix == m.parts[: len(prefix)]:
        return INSIDE
    return 0.0


# Names too common to say which file is meant.
_GENERIC_SYMBOLS = frozenset([
    "handle", "handler", "config", "create", "update", "delete", "render", "validate", "process",
    "execute", "client", "server", "default", "helper", "helpers", "setup", "teardown", "start",
    "close", "value", "values", "result", "results", "params", "options", "settings", "props",
    "state", "context", "request", "response", "error", "errors", "index", "model", "models",
    "types", "schema", "schemas", "utils", "data", "items", "count", "total", "name", "names",
])  # fmt: skip
MAX_SYMBOLS = 500


def defined_symbols(text: str, path: str = "") -> frozenset[str]:
    """The names the source file ``path`` defines (``teambrain_schema.code_names``: functions,
    classes, types, constants, assignments), squashed as identifiers are matched (lower case,
    no ``_``); names under five letters and a few generic ones are left out: they would match
    memories about other files."""
    from teambrain_schema.code_names import defined_in

    found: set[str] = set()
    for name in defined_in(text, path):
        squashed = _squash(name)
        if len(squashed) >= 5 and squashed not in _GENERIC_SYMBOLS:
            found.add(squashed)
            if len(found) >= MAX_SYMBOLS:
                break
    return frozenset(found)


def path_score(query: str, mention: str) -> float:
    """How strongly ``mention`` (as :func:`extract_mentions` stores it) is about ``query`` (a
    path, folder or glob): 1.0 exact · 0.9 a glob match, a long path tail or a module naming
    the file · 0.8 a file name, a mention inside a queried folder · 0.75 a dotted name led by
    the file's stem · 0.7 an identifier equal to the stem, the file's own folder · less for
    folders further up and packages · 0 unrelated."""
    found = PathMatcher([(0, mention)]).match(query)
    return max(found.get(0, {}).values(), default=0.0)


def pair_paths(
    matches: Iterable[tuple[str, dict[str, float]]],
) -> tuple[float, list[tuple[str, str, float]]]:
    """Add up what one memory's mentions say about several paths: each path and each mention
    count once, strongest pairs first (a memory naming two of three changed files scores about
    twice one naming one; a folder containing all three counts once). ``matches`` holds, per
    queried path, that memory's ``{mention: score}``; returns the total and the pairs used."""
    triples = sorted(
        ((score, path, mention) for path, found in matches for mention, score in found.items()),
        key=lambda item: -item[0],
    )
    used_paths: set[str] = set()
    used_mentions: set[str] = set()
    pairs: list[tuple[str, str, float]] = []
    for score, path, mention in triples:
        if path in used_paths or mention in used_mentions:
            continue
        used_paths.add(path)
        used_mentions.add(mention)
        pairs.append((path, mention, score))
    return sum(score for _, _, score in pairs), pairs
