"""A team on one machine, for multi-developer tests: one bare remote, several developers (each a
clone with its own ``TEAMBRAIN_HOME``, ``HOME`` and git identity) and a ``gh`` stand-in on
``PATH`` that keeps pull requests in a JSON file and merges them with real git in GitHub's three
styles (see ``gh_standin.py``). Everything runs the real installed ``tb`` and the real
``tb serve`` over stdio; nothing reaches the network.

Use the ``team_factory`` fixture (tests-integration/conftest.py)::

    def test_two_developers(team_factory):
        team = team_factory(("ada", "bob"))             # demo brain + code, pushed to the remote
        ada, bob = team["ada"], team["bob"]
        out = ada.propose(DRAFT)                         # `tb propose --draft … --json` → dict
        pr = team.pr_for(out["branch"])                  # the PR `tb` opened through gh
        team.merge(pr["number"], "squash")               # the maintainer presses the button
        bob.pull()                                       # fetch --prune + fast-forward main
        assert team.lint_default()["ok"]                 # `tb lint --json` on the default branch

    async def test_an_agent(team_factory):
        team = team_factory(("ada",))
        async with team["ada"].serve() as client:       # `tb serve` in ada's clone, ada's home
            result = await client.call_tool("memory_search", {"query": "checkout"})

Forks: ``team.add_fork_developer("fay", layout="gh")`` gives a developer their own fork of the
project (a bare repository of its own, registered with the ``gh`` stand-in as ``fay/brain``),
reached, like the project, through GitHub-style URLs (``https://github.example/team/brain.git``,
mapped to the bare repositories by the developer's ``url.<path>.insteadOf``). ``layout="gh"``
is what ``gh repo fork --clone`` makes (``origin`` the fork, ``upstream`` the project, marked
``gh-resolved = base``); ``layout="push-default"`` keeps ``origin`` for the project and pushes
to a ``fork`` remote through ``remote.pushDefault``. ``team.rename_default_branch("trunk")``
renames the project's default branch as GitHub does (open pull requests retargeted).

``team_factory(names, brain="demo"|"empty", gh=True, embedder="local")``: ``brain="empty"`` is
a new brain (``tb init`` only, no memories, no code); ``gh=False`` leaves ``gh`` off ``PATH``
(teambrain then works without a forge); ``embedder="none"`` makes the brain keyword-only, so
no ``tb`` loads the embedding model (for tests about git rather than similarity). ``Team.merge`` returns the finished ``gh`` process (exit 1 with "not
mergeable" on a conflict, which ``Team.conflicts`` records); pass ``check=True`` to fail the
test on anything but a clean merge. This module's API is kept stable for other tests to build
on: add to it, do not change what exists.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import forkserver

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BIN = Path(sys.executable).parent
DEMO_MEMORIES = ROOT / "demo" / "brain" / "memories"
DEMO_APP = ROOT / "demo" / "app"
GH_STANDIN = HERE / "gh_standin.py"
MergeStyle = Literal["merge", "squash", "rebase"]
STYLES: tuple[MergeStyle, ...] = ("merge", "squash", "rebase")
BrainKind = Literal["demo", "empty"]
ForkLayout = Literal["gh", "push-default"]
TIMEOUT_S = 180
FORGE = "https://github.example"
PROJECT = "team/brain"  # the gh stand-in's name of the project


def tb_executable() -> str:
    """The installed ``tb`` console script of this environment."""
    found = shutil.which("tb", path=str(BIN)) or shutil.which("tb")
    assert found, "tb is not installed in this environment (run `make install`)"
    return found


def _git(
    *args: str, cwd: Path, env: dict[str, str] | None = None, check: bool = True,
    input: str | None = None,
) -> str:  # fmt: skip
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False,
        timeout=TIMEOUT_S, input=input,
    )  # fmt: skip
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} in {cwd} failed: {done.stderr.strip()}")
    return done.stdout


def _identity_env(name: str, email: str) -> dict[str, str]:
    return {
        "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email,
    }  # fmt: skip


def build_seed(where: Path, kind: BrainKind, *, embedder: str = "local") -> Path:
    """A bare repository holding a committed brain (and, for ``demo``, the demo application
    the demo memories cite), made with the real ``tb init``: the template every team copies.
    ``embedder``: the brain's ``retrieval.embedder.provider`` (``none``: keywords only, no
    model loaded by any ``tb`` — for tests about git, not about similarity)."""
    work = where / f"seed-{kind}-{embedder}"
    repo = work / "repo"
    repo.mkdir(parents=True)
    home = work / "home"
    (home / "user-home").mkdir(parents=True)
    gitconfig = home / "user-home" / ".gitconfig"
    gitconfig.write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    env = {
        **os.environ, **_identity_env("Team Lead", "lead@team.example"),
        "TEAMBRAIN_HOME": str(home / "teambrain"), "HOME": str(home / "user-home"),
        "GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1",
    }  # fmt: skip
    _git("init", "-q", "-b", "main", cwd=repo, env=env)
    if kind == "demo":
        shutil.copytree(DEMO_APP, repo, dirs_exist_ok=True)
    else:
        (repo / "README.md").write_text("# a new project\n")
    done = subprocess.run(
        [tb_executable(), "init"], cwd=repo, env=env, capture_output=True, text=True,
        check=False, timeout=TIMEOUT_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    brain_yaml = repo / ".teambrain" / "brain.yaml"
    text = brain_yaml.read_text("utf-8")
    assert "    provider: local\n" in text
    brain_yaml.write_text(text.replace("    provider: local\n", f"    provider: {embedder}\n"))
    if kind == "demo":
        from teambrain_kit.paths import BrainLayout
        from teambrain_schema.lint import regenerate_index

        shutil.copytree(DEMO_MEMORIES, repo / ".teambrain" / "memories", dirs_exist_ok=True)
        regenerate_index(BrainLayout(repo))  # what `tb reindex` writes, without embedding
    _git("add", "-A", cwd=repo, env=env)
    _git("commit", "-q", "-m", "teambrain: the team's brain", cwd=repo, env=env)
    bare = work / "remote.git"
    _git("clone", "-q", "--bare", str(repo), str(bare), cwd=work, env=env)
    return bare


@dataclass
class Developer:
    """One developer's machine: a clone, a ``TEAMBRAIN_HOME``, a ``HOME`` and an identity."""

    name: str
    clone: Path
    home: Path  # TEAMBRAIN_HOME
    env: dict[str, str]
    team: Team = field(repr=False)
    fork: Path | None = None  # a developer with a fork: its bare repository
    base_remote: str = "origin"  # the remote of the project (``upstream`` in gh's fork layout)

    @property
    def email(self) -> str:
        return self.env["GIT_AUTHOR_EMAIL"]

    def tb(
        self, *args: str, input: str | None = None, cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:  # fmt: skip
        """Run the installed ``tb`` in this developer's clone, as this developer."""
        return forkserver.run(
            [tb_executable(), *args], cwd=cwd or self.clone, env={**self.env, **(env or {})},
            input=input, timeout=TIMEOUT_S,
        )  # fmt: skip

    def tb_json(self, *args: str, codes: Sequence[int] = (0,), input: str | None = None) -> Any:
        """``tb <args> --json``, parsed; fails the test unless it exits with one of ``codes``."""
        done = self.tb(*args, "--json", input=input)
        assert done.returncode in codes, (
            f"{self.name}: tb {' '.join(args)} exited {done.returncode}\n"
            f"stdout: {done.stdout}\nstderr: {done.stderr}"
        )
        try:
            return json.loads(done.stdout)
        except json.JSONDecodeError as exc:
            raise AssertionError(f"{self.name}: tb {' '.join(args)}: not JSON: {done.stdout!r}"
                                 f" {done.stderr!r}") from exc  # fmt: skip

    def git(
        self, *args: str, check: bool = True, input: str | None = None,
        env: dict[str, str] | None = None,
    ) -> str:  # fmt: skip
        """Run git in the clone as this developer (``env``: added to theirs); stdout."""
        return _git(*args, cwd=self.clone, env={**self.env, **(env or {})}, check=check,
                    input=input)  # fmt: skip

    def fetch(self) -> None:
        """``git fetch --prune`` of every remote: the branches as they are now."""
        self.git("fetch", "-q", "--prune", "--all")

    def pull(self) -> None:
        """Fetch and bring the checked-out branch up to the project's default branch."""
        self.fetch()
        self.git("merge", "-q", "--ff-only", f"{self.base_remote}/{self.team.default_branch()}")

    def draft_file(self, draft: dict[str, Any]) -> Path:
        """``draft`` written as a JSON draft file in this developer's scratch directory."""
        scratch = self.home.parent / "drafts"
        scratch.mkdir(exist_ok=True)
        path = scratch / f"draft-{len(list(scratch.iterdir())):03d}.json"
        path.write_text(json.dumps(draft), "utf-8")
        return path

    def propose(self, draft: dict[str, Any], *args: str, codes: Sequence[int] = (0,)) -> Any:
        """``tb propose --draft <draft> --json <args>``, parsed."""
        return self.tb_json("propose", "--draft", str(self.draft_file(draft)), *args, codes=codes)

    def retire(self, memory_id: str, reason: str, *args: str, codes: Sequence[int] = (0,)) -> Any:
        """``tb retire <id> <reason> --json <args>``, parsed."""
        return self.tb_json("retire", memory_id, reason, *args, codes=codes)

    def machine(self) -> Any:
        """This developer's machine-local layout (a ``teambrain_schema.MachineLayout``)."""
        from teambrain_kit.paths import MachineLayout

        return MachineLayout(self.home)

    @asynccontextmanager
    async def serve(self, *args: str, env: dict[str, str] | None = None) -> AsyncIterator[Any]:
        """The real ``tb serve`` over stdio in this clone, as an MCP client session (use it from
        an anyio test: ``async with dev.serve() as client``)."""
        from mcp import Client, StdioServerParameters

        params = StdioServerParameters(
            command=tb_executable(), args=["serve", *args], cwd=self.clone,
            env={**self.env, **(env or {})},
        )  # fmt: skip
        async with Client(params) as client:
            yield client

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """One MCP tool call on a fresh ``tb serve`` (from synchronous code); the result's
        structured content, or an AssertionError carrying the tool's error text."""
        import anyio

        async def once() -> Any:
            async with self.serve() as client:
                result = await client.call_tool(name, arguments)
                if result.is_error:
                    raise AssertionError(f"{name} failed: {result.content[0].text}")
                return result.structured_content

        return anyio.run(once)


@dataclass
class Team:
    """The remote, the ``gh`` stand-in's state and the developers."""

    root: Path
    remote: Path
    gh_bin: Path | None
    gh_state: Path
    developers: dict[str, Developer] = field(default_factory=dict)
    maintainer: Developer | None = None

    def __getitem__(self, name: str) -> Developer:
        return self.developers[name]

    def add_developer(self, name: str, *, gh: bool = True) -> Developer:
        """A new machine: its own clone, home, identity and ``gh`` login."""
        base, env = self._machine(name, gh=gh)
        clone = base / "clone"
        _git("clone", "-q", str(self.remote), str(clone), cwd=base, env=env)
        developer = Developer(name, clone, base / "teambrain", env, self)
        self.developers[name] = developer
        return developer

    def _machine(self, name: str, *, gh: bool) -> tuple[Path, dict[str, str]]:
        """A new machine's folder and environment: home, identity, git config, ``gh``."""
        base = self.root / name
        user_home = base / "user-home"
        user_home.mkdir(parents=True)
        email = f"{name}@team.example"
        gitconfig = user_home / ".gitconfig"
        gitconfig.write_text(
            f"[user]\n\tname = {name.title()}\n\temail = {email}\n"
            "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
            # the forge's URLs, mapped onto the bare repositories on this machine
            f'[url "{self.remote}"]\n\tinsteadOf = {FORGE}/{PROJECT}.git\n'
        )
        path = os.environ.get("PATH", "")
        env = {
            **os.environ, **_identity_env(name.title(), email),
            "TEAMBRAIN_HOME": str(base / "teambrain"), "HOME": str(user_home),
            "GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1",
            "GH_STANDIN_STATE": str(self.gh_state), "GH_STANDIN_REMOTE": str(self.remote),
            "GH_STANDIN_USER": name,
            "PATH": f"{self.gh_bin}{os.pathsep}{path}" if gh and self.gh_bin else _without_gh(path),
        }  # fmt: skip
        env.pop("TEAMBRAIN_DEBUG", None)
        return base, env

    def add_fork_developer(
        self, name: str, *, layout: ForkLayout = "gh", gh: bool = True
    ) -> Developer:
        """A new machine that works from a fork of the project: the fork is a copy of the
        project's default branch as it is now (stale from then on), registered with the ``gh``
        stand-in as ``<name>/brain``; the clone is laid out as ``layout`` says (see the module
        docstring). Every remote is fetched."""
        base, env = self._machine(name, gh=gh)
        fork = self.root / "forks" / f"{name}.git"
        fork.parent.mkdir(exist_ok=True)
        default = self.default_branch()
        _git("init", "-q", "--bare", "-b", default, str(fork), cwd=base, env=env)
        _git("--git-dir", str(fork), "fetch", "-q", str(self.remote),
             f"refs/heads/{default}:refs/heads/{default}", cwd=base, env=env)  # fmt: skip
        fork_url = f"{FORGE}/{name}/brain.git"
        with open(env["GIT_CONFIG_GLOBAL"], "a", encoding="utf-8") as config:
            config.write(f'[url "{fork}"]\n\tinsteadOf = {fork_url}\n')
        data = self.state()
        data.setdefault("repos", {})[f"{name}/brain"] = str(fork)
        self.gh_state.write_text(json.dumps(data), "utf-8")
        clone = base / "clone"
        project_url = f"{FORGE}/{PROJECT}.git"
        if layout == "gh":  # gh repo fork --clone
            _git("clone", "-q", fork_url, str(clone), cwd=base, env=env)
            _git("remote", "add", "upstream", project_url, cwd=clone, env=env)
            _git("config", "--add", "remote.upstream.gh-resolved", "base", cwd=clone, env=env)
            base_remote = "upstream"
        else:
            _git("clone", "-q", project_url, str(clone), cwd=base, env=env)
            _git("remote", "add", "fork", fork_url, cwd=clone, env=env)
            _git("config", "remote.pushDefault", "fork", cwd=clone, env=env)
            base_remote = "origin"
        _git("fetch", "-q", "--all", cwd=clone, env=env)
        developer = Developer(name, clone, base / "teambrain", env, self, fork, base_remote)
        self.developers[name] = developer
        return developer

    # -- pull requests ---------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The ``gh`` stand-in's whole state (pull requests, conflicts, calls)."""
        if not self.gh_state.is_file():
            return {"prs": [], "conflicts": [], "calls": []}
        data: dict[str, Any] = json.loads(self.gh_state.read_text("utf-8"))
        return data

    def prs(self, state: str | None = None) -> list[dict[str, Any]]:
        """Every pull request, oldest first (``state``: OPEN, CLOSED or MERGED only)."""
        return [pr for pr in self.state()["prs"] if state is None or pr["state"] == state]

    def pr_for(self, branch: str) -> dict[str, Any]:
        """The newest pull request whose head is ``branch``."""
        found = [pr for pr in self.prs() if pr["headRefName"] == branch]
        assert found, f"no pull request for {branch}: {[p['headRefName'] for p in self.prs()]}"
        return found[-1]

    @property
    def conflicts(self) -> list[dict[str, Any]]:
        """Every merge the stand-in refused for a conflict: number, style, files."""
        return list(self.state()["conflicts"])

    def gh_calls(self, user: str | None = None) -> list[list[str]]:
        """The argument lists ``gh`` was called with (by ``user`` only, when given)."""
        return [c["argv"] for c in self.state()["calls"] if user is None or c["user"] == user]

    def gh(self, *args: str, who: Developer | None = None) -> subprocess.CompletedProcess[str]:
        """Run the ``gh`` stand-in as ``who`` (default: the maintainer) in their clone."""
        assert self.gh_bin is not None, "this team has no gh"
        actor = who or self.maintainer
        assert actor is not None
        return subprocess.run(
            [str(self.gh_bin / "gh"), *args], cwd=actor.clone, env=actor.env,
            capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
        )  # fmt: skip

    def merge(
        self, pr: int | str, style: MergeStyle, *, delete_branch: bool = True, check: bool = False
    ) -> subprocess.CompletedProcess[str]:
        """``gh pr merge <pr> --<style> [--delete-branch]`` as the maintainer."""
        args = ["pr", "merge", str(pr), f"--{style}"] + (
            ["--delete-branch"] if delete_branch else []
        )
        done = self.gh(*args)
        if check:
            assert done.returncode == 0, f"merging #{pr} ({style}): {done.stderr}"
        return done

    def close(
        self, pr: int | str, *, delete_branch: bool = False
    ) -> subprocess.CompletedProcess[str]:
        """``gh pr close <pr> [--delete-branch]`` as the maintainer."""
        return self.gh("pr", "close", str(pr), *(["--delete-branch"] if delete_branch else []))

    def set_gh_auth(self, logged_in: bool) -> None:
        """Log every developer's ``gh`` in or out (``gh auth status`` succeeds or fails)."""
        data = self.state()
        data["auth"] = logged_in
        self.gh_state.write_text(json.dumps(data), "utf-8")

    # -- the default branch ----------------------------------------------------------------------

    def default_branch(self) -> str:
        """The name of the remote's default branch (``main``, unless renamed)."""
        return _git("symbolic-ref", "--short", "HEAD", cwd=self.remote).strip() or "main"

    def default_tip(self) -> str:
        """The commit the remote's default branch points at."""
        return _git("rev-parse", f"refs/heads/{self.default_branch()}", cwd=self.remote).strip()

    def default_checkout(self) -> Path:
        """The maintainer's clone, brought up to the remote's default branch (read-only use)."""
        assert self.maintainer is not None
        self.maintainer.fetch()
        self.maintainer.git("checkout", "-q", "--detach", f"origin/{self.default_branch()}")
        return self.maintainer.clone

    def rename_default_branch(self, new: str) -> None:
        """Rename the remote's default branch, as GitHub's settings do: the branch and the
        remote's HEAD move, open pull requests are retargeted. Clones learn it when they ask
        (a plain ``git fetch`` keeps a stale ``origin/<old>`` and ``origin/HEAD``)."""
        old = self.default_branch()
        _git("branch", "-m", old, new, cwd=self.remote)
        _git("symbolic-ref", "HEAD", f"refs/heads/{new}", cwd=self.remote)
        data = self.state()
        for pr in data["prs"]:
            if pr["state"] == "OPEN" and pr["baseRefName"] == old:
                pr["baseRefName"] = new
        self.gh_state.write_text(json.dumps(data), "utf-8")

    def lint_default(self, *args: str, in_process: bool = False) -> dict[str, Any]:
        """``tb lint --json`` on the remote's default branch as it is now (``in_process``:
        through the console script's entry point in this process, several times faster, for
        tests that lint after every one of many merges)."""
        assert self.maintainer is not None
        checkout = self.default_checkout()
        if in_process:
            code, out, err = tb_in_process(["lint", "--json", *args], cwd=checkout,
                                           env=self.maintainer.env)  # fmt: skip
        else:
            done = self.maintainer.tb("lint", "--json", *args)
            code, out, err = done.returncode, done.stdout, done.stderr
        assert code in (0, 3), err
        data: dict[str, Any] = json.loads(out)
        return data

    def snapshot(self, where: Path) -> None:
        """Copy the remote and the pull requests to ``where`` (see :meth:`restore`)."""
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        shutil.copytree(self.remote, where / "remote.git", symlinks=True)
        if self.gh_state.is_file():
            shutil.copy2(self.gh_state, where / "gh-state.json")

    def restore(self, where: Path) -> None:
        """Put the remote and the pull requests back as :meth:`snapshot` saved them (clones
        see it at their next fetch)."""
        shutil.rmtree(self.remote)
        shutil.copytree(where / "remote.git", self.remote, symlinks=True)
        if (where / "gh-state.json").is_file():
            shutil.copy2(where / "gh-state.json", self.gh_state)


def tb_in_process(argv: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """``tb`` through the console script's entry point in this process, in ``cwd`` with
    ``env``'s ``TEAMBRAIN_HOME``: (exit code, stdout, stderr)."""
    import contextlib
    import io

    from teambrain_cli._main import run

    out, err = io.StringIO(), io.StringIO()
    saved = (Path.cwd(), os.environ.get("TEAMBRAIN_HOME"))
    os.chdir(cwd)
    os.environ["TEAMBRAIN_HOME"] = env["TEAMBRAIN_HOME"]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = run(argv)
    finally:
        os.chdir(saved[0])
        if saved[1] is None:
            os.environ.pop("TEAMBRAIN_HOME", None)
        else:
            os.environ["TEAMBRAIN_HOME"] = saved[1]
    return code, out.getvalue(), err.getvalue()


def _without_gh(path: str) -> str:
    """``PATH`` without the directories that hold a ``gh``."""
    return os.pathsep.join(
        part for part in path.split(os.pathsep) if part and not (Path(part) / "gh").exists()
    )


def make_team(root: Path, names: Sequence[str], *, seed: Path, gh: bool = True) -> Team:
    """A team in ``root``: the ``seed`` bare repository copied as the remote, a clone per name,
    and a maintainer (who merges, and whose clone is used to look at the default branch)."""
    root.mkdir(parents=True, exist_ok=True)
    remote = root / "remote.git"
    shutil.copytree(seed, remote, symlinks=True)
    gh_bin: Path | None = None
    if gh:
        gh_bin = root / "gh-bin"
        gh_bin.mkdir()
        script = gh_bin / "gh"
        script.write_text(f"#!{sys.executable} -IS\n" + GH_STANDIN.read_text("utf-8"), "utf-8")
        script.chmod(0o755)
    team = Team(root=root, remote=remote, gh_bin=gh_bin, gh_state=root / "gh-state.json")
    for name in names:
        team.add_developer(name, gh=gh)
    team.maintainer = team.add_developer("maintainer", gh=gh)
    del team.developers["maintainer"]
    return team
