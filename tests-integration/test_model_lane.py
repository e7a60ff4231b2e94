"""The model lane (`make test-models`, tests-integration/models/) is not run by `make test`, so
this checks in every run that it still imports and collects: a moved module or a renamed
fixture shows up here, not in the next person's slow lane run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

LANE = Path(__file__).resolve().parent / "models"


def test_the_model_lane_collects() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(LANE)],
        env={**os.environ, "TEAMBRAIN_MODEL_LANE": "1"}, cwd=LANE.parents[1],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "7 tests collected" in done.stdout, done.stdout
