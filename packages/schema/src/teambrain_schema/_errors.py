"""The contract's exit codes and the errors every front end maps onto them.

Their public home is ``teambrain_schema``'s top level (``from teambrain_schema import ExitCode``);
they are defined in ``teambrain_kit._errors`` because the shared machinery below the contract
raises them. Stdlib only: the capture hook imports this on its hot path.
"""

from __future__ import annotations

from teambrain_kit._errors import (
    EnvironmentProblem,
    ExitCode,
    TeambrainError,
    UserError,
    ValidationFailure,
)

__all__ = ["EnvironmentProblem", "ExitCode", "TeambrainError", "UserError", "ValidationFailure"]
