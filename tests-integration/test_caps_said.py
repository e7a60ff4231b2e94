"""Issue 37 point 8: every cap says when it is hit — what was left out and how to get it.
``tb import``'s 500 pieces is in test_import_export.py; the live view's and the index walk's
bounds in the retrieval tests; these are the other caps a person meets on the real ``tb``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

MEMORY_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F01"


def _brain(repo: Path, tb: Any, git_run: Any) -> Path:
    assert tb("init", cwd=repo).returncode == 0
    brain_yaml = repo / ".teambrain" / "brain.yaml"
    brain_yaml.write_text(brain_yaml.read_text().replace("provider: local", "provider: none"))
    memory = repo / ".teambrain" / "memories" / "decisions" / f"{MEMORY_ID}-gateway.md"
    memory.write_text(
        f"---\nid: {MEMORY_ID}\nclass: decision\nscope: team\nstatus: active\n"
        "priority: advisory\ntitle: Payments go through the gateway\ncreated: 2026-11-01\n---\n\n"
        "Call the payment gateway for every charge.\n"
    )
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "brain", cwd=repo)
    return memory


def test_show_says_when_older_history_was_left_out(repo: Path, tb: Any, git_run: Any) -> None:
    memory = _brain(repo, tb, git_run)
    stream = []
    for i in range(55):  # 55 edits of the memory in one git process
        text = memory.read_text() + f"Edit {i}.\n"
        stream.append(
            f"commit refs/heads/main\ncommitter a <a@b> {1_760_000_000 + i} +0000\ndata 5\nedit\n"
            f"{'from refs/heads/main^0' if i == 0 else ''}\n"
            f"M 644 inline .teambrain/memories/decisions/{memory.name}\n"
            f"data {len(text.encode())}\n{text}\n"
        )
    subprocess.run(["git", "fast-import", "--quiet", "--force"], cwd=repo, check=True,
                   input="".join(stream), text=True)  # fmt: skip
    git_run("reset", "-q", "--hard", "main", cwd=repo)
    done = tb("show", MEMORY_ID, cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "older commits not shown (the newest 50): git log --follow -- .teambrain/" in done.stdout
    shown = json.loads(tb("show", MEMORY_ID, "--json", cwd=repo).stdout)
    assert len(shown["history"]) == 50 and shown["history_more"] is True


def test_relevant_says_which_words_of_a_long_query_were_not_searched(
    repo: Path, tb: Any, git_run: Any
) -> None:
    _brain(repo, tb, git_run)
    query = "payment gateway " + " ".join(f"word{i}" for i in range(80))
    done = tb("relevant", "-q", query, "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["id"] == MEMORY_ID  # stdout stays data
    assert "searched the first 64 distinct words of the query; 18 more were not used" in done.stderr


def test_a_drop_reason_too_long_is_refused_not_cut(
    repo: Path, tb: Any, git_run: Any, teambrain_home: Path
) -> None:
    from teambrain_capture import queue_candidate, repo_join_key
    from teambrain_schema.paths import MachineLayout

    _brain(repo, tb, git_run)
    draft = {"class": "learning", "title": "Retries are capped",
             "body": "Capture retries at most three times."}  # fmt: skip
    queued, _ = queue_candidate(draft, "agent", repo=repo_join_key(repo),
                                machine=MachineLayout(teambrain_home))  # fmt: skip
    candidate = queued.candidate_id
    done = tb("candidates", "drop", candidate, "--reason", "x" * 500, cwd=repo)
    assert done.returncode == 1 and "--reason: 500 characters; the limit is 369" in done.stderr
    listed = json.loads(tb("candidates", "--json", cwd=repo).stdout)["candidates"]
    assert [c["status"] for c in listed] == ["pending"]  # nothing half-done


def test_lint_says_when_it_checked_only_some_templates(repo: Path, tb: Any, git_run: Any) -> None:
    _brain(repo, tb, git_run)
    prompts = repo / ".teambrain" / "prompts"
    shipped = len(list(prompts.glob("*.md")))
    for i in range(101):
        (prompts / f"extra-{i:03d}.md").write_text("x\n")
    done = tb("lint", cwd=repo)
    said = f"holds {shipped + 101} templates; only the first 100 are checked"
    assert said in done.stdout, done.stdout
