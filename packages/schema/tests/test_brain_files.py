import shutil
from pathlib import Path

import pytest
from teambrain_kit.paths import BrainLayout
from teambrain_schema import MemoryFrontMatter
from teambrain_schema.brain import BrainFile, brain_file_from_text, load_brain
from teambrain_schema.frontmatter import new_memory_text

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


def _linked_brain(tmp_path: Path) -> BrainLayout:
    repo = tmp_path / "repo"
    (repo / ".teambrain" / "memories" / "decisions").mkdir(parents=True)
    (repo / ".teambrain" / "retired").mkdir()
    return BrainLayout(repo)


def test_a_brain_folder_inside_the_brain_is_walked_through_its_link(tmp_path: Path) -> None:
    layout = _linked_brain(tmp_path)
    assert layout.leads_out(layout.memories) is None  # no link at all
    kept = layout.root / "kept"
    layout.memories.rename(kept)
    layout.memories.symlink_to(kept)  # a link that stays in the brain
    (kept / "decisions" / f"{ID1}-use-uv.md").write_text(_memory(ID1))
    assert layout.leads_out(layout.memories) is None
    brain = load_brain(layout)
    assert [f.relpath for f in brain.files if f.is_usable] == [
        f".teambrain/memories/decisions/{ID1}-use-uv.md"
    ]


@pytest.mark.parametrize("folder", ["memories", "retired"])
def test_a_brain_folder_linked_out_is_one_problem_and_never_walked(
    tmp_path: Path, folder: str
) -> None:
    layout = _linked_brain(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "decisions").mkdir(parents=True)
    (elsewhere / "decisions" / f"{ID1}-planted.md").write_text(_memory(ID1))
    link = layout.root / folder
    shutil.rmtree(link)
    link.symlink_to(elsewhere)
    assert layout.leads_out(link) == str(elsewhere.resolve())
    brain = load_brain(layout)
    named = [f.relpath for f in brain.files]
    assert named == [f".teambrain/{folder}"]  # the link itself, nothing found through it
    problem = brain.files[0].problem
    assert problem is not None and problem.rule == "symlink"


def test_a_brain_linked_out_of_the_repository_is_not_walked(tmp_path: Path) -> None:
    outside = tmp_path / "outside-brain"
    (outside / "memories" / "decisions").mkdir(parents=True)
    (outside / "memories" / "decisions" / f"{ID1}-use-uv.md").write_text(_memory(ID1))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".teambrain").symlink_to(outside)
    layout = BrainLayout(repo)
    assert layout.leads_out(layout.memories) == str((outside / "memories").resolve())
    brain = load_brain(layout)
    assert [f.relpath for f in brain.files] == [".teambrain/memories"]  # retired/: none there
    problem = brain.files[0].problem
    assert problem is not None and problem.rule == "symlink"


def test_a_brain_of_more_files_than_the_bound_reads_the_bound_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit of 200,000 empty files had every verb take minutes: past MAX_BRAIN_FILES
    nothing more is read, and the folder where reading stopped is one problem."""
    import teambrain_schema.brain as brain_module

    monkeypatch.setattr(brain_module, "MAX_BRAIN_FILES", 5, raising=False)
    layout = _linked_brain(tmp_path)
    (layout.memories / "decisions" / f"{ID1}-use-uv.md").write_text(_memory(ID1))
    learnings = layout.memories / "learnings"
    learnings.mkdir()
    for n in range(50):
        (learnings / f"e{n:03}.md").write_text("")
    brain = load_brain(layout)
    assert len(brain.files) == 6  # five files, then the folder where the bound was reached
    assert brain.files[0].is_usable
    last = brain.files[-1]
    assert last.relpath == ".teambrain/memories/learnings"
    assert last.problem is not None
    assert "more than 5 files: the rest of this folder was not read" in last.problem.message


def test_a_folder_nested_past_the_bound_is_one_problem_never_a_recursion(tmp_path: Path) -> None:
    """os.walk recursed once per level: 5,000 committed folders ended every verb in
    "internal error: RecursionError"."""
    import os

    from teambrain_kit.paths import MAX_WALK_DEPTH

    layout = _linked_brain(tmp_path)
    (layout.memories / "decisions" / f"{ID1}-use-uv.md").write_text(_memory(ID1))
    cwd = os.getcwd()
    os.chdir(layout.memories / "decisions")
    try:
        for _ in range(1_200):
            os.mkdir("d")
            os.chdir("d")
        for _ in range(1_200):
            os.chdir("..")
        brain = load_brain(layout)
    finally:  # shutil.rmtree, pytest's cleanup, recurses once per level too: undo by hand
        os.chdir(layout.memories / "decisions")
        depth = 0
        while os.path.isdir("d"):
            os.chdir("d")
            depth += 1
        for _ in range(depth):
            os.chdir("..")
            os.rmdir("d")
        os.chdir(cwd)
    problems = [f for f in brain.files if f.problem is not None]
    assert [f.is_usable for f in brain.files if f.problem is None] == [True]
    assert len(problems) == 1
    assert problems[0].relpath == ".teambrain/memories/decisions" + "/d" * (MAX_WALK_DEPTH - 1)
    problem = problems[0].problem
    assert (
        problem is not None and f"folders nested more than {MAX_WALK_DEPTH} deep" in problem.message
    )


def test_prompt_templates_a_commit_made_unreadable_are_lint_problems(tmp_path: Path) -> None:
    """A committed prompt linked to /dev/zero, out of the brain, to itself or to nothing, or
    a FIFO, breaks `tb distill` on every machine: lint names each one, and never blocks."""
    import os

    from teambrain_schema.lint import lint_brain

    layout = _linked_brain(tmp_path)
    prompts = layout.prompts
    prompts.mkdir()
    (prompts / "distill-session.md").write_text("The session: $session\n")
    (prompts / "zero.md").symlink_to("/dev/zero")
    (prompts / "out.md").symlink_to(tmp_path / "outside.md")
    (tmp_path / "outside.md").write_text("planted\n")
    (prompts / "loop1.md").symlink_to("loop2.md")
    (prompts / "loop2.md").symlink_to("loop1.md")
    (prompts / "gone.md").symlink_to("nothing.md")
    os.mkfifo(prompts / "fifo.md")
    found = {
        v.path.rsplit("/", 1)[-1]: (v.rule, v.message)
        for v in lint_brain(layout).violations
        if "/prompts/" in v.path
    }
    assert sorted(found) == ["fifo.md", "gone.md", "loop1.md", "loop2.md", "out.md", "zero.md"]
    assert found["fifo.md"] == ("read", "not a regular file")
    assert found["zero.md"][0] == found["out.md"][0] == "symlink"
    assert "loop of symbolic links" in found["loop1.md"][1]
    assert "to nothing that exists" in found["gone.md"][1]


def test_a_prompts_folder_linked_out_of_the_brain_is_one_problem(tmp_path: Path) -> None:
    from teambrain_schema.lint import lint_brain

    layout = _linked_brain(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "distill-system.md").write_text("planted\n")
    layout.prompts.symlink_to(elsewhere)
    found = [(v.path, v.rule) for v in lint_brain(layout).violations if "prompts" in v.path]
    assert found == [(".teambrain/prompts", "symlink")]
