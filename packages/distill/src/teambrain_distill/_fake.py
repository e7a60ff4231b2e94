"""The fake driver: replays recorded fixtures, attempt by attempt, with no network and no SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from teambrain_schema import DistillConfig
from teambrain_schema.tokens import estimate_tokens

from ._budget import AttemptGuard
from ._errors import CostCapReached, ModelOutputInvalid, first_error_line
from ._extract import NotJSON, read_answer
from ._fixtures import FixtureStore
from ._request import Request

ModelT = TypeVar("ModelT", bound=BaseModel)
DEFAULT_FIXTURE_DIR = "fixtures"


def fixture_dir(config: DistillConfig, brain_dir: Path | None) -> Path:
    """``distill.fixtures`` resolved against ``.teambrain/`` (default ``.teambrain/fixtures``)."""
    configured = Path(config.fixtures or DEFAULT_FIXTURE_DIR).expanduser()
    if configured.is_absolute():
        return configured
    return (brain_dir or Path.cwd()) / configured


class FakeDriver:
    """Answers from ``<fixtures>/<key>.json``; a fixture's n-th response answers attempt n
    (the last one repeats), so invalid output and re-asks can be replayed too."""

    name = "fake"

    def __init__(self, directory: Path) -> None:
        self.store = FixtureStore(directory)

    def generate(
        self,
        request: Request,
        schema: type[ModelT],
        *,
        guard: AttemptGuard,
        context: dict[str, Any] | None = None,
    ) -> ModelT:
        fixture = self.store.load(request)
        estimate = request.input_tokens()
        guard.first(estimate)
        last_error = ""
        while True:
            guard.sent(estimate)
            raw = fixture.responses[min(guard.attempts, len(fixture.responses)) - 1]
            try:
                if isinstance(raw, str):  # raw model text: read as the real drivers read it
                    return read_answer(raw, schema, context)
                return schema.model_validate(raw, context=context)
            except (ValidationError, NotJSON) as exc:
                last_error = first_error_line(exc)
            if not guard.may_retry():
                if guard.refused:
                    raise CostCapReached(f"{guard.refused} (while re-asking after: {last_error})")
                raise ModelOutputInvalid(
                    f"fake: invalid answer after {guard.attempts} attempt(s) "
                    f"({fixture.path.name}): {last_error}",
                    attempts=guard.attempts,
                )
            # What a re-ask would carry: the answer and the error, on top of the request.
            answer = raw if isinstance(raw, str) else json.dumps(raw)
            estimate += estimate_tokens(answer) + estimate_tokens(last_error)
