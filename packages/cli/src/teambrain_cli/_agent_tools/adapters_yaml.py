"""``adapters.yaml``, written from the registry: the built-in agent tools for people to review.

The tool modules in :mod:`.tools` are the source; this file is their reviewable form, shipped in
the package (``tb lint`` and ``tb doctor`` check it against the registry) and linked from the
repository's top level. After changing a tool module, regenerate it::

    make adapters        # python -m teambrain_cli._agent_tools.adapters_yaml --docs docs

which also rewrites the docs' generated tables of tools (:mod:`.doc_tables`) and the help pages.

A test fails while the committed file differs from what this writes.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

from .registry import ADAPTERS, MODULES, Adapter, bundled_adapters_file

HEADER = """\
# The agent tools `tb install <tool>` wires teambrain into: where each one registers MCP servers
# and runs hook commands. GENERATED from packages/cli/src/teambrain_cli/_agent_tools/tools/ (one
# module per tool, which also cites the documentation each setting was checked against): edit
# those and run `make adapters`. Validated against the code registry by a test, by `tb lint` and
# by `tb doctor`, so the two cannot drift. This file ships inside the cli package; the
# repository's top-level adapters.yaml is a link to it. Its JSON Schema:
# https://github.com/teambrain/teambrain/blob/main/docs/schemas/adapters-yaml.json
#
# What `tb install` writes, for every tool:
# - an MCP server named `teambrain` running `tb serve` (the `tb` console script; agent tools that
#   should launch the server package alone can point at `teambrain-mcp-server` instead);
# - for tools with hooks, one handler per event running `tb-capture <name>`. The tool name is in
#   the command on purpose: see "double capture" below.
#
# Cross-cutting risks, and what we do about them:
# - Double capture. Cursor (third-party hooks) and VS Code (chat.hookFilesLocations, default on,
#   matchers ignored) also run the hooks in .claude/settings.json, with their own payloads.
#   `tb-capture claude-code` recognises Cursor payloads (cursor_version, conversation_id) and VS
#   Code payloads (camelCase sessionId/hookEventName) and drops them; those sessions are captured
#   by their own adapters.
# - CLAUDE_PROJECT_DIR is no proof of Claude Code: Cursor and Gemini CLI set it too. The tool is
#   the explicit argument of `tb-capture`, never guessed from the environment.
# - Codex records trust against each hook's hash and skips new or changed hooks until the user
#   trusts them in /hooks; project hooks load only in trusted projects. The command string is
#   therefore fixed (`tb-capture codex`) and re-installing never rewrites an unchanged handler.
# - User actions. Claude Code (folder trust, then approving the project's MCP server), Codex
#   (project trust, hook trust) and Gemini CLI (folder trust) load nothing from the repository
#   until the user says so. `tb install` prints the step and `tb doctor` reads the tool's own
#   files to see whether it was taken (each tool module's user steps; `tb help install`).
# - Start-up. Codex leaves an optional MCP server out of a session's first turn when it is not
#   ready within mcp_optional_startup_grace_ms (1 s by default): we set 10 s in the project file
#   rather than `required = true`, which would stop Codex from starting at all whenever teambrain
#   cannot (say, for a teammate without it installed). Gemini CLI's `mcp list` gives a server 5 s
#   to answer unless its entry sets `timeout`, which also bounds tool calls: we set 60 s.
# - Session-end budgets: Claude Code gives SessionEnd hooks 1.5 s in total unless a handler sets
#   a longer timeout; Gemini CLI does not wait for SessionEnd and Cursor's sessionEnd is
#   fire-and-forget. `tb-capture` is fast (about a bare interpreter start) and tools without a
#   session-end hook get their session_end when the session has been idle for 12 hours.
# - Parsers: Claude Code settings are strict JSON (a comment is a settings error), Gemini CLI and
#   VS Code accept JSONC; `tb install` edits text in place (comments and key order kept) and
#   refuses to touch a file that does not parse. Codex is TOML, edited with tomlkit.
# - Hook stdout: Codex and Gemini CLI read hook stdout as context or messages and Cursor parses
#   it as JSON, so `tb-capture` prints nothing, except `{}` (or {"continue":true} before a
#   prompt) for Cursor.
"""

# Plain scalars YAML reads back as the same string: in a flow ([..], {..}) and in a block.
_PLAIN = re.compile(r"^[A-Za-z_./~][A-Za-z0-9_./~@+-]*$")
_PLAIN_BLOCK = re.compile(r"^[A-Za-z_./~][^#:\n]*(?::[^ \n#][^#:\n]*)*$")
_YAML_WORDS = frozenset({"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"})
# The defaults of adapters.yaml's fields (schema AdapterSpec): left out, as a person would.
_DEFAULTS: dict[str, Any] = {
    "scope": "project", "entry_type": None, "entry": {}, "file_defaults": {}, "servers": "map",
    "command_style": "split", "alternate_path": None, "shape": "grouped", "matchers": {},
    "handler": {},
}  # fmt: skip
_ORDER = {
    "mcp": ("path", "format", "key", "scope", "entry_type", "entry", "file_defaults", "servers",
            "command_style", "alternate_path"),
    "hooks": ("path", "format", "shape", "events", "matchers", "handler", "file_defaults",
              "alternate_path"),
}  # fmt: skip


def _scalar(value: Any, *, block: bool = False) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    plain = _PLAIN_BLOCK if block else _PLAIN
    if plain.match(text) and text == text.strip() and text.lower() not in _YAML_WORDS:
        return text
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted one


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_scalar(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return _scalar(value)


def _block(name: str, spec: dict[str, Any]) -> list[str]:
    lines = [f"    {name}:"]
    for key in _ORDER[name]:
        value = spec.get(key)
        if key in _DEFAULTS and value == _DEFAULTS[key]:
            continue
        text = _scalar(value, block=True) if isinstance(value, str) else _flow(value)
        lines.append(f"      {key}: {text}")
    return lines


def _module_path(adapter: Adapter) -> str | None:
    """The file of the tool module defining ``adapter``, relative to the repository."""
    name = MODULES.get(adapter.name)
    return "packages/cli/src/" + name.replace(".", "/") + ".py" if name else None


def render(adapters: dict[str, Adapter] | None = None) -> str:
    """The text of adapters.yaml for ``adapters`` (default: the built-in registry)."""
    out = [HEADER.rstrip("\n"), "version: 1", "adapters:"]
    entries = []
    for adapter in (adapters or ADAPTERS).values():
        spec = adapter.as_spec()
        lines = []
        where = _module_path(adapter)
        if where:
            lines.append(f"  # {where}")
        lines.append(f"  - name: {_scalar(spec['name'])}")
        lines.append(f"    title: {_scalar(spec['title'], block=True)}")
        if spec["aliases"]:
            lines.append(f"    aliases: {_flow(spec['aliases'])}")
        lines.append("    docs:")
        lines += [f"      - {_scalar(url, block=True)}" for url in spec["docs"]]
        lines += _block("mcp", spec["mcp"])
        if spec["hooks"] is not None:
            lines += _block("hooks", spec["hooks"])
        if spec["notes"]:
            lines.append("    notes: >-")
            lines += textwrap.wrap(
                spec["notes"], width=96, initial_indent="      ", subsequent_indent="      "
            )
        entries.append("\n".join(lines))
    return "\n".join(out) + "\n" + "\n\n".join(entries) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write adapters.yaml (the package's copy; the top-level one links to it) and, given the
    docs folder (``--docs docs``), the docs' generated tables of tools (:mod:`.doc_tables`)."""
    args = list(argv or [])
    docs = None
    if "--docs" in args:
        at = args.index("--docs")
        docs = Path(args[at + 1])
        del args[at : at + 2]
    target = Path(args[0]) if args else bundled_adapters_file()
    target.write_text(render(), "utf-8")
    print(f"wrote {target}")
    if docs is not None:
        from .doc_tables import write

        for path in write(docs):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
