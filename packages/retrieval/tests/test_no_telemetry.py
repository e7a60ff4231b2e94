"""The local model leaves nothing behind: onnxruntime's telemetry is off (no device id under
~/.cache/Microsoft, no collector lookups)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
from teambrain_retrieval import make_embedder
from teambrain_schema import EmbedderConfig
from pathlib import Path
embedder = make_embedder(EmbedderConfig(), Path.cwd())
assert embedder is not None
vectors = embedder.embed_documents(["the checkout test is flaky"])
print(vectors.shape)
"""


def test_embedding_with_the_real_model_writes_nothing_under_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    env.pop("ORT_DISABLE_TELEMETRY", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "384" in done.stdout
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []
