"""Memory bodies rendered as Markdown on the page: formatted, and never markup of their own.

The property tests feed the renderer arbitrary text and text built from the characters
Markdown and HTML care about, then parse what comes out: only the allowed tags, balanced,
only the allowed attributes, links only to http(s) or relative addresses, no script."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given, settings, strategies as st
from teambrain_cli._ui.markdown import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_TAGS,
    VOID_TAGS,
    render_markdown,
    safe_link,
)


class Checked(HTMLParser):
    """Every tag of a fragment, checked as it is read; the text, unescaped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.text: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self.problems.append(f"tag {tag}")
        for name, value in attrs:
            if name not in ALLOWED_ATTRIBUTES.get(tag, set()):
                self.problems.append(f"attribute {name} on {tag}")
            if name == "href":
                self.hrefs.append(value or "")
        if tag not in VOID_TAGS:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.problems.append(f"unbalanced </{tag}>")

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.problems.append("comment")

    def handle_decl(self, decl: str) -> None:
        self.problems.append("declaration")

    def handle_pi(self, data: str) -> None:
        self.problems.append("processing instruction")


def check(html: str) -> Checked:
    parser = Checked()
    parser.feed(html)
    parser.close()
    assert parser.problems == [], (parser.problems, html)
    assert parser.stack == [], ("unclosed", parser.stack, html)
    assert "<script" not in html.lower()
    for href in parser.hrefs:
        assert safe_link(href), href
        assert not href.strip().lower().startswith(("javascript:", "data:", "vbscript:", "file:"))
    return parser


# Pieces Markdown and HTML treat specially, to build hostile bodies from.
PIECES = [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<a href='javascript:x'>",
    "[x](javascript:alert(1))", "[x](JaVaScRiPt:alert(1))", "[x](data:text/html,<b>)",
    "![i](http://evil.example/p.png)", "![i](javascript:x)", "<javascript:alert(1)>",
    "<http://ok.example/>", "[ok](https://ok.example \"t\")", "[rel](docs/a.md)", "`code <b>`",
    "```\n<script>\n```", "```js onload=x\nvar a\n```", "| a | b |\n|:--|--:|\n| 1 | 2 |",
    "# H1", "###### H6", "> quote", "- item", "1. one", "2) two", "**b**", "*i*", "~~s~~",
    '"', "'", "&", "&lt;script&gt;", "&#x3c;", "\\", "\n", "\n\n", "    indented", "---",
    "[", "]", "(", ")", "<", ">", "`", "*", "_", "!", "|", "java\tscript:", "[a]: javascript:x\n[a]",
    "<!-- c -->", "<![CDATA[x]]>", "<?php ?>", "<!DOCTYPE html>", "\u202e", "\x00",
]  # fmt: skip
hostile = st.lists(st.sampled_from(PIECES) | st.text(max_size=8), max_size=25).map("".join)


@settings(max_examples=800, deadline=None)
@given(hostile)
def test_hostile_bodies_render_to_allowed_balanced_markup(body: str) -> None:
    check(render_markdown(body))


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300))
def test_any_text_renders_to_allowed_balanced_markup(body: str) -> None:
    check(render_markdown(body))


def test_markup_in_a_body_is_shown_as_text() -> None:
    html = render_markdown('Escape <script>x()</script> and <img src="x" onerror="y()">.')
    parsed = check(html)
    assert "<script>x()</script>" in "".join(parsed.text)
    assert '<img src="x" onerror="y()">' in "".join(parsed.text)


def test_the_markdown_memory_bodies_use_is_formatted() -> None:
    html = render_markdown(
        "# Payments\n\nAll calls go through `PaymentGateway`. **Never** import an SDK:\n\n"
        "- Stripe\n- Adyen\n\n```python\ngateway.charge(order)\n```\n\n"
        "| env | key |\n|:--|--:|\n| prod | vault |\n\nSee [the ADR](docs/adr/7.md) and "
        "[Stripe](https://stripe.com/docs).\n"
    )
    check(html)
    assert "<h3>Payments</h3>" in html  # below the page's own headings
    assert "<code>PaymentGateway</code>" in html and "<strong>Never</strong>" in html
    assert "<li>Stripe</li>" in html
    assert '<pre><code class="language-python">gateway.charge(order)\n</code></pre>' in html
    assert "<th>env</th>" in html and "style=" not in html
    assert '<a href="docs/adr/7.md" rel="noopener noreferrer">the ADR</a>' in html
    assert '<a href="https://stripe.com/docs" rel="noopener noreferrer">Stripe</a>' in html


def test_links_keep_their_target_only_for_http_and_relative_addresses() -> None:
    for bad in ("javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,x", "file:///etc/passwd", "mailto:a@b.c", "vbscript:x"):  # fmt: skip
        html = render_markdown(f"[click]({bad}) <{bad}>")
        assert "href" not in html, html
        assert not safe_link(bad)
    assert safe_link("https://a.example/x") and safe_link("#part") and safe_link("../x.md")


def test_images_are_never_loaded_only_linked() -> None:
    html = render_markdown("![diagram](https://cdn.example/d.png) ![bad](javascript:x)")
    parsed = check(html)
    assert "<img" not in html
    assert parsed.hrefs == ["https://cdn.example/d.png"]
    assert "[image: diagram]" in html and "![bad](javascript:x)" in html  # text, no link


def test_a_fence_info_string_names_a_class_and_nothing_else() -> None:
    html = render_markdown('```js" onmouseover="x\nvar a\n```\n')
    check(html)
    assert "onmouseover" not in html and "class=" not in html


def _text(html: str) -> str:
    parser = check(html)
    return "".join(parser.text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(categories=["L", "N"]) | st.just(" "), max_size=200))
def test_plain_prose_keeps_every_word(body: str) -> None:
    assert _text(render_markdown(body)).split() == body.split()
