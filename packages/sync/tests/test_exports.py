import subprocess
import sys

import teambrain_sync

PINNED = {
    "open_repo", "GitRepo", "resolve_commit", "commit_at", "parse_timestamp", "brain_at",
    "choose_target", "open_workspace", "add_memory", "retire_memory", "refresh_index",
    "check_proposal", "known_memories", "pending_proposals", "propose_retirement",
    "proposal_message", "propose_branch_name", "send_for_review", "prove_user_dir_untouched",
    "UserDirTouched", "watch_directory",
}  # fmt: skip


def test_public_api_is_pinned_and_resolves() -> None:
    assert set(teambrain_sync.__all__) >= PINNED
    for name in teambrain_sync.__all__:
        assert getattr(teambrain_sync, name) is not None, name


def test_importing_sync_does_not_import_capture_or_name_user_dir() -> None:
    code = (
        "import sys, teambrain_sync, teambrain_schema\n"
        "print(sorted({m.split('.')[0] for m in sys.modules if m.startswith('teambrain_')}))\n"
        "print(any('user' in name for name in dir(teambrain_schema.MachineLayout)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "['teambrain_schema', 'teambrain_sync']"
    assert out[1] == "False"
