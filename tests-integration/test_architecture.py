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
        ("teambrain_sync", "import teambrain_capture", "sync imports only kit and schema"),
        ("teambrain_schema", "import numpy", "The contract package imports none"),
        # the machinery sits below the contract and stays light for the hook
        ("teambrain_kit", "import teambrain_schema", "Layers"),
        ("teambrain_kit", "import pydantic", "The shared machinery imports no pydantic"),
        (
            "teambrain_capture",
            "import teambrain_kit.citation_checker",
            "capture (the hook command)",
        ),
        ("teambrain_sync", "from teambrain_kit._errors import ExitCode", "The contract's errors"),
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
    """One git runner (teambrain_kit.git.run_git: scrubbed GIT_DIR & co, timeouts that end git's
    helpers); a subprocess call with a literal "git" anywhere else bypasses both."""
    offenders = []
    for path in sorted((ROOT / "packages").glob("*/src/**/*.py")):
        if path == ROOT / "packages/kit/src/teambrain_kit/git.py":
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


def test_every_private_kit_module_is_protected() -> None:
    """kit's _private modules are listed by name too: _errors for kit and schema, the rest kit's."""
    import configparser

    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    listed = set(config["importlinter:contract:private-kit"]["protected_modules"].split())
    listed |= set(config["importlinter:contract:private-kit-errors"]["protected_modules"].split())
    package = ROOT / "packages/kit/src/teambrain_kit"
    private = {f"teambrain_kit.{path.stem}" for path in package.glob("_*.py")}
    assert listed == private - {"teambrain_kit.__init__"}


# The types a public function of kit or schema returns (or a public type holds): public because
# its callers hold its values, though no other package names it in an import.
RETURNED_TYPES = {
    ("teambrain_kit", "citations", "Citation"),
    ("teambrain_kit", "egress", "ApprovalState"),
    ("teambrain_kit", "secrets", "SecretFinding"),
    ("teambrain_schema", "brain", "BrainFile"),
    ("teambrain_schema", "graph", "GraphEdge"),
    ("teambrain_schema", "graph", "Hop"),
    ("teambrain_schema", "graph_lint", "GraphLint"),
    ("teambrain_schema", "notes", "Note"),
    ("teambrain_schema", "ontology", "EdgeKind"),
    ("teambrain_schema", "ontology", "NodeKind"),
    ("teambrain_schema", "ontology", "Ontology"),
    ("teambrain_schema", "ontology", "ValidationRules"),
    ("teambrain_schema", "read_policy", "PolicyProblem"),
    ("teambrain_schema", "staleness", "EvidenceNote"),
}
# The project's own tooling: each package's test_exports runs export_problems, and `make exports`
# runs write_reexports (neither is imported by another package's source).
TOOLING = {
    ("teambrain_kit", "lazy", "export_problems"),
    ("teambrain_kit", "lazy", "write_reexports"),
}


def _sub_module_imports(top: str) -> dict[tuple[str, str], list[str]]:
    """(sub-module, name) → where another package's source imports it from ``top.<sub-module>``."""
    import ast

    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted((ROOT / "packages").glob("*/src/*/**/*.py")):
        if path.relative_to(ROOT / "packages").parts[2] == top:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                parts = node.module.split(".")
                if parts[0] == top and len(parts) == 2:
                    for alias in node.names:
                        where = f"{path.relative_to(ROOT)}:{node.lineno}"
                        found.setdefault((parts[1], alias.name), []).append(where)
    return found


@pytest.mark.parametrize("top", ["teambrain_kit", "teambrain_schema"])
def test_public_names_are_the_ones_other_packages_use(top: str) -> None:
    """Both ways, for the machinery and the contract's sub-modules: another package imports only
    names in a sub-module's ``__all__``, and every name there is imported by another package
    (or is a type its public functions return). Nothing public that no other package uses."""
    import importlib
    import pkgutil

    import teambrain_schema

    package = importlib.import_module(top)
    used = _sub_module_imports(top)
    not_public = [
        f"{top}.{sub}.{name} ({where[0]})"
        for (sub, name), where in sorted(used.items())
        if not sub.startswith("_")
        and name not in importlib.import_module(f"{top}.{sub}").__all__
        # the contract's on-disk names, defined with the layout in kit: public in schema
        and name not in teambrain_schema.__all__
    ]
    assert not_public == [], "imported from outside but not in __all__"
    unused = [
        f"{top}.{info.name}.{name}"
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_")
        for name in importlib.import_module(f"{top}.{info.name}").__all__
        if (info.name, name) not in used and (top, info.name, name) not in RETURNED_TYPES | TOOLING
    ]
    assert unused == [], "public, but no other package imports it"
