"""What the distiller asks the model for: memory candidates with evidence, as a pydantic schema.

Every rule of a memory draft applies here too (the validator builds the ``MemoryDraft``), so an
answer that breaks one is re-asked with the reason instead of being dropped silently. Evidence
cites the labels the prompt showed (``S1``, ``C1``); validation checks them against the labels
of the request (passed as validation context) and the distiller maps them back to session ids
and commit shas, so a model can never invent evidence.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from teambrain_schema import (
    MAX_BODY_WORDS,
    MAX_TITLE_CHARS,
    Evidence,
    MemoryDraft,
    describe_validation_error,
)

MAX_CANDIDATES_PER_SESSION = 5
SessionLabel = Annotated[str, StringConstraints(pattern=r"^S[0-9]{1,3}$")]
CommitLabel = Annotated[str, StringConstraints(pattern=r"^C[0-9]{1,3}$")]


class ProposedEvidence(BaseModel):
    """Labels of the session and commits that support a memory."""

    model_config = ConfigDict(extra="forbid")

    sessions: list[SessionLabel] = Field(min_length=1, description="Session labels, e.g. ['S1']")
    commits: list[CommitLabel] = Field(
        default_factory=list, description="Commit labels shown in the session, e.g. ['C1']"
    )

    @model_validator(mode="after")
    def _labels_were_shown(self, info: ValidationInfo) -> ProposedEvidence:
        labels = info.context if isinstance(info.context, dict) else None
        if labels is None:
            return self
        for kind, cited in (("sessions", self.sessions), ("commits", self.commits)):
            known = labels.get(kind, {})
            unknown = [label for label in cited if label not in known]
            if unknown:
                shown = ", ".join(sorted(known)) or "none"
                raise ValueError(
                    f"cites {', '.join(unknown)}, which the session does not show (shown: {shown})"
                )
        return self


class ProposedMemory(BaseModel):
    """One memory the model proposes."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    class_: Literal["decision", "convention", "map", "learning"] = Field(alias="class")
    title: str = Field(max_length=MAX_TITLE_CHARS, description="One line, specific")
    body: str = Field(description=f"Imperative prose, at most {MAX_BODY_WORDS} words")
    tags: list[str] = Field(default_factory=list, max_length=8)
    priority: Literal["required", "advisory"] = "advisory"
    scope: Literal["team", "org"] = "team"
    evidence: ProposedEvidence

    @field_validator("title", "body")
    @classmethod
    def _trimmed(cls, value: str) -> str:
        return value.strip()

    @model_validator(mode="after")
    def _is_a_valid_draft(self) -> ProposedMemory:
        try:
            self.as_draft(Evidence(sessions=["s"]))
        except ValidationError as exc:
            message, _ = describe_validation_error(exc)
            raise ValueError(message) from None
        return self

    def as_draft(self, evidence: Evidence) -> MemoryDraft:
        """The memory draft, with ``evidence`` resolved from the labels."""
        return MemoryDraft.model_validate(
            {
                "class": self.class_,
                "title": self.title,
                "body": self.body,
                "tags": self.tags,
                "priority": self.priority,
                "scope": self.scope,
                "evidence": evidence.model_dump(),
            }
        )


class DistillAnswer(BaseModel):
    """The model's answer for one session: zero or more memory candidates."""

    model_config = ConfigDict(extra="forbid")

    candidates: list[ProposedMemory] = Field(
        default_factory=list, max_length=MAX_CANDIDATES_PER_SESSION
    )


def labels_context(sessions: dict[str, str], commits: dict[str, str]) -> dict[str, Any]:
    """Validation context: label → session id, label → commit sha."""
    return {"sessions": sessions, "commits": commits}
