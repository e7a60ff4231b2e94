import teambrain_distill
from teambrain_schema.lazy import export_problems


def test_public_api_is_pinned_and_resolves() -> None:
    # Exactly these: a name added or dropped is an API change the pin must record.
    assert sorted(teambrain_distill.__all__) == PUBLIC_API
    for name in teambrain_distill.__all__:
        assert getattr(teambrain_distill, name) is not None


def test_the_public_names_are_written_once() -> None:
    """``_EXPORTS`` in ``__init__.py`` is the one list of public names: ``__all__``, the lazy
    loader and the type checkers' re-exports (``make exports``) come from it; the pin above
    records it deliberately."""
    assert export_problems(teambrain_distill) == []


# The whole public API of teambrain_distill, sorted.
PUBLIC_API = [
    "AttemptGuard",
    "BuiltinDriver",
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
    "builtin_driver",
    "complete",
    "distill",
    "driver_egress",
    "driver_names",
    "make_driver",
    "parse_since",
    "probe",
    "register_driver",
]
