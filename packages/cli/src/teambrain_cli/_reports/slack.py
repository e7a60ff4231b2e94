"""Sending the digest to a Slack incoming webhook.

The webhook URL is a credential: it lives in an environment variable whose *name* is in
``user/config.toml`` (``digest.slack_webhook_env``), and no message, error or repr ever contains
it. Stdlib only (urllib): one POST with a timeout, no redirects followed, no retries.
"""

from __future__ import annotations

import ipaddress
import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
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


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_slack_webhook(
    machine: MachineLayout | None = None, environ: Mapping[str, str] | None = None
) -> WebhookLookup:
    """Find the webhook: the variable named by ``digest.slack_webhook_env`` must be set.

    A set variable that does not hold an ``https://`` URL (``http://`` only to this machine)
    is an :class:`EnvironmentProblem`; the message names the variable, never its value."""
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
    local = parts is not None and parts.scheme == "http" and _is_loopback(host)
    if not (secure or local):
        raise EnvironmentProblem(
            f"${name} does not hold an https:// webhook URL (its value is not shown)"
        )
    return WebhookLookup(SlackWebhook(name, url), f"webhook from ${name}")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """The payload goes to the configured URL only; a redirect is a failure."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def post_slack(
    webhook: SlackWebhook, payload: Mapping[str, Any], *, timeout: float = DEFAULT_TIMEOUT_S
) -> None:
    """POST ``payload`` as JSON to the webhook; :class:`EnvironmentProblem` with one clear line
    (naming the variable, never the URL) when it fails or answers other than 2xx."""
    request = urllib.request.Request(  # noqa: S310 - the scheme is checked (https, or loopback http)
        webhook.url,
        data=json.dumps(payload).encode("utf-8"),
        headers={"Content-Type": "application/json; charset=utf-8"},
        method="POST",
    )
    handlers: list[urllib.request.BaseHandler] = [_NoRedirects()]
    if _is_loopback(urlsplit(webhook.url).hostname or ""):
        handlers.append(urllib.request.ProxyHandler({}))  # never send local traffic to a proxy
    opener = urllib.request.build_opener(*handlers)
    where = f"the Slack webhook from ${webhook.env_name}"
    try:
        with opener.open(request, timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        detail = str(reason).replace(webhook.url, "<webhook>") or reason.__class__.__name__
        raise EnvironmentProblem(f"could not reach {where}: {detail}") from None
    if not 200 <= status < 300:
        raise EnvironmentProblem(f"{where} answered HTTP {status}; the digest was not posted")
