"""What the C generator's modules share: its limits, ``CUnsupported``, the check of the
IR fields it knows, where generated code runs (``_Ctx``, ``_Place``) and C literals
(issue 12, DESIGN.md section 7).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bridge.engine_c.layout import (
    Kind,
    Segment,
)
from bridge.ir import (
    Channel,
    Edge,
    Event,
    If,
    Instance,
    Location,
    Process,
    Receive,
    Run,
    Send,
    Stmt,
    TransitionSystem,
    Type,
    Variable,
    While,
)
from bridge.ir.model import InstanceRef, Interleave, Parallel
from bridge.semantics.state import ProcessLayout

_NO = object()
# The longest state vector (BR_MAXVEC) the C engine takes: the store keeps a 2-byte
# length before each vector of a dynamic model when BR_MAXVEC + 4 fits in it, else 4
# bytes (store.c br_vlen_t); the bound is the successor buffers' (16 vectors of
# BR_MAXVEC bytes from the start), far past what the Python engine stores
MAX_VECTOR_BYTES = 1 << 24
# Processes started at run time (Promela run): the instance count is one byte, as in
# SPIN. A static system (every CSP# model) has as many instances as it declares: its
# process sets are ceil(instances / 64) words (BR_PWORDS).
MAX_PROCESSES = 255
MAX_LOCAL_ARRAY = 4096  # cells of a block array or array copy kept on the C stack



class CUnsupported(Exception):
    """The model uses something the C engine does not translate (the message says what)."""


# The fields of IR nodes this generator knows. A field added to the IR later (by a new
# construct) with a non-default value makes the model unsupported instead of being
# silently ignored, so the C engine never answers differently from the Python one.
_KNOWN_FIELDS: dict[type, frozenset[str]] = {
    TransitionSystem: frozenset({
        "name", "language", "globals", "channels", "processes", "instances",
        "composition", "propositions", "properties", "enums", "source_files",
        "max_instances", "notes", "never", "priority_scheduling", "end_condition"}),
    # ``pending``: in a system whose lazy unfolding is complete (``unfolding`` None, a
    # field this generator does not know) they are unreachable locations without edges.
    Process: frozenset({"name", "parameters", "locals", "locations", "edges", "initial",
                        "channels", "span", "provided", "channel_assertions", "pending"}),
    Location: frozenset({"id", "labels", "atomic", "end", "terminal", "accept", "progress",
                         "span"}),
    Edge: frozenset({"source", "target", "guard", "comm", "effect", "event", "label",
                     "fairness", "text", "span", "data_operation", "atomic"}),
    Variable: frozenset({"name", "type", "init", "hidden", "span"}),
    # ``arity_tag`` (CSP#: messages of several arities, stored as (arity, values,
    # padding)): the tag is an ordinary first field of every send and receive pattern;
    # only the Python engine's event names and valuations read it
    Channel: frozenset({"name", "capacity", "fields", "span", "arity_tag"}),
    Instance: frozenset({"process", "arguments", "name", "span", "priority"}),
    Event: frozenset({"base", "components", "span"}),
    Parallel: frozenset({"children", "alphabets", "hidden"}),
    Interleave: frozenset({"children"}),
    InstanceRef: frozenset({"instance"}),
}


def _check_fields(node: Any) -> None:
    known = _KNOWN_FIELDS.get(type(node))
    if known is None:
        return
    for f in dataclasses.fields(node):
        if f.name in known:
            continue
        value = getattr(node, f.name)
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else _NO)
        if value != default:
            raise CUnsupported(f"{type(node).__name__}.{f.name} (a construct the C engine "
                               "does not translate yet)")


def check_known_fields(system: TransitionSystem) -> None:
    """Raise ``CUnsupported`` when the IR carries a field this generator ignores."""
    nodes: list[Any] = [system, *system.globals, *system.channels, *system.instances]
    for p in system.processes:
        nodes += [p, *p.locals, *p.channels, *p.locations, *p.edges]
        nodes += [e.event for e in p.edges if e.event is not None]
    stack = [system.composition] if system.composition is not None else []
    while stack:  # the composition tree (hiding above '||' is not translated yet)
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, Parallel | Interleave):
            stack.extend(node.children)
    for node in nodes:
        _check_fields(node)


def starts_processes(system: TransitionSystem) -> bool:
    """Return True when some edge of ``system`` may start a process (a ``Run`` anywhere
    in its guards, channel operations or effects): without one, no state holds more
    process instances than the initial state (the bound of the packed vector)."""
    stack: list[Any] = [(e.guard, e.comm, e.effect) for p in system.processes for e in p.edges]
    while stack:
        node = stack.pop()
        if isinstance(node, Run):
            return True
        if isinstance(node, tuple | list):
            stack.extend(node)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
    return False


@dataclass
class _Ctx:
    """Where generated code runs: ``src`` is the C vector read (``s`` in guards, ``t``
    in effects); ``base`` the C expression of the segment's first byte; ``pid`` the C
    expression of the instance id; ``proc``/``seg`` the template's layouts (None in a
    state predicate); ``block``: block-local variables (name -> C name, type)."""

    src: str
    base: str | None
    pid: str | None
    proc: ProcessLayout | None
    seg: Segment | None
    block: dict[str, tuple[str, Type]] = field(default_factory=dict)
    decls: list[str] | None = None
    timeout: bool = False
    timeout_false: bool = False  # as ``semantics.codegen.Context.timeout_false``

    def with_src(self, src: str) -> _Ctx:
        return _Ctx(src, self.base, self.pid, self.proc, self.seg, self.block, self.decls,
                    self.timeout, self.timeout_false)


@dataclass
class _Place:
    """An lvalue or array: in the state (``offset`` C expression, element ``kind``) or a
    block variable (``block`` C name, ``offset`` index expression or "")."""

    offset: str
    type: Type
    kind: Kind | None
    block: str | None = None
    exact: bool = True
    remote: bool = False  # read through a remote reference: 0 when the instance is gone


def _kind_const(k: Kind) -> str:
    return f"K_{k.name.upper()}"


def _c_string(text: str) -> str:
    """Return ``text`` as a C string literal (every byte outside printable ASCII, the
    quote and the backslash escaped in octal)."""
    out = []
    for b in text.encode("utf-8"):
        ch = chr(b)
        out.append(ch if 32 <= b < 127 and ch not in '"\\?' else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def edge_statements(system: TransitionSystem) -> Iterator[Stmt]:
    """Yield every statement of every edge (its channel operation, its effect), nested
    ones included."""
    for p in system.processes:
        for e in p.edges:
            if e.comm is not None:
                yield e.comm
            yield from flatten(e.effect)


def flatten(stmts) -> Iterator[Stmt]:
    """Yield every statement of ``stmts``, the bodies of ``if`` and ``while`` included."""
    for st in stmts:
        yield st
        if isinstance(st, If):
            for _, body in st.branches:
                yield from flatten(body)
            yield from flatten(st.otherwise)
        elif isinstance(st, While):
            yield from flatten(st.body)


def _message_lengths(system: TransitionSystem) -> list[int]:
    """Return the argument counts of every send and receive (in comms and effects)."""
    return [len(st.args) for st in edge_statements(system) if isinstance(st, Send | Receive)]


def _slen(ctx: _Ctx) -> str:
    """Return the C length of the vector ``ctx.src`` names."""
    return "slen" if ctx.src == "s" else "c->tlen"


def _lit(v: Any) -> str:
    v = int(v)
    if v == -(2**63):
        return "INT64_MIN"
    if not -(2**63) < v < 2**63:
        raise CUnsupported(f"the constant {v} does not fit in 64 bits")
    return f"{v}LL" if not -(2**31) <= v < 2**31 else str(v)
