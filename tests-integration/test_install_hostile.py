"""``tb install`` against hostile agent tool configs a commit can bring (issue 32, points 5
and 6): it never writes through a link to a device, never blocks on a FIFO, never writes outside
the repository through a link unasked, and a config that no parser survives (a 5,000-digit
number, 50,000 levels of nesting) is one line naming the file, with nothing written."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from untrusted import on_a_terminal, run_bounded


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_bounded(repo, *args, open_stdin=False)[0]


def snapshot(root: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every entry under ``root`` (links not followed): its mode and, for files, its bytes."""
    found: dict[str, tuple[int, bytes | None]] = {}
    for path in sorted(root.rglob("*")):
        if ".git" in path.relative_to(root).parts:
            continue
        info = path.lstat()
        data = path.read_bytes() if stat.S_ISREG(info.st_mode) else None
        found[path.relative_to(root).as_posix()] = (info.st_mode, data)
    return found


def _refused(repo: Path, tool: str, *names: str) -> str:
    """``tb install tool`` exits 2 with one line naming one of ``names``; nothing changed."""
    before = snapshot(repo.parent)
    done = run(repo, "install", tool)
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("tb: ") and "internal error" not in line, line
    assert any(name in line for name in names), line
    assert "nothing was written" in line, line
    assert snapshot(repo.parent) == before
    return line


def _special_file(kind: str, where: Path) -> Path:
    if kind == "fifo":
        os.mkfifo(where)
    elif kind == "device":  # a private copy of /dev/null's device number
        try:
            os.mknod(where, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("creating a device needs privileges this run does not have")
    else:
        where.symlink_to("/dev/zero")
    return where


@pytest.mark.parametrize("kind", ["fifo", "device", "zero"])
@pytest.mark.parametrize(
    ("tool", "relpath"),
    [
        ("claude-code", ".mcp.json"),
        ("claude-code", ".claude/settings.json"),
        ("codex", ".codex/config.toml"),
        ("continue", ".continue/mcpServers/teambrain.yaml"),
        ("cline", ".clinerules/hooks/PostToolUse"),
        ("opencode", ".opencode/plugins/teambrain.js"),
    ],
)
def test_a_committed_link_to_a_special_file_is_refused_never_opened_or_replaced(
    repo: Path, tmp_path: Path, kind: str, tool: str, relpath: str
) -> None:
    special = _special_file(kind, tmp_path / f"special-{kind}")
    link = repo / relpath
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(special)
    line = _refused(repo, tool, relpath, str(special), "/dev/zero")
    assert "not a config file" in line or "leads outside the repository" in line
    if kind == "device":
        assert stat.S_ISCHR(special.lstat().st_mode)  # still the device, not a file
    doctor = run(repo, "doctor")
    assert "internal error" not in doctor.stderr and "Traceback" not in doctor.stderr


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_special_file_inside_the_repository_is_refused_too(repo: Path, kind: str) -> None:
    (repo / ".claude").mkdir()
    special = _special_file(kind, repo / ".claude" / "settings.json")
    line = _refused(repo, "claude-code", ".claude/settings.json")
    assert "not a config file" in line
    assert stat.S_IFMT(special.lstat().st_mode) in (stat.S_IFIFO, stat.S_IFCHR)


@pytest.mark.parametrize("link", ["file", "folder"])
def test_a_link_out_of_the_repository_is_written_only_when_the_user_says_so(
    repo: Path, tmp_path: Path, link: str
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "settings.json").write_text('{"permissions": {}}\n')
    if link == "file":
        (repo / ".claude").mkdir()
        (repo / ".claude" / "settings.json").symlink_to(outside / "settings.json")
    else:
        (repo / ".claude").symlink_to(outside)
    line = _refused(repo, "claude-code", ".claude/settings.json")
    assert "leads outside the repository" in line and str(outside) in line
    dry = run(repo, "install", "claude-code", "--dry-run")
    assert dry.returncode == 0 and "asks first" in dry.stdout
    assert (outside / "settings.json").read_text() == '{"permissions": {}}\n'
    code, output = on_a_terminal(repo, ["install", "claude-code"], b"n\n")
    assert code == 2 and "write teambrain's entries there?" in output
    assert (outside / "settings.json").read_text() == '{"permissions": {}}\n'
    code, output = on_a_terminal(repo, ["install", "claude-code"], b"y\n")
    assert code == 0, output
    assert "tb-capture claude-code" in (outside / "settings.json").read_text()


HUGE = "9" * 5000
DEEP = 50_000


@pytest.mark.parametrize(
    ("tool", "relpath", "text"),
    [
        ("claude-code", ".mcp.json", '{"mcpServers": {}, "n": ' + HUGE + "}"),
        ("claude-code", ".mcp.json", '{"a": -' + HUGE + ".5e3}"),
        ("claude-code", ".mcp.json", '{"a": ' + "[" * DEEP + "]" * DEEP + "}"),
        ("claude-code", ".mcp.json", '{"a": ' + '{"b": ' * DEEP + "1" + "}" * DEEP + "}"),
        ("gemini-cli", ".gemini/settings.json", '// c\n{"a": ' + HUGE + ",}"),
        ("gemini-cli", ".gemini/settings.json", '{"a": ' + "[" * DEEP + "]" * DEEP + "}"),
        ("codex", ".codex/config.toml", "a = " + HUGE + "\n"),
        ("codex", ".codex/config.toml", "a = " + "[" * DEEP + "]" * DEEP + "\n"),
        ("codex", ".codex/config.toml", "a = { b = " * 2000 + "1" + " }" * 2000 + "\n"),
        ("continue", ".continue/mcpServers/teambrain.yaml", "a: " + HUGE + "\n"),
        ("continue", ".continue/mcpServers/teambrain.yaml", "a: " + "[" * DEEP + "]" * DEEP + "\n"),
        ("continue", ".continue/mcpServers/teambrain.yaml", "a: " + "{b: " * DEEP + "1" + "}" * DEEP + "\n"),
        ("continue", ".continue/mcpServers/teambrain.yaml",
         "".join(" " * i + "- \n" for i in range(0, 6000, 2))),
        ("continue", ".continue/mcpServers/teambrain.yaml",
         "a:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 3000))),
    ],
)  # fmt: skip
def test_a_config_no_parser_survives_is_one_line_naming_it_and_nothing_is_written(
    repo: Path, tool: str, relpath: str, text: str
) -> None:
    path = repo / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    line = _refused(repo, tool, relpath)
    assert f"tb: {relpath}: " in line
    doctor = run(repo, "doctor", "--json")
    assert "internal error" not in doctor.stderr and "Traceback" not in doctor.stderr
    assert doctor.returncode in (0, 2) and doctor.stdout.startswith("{")


def test_a_link_that_stays_inside_the_repository_is_followed(repo: Path) -> None:
    (repo / "config").mkdir()
    (repo / "config" / "mcp.json").write_text('{"mcpServers": {}}\n')
    (repo / ".mcp.json").symlink_to("config/mcp.json")
    done = run(repo, "install", "claude-code")
    assert done.returncode == 0, done.stderr
    assert (repo / ".mcp.json").is_symlink()
    assert "teambrain" in (repo / "config" / "mcp.json").read_text()
