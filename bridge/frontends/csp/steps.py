"""The first steps of a configuration: PAT's operational rules (cspsharp.md section 7).

``StepRules`` is the part of ``leaf.LeafBuilder`` that normalises configurations
(process references unfolded, ``Skip ; Q`` is ``Q``) and computes their raw steps,
rule by rule: prefixes, guards, choices, conditionals, ``case``, ``atomic``,
sequential composition, hiding, interrupt, and compositions nested in the leaf.
"""

from __future__ import annotations

import itertools

from bridge.diagnostics import SemanticError, Span, UnsupportedError
from bridge.frontends.csp import syntax as s
from bridge.frontends.csp.configurations import (
    GROWING_PARAMETER,
    MAX_CHAIN,
    MAX_INTERLEAVE_DEPTH,
    MAX_UNFOLD,
    SKIP,
    STOP,
    TERM,
    TERMINATE,
    Cfg,
    Env,
    GrowingParameter,
    Nested,
    Raw,
    UnfoldingError,
    cfg_atomic,
    env_get,
    env_set,
    interleave_depth,
    is_terminate,
    nested_unsupported,
    replace_head,
    spine_head,
)
from bridge.frontends.csp.expressions import (
    Ctx,
)
from bridge.frontends.csp.fold import (
    and_,
    const_type,
    event_name,
    fold,
    not_,
    reads_globals,
    without_spans,
)
from bridge.frontends.csp.terms import (
    term_names,
)
from bridge.ir import (
    UNBOUNDED,
    Binary,
    BoolType,
    Const,
    Event,
    Expr,
    FairnessMark,
    Index,
    Receive,
    RecvBind,
    RecvMatch,
    Send,
    Type,
    Var,
)


class StepRules:
    """The operational rules of ``LeafBuilder``.

    A mixin: the exploration state it reads and extends (``low``, ``leaf``,
    ``nested``, ``local_types``, ``handovers``...) is set up by ``LeafBuilder.__init__``
    in ``leaf.py``.
    """

    # -- normalisation ------------------------------------------------------------------
    def normalise(
        self, cfg: Cfg, mode: str, caps: dict[str, Expr], post: list[tuple[str, Expr]],
        depth: int = 0,
    ) -> Cfg:
        """Return ``cfg`` with references unfolded and ``Skip ; Q`` simplified.

        ``mode`` "step": bindings to non-trivial values become captures (evaluated in the
        pre-state of the step being computed); "post": bindings reading globals stay
        symbolic, other non-trivial ones are assigned at the end of the edge (``post``).
        """
        if depth > MAX_UNFOLD:
            span = cfg[1].span if cfg[0] == "T" else None
            raise UnfoldingError.at(
                span,
                "process definition unfolds without end (unguarded recursion, or a "
                "parameter that grows without bound)",
            )
        kind = cfg[0]
        if kind == "SEQ":
            left = self.normalise(cfg[1], mode, caps, post, depth + 1)
            if left == SKIP:
                return self.normalise(cfg[2], mode, caps, post, depth + 1)
            right = cfg[2] if cfg[2][0] != "T" else self.restrict(cfg[2])
            return ("SEQ", left, right)
        if kind == "ATOM":
            inner = self.normalise(cfg[1], mode, caps, post, depth + 1)
            # atomic { atomic { P } } is atomic { P } (one mark: the process is atomic);
            # recursion inside atomic (P = a -> atomic { P }) nested it without end.
            return inner if inner in (SKIP, TERM) or inner[0] == "ATOM" else ("ATOM", inner)
        if kind == "XCH":
            return ("XCH", tuple(self.normalise(c, mode, caps, post, depth + 1) for c in cfg[1]))
        if kind == "ILV":
            parts = tuple(self.normalise(c, mode, caps, post, depth + 1) for c in cfg[1])
            # A composition of Skips is Skip (PAT's Sequence continues at once).
            if all(c == SKIP for c in parts):
                return SKIP
            if max(interleave_depth(c) for c in parts) >= MAX_INTERLEAVE_DEPTH:
                raise SemanticError.at(
                    self.leaf.span,
                    f"'|||' nested more than {MAX_INTERLEAVE_DEPTH} deep in process "
                    f"'{self.leaf.name}' (a process that starts copies of itself without "
                    "bound?)",
                )
            return ("ILV", parts)
        if kind == "HIDE":
            inner = self.normalise(cfg[1], mode, caps, post, depth + 1)
            if inner in (SKIP, STOP, TERM):
                return inner
            if inner[0] == "HIDE":  # (P \ A) \ B = P \ (A + B): keeps recursion finite
                return ("HIDE", inner[1], inner[2] | cfg[2], inner[3] | cfg[3])
            return ("HIDE", inner, cfg[2], cfg[3])
        if kind == "INTR":
            left = self.normalise(cfg[1], mode, caps, post, depth + 1)
            if left == TERM:
                return TERM
            return ("INTR", left, self.normalise(cfg[2], mode, caps, post, depth + 1))
        if kind != "T":
            return cfg
        term, env = cfg[1], cfg[2]
        if isinstance(term, s.Skip):
            return SKIP
        if isinstance(term, s.Stop):
            return STOP
        if isinstance(term, s.ProcRef):
            body, new_env = self.unfold(term, env, mode, caps, post)
            return self.normalise(("T", body, new_env), mode, caps, post, depth + 1)
        if isinstance(term, s.Binary) and term.op == ";":
            left = ("T", term.operands[0], env)
            rest = self.low.seq_rest(term, 1)
            return self.normalise(("SEQ", left, ("T", rest, env)), mode, caps, post, depth + 1)
        if isinstance(term, s.Atomic):
            return self.normalise(("ATOM", ("T", term.body, env)), mode, caps, post, depth + 1)
        if isinstance(term, s.Binary) and term.op == "[*]":
            return self.normalise(
                ("XCH", tuple(("T", op, env) for op in term.operands)), mode, caps, post, depth + 1
            )
        if isinstance(term, s.Indexed) and term.op == "[*]":
            envs = self.low.index_envs(term.index, env)
            return self.normalise(
                ("XCH", tuple(("T", term.body, e) for e in envs)), mode, caps, post, depth + 1
            )
        if (isinstance(term, (s.Binary, s.Indexed)) and term.op == "|||"
                and id(term) in self.low.inline_interleave):
            # An interleaving the process reaches while it runs: its operands stay in
            # this process's term (PAT's IndexInterleave inside the process).
            if isinstance(term, s.Binary):
                parts = tuple(("T", op, env) for op in term.operands)
            else:
                parts = tuple(("T", term.body, e) for e in self.low.index_envs(term.index, env))
            return self.normalise(("ILV", parts), mode, caps, post, depth + 1)
        if isinstance(term, (s.Binary, s.Indexed)) and term.op in ("|||", "||"):
            # A nested composition: unfolded into static instances if it is reached at
            # most once (checked by the system builder); its operands cannot read this
            # process's run-time values.
            kept = self.restrict(cfg)[2]
            for name, value in kept:
                if not isinstance(value, Const):
                    raise nested_unsupported(
                        term, f"a process whose operands depend on a run-time value ('{name}')"
                    )
            return ("PAR", term, kept)
        if isinstance(term, s.Binary) and term.op == "interrupt":
            c: Cfg = ("T", term.operands[0], env)
            for op in term.operands[1:]:
                c = ("INTR", c, ("T", op, env))
            return self.normalise(c, mode, caps, post, depth + 1)
        if isinstance(term, s.Hiding):
            names = frozenset(self.low.alphabet_items(term.events, env))
            bases = frozenset(item.event.name for item in term.events)
            for item in term.events:
                if item.event.name in self.low.channels:
                    raise UnsupportedError.at(
                        item.span, "unsupported construct: hiding channel events"
                    )
            return self.normalise(("HIDE", ("T", term.body, env), names, bases), mode, caps,
                                  post, depth + 1)
        return self.restrict(cfg)

    def restrict(self, cfg: Cfg) -> Cfg:
        """Return ``("T", term, env)`` with the bindings the term cannot read dropped
        (PAT substitutes values into the term, so unused ones are not in its state)."""
        term, env = cfg[1], cfg[2]
        names = term_names(term, self.low.term_names, self.low.macro_bodies)
        kept = tuple((k, v) for k, v in env if k in names)
        return cfg if len(kept) == len(env) else ("T", term, kept)

    def unfold(
        self, ref: s.ProcRef, env: Env, mode: str, caps: dict[str, Expr],
        post: list[tuple[str, Expr]],
    ) -> tuple[s.Term, Env]:
        d = self.low.definition(ref)
        bindings: dict[str, Expr] = {}
        for p, arg in zip(d.params, ref.args, strict=True):
            value, t = self.low.typed(arg, Ctx(env=env))
            key = (d.name, p.name)
            self.binding_kinds.setdefault(key, set()).add(
                "const" if isinstance(value, Const) else "dynamic"
            )
            if isinstance(value, Const) and key not in self.dynamic:
                seen = self.const_args.setdefault(key, set())
                seen.add(value.value)
                if len(seen) > GROWING_PARAMETER:
                    raise GrowingParameter(key)
                bindings[p.name] = Const(value.value)
                continue
            if isinstance(value, Var) and value.scope == "local":
                bindings[p.name] = value
                continue
            if isinstance(value, Const):
                value = Const(value.value)
                t = "bool" if isinstance(value.value, bool) else "int"
            if t and t.startswith("array"):
                raise UnsupportedError.at(arg.span, "unsupported construct: array argument")
            ltype: Type = BoolType() if t == "bool" else UNBOUNDED
            if mode == "step":
                name = self.fresh(p.name)
                caps[name] = value
                self.local_types[name] = ltype
                bindings[p.name] = Var(name, "local")
            elif reads_globals(value):
                # Symbolic until the next step; without spans, so that the same
                # argument written in two places gives the same location.
                bindings[p.name] = without_spans(value)
            else:
                name = self.fresh(p.name)
                post.append((name, value))
                self.local_types[name] = ltype
                bindings[p.name] = Var(name, "local")
        return d.body, tuple(sorted(bindings.items()))

    # -- steps ----------------------------------------------------------------------------
    def steps(self, cfg: Cfg, caps: dict[str, Expr]) -> list[Raw]:
        """Return the first steps of ``cfg`` (cspsharp.md section 7).

        A choice may lead back to the same term through guarded references only
        (``V(j) = [full(j)] V((j+1)%N) [] ...``): PAT evaluates the guards in the
        current state, so the unfolding stops where a guard is false. Symbolically, the
        second visit of a term under a guard offers the steps of the first visit again,
        each under a stronger guard: nothing new, so it contributes no steps. A cycle
        with no guard on it (``P = P [] a -> P``) has no first step; it is refused.
        """
        cfg = self.normalise(cfg, "step", caps, [])
        if cfg[0] != "T":
            return self._steps(cfg, caps)
        guards = self._active_steps.get(cfg)
        if guards is not None:
            if guards < self._guards_passed:
                return []
            raise UnfoldingError.at(
                cfg[1].span, "process definition unfolds without end (a choice leads back "
                "to this process with no event or guard in between)",
            )
        self._active_steps[cfg] = self._guards_passed
        try:
            return self._steps(cfg, caps)
        finally:
            del self._active_steps[cfg]

    def _steps(self, cfg: Cfg, caps: dict[str, Expr]) -> list[Raw]:
        kind = cfg[0]
        if kind == "SKIP":
            self.can_terminate = True
            return [Raw(None, None, [], Event(TERMINATE), TERM, None, "terminate")]
        if kind in ("STOP", "TERM"):
            return []
        if kind == "PAR":
            # The process ended in a composition: its own terminate joins the
            # operands' joint terminate (a barrier; cspsharp.md section 7).
            rec = self._nested_at(cfg, "tail")
            self.can_terminate = True
            return [Raw(None, None, [], Event(TERMINATE), TERM, rec.span,
                         "terminate (parallel composition)")]
        if kind == "SEQ" and spine_head(cfg)[0][0] == "PAR":
            # (A || B); C: once every operand is at its Skip (the count-down global
            # is 0) this location is C: PAT's Sequence takes C's steps at once when
            # its first part is a composition of Skips (no tau step).
            rec = self._nested_at(spine_head(cfg)[0], "seq")
            assert rec.join is not None
            done = Binary("==", Var(rec.join, "global"), Const(0))
            q = self.normalise(replace_head(cfg, SKIP), "step", caps, [])
            if self.leaf.gate_set is not None and q == SKIP:
                # A sequential prefix that ends here: the rest starts at the join.
                handover = rec.done()
                if handover not in self.handovers:
                    self.handovers.append(handover)
                return []
            head, depth = spine_head(q)
            if head[0] == "PAR":
                # C starts with another composition: its operands start when this
                # one ends.
                if cfg in self._active_chain or len(self._active_chain) > MAX_CHAIN:
                    # ``P = (A ||| B); P``: the chain comes back to itself (its steps
                    # were computed without end before).
                    raise nested_unsupported(head[1], "recursion with no step between "
                                             "two of its runs")
                key = ("CHAIN", rec.key, head)
                self._record(key, head, "tail" if depth == 0 else "seq", "chain", rec.done())
                self._allowed[head] = key
            self._active_chain.add(cfg)
            try:
                raws = self.steps(q, caps)
            finally:
                self._active_chain.discard(cfg)
            for r in raws:
                r.guard = and_(done, r.guard)
            return raws
        if kind == "SEQ":
            raws = self.steps(cfg[1], caps)
            for r in raws:
                if is_terminate(r):
                    # P's termination (under interrupt/hiding) hands over to Q as tau.
                    r.event = None
                    r.text = "terminate (sequential composition: tau)"
                    r.target = cfg[2]
                else:
                    r.target = ("SEQ", r.target, cfg[2])
            return raws
        if kind == "ATOM":
            raws = self.steps(cfg[1], caps)
            for r in raws:
                r.target = ("ATOM", r.target)
            return raws
        if kind == "HIDE":
            raws = self.steps(cfg[1], caps)
            for r in raws:
                if r.event is not None and not is_terminate(r):
                    comps = [fold(c) for c in r.event.components]
                    if all(isinstance(c, Const) for c in comps):
                        name = event_name(r.event.base, [c.value for c in comps])  # type: ignore[union-attr]
                        if name in cfg[2]:
                            r.event = None
                            r.data_operation = False
                    elif r.event.base in cfg[3]:
                        raise UnsupportedError.at(
                            r.span,
                            f"unsupported construct: hiding event '{r.event.base}' whose "
                            "components depend on the state",
                        )
                r.target = ("HIDE", r.target, cfg[2], cfg[3])
            return raws
        if kind == "INTR":
            out_i: list[Raw] = []
            for r in self.steps(cfg[1], caps):
                if not is_terminate(r):
                    r.target = ("INTR", r.target, cfg[2])
                out_i.append(r)
            for r in self.steps(cfg[2], caps):
                if r.event is None and r.comm is None:
                    r.target = ("INTR", cfg[1], r.target)
                out_i.append(r)
            return out_i
        if kind == "ILV":
            return self._interleave_steps(cfg, caps)
        if kind == "XCH":
            out: list[Raw] = []
            parts = cfg[1]
            for i, part in enumerate(parts):
                for r in self.steps(part, caps):
                    if r.event is None and r.comm is None:
                        r.target = ("XCH", parts[:i] + (r.target,) + parts[i + 1:])
                    out.append(r)
            return out
        term, env = cfg[1], cfg[2]
        return self.term_steps(term, env, caps)

    def _interleave_steps(self, cfg: Cfg, caps: dict[str, Expr]) -> list[Raw]:
        """Return the first steps of ``("ILV", parts)`` (cspsharp.md section 7, ``P |||
        Q``): each operand steps alone and the others stay; the composition terminates
        in one step when every operand offers its terminate (guards conjoined).

        The steps of an operand inside ``atomic`` are marked atomic (``ir.Edge.atomic``:
        PAT gives them priority over every other step of the system, the other
        operands' included). Refused by name: a synchronous channel with a send in one
        operand and a receive in another (their handshake pairs two operands of this
        process)."""
        parts = cfg[1]
        out: list[Raw] = []
        ends: list[list[Raw]] = []
        sends: dict[str, int] = {}
        receives: dict[str, int] = {}
        for i, part in enumerate(parts):
            atomic = cfg_atomic(part)
            mine: list[Raw] = []
            for r in self.steps(part, caps):
                r.atomic = r.atomic or atomic
                if is_terminate(r):
                    mine.append(r)
                    continue
                if r.comm is not None:
                    key = self._rendezvous_key(r.comm.channel)
                    if key is not None:
                        (sends if isinstance(r.comm, Send) else receives).setdefault(key, i)
                        other = receives if isinstance(r.comm, Send) else sends
                        for k, j in other.items():
                            if j != i and (k == key or "*" in (k, key)):
                                raise UnsupportedError.at(
                                    r.span, "unsupported construct: a synchronous channel "
                                    "between two operands of '|||' reached while the "
                                    "process runs")
                r.target = ("ILV", parts[:i] + (r.target,) + parts[i + 1:])
                out.append(r)
            ends.append(mine)
        if all(ends):
            for combo in itertools.product(*ends):
                guard: Expr | None = None
                for r in combo:
                    guard = and_(guard, r.guard)
                out.append(Raw(guard, None, [], Event(TERMINATE), TERM, combo[0].span,
                               "terminate (interleaving)",
                               atomic=any(r.atomic for r in combo)))
        return out

    def _rendezvous_key(self, channel: Expr) -> str | None:
        """Return the name of the synchronous channel ``channel`` ("*" for an element
        of a channel array chosen at run time), or None for a buffered one."""
        if isinstance(channel, Index):
            name = channel.base.name if isinstance(channel.base, Var) else ""
            elements = self.low.channel_arrays.get(name)
            chan = self.low.channels.get(elements[0]) if elements else None
            return None if chan is not None and chan.capacity > 0 else "*"
        name = channel.name if isinstance(channel, Var) else ""
        chan = self.low.channels.get(name)
        return None if chan is not None and chan.capacity > 0 else name or "*"

    def _nested_at(self, par: Cfg, kind: str) -> Nested:
        """Return the record of the nested composition ``par`` offering its steps at
        the current location; refuse one in any other position (under a choice, guard,
        atomic, hiding or interrupt)."""
        term = par[1]
        key = self._allowed.get(par)
        if key is None:
            raise nested_unsupported(
                term, "a choice, guard, atomic, hiding or interrupt"
            )
        rec = self.nested.get(key)
        assert rec is not None, "the location's composition is recorded when reached"
        if rec.kind != kind:
            raise nested_unsupported(term, "two different continuations")
        return rec

    def _record(
        self, key: Cfg, par: Cfg, kind: str, how: str, start: Expr | None = None
    ) -> Nested:
        """Return the record of the nested composition ``par`` first in the location
        ``key`` (a new one the first time). ``how``: "initial" (first in the leaf: its
        operands start with the leaf), "edge" (a step enters it and sets a fresh
        flag), "chain" (it starts when ``start`` holds: a previous composition
        ended)."""
        term = par[1]
        rec = self.nested.get(key)
        if rec is not None:
            if how != "edge" or rec.fixed or rec.kind != kind:
                raise nested_unsupported(
                    term, "recursion, a loop or a choice (it may be reached twice, or in "
                    "two ways)"
                )
            return rec
        fresh = self.leaf.fresh_global
        if fresh is None:  # pragma: no cover - every system leaf has an allocator
            raise nested_unsupported(term, "this context")
        flag = None
        if how == "initial":
            start = self.leaf.gate
        elif how == "edge":
            flag = fresh("_started")
            start = Var(flag, "global")
        join = fresh("_joined") if kind == "seq" else None
        rec = Nested(par, kind, start, flag, how != "edge", join, term.span, key)
        self.nested[key] = rec
        return rec

    def term_steps(self, term: s.Term, env: Env, caps: dict[str, Expr]) -> list[Raw]:
        low = self.low
        ctx = Ctx(env=env)
        if isinstance(term, s.EventPrefix):
            return [self.event_step(term, env, ctx)]
        if isinstance(term, s.SendPrefix):
            chan, _ = low.channel_ref(term.channel, term.index,
                                      term.channel_span or term.span, ctx)
            args = tuple(low.expr(f, ctx) for f in term.fields)
            widest = low.channel_tags.get(term.channel)
            if widest is not None:  # (arity, values, padding): ir.Channel.arity_tag
                args = (Const(len(args)), *args) + (Const(0),) * (widest - len(args))
            comm = Send(chan, args, span=term.channel_span)
            effect = low.block(term.block, ctx) if term.block else []
            last = term.block.span if term.block else term.fields[-1].span
            return [Raw(None, comm, effect, None, ("T", term.body, env), term.span,
                         self.text(term.span, last))]
        if isinstance(term, s.RecvPrefix):
            chan, _ = low.channel_ref(term.channel, term.index,
                                      term.channel_span or term.span, ctx)
            args: list = []
            binds: dict[str, Expr] = {}
            for f in term.fields:
                if (
                    isinstance(f, s.SName)
                    and f.name not in low.constants
                    and env_get(env, f.name) is None
                    and f.name not in binds
                ):
                    name = self.fresh(f.name)
                    self.local_types[name] = UNBOUNDED
                    binds[f.name] = Var(name, "local")
                    args.append(RecvBind(Var(name, "local", f.span), f.span))
                else:
                    args.append(RecvMatch(low.expr(f, ctx), f.span))
            new_env = env_set(env, binds)
            bctx = Ctx(env=new_env)
            cond = low.bool_expr(term.guard, bctx, "a receive guard") if term.guard else None
            widest = low.channel_tags.get(term.channel)
            if widest is not None:  # takes only a head message of its own arity
                args = [RecvMatch(Const(len(args))), *args] + [RecvBind(None)] * (
                    widest - len(args))
            comm = Receive(chan, tuple(args), span=term.channel_span, condition=cond)
            effect = low.block(term.block, bctx) if term.block else []
            last = term.block.span if term.block else term.fields[-1].span
            return [Raw(None, comm, effect, None, ("T", term.body, new_env), term.span,
                         self.text(term.span, last))]
        if isinstance(term, s.Guard):
            cond = low.bool_expr(term.cond, ctx, "a guard")
            self._guards_passed += 1
            try:
                raws = self.steps(("T", term.body, env), caps)
            finally:
                self._guards_passed -= 1
            out = []
            for r in raws:
                r.guard = and_(cond, r.guard)
                out.append(r)
            return out
        if isinstance(term, s.Binary) and term.op == "[]":
            out = []
            for op in term.operands:
                out.extend(self.steps(("T", op, env), caps))
            return out
        if isinstance(term, s.Binary) and term.op == "<>":
            return [Raw(None, None, [], None, ("T", op, env), op.span, "<> (internal choice)")
                    for op in term.operands]
        if isinstance(term, s.Indexed) and term.op in ("[]", "<>"):
            envs = low.index_envs(term.index, env)
            out = []
            for e in envs:
                if term.op == "[]":
                    out.extend(self.steps(("T", term.body, e), caps))
                else:
                    out.append(Raw(None, None, [], None, ("T", term.body, e), term.body.span,
                                    "<> (internal choice)"))
            return out
        if isinstance(term, s.IfProc):
            cond = low.bool_expr(term.cond, ctx, "an if condition")
            else_cfg = ("T", term.otherwise, env) if term.otherwise is not None else SKIP
            if term.kind == "ifb":
                return [Raw(cond, None, [], None, ("T", term.then, env), term.span,
                             f"ifb ({self.text(term.cond.span)})")]
            if term.kind == "if":
                text = f"if ({self.text(term.cond.span)})"
                return [
                    Raw(cond, None, [], None, ("T", term.then, env), term.span, text),
                    Raw(not_(cond), None, [], None, else_cfg, term.span, text + " else"),
                ]
            out = []
            self._guards_passed += 1  # ifa: the condition guards each first step
            try:
                for r in self.steps(("T", term.then, env), caps):
                    r.guard = and_(cond, r.guard)
                    out.append(r)
                for r in self.steps(else_cfg, caps):
                    r.guard = and_(not_(cond), r.guard)
                    out.append(r)
            finally:
                self._guards_passed -= 1
            return out
        if isinstance(term, s.Case):
            out = []
            previous: Expr | None = None
            for cond_src, body in term.branches:
                cond = low.bool_expr(cond_src, ctx, "a case condition")
                guard = and_(not_(previous) if previous is not None else None, cond)
                out.append(Raw(guard, None, [], None, ("T", body, env), cond_src.span,
                                f"case {self.text(cond_src.span)}"))
                previous = cond if previous is None else fold(Binary("||", previous, cond))
            default_cfg = ("T", term.default, env) if term.default is not None else SKIP
            guard = not_(previous) if previous is not None else None
            out.append(Raw(guard, None, [], None, default_cfg, term.span, "case default"))
            return out
        raise SemanticError.at(term.span, "unsupported process term")  # pragma: no cover

    def event_step(self, term: s.EventPrefix, env: Env, ctx: Ctx) -> Raw:
        low = self.low
        ev = term.event
        effect = low.block(term.block, ctx) if term.block is not None else []
        event: Event | None = None
        if not ev.is_tau:
            comps = tuple(low.expr(c, ctx) for c in ev.components)
            for c, src in zip(comps, ev.components, strict=True):
                if const_type(c) == "bool":
                    raise SemanticError.at(src.span, "event components must be integers")
            event = Event(ev.name, comps, ev.span)
            low.event_bases.add(ev.name)
        fairness = FairnessMark(term.fairness) if term.fairness else None
        end = term.block.span if term.block is not None else ev.span
        return Raw(None, None, effect, event, ("T", term.body, env), ev.span,
                    self.text(ev.span, end), fairness,
                    data_operation=term.block is not None and event is not None)

    def text(self, start: Span | None, end: Span | None = None) -> str:
        if start is None:
            return ""
        lines = self.low.source_lines(start.file)
        if lines is None:
            return ""
        stop = end or start
        a_line, a_col = start.line, start.col
        b_line, b_col = (stop.end_line or stop.line), (stop.end_col or stop.col + 1)
        if a_line == b_line:
            piece = lines[a_line - 1][a_col - 1:b_col - 1] if a_line <= len(lines) else ""
        else:
            chunk = [lines[a_line - 1][a_col - 1:]] + lines[a_line:b_line - 1]
            chunk.append(lines[b_line - 1][:b_col - 1] if b_line <= len(lines) else "")
            piece = " ".join(chunk)
        piece = " ".join(piece.split())
        return piece if len(piece) <= 80 else piece[:77] + "..."
