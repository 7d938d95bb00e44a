"""Build the ``Process`` of one leaf by exploring its configurations.

Locations are configurations (``configurations.py``); the steps of each come from
``steps.StepRules``; ``finish`` turns a raw step into an edge with canonical local
names, so that one PAT state is one state vector.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable

from bridge.diagnostics import SemanticError, Span, UnsupportedError, check_time_limit
from bridge.frontends.csp import syntax as s
from bridge.frontends.csp.configurations import (
    HARD_LIMIT,
    LAZY_AFTER,
    LAZY_AHEAD,
    MAX_CHAIN,
    MAX_LOCATIONS,
    MAX_SEQ_DEPTH,
    PLACEHOLDER,
    SKIP,
    STOP,
    TERM,
    Cfg,
    Env,
    GrowingParameter,
    Leaf,
    Nested,
    Raw,
    canonical_names,
    cfg_atomic,
    cfg_locals,
    cfg_map_env,
    interleave_depth,
    is_terminate,
    parks,
    pick_name,
    rename_locals,
    replace_head,
    spine_head,
)
from bridge.frontends.csp.context import Lowerer
from bridge.frontends.csp.fold import (
    and_,
    event_name,
    fold,
    locals_in,
    map_expr,
    map_stmt,
    stmt_locals,
    zero_of,
)
from bridge.frontends.csp.steps import (
    StepRules,
)
from bridge.ir import (
    UNBOUNDED,
    Assign,
    Binary,
    Const,
    Edge,
    Event,
    Expr,
    LocalVar,
    Location,
    Process,
    Receive,
    RecvBind,
    RecvMatch,
    Send,
    Stmt,
    Type,
    Var,
    Variable,
)

# A leaf without a '|||' inside goes lazy where the static unfolding would stop.
LAZY_AFTER_STATIC = MAX_LOCATIONS



def wrapper_depth(cfg: Cfg) -> int:
    """How many ``;``, ``atomic``, hiding and interrupt configurations enclose what
    runs first in ``cfg`` (each holds it as its first operand)."""
    depth = 0
    while cfg[0] in ("SEQ", "ATOM", "HIDE", "INTR"):
        cfg = cfg[1]
        depth += 1
    return depth

class NotLazy(Exception):
    """Raised while a leaf is unfolded lazily: it has what only a static unfolding
    handles (``LeafBuilder._may_defer``); it is unfolded statically instead."""


class LeafBuilder(StepRules):
    """Build the ``Process`` of one leaf by exploring its configurations."""

    def __init__(
        self, low: Lowerer, leaf: Leaf, dynamic: frozenset[tuple[str, str]] = frozenset(),
        lazy: bool = False,
    ) -> None:
        self.low = low
        self.leaf = leaf
        # Unfolded lazily: ``build`` expands only the first LAZY_AHEAD locations, the
        # search asks for the rest (``resume``). ``deferred``: a static build that
        # passed LAZY_AFTER locations and stopped (``build_leaf`` starts it lazily).
        self.lazy = lazy
        self.deferred = False
        self.static_only = False  # a lazy unfolding met what it cannot handle
        # A location holds a '|||' reached inside the process (ILV): the product of
        # its operands is what grows, so the leaf goes lazy from LAZY_AFTER
        # locations on; other leaves only from MAX_LOCATIONS.
        self.interleaving = False
        # (definition, parameter) pairs that also receive state-dependent values: their
        # constant arguments go into the local too, so that P(0) and P(w) with w = 0
        # are one location (one PAT state).
        self.dynamic = dynamic
        self.binding_kinds: dict[tuple[str, str], set[str]] = {}
        # The constant values each (definition, parameter) has been given.
        self.const_args: dict[tuple[str, str], set[int | bool]] = {}
        self.initial_values: dict[str, Expr] = {}
        self.counter = itertools.count()
        self.locations: dict[Cfg, int] = {}
        self.location_list: list[Location] = []
        self.cfgs: list[Cfg] = []
        self.edges: list[Edge] = []
        self.local_types: dict[str, Type] = {}
        self.syntactic_events: set[str] = set()
        self.dynamic_events: list[tuple[Event, Span | None]] = []
        self.can_terminate = False
        # Nested parallel compositions, by their ("PAR", term, env) configuration.
        self.nested: dict[Cfg, Nested] = {}
        # The compositions whose steps the location being expanded offers: cfg -> key.
        self._allowed: dict[Cfg, Cfg] = {}
        self._wrap: s.Skip | None = None  # the Skip after a sequential prefix
        # The continuation C of ``(A || B); C`` -> the waiting location that behaves
        # as C once the composition has ended (so C re-entered is that location).
        self.aliases: dict[Cfg, int] = {}
        self.alias_conflict: Span | None = None
        self.alias_edges: set[int] = set()  # id() of edges whose target is an alias
        # A sequential prefix that ends in a composition: the conditions under which
        # it has handed over (with no step of its own).
        self.handovers: list[Expr] = []
        # The terms whose first steps are being computed (steps.StepRules.steps), each
        # with the number of guards passed on the way to it.
        self._active_steps: dict[Cfg, int] = {}
        self._active_chain: set[Cfg] = set()  # (A || B); C being expanded
        self._guards_passed = 0
        # Locations made but not expanded yet (a stack while the leaf is built; what is
        # left when it passes ``MAX_LOCATIONS`` is unfolded lazily: ``resume``).
        self.work: list[int] = []

    def fresh(self, base: str) -> str:
        return f"{PLACEHOLDER}{next(self.counter)}{PLACEHOLDER}{base}"

    # -- edges --------------------------------------------------------------------------
    def location(self, cfg: Cfg, span: Span | None) -> int:
        lid = self.locations.get(cfg)
        if lid is not None:
            return lid
        lid = self.aliases.get(cfg)
        if lid is not None:
            return lid
        lid = len(self.location_list)
        if lid >= HARD_LIMIT or (lid >= MAX_LOCATIONS and not self._may_defer()):
            limit = HARD_LIMIT if lid >= HARD_LIMIT else MAX_LOCATIONS
            raise SemanticError.at(
                self.leaf.span,
                f"process '{self.leaf.name}' unfolds into more than {limit} "
                "control locations (a parameter that grows without bound?)",
            )
        if wrapper_depth(cfg) > MAX_SEQ_DEPTH:
            raise SemanticError.at(
                self.leaf.span,
                f"';', atomic, hiding or interrupt nested more than {MAX_SEQ_DEPTH} deep "
                f"in process '{self.leaf.name}' (recursion inside one of them that grows "
                "the process without bound?)",
            )
        self.locations[cfg] = lid
        self.cfgs.append(cfg)
        if not self.interleaving and interleave_depth(cfg):
            self.interleaving = True
        shown = cfg
        if cfg[0] == "SEQ" and cfg[2][0] == "T" and cfg[2][1] is self._wrap:
            shown = cfg[1]  # the prefix's location, as without the added '; Skip'
        term_span = shown[1].span if shown[0] in ("T", "PAR") else span
        # An operand parked at its Skip has finished (its terminate is the joint tau
        # step of the process waiting for the composition).
        done = cfg == TERM or (self.leaf.park is not None and parks(cfg))
        atomic = cfg_atomic(cfg)
        if cfg[0] == "SEQ" and spine_head(cfg)[0][0] == "PAR":
            # (A || B); C: its edges are C's, enabled once the composition has
            # ended; an atomic C has priority from then on (its steps are disabled
            # before). A prefix that ends in a composition has nothing left.
            atomic, done = self._alias(cfg, lid)
        self.location_list.append(
            Location(
                lid,
                labels=(),
                atomic=atomic,
                end=done,
                terminal=done,
                span=term_span,
            )
        )
        return lid

    def _alias(self, cfg: Cfg, lid: int) -> tuple[bool, bool]:
        """Make the continuation C of the waiting location ``cfg`` = ``(A || B); C``
        (after any compositions chained behind this one) map to that location: once
        they have ended it is C, one PAT state. Return whether the location's own
        continuation is atomic and whether it ends a sequential prefix."""
        post: list[tuple[str, Expr]] = []
        try:
            rest = self.normalise(replace_head(cfg, SKIP), "post", {}, post)
            final = rest
            chain = {cfg}
            while not post and final[0] in ("PAR", "SEQ") and (
                spine_head(final)[0][0] == "PAR"
            ):
                if final in chain or len(chain) > MAX_CHAIN:
                    # (A ||| B); P with P = (A ||| B); P: the chain of compositions
                    # comes back to itself, or its arguments grow (P(i) = (A || B);
                    # P((i + 1) % 3) from a global i) (it ran forever before).
                    self.alias_conflict = spine_head(cfg)[0][1].span
                    return cfg_atomic(rest), False
                chain.add(final)
                final = self.normalise(replace_head(final, SKIP), "post", {}, post)
        except UnsupportedError:
            return False, False  # reported when the location's steps are computed
        atomic = cfg_atomic(rest)
        if final == SKIP and self.leaf.gate_set is not None and not post:
            return False, True  # the prefix ends in compositions: nothing left
        if post or cfg_locals(final) or final in (SKIP, STOP, TERM):
            return atomic, False
        if final in self.locations or final in self.aliases:
            self.alias_conflict = spine_head(cfg)[0][1].span
            return atomic, False
        self.aliases[final] = lid
        return atomic, False

    def build(self) -> Process:
        post: list[tuple[str, Expr]] = []
        start: Cfg = ("T", self.leaf.term, self.leaf.env)
        if self.leaf.hidden:
            start = ("HIDE", start, self.leaf.hidden, self.leaf.hidden_bases)
        if self.leaf.gate_set is not None:
            # A sequential prefix ``P; (A ||| B)`` runs as ``P; Skip``: P's terminate
            # is a tau to the composition (``Skip ; Q`` is Q at once), and a
            # composition that ends P is followed by something.
            self._wrap = s.Skip(self.leaf.span)
            start = ("SEQ", start, ("T", self._wrap, ()))
        initial_cfg = self.normalise(start, "post", {}, post)
        if self.leaf.gate_set is not None and initial_cfg == SKIP:
            # ``Skip ; (A ||| B)`` is the composition at once: no step of its own.
            initial_cfg = TERM
            self.handovers.append(self.leaf.gate if self.leaf.gate is not None else Const(True))
        if post:
            # Constant arguments of parameters kept in locals: initial values.
            canon = canonical_names(initial_cfg, self.local_types)
            for name, value in post:
                assert isinstance(value, Const), "no locals exist before the first step"
                if name in canon:  # else a parameter the process never reads
                    self.initial_values[canon[name]] = value

            initial_cfg = rename_locals(initial_cfg, canon)
        head, depth = spine_head(initial_cfg)
        if head[0] == "PAR":
            self._record(initial_cfg, head, "tail" if depth == 0 else "seq", "initial")
        self.location(initial_cfg, self.leaf.span)
        work = self.work = [0]
        if self.lazy:
            self._unfold_ahead([0], LAZY_AHEAD)
            return self.snapshot()
        while work:
            limit = LAZY_AFTER if self.interleaving else LAZY_AFTER_STATIC
            if len(self.location_list) >= limit and self._may_defer():
                self.deferred = True  # unfolded lazily instead (build_leaf)
                break
            if not len(self.location_list) & 63:
                check_time_limit("loading the model (unfolding its CSP# processes)")
            self._expand_location(work.pop())
        return self.snapshot()

    def _expand_location(self, lid: int) -> range:
        """Compute the edges of location ``lid``; return the ids of the locations they
        created (appended to the work list)."""
        cfg = self.cfgs[lid]
        before = len(self.location_list)
        for raw in self.expand(cfg):
            edge = self.finish(lid, cfg, raw)
            if edge is not None:
                self.edges.append(edge)
        # The fresh names of this location's steps are all renamed by now; drop
        # them, or every type-clash test would scan all the names ever made.
        for name in [n for n in self.local_types if n.startswith(PLACEHOLDER)]:
            del self.local_types[name]
        made = range(before, len(self.location_list))
        self.work.extend(made)
        if self.lazy and not self._may_defer():
            raise NotLazy()
        return made

    def _may_defer(self) -> bool:
        """Return True if locations of this leaf may be left unexpanded past
        ``MAX_LOCATIONS`` (lazy unfolding): not a leaf with compositions of static
        instances, a prefix hand-over or a parked operand (their bookkeeping is
        computed from the whole unfolding)."""
        leaf = self.leaf
        return not (self.static_only or self.nested or self.aliases or self.handovers or leaf.park is not None
                    or leaf.gate_set is not None)

    def resume(self, wanted: Iterable[int], ahead: int | None = None) -> None:
        """Expand the pending locations ``wanted`` (the search reached them), then up
        to ``ahead`` more locations breadth-first from the ones they create (the search
        is likely to reach those next; by default as many as are expanded already). A parameter found to take both constant and
        run-time values (``build_leaf``) rebuilds the leaf from the start."""
        if ahead is None:
            # Ahead of the search by as much as it has taken so far (at least
            # LAZY_AHEAD): the number of rounds grows with the log of the size.
            expanded = len(self.location_list) - len(self.work)
            ahead = max(LAZY_AHEAD, expanded) if LAZY_AHEAD else 0
        try:
            self._unfold_ahead(wanted, ahead)
        except GrowingParameter as growing:
            self._rebuild(self.dynamic | {growing.key})
            return
        except NotLazy:
            self.static_only = True
            self._rebuild(self.dynamic, lazy=False)
            return
        mixed = {k for k, kinds in self.binding_kinds.items() if len(kinds) > 1}
        if not mixed <= self.dynamic:
            self._rebuild(self.dynamic | frozenset(mixed))

    def _unfold_ahead(self, wanted: Iterable[int], ahead: int) -> None:
        """Expand the pending locations ``wanted``, then breadth-first from the
        locations they create until ``ahead`` more locations exist."""
        pending = set(self.work)
        todo = sorted(set(wanted) & pending)
        done = set(todo)
        frontier: list[int] = []
        for lid in todo:
            frontier.extend(self._expand_location(lid))
        stop = len(self.location_list) + ahead
        while frontier and len(self.location_list) < stop:
            nxt: list[int] = []
            for lid in frontier:
                if len(self.location_list) >= stop:
                    break
                if lid not in done:
                    done.add(lid)
                    if not len(done) & 63:
                        check_time_limit("loading the model (unfolding its CSP# processes)")
                    nxt.extend(self._expand_location(lid))
            frontier = nxt
        self.work = [lid for lid in self.work if lid not in done]

    def _rebuild(self, dynamic: frozenset[tuple[str, str]], lazy: bool = True) -> None:
        """Unfold this leaf anew with ``dynamic`` parameters kept in locals: ``lazy``,
        or statically (lazily after all if it passes ``LAZY_AFTER`` locations), or only
        statically once it met what a lazy unfolding cannot handle (``NotLazy``).
        Parameters that turn out to receive both constant and state-dependent values
        (or to grow) are kept in locals, one rebuild per such parameter."""
        static_only = self.static_only
        while True:
            self.__init__(self.low, self.leaf, dynamic, lazy)  # type: ignore[misc]
            self.static_only = static_only
            try:
                self.build()
            except GrowingParameter as growing:
                dynamic = dynamic | {growing.key}
                continue
            except NotLazy:
                lazy, static_only = False, True
                continue
            if self.deferred:
                lazy = True
                continue
            mixed = {k for k, kinds in self.binding_kinds.items() if len(kinds) > 1}
            if mixed <= dynamic:
                return
            dynamic = dynamic | frozenset(mixed)

    def snapshot(self) -> Process:
        """Return the ``Process`` of the locations unfolded so far; those not expanded
        yet are ``Process.pending`` (lazy unfolding)."""
        used: set[str] = set()
        for e in self.edges:
            for st in e.effect:
                used |= stmt_locals(st)
            used |= set(self._comm_binds(e.comm))
        for cfg in self.cfgs:
            used |= cfg_locals(cfg)
        locals_ = tuple(
            Variable(name, self.local_types.get(name, UNBOUNDED), self.initial_values.get(name))
            for name in sorted(used)
        )
        return Process(
            self.leaf.name, (), locals_, tuple(self.location_list), tuple(self.edges), 0,
            span=self.leaf.span, pending=frozenset(self.work),
        )

    def expand(self, cfg: Cfg) -> list[Raw]:
        """Return the raw steps of a location, its symbolic bindings captured."""
        caps: dict[str, Expr] = {}

        def capture(env: Env) -> Env:
            out = []
            for k, v in env:
                if isinstance(v, Const) or (isinstance(v, Var) and v.scope == "local"):
                    out.append((k, v))
                else:
                    name = self.fresh(k)
                    caps[name] = v
                    self.local_types.setdefault(name, UNBOUNDED)
                    out.append((k, Var(name, "local")))
            return tuple(out)

        if self.leaf.park is not None and parks(cfg):
            return []  # parked: the waiting process takes the joint terminate
        head, _ = spine_head(cfg)
        self._allowed = {head: cfg} if head[0] == "PAR" else {}
        captured = cfg_map_env(cfg, capture)
        raws: list[Raw] = []
        for raw in self.steps(captured, caps):
            raw.captures = dict(caps)
            raws.append(raw)
            if self.leaf.park is not None and is_terminate(raw):
                raise UnsupportedError.at(
                    raw.span or self.leaf.span,
                    "unsupported construct: an operand of a composition followed by ';' "
                    "that may terminate other than by becoming Skip (e.g. a choice with "
                    "a Skip branch)",
                )
        return raws

    def finish(self, source: int, source_cfg: Cfg, raw: Raw) -> Edge | None:
        """Return the edge of ``raw`` (target normalised, locals named and reset).

        New values (captures, receive bindings, argument values) are first written to
        fresh locals that avoid the source's locals; at the end of the effect they are
        moved to the target's canonical names (``canonical_names``) and every other
        local is reset to 0, so one PAT state is one state vector.
        """
        guard = raw.guard
        if isinstance(guard, Const):
            if guard.value is False:
                self._note_event(raw)
                return None
            guard = None
        post: list[tuple[str, Expr]] = []
        target_cfg = self.normalise(raw.target, "post", raw.captures, post)
        src_locals = cfg_locals(source_cfg)
        mapping: dict[str, str] = {}
        taken = set(src_locals)
        fresh = list(raw.captures) + self._comm_placeholders(raw.comm) + [n for n, _ in post]
        for n in fresh:
            if n not in mapping:
                wanted = self.local_types.get(n, UNBOUNDED)
                clash = {x for x, t in self.local_types.items() if t != wanted}
                mapping[n] = pick_name(n, taken | clash)
                taken.add(mapping[n])
                self.local_types.setdefault(mapping[n], wanted)

        def rename(e: Expr) -> Expr | None:
            if isinstance(e, Var) and e.scope == "local" and e.name in mapping:
                return Var(mapping[e.name], "local", e.span)
            return None

        def rename_env(env: Env) -> Env:
            return tuple((k, map_expr(v, rename)) for k, v in env)

        target_cfg = cfg_map_env(target_cfg, rename_env)
        cap_values = {mapping[n]: map_expr(v, rename) for n, v in raw.captures.items()}

        def pre(e: Expr) -> Expr | None:
            if isinstance(e, Var) and e.scope == "local":
                name = mapping.get(e.name, e.name)
                if name in cap_values:
                    return cap_values[name]
                if name != e.name:
                    return Var(name, "local", e.span)
            return None

        guard = fold(map_expr(guard, pre)) if guard is not None else None
        if isinstance(guard, Const):
            if guard.value is False:
                self._note_event(raw)
                return None
            guard = None
        comm = self._map_comm(raw.comm, pre, rename)
        event = raw.event
        if event is not None:
            event = Event(event.base, tuple(fold(map_expr(c, pre)) for c in event.components),
                          event.span)
        effect = [map_stmt(st, rename) for st in raw.effect]
        post_pairs = [(mapping[n], map_expr(v, rename)) for n, v in post]
        # Captures the rest of the step needs.
        needed: set[str] = set(cfg_locals(target_cfg))
        for st in effect:
            needed |= stmt_locals(st)
        for _, v in post_pairs:
            needed |= locals_in(v)
        front: list[Stmt] = [
            Assign(Var(n, "local"), v) for n, v in cap_values.items() if n in needed
        ]
        back: list[Stmt] = [Assign(Var(n, "local"), v) for n, v in post_pairs]
        # Canonical names for the target's locals.
        canon = canonical_names(target_cfg, self.local_types)
        moves = [(new, old) for old, new in canon.items() if new != old]
        if moves:
            sources = {old for _, old in moves}
            if any(new in sources for new, _ in moves):
                for k, (_, old) in enumerate(moves):
                    back.append(LocalVar(f"_mv{k}", self.local_types.get(old, UNBOUNDED),
                                         Var(old, "local")))
                back.extend(Assign(Var(new, "local"), Var(f"_mv{k}", "block"))
                            for k, (new, _) in enumerate(moves))
            else:
                back.extend(Assign(Var(new, "local"), Var(old, "local")) for new, old in moves)
            for new, old in moves:
                self.local_types.setdefault(new, self.local_types.get(old, UNBOUNDED))

            target_cfg = rename_locals(target_cfg, canon)
        gate_set = self.leaf.gate_set
        if gate_set is not None and target_cfg == SKIP:
            # The end of a sequential prefix: ``Skip ; (A ||| B)`` is the composition.
            target_cfg = TERM
            back.append(Assign(Var(gate_set, "global"), Const(True)))
        park = self.leaf.park
        if park is not None and parks(target_cfg):
            back.append(Assign(Var(park, "global"), Binary("-", Var(park, "global"), Const(1))))
        head, depth = spine_head(target_cfg)
        aliased = target_cfg in self.aliases and target_cfg not in self.locations
        if head[0] == "PAR":
            rec = self._record(target_cfg, head, "tail" if depth == 0 else "seq", "edge")
            assert rec.flag is not None
            back.append(Assign(Var(rec.flag, "global"), Const(True)))
        body = _coalesce_moves(front + effect + back)
        final = set(canon.values())
        written = set(src_locals) | set(self._comm_binds(comm))
        for st in body:
            if isinstance(st, Assign) and isinstance(st.target, Var):
                if st.target.scope == "local":
                    written.add(st.target.name)
        resets = [Assign(Var(n, "local"), zero_of(self.local_types.get(n)))
                  for n in sorted(written - final)]
        if self.leaf.gate is not None and source == 0:
            guard = and_(self.leaf.gate, guard)
        target = self.location(target_cfg, raw.span)
        if raw.event is not None and raw.comm is None:
            self._note_event(raw, event)
        edge = Edge(
            source,
            target,
            guard=guard,
            comm=comm,
            effect=tuple(body + resets),
            event=event,
            fairness=raw.fairness,
            text=raw.text,
            span=raw.span,
            data_operation=raw.data_operation,
            atomic=raw.atomic,
        )
        if aliased:
            self.alias_edges.add(id(edge))
        return edge

    def _note_event(self, raw: Raw, event: Event | None = None) -> None:
        ev = event or raw.event
        if ev is None or raw.comm is not None or raw.data_operation:
            return
        comps = [fold(c) for c in ev.components]
        if all(isinstance(c, Const) for c in comps):
            self.syntactic_events.add(event_name(ev.base, [c.value for c in comps]))  # type: ignore[union-attr]
        else:
            self.dynamic_events.append((ev, raw.span))

    @staticmethod
    def _comm_placeholders(comm: Send | Receive | None) -> list[str]:
        if isinstance(comm, Receive):
            return [
                a.target.name for a in comm.args
                if isinstance(a, RecvBind) and isinstance(a.target, Var)
            ]
        return []

    @staticmethod
    def _comm_binds(comm: Send | Receive | None) -> list[str]:
        return LeafBuilder._comm_placeholders(comm)

    @staticmethod
    def _map_comm(comm: Send | Receive | None, pre: Callable, rename: Callable) -> (
        Send | Receive | None
    ):
        if comm is None:
            return None
        channel = fold(map_expr(comm.channel, pre))  # ``c[i]`` with a local index
        if isinstance(comm, Send):
            return dataclasses.replace(
                comm, channel=channel, args=tuple(fold(map_expr(a, pre)) for a in comm.args)
            )
        args = []
        for a in comm.args:
            if isinstance(a, RecvBind) and a.target is not None:
                args.append(RecvBind(map_expr(a.target, rename), a.span))
            elif isinstance(a, RecvMatch):
                args.append(RecvMatch(fold(map_expr(a.value, pre)), a.span))
            else:
                args.append(a)
        cond = comm.condition
        if cond is not None:
            cond = fold(map_expr(map_expr(cond, rename), pre))
        return dataclasses.replace(comm, channel=channel, args=tuple(args), condition=cond)



def _reads(st: Stmt, name: str) -> bool:
    """Return True if ``st`` mentions local ``name`` other than as a plain assigned
    target (conservative)."""
    if isinstance(st, Assign) and isinstance(st.target, Var):
        return name in locals_in(st.value)
    return name in stmt_locals(st)


def _writes(st: Stmt, name: str) -> bool:
    if isinstance(st, Assign):
        return isinstance(st.target, Var) and st.target.scope == "local" and (
            st.target.name == name)
    return name in stmt_locals(st)


def _coalesce_moves(stmts: list[Stmt]) -> list[Stmt]:
    """Return ``stmts`` with ``t := e; ...; n := t`` turned into ``n := e; ...`` when the
    statements in between neither read nor write ``n`` (the fresh local ``t`` then
    disappears from the edge)."""
    out = list(stmts)
    changed = True
    while changed:
        changed = False
        for j, mv in enumerate(out):
            if not (isinstance(mv, Assign) and isinstance(mv.target, Var)
                    and mv.target.scope == "local" and isinstance(mv.value, Var)
                    and mv.value.scope == "local"):
                continue
            new, old = mv.target.name, mv.value.name
            writers = [i for i, st in enumerate(out) if _writes(st, old)]
            if len(writers) != 1 or writers[0] >= j:
                continue
            i = writers[0]
            first = out[i]
            if not (isinstance(first, Assign) and isinstance(first.target, Var)):
                continue
            if any(_reads(st, new) or _writes(st, new) for st in out[i + 1:j]):
                continue
            if any(_reads(st, old) for st in out[j + 1:]):
                continue

            def swap(e: Expr, old: str = old, new: str = new) -> Expr | None:
                if isinstance(e, Var) and e.scope == "local" and e.name == old:
                    return Var(new, "local", e.span)
                return None

            out[i] = Assign(Var(new, "local", first.target.span), first.value, first.span)
            out[i + 1:j] = [map_stmt(st, swap) for st in out[i + 1:j]]
            del out[j]
            changed = True
            break
    return out




def build_leaf(low: Lowerer, leaf: Leaf) -> tuple[LeafBuilder, Process]:
    """Return the builder and process of ``leaf``; parameters that receive both
    constant and state-dependent values are kept in locals throughout (at most one
    rebuild per such parameter).

    A leaf that passes ``LAZY_AFTER`` locations (with a '|||' inside; others
    ``MAX_LOCATIONS``) is unfolded lazily: its builder is kept in
    ``low.lazy_builders`` and a later build of the same leaf (the system built again
    after ``LeafBuilder.resume``) takes it from there."""
    key = lazy_key(leaf)
    kept = low.lazy_builders.get(key)
    if kept is not None:
        kept.leaf = leaf
        return kept, kept.snapshot()
    # The whole system is built again after each round of a lazy unfolding; its
    # complete leaves come out the same (a '|||' lowered inline since changes them).
    full = (key, leaf.def_name, leaf.gate_set, leaf.hidden_bases, leaf.park,
            len(low.inline_interleave))
    done = low.built_leaves.get(full)
    if done is not None and done[0] == leaf.term:
        done[1].leaf = leaf
        return done[1], done[2]
    builder = LeafBuilder(low, leaf)
    builder._rebuild(frozenset(), lazy=False)
    if builder.work:
        low.lazy_builders[key] = builder
        return builder, builder.snapshot()
    process = builder.snapshot()
    if not builder.nested:  # nested compositions take fresh globals of their system
        low.built_leaves[full] = (leaf.term, builder, process)
    return builder, process


def lazy_key(leaf: Leaf) -> tuple:
    """Return what identifies ``leaf`` across builds of its system."""
    # The target's own reference is made anew by each build: its span names it.
    return (leaf.term.span, type(leaf.term).__name__, leaf.env, leaf.name, leaf.gate,
            leaf.hidden)
