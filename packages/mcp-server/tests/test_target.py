from __future__ import annotations

from pathlib import Path

from teambrain_mcp_server import resolve_target
from teambrain_mcp_server._target import session_hints


def test_the_current_directory_repository_is_served(brain_repo: Path) -> None:
    inside = brain_repo / "src" / "deep"
    inside.mkdir(parents=True)
    target = resolve_target(cwd=inside, env={})
    assert target.repo_root == brain_repo and target.start == inside and not target.explicit


def test_an_explicit_repository_wins(brain_repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = resolve_target(brain_repo, cwd=elsewhere, env={"CLAUDE_PROJECT_DIR": str(elsewhere)})
    assert target.repo_root == brain_repo and target.explicit


def test_a_project_dir_is_used_only_outside_any_repository(
    brain_repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    env = {"CLAUDE_PROJECT_DIR": str(brain_repo)}
    assert resolve_target(cwd=outside, env=env).repo_root == brain_repo
    assert (
        resolve_target(cwd=outside, env={"CURSOR_PROJECT_DIR": str(brain_repo)}).repo_root
        == brain_repo
    )
    assert resolve_target(cwd=outside, env={}).repo_root is None
    assert (
        resolve_target(cwd=outside, env={"CLAUDE_PROJECT_DIR": str(outside / "nope")}).repo_root
        is None
    )
    other = tmp_path / "other-repo"
    (other / ".git").mkdir(parents=True)
    assert resolve_target(cwd=other, env=env).repo_root == other


def test_session_hints_come_from_the_launching_tool() -> None:
    assert session_hints({}) == ()
    assert session_hints({"CLAUDE_CODE_SESSION_ID": " abc-1 ", "GEMINI_SESSION_ID": ""}) == (
        "abc-1",
    )
    assert session_hints({"CLAUDE_CODE_SESSION_ID": "a", "GEMINI_SESSION_ID": "g"}) == ("a", "g")
