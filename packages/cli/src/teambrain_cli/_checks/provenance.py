"""Provenance of installed teambrain packages: is what is installed exactly what PyPI publishes?

For each installed distribution we fetch the release's metadata from the package index, download
the published wheel, check its sha256 against the index, then compare every installed file with
the wheel's copy. Without the network, or for packages installed from a local source tree, the
answer is UNVERIFIED — never PASS.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

INDEX_ENV = "TEAMBRAIN_PYPI_URL"
DEFAULT_INDEX = "https://pypi.org"
TIMEOUT_S = 8.0
MAX_WHEEL_BYTES = 64 * 1024 * 1024
SKIPPED_RECORD_FILES = ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json")

Verdict = Literal["verified", "mismatch", "unverifiable"]


@dataclass
class InstalledDist:
    """An installed distribution: name, version, where it came from, and its files on disk."""

    name: str
    version: str
    direct_url: str | None
    files: dict[str, Path] = field(default_factory=dict)  # wheel-relative path → installed file


@dataclass
class ProvenanceFinding:
    """What was found for one distribution."""

    dist: str
    verdict: Verdict
    detail: str


def installed_teambrain_dists() -> list[InstalledDist]:
    """Every installed ``teambrain-*`` distribution, with its RECORD-listed files."""
    import importlib.metadata

    found = []
    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if not name.startswith("teambrain-"):
            continue
        direct = dist.read_text("direct_url.json")
        url = json.loads(direct).get("url") if direct else None
        files = {}
        for entry in dist.files or []:
            if entry.name in SKIPPED_RECORD_FILES or entry.suffix == ".pyc":
                continue
            files[entry.as_posix()] = Path(str(entry.locate()))
        found.append(InstalledDist(name, dist.version, url, files))
    return sorted(found, key=lambda d: d.name)


class NotPublished(Exception):
    """The index answered 404 for the release."""


def _fetch(url: str, limit: int) -> bytes:
    """GET ``url`` through the project's one HTTP client (no redirect followed, no proxy from
    the environment, at most ``limit`` bytes read, on the wire and unpacked)."""
    from teambrain_schema.outbound import OutboundError, origin_of, send

    if not url.startswith(("https://", "http://")):
        raise IndexUnreachable(f"refusing to fetch {origin_of(url)}: only http(s) package indexes")
    try:
        with send(
            url, headers={"User-Agent": "teambrain-verify"}, timeout=TIMEOUT_S, max_bytes=limit
        ) as reply:
            if reply.status == 404:
                raise NotPublished(url)
            if not 200 <= reply.status < 300:
                raise IndexUnreachable(f"{origin_of(url)}: HTTP {reply.status}")
            return reply.read()
    except OutboundError as exc:
        raise IndexUnreachable(exc.message) from None


class IndexUnreachable(Exception):
    """The package index could not be reached (offline, DNS, TLS, timeout)."""


def verify_dist(dist: InstalledDist, index: str | None = None) -> ProvenanceFinding:
    """Compare one installed distribution with the wheel its index publishes."""
    if dist.direct_url and not dist.direct_url.startswith(("https://", "http://")):
        return ProvenanceFinding(
            dist.name, "unverifiable", f"installed from a local source ({dist.direct_url})"
        )
    base = (index or os.environ.get(INDEX_ENV) or DEFAULT_INDEX).rstrip("/")
    try:
        meta = json.loads(_fetch(f"{base}/pypi/{dist.name}/{dist.version}/json", 8 * 1024 * 1024))
    except NotPublished:
        return ProvenanceFinding(
            dist.name, "unverifiable", f"{dist.name} {dist.version} is not published on {base}"
        )
    except ValueError as exc:
        raise IndexUnreachable(f"{base}: not a JSON answer ({exc.__class__.__name__})") from None
    wheels = [u for u in meta.get("urls", []) if u.get("packagetype") == "bdist_wheel"]
    if not wheels:
        return ProvenanceFinding(
            dist.name, "unverifiable", "the release publishes no wheel to compare with"
        )
    wheel_info = wheels[0]
    try:
        wheel = _fetch(wheel_info["url"], MAX_WHEEL_BYTES)
    except NotPublished:
        raise IndexUnreachable(f"{wheel_info['url']}: HTTP 404") from None
    expected = wheel_info.get("digests", {}).get("sha256")
    if hashlib.sha256(wheel).hexdigest() != expected:
        return ProvenanceFinding(
            dist.name,
            "mismatch",
            f"downloaded {wheel_info['filename']} does not match the index's sha256",
        )
    return _compare_with_wheel(dist, wheel, wheel_info["filename"])


def _compare_with_wheel(dist: InstalledDist, wheel: bytes, filename: str) -> ProvenanceFinding:
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        published = {
            name: hashlib.sha256(archive.read(name)).digest()
            for name in archive.namelist()
            if not name.endswith("/") and name.rsplit("/", 1)[-1] not in SKIPPED_RECORD_FILES
        }
        record_name = next((n for n in archive.namelist() if n.endswith(".dist-info/RECORD")), None)
        record_rows = (
            list(csv.reader(io.StringIO(archive.read(record_name).decode()))) if record_name else []
        )
    for row in record_rows:  # the wheel's own RECORD must agree with its content
        if len(row) >= 2 and row[1].startswith("sha256=") and row[0] in published:
            digest = base64.urlsafe_b64decode(row[1].removeprefix("sha256=") + "==")
            if digest != published[row[0]]:
                return ProvenanceFinding(
                    dist.name, "mismatch", f"{filename}: RECORD disagrees with {row[0]}"
                )
    differing = []
    for relpath, installed in dist.files.items():
        if relpath not in published:
            continue  # files the installer adds (entry-point scripts are rewritten)
        try:
            digest = hashlib.sha256(installed.read_bytes()).digest()
        except OSError:
            differing.append(f"{relpath} (missing)")
            continue
        if digest != published[relpath]:
            differing.append(relpath)
    missing = sorted(set(published) - set(dist.files))
    if differing or missing:
        parts = differing + [f"{m} (not installed)" for m in missing]
        return ProvenanceFinding(
            dist.name,
            "mismatch",
            "installed files differ from the published wheel: " + ", ".join(parts[:5]),
        )
    return ProvenanceFinding(
        dist.name, "verified", f"{len(published)} files match {filename} (sha256 as published)"
    )
