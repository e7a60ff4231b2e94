"""``tb install <tool>``: wire teambrain's MCP server and capture hooks into an agent tool."""

from __future__ import annotations

from pathlib import Path

import click

from .._agent_tools.here import user_steps
from .._agent_tools.install import adapter_notes, apply_install, plan_install
from .._agent_tools.registry import (
    Adapter,
    plugin_adapter_problems,
    plugin_adapters,
    plugin_adapters_loaded,
    resolve_adapter,
    supported_tools,
)
from .._console.context import require_repo
from .._console.output import echo, emit_json
from .._console.trust import interactive
from ._complete import complete_tools


@click.command("install")
@click.argument("tool", required=False, shell_complete=complete_tools)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option(
    "--list", "list_tools", is_flag=True, help="List every supported tool and what it gets; exit."
)
@click.option("--json", "as_json", is_flag=True, help="Print what was done as JSON.")
def command(tool: str | None, dry_run: bool, list_tools: bool, as_json: bool = False) -> None:
    """Merge teambrain into TOOL's config in this repository: an MCP server named `teambrain`
    (`tb serve`) and, where the tool has hooks, capture hooks running `tb-capture TOOL`.

    Other servers and hooks are kept, as are comments and layout; running it again changes
    nothing. Prints what changed as a diff. Unknown TOOL: exit 1 with the supported list.
    `--list` prints every supported tool, its files and whether it has hooks. The brain's
    search index is built too when it is missing, so the first agent session need not wait.

    \b
    Examples:
      tb install claude-code
      tb install cursor --dry-run     the diff, nothing written
      tb install --list
    """
    if list_tools:
        if as_json:
            emit_json({"ok": True, "tools": _tools_json()})
        else:
            _print_tools()
        _warn_left_out_plugins()
        return
    if tool is None:
        _warn_left_out_plugins()
        raise click.UsageError(
            f"name a tool (or --list); supported: {', '.join(supported_tools())}"
        )
    try:
        adapter = resolve_adapter(tool)
    finally:
        _warn_left_out_plugins()
    repo = require_repo()
    asked: list[str] = []

    def confirm(question: str) -> bool:
        """A repository file that a (committed) link leads outside the repository: a dry run
        shows where it would go; a real install asks on a terminal, and refuses elsewhere."""
        asked.append(question)
        if dry_run:
            return True
        return interactive() and click.confirm(question, default=False, err=True)

    plan = plan_install(adapter, repo, confirm=confirm)
    if not (repo / ".teambrain").is_dir():
        plan.notes.append(
            "no brain here yet: `tb init` creates .teambrain/ (until then the server's answers "
            "say to run it, and the agent gets no team memory)"
        )
    if dry_run:
        plan.notes += [f"{q.removesuffix('?')} (`tb install` asks first)" for q in asked]
    if plan.changed and not dry_run:
        # Written before anything is printed: output piped into `head` (which closes the pipe
        # early) must not stop the install half-way through reporting it.
        apply_install(plan)
    index = None if dry_run else ensure_index(repo)
    pending = [step for step in user_steps(adapter.name, repo) if not step.done]
    if as_json:
        emit_json(
            {
                "ok": True, "tool": adapter.name, "dry_run": dry_run, "changed": plan.changed,
                "files": [
                    {"path": c.display, "status": c.status, "changed": c.changed,
                     "actions": list(c.actions)}
                    for c in plan.files
                ],
                "notes": list(plan.notes),
                "steps": [{"name": p.name, "detail": p.detail, "fix": p.fix} for p in pending],
                "index": index,
            }
        )  # fmt: skip
        return
    verb = "Would install" if dry_run else "Installing"
    echo(f"{verb} teambrain for {adapter.title} in {repo}:")
    for change in plan.files:
        what = "; ".join(change.actions) if change.actions else "already set up"
        status = {"create": "created", "update": "updated"}.get(change.status, change.status)
        if dry_run and change.changed:
            status = f"would {change.status}"
        echo(f"  {change.display}: {status} ({what})")
    for note in plan.notes:
        echo(f"  note: {note}")
    for change in plan.files:
        if change.changed:
            click.echo(change.diff(), nl=False)
    if not plan.changed:
        echo(f"Nothing to change: teambrain is already installed for {adapter.title}.")
    elif dry_run:
        echo("Dry run: nothing was written.")
    else:
        notes = adapter_notes(adapter)
        if notes:
            echo(f"Note: {notes}")
        if adapter.hooks is not None:
            echo(
                f"Check what gets recorded with `tb audit` after your next {adapter.title} session."
            )
    if index is not None:
        echo(str(index["message"]))
    if pending:
        echo(
            f"{adapter.title} serves no team memory here until you (and each teammate) have done "
            "this once; `tb doctor` checks it:"
        )
        for number, step in enumerate(pending, start=1):
            echo(f"  {number}. {step.name}: {step.fix}")


def ensure_index(repo: Path) -> dict[str, object] | None:
    """Bring the brain's search index up to date (built when missing: the first agent session
    then does not wait for it); None without a brain. Never fails the install: a problem is
    reported and the first search builds the index instead."""
    from teambrain_kit.paths import BrainLayout

    layout = BrainLayout(repo)
    if not layout.root.is_dir():
        return None
    try:
        from teambrain_retrieval import RetrieverOptions, open_retriever

        notices: list[str] = []
        retriever = open_retriever(layout, RetrieverOptions(warn=notices.append))
        try:
            retriever.refresh(force=True)
            documents = retriever.stats().documents
        finally:
            retriever.close()
    except Exception as exc:
        reason = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        return {"ok": False, "documents": None,
                "message": f"Search index not built ({reason}); the first search builds it."}  # fmt: skip
    word = "memory" if documents == 1 else "memories"
    return {"ok": True, "documents": documents,
            "message": f"Search index ready: {documents} {word} indexed."}  # fmt: skip


def _tools_json() -> list[dict[str, object]]:
    from .._agent_tools.registry import ADAPTERS

    adapters: dict[str, Adapter] = {**plugin_adapters(), **ADAPTERS}
    return [
        {"name": name, "title": a.title, "mcp": a.mcp.path,
         "hooks": a.hooks.path if a.hooks is not None else None}
        for name, a in sorted(adapters.items())
    ]  # fmt: skip


def _warn_left_out_plugins() -> None:
    """One line on stderr per adapter plugin left out, when plugins were looked at."""
    if plugin_adapters_loaded():
        for _name, problem in plugin_adapter_problems():
            click.echo(f"warning: {problem}; left out", err=True)


def _print_tools() -> None:
    """One line per supported tool: name, title, MCP file, hooks (or why none)."""
    from .._agent_tools.registry import ADAPTERS

    adapters: dict[str, Adapter] = {**plugin_adapters(), **ADAPTERS}
    width = max(len(name) for name in adapters)
    for name in supported_tools():
        adapter = adapters[name]
        aliases = f" (also: {', '.join(adapter.aliases)})" if adapter.aliases else ""
        scope = " [user]" if adapter.mcp.scope == "user" else ""
        hooks = f"hooks {adapter.hooks.path}" if adapter.hooks else "no hooks: memory only"
        echo(
            f"{name:<{width}}  {adapter.title}{aliases}: MCP {adapter.mcp.path}{scope}; {hooks}",
            hang=width + 2,
        )
