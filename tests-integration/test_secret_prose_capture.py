"""Secrets typed in prose never reach the spool through the real capture hook: every held-out
sentence (packages/schema/tests/data/secret_prose_holdout_wide.tsv — passphrases of dictionary
words, "user / pass" pairs, codes and keys after words like "code" or "token is", written
before the rules for them and never tuned on) is sent as a prompt and as a shell command an
agent ran; the rate of secrets found in the spool afterwards is the held-out miss rate. The same
for issue 37's held-out corpus of "a secret introduced by a word, then the value" in many
phrasings and languages (secret_prose_holdout_37.tsv)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "packages" / "schema" / "tests" / "data"
CAPTURE = str(Path(sys.executable).parent / "tb-capture")


def _secrets(name: str) -> list[tuple[str, str]]:
    rows = (line.partition("\t") for line in (DATA / name).read_text("utf-8").splitlines())
    return [(text, secret) for text, _, secret in rows if secret and not text.startswith("#")]


def _hook(repo: Path, env: dict[str, str], payload: dict[str, object]) -> None:
    body = {"session_id": "prose-1", "cwd": str(repo), **payload}
    done = subprocess.run(
        [CAPTURE, "claude-code"], input=json.dumps(body), text=True, env=env,
        capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("corpus", "bound"),
    # issue 32's held-out phrasings; issue 37's "a word, then the value" held out (written
    # before the rules for it, measured once after: 2 of its 50 secrets reach the spool; 6
    # before — the intent summary keeps only part of a prompt)
    [("secret_prose_holdout_wide.tsv", 0.1), ("secret_prose_holdout_37.tsv", 0.05)],
)
def test_held_out_secrets_typed_in_prose_stay_out_of_the_spool(
    repo: Path, tmp_path: Path, corpus: str, bound: float
) -> None:
    env = {**os.environ, "TEAMBRAIN_HOME": str(tmp_path / "home")}
    lines = _secrets(corpus)
    assert len(lines) >= 30
    _hook(repo, env, {"hook_event_name": "SessionStart", "source": "startup"})
    for text, _ in lines:
        _hook(repo, env, {"hook_event_name": "UserPromptSubmit",
                          "prompt": f"please fix the deploy script; {text}"})  # fmt: skip
        _hook(repo, env, {"hook_event_name": "PostToolUse", "tool_name": "Bash",
                          "tool_input": {"command": f"echo '{text}' >> notes.txt"}})  # fmt: skip
    spool = "".join(p.read_text("utf-8") for p in (tmp_path / "home").rglob("*.jsonl"))
    assert spool.count('"ev":"intent"') >= len(lines) // 2  # the prompts were recorded
    leaked = [secret for _, secret in lines if secret in spool]
    print(f"held-out secrets in the spool: {len(leaked)} of {len(lines)}")
    assert len(leaked) / len(lines) <= bound, leaked
