import json
import tomllib
from pathlib import Path

import pytest
from teambrain_cli._agent_tools.install import apply_install, plan_install
from teambrain_cli._agent_tools.jsonc import loads as jsonc_loads
from teambrain_cli._agent_tools.registry import resolve_adapter
from teambrain_schema import EnvironmentProblem, ExitCode


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    return path


def install(tool: str, repo: Path, home: Path | None = None) -> list[str]:
    plan = plan_install(resolve_adapter(tool), repo, home=home)
    apply_install(plan)
    return [change.status for change in plan.files]


def test_new_files_are_created_and_a_second_run_changes_nothing(repo: Path) -> None:
    assert install("claude-code", repo) == ["create", "create"]
    settings = json.loads((repo / ".claude/settings.json").read_text())
    assert sorted(settings["hooks"]) == sorted(
        ["SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "SessionEnd"]
    )
    assert (repo / ".mcp.json").stat().st_mode & 0o777 == 0o644
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    assert install("claude-code", repo) == ["unchanged", "unchanged"]
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_a_broken_file_stops_the_install_and_nothing_is_written(repo: Path) -> None:
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.json").write_text(
        '{"hooks": {},}'
    )  # Claude Code settings are strict JSON
    with pytest.raises(EnvironmentProblem) as raised:
        plan_install(resolve_adapter("claude-code"), repo)
    assert raised.value.exit_code == ExitCode.ENVIRONMENT_ERROR
    assert str(raised.value).startswith(
        ".claude/settings.json: not valid JSON (trailing comma at line 1, column 13)"
    )
    assert not (repo / ".mcp.json").exists()


@pytest.mark.parametrize(
    ("relpath", "content", "message"),
    [
        (".mcp.json", "[]", "expected a JSON object at the top level"),
        (".mcp.json", '{"mcpServers": []}', "`mcpServers` must be an object"),
        (
            ".claude/settings.json",
            '{"hooks": {"SessionStart": {}}}',
            "`hooks.SessionStart` must be a list",
        ),
        (".claude/settings.json", b"\xff\xfe{}", "not UTF-8 text"),
    ],
)
def test_unusable_shapes_are_named(
    repo: Path, relpath: str, content: str | bytes, message: str
) -> None:
    path = repo / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(EnvironmentProblem, match=message):
        plan_install(resolve_adapter("claude-code"), repo)


def test_a_users_own_teambrain_entry_is_kept(repo: Path) -> None:
    custom = {"mcpServers": {"teambrain": {"command": "uvx", "args": ["teambrain-mcp-server"]}}}
    (repo / ".mcp.json").write_text(json.dumps(custom))
    plan = plan_install(resolve_adapter("claude-code"), repo)
    assert plan.files[0].status == "unchanged"
    assert any("kept your own `teambrain` server entry" in note for note in plan.notes)


def test_our_handler_is_updated_in_place_and_user_fields_stay(repo: Path) -> None:
    (repo / ".cursor").mkdir()
    (repo / ".cursor/hooks.json").write_text(json.dumps({"version": 1, "hooks": {"postToolUse": [
        {"command": "./format.sh"},
        {"command": "tb-capture cursor", "timeout": 99, "matcher": "Shell|Write"},
    ]}}, indent=2))  # fmt: skip
    install("cursor", repo)
    hooks = json.loads((repo / ".cursor/hooks.json").read_text())["hooks"]
    assert hooks["postToolUse"] == [
        {"command": "./format.sh"},
        {"command": "tb-capture cursor", "timeout": 10, "matcher": "Shell|Write"},
    ]
    assert [
        len(hooks[event]) for event in ("sessionStart", "beforeSubmitPrompt", "sessionEnd")
    ] == [1, 1, 1]


def test_windsurf_mcp_goes_to_the_user_file(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    plan = plan_install(resolve_adapter("windsurf"), repo, home=home)
    assert [change.display for change in plan.files] == [
        "~/.codeium/windsurf/mcp_config.json",
        ".windsurf/hooks.json",
    ]
    apply_install(plan)
    assert json.loads((home / ".codeium/windsurf/mcp_config.json").read_text()) == {
        "mcpServers": {"teambrain": {"command": "tb", "args": ["serve"]}}
    }


def test_a_symlinked_config_is_edited_where_it_points(repo: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "mcp.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"mcpServers": {}}\n')
    (repo / ".cursor").mkdir()
    (repo / ".cursor/mcp.json").symlink_to(dotfiles)
    # A link out of the repository may be anyone's commit: written only when the user says so.
    with pytest.raises(EnvironmentProblem, match=r"\.cursor/mcp\.json leads outside the repo"):
        plan_install(resolve_adapter("cursor"), repo)
    questions: list[str] = []
    plan = plan_install(
        resolve_adapter("cursor"), repo, confirm=lambda q: questions.append(q) is None
    )
    assert len(questions) == 1 and str(dotfiles) in questions[0]
    apply_install(plan)
    assert (repo / ".cursor/mcp.json").is_symlink()
    assert "teambrain" in json.loads(dotfiles.read_text())["mcpServers"]
    # A link that stays inside the repository is followed without asking.
    inside = repo / "config" / "mcp.json"
    inside.parent.mkdir()
    inside.write_text("{}\n")
    (repo / ".cursor/mcp.json").unlink()
    (repo / ".cursor/mcp.json").symlink_to("../config/mcp.json")
    install("cursor", repo)
    assert (repo / ".cursor/mcp.json").is_symlink()
    assert "teambrain" in json.loads(inside.read_text())["mcpServers"]


def test_codex_uses_an_existing_hooks_json(repo: Path) -> None:
    (repo / ".codex").mkdir()
    (repo / ".codex/hooks.json").write_text(
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}]}}'
    )
    plan = plan_install(resolve_adapter("codex"), repo)
    apply_install(plan)
    config = tomllib.loads((repo / ".codex/config.toml").read_text())
    assert config == {
        "mcp_optional_startup_grace_ms": 10000,
        "mcp_servers": {
            "teambrain": {"command": "tb", "args": ["serve"], "env_vars": ["TEAMBRAIN_HOME"]}
        },
    }
    hooks = json.loads((repo / ".codex/hooks.json").read_text())["hooks"]
    assert hooks["Stop"][0]["hooks"][0]["command"] == "./stop.sh"
    assert hooks["UserPromptSubmit"] == [
        {"hooks": [{"type": "command", "command": "tb-capture codex", "timeout": 10}]}
    ]


def test_codex_toml_keeps_comments_and_is_idempotent(repo: Path) -> None:
    (repo / ".codex").mkdir()
    original = '# team defaults\nmodel = "o3"  # pinned\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "./stop.sh"\n'
    (repo / ".codex/config.toml").write_text(original)
    install("codex", repo)
    text = (repo / ".codex/config.toml").read_text()
    # The one top-level key we add goes before the first table, as TOML requires.
    head, tables = original.split("\n\n", 1)
    assert text.startswith(head + "\nmcp_optional_startup_grace_ms = 10000\n\n" + tables)
    config = tomllib.loads(text)
    assert config["hooks"]["Stop"][0]["hooks"][0]["command"] == "./stop.sh"
    assert config["hooks"]["PostToolUse"] == [
        {"hooks": [{"type": "command", "command": "tb-capture codex", "timeout": 10}]}
    ]
    assert install("codex", repo) == ["unchanged"]


def test_gemini_jsonc_with_comments_round_trips(repo: Path) -> None:
    (repo / ".gemini").mkdir()
    (repo / ".gemini/settings.json").write_text('{\n  // theme\n  "theme": "GitHub",\n}\n')
    install("gemini-cli", repo)
    text = (repo / ".gemini/settings.json").read_text()
    assert "// theme" in text
    settings = jsonc_loads(text)
    assert settings["mcpServers"]["teambrain"] == {
        "command": "tb",
        "args": ["serve"],
        "timeout": 60000,
    }
    assert settings["hooks"]["AfterTool"][0]["matcher"] == "*"


def test_an_older_teambrain_entry_gets_our_new_fields_and_keeps_the_users(repo: Path) -> None:
    (repo / ".codex").mkdir()
    (repo / ".codex/config.toml").write_text(
        "mcp_optional_startup_grace_ms = 0  # wait for every server\n\n"
        '[mcp_servers.teambrain]\ncommand = "tb"\nargs = ["serve"]\nstartup_timeout_sec = 20\n'
    )
    plan = plan_install(resolve_adapter("codex"), repo)
    assert "updated MCP server `teambrain` (tb serve)" in plan.files[0].actions
    apply_install(plan)
    config = tomllib.loads((repo / ".codex/config.toml").read_text())
    assert config["mcp_optional_startup_grace_ms"] == 0  # the user's own setting stays
    assert config["mcp_servers"]["teambrain"] == {
        "command": "tb", "args": ["serve"], "startup_timeout_sec": 20,
        "env_vars": ["TEAMBRAIN_HOME"],
    }  # fmt: skip
    assert not plan_install(resolve_adapter("codex"), repo).changed


def test_gemini_gets_a_timeout_for_slow_starts(repo: Path) -> None:
    install("gemini-cli", repo)
    settings = jsonc_loads((repo / ".gemini/settings.json").read_text())
    assert settings["mcpServers"]["teambrain"] == {"command": "tb", "args": ["serve"], "timeout": 60000}  # fmt: skip


def test_cline_hooks_are_executables_and_a_users_own_hook_stays(repo: Path, tmp_path: Path) -> None:
    hooks = repo / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "TaskComplete.sh").write_text("#!/bin/sh\necho mine\n")
    plan = plan_install(resolve_adapter("cline"), repo, home=tmp_path)
    apply_install(plan)
    written = sorted(path.name for path in hooks.iterdir())
    assert written == [
        "PostToolUse",
        "TaskCancel",
        "TaskComplete.sh",
        "TaskStart",
        "UserPromptSubmit",
    ]
    for name in ("PostToolUse", "TaskStart"):
        assert (hooks / name).stat().st_mode & 0o777 == 0o755
        assert (hooks / name).read_text().endswith("exec tb-capture cline\n")
    assert (hooks / "TaskComplete.sh").read_text() == "#!/bin/sh\necho mine\n"
    assert any("kept your own TaskComplete hook" in note for note in plan.notes)
    # The MCP entry goes to the user's Cline settings; a second install changes nothing.
    settings = json.loads((tmp_path / ".cline/data/settings/cline_mcp_settings.json").read_text())
    assert settings["mcpServers"]["teambrain"] == {"command": "tb", "args": ["serve"]}
    assert not plan_install(resolve_adapter("cline"), repo, home=tmp_path).changed


def test_the_opencode_plugin_is_written_kept_and_updated(repo: Path) -> None:
    from teambrain_cli._agent_tools.install import plugin_source

    plugin = repo / ".opencode" / "plugins" / "teambrain.js"
    apply_install(plan_install(resolve_adapter("opencode"), repo))
    source = plugin.read_text()
    assert source == plugin_source(resolve_adapter("opencode"))
    assert 'spawn("tb-capture", ["opencode"]' in source and "__TOOL__" not in source
    config = jsonc_loads((repo / "opencode.json").read_text())
    assert config["mcp"]["teambrain"] == {
        "type": "local", "command": ["tb", "serve"], "enabled": True, "timeout": 60000,
    }  # fmt: skip
    assert not plan_install(resolve_adapter("opencode"), repo).changed
    plugin.write_text(source.replace("session.deleted", "session.gone"))  # an older plugin of ours
    assert plan_install(resolve_adapter("opencode"), repo).files[-1].actions == ["updated the capture plugin"]  # fmt: skip
    plugin.write_text("export const Mine = async () => ({})\n")  # the user's own file
    plan = plan_install(resolve_adapter("opencode"), repo)
    assert not plan.changed and any("kept your own file" in note for note in plan.notes)
    # Kilo Code runs the same plugin, naming itself.
    apply_install(plan_install(resolve_adapter("kilo"), repo))
    kilo = (repo / ".kilo" / "plugins" / "teambrain.js").read_text()
    assert 'spawn("tb-capture", ["kilocode"]' in kilo


def test_opencode_jsonc_is_used_when_the_project_has_one(repo: Path) -> None:
    (repo / "opencode.jsonc").write_text('{\n  // ours\n  "theme": "dark",\n}\n')
    plan = plan_install(resolve_adapter("opencode"), repo)
    apply_install(plan)
    assert not (repo / "opencode.json").exists()
    text = (repo / "opencode.jsonc").read_text()
    assert "// ours" in text and jsonc_loads(text)["mcp"]["teambrain"]["command"] == ["tb", "serve"]


def test_continue_gets_a_yaml_block_of_its_own(repo: Path) -> None:
    from ruamel.yaml import YAML

    apply_install(plan_install(resolve_adapter("continue"), repo))
    block = YAML(typ="safe").load((repo / ".continue/mcpServers/teambrain.yaml").read_text())
    assert block == {
        "name": "teambrain", "version": "0.0.1", "schema": "v1",
        "mcpServers": [{"name": "teambrain", "command": "tb", "args": ["serve"]}],
    }  # fmt: skip
    assert not plan_install(resolve_adapter("continue"), repo).changed


@pytest.mark.parametrize(
    ("text", "kept"), [("{}\n", None), ("# ours\n---\n", "# ours\n---\n"), ("Null\n", "refused")]
)
def test_yaml_files_that_load_as_nothing(repo: Path, text: str, kept: str | None) -> None:
    """A YAML file of comments keeps them above our entry; an empty mapping becomes ours; a null
    document is not a mapping and is refused, untouched (it used to be kept above our entry,
    which made the file invalid)."""
    block = repo / ".continue/mcpServers/teambrain.yaml"
    block.parent.mkdir(parents=True)
    block.write_text(text)
    if kept == "refused":
        with pytest.raises(EnvironmentProblem, match="expected a mapping at the top level"):
            plan_install(resolve_adapter("continue"), repo)
        assert block.read_text() == text
        return
    apply_install(plan_install(resolve_adapter("continue"), repo))
    after = block.read_text()
    assert after.startswith(kept or "name: teambrain\n"), after
    assert not plan_install(resolve_adapter("continue"), repo).changed
