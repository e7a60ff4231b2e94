"""The architecture is law: import-linter contracts hold, and they really catch violations."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = str(Path(sys.executable).parent / "lint-imports")


def _lint_imports(src_root: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if src_root is not None:
        env["PYTHONPATH"] = os.pathsep.join(str(p) for p in sorted(src_root.iterdir()))
    return subprocess.run(
        [LINT_IMPORTS, "--config", str(ROOT / ".importlinter"), "--no-cache"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_contracts_are_kept() -> None:
    done = _lint_imports()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "statement", "contract"),
    [
        ("teambrain_capture", "import anthropic", "Only teambrain_distill may import LLM clients"),
        ("teambrain_sync", "import teambrain_capture", "sync imports only schema"),
        ("teambrain_schema", "import numpy", "The contract package imports none"),
        ("teambrain_retrieval", "import teambrain_distill", "Layers"),
        # schema's _private modules stay its own; its public sub-modules are for everyone.
        (
            "teambrain_capture",
            "from teambrain_schema._memory import Candidate",
            "Only teambrain_schema imports its own _private modules",
        ),
        # cli's subsystems: siblings stay independent, nothing below reaches up.
        (
            "teambrain_cli._reports",
            "import teambrain_cli._agent_tools.registry",
            "cli's subsystems",
        ),
        (
            "teambrain_cli._agent_tools",
            "from teambrain_cli._reports import status",
            "cli's subsystems",
        ),
        ("teambrain_cli._proposals", "import teambrain_cli._checks.verify", "cli's subsystems"),
        ("teambrain_cli._browse", "import teambrain_cli._proposals.queue", "cli's subsystems"),
        # the web page sits on the subsystems it shows, under the verbs
        ("teambrain_cli._ui", "import teambrain_cli._commands.propose", "cli's subsystems"),
        ("teambrain_cli._reports", "import teambrain_cli._ui.usage", "cli's subsystems"),
        ("teambrain_cli._console", "import teambrain_cli._commands.lint", "cli's subsystems"),
        # retrieval's rooms: the index knows nothing of search, search nothing of the facade,
        # and search reads the index only through its store and embeddings
        (
            "teambrain_retrieval._index",
            "from teambrain_retrieval._search import _backend",
            "retrieval's rooms",
        ),
        (
            "teambrain_retrieval._search",
            "import teambrain_retrieval._retriever",
            "retrieval's rooms",
        ),
        (
            "teambrain_retrieval._search",
            "from teambrain_retrieval._index import _db",
            "retrieval's search reads the index",
        ),
    ],
)
def test_a_planted_violation_breaks_its_contract(
    tmp_path: Path, module: str, statement: str, contract: str
) -> None:
    src_root = tmp_path / "src"
    for package in (ROOT / "packages").iterdir():
        for source in (package / "src").iterdir():
            shutil.copytree(source, src_root / source.name / source.name)
    top = module.split(".", maxsplit=1)[0]
    target = src_root / top / Path(*module.split(".")) / "_planted.py"
    target.write_text(statement + "\n")
    done = _lint_imports(src_root)
    assert done.returncode != 0
    flat = " ".join(done.stdout.split())
    assert f"{contract}" in flat and "BROKEN" in flat, done.stdout
    assert f"{module}._planted ->" in flat, done.stdout


def _git_spawns(source: str) -> list[int]:
    """Lines of ``source`` that start a process whose argument list begins with "git"."""
    import ast

    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0]
        if name in ("run", "Popen", "check_output", "check_call", "call") and isinstance(
            first, (ast.List, ast.Tuple)
        ):
            head = first.elts[0] if first.elts else None
            if isinstance(head, ast.Constant) and head.value == "git":
                lines.append(node.lineno)
    return lines


def test_git_runs_only_through_the_schema_runner() -> None:
    """One git runner (teambrain_schema.git.run_git: scrubbed GIT_DIR & co, timeouts that end git's
    helpers); a subprocess call with a literal "git" anywhere else bypasses both."""
    offenders = []
    for path in sorted((ROOT / "packages").glob("*/src/**/*.py")):
        if path == ROOT / "packages/schema/src/teambrain_schema/git.py":
            continue
        offenders += [f"{path.relative_to(ROOT)}:{n}" for n in _git_spawns(path.read_text())]
    assert offenders == []
    assert _git_spawns('import subprocess\nsubprocess.run(["git", "status"])\n') == [2]


def test_every_private_schema_module_is_protected() -> None:
    """import-linter cannot match "_*", so the private-schema contract lists schema's _private
    modules by name; a new one must join the list (or become a public sub-module)."""
    import configparser

    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    listed = set(config["importlinter:contract:private-schema"]["protected_modules"].split())
    package = ROOT / "packages/schema/src/teambrain_schema"
    private = {
        f"teambrain_schema.{path.stem}"
        for path in package.glob("_*.py")
        if path.name != "__init__.py"
    } | {
        f"teambrain_schema.{path.name}"
        for path in package.glob("_*/")
        if path.name != "__pycache__"
    }
    assert listed == private
