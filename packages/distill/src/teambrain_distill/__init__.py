"""teambrain distill: the only LLM boundary; turns captured sessions into memory candidates.

``complete(system=…, prompt=…, schema=Model) -> Model`` asks the model brain.yaml pins, through
a registered driver (anthropic, openai, ollama, fake). ``distill()`` is ``tb distill``.

Names load lazily, and no SDK is imported until a real driver sends its first request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teambrain_schema.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    # the LLM boundary
    "complete": "_llm",
    "LLM": "_llm",
    "RECORD_ENV": "_fixtures",
    "Request": "_request",
    "CostBudget": "_budget",
    "AttemptGuard": "_budget",
    "Driver": "_drivers",
    "DriverFactory": "_drivers",
    "register_driver": "_drivers",
    "driver_names": "_drivers",
    "make_driver": "_drivers",
    "NO_MODEL": "_drivers",
    "driver_egress": "_drivers",
    "FixtureStore": "_fixtures",
    "DriverNotInstalled": "_errors",
    "ModelUnavailable": "_errors",
    "ModelOutputInvalid": "_errors",
    "ModelTimedOut": "_errors",
    "ModelRejectedRequest": "_errors",
    "FixtureMissing": "_errors",
    "CostCapReached": "_errors",
    # the distiller
    "DEFAULT_PROMPTS": "_prompts",
    "SYSTEM_TEMPLATE": "_prompts",
    "SESSION_TEMPLATE": "_prompts",
    "DistillAnswer": "_answer",
    "ProposedMemory": "_answer",
    "ProposedEvidence": "_answer",
    "distill": "_distiller",
    "DistillOptions": "_distiller",
    "DistillReport": "_distiller",
    "Match": "_dedup",
    "COSINE_THRESHOLD": "_dedup",
    "parse_since": "_since",
    "probe": "_probe",
    "ProbeResult": "_probe",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # explicit re-exports (``X as X``) for type checkers
    from ._answer import (
        DistillAnswer as DistillAnswer,
        ProposedEvidence as ProposedEvidence,
        ProposedMemory as ProposedMemory,
    )
    from ._budget import (
        AttemptGuard as AttemptGuard,
        CostBudget as CostBudget,
    )
    from ._dedup import (
        COSINE_THRESHOLD as COSINE_THRESHOLD,
        Match as Match,
    )
    from ._distiller import (
        DistillOptions as DistillOptions,
        DistillReport as DistillReport,
        distill as distill,
    )
    from ._drivers import (
        NO_MODEL as NO_MODEL,
        Driver as Driver,
        DriverFactory as DriverFactory,
        driver_egress as driver_egress,
        driver_names as driver_names,
        make_driver as make_driver,
        register_driver as register_driver,
    )
    from ._errors import (
        CostCapReached as CostCapReached,
        DriverNotInstalled as DriverNotInstalled,
        FixtureMissing as FixtureMissing,
        ModelOutputInvalid as ModelOutputInvalid,
        ModelRejectedRequest as ModelRejectedRequest,
        ModelTimedOut as ModelTimedOut,
        ModelUnavailable as ModelUnavailable,
    )
    from ._fixtures import (
        RECORD_ENV as RECORD_ENV,
        FixtureStore as FixtureStore,
    )
    from ._llm import (
        LLM as LLM,
        complete as complete,
    )
    from ._probe import (
        ProbeResult as ProbeResult,
        probe as probe,
    )
    from ._prompts import (
        DEFAULT_PROMPTS as DEFAULT_PROMPTS,
        SESSION_TEMPLATE as SESSION_TEMPLATE,
        SYSTEM_TEMPLATE as SYSTEM_TEMPLATE,
    )
    from ._request import Request as Request
    from ._since import parse_since as parse_since
