"""Spool sessions as the distiller sees them: only whitelisted envelope fields, validated.

A spool line may carry more than the contract (a newer capture, a bug, a hostile hook): the
reader copies the fields it knows for each ``ev`` and nothing else, then validates that copy
against the contract's event models. So an unknown field can never reach a prompt.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from teambrain_capture import read_jsonl, repo_join_key, repo_keys, session_files
from teambrain_kit.paths import MachineLayout
from teambrain_schema import ENVELOPE_ADAPTER, intent_summary

# The envelope keys and, per event type, the payload keys the distiller may read.
ENVELOPE_KEYS = ("v", "sid", "t", "tool", "model", "repo", "branch", "ev")
PAYLOAD_KEYS: dict[str, tuple[str, ...]] = {
    "session_start": (),
    "intent": ("summary",),
    "memory_retrieved": ("ids",),
    "tool_use": ("kind", "path", "exit_code"),
    "plan_revision": ("items",),
    "session_end": ("outcome", "duration_s", "turns", "commit_shas"),
}
# A session without session_end counts as over once it has been silent this long.
STALE_AFTER = dt.timedelta(hours=6)


@dataclass(frozen=True)
class ToolStep:
    """One agent tool call: its kind, the path it touched and how it exited."""

    kind: str
    path: str | None
    exit_code: int | None


@dataclass
class SessionFacts:
    """What one spool session tells the distiller (and nothing more)."""

    sid: str
    file: Path
    repo: str = ""
    branch: str = ""
    events: int = 0
    skipped_lines: int = 0
    first: dt.datetime | None = None
    last: dt.datetime | None = None
    intents: list[str] = field(default_factory=list)
    steps: list[ToolStep] = field(default_factory=list)
    retrieved_ids: list[str] = field(default_factory=list)
    plan_revisions: int = 0
    outcome: str | None = None
    turns: int | None = None
    duration_s: float | None = None
    commit_shas: list[str] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        return self.outcome is not None

    @property
    def has_substance(self) -> bool:
        """False for sessions with nothing to learn from (no intent, no tool use, no commit)."""
        return bool(self.intents or self.steps or self.commit_shas)

    def is_ready(self, now: dt.datetime) -> bool:
        """Over: it ended, or it has been silent for :data:`STALE_AFTER`."""
        return self.ended or (self.last is not None and now - self.last >= STALE_AFTER)

    def priority(self) -> tuple[int, dt.datetime]:
        """Sort key: sessions that ended committed first, then other ended ones, then the
        rest; oldest first within each group so none starves under the cost cap."""
        rank = 0 if self.outcome == "committed" else 1 if self.ended else 2
        return rank, self.last or dt.datetime.min.replace(tzinfo=dt.UTC)


def whitelisted(record: dict[str, Any]) -> dict[str, Any] | None:
    """The known fields of one spool record, or None for event types the distiller ignores."""
    ev = record.get("ev")
    if not isinstance(ev, str) or ev not in PAYLOAD_KEYS:
        return None
    picked = {key: record[key] for key in ENVELOPE_KEYS if key in record}
    data = record.get("data")
    if ev == "intent" and isinstance(data, str):  # the contract's shape: the summary itself
        picked["data"] = data
        return picked
    data = data if isinstance(data, dict) else {}
    picked["data"] = {key: data[key] for key in PAYLOAD_KEYS[ev] if key in data}
    return picked


def read_session(path: Path) -> SessionFacts | None:
    """The facts of the session in ``path``, or None when no line of it is a valid event."""
    read = read_jsonl(path)
    facts: SessionFacts | None = None
    skipped = read.torn
    for record in read.records:
        picked = whitelisted(record)
        if picked is None:
            if record.get("ev") != "candidate_proposed":
                skipped += 1
            continue
        try:
            event = ENVELOPE_ADAPTER.validate_python(picked)
        except ValidationError:
            skipped += 1
            continue
        if facts is None:
            facts = SessionFacts(sid=event.sid, file=path, repo=event.repo, branch=event.branch)
        elif event.sid != facts.sid:
            skipped += 1
            continue
        _add(facts, event)
    if facts is not None:
        facts.skipped_lines = skipped
    return facts


def _add(facts: SessionFacts, event: Any) -> None:
    facts.events += 1
    facts.branch = event.branch
    moment = event.t.astimezone(dt.UTC)
    facts.first = moment if facts.first is None else min(facts.first, moment)
    facts.last = moment if facts.last is None else max(facts.last, moment)
    data = event.data
    if event.ev == "intent":
        facts.intents.append(intent_summary(data))
    elif event.ev == "tool_use":
        facts.steps.append(ToolStep(data.kind, data.path, data.exit_code))
    elif event.ev == "memory_retrieved":
        facts.retrieved_ids.extend(i for i in data.ids if i not in facts.retrieved_ids)
    elif event.ev == "plan_revision":
        facts.plan_revisions += 1
    elif event.ev == "session_end":
        facts.outcome = data.outcome
        facts.turns = data.turns
        facts.duration_s = data.duration_s
        facts.commit_shas.extend(s for s in data.commit_shas if s not in facts.commit_shas)


def read_sessions(machine: MachineLayout) -> list[SessionFacts]:
    """Every readable session in the spool (files with no valid event are left out)."""
    found = []
    for path in session_files(machine):
        facts = read_session(path)
        if facts is not None:
            found.append(facts)
    return found


# -- which repository a session belongs to -----------------------------------------------------
def normalise_remote(url: str) -> str:
    """``git@github.com:acme/shop.git`` and ``https://github.com/acme/shop`` → ``github.com/acme/shop``.

    Only for ``repo`` keys spelled as a raw remote URL (sessions written before capture keyed
    them): this repository's own key is capture's (:func:`teambrain_capture.repo_join_key`)."""
    text = url.strip()
    text = re.sub(r"^[a-z][a-z0-9+.\-]*://", "", text)
    text = re.sub(r"^[^@/]+@", "", text)
    text = re.sub(r"^([^/:]+):(?!\d+/)", r"\1/", text)
    text = re.sub(r"^([^/:]+):\d+/", r"\1/", text)
    return text.removesuffix("/").removesuffix(".git").casefold()


def repo_identities(
    repo_root: Path, machine: MachineLayout | None = None, *, record: bool = True
) -> frozenset[str]:
    """Every spelling of this repository a session's ``repo`` key may use: the join key capture
    records (the normalised origin remote, else the folder name), with ``machine`` the keys it
    was filed under before its remote changed (:func:`teambrain_capture.repo_keys`) and, for
    sessions recorded before the origin was set or before capture keyed them, its folder name
    and its path."""
    resolved = repo_root.resolve()
    names = {str(repo_root), str(resolved), resolved.name}
    if machine is not None:
        names |= repo_keys(repo_root, machine, record=record).names
    key = repo_join_key(repo_root)
    if key is not None:
        names.add(key)
    return frozenset(names)


def belongs_to(facts: SessionFacts, identities: frozenset[str]) -> bool:
    """True when the session's ``repo`` key names this repository."""
    return facts.repo in identities or normalise_remote(facts.repo) in identities


# -- commit subjects, from the local git repository only ----------------------------------------
def commit_subjects(repo_root: Path, shas: Iterable[str]) -> dict[str, str]:
    """sha → subject line for the commits of ``shas`` this repository has (others are left
    out: a session may name a commit that was never pushed here)."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    from teambrain_kit.git import git_output

    check = git_output(
        ["cat-file", "--batch-check=%(objectname) %(objecttype)"], cwd=repo_root,
        input=("\n".join(wanted) + "\n").encode("utf-8", "surrogateescape"),
    )  # fmt: skip
    if check is None:
        return {}
    full: dict[str, str] = {}
    for sha, line in zip(wanted, check.decode("utf-8", "replace").splitlines(), strict=False):
        parts = line.split()
        if len(parts) == 2 and parts[1] == "commit":
            full[sha] = parts[0]
    if not full:
        return {}
    log = git_output(
        ["log", "--no-walk=unsorted", "--format=%H%x1f%s", *sorted(set(full.values()))],
        cwd=repo_root,
    )
    by_full = {}
    for line in (log or b"").decode("utf-8", "replace").splitlines():
        commit, _, subject = line.partition("\x1f")
        by_full[commit] = subject
    return {sha: by_full[commit] for sha, commit in full.items() if commit in by_full}
