"""Model files named in brain.yaml (``retrieval.embedder.path``): where one is, whether it can
be a model at all, and its sha256 (read within bounds, never blocking on a FIFO or device).

Used by :mod:`._local` to run one and by :mod:`._embedders` to approve one (by path and
digest), so neither of those imports the other.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from teambrain_schema import EmbedderConfig

# No sentence-embedding model this runs is near this size; a configured path beyond it is not
# a model (a sparse file, a disk image) and would take minutes to hash.
MAX_MODEL_BYTES = 4 * 1024**3
# Hashing a model file that is this slow is a stalled network mount, not a model to wait for.
HASH_TIMEOUT_S = 60.0
_DIGESTS: dict[tuple[int, int, int, int], str] = {}


def model_file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a model file (a device, a FIFO, a folder, too large), or None for
    a regular file within bounds, or one that is not there (reported when loading)."""
    try:
        info = os.stat(path)  # through links: the file a committed link leads to
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path}: {exc.strerror or exc.__class__.__name__}"
    mode = info.st_mode
    if not stat.S_ISREG(mode):
        kind = (
            "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode)
            else "a folder without model.onnx" if stat.S_ISDIR(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "not a regular file"
        )  # fmt: skip
        return f"{path} is {kind}, not a model file"
    if info.st_size > MAX_MODEL_BYTES:
        return f"{path} is larger than {MAX_MODEL_BYTES // 1024**3} GB, not a model file"
    return None


def file_sha256(
    path: Path, *, max_bytes: int = MAX_MODEL_BYTES, timeout: float = HASH_TIMEOUT_S
) -> str:
    """sha256 of a regular file's bytes (at most ``max_bytes``), read in 1 MiB chunks within
    ``timeout`` seconds. Never blocks on a FIFO or device: it is refused (OSError), as is a
    file too large or too slow to read (TimeoutError)."""
    from teambrain_kit.local_files import FileTooLarge, NotARegularFile

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile(f"{path} is not a regular file")
        if info.st_size > max_bytes:
            raise FileTooLarge(f"{path} is larger than {max_bytes} bytes")
        key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        if key in _DIGESTS:
            return _DIGESTS[key]
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    result: list[str | BaseException] = []

    def read() -> None:
        digest = hashlib.sha256()
        try:
            size = 0
            while chunk := os.read(fd, 1 << 20):
                size += len(chunk)
                if size > max_bytes:
                    raise FileTooLarge(f"{path} grew past {max_bytes} bytes")
                digest.update(chunk)
            result.append(digest.hexdigest())
        except BaseException as exc:  # handed to the caller's thread
            result.append(exc)
        finally:
            os.close(fd)

    worker = threading.Thread(target=read, name="teambrain-model-hash", daemon=True)
    worker.start()
    worker.join(timeout)
    if not result:
        raise TimeoutError(f"reading {path} took longer than {timeout:.0f} s")
    if isinstance(result[0], BaseException):
        raise result[0]
    _DIGESTS[key] = result[0]
    return result[0]


def configured_model_path(config: EmbedderConfig, repo_root: Path) -> Path | None:
    """The model file ``retrieval.embedder.path`` names (relative to the repository; a
    folder means its ``model.onnx``), or None when it names none."""
    if not config.path:
        return None
    weights = Path(config.path).expanduser()
    if not weights.is_absolute():
        weights = repo_root / weights
    if weights.is_dir():
        weights = weights / "model.onnx"
    return weights
