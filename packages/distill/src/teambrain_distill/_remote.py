"""What the anthropic, openai and ollama drivers share: one streamed request per attempt, the
answer read leniently and validated, bounded re-asks, and one-line errors without credentials.

Why streamed: a model server only notices an abandoned answer when the connection closes while
it is still sending. Streaming lets the driver stop reading — at ``distill.timeout_s`` or when
the answer passes ``distill.max_output_tokens`` on a server that ignores the limit it was sent —
and close the request, so a single-slot local server stops generating instead of queueing the
next request behind an answer nobody reads. The SDKs' own re-sends are off: a timed-out answer
is not re-sent (it would time out again), and server errors are re-sent here, counted.

Every import of an SDK happens inside a function here or in a driver module, so
``import teambrain_distill`` costs nothing and a missing extra fails only the driver needing it.
"""

from __future__ import annotations

import codecs
import importlib
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError
from teambrain_schema import DistillConfig, EnvironmentProblem
from teambrain_schema.secrets import redact_secrets
from teambrain_schema.tokens import estimate_tokens

from ._budget import AttemptGuard
from ._errors import (
    CostCapReached,
    DriverNotInstalled,
    ModelOutputInvalid,
    ModelRejectedRequest,
    ModelTimedOut,
    ModelUnavailable,
    first_error_line,
)
from ._extract import NotJSON, read_answer
from ._request import Request, canonical_json

ModelT = TypeVar("ModelT", bound=BaseModel)
Message = tuple[str, str]  # (role: system | user | assistant, text)

# Status codes worth a re-send: rate limits and server-side trouble.
TRANSIENT_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
REJECTED_STATUS = frozenset({400, 413, 422})
MAX_BACKOFF_S = 30.0
# A server that ignores the output limit is cut off client-side: after this many streamed pieces
# beyond the limit (most servers stream one token a piece), or 8 characters a token.
PIECE_MARGIN = 16
CHARS_PER_TOKEN_CEILING = 8
# The byte cap of one reply: at least this, more for a large distill.max_output_tokens.
MIN_REPLY_CAP = 16 * 1024 * 1024
REPLY_BYTES_PER_TOKEN = 1024
# The part of an invalid answer quoted back in a re-ask.
MAX_QUOTED_ANSWER = 8_000

FORMAT_INSTRUCTIONS = (
    "Answer with exactly one JSON object that matches this JSON Schema — no prose before or "
    "after it, no code fence:\n{schema}"
)
REASK_INVALID = (
    "That answer could not be used: {problem}. Answer again with one JSON object that matches "
    "the schema, and nothing else."
)
# Error objects that say what kind of failure they are without an HTTP status (an error sent in
# the middle of a stream, or in the body of an HTTP 200): the status each stands for.
ERROR_TYPE_STATUS = {
    "invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
    "not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429,
    "api_error": 500, "server_error": 500, "overloaded_error": 529,
}  # fmt: skip
# A refusal that names the way the answer's shape was asked for: the server does not know that
# way (llama-cpp-python refuses json_schema, LM Studio json_object, llama-server without --jinja
# and some Ollama models refuse tools). The next way down is tried.
REFUSED_SHAPE = re.compile(r"(?i)response_format|json_schema|json_object|tool|grammar|jinja")
FALLBACK_MODES = ("tools", "json_schema", "json_object", "prompt")
# A server that says it read fewer than 1/this of the prompt tokens estimated as sent (about
# four characters a token; real tokenisers count more for JSON, never half) cut the prompt.
PROMPT_READ_RATIO = 2
# No context window is smaller than this many tokens: a shorter prompt is never cut.
MIN_CUT_PROMPT = 1024
REASK_TRUNCATED = (
    "Your answer was cut off after {limit} tokens, the most one answer may have. Answer again, "
    "shorter: fewer items and a few sentences per text field, as one complete JSON object."
)


def require_module(module: str, *, driver: str, extra: str) -> ModuleType:
    """Import ``module`` or raise :class:`DriverNotInstalled` naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise DriverNotInstalled(
            f"the {driver} driver needs the {module} package: "
            f"pip install 'teambrain-distill[{extra}]'"
        ) from None


def read_credential(config: DistillConfig, *, required: bool) -> str | None:
    """The credential from the environment variable brain.yaml names (never from anywhere
    else, never printed)."""
    name = config.api_key_env
    if name is None:
        if required:
            raise EnvironmentProblem(
                f"distill.api_key_env: required for the {config.driver} driver"
            )
        return None
    value = os.environ.get(name, "").strip()
    if not value:
        raise EnvironmentProblem(
            f"distill.api_key_env names {name}, which is not set in this environment"
        )
    return value


@dataclass
class Reply:
    """One streamed answer: its text (tool arguments or message content) and why it ended:
    ``stop``, ``length`` (the server's limit) or ``capped`` (cut off here)."""

    text: str
    finish: str
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    # Characters of reasoning the server sent apart from the answer (reasoning_content).
    thinking: int = 0
    # Why the stream could not be read (bytes that are not UTF-8, an event that is not JSON).
    unreadable: str = ""

    @property
    def truncated(self) -> bool:
        return self.finish in ("length", "capped", "max_tokens")


class OutputMeter:
    """Counts what a stream delivered against ``distill.max_output_tokens``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pieces = 0
        self.chars = 0

    def add(self, text: str | None) -> None:
        if text:
            self.pieces += 1
            self.chars += len(text)

    @property
    def over(self) -> bool:
        """True once the answer is clearly past the limit the server was sent."""
        return (
            self.pieces > self.limit + PIECE_MARGIN
            or self.chars > self.limit * CHARS_PER_TOKEN_CEILING
        )


class StreamedAnswer:
    """What a stream has delivered so far: message text, tool-call arguments (preferred when
    both come), thinking (counted, never read), and how and why it ended."""

    def __init__(self, limit: int) -> None:
        self.meter = OutputMeter(limit)
        self.text: list[str] = []
        self.arguments: list[str] = []
        self.finish = ""
        self.prompt_tokens: int | None = None
        self.output_tokens: int | None = None
        self.thinking = 0

    def add_text(self, piece: str | None) -> None:
        if piece:
            self.text.append(piece)
            self.meter.add(piece)

    def add_arguments(self, piece: str | None) -> None:
        if piece:
            self.arguments.append(piece)
            self.meter.add(piece)

    def add_thinking(self, piece: str | None) -> None:
        self.meter.add(piece)  # thinking counts against the limit
        self.thinking += len(piece or "")

    def reply(self) -> Reply:
        text = "".join(self.arguments) if self.arguments else "".join(self.text)
        return Reply(text, self.finish, self.prompt_tokens, self.output_tokens, self.thinking)


def whole_body(stream: Any) -> dict[str, Any] | None:
    """The JSON body of an answer that came back in one piece although a stream was asked for
    (a server that does not stream), else None. Closes the response when it read it."""
    response = getattr(stream, "response", None)
    kind = str(getattr(response, "headers", {}).get("content-type", ""))
    if response is None or "text/event-stream" in kind or "json" not in kind:
        return None
    try:
        response.read()
        body = response.json()
    except ValueError:
        body = None
    finally:
        stream.close()
    return body if isinstance(body, dict) else {}


class DeadlinePassed(Exception):
    """``distill.timeout_s`` passed while the answer was still streaming."""


class ServerSentError(Exception):
    """An HTTP 200 whose body is an error object instead of an answer (``body``)."""

    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__(str(body.get("error")))
        self.body = body


def reported_error(body: Any) -> tuple[int | None, str] | None:
    """The status an error object a server sent stands for (its ``code``, or its ``type``),
    and its message; None when ``body`` is no error object. Knows OpenAI's, Anthropic's and
    Ollama's shapes: ``{"error": {"message", "type", "code"}}``, ``{"type": "error", "error":
    {…}}``, ``{"error": "text"}``, and the inner object alone."""
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, str) and error.strip():
        return None, error.strip()
    if not isinstance(error, dict) or not ({"message", "type", "code"} & error.keys()):
        return None
    code = error.get("code")
    status = code if isinstance(code, int) and 400 <= code < 600 else None
    status = status or ERROR_TYPE_STATUS.get(str(error.get("type")))
    message = error.get("message") or error.get("type") or error.get("code")
    return status, " ".join(str(message).split()) or "(no message)"


@dataclass
class _Problem:
    kind: str  # timeout | transient | rejected | unavailable
    message: str
    retry_after: float | None = None
    status: int | None = None


class RemoteDriver:
    """Base of the SDK drivers. Subclasses build the SDK client and run one streamed exchange;
    this class runs the attempts and maps every failure onto our errors."""

    name = "remote"
    extra = ""
    # How the answer's shape is asked for when distill.structured_output is auto.
    default_mode = "tools"

    def __init__(
        self,
        config: DistillConfig,
        *,
        transport: Any = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        # The HTTP transport under the budget gate (None: the SDK's real one; tests pass a mock).
        self.transport = transport
        self.sleep = sleep
        self.clock = clock
        self._client: Any = None
        self._guard: AttemptGuard | None = None
        self._new_attempt = False
        self._secret: str | None = None
        self._deadline: float | None = None
        # The structured-output mode the server accepted after refusing the configured one.
        self._mode: str | None = None
        # What the run should be told (a mode the server refused, and the one used instead).
        self.notes: list[str] = []
        self._cut_noted = False

    # -- what subclasses provide ------------------------------------------------------------
    def build_client(self) -> Any:
        """The SDK client (timeout set, its own re-sends off, our transport underneath)."""
        raise NotImplementedError

    def open_stream(self, client: Any, request: Request, messages: list[Message]) -> Any:
        """Send ``messages`` once, asking for a streamed answer; the SDK's stream."""
        raise NotImplementedError

    def take(self, event: Any, answer: StreamedAnswer) -> None:
        """Add one streamed event to ``answer``."""
        raise NotImplementedError

    def reply_from_body(self, body: dict[str, Any]) -> Reply:
        """The answer of a server that did not stream, from its JSON body."""
        raise NotImplementedError

    def base_url(self) -> str:
        """Where requests go."""
        raise NotImplementedError

    # -- shared -----------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        """The structured-output mode in force."""
        if self._mode is not None:
            return self._mode
        configured = self.config.structured_output
        return self.default_mode if configured == "auto" else configured

    def fallback_mode(self) -> str | None:
        """The next, weaker way to ask for the answer's shape, or None after ``prompt``."""
        modes = [m for m in FALLBACK_MODES if m in self.supported_modes]
        at = modes.index(self.mode) if self.mode in modes else len(modes)
        return modes[at + 1] if at + 1 < len(modes) else None

    # The structured-output modes the driver can send.
    supported_modes: tuple[str, ...] = FALLBACK_MODES

    @property
    def timeout(self) -> float:
        return self.config.timeout()

    def reply_cap(self) -> int:
        """The most bytes one reply may hold (on the wire and unpacked): 16 MiB, or 1 KiB a
        token of ``distill.max_output_tokens`` when that is more (a streamed event of one
        token is a few hundred bytes)."""
        return max(MIN_REPLY_CAP, self.config.max_output_tokens * REPLY_BYTES_PER_TOKEN)

    def http_client(self, sdk: ModuleType) -> Any:
        """The SDK's default HTTP client, sending through :class:`BudgetTransport` (every
        request — first tries, re-asks and re-sends — is counted and checked against the cap
        before it leaves) over the project's one HTTP client (no redirect followed, no proxy
        from the environment, every reply read within :meth:`reply_cap`)."""
        from ._transport import outbound_transport

        httpx = require_module("httpx2", driver=self.name, extra=self.extra)
        inner = (
            self.transport
            if self.transport is not None
            else outbound_transport(httpx, max_bytes=self.reply_cap())
        )
        return sdk.DefaultHttpxClient(
            transport=BudgetTransport(inner, self, httpx), follow_redirects=False,
            trust_env=False,
        )  # fmt: skip

    def http_timeout(self) -> Any:
        httpx = require_module("httpx2", driver=self.name, extra=self.extra)
        return httpx.Timeout(self.timeout, connect=min(self.timeout, 10.0))

    def exchange(
        self, client: Any, request: Request, messages: list[Message], *, deadline: float
    ) -> Reply:
        """Send ``messages`` once, read the streamed answer until it ends, passes the output
        limit or the deadline, and close the request; raise the SDK's or httpx's exception, or
        :class:`DeadlinePassed`."""
        system = self.system_text(request)  # the mode in force may have changed since
        messages = [(role, system if role == "system" else text) for role, text in messages]
        self._deadline = deadline
        try:
            stream = self.open_stream(client, request, messages)
            whole = whole_body(stream)
            if whole is not None:  # a server that does not stream answered in one piece
                if reported_error(whole) is not None and not (
                    whole.get("choices") or whole.get("content") or whole.get("message")
                ):
                    raise ServerSentError(whole)
                reply = self.reply_from_body(whole)
                meter = OutputMeter(self.config.max_output_tokens)
                meter.add(reply.text)
                if meter.over:
                    reply.finish = "capped"
                return reply
            answer = StreamedAnswer(self.config.max_output_tokens)
            try:
                for event in stream:
                    self.check_deadline()
                    self.take(event, answer)
                    if answer.meter.over:
                        answer.finish = "capped"
                        break
            finally:
                stream.close()
            return answer.reply()
        finally:
            self._deadline = None

    def check_deadline(self) -> None:
        """Raise :class:`DeadlinePassed` once the current exchange's deadline has passed.
        Called for every event and, by the transport, for every piece of bytes received: a
        server that sends only keep-alive comments (which the SDKs swallow) or pings still
        meets the deadline."""
        if self._deadline is not None and self.clock() > self._deadline:
            raise DeadlinePassed

    def system_text(self, request: Request) -> str:
        """The system text, with the answer's JSON Schema when no tool carries it (the
        messages carry ``request.system``; this is what is sent in its place)."""
        if self.mode == "tools":
            return request.system
        schema = canonical_json(request.json_schema)
        return f"{request.system.rstrip()}\n\n{FORMAT_INSTRUCTIONS.format(schema=schema)}"

    def _sdk_client(self) -> Any:
        if self._client is None:
            self._client = self.build_client()
        return self._client

    def admit(self, body: bytes) -> str | None:
        """Called by the transport before a request leaves: charge it to the run's budget, or
        say why it may not be sent (the request is then answered locally, never sent)."""
        guard = self._guard
        if guard is None:
            return None
        estimate = estimate_tokens(body.decode("utf-8", "replace"))
        refusal = guard.budget.refusal(estimate)
        if refusal is not None:
            guard.refused = guard.blocked = refusal
            return refusal
        if self._new_attempt:
            self._new_attempt = False
            guard.sent(estimate)
        else:
            guard.resent(estimate)
        return None

    def generate(
        self,
        request: Request,
        schema: type[ModelT],
        *,
        guard: AttemptGuard,
        context: dict[str, Any] | None = None,
    ) -> ModelT:
        guard.first(request.input_tokens())
        client = self._sdk_client()
        base: list[Message] = [("system", request.system), ("user", request.prompt)]
        messages = base
        while True:
            reply = self._ask(client, request, messages, guard)
            self._check_prompt_read(reply, guard)
            if reply.truncated:
                limit = self.config.max_output_tokens
                problem = f"the answer was cut off at {limit} tokens (distill.max_output_tokens)"
                # One user turn, not two in a row: some chat templates (Mistral's, Gemma's)
                # refuse turns that do not alternate.
                note = REASK_TRUNCATED.format(limit=limit)
                messages = [base[0], ("user", f"{request.prompt}\n\n{note}")]
            else:
                try:
                    return read_answer(reply.text, schema, context)
                except (ValidationError, NotJSON) as exc:
                    problem = first_error_line(exc)
                if reply.finish == "unreadable":
                    problem = f"the server's stream could not be read ({reply.unreadable})"
                elif not reply.text.strip() and reply.thinking:
                    problem = (
                        f"the answer was empty: the model sent only its reasoning "
                        f"({reply.thinking} characters of reasoning_content), no answer"
                    )
                quoted = reply.text[:MAX_QUOTED_ANSWER] or "(empty)"
                reask = REASK_INVALID.format(problem=problem)
                messages = [*base, ("assistant", quoted), ("user", reask)]
            if not guard.may_retry():
                if guard.refused:
                    raise CostCapReached(f"{guard.refused} (while re-asking after: {problem})")
                raise ModelOutputInvalid(
                    f"{self.name}: invalid answer after {guard.attempts} attempt(s): "
                    f"{self._scrub(problem)}",
                    attempts=guard.attempts,
                )

    def probe_once(self, request: Request, guard: AttemptGuard) -> Reply:
        """One attempt of ``request``, its reply unread (``tb doctor --online``)."""
        messages: list[Message] = [("system", request.system), ("user", request.prompt)]
        return self._ask(self._sdk_client(), request, messages, guard)

    def _ask(
        self, client: Any, request: Request, messages: list[Message], guard: AttemptGuard
    ) -> Reply:
        """One attempt: sent, and re-sent after server errors while distill.max_retries
        allows; a timeout is never re-sent."""
        resends = 0
        delay = 1.0
        self._guard = guard
        self._new_attempt = True
        try:
            while True:
                try:
                    return self.exchange(
                        client, request, messages, deadline=self.clock() + self.timeout
                    )
                except ValueError as exc:
                    # The stream held bytes that are not UTF-8 or an event that is not JSON
                    # (a NUL byte, a cut line): this answer is unreadable — an invalid answer,
                    # re-asked — not an outage that stops the run.
                    return Reply("", "unreadable", unreadable=first_error_line(exc, limit=120))
                except Exception as exc:  # every failure is classified below
                    if guard.blocked:
                        raise CostCapReached(guard.blocked) from None
                    problem = self._classify(exc)
                if self._fall_back(problem):
                    continue  # the same request, with the answer's shape asked for another way
                if problem.kind == "transient" and resends < self.config.max_retries:
                    resends += 1
                    self.sleep(min(problem.retry_after or delay, MAX_BACKOFF_S))
                    delay *= 2
                    continue
                raise self._error(problem, resends)
        finally:
            self._guard = None

    def _check_prompt_read(self, reply: Reply, guard: AttemptGuard) -> None:
        """Note (once a run) a server that read far fewer prompt tokens than were sent: its
        context window cut the prompt from the front — Ollama does so silently (its /v1
        cannot be sent num_ctx), and the model then answers without the instructions."""
        sent, read = guard.last_estimate, reply.prompt_tokens
        if read is None or read <= 0 or sent < MIN_CUT_PROMPT or self._cut_noted:
            return
        if read * PROMPT_READ_RATIO >= sent:
            return
        self._cut_noted = True
        self.notes.append(
            f"{self.name}: {self.where()} read {read} prompt tokens of about {sent} sent: its "
            "context window cut the prompt, and the answers were made without the start of "
            "it. Give the model a window of at least 8192 tokens (Ollama: "
            "OLLAMA_CONTEXT_LENGTH=8192 ollama serve, or PARAMETER num_ctx 8192 in a Modelfile)"
        )

    def _fall_back(self, problem: _Problem) -> bool:
        """After the server refused the way the answer's shape was asked for, switch to the
        next, weaker way for the rest of the run and say so; False when there is none or the
        refusal was about something else. llama-cpp-python refuses with HTTP 500 (its request
        validation error), the others with 400 or 422."""
        refusal = problem.kind == "rejected" or problem.status == 500
        if not refusal or not REFUSED_SHAPE.search(problem.message):
            return False
        refused, weaker = self.mode, self.fallback_mode()
        if weaker is None:
            return False
        self._mode = weaker
        self.notes.append(
            f"{self.name}: {self.where()} refused distill.structured_output {refused} "
            f"({self._scrub(problem.message)}); {weaker} was used instead — set "
            f"distill.structured_output: {weaker} to skip the refused request"
        )
        return True

    def where(self, *, path: bool = False) -> str:
        """The endpoint, for messages (scheme, host and port, and with ``path`` the path:
        never a credential or a query in a URL)."""
        parts = urlsplit(self.base_url())
        host = parts.hostname or "?"
        port = f":{parts.port}" if parts.port else ""
        tail = parts.path.rstrip("/") if path else ""
        return f"{parts.scheme}://{host}{port}{tail}"

    def _classify(self, exc: BaseException) -> _Problem:
        from ._transport import refusal_in

        refused = refusal_in(exc)
        if refused is not None:  # a redirect not followed, a reply past its cap: not re-sent
            return _Problem("unavailable", refused.message)
        kind = exc.__class__.__name__
        httpx = importlib.import_module("httpx2")
        if (
            isinstance(exc, DeadlinePassed)
            or kind == "APITimeoutError"
            or isinstance(exc, httpx.TimeoutException)
        ):
            return _Problem(
                "timeout",
                f"no complete answer within {self.timeout:g}s (distill.timeout_s) from "
                f"{self.where()}; the request was closed, not re-sent (raise distill.timeout_s "
                "or lower distill.max_output_tokens for a slow local model)",
            )
        status = getattr(exc, "status_code", None)
        if kind == "APIConnectionError" or isinstance(exc, httpx.TransportError):
            return _Problem("transient", f"cannot reach {self.where()} ({kind})")
        reported = reported_error(getattr(exc, "body", None))
        said = reported[1] if reported else first_error_line(exc, limit=300)
        if status in (None, 200) and (reported or kind in ("APIError", "APIStatusError")):
            # An error event in the middle of a stream (vLLM, llama.cpp, Anthropic's
            # overloaded_error) or an error object in an HTTP 200 body: the server's own
            # words, judged by the status its code or type stands for.
            status = (reported[0] if reported else None) or 500
            detail = f"the server sent an error instead of an answer: {said[:300]}"
            if status in (401, 403, 404):
                return _Problem("unavailable", f"{detail} (HTTP {status} in the body)")
            if status in REJECTED_STATUS:
                return _Problem("rejected", detail)
            return _Problem("transient", detail)
        if status in (401, 403):
            return _Problem(
                "unavailable",
                f"the credential in {self.config.api_key_env or 'the environment'} was refused "
                f"(HTTP {status})",
            )
        if status == 404:
            return _Problem(
                "unavailable",
                f"model {self.config.model!r} not found at {self.where(path=True)} (HTTP 404: "
                f"{said[:200]}; check distill.model, and distill.base_url: OpenAI-compatible "
                "servers answer under /v1)",
            )
        if status is not None:
            detail = f"HTTP {status}: {said[:300]}"
            if status in TRANSIENT_STATUS:
                return _Problem("transient", detail, _retry_after(exc), status)
            if status in REJECTED_STATUS:
                return _Problem("rejected", detail, status=status)
            return _Problem("unavailable", detail, status=status)
        return _Problem("unavailable", f"{kind}: {first_error_line(exc, limit=300)}")

    def _error(self, problem: _Problem, resends: int) -> EnvironmentProblem:
        message = problem.message
        if problem.kind == "transient":
            message += f" (after {resends} re-send(s), distill.max_retries)"
        message = f"{self.name}: {self._scrub(message)}"
        if problem.kind == "timeout":
            return ModelTimedOut(message)
        if problem.kind == "rejected":
            return ModelRejectedRequest(message)
        return ModelUnavailable(message)

    def _scrub(self, text: str) -> str:
        if self._secret and self.config.api_key_env:
            text = text.replace(self._secret, "[REDACTED:credential]")
        return redact_secrets(text)


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    value = getattr(response, "headers", {}).get("retry-after") if response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


class BudgetTransport:
    """An httpx transport in front of the real one: each request is admitted by the driver's
    budget before it is sent. A refused request is answered here with HTTP 400 and never
    reaches the network."""

    def __init__(self, inner: Any, driver: RemoteDriver, httpx: ModuleType) -> None:
        self.inner = inner
        self.driver = driver
        self.httpx = httpx
        # httpx accepts only its own stream type: the guard, made one (httpx is imported late).
        self.stream_type = type("GuardedByteStream", (GuardedStream, httpx.SyncByteStream), {})

    def handle_request(self, request: Any) -> Any:
        refusal = self.driver.admit(request.read())
        if refusal is not None:
            return self.httpx.Response(
                400,
                json={"type": "error", "error": {"type": "invalid_request_error",
                                                 "message": f"teambrain: {refusal}"}},
                request=request,
            )  # fmt: skip
        response = self.inner.handle_request(request)
        return self.httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=self.stream_type(response, self.driver),
            extensions=response.extensions,
            request=request,
        )

    def close(self) -> None:
        self.inner.close()


class GuardedStream:
    """A response's bytes as they arrive, checked against the exchange's deadline piece by
    piece (keep-alive comments and pings are pieces too), and — when not compressed — with
    bytes that are not UTF-8 replaced by U+FFFD, so one bad byte in an answer is a bad
    character for validation to judge, not a decoding crash that stops the run."""

    def __init__(self, response: Any, driver: RemoteDriver) -> None:
        self.inner = response.stream
        self.driver = driver
        encoding = str(response.headers.get("content-encoding", "identity")).lower()
        self.lenient = encoding in ("", "identity")

    def __iter__(self) -> Iterator[bytes]:
        decoder = codecs.getincrementaldecoder("utf-8")("replace") if self.lenient else None
        for chunk in self.inner:
            self.driver.check_deadline()
            yield decoder.decode(chunk).encode("utf-8") if decoder is not None else chunk
        if decoder is not None:
            tail = decoder.decode(b"", final=True)
            if tail:
                yield tail.encode("utf-8")

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()
