import importlib
import pkgutil
import subprocess
import sys

import teambrain_schema
from teambrain_schema.lazy import export_problems


def test_public_api_is_pinned_and_resolves() -> None:
    # Exactly these: a name added or dropped is an API change the pin must record.
    assert sorted(teambrain_schema.__all__) == PUBLIC_API
    for name in teambrain_schema.__all__:
        assert getattr(teambrain_schema, name) is not None, name


def test_the_top_level_is_the_contract_alone() -> None:
    """Models, enums, limits, names, errors — and the four functions that define a wire form;
    machinery lives in the public sub-modules."""
    import inspect

    functions = sorted(
        name for name in teambrain_schema.__all__
        if inspect.isfunction(getattr(teambrain_schema, name))
    )  # fmt: skip
    assert functions == ["content_hash", "dump_event", "intent_summary", "parse_event"]


def test_public_sub_modules_are_pinned_and_resolve() -> None:
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
        "from teambrain_schema.secrets import redact_secrets\n"
        "from teambrain_schema.paths import machine_layout, find_repo_root\n"
        "from teambrain_schema.render import render_memory\n"
        "from teambrain_schema.tokens import estimate_tokens\n"
        "from teambrain_schema.atomic import write_text_atomic\n"
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

# Each public sub-module (shared machinery) and its __all__, sorted.
PUBLIC_MODULES = {
    "atomic": ["write_bytes_atomic", "write_text_atomic"],
    "brain": [
        "Brain",
        "BrainFile",
        "ConfigProblem",
        "FileProblem",
        "brain_file_from_text",
        "brain_yaml_line",
        "file_name_problem",
        "load_brain",
        "load_brain_config",
        "load_config_file",
        "read_text_safely",
    ],
    "citation_checker": ["CitationChecker", "StaleCitation"],
    "citations": ["Citation", "MAX_EVIDENCE_CHECKED", "extract_citations"],
    "code_names": ["MEMBER", "code_name", "defined_in", "defined_names", "defines", "mentions"],
    "drafts": ["validate_draft"],
    "egress": [
        "ApprovalState",
        "Approvals",
        "Egress",
        "EgressNotApproved",
        "approve_egress",
        "load_approvals",
        "machine_proxy",
        "normalise_url",
        "require_approved",
        "revoke_egress",
        "set_machine_proxy",
        "trust_file",
    ],
    "frontmatter": [
        "FrontMatterError",
        "MemoryDocument",
        "describe_validation_error",
        "new_memory_text",
        "parse_memory",
        "serialise_memory",
        "split_front_matter",
    ],
    "evidence": ["EvidenceFate", "evidence_fates"],
    "git": [
        "GitFailed",
        "first_line",
        "git_env",
        "git_output",
        "git_path",
        "network_timeout",
        "read_git_blobs",
        "run_git",
        "unsafe_git_path",
    ],
    "globmatch": ["glob_matcher"],
    "gitdir": [
        "BASE_REMOTE_NAMES",
        "DEFAULT_BRANCH_NAMES",
        "DETACHED",
        "config_remote_roles",
        "default_branch",
        "file_stamp",
        "find_git",
        "git_dirs_at",
        "git_state_stamps",
        "is_sha",
        "read_branch",
        "read_git_file",
        "read_head_sha",
        "read_ref_sha",
        "remote_default_branch",
        "remote_roles",
        "remote_slug",
    ],
    "home": [
        "FETCH_MINUTES_ENV",
        "FETCH_TIMEOUT_ENV",
        "HOME_ENV",
        "ORG_BRAIN_ENV",
        "SERVE_FROM_ENV",
        "env_setting_source",
        "note_from_user_config",
        "teambrain_home_dir",
    ],
    "ids": ["is_ulid", "new_ulid"],
    "index_md": ["parse_retirement_reasons"],
    "injection": ["InjectionFinding", "find_injections"],
    "lazy": ["export_problems", "lazy_exports", "write_reexports"],
    "graph": [
        "DEFAULT_DEPTH",
        "Graph",
        "GraphEdge",
        "GraphRecord",
        "Hop",
        "MAX_DEPTH",
        "MAX_RECORD_BYTES",
        "NODE_ID_PATTERN",
        "RecordCache",
        "RecordProblem",
        "Route",
        "TAG_EDGE",
        "graph_record_paths",
        "load_graph",
        "node_label",
        "parse_record",
    ],
    "graph_lint": ["GraphLint", "check_record", "lint_graph", "lint_records", "record_relpath"],
    "lint": [
        "LintReport",
        "Violation",
        "expected_index_text",
        "index_md_text",
        "injection_findings",
        "lint_brain",
        "regenerate_index",
    ],
    "local_files": [
        "FileTooLarge",
        "NotARegularFile",
        "OutsideTree",
        "loads_json",
        "open_local_file",
        "read_file_within",
        "read_json_file",
        "read_local_bytes",
        "read_local_text",
        "write_lands_outside",
    ],
    "moments": ["parse_moment"],
    "notes": [
        "MAX_NOTE_BYTES",
        "NOTE_PREFIX",
        "Note",
        "lint_notes",
        "note_id",
        "note_paths",
        "parse_note",
        "read_note",
        "render_note",
    ],
    "ontology": [
        "EdgeKind",
        "MEMORY_TARGET",
        "NodeKind",
        "ONTOLOGY_FILES",
        "Ontology",
        "OntologyProblem",
        "STARTER_FILES",
        "ValidationRules",
        "kind_key",
        "load_ontology",
        "parse_ontology",
    ],
    "outbound": [
        "DEFAULT_MAX_REPLY_BYTES",
        "ENV_PROXY_VARIABLES",
        "OutboundError",
        "OutboundTimeout",
        "RedirectRefused",
        "Reply",
        "ReplyTooLarge",
        "Unreachable",
        "env_proxies_ignored",
        "is_loopback_host",
        "origin_of",
        "send",
    ],
    "paths": [
        "BrainLayout",
        "MachineLayout",
        "composed_form",
        "find_brain",
        "find_repo_root",
        "machine_layout",
        "teambrain_home",
    ],
    "plugins": [
        "ADAPTERS_GROUP",
        "DRIVERS_GROUP",
        "EMBEDDERS_GROUP",
        "PluginProblem",
        "TIMEOUT_ENV",
        "builtin_names",
        "load_builtin",
        "load_plugin",
        "load_timeout",
        "plugin_call",
        "plugin_names",
    ],
    "private_dirs": ["create_private_file", "ensure_private_dir"],
    "read_policy": [
        "PolicyProblem",
        "PolicySource",
        "QUERY_MODES",
        "ReadPolicy",
        "load_read_policy",
        "load_sources",
        "parse_source",
        "source_files",
    ],
    "render": [
        "MEMORY_NOTICE",
        "RENDER_PREFIX",
        "forged_header_lines",
        "one_line",
        "quote_path",
        "render_memory",
        "rendering_problem",
        "sanitise_body",
    ],
    "scrub": ["scrub", "scrub_text"],
    "secrets": ["SecretFinding", "find_secrets", "redact_secrets"],
    "served": ["excluded_ids"],
    "slugs": ["slugify"],
    "staleness": ["EvidenceNote", "StaleMemory", "followed_evidence", "stale_memories"],
    "tokens": ["estimate_tokens", "memory_token_cost"],
    "yaml": ["YamlProblem", "dump_yaml", "load_yaml"],
}


def test_a_package_without_built_in_entry_points_is_named_stale() -> None:
    import pytest
    from teambrain_schema.plugins import PluginProblem, builtin_names, load_builtin

    assert builtin_names("teambrain.adapters", "teambrain-no-such-package") == ()
    with pytest.raises(PluginProblem, match="stale or missing"):
        load_builtin("teambrain.adapters", "teambrain-no-such-package", "x")
