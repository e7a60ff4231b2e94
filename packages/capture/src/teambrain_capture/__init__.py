"""teambrain capture: privacy-safe session events from agent hooks, the local spool and the
personal data under ``user/``.

Names load lazily so the hook path (``append_event`` and friends, and the agent tools' hook
readers, written with :class:`Hook` and its kit) imports only the standard library; candidate handling and the digest aggregation need pydantic and load it when first used.
"""

from __future__ import annotations

from teambrain_schema.lazy import lazy_exports

# Not ``typing.TYPE_CHECKING``: importing typing costs the capture hook milliseconds at start-up.
# mypy treats any constant of this name as true.
TYPE_CHECKING = False

_EXPORTS: dict[str, str] = {
    # the kit agent tools' hook readers are written with, and how tb-capture finds them
    "Hook": "_hookmap",
    "START": "_hookmap",
    "PROMPT": "_hookmap",
    "TOOL": "_hookmap",
    "PLAN": "_hookmap",
    "END": "_hookmap",
    "IGNORE": "_hookmap",
    "tool_hook": "_hookmap",
    "claude_shaped": "_hookmap",
    "payload_text": "_hookmap",
    "payload_object": "_hookmap",
    "first_root": "_hookmap",
    "is_test_command": "_hookmap",
    "exit_code_of": "_hookmap",
    "tool_path": "_hookmap",
    "hook_module": "_hookmap",
    "hook_reader": "_hookmap",
    "NO_END": "_summary",
    "SessionSummary": "_summary",
    "summarise_session": "_summary",
    "UNKNOWN_MODEL": "_lite",
    "USER_CONFIG_NAME": "_user",
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
    "apply_machine_settings": "_user",
    "record_feedback": "_user",
    "read_feedback": "_user",
    "FeedbackVote": "_user",
    "SpoolLedger": "_ledger",
    "queue_candidate": "_candidates",
    "save_candidate": "_candidates",
    "list_candidates": "_candidates",
    "load_candidate": "_candidates",
    "CandidateList": "_candidates",
    "queue_record": "_records",
    "queue_note": "_records",
    "save_record": "_records",
    "list_records": "_records",
    "records_dir": "_records",
    "RecordList": "_records",
    "run_capture_hook": "_hook",
    "close_idle_sessions": "_hook",
    "summarise_intent": "_intent",
    "SessionAudit": "_audit",
    "audit_session": "_audit",
    "audit_sessions": "_audit",
    "last_session": "_audit",
    "prune_spool": "_audit",
    # the digest and metrics aggregation (pydantic, loaded only when used)
    "repo_join_key": "_gitinfo",
    "RepoKeys": "_repos",
    "repo_keys": "_repos",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # explicit re-exports (``X as X``) for type checkers
    from ._active import (
        find_active_session as find_active_session,
        mark_session_active as mark_session_active,
        mark_session_ended as mark_session_ended,
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
    from ._gitinfo import repo_join_key as repo_join_key
    from ._hook import (
        close_idle_sessions as close_idle_sessions,
        run_capture_hook as run_capture_hook,
    )
    from ._hookmap import (
        END as END,
        IGNORE as IGNORE,
        PLAN as PLAN,
        PROMPT as PROMPT,
        START as START,
        TOOL as TOOL,
        Hook as Hook,
        claude_shaped as claude_shaped,
        exit_code_of as exit_code_of,
        first_root as first_root,
        hook_module as hook_module,
        hook_reader as hook_reader,
        is_test_command as is_test_command,
        payload_object as payload_object,
        payload_text as payload_text,
        tool_hook as tool_hook,
        tool_path as tool_path,
    )
    from ._intent import (
        summarise_intent as summarise_intent,
    )
    from ._ledger import SpoolLedger as SpoolLedger
    from ._lite import (
        UNKNOWN_MODEL as UNKNOWN_MODEL,
        safe_sid as safe_sid,
    )
    from ._records import (
        RecordList as RecordList,
        list_records as list_records,
        queue_note as queue_note,
        queue_record as queue_record,
        records_dir as records_dir,
        save_record as save_record,
    )
    from ._repos import (
        RepoKeys as RepoKeys,
        repo_keys as repo_keys,
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
    from ._summary import (
        NO_END as NO_END,
        SessionSummary as SessionSummary,
        summarise_session as summarise_session,
    )
    from ._user import (
        USER_CONFIG_NAME as USER_CONFIG_NAME,
        FeedbackVote as FeedbackVote,
        UserConfig as UserConfig,
        apply_machine_settings as apply_machine_settings,
        load_user_config as load_user_config,
        read_feedback as read_feedback,
        record_feedback as record_feedback,
        user_dir as user_dir,
    )
