import subprocess
import sys

import teambrain_schema

EXPECTED_SAMPLE = {
    "MemoryFrontMatter", "Envelope", "render_memory", "redact_secrets", "lint_brain",
    "RetrievalBackend", "IndexableDoc", "Scored", "IndexStats", "BrainConfig", "AdaptersFile",
    "Candidate", "MemoryDraft", "new_ulid", "ExitCode", "parse_memory", "serialise_memory",
}  # fmt: skip


def test_public_api_is_pinned_and_resolves() -> None:
    assert set(teambrain_schema.__all__) >= EXPECTED_SAMPLE
    for name in teambrain_schema.__all__:
        assert getattr(teambrain_schema, name) is not None, name


def test_unknown_attribute_raises() -> None:
    try:
        teambrain_schema.does_not_exist  # noqa: B018
    except AttributeError as exc:
        assert "does_not_exist" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_hook_path_names_do_not_import_pydantic_or_ruamel() -> None:
    code = (
        "import sys\n"
        "from teambrain_schema import redact_secrets, machine_layout, ExitCode, render_memory,"
        " estimate_tokens, write_text_atomic, find_repo_root, is_ulid\n"
        "redact_secrets('x'); render_memory('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'b')\n"
        "heavy = [m for m in ('pydantic', 'ruamel', 'ruamel.yaml', 'ulid') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_type_checking_reexports_match_the_lazy_table() -> None:
    import re
    from pathlib import Path

    source = Path(teambrain_schema.__file__).read_text()
    typed = set(re.findall(r"(?:^\s+|import )(\w+) as \1\b", source, flags=re.MULTILINE))
    assert typed == set(teambrain_schema.__all__)
