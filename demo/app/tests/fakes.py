"""Test doubles."""

from shop.payments.gateway import PaymentGateway


class FakeGateway(PaymentGateway):
    def charge(self, order_id: str, cents: int) -> str:
        return f"fake:{order_id}:{cents}"
