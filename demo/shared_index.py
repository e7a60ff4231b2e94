"""The demo's shared index (issue 40): a real PostgreSQL with pgvector (the pgserver wheel, a
dev dependency) as the team's shared index. CI fills it; a teammate's fresh clone answers
without embedding anything; a memory merged afterwards reaches the teammate's running
`tb serve` by notification, before that clone fetches.

Run by demo/steps/97-shared-index.sh (only when pgserver is importable). Every `tb` here is the
installed one, run as a user or CI would; each machine has its own TEAMBRAIN_HOME.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

DIM, BOLD, RESET = ("\033[2m", "\033[1m", "\033[0m") if sys.stdout.isatty() else ("", "", "")
URL_ENV = "TEAMBRAIN_SHARED_INDEX_URL"
NEW_ID = "01KB9Z0A1S9Y4Q7V3C8D5E6F77"
NEW_MEMORY = f"""---
id: {NEW_ID}
class: convention
scope: team
status: active
priority: advisory
title: Feature flags are read through the flags client
created: 2026-12-01
---

Read feature flags through `shop.flags.client`, never from the environment directly: the
client caches them per request and logs which flag decided what.
"""


def step(text: str) -> None:
    print(f"\n{BOLD}== {text} =={RESET}", flush=True)


def run(
    args: list[str], cwd: Path, env: dict[str, str], *, show: bool = True, quiet: bool = False
) -> str:
    """Run a command as a user would type it (printed first); its stdout. Fails the demo on a
    non-zero exit."""
    if show:
        print(f"{DIM}$ {' '.join(args)}{RESET}  {DIM}# in {cwd.name}/ ({env['WHO']}){RESET}")
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    if show and not quiet and done.stdout.strip():
        print(done.stdout.rstrip())
    return done.stdout


def machine(work: Path, who: str, url: str) -> dict[str, str]:
    home = work / f"{who}-home"
    home.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "TEAMBRAIN_HOME": str(home), URL_ENV: url, "WHO": who}


async def follow(
    mate_clone: Path, mate: dict[str, str], ci_clone: Path, ci: dict[str, str]
) -> None:
    """The teammate's agent runs `tb serve`; CI merges and fills; the server serves it."""
    params = StdioServerParameters(command="tb", args=["serve"], cwd=mate_clone, env=mate)
    async with Client(params) as client:

        async def search(query: str) -> list[dict[str, Any]]:
            found = await client.call_tool("memory_search", {"query": query, "k": 3})
            assert found.structured_content is not None, found.content
            return list(found.structured_content["results"])

        query = "feature flags client"
        before = [r["id"] for r in await search(query)]
        print(
            f"  memory_search({query!r}) before the merge: {(NEW_ID in before and 'found') or 'not there'}"
        )

        step("Meanwhile a teammate's memory is merged; CI's step fills the shared index")
        path = ci_clone / ".teambrain" / "memories" / "conventions" / f"{NEW_ID}-feature-flags.md"
        path.write_text(NEW_MEMORY, "utf-8")
        run(["git", "add", "-A"], ci_clone, ci, show=False)
        run(["git", "commit", "-qm", "Merge: feature flags convention"], ci_clone, ci)
        run(["git", "push", "-q", "origin", "HEAD:main"], ci_clone, ci, show=False)
        merged = run(["git", "rev-parse", "HEAD"], ci_clone, ci, show=False).strip()
        run(["tb", "reindex", "--shared"], ci_clone, ci)
        finished = time.monotonic()

        step("The teammate's running server serves it — notified, no fetch")
        hit: dict[str, Any] | None = None
        while time.monotonic() - finished < 10.0 and hit is None:
            hit = next((r for r in await search(query) if r["id"] == NEW_ID), None)
            if hit is None:
                await anyio.sleep(0.2)
        if hit is None:
            sys.exit("the merged memory did not reach the running server within 10 s")
        served = time.monotonic() - finished
        commit = (hit["provenance"].get("commit") or "")[:7]
        print(f"  memory_search({query!r}) → {hit['title']}")
        print(
            f"    served from commit {commit} (CI's), {served:.1f} s after `tb reindex --shared` ended"
        )
        fetched = subprocess.run(
            ["git", "cat-file", "-e", f"{merged}^{{commit}}"], cwd=mate_clone, env=mate,
            capture_output=True, check=False,
        ).returncode == 0  # fmt: skip
        print(f"    the teammate's clone has fetched that commit: {'yes' if fetched else 'no'}")


def main() -> None:
    demo_repo = Path(os.environ["DEMO_REPO"])
    work = Path(tempfile.mkdtemp(prefix="shared-", dir=demo_repo.parent))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR unset in containers
        import pgserver

        server = pgserver.get_server(work / "pg", cleanup_mode="stop")
    try:
        url = server.get_uri()
        print(f"  a PostgreSQL {server.psql('SHOW server_version;').split()[2]} with pgvector, "
              "started by the pgserver wheel (a unix socket in a temp directory)")  # fmt: skip
        origin = work / "origin.git"
        run(["git", "clone", "-q", "--bare", str(demo_repo), str(origin)], work,
            {**os.environ, "WHO": "setup"}, show=False)  # fmt: skip

        step("The brain's CI: brain.yaml names the shared index (reviewed like any setting)")
        ci = machine(work, "ci", url)
        ci_clone = work / "ci" / "acme-shop"
        run(["git", "clone", "-q", str(origin), str(ci_clone)], work, ci, show=False)
        yaml = ci_clone / ".teambrain" / "brain.yaml"
        text = yaml.read_text("utf-8")
        text = re.sub(r"(?m)^  backend: sqlite$", "  backend: postgres", text, count=1)
        text = re.sub(r"(?m)^  url_env: null$", f"  url_env: {URL_ENV}", text, count=1)
        if "  backend: postgres" not in text:  # a brain.yaml from before these keys
            text = text.replace(
                "retrieval:\n", f"retrieval:\n  backend: postgres\n  url_env: {URL_ENV}\n", 1
            )
        yaml.write_text(text, "utf-8")
        run(["git", "commit", "-qam", "brain.yaml: the shared index"], ci_clone, ci)
        run(["git", "push", "-q", "origin", "HEAD:main"], ci_clone, ci, show=False)
        run(["tb", "trust", "--yes"], ci_clone, ci, quiet=True)
        filled = json.loads(run(["tb", "reindex", "--shared", "--json"], ci_clone, ci, quiet=True))
        report = filled["shared_index"]
        print(f"  filled {report['brain']} at {str(report['commit'])[:7]}: {report['documents']} "
              f"memories, {report['embedded']} embedded by CI ({report['embedder']}), "
              f"{report['seconds']:.1f} s")  # fmt: skip

        step("A teammate's fresh clone answers from the shared index without embedding")
        mate = machine(work, "teammate", url)
        mate_clone = work / "teammate" / "acme-shop"
        run(["git", "clone", "-q", str(origin), str(mate_clone)], work, mate)
        run(["tb", "trust", "--yes"], mate_clone, mate, quiet=True)
        built = json.loads(run(["tb", "reindex", "--json"], mate_clone, mate, quiet=True))
        index = built["search_index"]
        print(f"  indexed {index['memories']} memories, embedded on this machine: "
              f"{index['newly_embedded']}")  # fmt: skip
        run(["tb", "relevant", "--query", "retry payments"], mate_clone, mate)

        anyio.run(follow, mate_clone, mate, ci_clone, ci)
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()


if __name__ == "__main__":
    main()
