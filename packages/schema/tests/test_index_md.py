from hypothesis import given, strategies as st
from teambrain_schema.index_md import IndexEntry, parse_retirement_reasons, render_index

ENTRY = IndexEntry(id="01JDQ8M6Z1V5K7G3X9T2B4N8RA", memory_class="decision", title="Use [uv]", priority="required",
                   scope="team", tags=("build",), relpath="retired/01JDQ8M6Z1V5K7G3X9T2B4N8RA-use-uv.md")  # fmt: skip


@given(
    st.text(
        st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=200
    ).filter(lambda s: s.split())
)
def test_retirement_reasons_survive_regeneration(reason: str) -> None:
    text = render_index([], [ENTRY], {ENTRY.id: reason})
    assert parse_retirement_reasons(text) == {ENTRY.id: " ".join(reason.split())}
    assert render_index([], [ENTRY], parse_retirement_reasons(text)) == text


def test_required_memories_are_listed_first() -> None:
    advisory = IndexEntry(id="01JDQ8M6Z1V5K7G3X9T2B4N8RB", memory_class="decision", title="A first alphabetically",
                          priority="advisory", scope="org", tags=(), relpath="memories/decisions/x.md")  # fmt: skip
    required = IndexEntry(**{**ENTRY.__dict__, "relpath": "memories/decisions/y.md"})
    text = render_index([advisory, required], [])
    assert text.index("Use \\[uv\\]") < text.index("A first alphabetically")
    assert "scope org" in text
