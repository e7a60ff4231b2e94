from teambrain_retrieval import trim_to_budget


def cost(item: tuple[str, int]) -> int:
    return item[1]


def test_required_always_kept_then_relevant_in_rank_order() -> None:
    result = trim_to_budget([("r1", 100)], [("a", 300), ("b", 300), ("c", 300)], cost, 750)
    assert result.required == [("r1", 100)]
    assert result.relevant == [("a", 300), ("b", 300)]
    assert result.tokens == 700 and not result.over_budget
    assert any("1 relevant" in note for note in result.notes)


def test_a_big_item_is_skipped_and_smaller_ones_still_fit() -> None:
    result = trim_to_budget([], [("big", 900), ("small", 50)], cost, 500)
    assert result.relevant == [("small", 50)]
    assert result.tokens == 50


def test_required_over_budget_are_all_kept_and_flagged() -> None:
    required = [("r1", 1500), ("r2", 800)]
    result = trim_to_budget(required, [("a", 1)], cost, 2000)
    assert result.required == required
    assert result.relevant == []
    assert result.over_budget
    assert result.tokens == 2300
    assert "over the budget" in result.notes[0]


def test_budget_never_exceeds_the_contract_maximum() -> None:
    result = trim_to_budget([], [("a", 1500), ("b", 1000)], cost, 10_000)
    assert result.budget == 2000
    assert result.relevant == [("a", 1500)]


def test_exact_fit() -> None:
    result = trim_to_budget([("r", 1000)], [("a", 1000)], cost, 2000)
    assert result.relevant == [("a", 1000)] and result.tokens == 2000 and not result.notes
