"""The candidate spool: drafts waiting for ``tb propose``, one JSON file each.

Writing a candidate changes nothing in any repository. A draft is validated (schema, secrets)
before anything is written; the same content queued twice is one candidate.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from teambrain_kit.local_files import read_json_file
from teambrain_kit.paths import MachineLayout
from teambrain_schema import (
    MAX_CANDIDATE_BYTES,
    Candidate,
    MemoryDraft,
    Proposer,
    ValidationFailure,
)
from teambrain_schema.drafts import validate_draft
from teambrain_schema.frontmatter import describe_validation_error
from teambrain_schema.ids import new_ulid

from ._spool_json import read_queued, write_queued


def queue_candidate(
    draft: MemoryDraft | dict[str, Any],
    proposer: Proposer,
    *,
    sid: str | None = None,
    repo: str | None = None,
    machine: MachineLayout,
    now: dt.datetime | None = None,
) -> tuple[Candidate, bool]:
    """Validate ``draft`` and queue it for repository ``repo`` (its join key); returns
    (candidate, created). Queuing content already pending for the same repository returns the
    existing candidate with ``created=False``."""
    valid = validate_draft(draft)
    digest = valid.content_hash()
    for existing in list_candidates(machine).candidates:
        if (
            existing.content_hash == digest
            and existing.status == "pending"
            and existing.repo == repo
        ):
            return existing, False
    try:
        candidate = Candidate(
            candidate_id=new_ulid(),
            created=now or dt.datetime.now(dt.UTC),
            proposer=proposer,
            draft=valid,
            content_hash=digest,
            sid=sid,
            repo=repo,
        )
    except ValidationError as exc:
        message, _ = describe_validation_error(exc)
        raise ValidationFailure(message) from None
    save_candidate(candidate, machine=machine)
    return candidate, True


def save_candidate(candidate: Candidate, *, machine: MachineLayout) -> Path:
    """Write (or rewrite) a candidate file atomically, private to this user. A candidate
    whose file would be larger than the spool's readers read (``MAX_CANDIDATE_BYTES``) is a
    :class:`ValidationFailure`, and nothing is written: what is queued can be read back."""
    return write_queued(
        candidate, machine.candidate_file(candidate.candidate_id), max_bytes=MAX_CANDIDATE_BYTES,
        fix="(control characters in the body take six bytes each); shorten the body",
    )  # fmt: skip


@dataclass
class CandidateList:
    """Candidates that parsed, and files that did not (path, one-line reason)."""

    candidates: list[Candidate] = field(default_factory=list)
    broken: list[tuple[Path, str]] = field(default_factory=list)


def list_candidates(machine: MachineLayout) -> CandidateList:
    """Every candidate in the spool, oldest first; unreadable files are reported, not raised."""
    found, broken = read_queued(machine.candidates, Candidate, max_bytes=MAX_CANDIDATE_BYTES)
    found.sort(key=lambda c: (c.created, c.candidate_id))
    return CandidateList(found, broken)


def load_candidate(candidate_id: str, *, machine: MachineLayout) -> Candidate | None:
    """The candidate ``candidate_id``, or None when there is no such (readable) file."""
    path = machine.candidate_file(candidate_id)
    try:
        return Candidate.model_validate(read_json_file(path, max_bytes=MAX_CANDIDATE_BYTES))
    except (OSError, ValueError):
        return None
