"""The one way teambrain sends an HTTP request: to exactly the destination it was given, read
with a byte cap. Stdlib only (``http.client``, ``ssl``, ``zlib``).

Every client of the project — the remote embedders, the distill drivers (their SDKs send
through it), ``tb doctor --online``, ``tb verify``'s package index, the Slack digest — goes
through :func:`send`, so these hold everywhere:

- **No redirect is followed.** An approval covers one destination; a 3xx answer is an
  :class:`OutboundError` naming where it pointed (its origin only), in one line. An API needs
  no redirect, so none is followed even to the same host.
- **No proxy from the environment.** ``http_proxy``, ``HTTPS_PROXY``, ``ALL_PROXY`` … are never
  read: a committed agent config can set them for the server it starts. A proxy is used only
  when this machine's own ``$TEAMBRAIN_HOME/trust.json`` names one (``tb trust --proxy``), and
  never for a destination on this machine (loopback).
- **Every reply is read with a byte cap**, on the wire and unpacked (gzip, deflate): a reply
  that passes it stops with one line, having held at most the cap (plus one read) in memory.
"""

from __future__ import annotations

import os
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._errors import EnvironmentProblem

if TYPE_CHECKING:
    import http.client
    import ssl

__all__ = [
    "DEFAULT_MAX_REPLY_BYTES",
    "ENV_PROXY_VARIABLES",
    "OutboundError",
    "OutboundTimeout",
    "RedirectRefused",
    "Reply",
    "ReplyTooLarge",
    "Unreachable",
    "env_proxies_ignored",
    "is_loopback_host",
    "origin_of",
    "send",
]

DEFAULT_MAX_REPLY_BYTES = 16 * 1024 * 1024
READ_SIZE = 64 * 1024
REDIRECT_STATUS = frozenset({300, 301, 302, 303, 305, 307, 308})
# Read by urllib, requests, httpx, curl and git; never by teambrain.
ENV_PROXY_VARIABLES = (
    "http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
)  # fmt: skip
# Encodings this module unpacks (and so the only ones it asks for).
ACCEPT_ENCODING = "gzip, deflate"
MACHINE = "machine"  # the proxy argument's default: the one this machine's trust.json names


class OutboundError(EnvironmentProblem):
    """A request that could not be sent or whose reply was not read; ``message`` is one line
    naming the destination by origin only (never a credential, path or query)."""


class Unreachable(OutboundError):
    """The destination (or the proxy) could not be connected to, or the request not sent."""


class OutboundTimeout(OutboundError):
    """No answer (or no next piece of it) within the timeout."""


class RedirectRefused(OutboundError):
    """The server answered with a redirect; it was not followed."""

    def __init__(self, message: str, status: int, target: str) -> None:
        super().__init__(message)
        self.status = status
        self.target = target  # the origin it pointed at ("" when it named none)


class ReplyTooLarge(OutboundError):
    """The reply passed the byte cap (on the wire or unpacked); the rest was not read."""


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, for messages: no credential, path or query."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "(an unreadable URL)"
    host = parts.hostname or "?"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def is_loopback_host(host: str) -> bool:
    """True for a name or address on this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    import ipaddress

    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def env_proxies_ignored(environ: Mapping[str, str] | None = None) -> list[str]:
    """The proxy variables set in the environment (which teambrain does not use)."""
    env = os.environ if environ is None else environ
    return [name for name in ENV_PROXY_VARIABLES if env.get(name, "").strip()]


def _size(count: int) -> str:
    if count >= 1024 * 1024 and count % (1024 * 1024) == 0:
        return f"{count // (1024 * 1024)} MiB"
    if count >= 1024 and count % 1024 == 0:
        return f"{count // 1024} KiB"
    return f"{count:,} bytes"


class _Unpacker:
    """A content-encoding undone piece by piece, never producing more than the cap allows."""

    def __init__(self, encoding: str, where: str, limit: int) -> None:
        self.encoding = encoding
        self.where = where
        self.limit = limit
        self.produced = 0
        self._head = b""
        self._inflater = self._new()

    def _new(self) -> Any:
        if self.encoding in ("gzip", "x-gzip"):
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        return None  # deflate: decided by feed()

    def _too_large(self) -> ReplyTooLarge:
        return ReplyTooLarge(
            f"{self.where}: the reply unpacks ({self.encoding}) to more than "
            f"{_size(self.limit)}, the most teambrain reads from a server: the rest was not read"
        )

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._inflater is not None and self._inflater.eof:
            if self._inflater.unused_data[:2] != b"\x1f\x8b" or self.encoding == "deflate":
                return  # after the end of the body
            data = self._inflater.unused_data + data
            self._inflater = self._new()
        if self._inflater is None:  # deflate: zlib-wrapped or raw, told by its first 2 bytes
            data = self._head + data
            if len(data) < 2:
                self._head = data
                return
            wrapped = (data[0] & 0x0F) == 8 and (data[0] << 8 | data[1]) % 31 == 0
            self._inflater = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        pending = data
        while pending:
            room = self.limit - self.produced + 1
            try:
                out = self._inflater.decompress(pending, room)
            except zlib.error as exc:
                raise OutboundError(
                    f"{self.where}: the reply is not valid {self.encoding} ({exc})"
                ) from None
            self.produced += len(out)
            if self.produced > self.limit:
                raise self._too_large()
            if out:
                yield out
            if self._inflater.unconsumed_tail:
                pending = self._inflater.unconsumed_tail
            elif self._inflater.eof and self._inflater.unused_data[:2] == b"\x1f\x8b":
                pending = self._inflater.unused_data  # a second gzip member
                self._inflater = self._new()
            else:
                pending = b""  # the end, or bytes after the end: ignored (counted on the wire)


class Reply:
    """An answer whose body has not been read yet: its status and headers, and its bytes
    (unpacked, capped) through :meth:`chunks` or :meth:`read`. Close it (or use ``with``)."""

    def __init__(
        self,
        response: http.client.HTTPResponse,
        connection: http.client.HTTPConnection,
        *,
        where: str,
        max_bytes: int,
        max_wire_bytes: int,
        timeout: float,
        deadline: float | None,
        deadline_s: float | None = None,
    ) -> None:
        self._response = response
        self._connection = connection
        self.status: int = response.status
        self.reason: str = response.reason or ""
        self.headers: list[tuple[str, str]] = list(response.getheaders())
        self.where = where
        self.max_bytes = max_bytes
        self.max_wire_bytes = max_wire_bytes
        self.timeout = timeout
        self.deadline = deadline
        self.deadline_s = deadline_s if deadline_s is not None else timeout
        self.wire = 0
        encoding = (response.getheader("Content-Encoding") or "identity").strip().lower()
        self.encoding = "identity" if encoding in ("", "identity") else encoding
        if self.encoding not in ("identity", "gzip", "x-gzip", "deflate"):
            self.close()
            raise OutboundError(
                f"{where}: the reply is in an encoding teambrain did not ask for "
                f"({self.encoding[:40]}): not read"
            )

    def header(self, name: str, default: str = "") -> str:
        """The first value of header ``name`` (any case)."""
        wanted = name.lower()
        return next((v for k, v in self.headers if k.lower() == wanted), default)

    def _raw(self) -> Iterator[bytes]:
        import http.client

        sock = getattr(self._connection, "sock", None)
        while True:
            if self.deadline is not None:
                left = self.deadline - time.monotonic()
                if left <= 0:
                    raise OutboundTimeout(
                        f"{self.where}: no complete reply within {self.deadline_s:g}s"
                    )
                if sock is not None:
                    sock.settimeout(min(self.timeout, left))
            try:
                data = self._response.read1(READ_SIZE)
            except TimeoutError:
                if self.deadline is not None and time.monotonic() >= self.deadline - 0.01:
                    raise OutboundTimeout(
                        f"{self.where}: no complete reply within {self.deadline_s:g}s"
                    ) from None
                raise OutboundTimeout(
                    f"{self.where}: the reply stopped for {self.timeout:g}s"
                ) from None
            except (OSError, http.client.HTTPException) as exc:
                raise OutboundError(
                    f"{self.where}: the reply was cut off ({_reason(exc)})"
                ) from None
            if not data:
                return
            self.wire += len(data)
            if self.wire > self.max_wire_bytes:
                raise ReplyTooLarge(
                    f"{self.where}: the reply passed {_size(self.max_wire_bytes)}, the most "
                    "teambrain reads from a server: the rest was not read"
                )
            yield data

    def chunks(self) -> Iterator[bytes]:
        """The body as it arrives, unpacked; raises :class:`ReplyTooLarge` once it passes the
        cap (what was yielded before stays yielded), and closes the reply at its end."""
        try:
            if self.encoding == "identity":
                produced = 0
                for data in self._raw():
                    produced += len(data)
                    if produced > self.max_bytes:
                        raise ReplyTooLarge(
                            f"{self.where}: the reply passed {_size(self.max_bytes)}, the most "
                            "teambrain reads from a server: the rest was not read"
                        )
                    yield data
                return
            unpacker = _Unpacker(self.encoding, self.where, self.max_bytes)
            for data in self._raw():
                yield from unpacker.feed(data)
        finally:
            self.close()

    def read(self) -> bytes:
        """The whole body, unpacked, within the cap."""
        return b"".join(self.chunks())

    def json(self) -> Any:
        """The body as JSON; :class:`OutboundError` when it is not."""
        import json

        data = self.read()
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise OutboundError(f"{self.where} did not answer JSON") from None

    def close(self) -> None:
        try:
            self._response.close()
        finally:
            self._connection.close()

    def __enter__(self) -> Reply:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _reason(exc: BaseException) -> str:
    text = " ".join(str(getattr(exc, "strerror", None) or exc).split())
    return text[:200] or exc.__class__.__name__


def _proxy_setting(proxy: str | None) -> str | None:
    if proxy != MACHINE:
        return proxy
    from .egress import machine_proxy

    return machine_proxy()


def _hint_env_proxies() -> str:
    ignored = env_proxies_ignored()
    if not ignored:
        return ""
    return (
        f" (${ignored[0]} in the environment is not used: `tb trust --proxy <url>` names "
        "this machine's proxy)"
    )


def send(
    url: str,
    *,
    method: str = "GET",
    body: bytes | None = None,
    headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
    timeout: float = 30.0,
    deadline_s: float | None = None,
    max_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    max_wire_bytes: int | None = None,
    proxy: str | None = MACHINE,
    ssl_context: ssl.SSLContext | None = None,
) -> Reply:
    """Send one request to ``url`` (http or https) and return the :class:`Reply` once its
    status and headers are in. ``timeout``: seconds for connecting and for each read;
    ``deadline_s``: seconds for the whole exchange, body included (None: no overall bound).
    ``max_bytes`` bounds the body unpacked, ``max_wire_bytes`` (default: the same) as sent.
    ``proxy``: an ``http://host:port`` proxy, None for none, or (the default) the one this
    machine's trust.json names; never used for a loopback destination.

    Raises :class:`RedirectRefused` for a 3xx answer, :class:`OutboundTimeout`, and
    :class:`OutboundError` when the destination cannot be reached; any other status is
    returned for the caller to judge.
    """
    import http.client
    from urllib.parse import urlsplit

    where = origin_of(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise OutboundError(f"not a URL: {where}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise OutboundError(f"only http(s) URLs are sent to: {where}")
    host = parts.hostname
    port = port or (443 if scheme == "https" else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    chosen = None if is_loopback_host(host) else _proxy_setting(proxy)
    started = time.monotonic()
    deadline = started + deadline_s if deadline_s is not None else None
    connection: http.client.HTTPConnection
    sent_headers: dict[str, str] = {"Accept-Encoding": ACCEPT_ENCODING, "Connection": "close"}
    for name, value in headers.items() if isinstance(headers, Mapping) else headers or ():
        if name.lower() in ("connection", "accept-encoding", "proxy-authorization"):
            continue
        sent_headers[name] = value
    host_header = host if ":" not in host else f"[{host}]"
    if parts.port:
        host_header += f":{parts.port}"
    if not any(name.lower() == "host" for name in sent_headers):
        sent_headers["Host"] = host_header
    context = None
    if scheme == "https":
        import ssl

        context = ssl_context or ssl.create_default_context()
    if chosen is None:
        if scheme == "https":
            connection = http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
        else:
            connection = http.client.HTTPConnection(host, port, timeout=timeout)
    else:
        proxy_host, proxy_port, authorization = _parse_proxy(chosen)
        tunnel_headers = {"Proxy-Authorization": authorization} if authorization else None
        if scheme == "https":
            connection = http.client.HTTPSConnection(
                proxy_host, proxy_port, timeout=timeout, context=context
            )
            connection.set_tunnel(host, port, headers=tunnel_headers)
        else:
            connection = http.client.HTTPConnection(proxy_host, proxy_port, timeout=timeout)
            target = f"http://{host_header}{target}"
            if authorization:
                sent_headers["Proxy-Authorization"] = authorization
    via = f" through the proxy {origin_of(chosen)}" if chosen else ""
    try:
        connection.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
        for name, value in sent_headers.items():
            connection.putheader(name, value)
        if body is not None and not any(n.lower() == "content-length" for n in sent_headers):
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        if deadline is not None and connection.sock is not None:
            connection.sock.settimeout(max(0.001, min(timeout, deadline - time.monotonic())))
        response = connection.getresponse()
    except TimeoutError:
        connection.close()
        raise OutboundTimeout(f"no answer from {where}{via} within {timeout:g}s") from None
    except (OSError, http.client.HTTPException, ValueError) as exc:
        connection.close()
        raise Unreachable(
            f"cannot reach {where}{via}: {_reason(exc)}" + ("" if chosen else _hint_env_proxies())
        ) from None
    if response.status in REDIRECT_STATUS:
        location = response.getheader("Location") or ""
        response.close()
        connection.close()
        raise _redirect(where, response.status, location)
    return Reply(
        response, connection, where=where, max_bytes=max_bytes,
        max_wire_bytes=max_wire_bytes if max_wire_bytes is not None else max_bytes,
        timeout=timeout, deadline=deadline, deadline_s=deadline_s,
    )  # fmt: skip


def _redirect(where: str, status: int, location: str) -> RedirectRefused:
    from urllib.parse import urljoin

    absolute = urljoin(where + "/", location.strip()) if location.strip() else ""
    target = origin_of(absolute) if absolute else ""
    if not target:
        pointed = "a redirect that names no place"
    elif target == where:
        pointed = "a redirect to another path of the same server"
    else:
        pointed = f"a redirect to {target}"
    return RedirectRefused(
        f"{where} answered HTTP {status}, {pointed}: not followed (teambrain sends only to the "
        "destination as configured and approved; if the new place is right, configure it)",
        status,
        target,
    )


def _parse_proxy(url: str) -> tuple[str, int, str | None]:
    """Host, port and ``Proxy-Authorization`` value of an ``http://[user:pass@]host:port``."""
    import base64
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise OutboundError(f"the proxy must be an http://host:port URL, not {origin_of(url)}")
    authorization = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        authorization = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
    return parts.hostname, parts.port or 80, authorization
