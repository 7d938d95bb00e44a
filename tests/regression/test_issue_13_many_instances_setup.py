"""Regression (issue 13, issue 11 item 4): LE with 1000 identical nodes lowered each
node on its own (1002 leaf lowerings), generated and compiled code per instance (1002
compilations) and computed the 2003 successors of its initial state four times; the
check took 12 s (139 s at N = 10 000). Now: one template, one family code, one
expansion. Counts, not seconds."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.frontends.csp import load_csp
from bridge.frontends.csp import system as system_module
from bridge.semantics import statespace

ROOT = Path(__file__).resolve().parents[2]


def test_le_pl_at_1000_nodes_lowers_and_compiles_node_once(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    text = (ROOT / "case_studies" / "le_pl" / "le_pl.csp").read_text()
    text = text.replace("#define N 10;", "#define N 1000;")
    builders: list[system_module.SystemBuilder] = []
    original_init = system_module.SystemBuilder.__init__

    def init(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        original_init(self, *args, **kwargs)
        builders.append(self)

    spaces: list[statespace.CompiledStateSpace] = []
    original_build = statespace.build_state_space

    def build(system, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        space = original_build(system, *args, **kwargs)
        spaces.append(space)
        return space

    expansions: list[int] = []
    original_successors = statespace.CompiledStateSpace.successors

    def successors(self, state):  # noqa: ANN001, ANN202
        expansions.append(hash(state))
        return original_successors(self, state)

    monkeypatch.setattr(system_module.SystemBuilder, "__init__", init)
    monkeypatch.setattr(statespace, "build_state_space", build)
    monkeypatch.setattr(statespace.CompiledStateSpace, "successors", successors)
    system = load_csp("le_pl.csp", text).systems[0]
    # Oracle, Guesser, and Node(0) checked against the template.
    assert builders[-1].templates.stats == {"lowerings": 3, "templates": 1, "instances": 1000}
    verdict = api.check_property(system, system.properties[0], api.CheckOptions(engine="python"))
    assert verdict.outcome.name == "VIOLATED"
    assert verdict.statistics.states == 2003
    (space,) = spaces
    assert space.family_compilations == 1
    assert len(expansions) == len(set(expansions))  # each state expanded once


def test_counter_abstraction_erases_a_template_s_edges_once(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """The counter abstraction's analysis keyed each of the 4000 edges of LE's 1000
    nodes by a copy of the edge without its event's components, hashing its expressions
    (``_erase_identity``); nodes made from one template share their edges' parts and
    are now found by the parts' identity: one copy and one rewrite per edge of the
    definition, with the same verdict."""
    import dataclasses
    import types

    from bridge.ir import Edge
    from bridge.reductions import _counter_model, counter

    text = (ROOT / "case_studies" / "le_pl" / "le_pl.csp").read_text()
    text = text.replace("#define N 10;", "#define N 1000;")
    rewrites: list[int] = []
    copies: list[int] = []
    original_rewrite = _counter_model.rewrite

    def rewrite(node, fn):  # noqa: ANN001, ANN202
        rewrites.append(1)
        return original_rewrite(node, fn)

    def replace(obj, **changes):  # noqa: ANN001, ANN003, ANN202
        if isinstance(obj, Edge):
            copies.append(1)
        return dataclasses.replace(obj, **changes)

    # the model analysis (families, identity erased) lives in _counter_model
    monkeypatch.setattr(_counter_model, "rewrite", rewrite)
    monkeypatch.setattr(_counter_model, "dataclasses", types.SimpleNamespace(
        replace=replace, is_dataclass=dataclasses.is_dataclass, fields=dataclasses.fields))
    system = load_csp("le_pl.csp", text).systems[0]
    verdict = counter.check_counter_abstraction(system, system.properties[0], cutoff=2)
    assert verdict.outcome.name == "VIOLATED"
    assert len(rewrites) <= 10
    assert len(copies) <= 10
