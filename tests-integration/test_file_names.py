"""Memory files whose names lint rejects (a newline, a space, no ULID, an id that is not the
file's): ``tb lint`` names each on one line, escaped as git quotes such paths, and ``tb
relevant`` and ``tb serve`` never serve them."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Run = Callable[..., Any]
GOOD = "01J0000000000000000000000G"
BAD_NAMES = {
    "01J0000000000000000000000A-evil\nname.md": "01J0000000000000000000000A",
    "01J0000000000000000000000B-tab\there.md": "01J0000000000000000000000B",
    "deploy notes.md": "01J0000000000000000000000C",
    "01J0000000000000000000000D-deploy.md\r": "01J0000000000000000000000D",
    "01J0000000000000000000000F-deploy.md": "01J0000000000000000000000E",  # another id
    '01J0000000000000000000000H-"quoted".md': "01J0000000000000000000000H",
}


@pytest.fixture
def brain(repo: Path, tb: Run, git_run: Run, write_memory: Run) -> Path:
    assert tb("init", cwd=repo).returncode == 0
    yaml = repo / ".teambrain" / "brain.yaml"
    yaml.write_text(yaml.read_text().replace("provider: local", "provider: none"))
    folder = repo / ".teambrain" / "memories" / "learnings"
    write_memory(repo, GOOD, "Deploy with the release script", "Deploy with scripts/release.sh.")
    for name, memory_id in BAD_NAMES.items():
        source = write_memory(repo, memory_id, "Deploy by hand", "Deploy by copying files.")
        source.rename(folder / name)
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "brain", cwd=repo)
    return repo


def test_lint_names_each_bad_file_on_one_line_escaped(brain: Path, tb: Run) -> None:
    done = tb("lint", cwd=brain)
    assert done.returncode == 3
    lines = [line for line in done.stdout.splitlines() if ": path: " in line]
    assert len(lines) == len(BAD_NAMES), done.stdout
    for line in lines:
        assert line.startswith(
            ('".teambrain/memories/learnings/', ".teambrain/memories/learnings/")
        )
    assert '".teambrain/memories/learnings/01J0000000000000000000000A-evil\\nname.md":1: path:' in (
        done.stdout
    )
    assert '\\"quoted\\".md"' in done.stdout and "-tab\\there.md" in done.stdout
    assert ".teambrain/memories/learnings/deploy notes.md:1: path:" in done.stdout  # printable
    reindexed = tb("reindex", cwd=brain)  # what it skips, one line each (*.md files only)
    output = (reindexed.stdout + reindexed.stderr).splitlines()
    skipped = [line for line in output if line.startswith("skipped ")]
    assert len(skipped) == sum(name.endswith(".md") for name in BAD_NAMES), output
    index = (brain / ".teambrain" / "INDEX.md").read_text("utf-8")
    entries = [line for line in index.splitlines() if line.startswith("- [")]
    assert len(entries) == 1 + len(BAD_NAMES), index
    assert "01J0000000000000000000000A-evil%0Aname.md)" in index  # one line, one link
    assert not [line for line in index.splitlines() if line.startswith("name.md")]
    as_json = json.loads(tb("lint", "--json", cwd=brain).stdout)
    paths = {v["path"] for v in as_json["violations"] if v["rule"] == "path"}
    assert {p.rsplit("/", 1)[1] for p in paths} == set(BAD_NAMES)  # JSON keeps the real name


def test_relevant_and_serve_never_serve_a_file_lint_rejects(brain: Path, tb: Run) -> None:
    done = tb("relevant", "--query", "deploy", "--json", cwd=brain)
    assert done.returncode == 0, done.stderr
    assert [hit["id"] for hit in json.loads(done.stdout)] == [GOOD]
    calls = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "names", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "memory_search", "arguments": {"query": "deploy by copying"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "memory_context", "arguments": {}}},
    ]  # fmt: skip
    served = subprocess.run(
        [str(Path(sys.executable).parent / "tb"), "serve"], cwd=brain, text=True,
        input="".join(json.dumps(c) + "\n" for c in calls), capture_output=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert served.returncode == 0, served.stderr
    answers = {m["id"]: m["result"] for m in map(json.loads, served.stdout.splitlines())}
    assert [m["id"] for m in answers[2]["structuredContent"]["results"]] == [GOOD]
    context = answers[3]["structuredContent"]
    assert {m["id"] for m in (*context["required"], *context["relevant"])} <= {GOOD}


def test_propose_says_the_brain_is_a_submodule(
    repo: Path, tmp_path: Path, tb: Run, git_run: Run
) -> None:
    """``.teambrain`` committed as a git submodule (the brain kept in a repository of its own):
    ``tb propose`` and ``tb retire`` say so and what to do, instead of "no brain at main"."""
    shared = tmp_path / "brain-repo"
    shared.mkdir()
    git_run("init", "-q", "-b", "main", cwd=shared)
    (shared / "brain.yaml").write_text("version: 1\n")
    (shared / "memories").mkdir()
    (shared / "memories" / "README.md").write_text("memories\n")
    git_run("add", "-A", cwd=shared)
    git_run("commit", "-qm", "brain", cwd=shared)
    git_run("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(shared),
            ".teambrain", cwd=repo)  # fmt: skip
    git_run("commit", "-qm", "brain as a submodule", cwd=repo)
    for args in (
        ("propose", "--all"),
        ("retire", "01J0000000000000000000000A", "obsolete", "--no-push"),
    ):
        done = tb(*args, cwd=repo)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and ".teambrain is a git submodule at main" in lines[0], lines
        assert "no brain at" not in done.stderr and "git rm .teambrain" in done.stderr
    doctor = json.loads(tb("doctor", "--json", cwd=repo).stdout)
    notes = [f for f in doctor["findings"] if f["name"] == "brain" and f["status"] == "note"]
    assert notes and "submodule" in notes[0]["detail"], doctor
