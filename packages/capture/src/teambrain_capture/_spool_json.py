"""The spool's queued JSON files (memory candidates, record drafts): written atomically and
private, never larger than their reader reads; read back with what could not be read said.

Not on the hook's path (pydantic models are written and read here).
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from teambrain_kit.atomic import write_text_atomic
from teambrain_kit.local_files import read_json_file
from teambrain_schema import ValidationFailure
from teambrain_schema.frontmatter import describe_validation_error

from ._spool import ensure_private_dir

M = TypeVar("M", bound=BaseModel)


def write_queued(model: BaseModel, path: Path, *, max_bytes: int, fix: str) -> Path:
    """Write ``model`` to ``path`` (its folder made private first) atomically, mode 0600. A
    file larger than its reader reads (``max_bytes``) is a :class:`ValidationFailure` naming
    ``fix``, and nothing is written: what is queued can be read back."""
    text = model.model_dump_json(indent=2, by_alias=True) + "\n"
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ValidationFailure(
            f"draft: too large to queue: its candidate file would be {size // 1024:,} KB, and the "
            f"spool reads at most {max_bytes // 1024:,} KB {fix}"
        )
    ensure_private_dir(path.parent)
    write_text_atomic(path, text, mode=0o600)
    return path


def read_queued(
    folder: Path, model: type[M], *, max_bytes: int
) -> tuple[list[M], list[tuple[Path, str]]]:
    """Every ``*.json`` in ``folder`` read as ``model``, in file-name order, and the files that
    could not be (path, one-line reason); nothing is raised."""
    found: list[M] = []
    broken: list[tuple[Path, str]] = []
    if not folder.is_dir():
        return found, broken
    for path in sorted(folder.glob("*.json")):
        try:
            found.append(model.model_validate(read_json_file(path, max_bytes=max_bytes)))
        except (OSError, ValueError) as exc:
            reason = (
                describe_validation_error(exc)[0]
                if isinstance(exc, ValidationError)
                else str(exc).splitlines()[0]
            )
            broken.append((path, reason))
    return found, broken
