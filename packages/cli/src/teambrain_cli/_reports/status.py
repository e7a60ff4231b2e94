"""Component status shared by ``tb metrics`` and ``tb doctor``: the index's freshness against
HEAD, the embedder in use, and the ``tb serve`` heartbeat."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_schema import TeambrainError
from teambrain_schema.brain import load_brain_config

from .metrics import ComponentStatus, format_age, index_status

NO_BRAIN = ComponentStatus("n/a", "no brain here (run inside a repository with .teambrain/)")


def _problem(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return f"{exc.__class__.__name__}: {text[0]}" if text else exc.__class__.__name__


def retrieval_status(
    layout: BrainLayout, home: MachineLayout, now: dt.datetime
) -> tuple[ComponentStatus, ComponentStatus]:
    """The index's freshness against HEAD and the embedder in use, from teambrain-retrieval.

    Without an index file nothing is opened (metrics creates nothing): the embedder is then
    what brain.yaml configures, unchecked."""
    if not home.index_db.exists():
        configured = load_brain_config(layout).retrieval.embedder
        provider = f"plugin {configured.plugin}" if configured.plugin else configured.provider
        return (
            index_status(layout, None, None, now=now),
            ComponentStatus(
                "configured",
                f"{provider} (brain.yaml; not checked until the index exists)",
                {"name": provider},
            ),
        )
    from teambrain_retrieval import RetrieverOptions, open_retriever

    notices: list[str] = []
    try:
        retriever = open_retriever(layout, RetrieverOptions(warn=notices.append), home=home)
    except TeambrainError:
        raise
    except Exception as exc:  # one broken component must not hide the rest of the snapshot
        failed = ComponentStatus("error", _problem(exc))
        return failed, failed
    try:
        index = index_status(layout, retriever.stats(), retriever.commit, now=now)
        name = retriever.embedder_status()
    except Exception as exc:
        failed = ComponentStatus("error", _problem(exc))
        return failed, failed
    finally:
        retriever.close()
    if name.startswith("none"):
        embedder = ComponentStatus("keywords only", name, {"name": "none"})
    else:
        embedder = ComponentStatus("in use", name, {"name": name})
    if notices:
        embedder = ComponentStatus(
            embedder.state, f"{embedder.detail} ({'; '.join(notices)})", embedder.facts
        )
    return index, embedder


def serve_status(
    home: MachineLayout, layout: BrainLayout | None, now: dt.datetime
) -> ComponentStatus:
    """What the serve heartbeat says: the server for this brain (else the latest one)."""
    from teambrain_mcp_server import read_heartbeat

    entries = read_heartbeat(home)
    if not entries:
        return ComponentStatus(
            "not running", "no heartbeat (the agent tool starts `tb serve` when it needs it)",
            {"heartbeat_age_s": None, "pid": None},
        )  # fmt: skip
    here = layout.repo_root.resolve() if layout else None
    entry = next(
        (e for e in entries if here and e.repo and Path(e.repo).resolve() == here), entries[0]
    )
    seen = entry.updated or entry.last_request or entry.started
    age_s = round(max(0.0, (now - seen).total_seconds()), 1)
    facts = {
        "heartbeat_age_s": age_s,
        "pid": entry.pid,
        "repo": entry.repo,
        "brain_commit": entry.brain_commit,
        "requests": entry.requests,
        "last_request": entry.last_request.isoformat() if entry.last_request else None,
    }
    where = (
        f" for {entry.repo}"
        if entry.repo and (here is None or Path(entry.repo).resolve() != here)
        else ""
    )
    states = {"serving": "running", "stopped": "stopped", "gone": "gone"}
    detail = f"last heartbeat {format_age(age_s)} ago (pid {entry.pid}{where}, {entry.requests} requests)"
    return ComponentStatus(states.get(entry.state, entry.state), detail, facts)
