"""Issue 32: brain.yaml text no verb may turn into an internal error. A NUL byte in a path
setting (``org_brain: "a\\0b"``) ended lint, doctor, trust and verify in "internal error:
ValueError: embedded null byte"; it is one line naming the file, line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from untrusted import run_bounded


@pytest.mark.parametrize(
    ("key", "value"),
    [("org_brain: null", 'org_brain: "a\\0b"'), ("    path: null", '    path: "m\\0.onnx"')],
)
def test_a_nul_byte_in_a_path_setting_is_one_line_naming_it(
    repo: Path, tb: Any, key: str, value: str
) -> None:
    assert tb("init", cwd=repo).returncode == 0
    yaml = repo / ".teambrain" / "brain.yaml"
    yaml.write_text(yaml.read_text().replace(key, value, 1))
    field = value.strip().split(":")[0]
    for args in (("lint",), ("doctor",), ("trust",), ("verify",), ("relevant", "-q", "x")):
        done, _ = run_bounded(repo, *args)
        said = done.stdout + done.stderr
        assert "Traceback" not in said and "internal error" not in said, (args, said[-1500:])
        assert f"{field}: must not contain control characters" in said, (args, said[-1500:])
