import re
from pathlib import Path

import teambrain_distill

PINNED = {
    "complete", "LLM", "Request", "CostBudget", "register_driver", "driver_names", "Driver",
    "FixtureStore", "RECORD_ENV", "DriverNotInstalled", "ModelUnavailable", "ModelOutputInvalid",
    "FixtureMissing", "CostCapReached", "DEFAULT_PROMPTS", "distill", "DistillOptions",
    "DistillReport", "DistillAnswer", "parse_since",
}  # fmt: skip


def test_public_api_is_pinned_and_resolves() -> None:
    assert set(teambrain_distill.__all__) >= PINNED
    # Exactly these: a name added or dropped is an API change the pin must record.
    assert sorted(teambrain_distill.__all__) == PUBLIC_API
    for name in teambrain_distill.__all__:
        assert getattr(teambrain_distill, name) is not None


def test_type_checking_reexports_match_the_lazy_table() -> None:
    source = Path(teambrain_distill.__file__).read_text()
    assert set(
        re.findall(r"\b(\w+) as \1\b", source.split("if TYPE_CHECKING:")[1].split("\n", 1)[1])
    ) == set(teambrain_distill.__all__)


# The whole public API of teambrain_distill, sorted.
PUBLIC_API = [
    "AttemptGuard",
    "COSINE_THRESHOLD",
    "CostBudget",
    "CostCapReached",
    "DEFAULT_PROMPTS",
    "DistillAnswer",
    "DistillOptions",
    "DistillReport",
    "Driver",
    "DriverFactory",
    "DriverNotInstalled",
    "FixtureMissing",
    "FixtureStore",
    "LLM",
    "Match",
    "ModelOutputInvalid",
    "ModelRejectedRequest",
    "ModelTimedOut",
    "ModelUnavailable",
    "NO_MODEL",
    "ProbeResult",
    "ProposedEvidence",
    "ProposedMemory",
    "RECORD_ENV",
    "Request",
    "SESSION_TEMPLATE",
    "SYSTEM_TEMPLATE",
    "complete",
    "distill",
    "driver_egress",
    "driver_names",
    "make_driver",
    "parse_since",
    "probe",
    "register_driver",
]
