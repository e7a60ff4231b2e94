"""The one way teambrain runs git: an argument list (never a shell), a scrubbed environment, a
timeout that really ends the command, and errors as one line. Stdlib only (the hook uses it).

Every command runs with git's repository-locating variables removed (``GIT_DIR``,
``GIT_INDEX_FILE``, ``GIT_WORK_TREE``, …, the list ``git rev-parse --local-env-vars`` prints), so
a variable inherited from a git hook or a wrapper script can never point a read or a write at
another repository or at the user's index. Identity and configuration variables
(``GIT_AUTHOR_*``, ``GIT_COMMITTER_*``, ``GIT_CONFIG_GLOBAL``, ``GIT_SSH_COMMAND``, …) pass
through. ``GIT_TERMINAL_PROMPT=0`` makes a command that needs credentials fail instead of
waiting for a password nobody will type.

git runs in its own process group, and a timeout kills the whole group: ``git push`` hands the
network to a helper (``git-remote-http``, ``ssh``) that would otherwise keep the output pipes
open, and wait, after git itself was killed.

Every path git prints — ``ls-tree``, ``ls-files``, ``diff``, ``log``, ``show``, ``status``,
``grep`` — comes from objects anyone who can push (or serve a fetch) wrote, and git's fetch
does not check tree entries by default: an entry named ``..`` or ``.git`` arrives intact. Each
such path passes :func:`unsafe_git_path` (through :func:`git_path`) before it is used as one;
``docs/security.md`` says what that guarantees.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ._errors import EnvironmentProblem

__all__ = [
    "GitFailed",
    "first_line",
    "git_env",
    "git_output",
    "git_path",
    "network_timeout",
    "read_git_blobs",
    "run_git",
    "unsafe_git_path",
]

# Repository-locating variables (git rev-parse --local-env-vars, minus the config ones, which
# only carry `git -c` settings and are safe to keep).
SCRUBBED_ENV = (
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_DIR",
    "GIT_GRAFT_FILE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_NAMESPACE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_OBJECT_DIRECTORY",
    "GIT_PREFIX",
    "GIT_REPLACE_REF_BASE",
    "GIT_SHALLOW_FILE",
    "GIT_WORK_TREE",
)
DEFAULT_TIMEOUT_S = 60.0
# A push or fetch: long enough for a slow network, short enough that a remote that accepts the
# connection and never answers does not hold the user forever. TEAMBRAIN_GIT_NETWORK_TIMEOUT
# (seconds) overrides it.
NETWORK_TIMEOUT_ENV = "TEAMBRAIN_GIT_NETWORK_TIMEOUT"
NETWORK_TIMEOUT_S = 120.0


class GitFailed(EnvironmentProblem):
    """A git command exited non-zero: the command, its exit code and git's own message."""

    def __init__(self, args: Sequence[str], returncode: int, stderr: str) -> None:
        self.args_run = tuple(args)
        self.returncode = returncode
        self.stderr = stderr
        detail = first_line(stderr) or f"exit code {returncode}"
        super().__init__(f"git {' '.join(args[:2])} failed: {detail}")


def first_line(text: str) -> str:
    """The first non-empty line of ``text`` (git's messages put the reason there)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip().removeprefix("fatal: ").removeprefix("error: ")
    return ""


def git_executable() -> str:
    """The git on PATH, or :class:`EnvironmentProblem` saying how to get one."""
    import shutil

    found = shutil.which("git")
    if found is None:
        raise EnvironmentProblem(
            "git is not installed or not on PATH; teambrain needs git (https://git-scm.com)"
        )
    return found


def network_timeout() -> float:
    """Seconds a push or fetch may take: ``$TEAMBRAIN_GIT_NETWORK_TIMEOUT`` or 120."""
    raw = os.environ.get(NETWORK_TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else NETWORK_TIMEOUT_S
    except ValueError:
        return NETWORK_TIMEOUT_S
    return value if 0 < value < 86_400 else NETWORK_TIMEOUT_S


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs with: ours minus repository-locating variables, plus ``extra``."""
    env = {key: value for key, value in os.environ.items() if key not in SCRUBBED_ENV}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_EDITOR", "true")  # nothing we run may open an editor
    if extra:
        env.update(extra)
    return env


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def run_git(
    args: Sequence[str],
    *,
    cwd: str | Path,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git <args>`` in ``cwd`` and return the finished process (bytes in, bytes out).

    A missing git, an unusable ``cwd`` or a timeout is an :class:`EnvironmentProblem` (the
    timeout kills git and every helper it started); a non-zero exit raises :class:`GitFailed`
    unless ``check`` is false.
    """
    command = [git_executable(), *args]
    try:
        process = subprocess.Popen(
            command, cwd=cwd, env=git_env(env), start_new_session=True,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
    except OSError as exc:
        raise EnvironmentProblem(f"cannot run git: {exc.strerror or exc}") from None
    try:
        stdout, stderr = process.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.communicate()
        raise EnvironmentProblem(
            f"git {' '.join(args[:2])} did not finish within {timeout:.0f} s"
        ) from None
    except BaseException:  # KeyboardInterrupt: never leave git running behind us
        _kill_group(process)
        process.wait()
        raise
    done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if check and done.returncode != 0:
        raise GitFailed(args, done.returncode, stderr.decode("utf-8", "replace"))
    return done


def git_output(
    args: Sequence[str],
    *,
    cwd: str | Path,
    input: bytes | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> bytes | None:
    """The stdout of ``git <args>`` in ``cwd``, or None when git is missing, fails or times out
    (for best-effort facts: a branch name, a commit list, a blob id)."""
    try:
        return run_git(args, cwd=cwd, input=input, check=True, timeout=timeout).stdout
    except EnvironmentProblem:
        return None


# A name no file system takes (NAME_MAX) and a path longer than any call accepts (PATH_MAX):
# one such entry must not make a whole reader fail.
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 4096
# Code points HFS+ ignores in file names, so ".g\u200cit" is ".git" there (git's is_hfs_dotgit).
_HFS_IGNORED = frozenset(
    "\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u206a\u206b\u206c\u206d\u206e\u206f\ufeff"
)


def _is_dot_git(name: str) -> bool:
    # ".git" in any case, with the trailing dots and spaces NTFS drops, the code points HFS+
    # ignores, or as NTFS's short name "git~1": each is the repository's own folder somewhere.
    if name.isascii():  # no code point HFS+ ignores: the common case, once per path from git
        return name.rstrip(". ").casefold() in (".git", "git~1")
    folded = "".join(char for char in name if char not in _HFS_IGNORED).rstrip(". ").casefold()
    return folded in (".git", "git~1")


def _bad_char(char: str) -> bool:
    import unicodedata

    # Cc: NUL and the other controls (C0, DEL, C1); Zl/Zp: line and paragraph separators,
    # which split a line of output as a newline does.
    return unicodedata.category(char) in ("Cc", "Zl", "Zp")


def unsafe_git_path(path: str, root: str | Path | None = None) -> str | None:
    """Why ``path`` — a repository-relative path as git printed it — may not be used as a
    path, in a few words; None when it may.

    The one check for every path that comes out of git: not empty; no NUL, control character
    or line separator; not absolute; no empty, ``.`` or ``..`` component; no ``.git``
    component (in any case or spelling a file system folds to it); no name longer than 255
    bytes nor a path longer than 4,096; and, with ``root``, still inside ``root`` once joined
    to it and resolved (links on disk followed).
    """
    if not path:
        return "an empty path"
    if not path.isprintable() and any(_bad_char(char) for char in path):
        return "a control character in the path"
    if path[0] == "/":
        return "an absolute path"
    short = path.isascii() and len(path) <= MAX_NAME_BYTES
    if not short and len(path.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
        return f"a path longer than {MAX_PATH_BYTES} bytes"
    for part in path.split("/"):
        if not part:
            return "an empty name in the path (two slashes, or one at the end)"
        if part[0] == "." or "~" in part or not part.isascii():
            if part in (".", ".."):
                return f"a '{part}' in the path"
            if _is_dot_git(part):
                return "a '.git' folder in the path"
        if not short and len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
            return f"a name longer than {MAX_NAME_BYTES} bytes"
    if root is not None and not _stays_inside(os.fspath(root), path):
        return "leads out of its folder"
    return None


def _stays_inside(root: str, path: str) -> bool:
    # With no '..' left (checked above), only a link on disk can lead out: a link in a folder
    # on the way (the last name is replaced when written, never followed). Folders are
    # resolved once each (a brain of 20,000 files lives in a handful): resolving every file's
    # path cost ~0.4 ms each.
    folder = path.rpartition("/")[0]
    base = _resolved(root, "")
    inside = _resolved(root, folder) if folder else base
    if inside != base and not inside.startswith(base.rstrip("/") + "/"):
        return False
    full = os.path.join(root, path)
    return not os.path.islink(full) or _resolved(root, path).startswith(base.rstrip("/") + "/")


@functools.lru_cache(maxsize=4096)
def _resolved(root: str, relative: str) -> str:
    return os.path.realpath(os.path.join(root, relative) if relative else root)


def git_path(raw: bytes | str, root: str | Path | None = None) -> str | None:
    """``raw`` (bytes as git wrote them, decoded as UTF-8 with undecodable bytes kept) when
    :func:`unsafe_git_path` has nothing against it; None when it is not safe to use."""
    path = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw
    return path if unsafe_git_path(path, root) is None else None


def read_git_blobs(
    names: Sequence[str], *, cwd: str | Path, max_bytes: int, timeout: float = DEFAULT_TIMEOUT_S
) -> list[bytes | None]:
    """The content of each object ``names`` names (an id or ``<rev>:<path>``), in order: None
    for one that does not exist, is not a blob, or is larger than ``max_bytes`` — a commit can
    hold a blob of gigabytes, which is never read. Two git processes whatever the number:
    ``cat-file --batch-check`` for types and sizes, then ``--batch`` for the blobs kept.
    Empty answers (None each) when git fails."""
    found: list[bytes | None] = [None] * len(names)
    if not names or any("\n" in name for name in names):
        return found
    request = "".join(f"{name}\n" for name in names).encode("utf-8", "surrogateescape")
    checked = git_output(
        ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"],
        cwd=cwd, input=request, timeout=timeout,
    )  # fmt: skip
    lines = (checked or b"").split(b"\n")
    wanted: dict[int, str] = {}
    for index in range(len(names)):
        parts = lines[index].split(b" ") if index < len(lines) else []
        if (
            len(parts) == 3
            and parts[1] == b"blob"
            and parts[2].isdigit()
            and int(parts[2]) <= max_bytes
        ):
            wanted[index] = parts[0].decode("ascii", "replace")
    if not wanted:
        return found
    out = git_output(
        ["cat-file", "--batch"], cwd=cwd, timeout=timeout,
        input="".join(f"{oid}\n" for oid in wanted.values()).encode("ascii"),
    )  # fmt: skip
    data = out or b""
    position = 0
    for index in wanted:
        end = data.find(b"\n", position)
        if end < 0:
            break
        header = data[position:end].split(b" ")
        position = end + 1
        if len(header) != 3 or not header[2].isdigit():
            continue  # "<id> missing": nothing follows
        size = int(header[2])
        if header[1] == b"blob" and size <= max_bytes:
            found[index] = data[position : position + size]
        position += size + 1  # the content is followed by a newline
    return found
