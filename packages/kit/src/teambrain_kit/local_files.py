"""Reading the small files teambrain keeps on this machine (the spool, state, heartbeat, git
refs) without ever hanging or blowing the stack. Stdlib only (the hook path may use it).

A FIFO, socket or device left where a JSON file is expected would block a plain ``open`` (a
FIFO waits for a writer forever); a symlink could point anywhere. :func:`read_local_bytes`
opens without blocking and without following a final symlink, and refuses anything but a
regular file of at most ``max_bytes``; :func:`read_file_within` does the same for a file a
repository names, following its symlinks only while they stay inside it. :func:`loads_json` turns the RecursionError of a deeply
nested document into the ValueError every caller already handles as "not valid JSON".
"""

from __future__ import annotations

import os
import stat

# Not ``typing``/``pathlib``/``json`` at import time: the capture hook reads git's HEAD through
# this module on every agent tool call, and those cost it ~20 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, BinaryIO

__all__ = [
    "FileTooLarge",
    "NotARegularFile",
    "loads_json",
    "open_local_file",
    "read_file_within",
    "read_json_file",
    "read_local_bytes",
    "read_local_text",
    "write_lands_outside",
]

# Spool and state files are a few KB; a candidate holds a draft of at most 256 KB.
DEFAULT_MAX_BYTES = 4 * 1024 * 1024

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


class NotARegularFile(OSError):
    """A FIFO, socket, device or directory where a file was expected."""


class FileTooLarge(OSError):
    """A local file larger than its reader accepts."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def open_local_file(path: str | Path) -> BinaryIO:
    """The regular file ``path``, open for reading in binary (a large file that a reader
    streams, such as a saved matrix). Raises as :func:`read_local_bytes` does, without the
    size bound; never blocks on a FIFO and never follows a final symlink."""
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile(f"{_kind(info.st_mode)}, not a file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_local_bytes(
    path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES, truncate: bool = False
) -> bytes:
    """The bytes of the regular file ``path`` (with ``truncate``, at most its first
    ``max_bytes``).

    Raises FileNotFoundError when it is absent, :class:`NotARegularFile` for a FIFO, socket,
    device or directory (never blocking on one), :class:`FileTooLarge` past ``max_bytes``
    (unless ``truncate``), and OSError (ELOOP) when the last component is a symlink.
    """
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile(f"{_kind(info.st_mode)}, not a file")
        if info.st_size > max_bytes and not truncate:
            raise FileTooLarge(f"larger than {max_bytes} bytes")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:  # grew while we read
                if truncate:
                    return b"".join(chunks)[:max_bytes]
                raise FileTooLarge(f"larger than {max_bytes} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


class OutsideTree(OSError):
    """A path that resolves (through a symlink) outside the folder it was named in."""


def read_file_within(
    path: str | Path, root: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES,
    truncate: bool = False,
) -> bytes:  # fmt: skip
    """The bytes of ``path`` when it resolves to a regular file inside ``root``.

    For files a repository names (a cited module, a Makefile, a fixture): a committed symlink
    may point anywhere — at ``/dev/zero``, ``/dev/stdin`` (the MCP stream of ``tb serve``),
    ``/dev/tty`` or a FIFO, each of which would hang a plain ``open``. Symlinks inside ``root``
    are followed; one that leaves it raises :class:`OutsideTree`; anything but a regular file
    of at most ``max_bytes`` is refused as :func:`read_local_bytes` refuses it, without
    blocking.
    """
    real = os.path.realpath(path)
    top = os.path.realpath(root)
    if real != top and not real.startswith(top.rstrip(os.sep) + os.sep):
        raise OutsideTree(f"{path} leads outside {root}")
    return read_local_bytes(real, max_bytes=max_bytes, truncate=truncate)


def write_lands_outside(path: str | Path, root: str | Path) -> str | None:
    """Where writing ``path`` — a file or folder named inside ``root`` — would really land when
    a link (``path`` itself, a dangling one included, or any folder on the way) takes it out of
    ``root`` or into ``root``'s ``.git`` folder; None when it stays inside.

    For every file teambrain writes at a place a commit can name (``.teambrain/``, ``AGENTS.md``,
    an agent tool's config, a report under the repository): a teammate's committed link to
    ``~/.bashrc``, to a folder of the home, or to ``.git/config`` is refused, never written
    through. Links that stay in the work tree (``CLAUDE.md`` → ``AGENTS.md``) are followed.
    """
    real = os.path.realpath(path)
    top = os.path.realpath(root).rstrip(os.sep)
    inside = real == top or real.startswith(top + os.sep)
    git_dir = top + os.sep + ".git"
    if not inside or real == git_dir or real.startswith(git_dir + os.sep):
        return real
    return None


def read_local_text(path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """:func:`read_local_bytes` decoded as UTF-8 (UnicodeDecodeError is a ValueError)."""
    return read_local_bytes(path, max_bytes=max_bytes).decode("utf-8")


def loads_json(data: str | bytes) -> Any:
    """``json.loads``, with nesting too deep for the parser reported as a ValueError."""
    import json

    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def read_json_file(path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """The JSON value in the local file ``path``; OSError or ValueError when it has none."""
    return loads_json(read_local_bytes(path, max_bytes=max_bytes))
