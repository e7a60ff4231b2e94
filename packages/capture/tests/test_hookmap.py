"""The kit every agent tool's hook reader is written with (each reader is tested with its tool,
in teambrain-cli's tests), and how tb-capture finds a reader."""

from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from teambrain_capture._hookmap import (
    ADAPTERS_GROUP,
    OWN_DISTRIBUTIONS,
    PLAN,
    UnknownTool,
    classify_tool,
    exit_code_of,
    hook_module,
    is_test_command,
    own_tools,
    repo_relative,
)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        # Claude Code
        ("Read", "explore"), ("Glob", "explore"), ("Grep", "explore"), ("LS", "explore"),
        ("Edit", "edit"), ("MultiEdit", "edit"), ("Write", "edit"), ("NotebookEdit", "edit"),
        ("Bash", "command"), ("TodoWrite", PLAN), ("ExitPlanMode", PLAN), ("TaskCreate", PLAN),
        ("Task", None), ("WebFetch", None), ("WebSearch", None), ("mcp__teambrain__memory_search", None),
        ("ToolSearch", None), ("tool_search", None),
        # Cursor
        ("Shell", "command"), ("Delete", "edit"), ("SemanticSearch", "explore"), ("MCP:fetch", None),
        # Codex
        ("apply_patch", "edit"),
        # Gemini CLI
        ("read_file", "explore"), ("read_many_files", "explore"), ("list_directory", "explore"),
        ("search_file_content", "explore"), ("glob", "explore"), ("write_file", "edit"),
        ("replace", "edit"), ("run_shell_command", "command"), ("write_todos", PLAN),
        ("google_web_search", None), ("web_fetch", None), ("mcp_teambrain_memory_context", None),
        # VS Code
        ("editFiles", "edit"), ("createFile", "edit"), ("readFile", "explore"), ("fileSearch", "explore"),
        ("textSearch", "explore"), ("codebase", "explore"), ("runInTerminal", "command"),
        ("run_in_terminal", "command"), ("get_terminal_output", "explore"), ("runTests", "test"),
        ("manage_todo_list", PLAN),
        ("something_else", None),
    ],
)  # fmt: skip
def test_tool_names_map_to_kinds(name: str, kind: str | None) -> None:
    assert classify_tool(name) == kind


@pytest.mark.parametrize(
    ("command", "is_test"),
    [
        ("pytest -q", True), ("python -m pytest tests/", True), ("uv run pytest -x", True),
        ("make test", True), ("cd app && npm test", True), ("go test ./...", True),
        ("cargo test --all", True), ("npx jest --watch=false", True), ("./node_modules/.bin/vitest run", True),
        ("git commit -m 'add pytest fixture'", False), ("cat pytest.ini", False), ("ls", False),
        ("make build", False), ("echo testing", False), ("pip install pytest-timeout", False),
    ],
)  # fmt: skip
def test_test_commands_are_recognised(command: str, is_test: bool) -> None:
    assert is_test_command(command) is is_test


@pytest.mark.parametrize(
    ("response", "code"),
    [
        ({"exit_code": 2}, 2), ({"exitCode": 0, "stdout": "x"}, 0), ({"returncode": 1}, 1),
        ('{"exitCode":127,"stdout":""}', 127), ("Exit code 1\nboom", 1), ("Exit code: -9", -9),
        ({"stdout": "ok"}, None), ("all good", None), ({"exit_code": True}, None), (None, None),
    ],
)  # fmt: skip
def test_exit_codes_are_read_when_reported(response: object, code: int | None) -> None:
    assert exit_code_of(response) == code


def test_paths_outside_the_repository_are_dropped(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    assert repo_relative(str(root / "src/a.py"), str(root), str(root)) == "src/a.py"
    assert repo_relative("src/a.py", str(root), str(root)) == "src/a.py"
    assert repo_relative("a.py", str(root / "src"), str(root)) == "src/a.py"
    assert repo_relative("../../etc/passwd", str(root), str(root)) is None
    assert repo_relative("/home/me/.ssh/id_rsa", str(root), str(root)) is None
    assert repo_relative(str(root), str(root), str(root)) == "."
    (tmp_path / "link").symlink_to(root)
    assert repo_relative(str(tmp_path / "link/src/a.py"), str(root), str(root)) == "src/a.py"


@pytest.mark.parametrize(
    "path",
    [
        "~/notes.txt",
        "~bob/x.py",
        "C:\\Users\\bob\\x.py",
        "d:/work/x.py",
        "\\\\server\\share\\x",
        "src/a.py\nSECRET",
        "src/\x1b[2Ja.py",
        "../outside.py",
    ],
)
def test_paths_that_are_not_clean_repo_paths_are_dropped(path: str) -> None:
    assert repo_relative(path, "/repo", "/repo") is None


@given(st.text(max_size=80))
def test_a_recorded_path_is_always_a_clean_relative_path(path: str) -> None:
    relative = repo_relative(path, "/repo/src", "/repo")
    if relative is not None:
        assert not relative.startswith(("/", "~", "..")) and all(
            ord(c) >= 32 and ord(c) != 127 for c in relative
        )


def test_the_hook_knows_the_schema_s_entry_point_group_and_teambrain_s_distributions() -> None:
    from teambrain_schema import plugins

    assert ADAPTERS_GROUP == plugins.ADAPTERS_GROUP
    assert {name.replace("_", "-") for name in OWN_DISTRIBUTIONS} == plugins.OWN_DISTRIBUTIONS


def test_a_plugin_tool_s_reader_is_found_by_its_entry_point(demo_tools: Path) -> None:
    """A tool another package declares: its module is imported, its read_hook is the reader."""
    module = hook_module("demo-claude")
    assert module.__name__ == "tb_capture_demo_claude"
    assert (
        module.read_hook({"hook_event_name": "SessionStart", "session_id": "s"}, {}).kind == "start"
    )
    assert "demo-claude" not in own_tools()  # not one of teambrain's own distributions


def test_unknown_tools_and_tools_without_a_reader_say_why(demo_tools: Path) -> None:
    with pytest.raises(UnknownTool, match="unknown tool; no installed package declares it"):
        hook_module("no-such-tool")
    with pytest.raises(UnknownTool, match="tb_capture_demo_silent defines no read_hook"):
        hook_module("demo-silent")


def test_own_tools_reads_the_first_copy_of_each_distribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for folder, target in (("first", "one:adapter"), ("second", "two:adapter")):
        info = tmp_path / folder / "teambrain_cli-9.dist-info"
        info.mkdir(parents=True)
        (info / "entry_points.txt").write_text(
            f"[console_scripts]\nx = y:z\n\n[{ADAPTERS_GROUP}]\nshadow-tool = {target}\n"
        )
    monkeypatch.setattr("sys.path", [str(tmp_path / "first"), str(tmp_path / "second")])
    assert own_tools() == {"shadow-tool": "one:adapter"}
