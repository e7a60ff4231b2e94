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
from ._request import Request, canonical_json

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

    def __init__(self, config: DistillConfig, *, http_client: Any = None) -> None:
        self.config = config
        self.http_client = http_client
        self._client: Any = None
        self._guard: AttemptGuard | None = None
        self._secret: str | None = None

    # -- what subclasses provide ------------------------------------------------------------
    def build_client(self) -> Any:
        """The instructor client (SDK client created with timeout and retries)."""
        raise NotImplementedError

    def create_kwargs(self, request: Request) -> dict[str, Any]:
        """The SDK create() arguments for ``request`` (model, messages, output limit)."""
        raise NotImplementedError

    # -- the call ---------------------------------------------------------------------------
    def _instructor_client(self) -> Any:
        if self._client is None:
            quiet_instructor_logging()
            client = self.build_client()
            client.on("completion:kwargs", self._on_attempt)
            self._client = client
        return self._client

    def _on_attempt(self, *args: Any, **kwargs: Any) -> None:
        # Fires before every attempt is sent: count it and estimate what it carries.
        if self._guard is not None:
            self._guard.sent(estimate_tokens(canonical_json(_plain(kwargs))))

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


def _plain(value: Any) -> Any:
    """Best-effort JSON-able view of create() arguments, for estimating their size."""
    try:
        json.dumps(value, default=str)
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return str(value)
