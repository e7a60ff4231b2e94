import teambrain_capture
from teambrain_schema.lazy import export_problems

# The hook's spool, user files and sessions; the installer and the report moved to teambrain-cli
# (a hook-only install pulls neither, nor tomlkit).


def test_a_hook_only_install_has_no_installer_and_no_report() -> None:
    import importlib.util

    for gone in ("_install", "_adapters", "_jsonc", "_readiness", "_digest", "_digest_metrics"):
        assert importlib.util.find_spec(f"teambrain_capture.{gone}") is None


def test_public_api_is_pinned_and_resolves() -> None:
    # Exactly these: a name added or dropped is an API change the pin must record.
    assert sorted(teambrain_capture.__all__) == PUBLIC_API
    for name in teambrain_capture.__all__:
        assert getattr(teambrain_capture, name) is not None


def test_the_public_names_are_written_once() -> None:
    """``_EXPORTS`` in ``__init__.py`` is the one list of public names: ``__all__``, the lazy
    loader and the type checkers' re-exports (``make exports``) come from it; the pin above
    records it deliberately."""
    assert export_problems(teambrain_capture) == []


# The whole public API of teambrain_capture, sorted.
PUBLIC_API = [
    "CandidateList",
    "END",
    "FeedbackVote",
    "Hook",
    "IGNORE",
    "JoinKeys",
    "JsonlRead",
    "NO_END",
    "PLAN",
    "PROMPT",
    "RecordList",
    "RepoKeys",
    "START",
    "SessionAudit",
    "SessionSummary",
    "SpoolLedger",
    "TOOL",
    "UNKNOWN_MODEL",
    "USER_CONFIG_NAME",
    "UserConfig",
    "append_event",
    "append_jsonl",
    "apply_machine_settings",
    "audit_session",
    "audit_sessions",
    "claude_shaped",
    "close_idle_sessions",
    "ensure_private_dir",
    "exit_code_of",
    "find_active_session",
    "first_root",
    "hook_module",
    "hook_reader",
    "is_test_command",
    "iter_sessions",
    "last_session",
    "list_candidates",
    "list_records",
    "load_candidate",
    "load_user_config",
    "make_event",
    "mark_session_active",
    "mark_session_ended",
    "payload_object",
    "payload_text",
    "prune_sessions",
    "prune_spool",
    "queue_candidate",
    "queue_note",
    "queue_record",
    "read_feedback",
    "read_jsonl",
    "record_feedback",
    "records_dir",
    "repo_join_key",
    "repo_keys",
    "run_capture_hook",
    "safe_sid",
    "save_candidate",
    "save_record",
    "session_files",
    "summarise_intent",
    "summarise_session",
    "tool_hook",
    "tool_path",
    "user_dir",
    "utc_timestamp",
]
