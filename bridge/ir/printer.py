"""Readable, stable text dumps of the IR (``bridge show``; golden tests diff them).

Stable means: the same IR always prints the same text, whatever the dictionary or set
order was (alphabets are sorted), and nothing run-dependent (ids of objects, times) is
printed. Expressions print fully parenthesised below the top level, so the dump does not
depend on a precedence table, and with the IR's own operator names (``mod`` is PAT's
non-negative modulo, ``%`` C's remainder; expr.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from bridge.diagnostics import Span
from bridge.ir.expr import (
    AssertStmt,
    Assign,
    Binary,
    Builtin,
    Call,
    ChanPoll,
    ChanQuery,
    Conditional,
    Const,
    ElseGuard,
    Enabled,
    Expr,
    GetPriority,
    If,
    Index,
    LocalVar,
    Print,
    Receive,
    RecvArg,
    RecvBind,
    RecvMatch,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    SetPriority,
    Stmt,
    Unary,
    Var,
    While,
)
from bridge.ir.model import (
    Channel,
    ChannelAssertion,
    Composition,
    Edge,
    Event,
    Instance,
    InstanceRef,
    Interleave,
    Location,
    ModelFile,
    Parallel,
    Process,
    TransitionSystem,
    Variable,
)
from bridge.ir.property import (
    Ltl,
    LtlBinary,
    LtlConst,
    LtlEvent,
    LtlState,
    LtlUnary,
    Property,
)
from bridge.ir.types import ArrayType, BoolType, ChanType, EnumType, IntType, ObjectType, Type

__all__ = [
    "print_comm",
    "print_event",
    "print_expr",
    "print_ltl",
    "print_model_file",
    "print_stmt",
    "print_system",
    "print_type",
]

_INDENT = "  "


# ---------------------------------------------------------------------------------
# Types and expressions


def print_type(t: Type) -> str:
    """Return a type as text: ``byte[0..255,wrap]``, ``bool``, ``enum mtype{a=1}``..."""
    if isinstance(t, IntType):
        lo = "-inf" if t.lo is None else str(t.lo)
        hi = "inf" if t.hi is None else str(t.hi)
        return f"{t.name}[{lo}..{hi},{t.overflow.value}]"
    if isinstance(t, BoolType):
        return t.name
    if isinstance(t, EnumType):
        members = ",".join(f"{m}={v}" for m, v in zip(t.members, t.values, strict=False))
        return f"enum {t.name}{{{members}}}"
    if isinstance(t, ChanType):
        return t.name
    if isinstance(t, ArrayType):
        return f"{print_type(t.element)}[{t.length}]"
    if isinstance(t, ObjectType):
        return f"object<{t.library}>"
    return f"<{type(t).__name__}>"


def print_expr(e: Expr | None, top: bool = True) -> str:
    """Return an expression as text; subexpressions with operators are parenthesised."""
    if e is None:
        return "true"
    text = _expr(e)
    if not top and isinstance(e, Binary | Conditional):
        return f"({text})"
    return text


def _expr(e: Expr) -> str:
    if isinstance(e, Const):
        if isinstance(e.value, bool):
            return "true" if e.value else "false"
        return str(e.value)
    if isinstance(e, Var):
        return e.name if e.scope == "global" else f"{e.scope}:{e.name}"
    if isinstance(e, Index):
        return f"{print_expr(e.base, False)}[{print_expr(e.index)}]"
    if isinstance(e, Unary):
        return f"{e.op}{print_expr(e.operand, False)}"
    if isinstance(e, Binary):
        return f"{print_expr(e.left, False)} {e.op} {print_expr(e.right, False)}"
    if isinstance(e, Conditional):
        return (f"{print_expr(e.cond, False)} -> {print_expr(e.then, False)} : "
                f"{print_expr(e.otherwise, False)}")
    if isinstance(e, ChanQuery):
        return f"{e.op}({print_expr(e.channel)})"
    if isinstance(e, ChanPoll):
        mark = "??" if e.random else "?"
        return f"{print_expr(e.channel, False)}{mark}[{_recv_args(e.args)}]"
    if isinstance(e, RemoteLabel):
        pid = "" if e.pid is None else f"[{print_expr(e.pid)}]"
        return f"{e.proctype}{pid}@{e.label}"
    if isinstance(e, RemoteVar):
        pid = "" if e.pid is None else f"[{print_expr(e.pid)}]"
        return f"{e.proctype}{pid}:{e.name}"
    if isinstance(e, Builtin):
        return e.name
    if isinstance(e, Call):
        return f"{e.function}({', '.join(print_expr(a) for a in e.args)})"
    if isinstance(e, ElseGuard):
        return "else"
    if isinstance(e, Enabled):
        return f"enabled({print_expr(e.pid)})"
    if isinstance(e, GetPriority):
        return f"get_priority({print_expr(e.pid)})"
    return f"<{type(e).__name__}>"


def _recv_args(args: Sequence[RecvArg]) -> str:
    parts = []
    for arg in args:
        if isinstance(arg, RecvBind):
            parts.append("_" if arg.target is None else print_expr(arg.target))
        elif isinstance(arg, RecvMatch):
            parts.append(f"eval({print_expr(arg.value)})")
        else:
            parts.append(f"<{type(arg).__name__}>")
    return ",".join(parts)


def _init(init: Expr | tuple[Expr, ...] | None) -> str:
    if init is None:
        return ""
    if isinstance(init, tuple):
        return " = {" + ", ".join(print_expr(e) for e in init) + "}"
    return f" = {print_expr(init)}"


def print_stmt(s: Stmt) -> list[str]:
    """Return a statement as lines (compound statements span several)."""
    if isinstance(s, Assign):
        return [f"{print_expr(s.target)} = {print_expr(s.value)}"]
    if isinstance(s, If):
        lines: list[str] = []
        for i, (cond, body) in enumerate(s.branches):
            lines.append(f"{'if' if i == 0 else 'elif'} {print_expr(cond)}:")
            lines.extend(_INDENT + line for stmt in body for line in print_stmt(stmt))
        if s.otherwise:
            lines.append("else:")
            lines.extend(_INDENT + line for stmt in s.otherwise for line in print_stmt(stmt))
        return lines
    if isinstance(s, While):
        return [f"while {print_expr(s.cond)}:"] + [
            _INDENT + line for stmt in s.body for line in print_stmt(stmt)]
    if isinstance(s, LocalVar):
        return [f"local {print_type(s.type)} {s.name}{_init(s.init)}"]
    if isinstance(s, AssertStmt):
        return [f"assert({print_expr(s.cond)})"]
    if isinstance(s, Send | Receive):
        return [_comm(s)]
    if isinstance(s, Run):
        call = f"run {s.proctype}({', '.join(print_expr(a) for a in s.args)})"
        if s.priority is not None:
            call += f" priority {print_expr(s.priority)}"
        return [call if s.target is None else f"{print_expr(s.target)} = {call}"]
    if isinstance(s, SetPriority):
        mode = "" if s.checked else " unchecked"
        return [f"set_priority({print_expr(s.pid)}, {print_expr(s.value)}){mode}"]
    if isinstance(s, Print):
        args = "".join(f", {print_expr(a)}" for a in s.args)
        return [f"printf({s.format!r}{args})"]
    return [f"<{type(s).__name__}>"]


def print_comm(c: Send | Receive) -> str:
    """Return a channel operation as text (``c!x,1``, ``c??ack,v``, ``c?<a>``)."""
    return _comm(c)


def print_event(e: Event) -> str:
    """Return an event as text (``rule1.i.((i + 1) % N)``)."""
    return _event(e)


def _comm(c: Send | Receive) -> str:
    if isinstance(c, Send):
        mark = "!!" if c.sorted else "!"
        return f"{print_expr(c.channel, False)}{mark}{','.join(print_expr(a) for a in c.args)}"
    mark = "??" if c.random else "?"
    args = _recv_args(c.args)
    condition = "" if c.condition is None else f"[{print_expr(c.condition)}]"
    return (f"{print_expr(c.channel, False)}{mark}{condition}"
            f"{'<' + args + '>' if c.peek else args}")


# ---------------------------------------------------------------------------------
# LTL and properties


def print_ltl(f: Ltl) -> str:
    """Return a formula as text in Spot-like syntax; events print as ``"event:NAME"``."""
    if isinstance(f, LtlConst):
        return "true" if f.value else "false"
    if isinstance(f, LtlState):
        return f"{{{f.text}}}"
    if isinstance(f, LtlEvent):
        return f'"event:{f.name}"'
    if isinstance(f, LtlUnary):
        return f"{f.op}({print_ltl(f.operand)})"
    if isinstance(f, LtlBinary):
        return f"({print_ltl(f.left)} {f.op} {print_ltl(f.right)})"
    return f"<{type(f).__name__}>"


def _property(p: Property) -> list[str]:
    head = f"#{p.number} {p.kind.value}"
    if p.name and p.name != p.text:
        head += f" {p.name}"
    lines = [f"{head}: {p.text}{_at(p.span)}"]
    if p.target is not None:
        lines.append(f"{_INDENT}target {p.target}")
    if p.condition is not None:
        lines.append(f"{_INDENT}condition {print_expr(p.condition)}")
    if p.optimise is not None:
        lines.append(f"{_INDENT}{p.optimise[0]} {print_expr(p.optimise[1])}")
    if p.formula is not None:
        lines.append(f"{_INDENT}formula {print_ltl(p.formula)}")
    if p.fairness is not None:
        lines.append(f"{_INDENT}fairness {p.fairness.value}")
    if p.spec is not None:
        model = p.refinement.value if p.refinement is not None else "T"
        lines.append(f"{_INDENT}refines <{model}> {p.spec.name}")
    return lines


# ---------------------------------------------------------------------------------
# Systems


def _at(span: Span | None) -> str:
    # Only the line: the file is the model's, and columns churn with formatting.
    return "" if span is None else f"  @{span.line}"


def _variable(v: Variable) -> str:
    hidden = "hidden " if v.hidden else ""
    return f"{hidden}{print_type(v.type)} {v.name}{_init(v.init)}{_at(v.span)}"


def _channel(c: Channel) -> str:
    fields = ", ".join(print_type(t) for t in c.fields)
    tag = " arity-tagged" if c.arity_tag else ""
    return f"chan {c.name}[{c.capacity}] of {{{fields}}}{tag}{_at(c.span)}"


def _event(e: Event) -> str:
    return e.base + "".join(f".{print_expr(c, False)}" for c in e.components)


def _location(loc: Location, initial: bool) -> str:
    flags = [name for name, on in (
        ("initial", initial), ("atomic", loc.atomic), ("end", loc.end),
        ("terminal", loc.terminal), ("accept", loc.accept), ("progress", loc.progress),
    ) if on]
    labels = f" labels={','.join(loc.labels)}" if loc.labels else ""
    flag_text = f" [{' '.join(flags)}]" if flags else ""
    return f"L{loc.id}{flag_text}{labels}{_at(loc.span)}"


def _edge(index: int, e: Edge) -> list[str]:
    parts = [f"e{index}: L{e.source} -> L{e.target}"]
    if e.guard is not None:
        parts.append(f"when {print_expr(e.guard)}")
    if e.comm is not None:
        parts.append(f"comm {_comm(e.comm)}")
    if e.event is not None:
        parts.append(f"event {_event(e.event)}")
    if e.label is not None:
        parts.append(f"label {e.label}")
    if e.fairness is not None:
        parts.append(f"fair {e.fairness.value}")
    if e.atomic:
        parts.append("atomic")
    lines = [" ".join(parts) + _at(e.span)]
    if e.text:
        lines.append(f"{_INDENT}text {e.text!r}")
    for stmt in e.effect:
        lines.extend(_INDENT + "do " + line if i == 0 else _INDENT + "   " + line
                     for i, line in enumerate(print_stmt(stmt)))
    return lines


def _process(p: Process) -> list[str]:
    lines = [f"process {_call(p.name, p.parameters)}{_at(p.span)}"]
    for v in p.locals:
        lines.append(f"{_INDENT}local {_variable(v)}")
    for c in p.channels:
        lines.append(f"{_INDENT}{_channel(c)}")
    for a in p.channel_assertions:
        lines.append(f"{_INDENT}{_channel_assertion(a)}")
    for loc in p.locations:
        lines.append(f"{_INDENT}{_location(loc, loc.id == p.initial)}")
    for i, e in enumerate(p.edges):
        lines.extend(_INDENT + line for line in _edge(i, e))
    return lines


def _channel_assertion(a: ChannelAssertion) -> str:
    return f"{a.kind} {print_expr(a.channel)}{_at(a.span)}"


def _call(name: str, arguments: Sequence[str]) -> str:
    # A specialised CSP# process is already named like a call (``Loop()``, ``Node(0)``).
    if not arguments and name.endswith(")"):
        return name
    return f"{name}({', '.join(arguments)})"


def _instance(i: int, inst: Instance) -> str:
    text = _call(inst.process, [print_expr(a) for a in inst.arguments])
    name = f" as {inst.name}" if inst.name and inst.name != text else ""
    priority = f" priority {inst.priority}" if inst.priority != 1 else ""
    return f"#{i} {text}{name}{priority}"


def _composition(c: Composition | None) -> str:
    if c is None:
        return "interleave(all)"
    if isinstance(c, InstanceRef):
        return f"#{c.instance}"
    if isinstance(c, Interleave):
        return "interleave(" + ", ".join(_composition(k) for k in c.children) + ")"
    if isinstance(c, Parallel):
        parts = []
        for child, alphabet in zip(c.children, c.alphabets, strict=False):
            parts.append(f"{_composition(child)}{{{','.join(sorted(alphabet))}}}")
        hidden = f" \\ {{{','.join(sorted(c.hidden))}}}" if c.hidden else ""
        return "parallel(" + ", ".join(parts) + ")" + hidden
    return f"<{type(c).__name__}>"


def print_system(system: TransitionSystem) -> str:
    """Return the whole transition system as text, one item per line, in IR order."""
    lines = [f"system {system.name} ({system.language.value})"]
    sections: list[tuple[str, list[str]]] = [
        ("enums", [f"{name} = {value}" for name, value in system.enums]),
        ("globals", [_variable(v) for v in system.globals]),
        ("channels", [_channel(c) for c in system.channels]),
        ("propositions", [f"{p.name} = {print_expr(p.expr)}{_at(p.span)}"
                          for p in system.propositions]),
    ]
    for title, items in sections:
        if items:
            lines.append(f"{title}:")
            lines.extend(_INDENT + item for item in items)
    for p in system.processes:
        lines.extend(_process(p))
    if system.end_condition is not None:
        lines.append(f"valid end states also need: {print_expr(system.end_condition)}")
    if system.never is not None:
        lines.append("never claim:")
        lines.extend(_INDENT + line for line in _process(system.never))
    lines.append("instances:")
    lines.extend(_INDENT + _instance(i, inst) for i, inst in enumerate(system.instances))
    lines.append(f"composition: {_composition(system.composition)}")
    if system.priority_scheduling:
        lines.append("scheduling: by priority (a step needs no higher-priority instance "
                     "to have one)")
    if system.properties:
        lines.append("properties:")
        for prop in system.properties:
            lines.extend(_INDENT + line for line in _property(prop))
    for note in system.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines) + "\n"


def print_model_file(model_file: ModelFile) -> str:
    """Return every system of the file, separated by blank lines, after the
    assertions the front-end left unchecked (``ModelFile.refused``)."""
    # The base name only: the same file reached by another path prints the same.
    name = PurePath(model_file.path).name
    header = f"model {name}: {len(model_file.systems)} system(s)\n"
    for r in model_file.refused:
        where = "" if r.span is None else f" (line {r.span.line})"
        header += f"unchecked assertion #{r.number}: {r.text}: {r.message}{where}\n"
    return header + "".join("\n" + print_system(s) for s in model_file.systems)
