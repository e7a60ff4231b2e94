"""Editing a candidate before it is proposed: its title, body, class, tags, priority, scope,
supersedes and TTL (``tb candidates edit``, and the edit form of ``tb ui``'s queue).

- :func:`candidate_form` → the candidate as text a person edits: a memory file's front matter
  and body (with a comment saying what to do).
- :func:`form_changes`: the fields of an edited form (what :func:`edit_candidate` takes).
- :func:`edit_candidate` → :class:`EditOutcome`: the changes checked as ``tb candidates show``
  checks a candidate (schema and lint, secrets, prompt injection — these refuse the edit, and
  nothing is written; identical content, near-duplicates and citations are reported), then
  saved atomically under the lock ``tb propose`` holds. A candidate already proposed, or one
  changed since the edit began, is not edited.

Its evidence, proposer, session and repository are the candidate's own and are never edited.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from teambrain_schema import Candidate, UserError, ValidationFailure

if TYPE_CHECKING:
    from teambrain_schema.paths import BrainLayout, MachineLayout
    from teambrain_sync import GitRepo

    from .queue import CandidateReview, Check

# What a person may change; the order the form shows them in.
EDITABLE = ("class", "title", "tags", "priority", "scope", "supersedes", "ttl_days", "body")
# The checks that refuse an edit (the others are reported: the reviewer may still want it).
REFUSING_CHECKS = ("schema", "secrets", "schema and secrets", "prompt injection")
FORM_NOTE = "# tb:"


def candidate_form(candidate: Candidate, problems: tuple[str, ...] = ()) -> str:
    """``candidate``'s draft as a memory file without id, status and created: YAML front matter
    (class, title, tags, priority, scope, supersedes, ttl_days) and the body after it. Lines
    starting ``# tb:`` say what to do, and ``problems`` (the last attempt's) — YAML comments,
    ignored when the form is read."""
    from teambrain_schema.yaml import dump_yaml

    draft = candidate.draft
    fields: dict[str, Any] = {
        "class": draft.class_, "title": draft.title, "tags": list(draft.tags),
        "priority": draft.priority, "scope": draft.scope,
        "supersedes": list(draft.supersedes), "ttl_days": draft.ttl_days,
    }  # fmt: skip
    notes = [
        f"{FORM_NOTE} editing candidate {candidate.candidate_id}; save and close to check it "
        "again (schema, secrets, prompt injection). Empty the file to cancel.",
        f"{FORM_NOTE} class: decision, convention, map or learning; priority: required or "
        "advisory; scope: team or org; ttl_days: days or null.",
    ]
    notes += [f"{FORM_NOTE} PROBLEM: {' '.join(problem.split())}" for problem in problems]
    front = dump_yaml(fields).rstrip("\n")
    return "---\n" + "\n".join(notes) + "\n" + front + "\n---\n\n" + draft.body.rstrip("\n") + "\n"


def form_changes(text: str, source: str) -> dict[str, Any] | None:
    """The fields of an edited form (``source`` names it in errors), or None when the form was
    emptied (cancel). A field the form may not change (id, status, created, evidence) is a
    validation failure naming it."""
    from .drafts import parse_draft_text

    if not "".join(line for line in text.splitlines() if not line.startswith(FORM_NOTE)).strip():
        return None
    data = parse_draft_text(text, source if source.endswith(".md") else f"{source}.md")
    unknown = [name for name in data if name not in EDITABLE]
    if unknown:
        raise ValidationFailure(
            f"{source}: {unknown[0]}: not a field an edit changes "
            f"(these are: {', '.join(EDITABLE)})"
        )
    return data


@dataclass(frozen=True)
class EditOutcome:
    """What an edit did: the candidate now (the new one when ``saved``, else as it was), whether
    anything changed, the checks it faces, and the problems that refused it (nothing written)."""

    candidate: Candidate
    saved: bool
    changed: bool
    review: CandidateReview | None = None
    problems: tuple[str, ...] = field(default=())

    @property
    def refused(self) -> bool:
        return bool(self.problems)

    def to_json(self) -> dict[str, object]:
        from .queue import candidate_json

        return {
            "candidate": candidate_json(self.candidate),
            "saved": self.saved,
            "changed": self.changed,
            "problems": list(self.problems),
            "checks": [c.to_json() for c in self.review.checks] if self.review else None,
            "would_propose": self.review.would_propose if self.review else None,
        }


def _edited_draft(candidate: Candidate, changes: Mapping[str, Any]) -> dict[str, Any]:
    """The draft's fields with ``changes`` applied (only the editable ones; evidence kept)."""
    data: dict[str, Any] = candidate.draft.model_dump(mode="json", by_alias=True)
    for name, value in changes.items():
        if name not in EDITABLE:
            raise ValidationFailure(f"draft.{name}: not a field an edit changes")
        data[name] = value
    if isinstance(data.get("body"), str):
        data["body"] = data["body"].strip("\n")
    return data


def _refusing(checks: tuple[Check, ...]) -> tuple[str, ...]:
    return tuple(
        f"{check.name}: {check.detail}"
        for check in checks
        if check.verdict == "blocks" and check.name in REFUSING_CHECKS
    )


def edit_candidate(
    machine: MachineLayout,
    candidate: Candidate,
    changes: Mapping[str, Any],
    *,
    layout: BrainLayout | None = None,
    repo: GitRepo | None = None,
    similar: bool = False,
    expected_hash: str | None = None,
) -> EditOutcome:
    """Apply ``changes`` (field → value, fields of :data:`EDITABLE`) to ``candidate`` and save it
    when the checks that refuse an edit pass: the schema (with the lint limits: title, body
    words, tags), secrets and prompt injection. Nothing is written otherwise (``problems`` say
    why, one line each), nor when nothing changed. With ``layout`` (and ``repo``) the candidate
    then faces every check of ``tb candidates show`` (``similar``: the near-duplicate search,
    which loads the embedding model). ``expected_hash``: the content the edit started from — a
    candidate changed since (edited elsewhere, proposed) is a user error, as is one already
    proposed (its pull request is where it is reviewed now). The candidate's status is kept (a
    dropped one stays dropped until ``tb propose ID`` takes it)."""
    from pydantic import ValidationError
    from teambrain_capture import SpoolLedger
    from teambrain_schema.drafts import validate_draft
    from teambrain_schema.frontmatter import describe_validation_error

    from .queue import review_candidate

    def checked(draft_candidate: Candidate) -> tuple[CandidateReview | None, tuple[str, ...]]:
        if layout is None:
            from teambrain_schema.injection import find_injections

            found = find_injections(draft_candidate.draft.title + "\n" + draft_candidate.draft.body)
            problems = (
                (f"prompt injection: {found[0].rule}: {found[0].excerpt!r}",) if found else ()
            )
            return None, problems
        review = review_candidate(draft_candidate, layout=layout, repo=repo, similar=similar)
        return review, _refusing(review.checks)

    ledger = SpoolLedger(machine)
    with ledger.hold():
        current = ledger.reload(candidate)
        if current.status == "proposed":
            raise UserError(
                f"candidate {current.candidate_id} was already proposed as {current.proposed_as}: "
                "edit it in its pull request instead"
            )
        if expected_hash is not None and current.content_hash != expected_hash:
            raise UserError(
                f"candidate {current.candidate_id} changed while it was being edited: "
                "edit it again (`tb candidates show` shows it now)"
            )
        try:
            edited_fields = _edited_draft(current, changes)
            if isinstance(edited_fields.get("body"), str) and not edited_fields["body"].strip():
                raise ValidationFailure("draft.body: is empty (a memory says something)")
            draft = validate_draft(edited_fields)
        except ValidationFailure as exc:
            name = "secrets" if "secret" in exc.message else "schema"
            return EditOutcome(current, False, True, None, (f"{name}: {exc.message}",))
        if draft == current.draft:
            review, _ = checked(current)
            return EditOutcome(current, False, False, review)
        try:
            edited = current.model_copy(
                update={"draft": draft, "content_hash": draft.content_hash()}
            )
            edited = Candidate.model_validate(edited.model_dump())
        except ValidationError as exc:
            message, _ = describe_validation_error(exc)
            return EditOutcome(current, False, True, None, (f"schema: {message}",))
        review, problems = checked(edited)
        if problems:
            return EditOutcome(current, False, True, review, problems)
        ledger.save(edited)  # atomic: temp file, fsync, rename
    return EditOutcome(edited, True, True, review)
