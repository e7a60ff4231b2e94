"""The fork server the tests run ``tb`` through (forkserver.py) hands a child exactly what
``subprocess.run`` would, reports how it ended, and sends to a real process what a fork cannot
take."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import forkserver
import pytest
from tbrun import git, tb_path

TB = tb_path()


@pytest.fixture(autouse=True)
def _forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the fork server, even in a run that switched it off."""
    monkeypatch.delenv(forkserver.SWITCH, raising=False)


def _probe(tmp_path: Path, **kwargs: object) -> dict[str, object]:
    env = kwargs.pop("env", dict(os.environ))
    done = forkserver.run([TB, "probe", "--flag"], cwd=tmp_path, env=env, probe=True, **kwargs)  # type: ignore[arg-type]
    assert done.returncode == 3, done.stderr
    return json.loads(done.stdout)


def test_a_child_gets_the_argv_folder_environment_umask_and_input_it_is_given(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "HOME"} | {"ONLY_HERE": "é ✓"}
    old = os.umask(0o027)
    try:
        seen = _probe(tmp_path, env=env, input="line one\nline two\n")
    finally:
        os.umask(old)
    assert seen["argv"] == [TB, "probe", "--flag"]
    assert seen["cwd"] == str(tmp_path)
    assert seen["env"] == env  # HOME removed, ONLY_HERE added: nothing of the server's own
    assert seen["umask"] == 0o027
    assert seen["stdin"] == "line one\nline two\n"
    assert seen["pid"] != os.getpid() and seen["preloaded"] is True  # a fork, not this process


def test_no_input_reads_as_an_empty_stdin(tmp_path: Path) -> None:
    assert _probe(tmp_path)["stdin"] == ""


def test_a_run_past_its_timeout_is_killed_and_raises_as_subprocess_does(tmp_path: Path) -> None:
    env = {**os.environ, "PROBE_SLEEP": "60"}
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as raised:
        forkserver.run([TB, "probe"], cwd=tmp_path, env=env, probe=True, timeout=1.0)
    assert time.monotonic() - started < 30
    pid = json.loads(raised.value.output)["pid"]
    for _ in range(100):  # its parent reaps it
        if not Path(f"/proc/{pid}").exists():
            break
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists()


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("brain")
    git("init", "-q", "-b", "main", cwd=repo)
    (repo / "README.md").write_text("# demo\n")
    git("add", "README.md", cwd=repo)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "i", cwd=repo)
    env = {**os.environ, "TEAMBRAIN_HOME": str(tmp_path_factory.mktemp("home"))}
    done = subprocess.run([TB, "init"], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return repo, env


@pytest.mark.parametrize(
    ("args", "input"),
    [
        (["--version"], None),
        (["list", "--json"], None),
        (["lint"], None),
        (["relevant", "--paths", "README.md"], None),  # leaves through os._exit
        (["relevant", "--paths", "README.md", "--json"], None),
        (["no-such-verb"], None),
        (["show", "not-an-id"], None),
        (["import", "-"], "not: [a memory\n"),
    ],
)
def test_tb_forked_prints_and_exits_as_tb_started_afresh(
    brain: tuple[Path, dict[str, str]], args: list[str], input: str | None
) -> None:
    repo, env = brain
    forked = forkserver.run([TB, *args], cwd=repo, env=env, input=input, timeout=60)
    afresh = subprocess.run(
        [TB, *args], cwd=repo, env=env, input=input, capture_output=True, text=True, timeout=60
    )
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        afresh.returncode, afresh.stdout, afresh.stderr,
    )  # fmt: skip


def test_what_an_interpreter_reads_as_it_starts_gets_a_real_process(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text("import sys\nprint('site read', file=sys.stderr)\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = forkserver.run([TB, "--version"], cwd=tmp_path, env=env, probe=True, timeout=60)
    assert done.returncode == 0 and "site read" in done.stderr  # tb itself ran, not the probe
    for env in ({**os.environ, forkserver.SWITCH: "0"}, {**os.environ, "LC_ALL": "C"}):
        done = forkserver.run([TB, "--version"], cwd=tmp_path, env=env, probe=True, timeout=60)
        assert done.returncode == 0 and not done.stdout.startswith("{")
    other = Path(sys.executable).parent / "tb-capture"
    assert forkserver._address_for([str(other)], tmp_path, os.environ) is None


def test_a_missing_folder_fails_as_subprocess_does(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        forkserver.run([TB, "--version"], cwd=tmp_path / "gone", env=dict(os.environ))
