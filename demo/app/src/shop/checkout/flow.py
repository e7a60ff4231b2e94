"""The checkout state machine: cart → address → payment → confirmed."""

STEPS = ("cart", "address", "payment", "confirmed")


def next_step(step: str) -> str:
    return STEPS[min(STEPS.index(step) + 1, len(STEPS) - 1)]
