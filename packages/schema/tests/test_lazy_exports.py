"""One list of public names per package (issue 43, point 3): ``_EXPORTS`` drives ``__all__`` and
the lazy loader, ``make exports`` writes the type checkers' re-exports from it, and
``export_problems`` (each package's test_exports) fails while any of them disagrees."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from teambrain_schema.lazy import GENERATED_MARK, export_problems, write_reexports

INIT = """\
from teambrain_schema.lazy import lazy_exports

TYPE_CHECKING = False

_EXPORTS: dict[str, str] = {
    "ANSWER": "_one",
    "double": "_one",
    "redact_secrets": "teambrain_schema.secrets",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
"""


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "tb_lazy_probe"
    root.mkdir()
    (root / "__init__.py").write_text(INIT, "utf-8")
    (root / "_one.py").write_text("ANSWER = 42\n\ndef double(x: int) -> int:\n    return 2 * x\n")
    sys.path.insert(0, str(tmp_path))
    yield root
    sys.path.remove(str(tmp_path))
    for name in [name for name in sys.modules if name.startswith("tb_lazy_probe")]:
        del sys.modules[name]


def fresh() -> object:
    for name in [name for name in sys.modules if name.startswith("tb_lazy_probe")]:
        del sys.modules[name]
    return importlib.import_module("tb_lazy_probe")


def test_the_block_is_written_from_the_table_and_then_agrees(package: Path) -> None:
    assert any("make exports" in problem for problem in export_problems(fresh()))
    write_reexports([str(package / "__init__.py")])
    text = (package / "__init__.py").read_text("utf-8")
    assert text.startswith(INIT) and GENERATED_MARK in text
    assert (
        "    from ._one import (\n        ANSWER as ANSWER,\n        double as double,\n    )"
        in text
    )
    assert "    from teambrain_schema.secrets import redact_secrets as redact_secrets" in text
    module = fresh()
    assert export_problems(module) == []
    assert module.double(4) == 8  # type: ignore[attr-defined]
    assert module.redact_secrets.__module__ == "teambrain_schema.secrets"  # type: ignore[attr-defined]


def test_a_name_added_to_the_table_alone_is_named(package: Path) -> None:
    write_reexports([str(package / "__init__.py")])
    init = package / "__init__.py"
    init.write_text(
        init.read_text().replace(
            '    "double": "_one",\n', '    "double": "_one",\n    "triple": "_one",\n'
        )
    )
    problems = export_problems(fresh())
    assert any("triple from ._one" in problem and "make exports" in problem for problem in problems)
    # and it does not load: the module has no such name
    assert any(problem.startswith("tb_lazy_probe.triple: AttributeError") for problem in problems)


def test_a_re_export_without_a_table_entry_is_named(package: Path) -> None:
    write_reexports([str(package / "__init__.py")])
    init = package / "__init__.py"
    init.write_text(init.read_text() + "    from ._one import extra as extra\n")
    assert any("extra from ._one" in p for p in export_problems(fresh()))
