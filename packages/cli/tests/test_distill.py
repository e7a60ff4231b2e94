import json
from pathlib import Path

import pytest
from teambrain_cli._main import run


def test_a_bad_since_is_digests_one_line_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["init"]) == 0
    capsys.readouterr()
    assert run(["distill", "--since", "last tuesday", "--json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["error"]["exit_code"] == 1
    assert err.count("\n") == 1 and "--since 'last tuesday'" in err
    assert run(["digest", "--format", "json", "--since", "last tuesday"]) == 1
    assert capsys.readouterr().err == err
