"""Every bundled model's IR is structurally valid (``ir/validate.py``): what the two
front-ends build for the case studies and the CLI test models references only existing
locations, processes, instances, labels and declared variables; and its tagged JSON
form (``ir/serialize.py``) reads back to the same IR."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import render_all
from bridge.ir.serialize import dumps, loads
from bridge.ir.validate import validate_model_file

ROOT = Path(__file__).resolve().parents[3]
MODELS = sorted(
    [*ROOT.glob("case_studies/*/*.csp"), *ROOT.glob("case_studies/*/*.pml"),
     *ROOT.glob("tests/cli/models/holds.*"), *ROOT.glob("tests/cli/models/counter.*")]
)


def test_there_are_models_to_validate() -> None:
    assert len(MODELS) >= 10
    assert {p.suffix for p in MODELS} == {".csp", ".pml"}


@pytest.mark.parametrize("path", MODELS, ids=lambda p: str(p.relative_to(ROOT)))
def test_front_end_output_is_valid_ir(path: Path) -> None:
    model_file = api.load_model(str(path))
    assert model_file.systems
    problems = validate_model_file(model_file)
    assert problems == [], render_all(problems)
    assert loads(dumps(model_file)) == model_file
