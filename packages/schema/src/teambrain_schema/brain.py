"""Reading a brain from disk: every memory and retired file, hostile input included."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal, TypeVar

from pydantic import BaseModel, ValidationError
from teambrain_kit.local_files import FileTooLarge, NotARegularFile, read_local_bytes
from teambrain_kit.paths import (
    BRAIN_DIRNAME,
    FOLDER_CLASSES,
    MAX_BRAIN_FILES,
    MAX_WALK_DEPTH,
    BrainLayout,
)
from teambrain_kit.yaml import YamlProblem, key_line, load_yaml, to_plain

from ._config import BrainConfig
from ._errors import EnvironmentProblem, ValidationFailure
from .frontmatter import (
    MAX_MEMORY_FILE_BYTES,
    FrontMatterError,
    MemoryDocument,
    describe_validation_error,
    parse_memory,
)
from .ids import ULID_PATTERN
from .index_md import IndexEntry
from .slugs import SLUG_PATTERN

__all__ = [
    "Brain",
    "BrainFile",
    "ConfigProblem",
    "FileProblem",
    "brain_file_from_text",
    "brain_file_paths",
    "brain_yaml_line",
    "file_name_problem",
    "iter_tree",
    "load_brain",
    "load_brain_config",
    "load_brain_files",
    "load_config_file",
    "read_text_safely",
]

FILE_NAME_RE = re.compile(rf"^(?P<id>{ULID_PATTERN})-(?P<slug>{SLUG_PATTERN})\.md$")
IGNORED_NAMES = frozenset({".gitkeep", ".DS_Store"})


def file_name_problem(relpath: str, memory_id: str | None) -> str | None:
    """What is wrong with the name of the memory file at ``relpath`` whose front matter says
    ``memory_id`` (None: not checked against it), or None. ``tb lint`` reports it and
    retrieval never serves such a file (a name with a line break, no ULID, another id)."""
    match = FILE_NAME_RE.fullmatch(relpath.rsplit("/", 1)[-1])
    if match is None:
        return "file name must be <ULID>-<slug>.md"
    if memory_id is not None and match.group("id") != memory_id:
        return f"id {memory_id} does not match the file name"
    return None


MAX_CONFIG_BYTES = 64 * 1024

Location = Literal["memories", "retired"]
ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class FileProblem:
    """Why a file in the brain could not be used: rule id, 1-based line, one-line message."""

    relpath: str
    line: int
    rule: str
    message: str


@dataclass(frozen=True)
class BrainFile:
    """One file found under memories/ or retired/, parsed when possible."""

    relpath: str  # relative to the repository root
    location: Location
    folder: str | None  # class folder under memories/, None in retired/
    document: MemoryDocument | None = None
    problem: FileProblem | None = None

    @property
    def is_usable(self) -> bool:
        return self.document is not None and self.problem is None

    def index_entry(self) -> IndexEntry:
        """What INDEX.md shows of this file (it must have parsed)."""
        assert self.document is not None
        front = self.document.front
        return IndexEntry(
            id=front.id,
            memory_class=front.class_,
            title=front.title,
            priority=front.priority,
            scope=front.scope,
            tags=tuple(front.tags),
            relpath=self.relpath.removeprefix(".teambrain/"),
        )


@dataclass
class Brain:
    """Everything read from a brain: the files, and the usable memories by location."""

    layout: BrainLayout
    files: list[BrainFile] = field(default_factory=list)

    @property
    def active(self) -> list[BrainFile]:
        """Parsed files under memories/ (whatever their status; lint judges that)."""
        return [f for f in self.files if f.is_usable and f.location == "memories"]

    @property
    def retired(self) -> list[BrainFile]:
        """Parsed files under retired/."""
        return [f for f in self.files if f.is_usable and f.location == "retired"]

    @property
    def problems(self) -> list[FileProblem]:
        return [f.problem for f in self.files if f.problem is not None]

    def by_id(self) -> dict[str, BrainFile]:
        """Usable files by memory id (the first one wins when ids collide)."""
        found: dict[str, BrainFile] = {}
        for brain_file in self.files:
            if brain_file.document is not None:
                found.setdefault(brain_file.document.front.id, brain_file)
        return found


def _unresolvable(path: Path, exc: BaseException) -> str:
    """Why ``path`` cannot be resolved, in words: a loop of links, a link to nothing, or the
    error's name."""
    import errno

    if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
        return "a loop of symbolic links: cannot be read"
    if isinstance(exc, FileNotFoundError) and os.path.lexists(path):
        return "a symbolic link (or a folder on the way) to nothing that exists: cannot be read"
    return f"cannot resolve path ({exc.__class__.__name__})"


def read_text_safely(path: Path, repo_root: Path, *, max_bytes: int) -> str:
    """Read a UTF-8 text file of a repository's brain, refusing what could hurt us.

    Raises :class:`FrontMatterError` for a file reached through a symlink that leaves the brain
    (the file itself, ``memories/`` or any folder on the way, or ``.teambrain`` leaving the
    repository: rule ``symlink``), oversized files, binary content and invalid UTF-8.
    """
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise FrontMatterError(_unresolvable(path, exc), rule="read") from None
    repo_real = repo_root.resolve()
    brain_dir = os.path.abspath(repo_root / BRAIN_DIRNAME)
    if os.path.abspath(path).startswith(brain_dir + os.sep):  # a file of the brain
        brain_real = Path(brain_dir).resolve()
        if not brain_real.is_relative_to(repo_real):
            raise FrontMatterError(
                f"{BRAIN_DIRNAME} is a symlink to {brain_real}, outside the repository",
                rule="symlink",
            )
        if not real.is_relative_to(brain_real):
            where = "outside the repository" if not real.is_relative_to(repo_real) else "elsewhere"
            raise FrontMatterError(
                f"reached through a symlink that leaves the brain ({where}: {real})",
                rule="symlink",
            )
    elif path.is_symlink() and not real.is_relative_to(repo_real):
        raise FrontMatterError("symlink points outside the repository", rule="read")
    try:  # opened without blocking: swapped for a FIFO after the check, it is still refused
        data = read_local_bytes(real, max_bytes=max_bytes)
    except NotARegularFile:
        raise FrontMatterError("not a regular file", rule="read") from None
    except FileTooLarge:
        raise FrontMatterError(f"file is larger than {max_bytes // 1024} KB", rule="read") from None
    except OSError as exc:
        raise FrontMatterError(
            f"cannot read file: {exc.strerror or exc.__class__.__name__}", rule="read"
        ) from None
    if b"\x00" in data:
        raise FrontMatterError("file contains NUL bytes (binary content)", rule="read")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FrontMatterError(
            f"invalid UTF-8 at byte {exc.start}", line=line, rule="read"
        ) from None


def brain_file_from_text(layout: BrainLayout, relpath: str, text: str) -> BrainFile | None:
    """What :func:`load_brain` makes of a file at ``relpath`` (repository-relative) holding
    ``text``; None when ``load_brain`` would not read a file there (outside ``memories/`` and
    ``retired/``, or an ignored name such as ``.gitkeep``)."""
    placement = _placement(layout, relpath)
    if placement is None or PurePosixPath(relpath).name in IGNORED_NAMES:
        return None
    location, folder = placement
    return _parse_brain_file(relpath, location, folder, text)


def _placement(layout: BrainLayout, relpath: str) -> tuple[Location, str | None] | None:
    """Where a file at ``relpath`` belongs: ``memories`` (with its class folder when it sits
    directly in one, else None) or ``retired``; None outside both."""
    path = PurePosixPath(relpath)
    memories = PurePosixPath(layout.relative(layout.memories))
    if path != memories and path.is_relative_to(memories):
        inside = path.relative_to(memories).parts
        return "memories", inside[0] if len(inside) == 2 else None
    retired = PurePosixPath(layout.relative(layout.retired))
    if path != retired and path.is_relative_to(retired):
        return "retired", None
    return None


def _parse_brain_file(relpath: str, location: Location, folder: str | None, text: str) -> BrainFile:
    try:
        document = parse_memory(text)
    except FrontMatterError as exc:
        return _unusable(relpath, location, folder, exc)
    return BrainFile(relpath, location, folder, document=document)


def _unusable(
    relpath: str, location: Location, folder: str | None, exc: FrontMatterError
) -> BrainFile:
    problem = FileProblem(relpath, exc.line, exc.rule, exc.message)
    return BrainFile(relpath, location, folder, problem=problem)


def _read_brain_file(path: Path, layout: BrainLayout) -> BrainFile:
    relpath = layout.relative(path)
    placement = _placement(layout, relpath)
    location: Location
    folder: str | None
    if placement is None:  # memories/ or retired/ itself: a link out of the brain (refused below)
        location, folder = ("retired" if path == layout.retired else "memories"), None
    else:
        location, folder = placement
    if placement is not None and not path.is_symlink() and path.is_dir():
        top = layout.memories if location == "memories" else layout.retired
        if len(path.relative_to(top).parts) >= MAX_WALK_DEPTH:
            why = f"folders nested more than {MAX_WALK_DEPTH} deep: not read"
        else:
            why = (
                f"the brain holds more than {MAX_BRAIN_FILES:,} files: the rest of this folder "
                "was not read"
            )
        return _unusable(relpath, location, folder, FrontMatterError(why, rule="read"))
    try:
        text = read_text_safely(path, layout.repo_root, max_bytes=MAX_MEMORY_FILE_BYTES)
    except FrontMatterError as exc:
        return _unusable(relpath, location, folder, exc)
    return _parse_brain_file(relpath, location, folder, text)


# A brain is memories/<class>/<file>: a few levels, a few thousand files. A commit can hold a
# folder nested 5,000 deep (os.walk recursed out of the stack: "internal error" in every verb)
# or 200,000 empty files (every verb took minutes): beyond these bounds nothing is read, and
# the folder where reading stopped is reported instead.
# Files that cannot be used cost as much to read as memories and serve nothing: past this many,
# the rest of the brain is not read (one problem says how many were left).
MAX_UNUSABLE_FILES = 1_000


def iter_tree(
    top: Path, max_depth: int = MAX_WALK_DEPTH
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top)`` top-down and sorted, never following links, without recursion and
    never deeper than ``max_depth`` folders below ``top``: a folder at that depth is listed
    among its parent's ``dirs`` but not entered. Unreadable folders are skipped."""
    stack: list[tuple[str, int]] = [(os.fspath(top), 0)]
    while stack:
        root, depth = stack.pop()
        dirs: list[str] = []
        files: list[str] = []
        try:
            with os.scandir(root) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else files).append(entry.name)
        except OSError:
            continue
        dirs.sort()
        files.sort()
        yield root, dirs, files
        if depth + 1 < max_depth:
            stack.extend((os.path.join(root, name), depth + 1) for name in reversed(dirs))


def _walk(directory: Path, budget: list[int]) -> list[Path]:
    """The files under ``directory`` (and, as if files, the folders that are links, nested too
    deep, or where the brain's file budget ran out: reading them reports why)."""
    found: list[Path] = []
    for root, _dirs, files in iter_tree(directory, MAX_WALK_DEPTH + 1):
        root_path = Path(root)
        depth = len(root_path.relative_to(directory).parts)
        if depth == MAX_WALK_DEPTH:  # not entered below: reported as one problem
            found.append(root_path)
            budget[0] -= 1
            if budget[0] <= 0:
                return found
            continue
        names = [name for name in files if name not in IGNORED_NAMES]
        if len(names) > budget[0]:
            found.extend(root_path / name for name in names[: budget[0]])
            found.append(root_path)  # reading it says the rest was left unread
            budget[0] = 0
            return found
        budget[0] -= len(names)
        # Symlinked directories are among the files: not walked into, reported as files.
        found.extend(root_path / name for name in names)
    return found


def load_brain(layout: BrainLayout) -> Brain:
    """Read every file under ``memories/`` and ``retired/`` without ever raising on content."""
    return load_brain_files(layout, brain_file_paths(layout))


def brain_file_paths(layout: BrainLayout) -> list[Path]:
    """Every file :func:`load_brain` reads, in its order, found by name only (none is read).
    A ``memories/`` or ``retired/`` that a link takes out of the brain is not walked: it is
    listed as one file, which reading refuses (rule ``symlink``)."""
    budget = [MAX_BRAIN_FILES]
    return [
        *_walk_folder(layout, layout.memories, budget),
        *_walk_folder(layout, layout.retired, budget),
    ]


def _walk_folder(layout: BrainLayout, folder: Path, budget: list[int]) -> list[Path]:
    if layout.leads_out(folder) is None:
        return _walk(folder, budget)
    return [folder] if os.path.lexists(folder) else []


def load_brain_files(layout: BrainLayout, paths: Iterable[Path]) -> Brain:
    """A :class:`Brain` of only ``paths`` (files of :func:`brain_file_paths`), each read as
    :func:`load_brain` reads it: for a caller that knows which few files it needs."""
    brain = Brain(layout)
    unusable = 0
    listed = list(paths)
    for n, path in enumerate(listed):
        brain_file = _read_brain_file(path, layout)
        brain.files.append(brain_file)
        unusable += brain_file.problem is not None
        if unusable >= MAX_UNUSABLE_FILES and n + 1 < len(listed):
            why = (
                f"{unusable:,} files of the brain cannot be used: the rest of the brain was "
                "not read (fix or remove the broken ones)"
            )
            relpath = layout.relative(layout.memories)
            brain.files.append(
                _unusable(relpath, "memories", None, FrontMatterError(why, rule="read"))
            )
            break
    return brain


class ConfigProblem(ValidationFailure):
    """A config file that does not validate: where, and why."""

    def __init__(self, relpath: str, line: int, detail: str) -> None:
        super().__init__(f"{relpath}:{line}: {detail}")
        self.relpath = relpath
        self.line = line
        self.detail = detail


def load_brain_config(layout: BrainLayout) -> BrainConfig:
    """``brain.yaml`` validated; missing → :class:`EnvironmentProblem`, invalid → :class:`ValidationFailure`."""
    path = layout.brain_yaml
    relpath = layout.relative(path)
    if not path.exists():
        raise EnvironmentProblem(f"{relpath}: not found; run `tb init` in the repository first")
    try:
        text = read_text_safely(path, layout.repo_root, max_bytes=MAX_CONFIG_BYTES)
        data = load_yaml(text)
    except FrontMatterError as exc:
        raise ConfigProblem(relpath, exc.line, exc.message) from None
    except YamlProblem as exc:
        raise ConfigProblem(relpath, exc.line or 1, exc.message) from None
    return validate_config_data(BrainConfig, data, relpath)


def load_config_file(model: type[ModelT], path: Path, repo_root: Path) -> ModelT:
    """Read and validate any YAML config file of the repository (raises :class:`ConfigProblem`)."""
    relpath = (
        path.relative_to(repo_root).as_posix() if path.is_relative_to(repo_root) else str(path)
    )
    try:
        text = read_text_safely(path, repo_root, max_bytes=MAX_CONFIG_BYTES)
        data = load_yaml(text)
    except FrontMatterError as exc:
        raise ConfigProblem(relpath, exc.line, exc.message) from None
    except YamlProblem as exc:
        raise ConfigProblem(relpath, exc.line or 1, exc.message) from None
    return validate_config_data(model, data, relpath)


def validate_config_data(model: type[ModelT], data: object, relpath: str) -> ModelT:
    """Validate loaded YAML ``data`` as ``model``, turning errors into one located line."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigProblem(relpath, 1, "must be a YAML mapping")
    try:
        return model.model_validate(to_plain(data))
    except ValidationError as exc:
        message, name = describe_validation_error(exc)
        line = _nested_line(data, name) if name else None
        raise ConfigProblem(relpath, line or 1, message) from None


def brain_yaml_line(layout: BrainLayout, dotted: str) -> int:
    """The 1-based line of the key ``dotted`` (``retrieval.embedder``) in brain.yaml, or 1
    when the file or the key is not there."""
    try:
        data = load_yaml(
            read_text_safely(layout.brain_yaml, layout.repo_root, max_bytes=MAX_CONFIG_BYTES)
        )
    except (OSError, ValueError, FrontMatterError, YamlProblem, EnvironmentProblem):
        return 1
    return _nested_line(data, dotted) or 1


def _nested_line(data: object, dotted: str) -> int | None:
    line = None
    node = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            break
        line = key_line(node, part) or line
        node = node[part]
    return line


def class_for_folder(folder: str | None) -> str | None:
    """The memory class a folder under memories/ holds, or None for an unknown folder."""
    return FOLDER_CLASSES.get(folder or "")
