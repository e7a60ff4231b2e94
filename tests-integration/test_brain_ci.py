"""The brain's CI gate that teams copy: action.yml's steps run as a GitHub runner runs them and
.pre-commit-hooks.yaml's hook runs as pre-commit runs it, on scratch brains, offline.

The hook runs twice over: through pre-commit itself (a dev dependency; a ``language: system``
hook needs no environment of its own, so nothing is fetched), installed in a brain repository
whose ``git commit`` it then gates, and ``pre-commit try-repo`` on this checkout; and emulated
step by step (``entry`` split shell-wise, then ``args``, no file names, in the repository's
root, only when a staged file matches ``files``) for the finer cases. The action's ``uses:`` step (setup-python) is the
runner's own; every ``run:`` step runs with bash in its ``working-directory`` with the inputs'
defaults, ``if:`` evaluated, and pip told to read the wheels built from this workspace.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[1]
TB = str(Path(sys.executable).parent / "tb")  # this environment's (`from conftest` is ambiguous)


def tb_path() -> str:
    return TB


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


BROKEN = "---\nid: not-an-id\nclass: nonsense\n---\nno frontmatter worth the name\n"


def _load(name: str) -> object:
    return YAML(typ="safe").load((ROOT / name).read_text(encoding="utf-8"))


def _brain(repo: Path) -> Path:
    done = subprocess.run([tb_path(), "init"], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "teambrain: init", cwd=repo)
    return repo


def _break(repo: Path) -> Path:
    bad = repo / ".teambrain" / "memories" / "bad.md"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text(BROKEN, encoding="utf-8")
    git("add", "-A", cwd=repo)
    return bad


# --- the pre-commit hook -------------------------------------------------------------------


def _hook() -> dict[str, object]:
    hooks = _load(".pre-commit-hooks.yaml")
    assert isinstance(hooks, list) and len(hooks) == 1
    hook = hooks[0]
    for key in ("id", "name", "entry", "language"):  # what pre-commit's manifest schema requires
        assert isinstance(hook.get(key), str) and hook[key], key
    assert hook["language"] == "system" and hook["pass_filenames"] is False
    return hook


def _run_hook(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str] | None:
    """What ``pre-commit run`` does with the hook: None when no staged file matches."""
    hook = _hook()
    staged = git("diff", "--cached", "--name-only", cwd=repo).split()
    if not any(re.search(str(hook["files"]), name) for name in staged):
        return None
    argv = [*shlex.split(str(hook["entry"])), *[str(a) for a in hook.get("args", [])]]
    return subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=120)


def test_the_hook_fails_a_commit_that_breaks_the_brain(repo: Path) -> None:
    _brain(repo)
    env = {**os.environ, "PATH": f"{Path(tb_path()).parent}{os.pathsep}{os.environ['PATH']}"}
    (repo / "notes.txt").write_text("not the brain\n")
    git("add", "notes.txt", cwd=repo)
    assert _run_hook(repo, env) is None  # pre-commit skips it: nothing under .teambrain/ staged
    (repo / ".teambrain" / "INDEX.md").write_text("# touched\n", encoding="utf-8")
    git("add", "-A", cwd=repo)
    edited = _run_hook(repo, env)  # a hand edit of the generated index is a violation
    assert edited is not None and edited.returncode == 3
    assert ".teambrain/INDEX.md:1: index:" in edited.stdout
    subprocess.run([tb_path(), "reindex", "--index-md-only"], cwd=repo, check=True, env=env)
    with (repo / ".teambrain" / "brain.yaml").open("a", encoding="utf-8") as config:
        config.write("# reviewed like code\n")
    git("add", "-A", cwd=repo)
    clean = _run_hook(repo, env)
    assert clean is not None and clean.returncode == 0, clean.stdout + clean.stderr
    bad = _break(repo)
    broken = _run_hook(repo, env)
    assert broken is not None and broken.returncode == 3
    assert bad.name in broken.stdout + broken.stderr


def _pre_commit_env(tmp: Path) -> dict[str, str]:
    """tb first on PATH (the hook runs the developer's own) and pre-commit's store in ``tmp``."""
    bin_dir = Path(sys.executable).parent
    return {
        **os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PRE_COMMIT_HOME": str(tmp / "pre-commit-store"), "PRE_COMMIT_COLOR": "never",
    }  # fmt: skip


def _hooks_repo(tmp: Path) -> tuple[Path, str]:
    """A repository holding this checkout's .pre-commit-hooks.yaml as committed (what a team's
    ``repos:`` entry points at), and its commit."""
    hooks = tmp / "teambrain-hooks"
    hooks.mkdir()
    git("init", "-q", "-b", "main", cwd=hooks)
    (hooks / ".pre-commit-hooks.yaml").write_bytes((ROOT / ".pre-commit-hooks.yaml").read_bytes())
    git("add", "-A", cwd=hooks)
    git("commit", "-q", "-m", "hooks", cwd=hooks)
    return hooks, git("rev-parse", "HEAD", cwd=hooks).strip()


def test_pre_commit_installs_the_hook_and_it_gates_git_commit(repo: Path, tmp_path: Path) -> None:
    pre_commit = Path(sys.executable).parent / "pre-commit"
    assert pre_commit.exists(), "pre-commit is a dev dependency (make install)"
    _brain(repo)
    env = _pre_commit_env(tmp_path)
    hooks, rev = _hooks_repo(tmp_path)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n      - id: teambrain-lint\n",
        encoding="utf-8",
    )
    git("add", ".pre-commit-config.yaml", cwd=repo)
    git("commit", "-q", "-m", "gate the brain", cwd=repo)
    done = subprocess.run(
        [str(pre_commit), "install"], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr

    def commit(message: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "commit", "-q", "-m", message], cwd=repo, env=env,
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    (repo / "notes.txt").write_text("not the brain\n")
    git("add", "notes.txt", cwd=repo)
    skipped = commit("notes")
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    said = skipped.stdout + skipped.stderr  # git runs the hook with its output on stderr
    assert "teambrain lint" in said and "Skipped" in said
    bad = _break(repo)
    refused = commit("a broken memory")
    assert refused.returncode != 0, "the hook let a broken brain be committed"
    said = refused.stdout + refused.stderr
    assert "teambrain lint" in said and "Failed" in said and "exit code: 3" in said
    assert bad.name in said
    assert "bad.md" in git("diff", "--cached", "--name-only", cwd=repo)  # still staged, not lost
    bad.unlink()
    git("add", "-A", cwd=repo)
    with (repo / ".teambrain" / "brain.yaml").open("a", encoding="utf-8") as config:
        config.write("# reviewed like code\n")
    git("add", "-A", cwd=repo)
    passed = commit("a clean brain change")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    said = passed.stdout + passed.stderr
    assert "teambrain lint" in said and "Passed" in said


def test_pre_commit_try_repo_runs_this_checkouts_hook(repo: Path, tmp_path: Path) -> None:
    """``pre-commit try-repo`` on this checkout (its uncommitted hook definition included), as a
    maintainer tries a change to the hook before releasing it."""
    pre_commit = Path(sys.executable).parent / "pre-commit"
    _brain(repo)
    env = _pre_commit_env(tmp_path)

    def try_repo() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(pre_commit), "try-repo", str(ROOT), "teambrain-lint", "--all-files"],
            cwd=repo, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    clean = try_repo()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
    (repo / ".teambrain" / "INDEX.md").write_text("# touched\n", encoding="utf-8")
    git("add", "-A", cwd=repo)
    edited = try_repo()
    assert edited.returncode == 1, edited.stdout + edited.stderr
    assert ".teambrain/INDEX.md:1: index:" in edited.stdout and "exit code: 3" in edited.stdout


# --- the GitHub Action ---------------------------------------------------------------------

_EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
_IF = re.compile(r"^inputs\.([\w-]+) == '([^']*)'$")


def _steps(inputs: dict[str, str]) -> list[dict[str, str]]:
    """action.yml's ``run:`` steps with ``${{ inputs.X }}`` filled and ``if:`` evaluated as a
    runner would; an expression this emulation does not know fails the test."""
    action = _load("action.yml")
    assert isinstance(action, dict) and action["runs"]["using"] == "composite"
    values = {k: str(v.get("default", "")) for k, v in action["inputs"].items()} | inputs

    def fill(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            assert name.startswith("inputs.") and name[7:] in values, name
            return values[name[7:]]

        return _EXPR.sub(one, text)

    out = []
    for step in action["runs"]["steps"]:
        if "uses" in step:
            assert step["uses"].startswith("actions/setup-python@"), step["uses"]
            continue
        assert step["shell"] == "bash"
        if "if" in step:
            cond = _IF.match(step["if"])
            assert cond, step["if"]
            if values[cond.group(1)] != cond.group(2):
                continue
        out.append({
            "name": step["name"], "run": fill(step["run"]),
            "cwd": fill(step.get("working-directory", ".")),
            **{f"env:{k}": fill(str(v)) for k, v in step.get("env", {}).items()},
        })  # fmt: skip
    return out


def _run_action(
    workspace: Path, runner: dict[str, str], inputs: dict[str, str] | None = None
) -> tuple[int, str]:
    """Each step as ``bash -e {0}`` in the workspace, stopping at the first that fails."""
    log = ""
    for step in _steps(inputs or {}):
        env = runner | {k: os.environ[k] for k in ("TEAMBRAIN_HOME", "HOME")}  # this test's
        env |= {k[4:]: v for k, v in step.items() if k.startswith("env:")}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace / step["cwd"], env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        log += f"== {step['name']}\n{done.stdout}{done.stderr}"
        if done.returncode:
            return done.returncode, log
    return 0, log


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A runner's environment: a fresh Python (setup-python's, here a new virtualenv) first on
    PATH, and pip reading the wheels built from this workspace instead of the registry."""
    from wheelhouse import cached_wheelhouse, scratch_env

    base = tmp_path_factory.mktemp("runner")
    wheels = cached_wheelhouse()
    env = scratch_env(base)
    base_python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base_python, "-m", "venv", str(base / "python")], check=True, env=env)
    env.update(
        PATH=f"{base / 'python' / 'bin'}{os.pathsep}{env['PATH']}", PIP_FIND_LINKS=str(wheels)
    )
    return env


def test_the_action_lints_a_pull_request_with_its_defaults(
    repo: Path, runner: dict[str, str]
) -> None:
    _brain(repo)
    code, log = _run_action(repo, runner)
    assert code == 0, log
    assert "== tb lint" in log and "== Regenerate INDEX.md" not in log
    assert (Path(runner["PATH"].split(os.pathsep)[0]) / "tb").exists()  # installed by the step
    bad = _break(repo)
    code, log = _run_action(repo, runner)
    assert code == 3 and bad.name in log, log


def test_the_action_refuses_an_unknown_command(repo: Path, runner: dict[str, str]) -> None:
    _brain(repo)
    code, log = _run_action(repo, runner, {"command": "lnit"})
    assert code == 2 and "command must be lint or index" in log


def test_the_action_keeps_index_md_current_after_a_merge(
    repo: Path, runner: dict[str, str], tmp_path: Path
) -> None:
    _brain(repo)
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(remote), cwd=tmp_path)
    git("remote", "add", "origin", str(remote), cwd=repo)
    git("push", "-q", "-u", "origin", "main", cwd=repo)
    code, log = _run_action(repo, runner, {"command": "index"})
    assert code == 0, log
    assert git("rev-parse", "HEAD", cwd=repo) == git("rev-parse", "main", cwd=remote)  # no-op
    index = repo / ".teambrain" / "INDEX.md"
    index.write_text("stale\n", encoding="utf-8")  # the default branch's INDEX.md lags
    git("commit", "-q", "-am", "a merge that left INDEX.md behind", cwd=repo)
    git("push", "-q", cwd=repo)
    code, log = _run_action(repo, runner, {"command": "index"})
    assert code == 0, log
    assert git("log", "-1", "--format=%s", "main", cwd=remote).strip() == (
        "teambrain: regenerate INDEX.md"
    )
    assert index.read_text(encoding="utf-8") != "stale\n"
    assert git("status", "--porcelain", cwd=repo) == ""


def test_the_action_installs_the_cli_it_was_released_with_and_pins_every_action() -> None:
    """Pinning the action's tag pins what runs: the CLI by exact version (the one in
    packages/cli, which `make release-check PKG=cli` keeps equal), setup-python — and every
    action the workflows use — by commit SHA, the tag in a comment."""
    import tomllib

    action = _load("action.yml")
    assert isinstance(action, dict)
    cli = tomllib.loads((ROOT / "packages" / "cli" / "pyproject.toml").read_text())["project"]
    assert action["inputs"]["teambrain-version"]["default"] == f"teambrain-cli=={cli['version']}"
    sys.path.insert(0, str(ROOT / ".ci"))
    try:
        from release_check import Failed, check_action
    finally:
        sys.path.pop(0)
    check_action(cli["version"])  # the release check passes on this checkout
    with pytest.raises(Failed, match="teambrain-version's default"):
        check_action("99.0.0")
    uses = [
        line.split("uses:", 1)[1].strip()
        for path in [ROOT / "action.yml", *(ROOT / ".github" / "workflows").glob("*.yml")]
        for line in path.read_text().splitlines()
        if re.match(r"^\s*-?\s*uses: ", line)
    ]
    assert len(uses) >= 9
    for use in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}  # v\d[\w.]*(;.*)?", use), use
