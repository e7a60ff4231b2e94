"""Check results shared by ``tb verify`` and ``tb doctor``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

Status = Literal["PASS", "FAIL", "UNVERIFIED"]


@dataclass
class CheckResult:
    """One check: its id, a title, the verdict, a one-line summary and the evidence."""

    id: str
    title: str
    status: Status
    summary: str
    evidence: list[str] = field(default_factory=list)
    fix: str | None = None

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def verdict_exit_code(results: list[CheckResult]) -> int:
    """verify's table: 3 when an invariant is violated, 2 when a check could not run, else 0."""
    if any(r.status == "FAIL" for r in results):
        return 3
    if any(r.status == "UNVERIFIED" for r in results):
        return 2
    return 0
