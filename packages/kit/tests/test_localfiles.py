"""Local files are read without hanging on a FIFO, following a link or blowing the stack."""

import json
import os
import socket
from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from teambrain_kit.local_files import (
    FileTooLarge,
    NotARegularFile,
    OutsideTree,
    loads_json,
    open_local_file,
    read_file_within,
    read_json_file,
    read_local_bytes,
)


def test_a_regular_file_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"a": [1, 2]}')
    assert read_json_file(path) == {"a": [1, 2]}


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "01KB2F0A1S9Y4Q7V3C8D5E6F99.json"
    os.mkfifo(path)
    with pytest.raises(NotARegularFile, match="FIFO"):
        read_local_bytes(path)  # a plain open() would wait for a writer forever


def test_a_socket_and_a_directory_are_refused(tmp_path: Path) -> None:
    sock_path = tmp_path / "s.json"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    try:
        with pytest.raises(OSError):
            read_local_bytes(sock_path)
    finally:
        server.close()
    (tmp_path / "d.json").mkdir()
    with pytest.raises(NotARegularFile, match="directory"):
        read_local_bytes(tmp_path / "d.json")


def test_a_symlink_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "secret.txt"
    target.write_text("x")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with pytest.raises(OSError):
        read_local_bytes(link)


def test_a_file_opened_for_streaming_is_refused_the_same_ways(tmp_path: Path) -> None:
    regular = tmp_path / "m.npz"
    regular.write_bytes(b"\x00" * 10)
    with open_local_file(regular) as handle:
        assert handle.read() == b"\x00" * 10
    os.mkfifo(tmp_path / "f.npz")
    (tmp_path / "d.npz").mkdir()
    (tmp_path / "l.npz").symlink_to(regular)
    with pytest.raises(NotARegularFile, match="FIFO"):
        open_local_file(tmp_path / "f.npz")
    with pytest.raises(NotARegularFile, match="directory"):
        open_local_file(tmp_path / "d.npz")
    with pytest.raises(OSError):
        open_local_file(tmp_path / "l.npz")


def test_a_file_a_repository_names_is_read_only_inside_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "real.py").write_text("def main(): ...\n")
    (repo / "inside.py").symlink_to("src/real.py")
    assert read_file_within(repo / "inside.py", repo) == b"def main(): ...\n"
    (tmp_path / "secret").write_text("outside")
    (repo / "outside.py").symlink_to(tmp_path / "secret")
    with pytest.raises(OutsideTree):
        read_file_within(repo / "outside.py", repo)
    os.mkfifo(repo / "fifo")
    (repo / "to-fifo.py").symlink_to("fifo")
    for name, error in (("fifo", NotARegularFile), ("to-fifo.py", NotARegularFile)):
        with pytest.raises(error):
            read_file_within(repo / name, repo)  # never waits for a writer
    for device in ("/dev/zero", "/dev/stdin", "/dev/null"):
        (repo / "dev.py").unlink(missing_ok=True)
        (repo / "dev.py").symlink_to(device)
        with pytest.raises(OutsideTree):
            read_file_within(repo / "dev.py", repo)
    (repo / "big.py").write_bytes(b"x" * 5000)
    with pytest.raises(FileTooLarge):
        read_file_within(repo / "big.py", repo, max_bytes=1000)
    assert read_file_within(repo / "big.py", repo, max_bytes=1000, truncate=True) == b"x" * 1000


def test_a_device_inside_the_tree_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NotARegularFile, match="device"):
        read_file_within("/dev/zero", "/dev")


def test_a_file_past_the_cap_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"0" * 2048)
    with pytest.raises(FileTooLarge):
        read_local_bytes(path, max_bytes=1024)
    assert read_local_bytes(path, max_bytes=2048) == b"0" * 2048


@pytest.mark.parametrize("depth", [10, 1000, 100_000])
def test_deep_nesting_is_a_value_error_not_a_recursion_error(depth: int) -> None:
    text = "[" * depth + "]" * depth
    try:
        value = loads_json(text)
    except ValueError:
        return
    assert isinstance(value, list)


@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_are_json_or_a_value_error(data: bytes) -> None:
    try:
        expected = json.loads(data)
    except (ValueError, RecursionError):
        with pytest.raises(ValueError):
            loads_json(data)
        return
    assert json.dumps(loads_json(data)) == json.dumps(expected)  # NaN != NaN


@given(st.text(max_size=40), st.text(max_size=40), st.text(max_size=40))
def test_a_private_span_never_survives_whatever_surrounds_it(
    before: str, inside: str, after: str
) -> None:
    """Offsets stay right even where lower-casing changes a string's length (İ)."""
    from hypothesis import assume
    from teambrain_kit.scrub import strip_private

    assume("</private" not in inside.lower())  # a closing tag inside ends the span there
    marker = "Zq9xSECRETxq9Z"
    text = f"{before}<Private>{inside}{marker}</private>{after}"
    assert marker not in strip_private(text)
