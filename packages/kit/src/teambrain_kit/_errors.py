"""Exit codes and the error types every teambrain front end maps onto them.

They are the contract's, public at ``teambrain_schema``'s top level (``from teambrain_schema
import ExitCode``); they are defined here because the machinery in this package raises them, and
only kit and schema import this module (an import-linter contract). Stdlib only: the capture
hook imports this on its hot path.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The contract's exit codes (``tb verify`` reuses 2 and 3 with its own meaning)."""

    OK = 0
    USER_ERROR = 1
    ENVIRONMENT_ERROR = 2
    VALIDATION_FAILURE = 3


class TeambrainError(Exception):
    """An expected failure with a one-line message and the exit code it maps to."""

    exit_code: ExitCode = ExitCode.USER_ERROR

    def __init__(self, message: str, *, exit_code: ExitCode | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message


class UserError(TeambrainError):
    """The user asked for something that cannot be done as asked (exit 1)."""

    exit_code = ExitCode.USER_ERROR


class EnvironmentProblem(TeambrainError):
    """The machine or repository is not in a state we can work in (exit 2)."""

    exit_code = ExitCode.ENVIRONMENT_ERROR


class ValidationFailure(TeambrainError):
    """Input failed schema or lint validation (exit 3)."""

    exit_code = ExitCode.VALIDATION_FAILURE
