"""The door of ``tb ui``: what a request must show before any page or action sees it.

The server listens on 127.0.0.1 only, but that alone keeps out neither other users of this
machine nor web pages open in the browser. So, as Jupyter does, the address carries a secret
made for this run, here as the first path segment (``/<secret>/brain``): every link of the page
is under it, and nothing else answers. On top of the secret:

- ``Host`` must name this server (``127.0.0.1:<port>`` or ``localhost:<port>``): a DNS
  rebinding page reaches the socket under its own host name and is refused;
- ``Origin`` (when the browser sends one) must be this server, and every action (POST) must
  carry it (or a ``Referer`` of this server): another site's form cannot act;
- ``Sec-Fetch-Site`` other than ``same-origin`` or ``none`` (typed address, bookmark) is refused
  (another port of 127.0.0.1 is "same-site" to a browser, not same-origin), except for opening
  a page itself (``Sec-Fetch-Mode: navigate`` to a ``document`` with GET): following a link with
  the secret from elsewhere — the local file ``tb ui`` opens the browser with — only shows a
  page, which no other site can frame or read;
- only GET, HEAD and POST are served.

Every answer, refusals included, carries a Content-Security-Policy that allows nothing but this
server's own style sheet, images and frames and no script at all (none could run even if markup
slipped through escaping), no framing, no caching, and a referrer for this server only
(``same-origin``: with ``no-referrer`` a browser sends ``Origin: null`` with a form, and the
page's own actions would be refused). One page may be framed, and by this server's own pages
only (``frame-ancestors 'self'``): the review queue's live status line (live.py), which holds
no form and no action.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = frozenset({"GET", "HEAD"})
ALLOWED_METHODS = SAFE_METHODS | {"POST"}
ALLOWED_FETCH_SITES = frozenset({"same-origin", "none"})

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'self'; script-src 'none'; img-src 'self'; "
    "frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
# The pages that this server's own pages may frame (inner paths): the queue's live status.
FRAMABLE_PATHS = frozenset({"/live/queue"})
FRAMABLE_POLICY = CONTENT_SECURITY_POLICY.replace(
    "frame-ancestors 'none'", "frame-ancestors 'self'"
)
_COMMON_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    *_COMMON_HEADERS,
)
FRAMABLE_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", FRAMABLE_POLICY.encode()),
    (b"x-frame-options", b"SAMEORIGIN"),
    *_COMMON_HEADERS,
)


def allowed_hosts(port: int) -> frozenset[str]:
    """The ``Host`` values a browser sends for this server's address."""
    return frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})


def allowed_origins(port: int) -> frozenset[str]:
    """The ``Origin`` values of this server's own pages."""
    return frozenset(f"http://{host}" for host in allowed_hosts(port))


class Refusal(Exception):
    """A request the guard turns away: the status and a one-line reason (plain text)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _headers(scope: Scope) -> dict[str, str]:
    """Request headers, lower-cased; a header sent twice is refused (no guessing which wins)."""
    found: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        guarded = name in ("host", "origin", "referer") or name.startswith("sec-fetch-")
        if guarded and name in found:
            raise Refusal(400, f"{name} header sent twice")
        found[name] = raw_value.decode("latin-1")
    return found


def check_request(scope: Scope, *, secret: str, port: int) -> str:
    """The path under the secret prefix (``/brain``) when ``scope`` may be served; raises
    :class:`Refusal` otherwise. Pure: the tests call it with hand-made scopes."""
    method = scope.get("method", "GET")
    if method not in ALLOWED_METHODS:
        raise Refusal(405, f"method {method} not allowed")
    headers = _headers(scope)
    host = headers.get("host", "")
    if host not in allowed_hosts(port):
        raise Refusal(403, "refused: unexpected Host header (open the address tb ui printed)")
    origin = headers.get("origin")
    origins = allowed_origins(port)
    if origin is not None and origin not in origins:
        raise Refusal(403, "refused: request from another origin")
    site = headers.get("sec-fetch-site")
    opening = (
        method in SAFE_METHODS
        and headers.get("sec-fetch-mode") == "navigate"
        and headers.get("sec-fetch-dest") == "document"
    )
    if site is not None and site not in ALLOWED_FETCH_SITES and not opening:
        raise Refusal(403, "refused: request from another site")
    if method not in SAFE_METHODS and origin is None:
        referer = headers.get("referer")
        parts = urlsplit(referer) if referer else None
        if parts is None or f"{parts.scheme}://{parts.netloc}" not in origins:
            raise Refusal(403, "refused: an action must come from this page (no Origin)")
    path: str = scope.get("path", "")
    prefix, _, rest = path.lstrip("/").partition("/")
    if not hmac.compare_digest(prefix.encode("utf-8", "surrogatepass"), secret.encode()):
        raise Refusal(403, "refused: this address needs the secret tb ui printed with it")
    return "/" + rest


class Guard:
    """ASGI middleware: :func:`check_request` on every HTTP request, the security headers on
    every answer, and the inner app sees paths without the secret prefix."""

    def __init__(self, app: ASGIApp, *, secret: str, port: int) -> None:
        self.app = app
        self.secret = secret
        self.port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan (no websockets are served)
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return

        secured = SECURITY_HEADERS

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in secured}
                kept = [(n, v) for n, v in message.get("headers", []) if n.lower() not in names]
                message["headers"] = [*kept, *secured]
            await send(message)

        try:
            inner = check_request(scope, secret=self.secret, port=self.port)
        except Refusal as refusal:
            await _refuse(refusal, send_secured)
            return
        if inner in FRAMABLE_PATHS and scope.get("method") in SAFE_METHODS:
            secured = FRAMABLE_HEADERS
        scope = dict(scope)
        scope["path"] = inner
        scope["raw_path"] = inner.encode("utf-8", "surrogateescape")
        await self.app(scope, receive, send_secured)


async def _refuse(refusal: Refusal, send: Send) -> None:
    body = (refusal.reason + "\n").encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": refusal.status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
