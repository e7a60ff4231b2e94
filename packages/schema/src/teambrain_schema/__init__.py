"""teambrain's contract: the memory, event, MCP, retrieval and config schemas as code.

Names load lazily: ``from teambrain_schema import redact_secrets`` imports only the stdlib
secret scanner, which keeps the capture hook's start-up near a bare interpreter's. Models that
need pydantic load when first used.
"""

from __future__ import annotations

from ._lazy import lazy_exports as lazy_exports  # re-exported

# Not ``typing.TYPE_CHECKING``: importing typing costs the capture hook milliseconds at start-up.
# mypy treats any constant of this name as true.
TYPE_CHECKING = False

_EXPORTS: dict[str, str] = {
    # _errors (stdlib)
    "ExitCode": "_errors",
    "TeambrainError": "_errors",
    "UserError": "_errors",
    "EnvironmentProblem": "_errors",
    "ValidationFailure": "_errors",
    # _paths (stdlib)
    "BRAIN_DIRNAME": "_paths",
    "CLASS_FOLDERS": "_paths",
    "FOLDER_CLASSES": "_paths",
    "MEMORY_CLASSES": "_paths",
    "HOME_ENV": "_home",
    "BrainLayout": "_paths",
    "MachineLayout": "_paths",
    "teambrain_home": "_paths",
    "teambrain_home_dir": "_home",
    # _plugins (stdlib: entry points of other packages)
    "EMBEDDERS_GROUP": "_plugins",
    "DRIVERS_GROUP": "_plugins",
    "ADAPTERS_GROUP": "_plugins",
    "PluginProblem": "_plugins",
    "plugin_names": "_plugins",
    "load_plugin": "_plugins",
    "machine_layout": "_paths",
    "composed_form": "_paths",
    "find_repo_root": "_paths",
    "find_brain": "_paths",
    # _ulid, _slug, _tokens, _atomic (stdlib)
    "ULID_PATTERN": "_ulid",
    "new_ulid": "_ulid",
    "is_ulid": "_ulid",
    "slugify": "_slug",
    "is_slug": "_slug",
    "estimate_tokens": "_tokens",
    "memory_token_cost": "_tokens",
    "write_text_atomic": "_atomic",
    "write_bytes_atomic": "_atomic",
    "lazy_exports": "_lazy",
    # _draftcheck (pydantic)
    "validate_draft": "_draftcheck",
    # _gitrun (stdlib)
    "GitFailed": "_gitrun",
    "run_git": "_gitrun",
    "git_output": "_gitrun",
    "git_env": "_gitrun",
    "git_executable": "_gitrun",
    "network_timeout": "_gitrun",
    "first_line": "_gitrun",
    "SCRUBBED_ENV": "_gitrun",
    # _gitrefs (stdlib: git facts read from .git files, no subprocess)
    "DETACHED": "_gitrefs",
    "find_git": "_gitrefs",
    "file_stamp": "_gitrefs",
    "git_state_stamps": "_gitrefs",
    "git_dirs_at": "_gitrefs",
    "is_sha": "_gitrefs",
    "read_branch": "_gitrefs",
    "read_git_file": "_gitrefs",
    "read_head_sha": "_gitrefs",
    # _localfiles (stdlib)
    "NotARegularFile": "_localfiles",
    "FileTooLarge": "_localfiles",
    "read_local_bytes": "_localfiles",
    "read_local_text": "_localfiles",
    "read_json_file": "_localfiles",
    "loads_json": "_localfiles",
    # _served (stdlib)
    "excluded_ids": "_served",
    # _privdirs (stdlib)
    "ensure_private_dir": "_privdirs",
    "create_private_file": "_privdirs",
    # _private (stdlib)
    "PRIVATE_MARK": "_private",
    "strip_private": "_private",
    "scrub_text": "_private",
    "scrub": "_private",
    # _moments (stdlib)
    "parse_moment": "_moments",
    # _secrets, _render (stdlib)
    "SecretFinding": "_secrets",
    "find_secrets": "_secrets",
    "redact_secrets": "_secrets",
    "has_secret": "_secrets",
    "shannon_entropy": "_secrets",
    # _injection (stdlib)
    "InjectionFinding": "_injection",
    "find_injections": "_injection",
    "has_injection": "_injection",
    "RENDER_PREFIX": "_render",
    "MEMORY_NOTICE": "_render",
    "render_memory": "_render",
    "sanitise_body": "_render",
    "fence_for": "_render",
    "one_line": "_render",
    "rendering_problem": "_render",
    "forged_header_lines": "_render",
    # _citations (stdlib + git)
    "Citation": "_citations",
    "StaleCitation": "_citations",
    "CitationChecker": "_citations",
    "extract_citations": "_citations",
    "StaleMemory": "_staleness",
    "stale_memories": "_staleness",
    # _index_md (stdlib)
    "IndexEntry": "_index_md",
    "render_index": "_index_md",
    "parse_retirement_reasons": "_index_md",
    # _memory (pydantic)
    "MemoryClass": "_memory",
    "Scope": "_memory",
    "Status": "_memory",
    "Priority": "_memory",
    "Proposer": "_memory",
    "MAX_TITLE_CHARS": "_memory",
    "MAX_BODY_WORDS": "_memory",
    "MAX_BODY_BYTES": "_memory",
    "Evidence": "_memory",
    "MemoryFrontMatter": "_memory",
    "Memory": "_memory",
    "MemoryDraft": "_memory",
    "Candidate": "_memory",
    "content_hash": "_memory",
    "count_words": "_memory",
    # _envelope (pydantic)
    "EVENT_TYPES": "_envelope",
    "MAX_INTENT_CHARS": "_envelope",
    "Envelope": "_envelope",
    "ENVELOPE_ADAPTER": "_envelope",
    "SessionStartEvent": "_envelope",
    "IntentEvent": "_envelope",
    "MemoryRetrievedEvent": "_envelope",
    "ToolUseEvent": "_envelope",
    "PlanRevisionEvent": "_envelope",
    "CandidateProposedEvent": "_envelope",
    "SessionEndEvent": "_envelope",
    "SessionStartData": "_envelope",
    "IntentData": "_envelope",
    "IntentText": "_envelope",
    "intent_summary": "_envelope",
    "MemoryRetrievedData": "_envelope",
    "ToolUseData": "_envelope",
    "PlanRevisionData": "_envelope",
    "CandidateProposedData": "_envelope",
    "SessionEndData": "_envelope",
    "parse_event": "_envelope",
    "dump_event": "_envelope",
    # _mcp (pydantic)
    "MAX_CONTEXT_BUDGET": "_mcp",
    "MAX_SEARCH_K": "_mcp",
    "Provenance": "_mcp",
    "MemoryResult": "_mcp",
    "MemoryContextResult": "_mcp",
    "MemorySearchInput": "_mcp",
    "MemorySearchResult": "_mcp",
    "MemoryProposeInput": "_mcp",
    "MemoryProposeResult": "_mcp",
    "MemoryFeedbackInput": "_mcp",
    "MemoryFeedbackResult": "_mcp",
    # _backend (pydantic)
    "Source": "_backend",
    "IndexableDoc": "_backend",
    "Scored": "_backend",
    "IndexStats": "_backend",
    "RetrievalBackend": "_backend",
    # _config (pydantic)
    "BrainConfig": "_config",
    "RetrievalConfig": "_config",
    "EmbedderConfig": "_config",
    "DistillConfig": "_config",
    "AdaptersFile": "_config",
    "AdapterSpec": "_config",
    "McpWiring": "_config",
    "HookWiring": "_config",
    "BRAIN_YAML_TEMPLATE": "_config",
    # _yaml, _frontmatter, _brain, _lint (ruamel + pydantic)
    "YamlProblem": "_yaml",
    "load_yaml": "_yaml",
    "dump_yaml": "_yaml",
    "FrontMatterError": "_frontmatter",
    "split_front_matter": "_frontmatter",
    "MemoryDocument": "_frontmatter",
    "parse_memory": "_frontmatter",
    "serialise_memory": "_frontmatter",
    "new_memory_text": "_frontmatter",
    "describe_validation_error": "_frontmatter",
    "Brain": "_brain",
    "BrainFile": "_brain",
    "brain_file_from_text": "_brain",
    "FileProblem": "_brain",
    "ConfigProblem": "_brain",
    "load_brain": "_brain",
    "load_brain_config": "_brain",
    "load_config_file": "_brain",
    "read_text_safely": "_brain",
    "Violation": "_lint",
    "LintReport": "_lint",
    "lint_brain": "_lint",
    "expected_index_text": "_lint",
    "regenerate_index": "_lint",
    # _schemas
    "json_schema_documents": "_schemas",
    "export_json_schemas": "_schemas",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # explicit re-exports (``X as X``) for type checkers
    from ._atomic import (
        write_bytes_atomic as write_bytes_atomic,
        write_text_atomic as write_text_atomic,
    )
    from ._backend import (
        IndexableDoc as IndexableDoc,
        IndexStats as IndexStats,
        RetrievalBackend as RetrievalBackend,
        Scored as Scored,
        Source as Source,
    )
    from ._brain import (
        Brain as Brain,
        BrainFile as BrainFile,
        ConfigProblem as ConfigProblem,
        FileProblem as FileProblem,
        brain_file_from_text as brain_file_from_text,
        load_brain as load_brain,
        load_brain_config as load_brain_config,
        load_config_file as load_config_file,
        read_text_safely as read_text_safely,
    )
    from ._citations import (
        Citation as Citation,
        CitationChecker as CitationChecker,
        StaleCitation as StaleCitation,
        extract_citations as extract_citations,
    )
    from ._config import (
        BRAIN_YAML_TEMPLATE as BRAIN_YAML_TEMPLATE,
        AdaptersFile as AdaptersFile,
        AdapterSpec as AdapterSpec,
        BrainConfig as BrainConfig,
        DistillConfig as DistillConfig,
        EmbedderConfig as EmbedderConfig,
        HookWiring as HookWiring,
        McpWiring as McpWiring,
        RetrievalConfig as RetrievalConfig,
    )
    from ._draftcheck import validate_draft as validate_draft
    from ._envelope import (
        ENVELOPE_ADAPTER as ENVELOPE_ADAPTER,
        EVENT_TYPES as EVENT_TYPES,
        MAX_INTENT_CHARS as MAX_INTENT_CHARS,
        CandidateProposedData as CandidateProposedData,
        CandidateProposedEvent as CandidateProposedEvent,
        Envelope as Envelope,
        IntentData as IntentData,
        IntentEvent as IntentEvent,
        IntentText as IntentText,
        MemoryRetrievedData as MemoryRetrievedData,
        MemoryRetrievedEvent as MemoryRetrievedEvent,
        PlanRevisionData as PlanRevisionData,
        PlanRevisionEvent as PlanRevisionEvent,
        SessionEndData as SessionEndData,
        SessionEndEvent as SessionEndEvent,
        SessionStartData as SessionStartData,
        SessionStartEvent as SessionStartEvent,
        ToolUseData as ToolUseData,
        ToolUseEvent as ToolUseEvent,
        dump_event as dump_event,
        intent_summary as intent_summary,
        parse_event as parse_event,
    )
    from ._errors import (
        EnvironmentProblem as EnvironmentProblem,
        ExitCode as ExitCode,
        TeambrainError as TeambrainError,
        UserError as UserError,
        ValidationFailure as ValidationFailure,
    )
    from ._frontmatter import (
        FrontMatterError as FrontMatterError,
        MemoryDocument as MemoryDocument,
        describe_validation_error as describe_validation_error,
        new_memory_text as new_memory_text,
        parse_memory as parse_memory,
        serialise_memory as serialise_memory,
        split_front_matter as split_front_matter,
    )
    from ._gitrefs import (
        DETACHED as DETACHED,
        file_stamp as file_stamp,
        find_git as find_git,
        git_dirs_at as git_dirs_at,
        git_state_stamps as git_state_stamps,
        is_sha as is_sha,
        read_branch as read_branch,
        read_git_file as read_git_file,
        read_head_sha as read_head_sha,
    )
    from ._gitrun import (
        SCRUBBED_ENV as SCRUBBED_ENV,
        GitFailed as GitFailed,
        first_line as first_line,
        git_env as git_env,
        git_executable as git_executable,
        git_output as git_output,
        network_timeout as network_timeout,
        run_git as run_git,
    )
    from ._home import (
        HOME_ENV as HOME_ENV,
        teambrain_home_dir as teambrain_home_dir,
    )
    from ._index_md import (
        IndexEntry as IndexEntry,
        parse_retirement_reasons as parse_retirement_reasons,
        render_index as render_index,
    )
    from ._injection import (
        InjectionFinding as InjectionFinding,
        find_injections as find_injections,
        has_injection as has_injection,
    )
    from ._lint import (
        LintReport as LintReport,
        Violation as Violation,
        expected_index_text as expected_index_text,
        lint_brain as lint_brain,
        regenerate_index as regenerate_index,
    )
    from ._localfiles import (
        FileTooLarge as FileTooLarge,
        NotARegularFile as NotARegularFile,
        loads_json as loads_json,
        read_json_file as read_json_file,
        read_local_bytes as read_local_bytes,
        read_local_text as read_local_text,
    )
    from ._mcp import (
        MAX_CONTEXT_BUDGET as MAX_CONTEXT_BUDGET,
        MAX_SEARCH_K as MAX_SEARCH_K,
        MemoryContextResult as MemoryContextResult,
        MemoryFeedbackInput as MemoryFeedbackInput,
        MemoryFeedbackResult as MemoryFeedbackResult,
        MemoryProposeInput as MemoryProposeInput,
        MemoryProposeResult as MemoryProposeResult,
        MemoryResult as MemoryResult,
        MemorySearchInput as MemorySearchInput,
        MemorySearchResult as MemorySearchResult,
        Provenance as Provenance,
    )
    from ._memory import (
        MAX_BODY_BYTES as MAX_BODY_BYTES,
        MAX_BODY_WORDS as MAX_BODY_WORDS,
        MAX_TITLE_CHARS as MAX_TITLE_CHARS,
        Candidate as Candidate,
        Evidence as Evidence,
        Memory as Memory,
        MemoryClass as MemoryClass,
        MemoryDraft as MemoryDraft,
        MemoryFrontMatter as MemoryFrontMatter,
        Priority as Priority,
        Proposer as Proposer,
        Scope as Scope,
        Status as Status,
        content_hash as content_hash,
        count_words as count_words,
    )
    from ._moments import parse_moment as parse_moment
    from ._paths import (
        BRAIN_DIRNAME as BRAIN_DIRNAME,
        CLASS_FOLDERS as CLASS_FOLDERS,
        FOLDER_CLASSES as FOLDER_CLASSES,
        MEMORY_CLASSES as MEMORY_CLASSES,
        BrainLayout as BrainLayout,
        MachineLayout as MachineLayout,
        composed_form as composed_form,
        find_brain as find_brain,
        find_repo_root as find_repo_root,
        machine_layout as machine_layout,
        teambrain_home as teambrain_home,
    )
    from ._plugins import (
        ADAPTERS_GROUP as ADAPTERS_GROUP,
        DRIVERS_GROUP as DRIVERS_GROUP,
        EMBEDDERS_GROUP as EMBEDDERS_GROUP,
        PluginProblem as PluginProblem,
        load_plugin as load_plugin,
        plugin_names as plugin_names,
    )
    from ._private import (
        PRIVATE_MARK as PRIVATE_MARK,
        scrub as scrub,
        scrub_text as scrub_text,
        strip_private as strip_private,
    )
    from ._privdirs import (
        create_private_file as create_private_file,
        ensure_private_dir as ensure_private_dir,
    )
    from ._render import (
        MEMORY_NOTICE as MEMORY_NOTICE,
        RENDER_PREFIX as RENDER_PREFIX,
        fence_for as fence_for,
        forged_header_lines as forged_header_lines,
        one_line as one_line,
        render_memory as render_memory,
        rendering_problem as rendering_problem,
        sanitise_body as sanitise_body,
    )
    from ._schemas import (
        export_json_schemas as export_json_schemas,
        json_schema_documents as json_schema_documents,
    )
    from ._secrets import (
        SecretFinding as SecretFinding,
        find_secrets as find_secrets,
        has_secret as has_secret,
        redact_secrets as redact_secrets,
        shannon_entropy as shannon_entropy,
    )
    from ._served import excluded_ids as excluded_ids
    from ._slug import (
        is_slug as is_slug,
        slugify as slugify,
    )
    from ._staleness import (
        StaleMemory as StaleMemory,
        stale_memories as stale_memories,
    )
    from ._tokens import (
        estimate_tokens as estimate_tokens,
        memory_token_cost as memory_token_cost,
    )
    from ._ulid import (
        ULID_PATTERN as ULID_PATTERN,
        is_ulid as is_ulid,
        new_ulid as new_ulid,
    )
    from ._yaml import (
        YamlProblem as YamlProblem,
        dump_yaml as dump_yaml,
        load_yaml as load_yaml,
    )
