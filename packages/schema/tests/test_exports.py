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
    # Exactly these: a name added or dropped is an API change the pin must record.
    assert sorted(teambrain_schema.__all__) == PUBLIC_API
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


# The whole public API of teambrain_schema, sorted.
PUBLIC_API = [
    "ADAPTERS_GROUP",
    "AdapterSpec",
    "AdaptersFile",
    "BRAIN_DIRNAME",
    "BRAIN_YAML_TEMPLATE",
    "Brain",
    "BrainConfig",
    "BrainFile",
    "BrainLayout",
    "CLASS_FOLDERS",
    "Candidate",
    "CandidateProposedData",
    "CandidateProposedEvent",
    "Citation",
    "CitationChecker",
    "ConfigProblem",
    "DETACHED",
    "DRIVERS_GROUP",
    "DistillConfig",
    "EMBEDDERS_GROUP",
    "ENVELOPE_ADAPTER",
    "EVENT_TYPES",
    "EmbedderConfig",
    "Envelope",
    "EnvironmentProblem",
    "Evidence",
    "ExitCode",
    "FOLDER_CLASSES",
    "FileProblem",
    "FileTooLarge",
    "FrontMatterError",
    "GitFailed",
    "HOME_ENV",
    "HookWiring",
    "IndexEntry",
    "IndexStats",
    "IndexableDoc",
    "InjectionFinding",
    "IntentData",
    "IntentEvent",
    "IntentText",
    "LintReport",
    "MAX_BODY_BYTES",
    "MAX_BODY_WORDS",
    "MAX_CONTEXT_BUDGET",
    "MAX_INTENT_CHARS",
    "MAX_SEARCH_K",
    "MAX_TITLE_CHARS",
    "MEMORY_CLASSES",
    "MEMORY_NOTICE",
    "MachineLayout",
    "McpWiring",
    "Memory",
    "MemoryClass",
    "MemoryContextResult",
    "MemoryDocument",
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
    "NotARegularFile",
    "PRIVATE_MARK",
    "PlanRevisionData",
    "PlanRevisionEvent",
    "PluginProblem",
    "Priority",
    "Proposer",
    "Provenance",
    "RENDER_PREFIX",
    "RetrievalBackend",
    "RetrievalConfig",
    "SCRUBBED_ENV",
    "Scope",
    "Scored",
    "SecretFinding",
    "SessionEndData",
    "SessionEndEvent",
    "SessionStartData",
    "SessionStartEvent",
    "Source",
    "StaleCitation",
    "StaleMemory",
    "Status",
    "TeambrainError",
    "ToolUseData",
    "ToolUseEvent",
    "ULID_PATTERN",
    "UserError",
    "ValidationFailure",
    "Violation",
    "YamlProblem",
    "brain_file_from_text",
    "composed_form",
    "content_hash",
    "count_words",
    "create_private_file",
    "describe_validation_error",
    "dump_event",
    "dump_yaml",
    "ensure_private_dir",
    "estimate_tokens",
    "excluded_ids",
    "expected_index_text",
    "export_json_schemas",
    "extract_citations",
    "fence_for",
    "file_stamp",
    "find_brain",
    "find_git",
    "find_injections",
    "find_repo_root",
    "find_secrets",
    "first_line",
    "forged_header_lines",
    "git_dirs_at",
    "git_env",
    "git_executable",
    "git_output",
    "git_state_stamps",
    "has_injection",
    "has_secret",
    "intent_summary",
    "is_sha",
    "is_slug",
    "is_ulid",
    "json_schema_documents",
    "lazy_exports",
    "lint_brain",
    "load_brain",
    "load_brain_config",
    "load_config_file",
    "load_plugin",
    "load_yaml",
    "loads_json",
    "machine_layout",
    "memory_token_cost",
    "network_timeout",
    "new_memory_text",
    "new_ulid",
    "one_line",
    "parse_event",
    "parse_memory",
    "parse_moment",
    "parse_retirement_reasons",
    "plugin_names",
    "read_branch",
    "read_git_file",
    "read_head_sha",
    "read_json_file",
    "read_local_bytes",
    "read_local_text",
    "read_text_safely",
    "redact_secrets",
    "regenerate_index",
    "render_index",
    "render_memory",
    "rendering_problem",
    "run_git",
    "sanitise_body",
    "scrub",
    "scrub_text",
    "serialise_memory",
    "shannon_entropy",
    "slugify",
    "split_front_matter",
    "stale_memories",
    "strip_private",
    "teambrain_home",
    "teambrain_home_dir",
    "validate_draft",
    "write_bytes_atomic",
    "write_text_atomic",
]
