"""``probe()``: does the configured model endpoint answer? One tiny request, for ``tb doctor
--online`` — the only time doctor leaves the machine, and only when asked."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel
from teambrain_kit.egress import require_approved
from teambrain_kit.paths import MachineLayout
from teambrain_schema import DistillConfig, EnvironmentProblem, TeambrainError

from ._budget import AttemptGuard, CostBudget
from ._drivers import driver_egress, make_driver
from ._remote import RemoteDriver
from ._request import Request

PROBE_OUTPUT_TOKENS = 16
MAX_PROBE_TIMEOUT_S = 120.0


class _Pong(BaseModel):
    ok: bool


@dataclass(frozen=True)
class ProbeResult:
    """What the endpoint did: ``ok`` when it answered (whatever it said), with a one-line
    ``detail`` naming the endpoint, or the error; how long it took."""

    ok: bool
    detail: str
    seconds: float = 0.0


def probe(
    config: DistillConfig,
    *,
    machine: MachineLayout,
    repo_root: Path,
    brain_dir: Path | None = None,
) -> ProbeResult:
    """Send the configured endpoint one request of a few tokens (at most
    :data:`PROBE_OUTPUT_TOKENS` back) and say whether it answered. Nothing of the brain or the
    sessions is sent, and nothing at all to a destination this machine has not approved for
    the repository at ``repo_root`` (``tb trust``). The fake driver and plugin drivers have no
    endpoint to ask."""
    if config.plugin is not None or config.driver == "fake":
        what = f"plugin {config.plugin}" if config.plugin else "the fake driver (recorded fixtures)"
        return ProbeResult(True, f"{what}: no endpoint to ask")
    small = config.model_copy(
        update={
            "max_output_tokens": PROBE_OUTPUT_TOKENS,
            "max_retries": 0,
            "structured_output": "prompt",
            "timeout_s": min(config.timeout(), MAX_PROBE_TIMEOUT_S),
        }
    )
    started = time.monotonic()
    try:
        require_approved(machine, repo_root, driver_egress(config))
        driver = make_driver(small, brain_dir)
        if not isinstance(driver, RemoteDriver):
            return ProbeResult(True, f"driver {config.driver}: no endpoint to ask")
        request = Request.build(
            system="You answer health checks.",
            prompt='Reply with {"ok": true}',
            schema=_Pong,
            model=config.model,
        )
        guard = AttemptGuard(
            budget=CostBudget(max_calls=1, max_input_tokens=10_000),
            max_retries=0,
            max_output_tokens=PROBE_OUTPUT_TOKENS,
        )
        reply = driver.probe_once(request, guard)
    except (EnvironmentProblem, TeambrainError) as exc:
        return ProbeResult(False, exc.message, time.monotonic() - started)
    seconds = time.monotonic() - started
    said = " ".join(reply.text.split())[:40] or "(empty)"
    return ProbeResult(
        True,
        f"{driver.where()} answered as {config.model} in {seconds:.1f}s "
        f"(finish: {reply.finish or '?'}; said {said!r})",
        seconds,
    )
