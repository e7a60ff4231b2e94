"""The documentation pages shipped in this package, by topic, and their text for a terminal.

Topics: each verb's page by the verb (``tb help propose`` is ``docs/cli/propose.md``), each
guide by its file name (``tb help config`` is ``docs/config.md``; a guide named like a verb
gets ``-guide``: ``tb help distill-guide``), the index as ``index``. A page's path is a topic
too (``docs/config.md``, ``cli/propose.md``), and ``#anchor`` picks one section of a page
(``tb help config#machine-local-settings-teambrain_homeuserconfigtoml``, GitHub's anchors).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import PurePosixPath

from teambrain_schema import UserError

PAGES_PACKAGE = "teambrain_cli._help"
PAGES_FOLDER = "pages"
INDEX = "index"
# Where a page that is not shipped (or a file of the repository) can still be read.
REPOSITORY_URL = "https://github.com/teambrain/teambrain/blob/main"


@dataclass(frozen=True)
class Page:
    """One shipped page: its topic, its path under docs/ (``cli/propose.md``), its title."""

    topic: str
    path: str
    title: str

    @property
    def is_verb(self) -> bool:
        return self.path.startswith("cli/")


def _folder() -> resources.abc.Traversable:
    return resources.files(PAGES_PACKAGE).joinpath(PAGES_FOLDER)


def _title(text: str) -> str:
    first = next((line for line in text.splitlines() if line.startswith("# ")), "")
    return first[2:].replace("`", "").strip()


@cache
def pages() -> dict[str, Page]:
    """Every shipped page by topic (verbs, then guides, then the index)."""
    folder = _folder()
    found: dict[str, Page] = {}
    verbs = sorted(p.name for p in folder.joinpath("cli").iterdir() if p.name.endswith(".md"))
    for name in verbs:
        text = folder.joinpath("cli", name).read_text("utf-8")
        found[name[:-3]] = Page(name[:-3], f"cli/{name}", _title(text))
    guides = sorted(p.name for p in folder.iterdir() if p.name.endswith(".md"))
    for name in guides:
        text = folder.joinpath(name).read_text("utf-8")
        stem = INDEX if name == "README.md" else name[:-3]
        topic = f"{stem}-guide" if stem in found else stem
        found[topic] = Page(topic, name, _title(text))
    return found


def topic_of(path: str) -> str | None:
    """The topic of a page by its path under docs/ (``cli/propose.md``), if it is shipped."""
    return next((p.topic for p in pages().values() if p.path == path), None)


def page_text(page: Page) -> str:
    return _folder().joinpath(*page.path.split("/")).read_text("utf-8")


def find_page(words: tuple[str, ...]) -> tuple[Page, str | None]:
    """The page (and the anchor of the section wanted, if any) ``words`` name: a topic, a page
    path (``docs/config.md``), a verb and its subcommand (``candidates show``: that section).
    An unknown topic is a user error with the closest ones."""
    given = " ".join(words).strip()
    name, _, anchor = given.partition("#")
    name = name.strip()
    known = pages()
    page = known.get(name)
    if page is None:
        path = name.removeprefix("docs/").removeprefix("./")
        path = path if path.endswith(".md") else f"{path}.md"
        topic = topic_of(path)
        page = known.get(topic) if topic else None
    if page is None and len(words) > 1 and words[0] in known and known[words[0]].is_verb:
        page = known[words[0]]  # `tb help candidates show`: the subcommand's section
        if not anchor:
            return page, slug(f"tb {' '.join(words)}")
    if page is None:
        close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UserError(f"no help topic {name!r}.{hint} (`tb help topics` lists them)")
    return page, (anchor or None)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, markup and punctuation gone, spaces as ``-``."""
    text = re.sub(r"[`*]|<[^>]*>", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def _fence_after(line: str, fence: str | None) -> tuple[str | None, bool]:
    """(the fence open after ``line``, whether ``line`` is a fence line), CommonMark's way: a
    backtick fence's info string has no backtick; a closing fence is the same character, at
    least as long, and nothing else."""
    found = _FENCE.match(line)
    if found is None:
        return fence, False
    marker, rest = found.group(1), found.group(2)
    if fence is None:
        if marker[0] == "`" and "`" in rest:
            return None, False  # ```` inline code ```` in prose
        return marker, True
    if marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip():
        return None, True
    return fence, False


def section(text: str, anchor: str) -> str | None:
    """The part of ``text`` under the heading whose anchor is ``anchor`` (or starts with it),
    down to the next heading of its level or above; None when no heading has it."""
    lines = text.split("\n")
    fence: str | None = None
    headings: list[tuple[int, int, str]] = []  # (line, level, anchor)
    for number, line in enumerate(lines):
        fence, is_fence = _fence_after(line, fence)
        if is_fence:
            continue
        heading = _HEADING.match(line) if fence is None else None
        if heading:
            headings.append((number, len(heading.group(1)), slug(heading.group(2))))
    wanted = anchor.strip().lower()
    chosen = next((h for h in headings if h[2] == wanted), None) or next(
        (h for h in headings if h[2].startswith(wanted)), None
    )
    if chosen is None:
        return None
    start, level, _ = chosen
    end = next((n for n, lvl, _ in headings if n > start and lvl <= level), len(lines))
    return "\n".join(lines[start:end]).rstrip("\n") + "\n"


_COMMENT = re.compile(r"<!--.*?-->", re.S)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(([^)\s]*)[^)]*\)")
_LINK = re.compile(r"\[([^\]]{1,400})\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _link_target(page: Page, target: str) -> str:
    """Where a link of ``page`` leads, for a terminal: a shipped page as its ``tb help`` topic,
    a web address as itself, a file of the repository as its address on GitHub."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return target
    path, _, anchor = target.partition("#")
    if not path:  # a section of this page
        return f"tb help {page.topic}#{anchor}"
    base = PurePosixPath(page.path).parent
    parts: list[str] = []
    for part in (base / path).parts:
        if part == "..":
            if parts:
                parts.pop()
            else:
                parts.append("..")
        elif part != ".":
            parts.append(part)
    resolved = "/".join(parts)
    topic = topic_of(resolved) if resolved.endswith(".md") else None
    if resolved == "cli":  # the folder of verb pages: the index lists them
        topic = INDEX
    if topic is not None:
        return f"tb help {topic}" + (f"#{anchor}" if anchor else "")
    in_repo = resolved[3:] if resolved.startswith("../") else f"docs/{resolved}"
    return f"{REPOSITORY_URL}/{in_repo}" + (f"#{anchor}" if anchor else "")


def render(page: Page, text: str, *, bold: bool = False) -> str:
    """``text`` (``page``'s Markdown) for a terminal: Markdown still (it reads as plain text),
    with comments and images gone and each link's target said as a reader here can follow it
    — ``config (tb help config)``; with ``bold``, headings bold without their ``#``. Code
    blocks are left as written."""
    import click

    def link(match: re.Match[str]) -> str:
        shown, target = match.group(1), _link_target(page, match.group(2))
        return shown if shown.strip("`") == target else f"{shown} ({target})"

    def prose(lines: list[str]) -> list[str]:
        block = _IMAGE.sub(lambda m: f"[picture: {m.group(1) or m.group(2)}]", "\n".join(lines))
        block = _LINK.sub(link, block)
        out = []
        for line in block.split("\n"):
            heading = _HEADING.match(line)
            if heading and bold:
                out.append(click.style(heading.group(2).replace("`", ""), bold=True))
            else:
                out.append(line)
        return out

    out: list[str] = []
    pending: list[str] = []
    fence: str | None = None
    for line in _COMMENT.sub("", text).split("\n"):
        was_open = fence is not None
        fence, is_fence = _fence_after(line, fence)
        if was_open or is_fence:
            out += prose(pending)
            pending = []
            out.append(line)
        else:
            pending.append(line)
    out += prose(pending)
    return "\n".join(out).rstrip("\n") + "\n"


def topics_text() -> str:
    """``tb help topics``: every topic with its page's title, guides first."""
    known = pages()
    width = max(len(t) for t in known) + 2
    guides = [p for p in known.values() if not p.is_verb]
    verbs = [p for p in known.values() if p.is_verb]
    lines = ["Guides (tb help <topic>):"]
    lines += [f"  {p.topic:<{width}}{p.title}" for p in guides]
    lines += ["", "Verbs (tb help <verb>, or `tb <verb> -h` for its options in brief):"]
    lines += [f"  {p.topic:<{width}}{p.title}" for p in verbs]
    lines += [
        "",
        "A section: tb help <topic>#<anchor>, e.g. tb help config#machine-local-settings.",
    ]
    return "\n".join(lines) + "\n"
