"""What can go wrong at the LLM boundary, each mapped onto the contract's exit codes."""

from __future__ import annotations

from pydantic import ValidationError
from teambrain_schema import EnvironmentProblem, UserError, ValidationFailure


def first_error_line(exc: BaseException, *, limit: int | None = None) -> str:
    """One line saying what went wrong: the first validation error (and how many more), else
    the first line of the message (at most ``limit`` characters), else the exception's type."""
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error.get("loc", ())) or "answer"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return f"{where}: {error.get('msg', 'invalid')}{more}"
    text = str(exc).strip()
    return text.splitlines()[0][:limit] if text else exc.__class__.__name__


class DriverNotInstalled(EnvironmentProblem, ImportError):
    """A driver's SDK is missing; the message names the extra that installs it (exit 2)."""


class ModelUnavailable(EnvironmentProblem):
    """The model could not be reached or refused us: network, timeout, credential (exit 2)."""


class ModelTimedOut(EnvironmentProblem):
    """No complete answer arrived within ``distill.timeout_s``; the request was closed, so a
    server that notices stops generating it, and it was not re-sent (exit 2). Fails the
    session, not the run."""


class ModelRejectedRequest(EnvironmentProblem):
    """The server refused this request as malformed or too large (HTTP 400, 413, 422), e.g. a
    prompt longer than its context window (exit 2). Fails the session, not the run."""


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
