import importlib
import pkgutil
import subprocess
import sys

import teambrain_schema
from teambrain_kit.lazy import export_problems


def test_public_api_is_pinned_and_resolves() -> None:
    # Exactly these: a name added or dropped is an API change the pin must record.
    assert sorted(teambrain_schema.__all__) == PUBLIC_API
    for name in teambrain_schema.__all__:
        assert getattr(teambrain_schema, name) is not None, name


def test_the_top_level_is_the_contract_alone() -> None:
    """Models, enums, limits, names, errors — and the four functions that define a wire form;
    rules and rendering live in the public sub-modules, machinery in teambrain_kit."""
    import inspect

    functions = sorted(
        name for name in teambrain_schema.__all__
        if inspect.isfunction(getattr(teambrain_schema, name))
    )  # fmt: skip
    assert functions == ["content_hash", "dump_event", "intent_summary", "parse_event"]


def test_public_sub_modules_are_pinned_and_resolve() -> None:
    """The contract's rules and rendering; the machinery is teambrain_kit's (packages/kit)."""
    package = teambrain_schema.__path__
    public = sorted(
        info.name for info in pkgutil.iter_modules(package) if not info.name.startswith("_")
    )
    assert public == sorted(PUBLIC_MODULES)
    for name, expected in PUBLIC_MODULES.items():
        module = importlib.import_module(f"teambrain_schema.{name}")
        assert sorted(module.__all__) == expected, name
        for attribute in expected:
            assert getattr(module, attribute) is not None, f"{name}.{attribute}"
        # one home per name: nothing is both contract and machinery
        assert not set(expected) & set(teambrain_schema.__all__), name


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
        "from teambrain_schema import ExitCode\n"
        "from teambrain_kit.secrets import redact_secrets\n"
        "from teambrain_kit.paths import machine_layout, find_repo_root\n"
        "from teambrain_schema.render import render_memory\n"
        "from teambrain_schema.tokens import estimate_tokens\n"
        "from teambrain_kit.atomic import write_text_atomic\n"
        "from teambrain_schema.ids import is_ulid\n"
        "redact_secrets('x'); render_memory('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'b')\n"
        "heavy = [m for m in ('pydantic', 'ruamel', 'ruamel.yaml', 'ulid') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_public_names_are_written_once() -> None:
    """``_EXPORTS`` in ``__init__.py`` is the one list of public names: ``__all__``, the lazy
    loader and the type checkers' re-exports (``make exports``) come from it; the pin above
    records it deliberately."""
    assert export_problems(teambrain_schema) == []


# The whole top level of teambrain_schema (the contract), sorted.
PUBLIC_API = [
    "AdapterSpec",
    "AdaptersFile",
    "BRAIN_DIRNAME",
    "BRAIN_YAML_TEMPLATE",
    "BrainConfig",
    "CLASS_FOLDERS",
    "Candidate",
    "CandidateProposedData",
    "CandidateProposedEvent",
    "DistillConfig",
    "ENVELOPE_ADAPTER",
    "EVENT_TYPES",
    "EmbedderConfig",
    "Envelope",
    "EnvironmentProblem",
    "Evidence",
    "ExitCode",
    "FOLDER_CLASSES",
    "HookWiring",
    "IndexStats",
    "IndexableDoc",
    "IntentData",
    "IntentEvent",
    "IntentText",
    "MAX_BODY_BYTES",
    "MAX_BODY_WORDS",
    "MAX_CANDIDATE_BYTES",
    "MAX_CONTEXT_BUDGET",
    "MAX_EVIDENCE_ITEMS",
    "MAX_INTENT_CHARS",
    "MAX_SEARCH_K",
    "MAX_SUPERSEDES",
    "MAX_TITLE_CHARS",
    "MEMORY_CLASSES",
    "McpWiring",
    "Memory",
    "MemoryClass",
    "MemoryContextResult",
    "MemoryDraft",
    "MemoryFeedbackInput",
    "MemoryFeedbackResult",
    "MemoryFrontMatter",
    "MemoryProposeInput",
    "MemoryProposeResult",
    "MemoryResult",
    "MemoryRetrievedData",
    "MemoryRetrievedEvent",
    "MemorySearchInput",
    "MemorySearchResult",
    "NoteDraft",
    "NoteResult",
    "PlanRevisionData",
    "PlanRevisionEvent",
    "Priority",
    "ProposedDraft",
    "Proposer",
    "Provenance",
    "RecordCandidate",
    "RecordDraft",
    "RecordEdge",
    "RetrievalBackend",
    "RetrievalConfig",
    "Scope",
    "Scored",
    "SearchCoverage",
    "SessionEndData",
    "SessionEndEvent",
    "SessionStartData",
    "SessionStartEvent",
    "Source",
    "Status",
    "TeambrainError",
    "ToolUseData",
    "ToolUseEvent",
    "ULID_PATTERN",
    "UserError",
    "ValidationFailure",
    "content_hash",
    "dump_event",
    "intent_summary",
    "parse_event",
]

# Each public sub-module (the contract's rules, formats and rendering) and its __all__, sorted:
# only what another package uses (tests-integration/test_architecture.py checks both ways).
PUBLIC_MODULES = {
    "brain": [
        "Brain",
        "BrainFile",
        "ConfigProblem",
        "FileProblem",
        "brain_file_from_text",
        "brain_file_paths",
        "brain_yaml_line",
        "file_name_problem",
        "iter_tree",
        "load_brain",
        "load_brain_config",
        "load_brain_files",
        "load_config_file",
        "read_text_safely",
    ],
    "drafts": ["validate_draft"],
    "frontmatter": [
        "FrontMatterError",
        "MAX_MEMORY_FILE_BYTES",
        "MemoryDocument",
        "describe_validation_error",
        "new_memory_text",
        "parse_memory",
        "serialise_memory",
        "split_front_matter",
    ],
    "graph": [
        "Graph",
        "GraphEdge",
        "GraphRecord",
        "Hop",
        "RecordCache",
        "Route",
        "graph_record_paths",
        "load_graph",
        "parse_record",
    ],
    "graph_lint": ["GraphLint", "check_record", "lint_graph", "lint_records", "record_relpath"],
    "ids": ["is_ulid", "new_ulid"],
    "index_md": ["parse_retirement_reasons"],
    "lint": [
        "LintReport",
        "Violation",
        "expected_index_text",
        "index_md_text",
        "injection_findings",
        "lint_brain",
        "regenerate_index",
    ],
    "notes": ["MAX_NOTE_BYTES", "Note", "note_id", "parse_note", "read_note", "render_note"],
    "ontology": [
        "EdgeKind",
        "NodeKind",
        "Ontology",
        "STARTER_FILES",
        "ValidationRules",
        "load_ontology",
    ],
    "read_policy": ["PolicyProblem", "ReadPolicy", "load_read_policy"],
    "render": [
        "MEMORY_NOTICE",
        "forged_header_lines",
        "one_line",
        "quote_path",
        "render_memory",
        "rendering_problem",
        "sanitise_body",
    ],
    "served": ["excluded_ids"],
    "slugs": ["slugify"],
    "staleness": ["EvidenceNote", "StaleMemory", "followed_evidence", "stale_memories"],
    "tokens": ["estimate_tokens", "memory_token_cost"],
}
