from pathlib import Path

from teambrain_schema._schemas import json_schema_documents

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "docs" / "schemas"


def test_committed_json_schemas_match_the_models() -> None:
    documents = json_schema_documents()
    committed = {path.name: path.read_text("utf-8") for path in SCHEMA_DIR.glob("*.json")}
    stale = sorted(name for name, text in documents.items() if committed.get(name) != text)
    extra = sorted(set(committed) - set(documents))
    assert not stale and not extra, (
        f"docs/schemas drifted from the models (stale: {stale}, extra: {extra}); "
        "run `make schemas` and commit the result"
    )
