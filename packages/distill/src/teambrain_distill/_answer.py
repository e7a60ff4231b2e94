"""What the distiller asks the model for: memory candidates with evidence, as a pydantic schema.

Every rule of a memory draft applies here too (the validator builds the ``MemoryDraft``), so an
answer that breaks one is re-asked with the reason instead of being dropped silently. Evidence
cites the labels the prompt showed (``S1``, ``C1``); validation checks them against the labels
of the request (passed as validation context) and the distiller maps them back to session ids
and commit shas, so a model can never invent evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from teambrain_schema import MAX_BODY_WORDS, MAX_TITLE_CHARS, Evidence, MemoryDraft
from teambrain_schema.frontmatter import describe_validation_error

from ._extract import preview

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

    class_: Literal["decision", "convention", "map", "learning"] = Field(
        alias="class",
        description=(
            "decision: a choice the team made; convention: how things are done here; "
            "map: where something lives; learning: something discovered the hard way"
        ),
    )
    title: str = Field(
        max_length=MAX_TITLE_CHARS,
        description=f"One line of plain text, at most {MAX_TITLE_CHARS} characters, specific",
    )
    body: str = Field(
        description=f"Imperative prose, at most {MAX_BODY_WORDS} words: what to do, and why"
    )
    tags: list[str] = Field(
        default_factory=list, max_length=8, description="A few lower-case words"
    )
    priority: Literal["required", "advisory"] = Field(
        default="advisory",
        description="required only when breaking it would break the build or production",
    )
    scope: Literal["team", "org"] = Field(
        default="team", description="org only when it applies across the organisation"
    )
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


@dataclass(frozen=True)
class DroppedCandidate:
    """A proposal the answer held that could not be kept, and why."""

    index: int
    title: str
    reason: str


class DistillAnswer(BaseModel):
    """The model's answer for one session: the memory candidates it proposes, stated
    explicitly (``[]`` says nothing durable was learned; ``{}`` says nothing and is re-asked).

    Each candidate is validated on its own: an invalid one is dropped with its reason
    (:attr:`dropped`) and the valid ones are kept, so one bad title no longer costs the rest.
    """

    model_config = ConfigDict(extra="forbid")

    candidates: list[ProposedMemory] = Field(
        max_length=MAX_CANDIDATES_PER_SESSION,
        description=(
            "The memories worth keeping, at most "
            f"{MAX_CANDIDATES_PER_SESSION}; [] when the session taught nothing durable"
        ),
    )
    _dropped: list[DroppedCandidate] = PrivateAttr(default_factory=list)

    @property
    def dropped(self) -> list[DroppedCandidate]:
        """Candidates of the answer that were not kept, with the reason."""
        return self._dropped

    @model_validator(mode="wrap")
    @classmethod
    def _keep_the_valid_ones(
        cls, data: Any, handler: ModelWrapValidatorHandler[DistillAnswer], info: ValidationInfo
    ) -> DistillAnswer:
        if isinstance(data, list):  # a bare list states the candidates too
            data = {"candidates": data}
        raw = data.get("candidates") if isinstance(data, dict) else None
        if not isinstance(raw, list):
            return handler(data)
        kept: list[ProposedMemory] = []
        dropped: list[DroppedCandidate] = []
        for index, item in enumerate(raw):
            title = _title_of(item)
            if len(kept) >= MAX_CANDIDATES_PER_SESSION:
                reason = f"more than {MAX_CANDIDATES_PER_SESSION} candidates in one answer"
                dropped.append(DroppedCandidate(index, title, reason))
                continue
            try:
                kept.append(ProposedMemory.model_validate(item, context=info.context))
            except ValidationError as exc:
                dropped.append(DroppedCandidate(index, title, _reason(exc)))
        answer = handler({**data, "candidates": kept})
        answer._dropped = dropped
        return answer


def _title_of(item: Any) -> str:
    title = item.get("title") if isinstance(item, dict) else None
    return preview(title, 80) if isinstance(title, str) and title.strip() else "(no title)"


def _reason(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error.get("loc", ()))
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return preview(f"{where}: {message}" if where else message, 300) + more


def labels_context(sessions: dict[str, str], commits: dict[str, str]) -> dict[str, Any]:
    """Validation context: label → session id, label → commit sha."""
    return {"sessions": sessions, "commits": commits}
