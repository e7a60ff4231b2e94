"""The candidate spool as the propose service's ledger: one propose at a time on this machine,
statuses re-read under the lock, changes written atomically."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator

from teambrain_kit.paths import MachineLayout
from teambrain_schema import Candidate

from ._candidates import load_candidate, save_candidate
from ._spool import ensure_private_dir

LOCK_NAME = ".propose.lock"


class SpoolLedger:
    """:class:`teambrain_sync.CandidateLedger` over ``spool/candidates`` of ``machine``."""

    def __init__(self, machine: MachineLayout) -> None:
        self.machine = machine

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Block until no other ``tb propose`` (or server) holds the spool, then hold it."""
        ensure_private_dir(self.machine.candidates)
        path = self.machine.candidates / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the lock

    def reload(self, candidate: Candidate) -> Candidate:
        """The stored candidate (a draft not in the spool, e.g. a dry run's, as given)."""
        return load_candidate(candidate.candidate_id, machine=self.machine) or candidate

    def save(self, candidate: Candidate) -> None:
        """Write the changed candidate back to the spool."""
        save_candidate(candidate, machine=self.machine)
