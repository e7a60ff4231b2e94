from hypothesis import given, settings, strategies as st
from teambrain_cli._reports.cells import (
    MIN_SESSIONS,
    OTHER_KEY,
    SUPPRESSED,
    figure,
    fold_small_cells,
    hide_small_cells,
    is_shown,
)
from teambrain_cli._reports.render import format_figure


def group(prefix: str, size: int) -> frozenset[str]:
    return frozenset(f"{prefix}-{i}" for i in range(size))


def test_a_figure_needs_five_sessions() -> None:
    assert MIN_SESSIONS == 5
    assert figure(4, 4) is SUPPRESSED
    assert figure(5, 5) == 5
    assert figure(12.345, 4, digits=1) is SUPPRESSED
    assert figure(12.345, 5, digits=1) == 12.3
    assert figure(0, 0) is SUPPRESSED
    assert format_figure(SUPPRESSED) == "<5" and str(SUPPRESSED) == "<5"
    assert not is_shown(SUPPRESSED) and is_shown(0)


def test_a_lone_small_cell_takes_the_next_smallest_with_it() -> None:
    cells = [(10, group("a", 10)), (3, group("b", 3)), (6, group("c", 6)), (8, group("d", 8))]
    # b alone could be worked out as total - the others; c (the next smallest) hides with it.
    assert hide_small_cells(cells) == [10, SUPPRESSED, SUPPRESSED, 8]


def test_small_cells_that_pool_to_five_need_no_partner() -> None:
    cells = [(10, group("a", 10)), (3, group("b", 3)), (2, group("c", 2))]
    assert hide_small_cells(cells) == [10, SUPPRESSED, SUPPRESSED]


def test_empty_cells_are_hidden_but_protect_nothing() -> None:
    cells = [(10, group("a", 10)), (0, frozenset()), (7, group("c", 7))]
    assert hide_small_cells(cells) == [10, SUPPRESSED, 7]


def test_overlapping_groups_count_each_session_once() -> None:
    shared = group("s", 3)
    # Two small cells of the same three sessions pool to three sessions, not six.
    cells = [(9, shared), (4, shared), (50, group("big", 20))]
    assert hide_small_cells(cells) == [SUPPRESSED, SUPPRESSED, SUPPRESSED]


def test_small_open_categories_fold_into_other() -> None:
    cells = {
        "claude-code": (20, group("cc", 20)),
        "cursor": (3, group("cu", 3)),
        "codex": (2, group("co", 2)),
    }
    assert fold_small_cells(cells) == {"claude-code": 20, OTHER_KEY: 5}
    cells["windsurf"] = (6, group("w", 6))
    cells["codex"] = (1, group("co", 1))
    # cursor + codex hold 4 sessions: windsurf (the next smallest) folds in too.
    assert fold_small_cells(cells) == {"claude-code": 20, OTHER_KEY: 10}
    assert fold_small_cells({"a": (4, group("a", 4))}) == {OTHER_KEY: SUPPRESSED}
    assert fold_small_cells({}) == {}


def test_a_category_named_other_is_always_folded() -> None:
    cells = {OTHER_KEY: (7, group("o", 7)), "cursor": (9, group("c", 9))}
    assert fold_small_cells(cells) == {"cursor": 9, OTHER_KEY: 7}


partitions = st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=8)


@settings(max_examples=400, deadline=None)
@given(partitions)
def test_no_small_cell_can_be_recovered_by_subtraction(sizes: list[int]) -> None:
    cells = [(size, group(str(i), size)) for i, size in enumerate(sizes)]
    shown = hide_small_cells(cells)
    assert all(value >= MIN_SESSIONS for value in shown if is_shown(value))  # type: ignore[operator]
    hidden_mass = sum(size for size, value in zip(sizes, shown, strict=True) if not is_shown(value))
    # What a reader gets by subtracting the shown cells from the total: 0 or at least five.
    assert hidden_mass == 0 or hidden_mass >= MIN_SESSIONS or sum(sizes) < MIN_SESSIONS


@settings(max_examples=400, deadline=None)
@given(partitions)
def test_folding_shows_only_groups_of_five_and_keeps_the_total(sizes: list[int]) -> None:
    cells = {f"tool-{i}": (size, group(str(i), size)) for i, size in enumerate(sizes) if size}
    folded = fold_small_cells(cells)
    for key, value in folded.items():
        if is_shown(value):
            assert value >= MIN_SESSIONS  # type: ignore[operator]
        else:
            assert key == OTHER_KEY
    if all(is_shown(v) for v in folded.values()):
        assert sum(folded.values()) == sum(sizes)  # type: ignore[arg-type]
