"""Symmetry reduction for families of identical processes (paper 001 sections 4-5, Fig. 2).

``detect_symmetry(system, formula, fairness)`` finds *families* (instances of one process
template, or of templates specialised per parameter value, e.g. CSP# ``Node(0)``..
``Node(N-1)``, Promela ``active [N] proctype P``) and a permutation group of their
positions, and **verifies it on the IR** before it is used (never assumed):

- each instance's edges are specialised (parameters and ``_pid`` replaced by their
  constant values, constants folded, commutative operators sorted) and, for a generator
  ``g`` of the group, renaming every constant index ``c`` into a *family array* (a
  one-dimensional global array as long as the family) and every constant event component
  ``c`` (``rule1.0.1``) to ``g(c)`` must turn the edges of the instance at position ``p``
  into exactly those of the instance at ``g(p)``; an index into a family array that is
  not constant after specialisation refuses the symmetry;
- every other process must be invariant under the renaming, or be a finite *phase*
  (acyclic graph, like CSP# ``Init(); ...``): states are then canonicalised only once
  every such process has no edge left;
- the initial state (once canonicalisation applies) and the formula's atoms must be
  invariant: atoms are compared after renaming and normalisation (so
  ``leader[0] + leader[1] + leader[2] == 1`` is invariant), event atoms whose name
  changes under renaming refuse the symmetry.

The full symmetric group is tried first (generators: the transposition (0 1) and the
cycle (0 1 .. n-1)), then the rotations alone (rings: ``bullet[(i + 1) % N]`` is
preserved by rotations only). The group acts on a state by moving instance segments
(their parameter slots stay: a parameter names the position) and family-array cells.

Soundness (paper 001): with no fairness (Theorem 2) and with strong global fairness
(Theorem 4, via Theorem 3 and Lemma 2: a terminal accepting SCC exists in the quotient
iff in the full graph). Weak and strong local fairness are refused (001 section 1: their
combination with symmetry needs the threaded-structure method of Emerson and Sistla,
not implemented).

``SymmetryReduction`` is the quotient ``StateSpace`` (Def. 4): successors are the
wrapped space's steps with canonical targets. ``concretize`` maps a path of the
quotient back to a concrete run (Lemma 1; a loop is unfolded until the permutation
closes, as in the proof of Theorem 3).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
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
    TransitionSystem,
    Var,
)
from bridge.ir.property import Fairness, Ltl, LtlEvent, LtlState
from bridge.reductions._rewrite import rewrite
from bridge.reductions.dependencies import fold_constant
from bridge.reductions.por import back_edges
from bridge.semantics.successors import StateSpace, StateVector, Step

SOUND_FAIRNESS = frozenset({Fairness.NONE, Fairness.STRONG_GLOBAL})
_COMMUTATIVE = frozenset({"+", "*", "&&", "||", "&", "|", "^", "==", "!=", "xor"})

Permutation = tuple[int, ...]  # position p moves to perm[p]


class _NotSymmetric(Exception):
    pass


@dataclass(frozen=True)
class Family:
    """Instances (in position order) of one template, the family arrays indexed by
    position, and the group: ``"full"`` (every permutation) or ``"rotation"``."""

    template: str
    instances: tuple[int, ...]
    arrays: tuple[str, ...]
    group: str
    parameter_slots: tuple[int, ...] = ()  # segment-relative slots kept in place


@dataclass(frozen=True)
class SymmetrySpec:
    """What symmetry reduction will use: the families and the finite phases (processes
    that must have finished before states are canonicalised)."""

    families: tuple[Family, ...]
    phases: tuple[int, ...]  # instance ids
    notes: tuple[str, ...] = ()


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


def _rename(node: Any, perm: Permutation, arrays: frozenset[str]) -> Any:
    """Rename constant family-array indices and constant event components by ``perm``."""
    n = len(perm)

    def fn(x: Any) -> Any:
        if isinstance(x, Index) and isinstance(x.base, Var) and x.base.scope == "global" \
                and x.base.name in arrays:
            c = fold_constant(x.index)
            if c is None:
                raise _NotSymmetric(
                    f"array '{x.base.name}' is indexed by a non-constant expression"
                )
            if 0 <= c < n:
                return Index(x.base, Const(perm[c]))
            return x
        if isinstance(x, Event):
            comps = []
            for comp in x.components:
                c = fold_constant(comp)
                comps.append(Const(perm[c]) if c is not None and 0 <= c < n else comp)
            return Event(x.base, tuple(comps))
        return _normalise(x)

    return rewrite(node, fn)


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
    families: list[Family] = []
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
        arrays = _family_arrays(system, len(members))
        group = None
        for candidate in ("full", "rotation"):
            try:
                _verify_family(system, members, specialised, arrays, candidate)
            except _NotSymmetric as why:
                reasons.append(f"{base} ({candidate} symmetry): {why}")
                continue
            group = candidate
            break
        if group is None:
            continue
        proc = procs[system.instances[members[0]].process]
        families.append(Family(base, tuple(members), tuple(sorted(arrays)), group,
                               _parameter_slots(proc)))
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
        for fam in families:
            try:
                for perm in _generators(len(fam.instances), fam.group):
                    arrays = frozenset(fam.arrays)
                    renamed = _canon_edges(_live_edges(tuple(
                        _rename(e, perm, arrays) for e in specialised[k]
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
    _check_formula(system, formula, families)
    notes = tuple(
        f"symmetry: {len(f.instances)} instances of {f.template}, {f.group} group"
        + (f", arrays {', '.join(f.arrays)}" if f.arrays else "")
        for f in families
    )
    return SymmetrySpec(tuple(families), tuple(phases), notes)


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


def _family_arrays(system: TransitionSystem, n: int) -> frozenset[str]:
    return frozenset(
        v.name for v in system.globals
        if isinstance(v.type, ArrayType) and v.type.length == n
        and not isinstance(v.type.element, ArrayType)
    )


def _generators(n: int, group: str) -> list[Permutation]:
    cycle = tuple((p + 1) % n for p in range(n))
    if group == "rotation" or n < 3:
        return [cycle] if n >= 2 else []
    swap = (1, 0) + tuple(range(2, n))
    return [swap, cycle]


def _verify_family(
    system: TransitionSystem,
    members: list[int],
    specialised: dict[int, list[Edge]],
    arrays: frozenset[str],
    group: str,
) -> None:
    n = len(members)
    canon = {p: _canon_edges(specialised[members[p]]) for p in range(n)}
    for perm in _generators(n, group):
        for p in range(n):
            renamed = _canon_edges(_live_edges(tuple(
                _rename(e, perm, arrays) for e in specialised[members[p]]
            )))
            if renamed != canon[perm[p]]:
                raise _NotSymmetric(
                    f"the edges of instance {p} renamed by {perm} differ from those of "
                    f"instance {perm[p]}"
                )
        # a family process may also be written to by others: checked with the others


def _check_formula(system: TransitionSystem, formula: Ltl | None, families: list[Family]) -> None:
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

    for fam in families:
        arrays = frozenset(fam.arrays)
        for perm in _generators(len(fam.instances), fam.group):
            for atom in atoms:
                if isinstance(atom, LtlEvent):
                    parts = atom.name.split(".")
                    renamed = [parts[0]] + [
                        str(perm[int(c)]) if c.isdigit() and int(c) < len(perm) else c
                        for c in parts[1:]
                    ]
                    if ".".join(renamed) != atom.name:
                        raise ConfigurationError(
                            f"symmetry reduction refused: event atom '{atom.name}' is not "
                            f"invariant under permutations of {fam.template}"
                        )
                    continue
                try:
                    original = expand(atom.expr)
                    renamed_e = _rename(original, perm, arrays)
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


class SymmetryReduction:
    """The quotient ``StateSpace`` of paper 001 Def. 4 for a verified ``SymmetrySpec``.

    Needs the compiled space's layout (``layout_of(state).bases``) to find instance
    segments and ``layout.globals`` for the family arrays. Everything else is delegated
    to the wrapped space.
    """

    def __init__(self, space: StateSpace, system: TransitionSystem, spec: SymmetrySpec) -> None:
        layout = getattr(space, "layout", None)
        if layout is None or not hasattr(space, "layout_of"):
            raise UnsupportedError.at(None, "symmetry reduction needs a compiled state space")
        self._space = space
        self._system = system
        self.spec = spec
        self._layout = layout
        self._arrays = [
            [layout.globals[name].offset for name in fam.arrays] for fam in spec.families
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
        self.canonicalised = 0
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

    def _active(self, state: StateVector) -> bool:
        if not self._phase_done:
            return True
        bases = self._space.layout_of(state).bases  # type: ignore[attr-defined]
        return all(k < len(bases) and state[bases[k]] in done for k, done in self._phase_done)

    def canonical(self, state: StateVector) -> tuple[StateVector, list[Permutation]]:
        """Return the representative of ``state``'s orbit and, per family, the
        permutation ``perm`` with ``rep`` position ``j`` taken from position ``perm[j]``."""
        if not self._active(state):
            return state, [tuple(range(len(f.instances))) for f in self.spec.families]
        bases = self._space.layout_of(state).bases  # type: ignore[attr-defined]
        out = list(state)
        perms: list[Permutation] = []
        for fam, arrays in zip(self.spec.families, self._arrays, strict=True):
            n = len(fam.instances)
            if any(k >= len(bases) for k in fam.instances):
                perms.append(tuple(range(n)))
                continue
            size = self._segment_size(fam.instances[0], state)
            keep = set(fam.parameter_slots)

            def key(p: int, _fam=fam, _size=size, _keep=keep, _arrays=arrays) -> tuple:
                b = bases[_fam.instances[p]]
                seg = tuple(state[b + j] for j in range(_size) if j not in _keep)
                return seg + tuple(state[a + p] for a in _arrays)

            keys = [key(p) for p in range(n)]
            if fam.group == "full":
                perm = tuple(sorted(range(n), key=lambda p, _k=keys: _k[p]))
            else:
                best = None
                for r in range(n):
                    cand = tuple((j + r) % n for j in range(n))
                    seq = [keys[c] for c in cand]
                    if best is None or seq < best[0]:
                        best = (seq, cand)
                assert best is not None
                perm = best[1]
            perms.append(perm)
            for j, src in enumerate(perm):
                if j == src:
                    continue
                bj, bs = bases[fam.instances[j]], bases[fam.instances[src]]
                for off in range(size):
                    if off not in keep:
                        out[bj + off] = state[bs + off]
                for a in arrays:
                    out[a + j] = state[a + src]
        return tuple(out), perms

    def apply(self, state: StateVector, perms: Sequence[Permutation]) -> StateVector:
        """Return the state whose position ``perm[j]`` holds what ``state`` holds at
        ``j`` (the inverse of ``canonical``'s rearrangement)."""
        bases = self._space.layout_of(state).bases  # type: ignore[attr-defined]
        out = list(state)
        for fam, arrays, perm in zip(self.spec.families, self._arrays, perms, strict=True):
            if any(k >= len(bases) for k in fam.instances):
                continue
            size = self._segment_size(fam.instances[0], state)
            keep = set(fam.parameter_slots)
            for j, dst in enumerate(perm):
                bj, bd = bases[fam.instances[j]], bases[fam.instances[dst]]
                for off in range(size):
                    if off not in keep:
                        out[bd + off] = state[bj + off]
                for a in arrays:
                    out[a + dst] = state[a + j]
        return tuple(out)

    def _segment_size(self, instance: int, state: StateVector) -> int:
        return self._space.process_of(instance, state).size  # type: ignore[attr-defined]

    # -- the protocol -------------------------------------------------------------

    def initial_states(self) -> Sequence[StateVector]:
        return tuple(self.canonical(s)[0] for s in self._space.initial_states())

    def successors(self, state: StateVector) -> Sequence[tuple[Step, StateVector]]:
        """Return the steps of ``state`` with canonical targets (paper 001 Def. 4)."""
        out = []
        for step, target in self._space.successors(state):
            rep, _ = self.canonical(target)
            if rep != target:
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
    ) -> tuple[StateVector, list[tuple[Step, StateVector]], list[tuple[Step, StateVector]]]:
        """Return ``(initial, prefix, loop)`` of a concrete run of the wrapped space that
        the quotient path ``prefix . loop^omega`` represents (paper 001 Lemma 1; the loop
        is repeated until the accumulated permutation returns to where it started, as in
        the proof of Theorem 3, so the concrete loop closes)."""
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
        for step, target in prefix:
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
