"""The provenance check against a local package index (never the network)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from teambrain_cli._checks.provenance import InstalledDist
from teambrain_cli._checks.verify import check_provenance

FILES = {"teambrain_demo/__init__.py": b"x = 1\n", "teambrain_demo/py.typed": b""}


def _wheel(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    rows = []
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append(f"{name},sha256={digest},{len(data)}")
        rows.append("teambrain_demo-1.0.dist-info/RECORD,,")
        archive.writestr("teambrain_demo-1.0.dist-info/RECORD", "\n".join(rows) + "\n")
    return buffer.getvalue()


@pytest.fixture
def index() -> Iterator[dict[str, object]]:
    state: dict[str, object] = {"wheel": _wheel(FILES), "published": True}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            wheel = state["wheel"]
            assert isinstance(wheel, bytes)
            if self.path == "/pypi/teambrain-demo/1.0/json" and state["published"]:
                body = json.dumps({"urls": [{"packagetype": "bdist_wheel", "filename": "teambrain_demo-1.0-py3-none-any.whl",
                                             "url": f"{state['base']}/files/demo.whl", "digests": {"sha256": hashlib.sha256(wheel).hexdigest()}}]}).encode()  # fmt: skip
            elif self.path == "/files/demo.whl":
                body = wheel
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state["base"] = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


def _installed(tmp_path: Path, files: dict[str, bytes]) -> InstalledDist:
    paths = {}
    for name, data in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        paths[name] = path
    return InstalledDist("teambrain-demo", "1.0", None, paths)


def test_matching_install_passes(tmp_path: Path, index: dict[str, object]) -> None:
    result = check_provenance([_installed(tmp_path, FILES)], index=str(index["base"]))
    assert result.status == "PASS", result


def test_a_tampered_file_fails(tmp_path: Path, index: dict[str, object]) -> None:
    result = check_provenance(
        [_installed(tmp_path, {**FILES, "teambrain_demo/__init__.py": b"import os\n"})],
        index=str(index["base"]),
    )
    assert result.status == "FAIL" and "teambrain_demo/__init__.py" in result.summary


def test_unpublished_version_is_unverified(tmp_path: Path, index: dict[str, object]) -> None:
    index["published"] = False
    assert (
        check_provenance([_installed(tmp_path, FILES)], index=str(index["base"])).status
        == "UNVERIFIED"
    )


def test_offline_is_unverified_never_pass(tmp_path: Path) -> None:
    result = check_provenance([_installed(tmp_path, FILES)], index="http://127.0.0.1:9")
    assert result.status == "UNVERIFIED" and "offline" in result.summary


def test_local_source_installs_are_unverified_without_touching_the_network(tmp_path: Path) -> None:
    dist = InstalledDist("teambrain-demo", "1.0", "file:///src/teambrain", {})
    result = check_provenance(
        [dist], index="http://192.0.2.1"
    )  # would fail the network guard if fetched
    assert result.status == "UNVERIFIED" and "local source" in result.summary
