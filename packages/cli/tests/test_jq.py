"""``--jq`` (issue 42 point 6): the subset of jq tb reads gives what jq itself gives — checked
against the jq program on generated data — and anything else is a one-line user error."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_cli._console.jq import JqError, format_results, run_jq

EXPRESSIONS = [
    ".", ".memories", ".memories[].id", ".memories | length", ".total",
    "[.memories[] | select(.class == \"map\") | .title]",
    ".memories[] | \"\\(.id)\\t\\(.title)\"", "{total, n: (.memories | length)}",
    ".memories | map(.tags | join(\",\"))", ".memories[0:2]", ".memories[-1]",
    ".total // 5", ".missing // \"none\"", ".x.y?", "[.memories[].tags[]] | unique",
    ".memories | sort_by(.title) | map(.id)", ".memories | sort_by(.title) | reverse | .[0].id",
    ".memories[] | select(.tags | length > 0) | .id", "[.memories[] | .stale | length] | add",
    ".memories | group_by(.class) | map({class: .[0].class, n: length})",
    ".memories | map(select(.title | test(\"^[a-m]\"))) | length",
    ".memories[] | select(.tags | contains([\"payments\"])) | .id",
    ".memories | map(.title | ascii_downcase) | sort", ".memories | [.[].priority] | unique",
    ".memories[] | select(.priority == \"required\" and .class != \"map\") | .title",
    ".memories[] | select(.scope == \"org\" or (.tags | length) > 1) | .id",
    "[.memories[] | .id | startswith(\"01K\")] | all", ".memories | any",
    ".memories | map(has(\"title\")) | all", "[.memories[] | {(.id): .class}] | add | keys",
    ".memories | to_entries | map(.key) | length", ".memories | first | .tags | length",
    ".memories | [limit(2; .[])] | length", "[range(3)]", ".total * 2 - 1",
    "[.memories[] | .title | split(\" \") | length] | max",
    ".memories | unique_by(.class) | map(.class)", "(.memories | length) >= .total",
    ".memories | map(.tags) | add // [] | length", "[.memories[] | .title | ltrimstr(\"a\")]",
]  # fmt: skip

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=12)
MEMORY = st.fixed_dictionaries({
    "id": st.from_regex(r"01K[0-9A-Z]{4}", fullmatch=True),
    "title": WORDS, "class": st.sampled_from(["decision", "convention", "map", "learning"]),
    "tags": st.lists(st.sampled_from(["payments", "ci", "imported", "ui"]), max_size=3, unique=True),
    "priority": st.sampled_from(["required", "advisory"]), "scope": st.sampled_from(["team", "org"]),
    "stale": st.lists(WORDS, max_size=2),
})  # fmt: skip
DATA = st.lists(MEMORY, min_size=1, max_size=6).map(lambda m: {"memories": m, "total": len(m)})
JQ = shutil.which("jq")


@pytest.mark.skipif(JQ is None, reason="the jq program compares results (apt-get install jq)")
@settings(max_examples=12, deadline=None)
@given(st.lists(DATA, min_size=1, max_size=10))
def test_every_supported_form_gives_what_jq_gives(samples: list[dict[str, object]]) -> None:
    assert JQ is not None
    stream = "\n".join(json.dumps(data) for data in samples)
    # One jq run for every expression over every sample: per sample, a line holding each
    # expression's results, or null for an error.
    program = (
        "[" + ", ".join(f"(try [{expression}] catch null)" for expression in EXPRESSIONS) + "]"
    )
    done = subprocess.run([JQ, "-c", program], input=stream, capture_output=True, text=True,
                          check=True)  # fmt: skip
    per_sample = [json.loads(line) for line in done.stdout.split("\n") if line.strip()]
    assert len(per_sample) == len(samples)
    for index, expression in enumerate(EXPRESSIONS):
        expected = [answers[index] for answers in per_sample]
        got = []
        for data in samples:
            try:
                got.append(run_jq(expression, data))
            except JqError:
                got.append(None)
        assert got == expected, expression


def test_strings_print_raw_and_the_rest_as_compact_json() -> None:
    assert format_results(["a\tb", 3, {"x": [1]}, None]) == 'a\tb\n3\n{"x":[1]}\nnull\n'


@pytest.mark.parametrize(
    "expression", ["..|numbers", ".[", "input", ".a |", "{a:}", "\"open", "$__loc__", "reduce . as $x (0; .)",
                   "{", "{a", "{a,", "{(.a)"]
)  # fmt: skip
def test_what_is_not_read_is_a_user_error(expression: str) -> None:
    with pytest.raises(JqError):
        run_jq(expression, {"a": 1})


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), DATA)
def test_any_expression_runs_or_says_why(expression: str, data: dict[str, object]) -> None:
    try:
        run_jq(expression, data)
    except JqError as exc:
        assert exc.message.startswith("--jq: ") and "\n" not in exc.message
