"""The gate every draft passes before it is queued or proposed: private spans out, the schema,
then the secret scan (one place, used by the capture spool, ``tb propose``, ``tb distill`` and
``memory_propose``)."""

from __future__ import annotations

from typing import Any

from teambrain_kit.scrub import strip_private
from teambrain_kit.secrets import find_secrets

from ._errors import ValidationFailure
from ._memory import MemoryDraft

__all__ = ["validate_draft"]


def _without_private(data: dict[str, Any]) -> dict[str, Any]:
    clean = dict(data)
    for name in ("title", "body"):
        if isinstance(clean.get(name), str):
            clean[name] = strip_private(clean[name])
    tags = clean.get("tags")
    if isinstance(tags, list):
        clean["tags"] = [strip_private(t) if isinstance(t, str) else t for t in tags]
    return clean


def validate_draft(data: MemoryDraft | dict[str, Any]) -> MemoryDraft:
    """A valid, secret-free draft with every ``<private>`` span removed, or
    :class:`ValidationFailure` naming the field."""
    from pydantic import ValidationError

    from .frontmatter import describe_validation_error

    if isinstance(data, MemoryDraft):
        dumped = data.model_dump(by_alias=True)
        clean = _without_private(dumped)
        draft = data if clean == dumped else MemoryDraft.model_validate(clean)
    else:
        try:
            draft = MemoryDraft.model_validate(_without_private(data))
        except ValidationError as exc:
            message, _ = describe_validation_error(exc)
            raise ValidationFailure(f"draft.{message}") from None
    for name, text in (
        ("title", draft.title),
        ("body", draft.body),
        ("tags", " ".join(draft.tags)),
    ):
        findings = find_secrets(text)
        if findings:
            raise ValidationFailure(
                f"draft.{name}: contains a secret ({findings[0].rule}); remove it before proposing"
            )
    return draft
