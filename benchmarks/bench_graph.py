"""Context that follows the edges, measured (issue 41): on a company brain of 300 memories and
60 graph nodes (benchmarks/graph_company.py), labelled situations whose right memory is
reachable only through an edge — top-5 hit rate of ``memory_context`` / ``memory_search`` with
graph expansion against the same retriever without it (``retrieval.graph_depth: 0``, the
baseline), the placements considered, the cost per answer; and ``tb lint``'s graph rules on
1,000 to 10,000 records, which must grow linearly.

    python benchmarks/bench_graph.py             # the bundled local model (as agents get it)
    python benchmarks/bench_graph.py --keywords  # keyword search only (faster)
"""

from __future__ import annotations

import functools
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graph_company import Company, Situation, build_company, content_words, write_brain


def _config(layout, depth: int):  # type: ignore[no-untyped-def]
    from teambrain_schema.brain import load_brain_config

    config = load_brain_config(layout)
    retrieval = config.retrieval.model_copy(update={"graph_depth": depth})
    return config.model_copy(update={"retrieval": retrieval})


def _top(retriever, situation: Situation, k: int | None = 5) -> list[str]:  # type: ignore[no-untyped-def]
    """The first ``k`` memories the agent is given (None: all of them — the whole context
    within its token budget, or memory_search's default 8)."""
    from teambrain_retrieval import Situation as Real

    if situation.query is not None:
        return [hit.id for hit in retriever.search(situation.query, k or 8)]
    real = Real(repo="shop", branch=situation.branch, changed_paths=situation.changed_paths,
                recent_subjects=situation.subjects)  # fmt: skip
    relevant = retriever.context(real).relevant
    return [hit.id for hit in (relevant if k is None else relevant[:k])]


def _situation_words(situation: Situation) -> set[str]:
    return content_words(" ".join([*situation.changed_paths, situation.branch, *situation.subjects,
                                   situation.query or ""]))  # fmt: skip


def labelled(company: Company) -> tuple[list[Situation], list[Situation], list[Situation]]:
    """(edge-only: the target, linked to a touched node, shares no word of substance with the
    situation; linked but sharing a word (a runbook titled with its service's name); direct
    controls: the memory about the very code changed)."""
    texts = {m.id: f"{m.title} {m.body}" for m in company.memories}
    edge, shared_word, direct = [], [], []
    for situation in company.situations:
        shared = _situation_words(situation) & content_words(texts[situation.target])
        if situation.kind == "direct":
            direct.append(situation)
        elif shared:
            shared_word.append(situation)
        else:
            edge.append(situation)
    return edge, shared_word, direct


def evaluate(retriever, situations: list[Situation]) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Top-5 and top-10 hit rates and the mean reciprocal rank in the top 10."""
    top5 = top10 = served = 0
    reciprocal = 0.0
    for situation in situations:
        given = _top(retriever, situation, None)
        if situation.target in given:
            served += 1
            rank = given.index(situation.target) + 1
            top5 += rank <= 5
            top10 += rank <= 10
            reciprocal += 1 / rank if rank <= 10 else 0.0
    n = len(situations)
    return {"top5": top5 / n, "top10": top10 / n, "mrr": reciprocal / n, "served": served / n}


def bench_context(keywords: bool) -> None:
    from teambrain_kit.paths import BrainLayout, machine_layout
    from teambrain_retrieval import RetrieverOptions, open_retriever
    from teambrain_retrieval._search import _answers as answers_module
    from teambrain_retrieval._search._graphlinks import merge_linked

    company = build_company()
    edge, shared_word, direct = labelled(company)
    nodes = len(company.records)
    with tempfile.TemporaryDirectory(prefix="bench-graph-") as scratch:
        root = Path(scratch) / "shop"
        write_brain(root, company, embedder="none" if keywords else "local")
        layout = BrainLayout(root)
        home = machine_layout(Path(scratch) / "home")
        quiet = RetrieverOptions(warn=lambda _m: None)
        first = open_retriever(layout, quiet, home=home, config=_config(layout, 0))
        started = time.perf_counter()
        first.rebuild()
        built = time.perf_counter() - started
        embedder = first.embedder_status()
        first.close()
        print(f"company brain: {len(company.memories)} memories, {nodes} nodes; "
              f"embedder {embedder}; indexed in {built:.1f} s")  # fmt: skip
        print(
            "served: in what the agent is given — memory_context's relevant memories within "
            "its token budget, or memory_search's 8"
        )
        print(f"labelled: {len(edge)} edge-only situations (the target shares no word of "
              f"substance with the situation), {len(shared_word)} linked and sharing a word, "
              f"{len(direct)} direct controls (the memory about the very code changed)\n")  # fmt: skip
        print(
            "| retrieval | all linked: top-5 | top-10 | served | edge-only: top-5 | a word "
            "shared: top-5 | direct: top-5 | top-10 | served |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        from teambrain_retrieval._search._graphlinks import fuse_linked

        variants: list[tuple[str, int, tuple[int, int] | tuple[str, int]]] = [
            ("no graph (`graph_depth: 0`, baseline)", 0, (2, 6)),
            ("graph depth 1", 1, (2, 6)),
            ("**graph depth 2 (default): after the 2 best direct hits, 6 slots**", 2, (2, 6)),
            ("graph depth 3", 3, (2, 6)),
            ("depth 2, 3 slots", 2, (2, 3)),
            ("depth 2, strictly after every direct hit", 2, (10_000, 6)),
            ("depth 2, before every direct hit", 2, (0, 6)),
            ("depth 2, after the 5 best direct hits", 2, (5, 6)),
            ("depth 2, fused as a ranking starting 2 places down", 2, ("fuse", 2)),
            ("depth 2, fused as a ranking starting 5 places down", 2, ("fuse", 5)),
        ]
        original = answers_module.merge_linked
        timings: dict[int, list[float]] = {}
        for label, depth, (after, slots) in variants:
            placement = (
                functools.partial(fuse_linked, offset=slots) if after == "fuse"
                else functools.partial(merge_linked, after=after, slots=slots)
            )  # fmt: skip
            answers_module.merge_linked = placement  # type: ignore[assignment]
            try:
                retriever = open_retriever(layout, quiet, home=home, config=_config(layout, depth))
                linked = evaluate(retriever, edge + shared_word)
                edge_only = evaluate(retriever, edge)
                word = evaluate(retriever, shared_word)
                control = evaluate(retriever, direct)
                if (after, slots) == (2, 6) and depth in (0, 2):
                    samples = []
                    for situation in edge[:20] * 3:
                        started = time.perf_counter()
                        _top(retriever, situation)
                        samples.append(time.perf_counter() - started)
                    timings[depth] = samples
                retriever.close()
            finally:
                answers_module.merge_linked = original  # type: ignore[assignment]
            print(f"| {label} | {linked['top5']:.0%} | {linked['top10']:.0%} | {linked['served']:.0%} "
                  f"| {edge_only['top5']:.0%} | {word['top5']:.0%} | {control['top5']:.0%} "
                  f"| {control['top10']:.0%} | {control['served']:.0%} |")  # fmt: skip
        if timings:
            base, graph = (statistics.median(timings[d]) * 1000 for d in (0, 2))
            print(f"\nper answer (p50 over {len(timings[0])} calls): {graph:.1f} ms with the graph, "
                  f"{base:.1f} ms without (baseline)")  # fmt: skip


def _records(n: int) -> dict[str, str]:
    """``n`` records of a large org: teams owning services that depend on earlier services,
    each documented by a runbook."""
    records: dict[str, str] = {}
    teams = max(1, n // 50)
    for t in range(teams):
        records[f"teams/t{t}.yaml"] = (
            f"nodeKind: team\nid: team:t{t}\nattributes:\n  title: Team {t}\n"
        )
    runbooks = (n - teams) // 3
    for r in range(runbooks):
        records[f"runbooks/r{r}.yaml"] = (
            f"nodeKind: runbook\nid: runbook:r{r}\nattributes:\n  title: Runbook {r}\n"
        )
    services = n - teams - runbooks
    for s in range(services):
        deps = [f"service:s{d}" for d in (s - 1, s // 2) if 0 <= d < s]
        edges = f"  documented_by: [runbook:r{s % max(runbooks, 1)}]\n"
        if deps:
            edges += f"  depends_on: [{', '.join(dict.fromkeys(deps))}]\n"
        records[f"services/s{s}.yaml"] = (
            f"nodeKind: service\nid: service:s{s}\nattributes:\n  title: Service {s}\n"
            f"  owners: [team:t{s % teams}]\n  status: active\n  tier: standard\n"
            f"  paths: [src/s{s}/**]\nedges:\n{edges}"
        )
    return records


def bench_lint() -> None:
    from teambrain_kit.paths import BrainLayout
    from teambrain_schema.brain import load_brain
    from teambrain_schema.graph_lint import lint_graph
    from teambrain_schema.ontology import STARTER_FILES

    print("\n| records | graph lint | per record | growth vs 1,000 (linear: the size ratio) |")
    print("|---|---|---|---|")
    first: float | None = None
    baseline = 0.0
    for n in (1_000, 2_500, 5_000, 10_000):
        with tempfile.TemporaryDirectory(prefix="bench-graph-lint-") as scratch:
            root = Path(scratch)
            (root / ".git").mkdir()
            layout = BrainLayout(root)
            (layout.root / "ontology").mkdir(parents=True)
            for name, text in STARTER_FILES.items():
                (layout.root / "ontology" / name).write_text(text)
            for relpath, text in _records(n).items():
                path = layout.root / "graph" / relpath
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            brain = load_brain(layout)
            started = time.perf_counter()
            found = lint_graph(layout, brain)
            seconds = time.perf_counter() - started
            errors = [v for v in found.violations if v.severity == "error"]
            assert not errors, errors[:3]
            first = first or seconds
            print(f"| {n:,} | {seconds:.2f} s | {seconds / n * 1e6:.0f} µs | "
                  f"{seconds / first:.1f}x (size {n / 1000:.1f}x) |")  # fmt: skip
            if n == 1_000:
                baseline = _ruamel_parse_seconds(layout)
    print(f"\nbaseline, the same 1,000 records parsed by ruamel's round-trip loader alone (what "
          f"the fast reader replaces): {baseline:.2f} s")  # fmt: skip


def _ruamel_parse_seconds(layout) -> float:  # type: ignore[no-untyped-def]
    from teambrain_schema.graph import graph_record_paths, parse_record

    paths, _ = graph_record_paths(layout)
    texts = [(layout.relative(p), p.read_text()) for p in paths]
    started = time.perf_counter()
    for relpath, text in texts:
        parse_record(relpath, text, fast=False)
    return time.perf_counter() - started


def main() -> None:
    keywords = "--keywords" in sys.argv
    bench_context(keywords)
    bench_lint()


if __name__ == "__main__":
    main()
