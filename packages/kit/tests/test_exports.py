import importlib
import pkgutil
import subprocess
import sys

import teambrain_kit


def test_the_package_exports_nothing_itself() -> None:
    """Machinery lives in public sub-modules, one job each; importing the package is free."""
    assert teambrain_kit.__all__ == []


def test_public_sub_modules_are_pinned_and_resolve() -> None:
    public = sorted(
        info.name
        for info in pkgutil.iter_modules(teambrain_kit.__path__)
        if not info.name.startswith("_")
    )
    assert public == sorted(PUBLIC_MODULES)
    for name, expected in PUBLIC_MODULES.items():
        module = importlib.import_module(f"teambrain_kit.{name}")
        assert sorted(module.__all__) == expected, name
        for attribute in expected:
            assert getattr(module, attribute) is not None, f"{name}.{attribute}"


def test_no_module_imports_pydantic_or_the_contract() -> None:
    """The capture hook imports kit on every tool call: every module loads without pydantic,
    ruamel (until YAML is parsed) or any other teambrain package."""
    names = sorted(PUBLIC_MODULES)
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module('teambrain_kit.' + name)\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in\n"
        "         ('pydantic', 'ruamel', 'ulid', 'teambrain_schema', 'teambrain_capture')]\n"
        "print(','.join(sorted(heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_package_without_built_in_entry_points_is_named_stale() -> None:
    import pytest
    from teambrain_kit.plugins import PluginProblem, builtin_names, load_builtin

    assert builtin_names("teambrain.adapters", "teambrain-no-such-package") == ()
    with pytest.raises(PluginProblem, match="stale or missing"):
        load_builtin("teambrain.adapters", "teambrain-no-such-package", "x")


# Each public sub-module and its __all__, sorted: only what another package uses
# (tests-integration/test_architecture.py checks both ways).
PUBLIC_MODULES = {
    "atomic": ["write_bytes_atomic", "write_text_atomic"],
    "citation_checker": ["CitationChecker", "StaleCitation"],
    "citations": ["Citation", "MAX_EVIDENCE_CHECKED", "extract_citations"],
    "code_names": ["defined_in"],
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
    ],
    "evidence": ["EvidenceFate"],
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
    "gitdir": [
        "DEFAULT_BRANCH_NAMES",
        "DETACHED",
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
    "globmatch": ["glob_matcher"],
    "home": [
        "FETCH_MINUTES_ENV",
        "FETCH_TIMEOUT_ENV",
        "ORG_BRAIN_ENV",
        "SERVE_FROM_ENV",
        "env_setting_source",
        "note_from_user_config",
        "teambrain_home_dir",
    ],
    "injection": ["InjectionFinding", "find_injections", "scan_forms"],
    "lazy": ["export_problems", "lazy_exports", "write_reexports"],
    "local_files": [
        "FileTooLarge",
        "NotARegularFile",
        "loads_json",
        "open_local_file",
        "read_file_within",
        "read_json_file",
        "read_local_bytes",
        "read_local_text",
        "write_lands_outside",
    ],
    "moments": ["parse_moment"],
    "outbound": [
        "ENV_PROXY_VARIABLES",
        "OutboundError",
        "OutboundTimeout",
        "Reply",
        "Unreachable",
        "env_proxies_ignored",
        "is_loopback_host",
        "origin_of",
        "send",
    ],
    "paths": [
        "BrainLayout",
        "MAX_BRAIN_FILES",
        "MAX_WALK_DEPTH",
        "MachineLayout",
        "composed_form",
        "find_brain",
        "find_repo_root",
        "machine_layout",
    ],
    "plugins": [
        "ADAPTERS_GROUP",
        "DRIVERS_GROUP",
        "EMBEDDERS_GROUP",
        "OWN_DISTRIBUTIONS",
        "PluginProblem",
        "builtin_names",
        "load_builtin",
        "load_plugin",
        "plugin_call",
        "plugin_names",
    ],
    "private_dirs": ["create_private_file", "ensure_private_dir"],
    "scrub": ["PRIVATE_MARK", "scrub", "scrub_text", "strip_private"],
    "secrets": ["REDACTION_TEMPLATE", "SecretFinding", "find_secrets", "redact_secrets"],
    "yaml": ["YamlProblem", "dump_yaml", "key_line", "load_yaml", "to_plain"],
}
