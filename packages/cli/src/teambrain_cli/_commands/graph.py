"""``tb graph``: the brain's graph — every node, or one node and what lies around it."""

from __future__ import annotations

import click

from .._browse import open_view
from .._browse.graph import list_nodes, load_brain_graph, node_view
from .._console.output import echo, emit_json, paint


@click.command("graph")
@click.argument("node", required=False, metavar="[NODE]")
@click.option(
    "--depth", type=int, default=1, show_default=True,
    help="How many edges out to show the neighbourhood (0-4).",
)  # fmt: skip
@click.option("--ref", metavar="REF", help="The graph as it was at this commit, tag or branch.")
@click.option("--at", metavar="ISO", help="The graph as it was at this moment.")
@click.option("--json", "as_json", is_flag=True, help="Print it as JSON.")
def command(node: str | None, depth: int, ref: str | None, at: str | None, as_json: bool) -> None:
    """List the graph's nodes, or show NODE and its neighbours within --depth edges.

    NODE is a node id (service:payments), or a name exactly one node has (payments, or its
    title). Neighbours are nodes and memories, each with the path of edges that reaches it
    (→ along an edge, ← against it); memories link to nodes through edges of the records and
    through their tags. See docs/graph.md.

    \b
    Examples:
      tb graph                          every node, by kind
      tb graph service:payments         the node, its edges and linked memories
      tb graph payments --depth 2 --json
    """
    from teambrain_schema.render import one_line

    with open_view(ref=ref, at=at) as view:
        bg = load_brain_graph(view.layout)
        if node is None:
            records = list_nodes(bg)
            if as_json:
                emit_json({
                    "ok": True,
                    "nodes": [
                        {"id": r.id, "kind": r.node_kind, "title": r.title, "path": r.relpath}
                        for r in records
                    ],
                })  # fmt: skip
                return
            if not records:
                click.echo(
                    "No graph records yet (.teambrain/graph/; see `tb help graph-guide`).", err=True
                )
                return
            width = max(len(r.id) for r in records)
            for record in records:
                echo(f"{record.id:<{width}}  {record.node_kind:<11} {one_line(record.title)}")
            click.echo(f"{len(records)} node(s)", err=True)
            return
        shown = node_view(bg, node, depth)
    if as_json:
        emit_json({"ok": True, **shown.to_json()})
        return
    record = shown.record
    lines = [
        paint(f"{record.id}", bold=True) + f"  {record.node_kind} · {one_line(record.title)}",
        f"  {record.relpath}:{record.line('id')}",
    ]
    for key, value in record.attributes.items():
        if key == "title":
            continue
        text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        lines.append(f"  {key}: {one_line(text)}")
    if shown.neighbours:
        lines += ["", paint(f"Within {shown.depth} edge(s)", bold=True)]
    for neighbour in shown.neighbours:
        label = neighbour.kind or "memory"
        status = f" ({neighbour.status})" if neighbour.status not in (None, "active") else ""
        lines.append(f"  {neighbour.id}  {label} · {one_line(neighbour.title)}{status}")
        lines.append(f"      {neighbour.via}")
    if not shown.neighbours and shown.depth:
        lines += ["", "  no edges: nothing links to it or from it"]
    echo("\n".join(lines))
