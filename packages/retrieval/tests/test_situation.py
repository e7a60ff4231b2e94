import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings, strategies as st
from teambrain_retrieval import Situation, gather_situation
from teambrain_retrieval._search import _situation as situation_module
from teambrain_retrieval._search._situation import NOISE_WORDS


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.test", *args],
        check=True, capture_output=True,
    )  # fmt: skip


def write(root: Path, path: str, text: str = "x = 1\n") -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def commit(root: Path, subject: str, *paths: str) -> None:
    for path in paths:
        write(root, path, f"# {subject}\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", subject)


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A clone of a remote whose main has history by others, as a developer has it."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    write(seed, ".teambrain/brain.yaml", "version: 1\n")
    commit(seed, "Scaffold", "src/shop/payments/refunds.py", "src/shop/search/indexer.py",
           "src/shop/catalog/limits.py", "src/shop/orders/limits.py", "migrations/0001_init.py",
           "docs/old.md")  # fmt: skip
    for n in range(3):
        commit(seed, f"search: tune ranking {n}", "src/shop/search/indexer.py")
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(tmp_path / "origin.git"))
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), str(tmp_path / "work"))
    return tmp_path / "work"


def test_no_git_gives_an_empty_situation(tmp_path: Path) -> None:
    situation = gather_situation(tmp_path)
    assert situation == Situation(repo=tmp_path.name)
    assert situation.is_empty()


def test_a_repository_without_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "feature/payments-retry")
    write(tmp_path, "src/payments.py")
    situation = gather_situation(tmp_path)
    assert situation.branch == "feature/payments-retry"
    assert situation.changed_paths == ["src/"]  # an untracked folder, as git reports it
    assert situation.changes == {"src/": "untracked"}
    assert situation.recent_subjects == [] and situation.branch_subjects == []


def test_every_kind_of_change_in_the_work_tree_and_the_index(clone: Path) -> None:
    git(clone, "checkout", "-qb", "wip")
    write(clone, "src/shop/payments/refunds.py", "def issue_refund():\n    pass\n")
    write(clone, "src/shop/catalog/limits.py", "y = 2\n")
    git(clone, "add", "src/shop/catalog/limits.py")
    write(clone, "migrations/0002_add_reason.py", "class AddReason:\n    pass\n")
    git(clone, "mv", "src/shop/search/indexer.py", "src/shop/search/index_builder.py")
    git(clone, "rm", "-q", "docs/old.md")
    write(clone, ".teambrain/memories/x.md", "a memory is not work on the code\n")
    situation = gather_situation(clone)
    assert situation.changes == {
        "src/shop/payments/refunds.py": "modified",
        "src/shop/catalog/limits.py": "staged",
        "migrations/0002_add_reason.py": "untracked",
        "src/shop/search/index_builder.py": "renamed to",
        "src/shop/search/indexer.py": "renamed from",
        "docs/old.md": "deleted",
    }
    assert set(situation.changed_paths) == set(situation.changes)
    # what each changed file defines, a deleted or moved one's as it was
    assert situation.symbols["src/shop/payments/refunds.py"] == frozenset({"issuerefund"})
    assert situation.symbols["migrations/0002_add_reason.py"] == frozenset({"addreason"})
    # limits.py is the name of two tracked files: a memory naming it alone may mean the other
    assert situation.ambiguous == {"src/shop/catalog/limits.py"}


def test_the_branch_counts_every_commit_since_it_left_the_default_branch(clone: Path) -> None:
    git(clone, "checkout", "-qb", "fix/zanzibar-refunds")
    for n in range(12):  # more than any fixed window of recent commits
        commit(clone, f"payments: step {n}", f"src/shop/payments/step_{n}.py")
    write(clone, "src/shop/payments/refunds.py", "def issue_refund():\n    return 2\n")
    situation = gather_situation(clone)
    assert situation.default_branch == "origin/main"
    assert {f"src/shop/payments/step_{n}.py" for n in range(12)} <= set(situation.changed_paths)
    assert situation.changes["src/shop/payments/step_0.py"] == "committed on this branch"
    assert situation.changes["src/shop/payments/refunds.py"] == "modified"
    assert (
        situation.branch_subjects[0] == "payments: step 11" and len(situation.branch_subjects) == 12
    )
    # the default branch's history is other people's, never the branch's own commits
    assert [c.subject for c in situation.recent][:3] == [
        "search: tune ranking 2", "search: tune ranking 1", "search: tune ranking 0",
    ]  # fmt: skip
    assert situation.recent[0].paths == ("src/shop/search/indexer.py",)
    assert all("step" not in c.subject for c in situation.recent)
    words = dict(situation.branch_words())
    assert words == {"zanzibar": 1.0, "refunds": 1.0}  # "fix" is a namespace saying nothing


def test_a_commit_on_the_branch_is_seen_on_the_next_call(clone: Path) -> None:
    git(clone, "checkout", "-qb", "feature/x")
    assert gather_situation(clone).changed_paths == []
    commit(clone, "catalog: first", "src/shop/catalog/new.py")
    assert gather_situation(clone).changed_paths == ["src/shop/catalog/new.py"]
    commit(clone, "catalog: second", "src/shop/catalog/other.py")
    assert set(gather_situation(clone).changed_paths) == {
        "src/shop/catalog/new.py", "src/shop/catalog/other.py",
    }  # fmt: skip


def test_a_rename_committed_on_the_branch_keeps_the_old_path(clone: Path) -> None:
    git(clone, "checkout", "-qb", "feature/y")
    git(clone, "mv", "src/shop/payments/refunds.py", "src/shop/payments/refunds_v2.py")
    git(clone, "commit", "-qm", "payments: rename refunds")
    changes = gather_situation(clone).changes
    assert changes["src/shop/payments/refunds_v2.py"] == "committed on this branch"
    assert changes["src/shop/payments/refunds.py"].startswith("renamed from")


def test_without_a_remote_the_local_main_is_the_default_branch(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path, "Add the checkout retry loop", "app.py")
    git(tmp_path, "checkout", "-qb", "fix/redis-pool")
    commit(tmp_path, "redis: pool", "cache.py")
    write(tmp_path, "new file.py", "c\n")
    situation = gather_situation(tmp_path)
    assert situation.default_branch == "main"
    assert situation.changed_paths == ["new file.py", "cache.py"]  # work tree first
    assert situation.branch_subjects == ["redis: pool"]
    assert situation.recent_subjects == ["Add the checkout retry loop"]
    text = situation.query_text()
    assert "redis" in text and "pool" in text and "checkout" not in text
    assert "fix" not in text.split()


def test_on_the_default_branch_only_the_work_tree_is_mine(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path, "first", "a.txt")
    commit(tmp_path, "second", "b.txt")
    situation = gather_situation(tmp_path)
    assert situation.changed_paths == [] and situation.branch_subjects == []
    assert situation.recent_subjects == ["second", "first"]


def test_detached_head(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path, "first", "a.txt")
    git(tmp_path, "checkout", "-q", "--detach")
    situation = gather_situation(tmp_path)
    assert situation.branch is None and situation.recent_subjects == ["first"]


def test_recently_committed_names_with_accents_are_not_quoted(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path, "Menu", "docs/café menu.md")
    assert gather_situation(tmp_path).recent[0].paths == ("docs/café menu.md",)


@pytest.mark.parametrize(
    ("branch", "words"),
    [
        ("fix/zanzibar-refunds", {"zanzibar": 1.0, "refunds": 1.0}),
        ("tom/coupon-stacking", {"tom": 0.3, "coupon": 1.0, "stacking": 1.0}),
        ("wip", {}),
        ("SHOP-1432", {"SHOP": 0.3}),  # a ticket id names a project, not the work
        ("feature/add-report-schedules", {"report": 1.0, "schedules": 1.0}),
    ],
)
def test_branch_words_weigh_the_last_segment(branch: str, words: dict[str, float]) -> None:
    assert dict(Situation("r", branch).branch_words()) == words


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_branch_name_gives_weighted_words_and_never_raises(branch: str) -> None:
    words = Situation("r", branch, [branch]).branch_words()
    assert all(weight in (0.3, 1.0) for _, weight in words)
    for word, _ in words:
        assert word.lower() not in NOISE_WORDS and not word.isdigit() and len(word) >= 2
    Situation("r", branch, [branch]).query_text()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=12))
@example([" M /", "R  x", ".teambrain//", "?? .teambrain/m.md"])
def test_any_git_status_output_is_read_without_raising(entries: list[str]) -> None:
    """Whatever `git status -z` prints (odd names, a rename's missing second path, codes of
    one letter), its reading keeps only paths outside the brain and never raises."""
    from unittest import mock

    changes: dict[str, str] = {}
    with mock.patch.object(situation_module, "_git", return_value="\0".join(entries)):
        situation_module._status(Path("."), changes)
    assert all(path and not path.startswith(".teambrain/") for path in changes)
