"""Structural checks of an IR: what every front-end's output must satisfy.

``validate_system`` returns diagnostics (empty when well formed) for: location ids that
are not unique, an initial location or an edge end that does not exist, an instance of
an unknown process or with the wrong number of arguments, a composition that names an
instance that does not exist or names one twice (or leaves an initial instance out),
alphabets that do not match the children, variable names that do not resolve
(``Var`` with scope ``global``/``local``/``block``), ``run``/``P@label``/``P:var`` of an
unknown process, label or local, duplicate global/process names, and property numbers
that are not unique.

A front-end bug, not a user's mistake, is what these find: the front-ends reject bad
models with their own ``SourceError``s. Tests run the check on every case study.
"""

from __future__ import annotations

from collections.abc import Iterator

from bridge.diagnostics import Diagnostic, Severity, Span
from bridge.ir.expr import (
    AssertStmt,
    Assign,
    Expr,
    If,
    LocalVar,
    Print,
    Receive,
    RecvBind,
    RecvMatch,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    SetPriority,
    Stmt,
    Var,
    While,
    iter_subexpressions,
)
from bridge.ir.model import (
    Composition,
    InstanceRef,
    Interleave,
    ModelFile,
    Parallel,
    Process,
    TransitionSystem,
)
from bridge.ir.property import LtlBinary, LtlState, LtlUnary, Property

__all__ = ["validate_model_file", "validate_system"]


def _problem(span: Span | None, message: str) -> Diagnostic:
    return Diagnostic(Severity.ERROR, span, f"invalid IR: {message}")


# ---------------------------------------------------------------------------------
# Walking expressions


def _recv_exprs(args: tuple) -> list[Expr]:
    found: list[Expr] = []
    for arg in args:
        if isinstance(arg, RecvBind) and arg.target is not None:
            found.append(arg.target)
        elif isinstance(arg, RecvMatch):
            found.append(arg.value)
    return found


def _statement_exprs(stmts: tuple[Stmt, ...], block: set[str]) -> Iterator[tuple[Expr, frozenset]]:
    """Yield (expression, block-local names in scope) for every expression in ``stmts``.

    A ``LocalVar`` brings its name into scope for the statements after it (and, since
    effects run to completion, for nested blocks too).
    """
    work: list[tuple[tuple[Stmt, ...], set[str]]] = [(stmts, block)]
    while work:
        body, scope = work.pop()
        scope = set(scope)
        for s in body:
            frozen = frozenset(scope)
            if isinstance(s, Assign):
                yield s.target, frozen
                yield s.value, frozen
            elif isinstance(s, If):
                for cond, branch in s.branches:
                    yield cond, frozen
                    work.append((branch, scope))
                work.append((s.otherwise, scope))
            elif isinstance(s, While):
                yield s.cond, frozen
                work.append((s.body, scope))
            elif isinstance(s, LocalVar):
                inits = s.init if isinstance(s.init, tuple) else (s.init,)
                for init in inits:
                    if init is not None:
                        yield init, frozen
                scope.add(s.name)
            elif isinstance(s, AssertStmt):
                yield s.cond, frozen
            elif isinstance(s, Send):
                yield s.channel, frozen
                for a in s.args:
                    yield a, frozen
            elif isinstance(s, Receive):
                yield s.channel, frozen
                for a in _recv_exprs(s.args):
                    yield a, frozen
                if s.condition is not None:
                    yield s.condition, frozen
            elif isinstance(s, Run):
                for a in s.args:
                    yield a, frozen
                if s.target is not None:
                    yield s.target, frozen
                if s.priority is not None:
                    yield s.priority, frozen
            elif isinstance(s, SetPriority):
                yield s.pid, frozen
                yield s.value, frozen
            elif isinstance(s, Print):
                for a in s.args:
                    yield a, frozen


def _ltl_states(prop: Property) -> Iterator[Expr]:
    if prop.formula is None:
        return
    stack = [prop.formula]
    while stack:
        f = stack.pop()
        if isinstance(f, LtlState):
            yield f.expr
        elif isinstance(f, LtlUnary):
            stack.append(f.operand)
        elif isinstance(f, LtlBinary):
            stack += [f.left, f.right]


# ---------------------------------------------------------------------------------
# Checks


class _Checker:
    def __init__(self, system: TransitionSystem) -> None:
        self.system = system
        self.problems: list[Diagnostic] = []
        self.globals = {v.name for v in system.globals} | {c.name for c in system.channels}
        self.processes = {p.name: p for p in system.processes}

    def add(self, span: Span | None, message: str) -> None:
        self.problems.append(_problem(span, message))

    def names(self, e: Expr, local: set[str] | None, block: frozenset,
              where: str) -> None:
        for node in iter_subexpressions(e):
            if isinstance(node, Var):
                if node.scope == "global":
                    known = node.name in self.globals
                elif node.scope == "local":
                    known = local is not None and node.name in local
                elif node.scope == "block":
                    known = node.name in block
                else:
                    self.add(node.span, f"{where}: variable {node.name!r} has unknown "
                                        f"scope {node.scope!r}")
                    continue
                if not known:
                    self.add(node.span, f"{where}: {node.scope} variable {node.name!r} "
                                        "is not declared")
            elif isinstance(node, RemoteLabel | RemoteVar):
                target = self.processes.get(node.proctype)
                if target is None:
                    self.add(node.span, f"{where}: unknown process {node.proctype!r}")
                elif isinstance(node, RemoteLabel):
                    labels = {lab for loc in target.locations for lab in loc.labels}
                    if node.label not in labels:
                        self.add(node.span, f"{where}: process {node.proctype} has no "
                                            f"label {node.label!r}")
                elif node.name not in _local_names(target):
                    self.add(node.span, f"{where}: process {node.proctype} has no local "
                                        f"{node.name!r}")

    def process(self, p: Process) -> None:
        ids = [loc.id for loc in p.locations]
        if len(set(ids)) != len(ids):
            self.add(p.span, f"process {p.name}: location ids are not unique")
        known = set(ids)
        if p.initial not in known:
            self.add(p.span, f"process {p.name}: initial location L{p.initial} does not "
                             "exist")
        local = _local_names(p)
        for a in p.channel_assertions:
            if a.kind not in ("xr", "xs"):
                self.add(a.span, f"process {p.name}: channel assertion kind {a.kind!r} "
                                 "is not xr or xs")
            self.names(a.channel, local, frozenset(), f"process {p.name} {a.kind}")
        for v in p.locals:
            inits = v.init if isinstance(v.init, tuple) else (v.init,)
            for init in inits:
                if init is not None:
                    self.names(init, local, frozenset(), f"process {p.name} local {v.name}")
        for i, e in enumerate(p.edges):
            where = f"process {p.name} edge e{i}"
            for end in (e.source, e.target):
                if end not in known:
                    self.add(e.span, f"{where}: location L{end} does not exist")
            if e.guard is not None:
                self.names(e.guard, local, frozenset(), where)
            if e.comm is not None:
                for expr_, block in _statement_exprs((e.comm,), set()):
                    self.names(expr_, local, block, where)
            for expr_, block in _statement_exprs(e.effect, set()):
                self.names(expr_, local, block, where)
            if e.event is not None:
                for component in e.event.components:
                    self.names(component, local, frozenset(), where)
            for s in _runs(e.effect):
                target = self.processes.get(s.proctype)
                if target is None:
                    self.add(s.span, f"{where}: run of unknown process {s.proctype!r}")
                elif len(s.args) != len(target.parameters):
                    self.add(s.span, f"{where}: run {s.proctype} with {len(s.args)} "
                                     f"argument(s), expected {len(target.parameters)}")

    def composition(self) -> None:
        count = len(self.system.instances)
        if self.system.composition is None:
            return
        seen: list[int] = []
        stack: list[Composition] = [self.system.composition]
        while stack:
            node = stack.pop()
            if isinstance(node, InstanceRef):
                seen.append(node.instance)
            elif isinstance(node, Interleave):
                stack.extend(node.children)
            elif isinstance(node, Parallel):
                if len(node.alphabets) != len(node.children):
                    self.add(None, f"parallel node with {len(node.children)} children has "
                                   f"{len(node.alphabets)} alphabets")
                for child, alphabet in zip(node.children, node.alphabets, strict=False):
                    leak = alphabet & _hidden_within(child)
                    if leak:
                        self.add(None, f"event(s) {sorted(leak)} hidden inside an operand "
                                       "are in its alphabet above the hiding")
                stack.extend(node.children)
        for i in seen:
            if not 0 <= i < count:
                self.add(None, f"composition names instance #{i}; there are {count}")
        if len(set(seen)) != len(seen):
            self.add(None, "composition names an instance more than once")
        missing = sorted(set(range(count)) - set(seen))
        if missing:
            self.add(None, f"composition leaves out instance(s) {missing}")

    def run(self) -> list[Diagnostic]:
        s = self.system
        names = [v.name for v in s.globals] + [c.name for c in s.channels]
        for name in sorted({n for n in names if names.count(n) > 1}):
            self.add(None, f"global name {name!r} is declared more than once")
        templates = [p.name for p in s.processes]
        for name in sorted({n for n in templates if templates.count(n) > 1}):
            self.add(None, f"process {name!r} is defined more than once")
        for v in s.globals:
            inits = v.init if isinstance(v.init, tuple) else (v.init,)
            for init in inits:
                if init is not None:
                    self.names(init, None, frozenset(), f"global {v.name}")
        for p in s.processes:
            self.process(p)
        if s.never is not None:
            self.process(s.never)
        for i, inst in enumerate(s.instances):
            target = self.processes.get(inst.process)
            if target is None:
                self.add(inst.span, f"instance #{i} of unknown process {inst.process!r}")
            elif len(inst.arguments) != len(target.parameters):
                self.add(inst.span, f"instance #{i} of {inst.process} has "
                                    f"{len(inst.arguments)} argument(s), expected "
                                    f"{len(target.parameters)}")
        self.composition()
        for prop in s.propositions:
            self.names(prop.expr, None, frozenset(), f"proposition {prop.name}")
        for prop in s.properties:
            where = f"property #{prop.number}"
            for e in _ltl_states(prop):
                self.names(e, None, frozenset(), where)
            if prop.condition is not None:
                self.names(prop.condition, None, frozenset(), where)
        return self.problems


def _local_names(p: Process) -> set[str]:
    return {v.name for v in p.locals} | set(p.parameters) | {c.name for c in p.channels}


def _runs(stmts: tuple[Stmt, ...]) -> Iterator[Run]:
    work = [stmts]
    while work:
        for s in work.pop():
            if isinstance(s, Run):
                yield s
            elif isinstance(s, If):
                work += [branch for _, branch in s.branches] + [s.otherwise]
            elif isinstance(s, While):
                work.append(s.body)


def validate_system(system: TransitionSystem) -> list[Diagnostic]:
    """Return the structural problems of one transition system (empty: well formed)."""
    return _Checker(system).run()


def validate_model_file(model_file: ModelFile) -> list[Diagnostic]:
    """Return the problems of every system of the file, plus duplicate property numbers."""
    problems = [d for s in model_file.systems for d in validate_system(s)]
    numbers = [p.number for _, p in model_file.properties()]
    for number in sorted({n for n in numbers if numbers.count(n) > 1}):
        problems.append(_problem(None, f"property number {number} is used more than once"))
    return problems


def _hidden_within(node: Composition) -> frozenset[str]:
    """Return the event names hidden by ``Parallel`` nodes inside ``node``."""
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Parallel):
            out |= n.hidden
        if not isinstance(n, InstanceRef):
            stack.extend(n.children)
    return frozenset(out)
