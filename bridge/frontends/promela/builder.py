"""The control-flow graph of one proctype while it is lowered (``lower.py``'s
module docstring: statements, escapes of ``unless``, jumps) and its finishing into
a ``Process``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from lark import Tree

from bridge.diagnostics import SemanticError, Span, UnsupportedError
from bridge.frontends.promela.trees import Symbol, label_target
from bridge.ir import (
    Binary,
    Channel,
    ChannelAssertion,
    Edge,
    ElseGuard,
    Event,
    Expr,
    Location,
    Process,
    Receive,
    Send,
    Stmt,
    Unary,
    Variable,
)

# ---------------------------------------------------------------------------------
# The process builder


@dataclass
class BuildLoc:
    labels: list[str] = field(default_factory=list)
    atomic: bool = False
    span: Span | None = None


@dataclass
class BuildEdge:
    source: int
    target: int
    guard: Expr | None = None
    comm: Send | Receive | None = None
    effect: tuple[Stmt, ...] = ()
    text: str = ""
    span: Span | None = None
    # The location whose statement this edge is a copy of (an if/do option's first
    # statement copied to the head): its label names the copy too.
    origin: int | None = None


@dataclass(eq=False)
class Escape:
    """The escape of one ``unless``, as it applies at one of its main locations.

    SPIN gives an executable escape priority over *every* transition of the state,
    so at a location shared with sibling options (an unless that starts an option of
    an if/do) the siblings are pre-empted as well (checked with pan). ``guard`` is
    the escape's executability (None until a jump escape is resolved in ``finish``);
    ``pending`` the edges still to be conjoined with ``!guard`` then.
    """

    guard: Expr | None
    pending: list[BuildEdge] = field(default_factory=list)

    def pre_empt(self, edge: BuildEdge) -> None:
        """Let this escape take priority over ``edge`` (now, or once resolved)."""
        if isinstance(edge.guard, ElseGuard):
            return  # else is taken only when no sibling, the escape included, can be
        if self.guard is None:
            self.pending.append(edge)
            return
        neg = Unary("!", self.guard, edge.span)
        edge.guard = neg if edge.guard is None else Binary("&&", edge.guard, neg, edge.span)


@dataclass(eq=False)
class JumpEscape:
    """An escape whose first statement is a jump: SPIN eliminates the jump, so the
    escape is the statement at the jump's target, known only in ``finish``."""

    escape: Escape
    entry: int
    main_locs: set[int]
    end: int
    where: Tree
    span: Span | None = None
    copies: set[int] = field(default_factory=set)  # got the main's edges by copy_out


class ProcBuilder:
    """Collects locations and edges of one process; ``finish`` returns the Process."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.locs: list[BuildLoc] = []
        self.edges: list[BuildEdge] = []
        self.parent: dict[int, int] = {}
        # label -> every (block scope path, location) it names: SPIN 6 scopes labels to
        # their block, so two inline expansions (or two blocks) may each have one.
        self.labels: dict[str, list[tuple[tuple[int, ...], int]]] = {}
        self.label_spans: dict[str, Span | None] = {}
        self.gotos: list[tuple[int, str, Span | None, bool, str, tuple[int, ...]]] = []
        self.atomic_depth = 0
        self.loops: list[int] = []
        self.locals: list[Variable] = []
        self.channels: list[Channel] = []
        self.symbols: dict[str, Symbol] = {}
        self.parameters: list[str] = []
        self.stmt_seen = False
        self.in_dstep = False
        self.has_provided = False
        self.channel_assertions: list[ChannelAssertion] = []
        self.assigned: set[str] = set()  # names the body assigns to (see Symbol.reassigned)
        # location -> escapes that apply there, each with the ids of its edges there
        # that it already covers (its own, or pre-empted already)
        self.escapes: dict[int, list[tuple[Escape, set[int]]]] = {}
        self.jump_escapes: list[JumpEscape] = []

    def new_loc(self, span: Span | None = None) -> int:
        self.locs.append(BuildLoc(atomic=self.atomic_depth > 0, span=span))
        return len(self.locs) - 1

    def find(self, loc: int) -> int:
        seen = []
        while loc in self.parent:
            seen.append(loc)
            loc = self.parent[loc]
        for s in seen:
            self.parent[s] = loc
        return loc

    def alias(self, loc: int, target: int, span: Span | None) -> None:
        a, b = self.find(loc), self.find(target)
        if a == b:
            raise SemanticError.at(span, "a jump to itself (an endless loop without a step)")
        self.parent[a] = b

    def add_edge(self, edge: BuildEdge) -> BuildEdge:
        self.edges.append(edge)
        return edge

    def out_edges(self, loc: int) -> list[BuildEdge]:
        return [e for e in self.edges if e.source == loc]

    def copy_out(self, src: int, dst: int) -> None:
        """Give ``dst`` copies of the edges leaving ``src`` (or a jump when src merged)."""
        root = self.find(src)
        if root != src:
            self.add_edge(BuildEdge(dst, root, None, text="goto"))
            return
        copied: set[int] = set()
        for e in list(self.out_edges(src)):
            origin = e.origin if e.origin is not None else e.source
            copy = self.add_edge(replace(e, source=dst, origin=origin))
            copied.add(id(copy))
            for escape, _covered in self.escapes.get(src, ()):
                if any(p is e for p in escape.pending):
                    escape.pending.append(copy)
        for escape, _covered in self.escapes.get(src, ()):
            self.escapes.setdefault(dst, []).append((escape, set(copied)))
        for jump in self.jump_escapes:
            if src in jump.main_locs or src in jump.copies:
                jump.copies.add(dst)  # it gets the escape's edges when resolved

    def pre_empt_siblings(self, loc: int) -> None:
        """Give the escapes that apply at ``loc`` priority over every other edge there
        (the options of an if/do whose first statement is an unless)."""
        for escape, covered in self.escapes.get(loc, ()):
            for edge in self.out_edges(loc):
                if id(edge) not in covered:
                    covered.add(id(edge))
                    escape.pre_empt(edge)

    def resolve_jump_escapes(self, executable: Callable[[list[BuildEdge], Tree], Expr]) -> None:
        """Resolve escapes that start with a jump (after the gotos): the escape's edges
        are those of the statement the jump leads to."""
        for jump in self.jump_escapes:
            target = self.find(next(e.target for e in self.edges if e.source == jump.entry))
            edges = [e for e in self.edges if self.find(e.source) == target]
            if not edges:
                raise UnsupportedError.at(jump.span, "an escape that jumps to the end of a "
                                          "process is not supported by bridge")
            jump.escape.guard = executable(edges, jump.where)
            for edge in jump.escape.pending:
                jump.escape.pre_empt(edge)
            jump.escape.pending.clear()
            at = {loc for loc in jump.main_locs if loc != self.find(jump.end)} | jump.copies
            for loc in sorted(at):
                if self.find(loc) == loc:
                    for edge in edges:
                        self.add_edge(replace(edge, source=loc))

    def finish(
        self, terminal: int, span: Span | None, provided: Expr | None, initial: int = 0,
        executable: Callable[[list[BuildEdge], Tree | None], Expr] | None = None,
    ) -> Process:
        for src, label, lspan, as_edge, text, path in self.gotos:
            if label not in self.labels:
                known = ", ".join(sorted(self.labels)) or "none"
                raise SemanticError.at(
                    lspan, f"undefined label '{label}' in {self.name}", f"labels defined: {known}"
                )
            target = label_target(self.labels[label], path)
            if as_edge:
                self.add_edge(BuildEdge(src, target, None, text=text, span=lspan))
            else:
                self.alias(src, target, lspan)
        if self.jump_escapes:
            assert executable is not None
            self.resolve_jump_escapes(executable)
        roots: list[int] = []
        index: dict[int, int] = {}
        for i in range(len(self.locs)):
            r = self.find(i)
            if r not in index:
                index[r] = len(roots)
                roots.append(r)
        merged: dict[int, BuildLoc] = {}
        for i, loc in enumerate(self.locs):
            r = self.find(i)
            m = merged.setdefault(r, BuildLoc(atomic=self.locs[r].atomic, span=self.locs[r].span))
            for lab in loc.labels:
                if lab not in m.labels:
                    m.labels.append(lab)
        term = self.find(terminal)
        locations = []
        for r in roots:
            m = merged[r]
            labs = tuple(m.labels)
            locations.append(
                Location(
                    index[r],
                    labs,
                    atomic=m.atomic and r != term,
                    end=r == term or any(lab.startswith("end") for lab in labs),
                    terminal=r == term,
                    accept=any(lab.startswith("accept") for lab in labs),
                    progress=any(lab.startswith("progress") for lab in labs),
                    span=m.span,
                )
            )
        edges = []
        for e in self.edges:
            src = index[self.find(e.source)]
            dst = index[self.find(e.target)]
            guard = e.guard
            if provided is not None:
                if isinstance(guard, ElseGuard):
                    # else = no sibling executable, written out, then the clause added
                    # (ElseGuard itself can only be a whole guard).
                    siblings = [o for o in self.edges
                                if o is not e and self.find(o.source) == self.find(e.source)]
                    if executable is None or not siblings:
                        raise UnsupportedError.at(
                            e.span, "'else' in a proctype with a provided clause is not supported")
                    guard = Unary("!", executable(siblings, None), e.span)
                guard = provided if guard is None else Binary("&&", guard, provided, e.span)
            labs = locations[src].labels
            if e.origin is not None:
                # do :: go: x = 1 -- the copy at the head is the statement labelled go
                labs = locations[index[self.find(e.origin)]].labels or labs
            label = labs[0] if labs else None
            edges.append(
                Edge(
                    src, dst, guard, e.comm, e.effect,
                    event=Event(label, (), e.span) if label else None,
                    label=label, text=e.text, span=e.span,
                )
            )
        return Process(
            self.name,
            tuple(self.parameters),
            tuple(self.locals),
            tuple(locations),
            tuple(edges),
            index[self.find(initial)],
            tuple(self.channels),
            span,
            provided,
            tuple(self.channel_assertions),
        )


