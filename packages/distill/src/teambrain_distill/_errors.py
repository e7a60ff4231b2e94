"""What can go wrong at the LLM boundary, each mapped onto the contract's exit codes."""

from __future__ import annotations

from teambrain_schema import EnvironmentProblem, UserError, ValidationFailure


class DriverNotInstalled(EnvironmentProblem, ImportError):
    """A driver's SDK is missing; the message names the extra that installs it (exit 2)."""


class ModelUnavailable(EnvironmentProblem):
    """The model could not be reached or refused us: network, timeout, credential (exit 2)."""


class FixtureMissing(EnvironmentProblem):
    """The fake driver has no recorded answer for this request (exit 2)."""


class ModelOutputInvalid(ValidationFailure):
    """The model's answers failed validation on every attempt the retry bound allows (exit 3)."""

    def __init__(self, message: str, *, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


class CostCapReached(UserError):
    """The run's cost cap (calls or input tokens) does not allow another call. Not a failure
    of the run: it stops cleanly and says so."""
