"""What ``index.db`` holds, for ``tb verify``: which brains (and whether each is still on this
machine), and whether any retired memory's text is still in it. Opens the file read-only."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from teambrain_kit.paths import MachineLayout
from teambrain_schema import BRAIN_DIRNAME


@dataclass(frozen=True)
class IndexedBrain:
    """A brain recorded in the index, and whether its repository is still here."""

    brain: str
    root: str
    documents: int
    present: bool


@dataclass
class IndexInventory:
    """The brains in ``index.db`` and any retired memory whose text it still holds."""

    path: Path
    brains: list[IndexedBrain] = field(default_factory=list)
    retired_with_text: list[str] = field(default_factory=list)  # "<brain> <id> <path>"
    retired_tombstones: int = 0


def inventory_index(machine: MachineLayout) -> IndexInventory | None:
    """Read the index's inventory (None when there is no index file).

    Raises ``apsw.Error`` when the file cannot be read as an index.
    """
    import apsw

    path = machine.index_db
    if not path.is_file():
        return None
    db = apsw.Connection(
        f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    )
    try:
        counts = {
            str(b): int(n) for b, n in db.execute("SELECT brain, count(*) FROM docs GROUP BY brain")
        }
        roots = {str(b): str(r) for b, r in db.execute("SELECT brain, root FROM brains")}
        inventory = IndexInventory(path)
        for brain in sorted(set(counts) | set(roots)):
            root = str(roots.get(brain, ""))
            present = bool(root) and (Path(root) / BRAIN_DIRNAME).is_dir()
            inventory.brains.append(IndexedBrain(brain, root, counts.get(brain, 0), present))
        for brain, memory_id, relpath, title, body, tags in db.execute(
            "SELECT brain, id, path, title, body, tags FROM docs WHERE retired = 1 OR status = 'retired'"
        ):
            if title or body or tags:
                inventory.retired_with_text.append(f"{brain} {memory_id} {relpath}")
            else:
                inventory.retired_tombstones += 1
        return inventory
    finally:
        db.close()


def prune_index(machine: MachineLayout) -> list[str]:
    """Forget every brain whose repository is no longer on this machine; returns their ids."""
    from ._db import connect

    inventory = inventory_index(machine)
    if inventory is None:
        return []
    gone = [b.brain for b in inventory.brains if not b.present]
    if not gone:
        return []
    db = connect(machine.index_db)
    try:
        with db:
            for brain in gone:
                db.execute("DELETE FROM docs WHERE brain = ?", (brain,))
                db.execute("DELETE FROM files WHERE brain = ?", (brain,))
                db.execute("DELETE FROM brains WHERE brain = ?", (brain,))
        with db:
            db.execute("INSERT INTO docs_fts(docs_fts) VALUES('optimize')")
    finally:
        db.close()
    return gone
