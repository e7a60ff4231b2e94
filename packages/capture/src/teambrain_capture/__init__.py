"""teambrain capture: privacy-safe session events from agent hooks, the local spool and the
personal data under ``user/``.

Names load lazily so the hook path (``append_event`` and friends) imports only the standard
library; candidate handling and the digest aggregation need pydantic and load it when first used.
"""

from __future__ import annotations

from teambrain_schema import lazy_exports

# Not ``typing.TYPE_CHECKING``: importing typing costs the capture hook milliseconds at start-up.
# mypy treats any constant of this name as true.
TYPE_CHECKING = False

_EXPORTS: dict[str, str] = {
    "JoinKeys": "_spool",
    "JsonlRead": "_spool",
    "safe_sid": "_lite",
    "utc_timestamp": "_spool",
    "make_event": "_spool",
    "append_jsonl": "_spool",
    "append_event": "_spool",
    "read_jsonl": "_spool",
    "session_files": "_spool",
    "iter_sessions": "_spool",
    "prune_sessions": "_spool",
    "ensure_private_dir": "_spool",
    "mark_session_active": "_active",
    "mark_session_ended": "_active",
    "find_active_session": "_active",
    "user_dir": "_user",
    "UserConfig": "_user",
    "load_user_config": "_user",
    "record_feedback": "_user",
    "read_feedback": "_user",
    "FeedbackVote": "_user",
    "SpoolLedger": "_ledger",
    "queue_candidate": "_candidates",
    "save_candidate": "_candidates",
    "list_candidates": "_candidates",
    "load_candidate": "_candidates",
    "CandidateList": "_candidates",
    "run_capture_hook": "_hook",
    "close_idle_sessions": "_hook",
    "summarise_intent": "_intent",
    "Adapter": "_adapters",
    "McpTarget": "_adapters",
    "HookTarget": "_adapters",
    "ADAPTERS": "_adapters",
    "register_adapter": "_adapters",
    "resolve_adapter": "_adapters",
    "supported_tools": "_adapters",
    "plugin_adapters": "_adapters",
    "check_adapters": "_adapters",
    "AdapterProblem": "_adapters",
    "bundled_adapters_file": "_adapters",
    "InstallPlan": "_install",
    "FileChange": "_install",
    "plan_install": "_install",
    "apply_install": "_install",
    "adapter_notes": "_install",
    "UserStep": "_readiness",
    "user_steps": "_readiness",
    "codex_hook_states": "_readiness",
    "codex_hook_hash": "_readiness",
    "SessionAudit": "_audit",
    "audit_session": "_audit",
    "audit_sessions": "_audit",
    "last_session": "_audit",
    "prune_spool": "_audit",
    # the digest and metrics aggregation (pydantic, loaded only when used)
    "ReportWindow": "_digest_window",
    "resolve_window": "_digest_window",
    "MIN_SESSIONS": "_digest_cells",
    "SUPPRESSED": "_digest_cells",
    "Suppressed": "_digest_cells",
    "Figure": "_digest_cells",
    "is_shown": "_digest_cells",
    "fold_small_cells": "_digest_cells",
    "hide_small_cells": "_digest_cells",
    "SessionSummary": "_digest",
    "summarise_session": "_digest",
    "SpoolScan": "_digest",
    "scan_sessions": "_digest",
    "DigestReport": "_digest",
    "BucketFigures": "_digest",
    "aggregate": "_digest",
    "build_digest": "_digest",
    "repo_join_key": "_digest",
    "ReportFormat": "_digest_render",
    "REPORT_FORMATS": "_digest_render",
    "render_digest": "_digest_render",
    "slack_text": "_digest_render",
    "slack_payload": "_digest_render",
    "write_report": "_digest_render",
    "report_path_problem": "_digest_render",
    "format_figure": "_digest_render",
    "sparkline": "_digest_render",
    "SlackWebhook": "_digest_slack",
    "WebhookLookup": "_digest_slack",
    "resolve_slack_webhook": "_digest_slack",
    "post_slack": "_digest_slack",
    "MemoryCounts": "_digest_metrics",
    "count_memories": "_digest_metrics",
    "ComponentStatus": "_digest_metrics",
    "MetricsSnapshot": "_digest_metrics",
    "recent_activity": "_digest_metrics",
    "render_metrics_text": "_digest_metrics",
    "render_metrics_json": "_digest_metrics",
    "index_status": "_digest_metrics",
    "format_age": "_digest_metrics",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # explicit re-exports (``X as X``) for type checkers
    from ._active import (
        find_active_session as find_active_session,
        mark_session_active as mark_session_active,
        mark_session_ended as mark_session_ended,
    )
    from ._adapters import (
        ADAPTERS as ADAPTERS,
        Adapter as Adapter,
        AdapterProblem as AdapterProblem,
        HookTarget as HookTarget,
        McpTarget as McpTarget,
        bundled_adapters_file as bundled_adapters_file,
        check_adapters as check_adapters,
        plugin_adapters as plugin_adapters,
        register_adapter as register_adapter,
        resolve_adapter as resolve_adapter,
        supported_tools as supported_tools,
    )
    from ._audit import (
        SessionAudit as SessionAudit,
        audit_session as audit_session,
        audit_sessions as audit_sessions,
        last_session as last_session,
        prune_spool as prune_spool,
    )
    from ._candidates import (
        CandidateList as CandidateList,
        list_candidates as list_candidates,
        load_candidate as load_candidate,
        queue_candidate as queue_candidate,
        save_candidate as save_candidate,
    )
    from ._digest import (
        BucketFigures as BucketFigures,
        DigestReport as DigestReport,
        SessionSummary as SessionSummary,
        SpoolScan as SpoolScan,
        aggregate as aggregate,
        build_digest as build_digest,
        repo_join_key as repo_join_key,
        scan_sessions as scan_sessions,
        summarise_session as summarise_session,
    )
    from ._digest_cells import (
        MIN_SESSIONS as MIN_SESSIONS,
        SUPPRESSED as SUPPRESSED,
        Figure as Figure,
        Suppressed as Suppressed,
        fold_small_cells as fold_small_cells,
        hide_small_cells as hide_small_cells,
        is_shown as is_shown,
    )
    from ._digest_metrics import (
        ComponentStatus as ComponentStatus,
        MemoryCounts as MemoryCounts,
        MetricsSnapshot as MetricsSnapshot,
        count_memories as count_memories,
        format_age as format_age,
        index_status as index_status,
        recent_activity as recent_activity,
        render_metrics_json as render_metrics_json,
        render_metrics_text as render_metrics_text,
    )
    from ._digest_render import (
        REPORT_FORMATS as REPORT_FORMATS,
        ReportFormat as ReportFormat,
        format_figure as format_figure,
        render_digest as render_digest,
        report_path_problem as report_path_problem,
        slack_payload as slack_payload,
        slack_text as slack_text,
        sparkline as sparkline,
        write_report as write_report,
    )
    from ._digest_slack import (
        SlackWebhook as SlackWebhook,
        WebhookLookup as WebhookLookup,
        post_slack as post_slack,
        resolve_slack_webhook as resolve_slack_webhook,
    )
    from ._digest_window import (
        ReportWindow as ReportWindow,
        resolve_window as resolve_window,
    )
    from ._hook import (
        close_idle_sessions as close_idle_sessions,
        run_capture_hook as run_capture_hook,
    )
    from ._install import (
        FileChange as FileChange,
        InstallPlan as InstallPlan,
        adapter_notes as adapter_notes,
        apply_install as apply_install,
        plan_install as plan_install,
    )
    from ._intent import (
        summarise_intent as summarise_intent,
    )
    from ._ledger import SpoolLedger as SpoolLedger
    from ._lite import (
        safe_sid as safe_sid,
    )
    from ._readiness import (
        UserStep as UserStep,
        codex_hook_hash as codex_hook_hash,
        codex_hook_states as codex_hook_states,
        user_steps as user_steps,
    )
    from ._spool import (
        JoinKeys as JoinKeys,
        JsonlRead as JsonlRead,
        append_event as append_event,
        append_jsonl as append_jsonl,
        ensure_private_dir as ensure_private_dir,
        iter_sessions as iter_sessions,
        make_event as make_event,
        prune_sessions as prune_sessions,
        read_jsonl as read_jsonl,
        session_files as session_files,
        utc_timestamp as utc_timestamp,
    )
    from ._user import (
        FeedbackVote as FeedbackVote,
        UserConfig as UserConfig,
        load_user_config as load_user_config,
        read_feedback as read_feedback,
        record_feedback as record_feedback,
        user_dir as user_dir,
    )
