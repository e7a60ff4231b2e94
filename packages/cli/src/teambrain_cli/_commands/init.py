"""``tb init``: create the brain in this repository and the machine-local directories."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import click
from teambrain_schema import BRAIN_DIRNAME, BRAIN_YAML_TEMPLATE, MEMORY_CLASSES
from teambrain_schema.atomic import write_text_atomic
from teambrain_schema.lint import regenerate_index
from teambrain_schema.paths import BrainLayout, MachineLayout

from .._console.context import machine, require_repo
from .._console.output import emit_json

PROMPTS_README = """\
# Distiller prompts

`tb distill` builds its requests to the model from the templates in this folder. They are
versioned with the brain: change them by pull request, like memories.

- `distill-system.md`: the instructions (placeholder: `$max_candidates`).
- `distill-session.md`: one request per session (placeholders: `$memories`, `$session`
  (required), `$max_candidates`). Write `$$` for a literal dollar sign.

Delete a template and run `tb init` to get this version's default back.
"""


def _refuse_link_out(path: Path, within: Path | None, label: str) -> None:
    """Stop before writing ``path`` when a committed link takes it out of ``within`` (the
    repository for the brain folder, the brain for what is in it) or into ``.git/``."""
    from teambrain_schema import EnvironmentProblem
    from teambrain_schema.local_files import write_lands_outside

    real = None if within is None else write_lands_outside(path, within)
    if real is not None:
        where = (
            "the brain" if within is not None and within.name == BRAIN_DIRNAME else "the repository"
        )
        raise EnvironmentProblem(
            f"{label.rstrip('/')} is a link that leads out of {where} (to {real}): nothing was "
            "written there; remove the link (`git rm` it) and run `tb init` again"
        )


def _ensure_dir(
    path: Path, created: list[str], label: str, *, mode: int | None = None,
    within: Path | None = None,
) -> None:  # fmt: skip
    _refuse_link_out(path, within, label)
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True)
        created.append(label)
    if mode is not None and stat.S_IMODE(path.stat().st_mode) != mode:
        os.chmod(path, mode)
        if label not in created:
            created.append(f"{label} (permissions set to {mode:o})")


def _ensure_file(path: Path, text: str, created: list[str], label: str) -> None:
    # A link at ``path`` itself is replaced, never written through (write_text_atomic renames
    # over it); its folder was checked by _ensure_dir.
    if not path.exists():
        write_text_atomic(path, text)
        created.append(label)


def init_brain(layout: BrainLayout, created: list[str]) -> None:
    """Create whatever of the brain is missing; never overwrite what exists."""
    rel = layout.relative
    brain = layout.root
    _ensure_dir(brain, created, rel(brain) + "/", within=layout.repo_root)
    _ensure_file(layout.brain_yaml, BRAIN_YAML_TEMPLATE, created, rel(layout.brain_yaml))
    for memory_class in MEMORY_CLASSES:
        folder = layout.class_dir(memory_class)
        _ensure_dir(folder, created, rel(folder) + "/", within=brain)
        if not any(folder.iterdir()):
            _ensure_file(folder / ".gitkeep", "", created, rel(folder / ".gitkeep"))
    _ensure_dir(layout.retired, created, rel(layout.retired) + "/", within=brain)
    if not any(layout.retired.iterdir()):
        keep = layout.retired / ".gitkeep"
        _ensure_file(keep, "", created, rel(keep))
    _ensure_dir(layout.prompts, created, rel(layout.prompts) + "/", within=brain)
    readme = layout.prompts / "README.md"
    _ensure_file(readme, PROMPTS_README, created, rel(readme))
    from teambrain_distill import DEFAULT_PROMPTS

    for name, text in DEFAULT_PROMPTS.items():
        _ensure_file(layout.prompts / name, text, created, rel(layout.prompts / name))
    _init_graph(layout, created)
    if not layout.index_md.exists() and regenerate_index(layout):
        created.append(rel(layout.index_md))


def _init_graph(layout: BrainLayout, created: list[str]) -> None:
    """The starter ontology (docs/graph.md), and empty graph/ and notes/ folders: a file of
    the ontology a team deleted or changed is left as it is."""
    from teambrain_schema.ontology import STARTER_FILES

    rel = layout.relative
    ontology = layout.root / "ontology"
    _ensure_dir(ontology, created, rel(ontology) + "/", within=layout.root)
    for name, text in STARTER_FILES.items():
        _ensure_file(ontology / name, text, created, rel(ontology / name))
    for folder in (layout.root / "graph", layout.root / "notes"):
        _ensure_dir(folder, created, rel(folder) + "/", within=layout.root)
        if not any(folder.iterdir()):
            _ensure_file(folder / ".gitkeep", "", created, rel(folder / ".gitkeep"))


def init_machine(home: MachineLayout, created: list[str]) -> None:
    """Create the machine-local directories, private to this user (mode 0700)."""
    for path in (
        home.home,
        home.spool,
        home.sessions,
        home.candidates,
        home.logs,
        home.home / "user",
    ):
        _ensure_dir(path, created, str(path), mode=0o700)


@click.command("init")
@click.option("--json", "as_json", is_flag=True, help="Print what was created as JSON.")
def command(as_json: bool = False) -> None:
    """Create .teambrain/ in this git repository and the machine-local directories.

    Idempotent: what exists is left alone, so a second run changes nothing.

    \b
    Examples:
      tb init
      tb init --json
    """
    layout = BrainLayout(require_repo())
    created: list[str] = []
    init_brain(layout, created)
    init_machine(machine(), created)
    if as_json:
        emit_json({"ok": True, "repository": str(layout.repo_root), "created": created})
        return
    if not created:
        click.echo(f"teambrain is already initialised in {layout.repo_root}; nothing changed.")
        return
    click.echo(f"Initialised teambrain in {layout.repo_root}:")
    for label in created:
        click.echo(f"  created {label}")
    click.echo(
        "Next: `tb install <tool>` wires your agent tool (`tb install --list`); `tb import` "
        "brings in the instructions you already have; commit .teambrain/."
    )
