""" "internal error" must be unreachable from any input: hypothesis builds argument lists for
every verb from its own click parameters (hostile text, numbers, paths that are FIFOs,
directories or missing) and runs `tb` in-process against a real repository with a brain. Each
run must end with one of the contract's exit codes and never with an internal error or a
traceback. `tb serve` is left to the stdio fault tests (it reads a protocol, not arguments)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import click
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

ROOT = Path(__file__).resolve().parents[1]
DEMO_MEMORIES = ROOT / "demo" / "brain" / "memories"
VERBS = [
    "audit", "digest", "distill", "doctor", "init", "install", "lint", "metrics", "propose",
    "reindex", "relevant", "retire", "verify",
]  # fmt: skip
ALLOWED_EXITS = {0, 1, 2, 3}

hostile_text = st.one_of(
    st.sampled_from(
        ["", "-", "--", "..", "/", "~", "\x00", "a\u2028b", "é" * 300, "x" * 5000, "7d",
         "0226-05-08", "1969-12-31", "9999-12-31T23:59:59Z", "-1", "0", "99999999999999999999",
         "NaN", "01KB2F0A1S9Y4Q7V3C8D5E6F04", "claude-code", "*", "[", "\\", "$(id)", "%s"]
    ),
    st.text(max_size=40),
)  # fmt: skip


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import subprocess

    base = tmp_path_factory.mktemp("sweep")
    repo = base / "repo"
    repo.mkdir()
    env = {**os.environ, "TEAMBRAIN_HOME": str(base / "home"), "HOME": str(base)}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    from teambrain_cli._main import run

    cwd = Path.cwd()
    old = {k: os.environ.get(k) for k in ("TEAMBRAIN_HOME", "HOME")}
    os.environ.update({"TEAMBRAIN_HOME": env["TEAMBRAIN_HOME"], "HOME": env["HOME"]})
    try:
        os.chdir(repo)
        assert run(["init"]) == 0
    finally:
        os.chdir(cwd)
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    shutil.copytree(DEMO_MEMORIES, repo / ".teambrain" / "memories", dirs_exist_ok=True)
    brain_yaml = repo / ".teambrain" / "brain.yaml"
    brain_yaml.write_text(brain_yaml.read_text().replace("provider: local", "provider: none"))
    for args in (
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "b"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env)
    odd = base / "odd"
    odd.mkdir()
    (odd / "dir.md").mkdir()
    (odd / "binary.md").write_bytes(b"\x00\xff" * 100)
    return {"repo": repo, "home": base / "home", "odd": odd, "base": base}


def _values(param: click.Parameter, odd: Path) -> st.SearchStrategy[str]:
    # A FIFO the user names blocks like `cat fifo` would (it may be `<(make-draft)`): not here.
    paths = st.sampled_from(
        [str(odd / "dir.md"), str(odd / "binary.md"), str(odd / "none.md"), "-"]
    )
    kind = param.type
    if isinstance(kind, click.Choice):
        return st.one_of(st.sampled_from([str(c) for c in kind.choices]), hostile_text)
    if isinstance(kind, click.types.IntParamType):
        return st.one_of(st.integers(-(2**70), 2**70).map(str), hostile_text)
    if (
        isinstance(kind, click.Path | click.File)
        or "file" in (param.name or "")
        or (param.name in ("drafts", "out"))
    ):
        return st.one_of(paths, hostile_text)
    return hostile_text


@st.composite
def argv(draw: st.DrawFn, verb: str, odd: Path) -> list[str]:
    from teambrain_cli._main import cli

    command = cli.get_command(click.Context(cli), verb)
    assert command is not None
    args = [verb]
    for param in command.params:
        if not draw(st.booleans()):
            continue
        if isinstance(param, click.Argument):
            count = 1 if param.nargs == 1 else draw(st.integers(0, 3))
            args += [draw(_values(param, odd)).lstrip("-") or "x" for _ in range(count)]
            continue
        assert isinstance(param, click.Option)
        name = max(param.opts, key=len)
        if name in ("--help", "--version", "--strict"):  # --strict runs the OS sandbox tier
            continue
        if param.is_flag:
            args.append(name)
        else:
            args += [name, draw(_values(param, odd))]
    return args


@pytest.mark.parametrize("verb", VERBS)
def test_no_input_reaches_an_internal_error(
    verb: str, workspace: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    from teambrain_cli._main import run

    monkeypatch.setenv("TEAMBRAIN_HOME", str(workspace["home"]))
    monkeypatch.setenv("HOME", str(workspace["base"]))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "t")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "t@t")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "t")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "t@t")
    monkeypatch.delenv("TEAMBRAIN_DEBUG", raising=False)
    monkeypatch.chdir(workspace["repo"])

    @settings(
        max_examples=60, deadline=None, derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )  # fmt: skip
    @given(args=argv(verb, workspace["odd"]))
    def check(args: list[str]) -> None:
        capsys.readouterr()
        code = run(args)
        out = capsys.readouterr()
        assert "internal error" not in out.err, (args, out.err)
        assert "Traceback" not in out.err, (args, out.err)
        assert code in ALLOWED_EXITS, (args, code, out.err)

    check()
