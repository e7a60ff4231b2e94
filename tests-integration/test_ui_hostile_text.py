"""``tb ui`` shows hostile text as inert text: on a repository whose memory body, commit
subject, commit author and branch name carry bidi overrides, isolates, zero-width and control
characters (all of which git and the brain's files let through), no page holds one of them —
as ``tb show`` drops them — so a right-to-left override cannot turn the rest of a line around
(the date after an author's name, the badges after a title)."""

from __future__ import annotations

import http.client
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from teamharness import tb_executable
from uiworld import UiServer, start_ui_in

MEMORY_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F31"
RLO, PDF, LRI, ZWJ = "\u202e", "\u202c", "\u2066", "\u200d"
INVISIBLE = (RLO, PDF, LRI, ZWJ, "\x1b", "\x08")
BODY = f"Pay through the gateway {RLO}exe.txt{PDF} and {LRI}isolate, zero{ZWJ}width, \x1b[31mred."
AUTHOR = f"Mallory {RLO}yrollaM"
SUBJECT = f"add the gateway note {RLO}gnitseT{PDF} \x08done"
BRANCH = f"teambrain/propose-{RLO}evil"
MEMORY = f"""---
id: {MEMORY_ID}
class: learning
scope: team
status: active
priority: advisory
title: Payments go through the gateway
created: 2026-01-05
supersedes: []
tags: []
ttl_days: null
---
{BODY}
"""


def run(*args: str, cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, (args, done.stderr)


@pytest.fixture(scope="module")
def hostile_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    root = tmp_path_factory.mktemp("hostile-ui")
    repo = root / "repo"
    repo.mkdir()
    env = {**os.environ, "TEAMBRAIN_HOME": str(root / "home"), "BROWSER": ""}
    env.pop("DISPLAY", None)
    who = {"GIT_AUTHOR_NAME": AUTHOR, "GIT_AUTHOR_EMAIL": "m@example.invalid",
           "GIT_COMMITTER_NAME": AUTHOR, "GIT_COMMITTER_EMAIL": "m@example.invalid"}  # fmt: skip
    run("git", "init", "-q", "-b", "main", cwd=repo, env=env)
    run(tb_executable(), "init", cwd=repo, env=env)
    (repo / ".teambrain" / "memories" / "learnings" / f"{MEMORY_ID}-gateway.md").write_text(MEMORY)
    run("git", "add", "-A", cwd=repo, env=env)
    run("git", "commit", "-q", "-m", SUBJECT, cwd=repo, env={**env, **who})
    run("git", "branch", BRANCH, cwd=repo, env=env)
    server = start_ui_in(repo, env)
    try:
        yield server
    finally:
        server.stop()


def get(server: UiServer, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.request("GET", f"/{server.secret}{path}")
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("path", "shows"),
    [
        (f"/memory/{MEMORY_ID}", ["Pay through the gateway exe.txt and isolate, zerowidth", "Mallory yrollaM", "gnitseT"]),
        ("/brain", ["Payments go through the gateway"]),
        (f"/brain?q={quote(RLO + 'gateway' + ZWJ)}", ["for “gateway”"]),
        ("/queue", ["teambrain/propose-evil"]),
        (f"/brain?ref={quote(RLO + 'main')}", []),
    ],
)  # fmt: skip
def test_no_page_shows_a_bidi_zero_width_or_control_character(
    hostile_ui: UiServer, path: str, shows: list[str]
) -> None:
    status, page = get(hostile_ui, path)
    assert status in (200, 400), (path, status)
    found = sorted({f"U+{ord(c):04X}" for c in INVISIBLE if c in page})
    assert not found, f"{path} shows {found}"
    for text in shows:
        assert text in page, (path, text)
