"""A click choice that suggests the closest value for a mistyped one, as verbs and tools do."""

from __future__ import annotations

from typing import Any

import click


def suggestion(given: str, known: list[str]) -> str:
    """`` Did you mean 'x'?`` for the closest of ``known`` to ``given``, or nothing."""
    import difflib

    close = difflib.get_close_matches(given, known, n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


class Choice(click.Choice):  # type: ignore[type-arg]
    """``click.Choice`` whose error names the closest choice (``'decison'`` → ``'decision'``)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            hint = suggestion(str(value), [str(choice) for choice in self.choices])
            if not hint:
                raise
            self.fail(f"{exc.message}{hint}", param, ctx)
