import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_cli._proposals.drafts import load_draft_file, parse_draft_text
from teambrain_schema import MemoryDraft, TeambrainError, ValidationFailure
from teambrain_schema.yaml import dump_yaml

titles = (
    st.text(st.characters(whitelist_categories=("L", "N", "Zs", "P")), min_size=1, max_size=80)
    .map(str.strip)
    .filter(bool)
)
bodies = (
    st.text(
        st.characters(whitelist_categories=("L", "N", "Zs", "P"), whitelist_characters="\n`"),
        min_size=1,
        max_size=400,
    )
    .map(str.strip)
    .filter(bool)
)
drafts = st.builds(
    lambda cls, title, body, tags: MemoryDraft.model_validate(
        {"class": cls, "title": title, "body": body, "tags": tags}
    ),
    st.sampled_from(["decision", "convention", "map", "learning"]),
    titles,
    bodies,
    st.lists(st.from_regex(r"[a-z][a-z0-9\-]{0,10}", fullmatch=True), max_size=3, unique=True),
)


def _markdown(draft: MemoryDraft) -> str:
    front = draft.model_dump(mode="json", by_alias=True, exclude={"body"})
    return f"---\n{dump_yaml(front)}---\n\n{draft.body}\n"


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drafts, st.sampled_from(["md", "json", "yaml"]))
def test_every_format_round_trips(tmp_path: Path, draft: MemoryDraft, fmt: str) -> None:
    path = tmp_path / f"draft.{fmt}"
    if fmt == "md":
        path.write_text(_markdown(draft), "utf-8")
    elif fmt == "json":
        path.write_text(json.dumps(draft.model_dump(mode="json", by_alias=True)), "utf-8")
    else:
        path.write_text(dump_yaml(draft.model_dump(mode="json", by_alias=True)), "utf-8")
    loaded = load_draft_file(str(path))
    assert loaded.content_hash() == draft.content_hash()
    assert loaded.class_ == draft.class_ and loaded.tags == draft.tags


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=500), st.sampled_from(["a.md", "a.json", "a.yaml", "-"]))
def test_any_text_is_a_clean_error_or_fields(text: str, source: str) -> None:
    try:
        data = parse_draft_text(text, source)
    except TeambrainError as exc:
        assert exc.exit_code in (1, 3)
        assert exc.message.startswith(source)
    else:
        assert isinstance(data, dict)


def test_secrets_are_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "leak.md"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    path.write_text(f"---\nclass: learning\ntitle: CI\n---\nUse {token}\n")
    with pytest.raises(
        ValidationFailure, match=r"leak\.md: draft\.body: contains a secret"
    ) as info:
        load_draft_file(str(path))
    assert token not in info.value.message


def test_oversized_drafts_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_bytes(b"---\nclass: learning\ntitle: x\n---\n" + b"a " * 200_000)
    with pytest.raises(ValidationFailure, match="larger than 272 KB"):
        load_draft_file(str(path))
