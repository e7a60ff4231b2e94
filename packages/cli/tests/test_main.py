import json
import stat
import subprocess
from pathlib import Path

import pytest
from teambrain_cli._main import run


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_init_creates_brain_and_private_home(
    repo: Path, teambrain_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["init"]) == 0
    brain = repo / ".teambrain"
    for relpath in (
        "brain.yaml",
        "INDEX.md",
        "prompts",
        "retired",
        *(f"memories/{f}" for f in ("decisions", "conventions", "map", "learnings")),
    ):
        assert (brain / relpath).exists(), relpath
    for sub in ("", "spool", "spool/sessions", "spool/candidates", "logs", "user"):
        assert stat.S_IMODE((teambrain_home / sub).stat().st_mode) == 0o700, sub
    assert "Initialised teambrain" in capsys.readouterr().out


def test_init_is_idempotent(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["init"]) == 0
    before = {
        p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git/" not in p.as_posix()
    }
    (repo / ".teambrain/brain.yaml").write_text(
        (repo / ".teambrain/brain.yaml").read_text() + "# edited by a human\n"
    )
    edited = (repo / ".teambrain/brain.yaml").read_bytes()
    capsys.readouterr()
    assert run(["init"]) == 0
    assert "nothing changed" in capsys.readouterr().out
    after = {
        p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git/" not in p.as_posix()
    }
    assert set(after) == set(before)
    assert (repo / ".teambrain/brain.yaml").read_bytes() == edited


def test_init_tightens_a_world_readable_home(repo: Path, teambrain_home: Path) -> None:
    teambrain_home.mkdir(mode=0o755)
    teambrain_home.chmod(0o755)
    assert run(["init"]) == 0
    assert stat.S_IMODE(teambrain_home.stat().st_mode) == 0o700


def test_outside_a_repository_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(["init"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not inside a git repository" in err


def test_lint_without_brain_exits_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["lint"]) == 2
    assert "tb init" in capsys.readouterr().err


def test_usage_errors_exit_1_and_json_failures_stay_parseable(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["no-such-verb"]) == 1
    assert run(["lint", "--json", "--no-such-flag"]) == 1
    out = capsys.readouterr().out
    assert json.loads(out)["ok"] is False


def test_lint_json_and_exit_3(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["init"]) == 0
    (repo / ".teambrain/memories/map/notes.md").write_text("not a memory\n")
    capsys.readouterr()
    assert run(["lint", "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert {v["rule"] for v in report["violations"]} >= {"frontmatter"}


def test_reindex_regenerates_index(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["init"]) == 0
    (repo / ".teambrain/INDEX.md").write_text("hand edited\n")
    assert run(["lint"]) == 3
    capsys.readouterr()
    assert run(["reindex"]) == 0
    assert "regenerated" in capsys.readouterr().out
    assert run(["lint"]) == 0
    assert run(["reindex"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_a_rebuild_loads_the_model_only_when_a_text_needs_embedding(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from teambrain_retrieval._index._local import LocalOnnxEmbedder

    loads: list[int] = []
    real_load = LocalOnnxEmbedder.load

    def counted(self: LocalOnnxEmbedder) -> object:
        loads.append(1)
        return real_load(self)

    monkeypatch.setattr(LocalOnnxEmbedder, "load", counted)
    assert run(["init"]) == 0
    decisions = repo / ".teambrain/memories/decisions"
    memory = (
        "---\nid: {id}\nclass: decision\nscope: team\nstatus: active\npriority: advisory\n"
        "title: {title}\ncreated: 2026-12-01\n---\n\n{title}.\n"
    )
    (decisions / "01KB2F0A1S9Y4Q7V3C8D5E6F01-a.md").write_text(
        memory.format(id="01KB2F0A1S9Y4Q7V3C8D5E6F01", title="Payments go through the gateway")
    )
    capsys.readouterr()
    assert run(["reindex", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)["search_index"]
    assert (first["memories"], first["newly_embedded"]) == (1, 1), first
    assert loads
    loads.clear()
    assert run(["reindex", "--json"]) == 0  # every vector from the cache: no model loaded
    again = json.loads(capsys.readouterr().out)["search_index"]
    assert (again["newly_embedded"], again["embedder"], loads) == (0, "local:minilm-l6-int8", [])
    (decisions / "01KB2F0A1S9Y4Q7V3C8D5E6F02-b.md").write_text(
        memory.format(id="01KB2F0A1S9Y4Q7V3C8D5E6F02", title="Logs are JSON lines")
    )
    assert run(["reindex", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)["search_index"]
    assert (added["newly_embedded"], added["embedder"]) == (1, "local:minilm-l6-int8")
    assert loads


def test_unexpected_errors_are_one_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import teambrain_cli._commands.lint as lint_module

    def boom(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(lint_module, "lint_brain", boom)
    assert run(["init"]) == 0
    capsys.readouterr()
    assert run(["lint"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "tb: internal error: RuntimeError: disk on fire (set TEAMBRAIN_DEBUG=1 for a traceback)\n"
    )


def test_an_interrupted_reindex_says_what_it_kept_and_exits_130(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from teambrain_retrieval._search._backend import SqliteBackend

    assert run(["init"]) == 0
    (repo / ".teambrain/brain.yaml").write_text(
        (repo / ".teambrain/brain.yaml").read_text().replace("provider: local", "provider: none")
    )

    def interrupted(self: object, progress: object = None, **_: object) -> int:
        assert callable(progress)
        progress(0, 300)
        progress(48, 300)
        raise KeyboardInterrupt

    monkeypatch.setattr(SqliteBackend, "ensure_vectors", interrupted)
    capsys.readouterr()
    assert run(["reindex"]) == 130
    err = capsys.readouterr().err
    assert "interrupted: 48 of 300 new embeddings are kept" in err
    assert "run `tb reindex` again" in err and "Traceback" not in err


def test_ctrl_c_anywhere_exits_130_not_aborted(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from teambrain_cli._commands import lint

    assert run(["init"]) == 0

    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(lint, "lint_brain", interrupted)
    capsys.readouterr()
    assert run(["lint"]) == 130
    assert "tb: interrupted" in capsys.readouterr().err


def test_a_file_system_refusal_is_an_environment_error_naming_the_file(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the argument sweep: `tb digest --out <300 é>` ended in an internal error."""
    assert run(["init"]) == 0
    capsys.readouterr()
    assert run(["digest", "--out", "é" * 300]) == 2
    err = capsys.readouterr().err
    assert "File name too long" in err and "internal error" not in err and err.count("\n") == 1


def test_an_argument_with_a_nul_byte_is_a_user_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["propose", "--draft", "a\x00b"]) == 1
    assert "argument 3 contains a NUL byte" in capsys.readouterr().err
