"""teambrain's shared machinery: what the packages use to *do* things, below the contract.

Nothing here is the contract (that is ``teambrain_schema``); these are the tools every package
shares, one job per public sub-module — the one git runner, facts read from ``.git``, secret and
prompt-injection scanning, citation checking, safe YAML, bounded local reads, atomic writes, the
brain's and the machine's layout, egress approvals and the one HTTP client, plugins, lazy exports:

    from teambrain_kit.git import run_git
    from teambrain_kit.secrets import redact_secrets

The package itself exports nothing and imports nothing, so the capture hook pays only for the
sub-modules it uses. Everything here is standard library (``teambrain_kit.yaml`` loads ruamel.yaml
when first used); never pydantic.
"""

__all__: list[str] = []
