import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from teambrain_capture import hook_module
from teambrain_cli._agent_tools.registry import (
    ADAPTERS,
    MODULES,
    Adapter,
    McpTarget,
    bundled_adapters_file,
    check_adapters,
    register_adapter,
    resolve_adapter,
    supported_tools,
)
from teambrain_schema import AdaptersFile, ExitCode, UserError
from teambrain_schema.brain import load_config_file

ROOT = Path(__file__).resolve().parents[3]
TOP_LEVEL = ROOT / "adapters.yaml"
REQUIRED = {"claude-code", "cursor", "codex", "gemini-cli", "vscode", "windsurf"}


def test_the_top_level_file_is_the_shipped_one() -> None:
    """One copy: the repository's adapters.yaml links to the file the package ships."""
    assert TOP_LEVEL.is_symlink()
    assert TOP_LEVEL.resolve() == bundled_adapters_file().resolve()


def test_adapters_yaml_and_the_code_registry_agree() -> None:
    assert check_adapters(TOP_LEVEL) == []
    assert check_adapters() == []
    assert set(ADAPTERS) >= REQUIRED


def test_every_adapter_with_hooks_has_a_normaliser_and_cites_docs() -> None:
    hooked = {name for name, adapter in ADAPTERS.items() if adapter.hooks}
    for name in hooked:  # found the way tb-capture finds it: the entry point, then read_hook
        assert hook_module(name).__name__ == MODULES[name]
    for name in set(ADAPTERS) - hooked:
        assert not hasattr(importlib.import_module(MODULES[name]), "read_hook"), name
    loaded = load_config_file(AdaptersFile, TOP_LEVEL, ROOT)
    for spec in loaded.adapters:
        assert spec.docs and all(url.startswith("https://") for url in spec.docs)
    text = TOP_LEVEL.read_text()
    for adapter in ADAPTERS.values():
        for url in adapter.docs:
            assert url in text


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            (
                "events: [sessionStart, beforeSubmitPrompt, postToolUse, sessionEnd]",
                "events: [sessionStart, postToolUse]",
            ),
            "cursor.hooks.events",
        ),
        (("      key: servers\n", "      key: mcpServers\n"), "vscode.mcp.key"),
        (("  - name: kiro\n", "  - name: kiro-ide\n"), "'kiro-ide' is not in the code registry"),
        (
            (
                "handler: {type: command, timeout: 10}\n    notes: >-\n      Claude",
                "handler: {type: command, timeout: 60}\n    notes: >-\n      Claude",
            ),
            "claude-code.hooks.handler",
        ),
        (("version: 1\n", "version: 2\n"), "version"),
    ],
)
def test_drift_is_reported_with_its_place(
    tmp_path: Path, edit: tuple[str, str], expected: str
) -> None:
    text = TOP_LEVEL.read_text()
    assert edit[0] in text
    drifted = tmp_path / "adapters.yaml"
    drifted.write_text(text.replace(edit[0], edit[1], 1))
    problems = check_adapters(drifted)
    assert problems, "drift went unnoticed"
    assert any(expected in problem.message for problem in problems), problems
    assert all(problem.line >= 1 for problem in problems)


def test_a_missing_adapter_is_reported(tmp_path: Path) -> None:
    text = TOP_LEVEL.read_text()
    drifted = tmp_path / "adapters.yaml"
    start = text.index("  # packages/cli/src/teambrain_cli/_agent_tools/tools/kiro.py")
    drifted.write_text(text[:start] + text[text.index("\n\n", start) + 2 :])
    assert [p.message for p in check_adapters(drifted)] == [
        "adapter 'kiro' is registered in code but missing here"
    ]


def test_resolving_tools_by_name_and_alias() -> None:
    assert resolve_adapter("claude-code").name == "claude-code"
    assert resolve_adapter("Claude").name == "claude-code"
    assert resolve_adapter("gemini").name == "gemini-cli"
    assert resolve_adapter("copilot").name == "vscode"
    with pytest.raises(UserError) as raised:
        resolve_adapter("emacs")
    assert raised.value.exit_code == ExitCode.USER_ERROR
    assert str(raised.value) == f"unknown tool 'emacs'; supported: {', '.join(supported_tools())}"


def test_register_refuses_a_taken_name() -> None:
    with pytest.raises(ValueError, match="already registered: claude"):
        register_adapter(
            Adapter(
                "other",
                "Other",
                ("https://x",),
                McpTarget(".x.json", "json", "s"),
                aliases=("claude",),
            )
        )
    assert "other" not in ADAPTERS


INSTALL_DOCS = ROOT / "docs" / "cli" / "install.md"


def _docs_rows() -> dict[str, list[str]]:
    """The rows of install.md's "Supported tools" table, keyed by tool name."""
    text = INSTALL_DOCS.read_text("utf-8")
    section = text.split("## Supported tools", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 5:
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def _code(value: str) -> str:
    return f"`{value}`"


def test_install_docs_list_every_tool_as_the_registry_wires_it() -> None:
    """docs/cli/install.md, adapters.yaml and the code registry are one truth: the docs' table
    names every tool, its aliases, its MCP file and its hooks file exactly as the code does."""
    expected = {
        name: [
            ", ".join(_code(alias) for alias in adapter.aliases) or "—",
            _code(adapter.mcp.path) + (" (user)" if adapter.mcp.scope == "user" else ""),
            _code(adapter.hooks.path) if adapter.hooks else "none",
            adapter.title,
        ]
        for name, adapter in ADAPTERS.items()
    }
    rows = _docs_rows()
    assert sorted(rows) == sorted(expected), "install.md's tool table and the registry differ"
    for name, cells in rows.items():
        assert cells[:3] == expected[name][:3], (name, cells, expected[name])
        assert cells[3].startswith(expected[name][3]), (name, cells[3])


def test_install_list_and_the_unknown_tool_error_name_every_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner
    from teambrain_cli._commands.install import command

    listed = CliRunner().invoke(command, ["--list"])
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert [line.split()[0] for line in lines] == sorted(ADAPTERS)
    for line, name in zip(lines, sorted(ADAPTERS), strict=True):
        assert ADAPTERS[name].mcp.path in line
    with pytest.raises(UserError) as raised:
        resolve_adapter("no-such-tool")
    for name in ADAPTERS:
        assert name in raised.value.message


def test_adapters_yaml_is_what_the_tool_modules_generate() -> None:
    """One source per tool: its module in _agent_tools/tools/; adapters.yaml is generated from
    the modules (`make adapters`) and committed for review."""
    from teambrain_cli._agent_tools.adapters_yaml import render

    assert TOP_LEVEL.read_text("utf-8") == render(), "run `make adapters` and commit the result"


def test_the_built_in_tools_are_this_package_s_entry_points_one_module_each() -> None:
    """The built-in tools register the way a plugin does: teambrain-cli's own metadata lists a
    `teambrain.adapters` entry point per module of _agent_tools/tools/, each module is named for
    its tool, and nothing else fills the registry."""
    import pkgutil

    from teambrain_cli._agent_tools import tools
    from teambrain_schema.plugins import ADAPTERS_GROUP, builtin_names, plugin_names

    modules = sorted(info.name for info in pkgutil.iter_modules(tools.__path__))
    assert sorted(builtin_names(ADAPTERS_GROUP, "teambrain-cli")) == sorted(ADAPTERS)
    assert len(modules) == len(ADAPTERS)
    assert sorted(MODULES.values()) == [f"{tools.__name__}.{name}" for name in modules]
    for name, module_name in MODULES.items():
        assert module_name.rpartition(".")[2] in (name.replace("-", "_"), f"{name}_dev")
        assert importlib.import_module(module_name).adapter() == ADAPTERS[name]
    assert not set(plugin_names(ADAPTERS_GROUP)) & set(ADAPTERS)  # built-ins are not plugins


def test_the_hook_process_imports_nothing_else_for_a_tool_module() -> None:
    """tb-capture imports the tool's module for its read_hook: its top level must import only
    teambrain_capture's hook kit (what tb install and tb doctor need loads inside adapter() and
    the step functions), or every agent tool call pays for dataclasses, pathlib, click..."""
    code = (
        "import sys\n"
        "import teambrain_capture._hook\n"
        "before = set(sys.modules)\n"
        "from teambrain_capture import hook_module\n"
        f"for name in {sorted(n for n, a in ADAPTERS.items() if a.hooks)!r}:\n"
        "    hook_module(name)\n"
        "print('\\n'.join(sorted(set(sys.modules) - before)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    added = done.stdout.split()
    assert added, "the tool modules were not imported"
    assert [name for name in added if not name.startswith("teambrain_cli")] == [], added
    assert "teambrain_cli._agent_tools.registry" not in added
    assert "teambrain_cli._main" not in added


def test_the_docs_tables_of_tools_are_what_the_tool_modules_generate() -> None:
    """install.md's "Supported tools", capture.md's "Per-tool wiring" and agents.md's list of the
    tools not driven here are generated from the tool modules: adding a tool adds its rows."""
    from teambrain_cli._agent_tools.doc_tables import render

    for path, text in render(ROOT / "docs").items():
        assert path.read_text("utf-8") == text, f"{path}: run `make adapters` and commit the result"
