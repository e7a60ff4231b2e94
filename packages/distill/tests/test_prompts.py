import pytest
from hypothesis import given, strategies as st
from teambrain_distill._prompts import (
    DEFAULT_PROMPTS,
    PLACEHOLDERS,
    PromptTemplate,
    TemplateProblem,
)


def template(name: str, text: str) -> PromptTemplate:
    return PromptTemplate(name=name, relpath=f".teambrain/prompts/{name}", text=text)


@pytest.mark.parametrize("name", sorted(DEFAULT_PROMPTS))
def test_the_defaults_are_valid(name: str) -> None:
    default = template(name, DEFAULT_PROMPTS[name])
    default.check()
    assert default.is_default


def test_problems_name_the_file_and_line() -> None:
    with pytest.raises(TemplateProblem, match=r"distill-session.md:3: invalid placeholder"):
        template("distill-session.md", "$session\n\ncosts $5\n").check()
    with pytest.raises(
        TemplateProblem, match=r"distill-system.md:2: unknown placeholder \$session"
    ):
        template("distill-system.md", "Hi\n${session}\n").check()


@given(
    values=st.fixed_dictionaries({k: st.text() for k in sorted(PLACEHOLDERS["distill-session.md"])})
)
def test_values_are_inserted_verbatim(values: dict[str, str]) -> None:
    text = template("distill-session.md", "A $session B $memories C $max_candidates").render(values)
    assert text == f"A {values['session']} B {values['memories']} C {values['max_candidates']}"
