"""``tb verify``: re-prove teambrain's privacy invariants on this machine, with evidence.

Each check returns PASS, FAIL (an invariant is violated) or UNVERIFIED (it could not run).
Checks read what is really installed and recorded; none of them writes anything.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_kit.secrets import find_secrets
from teambrain_schema import MAX_INTENT_CHARS, intent_summary
from teambrain_schema.brain import load_brain
from teambrain_schema.render import forged_header_lines, render_memory, rendering_problem

from .provenance import IndexUnreachable, InstalledDist, installed_teambrain_dists, verify_dist
from .results import CheckResult

if TYPE_CHECKING:
    from .._console.trust import EgressStatus

LLM_CLIENTS = frozenset(
    {"anthropic", "openai", "ollama", "instructor", "litellm", "google", "mistralai", "cohere", "groq", "vertexai", "langchain", "llama_index"}
)  # fmt: skip
ALLOWED_LLM_IMPORTERS = frozenset({"teambrain_distill"})
# What a file must hold for `_imported_modules` to find an LLM client in it: the client's name
# (an import statement spells it), a call that imports by a string (whose escapes or adjacent
# literals can spell it otherwise), or a non-ASCII byte on an import's line or on a continued
# line (identifiers are NFKC-normalised: `import ｏｐｅｎａｉ` imports openai; keywords are
# not). Only such files are parsed: `tb verify` spent 2 s parsing ~270 installed files, nearly
# all of which cannot import anything it looks for.
_IMPORT_SPELLINGS: Final = (
    rb"import_module",
    rb"__import__",
    rb"(?:import|from)[^\n]*[\x80-\xff]",
    rb"\\\r?\n[^\n]*[\x80-\xff]",
)
_MAY_IMPORT_AN_LLM: Final = re.compile(
    b"|".join([*_IMPORT_SPELLINGS, *(re.escape(name.encode()) for name in sorted(LLM_CLIENTS))])
)
MAX_EVIDENCE = 10


def _clip(evidence: list[str]) -> list[str]:
    if len(evidence) <= MAX_EVIDENCE:
        return evidence
    return [*evidence[:MAX_EVIDENCE], f"… and {len(evidence) - MAX_EVIDENCE} more"]


def check_spool_privacy(machine: MachineLayout) -> CheckResult:
    """The spool holds no raw prompt: intents ≤ 200 chars without secrets; no unknown fields."""
    from pydantic import ValidationError
    from teambrain_capture import list_candidates, read_jsonl, session_files
    from teambrain_schema import ENVELOPE_ADAPTER

    title = "The spool holds no raw prompt"
    problems: list[str] = []
    events = sessions = torn = 0
    for path in session_files(machine):
        sessions += 1
        read = read_jsonl(path)
        torn += read.torn
        for number, record in enumerate(read.records, start=1):
            events += 1
            where = f"{path.name} event {number}"
            try:
                ENVELOPE_ADAPTER.validate_python(record)
            except ValidationError as exc:
                error = exc.errors()[0]
                location = ".".join(str(p) for p in error.get("loc", ())[1:])
                kind = (
                    "unknown field"
                    if error.get("type") == "extra_forbidden"
                    else error.get("msg", "invalid")
                )
                problems.append(f"{where}: {location}: {kind}")
            data = record.get("data")
            texts = [json.dumps(data, ensure_ascii=False)]
            if record.get("ev") == "intent":
                summary = data if isinstance(data, str) else intent_summary(data)
                if len(summary) > MAX_INTENT_CHARS:
                    problems.append(
                        f"{where}: intent is {len(summary)} characters (limit {MAX_INTENT_CHARS}): a raw prompt?"
                    )
            for finding in find_secrets("\n".join(texts)):
                problems.append(f"{where}: a secret ({finding.rule}) was recorded")
    listing = list_candidates(machine)
    for candidate in listing.candidates:
        for finding in find_secrets(candidate.draft.title + "\n" + candidate.draft.body):
            problems.append(f"candidate {candidate.candidate_id}: a secret ({finding.rule})")
    for path, reason in listing.broken:
        problems.append(f"candidate file {path.name}: {reason}")
    checked = f"{events} events in {sessions} sessions, {len(listing.candidates)} candidates"
    if torn:
        checked += f" ({torn} torn lines skipped)"
    if problems:
        return CheckResult(
            "spool-privacy",
            title,
            "FAIL",
            f"{len(problems)} problem(s) in {checked}",
            _clip(problems),
            "inspect with `tb audit`; delete the offending spool files",
        )
    return CheckResult("spool-privacy", title, "PASS", f"checked {checked}")


def _work_tree_of(path: Path) -> tuple[str | None, bool]:
    """(the git work tree containing ``path`` or None, whether ``path`` is tracked there)."""
    from teambrain_kit.git import git_output

    out = git_output(["rev-parse", "--show-toplevel"], cwd=path, timeout=10)
    if out is None:
        return None, False
    top = out.decode("utf-8", "surrogateescape").strip()
    tracked = git_output(["ls-files", "--", str(path)], cwd=top, timeout=30)
    return top, bool(tracked and tracked.strip())


def check_machine_dirs(machine: MachineLayout) -> CheckResult:
    """Machine-local dirs are private (0700, files not readable by others) and outside git."""
    import shutil

    title = "Machine-local data is private and never in a repository"
    home = machine.home
    if not home.exists():
        return CheckResult(
            "machine-dirs", title, "PASS", f"{home} does not exist yet: nothing recorded"
        )
    problems: list[str] = []
    dirs = [home, machine.spool, machine.sessions, machine.candidates, machine.logs, home / "user"]
    for directory in (d for d in dirs if d.exists()):
        mode = stat.S_IMODE(directory.stat().st_mode)
        if mode & 0o077:
            problems.append(f"{directory}: mode {mode:o}, should be 700 (readable by others)")
    for directory in (machine.sessions, machine.candidates, home / "user"):
        for path in directory.glob("*") if directory.is_dir() else []:
            if path.is_file() and stat.S_IMODE(path.stat().st_mode) & 0o077:
                problems.append(f"{path}: readable by group or others")
    if shutil.which("git") is None:
        if problems:
            return CheckResult(
                "machine-dirs",
                title,
                "FAIL",
                problems[0],
                _clip(problems),
                f"chmod -R go-rwx {home}",
            )
        return CheckResult(
            "machine-dirs",
            title,
            "UNVERIFIED",
            "git is not installed: cannot tell whether the spool is inside a repository",
        )
    top, tracked = _work_tree_of(home)
    if top is not None:
        problems.append(
            f"{home} is inside the git work tree {top}" + (" and is tracked" if tracked else "")
        )
    if problems:
        return CheckResult(
            "machine-dirs",
            title,
            "FAIL",
            problems[0],
            _clip(problems),
            f"move TEAMBRAIN_HOME out of any repository; chmod -R go-rwx {home}",
        )
    return CheckResult(
        "machine-dirs",
        title,
        "PASS",
        f"{home}: mode 700, outside any git work tree, nothing tracked",
    )


def check_sync_user_isolation(machine: MachineLayout, repo_root: Path | None) -> CheckResult:
    """Exercise every sync operation under an audit hook: none opens anything under user/."""
    title = "Sync cannot read ~/.teambrain/user/"
    if importlib.util.find_spec("teambrain_sync") is None:
        return CheckResult(
            "sync-user-isolation", title, "UNVERIFIED", "teambrain-sync is not installed"
        )
    from .scratch import GIT_IDENTITY

    env = {**os.environ, **GIT_IDENTITY, "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "teambrain_cli._checks.sync_probe", str(machine.home), str(repo_root or "")],
            capture_output=True, text=True, check=False, timeout=180, env=env,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        return CheckResult(
            "sync-user-isolation", title, "UNVERIFIED", f"the sync probe could not run: {exc}"
        )
    if done.returncode != 0 or not done.stdout.strip():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return CheckResult(
            "sync-user-isolation", title, "UNVERIFIED", f"the sync probe could not run: {last}"
        )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    if report["accesses"]:
        return CheckResult(
            "sync-user-isolation",
            title,
            "FAIL",
            "sync touched files under user/",
            _clip(report["accesses"]),
        )
    return CheckResult(
        "sync-user-isolation",
        title,
        "PASS",
        "no access under user/ while exercising sync: " + ", ".join(report["exercised"]),
    )


def installed_teambrain_packages() -> dict[str, Path]:
    """Import name → directory of every installed teambrain package, as Python would import it."""
    found: dict[str, Path] = {}
    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if not name.startswith("teambrain-"):
            continue
        module = "teambrain_" + name.removeprefix("teambrain-").replace("-", "_")
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.submodule_search_locations:
            found[module] = Path(next(iter(spec.submodule_search_locations)))
    return dict(sorted(found.items()))


def _imported_modules(tree: ast.AST) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
        elif (
            isinstance(node, ast.Call)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (
                    isinstance(node.func, ast.Name)
                    and node.func.id in ("__import__", "import_module")
                )
            )
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.args[0].value, node.lineno))
    return found


def check_llm_imports(packages: dict[str, Path] | None = None) -> CheckResult:
    """No installed teambrain package but distill imports an LLM client (reads installed code)."""
    title = "Only teambrain-distill imports LLM clients"
    packages = installed_teambrain_packages() if packages is None else packages
    if not packages:
        return CheckResult(
            "llm-imports", title, "UNVERIFIED", "no installed teambrain package found"
        )
    problems: list[str] = []
    files = 0
    for module, directory in packages.items():
        if module in ALLOWED_LLM_IMPORTERS:
            continue
        for source in sorted(directory.rglob("*.py")):
            files += 1
            try:
                data = source.read_bytes()
                if not _MAY_IMPORT_AN_LLM.search(data):
                    continue
                tree = ast.parse(data, filename=str(source))
            except (SyntaxError, ValueError, OSError) as exc:
                problems.append(f"{source}: cannot parse ({exc.__class__.__name__})")
                continue
            for name, line in _imported_modules(tree):
                if name.split(".")[0] in LLM_CLIENTS:
                    problems.append(f"{source}:{line}: imports {name}")
    scanned = ", ".join(sorted(m for m in packages if m not in ALLOWED_LLM_IMPORTERS))
    if problems:
        return CheckResult(
            "llm-imports",
            title,
            "FAIL",
            problems[0],
            _clip(problems),
            "reinstall teambrain from a trusted source",
        )
    return CheckResult(
        "llm-imports", title, "PASS", f"{files} installed files of {scanned}: no LLM client import"
    )


Renderer = Callable[[str, str], str]


def check_memory_fences(
    layout: BrainLayout | None, renderer: Renderer = render_memory
) -> CheckResult:
    """Every live memory renders inside its fence, and none impersonates another memory."""
    title = "Every live memory renders inside its fence"
    if layout is None:
        return CheckResult(
            "memory-fences",
            title,
            "UNVERIFIED",
            "not inside a repository with a brain: no memories to check",
        )
    brain = load_brain(layout)
    problems: list[str] = []
    live = [
        f for f in brain.active if f.document is not None and f.document.front.status == "active"
    ]
    for brain_file in live:
        assert brain_file.document is not None
        front, body = brain_file.document.front, brain_file.document.body
        problem = rendering_problem(front.id, renderer(front.id, body))
        if problem:
            problems.append(f"{brain_file.relpath}: {problem}")
        for line in forged_header_lines(body):
            problems.append(
                f"{brain_file.relpath}: body line {line} impersonates another memory's header"
            )
    if problems:
        return CheckResult(
            "memory-fences",
            title,
            "FAIL",
            problems[0],
            _clip(problems),
            "retire or fix the memory (`tb retire <id> <reason>`)",
        )
    return CheckResult(
        "memory-fences", title, "PASS", f"{len(live)} live memories render inside their fences"
    )


def check_egress(machine: MachineLayout, layout: BrainLayout | None) -> CheckResult:
    """Nothing leaves for a destination this machine has not approved: every committed setting
    that sends data is listed with its approval state, and the approvals file is this user's
    alone (one anybody else could write would approve for them)."""
    from teambrain_kit.egress import load_approvals
    from teambrain_schema import TeambrainError
    from teambrain_schema.brain import load_brain_config

    from .._console.trust import egress_status, proxy_line

    title = "brain.yaml sends nothing where this machine has not approved"
    if layout is None:
        approvals = load_approvals(machine)
        if approvals.problem is not None:
            return CheckResult(
                "egress", title, "FAIL", approvals.problem, fix=f"remove {approvals.path}"
            )
        return CheckResult(
            "egress", title, "UNVERIFIED",
            "not inside a repository with a brain: no settings to check",
        )  # fmt: skip
    try:
        statuses, approvals = egress_status(layout, load_brain_config(layout), machine)
    except TeambrainError as exc:
        return CheckResult("egress", title, "UNVERIFIED", f"cannot read brain.yaml: {exc.message}")
    evidence = [status.line() for status in statuses]
    network = proxy_line(approvals)
    if network is not None:
        evidence.append(network)
    for line in (_fetch_line(), _publish_line(machine, statuses)):
        if line is not None:
            evidence.append(line)
    if approvals.problem is not None:
        return CheckResult(
            "egress", title, "FAIL", f"{approvals.problem}: approvals there are ignored",
            _clip(evidence),
            f"remove {approvals.path}, then approve again with `tb trust` (mode 600, yours)",
        )  # fmt: skip
    if not statuses:
        return CheckResult(
            "egress", title, "PASS", "brain.yaml sends nothing off this machine", evidence
        )
    waiting = sum(1 for s in statuses if s.state != "approved")
    summary = (
        f"{len(statuses)} setting(s) send data off this machine: {len(statuses) - waiting} approved"
    )
    if waiting:
        summary += f", {waiting} not approved and not used (`tb trust`)"
    return CheckResult("egress", title, "PASS", summary, _clip(evidence))


def _fetch_line() -> str | None:
    """The network ``tb serve`` itself makes on this machine's say (``[serve] fetch_minutes``):
    a fetch of the default branch from the clone's own remote; None when it makes none."""
    from teambrain_retrieval import live_settings

    settings = live_settings()
    if not settings.live or settings.fetch_minutes <= 0:
        return None
    return (
        f"tb serve fetches the default branch from this clone's remote every "
        f"{settings.fetch_minutes:g} min (this machine's [serve] fetch_minutes; downloads only)"
    )


def _publish_line(machine: MachineLayout, statuses: Sequence[EgressStatus]) -> str | None:
    """What ``tb digest --publish`` may send on this machine's say (``[digest]
    publish_to_team``): its weekly figures to the shared database; None when not opted in."""
    from teambrain_capture import load_user_config
    from teambrain_schema import TeambrainError

    try:
        opted_in = load_user_config(machine).publish_to_team
    except TeambrainError:
        return None  # tb doctor names an unreadable user/config.toml
    if not opted_in:
        return None
    shared = any(s.egress.setting == "retrieval.backend" for s in statuses)
    return (
        "tb digest --publish sends this machine's weekly digest figures (suppressed; memory ids, "
        "no sessions, paths or text) to "
        + ("the shared database above" if shared else "nothing here: this brain has none")
        + " (this machine's [digest] publish_to_team)"
    )


def check_index(machine: MachineLayout) -> CheckResult:
    """The index holds only brains present on this machine and no retired memory's text."""
    title = "The index holds only brains here and no retired memory"
    try:
        from teambrain_retrieval import inventory_index

        inventory = inventory_index(machine)
    except ImportError:
        return CheckResult("index", title, "UNVERIFIED", "teambrain-retrieval is not installed")
    except Exception as exc:  # a damaged file: the check cannot run, it is not a violation
        return CheckResult(
            "index",
            title,
            "UNVERIFIED",
            f"cannot read {machine.index_db}: {exc}",
            fix="run `tb reindex` (the index is derived)",
        )
    if inventory is None:
        return CheckResult("index", title, "PASS", f"no index on this machine ({machine.index_db})")
    problems = [
        f"brain {b.brain} ({b.documents} documents) from {b.root or 'an unknown place'} is no longer on this machine"
        for b in inventory.brains
        if not b.present
    ]
    problems += [
        f"retired memory still has text in the index: {entry}"
        for entry in inventory.retired_with_text
    ]
    if problems:
        return CheckResult(
            "index",
            title,
            "FAIL",
            problems[0],
            _clip(problems),
            "run `tb reindex --prune` (the index is derived; deleting it loses nothing)",
        )
    brains = ", ".join(f"{b.brain} ({b.documents})" for b in inventory.brains) or "none"
    return CheckResult(
        "index",
        title,
        "PASS",
        f"brains: {brains}; {inventory.retired_tombstones} retired memories kept as text-free tombstones",
    )


def check_provenance(
    dists: list[InstalledDist] | None = None, index: str | None = None
) -> CheckResult:
    """Installed teambrain packages are byte for byte what the package index publishes.

    Offline, or for packages installed from a local source tree, this is UNVERIFIED, never PASS.
    """
    title = "Provenance of the installed teambrain packages"
    dists = installed_teambrain_dists() if dists is None else dists
    if not dists:
        return CheckResult(
            "provenance", title, "UNVERIFIED", "no installed teambrain package found"
        )
    try:
        findings = [verify_dist(dist, index) for dist in dists]
    except IndexUnreachable as exc:
        return CheckResult(
            "provenance",
            title,
            "UNVERIFIED",
            f"offline: cannot reach the package index ({exc})",
            fix="re-run `tb verify` with network access",
        )
    evidence = [f"{f.dist}: {f.detail}" for f in findings]
    if any(f.verdict == "mismatch" for f in findings):
        bad = next(f for f in findings if f.verdict == "mismatch")
        return CheckResult(
            "provenance",
            title,
            "FAIL",
            f"{bad.dist}: {bad.detail}",
            _clip(evidence),
            "reinstall teambrain from PyPI",
        )
    if any(f.verdict == "unverifiable" for f in findings):
        first = next(f for f in findings if f.verdict == "unverifiable")
        return CheckResult(
            "provenance",
            title,
            "UNVERIFIED",
            f"{first.dist}: {first.detail}",
            _clip(evidence),
            "install released packages from PyPI to make them attestable",
        )
    return CheckResult(
        "provenance",
        title,
        "PASS",
        f"{len(findings)} packages match their published wheels",
        _clip(evidence),
    )
