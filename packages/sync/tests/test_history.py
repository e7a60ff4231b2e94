"""A memory's history in git: added, edited, retired (a move git follows), and the merge or
pull request that brought each change into the branch."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from hypothesis import example, given, settings, strategies as st
from teambrain_kit.paths import BrainLayout
from teambrain_sync import memory_history, open_repo


def _relpath(repo: Path, memory_id: str) -> str:
    layout = BrainLayout(repo)
    found = next(p for p in layout.root.rglob(f"{memory_id}-*.md"))
    return found.relative_to(repo).as_posix()


def test_history_follows_edits_merges_and_a_retirement(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    git, repo = kit.git, brain_repo
    path = _relpath(repo, kit.MEMORY_A)
    # A reviewed edit: on a branch, merged as GitHub does ("Merge pull request #7 from …").
    git("checkout", "-q", "-b", "teambrain/edit", cwd=repo)
    (repo / path).write_text((repo / path).read_text() + "\nAlso in CI.\n")
    kit.commit_all(repo, "teambrain: edit the clock memory", when="2026-02-01T10:00:00Z")
    git("checkout", "-q", "main", cwd=repo)
    git("merge", "-q", "--no-ff", "-m", "Merge pull request #7 from acme/teambrain/edit",
        "teambrain/edit", cwd=repo)  # fmt: skip
    # A squash-merged retirement: one commit on main whose subject names the PR.
    retired = f".teambrain/retired/{Path(path).name}"
    git("mv", path, retired, cwd=repo)
    (repo / retired).write_text(
        (repo / retired).read_text().replace("status: active", "status: retired")
    )
    kit.commit_all(repo, "teambrain: retire the clock memory (#9)", when="2026-03-01T10:00:00Z")

    history = memory_history(open_repo(repo), retired)
    assert [e.change for e in history] == ["retired", "edited", "added"]
    retire, edit, add = history
    assert retire.pull_request == 9 and retire.merged_by is None
    assert retire.old_path == path and retire.path == retired
    assert edit.merged_by is not None and edit.merged_by.pull_request == 7
    assert edit.to_json()["pull_request"] == 7
    assert add.merged_by is None and add.subject == "brain"  # committed on main itself
    assert add.date.year == 2026 and add.author == "Test Author"

    # As of the merge: the retirement has not happened yet, and the path is the old one.
    merge = git("rev-parse", "HEAD~1", cwd=repo).strip()
    then = memory_history(open_repo(repo), path, until=merge)
    assert [e.change for e in then] == ["edited", "added"]


def test_history_keeps_the_start_when_every_commit_has_the_same_date(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    """A retirement merged from a branch within the same second as the commit that added the
    file: in date order git walks the main line's commit before the rename switches the path
    and loses where the memory began; the history still ends with "added"."""
    git, repo, when = kit.git, brain_repo, "2026-02-01T10:00:00Z"
    same = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    git("commit", "-q", "--amend", "--no-edit", "--reset-author", cwd=repo, env=same)
    path = _relpath(repo, kit.MEMORY_A)
    git("checkout", "-q", "-b", "teambrain/retire", cwd=repo)
    retired = f".teambrain/retired/{Path(path).name}"
    git("mv", path, retired, cwd=repo)
    kit.commit_all(repo, "teambrain: retire the clock memory", when=when)
    git("checkout", "-q", "main", cwd=repo)
    git("merge", "-q", "--no-ff", "-m", "Merge pull request #3 from acme/teambrain/retire",
        "teambrain/retire", cwd=repo, env=same)  # fmt: skip

    history = memory_history(open_repo(repo), retired)
    assert [e.change for e in history] == ["retired", "added"]
    assert history[0].merged_by is not None and history[0].merged_by.pull_request == 3


def test_history_of_an_uncommitted_file_or_an_unknown_revision_is_empty(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    new = kit.write_memory(brain_repo, "01KB2F0A1S9Y4Q7V3C8D5E6F09", "New thing", "Body.")
    relpath = new.relative_to(brain_repo).as_posix()
    assert memory_history(open_repo(brain_repo), relpath) == []
    path = _relpath(brain_repo, kit.MEMORY_A)
    assert memory_history(open_repo(brain_repo), path, until="no-such-branch") == []


@settings(max_examples=10, deadline=None)
@given(
    subject=st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\n\r"),
        min_size=1,
        max_size=80,
    ).filter(lambda s: s.strip() == s and s.strip())
)
@example(subject="fix\x1ethe\x1fparser (#3)")
def test_any_subject_reads_back_as_written(tmp_path_factory: object, subject: str) -> None:
    """Commit subjects are text from anyone: whatever one holds (separators included), the
    history keeps one entry per commit and the author and date parse."""
    import subprocess

    repo = tmp_path_factory.mktemp("subject")  # type: ignore[attr-defined]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    (repo / "m.md").write_text("x\n")
    subprocess.run(["git", "add", "m.md"], cwd=repo, check=True)
    done = subprocess.run(["git", "commit", "-q", "-m", subject], cwd=repo, check=False,
                          capture_output=True)  # fmt: skip
    if done.returncode != 0:  # git refused the message (e.g. only a comment char): nothing to read
        return
    history = memory_history(open_repo(repo), "m.md")
    assert len(history) == 1 and history[0].change == "added"
    assert history[0].author == "Test Author"
    assert history[0].subject == subject
