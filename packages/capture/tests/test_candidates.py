import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_capture import list_candidates, load_candidate, queue_candidate
from teambrain_schema import ValidationFailure
from teambrain_schema.paths import MachineLayout, machine_layout

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


# Issue 37 point 9: what is queued can always be read back — the same limits at the door
# (queue_candidate: memory_propose, tb propose --draft, the distiller, tb import) as at the
# reader (list_candidates: tb candidates, tb propose).
_SESSION = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=128).filter(
    lambda s: s[0] != "-"
)
_BODY_CHAR = st.sampled_from(["a", " ", "\x01", '"', "\\", "é", "\u2028", "\n", "\x7f"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sessions=st.lists(_SESSION, max_size=80),
    commits=st.integers(0, 80),
    supersedes=st.integers(0, 40),
    body=st.tuples(_BODY_CHAR, st.integers(1, 270_000)).map(lambda t: "w" + t[0] * t[1]),
)
def test_whatever_is_queued_is_read_back(
    sessions: list[str], commits: int, supersedes: int, body: str
) -> None:
    from teambrain_schema import MAX_EVIDENCE_ITEMS, MAX_SUPERSEDES

    with tempfile.TemporaryDirectory() as home:
        machine = MachineLayout(Path(home))
        draft = {**DRAFT, "body": body,
                 "evidence": {"sessions": sessions, "commits": [f"{i:07x}" for i in range(commits)]},
                 "supersedes": [f"01KB2F0A1S9Y4Q7V3C8D{i:06d}" for i in range(supersedes)]}  # fmt: skip
        try:
            candidate, _ = queue_candidate(draft, "agent", machine=machine)
        except ValidationFailure as exc:
            assert "\n" not in exc.message
            listing = list_candidates(machine)
            assert listing.candidates == [] and listing.broken == []  # nothing half-written
            return
        assert len(sessions) <= MAX_EVIDENCE_ITEMS and commits <= MAX_EVIDENCE_ITEMS
        assert supersedes <= MAX_SUPERSEDES
        listing = list_candidates(machine)
        assert listing.broken == [] and listing.candidates == [candidate]


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"supersedes": [f"01KB2F0A1S9Y4Q7V3C8D{i:06d}" for i in range(33)]},
         "draft.supersedes: lists 33 memory ids; at most 32"),
        ({"evidence": {"sessions": [f"s-{i}" for i in range(5000)], "commits": []}},
         "draft.evidence.sessions: lists 5000 sessions; at most 64"),
        ({"evidence": {"sessions": [], "commits": [f"{i:07x}" for i in range(65)]}},
         "draft.evidence.commits: lists 65 commits; at most 64"),
        ({"body": "w" + "\x01" * 200_000}, "draft: too large to queue: its candidate file would be"),
    ],
)  # fmt: skip
def test_a_draft_no_reader_would_open_is_refused_at_the_door(
    teambrain_home: Path, change: dict[str, object], needle: str
) -> None:
    with pytest.raises(ValidationFailure) as info:
        queue_candidate({**DRAFT, **change}, "agent", machine=machine_layout())
    assert needle in info.value.message
    assert list_candidates(machine_layout()).candidates == []
