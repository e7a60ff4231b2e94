"""teambrain-cli's public names: the command, and the adapter API plugins build on."""

import teambrain_cli

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
