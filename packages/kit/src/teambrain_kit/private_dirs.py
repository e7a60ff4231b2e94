"""Machine-local directories are private whoever creates them first (the hook, ``tb serve``,
``tb relevant``): every directory teambrain creates gets mode 0700, parents included —
``os.makedirs(mode=…)`` applies the mode to the last directory only, the rest get the umask's.
Stdlib only (the capture hook uses it)."""

from __future__ import annotations

import os

__all__ = ["create_private_file", "ensure_private_dir"]

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def ensure_private_dir(path: str | os.PathLike[str]) -> None:
    """Create directory ``path`` and every missing parent with mode 0700 (umask or not)."""
    target = os.fspath(path)
    if os.path.isdir(target):
        return
    missing = []
    current = os.path.abspath(target)
    while not os.path.exists(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, PRIVATE_DIR_MODE)
        except FileExistsError:
            continue  # another process made it meanwhile
        os.chmod(directory, PRIVATE_DIR_MODE)  # the umask may have removed owner bits


def create_private_file(path: str | os.PathLike[str]) -> None:
    """Make sure ``path`` exists as a file only its owner can read (mode 0600): created so when
    absent, narrowed when it exists with group or other permissions."""
    ensure_private_dir(os.path.dirname(os.path.abspath(os.fspath(path))))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE_MODE)
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, PRIVATE_FILE_MODE)
    finally:
        os.close(fd)
