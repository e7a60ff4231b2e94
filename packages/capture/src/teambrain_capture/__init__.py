"""teambrain capture: privacy-safe session events from agent hooks, the local spool and the
personal data under ``user/``.

Names load lazily so the hook path (``append_event`` and friends) imports only the standard
library; candidate handling needs pydantic and loads it when first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "JoinKeys": "_spool",
    "JsonlRead": "_spool",
    "safe_sid": "_spool",
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
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
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
    from ._candidates import (
        CandidateList as CandidateList,
        list_candidates as list_candidates,
        load_candidate as load_candidate,
        queue_candidate as queue_candidate,
        save_candidate as save_candidate,
        validate_draft as validate_draft,
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
        safe_sid as safe_sid,
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
