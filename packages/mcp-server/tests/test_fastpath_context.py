"""The first ``memory_context`` answered before the SDK loads (issue 38, "under a second"): the
fast path's answer is the SDK's, byte for byte, for the same request on the same brain; any
argument, key or name it cannot prove the SDK answers alike is handed over unanswered; a
cancellation drops its answer as the SDK's does; closing stdin still gets it.

Both paths run in this process over pipes, as ``tb serve`` runs them over stdio: the fast path
(``serve_fast`` with the service's calls offered, the SDK's build never finishing) and then
the SDK's server from where the fast path handed over; the SDK alone with the fast path off."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_mcp_server._fastcall import context_answer
from teambrain_mcp_server._fastpath import (
    DISABLE_ENV,
    FastTools,
    ToolAnswer,
    context_call,
    serve_fast,
)
from teambrain_mcp_server._handover import serve_on_wire
from teambrain_mcp_server._meta import package_version
from teambrain_mcp_server._server import TeambrainServer, build_server
from teambrain_mcp_server._stdio import StdioWire
from teambrain_schema import BRAIN_YAML_TEMPLATE, MEMORY_CLASSES

ROOT = Path(__file__).resolve().parents[3]
END_S = 30  # a bound against hanging forever, not a timing assertion
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def initialize(revision: str = "2025-06-18") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": revision, "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip


class Conversation:
    """One client on one wire: the fast path (``fast``) then the SDK, or the SDK alone."""

    def __init__(
        self, server: TeambrainServer, *, fast: bool,
        context: Callable[[], ToolAnswer] | None = None,
    ) -> None:  # fmt: skip
        read_in, self._write_in = os.pipe()
        self._read_out, write_out = os.pipe()
        self._write_out = write_out
        self._read_in = read_in
        self.wire = StdioWire(read_in, write_out)
        self.wire.start()
        self.failure: list[BaseException] = []
        tools = FastTools()
        tools.offer(context or (lambda: context_answer(server.service)))

        def run() -> None:
            try:
                previous = os.environ.get(DISABLE_ENV)
                os.environ[DISABLE_ENV] = "1" if fast else "0"
                try:
                    replay, pending = serve_fast(
                        self.wire, threading.Event(), package_version(), tools
                    )
                finally:
                    if previous is None:
                        del os.environ[DISABLE_ENV]
                    else:
                        os.environ[DISABLE_ENV] = previous
                serve_on_wire(server, self.wire, replay, pending)
            except EOFError:  # stdin closed before anything needed the SDK: tb serve exits 0
                pass
            except BaseException as exc:
                self.failure.append(exc)

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        self._stdin = os.fdopen(self._write_in, "wb")
        self._stdout = os.fdopen(self._read_out, "rb")
        self._lines: list[str] = []

    def read_line(self) -> dict[str, Any]:
        """The next line the server wrote (kept for :meth:`close`)."""
        line = self._stdout.readline().decode("utf-8").rstrip("\n")
        self._lines.append(line)
        message: dict[str, Any] = json.loads(line)
        return message

    def send(self, *messages: dict[str, Any]) -> None:
        for message in messages:
            self._stdin.write((json.dumps(message) + "\n").encode("utf-8"))
        self._stdin.flush()

    def close(self) -> list[str]:
        """Close stdin; the lines written, once the conversation ended."""
        # The rest of stdout is read while the server finishes, as a client does: a pipe holds
        # 64 KiB, and a server blocked writing to a full pipe would never end.
        rest: list[bytes] = []
        reader = threading.Thread(target=lambda: rest.append(self._stdout.read()), daemon=True)
        reader.start()
        self._stdin.close()
        self._thread.join(END_S)
        assert not self._thread.is_alive(), f"still serving {END_S} s after stdin closed"
        os.close(self._write_out)
        reader.join(END_S)
        assert not reader.is_alive(), "stdout still open after the conversation ended"
        self._stdout.close()
        out = rest[0].decode("utf-8")
        os.close(self._read_in)
        assert not self.failure, self.failure
        return [*self._lines, *(line for line in out.split("\n") if line.strip())]


def converse(
    server: TeambrainServer, messages: list[dict[str, Any]], *, fast: bool,
    context: Callable[[], ToolAnswer] | None = None,
) -> list[str]:  # fmt: skip
    conversation = Conversation(server, fast=fast, context=context)
    conversation.send(*messages)
    return conversation.close()


def by_id(lines: list[str]) -> dict[Any, str]:
    """The lines that answer a request, by its id (sorted by the text of the id)."""
    found = {}
    for line in lines:
        message = json.loads(line)
        found[json.dumps(message.get("id"))] = line
    return dict(sorted(found.items()))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TeambrainServer]:
    """An SDK server on a committed brain holding the demo memories, a session at work."""
    repo = tmp_path_factory.mktemp("repo")
    layout = BrainLayout(repo)
    for memory_class in MEMORY_CLASSES:
        layout.class_dir(memory_class).mkdir(parents=True, exist_ok=True)
    layout.retired.mkdir(parents=True, exist_ok=True)
    layout.brain_yaml.write_text(
        BRAIN_YAML_TEMPLATE.replace("    provider: local\n", "    provider: none\n")
    )
    shutil.copytree(ROOT / "demo" / "brain" / "memories", layout.memories, dirs_exist_ok=True)
    cart = repo / "src" / "shop" / "checkout" / "cart.py"
    cart.parent.mkdir(parents=True)
    cart.write_text("def total():\n    pass\n")
    (repo / "src" / "shop" / "cache.py").write_text("POOL = 10\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "brain"],
                 ["checkout", "-q", "-b", "fix/checkout-discounts"]):  # fmt: skip
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    cart.write_text("def total():\n    return 1\n")
    (repo / "src" / "shop" / "cache.py").write_text("POOL = 20\n")
    machine = MachineLayout(tmp_path_factory.mktemp("home"))
    yield build_server(repo, machine=machine, heartbeat=False)


CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "memory_context", "arguments": {}}}  # fmt: skip


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
@pytest.mark.parametrize(
    "params",
    [{"name": "memory_context", "arguments": {}}, {"name": "memory_context"}],
    ids=["empty-arguments", "no-arguments"],
)
def test_the_fast_answer_is_the_sdks_byte_for_byte(
    server: TeambrainServer, revision: str, params: dict[str, Any]
) -> None:
    calls: list[ToolAnswer] = []

    def counted() -> ToolAnswer:
        calls.append(context_answer(server.service))
        return calls[-1]

    messages = [initialize(revision), INITIALIZED, {**CALL, "params": params}]
    fast = by_id(converse(server, messages, fast=True, context=counted))
    sdk = by_id(converse(server, messages, fast=False))
    assert len(calls) == 1, "the fast path did not answer the call"
    assert fast == sdk
    answer = json.loads(fast["1"])["result"]
    assert answer["isError"] is False
    assert answer["structuredContent"]["relevant"], "a session at work gets relevant memories"
    assert answer["content"][0]["text"].startswith(answer["structuredContent"]["notice"])


json_leaf = st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=4)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=4), inner, max_size=2),
    max_leaves=4,
)  # fmt: skip
arguments = st.sampled_from([{}, None, [], "", 0]) | st.dictionaries(
    st.sampled_from(["k", "query", "repo", "_meta", ""]) | st.text(max_size=4), json_value,
    min_size=1, max_size=2,
)  # fmt: skip
names = st.sampled_from(["memory_context", "memory_context", "memory_context ", "Memory_context",
                         "memory_search", ""]) | json_leaf  # fmt: skip
extra_params = st.just({}) | st.dictionaries(
    st.sampled_from(["_meta", "task", "name_", "arguments_"]),
    st.just({"progressToken": 1}) | json_value, max_size=1,
)  # fmt: skip


@st.composite
def calls(draw: st.DrawFn) -> dict[str, Any]:
    params: dict[str, Any] = {"name": draw(names)}
    shape = draw(st.sampled_from(["absent", "given", "given"]))
    if shape == "given":
        params["arguments"] = draw(arguments)
    params.update(draw(extra_params))
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": draw(st.integers(1, 3) | st.just("c")),
                               "method": "tools/call", "params": params}  # fmt: skip
    if draw(st.integers(0, 9)) == 0:
        message[draw(st.sampled_from(["x", "result"]))] = draw(json_value)
    return message


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=calls(), revision=st.sampled_from(["2024-11-05", "2025-06-18", "2025-11-25"]))
@example(  # a U+0085 (a line break to str.splitlines) echoed back inside the SDK's answer
    call={"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {"name": "\x85"}},
    revision="2024-11-05",
)
def test_any_call_gets_the_sdks_answer_and_only_a_plain_memory_context_is_answered_early(
    server: TeambrainServer, call: dict[str, Any], revision: str
) -> None:
    answered: list[ToolAnswer] = []

    def counted() -> ToolAnswer:
        answered.append(context_answer(server.service))
        return answered[-1]

    messages = [initialize(revision), INITIALIZED, call, {"jsonrpc": "2.0", "id": 9,
                                                         "method": "ping"}]  # fmt: skip
    fast = by_id(converse(server, messages, fast=True, context=counted))
    assert fast == by_id(converse(server, messages, fast=False)), call
    plain = call["params"] in ({"name": "memory_context"},
                               {"name": "memory_context", "arguments": {}})  # fmt: skip
    assert len(answered) == (1 if plain and set(call) == set(CALL) else 0), call
    assert context_call(call) == (plain and set(call) == set(CALL))


def test_a_problem_the_service_names_is_the_sdks_tool_error(tmp_path: Path) -> None:
    """No brain here: the one-line error saying to run ``tb init``, as the SDK words it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    server = build_server(repo, machine=MachineLayout(tmp_path / "home"), heartbeat=False)
    messages = [initialize(), INITIALIZED, CALL]
    fast = by_id(converse(server, messages, fast=True))
    assert fast == by_id(converse(server, messages, fast=False))
    answer = json.loads(fast["1"])["result"]
    assert answer["isError"] is True
    assert answer["content"][0]["text"].startswith("memory_context: no teambrain brain in ")


def test_a_crash_is_handed_over_and_the_sdk_answers_it(server: TeambrainServer) -> None:
    def crashing() -> ToolAnswer:
        raise RuntimeError("a bug")

    messages = [initialize(), INITIALIZED, CALL]
    fast = by_id(converse(server, messages, fast=True, context=crashing))
    assert fast == by_id(converse(server, messages, fast=False))  # the SDK ran the real call


class Gate:
    """The real call, held until released: what arrives meanwhile is seen while it runs."""

    def __init__(self, server: TeambrainServer) -> None:
        self.server = server
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self) -> ToolAnswer:
        self.entered.set()
        assert self.release.wait(END_S)
        return context_answer(self.server.service)


@pytest.mark.parametrize("cancelled_id", [1, "1"], ids=["its-id", "its-id-as-text"])
def test_a_cancelled_call_is_never_answered_and_the_conversation_goes_on(
    server: TeambrainServer, cancelled_id: Any
) -> None:
    gate = Gate(server)
    conversation = Conversation(server, fast=True, context=gate)
    conversation.send(initialize(), INITIALIZED, CALL)
    assert gate.entered.wait(END_S)
    assert conversation.read_line()["id"] == 0
    conversation.send(
        {"jsonrpc": "2.0", "method": "notifications/cancelled",
         "params": {"requestId": cancelled_id, "reason": "user"}},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    )  # fmt: skip
    assert conversation.read_line() == {"jsonrpc": "2.0", "id": 2, "result": {}}  # meanwhile
    gate.release.set()  # the cancellation was read before the ping
    replies = by_id(conversation.close())
    assert list(replies) == ["0", "2", "3"]  # the call's answer dropped, the rest answered


def test_another_ids_cancellation_leaves_the_call_answered(server: TeambrainServer) -> None:
    gate = Gate(server)
    conversation = Conversation(server, fast=True, context=gate)
    conversation.send(initialize(), INITIALIZED, CALL)
    assert gate.entered.wait(END_S)
    conversation.send(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    )
    assert conversation.read_line()["id"] == 0
    assert conversation.read_line()["id"] == 2
    gate.release.set()
    replies = by_id(conversation.close())
    assert list(replies) == ["0", "1", "2"]
    assert json.loads(replies["1"])["result"]["isError"] is False


def test_what_arrives_during_the_call_is_answered_after_it_in_order(
    server: TeambrainServer,
) -> None:
    """A search needs the SDK: handed over once the call is answered, with what followed it."""
    gate = Gate(server)
    conversation = Conversation(server, fast=True, context=gate)
    conversation.send(initialize(), INITIALIZED, CALL)
    assert gate.entered.wait(END_S)
    conversation.send(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "memory_search", "arguments": {"query": "payments"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    )  # fmt: skip
    gate.release.set()
    lines = conversation.close()
    replies = by_id(lines)
    assert list(replies) == ["0", "1", "2", "3"]
    assert json.loads(lines[1])["id"] == 1  # the first call's answer came first
    assert json.loads(replies["2"])["result"]["isError"] is False


def test_closing_stdin_during_the_call_still_gets_its_answer(server: TeambrainServer) -> None:
    gate = Gate(server)
    conversation = Conversation(server, fast=True, context=gate)
    conversation.send(initialize(), INITIALIZED, CALL)
    assert gate.entered.wait(END_S)
    threading.Timer(0.2, gate.release.set).start()  # released after stdin is closed
    replies = by_id(conversation.close())
    assert list(replies) == ["0", "1"]


def test_before_the_handshake_a_call_is_the_sdks_to_answer(server: TeambrainServer) -> None:
    answered: list[ToolAnswer] = []

    def counted() -> ToolAnswer:
        answered.append(context_answer(server.service))
        return answered[-1]

    for messages in ([CALL], [initialize(), CALL]):
        fast = by_id(converse(server, messages, fast=True, context=counted))
        assert fast == by_id(converse(server, messages, fast=False))
    assert not answered


def test_the_sdk_waits_for_the_first_answer_and_starts_when_wanted() -> None:
    """``FastTools.sdk_turn``: the import waits while the brain opens; a call then keeps it
    waiting until its answer is out; a message that needs the SDK starts it at once."""
    opening_done = threading.Event()
    opening = threading.Thread(target=opening_done.wait, args=(END_S,), daemon=True)
    opening.start()
    tools = FastTools()
    tools.WAIT_S = END_S
    turn = threading.Thread(target=tools.sdk_turn, args=(opening,), daemon=True)
    turn.start()
    tools.offer(lambda: ToolAnswer("t", {}))
    tools.context()  # a first call came while the brain opened
    opening_done.set()
    opening.join()
    turn.join(0.3)
    assert turn.is_alive()  # the answer is not out yet
    tools.want_sdk()
    turn.join(END_S)
    assert not turn.is_alive()


def test_the_remote_heads_cache_is_the_one_sync_keeps() -> None:
    from teambrain_mcp_server._service import REMOTE_HEADS_CACHE
    from teambrain_sync._remotes import HEADS_CACHE

    assert REMOTE_HEADS_CACHE == HEADS_CACHE
