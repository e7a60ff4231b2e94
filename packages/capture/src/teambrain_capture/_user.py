"""Personal, machine-local data under ``$TEAMBRAIN_HOME/user/``: settings and feedback votes.

This module is the only way to name ``user/``. teambrain_sync cannot import it (import-linter),
and schema's machine layout does not expose it, so sync cannot even build the path.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teambrain_schema import EnvironmentProblem
from teambrain_schema.local_files import read_local_text
from teambrain_schema.paths import MachineLayout, machine_layout

from ._spool import append_jsonl, read_jsonl, utc_timestamp

USER_CONFIG_NAME = "config.toml"
DEFAULT_RETENTION_DAYS = 30


def user_dir(machine: MachineLayout | None = None) -> Path:
    """``$TEAMBRAIN_HOME/user``."""
    return (machine or machine_layout()).home / "user"


@dataclass(frozen=True)
class UserConfig:
    """``user/config.toml``: settings that are personal to this machine."""

    retention_days: int = DEFAULT_RETENTION_DAYS
    slack_webhook_env: str | None = None
    org_brain: str | None = None  # where the org brain is checked out on this machine
    serve_from: str | None = None  # "default-branch" or "checkout" (unset: default-branch)
    fetch_minutes: float | None = None  # tb serve fetches the default branch this often
    fetch_timeout_s: float | None = None
    # `tb digest --publish` may send this machine's weekly digest figures (suppressed
    # aggregates only) to the brain's shared database: off until the user says so.
    publish_to_team: bool = False


def load_user_config(machine: MachineLayout | None = None) -> UserConfig:
    """Read ``user/config.toml`` (defaults when it does not exist)."""
    path = user_dir(machine) / USER_CONFIG_NAME
    try:
        data: dict[str, Any] = tomllib.loads(read_local_text(path, max_bytes=1024 * 1024))
    except FileNotFoundError:
        return UserConfig()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise EnvironmentProblem(f"{path}: cannot read ({exc})") from None
    capture = data.get("capture", {})
    digest = data.get("digest", {})
    retention = capture.get("retention_days", DEFAULT_RETENTION_DAYS)
    if not isinstance(retention, int) or isinstance(retention, bool) or not 1 <= retention <= 3650:
        raise EnvironmentProblem(
            f"{path}: capture.retention_days must be an integer from 1 to 3650"
        )
    webhook_env = digest.get("slack_webhook_env")
    if webhook_env is not None and not (
        isinstance(webhook_env, str) and webhook_env.isidentifier()
    ):
        raise EnvironmentProblem(
            f"{path}: digest.slack_webhook_env must be an environment variable name"
        )
    publish = digest.get("publish_to_team", False)
    if not isinstance(publish, bool):
        raise EnvironmentProblem(f"{path}: digest.publish_to_team must be true or false")
    org = data.get("org_brain", {})
    org_path = org.get("path") if isinstance(org, dict) else None
    if org_path is not None and not (isinstance(org_path, str) and org_path.strip()):
        raise EnvironmentProblem(f"{path}: org_brain.path must be a path (a non-empty string)")
    serve = data.get("serve", {})
    serve = serve if isinstance(serve, dict) else {}
    serve_from = serve.get("from")
    if serve_from is not None and serve_from not in ("default-branch", "checkout"):
        raise EnvironmentProblem(f'{path}: serve.from must be "default-branch" or "checkout"')
    minutes = _number(path, serve, "fetch_minutes", 0, 24 * 60)
    timeout = _number(path, serve, "fetch_timeout_s", 1, 600)
    return UserConfig(
        retention_days=retention, slack_webhook_env=webhook_env,
        org_brain=org_path.strip() if org_path else None, serve_from=serve_from,
        fetch_minutes=minutes, fetch_timeout_s=timeout, publish_to_team=publish,
    )  # fmt: skip


def _number(path: Path, table: dict[str, Any], key: str, low: float, high: float) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise EnvironmentProblem(f"{path}: serve.{key} must be a number from {low:g} to {high:g}")
    return float(value)


def apply_machine_settings(machine: MachineLayout | None = None) -> None:
    """Put this machine's settings that other packages read from the environment there, unless
    the environment already says (it wins; retrieval may not read ``user/``): ``[org_brain]
    path`` becomes ``$TEAMBRAIN_ORG_BRAIN``, ``[serve] from``, ``fetch_minutes`` and
    ``fetch_timeout_s`` become ``$TEAMBRAIN_SERVE_FROM``, ``$TEAMBRAIN_FETCH_MINUTES`` and
    ``$TEAMBRAIN_FETCH_TIMEOUT``. A ``user/config.toml`` that cannot be read changes nothing
    here (``tb doctor`` names it)."""
    import os

    from teambrain_schema.home import (
        FETCH_MINUTES_ENV,
        FETCH_TIMEOUT_ENV,
        ORG_BRAIN_ENV,
        SERVE_FROM_ENV,
        note_from_user_config,
    )

    try:
        config = load_user_config(machine)
    except EnvironmentProblem:
        return

    def text(value: float | None) -> str | None:
        return None if value is None else f"{value:g}"

    settings = {
        ORG_BRAIN_ENV: (config.org_brain, "[org_brain] path"),
        SERVE_FROM_ENV: (config.serve_from, "[serve] from"),
        FETCH_MINUTES_ENV: (text(config.fetch_minutes), "[serve] fetch_minutes"),
        FETCH_TIMEOUT_ENV: (text(config.fetch_timeout_s), "[serve] fetch_timeout_s"),
    }
    for name, (value, setting) in settings.items():
        if value is not None and not os.environ.get(name, "").strip():
            os.environ[name] = value
            note_from_user_config(name, setting)


def record_feedback(
    memory_id: str, useful: bool, *, sid: str | None = None, machine: MachineLayout | None = None
) -> None:
    """Append one feedback vote to ``user/feedback.jsonl``."""
    record: dict[str, Any] = {"t": utc_timestamp(), "id": memory_id, "useful": bool(useful)}
    if sid:
        record["sid"] = sid
    append_jsonl(user_dir(machine) / "feedback.jsonl", record)


@dataclass(frozen=True)
class FeedbackVote:
    """One recorded vote."""

    t: dt.datetime
    id: str
    useful: bool
    sid: str | None = None


def read_feedback(machine: MachineLayout | None = None) -> list[FeedbackVote]:
    """Every feedback vote recorded on this machine (corrupt lines skipped)."""
    votes = []
    for record in read_jsonl(user_dir(machine) / "feedback.jsonl").records:
        try:
            moment = dt.datetime.fromisoformat(str(record["t"]).replace("Z", "+00:00"))
            votes.append(
                FeedbackVote(moment, str(record["id"]), bool(record["useful"]), record.get("sid"))
            )
        except (KeyError, ValueError, TypeError):
            continue
    return votes
