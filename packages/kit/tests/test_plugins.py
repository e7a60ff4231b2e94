"""Plugin code runs behind one guard: any failure is one line naming the plugin, nothing it
prints reaches stdout, and loading it is bounded in time."""

from __future__ import annotations

import sys
import threading

import pytest
from hypothesis import given, strategies as st
from teambrain_kit.plugins import PluginProblem, plugin_call

FAILURES = [
    SystemExit(7), SystemExit("bye"), SystemExit(None), KeyboardInterrupt(), RuntimeError("x\ny"),
    ValueError(""), MemoryError(), RecursionError(), GeneratorExit(), OSError(28, "No space"),
]  # fmt: skip


@pytest.mark.parametrize("bounded", [True, False])
@pytest.mark.parametrize("failure", FAILURES, ids=lambda exc: type(exc).__name__)
def test_any_failure_of_plugin_code_is_one_line_naming_it(
    failure: BaseException, bounded: bool
) -> None:
    def plugin() -> None:
        raise failure

    if isinstance(failure, KeyboardInterrupt) and not bounded:
        with pytest.raises(KeyboardInterrupt):  # on the caller's thread it may be Ctrl-C
            plugin_call("plugin 'p'", plugin)
        return
    with pytest.raises(PluginProblem) as caught:
        plugin_call("plugin 'p'", plugin, bounded=bounded)
    assert caught.value.message.startswith("plugin 'p' failed")
    assert "\n" not in caught.value.message


@given(st.text(max_size=40))
def test_what_a_plugin_prints_goes_to_stderr_and_stdout_comes_back(text: str) -> None:
    before = sys.stdout
    written: list[object] = []

    def plugin() -> str:
        written.append(sys.stdout)
        print(text)
        return text

    assert plugin_call("p", plugin) == text
    assert plugin_call("p", plugin, bounded=True) == text
    assert written == [sys.stderr, sys.stderr]
    assert sys.stdout is before


def test_a_plugin_that_never_returns_is_left_out_after_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TEAMBRAIN_PLUGIN_TIMEOUT", "0.2")
    release = threading.Event()
    before = sys.stdout
    with pytest.raises(PluginProblem, match=r"did not load within 0.2 s"):
        plugin_call("plugin 'slow'", release.wait, 60, bounded=True)
    release.set()
    assert sys.stdout is before


def test_a_plugin_s_own_error_types_pass_as_they_are() -> None:
    class Said(Exception):
        pass

    def plugin() -> None:
        raise Said("the model is not installed")

    for bounded in (True, False):
        with pytest.raises(Said):
            plugin_call("p", plugin, bounded=bounded, passes=(Said,))


@pytest.mark.parametrize("value", ["", "abc", "-1", "0", "nan", "1e9"])
def test_an_unusable_bound_falls_back_to_the_default(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    from teambrain_kit.plugins import DEFAULT_TIMEOUT_S, load_timeout

    monkeypatch.setenv("TEAMBRAIN_PLUGIN_TIMEOUT", value)
    assert load_timeout() == DEFAULT_TIMEOUT_S
