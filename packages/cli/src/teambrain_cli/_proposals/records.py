"""Graph records and notes for ``tb propose``: ``--record FILE`` (a record draft to add or
change), ``--promote NOTE`` (a note the proposal replaces), and the record drafts agents queued
with ``memory_propose`` (docs/graph.md#proposing-records)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teambrain_schema import MemoryDraft, UserError, ValidationFailure

from .drafts import read_draft_source

if TYPE_CHECKING:
    from teambrain_schema import RecordCandidate
    from teambrain_schema.paths import BrainLayout
    from teambrain_sync import RecordSubmission


def record_submission(source: str) -> RecordSubmission:
    """The record draft in ``source`` (YAML, or JSON: the ``draft`` ``memory_propose`` takes),
    as the YAML text its file will hold; a file that is not one record is exit 3, naming it."""
    from teambrain_sync import RecordSubmission

    text = read_draft_source(source)
    if Path(source).suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationFailure(
                f"{source}: invalid JSON at line {exc.lineno}: {exc.msg}"
            ) from None
        return RecordSubmission(record_yaml(data, source), source)
    return RecordSubmission(text, source)


def record_yaml(data: Any, source: str) -> str:
    """A record draft (mapping) as the YAML a record file holds."""
    from pydantic import ValidationError
    from teambrain_schema import RecordDraft
    from teambrain_schema.frontmatter import describe_validation_error
    from teambrain_schema.yaml import dump_yaml

    try:
        draft = data if isinstance(data, RecordDraft) else RecordDraft.model_validate(data)
    except ValidationError as exc:
        raise ValidationFailure(f"{source}: {describe_validation_error(exc)[0]}") from None
    return dump_yaml(draft.as_yaml_data())


def candidate_submission(candidate: RecordCandidate) -> RecordSubmission:
    """A queued record draft (or note) as a submission named after its candidate."""
    from teambrain_sync import RecordSubmission

    source = f"candidate {candidate.candidate_id}"
    if candidate.note is not None:
        return RecordSubmission(candidate.note.text, source, note_path=candidate.note.path)
    return RecordSubmission(record_yaml(candidate.record, candidate.candidate_id), source)


def note_relpath(layout: BrainLayout, given: str) -> str:
    """The repository path of the note ``given`` names (a path from here, or from the
    repository's root), which must be a ``.md`` file under ``.teambrain/notes/``."""
    root = layout.repo_root.resolve()
    candidates = [Path(given), root / given]
    for candidate in candidates:
        path = (Path.cwd() / candidate) if not candidate.is_absolute() else candidate
        try:
            relative = path.resolve().relative_to(root)
        except (OSError, ValueError):
            continue
        relpath = relative.as_posix()
        notes = layout.relative(layout.root / "notes") + "/"
        if relpath.startswith(notes) and relpath.endswith(".md") and path.is_file():
            return relpath
    raise UserError(
        f"--promote {given!r}: not a note of this brain (a .md file under .teambrain/notes/)"
    )


def note_draft(layout: BrainLayout, relpath: str, memory_class: str) -> MemoryDraft:
    """The memory a note becomes with ``--promote NOTE --class CLASS``: its title and body, its
    tags that are valid tags. A note too long for a memory says how to write the draft instead."""
    from teambrain_schema.drafts import validate_draft
    from teambrain_schema.frontmatter import FrontMatterError
    from teambrain_schema.notes import read_note

    try:
        note = read_note(layout.repo_root / relpath, layout)
    except FrontMatterError as exc:
        raise UserError(f"{relpath}: {exc.message}") from None
    import re

    tags = [t for t in note.tags if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.:/\-]{0,39}", t)]
    title = note.title if len(note.title) <= 80 else note.title[:79].rstrip() + "…"
    try:
        return validate_draft(
            {"class": memory_class, "title": title, "body": note.body, "tags": tags}
        )
    except ValidationFailure as exc:
        raise ValidationFailure(
            f"{relpath}: {exc.message} — write the memory as a draft (`tb propose --draft FILE "
            f"--promote {relpath}`)"
        ) from None
