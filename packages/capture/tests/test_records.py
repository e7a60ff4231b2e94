"""The record spool: record drafts and notes queued apart from memory candidates."""

from __future__ import annotations

from pathlib import Path

import pytest
from teambrain_capture import list_candidates, list_records, queue_note, queue_record, records_dir
from teambrain_kit.paths import MachineLayout
from teambrain_schema import NoteDraft, ValidationFailure

RECORD = {"nodeKind": "service", "id": "service:payments", "attributes": {"title": "Payments"},
          "edges": {"depends_on": ["service:ledger"]}}  # fmt: skip


def test_the_same_record_or_note_is_one_candidate_per_repository(tmp_path: Path) -> None:
    machine = MachineLayout(tmp_path / "home")
    first, created = queue_record(RECORD, "agent", repo="shop", machine=machine)
    again, created_again = queue_record(dict(RECORD), "agent", repo="shop", machine=machine)
    other, created_other = queue_record(RECORD, "agent", repo="mobile", machine=machine)
    assert created and not created_again and created_other
    assert again.candidate_id == first.candidate_id != other.candidate_id
    note = NoteDraft(path="meetings/sync.md", text="# Sync\nStandup at ten.\n")
    queued, _ = queue_note(note, "human", repo="shop", machine=machine, reason="imported")
    assert queued.note == note and queued.record is None and queued.reason == "imported"
    listing = list_records(machine)
    assert len(listing.records) == 3 and listing.broken == []
    assert list_candidates(machine).candidates == []  # never among the memory candidates
    mode = (records_dir(machine) / f"{first.candidate_id}.json").stat().st_mode & 0o777
    assert mode == 0o600


def test_a_bad_record_is_refused_and_a_broken_file_reported(tmp_path: Path) -> None:
    machine = MachineLayout(tmp_path / "home")
    with pytest.raises(ValidationFailure, match="id"):
        queue_record({**RECORD, "id": "has space"}, "agent", machine=machine)
    assert list_records(machine).records == []
    queue_record(RECORD, "agent", machine=machine)
    (records_dir(machine) / "broken.json").write_text("{not json")
    listing = list_records(machine)
    assert len(listing.records) == 1 and [p.name for p, _ in listing.broken] == ["broken.json"]


def test_a_record_too_large_to_read_back_is_refused_at_the_door(tmp_path: Path) -> None:
    """A draft whose file the reader would skip (over 256 KB: 20,000 edges) is refused with
    one line, and nothing is written, instead of queued and then listed as unreadable."""
    machine = MachineLayout(tmp_path / "home")
    edges = [f"service:s{i:06d}" for i in range(20_000)]
    with pytest.raises(ValidationFailure, match=r"too large to queue.*fewer edges"):
        queue_record({**RECORD, "edges": {"depends_on": edges}}, "agent", machine=machine)
    listing = list_records(machine)
    assert listing.records == [] and listing.broken == []
    queue_record({**RECORD, "edges": {"depends_on": edges[:2000]}}, "agent", machine=machine)
    assert len(list_records(machine).records) == 1
