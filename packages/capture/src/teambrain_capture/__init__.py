"""teambrain capture: privacy-safe session events from agent hooks (tb-capture), adapters and the local spool."""

__all__: list[str] = []
