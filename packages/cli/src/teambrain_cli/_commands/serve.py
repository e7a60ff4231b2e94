"""``tb serve``: run the teambrain MCP server on stdio (agent tools start it for you)."""

from __future__ import annotations

from pathlib import Path

import click

from .._console.choice import Choice


@click.command("serve")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Serve this repository's brain instead of the current directory's.",
)
@click.option(
    "--log-level",
    type=Choice(["debug", "info", "warning", "error"], case_sensitive=False),
    default="warning",
    show_default=True,
    help="What the server logs to stderr.",
)
def command(repo: Path | None, log_level: str) -> int:
    """Run the teambrain MCP server on stdio for this repository's brain.

    Agent tools (Claude Code, Cursor, Codex, Gemini CLI, VS Code, …) launch it in the project
    directory; its four tools are memory_context, memory_search, memory_propose and
    memory_feedback. It starts even without a brain: the tools then say to run `tb init`.

    \b
    Examples:
      tb serve                  (agent tools run it; `tb install <tool>` wires it)
    """
    from teambrain_mcp_server import serve

    from .. import _main

    code = serve(repo, log_level=log_level)
    # The server's daemon threads (the brain's opening, the model's load) may still be inside
    # native code or writing to stderr: tearing the interpreter down under them can abort
    # (SIGABRT) instead of exiting 0. The heartbeat is marked stopped and nothing is left to
    # flush to a client that closed the connection.
    _main.quick_exit_ok = True
    return code
