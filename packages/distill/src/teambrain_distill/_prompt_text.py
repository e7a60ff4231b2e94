"""The text that goes to the model: a session's whitelisted facts and the team's memories.

This is the whole privacy surface of the distiller. It writes intents (already summarised
locally), tool kinds, paths, exit codes, the branch, the outcome, commit subjects read from the
local repository, and the titles and bodies of memories already in the brain. Every string is
passed through the shared secret redaction and flattened to one line first.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from teambrain_schema.render import render_memory
from teambrain_schema.secrets import redact_secrets

from ._sessions import SessionFacts, ToolStep

MAX_INTENTS = 30
MAX_STEP_LINES = 120
MAX_MEMORY_TITLES = 150
MAX_MEMORY_BODIES = 5
MAX_LINE_CHARS = 300


@dataclass(frozen=True)
class KnownMemory:
    """A live memory of the brain, as the prompt and the duplicate check see it."""

    id: str
    memory_class: str
    title: str
    body: str
    path: str
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class SessionPrompt:
    """A rendered session and the labels it showed (label → session id / commit sha)."""

    text: str
    sessions: dict[str, str]
    commits: dict[str, str]


def clean(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """One line, no control characters, secrets redacted, at most ``limit`` characters."""
    flat = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text)
    flat = re.sub(r"\s+", " ", redact_secrets(flat)).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _step_text(step: ToolStep) -> str:
    parts = [step.kind]
    if step.path:
        parts.append(clean(step.path, 200))
    if step.exit_code is not None:
        parts.append(f"(exit {step.exit_code})")
    return " ".join(parts)


def _folded_steps(steps: list[ToolStep]) -> list[str]:
    lines: list[str] = []
    previous, count = "", 0
    for step in steps:
        text = _step_text(step)
        if text == previous:
            count += 1
            continue
        if previous:
            lines.append(previous + (f" ×{count}" if count > 1 else ""))
        previous, count = text, 1
    if previous:
        lines.append(previous + (f" ×{count}" if count > 1 else ""))
    if len(lines) > MAX_STEP_LINES:
        head, tail = lines[: MAX_STEP_LINES - 30], lines[-30:]
        lines = [*head, f"… {len(lines) - len(head) - len(tail)} more steps …", *tail]
    return lines


def render_session(
    facts: SessionFacts,
    *,
    label: str,
    subjects: dict[str, str],
    titles: dict[str, str],
) -> SessionPrompt:
    """The session as prompt text; commits are shown by label with their subject."""
    commits = {f"C{i}": sha for i, sha in enumerate(facts.commit_shas, start=1)}
    lines = [f"Session {label}"]
    lines.append(f"Branch: {clean(facts.branch, 200)}")
    outcome = facts.outcome or "still open (no session_end)"
    extra = []
    if facts.turns is not None:
        extra.append(f"{facts.turns} turns")
    if facts.duration_s is not None:
        extra.append(f"{round(facts.duration_s / 60)} min")
    lines.append(f"Outcome: {outcome}" + (f" ({', '.join(extra)})" if extra else ""))
    every = list(dict.fromkeys(clean(i) for i in facts.intents))
    intents = every[:MAX_INTENTS]
    lines.append("What the user asked for (summarised):")
    lines.extend(f"- {intent}" for intent in intents) if intents else lines.append("- (none)")
    if len(every) > MAX_INTENTS:  # the prompt's bound is said to the model, never silent
        lines.append(f"- … and {len(every) - MAX_INTENTS} more")
    lines.append("Activity, in order (repeats folded):")
    steps = _folded_steps(facts.steps)
    lines.extend(f"- {step}" for step in steps) if steps else lines.append("- (none)")
    if facts.plan_revisions:
        lines.append(f"The agent revised its plan {facts.plan_revisions} time(s).")
    shown = [titles[i] for i in facts.retrieved_ids if i in titles]
    if shown:
        lines.append("Team memories the agent was shown:")
        lines.extend(f"- {clean(title)}" for title in shown)
    lines.append("Commits:")
    if commits:
        for commit_label, sha in commits.items():
            subject = subjects.get(sha)
            text = f'"{clean(subject)}"' if subject else "(not in this repository)"
            lines.append(f"- {commit_label}: {text}")
    else:
        lines.append("- (none)")
    return SessionPrompt(text="\n".join(lines), sessions={label: facts.sid}, commits=commits)


def render_memories(memories: list[KnownMemory], *, with_body: set[str]) -> str:
    """Titles of the brain's memories, and the bodies of those in ``with_body`` (rendered
    with the rendering rule: data, not instructions)."""
    if not memories:
        return "(none yet)"
    listed = sorted(memories, key=lambda m: (m.memory_class, m.title.casefold()))
    lines = []
    for memory in listed[:MAX_MEMORY_TITLES]:
        lines.append(f"- [{memory.memory_class}] {clean(memory.title)}")
    if len(listed) > MAX_MEMORY_TITLES:
        lines.append(f"- … and {len(listed) - MAX_MEMORY_TITLES} more")
    wanted = [m for m in listed if m.id in with_body]
    bodies = wanted[:MAX_MEMORY_BODIES]
    if len(wanted) > MAX_MEMORY_BODIES:
        lines.append(f"(The bodies of {len(bodies)} of them follow; {len(wanted) - len(bodies)} more are left out.)")  # fmt: skip
    for memory in bodies:
        lines.append("")
        lines.append(f"{clean(memory.title)}:")
        lines.append(render_memory(memory.id, redact_secrets(memory.body)))
    return "\n".join(lines)
