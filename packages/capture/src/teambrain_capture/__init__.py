"""teambrain capture: privacy-safe session events from agent hooks, the local spool and the
personal data under ``user/``.

Names load lazily so the hook path (``append_event`` and friends) imports only the standard
library; candidate handling needs pydantic and loads it when first used.
"""

from __future__ import annotations

# Not ``typing.TYPE_CHECKING``: importing typing costs the capture hook milliseconds at start-up.
# mypy treats any constant of this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
    "validate_draft": "_candidates",
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
    "check_adapters": "_adapters",
    "AdapterProblem": "_adapters",
    "bundled_adapters_file": "_adapters",
    "InstallPlan": "_install",
    "FileChange": "_install",
    "plan_install": "_install",
    "apply_install": "_install",
    "adapter_notes": "_install",
    "SessionSummary": "_audit",
    "summarise_session": "_audit",
    "audit_sessions": "_audit",
    "last_session": "_audit",
    "prune_spool": "_audit",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module_name}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


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
        register_adapter as register_adapter,
        resolve_adapter as resolve_adapter,
        supported_tools as supported_tools,
    )
    from ._audit import (
        SessionSummary as SessionSummary,
        audit_sessions as audit_sessions,
        last_session as last_session,
        prune_spool as prune_spool,
        summarise_session as summarise_session,
    )
    from ._candidates import (
        CandidateList as CandidateList,
        list_candidates as list_candidates,
        load_candidate as load_candidate,
        queue_candidate as queue_candidate,
        save_candidate as save_candidate,
        validate_draft as validate_draft,
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
    from ._lite import (
        safe_sid as safe_sid,
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
