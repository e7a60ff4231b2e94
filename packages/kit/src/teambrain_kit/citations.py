"""Citations: what a memory says about the code, read from its body (stdlib only, no git).

A memory cites paths and globs (in backticks, or in prose as ``a/b/`` or ``a/b.py``), Python
``module.symbol`` names, ``Class.method`` members and code-shaped names (``charge_card()``),
``make`` targets, ``npm run`` scripts and ``python -m`` modules in backticks, the files a
command reads (``pytest -q tests/test_cart.py``, ``python manage.py migrate``, ``ruff check
src/``), in backticks or on the lines of a shell (or unlabelled) fenced block, and evidence
commits. :func:`extract_citations` lists them;
:mod:`teambrain_kit.citation_checker` checks them against the repository.

What is not a citation, so never stale: URLs, absolute or home paths, a dotted name whose
module is not a file of this repository (``structlog.get_logger``), code in fenced blocks of
other languages, what a command writes, creates or removes (``-o out/``, ``mkdir``, ``cp``,
``rm``, ``git checkout -b``).
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
    (``Class.method``), name (a code-shaped identifier), command (a make target), script,
    module, argument (a file a cited command reads: ``pytest -q tests/test_cart.py``) or commit;
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
    return _cut_fences(body)[0]


def _cut_fences(body: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """(``body`` without its fenced code blocks, each block's info string and lines)."""
    if "```" not in body and "~~~" not in body:
        return body, []
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
    blocks: list[tuple[str, list[str]]] = []
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
                blocks.append((match.group(2).strip(), lines[index + 1 : end]))
                index = end + 1  # the block and its fences go
                continue
        kept.append(lines[index])
        index += 1
    return "\n".join(kept), blocks


# Fenced blocks whose lines are commands a reader runs (no language named counts too): their
# command lines cite what they name, as a command in backticks does. Other languages are
# examples of code, never citations.
_SHELL_FENCES = frozenset(
    ["", "sh", "bash", "shell", "zsh", "fish", "ksh", "console", "shellsession",
     "shell-session", "terminal", "session"]
)  # fmt: skip
_PROMPT = re.compile(r"^\s*(?:\$|%|❯|>>>)\s+")
_COMMENT = re.compile(r"(?:^|\s+)#.*$")
_COMMAND_SEPARATOR = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Commands whose arguments are files of the repository they read (pytest, linters, runners).
# Not viewers (cat, tail: they often read what a run writes, logs), nor commands that create,
# copy, move or delete what they name (mkdir, touch, cp, mv, rm, git checkout -b …): what
# they name need not exist.
_READS_FILES = frozenset(
    ["pytest", "py.test", "python", "python3", "ruff", "mypy", "black", "isort", "flake8",
     "pylint", "bandit", "pyright", "pyre", "eslint", "prettier", "stylelint", "tsc", "jest",
     "vitest", "mocha", "ava", "playwright", "cypress", "node", "ts-node", "tsx", "deno", "go",
     "rspec", "rubocop", "ruby", "rails", "php", "phpunit", "phpstan", "phpcs", "bash", "sh",
     "zsh", "source", ".", "shellcheck", "hadolint", "yamllint", "markdownlint", "perl",
     "Rscript", "julia", "swift", "kotlinc", "javac", "java"]
)  # fmt: skip
# Folders a build or a run makes, never committed: a command reading `dist/server.js` or
# `log/development.log` names what the repository does not hold.
_MADE_FOLDERS = frozenset(
    ["dist", "build", "out", "target", "node_modules", ".venv", "venv", "coverage", "htmlcov",
     "log", "logs", "tmp", ".next", ".nuxt", ".cache", "__pycache__", ".pytest_cache", "vendor"]
)  # fmt: skip
# Commands whose files are named only after an option: docker compose -f, kubectl apply -f…
_FILE_OPTIONS = {
    "docker": ("-f", "--file", "--env-file"), "docker-compose": ("-f", "--file", "--env-file"),
    "podman": ("-f", "--file"), "kubectl": ("-f", "--filename", "-k", "--kustomize"),
    "helm": ("-f", "--values"), "pip": ("-r", "--requirement", "-c", "--constraint"),
    "pip3": ("-r", "--requirement", "-c", "--constraint"), "ansible-playbook": ("-i",),
}  # fmt: skip
# Runners whose next word is the real command: `uv run pytest`, `npx jest`, `bundle exec rspec`.
_WRAPPERS = {
    "uv": ("run",), "poetry": ("run",), "pipenv": ("run",), "hatch": ("run",), "pdm": ("run",),
    "rye": ("run",), "npx": (), "pnpx": (), "bunx": (), "bundle": ("exec",), "coverage": ("run",),
    "time": (), "nice": (), "exec": (), "command": (), "dotenv": ("--",), "pixi": ("run",),
}  # fmt: skip
_PACKAGE_MANAGERS = frozenset(["npm", "pnpm", "yarn", "bun"])
# Options whose value is written, not read (a report, an output folder): never a citation.
_OUTPUT_OPTIONS = frozenset(
    ["-o", "--output", "--out", "--outdir", "--out-dir", "--outfile", "--junitxml",
     "--junit-xml", "--cov-report", "--html", "--report", "--log-file", "--basetemp",
     "--output-file", "--out-file", "--snapshot-update", "-w", "--write"]
)  # fmt: skip
_SCRIPT_FOLDERS = frozenset(["bin", "scripts", "script", "tools", "tasks", "hack", "ci", ".ci"])


def _quote(word: str) -> str:
    import shlex

    return shlex.quote(word)


def _words(command: str) -> list[str]:
    import shlex

    try:
        return shlex.split(command, comments=True)
    except ValueError:  # an unclosed quote: words as written
        return command.split()


def _go_target(word: str) -> str:
    """``./internal/pay/...`` → ``internal/pay/``: a Go package pattern as its folder."""
    if word.endswith("/..."):
        word = word[: -len("...")]
    return word


def _command_paths(command: str) -> list[str]:
    """The repository paths one shell command reads (its file arguments, as written), for the
    commands that read files: ``pytest -q tests/test_cart.py``, ``python manage.py migrate``,
    ``npm run test -- src/x.test.ts``, ``ruff check src/``, ``./scripts/deploy.sh staging``."""
    words = _words(command)
    while words and _ASSIGNMENT.match(words[0]):  # FOO=1 pytest …
        words = words[1:]
    for _ in range(4):  # uv run poetry run …: the real command
        if not words or words[0] not in _WRAPPERS:
            break
        then = _WRAPPERS[words[0]]
        words = words[1 + (1 if then and len(words) > 1 and words[1] in then else 0) :]
        while words and words[0].startswith("-"):  # npx --yes jest
            words = words[1:]
    if not words:
        return []
    head, args = words[0], words[1:]
    found: list[str] = []
    if _is_script(head):  # a script of the repository
        return [head]
    if head in _PACKAGE_MANAGERS:
        if args and (args[0] in ("exec", "dlx", "x") or args[0] in _READS_FILES):
            # pnpm exec vitest run a.ts, yarn jest a.ts: the tool named is the command
            rest = args[1:] if args[0] in ("exec", "dlx", "x") else args
            return _command_paths(" ".join(_quote(word) for word in rest)) if rest else []
        # npm run test -- src/x.test.ts: what follows "--" goes to the script
        args = args[args.index("--") + 1 :] if "--" in args else []
    elif head in _FILE_OPTIONS:
        options = _FILE_OPTIONS[head]
        for index, word in enumerate(args[:-1]):
            if word in options:
                found.append(args[index + 1])
        found += [w.split("=", 1)[1] for w in args if w.split("=", 1)[0] in options and "=" in w]
        return found
    elif head not in _READS_FILES:
        return []
    skip = False
    for word in args:
        if skip:
            skip = False
            continue
        if word in (">", ">>", "2>", "&>", "1>"):  # redirections write
            skip = True
            continue
        if word.startswith(("-", ">", "<", "2>")):
            name, _, value = word.partition("=")
            if name in _OUTPUT_OPTIONS:
                skip = not value
                continue
            if head in ("python", "python3") and name in ("-c",):
                break  # the rest is code
            if value:
                found.append(value)
            continue
        found.append(_go_target(word) if head == "go" else word)
    return found


def _is_script(word: str) -> bool:
    """``./run.sh``, ``bin/setup``, ``scripts/seed.py``: a script of the repository run by its
    path."""
    return word.startswith("./") or ("/" in word and word.split("/", 1)[0] in _SCRIPT_FOLDERS)


def _commands_in(span: str) -> list[str]:
    """The commands of one line (``cd web && npm test -- a.ts`` is two), prompt and trailing
    comment gone."""
    line = _COMMENT.sub("", _PROMPT.sub("", span))
    return [part for part in _COMMAND_SEPARATOR.split(line) if part.strip()]


def extract_citations(body: str, evidence_commits: Sequence[str] = ()) -> list[Citation]:
    """Every citation in a memory body, plus its evidence commits; each target once, in order
    of appearance. A command cites the files it reads (``pytest -q tests/test_cart.py`` cites
    ``tests/test_cart.py``), in backticks or on a line of a shell (or unlabelled) fenced
    block; other code in fenced blocks is an example, not a citation."""
    text, fences = _cut_fences(body)
    found: list[Citation] = []
    seen: set[tuple[str, str]] = set()

    def add(kind: str, written: str, target: str) -> None:
        if ".." in target.split("/"):  # `pnpm run ..`: never a name that climbs out of a folder
            return
        if (kind, target) not in seen:
            seen.add((kind, target))
            found.append(Citation(kind, written, target))

    def add_command(span: str, *, fenced: bool = False) -> bool:
        """``span`` as commands: what each cites; False when the first is no command (a lone
        word is one only on a fenced line, and only a script: ``bin/setup``, ``./run.sh``)."""
        commands = _commands_in(span)
        cwd: str | None = ""  # the folder `cd` moved to, relative to where the line starts
        for position, part in enumerate(commands):
            command = part.strip()
            script = _SCRIPT.match(command)
            module = _PYTHON_M.match(command)
            make = _MAKE.match(command)
            if script:
                add("script", span, script.group(1))
            elif module:
                add("module", span, module.group(1))
            elif make:
                target = _make_target(make.group(1).split())
                if target:
                    add("command", span, target)
            elif (
                position == 0
                and " " not in command.strip()
                and not (fenced and _is_script(command.strip()))
            ):
                return False  # one word: a name or a path, not a command line
            if cwd is None:
                continue  # `cd ../x`, `cd $DIR`: where the rest runs is not known
            words = _words(command)
            if words and words[0] == "cd":
                folder = _path_target(words[1] + "/") if len(words) > 1 else None
                cwd = None if folder is None or ".." in folder.split("/") else cwd + folder
                continue
            for written in _command_paths(command):
                path = _path_target(written)
                if (
                    path is not None
                    and not any(c in _GLOB_CHARS for c in path)
                    and path.split("/", 1)[0] not in _MADE_FOLDERS
                ):
                    add("argument", span, cwd + path)
        return True

    for match in _SPAN.finditer(text):
        span = match.group(1).strip()
        if (_SCRIPT.match(span) or _PYTHON_M.match(span) or _MAKE.match(span) or " " in span) and (
            add_command(span)
        ):
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
    for info, lines in fences:
        if info.split(" ", 1)[0].strip("{}.").lower() not in _SHELL_FENCES:
            continue
        for line in lines:
            stripped = line.strip()
            if stripped and not stripped.startswith("#") and "`" not in stripped:
                add_command(stripped, fenced=True)
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
