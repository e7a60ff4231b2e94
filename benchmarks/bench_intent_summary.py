"""What the distiller's model gets to learn from: the intent summary, measured two ways on a
labelled corpus (benchmarks/data/intent_corpus.json, 24 prompts each with the lesson a memory
should record and the facts a summary must keep for a model to learn it).

Both styles of capture's summariser run in the same process, on the same prompts:
- keywords (the baseline): stopwords dropped, everything lower-cased;
- readable: relation words kept ("because", "before", "only", "where", "same"…) and
  identifiers spelled as in the code (FakeClock, PaymentGateway, SKU).

Numbers printed: fact recall (the share of labelled facts found in the summary, ignoring case,
and identifiers spelled exactly), how often the bundled embedding model matches a summary to its
own lesson among all 24 (top-1), mean length, and the summariser's time per prompt. Both styles
obey the same rules (≤ 200 characters, no 48-character run copied from the prompt, secrets
redacted): capture's tests run on the style in force.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from teambrain_capture._intent import _RELATIONS, MAX_INTENT_CHARS, MAX_VERBATIM, _summarise

CORPUS = Path(__file__).resolve().parent / "data" / "intent_corpus.json"


def fact_recall(summary: str, facts: list[str]) -> tuple[float, float, float]:
    """(share of facts found ignoring case, the same without the facts that are one relation
    word — the readable style keeps those by design —, share of capitalised facts found
    exactly)."""
    lowered = summary.lower()
    loose = sum(1 for fact in facts if fact.lower() in lowered) / len(facts)
    content = [f for f in facts if f.lower() not in _RELATIONS]
    kept = sum(1 for fact in content if fact.lower() in lowered) / len(content)
    named = [f for f in facts if any(c.isupper() for c in f)]
    exact = sum(1 for fact in named if fact in summary) / len(named) if named else 1.0
    return loose, kept, exact


def embedding_top1(summaries: list[str], lessons: list[str]) -> float | None:
    """The share of summaries whose nearest lesson (cosine, bundled model) is their own."""
    try:
        from teambrain_retrieval import make_embedder
        from teambrain_schema import EmbedderConfig

        embedder = make_embedder(EmbedderConfig(), Path.cwd())
        if embedder is None:
            return None
        import numpy as np

        lesson_vectors = np.asarray(embedder.embed_documents(lessons))
        hits = 0
        for index, summary in enumerate(summaries):
            query = np.asarray(embedder.embed_query(summary)).reshape(-1)
            hits += int(int(np.argmax(lesson_vectors @ query)) == index)
        return hits / len(summaries)
    except Exception as exc:  # the embedder is optional here: say why it was left out
        print(f"  (embedding match left out: {exc.__class__.__name__}: {exc})")
        return None


def main() -> int:
    items = json.loads(CORPUS.read_text())["items"]
    lessons = [item["lesson"] for item in items]
    print(f"{len(items)} labelled prompts; every summary ≤ {MAX_INTENT_CHARS} characters, "
          f"no {MAX_VERBATIM}-character run copied")  # fmt: skip
    rows = {}
    for style, readable in (("keywords (baseline)", False), ("readable", True)):
        summaries, loose, content, exact, timings = [], [], [], [], []
        for item in items:
            started = time.perf_counter()
            for _ in range(20):
                summary = _summarise(item["prompt"], readable)
            timings.append((time.perf_counter() - started) / 20)
            assert len(summary) <= MAX_INTENT_CHARS
            summaries.append(summary)
            a, b, c = fact_recall(summary, item["facts"])
            loose.append(a)
            content.append(b)
            exact.append(c)
        top1 = embedding_top1(summaries, lessons)
        rows[style] = summaries
        print(
            f"  {style:<20} fact recall {statistics.mean(loose):6.1%} (without relation words "
            f"{statistics.mean(content):6.1%})  identifiers exact "
            f"{statistics.mean(exact):6.1%}  embedding top-1 "
            f"{'n/a' if top1 is None else f'{top1:6.1%}'}  mean length "
            f"{statistics.mean(len(s) for s in summaries):5.1f}  "
            f"median {statistics.median(timings) * 1e6:6.0f} µs/prompt"
        )
    print("  examples (baseline → readable):")
    for base, readable in list(zip(*rows.values(), strict=True))[:4]:
        print(f"    {base}\n    → {readable}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
