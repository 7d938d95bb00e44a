"""The translate / ltl2ba / compare subcommands end to end (exit codes, files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.cli import main

PML = """\
byte x;
active proctype P() {
  do
  :: x < 2 -> x++
  :: x == 2 -> x = 0
  od
}
ltl small { [] (x <= 2) }
ltl reaches_two { []<> (x == 2) }
"""


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "count.pml"
    path.write_text(PML)
    return path


@pytest.mark.spin
def test_translate_writes_promela_spin_accepts(model: Path, tmp_path: Path) -> None:
    from bridge.backends.spin.run import SpinOptions, run_spin

    out = tmp_path / "out.pml"
    assert main(["translate", str(model), "-o", str(out)]) == 0
    result = run_spin(out.read_text(), SpinOptions(acceptance=True, ltl="ltl_1_reaches_two"))
    assert result.errors == 0 and result.complete


def test_translate_to_csp(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["translate", str(model), "--to", "csp"]) == 0
    text = capsys.readouterr().out
    assert "BridgeSystem(m) = P0(m);" in text and "#assert BridgeSystem(0) |=" in text


def test_translate_refusal_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "shift.pml"
    path.write_text("byte x, y;\nactive proctype P() { x = 1 << y }\n")
    assert main(["translate", str(path), "--to", "csp"]) == 2
    err = capsys.readouterr().err
    assert "shift" in err and "shift.pml:2:" in err


@pytest.mark.spin
def test_ltl2ba_never(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ltl2ba", "[]<> p", "--via", "spin", "--format", "never"]) == 0
    assert capsys.readouterr().out.startswith("never")
    assert main(["ltl2ba", "G(", "--via", "spot"]) == 2


@pytest.mark.spin
def test_compare_writes_reports(model: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    md, csv, js = tmp_path / "c.md", tmp_path / "c.csv", tmp_path / "c.json"
    code = main(["compare", str(model), "--assert", "2", "--fairness", "weak",
                 "--engines", "native,spin-plain,spin-action-process",
                 "--markdown", str(md), "--csv", str(csv), "--json", str(js)])
    assert code == 0
    out = capsys.readouterr().out
    assert "spin-action-process" in out and "DISAGREEMENT" not in out
    assert md.read_text().startswith("| model |")
    assert csv.read_text().count("\n") == 4
    assert js.read_text().lstrip().startswith("[")


FIG4A = """\
var x = 0;
P = a{x = 1} -> Q [] b{x = 0} -> P;
Q = c{x = 0} -> P;
#define one (x == 1);
#assert P |= []<> one;
"""


@pytest.mark.spin
@pytest.mark.parametrize("form", ["per-step", "bottom-scc"])
def test_compare_strong_global_form_option(form: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Paper 000 Fig. 4(a)-shaped model: []<> one holds only under strong global
    fairness; SPIN with Spot's claim of either premise form agrees with the native
    checker (--strong-global-form reaches CompareOptions)."""
    path = tmp_path / "fig4a.csp"
    path.write_text(FIG4A)
    code = main(["compare", str(path), "--fairness", "strong-global",
                 "--strong-global-form", form, "--engines", "native,spin-premise-spot"])
    out = capsys.readouterr().out
    assert code == 0, out
    rows = [line for line in out.splitlines() if line.startswith(("native", "spin-premise-spot"))]
    assert len(rows) == 2 and all(" holds " in row for row in rows), out
