"""`tb verify`'s llm-imports check parses only the files that can spell an LLM client's import;
the byte filter it uses must never skip a file in which the parse would find one."""

from __future__ import annotations

import ast
import unicodedata
from pathlib import Path

from hypothesis import example, given, settings, strategies as st
from teambrain_cli._checks.verify import (
    _MAY_IMPORT_AN_LLM,
    LLM_CLIENTS,
    _imported_modules,
    check_llm_imports,
)

NAMES = [*sorted(LLM_CLIENTS), "json", "os.path", "teambrain_schema", "opena", "anthropi"]
_FULLWIDTH = {c: chr(ord(c) + 0xFEE0) for c in "abcdefghijklmnopqrstuvwxyz"}


def _spellings(name: str) -> st.SearchStrategy[str]:
    """Ways Python code names a module: plain, NFKC look-alike letters (an identifier), a string
    with escapes or split into adjacent literals (a call importing by name)."""
    head = name.split(".", maxsplit=1)[0]
    fullwidth = "".join(_FULLWIDTH.get(c, c) for c in name)
    assert unicodedata.normalize("NFKC", fullwidth) == name
    escaped = "".join(f"\\x{ord(c):02x}" for c in name)
    cut = max(1, len(head) // 2)
    return st.sampled_from([
        f"import {name}",
        f"import {fullwidth}",
        f"from {name} import thing",
        f"from {fullwidth} import thing",
        f"import json, \\\n    {fullwidth}",
        f"from \\\n  \\\n  {fullwidth} import thing",
        f"x = 1; import {fullwidth}",
        f"import_module('{escaped}')",
        f"importlib.import_module('{name[:cut]}' '{name[cut:]}')",
        f"__import__(\"{escaped}\")",
        f"x = '{name[:cut]}' + '{name[cut:]}'  # not an import",
        f"# {name} is only mentioned",
    ])  # fmt: skip


LINE = st.sampled_from(NAMES).flatmap(_spellings)
SOURCE = st.lists(
    st.one_of(LINE, st.sampled_from(["", "pass", "def f():", "    import json", "    return 1"])),
    max_size=12,
).map("\n".join)


def _llm_imports(source: str) -> list[str]:
    try:
        tree = ast.parse(source.encode())
    except SyntaxError:
        return []
    return [n for n, _ in _imported_modules(tree) if n.split(".")[0] in LLM_CLIENTS]


@settings(max_examples=400)
@given(SOURCE)
@example("import ｏｐｅｎａｉ")
@example("import_module('\\x6fpenai')")
def test_a_file_the_filter_skips_imports_no_llm_client(source: str) -> None:
    if _llm_imports(source):
        assert _MAY_IMPORT_AN_LLM.search(source.encode())


def test_the_check_still_names_each_spelling(tmp_path: Path) -> None:
    package = tmp_path / "teambrain_fake"
    package.mkdir()
    spellings = {
        "plain.py": "import anthropic\n",
        "wide.py": "def f():\n    import ｏｐｅｎａｉ\n",
        "escaped.py": "import importlib\nimportlib.import_module('\\x6fllama')\n",
        "split.py": "__import__('instr' 'uctor')\n",
        "clean.py": "import json\n# the word anthropic in a comment\n",
    }
    for name, text in spellings.items():
        (package / name).write_text(text, encoding="utf-8")
    result = check_llm_imports({"teambrain_fake": package})
    assert result.status == "FAIL"
    named = "\n".join(result.evidence)
    for name in ("plain.py", "wide.py", "escaped.py", "split.py"):
        assert name in named
    assert "clean.py" not in named
    assert "5 installed files" not in result.summary  # it failed: the summary names a problem
