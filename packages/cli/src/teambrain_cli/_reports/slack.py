"""Sending the digest to a Slack incoming webhook.

The webhook URL is a credential: it lives in an environment variable whose *name* is in
``user/config.toml`` (``digest.slack_webhook_env``), and no message, error or repr ever contains
it. One POST with a timeout through the project's one HTTP client
(:mod:`teambrain_schema.outbound`: no redirect followed, no proxy from the environment, the
reply read within a cap), no retries.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from teambrain_capture import USER_CONFIG_NAME, load_user_config, user_dir
from teambrain_schema import EnvironmentProblem
from teambrain_schema.paths import MachineLayout

DEFAULT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class SlackWebhook:
    """A configured webhook: the variable it came from, and the URL (kept out of repr)."""

    env_name: str
    url: str = field(repr=False)


@dataclass(frozen=True)
class WebhookLookup:
    """The webhook when one is configured, else why the digest is a dry run."""

    webhook: SlackWebhook | None
    reason: str


def resolve_slack_webhook(
    machine: MachineLayout | None = None, environ: Mapping[str, str] | None = None
) -> WebhookLookup:
    """Find the webhook: the variable named by ``digest.slack_webhook_env`` must be set.

    A set variable that does not hold an ``https://`` URL (``http://`` only to this machine)
    is an :class:`EnvironmentProblem`; the message names the variable, never its value."""
    from teambrain_schema.outbound import is_loopback_host

    env = os.environ if environ is None else environ
    name = load_user_config(machine).slack_webhook_env
    config = user_dir(machine) / USER_CONFIG_NAME
    if not name:
        return WebhookLookup(None, f"no digest.slack_webhook_env in {config}")
    url = env.get(name, "").strip()
    if not url:
        return WebhookLookup(None, f"${name} (digest.slack_webhook_env in {config}) is not set")
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        parts, host = None, ""
    secure = parts is not None and parts.scheme == "https" and bool(host)
    local = parts is not None and parts.scheme == "http" and is_loopback_host(host)
    if not (secure or local):
        raise EnvironmentProblem(
            f"${name} does not hold an https:// webhook URL (its value is not shown)"
        )
    return WebhookLookup(SlackWebhook(name, url), f"webhook from ${name}")


# Slack answers "ok"; nothing more of its reply is read.
MAX_REPLY_BYTES = 64 * 1024


def post_slack(
    webhook: SlackWebhook, payload: Mapping[str, object], *, timeout: float = DEFAULT_TIMEOUT_S
) -> None:
    """POST ``payload`` as JSON to the webhook; :class:`EnvironmentProblem` with one clear line
    (naming the variable, never the URL) when it fails or answers other than 2xx."""
    from teambrain_schema.outbound import OutboundError, send

    where = f"the Slack webhook from ${webhook.env_name}"
    try:
        with send(
            webhook.url, method="POST", body=json.dumps(payload).encode("utf-8"),
            headers={"Content-Type": "application/json; charset=utf-8"},
            timeout=timeout, deadline_s=timeout, max_bytes=MAX_REPLY_BYTES,
        ) as reply:  # fmt: skip
            status = reply.status
    except OutboundError as exc:
        # The message names the origin only; the webhook's secret is its path.
        detail = exc.message.replace(webhook.url, "<webhook>")
        raise EnvironmentProblem(f"could not reach {where}: {detail}") from None
    if not 200 <= status < 300:
        raise EnvironmentProblem(f"{where} answered HTTP {status}; the digest was not posted")
