"""What a :class:`~teambrain_retrieval.Retriever` is made of, as brain.yaml and this machine's
approvals say: the brains it serves (its own, the org brain and its read policy for this
repository), the embedder, the backend (``retrieval.backend``), and the index of its notes.

Anything that sends data off the machine — a remote embedder, an org brain outside the
repository, the shared index — is used only when this machine approved it for the repository
(``tb trust``); otherwise it is left out and ``warn`` says why, once. The backend is chosen
here, by config, in one place: ``sqlite`` is the index in ``$TEAMBRAIN_HOME``; ``postgres``
(the shared index of :mod:`._postgres`, which CI fills) is, on a developer's machine, where
vectors come from before embedding here, the index still answering from SQLite.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._index._embedders import Embedder, EmbedderUnavailable, embedder_egress, make_embedder
from ._index._refresher import BrainSource, Refresher
from ._index._store import ServedBrain
from ._search._backend import SqliteBackend
from ._search._notes import NoteIndex, note_source
from ._search._policy import OrgPolicies

if TYPE_CHECKING:
    import apsw
    from teambrain_kit.egress import Approvals, Egress
    from teambrain_kit.paths import BrainLayout, MachineLayout
    from teambrain_schema import BrainConfig

    from ._index._live import LiveView
    from ._index._worklock import WorkLocks
    from ._postgres._follow import SharedFollower

TRUST_HINT = "`tb trust` shows it and asks"
ORG_BRAIN_SENDS = "its org-scoped memories, served to this repository's agents"


def brain_id_for(repo_root: Path) -> str:
    """The id of the brain in the repository at ``repo_root``: its resolved path."""
    return repo_root.resolve().as_posix()


def org_brain_location(config: BrainConfig, repo_root: Path) -> tuple[Path, str] | None:
    """Where the org brain ``config`` names is on this machine, and who said so: this
    machine's ``$TEAMBRAIN_ORG_BRAIN`` (``tb`` and ``tb serve`` set it from ``[org_brain] path``
    in ``user/config.toml``) when set, else the committed ``org_brain`` — the team's default
    (relative paths against ``repo_root``). None when brain.yaml names no org brain or does not
    serve the org scope: the team decides whether, each machine where."""
    import os

    from teambrain_kit.home import ORG_BRAIN_ENV, env_setting_source
    from teambrain_schema import BRAIN_DIRNAME

    if not config.org_brain or "org" not in config.scopes:
        return None
    machine = os.environ.get(ORG_BRAIN_ENV, "").strip()
    written, source = (
        (machine, env_setting_source(ORG_BRAIN_ENV))
        if machine
        else (config.org_brain, f"brain.yaml's org_brain: {config.org_brain}")
    )
    path = Path(written).expanduser()
    if not path.is_absolute():
        path = repo_root / path
    return (path.parent if path.name == BRAIN_DIRNAME else path), source


def org_brain_missing(path: Path, source: str) -> str:
    """One line: the org brain is not where ``source`` says, and how to tell teambrain where it
    is on this machine."""
    from teambrain_kit.home import ORG_BRAIN_ENV

    return (
        f"org brain not found at {path} (from {source}): clone it there, or say where it is on "
        f"this machine with ${ORG_BRAIN_ENV} or `[org_brain] path` in "
        "$TEAMBRAIN_HOME/user/config.toml"
    )


def org_brain_root(config: BrainConfig, repo_root: Path) -> Path | None:
    """The repository of the org brain ``config`` names, where this machine has it (see
    :func:`org_brain_location`), or None when it names none or does not serve the org scope."""
    found = org_brain_location(config, repo_root)
    return found[0] if found else None


def org_brain_egress(config: BrainConfig, repo_root: Path) -> Egress | None:
    """The org brain as a destination to approve: memories from outside the repository
    reach this repository's agents (None when it names none, or one inside the repository,
    whose memories the repository already holds)."""
    from teambrain_kit.egress import Egress

    path = org_brain_root(config, repo_root)
    if path is None:
        return None
    resolved = path.resolve()
    if resolved.is_relative_to(repo_root.resolve()):
        return None
    return Egress("org_brain", ORG_BRAIN_SENDS, resolved.as_posix())


class Setup:
    """Chooses the parts of one retriever (see the module docstring). ``trust_root`` is the
    repository whose approvals apply; ``approvals`` this machine's (read on first use)."""

    def __init__(
        self,
        layout: BrainLayout,
        config: BrainConfig,
        home: MachineLayout,
        *,
        trust_root: Path,
        approvals: Approvals | None,
        warn: Callable[[str], None],
    ) -> None:
        self.layout = layout
        self.config = config
        self.home = home
        self.trust_root = trust_root
        self._approvals_read = approvals
        self._warn = warn
        self.embedder_reason = "none: keyword search only (retrieval.embedder.provider: none)"
        self.org_policies = OrgPolicies()  # filled by org_sources: what this repository may read
        self._shared_url: tuple[str | None] | None = None  # shared_index_url's answer

    def _approvals(self) -> Approvals:
        if self._approvals_read is None:
            from teambrain_kit.egress import load_approvals

            self._approvals_read = load_approvals(self.home, self.trust_root)
        return self._approvals_read

    def approved(self, egress: Egress | None) -> bool:
        """Whether what ``egress`` describes may be used: nothing leaves, or this machine
        approved exactly that destination and credential for this repository."""
        return egress is None or self._approvals().is_approved(self.trust_root, egress)

    # ------------------------------------------------------------------ the embedder

    def embedder(self, embedder: Embedder | str | None) -> Embedder | None:
        """``embedder`` as asked (None: keyword search only), or, for ``"config"``,
        brain.yaml's when approved and available; :attr:`embedder_reason` says why none."""
        if embedder != "config":
            if embedder is None:
                self.embedder_reason = "none: keyword search only"
            return embedder if not isinstance(embedder, str) else None
        egress = embedder_egress(self.config.retrieval.embedder, self.layout.repo_root)
        if not self.approved(egress):
            assert egress is not None
            changed = self._approvals().state(self.trust_root, egress) == "changed"
            why = (
                "changed since this machine approved it"
                if changed
                else "not approved on this machine"
            )
            self.embedder_reason = f"none: {egress.describe()}: {why} ({TRUST_HINT})"
            self._warn(
                f"semantic search is off, using keyword search only: brain.yaml's "
                f"{egress.describe()}: {why} ({TRUST_HINT})"
            )
            return None
        try:
            return make_embedder(self.config.retrieval.embedder, self.layout.repo_root)
        except EmbedderUnavailable as exc:
            self.embedder_reason = f"none: {exc.reason}"
            self._warn(f"semantic search is off, using keyword search only: {exc.reason}")
            return None

    # ------------------------------------------------------------------ the brains served

    def main_source(self, brain_id: str, live: LiveView | None) -> BrainSource:
        """The repository's own brain (a live view's files, on behalf of the repository)."""
        name = self.config.name or self.layout.repo_root.resolve().name
        if live is not None:
            return BrainSource(
                live.layout, brain_id, name, tuple(self.config.scopes), root=self.layout.repo_root
            )
        return BrainSource(self.layout, brain_id, name, tuple(self.config.scopes))

    def org_sources(self, brain_id: str, *, ephemeral: bool) -> list[BrainSource]:
        """The org brain brain.yaml names, when it is here and (outside the repository)
        approved; none otherwise, said once."""
        from teambrain_kit.paths import BrainLayout

        found = org_brain_location(self.config, self.layout.repo_root)
        if found is None:
            return []
        path, source = found
        org = BrainLayout(path)
        if not org.root.is_dir():
            self._warn(f"{org_brain_missing(path, source)}; not served")
            return []
        if org.repo_root.resolve() == self.layout.repo_root.resolve():
            return []
        egress = org_brain_egress(self.config, self.layout.repo_root)
        if not self.approved(egress):
            assert egress is not None
            self._warn(
                f"org_brain {egress.destination} is outside this repository and not approved "
                f"on this machine: not served ({TRUST_HINT})"
            )
            return []
        org_id = (
            brain_id_for(org.repo_root)
            if not ephemeral
            else f"{brain_id_for(org.repo_root)}#org-of:{brain_id}"
        )
        self._org_policy(org, org_id)
        return [BrainSource(org, org_id, org.repo_root.resolve().name, ("org",))]

    def _org_policy(self, org: BrainLayout, org_id: str) -> None:
        """The read policy the org brain has for this repository (its ``sources/``), when it
        has any; its problems said once each."""
        from teambrain_schema.read_policy import load_read_policy

        repository = self.config.name or self.layout.repo_root.resolve().name
        policy, problems = load_read_policy(org, repository)
        for problem in problems:
            self._warn(f"org brain read policy {problem.relpath}:{problem.line}: {problem.message}")
        if policy is not None:
            self.org_policies.policies[org_id] = policy
            if policy.reads_nothing:
                self._warn(policy.describe())

    # ------------------------------------------------------------------ the backend

    def backend(
        self,
        db: apsw.Connection,
        sources: list[BrainSource],
        embedder: Embedder | None,
        *,
        vectors_table: str,
        today: Callable[[], dt.date] | None,
        matrix_cache: Path | None,
    ) -> SqliteBackend:
        """The backend over ``db`` for ``sources``, as ``retrieval.backend`` says."""
        served = [ServedBrain(s.brain_id, s.scopes) for s in sources]
        backend = SqliteBackend(
            db,
            served,
            embedder,
            vectors_table=vectors_table,
            warn=self._warn,
            today=today,
            no_embedder_reason=self.embedder_reason,
            matrix_cache=matrix_cache,
        )
        backend.embeddings.vector_source = self._shared_vectors(embedder)
        return backend

    def note_index(
        self,
        db: apsw.Connection,
        source: BrainSource,
        embedder: Embedder | None,
        *,
        vectors_table: str,
        today: Callable[[], dt.date] | None,
        locks: WorkLocks | None,
        matrix_cache: Path | None,
        commit: str | None,
        interval: float | None,
    ) -> NoteIndex:
        """The notes of the brain ``source`` serves (``.teambrain/notes/``), indexed in ``db``
        as a brain of their own (an org brain's notes are not searched)."""
        notes = note_source(self.layout, source.brain_id, source.display)
        backend = SqliteBackend(
            db, [ServedBrain(notes.brain_id, notes.scopes)], embedder,
            vectors_table=vectors_table, warn=self._warn, today=today, matrix_cache=matrix_cache,
        )  # fmt: skip
        refresher = Refresher(db, backend, [notes], warn=self._warn, locks=locks, interval=interval)
        return NoteIndex(self.layout, source.display, backend, refresher, commit=commit)

    def shared_index_url(self) -> str | None:
        """The shared index's connection string when this machine may use it
        (``retrieval.backend: postgres``, approved, its URL set); None otherwise, said once."""
        retrieval = self.config.retrieval
        if retrieval.backend != "postgres":
            return None
        if self._shared_url is not None:
            return self._shared_url[0]  # asked before: said then, once
        self._shared_url = (self._find_shared_index_url(),)
        return self._shared_url[0]

    def _find_shared_index_url(self) -> str | None:
        retrieval = self.config.retrieval
        from ._postgres._config import shared_index_egress, shared_index_url

        egress = shared_index_egress(retrieval)
        if not self.approved(egress):
            self._warn(f"shared index not used (not approved on this machine: {TRUST_HINT}): "
                       "embedding on this machine instead")  # fmt: skip
            return None
        url, why = shared_index_url(retrieval)
        if url is None:
            self._warn(f"shared index not used ({why}): embedding on this machine instead")
        return url

    def _shared_vectors(
        self, embedder: Embedder | None
    ) -> Callable[[list[str]], dict[str, Any]] | None:
        """The shared index as where vectors come from before embedding here; None when it
        is not used (:meth:`shared_index_url`) or nothing is embedded."""
        if self.config.retrieval.backend != "postgres" or embedder is None:
            return None
        url = self.shared_index_url()
        if url is None:
            return None
        from ._postgres._shared import shared_vector_source

        return shared_vector_source(
            url, self.layout, embedder.name, timeout_s=self.config.retrieval.timeout_s,
            warn=self._warn,
        )  # fmt: skip

    def follower(self, live: LiveView) -> SharedFollower | None:
        """A follower of the shared index feeding ``live`` (not started): a merge is served as
        soon as CI filled the shared index, before this clone fetches (see
        :mod:`._postgres._follow`); None when it is not used here."""
        url = self.shared_index_url()
        if url is None:
            return None
        from ._postgres._fill import shared_brain_id
        from ._postgres._follow import SharedFollower

        follower = SharedFollower(
            url, shared_brain_id(self.layout), self.layout.repo_root,
            timeout_s=self.config.retrieval.timeout_s, warn=self._warn,
        )  # fmt: skip
        live.shared = lambda: follower.snapshot
        return follower
