"""Cart totals in cents."""


def total(items: list[tuple[str, int, int]]) -> int:
    return sum(price * quantity for _, price, quantity in items)
