"""Which state/event LTL formulas a partial order reduction may not distinguish.

The checker reads a run as the letters ``(L(s0), init), (L(s1), e0), (L(s2), e1), ...``
(``bridge/fairness/product.py``): the state atoms of the state a step reaches and the
event of the step. A step that partial order reduction may move (an *invisible* step:
it changes no state atom and its event is no event atom of the formula) reads
``(L, {})`` where ``L`` is the state part of the letter before it. Reordering invisible
steps with others, adding or dropping them (Peled's construction; Clarke, Grumberg and
Peled, *Model Checking*, ch. 10: the reduced run has the same visible steps in the same
order) therefore only inserts or deletes such *tau letters*: a letter ``(L, {})`` right
after a letter whose state part is ``L``.

Without event atoms that is ordinary stuttering, which LTL without X cannot see. With
event atoms it is not: ``G(w -> (w U p))`` holds on ``(p0, w) (p0, w) (p, -)`` but not on
``(p0, w) (p0, -) (p0, w) (p, -)``. ``tau_robustness(formula)`` decides a sufficient
syntactic condition (no false positives) that the formula's truth is unchanged by any
such insertion or deletion; ``G F e``, ``G (e1 -> F e2)``, ``F G !e``, and every formula
without event atoms and without X, pass.

The condition, by induction on the formula: for a subformula ``f``, a tau letter ``t``
inserted between letters ``a`` (before) and ``b`` (after), four flags say what is known:
``a=>t`` (f true at a implies f true at t), ``t=>a``, ``b=>t``, ``t=>b``; and every
subformula must keep its truth at every original position (*preservation*).

- state atom ``p``: ``t`` copies ``a``'s state part: ``a=>t`` and ``t=>a``;
- event atom ``e``: false at ``t``: ``t=>a`` and ``t=>b``; true/false: all four;
- ``!f`` swaps the directions; ``f && g``, ``f || g``: the flags both have;
- ``F f`` is preserved if ``t=>a`` or ``t=>b`` holds for ``f`` (a witness at ``t`` has a
  witness at ``a`` or later); it has ``b=>t`` and ``t=>a`` always (``a``'s future
  contains ``t``), ``t=>b`` and ``a=>t`` if ``f`` has them;
- ``G f`` is its dual (``!F!f``): preserved if ``a=>t`` or ``b=>t`` holds for ``f``;
- ``f U g``: preserved if ``g`` has ``t=>a`` or ``t=>b``, and ``f`` has ``a=>t`` or
  both have ``b=>t``; flags: ``b=>t`` if both have it, ``t=>b`` and ``a=>t`` if ``g``
  has it, ``t=>a`` if both have it; ``R``, ``W``, ``->`` and ``<->`` are rewritten into
  these; ``X`` is refused.

Each rule is the one-step unfolding ``F f = f || X F f`` (and so on) at ``a`` and at
``t``, whose futures coincide from ``b`` on. Several insertions (finitely or infinitely
many: a block of tau letters after a letter, possibly of another length) are handled by
the same argument block by block, as in the classical proof that LTL without X is
stutter invariant; consecutive tau letters are identical letters with the same future.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge.ir.property import Ltl, LtlBinary, LtlConst, LtlEvent, LtlState, LtlUnary


@dataclass(frozen=True)
class _Flags:
    a_t: bool  # true at the letter before implies true at the tau letter
    t_a: bool
    b_t: bool  # true at the letter after implies true at the tau letter
    t_b: bool

    def negated(self) -> _Flags:
        return _Flags(a_t=self.t_a, t_a=self.a_t, b_t=self.t_b, t_b=self.b_t)

    def meet(self, other: _Flags) -> _Flags:
        return _Flags(self.a_t and other.a_t, self.t_a and other.t_a,
                      self.b_t and other.b_t, self.t_b and other.t_b)


class _Sensitive(Exception):
    pass


_ALL = _Flags(True, True, True, True)


def _text(f: Ltl) -> str:
    if isinstance(f, LtlEvent):
        return f.name
    if isinstance(f, LtlState):
        return f.text
    if isinstance(f, LtlConst):
        return "true" if f.value else "false"
    if isinstance(f, LtlUnary):
        return f"{f.op}({_text(f.operand)})"
    return f"({_text(f.left)} {f.op} {_text(f.right)})"


def _until(f: _Flags, g: _Flags, whole: Ltl) -> _Flags:
    if not (g.t_a or g.t_b) or not (f.a_t or (f.b_t and g.b_t)):
        raise _Sensitive(_text(whole))
    return _Flags(a_t=g.a_t, t_a=f.t_a and g.t_a, b_t=f.b_t and g.b_t, t_b=g.t_b)


def _eventually(f: _Flags, whole: Ltl) -> _Flags:
    if not (f.t_a or f.t_b):
        raise _Sensitive(_text(whole))
    return _Flags(a_t=f.a_t, t_a=True, b_t=True, t_b=f.t_b)


def _always(f: _Flags, whole: Ltl) -> _Flags:
    return _eventually(f.negated(), whole).negated()


def _flags(f: Ltl) -> _Flags:
    if isinstance(f, LtlConst):
        return _ALL
    if isinstance(f, LtlState):
        return _Flags(a_t=True, t_a=True, b_t=False, t_b=False)
    if isinstance(f, LtlEvent):
        return _Flags(a_t=False, t_a=True, b_t=False, t_b=True)
    if isinstance(f, LtlUnary):
        inner = _flags(f.operand)
        if f.op == "!":
            return inner.negated()
        if f.op == "F":
            return _eventually(inner, f)
        if f.op == "G":
            return _always(inner, f)
        raise _Sensitive(_text(f))  # X
    assert isinstance(f, LtlBinary)
    left, right = _flags(f.left), _flags(f.right)
    if f.op in ("&&", "||"):
        return left.meet(right)
    if f.op == "->":
        return left.negated().meet(right)
    if f.op == "<->":
        return left.meet(right).meet(left.negated()).meet(right.negated())
    if f.op == "U":
        return _until(left, right, f)
    if f.op == "R":  # f R g = !(!f U !g)
        return _until(left.negated(), right.negated(), f).negated()
    if f.op == "W":  # f W g = (f U g) || G f
        return _until(left, right, f).meet(_always(left, f))
    raise _Sensitive(_text(f))


def tau_robustness(formula: Ltl | None) -> str | None:
    """Return None if inserting or deleting tau letters cannot change the truth of
    ``formula`` (module docstring), else the text of the first subformula for which
    that is not shown."""
    if formula is None:
        return None
    try:
        _flags(formula)
    except _Sensitive as where:
        return str(where)
    return None
