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
    for name in teambrain_capture.__all__:
        assert getattr(teambrain_capture, name) is not None


def test_type_checking_reexports_match_the_lazy_table() -> None:
    source = Path(teambrain_capture.__file__).read_text()
    assert set(re.findall(r"(?:^\s+|import )(\w+) as \1\b", source, flags=re.MULTILINE)) == set(
        teambrain_capture.__all__
    )
