"""Evidence commits that a merge rewrote are followed to what they became (squash, rebase,
cherry-pick, a whole branch squashed), or called unverifiable — never stale."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from teambrain_kit import evidence
from teambrain_kit.citation_checker import CitationChecker
from teambrain_kit.evidence import evidence_fates

ENV = {
    "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Gh", "GIT_COMMITTER_EMAIL": "gh@example.com",
    "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent", "PATH": "/usr/bin:/bin",
}  # fmt: skip


def git(root: Path, *args: str, date: str | None = None) -> str:
    env = dict(ENV)
    if date:
        env["GIT_COMMITTER_DATE"] = date
    done = subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env
    )
    return done.stdout.strip()


def commit_file(root: Path, name: str, text: str, message: str) -> str:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(root, "add", name)
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit_file(root, "src/app.py", "def main():\n    return 0\n", "base")
    return root


def squash_merge(root: Path, message: str) -> str:
    """Main moves on, then the branch ``feature`` is squash-merged and deleted, as GitHub does."""
    git(root, "checkout", "-q", "main")
    commit_file(root, "README.md", "hi\n", "main moves on")
    git(root, "merge", "-q", "--squash", "feature")
    git(root, "commit", "-qm", message)
    git(root, "branch", "-qD", "feature")
    return git(root, "rev-parse", "HEAD")


def states(root: Path, *shas: str) -> dict[str, tuple[str, str | None, str | None]]:
    head = git(root, "rev-parse", "HEAD")
    return {
        sha: (fate.state, fate.became, fate.pr)
        for sha, fate in evidence_fates(root, list(shas), [head]).items()
    }


def test_a_squash_merge_listing_the_commits_carries_each_of_them(repo: Path) -> None:
    git(repo, "checkout", "-qb", "feature")
    first = commit_file(repo, "src/app.py", "def main():\n    return 1\n", "return one")
    second = commit_file(repo, "src/b.py", "B = 1\n", "add b")
    squash = squash_merge(repo, "Feature (#12)\n\n* return one\n\n* add b")
    assert states(repo, first, second) == {
        first: ("rewritten", squash, "#12"),
        second: ("rewritten", squash, "#12"),
    }


def test_a_squash_merge_with_its_own_message_is_found_by_the_whole_branch(repo: Path) -> None:
    git(repo, "checkout", "-qb", "feature")
    commit_file(repo, "src/app.py", "def main():\n    return 1\n", "wip")
    tip = commit_file(repo, "src/app.py", "def main():\n    return 2\n", "wip again")
    squash = squash_merge(repo, "Make main return two")
    assert states(repo, tip) == {tip: ("rewritten", squash, None)}


def test_a_rebase_merge_keeps_author_date_and_subject(repo: Path) -> None:
    lines = [f"V{i} = {i}\n" for i in range(10)]
    commit_file(repo, "src/v.py", "".join(lines), "values")
    git(repo, "checkout", "-qb", "feature")
    mine = commit_file(repo, "src/v.py", "".join(lines).replace("V4 = 4", "V4 = 40"), "forty")
    git(repo, "checkout", "-q", "main")
    commit_file(repo, "src/v.py", "".join(lines).replace("V7 = 7", "V7 = 70"), "seventy")
    git(repo, "rebase", "-q", "main", "feature")  # the context of its change differs now
    rebased = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "feature")
    git(repo, "branch", "-qD", "feature")
    assert rebased != mine
    ids = evidence._patch_ids(repo, [mine, rebased])
    assert ids[mine] != ids[rebased]  # not found by patch-id: by author, date and subject
    assert states(repo, mine) == {mine: ("rewritten", rebased, None)}


def test_the_same_change_under_another_author_date_is_found_by_patch_id(repo: Path) -> None:
    git(repo, "checkout", "-qb", "feature")
    mine = commit_file(repo, "src/app.py", "def main():\n    return 1\n", "return one")
    squash = squash_merge(repo, "Return one (#3)")
    assert states(repo, mine) == {mine: ("rewritten", squash, "#3")}


def test_merged_reachable_missing_and_abandoned(repo: Path) -> None:
    git(repo, "checkout", "-qb", "feature")
    merged = commit_file(repo, "src/m.py", "M = 1\n", "merged")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge pull request #4 from x/feature", "feature")
    git(repo, "checkout", "-qb", "abandoned")
    dropped = commit_file(repo, "src/d.py", "D = 1\n", "abandoned work")
    git(repo, "checkout", "-q", "main")
    git(repo, "branch", "-qD", "abandoned", "feature")
    found = states(repo, merged, dropped, "0" * 40, merged[:10])
    assert found[merged] == ("reachable", None, None)
    assert found[merged[:10]] == ("reachable", None, None)  # an abbreviated id
    assert found[dropped][0] == "unverifiable"
    assert found["0" * 40][0] == "unverifiable"


def test_the_default_branch_as_last_fetched_counts(tmp_path: Path, repo: Path) -> None:
    """A teammate's evidence merged on the remote is in the history for a clone whose own
    branch is behind: the default branch as last fetched is where merges land."""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    git(clone, "checkout", "-qb", "mine")
    git(repo, "checkout", "-qb", "feature")
    theirs = commit_file(repo, "src/t.py", "T = 1\n", "theirs")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "feature")
    git(clone, "fetch", "-q", "origin")
    checker = CitationChecker(clone)
    assert checker.evidence([theirs]) == []  # reachable from origin/main: nothing to say


def test_many_commits_cost_a_few_processes(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shas = []
    for index in range(40):
        shas.append(commit_file(repo, f"src/f{index}.py", f"V = {index}\n", f"c{index}"))
    calls: list[list[str]] = []
    original = evidence.git_output

    def counting(args: list[str], **kwargs: object) -> bytes | None:
        calls.append(args)
        return original(args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(evidence, "git_output", counting)
    found = states(repo, *shas, *(f"{i:040x}" for i in range(1, 41)))
    assert sum(state == "reachable" for state, _, _ in found.values()) == 40
    assert len(calls) <= 2


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x1c"])
def test_a_line_separator_in_a_committed_name_never_names_another_file(
    repo: Path, separator: str
) -> None:
    """git ends each name it lists with "\\n" alone: a name holding a character str.splitlines()
    breaks at must not turn into the names on either side of it (here: a memory's own path)."""
    memory = ".teambrain/memories/b.md"
    first = commit_file(repo, memory, "---\nid: x\n---\nbody\n", "the memory")
    forged = commit_file(repo, f".teambrain/memories/a{separator}{memory}", "x\n", "a look-alike")
    log = evidence._git(repo, ["log", evidence._LOG_FORMAT, "--name-only"]) or ""
    files = {c.sha: c.files for c in evidence._parse_log(log)}
    assert memory in files[first] and memory not in files[forged], files[forged]
    checker = CitationChecker(repo)
    snap = checker._current()
    assert snap is not None
    history = checker._memory_history(snap)
    assert [sha for sha, _ in history[memory]] == [first], history
