"""What the Promela emitter (``emit.py``) produces and shares between its two
styles: the emitted model and properties, the explicit graph handed to the
strong-global premises, template rendering and LTL formula helpers."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import jinja2

from bridge._resources import template_dir
from bridge.backends.spin.run import SpinOptions
from bridge.backends.spin.trail import LineInfo, SourceMap
from bridge.diagnostics import UnsupportedError
from bridge.ir.model import TransitionSystem
from bridge.ir.property import (
    Fairness,
    Ltl,
    LtlBinary,
    LtlConst,
    LtlEvent,
    LtlState,
    LtlUnary,
    Property,
    PropertyKind,
)

ENCODINGS = ("plain", "premise", "action-process")
STYLES = ("auto", "structured", "explicit-pc")
INIT_EVENT = "init"
INIT_ID = 1
STRONG_GLOBAL_MAX_STEPS = 200  # per-step form: one Streett pair per source state
STRONG_GLOBAL_BOTTOM_SCC_MAX_STEPS = 20000  # bottom-scc form: bookkeeping grows, not the claim
STRONG_GLOBAL_FORMS = ("per-step", "bottom-scc")
SPIN_MAX_PROCESSES = 255  # pan: "too many processes" beyond (promela-spin.md section 6)


@dataclass(frozen=True, slots=True)
class ExplicitState:
    """One reachable system state as a full valuation (strong global premise).

    ``globals``: ``(name, values)`` for every non-hidden global variable, arrays
    flattened row-major (one value for a scalar); ``locations``: the control location id
    of each instance (instance order); ``locals``: per instance, ``(name, values)`` of
    its locals and parameters. Channel contents are not representable (rejected).
    """

    globals: tuple[tuple[str, tuple[int, ...]], ...]
    locations: tuple[int, ...]
    locals: tuple[tuple[tuple[str, tuple[int, ...]], ...], ...] = ()


@dataclass(frozen=True, slots=True)
class ExplicitStep:
    """One step ``(s, e, s')`` of the explicit state graph (paper 000 Def. 4):
    ``source``/``target`` index ``ExplicitGraph.states``; ``edges``: the
    ``(instance id, edge index)`` pairs it takes (its identity, as ``Step.edges``)."""

    source: int
    edges: tuple[tuple[int, int], ...]
    target: int


@dataclass(frozen=True, slots=True)
class ExplicitGraph:
    """The reachable state graph of a system, as plain data for the strong global
    premise (computed by the caller, e.g. ``bridge.compare.explicit_graph_for``).
    Stutter steps of deadlocked states are left out (their conjunct is always true)."""

    states: tuple[ExplicitState, ...]
    steps: tuple[ExplicitStep, ...]


@dataclass(frozen=True, slots=True)
class EmittedProperty:
    """How one IR property is checked on the emitted model.

    ``check``: ``ltl`` (an ltl block ``ltl_name``; pan ``-a -N ltl_name``), ``safety``
    (assertions and invalid end states, no claim), ``deadlock`` (invalid end states),
    ``never`` (the model's own never claim, named ``ltl_name``; structured style only),
    ``non-progress`` (the model's progress labels, kept by the structured style: pan
    ``-l``, compiled with ``-DNP``) and ``acceptance`` (its accept labels: pan ``-a``
    compiled with ``-DNOCLAIM``; structured style only).
    ``spin_formula``: the formula of the ltl block (over ``#define`` names);
    ``spot_formula``: the same in Spot syntax over the same names (for a Spot-built
    never claim, ``spin -a -N``); ``negated``: the block checks the negation of a
    reachability property (``reaches c`` holds iff the block is *violated*).
    """

    name: str
    number: int
    check: str
    ltl_name: str | None = None
    spin_formula: str | None = None
    spot_formula: str | None = None
    premises: int = 0
    negated: bool = False


@dataclass(frozen=True)
class EmittedModel:
    """Promela text and what is needed to run it and read its trails back."""

    text: str
    source_map: SourceMap
    encoding: str
    style: str
    fairness: Fairness
    properties: tuple[EmittedProperty, ...]
    actions: tuple[str, ...] = ()
    processes: int = 0
    notes: tuple[str, ...] = ()

    def find_property(self, name_or_number: str | int) -> EmittedProperty:
        """Return the emitted property by IR name or 1-based number (KeyError if none)."""
        for p in self.properties:
            if p.name == name_or_number or p.number == name_or_number:
                return p
        raise KeyError(name_or_number)

    def spin_options(
        self, prop: EmittedProperty, timeout: float = 60.0, memory_mb: int = 1024
    ) -> SpinOptions:
        """Return the ``SpinOptions`` that check ``prop`` on this model.

        ``action-process`` runs ``-a -f`` (SPIN's weak fairness); POR is off
        (``-DNOREDUCE``) in every encoding so that state counts compare.
        """
        defines = ("NOREDUCE",)
        if prop.check in ("non-progress", "acceptance"):
            # SPIN's own cycle checks of the labels: pan -l (-DNP) or pan -a without
            # any claim (-DNOCLAIM), with -f when the model asks for SPIN's fairness.
            progress = prop.check == "non-progress"
            return SpinOptions(
                timeout=timeout,
                memory_mb=memory_mb,
                acceptance=not progress,
                non_progress=progress,
                defines=defines + (() if progress else ("NOCLAIM",)),
                max_depth=1_000_000,
                processes=self.processes,
            )
        if prop.check == "never":
            # the model's own claim, by name (pan -a: acceptance cycles and the claim
            # reaching its end)
            return SpinOptions(
                timeout=timeout,
                memory_mb=memory_mb,
                acceptance=True,
                ltl=prop.ltl_name,
                defines=defines,
                max_depth=1_000_000,
                processes=self.processes,
            )
        if prop.check == "ltl":
            weak = self.encoding == "action-process" and self.fairness is Fairness.WEAK
            return SpinOptions(
                timeout=timeout,
                memory_mb=memory_mb,
                acceptance=True,
                weak_fairness=weak,
                ltl=prop.ltl_name if len(self.ltl_names) > 1 else None,
                defines=defines,
                max_depth=1_000_000,
                processes=self.processes,
            )
        return SpinOptions(
            timeout=timeout,
            memory_mb=memory_mb,
            ignore_end_states=False,
            defines=defines,
            max_depth=1_000_000,
            processes=self.processes,
        )

    @property
    def ltl_names(self) -> tuple[str, ...]:
        """Return the names of the ltl blocks in the text."""
        return tuple(p.ltl_name for p in self.properties if p.ltl_name and p.check == "ltl")



# ---------------------------------------------------------------------------------
# Shared helpers


_TAG = re.compile(r"\s*/\*@(\d+)\*/")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_template(name: str, infos: list[LineInfo], **context: object) -> tuple[str, dict]:
    """Return the rendered template with line tags removed, and line -> LineInfo."""
    text = _environment().get_template(name).render(**context)
    lines = text.split("\n")
    mapping: dict[int, LineInfo] = {}
    for number, line in enumerate(lines, start=1):
        m = _TAG.search(line)
        if m:
            mapping[number] = infos[int(m.group(1))]
            lines[number - 1] = _TAG.sub("", line)
    return "\n".join(lines), mapping


def instance_label(system: TransitionSystem, i: int) -> str:
    inst = system.instances[i]
    return inst.name or f"{inst.process}({i})"


class Formulas:
    """LTL of the IR -> (Promela ltl text, Spot text) over ``#define``d atoms."""

    def __init__(self, atom: Callable[[LtlState | LtlEvent], str]) -> None:
        self.atom = atom

    def both(self, f: Ltl) -> tuple[str, str]:
        if isinstance(f, LtlConst):
            return ("true", "1") if f.value else ("false", "0")
        if isinstance(f, LtlState | LtlEvent):
            name = self.atom(f)
            return name, name
        if isinstance(f, LtlUnary):
            a, b = self.both(f.operand)
            if f.op == "X":
                raise UnsupportedError.at(
                    f.span, "SPIN 6.5.2 ltl blocks have no X (next) operator: use a never claim"
                )
            spin_op = {"!": "!", "G": "[]", "F": "<>"}[f.op]
            return f"({spin_op}({a}))", f"({f.op}({b}))"
        if isinstance(f, LtlBinary):
            (la, lb), (ra, rb) = self.both(f.left), self.both(f.right)
            spot_op = {"&&": "&", "||": "|"}.get(f.op, f.op)
            if f.op == "W":
                return f"(([]({la})) || (({la}) U ({ra})))", f"(({lb}) W ({rb}))"
            if f.op == "R":
                return f"(({la}) V ({ra}))", f"(({lb}) R ({rb}))"
            return f"(({la}) {f.op} ({ra}))", f"(({lb}) {spot_op} ({rb}))"
        raise UnsupportedError.at(None, f"formula node {type(f).__name__}")


def events_in(f: Ltl | None) -> list[LtlEvent]:
    out: list[LtlEvent] = []
    stack: list[Ltl] = [f] if f is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, LtlEvent):
            out.append(node)
        elif isinstance(node, LtlUnary):
            stack.append(node.operand)
        elif isinstance(node, LtlBinary):
            stack += [node.left, node.right]
    return out


def formula_of(p: Property) -> Ltl | None:
    return p.formula if p.kind is PropertyKind.LTL else None


def ltl_property(p: Property) -> tuple[str, Ltl | None, bool]:
    """Return (check kind, formula to put in an ltl block, negated?) for property ``p``."""
    if p.kind is PropertyKind.LTL:
        return "ltl", p.formula, False
    if p.kind is PropertyKind.INVARIANT and p.condition is not None:
        return "ltl", LtlUnary("G", LtlState(p.condition, "invariant")), False
    if p.kind is PropertyKind.REACHES and p.condition is not None:
        if p.optimise is not None:
            raise UnsupportedError.at(p.span, "'reaches ... with min/max' has no SPIN form")
        return "ltl", LtlUnary("G", LtlUnary("!", LtlState(p.condition, "target"))), True
    if p.kind is PropertyKind.SAFETY:
        return "safety", None, False
    if p.kind is PropertyKind.DEADLOCK_FREE:
        return "deadlock", None, False
    if p.kind is PropertyKind.NEVER:
        return "never", None, False
    if p.kind is PropertyKind.NON_PROGRESS:
        return "non-progress", None, False
    if p.kind is PropertyKind.ACCEPTANCE:
        return "acceptance", None, False
    if p.kind is PropertyKind.REFINES:
        raise UnsupportedError.at(p.span, "refinement checking 'refines' has no SPIN check "
                                          "(SPIN checks no refinement between processes)")
    raise UnsupportedError.at(p.span, f"property kind '{p.kind.value}' has no SPIN check")


