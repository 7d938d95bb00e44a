"""The packed state vector: the narrowest kinds, and canonical <-> bytes round trips."""

from __future__ import annotations

from bridge import api
from bridge.engine_c.layout import I8, I16, I32, U8, U16, kind_for_range, pack_layout
from bridge.ir import SHORT, UNBOUNDED, Variable
from bridge.semantics.statespace import build_state_space
from tests.irbuild import G, assign, edge, int_var, process, system


def test_kinds_are_the_narrowest_that_hold_the_range():
    assert kind_for_range(0, 1) is U8
    assert kind_for_range(-1, 1) is I8
    assert kind_for_range(0, 300) is U16
    assert kind_for_range(-32768, 32767) is I16
    assert kind_for_range(-(2**31), 2**31 - 1) is I32
    assert kind_for_range(0, 2**40) is None


def test_static_layout_packs_byte_short_and_unbounded():
    ts = system([process("P", [edge(0, 0, effect=[assign("b", 1)])])],
                globals_=[int_var("b", 0, 0, 255, overflow=api_wrap()),
                          Variable("s", SHORT), Variable("u", UNBOUNDED)])
    space = build_state_space(ts)
    packed = pack_layout(space.layout)
    assert [k.name for k in packed.static_kinds] == ["u8", "i16", "i32"]
    state = space.initial_states()[0]
    canonical = packed.canonical(space, state)
    assert packed.unpack(packed.pack(canonical)) == canonical


def api_wrap():
    from bridge.ir import Overflow

    return Overflow.WRAP


def test_dynamic_layout_round_trips_promela(tmp_path):
    path = tmp_path / "m.pml"
    path.write_text("byte x; chan q = [2] of { byte, short };\n"
                    "proctype P(byte k) { x = k }\n"
                    "init { run P(3); run P(4) }\n")
    [ts] = api.load_model(str(path)).systems
    space = build_state_space(ts)
    packed = pack_layout(space.layout)
    seen = [space.initial_states()[0]]
    frontier = list(seen)
    while frontier:
        s = frontier.pop()
        for _, n in space.successors(s):
            if n not in seen:
                seen.append(n)
                frontier.append(n)
    assert len(seen) > 3
    for s in seen:
        canonical = packed.canonical(space, s)
        assert packed.unpack(packed.pack(canonical)) == canonical
    assert G("x")  # the builder stays importable for the other tests


def test_library_slots_hold_ids_and_pack_the_empty_value_as_0():
    """A variable of a library class is an i32 slot holding an id of library.c's table
    (``library_slots`` says where); the empty value packs as id 0, any other value has
    no id before a search interns it."""
    from pathlib import Path

    import pytest

    path = Path(__file__).resolve().parents[2] / "models" / "csp" / "pat35_library_set.csp"
    ts = api.load_model(str(path)).systems[0]
    space = build_state_space(ts)
    packed = pack_layout(space.layout)
    assert packed.library_slots == (0, 1)  # s, t
    assert [packed.static_kinds[i] for i in packed.library_slots] == [I32, I32]
    state = space.initial_states()[0]
    canonical = packed.canonical(space, state)
    assert canonical[:2] == [(), ()]
    assert packed.unpack(packed.pack(canonical))[:2] == [0, 0]
    with pytest.raises(ValueError, match="no id"):
        packed.pack([(1, 2)] + canonical[1:])
