"""Issue 38: what an agent is told first. The real ``tb serve`` over stdio in a clone of a real
repository: ``memory_context()`` ranks by this session's own work (changed, staged, untracked,
renamed and deleted files, the branch's commits since it left the default branch, the branch
name), cites why, answers before the embedding model has loaded (marked partial), and
``tb relevant`` shows the same with no arguments. One repository and one server for the
module (a labelled set of situations applied in turn); the big benchmark is
``benchmarks/bench_context.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import forkserver
import pytest
from mcp import Client, StdioServerParameters

BIN = Path(sys.executable).parent

pytestmark = pytest.mark.anyio

FILES = {
    "src/shop/payments/refunds.py": "class RefundPolicy:\n    def max_days(self):\n        return 30\n\n\ndef issue_refund():\n    pass\n",
    "src/shop/payments/gateway.py": "class PaymentGateway:\n    pass\n",
    "src/shop/catalog/variants.py": "class Variant:\n    def rename(self):\n        pass\n",
    "src/shop/search/indexer.py": "def build_index():\n    pass\n",
    "src/shop/search/synonyms_old.py": "OLD_SYNONYMS = {}\n",
    "migrations/0001_initial.py": "# initial\n",
    "infra/terraform/rds.tf": "# the database\n",
    "tests/payments/test_refunds.py": "def test_partial():\n    pass\n",
    "apps/web/billing/PlanPicker.tsx": "export function PlanPicker() {}\n",
    "README.md": "# shop\n",
}
# id suffix → (title, body); ids are 01KD… ULIDs
MEMORIES = {
    "REFUNDNAME": (
        "Refund amounts round half-even",
        "`refunds.py` rounds half-even; never floats.",
    ),
    "ZANZIBAR": (
        "Zanzibar refunds settle in TZS",
        "The acquirer rejects partial amounts for Zanzibar merchants.",
    ),
    "ISSUEREF": (
        "Refunds are idempotent",
        "`issue_refund` must be safe to retry with the same key.",
    ),
    "VARIANT": (
        "Renaming a variant keeps its SKU",
        "`catalog.variants.Variant.rename` never changes the SKU.",
    ),
    "MIGRATION": (
        "Never edit a merged migration",
        "Files in `migrations/` are append-only once merged.",
    ),
    "SEARCHONE": (
        "The search index rebuilds nightly",
        "`src/shop/search/indexer.py` runs at 02:00.",
    ),
    "SYNONYMS": (
        "Old synonyms are still imported",
        "`synonyms_old.py` is imported by the nightly job.",
    ),
    "GATEWAY": (
        "Card charges go through the gateway",
        "`src/shop/payments/gateway.py` wraps Stripe.",
    ),
    "RDS": (
        "A database resize restarts it",
        "Changing `infra/terraform/rds.tf` restarts the database.",
    ),
    "FLAKY": (
        "The partial refund test is flaky",
        "`tests/payments/test_refunds.py::test_partial` needs a frozen clock.",
    ),
    "PLANPICK": (
        "The plan picker re-renders",
        "`<PlanPicker>` re-renders on every keystroke; memoise it.",
    ),
    "PAYFOLDER": (
        "Payments code logs amounts in cents",
        "Everything in `src/shop/payments/` logs cents.",
    ),
    "LUNCH": ("Lunch on Thursdays", "Tacos upstairs at noon."),
}
REQUIRED = ("MAKECHECK", ("Run make check before pushing", "`make check` runs what CI runs."))


def memory_id(name: str) -> str:
    return (
        ("01KD" + name + "0" * 26)[:26]
        .replace("I", "J")
        .replace("L", "K")
        .replace("O", "P")
        .replace("U", "V")
    )


@dataclass
class World:
    work: Path
    env: dict[str, str]

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.work, env=self.env, capture_output=True,
                              text=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    def tb(self, *args: str) -> subprocess.CompletedProcess[str]:
        return forkserver.run([str(BIN / "tb"), *args], cwd=self.work, env=self.env, timeout=120)

    def reset(self) -> None:
        self.git("checkout", "-q", "-f", "main")
        self.git("reset", "-q", "--hard", "origin/main")
        self.git("clean", "-qfd")
        for branch in self.git("branch", "--format=%(refname:short)").split():
            if branch != "main":
                self.git("branch", "-q", "-D", branch)


def _memory_file(name: str, title: str, body: str, priority: str = "advisory") -> str:
    return (
        f"---\nid: {memory_id(name)}\nclass: learning\nscope: team\nstatus: active\n"
        f"priority: {priority}\ntitle: {json.dumps(title)}\ncreated: 2026-11-16\n---\n\n{body}\n"
    )


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """A shop whose main was last changed in search (other people's work), pushed to a bare
    remote and cloned; the home is warm (``tb reindex`` embedded every memory)."""
    root = tmp_path_factory.mktemp("context")
    env = {**os.environ, "TEAMBRAIN_HOME": str(root / "home"), "HOME": str(root),
           "GIT_AUTHOR_NAME": "Ana", "GIT_AUTHOR_EMAIL": "ana@example.test",
           "GIT_COMMITTER_NAME": "Ana", "GIT_COMMITTER_EMAIL": "ana@example.test"}  # fmt: skip
    seed = World(root / "seed", env)
    seed.work.mkdir()
    seed.git("init", "-q", "-b", "main")
    for path, text in FILES.items():
        (seed.work / path).parent.mkdir(parents=True, exist_ok=True)
        (seed.work / path).write_text(text)
    assert seed.tb("init").returncode == 0
    folder = seed.work / ".teambrain" / "memories" / "learnings"
    for name, (title, body) in MEMORIES.items():
        (folder / f"{memory_id(name)}-m.md").write_text(_memory_file(name, title, body))
    name, (title, body) = REQUIRED
    (folder / f"{memory_id(name)}-m.md").write_text(_memory_file(name, title, body, "required"))
    seed.git("add", "-A")
    seed.git("commit", "-qm", "Scaffold the shop and its brain")
    for n in range(3):  # other people's recent work on main
        with (seed.work / "src/shop/search/indexer.py").open("a") as handle:
            handle.write(f"# tune {n}\n")
        seed.git("commit", "-qam", f"search: tune the index {n}")
    subprocess.run(["git", "clone", "-q", "--bare", str(seed.work), str(root / "origin.git")],
                   check=True, env=env)  # fmt: skip
    subprocess.run(["git", "clone", "-q", str(root / "origin.git"), str(root / "work")],
                   check=True, env=env)  # fmt: skip
    clone = World(root / "work", env)
    assert clone.tb("reindex").returncode == 0
    clone.git("checkout", "-q", "--", ".")  # reindex regenerated INDEX.md
    yield clone


@asynccontextmanager
async def serve(world: World) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=str(BIN / "tb"), args=["serve"], cwd=world.work,
                                   env=world.env)  # fmt: skip
    async with Client(params) as client:
        yield client


async def context(client: Client) -> dict[str, Any]:
    result = await client.call_tool("memory_context", {})
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def top(answer: dict[str, Any], n: int = 3) -> list[str]:
    return [m["id"] for m in answer["relevant"][:n]]


def why(answer: dict[str, Any], name: str) -> list[str]:
    return next(m["why"] for m in answer["relevant"] if m["id"] == memory_id(name))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_memory_context_over_mcp_is_about_the_work_in_front_of_the_agent(
    world: World,
) -> None:
    async with serve(world) as client:
        # The first answer of a server in a warm home does not wait for the model: paths,
        # required memories and full text, marked partial.
        first = await context(client)
        assert [m["id"] for m in first["required"]] == [memory_id("MAKECHECK")]
        assert first["coverage"] is not None and "still loading" in first["coverage"]["note"]
        # on main with nothing changed: other people's newest work leads, and says so
        assert top(first, 1) == [memory_id("SEARCHONE")]
        assert why(first, "SEARCHONE") == [
            "recently changed on origin/main: src/shop/search/indexer.py"
        ]
        deadline = time.monotonic() + 60
        while (await context(client))["coverage"] is not None:  # the model loaded meanwhile
            assert time.monotonic() < deadline, "the model never loaded"
            time.sleep(0.2)

        # a topical branch, its file modified: the prose memory and the file's, not search's
        world.git("checkout", "-q", "-b", "fix/zanzibar-refunds")
        with (world.work / "src/shop/payments/refunds.py").open("a") as handle:
            handle.write("# keep the whole amount\n")
        answer = await context(client)
        assert set(top(answer)) == {memory_id(n) for n in ("ZANZIBAR", "REFUNDNAME", "ISSUEREF")}
        assert "modified: src/shop/payments/refunds.py (cites refunds.py)" in why(
            answer, "REFUNDNAME"
        )
        assert "modified: src/shop/payments/refunds.py (cites issue_refund)" in why(
            answer, "ISSUEREF"
        )
        assert "branch name: zanzibar, refunds" in why(answer, "ZANZIBAR")
        assert memory_id("SEARCHONE") not in top(answer, 4)  # last: other people's work
        text = (await client.call_tool("memory_context", {})).content[0].text  # type: ignore[union-attr]
        assert "why: modified: src/shop/payments/refunds.py" in text
        world.reset()

        # staged rename: the memory citing the old path; a deleted file's memory
        world.git("checkout", "-q", "-b", "wip")
        world.git("mv", "src/shop/payments/gateway.py", "src/shop/payments/gateway_v2.py")
        world.git("rm", "-q", "src/shop/search/synonyms_old.py")
        answer = await context(client)
        assert set(top(answer, 2)) == {memory_id("GATEWAY"), memory_id("SYNONYMS")}
        assert "renamed from: src/shop/payments/gateway.py" in why(answer, "GATEWAY")
        world.reset()

        # an untracked migration: the folder citation; a test file: its own memory first
        world.git("checkout", "-q", "-b", "tom/patch-3")
        (world.work / "migrations/0002_add_reason.py").write_text("# new\n")
        with (world.work / "tests/payments/test_refunds.py").open("a") as handle:
            handle.write("# more\n")
        answer = await context(client)
        assert set(top(answer, 2)) == {memory_id("MIGRATION"), memory_id("FLAKY")}
        world.reset()

        # work committed on the branch, clean tree: a symbol of the changed module
        world.git("checkout", "-q", "-b", "feature/sku-stability")
        with (world.work / "src/shop/catalog/variants.py").open("a") as handle:
            handle.write("# keep the sku\n")
        world.git("commit", "-qam", "catalog: keep SKUs on rename")
        answer = await context(client)
        assert top(answer, 1) == [memory_id("VARIANT")]
        assert (
            "committed on this branch: src/shop/catalog/variants.py (cites catalog.variants.Variant.rename)"
            in why(answer, "VARIANT")
        )
        world.reset()

        # a branch with nothing changed yet leans on its name
        world.git("checkout", "-q", "-b", "feature/zanzibar-refunds")
        answer = await context(client)
        assert top(answer, 1) == [memory_id("ZANZIBAR")]
        assert memory_id("LUNCH") not in top(answer, 20)
        world.reset()


def test_tb_relevant_with_no_arguments_shows_what_an_agent_starting_here_is_told(
    world: World,
) -> None:
    world.git("checkout", "-q", "-b", "fix/zanzibar-refunds")
    try:
        with (world.work / "src/shop/payments/refunds.py").open("a") as handle:
            handle.write("# x\n")
        done = world.tb("relevant", "--view", "human")
        assert done.returncode == 0, done.stderr
        assert (
            "situation: branch fix/zanzibar-refunds; 1 changed path (src/shop/payments/refunds.py); default branch origin/main"
            in done.stderr
        )
        assert done.stdout.index("Required (always applied):") < done.stdout.index("Run make check")
        assert done.stdout.index("Relevant to this session:") < done.stdout.index(
            "Zanzibar refunds settle"
        )
        assert "why: branch name: zanzibar, refunds" in done.stdout
        listed = world.tb("relevant", "--json")
        assert listed.returncode == 0, listed.stderr
        results = json.loads(listed.stdout)
        assert results[0]["id"] == memory_id("MAKECHECK") and results[0]["priority"] == "required"
        assert {r["id"] for r in results[1:4]} == {
            memory_id(n) for n in ("ZANZIBAR", "REFUNDNAME", "ISSUEREF")
        }
        assert all(r["why"] for r in results[1:])
        # --paths shares the matcher: a folder, a module, a symbol and a component name
        for path, name in (("migrations/0009_x.py", "MIGRATION"),
                           ("src/shop/catalog/variants.py", "VARIANT"),
                           ("apps/web/billing/PlanPicker.tsx", "PLANPICK")):  # fmt: skip
            found = world.tb("relevant", "--paths", path, "--json")
            assert found.returncode == 0, found.stderr
            assert json.loads(found.stdout)[0]["id"] == memory_id(name), path
            assert json.loads(found.stdout)[0]["why"][0].startswith(path)
        assert world.tb("relevant", "--query", "").returncode == 1
    finally:
        world.reset()


async def test_during_a_cold_start_search_finds_a_rare_keyword(
    world: World, tmp_path: Path
) -> None:
    cold = World(world.work, {**world.env, "TEAMBRAIN_HOME": str(tmp_path / "fresh-home")})
    async with serve(cold) as client:
        found = await client.call_tool("memory_search", {"query": "tacos"})
        assert found.structured_content is not None
        assert found.structured_content["results"][0]["id"] == memory_id("LUNCH")
