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
  evaluated last; at a location with an ``else`` the process can always move, so
  ``timeout`` reads false in its options there, as in pan);
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

The state space is split along its concerns: ``layouts.py`` (runtime layouts and the
initial vector), ``edgecode.py`` (the Python source of locations and edges),
``families.py`` (templates that share one code), ``barriers.py`` (CSP barrier
sets and the combiner) and ``runtime.py`` (the helpers the generated code calls);
this module compiles them into ``CompiledStateSpace`` and answers the protocol.

Step.action: the event name for CSP (tau steps ``("tau", instance, edge)``, ``tau``
True); for Promela and IR ``(instance, edge)`` for one edge, the tuple of
``(instance, edge)`` pairs for a rendezvous or barrier, ``(instance, -1)`` for death.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from bridge.diagnostics import ModelRuntimeError, UnsupportedError
from bridge.ir import (
    ArrayType,
    BoolType,
    Edge,
    ElseGuard,
    Expr,
    SourceLanguage,
    TransitionSystem,
    Type,
    scalar_count,
)
from bridge.semantics.barriers import Offers, hidden_sets, make_combiner, sync_sets
from bridge.semantics.codegen import (
    Context,
    Generator,
    assigned_locals,
    event_constant,
    event_is_constant,
    guard_mentions,
    remotely_assigned,
)
from bridge.semantics.edgecode import EdgeCode
from bridge.semantics.families import (
    family_constants,
    family_literal_columns,
    template_families,
)
from bridge.semantics.layouts import Layouts, RuntimeLayout
from bridge.semantics.runtime import runtime_helpers
from bridge.semantics.state import ProcessLayout, StateLayout, compute_layout
from bridge.semantics.successors import StateVector, Step

# Above this many precomputed synchronisation vectors, barriers are combined at run time.
MAX_SYNC_VECTORS = 20000


class CompiledStateSpace(EdgeCode, Layouts):
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
        self._sync_sets: dict[int, frozenset[str]] = sync_sets(system)
        self._hidden_sets: dict[int, frozenset[str]] = hidden_sets(system)
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
        ns.update(runtime_helpers(self))
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
        self._family_rep: list[int] = template_families(self.system, lay)
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
                            or guard_mentions(e.guard, "timeout")):
                        continue
                    if not event_is_constant(gen, e.event):
                        # A name evaluated at run time may meet any offer of its name,
                        # one a vector would take too (``e.x`` with x == 0 beside a
                        # vector of ``e.0``): every barrier is combined at run time.
                        return
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
                # pan's normal pass reads timeout 0 in these guards too ((!timeout && x)
                # may hold); only when nothing at all can move, timeout reads 1
                for _, pid, fn, b in tmos:
                    fn(s, b, pid, out, extra, False)
                if not out:
                    for _, pid, fn, b in tmos:
                        fn(s, b, pid, out, extra, True)
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
