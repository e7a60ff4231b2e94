"""Running a command on a terminal (a pseudo-terminal for stdin, stdout and stderr), answering
its prompts: what the person at it would see."""

from __future__ import annotations

import os
import pty
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


def on_terminal(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], answers: Mapping[bytes, bytes] = {}
) -> tuple[int, str]:
    """(exit code, everything shown) of ``argv`` run on a terminal; each prompt in ``answers``
    (a piece of its text) is answered once, when it shows."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdin=follower, stdout=follower,
                            stderr=follower)  # fmt: skip
    os.close(follower)
    shown = b""
    pending = dict(answers)
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        shown += chunk
        for prompt in [p for p in pending if p in shown]:
            os.write(leader, pending.pop(prompt))
    code = proc.wait(timeout=120)
    os.close(leader)
    return code, shown.decode("utf-8", "replace").replace("\r\n", "\n")
