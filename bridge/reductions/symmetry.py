"""Symmetry reduction for families of identical processes (paper 001 sections 4-5, Fig. 2).

``detect_symmetry(system, formula, fairness)`` finds *families* (instances of one process
template, or of templates specialised per parameter value, e.g. CSP# ``Node(0)``..
``Node(N-1)``, Promela ``active [N] proctype P``) and a permutation group of their
positions, and **verifies it on the IR** before it is used (never assumed).

The group acts on a state by moving, for a permutation ``g`` of the positions ``0..n-1``:

- the instance segments of the family (their parameter slots stay: a parameter names
  the position);
- *family arrays*: one-dimensional global arrays of ``n * k`` cells, cell ``p * k + r``
  belonging to position ``p`` (``k = 1``: ``leader[N]``; ``k = C``: ``bit[N * C]``, the
  ``C`` bits of node ``p``, indexed ``bit[p * C + color[q]]``) move to ``g(p) * k + r``;
- event names: the components of an event base that depend on the position (those whose
  values differ between members: ``recolor.u.(u + 1)%N.k`` has position components 0
  and 1 and a colour component 2) are renamed ``c -> g(c)``. This is one function on
  event names, so the renaming is a bijection of steps.

Verification, for every generator ``g`` of the candidate group: each instance's edges
are specialised (parameters and ``_pid`` replaced by their values, constants folded,
commutative operators sorted) and the renaming must turn the edges of the instance at
position ``p`` into exactly those of the instance at ``g(p)``. An index into a family
array is renamed by its block: a constant ``c`` is in block ``c // k``; ``c + R`` with
``R`` not constant is in block ``p`` only if every value of ``R`` keeps it there, which
``_ranges.global_ranges`` (an interval analysis of the whole model) must prove, else the
symmetry is refused. Every other process must be invariant under the renaming, or be a
finite *phase* (acyclic graph, like CSP# ``Init(); ...``): states are then canonicalised
only once every such process has no edge left (or has died). Processes that ``run`` may
start are not permuted: each must be invariant, and none may be of a family's template;
a Promela family whose processes can finish is refused (a finished Promela process dies
only when it is the youngest, which no permutation respects). The initial state (once
canonicalisation applies) and the formula's atoms must be invariant: atoms are compared
after renaming and normalisation (so ``leader[0] + leader[1] + leader[2] == 1`` is
invariant), and an event atom whose name the renaming changes refuses the symmetry.

Groups tried, largest first: the full symmetric group (generators: the transposition
(0 1) and the cycle (0 1 .. n-1)), the dihedral group of a ring (the cycle and the
reflection ``p -> -p mod n``: an undirected ring, whose nodes talk to both neighbours),
the rotations alone (a directed ring: ``bullet[(i + 1) % N]``).

Soundness (paper 001): with no fairness (Theorem 2) and with strong global fairness
(Theorem 4, via Theorem 3 and Lemma 2: a terminal accepting SCC exists in the quotient
iff in the full graph; the theorem allows events to be permuted with the states, 001
section 5). Weak and strong local fairness are refused (001 section 1: their combination
with symmetry needs the threaded-structure method of Emerson and Sistla, not
implemented).

``SymmetryReduction`` is the quotient ``StateSpace`` (Def. 4): successors are the
wrapped space's steps with canonical targets. The representative of a state is the
least state (tuple order) of its orbit under a ring group (``n`` or ``2n`` candidates,
each built by one precomputed ``operator.itemgetter``), and the state with the family's
positions sorted under the full group. ``concretize`` maps a path of the quotient back
to a concrete run (Lemma 1; a loop is unfolded until the permutation closes, as in the
proof of Theorem 3).
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from bridge.diagnostics import ConfigurationError, UnsupportedError
from bridge.ir import (
    ArrayType,
    Binary,
    Builtin,
    Const,
    Edge,
    Event,
    Expr,
    Index,
    InstanceRef,
    Interleave,
    Parallel,
    Process,
    Run,
    SourceLanguage,
    TransitionSystem,
    Var,
    iter_statements,
)
from bridge.ir.property import Fairness, Ltl, LtlEvent, LtlState
from bridge.reductions._ranges import Interval, global_ranges, interval
from bridge.reductions._rewrite import rewrite
from bridge.reductions.dependencies import fold_constant
from bridge.reductions.por import back_edges
from bridge.semantics.successors import StateSpace, StateVector, Step

SOUND_FAIRNESS = frozenset({Fairness.NONE, Fairness.STRONG_GLOBAL})
_COMMUTATIVE = frozenset({"+", "*", "&&", "||", "&", "|", "^", "==", "!=", "xor"})
GROUPS = ("full", "dihedral", "rotation")  # tried in this order (largest first)
_ENUMERATED = 4  # up to this many positions the full group is enumerated (n! elements)

Permutation = tuple[int, ...]  # position p moves to perm[p]


class _NotSymmetric(Exception):
    pass


@dataclass(frozen=True)
class Family:
    """Instances (in position order) of one template, the family arrays indexed by
    position with their strides (``strides[i]`` cells of ``arrays[i]`` per position),
    the position components of event bases, and the group: ``"full"`` (every
    permutation), ``"dihedral"`` (rotations and reflections of a ring) or
    ``"rotation"``."""

    template: str
    instances: tuple[int, ...]
    arrays: tuple[str, ...]
    group: str
    parameter_slots: tuple[int, ...] = ()  # segment-relative slots kept in place
    strides: tuple[int, ...] = ()  # per array; empty: 1 each
    # event base -> the component indices that are positions; a base not listed has
    # none; None: every integer component below n is a position
    event_slots: tuple[tuple[str, tuple[int, ...]], ...] | None = None

    def stride(self, array: str) -> int:
        if not self.strides:
            return 1
        return self.strides[self.arrays.index(array)]


@dataclass(frozen=True)
class SymmetrySpec:
    """What symmetry reduction will use: the families and the finite phases (processes
    that must have finished before states are canonicalised)."""

    families: tuple[Family, ...]
    phases: tuple[int, ...]  # instance ids
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Renaming:
    """How a permutation of positions acts on IR text: family arrays (name -> cells per
    position), the position components of events, and the value intervals that prove a
    non-constant index stays in one position's block."""

    n: int
    arrays: dict[str, int]
    event_slots: dict[str, frozenset[int]] | None
    ranges: dict[str, Interval | None] = field(default_factory=dict)


# ---------------------------------------------------------------------------------
# Specialisation and renaming


def _normalise(node: Any) -> Any:
    """Fold constants and sort operands of commutative operators."""
    if isinstance(node, Binary):
        v = fold_constant(node)
        if v is not None:
            return Const(v)
        if node.op in _COMMUTATIVE:
            # flatten chains of the same associative operator, then sort
            if node.op in ("+", "*", "&&", "||", "&", "|", "^"):
                operands: list[Any] = []
                stack = [node]
                while stack:
                    cur = stack.pop()
                    if isinstance(cur, Binary) and cur.op == node.op:
                        stack.extend((cur.right, cur.left))
                    else:
                        operands.append(cur)
                if node.op == "+":
                    # one constant term: 3 + color[2] + 1 -> 4 + color[2]
                    total = sum(int(o.value) for o in operands if isinstance(o, Const))
                    rest = [o for o in operands if not isinstance(o, Const)]
                    operands = rest + ([Const(total)] if total or not rest else [])
                operands.sort(key=repr)
                acc = operands[0]
                for o in operands[1:]:
                    acc = Binary(node.op, acc, o)
                return acc
            left, right = sorted((node.left, node.right), key=repr)
            return Binary(node.op, left, right)
        return node
    if hasattr(node, "operand") and type(node).__name__ == "Unary":
        v = fold_constant(node)
        return Const(v) if v is not None else node
    return node


def _specialise(node: Any, params: dict[str, int], pid: int | None) -> Any:
    def fn(n: Any) -> Any:
        if isinstance(n, Var) and n.scope == "local" and n.name in params:
            return Const(params[n.name])
        if isinstance(n, Builtin) and n.name == "_pid" and pid is not None:
            return Const(pid)
        return _normalise(n)

    return rewrite(node, fn)


def _split_index(index: Any) -> tuple[int, list[Any]]:
    """Return ``(c, terms)`` with ``index == c + sum(terms)`` and ``terms`` not constant."""
    c = fold_constant(index)
    if c is not None:
        return c, []
    terms: list[Any] = []
    total = 0
    stack = [index]
    while stack:
        cur = stack.pop()
        if isinstance(cur, Binary) and cur.op == "+":
            stack.extend((cur.right, cur.left))
            continue
        v = fold_constant(cur)
        if v is None:
            terms.append(cur)
        else:
            total += v
    return total, terms


def _block_of(index: Any, stride: int, renaming: _Renaming, array: str) -> tuple[int, int, list[Any]]:
    """Return ``(position, c, terms)``: the position whose block every value of the index
    ``c + sum(terms)`` falls in (proved with the value intervals), or raise."""
    c, terms = _split_index(index)
    if not terms:
        return c // stride, c, terms
    lo = hi = 0
    for t in terms:
        iv = interval(t, renaming.ranges)
        if iv is None:
            raise _NotSymmetric(
                f"array '{array}' is indexed by a non-constant expression whose values "
                "the interval analysis cannot bound"
            )
        lo, hi = lo + iv[0], hi + iv[1]
    if (c + lo) // stride != (c + hi) // stride or c + lo < 0:
        raise _NotSymmetric(
            f"array '{array}' is indexed by a non-constant expression that may leave one "
            f"position's block of {stride} cell(s)"
        )
    return (c + lo) // stride, c, terms


def _event_positions(renaming: _Renaming, base: str, arity: int) -> frozenset[int]:
    if renaming.event_slots is None:
        return frozenset(range(arity))
    return renaming.event_slots.get(base, frozenset())


def _rename(node: Any, perm: Permutation, renaming: _Renaming) -> Any:
    """Rename family-array indices (by block) and the position components of events
    by ``perm``."""
    n = len(perm)
    arrays = renaming.arrays

    def fn(x: Any) -> Any:
        if isinstance(x, Index) and isinstance(x.base, Var) and x.base.scope == "global" \
                and x.base.name in arrays:
            stride = arrays[x.base.name]
            pos, c, terms = _block_of(x.index, stride, renaming, x.base.name)
            if not 0 <= pos < n:
                return x  # out of the array: both sides fail the same way
            shifted = c + (perm[pos] - pos) * stride
            index: Any = Const(shifted)
            for t in terms:
                index = Binary("+", index, t)
            return Index(x.base, _normalise(index) if terms else index)
        if isinstance(x, Event):
            slots = _event_positions(renaming, x.base, len(x.components))
            comps = []
            for j, comp in enumerate(x.components):
                c = fold_constant(comp)
                renamed = j in slots and c is not None and 0 <= c < n
                comps.append(Const(perm[c]) if renamed else comp)
            return Event(x.base, tuple(comps))
        return _normalise(x)

    return rewrite(node, fn)


def _rename_event_name(name: str, perm: Permutation, renaming: _Renaming) -> str:
    parts = name.split(".")
    slots = _event_positions(renaming, parts[0], len(parts) - 1)
    out = [parts[0]]
    for j, c in enumerate(parts[1:]):
        renamed = j in slots and c.isdigit() and int(c) < len(perm)
        out.append(str(perm[int(c)]) if renamed else c)
    return ".".join(out)


def _edge_key(e: Edge) -> Any:
    return (e.source, e.target, e.guard, e.comm, e.effect, e.event, e.fairness)


def _live_edges(edges: tuple[Edge, ...]) -> list[Edge]:
    return [e for e in edges if not (isinstance(e.guard, Const) and not e.guard.value)]


def _canon_edges(edges: list[Edge]) -> list[Any]:
    return sorted((_edge_key(e) for e in edges), key=repr)


# ---------------------------------------------------------------------------------
# Detection


def symmetry_refusal(fairness: Fairness) -> str | None:
    """Return why symmetry reduction is unsound under ``fairness``, or None."""
    if fairness in SOUND_FAIRNESS:
        return None
    return (
        f"symmetry reduction is not applied under {fairness.value} fairness: it is sound "
        "with no fairness and with strong global fairness (paper 001 Theorem 4); weak and "
        "strong local fairness need Emerson and Sistla's threaded method (not implemented)"
    )


def _interleaved_only(system: TransitionSystem) -> bool:
    """True if instances only interleave, or synchronise on events that every operand
    shares and that carry no index (``terminate`` of CSP# ``|||``): those barriers are
    unchanged by any renaming of positions."""
    stack = [] if system.composition is None else [system.composition]
    while stack:
        c = stack.pop()
        if isinstance(c, Interleave):
            stack.extend(c.children)
        elif isinstance(c, Parallel):
            first = c.alphabets[0] if c.alphabets else frozenset()
            if any(a != first for a in c.alphabets):
                return False
            if any(any(part.isdigit() for part in name.split(".")[1:]) for name in first):
                return False
            stack.extend(c.children)
        elif not isinstance(c, InstanceRef):
            return False
    return True


def detect_symmetry(
    system: TransitionSystem, formula: Ltl | None, fairness: Fairness = Fairness.NONE
) -> SymmetrySpec:
    """Return the verified symmetry of ``system`` and ``formula``.

    Raises ``ConfigurationError`` saying why symmetry cannot be used (fairness notion,
    no family, a process or atom that the renaming changes, a non-constant index...).
    """
    refusal = symmetry_refusal(fairness)
    if refusal is not None:
        raise ConfigurationError(refusal)
    if not _interleaved_only(system):
        raise ConfigurationError(
            "symmetry reduction needs interleaved instances: the model synchronises "
            "instances with a CSP parallel (barrier events)"
        )
    procs = {p.name: p for p in system.processes}
    groups: dict[str, list[int]] = {}
    for k, inst in enumerate(system.instances):
        base = inst.process.split("(")[0].split("[")[0]
        groups.setdefault(base, []).append(k)
    specialised: dict[int, list[Edge]] = {}
    for k, inst in enumerate(system.instances):
        proc = procs[inst.process]
        params: dict[str, int] = {}
        for name, arg in zip(proc.parameters, inst.arguments, strict=False):
            v = fold_constant(arg)
            if v is not None:
                params[name] = v
        specialised[k] = _live_edges(
            tuple(_specialise(e, params, k) for e in proc.edges)
        )
    ranges = global_ranges(system)
    families: list[Family] = []
    renamings: list[_Renaming] = []
    reasons: list[str] = []
    family_members: set[int] = set()
    for base, members in groups.items():
        if len(members) < 2:
            continue
        tmpl = {system.instances[k].process for k in members}
        shapes = {_shape(procs[t]) for t in tmpl}
        if len(shapes) != 1:
            reasons.append(f"instances of {base} have different process graphs")
            continue
        if any(procs[t].channels for t in tmpl):
            reasons.append(f"{base} declares channels (channel ids are not permuted)")
            continue
        n = len(members)
        arrays = _family_arrays(system, n)
        found = None
        for group in _candidate_groups(n):
            for slots in (_typed_event_slots(members, specialised), None):
                renaming = _Renaming(n, arrays, slots, ranges)
                try:
                    _verify_family(members, specialised, renaming, group)
                except _NotSymmetric as why:
                    reason = f"{base} ({group} symmetry): {why}"
                    if reason not in reasons:
                        reasons.append(reason)
                    continue
                found = (group, renaming)
                break
            if found is not None:
                break
        if found is None:
            continue
        group, renaming = found
        proc = procs[system.instances[members[0]].process]
        names = tuple(sorted(renaming.arrays))
        event_slots = None if renaming.event_slots is None else tuple(
            sorted((b, tuple(sorted(v))) for b, v in renaming.event_slots.items())
        )
        families.append(Family(base, tuple(members), names, group, _parameter_slots(proc),
                               tuple(renaming.arrays[a] for a in names), event_slots))
        renamings.append(renaming)
        family_members.update(members)
    if not families:
        raise ConfigurationError(
            "symmetry reduction found no family of interchangeable processes"
            + (": " + "; ".join(reasons) if reasons else "")
        )
    phases: list[int] = []
    for k, inst in enumerate(system.instances):
        if k in family_members:
            continue
        proc = procs[inst.process]
        for fam, renaming in zip(families, renamings, strict=True):
            try:
                for perm in _generators(len(fam.instances), fam.group):
                    renamed = _canon_edges(_live_edges(tuple(
                        _rename(e, perm, renaming) for e in specialised[k]
                    )))
                    if renamed != _canon_edges(specialised[k]):
                        raise _NotSymmetric(f"process {inst.name or inst.process} is not invariant")
            except _NotSymmetric as why:
                if back_edges(proc):
                    raise ConfigurationError(
                        f"symmetry reduction refused: {why} under the renaming of {fam.template} "
                        "and it loops (not a finite initialisation phase)"
                    ) from None
                if k not in phases:
                    phases.append(k)
    _check_started(system, families, renamings)
    _check_deaths(system, families)
    _check_formula(system, formula, families, renamings)
    notes = tuple(_describe(f) for f in families)
    return SymmetrySpec(tuple(families), tuple(phases), notes)


def _check_deaths(system: TransitionSystem, families: list[Family]) -> None:
    """Refuse the symmetry of a Promela family whose processes can finish: a finished
    Promela process dies only when it is the youngest live one, so a permutation of the
    positions is not a symmetry of the death steps (in ``g s`` the youngest member may
    die where in ``s`` it may not), and quotients that let members die gave verdicts
    the full search did not (caught by ``api``'s check of a quotient's violation).
    Families that never finish (``do`` loops without a way out) keep their pids, so
    every layout holds them at the same place."""
    if system.language is not SourceLanguage.PROMELA:
        return  # CSP# and IR processes never die
    procs = {p.name: p for p in system.processes}
    for fam in families:
        proc = procs[system.instances[fam.instances[0]].process]
        terminal = {loc.id for loc in proc.locations if loc.terminal}
        seen, todo = {proc.initial}, [proc.initial]
        while todo:
            loc = todo.pop()
            if loc in terminal:
                raise ConfigurationError(
                    f"symmetry reduction refused: the processes of {fam.template} can "
                    "finish, and a finished Promela process dies only when it is the "
                    "youngest (a permutation of the family is not a symmetry of the "
                    "deaths)")
            for e in _live_edges(proc.edges):
                if e.source == loc and e.target not in seen:
                    seen.add(e.target)
                    todo.append(e.target)


def _check_started(system: TransitionSystem, families: list[Family],
                   renamings: list[_Renaming]) -> None:
    """Refuse the symmetry unless every process that ``run`` may start is invariant
    under the renaming (paper 001 section 4: the group must be an automorphism of the
    whole system; started processes are not permuted, so each must map to itself) and
    is not of a family's template (its pid may take a dead member's position, with
    parameters the verification did not see). Started processes are specialised with
    their parameters and ``_pid`` unknown."""
    procs = {p.name: p for p in system.processes}
    started = sorted({s.proctype for p in system.processes for e in p.edges
                      for s in iter_statements(e.effect) if isinstance(s, Run)})
    for name in started:
        for fam in families:
            if name in {system.instances[k].process for k in fam.instances}:
                raise ConfigurationError(
                    f"symmetry reduction refused: run starts {name}, the template of the "
                    f"family {fam.template} (processes started at run time are not permuted)")
        edges = _live_edges(tuple(_specialise(e, {}, None) for e in procs[name].edges))
        for fam, renaming in zip(families, renamings, strict=True):
            for perm in _generators(len(fam.instances), fam.group):
                try:
                    renamed = _canon_edges(_live_edges(tuple(
                        _rename(e, perm, renaming) for e in edges)))
                except _NotSymmetric as why:
                    raise ConfigurationError(
                        f"symmetry reduction refused: process {name}, started by run: "
                        f"{why}") from None
                if renamed != _canon_edges(edges):
                    raise ConfigurationError(
                        f"symmetry reduction refused: process {name}, started by run, is "
                        f"not invariant under permutations of {fam.template}")


def _describe(f: Family) -> str:
    arrays = [a if f.stride(a) == 1 else f"{a} ({f.stride(a)} cells per node)" for a in f.arrays]
    return (f"symmetry: {len(f.instances)} instances of {f.template}, {f.group} group"
            + (f", arrays {', '.join(arrays)}" if arrays else ""))


def _candidate_groups(n: int) -> tuple[str, ...]:
    if n <= 3:  # the dihedral group of 3 points is the full group
        return ("full", "rotation")
    return GROUPS


def _typed_event_slots(
    members: list[int], specialised: dict[int, list[Edge]]
) -> dict[str, frozenset[int]]:
    """Return, per event base of the family, the components that name positions: those
    whose set of values differs between members (``recolor.u.v.k``: u and v; k, the
    colour, takes the same values in every member). Verification proves the choice."""
    values: dict[tuple[str, int], list[frozenset]] = {}
    for k in members:
        seen: dict[tuple[str, int], set] = {}
        for e in specialised[k]:
            if e.event is None:
                continue
            for j, comp in enumerate(e.event.components):
                c = fold_constant(comp)
                seen.setdefault((e.event.base, j), set()).add(c)
        for key, vals in seen.items():
            values.setdefault(key, []).append(frozenset(vals))
    slots: dict[str, set[int]] = {}
    for (base, j), per_member in values.items():
        if len(per_member) != len(members) or len(set(per_member)) > 1:
            slots.setdefault(base, set()).add(j)
    return {b: frozenset(js) for b, js in slots.items()}


def _shape(p: Process) -> Any:
    return (len(p.locations), tuple(dataclasses.replace(loc, span=None, labels=()) for loc in p.locations),
            p.initial, tuple((v.name, v.type) for v in p.locals), len(p.channels))


def _parameter_slots(p: Process) -> tuple[int, ...]:
    # the layout puts locals after the location slot, parameters after the declared
    # locals (semantics/state.py): a parameter that is not also a declared local
    offset = 1
    for v in p.locals:
        offset += _scalars(v.type)
    slots = []
    declared = {v.name for v in p.locals}
    for name in p.parameters:
        if name in declared:
            continue
        slots.append(offset)
        offset += 1
    return tuple(slots)


def _scalars(t: Any) -> int:
    if isinstance(t, ArrayType):
        return t.length * _scalars(t.element)
    return 1


def _family_arrays(system: TransitionSystem, n: int) -> dict[str, int]:
    """Return the one-dimensional global arrays whose length is a multiple of ``n``,
    with their cells per position (a hypothesis; verification proves or refutes it)."""
    return {
        v.name: v.type.length // n for v in system.globals
        if isinstance(v.type, ArrayType) and v.type.length % n == 0 and v.type.length > 0
        and not isinstance(v.type.element, ArrayType)
    }


def _generators(n: int, group: str) -> list[Permutation]:
    cycle = tuple((p + 1) % n for p in range(n))
    if n < 2:
        return []
    if group == "rotation" or n == 2:
        return [cycle]
    if group == "dihedral":
        return [cycle, tuple((-p) % n for p in range(n))]
    swap = (1, 0) + tuple(range(2, n))
    return [swap, cycle]


def group_elements(n: int, group: str) -> list[Permutation]:
    """Return every element of a ring group (``rotation``: n, ``dihedral``: 2n) or of
    the full group on a few positions (n!), as a map "representative position j takes
    position perm[j]"."""
    if group == "full":
        return list(itertools.permutations(range(n)))
    rotations = [tuple((j + r) % n for j in range(n)) for r in range(n)]
    if group == "rotation":
        return rotations
    if group == "dihedral":
        return rotations + [tuple((r - j) % n for j in range(n)) for r in range(n)]
    raise ValueError(group)


def _verify_family(
    members: list[int],
    specialised: dict[int, list[Edge]],
    renaming: _Renaming,
    group: str,
) -> None:
    n = len(members)
    canon = {p: _canon_edges(specialised[members[p]]) for p in range(n)}
    for perm in _generators(n, group):
        for p in range(n):
            renamed = _canon_edges(_live_edges(tuple(
                _rename(e, perm, renaming) for e in specialised[members[p]]
            )))
            if renamed != canon[perm[p]]:
                raise _NotSymmetric(
                    f"the edges of instance {p} renamed by {perm} differ from those of "
                    f"instance {perm[p]}"
                )
        # a family process may also be written to by others: checked with the others


def _check_formula(system: TransitionSystem, formula: Ltl | None, families: list[Family],
                   renamings: list[_Renaming]) -> None:
    props = {p.name: p.expr for p in system.propositions}
    globals_ = {v.name for v in system.globals}
    atoms: list[Any] = []
    stack = [] if formula is None else [formula]
    while stack:
        f = stack.pop()
        if isinstance(f, LtlState):
            atoms.append(f)
        elif isinstance(f, LtlEvent):
            atoms.append(f)
        else:
            for name in ("operand", "left", "right"):
                child = getattr(f, name, None)
                if child is not None:
                    stack.append(child)

    def expand(e: Expr) -> Expr:
        def fn(x: Any) -> Any:
            if isinstance(x, Var) and x.scope == "global" and x.name in props and x.name not in globals_:
                return _specialise(props[x.name], {}, None)
            return _normalise(x)
        return rewrite(e, fn)

    for fam, renaming in zip(families, renamings, strict=True):
        for perm in _generators(len(fam.instances), fam.group):
            for atom in atoms:
                if isinstance(atom, LtlEvent):
                    if _rename_event_name(atom.name, perm, renaming) != atom.name:
                        raise ConfigurationError(
                            f"symmetry reduction refused: event atom '{atom.name}' is not "
                            f"invariant under permutations of {fam.template}"
                        )
                    continue
                try:
                    original = expand(atom.expr)
                    renamed_e = _rename(original, perm, renaming)
                except _NotSymmetric as why:
                    raise ConfigurationError(
                        f"symmetry reduction refused: atom '{atom.text}': {why}"
                    ) from None
                if _rewrite_norm(renamed_e) != _rewrite_norm(original):
                    raise ConfigurationError(
                        f"symmetry reduction refused: atom '{atom.text}' is not invariant "
                        f"under permutations of {fam.template}"
                    )
                if _mentions_locals_of(original):
                    raise ConfigurationError(
                        f"symmetry reduction refused: atom '{atom.text}' reads a process "
                        "instance's location or local variables"
                    )


def _rewrite_norm(e: Any) -> Any:
    return rewrite(e, _normalise)


def _mentions_locals_of(e: Any) -> bool:
    found = False

    def fn(x: Any) -> Any:
        nonlocal found
        if type(x).__name__ in ("RemoteVar", "RemoteLabel"):
            found = True
        return x

    rewrite(e, fn)
    return found


# ---------------------------------------------------------------------------------
# The quotient state space


@dataclass(frozen=True)
class GroupAction:
    """The group action as plain tables, for the C engine (``templates/c/symmetry.c``):
    per family, the state slots of each position (``cells[p]``) and the enumerated
    group elements (a ring group, or the full group on a few positions; ``None``: the
    full group, positions sorted by content); and per phase, its location slot (-1: it
    has died, so it is done) and finished locations. The representative is
    ``SymmetryReduction.representative``'s.

    ``dynamic`` (processes started at run time, dying youngest first): a cell is a pair
    ``(pid, slot)``, ``slot`` of the segment of instance ``pid``, or ``(-1, slot)`` for
    a slot of the static part; a phase is given by its pid. A runtime layout's plan
    (``SymmetryReduction._plan``) moves a family only when every member is alive with
    its initial template, and canonicalises only when every phase is done (at a
    finished location, or dead: its pid gone or taken by another template)."""

    families: tuple[tuple[tuple[tuple[Any, ...], ...], tuple[Permutation, ...] | None], ...]
    phases: tuple[tuple[int, frozenset[int]], ...]
    dynamic: bool = False


class _Plan:
    """The group action on the states of one runtime layout: per family, the state
    slots of each position (segment slots without parameters, then family-array
    cells), and for a ring group one ``itemgetter`` per group element."""

    __slots__ = ("cells", "getters", "done", "representative")

    def __init__(self) -> None:
        self.representative: Any = None  # state -> representative (built last)
        # per family: None (a member does not exist in this layout) or the slot lists
        self.cells: list[list[list[int]] | None] = []
        # per family: (getters, permutations) of an enumerated group, or a _Sorter
        self.getters: list[Any] = []
        self.done: list[tuple[int, frozenset[int]]] = []  # (slot, finished locations)


class _Sorter:
    """The full group on ``n`` positions: the representative has the positions sorted
    by content (position keys and the permuting maps are ``itemgetter``s; the maps of
    the permutations met are cached)."""

    __slots__ = ("cells", "size", "keys", "maps")

    def __init__(self, cells: list[list[int]], size: int) -> None:
        self.cells = cells
        self.size = size
        self.keys = [itemgetter(*slots) for slots in cells]
        self.maps: dict[Permutation, Any] = {}

    def permutation(self, state: StateVector) -> Permutation:
        keys = [k(state) for k in self.keys]
        return tuple(sorted(range(len(keys)), key=keys.__getitem__))

    def apply(self, state: StateVector, perm: Permutation) -> StateVector:
        """Return ``state`` with position ``j``'s slots taken from position ``perm[j]``."""
        getter = self.maps.get(perm)
        if getter is None:
            getter = _permuting_getter(self.cells, perm, self.size)
            if len(self.maps) < 100_000:
                self.maps[perm] = getter
        return getter(state)

    def __call__(self, state: StateVector) -> StateVector:
        return self.apply(state, self.permutation(state))


def _position_cells(fam: Family, arrays: list[tuple[int, int]], seg: int
                    ) -> list[tuple[list[int], list[int]]]:
    """Return per position of ``fam`` the moved slots of its segment (relative: every
    slot of a segment of ``seg`` slots but the parameters) and its family-array slots
    (``arrays``: offset and cells per position of each array)."""
    keep = set(fam.parameter_slots)
    segment = [off for off in range(seg) if off not in keep]
    return [(segment, [s for offset, stride in arrays
                       for s in range(offset + p * stride, offset + (p + 1) * stride)])
            for p in range(len(fam.instances))]


def _permuting_getter(cells: list[list[int]], perm: Permutation, size: int) -> Any:
    idx = list(range(size))
    for j, src in enumerate(perm):
        for a, b in zip(cells[j], cells[src], strict=True):
            idx[a] = b
    return itemgetter(*idx)


class SymmetryReduction:
    """The quotient ``StateSpace`` of paper 001 Def. 4 for a verified ``SymmetrySpec``.

    Needs the compiled space's layout (``layout_of(state).bases``) to find instance
    segments and ``layout.globals`` for the family arrays. Everything else is delegated
    to the wrapped space. ``canonicalised`` counts successors replaced by another
    state of their orbit, ``canonical_calls`` the representatives computed.
    """

    def __init__(self, space: StateSpace, system: TransitionSystem, spec: SymmetrySpec) -> None:
        layout = getattr(space, "layout", None)
        if layout is None or not hasattr(space, "layout_of"):
            raise UnsupportedError.at(None, "symmetry reduction needs a compiled state space")
        self._space = space
        self._system = system
        self.spec = spec
        self._layout = layout
        self._array_cells = [
            [(layout.globals[name].offset, fam.stride(name)) for name in fam.arrays]
            for fam in spec.families
        ]
        self._phase_done: list[tuple[int, frozenset[int]]] = []
        procs = {p.name: p for p in system.processes}
        for k in spec.phases:
            proc = procs[system.instances[k].process]
            sources = {e.source for e in proc.edges}
            tpl = space.process_of(k)  # type: ignore[attr-defined]
            done = frozenset(
                tpl.location_index[loc.id] for loc in proc.locations if loc.id not in sources
            )
            self._phase_done.append((k, done))
        self._plans: dict[int, _Plan] = {}
        self.canonicalised = 0
        self.canonical_calls = 0
        self._static_plan: _Plan | None = None
        if not getattr(layout, "dynamic", True):
            self._static_plan = self._plan(space.initial_states()[0])
        if not spec.phases:
            for init in space.initial_states():
                for fam_index, fam in enumerate(spec.families):
                    for perm in _generators(len(fam.instances), fam.group):
                        perms = [tuple(range(len(f.instances))) for f in spec.families]
                        perms[fam_index] = perm
                        if self.apply(init, perms) != init:
                            raise ConfigurationError(
                                "symmetry reduction refused: the initial state is not "
                                f"invariant under permutations of {fam.template}"
                            )

    # -- group action ---------------------------------------------------------------

    def _plan(self, state: StateVector) -> _Plan:
        rl = self._space.layout_of(state)  # type: ignore[attr-defined]
        plan = self._plans.get(id(rl))
        if plan is not None:
            return plan
        plan = _Plan()
        bases = rl.bases
        size = len(state)
        initial = self._layout.initial_templates
        for fam, arrays in zip(self.spec.families, self._array_cells, strict=True):
            # a member dead, or its pid reused by another template: the family stays
            if any(k >= len(bases) or rl.templates[k] != initial[k] for k in fam.instances):
                plan.cells.append(None)
                plan.getters.append(None)
                continue
            seg = self._space.process_of(fam.instances[0], state).size  # type: ignore[attr-defined]
            cells = [[bases[k] + off for off in segment] + array
                     for k, (segment, array) in zip(fam.instances,
                                                    _position_cells(fam, arrays, seg),
                                                    strict=True)]
            plan.cells.append(cells)
            n = len(fam.instances)
            if fam.group == "full" and n > _ENUMERATED:
                plan.getters.append(_Sorter(cells, size))
                continue
            perms = group_elements(n, fam.group)
            plan.getters.append(([_permuting_getter(cells, p, size) for p in perms], perms))
        for k, done in self._phase_done:
            # a phase that has died (its pid gone, or taken by another template) is done
            alive = k < len(bases) and rl.templates[k] == initial[k]
            plan.done.append((bases[k] if alive else -1, done))
        plan.representative = self._representative_function(plan)
        self._plans[id(rl)] = plan
        return plan

    def _representative_function(self, plan: _Plan) -> Any:
        """Return a function state -> representative for one layout: the hot path of
        ``successors`` (no permutations kept)."""
        done = tuple(plan.done)
        steps: list[Any] = []
        for f, cells in enumerate(plan.cells):
            if cells is None:
                continue
            action = plan.getters[f]
            steps.append(tuple(action[0]) if isinstance(action, tuple) else action)

        def representative(state: StateVector) -> StateVector:
            for slot, finished in done:
                if slot >= 0 and state[slot] not in finished:
                    return state
            for action in steps:
                if type(action) is tuple:
                    state = min([g(state) for g in action])
                else:
                    state = action(state)
            return state

        return representative

    def group_action(self) -> GroupAction:
        """Return the group action as tables (``GroupAction``): a static layout's plan,
        or for a dynamic layout the cells by pid (``GroupAction.dynamic``)."""
        plan = self._static_plan
        if plan is None:
            return self._dynamic_action()
        families = []
        for cells, action in zip(plan.cells, plan.getters, strict=True):
            if cells is None:
                continue
            perms = tuple(action[1]) if isinstance(action, tuple) else None
            families.append((tuple(tuple(c) for c in cells), perms))
        return GroupAction(tuple(families), tuple(plan.done))

    def _dynamic_action(self) -> GroupAction:
        layout = self._layout
        families = []
        for fam, arrays in zip(self.spec.families, self._array_cells, strict=True):
            seg = layout.processes[layout.initial_templates[fam.instances[0]]].size
            cells = tuple(tuple([(k, off) for off in segment] + [(-1, s) for s in array])
                          for k, (segment, array) in zip(fam.instances,
                                                         _position_cells(fam, arrays, seg),
                                                         strict=True))
            n = len(fam.instances)
            perms = None if fam.group == "full" and n > _ENUMERATED else \
                tuple(group_elements(n, fam.group))
            families.append((cells, perms))
        return GroupAction(tuple(families), tuple(self._phase_done), dynamic=True)

    def canonical(self, state: StateVector) -> tuple[StateVector, list[Permutation]]:
        """Return the representative of ``state``'s orbit and, per family, the
        permutation ``perm`` with ``rep`` position ``j`` taken from position ``perm[j]``."""
        self.canonical_calls += 1
        plan = self._plan(state)
        identity = [tuple(range(len(f.instances))) for f in self.spec.families]
        for slot, done in plan.done:
            if slot >= 0 and state[slot] not in done:
                return state, identity
        perms: list[Permutation] = []
        out = state
        for f, cells in enumerate(plan.cells):
            if cells is None:
                perms.append(identity[f])
                continue
            action = plan.getters[f]
            if isinstance(action, tuple):
                getters, elements = action
                best, chosen = None, identity[f]
                for getter, perm in zip(getters, elements, strict=True):
                    cand = getter(out)
                    if best is None or cand < best:
                        best, chosen = cand, perm
                assert best is not None
                out = best
                perms.append(chosen)
                continue
            assert isinstance(action, _Sorter)
            perm = action.permutation(out)
            perms.append(perm)
            out = action.apply(out, perm)
        return out, perms

    def representative(self, state: StateVector) -> StateVector:
        """Return the representative of ``state``'s orbit (``canonical`` without the
        permutations; the same state)."""
        self.canonical_calls += 1
        plan = self._static_plan or self._plan(state)
        return plan.representative(state)

    def apply(self, state: StateVector, perms: Sequence[Permutation]) -> StateVector:
        """Return the state whose position ``perm[j]`` holds what ``state`` holds at
        ``j`` (the inverse of ``canonical``'s rearrangement)."""
        plan = self._plan(state)
        out = list(state)
        for cells, perm in zip(plan.cells, perms, strict=True):
            if cells is None:
                continue
            for j, dst in enumerate(perm):
                for a, b in zip(cells[j], cells[dst], strict=True):
                    out[b] = state[a]
        return tuple(out)

    # -- the protocol -------------------------------------------------------------

    def initial_states(self) -> Sequence[StateVector]:
        return tuple(self.canonical(s)[0] for s in self._space.initial_states())

    def successors(self, state: StateVector) -> Sequence[tuple[Step, StateVector]]:
        """Return the steps of ``state`` with canonical targets (paper 001 Def. 4)."""
        out = []
        plan = self._static_plan
        successors = self._space.successors(state)
        self.canonical_calls += len(successors)
        for step, target in successors:
            rep = (plan or self._plan(target)).representative(target)
            if rep is not target and rep != target:
                self.canonicalised += 1
            out.append((step, rep))
        return out

    def is_terminal(self, state: StateVector) -> bool:
        return self._space.is_terminal(state)

    def is_valid_end(self, state: StateVector) -> bool:
        return self._space.is_valid_end(state)

    def valuation(self, state: StateVector) -> dict[str, Any]:
        return self._space.valuation(state)

    def action_name(self, action: Hashable) -> str:
        return self._space.action_name(action)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._space, name)

    # -- back to concrete runs ----------------------------------------------------------

    def concretize(
        self,
        prefix: Sequence[tuple[Step, StateVector]],
        loop: Sequence[tuple[Step, StateVector]] = (),
        max_unfold: int = 10_000,
        deadline: float | None = None,
    ) -> tuple[StateVector, list[tuple[Step, StateVector]], list[tuple[Step, StateVector]]]:
        """Return ``(initial, prefix, loop)`` of a concrete run of the wrapped space that
        the quotient path ``prefix . loop^omega`` represents (paper 001 Lemma 1; the loop
        is repeated until the accumulated permutation returns to where it started, as in
        the proof of Theorem 3, so the concrete loop closes). Raises ``TimeoutError``
        past ``deadline`` (``time.monotonic()``), looked at every 256 prefix steps."""
        concrete = self._space.initial_states()[0]
        rep0, perms0 = self.canonical(concrete)
        # concrete = apply(rep, perms0): tau maps representatives to concrete states
        tau = perms0
        rep = rep0

        def advance(rep: StateVector, tau, step: Step, target_rep: StateVector):
            concrete = self.apply(rep, tau)
            for cstep, ctarget in self._space.successors(concrete):
                crep, cperms = self.canonical(ctarget)
                if crep == target_rep:
                    return cstep, ctarget, cperms
            raise AssertionError("quotient step without a concrete counterpart")

        out_prefix: list[tuple[Step, StateVector]] = []
        for i, (step, target) in enumerate(prefix):
            if deadline is not None and i % 256 == 0 and time.monotonic() > deadline:
                raise TimeoutError("deadline passed while lifting a quotient path")
            if step.stutter:
                out_prefix.append((step, self.apply(rep, tau)))
                continue
            cstep, ctarget, tau = advance(rep, tau, step, target)
            rep = target
            out_prefix.append((cstep, ctarget))
        if not loop:
            return concrete, out_prefix, []
        # Unfold the loop; the concrete state at each pass start is a function of the
        # previous one, so the passes are eventually periodic: cut there.
        out_loop: list[tuple[Step, StateVector]] = []
        seen: dict[StateVector, int] = {}
        for _ in range(max_unfold):
            start = self.apply(rep, tau)
            if start in seen:
                cut = seen[start]
                return concrete, out_prefix + out_loop[:cut], out_loop[cut:]
            seen[start] = len(out_loop)
            for step, target in loop:
                if step.stutter:
                    out_loop.append((step, self.apply(rep, tau)))
                    continue
                cstep, ctarget, tau = advance(rep, tau, step, target)
                rep = target
                out_loop.append((cstep, ctarget))
        raise AssertionError("the quotient loop did not close in the concrete space")
