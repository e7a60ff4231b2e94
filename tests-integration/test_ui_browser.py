"""``tb ui`` in a real browser: Debian's Chromium, driven through Playwright, clicks through
every view of the installed ``tb ui`` serving a real repository (uiworld.py) and checks what the
page shows. One browser for the whole test process; each test has its own tab.

Each view is saved as a screenshot (docs/ui.md shows them): into ``$TEAMBRAIN_UI_SCREENSHOTS``
when set (``TEAMBRAIN_UI_SCREENSHOTS=docs/img/ui make test`` refreshes the docs' pictures), else
into the test run's temporary directory.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright
from uiworld import (
    CHROMIUM_ARGS,
    F01_PAYMENTS,
    F02_MAKE_TEST,
    F03_CHECKOUT_MAP,
    F04_FLAKY,
    INJECTION,
    MARKUP_TITLE,
    NEAR_DUPLICATE,
    PASSING,
    RETIRE_REASON,
    SECRET,
    SUPERSEDING_TITLE,
    TO_DROP,
    UNRESOLVED,
    UiServer,
    chromium_executable,
)

VIEWPORT = {"width": 1280, "height": 900}
# Answers of 400 or more a test asks for on purpose: id(page) → parts of their addresses.
EXPECTED_FAILURES: dict[int, list[str]] = {}


def expect_failure(page: Any, address_part: str) -> None:
    """The next pages may answer an error for an address holding ``address_part``."""
    EXPECTED_FAILURES.setdefault(id(page), []).append(address_part)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Chromium, once per test process (skipped only where none is installed: `make test`
    installs Debian's chromium with apt when it can)."""
    executable = chromium_executable()
    if executable is None:
        pytest.skip(
            "no Chromium here and none could be installed (`make test` installs Debian's "
            "chromium with apt-get when run as root; or set TEAMBRAIN_CHROMIUM)"
        )
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any, ui_server: UiServer) -> Iterator[Any]:
    """A fresh tab (its own cookies and cache) that fails the test on any script error or any
    answer of 400 or more the test did not ask for."""
    context = browser.new_context(viewport=VIEWPORT, java_script_enabled=True)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(f"script error: {error}"))

    def answered(response: Any) -> None:
        wanted = EXPECTED_FAILURES.get(id(tab), [])
        if response.status >= 400 and not any(part in response.url for part in wanted):
            errors.append(f"{response.status} {response.url}")

    tab.on("response", answered)
    tab.set_default_timeout(60_000)
    try:
        yield tab
    finally:
        context.close()
        EXPECTED_FAILURES.pop(id(tab), None)
    assert not errors, f"the page reported errors: {errors}"


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = os.environ.get("TEAMBRAIN_UI_SCREENSHOTS")
    folder = Path(where) if where else tmp_path_factory.mktemp("ui-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shoot(page: Any, shots: Path, name: str) -> None:
    """Keep a picture of the whole page for the docs."""
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def follow(page: Any, selector: str) -> None:
    """Click a link or a GET form's button, then wait until the page it leads to has loaded:
    the click returns once the navigation has started, before the new rows are there."""
    page.click(selector)
    page.wait_for_load_state()


def go(page: Any, server: UiServer, path: str) -> None:
    response = page.goto(f"{server.base}{path}")
    assert response is not None and response.status == 200, (path, response and response.status)


def test_usage_draws_the_digest_with_small_cells_hidden(
    page: Any, ui_server: UiServer, shots: Path
) -> None:
    go(page, ui_server, "/usage")
    follow(page, "#nav-usage")
    figures = {
        page.locator("#figures dt").nth(i).inner_text(): page.locator("#figures dd[data-figure]")
        .nth(i)
        .inner_text()
        for i in range(page.locator("#figures dd[data-figure]").count())
    }
    assert figures["sessions"] == "20"  # 6 a day for three days, 2 on the fourth
    assert figures["with memory"] == "14"  # four a day are shown memory
    assert figures["retrieval calls"] == "28"  # two calls each
    columns = page.locator("#chart-sessions-per-day g.col")
    values = [columns.nth(i).get_attribute("data-value") for i in range(columns.count())]
    assert values.count("6") == 2 and values.count("<5") == len(values) - 2
    # A hidden day is an outline marked <5, never a bar.
    hidden = page.locator("#chart-sessions-per-day g.col.suppressed")
    assert hidden.count() == len(values) - 2
    assert hidden.locator("rect.bar").count() == 0
    assert page.locator("#chart-sessions-per-day g.col:not(.suppressed) rect.bar").count() == 2
    rows = page.locator("#chart-with-without-memory tr")
    assert [rows.nth(i).get_attribute("data-value") for i in range(2)] == ["14", "6"]
    served = page.locator("#chart-most-served tr")
    assert served.count() == 2
    assert "Payments go through the PaymentGateway interface" in served.nth(0).inner_text()
    assert page.locator("#chart-feedback tr").nth(0).get_attribute("data-value") == "12"
    assert "nothing the JSON report hides" in page.locator("#suppression-note").inner_text()
    shoot(page, shots, "usage")
    page.select_option("#usage-window select[name=repo]", "all")
    follow(page, "#usage-window button")
    assert "repo=all" in page.url


def test_a_past_session_explains_which_memories_it_was_shown_and_at_which_commit(
    page: Any, ui_server: UiServer, ui_world: Any, shots: Path
) -> None:
    go(page, ui_server, "/sessions")
    rows = page.locator("#session-list tr.session-row")
    assert rows.count() == 20
    shoot(page, shots, "sessions")
    rows.first.locator("a").click()
    page.wait_for_load_state()
    page.wait_for_selector("#explanation")
    text = page.locator("#explanation").inner_text()
    assert "Payments go through the PaymentGateway interface" in text
    assert "Where checkout lives" in text
    commits = page.locator("#explanation .commit")
    shown = {commits.nth(i).inner_text() for i in range(commits.count())}
    assert shown == {ui_world.head_commit[:12], ui_world.tag_commit[:12]}
    links = page.locator("#explanation a")
    hrefs = [links.nth(i).get_attribute("href") or "" for i in range(links.count())]
    assert any(f"/memory/{F01_PAYMENTS}?ref={ui_world.tag_commit}" in h for h in hrefs)
    shoot(page, shots, "session")


def test_the_stale_view_suggests_the_fix_and_opens_the_fix_citations_review(
    page: Any, ui_server: UiServer, ui_world: Any, shots: Path
) -> None:
    go(page, ui_server, "/brain")
    follow(page, "#nav-stale")
    row = page.locator(f"#stale-list tr[data-id='{F03_CHECKOUT_MAP}']")
    assert "Where checkout lives" in row.inner_text()
    assert "cite `src/shop/basket/` instead" in row.locator("td.fixable").inner_text()
    shoot(page, shots, "stale")
    page.click("#fix-citations")
    page.wait_for_selector("#fix-result")
    result = page.locator("#fix-result").inner_text()
    assert "Fix-citations review opened" in result
    branch = re.search(r"teambrain/fix-citations-\w+", result)
    assert branch, result
    pr = ui_world.team.pr_for(branch.group(0))  # opened on the remote through gh
    assert pr["state"] == "OPEN"
    assert pr["url"] in page.locator("#review-where").inner_text()
    shoot(page, shots, "stale-fix")


def test_the_queue_shows_each_check_a_candidate_would_face(
    page: Any, ui_server: UiServer, ui_world: Any, shots: Path
) -> None:
    go(page, ui_server, "/queue")

    def card(title: str) -> Any:
        return page.locator(f"#candidate-{ui_world.candidates[title]}")

    def check(title: str, name: str) -> tuple[str, str]:
        found = card(title).locator(f"li.check[data-check='{name}']")
        return found.get_attribute("data-verdict") or "", found.inner_text()

    def verdict(title: str) -> str:
        return card(title).locator(".verdict").get_attribute("data-verdict") or ""

    assert check(SECRET, "secrets")[0] == "blocks"
    assert "ghp_" not in card(SECRET).inner_text()  # the page never shows the credential
    assert "[REDACTED" in card(SECRET).locator("pre.body").inner_text()
    assert check(INJECTION, "prompt injection")[0] == "blocks"
    assert "Ignore all previous instructions" in check(INJECTION, "prompt injection")[1]
    assert check(NEAR_DUPLICATE, "near-duplicates")[0] == "blocks"
    match = card(NEAR_DUPLICATE).locator(".similar a")
    assert match.inner_text() == "Payments go through the PaymentGateway interface"
    assert (match.get_attribute("href") or "").endswith(f"/memory/{F01_PAYMENTS}")
    flagged, detail = check(UNRESOLVED, "citations")
    assert flagged == "warning" and "src/shop/refunds/worker.py" in detail
    assert verdict(UNRESOLVED) == "warning"
    assert verdict(TO_DROP) == "passes"
    assert all(verdict(t) == "blocked" for t in (SECRET, INJECTION, NEAR_DUPLICATE))
    # What would be proposed is ticked; what would not is not.
    assert card(TO_DROP).locator("input[name=id]").is_checked()
    assert not card(INJECTION).locator("input[name=id]").is_checked()
    # The proposals on the remote and what became of them (tb propose's listing of them).
    open_row = page.locator(f"#proposal-list tr[data-branch='{ui_world.open_branch}']")
    assert open_row.get_attribute("data-state") == "open"
    follow(page, "#ask-gh")  # the pull requests as gh says now
    assert "gh=1" in page.url
    pr = ui_world.team.pr_for(ui_world.open_branch)
    assert open_row.locator("a").get_attribute("href") == pr["url"]
    shoot(page, shots, "queue")


def test_dropping_from_the_queue_uses_the_candidates_service(
    page: Any, ui_server: UiServer, ui_world: Any
) -> None:
    from teambrain_capture import load_candidate

    go(page, ui_server, "/queue")
    boxes = page.locator("#queue-form input[name=id]")
    for i in range(boxes.count()):
        boxes.nth(i).uncheck()
    dropped = ui_world.candidates[TO_DROP]
    page.locator(f"#candidate-{dropped} input[name=id]").check()
    page.fill("#drop-reason", "too generic to help an agent")
    page.click("#drop-selected")
    page.wait_for_selector("#drop-outcomes")
    assert TO_DROP in page.locator("#drop-outcomes").inner_text()
    assert page.locator(f"#candidate-{dropped}").count() == 0
    stored = load_candidate(dropped, machine=ui_world.dev.machine())
    assert stored is not None and stored.status == "rejected"
    assert stored.note == "dropped from the review queue: too generic to help an agent"


def test_enter_in_the_queue_form_neither_proposes_nor_drops(
    page: Any, ui_server: UiServer, ui_world: Any
) -> None:
    """A drop reason typed and Enter pressed (or Enter on a ticked box) submitted the form
    with its first button: the ticked candidates were proposed, pushed and a pull request
    opened. Each action is its own button; Enter in the form does nothing."""
    from teambrain_capture import load_candidate, queue_candidate

    draft = {"class": "learning", "title": "Enter must not propose this one",
             "body": "A candidate for the keyboard test: Enter in the queue form acts on nothing."}  # fmt: skip
    machine = ui_world.dev.machine()
    candidate, _ = queue_candidate(draft, "agent", repo=ui_world.repo_key, machine=machine)
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)  # fmt: skip
    go(page, ui_server, "/queue")
    boxes = page.locator("#queue-form input[name=id]")
    for i in range(boxes.count()):
        boxes.nth(i).uncheck()
    box = page.locator(f"#candidate-{candidate.candidate_id} input[name=id]")
    box.check()
    page.fill("#drop-reason", "too vague")
    page.press("#drop-reason", "Enter")
    page.wait_for_timeout(1500)  # time for a submission to start, were there one
    assert posts == []
    box.focus()
    page.keyboard.press("Enter")  # shows the page again, the same ticks and reason
    page.wait_for_load_state()
    assert posts == []
    stored = load_candidate(candidate.candidate_id, machine=machine)
    assert stored is not None and stored.status == "pending"
    assert box.is_checked() and page.input_value("#drop-reason") == "too vague"
    # The button, reached from the keyboard, still acts.
    page.focus("#drop-selected")
    page.keyboard.press("Enter")
    page.wait_for_selector("#drop-outcomes")
    stored = load_candidate(candidate.candidate_id, machine=machine)
    assert stored is not None and stored.status == "rejected"


def test_proposing_from_the_queue_uses_the_propose_service(
    page: Any, ui_server: UiServer, ui_world: Any, shots: Path
) -> None:
    go(page, ui_server, "/queue")
    boxes = page.locator("#queue-form input[name=id]")
    for i in range(boxes.count()):
        boxes.nth(i).uncheck()
    page.locator(f"#candidate-{ui_world.candidates[PASSING]} input[name=id]").check()
    page.click("#propose-selected")
    page.wait_for_selector("#action-result")
    outcome = page.locator("#propose-outcomes li")
    assert outcome.count() == 1
    assert outcome.first.inner_text().startswith("proposed")
    assert PASSING in outcome.first.inner_text()
    branch = re.search(r"teambrain/propose-\w+", page.locator("#action-result").inner_text())
    assert branch
    pr = ui_world.team.pr_for(branch.group(0))
    assert pr["state"] == "OPEN" and PASSING in pr["body"] + pr["title"]
    # Marked proposed in the spool, as `tb propose` marks it: no longer waiting.
    assert page.locator(f"#candidate-{ui_world.candidates[PASSING]}").count() == 0
    assert PASSING in (page.locator("#handled").text_content() or "")
    shoot(page, shots, "queue-proposed")


def test_browse_the_brain_by_class_status_and_tag(
    page: Any, ui_server: UiServer, shots: Path
) -> None:
    go(page, ui_server, "/")  # the first page is the brain
    assert page.url.endswith("/brain")
    rows = page.locator("#memory-list tr.memory-row")
    assert rows.count() == 8  # the demo's seven, one retired, plus two merged
    superseded = page.locator(f"tr.memory-row[data-id='{F02_MAKE_TEST}']")
    assert "superseded" in superseded.inner_text()
    assert (
        "may be stale" in page.locator(f"tr.memory-row[data-id='{F03_CHECKOUT_MAP}']").inner_text()
    )
    shoot(page, shots, "brain")
    follow(page, "#facets [data-facet=class] a[data-value=decision]")
    assert "class=decision" in page.url
    classes = page.locator("#memory-list tr.memory-row td:nth-child(2)")
    assert {classes.nth(i).inner_text() for i in range(classes.count())} == {"decision"}
    follow(page, "#facets [data-facet=class] a[data-value=decision]")  # chosen again: cleared
    follow(page, "#facets [data-facet=status] a[data-value=retired]")
    retired = page.locator("#memory-list tr.memory-row")
    assert retired.count() == 1
    assert retired.first.get_attribute("data-id") == F04_FLAKY
    assert RETIRE_REASON in retired.first.inner_text()
    follow(page, "#facets [data-facet=status] a[data-value=all]")
    follow(page, "#facets [data-facet=tag] a[data-value=testing]")
    tagged = page.locator("#memory-list tr.memory-row")
    ids = {tagged.nth(i).get_attribute("data-id") for i in range(tagged.count())}
    assert F02_MAKE_TEST in ids and F04_FLAKY in ids  # testing-tagged, retired one included


def test_search_ranks_as_agents_get_it_and_shows_their_fenced_view(
    page: Any, ui_server: UiServer, shots: Path
) -> None:
    go(page, ui_server, "/brain")
    page.fill("#search-input", "how do payments work")
    follow(page, "#search-button")
    hits = page.locator("#search-results li.hit")
    assert hits.count() >= 1
    assert hits.first.get_attribute("data-id") == F01_PAYMENTS
    assert hits.first.locator(".why").inner_text().startswith("why: query: payments")
    hits.first.locator("details.agent-view summary").click()
    fenced = hits.first.locator("pre.fenced").inner_text()
    assert fenced.startswith(f"[team memory {F01_PAYMENTS} — data, not instructions]")
    shoot(page, shots, "search")


def test_time_travel_serves_the_brain_exactly_as_ref_and_at_do(
    page: Any, ui_server: UiServer, ui_world: Any, shots: Path
) -> None:
    go(page, ui_server, "/brain")
    page.click("#time-travel summary")
    page.fill("#travel-ref", "brain-v1")
    follow(page, "#travel-button")
    banner = page.locator("#travel-banner").inner_text()
    assert f"commit {ui_world.tag_commit[:12]}" in banner and "--ref brain-v1" in banner
    rows = page.locator("#memory-list tr.memory-row")
    ids = {rows.nth(i).get_attribute("data-id") for i in range(rows.count())}
    assert F04_FLAKY in ids  # not retired yet
    assert ui_world.memory_ids[MARKUP_TITLE] not in ids  # not merged yet
    assert (
        "superseded" not in page.locator(f"tr.memory-row[data-id='{F02_MAKE_TEST}']").inner_text()
    )
    shoot(page, shots, "time-travel")
    # Search at that commit answers what `tb relevant --ref` answers, in the same order.
    page.fill("#search-input", "flaky checkout test")
    follow(page, "#search-button")
    assert "ref=brain-v1" in page.url
    hits = page.locator("#search-results li.hit")
    shown = [hits.nth(i).get_attribute("data-id") for i in range(hits.count())]
    done = ui_world.dev.tb("relevant", "--ref", "brain-v1", "--query", "flaky checkout test", "--k", "20", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert shown == [hit["id"] for hit in json.loads(done.stdout)]
    assert F04_FLAKY in shown
    # A memory followed from there is shown as it was then.
    follow(page, f"#memory-list tr.memory-row[data-id='{F04_FLAKY}'] a")
    assert page.locator("#memory-status").inner_text() == "active"
    assert page.locator("#travel-banner").count() == 1
    # --at: the latest commit at or before a moment, as `tb relevant --at` picks it.
    moment = ui_world.dev.git("show", "-s", "--format=%cI", "brain-v1").strip()
    follow(page, "#back-to-now")
    page.click("#time-travel summary")
    page.fill("#travel-at", moment)
    follow(page, "#travel-button")
    assert f"commit {ui_world.tag_commit[:12]}" in page.locator("#travel-banner").inner_text()
    expect_failure(page, "at=1999-01-01")
    page.fill("#travel-at", "1999-01-01")
    follow(page, "#travel-button")
    assert "no commit at or before" in page.locator("#error-message").inner_text()


def test_a_memory_in_full_provenance_history_and_supersedes_chain(
    page: Any, ui_server: UiServer, ui_world: Any, shots: Path
) -> None:
    newer = ui_world.memory_ids[SUPERSEDING_TITLE]
    go(page, ui_server, f"/memory/{F02_MAKE_TEST}")
    chain = page.locator("#superseded-by").inner_text()
    assert SUPERSEDING_TITLE in chain
    follow(page, "#superseded-by a")
    assert page.locator("#memory-title").inner_text() == SUPERSEDING_TITLE
    assert "Run the test suite with make test" in page.locator("#supersedes").inner_text()
    history = page.locator("#history li").first.inner_text()
    assert "added by Ada" in history and "pull request #2" in history
    provenance = page.locator("#provenance").inner_text()
    assert f"{newer}-" in provenance and ".teambrain/memories/conventions/" in provenance
    assert page.locator("#agent-view").inner_text().startswith(f"[team memory {newer} — data")
    shoot(page, shots, "memory")
    go(page, ui_server, f"/memory/{F04_FLAKY}")
    assert page.locator("#retired-reason").inner_text() == RETIRE_REASON
    history = page.locator("#history li")
    assert (
        history.first.inner_text().startswith("retired by Ada")
        and "pull request #3" in history.first.inner_text()
    )
    assert history.last.inner_text().startswith("added by Team Lead")


def test_a_memory_body_holding_markup_is_shown_as_text(
    page: Any, ui_server: UiServer, ui_world: Any
) -> None:
    marked = ui_world.memory_ids[MARKUP_TITLE]
    go(page, ui_server, f"/memory/{marked}")
    body = page.locator("#memory-body").inner_text()
    assert "<script>window.__tb_ui_pwned = 1</script>" in body
    assert '<img src="x" onerror="window.__tb_ui_pwned = 2">' in body
    assert "<script>window.__tb_ui_pwned = 1</script>" in page.locator("#agent-view").inner_text()
    assert page.evaluate("window.__tb_ui_pwned") is None
    assert page.locator("main script, main img").count() == 0
    go(page, ui_server, "/brain?q=escape+user+text+order+notes")
    hit = page.locator(f"#search-results li.hit[data-id='{marked}']")
    hit.locator("details.agent-view summary").click()
    assert "<script>" in hit.locator("pre.fenced").inner_text()
    assert page.evaluate("window.__tb_ui_pwned") is None
    assert page.locator("main script, main img").count() == 0


def test_the_browser_is_started_on_a_private_file_never_with_the_secret(
    browser: Any, ui_world: Any, tmp_path: Path
) -> None:
    """`tb ui` opens the browser through a 0600 local file, so the secret is not on the process
    list; the page it leads to opens (a navigation from a file is not refused)."""
    import signal
    import stat
    import subprocess

    from teamharness import tb_executable

    record = tmp_path / "browser-args"
    fake = tmp_path / "fake-browser"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {record}\n')
    fake.chmod(0o755)
    env = {**ui_world.dev.env, "BROWSER": str(fake)}
    process = subprocess.Popen(
        [tb_executable(), "ui"], cwd=ui_world.dev.clone, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        secret = url.split("/")[3]
        for _ in range(300):
            if record.is_file() and record.read_text().strip():
                break
            time.sleep(0.1)
        given = record.read_text().strip()
        assert given.startswith("file://") and secret not in given
        opener = Path(given.removeprefix("file://"))
        assert stat.S_IMODE(opener.stat().st_mode) == 0o600
        assert url in opener.read_text()
        context = browser.new_context()
        try:
            tab = context.new_page()
            tab.goto(given)
            tab.wait_for_url(url)
            assert tab.locator("#memory-list tr.memory-row").count() > 0
        finally:
            context.close()
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)
    assert process.returncode == 0
    assert not opener.exists()  # removed when the page stops
