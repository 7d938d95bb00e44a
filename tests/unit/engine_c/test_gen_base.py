"""What the C generator reads off the IR before it generates: whether a system may start
processes at run time (``gen_base.starts_processes``), which bounds the packed vector."""

from __future__ import annotations

from pathlib import Path

from bridge import api
from bridge.engine_c.codegen import CGenerator
from bridge.engine_c.gen_base import starts_processes
from bridge.ir import If, Run, While
from bridge.semantics.statespace import build_state_space
from tests.irbuild import G, edge, eq, process, system


def _promela(tmp_path: Path, text: str):  # noqa: ANN202
    path = tmp_path / "m.pml"
    path.write_text(text, encoding="utf-8")
    return api.load_model(str(path)).properties()[0][0]


def test_a_run_statement_starts_processes(tmp_path: Path) -> None:
    ts = _promela(tmp_path, "proctype P() { skip }\ninit { run P() }\n")
    assert starts_processes(ts)


def test_a_run_nested_in_an_effect_starts_processes() -> None:
    run = Run("P", ())
    nested = While(eq(G("x"), 0), (If(((eq(G("x"), 1), (run,)),)),))
    assert starts_processes(system([process("P", [edge(0, 1, effect=[nested])])]))
    assert not starts_processes(system([process("P", [edge(0, 1)])]))


def test_without_run_the_vector_is_bounded_by_the_initial_instances(tmp_path: Path) -> None:
    """Two instances with 120 ints each: 255 times the segment would pass 65,535 bytes
    (the store's lengths would take 4 bytes a state), the initial instances do not (m92
    runs it against SPIN)."""
    ts = _promela(tmp_path, "active [2] proctype W() { int a[120]; a[1] = 2 }\n")
    assert not starts_processes(ts)
    gen = CGenerator(build_state_space(ts), [])
    segments = sum(gen.packed.segments[t].size for t in gen.layout.initial_templates)
    assert gen.max_vector == gen.packed.static_bytes + segments < 65535
