"""A realistic company brain for ``bench_graph``: 60 graph nodes and 300 memories of an online
shop's engineering org (services, owners, runbooks, decisions, incidents, practices), and a
labelled set of situations whose right memory is reachable only through an edge.

Everything is written out by hand below (templates per service, not random words), and the
labels are checked, not assumed: an "edge-only" situation shares no word of substance with
its target memory (so keywords cannot find it), and the target is linked to a node the
situation touches within two edges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from teambrain_schema.ontology import STARTER_FILES

# service → (team, code folder, what it does, its own words, its dependencies)
SERVICES: dict[str, tuple[str, str, str, list[str], list[str]]] = {
    "payments": ("payments", "src/payments", "charges cards and issues refunds",
                 ["charge", "refund", "card", "capture", "psp", "chargeback"], ["ledger", "auth"]),
    "ledger": ("payments", "src/ledger", "double-entry bookkeeping of every money movement",
               ["journal", "posting", "balance", "entry", "reconciliation", "account"], []),
    "auth": ("platform", "src/auth", "sign-in, sessions and API keys",
             ["login", "session", "token", "password", "oauth", "mfa"], []),
    "checkout": ("storefront", "src/checkout", "the cart and the order funnel",
                 ["cart", "basket", "order", "coupon", "funnel", "total"], ["payments", "inventory", "catalog"]),
    "catalog": ("storefront", "src/catalog", "products, prices and images",
                ["product", "sku", "price", "image", "variant", "category"], []),
    "search": ("storefront", "src/search", "product search and ranking",
               ["query", "index", "ranking", "synonym", "facet", "autocomplete"], ["catalog"]),
    "notifications": ("platform", "src/notifications", "email, sms and push messages",
                      ["email", "sms", "push", "template", "bounce", "unsubscribe"], ["gateway"]),
    "shipping": ("fulfilment", "src/shipping", "labels, carriers and tracking",
                 ["label", "carrier", "parcel", "tracking", "dispatch", "courier"], ["inventory"]),
    "inventory": ("fulfilment", "src/inventory", "stock levels and reservations",
                  ["stock", "reservation", "warehouse", "replenish", "quantity", "bin"], []),
    "billing": ("payments", "src/billing", "subscriptions and invoices",
                ["invoice", "subscription", "plan", "proration", "dunning", "renewal"], ["ledger"]),
    "gateway": ("platform", "src/gateway", "the public API edge",
                ["ratelimit", "proxy", "header", "cors", "routing", "edge"], ["auth"]),
    "analytics": ("data", "src/analytics", "events, dashboards and the warehouse",
                  ["event", "dashboard", "warehouse", "pipeline", "metric", "funnelstats"], ["ledger"]),
}  # fmt: skip
TEAMS = {
    "payments": "Payments team", "platform": "Platform team", "storefront": "Storefront team",
    "fulfilment": "Fulfilment team", "data": "Data team",
}  # fmt: skip
REPOSITORIES = {"shop": ["src/**"], "infra": ["infra/**"], "mobile": ["mobile/**"]}
# runbook → (service it documents, steps that name no service)
RUNBOOKS: dict[str, tuple[str, str]] = {
    "payments-rollback": (
        "payments",
        "Pause the capture worker, revert the release, replay held webhooks in order.",
    ),
    "ledger-replay": (
        "ledger",
        "Replay from the nightly snapshot key; never replay across a month boundary.",
    ),
    "auth-key-rotation": (
        "auth",
        "Rotate the signing keys with two keys live for a day; revoke the old one after.",
    ),
    "checkout-failover": (
        "checkout",
        "Flip the read replica to primary and drain the queue before reopening.",
    ),
    "catalog-reimport": (
        "catalog",
        "Run the importer with the dry-run flag first and diff the counts.",
    ),
    "search-reindex": ("search", "Build the new alias beside the old one, then swap atomically."),
    "notifications-backlog": (
        "notifications",
        "Scale consumers to eight, then throttle the marketing topic.",
    ),
    "shipping-label-outage": (
        "shipping",
        "Switch to the fallback provider and print manifests by hand.",
    ),
    "inventory-resync": (
        "inventory",
        "Freeze writes, recount from the warehouse export, then thaw.",
    ),
    "billing-rerun": (
        "billing",
        "Rerun the cycle for the failed cohort only; never rerun a whole month.",
    ),
    "gateway-rate-limit": ("gateway", "Raise the bucket for the partner key, never globally."),
    "analytics-backfill": ("analytics", "Backfill one day at a time with the low-priority lane."),
    "db-failover": ("ledger", "Promote the standby, then repoint connection pools one by one."),
    "cache-flush": ("catalog", "Flush by key prefix; a full flush melts the origin."),
    "deploy-freeze": ("checkout", "During a freeze only hotfixes with two approvals ship."),
}
# decision → (service it applies to, the decision, in words that name no service)
DECISIONS: dict[str, tuple[str, str]] = {
    "use-idempotency-keys": (
        "payments",
        "Every mutating call carries an idempotency key kept for 24 hours.",
    ),
    "event-sourced-ledger": (
        "ledger",
        "Entries are immutable; corrections are new entries, never updates.",
    ),
    "jwt-sessions": ("auth", "Sessions are short-lived JWTs refreshed by an httpOnly cookie."),
    "server-side-cart": (
        "checkout",
        "The basket state lives server-side; the client keeps only an id.",
    ),
    "cdn-images": ("catalog", "Images are served from the CDN with content-hashed names."),
    "opensearch": ("search", "We run OpenSearch, not Elasticsearch, for licence reasons."),
    "outbox-pattern": ("notifications", "Messages leave through the outbox table, never inline."),
    "carrier-abstraction": (
        "shipping",
        "Carriers sit behind one adapter interface; no carrier SDK elsewhere.",
    ),
    "soft-reservations": (
        "inventory",
        "Reservations expire after fifteen minutes unless confirmed.",
    ),
    "monthly-proration": ("billing", "Plan changes prorate by day within the month."),
}
# incident → (service it hit, what was learned, naming no service)
INCIDENTS: dict[str, tuple[str, str, str]] = {
    "2026-03-double-charge": (
        "payments",
        "sev1",
        "Retries without the key charged twice; the worker now refuses keyless retries.",
    ),
    "2026-04-ledger-drift": (
        "ledger",
        "sev2",
        "Timezone truncation moved postings across midnight; store UTC instants only.",
    ),
    "2026-05-login-storm": (
        "auth",
        "sev2",
        "A mobile bug retried sign-in in a loop; lockouts now back off exponentially.",
    ),
    "2026-06-cart-loss": (
        "checkout",
        "sev1",
        "A cache eviction dropped baskets; state moved to the database.",
    ),
    "2026-07-reindex-outage": (
        "search",
        "sev3",
        "An alias swap ran before the build finished; swaps now wait on a health check.",
    ),
    "2026-08-oversell": (
        "inventory",
        "sev1",
        "Two warehouses confirmed one unit; confirmation now takes a row lock.",
    ),
    "2026-09-invoice-dupes": (
        "billing",
        "sev2",
        "A rerun of the cycle sent invoices twice; reruns now skip sent ones.",
    ),
    "2026-10-api-429s": (
        "gateway",
        "sev3",
        "One partner exhausted the shared bucket; buckets are per key now.",
    ),
}
PRACTICES = {
    "feature-flags": "Ship dark behind a flag; remove the flag within two sprints.",
    "contract-tests": "Every consumer pins the provider's contract in a test.",
    "small-prs": "Keep pull requests under four hundred lines of change.",
    "structured-logs": "Log key-value pairs through the shared logger; never print.",
    "migrations-expand-contract": "Expand the schema first, deploy, then contract.",
    "on-call-handover": "Hand over on-call with the open-incident list, in writing.",
    "agents-read-runbooks": "Agents read the service's runbook before touching its code.",
}
GENERIC = [
    ("Run the unit tests with `make test` before pushing", "testing"),
    ("Use the shared fixtures in tests/conftest.py", "testing"),
    ("Snapshot tests live next to the component", "testing"),
    ("Never sleep in tests; advance the fake clock", "testing"),
    ("CI runs lint, types and tests on every push", "ci"),
    ("Docker images are built once and promoted", "ci"),
    ("Format with the project formatter; CI rejects diffs", "style"),
    ("Prefer composition over inheritance in new modules", "style"),
    ("Name booleans as questions: is_ready, has_items", "style"),
    ("Document every public function with one paragraph", "style"),
]


@dataclass
class Memory:
    id: str
    title: str
    body: str
    memory_class: str = "learning"
    tags: list[str] = field(default_factory=list)


@dataclass
class Situation:
    """A labelled situation: what the session changed and said, and the memory it needs."""

    name: str
    changed_paths: list[str]
    branch: str
    subjects: list[str]
    target: str
    kind: str  # "edge-only" or "direct"
    query: str | None = None  # for memory_search situations


def _ulid(n: int) -> str:
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    tail = ""
    for _ in range(10):
        n, digit = divmod(n, 32)
        tail = alphabet[digit] + tail
    return "01KC0000000000" + tail[-12:].rjust(12, "0")


@dataclass
class Company:
    records: dict[str, str]  # relpath under graph/ → YAML
    memories: list[Memory]
    situations: list[Situation]


def build_company() -> Company:
    """The 60 nodes, 300 memories and the labelled situations."""
    records: dict[str, str] = {}
    memories: list[Memory] = []
    counter = [1]

    def memory(title: str, body: str, tags: list[str], memory_class: str = "learning") -> Memory:
        found = Memory(_ulid(counter[0]), title, body, memory_class, tags)
        counter[0] += 1
        memories.append(found)
        return found

    # Memories about each service, naming it and its code (what direct search finds).
    own: dict[str, list[Memory]] = {}
    for service, (_team, folder, what, words, _deps) in SERVICES.items():
        own[service] = []
        for word in words:
            own[service].append(memory(
                f"{service.capitalize()}: how {word} handling works",
                f"The {service} service ({what}) keeps {word} logic in `{folder}/{word}.py`. "
                f"Change {word} behaviour there and extend `tests/{service}/test_{word}.py`.",
                [service],
            ))  # fmt: skip
        for n in range(6):
            own[service].append(memory(
                f"{service.capitalize()} note {n + 1}: {words[n % len(words)]} edge cases",
                f"In `{folder}/`, {words[n % len(words)]} and {words[(n + 1) % len(words)]} "
                f"interact; read `{folder}/README.md` before changing either ({what}).",
                [service],
            ))  # fmt: skip
    # Runbook, decision and incident memories: linked by tag to their node, naming no service.
    linked: dict[str, Memory] = {}
    for runbook, (_service, steps) in RUNBOOKS.items():
        linked[f"runbook:{runbook}"] = memory(
            f"Runbook: {runbook.replace('-', ' ')}", steps, [f"runbook:{runbook}"], "convention"
        )
        memory(f"After {runbook.replace('-', ' ')}: tell the channel",
               "Post the timeline in the incident channel within the hour.", [f"runbook:{runbook}"])  # fmt: skip
    for decision, (_service, text) in DECISIONS.items():
        linked[f"decision:{decision}"] = memory(
            f"Decision: {decision.replace('-', ' ')}", text, [f"decision:{decision}"], "decision"
        )
    for incident, (_service, _sev, lesson) in INCIDENTS.items():
        linked[f"incident:{incident}"] = memory(
            f"Learned from {incident}", lesson, [f"incident:{incident}"]
        )
    for practice, text in PRACTICES.items():
        linked[f"practice:{practice}"] = memory(
            f"Practice: {practice.replace('-', ' ')}", text, [f"practice:{practice}"], "convention"
        )
    # Memories a service's record documents directly (documented_by: <memory id>).
    documented: dict[str, Memory] = {}
    owner_notes = {
        "payments": "Capture happens only after fraud screening answers; never capture on create.",
        "ledger": "Amounts are integers in minor units; a float anywhere is a bug.",
        "auth": "Never log the session cookie, not even truncated.",
        "checkout": "Totals are recomputed server-side on every step; never trust the client's.",
        "catalog": "Prices change only through the pricing job, so caches can key on its run.",
        "search": "Ranking weights are tuned offline; do not edit them in production.",
        "notifications": "Marketing messages respect quiet hours in the recipient's zone.",
        "shipping": "Label purchase is the last step; cancelling after it costs money.",
        "inventory": "Warehouse exports arrive at 02:00 UTC; jobs before that see yesterday.",
        "billing": "Dunning retries on days 1, 3 and 7, then pauses the plan.",
        "gateway": "Partners get their own key; the shared key is for the web client only.",
        "analytics": "Events are append-only; a bad event is corrected by a compensating one.",
    }
    for service, text in owner_notes.items():
        documented[service] = memory(f"Operating note: {text.split(';')[0][:60]}", text, [])
    # Generic engineering memories (noise every situation's words may hit).
    n = 0
    while len(memories) < 300:
        title, tag = GENERIC[n % len(GENERIC)]
        memory(
            f"{title} ({n // len(GENERIC) + 1})",
            f"{title}. This applies in every service.",
            [tag],
            "convention",
        )
        n += 1

    def yaml_list(items: list[str]) -> str:
        return "[" + ", ".join(items) + "]"

    for team, title in TEAMS.items():
        owned = [f"service:{s}" for s, spec in SERVICES.items() if spec[0] == team]
        records[f"teams/{team}.yaml"] = (
            f"nodeKind: team\nid: team:{team}\nattributes:\n  title: {title}\n"
            + (f"edges:\n  owns: {yaml_list(owned)}\n" if owned else "")
        )
    for repo, globs in REPOSITORIES.items():
        records[f"repositories/{repo}.yaml"] = (
            f"nodeKind: repository\nid: repository:{repo}\nattributes:\n  title: {repo}\n"
            f"  paths: {yaml_list(globs)}\n"
        )
    for service, (team, folder, _what, _words, deps) in SERVICES.items():
        docs = [f"runbook:{r}" for r, spec in RUNBOOKS.items() if spec[0] == service]
        docs += [documented[service].id]
        edges = f"edges:\n  documented_by: {yaml_list(docs)}\n"
        if deps:
            edges += f"  depends_on: {yaml_list([f'service:{d}' for d in deps])}\n"
        records[f"services/{service}.yaml"] = (
            f"nodeKind: service\nid: service:{service}\nattributes:\n  title: {service.capitalize()}\n"
            f"  owners: [team:{team}]\n  status: active\n  tier: critical\n"
            f"  paths: [{folder}/**]\n{edges}"
        )
    for runbook in RUNBOOKS:
        records[f"runbooks/{runbook}.yaml"] = (
            f"nodeKind: runbook\nid: runbook:{runbook}\nattributes:\n  title: {runbook.replace('-', ' ')}\n"
        )
    for decision, (service, _text) in DECISIONS.items():
        records[f"decisions/{decision}.yaml"] = (
            f"nodeKind: decision\nid: decision:{decision}\nattributes:\n  title: {decision.replace('-', ' ')}\n"
            f"edges:\n  applies_to: [service:{service}]\n"
        )
    for incident, (service, severity, _lesson) in INCIDENTS.items():
        records[f"incidents/{incident}.yaml"] = (
            f"nodeKind: incident\nid: incident:{incident}\nattributes:\n  title: {incident}\n"
            f"  severity: {severity}\nedges:\n  applies_to: [service:{service}]\n"
        )
    for practice in PRACTICES:
        records[f"practices/{practice}.yaml"] = (
            f"nodeKind: practice\nid: practice:{practice}\nattributes:\n  title: {practice.replace('-', ' ')}\n"
            f"edges:\n  applies_to: [repository:shop]\n"
        )
    situations = _situations(own, linked, documented)
    return Company(records, memories, situations)


_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "in",
        "on",
        "to",
        "for",
        "with",
        "by",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "from",
        "at",
        "as",
        "not",
        "never",
        "then",
        "only",
        "one",
        "two",
        "after",
        "before",
        "every",
        "each",
        "new",
        "via",
    ]
)


def content_words(text: str) -> set[str]:
    """The words of substance in ``text`` (lower case, stop words and short words out, a
    plural's trailing s dropped)."""
    words = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if len(word) >= 3 and word not in _STOP:
            words.add(word[:-1] if word.endswith("s") and len(word) > 4 else word)
    return words


def _situations(
    own: dict[str, list[Memory]], linked: dict[str, Memory], documented: dict[str, Memory]
) -> list[Situation]:
    found: list[Situation] = []
    for service, (_team, folder, _what, words, deps) in SERVICES.items():
        paths = [f"{folder}/{words[0]}.py", f"{folder}/{words[1]}.py"]
        branch = f"feature/{words[0]}-{words[2]}"
        subjects = [f"Tidy {words[1]} handling", f"Add {words[2]} option"]
        # 1. the service's own operating note (documented_by: one edge)
        found.append(Situation(f"{service}: its operating note", paths, branch, subjects,
                               documented[service].id, "edge-only"))  # fmt: skip
        # 2. a runbook of the service (documented_by runbook → tag: two edges)
        for runbook, (of, _steps) in RUNBOOKS.items():
            if of == service:
                found.append(Situation(f"{service}: runbook {runbook}", paths, branch, subjects,
                                       linked[f"runbook:{runbook}"].id, "edge-only"))  # fmt: skip
                break
        # 3. a decision about a dependency (service → depends_on → dep ← applies_to ← decision: 3)
        #    is too far at depth 2; the dependency's operating note is two edges away.
        for dep in deps[:1]:
            found.append(Situation(f"{service}: its dependency {dep}'s operating note", paths,
                                   branch, subjects, documented[dep].id, "edge-only"))  # fmt: skip
        # 4. an incident that hit the service (service ← applies_to ← incident → tag: two edges)
        for incident, (hit, _sev, _lesson) in INCIDENTS.items():
            if hit == service:
                found.append(Situation(f"{service}: incident {incident}", paths, branch, subjects,
                                       linked[f"incident:{incident}"].id, "edge-only"))  # fmt: skip
        # 5. a decision that applies to the service (← applies_to ← decision → tag: two edges)
        for decision, (about, _text) in DECISIONS.items():
            if about == service:
                found.append(Situation(f"{service}: decision {decision}", paths, branch, subjects,
                                       linked[f"decision:{decision}"].id, "edge-only"))  # fmt: skip
        # control: a memory about the very code changed, found directly
        found.append(Situation(f"{service}: its own {words[0]} memory (direct)", paths, branch,
                               subjects, own[service][0].id, "direct"))  # fmt: skip
        found.append(Situation(f"{service}: its own {words[2]} memory (direct, the branch's word)",
                               paths, branch, subjects, own[service][2].id, "direct"))  # fmt: skip
        # a question naming the service: what an agent asks memory_search
        found.append(Situation(f"ask about {service}: operating note", [], "main", [],
                               documented[service].id, "edge-only",
                               query=f"anything to know before changing {service}?"))  # fmt: skip
    return found


def write_brain(root: Path, company: Company, *, embedder: str = "local") -> None:
    """The company's brain under ``root`` (a git repository is made there too)."""
    import subprocess

    from teambrain_schema import BRAIN_YAML_TEMPLATE, CLASS_FOLDERS
    from teambrain_schema.paths import BrainLayout

    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    layout = BrainLayout(root)
    layout.root.mkdir(parents=True, exist_ok=True)
    layout.brain_yaml.write_text(
        BRAIN_YAML_TEMPLATE.replace("provider: local", f"provider: {embedder}")
    )
    (layout.root / "ontology").mkdir(exist_ok=True)
    for name, text in STARTER_FILES.items():
        (layout.root / "ontology" / name).write_text(text)
    for relpath, text in company.records.items():
        path = layout.root / "graph" / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for m in company.memories:
        folder = layout.memories / CLASS_FOLDERS[m.memory_class]
        folder.mkdir(parents=True, exist_ok=True)
        tags = ", ".join(m.tags)
        title = m.title.replace("'", "''")
        (folder / f"{m.id}-m.md").write_text(
            f"---\nid: {m.id}\nclass: {m.memory_class}\nscope: team\nstatus: active\n"
            f"priority: advisory\ntitle: '{title}'\ncreated: 2026-11-01\nsupersedes: []\n"
            f"tags: [{tags}]\nttl_days: null\n---\n\n{m.body}\n"
        )
    layout.retired.mkdir(exist_ok=True)
