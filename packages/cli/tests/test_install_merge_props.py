"""``tb install`` merges into a user's config without destroying anything, in every format it
writes (JSON, JSONC, TOML, YAML), for any config a user could have: property tests.

For each format a user's file is generated with other servers (map- or list-shaped), other hooks
in the events we subscribe to, other top-level keys and comments, in arbitrary Unicode. After the
install: every other server, hook and key is still there with the same value, in the same order;
every comment line is still in the text; our entry is exactly the adapter's; and a second install
changes nothing, byte for byte.
"""

from __future__ import annotations

import json
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_cli._agent_tools.install import apply_install, plan_install
from teambrain_cli._agent_tools.jsonc import loads as jsonc_loads
from teambrain_cli._agent_tools.registry import Adapter, HookTarget, McpTarget

# Printable in every format: no controls, surrogates or line/paragraph separators (YAML would
# read U+2028 in a quoted scalar as a line break, TOML forbids controls), no BOM.
TEXT = st.text(
    st.characters(
        codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp"), exclude_characters="\ufeff"
    ),
    max_size=12,
)
NAME = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,10}", fullmatch=True).filter(
    lambda name: name.lower() not in ("teambrain", "hooks", "servers")
)
SERVER = st.fixed_dictionaries({"command": TEXT, "args": st.lists(TEXT, max_size=3)})
COMMENT = st.from_regex(r"[A-Za-z0-9 .,:()-]{1,30}", fullmatch=True).map(str.strip).filter(bool)

EVENTS = ("SessionStart", "PostToolUse")


def _adapter(fmt: str, servers: str = "map", command_style: str = "split") -> Adapter:
    path = {"json": "cfg.json", "jsonc": "cfg.jsonc", "toml": "cfg.toml", "yaml": "cfg.yaml"}[fmt]
    return Adapter(
        name="probe",
        title="Probe",
        docs=("https://example.invalid",),
        mcp=McpTarget(
            path,
            fmt,  # type: ignore[arg-type]
            "mcpServers",
            servers=servers,  # type: ignore[arg-type]
            command_style=command_style,  # type: ignore[arg-type]
            entry={"timeout": 60},
        ),
        hooks=HookTarget(
            path,
            fmt,
            EVENTS,
            matchers={"PostToolUse": "*"},
            handler={"type": "command"},  # type: ignore[arg-type]
        ),
    )


@st.composite
def user_configs(draw: st.DrawFn, listed: bool, toml: bool) -> dict[str, Any]:
    names = draw(st.lists(NAME, max_size=4, unique_by=str.lower))
    servers: Any = (
        [{"name": name, **draw(SERVER)} for name in names]
        if listed
        else {name: draw(SERVER) for name in names}
    )
    hooks = {
        event: [{"hooks": [{"type": "command", "command": draw(TEXT)}]}]
        for event in draw(st.lists(st.sampled_from(EVENTS), unique=True))
    }
    config: dict[str, Any] = {}
    for key in draw(st.lists(NAME, max_size=3, unique_by=str.lower)):
        config[key] = draw(TEXT)
    # The tables go in some order among the user's own keys, which must be kept.
    order = draw(st.permutations(["servers", "hooks", "settings"]))
    if toml:  # TOML puts plain keys before tables (after one they would belong to it)
        order = ["settings", *(part for part in order if part != "settings")]
    result: dict[str, Any] = {}
    for part in order:
        if part == "servers" and names:
            result["mcpServers"] = servers
        elif part == "hooks" and hooks:
            result["hooks"] = hooks
        elif part == "settings":
            result.update(config)
    return result


def _render(fmt: str, config: dict[str, Any], comments: list[str]) -> str:
    """The user's file, as a person might write it, with ``comments`` on lines of their own."""
    if fmt == "toml":
        import tomlkit

        document = tomlkit.document()
        for comment in comments:
            document.add(tomlkit.comment(comment))
        for key, value in config.items():
            document[key] = value
        return tomlkit.dumps(document)
    if fmt == "yaml":
        import io

        from ruamel.yaml import YAML

        yaml = YAML(typ="rt")
        out = io.StringIO()
        yaml.dump(config, out) if config else None
        return "".join(f"# {comment}\n" for comment in comments) + out.getvalue()
    text = json.dumps(config, indent=2, ensure_ascii=False)
    if fmt == "jsonc" and comments:
        lines = text.splitlines()
        for position, comment in enumerate(comments):
            lines.insert(min(1 + position * 2, len(lines) - 1), f"  // {comment}")
        text = "\n".join(lines)
    return text + "\n"


def _parse(fmt: str, text: str) -> Any:
    if fmt == "toml":
        return tomllib.loads(text)
    if fmt == "yaml":
        from ruamel.yaml import YAML

        return YAML(typ="safe").load(text) or {}
    return jsonc_loads(text) if fmt == "jsonc" else json.loads(text)


CASES = [
    ("json", "map", "split"),
    ("jsonc", "map", "array"),
    ("toml", "map", "split"),
    ("yaml", "map", "split"),
    ("yaml", "list", "split"),
    ("json", "list", "array"),
]


@pytest.mark.parametrize(("fmt", "servers", "command_style"), CASES)
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_install_keeps_everything_the_user_had(
    tmp_path: Path, fmt: str, servers: str, command_style: str, data: st.DataObject
) -> None:
    adapter = _adapter(fmt, servers, command_style)
    listed = servers == "list"
    config = data.draw(user_configs(listed, fmt == "toml"))
    comments = data.draw(st.lists(COMMENT, max_size=3)) if fmt != "json" else []
    repo = Path(tempfile.mkdtemp(dir=tmp_path))
    original = _render(fmt, config, comments)
    target = repo / adapter.mcp.path
    target.write_text(original, "utf-8")

    apply_install(plan_install(adapter, repo, home=repo))
    text = target.read_text("utf-8")
    after = _parse(fmt, text)

    for comment in comments:
        assert comment in text
    # The user's keys keep their values and their order; ours come after.
    user_keys = list(config)
    assert [key for key in after if key in config] == user_keys
    for key, value in config.items():
        if key not in ("mcpServers", "hooks"):
            assert after[key] == value
    ours = adapter.mcp_entry()
    if listed:
        theirs = config.get("mcpServers", [])
        assert after["mcpServers"][: len(theirs)] == theirs
        assert after["mcpServers"][len(theirs) :] == [ours]
    else:
        theirs = config.get("mcpServers", {})
        assert list(after["mcpServers"]) == [*theirs, "teambrain"]
        assert {k: v for k, v in after["mcpServers"].items() if k != "teambrain"} == theirs
        assert after["mcpServers"]["teambrain"] == ours
    for event in EVENTS:
        before_hooks = config.get("hooks", {}).get(event, [])
        assert after["hooks"][event][: len(before_hooks)] == before_hooks
        [ours_hook] = after["hooks"][event][len(before_hooks) :]
        assert ours_hook["hooks"] == [{"type": "command", "command": "tb-capture probe"}]

    # A second install is a no-op, byte for byte.
    again = plan_install(adapter, repo, home=repo)
    assert not again.changed, again.files[0].diff()


@st.composite
def hostile(draw: st.DrawFn) -> str:
    """What no parser survives unaided: numbers of thousands of digits, nesting tens of
    thousands deep, in each format's syntax (issue 32, point 6)."""
    size = draw(st.sampled_from([300, 4301, 5000, 50_000]))
    digits = "9" * min(size, 6000)
    return draw(st.sampled_from([
        '{"a": ' + digits + "}", "a = " + digits + "\n", "a: " + digits + "\n",
        '{"a": -' + digits + ".5e3}", "a = 1" + digits + ".0\n",
        "[" * size + "]" * size, '{"a": ' + '{"b": ' * size + "1" + "}" * size + "}",
        "a = " + "[" * size + "]" * size + "\n", "a: " + "{b: " * size + "1" + "}" * size,
        "".join(" " * i + "- \n" for i in range(0, min(size, 6000), 2)),
    ]))  # fmt: skip


@pytest.mark.parametrize(("fmt", "servers", "command_style"), CASES)
@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=st.text(max_size=200) | st.sampled_from(["[1, 2]", "a: [", "- x\n- y\n", "a = [", "{,}", "---\na: 1\n---\nb: 2\n", "\x00", "mcpServers: 3\n", '{"mcpServers": []}', "[mcpServers]\nteambrain = 1\n"]) | hostile())  # fmt: skip
def test_any_file_is_merged_or_named_and_left_alone(
    tmp_path: Path, fmt: str, servers: str, command_style: str, text: str
) -> None:
    """Whatever a config file holds, installing either merges into it or stops with the one-line
    error naming it (exit 2), writing nothing; never another exception."""
    from teambrain_schema import EnvironmentProblem

    adapter = _adapter(fmt, servers, command_style)
    repo = Path(tempfile.mkdtemp(dir=tmp_path))
    target = repo / adapter.mcp.path
    target.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        plan = plan_install(adapter, repo, home=repo)
    except EnvironmentProblem as exc:
        assert exc.message.startswith(f"{adapter.mcp.path}: ") and "\n" not in exc.message
        assert target.read_bytes() == text.encode("utf-8", "surrogatepass")
        return
    apply_install(plan)
    assert not plan_install(adapter, repo, home=repo).changed
