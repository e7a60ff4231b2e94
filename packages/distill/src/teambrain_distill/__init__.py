"""teambrain distill: the only LLM boundary; turns captured sessions into memory candidates."""

__all__: list[str] = []
