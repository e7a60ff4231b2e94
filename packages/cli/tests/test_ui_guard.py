"""The door of ``tb ui``: only this run's address, from this server's own pages, is served; every
answer carries the headers that keep a page from loading anything else."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest
from hypothesis import given, strategies as st
from teambrain_cli._ui.guard import (
    CONTENT_SECURITY_POLICY,
    Guard,
    Refusal,
    allowed_hosts,
    check_request,
)

SECRET = "s3cr3t-Token_0123456789abcdefghij"
PORT = 41234
HOST = f"127.0.0.1:{PORT}"
ORIGIN = f"http://{HOST}"


def scope(path: str = f"/{SECRET}/brain", method: str = "GET", **headers: str) -> dict[str, Any]:
    given_headers = {"host": HOST, **{k.replace("_", "-"): v for k, v in headers.items()}}
    return {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(k.encode(), v.encode()) for k, v in given_headers.items()],
    }


def refused(request: dict[str, Any]) -> Refusal:
    with pytest.raises(Refusal) as caught:
        check_request(request, secret=SECRET, port=PORT)
    return caught.value


def test_the_address_with_the_secret_is_served_without_it() -> None:
    assert check_request(scope(), secret=SECRET, port=PORT) == "/brain"
    assert check_request(scope(f"/{SECRET}/"), secret=SECRET, port=PORT) == "/"
    assert check_request(scope(f"/{SECRET}"), secret=SECRET, port=PORT) == "/"
    localhost = scope(host=f"localhost:{PORT}")
    assert check_request(localhost, secret=SECRET, port=PORT) == "/brain"


@pytest.mark.parametrize(
    "path",
    ["/", "/brain", f"/{SECRET[:-1]}/brain", f"/{SECRET}x/brain", f"/x/{SECRET}/brain",
     f"/{SECRET.upper()}/brain", "//brain", ""],
)  # fmt: skip
def test_a_path_without_the_exact_secret_is_refused(path: str) -> None:
    assert refused(scope(path)).status == 403


@given(st.text(max_size=40))
def test_no_other_first_segment_opens_the_door(segment: str) -> None:
    if segment == SECRET:
        return
    with pytest.raises(Refusal):
        check_request(scope(f"/{segment}/brain"), secret=SECRET, port=PORT)


@pytest.mark.parametrize(
    "host",
    ["evil.example", f"evil.example:{PORT}", f"127.0.0.1:{PORT + 1}", "127.0.0.1",
     f"127.0.0.2:{PORT}", f"[::1]:{PORT}", f"0.0.0.0:{PORT}", f"LOCALHOST.:{PORT}", ""],
)  # fmt: skip
def test_a_host_that_is_not_this_server_is_refused(host: str) -> None:
    """DNS rebinding: a page under its own name that resolves to 127.0.0.1."""
    assert refused(scope(host=host)).status == 403


@given(st.text(max_size=30))
def test_only_this_servers_hosts_are_accepted(host: str) -> None:
    request = scope(host=host)
    if host in allowed_hosts(PORT):
        check_request(request, secret=SECRET, port=PORT)
    else:
        with pytest.raises(Refusal):
            check_request(request, secret=SECRET, port=PORT)


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example", f"http://127.0.0.1:{PORT + 1}", f"https://127.0.0.1:{PORT}", "null",
     f"http://127.0.0.1:{PORT}.evil.example"],
)  # fmt: skip
def test_another_origin_is_refused_for_pages_and_actions(origin: str) -> None:
    assert refused(scope(origin=origin)).status == 403
    assert refused(scope(method="POST", origin=origin)).status == 403


def test_an_action_must_say_it_comes_from_this_page() -> None:
    """A form another site posts carries its Origin; a request carrying none is refused too."""
    assert "Origin" in refused(scope(method="POST")).reason
    referer = f"http://evil.example/{SECRET}/queue"
    assert refused(scope(method="POST", referer=referer)).status == 403
    assert check_request(scope(method="POST", origin=ORIGIN), secret=SECRET, port=PORT)
    own = f"{ORIGIN}/{SECRET}/queue"
    assert check_request(scope(method="POST", referer=own), secret=SECRET, port=PORT)


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_requests_the_browser_marks_as_from_another_site_are_refused(site: str) -> None:
    """Another port of 127.0.0.1 is "same-site" to a browser: still not this page. Opening the
    page itself from a link elsewhere (a top-level navigation, GET) only shows it."""
    assert refused(scope(sec_fetch_site=site)).status == 403
    assert refused(scope(sec_fetch_site=site, sec_fetch_mode="cors", sec_fetch_dest="empty")).status == 403  # fmt: skip
    assert refused(scope(sec_fetch_site=site, sec_fetch_mode="navigate", sec_fetch_dest="iframe")).status == 403  # fmt: skip
    opening = {"sec_fetch_site": site, "sec_fetch_mode": "navigate", "sec_fetch_dest": "document"}
    assert check_request(scope(**opening), secret=SECRET, port=PORT) == "/brain"
    posted = scope(method="POST", origin=ORIGIN, **opening)  # an action never
    assert refused(posted).status == 403
    assert check_request(scope(sec_fetch_site="same-origin"), secret=SECRET, port=PORT)
    assert check_request(scope(sec_fetch_site="none"), secret=SECRET, port=PORT)


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"])
def test_only_get_head_and_post_are_served(method: str) -> None:
    assert refused(scope(method=method, origin=ORIGIN)).status == 405


def test_a_guarded_header_sent_twice_is_refused() -> None:
    request = scope()
    request["headers"].append((b"host", b"evil.example"))
    assert refused(request).status == 400


def _call(request: dict[str, Any]) -> tuple[int, dict[bytes, bytes], bytes, dict[str, Any]]:  # fmt: skip
    """Drive the middleware once; (status, headers, body, scope the inner app saw)."""
    seen: dict[str, Any] = {}
    sent: list[dict[str, Any]] = []

    async def inner(inner_scope: Any, receive: Any, send: Any) -> None:
        seen.update(inner_scope)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/html"), (b"x-frame-options", b"ALLOW")]})  # fmt: skip
        await send({"type": "http.response.body", "body": b"<p>page</p>"})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        sent.append(message)

    async def main() -> None:
        wrapped = Guard(inner, secret=SECRET, port=PORT)
        await wrapped(request, receive, send)

    # On a thread of its own: a browser test's Playwright keeps an event loop running on this
    # one when both share a test process (anyio.run would refuse to start).
    failed: list[BaseException] = []

    def run() -> None:
        try:
            anyio.run(main)
        except BaseException as exc:  # re-raised on the test's thread
            failed.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if failed:
        raise failed[0]
    start, body = sent[0], b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], dict(start["headers"]), body, seen


def test_refusals_and_pages_carry_the_security_headers() -> None:
    for request in (scope(), scope(host="evil.example")):
        _, headers, _, _ = _call(request)
        assert headers[b"content-security-policy"] == CONTENT_SECURITY_POLICY.encode()
        assert headers[b"x-frame-options"] == b"DENY"
        assert headers[b"referrer-policy"] == b"same-origin"
        assert headers[b"cache-control"] == b"no-store"
        assert headers[b"x-content-type-options"] == b"nosniff"
    assert "script-src 'none'" in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY


def test_the_inner_app_sees_the_path_without_the_secret_and_a_refusal_reaches_nothing() -> None:
    status, headers, body, seen = _call(scope(f"/{SECRET}/queue"))
    assert (status, body, seen["path"]) == (200, b"<p>page</p>", "/queue")
    assert headers[b"x-frame-options"] == b"DENY"  # the app's own value is replaced
    status, _, body, seen = _call(scope("/queue"))
    assert status == 403 and not seen
    assert SECRET.encode() not in body


def test_only_the_queue_status_line_may_be_framed_and_only_by_this_server() -> None:
    """The queue's live frame (live.py) is the one answer with frame-ancestors 'self'; every
    other page, a refusal, and anything but a GET of it keep 'none' and DENY."""
    _, headers, _, _ = _call(scope(f"/{SECRET}/live/queue"))
    policy = headers[b"content-security-policy"].decode()
    assert "frame-ancestors 'self'" in policy and "frame-ancestors 'none'" not in policy
    assert "script-src 'none'" in policy and headers[b"x-frame-options"] == b"SAMEORIGIN"
    for request in (
        scope(f"/{SECRET}/queue"), scope(f"/{SECRET}/live/queue/x"), scope("/live/queue"),
        scope(f"/{SECRET}/live/queue", method="POST", origin=f"http://127.0.0.1:{PORT}"),
    ):  # fmt: skip
        _, headers, _, _ = _call(request)
        assert b"frame-ancestors 'none'" in headers[b"content-security-policy"], request["path"]
        assert headers[b"x-frame-options"] == b"DENY"
    assert "frame-src 'self'" in CONTENT_SECURITY_POLICY
