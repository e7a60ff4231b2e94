"""``tb distill``: spool sessions → model → validated, de-duplicated memory candidates.

Per session, in order of preference (ended committed first): build the prompt from the brain's
templates and the session's whitelisted facts, ask the pinned model once (bounded re-asks), check
every proposal (draft schema, memory-file round trip, secrets, near-duplicates), queue the rest
with proposer ``distiller``, then move the watermark. Each step writes atomically, and the
watermark moves only after a session's candidates are queued, so a crash or a failed call leaves
the session to be distilled again (its re-proposals then match the queued candidates).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teambrain_capture import list_candidates, queue_candidate, repo_keys
from teambrain_schema import (
    EnvironmentProblem,
    Evidence,
    ExitCode,
    MemoryFrontMatter,
    TeambrainError,
    UserError,
    ValidationFailure,
)
from teambrain_schema.brain import load_brain, load_brain_config
from teambrain_schema.drafts import validate_draft
from teambrain_schema.egress import require_approved
from teambrain_schema.frontmatter import FrontMatterError, new_memory_text, parse_memory
from teambrain_schema.ids import new_ulid
from teambrain_schema.paths import BrainLayout, MachineLayout

from ._answer import MAX_CANDIDATES_PER_SESSION, DistillAnswer, ProposedMemory, labels_context
from ._dedup import DuplicateGuard, Match
from ._drivers import driver_egress
from ._errors import (
    CostCapReached,
    DriverNotInstalled,
    FixtureMissing,
    ModelOutputInvalid,
    ModelRejectedRequest,
    ModelTimedOut,
    ModelUnavailable,
)
from ._llm import LLM
from ._prompt_text import KnownMemory, render_memories, render_session
from ._prompts import (
    EXAMPLE_TITLE,
    SESSION_TEMPLATE,
    SYSTEM_TEMPLATE,
    PromptTemplate,
    TemplateProblem,
    read_template,
)
from ._sessions import SessionFacts, belongs_to, commit_subjects, read_sessions, repo_identities
from ._similarity import open_index, pair_scores, related_ids, similar_live
from ._state import Watermark, run_lock

if TYPE_CHECKING:
    from teambrain_retrieval import Retriever

Progress = Callable[[int, int, str], None]
# Sessions in a row that time out (or whose request is refused) before the run stops.
MAX_STRIKES = 2


@dataclass
class DistillOptions:
    """How to run: a time window, a dry run, fixture recording, and the clock."""

    since: dt.datetime | None = None
    dry_run: bool = False
    record: bool | None = None
    now: dt.datetime | None = None


def _shown(text: str) -> str:
    from teambrain_schema.secrets import redact_secrets

    return redact_secrets(text)


@dataclass(frozen=True)
class QueuedCandidate:
    """A candidate the run queued (or, in a dry run, would have queued)."""

    candidate_id: str | None
    sid: str
    memory_class: str
    title: str
    evidence: dict[str, list[str]]

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", _shown(self.title))

    def as_dict(self) -> dict[str, Any]:
        return {
            "candidate_id": self.candidate_id,
            "sid": self.sid,
            "class": self.memory_class,
            "title": self.title,
            "evidence": self.evidence,
        }


@dataclass(frozen=True)
class DroppedProposal:
    """A proposal the run did not queue: a duplicate (with its matches) or invalid."""

    sid: str
    title: str
    reason: str
    detail: str = ""
    matches: tuple[Match, ...] = ()

    def __post_init__(self) -> None:
        # The model's text, printed in the report and --json: a secret in it (why it was
        # dropped, often) is never printed back.
        object.__setattr__(self, "title", _shown(self.title))
        object.__setattr__(self, "detail", _shown(self.detail))

    def as_dict(self) -> dict[str, Any]:
        return {
            "sid": self.sid,
            "title": self.title,
            "reason": self.reason,
            "detail": self.detail,
            "matches": [m.as_dict() for m in self.matches],
        }


@dataclass(frozen=True)
class SessionResult:
    """What happened to one session: distilled, skipped, failed or deferred; how many
    proposals its answer held and how many were queued; the model attempts it took (first
    try and re-asks) and the re-sends after server errors."""

    sid: str
    status: str
    detail: str = ""
    proposals: int = 0
    queued: int = 0
    attempts: int = 0
    resends: int = 0

    @property
    def yielded_nothing(self) -> bool:
        """A distilled session that queued no candidate."""
        return self.status == "distilled" and self.queued == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "sid": self.sid,
            "status": self.status,
            "detail": self.detail,
            "proposals": self.proposals,
            "queued": self.queued,
            "attempts": self.attempts,
            "resends": self.resends,
        }


@dataclass
class DistillReport:
    """Everything a run did; ``to_json()`` is the stable ``--json`` shape."""

    driver: str
    model: str
    dry_run: bool
    prompts: dict[str, dict[str, Any]] = field(default_factory=dict)
    sessions: list[SessionResult] = field(default_factory=list)
    candidates: list[QueuedCandidate] = field(default_factory=list)
    dropped: list[DroppedProposal] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    stopped: str | None = None
    recorded: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 ok (a cost-cap stop included) · 2 the model or its fixtures were unavailable, an
        answer timed out or a request was refused · 3 the model's answers were invalid (or cut
        off) within the retry bound."""
        codes = {r.detail.split(":", 1)[0] for r in self.sessions if r.status == "failed"}
        if codes & {"unavailable", "timeout", "rejected"}:
            return int(ExitCode.ENVIRONMENT_ERROR)
        if "invalid" in codes:
            return int(ExitCode.VALIDATION_FAILURE)
        return int(ExitCode.OK)

    def count(self, status: str) -> int:
        return sum(1 for r in self.sessions if r.status == status)

    @property
    def yielded_nothing(self) -> int:
        """Distilled sessions that queued no candidate (the model proposed nothing, or every
        proposal was dropped)."""
        return sum(1 for r in self.sessions if r.yielded_nothing)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.exit_code == 0,
            "exit_code": self.exit_code,
            "dry_run": self.dry_run,
            "driver": self.driver,
            "model": self.model,
            "prompts": self.prompts,
            "sessions": [r.as_dict() for r in self.sessions],
            "yielded_nothing": self.yielded_nothing,
            "ignored": dict(sorted(self.ignored.items())),
            "candidates": [c.as_dict() for c in self.candidates],
            "dropped": [d.as_dict() for d in self.dropped],
            "usage": self.usage,
            "stopped": self.stopped,
            "recorded": self.recorded,
            "notes": self.notes,
        }


@dataclass
class _Run:
    layout: BrainLayout
    machine: MachineLayout
    options: DistillOptions
    llm: LLM
    system: str
    session_template: PromptTemplate
    memories: list[KnownMemory]
    guard: DuplicateGuard
    watermark: Watermark
    subjects: dict[str, str]
    report: DistillReport
    now: dt.datetime
    retriever: Retriever | None
    repo_key: str | None = None
    # Sessions in a row that timed out or whose request was refused: two stop the run.
    strikes: int = 0


def distill(
    layout: BrainLayout,
    machine: MachineLayout,
    *,
    options: DistillOptions | None = None,
    llm: LLM | None = None,
    progress: Progress | None = None,
    retriever: Retriever | None = None,
    similarity: bool = True,
) -> DistillReport:
    """Distill this repository's spool sessions that are not distilled yet into candidates.

    Near-duplicates and related memories come from retrieval (``retriever``, or the brain's
    index opened here; ``similarity=False`` keeps to the exact checks). Raises only for
    problems that stop the run before any model call (templates, brain.yaml, the watermark, a
    concurrent run, a missing credential); everything per session is in the report.
    """
    options = options or DistillOptions()
    now = options.now or dt.datetime.now(dt.UTC)
    config = load_brain_config(layout).distill
    if options.dry_run and options.record:
        raise UserError("--dry-run writes nothing, so it cannot record fixtures")
    templates = _templates(layout)
    injected = llm is not None
    if llm is None:
        llm = LLM(config, brain_dir=layout.root, record=options.record)
    report = DistillReport(driver=config.driver, model=config.model, dry_run=options.dry_run)
    report.prompts = {
        t.relpath: {"sha": t.sha, "default": t.is_default} for t in templates.values()
    }
    system = templates[SYSTEM_TEMPLATE].render({"max_candidates": str(MAX_CANDIDATES_PER_SESSION)})
    watermark = Watermark.load(machine)
    sessions, all_sids = _select_sessions(
        layout, machine, options, watermark=watermark, now=now, report=report
    )
    asks_model = any(f.has_substance for f in sessions)
    if asks_model:
        if not injected:
            # Nothing goes to a destination this machine has not approved for this repository.
            require_approved(machine, layout.repo_root, driver_egress(config))
        llm.driver  # noqa: B018 -- build it now: a missing credential or SDK stops the run here
    scratch_dir: contextlib.AbstractContextManager[str | None] = (
        tempfile.TemporaryDirectory(prefix="teambrain-distill-")
        if options.dry_run
        else contextlib.nullcontext()
    )
    with scratch_dir as scratch:
        opened = None
        if similarity and retriever is None and asks_model:
            opened = retriever = open_index(
                layout,
                machine,
                report.notes.append,
                scratch=Path(scratch) if scratch else None,
            )
        try:
            _distill_sessions(
                layout,
                machine,
                options,
                llm,
                report,
                sessions=sessions,
                keep=all_sids,
                templates=templates,
                system=system,
                watermark=watermark,
                retriever=retriever if similarity else None,
                progress=progress,
                now=now,
            )
        finally:
            if opened is not None:
                opened.close()
    report.usage = llm.budget.as_dict()
    report.notes.extend(llm.notes)
    report.recorded = [str(p) for p in llm.recorded]
    return report


def _distill_sessions(
    layout: BrainLayout,
    machine: MachineLayout,
    options: DistillOptions,
    llm: LLM,
    report: DistillReport,
    *,
    sessions: list[SessionFacts],
    keep: set[str],
    templates: dict[str, PromptTemplate],
    system: str,
    watermark: Watermark,
    retriever: Retriever | None,
    progress: Progress | None,
    now: dt.datetime,
) -> None:
    memories = _live_memories(layout)
    # the keys it was filed under before its remote changed too (a dry run records nothing)
    keys = repo_keys(layout.repo_root, machine, record=not options.dry_run)
    repo_key = keys.key
    pending = [c for c in list_candidates(machine).candidates if keys.holds(c.repo)]
    run = _Run(
        repo_key=repo_key,
        layout=layout,
        machine=machine,
        options=options,
        llm=llm,
        system=system,
        session_template=templates[SESSION_TEMPLATE],
        memories=memories,
        guard=DuplicateGuard(
            memories,
            pending,
            similar_live=similar_live(retriever) if retriever else None,
            pair_scores=pair_scores(retriever) if retriever else None,
        ),
        watermark=watermark,
        subjects=commit_subjects(layout.repo_root, (s for f in sessions for s in f.commit_shas)),
        report=report,
        now=now,
        retriever=retriever,
    )
    if options.dry_run:
        _run_sessions(run, sessions, progress, keep=keep)
    else:
        with run_lock(machine):
            _run_sessions(run, sessions, progress, keep=keep)


def _templates(layout: BrainLayout) -> dict[str, PromptTemplate]:
    found = {}
    for name in (SYSTEM_TEMPLATE, SESSION_TEMPLATE):
        try:
            found[name] = read_template(layout, name)
        except TemplateProblem as exc:
            if not (layout.prompts / name).exists():
                raise EnvironmentProblem(str(exc)) from None
            raise UserError(str(exc)) from None
    return found


def _select_sessions(
    layout: BrainLayout,
    machine: MachineLayout,
    options: DistillOptions,
    *,
    watermark: Watermark,
    now: dt.datetime,
    report: DistillReport,
) -> tuple[list[SessionFacts], set[str]]:
    identities = repo_identities(layout.repo_root, machine, record=not options.dry_run)
    ignored = {"other_repository": 0, "already_distilled": 0, "still_open": 0, "before_since": 0}
    chosen = []
    every = read_sessions(machine)
    for facts in every:
        if not belongs_to(facts, identities):
            ignored["other_repository"] += 1
        elif watermark.is_distilled(facts):
            ignored["already_distilled"] += 1
        elif options.since is not None and (facts.last is None or facts.last < options.since):
            ignored["before_since"] += 1
        elif not facts.is_ready(now):
            ignored["still_open"] += 1
        else:
            chosen.append(facts)
    report.ignored = ignored
    chosen.sort(key=lambda f: (*f.priority(), f.sid))
    return chosen, {f.sid for f in every}


def _live_memories(layout: BrainLayout) -> list[KnownMemory]:
    memories = []
    for brain_file in load_brain(layout).active:
        document = brain_file.document
        if document is None or document.front.status != "active":
            continue
        front = document.front
        memories.append(
            KnownMemory(
                id=front.id,
                memory_class=front.class_,
                title=front.title,
                body=document.body,
                path=brain_file.relpath,
                tags=tuple(front.tags),
            )
        )
    return memories


def _run_sessions(
    run: _Run, sessions: list[SessionFacts], progress: Progress | None, *, keep: set[str]
) -> None:
    report = run.report
    for index, facts in enumerate(sessions):
        if progress is not None:
            progress(index, len(sessions), facts.sid)
        if run.report.stopped is not None:
            report.sessions.append(SessionResult(facts.sid, "deferred", run.report.stopped))
            continue
        if not facts.has_substance:
            report.sessions.append(SessionResult(facts.sid, "skipped", "nothing to learn from"))
            _mark(run, facts, "skipped", keep)
            continue
        try:
            result = _distill_one(run, facts)
        except CostCapReached as exc:
            report.stopped = exc.message
            report.sessions.append(SessionResult(facts.sid, "deferred", exc.message))
            continue
        except ModelOutputInvalid as exc:
            report.sessions.append(_failed(run, facts, f"invalid: {exc.message}"))
            continue
        except FixtureMissing as exc:
            report.sessions.append(_failed(run, facts, f"unavailable: {exc.message}"))
            continue
        except (ModelTimedOut, ModelRejectedRequest) as exc:
            # This session's answer was too slow or its request too big; the next may do.
            kind = "timeout" if isinstance(exc, ModelTimedOut) else "rejected"
            report.sessions.append(_failed(run, facts, f"{kind}: {exc.message}"))
            run.strikes += 1
            if run.strikes >= MAX_STRIKES:
                report.stopped = (
                    f"stopped: {run.strikes} sessions in a row failed ({kind}: {exc.message})"
                )
            continue
        except (ModelUnavailable, DriverNotInstalled) as exc:
            # Every later call would fail the same way: stop, and say why.
            report.sessions.append(_failed(run, facts, f"unavailable: {exc.message}"))
            report.stopped = f"stopped: {exc.message}"
            continue
        run.strikes = 0
        report.sessions.append(result)
        _mark(run, facts, "distilled", keep)
    if progress is not None:
        progress(len(sessions), len(sessions), "")


def _failed(run: _Run, facts: SessionFacts, detail: str) -> SessionResult:
    guard = run.llm.last_guard
    return SessionResult(
        facts.sid,
        "failed",
        detail,
        attempts=guard.attempts if guard else 0,
        resends=guard.resends if guard else 0,
    )


def _mark(run: _Run, facts: SessionFacts, outcome: str, keep: set[str]) -> None:
    if run.options.dry_run:
        return
    run.watermark.mark(facts, now=run.now, outcome=outcome)
    run.watermark.save(keep)


def _distill_one(run: _Run, facts: SessionFacts) -> SessionResult:
    titles = {m.id: m.title for m in run.memories}
    rendered = render_session(facts, label="S1", subjects=run.subjects, titles=titles)
    with_body = set(facts.retrieved_ids)
    if run.retriever is not None:
        with_body.update(related_ids(run.retriever, " ".join(facts.intents)))
    memories_text = render_memories(run.memories, with_body=with_body)
    prompt = run.session_template.render(
        {
            "session": rendered.text,
            "memories": memories_text,
            "max_candidates": str(MAX_CANDIDATES_PER_SESSION),
        }
    )
    answer = run.llm.complete(
        system=run.system,
        prompt=prompt,
        schema=DistillAnswer,
        context=labels_context(rendered.sessions, rendered.commits),
    )
    queued_before = len(run.report.candidates)
    for dropped in answer.dropped:
        run.report.dropped.append(
            DroppedProposal(facts.sid, dropped.title, "invalid", dropped.reason)
        )
    for proposal in answer.candidates:
        _consider(run, facts, proposal, rendered.sessions, rendered.commits)
    guard = run.llm.last_guard
    return SessionResult(
        facts.sid,
        "distilled",
        proposals=len(answer.candidates) + len(answer.dropped),
        queued=len(run.report.candidates) - queued_before,
        attempts=guard.attempts if guard else 0,
        resends=guard.resends if guard else 0,
    )


def _consider(
    run: _Run,
    facts: SessionFacts,
    proposal: ProposedMemory,
    sessions: dict[str, str],
    commits: dict[str, str],
) -> None:
    report = run.report
    evidence = Evidence(
        sessions=list(
            dict.fromkeys(sessions[s] for s in proposal.evidence.sessions if s in sessions)
        ),
        commits=list(dict.fromkeys(commits[c] for c in proposal.evidence.commits if c in commits)),
    )
    if _letters(proposal.title) == _letters(EXAMPLE_TITLE):
        detail = "copies the example candidate of the prompt, not something the session showed"
        report.dropped.append(DroppedProposal(facts.sid, proposal.title, "invalid", detail))
        return
    try:
        draft = validate_draft(proposal.as_draft(evidence))
        _check_memory_file(draft_front(draft, run.now), draft.body)
    except (ValidationFailure, FrontMatterError, ValueError) as exc:
        detail = exc.message if isinstance(exc, TeambrainError | FrontMatterError) else str(exc)
        report.dropped.append(DroppedProposal(facts.sid, proposal.title, "invalid", detail))
        return
    matches = run.guard.matches(draft)
    if matches:
        report.dropped.append(
            DroppedProposal(facts.sid, draft.title, "duplicate", matches=tuple(matches))
        )
        return
    candidate_id: str | None = None
    if not run.options.dry_run:
        try:
            candidate, _created = queue_candidate(
                draft, "distiller", sid=facts.sid, repo=run.repo_key, machine=run.machine
            )
        except ValidationFailure as exc:
            report.dropped.append(DroppedProposal(facts.sid, draft.title, "invalid", exc.message))
            return
        candidate_id = candidate.candidate_id
    run.guard.remember(draft, candidate_id or f"dry-run-{len(report.candidates) + 1}")
    report.candidates.append(
        QueuedCandidate(
            candidate_id=candidate_id,
            sid=facts.sid,
            memory_class=draft.class_,
            title=draft.title,
            evidence={"sessions": list(evidence.sessions), "commits": list(evidence.commits)},
        )
    )


def _letters(text: str) -> str:
    """``text`` reduced to its lower-case letters and digits (a copy with a full stop added
    is still a copy)."""
    return "".join(char for char in text.casefold() if char.isalnum())


def draft_front(draft: Any, now: dt.datetime) -> MemoryFrontMatter:
    """The front-matter the draft would get as a memory file (a fresh id, today's date), with
    every field ``teambrain_sync.add_memory`` writes (supersedes and ttl_days included)."""
    return MemoryFrontMatter.model_validate(
        {
            "id": new_ulid(),
            "class": draft.class_,
            "scope": draft.scope,
            "status": "active",
            "priority": draft.priority,
            "title": draft.title,
            "created": now.date(),
            "evidence": draft.evidence.model_dump() if draft.evidence else None,
            "supersedes": list(draft.supersedes),
            "tags": list(draft.tags),
            "ttl_days": draft.ttl_days,
        }
    )


def _check_memory_file(front: MemoryFrontMatter, body: str) -> None:
    """The draft must make a memory file that parses back to the same front-matter."""
    document = parse_memory(new_memory_text(front, body))
    if document.front != front:
        raise ValueError("does not survive a round trip through a memory file")
