"""teambrain sync: git plumbing for proposal branches, PRs, retirement and time travel.

Everything goes through the git CLI (argument lists, no shell) and never touches the user's work
tree, index or HEAD: proposals are committed with a temporary index onto a new branch, and past
brains are read from git's object store into temporary directories. Sync imports only
``teambrain_schema``, whose machine layout has no ``user/`` directory; :func:`prove_user_dir_untouched`
turns that into evidence with an audit hook.
"""

from teambrain_schema.git import GitFailed, git_env, run_git

from ._audit import UserDirTouched, prove_user_dir_untouched, watch_directory
from ._branches import ProposalBranch, PullRequest, proposal_branches, tidy_branches
from ._git import GitRepo, open_repo
from ._history import HistoryEntry, MergedBy, memory_history
from ._index_md import regenerate_index_md, retirement_reasons
from ._memories import (
    KnownMemory,
    NewMemory,
    OpenMemory,
    ProposalCheck,
    ProposalIndex,
    Retirement,
    add_memory,
    check_proposal,
    clean_reason,
    known_memories,
    open_proposals,
    pending_proposals,
    retire_memory,
)
from ._proposals import (
    CitationFix,
    FixCitationsOutcome,
    ProposedItem,
    RetireOutcome,
    proposal_message,
    propose_branch_name,
    propose_citation_fixes,
    propose_retirement,
    retire_branch_name,
    retire_message,
)
from ._propose import (
    CandidateLedger,
    DraftVerdict,
    NearDuplicateGuard,
    Outcome,
    ProposeRun,
    SimilarMemory,
    check_draft,
    draft_citation_problems,
    propose_candidates,
    record_outcomes,
    run_propose,
)
from ._pulls import cached_pull_requests, pull_requests
from ._review import (
    ReviewRequest,
    ReviewTarget,
    choose_target,
    gh_ready,
    open_pull_request,
    push_branch,
    push_remote,
    send_for_review,
    write_patch,
)
from ._snapshot import (
    BrainSnapshot,
    ResolvedCommit,
    brain_at,
    checkout_matches,
    commit_at,
    has_brain,
    materialise_brain,
    no_brain_reason,
    parse_timestamp,
    read_blobs,
    resolve_commit,
)
from ._supersedes import HiddenEdit, hidden_edits
from ._workspace import BrainWorkspace, check_branch_name, open_workspace

__all__ = [
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
    "PullRequest",
    "ResolvedCommit",
    "RetireOutcome",
    "Retirement",
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
    "checkout_matches",
    "choose_target",
    "clean_reason",
    "commit_at",
    "draft_citation_problems",
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
    "parse_timestamp",
    "pending_proposals",
    "proposal_branches",
    "proposal_message",
    "propose_branch_name",
    "propose_candidates",
    "propose_citation_fixes",
    "propose_retirement",
    "prove_user_dir_untouched",
    "pull_requests",
    "push_branch",
    "push_remote",
    "read_blobs",
    "record_outcomes",
    "regenerate_index_md",
    "resolve_commit",
    "retire_branch_name",
    "retire_memory",
    "retire_message",
    "retirement_reasons",
    "run_git",
    "run_propose",
    "send_for_review",
    "tidy_branches",
    "watch_directory",
    "write_patch",
]
