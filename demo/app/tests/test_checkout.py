from shop.checkout.cart import total


def test_total() -> None:
    assert total([("tea", 350, 2)]) == 700
