"""Every `tb` example in docs/ runs as written (the README's section runs in
test_readme_walkthrough.py): each command line of every docs/ page's shell blocks, except
templates (`<id>`) and blocks marked `<!-- illustrative -->`, is run with the installed `tb` on
a real repository that has what the examples name — the demo brain and its code, a history
older than the dates the examples use, the tags and snapshot branch they give, a queued
candidate ending in 7QH2, a bare remote and a `gh` to open the pull request — and must end
with 0 or with the exit code :data:`EXPECTED` gives, with the reason."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import forkserver
import pytest
from teamharness import GH_STANDIN
from test_docs_examples import ROOT, is_template, tb_lines


def tb_path() -> str:
    """The installed ``tb`` of this environment (as conftest.py finds it)."""
    found = shutil.which("tb", path=str(Path(sys.executable).parent)) or shutil.which("tb")
    assert found, "tb is not installed in this environment (run `make install`)"
    return found


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


PAGES = sorted((ROOT / "docs").rglob("*.md"))
CANDIDATE = "01KB2F0A1S9Y4Q7V3C8D5E7QH2"  # what docs/cli/candidates.md names as 7QH2

# What a documented line may end with here (default: 0), and why not 0.
EXPECTED: dict[str, set[int]] = {
    # The docs' world has neither the opt-in nor a shared database: the one-line refusal, exit 1.
    "tb digest --publish --since 4w": {1},
}
# Servers: started, answering on their port, then stopped (Ctrl-C) as a person would.
SERVERS = ("tb ui", "tb serve")
OLD = "2025-12-01T09:00:00+00:00"  # before every date the examples give


def documented() -> list[tuple[str, str]]:
    return [
        (str(page.relative_to(ROOT)), line)
        for page in PAGES
        for line in tb_lines(page.read_text("utf-8"))
        if not is_template(line)
    ]


def _queue(repo: Path, env: dict[str, str]) -> None:
    """Queue the candidate the examples name, as memory_propose queues one (its id chosen)."""
    code = (
        "import json, sys\nfrom pathlib import Path\nimport teambrain_capture._candidates as c\n"
        "from teambrain_capture import queue_candidate, repo_join_key\n"
        "from teambrain_kit.paths import machine_layout\n"
        f"c.new_ulid = lambda: {CANDIDATE!r}\n"
        "queue_candidate(json.loads(sys.argv[1]), 'agent', repo=repo_join_key(Path(sys.argv[2])),"
        " machine=machine_layout())\n"
    )
    draft = {"class": "learning", "title": "Cart totals are integer cents",
             "body": "`src/shop/checkout/cart.py` keeps totals in integer cents.",
             "tags": ["payments"]}  # fmt: skip
    subprocess.run([sys.executable, "-c", code, json.dumps(draft), str(repo)], env=env,
                   check=True, capture_output=True)  # fmt: skip


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, dict[str, str], Callable[[], None]]:
    """A repository with the demo brain and code at an old date, tags, a snapshot branch, three
    later commits, a bare origin, a `gh` stand-in on PATH and a queued candidate."""
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(f"#!{sys.executable} -IS\n" + GH_STANDIN.read_text("utf-8"), "utf-8")
    gh.chmod(0o755)
    remote = tmp_path / "origin.git"
    repo = tmp_path / "shop"
    repo.mkdir()
    env = {
        **os.environ, "HOME": str(home), "TEAMBRAIN_HOME": str(tmp_path / "tbhome"),
        "PATH": f"{bin_dir}:{Path(tb_path()).parent}:{os.environ['PATH']}",
        # The user's editor (`tb candidates edit`): one that saves the form as it was.
        "EDITOR": "true", "VISUAL": "",
        "GH_STANDIN_STATE": str(tmp_path / "gh.json"), "GH_STANDIN_REMOTE": str(remote),
        "GH_STANDIN_USER": "ada",
    }  # fmt: skip
    run = _runner(repo, env)
    git("init", "-q", "-b", "main", cwd=repo)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    git("remote", "add", "origin", str(remote), cwd=repo)
    shutil.copytree(ROOT / "demo" / "app", repo, dirs_exist_ok=True)
    assert run("tb init").returncode == 0
    shutil.copytree(ROOT / "demo/brain/memories", repo / ".teambrain/memories", dirs_exist_ok=True)
    shutil.copytree(ROOT / "demo/brain/graph", repo / ".teambrain/graph", dirs_exist_ok=True)
    assert run("tb reindex").returncode == 0
    old = {**env, "GIT_AUTHOR_DATE": OLD, "GIT_COMMITTER_DATE": OLD}
    for args in (["add", "-A"], ["commit", "-qm", "the shop and its brain"]):
        subprocess.run(["git", *args], cwd=repo, env=old, check=True)
    for name in ("v1.2", "v1.4.0", "memory/snapshots/2026-05-08"):
        git("tag" if name.startswith("v") else "branch", name, cwd=repo)
    (repo / "CLAUDE.md").write_text(
        "# CLAUDE.md\n\n## Commands\n\n- Run `make test`, never bare pytest.\n", "utf-8"
    )
    for message in ("CLAUDE.md", "notes", "more notes"):
        (repo / "NOTES.md").write_text(message + "\n", "utf-8")
        git("add", "-A", cwd=repo)
        git("commit", "-qm", message, cwd=repo)
    git("push", "-q", "origin", "main", cwd=repo)
    _queue(repo, env)
    return repo, env, lambda: _queue(repo, env)


def _runner(repo: Path, env: dict[str, str]) -> Callable[[str], subprocess.CompletedProcess[str]]:
    def run(line: str) -> subprocess.CompletedProcess[str]:
        words = shlex.split(line)
        return forkserver.run([tb_path(), *words[1:]], cwd=repo, env=env, timeout=180)

    return run


def _serve(line: str, repo: Path, env: dict[str, str]) -> None:
    """A server the docs show, run as a person runs it: `tb ui` prints its address first on
    stdout, serves the page there (``BROWSER=true`` stands in for the browser it opens) and
    stops on Ctrl-C; `tb serve` ends when the agent tool closes its stdin."""
    words = shlex.split(line)
    proc = subprocess.Popen([tb_path(), *words[1:]], cwd=repo, env={**env, "BROWSER": "true"},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdin is not None
        if words[1] == "serve":
            proc.stdin.close()
        else:
            url = proc.stdout.readline().strip()
            assert url.startswith("http://127.0.0.1:"), f"printed {url!r}"
            with urllib.request.urlopen(url, timeout=60) as answer:
                assert "<title>" in answer.read().decode("utf-8")
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err[-300:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_every_docs_example_runs_as_written(
    world: tuple[Path, dict[str, str], Callable[[], None]],
) -> None:
    repo, env, requeue = world
    run = _runner(repo, env)
    cases = documented()
    assert len(cases) > 40
    failures = []
    for page, line in cases:
        # `tb list --web` and `tb show ID --web` serve the page as `tb ui` does.
        if line.split()[:2] in ([s.split()[0], s.split()[1]] for s in SERVERS) or (
            "--web" in line.split()
        ):
            try:
                _serve(line, repo, env)
            except (AssertionError, subprocess.TimeoutExpired) as exc:
                failures.append(f"{page}: `{line}` as a server: {exc}")
            continue
        if line == "tb propose 7QH2":
            run("tb candidates drop 7QH2 --delete")  # the page's drop above took it; queue again
            requeue()
        done = run(line)
        if done.returncode not in EXPECTED.get(line, {0}):
            failures.append(
                f"{page}: `{line}` ended {done.returncode}: {done.stderr.strip()[-300:]}"
            )
        elif "internal error" in done.stderr or "Traceback" in done.stderr:
            failures.append(f"{page}: `{line}`: {done.stderr.strip()[-300:]}")
    assert not failures, "\n".join(failures)
