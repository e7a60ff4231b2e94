"""The pages and actions of ``tb ui``: routes that gather data through the services (brain,
queue, stale, usage, sessions) and render it with autoescaping templates.

Text from the brain, the spool or git is always inserted as text: Jinja2 escapes every value
(``autoescape``), nothing is marked safe, and the guard's Content-Security-Policy forbids inline
script besides. Actions are POST forms, refused by the guard unless they come from this page.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import sys
import traceback
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from teambrain_schema import MEMORY_CLASSES

from .brain import SEARCH_K, Travel
from .context import UiContext
from .guard import Guard
from .live import LIVE_FRAME, LiveView

HERE = Path(__file__).resolve().parent
STATIC_TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
MAX_FORM_BYTES = 64 * 1024
DEBUG_ENV = "TEAMBRAIN_DEBUG"

SESSIONS_LIVE = LiveView(5, "every 5 seconds")
SESSION_LIVE = LiveView(5, "every 5 seconds while the session runs")


@dataclasses.dataclass(frozen=True)
class EditResult:
    """A candidate edited from the page: shown on the queue it returns to."""

    edited: str  # the candidate's id
    title: str


NAV = (
    ("brain", "Brain"),
    ("graph", "Graph"),
    ("queue", "Review queue"),
    ("stale", "Stale"),
    ("usage", "Usage"),
    ("sessions", "Sessions"),
)


# Characters no page shows, whatever text they come in (a title, a body, a commit subject or
# its author, a branch name, a search echoed): controls other than newline and tab, format
# characters (bidi overrides and isolates, zero-width joiners) and the invisible line breaks.
# A right-to-left override in an author's name would otherwise turn the rest of the line
# around (the date after it, the badges after a title); `tb show` drops the same characters.
_INVISIBLE = re.compile(r"[^\x20-\x7e\n\t]")
_INVISIBLE_BREAKS = frozenset("\u2028\u2029\u0085\ufeff")


def _shown_char(match: re.Match[str]) -> str:
    char = match.group()
    if char in _INVISIBLE_BREAKS or unicodedata.category(char) in ("Cc", "Cf"):
        return ""
    return char


def shown_text(value: object) -> object:
    """Every value a template prints, before it is escaped: text without the characters of
    :data:`_INVISIBLE` (other values are left to Jinja). Markup a filter made (``join``
    escapes what it joins) is taken back to its text first, then escaped again as text."""
    if not isinstance(value, str):
        return value
    from markupsafe import Markup

    text = value.unescape() if isinstance(value, Markup) else value
    return _INVISIBLE.sub(_shown_char, text)


def _templates() -> Any:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        finalize=shown_text,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    from teambrain_capture import safe_sid
    from teambrain_schema.secrets import redact_secrets

    env.filters["short"] = lambda sha: (sha or "")[:12]
    env.filters["session_key"] = safe_sid
    env.filters["redacted"] = redact_secrets  # a queued draft is checked, not yet trusted
    env.filters["web_url"] = lambda url: (
        url if str(url).startswith(("https://", "http://")) else None
    )
    env.filters["when"] = _when
    env.filters["day"] = _day
    env.filters["markdown"] = _markdown
    return env


def _when(moment: dt.datetime | None) -> object:
    """A moment as ``<time>`` that never wraps (``2026-07-01 09:30 UTC``), how long ago in its
    title."""
    from .markdown import SafeHtml

    if not moment:
        return ""
    moment = moment.astimezone(dt.UTC)
    ago = max(0.0, (dt.datetime.now(dt.UTC) - moment).total_seconds())
    iso = moment.isoformat().replace("+00:00", "Z")
    text = moment.strftime("%Y-%m-%d %H:%M UTC")
    return SafeHtml(f'<time class="date" datetime="{iso}" title="{_age(ago)} ago">{text}</time>')


def _day(day: object) -> object:
    """A date (``2026-07-01``) as ``<time>`` that never wraps."""
    from .markdown import SafeHtml

    if isinstance(day, dt.datetime):
        day = day.date()
    if isinstance(day, str):
        try:
            day = dt.date.fromisoformat(day)
        except ValueError:
            return day
    if not isinstance(day, dt.date):
        return day
    return SafeHtml(f'<time class="date" datetime="{day.isoformat()}">{day.isoformat()}</time>')


def _age(seconds: float) -> str:
    for limit, unit, size in ((120, "s", 1), (7200, "min", 60), (172800, "h", 3600)):
        if seconds < limit:
            return f"{int(seconds // size)} {unit}"
    return f"{int(seconds // 86400)} days"


def _markdown(text: object) -> object:
    """A body as safe Markdown HTML (markdown.py), its invisible characters dropped first as
    every other printed value's are."""
    from .markdown import SafeHtml, render_markdown

    return SafeHtml(render_markdown(str(shown_text(str(text)))))


class Pages:
    """The handlers, sharing one :class:`UiContext` and one template environment."""

    def __init__(self, ctx: UiContext) -> None:
        self.ctx = ctx
        self.env = _templates()

    # ------------------------------------------------------------------ plumbing

    def render(self, template: str, request: Request, *, status: int = 200, **values: Any) -> HTMLResponse:  # fmt: skip
        """A page: ``template`` with the values every page has (base, nav, repository)."""
        section = template.split(".", 1)[0].split("_", 1)[0]
        html = self.env.get_template(template).render(
            base=self.ctx.base, nav=NAV, section=section, repo_name=self.ctx.repo_root.name,
            repo_root=str(self.ctx.repo_root), query=dict(request.query_params),
            link=self.link, live=getattr(request.state, "live", None), **values,
        )  # fmt: skip
        return HTMLResponse(html, status_code=status)

    def link(self, path: str, **params: object) -> str:
        """An address of this server: the secret prefix, ``path`` and the non-empty params."""
        kept = {k: v for k, v in params.items() if v not in (None, "", False)}
        query = f"?{urlencode(kept, doseq=True)}" if kept else ""
        return f"{self.ctx.base}{path}{query}"

    def failure(self, request: Request, exc: BaseException) -> HTMLResponse:
        """The error page: a user's mistake or an environment problem as one line (the CLI's
        message and exit code), anything else as an internal error named in one line."""
        from teambrain_schema import ExitCode, TeambrainError

        if isinstance(exc, TeambrainError):
            status = (
                400 if exc.exit_code in (ExitCode.USER_ERROR, ExitCode.VALIDATION_FAILURE) else 500
            )
            return self.render("error.html", request, status=status, message=exc.message, code=int(exc.exit_code))  # fmt: skip
        if os.environ.get(DEBUG_ENV):
            traceback.print_exception(exc, file=sys.stderr)
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        message = f"internal error: {exc.__class__.__name__}{': ' + detail if detail else ''}"
        print(f"tb ui: {message} (set {DEBUG_ENV}=1 for a traceback)", file=sys.stderr)
        return self.render("error.html", request, status=500, message=message, code=2)

    def page(self, build: Callable[[Request], Response]) -> Callable[[Request], Any]:
        """A GET handler: ``build`` runs on a worker thread under the context's lock."""

        async def handler(request: Request) -> Response:
            def work() -> Response:
                with self.ctx.locked():
                    return build(request)

            try:
                return await run_in_threadpool(work)
            except Exception as exc:
                return self.failure(request, exc)

        return handler

    def live(self, build: Callable[[Request], Response], view: LiveView) -> Callable[[Request], Any]:  # fmt: skip
        """A GET handler for a page that reloads itself (live.py): its answer carries
        ``Refresh: <s>`` — unless ``build`` turned it off for this answer
        (``request.state.live = None``: a session that has ended)."""

        def reloading(request: Request) -> Response:
            request.state.live = view
            response = build(request)
            if request.state.live is not None and response.status_code == 200:
                response.headers["Refresh"] = str(view.delay_s)
            return response

        return self.page(reloading)

    def action(self, act: Callable[[Request, dict[str, list[str]]], Response]) -> Callable[[Request], Any]:  # fmt: skip
        """A POST handler: the form read (urlencoded, at most 64 KiB), then ``act`` like a page."""

        async def handler(request: Request) -> Response:
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/x-www-form-urlencoded":
                return Response("refused: a form post was expected\n", 415, media_type="text/plain")
            body = b""
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_FORM_BYTES:
                    return Response("refused: form too large\n", 413, media_type="text/plain")
            form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=False)

            def work() -> Response:
                with self.ctx.locked():
                    return act(request, form)

            try:
                return await run_in_threadpool(work)
            except Exception as exc:
                return self.failure(request, exc)

        return handler

    def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        suffix = Path(name).suffix
        path = HERE / "static" / name
        if "/" in name or suffix not in STATIC_TYPES or not path.is_file():
            return Response("not found\n", 404, media_type="text/plain")
        return Response(path.read_bytes(), media_type=STATIC_TYPES[suffix])

    def not_found(self, request: Request, exc: Exception) -> Response:
        return self.render("error.html", request, status=404, message="no such page", code=1)

    # ------------------------------------------------------------------ pages

    def home(self, request: Request) -> Response:
        return RedirectResponse(self.link("/brain"), status_code=303)

    def stale(self, request: Request) -> Response:
        from .stale import stale_rows

        browsed = self.ctx.listing()  # which may be stale, from the index: their files only
        browsed.check_all()
        paths = {row.path for row in browsed.listing.memories if browsed.stale.get(row.id)}
        rows = stale_rows(self.ctx.layout, paths)
        result = self.ctx.recall(request.query_params.get("result"))
        return self.render("stale.html", request, rows=rows, result=result)

    def fix_citations(self, request: Request, form: dict[str, list[str]]) -> Response:
        from .stale import open_fix_review

        result = open_fix_review(self.ctx.repo_root, self.ctx.machine.proposals)
        return RedirectResponse(self.link("/stale", result=self.ctx.remember(result)), 303)

    def usage(self, request: Request) -> Response:
        from .._reports.cells import Audience
        from .charts import CHART_BASELINE
        from .usage import WINDOWS, usage_page

        since = request.query_params.get("since") or WINDOWS[0]
        everywhere = request.query_params.get("repo") == "all"
        shared = request.query_params.get("view") == "shared"
        data = usage_page(
            self.ctx.machine, since=since, repo=None if everywhere else self.ctx.repo_keys,
            this_repo=self.ctx.repo_key, titles_of=self.titles_of,
            link=lambda memory_id: self.link(f"/memory/{memory_id}"),
            audience=Audience.SHARED if shared else Audience.OWN,
        )  # fmt: skip
        return self.render(
            "usage.html", request, page=data, windows=WINDOWS, everywhere=everywhere,
            baseline=CHART_BASELINE,
        )  # fmt: skip

    def team_usage(self, request: Request) -> Response:
        from .usage import TEAM_WINDOWS, team_page

        since = request.query_params.get("since") or TEAM_WINDOWS[1]
        data = team_page(
            self.ctx.layout, self.ctx.machine, since=since, titles_of=self.titles_of,
            link=lambda memory_id: self.link(f"/memory/{memory_id}"),
        )  # fmt: skip
        return self.render("team_usage.html", request, page=data, windows=TEAM_WINDOWS)

    def titles_of(self, ids: list[str]) -> dict[str, str]:
        """The titles the checkout's brain gives memory ids (ids it does not hold are left out)."""
        rows = {row.id: row.title for row in self.ctx.listing().listing.memories}
        return {memory_id: rows[memory_id] for memory_id in ids if memory_id in rows}

    def sessions(self, request: Request) -> Response:
        from .sessions import sessions_left_out

        everywhere = request.query_params.get("repo") == "all"
        rows, unread = sessions_left_out(
            self.ctx.machine, None if everywhere else self.ctx.repo_keys
        )
        return self.render("sessions.html", request, rows=rows, unread=unread, everywhere=everywhere)  # fmt: skip

    def session(self, request: Request) -> Response:
        from .sessions import explain_session

        explanation = explain_session(self.ctx.machine, request.path_params["key"])
        if explanation is not None and not explanation.running:
            request.state.live = None  # it has ended: nothing more will come
        if explanation is None:
            return self.render("error.html", request, status=404, message="no such session in this machine's spool", code=1)  # fmt: skip
        titles = self.past_titles(explanation.brain_commits, [i for r in explanation.retrievals for i in r.ids])  # fmt: skip
        return self.render("session.html", request, s=explanation, titles=titles)

    def past_titles(self, commits: list[str], ids: list[str]) -> dict[tuple[str | None, str], str]:
        """(commit, id) → the title that memory had at that commit, and (None, id) → its title
        now; a commit this repository does not have names nothing."""
        from teambrain_schema import TeambrainError
        from teambrain_sync import open_repo, resolve_commit

        titles: dict[tuple[str | None, str], str] = {
            (None, memory_id): title for memory_id, title in self.titles_of(ids).items()
        }
        repo = open_repo(self.ctx.repo_root)
        for commit in commits:
            try:
                past = self.ctx.past(resolve_commit(repo, commit))
            except TeambrainError:
                continue
            for row in self.ctx.past_listing(past).listing.memories:
                titles[(commit, row.id)] = row.title
        return titles

    # ------------------------------------------------------------------ the brain

    def travel(self, request: Request) -> Travel | None:
        """Where in time the page asks to be (``?ref=`` / ``?at=``), or None for now."""
        from .._console.travel import resolve_moment

        ref = request.query_params.get("ref") or None
        at = request.query_params.get("at") or None
        if ref is None and at is None:
            return None
        return Travel(ref, at, resolve_moment(ref, at, self.ctx.repo_root))

    def brain(self, request: Request) -> Response:
        from .brain import browse, search_hits, wanted_from

        params = request.query_params
        travel = self.travel(request)
        past = self.ctx.past(travel.commit) if travel else None
        browsed = self.ctx.past_listing(past) if past else self.ctx.listing()
        wanted = wanted_from(params)
        try:
            number = int(params.get("page") or 1)
        except ValueError:
            number = 1
        page = browse(browsed, wanted, number)
        query = (params.get("q") or "").strip()
        if query:
            retriever = self.ctx.past_retriever(past) if past else self.ctx.retriever()
            page.query = query
            page.hits = search_hits(retriever.search(query, SEARCH_K), query)
        keep = self.keep(request)

        def here(**changes: object) -> str:
            """This listing with some parameters changed (and back to its first page)."""
            return self.link("/brain", **{**keep, "page": None, **changes})

        return self.render("brain.html", request, page=page, wanted=wanted, travel=travel, keep=keep, here=here)  # fmt: skip

    def keep(self, request: Request) -> dict[str, str]:
        """The query parameters a link within the brain view carries on (time travel, filters)."""
        names = ("ref", "at", "class", "tag", "scope", "priority", "status", "stale", "q")
        return {n: v for n in names if (v := request.query_params.get(n) or "")}

    def memory(self, request: Request) -> Response:
        from .._browse import find_memory_id, show_listed
        from .brain import marked

        travel = self.travel(request)
        browsed = self.ctx.past_listing(self.ctx.past(travel.commit)) if travel else self.ctx.listing()  # fmt: skip
        rows = browsed.listing.memories
        memory_id = find_memory_id([row.id for row in rows], request.path_params["memory_id"])
        browsed.check({memory_id})
        detail = show_listed(browsed.view, browsed.listing, memory_id)
        detail = dataclasses.replace(detail, summary=marked(detail.summary, browsed.stale))
        return self.render("memory.html", request, m=detail, travel=travel, keep=self.keep(request))  # fmt: skip

    # ------------------------------------------------------------------ the graph

    def _graph_layout(self, request: Request) -> Any:
        travel = self.travel(request)
        layout = self.ctx.past(travel.commit).view.layout if travel else self.ctx.layout
        return travel, layout

    def graph(self, request: Request) -> Response:
        from .._browse.graph import list_nodes, load_brain_graph

        travel, layout = self._graph_layout(request)
        nodes = list_nodes(load_brain_graph(layout))
        return self.render("graph.html", request, nodes=nodes, travel=travel, keep=self.keep(request))  # fmt: skip

    def node(self, request: Request) -> Response:
        from .._browse.graph import load_brain_graph, node_view
        from .graph import draw

        travel, layout = self._graph_layout(request)
        try:
            depth = int(request.query_params.get("depth") or 1)
        except ValueError:
            depth = 1
        view = node_view(
            load_brain_graph(layout), request.path_params["node_id"], max(1, min(depth, 4))
        )
        return self.render("node.html", request, view=view, drawing=draw(view), travel=travel, keep=self.keep(request))  # fmt: skip

    # ------------------------------------------------------------------ the queue

    def queue(self, request: Request) -> Response:
        from .queue import proposals_view, queue_view

        stamp = self.queue_stamp()  # before the checks: a change while they run shows at once
        browsed = self.ctx.listing()  # the index's catalog: the brain's contents, no file read
        view = queue_view(
            self.ctx.machine, self.ctx.layout, self.ctx.repo_keys, retriever=self.ctx.retriever(),
            catalog=browsed.catalog, titles={row.id: row.title for row in browsed.listing.memories},
        )  # fmt: skip
        proposals = proposals_view(
            self.ctx.machine, self.ctx.repo_root, ask_gh=request.query_params.get("gh") == "1"
        )
        result = self.ctx.recall(request.query_params.get("result"))
        # Enter on a ticked box shows the page again with the same ticks and reason (see
        # queue.html): nothing is done.
        params = request.query_params
        picked = params.getlist("id") if params.get("picked") else None
        return self.render(
            "queue.html", request, view=view, proposals=proposals, result=result,
            picked=picked, reason=params.get("reason") or "", stamp=stamp,
        )  # fmt: skip

    def queue_stamp(self) -> str:
        from .live import queue_stamp

        return queue_stamp(self.ctx.machine.candidates, self.ctx.repo_root)

    def queue_frame(self, request: Request) -> Response:
        """The queue page's live frame: whether the queue changed since the page was made
        (``since``: its fingerprint); reloading itself until it did."""
        from .live import FRAME_REFRESH_S

        changed = self.queue_stamp() != (request.query_params.get("since") or "")
        now = dt.datetime.now(dt.UTC)
        response = self.render("live_frame.html", request, changed=changed, checked=now)
        if not changed:
            response.headers["Refresh"] = str(FRAME_REFRESH_S)
        return response

    def propose(self, request: Request, form: dict[str, list[str]]) -> Response:
        from .queue import propose_chosen

        result = propose_chosen(
            self.ctx.machine, self.ctx.repo_root, self.ctx.repo_keys, form.get("id", []),
            allow_similar=bool(form.get("allow_similar")),
        )  # fmt: skip
        return RedirectResponse(self.link("/queue", result=self.ctx.remember(result)), 303)

    def drop(self, request: Request, form: dict[str, list[str]]) -> Response:
        from .queue import drop_chosen

        reason = (form.get("reason") or [""])[0].strip() or None
        result = drop_chosen(self.ctx.machine, self.ctx.repo_keys, form.get("id", []), reason)
        return RedirectResponse(self.link("/queue", result=self.ctx.remember(result)), 303)

    def edit(self, request: Request) -> Response:
        from .queue import edit_form

        form = edit_form(self.ctx.machine, self.ctx.repo_key, request.path_params["candidate_id"])
        return self.render("edit.html", request, form=form, classes=MEMORY_CLASSES)

    def save_edit(self, request: Request, form: dict[str, list[str]]) -> Response:
        from .queue import EditForm, save_edit

        candidate_id = request.path_params["candidate_id"]
        saved = save_edit(self.ctx.machine, self.ctx.repo_key, candidate_id, form)
        if isinstance(saved, EditForm):  # refused: the form again, what was typed, and why
            return self.render("edit.html", request, status=400, form=saved, classes=MEMORY_CLASSES)  # fmt: skip
        result = EditResult(saved.candidate_id, saved.draft.title)
        target = self.link("/queue", result=self.ctx.remember(result))
        return RedirectResponse(f"{target}#candidate-{saved.candidate_id}", 303)

    def warm(self) -> None:
        """Prepare the first page before anyone asks: the index opened and refreshed, the
        listing made, its first rows checked, the template compiled."""
        from .brain import browse, wanted_from

        with self.ctx.locked():
            browse(self.ctx.listing(), wanted_from({}), 1)
            self.env.get_template("brain.html")

    # ------------------------------------------------------------------ the app

    def routes(self) -> list[Route]:
        page, action = self.page, self.action
        return [
            Route("/", page(self.home)),
            Route("/brain", page(self.brain)),
            Route("/memory/{memory_id}", page(self.memory)),
            Route("/graph", page(self.graph)),
            Route("/graph/{node_id:path}", page(self.node)),
            Route("/stale", page(self.stale)),
            Route("/stale/fix", action(self.fix_citations), methods=["POST"]),
            Route("/usage", page(self.usage)),
            Route("/usage/team", page(self.team_usage)),
            Route("/sessions", self.live(self.sessions, SESSIONS_LIVE)),
            Route("/sessions/{key}", self.live(self.session, SESSION_LIVE)),
            Route("/queue", page(self.queue)),
            Route(LIVE_FRAME, page(self.queue_frame)),
            Route("/queue/propose", action(self.propose), methods=["POST"]),
            Route("/queue/drop", action(self.drop), methods=["POST"]),
            Route("/queue/edit/{candidate_id}", page(self.edit)),
            Route("/queue/edit/{candidate_id}", action(self.save_edit), methods=["POST"]),
            Route("/static/{name}", self.static),
        ]


def build_app(ctx: UiContext) -> tuple[Guard, Callable[[], None]]:
    """The whole ASGI application of one run (the pages behind the guard), and what to run
    once it listens so the first page finds everything ready."""
    pages = Pages(ctx)
    app = Starlette(routes=pages.routes(), exception_handlers={404: pages.not_found})
    return Guard(app, secret=ctx.secret, port=ctx.port), pages.warm
