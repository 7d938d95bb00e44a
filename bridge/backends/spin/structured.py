"""The structured style of the Promela emitter: one proctype per process,
locations as labelled ``if``s (``emit.py``'s module docstring)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from bridge.backends.spin.emitted import (
    EmittedModel,
    EmittedProperty,
    Formulas,
    instance_label,
    ltl_property,
    render_template,
)
from bridge.backends.spin.layout import BodyWriter
from bridge.backends.spin.promela_text import (
    Declared,
    ExprWriter,
    Scope,
    array_element,
    block_locals,
    declaration,
    declare_type,
    fold,
    global_name,
    has_statement,
    sanitize,
)
from bridge.backends.spin.trail import LineInfo, SourceMap
from bridge.diagnostics import Span, UnsupportedError
from bridge.ir.expr import (
    Binary,
    ElseGuard,
    Expr,
    Receive,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    Stmt,
    Var,
)
from bridge.ir.model import (
    Channel,
    Edge,
    Instance,
    Process,
    TransitionSystem,
)
from bridge.ir.property import (
    Fairness,
    LtlEvent,
    LtlState,
    Property,
)
from bridge.ir.types import Type

# ---------------------------------------------------------------------------------
# Structured style


class StructuredEmitter:
    """One proctype per process; locations are labelled ``if``s (see module doc)."""

    def __init__(
        self, system: TransitionSystem, properties: Sequence[Property], ltl_blocks: bool
    ) -> None:
        self.system = system
        self.properties = properties
        self.ltl_blocks = ltl_blocks
        self.infos: list[LineInfo] = []
        self.globals_: dict[str, Type] = {v.name: v.type for v in system.globals}
        self.channels = {c.name: i + 1 for i, c in enumerate(system.channels)}
        self.names: dict[str, str] = {}
        self.provided: Expr | None = None  # the clause of the proctype being written

    def tag(self, info: LineInfo) -> str:
        self.infos.append(info)
        return f"/*@{len(self.infos) - 1}*/"

    def emit(self) -> EmittedModel:
        system = self.system
        global_scope = self._scope(None, "global declarations")
        writer = ExprWriter(global_scope)
        globals_ = [
            self._declare(v.name, v.type, v.init, writer, v.hidden, v.span, global_name)
            for v in system.globals
        ]
        channels = [self._channel(c, writer, global_name(c.name)) for c in system.channels]
        proctypes = self._proctypes()
        claim = self._claim()
        defines, props = self._properties()
        if system.never is not None:
            props = [dataclasses.replace(p, ltl_name=system.never.name) if p.check == "never"
                     else p for p in props]
        text, mapping = render_template(
            "promela_structured.pml.j2",
            self.infos,
            model=system.name,
            source=", ".join(system.source_files),
            globals=globals_,
            channels=channels,
            proctypes=proctypes,
            defines=defines,
            ltl=[(p.ltl_name, p.spin_formula) for p in props if p.ltl_name and p.check == "ltl"]
            if self.ltl_blocks
            else [],
            claim=claim,
        )
        instances = {i: instance_label(system, i) for i in range(len(system.instances))}
        hidden = frozenset()
        return EmittedModel(
            text,
            SourceMap(mapping, instances, hidden),
            "plain",
            "structured",
            Fairness.NONE,
            tuple(props),
            # initial instances plus one per textual run (a run in a loop may start
            # more: pan then stops with "too many processes", never a wrong verdict)
            processes=len(system.instances) + sum(
                1 for p in system.processes for e in p.edges
                for st in all_stmts(e.effect) if isinstance(st, Run)),
        )

    def _claim(self) -> dict | None:
        """Return the model's never claim for the template (None if it has none): the
        same body layout as a proctype, over globals and remote references."""
        never = self.system.never
        if never is None:
            return None
        if never.locals or never.channels:
            raise UnsupportedError.at(never.span, "a never claim with local declarations")
        writer = ExprWriter(self._scope(never, "the never claim"))
        name = "" if never.name == "never_0" else sanitize(never.name)
        return {"name": name, "body": self._body(never, writer)}

    # -- declarations -----------------------------------------------------------
    def _declare(
        self,
        name: str,
        t: Type,
        init: Expr | tuple[Expr, ...] | None,
        writer: ExprWriter,
        hidden: bool,
        span: Span | None,
        namer: Callable[[str], str],
    ) -> str:
        declared = declare_type(t, span)
        return declaration(namer(name), declared, initial_text(init, declared, writer), hidden)

    def _channel(self, c, writer: ExprWriter, name: str) -> str:  # noqa: ANN001
        fields = ", ".join(field_type(t, c.span) for t in c.fields)
        return f"chan {name} = [{c.capacity}] of {{ {fields} }}"

    def _scope(self, process: Process | None, where: str) -> Scope:
        local_types: dict[str, Type] = {}
        if process is not None:
            local_types = {v.name: v.type for v in process.locals}
        system = self.system
        arrays = _channel_arrays(process) if process is not None else {}

        def local(name: str) -> str:
            element = array_element(name)
            if element is not None and element[0] in arrays:
                return f"l_{sanitize(element[0])}[{element[1]}]"
            return "l_" + sanitize(name)

        def channel_array(base: str, length: int) -> str | None:
            return f"l_{sanitize(base)}" if arrays.get(base) == length else None

        def remote_label(e: RemoteLabel) -> str:
            target = system.process(e.proctype)
            pid = "" if e.pid is None else f"[{ExprWriter(scope).expr(e.pid)}]"
            label = self._label_names(target).get(e.label, sanitize(e.label))
            return f"({self._proctype_name(e.proctype, e.pid, e.span)}{pid}@{label})"

        def remote_var(e: RemoteVar, render: Callable[[Expr], str]) -> str:
            pid = "" if e.pid is None else f"[{render(e.pid)}]"
            return f"{self._proctype_name(e.proctype, e.pid, e.span)}{pid}:l_{sanitize(e.name)}"

        scope = Scope(
            self.globals_,
            self.channels,
            local=local if process is not None else None,
            local_type=local_types.get,
            remote_label=remote_label,
            remote_var=remote_var,
            where=where,
            channel_array=channel_array,
        )
        return scope

    def _proctype_name(self, proctype: str, pid: Expr | None, span: Span | None) -> str:
        copies = [
            i
            for i, inst in enumerate(self.system.instances)
            if inst.process == proctype and inst.arguments
        ]
        if not copies:
            return sanitize(proctype)
        value = fold(pid) if pid is not None else (copies[0] if len(copies) == 1 else None)
        if value is None or value not in copies:
            raise UnsupportedError.at(
                span,
                f"remote reference to '{proctype}' with a non-constant pid: its "
                "instances are emitted as separate proctypes",
            )
        return f"{sanitize(proctype)}_{value}"

    def _label_names(self, process: Process) -> dict[str, str]:
        out: dict[str, str] = {}
        for loc in process.locations:
            for label in loc.labels:
                out[label] = sanitize(label)
        return out

    # -- proctypes --------------------------------------------------------------
    def _proctypes(self) -> list[dict]:
        system = self.system
        run_targets = {
            s.proctype
            for p in system.processes
            for e in p.edges
            for s in all_stmts(e.effect)
            if isinstance(s, Run)
        }
        out: list[dict] = []
        emitted: set[str] = set()
        # Active declarations in instance order, so pids equal instance ids.
        i = 0
        instances = system.instances
        while i < len(instances):
            inst = instances[i]
            process = system.process(inst.process)
            if inst.arguments:
                out.append(self._proctype(process, f"{sanitize(process.name)}_{i}", 1, inst,
                                          inst.priority))
                i += 1
                continue
            j = i
            while (
                j < len(instances)
                and instances[j].process == inst.process
                and not instances[j].arguments
                and instances[j].priority == inst.priority
            ):
                j += 1
            if process.name in emitted:
                raise UnsupportedError.at(
                    inst.span,
                    f"instances of '{process.name}' are not consecutive: SPIN "
                    "numbers active processes in declaration order",
                )
            emitted.add(process.name)
            out.append(self._proctype(process, sanitize(process.name), j - i, None,
                                      inst.priority))
            i = j
        for process in system.processes:
            if process.name in run_targets and process.name not in emitted:
                emitted.add(process.name)
                out.append(self._proctype(process, sanitize(process.name), 0, None))
        return out

    def _proctype(
        self, process: Process, name: str, active: int, instance: Instance | None,
        priority: int = 1,
    ) -> dict:
        scope = self._scope(process, f"process {process.name}")
        writer = ExprWriter(scope)
        local_names = {v.name for v in process.locals}
        params: list[str] = []
        locals_: list[str] = []
        param_types = {v.name: v.type for v in process.locals}
        if instance is None:
            for p in process.parameters:
                t = param_types.get(p)
                base = declare_type(t, process.span).base if t is not None else "int"
                params.append(f"{base} l_{sanitize(p)}")
        else:
            global_writer = ExprWriter(self._scope(None, f"arguments of {name}"))
            for p, arg in zip(process.parameters, instance.arguments, strict=True):
                t = param_types.get(p)
                declared = (
                    declare_type(t, process.span) if t is not None else Declared("int", None, ())
                )
                locals_.append(declaration(f"l_{sanitize(p)}", declared, global_writer.expr(arg)))
        for v in process.locals:
            if v.name in process.parameters:
                continue
            declared = declare_type(v.type, v.span)
            locals_.append(
                declaration(
                    "l_" + sanitize(v.name),
                    declared,
                    initial_text(v.init, declared, writer),
                    v.hidden,
                )
            )
        arrays = _channel_arrays(process)
        for c in process.channels:
            element = array_element(c.name)
            if element is None or element[0] not in arrays:
                locals_.append(self._channel(c, writer, "l_" + sanitize(c.name)))
            elif element[1] == 0:
                array_name = f"l_{sanitize(element[0])}[{arrays[element[0]]}]"
                locals_.append(self._channel(c, writer, array_name))
        blocks: dict[str, Type] = {}
        for e in process.edges:
            for lv in block_locals(e.effect):
                blocks.setdefault(lv.name, lv.type)
        for bname, btype in sorted(blocks.items()):
            locals_.append(declaration("b_" + sanitize(bname), declare_type(btype), None))
        scope.block = {b: "b_" + sanitize(b) for b in blocks}
        scope.block_types = dict(blocks)
        for assertion in process.channel_assertions:
            locals_.append(f"{assertion.kind} {writer.channel(assertion.channel)}")
        del local_names
        # The clause goes on the proctype (it also guards the instance's removal); the
        # conjunct the front-end added to every guard is left out again (_edge).
        self.provided = process.provided
        body = self._body(process, writer)
        self.provided = None
        return {
            "provided": writer.expr(process.provided) if process.provided is not None else "",
            "body": body,
            "name": name,
            "init": process.name in ("init", ":init:"),
            "active": active,
            "params": "; ".join(params),
            "locals": locals_,
            # SPIN: 'priority N' on an active proctype or init (a run gives its own)
            "priority": priority if priority != 1 and (active or instance is not None
                                                      or process.name == ":init:") else None,
        }

    def _location_labels(self, process: Process, lid: int) -> list[str]:
        loc = next(x for x in process.locations if x.id == lid)
        # A label the front-end kept at several locations (one per inline expansion or
        # block, SPIN 6 scopes labels to blocks) is emitted once per location, renamed
        # apart after its first occurrence (the prefix end/progress/accept is kept).
        earlier = {lab for x in process.locations if x.id < lid for lab in x.labels}
        labels = [sanitize(lab) + (f"_L{lid}" if lab in earlier else "") for lab in loc.labels]
        labels.append(f"L{lid}")
        if loc.end and not any(lab.startswith("end") for lab in labels):
            labels.insert(0, f"end_L{lid}")
        if loc.progress and not any(lab.startswith("progress") for lab in labels):
            labels.insert(0, f"progress_L{lid}")
        if loc.accept and not any(lab.startswith("accept") for lab in labels):
            labels.insert(0, f"accept_L{lid}")
        return labels

    def _body(self, process: Process, writer: ExprWriter) -> list[str]:
        """Return the body lines of a process (``layout.py`` has the rules)."""

        def tag(e: Edge, text: str) -> str:
            event = e.event.base if e.event and not e.event.components else e.label
            return self.tag(LineInfo(e.span, event, e.text or text, True))

        return BodyWriter(
            edge_text=lambda e: self._edge(e, writer),
            tag=tag,
            labels=lambda lid: self._location_labels(process, lid),
        ).body(process)

    def _edge(self, e: Edge, writer: ExprWriter) -> str:
        parts: list[str] = []
        guard_text = None
        guard = _without_conjunct(e.guard, self.provided)
        if isinstance(guard, ElseGuard):
            guard_text = "else"
        elif guard is not None:
            guard_text = f"({writer.expr(guard)})"
        comm_text = writer.stmt(e.comm)[0] if e.comm is not None else None
        effects = [line for s in e.effect for line in writer.stmt(s)]
        blocking = has_statement(e.effect, (Send, Receive, Run))
        if comm_text is None and not effects:
            return guard_text or "skip"
        if guard_text is None and comm_text is None and len(effects) == 1 and blocking is None:
            return effects[0]
        if guard_text is None and comm_text is not None and not effects:
            return comm_text
        if comm_text is not None:
            if guard_text is not None and guard_text != "else":
                if self._rendezvous(e.comm):
                    raise UnsupportedError.at(
                        e.span, "a guarded rendezvous cannot be emitted as one Promela step"
                    )
                enable = self._enabling(e.comm, writer)
                guard_text = f"({guard_text} && {enable})"
            parts = [p for p in (guard_text, comm_text) if p] + effects
            head = parts[0] if guard_text != "else" else "else"
            rest = parts[1:]
            return f"atomic {{ {head} -> {'; '.join(rest)} }}" if rest else head
        if guard_text == "else":
            return "else -> " + (
                "atomic { " + "; ".join(effects) + " }"
                if blocking
                else "d_step { " + "; ".join(effects) + " }"
            )
        if blocking is not None:
            head = guard_text or "true"
            return f"atomic {{ {head} -> {'; '.join(effects)} }}"
        if guard_text is None:
            return "d_step { " + "; ".join(effects) + " }"
        return f"d_step {{ {guard_text} -> {'; '.join(effects)} }}"

    def _rendezvous(self, comm: Send | Receive | None) -> bool:
        if comm is None:
            return False
        ch = comm.channel
        if isinstance(ch, Var) and ch.scope == "global" and ch.name in self.channels:
            return self.system.channels[self.channels[ch.name] - 1].capacity == 0
        return True  # unknown at emission time: treat as possibly rendezvous

    def _enabling(self, comm: Send | Receive, writer: ExprWriter) -> str:
        ch = writer.expr(comm.channel)
        if isinstance(comm, Send):
            return f"nfull({ch})"
        mark = "??" if comm.random else "?"
        return f"{ch}{mark}[{writer.recv_args(comm.args, poll=True)}]"

    # -- properties ---------------------------------------------------------------
    def _properties(self) -> tuple[list[str], list[EmittedProperty]]:
        defines: list[str] = []
        atoms: dict[str, str] = {}
        writer = ExprWriter(self._scope(None, "ltl formula"))

        def atom(a: LtlState | LtlEvent) -> str:
            if isinstance(a, LtlEvent):
                raise UnsupportedError.at(
                    a.span, f"event '{a.name}' in a formula needs the explicit-pc style"
                )
            text = writer.expr(a.expr)
            if text not in atoms:
                atoms[text] = f"p_{len(atoms)}"
                defines.append(f"#define {atoms[text]} {text}")
            return atoms[text]

        return defines, emit_properties(self.properties, Formulas(atom), ())


def emit_properties(
    properties: Sequence[Property], formulas: Formulas, premises: Sequence[tuple[str, str]]
) -> list[EmittedProperty]:
    out: list[EmittedProperty] = []
    for index, p in enumerate(properties):
        check, formula, negated = ltl_property(p)
        name = f"ltl_{index}_{sanitize(p.name)}"[:60]
        if check != "ltl" or formula is None:
            out.append(EmittedProperty(p.name, p.number, check))
            continue
        spin_phi, spot_phi = formulas.both(formula)
        if premises:
            spin_pre = " && ".join(s for s, _ in premises)
            spot_pre = " & ".join(t for _, t in premises)
            spin_text = f"({spin_pre}) -> ({spin_phi})"
            spot_text = f"({spot_pre}) -> ({spot_phi})"
        else:
            spin_text, spot_text = spin_phi, spot_phi
        out.append(
            EmittedProperty(
                p.name, p.number, "ltl", name, spin_text, spot_text, len(premises), negated
            )
        )
    return out


def initial_text(
    init: Expr | tuple[Expr, ...] | None, declared: Declared, writer: ExprWriter
) -> str | None:
    if init is None:
        return None
    if isinstance(init, tuple):
        values = [writer.expr(v) for v in init]
        if len(set(values)) == 1:
            return values[0]
        return "{" + ", ".join(values) + "}"
    return writer.expr(init)


def field_type(t: Type, span: Span | None) -> str:
    declared = declare_type(t, span)
    if declared.length is not None or declared.bits is not None:
        raise UnsupportedError.at(span, "array or unsigned message fields cannot be emitted")
    return declared.base


def _channel_arrays(process: Process) -> dict[str, int]:
    """Return the process-local channel arrays of ``process``, base name -> length: the
    channels named ``base[0]`` .. ``base[n-1]``, all of one capacity and message type
    (the Promela front-end's form of ``chan base[n] = ...``), written back as one array
    so that a computed index ``base[i]`` has a Promela form."""
    groups: dict[str, list[Channel]] = {}
    for c in process.channels:
        element = array_element(c.name)
        if element is not None:
            groups.setdefault(element[0], []).append(c)
    out: dict[str, int] = {}
    for base, members in groups.items():
        names = [c.name for c in members]
        if (names == [f"{base}[{k}]" for k in range(len(members))]
                and len({(c.capacity, c.fields) for c in members}) == 1):
            out[base] = len(members)
    return out


def _without_conjunct(guard: Expr | None, conjunct: Expr | None) -> Expr | None:
    """Return ``guard`` without the trailing ``&& conjunct`` the Promela front-end adds
    for a ``provided`` clause (``guard`` itself if it has no such conjunct)."""
    if conjunct is None or guard is None:
        return guard
    if guard == conjunct:
        return None
    if isinstance(guard, Binary) and guard.op == "&&" and guard.right == conjunct:
        return guard.left
    return guard


def _outgoing(process: Process, lid: int) -> list[tuple[int, Edge]]:
    return [(i, e) for i, e in enumerate(process.edges) if e.source == lid]


def all_stmts(stmts: tuple[Stmt, ...]) -> list[Stmt]:
    from bridge.ir.expr import If, While

    out: list[Stmt] = []
    work = [stmts]
    while work:
        for s in work.pop():
            out.append(s)
            if isinstance(s, If):
                work.extend(b for _, b in s.branches)
                work.append(s.otherwise)
            elif isinstance(s, While):
                work.append(s.body)
    return out


