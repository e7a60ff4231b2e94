"""The brain a reading verb answers from: the checkout's, or the brain as it was at ``--ref`` /
``--at`` (time travel through sync). ``tb relevant`` and ``tb ui`` read through these, so both
serve the past exactly alike."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .context import machine, require_brain
from .output import say
from .trust import ask_to_approve

if TYPE_CHECKING:
    from teambrain_retrieval import Retriever
    from teambrain_schema import BrainConfig
    from teambrain_schema.paths import BrainLayout
    from teambrain_sync import ResolvedCommit


def build_retriever(
    layout: BrainLayout,
    *,
    commit: str | None = None,
    brain_id: str | None = None,
    config: BrainConfig | None = None,
    trust_root: Path | None = None,
) -> Retriever:
    """The retriever of the working tree's brain, or with ``commit`` of a brain materialised
    from that commit (an in-memory index; provenance carries the commit; what it may send off
    this machine is what was approved for the repository at ``trust_root``)."""
    from teambrain_retrieval import RetrieverOptions, open_retriever

    if commit is None:
        return open_retriever(layout)
    options = RetrieverOptions(
        ephemeral=True, commit=commit, brain_id=brain_id, trust_root=trust_root
    )
    return open_retriever(layout, options, config=config)


def _config_at(layout: BrainLayout, repo_root: Path) -> BrainConfig:
    """brain.yaml of a materialised brain, with a relative ``org_brain`` resolved against the
    real repository (the org brain is served as it is now; only this brain travels)."""
    from teambrain_schema.brain import load_brain_config

    config = load_brain_config(layout)
    org = config.org_brain
    if org and not Path(org).expanduser().is_absolute():
        config = config.model_copy(update={"org_brain": str(repo_root / org)})
    return config


def resolve_moment(ref: str | None, at: str | None, start: Path | None = None) -> ResolvedCommit:
    """The commit ``--ref`` names, or the latest at or before ``--at`` (on ``--ref``'s line
    when both are given); a bad ref or moment is a user error (exit 1)."""
    from teambrain_sync import commit_at, open_repo, parse_timestamp, resolve_commit

    moment = parse_timestamp(at) if at is not None else None
    repo = open_repo(start or Path.cwd())
    return commit_at(repo, moment, ref or "HEAD") if moment else resolve_commit(repo, ref or "")


def snapshot_retriever(layout: BrainLayout, commit: str, repo_root: Path) -> Retriever:
    """A retriever of the brain materialised at ``layout`` from ``commit`` of the repository at
    ``repo_root``: an in-memory index, provenance carrying the commit, the org brain as now,
    sending off this machine only what was approved for that repository."""
    from teambrain_retrieval import brain_id_for

    return build_retriever(
        layout, commit=commit, brain_id=brain_id_for(repo_root),
        config=_config_at(layout, repo_root), trust_root=repo_root,
    )  # fmt: skip


@contextlib.contextmanager
def retriever_at(commit: ResolvedCommit, start: Path | None = None) -> Iterator[Retriever]:
    """A retriever of the brain at ``commit``: the checkout's warm index when the checkout
    holds exactly that brain, else an in-memory index of a snapshot (removed on exit)."""
    from teambrain_retrieval import RetrieverOptions, open_retriever
    from teambrain_schema.paths import BrainLayout
    from teambrain_sync import brain_at, checkout_matches, open_repo

    repo = open_repo(start or Path.cwd())
    with contextlib.ExitStack() as stack:
        if checkout_matches(repo, commit.sha):
            retriever = open_retriever(BrainLayout(repo.root), RetrieverOptions(commit=commit.sha))
        else:
            snapshot = stack.enter_context(brain_at(repo, commit))
            retriever = snapshot_retriever(snapshot.layout, commit.sha, repo.root)
        stack.callback(retriever.close)
        yield retriever


def describe_moment(commit: ResolvedCommit) -> str:
    """``the brain as of <what was asked>: commit <short> (<when>)``."""
    when = commit.committed_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"the brain as of {commit.requested}: commit {commit.short} ({when})"


@contextlib.contextmanager
def open_brain(
    ref: str | None, at: str | None, *, announce: Callable[[str], None] = say
) -> Iterator[Retriever]:
    """The brain now, or as it was at ``--ref`` / ``--at`` (announced on stderr). On a
    terminal, settings of brain.yaml that would send data somewhere this machine has not
    approved are asked about first (see ``tb trust``)."""
    if ref is None and at is None:
        layout = require_brain()
        ask_to_approve(layout, machine(), ("retrieval.embedder", "org_brain"))
        yield build_retriever(layout)
        return
    commit = resolve_moment(ref, at)
    announce(describe_moment(commit))
    with retriever_at(commit) as retriever:
        yield retriever


@contextlib.contextmanager
def open_served_brain(
    ref: str | None, at: str | None, *, announce: Callable[[str], None] = say
) -> Iterator[Retriever]:
    """The brain an agent starting a session here is served now — the live view ``tb serve``
    serves (the default branch as last fetched, this checkout's memory changes on top) unless
    this machine says otherwise — or, with ``--ref`` / ``--at``, the brain as it was then."""
    if ref is not None or at is not None:
        with open_brain(ref, at, announce=announce) as retriever:
            yield retriever
        return
    from teambrain_retrieval import RetrieverOptions, live_settings, open_retriever

    layout = require_brain()
    ask_to_approve(layout, machine(), ("retrieval.embedder", "org_brain"))
    retriever = open_retriever(layout, RetrieverOptions(live=live_settings().live))
    try:
        yield retriever
    finally:
        retriever.close()
