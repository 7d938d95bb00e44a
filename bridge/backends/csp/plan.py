"""The static plan of a Promela model written as CSP#: instances, process pools for
``run``, channel numbers and which channels a channel expression may name.

CSP# has no dynamic process creation that keeps a process's variables global, so every
process a Promela model may ever run needs a fixed *slot*: a CSP# process that exists
from the start, dead (control location -1) until a ``run`` wakes it. The slots of one
proctype form a *pool*. A ``run P(...)`` takes the lowest free slot of ``P``'s pool;
since Promela lets only the youngest live process die (promela-spin.md section 6; the
native engine, semantics/state.py), the live instances of a pool always occupy its
lowest slots in creation order, so the CSP# state is a function of the Promela state
(and the lowest free slot is the number of running instances of the pool).

``run_bounds`` counts how many instances of each proctype a model may ever create,
following each creator alone on its own locals (``runs.count_runs``: a counting loop
``do :: i < N -> run P(i); i++ ...`` gives N). When that finds no bound (a loop bounded
by globals, processes that start each other in a cycle), the pool size is the largest
number of simultaneously live instances, which the caller finds by exploring the source
model (``compare.pool_sizes``) and passes in.

Channels get fixed numbers: global channels ``1..n`` in declaration order (SPIN's ids),
then the channels declared in each instance, static instances first (SPIN's ids for the
instances that exist at the start), then the slots' channels. SPIN gives a process that
starts later the next free ids instead; the numbers differ only for a model that does
arithmetic on channel ids or keeps the id of a dead process's channel (README).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from bridge.diagnostics import Span, UnsupportedError
from bridge.ir.expr import (
    Assign,
    Expr,
    If,
    Index,
    Receive,
    RecvBind,
    Run,
    Send,
    Stmt,
    Var,
    While,
)
from bridge.ir.model import Channel, Edge, Process, TransitionSystem
from bridge.ir.types import ArrayType, ChanType, Type

__all__ = [
    "ChannelInfo",
    "InstancePlan",
    "Plan",
    "iter_statements",
    "make_plan",
    "proc_name",
    "run_bounds",
    "run_sites",
]

UNBOUNDED = -1  # a run_bounds value: the proctype may be started without bound


@dataclass(frozen=True, slots=True)
class ChannelInfo:
    """One channel with its fixed number: owner None for a global channel, else the
    instance that declares it (created and removed with it)."""

    number: int
    channel: Channel
    owner: int | None


@dataclass(slots=True)
class InstancePlan:
    """A CSP# process for one Promela instance: a static instance (alive from the start,
    pid = index) or a pool slot (started by ``run``)."""

    index: int
    process: Process
    static: bool
    name: str  # CSP# process name, also the prefix of its variables and events
    label: str  # for comments and errors: ``Worker[2]``, ``Worker (slot 1)``
    arguments: tuple[Expr, ...] = ()
    span: Span | None = None
    channels: dict[str, int] = field(default_factory=dict)  # local channel -> number


@dataclass(slots=True)
class Plan:
    """Instances (static first, then pools in proctype order), channels by number."""

    instances: list[InstancePlan]
    pools: dict[str, list[int]]  # proctype -> its slots' instance indices
    channels: list[ChannelInfo]  # index = number - 1
    global_channels: dict[str, int]

    def channel(self, number: int) -> ChannelInfo:
        return self.channels[number - 1]


def iter_statements(stmts: Sequence[Stmt], in_loop: bool = False) -> Iterator[tuple[Stmt, bool]]:
    """Yield every statement of an effect, nested ones included, with whether it sits
    in a ``While`` (iteratively)."""
    stack: list[tuple[Stmt, bool]] = [(s, in_loop) for s in reversed(stmts)]
    while stack:
        s, loop = stack.pop()
        yield s, loop
        if isinstance(s, If):
            stack.extend((x, loop) for x in reversed(s.otherwise))
            for _, body in reversed(s.branches):
                stack.extend((x, loop) for x in reversed(body))
        elif isinstance(s, While):
            stack.extend((x, True) for x in reversed(s.body))


def run_sites(process: Process) -> list[tuple[Run, Edge, bool]]:
    """Return every ``run`` of ``process`` with its edge and whether it may execute
    more than once per instance (on a control cycle or in a loop of an effect)."""
    out_edges: dict[int, list[Edge]] = {}
    for e in process.edges:
        out_edges.setdefault(e.source, []).append(e)

    def reaches(start: int, goal: int) -> bool:
        seen, stack = {start}, [start]
        while stack:
            for e in out_edges.get(stack.pop(), []):
                if e.target == goal:
                    return True
                if e.target not in seen:
                    seen.add(e.target)
                    stack.append(e.target)
        return False

    out: list[tuple[Run, Edge, bool]] = []
    for e in process.edges:
        runs = [(s, loop) for s, loop in iter_statements(e.effect) if isinstance(s, Run)]
        if not runs:
            continue
        cyclic = e.source == e.target or reaches(e.target, e.source)
        out += [(r, e, cyclic or loop) for r, loop in runs]  # type: ignore[misc]
    return out


def run_bounds(system: TransitionSystem) -> dict[str, int]:
    """Return, for every proctype that some ``run`` starts, how many instances of it a
    run of the model may create at most (``UNBOUNDED`` when ``runs.count_runs`` finds
    no bound for a creator, or when processes start each other in a cycle)."""
    from bridge.backends.csp.runs import count_runs
    from bridge.backends.spin.promela_text import fold

    targets = {run.proctype for p in system.processes for run, _, _ in run_sites(p)}
    creators = [p for p in system.processes if run_sites(p)]
    static_runs: list[tuple[set[str], dict[str, int] | None]] = []
    for i, inst in enumerate(system.instances):
        process = system.process(inst.process)
        sites = run_sites(process)
        if sites:
            static_runs.append(({run.proctype for run, _, _ in sites},
                                count_runs(process, [fold(a) for a in inst.arguments], i)))
    template_runs = {p.name: count_runs(p, [None] * len(p.parameters), None)
                     for p in creators if p.name in targets}
    dynamic: dict[str, int] = {}
    busy: set[str] = set()

    def created(name: str) -> int:
        """Instances of ``name`` started by run, over a whole run of the model."""
        if name in dynamic:
            return dynamic[name]
        if name in busy:
            return UNBOUNDED  # a creation cycle
        busy.add(name)
        n = 0
        for names, runs in static_runs:
            if name not in names:
                continue
            if runs is None:
                n = UNBOUNDED
                break
            n += runs.get(name, 0)
        for creator, runs in template_runs.items():
            if n == UNBOUNDED:
                break
            if runs is not None and not runs.get(name, 0):
                continue
            c = created(creator)
            if c == 0:
                continue
            if runs is None or c == UNBOUNDED:
                n = UNBOUNDED
                break
            n += c * runs[name]
        busy.discard(name)
        dynamic[name] = n
        return n

    return {name: created(name) for name in sorted(targets)}


def proc_name(proctype: str) -> str:
    """Return the CSP# name of a proctype (``:init:`` is ``Init``)."""
    from bridge.backends.spin.promela_text import sanitize

    return "Init" if proctype == ":init:" else sanitize(proctype)


def make_plan(system: TransitionSystem, pool_sizes: Mapping[str, int] | None = None) -> Plan:
    """Return the instances and channel numbers of ``system``; ``pool_sizes`` gives the
    pool of every proctype whose ``run``s ``run_bounds`` cannot count. Raises
    ``UnsupportedError`` at a ``run`` that needs a pool size nobody gave."""
    pool_sizes = dict(pool_sizes or {})
    instances: list[InstancePlan] = []
    for i, inst in enumerate(system.instances):
        process = system.process(inst.process)
        label = inst.name or f"{inst.process}[{i}]"
        instances.append(InstancePlan(i, process, True, f"{proc_name(inst.process)}{i}", label,
                                      inst.arguments, inst.span))
    pools: dict[str, list[int]] = {}
    bounds = run_bounds(system)
    for name, bound in bounds.items():
        try:
            process = system.process(name)
        except KeyError:
            site = _first_run(system, name)
            raise UnsupportedError.at(site.span if site else None,
                                      f"run of unknown process '{name}'") from None
        size = pool_sizes.get(name, bound)
        if size == UNBOUNDED:
            site = _first_run(system, name)
            raise UnsupportedError.at(
                site.span if site else process.span,
                f"'run {name}' that may execute without a bound known before the model "
                "runs (CSP# needs a fixed process for each instance): give the pool size")
        pools[name] = []
        for j in range(size):
            k = len(instances)
            pools[name].append(k)
            instances.append(InstancePlan(k, process, False, f"{proc_name(name)}{k}",
                                          f"{name} (slot {j + 1} of {size})", (), process.span))
    channels: list[ChannelInfo] = []
    global_channels: dict[str, int] = {}
    for c in system.channels:
        channels.append(ChannelInfo(len(channels) + 1, c, None))
        global_channels[c.name] = len(channels)
    for inst in instances:
        for c in inst.process.channels:
            channels.append(ChannelInfo(len(channels) + 1, c, inst.index))
            inst.channels[c.name] = len(channels)
    return Plan(instances, pools, channels, global_channels)


def _first_run(system: TransitionSystem, name: str) -> Run | None:
    for p in system.processes:
        for run, _, _ in run_sites(p):
            if run.proctype == name:
                return run
    return None


# ---------------------------------------------------------------------------------
# Which channels a channel expression may name (a flow-insensitive points-to analysis)

Cell = tuple[int | None, str]  # (instance or None for a global, variable name)
TOP = frozenset({-1})  # "any channel": the expression is not a plain copy of channel ids


class ChannelFlow:
    """For each channel-valued variable, the channel numbers it may hold (0 = none),
    found by propagating initial values, assignments, ``run`` arguments and message
    fields to a fixed point. Used to pair rendezvous sends with the receives that may
    meet them; a pair that cannot meet only costs a dead CSP# option, so the analysis
    over-approximates wherever it is unsure (``TOP``)."""

    def __init__(self, system: TransitionSystem, plan: Plan,
                 initial: Mapping[Cell, frozenset[int]]) -> None:
        self.system = system
        self.plan = plan
        self.cells: dict[Cell, frozenset[int]] = dict(initial)
        self.fields: dict[tuple[int, int], frozenset[int]] = {}  # (channel, field) -> values
        self._solve()

    def _chan_typed(self, t: Type | None) -> bool:
        while isinstance(t, ArrayType):
            t = t.element
        return isinstance(t, ChanType)

    def _cell(self, k: int | None, e: Expr) -> Cell | None:
        while isinstance(e, Index):
            e = e.base
        if not isinstance(e, Var):
            return None
        if e.scope == "local" and k is not None:
            inst = self.plan.instances[k]
            if e.name in inst.channels:
                return None
            return (k, e.name)
        if e.scope == "global" and e.name not in self.plan.global_channels:
            return (None, e.name)
        return None

    def values(self, k: int | None, e: Expr) -> frozenset[int]:
        """Return the channel numbers ``e`` (a channel expression of instance ``k``)
        may evaluate to; ``TOP`` when unknown."""
        base = e
        while isinstance(base, Index):
            base = base.base
        if isinstance(base, Var):
            if base.scope == "global" and base.name in self.plan.global_channels:
                return frozenset({self.plan.global_channels[base.name]})
            if base.scope == "local" and k is not None:
                inst = self.plan.instances[k]
                if isinstance(e, Var) and base.name in inst.channels:
                    return frozenset({inst.channels[base.name]})
                names = [n for n in inst.channels if n.startswith(base.name + "[")]
                if names:
                    return frozenset(inst.channels[n] for n in names)
            cell = self._cell(k, e)
            if cell is not None:
                return self.cells.get(cell, frozenset({0}))
        return TOP

    def _join(self, cell: Cell, values: frozenset[int]) -> bool:
        old = self.cells.get(cell, frozenset({0}))
        new = TOP if TOP <= values or TOP <= old else old | values
        if new != old:
            self.cells[cell] = new
            return True
        return False

    def _solve(self) -> None:
        changed = True
        rounds = 0
        while changed and rounds < 50:
            changed = False
            rounds += 1
            for inst in self.plan.instances:
                k = inst.index
                for e in inst.process.edges:
                    comms: list[Stmt] = [e.comm] if e.comm is not None else []
                    for s in [*comms, *(x for x, _ in iter_statements(e.effect))]:
                        changed |= self._transfer(k, s)
        if changed:
            for cell in list(self.cells):
                self.cells[cell] = TOP

    def _transfer(self, k: int, s: Stmt) -> bool:
        changed = False
        types = {v.name: v.type for v in self.plan.instances[k].process.locals}
        gtypes = {v.name: v.type for v in self.system.globals}
        if isinstance(s, Assign):
            cell = self._cell(k, s.target)
            if cell is not None:
                t = types.get(cell[1]) if cell[0] is not None else gtypes.get(cell[1])
                if self._chan_typed(t):
                    changed |= self._join(cell, self.values(k, s.value))
        elif isinstance(s, Run):
            for slot in self.plan.pools.get(s.proctype, []):
                process = self.plan.instances[slot].process
                ptypes = {v.name: v.type for v in process.locals}
                for p, a in zip(process.parameters, s.args, strict=False):
                    if self._chan_typed(ptypes.get(p)):
                        changed |= self._join((slot, p), self.values(k, a))
        elif isinstance(s, Send):
            for ch in self.values(k, s.channel):
                for j, a in enumerate(s.args):
                    key = (ch, j)
                    old = self.fields.get(key, frozenset())
                    new = old | self.values(k, a)
                    if new != old:
                        self.fields[key] = new
                        changed = True
        elif isinstance(s, Receive):
            chans = self.values(k, s.channel)
            for j, a in enumerate(s.args):
                if not isinstance(a, RecvBind) or a.target is None:
                    continue
                cell = self._cell(k, a.target)
                if cell is None:
                    continue
                t = types.get(cell[1]) if cell[0] is not None else gtypes.get(cell[1])
                if not self._chan_typed(t):
                    continue
                found: frozenset[int] = self.fields.get((-1, j), frozenset())
                for (c, f), v in self.fields.items():
                    if f == j and (c in chans or -1 in chans):
                        found |= v
                changed |= self._join(cell, found)
        return changed
