"""``tb ui`` over plain HTTP, from the installed ``tb`` on a real repository: it listens on
127.0.0.1 only, on a random port, and refuses a request without this run's secret, from another
Host (DNS rebinding) or another Origin (CSRF) — and an action refused changes nothing."""

from __future__ import annotations

import http.client
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
from teamharness import tb_executable
from uiworld import F03_CHECKOUT_MAP, UiServer, start_ui

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def call(
    server: UiServer, method: str, path: str, headers: dict[str, str] | None = None,
    body: bytes = b"", host: str | None = None,
) -> tuple[int, dict[str, str], str]:  # fmt: skip
    """One request with exactly the headers given (``Host`` as the browser would send it,
    unless ``host`` says otherwise)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", host if host is not None else f"127.0.0.1:{server.port}")
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return (
            response.status,
            {k.lower(): v for k, v in response.getheaders()},
            response.read().decode(),
        )
    finally:
        connection.close()


def branches(ui_world: Any) -> set[str]:
    return set(ui_world.dev.git("branch", "--format=%(refname:short)").split())


def test_the_pages_answer_under_the_secret_and_nothing_answers_without_it(
    ui_server: UiServer,
) -> None:
    secret = ui_server.secret
    for page in (
        "/brain",
        "/queue",
        "/stale",
        "/usage",
        "/usage/team",
        "/sessions",
        "/static/ui.css",
    ):
        status, headers, _ = call(ui_server, "GET", f"/{secret}{page}")
        assert status == 200, page
        assert "default-src 'none'" in headers["content-security-policy"]
        for name in ("x-frame-options", "referrer-policy", "x-content-type-options"):
            assert name in headers
    for path in ("/", "/brain", "/static/ui.css", f"/{secret[:-1]}/brain", f"/{secret}x/brain",
                 f"/brain/{secret}", f"/?token={secret}"):  # fmt: skip
        status, _, body = call(ui_server, "GET", path)
        assert status == 403, path
        assert secret not in body and "teambrain" not in body


@pytest.mark.parametrize(
    "host", ["evil.example", "rebind.attacker.example:{port}", "127.0.0.1:1", "[::1]:{port}"]
)
def test_a_request_for_another_host_is_refused(ui_server: UiServer, host: str) -> None:
    """A DNS-rebinding page reaches 127.0.0.1 under its own name, with the secret guessed or
    not: its Host gives it away."""
    status, _, body = call(ui_server, "GET", f"/{ui_server.secret}/brain", host=host.format(port=ui_server.port))  # fmt: skip
    assert status == 403
    assert "Host" in body


def test_a_page_or_an_action_from_another_origin_is_refused_and_changes_nothing(
    ui_server: UiServer, ui_world: Any
) -> None:
    secret = ui_server.secret
    status, _, _ = call(ui_server, "GET", f"/{secret}/queue", {"Origin": "http://evil.example"})
    assert status == 403
    before = branches(ui_world)
    for headers in (
        {**FORM, "Origin": "http://evil.example"},  # another site's form
        {**FORM, "Origin": f"http://127.0.0.1:{ui_server.port + 1}"},  # another local server
        {**FORM, "Origin": ui_server.origin, "Sec-Fetch-Site": "cross-site"},
        dict(FORM),  # no Origin and no Referer at all
        {**FORM, "Referer": f"http://evil.example/{secret}/stale"},
    ):
        status, _, _ = call(ui_server, "POST", f"/{secret}/stale/fix", headers)
        assert status == 403, headers
    assert branches(ui_world) == before  # no fix-citations branch was made


def test_an_action_needs_a_form_post_and_other_methods_are_refused(ui_server: UiServer) -> None:
    secret = ui_server.secret
    own = {"Origin": ui_server.origin}
    status, _, _ = call(ui_server, "POST", f"/{secret}/stale/fix", {**own, "Content-Type": "application/json"}, b"{}")  # fmt: skip
    assert status == 415
    status, _, _ = call(ui_server, "POST", f"/{secret}/queue/propose", {**own, **FORM}, b"id=" + b"x" * 70000)  # fmt: skip
    assert status == 413
    for method in ("PUT", "DELETE", "PATCH"):
        status, _, _ = call(ui_server, method, f"/{secret}/queue", own)
        assert status == 405
    status, _, _ = call(ui_server, "GET", f"/{secret}/stale/fix")
    assert status == 405


def test_it_listens_on_127_0_0_1_only(ui_server: UiServer) -> None:
    """The listening socket in the kernel's table: 127.0.0.1, nothing on any other address."""
    table = Path("/proc/net/tcp")
    if not table.is_file():
        pytest.skip("no /proc/net/tcp on this system to read listening sockets from")
    port = f"{ui_server.port:04X}"
    listening = [
        line.split()[1] for line in table.read_text().splitlines()[1:]
        if line.split()[1].endswith(f":{port}") and line.split()[3] == "0A"
    ]  # fmt: skip
    assert listening == [f"0100007F:{port}"]
    six = Path("/proc/net/tcp6")
    if six.is_file():
        assert not [
            line
            for line in six.read_text().splitlines()[1:]
            if line.split()[1].endswith(f":{port}")
        ]


def test_each_run_has_its_own_port_and_secret_and_ctrl_c_stops_it(
    ui_world: Any, ui_server: UiServer
) -> None:
    other = start_ui(ui_world.dev)
    try:
        assert other.port != ui_server.port
        assert other.secret != ui_server.secret and len(other.secret) >= 32
        status, _, _ = call(other, "GET", f"/{ui_server.secret}/brain")
        assert status == 403  # one run's secret opens no other run
    finally:
        err = other.stop()
    assert other.process.returncode == 0
    assert err.strip().endswith("tb ui: stopped.")
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", other.port), timeout=2).close()


def test_a_port_asked_for_is_used_and_one_in_use_is_an_environment_error(ui_world: Any) -> None:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    busy = holder.getsockname()[1]
    try:
        done = ui_world.dev.tb("ui", "--no-browser", "--port", str(busy))
        assert done.returncode == 2
        assert done.stderr.strip().startswith(f"tb: cannot listen on 127.0.0.1:{busy}")
        assert len(done.stderr.strip().splitlines()) == 1 and not done.stdout
    finally:
        holder.close()
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()
    server = start_ui(ui_world.dev, "--port", str(port))
    try:
        assert server.port == port
    finally:
        server.stop()


def test_bad_arguments_and_places_fail_in_one_line_with_the_contracts_codes(
    ui_world: Any, tmp_path: Path
) -> None:
    dev = ui_world.dev
    done = dev.tb("ui", "--no-browser", "--at", "not-a-moment")
    assert done.returncode == 1 and "--at" in done.stderr and not done.stdout
    done = dev.tb("ui", "--no-browser", "--ref", "no-such-branch")
    assert done.returncode == 1 and "no-such-branch" in done.stderr
    done = dev.tb("ui", "--no-browser", "--port", "70000")
    assert done.returncode == 1
    bare = tmp_path / "no-brain"
    bare.mkdir()
    subprocess.run(["git", "init", "-q", str(bare)], check=True, env=dev.env)
    done = dev.tb("ui", "--no-browser", cwd=bare)
    assert done.returncode == 2 and "tb init" in done.stderr
    done = dev.tb("ui", "--no-browser", cwd=tmp_path)
    assert done.returncode == 2 and "not inside a git repository" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_ref_or_moment_without_a_brain_fails_at_once_as_tb_relevant_does(ui_world: Any) -> None:
    """A commit from before the brain (here one with an empty tree) is a user error before
    anything listens, as `tb relevant --ref` makes it: no address printed, no page that can only
    say the same."""
    dev = ui_world.dev
    empty_tree = dev.git("mktree", input="").strip()
    before_the_brain = dev.git("commit-tree", empty_tree, "-m", "before the brain").strip()
    relevant = dev.tb("relevant", "--ref", before_the_brain, "--query", "payments")
    assert relevant.returncode == 1, relevant.stderr
    try:
        done = subprocess.run(
            [tb_executable(), "ui", "--no-browser", "--ref", before_the_brain], cwd=dev.clone,
            env=dev.env, capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as served:
        raise AssertionError(f"tb ui served a brain that is not there: {served.stdout!r}") from None
    assert done.returncode == 1, done.stderr
    assert not done.stdout
    assert done.stderr.strip().splitlines()[-1] == relevant.stderr.strip().splitlines()[-1]
    assert "did not exist yet" in done.stderr and "Traceback" not in done.stderr


def test_the_stale_view_names_the_moved_citation_and_its_fix(ui_server: UiServer) -> None:
    status, _, page = call(ui_server, "GET", f"/{ui_server.secret}/stale")
    assert status == 200
    assert F03_CHECKOUT_MAP in page
    assert "`src/shop/basket/`" in page  # where git says the cited folder went


def test_no_browser_is_started_without_a_display(ui_world: Any) -> None:
    """Without --no-browser on a machine with no desktop, the address is printed and no
    (text) browser takes over the terminal."""
    env = {
        k: v
        for k, v in ui_world.dev.env.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")
    }
    process = subprocess.Popen(
        [tb_executable(), "ui"], cwd=ui_world.dev.clone, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith("http://127.0.0.1:")
        said = [process.stderr.readline() for _ in range(2)]  # serving…, then the browser line
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    assert "no browser to open here" in said[1]
    assert process.returncode == 0


def test_an_edit_from_another_origin_is_refused_and_the_candidate_is_untouched(
    ui_server: UiServer, ui_world: Any
) -> None:
    """The queue's edit form (issue 42 point 2) is an action like the others: another site's
    form, another local server or a missing Origin changes nothing."""
    from urllib.parse import urlencode

    from uiworld import INJECTION

    cid = ui_world.candidates[INJECTION]  # stays pending in every test
    path = ui_world.dev.machine().candidate_file(cid)
    before = path.read_bytes()
    body = urlencode({"title": "Hijacked", "body": "Run anything.", "class": "learning",
                      "priority": "advisory", "scope": "team", "tags": ""}).encode()  # fmt: skip
    for headers in (
        {**FORM, "Origin": "http://evil.example"},
        {**FORM, "Origin": f"http://127.0.0.1:{ui_server.port + 1}"},
        dict(FORM),
    ):
        status, _, _ = call(ui_server, "POST", f"/{ui_server.secret}/queue/edit/{cid}", headers, body)  # fmt: skip
        assert status == 403, headers
    assert path.read_bytes() == before
    # The edit page itself is a page like the others, and the queue's live line the one
    # answer another page of this server may frame.
    status, headers, page = call(ui_server, "GET", f"/{ui_server.secret}/queue/edit/{cid}")
    assert status == 200 and "frame-ancestors 'none'" in headers["content-security-policy"]
    assert 'name="body"' in page
    status, headers, _ = call(ui_server, "GET", f"/{ui_server.secret}/live/queue?since=x")
    assert status == 200 and headers["x-frame-options"] == "SAMEORIGIN"
    assert "frame-ancestors 'self'" in headers["content-security-policy"]
