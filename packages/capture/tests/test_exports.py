import re
from pathlib import Path

import teambrain_capture

PINNED = {
    "JoinKeys", "make_event", "append_event", "append_jsonl", "read_jsonl", "session_files", "iter_sessions",
    "prune_sessions", "safe_sid", "mark_session_active", "mark_session_ended", "find_active_session",
    "user_dir", "load_user_config", "record_feedback", "read_feedback", "queue_candidate",
    "list_candidates", "load_candidate", "save_candidate", "SpoolLedger",
    "run_capture_hook", "close_idle_sessions", "summarise_intent", "Adapter", "ADAPTERS", "register_adapter",
    "resolve_adapter", "supported_tools", "check_adapters", "AdapterProblem", "bundled_adapters_file",
    "plan_install", "apply_install", "InstallPlan", "FileChange", "adapter_notes", "SessionAudit",
    "audit_session", "audit_sessions", "last_session", "prune_spool",
    # the digest / metrics aggregation
    "MIN_SESSIONS", "SUPPRESSED", "Figure", "is_shown", "ReportWindow", "resolve_window",
    "scan_sessions", "aggregate", "build_digest", "DigestReport",
    "render_digest", "slack_text", "slack_payload", "write_report", "resolve_slack_webhook",
    "post_slack", "count_memories", "MetricsSnapshot", "ComponentStatus", "recent_activity",
    "render_metrics_text", "render_metrics_json",
}  # fmt: skip


def test_public_api_is_pinned_and_resolves() -> None:
    assert set(teambrain_capture.__all__) >= PINNED
    # Exactly these: a name added or dropped is an API change the pin must record.
    assert sorted(teambrain_capture.__all__) == PUBLIC_API
    for name in teambrain_capture.__all__:
        assert getattr(teambrain_capture, name) is not None


def test_type_checking_reexports_match_the_lazy_table() -> None:
    source = Path(teambrain_capture.__file__).read_text()
    assert set(re.findall(r"(?:^\s+|import )(\w+) as \1\b", source, flags=re.MULTILINE)) == set(
        teambrain_capture.__all__
    )


# The whole public API of teambrain_capture, sorted.
PUBLIC_API = [
    "ADAPTERS",
    "Adapter",
    "AdapterProblem",
    "BucketFigures",
    "CandidateList",
    "ComponentStatus",
    "DigestReport",
    "FeedbackVote",
    "Figure",
    "FileChange",
    "HookTarget",
    "InstallPlan",
    "JoinKeys",
    "JsonlRead",
    "MIN_SESSIONS",
    "McpTarget",
    "MemoryCounts",
    "MetricsSnapshot",
    "REPORT_FORMATS",
    "ReportFormat",
    "ReportWindow",
    "SUPPRESSED",
    "SessionAudit",
    "SessionSummary",
    "SlackWebhook",
    "SpoolLedger",
    "SpoolScan",
    "Suppressed",
    "UserConfig",
    "UserStep",
    "WebhookLookup",
    "adapter_notes",
    "aggregate",
    "append_event",
    "append_jsonl",
    "apply_install",
    "audit_session",
    "audit_sessions",
    "build_digest",
    "bundled_adapters_file",
    "check_adapters",
    "close_idle_sessions",
    "codex_hook_hash",
    "codex_hook_states",
    "count_memories",
    "ensure_private_dir",
    "find_active_session",
    "fold_small_cells",
    "format_age",
    "format_figure",
    "hide_small_cells",
    "index_status",
    "is_shown",
    "iter_sessions",
    "last_session",
    "list_candidates",
    "load_candidate",
    "load_user_config",
    "make_event",
    "mark_session_active",
    "mark_session_ended",
    "plan_install",
    "plugin_adapters",
    "post_slack",
    "prune_sessions",
    "prune_spool",
    "queue_candidate",
    "read_feedback",
    "read_jsonl",
    "recent_activity",
    "record_feedback",
    "register_adapter",
    "render_digest",
    "render_metrics_json",
    "render_metrics_text",
    "repo_join_key",
    "report_path_problem",
    "resolve_adapter",
    "resolve_slack_webhook",
    "resolve_window",
    "run_capture_hook",
    "safe_sid",
    "save_candidate",
    "scan_sessions",
    "session_files",
    "slack_payload",
    "slack_text",
    "sparkline",
    "summarise_intent",
    "summarise_session",
    "supported_tools",
    "user_dir",
    "user_steps",
    "utc_timestamp",
    "write_report",
]
