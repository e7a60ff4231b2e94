"""The per-run cost cap: model calls and estimated input tokens, checked before each call."""

from __future__ import annotations

from dataclasses import dataclass

from teambrain_schema import DistillConfig

from ._errors import CostCapReached


@dataclass
class CostBudget:
    """What one run may spend, and what it has spent. Every attempt sent to a model (a first
    try or a re-ask) is one call; its input tokens are estimated locally before it is sent."""

    max_calls: int
    max_input_tokens: int
    calls: int = 0
    input_tokens: int = 0

    @classmethod
    def from_config(cls, config: DistillConfig) -> CostBudget:
        """The cap ``distill.max_calls`` / ``distill.max_input_tokens`` of brain.yaml."""
        return cls(max_calls=config.max_calls, max_input_tokens=config.max_input_tokens)

    def refusal(self, estimate: int) -> str | None:
        """Why a call of ``estimate`` input tokens may not be sent, or None when it fits."""
        if self.calls + 1 > self.max_calls:
            return f"cost cap reached: {self.calls} of {self.max_calls} model calls used (distill.max_calls)"
        if self.input_tokens + estimate > self.max_input_tokens:
            return (
                f"cost cap reached: the next call needs ~{estimate} input tokens but only "
                f"{self.max_input_tokens - self.input_tokens} of {self.max_input_tokens} remain "
                "(distill.max_input_tokens)"
            )
        return None

    def require(self, estimate: int) -> None:
        """Raise :class:`CostCapReached` unless a call of ``estimate`` tokens fits."""
        reason = self.refusal(estimate)
        if reason is not None:
            raise CostCapReached(reason)

    def charge(self, estimate: int) -> None:
        """Record one call of ``estimate`` input tokens (after the check, before sending)."""
        self.calls += 1
        self.input_tokens += estimate

    def as_dict(self) -> dict[str, int]:
        """Usage for reports: calls and input tokens, used and allowed."""
        return {
            "calls": self.calls,
            "max_calls": self.max_calls,
            "input_tokens": self.input_tokens,
            "max_input_tokens": self.max_input_tokens,
        }


@dataclass
class AttemptGuard:
    """One ``complete()`` call's attempts: at most ``max_retries`` re-asks (after an invalid or
    cut-off answer), each only when the budget can still pay for it. A re-ask carries the
    previous request plus the model's answer (at most ``max_output_tokens``) and the reason,
    so that is its estimate. Re-sends of the same attempt (after a server error or a lost
    connection) are counted apart, in ``resends``, and paid from the same budget."""

    budget: CostBudget
    max_retries: int
    max_output_tokens: int
    attempts: int = 0
    resends: int = 0
    last_estimate: int = 0
    refused: str | None = None
    # Set when a request was stopped at the transport: the cap, not the model, ended the call.
    blocked: str | None = None

    def first(self, estimate: int) -> None:
        """Check the first attempt fits (raises :class:`CostCapReached` when it does not)."""
        self.budget.require(estimate)

    def sent(self, estimate: int) -> None:
        """Record an attempt about to be sent."""
        self.attempts += 1
        self.last_estimate = estimate
        self.budget.charge(estimate)

    def resent(self, estimate: int) -> None:
        """Record a re-send of the current attempt about to be sent."""
        self.resends += 1
        self.budget.charge(estimate)

    def may_retry(self) -> bool:
        """True when another attempt is allowed by the retry bound and the budget."""
        if self.attempts >= self.max_retries + 1:
            return False
        self.refused = self.budget.refusal(self.next_estimate())
        return self.refused is None

    def next_estimate(self) -> int:
        """The estimated input tokens of a re-ask after the last attempt."""
        return self.last_estimate + self.max_output_tokens
