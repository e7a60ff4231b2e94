"""No module of a workspace package imports, directly or through others of its package, one that
imports it back — counting imports inside functions and under ``if TYPE_CHECKING:`` too.

The graph is grimp's (the parser import-linter uses, so both read imports the same way); the
cycles are its strongly connected components. A planted cycle, closed by an import inside a
function, proves the check finds one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(
    source.name for package in (ROOT / "packages").iterdir() for source in (package / "src").iterdir()
    if (source / "__init__.py").is_file()
)  # fmt: skip

# Run apart (grimp finds packages on sys.path; a planted copy must not meet the installed ones).
FIND_CYCLES = r"""
import json, sys
import grimp

packages = sys.argv[1:]
graph = grimp.build_graph(*packages, cache_dir=None)
sys.setrecursionlimit(100_000)
cycles = []
for top in packages:
    modules = sorted(m for m in graph.modules if m == top or m.startswith(top + "."))
    inside = set(modules)
    edges = {
        m: sorted(t for t in graph.find_modules_directly_imported_by(m) if t in inside and t != m)
        for m in modules
    }
    index, low, stack, on_stack = {}, {}, [], set()

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                first = min(component)
                after = min(m for m in edges[first] if m in component)
                back = graph.find_shortest_chain(importer=after, imported=first) or (after, first)
                loop = [first, *back]  # one way round, for the message
                cycles.append({"modules": sorted(component), "loop": loop})

    for module in modules:
        if module not in index:
            visit(module)
print(json.dumps(cycles))
"""


def _cycles(packages: list[str], path: list[Path] | None = None) -> list[dict[str, list[str]]]:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(str(p) for p in path)
    done = subprocess.run(
        [sys.executable, "-c", FIND_CYCLES, *packages],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found: list[dict[str, list[str]]] = json.loads(done.stdout)
    return found


def test_no_package_has_an_import_cycle() -> None:
    cycles = _cycles(PACKAGES)
    assert not cycles, "import cycles:\n" + "\n".join(
        f"  {' ↔ '.join(c['modules'])}   ({' -> '.join(c['loop'])})" for c in cycles
    )


def test_a_planted_cycle_is_found(tmp_path: Path) -> None:
    source = ROOT / "packages" / "sync" / "src" / "teambrain_sync"
    copy = tmp_path / "src" / "teambrain_sync"
    shutil.copytree(source, copy)
    (copy / "_planted_a.py").write_text("from . import _planted_b\n")
    # Closed inside a function, where a module-level scan would not look.
    (copy / "_planted_b.py").write_text("def late():\n    from ._planted_a import late\n")
    cycles = _cycles(["teambrain_sync"], [tmp_path / "src"])
    assert [c["modules"] for c in cycles] == [
        ["teambrain_sync._planted_a", "teambrain_sync._planted_b"]
    ]
    assert cycles[0]["loop"][0] == cycles[0]["loop"][-1] == "teambrain_sync._planted_a"
