import contextlib
import time

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_schema.frontmatter import FrontMatterError, parse_memory
from teambrain_schema.yaml import YamlProblem, load_yaml

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_billion_laughs_is_refused_quickly() -> None:
    started = time.process_time()  # CPU time, which a loaded machine does not stretch
    with pytest.raises(YamlProblem, match="anchors"):
        load_yaml(BILLION_LAUGHS)
    assert time.process_time() - started < 5  # refused while scanning, never expanded


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("a: !!python/object:os.system ls\n", "tags"),
        ("a: !custom x\n", "tags"),
        ("a: &x 1\nb: *x\n", "anchors"),
        ("a:\n" + "".join("  " * i + "- \n" for i in range(1, 12)), "nesting"),
        ("a: " + "[" * 50 + "]" * 50 + "\n", "nesting"),
        ("a: 1\na: 2\n", "invalid YAML"),
    ],
)
def test_unsafe_yaml_is_refused(text: str, needle: str) -> None:
    with pytest.raises(YamlProblem, match=needle):
        load_yaml(text)


def test_oversized_yaml_is_refused_without_parsing() -> None:
    with pytest.raises(YamlProblem, match="limit"):
        load_yaml("a: " + "x" * 70_000)


def test_billion_laughs_in_a_memory_file_is_a_front_matter_error() -> None:
    with pytest.raises(FrontMatterError, match="anchors"):
        parse_memory("---\n" + BILLION_LAUGHS + "---\nbody\n")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_text_never_raises_anything_but_front_matter_error(text: str) -> None:
    with contextlib.suppress(FrontMatterError):
        parse_memory("---\n" + text + "\n---\nbody\n")


@pytest.mark.parametrize("text", ["._", "a: ._", "- ._"])
def test_scalars_ruamel_cannot_construct_are_front_matter_errors(text: str) -> None:
    with pytest.raises(FrontMatterError, match="invalid YAML value"):
        parse_memory("---\n" + text + "\n---\nbody\n")


def test_a_number_of_thousands_of_digits_is_a_located_problem_on_either_path() -> None:
    from teambrain_schema.frontmatter import FrontMatterError, parse_memory

    big = "9" * 5000
    with pytest.raises(YamlProblem, match="a number too long to read"):
        load_yaml(f"a: 1\nb: {big}\n")
    text = (
        "---\nid: 01KB2F0A1S9Y4Q7V3C8D5E6F01\nclass: decision\nscope: team\nstatus: active\n"
        f"priority: advisory\ntitle: A\ncreated: 2026-01-01\nttl_days: {big}\n---\n\nBody.\n"
    )  # the fast path reads this shape; it hands the number to the safe loader
    with pytest.raises(FrontMatterError, match="a number too long to read") as raised:
        parse_memory(text)
    assert raised.value.line == 9
