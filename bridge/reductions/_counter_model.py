"""The counter abstraction's model analysis (paper 002 section 3, Definition 6):
families of instances whose graphs agree once identity is erased, process-counter
variables (Example 2), derived counters and the event names a family renders. Part of
``bridge.reductions.counter`` (its docstring has the whole picture)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.diagnostics import ConfigurationError, UnsupportedError
from bridge.ir import (
    ArrayType,
    Assign,
    Binary,
    Const,
    Edge,
    Event,
    If,
    Index,
    InstanceRef,
    Interleave,
    Parallel,
    Process,
    TransitionSystem,
    Var,
    Variable,
    While,
)
from bridge.ir.property import (
    Fairness,
    Ltl,
    LtlEvent,
    LtlState,
)
from bridge.reductions._enabling import operand_instances
from bridge.reductions._interp import Env, evaluate
from bridge.reductions._rewrite import rewrite
from bridge.reductions.dependencies import _event_may_match, event_name

SUPPORTED_FAIRNESS = frozenset({Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG})

AbstractState = tuple  # (globals, others, counts)
INIT_EVENT = "init"  # the event of the initial pseudo-step (bridge/fairness/product.py)


# ---------------------------------------------------------------------------------
# Model analysis


@dataclass
class _Family:
    name: str
    members: tuple[int, ...]
    process: Process  # one representative (identity erased in ``edges``)
    edges: tuple[Edge, ...]
    # per edge of ``edges``: the event name every member's step renders (``a``, ``a.0``),
    # ``base.*`` when the members' names differ or are not constant (erased), None: tau
    events: tuple[str | None, ...] = ()
    # per edge: the names the members render (an erased step is one of them)
    renders: tuple[frozenset[str], ...] = ()


@dataclass
class CounterModel:
    """The families, the other instances and the process-counter variables."""

    system: TransitionSystem
    families: list[_Family]
    others: list[int]
    counter_vars: frozenset[str]
    barrier_events: frozenset[str]
    derived: dict[str, tuple[int, frozenset[int]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _erase_identity(edge: Edge, memo: dict[Any, Edge] | None = None) -> Edge:
    """Return ``edge`` with its event's components dropped and spans erased (``rewrite``).

    ``memo`` shares the work between members: an ``Event`` occurs only as an edge's
    ``event``, so two edges equal once their events' components are dropped erase to
    the same edge (a family of 10 000 members rewrites one member's edges). Members a
    front-end made from one template share their edges' parts: those are found by the
    parts' identity first, without hashing their expressions."""
    key: Any = edge
    parts: tuple | None = None
    if memo is not None:
        if edge.event is not None and edge.event.components:
            parts = (edge.source, edge.target, id(edge.guard), id(edge.comm), id(edge.effect),
                     edge.event.base, id(edge.event.span), edge.label, edge.fairness, edge.text,
                     id(edge.span), edge.data_operation, edge.atomic)
            hit = memo.get(parts)
            if hit is not None:
                return hit
            key = dataclasses.replace(edge, event=Event(edge.event.base, (), edge.event.span))
        hit = memo.get(key)
        if hit is not None:
            if parts is not None:
                memo[parts] = hit
            return hit

    def fn(x: Any) -> Any:
        if isinstance(x, Event):
            return Event(x.base)
        return x

    erased = rewrite(edge, fn)
    if memo is not None:
        memo[key] = erased
        if parts is not None:
            memo[parts] = erased
    return erased


def _shared_events(system: TransitionSystem) -> frozenset[str]:
    shared: set[str] = set()
    stack = [] if system.composition is None else [system.composition]
    while stack:
        c = stack.pop()
        if isinstance(c, Parallel):
            seen: set[str] = set()
            for a in c.alphabets:
                shared |= seen & a
                seen |= a
            stack.extend(c.children)
        elif isinstance(c, Interleave):
            stack.extend(c.children)
        elif not isinstance(c, InstanceRef):
            raise UnsupportedError.at(None, f"composition {type(c).__name__} in a counter abstraction")
    return frozenset(shared)


def _blocked_barriers(system: TransitionSystem, family: set[int]) -> frozenset[str]:
    """Return the barrier events in the alphabet of an operand that contains a family
    member: a family without an edge for the event blocks it forever (``terminate`` of
    CSP# ``|||`` when the nodes never terminate)."""
    def instances(c: Any) -> set[int]:
        return set(operand_instances(c))

    blocked: set[str] = set()
    stack = [] if system.composition is None else [system.composition]
    while stack:
        c = stack.pop()
        if isinstance(c, Parallel):
            for child, alphabet in zip(c.children, c.alphabets, strict=True):
                if instances(child) & family:
                    blocked |= alphabet
            stack.extend(c.children)
        elif isinstance(c, Interleave):
            stack.extend(c.children)
    return frozenset(blocked)


def _walk_stmts(stmts: Iterable[Any]) -> Iterable[Any]:
    stack = list(stmts)
    while stack:
        s = stack.pop()
        yield s
        if isinstance(s, If):
            for _c, body in s.branches:
                stack.extend(body)
            stack.extend(s.otherwise)
        elif isinstance(s, While):
            stack.extend(s.body)


def _counter_variables(system: TransitionSystem) -> frozenset[str]:
    """Return the int globals only ever changed by ``x = x + 1`` or ``x = x - 1``."""
    candidates = {
        v.name for v in system.globals
        if not isinstance(v.type, ArrayType) and type(v.type).__name__ == "IntType"
    }
    bad: set[str] = set()
    for p in system.processes:
        for e in p.edges:
            for s in _walk_stmts(e.effect):
                if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.scope == "global":
                    name = s.target.name
                    v = s.value
                    ok = (
                        isinstance(v, Binary) and v.op in ("+", "-")
                        and isinstance(v.left, Var) and v.left.name == name
                        and isinstance(v.right, Const) and int(v.right.value) == 1
                    )
                    if not ok:
                        bad.add(name)
    return frozenset(candidates - bad)


def analyse_counter_model(
    system: TransitionSystem, formula: Ltl | None = None
) -> CounterModel:
    """Return the families of identical instances of ``system`` (identity erased).

    Two refinements make families of processes that differ only in their index:

    - *own cells*: a global array that each would-be member accesses at one constant
      cell of its own (``t[i]`` in ``Proc(i)``), that no other instance accesses at those
      cells and the formula does not read, is part of the member's local state: every
      member's ``t[c_k]`` becomes the local ``t`` (the cells must start equal). The
      concrete system is unchanged, so the abstraction is the same as if the model had
      declared the cell local to the process;
    - *observed members*: a member that renders an event atom of ``formula`` no other
      member renders (``push_inv.0`` of ``Proc(0)``) stays outside the family, as a
      concrete instance, so that the atom can be decided.

    Raises ``ConfigurationError`` if no two instances are identical and
    ``UnsupportedError`` for constructs the abstraction does not model (channels,
    atomic locations, barriers inside a family).
    """
    procs = {p.name: p for p in system.processes}
    if system.priority_scheduling:
        first = system.processes[0].span if system.processes else None
        raise UnsupportedError.at(first, "counter abstraction: process priorities")
    for p in system.processes:
        if p.channel_assertions:
            raise UnsupportedError.at(p.channel_assertions[0].span,
                                      "counter abstraction: channel assertions (xr/xs)")
    shared = _shared_events(system)
    groups: dict[str, list[int]] = {}
    for k, inst in enumerate(system.instances):
        groups.setdefault(inst.process.split("(")[0], []).append(k)
    atoms = _formula_events(formula)
    for base, members in list(groups.items()):
        groups[base] = _unobserved(members, system, procs, atoms)
    reads = _formula_globals(system, formula)
    member_edges: dict[int, tuple[Edge, ...]] = {}
    member_locals: dict[int, tuple[Variable, ...]] = {}
    notes: list[str] = []
    for base, members in groups.items():
        if len(members) < 2:
            continue
        own = _own_cells(system, members, procs, reads)
        for k in members:
            p = procs[system.instances[k].process]
            edges, extra = _localise(p.edges, own, k, system)
            member_edges[k] = edges
            member_locals[k] = p.locals + extra
        if own:
            notes.append(f"counter abstraction: the cells {', '.join(f'{a}[i]' for a in sorted(own))} "
                         f"of {base}(i) are local to each instance")
    families: list[_Family] = []
    in_family: set[int] = set()
    memo: dict[Any, Edge] = {}
    for base, members in groups.items():
        if len(members) < 2:
            continue
        erased = []
        for k in members:
            inst = system.instances[k]
            if inst.arguments:
                erased = []
                break
            p = procs[inst.process]
            erased.append((tuple(_erase_identity(e, memo) for e in member_edges[k]), member_locals[k],
                           p.initial,
                           tuple((loc.id, loc.atomic, loc.end, loc.terminal) for loc in p.locations)))
        if not erased or any(x != erased[0] for x in erased):
            continue
        proc = procs[system.instances[members[0]].process]
        if any(loc.atomic for loc in proc.locations) or proc.channels:
            raise UnsupportedError.at(proc.span, f"counter abstraction of {base}: atomic locations or channels")
        proc = dataclasses.replace(proc, edges=member_edges[members[0]],
                                   locals=member_locals[members[0]])
        edges = erased[0][0]
        for k in members:
            for e in procs[system.instances[k].process].edges:
                if e.comm is not None:
                    raise UnsupportedError.at(e.span, f"counter abstraction of {base}: channel operations")
                if _event_may_match(event_name(e), shared) and not getattr(e, "data_operation", False):
                    raise UnsupportedError.at(
                        e.span, f"counter abstraction of {base}: barrier event '{event_name(e)}'"
                    )
        events, renders = _family_events([member_edges[k] for k in members])
        families.append(_Family(base, tuple(members), proc, edges, events, renders))
        in_family.update(members)
    if not families:
        raise ConfigurationError(
            "counter abstraction needs at least two identical processes (same process graph "
            "once parameters are folded and event indices dropped); none were found"
        )
    others = [k for k in range(len(system.instances)) if k not in in_family]
    blocked = _blocked_barriers(system, in_family)
    for k in others:
        p = procs[system.instances[k].process]
        for e in p.edges:
            if e.comm is not None:
                raise UnsupportedError.at(e.span, "counter abstraction: channel operations")
            name = event_name(e)
            if _event_may_match(name, shared) and not getattr(e, "data_operation", False) \
                    and (name is None or name.endswith(".*") or name not in blocked):
                raise UnsupportedError.at(
                    e.span, f"counter abstraction: barrier event '{e.event.base}' between processes"
                )
        if any(loc.atomic for loc in p.locations):
            raise UnsupportedError.at(p.span, "counter abstraction: atomic locations")
    counters = _counter_variables(system)
    model = CounterModel(system, families, others, counters, shared)
    model.derived = _derived_counters(system, families, others, counters)
    model.notes.extend(n for n in notes if any(f.name in n for f in families))
    return model


def _formula_events(formula: Ltl | None) -> frozenset[str]:
    names: set[str] = set()
    stack = [] if formula is None else [formula]
    while stack:
        f = stack.pop()
        if isinstance(f, LtlEvent):
            names.add(f.name)
        for child in ("operand", "left", "right"):
            sub = getattr(f, child, None)
            if sub is not None:
                stack.append(sub)
    return frozenset(names)


def _formula_globals(system: TransitionSystem, formula: Ltl | None) -> frozenset[str]:
    """Return the globals the formula's state atoms read (propositions expanded)."""
    props = {p.name: p.expr for p in system.propositions}
    names: set[str] = set()
    stack: list[Any] = [] if formula is None else [formula]
    while stack:
        f = stack.pop()
        if isinstance(f, LtlState):
            stack.append(f.expr)
            continue
        if isinstance(f, Var) and f.scope == "global":
            names.add(f.name)
            if f.name in props:
                stack.append(props[f.name])
            continue
        if isinstance(f, tuple):
            stack.extend(f)
        elif dataclasses.is_dataclass(f) and not isinstance(f, type):
            stack.extend(getattr(f, fld.name) for fld in dataclasses.fields(f) if fld.name != "span")
    return frozenset(names)


def _unobserved(members: list[int], system: TransitionSystem, procs: dict[str, Process],
                atoms: frozenset[str]) -> list[int]:
    """Return ``members`` without those that render an event atom no other renders."""
    if not atoms:
        return members
    renders = {k: {_rendered_event(e) for e in procs[system.instances[k].process].edges}
               for k in members}
    how_many: dict[str | None, int] = {}  # name -> how many members render it
    for names in renders.values():
        for name in names:
            how_many[name] = how_many.get(name, 0) + 1
    # a member renders an atom no other renders iff it renders one that only one does
    return [k for k in members if not any(how_many[name] == 1 for name in renders[k] & atoms)]


def _array_uses(system: TransitionSystem, procs: dict[str, Process]) -> dict[str, dict[int, set[int] | None]]:
    """Return array -> instance -> the constant cells its edges access (None: some
    access has a non-constant index)."""
    arrays = {v.name for v in system.globals
              if isinstance(v.type, ArrayType) and not isinstance(v.type.element, ArrayType)}
    uses: dict[str, dict[int, set[int] | None]] = {}
    if not arrays:
        return uses
    for k, inst in enumerate(system.instances):
        found: list[tuple[str, int | None]] = []

        def fn(x: Any, found: list[tuple[str, int | None]] = found) -> Any:
            if isinstance(x, Index) and isinstance(x.base, Var) and x.base.scope == "global" \
                    and x.base.name in arrays:
                c = x.index.value if isinstance(x.index, Const) else None
                found.append((x.base.name, None if c is None else int(c)))
            return x

        for e in procs[inst.process].edges:
            rewrite(e, fn)
        for name, c in found:
            per = uses.setdefault(name, {})
            if c is None:
                per[k] = None
            elif k not in per:
                per[k] = {c}
            elif per[k] is not None:
                per[k].add(c)  # type: ignore[union-attr]
    return uses


def _own_cells(system: TransitionSystem, members: list[int], procs: dict[str, Process],
               formula_reads: frozenset[str]) -> dict[str, dict[int, int]]:
    """Return array -> member -> its own cell, for the arrays whose cells are local to
    the members (see ``analyse_counter_model``)."""
    out: dict[str, dict[int, int]] = {}
    variables = {v.name: v for v in system.globals}
    for name, per in _array_uses(system, procs).items():
        if name in formula_reads:
            continue
        cells: dict[int, int] = {}
        for k in members:
            used = per.get(k)
            if used is None or len(used) != 1:
                break
            cells[k] = next(iter(used))
        else:
            mine = set(cells.values())
            if len(mine) != len(members):
                continue
            if any(k not in cells and (used is None or used & mine) for k, used in per.items()):
                continue
            inits = {_cell_init(variables[name], c) for c in mine}
            if len(inits) == 1:
                out[name] = cells
    return out


def _cell_init(v: Variable, cell: int) -> int:
    if isinstance(v.init, tuple):
        return int(evaluate(v.init[cell], Env({}, {}, {}))) if cell < len(v.init) else 0  # type: ignore[arg-type]
    return 0 if v.init is None else int(evaluate(v.init, Env({}, {}, {})))  # type: ignore[arg-type]


def _localise(edges: tuple[Edge, ...], own: dict[str, dict[int, int]], k: int,
              system: TransitionSystem) -> tuple[tuple[Edge, ...], tuple[Variable, ...]]:
    """Return ``edges`` with member ``k``'s own cells ``a[c]`` read as the local ``a``,
    and the locals to declare."""
    if not own:
        return edges, ()
    mine = {name: cells[k] for name, cells in own.items()}

    def fn(x: Any) -> Any:
        if isinstance(x, Index) and isinstance(x.base, Var) and x.base.scope == "global" \
                and x.base.name in mine and isinstance(x.index, Const) \
                and int(x.index.value) == mine[x.base.name]:
            return Var(x.base.name, "local")
        return x

    variables = {v.name: v for v in system.globals}
    extra = tuple(
        Variable(name, variables[name].type.element,  # type: ignore[attr-defined]
                 Const(_cell_init(variables[name], cell)))
        for name, cell in sorted(mine.items())
    )
    return tuple(rewrite(e, fn) for e in edges), extra


def _rendered_event(edge: Edge) -> str | None:
    """Return the event name the native engine renders for a step of ``edge``
    (``base.c1.c2``) when every component is an integer constant, ``base.*`` when one is
    not (its value is not kept), None for a tau edge."""
    if edge.event is None:
        return None
    parts = [edge.event.base]
    for c in edge.event.components:
        if not (isinstance(c, Const) and type(c.value) is int):
            return edge.event.base + ".*"
        parts.append(str(c.value))
    return ".".join(parts)


def _family_events(
    member_edges: Sequence[Sequence[Edge]],
) -> tuple[tuple[str | None, ...], tuple[frozenset[str], ...]]:
    """Return, per edge position of a family, the event name its step renders for every
    member (``_rendered_event``), or ``base.*`` when the members render different names
    or a component is not an integer constant (the abstraction erased it); and the
    names the members render there (what an erased step may be)."""
    out: list[str | None] = []
    renders: list[frozenset[str]] = []
    for position in zip(*member_edges, strict=True):
        names = {_rendered_event(e) for e in position}
        renders.append(frozenset(n for n in names if n is not None))
        name = names.pop() if len(names) == 1 else None
        if name is None and position[0].event is not None:
            name = position[0].event.base + ".*"
        out.append(name)
    return tuple(out), tuple(renders)


def check_event_atoms(model: CounterModel, atoms: Iterable[LtlEvent]) -> None:
    """Raise ``UnsupportedError`` for an event atom that could name a step whose event
    components the counter abstraction does not keep.

    The native checker's rule (bridge/fairness/product.py, check.py ``_event_letter``):
    an event atom holds on a step iff the step's rendered event name (``base.c1.c2``)
    equals the atom's name. An abstract step of an edge whose components are erased
    (``become.3`` ~ ``become.7`` in a family, or not constant) is known only as
    ``base.*``: an atom ``base.<anything>`` cannot be decided on it and is refused; the
    atom ``base`` itself never equals a name with components and is decided (false).
    """
    erased: dict[str, str] = {}
    ambiguous: dict[str, str] = {}  # a name some member renders on an erased step
    for fam in model.families:
        renders = fam.renders or tuple(frozenset() for _ in fam.events)
        for e, ev, names in zip(fam.process.edges, fam.events, renders, strict=True):  # spans
            if ev is None or not ev.endswith(".*"):
                continue
            if not names or any(n.endswith(".*") for n in names):
                erased.setdefault(ev[:-2], f"family {fam.name}{_line(e)}")
            for n in names:
                ambiguous.setdefault(n, f"family {fam.name}{_line(e)}")
    procs = {p.name: p for p in model.system.processes}
    for k in model.others:
        inst = model.system.instances[k]
        for e in procs[inst.process].edges:
            ev = _rendered_event(e)
            if ev is not None and ev.endswith(".*"):
                erased.setdefault(ev[:-2], f"instance {inst.name or k}{_line(e)}")
    for atom in atoms:
        if atom.name in ambiguous:
            raise UnsupportedError.at(
                atom.span,
                f"event atom '{atom.name}' in a counter abstraction: a family member renders it "
                f"but the abstraction does not keep which one ({ambiguous[atom.name]}); use an "
                "atom without components or a state atom",
            )
        for base, where in erased.items():
            if atom.name.startswith(base + "."):
                raise UnsupportedError.at(
                    atom.span,
                    f"event atom '{atom.name}' in a counter abstraction: the abstraction does not keep "
                    f"the components of event '{base}.…' ({where}); use an atom without "
                    f"components or a state atom",
                )


def _line(e: Edge) -> str:
    span = e.span or (e.event.span if e.event is not None else None)
    return "" if span is None else f" at {span.file}:{span.line}:{span.col}"


def _delta(edge: Edge, name: str) -> int | None:
    """Return the change ``edge`` makes to global ``name`` (+1, -1, 0), or None if it
    changes it in another way (inside a branch, twice...)."""
    total = 0
    for s in edge.effect:
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.name == name \
                and s.target.scope == "global":
            v = s.value
            total += 1 if isinstance(v, Binary) and v.op == "+" else -1
        elif any(
            isinstance(x, Assign) and isinstance(x.target, Var) and x.target.name == name
            for x in _walk_stmts([s])
        ):
            return None
    return total if total in (-1, 0, 1) else None


def _derived_counters(
    system: TransitionSystem, families: list[_Family], others: list[int], counters: frozenset[str]
) -> dict[str, tuple[int, frozenset[int]]]:
    """Return the process-counter variables that always equal the number of family
    members at a set of locations (paper 002 Example 2: ``counter`` counts the readers
    at R1): var -> (family index, locations).

    Found by solving ``delta(e) = m(target) - m(source)`` with ``m`` in {0, 1} over the
    family's graph from ``m(initial) = init / members``; only family edges may change
    the variable. A derived variable is recomputed from the counts, so the abstraction
    keeps their correlation (an independent ω counter would lose it).
    """
    procs = {p.name: p for p in system.processes}
    init_env = Env({}, {}, {})
    result: dict[str, tuple[int, frozenset[int]]] = {}
    for name in sorted(counters):
        var = next(v for v in system.globals if v.name == name)
        init = 0 if var.init is None else evaluate(var.init, init_env)  # type: ignore[arg-type]
        if any(
            _delta(e, name) != 0
            for k in others
            for e in procs[system.instances[k].process].edges
        ):
            continue
        for f, fam in enumerate(families):
            n = len(fam.members)
            if init not in (0, n):
                continue
            deltas = [_delta(e, name) for e in fam.edges]
            if None in deltas or not any(deltas):
                continue
            m: dict[int, int] = {fam.process.initial: 0 if init == 0 else 1}
            ok = True
            changed = True
            while changed and ok:
                changed = False
                for e, d in zip(fam.edges, deltas, strict=True):
                    if e.source in m:
                        want = m[e.source] + d  # type: ignore[operator]
                        if want not in (0, 1) or m.get(e.target, want) != want:
                            ok = False
                            break
                        if e.target not in m:
                            m[e.target] = want
                            changed = True
                    elif e.target in m:
                        want = m[e.target] - d  # type: ignore[operator]
                        if want not in (0, 1):
                            ok = False
                            break
                        m[e.source] = want
                        changed = True
            if ok and all(
                m.get(e.target, 0) - m.get(e.source, 0) == d for e, d in zip(fam.edges, deltas, strict=True)
            ):
                result[name] = (f, frozenset(loc for loc, v in m.items() if v == 1))
                break
    return result
