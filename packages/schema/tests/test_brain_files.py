from pathlib import Path

import pytest
from teambrain_schema import MemoryFrontMatter
from teambrain_schema.brain import BrainFile, brain_file_from_text, load_brain
from teambrain_schema.frontmatter import new_memory_text
from teambrain_schema.paths import BrainLayout

ID1, ID2 = "01JDQ8M6Z1V5K7G3X9T2B4N8RA", "01JDQ8M6Z1V5K7G3X9T2B4N8RB"


def _memory(memory_id: str, status: str = "active") -> str:
    front = MemoryFrontMatter.model_validate(
        {"id": memory_id, "class": "decision", "scope": "team", "status": status,
         "priority": "advisory", "title": "Use uv", "created": "2026-11-01"}
    )  # fmt: skip
    return new_memory_text(front, "Use uv.")


def _summary(brain_file: BrainFile | None) -> tuple[object, ...] | None:
    if brain_file is None:
        return None
    document = brain_file.document
    front = document.front.model_dump() if document is not None else None
    return (brain_file.relpath, brain_file.location, brain_file.folder, brain_file.problem, front)


FILES = {
    f"memories/decisions/{ID1}-use-uv.md": _memory(ID1),
    f"memories/{ID1}-loose.md": _memory(ID1),
    f"memories/decisions/deeper/{ID2}-nested.md": _memory(ID2),
    "memories/conventions/broken.md": "---\nid: [unclosed\n---\nbody\n",
    "memories/learnings/no-front-matter.md": "just text\n",
    f"retired/{ID2}-old.md": _memory(ID2, "retired"),
    f"retired/sub/{ID2}-older.md": _memory(ID2, "retired"),
}


def test_brain_file_from_text_is_what_load_brain_reads(tmp_path: Path) -> None:
    layout = BrainLayout(tmp_path)
    for relpath, text in FILES.items():
        path = layout.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    loaded = load_brain(layout).files
    assert len(loaded) == len(FILES)
    for brain_file in loaded:
        text = (layout.repo_root / brain_file.relpath).read_text("utf-8")
        built = brain_file_from_text(layout, brain_file.relpath, text)
        assert _summary(built) == _summary(brain_file)
    assert {f.folder for f in loaded} == {"decisions", "conventions", "learnings", None}
    assert any(f.problem is not None for f in loaded)


@pytest.mark.parametrize(
    "relpath",
    [
        ".teambrain/INDEX.md",
        ".teambrain/brain.yaml",
        ".teambrain/memories",
        ".teambrain/retired",
        ".teambrain/memories/decisions/.gitkeep",
        ".teambrain/retired/.DS_Store",
        ".teambrain/prompts/distill.md",
        "docs/memories/decisions/x.md",
    ],
)
def test_brain_file_from_text_ignores_what_load_brain_does_not_read(
    tmp_path: Path, relpath: str
) -> None:
    assert brain_file_from_text(BrainLayout(tmp_path), relpath, _memory(ID1)) is None
