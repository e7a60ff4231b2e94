import datetime as dt
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_schema import UserError
from teambrain_schema.brain import load_brain
from teambrain_sync import (
    brain_at,
    commit_at,
    open_repo,
    parse_timestamp,
    read_blobs,
    resolve_commit,
)

MEMORY_C = "01KB2F0A1S9Y4Q7V3C8D5E6F03"


def _history(brain_repo: Path, kit: SimpleNamespace) -> tuple[str, str, str]:
    """Three commits on main: the brain (Jan 5), a third memory (Jan 7), its edit (Jan 9)."""
    first = kit.git("rev-parse", "HEAD", cwd=brain_repo).strip()
    kit.write_memory(brain_repo, MEMORY_C, "Cache warm-up", "Warm the cache before load tests.")
    second = kit.commit_all(brain_repo, "add C", when="2026-01-07T10:00:00Z")
    kit.write_memory(brain_repo, MEMORY_C, "Cache warm-up", "Warm the cache with `make warm`.")
    third = kit.commit_all(brain_repo, "edit C", when="2026-01-09T10:00:00Z")
    return first, second, third


def test_resolve_commit_accepts_shas_tags_and_branches(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    first, _, third = _history(brain_repo, kit)
    kit.git("tag", "memory/v1", first, cwd=brain_repo)
    repo = open_repo(brain_repo)
    assert resolve_commit(repo, "memory/v1").sha == first
    assert resolve_commit(repo, first[:10]).sha == first
    assert resolve_commit(repo, "main").sha == third
    resolved = resolve_commit(repo, "main~2")
    assert resolved.sha == first and resolved.requested == "main~2"
    assert resolved.committed_at == dt.datetime(2026, 1, 5, 10, tzinfo=dt.UTC)


@pytest.mark.parametrize("ref", ["nope", "--output=/tmp/x", ""])
def test_unknown_or_hostile_refs_are_user_errors(brain_repo: Path, ref: str) -> None:
    with pytest.raises(UserError) as info:
        resolve_commit(open_repo(brain_repo), ref)
    assert info.value.exit_code == 1


def test_commit_at_picks_the_latest_commit_at_or_before(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    first, second, third = _history(brain_repo, kit)
    repo = open_repo(brain_repo)
    assert commit_at(repo, parse_timestamp("2026-01-06")).sha == first
    assert commit_at(repo, parse_timestamp("2026-01-07T10:00:00Z")).sha == second  # inclusive
    assert commit_at(repo, parse_timestamp("2026-01-07T09:59:59Z")).sha == first
    assert commit_at(repo, parse_timestamp("2026-01-08T12:00:00+02:00")).sha == second
    assert commit_at(repo, parse_timestamp("2030-01-01")).sha == third
    with pytest.raises(UserError, match="no commit at or before"):
        commit_at(repo, parse_timestamp("2025-12-31"))


def test_commit_at_follows_the_first_parent_line(brain_repo: Path, kit: SimpleNamespace) -> None:
    # A proposal branch committed on Jan 6 but merged on Jan 8: on Jan 7 it was not approved.
    base = kit.git("rev-parse", "HEAD", cwd=brain_repo).strip()
    kit.git("checkout", "-q", "-b", "proposal", cwd=brain_repo)
    kit.write_memory(brain_repo, MEMORY_C, "Cache warm-up", "Warm the cache before load tests.")
    kit.commit_all(brain_repo, "propose C", when="2026-01-06T10:00:00Z")
    kit.git("checkout", "-q", "main", cwd=brain_repo)
    kit.git(
        "merge", "-q", "--no-ff", "-m", "merge", "proposal", cwd=brain_repo,
        env={"GIT_AUTHOR_DATE": "2026-01-08T10:00:00Z", "GIT_COMMITTER_DATE": "2026-01-08T10:00:00Z"},
    )  # fmt: skip
    repo = open_repo(brain_repo)
    assert commit_at(repo, parse_timestamp("2026-01-07")).sha == base
    at_jan_9 = commit_at(repo, parse_timestamp("2026-01-09"), ref="main")
    assert at_jan_9.sha == kit.git("rev-parse", "HEAD", cwd=brain_repo).strip()
    assert at_jan_9.requested == "main at 2026-01-09T00:00:00Z"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-05-08", dt.datetime(2026, 5, 8, tzinfo=dt.UTC)),
        ("2026-05-08T14:30:00Z", dt.datetime(2026, 5, 8, 14, 30, tzinfo=dt.UTC)),
        ("2026-05-08T14:30:00+02:00", dt.datetime(2026, 5, 8, 12, 30, tzinfo=dt.UTC)),
        ("2026-05-08 14:30", dt.datetime(2026, 5, 8, 14, 30, tzinfo=dt.UTC)),
    ],
)
def test_parse_timestamp(text: str, expected: dt.datetime) -> None:
    assert parse_timestamp(text) == expected


@pytest.mark.parametrize("text", ["yesterday", "2026-13-01", "", "08/05/2026", "7 days"])
def test_parse_timestamp_rejects_non_iso(text: str) -> None:
    with pytest.raises(UserError, match=r"^--at .*expected an ISO date"):
        parse_timestamp(text)


@pytest.mark.parametrize("text", ["0226-05-08", "1969-12-31T23:59:59Z", "0001-01-01"])
def test_parse_timestamp_refuses_moments_before_1970(text: str) -> None:
    """A mistyped year used to answer with today's HEAD labelled as that day."""
    with pytest.raises(UserError, match=r"^--at .*before 1970"):
        parse_timestamp(text)


def test_commit_at_refuses_a_moment_before_1970(brain_repo: Path) -> None:
    repo = open_repo(brain_repo)
    with pytest.raises(UserError, match="before 1970"):
        commit_at(repo, dt.datetime(226, 5, 8, tzinfo=dt.UTC))


def test_parse_timestamp_reads_relative_moments_like_since() -> None:
    """``--at 7d`` works wherever ``--since 7d`` does: one parser for every moment option."""
    before = dt.datetime.now(dt.UTC)
    moment = parse_timestamp("7d")
    after = dt.datetime.now(dt.UTC)
    week = dt.timedelta(days=7)
    assert before - week <= moment <= after - week
    assert abs(parse_timestamp("now") - dt.datetime.now(dt.UTC)) < dt.timedelta(minutes=1)


@given(st.datetimes(timezones=st.timezones()))
def test_parse_timestamp_round_trips_any_aware_datetime(moment: dt.datetime) -> None:
    try:
        expected = moment.astimezone(dt.UTC)
    except (OverflowError, ValueError):
        return  # not representable in UTC at the edges of the calendar
    if expected.year < 1970:
        with pytest.raises(UserError, match="before 1970"):
            parse_timestamp(moment.isoformat())
        return
    assert parse_timestamp(moment.isoformat()) == expected


def test_brain_at_materialises_the_past_and_cleans_up(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    first, second, _ = _history(brain_repo, kit)
    repo = open_repo(brain_repo)
    with brain_at(repo, resolve_commit(repo, first)) as snapshot:
        brain = load_brain(snapshot.layout)
        ids = sorted(f.document.front.id for f in brain.files if f.document)
        assert ids == [kit.MEMORY_A, kit.MEMORY_B]
        assert snapshot.layout.brain_yaml.is_file()
        assert snapshot.layout.retired.is_dir()  # empty folders exist even if git dropped them
        scratch = snapshot.layout.repo_root
    assert not scratch.exists()
    with brain_at(repo, resolve_commit(repo, second)) as snapshot:
        texts = [p.read_text() for p in snapshot.layout.memories.rglob("*cache-warm-up.md")]
        assert len(texts) == 1 and "before load tests" in texts[0]


def test_brain_at_a_commit_without_a_brain_is_a_user_error(
    tmp_path: Path, kit: SimpleNamespace
) -> None:
    repo_path = tmp_path / "plain"
    repo_path.mkdir()
    kit.git("init", "-q", "-b", "main", cwd=repo_path)
    (repo_path / "a.txt").write_text("a")
    kit.git("add", "a.txt", cwd=repo_path)
    kit.git("commit", "-q", "-m", "a", cwd=repo_path)
    repo = open_repo(repo_path)
    with pytest.raises(UserError, match="no brain at HEAD"), brain_at(repo, resolve_commit(repo)):
        pass


def test_symlinks_in_the_brain_are_not_materialised(brain_repo: Path, kit: SimpleNamespace) -> None:
    link = brain_repo / ".teambrain" / "memories" / "learnings" / "evil.md"
    os.symlink("/etc/passwd", link)
    sha = kit.commit_all(brain_repo, "a symlink")
    repo = open_repo(brain_repo)
    with brain_at(repo, resolve_commit(repo, sha)) as snapshot:
        assert not (snapshot.layout.memories / "learnings" / "evil.md").exists()
        assert len(list(snapshot.layout.memories.rglob("*.md"))) == 2


@settings(max_examples=25, deadline=None)
@given(st.lists(st.binary(max_size=300), min_size=1, max_size=5))
def test_read_blobs_returns_exact_bytes(
    tmp_path_factory: pytest.TempPathFactory, blobs: list[bytes]
) -> None:
    path = tmp_path_factory.mktemp("blobs")
    from teambrain_sync import run_git

    run_git(["init", "-q"], cwd=path)
    repo = open_repo(path)
    ids = [repo.git("hash-object", "-w", "--stdin", input=b).stdout.decode().strip() for b in blobs]
    assert read_blobs(repo, [*ids, "0" * 40]) == [*blobs, None]


def test_checkout_matches_only_an_identical_clean_brain(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    from teambrain_sync import checkout_matches

    first, _, third = _history(brain_repo, kit)
    repo = open_repo(brain_repo)
    index = (brain_repo / ".git" / "index").read_bytes()
    assert checkout_matches(repo, third)
    assert not checkout_matches(repo, first)  # the brain changed since
    (brain_repo / "README.md").write_text("edited outside the brain\n")
    assert checkout_matches(repo, third)
    note = brain_repo / ".teambrain" / "memories" / "learnings" / "draft.md"
    note.write_text("untracked")
    assert not checkout_matches(repo, third)
    note.unlink()
    memory = next((brain_repo / ".teambrain" / "memories").rglob("*cache-warm-up.md"))
    memory.write_text(memory.read_text() + "\nmore\n")
    assert not checkout_matches(repo, third)
    assert (brain_repo / ".git" / "index").read_bytes() == index  # status never rewrote it
