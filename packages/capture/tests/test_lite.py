import datetime as dt
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_capture import make_event, safe_sid, utc_timestamp
from teambrain_capture._lite import (
    JsonError,
    dumps,
    envelope,
    loads,
    session_path,
    teambrain_home,
    utc_stamp,
)
from teambrain_kit.paths import machine_layout, teambrain_home as schema_home

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(), inner, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=300)
@given(json_values)
def test_dumps_and_loads_match_the_json_module(value: object) -> None:
    text = dumps(value)
    assert text == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert loads(text) == json.loads(text)
    assert loads(f" \n{json.dumps(value, indent=2)}\t\n") == json.loads(text)


@pytest.mark.parametrize(
    "text", ["", "   ", "{", "[1,]", '{"a": 1} x', "nul", '"abc', "[" * 100_000]
)
def test_loads_rejects_what_json_rejects(text: str) -> None:
    with pytest.raises(JsonError):
        loads(text)
    with pytest.raises((ValueError, RecursionError)):
        json.loads(text)


_OLD_SAFE_SID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,127}$")


@settings(max_examples=500)
@given(st.one_of(st.text(max_size=200), st.from_regex(_OLD_SAFE_SID, fullmatch=True)))
def test_safe_sid_keeps_safe_ids_and_hashes_the_rest(raw: str) -> None:
    sid = safe_sid(raw)
    # fullmatch: with match(), ``$`` also accepts a trailing newline ("0\n" is not a safe id)
    if _OLD_SAFE_SID.fullmatch(raw) and raw not in (".", ".."):
        assert sid == raw
    else:
        assert sid.startswith("h-") and len(sid) == 34
    assert _OLD_SAFE_SID.fullmatch(sid)


@settings(max_examples=200)
@given(st.floats(min_value=0, max_value=4_000_000_000, allow_nan=False))
def test_utc_stamp_matches_the_spool_timestamp(epoch: float) -> None:
    moment = dt.datetime.fromtimestamp(epoch, dt.UTC)
    assert utc_stamp(moment.timestamp()) == utc_timestamp(moment)


def test_envelope_matches_make_event() -> None:
    from teambrain_capture import JoinKeys

    keys = JoinKeys(sid="s", tool="t", model="m", repo="r", branch="b")
    moment = dt.datetime(2026, 5, 1, 12, 0, 0, 123000, tzinfo=dt.UTC)
    assert envelope(
        "intent", {"summary": "x"}, keys.as_dict(), epoch=moment.timestamp()
    ) == make_event("intent", {"summary": "x"}, keys, now=moment)


def test_home_and_session_paths_agree_with_the_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for configured in (str(tmp_path / "h"), "~/elsewhere", ""):
        monkeypatch.setenv("TEAMBRAIN_HOME", configured)
        assert teambrain_home() == str(schema_home())
        assert session_path(teambrain_home(), "abc") == str(machine_layout().session_file("abc"))


def _modules_loaded_by(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after ``code`` (beyond its own start-up)."""
    script = f"import sys\nbefore = set(sys.modules)\n{code}\n" + (
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True,
        env={**os.environ},
    )  # fmt: skip
    return set(done.stdout.split())


def test_the_hook_path_imports_only_cheap_builtins() -> None:
    loaded = _modules_loaded_by("import teambrain_capture._hook")
    heavy = {
        "re",
        "json",
        "dataclasses",
        "pathlib",
        "typing",
        "hashlib",
        "datetime",
        "pydantic",
        "ruamel",
        "tomlkit",
        "subprocess",
        "collections",
    }
    assert not loaded & heavy, loaded & heavy


def test_the_prompt_path_leaves_out_typing_and_dataclasses() -> None:
    """A user prompt is summarised (and redacted) before the agent sends it: that path needs
    ``re``, but not ``typing``/``dataclasses`` (with ``inspect``, ~10 ms)."""
    loaded = _modules_loaded_by(
        "import teambrain_capture._intent as intent\n"
        "intent.summarise_intent('Deploy with token ghp_' + 'a' * 36 + ' please')"
    )
    assert "teambrain_kit.secrets" in loaded
    assert not loaded & {"typing", "dataclasses", "inspect", "pydantic"}, loaded


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "PostToolUse", "SessionEnd"])
def test_the_hook_never_reads_entry_points(tmp_path: Path, event: str) -> None:
    """Agent tools, drivers and embedders are entry points; the hook runs on every tool call and
    never reads installed packages' metadata (importlib.metadata alone costs milliseconds)."""
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": event,
               "prompt": "Fix the cart total", "tool_name": "Edit", "tool_input": {},
               "tool_response": {}, "source": "startup", "reason": "exit"}  # fmt: skip
    script = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('metadata' if 'importlib.metadata' in sys.modules"
        " else 'none', file=sys.__stderr__))\n"
        "sys.argv = ['tb-capture', 'claude-code']\n"
        "from teambrain_capture._hook import main\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(payload), capture_output=True,
        text=True, env={**os.environ, "TEAMBRAIN_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "none", done.stderr


# What the hook may load of the shared machinery: its light, standard-library modules. The
# contract package (pydantic models) and kit's heavy modules stay out of every hook event.
HOOK_KIT_MODULES = {
    "teambrain_kit", "teambrain_kit.atomic", "teambrain_kit.gitdir", "teambrain_kit.home",
    "teambrain_kit.lazy", "teambrain_kit.local_files", "teambrain_kit.paths",
    "teambrain_kit.private_dirs", "teambrain_kit.scrub", "teambrain_kit.secrets",
}  # fmt: skip


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "PostToolUse"])
def test_the_hook_loads_only_the_light_kit_and_never_the_contract(
    tmp_path: Path, event: str
) -> None:
    """The hook runs on every tool call: it imports kit's light modules, not teambrain_schema
    (whose models need pydantic) nor kit's git-history, HTTP or plugin machinery."""
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": event,
               "prompt": "Fix the cart total", "tool_name": "Edit", "tool_input": {},
               "tool_response": {}, "source": "startup"}  # fmt: skip
    script = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(' '.join(sorted(m for m in sys.modules"
        " if m.startswith(('teambrain_kit', 'teambrain_schema', 'pydantic')))),"
        " file=sys.__stderr__))\n"
        "sys.argv = ['tb-capture', 'claude-code']\n"
        "from teambrain_capture._hook import main\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(payload), capture_output=True,
        text=True, env={**os.environ, "TEAMBRAIN_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    loaded = set(done.stderr.strip().splitlines()[-1].split())
    assert "teambrain_kit.gitdir" in loaded  # the hook does use the kit
    assert loaded <= HOOK_KIT_MODULES, loaded - HOOK_KIT_MODULES
