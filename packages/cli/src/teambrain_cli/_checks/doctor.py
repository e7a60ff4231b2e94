"""``tb doctor``: is this machine and repository ready? Each problem comes with a one-line fix."""

from __future__ import annotations

import os
import platform
import shutil
import stat
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from teambrain_kit.paths import BrainLayout, MachineLayout, find_repo_root
from teambrain_schema import BrainConfig, TeambrainError
from teambrain_schema.brain import ConfigProblem, load_brain_config

from .._console.extras import extra_install_command

# step: a one-time step only a person can take inside an agent tool installed on this machine
# (trust a folder, approve a server in the tool's own dialog); not a fault teambrain can fix, and
# doctor is ready once none is left. The same step for a tool not installed here is a note
# (``tool_installed`` false): to take inside the tool once it is used here, not a reason to say
# this machine is not ready.
DoctorStatus = Literal["ok", "problem", "note", "step"]
MIN_PYTHON = (3, 11)
MIN_GIT = (2, 25)


@dataclass
class Finding:
    """One readiness check: ``problem`` and ``step`` findings carry a one-line fix (for a step:
    what the person does, once, inside the tool) and make doctor exit 2. A tool's one-time
    step says whether the tool is installed here (``tool_installed``; None for other
    findings): when it is not, the step is a note with its fix, for later."""

    name: str
    status: DoctorStatus
    detail: str
    fix: str | None = None
    tool_installed: bool | None = None

    @property
    def later(self) -> bool:
        """A one-time step inside a tool not installed on this machine: nothing to do here."""
        return self.tool_installed is False and self.status == "note" and self.fix is not None

    def to_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class DoctorContext:
    """What the checks share: the machine layout, and the brain when there is one."""

    machine: MachineLayout
    repo: Path | None
    layout: BrainLayout | None
    config: BrainConfig | None


def check_python() -> Finding:
    version = platform.python_version()
    if sys.version_info[:2] < MIN_PYTHON:
        return Finding("python", "problem", f"Python {version}", "install Python 3.11 or newer")
    return Finding("python", "ok", f"Python {version} ({sys.executable})")


def _git_version() -> tuple[int, ...] | None:
    from teambrain_kit.git import git_output

    out = git_output(["--version"], cwd=Path.cwd() if Path.cwd().is_dir() else "/", timeout=10)
    if out is None:
        return None
    digits = [part for part in out.decode("utf-8", "replace").split() if part[:1].isdigit()]
    if not digits:
        return None
    return tuple(int(x) for x in digits[0].split(".")[:3] if x.isdigit())


def check_git() -> Finding:
    version = _git_version()
    if version is None:
        return Finding(
            "git", "problem", "git not found on PATH", "install git (https://git-scm.com/downloads)"
        )
    shown = ".".join(map(str, version))
    if version[:2] < MIN_GIT:
        return Finding("git", "problem", f"git {shown} is too old", "install git 2.25 or newer")
    return Finding("git", "ok", f"git {shown}")


def check_repository(ctx: DoctorContext) -> list[Finding]:
    if ctx.repo is None:
        return [
            Finding(
                "repository",
                "problem",
                f"{Path.cwd()} is not inside a git repository",
                "cd into your project, or `git init`",
            )
        ]
    found = [Finding("repository", "ok", str(ctx.repo))]
    if ctx.layout is None:
        found.append(
            Finding("brain", "problem", "no .teambrain/ in this repository", "run `tb init`")
        )
        return found
    found.append(Finding("brain", "ok", str(ctx.layout.root)))
    if (ctx.layout.root / ".git").exists():  # a submodule's gitlink file, or a nested clone
        found.append(
            Finding(
                "brain",
                "note",
                f"{ctx.layout.root.name} is a git repository of its own (a submodule or a nested "
                "clone): agents read it, but `tb propose` and `tb retire` commit in this "
                "repository's tree, where it is not a folder",
                f"make it a folder of this repository (`git rm {ctx.layout.root.name}`, copy "
                "the brain's files in, commit), or name it as an org brain (`tb help config`)",
            )
        )
    try:
        ctx.config = load_brain_config(ctx.layout)
    except ConfigProblem as exc:
        found.append(
            Finding(
                "brain.yaml",
                "problem",
                exc.message,
                f"fix {exc.relpath} line {exc.line} (see `tb help config`)",
            )
        )
        return found
    found.append(Finding("brain.yaml", "ok", "valid"))
    return found


def check_home(ctx: DoctorContext) -> Finding:
    home = ctx.machine.home
    if not home.exists():
        return Finding("teambrain home", "problem", f"{home} does not exist", "run `tb init`")
    mode = stat.S_IMODE(home.stat().st_mode)
    if mode & 0o077:
        return Finding(
            "teambrain home", "problem", f"{home} has mode {mode:o}", f"chmod 700 {home}"
        )
    if not os.access(home, os.W_OK):
        return Finding(
            "teambrain home", "problem", f"{home} is not writable", f"fix the ownership of {home}"
        )
    return Finding("teambrain home", "ok", f"{home} (mode 700)")


def _client_problem(module: str) -> str | None:
    """Why the model client ``module`` cannot be used here (not installed, or its import fails),
    or None when it imports. Imported by name: only distill uses it (the layering rule)."""
    import importlib
    import importlib.util

    if importlib.util.find_spec(module) is None:
        return "is not installed"
    try:
        importlib.import_module(module)
    except Exception as exc:
        return f"does not import: {exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return None


def check_distill(ctx: DoctorContext) -> Finding:
    if ctx.config is None:
        return Finding("distill", "note", "no brain.yaml: distill driver not configured")
    distill = ctx.config.distill
    if distill.plugin is None and distill.driver == "none":
        return Finding(
            "distill", "note",
            "no model configured yet: `tb distill` needs one (agents use the brain without it)",
            "pick a local or hosted model: `tb distill` prints the steps; `tb help distill-guide`",
        )  # fmt: skip
    if distill.driver == "fake":
        return Finding(
            "distill",
            "note",
            f"driver fake (recorded fixtures), model {distill.model}: no model is called",
        )
    from teambrain_distill import builtin_driver

    # The library the built-in driver imports when it sends (teambrain-cli's extra of its name).
    built_in = builtin_driver(distill.driver) if distill.plugin is None else None
    client = built_in.client if built_in is not None else None
    missing = _client_problem(client) if client is not None else None
    if missing is not None:
        return Finding(
            "distill", "problem",
            f"driver {distill.driver}: its client library {client} {missing}",
            extra_install_command(distill.driver),
        )  # fmt: skip
    if distill.api_key_env and not os.environ.get(distill.api_key_env):
        return Finding(
            "distill", "problem",
            f"driver {distill.driver}, model {distill.model}: ${distill.api_key_env} is not set",
            f"export {distill.api_key_env}=… (the value is never printed or stored)",
        )  # fmt: skip
    credential = f", credential ${distill.api_key_env} set" if distill.api_key_env else ""
    return Finding("distill", "ok", f"driver {distill.driver}, model {distill.model}{credential}")


def check_egress(ctx: DoctorContext) -> list[Finding]:
    """Each committed setting that sends data off this machine, and whether this machine
    approved it for this repository (not approved: not used, and a problem to look at), and
    the proxy requests leave through (when this machine names one, or the environment names
    one that is not used)."""
    from .._console.trust import egress_status, proxy_line

    if ctx.layout is None or ctx.config is None:
        return []
    statuses, approvals = egress_status(ctx.layout, ctx.config, ctx.machine)
    found = []
    network = proxy_line(approvals)
    if network is not None:
        found.append(Finding("proxy", "ok" if approvals.proxy else "note", network))
    if approvals.problem is not None:
        found.append(Finding(
            "approvals", "problem", f"{approvals.problem}: nothing is approved",
            f"remove or fix {approvals.path} (mode 600, yours, outside any repository)",
        ))  # fmt: skip
    for status in statuses:
        name = f"egress {status.egress.setting}"
        if status.state == "approved":
            found.append(Finding(name, "ok", status.line()))
            continue
        fallback = {
            "retrieval.embedder": "keyword search only until approved",
            "org_brain": "the org brain is not served until approved",
            "distill": "`tb distill` refuses to run until approved",
        }.get(status.egress.setting, "not used until approved")
        found.append(Finding(
            name, "problem", f"{status.line()}: {fallback}",
            "check the destination, then `tb trust` (asks) or `tb trust --yes`",
        ))  # fmt: skip
    return found


def check_user_config(ctx: DoctorContext) -> list[Finding]:
    """``user/config.toml`` reads (when there is one): a broken one silently loses the
    settings it holds, the org brain's place on this machine among them."""
    from teambrain_capture import USER_CONFIG_NAME, load_user_config, user_dir

    try:
        load_user_config(ctx.machine)
    except TeambrainError as exc:
        path = user_dir(ctx.machine) / USER_CONFIG_NAME
        return [Finding("user config", "problem", exc.message, f"fix or remove {path}")]
    return []


def check_org_brain(ctx: DoctorContext) -> list[Finding]:
    """Where this machine has the org brain brain.yaml names (this machine's
    ``$TEAMBRAIN_ORG_BRAIN`` or ``[org_brain] path`` in ``user/config.toml``, else the
    committed path), and a problem when it is not there."""
    import os

    from teambrain_kit.home import ORG_BRAIN_ENV
    from teambrain_retrieval import org_brain_location, org_brain_missing
    from teambrain_schema import BRAIN_DIRNAME

    if ctx.layout is None or ctx.config is None:
        return []
    found = org_brain_location(ctx.config, ctx.layout.repo_root)
    if found is None:
        machine = os.environ.get(ORG_BRAIN_ENV, "").strip()
        if machine and ctx.config.org_brain is None:
            return [Finding(
                "org brain", "note",
                f"this machine says the org brain is at {machine}, but brain.yaml names no "
                "org brain (`org_brain`): not served in this repository",
            )]  # fmt: skip
        return []
    path, source = found
    if not (path / BRAIN_DIRNAME).is_dir():
        fix = f"git clone <the org brain's URL> {path}, or export {ORG_BRAIN_ENV}=<where it is>"
        return [Finding("org brain", "problem", org_brain_missing(path, source), fix)]
    return [Finding("org brain", "ok", f"{path} (from {source})"), _org_read_policy(ctx, path)]


def _org_read_policy(ctx: DoctorContext, path: Path) -> Finding:
    """What this repository may read from the org brain: the read policies (AgentMemorySource)
    the org brain keeps under ``.teambrain/sources/`` that name it (docs/graph.md)."""
    from teambrain_kit.paths import BrainLayout
    from teambrain_schema.read_policy import load_read_policy

    assert ctx.layout is not None and ctx.config is not None
    repository = ctx.config.name or ctx.layout.repo_root.resolve().name
    policy, problems = load_read_policy(BrainLayout(path), repository)
    if problems:
        first = problems[0]
        return Finding(
            "org read policy", "problem",
            f"{first.relpath}:{first.line}: {first.message}"
            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
            "fix it in the org brain (`tb lint` there names every problem)",
        )  # fmt: skip
    if policy is None:
        return Finding(
            "org read policy", "ok",
            "none: every org-scoped memory and the whole org graph are served here",
        )  # fmt: skip
    if policy.reads_nothing:
        return Finding(
            "org read policy", "problem", policy.describe(),
            f"ask the org brain's owners to name {repository} in a source "
            "(.teambrain/sources/*.yaml there)",
        )  # fmt: skip
    return Finding("org read policy", "ok", policy.describe())


def check_distill_online(ctx: DoctorContext) -> Finding:
    """``--online`` only: one tiny request to the configured model endpoint (nothing of the
    brain or the sessions is sent)."""
    if ctx.config is None:
        return Finding("distill endpoint", "note", "no brain.yaml: no endpoint configured")
    from teambrain_distill import probe

    if ctx.layout is None:
        return Finding("distill endpoint", "note", "no brain here: no endpoint configured")
    layout = ctx.layout
    result = probe(
        ctx.config.distill, machine=ctx.machine, repo_root=layout.repo_root, brain_dir=layout.root
    )
    if result.ok:
        return Finding("distill endpoint", "ok", result.detail)
    return Finding(
        "distill endpoint", "problem", result.detail,
        "approve the destination with `tb trust`, start the model server, or fix "
        "distill.base_url / distill.model / the credential (`tb help distill-guide`)",
    )  # fmt: skip


def check_default_branch(ctx: DoctorContext, *, online: bool) -> list[Finding]:
    """The branch agents are served and proposals start from: the default branch of the
    repository the team merges into (``upstream`` in a fork) as last fetched — a problem when
    the remote renamed it (asked of the remote with ``online``, else as ``tb propose`` last
    asked) or, in a fork, when the project was never fetched."""
    if ctx.repo is None or ctx.layout is None:
        return []
    from teambrain_sync import check_remote_head, open_repo, remote_roles_of

    try:
        repo = open_repo(ctx.repo)
        roles = remote_roles_of(repo)
        if roles.base is None:
            return []
        moved = check_remote_head(repo, ctx.machine.proposals, ask=online)
    except TeambrainError:
        return []
    from teambrain_kit.gitdir import remote_default_branch

    fork = f"; proposals are pushed to {roles.push}" if roles.fork else ""
    if moved is not None:
        detail = f"{moved.what()}: agents are served, and proposals start from, the old one"
        return [Finding("default branch", "problem", detail, moved.fix)]
    found = remote_default_branch(str(repo.git_dir), str(repo.common_dir), roles.base)
    if found is None:
        return [Finding(
            "default branch", "problem",
            f"nothing fetched from {roles.base}, the repository your team merges into{fork}",
            f"git fetch {roles.base}",
        )]  # fmt: skip
    asked = " (the remote agrees)" if online else ""
    branch = found[0].removeprefix("refs/remotes/")
    return [Finding("default branch", "ok", f"{branch} as last fetched{asked}{fork}")]


def check_adapters_registry() -> Finding:
    """The bundled adapters.yaml agrees with the code registry."""
    from .._agent_tools.registry import check_adapters

    problems = check_adapters()
    if problems:
        first = problems[0]
        return Finding(
            "adapters.yaml",
            "problem",
            f"{len(problems)} disagreement(s) with the code registry: {first.message}",
            "reinstall teambrain-cli (it ships adapters.yaml and the tool modules)",
        )
    return Finding("adapters.yaml", "ok", "bundled adapters.yaml matches the code registry")


def _fix_plugin(name: str) -> str:
    """The fix for a broken adapter plugin, naming the package that declares it."""
    from .._agent_tools.registry import plugin_distribution

    package = plugin_distribution(name)
    if package is None:
        return "fix or uninstall the package that declares it"
    return f"fix or uninstall {package} (`pip uninstall {package}`)"


def check_installed_tools(ctx: DoctorContext) -> list[Finding]:
    """For each supported agent tool: wired in this repository or not, and whether the
    commands its config runs exist on PATH."""
    from teambrain_schema import EnvironmentProblem

    from .._agent_tools.install import plan_install
    from .._agent_tools.registry import (
        ADAPTERS,
        hook_reader_problem,
        plugin_adapter_problems,
        plugin_adapters,
    )

    if ctx.repo is None:
        return []
    findings = [
        Finding(f"adapter plugin {name}", "problem", problem, _fix_plugin(name))
        for name, problem in plugin_adapter_problems()
    ]
    for name, adapter in sorted(plugin_adapters().items()):
        problem = hook_reader_problem(adapter)
        if problem:
            findings.append(
                Finding(f"adapter plugin {name}", "problem", problem, _fix_plugin(name))
            )
    unwired: list[str] = []
    missing_commands = [name for name in ("tb", "tb-capture") if shutil.which(name) is None]
    for name, adapter in sorted({**plugin_adapters(), **ADAPTERS}.items()):
        label = f"tool {name}"
        try:
            plan = plan_install(adapter, ctx.repo)
        except EnvironmentProblem as exc:
            findings.append(
                Finding(label, "problem", exc.message, f"fix the file, then `tb install {name}`")
            )
            continue
        # Only this repository's files say whether the tool is wired *here*: a user-level config
        # (Windsurf's MCP file) mentions teambrain in every repository once installed anywhere.
        mentioned = any(
            change.before is not None
            and change.path.resolve().is_relative_to(ctx.repo.resolve())
            and ("teambrain" in change.before or "tb-capture" in change.before)
            for change in plan.files
        )
        if plan.changed and not mentioned:
            unwired.append(name)
        elif plan.changed:
            findings.append(
                Finding(
                    label, "problem", "wired only in part, or outdated", f"run `tb install {name}`"
                )
            )
        elif missing_commands:
            shown = " and ".join(missing_commands)
            verb = "are" if len(missing_commands) > 1 else "is"
            findings.append(
                Finding(
                    label,
                    "problem",
                    f"wired, but {shown} {verb} not on PATH",
                    "put the teambrain virtualenv's bin/ on PATH (or `pipx install teambrain-cli`)",
                )
            )
        else:
            findings.append(
                Finding(
                    label,
                    "ok",
                    f"wired ({', '.join(change.display for change in plan.files)}); tb and tb-capture found",
                )
            )
        if mentioned:
            findings += _user_step_findings(label, name, ctx.repo)
    if unwired:
        wired = sum(1 for f in findings if f.name.startswith("tool ") and ":" not in f.name)
        findings.append(
            Finding(
                "other tools" if wired else "agent tools",
                "note",
                f"{len(unwired)} {'more ' if wired else ''}agent tools can be wired here: "
                "`tb install --list` names them",
                "`tb install <tool>` wires one",
            )
        )
    return findings


def _user_step_findings(label: str, tool: str, repo: Path) -> list[Finding]:
    """What the tool itself still waits for from the user (trust, approval), read from its own
    files: a wired tool that never loads the wiring serves no memory and records nothing. A
    step of a tool installed here keeps this machine not ready (``step``); of a tool not
    installed here, it is a note for when it is (issue 42 point 8: doctor exited 2 for Claude
    Code's folder trust on a machine without Claude Code)."""
    from .._agent_tools.here import tool_here, user_steps

    steps = user_steps(tool, repo)
    here = tool_here(tool) if any(not step.done for step in steps) else None
    found = []
    for step in steps:
        name = f"{label}: {step.name}"
        if step.done:
            found.append(Finding(name, "ok", step.detail))
        elif here is not None and not here.installed:
            detail = f"{step.detail} — to do inside the tool once you use it here: {here.evidence}"
            found.append(Finding(name, "note", detail, step.fix, tool_installed=False))
        else:
            evidence = f" ({here.evidence})" if here is not None else ""
            found.append(Finding(name, "step", step.detail + evidence, step.fix, True))
    return found


def check_heartbeat(ctx: DoctorContext) -> Finding:
    """The MCP server's heartbeat: running, stopped cleanly, or died unannounced."""
    import datetime as dt

    from .._reports.status import serve_status

    status = serve_status(ctx.machine, ctx.layout, dt.datetime.now(dt.UTC))
    if status.state == "gone":
        return Finding("tb serve", "problem", f"a server died without stopping: {status.detail}",
                       f"restart the agent session; the server's errors are in {ctx.machine.logs}")  # fmt: skip
    return Finding(
        "tb serve",
        "ok" if status.state == "running" else "note",
        f"{status.state}: {status.detail}",
    )


def check_retrieval(ctx: DoctorContext) -> list[Finding]:
    """The search index (present, fresh against HEAD) and the embedder (loads, or why not)."""
    import datetime as dt

    from .._reports.status import retrieval_status

    if ctx.layout is None or ctx.config is None:
        return []
    index, embedder = retrieval_status(ctx.layout, ctx.machine, dt.datetime.now(dt.UTC))
    found = []
    if index.state == "fresh":
        found.append(Finding("index", "ok", index.detail))
    elif index.state == "stale":
        found.append(Finding("index", "note", index.detail))
    elif index.state == "missing":  # built by the first search, or `tb install`, `tb reindex`
        found.append(Finding("index", "note", index.detail, "`tb reindex` builds it now"))
    else:
        found.append(
            Finding("index", "problem", f"{index.state}: {index.detail}", "run `tb reindex`")
        )
    provider = ctx.config.retrieval.embedder.provider
    if embedder.state == "in use":
        found.append(Finding("embedder", "ok", embedder.detail))
    elif embedder.state == "configured":
        found.append(Finding("embedder", "note", embedder.detail))
    elif provider == "none":
        found.append(
            Finding("embedder", "note", "keyword search only (retrieval.embedder.provider: none)")
        )
    elif _embedder_unapproved(ctx):
        found.append(Finding(
            "embedder", "note",
            "keyword search only: this machine has not approved brain.yaml's embedder "
            "(see `egress retrieval.embedder`)",
        ))  # fmt: skip
    else:
        found.append(Finding(
            "embedder", "problem", f"{provider} embedder unavailable, searching by keywords only: {embedder.detail}",
            "reinstall teambrain-retrieval (it brings the model), or set retrieval.embedder.path to a model file",
        ))  # fmt: skip
    return found


def _embedder_unapproved(ctx: DoctorContext) -> bool:
    from teambrain_kit.egress import load_approvals
    from teambrain_retrieval import embedder_egress

    if ctx.layout is None or ctx.config is None:
        return False
    egress = embedder_egress(ctx.config.retrieval.embedder, ctx.layout.repo_root)
    approvals = load_approvals(ctx.machine, ctx.layout.repo_root)
    return not approvals.is_approved(ctx.layout.repo_root, egress)


def check_staleness(ctx: DoctorContext) -> list[Finding]:
    """Memories whose citations the code no longer bears out (a note: they are still served,
    marked, so agents can weigh them)."""
    if ctx.layout is None:
        return []
    from teambrain_kit.citation_checker import CitationChecker
    from teambrain_schema.brain import load_brain
    from teambrain_schema.staleness import followed_evidence, stale_memories

    try:
        brain = load_brain(ctx.layout)
        checker = CitationChecker(ctx.layout.repo_root)
        stale = stale_memories(ctx.layout, brain=brain, checker=checker)
        rewritten = [
            note
            for note in followed_evidence(ctx.layout, brain=brain, checker=checker)
            if note.fate.state == "rewritten"
        ]
    except Exception:  # a broken memory is lint's to report; doctor's verdict stands without it
        return []
    found = []
    if rewritten:
        count = len(rewritten)
        found.append(Finding(
            "evidence",
            "note",
            f"{count} evidence commit{'' if count == 1 else 's'} a squash or rebase merge rewrote "
            "(not stale: followed to what they became)",
            "tb propose --fix-citations",
        ))  # fmt: skip
    if not stale:
        ok = "every memory's cited paths, symbols and commands hold"
        return [Finding("citations", "ok", ok), *found]
    movable = sum(1 for memory in stale if memory.moves)
    detail = f"{len(stale)} memor{'y' if len(stale) == 1 else 'ies'} may be stale"
    if movable:
        detail += f" ({movable} cite code git saw move: `tb propose --fix-citations`)"
    return [Finding("citations", "note", detail + "; `tb lint` lists them", "tb lint"), *found]


def gather(machine: MachineLayout, *, online: bool = False) -> tuple[DoctorContext, list[Finding]]:
    """Run every readiness check available without the optional packages; ``online`` adds the
    checks that leave the machine (the distill endpoint answers; the remote says which branch
    is its default)."""
    repo = find_repo_root()
    layout = BrainLayout(repo) if repo is not None and BrainLayout(repo).root.is_dir() else None
    ctx = DoctorContext(machine=machine, repo=repo, layout=layout, config=None)
    findings = [
        check_python(), check_git(), *check_repository(ctx), check_home(ctx),
        *check_retrieval(ctx), *check_user_config(ctx), *check_org_brain(ctx), *check_egress(ctx),
        check_adapters_registry(), *check_installed_tools(ctx), check_distill(ctx),
        check_heartbeat(ctx), *check_staleness(ctx), *check_default_branch(ctx, online=online),
    ]  # fmt: skip
    if online:
        findings.append(check_distill_online(ctx))
    return ctx, findings
