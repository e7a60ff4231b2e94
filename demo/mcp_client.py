"""A small MCP client for the demo: start the teambrain server the way an agent tool does and
call each of its tools, printing what comes back.

It uses the MCP Python SDK's stdio client. The server command comes from the repository's
.mcp.json (what `tb install claude-code` wrote), falling back to `tb serve`.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

BOLD, DIM, RESET = ("\033[1m", "\033[2m", "\033[0m") if sys.stdout.isatty() else ("", "", "")


def server_command(repo: Path) -> tuple[str, list[str]]:
    """The teambrain server as the project's .mcp.json registers it (else `tb serve`)."""
    try:
        entry = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["teambrain"]
        return str(entry["command"]), [str(arg) for arg in entry.get("args", [])]
    except (OSError, ValueError, KeyError, TypeError):
        return "tb", ["serve"]


def call_line(name: str, arguments: dict[str, Any]) -> None:
    shown = json.dumps(arguments, ensure_ascii=False)
    print(f"\n{BOLD}→ {name}({shown if arguments else ''}){RESET}")


def indent(text: str, prefix: str = "    ") -> str:
    return textwrap.indent(text, prefix, lambda _line: True)


def show_memories(label: str, memories: list[dict[str, Any]]) -> None:
    print(f"  {label}:")
    if not memories:
        print("    (none)")
    for memory in memories:
        provenance = memory["provenance"]
        commit = (provenance.get("commit") or "uncommitted")[:7]
        print(f"    {memory['id']}  {memory['class']:<10} {memory['title']}")
        print(f"    {DIM}{'':26}  {provenance['path']} @ {commit}{RESET}")


async def main() -> int:
    repo = Path.cwd()
    command, args = server_command(repo)
    print(f"{DIM}starting: {command} {' '.join(args)}   (in {repo}){RESET}")
    # The SDK hands a server only a minimal environment unless told; pass ours (TEAMBRAIN_HOME,
    # and CLAUDE_CODE_SESSION_ID when the demo plays a Claude Code session).
    parameters = StdioServerParameters(command=command, args=args, cwd=repo, env=dict(os.environ))
    async with Client(parameters) as client:
        info = client.server_info
        print(
            f"connected to {BOLD}{info.name if info else '?'}{RESET} {info.version if info else ''}"
        )
        print("tools:")
        for tool in (await client.list_tools()).tools:
            hints = tool.annotations
            kind = "read-only" if hints and hints.read_only_hint else "writes locally"
            print(f"  {tool.name:<16} {DIM}{kind}{RESET}  {tool.title or ''}")

        call_line("memory_context", {})
        context = await client.call_tool("memory_context", {})
        data = context.structured_content or {}
        show_memories("required", data.get("required", []))
        show_memories("relevant to this branch and its changes", data.get("relevant", []))
        print(f"  ~{data.get('token_estimate')} of {data.get('budget')} tokens"
              f"{'  OVER BUDGET' if data.get('over_budget') else ''}")  # fmt: skip
        if data.get("required"):
            print("  the first required memory, exactly as the agent reads it:")
            print(indent(data["required"][0]["body"]))

        query = {"query": "can I call the Stripe SDK directly?", "k": 3}
        call_line("memory_search", query)
        found = await client.call_tool("memory_search", query)
        results = (found.structured_content or {}).get("results", [])
        show_memories("ranked", results)

        draft = {
            "class": "learning",
            "title": "Apply cart discounts in integer cents",
            "body": "Compute discounted totals with `total_with_discount` in "
            "`src/shop/checkout/cart.py`; amounts stay integer cents, round down.",
            "tags": ["checkout", "money"],
        }
        call_line("memory_propose", {"draft": draft})
        proposed = await client.call_tool("memory_propose", {"draft": draft})
        print(f"  {proposed.structured_content}")
        print(f"  {DIM}{proposed.content[0].text}{RESET}")  # type: ignore[union-attr]

        if results:
            vote = {"id": results[0]["id"], "useful": True}
            call_line("memory_feedback", vote)
            rated = await client.call_tool("memory_feedback", vote)
            print(f"  {rated.structured_content}")

        print(f"\n{BOLD}Bad calls are tool errors; the server keeps serving:{RESET}")
        for name, arguments in (
            ("memory_search", {"query": "   ", "k": 0}),
            ("memory_feedback", {"id": "01KB2F0A1S9Y4Q7V3C8D5E6F00", "useful": True}),
            ("memory_propose", {"draft": {"class": "rumour", "title": "x" * 90, "body": "b"}}),
        ):
            call_line(name, arguments)
            result = await client.call_tool(name, arguments)
            print(f"  isError={result.is_error}: {result.content[0].text}")  # type: ignore[union-attr]
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
