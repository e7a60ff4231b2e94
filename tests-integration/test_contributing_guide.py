"""docs/contributing.md's recipes for a CLI verb, an LLM driver and an MCP tool, followed in a copy
of the repository (issue 43, point 6).

The working tree (the files git tracks or would track) is copied once into a temporary
directory, made a git repository and given a venv of its own from uv.lock (the sync ``make
venv`` runs, offline from uv's cache and without compiling bytecode). Each test starts from that
commit, adds a throwaway verb, driver or tool with the files the guide's section names, leaving one step out;
the section's check (its ``sh`` block, run as written, ``make`` with ``-o venv``) must fail naming
that step. With the step done the check must pass, and every file the recipe changed must be
one the section names.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "contributing.md"
# Read when this module loads: each test gets a HOME of its own (the root conftest.py), and the
# copy's venv is made offline from the uv cache `make venv` filled.
UV_CACHE = os.environ.get("UV_CACHE_DIR") or str(
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "uv"
)

pytestmark = pytest.mark.xdist_group("contributing_guide")


def section(title: str) -> str:
    """The text of the guide's ``## <title>`` section."""
    text = GUIDE.read_text("utf-8")
    assert f"\n## {title}\n" in text, f"docs/contributing.md has no section {title!r}"
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def check_command(text: str) -> str:
    """The section's check: its one ``sh`` block."""
    blocks = re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)
    assert len(blocks) == 1, "each recipe names exactly one check command"
    return blocks[0].strip()


def uv() -> list[str]:
    """uv as the Makefile runs it (``$(PYTHON) -m uv``), or the one on PATH."""
    found = shutil.which("uv")
    return [found] if found else ["python3", "-m", "uv"]


@dataclass
class Copy:
    root: Path
    env: dict[str, str]

    def run(
        self, command: list[str] | str, *, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            command, cwd=self.root, env=self.env, shell=isinstance(command, str),
            executable="/bin/bash" if isinstance(command, str) else None,
            capture_output=True, text=True, check=False, timeout=600,
        )  # fmt: skip
        if check and done.returncode != 0:
            raise AssertionError(f"{command} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
        return done

    def write(self, path: str, text: str) -> None:
        (self.root / path).parent.mkdir(parents=True, exist_ok=True)
        (self.root / path).write_text(text, "utf-8")

    def edit(self, path: str, old: str, new: str) -> None:
        text = (self.root / path).read_text("utf-8")
        assert text.count(old) == 1, f"{path}: {old!r} is not there once"
        (self.root / path).write_text(text.replace(old, new), "utf-8")

    def sync(self) -> None:
        """What ``make venv`` / ``make install`` do for the Python side: a uv sync from uv.lock
        (offline, from the cache; no bytecode compiled ahead)."""
        self.run([*uv(), "sync", "--all-packages", "--locked", "--offline", "--quiet"])

    def follow_check(self, text: str) -> subprocess.CompletedProcess[str]:
        """Run the section's check as written; its ``make`` targets with ``-o venv`` (the venv
        is synced already) and with ``venv`` itself done as :meth:`sync` does it."""
        command = check_command(text)
        make, _, tests = command.partition(" && ")
        assert make.startswith("make ") and tests.startswith(".venv/bin/python -m pytest")
        targets = make.split()[1:]
        if "venv" in targets or "install" in targets:
            self.sync()
        targets = [target for target in targets if target not in ("venv", "install")]
        self.run(["make", "--no-print-directory", "-o", "venv", *targets])
        return self.run(tests, check=False)

    def changed(self) -> set[str]:
        """The paths the recipe changed or added since the copy was made."""
        out = self.run(["git", "status", "--porcelain", "--untracked-files=all"]).stdout
        return {line[3:].strip() for line in out.splitlines()}


def environment() -> dict[str, str]:
    """This test's environment (its own HOME: the root conftest.py), for the copy's commands."""
    env = {
        key: value for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "VIRTUAL_ENV", "PYTHONPATH", "UV_PROJECT_ENVIRONMENT"))
    }  # fmt: skip
    env.update(UV_CACHE_DIR=UV_CACHE, UV_PYTHON_DOWNLOADS="never", UV_PYTHON=sys._base_executable)
    return env


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The copy: the working tree's files, committed in a repository of their own, with a venv
    (made once: the recipes share it, so its modules are compiled once)."""
    root = tmp_path_factory.mktemp("guide") / "teambrain"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in listed:
        source = ROOT / name
        if name and source.is_file() and not source.is_symlink():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    made = Copy(root, environment())
    made.run(["git", "init", "-q"])
    made.run(["git", "add", "-A"])
    made.run(["git", "commit", "-q", "--no-verify", "-m", "the repository as it is"])
    made.sync()
    return root


@pytest.fixture
def copy(base: Path) -> Copy:
    """The copy as it was made (what an earlier recipe added is undone, and the venv synced to
    it again)."""
    made = Copy(base, environment())
    made.run(["git", "reset", "-q", "--hard"])
    made.run(["git", "clean", "-q", "-d", "--force"])  # not -x: the venv and caches stay
    made.sync()
    return made


def named_in(text: str, path: str) -> bool:
    """Whether the section names ``path``: in full, by its file name alone (``_handshake.json``),
    or, for a shipped help page, by the ``make help-pages`` that writes it."""
    if path in text or f"`{Path(path).name}`" in text:
        return True
    return "/_help/pages/" in path and "make help-pages" in text


@dataclass
class Recipe:
    title: str
    placeholders: dict[str, str]
    all_but_one_step: Callable[[Copy], None]
    left_out: Callable[[Copy], None]
    failing_test: str  # what the check names while the step is left out


# -- a CLI verb: `tb hello` --------------------------------------------------------------------

HELLO = '''\
"""``tb hello``: a throwaway verb (tests-integration/test_contributing_guide.py)."""

from __future__ import annotations

import click


@click.command("hello")
@click.option("--name", default="world", show_default=True, help="Who to greet.")
def command(name: str) -> None:
    """Greet someone.

    \\b
    Examples:
      tb hello
      tb hello --name team
    """
    click.echo(f"hello {name}")
'''

HELLO_PAGE = """\
# `tb hello`

Greets someone: a throwaway verb.

```sh
tb hello [--name NAME]
```

- `--name NAME`: who to greet (default: world).
"""


def verb_steps(copy: Copy) -> None:
    copy.write("packages/cli/src/teambrain_cli/_commands/hello.py", HELLO)
    copy.write("docs/cli/hello.md", HELLO_PAGE)


def verb_summary(copy: Copy) -> None:
    copy.edit(
        "packages/cli/src/teambrain_cli/_main.py",
        "SUMMARIES = {\n",
        'SUMMARIES = {\n    "hello": "Greet someone (a throwaway verb)",\n',
    )


# -- an LLM driver: `echo` ----------------------------------------------------------------------

ECHO = '''\
"""Driver ``echo``: a throwaway driver (tests-integration/test_contributing_guide.py)."""

from __future__ import annotations

from typing import Any

from teambrain_schema import DistillConfig

from ._budget import AttemptGuard
from ._errors import ModelUnavailable
from ._request import Request


class EchoDriver:
    name = "echo"

    def __init__(self, config: DistillConfig) -> None:
        self.config = config

    def generate(
        self, request: Request, schema: Any, *, guard: AttemptGuard,
        context: dict[str, Any] | None = None,
    ) -> Any:
        raise ModelUnavailable("echo: a throwaway driver answers nothing")
'''


def driver_steps(copy: Copy) -> None:
    copy.write("packages/distill/src/teambrain_distill/_echo.py", ECHO)
    copy.edit(
        "packages/distill/src/teambrain_distill/_drivers.py",
        "\n\n# The built-in drivers, each",
        """

def _echo(config: DistillConfig, brain_dir: Path | None) -> Driver:
    from ._echo import EchoDriver

    return EchoDriver(config)


# The built-in drivers, each""",
    )
    text = (copy.root / "packages/distill/src/teambrain_distill/_drivers.py").read_text()
    copy.write(
        "packages/distill/src/teambrain_distill/_drivers.py",
        text
        + 'echo_driver = BuiltinDriver(_echo, default_url="http://localhost:9/echo", client=None)\n',
    )
    copy.edit(
        "packages/distill/pyproject.toml",
        'ollama = "teambrain_distill._drivers:ollama_driver"\n',
        'ollama = "teambrain_distill._drivers:ollama_driver"\n'
        'echo = "teambrain_distill._drivers:echo_driver"\n',
    )
    table = (copy.root / "docs/distill.md").read_text("utf-8")
    ollama_row = next(line for line in table.splitlines() if line.startswith("| `ollama` |"))
    copy.edit(
        "docs/distill.md",
        ollama_row + "\n",
        ollama_row + "\n| `echo` | nothing: a throwaway driver | nothing | none |\n",
    )


def driver_literal(copy: Copy) -> None:
    copy.edit(
        "packages/schema/src/teambrain_schema/_config.py",
        '"openai", "ollama"] = "none"',
        '"openai", "ollama", "echo"] = "none"',
    )


# -- an MCP tool: `memory_ping` -----------------------------------------------------------------

PING = '''\
"""``memory_ping()``: a throwaway tool (tests-integration/test_contributing_guide.py)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from teambrain_schema import MemoryPingResult

from .._service import BrainService
from ._answers import reply

NAME = "memory_ping"
DESCRIPTION = """\
Answers ok when the team brain's server is there: a throwaway tool that the contributing guide's \
test adds."""


def register(server: MCPServer, service: BrainService) -> None:
    """Add ``memory_ping`` to ``server``."""

    @server.tool(
        name=NAME,
        title="Ping the team brain",
        description=DESCRIPTION,
        annotations=ToolAnnotations(
            title="Ping the team brain", read_only_hint=True, idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    def memory_ping() -> Annotated[CallToolResult, MemoryPingResult]:
        return reply(MemoryPingResult(), "ok")
'''


def tool_steps(copy: Copy) -> None:
    mcp = (copy.root / "packages/schema/src/teambrain_schema/_mcp.py").read_text("utf-8")
    copy.write(
        "packages/schema/src/teambrain_schema/_mcp.py",
        mcp + '\n\nclass MemoryPingResult(_Io):\n    """``memory_ping`` result."""\n\n'
        "    ok: Literal[True] = True\n",
    )
    copy.edit(
        "packages/schema/src/teambrain_schema/__init__.py",
        '    "MemoryFeedbackResult": "_mcp",\n',
        '    "MemoryFeedbackResult": "_mcp",\n    "MemoryPingResult": "_mcp",\n',
    )
    copy.edit(
        "packages/schema/tests/test_exports.py",
        '    "MemoryProposeInput",\n',
        '    "MemoryPingResult",\n    "MemoryProposeInput",\n',
    )
    copy.write("packages/mcp-server/src/teambrain_mcp_server/_tools/ping.py", PING)
    copy.edit(
        "packages/mcp-server/src/teambrain_mcp_server/_tools/__init__.py",
        '"feedback")',
        '"feedback", "ping")',
    )


def tool_docs(copy: Copy) -> None:
    copy.edit(
        "docs/mcp.md",
        "\n## Errors\n",
        "\n## `memory_ping()`\n\nAnswers `{ok: true}`: a throwaway tool.\n\n## Errors\n",
    )


RECIPES = {
    "cli-verb": Recipe(
        "Adding a CLI verb", {"<verb>": "hello"}, verb_steps, verb_summary,
        "test_no_summary_is_cut_and_every_verb_has_one",
    ),
    "llm-driver": Recipe(
        "Adding an LLM driver", {"<driver>": "echo"}, driver_steps, driver_literal,
        "test_the_config_model_names_exactly_the_built_in_drivers_and_each_builds",
    ),
    "mcp-tool": Recipe(
        "Adding an MCP tool", {"<tool>": "ping", "<Tool>": "Ping"}, tool_steps, tool_docs,
        "test_every_mcp_tool_has_its_section",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_the_recipe_works_and_its_check_catches_a_step_left_out(copy: Copy, name: str) -> None:
    recipe = RECIPES[name]
    text = section(recipe.title)
    recipe.all_but_one_step(copy)
    failed = copy.follow_check(text)
    assert failed.returncode != 0, f"{name}: the check passed with a step left out"
    assert recipe.failing_test in failed.stdout, failed.stdout[-4000:]
    recipe.left_out(copy)
    passed = copy.follow_check(text)
    assert passed.returncode == 0, f"{name}: the check failed:\n{passed.stdout[-6000:]}"
    for placeholder, value in recipe.placeholders.items():
        text = text.replace(placeholder, value)
    unnamed = sorted(path for path in copy.changed() if not named_in(text, path))
    assert not unnamed, f"{name}: the recipe changed files its section does not name: {unnamed}"
