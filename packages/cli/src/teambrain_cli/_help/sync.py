"""``make help-pages``: copy the repository's documentation pages (``docs/*.md``,
``docs/cli/*.md``) into this package, where ``tb help`` reads them; ``--check`` only says which
differ (a test runs it, so the shipped pages never drift from docs/)."""

from __future__ import annotations

import sys
from pathlib import Path

PAGES = Path(__file__).resolve().parent / "pages"


def wanted(docs: Path) -> dict[str, bytes]:
    """The pages to ship, by path under docs/, and their bytes."""
    found = {p.name: p.read_bytes() for p in sorted(docs.glob("*.md"))}
    found.update({f"cli/{p.name}": p.read_bytes() for p in sorted((docs / "cli").glob("*.md"))})
    return found


def shipped() -> dict[str, bytes]:
    found = {p.name: p.read_bytes() for p in sorted(PAGES.glob("*.md"))}
    found.update({f"cli/{p.name}": p.read_bytes() for p in sorted((PAGES / "cli").glob("*.md"))})
    return found


def differences(docs: Path) -> list[str]:
    """The pages that differ between ``docs`` and this package (missing, extra or changed)."""
    want, have = wanted(docs), shipped()
    return sorted(name for name in set(want) | set(have) if want.get(name) != have.get(name))


def sync(docs: Path) -> list[str]:
    """Make the shipped pages exactly ``docs``'s; the pages changed."""
    changed = differences(docs)
    want = wanted(docs)
    for name in changed:
        target = PAGES / name
        if name in want:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(want[name])
        else:
            target.unlink()
    return changed


if __name__ == "__main__":  # python -m teambrain_cli._help.sync docs [--check]
    args = [a for a in sys.argv[1:] if a != "--check"]
    root = Path(args[0] if args else "docs")
    if "--check" in sys.argv:
        found = differences(root)
        print("\n".join(found) or "the shipped pages are docs/'s")
        sys.exit(1 if found else 0)
    for name in sync(root):
        print(f"updated {name}")
