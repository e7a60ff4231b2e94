"""Finding memory files and turning them into :class:`IndexableDoc` records.

Freshness is decided by file stamps (size and modification time in nanoseconds) of every file
under ``memories/`` and ``retired/``: one ``stat`` per file, no reading, no git. A file whose
stamp changed is read and hashed; only when its bytes changed is it parsed again.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from teambrain_kit.paths import MAX_BRAIN_FILES, MAX_WALK_DEPTH
from teambrain_schema import BRAIN_DIRNAME

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from teambrain_kit.paths import BrainLayout
    from teambrain_schema import IndexableDoc

MAX_FILE_BYTES = 256 * 1024
_IGNORED = frozenset({".gitkeep", ".DS_Store"})

Stamp = tuple[int, int]  # (mtime_ns, size)


def top_folders(layout: BrainLayout, kind: str = "memory") -> tuple[Path, ...]:
    """The folders a source of ``kind`` is read from: ``retired/`` and ``memories/`` for
    memories, ``notes/`` for notes."""
    if kind == "note":
        return (layout.root / "notes",)
    return (layout.retired, layout.memories)


def scan_stamps(
    layout: BrainLayout, folders: list[str] | None = None, kind: str = "memory"
) -> dict[str, Stamp]:
    """Every candidate file (``*.md`` under memories/ and retired/, or under notes/ for
    ``kind`` ``note``) → its stamp.

    Keys are paths relative to the repository root with forward slashes. Symlinks are followed
    only for the stamp; reading later refuses links that leave the repository. ``folders``,
    when given, receives every folder listed (for :func:`change_signals`).
    """
    found: dict[str, Stamp] = {}
    root = str(layout.root)
    # (directory, its relative path with a trailing slash): the prefix is built once per folder,
    # not once per file — this loop runs before every search of a large brain.
    stack = [
        (
            str(folder),
            f"{BRAIN_DIRNAME}/" + os.path.relpath(folder, root).replace(os.sep, "/") + "/",
        )
        for folder in top_folders(layout, kind)
        if layout.leads_out(folder) is None  # a link out of the brain: never walked (tb lint says)
    ]
    while stack:
        directory, prefix = stack.pop()
        if len(found) >= MAX_BRAIN_FILES or prefix.count("/") > MAX_WALK_DEPTH + 2:
            continue  # bounds of load_brain: a commit of 200,000 files or 5,000 nested folders
        try:
            with os.scandir(directory) as entries:
                if folders is not None:
                    folders.append(directory)
                for entry in entries:
                    if len(found) >= MAX_BRAIN_FILES:
                        break
                    name = entry.name
                    if name[0] == "." or name in _IGNORED:
                        continue
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append((entry.path, f"{prefix}{name}/"))
                            continue
                        if not name.endswith(".md"):
                            continue
                        stat = entry.stat()
                    except OSError:
                        continue
                    found[prefix + name] = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            continue
    return found


Signals = tuple[tuple[int, int, int] | None, ...]


def change_signals(layout: BrainLayout, folders: Sequence[str], kind: str = "memory") -> Signals:
    """Cheap evidence that memory files changed, without a ``stat`` per file: the stamps of
    the brain's folders (a file added, removed or renamed in, which is how git, ``tb propose``
    and most editors' safe saves write) and of git's ``index`` and ``HEAD`` (any pull,
    checkout, merge or reset rewrites them). A file rewritten in place changes none of these;
    callers still scan every file now and then to see that."""
    from teambrain_kit.gitdir import file_stamp, git_state_stamps

    folder_stamps = [
        file_stamp(path)
        for path in (str(layout.root), *map(str, top_folders(layout, kind)), *folders)
    ]
    return (*folder_stamps, *git_state_stamps(str(layout.repo_root)))


def stamps_digest(stamps: dict[str, Stamp]) -> str:
    """A digest of every file's stamp. Equal digests mean equal stamps; equal stamps listed in
    another order (or by another Python) may digest differently, which only costs the caller
    a file-by-file comparison. 8 ms at 20k files, where sorting first took 50."""
    import marshal

    return f"{len(stamps)}:{hashlib.blake2b(marshal.dumps(stamps), digest_size=20).hexdigest()}"


def is_retired_path(relpath: str) -> bool:
    """True for files under ``.teambrain/retired/``."""
    return relpath.startswith(f"{BRAIN_DIRNAME}/retired/")


@dataclass(frozen=True)
class ReadResult:
    """A memory file read from disk: its bytes' hash and the doc, or why it cannot be used."""

    sha256: str
    doc: IndexableDoc | None
    problem: str | None


def read_doc(layout: BrainLayout, relpath: str, brain_id: str) -> ReadResult:
    """Read and parse one memory file into a doc for brain ``brain_id`` (never raises)."""
    from teambrain_schema import IndexableDoc, content_hash
    from teambrain_schema.brain import file_name_problem, read_text_safely
    from teambrain_schema.frontmatter import FrontMatterError, parse_memory

    path = layout.repo_root / relpath
    try:
        text = read_text_safely(path, layout.repo_root, max_bytes=MAX_FILE_BYTES)
    except FrontMatterError as exc:
        return ReadResult("", None, exc.message)
    sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    try:
        document = parse_memory(text)
    except FrontMatterError as exc:
        return ReadResult(sha, None, f"line {exc.line}: {exc.message}")
    front = document.front
    if not document.body:
        return ReadResult(sha, None, "empty body")
    named = file_name_problem(relpath, front.id)
    if named is not None:  # what `tb lint` rejects is never served
        return ReadResult(sha, None, named)
    doc = IndexableDoc(
        id=front.id,
        source="memory",
        brain=brain_id,
        path=relpath,
        title=front.title,
        body=document.body,
        tags=list(front.tags),
        class_=front.class_,
        scope=front.scope,
        status="retired" if is_retired_path(relpath) else front.status,
        priority=front.priority,
        created=front.created,
        ttl_days=front.ttl_days,
        supersedes=list(front.supersedes),
        evidence=front.evidence,
        content_hash=content_hash(front.class_, front.title, document.body, list(front.tags)),
    )
    return ReadResult(sha, doc, None)


def read_note_doc(layout: BrainLayout, relpath: str, brain_id: str) -> ReadResult:
    """Read one note (``notes/**/*.md``) into a doc of source ``note`` (never raises): always
    advisory, team scope, active; its id is ``note:<path under notes/>``."""
    from teambrain_schema import IndexableDoc, content_hash
    from teambrain_schema.brain import read_text_safely
    from teambrain_schema.frontmatter import FrontMatterError
    from teambrain_schema.notes import MAX_NOTE_BYTES, note_id, parse_note

    path = layout.repo_root / relpath
    try:
        text = read_text_safely(path, layout.repo_root, max_bytes=MAX_NOTE_BYTES)
    except FrontMatterError as exc:
        return ReadResult("", None, exc.message)
    sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    note = parse_note(relpath, text)
    if not note.body.strip():
        return ReadResult(sha, None, "empty note")
    # Notes reach no review before they are searched: one with a secret or a prompt injection
    # is never served (`tb lint` names the line), as the company-brain design asks.
    from teambrain_kit.injection import find_injections
    from teambrain_kit.secrets import find_secrets

    secrets = find_secrets(text)
    if secrets:
        return ReadResult(sha, None, f"not served: {secrets[0].rule} at line {secrets[0].line}")
    injections = find_injections(text)
    if injections:
        found = injections[0]
        return ReadResult(sha, None, f"not served: {found.rule} at line {found.line}")
    doc = IndexableDoc(
        id=note_id(relpath),
        source="note",
        brain=brain_id,
        path=relpath,
        title=note.title,
        body=note.body,
        tags=[t for t in note.tags if t and " " not in t],
        scope="team",
        status="active",
        priority="advisory",
        content_hash=content_hash("note", note.title, note.body, list(note.tags)),
    )
    return ReadResult(sha, doc, None)
