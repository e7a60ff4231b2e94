"""Opening the user's editor on a text, as git does: ``$VISUAL`` (unless the terminal is dumb),
then ``$EDITOR``, then ``vi``; run through the shell, so ``EDITOR="code --wait"`` works."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from teambrain_schema import EnvironmentProblem, UserError

DEFAULT_EDITOR = "vi"


def choose_editor(env: dict[str, str] | None = None) -> tuple[str, str]:
    """(the editor command, where it came from: ``$VISUAL``, ``$EDITOR`` or the default)."""
    env = dict(os.environ) if env is None else env
    if env.get("VISUAL", "").strip() and env.get("TERM") != "dumb":
        return env["VISUAL"].strip(), "$VISUAL"
    if env.get("EDITOR", "").strip():
        return env["EDITOR"].strip(), "$EDITOR"
    return DEFAULT_EDITOR, "the default"


def on_terminal() -> bool:
    """Whether a person is at this process: stdin and stderr are terminals."""
    try:
        return sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def edit_text(text: str, *, name: str) -> str:
    """``text`` as the user left it after editing it in a private temporary file named ``name``
    (removed afterwards). An editor that cannot start or exits non-zero is a user error, and
    so is the default editor with no terminal to run in."""
    editor, source = choose_editor()
    if source == "the default" and not on_terminal():
        raise UserError(
            "no editor to open: set $VISUAL or $EDITOR, or pass the changes as options "
            "(--title, --class, --add-tag, --file)"
        )
    with tempfile.TemporaryDirectory(prefix="tb-edit-") as folder:  # 0700, this user's only
        path = Path(folder) / name
        path.write_text(text, "utf-8")
        path.chmod(0o600)
        argv = (
            ["sh", "-c", f'{editor} "$@"', editor, str(path)]
            if os.name != "nt"
            else [*editor.split(), str(path)]
        )
        try:
            done = subprocess.run(argv, check=False)
        except OSError as exc:
            raise EnvironmentProblem(
                f"cannot start the editor {editor!r} ({source}): {exc}"
            ) from None
        if done.returncode != 0:
            raise UserError(f"the editor {editor!r} ({source}) exited {done.returncode}")
        try:
            return path.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"cannot read what the editor left: {exc}") from None
