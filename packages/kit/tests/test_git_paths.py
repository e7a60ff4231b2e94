"""The one check of a path that comes out of git (issue 37 point 1): a fetched tree can name
``..``, ``.git``, a control character — each is refused before it is used as a path."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_kit.git import git_path, read_git_blobs, unsafe_git_path

REFUSED = [
    "",
    "..",
    "../x.md",
    ".teambrain/memories/../../../../.claude/CLAUDE.md",
    ".teambrain/memories/./x.md",
    "/etc/passwd",
    "a//b.md",
    "a/b/",
    ".git/config",
    "a/.git/hooks/pre-commit",
    "a/.GIT/x",
    "a/.Git./x",  # NTFS drops trailing dots
    "a/.git  /x",  # and spaces
    "a/.g\u200cit/x",  # HFS+ ignores zero-width non-joiners
    "a/\ufeff.git/x",
    "a/GIT~1/x",  # NTFS's short name of .git
    "a\x00b.md",
    "a\nb.md",
    "a\rb.md",
    "a\x1b[31mred.md",
    "a\x7f.md",
    "a\x85.md",
    "a\u2028b.md",
    "n" * 256 + ".md",
    "/".join(["d" * 200] * 30),
]
KEPT = [
    "a.md",
    ".teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F01-rule.md",
    ".gitkeep",
    ".github/workflows/ci.yml",
    ".gitignore",
    "src/.git-blame-ignore-revs",
    "café/naïve.md",
    "a b/c d.md",
    "x\udcff.md",  # a name that is not UTF-8 (surrogate-escaped), as Linux allows
    "...md",
    "a/..b/c",
    "n" * 255,
]


@pytest.mark.parametrize("path", REFUSED)
def test_a_crafted_path_is_refused_with_a_reason(path: str) -> None:
    reason = unsafe_git_path(path)
    assert reason and "\n" not in reason
    assert git_path(path) is None
    assert git_path(path.encode("utf-8", "surrogateescape")) is None


@pytest.mark.parametrize("path", KEPT)
def test_an_ordinary_path_is_kept(path: str) -> None:
    assert unsafe_git_path(path) is None
    assert git_path(path.encode("utf-8", "surrogateescape")) == path


def test_a_path_through_a_link_on_disk_leads_out_of_its_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "inside").mkdir(parents=True)
    (root / "out").symlink_to(tmp_path)
    assert unsafe_git_path("inside/x.md", root) is None
    assert unsafe_git_path("out/x.md", root) == "leads out of its folder"
    assert unsafe_git_path("out/x.md") is None  # without a root, nothing on disk is looked at


_NAME = st.text(
    alphabet=st.sampled_from(["a", "b", ".", "/", "\\", "~", "1", "g", "i", "t", "G", " ",
                              "\x00", "\n", "\u200c", "é", ":"]),
    max_size=14,
)  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(path=_NAME)
def test_no_path_the_check_keeps_leaves_its_root(
    path: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = Path(os.path.realpath(tmp_path_factory.getbasetemp())) / "root"
    if unsafe_git_path(path, root) is not None:
        return
    parts = path.split("/")
    assert not path.startswith("/") and "" not in parts
    assert not {".", ".."} & set(parts)
    assert all(char not in path for char in "\x00\n")
    folded = ["".join(c for c in p if c != "\u200c").rstrip(". ").casefold() for p in parts]
    assert ".git" not in folded and "git~1" not in folded
    joined = os.path.realpath(root / path)
    assert joined.startswith(str(root) + "/")


def _git(*args: str, cwd: Path, data: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True, check=True)
    return done.stdout.decode().strip()


def test_blobs_are_read_only_within_the_bound(tmp_path: Path) -> None:
    """A commit can hold a blob of gigabytes: it is never read (None), nor a tree taken for a
    file; everything else in order, in one answer."""
    _git("init", "-q", cwd=tmp_path)
    small = _git("hash-object", "-w", "--stdin", cwd=tmp_path, data=b"small\n")
    big = _git("hash-object", "-w", "--stdin", cwd=tmp_path, data=b"x" * 5000)
    tree = _git("mktree", cwd=tmp_path, data=f"100644 blob {small}\ta.md\n".encode())
    found = read_git_blobs(
        [big, small, tree, "0" * 40, f"{tree}:a.md", f"{tree}:nope"], cwd=tmp_path,
        max_bytes=4096,
    )  # fmt: skip
    assert found == [None, b"small\n", None, None, b"small\n", None]


@given(name=st.text(alphabet=st.sampled_from(".gitGIT~1 \u200c\ufeffab"), max_size=8))
def test_the_ascii_shortcut_of_the_dot_git_check_agrees_with_the_full_fold(name: str) -> None:
    """An ASCII name holds no code point HFS+ ignores: the shortcut's verdict is the fold's."""
    from teambrain_kit.git import _HFS_IGNORED, _is_dot_git

    folded = "".join(c for c in name if c not in _HFS_IGNORED).rstrip(". ").casefold()
    assert _is_dot_git(name) == (folded in (".git", "git~1"))
