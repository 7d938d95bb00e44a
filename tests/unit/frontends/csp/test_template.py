"""Leaves that differ only in label values are lowered once (``template.py``, issue 13):
the IR is the one of lowering every leaf on its own, and a thousand instances of a
definition cost one template and one checked lowering."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.frontends.csp import load_csp
from bridge.frontends.csp import system as system_module
from bridge.frontends.csp.template import TemplateCache
from bridge.ir import ModelFile

ROOT = Path(__file__).resolve().parents[4]

# Models where a value takes part in a decision, or shares a configuration with
# another: each must lower as without templates.
TRICKY = {
    "guard": """var n = 0;
Node(i) = [i == 2] a.i -> Node(i) [] [n == 0] b.i{n = 1;} -> Node(i);
Sys = ||| x:{0..3}@Node(x);
#assert Sys deadlockfree;""",
    "swap": """P(i, j) = a.i -> b.j -> P(j, i);
Sys = ||| x:{0..3}@P(x, 2);
#assert Sys deadlockfree;""",
    "equal": """P(i, j) = a.i -> b.j -> P(j, i);
Sys = ||| x:{0..2}@(||| y:{0..2}@P(x, y));
#assert Sys deadlockfree;""",
    "computed": """P(i) = a.(i + 1) -> Q(i); Q(k) = c.k -> P(k);
Sys = ||| x:{0..3}@P(x);
#assert Sys deadlockfree;""",
    "passed-on": """P(i) = a.i -> Q(i); Q(k) = [k > 1] c.k -> P(k);
Sys = ||| x:{0..3}@P(x);
#assert Sys deadlockfree;""",
    "hiding": """P(i) = (a.i -> b.i -> P(i)) \\ {a.2};
Sys = ||| x:{0..3}@P(x);
#assert Sys deadlockfree;""",
    "macro": """#define twice {i * 2};
var g = 0;
P(i) = a.i{g = twice;} -> P(i);
Sys = ||| x:{0..3}@P(x);
#assert Sys deadlockfree;""",
    "labels": """var n = 0;
Node(i) = start.i -> Idle(i) [] up.i{n = n + 1;} -> Busy(i);
Idle(i) = [n < 2] up.i{n = n + 1;} -> Busy(i);
Busy(i) = [n > 0] down.i{n = n - 1;} -> Idle(i);
Sys = ||| x:{0..5}@Node(x);
#assert Sys deadlockfree;""",
    "barrier": """Node(i) = go -> a.i -> Node(i);
Sys = (||| x:{0..3}@Node(x)) || Go();
Go() = go -> Go();
#assert Sys deadlockfree;""",
}


def _without_templates(monkeypatch: pytest.MonkeyPatch, path: str, text: str) -> ModelFile:
    with monkeypatch.context() as m:
        m.setattr(TemplateCache, "_shape", lambda self, leaf: None)
        return load_csp(path, text)


def _sources() -> list[tuple[str, str, str]]:
    out = [(name, f"{name}.csp", text) for name, text in TRICKY.items()]
    for path in sorted((ROOT / "tests" / "models" / "csp").glob("*.csp")):
        out.append((path.stem, str(path), path.read_text()))
    for path in sorted((ROOT / "case_studies").glob("*/*.csp")):
        out.append((f"{path.parent.name}/{path.stem}", str(path), path.read_text()))
    return out


@pytest.mark.parametrize(("name", "path", "text"), _sources(), ids=[s[0] for s in _sources()])
def test_templates_give_the_ir_of_lowering_each_leaf(
    name: str, path: str, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        expected = _without_templates(monkeypatch, path, text)
    except Exception as error:  # noqa: BLE001 - the same error either way
        with pytest.raises(type(error)):
            load_csp(path, text)
        return
    assert load_csp(path, text) == expected


def _stats(monkeypatch: pytest.MonkeyPatch, text: str) -> dict[str, int]:
    seen: list[dict[str, int]] = []
    original = system_module.SystemBuilder.__init__

    def init(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        original(self, *args, **kwargs)
        seen.append(self.templates.stats)

    monkeypatch.setattr(system_module.SystemBuilder, "__init__", init)
    load_csp("m.csp", text)
    return seen[-1]


def test_which_leaves_are_templated(monkeypatch: pytest.MonkeyPatch) -> None:
    # i decides a guard, or is computed: each leaf lowered on its own.
    for name in ("guard", "computed", "passed-on", "hiding", "macro"):
        stats = _stats(monkeypatch, TRICKY[name])
        assert stats["instances"] == 0, name
    # Labels passed along three definitions: one template, one checked lowering.
    stats = _stats(monkeypatch, TRICKY["labels"])
    assert stats == {"lowerings": 1, "templates": 1, "instances": 6}
    # j is the literal 2: no template (a label value could equal it).
    assert _stats(monkeypatch, TRICKY["swap"])["instances"] == 0
    # x = y and x != y are two templates (P(1, 1) has one configuration per swap).
    stats = _stats(monkeypatch, TRICKY["equal"])
    assert stats == {"lowerings": 2, "templates": 2, "instances": 9}


def test_a_thousand_instances_lower_one_template(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "case_studies" / "le_pl" / "le_pl.csp").read_text()
    text = text.replace("#define N 10;", "#define N 1000;")
    stats = _stats(monkeypatch, text)
    # Oracle, Guesser, and Node's first instance checked against its template.
    assert stats == {"lowerings": 3, "templates": 1, "instances": 1000}


def test_a_template_that_disagrees_with_its_first_instance_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The checked first lowering is the safety net under ``label_parameters``: told
    that i is a label although it is computed (``a.(i + 1)``), the template is dropped
    and every leaf is lowered on its own, with the right IR."""
    from bridge.frontends.csp import template

    expected = _without_templates(monkeypatch, "c.csp", TRICKY["computed"])
    monkeypatch.setattr(template, "label_parameters", lambda low, start: frozenset(
        {("P", 0), ("Q", 0)}))
    stats = _stats(monkeypatch, TRICKY["computed"])
    assert stats == {"lowerings": 4, "templates": 1, "instances": 0}
    assert load_csp("c.csp", TRICKY["computed"]) == expected
