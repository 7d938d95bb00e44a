"""How many times a Promela process executes its ``run`` statements, found by running
the process alone on an abstraction of its local state.

The usual way to start N processes is a counting loop in ``init``::

    init { byte i; atomic { do :: i < N -> run P(i); i++ :: else -> break od } }

No control-graph test can bound that ``run``; following ``init``'s own locals can. The
abstraction: a state is the control location plus the values of the process's locals
(parameters included), where a value the process cannot know alone is *unknown*:
globals (other processes write them), received messages, ``run``'s pid. Locals are
private in Promela (a remote reference reads, never writes), so every real run of the
process is a path of this graph: a guard that evaluates to false on known values is
false in every real state; one that depends on unknown values may go either way (both
are followed). The largest number of ``run P`` statements on a path is then an upper
bound on the instances of ``P`` the process creates. A ``run`` on a cycle of the graph,
or a graph above ``MAX_STATES`` abstract states, gives no bound (None).
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.backends.csp.text import apply_binary, array_dims, wrap_const
from bridge.ir.expr import (
    Assign,
    Binary,
    Builtin,
    Conditional,
    Const,
    ElseGuard,
    Expr,
    If,
    Index,
    LocalVar,
    Receive,
    RecvBind,
    Run,
    Send,
    Stmt,
    Unary,
    Var,
    While,
)
from bridge.ir.model import Process
from bridge.ir.types import IntType, Overflow, Type

__all__ = ["MAX_STATES", "count_runs"]

MAX_STATES = 20_000  # abstract states of one process
MAX_FORKS = 64  # branches of one effect on unknown conditions
MAX_LOOP = 10_000  # iterations of a loop inside one effect

Values = tuple[int | None, ...]


def _stored(v: int | None, t: Type) -> int | None:
    """Return ``v`` as stored into a variable of type ``t`` (None stays unknown)."""
    return None if v is None else wrap_const(v, t)


class _Unknowable(Exception):
    """The process does something the abstraction does not follow."""


class _Process:
    """The abstract state space of one process (module doc)."""

    def __init__(self, process: Process, params: Sequence[int | None], pid: int | None) -> None:
        self.process = process
        self.pid = pid
        self.slots: dict[str, tuple[int, list[int], Type]] = {}  # name -> (offset, dims, element)
        size = 0
        types: dict[str, Type] = {p: IntType(None, None, Overflow.NONE, "var")
                                  for p in process.parameters}
        types.update({v.name: v.type for v in process.locals})
        for name, t in types.items():
            dims, element = array_dims(t)
            self.slots[name] = (size, dims, element)
            n = 1
            for d in dims:
                n *= d
            size += n
        self.size = size
        init: list[int | None] = [0] * size
        for p, value in zip(process.parameters, params, strict=False):
            off, _, element = self.slots[p]
            init[off] = _stored(value, element)
        for v in process.locals:
            if v.name in process.parameters and v.init is None:
                continue
            if v.init is None:
                continue
            off, dims, element = self.slots[v.name]
            n = 1
            for d in dims:
                n *= d
            exprs = list(v.init) if isinstance(v.init, tuple) else [v.init] * n
            env = (tuple(init), {})
            for x, e in enumerate(exprs[:n]):
                init[off + x] = _stored(self.eval(e, env), element)
        self.initial = (process.initial, tuple(init))

    # -- expressions ---------------------------------------------------------------
    def eval(self, e: Expr, env: tuple[Values, dict[str, int | None]]) -> int | None:
        values, block = env
        if isinstance(e, Const):
            return int(e.value)
        if isinstance(e, Var):
            if e.scope == "block":
                return block.get(e.name)
            if e.scope == "local" and e.name in self.slots:
                off, dims, _ = self.slots[e.name]
                return values[off] if not dims else None
            return None
        if isinstance(e, Index):
            where = self.element(e, env)
            return values[where] if isinstance(where, int) else None
        if isinstance(e, Unary):
            v = self.eval(e.operand, env)
            if v is None:
                return None
            return {"-": -v, "!": int(not v), "~": ~v}.get(e.op)
        if isinstance(e, Binary):
            a = self.eval(e.left, env)
            if e.op == "&&" and a == 0:
                return 0
            if e.op == "||" and a not in (0, None):
                return 1
            b = self.eval(e.right, env)
            if e.op == "&&" and b == 0:
                return 0
            if e.op == "||" and b not in (0, None):
                return 1
            if a is None or b is None:
                return None
            return apply_binary(e.op, a, b)
        if isinstance(e, Conditional):
            c = self.eval(e.cond, env)
            if c is None:
                return None
            return self.eval(e.then if c else e.otherwise, env)
        if isinstance(e, Builtin) and e.name == "_pid":
            return self.pid
        return None

    def element(self, e: Index, env: tuple[Values, dict]) -> int | str | None:
        """Return the flat slot of a local array element, "all" when the index is not
        known, or None when ``e`` is not a local array element."""
        base, idx = e, []
        while isinstance(base, Index):
            idx.append(base.index)
            base = base.base
        if not (isinstance(base, Var) and base.scope == "local" and base.name in self.slots):
            return None
        off, dims, _ = self.slots[base.name]
        flat = 0
        for x, d in zip(reversed(idx), dims, strict=False):
            v = self.eval(x, env)
            if v is None or not 0 <= v < d:
                return "all"  # an unknown index, or one out of range (an error in Promela)
            flat = flat * d + v
        return off + flat

    # -- statements ----------------------------------------------------------------
    def assign(self, target: Expr, value: int | None, values: list[int | None],
               env: tuple[Values, dict]) -> None:
        if isinstance(target, Var):
            if target.scope == "block":
                env[1][target.name] = value
            elif target.scope == "local" and target.name in self.slots:
                off, dims, element = self.slots[target.name]
                if not dims:
                    values[off] = _stored(value, element)
        elif isinstance(target, Index):
            where = self.element(target, env)
            if isinstance(where, int):
                base = target
                while isinstance(base, Index):
                    base = base.base
                values[where] = _stored(value, self.slots[base.name][2])  # type: ignore[union-attr]
            elif where == "all":
                base = target
                while isinstance(base, Index):
                    base = base.base
                off, dims, _ = self.slots[base.name]  # type: ignore[union-attr]
                n = 1
                for d in dims:
                    n *= d
                for x in range(off, off + n):
                    values[x] = None

    def run_effect(self, stmts: Sequence[Stmt], values: Values) -> list[tuple[Values, dict[str, int]]]:
        """Return every (locals after, runs executed) of an effect."""
        out: list[tuple[Values, dict[str, int]]] = []
        todo: list[tuple[int, list[int | None], dict[str, int | None], dict[str, int], list]] = [
            (0, list(values), {}, {}, list(stmts))]
        while todo:
            _, vals, block, runs, rest = todo.pop()
            while rest:
                s = rest.pop(0)
                env = (tuple(vals), block)
                if isinstance(s, Assign):
                    self.assign(s.target, self.eval(s.value, env), vals, env)
                elif isinstance(s, LocalVar):
                    init = s.init if not isinstance(s.init, tuple) else None
                    block[s.name] = self.eval(init, env) if init is not None else 0
                elif isinstance(s, Run):
                    runs[s.proctype] = runs.get(s.proctype, 0) + 1
                    if s.target is not None:
                        self.assign(s.target, None, vals, env)
                elif isinstance(s, Receive):
                    for a in s.args:
                        if isinstance(a, RecvBind) and a.target is not None:
                            self.assign(a.target, None, vals, env)
                elif isinstance(s, If):
                    choices: list[list[Stmt]] = []
                    decided = False
                    for c, body in s.branches:
                        v = self.eval(c, env)
                        if v == 0:
                            continue
                        choices.append(list(body))
                        if v is not None:
                            decided = True
                            break
                    if not decided:
                        choices.append(list(s.otherwise))
                    for body in choices[1:]:
                        if len(todo) + len(out) > MAX_FORKS:
                            raise _Unknowable()
                        todo.append((0, list(vals), dict(block), dict(runs), body + rest))
                    rest = choices[0] + rest
                elif isinstance(s, While):
                    v = self.eval(s.cond, env)
                    if v is None:
                        if any(isinstance(x, Run) for x in _walk(s.body)):
                            raise _Unknowable()
                        for x in _walk(s.body):
                            if isinstance(x, Assign):
                                self.havoc(x.target, vals, block)
                    elif v:
                        block["__loops"] = (block.get("__loops") or 0) + 1
                        if block["__loops"] > MAX_LOOP:
                            raise _Unknowable()
                        rest = [*s.body, s, *rest]
                elif isinstance(s, Send):
                    pass
            out.append((tuple(vals), runs))
        return out

    def havoc(self, target: Expr, vals: list[int | None], block: dict) -> None:
        base = target
        while isinstance(base, Index):
            base = base.base
        if isinstance(base, Var) and base.scope == "block":
            block[base.name] = None
        elif isinstance(base, Var) and base.name in self.slots:
            off, dims, _ = self.slots[base.name]
            n = 1
            for d in dims:
                n *= d
            for x in range(off, off + n):
                vals[x] = None

    # -- the graph -------------------------------------------------------------------
    def successors(self, state: tuple[int, Values]) -> list[tuple[tuple[int, Values], dict[str, int]]]:
        lid, values = state
        edges = [e for e in self.process.edges if e.source == lid]
        env = (values, {})
        out = []
        sure = False  # some non-else option is certainly executable
        for e in edges:
            if isinstance(e.guard, ElseGuard):
                continue
            g = self.eval(e.guard, env) if e.guard is not None else 1
            if g == 0:
                continue
            if g is not None and e.comm is None:
                sure = True
            out += self._take(e, values)
        for e in edges:
            if isinstance(e.guard, ElseGuard) and not sure:
                out += self._take(e, values)
        return out

    def _take(self, e, values: Values):  # noqa: ANN001, ANN202
        stmts: list[Stmt] = [e.comm] if isinstance(e.comm, Receive) else []
        return [((e.target, vals), runs) for vals, runs in self.run_effect([*stmts, *e.effect], values)]


def _walk(stmts: Sequence[Stmt]) -> list[Stmt]:
    out: list[Stmt] = []
    stack = list(stmts)
    while stack:
        s = stack.pop()
        out.append(s)
        if isinstance(s, If):
            for _, b in s.branches:
                stack += list(b)
            stack += list(s.otherwise)
        elif isinstance(s, While):
            stack += list(s.body)
    return out


def count_runs(process: Process, params: Sequence[int | None], pid: int | None
               ) -> dict[str, int] | None:
    """Return, for each proctype, the most ``run`` statements of it that one instance
    of ``process`` (with these parameter values and pid; None: unknown) can execute
    in any run of the model; None when the abstraction finds no bound (module doc)."""
    if not any(isinstance(s, Run) for e in process.edges for s in _walk(e.effect)):
        return {}
    try:
        space = _Process(process, params, pid)
        index: dict[tuple[int, Values], int] = {space.initial: 0}
        graph: list[list[tuple[int, dict[str, int]]]] = [[]]
        todo = [space.initial]
        while todo:
            state = todo.pop()
            here = index[state]
            for nxt, runs in space.successors(state):
                n = index.get(nxt)
                if n is None:
                    if len(index) >= MAX_STATES:
                        return None
                    n = index[nxt] = len(graph)
                    graph.append([])
                    todo.append(nxt)
                graph[here].append((n, runs))
    except _Unknowable:
        return None
    return _longest(graph)


def _longest(graph: list[list[tuple[int, dict[str, int]]]]) -> dict[str, int] | None:
    """Return the largest run count per proctype over the paths from node 0; None if a
    cycle executes a run (Tarjan's SCCs, iteratively)."""
    n = len(graph)
    index = [-1] * n
    low = [0] * n
    comp = [-1] * n
    on = [False] * n
    stack: list[int] = []
    counter = 0
    ncomp = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on[v] = True
            if i < len(graph[v]):
                work.append((v, i + 1))
                w = graph[v][i][0]
                if index[w] < 0:
                    work.append((w, 0))
                elif on[w]:
                    low[v] = min(low[v], index[w])
                continue
            for w, _ in graph[v]:
                if comp[w] < 0 and on[w]:
                    low[v] = min(low[v], low[w])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on[w] = False
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
    for v in range(n):
        for w, runs in graph[v]:
            if comp[v] == comp[w] and any(runs.values()):
                return None
    names = {name for edges in graph for _, runs in edges for name in runs}
    # Tarjan numbers components in reverse topological order: successors first.
    best: list[dict[str, int]] = [dict.fromkeys(names, 0) for _ in range(ncomp)]
    members: list[list[int]] = [[] for _ in range(ncomp)]
    for v in range(n):
        members[comp[v]].append(v)
    for c in range(ncomp):
        for v in members[c]:
            for w, runs in graph[v]:
                if comp[w] == c:
                    continue
                for name in names:
                    got = best[comp[w]][name] + runs.get(name, 0)
                    if got > best[c][name]:
                        best[c][name] = got
    return best[comp[0]]
