import datetime as dt
import json
from pathlib import Path

import pytest
from distill_testkit import NOW, commit, git
from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_capture import repo_join_key
from teambrain_distill._prompt_text import render_session
from teambrain_distill._sessions import (
    ENVELOPE_KEYS,
    PAYLOAD_KEYS,
    SessionFacts,
    belongs_to,
    commit_subjects,
    normalise_remote,
    read_session,
    repo_identities,
    whitelisted,
)


def test_torn_and_invalid_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = {"v": 1, "sid": "s", "t": "2026-11-26T10:00:00Z", "tool": "t", "model": "m",
            "repo": "r", "branch": "b", "ev": "intent", "data": {"summary": "do it"}}  # fmt: skip
    bad_kind = {**good, "ev": "tool_use", "data": {"kind": "teleport"}}
    path.write_text(
        json.dumps(good) + "\n" + '{"v":1,"sid":"s","t"\n' + json.dumps(bad_kind) + "\n"
    )
    facts = read_session(path)
    assert facts is not None and facts.intents == ["do it"]
    assert facts.events == 1 and facts.skipped_lines == 2


def test_an_empty_or_hostile_file_has_no_session(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\x00\xff garbage\n[1,2]\n")
    assert read_session(path) is None


def test_only_whitelisted_fields_are_read() -> None:
    record = {
        "v": 1, "sid": "s", "t": "2026-11-26T10:00:00Z", "tool": "t", "model": "m", "repo": "r",
        "branch": "b", "ev": "tool_use", "prompt": "RAW PROMPT",
        "data": {"kind": "command", "exit_code": 2, "command": "curl -H 'Authorization: x'"},
    }  # fmt: skip
    assert whitelisted(record) == {
        "v": 1, "sid": "s", "t": "2026-11-26T10:00:00Z", "tool": "t", "model": "m", "repo": "r",
        "branch": "b", "ev": "tool_use", "data": {"kind": "command", "exit_code": 2},
    }  # fmt: skip
    assert whitelisted({**record, "ev": "candidate_proposed"}) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(
    max_examples=150,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    ev=st.sampled_from([*PAYLOAD_KEYS, "candidate_proposed", "mystery"]),
    extra=st.dictionaries(st.text(min_size=1, max_size=10), json_values, max_size=4),
    data_extra=st.dictionaries(st.text(min_size=1, max_size=10), json_values, max_size=4),
)
def test_whitelisting_never_passes_an_unknown_key(ev: str, extra: dict, data_extra: dict) -> None:
    record = {"v": 1, "sid": "s", "ev": ev, **extra, "data": data_extra}
    picked = whitelisted(record)
    if picked is None:
        return
    assert set(picked) <= {*ENVELOPE_KEYS, "data"}
    assert set(picked["data"]) <= set(PAYLOAD_KEYS[ev])


@settings(
    max_examples=100,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=st.lists(st.one_of(json_values.map(json.dumps), st.text(max_size=40)), max_size=8))
def test_reading_arbitrary_lines_never_raises(tmp_path_factory, lines: list[str]) -> None:
    path = tmp_path_factory.mktemp("spool") / "s.jsonl"
    path.write_text("\n".join(lines).replace("\r", ""), encoding="utf-8", errors="surrogatepass")
    read_session(path)


def test_remotes_normalise_to_one_spelling() -> None:
    for url in (
        "git@github.com:acme/shop.git",
        "https://github.com/acme/shop",
        "https://user@github.com/acme/shop.git/",
        "ssh://git@github.com/acme/shop.git",
        "ssh://git@GitHub.com:22/acme/shop",
    ):
        assert normalise_remote(url) == "github.com/acme/shop", url


@pytest.mark.parametrize(
    "origin",
    [
        None,
        "git@github.com:acme/shop.git",
        "https://token@GitHub.com/Acme/Shop.git/",
        "ssh://git@github.com:22/acme/shop",
        "gitlab.example:22/acme/shop.git",
        "file:///srv/git/Shop.git",
        "/srv/git/Shop.git",
    ],
)
def test_every_key_capture_records_names_the_repository(tmp_path: Path, origin: str | None) -> None:
    repo = tmp_path / "Shop"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    if origin is not None:
        git(repo, "remote", "add", "origin", origin)
    identities = repo_identities(repo)
    # what the capture hook records for a session started anywhere in the work tree
    for start in (repo, repo / "src"):
        key = repo_join_key(start)
        assert key is not None
        assert belongs_to(SessionFacts(sid="s", file=tmp_path, repo=key), identities), key
    # spellings from before capture keyed sessions: the folder name and the path
    for legacy in ("Shop", str(repo)):
        assert belongs_to(SessionFacts(sid="s", file=tmp_path, repo=legacy), identities)
    assert not belongs_to(SessionFacts(sid="s", file=tmp_path, repo="acme/other"), identities)


def test_commit_subjects_come_from_the_local_repository(brain) -> None:
    sha = commit(brain.repo_root, "checkout: retry the gateway once")
    missing = "0" * 40
    subjects = commit_subjects(brain.repo_root, [sha[:9], missing, "not-a-sha"])
    assert subjects == {sha[:9]: "checkout: retry the gateway once"}


def test_the_rendered_session_redacts_and_flattens(tmp_path: Path, session, machine) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    path = (
        session("s-1", start=NOW - dt.timedelta(hours=1))
        .intent(f"use {token} to deploy")
        .tool("edit", "src/a.py").tool("edit", "src/a.py").tool("test", "tests", 1)
        .end(commits=["abcdef1"])
        .write()
    )  # fmt: skip
    facts = read_session(path)
    assert facts is not None
    rendered = render_session(
        facts, label="S1", subjects={"abcdef1": "fix\nsecond line"}, titles={}
    )
    assert token not in rendered.text and "[REDACTED:github-token]" in rendered.text
    assert "- edit src/a.py ×2" in rendered.text and "- test tests (exit 1)" in rendered.text
    assert '- C1: "fix second line"' in rendered.text
    assert rendered.sessions == {"S1": "s-1"} and rendered.commits == {"C1": "abcdef1"}
