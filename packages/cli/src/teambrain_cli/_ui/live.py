"""Live pages without script: the sessions and a running session reload themselves; the review
queue says, as soon as it changes, that it did.

The page may not run script (the policy says ``script-src 'none'``), so neither a
server-sent-events stream nor a socket can reach it: both need script to listen. What a browser
does without script is follow a ``Refresh`` (the header, or its ``<meta>`` twin), which the
policy does not govern. So:

- the sessions list and a session still running answer with ``Refresh: <s>``: the browser
  loads them again every few seconds (they hold nothing a person types, and are quick to make);
- the review queue holds ticks and a typed reason that a reload would throw away, so it is not
  reloaded: it carries a small frame of this server (:data:`LIVE_FRAME`, ``frame-src 'self'``)
  that reloads itself every few seconds and compares a fingerprint of the queue — the
  candidate files, git's HEAD and index — with the one the page was made from. When they
  differ the frame says so, with a link that loads the new queue into the page (a click: the
  frame is sandboxed, no script, top navigation on a user's click only). Only that frame may be
  framed, and only by this server's own pages (``frame-ancestors 'self'``); every other answer
  keeps ``frame-ancestors 'none'``.

A held request (a long poll behind ``Refresh``) would have kept the queue's page as it is until
something changed, but a browser treats a pending navigation as a page still loading (the
spinner turns until the change comes, and tools driving the browser wait for it), so the
queue's frame reloads on a clock instead, and costs a directory listing each time.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from teambrain_schema.gitdir import git_state_stamps

LIVE_FRAME = "/live/queue"  # the only page that may be framed (by this server's own pages)
FRAME_REFRESH_S = 3


@dataclass(frozen=True)
class LiveView:
    """How one page lives: the seconds between reloads, and what changes it (for its line)."""

    delay_s: int
    what: str


def _folder_stamp(folder: Path, suffix: str) -> list[tuple[str, int, int]]:
    """Name, modification time and size of each ``*suffix`` file of ``folder`` (none when
    it is missing)."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.name.endswith(suffix):
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                found.append((entry.name, info.st_mtime_ns, info.st_size))
    except OSError:
        return []
    return sorted(found)


def queue_stamp(candidates: Path, repo_root: Path) -> str:
    """A fingerprint of what the queue page is made from: the candidate files, and git's HEAD
    and index (a commit, merge or pull changes what the checks say and which proposals are
    open). Sixteen hex digits."""
    parts = (_folder_stamp(candidates, ".json"), git_state_stamps(str(repo_root)))
    return hashlib.sha256(repr(parts).encode("utf-8", "backslashreplace")).hexdigest()[:16]
