"""The sync-isolation probe ``tb verify`` runs in a child process (audit hooks cannot be removed).

It exercises every sync operation — a proposal pushed to a remote, a retirement, time travel —
on a scratch repository whose machine home has a populated ``user/``, and the read-only ones on
the user's own repository, each under :func:`teambrain_sync.prove_user_dir_untouched`. It prints
one JSON line: what was exercised and every access under ``user/`` that was seen.

    python -m teambrain_cli._checks.sync_probe <real TEAMBRAIN_HOME> [<repository>]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from .scratch import git, scratch_brain

MEMORY_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F01"


def _scratch_repo(root: Path) -> Path:
    repo = scratch_brain(
        root, memory_id=MEMORY_ID, memory_class="decision", priority="advisory",
        title="Probe memory", slug="probe-memory", body="Probe.",
    )  # fmt: skip
    git("clone", "-q", "--bare", str(repo), str(root / "remote.git"), cwd=root)
    git("remote", "add", "origin", str(root / "remote.git"), cwd=repo)
    git("fetch", "-q", "origin", cwd=repo)
    return repo


def _write_path(repo_root: Path, patches: Path, exercised: list[str]) -> None:
    from teambrain_schema import MemoryDraft
    from teambrain_schema.brain import brain_file_paths
    from teambrain_sync import (
        add_memory,
        brain_at,
        check_proposal,
        choose_target,
        commit_at,
        open_repo,
        open_workspace,
        parse_timestamp,
        pending_proposals,
        propose_retirement,
        send_for_review,
    )  # fmt: skip

    draft = MemoryDraft.model_validate(
        {"class": "learning", "title": "Probe learning", "body": "Probe body."}
    )
    repo = open_repo(repo_root)
    target = choose_target(repo)
    with open_workspace(repo, target.base) as workspace:
        add_memory(workspace, draft)
        check_proposal(workspace)
        commit = workspace.commit("teambrain/verify-probe", "verify probe")
    send_for_review(
        repo,
        target=target,
        branch="teambrain/verify-probe",
        commit=commit,
        title="probe",
        body="probe",
        patch_dir=patches,
    )
    exercised.append("propose + push")
    pending_proposals(repo, target.base.sha)
    propose_retirement(repo, MEMORY_ID, "probe", target=target, patch_dir=patches)
    exercised.append("retire")
    with brain_at(repo, commit_at(repo, parse_timestamp("2100-01-01"))) as snapshot:
        brain_file_paths(snapshot.layout)  # walks no link out of the brain
    exercised.append("time travel")


def _read_path(repo_root: Path, exercised: list[str]) -> None:
    from teambrain_schema.brain import brain_file_paths
    from teambrain_sync import (
        brain_at,
        choose_target,
        has_brain,
        open_repo,
        open_workspace,
        pending_proposals,
        resolve_commit,
    )

    repo = open_repo(repo_root)
    head = resolve_commit(repo, "HEAD")
    if has_brain(repo, head.sha):
        with brain_at(repo, head) as snapshot:
            brain_file_paths(snapshot.layout)  # walks no link out of the brain
        target = choose_target(repo)
        with open_workspace(repo, target.base) as workspace:
            workspace.load()
        pending_proposals(repo, target.base.sha)
        exercised.append(f"read-only operations on {repo_root.name}")


def main(argv: list[str]) -> int:
    from teambrain_sync import UserDirTouched, prove_user_dir_untouched

    real_home = Path(argv[0])
    repo_arg = Path(argv[1]) if len(argv) > 1 and argv[1] else None
    exercised: list[str] = []
    accesses: list[str] = []
    with tempfile.TemporaryDirectory(prefix="teambrain-verify-") as scratch:
        root = Path(scratch)
        home = root / "home"
        (home / "user").mkdir(parents=True)
        (home / "user" / "feedback.jsonl").write_text('{"id": "x", "useful": true}\n')
        (home / "user" / "config.toml").write_text("[capture]\nretention_days = 30\n")
        os.environ["TEAMBRAIN_HOME"] = str(home)
        repo = _scratch_repo(root)
        try:
            prove_user_dir_untouched(
                home / "user", lambda: _write_path(repo, home / "proposals", exercised)
            )
        except UserDirTouched as exc:
            accesses.extend(exc.accesses)
        if repo_arg is not None:
            os.environ["TEAMBRAIN_HOME"] = str(real_home)
            try:
                prove_user_dir_untouched(
                    real_home / "user", lambda: _read_path(repo_arg, exercised)
                )
            except UserDirTouched as exc:
                accesses.extend(exc.accesses)
    print(json.dumps({"exercised": exercised, "accesses": accesses}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
