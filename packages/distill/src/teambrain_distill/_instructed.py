"""What the anthropic, openai and ollama drivers share: structured output through instructor,
bounded re-asks governed by the cost cap, and one-line errors that never show a credential.

Every import of instructor or an SDK happens inside a function here or in a driver module, so
``import teambrain_distill`` costs nothing and a missing extra fails only the driver needing it.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
from types import ModuleType
from typing import Any, TypeVar

from pydantic import BaseModel
from teambrain_schema import DistillConfig, EnvironmentProblem, estimate_tokens, redact_secrets

from ._budget import AttemptGuard
from ._errors import (
    CostCapReached,
    DriverNotInstalled,
    ModelOutputInvalid,
    ModelUnavailable,
    first_error_line,
)
from ._request import Request

ModelT = TypeVar("ModelT", bound=BaseModel)


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


def quiet_instructor_logging() -> None:
    """instructor logs every failed attempt at ERROR; we report failures ourselves, once."""
    logger = logging.getLogger("instructor")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
    logger.propagate = False


class InstructedDriver:
    """Base of the SDK drivers. Subclasses build the instructor client and the create()
    arguments; this class runs the call and maps every failure onto our errors."""

    name = "instructed"
    extra = ""

    def __init__(self, config: DistillConfig, *, transport: Any = None) -> None:
        self.config = config
        # The HTTP transport under the budget gate (None: the SDK's real one; tests pass a mock).
        self.transport = transport
        self._client: Any = None
        self._guard: AttemptGuard | None = None
        self._secret: str | None = None

    # -- what subclasses provide ------------------------------------------------------------
    def build_client(self) -> Any:
        """The instructor client (SDK client created with timeout and retries)."""
        raise NotImplementedError

    def http_client(self, sdk: ModuleType) -> Any:
        """The SDK's default HTTP client, sending through :class:`BudgetTransport`: every
        request the SDK makes — instructor's re-asks and the SDK's own re-sends after a 429,
        a 5xx or a lost connection — is counted and checked against the cap before it leaves."""
        httpx = require_module("httpx2", driver=self.name, extra=self.extra)
        inner = self.transport if self.transport is not None else httpx.HTTPTransport()
        return sdk.DefaultHttpxClient(transport=BudgetTransport(inner, self, httpx))

    def create_kwargs(self, request: Request) -> dict[str, Any]:
        """The SDK create() arguments for ``request`` (model, messages, output limit)."""
        raise NotImplementedError

    # -- the call ---------------------------------------------------------------------------
    def _instructor_client(self) -> Any:
        if self._client is None:
            quiet_instructor_logging()
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
        guard.sent(estimate)
        return None

    def generate(
        self,
        request: Request,
        schema: type[ModelT],
        *,
        guard: AttemptGuard,
        context: dict[str, Any] | None = None,
    ) -> ModelT:
        tenacity = require_module("tenacity", driver=self.name, extra=self.extra)
        core = require_module("instructor.core", driver=self.name, extra=self.extra)
        guard.first(request.input_tokens())
        client = self._instructor_client()

        def stop(retry_state: Any) -> bool:
            return not guard.may_retry()

        from pydantic import ValidationError

        retrying = tenacity.Retrying(
            stop=stop,
            retry=tenacity.retry_if_exception_type(
                (ValidationError, json.JSONDecodeError, core.ResponseParsingError)
            ),
            reraise=True,
        )
        self._guard = guard
        try:
            result: ModelT = client.create(
                response_model=schema,
                max_retries=retrying,
                context=context,
                **self.create_kwargs(request),
            )
            return result
        except core.InstructorRetryException as exc:
            if guard.blocked:
                raise CostCapReached(guard.blocked) from None
            cause = exc.__cause__ or exc
            if isinstance(
                cause, ValidationError | json.JSONDecodeError | core.ResponseParsingError
            ):
                detail = first_error_line(cause)
                if guard.refused:
                    raise CostCapReached(
                        f"{guard.refused} (while re-asking after: {detail})"
                    ) from None
                raise ModelOutputInvalid(
                    f"{self.name}: invalid answer after {guard.attempts} attempt(s): "
                    f"{self._scrub(detail)}",
                    attempts=guard.attempts,
                ) from None
            raise self._unavailable(cause) from None
        except (CostCapReached, ModelOutputInvalid, EnvironmentProblem):
            raise
        except Exception as exc:
            if guard.blocked:  # the SDK saw our local refusal as an HTTP error
                raise CostCapReached(guard.blocked) from None
            raise self._unavailable(exc) from None
        finally:
            self._guard = None

    def _unavailable(self, exc: BaseException) -> ModelUnavailable:
        kind = exc.__class__.__name__
        status = getattr(exc, "status_code", None)
        where = self.config.base_url or "the default endpoint"
        if kind == "APITimeoutError":
            message = f"timed out after {self.config.timeout_s:g}s (distill.timeout_s) at {where}"
        elif kind == "APIConnectionError":
            message = f"cannot reach {where}"
        elif status in (401, 403):
            message = (
                f"the credential in {self.config.api_key_env or 'the environment'} was refused "
                f"(HTTP {status})"
            )
        elif status == 404:
            message = (
                f"model {self.config.model!r} not found at {where} (HTTP 404; check distill.model)"
            )
        elif status is not None:
            message = f"HTTP {status}: {first_error_line(exc, limit=300)}"
        else:
            message = f"{kind}: {first_error_line(exc, limit=300)}"
        # The SDK re-sends after timeouts, lost connections, 429 and 5xx; say that it tried.
        if status is None or status == 429 or status >= 500:
            message += f" (after {self.config.max_retries} retries, distill.max_retries)"
        return ModelUnavailable(f"{self.name}: {self._scrub(message)}")

    def _scrub(self, text: str) -> str:
        if self._secret and self.config.api_key_env:
            text = text.replace(self._secret, "[REDACTED:credential]")
        return redact_secrets(text)


class BudgetTransport:
    """An httpx transport in front of the real one: each request is admitted by the driver's
    budget before it is sent. A refused request is answered here with HTTP 400 (which no SDK
    re-sends) and never reaches the network."""

    def __init__(self, inner: Any, driver: InstructedDriver, httpx: ModuleType) -> None:
        self.inner = inner
        self.driver = driver
        self.httpx = httpx

    def handle_request(self, request: Any) -> Any:
        refusal = self.driver.admit(request.read())
        if refusal is not None:
            return self.httpx.Response(
                400,
                json={"type": "error", "error": {"type": "invalid_request_error",
                                                 "message": f"teambrain: {refusal}"}},
                request=request,
            )  # fmt: skip
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()
