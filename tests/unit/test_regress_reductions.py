"""The ``reduction`` key of ``case_studies/*/expected.toml`` rows (bridge/regress.py).

Parsing and validation (an unknown value or a misplaced ``cutoff``/``unbounded`` is a
``ConfigurationError`` naming the file and row), the pass-through to
``bridge.api.CheckOptions``, and the rule that a row whose reduction the engine does
not use is ``ERROR`` with the engine's reason, never a verdict of the unreduced run.
The engine is replaced by a stub here except in the last tests, which run real (small)
models whose reduction the engine refuses.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from bridge import api, regress
from bridge.diagnostics import ConfigurationError
from bridge.ir.property import Fairness
from bridge.ir.verdict import Outcome, Statistics, Verdict

CASES = Path(__file__).resolve().parents[2] / "case_studies"

ROW = ('[[row]]\nfile = "m.csp"\nsize = { N = 3 }\nassertion = 1\nfairness = "%s"\n'
       'expected = "holds"\nsource = "paper, Table 1"\n')


def _rows(tmp_path: Path, extra: str, fairness: str = "none") -> list[regress.Row]:
    (tmp_path / "m.csp").write_text("#define N 3;\n")
    (tmp_path / "expected.toml").write_text(ROW % fairness + extra)
    return regress.load_rows([tmp_path])


def test_no_reduction_by_default(tmp_path: Path) -> None:
    (row,) = _rows(tmp_path, "")
    assert (row.reduction, row.cutoff, row.unbounded) == ("", None, False)
    assert row.reduction_text == "-"
    assert "+" not in row.name


def test_counter_abstraction_with_cutoff_and_unbounded(tmp_path: Path) -> None:
    (row,) = _rows(tmp_path, 'reduction = "counter-abstraction"\ncutoff = 2\n'
                             'unbounded = true\n', "process-weak")
    assert (row.reduction, row.cutoff, row.unbounded) == ("counter-abstraction", 2, True)
    assert row.reduction_text == "counter-abstraction cutoff=2 unbounded"
    assert row.name.endswith("@process-weak+counter-abstraction~1")
    unreduced = dataclasses.replace(row, reduction="", cutoff=None, unbounded=False)
    assert row.key != unreduced.key  # a reduced row never shares the unreduced run


@pytest.mark.parametrize("name", ["symmetry", "por"])
def test_symmetry_and_por_are_accepted(tmp_path: Path, name: str) -> None:
    (row,) = _rows(tmp_path, f'reduction = "{name}"\n')
    assert row.reduction == name and row.reduction_text == name


@pytest.mark.parametrize(("extra", "message"), [
    ('reduction = "sym"\n', r"row 1: reduction 'sym'; allowed: counter-abstraction, "
                            r"symmetry, por"),
    ('reduction = 3\n', r"row 1: reduction 3"),
    ('reduction = "symmetry"\ncutoff = 2\n', r"row 1: cutoff and unbounded apply to "
                                             r"reduction = \"counter-abstraction\" only"),
    ('cutoff = 2\n', r"cutoff and unbounded apply"),
    ('unbounded = false\n', r"cutoff and unbounded apply"),
    ('reduction = "counter-abstraction"\ncutoff = 0\n', r"cutoff must be a positive integer"),
    ('reduction = "counter-abstraction"\ncutoff = "2"\n', r"cutoff must be a positive"),
    ('reduction = "counter-abstraction"\ncutoff = true\n', r"cutoff must be a positive"),
    ('reduction = "counter-abstraction"\nunbounded = true\n', r"unbounded = true needs a "
                                                              r"cutoff"),
    ('reduction = "counter-abstraction"\ncutoff = 2\nunbounded = 1\n',
     r"unbounded must be true or false"),
])
def test_bad_reduction_keys_name_the_file_and_row(tmp_path: Path, extra: str,
                                                  message: str) -> None:
    with pytest.raises(ConfigurationError, match=message) as raised:
        _rows(tmp_path, extra)
    assert str(tmp_path / "expected.toml") in str(raised.value)


def test_options_pass_the_reduction_through(tmp_path: Path) -> None:
    (row,) = _rows(tmp_path, "", "process-strong")
    plain = regress._options(row, 5.0, 100)
    assert (plain.por, plain.symmetry, plain.counter_abstraction) == (False, False, False)
    counter = regress._options(dataclasses.replace(
        row, reduction="counter-abstraction", cutoff=3, unbounded=True), 5.0, 100)
    assert counter.counter_abstraction and counter.cutoff == 3 and counter.unbounded
    assert not (counter.por or counter.symmetry)
    assert counter.fairness is Fairness.PROCESS_STRONG
    assert (counter.timeout, counter.max_states) == (5.0, 100)
    symmetry = regress._options(dataclasses.replace(row, reduction="symmetry"), None, None)
    assert symmetry.symmetry and not (symmetry.por or symmetry.counter_abstraction)
    por = regress._options(dataclasses.replace(row, reduction="por"), None, None)
    assert por.por and not (por.symmetry or por.counter_abstraction)


class _Engine:
    """A stand-in for ``api.check`` that records its options and returns one verdict."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.options: list[api.CheckOptions] = []

    def __call__(self, _model: Any, _assertion: str, options: api.CheckOptions
                 ) -> list[Verdict]:
        self.options.append(options)
        return [self.verdict]


def _verdict(notes: tuple[str, ...] = (), extra: tuple[tuple[str, Any], ...] = (),
             outcome: Outcome = Outcome.HOLDS) -> Verdict:
    return Verdict(model="m", property="p", outcome=outcome, notes=notes,
                   statistics=Statistics(states=7, extra=extra))


def _check(monkeypatch: pytest.MonkeyPatch, row: regress.Row,
           verdict: Verdict) -> tuple[regress.RowResult, _Engine]:
    engine = _Engine(verdict)
    monkeypatch.setattr(regress.api, "check", engine)
    monkeypatch.setattr(regress, "load_row_model", lambda _row: object())
    return regress.check_row(row), engine


@pytest.mark.parametrize(("reduction", "verdict"), [
    ("symmetry", _verdict(("symmetry: 3 instances of Node, full group",))),
    ("por", _verdict(("por: partial order reduction applied (ample sets, stack proviso)",))),
    ("counter-abstraction", _verdict(extra=(("abstract_states", 216), ("cutoff", 2)))),
])
def test_a_used_reduction_gives_the_verdict(monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path, reduction: str,
                                            verdict: Verdict) -> None:
    (row,) = _rows(tmp_path, f'reduction = "{reduction}"\n')
    result, engine = _check(monkeypatch, row, verdict)
    assert result.status == regress.Status.PASS and result.got == "holds"
    # a one-state probe first (the reductions say at once whether they apply), then
    # the check itself with the row's own limits
    probe, options = engine.options
    assert probe.max_states == 1 and options.max_states is None
    for asked in (probe, options):
        assert (asked.symmetry, asked.por, asked.counter_abstraction) == (
            reduction == "symmetry", reduction == "por", reduction == "counter-abstraction")


@pytest.mark.parametrize(("reduction", "verdict", "said"), [
    ("symmetry", _verdict(("symmetry: not applied: no family of interchangeable "
                           "processes",)), "no family of interchangeable processes"),
    ("symmetry", _verdict(("--por/--symmetry: not used: reductions apply to LTL "
                           "assertions only",)), "apply to LTL assertions only"),
    ("symmetry", _verdict(()), "does not say that symmetry was applied"),
    ("por", _verdict(("por: partial order reduction is unsound under strong-global "
                      "fairness",)), "unsound under strong-global"),
    ("por", _verdict(("p0 = x",)), "does not say that por was applied"),
    ("counter-abstraction", _verdict(("--counter-abstraction: not used for never claims",),
                                     extra=(("abstract_states", 3),)), "never claims"),
    ("counter-abstraction", _verdict(()), "does not say that counter-abstraction"),
])
def test_an_unused_reduction_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                         reduction: str, verdict: Verdict,
                                         said: str) -> None:
    (row,) = _rows(tmp_path, f'reduction = "{reduction}"\n')
    result, engine = _check(monkeypatch, row, verdict)
    assert result.status == regress.Status.ERROR and result.got == "-"
    assert f"reduction {reduction} refused" in result.message and said in result.message
    (probe,) = engine.options  # refused by the probe: the row never runs unreduced
    assert probe.max_states == 1


def test_a_refusal_after_the_probe_is_still_an_error(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    (row,) = _rows(tmp_path, 'reduction = "symmetry"\n')
    answers = iter([_verdict(("symmetry: 3 instances of Node, full group",)),
                    _verdict(("symmetry: not applied: changed its mind",))])
    monkeypatch.setattr(regress.api, "check", lambda *_a: [next(answers)])
    monkeypatch.setattr(regress, "load_row_model", lambda _row: object())
    result = regress.check_row(row)
    assert result.status == regress.Status.ERROR and "changed its mind" in result.message


def test_an_unreduced_row_has_no_probe(monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path) -> None:
    (row,) = _rows(tmp_path, "")
    _result, engine = _check(monkeypatch, row, _verdict())
    (options,) = engine.options
    assert options.max_states is None


def test_an_unreduced_row_ignores_reduction_notes(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    (row,) = _rows(tmp_path, "")
    result, _engine = _check(monkeypatch, row, _verdict(("symmetry: not applied: x",)))
    assert result.status == regress.Status.PASS


def test_tables_show_the_reduction(tmp_path: Path) -> None:
    (row,) = _rows(tmp_path, 'reduction = "counter-abstraction"\ncutoff = 2\n')
    result = regress.RowResult(row, regress.Status.PASS, got="holds", seconds=0.5)
    markdown = regress.format_markdown([result])
    assert "| fairness | reduction | paper |" in markdown
    assert "| none | counter-abstraction cutoff=2 | holds |" in markdown
    assert "counter-abstraction cutoff=2" in regress.format_table([result])


# Real engine runs (each well under a second): reductions the engine refuses.


def _case_row(case: str, **match: Any) -> regress.Row:
    for row in regress.load_rows([CASES / case]):
        if all(getattr(row, k) == v for k, v in match.items()):
            return row
    raise AssertionError(f"no {case} row with {match}")


def test_symmetry_refused_by_the_engine_is_an_error() -> None:
    # tc_r's ring rules are not invariant under the renamings the detector tries
    row = dataclasses.replace(_case_row("tc_r", file="tc_r_3.csp", fairness="strong-global",
                                        expected="holds"), reduction="symmetry")
    result = regress.check_row(row, timeout=60)
    assert result.status == regress.Status.ERROR, result
    assert "symmetry: not applied" in result.message


def test_counter_abstraction_refused_by_the_engine_is_an_error() -> None:
    # kv's processes differ (each has its own key): no family to count
    row = dataclasses.replace(_case_row("kv", size=(("N", 2),), fairness="none"),
                              reduction="counter-abstraction", cutoff=2)
    result = regress.check_row(row, timeout=60)
    assert result.status == regress.Status.ERROR, result
    assert "two identical processes" in result.message


def test_counter_abstraction_under_event_fairness_is_an_error() -> None:
    # paper 002 defines process-level fairness on counts, not event-level weak fairness
    row = dataclasses.replace(_case_row("le_pl", size=(("N", 10),), fairness="none",
                                        reduction=""),
                              fairness="weak", reduction="counter-abstraction", cutoff=2)
    result = regress.check_row(row, timeout=60)
    assert result.status == regress.Status.ERROR, result
    assert "not weak" in result.message


def test_memory_exhaustion_is_a_limit_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: ml N = 1000 unreduced died of memory and was an ERROR row (so a full
    regress exited 1); running out of memory is a resource limit, like a timeout."""
    row = _case_row("ml", size=(("N", 3),), fairness="none", reduction="")

    def exhausted(*_args: Any, **_kwargs: Any) -> None:
        raise MemoryError

    monkeypatch.setattr(regress.api, "check", exhausted)
    result = regress.check_row(row, timeout=60)
    assert result.status == regress.Status.LIMIT and result.got == "unknown"
    assert "memory" in result.message


def test_default_memory_limit_is_shared_among_jobs() -> None:
    one, two = regress.default_memory_mb(1), regress.default_memory_mb(2)
    assert one is not None and two is not None
    assert one >= two >= 2048


# ---------------------------------------------------------------------------------
# paper_reduction: comparison rows (the concrete state space of a row the paper reduced)

def test_paper_reduction_marks_a_comparison_row(tmp_path: Path) -> None:
    (row,) = _rows(tmp_path, 'paper_seconds = 0.27\npaper_reduction = "counter-abstraction"\n',
                   "process-weak")
    assert (row.reduction, row.paper_reduction) == ("", "counter-abstraction")
    assert regress.paper_seconds_text(row) == "0.27 (counter-abstraction)"
    limit = regress.RowResult(row, regress.Status.LIMIT, got="unknown", seconds=240.0,
                              message="time limit reached before a verdict")
    passed = regress.RowResult(row, regress.Status.PASS, got="holds", seconds=2.0)
    markdown = regress.format_markdown([limit, passed])
    first, second = markdown.splitlines()[2:4]
    assert "the paper's result used counter-abstraction" in first
    assert "| 0.27 (counter-abstraction) | holds | 2.00 | 7.4 |" in second
    assert "of the limit rows, 1 are comparison rows" in markdown
    (as_json,) = regress.results_json([limit])
    assert as_json["paper_reduction"] == "counter-abstraction"


def test_a_row_without_paper_reduction_keeps_its_ratio(tmp_path: Path) -> None:
    (row,) = _rows(tmp_path, 'paper_seconds = 0.5\n')
    result = regress.RowResult(row, regress.Status.PASS, got="holds", seconds=1.0)
    markdown = regress.format_markdown([result])
    assert "| 0.5 | holds | 1.00 | 2 |" in markdown and "comparison rows" not in markdown


@pytest.mark.parametrize("extra", ['paper_reduction = "sym"\n',
                                   'reduction = "por"\npaper_reduction = "por"\n'])
def test_paper_reduction_must_name_another_reduction(tmp_path: Path, extra: str) -> None:
    with pytest.raises(ConfigurationError, match=r"row 1: paper_reduction"):
        _rows(tmp_path, extra)


def test_import_rooms_imports_the_checker_before_the_rows_fork() -> None:
    """``run_rows`` imports the checker's rooms in the parent (``api.import_rooms``), so
    a forked row's seconds do not include Python importing lark, Spot and the C
    generator once more (issue 13: the orienting rings N = 3 rows)."""
    import sys

    assert api.import_rooms() == []
    for module in ("bridge.frontends.csp.parse", "bridge.automata.ltl", "bridge.engine_c",
                   "bridge.fairness.check", "bridge.reductions.symmetry"):
        assert module in sys.modules
