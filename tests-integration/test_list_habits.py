"""``tb list`` with gh's habits (issue 42 point 6), from the installed ``tb``: a limit (30 by
default, saying "showing 30 of N"), ``--search``, a pager on a terminal, tab-separated rows when
piped, ``--json FIELDS`` and ``--jq``, ``--web`` opening the list in the page."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., subprocess.CompletedProcess[str]]
TB = str(Path(sys.executable).parent / "tb")


@pytest.fixture(scope="module")
def forty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A brain of 40 memories, committed (module-scoped: read only by the tests)."""
    repo = tmp_path_factory.mktemp("forty") / "repo"
    repo.mkdir()
    env = {**os.environ, "TEAMBRAIN_HOME": str(repo.parent / "home")}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run([TB, "init"], cwd=repo, env=env, check=True, capture_output=True)
    folder = repo / ".teambrain" / "memories" / "conventions"
    for number in range(1, 41):
        memory_id = f"01KB2F0A1S9Y4Q7V3C8D5E{number:04d}"
        topic = "checkout" if number % 10 == 0 else "payments"
        (folder / f"{memory_id}-rule.md").write_text(
            f"---\nid: {memory_id}\nclass: convention\nscope: team\nstatus: active\n"
            f"priority: advisory\ntitle: Rule {number} about {topic}\ncreated: 2026-12-01\n"
            f"tags: [{topic}]\n---\n\nRule {number} says what {topic} needs.\n"
        )
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit",
                    "-qm", "forty"], cwd=repo, check=True)  # fmt: skip
    return repo


def test_a_limit_a_search_and_tab_separated_rows(forty: Path, tb: Run) -> None:
    done = tb("list", cwd=forty)
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert len(rows) == 30 and all(len(row) == 5 for row in rows)
    assert rows[0] == ["01KB2F0A1S9Y4Q7V3C8D5E0001", "convention", "Rule 1 about payments", "",
                       "payments"]  # fmt: skip
    assert "showing 30 of 40 memories; -L 40 shows them all" in done.stderr
    assert len(tb("list", "-L", "5", cwd=forty).stdout.splitlines()) == 5
    found = tb("list", "--search", "CHECKOUT needs", cwd=forty)
    assert [r.split("\t")[2] for r in found.stdout.splitlines()] == [
        "Rule 10 about checkout", "Rule 20 about checkout", "Rule 30 about checkout",
        "Rule 40 about checkout",
    ]  # fmt: skip
    assert tb("list", "-L", "0", cwd=forty).returncode == 1


def test_json_fields_and_jq(forty: Path, tb: Run) -> None:
    picked = json.loads(tb("list", "--json", "id,title", "-L", "3", cwd=forty).stdout)
    assert picked == [  # by title, as the list is
        {"id": "01KB2F0A1S9Y4Q7V3C8D5E0001", "title": "Rule 1 about payments"},
        {"id": "01KB2F0A1S9Y4Q7V3C8D5E0010", "title": "Rule 10 about checkout"},
        {"id": "01KB2F0A1S9Y4Q7V3C8D5E0011", "title": "Rule 11 about payments"},
    ]
    whole = json.loads(tb("list", "--json", cwd=forty).stdout)  # unchanged: every memory
    assert whole["ok"] is True and whole["total"] == 40 and len(whole["memories"]) == 40
    assert len(json.loads(tb("list", "--json", "-L", "2", cwd=forty).stdout)["memories"]) == 2
    lines = tb("list", "--json", "id,tags", "--jq",
               '.[] | select(.tags | contains(["checkout"])) | .id', "-L", "40",
               cwd=forty).stdout.splitlines()  # fmt: skip
    assert lines == [f"01KB2F0A1S9Y4Q7V3C8D5E00{n}0" for n in (1, 2, 3, 4)]
    ids = tb("list", "--json", "id", "--jq", ".[].id", "-L", "2", cwd=forty).stdout.splitlines()
    assert len(ids) == 2 and all(i.startswith("01KB") and '"' not in i for i in ids)  # raw
    assert tb("list", "--json", "--jq", ".total", cwd=forty).stdout == "40\n"
    bad = tb("list", "--json", "id,colour", cwd=forty)
    assert (
        bad.returncode == 1
        and "unknown JSON field 'colour'; the fields are: id, title" in bad.stderr
    )
    lonely = tb("list", "--jq", ".[]", cwd=forty)
    assert lonely.returncode == 1 and "--jq filters JSON: add --json" in lonely.stderr
    unread = tb("list", "--json", "id", "--jq", ".[] | input", cwd=forty)
    assert unread.returncode == 1 and "--jq: input/0 is not supported" in unread.stderr


def _on_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    from terminal import on_terminal

    return on_terminal([TB, *args], cwd, env)[1]


def test_on_a_terminal_the_list_goes_through_the_pager(forty: Path, tmp_path: Path) -> None:
    pager = tmp_path / "pager.sh"
    pager.write_text(
        f'#!/bin/sh\necho "LESS=$LESS" > {tmp_path}/paged.txt\ncat >> {tmp_path}/paged.txt\n'
    )
    pager.chmod(0o755)
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "120"}
    env.pop("LESS", None)
    shown = _on_terminal(["list", "-L", "3"], forty, {**env, "TB_PAGER": str(pager)})
    paged = (tmp_path / "paged.txt").read_text()
    assert paged.startswith("LESS=FRX\n") and paged.count("Rule ") == 3
    assert "showing 3 of 40" in shown and "Rule 1 about payments" not in shown
    (tmp_path / "paged.txt").unlink()
    _on_terminal(
        ["list", "-L", "2"], forty, {**env, "PAGER": str(pager)}
    )  # $PAGER when no $TB_PAGER
    assert (tmp_path / "paged.txt").read_text().count("Rule ") == 2
    (tmp_path / "paged.txt").unlink()
    direct = _on_terminal(["list", "-L", "2"], forty, {**env, "TB_PAGER": "", "PAGER": str(pager)})
    assert not (tmp_path / "paged.txt").exists() and "Rule 1 about payments" in direct


def test_web_opens_the_list_in_the_page(forty: Path) -> None:
    env = {**os.environ, "BROWSER": "true"}
    proc = subprocess.Popen([TB, "list", "-t", "checkout", "--web"], cwd=forty, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/brain?tag=checkout"), url
        with urllib.request.urlopen(url, timeout=60) as answer:
            page = answer.read().decode("utf-8")
        assert "Rule 10 about checkout" in page and "Rule 1 about payments" not in page
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
