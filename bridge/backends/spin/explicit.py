"""The explicit-pc style of the Promela emitter: one process whose options
are the system's steps, with a pc per instance (``emit.py``'s module docstring);
the fairness premises are ``premises.py``'s."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from bridge.backends.spin.emitted import (
    INIT_EVENT,
    INIT_ID,
    SPIN_MAX_PROCESSES,
    EmittedModel,
    ExplicitGraph,
    Formulas,
    events_in,
    ltl_property,
    render_template,
)
from bridge.backends.spin.premises import Premises
from bridge.backends.spin.promela_text import (
    ExprWriter,
    Scope,
    block_locals,
    declaration,
    declare_type,
    fold,
    global_name,
    sanitize,
)
from bridge.backends.spin.slots import plan_slots
from bridge.backends.spin.structured import all_stmts, emit_properties, field_type, initial_text
from bridge.backends.spin.trail import LineInfo, SourceMap
from bridge.diagnostics import Span, UnsupportedError
from bridge.ir.expr import (
    Builtin,
    ElseGuard,
    Expr,
    Receive,
    RecvBind,
    RecvMatch,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    Var,
    iter_subexpressions,
)
from bridge.ir.model import (
    Composition,
    Edge,
    FairnessMark,
    Instance,
    InstanceRef,
    Interleave,
    Parallel,
    Process,
    SourceLanguage,
    TransitionSystem,
)
from bridge.ir.property import (
    Fairness,
    LtlEvent,
    LtlState,
    Property,
)
from bridge.ir.types import ArrayType, Type

# ---------------------------------------------------------------------------------
# Explicit-pc style


@dataclass
class Part:
    """One instance's share of an option: its edge, condition conjuncts and body."""

    instance: int
    edge_index: int
    edge: Edge
    conds: list[str]
    body: list[str]


@dataclass
class Option:
    parts: list[Part]
    event: str | None
    dynamic_event: bool
    action: str = ""
    cond: str = ""
    raw: str = ""
    body: list[str] = field(default_factory=list)


class ExplicitEmitter(Premises):
    def __init__(
        self,
        system: TransitionSystem,
        properties: Sequence[Property],
        encoding: str,
        fairness: Fairness,
        annotations: tuple[tuple[FairnessMark, str], ...],
        ltl_blocks: bool,
        graph: ExplicitGraph | None = None,
        strong_global_form: str = "per-step",
    ) -> None:
        self.system = system
        self.graph = graph
        self.strong_global_form = strong_global_form
        self.sweep_vars: list[str] = []
        self.properties = properties
        self.encoding = encoding
        self.fairness = fairness
        self.annotations = annotations
        self.ltl_blocks = ltl_blocks
        self.infos: list[LineInfo] = []
        self.notes: list[str] = []
        self.globals_: dict[str, Type] = {v.name: v.type for v in system.globals}
        self.channels = {c.name: i + 1 for i, c in enumerate(system.channels)}
        self.locals_: dict[tuple[int, str], Type] = {}
        self.blocks: dict[str, Type] = {}
        self.event_mode = (
            system.language is not SourceLanguage.PROMELA
            and any(e.event is not None for p in system.processes for e in p.edges)
            or system.language is SourceLanguage.CSP
        )
        # Instances: the static ones, then one slot per run statement (slots.py).
        extra, self.slots = plan_slots(system)
        self.instances: list[Instance] = [*system.instances, *extra]
        self.static_count = len(system.instances)
        # Promela instances die (a step of their own, youngest first; as the native
        # engine and SPIN): their pc then holds none_pc, as before a slot's run.
        self.mortal = system.language is SourceLanguage.PROMELA
        self.excl: int | None = None  # "no holder" value of excl, when it is declared
        for i, inst in enumerate(self.instances):
            process = system.process(inst.process)
            for v in process.locals:
                self.locals_[(i, v.name)] = v.type
            if process.channels:
                raise UnsupportedError.at(
                    process.channels[0].span,
                    f"process-local channel '{process.channels[0].name}' (explicit-pc style)",
                )
        self._check_supported()

    def tag(self, info: LineInfo) -> str:
        self.infos.append(info)
        return f"/*@{len(self.infos) - 1}*/"

    # -- names --------------------------------------------------------------------
    def local_name(self, i: int, name: str) -> str:
        return f"i{i}_{sanitize(name)}"

    def pc(self, i: int) -> str:
        return f"pc_{i}"

    def _instances_of(self, proctype: str) -> list[int]:
        return [i for i, inst in enumerate(self.instances) if inst.process == proctype]

    def label(self, i: int) -> str:
        """Return the display name of instance ``i`` (static or slot)."""
        return self.instances[i].name or f"{self.instances[i].process}({i})"

    def none_pc(self, i: int) -> int:
        """Return the pc value of instance ``i`` while it is not alive (not yet started
        by its run, or dead): one more than its largest location id."""
        process = self.system.process(self.instances[i].process)
        return 1 + max([loc.id for loc in process.locations] + [0])

    def alive(self, i: int) -> str:
        return f"({self.pc(i)} != {self.none_pc(i)})"

    def pid_text(self, i: int) -> str:
        """Return the pid of instance ``i`` while it lives: the number of live instances
        created before it (live pids are 0..n-1 in creation order; slots.py)."""
        if i < self.static_count or not self.mortal:
            return str(i)
        terms = [self.alive(j) for j in range(i)]
        return "(" + " + ".join(terms) + ")" if terms else "0"

    def scope(self, i: int | None, where: str) -> Scope:
        system = self.system

        def local(name: str) -> str:
            assert i is not None
            return self.local_name(i, name)

        def local_type(name: str) -> Type | None:
            return self.locals_.get((i, name)) if i is not None else None

        def builtin(b: Builtin) -> str:
            if b.name == "_pid" and i is not None:
                return self.pid_text(i)
            if b.name == "timeout":
                return "timeout"
            if b.name == "_nr_pr":
                terms = [self.alive(k) if self.mortal else f"({self._not_terminated(k)})"
                         for k in range(len(self.instances))]
                return "(" + " + ".join(terms) + ")" if terms else "0"
            raise UnsupportedError.at(b.span, f"'{b.name}' in the explicit-pc style")

        def remote_label(e: RemoteLabel) -> str:
            candidates = self._remote_instances(e.proctype, e.pid, e.span, writer)
            terms = []
            for k, cond in candidates:
                process = system.process(self.instances[k].process)
                locs = [loc.id for loc in process.locations if e.label in loc.labels]
                at = " || ".join(f"({self.pc(k)} == {lid})" for lid in locs) or "0"
                terms.append(f"({cond} && ({at}))" if cond != "1" else f"({at})")
            return "(" + " || ".join(terms) + ")" if terms else "0"

        def remote_var(e: RemoteVar, render: Callable[[Expr], str]) -> str:
            candidates = self._remote_instances(e.proctype, e.pid, e.span, writer)
            if len(candidates) == 1 and candidates[0][1] == "1":
                return self.local_name(candidates[0][0], e.name)
            # The candidates' conditions exclude each other (one pid): a sum of products
            # selects the one that holds (0 when none runs, as pan reads it), and unlike
            # (c -> a : b) it is accepted inside SPIN's ltl formulas too.
            return "(" + " + ".join(f"(({cond}) * ({self.local_name(k, e.name)}))"
                                    for k, cond in candidates) + ")"

        scope = Scope(
            self.globals_,
            self.channels,
            local=local if i is not None else None,
            local_type=local_type,
            builtin=builtin,
            remote_label=remote_label,
            remote_var=remote_var,
            where=where,
            run=(lambda r: self._run_text(r, i)) if i is not None else None,
        )
        scope.block = {b: "b_" + sanitize(b) for b in self.blocks}
        scope.block_types = dict(self.blocks)
        writer = ExprWriter(scope)
        return scope

    def _remote_instances(
        self, proctype: str, pid: Expr | None, span: Span | None, writer: ExprWriter
    ) -> list[tuple[int, str]]:
        ids = self._instances_of(proctype)
        if not ids:
            raise UnsupportedError.at(span, f"no instance of process '{proctype}'")
        if pid is None:
            if len(ids) != 1:
                raise UnsupportedError.at(span, f"'{proctype}' has several instances: give a pid")
            return [(ids[0], "1")]
        value = fold(pid)
        if not self.slots:
            if value is not None:
                if value not in ids:
                    raise UnsupportedError.at(
                        span, f"pid {value} is not an instance of '{proctype}'")
                return [(value, "1")]
            pid_text = writer.expr(pid)
            return [(k, f"({pid_text} == {k})") for k in ids]
        # With runs, a pid names whichever live instance has it now.
        pid_text = str(value) if value is not None else writer.expr(pid)
        return [(k, f"({self.alive(k)} && (({pid_text}) == {self.pid_text(k)}))") for k in ids]

    def _run_text(self, run: Run, creator: int) -> list[str]:
        """Return the statements that start the slot of ``run`` (slots.py): its pid to
        the run's target, its parameters and initialised locals, then its pc."""
        slot = self.slots.get(id(run))
        if slot is None or slot.creator != creator:
            raise UnsupportedError.at(run.span, f"'run {run.proctype}' has no instance slot")
        k = slot.instance
        process = self.system.process(run.proctype)
        if len(run.args) != len(process.parameters):
            raise UnsupportedError.at(
                run.span, f"'run {run.proctype}' with {len(run.args)} arguments for "
                f"{len(process.parameters)} parameters")
        mine = ExprWriter(self.scope(creator, f"instance {self.label(creator)}"))
        theirs = ExprWriter(self.scope(k, f"instance {self.label(k)}"))
        lines: list[str] = []
        if run.target is not None:
            lines.append(f"{mine.expr(run.target)} = {self.pid_text(k)}")
        lines += [f"{self.local_name(k, p)} = {mine.expr(a)}"
                  for p, a in zip(process.parameters, run.args, strict=True)]
        for v in process.locals:
            if v.name in process.parameters or v.init is None:
                continue
            if isinstance(v.init, tuple) or isinstance(v.type, ArrayType):
                continue  # declared with its (constant) initial value
            lines.append(f"{self.local_name(k, v.name)} = {theirs.expr(v.init)}")
        lines.append(f"{self.pc(k)} = {process.initial}")
        return lines

    def _not_terminated(self, k: int) -> str:
        process = self.system.process(self.instances[k].process)
        term = [loc.id for loc in process.locations if loc.terminal]
        if not term:
            return "1"
        return " && ".join(f"({self.pc(k)} != {t})" for t in term)

    # -- checks ---------------------------------------------------------------------
    def _check_supported(self) -> None:
        what = None
        if self.system.priority_scheduling:
            what = "process priorities"
        for process in self.system.processes:
            if process.channel_assertions and what is None:
                what = f"the channel assertion '{process.channel_assertions[0].kind}'"
            # A structural search of the frozen IR (its repr shows every node).
            if "Enabled(pid=" in repr(process.edges) and what is None:
                what = "enabled()"
        if what is not None:
            raise UnsupportedError.at(
                self.system.processes[0].span if self.system.processes else None,
                f"{what} (explicit-pc style: the fairness encodings schedule every step "
                "themselves); use the structured style (plain encoding)")
        for process in self.system.processes:
            for e in process.edges:
                for lv in block_locals(e.effect):
                    self.blocks.setdefault(lv.name, lv.type)

    # -- options --------------------------------------------------------------------
    def _event_name(self, i: int, e: Edge) -> tuple[str | None, bool]:
        if e.event is None:
            return None, False
        env = self._params(i)
        values = [fold(c, env) for c in e.event.components]
        if any(v is None for v in values):
            return e.event.base, True
        return ".".join([e.event.base, *(str(v) for v in values)]), False

    def _params(self, i: int) -> dict[str, int]:
        inst = self.instances[i]
        process = self.system.process(inst.process)
        assigned = {
            s.target.name
            for ed in process.edges
            for s in all_stmts(ed.effect)
            if hasattr(s, "target") and isinstance(getattr(s, "target", None), Var)
        }
        env: dict[str, int] = {}
        for p, arg in zip(process.parameters, inst.arguments, strict=False):
            v = fold(arg)
            if v is not None and p not in assigned:
                env[p] = v
        return env

    def _channel_of(self, comm: Send | Receive) -> tuple[str, int] | None:
        ch = comm.channel
        if isinstance(ch, Var) and ch.scope == "global" and ch.name in self.channels:
            return ch.name, self.system.channels[self.channels[ch.name] - 1].capacity
        return None

    def _part(self, i: int, index: int, e: Edge, writer: ExprWriter, with_comm: bool) -> Part:
        conds = [f"({self.pc(i)} == {e.source})"]
        if e.guard is not None and not isinstance(e.guard, ElseGuard):
            conds.append(f"({writer.expr(e.guard)})")
        body: list[str] = []
        if e.comm is not None and with_comm:
            ch = writer.expr(e.comm.channel)
            if isinstance(e.comm, Send):
                conds.append(f"nfull({ch})")
            else:
                mark = "??" if e.comm.random else "?"
                conds.append(f"{ch}{mark}[{writer.recv_args(e.comm.args, poll=True)}]")
            body += writer.stmt(e.comm)
        return Part(i, index, e, conds, body)

    def _finish(self, part: Part, writer: ExprWriter) -> list[str]:
        body = list(part.body)
        body += [line for s in part.edge.effect for line in writer.stmt(s)]
        if part.edge.target != part.edge.source:
            body.append(f"{self.pc(part.instance)} = {part.edge.target}")
        return body

    def _options(self) -> list[Option]:
        system = self.system
        writers = [
            ExprWriter(self.scope(i, f"instance {self.label(i)}"))
            for i in range(len(self.instances))
        ]
        local: list[Option] = []
        by_event: dict[str, list[Part]] = {}
        sends: dict[str, list[Part]] = {}
        receives: dict[str, list[Part]] = {}
        dynamic: dict[int, bool] = {}
        for i, inst in enumerate(self.instances):
            process = system.process(inst.process)
            if self.mortal:
                local += self._deaths(i, process, writers[i])
            for index, e in enumerate(process.edges):
                name, is_dynamic = self._event_name(i, e)
                rendezvous = None
                if e.comm is not None:
                    found = self._channel_of(e.comm)
                    if found is None:
                        raise UnsupportedError.at(
                            e.comm.span or e.span,
                            "a channel operation on a channel variable (explicit-pc style)",
                        )
                    if found[1] == 0:
                        rendezvous = found[0]
                part = self._part(i, index, e, writers[i], rendezvous is None)
                if rendezvous is not None:
                    comm = e.comm
                    if isinstance(comm, Receive) and (comm.random or comm.peek):
                        raise UnsupportedError.at(comm.span, "?? or ?<> on a rendezvous channel")
                    (sends if isinstance(comm, Send) else receives).setdefault(
                        rendezvous, []
                    ).append(part)
                    dynamic[id(part)] = is_dynamic
                elif name is not None and not is_dynamic:
                    by_event.setdefault(name, []).append(part)
                else:
                    if is_dynamic and self._barrier_base(e.event.base if e.event else ""):
                        raise UnsupportedError.at(
                            e.span,
                            f"event '{e.event.base}' has state-dependent components and "
                            "may synchronise: it cannot be matched statically",
                        )
                    local.append(Option([part], name, is_dynamic))
        options = list(local)
        for name in sorted(by_event):
            for combo in self._combos(system.composition, name, by_event[name]):
                options.append(Option(list(combo), name, False))
        for ch in sorted(set(sends) | set(receives)):
            for s in sends.get(ch, []):
                for r in receives.get(ch, []):
                    if s.instance == r.instance:
                        continue
                    options.append(self._pair(s, r, writers, dynamic))
        self._hide(options)
        options.sort(key=lambda o: [(p.instance, p.edge_index) for p in o.parts])
        for o in options:
            if not o.body:
                body: list[str] = []
                for p in o.parts:
                    body += self._finish(p, writers[p.instance])
                o.body = body
        return options

    def _csp_atomicity(self, options: list[Option], defines: list[str]) -> None:
        """Set every option's condition: an instance at an atomic location with an
        enabled option excludes every other instance (the IR/CSP# rule of
        semantics/statespace.py)."""
        exclusive: dict[int, str] = {}
        for i, inst in enumerate(self.instances):
            process = self.system.process(inst.process)
            atomic = {loc.id for loc in process.locations if loc.atomic}
            mine = [o.raw for o in options
                    if any(p.instance == i and p.edge.source in atomic for p in o.parts)]
            if mine:
                exclusive[i] = " || ".join(f"({m})" for m in mine)
        for i in sorted(exclusive):
            defines.append(f"#define ax_{i} ({exclusive[i]})")
        for o in options:
            others = [
                f"!ax_{i}" for i in sorted(exclusive) if all(p.instance != i for p in o.parts)
            ]
            o.cond = " && ".join([f"({o.raw})", *others]) if others else o.raw

    def _promela_atomicity(
        self, options: list[Option], holders: list[int], defines: list[str]
    ) -> None:
        """Set every option's condition and exclusivity bookkeeping with Promela's rule,
        as the native engine (semantics/state.py, promela-spin.md section 5): the
        global ``excl`` holds the instance whose last step left it inside an atomic
        sequence (else ``none``); while that instance has an enabled option, only its
        options run; once it is blocked anyone may move, and it regains control only by
        moving itself. A rendezvous inside atomic passes control to the receiver."""
        none = len(self.instances)
        for i in holders:
            mine = [o.raw for o in options if any(p.instance == i for p in o.parts)]
            defines.append(f"#define ax_{i} ({' || '.join(f'({m})' for m in mine) or '0'})")
        defines.append("#define hx (" + " || ".join(
            f"((excl == {i}) && ax_{i})" for i in holders) + ")")
        for o in options:
            mine = [f"(excl == {p.instance})" for p in o.parts if p.instance in holders]
            o.cond = f"({o.raw}) && (!hx{''.join(' || ' + m for m in mine)})"
            holder = none
            p = o.parts[-1]  # a rendezvous passes control to the receiver (the last part)
            process = self.system.process(self.instances[p.instance].process)
            target = next((x for x in process.locations if x.id == p.edge.target), None)
            if target is not None and target.atomic:
                holder = p.instance
            o.body.append(f"excl = {holder}")
        self.excl = none

    def _deaths(self, i: int, process: Process, writer: ExprWriter) -> list[Option]:
        """Return the options in which instance ``i`` dies: from a terminal location,
        while every younger instance is not alive and its provided clause holds (the
        native engine's death step, SPIN's ``-end-``)."""
        out: list[Option] = []
        younger = [f"({self.pc(j)} == {self.none_pc(j)})" for j in range(i + 1, len(self.instances))]
        provided = [f"({writer.expr(process.provided)})"] if process.provided is not None else []
        for loc in process.locations:
            if not loc.terminal:
                continue
            edge = Edge(loc.id, self.none_pc(i), text="-end-", span=process.span)
            part = Part(i, -1, edge, [f"({self.pc(i)} == {loc.id})", *younger, *provided], [])
            out.append(Option([part], None, False))
        return out

    def _pair(self, s: Part, r: Part, writers: list[ExprWriter], dynamic: dict) -> Option:
        send, recv = s.edge.comm, r.edge.comm
        assert isinstance(send, Send) and isinstance(recv, Receive)
        if len(send.args) != len(recv.args):
            raise UnsupportedError.at(recv.span, "send and receive differ in the number of fields")
        values = [writers[s.instance].expr(a) for a in send.args]
        conds = s.conds + r.conds
        binds: list[str] = []
        for k, (value, arg) in enumerate(zip(values, recv.args, strict=True)):
            if isinstance(arg, RecvMatch):
                conds.append(f"({value} == {writers[r.instance].expr(arg.value)})")
            elif isinstance(arg, RecvBind) and arg.target is not None:
                target = writers[r.instance].expr(arg.target)
                if any(target in later for later in values[k + 1 :]):
                    raise UnsupportedError.at(
                        recv.span, "a receive target also read by a later field of the send"
                    )
                binds.append(f"{target} = {value}")
                binds += writers[r.instance].check_after(arg.target)
        body = binds + self._finish(s, writers[s.instance]) + self._finish(r, writers[r.instance])
        ev_s, dyn_s = self._event_name(s.instance, s.edge)
        ev_r, dyn_r = self._event_name(r.instance, r.edge)
        event, dyn = (ev_s, dyn_s) if ev_s is not None else (ev_r, dyn_r)
        option = Option([s, r], event, dyn)
        option.body = body
        s2 = Part(s.instance, s.edge_index, s.edge, conds, [])
        option.parts = [s2, r]
        return option

    def _hide(self, options: list[Option]) -> None:
        """Relabel as tau every option whose event is hidden by a ``Parallel`` node
        (``ir.Parallel.hidden``) that contains all of its instances (a barrier on a
        hidden event is joined at or below that node; a free step is its instance's)."""
        scopes: list[tuple[frozenset[str], frozenset[int]]] = []
        stack: list[Composition] = [self.system.composition] if self.system.composition else []
        while stack:
            node = stack.pop()
            if isinstance(node, InstanceRef):
                continue
            if isinstance(node, Parallel) and node.hidden:
                scopes.append((node.hidden, _instances_under(node)))
            stack.extend(node.children)
        if not scopes:
            return
        for o in options:
            if o.event is None:
                continue
            inside = {p.instance for p in o.parts}
            for hidden, members in scopes:
                if not inside <= members:
                    continue
                if o.dynamic_event and any(
                        n.split(".", 1)[0] == o.event.split(".", 1)[0] for n in hidden):
                    raise UnsupportedError.at(
                        o.parts[0].edge.span, "unsupported construct: hiding an event "
                        "whose components depend on the state")
                if not o.dynamic_event and o.event in hidden:
                    o.event = None
                    break

    def _barrier_base(self, base: str) -> bool:
        for alphabet in self._alphabets():
            for name in alphabet:
                if name == base or name.startswith(base + "."):
                    return True
        return False

    def _alphabets(self) -> list[frozenset[str]]:
        out: list[frozenset[str]] = []
        stack: list[Composition] = [self.system.composition] if self.system.composition else []
        while stack:
            node = stack.pop()
            if isinstance(node, Parallel):
                out.extend(node.alphabets)
                stack.extend(node.children)
            elif isinstance(node, Interleave):
                stack.extend(node.children)
        return out

    def _combos(
        self, node: Composition | None, event: str, parts: list[Part]
    ) -> list[tuple[Part, ...]]:
        """Return every way ``event`` can happen below ``node``: an interleaving offers any
        child's way; a Parallel node whose alphabets share ``event`` needs one way of
        every child that has it in its alphabet (the barrier), the others interleave.
        Recursive over the composition tree (its depth is the nesting of operators)."""
        if node is None:
            return [(p,) for p in parts]
        if isinstance(node, InstanceRef):
            return [(p,) for p in parts if p.instance == node.instance]
        if isinstance(node, Interleave):
            return [c for child in node.children for c in self._combos(child, event, parts)]
        having = [k for k, a in enumerate(node.alphabets) if event in a]
        if len(having) < 2:
            return [c for child in node.children for c in self._combos(child, event, parts)]
        product: list[tuple[Part, ...]] = [()]
        for k in having:
            ways = self._combos(node.children[k], event, parts)
            product = [done + way for done in product for way in ways]
        others = [
            c
            for k, child in enumerate(node.children)
            if k not in having
            for c in self._combos(child, event, parts)
        ]
        return product + others

    # -- emission ---------------------------------------------------------------------
    def emit(self) -> EmittedModel:
        system = self.system
        options = self._options()
        prop_events = [ev for p in self.properties for ev in events_in(ltl_property(p)[1])]
        premises_wanted = self.encoding == "premise" and (
            self.fairness is not Fairness.NONE or self.annotations
        )
        track = premises_wanted or bool(prop_events)
        reset = bool(prop_events)
        # Actions and their ids (sorted for determinism; 0 = idle, 1 = init).
        for o in options:
            if self.event_mode:
                o.action = (
                    o.event
                    if o.event is not None and not o.dynamic_event
                    else ("tau:" + "+".join(f"{p.instance}.{p.edge_index}" for p in o.parts))
                )
            else:
                p = o.parts[0]
                o.action = f"{self.label(p.instance)}:{'end' if p.edge_index < 0 else p.edge_index}"
            if track and o.dynamic_event and o.event is not None:
                raise UnsupportedError.at(
                    o.parts[0].edge.span,
                    f"event '{o.event}' has state-dependent components: no static id for 'last'",
                )
        actions = sorted({o.action for o in options})
        action_id = {a: k + 2 for k, a in enumerate(actions)}
        # Conditions: else guards, then atomic exclusivity.
        for o in options:
            o.raw = " && ".join(c for p in o.parts for c in p.conds)
        for o in options:
            for p in o.parts:
                if isinstance(p.edge.guard, ElseGuard):
                    siblings = [
                        q.raw
                        for q in options
                        if q is not o
                        and any(
                            pp.instance == p.instance and pp.edge.source == p.edge.source
                            for pp in q.parts
                        )
                    ]
                    if siblings:
                        o.raw += " && !(" + " || ".join(f"({s})" for s in siblings) + ")"
        defines: list[str] = []
        holders = [i for i, inst in enumerate(self.instances)
                   if any(loc.atomic for loc in system.process(inst.process).locations)]
        if self.mortal and holders:
            self._promela_atomicity(options, holders, defines)
        else:
            self._csp_atomicity(options, defines)
        # Bookkeeping assignments.
        process_bits = self.encoding == "premise" and self.fairness in (
            Fairness.PROCESS_WEAK,
            Fairness.PROCESS_STRONG,
        )
        for o in options:
            if track:
                o.body.append(f"last = {action_id[o.action]}")
            if process_bits:
                moved = {p.instance for p in o.parts}
                o.body += [f"mv_{i} = {int(i in moved)}" for i in range(len(self.instances))]
            o.body += [
                f"b_{sanitize(b)} = 0"
                for b in sorted(self.blocks)
                if any(lv.name == b for p in o.parts for lv in block_locals(p.edge.effect))
            ]
        if reset and any(
            isinstance(x, Builtin) and x.name == "timeout"
            for o in options
            for p in o.parts
            for x in (iter_subexpressions(p.edge.guard) if p.edge.guard else [])
        ):
            raise UnsupportedError.at(None, "'timeout' in a model whose property has event atoms")
        # Properties and premises.
        premise_pairs: list[tuple[str, str]] = []
        if premises_wanted:
            premise_pairs = self._premises(options, actions, action_id, defines)
        atoms: dict[str, str] = {}
        prop_writer = ExprWriter(self.scope(None, "ltl formula"))

        def atom(a: LtlState | LtlEvent) -> str:
            if isinstance(a, LtlEvent):
                if a.name == INIT_EVENT:
                    text = f"(last == {INIT_ID})"
                else:
                    ids = [action_id[o.action] for o in options if o.event == a.name]
                    ids = sorted(set(ids))
                    text = "(" + " || ".join(f"(last == {k})" for k in ids) + ")" if ids else "0"
            else:
                text = f"({prop_writer.expr(a.expr)})"
            if text not in atoms:
                name = atoms[text] = f"p_{len(atoms)}"
                if self.excl is None:
                    defines.append(f"#define {name} {text}")
                else:
                    # SPIN's claim does not step inside an atomic sequence while its
                    # holder can move (hx), but this scheduler's claim steps after every
                    # d_step: there the atom keeps the value it had in the last state
                    # the claim would read (s_ is set at the start of every step taken
                    # from such a state), so the claim reads that state again: a
                    # stutter, invisible to LTL without X.
                    # (no `c -> a : b`: SPIN's ltl parser reads `->` as implication)
                    defines.append(f"#define {name} ((hx && s_{name}) || (!hx && {text}))")
                    shadows.append((name, text))
            return atoms[text]

        shadows: list[tuple[str, str]] = []
        props = emit_properties(self.properties, Formulas(atom), premise_pairs)
        if shadows:
            capture = [f"s_{name} = (hx -> s_{name} : {text})"
                       for name, text in shadows]
            for o in options:
                o.body[:0] = capture
        # Declarations.
        gwriter = ExprWriter(self.scope(None, "global declarations"))
        globals_ = []
        for v in system.globals:
            declared = declare_type(v.type, v.span)
            globals_.append(
                declaration(
                    global_name(v.name), declared, initial_text(v.init, declared, gwriter), v.hidden
                )
            )
        channels = [
            f"chan {global_name(c.name)} = [{c.capacity}] of "
            f"{{ {', '.join(field_type(t, c.span) for t in c.fields)} }}"
            for c in system.channels
        ]
        instance_vars: list[str] = []
        for i, inst in enumerate(self.instances):
            process = system.process(inst.process)
            w = ExprWriter(self.scope(i, f"instance {self.label(i)}"))
            slot = i >= self.static_count  # started by a run: its values are set then
            start = self.none_pc(i) if slot else process.initial
            instance_vars.append(
                f"{'byte' if self.none_pc(i) < 256 else 'short'} {self.pc(i)} = {start}"
            )
            param_env = {p: a for p, a in zip(process.parameters, inst.arguments, strict=False)}
            if slot:
                param_env = {}
            local_names = {v.name for v in process.locals}
            for p in process.parameters:
                if p in local_names:
                    continue
                arg = param_env.get(p)
                value = fold(arg) if arg is not None else 0
                if value is None:
                    raise UnsupportedError.at(inst.span, f"argument for '{p}' is not a constant")
                instance_vars.append(f"int {self.local_name(i, p)} = {value}")
            for v in process.locals:
                declared = declare_type(v.type, v.span)
                init = v.init
                if v.name in param_env and init is None:
                    init = param_env[v.name]
                init_text = initial_text(init, declared, w)
                if init_text is not None and any(c.isalpha() for c in init_text.replace("{", "")):
                    folded = _fold_init(init, self._params(i))
                    # (a slot's scalar local is set by its run: _run_text)
                    if folded is None and not (slot and not isinstance(init, tuple)):
                        raise UnsupportedError.at(
                            v.span, f"initial value of local '{v.name}' is not a constant"
                        )
                    init_text = folded
                if slot and v.name in process.parameters:
                    init_text = None
                instance_vars.append(
                    declaration(self.local_name(i, v.name), declared, init_text, v.hidden)
                )
        if self.excl is not None:
            instance_vars.append(f"byte excl = {self.excl}")
            instance_vars += [f"bit s_{name}" for name, _text in shadows]
        for b, t in sorted(self.blocks.items()):
            instance_vars.append(declaration("b_" + sanitize(b), declare_type(t), None, True))
        if track:
            instance_vars.append(
                f"byte last = {INIT_ID}" if len(actions) < 250 else f"short last = {INIT_ID}"
            )
        if self.graph is not None and premises_wanted:
            instance_vars.append("byte stp = 0")
            instance_vars += self.sweep_vars
        if process_bits:
            instance_vars += [f"bit mv_{i}" for i in range(len(self.instances))]
        # Option texts with line tags.
        all_end = " && ".join(self._at_end(i) for i in range(len(self.instances))) or "1"
        rendered = []
        for o in options:
            first = o.parts[0]
            info = LineInfo(
                first.edge.span,
                o.event if not o.dynamic_event else None,
                " | ".join(p.edge.text for p in o.parts if p.edge.text) or o.action,
                True,
            )
            rendered.append(
                {
                    "action": o.action,
                    "text": f"d_step {{ ({o.cond}) -> {'; '.join(o.body) or 'skip'} }} {self.tag(info)}",
                }
            )
        groups: list[dict] = []
        if self.encoding == "action-process":
            for a in actions:
                groups.append(
                    {
                        "name": "a_" + sanitize(a)[:40] + f"_{action_id[a]}",
                        "action": a,
                        "options": [r["text"] for r in rendered if r["action"] == a],
                    }
                )
            if any(a.startswith("tau:") for a in actions):
                self.notes.append(
                    "action-process: each tau edge is its own process, so pan -f makes tau "
                    "steps weakly fair too (the native engine does not)"
                )
            self.notes.append(
                "pan -f may miss acceptance cycles made only of stuttering in a deadlocked "
                "state (SPIN issue #38; promela-spin.md section 13)"
            )
        processes = len(groups) + (1 if reset and self.encoding == "action-process" else 0)
        if self.encoding != "action-process":
            processes = 1
        if processes > SPIN_MAX_PROCESSES:
            raise UnsupportedError.at(
                None, f"the action-process encoding needs {processes} processes (one per "
                f"action); SPIN runs at most {SPIN_MAX_PROCESSES}")
        text, mapping = render_template(
            "promela_explicit.pml.j2",
            self.infos,
            model=system.name,
            source=", ".join(system.source_files),
            encoding=self.encoding,
            fairness=self.fairness.value,
            actions=[(action_id[a], a) for a in actions],
            globals=globals_,
            channels=channels,
            instance_vars=instance_vars,
            defines=defines,
            scheduler=[r["text"] for r in rendered] if self.encoding != "action-process" else [],
            groups=groups,
            reset=reset,
            all_end=all_end,
            ltl=[(p.ltl_name, p.spin_formula) for p in props if p.ltl_name and p.check == "ltl"]
            if self.ltl_blocks
            else [],
        )
        instances = (
            {0: "scheduler"}
            if self.encoding != "action-process"
            else {k: g["action"] for k, g in enumerate(groups)}
        )
        hidden = frozenset(
            {
                "last",
                "excl",
                "stp",
                "wr",
                *(f"sw_{b}" for b in range(len(self.sweep_vars))),
                *(f"mv_{i}" for i in range(len(self.instances))),
            }
        )
        return EmittedModel(
            text,
            SourceMap(mapping, instances, hidden),
            self.encoding,
            "explicit-pc",
            self.fairness,
            tuple(props),
            tuple(actions),
            processes,
            tuple(self.notes),
        )

def _fold_init(init: Expr | tuple[Expr, ...] | None, env: Mapping[str, int]) -> str | None:
    if init is None:
        return None
    if isinstance(init, tuple):
        values = [fold(v, env) for v in init]
        if any(v is None for v in values):
            return None
        return "{" + ", ".join(str(v) for v in values) + "}"
    value = fold(init, env)
    return None if value is None else str(value)


def _instances_under(node: Composition) -> frozenset[int]:
    """Return the instance ids of the composition ``node``."""
    out: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, InstanceRef):
            out.add(n.instance)
        else:
            stack.extend(n.children)
    return frozenset(out)
