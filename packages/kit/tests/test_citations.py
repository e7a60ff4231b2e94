"""Citations: extracted from what a memory says, checked against a real git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings, strategies as st
from teambrain_kit.citation_checker import CitationChecker
from teambrain_kit.citations import extract_citations


def cited(body: str, commits: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    return [(c.kind, c.target) for c in extract_citations(body, commits)]


# ---------------------------------------------------------------- extraction


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("Checkout is `src/shop/checkout/`.", [("path", "src/shop/checkout/")]),
        ("Run `tests/test_checkout.py::test_timeout`.", [("path", "tests/test_checkout.py")]),
        (
            "See `src/app.py:42` and `./docs/setup.md`.",
            [("path", "src/app.py"), ("path", "docs/setup.md")],
        ),
        ("`money.py` formats cents.", [("path", "money.py")]),
        ("Every `**/*.sql` file is a migration.", [("glob", "**/*.sql")]),
        (
            "Use `shop.payments.gateway.PaymentGateway`.",
            [("symbol", "shop.payments.gateway.PaymentGateway")],
        ),
        (
            "Run `make test ARGS=tests/x.py`, not `make -j4 lint`.",
            [("command", "test"), ("command", "lint")],
        ),
        (
            "`make -f ci.mk deploy`, `make -C docs html`, `make -j 2 build`, `make -j lint`.",
            [("command", "deploy"), ("command", "build"), ("command", "lint")],
        ),
        (
            "Checkout lives in src/shop/checkout/ and app/main.py.",
            [("path", "src/shop/checkout/"), ("path", "app/main.py")],
        ),
        (
            "`npm run build:web` then `python -m shop.tools.seed`.",
            [("script", "build:web"), ("module", "shop.tools.seed")],
        ),
        # Not citations: URLs, absolute and home paths, prose with slashes, calls, versions.
        ("Docs at https://example.com/a/b.html and `/etc/hosts` or `~/.ssh/config`.", []),
        ("Read and/or write; CI/CD runs on TCP/IP.", []),
        ("Forked from github.com/acme/shop/ and `docs.python.org/3/library/os.html`.", []),
        ('Call `log.info("x")` with `structlog.get_logger(__name__)`.', []),
        ("Pin `numpy>=2.0` and `v1.2.3`.", []),
        ("```\nsrc/only/in/an/example.py\n`make nothing`\n```\nDone.", []),
        # Issue 42 point 7: the files a command reads are citations too.
        ("Run `pytest -q tests/test_cart.py`.", [("argument", "tests/test_cart.py")]),
        ("`python manage.py migrate`", [("argument", "manage.py")]),
        ("`npm run test -- src/x.test.ts`", [("script", "test"), ("argument", "src/x.test.ts")]),
        (
            "`ruff check src/` and `go test ./internal/pay/...`",
            [("argument", "src/"), ("argument", "internal/pay/")],
        ),
        ("`cd web && npm test -- src/a.test.ts`", [("argument", "web/src/a.test.ts")]),
        (
            "`uv run pytest tests/x.py::test_a -k foo --junitxml=out/junit.xml`",
            [("argument", "tests/x.py")],
        ),
        (
            "`HEADLESS=0 bundle exec rspec spec/system/checkout_spec.rb:12`",
            [("argument", "spec/system/checkout_spec.rb")],
        ),
        (
            "`docker compose -f deploy/compose.yml up`, `./scripts/deploy.sh staging`",
            [("argument", "deploy/compose.yml"), ("argument", "scripts/deploy.sh")],
        ),
        (
            "```sh\n$ pytest tests/test_a.py   # fast\nbin/setup\nmake dev\n```",
            [("argument", "tests/test_a.py"), ("argument", "bin/setup"), ("command", "dev")],
        ),
        # ... never what a command writes, creates or removes, nor code of other languages.
        ("`mkdir -p build/out`, `git checkout -b feature/x`, `cp .env.example .env`", []),
        ("`node dist/server.js`, `tail -f log/dev.log`, `pytest --junitxml=reports/j.xml`", []),
        ("`cd ../other && pytest a/b.py`, `eslint 'src/**/*.ts'`", []),
        ("```python\nopen('src/a.py')\n```\n```\n$ curl https://x.example/a/b.json\n```", []),
    ],
)
def test_citations_are_what_the_memory_names(body: str, expected: list[tuple[str, str]]) -> None:
    assert cited(body) == expected


def test_evidence_commits_are_citations_and_each_target_counts_once() -> None:
    body = "`src/a.py` and `src/a.py` again, and src/a.py in prose."
    assert cited(body, ("abc1234", "not-a-sha")) == [("path", "src/a.py"), ("commit", "abc1234")]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_extraction_never_raises_and_targets_come_from_the_text(body: str) -> None:
    for citation in extract_citations(body):
        assert citation.text in body
        assert "://" not in citation.target and not citation.target.startswith(("/", "~"))
        assert not any(c.isspace() for c in citation.target)


_COMMAND_WORDS = st.sampled_from(
    ["pytest", "-q", "tests/test_a.py", "python", "-m", "manage.py", "npm", "run", "--", "cd",
     "web", "&&", ";", "|", "uv", "npx", "bundle", "exec", "-f", "a/b.yml", "'", '"', "$", "#",
     "./x.sh", "bin/setup", "go", "./p/...", "docker", "compose", "pnpm", "dlx", "=", "-o",
     "out/", "x=1", "..", "~/a", "/abs/p.py", "src/**/*.py", "\\", "`"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_COMMAND_WORDS, max_size=8).map(" ".join), max_size=6),
       st.sampled_from(["`{}`", "```sh\n{}\n```", "```\n$ {}\n```", "{}"]))  # fmt: skip
@example(lines=["pnpm run .."], shape="`{}`")  # a script named "..": once cited as a path
def test_commands_of_any_shape_are_read_without_raising(lines: list[str], shape: str) -> None:
    body = "\n".join(shape.format(line) for line in lines)
    for citation in extract_citations(body):
        assert citation.text in body
        assert "://" not in citation.target and not citation.target.startswith(("/", "~"))
        assert ".." not in citation.target.split("/")
        assert not any(c.isspace() for c in citation.target)


def _fences_by_the_book(body: str) -> str:
    """CommonMark's fenced blocks, the plain way (quadratic): what _without_fences must equal."""
    import re

    lines, kept, index = body.split("\n"), [], 0
    while index < len(lines):
        opening = re.fullmatch(r" {0,3}(`{3,}|~{3,})(.*)", lines[index])
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence = opening.group(1)
            for end in range(index + 1, len(lines)):
                closing = re.fullmatch(r" {0,3}(`{3,}|~{3,})[ \t\r]*", lines[end])
                if (
                    closing
                    and closing.group(1)[0] == fence[0]
                    and len(closing.group(1)) >= len(fence)
                ):
                    index = end + 1
                    break
            else:
                kept.append(lines[index])
                index += 1
            continue
        kept.append(lines[index])
        index += 1
    return "\n".join(kept)


_FENCE_LINES = st.sampled_from(
    ["```", "````", "~~~", "~~~~~", "```py", "~~~ sh", "   ```", "    ```", "```x```", "``",
     "``` ", "```\r", "see `src/a.py`", "src/b/", "text", ""]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_FENCE_LINES, max_size=30))
def test_fenced_blocks_are_cut_as_commonmark_says(lines: list[str]) -> None:
    from teambrain_kit.citations import _without_fences

    body = "\n".join(lines)
    assert _without_fences(body) == _fences_by_the_book(body)


def test_fences_never_closed_are_prose_and_cost_one_pass() -> None:
    body = "~~~a\n" * 3000 + "`" * 20000 + "\nsee `src/x.py`"
    assert cited(body) == [("path", "src/x.py")]
    assert cited("```\n`src/a.py`\n````\n`src/b.py`") == [("path", "src/b.py")]


# ---------------------------------------------------------------- checking against git


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src" / "shop" / "checkout").mkdir(parents=True)
    (root / "src" / "shop" / "checkout" / "cart.py").write_text("def total():\n    return 0\n")
    (root / "src" / "shop" / "payments").mkdir()
    (root / "src" / "shop" / "payments" / "gateway.py").write_text(
        "class PaymentGateway:\n    pass\n"
    )
    (root / "tests").mkdir()
    (root / "tests" / "fakes.py").write_text("FAKE = 1\n")
    (root / "Makefile").write_text(".PHONY: test\ntest:\n\tpytest\nlint: deps\n\truff .\n")
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    return root


def reasons(checker: CitationChecker, body: str, commits: tuple[str, ...] = ()) -> list[str]:
    return [s.reason for s in checker.check(extract_citations(body, commits))]


def test_what_still_holds_is_not_stale(repo: Path) -> None:
    body = (
        "Checkout is `src/shop/checkout/` (`cart.py`); payments go through "
        "`shop.payments.gateway.PaymentGateway`; fakes in tests/fakes.py; every `**/*.py`; "
        "run `make test` and `make lint`; logs with `structlog.get_logger`."
    )
    head = git(repo, "rev-parse", "HEAD")
    assert reasons(CitationChecker(repo), body, (head[:10],)) == []


def test_a_renamed_folder_and_file_are_followed(repo: Path) -> None:
    git(repo, "mv", "src/shop/checkout", "src/shop/basket")
    git(repo, "mv", "tests/fakes.py", "tests/doubles.py")
    git(repo, "commit", "-qm", "rename")
    checker = CitationChecker(repo)
    found = checker.check(extract_citations("See `src/shop/checkout/` and `tests/fakes.py`."))
    assert [(s.citation.target, s.moved_to) for s in found] == [
        ("src/shop/checkout/", "src/shop/basket/"),
        ("tests/fakes.py", "tests/doubles.py"),
    ]
    assert "moved to `src/shop/basket/`" in found[0].reason


def test_deleted_code_missing_symbols_and_targets_are_named(repo: Path) -> None:
    (repo / "src" / "shop" / "payments" / "gateway.py").write_text("class Gateway:\n    pass\n")
    git(repo, "rm", "-q", "tests/fakes.py")
    git(repo, "commit", "-qam", "change")
    body = (
        "`tests/fakes.py`; `shop.payments.gateway.PaymentGateway`; `make deploy`; every `**/*.rb`"
    )
    assert reasons(CitationChecker(repo), body) == [
        "`tests/fakes.py` no longer exists",
        "`PaymentGateway` no longer appears in `src/shop/payments/gateway.py`",
        "`make deploy`: no Makefile defines `deploy`",
        "`**/*.rb` matches no file",
    ]


def test_a_command_whose_file_moved_is_stale_and_says_where(repo: Path) -> None:
    """Issue 42 point 7: a memory citing `pytest -q tests/test_cart.py` was never flagged when
    the file moved; the file a command reads is checked like a path, from the root — or from a
    folder of the repository (commands run in subprojects) when git saw no move."""
    (repo / "tests" / "test_cart.py").write_text("def test_total():\n    pass\n")
    (repo / "services" / "api" / "tests").mkdir(parents=True)
    (repo / "services" / "api" / "tests" / "test_orders.py").write_text("X = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tests")
    body = (
        "Run `pytest -q tests/test_cart.py`; in services/api `pytest tests/test_orders.py`; "
        "`mkdir -p build/out`."
    )
    assert reasons(CitationChecker(repo), body) == []
    git(repo, "mv", "tests/test_cart.py", "tests/unit_test_cart.py")
    git(repo, "commit", "-qm", "move")
    found = CitationChecker(repo).check(extract_citations(body))
    assert [(s.reason, s.moved_to) for s in found] == [(
        "`pytest -q tests/test_cart.py`: `tests/test_cart.py` no longer exists "
        "(moved to `tests/unit_test_cart.py`)",
        "tests/unit_test_cart.py",
    )]  # fmt: skip


def test_an_evidence_commit_is_never_a_reason_to_call_a_memory_stale(repo: Path) -> None:
    (repo / "note.txt").write_text("x\n")
    git(repo, "add", "note.txt")
    git(repo, "commit", "-qm", "to be dropped")
    dropped = git(repo, "rev-parse", "HEAD")
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    checker = CitationChecker(repo)
    # Before: "not reachable from HEAD" / "not in the repository" — stale for everyone after a
    # squash merge. Now unverifiable, and said so where it is looked at (tb lint's notes).
    assert reasons(checker, "body", (dropped,)) == []
    assert reasons(checker, "body", ("0" * 40,)) == []
    fates = {f.sha: f for f in checker.evidence([dropped, "0" * 40])}
    assert fates[dropped].state == "unverifiable"
    assert "on no branch merged here" in fates[dropped].note
    assert fates["0" * 40].state == "unverifiable"
    assert "not in this clone" in fates["0" * 40].note


def test_the_working_tree_is_what_is_checked_and_a_commit_when_given(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    (repo / "tests" / "fakes.py").unlink()  # removed without git: gone from the working tree
    assert reasons(CitationChecker(repo), "`tests/fakes.py`") == [
        "`tests/fakes.py` no longer exists"
    ]
    assert reasons(CitationChecker(repo, commit=first), "`tests/fakes.py`") == []


def test_outside_git_nothing_is_called_stale(tmp_path: Path) -> None:
    assert reasons(CitationChecker(tmp_path), "`src/nowhere.py`") == []


def test_stale_reasons_are_cached_until_the_repository_moves(repo: Path) -> None:
    checker = CitationChecker(repo)
    body = "`tests/fakes.py`"
    assert checker.stale_reasons([(body, [])]) == [()]
    git(repo, "mv", "tests/fakes.py", "tests/doubles.py")
    git(repo, "commit", "-qm", "move")
    assert checker.stale_reasons([(body, [])]) == [
        ("`tests/fakes.py` no longer exists (moved to `tests/doubles.py`)",)
    ]


def test_a_module_of_a_renamed_first_party_package_is_stale_a_library_is_not(repo: Path) -> None:
    git(repo, "mv", "src/shop/payments", "src/shop/billing")
    git(repo, "commit", "-qm", "rename package")
    body = "Use `shop.payments.gateway.PaymentGateway`, log with `structlog.get_logger`."
    assert reasons(CitationChecker(repo), body) == [
        "`shop.payments.gateway.PaymentGateway` names no module of this repository any more"
    ]


def test_a_dotted_module_that_is_a_file_here_holds(repo: Path) -> None:
    """Issue 38: ``shop.payments.gateway`` cited without a symbol is the module
    ``src/shop/payments/gateway.py``; it was called gone ("names no module")."""
    body = "See `shop.payments.gateway` and `shop.payments.gateway.PaymentGateway`."
    assert reasons(CitationChecker(repo), body) == []


def test_a_file_deleted_without_git_is_gone_once_git_sees_it_so(repo: Path) -> None:
    checker = CitationChecker(repo)
    assert checker.stale_reasons([("`tests/fakes.py`", [])]) == [()]
    (repo / "tests" / "fakes.py").unlink()
    assert CitationChecker(repo).stale_reasons([("`tests/fakes.py`", [])]) == [
        ("`tests/fakes.py` no longer exists",)
    ]


def test_scripts_and_python_modules_are_checked(repo: Path) -> None:
    (repo / "package.json").write_text('{"scripts": {"build": "vite build"}}')
    (repo / "src" / "shop" / "tools").mkdir()
    (repo / "src" / "shop" / "tools" / "seed.py").write_text("print('seed')\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tools")
    fine = "`npm run build`, `python -m shop.tools.seed`, `python -m pytest`"
    assert reasons(CitationChecker(repo), fine) == []
    gone = "`npm run deploy`, `python -m shop.tools.reset`"
    assert reasons(CitationChecker(repo), gone) == [
        "`npm run deploy`: no package.json defines the script `deploy`",
        "`python -m shop.tools.reset`: `shop.tools.reset` is no module of this repository any more",
    ]


@pytest.mark.parametrize("on_disk", ["NFD", "NFC"])
def test_a_name_typed_composed_or_decomposed_is_the_same_file(repo: Path, on_disk: str) -> None:
    """macOS writes "é" as "e" plus a combining accent, most editors as one character; both
    look alike in a memory, and git keeps whichever bytes the file system gave it."""
    import unicodedata

    def form(text: str, name: str) -> str:
        return unicodedata.normalize(name, text)  # type: ignore[arg-type]

    other = "NFC" if on_disk == "NFD" else "NFD"
    folder = repo / "docs" / form("résumé", on_disk)
    folder.mkdir(parents=True)
    (folder / form("café.md", on_disk)).write_text("menu\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "docs")
    checker = CitationChecker(repo)
    for typed in (on_disk, other):
        body = (
            f"See `{form('docs/résumé/café.md', typed)}`, {form('docs/résumé/', typed)} and "
            f"`{form('docs/*/café.md', typed)}`; `{form('café.md', typed)}` too."
        )
        assert len(extract_citations(body)) == 4
        assert reasons(checker, body) == [], typed
    git(repo, "mv", f"docs/{form('résumé', on_disk)}", "docs/cv")
    git(repo, "commit", "-qm", "rename")
    checker = CitationChecker(repo)
    assert reasons(checker, f"See `{form('docs/résumé/café.md', other)}`.") == [
        f"`{form('docs/résumé/café.md', other)}` no longer exists "
        f"(moved to `{form('docs/cv/café.md', on_disk)}`)"  # as git spells it
    ]
    found = checker.check(extract_citations(f"Docs live in {form('docs/résumé/', other)} now."))
    assert [s.moved_to for s in found] == ["docs/cv/"]


# ---------------------------------------------------------------- names as people write them


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("`PaymentGateway.charge` retries.", [("member", "PaymentGateway.charge")]),
        (
            "`Gateway::charge()` and `Gateway#refund`.",
            [
                ("member", "Gateway.charge"),
                ("member", "Gateway.refund"),
            ],
        ),
        (
            "`charge_card()`, `chargeCard`, `PaymentGateway`, `total()`.",
            [
                ("name", "charge_card"),
                ("name", "chargeCard"),
                ("name", "PaymentGateway"),
                ("name", "total"),
            ],
        ),
        ("`gateway.charge()` is a module's name.", [("symbol", "gateway.charge")]),
        (
            "`MAX_RETRIES` and `TEAMBRAIN_HOME`.",
            [
                ("name", "MAX_RETRIES"),
                ("name", "TEAMBRAIN_HOME"),
            ],
        ),
        # Prose: single plain words, and names too short to be sure of.
        ("`main` and `retry` are words; `ab()` is too short.", []),
    ],
)
def test_names_are_cited_the_way_people_write_them(
    body: str, expected: list[tuple[str, str]]
) -> None:
    assert cited(body) == expected


GATEWAY = "class PaymentGateway:\n    def charge(self, order):\n        return order\n"
BILLING = "import requests\n\n\ndef charge_card(card):\n    return requests.post(card)\n"
MEMORY = (
    "`PaymentGateway.charge` in `src/shop/payments/gateway.py` retries; `charge_card()` "
    "(`src/shop/billing.py`) calls `requests_post_json` nowhere and `PaymentGateway.model_dump` "
    "is inherited."
)


def write_memory(repo: Path, body: str, name: str = "01KB2F0A1S9Y4Q7V3C8D5E6F03-m.md") -> str:
    relpath = f".teambrain/memories/learnings/{name}"
    (repo / relpath).parent.mkdir(parents=True, exist_ok=True)
    (repo / relpath).write_text(f"---\nid: x\n---\n\n{body}\n")
    git(repo, "add", relpath)
    git(repo, "commit", "-qm", "memory")
    return relpath


@pytest.fixture
def shop(repo: Path) -> Path:
    (repo / "src" / "shop" / "payments" / "gateway.py").write_text(GATEWAY)
    (repo / "src" / "shop" / "billing.py").write_text(BILLING)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "shop")
    return repo


def name_reasons(
    repo: Path, body: str, path: str | None, commits: tuple[str, ...] = ()
) -> list[str]:
    return [s.reason for s in CitationChecker(repo).check(extract_citations(body, commits), path)]


def test_names_that_hold_or_never_were_defined_there_are_not_stale(shop: Path) -> None:
    path = write_memory(shop, MEMORY)
    assert name_reasons(shop, MEMORY, path) == []


def test_a_renamed_method_and_a_removed_function_are_stale(shop: Path) -> None:
    path = write_memory(shop, MEMORY)
    gateway = shop / "src" / "shop" / "payments" / "gateway.py"
    gateway.write_text(GATEWAY.replace("def charge(", "def charge_order("))
    (shop / "src" / "shop" / "billing.py").write_text("import requests\n")
    git(shop, "commit", "-qam", "rename charge, drop charge_card")
    # "charge" still appears in the file (charge_order): a word search would call it fine.
    assert name_reasons(shop, MEMORY, path) == [
        "`PaymentGateway.charge`: `charge` is no longer defined in `src/shop/payments/gateway.py`",
        "`charge_card` is no longer defined in `src/shop/billing.py`",
    ]


def test_an_edit_not_committed_yet_counts_against_head(shop: Path) -> None:
    path = write_memory(shop, MEMORY)
    gateway = shop / "src" / "shop" / "payments" / "gateway.py"
    gateway.write_text(GATEWAY.replace("class PaymentGateway", "class Gateway"))
    git(shop, "add", "-A")  # git sees it; not committed
    assert name_reasons(shop, MEMORY, path) == [
        "`PaymentGateway` is no longer defined anywhere (it was in `src/shop/payments/gateway.py`)"
    ]


def test_a_class_without_a_cited_file_is_looked_up_in_the_repository(shop: Path) -> None:
    body = "Retry through `PaymentGateway.charge`; `Path.resolve` is a library's."
    path = write_memory(shop, body)
    assert name_reasons(shop, body, path) == []
    git(shop, "mv", "src/shop/payments/gateway.py", "src/shop/payments/gw.py")
    git(shop, "commit", "-qm", "move the file: the class is still defined")
    assert name_reasons(shop, body, path) == []
    gw = shop / "src" / "shop" / "payments" / "gw.py"
    gw.write_text(GATEWAY.replace("PaymentGateway", "Gateway"))
    git(shop, "commit", "-qam", "rename the class")
    assert name_reasons(shop, body, path) == [
        "`PaymentGateway` is no longer defined anywhere (it was in `src/shop/payments/gateway.py`)"
    ]


def refunds_on_a_branch(repo: Path) -> str:
    """A branch ``feature`` whose one commit defines ``refund_card``; main checked out again."""
    git(repo, "checkout", "-qb", "feature")
    (repo / "src" / "shop" / "billing.py").write_text(
        BILLING + "\n\ndef refund_card(card):\n    pass\n"
    )
    git(repo, "commit", "-qam", "refund")
    commit = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    return commit


def test_a_name_of_a_branch_not_merged_yet_is_the_future_not_the_past(shop: Path) -> None:
    feature = refunds_on_a_branch(shop)
    body = "`refund_card()` in `src/shop/billing.py` is idempotent."
    path = write_memory(shop, body)  # merged before the code it describes
    assert name_reasons(shop, body, path, (feature,)) == []


def test_evidence_commits_say_what_the_code_was(shop: Path) -> None:
    """A memory merged before its code (no definition when it was written) is still checked:
    its evidence commit, squash-merged, is where the name was defined."""
    body = "`refund_card()` in `src/shop/billing.py` is idempotent."
    path = write_memory(shop, body)
    evidence = refunds_on_a_branch(shop)
    git(shop, "merge", "-q", "--squash", "feature")
    git(shop, "commit", "-qm", "Refunds (#9)")
    git(shop, "branch", "-qD", "feature")
    assert name_reasons(shop, body, path, (evidence,)) == []
    (shop / "src" / "shop" / "billing.py").write_text(BILLING)
    git(shop, "commit", "-qam", "drop refunds")
    assert name_reasons(shop, body, path, (evidence,)) == [
        "`refund_card` is no longer defined in `src/shop/billing.py`"
    ]


def test_only_the_first_evidence_commits_are_checked() -> None:
    """Issue 32 point 4: one memory's cost is bounded, however many commits it lists."""
    from teambrain_kit.citations import MAX_EVIDENCE_CHECKED

    shas = [f"{i:040x}" for i in range(1, 5_201)]
    commits = [c for c in extract_citations("A body.", shas) if c.kind == "commit"]
    assert [c.target for c in commits] == shas[:MAX_EVIDENCE_CHECKED]
