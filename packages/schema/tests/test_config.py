import pytest
from pydantic import ValidationError
from teambrain_kit.yaml import load_yaml, to_plain
from teambrain_schema import BRAIN_YAML_TEMPLATE, AdaptersFile, BrainConfig


def test_template_validates_and_spells_out_every_default() -> None:
    parsed = BrainConfig.model_validate(to_plain(load_yaml(BRAIN_YAML_TEMPLATE)))
    assert parsed == BrainConfig()
    assert parsed.model_dump() == to_plain(load_yaml(BRAIN_YAML_TEMPLATE))


def test_budget_is_capped_at_2000() -> None:
    with pytest.raises(ValidationError, match="budget_tokens"):
        BrainConfig.model_validate({"retrieval": {"budget_tokens": 2001}})


def test_remote_distill_driver_needs_a_key_variable() -> None:
    with pytest.raises(ValidationError, match="api_key_env"):
        BrainConfig.model_validate({"distill": {"driver": "anthropic", "model": "m"}})
    config = BrainConfig.model_validate(
        {"distill": {"driver": "anthropic", "model": "m", "api_key_env": "ANTHROPIC_API_KEY"}}
    )
    assert config.distill.api_key_env == "ANTHROPIC_API_KEY"


def test_adapter_names_are_unique() -> None:
    adapter = {"name": "cursor", "title": "Cursor", "docs": ["https://cursor.com/docs/mcp"],
               "mcp": {"path": ".cursor/mcp.json", "format": "json", "key": "mcpServers"}}  # fmt: skip
    with pytest.raises(ValidationError, match="duplicate"):
        AdaptersFile.model_validate({"adapters": [adapter, adapter]})


@pytest.mark.parametrize(
    "data",
    [
        {"org_brain": "org\x00brain"},
        {"name": "team\x1b[31m"},
        {"retrieval": {"embedder": {"provider": "local", "path": "model\x00.onnx"}}},
        {"retrieval": {"embedder": {"provider": "ollama", "base_url": "http://h\n/x"}}},
        {"distill": {"driver": "fake", "model": "m", "fixtures": "fx\x00"}},
    ],
)
def test_a_path_url_or_name_with_a_control_character_is_refused(data: dict[str, object]) -> None:
    """A NUL byte in org_brain ended lint, doctor, trust and verify in "internal error:
    embedded null byte": every path call raises on it. The setting is refused instead."""
    with pytest.raises(ValidationError, match="must not contain control characters"):
        BrainConfig.model_validate(data)
