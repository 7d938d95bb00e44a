"""emit_csp: Promela -> IR -> CSP# is read back by our CSP# front-end with the same
native verdicts and the same state space; constructs CSP# lacks are refused by name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridge import api, compare
from bridge.backends.csp.emit import emit_csp, unbounded_runs
from bridge.backends.csp.plan import UNBOUNDED, run_bounds
from bridge.diagnostics import UnsupportedError
from bridge.frontends.csp import load_csp
from bridge.frontends.promela import load_promela
from bridge.ir import Outcome, PropertyKind
from bridge.semantics.explore import ExploreOptions, explore

MODELS = Path(__file__).resolve().parents[2] / "models" / "promela"

PROMELA = """\
byte x;
chan c = [1] of { byte };
active proctype P() {
  do
  :: x < 3 -> c!x; x++
  :: x == 3 -> break
  od
}
active proctype Q() {
  byte v;
  do
  :: c?v -> assert(v < 3)
  od
}
ltl bounded { [] (x <= 3) }
"""


def _agree(text: str, name: str = "m.pml") -> str:
    """Translate ``text``; assert every verdict and the LTL system's state space agree
    with the source; return the CSP# text."""
    model = load_promela(name, text)
    out = compare.translate(model, "csp")
    csp = load_csp(name + ".csp", out + "\n#assert BridgeSystem(0) deadlockfree;\n")
    system = model.systems[0]
    for prop, (s2, p2) in zip(system.properties, csp.properties(), strict=False):
        a = api.check_property(system, prop, api.CheckOptions())
        b = api.check_property(s2, p2, api.CheckOptions())
        assert a.outcome == b.outcome, (prop.text, a.reason, b.reason)
    zero = next(s for s in csp.systems if s.name.replace(" ", "") == "BridgeSystem(0)")
    ours = explore(system, ExploreOptions(max_states=None, timeout=60))
    theirs = explore(zero, ExploreOptions(max_states=None, timeout=60))
    assert (ours.states, ours.transitions) == (theirs.states, theirs.transitions)
    return out


def test_round_trip_through_csp_keeps_the_native_verdicts() -> None:
    text = _agree(PROMELA, "rt.pml")
    assert "#assert BridgeSystem(0) |=" in text and "#assert BridgeSystem(1) deadlockfree" in text
    assert "bridge_len" in text  # the buffered channel lives in arrays


def test_the_readme_translation_is_current(monkeypatch: pytest.MonkeyPatch) -> None:
    """README's `translate --to csp` example checks a committed translation: it must be
    what the translator writes today."""
    root = Path(__file__).resolve().parents[3]
    ours = root / "tests" / "models" / "translate_csp"
    monkeypatch.chdir(root)
    model = api.load_model("tests/models/translate_csp/t2c_run_loop.pml")
    assert compare.translate(model, "csp") == (ours / "t2c_run_loop.csp").read_text()


def test_startup_atomic_run_idiom() -> None:
    """init { atomic { run A(); run B() } } with rendezvous between the two: each run
    wakes a slot, the rendezvous is a CSP# channel of its own."""
    text = _agree("""\
chan c = [0] of { byte };
byte got;
proctype A() { c!5 }
proctype B() { byte v; c?v; got = v; assert(got == 5) }
init { atomic { run A(); run B() } }
ltl received { <> (got == 5) }
""")
    assert "var bridge_pc_A = [-1];" in text and "var bridge_pc_B = [-1];" in text
    assert re.search(r"channel rv_A1_e\d+_B2_e\d+ 0;", text)


def test_run_in_a_counting_loop_and_pid_reuse() -> None:
    _agree("""\
byte n, seen[4];
proctype W(byte id) { seen[_pid] = id + 1 }
init {
  byte i;
  do
  :: i < 3 -> run W(i); i++
  :: else -> break
  od;
  _nr_pr == 1;
  assert(n == 0)
}
""")


def test_else_beside_a_receive_and_timeout() -> None:
    """SPIN takes `else` beside a receive (it warns only without statement merging)."""
    _agree("""\
chan q = [1] of { byte };
byte got, tries;
active proctype S() { q!1; q!2 }
active proctype R() {
  byte v;
  do
  :: tries < 4 ->
     if
     :: q?v -> got = got + v
     :: else -> tries++
     fi
  :: timeout -> break
  od
}
ltl all { <> (got == 3) }
""")


def test_local_channels_and_channel_variables() -> None:
    _agree("""\
chan srv = [1] of { chan, byte };
active proctype Server() { chan r; byte x; end: do :: srv?r, x -> r!x * 2 od }
active proctype Client() {
  chan mine = [1] of { byte };
  chan alias;
  byte got;
  alias = mine;
  srv!alias, 4;
  mine?got;
  assert(got == 8 && len(mine) == 0 && empty(alias))
}
""")


def test_run_bounds() -> None:
    counted = load_promela("a.pml", """\
proctype W() { skip }
init { byte i; do :: i < 4 -> run W(); i++ :: i == 4 -> break od }
""").systems[0]
    assert run_bounds(counted) == {"W": 4}
    forever = load_promela("b.pml", """\
proctype W() { skip }
init { do :: run W() od }
""").systems[0]
    assert run_bounds(forever) == {"W": UNBOUNDED}
    assert unbounded_runs(forever) == ["W"]
    branches = load_promela("c.pml", """\
byte g;
proctype W() { skip }
proctype V() { run W(); run W() }
init { if :: g == 0 -> run V() :: else -> run W(); run V() fi }
""").systems[0]
    assert run_bounds(branches) == {"V": 1, "W": 3}


def test_unbounded_run_needs_a_pool_size() -> None:
    text = """\
byte n;
proctype W() { skip }
init { do :: n < 2 -> n++; run W() :: n >= 2 -> break od }
"""
    system = load_promela("u.pml", text).systems[0]
    with pytest.raises(UnsupportedError, match=r"u\.pml:3:\d+: .*run W") as info:
        emit_csp(system)
    assert "pool size" in str(info.value)
    assert compare.pool_sizes(system, ["W"]) == {"W": 2}
    assert "var bridge_pc_W = [-1, -1];" in emit_csp(system, pool_sizes={"W": 2})
    _agree(text)
    with pytest.raises(UnsupportedError, match="counting them took more than 2 states"):
        compare.pool_sizes(system, ["W"], max_states=2)


@pytest.mark.parametrize(("text", "construct", "where"), [
    ("byte x, y;\nactive proctype P() { x = 1 << y }\n", "shift", ":2:"),
    ("byte x;\nactive proctype P() { x++ }\nltl { [] !timeout }\n", "'timeout'", ":3:11"),
])
def test_refusals_name_the_construct(text: str, construct: str, where: str) -> None:
    system = load_promela("r.pml", text).systems[0]
    with pytest.raises(UnsupportedError, match=construct) as info:
        emit_csp(system)
    assert f"r.pml{where}" in str(info.value)


@pytest.mark.parametrize(("who", "expected"), [(1, Outcome.HOLDS), (0, Outcome.VIOLATED)])
def test_remote_label_without_pid_follows_spin(who: int, expected: Outcome) -> None:
    """`P@L` without a pid names the running P with the lowest pid (pan's f_pid). With
    active [2] P where only _pid == 1 passes CS, pan finds [] !(P@CS) valid (errors: 0);
    where only _pid == 0 passes it, pan reports the violation (issue 15)."""
    text = (f"active [2] proctype P() {{\n  if\n  :: _pid == {who} -> CS: skip\n"
            "  :: else -> skip\n  fi\n}\nltl q { [] !(P@CS) }\n")
    csp = load_csp("p.csp", compare.translate(load_promela("p.pml", text), "csp"))
    system, prop = csp.properties()[0]
    assert api.check_property(system, prop, api.CheckOptions()).outcome is expected


REFUSED = {"m74_enabled_self": "enabled() of the process itself",
           "m65_trace": "trace/notrace", "m66_notrace": "trace/notrace",
           "m68_channel_reassigned": "process-local channel 'mine' assigned another channel",
           "m68b_channel_assigned_per_instance":
               "process-local channel 'other' assigned another channel",
           "m113_timeout_guard_holds_without_timeout":
               "'timeout' read in the effect of an option"}


def test_every_test_model_translates_or_is_refused_by_name() -> None:
    """Every test model of tests/models/promela translates (the idioms of issue 15),
    except the constructs PAT has no equivalent for, refused with their position."""
    for path in sorted(MODELS.glob("*.pml")):
        model = api.load_model(str(path))
        if path.stem in REFUSED:
            with pytest.raises(UnsupportedError, match=re.escape(REFUSED[path.stem])) as info:
                compare.translate(model, "csp")
            assert re.search(rf"{path.name}:\d+:\d+:", str(info.value))
            continue
        assert compare.translate(model, "csp").startswith("//"), path


def test_csp_barriers_are_refused_not_lost() -> None:
    """Regression: a CSP# model with '||' came out as '|||' of renamed events, so its
    barriers no longer synchronised (deadlock-free became a different model)."""
    text = ("P() = a -> b -> Skip;\nQ() = a -> c -> Skip;\nS() = P() || Q();\n"
            "#assert S() deadlockfree;\n")
    system = load_csp("par.csp", text).systems[0]
    with pytest.raises(UnsupportedError, match="'\\|\\|'") as info:
        emit_csp(system)
    assert ":3:" in str(info.value)  # at the composition's first operand
    plain = load_csp("plain.csp", "P() = a -> P();\n#assert P() deadlockfree;\n").systems[0]
    with pytest.raises(UnsupportedError, match="already CSP#"):
        emit_csp(plain)


def test_safety_violations_map_to_deadlocks() -> None:
    """A failed assertion and an invalid end state are both NOT VALID deadlockfree."""
    for text in ("active proctype P() { assert(false) }\n",
                 "byte x; active proctype P() { x == 1 }\n",
                 "chan q = [1] of { byte }; active proctype P() { d_step { q!1; q!2 } }\n"):
        model = load_promela("s.pml", text)
        csp = load_csp("s.csp", compare.translate(model, "csp"))
        [(system, prop)] = csp.properties()
        verdict = api.check_property(system, prop, api.CheckOptions())
        assert prop.kind is PropertyKind.DEADLOCK_FREE
        assert verdict.outcome is Outcome.VIOLATED


def test_process_that_starts_itself_gets_a_pool_or_is_refused_by_name() -> None:
    """A process whose last act is to start another of its kind (a recursion bounded by
    a global, as public puzzle solvers write it): the control graph gives no bound, so
    the pool is the most instances alive at once in the explored source (a creator
    cannot die before the younger process it started: 4 R alive at the deepest point);
    where exploring does not finish, the run is refused by name and position."""
    text = """\
byte depth;
proctype R() {
  if
  :: depth < 3 -> depth++; run R()
  :: else -> skip
  fi
}
init { run R() }
ltl deep { <> (depth == 3) }
"""
    system = load_promela("self.pml", text).systems[0]
    assert compare.pool_sizes(system, ["R"]) == {"R": 4}
    _agree(text, "self.pml")
    with pytest.raises(UnsupportedError, match=r"self\.pml:4:\d+: 'run R' without a bound") as info:
        compare.pool_sizes(system, ["R"], max_states=3)
    assert "counting them took more than 3 states" in str(info.value)
