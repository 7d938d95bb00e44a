"""The compiled state space of a ``TransitionSystem`` (DESIGN.md sections 3 and 7).

``build_state_space(system)`` lays out the state vector (``state.py``), generates
Python source for every control location of every instance (``codegen.py``), compiles
it once, and returns a ``CompiledStateSpace`` implementing the ``StateSpace`` protocol.

Semantics implemented (model.py / expr.py docstrings, cspsharp.md section 7,
promela-spin.md section 11):

* an edge is enabled iff its guard holds and its channel operation can happen; taking
  it performs the channel operation, moves to the target and runs the effect;
* ``else`` is enabled iff no other edge of the same location (of that instance) has a
  step; ``timeout`` is true iff the system has no step other than timeout edges (it is
  evaluated last; a location that mixes ``else`` and ``timeout`` is not supported);
* rendezvous channels pair a send of one instance with a matching receive of another
  into one step (sender's effect first, then the receiver's binding and effect);
* CSP barriers: an evaluated event name in the alphabets of several operands of a
  ``Parallel`` happens jointly, only if every operand with it in its alphabet offers it.
  Data operations (``Edge.data_operation``) and channel edges never synchronise
  (cspsharp.md section 7); an effect on a barrier edge runs as part of the joint step;
* atomicity (CSP#, IR): if an instance at an ``atomic`` location has a step, only steps
  of instances at atomic locations are offered (atomicity is lost while it is blocked).
  Promela follows SPIN exactly: the instance whose last step left it inside an atomic
  sequence (the state's exclusive slot, see state.py) moves alone while it can; once
  it blocked and another instance moved, it regains control only by moving itself;
* Promela termination: an instance at a ``terminal`` location dies by a separate step,
  enabled only for the youngest live instance (SPIN) and only while its
  ``Process.provided`` clause holds (as pan's ``-end-`` step); its segment is removed.

Beyond the protocol, ``CompiledStateSpace`` offers: ``predicate(expr)`` and
``evaluator(expr)`` (compiled state functions), ``state_key(state)`` (the visited key:
hidden variables dropped), ``layout_of(state)``, ``instance_name(i, state=None)``,
``process_of(i, state)``, ``edge(i, k, state)`` (for traces), ``source`` (the generated
code, for debugging) and ``inline_after`` (visits before a dynamic layout gets its own
inlined successor function).

Step.action: the event name for CSP (tau steps ``("tau", instance, edge)``, ``tau``
True); for Promela and IR ``(instance, edge)`` for one edge, the tuple of
``(instance, edge)`` pairs for a rendezvous or barrier, ``(instance, -1)`` for death.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from bridge.diagnostics import ModelRuntimeError, Span, UnsupportedError
from bridge.ir import (
    ArrayType,
    BoolType,
    Composition,
    Const,
    Edge,
    ElseGuard,
    Event,
    Expr,
    InstanceRef,
    Interleave,
    Parallel,
    Process,
    Receive,
    RecvBind,
    Send,
    SourceLanguage,
    TransitionSystem,
    Type,
    scalar_count,
)
from bridge.semantics.codegen import (
    Context,
    Generator,
    as_stored,
    assigned_locals,
    c_div,
    c_rem,
    converting,
    event_code,
    event_constant,
    event_is_constant,
    field_types,
    guard_mentions,
    remotely_assigned,
    store_code,
    stored_value,
)
from bridge.semantics.library import LibraryError
from bridge.semantics.state import ProcessLayout, StateLayout, compute_layout
from bridge.semantics.successors import StateVector, Step

# Above this many precomputed synchronisation vectors, barriers are combined at run time.
MAX_SYNC_VECTORS = 20000

# From this many static instances of templates equal but for their constant event names
# (CSP#'s ``||| i:{0..N-1}@P(i)``), they share one compiled code instead of one each.
FAMILY_MIN_INSTANCES = 16

# ---------------------------------------------------------------------------------
# Runtime layouts (one per tuple of live templates)


class RuntimeLayout:
    """A concrete arrangement of instance segments: templates in pid order, bases,
    channel records by id, and the per-instance runner tuples used by ``successors``."""

    __slots__ = (
        "id", "templates", "bases", "n", "runners", "chans", "chan_names", "size",
        "segment_channel_ids", "pop_id", "key", "fn", "visits", "death_guard", "prio_slots",
        "atomic_edges",
    )

    def __init__(self, lid: int, templates: tuple[int, ...]) -> None:
        self.id = lid
        self.templates = templates
        self.n = len(templates)
        self.bases: tuple[int, ...] = ()
        self.runners: list[tuple] = []
        self.chans: dict[int, tuple[int, int, int, int]] = {}
        self.chan_names: dict[int, str] = {}
        self.size = 0
        self.segment_channel_ids: list[tuple[int, ...]] = []
        self.pop_id = -1
        self.key: tuple = ()
        self.fn: Callable | None = None  # the inlined successor function, once hot
        self.visits = 0
        # the youngest instance's provided clause, compiled (None: death unguarded)
        self.death_guard: Callable | None = None
        # absolute slot of each instance's priority (priority scheduling only)
        self.prio_slots: tuple[int, ...] = ()
        # (instance, edge) of the edges flagged atomic (``Edge.atomic``)
        self.atomic_edges: frozenset[tuple[int, int]] = frozenset()


class CompiledStateSpace:
    """The ``StateSpace`` of a system, with successors compiled to Python code."""

    def __init__(self, system: TransitionSystem, validate: bool = True) -> None:
        self.system = system
        self._validate = validate
        self.layout: StateLayout = compute_layout(system)
        self.language = system.language
        self.csp = system.language is SourceLanguage.CSP
        self._steps: dict[tuple, Step] = {}
        self._layouts: list[RuntimeLayout] = []
        self._layout_ids: dict[tuple, int] = {}
        self._geometries: dict[tuple[int, ...], tuple] = {}
        self._geo_next_id: dict[tuple[int, ...], int] = {}  # first free channel id
        self._predicates: dict[Expr, Callable[[StateVector], bool]] = {}
        self._sync_sets: dict[int, frozenset[str]] = _sync_sets(system)
        self._hidden_sets: dict[int, frozenset[str]] = _hidden_sets(system)
        self._has_barriers = any(self._sync_sets.values())
        # xr/xs: per template, the compiled claims of a new instance (None: none); the
        # violations met while computing a state's successors; a violation made by
        # the initial instances themselves (reported when the initial state is expanded).
        self._claimers: list[Callable | None] = [None] * len(self.layout.processes)
        self._claim_pending: list[tuple[int, ModelRuntimeError]] = []
        self._initial_claim_error: ModelRuntimeError | None = None
        self._compile()
        self.instance_names: list[str] = [
            inst.name or f"{inst.process}({i})" for i, inst in enumerate(system.instances)
        ]
        self._initial = self._make_initial()
        # A dynamic layout gets its own inlined successor function once it has been
        # visited this often (layouts seen only while processes start stay generic).
        self.inline_after = 2000  # compiling costs about as much as 1000 generic visits
        self._successors = self._build_successors()

    # ------------------------------------------------------------------ compile

    def _compile(self) -> None:
        lay = self.layout
        gen = Generator(lay)
        self._gen = gen
        ns = gen.namespace
        ns.update(_runtime_helpers(self))
        code: list[str] = []
        self._pending_code = code
        self._atomic_sets: list[frozenset[int]] = []
        self._terminal_sets: list[frozenset[int]] = []
        self._end_sets: list[frozenset[int]] = []
        self._atomic_edge_sets: list[frozenset[int]] = []
        for tpl in lay.processes:
            locs = tpl.process.locations
            self._atomic_sets.append(frozenset(x.id for x in locs if x.atomic))
            self._terminal_sets.append(frozenset(x.id for x in locs if x.terminal))
            self._end_sets.append(frozenset(x.id for x in locs if x.end or x.terminal))
            self._atomic_edge_sets.append(
                frozenset(k for k, e in enumerate(tpl.process.edges) if e.atomic))
        self._any_atomic = any(self._atomic_sets) or any(self._atomic_edge_sets)
        # Templates equal but for their constant event names and integer literals share
        # one compiled code (``_family_table``) when many instances use them.
        self._family_rep: list[int] = _families(self.system, lay)
        self._family_steps: str | None = None  # set while a family's code is generated
        self._family_tables: dict[int, tuple] = {}
        self._family_fns: set[tuple] = set()
        # per family: its members' rows of the literals that differ (by template), or
        # None when its code cannot read them per member (``family_literal_columns``)
        self._family_literals: dict[int, tuple[list[int], dict[int, tuple[int, ...]]] | None] = {}
        self.family_compilations = 0
        # Validate every template once with generic code (base and pid as variables), so
        # unsupported constructs are reported when the model is built, not mid-search
        # (a family's members once, with its representative: they differ in no code).
        for tpl in lay.processes if self._validate else ():
            if self._family_rep[tpl.index] in (-1, tpl.index):
                self._gen_process(gen, [], tpl, "b", "pid", f"v{tpl.index}")
        self._pending_code = code
        self._const_locals: list[list[tuple[str, int]]] = []
        remote = remotely_assigned(e for p in self.system.processes for e in p.edges)
        for tpl in lay.processes:
            assigned = assigned_locals(tpl.process.edges) | remote.get(tpl.process.name, set())
            self._const_locals.append([
                (name, slot.offset) for name, slot in tpl.locals.items()
                if name not in assigned and slot.size == 1
            ])
        for run_target in _run_targets(self.system):
            if run_target not in lay.process_index:
                raise UnsupportedError.at(None, f"run of unknown process '{run_target}'")
        # Segment initialisers (a family's members share their representative's).
        for tpl in lay.processes:
            if self._family_rep[tpl.index] in (-1, tpl.index):
                self._gen_segment_init(gen, code, tpl)
        # Global initialiser.
        self._gen_globals_init(gen, code)
        self._gen_claims(gen, code)
        source = "\n".join(code) + "\n"
        self.source = source
        ns["_SPANS"] = gen.spans
        exec(compile(source, f"<bridge:{self.system.name}>", "exec"), ns)  # noqa: S102
        self._ns = ns
        self._seg_init = [
            ns[f"_seginit{t.index if self._family_rep[t.index] < 0 else self._family_rep[t.index]}"]
            for t in lay.processes
        ]
        for tpl in lay.processes:
            if tpl.process.channel_assertions:
                self._claimers[tpl.index] = ns[f"_claims{tpl.index}"]
        self._spec_cache: dict[tuple, tuple] = {}
        self._vectors = []
        self._vector_edges: set[tuple[int, int]] = set()
        self._vector_records: dict[tuple[int, int], tuple] = {}
        self._spec_bodies: dict[tuple, list[tuple[int, list[str]]]] = {}
        self._death_guards: dict[tuple, Callable | None] = {}

    def _specialised(self, tpl_index: int, pid: int, base: int, consts: tuple[int, ...]) -> tuple:
        """Return the location-function table of one instance, generated and compiled on
        first use with its base, pid and never-assigned locals folded in."""
        key = (tpl_index, pid, base, consts)
        fns = self._spec_cache.get(key)
        if fns is not None:
            return fns
        gen = self._gen
        tpl = self.layout.processes[tpl_index]
        names = [n for n, _ in self._const_locals[tpl_index]]
        gen.consts = dict(zip(names, consts, strict=True))
        code: list[str] = []
        self._pending_code = code
        try:
            tag = gen.fresh("i")
            named = self._gen_process(gen, code, tpl, base, pid, tag)
            guard = None
            if tpl.process.provided is not None:
                guard = f"_dg{tag}"
                test = gen.expr(tpl.process.provided, Context("s", base, pid, tpl))
                code.extend([f"def {guard}(s):", f"    return {test}"])
        finally:
            gen.consts = {}
        fns = self._location_table(code, f"{tpl.process.name}({pid})", tpl, named)
        self._spec_cache[key] = fns
        self._spec_bodies[fns] = [(loc, lines[1:]) for loc, _, lines in named]
        self._death_guards[fns] = self._ns[guard] if guard is not None else None
        return fns

    def _location_table(self, code: list[str], what: str, tpl: ProcessLayout,
                        named: list[tuple[int, str, list[str]]]) -> tuple:
        """Return the location-function table (indexed by location id) of the functions
        ``named`` after compiling ``code`` (``what`` names it in tracebacks)."""
        source = "\n".join(code) + "\n"
        self.source += source
        exec(compile(source, f"<bridge:{self.system.name}:{what}>", "exec"), self._ns)  # noqa: S102
        table: list[Any] = [None] * (1 + max([loc.id for loc in tpl.process.locations], default=-1))
        for loc, fname, _ in named:
            table[loc] = self._ns[fname]
        return tuple(table)

    def _family_table(self, tpl_index: int, pid: int) -> tuple | None:
        """Return the location-function table shared by the family of template
        ``tpl_index`` for instance ``pid``, or None when that instance needs its own
        specialised code (no family, or one of its events is a barrier or hidden).

        The table is generated and compiled once per family, as generic code (base and
        pid are arguments, locals are read from the state); the step of an edge with a
        constant event comes from the family's per-instance table ``_FS<rep>[pid]``,
        and the integer literals that differ between the members from ``_FK<rep>[pid]``
        (``family_literal_columns``; when the representative's literals cannot stand for
        the others', every member gets specialised code), both filled here (DESIGN.md
        section 7)."""
        rep = self._family_rep[tpl_index]
        if rep < 0:
            return None
        if rep not in self._family_literals:
            members = [t for t in self.layout.processes if self._family_rep[t.index] == rep]
            found = family_literal_columns([t.process for t in members])
            self._family_literals[rep] = None if found is None else (found[0], {
                t.index: tuple(row) for t, row in zip(members, found[1], strict=True)})
        literals = self._family_literals[rep]
        if literals is None:
            return None
        gen = self._gen
        tpl = self.layout.processes[tpl_index]
        sync = self._sync_sets.get(pid, frozenset())
        hidden = self._hidden_sets.get(pid, frozenset())
        steps: list[Step | None] = []
        for k, e in enumerate(tpl.process.edges):
            name = None
            if e.event is not None:
                if not event_is_constant(gen, e.event):
                    if any(n.split(".", 1)[0] == e.event.base for n in sync | hidden):
                        return None
                    steps.append(None)
                    continue
                name = event_constant(gen, e.event)
                if name in hidden or (
                        name in sync and e.comm is None and not e.data_operation):
                    return None
            steps.append(self._step_for(name, ((pid, k),)))
        fns = self._family_tables.get(rep)
        if fns is None:
            rep_tpl = self.layout.processes[rep]
            table_name = f"_FS{rep}"
            self._ns[table_name] = {}
            self._ns[f"_FK{rep}"] = {}
            code: list[str] = []
            self._pending_code = code
            self._family_steps = table_name
            consts = family_constants(rep_tpl.process)
            gen.family_literals = {id(consts[k]): f"_FK{rep}[pid][{column}]"
                                   for column, k in enumerate(literals[0])}
            try:
                named = self._gen_process(gen, code, rep_tpl, "b", "pid", gen.fresh("F"))
            finally:
                self._family_steps = None
                gen.family_literals = None
            fns = self._location_table(code, f"{rep_tpl.process.name} family", rep_tpl, named)
            self.family_compilations += 1
            self._family_tables[rep] = fns
            self._family_fns.add(fns)
            self._spec_bodies[fns] = []
            self._death_guards[fns] = None
        self._ns[f"_FS{rep}"][pid] = tuple(steps)
        self._ns[f"_FK{rep}"][pid] = literals[1][tpl_index]
        return fns

    def _inline_layout(self, rl: RuntimeLayout) -> Callable:
        """Return one compiled successor function for layout ``rl`` with the location
        code of every instance inlined (no call per instance; DESIGN.md section 7)."""
        lay = self.layout
        ns = self._ns
        name = f"_succ{rl.id}"
        lines = [f"def {name}(s):", "    out = []", "    aux = []"]
        promela = self.language is SourceLanguage.PROMELA
        if promela:
            lines.append("    _XP.clear()")
        family_run: list[tuple[tuple, int, int]] = []
        for j, (fns, b, _pid, _atom, _term) in enumerate(rl.runners):
            if fns in self._family_fns:
                # Instances sharing a family's code: one loop over a run of them (in
                # pid order, so the successors come in the same order).
                family_run.append((fns, b, _pid))
                if j + 1 < len(rl.runners) and rl.runners[j + 1][0] in self._family_fns:
                    continue
                rname = self._gen.constant(tuple(family_run), "_FR")
                family_run = []
                lines.append(f"    for _ft, _b, _p in {rname}:")
                lines.append("        _f = _ft[s[_b]]")
                lines.append("        if _f is not None:")
                lines.append("            _f(s, _b, _p, out, aux)")
                continue
            bodies = self._spec_bodies[fns]
            if not bodies:
                continue
            block: list[str] = []
            if len(bodies) > 6:
                # Many locations: a table lookup beats a long if/elif chain.
                tname = self._gen.constant(fns, "_FT")
                block.append(f"    _f = {tname}[s[{b}]]")
                block.append("    if _f is not None:")
                block.append(f"        _f(s, {b}, {_pid}, out, aux)")
            else:
                block.append(f"    _l = s[{b}]")
                kw = "if"
                for loc, body in bodies:
                    block.append(f"    {kw} _l == {loc}:")
                    block.extend("    " + x for x in body)
                    kw = "elif"
            if promela:
                # A model error is reported only if pan would try this instance's
                # statements in this state (see _select).
                lines.append("    try:")
                lines.extend("    " + x for x in block)
                lines.append("    except _MRE as _e:")
                lines.append(f"        _XP.append(({_pid}, _e))")
            else:
                lines.extend(block)
        if promela and rl.n:
            _, b, pid, _, term = rl.runners[-1]
            if term:
                tname = self._gen.constant(term, "_TM")
                dname = self._gen.constant(Step(None, (pid, -1), (pid,), ()), "_DS")
                cond = f"s[{b}] in {tname}"
                if rl.death_guard is not None:
                    cond += f" and {self._gen.constant(rl.death_guard, '_DG')}(s)"
                lines.append(f"    if {cond}:")
                lines.append(f"        t = list(s[:{b}])")
                lines.append(f"        t[{lay.layout_slot}] = {rl.pop_id}")
                if lay.last_slot is not None:
                    lines.append(f"        t[{lay.last_slot}] = {pid}")
                if lay.exclusive_slot is not None:
                    lines.append(f"        t[{lay.exclusive_slot}] = -1")
                lines.append(f"        out.append(({dname}, tuple(t)))")
        if rl is self._static_layout or (self._static_layout is None and not lay.dynamic):
            self._gen_vectors(lines)
        lines.append("    if aux:")
        lines.append("        _post(s, out, aux, None)")
        if promela:
            lines.append(f"    return _select(s, out, {self._gen.constant(rl, '_RL')})")
        else:
            atomic = [(b, pid, atom) for _, b, pid, atom, _ in rl.runners if atom is not None]
            if atomic and not rl.atomic_edges:
                lines.append("    if out:")
                lines.append("        _in = []")
                for b, pid, atom in atomic:
                    aname = self._gen.constant(atom, "_AT")
                    lines.append(f"        if s[{b}] in {aname}: _in.append({pid})")
                lines.append("        if _in:")
                lines.append(
                    "            _ch = [x for x in out if any(p in _in for p in x[0].processes)]"
                )
                lines.append("            if _ch:")
                lines.append("                return _ch")
            elif rl.atomic_edges:
                # Some steps are atomic by their edge (Edge.atomic): a step is atomic if
                # one of its edges is flagged or leaves an atomic location.
                lines.append("    if out:")
                lines.append("        _in = []")
                for b, pid, atom in atomic:
                    aname = self._gen.constant(atom, "_AT")
                    lines.append(f"        if s[{b}] in {aname}: _in.append({pid})")
                ename = self._gen.constant(rl.atomic_edges, "_AE")
                lines.append(
                    "        _ch = [x for x in out if any(p in _in for p in x[0].processes)"
                    f" or not {ename}.isdisjoint(x[0].edges)]"
                )
                lines.append("        if _ch:")
                lines.append("            return _ch")
            lines.append("    return out")
        source = "\n".join(lines) + "\n"
        exec(compile(source, f"<bridge:{self.system.name}:layout{rl.id}>", "exec"), ns)  # noqa: S102
        return ns[name]

    def _plan_vectors(self, key: tuple) -> None:
        """Precompute the synchronisation vectors of a static system: for every barrier
        edge whose event name is constant, the combinations of (instance, edge) that can
        fire it jointly (the composition's rules applied once, statically, LTSmin's
        sync vectors). Their code goes into the layout function; offers that need the
        runtime combiner (evaluated names) are left to ``post``."""
        self._vectors: list[tuple[str, tuple]] = []
        composition = self.system.composition
        if composition is None or not self._has_barriers:
            return
        gen = self._gen
        offers: Offers = {}
        for pid, (tpl_index, consts) in enumerate(key):
            sync = self._sync_sets.get(pid, frozenset())
            if not sync:
                continue
            tpl = self.layout.processes[tpl_index]
            names = [n for n, _ in self._const_locals[tpl_index]]
            gen.consts = dict(zip(names, consts, strict=True))
            try:
                for k, e in enumerate(tpl.process.edges):
                    if (e.comm is not None or e.event is None or e.data_operation
                            or isinstance(e.guard, ElseGuard)
                            or guard_mentions(e.guard, "timeout")
                            or not event_is_constant(gen, e.event)):
                        continue
                    name = event_constant(gen, e.event)
                    if name in sync:
                        offers.setdefault(pid, []).append((name, ((pid, k),)))
            finally:
                gen.consts = {}
        vectors = make_combiner(composition)(offers)
        if len(vectors) > MAX_SYNC_VECTORS:
            return  # too many: the runtime combiner only builds the enabled ones
        self._vectors = vectors
        self._vector_edges = {p for _, parts in vectors for p in parts}

    def _gen_vectors(self, lines: list[str]) -> None:
        """Emit one test per synchronisation vector (see ``_plan_vectors``)."""
        records = self._vector_records
        for name, parts in self._vectors:
            conds = []
            for pid, k in parts:
                guard, slot, source, _, _ = records[(pid, k)]
                conds.append(f"s[{slot}] == {source}")
                if guard != "True":
                    conds.append(guard)
            lines.append(f"    # barrier {name}")
            lines.append(f"    if {' and '.join(conds)}:")
            lines.append("        t = list(s)")
            for pid, k in parts:
                _, slot, source, target, bapply = records[(pid, k)]
                if target != source:
                    lines.append(f"        t[{slot}] = {target}")
                if bapply != "None":
                    lines.append(f"        {bapply}(t, None, {pid}, None)")
            step = self._gen.constant(self._step_for(name, tuple(parts)), "_S")
            lines.append(f"        out.append(({step}, tuple(t)))")

    def const_values(self, t: Sequence[int], tpl_index: int, base: int) -> tuple[int, ...]:
        """Return the values of the never-assigned locals of an instance at ``base``."""
        return tuple(t[base + off] for _, off in self._const_locals[tpl_index])

    def _gen_process(self, gen: Generator, code: list[str], tpl: ProcessLayout,
                     base: int | str, pid: int | str, tag: str) -> list[tuple[int, str, list[str]]]:
        """Emit one function per location of ``tpl``; return (location id, function name,
        its source lines) triples."""
        out_names: list[tuple[int, str, list[str]]] = []
        by_source: dict[int, list[tuple[int, Edge]]] = {}
        for k, e in enumerate(tpl.process.edges):
            by_source.setdefault(e.source, []).append((k, e))
        sync = self._sync_sets.get(pid, frozenset()) if isinstance(pid, int) else frozenset()
        for loc in tpl.process.locations:
            edges = by_source.get(loc.id, [])
            if not edges:
                continue
            if loc.id < 0:
                raise UnsupportedError.at(loc.span, "negative location id")
            fname = f"_f{tag}_{loc.id}"
            normal = [(k, e) for k, e in edges
                      if not isinstance(e.guard, ElseGuard) and not guard_mentions(e.guard, "timeout")]
            elses = [(k, e) for k, e in edges if isinstance(e.guard, ElseGuard)]
            timeouts = [(k, e) for k, e in edges
                        if not isinstance(e.guard, ElseGuard) and guard_mentions(e.guard, "timeout")]
            if len(elses) > 1:
                raise UnsupportedError.at(elses[1][1].span, "more than one 'else' at a location")
            if elses and timeouts:
                raise UnsupportedError.at(
                    elses[0][1].span, "'else' and 'timeout' options at the same location"
                )
            may_sync = any(self._may_sync(gen, e, sync) for _, e in normal)
            lines = [f"def {fname}(s, b, pid, out, aux):"]
            ctx = Context("s", base, pid, tpl)
            if elses and not may_sync:
                lines.append("    _n0 = len(out)")
            for k, e in normal:
                self._gen_edge(gen, lines, "    ", ctx, tpl, k, e, sync, base, pid, tag)
            if elses:
                k, e = elses[0]
                if may_sync:
                    ename = f"_fe{tag}_{loc.id}"
                    sub = [f"def {ename}(s, b, pid, out, aux):"]
                    self._gen_edge(gen, sub, "    ", ctx, tpl, k, e, frozenset(), base, pid, tag)
                    sub.append("    pass")
                    code.extend(sub)
                    lines.append(f"    aux.append((4, {pid}, {ename}, {_b(base)}))")
                else:
                    lines.append("    if len(out) == _n0:")
                    self._gen_edge(gen, lines, "        ", ctx, tpl, k, e, frozenset(), base, pid, tag)
            if timeouts:
                tname = f"_ft{tag}_{loc.id}"
                sub = [f"def {tname}(s, b, pid, out, aux, _timeout):"]
                tctx = Context("s", base, pid, tpl, timeout=True)
                for k, e in timeouts:
                    self._gen_edge(gen, sub, "    ", tctx, tpl, k, e, frozenset(), base, pid, tag)
                sub.append("    pass")
                code.extend(sub)
                lines.append(f"    aux.append((5, {pid}, {tname}, {_b(base)}))")
            lines.append("    pass")
            code.extend(lines)
            out_names.append((loc.id, fname, lines))
        return out_names

    def _may_sync(self, gen: Generator, e: Edge, sync: frozenset[str]) -> bool:
        if e.comm is not None:
            slot = gen.static_channel(e.comm.channel)
            return slot is None or slot.capacity == 0
        if e.event is None or e.data_operation or not sync:
            return False
        if event_is_constant(gen, e.event):
            return event_constant(gen, e.event) in sync
        return True

    def _step_for(self, event: str | None, edges: tuple[tuple[int, int], ...]) -> Step:
        """Return the interned step for an event taken by ``edges``."""
        key = (event, edges)
        st = self._steps.get(key)
        if st is not None:
            return st
        processes = tuple(sorted({p for p, _ in edges}))
        if self.csp:
            if event is None:
                st = Step(None, ("tau",) + edges[0], processes, edges, tau=True)
            else:
                st = Step(event, event, processes, edges)
        else:
            action: Hashable = edges[0] if len(edges) == 1 else edges
            st = Step(event, action, processes, edges)
        self._steps[key] = st
        return st

    def _gen_edge(self, gen: Generator, lines: list[str], ind: str, ctx: Context,
                  tpl: ProcessLayout, k: int, e: Edge, sync: frozenset[str],
                  base: int | str, pid: int | str, tag: str) -> None:
        """Emit the code of one edge (enabled test, successor, step)."""
        lay = self.layout
        comment = (e.text or "").replace("\n", " ")[:60]
        lines.append(f"{ind}# edge {k}: {comment}")
        guard = "True"
        if e.guard is not None and not isinstance(e.guard, ElseGuard):
            guard = gen.expr(e.guard, ctx)
        loc_slot = ctx.rel(0)
        move = f"t[{loc_slot}] = {e.target}" if e.target != e.source else ""
        last_parts = []
        if lay.last_slot is not None:
            last_parts.append(f"t[{lay.last_slot}] = {pid}")
        target_atomic = e.target in self._atomic_sets[tpl.index]
        if lay.exclusive_slot is not None:
            last_parts.append(f"t[{lay.exclusive_slot}] = {pid if target_atomic else -1}")
        last = "; ".join(last_parts)
        ectx = ctx.with_src("t")
        ectx.block = {}
        effect: list[str] = []
        gen.stmts(e.effect, ectx, effect, ind + "    ")
        # The step (event name) of this edge.
        ev_const = event_is_constant(gen, e.event)
        if e.event is None:
            ev_code = "None"
        elif ev_const:
            ev_code = repr(event_constant(gen, e.event))
        else:
            ev_code = event_code(gen, e.event, ctx)
        hidden = self._hidden_sets.get(pid, frozenset()) if isinstance(pid, int) else frozenset()
        if hidden and e.event is not None and not ev_const and any(
                n.split(".", 1)[0] == e.event.base for n in hidden):
            raise UnsupportedError.at(
                e.span, f"unsupported construct: hiding event '{e.event.base}' whose "
                "components depend on the state")
        if isinstance(pid, int) and ev_const and not (self.csp and e.comm is not None and e.event is None):
            name = None if e.event is None else event_constant(gen, e.event)
            if name in hidden and (e.data_operation or name not in sync):
                name = None  # hidden above a composition, and not a barrier: tau
            step_ref = gen.constant(self._step_for(name, ((pid, k),)), "_S")
        elif self._family_steps is not None and ev_const:
            step_ref = f"{self._family_steps}[pid][{k}]"  # the member's own event name
        else:
            step_ref = f"_mkstep({ev_code}, {pid}, {k})"
        # Events that may be CSP barriers: not data operations, no channel operation
        # (an effect the front-end added for bookkeeping still runs, jointly).
        if e.comm is None and e.event is not None and not e.data_operation and sync:
            bapply = "None"
            if effect:
                bapply = gen.fresh(f"_B{tag}_")
                blines = [f"def {bapply}(t, b, pid, _msg):"]
                blines.extend(x[len(ind):] if x.startswith(ind) else x for x in effect)
                blines.append("    pass")
                self._pending_code.extend(blines)
            offer = f"{pid}, {k}, {loc_slot}, {e.target}, {bapply}, {_b(base)}"
            if ev_const and (pid, k) in self._vector_edges:
                # Taken by a precomputed synchronisation vector in the layout function.
                self._vector_records[(pid, k)] = (guard, loc_slot, e.source, e.target, bapply)
                return
            if ev_const:
                if event_constant(gen, e.event) in sync:
                    lines.append(f"{ind}if {guard}:")
                    lines.append(f"{ind}    aux.append((3, {ev_code}, {offer}))")
                    return
            else:
                sname = gen.constant(sync, "_SY")
                lines.append(f"{ind}if {guard}:")
                lines.append(f"{ind}    _en = {ev_code}")
                lines.append(f"{ind}    if _en in {sname}:")
                lines.append(f"{ind}        aux.append((3, _en, {offer}))")
                lines.append(f"{ind}    else:")
                lines.append(f"{ind}        t = list(s)")
                if move:
                    lines.append(f"{ind}        {move}")
                lines.extend("    " + x for x in effect)
                if last:
                    lines.append(f"{ind}        {last}")
                lines.append(f"{ind}        out.append((_mkstep(_en, {pid}, {k}), tuple(t)))")
                return
        if e.comm is None:
            lines.append(f"{ind}if {guard}:")
            lines.append(f"{ind}    t = list(s)")
            for x in (move,):
                if x:
                    lines.append(f"{ind}    {x}")
            lines.extend(effect)
            if last:
                lines.append(f"{ind}    {last}")
            lines.append(f"{ind}    out.append(({step_ref}, tuple(t)))")
            return
        self._gen_comm_edge(gen, lines, ind, ctx, ectx, tpl, k, e, guard, move, last,
                            effect, ev_code, step_ref, base, pid, tag)

    def _gen_comm_edge(self, gen: Generator, lines: list[str], ind: str, ctx: Context,
                       ectx: Context, tpl: ProcessLayout, k: int, e: Edge, guard: str,
                       move: str, last: str, effect: list[str], ev_code: str, step_ref: str,
                       base: int | str, pid: int | str, tag: str) -> None:
        comm = e.comm
        assert comm is not None
        sid = gen.span_id(comm.span or e.span)
        slot = gen.static_channel(comm.channel)
        # Apply function for the rendezvous form (used when the channel has capacity 0).
        aname = gen.fresh(f"_A{tag}_")
        alines = [f"def {aname}(t, b, pid, _msg):"]
        if move:
            alines.append(f"    {move}")
        if self.layout.exclusive_slot is not None:
            # Rendezvous inside atomic passes control to the receiver (promela-spin.md 5).
            ex = self.layout.exclusive_slot
            if e.target in self._atomic_sets[tpl.index]:
                alines.append(f"    t[{ex}] = pid")
            elif isinstance(comm, Send):
                alines.append(f"    t[{ex}] = -1")
        condition = comm.condition if isinstance(comm, Receive) else None
        if isinstance(comm, Receive):
            # the sender's values as computed (a bool stays one in its name c.True)
            gen.binds(comm.args, "_msg", ectx, alines, "    ", "m" if gen.sends_bools() else None)
            if condition is not None:
                alines.append(f"    if not {gen.expr(condition, ectx)}: return False")
        alines.extend(x[len(ind):] if x.startswith(ind) else x for x in effect)
        alines.append("    return True")
        self._pending_code.extend(alines)
        ch = gen.chan(comm.channel, ctx)
        arity_check = False
        if isinstance(comm, Send):
            types = field_types(comm, slot)
            # The message as computed names the step (c!True); the buffer holds it as
            # stored (c!(n == 2) stores 1: codegen.stored_value).
            kinds = [None if j < len(types) and converting(types[j]) else gen.bool_kind(a)
                     for j, a in enumerate(comm.args)]
            pushed = "_mv" if not any(kinds) else "(" + "".join(
                as_stored(f"_mv[{j}]", k) + ", " for j, k in enumerate(kinds)) + ")"
            msg = "(" + "".join(
                store_code(gen.expr(a, ctx), ftype, self.language, sid) + ", "
                for a, ftype in zip(comm.args, types, strict=False)
            ) + "".join(gen.expr(a, ctx) + ", " for a in comm.args[len(types):]) + ")"
            # pan checks the number of fields when the send executes (SPIN accepts a
            # send with fewer values: "too few parameters in send stmnt").
            mismatch = slot is not None and len(comm.args) != len(types)
            if self.csp:
                if mismatch:
                    raise UnsupportedError.at(comm.span, "send with the wrong number of fields")
            else:
                arity_check = slot is None or mismatch
        else:
            msg = gen.pattern(comm.args, ctx)
        csp_event = self.csp and e.event is None
        lines.append(f"{ind}if {guard}:")
        ind2 = ind + "    "
        lines.append(f"{ind2}_ch = {ch}")
        if self.layout.claim_slot is not None:
            mask = 2 if isinstance(comm, Send) else 1
            lines.append(f"{ind2}_xacc(s, _ch[3], {pid}, {mask}, {sid})")
        lines.append(f"{ind2}_mv = {msg}")
        if arity_check:
            lines.append(f"{ind2}if len(_mv) != _ch[2]: _arity(s, _ch, _mv, {sid})")
        kind = 1 if isinstance(comm, Send) else 2
        lines.append(f"{ind2}if _ch[1] == 0:")
        lines.append(f"{ind2}    aux.append(({kind}, _ch[3], _mv, {pid}, {k}, {aname}, {_b(base)}))")
        if isinstance(comm, Send):
            lines.append(f"{ind2}elif s[_ch[0]] < _ch[1]:")
            lines.append(f"{ind2}    t = list(s)")
            lines.append(f"{ind2}    _push(t, _ch, {pushed}, {comm.sorted})")
            sref = f"_mkstep(_chev(_ch, '!', _mv), {pid}, {k})" if csp_event else step_ref
        else:
            lines.append(f"{ind2}else:")
            if condition is None:
                lines.append(f"{ind2}    _mi = _find(s, _ch, _mv, {comm.random})")
                lines.append(f"{ind2}    if _mi >= 0:")
            else:
                # c?[cond]x: the first matching message whose bound fields satisfy cond.
                lines.append(f"{ind2}    for _mi in _candidates(s, _ch, _mv, {comm.random}):")
            ind2 = ind2 + "    "
            lines.append(f"{ind2}    t = list(s)")
            lines.append(f"{ind2}    _msg = _take(t, _ch, _mi, {comm.peek})")
            gen.binds(comm.args, "_msg", ectx, lines, ind2 + "    ")
            if condition is not None:
                lines.append(f"{ind2}    if not {gen.expr(condition, ectx)}: continue")
            sref = f"_mkstep(_chev(_ch, '?', _msg), {pid}, {k})" if csp_event else step_ref
        if move:
            lines.append(f"{ind2}    {move}")
        extra = "    " * (ind2.count("    ") - ind.count("    ") - 0)
        for x in effect:
            lines.append(extra + x)
        if last:
            lines.append(f"{ind2}    {last}")
        lines.append(f"{ind2}    out.append(({sref}, tuple(t)))")
        if condition is not None and isinstance(comm, Receive):
            lines.append(f"{ind2}    break")
        del slot, sid

    def _gen_segment_init(self, gen: Generator, code: list[str], tpl: ProcessLayout) -> None:
        lines = [f"def _seginit{tpl.index}(t, b, pid, args, cids):"]
        ctx = Context("t", "b", "pid", tpl)
        lines.append(f"    t[b] = {tpl.process.initial}")
        params = tpl.process.parameters
        lines.append(f"    if len(args) != {len(params)}:")
        lines.append(
            f"        _fail('process {tpl.process.name} takes {len(params)} arguments', -1)"
        )
        for j, pname in enumerate(params):
            lslot = tpl.locals[pname]
            lines.append(
                f"    t[b+{lslot.offset}] = "
                + store_code(f"args[{j}]", lslot.type, self.language, 0)
            )
        for v in tpl.process.locals:
            if v.name in params or v.init is None:
                continue
            lslot = tpl.locals[v.name]
            self._gen_init_value(gen, lines, ctx, f"b+{lslot.offset}", v.type, v.init, lslot.size)
        for j, c in enumerate(tpl.channels):
            lines.append(f"    t[b+{c.offset - 1}] = cids[{j}]")
        lines.append("    pass")
        code.extend(lines)

    def _gen_init_value(self, gen: Generator, lines: list[str], ctx: Context, off: str,
                        vtype, init, size: int) -> None:
        from bridge.semantics.state import _dims

        _, element = _dims(vtype)
        if isinstance(init, tuple):
            if len(init) > size:
                raise UnsupportedError.at(None, "too many initial values for an array")
            for j, x in enumerate(init):
                val = store_code(gen.stored_expr(x, ctx), element, self.language, 0)
                lines.append(f"    t[{off}+{j}] = {val}")
        else:
            val = store_code(gen.stored_expr(init, ctx), element, self.language, 0)
            if size == 1:
                lines.append(f"    t[{off}] = {val}")
            else:
                lines.append(f"    t[{off}:{off}+{size}] = [{val}] * {size}")

    def _gen_claims(self, gen: Generator, code: list[str]) -> None:
        """Emit ``_claims<k>(t, b, pid)`` per template with ``xr``/``xs``: the tuple of
        ``(1 for xr | 2 for xs, channel id, span id)`` a new instance claims."""
        for tpl in self.layout.processes:
            assertions = tpl.process.channel_assertions
            if not assertions:
                continue
            ctx = Context("t", "b", "pid", tpl)
            items = "".join(
                f"({1 if a.kind == 'xr' else 2}, {gen.channel_id(a.channel, ctx)}, "
                f"{gen.span_id(a.span)}), " for a in assertions)
            code.extend([f"def _claims{tpl.index}(t, b, pid):", f"    return ({items})"])

    def _gen_globals_init(self, gen: Generator, code: list[str]) -> None:
        lines = ["def _globals_init(t):"]
        ctx = Context("t", None, None, None)
        for v in self.system.globals:
            if v.init is None:
                continue
            slot = self.layout.globals[v.name]
            self._gen_init_value(gen, lines, ctx, str(slot.offset), v.type, v.init, slot.size)
        lines.append("    pass")
        code.extend(lines)

    # ------------------------------------------------------------------ layouts

    def _geometry(self, templates: tuple[int, ...]) -> tuple:
        """Return ``(bases, chans, chan_names, segment channel ids, size)`` of a tuple
        of live templates."""
        geo = self._geometries.get(templates)
        if geo is not None:
            return geo
        lay = self.layout
        prefix = self._geometries.get(templates[:-1]) if templates else None
        if prefix is not None:
            # Extend the prefix's geometry by its youngest instance: building each of
            # a thousand nested prefixes from scratch was quadratic.
            p_bases, p_chans, p_names, p_seg_ids, b = prefix
            i, t = len(templates) - 1, templates[-1]
            if lay.processes[t].channels:
                chans = dict(p_chans)
                chan_names = dict(p_names)
            else:  # nothing to add: share the prefix's maps (never mutated once built)
                chans, chan_names = p_chans, p_names
            next_id = self._geo_next_id[templates[:-1]]
            ids = self._segment_channels(i, t, b, next_id, chans, chan_names)
            geo = ((*p_bases, b), chans, chan_names, [*p_seg_ids, ids],
                   b + lay.processes[t].size)
            self._geometries[templates] = geo
            self._geo_next_id[templates] = next_id + len(ids)
            return geo
        chans: dict[int, tuple[int, int, int, int]] = {}
        chan_names: dict[int, str] = {}
        for c in lay.channels:
            chans[c.id] = (c.offset, c.capacity, c.fields, c.id)
            chan_names[c.id] = c.name
        next_id = len(lay.channels) + 1
        b = lay.static_size
        bases: list[int] = []
        seg_ids: list[tuple[int, ...]] = []
        for i, t in enumerate(templates):
            bases.append(b)
            ids = self._segment_channels(i, t, b, next_id, chans, chan_names)
            next_id += len(ids)
            seg_ids.append(ids)
            b += lay.processes[t].size
        geo = (tuple(bases), chans, chan_names, seg_ids, b)
        self._geometries[templates] = geo
        self._geo_next_id[templates] = next_id
        return geo

    def _segment_channels(self, i: int, t: int, base: int, next_id: int,
                          chans: dict[int, tuple[int, int, int, int]],
                          chan_names: dict[int, str]) -> tuple[int, ...]:
        """Number the channels of instance ``i`` (template ``t``, segment at ``base``)
        from ``next_id`` on, entering them in ``chans`` and ``chan_names``."""
        ids = []
        for c in self.layout.processes[t].channels:
            chans[next_id] = (base + c.offset, c.capacity, c.fields, next_id)
            chan_names[next_id] = f"{self._instance_label(i, t)}.{c.name}"
            ids.append(next_id)
            next_id += 1
        return tuple(ids)

    def _layout_for(self, key: tuple[tuple[int, tuple[int, ...]], ...]) -> RuntimeLayout:
        """Return the runtime layout of live instances ``key``: per instance its
        template and the values of its never-assigned locals (interned).

        Every layout knows the layout of its prefix (``pop_id``: the youngest process
        died), so the missing prefixes are built too, shortest first. Iteratively: a
        model with a thousand processes would otherwise recurse a thousand deep.
        """
        lid = self._layout_ids.get(key)
        if lid is not None:
            return self._layouts[lid]
        if self.language is not SourceLanguage.PROMELA:
            # Only Promela processes die (the youngest first): elsewhere no state ever
            # has a prefix layout, and building the thousand prefixes of a thousand
            # processes was quadratic in time and memory.
            return self._new_layout(key)
        missing = [key]
        while missing[-1] and missing[-1][:-1] not in self._layout_ids:
            missing.append(missing[-1][:-1])
        for prefix in reversed(missing):
            layout = self._new_layout(prefix)
        return layout

    def _new_layout(self, key: tuple[tuple[int, tuple[int, ...]], ...]) -> RuntimeLayout:
        """Return a new runtime layout for ``key``, whose prefix layout exists.

        Built from the prefix layout in work proportional to the new instance where it
        can be (a thousand processes build a thousand prefixes)."""
        prefix_id = self._layout_ids.get(key[:-1]) if key else None
        prefix = None if prefix_id is None else self._layouts[prefix_id]
        if prefix is not None:
            templates = (*prefix.templates, key[-1][0])
        else:
            templates = tuple(t for t, _ in key)
        rl = RuntimeLayout(len(self._layouts), templates)
        rl.key = key
        rl.bases, rl.chans, rl.chan_names, rl.segment_channel_ids, rl.size = self._geometry(templates)
        start = 0
        if prefix is not None:  # the older instances run as in the prefix layout
            rl.runners.extend(prefix.runners)
            rl.death_guard = prefix.death_guard
            start = len(prefix.runners)
        family = not self.layout.dynamic and self.language is not SourceLanguage.PROMELA
        for i, (t, consts) in enumerate(key[start:], start):
            fns = self._family_table(t, i) if family else None
            if fns is None:
                fns = self._specialised(t, i, rl.bases[i], consts)
            rl.runners.append(
                (fns, rl.bases[i], i, self._atomic_sets[t] or None, self._terminal_sets[t])
            )
            rl.death_guard = self._death_guards[fns]
        if self.system.priority_scheduling:
            rl.prio_slots = tuple(
                b + (self.layout.processes[t].priority_offset or 0)
                for b, t in zip(rl.bases, templates, strict=True))
        if prefix is not None and len(templates) == len(prefix.templates) + 1:
            i, t = len(templates) - 1, templates[-1]
            more = self._atomic_edge_sets[t]
            rl.atomic_edges = (prefix.atomic_edges if not more else
                               prefix.atomic_edges | {(i, k) for k in more})
        else:
            rl.atomic_edges = frozenset(
                (i, k) for i, t in enumerate(templates) for k in self._atomic_edge_sets[t])
        self._layouts.append(rl)
        self._layout_ids[key] = rl.id
        if key and key[:-1] in self._layout_ids:
            rl.pop_id = self._layout_ids[key[:-1]]
        return rl

    def _instance_label(self, i: int, template: int) -> str:
        insts = self.system.instances
        if i < len(insts) and self.layout.process_index.get(insts[i].process) == template:
            return insts[i].name or f"{insts[i].process}({i})"
        return f"{self.layout.processes[template].process.name}({i})"

    def _make_initial(self) -> StateVector:
        lay = self.layout
        t = [0] * lay.static_size
        if lay.exclusive_slot is not None:
            t[lay.exclusive_slot] = -1
        self._ns["_globals_init"](t)
        self._static_layout = None
        if lay.dynamic:
            empty = self._layout_for(())
            t[lay.layout_slot] = empty.id
            for i, inst in enumerate(self.system.instances):
                args = tuple(stored_value(self._const_eval(a, t)) for a in inst.arguments)
                self._ns["_run"](t, lay.initial_templates[i], args, -1, inst.priority)
            self._static_layout = None
            if self._claim_pending:
                self._initial_claim_error = self._claim_pending[0][1]
                self._claim_pending.clear()
        else:
            templates = lay.initial_templates
            bases, _, _, seg_ids, size = self._geometry(templates)
            t.extend([0] * (size - lay.static_size))
            for i, inst in enumerate(self.system.instances):
                args = tuple(stored_value(self._const_eval(a, t)) for a in inst.arguments)
                self._seg_init[templates[i]](t, bases[i], i, args, seg_ids[i])
            key = tuple(
                (tp, self.const_values(t, tp, b)) for tp, b in zip(templates, bases, strict=True)
            )
            self._plan_vectors(key)
            self._static_layout = self._layout_for(key)
        return tuple(t)

    def _const_eval(self, e: Expr, t: list[int]) -> Any:
        fn = self._compile_expr(e, "t")
        return fn(t)

    def _compile_expr(self, e: Expr, src: str) -> Callable[[Any], Any]:
        gen = self._gen
        ctx = Context(src, None, None, None)
        code = gen.expr(e, ctx)
        name = gen.fresh("_P")
        text = f"def {name}({src}):\n    return {code}\n"
        ns = self._ns
        ns["_SPANS"] = gen.spans
        exec(compile(text, f"<bridge:{self.system.name}:expr>", "exec"), ns)  # noqa: S102
        return ns[name]

    def _build_successors(self) -> Callable[[StateVector], list[tuple[Step, StateVector]]]:
        lay = self.layout
        static_rl = self._static_layout
        layouts = self._layouts
        ls = lay.layout_slot
        last = lay.last_slot
        exclusive = lay.exclusive_slot
        death = self.language is SourceLanguage.PROMELA
        any_atomic = self._any_atomic
        step_for = self._step_for
        combine = make_combiner(self.system.composition) if self.system.composition else None
        chan_names = self._ns["_chev"]
        csp = self.csp
        select = self._ns["_select"]
        pending = self._ns["_XP"]

        def post(s, out, aux, rl) -> None:
            sends, recvs, elses, tmos = [], [], [], []
            barriers: dict[int, list[tuple[str, tuple]]] = {}
            for item in aux:
                tag = item[0]
                if tag == 1:
                    sends.append(item)
                elif tag == 2:
                    recvs.append(item)
                elif tag == 3:
                    barriers.setdefault(item[2], []).append((item[1], (item[2:],)))
                elif tag == 4:
                    elses.append(item)
                else:
                    tmos.append(item)
            for _, cid, msg, pid, k, app, b in sends:
                for _, cid2, pat, pid2, k2, app2, b2 in recvs:
                    if cid2 != cid or pid2 == pid or len(pat) != len(msg):
                        continue
                    if any(w is not None and w != v for w, v in zip(pat, msg, strict=True)):
                        continue
                    t = list(s)
                    app(t, b, pid, None)
                    if not app2(t, b2, pid2, msg):
                        continue  # the receiver's c?[cond] rejects the message
                    if last is not None:
                        t[last] = pid2
                    event = chan_names((0, 0, 0, cid), ".", msg) if csp else None
                    out.append((step_for(event, ((pid, k), (pid2, k2))), tuple(t)))
            if barriers:
                assert combine is not None
                for name, parts in combine(barriers):
                    t = list(s)
                    for p, _, slot, target, apply, b in parts:
                        t[slot] = target
                        if apply is not None:
                            apply(t, b, p, None)
                    out.append((step_for(name, tuple((p[0], p[1]) for p in parts)), tuple(t)))
            extra: list = []
            for _, pid, fn, b in elses:
                if not any(pid in st.processes for st, _ in out):
                    fn(s, b, pid, out, extra)
            if tmos:
                tv = not out
                for _, pid, fn, b in tmos:
                    fn(s, b, pid, out, extra, tv)
            if extra:
                raise UnsupportedError.at(
                    None, "an 'else' or 'timeout' option that starts with a rendezvous"
                )

        death_steps: dict[int, Step] = {}

        def death_step(pid: int) -> Step:
            st = death_steps.get(pid)
            if st is None:
                st = death_steps[pid] = Step(None, (pid, -1), (pid,), ())
            return st

        self._ns["_post"] = post
        inline = self._inline_layout
        if static_rl is not None:
            static_rl.fn = inline(static_rl)
            return static_rl.fn

        def successors(s):
            rl = layouts[s[ls]]
            fn = rl.fn
            if fn is not None:
                return fn(s)
            rl.visits += 1
            if rl.visits > self.inline_after:
                rl.fn = inline(rl)
                return rl.fn(s)
            out: list = []
            aux: list = []
            if death:
                pending.clear()
            for fns, b, pid, _atom, _term in rl.runners:
                loc = s[b]
                f = fns[loc] if loc < len(fns) else None
                if f is not None:
                    if death:
                        try:
                            f(s, b, pid, out, aux)
                        except ModelRuntimeError as error:
                            pending.append((pid, error))
                    else:
                        f(s, b, pid, out, aux)
            if death and rl.n:
                _, b, pid, _, term = rl.runners[-1]
                if s[b] in term and (rl.death_guard is None or rl.death_guard(s)):
                    t = list(s[:b])
                    t[ls] = rl.pop_id
                    if last is not None:
                        t[last] = pid
                    if exclusive is not None:
                        t[exclusive] = -1
                    out.append((death_step(pid), tuple(t)))
            if aux:
                post(s, out, aux, rl)
            if death:
                return select(s, out, rl)
            if any_atomic and out:
                inside = [pid for _, b, pid, atom, _ in rl.runners if atom is not None and s[b] in atom]
                edges = rl.atomic_edges
                if inside or edges:
                    chosen = [x for x in out if any(p in inside for p in x[0].processes)
                              or not edges.isdisjoint(x[0].edges)]
                    if chosen:
                        return chosen
            return out

        return successors

    # ------------------------------------------------------------------ protocol

    def initial_states(self) -> Sequence[StateVector]:
        """Return the single initial state."""
        return (self._initial,)

    def layout_of(self, state: StateVector) -> RuntimeLayout:
        """Return the runtime layout of ``state``."""
        if self._static_layout is not None:
            return self._static_layout
        return self._layouts[state[self.layout.layout_slot]]

    def successors(self, state: StateVector) -> list[tuple[Step, StateVector]]:
        """Return every step enabled in ``state`` with its successor (see module doc)."""
        return self._successors(state)

    def state_key(self, state: StateVector) -> StateVector:
        """Return the part of ``state`` that identifies it (hidden variables dropped)."""
        h = self.layout.hidden_count
        return state[h:] if h else state

    @property
    def atomic_holder(self) -> Callable[[StateVector], int] | None:
        """Return the function giving the pid that holds atomicity in a state (-1: no
        process), or None when the model has no atomic sequence.

        The holder is the process whose last step left it inside an atomic sequence
        (the exclusive slot, state.py); it keeps control while it can move. A never
        claim does not step while it does (pan keeps the claim/system turn on such a
        move, promela-spin.md section 9); once it is blocked, pan loses atomicity and
        the claim reads the state (checked with pan 6.5.2, m89, m91)."""
        slot = self.layout.exclusive_slot
        if slot is None:
            return None
        return lambda state: state[slot]

    def is_terminal(self, state: StateVector) -> bool:
        """Return True if every live instance is at a terminal location."""
        rl = self.layout_of(state)
        return all(state[b] in term for (_, b, _, _, term) in rl.runners)

    def is_valid_end(self, state: StateVector) -> bool:
        """Return True if every live instance is terminated or at an end location (and
        the system's ``end_condition``, if any, holds)."""
        rl = self.layout_of(state)
        ends = self._end_sets
        if not all(state[b] in ends[t]
                   for (_, b, _, _, _), t in zip(rl.runners, rl.templates, strict=True)):
            return False
        condition = self.system.end_condition  # a Promela trace's end states
        return condition is None or self.predicate(condition)(state)

    def instance_name(self, i: int, state: StateVector | None = None) -> str:
        """Return the printable name of instance ``i`` (in ``state``, for pids reused by
        dynamic instances)."""
        if state is not None and self.layout.dynamic:
            rl = self.layout_of(state)
            if i < rl.n:
                return self._instance_label(i, rl.templates[i])
        while len(self.instance_names) <= i:
            j = len(self.instance_names)
            rl = next((x for x in self._layouts if x.n > j), None)
            self.instance_names.append(
                self._instance_label(j, rl.templates[j]) if rl is not None else f"proc({j})"
            )
        return self.instance_names[i]

    def process_of(self, i: int, state: StateVector | None = None) -> ProcessLayout:
        """Return the template layout of instance ``i`` (in ``state`` if dynamic)."""
        if state is not None:
            rl = self.layout_of(state)
            if i < rl.n:
                return self.layout.processes[rl.templates[i]]
        return self.layout.processes[self.layout.initial_templates[i]]

    def edge(self, i: int, k: int, state: StateVector | None = None) -> Edge | None:
        """Return edge ``k`` of instance ``i`` (None for a death step)."""
        if k < 0:
            return None
        return self.process_of(i, state).process.edges[k]

    def valuation(self, state: StateVector) -> dict[str, Any]:
        """Return ``name -> value`` for every scalar: globals (``x``, ``a[1]``), channel
        contents (``c`` -> tuple of messages), instance locations (``P(0)@``) and
        locals (``P(0).x``)."""
        lay = self.layout
        result: dict[str, Any] = {}
        # CSP# prints booleans as true/false (PAT); Promela as 0/1 (SPIN)
        csp = self.system.language is SourceLanguage.CSP
        for v in self.system.globals:
            slot = lay.globals[v.name]
            _flatten(result, v.name, slot.dims, state, slot.offset, csp and _boolean(v.type))
        rl = self.layout_of(state)
        tagged = {c.id for c in lay.channels if c.channel.arity_tag}
        for cid, (off, cap, nf, _) in rl.chans.items():
            if cap > 0:
                n = state[off]
                msgs = [state[off + 1 + j * nf: off + 1 + (j + 1) * nf] for j in range(n)]
                if cid in tagged:  # (arity, values, padding): ir.Channel.arity_tag
                    msgs = [m[1:1 + m[0]] for m in msgs]
                result[rl.chan_names[cid]] = tuple(tuple(m) for m in msgs)
        for i, (tpl_index, b) in enumerate(zip(rl.templates, rl.bases, strict=True)):
            tpl = lay.processes[tpl_index]
            name = self._instance_label(i, tpl_index)
            result[f"{name}@"] = state[b]
            types = {v.name: v.type for v in tpl.process.locals}
            for lname, slot in tpl.locals.items():
                boolean = csp and lname in types and _boolean(types[lname])
                _flatten(result, f"{name}.{lname}", slot.dims, state, b + slot.offset, boolean)
            if tpl.priority_offset is not None:
                result[f"{name}._priority"] = state[b + tpl.priority_offset]
        return result

    def action_name(self, action: Hashable) -> str:
        """Return a printable name for an action."""
        if isinstance(action, str):
            return action
        if isinstance(action, tuple) and action and action[0] == "tau":
            return f"tau({self.instance_name(action[1])}:{action[2]})"
        if isinstance(action, tuple) and len(action) == 2 and isinstance(action[0], int):
            i, k = action
            if k < 0:
                return f"{self.instance_name(i)}:-end-"
            e = self.edge(i, k) if i < len(self.system.instances) else None
            text = f" {e.text}" if e is not None and e.text else ""
            return f"{self.instance_name(i)}:{k}{text}"
        if isinstance(action, tuple):
            return " | ".join(self.action_name(a) for a in action)
        return str(action)

    def predicate(self, expr: Expr) -> Callable[[StateVector], bool]:
        """Return a compiled state predicate for ``expr`` (raises ``ModelRuntimeError``
        on model errors such as an index out of range)."""
        try:
            fn = self._predicates.get(expr)
            key: Expr | None = expr
        except RecursionError:  # thousands deep: too deep for the dataclass hash
            fn, key = None, None
        if fn is None:
            inner = self._compile_expr(expr, "s")

            def fn(state: StateVector, _inner=inner) -> bool:
                return bool(_inner(state))

            if key is not None:
                self._predicates[key] = fn
        return fn

    def evaluator(self, expr: Expr) -> Callable[[StateVector], Any]:
        """Return a compiled function computing the value of ``expr`` in a state."""
        return self._compile_expr(expr, "s")


def _b(base: int | str) -> str:
    return str(base)


def _boolean(t: Type) -> bool:
    """Return True for a boolean variable or an array of booleans."""
    while isinstance(t, ArrayType):
        t = t.element
    return isinstance(t, BoolType)


def _flatten(result: dict[str, Any], name: str, dims: tuple[int, ...], state, off: int,
             boolean: bool = False) -> None:
    if not dims:
        result[name] = bool(state[off]) if boolean else state[off]
        return
    size = 1
    for d in dims:
        size *= d
    for j in range(size):
        idx = []
        r = j
        for d in reversed(dims):
            idx.append(r % d)
            r //= d
        value = state[off + j]
        result[name + "".join(f"[{x}]" for x in reversed(idx))] = bool(value) if boolean else value


def _run_targets(system: TransitionSystem) -> set[str]:
    from bridge.ir import Run, iter_statements

    return {s.proctype for p in system.processes for e in p.edges
            for s in iter_statements(e.effect) if isinstance(s, Run)}


def _family_shape(process: Process) -> Process | None:
    """Return ``process`` with its name and the names of its constant events blanked:
    templates with equal shapes run the same code but for the steps they produce
    (None: an event mixes constant and computed components, whose code would differ)."""
    edges = []
    for e in process.edges:
        ev = e.event
        if ev is not None and ev.components:
            const = [isinstance(c, Const) for c in ev.components]
            if all(const):
                e = dataclasses.replace(e, event=_CONST_EVENT)
            elif any(const):
                return None
        edges.append(e)
    return dataclasses.replace(process, name="", edges=tuple(edges))


_CONST_EVENT = Event("\0constant")


def family_constants(process: Process,
                     memo: dict[int, tuple[object, list[Const]]] | None = None) -> list[Const]:
    """Return the integer literals (not booleans) of ``process``'s guards, channel
    operations and effects, event names left out, in a fixed order (edge by edge;
    guard, channel operation, effect; depth first, fields in declaration order).

    Two processes with equal ``family_shape_blanked`` shapes have their literals at the
    same positions of this list: the parameter values that the CSP# front-end writes
    into ``W(j) = [x != j] ...`` are the differences between its instances. ``memo``:
    the literals of each part walked already, by identity (instances made from one
    template by the front-end share their parts: LE's 10,000 nodes are walked once)."""
    found: list[Const] = []
    for e in process.edges:
        for part in (e.guard, e.comm, e.effect):
            if part is None or part == ():
                continue
            if memo is None:
                _collect_ints(part, found)
                continue
            hit = memo.get(id(part))
            if hit is None:
                mine: list[Const] = []
                _collect_ints(part, mine)
                hit = memo[id(part)] = (part, mine)  # the part kept: its id stays its own
            found.extend(hit[1])
    return found


def family_shape_blanked(process: Process) -> Process | None:
    """Return ``_family_shape(process)`` with every integer literal of its guards,
    channel operations and effects set to 0 (``family_constants``): processes with
    equal such shapes run the same code but for their steps' constant event names and
    these literals, which a shared code reads per instance (the C engine's family
    code, ``engine_c/gen_families``). None as ``_family_shape``; RecursionError for an
    expression too deep to walk."""
    shape = _family_shape(process)
    if shape is None:
        return None
    edges = tuple(dataclasses.replace(e, guard=_blank_ints(e.guard), comm=_blank_ints(e.comm),
                                      effect=_blank_ints(e.effect))
                  for e in shape.edges)
    return dataclasses.replace(shape, edges=edges)


def family_literal_columns(members: Sequence[Process]) -> tuple[list[int], list[list[int]]] | None:
    """Return (the positions of ``family_constants`` where the literals of ``members``,
    processes of one ``family_shape_blanked`` shape, differ, one per ``Const`` object of
    the first member; each member's literals at those positions), or None when the
    first member's literals cannot stand for the others'.

    A family's shared code is generated from its first member and finds a literal by
    the identity of that member's ``Const``; a front-end may put one object at several
    positions (a parameter's value, substituted wherever the parameter occurs). Such
    positions must hold equal values in every member (one column serves them all),
    else the answer is None."""
    memo: dict[int, tuple[object, list[Const]]] = {}
    rows = [[int(c.value) for c in family_constants(p, memo)] for p in members]
    first = rows[0]
    if any(len(r) != len(first) for r in rows):
        return None  # never with equal shapes
    at: dict[int, list[int]] = {}
    for k, c in enumerate(family_constants(members[0], memo)):
        at.setdefault(id(c), []).append(k)
    shared = [ks for ks in at.values() if len(ks) > 1]
    if any(r[k] != r[ks[0]] for ks in shared for k in ks for r in rows):
        return None
    firsts = {ks[0] for ks in at.values()}
    varying = [k for k in range(len(first))
               if k in firsts and any(r[k] != first[k] for r in rows)]
    return varying, [[r[k] for k in varying] for r in rows]


_DATA_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields_of(node: object) -> tuple[str, ...]:
    """Return the field names of ``node``'s dataclass (none for another value, a class
    or a ``Span``), remembered per class."""
    cls = type(node)
    names = _DATA_FIELDS.get(cls)
    if names is None:
        names = () if not dataclasses.is_dataclass(cls) or cls is Span or isinstance(
            node, type) else tuple(f.name for f in dataclasses.fields(cls))
        _DATA_FIELDS[cls] = names
    return names


def _collect_ints(node: object, found: list[Const]) -> None:
    if isinstance(node, Const):
        if type(node.value) is int:
            found.append(node)
    elif isinstance(node, tuple | list):
        for x in node:
            _collect_ints(x, found)
    else:
        for name in _fields_of(node):
            _collect_ints(getattr(node, name), found)


def _blank_ints(node: Any) -> Any:
    """Return ``node`` with its integer literals set to 0 (the same object when it has
    none), in ``_collect_ints``'s order."""
    if isinstance(node, Const):
        return dataclasses.replace(node, value=0) if type(node.value) is int else node
    if isinstance(node, tuple):
        items = tuple(_blank_ints(x) for x in node)
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    if isinstance(node, list):
        return [_blank_ints(x) for x in node]
    if _fields_of(node):
        changed = {}
        for name in _fields_of(node):
            old = getattr(node, name)
            new = _blank_ints(old)
            if new is not old:
                changed[name] = new
        return dataclasses.replace(node, **changed) if changed else node
    return node


def _shared_parts(process: Process) -> tuple | None:
    """Return a key of ``process``'s parts by identity (names and constant event names
    left out): equal keys mean equal ``_family_shape``; None as there."""
    edges = []
    for e in process.edges:
        ev = e.event
        event: object = None
        if ev is not None:
            const = [isinstance(c, Const) for c in ev.components]
            if ev.components and all(const):
                event = _CONST_EVENT
            elif any(const):
                return None
            else:
                event = id(ev)
        edges.append((e.source, e.target, id(e.guard), id(e.comm), id(e.effect), event,
                      e.label, e.fairness, e.text, id(e.span), e.data_operation, e.atomic))
    return (process.parameters, id(process.locals), id(process.locations), process.initial,
            id(process.span), tuple(edges))


def _families(system: TransitionSystem, layout: StateLayout) -> list[int]:
    """Return, per template, the representative of its family (the first template of
    its shape, see ``family_shape_blanked``: equal but for names, constant event names
    and integer literals of guards and effects), or -1 when its family has fewer than
    ``FAMILY_MIN_INSTANCES`` static instances (those get specialised code each). The C
    engine groups by the same shape (``engine_c.gen_families.family_shapes``)."""
    reps = [-1] * len(layout.processes)
    if layout.dynamic or system.language is SourceLanguage.PROMELA:
        return reps
    # A cheap outline first: shapes (deep trees) are hashed only where it is shared by
    # enough instances.
    def outline(p: Process) -> tuple:
        return (p.span, len(p.locations), tuple((e.source, e.target) for e in p.edges))

    instances_of: dict[int, int] = {}
    for name in (inst.process for inst in system.instances):
        t = layout.process_index.get(name)
        if t is not None:
            instances_of[t] = instances_of.get(t, 0) + 1
    by_outline: dict[tuple, int] = {}
    for tpl in layout.processes:
        o = outline(tpl.process)
        by_outline[o] = by_outline.get(o, 0) + instances_of.get(tpl.index, 0)
    first: dict[Process, int] = {}
    # Processes made from one template by a front-end share their parts: those with the
    # very same parts are equal in shape without comparing trees (the first of each
    # such group is compared in depth with the others').
    same_parts: dict[tuple, int] = {}
    count: dict[int, int] = {}
    for tpl in layout.processes:
        p = tpl.process
        if p.channels or p.channel_assertions or p.provided is not None or (
                by_outline[outline(p)] < FAMILY_MIN_INSTANCES):
            continue
        parts = _shared_parts(p)
        if parts is None:
            continue
        known = same_parts.get(parts)
        if known is not None:
            reps[tpl.index] = reps[known]
            continue
        same_parts[parts] = tpl.index
        try:
            shape = family_shape_blanked(p)
            if shape is None:
                continue
            reps[tpl.index] = first.setdefault(shape, tpl.index)
        except RecursionError:  # an expression too deep to hash: code of its own
            continue
    for name in (inst.process for inst in system.instances):
        t = layout.process_index.get(name)
        if t is not None and reps[t] >= 0:
            count[reps[t]] = count.get(reps[t], 0) + 1
    return [r if r >= 0 and count.get(r, 0) >= FAMILY_MIN_INSTANCES else -1 for r in reps]


def _sync_sets(system: TransitionSystem) -> dict[int, frozenset[str]]:
    """Return, per static instance, the event names it may have to synchronise on:
    names shared by several operands of an enclosing ``Parallel`` and in the alphabet of
    the operand that contains the instance."""
    sets: dict[int, set[str]] = {i: set() for i in range(len(system.instances))}

    def instances(node: Composition) -> list[int]:
        if isinstance(node, InstanceRef):
            return [node.instance]
        result: list[int] = []
        for c in node.children:
            result.extend(instances(c))
        return result

    stack: list[Composition] = [system.composition] if system.composition else []
    while stack:
        node = stack.pop()
        if isinstance(node, InstanceRef):
            continue
        if isinstance(node, Parallel):
            counts: dict[str, int] = {}
            for a in node.alphabets:
                for name in a:
                    counts[name] = counts.get(name, 0) + 1
            shared = {n for n, c in counts.items() if c >= 2}
            for child, alpha in zip(node.children, node.alphabets, strict=True):
                for i in instances(child):
                    sets.setdefault(i, set()).update(shared & alpha)
        stack.extend(node.children)
    return {i: frozenset(s) for i, s in sets.items()}


def _hidden_sets(system: TransitionSystem) -> dict[int, frozenset[str]]:
    """Return, per static instance, the event names hidden above it (``hidden`` of the
    enclosing ``Parallel`` nodes): its own steps with such an event that do not go
    through a barrier are tau (those that do are relabelled by the combiner)."""
    out: dict[int, frozenset[str]] = {}
    stack: list[tuple[Composition, frozenset[str]]] = (
        [(system.composition, frozenset())] if system.composition else []
    )
    while stack:
        node, above = stack.pop()
        if isinstance(node, InstanceRef):
            out[node.instance] = above
            continue
        if isinstance(node, Parallel):
            above = above | node.hidden
        stack.extend((c, above) for c in node.children)
    return out


Offers = dict[int, list[tuple[str, tuple]]]


def make_combiner(node: Composition) -> Callable[[Offers], list[tuple[str, tuple]]]:
    """Return a function from the barrier offers of each instance (``pid -> [(event,
    parts)]``) to the offers of ``node`` after its synchronisations (cspsharp.md section
    7: an event in the alphabets of several operands of a ``Parallel`` happens only if
    every operand with it in its alphabet offers it; they move together). Alphabets and
    shared sets are computed once, here."""
    if isinstance(node, InstanceRef):
        i = node.instance

        def leaf(offers: Offers) -> list[tuple[str, tuple]]:
            return offers.get(i, [])

        return leaf
    kids = [make_combiner(c) for c in node.children]
    if isinstance(node, Interleave):
        def inter(offers: Offers) -> list[tuple[str, tuple]]:
            return [o for k in kids for o in k(offers)]

        return inter
    assert isinstance(node, Parallel)
    if node.hidden:
        # (P || Q) \ H: the node's steps with an event in H, synchronised or not,
        # come out as tau (None), which no enclosing node synchronises on.
        hidden = node.hidden
        inner = make_combiner(Parallel(node.children, node.alphabets))

        def hide(offers: Offers) -> list[tuple[str, tuple]]:
            return [(None if name in hidden else name, parts)  # type: ignore[misc]
                    for name, parts in inner(offers)]

        return hide
    counts: dict[str, int] = {}
    for a in node.alphabets:
        for name in a:
            counts[name] = counts.get(name, 0) + 1
    shared = frozenset(n for n, c in counts.items() if c >= 2)
    shared_in = [shared & a for a in node.alphabets]
    needed = {name: [ci for ci, a in enumerate(node.alphabets) if name in a] for name in shared}

    if all(isinstance(c, InstanceRef) for c in node.children):
        # The common flat case (|| of process instances): no call per operand.
        leaves = [(ci, c.instance, shared_in[ci]) for ci, c in enumerate(node.children)]

        def flat(offers: Offers) -> list[tuple[str, tuple]]:
            result: list[tuple[str, tuple]] = []
            pending: dict[str, dict[int, list[tuple]]] = {}
            for ci, i, mine in leaves:
                mine_offers = offers.get(i)
                if not mine_offers:
                    continue
                for name, parts in mine_offers:
                    if name in mine:
                        by_child = pending.get(name)
                        if by_child is None:
                            pending[name] = {ci: [parts]}
                        elif ci in by_child:
                            by_child[ci].append(parts)
                        else:
                            by_child[ci] = [parts]
                    else:
                        result.append((name, parts))
            _join(pending, needed, result)
            return result

        return flat

    def par(offers: Offers) -> list[tuple[str, tuple]]:
        result: list[tuple[str, tuple]] = []
        pending: dict[str, dict[int, list[tuple]]] = {}
        for ci, k in enumerate(kids):
            mine = shared_in[ci]
            for name, parts in k(offers):
                if name in mine:
                    pending.setdefault(name, {}).setdefault(ci, []).append(parts)
                else:
                    result.append((name, parts))
        _join(pending, needed, result)
        return result

    return par


def _join(pending: dict[str, dict[int, list[tuple]]], needed: dict[str, list[int]],
          result: list[tuple[str, tuple]]) -> None:
    """Append to ``result`` every barrier step of ``pending`` (event -> operand -> its
    offers): one offer of each operand that has the event in its alphabet, when all of
    them offer it."""
    for name, by_child in pending.items():
        need = needed[name]
        if len(by_child) != len(need):
            continue
        lists = [by_child[ci] for ci in need]
        for combo in itertools.product(*lists):
            result.append((name, tuple(p for parts in combo for p in parts)))


# ---------------------------------------------------------------------------------
# Runtime helpers bound into the generated code's namespace


def _runtime_helpers(space: CompiledStateSpace) -> dict[str, Any]:
    lay = space.layout
    spans_holder: dict[str, list[Span | None]] = {}

    def span(sid: int) -> Span | None:
        spans = space._gen.spans
        return spans[sid] if 0 <= sid < len(spans) else None

    def violation(kind: str, sid: int, message: str) -> ModelRuntimeError:
        sp = span(sid)
        where = f" at {sp}" if sp is not None else ""
        return ModelRuntimeError(f"{message}{where}", sp, kind)

    def fail(kind: str, sid: int, message: str | None = None):
        raise violation(kind, sid, message or kind)

    def _fail(kind: str, sid: int):
        fail(kind, sid)

    def _assert_fail(text: str, sid: int):
        fail("assertion violated", sid, f"assertion violated{': ' + text if text else ''}")

    def _libcall(fn, sid: int, *args):
        try:
            return fn(*args)
        except LibraryError as error:
            fail("library error", sid, str(error))

    def _ix(i: int, n: int, sid: int) -> int:
        if type(i) is tuple:
            fail("value of the wrong kind", sid, "a library value or a whole array "
                 "used as an index")
        if 0 <= i < n:
            return i
        fail("index out of range", sid, f"index {i} out of range 0..{n - 1}")
        return 0

    def _num(v: Any, sid: int) -> Any:
        if type(v) is tuple:
            fail("value of the wrong kind", sid, "a library value or a whole array used "
                 "as a number")
        return v

    def _div(a: int, b: int, sid: int) -> int:
        if b == 0:
            fail("division by zero", sid)
        return c_div(a, b)

    def _rem(a: int, b: int, sid: int) -> int:
        if b == 0:
            fail("division by zero", sid)
        return c_rem(a, b)

    def _mod(a: int, b: int, sid: int) -> int:
        if b == 0:
            fail("division by zero", sid)
        return a % b

    def _shift(a: int, b: int, left: bool, sid: int) -> int:
        if b < 0:
            fail("negative shift count", sid)
        return a << b if left else a >> b

    def _rng(v: int, lo: int | None, hi: int | None, sid: int) -> int:
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            fail("range violation", sid, f"value {int(v)} outside the range "
                 f"{'' if lo is None else lo}..{'' if hi is None else hi}")
        return v

    layouts = space._layouts
    ls = lay.layout_slot

    def _chan(src, cid: int, sid: int):
        rl = space._static_layout if ls is None else layouts[src[ls]]
        rec = rl.chans.get(cid)
        if rec is None:
            fail("invalid channel", sid, f"invalid channel id {cid}")
        return rec

    def _cquery(src, ch, op: str):
        off, cap, nf, _ = ch
        n = src[off] if cap > 0 else 0
        if op == "len":
            return n
        if op == "empty":
            return n == 0
        if op == "nempty":
            return n != 0
        if op == "full":
            return cap == 0 or n >= cap  # SPIN 6.5.2: a rendezvous port is full
        if op == "nfull":
            return cap > 0 and n < cap
        fail("unknown channel query", -1, f"unknown channel query '{op}'")

    def _matches(src, off: int, nf: int, j: int, pattern) -> bool:
        p = off + 1 + j * nf
        for q, want in enumerate(pattern):
            if want is not None and src[p + q] != want:
                return False
        return True

    def _find(src, ch, pattern, random: bool) -> int:
        off, cap, nf, _ = ch
        n = src[off]
        if n == 0:
            return -1
        if not random:
            return 0 if _matches(src, off, nf, 0, pattern) else -1
        for j in range(n):
            if _matches(src, off, nf, j, pattern):
                return j
        return -1

    def _candidates(src, ch, pattern, random: bool) -> list[int]:
        off, cap, nf, _ = ch
        n = src[off]
        if not random:
            return [0] if n and _matches(src, off, nf, 0, pattern) else []
        return [j for j in range(n) if _matches(src, off, nf, j, pattern)]

    def _poll(src, ch, pattern, random: bool) -> bool:
        if ch[1] == 0:
            return False
        return _find(src, ch, pattern, random) >= 0

    def _take(t, ch, j: int, peek: bool):
        off, cap, nf, _ = ch
        p = off + 1 + j * nf
        msg = tuple(t[p: p + nf])
        if not peek:
            n = t[off]
            end = off + 1 + n * nf
            t[p: end - nf] = t[p + nf: end]
            t[end - nf: end] = [0] * nf
            t[off] = n - 1
        return msg

    def _push(t, ch, msg, sorted_: bool) -> None:
        off, cap, nf, _ = ch
        n = t[off]
        if sorted_:
            j = 0
            while j < n and tuple(t[off + 1 + j * nf: off + 1 + (j + 1) * nf]) <= tuple(msg):
                j += 1
            p = off + 1 + j * nf
            end = off + 1 + n * nf
            t[p + nf: end + nf] = t[p:end]
            t[p: p + nf] = list(msg)
        else:
            p = off + 1 + n * nf
            t[p: p + nf] = list(msg)
        t[off] = n + 1

    def _arity(src, ch, msg, sid: int) -> None:
        # pan's qsend: a send whose number of values differs from the channel's fields
        # is an error when it executes (a full buffered channel blocks it first).
        if ch[1] == 0 or src[ch[0]] < ch[1]:
            few = "few" if len(msg) < ch[2] else "many"
            fail(f"too {few} parameters in send stmnt", sid,
                 f"too {few} parameters in send stmnt: {len(msg)} value(s) sent on "
                 f"{_chan_name(ch[3])}, which has {ch[2]} field(s)")

    def _chan_name(cid: int) -> str:
        return _all_chan_names().get(cid, f"channel {cid}")

    def _send_now(t, ch, msg, sorted_: bool, sid: int) -> None:
        if len(msg) != ch[2]:
            _arity(t, ch, msg, sid)
        if ch[1] == 0:
            fail("block in d_step", sid, "rendezvous send inside an atomic effect")
        if t[ch[0]] >= ch[1]:
            fail("block in d_step", sid, "send to a full channel inside an atomic effect")
        _push(t, ch, msg, sorted_)

    def _recv_now(t, ch, pattern, random: bool, peek: bool, sid: int):
        if ch[1] == 0:
            fail("block in d_step", sid, "rendezvous receive inside an atomic effect")
        j = _find(t, ch, pattern, random)
        if j < 0:
            fail("block in d_step", sid, "receive that blocks inside an atomic effect")
        return _take(t, ch, j, peek)

    # Channels whose messages carry their arity first (ir.Channel.arity_tag): the
    # event shows the message's own values only.
    tagged = frozenset(c.id for c in lay.channels if c.channel.arity_tag)

    def _chev(ch, sep: str, msg) -> str:
        if ch[3] in tagged:
            msg = msg[1:1 + msg[0]]
        rl = space._static_layout if space._static_layout is not None else None
        names = rl.chan_names if rl is not None else _all_chan_names()
        return f"{names.get(ch[3], str(ch[3]))}{sep}{'.'.join(str(v) for v in msg)}"

    def _all_chan_names() -> dict[int, str]:
        names: dict[int, str] = {}
        for rl in layouts:
            names.update(rl.chan_names)
        return names

    step_for = space._step_for

    def _mkstep(event, pid: int, k: int) -> Step:
        return step_for(event, ((pid, k),))

    def _run(t, tpl: int, args, sid: int, priority: int = 1, creator: int = -1) -> int:
        rl = layouts[t[ls]]
        if rl.n >= space.system.max_instances:
            fail("too many processes", sid)
        templates = rl.templates + (tpl,)
        _, _, _, seg_ids, _ = space._geometry(templates)
        pid = rl.n
        b = len(t)
        t.extend([0] * lay.processes[tpl].size)
        space._seg_init[tpl](t, b, pid, args, seg_ids[pid])
        offset = lay.processes[tpl].priority_offset
        if offset is not None:
            if not 1 <= priority <= 255:
                fail("priority is out of range", sid,
                     f"priority is out of range: {priority} (valid: 1..255)")
            t[b + offset] = priority
        t[ls] = space._layout_for(rl.key + ((tpl, space.const_values(t, tpl, b)),)).id
        if claimers[tpl] is not None:
            _claim(t, tpl, b, pid, creator)
        return pid

    def _instance_of(src, pid: int, tpl: int, sid: int):
        """Return the runtime layout if ``pid`` runs an instance of ``tpl``, None if it
        does not run; a pid running another process is a model error."""
        rl = layouts[src[ls]]
        if not 0 <= pid < rl.n:
            return None
        if rl.templates[pid] != tpl:
            other = lay.processes[rl.templates[pid]].process.name
            fail("invalid remote reference", sid,
                 f"invalid remote reference: pid {pid} runs {other}, not "
                 f"{lay.processes[tpl].process.name}")
        return rl

    def _lowest(src, tpl: int) -> int:
        rl = layouts[src[ls]]
        for i, t in enumerate(rl.templates):
            if t == tpl:
                return i
        return -1

    def _rbase(src, pid: int, tpl: int, sid: int) -> int:
        # a remote reference that is written: the instance must run
        if pid < 0:
            pid = _lowest(src, tpl)
        rl = _instance_of(src, pid, tpl, sid)
        if rl is None:
            fail("invalid remote reference", sid,
                 f"no running instance {pid} of process '{lay.processes[tpl].process.name}'")
        return rl.bases[pid]

    def _rbase_read(src, pid: int, tpl: int, sid: int) -> int:
        # SPIN (pan.c Pptr, f_pid): P@L / P:x name the running instance of P with the
        # lowest pid; an instance that does not run reads as a zeroed process. The
        # base returned for it lies past the end of the state, which _rd and _rloc
        # read as 0 and "at no location".
        if pid < 0:
            pid = _lowest(src, tpl)
        rl = _instance_of(src, pid, tpl, sid)
        return len(src) if rl is None else rl.bases[pid]

    def _rd(src, off: int, size: int):
        if off >= len(src):
            return 0 if size == 1 else (0,) * size
        return src[off] if size == 1 else tuple(src[off:off + size])

    def _rloc(src, b: int) -> int:
        return src[b] if b < len(src) else -1

    enabled_depth = [0]

    def _enabled(src, q: int, me: int, sid: int) -> bool:
        # pan.c enabled(): does instance q have an executable statement? (TstOnly)
        if q == me:
            fail("enabled() of the process itself", sid, "used: enabled(pid=thisproc): a "
                 "process may not ask whether it is itself enabled")
        rl = layouts[src[ls]]
        if not 0 <= q < rl.n:
            return False
        fns, b, pid, _atom, term = rl.runners[q]
        loc = src[b]
        if q == rl.n - 1 and loc in term:
            return True  # it may die (pan: -end- is executable for the youngest)
        f = fns[loc] if loc < len(fns) else None
        if f is None:
            return False
        enabled_depth[0] += 1
        try:
            if enabled_depth[0] > 64:
                fail("enabled() recursion", sid, "enabled() nested more than 64 deep (the "
                     "guards of processes ask enabled() of each other in a cycle)")
            out: list = []
            aux: list = []
            f(src, b, pid, out, aux)
            if out:
                return True
            for item in aux:
                if item[0] == 4:
                    return True  # else: no other statement of q is executable
                if item[0] == 5:
                    found: list = []
                    item[2](src, item[3], pid, found, [], False)  # timeout read as false
                    if found:
                        return True
                elif item[0] in (1, 2):
                    fail("enabled() with rendezvous", sid,
                         "enabled() of a process at a rendezvous statement")
            return False
        finally:
            enabled_depth[0] -= 1

    def _getprio(src, pid: int) -> int:
        rl = layouts[src[ls]]
        if 0 <= pid < rl.n:
            return src[rl.prio_slots[pid]]
        return 0

    def _setprio(t, pid: int, value: int, checked: bool, sid: int) -> None:
        rl = layouts[t[ls]]
        if not 0 <= pid < rl.n:
            return  # pan: no such process, nothing happens
        if checked and not 1 <= value <= 255:
            fail("priority is out of range", sid,
                 f"priority is out of range: {value} (valid: 1..255)")
        t[rl.prio_slots[pid]] = value & 255

    exclusive = lay.exclusive_slot
    scheduling = space.system.priority_scheduling

    def _select(s, out, rl):
        """Return the steps of Promela state ``s`` that pan takes, and raise the model
        error (met while computing them, in ``_XP``) of an instance whose statements
        pan tries in ``s``.

        Priorities (pan.c highest_priority): an instance moves only if no other one
        with a higher priority can; an instance whose evaluation failed counts as able
        to move. Atomicity: the instance holding it moves alone while it can. Only the
        instances left are tried: another's error (a failing assert, an xr/xs claim...)
        is not reached by pan in this state.
        """
        errors = pending
        best = -1
        if scheduling and (out or errors):
            slots = rl.prio_slots
            for st, _ in out:
                for p in st.processes:
                    if s[slots[p]] > best:
                        best = s[slots[p]]
            for p, _ in errors:
                if s[slots[p]] > best:
                    best = s[slots[p]]
            out = [x for x in out if any(s[slots[p]] == best for p in x[0].processes)]
        holder = -1
        if exclusive is not None and out:
            h = s[exclusive]
            if h >= 0:
                chosen = [x for x in out if h in x[0].processes]
                if chosen:
                    out = chosen
                    holder = h
        if errors:
            for p, error in errors:
                if (holder < 0 or p == holder) and (best < 0 or s[rl.prio_slots[p]] == best):
                    raise error
        initial = space._initial_claim_error
        if initial is not None and s == space._initial:
            raise initial
        return out

    # ----- xr / xs channel assertions (pan's default build: q_R_check, q_S_check)

    claimers = space._claimers
    pending = space._claim_pending
    kinds = {1: "xr", 2: "xs"}
    nglobal = len(lay.channels)

    def _owner(src, cid: int, bit: int) -> int:
        """Return the pid holding the ``xr`` (bit 1) or ``xs`` (bit 2) claim on channel
        ``cid`` (-1: none): recorded in the claim slots for a global channel, the live
        claimant for a channel created by a process."""
        if 1 <= cid <= nglobal:
            return src[lay.claim_slot + 2 * (cid - 1) + (bit - 1)] - 1
        rl = layouts[src[ls]]
        for i, (t, b) in enumerate(zip(rl.templates, rl.bases, strict=True)):
            if claimers[t] is not None:
                for kbit, kcid, _ in claimers[t](src, b, i):
                    if kbit == bit and kcid == cid:
                        return i
        return -1

    def _claim_message(kind: str, cid: int, who: int, owner: int, src) -> str:
        return (f"{kind} assertion violated: access to chan {_chan_name(cid)} by "
                f"{space.instance_name(who, tuple(src))}, which "
                f"{space.instance_name(owner, tuple(src))} claimed with {kind}")

    def _xacc(src, cid: int, pid: int, mask: int, sid: int) -> bool:
        for bit in (1, 2):
            if mask & bit:
                owner = _owner(src, cid, bit)
                if owner >= 0 and owner != pid:
                    pending.append((pid, violation(
                        f"{kinds[bit]} assertion violated", sid,
                        _claim_message(kinds[bit], cid, pid, owner, src))))
        return True

    def _xq(src, cid: int, pid: int, mask: int, sid: int, value):
        _xacc(src, cid, pid, mask, sid)
        return value

    def _claim(t, tpl: int, b: int, pid: int, creator: int) -> None:
        # pan's setq_claim, when the instance is created
        rl = layouts[t[ls]]
        for bit, cid, sid in claimers[tpl](t, b, pid):
            kind = kinds[bit]
            if cid == 0:
                pending.append((creator, violation(
                    "x[rs] claim on uninitialized channel", sid,
                    f"x[rs] claim on uninitialized channel ({kind} by "
                    f"{space.instance_name(pid, tuple(t))})")))
                continue
            record = rl.chans.get(cid)
            if record is not None and record[1] == 0:
                pending.append((creator, violation(
                    f"{kind} chans cannot be used for rv", sid,
                    f"{kind} chans cannot be used for rv: {_chan_name(cid)} is a "
                    "rendezvous channel")))
                continue
            if 1 <= cid <= nglobal:
                slot = lay.claim_slot + 2 * (cid - 1) + (bit - 1)
                if t[slot] == 0:
                    t[slot] = pid + 1
                elif t[slot] != pid + 1:
                    pending.append((creator, violation(
                        f"{kind} assertion violated", sid,
                        _claim_message(kind, cid, pid, t[slot] - 1, t))))
                continue
            for i, (u, ub) in enumerate(zip(rl.templates, rl.bases, strict=True)):
                if i != pid and claimers[u] is not None and any(
                        kbit == bit and kcid == cid for kbit, kcid, _ in claimers[u](t, ub, i)):
                    pending.append((creator, violation(
                        f"{kind} assertion violated", sid, _claim_message(kind, cid, pid, i, t))))

    progress_sets = [frozenset(x.id for x in p.process.locations if x.progress)
                     for p in lay.processes]

    def _np(src) -> bool:
        rl = space.layout_of(src)
        return not any(src[b] in progress_sets[t] for t, b in zip(rl.templates, rl.bases, strict=True))

    del spans_holder
    return {
        "_fail": _fail, "_assert_fail": _assert_fail, "_ix": _ix, "_num": _num, "_div": _div,
        "_libcall": _libcall, "_stored": stored_value,
        "_rem": _rem, "_mod": _mod, "_shift": _shift, "_rng": _rng, "_chan": _chan,
        "_cquery": _cquery, "_find": _find, "_candidates": _candidates, "_poll": _poll, "_take": _take,
        "_push": _push, "_send_now": _send_now, "_recv_now": _recv_now, "_chev": _chev,
        "_mkstep": _mkstep, "_run": _run, "_rbase": _rbase, "_rbase_read": _rbase_read,
        "_rd": _rd, "_rloc": _rloc, "_enabled": _enabled, "_getprio": _getprio,
        "_setprio": _setprio, "_select": _select, "_arity": _arity, "_MRE": ModelRuntimeError,
        "_xacc": _xacc, "_xq": _xq, "_XP": pending, "_np": _np,
        "_LAYOUTS": layouts, "BoolType": BoolType, "RecvBind": RecvBind,
    }


def build_state_space(system: TransitionSystem, partial: bool = False) -> CompiledStateSpace:
    """Return the compiled state space of ``system`` (raises ``UnsupportedError`` for
    constructs the engine cannot execute, naming them with their span).

    A system whose lazy unfolding is not complete (``TransitionSystem.unfolding``) is
    refused unless ``partial`` (``unfolding.complete_unfolding``'s own searches): its
    pending locations would look like locations with no steps."""
    if system.unfolding is not None and not partial:
        raise UnsupportedError.at(
            None, f"{system.name}: processes unfolded lazily must be completed first "
            "(bridge.semantics.unfolding.complete_unfolding; bridge.api.load_model does it)")
    # A partial system's search is followed by a complete one, which validates.
    return CompiledStateSpace(system, validate=not partial)


__all__ = ["CompiledStateSpace", "RuntimeLayout", "build_state_space", "scalar_count"]
