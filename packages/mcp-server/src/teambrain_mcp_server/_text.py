"""The readable text an agent's model reads next to each structured result.

Bodies are already rendered by the rendering rule (prefix line + a fence they cannot close).
Everything else printed here comes from validated front-matter (ids, classes, dates, paths) or
is sanitised like a body (titles, why a memory was chosen), so no memory can forge another
memory's header. Nothing the caller sent (the query) is echoed back: a search's reasons, which
name the query's words, stay in the structured result.
"""

from __future__ import annotations

from teambrain_schema import (
    MemoryContextResult,
    MemoryFeedbackResult,
    MemoryProposeResult,
    MemoryResult,
    MemorySearchResult,
    NoteResult,
)
from teambrain_schema.render import MEMORY_NOTICE, one_line


def _line(text: str) -> str:
    """``text`` as one safe line (:func:`teambrain_schema.render.one_line`)."""
    return one_line(text)


def _memory(number: int, memory: MemoryResult, *, why: bool = False) -> str:
    provenance = memory.provenance
    where = _line(provenance.path) + (f" @ {provenance.commit[:12]}" if provenance.commit else "")
    facts = [memory.class_, memory.priority, where, f"created {provenance.created.isoformat()}"]
    if provenance.evidence is not None and not provenance.evidence.is_empty():
        facts.append(
            f"evidence: {len(provenance.evidence.sessions)} session(s), "
            f"{len(provenance.evidence.commits)} commit(s)"
        )
    title = _line(memory.title) or "(untitled)"
    stale = f"\nmay be stale: {_line('; '.join(memory.stale))}" if memory.stale else ""
    via = f"\nlinked in the team's graph, {_line(provenance.via)}" if provenance.via else ""
    reasons = f"\nwhy: {_line('; '.join(memory.why))}" if why and memory.why else ""
    return f"### {number}. {title}\n{' · '.join(facts)}{via}{stale}{reasons}\n\n{memory.body}"


def _section(
    heading: str, memories: list[MemoryResult], start: int, *, why: bool = False
) -> list[str]:
    return [f"## {heading}", *(_memory(start + i, m, why=why) for i, m in enumerate(memories))]


def context_text(result: MemoryContextResult) -> str:
    """``memory_context`` as markdown: required first, then relevant, then the budget."""
    parts = [MEMORY_NOTICE]
    if result.required:
        parts += _section("Required (always apply these)", result.required, 1)
    if result.relevant:
        parts += _section(
            "Relevant to this session", result.relevant, len(result.required) + 1, why=True
        )
    if not result.required and not result.relevant:
        parts.append("The brain has no memories for this session yet.")
    budget = f"~{result.token_estimate} of {result.budget} tokens"
    parts.append(f"({budget}{'; OVER BUDGET' if result.over_budget else ''})")
    parts += [f"Note: {_line(note)}" for note in result.notes]
    return "\n\n".join(parts)


def _note(number: int, note: NoteResult) -> str:
    where = _line(note.path) + (f" @ {note.commit[:12]}" if note.commit else "")
    return f"### {number}. {_line(note.title) or '(untitled)'}\nteam note · {where}\n\n{note.body}"


def _notes_section(notes: list[NoteResult] | None) -> list[str]:
    if not notes:
        return []
    return [
        "## Team notes (free-form, not reviewed as memories; ranked below them)",
        *(_note(i + 1, note) for i, note in enumerate(notes)),
    ]


def search_text(result: MemorySearchResult) -> str:
    """``memory_search`` as markdown, best match first; matching notes after the memories."""
    if not result.results and not result.notes:
        partial = f"\n\nNote: {_line(result.coverage.note)}" if result.coverage else ""
        return "No team memory matches this query." + partial
    count = len(result.results)
    lines = [MEMORY_NOTICE, f"{count} matching memor{'y' if count == 1 else 'ies'}, best first."]
    lines += [_memory(i + 1, memory) for i, memory in enumerate(result.results)]
    lines += _notes_section(result.notes)
    if result.coverage is not None:
        lines.append(f"Note: {_line(result.coverage.note)}")
    return "\n\n".join(lines)


def propose_text(result: MemoryProposeResult) -> str:
    """``memory_propose``: what happened, and what did not."""
    text = (
        f"Queued candidate {result.candidate_id} in the local spool. Nothing in the repository "
        "changed; a human reviews candidates with `tb propose`."
    )
    if result.note:
        text += f"\nNote: {result.note}."
    return text


def feedback_text(_result: MemoryFeedbackResult) -> str:
    """``memory_feedback``."""
    return "Feedback recorded on this machine. Thank you."
