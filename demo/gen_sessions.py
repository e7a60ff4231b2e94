"""Write a realistic week of synthetic agent sessions into $TEAMBRAIN_HOME's spool.

For the demo (and the tests that check `tb digest` against it): the same seed always gives the
same sessions, placed relative to now so that the default window (`--since 7d`) covers them.
Weekdays are busy and weekends quiet, so some cells pass the 5-session threshold and some are
suppressed. Sessions that were shown memory explore the code less — the signal the digest's
context-efficiency figures look for. Events go through teambrain_capture's own spool writer.

    python demo/gen_sessions.py [--sessions 48] [--seed 2] [--repo acme-shop]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random

from teambrain_capture import JoinKeys, append_event, make_event, record_feedback
from teambrain_kit.paths import machine_layout

# The demo brain's memories (demo/brain/memories): required ones come with every context call.
REQUIRED = ["01KB2F0A1S9Y4Q7V3C8D5E6F01", "01KB2F0A1S9Y4Q7V3C8D5E6F02"]
ADVISORY = [
    "01KB2F0A1S9Y4Q7V3C8D5E6F03",
    "01KB2F0A1S9Y4Q7V3C8D5E6F04",
    "01KB2F0A1S9Y4Q7V3C8D5E6F05",
    "01KB2F0A1S9Y4Q7V3C8D5E6F06",
    "01KB2F0A1S9Y4Q7V3C8D5E6F07",
]
TOOLS = [
    ("claude-code", "claude-sonnet-4-5", 6),
    ("cursor", "gpt-5", 3),
    ("codex", "gpt-5-codex", 1),
]
INTENTS = [
    "fix the flaky checkout timeout test",
    "add a refund endpoint to payments",
    "speed up the product search query",
    "rename the cart service module",
    "add structured logs to the order worker",
]
PATHS = [
    "src/shop/checkout.py",
    "src/shop/payments.py",
    "src/shop/cart.py",
    "tests/test_checkout.py",
]


def pick_tool(rng: random.Random) -> tuple[str, str]:
    tool, model, _ = rng.choices(TOOLS, weights=[w for _, _, w in TOOLS])[0]
    return tool, model


def write_session(rng: random.Random, index: int, start: dt.datetime, repo: str) -> None:
    tool, model = pick_tool(rng)
    keys = JoinKeys(sid=f"demo-{index:03d}", tool=tool, model=model, repo=repo, branch="main")
    machine = machine_layout()
    moment = start

    def emit(ev: str, data: dict[str, object], gap_s: int) -> None:
        nonlocal moment
        moment += dt.timedelta(seconds=gap_s)
        append_event(machine, make_event(ev, data, keys, now=moment))

    emit("session_start", {}, 0)
    emit("intent", {"summary": rng.choice(INTENTS)}, 3)
    with_memory = rng.random() < 0.72
    shown: list[str] = []
    if with_memory:
        shown = REQUIRED + rng.sample(ADVISORY, rng.randint(1, 3))
        commit = "a2ca89a"
        tokens = 180 * len(shown) + rng.randint(-60, 60)
        emit(
            "memory_retrieved",
            {"ids": shown, "commit": commit, "via": "context", "token_estimate": tokens},
            2,
        )
        if rng.random() < 0.3:
            emit(
                "memory_retrieved",
                {"ids": [rng.choice(ADVISORY)], "commit": commit, "via": "search"},
                20,
            )
    # Memory saves exploring: fewer reads and greps when the agent was told where things are.
    explore = rng.randint(2, 7) if with_memory else rng.randint(6, 14)
    for _ in range(explore):
        emit("tool_use", {"kind": "explore", "path": rng.choice(PATHS)}, rng.randint(4, 30))
    for _ in range(rng.randint(1, 5)):
        emit("tool_use", {"kind": "edit", "path": rng.choice(PATHS)}, rng.randint(20, 90))
    if rng.random() < 0.2:
        emit("plan_revision", {"items": rng.randint(2, 6)}, 10)
    for _ in range(rng.randint(0, 3)):
        failed = rng.random() < (0.15 if with_memory else 0.35)
        emit(
            "tool_use",
            {"kind": "test", "path": "tests/test_checkout.py", "exit_code": 1 if failed else 0},
            40,
        )
    if rng.random() < 0.08:
        draft = {
            "class": "learning",
            "title": "Checkout tests need the fake clock",
            "body": "Use the fake clock fixture in checkout tests; the real one makes them flaky.",
        }
        emit("candidate_proposed", {"draft": draft}, 15)
    if rng.random() < 0.9:
        outcome = rng.choices(["committed", "abandoned", "unknown"], weights=[7, 2, 1])[0]
        turns = rng.randint(4, 30)
        emit(
            "session_end",
            {
                "outcome": outcome,
                "duration_s": float((moment - start).seconds + turns * 40),
                "turns": turns,
                "commit_shas": [],
            },
            5,
        )
    if with_memory and rng.random() < 0.35:
        record_feedback(rng.choice(shown), rng.random() < 0.8, sid=keys.sid, machine=machine)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=48)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--repo", default="acme-shop")
    args = parser.parse_args()
    rng = random.Random(args.seed)  # noqa: S311 - reproducible demo data, not secrets
    today = dt.datetime.now(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    # Six full days back plus today's morning; weekdays carry most of the work.
    days = [today - dt.timedelta(days=offset) for offset in range(6, -1, -1)]
    weights = [1 if day.weekday() >= 5 else 8 for day in days]
    now = dt.datetime.now(dt.UTC)
    for index in range(args.sessions):
        # The same number of draws whatever the date, so every session's content (tools,
        # outcomes, candidates…) is the same on any day; only the days they land on move.
        day = rng.choices(days, weights=weights)[0]
        hour, minute, earlier = rng.randint(7, 18), rng.randint(0, 59), rng.randint(60, 360)
        start = day + dt.timedelta(hours=hour, minutes=minute)
        if start > now - dt.timedelta(hours=1):  # not in the future: earlier today instead
            start = max(now - dt.timedelta(minutes=earlier), today)
        write_session(rng, index, start, args.repo)
    # A hook killed mid-append leaves a torn line: the digest skips it and says so.
    with open(machine_layout().session_file("demo-000"), "ab") as handle:
        handle.write(b'{"v":1,"sid":"demo-000","t":"20')
    print(
        f"wrote {args.sessions} synthetic sessions (seed {args.seed}) to {machine_layout().sessions}"
    )


if __name__ == "__main__":
    main()
