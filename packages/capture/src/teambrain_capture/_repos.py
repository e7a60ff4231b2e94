"""One repository, one identity, whatever its remote is called.

Sessions and candidates are filed under the repository's join key (the contract's ``repo``
field): its normalised ``origin`` URL, else its folder name. That key changes when a first
remote is added (every new user's second step), when the repository is renamed or moves to
another host — and whatever was filed under the old key would be another repository's.

So each repository this machine works in has a record, ``$TEAMBRAIN_HOME/repos/<id>.json``
(machine-local, never synced; not under ``user/``): the keys it has been filed under (the hook
adds the current one when a session opens; every reader does too) and its anchor, its root
commit(s), which no remote change touches. :func:`repo_keys` gives the current key and every
earlier one — those recorded where the repository lives, those of any record with the same
anchor (the repository cloned again, or moved on disk), and its folder name — so what was filed
under an old name follows it; the first reader that can tell the user says so, once.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from teambrain_kit.atomic import write_text_atomic
from teambrain_kit.local_files import read_json_file
from teambrain_kit.paths import MachineLayout

from ._gitinfo import find_git, repo_identity

REPOS_DIRNAME = "repos"
MAX_KEYS = 64  # keys kept per record: a repository renamed more often than this is odd
MAX_RECORDS = 2048  # records read when matching anchors
_MAX_RECORD_BYTES = 64 * 1024


@dataclass(frozen=True)
class RepoKeys:
    """The keys a repository's sessions and candidates may be filed under: ``key``, the current
    one (what is written now; None outside git), and ``aliases``, every earlier one."""

    key: str | None
    aliases: frozenset[str] = frozenset()

    @property
    def names(self) -> frozenset[str]:
        """Every key of this repository, the current one included."""
        return self.aliases | ({self.key} if self.key else set())

    def holds(self, repo: str | None) -> bool:
        """True when something filed under ``repo`` is this repository's (nothing filed under no
        repository at all counts as any repository's, as before keys existed)."""
        return repo is None or repo in self.names

    @classmethod
    def of(cls, given: RepoKeys | str | None) -> RepoKeys:
        """``given`` as keys: a plain key has no aliases."""
        return given if isinstance(given, RepoKeys) else cls(given)


def _records_dir(machine: MachineLayout) -> Path:
    return machine.home / REPOS_DIRNAME


def _record_path(machine: MachineLayout, common_dir: str) -> Path:
    digest = hashlib.sha256(os.path.realpath(common_dir).encode()).hexdigest()[:24]
    return _records_dir(machine) / f"{digest}.json"


def _read(path: Path) -> dict[str, object]:
    try:
        data = read_json_file(path, max_bytes=_MAX_RECORD_BYTES)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


def _write(path: Path, record: dict[str, object]) -> None:
    from teambrain_kit.private_dirs import ensure_private_dir

    try:
        ensure_private_dir(path.parent)
        write_text_atomic(path, json.dumps(record, indent=1) + "\n", mode=0o600)
    except OSError:
        pass  # a record that cannot be written costs only the aliases it would have kept


def note_repo_key(machine: MachineLayout, common_dir: str, key: str) -> None:
    """Record that the repository whose git directory is ``common_dir`` is filed under
    ``key`` now (the hook, when a session opens: a read, and a write only for a new key)."""
    path = _record_path(machine, common_dir)
    record = _read(path)
    keys = _strings(record.get("keys"))
    if key in keys:
        return
    record.update(v=1, path=os.path.realpath(common_dir), keys=[*keys, key][-MAX_KEYS:])
    _write(path, record)


def _anchor(root: str) -> str | None:
    """The repository's root commit(s), sorted and joined by commas; None before a commit."""
    from teambrain_kit.git import git_output

    out = git_output(["rev-list", "--max-parents=0", "HEAD"], cwd=root, timeout=30)
    roots = sorted(set((out or b"").decode("ascii", "replace").split()))
    return ",".join(roots) or None


def _same_anchor(machine: MachineLayout, anchor: str, own: Path) -> Iterable[str]:
    """The keys of every other record with ``anchor``."""
    folder = _records_dir(machine)
    try:
        paths = sorted(folder.glob("*.json"))[:MAX_RECORDS]
    except OSError:
        return []
    found: list[str] = []
    for path in paths:
        if path != own:
            record = _read(path)
            if record.get("anchor") == anchor:
                found += _strings(record.get("keys"))
    return found


def repo_keys(
    start: Path | str,
    machine: MachineLayout,
    *,
    say: Callable[[str], None] | None = None,
    record: bool = True,
) -> RepoKeys:
    """The keys of the repository enclosing ``start`` (see the module docstring), its current
    key recorded (unless not ``record``: a dry run writes nothing). ``say``: told once per
    earlier key, in one line, that what was filed under it follows the repository now (readers
    that cannot tell the user pass nothing)."""
    found = find_git(str(start))
    if found is None:
        return RepoKeys(None)
    root, _git_dir, common_dir = found
    key = repo_identity(root, common_dir)
    path = _record_path(machine, common_dir)
    data = _read(path)
    keys = _strings(data.get("keys"))
    changed = key not in keys
    if changed:
        keys = [*keys, key][-MAX_KEYS:]
    stored = data.get("anchor")
    anchor = stored if isinstance(stored, str) else None
    if anchor is None and record:  # found once (a git process), then kept in the record
        anchor = _anchor(root)
        changed = changed or anchor is not None
    earlier = [k for k in keys if k != key]
    if anchor is not None:
        earlier += [k for k in _same_anchor(machine, anchor, path) if k != key]
    earlier = list(dict.fromkeys(earlier))
    said = _strings(data.get("said"))
    news = [k for k in earlier if k not in said]
    if news and say is not None and record:
        names = ", ".join(repr(k) for k in news)
        say(
            f"tb: this repository was filed as {names} before its remote changed; its "
            f"candidates and sessions follow it as {key!r} now"
        )
        said = [*said, *news][-MAX_KEYS:]
        changed = True
    if changed and record:
        data.update(v=1, path=os.path.realpath(common_dir), keys=keys, anchor=anchor,
                    said=said)  # fmt: skip
        _write(path, data)
    folder = repo_identity(root, None)  # what it was filed under before it had a remote
    return RepoKeys(key, frozenset([*earlier, folder]) - {key})
