"""The C generator's CSP# specifics: event names and their codes, the constants of a
static instance (its parameters folded into its event names) and the check that
every synchronisation vector is precomputed (issue 12).
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from bridge.engine_c.gen_base import (
    CUnsupported,
    _c_string,
)
from bridge.ir import (
    Edge,
    ElseGuard,
)
from bridge.semantics.codegen import (
    event_constant,
    event_is_constant,
    guard_mentions,
)
from bridge.semantics.statespace import MAX_SYNC_VECTORS, make_combiner


class CspEvents:
    """The CSP# half of ``codegen.CGenerator`` (a mixin: its state is there)."""

    def intern_event(self, name: str) -> int:
        """Return the index of a constant event name in ``BR_EVENT_NAMES``."""
        if name not in self.event_names:
            self.event_names[name] = len(self.event_names)
        return self.event_names[name]

    def event_id(self, e: Edge, comm: bool = False) -> int:
        """Return the event code of a step of one edge, as the Python engine names it
        (``statespace._gen_edge``): -1 tau, -2 a name computed at run time (a CSP#
        channel step without an event, or components that are not constant)."""
        if e.event is None:
            return -2 if comm and self.csp else -1
        if not event_is_constant(self.pygen, e.event):
            return -2
        return self.intern_event(event_constant(self.pygen, e.event))

    def events_code(self) -> list[str]:
        names = list(self.event_names) or [""]
        quoted = ", ".join(_c_string(n) for n in names)
        offsets, pairs = self.vector_tables
        return [f"#define BR_EVENT_COUNT {len(self.event_names)}",
                f"static const char *const BR_EVENT_NAMES[{len(names)}] = {{{quoted}}};",
                "/* the edges of synchronisation vector v: pairs (pid, edge label) "
                "BR_VEC_OFF[v] .. BR_VEC_OFF[v + 1] - 1 of BR_VEC_EDGES */",
                f"static const int32_t BR_VEC_OFF[{len(offsets)}] = "
                f"{{{', '.join(map(str, offsets))}}};",
                f"static const int32_t BR_VEC_EDGES[{max(1, len(pairs))}] = "
                f"{{{', '.join(map(str, pairs)) or '0'}}};"]

    # ------------------------------------------------------------------ instances

    def set_instance_constants(self, pid: int) -> None:
        """Fold the never-assigned locals of static instance ``pid`` (parameters, mostly)
        as the Python engine does for its specialised instance code: CSP# event names
        such as ``rule1.i.(i+1)%N`` become constants, so barriers are precomputed."""
        key = self.space._static_layout.key
        tpl, values = key[pid]
        names = [n for n, _ in self.space._const_locals[tpl]]
        self.pygen.consts = dict(zip(names, values, strict=True))

    @contextlib.contextmanager
    def instance_constants(self, pid: int) -> Iterator[None]:
        self.set_instance_constants(pid)
        try:
            yield
        finally:
            self.pygen.consts = {}

    def _check_vectors_precomputed(self) -> None:
        """Raise ``CUnsupported`` when the Python engine combines barriers at run time
        (more than ``MAX_SYNC_VECTORS`` vectors): the C engine has only precomputed
        vectors. No vector at all (no barrier can ever be completed) is fine."""
        offers: dict[int, list] = {}
        lay = self.layout
        for pid, t in enumerate(lay.initial_templates):
            sync = self.space._sync_sets.get(pid, frozenset())
            if not sync:
                continue
            with self.instance_constants(pid):
                for k, e in enumerate(lay.processes[t].process.edges):
                    if (e.comm is not None or e.event is None or e.data_operation
                            or isinstance(e.guard, ElseGuard) or guard_mentions(e.guard, "timeout")
                            or not event_is_constant(self.pygen, e.event)):
                        continue
                    name = event_constant(self.pygen, e.event)
                    if name in sync:
                        offers.setdefault(pid, []).append((name, ((pid, k),)))
        composition = self.system.composition
        if composition is not None and len(make_combiner(composition)(offers)) > MAX_SYNC_VECTORS:
            raise CUnsupported("CSP barriers combined at run time (more synchronisation "
                               f"vectors than the {MAX_SYNC_VECTORS} precomputed)")
