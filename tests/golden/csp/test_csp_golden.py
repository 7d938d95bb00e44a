"""Golden IR dumps of the CSP# test models (STYLE.md section 6).

Each model of ``tests/models/csp`` is lowered and printed with ``bridge.ir.printer``;
the dump must equal ``tests/golden/csp/<model>.ir``. Refresh with
``pytest tests/golden/csp --update-golden`` after an intended change, and review the
diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.frontends.csp import load_csp
from bridge.ir.printer import print_model_file

HERE = Path(__file__).resolve().parent
MODELS = HERE.parents[1] / "models" / "csp"
NAMES = sorted(p.stem for p in MODELS.glob("*.csp"))


@pytest.mark.parametrize("name", NAMES)
def test_ir_dump_matches_golden(name: str, update_golden: bool) -> None:
    source = MODELS / f"{name}.csp"
    # A fixed, relative name keeps the dump independent of the checkout location.
    model = load_csp(f"tests/models/csp/{name}.csp", source.read_text(encoding="utf-8"))
    dump = print_model_file(model) + "\n"
    golden = HERE / f"{name}.ir"
    if update_golden or not golden.exists():
        golden.write_text(dump, encoding="utf-8")
        if not update_golden:
            pytest.fail(f"{golden.name} did not exist; written now, review and commit it")
    assert dump == golden.read_text(encoding="utf-8")
