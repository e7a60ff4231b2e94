import datetime as dt
import json
from pathlib import Path

import pytest
from distill_testkit import NOW, ScriptedDriver, commit, proposal, write_config
from teambrain_capture import list_candidates, queue_candidate
from teambrain_distill import LLM, DistillOptions, distill
from teambrain_distill._state import Watermark
from teambrain_schema import EnvironmentProblem, MemoryFrontMatter, UserError
from teambrain_schema.brain import load_brain_config
from teambrain_schema.frontmatter import new_memory_text
from teambrain_schema.paths import BrainLayout, MachineLayout


def run(
    brain: BrainLayout,
    machine: MachineLayout,
    driver: ScriptedDriver,
    *,
    similarity: bool = False,
    **options,
):
    llm = LLM(load_brain_config(brain).distill, brain_dir=brain.root, driver=driver, record=False)
    return distill(
        brain, machine, options=DistillOptions(now=NOW, **options), llm=llm, similarity=similarity
    )


def add_memory(brain: BrainLayout, memory_id: str, title: str, body: str) -> None:
    front = MemoryFrontMatter.model_validate(
        {"id": memory_id, "class": "learning", "scope": "team", "status": "active",
         "priority": "advisory", "title": title, "created": "2026-11-01", "tags": ["testing"]}
    )  # fmt: skip
    path = brain.memory_path("learning", memory_id, "memory")
    path.write_text(new_memory_text(front, body))


def test_a_committed_session_becomes_a_candidate_with_evidence(brain, machine, session) -> None:
    sha = commit(brain.repo_root, "tests: use the fake clock in checkout timeout tests")
    session("s-1").intent("Fix the flaky checkout timeout test").tool(
        "test", "tests/test_checkout.py", 1
    ).tool("edit", "tests/test_checkout.py").tool("test", "tests/test_checkout.py", 0).end(
        commits=[sha[:12]]
    ).write()
    driver = ScriptedDriver(
        {
            "s-1": [
                {
                    "candidates": [
                        proposal("Checkout timeout test needs the fake clock", commits=["C1"])
                    ]
                }
            ]
        }
    )
    report = run(brain, machine, driver)
    assert report.exit_code == 0
    assert [r.status for r in report.sessions] == ["distilled"]
    [candidate] = list_candidates(machine).candidates
    assert candidate.proposer == "distiller" and candidate.sid == "s-1"
    assert candidate.draft.evidence is not None
    assert candidate.draft.evidence.sessions == ["s-1"]
    assert candidate.draft.evidence.commits == [sha[:12]]
    assert report.candidates[0].candidate_id == candidate.candidate_id
    # The prompt showed the commit subject from git, by label, and not the sha.
    prompt = driver.requests[0].prompt
    assert 'C1: "tests: use the fake clock in checkout timeout tests"' in prompt
    assert sha[:7] not in prompt and "s-1" not in prompt
    assert report.usage["calls"] == 1


def test_a_second_run_proposes_nothing_new(brain, machine, session) -> None:
    session("s-1").intent("Fix the flaky test").tool("test", "t.py", 0).end().write()
    answers = {"s-1": [{"candidates": [proposal("Checkout timeout test needs the fake clock")]}]}
    first = run(brain, machine, ScriptedDriver(answers))
    assert len(first.candidates) == 1
    second = run(brain, machine, ScriptedDriver(answers))
    assert second.sessions == [] and second.ignored["already_distilled"] == 1
    assert second.usage["calls"] == 0
    # Forget the watermark: the model proposes the same again, and it is dropped as pending.
    Watermark.load(machine).path.unlink()
    third = run(brain, machine, ScriptedDriver(answers))
    assert third.candidates == []
    [dropped] = third.dropped
    assert dropped.reason == "duplicate"
    assert dropped.matches[0].kind == "candidate" and dropped.matches[0].reason == "same content"
    assert len(list_candidates(machine).candidates) == 1


def test_duplicates_of_live_memories_and_within_the_run_are_dropped(
    brain, machine, session
) -> None:
    add_memory(
        brain,
        "01KB2F0A1S9Y4Q7V3C8D5E6F04",
        "Test checkout timeout is flaky without the fake clock",
        "Use FakeClock.",
    )
    session("s-1").intent("Fix the flaky test").tool("test", "t.py", 0).end().write()
    driver = ScriptedDriver(
        {"s-1": [{"candidates": [
            proposal("test checkout timeout is  flaky without the fake clock"),
            proposal("Payments always go through PaymentGateway", memory_class="decision"),
            proposal("Payments always go through PaymentGateway", "Other words.", memory_class="decision"),
        ]}]}
    )  # fmt: skip
    report = run(brain, machine, driver)
    assert [c.title for c in report.candidates] == ["Payments always go through PaymentGateway"]
    live, within = report.dropped
    assert live.matches[0].kind == "memory" and live.matches[0].ref == "01KB2F0A1S9Y4Q7V3C8D5E6F04"
    assert live.matches[0].path and live.matches[0].path.endswith(".md")
    assert within.matches[0].kind == "candidate"
    assert within.matches[0].ref == report.candidates[0].candidate_id
    # The live memory's body was not sent (the session did not retrieve it); its title was.
    prompt = driver.requests[0].prompt
    assert "Test checkout timeout is flaky without the fake clock" in prompt
    assert "Use FakeClock." not in prompt


def test_pending_candidates_from_agents_count_as_duplicates(brain, machine, session) -> None:
    from teambrain_schema import MemoryDraft

    queue_candidate(
        MemoryDraft.model_validate(
            {
                "class": "convention",
                "title": "Run tests with make test",
                "body": "Never bare pytest.",
            }
        ),
        "agent",
        machine=machine,
    )
    session("s-1").intent("x").tool("test", "t.py", 0).end().write()
    report = run(
        brain,
        machine,
        ScriptedDriver(
            {
                "s-1": [
                    {
                        "candidates": [
                            proposal("run tests with MAKE test", memory_class="convention")
                        ]
                    }
                ]
            }
        ),
    )
    assert report.candidates == [] and report.dropped[0].matches[0].reason == "same title"


def test_secrets_in_a_proposal_reject_it(brain, machine, session) -> None:
    session("s-1").intent("x").tool("test", "t.py", 0).end().write()
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    report = run(
        brain,
        machine,
        ScriptedDriver(
            {"s-1": [{"candidates": [proposal("Deploy with the CI token", f"Use {token}.")]}]}
        ),
    )
    assert report.candidates == []
    assert report.dropped[0].reason == "invalid" and "secret" in report.dropped[0].detail
    assert list_candidates(machine).candidates == []


def test_a_secret_anywhere_in_a_dropped_proposal_is_never_printed_back(
    brain, machine, session
) -> None:
    """Issue 37 point 10: the title was dropped "for containing a secret" and printed in
    clear in the report and in --json; so was one dropped for being too long."""
    session("s-1").intent("x").tool("test", "t.py", 0).end().write()
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    answer = {
        "candidates": [
            proposal(f"Deploy with {token}", "Deploy from CI only."),
            proposal("x" * 70 + token, "A title too long, with the token in it."),
        ],
    }
    report = run(brain, machine, ScriptedDriver({"s-1": [answer]}))
    assert report.candidates == [] and len(report.dropped) == 2
    said = json.dumps(report.to_json()) + repr(report.dropped)
    assert token not in said and "a1B2c3D4e5F6" not in said
    assert said.count("[REDACTED:github-token]") >= 2


def test_invalid_answers_are_retried_within_the_bound_then_reported(
    brain, machine, session
) -> None:
    write_config(brain, max_retries=2)
    session("s-1").intent("x").tool("test", "t.py", 0).end().write()
    answers = [{}, "not json at all", {"candidates": "none"}, {"candidates": []}]
    report = run(brain, machine, ScriptedDriver({"s-1": answers}))
    [result] = report.sessions
    assert result.status == "failed" and result.detail.startswith("invalid: ")
    assert "3 attempt(s)" in result.detail and "candidates" in result.detail
    assert result.attempts == 3
    assert report.usage["calls"] == 3  # 1 + max_retries, never the 4th
    assert report.exit_code == 3
    assert list_candidates(machine).candidates == []
    assert not Watermark.load(machine).sessions  # nothing half-written: it is tried again


def test_a_re_ask_that_succeeds_queues_normally(brain, machine, session) -> None:
    session("s-1").intent("x").tool("test", "t.py", 0).end().write()
    good = {"candidates": [proposal("A fine title")]}
    report = run(brain, machine, ScriptedDriver({"s-1": ["{broken", good]}))
    assert report.exit_code == 0 and len(report.candidates) == 1
    assert report.usage["calls"] == 2
    assert report.sessions[0].attempts == 2


def test_an_answer_that_states_no_candidates_is_re_asked_not_consumed(
    brain, machine, session
) -> None:
    """Issue 29 point 3: `{}` says nothing; it must not mark the session distilled."""
    write_config(brain, max_retries=1)
    session("s-1").intent("x").tool("test", "t.py", 0).end().write()
    report = run(brain, machine, ScriptedDriver({"s-1": [{}]}))
    [result] = report.sessions
    assert result.status == "failed" and "candidates: Field required" in result.detail
    assert report.usage["calls"] == 2 and report.exit_code == 3
    assert not Watermark.load(machine).sessions  # not consumed: the next run asks again


def test_sessions_that_yield_nothing_are_counted(brain, machine, session) -> None:
    for sid in ("s-1", "s-2", "s-3"):
        session(sid).intent(f"task {sid}").tool("edit", "a.py").end().write()
    answers = {
        "s-1": [{"candidates": []}],  # nothing learned, said explicitly
        "s-2": [{"candidates": [proposal("Bad\u202etitle")]}],  # every proposal dropped
        "s-3": [{"candidates": [proposal("A fine title")]}],
    }
    report = run(brain, machine, ScriptedDriver(answers))
    assert report.yielded_nothing == 2
    assert report.to_json()["yielded_nothing"] == 2
    by_sid = {r.sid: r for r in report.sessions}
    assert (by_sid["s-1"].proposals, by_sid["s-1"].queued) == (0, 0)
    assert (by_sid["s-2"].proposals, by_sid["s-2"].queued) == (1, 0)
    assert (by_sid["s-3"].proposals, by_sid["s-3"].queued) == (1, 1)
    assert {r.status for r in report.sessions} == {"distilled"}


def test_one_bad_candidate_no_longer_rejects_the_valid_ones(brain, machine, session) -> None:
    """Issue 29 point 6: a bidi control character in one title (and an unknown evidence label
    in another) drop those two, named with the reason; the valid one is queued."""
    session("s-1").intent("x").tool("test", "t.py", 0).end().write()
    answer = {
        "candidates": [
            proposal("Checkout \u202egnp.exe\u202c totals"),
            proposal("Run the payment tests with the fake clock"),
            proposal("Cites a commit it never saw", commits=["C3"]),
        ]
    }
    report = run(brain, machine, ScriptedDriver({"s-1": [answer]}))
    assert report.exit_code == 0
    assert [c.title for c in report.candidates] == ["Run the payment tests with the fake clock"]
    assert len(list_candidates(machine).candidates) == 1
    assert len(report.dropped) == 2 and {d.reason for d in report.dropped} == {"invalid"}
    bidi, unknown = report.dropped
    assert bidi.title.startswith("Checkout") and "\u202e" not in bidi.title
    assert "title" in bidi.detail
    assert unknown.title == "Cites a commit it never saw" and "C3" in unknown.detail
    assert report.sessions[0].proposals == 3 and report.sessions[0].queued == 1
    assert Watermark.load(machine).sessions  # the session was distilled


def test_more_candidates_than_allowed_keeps_the_first_ones(brain, machine, session) -> None:
    session("s-1").intent("x").tool("test", "t.py", 0).end().write()
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"]
    answer = {
        "candidates": [
            proposal(f"Distinct lesson {n} about {w}", body=f"Mind {w} here.", tags=[w])
            for n, w in enumerate(words)
        ]
    }
    report = run(brain, machine, ScriptedDriver({"s-1": [answer]}))
    assert len(report.candidates) == 5
    assert [d.detail for d in report.dropped] == ["more than 5 candidates in one answer"] * 2


def test_the_cost_cap_stops_cleanly_and_says_so(brain, machine, session) -> None:
    write_config(brain, max_calls=2)
    for index in range(4):
        session(f"s-{index}").intent(f"task {index}").tool("edit", "a.py").end().write()
    report = run(brain, machine, ScriptedDriver({}))
    assert [r.status for r in report.sessions] == ["distilled", "distilled", "deferred", "deferred"]
    assert report.stopped and "distill.max_calls" in report.stopped
    assert report.exit_code == 0 and report.usage["calls"] == 2
    # The deferred sessions are distilled by the next run.
    assert set(Watermark.load(machine).sessions) == {"s-0", "s-1"}


def test_the_token_cap_is_checked_before_sending(brain, machine, session) -> None:
    write_config(brain, max_input_tokens=50)
    session("s-1").intent("x").tool("edit", "a.py").end().write()
    driver = ScriptedDriver({})
    report = run(brain, machine, driver)
    assert report.sessions[0].status == "deferred"
    assert "distill.max_input_tokens" in (report.stopped or "")
    assert report.usage["calls"] == 0 and report.usage["input_tokens"] == 0


def test_committed_sessions_go_first(brain, machine, session) -> None:
    session("a-abandoned", start=NOW - dt.timedelta(days=2)).intent("x").tool("edit", "a.py").end(
        "abandoned"
    ).write()
    session("b-open", start=NOW - dt.timedelta(days=1)).intent("x").tool("edit", "a.py").write()
    session("c-committed").intent("x").tool("edit", "a.py").end().write()
    report = run(brain, machine, ScriptedDriver({}))
    assert [r.sid for r in report.sessions] == ["c-committed", "a-abandoned", "b-open"]


def test_what_is_not_distilled(brain, machine, session) -> None:
    session("other", repo="/somewhere/else").intent("x").tool("edit", "a.py").end().write()
    session("running", start=NOW - dt.timedelta(minutes=30)).intent("x").tool(
        "edit", "a.py"
    ).write()
    session("old", start=NOW - dt.timedelta(days=10)).intent("x").tool("edit", "a.py").end().write()
    session("empty").end("unknown").write()
    report = run(brain, machine, ScriptedDriver({}), since=NOW - dt.timedelta(days=3))
    assert report.ignored == {
        "other_repository": 1, "still_open": 1, "before_since": 1, "already_distilled": 0,
    }  # fmt: skip
    assert [(r.sid, r.status) for r in report.sessions] == [("empty", "skipped")]
    assert report.usage["calls"] == 0


def test_sessions_match_the_repository_by_path_or_remote(brain, machine, session) -> None:
    from distill_testkit import git

    git(brain.repo_root, "remote", "add", "origin", "git@github.com:acme/shop.git")
    session("by-path", repo=str(brain.repo_root)).intent("x").tool("edit", "a.py").end().write()
    session("by-url", repo="https://github.com/acme/shop").intent("x").tool(
        "edit", "a.py"
    ).end().write()
    report = run(brain, machine, ScriptedDriver({}))
    assert sorted(r.sid for r in report.sessions) == ["by-path", "by-url"]
    git(brain.repo_root, "remote", "set-url", "origin", "/srv/git/Shop.git")
    session("local-remote", repo="local/shop").intent("x").tool("edit", "a.py").end().write()
    report = run(brain, machine, ScriptedDriver({}))
    assert [r.sid for r in report.sessions] == ["local-remote"]


def test_dry_run_writes_nothing(brain, machine, session) -> None:
    session("s-1").intent("x").tool("edit", "a.py").end().write()
    before = sorted(p.relative_to(machine.home) for p in machine.home.rglob("*"))
    report = run(
        brain,
        machine,
        ScriptedDriver({"s-1": [{"candidates": [proposal("A fine title")]}]}),
        dry_run=True,
    )
    assert len(report.candidates) == 1 and report.candidates[0].candidate_id is None
    assert sorted(p.relative_to(machine.home) for p in machine.home.rglob("*")) == before
    with pytest.raises(UserError, match="cannot record"):
        distill(brain, machine, options=DistillOptions(dry_run=True, record=True))


def test_a_missing_or_broken_template_is_named(brain, machine) -> None:
    template = brain.prompts / "distill-session.md"
    template.write_text("Hello $sesion\n")
    with pytest.raises(UserError, match=r"distill-session.md:1: unknown placeholder \$sesion"):
        distill(brain, machine)
    template.write_text("No placeholders at all\n")
    with pytest.raises(UserError, match=r"must use \$session"):
        distill(brain, machine)
    template.unlink()
    with pytest.raises(EnvironmentProblem, match="missing; run `tb init`"):
        distill(brain, machine)


def test_an_edited_template_is_used_and_reported(brain, machine, session) -> None:
    (brain.prompts / "distill-session.md").write_text("Our own words.\n$session\nCost: $$0\n")
    session("s-1").intent("x").tool("edit", "a.py").end().write()
    driver = ScriptedDriver({})
    report = run(brain, machine, driver)
    assert driver.requests[0].prompt.startswith("Our own words.\nSession S1")
    assert driver.requests[0].prompt.endswith("Cost: $0\n")
    assert report.prompts[".teambrain/prompts/distill-session.md"]["default"] is False
    assert report.prompts[".teambrain/prompts/distill-system.md"]["default"] is True


def test_report_json_is_stable(brain, machine, session) -> None:
    session("s-1").intent("x").tool("edit", "a.py").end().write()
    report = run(
        brain, machine, ScriptedDriver({"s-1": [{"candidates": [proposal("A fine title")]}]})
    )
    data = report.to_json()
    assert set(data) == {
        "ok", "exit_code", "dry_run", "driver", "model", "prompts", "sessions", "ignored",
        "candidates", "dropped", "usage", "stopped", "recorded", "notes", "yielded_nothing",
    }  # fmt: skip
    assert set(data["sessions"][0]) == {
        "sid", "status", "detail", "proposals", "queued", "attempts", "resends",
    }  # fmt: skip
    json.dumps(data)
    assert data["candidates"][0]["evidence"] == {"sessions": ["s-1"], "commits": []}


def test_a_concurrent_run_is_refused(brain, machine, session) -> None:
    from teambrain_distill._state import run_lock

    session("s-1").intent("x").tool("edit", "a.py").end().write()
    with run_lock(machine), pytest.raises(EnvironmentProblem, match="another `tb distill`"):
        run(brain, machine, ScriptedDriver({}))


def test_a_corrupt_watermark_is_named_not_ignored(brain, machine, session) -> None:
    path = machine.home / "distill" / "watermark.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(EnvironmentProblem, match=r"watermark\.json: unreadable"):
        run(brain, machine, ScriptedDriver({}))


def test_a_resumed_session_is_distilled_again(brain, machine, session) -> None:
    writer = session("s-1").intent("x").tool("edit", "a.py").end()
    writer.write()
    run(brain, machine, ScriptedDriver({}))
    writer.start = NOW - dt.timedelta(minutes=90)
    writer.intent("more work").tool("edit", "b.py").end()
    writer.write()
    report = run(brain, machine, ScriptedDriver({}))
    assert [r.sid for r in report.sessions] == ["s-1"]


def test_the_watermark_forgets_pruned_sessions(brain, machine, session) -> None:
    path: Path = session("s-1").intent("x").tool("edit", "a.py").end().write()
    run(brain, machine, ScriptedDriver({}))
    path.unlink()
    session("s-2").intent("x").tool("edit", "a.py").end().write()
    run(brain, machine, ScriptedDriver({}))
    assert set(Watermark.load(machine).sessions) == {"s-2"}


def test_paraphrases_are_caught_by_retrieval_similarity(brain, machine, session) -> None:
    """The real local embedder: a reworded live memory and a reworded pending candidate."""
    add_memory(
        brain,
        "01KB2F0A1S9Y4Q7V3C8D5E6F02",
        "Run the test suite with make test, never bare pytest",
        "Run tests with make test. It sets SHOP_ENV=test and uses the test database; bare pytest "
        "hits the dev database.",
    )
    session("s-1").intent("Speed up the payment tests").tool("test", "t.py", 0).end().write()
    session("s-2").intent("Fix refunds").tool("test", "t.py", 0).end().write()
    live_paraphrase = proposal(
        "Always run the test suite with make test, not bare pytest",
        "Run the tests with make test: it sets SHOP_ENV=test and uses the test database, while "
        "bare pytest hits the dev database.",
        memory_class="convention",
    )
    refund = proposal(
        "Refund amounts are integer cents",
        "Pass refund amounts to PaymentGateway.refund as integer cents, never as floats.",
        memory_class="decision",
    )
    refund_again = proposal(
        "Refund amounts are always integer cents",
        "Pass refund amounts to PaymentGateway.refund as integer cents and never as floats.",
        memory_class="decision",
    )
    driver = ScriptedDriver(
        {
            "s-1": [{"candidates": [live_paraphrase, refund]}],
            "s-2": [{"candidates": [refund_again]}],
        }
    )
    report = run(brain, machine, driver, similarity=True)
    assert [c.title for c in report.candidates] == ["Refund amounts are integer cents"]
    by_title = {d.title: d for d in report.dropped}
    [live] = by_title[live_paraphrase["title"]].matches
    assert (live.kind, live.ref, live.reason) == ("memory", "01KB2F0A1S9Y4Q7V3C8D5E6F02", "similar")
    assert live.path is not None and live.path.startswith(".teambrain/memories/")
    [pending] = by_title[refund_again["title"]].matches
    assert (pending.kind, pending.ref, pending.reason) == (
        "candidate", report.candidates[0].candidate_id, "similar",
    )  # fmt: skip
    assert (pending.cosine or 0) >= 0.88 or (pending.fts_strength or 0) >= 0.8
    # The memory related to the session's intent had its body in the prompt (it was not
    # retrieved by the agent, retrieval found it).
    assert "bare pytest hits the dev database" in driver.requests[0].prompt
    assert report.notes == []


def test_a_dry_run_leaves_the_index_alone_too(brain, machine, session) -> None:
    session("s-1").intent("x").tool("edit", "a.py").end().write()
    run(brain, machine, ScriptedDriver({}), similarity=True)
    assert machine.index_db.is_file()
    session("s-2").intent("y").tool("edit", "b.py").end().write()

    def snapshot() -> dict[str, bytes]:
        return {str(p): p.read_bytes() for p in machine.home.rglob("*") if p.is_file()}

    before = snapshot()
    report = run(
        brain,
        machine,
        ScriptedDriver({"s-2": [{"candidates": [proposal("A fine title")]}]}),
        similarity=True,
        dry_run=True,
    )
    assert [c.title for c in report.candidates] == ["A fine title"] and report.notes == []
    assert snapshot() == before


def test_the_front_matter_check_keeps_every_field_of_the_draft() -> None:
    from teambrain_distill._distiller import _check_memory_file, draft_front
    from teambrain_schema import MemoryDraft

    draft = MemoryDraft.model_validate(
        {
            "class": "convention", "title": "Retry the gateway once", "body": "Why: flaky.",
            "tags": ["payments"], "evidence": {"sessions": ["s-1"]},
            "supersedes": ["01KB2F0A1S9Y4Q7V3C8D5E6F01"], "ttl_days": 90,
        }
    )  # fmt: skip
    front = draft_front(draft, NOW)
    assert front.supersedes == draft.supersedes and front.ttl_days == 90
    assert front.tags == ["payments"] and front.created == NOW.date()
    _check_memory_file(front, draft.body)


def test_a_copy_of_the_prompts_example_is_dropped(brain, machine, session) -> None:
    """SmolLM2-135M, asked through the real server, answered with the system prompt's example
    candidate verbatim; it describes nothing the session showed."""
    from teambrain_distill._prompts import EXAMPLE_TITLE

    session("s-1").intent("x").tool("test", "t.py", 0).end().write()
    copied = f" {EXAMPLE_TITLE.upper()}."  # through the real ollama stand-in: with a full stop
    answer = {"candidates": [proposal(EXAMPLE_TITLE), proposal(copied), proposal("A fine title")]}
    report = run(brain, machine, ScriptedDriver({"s-1": [answer]}))
    assert [c.title for c in report.candidates] == ["A fine title"]
    assert [d.title for d in report.dropped] == [EXAMPLE_TITLE, copied.strip()]
    assert all("example" in d.detail for d in report.dropped)
