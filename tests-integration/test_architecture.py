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
    ],
)
def test_a_planted_violation_breaks_its_contract(
    tmp_path: Path, module: str, statement: str, contract: str
) -> None:
    src_root = tmp_path / "src"
    for package in (ROOT / "packages").iterdir():
        for source in (package / "src").iterdir():
            shutil.copytree(source, src_root / source.name / source.name)
    target = src_root / module / module / "_planted.py"
    target.write_text(statement + "\n")
    done = _lint_imports(src_root)
    assert done.returncode != 0
    flat = " ".join(done.stdout.split())
    assert f"{contract}" in flat and "BROKEN" in flat, done.stdout
    assert f"{module}._planted ->" in flat, done.stdout
