"""Recorded answers for the fake driver: one readable JSON file per request key.

A fixture holds the request it answers (so a reviewer sees exactly what was sent) and the
answers to replay, one per attempt: an answer may be a JSON object, or a string holding the raw
text a model returned (invalid output included), which is how retries are tested offline.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teambrain_kit.atomic import write_text_atomic

from ._errors import FixtureMissing
from ._request import Request

FIXTURE_VERSION = 1
RECORD_ENV = "TEAMBRAIN_DISTILL_RECORD"
# Answers requests that have no recording, when present (demos whose spool holds sessions
# nobody recorded). Tests and CI leave it out, so a missing recording fails loudly.
FALLBACK_NAME = "fallback.json"


@dataclass(frozen=True)
class Fixture:
    """A recorded request and the answers to replay for it."""

    path: Path
    key: str
    responses: list[Any]


# A recording holds a request and a few answers: kilobytes. The folder is named by brain.yaml
# (committed), so a fixture may be a link to anything; it is read only as a bounded regular
# file inside the folder, never a device or FIFO that would hang the run.
MAX_FIXTURE_BYTES = 16 * 1024 * 1024


def _read_fixture(path: Path, directory: Path) -> Any:
    """The JSON in a fixture file (OSError or ValueError, never a hang or RecursionError)."""
    from teambrain_kit.local_files import loads_json, read_file_within

    return loads_json(read_file_within(path, directory, max_bytes=MAX_FIXTURE_BYTES))


class FixtureStore:
    """The fixture directory: ``<key prefix>.json`` files."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path_for(self, key: str) -> Path:
        """The file a request with ``key`` is recorded in."""
        return self.directory / f"{key[:24]}.json"

    def load(self, request: Request) -> Fixture:
        """The fixture of ``request``; :class:`FixtureMissing` when none was recorded."""
        key = request.key()
        path = self.path_for(key)
        if not path.is_file() and (self.directory / FALLBACK_NAME).is_file():
            return self._fallback(request, key)
        if not path.is_file():
            raise FixtureMissing(
                f"fake driver: no recorded answer for this request (key {key[:24]}) in "
                f"{self.directory}; record one with a real driver and {RECORD_ENV}=1 "
                "(the sessions, memories or prompt templates changed since recording)"
            )
        try:
            data = _read_fixture(path, self.directory)
        except (OSError, ValueError) as exc:
            raise FixtureMissing(f"{path}: unreadable fixture ({exc})") from None
        if not isinstance(data, dict) or data.get("key") != key:
            raise FixtureMissing(f"{path}: key: does not match the request (file edited?)")
        responses = data.get("responses")
        if not isinstance(responses, list) or not responses:
            raise FixtureMissing(f"{path}: responses: must be a non-empty list")
        return Fixture(path=path, key=key, responses=responses)

    def _fallback(self, request: Request, key: str) -> Fixture:
        path = self.directory / FALLBACK_NAME
        try:
            data = _read_fixture(path, self.directory)
        except (OSError, ValueError) as exc:
            raise FixtureMissing(f"{path}: unreadable fixture ({exc})") from None
        responses = data.get("responses") if isinstance(data, dict) else None
        if (
            data.get("schema") != request.schema_name
            or not isinstance(responses, list)
            or not responses
        ):
            raise FixtureMissing(
                f"{path}: needs schema {request.schema_name!r} and a non-empty responses list"
            )
        return Fixture(path=path, key=key, responses=responses)

    def save(
        self,
        request: Request,
        answer: dict[str, Any],
        *,
        recorded_with: str,
        now: dt.datetime | None = None,
    ) -> Path:
        """Record ``answer`` for ``request`` (atomic; an existing recording is replaced)."""
        key = request.key()
        data = {
            "v": FIXTURE_VERSION,
            "key": key,
            "model": request.model,
            "schema": request.schema_name,
            "recorded_with": recorded_with,
            "recorded_at": (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"),
            "request": {"system": request.system, "prompt": request.prompt},
            "responses": [answer],
        }
        path = self.path_for(key)
        self.directory.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return path
