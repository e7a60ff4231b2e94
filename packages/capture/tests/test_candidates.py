import json
from pathlib import Path

import pytest
from teambrain_capture import list_candidates, load_candidate, queue_candidate
from teambrain_schema import ValidationFailure
from teambrain_schema.paths import machine_layout

DRAFT = {
    "class": "learning",
    "title": "Use the fake clock in checkout tests",
    "body": "Use `fake_clock`; never sleep.",
    "tags": ["testing"],
}


def test_queue_writes_one_private_file_and_is_idempotent(teambrain_home: Path) -> None:
    machine = machine_layout()
    candidate, created = queue_candidate(DRAFT, "agent", sid="s-1", machine=machine)
    assert created
    path = machine.candidate_file(candidate.candidate_id)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert json.loads(path.read_text())["draft"]["class"] == "learning"
    again, created_again = queue_candidate(
        {**DRAFT, "body": "Use  `fake_clock`;\nnever sleep."}, "human", machine=machine
    )
    assert not created_again and again.candidate_id == candidate.candidate_id
    assert load_candidate(candidate.candidate_id, machine=machine) == candidate


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"class": "rumour"}, "draft.class"),
        ({"title": "x" * 81}, "draft.title"),
        ({"body": "word " * 401}, "draft.body"),
        ({"colour": "blue"}, "draft.colour: unknown field"),
        (
            {"body": "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"},
            "draft.body: contains a secret (github-token)",
        ),
    ],
)
def test_invalid_drafts_name_the_field_and_write_nothing(
    teambrain_home: Path, change: dict[str, object], needle: str
) -> None:
    with pytest.raises(ValidationFailure) as info:
        queue_candidate({**DRAFT, **change}, "agent", machine=machine_layout())
    assert needle in info.value.message
    assert not machine_layout().candidates.exists() or not any(
        machine_layout().candidates.iterdir()
    )


def test_distiller_candidates_need_evidence(teambrain_home: Path) -> None:
    with pytest.raises(ValidationFailure, match="evidence"):
        queue_candidate(DRAFT, "distiller", machine=machine_layout())
    candidate, _ = queue_candidate(
        {**DRAFT, "evidence": {"sessions": ["s-1"], "commits": ["abcdef1"]}},
        "distiller",
        machine=machine_layout(),
    )
    assert candidate.draft.evidence is not None


def test_broken_candidate_files_are_reported_not_raised(teambrain_home: Path) -> None:
    machine = machine_layout()
    queue_candidate(DRAFT, "agent", machine=machine)
    (machine.candidates / "01JDQ8M6Z1V5K7G3X9T2B4N8RA.json").write_text("{not json")
    listing = list_candidates(machine)
    assert len(listing.candidates) == 1
    assert [p.name for p, _ in listing.broken] == ["01JDQ8M6Z1V5K7G3X9T2B4N8RA.json"]
