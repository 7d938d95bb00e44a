"""Unit tests of the CSP# parser (bridge/frontends/csp/parse.py; cspsharp.md 1-4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.diagnostics import ParseError, UnsupportedError
from bridge.frontends.csp import syntax as s
from bridge.frontends.csp.parse import END_MARK, mark_item_ends, parse_csp

MODELS = Path(__file__).resolve().parents[3] / "models" / "csp"


def parse(text: str) -> s.Program:
    return parse_csp("t.csp", text)


def body(text: str, name: str = "P") -> s.Term:
    return next(d.body for d in parse(text).processes if d.name == name)


def test_item_end_marking_keeps_sequential_semicolons() -> None:
    text = "P = a -> Skip; Q; R(1);\nQ = b -> Skip;\n#define N 3;\n"
    marked = mark_item_ends(text)
    assert len(marked) == len(text)
    # the ';' of 'Skip; Q' and 'Q; R(1)' compose; the others end items
    assert marked.count(END_MARK) == 3
    assert marked.startswith("P = a -> Skip; Q; R(1)" + END_MARK)


def test_item_end_marking_ignores_comments_and_index_separators() -> None:
    text = "P = ||| i:{0..1}; j:{0..1} @ C(i, j); // x = 1;\n/* Q = 2; */ C(i, j) = Skip;"
    marked = mark_item_ends(text)
    assert marked.count(END_MARK) == 2


def test_token_ring_model_parses() -> None:
    program = parse_csp(str(MODELS / "token_ring.csp"))
    assert [d.name for d in program.processes] == ["Node", "Watcher", "Ring"]
    assert [a.kind for a in program.assertions] == ["deadlockfree", "reaches", "ltl", "ltl"]
    assert program.assertions[2].ltl_text.strip() == "[](grab.0 -> <> drop.0)"
    node = program.processes[0]
    assert [p.name for p in node.params] == ["i"]
    assert isinstance(node.body, s.Binary) and node.body.op == "[]"


def test_prefix_binds_tighter_than_choice_and_sequence() -> None:
    t = body("P = a -> Skip [] b -> Stop;")
    assert isinstance(t, s.Binary) and t.op == "[]"
    assert all(isinstance(op, s.EventPrefix) for op in t.operands)
    t = body("P = a -> Skip; Q;")
    assert isinstance(t, s.Binary) and t.op == ";"
    assert isinstance(t.operands[0], s.EventPrefix)


def test_internal_choice_binds_tighter_than_general_choice() -> None:
    t = body("P = A <> B [] C;")
    assert isinstance(t, s.Binary) and t.op == "[]"
    assert isinstance(t.operands[0], s.Binary) and t.operands[0].op == "<>"


def test_indexed_body_extends_to_the_right() -> None:
    t = body("P = || i:{0..2} @ A(i) ||| B;")
    assert isinstance(t, s.Indexed) and t.op == "||"
    assert isinstance(t.body, s.Binary) and t.body.op == "|||"


def test_interleave_is_looser_than_parallel() -> None:
    t = body("P = A || B ||| C;")
    assert isinstance(t, s.Binary) and t.op == "|||"
    assert isinstance(t.operands[0], s.Binary) and t.operands[0].op == "||"


def test_events_channels_blocks_and_fairness() -> None:
    t = body("P = c!x.(y+1){x = 0;} -> d?[v > 0]v.3 -> wf(a.1) -> tau{y++} -> {x--} -> Skip;")
    assert isinstance(t, s.SendPrefix) and len(t.fields) == 2 and t.block is not None
    r = t.body
    assert isinstance(r, s.RecvPrefix) and r.guard is not None and len(r.fields) == 2
    f = r.body
    assert isinstance(f, s.EventPrefix) and f.fairness == "wf" and f.event.name == "a"
    tau = f.body
    assert isinstance(tau, s.EventPrefix) and tau.event.is_tau and tau.block is not None
    blk = tau.body
    assert isinstance(blk, s.EventPrefix) and blk.event.is_tau


def test_compound_event_components_are_additive_expressions() -> None:
    t = body("P = rule1.i.(i + 1)%N -> Skip;")
    assert isinstance(t, s.EventPrefix)
    comps = t.event.components
    assert len(comps) == 2
    assert isinstance(comps[1], s.SBinary) and comps[1].op == "%"


def test_case_if_atomic_and_indexed_choice() -> None:
    t = body("P = case { x == 0 : a -> Skip  x == 1 : b -> Skip  default : Stop };")
    assert isinstance(t, s.Case) and len(t.branches) == 2 and isinstance(t.default, s.Stop)
    t = body("P = if (x > 0) { a -> Skip } else if (x < 0) { b -> Skip } else { Stop };")
    assert isinstance(t, s.IfProc) and isinstance(t.otherwise, s.IfProc)
    t = body("P = atomic { a -> Skip }; ([] k:{0..2} @ (pick.k -> Skip));")
    assert isinstance(t, s.Binary) and isinstance(t.operands[0], s.Atomic)
    assert isinstance(t.operands[1], s.Indexed) and t.operands[1].op == "[]"


def test_declarations() -> None:
    p = parse(
        "#define N 3;\nenum { R, G };\nvar a = [4, 1(N), 7..9];\nvar t : {0..40} = 20;\n"
        "hvar h;\nvar g[2][N];\nchannel c 2;\n#alphabet P { a, i:{0..1}@b.i };\n"
    )
    assert [d.name for d in p.defines] == ["N"]
    assert p.enums[0].names[0][0] == "R"
    a, t, h, g = p.variables
    assert isinstance(a.init, s.ArrayLit) and [e.kind for e in a.init.elems] == [
        "single", "repeat", "range"]
    assert t.range is not None and h.hidden and len(g.dims) == 2
    assert p.channels[0].name == "c"
    assert p.alphabets[0].process == "P" and len(p.alphabets[0].items) == 2


def test_assertion_forms() -> None:
    p = parse(
        "P = a -> P;\n#define goal x > 1;\n#assert P() deadlockfree;\n#assert P nonterminating;\n"
        "#assert P divergencefree;\n#assert P deterministic;\n"
        "#assert P reaches goal with min(x + 1);\n#assert P |= []<> a && X a;\n"
    )
    kinds = [a.kind for a in p.assertions]
    assert kinds == ["deadlockfree", "nonterminating", "divergencefree", "deterministic",
                     "reaches", "ltl"]
    assert p.assertions[4].optimise is not None and p.assertions[4].optimise[0] == "min"
    assert p.assertions[5].ltl_text.strip() == "[]<> a && X a"


def test_include_is_relative_to_the_including_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "defs.csp").write_text("#define N 2;\nQ = b -> Skip;\n")
    main = tmp_path / "main.csp"
    main.write_text('#include "sub/defs.csp";\nP = a -> Q;\n#assert P deadlockfree;\n')
    p = parse_csp(str(main))
    assert {d.name for d in p.processes} == {"P", "Q"}
    q = next(d for d in p.processes if d.name == "Q")
    assert q.span.file.endswith("defs.csp") and q.span.line == 2


def test_missing_include_is_a_parse_error(tmp_path: Path) -> None:
    main = tmp_path / "main.csp"
    main.write_text('#include "nothere.csp";\n')
    with pytest.raises(ParseError, match="cannot read included file"):
        parse_csp(str(main))


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("P = Wait[5]; Skip;", "Wait"),
        ("P = a -> Skip within[3];", "within"),
        ("P = pcase { 1 : a -> Skip };", "pcase"),
    ],
)
def test_other_pat_modules_are_unsupported(text: str, fragment: str) -> None:
    with pytest.raises(UnsupportedError, match="unsupported construct") as info:
        parse(text)
    assert fragment in str(info.value)
    assert info.value.diagnostics[0].span is not None


def test_unsupported_words_inside_comments_are_ignored() -> None:
    p = parse("// P = Wait[5];\nP = a -> Skip; /* pcase { */\n")
    assert [d.name for d in p.processes] == ["P"]


def test_event_list_prefix_is_a_choice_of_prefixes() -> None:
    t = body("P = (a, b.1) -> Skip;")
    assert isinstance(t, s.Binary) and t.op == "[]"
    assert [op.event.name for op in t.operands] == ["a", "b"]
    assert t.operands[0].body is t.operands[1].body
    t = body("P = (a -> Skip);")
    assert isinstance(t, s.EventPrefix)
