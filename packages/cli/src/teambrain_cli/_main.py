"""The ``tb`` entry point: a lazily loaded click group and the error → exit-code mapping.

Each verb lives in ``_commands/<verb>.py`` and is imported only when it runs, so ``tb relevant``
does not pay for the MCP SDK and ``tb lint`` does not pay for numpy.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import re
import sys
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource
from teambrain_schema import ExitCode, TeambrainError

from . import _commands
from ._console.context import check_home

DEBUG_ENV = "TEAMBRAIN_DEBUG"


def _verb(module: str) -> str:
    """The verb of a ``_commands`` module: ``-`` for ``_``, and a trailing ``_`` dropped
    (``import_.py`` is ``tb import``: a Python keyword cannot name a module)."""
    return module.rstrip("_").replace("_", "-")


# The one line each verb gets in `tb --help` (whole: click would cut a docstring's first
# sentence at 45 characters with "..."). A verb missing here shows its docstring's first line.
SUMMARIES = {
    "audit": "Show exactly what capture recorded on this machine",
    "candidates": "The review queue: list, show and drop candidates before `tb propose`",
    "completion": "Print the shell completion script for bash, zsh or fish",
    "digest": "The weekly report: is the brain used, does it help (small cells hidden)",
    "distill": "Turn captured sessions into memory candidates (the only step that calls a model)",
    "doctor": "Is teambrain ready here? Each problem comes with a one-line fix",
    "export": "Write the required memories into a marked section of AGENTS.md",
    "graph": "The brain's graph: its nodes, or one node with its neighbours and memories",
    "import": "Turn CLAUDE.md, AGENTS.md, rules files… into candidates for review",
    "init": "Create .teambrain/ in this repository and the machine-local folders",
    "install": "Wire teambrain's MCP server and capture hooks into an agent tool",
    "lint": "Check the brain: schema, paths, secrets, supersedes chains, INDEX.md",
    "list": "List the brain's memories, one line each (filter by class, tag, staleness…)",
    "metrics": "Local health: memories, index freshness, serve heartbeat, last 7 days",
    "propose": "Turn candidates into memory files on a branch and open a review",
    "reindex": "Regenerate INDEX.md and the search index (rarely needed)",
    "relevant": "The memories relevant to a question or to some files",
    "retire": "Retire a memory, with a reason, as a reviewed commit",
    "serve": "Run the MCP server on stdio (agent tools start it)",
    "show": "Show one memory: body, provenance, history in git, staleness",
    "trust": "Show and approve what brain.yaml sends off this machine",
    "ui": "A local web page: browse the brain, review the queue, see what is stale and used",
    "verify": "Re-prove the privacy promises on this machine, with evidence",
}


class LazyGroup(click.Group):
    """A group whose subcommands are the modules of ``_commands``, imported on demand."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each verb with its whole one-line summary (never cut with "...")."""
        rows = []
        for name in self.list_commands(ctx):
            summary = SUMMARIES.get(name)
            if summary is None:
                command = self.get_command(ctx, name)
                summary = command.get_short_help_str(limit=200) if command else ""
            rows.append((name, summary))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click's, with the closest verb suggested for a mistyped one."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1, cutoff=0.5)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise click.UsageError(f"No such command {name!r}.{hint}", ctx)
        return super().resolve_command(ctx, args)

    def _modules(self) -> dict[str, str]:
        names = (info.name for info in pkgutil.iter_modules(_commands.__path__))
        return {_verb(name): name for name in names if not name.startswith("_")}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._modules())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name == "help":
            return help_command
        module_name = self._modules().get(cmd_name)
        if module_name is None:
            return None
        module = importlib.import_module(f"{_commands.__name__}.{module_name}")
        command: click.Command = module.command
        return command


@click.command("help", hidden=True, context_settings={"ignore_unknown_options": True})
@click.argument("words", nargs=-1, metavar="[TOPIC]...")
@click.pass_context
def help_command(ctx: click.Context, words: tuple[str, ...]) -> None:
    """`tb help` is `tb --help`; `tb help <topic>` prints the documentation shipped with tb —
    a verb's page (`tb help propose`, a subcommand's section: `tb help candidates show`), a guide
    (`tb help config`, `tb help mcp`), one section (`tb help config#machine-local-settings`); `tb help
    topics` lists them. Paged on a terminal, as git and gh do."""
    from ._console.output import colour_on, page
    from ._help.pages import find_page, page_text, render, section, topics_text

    if not words:
        command: click.Command = ctx.find_root().command
        with click.Context(command, info_name=ctx.find_root().info_name or "tb") as help_ctx:
            click.echo(command.get_help(help_ctx))
        return
    if words == ("topics",):
        page(topics_text())
        return
    found, anchor = find_page(words)
    text = page_text(found)
    if anchor:
        part = section(text, anchor)
        if part is None:
            if len(words) > 1 and "#" not in " ".join(words):
                raise click.UsageError(f"`tb {words[0]}` has no subcommand {words[1]!r}")
            raise click.UsageError(
                f"{found.topic} has no section #{anchor}: `tb help {found.topic}`"
            )
        text = part
    page(render(found, text, bold=colour_on()))


PACKAGES = (
    "teambrain-cli", "teambrain-mcp-server", "teambrain-sync", "teambrain-distill",
    "teambrain-retrieval", "teambrain-capture", "teambrain-schema",
)  # fmt: skip


def version_text() -> str:
    """``tb --version``: tb's version, then each of the seven packages (they are released on
    their own, so a bug report needs all seven) and the Python running them."""
    import platform
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    lines = [f"tb {version('teambrain-cli')}"]
    lines += [f"  {name:<21} {version(name)}" for name in PACKAGES]
    lines.append(f"  {'python':<21} {platform.python_version()} ({sys.executable})")
    return "\n".join(lines)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(version_text())
        ctx.exit()


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version of tb and of each teambrain package, and exit.")  # fmt: skip
def cli() -> None:
    """teambrain: shared, reviewable memory for your team's AI coding agents.

    Start with `tb init`, `tb install <tool>` and `tb doctor`. `tb <verb> -h` shows a verb's
    options and examples; `tb help <verb>` prints its documentation, and `tb help topics` lists
    the guides shipped with tb (`tb help config`, `tb help mcp`, …).

    Exit codes: 0 ok · 1 user error · 2 environment error · 3 lint/validation failure.
    """
    check_home()


# Verbs whose ``--format json`` prints the report as JSON on stdout (``--out`` writes a file).
JSON_FORMAT_VERBS = frozenset({"digest"})


def _wants_json(argv: list[str]) -> bool:
    """Whether a failure also prints ``{"ok": false, "error": ...}`` on stdout: with ``--json``,
    and with ``--format json`` (not ``--out``) on the verbs of :data:`JSON_FORMAT_VERBS`."""
    return any(arg == "--json" or arg.startswith("--json=") for arg in argv) or _json_format(argv)


def _json_format(argv: list[str]) -> bool:
    verb = next((i for i, arg in enumerate(argv) if not arg.startswith("-")), None)
    if verb is None or argv[verb] not in JSON_FORMAT_VERBS:
        return False
    command = cli.get_command(click.Context(cli), argv[verb])
    if command is None:
        return False
    try:  # click's own reading of the options (last one wins, ``--format=json``, values)
        ctx = command.make_context(argv[verb], argv[verb + 1 :], resilient_parsing=True)
    except click.ClickException:
        return False
    out_given = ctx.get_parameter_source("out") is not ParameterSource.DEFAULT
    return ctx.params.get("fmt") == "json" and not out_given


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _report(message: str, code: int, argv: list[str]) -> int:
    # One line, whoever wrote the message (click lists a choice's values one per line).
    message = re.sub(r"[ \t]*[\r\n]+\s*", " ", message.strip())
    # A control character (a name from a crafted commit, in git's own message) is shown
    # escaped, never sent to the terminal.
    message = re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]", _escaped, message)
    from ._console.output import terminal_width, wrap_text

    # Wrapped under its text on a terminal, like every other message; whole when redirected.
    click.echo(wrap_text(f"tb: {message}", terminal_width(err=True), hang=4), err=True)
    if _wants_json(argv):
        click.echo(json.dumps({"ok": False, "error": {"message": message, "exit_code": int(code)}}))
    return int(code)


def _machine_settings() -> None:
    """This machine's settings that retrieval reads from the environment (the org brain's
    location), from ``user/config.toml``; a home that cannot be used is the verbs' to report."""
    from teambrain_capture import apply_machine_settings

    try:
        apply_machine_settings()
    except TeambrainError:
        return


def run(argv: list[str] | None = None) -> int:
    """Run ``tb`` with ``argv`` and return the exit code (never raises for expected failures)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args and "_TB_COMPLETE" not in os.environ:  # bare `tb`: the help, and success
        with cli.make_context("tb", ["--help"], resilient_parsing=True) as ctx:
            click.echo(cli.get_help(ctx))
        return ExitCode.OK
    for position, arg in enumerate(args, 1):
        if "\x00" in arg:  # no file name, ref or text can hold one; the OS would refuse it
            return _report(f"argument {position} contains a NUL byte", ExitCode.USER_ERROR, args)
    try:
        _machine_settings()
        result: Any = cli.main(args=args, prog_name="tb", standalone_mode=False)
    except click.UsageError as exc:
        hint = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx is not None else ""
        return _report(f"{exc.format_message()}{hint}", ExitCode.USER_ERROR, args)
    except click.Abort as exc:
        if isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt):  # Ctrl-C
            click.echo("tb: interrupted", err=True)
            return 130
        click.echo("tb: aborted", err=True)
        return ExitCode.USER_ERROR
    except click.ClickException as exc:
        return _report(exc.format_message(), exc.exit_code, args)
    except TeambrainError as exc:
        return _report(exc.message, exc.exit_code, args)
    except KeyboardInterrupt:
        click.echo("tb: interrupted", err=True)
        return 130
    except BrokenPipeError:
        # The reader went away (``tb relevant | head``): not an error worth a message.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK
    except OSError as exc:
        # The file system said no (a name too long, a read-only or full disk, a permission):
        # an environment problem with the file it named, not a bug.
        if os.environ.get(DEBUG_ENV):
            raise
        name = str(exc.filename) if exc.filename is not None else ""
        name = name if len(name) <= 120 else name[:117] + "..."
        reason = exc.strerror or exc.__class__.__name__
        reason += _home_hint(exc)
        return _report(f"{name}: {reason}" if name else reason, ExitCode.ENVIRONMENT_ERROR, args)
    except Exception as exc:
        if os.environ.get(DEBUG_ENV):
            raise
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        message = f"internal error: {exc.__class__.__name__}{': ' + detail if detail else ''} (set {DEBUG_ENV}=1 for a traceback)"
        return _report(message, ExitCode.ENVIRONMENT_ERROR, args)
    return int(result) if isinstance(result, int) else ExitCode.OK


def _home_hint(exc: OSError) -> str:
    """What to do when the file system refused a write under ``$TEAMBRAIN_HOME`` (read-only,
    no permission): the machine-local folder must be writable, or be put elsewhere."""
    import errno

    from teambrain_schema.paths import machine_layout

    if exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM) or exc.filename is None:
        return ""
    home = machine_layout().home
    try:
        inside = Path(os.fsdecode(exc.filename)).resolve().is_relative_to(home.resolve())
    except (OSError, ValueError, TypeError):
        return ""
    if not inside:
        return ""
    return f" (teambrain keeps this machine's data in {home}: make it writable, or set TEAMBRAIN_HOME to a folder that is)"


# Set by a verb that has written everything it writes (committed SQLite, files renamed into
# place) and holds nothing a finaliser must flush: `tb` then skips tearing the interpreter
# down (~0.1 s with the embedding model loaded, a tenth of a whole `tb relevant`).
quick_exit_ok = False


def main() -> None:
    """Console-script entry point of ``tb``."""
    code = run()
    if quick_exit_ok:
        import atexit

        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can reach the reader
            pass
        atexit._run_exitfuncs()  # what the library registered (thread pools) still runs
        os._exit(code)
    sys.exit(code)
