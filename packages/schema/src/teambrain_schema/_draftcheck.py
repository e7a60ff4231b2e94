"""The gate every draft passes before it is queued or proposed: the schema, then the secret scan
(one place, used by the capture spool, ``tb propose``, ``tb distill`` and ``memory_propose``)."""

from __future__ import annotations

from typing import Any

from ._errors import ValidationFailure
from ._memory import MemoryDraft
from ._secrets import find_secrets


def validate_draft(data: MemoryDraft | dict[str, Any]) -> MemoryDraft:
    """A valid, secret-free draft, or :class:`ValidationFailure` naming the field."""
    from pydantic import ValidationError

    from ._frontmatter import describe_validation_error

    if isinstance(data, MemoryDraft):
        draft = data
    else:
        try:
            draft = MemoryDraft.model_validate(data)
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
