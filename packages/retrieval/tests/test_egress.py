"""brain.yaml arrives by ``git pull``: a remote embedder or an org brain outside the repository
is used only once this machine approved exactly that destination and credential."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from teambrain_kit.egress import approve_egress
from teambrain_kit.paths import BrainLayout, machine_layout
from teambrain_retrieval import RetrieverOptions, embedder_egress, open_retriever, org_brain_egress
from teambrain_schema import EmbedderConfig
from teambrain_schema.brain import load_brain_config

SECRET = "sk-test-" + "z" * 32


class Recorder(BaseHTTPRequestHandler):
    """An OpenAI-compatible /embeddings endpoint that records every request."""

    seen: list[dict[str, Any]] = []  # noqa: RUF012 - reset per test by the fixture

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        Recorder.seen.append({"path": self.path, "auth": self.headers.get("authorization")})
        data = [{"index": i, "embedding": [1.0, float(i + 1)]} for i in range(len(body["input"]))]
        payload = json.dumps({"data": data}).encode()
        self.send_response(200)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


Fn = Callable[..., Any]


def _remote_brain(
    new_brain: Fn, write: Fn, root: Path, url: str, key_env: str = "TB_EMBED_KEY"
) -> BrainLayout:
    yaml = (
        "version: 1\nretrieval:\n  embedder:\n    provider: openai\n"
        f"    base_url: {url}\n    api_key_env: {key_env}\n"
    )
    layout: BrainLayout = new_brain(root, yaml)
    write(layout, "Payments retry", "Payments retry three times with backoff.")
    return layout


def _open(layout: BrainLayout, notices: list[str]) -> Any:
    return open_retriever(layout, RetrieverOptions(warn=notices.append, refresh_interval=0.0))


def test_an_unapproved_remote_embedder_is_never_contacted(
    tmp_path: Path, endpoint: str, notices: list[str], monkeypatch: pytest.MonkeyPatch,
    new_brain: Fn, write: Fn,
) -> None:  # fmt: skip
    monkeypatch.setenv("TB_EMBED_KEY", SECRET)
    layout = _remote_brain(new_brain, write, tmp_path / "repo", endpoint)
    retriever = _open(layout, notices)
    assert [h.memory.title for h in retriever.search("payments retry", 5)] == ["Payments retry"]
    retriever.rebuild()
    retriever.close()
    assert Recorder.seen == []
    assert endpoint in retriever.embedder_status() and "not approved" in retriever.embedder_status()
    assert any("keyword search only" in n and endpoint in n for n in notices)
    assert all(SECRET not in n for n in notices)


def test_an_approved_embedder_is_used_and_a_changed_destination_asks_again(
    tmp_path: Path, endpoint: str, notices: list[str], monkeypatch: pytest.MonkeyPatch,
    new_brain: Fn, write: Fn,
) -> None:  # fmt: skip
    monkeypatch.setenv("TB_EMBED_KEY", SECRET)
    layout = _remote_brain(new_brain, write, tmp_path / "repo", endpoint)
    egress = embedder_egress(load_brain_config(layout).retrieval.embedder)
    assert egress is not None
    approve_egress(machine_layout(), layout.repo_root, [egress])
    retriever = _open(layout, notices)
    retriever.search("payments retry", 5)
    retriever.close()
    assert Recorder.seen and {s["auth"] for s in Recorder.seen} == {f"Bearer {SECRET}"}
    # A pulled commit sends the same key elsewhere (another path, or another variable).
    for changed in (endpoint + "/other", endpoint):
        Recorder.seen = []
        key_env = "TB_EMBED_KEY" if changed != endpoint else "HOME"
        layout.brain_yaml.write_text(
            "version: 1\nretrieval:\n  embedder:\n    provider: openai\n"
            f"    base_url: {changed}\n    api_key_env: {key_env}\n"
        )
        retriever = _open(layout, notices)
        retriever.search("payments retry", 5)
        retriever.rebuild()
        assert Recorder.seen == []
        assert "changed since this machine approved it" in retriever.embedder_status()
        retriever.close()


def test_what_each_embedder_sends_and_where() -> None:
    assert embedder_egress(EmbedderConfig()) is None
    assert embedder_egress(EmbedderConfig(provider="none")) is None
    assert embedder_egress(EmbedderConfig(provider="local", path="/elsewhere/model.onnx")) is None
    openai = embedder_egress(EmbedderConfig(provider="openai"))
    assert openai is not None
    assert (openai.destination, openai.credential) == (
        "https://api.openai.com/v1",
        "OPENAI_API_KEY",
    )
    ollama = embedder_egress(EmbedderConfig(provider="ollama", api_key_env="IGNORED"))
    assert ollama is not None
    assert (ollama.destination, ollama.credential) == ("http://localhost:11434", None)
    plugin = embedder_egress(EmbedderConfig(plugin="acme", base_url="https://X.example:443/"))
    assert plugin is not None and plugin.destination == "plugin acme"
    assert plugin.extra == ("base_url https://x.example",)
    # The same destination written differently is the same approval; another one is not.
    same = embedder_egress(
        EmbedderConfig(provider="openai", base_url="HTTPS://api.openai.com:443/v1/")
    )
    assert same is not None and same.fingerprint == openai.fingerprint
    other = embedder_egress(EmbedderConfig(provider="openai", api_key_env="AWS_SECRET_ACCESS_KEY"))
    assert other is not None and other.fingerprint != openai.fingerprint


def test_an_org_brain_outside_the_repository_waits_for_approval(
    tmp_path: Path, notices: list[str], open_test_retriever: Fn, new_brain: Fn, write: Fn
) -> None:
    org = new_brain(tmp_path / "org")
    write(org, "Org security baseline", "Rotate credentials quarterly.", scope="org")
    layout = new_brain(tmp_path / "repo", "version: 1\norg_brain: ../org\n")
    write(layout, "Local credentials", "Rotate local credentials weekly.")

    def served() -> list[str]:
        retriever = open_test_retriever(layout)
        try:
            return sorted(h.memory.title for h in retriever.search("rotate credentials", 5))
        finally:
            retriever.close()

    assert served() == ["Local credentials"]
    assert any("org_brain" in n and "not approved" in n for n in notices)
    egress = org_brain_egress(load_brain_config(layout), layout.repo_root)
    assert egress is not None and egress.destination == org.repo_root.resolve().as_posix()
    approve_egress(machine_layout(), layout.repo_root, [egress])
    assert served() == ["Local credentials", "Org security baseline"]


def test_an_org_brain_inside_the_repository_needs_no_approval(
    tmp_path: Path, open_test_retriever: Fn, new_brain: Fn, write: Fn
) -> None:
    layout = new_brain(tmp_path / "repo", "version: 1\norg_brain: vendor/org\n")
    org = new_brain(tmp_path / "repo" / "vendor" / "org")
    write(org, "Org security baseline", "Rotate credentials quarterly.", scope="org")
    assert org_brain_egress(load_brain_config(layout), layout.repo_root) is None
    retriever = open_test_retriever(layout)
    assert [h.memory.title for h in retriever.search("rotate credentials", 5)] == [
        "Org security baseline"
    ]
    retriever.close()
