import subprocess
import sys

import teambrain_sync
from teambrain_schema.lazy import export_problems


def test_public_api_is_pinned_and_resolves() -> None:
    # Exactly these: a name added or dropped is an API change the pin must record.
    assert sorted(teambrain_sync.__all__) == PUBLIC_API
    for name in teambrain_sync.__all__:
        assert getattr(teambrain_sync, name) is not None, name


def test_the_public_names_are_written_once() -> None:
    """``_EXPORTS`` in ``__init__.py`` is the one list of public names: ``__all__``, the lazy
    loader and the type checkers' re-exports (``make exports``) come from it; the pin above
    records it deliberately."""
    assert export_problems(teambrain_sync) == []


def test_importing_sync_does_not_import_capture_or_name_user_dir() -> None:
    code = (
        "import sys, teambrain_sync, teambrain_schema.paths\n"
        "print(sorted({m.split('.')[0] for m in sys.modules if m.startswith('teambrain_')}))\n"
        "print(any('user' in name for name in dir(teambrain_schema.paths.MachineLayout)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "['teambrain_schema', 'teambrain_sync']"
    assert out[1] == "False"


# The whole public API of teambrain_sync, sorted.
PUBLIC_API = [
    "BrainSnapshot",
    "BrainWorkspace",
    "CandidateLedger",
    "CitationFix",
    "DraftVerdict",
    "FixCitationsOutcome",
    "GitFailed",
    "GitRepo",
    "HiddenEdit",
    "HistoryEntry",
    "KnownMemory",
    "MergedBy",
    "NearDuplicateGuard",
    "NewMemory",
    "OpenMemory",
    "Outcome",
    "ProposalBranch",
    "ProposalCheck",
    "ProposalIndex",
    "ProposeRun",
    "ProposedItem",
    "ProposedRecord",
    "PullRequest",
    "RecordProposal",
    "RecordSubmission",
    "RemoteHead",
    "RemoteRepository",
    "RemoteRoles",
    "ResolvedCommit",
    "RetireOutcome",
    "Retirement",
    "ReviewLink",
    "ReviewRequest",
    "ReviewTarget",
    "SimilarMemory",
    "UserDirTouched",
    "add_memory",
    "brain_at",
    "cached_pull_requests",
    "check_branch_name",
    "check_draft",
    "check_proposal",
    "check_remote_head",
    "checkout_matches",
    "choose_target",
    "clean_reason",
    "commit_at",
    "compare_url",
    "draft_citation_problems",
    "forge_of",
    "gh_ready",
    "git_env",
    "has_brain",
    "hidden_edits",
    "known_memories",
    "materialise_brain",
    "memory_history",
    "no_brain_reason",
    "open_proposals",
    "open_pull_request",
    "open_repo",
    "open_workspace",
    "parse_remote_url",
    "parse_timestamp",
    "pending_proposals",
    "proposal_branches",
    "proposal_message",
    "propose_branch_name",
    "propose_candidates",
    "propose_citation_fixes",
    "propose_records",
    "propose_retirement",
    "prove_user_dir_untouched",
    "pull_requests",
    "push_branch",
    "push_refusal",
    "push_remote",
    "read_blobs",
    "record_outcomes",
    "regenerate_index_md",
    "remote_roles_of",
    "require_brain_at",
    "resolve_commit",
    "retire_branch_name",
    "retire_memory",
    "retire_message",
    "retirement_reasons",
    "review_link",
    "run_git",
    "run_propose",
    "send_branches",
    "send_for_review",
    "tidy_branches",
    "unsent_branches",
    "watch_directory",
    "write_patch",
]
