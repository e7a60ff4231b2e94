"""The one check of paths that come out of git (issue 37 point 1): what it costs where it runs
most — the live view of ``tb serve`` building itself from a default branch of N memory files —
against the same build with the check switched off (the baseline), in the same run; and the
check alone per path, with and without a root to stay inside.

Target: the check adds under 10% to the view's first build at 5,000 files.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import teambrain_retrieval._index._live as live_module
from teambrain_kit.git import unsafe_git_path
from teambrain_kit.paths import MachineLayout
from teambrain_retrieval._index._live import LiveView

FILES = 5_000
ROUNDS = 5


def git(root: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@example.com", *args],
        cwd=root, check=True, capture_output=True, input=data,
    )  # fmt: skip
    return done.stdout.decode().strip()


def build(where: Path) -> Path:
    """A clone whose origin/main holds FILES memory files (written with fast-import)."""
    upstream = where / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    stream = ["commit refs/heads/main\ncommitter b <b@b> 1760000000 +0000\ndata 5\nbrain\n"]
    for i in range(FILES):
        folder = ("decisions", "conventions", "map", "learnings")[i % 4]
        memory_id = f"01KG{i:022d}"
        text = (f"---\nid: {memory_id}\nclass: learning\nscope: team\nstatus: active\n"
                f"priority: advisory\ntitle: Rule {i}\ncreated: 2026-11-01\n---\n\nRule {i}.\n")  # fmt: skip
        stream.append(f"M 644 inline .teambrain/memories/{folder}/{memory_id}-rule-{i}.md\n"
                      f"data {len(text)}\n{text}\n")  # fmt: skip
    git(upstream, "fast-import", "--quiet", data="".join(stream).encode())
    clone = where / "clone"
    git(where, "clone", "-q", str(upstream), str(clone))
    return clone


def first_build(clone: Path, home: Path) -> float:
    view = LiveView(clone, MachineLayout(home))
    started = time.perf_counter()
    view.refresh()
    seconds = time.perf_counter() - started
    assert len(view.files) == FILES, len(view.files)
    return seconds


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        clone = build(root)
        checked, unchecked = [], []
        real = live_module.unsafe_git_path
        for n in range(ROUNDS):  # alternating, fresh homes: each is a first build
            checked.append(first_build(clone, root / f"home-c{n}"))
            live_module.unsafe_git_path = lambda path, root=None: None  # type: ignore[assignment]
            try:
                unchecked.append(first_build(clone, root / f"home-u{n}"))
            finally:
                live_module.unsafe_git_path = real
        with_s, without_s = statistics.median(checked), statistics.median(unchecked)
        print(f"live view, first build of {FILES:,} files: {with_s * 1000:.0f} ms with the check, "
              f"{without_s * 1000:.0f} ms without (baseline): "
              f"{(with_s / without_s - 1) * 100:+.1f}% (target < +10%)")  # fmt: skip
        paths = [f".teambrain/memories/learnings/01KG{i:022d}-rule-{i}.md" for i in range(FILES)]
        view_root = root / "home-c0" / "live"
        for label, where in (("without a root", None), ("with a root", view_root)):
            started = time.perf_counter()
            for path in paths:
                unsafe_git_path(path, where)
            per = (time.perf_counter() - started) / FILES * 1e6
            print(f"unsafe_git_path {label}: {per:.2f} µs per path")


if __name__ == "__main__":
    sys.exit(main())
