"""The one way to take a payment."""


class PaymentGateway:
    def charge(self, order_id: str, cents: int) -> str:
        raise NotImplementedError
