"""teambrain's contract: the memory, event, MCP, retrieval and config schemas as code.

The top level is the contract alone — models, their enums and limits, the on-disk names, the
errors with their exit codes, and the few functions that define a wire form (``parse_event``,
``dump_event``, ``intent_summary``, ``content_hash``). The machinery other packages share lives
in public sub-modules named for what they do (docs/architecture.md lists them):

    from teambrain_schema import MemoryDraft, ExitCode          # the contract
    from teambrain_schema.secrets import redact_secrets         # machinery
    from teambrain_schema.git import run_git

Names load lazily: ``from teambrain_schema.secrets import redact_secrets`` imports only the stdlib
secret scanner, which keeps the capture hook's start-up near a bare interpreter's. Models that
need pydantic load when first used.
"""

from __future__ import annotations

from .lazy import lazy_exports

# Not ``typing.TYPE_CHECKING``: importing typing costs the capture hook milliseconds at start-up.
# mypy treats any constant of this name as true.
TYPE_CHECKING = False

_EXPORTS: dict[str, str] = {
    # _errors: errors and exit codes (stdlib)
    "ExitCode": "_errors",
    "TeambrainError": "_errors",
    "UserError": "_errors",
    "EnvironmentProblem": "_errors",
    "ValidationFailure": "_errors",
    # paths: the names of the brain's folders (stdlib)
    "BRAIN_DIRNAME": "paths",
    "CLASS_FOLDERS": "paths",
    "FOLDER_CLASSES": "paths",
    "MEMORY_CLASSES": "paths",
    # ids: memory ids (stdlib)
    "ULID_PATTERN": "ids",
    # _memory: memories, drafts, candidates (pydantic)
    "MemoryClass": "_memory",
    "Scope": "_memory",
    "Status": "_memory",
    "Priority": "_memory",
    "Proposer": "_memory",
    "MAX_TITLE_CHARS": "_memory",
    "MAX_BODY_WORDS": "_memory",
    "MAX_BODY_BYTES": "_memory",
    "MAX_CANDIDATE_BYTES": "_memory",
    "MAX_EVIDENCE_ITEMS": "_memory",
    "MAX_SUPERSEDES": "_memory",
    "Evidence": "_memory",
    "MemoryFrontMatter": "_memory",
    "Memory": "_memory",
    "MemoryDraft": "_memory",
    "Candidate": "_memory",
    # _records: graph records proposed for review (pydantic)
    "RecordDraft": "_records",
    "RecordEdge": "_records",
    "RecordCandidate": "_records",
    "NoteDraft": "_records",
    "content_hash": "_memory",
    # _envelope: spool events (pydantic)
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
    # _mcp: the MCP tools' inputs and results (pydantic)
    "MAX_CONTEXT_BUDGET": "_mcp",
    "MAX_SEARCH_K": "_mcp",
    "Provenance": "_mcp",
    "MemoryResult": "_mcp",
    "MemoryContextResult": "_mcp",
    "MemorySearchInput": "_mcp",
    "MemorySearchResult": "_mcp",
    "NoteResult": "_mcp",
    "SearchCoverage": "_mcp",
    "MemoryProposeInput": "_mcp",
    "ProposedDraft": "_mcp",
    "MemoryProposeResult": "_mcp",
    "MemoryFeedbackInput": "_mcp",
    "MemoryFeedbackResult": "_mcp",
    # _backend: the retrieval backend's interface (pydantic)
    "Source": "_backend",
    "IndexableDoc": "_backend",
    "Scored": "_backend",
    "IndexStats": "_backend",
    "RetrievalBackend": "_backend",
    # _config: brain.yaml and adapters.yaml (pydantic)
    "BrainConfig": "_config",
    "RetrievalConfig": "_config",
    "EmbedderConfig": "_config",
    "DistillConfig": "_config",
    "AdaptersFile": "_config",
    "AdapterSpec": "_config",
    "McpWiring": "_config",
    "HookWiring": "_config",
    "BRAIN_YAML_TEMPLATE": "_config",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # explicit re-exports (``X as X``) for type checkers
    from ._backend import (
        IndexableDoc as IndexableDoc,
        IndexStats as IndexStats,
        RetrievalBackend as RetrievalBackend,
        Scored as Scored,
        Source as Source,
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
        NoteResult as NoteResult,
        ProposedDraft as ProposedDraft,
        Provenance as Provenance,
        SearchCoverage as SearchCoverage,
    )
    from ._memory import (
        MAX_BODY_BYTES as MAX_BODY_BYTES,
        MAX_BODY_WORDS as MAX_BODY_WORDS,
        MAX_CANDIDATE_BYTES as MAX_CANDIDATE_BYTES,
        MAX_EVIDENCE_ITEMS as MAX_EVIDENCE_ITEMS,
        MAX_SUPERSEDES as MAX_SUPERSEDES,
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
    )
    from ._records import (
        NoteDraft as NoteDraft,
        RecordCandidate as RecordCandidate,
        RecordDraft as RecordDraft,
        RecordEdge as RecordEdge,
    )
    from .ids import (
        ULID_PATTERN as ULID_PATTERN,
    )
    from .paths import (
        BRAIN_DIRNAME as BRAIN_DIRNAME,
        CLASS_FOLDERS as CLASS_FOLDERS,
        FOLDER_CLASSES as FOLDER_CLASSES,
        MEMORY_CLASSES as MEMORY_CLASSES,
    )
