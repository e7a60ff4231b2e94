"""teambrain-cli's public names: the command, and the adapter API plugins build on."""

import teambrain_cli
from teambrain_schema.lazy import export_problems

PUBLIC_API = [
    "ADAPTERS",
    "Adapter",
    "HookTarget",
    "McpTarget",
    "check_adapters",
    "cli",
    "main",
    "plugin_adapters",
    "resolve_adapter",
    "supported_tools",
]


def test_public_api_is_pinned_exactly_and_resolves() -> None:
    assert sorted(teambrain_cli.__all__) == PUBLIC_API
    for name in teambrain_cli.__all__:
        assert getattr(teambrain_cli, name) is not None


def test_the_public_names_are_written_once() -> None:
    """``_EXPORTS`` in ``__init__.py`` is the one list of public names: ``__all__``, the lazy
    loader and the type checkers' re-exports (``make exports``) come from it; the pin above
    records it deliberately."""
    assert export_problems(teambrain_cli) == []
