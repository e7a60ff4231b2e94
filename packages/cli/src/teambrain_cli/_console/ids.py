"""Naming a memory or a candidate by less than its whole ULID."""

from __future__ import annotations

from collections.abc import Sequence

from teambrain_schema import UserError

MIN_ID_PART = 4


def resolve_id(ids: Sequence[str], given: str, *, what: str, listing: str) -> str:
    """The one id of ``ids`` that ``given`` names: the id itself (any case), or a prefix or a
    suffix of at least four characters that only one id has (ULIDs made in the same
    millisecond share their first ten characters; their last ones tell them apart). A user
    error otherwise, naming the matches when there are several; ``listing`` is the command
    that shows the ids."""
    text = given.strip().upper()
    if not text:
        raise UserError(f"give a {what} id (`{listing}` shows them)")
    if text in ids:
        return text
    if len(text) >= MIN_ID_PART:
        for matches in (
            sorted(i for i in ids if i.startswith(text)),
            sorted(i for i in ids if i.endswith(text)),
        ):
            if len(matches) == 1:
                return matches[0]
            if matches:
                shown = ", ".join(matches[:5]) + (", …" if len(matches) > 5 else "")
                raise UserError(
                    f"{given!r} matches {len(matches)} {what} ids ({shown}): give more of it"
                )
    else:
        named = sorted({i for i in ids if i.startswith(text) or i.endswith(text)})
        if named:
            hint = f" (`{named[0][-MIN_ID_PART:]}`)" if len(named) == 1 else ""
            raise UserError(
                f"{given!r} is too short to name a {what}: give at least {MIN_ID_PART} "
                f"characters of its id{hint}, or the whole id"
            )
    raise UserError(f"no {what} {given!r} here (`{listing}` shows every id)")
