"""A team's repository, its brain and the situations its people start agent sessions in.

``build_world(kind, seed)`` writes out one kind of project (context_projects.py) the way a team
would have it after a few months: source files that define the symbols memories cite, a git
history of ~50 commits by seven people whose last ones are in the kind's hot areas (other
people's recent work), and a brain of 500+ memories written the way teams write them — citing
a file by its path, its bare name, a path tail, a dotted module or symbol, a component or model
name, a folder with or without its leading part, a test's node id, a command; or citing nothing
and saying it in prose — plus generic team conventions and a few required memories.

Each memory is written *about* something (a file, a folder, a topic, a test); a situation is
what someone does (modify, stage, add, rename or delete files, commit on a branch, name a branch
after a topic) and expects the memories about what they touch. Labels come from what each
memory was written about, never from its text, and nothing here looks at how retrieval ranks.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from context_projects import Area, Kind

# --------------------------------------------------------------------------- the model


@dataclass
class SrcFile:
    path: str
    thing: str
    symbols: tuple[str, ...]
    area: Area
    test: str | None = None

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name

    @property
    def stem(self) -> str:
        return PurePosixPath(self.path).stem.split(".")[0]


@dataclass
class Memory:
    id: str
    cls: str
    title: str
    body: str
    about: str  # "file:<path>", "folder:<path>", "topic:<slug>", "test:<path>", "generic"
    tags: list[str] = field(default_factory=list)
    priority: str = "advisory"
    created: str = "2026-09-01"
    names: tuple[str, ...] = ()  # every path the memory is about (cross-file memories: two)


@dataclass
class Commit:
    author: str
    date: str
    subject: str
    touched: list[str]


@dataclass
class Situation:
    """What someone does before starting an agent session, and what they should be told."""

    name: str
    kind: str  # what it exercises: unstaged, staged, untracked, renamed, …
    branch: str | None  # None: stay on the default branch
    commits: list[tuple[str, list[str]]] = field(default_factory=list)  # (subject, files)
    modify: list[str] = field(default_factory=list)  # edited, not staged
    stage: list[str] = field(default_factory=list)  # edited and staged
    add: list[str] = field(default_factory=list)  # new files, untracked
    add_staged: list[str] = field(default_factory=list)
    rename: list[tuple[str, str]] = field(default_factory=list)  # git mv (staged)
    rename_unstaged: list[tuple[str, str]] = field(default_factory=list)  # plain mv
    delete: list[str] = field(default_factory=list)  # git rm (staged)
    delete_unstaged: list[str] = field(default_factory=list)  # plain rm
    expected: list[str] = field(default_factory=list)  # memory ids

    def touched(self) -> list[str]:
        """The paths this situation touches, as someone would pass them to `tb relevant
        --paths` (a rename's old and new path, a deleted file's path)."""
        paths: list[str] = []
        for _subject, files in self.commits:
            paths += files
        paths += self.modify + self.stage + self.add + self.add_staged
        for old, new in self.rename + self.rename_unstaged:
            paths += [old, new]
        paths += self.delete + self.delete_unstaged
        return list(dict.fromkeys(paths))


@dataclass
class World:
    kind: Kind
    seed: int
    files: dict[str, str]  # path → content (the final tree of the default branch)
    history: list[Commit]  # oldest first; the first commit adds everything but the brain
    memories: list[Memory]
    brain_commits: list[int]  # after which history index each third of the brain is committed
    situations: list[Situation]
    required: list[str]


# --------------------------------------------------------------------------- ids and words

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def ulid_for(seed: int, index: int) -> str:
    """A deterministic, valid ULID (time part fixed, random part from seed and index)."""
    value = (seed * 1_000_003 + index) * 2_654_435_761 % (32**16)
    random_part = ""
    for _ in range(16):
        random_part = _CROCKFORD[value % 32] + random_part
        value //= 32
    return "01KC0000B0" + random_part


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def title_case_thing(thing: str) -> str:
    return cap(thing.removeprefix("the "))


# --------------------------------------------------------------------------- citing


def _module_of(f: SrcFile) -> str | None:
    if f.area.module is None:
        return None
    return f"{f.area.module}.{f.stem}"


def cite_file(f: SrcFile, style: str, rng: random.Random, language: str) -> str:
    """How a teammate would name ``f`` in a memory, in one of the styles teams use."""
    sym = rng.choice(f.symbols)
    parts = PurePosixPath(f.path).parts
    if style == "path":
        return f"`{f.path}`"
    if style == "name":
        return f"`{f.name}`"
    if style == "tail":
        return f"`{'/'.join(parts[-2:])}`"
    if style == "line":
        return f"`{f.path}:{rng.randint(12, 240)}`"
    if style == "module":
        module = _module_of(f)
        if module is not None:
            return f"`{module}`"
        return f"`{f.path}`"
    if style == "symbol":
        module = _module_of(f)
        if language == "python" and module is not None:
            return f"`{module}.{sym}`"
        if language == "kotlin":
            return f"`{sym}()`" if "." in sym else f"`{sym}`"
        if language == "go":
            package = parts[-2]
            return f"`{package}.{sym.split('.')[0]}`"
        if language == "ts":
            if f.path.endswith(".tsx") and sym[:1].isupper():
                return f"`<{sym}>`"
            return f"`{sym}()`"
        if language == "sql":
            if f.path.endswith(".sql"):
                return f"`ref('{f.stem}')`" if "models" in f.path else f"`{f.stem}`"
            if f.path.endswith(".py") and f.area.folder == "dags":
                return f"the `{f.stem}` DAG"
            return f"`{f.path}`"
    return f"`{f.path}`"


STYLES = {
    "python": [
        ("path", 30),
        ("name", 20),
        ("module", 12),
        ("symbol", 20),
        ("tail", 10),
        ("line", 8),
    ],
    "ts": [("path", 35), ("name", 30), ("symbol", 20), ("tail", 15)],
    "go": [("path", 35), ("name", 25), ("symbol", 20), ("tail", 20)],
    "kotlin": [("path", 20), ("name", 30), ("module", 20), ("symbol", 20), ("tail", 10)],
    "sql": [("path", 30), ("name", 25), ("symbol", 30), ("tail", 15)],
}


def pick_style(rng: random.Random, language: str) -> str:
    styles, weights = zip(*STYLES[language], strict=True)
    return rng.choices(styles, weights)[0]


def cite_folder(area: Area, rng: random.Random) -> str:
    """A folder as teams cite it: whole, its last part or two, or as a package."""
    parts = area.folder.split("/")
    roll = rng.random()
    if area.module is not None and roll < 0.2:
        return f"`{area.module}`"
    if roll < 0.6 or len(parts) == 1:
        return f"`{area.folder}/`"
    return f"`{'/'.join(parts[-1:])}/`" if roll < 0.85 else f"`{'/'.join(parts[-2:])}/`"


# --------------------------------------------------------------------------- templates

# Memories about one file. Slots: thing, Thing, cite, sym, num, ticket, flag, env, person,
# team, service, area, other.
FILE_TEMPLATES: list[tuple[str, str, str]] = [
    (
        "learning",
        "{Thing} time out on large accounts",
        "`{sym}` in {cite} loads every row for an account before paging. Accounts with more than "
        "{num} rows hit the 30 s request timeout. Page with a cursor instead of an offset; {ticket} "
        "did this for the list endpoint only.",
    ),
    (
        "learning",
        "{Thing}: compare times in UTC",
        "{cite} compared local time with the database's UTC timestamps, and {thing} came out an "
        "hour off after the clocks changed. Compare aware UTC datetimes and convert only for "
        "display.",
    ),
    (
        "convention",
        "Never log whole {thing} objects",
        "{Thing} carry customer e-mails and addresses. {cite} logs only ids and status codes; a "
        "review rejects a log line with the full object (it happened in {ticket}).",
    ),
    (
        "learning",
        "{Thing} are cached per process",
        "The lookup in {cite} is memoised per worker, so a change takes up to {num} minutes to reach "
        "every worker. Clear the cache in tests and bump the version key when the shape changes.",
    ),
    (
        "learning",
        "N+1 queries when listing {thing}",
        "Listing {thing} issued one query per row until {cite} prefetched the related rows. Keep "
        "the prefetch when you add a field: the query-count test fails otherwise.",
    ),
    (
        "learning",
        "{Thing}: {service} retries its callbacks",
        "{service} sends a callback again after 10 s without an answer, so {cite} sees "
        "duplicates. Deduplicate on the event id before doing any work, never on a payload hash.",
    ),
    (
        "convention",
        "New {thing} code stays behind the {flag} flag",
        "The rewrite of {thing} sits behind the `{flag}` flag, read in {cite}. Keep both paths "
        "working until the flag is removed after the rollout ({ticket}).",
    ),
    (
        "learning",
        "Rounding errors in {thing}",
        "{cite} used floating point for amounts and lost a cent on three-way splits ({ticket}). "
        "Work in integer minor units and give the remainder to the first line.",
    ),
    (
        "learning",
        "Lock order in {thing}",
        "`{sym}` takes the account lock before the {thing} lock. The other order deadlocked under "
        "load in {ticket}; take them in the same order anywhere you need both.",
    ),
    (
        "convention",
        "{Thing} run in batches of {num}",
        "{cite} processes {thing} in batches of {num}. Larger batches blew the worker's memory "
        "limit, smaller ones miss the nightly window; change it only with a measurement.",
    ),
    (
        "learning",
        "{Thing} read {env} once at start-up",
        "{cite} reads `{env}` when it is first imported, so setting it later in a test has no "
        "effect. Use the settings fixture, or restart the worker in staging.",
    ),
    (
        "convention",
        "{Thing} are rate-limited per tenant",
        "{cite} allows {num} calls a minute per tenant. Bulk tools go through the batch endpoint "
        "instead of looping over `{sym}`.",
    ),
    (
        "convention",
        "Sort {thing} by time, then id",
        "Lists of {thing} sort by creation time and then id, or pages repeat rows. {cite} does "
        "this; keep the tie-breaker when you change the query.",
    ),
    (
        "decision",
        "`{sym}` is deprecated",
        "`{sym}` in {cite} is deprecated; new code calls the v2 path. It stays until the last "
        "client that uses it is gone ({ticket}). Ask {person} before removing it.",
    ),
    (
        "learning",
        "Old rows have no {field} for {thing}",
        "Rows written before 2022 have no `{field}`; {cite} must treat it as optional. A backfill "
        "was rejected as too slow, so every reader handles the gap.",
    ),
    (
        "convention",
        "Timeouts on calls from {thing} to {service}",
        "Calls from {cite} to {service} use a 5 s timeout and one retry with jitter. Without it a "
        "slow {service} froze every worker during {ticket}.",
    ),
    (
        "convention",
        "Validate {thing} input at the boundary",
        "Input to {cite} is validated by its schema before `{sym}` sees it; do not validate again "
        "inside, and do not skip the schema for internal callers.",
    ),
    (
        "convention",
        "Ask {person} before changing {thing}",
        "{cite} is owned by {team}. Public functions such as `{sym}` have callers in other "
        "services; ask {person} before changing a signature and announce it in the changelog.",
    ),
    (
        "convention",
        "Keep {thing} free of I/O",
        "{cite} must not read the clock, the network or the database: pass them in. That keeps "
        "`{sym}` testable without fixtures and safe to call from jobs.",
    ),
    (
        "convention",
        "Errors from {thing} are typed",
        "{cite} raises typed errors that the API layer maps to status codes; it never returns an "
        "empty value for a failure. Add a new error type rather than reusing a generic one.",
    ),
    (
        "learning",
        "Memory spike in {thing}",
        "{cite} built the whole result in memory before writing it out; with {num} rows the worker "
        "was killed. Stream rows out as they are produced.",
    ),
    (
        "learning",
        "{Thing} and daylight saving",
        "A schedule in {cite} ran twice on the night the clocks went back ({ticket}). Schedules "
        "are stored in UTC and `{sym}` converts at the edge.",
    ),
    (
        "decision",
        "Why {thing} use {service}",
        "We chose {service} for {thing} over building our own ({ticket}): fewer moving parts and an "
        "audit trail. {cite} wraps it; nothing else talks to {service} directly.",
    ),
    (
        "learning",
        "{Thing}: the retry storm of {ticket}",
        "When {service} was down, {cite} retried every call immediately and made the outage worse. "
        "Retries now back off exponentially and give up after {num} attempts.",
    ),
    (
        "convention",
        "{Thing} changes need a data migration note",
        "A change to what {cite} stores needs a note in the pull request on how existing rows are "
        "migrated; {person} reviews those.",
    ),
    (
        "learning",
        "{Thing} and concurrent edits",
        "Two requests updating {thing} at once overwrote each other. {cite} now checks a version "
        "column in `{sym}` and answers 409 when it moved.",
    ),
]

# Memories about a folder (an area). Slots: Area, area, cite, files (a few file names), team.
FOLDER_TEMPLATES: list[tuple[str, str, str]] = [
    (
        "map",
        "Where {area} lives",
        "{cite} holds {area}: {things}. Start from {entry}; the public functions are the ones "
        "without a leading underscore.",
    ),
    (
        "convention",
        "{Area} code never imports the web layer",
        "Modules under {cite} are plain code: they take arguments and return values. The web "
        "layer calls them, never the other way round; {team} rejects imports that break this.",
    ),
    (
        "convention",
        "New files in {area}",
        "A new module under {cite} gets a test file and an entry in the area's README before it is "
        "merged; keep one job per module.",
    ),
    (
        "decision",
        "{Area} is owned by {team}",
        "{team} owns everything under {cite}. Changes there need one of their reviews; ping them "
        "in the channel before larger refactors.",
    ),
]

AREA_PROSE: list[tuple[str, str, str]] = [
    (
        "learning",
        "{Area} incidents start with the dashboards",
        "Most {area} incidents so far showed up on the dashboards before customers noticed. Check "
        "the error rate and the queue depth first, then the logs.",
    ),
    (
        "convention",
        "{Area}: describe behaviour changes in the pull request",
        "A change to how {area} behaves for customers is described in plain words in the pull "
        "request, for support and for the release notes.",
    ),
    (
        "learning",
        "{Area} load peaks on Monday mornings",
        "Traffic for {area} peaks on Monday mornings and at month end. Avoid risky {area} deploys "
        "then, and scale up the week before month end.",
    ),
    (
        "decision",
        "{Area} keeps an audit trail",
        "Every change {area} makes on behalf of a person records who, when and why. Auditors asked "
        "for it twice; do not add a code path that skips it.",
    ),
    (
        "learning",
        "Reproducing {area} bugs locally",
        "Most {area} bugs reproduce with the seed data and the fake clock. Start there before "
        "asking for production access.",
    ),
    (
        "convention",
        "{Area} metrics are named after the area",
        "Metrics emitted by {area} start with the area's name, so the dashboards can find them. "
        "Do not reuse another area's metric names.",
    ),
    (
        "learning",
        "{Area}: feature requests go through the product board",
        "Requests for {area} from sales go through the product board, not straight to engineers; "
        "{team} triages them weekly.",
    ),
]

TOPIC_EXTRA = [
    "Ask {person} if in doubt.",
    "Agreed with {team} in {ticket}.",
    "This came up again in {ticket}.",
    "",
]

GENERIC: list[tuple[str, str, str]] = [
    (
        "convention",
        "Commit messages are imperative and say why",
        "Write commit subjects in the imperative ('Add', not 'Added'), under 72 characters, and "
        "use the body to say why. Reference the ticket at the end.",
    ),
    (
        "convention",
        "Every pull request needs one approving review",
        "Nothing merges without an approving review from someone who did not write it; the author "
        "merges once CI is green.",
    ),
    (
        "convention",
        "No secrets in the repository",
        "Credentials live in the secrets manager. A leaked key is rotated first and removed from "
        "history second; tell security at once.",
    ),
    (
        "decision",
        "We deploy on weekdays only",
        "Deploys happen Monday to Thursday before 16:00. Friday deploys need the on-call person's "
        "agreement.",
    ),
    (
        "convention",
        "Run `make check` before pushing",
        "`make check` runs the linters, the type checker and the fast tests, the same as CI. "
        "Pushing red wastes everyone's CI minutes.",
    ),
    (
        "convention",
        "Use the `Makefile` targets, not ad-hoc commands",
        "The `Makefile` knows the right flags and environment. Add a target rather than "
        "documenting a long command in a README.",
    ),
    (
        "learning",
        "CI caches are keyed on the lock file",
        "The CI cache in `.github/workflows/ci.yml` is keyed on the lock file; a changed lock file "
        "means a cold, slow build. Do not bump dependencies in unrelated pull requests.",
    ),
    (
        "convention",
        "Keep `README.md` setup steps working",
        "New joiners follow `README.md` on day one. If you change how the project starts, update "
        "the steps in the same pull request.",
    ),
    (
        "convention",
        "Architecture notes live in `docs/architecture.md`",
        "Big structural decisions are summarised in `docs/architecture.md` with a date and a link "
        "to the discussion; keep it short.",
    ),
    (
        "convention",
        "Feature flags are removed within a quarter",
        "Every flag gets an owner and a removal ticket when it is created. Flags older than a "
        "quarter are listed in the weekly report.",
    ),
    (
        "learning",
        "Time zones: store UTC, show local",
        "Store timestamps in UTC, convert to the user's zone for display only. Most of our date "
        "bugs came from mixing the two.",
    ),
    (
        "convention",
        "Logs are structured key-value pairs",
        "Log an event name and key-value pairs, never a formatted sentence: the dashboards group "
        "by event name.",
    ),
    (
        "convention",
        "Public API changes are additive",
        "Never remove or rename a field of a public response; add a new one and deprecate the old "
        "one for at least two releases.",
    ),
    (
        "learning",
        "Flaky tests are quarantined, not retried",
        "A flaky test goes to the quarantine list with an owner and a ticket the day it is found. "
        "Retries hide real races.",
    ),
    (
        "convention",
        "Dependencies need a reason in the pull request",
        "Adding a dependency needs a sentence on why, its licence and who maintains it. Prefer the "
        "standard library.",
    ),
    (
        "decision",
        "On-call hands over on Monday mornings",
        "The on-call rotation changes on Monday at 10:00 with a short handover of open incidents.",
    ),
    (
        "convention",
        "Incidents get a written review within a week",
        "Any customer-visible incident gets a blameless review within a week, with actions that "
        "have owners and dates.",
    ),
    (
        "convention",
        "Translations go through the translation platform",
        "User-facing strings are added in English only; translators pick them up from the "
        "platform. Never edit translated files by hand.",
    ),
    (
        "learning",
        "Local setup needs the seed data",
        "A fresh database is empty and half the pages crash. Load the seed data before opening "
        "the app locally.",
    ),
    (
        "convention",
        "Benchmarks before and after performance work",
        "A pull request that claims a speed-up shows the numbers before and after, measured the "
        "same way on the same machine.",
    ),
    (
        "decision",
        "Accessibility is part of done",
        "New screens are checked with a keyboard and a screen reader before they ship; contrast "
        "follows the design tokens.",
    ),
    (
        "convention",
        "Keep pull requests small",
        "Aim for pull requests under 400 changed lines. Split refactors from behaviour changes so "
        "reviewers can read them.",
    ),
    (
        "learning",
        "Staging data is refreshed every Sunday",
        "Staging's database is replaced with an anonymised copy of production every Sunday night; "
        "do not keep test fixtures there.",
    ),
    (
        "convention",
        "Errors shown to users have a code",
        "Every error a user can see carries a short code that support can search for; the message "
        "itself may change.",
    ),
    (
        "decision",
        "Docs live next to the code",
        "Documentation for a module lives in the repository next to it, not in the wiki; the wiki "
        "links here.",
    ),
    (
        "convention",
        "Write tests for the bug before the fix",
        "A bug fix comes with a test that fails without it. Say so in the pull request.",
    ),
    (
        "learning",
        "The staging deploy takes about twelve minutes",
        "Staging deploys take about twelve minutes, most of it image builds. Do not push again "
        "while one runs; it queues behind.",
    ),
    (
        "convention",
        "Naming: no abbreviations in public names",
        "Public functions and fields are spelled out ('customer', not 'cust'); abbreviations are "
        "fine for loop variables only.",
    ),
    (
        "decision",
        "Release notes are written by the author",
        "Whoever merges a user-visible change adds a line to the release notes in the same pull "
        "request.",
    ),
    (
        "convention",
        "Pair on anything touching money",
        "Changes that move money or change amounts are written or reviewed in pairs; no solo "
        "merges.",
    ),
    (
        "learning",
        "Production read access is logged",
        "Every query on production data is logged with who ran it. Use the replicas and the "
        "analytics warehouse for questions.",
    ),
    (
        "convention",
        "Configuration comes from the environment",
        "Settings are read from environment variables with defaults for development; no "
        "configuration files per environment in the repository.",
    ),
    (
        "learning",
        "Clock skew between services",
        "Service clocks drift by up to a second. Never order events from different services by "
        "their timestamps alone.",
    ),
    (
        "convention",
        "Use UUIDs for public ids",
        "Ids that leave the system are UUIDs or ULIDs, never database sequence numbers.",
    ),
    (
        "learning",
        "The vendor sandbox differs from production",
        "Vendor sandboxes accept things production refuses (long names, odd currencies). Test the "
        "edge cases against production limits from the docs.",
    ),
    (
        "convention",
        "Monitoring: every new endpoint gets a dashboard panel",
        "A new endpoint or job gets latency and error-rate panels before it ships.",
    ),
]

REQUIRED: list[tuple[str, str, str]] = [
    (
        "convention",
        "Treat customer data as confidential",
        "Never paste customer data into tickets, chats or prompts. Use the anonymised staging data "
        "to reproduce issues.",
    ),
    (
        "decision",
        "The default branch is always releasable",
        "Anything merged can be deployed within the hour. Unfinished work hides behind a flag.",
    ),
    (
        "convention",
        "Run the test suite through `make test`",
        "`make test` sets the environment the tests expect; running the test runner by hand "
        "skips the fixtures and leaves data behind.",
    ),
    (
        "convention",
        "Ask before destructive commands",
        "Never run destructive commands (dropping tables, force pushes, deleting buckets) without "
        "a second person watching.",
    ),
]

TEST_TEMPLATES: list[tuple[str, str, str]] = [
    (
        "learning",
        "{test_name} is flaky around midnight",
        "{cite} fails about once in fifty runs near midnight UTC because the fixture's date rolls "
        "over. Freeze the clock in the test instead of adding a retry.",
    ),
    (
        "learning",
        "{test_name} depends on ordering",
        "{cite} compared lists in database order, which changes after a vacuum. Sort both sides "
        "before comparing; do not add a retry.",
    ),
    (
        "convention",
        "{test_name} uses the recorded {service} responses",
        "{cite} replays recorded {service} responses from the fixtures folder; re-record them with "
        "the recording flag when {service} changes its API, never by hand.",
    ),
]

TEST_FOLDER_TEMPLATES: list[tuple[str, str, str]] = [
    (
        "convention",
        "Tests for {area} use the shared fakes",
        "Tests under {cite} use the fakes from the area's fixtures rather than patching: the fakes "
        "are checked against the real clients weekly.",
    ),
]

MIGRATION_TEMPLATES: list[tuple[str, str, str]] = [
    (
        "convention",
        "Never edit a migration that reached the default branch",
        "Migrations under {cite} are append-only once merged: other machines already ran them. Fix "
        "a mistake with a new migration.",
    ),
    (
        "learning",
        "Migrations run inside the deploy",
        "Everything in {cite} runs during the deploy, inside its time budget. Keep schema changes "
        "quick; move data backfills to a script that runs afterwards. Indexes on big tables are "
        "built concurrently in a migration of their own.",
    ),
]

OLD_MIGRATION_TEMPLATES: list[tuple[str, str, str]] = [
    (
        "learning",
        "{name} cannot be reversed",
        "{cite} drops a column after copying it; its down step cannot restore the data. Restore "
        "from a snapshot if it ever has to be undone.",
    ),
    (
        "learning",
        "{name} took twenty minutes on production",
        "{cite} rewrote a large table and held a lock for twenty minutes. Similar changes now add "
        "the column without a default and backfill in batches.",
    ),
]

INFRA_TEMPLATES: list[tuple[str, str, str]] = [
    (
        "convention",
        "Change {thing} through a reviewed plan",
        "{cite} defines {thing}. Changes go through a pull request with the plan output attached; "
        "nobody applies from a laptop.",
    ),
    (
        "learning",
        "{Thing}: a resize restarts it",
        "Changing the size in {cite} restarts {thing}; schedule it for the maintenance window and "
        "warn the on-call person.",
    ),
    (
        "learning",
        "{Thing}: requests and limits",
        "{cite} sets CPU and memory requests from last quarter's peak. Raise them with a graph "
        "from the dashboard attached, not by guessing.",
    ),
]

CROSS_TEMPLATES: list[tuple[str, str, str]] = [
    (
        "learning",
        "{a_thing} and {b_thing} must change together",
        "{a_cite} and {b_cite} share an assumption about {a_thing}: change one and the other "
        "breaks quietly. Change them in the same pull request.",
    ),
    (
        "map",
        "How {a_thing} reach {b_thing}",
        "{a_cite} hands off to {b_cite} through a queue, not a direct call, so a slow consumer "
        "never blocks the request.",
    ),
]

VERBS = ["Fix", "Handle", "Refactor", "Speed up", "Clean up", "Tidy", "Log", "Test",
         "Document", "Rework"]  # fmt: skip
FIELDS = ["region", "currency", "locale", "external_id", "archived_at", "source", "channel"]
FLAG_WORDS = ["v2", "new", "fast", "async", "rewrite", "next"]


# --------------------------------------------------------------------------- sources


def _language_of(path: str) -> str:
    suffix = PurePosixPath(path).suffix
    return {
        ".py": "python", ".ts": "ts", ".tsx": "ts", ".go": "go", ".kt": "kotlin",
        ".sql": "sql", ".tf": "hcl", ".yaml": "yaml", ".yml": "yaml", ".json": "json",
        ".kts": "kotlin", ".toml": "toml", ".md": "md",
    }.get(suffix, "text")  # fmt: skip


def comment(path: str, text: str) -> str:
    """``text`` as a comment in ``path``'s language (what a situation appends to edit it)."""
    language = _language_of(path)
    if language in ("python", "yaml", "hcl", "toml", "text"):
        return f"# {text}\n"
    if language == "sql":
        return f"-- {text}\n"
    if language in ("md",):
        return f"\n{text}\n"
    if language == "json":
        return ""  # JSON has no comments: callers rewrite the file instead
    return f"// {text}\n"


def source_text(f: SrcFile, language: str) -> str:
    """Plausible contents of ``f`` that define its symbols (so citations of them hold)."""
    lines: list[str] = []
    classes: dict[str, list[str]] = {}
    functions: list[str] = []
    for symbol in f.symbols:
        if "." in symbol:
            cls, method = symbol.split(".", 1)
            classes.setdefault(cls, []).append(method)
        else:
            functions.append(symbol)
    if f.path.endswith(".py"):
        lines.append(f'"""{title_case_thing(f.thing)}."""\n')
        for cls, methods in classes.items():
            lines.append(f"class {cls}:")
            lines += [f"    def {m}(self, *args):\n        return None\n" for m in methods]
        lines += [f"def {fn}(*args):\n    return None\n" for fn in functions]
    elif f.path.endswith((".ts", ".tsx")):
        lines.append(f"// {title_case_thing(f.thing)}.")
        for cls, methods in classes.items():
            lines.append(f"export class {cls} {{")
            lines += [f"  {m}(): void {{}}" for m in methods]
            lines.append("}")
        lines += [f"export function {fn}(): null {{\n  return null;\n}}" for fn in functions]
    elif f.path.endswith(".go"):
        lines.append(f"// Package {PurePosixPath(f.path).parent.name}: {f.thing}.")
        lines.append(f"package {PurePosixPath(f.path).parent.name.replace('-', '')}\n")
        for cls, methods in classes.items():
            lines.append(f"type {cls} struct{{}}\n")
            lines += [f"func (x *{cls}) {m}() {{}}\n" for m in methods]
        lines += [f"func {fn}() {{}}\n" for fn in functions]
    elif f.path.endswith(".kt"):
        package = f.area.module or "com.acme"
        lines.append(f"package {package}\n")
        for cls, methods in classes.items():
            lines.append(f"class {cls} {{")
            lines += [f"    fun {m}() {{}}" for m in methods]
            lines.append("}")
        lines += [f"class {fn}\n" for fn in functions]
    elif f.path.endswith(".sql"):
        lines.append(f"-- {title_case_thing(f.thing)}.")
        lines.append("select * from {{ source('raw', '" + f.stem + "') }}")
    elif f.path.endswith(".yml"):
        lines.append("version: 2")
        lines.append(f"# {f.thing}")
    else:
        lines.append(f"# {f.thing}")
    return "\n".join(lines) + "\n"


def test_path_for(f: SrcFile, kind: Kind) -> str | None:
    p = PurePosixPath(f.path)
    if kind.language == "python" or (kind.language == "sql" and p.suffix == ".py"):
        return f"tests/{f.area.name}/test_{p.stem}.py"
    if kind.language == "ts":
        return str(p.with_name(f"{p.stem}.test{p.suffix}"))
    if kind.language == "go":
        return str(p.with_name(f"{p.stem}_test.go"))
    if kind.language == "kotlin":
        rel = f.path.replace("app/src/main/", "app/src/test/")
        return str(PurePosixPath(rel).with_name(f"{p.stem}Test.kt"))
    if kind.language == "sql" and p.suffix == ".sql":
        return f"dbt/tests/assert_{p.stem}_valid.sql"
    return None


def test_folder_for(area: Area, kind: Kind) -> str | None:
    if kind.language == "python":
        return f"tests/{area.name}"
    if kind.language == "kotlin":
        return area.folder.replace("app/src/main/", "app/src/test/")
    return None


# --------------------------------------------------------------------------- the builder


class _Writer:
    def __init__(self, kind: Kind, seed: int) -> None:
        self.kind = kind
        self.seed = seed
        self.rng = random.Random(f"{kind.name}:{seed}")
        self.memories: list[Memory] = []
        self.titles: set[str] = set()
        self.tickets = 0

    def ticket(self) -> str:
        self.tickets += 1
        prefix = re.sub(r"[^A-Z]", "", self.kind.neutral_branches[2].split("-")[0]) or "T"
        return f"{prefix}-{self.rng.randint(100, 2999)}"

    def slots(self, extra: dict[str, str]) -> dict[str, str]:
        rng = self.rng
        base = {
            "num": str(rng.choice([50, 200, 500, 1000, 5000, 10000, 20])),
            "ticket": self.ticket(),
            "flag": f"{rng.choice(FLAG_WORDS)}_{extra.get('stem', 'path')}".lower(),
            "env": f"{self.kind.name.upper()}_{extra.get('stem', 'MODE').upper()}_TIMEOUT",
            "person": rng.choice(self.kind.people).split()[0],
            "team": rng.choice(self.kind.teams),
            "service": rng.choice(self.kind.services),
            "field": rng.choice(FIELDS),
        }
        base.update(extra)
        return base

    def add(self, cls: str, title: str, body: str, about: str, *, tags: list[str] | None = None,
            priority: str = "advisory", names: tuple[str, ...] = ()) -> Memory | None:  # fmt: skip
        title = title[:80].rstrip()
        if title.lower() in self.titles:
            return None
        self.titles.add(title.lower())
        memory = Memory(
            id=ulid_for(self.seed * 7 + len(self.kind.name), len(self.memories)),
            cls=cls, title=title, body=body, about=about, tags=tags or [],
            priority=priority, names=names,
        )  # fmt: skip
        self.memories.append(memory)
        return memory


def build_world(kind: Kind, seed: int = 1) -> World:
    """The repository, history, brain and labelled situations of one ``kind`` (see the module
    docstring); the same ``seed`` gives the same world."""
    w = _Writer(kind, seed)
    rng = w.rng
    files: dict[str, str] = {}
    sources: list[SrcFile] = []
    for area in kind.areas:
        for spec in area.files:
            name, thing, symbols = (part.strip() for part in spec.split("|"))
            f = SrcFile(f"{area.folder}/{name}", thing, tuple(symbols.split()), area)
            f.test = test_path_for(f, kind) if rng.random() < 0.7 else None
            sources.append(f)
            files[f.path] = source_text(f, kind.language)
            if f.test:
                files[f.test] = comment(f.test, f"Tests for {f.thing}.") or "{}\n"
    for name in kind.old_migrations:
        files[f"{kind.migrations}/{name}"] = comment(name, "migration") or "{}\n"
    infra = []
    for spec in kind.infra:
        path, thing = (part.strip() for part in spec.split("|"))
        infra.append((path, thing))
        files[path] = comment(path, thing) or "{}\n"
    for path in kind.misc:
        files[path] = comment(path, path) or "{}\n"
    by_path = {f.path: f for f in sources}

    # ---- memories about files: 1–4 each, in the team's mix of citation styles
    file_memories: dict[str, list[Memory]] = {}
    styles_used: dict[str, set[str]] = {}
    for f in sources:
        count = rng.choices([1, 2, 3, 4], [22, 36, 28, 14])[0]
        templates = rng.sample(FILE_TEMPLATES, count)
        for template in templates:
            style = pick_style(rng, kind.language)
            cite = cite_file(f, style, rng, kind.language)
            slots = w.slots({
                "thing": f.thing, "Thing": title_case_thing(f.thing), "cite": cite,
                "sym": rng.choice(f.symbols), "area": f.area.name, "stem": f.stem,
            })  # fmt: skip
            cls, title, body = template
            memory = w.add(
                cls,
                title.format(**slots),
                body.format(**slots),
                f"file:{f.path}",
                tags=[f.area.name] if rng.random() < 0.4 else [],
                names=(f.path,),
            )
            if memory is not None:
                file_memories.setdefault(f.path, []).append(memory)
                # a template without {cite} names the file only through a symbol
                styles_used.setdefault(f.path, set()).add(style if "{cite}" in body else "symbol")

    # ---- memories about folders (areas)
    folder_memories: dict[str, list[Memory]] = {}
    for area in kind.areas:
        area_files = [f for f in sources if f.area is area]
        for cls, title, body in rng.sample(FOLDER_TEMPLATES, rng.choice([2, 3])):
            listed = rng.sample(area_files, min(3, len(area_files)))
            things = ", ".join(f.thing for f in listed)
            slots = w.slots({
                "area": area.name, "Area": cap(area.name), "cite": cite_folder(area, rng),
                "things": things, "entry": f"the {listed[0].thing}",
            })  # fmt: skip
            memory = w.add(
                cls,
                title.format(**slots),
                body.format(**slots),
                f"folder:{area.folder}",
                tags=[area.name],
                names=(area.folder,),
            )
            if memory is not None:
                folder_memories.setdefault(area.folder, []).append(memory)

    # ---- topics: prose, sometimes naming their file
    topic_memories: dict[str, Memory] = {}
    for area in kind.areas:
        for topic in area.topics:
            body = topic.body
            extra = rng.choice(TOPIC_EXTRA).format(**w.slots({}))
            if topic.file and rng.random() < 0.35:
                f = by_path[f"{area.folder}/{topic.file}"]
                body += f" The rule lives in {cite_file(f, pick_style(rng, kind.language), rng, kind.language)}."
            body = f"{body} {extra}".strip()
            memory = w.add(
                rng.choice(["learning", "decision", "convention"]),
                topic.title,
                body,
                f"topic:{topic.slug}",
                tags=[area.name],
            )
            if memory is not None:
                topic_memories[topic.slug] = memory

    # ---- tests
    test_memories: dict[str, list[Memory]] = {}
    tested = [f for f in sources if f.test]
    for f in rng.sample(tested, len(tested) // 2):
        assert f.test is not None
        cls, title, body = rng.choice(TEST_TEMPLATES)
        test_name = PurePosixPath(f.test).name
        roll = rng.random()
        if roll < 0.4:
            cite = f"`{f.test}`"
        elif roll < 0.7 and f.test.endswith(".py"):
            cite = f"`{f.test}::test_{f.stem}_{rng.choice(['partial', 'empty', 'retry', 'large'])}`"
        else:
            cite = f"`{test_name}`"
        slots = w.slots({"cite": cite, "test_name": test_name})
        memory = w.add(
            cls, title.format(**slots), body.format(**slots), f"test:{f.test}", names=(f.test,)
        )
        if memory is not None:
            test_memories.setdefault(f.test, []).append(memory)
    test_folder_memories: dict[str, list[Memory]] = {}
    for area in kind.areas:
        folder = test_folder_for(area, kind)
        if folder is None:
            continue
        cls, title, body = TEST_FOLDER_TEMPLATES[0]
        slots = w.slots({"area": area.name, "cite": f"`{folder}/`"})
        memory = w.add(
            cls, title.format(**slots), body.format(**slots), f"folder:{folder}", names=(folder,)
        )
        if memory is not None:
            test_folder_memories.setdefault(folder, []).append(memory)

    # ---- migrations, infrastructure
    migration_memories = []
    for cls, title, body in MIGRATION_TEMPLATES:
        memory = w.add(
            cls,
            title,
            body.format(cite=f"`{kind.migrations}/`"),
            f"folder:{kind.migrations}",
            tags=["database"],
            names=(kind.migrations,),
        )
        if memory is not None:
            migration_memories.append(memory)
    for name in rng.sample(list(kind.old_migrations[1:]), 2):
        cls, title, body = OLD_MIGRATION_TEMPLATES[len(w.memories) % 2]
        cite = f"`{kind.migrations}/{name}`" if rng.random() < 0.6 else f"`{name}`"
        w.add(
            cls,
            title.format(name=name),
            body.format(cite=cite),
            f"file:{kind.migrations}/{name}",
            names=(f"{kind.migrations}/{name}",),
        )
    infra_memories: dict[str, list[Memory]] = {}
    for path, thing in infra:
        for cls, title, body in rng.sample(INFRA_TEMPLATES, rng.choice([1, 2])):
            cite = f"`{path}`" if rng.random() < 0.6 else f"`{PurePosixPath(path).name}`"
            slots = {"thing": thing, "Thing": title_case_thing(thing), "cite": cite}
            memory = w.add(
                cls,
                title.format(**slots),
                body.format(**slots),
                f"file:{path}",
                tags=["infra"],
                names=(path,),
            )
            if memory is not None:
                infra_memories.setdefault(path, []).append(memory)

    # ---- memories naming two files of one area
    cross: list[Memory] = []
    for area in rng.sample(list(kind.areas), min(len(kind.areas), 8)):
        a, b = rng.sample([f for f in sources if f.area is area], 2)
        for cls, title, body in rng.sample(CROSS_TEMPLATES, rng.choice([1, 2])):
            a_style, b_style = (
                rng.choice(["path", "name", "tail"]),
                rng.choice(["path", "name", "tail"]),
            )
            slots = {
                "a_thing": title_case_thing(a.thing), "b_thing": b.thing.removeprefix("the "),
                "a_cite": cite_file(a, a_style, rng, kind.language),
                "b_cite": cite_file(b, b_style, rng, kind.language),
            }  # fmt: skip
            memory = w.add(
                cls,
                title.format(**slots),
                body.format(**slots),
                f"files:{a.path}+{b.path}",
                tags=[area.name],
                names=(a.path, b.path),
            )
            if memory is not None:
                cross.append(memory)
                # a memory about two files is about each of them
                for f, style in ((a, a_style), (b, b_style)):
                    file_memories.setdefault(f.path, []).append(memory)
                    styles_used.setdefault(f.path, set()).add(style)

    # ---- the team's generic memories, and the required ones
    for cls, title, body in GENERIC:
        w.add(cls, title, body, "generic")
    required_ids = []
    for cls, title, body in REQUIRED:
        memory = w.add(cls, title, body, "generic", priority="required")
        if memory is not None:
            required_ids.append(memory.id)

    # ---- prose about areas that cites nothing
    for area in kind.areas:
        for cls, title, body in rng.sample(AREA_PROSE, 3):
            slots = w.slots({"area": area.name, "Area": cap(area.name)})
            w.add(
                cls,
                title.format(**slots),
                body.format(**slots),
                f"area:{area.name}",
                tags=[area.name] if rng.random() < 0.5 else [],
            )

    # ---- more file memories until the brain is big enough: teams write most about the few
    # files everyone touches, so the rest go to a quarter of the files
    busy = rng.sample(sources, max(1, len(sources) * 2 // 5))
    while len(w.memories) < 520:
        busy = [f for f in busy if len(file_memories.get(f.path, [])) < 12]
        if not busy:
            break
        f = rng.choice(busy)
        template = rng.choice(FILE_TEMPLATES)
        style = pick_style(rng, kind.language)
        slots = w.slots({
            "thing": f.thing, "Thing": title_case_thing(f.thing),
            "cite": cite_file(f, style, rng, kind.language), "sym": rng.choice(f.symbols),
            "area": f.area.name, "stem": f.stem,
        })  # fmt: skip
        memory = w.add(
            template[0],
            template[1].format(**slots),
            template[2].format(**slots),
            f"file:{f.path}",
            names=(f.path,),
        )
        if memory is not None:
            file_memories.setdefault(f.path, []).append(memory)
            styles_used.setdefault(f.path, set()).add(
                style if "{cite}" in template[2] else "symbol"
            )

    # ---- still short (a small repository): more prose about its areas
    extra = 0
    while len(w.memories) < 520 and extra < 40 * len(kind.areas):
        extra += 1
        area = rng.choice(kind.areas)
        cls, title, body = rng.choice(AREA_PROSE)
        slots = w.slots({"area": area.name, "Area": cap(area.name)})
        w.add(
            cls,
            f"{title.format(**slots)} ({slots['ticket']})",
            body.format(**slots),
            f"area:{area.name}",
        )

    # ---- history: scaffold, then work spread over areas, the last commits in hot areas
    history: list[Commit] = []
    people = list(kind.people)
    day = 0

    def commit(author: str, subject: str, touched: list[str]) -> None:
        nonlocal day
        day += 1
        history.append(Commit(author, f"2026-06-{1 + day // 3:02d}T{9 + day % 8:02d}:15:00+00:00",
                              subject, touched))  # fmt: skip

    commit(people[0], "Scaffold the project", sorted(files))
    cold = [f for f in sources if f.area.name not in kind.hot]
    hot = [f for f in sources if f.area.name in kind.hot]
    for _ in range(34):
        f = rng.choice(cold)
        touched = [f.path] + ([f.test] if f.test and rng.random() < 0.5 else [])
        commit(rng.choice(people), f"{f.area.name}: {rng.choice(VERBS).lower()} {f.thing}", touched)
    for path, thing in rng.sample(infra, min(2, len(infra))):
        commit(rng.choice(people), f"infra: adjust {thing}", [path])
    last = []
    for _ in range(9):
        f = rng.choice(hot)
        last.append(f)
        touched = [f.path] + ([f.test] if f.test and rng.random() < 0.5 else [])
        commit(rng.choice(people[1:]), f"{f.area.name}: {rng.choice(VERBS).lower()} {f.thing}",
               touched)  # fmt: skip
    infra_path, infra_thing = infra[0]
    commit(people[-1], f"infra: tune {infra_thing}", [infra_path])
    brain_commits = [3, 20, 33]

    # ---- situations
    situations = _situations(
        kind, rng, sources, file_memories, folder_memories, topic_memories, test_memories,
        test_folder_memories, migration_memories, infra_memories, cross, infra, history, styles_used,
    )  # fmt: skip
    return World(kind, seed, files, history, w.memories, brain_commits, situations, required_ids)


def _situations(  # noqa: PLR0917 - one world's parts, named at the one call
    kind: Kind, rng: random.Random, sources: list[SrcFile], file_memories: dict[str, list[Memory]],
    folder_memories: dict[str, list[Memory]], topic_memories: dict[str, Memory],
    test_memories: dict[str, list[Memory]], test_folder_memories: dict[str, list[Memory]],
    migration_memories: list[Memory], infra_memories: dict[str, list[Memory]],
    cross: list[Memory], infra: list[tuple[str, str]], history: list[Commit],
    styles_used: dict[str, set[str]],
) -> list[Situation]:  # fmt: skip
    """The situations a team lives, each with the memories written about what it touches."""
    out: list[Situation] = []
    used: set[str] = set()
    hot_paths = {p for c in history[-10:] for p in c.touched}
    neutral = list(kind.neutral_branches)

    def ids(memories: list[Memory]) -> list[str]:
        return [m.id for m in memories]

    def pick(predicate: object = None, *, most: int = 2) -> SrcFile:
        for wanted, limit in ((predicate, most), (None, most), (None, 3)):
            candidates = [
                f for f in sources
                if f.path not in used and 1 <= len(file_memories.get(f.path, [])) <= limit
                and f.path not in hot_paths
                and (wanted is None or wanted(f))  # type: ignore[operator]
            ]  # fmt: skip
            if candidates:
                break
        f = rng.choice(candidates)
        used.add(f.path)
        return f

    def renamed(path: str) -> str:
        p = PurePosixPath(path)
        return str(p.with_name(f"{p.stem}_v2{p.suffix}" if "_" in p.stem or p.suffix == ".py"
                               else f"{p.stem}V2{p.suffix}"))  # fmt: skip

    topics = [(area, t) for area in kind.areas for t in area.topics if t.slug in topic_memories]
    rng.shuffle(topics)

    # 1. a topical branch with its file modified (the Zanzibar refunds case)
    with_file = [(a, t) for a, t in topics if t.file and a.name not in kind.hot]
    small = [(a, t) for a, t in with_file
             if len(file_memories.get(f"{a.folder}/{t.file}", [])) <= 2]  # fmt: skip
    if small:
        area, topic = small[0]
        topics.remove((area, topic))
        f_path = f"{area.folder}/{topic.file}"
        used.add(f_path)
        mems = file_memories.get(f_path, [])
        out.append(
            Situation(
                "topic-branch-and-its-file",
                "unstaged, topical branch",
                f"fix/{topic.slug}",
                modify=[f_path],
                expected=[topic_memories[topic.slug].id, *ids(mems)],
            )
        )

    # 2. a neutral branch, one staged file
    f = pick()
    out.append(
        Situation(
            "staged-file",
            "staged, neutral branch",
            neutral[1],
            stage=[f.path],
            expected=ids(file_memories[f.path]),
        )
    )

    # 3. a neutral branch, one unstaged file, plus noise (the lock file, a config file)
    f = pick()
    out.append(
        Situation(
            "file-and-lockfile",
            "unstaged + lock file, neutral branch",
            neutral[0],
            modify=[f.path, kind.lockfile],
            expected=ids(file_memories[f.path]),
        )
    )

    # 4. a new file in an area (untracked)
    area = rng.choice(
        [a for a in kind.areas if a.name not in kind.hot and a.folder in folder_memories]
    )
    word = rng.choice(["limits", "batching", "quotas", "policy"])
    suffix = PurePosixPath(area.files[0].split("|")[0].strip()).suffix
    stem = {"ts": word, "go": word, "kotlin": cap(word)}.get(kind.language, f"{word}")
    new = f"{area.folder}/{stem}{suffix}"
    out.append(
        Situation(
            "new-file-in-area",
            "untracked",
            f"feature/{area.name}-{word}",
            add=[new],
            expected=ids(folder_memories[area.folder][:3]),
        )
    )

    # 5. a staged rename: memories cite the old path
    f = pick(
        lambda f: (
            "path" in styles_used.get(f.path, set()) or "name" in styles_used.get(f.path, set())
        )
    )
    out.append(
        Situation(
            "renamed-file",
            "renamed (staged)",
            neutral[2],
            rename=[(f.path, renamed(f.path))],
            expected=ids(file_memories[f.path]),
        )
    )

    # 6. a deleted file (staged)
    f = pick()
    out.append(
        Situation(
            "deleted-file",
            "deleted (staged)",
            f"chore/remove-{f.stem.lower()}",
            delete=[f.path],
            expected=ids(file_memories[f.path]),
        )
    )

    # 7. work committed on the branch, clean tree: two files, two commits
    a = pick(most=1)
    b = (
        pick(lambda x: x.area is a.area, most=1)
        if sum(
            1
            for x in sources
            if x.area is a.area
            and x.path not in used
            and len(file_memories.get(x.path, [])) == 1
            and x.path not in hot_paths
        )
        else pick(most=1)
    )
    out.append(
        Situation(
            "committed-on-branch",
            "committed on the branch",
            f"feature/{a.area.name}-{b.stem.lower()}",
            commits=[
                (f"{a.area.name}: handle {a.thing}", [a.path]),
                (f"{b.area.name}: tidy {b.thing}", [b.path]),
            ],
            expected=ids(file_memories[a.path] + file_memories[b.path]),
        )
    )

    # 8. several files: a memory naming two of the three wins
    candidates = [m for m in cross if all(n not in used and n not in hot_paths for n in m.names)]
    if candidates:
        m = rng.choice(candidates)
        a_path, b_path = m.names
        used.update(m.names)
        third = pick(lambda x: x.area is by_area(sources, a_path))
        out.append(
            Situation(
                "several-files",
                "three files, one memory names two",
                neutral[3],
                modify=[a_path, b_path, third.path],
                expected=[m.id],
            )
        )

    # 9. tests only
    tests = [t for t, ms in test_memories.items() if len(ms) <= 2 and t not in hot_paths]
    if tests:
        t = rng.choice(tests)
        used.add(t)
        folder = str(PurePosixPath(t).parent)
        expected = ids(test_memories[t]) + ids(test_folder_memories.get(folder, [])[:1])
        out.append(Situation("tests-only", "tests only", neutral[4], modify=[t], expected=expected))

    # 10. a new migration (untracked), topical branch
    name = rng.choice(kind.new_migration)
    words = re.sub(r"^[0-9V_]+_*", "", PurePosixPath(name).stem).replace(".up", "") or "schema-bump"
    out.append(
        Situation(
            "new-migration",
            "a migration",
            f"feature/{words.replace('_', '-')}"[:60],
            add=[f"{kind.migrations}/{name}"],
            expected=ids(migration_memories),
        )
    )

    # 11. infrastructure
    path = rng.choice(
        [p for p, _ in infra if 1 <= len(infra_memories.get(p, [])) <= 2 and p not in hot_paths]
        or [infra[1][0]]
    )
    out.append(
        Situation(
            "infra-change",
            "infra",
            f"ops/{PurePosixPath(path).stem.lower()}-resize",
            modify=[path],
            expected=ids(infra_memories.get(path, [])),
        )
    )

    # 12. a branch named after a topic, nothing changed yet
    area, topic = topics.pop()
    out.append(
        Situation(
            "branch-name-only",
            "nothing changed, topical branch",
            f"feature/{topic.slug}",
            expected=[topic_memories[topic.slug].id],
        )
    )

    # 13. a file cited by module, symbol, component or model name only
    f = next(
        (
            x
            for x in rng.sample(sources, len(sources))
            if x.path not in used
            and x.path not in hot_paths
            and 1 <= len(file_memories.get(x.path, [])) <= 2
            and styles_used.get(x.path, set()) <= {"module", "symbol"}
        ),
        None,
    )
    if f is None:
        f = pick()
    used.add(f.path)
    out.append(
        Situation(
            "symbol-cited-file",
            "module or symbol citation",
            neutral[0],
            modify=[f.path],
            expected=ids(file_memories[f.path]),
        )
    )

    # 14. a file cited by its bare name only
    f = (
        next(
            (
                x
                for x in rng.sample(sources, len(sources))
                if x.path not in used
                and x.path not in hot_paths
                and 1 <= len(file_memories.get(x.path, [])) <= 2
                and styles_used.get(x.path, set()) == {"name"}
            ),
            None,
        )
        or pick()
    )
    used.add(f.path)
    out.append(
        Situation(
            "bare-name-cited-file",
            "file name citation",
            neutral[1],
            stage=[f.path],
            expected=ids(file_memories[f.path]),
        )
    )

    # 15. a rename done without git (a deleted file and an untracked one)
    f = pick()
    out.append(
        Situation(
            "moved-without-git",
            "renamed (unstaged)",
            f"refactor/{f.area.name}-layout",
            rename_unstaged=[(f.path, renamed(f.path))],
            expected=ids(file_memories[f.path]),
        )
    )

    # 16. a topical branch with one commit on it in the topic's area, clean tree
    if topics:
        area, topic = next(((a, t) for a, t in topics if t.file), topics[0])
        topics.remove((area, topic))
        f = pick(lambda x: x.area is area, most=2)
        out.append(
            Situation(
                "topic-branch-with-a-commit",
                "committed, topical branch",
                f"{kind.people[2].split()[0].lower()}/{topic.slug}",
                commits=[(f"{area.name}: start on {topic.slug.replace('-', ' ')}", [f.path])],
                expected=[topic_memories[topic.slug].id, *ids(file_memories[f.path])],
            )
        )

    # 17. back on the default branch after a pull: the newest commit's file
    newest = history[-1].touched[0]
    mems = file_memories.get(newest) or infra_memories.get(newest, [])
    if 1 <= len(mems) <= 3:
        out.append(
            Situation(
                "clean-default-branch", "clean, on the default branch", None, expected=ids(mems)
            )
        )
    # Every memory written about what a situation touches is expected, and all of them must
    # fit in the top 3: a situation that would expect more is left out, never cut short.
    for situation in out:
        situation.expected = list(dict.fromkeys(situation.expected))
    return [s for s in out if 1 <= len(s.expected) <= 3]


def by_area(sources: list[SrcFile], path: str) -> Area:
    return next(f.area for f in sources if f.path == path)
