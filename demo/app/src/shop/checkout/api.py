"""HTTP handlers for checkout."""

from shop.checkout.cart import total


def post_cart(items: list[tuple[str, int, int]]) -> dict[str, int]:
    return {"total_cents": total(items)}
