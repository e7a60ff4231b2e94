"""Memory bodies as Markdown on the page, without letting a body become markup of its own.

A body is data a teammate or an agent wrote: the page shows it formatted (paragraphs, lists,
emphasis, code, tables, links) and nothing else. The parser is markdown-it-py's CommonMark with
tables and strikethrough, and:

- raw HTML is off: ``<script>``, ``<img onerror=…>`` and every other tag in a body is text;
- a link keeps its target only when it is ``http(s)://`` or relative (``docs/x.md``, ``#part``):
  ``javascript:``, ``data:``, ``file:``, ``mailto:`` and the like are shown as text;
- an image is never loaded (nothing is fetched from elsewhere, and the policy allows this
  server's images only): it becomes a link to its address (a safe one) with its alt text;
- headings start at level 3 (the page's own titles are 1 and 2), and table cells lose the
  ``style`` alignment the policy would refuse anyway;
- code is escaped like all text; a fence's info string only names a ``language-`` class.

What comes out is checked by property tests (tests/test_ui_markdown.py): for any input, only
the tags and attributes listed here, balanced, no ``on…`` attribute, no other scheme.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# What the page's Markdown may contain: every tag markdown-it's CommonMark renderer (with
# tables and strikethrough) writes, and the attributes it may carry.
ALLOWED_TAGS = frozenset(
    [
        "p",
        "br",
        "hr",
        "h3",
        "h4",
        "h5",
        "h6",
        "em",
        "strong",
        "s",
        "code",
        "pre",
        "blockquote",
        "ul",
        "ol",
        "li",
        "a",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
    ]
)
ALLOWED_ATTRIBUTES = {"a": {"href", "rel", "class"}, "code": {"class"}, "ol": {"start"}}
VOID_TAGS = frozenset({"br", "hr"})
HEADING_OFFSET = 2
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_LANGUAGE = re.compile(r"[A-Za-z0-9_+\-]{1,32}")


def safe_link(url: str) -> bool:
    """Whether a link may keep ``url`` as its target: ``http``/``https``, or no scheme at all
    (relative). Markdown-it has encoded it already (a tab or space inside a scheme is ``%09``,
    which no browser reads as a scheme)."""
    found = _SCHEME.match(url.strip())
    return found is None or found.group(1).lower() in ("http", "https")


def _heading(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    level = min(6, int(token.tag[1]) + HEADING_OFFSET)
    return f"<h{level}>" if token.nesting == 1 else f"</h{level}>\n"


def _image(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """An image as a link to it (never loaded), labelled with its alt text."""
    token = tokens[idx]
    alt = escape(token.content or "image")
    src = str(token.attrs.get("src", ""))
    if not src or not safe_link(src):
        return f"[image: {alt}]"
    return f'<a href="{escape(src)}" class="image" rel="noopener noreferrer">[image: {alt}]</a>'


def _link_open(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    href = str(token.attrs.get("href", ""))
    return f'<a href="{escape(href)}" rel="noopener noreferrer">'


def _fence(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    words = token.info.strip().split()
    language = words[0] if words and _LANGUAGE.fullmatch(words[0]) else None
    kind = f' class="language-{language}"' if language else ""
    return f"<pre><code{kind}>{escape(token.content)}</code></pre>\n"


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = safe_link  # type: ignore[method-assign]
    md.add_render_rule("heading_open", _heading)
    md.add_render_rule("heading_close", _heading)
    md.add_render_rule("image", _image)
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("fence", _fence)
    return md


def render_markdown(text: str) -> str:
    """``text`` as safe HTML (see the module's docstring)."""
    md = _parser()
    tokens = md.parse(text)
    for token in tokens:  # table alignment: a style attribute the policy refuses anyway
        if token.type in ("th_open", "td_open") and token.attrs:
            token.attrs.pop("style", None)
    html: str = md.renderer.render(tokens, md.options, {})
    return html


class SafeHtml:
    """Markup the page made itself (rendered Markdown, a ``<time>``) for a template: not a
    ``str`` (so the page's finalize step, which turns every string back into text, leaves it
    alone) but markup through ``__html__``."""

    def __init__(self, html: str) -> None:
        self.html = html

    def __html__(self) -> str:
        return self.html

    def __str__(self) -> str:
        return self.html
