"""The record spool: graph record drafts waiting for ``tb propose`` (``spool/records/``), one
JSON file each, apart from the memory candidates (docs/graph.md#proposing-records).

Writing one changes nothing in any repository; the same record queued twice for a repository
is one candidate.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from teambrain_kit.paths import MachineLayout
from teambrain_schema import NoteDraft, Proposer, RecordCandidate, RecordDraft, ValidationFailure
from teambrain_schema.frontmatter import describe_validation_error
from teambrain_schema.ids import new_ulid

from ._spool_json import read_queued, write_queued

MAX_RECORD_CANDIDATE_BYTES = 256 * 1024


def records_dir(machine: MachineLayout) -> Path:
    """Where queued record drafts live: ``spool/records/``."""
    return machine.spool / "records"


def queue_record(
    record: RecordDraft | dict[str, Any],
    proposer: Proposer,
    *,
    sid: str | None = None,
    repo: str | None = None,
    machine: MachineLayout,
    reason: str | None = None,
    now: dt.datetime | None = None,
) -> tuple[RecordCandidate, bool]:
    """Queue ``record`` for repository ``repo``; (candidate, created). The same record pending
    for the same repository is the existing candidate (``created=False``)."""
    try:
        valid = record if isinstance(record, RecordDraft) else RecordDraft.model_validate(record)
    except ValidationError as exc:
        raise ValidationFailure(describe_validation_error(exc)[0]) from None
    return _queue(
        {"record": valid, "sid": sid}, valid.content_hash(), proposer,
        repo=repo, machine=machine, reason=reason, now=now,
    )  # fmt: skip


def queue_note(
    note: NoteDraft,
    proposer: Proposer,
    *,
    repo: str | None = None,
    machine: MachineLayout,
    reason: str | None = None,
    now: dt.datetime | None = None,
) -> tuple[RecordCandidate, bool]:
    """Queue a note to add under ``.teambrain/notes/`` for repository ``repo`` (an import);
    the same note pending for the same repository is the existing candidate."""
    return _queue(
        {"note": note}, note.content_hash(), proposer,
        repo=repo, machine=machine, reason=reason, now=now,
    )  # fmt: skip


def _queue(
    fields: dict[str, Any], digest: str, proposer: Proposer, *, repo: str | None,
    machine: MachineLayout, reason: str | None, now: dt.datetime | None,
) -> tuple[RecordCandidate, bool]:  # fmt: skip
    """The pending candidate of this content for ``repo`` (created False), else a new one."""
    for existing in list_records(machine).records:
        if (
            existing.content_hash == digest
            and existing.status == "pending"
            and existing.repo == repo
        ):
            return existing, False
    candidate = RecordCandidate(
        candidate_id=new_ulid(), created=now or dt.datetime.now(dt.UTC), proposer=proposer,
        content_hash=digest, repo=repo, reason=reason, **fields,
    )  # fmt: skip
    save_record(candidate, machine=machine)
    return candidate, True


def save_record(candidate: RecordCandidate, *, machine: MachineLayout) -> Path:
    """Write (or rewrite) a record candidate atomically, private to this user. One whose file
    would be larger than :func:`list_records` reads is a :class:`ValidationFailure`, and nothing
    is written: what is queued can be read back."""
    path = records_dir(machine) / f"{candidate.candidate_id}.json"
    return write_queued(
        candidate, path, max_bytes=MAX_RECORD_CANDIDATE_BYTES,
        fix="; name fewer edges or shorter attributes",
    )  # fmt: skip


@dataclass
class RecordList:
    """Record candidates that parsed, and files that did not (path, one-line reason)."""

    records: list[RecordCandidate] = field(default_factory=list)
    broken: list[tuple[Path, str]] = field(default_factory=list)


def list_records(machine: MachineLayout) -> RecordList:
    """Every record candidate, oldest first; unreadable files are reported, not raised."""
    found, broken = read_queued(
        records_dir(machine), RecordCandidate, max_bytes=MAX_RECORD_CANDIDATE_BYTES
    )
    found.sort(key=lambda c: (c.created, c.candidate_id))
    return RecordList(found, broken)
