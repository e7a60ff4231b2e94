"""Every text reader on hostile input: runs of one character or short pattern that make a
backtracking regex rescan the rest of the text from each position. Each reader's worst input
at 20,000 and 80,000 characters, against a baseline in the same run (one ``re`` pass over the
same text, ``\\S+``). A linear reader's time grows ~4x from the first size to the second; a
quadratic one ~16x. The memory file limit is 256 KB, and hooks scan what agents send.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from teambrain_capture._intent import summarise_intent
from teambrain_kit.citations import extract_citations
from teambrain_kit.injection import find_injections
from teambrain_kit.secrets import find_secrets
from teambrain_retrieval import extract_mentions
from teambrain_retrieval._query import sanitise_fts_query
from teambrain_schema.render import render_memory

PATTERNS = {
    "dashes": "-", "underscores": "_", "dots": ".", "backticks": "`", "tildes": "~",
    "letters": "x", "letters+digits": "A1", "slashes": "a/", "dotted": "a.", "hyphenated": "a-",
    "colons": "a:", "equals": "a=", "spaces": " ", "newlines": "\n", "quotes": "\"'",
    "open fences": "~~~a\n", "bullets": "- a\n", "headers": "[team memory ", "brackets": "[",
    "schemes": "http://", "credential words": "token ", "prose": "password is ",
}  # fmt: skip
READERS: dict[str, Callable[[str], object]] = {
    "find_secrets": find_secrets,
    "find_injections": find_injections,
    "extract_citations": extract_citations,
    "extract_mentions": lambda text: extract_mentions(text, []),
    "render_memory": lambda text: render_memory("01KB2F0A1S9Y4Q7V3C8D5E6F03", text),
    "sanitise_fts_query": sanitise_fts_query,
    "summarise_intent": summarise_intent,
}
BASELINE = re.compile(r"\S+")


def seconds(reader: Callable[[str], object], text: str) -> float:
    started = time.perf_counter()
    reader(text)
    return time.perf_counter() - started


def main() -> None:
    sizes = (20_000, 80_000)
    print(f"| reader | worst input | {sizes[0]:,} chars | {sizes[1]:,} chars | growth |")
    print("|---|---|---|---|---|")
    for name, reader in READERS.items():
        worst = max(
            PATTERNS, key=lambda p: seconds(reader, PATTERNS[p] * (sizes[0] // len(PATTERNS[p])))
        )
        small, large = (
            seconds(reader, PATTERNS[worst] * (size // len(PATTERNS[worst]))) for size in sizes
        )
        print(f"| {name} | {worst} | {small * 1000:.0f} ms | {large * 1000:.0f} ms | "
              f"{large / max(small, 1e-9):.1f}x |")  # fmt: skip
    base = [seconds(BASELINE.findall, "word " * (size // 5)) for size in sizes]
    print(f"| baseline: one `\\S+` pass | prose | {base[0] * 1000:.1f} ms | "
          f"{base[1] * 1000:.1f} ms | {base[1] / base[0]:.1f}x |")  # fmt: skip
    print("(linear: ~4x from the first size to the second; quadratic: ~16x)")


if __name__ == "__main__":
    main()
