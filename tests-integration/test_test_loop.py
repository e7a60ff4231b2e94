"""The test loop stays fast and honest (docs/contributing.md): ``make test-unit`` needs no npm,
no property test depends on the wall clock, CI runs each test once per Python, and the Pythons
CI tests are the ones every package's metadata names."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(p.parent for p in (ROOT / "packages").glob("*/pyproject.toml"))


def _dry_run(target: str) -> str:
    """What ``make <target>`` would run (``make -n``: printed, nothing executed)."""
    done = subprocess.run(["make", "-n", "--no-print-directory", target], cwd=ROOT,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_unit_loop_installs_nothing_from_npm() -> None:
    unit = _dry_run("test-unit")
    assert "pytest" in unit and '-m "not integration" packages' in unit, unit
    assert "npm" not in unit and "node_modules" not in unit, unit
    # ... while the whole suite still installs the CLIs it drives.
    assert "npm ci" in _dry_run("install")


def _hypothesis_settings_calls() -> list[tuple[Path, ast.Call]]:
    calls = []
    files = [*ROOT.glob("packages/*/tests/**/*.py"), *ROOT.glob("tests-integration/**/*.py")]
    for path in sorted(files):
        if "node_modules" in path.parts or ".cache" in path.parts:
            continue
        tree = ast.parse(path.read_text(), str(path))
        imported = any(
            isinstance(node, ast.ImportFrom) and node.module == "hypothesis"
            and any(alias.name == "settings" for alias in node.names)
            for node in ast.walk(tree)
        )  # fmt: skip
        if not imported:
            continue
        calls += [
            (path, node) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "settings"
        ]  # fmt: skip
    return calls


def test_no_property_test_depends_on_the_wall_clock() -> None:
    """hypothesis's deadline (200 ms an example) and its too-slow health check fail correct
    tests on a loaded machine: the root conftest.py's profile turns both off, and a test's own
    ``@settings`` (which replaces the profile's values it names) may not turn them back on."""
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
    calls = _hypothesis_settings_calls()
    assert len(calls) > 50  # the scan sees the property tests
    wrong = []
    for path, call in calls:
        where = f"{path.relative_to(ROOT)}:{call.lineno}"
        for keyword in call.keywords:
            value = keyword.value
            if keyword.arg == "deadline" and not (
                isinstance(value, ast.Constant) and value.value is None
            ):
                wrong.append(f"{where}: deadline={ast.unparse(value)} (leave it out or None)")
            if keyword.arg == "suppress_health_check" and "too_slow" not in ast.unparse(value):
                wrong.append(f"{where}: suppress_health_check without HealthCheck.too_slow")
    assert not wrong, "\n".join(wrong)


def _classified_versions(pyproject: dict[str, object]) -> set[str]:
    project = pyproject["project"]
    assert isinstance(project, dict)
    return {
        c.rsplit(" :: ", 1)[1] for c in project.get("classifiers", [])
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }  # fmt: skip


def test_ci_tests_each_python_the_packages_claim() -> None:
    workflow = YAML(typ="safe").load((ROOT / ".github/workflows/ci.yml").read_text())
    matrix = {str(v) for v in workflow["jobs"]["unit"]["strategy"]["matrix"]["python"]}
    assert matrix == {"3.11", "3.12", "3.13"}
    for package in PACKAGES:
        pyproject = tomllib.loads((package / "pyproject.toml").read_text())
        assert _classified_versions(pyproject) == matrix, package.name
        floor = min(matrix, key=lambda v: tuple(map(int, v.split("."))))
        assert pyproject["project"]["requires-python"] == f">={floor}", package.name
    # .ci/run: make test on .venv's Python (the oldest), make test-versions on the others.
    makefile = (ROOT / "Makefile").read_text()
    others = re.search(r"^PYTHONS := (.+)$", makefile, re.MULTILINE)
    assert others and set(others[1].split()) == matrix - {floor}, others


@pytest.mark.parametrize("where", ["workflow", ".ci/run"])
def test_ci_runs_each_test_once_per_python(where: str) -> None:
    if where == ".ci/run":
        steps = [
            line.strip() for line in (ROOT / ".ci/run").read_text().splitlines()
            if line.startswith("make ")
        ]  # fmt: skip
        # make test runs every test; make test-versions the unit tests on the other Pythons.
        assert steps.count("make test") == 1 and "make test-unit" not in steps, steps
        assert steps.count("make test-versions") == 1, steps
        return
    workflow = YAML(typ="safe").load((ROOT / ".github/workflows/ci.yml").read_text())
    runs = {
        name: [step["run"] for step in job["steps"] if "run" in step]
        for name, job in workflow["jobs"].items()
    }
    # The unit tests once per matrix Python, the integration tests once, nothing twice.
    assert (
        runs["unit"][-1] == "make test-unit" and runs["integration"][-1] == "make test-integration"
    )
    every = [command for commands in runs.values() for command in commands]
    assert not any(re.search(r"make (.* )?test( |$)", command) for command in every), every
    assert (
        sum("test-unit" in c for c in every) == 1
        and sum("test-integration" in c for c in every) == 1
    )


def test_the_fast_loop_draws_fewer_examples_and_every_other_run_all() -> None:
    """``make test-unit`` with no profile set is "quick"; ``make test-versions`` (which runs
    test-unit per Python) keeps the full count unless told otherwise; the landing gate sets
    "ci" for both."""
    assert "HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-quick} " in _dry_run("test-unit")
    versions = _dry_run("test-versions")
    assert "HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-teambrain}" in versions, versions
    ci = (ROOT / ".ci/run").read_text()
    gate = 'export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"\n'
    assert ci.index(gate) < ci.index("\nmake test\n") < ci.index("\nmake test-versions\n")


COUNTED = """
import os
from hypothesis import given, settings, strategies as st

def _count(name):
    with open(os.path.join(os.environ["RAN"], name), "a") as out:
        out.write(".")

@settings(max_examples=300)
@given(st.integers())
def test_own_count(n):
    _count("own")

@given(st.integers())
def test_default_count(n):
    _count("default")

@settings(max_examples=12)
@given(st.integers())
def test_few(n):
    _count("few")

@settings(max_examples=200)
@given(st.integers())
@pytest.mark.parametrize("twice", [1, 2])
def test_parametrized(twice, n):
    _count(f"param-{twice}")

class TestInAClass:
    @settings(max_examples=50)
    @given(st.integers())
    def test_method(self, n):
        _count("method")
"""


@pytest.mark.parametrize(
    "profile,expected",
    [
        ("quick", {"own": 30, "default": 10, "few": 10, "param-1": 20, "param-2": 20,
                   "method": 10}),
        ("teambrain", {"own": 300, "default": 100, "few": 12, "param-1": 200, "param-2": 200,
                       "method": 50}),
        ("ci", {"own": 300, "default": 100, "few": 12, "param-1": 200, "param-2": 200,
                "method": 50}),
    ],
)  # fmt: skip
def test_the_quick_profile_draws_a_tenth_of_each_tests_count(
    tmp_path: Path, profile: str, expected: dict[str, int]
) -> None:
    """Counted by the examples each test really ran, with the real root conftest.py: a test's
    own ``@settings`` count, the default one, a count under the floor, a parametrized test
    (one function: scaled once, not once per case) and a method."""
    suite = tmp_path / "suite"
    (suite / "packages" / "p" / "tests").mkdir(parents=True)
    shutil.copy(ROOT / "conftest.py", suite / "conftest.py")
    (suite / "packages" / "p" / "tests" / "test_counted.py").write_text("import pytest\n" + COUNTED)
    ran = tmp_path / "ran"
    ran.mkdir()
    env = {**os.environ, "RAN": str(ran), "HYPOTHESIS_PROFILE": profile}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
         "--basetemp", str(tmp_path / "base"), "--rootdir", str(suite), str(suite / "packages")],
        cwd=suite, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    counts = {path.name: len(path.read_text()) for path in ran.iterdir()}
    assert counts == expected, counts
