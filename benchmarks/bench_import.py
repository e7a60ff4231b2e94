"""`tb import` against hand-labelled instruction files: how many of the rules a reviewer would
want as memories become one candidate each (pieces right), how many are classed as labelled
(classes right), and how many lines of text reach no candidate (lines lost: a secret must cost
its value only). Two corpora (packages/cli/tests/import_corpus*: the files the splitter was
tuned on, and files labelled afterwards and never tuned on), and the same numbers for the
baseline measured in this run: one piece per heading section, the shape `tb import` had until
issue 42, where a piece holding a secret is refused whole.

Also the time to prepare every piece of the corpus (split, class, redact), against the baseline's
split and secret scan.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packages" / "cli" / "tests"))

from import_corpus_eval import CORPUS, Got, current_importer, evaluate, load_cases  # noqa: E402
from teambrain_cli._instructions.importer import classify, prepare_pieces  # noqa: E402
from teambrain_cli._instructions.markdown import sections, split_front_matter  # noqa: E402
from teambrain_cli._instructions.sources import Source, tool_for  # noqa: E402


def per_section(relpath: str, text: str) -> list[Got]:
    """The baseline: every heading section one piece, refused whole when it holds a secret."""
    from teambrain_kit.secrets import find_secrets

    _, rest, skipped = split_front_matter(text)
    out = []
    for section in sections(rest, first_line=skipped + 1):
        cls = classify(section.headings, section.text, tool_for(relpath))
        out.append(Got(section.line, section.text, cls, refused=bool(find_secrets(section.text))))
    return out


def main() -> None:
    for name, root in (("tuned on", CORPUS), ("held out", CORPUS.parent / "import_corpus_heldout")):
        cases = load_cases(root)
        files = len(cases)
        print(f"corpus {name} ({files} files):")
        print("  " + evaluate(current_importer, cases).line("rule pieces (tb import)"))
        print("  " + evaluate(per_section, cases).line("baseline: one per section "))
    cases = load_cases(CORPUS) + load_cases(CORPUS.parent / "import_corpus_heldout")
    sources = [(Source(Path(c.relpath), c.relpath, tool_for(c.relpath.split("/", 1)[1])), c.text)
               for c in cases]  # fmt: skip
    rounds = 20
    started = time.perf_counter()
    for _ in range(rounds):
        pieces = sum(len(prepare_pieces(source, text)) for source, text in sources)
    prepare = (time.perf_counter() - started) / rounds
    started = time.perf_counter()
    for _ in range(rounds):
        for case in cases:
            per_section(case.relpath.split("/", 1)[1], case.text)
    baseline = (time.perf_counter() - started) / rounds
    size = sum(len(c.text) for c in cases) / 1024
    print(
        f"prepare every piece of {len(cases)} files ({size:.0f} KB, {pieces} pieces: split, "
        f"class, redact): {prepare * 1000:.1f} ms (baseline, one per section with the secret "
        f"scan: {baseline * 1000:.1f} ms)"
    )


if __name__ == "__main__":
    main()
