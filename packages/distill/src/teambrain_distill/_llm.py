"""``complete()``: the one function through which teambrain talks to a model."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel
from teambrain_kit.paths import BrainLayout, find_brain
from teambrain_schema import DistillConfig, EnvironmentProblem, UserError
from teambrain_schema.brain import load_brain_config

from ._budget import AttemptGuard, CostBudget
from ._drivers import Driver, make_driver
from ._fake import fixture_dir
from ._fixtures import RECORD_ENV, FixtureStore
from ._request import Request

ModelT = TypeVar("ModelT", bound=BaseModel)


def recording_requested() -> bool:
    """True when ``TEAMBRAIN_DISTILL_RECORD`` asks to record fixtures."""
    return os.environ.get(RECORD_ENV, "").strip().lower() in ("1", "true", "yes", "on")


class LLM:
    """A model as brain.yaml pins it, with one run's cost budget.

    ``record=True`` (or ``TEAMBRAIN_DISTILL_RECORD=1``) also writes every validated answer of a
    real driver as a fixture the fake driver replays.
    """

    def __init__(
        self,
        config: DistillConfig,
        *,
        brain_dir: Path | None = None,
        record: bool | None = None,
        budget: CostBudget | None = None,
        driver: Driver | None = None,
    ) -> None:
        self.config = config
        self.brain_dir = brain_dir
        self.budget = budget or CostBudget.from_config(config)
        self.record = recording_requested() if record is None else record
        replaying = (driver.name if driver is not None else config.driver) == "fake"
        if self.record and replaying:
            raise UserError(
                "recording needs a real driver: set distill.driver to anthropic, openai or "
                "ollama (the fake driver only replays)"
            )
        self._driver = driver
        self.recorded: list[Path] = []
        # The attempts of the latest complete() call, for reports.
        self.last_guard: AttemptGuard | None = None

    @classmethod
    def for_brain(cls, layout: BrainLayout, **options: Any) -> LLM:
        """The model pinned in ``layout``'s brain.yaml, if this machine approved where it sends
        (:class:`EgressNotApproved` otherwise: brain.yaml arrives by ``git pull``)."""
        from teambrain_kit.egress import require_approved
        from teambrain_kit.paths import machine_layout

        from ._drivers import driver_egress

        config = load_brain_config(layout).distill
        if options.get("driver") is None:
            require_approved(machine_layout(), layout.repo_root, driver_egress(config))
        return cls(config, brain_dir=layout.root, **options)

    @property
    def driver(self) -> Driver:
        if self._driver is None:
            self._driver = make_driver(self.config, self.brain_dir)
        return self._driver

    @property
    def notes(self) -> list[str]:
        """What the driver found the run should say (a structured-output mode the server
        refused, and the one used instead)."""
        found = getattr(self._driver, "notes", None)
        return [str(note) for note in found] if isinstance(found, list) else []

    def request(self, *, system: str, prompt: str, schema: type[BaseModel]) -> Request:
        """The request ``complete()`` would send (its key names the fake driver's fixture)."""
        return Request.build(system=system, prompt=prompt, schema=schema, model=self.config.model)

    def complete(
        self,
        *,
        system: str,
        prompt: str,
        schema: type[ModelT],
        context: dict[str, Any] | None = None,
    ) -> ModelT:
        """The model's answer as a validated ``schema`` instance (see :func:`complete`)."""
        request = self.request(system=system, prompt=prompt, schema=schema)
        guard = AttemptGuard(
            budget=self.budget,
            max_retries=self.config.max_retries,
            max_output_tokens=self.config.max_output_tokens,
        )
        self.last_guard = guard
        answer = self.driver.generate(request, schema, guard=guard, context=context)
        if self.record:
            store = FixtureStore(fixture_dir(self.config, self.brain_dir))
            self.recorded.append(
                store.save(
                    request,
                    answer.model_dump(mode="json", by_alias=True),
                    recorded_with=f"{self.driver.name}:{self.config.model}",
                )
            )
        return answer


def complete(
    *,
    system: str,
    prompt: str,
    schema: type[ModelT],
    llm: LLM | None = None,
    context: dict[str, Any] | None = None,
) -> ModelT:
    """Ask the pinned model and return its answer validated against ``schema``.

    Uses ``llm`` (or the model pinned in the enclosing repository's brain.yaml). Every call has
    a timeout and at most ``distill.max_retries`` re-asks after invalid output; it is refused
    with :class:`CostCapReached` when the run's cost cap cannot pay for it. Raises
    :class:`ModelOutputInvalid` (exit 3) when every allowed attempt was invalid,
    :class:`ModelUnavailable` (exit 2) when the model cannot be reached, and
    :class:`DriverNotInstalled` (an ImportError naming the extra) when its SDK is missing.
    """
    if llm is None:
        layout = find_brain()
        if layout is None:
            raise EnvironmentProblem("no brain here: run `tb init` in a git repository first")
        llm = LLM.for_brain(layout)
    return llm.complete(system=system, prompt=prompt, schema=schema, context=context)
