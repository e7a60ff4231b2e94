"""`tb propose --fix-citations` edits: only whole cited paths move, and the file's own bytes
stay everywhere else (the reviewer's diff is the paths, nothing more)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st
from teambrain_schema.frontmatter import parse_memory
from teambrain_sync._proposals import _edited_file, _moved_text


@pytest.mark.parametrize(
    ("text", "old", "new", "expected"),
    [
        ("Run `app.py`, not webapp.py or `myapp.py`.", "app.py", "main.py",
         "Run `main.py`, not webapp.py or `myapp.py`."),
        ("See src/shop/cart.py and src/shop/cart.py.bak.", "src/shop/cart.py", "src/shop/basket.py",
         "See src/shop/basket.py and src/shop/cart.py.bak."),
        ("In ./src/shop/cart.py:42 and tests/x/src/shop/cart.py.", "src/shop/cart.py", "lib/cart.py",
         "In ./lib/cart.py:42 and tests/x/src/shop/cart.py."),
        ("`src/shop/checkout/` holds src/shop/checkout/cart.py.", "src/shop/checkout/",
         "src/shop/basket/", "`src/shop/basket/` holds src/shop/basket/cart.py."),
        ("The end: docs/café.md.", "docs/café.md", "handbook/café.md", "The end: handbook/café.md."),
    ],
)  # fmt: skip
def test_only_whole_cited_paths_move(text: str, old: str, new: str, expected: str) -> None:
    assert _moved_text(text, ((old, new),)) == expected


_SEGMENT = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
_PATH = st.builds(lambda parts, ext: "/".join(parts) + ext,
                  st.lists(_SEGMENT, min_size=1, max_size=3), st.sampled_from([".py", ".md", "/"]))  # fmt: skip
_PROSE = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@given(_PATH, _PATH, _PROSE, _PROSE)
def test_a_path_between_spaces_moves_and_one_inside_a_longer_name_does_not(
    old: str, new: str, before: str, after: str
) -> None:
    if old in before or old in after or old in new:
        return
    assert _moved_text(f"{before} {old} {after}", ((old, new),)) == f"{before} {new} {after}"
    longer = f"x{old}"  # the same letters inside a longer name
    assert _moved_text(f"{before} {longer} {after}", ((old, new),)) == f"{before} {longer} {after}"


MEMORY = """---
id: 01KB2F0A1S9Y4Q7V3C8D5E6F03
class: map
# where the shop's checkout lives
title: Where checkout lives
scope: team
status: active
priority: advisory
created: 2026-11-02
---

Checkout is `src/shop/checkout/`.
"""


def test_the_front_matter_is_kept_as_written() -> None:
    document = parse_memory(MEMORY)
    body = _moved_text(document.body, (("src/shop/checkout/", "src/shop/basket/"),))
    assert _edited_file(document, document.front, body) == MEMORY.replace("checkout/`", "basket/`")
    tagged = document.front.model_copy(update={"tags": ["src/shop/basket"]})
    edited = parse_memory(_edited_file(document, tagged, body))
    assert edited.front.tags == ["src/shop/basket"] and edited.body == body
    text = _edited_file(document, tagged, body)
    assert "# where the shop's checkout lives" in text
    assert "supersedes" not in text and "ttl_days" not in text  # no empty fields added
