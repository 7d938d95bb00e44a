"""The data a leaf's exploration works on: configurations, raw steps, leaves.

A location of a leaf process is a *configuration*: a process term with its bindings
and the pending sequential continuations (the tuple shapes are listed below). A
``Raw`` step is a first step of a configuration before its target is normalised;
``Leaf`` is an operand of the asserted composition; ``Nested`` a parallel composition
reached inside a leaf (cspsharp.md section 7).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from bridge.diagnostics import SemanticError, Span, UnsupportedError
from bridge.frontends.csp import syntax as s
from bridge.frontends.csp.fold import (
    and_,
    locals_in,
    map_expr,
)
from bridge.ir import (
    UNBOUNDED,
    Binary,
    Const,
    Event,
    Expr,
    FairnessMark,
    Receive,
    Send,
    Stmt,
    Type,
    Var,
)

TERMINATE = "terminate"
MAX_LOCATIONS = 20_000
# A leaf with a '|||' reached inside it that passes LAZY_AFTER locations (any other
# leaf: MAX_LOCATIONS) is unfolded lazily instead (``leaf.LeafBuilder.resume``): the
# locations the search reaches, and at least LAZY_AHEAD more ahead of them each time.
# A leaf that cannot be unfolded lazily stops at MAX_LOCATIONS.
LAZY_AFTER = 5_000
LAZY_AHEAD = 1_000
# No leaf is unfolded past this many locations, lazily or not.
HARD_LIMIT = 1_000_000


class UnfoldingError(SemanticError):
    """A process whose unfolding does not end: unguarded recursion (a choice that leads
    back to its own process with no event or guard in between, ``P = a -> P [] P``)
    or a parameter that grows without bound. PAT 3.5 parses such a model and checks
    its other assertions; its own unfolding of this process does not end either (it
    recurses until its stack overflows when an assertion about the process is
    checked). So the front-end refuses only the assertions whose processes reach it
    (``ir.RefusedAssertion``), not the model."""


MAX_UNFOLD = 500
# '|||' reached while a process runs, nested in itself deeper than this: the process
# spawns copies of itself without bound (``P = a -> (P ||| b -> Skip)``).
MAX_INTERLEAVE_DEPTH = 16
# ';', atomic, hiding or interrupt nested deeper than this in one control location:
# recursion inside them (``P = a -> (P; b -> Skip)``, ``P = a -> (atomic { P } \\ {b})``)
# grows the term without bound (each location costs time in its depth squared, so
# this answers in seconds where the unfolding ran on).
MAX_SEQ_DEPTH = 100
# Compositions run one after another with no step between (``P = (A || B); P``)
# followed further than this: the chain comes back to itself or its arguments grow.
MAX_CHAIN = 64
# A parameter given more constant values than this (``P(n) = ... -> P(n + 2)``) is
# kept in a local instead of specialising a location per value: the engine then meets
# the values lazily, as PAT does, instead of the lowering unfolding them all.
GROWING_PARAMETER = 512


class GrowingParameter(Exception):
    """Raised while a leaf is built: the (definition, parameter) ``key`` grows."""

    def __init__(self, key: tuple[str, str]) -> None:
        super().__init__(key)
        self.key = key


# ---------------------------------------------------------------------------------
# Configurations (locations of a leaf)
#
# ("T", term, env)    a syntax term with its bindings (env: sorted tuple of (name, Expr))
# ("SEQ", cfg, cfg)   P ; Q  (the right side is an unnormalised ("T", ...))
# ("ATOM", cfg)       atomic { P }
# ("XCH", (cfg, ...)) external choice [*] (tau steps keep it open)
# ("INTR", cfg, cfg)  P interrupt Q
# ("HIDE", cfg, names, bases)  P \ {...}: constant event names hidden, their bases
# ("ILV", (cfg, ...)) P ||| Q reached while the process runs (under recursion, a
#                     choice...): its operands are part of this process's term
# SKIP / STOP / TERM

SKIP = ("SKIP",)
STOP = ("STOP",)
TERM = ("TERM",)

Cfg = tuple
Env = tuple[tuple[str, Expr], ...]


def env_get(env: Env, name: str) -> Expr | None:
    for k, v in env:
        if k == name:
            return v
    return None


def env_set(env: Env, items: dict[str, Expr]) -> Env:
    d = dict(env)
    d.update(items)
    return tuple(sorted(d.items()))


def cfg_envs(cfg: Cfg) -> Iterable[Env]:
    stack = [cfg]
    while stack:
        c = stack.pop()
        if c[0] == "T":
            yield c[2]
        elif c[0] == "SEQ":
            stack.extend((c[1], c[2]))
        elif c[0] in ("ATOM", "HIDE"):
            stack.append(c[1])
        elif c[0] == "INTR":
            stack.extend((c[1], c[2]))
        elif c[0] in ("XCH", "ILV"):
            stack.extend(c[1])


def cfg_locals(cfg: Cfg) -> set[str]:
    out: set[str] = set()
    for env in cfg_envs(cfg):
        for _, v in env:
            out |= locals_in(v)
    return out


def cfg_map_env(cfg: Cfg, fn: Callable[[Env], Env]) -> Cfg:
    if cfg[0] == "T":
        return ("T", cfg[1], fn(cfg[2]))
    if cfg[0] == "SEQ":
        return ("SEQ", cfg_map_env(cfg[1], fn), cfg_map_env(cfg[2], fn))
    if cfg[0] == "ATOM":
        return ("ATOM", cfg_map_env(cfg[1], fn))
    if cfg[0] == "HIDE":
        return ("HIDE", cfg_map_env(cfg[1], fn), cfg[2], cfg[3])
    if cfg[0] == "INTR":
        return ("INTR", cfg_map_env(cfg[1], fn), cfg_map_env(cfg[2], fn))
    if cfg[0] in ("XCH", "ILV"):
        return (cfg[0], tuple(cfg_map_env(c, fn) for c in cfg[1]))
    return cfg


def interleave_depth(cfg: Cfg) -> int:
    """Return how many ``ILV`` configurations are nested in ``cfg`` at most."""
    if cfg[0] == "ILV":
        return 1 + max((interleave_depth(c) for c in cfg[1]), default=0)
    if cfg[0] == "XCH":
        return max((interleave_depth(c) for c in cfg[1]), default=0)
    if cfg[0] in ("SEQ", "INTR"):
        return max(interleave_depth(cfg[1]), interleave_depth(cfg[2]))
    if cfg[0] in ("ATOM", "HIDE"):
        return interleave_depth(cfg[1])
    return 0


def cfg_atomic(cfg: Cfg) -> bool:
    while cfg[0] in ("SEQ", "HIDE", "INTR"):
        cfg = cfg[1]
    return cfg[0] == "ATOM"


@dataclass
class Raw:
    """A first step of a configuration, before its target is normalised."""

    guard: Expr | None
    comm: Send | Receive | None
    effect: list[Stmt]
    event: Event | None
    target: Cfg
    span: Span | None
    text: str = ""
    fairness: FairnessMark | None = None
    data_operation: bool = False
    captures: dict[str, Expr] = field(default_factory=dict)
    # a step of an atomic operand of an interleaving inside the process (ir.Edge.atomic)
    atomic: bool = False


PLACEHOLDER = "\x00"



@dataclass
class Leaf:
    term: s.Term
    env: Env
    name: str
    def_name: str | None
    span: Span
    gate_set: str | None = None  # a sequential prefix: its end sets this global
    gate: Expr | None = None  # must hold for the edges of the first location
    hidden: frozenset[str] = frozenset()  # hiding above the composition (constant names)
    hidden_bases: frozenset[str] = frozenset()
    # An operand of a nested composition followed by ';': it parks at its Skip (no
    # terminate step) and the step reaching Skip counts this global down to 0.
    park: str | None = None
    # Allocates a fresh hidden-bookkeeping global name (nested compositions).
    fresh_global: Callable[[str], str] | None = None
    # An operand of a nested composition: written inline, it does not take the
    # '#alphabet' of the definition it is written in (that one is its owner's).
    nested_op: bool = False
    # Runs after a sequential prefix (``P; (A ||| B)``): it starts when P hands over.
    behind_prefix: bool = False


@dataclass
class Nested:
    """A parallel composition reached by a step of a leaf (or first in it): its
    operands become static instances whose first edges wait for ``start`` (None: they
    start at once). ``flag``: the global the entering step sets (``start`` is then
    that flag); ``fixed``: started otherwise (first in the leaf, or when a previous
    composition ends), so no edge may enter it. ``kind`` "tail": the leaf ends there
    (its terminate joins the operands'); "seq": ``(A || B); C``, the operands count
    ``join`` down as they reach Skip and at 0 the leaf's location behaves as C
    (PAT: ``P ; C`` is C as soon as P is a composition of Skips; cspsharp.md 7)."""

    cfg: Cfg
    kind: str
    start: Expr | None
    flag: str | None
    fixed: bool
    join: str | None
    span: Span
    # The leaf location whose ';' chain starts with it (a composition written once
    # but reached by two calls, ``Round(0); Round(1)``, is two compositions), or
    # ("CHAIN", key of the composition it follows, cfg).
    key: Cfg = ()

    def done(self) -> Expr:
        """Return the condition under which the composition has ended ("seq")."""
        assert self.join is not None
        return and_(self.start, Binary("==", Var(self.join, "global"), Const(0)))




def rename_locals(cfg: Cfg, canon: dict[str, str]) -> Cfg:
    """Return ``cfg`` with the locals named in ``canon`` renamed in its environments'
    values (the canonical local names of ``canonical_names``)."""

    def rename(e: Expr) -> Expr | None:
        if isinstance(e, Var) and e.scope == "local" and e.name in canon:
            return Var(canon[e.name], "local", e.span)
        return None

    return cfg_map_env(cfg, lambda env: tuple((k, map_expr(v, rename)) for k, v in env))


def canonical_names(cfg: Cfg, types: dict[str, Type] | None = None) -> dict[str, str]:
    """Return canonical names for the locals of ``cfg``: in a fixed traversal order, a
    local bound to a name ``p`` in scope is called ``p`` (``p_2``... when taken, or when
    ``p`` already names a local of another type in this process)."""
    types = types if types is not None else {}
    canon: dict[str, str] = {}
    used: set[str] = set()
    clashes: dict[Type, set[str]] = {}
    for env in cfg_envs(cfg):
        for key, value in env:
            for old in sorted(locals_in(value)):
                if old in canon:
                    continue
                if isinstance(value, Var):
                    base = key
                else:
                    base = old.rsplit("_", 1)[0] if old.rsplit("_", 1)[-1].isdigit() else old
                wanted = types.get(old, UNBOUNDED)
                clash = clashes.get(wanted)
                if clash is None:  # names of locals of other types, once per type
                    clash = clashes[wanted] = {n for n, t in types.items() if t != wanted}
                new = pick_name(base, used | clash)
                canon[old] = new
                used.add(new)
                if new not in types:
                    types[new] = wanted
                    for other, names in clashes.items():
                        if other != wanted:
                            names.add(new)
    return canon


def replace_head(cfg: Cfg, new: Cfg) -> Cfg:
    """Return ``cfg`` with the innermost left operand of its ';' chain replaced."""
    if cfg[0] != "SEQ":
        return new
    return ("SEQ", replace_head(cfg[1], new), cfg[2])


def parks(cfg: Cfg) -> bool:
    """Return True if an operand of a composition under ';' is done at ``cfg``: at
    Skip, or ended in a nested composition (whose operands then park in its place)."""
    return cfg == SKIP or cfg[0] == "PAR"


def spine_head(cfg: Cfg) -> tuple[Cfg, int]:
    """Return the innermost left operand of the ``;`` chain of ``cfg`` (what runs
    first) and how many ``;`` lie above it."""
    depth = 0
    while cfg[0] == "SEQ":
        cfg = cfg[1]
        depth += 1
    return cfg, depth




def nested_unsupported(term: s.Term, why: str) -> UnsupportedError:
    """Return the refusal of the nested composition ``term`` as static instances;
    ``nested_term`` names it, so that a '|||' can be lowered again inside its process
    (``ILV`` configurations, ``lower.lower_program``)."""
    op = getattr(term, "op", "||")
    error = UnsupportedError.at(
        term.span,
        f"unsupported construct: '{op}' nested under {why} (only a composition reached "
        "at most once, after a prefix or in a sequential composition, is unfolded)",
    )
    error.nested_term = term  # type: ignore[attr-defined]
    return error




def is_terminate(raw: Raw) -> bool:
    return raw.event is not None and raw.event.base == TERMINATE and raw.target == TERM


def pick_name(placeholder: str, taken: set[str]) -> str:
    base = placeholder.rsplit(PLACEHOLDER, 1)[-1] if placeholder.startswith(PLACEHOLDER) else (
        placeholder
    )
    if base not in taken:
        return base
    for k in itertools.count(2):
        name = f"{base}_{k}"
        if name not in taken:
            return name
    raise AssertionError("unreachable")  # pragma: no cover
