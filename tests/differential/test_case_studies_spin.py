"""The case studies through SPIN (issue 5 item 6): a case-study model -> Promela -> SPIN
gives the native checker's verdict, without fairness (plain encoding) and under weak
fairness (the action-process encoding with ``pan -a -f``, paper 003 section 3).

The rows are those of ``case_studies/*/expected.toml`` whose SPIN run takes about a
second here (larger sizes are measured by ``bridge compare`` and the benchmarks); CSP#
models of every case study with such a row, and the Promela models of paper 003
(``run`` in ``init``: one instance slot per run, bridge/backends/spin/slots.py).
"""

from __future__ import annotations

import pytest

from bridge import regress
from bridge.backends.spin.emit import emit_promela
from bridge.backends.spin.run import run_spin
from bridge.fairness.check import LtlOptions, check_ltl
from bridge.ir import Fairness, Outcome, PropertyKind

pytestmark = pytest.mark.spin

# (case, file, size N or None, fairness)
WANTED = [
    ("dp", "dp.csp", 10, "none"),
    ("kv", "kv.csp", 2, "none"),
    ("le_c", "le_c_3.csp", 3, "none"),
    ("le_c", "le_c_5.csp", 5, "weak"),
    ("le_or", "le_or_buggy_3.csp", 3, "weak"),
    ("le_or", "le_or_fixed_5.csp", 5, "weak"),
    ("le_r", "le_r_3.csp", 3, "weak"),
    ("le_r", "le_r_5.csp", 5, "weak"),
    ("le_t", "le_t_3.csp", 3, "none"),
    ("le_t", "le_t_7.csp", 7, "weak"),
    ("ml", "ml.csp", 3, "none"),
    ("peterson", "peterson_3.csp", 3, "weak"),
    ("promela_le_c", "le_c_3.pml", 3, "none"),
    ("promela_le_c", "le_c_3.pml", 3, "weak"),
    ("promela_tc_r", "tc_r_3.pml", 3, "weak"),
    ("rw", "rw.csp", None, "none"),
    ("stack", "stack.csp", 5, "none"),
    ("tc_r", "tc_r_3.csp", 3, "weak"),
    ("tc_r", "tc_r_5.csp", 5, "weak"),
]


def _rows() -> list:
    rows = regress.load_rows(["case_studies"])
    out, seen = [], set()
    for case, file, n, fairness in WANTED:
        size = (("N", n),) if n is not None else ()
        for row in rows:
            if (row.case, row.file, row.size, row.reduction) != (case, file, size, ""):
                continue
            key = (case, file, n, row.assertion, fairness)
            if key in seen:
                continue
            seen.add(key)
            out.append(pytest.param(row, fairness, id=f"{case}/{file}[N={n}]#{row.assertion}@{fairness}"))
    return out


CASES = _rows()


def test_every_wanted_row_exists() -> None:
    found = {(p.values[0].case, p.values[0].file, p.values[1]) for p in CASES}
    assert found == {(c, f, fair) for c, f, _, fair in WANTED}


@pytest.mark.parametrize(("row", "fairness_name"), CASES)
def test_spin_gives_the_native_verdict(row: regress.Row, fairness_name: str) -> None:
    system = regress.load_row_model(row).systems[0]
    prop = next(p for p in system.properties
                if str(p.number) == row.assertion or p.name == row.assertion)
    if prop.kind is not PropertyKind.LTL:
        pytest.skip(f"assertion {row.assertion} is not an LTL property")
    fairness = Fairness.NONE if fairness_name == "none" else Fairness.WEAK
    native = check_ltl(system, prop, LtlOptions(fairness=fairness, timeout=60)).outcome
    assert native is not Outcome.UNKNOWN
    encoding = "plain" if fairness is Fairness.NONE else "action-process"
    emitted = emit_promela(system, encoding, fairness, prop)
    result = run_spin(emitted.text, emitted.spin_options(emitted.properties[0], timeout=120))
    assert not result.timed_out and (result.complete or result.errors), result.output[-2000:]
    spin = Outcome.VIOLATED if result.errors else Outcome.HOLDS
    assert spin == native
