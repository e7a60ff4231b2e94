"""``memory_propose({draft})``: queue a draft for human review; the repository is untouched."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field
from teambrain_schema import MemoryProposeResult, ProposedDraft

from .._service import BrainService
from .._text import propose_text
from ._answers import answer, reply

NAME = "memory_propose"
DESCRIPTION = """\
Propose a new team memory when you learned something durable that future sessions should know \
(a decision and its reason, a convention, where something lives, a pitfall and its fix). The \
draft is validated and queued on this machine for a human to review with `tb propose`; nothing \
in the repository changes. Write the body as short imperative prose (at most 400 words) and \
never include secrets. Proposing the same content twice returns the same candidate. A draft \
may instead be a graph record (nodeKind, id, attributes, edges: a service, team, runbook… of \
the brain's ontology), checked against the ontology before it is queued."""

Draft = Annotated[
    ProposedDraft,
    Field(
        description="The memory to propose: class, title (at most 80 characters), body, tags; "
        "or a graph record: nodeKind, id, attributes, edges"
    ),
]


def register(server: MCPServer, service: BrainService) -> None:
    """Add ``memory_propose`` to ``server``."""

    @server.tool(
        name=NAME,
        title="Propose a team memory",
        description=DESCRIPTION,
        annotations=ToolAnnotations(
            title="Propose a team memory",
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    def memory_propose(draft: Draft) -> Annotated[CallToolResult, MemoryProposeResult]:
        result = answer(lambda: service.propose(draft))
        return reply(result, propose_text(result), exclude_none=True)
