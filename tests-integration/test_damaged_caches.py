"""A damaged vectors cache under the installed ``tb``: each damage the hostile review found
(a key missing, more ids than rows, a 1-D matrix, a string expiry) is discarded and rebuilt,
said once on stderr; ``tb relevant`` answers as before and never reports an internal error."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

Run = Callable[..., Any]
DAMAGES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "a key missing": lambda a: {k: v for k, v in a.items() if k != "rowids"},
    "more ids than rows": lambda a: {**a, "ids": np.concatenate([a["ids"], a["ids"]])},
    "a 1-D matrix": lambda a: {**a, "matrix": a["matrix"].reshape(-1)},
    "a string expiry": lambda a: {**a, "expires": a["expires"].astype(str)},
}


def test_every_damaged_vectors_cache_is_discarded_and_rebuilt(
    repo: Path, tb: Run, git_run: Run, teambrain_home: Path, write_memory: Run
) -> None:
    assert tb("init", cwd=repo).returncode == 0
    for index, topic in enumerate(["deploy with the release script", "rotate signing keys"]):
        write_memory(repo, f"01J000000000000000000000{index}A", f"Note {index}",
                    f"Always {topic}.", folder="conventions", memory_class="convention")  # fmt: skip
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "brain", cwd=repo)
    first = tb("relevant", "--query", "how do we deploy", "--json", cwd=repo)
    assert first.returncode == 0, first.stderr
    [saved] = sorted((teambrain_home / "cache").glob("vectors-*.npz"))
    with np.load(saved, allow_pickle=False) as data:
        good = {name: data[name] for name in data.files}
    for name, damage in DAMAGES.items():
        buffer = io.BytesIO()
        np.savez(buffer, **damage(good))
        saved.write_bytes(buffer.getvalue())
        done = tb("relevant", "--query", "how do we deploy", "--json", cwd=repo)
        assert done.returncode == 0, (name, done.stderr)
        assert json.loads(done.stdout) == json.loads(first.stdout), name
        said = [line for line in done.stderr.splitlines() if "vectors cache" in line]
        assert len(said) == 1 and "discarded" in said[0], (name, done.stderr)
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr
        assert saved.exists() and os.stat(saved).st_mode & 0o777 == 0o600, name
    again = tb("relevant", "--query", "how do we deploy", cwd=repo)
    assert again.returncode == 0 and "vectors cache" not in again.stderr  # rebuilt: valid again
