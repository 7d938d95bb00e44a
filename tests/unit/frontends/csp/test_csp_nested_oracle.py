"""Random nested compositions against a direct interpreter of PAT's rules.

The oracle below explores process *terms* the way PAT 3.5 does (cspsharp.md section
7, and PAT's ``Sequence``/``IndexInterleave``/``IndexParallel``): ``Skip`` has one
``terminate`` step; a prefix one step; general choice the union of first steps;
``P ; Q`` is ``Q`` itself once ``P`` is Skip or a composition of Skips (``IsSkip``),
and otherwise P's terminate becomes tau to Q; ``|||`` interleaves and terminates when
every operand offers terminate; ``||`` synchronises on the events shared by the
operands' alphabets (computed from the operands when the composition is first
stepped, plus terminate). A state is a term, positionally: every prefix carries the
position it was written at, as the front-end's locations do (PAT's process ids also
merge two equal sub-terms written at different places, and interleavings that differ
only in which operand became Skip; both are outside this test). Random terms over
unique events (and a small pool of shared events under ``||``) are lowered by the
front-end and explored by the engine; states, steps and the deadlock verdict must
equal the oracle's. Terms the front-end refuses are skipped (their share is bounded
below).
"""

from __future__ import annotations

import importlib
import itertools
import random
from collections.abc import Iterator

from bridge.diagnostics import UnsupportedError
from bridge.frontends.csp import load_csp
from bridge.ir import Outcome, PropertyKind
from bridge.ir.validate import validate_system

explore_mod = importlib.import_module("bridge.semantics.explore")

TERMINATE = "terminate"
TAU = "tau"

# Terms: ("skip",), ("stop",), ("pre", event, P, where), ("seq", P, Q), ("ch", P, Q),
# ("inter", (P, ...)), ("par", (P, ...), alphabets | None), ("ref", name): a process
# reference (unfolded without a step; a state is the reference, as PAT's ids are).
Term = tuple
SKIP: Term = ("skip",)
STOP: Term = ("stop",)
DEFS: dict[str, Term] = {}  # the definitions of the model being checked


def is_skip(t: Term) -> bool:
    if t[0] == "skip":
        return True
    if t[0] == "seq":
        return is_skip(t[1]) and is_skip(t[2])
    if t[0] in ("inter", "par"):
        return all(is_skip(p) for p in t[1])
    return False


def seq(p: Term, q: Term) -> Term:
    return q if is_skip(p) else ("seq", p, q)


def inter(ps: tuple[Term, ...]) -> Term:
    return SKIP if all(p == SKIP for p in ps) else ("inter", ps)


def norm(t: Term) -> Term:
    """Return ``t`` built with PAT's constructors (a Sequence whose first part is Skip
    is its second part; an interleaving of Skips is Skip)."""
    kind = t[0]
    if kind == "pre":
        return ("pre", t[1], norm(t[2]), t[3])
    if kind == "seq":
        return seq(norm(t[1]), norm(t[2]))
    if kind == "ch":
        return ("ch", norm(t[1]), norm(t[2]))
    if kind == "inter":
        return inter(tuple(norm(p) for p in t[1]))
    if kind == "par":
        ps = tuple(norm(p) for p in t[1])
        own = [events(p) | {TERMINATE} for p in ps]
        count: dict[str, int] = {}
        for a in own:
            for e in a:
                count[e] = count.get(e, 0) + 1
        return ("par", ps, tuple(frozenset(e for e in a if count[e] > 1) for a in own))
    return t


def events(t: Term) -> set[str]:
    """Return the visible events syntactically in ``t`` (its alphabet without
    terminate)."""
    out: set[str] = set()
    stack = [t]
    seen: set[str] = set()
    while stack:
        x = stack.pop()
        if x[0] == "ref" and x[1] not in seen:
            seen.add(x[1])
            stack.append(DEFS[x[1]])
        elif x[0] == "pre":
            out.add(x[1])
            stack.append(x[2])
        elif x[0] in ("seq", "ch"):
            stack.extend((x[1], x[2]))
        elif x[0] in ("inter", "par"):
            stack.extend(x[1])
    return out


def steps(t: Term) -> list[tuple[str, Term]]:
    """Return PAT's steps of ``t``: (event, successor term)."""
    kind = t[0]
    if kind == "skip":
        return [(TERMINATE, STOP)]
    if kind == "stop":
        return []
    if kind == "pre":
        return [(t[1], t[2])]
    if kind == "ref":
        return steps(DEFS[t[1]])
    if kind == "ch":
        return steps(t[1]) + steps(t[2])
    if kind == "seq":
        if is_skip(t[1]):
            return steps(t[2])
        out = []
        for e, p in steps(t[1]):
            out.append((TAU, t[2]) if e == TERMINATE else (e, seq(p, t[2])))
        return out
    if kind == "inter":
        ps = t[1]
        out = []
        all_end = True
        for i, p in enumerate(ps):
            mine = steps(p)
            if not any(e == TERMINATE for e, _ in mine):
                all_end = False
            for e, q in mine:
                if e != TERMINATE:
                    out.append((e, inter(ps[:i] + (q,) + ps[i + 1:])))
        if all_end:
            out.append((TERMINATE, STOP))
        return out
    assert kind == "par"
    ps, alphas = t[1], t[2]
    out = []
    offers: dict[str, list[list[Term]]] = {}
    for i, p in enumerate(ps):
        for e, q in steps(p):
            if e in alphas[i]:
                offers.setdefault(e, [[] for _ in ps])[i].append(q)
            else:
                out.append((e, ("par", ps[:i] + (q,) + ps[i + 1:], alphas)))
    for e, per in offers.items():
        need = [i for i in range(len(ps)) if e in alphas[i]]
        if any(not per[i] for i in need):
            continue
        for combo in itertools.product(*(per[i] for i in need)):
            new = list(ps)
            for i, q in zip(need, combo, strict=True):
                new[i] = q
            out.append((e, ("par", tuple(new), alphas)))
    return out


def oracle(t: Term) -> tuple[int, int, bool]:
    """Return (states, steps, deadlock free) of ``t`` by PAT's rules."""
    seen = {t}
    work = [t]
    count = 0
    terminated: set[Term] = set()
    deadlock = False
    while work:
        x = work.pop()
        out = steps(x)
        count += len(out)
        if not out and x not in terminated:
            deadlock = True
        for e, y in out:
            if e == TERMINATE:
                terminated.add(y)
            if y not in seen:
                seen.add(y)
                work.append(y)
    if deadlock:  # a state first seen unterminated may be entered by terminate later
        deadlock = any(not steps(x) and x not in terminated for x in seen)
    return len(seen), count, not deadlock


# ---------------------------------------------------------------------------------
# Random terms


class Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.fresh = itertools.count()
        self.defs: dict[str, Term] = {}

    def event(self, shared: bool) -> str:
        if shared and self.rng.random() < 0.4:
            return f"s{self.rng.randrange(2)}"
        return f"e{next(self.fresh)}"

    def pre(self, shared: bool, body: Term) -> Term:
        return ("pre", self.event(shared), body, next(self.fresh))

    def term(self, depth: int, shared: bool = False) -> Term:
        r = self.rng.random()
        if depth <= 0 or r < 0.15:
            return SKIP
        if r < 0.45:
            return self.pre(shared, self.term(depth - 1, shared))
        if r < 0.6:
            return ("seq", self.term(depth - 1, shared), self.term(depth - 1, shared))
        if r < 0.68:
            return ("ch", self.pre(shared, self.term(depth - 1, shared)),
                    self.pre(shared, self.term(depth - 1, shared)))
        if r < 0.8:
            n = 2 + (self.rng.random() < 0.2)
            return ("inter", tuple(self.term(depth - 1, shared) for _ in range(n)))
        if r < 0.9:
            # A loop, left by an exit into the rest.
            name = f"L{next(self.fresh)}"
            self.defs[name] = STOP  # reserved; the body follows
            # Always with an exit: code after a loop that never ends is in PAT's
            # alphabets but is never explored by the front-end (a known difference).
            again = self.pre(False, ("ref", name))
            again = ("ch", again, self.pre(False, self.term(depth - 1, shared)))
            self.defs[name] = again
            return ("ref", name)
        return ("par", (self.term(depth - 1, True), self.term(depth - 1, True)), None)

    def system(self) -> Term:
        top = ("pre", "go", self.term(4), -1)
        r = self.rng.random()
        if r < 0.25:
            return ("inter", (top, self.term(2)))
        if r < 0.4:
            return ("par", (top, self.term(2, True)), None)
        return top


def text(t: Term) -> str:
    kind = t[0]
    if kind == "skip":
        return "Skip"
    if kind == "stop":
        return "Stop"
    if kind == "pre":
        return f"({t[1]} -> {text(t[2])})"
    if kind == "seq":
        return f"({text(t[1])}; {text(t[2])})"
    if kind == "ch":
        return f"({text(t[1])} [] {text(t[2])})"
    if kind == "ref":
        return t[1]
    op = " ||| " if kind == "inter" else " || "
    return "(" + op.join(text(p) for p in t[1]) + ")"


def samples(n: int) -> Iterator[tuple[int, Term, dict[str, Term]]]:
    for seed in range(n):
        g = Gen(seed)
        term = g.system()
        yield seed, term, g.defs


def source_of(term: Term, defs: dict[str, Term]) -> str:
    lines = [f"{name} = {text(body)};" for name, body in defs.items()]
    return "\n".join([*lines, f"Sys = {text(term)};", "#assert Sys deadlockfree;"])


def test_lowering_matches_pat_rules_on_random_nested_models() -> None:
    checked = 0
    refused = 0
    for seed, term, defs in samples(400):
        source = source_of(term, defs)
        try:
            ts = load_csp(f"random{seed}.csp", source).systems[0]
        except UnsupportedError:
            refused += 1
            continue
        assert validate_system(ts) == [], source
        DEFS.clear()
        DEFS.update(defs)  # raw first: norm() reads the events through references
        DEFS.update({name: norm(body) for name, body in defs.items()})
        states, count, free = oracle(norm(term))
        stats = explore_mod.explore(ts)
        assert (stats.states, stats.transitions) == (states, count), source
        prop = ts.properties[0]
        assert prop.kind is PropertyKind.DEADLOCK_FREE
        outcome = explore_mod.check_property(ts, prop).outcome
        assert outcome is (Outcome.HOLDS if free else Outcome.VIOLATED), source
        checked += 1
    assert checked >= 250, (checked, refused)


def test_oracle_itself_on_hand_counts() -> None:
    """The oracle agrees with the hand counts of test_csp_nested.py."""
    where = itertools.count()

    def pre(e: str, body: Term) -> Term:
        return ("pre", e, body, next(where))

    a, b, c = (pre(x, SKIP) for x in "abc")
    assert oracle(("seq", ("inter", (a, b)), c))[:2] == (6, 6)
    assert oracle(pre("x", ("inter", (b, c))))[:2] == (6, 6)
    barrier = norm(("par", (pre("a", pre("b", SKIP)), pre("a", pre("c", SKIP))), None))
    assert oracle(pre("start", ("seq", barrier, pre("done", SKIP))))[:2] == (8, 8)
    blocked = norm(("par", (pre("a", pre("b", SKIP)), pre("b", pre("a", SKIP))), None))
    assert oracle(pre("start", blocked)) == (2, 1, False)
