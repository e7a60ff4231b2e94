"""The suite's own scheduling: the tests sharing a costly session fixture run on one xdist
worker, so the fixture is built once per run (the root conftest.py's groups). On pytest 9.2
xdist's grouping stopped taking effect without a word (pytest-xdist#1386) and every such
fixture was built once per worker; this test fails if that happens again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GROUPED = """
import os, pytest

@pytest.fixture(scope="session")
def runner():
    return os.environ["PYTEST_XDIST_WORKER"]

@pytest.mark.parametrize("n", range(8))
def test_grouped(runner, n):
    assert runner == os.environ["PYTEST_XDIST_WORKER"]
    with open(os.path.join(os.environ["RAN"], f"grouped-{n}"), "w") as out:
        out.write(runner)

@pytest.mark.parametrize("n", range(8))
def test_free(n):
    with open(os.path.join(os.environ["RAN"], f"free-{n}"), "w") as out:
        out.write(os.environ["PYTEST_XDIST_WORKER"])
"""


def test_the_tests_of_one_costly_fixture_run_on_one_worker(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    (suite / "tests-integration").mkdir(parents=True)
    shutil.copy(ROOT / "conftest.py", suite / "conftest.py")
    (suite / "tests-integration" / "test_grouped.py").write_text(GROUPED)
    ran = tmp_path / "ran"
    ran.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist=loadgroup", "-p", "no:cacheprovider",
         "-q", "--basetemp", str(tmp_path / "base"), "--rootdir", str(suite),
         str(suite / "tests-integration")],
        cwd=suite, env={**os.environ, "RAN": str(ran)}, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {path.name: path.read_text() for path in ran.iterdir()}
    grouped = {w for name, w in workers.items() if name.startswith("grouped-")}
    assert len([n for n in workers if n.startswith("grouped-")]) == 8
    assert len(grouped) == 1, workers  # one worker built the fixture, once
    # The others are still spread: grouping is for the costly fixture's tests only.
    assert len(set(workers.values())) == 2, workers
