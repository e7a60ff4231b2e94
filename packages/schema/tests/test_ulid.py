from hypothesis import given, strategies as st
from teambrain_schema.ids import is_ulid, new_ulid


def test_a_new_ulid_is_a_ulid_and_nothing_around_it_is() -> None:
    ulid = new_ulid()
    assert is_ulid(ulid)
    for near in (ulid + "\n", ulid + " ", "\n" + ulid, ulid.lower(), ulid[:-1], "8" + ulid[1:]):
        assert not is_ulid(near), repr(near)


@given(st.text(max_size=30))
def test_only_26_crockford_characters_up_to_7zzz_pass(text: str) -> None:
    crockford = set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    expected = len(text) == 26 and set(text) <= crockford and text[0] <= "7"
    assert is_ulid(text) == expected
