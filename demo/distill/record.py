"""Record the demo's fake-driver fixtures: run the distiller on the demo repository prepared by
record-fixtures.sh, answering each session from answers.json, and save every request with its
answer in demo/distill/fixtures/. Not run by `make demo`."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from teambrain_distill import LLM, DistillOptions, distill
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_schema.brain import load_brain_config

HERE = Path(__file__).resolve().parent


class AnswersFromFile:
    """Answers a session's request with answers.json[sid] (no answer: no candidates)."""

    name = "answers.json"

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers

    def generate(self, request: Any, schema: Any, *, guard: Any, context: Any = None) -> Any:
        guard.first(request.input_tokens())
        guard.sent(request.input_tokens())
        sid = next(iter(context["sessions"].values()))
        return schema.model_validate(self.answers.get(sid, {"candidates": []}), context=context)


def main(repo: str, home: str) -> int:
    layout = BrainLayout(Path(repo))
    answers = json.loads((HERE / "answers.json").read_text())
    config = load_brain_config(layout).distill
    llm = LLM(config, brain_dir=layout.root, driver=AnswersFromFile(answers), record=True)
    report = distill(layout, MachineLayout(Path(home)), options=DistillOptions(), llm=llm)
    for path in (HERE / "fixtures").glob("*.json"):
        if path.name != "fallback.json":
            path.unlink()
    for recorded in llm.recorded:
        data = json.loads(recorded.read_text())
        data["recorded_with"] = "demo/distill/answers.json"
        data["recorded_at"] = "2026-11-26T00:00:00+00:00"
        (HERE / "fixtures" / recorded.name).write_text(
            json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        )
    shutil.rmtree(layout.root / "fixtures", ignore_errors=True)
    print(f"recorded {len(llm.recorded)} fixture(s); {len(report.candidates)} candidate(s)")
    return 0 if report.exit_code == 0 else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
