from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mcp import Client
from teambrain_capture import JoinKeys, mark_session_active, read_jsonl
from teambrain_kit.paths import MachineLayout
from teambrain_mcp_server import build_server
from teambrain_schema import MAX_CONTEXT_BUDGET, MemoryContextResult, parse_event
from teambrain_schema.render import RENDER_PREFIX

pytestmark = pytest.mark.anyio

PAYMENTS, MAKE_TEST, CHECKOUT_MAP, FLAKY = (
    "01KB2F0A1S9Y4Q7V3C8D5E6F01",
    "01KB2F0A1S9Y4Q7V3C8D5E6F02",
    "01KB2F0A1S9Y4Q7V3C8D5E6F03",
    "01KB2F0A1S9Y4Q7V3C8D5E6F04",
)
KEYS = JoinKeys(sid="sess-ctx", tool="cursor", model="gpt-x", repo="shop", branch="main")


def _set_budget(repo: Path, tokens: int) -> None:
    brain_yaml = repo / ".teambrain" / "brain.yaml"
    text = brain_yaml.read_text()
    brain_yaml.write_text(text.replace("budget_tokens: 2000", f"budget_tokens: {tokens}"))


async def _context(repo: Path, **kwargs: object) -> tuple[MemoryContextResult, str]:
    async with Client(build_server(repo, **kwargs)) as client:  # type: ignore[arg-type]
        result = await client.call_tool("memory_context", {})
    assert not result.is_error, result.content
    return MemoryContextResult.model_validate(result.structured_content), result.content[0].text  # type: ignore[union-attr]


async def test_required_memories_are_always_included_within_the_budget(brain_repo: Path) -> None:
    context, text = await _context(brain_repo)
    assert [m.id for m in context.required] == [PAYMENTS, MAKE_TEST]  # decisions, then conventions
    assert {m.priority for m in context.required} == {"required"}
    assert all(m.priority == "advisory" for m in context.relevant)
    assert not {m.id for m in context.relevant} & {PAYMENTS, MAKE_TEST}
    assert context.budget == MAX_CONTEXT_BUDGET and not context.over_budget
    assert 0 < context.token_estimate <= context.budget
    for memory in (*context.required, *context.relevant):
        assert memory.body.startswith(RENDER_PREFIX.format(id=memory.id) + "\n```")
    # The text an agent's model reads: the same memories, each in its own fence.
    fences = [t for t in MarkdownIt("commonmark").parse(text) if t.type == "fence"]
    assert len(fences) == len(context.required) + len(context.relevant)
    assert text.index("Required") < text.index("Payments go through the PaymentGateway")


async def test_relevant_memories_follow_the_session_situation(
    brain_repo: Path, git: Callable[..., str]
) -> None:
    cart = brain_repo / "src" / "shop" / "checkout" / "cart.py"
    cart.parent.mkdir(parents=True)
    cart.write_text("TOTAL = 0\n")
    git("add", "-A", cwd=brain_repo)
    git("commit", "-qm", "checkout: cart totals", cwd=brain_repo)
    git("checkout", "-qb", "fix/checkout-timeout", cwd=brain_repo)
    cart.write_text("TOTAL = 1\n")  # a changed file in checkout

    context, _ = await _context(brain_repo)
    relevant = [m.id for m in context.relevant]
    assert CHECKOUT_MAP in relevant and FLAKY in relevant
    assert relevant.index(CHECKOUT_MAP) < 3


async def test_required_memories_over_the_budget_are_kept_and_reported(brain_repo: Path) -> None:
    _set_budget(brain_repo, 100)  # smaller than the two required memories together
    context, text = await _context(brain_repo)
    assert [m.id for m in context.required] == [PAYMENTS, MAKE_TEST]
    assert context.relevant == []
    assert context.over_budget and context.budget == 100
    assert context.token_estimate > context.budget
    assert context.notes and any("budget" in note for note in context.notes)
    assert "OVER BUDGET" in text


async def test_the_budget_comes_from_brain_yaml(brain_repo: Path) -> None:
    _set_budget(brain_repo, 400)
    context, _ = await _context(brain_repo)
    assert context.budget == 400 and not context.over_budget
    assert context.token_estimate <= 400
    assert len(context.required) == 2


async def test_a_known_session_gets_memory_retrieved_with_commit_and_tokens(
    brain_repo: Path, machine: MachineLayout, git: Callable[..., str]
) -> None:
    mark_session_active(machine, brain_repo, KEYS)
    context, _ = await _context(brain_repo, env={})
    [record] = read_jsonl(machine.session_file(KEYS.sid)).records
    event = parse_event(json.dumps(record))
    assert event.ev == "memory_retrieved"
    assert (event.sid, event.tool, event.model, event.repo, event.branch) == (
        "sess-ctx", "cursor", "gpt-x", "shop", "main",
    )  # fmt: skip
    data = event.data
    assert data.ids == [m.id for m in (*context.required, *context.relevant)]  # type: ignore[union-attr]
    assert data.via == "context" and data.token_estimate == context.token_estimate  # type: ignore[union-attr]
    assert data.commit == git("rev-parse", "HEAD", cwd=brain_repo)  # type: ignore[union-attr]
