"""Prices are integers in cents everywhere; this formats them."""


def format_cents(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"
