"""Emit CSP# (PAT 3.5) from the IR of a Promela model: ``emit_csp`` returns the text.

One CSP# process per control location of each instance (``P0_L3() = [g] e{...} ->
P0_L4() [] ...;``), locals as globals ``i<i>_x``, the instances interleaved (``|||``);
each edge is one event ``<process>_<instance>_e<edge>`` whose block carries its
effects, so one IR step is one PAT step and the reachable behaviour is the same. A
buffered or rendezvous channel becomes ``channel c k;`` with ``c!v{...}`` and
``c?m0{x = m0; ...}``. Promela's C remainder ``%`` is written ``a - (a / b) * b`` (PAT's
``%`` is a non-negative modulo, cspsharp.md section 4); stores into ``byte``/``short``/
``bit``/``unsigned`` wrap explicitly. ``assert(c)`` sets the hidden flag
``bridge_failed``; the safety check is then ``reaches bridge_assertion_failed``, which
PAT reports *valid* exactly when an assertion can fail (the comment in the output says
so).

Constructs CSP# lacks are refused with ``UnsupportedError`` naming the construct and its
source position: atomic sequences, ``run``, ``timeout``, ``_last``, ``_nr_pr``,
``np_``, channel variables, sorted send, random or peeking receive, polls, channel
queries, conditional expressions and Boolean values used as numbers, remote variable
references, ``else`` next to channel operations.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.backends.spin.promela_text import fold, sanitize
from bridge.diagnostics import Span, UnsupportedError
from bridge.ir.expr import (
    AssertStmt,
    Assign,
    Binary,
    Builtin,
    ChanPoll,
    ChanQuery,
    Conditional,
    Const,
    ElseGuard,
    Enabled,
    Expr,
    If,
    Index,
    LocalVar,
    Print,
    Receive,
    RecvBind,
    RecvMatch,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    Stmt,
    Unary,
    Var,
    While,
    iter_subexpressions,
)
from bridge.ir.model import (
    Composition,
    Edge,
    InstanceRef,
    Interleave,
    Parallel,
    Process,
    TransitionSystem,
)
from bridge.ir.property import (
    Ltl,
    LtlBinary,
    LtlConst,
    LtlEvent,
    LtlState,
    LtlUnary,
    Property,
    PropertyKind,
)
from bridge.ir.types import ArrayType, BoolType, IntType, Overflow, Type

_BOOLEAN_OPS = frozenset({"&&", "||", "xor", "==", "!=", "<", "<=", ">", ">="})
_WRAP = {"byte": (0, 256), "bit": (0, 2), "short": (-(2**15), 2**16), "pid": (0, 256)}


def _instances(node: Composition) -> list[int]:
    """Return the instance ids below a composition node, left to right."""
    out: list[int] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, InstanceRef):
            out.append(n.instance)
        elif isinstance(n, Interleave | Parallel):
            stack.extend(reversed(n.children))
    return out


def _refuse(span: Span | None, construct: str) -> UnsupportedError:
    return UnsupportedError.at(span, f"CSP# has no equivalent of {construct}")


class _Writer:
    """Expressions and statements of one instance (``instance`` None: global scope)."""

    def __init__(self, emitter: _CspEmitter, instance: int | None) -> None:
        self.emitter = emitter
        self.instance = instance

    def name(self, v: Var) -> str:
        if v.scope == "global":
            if v.name in self.emitter.channels:
                raise _refuse(v.span, f"the channel '{v.name}' used as a value")
            return "g_" + sanitize(v.name)
        if v.scope == "block":
            return "b_" + sanitize(v.name)
        if self.instance is None:
            raise UnsupportedError.at(v.span, f"local '{v.name}' outside its process")
        return f"i{self.instance}_{sanitize(v.name)}"

    def type_of(self, e: Expr) -> Type | None:
        if isinstance(e, Var):
            if e.scope == "global":
                return self.emitter.global_types.get(e.name)
            if self.instance is not None:
                return self.emitter.local_types.get((self.instance, e.name))
            return None
        if isinstance(e, Index):
            t = self.type_of(e.base)
            return t.element if isinstance(t, ArrayType) else None
        return None

    def is_bool(self, e: Expr) -> bool:
        if isinstance(e, Binary):
            return e.op in _BOOLEAN_OPS
        if isinstance(e, Unary):
            return e.op == "!"
        if isinstance(e, Const):
            return isinstance(e.value, bool)
        if isinstance(e, RemoteLabel):
            return True
        return isinstance(self.type_of(e), BoolType)

    def cond(self, e: Expr) -> str:
        """Return ``e`` as a CSP# Boolean."""
        text = self.expr(e)
        return text if self.is_bool(e) else f"({text} != 0)"

    def num(self, e: Expr) -> str:
        """Return ``e`` as a CSP# integer (a Boolean there has no numeric form)."""
        if self.is_bool(e) and not isinstance(self.type_of(e), BoolType):
            raise _refuse(e.span, "a Boolean value used as a number")
        return self.expr(e)

    def expr(self, e: Expr) -> str:
        if isinstance(e, Const):
            if isinstance(e.value, bool):
                return "true" if e.value else "false"
            return str(e.value) if e.value >= 0 else f"({e.value})"
        if isinstance(e, Var):
            return self.name(e)
        if isinstance(e, Index):
            base, indices = e, []
            while isinstance(base, Index):
                indices.append(base.index)
                base = base.base
            if not isinstance(base, Var):
                raise _refuse(e.span, "indexing this expression")
            return self.name(base) + "".join(f"[{self.num(i)}]" for i in reversed(indices))
        if isinstance(e, Unary):
            if e.op == "!":
                return f"!({self.cond(e.operand)})"
            if e.op == "-":
                return f"(-{self.num(e.operand)})"
            raise _refuse(e.span, f"the operator '{e.op}'")
        if isinstance(e, Binary):
            if e.op in ("&&", "||"):
                return f"({self.cond(e.left)} {e.op} {self.cond(e.right)})"
            if e.op == "xor":
                return f"({self.cond(e.left)} != {self.cond(e.right)})"
            if e.op in ("==", "!=") and self.is_bool(e.left) and self.is_bool(e.right):
                return f"({self.cond(e.left)} {e.op} {self.cond(e.right)})"
            a, b = self.num(e.left), self.num(e.right)
            if e.op == "%":
                return f"({a} - ({a} / {b}) * {b})"
            if e.op == "mod":
                return f"({a} % {b})"
            if e.op in ("<<", ">>", "&", "|", "^"):
                raise _refuse(e.span, f"the bitwise operator '{e.op}' on integers")
            return f"({a} {e.op} {b})"
        if isinstance(e, Conditional):
            raise _refuse(e.span, "the conditional expression (c -> a : b)")
        if isinstance(e, ChanQuery | ChanPoll):
            raise _refuse(e.span, "a channel query or poll in an expression")
        if isinstance(e, RemoteVar):
            raise _refuse(e.span, f"the remote reference {e.proctype}:{e.name}")
        if isinstance(e, RemoteLabel):
            return self.emitter.remote_label(e)
        if isinstance(e, Builtin):
            if e.name == "_pid" and self.instance is not None:
                return str(self.instance)
            raise _refuse(e.span, f"'{e.name}'")
        if isinstance(e, ElseGuard):
            raise _refuse(e.span, "'else' here")
        if isinstance(e, Enabled):
            raise _refuse(e.span, "Promela's enabled()")
        raise _refuse(getattr(e, "span", None), type(e).__name__)

    def store(self, target: Expr, value: str, span: Span | None) -> list[str]:
        t = self.type_of(target)
        text = self.expr(target)
        if isinstance(t, IntType) and t.overflow is Overflow.WRAP:
            if t.name in _WRAP:
                lo, size = _WRAP[t.name]
                value = f"{value} % {size}" if lo == 0 else f"(({value} - ({lo})) % {size}) + ({lo})"
            elif t.name.startswith("unsigned:"):
                value = f"{value} % {2 ** int(t.name.split(':')[1])}"
        return [f"{text} = {value};"]

    def stmt(self, s: Stmt) -> list[str]:
        if isinstance(s, Assign):
            t = self.type_of(s.target)
            if isinstance(t, BoolType) or not self.is_bool(s.value):
                value = self.cond(s.value) if isinstance(t, BoolType) else self.num(s.value)
                return self.store(s.target, value, s.span)
            target = self.expr(s.target)
            return [f"if ({self.cond(s.value)}) {{ {target} = 1; }} else {{ {target} = 0; }}"]
        if isinstance(s, If):
            out = ""
            for k, (c, body) in enumerate(s.branches):
                out += ("if" if k == 0 else " else if") + f" ({self.cond(c)}) {{ {self.block(body)} }}"
            if s.otherwise:
                out += f" else {{ {self.block(s.otherwise)} }}"
            return [out]
        if isinstance(s, While):
            return [f"while ({self.cond(s.cond)}) {{ {self.block(s.body)} }}"]
        if isinstance(s, LocalVar):
            init = "0" if s.init is None or isinstance(s.init, tuple) else self.num(s.init)
            if isinstance(s.init, tuple):
                raise _refuse(s.span, "an array block variable")
            return [f"var b_{sanitize(s.name)} = {init};"]
        if isinstance(s, AssertStmt):
            self.emitter.uses_assert = True
            return [f"if (!({self.cond(s.cond)})) {{ bridge_failed = 1; }}"]
        if isinstance(s, Print):
            return []
        if isinstance(s, Run):
            raise _refuse(s.span, f"'run {s.proctype}' (dynamic process creation)")
        if isinstance(s, Send | Receive):
            raise _refuse(s.span, "a channel operation inside d_step/atomic")
        raise _refuse(None, type(s).__name__)

    def block(self, body: Sequence[Stmt]) -> str:
        return " ".join(line for s in body for line in self.stmt(s))


class _CspEmitter:
    def __init__(self, system: TransitionSystem) -> None:
        self.system = system
        self.channels = {c.name: c for c in system.channels}
        self.global_types = {v.name: v.type for v in system.globals}
        self.local_types: dict[tuple[int, str], Type] = {}
        self.uses_assert = False
        self.needs_pc: set[int] = set()
        for i, inst in enumerate(system.instances):
            process = system.process(inst.process)
            for v in process.locals:
                self.local_types[(i, v.name)] = v.type

    def remote_label(self, e: RemoteLabel) -> str:
        ids = [i for i, inst in enumerate(self.system.instances) if inst.process == e.proctype]
        value = fold(e.pid) if e.pid is not None else (ids[0] if len(ids) == 1 else None)
        if value is None or value not in ids:
            raise _refuse(e.span, f"the remote reference {e.proctype}[...]@{e.label} "
                          "with a pid that is not a constant")
        self.needs_pc.add(value)
        process = self.system.process(e.proctype)
        locs = [loc.id for loc in process.locations if e.label in loc.labels]
        return "(" + " || ".join(f"pc{value} == {lid}" for lid in locs) + ")" if locs else "false"

    def check(self) -> None:
        if self.system.priority_scheduling:
            raise _refuse(self.system.processes[0].span if self.system.processes else None,
                          "Promela's process priorities")
        for process in self.system.processes:
            if process.channel_assertions:
                first = process.channel_assertions[0]
                raise _refuse(first.span, f"the channel assertion '{first.kind}'")
        stack = [self.system.composition] if self.system.composition is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, Parallel):
                # the emitted events are per edge (renamed), so no barrier would sync
                first = next((i for i in _instances(node)), None)
                span = self.system.instances[first].span if first is not None else None
                raise UnsupportedError.at(
                    span, "the alphabetised parallel composition '||' (barrier "
                    "synchronisation) is not written back: translate the original model")
            if isinstance(node, Interleave):
                stack.extend(node.children)
        for i, inst in enumerate(self.system.instances):
            process = self.system.process(inst.process)
            if process.channels:
                raise _refuse(process.channels[0].span, "a process-local channel")
            for loc in process.locations:
                if loc.atomic:
                    raise _refuse(loc.span or process.span,
                                  f"the atomic sequence in {process.name} (location {loc.id})")
            del i

    def declarations(self) -> list[str]:
        out: list[str] = []
        w = _Writer(self, None)
        for v in self.system.globals:
            out.append(self._var("g_" + sanitize(v.name), v.type, v.init, w, v.hidden, v.span))
        for c in self.system.channels:
            out.append(f"channel g_{sanitize(c.name)} {c.capacity};")
        for i, inst in enumerate(self.system.instances):
            process = self.system.process(inst.process)
            args = dict(zip(process.parameters, inst.arguments, strict=False))
            names = {v.name for v in process.locals}
            for p in process.parameters:
                if p not in names:
                    value = fold(args[p]) if p in args else 0
                    if value is None:
                        raise _refuse(inst.span, f"the non-constant argument of '{p}'")
                    out.append(f"var i{i}_{sanitize(p)} = {value};")
            for v in process.locals:
                init = v.init if v.init is not None or v.name not in args else args[v.name]
                out.append(self._var(f"i{i}_{sanitize(v.name)}", v.type, init,
                                     _Writer(self, i), v.hidden, v.span))
        return out

    def _var(self, name: str, t: Type, init, w: _Writer, hidden: bool,  # noqa: ANN001
             span: Span | None) -> str:
        keyword = "hvar" if hidden else "var"
        if isinstance(t, ArrayType):
            dims = []
            inner: Type = t
            while isinstance(inner, ArrayType):
                dims.append(inner.length)
                inner = inner.element
            size = "".join(f"[{d}]" for d in dims)
            if init is None:
                return f"{keyword} {name}{size};"
            values = init if isinstance(init, tuple) else (init,) * _product(dims)
            return f"{keyword} {name}{size} = [{', '.join(_const(v, span) for v in values)}];"
        if init is None:
            return f"{keyword} {name} = {'false' if isinstance(t, BoolType) else '0'};"
        if isinstance(init, tuple):
            raise _refuse(span, "an array initialiser for a scalar")
        return f"{keyword} {name} = {_const(init, span, isinstance(t, BoolType))};"

    def processes(self) -> tuple[list[str], list[str]]:
        out: list[str] = []
        roots: list[str] = []
        for i, inst in enumerate(self.system.instances):
            process = self.system.process(inst.process)
            w = _Writer(self, i)
            prefix = f"{sanitize(process.name)}{i}"
            roots.append(f"{prefix}_L{process.initial}()")
            for loc in process.locations:
                options = [self._edge(prefix, i, k, e, process, w)
                           for k, e in enumerate(process.edges) if e.source == loc.id]
                if options:
                    body = " [] ".join(options)
                elif loc.terminal:
                    body = "Skip"
                else:
                    body = "Stop"
                out.append(f"{prefix}_L{loc.id}() = {body};")
        return out, roots

    def _edge(self, prefix: str, i: int, k: int, e: Edge, process: Process, w: _Writer) -> str:
        event = f"{prefix}_e{k}"
        guard = ""
        if isinstance(e.guard, ElseGuard):
            siblings = [s for s in process.edges if s.source == e.source and s is not e]
            if any(s.comm is not None for s in siblings):
                raise _refuse(e.span, "'else' beside a channel operation")
            conds = [w.cond(s.guard) for s in siblings if s.guard is not None
                     and not isinstance(s.guard, ElseGuard)]
            if len(conds) < len(siblings):
                guard = "[false] "
            elif conds:
                guard = f"[!({' || '.join(conds)})] "
        elif e.guard is not None:
            guard = f"[{w.cond(e.guard)}] "
        body = [line for s in e.effect for line in w.stmt(s)]
        if i in self.needs_pc or self._pc_wanted(i):
            body.append(f"pc{i} = {e.target};")
        target = f"{prefix}_L{e.target}()"
        if e.comm is None:
            block = "{" + " ".join(body) + "}" if body else ""
            return f"({guard}{event}{block} -> {target})"
        comm = e.comm
        ch = comm.channel
        if not (isinstance(ch, Var) and ch.scope == "global" and ch.name in self.channels):
            raise _refuse(comm.span or e.span, "a channel operation on a channel variable")
        name = "g_" + sanitize(ch.name)
        if isinstance(comm, Send):
            if comm.sorted:
                raise _refuse(comm.span, "the sorted send '!!'")
            values = ".".join(w.num(a) for a in comm.args)
            block = "{" + " ".join(body) + "}" if body else ""
            return f"({guard}{name}!{values}{block} -> {target})"
        if comm.random or comm.peek:
            raise _refuse(comm.span, "the random or peeking receive (?? / ?<>)")
        fields: list[str] = []
        binds: list[str] = []
        for n, arg in enumerate(comm.args):
            if isinstance(arg, RecvMatch):
                value = fold(arg.value)
                if value is None:
                    raise _refuse(arg.span or comm.span, "matching a received field with eval()")
                fields.append(str(value))
            else:
                fields.append(f"m{n}")
                if isinstance(arg, RecvBind) and arg.target is not None:
                    binds += w.store(arg.target, f"m{n}", arg.span)
        all_body = binds + body
        block = "{" + " ".join(all_body) + "}" if all_body else ""
        return f"({guard}{name}?{'.'.join(fields)}{block} -> {target})"

    def _pc_wanted(self, i: int) -> bool:
        return i in self.needs_pc

    def properties(self, props: Sequence[Property], root: str) -> list[str]:
        out: list[str] = []
        defines: dict[str, str] = {}
        w = _Writer(self, None)

        def atom(a: LtlState) -> str:
            text = w.cond(a.expr)
            if text not in defines:
                defines[text] = f"bridge_p{len(defines)}"
                out.append(f"#define {defines[text]} {text};")
            return defines[text]

        def ltl(f: Ltl) -> str:
            if isinstance(f, LtlConst):
                return "true" if f.value else "false"
            if isinstance(f, LtlState):
                return atom(f)
            if isinstance(f, LtlEvent):
                raise _refuse(f.span, f"the event atom '{f.name}' of a Promela formula")
            if isinstance(f, LtlUnary):
                op = {"G": "[]", "F": "<>", "X": "X", "!": "!"}[f.op]
                return f"{op}({ltl(f.operand)})"
            if isinstance(f, LtlBinary):
                op = {"W": None}.get(f.op, f.op)
                if op is None:
                    a, b = ltl(f.left), ltl(f.right)
                    return f"(([]({a})) || (({a}) U ({b})))"
                return f"(({ltl(f.left)}) {op} ({ltl(f.right)}))"
            raise _refuse(None, type(f).__name__)

        for p in props:
            if p.kind is PropertyKind.LTL and p.formula is not None:
                out.append(f"#assert {root} |= {ltl(p.formula)};")
            elif p.kind is PropertyKind.SAFETY:
                ends = [loc for inst in self.system.instances
                        for loc in self.system.process(inst.process).locations
                        if loc.end and not loc.terminal]
                if self.uses_assert:
                    out.append("// 'valid' below means an assertion CAN FAIL (Promela assert)")
                    out.append("#define bridge_assertion_failed bridge_failed == 1;")
                    out.append(f"#assert {root} reaches bridge_assertion_failed;")
                if ends:
                    out.append("// deadlockfree omitted: Promela end labels make some blocked "
                               "states valid, which CSP# cannot express")
                else:
                    out.append(f"#assert {root} deadlockfree;")
            elif p.kind is PropertyKind.INVARIANT and p.condition is not None:
                out.append(f"#assert {root} |= []{atom(LtlState(p.condition, ''))};")
            elif p.kind is PropertyKind.DEADLOCK_FREE:
                out.append(f"#assert {root} deadlockfree;")
            elif p.kind in _LABEL_CYCLES and len(props) > 1:
                out.append(f"// {p.text} (SPIN's progress/accept labels): not translated, "
                           "PAT has no such check")
            else:
                raise _refuse(p.span, f"the property kind '{p.kind.value}'")
        return out


_LABEL_CYCLES = (PropertyKind.NON_PROGRESS, PropertyKind.ACCEPTANCE)


def _product(dims: Sequence[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _const(e: Expr, span: Span | None, as_bool: bool = False) -> str:
    value = fold(e)
    if value is None:
        raise _refuse(span, "a non-constant initial value")
    if as_bool:
        return "true" if value else "false"
    return str(value)


def emit_csp(system: TransitionSystem, properties: Sequence[Property] | None = None) -> str:
    """Return CSP# text for ``system`` (a Promela-derived IR) with its properties.

    Raises ``UnsupportedError`` naming the first construct CSP# lacks (module doc).
    """
    emitter = _CspEmitter(system)
    emitter.check()
    # Remote labels in properties need pc variables: find them before the processes.
    props = list(properties if properties is not None else system.properties)
    if system.end_condition is not None and any(p.kind is PropertyKind.SAFETY for p in props):
        raise UnsupportedError.at(None, "the end-state rule of a Promela trace/notrace "
                                  "(pan: 'event_trace not completed') has no CSP# form")
    for p in props:
        exprs = [p.condition] if p.condition is not None else []
        stack: list[Ltl] = [p.formula] if p.formula is not None else []
        while stack:
            f = stack.pop()
            if isinstance(f, LtlState):
                exprs.append(f.expr)
            elif isinstance(f, LtlUnary):
                stack.append(f.operand)
            elif isinstance(f, LtlBinary):
                stack += [f.left, f.right]
        for e in exprs:
            for node in iter_subexpressions(e):
                if isinstance(node, RemoteLabel):
                    emitter.remote_label(node)
    processes, roots = emitter.processes()
    declarations = emitter.declarations()
    for i in sorted(emitter.needs_pc):
        process = system.process(system.instances[i].process)
        declarations.append(f"var pc{i} = {process.initial};")
    if emitter.uses_assert:
        declarations.append("var bridge_failed = 0;")
    root = "BridgeSystem()"
    lines = [f"// {system.name}: generated by bridge from {', '.join(system.source_files)}",
             *declarations, "", *processes, "",
             f"{root} = {' ||| '.join(roots) if roots else 'Skip'};", ""]
    lines += emitter.properties(props, root)
    return "\n".join(lines) + "\n"
