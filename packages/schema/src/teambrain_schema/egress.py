"""Where a brain's committed settings send data, and which of those destinations this machine
approved. Stdlib only.

brain.yaml arrives by ``git pull`` from people a user only partly trusts. A setting that makes
teambrain send data off the machine (a remote embedder, a distill driver, a plugin that does
either), names a credential sent along, or serves memories from outside the repository (an
org brain elsewhere on disk) is described by an :class:`Egress`; nothing uses it until the
user of *this* machine approved exactly that destination and credential for this repository,
like direnv's ``allow`` or mise's ``trust``. A commit that changes the destination or the
credential changes the fingerprint, so the approval no longer covers it.

Approvals live in ``$TEAMBRAIN_HOME/trust.json``: machine-local, never in a repository, never
synced. It is not under ``user/`` because retrieval, which sits beside capture in the layers,
must read it before any embedder is built; sync never reads it. A file that anybody else could
have written (a symlink, group- or world-writable, owned by another user, or inside the
repository it would approve) approves nothing.

The same file holds this machine's proxy, when the user names one (``tb trust --proxy``): the
only proxy teambrain's HTTP requests use (:mod:`teambrain_schema.outbound`), because the
environment's ``HTTPS_PROXY`` can be set by a committed agent config.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ._errors import EnvironmentProblem
from .local_files import read_local_bytes
from .paths import MachineLayout

__all__ = [
    "ApprovalState",
    "Approvals",
    "Egress",
    "EgressNotApproved",
    "approve_egress",
    "load_approvals",
    "machine_proxy",
    "normalise_url",
    "require_approved",
    "revoke_egress",
    "set_machine_proxy",
    "trust_file",
]

TRUST_FILE_NAME = "trust.json"
TRUST_VERSION = 1
MAX_TRUST_BYTES = 1024 * 1024
# Approvals kept per repository and setting (switching branches between two embedders must
# not ask every time); the oldest go first.
MAX_KEPT_PER_SETTING = 8
MAX_KEPT = 2000

ApprovalState = Literal["approved", "not approved", "changed"]
TRUST_HINT = "`tb trust` shows it and asks"


@dataclass(frozen=True)
class Egress:
    """One committed setting that sends data off this machine (or brings it in from outside
    the repository): what is sent, where, and the credential that goes along."""

    setting: str  # the brain.yaml key: retrieval.embedder, distill, org_brain
    sends: str  # what goes there, for people: "memory text and search queries"
    destination: str  # a normalised URL, "plugin <name>", or an absolute path
    credential: str | None = None  # the environment variable whose value is sent
    # Other values the destination's code receives and may use (a plugin's base_url).
    extra: tuple[str, ...] = ()

    @property
    def fingerprint(self) -> str:
        """What an approval covers: the setting, destination, credential and extras."""
        raw = json.dumps([self.setting, self.destination, self.credential, list(self.extra)])
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:24]

    def describe(self) -> str:
        """One line: ``setting: sends → destination (credential $X)``."""
        credential = f", with ${self.credential} as credential" if self.credential else ""
        extra = f" ({', '.join(self.extra)})" if self.extra else ""
        return f"{self.setting}: {self.sends} → {self.destination}{extra}{credential}"

    def to_json(self) -> dict[str, Any]:
        return {
            "setting": self.setting,
            "sends": self.sends,
            "destination": self.destination,
            "credential": self.credential,
            "extra": list(self.extra),
            "fingerprint": self.fingerprint,
        }


def normalise_url(url: str) -> str:
    """``url`` as compared for approval: scheme and host lower-cased, the scheme's default port
    and a trailing slash dropped. Anything that does not parse is kept as written."""
    from urllib.parse import urlsplit, urlunsplit

    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6
        host = f"[{host}]"
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = host if port is None or port == default else f"{host}:{port}"
    if parts.username is not None:
        userinfo = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{userinfo}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, parts.fragment))


def brain_key(repo_root: Path | str) -> str:
    """The repository an approval is for: its resolved path."""
    return Path(repo_root).resolve().as_posix()


class EgressNotApproved(EnvironmentProblem):
    """A committed setting would send data to a destination this machine has not approved."""

    def __init__(self, egress: Egress, state: ApprovalState, repo_root: Path | str) -> None:
        self.egress = egress
        self.state = state
        changed = " (changed since it was approved)" if state == "changed" else ""
        super().__init__(
            f"brain.yaml {egress.describe()}: not approved on this machine{changed}; "
            f"check it, then approve it with `tb trust` in {repo_root}"
        )


@dataclass
class Approvals:
    """This machine's approvals as read from ``trust.json`` (empty when absent or unusable;
    ``problem`` then says why it was not used)."""

    path: Path
    entries: list[dict[str, Any]] = field(default_factory=list)
    problem: str | None = None
    # The proxy this machine's user named (``tb trust --proxy``), or None: send directly.
    proxy: str | None = None
    proxy_problem: str | None = None  # why a `proxy` written there is not used

    def _for(self, repo_root: Path | str, setting: str) -> list[dict[str, Any]]:
        key = brain_key(repo_root)
        return [e for e in self.entries if e.get("brain") == key and e.get("setting") == setting]

    def approval(self, repo_root: Path | str, egress: Egress) -> dict[str, Any] | None:
        """The approval that covers ``egress`` here, or None."""
        for entry in self._for(repo_root, egress.setting):
            if entry.get("fingerprint") == egress.fingerprint:
                return entry
        return None

    def state(self, repo_root: Path | str, egress: Egress) -> ApprovalState:
        """approved · changed (an approval exists for another destination) · not approved."""
        if self.approval(repo_root, egress) is not None:
            return "approved"
        return "changed" if self._for(repo_root, egress.setting) else "not approved"

    def previous(self, repo_root: Path | str, egress: Egress) -> dict[str, Any] | None:
        """The latest approval of the same setting for another destination (for "changed")."""
        others = [
            e
            for e in self._for(repo_root, egress.setting)
            if e.get("fingerprint") != egress.fingerprint
        ]
        return others[-1] if others else None

    def is_approved(self, repo_root: Path | str, egress: Egress | None) -> bool:
        """True when ``egress`` is None (nothing leaves) or approved here."""
        return egress is None or self.state(repo_root, egress) == "approved"


def trust_file(machine: MachineLayout) -> Path:
    """Where this machine's approvals are kept."""
    return machine.home / TRUST_FILE_NAME


def _unsafe(path: Path, repo_root: Path | str | None) -> str | None:
    """Why ``path`` cannot be trusted to hold approvals, or None."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    if stat.S_ISLNK(info.st_mode):
        return f"{path} is a symbolic link"
    if not stat.S_ISREG(info.st_mode):
        return f"{path} is not a regular file"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return f"{path} belongs to another user"
    if info.st_mode & 0o022:
        return f"{path} is writable by others (mode {stat.S_IMODE(info.st_mode):o})"
    if repo_root is not None:
        home = path.parent.resolve()
        root = Path(repo_root).resolve()
        if home == root or home.is_relative_to(root):
            return f"{path} is inside the repository {root} (TEAMBRAIN_HOME must be outside it)"
    return None


def load_approvals(machine: MachineLayout, repo_root: Path | str | None = None) -> Approvals:
    """This machine's approvals. ``repo_root``: the repository they will be checked for (a
    trust file inside it approves nothing). Never raises: an unusable file approves nothing
    and says why in ``problem``."""
    path = trust_file(machine)
    found = Approvals(path)
    problem = _unsafe(path, repo_root)
    if problem is not None:
        found.problem = problem
        return found
    try:
        data = json.loads(read_local_bytes(path, max_bytes=MAX_TRUST_BYTES))
    except FileNotFoundError:
        return found
    except (OSError, ValueError, RecursionError) as exc:
        found.problem = f"{path}: unreadable ({exc.__class__.__name__}); it approves nothing"
        return found
    entries = data.get("approved") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        found.problem = f"{path}: no `approved` list; it approves nothing"
        return found
    found.entries = [
        e
        for e in entries
        if isinstance(e, dict)
        and all(isinstance(e.get(k), str) for k in ("brain", "setting", "fingerprint"))
    ]
    proxy = data.get("proxy")
    if isinstance(proxy, str) and proxy_problem(proxy) is None:
        found.proxy = proxy
    elif proxy is not None:
        found.proxy_problem = f"{path}: `proxy` is not an http://host:port URL: no proxy is used"
    return found


def proxy_problem(url: str) -> str | None:
    """Why ``url`` cannot be this machine's proxy, or None: it must be ``http://host:port``
    (a user and password in it are sent to the proxy alone), with no path, query or control
    character."""
    from urllib.parse import urlsplit

    if any(ord(c) < 32 or ord(c) == 127 for c in url):
        return "it holds a control character"
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        return f"it does not read as a URL ({exc})"
    if parts.scheme != "http" or not parts.hostname:
        return "it must start with http:// and name a host (the proxy is spoken to in HTTP)"
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return "it must name only a host and port (no path or query)"
    if port is None:
        return "it must name the port (http://host:3128)"
    return None


def machine_proxy(
    machine: MachineLayout | None = None, repo_root: Path | str | None = None
) -> str | None:
    """The proxy this machine's trust.json names, or None (send directly). ``repo_root``
    (default: the repository around the current directory): a trust file inside it names no
    proxy, like it approves nothing."""
    from .paths import find_repo_root, machine_layout

    if repo_root is None:
        repo_root = find_repo_root()
    return load_approvals(machine or machine_layout(), repo_root).proxy


def set_machine_proxy(machine: MachineLayout, url: str | None) -> None:
    """Name ``url`` as this machine's proxy (None: send directly); a URL that cannot be one is
    a :class:`~teambrain_schema.UserError` saying why."""
    from ._errors import UserError

    if url is not None:
        url = url.strip()
        problem = proxy_problem(url)
        if problem is not None:
            raise UserError(f"--proxy: {problem}")
    approvals = load_approvals(machine)
    if approvals.problem is not None and _unsafe(approvals.path, None) is not None:
        raise EnvironmentProblem(f"cannot record the proxy: {approvals.problem}")
    _save(machine, approvals.entries, url)


def _save(machine: MachineLayout, entries: list[dict[str, Any]], proxy: str | None = None) -> None:
    from .atomic import write_text_atomic
    from .private_dirs import PRIVATE_FILE_MODE, ensure_private_dir

    ensure_private_dir(machine.home)
    document: dict[str, Any] = {"version": TRUST_VERSION, "approved": entries[-MAX_KEPT:]}
    if proxy is not None:
        document["proxy"] = proxy
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    write_text_atomic(trust_file(machine), text, mode=PRIVATE_FILE_MODE)


def _writable(machine: MachineLayout, repo_root: Path | str) -> Approvals:
    approvals = load_approvals(machine, repo_root)
    if approvals.problem is not None and _unsafe(approvals.path, repo_root) is not None:
        raise EnvironmentProblem(f"cannot record approvals: {approvals.problem}")
    return approvals


def approve_egress(
    machine: MachineLayout, repo_root: Path | str, egresses: list[Egress]
) -> list[Egress]:
    """Record that this machine approves each of ``egresses`` for the repository at
    ``repo_root``; returns those that were not approved before."""
    approvals = _writable(machine, repo_root)
    key = brain_key(repo_root)
    entries = list(approvals.entries)
    added = []
    now = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    for egress in egresses:
        if approvals.approval(repo_root, egress) is not None:
            continue
        added.append(egress)
        entries.append({"brain": key, "approved_at": now, **egress.to_json()})
        same = [e for e in entries if e.get("brain") == key and e.get("setting") == egress.setting]
        for old in same[:-MAX_KEPT_PER_SETTING]:
            entries.remove(old)
    if added:
        _save(machine, entries, approvals.proxy)
    return added


def revoke_egress(
    machine: MachineLayout, repo_root: Path | str, settings: list[str] | None = None
) -> int:
    """Forget this machine's approvals for the repository at ``repo_root`` (only those of
    ``settings`` when given); returns how many were dropped."""
    approvals = _writable(machine, repo_root)
    key = brain_key(repo_root)
    keep = [
        e
        for e in approvals.entries
        if not (e.get("brain") == key and (settings is None or e.get("setting") in settings))
    ]
    dropped = len(approvals.entries) - len(keep)
    if dropped:
        _save(machine, keep, approvals.proxy)
    return dropped


def require_approved(machine: MachineLayout, repo_root: Path | str, egress: Egress | None) -> None:
    """Raise :class:`EgressNotApproved` unless ``egress`` is None or approved on this machine
    for the repository at ``repo_root``."""
    if egress is None:
        return
    approvals = load_approvals(machine, repo_root)
    state = approvals.state(repo_root, egress)
    if state != "approved":
        raise EgressNotApproved(egress, state, repo_root)
