"""SPIN never claims: read one into the ``Buchi`` view, write one from a Spot formula.

``parse_never_claim`` reads the claims ``spin -f`` and Spot's ``to_str('spin')`` print
(promela-spin.md section 10: ``LABEL:`` blocks of ``do``/``if`` options
``:: (guard) -> goto LABEL``, the ``atomic { (g) -> assert(!(g)) }`` shortcut,
``accept_all: skip``), into the same frozen ``Buchi`` the fairness engine uses
(``buchi.py``): a state per label, the ``accept*`` states' acceptance put on their
outgoing edges (Spot's convention for state-based automata, one acceptance set).
Guards become decision diagrams over the claim's atoms by Shannon expansion, so a claim
with k atoms costs 2^k guard evaluations per edge (fine for the few atoms of LTL
formulas; more than 16 atoms is refused).

``never_claim_for`` builds the claim that checks formula phi (Spot syntax) in SPIN: the
state-based Büchi automaton of ``!phi``, through ``translate(..., 'generic')``,
``remove_fin``, ``cleanup_acceptance`` and ``degeneralize`` (fast even for the premise
formulas of paper 000 Table 1, where SPIN's own translator does not finish; see
promela-spin.md section 13).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bridge.automata.buchi import Buchi, BuchiEdge, Condition, format_condition
from bridge.diagnostics import ConfigurationError

_MAX_ATOMS = 16
_LABEL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$")
_GOTO = re.compile(r"^::\s*(.*?)\s*->\s*goto\s+([A-Za-z_][A-Za-z0-9_]*)\s*;?\s*$")
_ASSERT = re.compile(r"^::\s*atomic\s*\{\s*(.*?)\s*->\s*assert\s*\(.*\)\s*\}\s*;?\s*$")


class NeverClaimError(ConfigurationError):
    """The text is not a never claim this parser understands (the message says where)."""


@dataclass(frozen=True, slots=True)
class NeverClaim:
    """A parsed claim: the automaton and the claim's state labels (by state number)."""

    automaton: Buchi
    labels: tuple[str, ...]

    @property
    def accepting(self) -> tuple[bool, ...]:
        """Return, per state, whether it is an accept state."""
        return tuple(lab.startswith("accept") for lab in self.labels)


# ---------------------------------------------------------------------------------
# Guards


def _guard_atoms(text: str) -> list[str]:
    return [t for t in _tokens(text) if t not in _OPERATORS and t not in _CONSTANTS]


_OPERATORS = ("(", ")", "&&", "||", "!")
_CONSTANTS = ("true", "false", "0", "1")
_SPLIT = re.compile(r"(\(|\)|&&|\|\||!(?!=))")


def _tokens(text: str) -> list[str]:
    """Return the guard's tokens; an atom is a maximal run without parentheses or
    Boolean connectives (``p``, ``last==2``: spin expands #defines into claims)."""
    out = [t.strip() for t in _SPLIT.split(text) if t.strip()]
    previous = "("
    for t in out:
        atom = t not in _OPERATORS
        if atom and previous not in ("(", "&&", "||", "!"):
            raise NeverClaimError(f"cannot read guard {text!r}: unexpected {t!r}")
        if t == "(" and previous not in ("(", "&&", "||", "!"):
            raise NeverClaimError(f"cannot read guard {text!r}: unexpected '('")
        previous = t if not atom else "atom"
    return out


def _evaluate(tokens: list[str], values: dict[str, bool]) -> bool:
    """Evaluate a guard (``! && || ( ) true false 0 1 names``; ``&&`` binds tighter)."""
    pos = 0

    def primary() -> bool:
        nonlocal pos
        t = tokens[pos]
        pos += 1
        if t == "!":
            return not primary()
        if t == "(":
            v = disjunction()
            if pos >= len(tokens) or tokens[pos] != ")":
                raise NeverClaimError("unbalanced parentheses in a guard")
            pos += 1
            return v
        if t in ("true",):
            return True
        if t in ("false",):
            return False
        if t in ("0", "1"):
            return t == "1"
        return values[t]

    def conjunction() -> bool:
        nonlocal pos
        v = primary()
        while pos < len(tokens) and tokens[pos] == "&&":
            pos += 1
            w = primary()
            v = v and w
        return v

    def disjunction() -> bool:
        nonlocal pos
        v = conjunction()
        while pos < len(tokens) and tokens[pos] == "||":
            pos += 1
            w = conjunction()
            v = v or w
        return v

    result = disjunction()
    if pos != len(tokens):
        raise NeverClaimError(f"unexpected {tokens[pos]!r} in a guard")
    return result


def _condition(tokens: list[str], aps: Sequence[str]) -> Condition:
    """Return the decision diagram of a guard by Shannon expansion over ``aps``."""
    used = sorted({t for t in tokens if t in aps}, key=list(aps).index)

    def build(k: int, values: dict[str, bool]) -> Condition:
        if k == len(used):
            return _evaluate(tokens, {**dict.fromkeys(aps, False), **values})
        name = used[k]
        high = build(k + 1, {**values, name: True})
        low = build(k + 1, {**values, name: False})
        if high == low:
            return high
        return (list(aps).index(name), high, low)

    return build(0, {})


# ---------------------------------------------------------------------------------
# Parsing


def _strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def parse_never_claim(text: str, ap_names: Sequence[str] | None = None) -> NeverClaim:
    """Return the ``Buchi`` view of a never claim (state 0: ``T0_init`` or the first).

    ``ap_names``: the APs in bit order (default: the claim's atoms, sorted). Raises
    ``NeverClaimError`` for text outside the grammar of ``spin -f`` and Spot claims.
    """
    body = _strip_comments(text)
    m = re.search(r"never\s*(?:[A-Za-z_][A-Za-z0-9_]*)?\s*\{", body)
    if not m:
        raise NeverClaimError("no 'never {' found")
    body = body[m.end():]
    body = body[: body.rfind("}")]
    # One option or keyword per line: split before '::', 'if', 'fi', 'do', 'od'.
    flat = re.sub(r"\s+", " ", body)
    flat = re.sub(r"(::|\bif\b|\bfi\b|\bdo\b|\bod\b)", r"\n\1", flat)
    flat = re.sub(r"(\b[A-Za-z_][A-Za-z0-9_]*\s*:(?!:))", r"\n\1", flat)
    lines = [ln.strip() for ln in flat.split("\n") if ln.strip()]
    states: list[str] = []
    options: dict[str, list[tuple[str, str]]] = {}
    aliases: dict[str, str] = {}
    pending: list[str] = []
    current: str | None = None
    for line in lines:
        label = _LABEL.match(line)
        if label and not line.startswith("::"):
            pending.append(label.group(1))
            rest = label.group(2).strip().rstrip(";").strip()
            if rest == "skip":
                current = _declare(pending, states, options, aliases)
                pending = []
                if ("true", current) not in options[current]:
                    options[current].append(("true", current))
            elif rest in ("false",):
                current = _declare(pending, states, options, aliases)
                pending = []
            continue
        if line.rstrip(";") in ("if", "do"):
            if pending:
                current = _declare(pending, states, options, aliases)
                pending = []
            continue
        if line.rstrip(";") in ("fi", "od", ""):
            continue
        if current is None:
            raise NeverClaimError(f"option outside a state: {line!r}")
        g = _GOTO.match(line)
        if g:
            options[current].append((g.group(1), g.group(2)))
            continue
        a = _ASSERT.match(line)
        if a:
            options[current].append((a.group(1), "accept_all"))
            if "accept_all" not in options:
                states.append("accept_all")
                options["accept_all"] = [("true", "accept_all")]
            continue
        bare = line[2:].strip().rstrip(";").strip()
        if bare in ("false", "(false)", "(0)", "0"):
            continue  # an option that can never be taken
        if bare in ("skip", "true", "(1)", "1", "(true)"):
            options[current].append(("true", current))
            continue
        raise NeverClaimError(f"cannot read claim line {line!r}")
    if pending:  # labels at the very end (a final, blocking state)
        _declare(pending, states, options, aliases)
    if not states:
        raise NeverClaimError("the claim has no states")
    atoms = sorted({a for opts in options.values() for g, _ in opts for a in _guard_atoms(g)})
    aps = list(ap_names) if ap_names is not None else atoms
    missing = [a for a in atoms if a not in aps]
    if missing:
        raise NeverClaimError(f"claim atoms {missing} are not among the APs {list(aps)}")
    if len(aps) > _MAX_ATOMS:
        raise NeverClaimError(f"{len(aps)} atoms: at most {_MAX_ATOMS} are supported")
    initial = "T0_init" if "T0_init" in options else states[0]
    initial = aliases.get(initial, initial)
    order = [initial] + [s for s in states if s != initial]
    index = {s: k for k, s in enumerate(order)}
    for alias, target in aliases.items():
        index[alias] = index[target]
    edges: list[tuple[BuchiEdge, ...]] = []
    for k, s in enumerate(order):
        accepting = s.startswith("accept") or any(
            a.startswith("accept") for a, t in aliases.items() if t == s
        )
        out = []
        for guard, target in options[s]:
            if target not in index:
                raise NeverClaimError(f"goto to unknown label {target!r}")
            cond = _condition(_tokens(guard), aps)
            if cond is False:
                continue
            out.append(BuchiEdge(k, index[target], cond, 1 if accepting else 0))
        edges.append(tuple(out))
    automaton = Buchi(len(order), 0, tuple(edges), 1, tuple(aps), "Inf(0)")
    return NeverClaim(automaton, tuple(order))


def _declare(
    labels: list[str], states: list[str], options: dict[str, list], aliases: dict[str, str]
) -> str:
    """Make the last of several consecutive labels the state; the others alias it."""
    name = next((lab for lab in labels if lab.startswith("accept")), labels[-1])
    if "T0_init" in labels and not name.startswith("accept"):
        name = "T0_init"
    for lab in labels:
        if lab != name:
            aliases[lab] = name
    if name not in options:
        states.append(name)
        options[name] = []
    return name


# ---------------------------------------------------------------------------------
# Writing


def to_hoa(automaton: Buchi) -> str:
    """Return the automaton in HOA format (for Spot: ``spot.automaton(text)``)."""
    aps = automaton.ap_names
    sets = automaton.num_sets
    acceptance = " & ".join(f"Inf({i})" for i in range(sets)) if sets else "t"
    lines = [
        "HOA: v1",
        f"States: {automaton.num_states}",
        f"Start: {automaton.initial}",
        f"AP: {len(aps)} " + " ".join(f'"{a}"' for a in aps),
        f"Acceptance: {sets} {acceptance}",
        "--BODY--",
    ]
    numbers = tuple(str(i) for i in range(len(aps)))
    for q, out in enumerate(automaton.edges):
        lines.append(f"State: {q}")
        for e in out:
            if e.condition is True or e.condition is False:
                text = "t" if e.condition else "f"
            else:
                text = format_condition(e.condition, numbers)
            marks = [str(i) for i in range(sets) if (e.acceptance >> i) & 1]
            acc = f" {{{' '.join(marks)}}}" if marks else ""
            lines.append(f"[{text}] {e.target}{acc}")
    lines.append("--END--")
    return "\n".join(lines) + "\n"


def buchi_automaton_for(formula: str):  # noqa: ANN201 - a spot.twa_graph
    """Return Spot's state-based Büchi automaton of ``formula`` (Spot syntax).

    Through the generic translation and ``remove_fin``/``degeneralize`` (fast on the
    fairness-premise formulas where ``translate(f, 'BA')`` is slow).
    """
    import spot

    g = spot.translate(spot.formula(formula), "generic")
    g = spot.remove_fin(g)
    g = spot.cleanup_acceptance(g)
    acc = g.acc()
    if not (acc.is_generalized_buchi() or acc.is_t()):
        g = spot.to_generalized_buchi(g)
    d = spot.degeneralize(g)
    if not d.prop_state_acc().is_true():
        d = spot.sbacc(d)
    return d


def never_claim_for(formula: str) -> tuple[str, int, int]:
    """Return (never claim that checks ``formula``, Büchi states, Büchi edges).

    The claim is the automaton of ``!(formula)``; its atoms are the formula's APs, to
    be ``#define``d in the model (``emit_promela`` does).
    """
    aut = buchi_automaton_for(f"!({formula})")
    return aut.to_str("spin"), aut.num_states(), aut.num_edges()
