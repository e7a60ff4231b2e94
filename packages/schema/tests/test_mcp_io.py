import pytest
from pydantic import ValidationError
from teambrain_schema import MemorySearchInput


@pytest.mark.parametrize("k", [True, "8", 8.0, 0, 51])
def test_k_is_a_whole_number_in_range(k: object) -> None:
    with pytest.raises(ValidationError, match="k"):
        MemorySearchInput.model_validate({"query": "redis", "k": k})


def test_query_is_stripped_and_required() -> None:
    assert MemorySearchInput.model_validate({"query": "  redis  "}).query == "redis"
    with pytest.raises(ValidationError, match="query"):
        MemorySearchInput.model_validate({"query": "   "})
