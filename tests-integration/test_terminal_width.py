"""On a 100-column terminal every line `tb` prints fits (paths, label columns, notes, steps,
bodies), on stdout and stderr; piped, nothing is cut or wrapped (issue 28 point 6)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import termios
from collections.abc import Callable
from pathlib import Path


def tb_path() -> str:
    """The installed ``tb`` of this environment (as conftest.py finds it)."""
    found = shutil.which("tb", path=str(Path(sys.executable).parent)) or shutil.which("tb")
    assert found, "tb is not installed in this environment (run `make install`)"
    return found


ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
VERBS = [
    "install claude-code", "install --list", "doctor", "import", "candidates", "list",
    "show 6F03", "relevant --query checkout --view human", "relevant --query checkout",
    "metrics", "digest --format text", "trust", "lint", "verify", "distill",
    "relevant --query x --at 1900-01-01",
]  # fmt: skip
# Left whole on purpose: a `tb lint` problem line (`file:line: rule`, which editors and CI parse) and
# `tb digest`'s preview of the exact Slack message.


def on_terminal(args: list[str], cwd: Path, env: dict[str, str], columns: int) -> str:
    """What ``tb args`` prints with stdout and stderr on a terminal ``columns`` wide."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    proc = subprocess.Popen([tb_path(), *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=follower, stderr=follower)  # fmt: skip
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower side closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=120)
    os.close(leader)
    return ANSI.sub("", b"".join(chunks).decode("utf-8").replace("\r\n", "\n"))


def outside_fences(text: str) -> list[str]:
    """The lines of ``text`` outside the rendering rule's fences: a fenced body is exactly what
    an agent is given, never re-wrapped for a terminal."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def test_every_line_fits_a_100_column_terminal_and_piped_output_is_whole(
    tmp_path: Path, tb: Callable[..., subprocess.CompletedProcess[str]], git_run: Callable[..., str]
) -> None:
    repo = tmp_path / "a-shop-whose-checkout-lives-in-a-folder-with-a-rather-long-name" / "shop"
    repo.mkdir(parents=True)
    git_run("init", "-q", "-b", "main", cwd=repo)
    shutil.copytree(ROOT / "demo" / "app", repo, dirs_exist_ok=True)
    assert tb("init", cwd=repo).returncode == 0
    shutil.copytree(ROOT / "demo/brain/memories", repo / ".teambrain/memories", dirs_exist_ok=True)
    (repo / "CLAUDE.md").write_text(
        "# CLAUDE.md\n\n## Commands\n\n- Run `make test`, never bare pytest: it sets up the "
        "fixtures under tests/fixtures/stripe/webhooks/with/a/very/long/path/to/payload.json.\n"
    )
    assert tb("reindex", cwd=repo).returncode == 0
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "the shop", cwd=repo)
    env = dict(os.environ)
    too_wide = []
    for verb in VERBS:
        text = on_terminal(verb.split(), repo, env, 100)
        assert "Traceback" not in text and "internal error" not in text, text
        too_wide += [f"tb {verb}: {line}" for line in outside_fences(text) if len(line) > 100]
    assert not too_wide, "\n".join(too_wide)

    # Piped, the same verb prints whole lines: nothing cut with "…", nothing wrapped.
    piped = tb("install", "--list", cwd=repo)
    assert "…" not in piped.stdout and any(len(line) > 100 for line in piped.stdout.splitlines())
