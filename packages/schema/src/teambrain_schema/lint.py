"""``tb lint``'s rules over a brain: every memory and retired file, brain.yaml, adapters.yaml
and INDEX.md. Each violation is one line ``path:line: rule: message``."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

from teambrain_kit.citations import MAX_EVIDENCE_CHECKED
from teambrain_kit.injection import InjectionFinding, find_injections
from teambrain_kit.paths import BrainLayout
from teambrain_kit.secrets import find_secrets

from ._config import AdaptersFile, BrainConfig
from ._errors import EnvironmentProblem
from ._memory import MAX_BODY_WORDS, count_words
from ._violation import Violation, cycle_members as _cycle_members
from .brain import (
    Brain,
    BrainFile,
    ConfigProblem,
    class_for_folder,
    file_name_problem,
    load_brain,
    load_brain_config,
    load_config_file,
    read_text_safely,
)
from .frontmatter import FrontMatterError
from .index_md import INDEX_HEADER, parse_retirement_reasons, render_index
from .tokens import memory_token_cost

__all__ = [
    "LintReport",
    "Violation",
    "expected_index_text",
    "index_md_text",
    "injection_findings",
    "lint_brain",
    "regenerate_index",
]


@dataclass
class LintReport:
    """All violations of a lint run, how many files were checked, and notes: facts worth
    knowing that are not problems (an INDEX.md that the default branch's post-merge step has
    yet to regenerate), which never fail a lint, not even ``--strict``."""

    violations: list[Violation] = field(default_factory=list)
    files_checked: int = 0
    notes: list[Violation] = field(default_factory=list)

    @property
    def errors(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, object]:
        """The ``--json`` shape: ok, files_checked, violations, notes."""
        return {
            "ok": self.ok,
            "files_checked": self.files_checked,
            "violations": [asdict(v) for v in self.violations],
            "notes": [asdict(v) for v in self.notes],
        }


def expected_index_text(brain: Brain, reasons: Mapping[str, str] | None = None) -> str:
    """What INDEX.md must contain for ``brain``: retirement reasons carried over from the
    existing INDEX.md, with ``reasons`` (memory id → reason) added or replacing them."""
    existing = index_md_text(brain.layout) or ""
    active = [
        f.index_entry() for f in brain.active if f.document and f.document.front.status == "active"
    ]
    retired = [f.index_entry() for f in brain.retired]
    return render_index(active, retired, {**parse_retirement_reasons(existing), **(reasons or {})})


def lint_brain(
    layout: BrainLayout, *, today: dt.date | None = None, brain: Brain | None = None
) -> LintReport:
    """Run every rule over the brain at ``layout`` (``brain``: its files already loaded, so a
    caller that has them does not parse every memory again)."""
    report = LintReport()
    config = _lint_config(layout, report)
    _lint_adapters(layout, report)
    _lint_prompts(layout, report)
    brain = brain if brain is not None else load_brain(layout)
    report.files_checked += len(brain.files)
    for problem in brain.problems:
        report.violations.append(
            Violation(problem.relpath, problem.line, problem.rule, problem.message)
        )
    for brain_file in brain.files:
        if brain_file.is_usable:
            _lint_file(brain_file, report)
    _lint_ids(brain, report)
    _lint_duplicate_content(brain, report)
    _lint_index(brain, report)
    if config is not None:
        _lint_budget(brain, config, report, today)
    _lint_graph(layout, brain, report)
    report.violations.sort(key=lambda v: (v.path, v.line, v.rule))
    return report


def _lint_graph(layout: BrainLayout, brain: Brain, report: LintReport) -> None:
    """The graph's records against the ontology, and the notes' scans (docs/graph.md)."""
    from .graph_lint import lint_graph
    from .notes import lint_notes

    found = lint_graph(layout, brain)
    report.violations.extend(found.violations)
    report.files_checked += found.files_checked
    problems, notes = lint_notes(layout)
    report.violations.extend(Violation(*problem) for problem in problems)
    report.files_checked += notes
    from .read_policy import load_sources, source_files

    _sources, policy_problems = load_sources(layout)  # an org brain's read policies
    report.violations.extend(
        Violation(p.relpath, p.line, "read-policy", p.message) for p in policy_problems
    )
    report.files_checked += len(source_files(layout))


def _lint_config(layout: BrainLayout, report: LintReport) -> BrainConfig | None:
    report.files_checked += 1
    try:
        return load_brain_config(layout)
    except ConfigProblem as exc:
        report.violations.append(Violation(exc.relpath, exc.line, "brain-yaml", exc.detail))
    except EnvironmentProblem:
        relpath = layout.relative(layout.brain_yaml)
        report.violations.append(Violation(relpath, 1, "brain-yaml", "missing; run `tb init`"))
    return None


def _lint_adapters(layout: BrainLayout, report: LintReport) -> None:
    path = layout.repo_root / "adapters.yaml"
    if not path.is_file():
        return
    report.files_checked += 1
    try:
        load_config_file(AdaptersFile, path, layout.repo_root)
    except ConfigProblem as exc:
        report.violations.append(Violation(exc.relpath, exc.line, "adapters-yaml", exc.detail))


# The distiller's templates are read with a smaller bound of their own; this one only keeps lint
# from reading a committed giant, and the count keeps a folder of 100,000 files from costing more.
MAX_PROMPT_BYTES = 256 * 1024
MAX_PROMPT_FILES = 100


def _lint_prompts(layout: BrainLayout, report: LintReport) -> None:
    """Every ``prompts/*.md`` is a readable text file of the brain: a committed link to
    ``/dev/zero``, a FIFO or a file outside the brain breaks ``tb distill`` on every machine, so
    the brain's CI says so before it merges. Placeholders are ``tb distill``'s to check."""
    folder = layout.prompts
    if not os.path.lexists(folder):
        return
    relfolder = layout.relative(folder)
    away = layout.leads_out(folder)
    if away is not None:
        report.violations.append(
            Violation(
                relfolder, 1, "symlink", f"a symlink that leaves the brain ({away}): not read"
            )
        )
        return
    try:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries if entry.name.endswith(".md"))
    except OSError as exc:
        report.violations.append(Violation(relfolder, 1, "read", f"cannot list ({exc.strerror})"))
        return
    if len(names) > MAX_PROMPT_FILES:  # said, never silent
        report.violations.append(Violation(
            relfolder, 1, "read",
            f"holds {len(names)} templates; only the first {MAX_PROMPT_FILES} are checked "
            "(remove the ones tb distill does not read)",
            severity="warning",
        ))  # fmt: skip
    for name in names[:MAX_PROMPT_FILES]:
        path = folder / name
        report.files_checked += 1
        try:
            read_text_safely(path, layout.repo_root, max_bytes=MAX_PROMPT_BYTES)
        except FrontMatterError as exc:
            report.violations.append(
                Violation(layout.relative(path), exc.line or 1, exc.rule or "read", exc.message)
            )


def _lint_file(brain_file: BrainFile, report: LintReport) -> None:
    document = brain_file.document
    assert document is not None
    front = document.front
    path = brain_file.relpath
    add = report.violations.append
    name_problem = file_name_problem(path, front.id)
    if name_problem is not None:
        named = file_name_problem(path, None) is None  # the name is fine, the id is not its
        add(Violation(path, document.field_line("id") if named else 1, "path", name_problem))
    if brain_file.location == "memories":
        expected = class_for_folder(brain_file.folder)
        if expected is None:
            add(
                Violation(
                    path,
                    1,
                    "path",
                    "memories live directly in memories/{decisions,conventions,map,learnings}/",
                )
            )
        elif expected != front.class_:
            add(
                Violation(
                    path,
                    document.field_line("class"),
                    "path",
                    f"class {front.class_} does not match folder {brain_file.folder}/",
                )
            )
        if front.status != "active":
            add(
                Violation(
                    path,
                    document.field_line("status"),
                    "status-location",
                    "a retired memory belongs in retired/ (use `tb retire`)",
                )
            )
    elif front.status != "retired":
        add(
            Violation(
                path,
                document.field_line("status"),
                "status-location",
                "files in retired/ must have status: retired",
            )
        )
    words = count_words(document.body)
    body_line = _body_start_line(document.original or "", document.raw_body)
    if words == 0:
        add(Violation(path, body_line, "body", "body is empty"))
    elif words > MAX_BODY_WORDS:
        add(
            Violation(
                path,
                body_line,
                "body-words",
                f"body has {words} words; the limit is {MAX_BODY_WORDS}",
            )
        )
    commits = front.evidence.commits if front.evidence else []
    if len(commits) > MAX_EVIDENCE_CHECKED:
        add(
            Violation(
                path,
                document.field_line("evidence"),
                "evidence",
                f"lists {len(commits)} evidence commits; only the first {MAX_EVIDENCE_CHECKED} "
                "are checked (cite the few that show the change)",
                severity="warning",
            )
        )
    for finding in find_secrets(front.title + "\n" + " ".join(front.tags)):
        add(
            Violation(
                path, document.field_line("title"), "secret", f"{finding.rule} in front-matter"
            )
        )
    for finding in find_secrets(document.raw_body):
        add(Violation(path, body_line + finding.line - 1, "secret", f"{finding.rule} in body"))
    # A memory merged without `tb propose` skipped its injection scan: lint is the backstop.
    for where, injection in injection_findings(front.title, document.raw_body):
        if where == "title":
            line, message = document.field_line("title"), f"{injection.rule} in title: "
        else:
            line, message = body_line + injection.line - 1, f"{injection.rule}: "
        add(Violation(path, line, "injection", f"{message}{injection.excerpt!r}"))


def injection_findings(title: str, body: str) -> list[tuple[str, InjectionFinding]]:
    """The prompt injections a memory's ``title`` and ``body`` (as written in the file) hold,
    each with where (``title`` or ``body``): the gate lint applies to every memory and
    ``tb export`` to every memory it copies into an instruction file."""
    return [("title", f) for f in find_injections(title)] + [
        ("body", f) for f in find_injections(body)
    ]


def _body_start_line(original: str, raw_body: str) -> int:
    head = original[: len(original) - len(raw_body)] if raw_body else original
    return head.count("\n") + 1


def _lint_ids(brain: Brain, report: LintReport) -> None:
    seen: dict[str, str] = {}
    for brain_file in brain.files:
        if brain_file.document is None:
            continue
        memory_id = brain_file.document.front.id
        if memory_id in seen:
            report.violations.append(
                Violation(
                    brain_file.relpath,
                    brain_file.document.field_line("id"),
                    "duplicate-id",
                    f"id {memory_id} is also used by {seen[memory_id]}",
                )
            )
        else:
            seen[memory_id] = brain_file.relpath
    graph: dict[str, list[str]] = {}
    for brain_file in brain.files:
        if brain_file.document is None:
            continue
        front = brain_file.document.front
        graph[front.id] = list(front.supersedes)
        for target in front.supersedes:
            if target not in seen:
                report.violations.append(
                    Violation(
                        brain_file.relpath,
                        brain_file.document.field_line("supersedes"),
                        "supersedes",
                        f"supersedes unknown id {target}",
                    )
                )
    for cycle_start in _cycle_members(graph):
        brain_file = brain.by_id()[cycle_start]
        assert brain_file.document is not None
        report.violations.append(
            Violation(
                brain_file.relpath,
                brain_file.document.field_line("supersedes"),
                "supersedes",
                "supersedes chain forms a cycle",
            )
        )


def _lint_duplicate_content(brain: Brain, report: LintReport) -> None:
    """Two live memories with the same content under different ids (two proposals of one
    candidate, merged): agents would be served it twice. The first file (by path) keeps it."""
    from ._memory import content_hash

    first: dict[str, tuple[str, str]] = {}
    for brain_file in sorted(brain.files, key=lambda f: f.relpath):
        document = brain_file.document
        if document is None or brain_file.location == "retired":
            continue
        front = document.front
        digest = content_hash(front.class_, front.title, document.body, list(front.tags))
        if digest not in first:
            first[digest] = (front.id, brain_file.relpath)
            continue
        other_id, other_path = first[digest]
        if other_id == front.id:
            continue  # duplicate-id says it
        report.violations.append(
            Violation(
                brain_file.relpath,
                document.field_line("id"),
                "duplicate-content",
                f"same content as {other_id} ({other_path}); retire one of them",
            )
        )


def _lint_index(brain: Brain, report: LintReport) -> None:
    """INDEX.md must exist and be teambrain's; that it lags behind the memory files is a note.

    Proposals never touch INDEX.md (two pull requests that both edit one generated file would
    conflict, whatever the merge style); the default branch regenerates it after each merge
    (`tb reindex --index-md-only`, run by the brain's CI). Until then it lags, which is no
    problem of the brain."""
    index_path = brain.layout.index_md
    relpath = brain.layout.relative(index_path)
    report.files_checked += 1
    text = index_md_text(brain.layout)
    if text is None:
        what = (
            "not a regular file in the brain (a link out of it, a device, or too large)"
            if os.path.lexists(index_path)
            else "missing"
        )
        report.violations.append(
            Violation(relpath, 1, "index", f"{what}; run `tb reindex` to generate it")
        )
        return
    if not text.startswith(INDEX_HEADER):
        report.violations.append(
            Violation(
                relpath, 1, "index",
                "not the generated index (its header was changed or removed); "
                "run `tb reindex --index-md-only` to regenerate it",
            )
        )  # fmt: skip
        return
    expected = expected_index_text(brain)
    if text != expected:
        report.notes.append(Violation(relpath, 1, "index", _index_lag(text, expected), "note"))


def _index_lag(text: str, expected: str) -> str:
    """One line saying how far INDEX.md ``text`` lags behind ``expected``."""
    have = {line for line in text.splitlines() if line.startswith("- ")}
    want = {line for line in expected.splitlines() if line.startswith("- ")}
    added, gone = len(want - have), len(have - want)
    parts = [f"{added} entr{'y' if added == 1 else 'ies'} to add"] if added else []
    parts += [f"{gone} to update or remove"] if gone else []
    return (
        f"behind the memory files ({', '.join(parts) or 'order or headings'}); the default "
        "branch regenerates it after each merge (`tb reindex --index-md-only`)"
    )


def _lint_budget(
    brain: Brain, config: BrainConfig, report: LintReport, today: dt.date | None
) -> None:
    budget = config.retrieval.budget_tokens
    required = [
        f for f in brain.active
        if f.document is not None
        and f.document.front.priority == "required"
        and f.document.front.status == "active"
        and f.document.front.scope in config.scopes
        and not f.document.front.is_expired(today)
    ]  # fmt: skip
    cost = sum(
        memory_token_cost(f.document.front.id, f.document.front.title, f.document.body)
        for f in required
        if f.document
    )
    if cost > budget:
        report.violations.append(
            Violation(
                brain.layout.relative(brain.layout.brain_yaml),
                1,
                "required-budget",
                f"required memories need ~{cost} tokens but retrieval.budget_tokens is {budget}; "
                "every required memory is still served, over budget",
                severity="warning",
            )
        )


MAX_INDEX_BYTES = 16 * 1024 * 1024


def index_md_text(layout: BrainLayout) -> str | None:
    """INDEX.md's text, or None when it is missing or not a regular file inside the brain (a
    committed link to ``/dev/zero`` or ``/dev/stdin`` is refused, never read)."""
    from teambrain_kit.local_files import read_file_within

    try:
        data = read_file_within(layout.index_md, layout.root, max_bytes=MAX_INDEX_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")


def regenerate_index(layout: BrainLayout, reasons: Mapping[str, str] | None = None) -> bool:
    """Rewrite INDEX.md from the memory files (``reasons``: retirement reasons to record, by
    memory id); True when its content changed."""
    from teambrain_kit.atomic import write_text_atomic

    text = expected_index_text(load_brain(layout), reasons)
    path = layout.index_md
    if index_md_text(layout) == text:
        return False
    write_text_atomic(path, text)
    return True
