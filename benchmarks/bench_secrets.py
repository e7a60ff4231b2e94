"""Secret redaction on prose: recall and false-positive rate on the labelled corpora in
packages/schema/tests/data (the tuned corpora and the hand-written held-out ones), and the time per
sentence against a baseline of the known-token-format rules alone, in the same run."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from teambrain_schema import secrets as rules
from teambrain_schema.scrub import scrub_text
from teambrain_schema.secrets import redact_secrets

DATA = Path(__file__).resolve().parents[1] / "packages" / "schema" / "tests" / "data"


def corpus(name: str) -> tuple[list[tuple[str, str]], list[str]]:
    secrets, benign = [], []
    for line in (DATA / name).read_text("utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        text, _, secret = line.partition("\t")
        (secrets.append((text, secret)) if secret else benign.append(text))
    return secrets, benign


def score(secrets: list[tuple[str, str]], benign: list[str], redact) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    caught = sum(secret not in redact(text) for text, secret in secrets)
    changed = sum(redact(text) != text for text in benign)
    return caught / len(secrets), changed / max(1, len(benign))


def formats_only(text: str) -> str:
    """The baseline: only the known token formats (what v1 caught in prose)."""
    for _, pattern, group in rules._COMPILED:
        text = pattern.sub(lambda m, g=group: m.group(0).replace(m.group(g), "[R]"), text)
    return text


def detect_secrets_comparison(
    secrets: list[tuple[str, str]], benign: list[str],
    hold_secrets: list[tuple[str, str]], hold_benign: list[str],
) -> None:  # fmt: skip
    """Yelp's detect-secrets (every default plugin, its keyword detector included) on the same
    corpora, when it is importable — it is not a dependency; run this script with a Python
    that has it (``pip install detect-secrets``) to compare."""
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("detect_secrets") is None:
        print("detect-secrets: not installed here (pip install detect-secrets to compare)")
        return
    started = time.perf_counter()
    from detect_secrets.core.scan import _process_line_based_plugins
    from detect_secrets.settings import default_settings

    import_ms = 1000 * (time.perf_counter() - started)

    def found(text: str) -> list[str]:
        # As `detect-secrets scan` treats a line of a text file: every default plugin with its
        # default limits, then the default filters. (`scan_line`, its ad-hoc helper, lifts the
        # entropy limits and flags nearly every word.)
        hits = _process_line_based_plugins([(1, text)], filename="prompt.txt")
        return [str(hit.secret_value) for hit in hits]

    with default_settings():
        for label, s, b in (("tuned", secrets, benign), ("holdout", hold_secrets, hold_benign)):
            caught = sum(
                any(secret in f or f in secret for f in found(text) if f) for text, secret in s
            )
            flagged = sum(bool(found(text)) for text in b)
            print(f"| {label}, detect-secrets (all default plugins) | {len(s)} / {len(b)} | "
                  f"{caught / len(s):.1%} | {flagged / max(1, len(b)):.1%} | — |")  # fmt: skip
        texts = [t for t, _ in secrets] + benign
        started = time.perf_counter()
        for text in texts:
            found(text)
        per = (time.perf_counter() - started) / len(texts) * 1e6
    cold = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import detect_secrets.core.scan"],
        capture_output=True, text=True, check=False,
    ).stderr.strip().splitlines()  # fmt: skip
    total = cold[-1].split("|")[1].strip() if cold else "?"
    print(f"detect-secrets: {per:.1f} µs per sentence; import {import_ms:.0f} ms in process, "
          f"{int(total) / 1000:.0f} ms cold (the capture hook's whole budget is ~20 ms)")  # fmt: skip


def main() -> None:
    secrets, _ = corpus("secret_prose.tsv")
    benign = [
        line for line in (DATA / "benign_prose.txt").read_text("utf-8").splitlines()
        if line and not line.startswith("#")
    ]  # fmt: skip
    hold_secrets, hold_benign = corpus("secret_prose_holdout.tsv")
    print(
        "| corpus | sentences (secret / benign) | recall | false positives | baseline recall (formats only) |"
    )
    print("|---|---|---|---|---|")
    wide_secrets, wide_benign = corpus("secret_prose_wide.tsv")
    held_secrets, held_benign = corpus("secret_prose_holdout_wide.tsv")
    word_secrets, word_benign = corpus("secret_prose_word_value.tsv")
    held37_secrets, held37_benign = corpus("secret_prose_holdout_37.tsv")
    for label, s, b in (
        ("tuned", secrets, benign), ("holdout", hold_secrets, hold_benign),
        ("wide phrasings (tuned)", wide_secrets, wide_benign),
        ("wide phrasings, held out (never tuned on)", held_secrets, held_benign),
        ("a word, then the value (tuned, issue 37)", word_secrets, word_benign),
        ("a word, then the value, held out (never tuned on)", held37_secrets, held37_benign),
    ):  # fmt: skip
        recall, fp = score(s, b, redact_secrets)
        base_recall, _ = score(s, b, formats_only)
        print(f"| {label} | {len(s)} / {len(b)} | {recall:.1%} | {fp:.1%} | {base_recall:.1%} |")
    # What reaches the spool: capture's cheap gate first, then the rules.
    for label, s, b in (
        ("tuned", secrets, benign), ("wide, held out", held_secrets, held_benign),
        ("word then value, held out", held37_secrets, held37_benign),
    ):  # fmt: skip
        recall, fp = score(s, b, scrub_text)
        print(f"capture path (scrub_text), {label}: recall {recall:.1%}, false positives {fp:.1%}")
    texts = [t for t, _ in secrets] + benign
    for name, fn in (("redact_secrets", redact_secrets), ("formats only (baseline)", formats_only)):
        runs = []
        for _ in range(5):
            started = time.perf_counter()
            for text in texts:
                fn(text)
            runs.append((time.perf_counter() - started) / len(texts) * 1e6)
        print(f"{name}: {statistics.median(runs):.1f} µs per sentence")
    detect_secrets_comparison(secrets, benign, hold_secrets, hold_benign)
    long = ("Please check the deploy logs, the password is hunter2-x9 and " * 400)[:20_000]
    started = time.perf_counter()
    redact_secrets(long)
    print(f"a 20 KB prompt: {1000 * (time.perf_counter() - started):.1f} ms")


if __name__ == "__main__":
    main()
