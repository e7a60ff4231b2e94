"""complete() with the fake driver: fixtures, re-asks, the cost cap, the registry."""

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from pydantic import BaseModel
from teambrain_distill import (
    LLM,
    CostCapReached,
    FixtureMissing,
    FixtureStore,
    ModelOutputInvalid,
    Request,
    complete,
    driver_names,
    register_driver,
)
from teambrain_distill._drivers import _REGISTRY
from teambrain_schema import DistillConfig, UserError


class Answer(BaseModel):
    word: str


def fake(tmp_path: Path, **settings) -> LLM:
    config = DistillConfig.model_validate(
        {"driver": "fake", "model": "fake-distiller-1", "fixtures": str(tmp_path), **settings}
    )
    return LLM(config, record=False)


def record(
    tmp_path: Path, responses: list, system="s", prompt="p", model="fake-distiller-1"
) -> Path:
    request = Request.build(system=system, prompt=prompt, schema=Answer, model=model)
    path = FixtureStore(tmp_path).save(request, {}, recorded_with="hand")
    data = json.loads(path.read_text())
    data["responses"] = responses
    path.write_text(json.dumps(data))
    return path


def test_the_fake_replays_a_fixture(tmp_path: Path) -> None:
    record(tmp_path, [{"word": "hello"}])
    assert fake(tmp_path).complete(system="s", prompt="p", schema=Answer) == Answer(word="hello")


def test_a_missing_fixture_says_how_to_record(tmp_path: Path) -> None:
    with pytest.raises(FixtureMissing, match="TEAMBRAIN_DISTILL_RECORD=1") as caught:
        fake(tmp_path).complete(system="s", prompt="other", schema=Answer)
    assert caught.value.exit_code == 2


def test_a_fallback_fixture_answers_unrecorded_requests(tmp_path: Path) -> None:
    (tmp_path / "fallback.json").write_text(
        json.dumps({"v": 1, "schema": "Answer", "responses": [{"word": "default"}]})
    )
    assert fake(tmp_path).complete(system="s", prompt="x", schema=Answer).word == "default"


def test_an_edited_fixture_is_refused(tmp_path: Path) -> None:
    path = record(tmp_path, [{"word": "hello"}])
    data = json.loads(path.read_text())
    data["key"] = "0" * 64
    path.write_text(json.dumps(data))
    with pytest.raises(FixtureMissing, match="does not match"):
        fake(tmp_path).complete(system="s", prompt="p", schema=Answer)


def test_invalid_answers_are_re_asked_up_to_the_bound(tmp_path: Path) -> None:
    record(tmp_path, ["{oops", {"wrong": 1}, {"word": "late"}])
    llm = fake(tmp_path, max_retries=1)
    with pytest.raises(ModelOutputInvalid, match=r"after 2 attempt\(s\)") as caught:
        llm.complete(system="s", prompt="p", schema=Answer)
    assert caught.value.attempts == 2 and llm.budget.calls == 2
    llm = fake(tmp_path, max_retries=2)
    assert llm.complete(system="s", prompt="p", schema=Answer).word == "late"


def test_the_cost_cap_refuses_before_sending(tmp_path: Path) -> None:
    record(tmp_path, [{"word": "hello"}])
    llm = fake(tmp_path, max_calls=1)
    llm.complete(system="s", prompt="p", schema=Answer)
    with pytest.raises(CostCapReached, match="1 of 1 model calls"):
        llm.complete(system="s", prompt="p", schema=Answer)
    assert llm.budget.calls == 1


def test_recording_with_the_fake_driver_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TEAMBRAIN_DISTILL_RECORD", "1")
    with pytest.raises(UserError, match="recording needs a real driver"):
        LLM(DistillConfig(driver="fake"))


def test_complete_uses_the_enclosing_brain(brain, monkeypatch) -> None:
    from distill_testkit import write_config

    write_config(brain, fixtures="answers")
    record(brain.root / "answers", [{"word": "from the brain"}])
    monkeypatch.chdir(brain.repo_root)
    assert complete(system="s", prompt="p", schema=Answer).word == "from the brain"


def test_the_registry_is_a_plain_dict_with_a_register_function(tmp_path: Path, monkeypatch) -> None:
    assert set(driver_names()) >= {"fake", "anthropic", "openai", "ollama"}
    monkeypatch.delitem(_REGISTRY, "fake", raising=False)  # undone after: the built-in again
    seen = []

    class Echo:
        name = "echo"

        def generate(self, request, schema, *, guard, context=None):
            seen.append(request)
            guard.first(1)
            guard.sent(1)
            return schema(word=request.prompt)

    register_driver("fake", lambda config, brain_dir: Echo())
    assert fake(tmp_path).complete(system="s", prompt="hi", schema=Answer).word == "hi"
    assert len(seen) == 1


@given(system=st.text(), prompt=st.text(), model=st.text(min_size=1))
def test_the_key_is_stable_and_sensitive(system: str, prompt: str, model: str) -> None:
    one = Request.build(system=system, prompt=prompt, schema=Answer, model=model)
    assert (
        one.key() == Request.build(system=system, prompt=prompt, schema=Answer, model=model).key()
    )
    assert (
        one.key()
        != Request.build(system=system, prompt=prompt + "x", schema=Answer, model=model).key()
    )
    assert (
        one.key()
        != Request.build(system=system + "x", prompt=prompt, schema=Answer, model=model).key()
    )
    assert (
        one.key()
        != Request.build(system=system, prompt=prompt, schema=Answer, model=model + "x").key()
    )


def test_the_key_covers_the_schema() -> None:
    class Other(BaseModel):
        word: int

    Other.__name__ = "Answer"
    a = Request.build(system="s", prompt="p", schema=Answer, model="m")
    b = Request.build(system="s", prompt="p", schema=Other, model="m")
    assert a.key() != b.key()


def test_importing_the_package_imports_no_llm_client() -> None:
    import subprocess
    import sys

    code = (
        "import sys, teambrain_distill as d; d.complete; d.distill; d.DEFAULT_PROMPTS;"
        "bad = [m for m in ('instructor', 'anthropic', 'openai', 'ollama') if m in sys.modules];"
        "print(','.join(bad))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert done.stdout.strip() == ""


def test_errors_are_reported_in_one_line() -> None:
    from pydantic import ValidationError
    from teambrain_distill._errors import first_error_line

    class Two(BaseModel):
        a: int
        b: int

    with pytest.raises(ValidationError) as invalid:
        Two.model_validate({"a": "x"})
    assert first_error_line(invalid.value) == (
        "a: Input should be a valid integer, unable to parse string as an integer (+1 more)"
    )
    assert first_error_line(ValueError("  first\nsecond")) == "first"
    assert first_error_line(RuntimeError("x" * 400), limit=300) == "x" * 300
    assert first_error_line(TimeoutError()) == "TimeoutError"


def test_the_built_in_drivers_are_this_package_s_entry_points() -> None:
    """The built-in drivers (the contract's fake, anthropic, openai and ollama among them)
    register the way a plugin does (teambrain.drivers in this package's metadata); none of them
    counts as a plugin. The next test holds the whole list to `distill.driver`'s."""
    from teambrain_distill._drivers import fake_driver
    from teambrain_schema.plugins import DRIVERS_GROUP, builtin_names, load_builtin, plugin_names

    built_in = set(builtin_names(DRIVERS_GROUP, "teambrain-distill"))
    assert built_in >= {"fake", "anthropic", "openai", "ollama"}
    assert load_builtin(DRIVERS_GROUP, "teambrain-distill", "fake") is fake_driver
    assert not built_in & set(plugin_names(DRIVERS_GROUP))


def test_the_config_model_names_exactly_the_built_in_drivers_and_each_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new built-in driver is an entry point, a name `distill.driver` accepts and a factory
    that builds it (docs/contributing.md, "Adding an LLM driver"): the config model's closed
    list and the entry points say the same thing, and every one builds without its SDK or the
    network."""
    from typing import get_args

    from teambrain_distill import BuiltinDriver, builtin_driver, driver_egress
    from teambrain_schema.egress import normalise_url
    from teambrain_schema.plugins import DRIVERS_GROUP, builtin_names, load_builtin

    names = set(builtin_names(DRIVERS_GROUP, "teambrain-distill"))
    accepted = set(get_args(DistillConfig.model_fields["driver"].annotation)) - {"none"}
    assert accepted == names, "distill.driver's Literal and the teambrain.drivers entry points"
    monkeypatch.setenv("TB_TEST_DRIVER_KEY", "not-a-real-key")
    for name in sorted(names):
        config = DistillConfig(driver=name, model="m", api_key_env="TB_TEST_DRIVER_KEY")
        built_in = load_builtin(DRIVERS_GROUP, "teambrain-distill", name)
        assert isinstance(built_in, BuiltinDriver) and builtin_driver(name) is built_in, name
        driver = built_in(config, tmp_path)
        assert driver.name == name and callable(driver.generate), name
        # where it sends (the egress list, tb trust) comes from its entry, not a table by name
        egress = driver_egress(config)
        if built_in.default_url is None:
            assert egress is None, name
        else:
            assert egress is not None, name
            assert egress.destination == normalise_url(built_in.default_url), name
    assert builtin_driver("none") is None and builtin_driver("nope") is None
