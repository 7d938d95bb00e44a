"""Return the IR ``ModelFile`` of a parsed CSP# program (cspsharp.md sections 2-7).

Modules of the lowering, in pipeline order: ``context.py`` (declarations: constants,
propositions, macros, variables, channels, definitions), ``expressions.py`` (names,
expressions and event-block statements), ``fold.py`` (constant folding and IR rewriting
helpers), ``terms.py`` (walks over process terms), ``configurations.py`` (the locations
of a leaf and what its exploration works on), ``steps.py`` (PAT's operational rules:
the first steps of a configuration), ``leaf.py`` (a leaf's ``Process``: locations and
edges with canonical locals), ``system.py`` (the asserted composition: instances,
alphabets, prefixes, nested compositions), and this module (systems and properties).

Lowering strategy
-----------------
* ``#define`` with an expression that folds to a constant (over literals, enums and
  other constants) is a constant; any other ``#define`` expression is a state
  proposition (``Proposition``), also expanded like a macro where a guard or block uses
  its name (section 9.6); ``#define name { ... }`` is a statement macro for blocks.
* Variables: ``var x = 0`` -> ``UNBOUNDED`` int (bool when initialised with a bool),
  ``var x : {lo..hi}`` -> ``IntType(lo, hi, Overflow.ERROR)``, arrays of either,
  ``hvar`` -> ``Variable.hidden``. Channels keep their capacity; a synchronous step is
  labelled ``c.v`` and an asynchronous one ``c!v``/``c?v`` by the engine (edges carry
  ``comm`` and no event).
* Each ``#assert`` target gives one ``TransitionSystem`` (distinct targets in order of
  first use). The target is unfolded (constant arguments) through ``|||``/``||``
  (binary and indexed, nested ones flattened) into a composition tree; every other
  operand is a *leaf* that becomes one instance of a ``Process``. Identical leaves
  (``||| {4} @ P()``) share their ``Process``. ``|||`` is an ``Interleave`` unless two
  or more operands can terminate, in which case it is a ``Parallel`` whose alphabets
  are ``{"terminate"}`` (PAT's ``|||`` terminates jointly). ``||`` is a ``Parallel``
  whose alphabets are the leaf's plain events (no tau, channel or data-operation
  events) with constant components, plus ``terminate``, or the ``#alphabet``
  override; a plain event with a state-dependent component in a ``||`` operand
  without ``#alphabet`` is an error (PAT needs ``#alphabet`` there too).
* A leaf is explored symbolically: a location is a *configuration* (the process term,
  the values bound to the parameters/inputs/index variables in scope, and the pending
  sequential continuations); outgoing edges are the first steps of that term
  (section 7 rules); targets are normalised (process references unfolded, ``Skip ; Q``
  -> ``Q``, ``atomic{Skip}`` -> ``Skip``), so tail recursion ``P(i)`` maps back to an
  existing location. Constant parameters are folded (``Node(0)`` and ``Node(1)`` become
  different processes, each with its own locations).
* Parameters bound to state-dependent values and channel-input variables become
  process-local variables. As in PAT, an argument that reads global variables is
  evaluated when the reference is unfolded, i.e. in the state where the next step is
  computed: it is kept symbolically in the location and captured into a local by the
  next step (guards, channel arguments and event components use the expression,
  evaluated in the pre-state). Locals that the target no longer needs are reset to 0
  on the edge, so the state vector is canonical (PAT states hold no dead values).
* ``Skip`` has one ``terminate`` step to a terminal (``end``) location; ``Stop`` has
  none. ``if``/``case``/``<>``/``ifb`` resolution are tau steps; a ``case`` with no
  true condition and no ``default`` takes a tau step to ``Skip`` (section 9.7); an
  ``if`` without ``else`` likewise. ``atomic{P}``: every location inside is atomic,
  including the first (PAT >= 3.4.2, section 9.2).
* Event blocks become effects (``If``/``While``/``LocalVar``/``Assign``); ``%`` is
  ``mod``; the edge is marked ``data_operation`` (never a barrier). ``c?[g]x`` puts
  ``g`` in ``Receive.condition``. Event components are evaluated in the pre-state.
* ``P interrupt Q`` and ``P \\ {...}`` inside a leaf follow section 7 (hidden events
  with constant names become tau; P's ``terminate`` under ``;`` becomes tau).
  Hiding above a composition goes down through ``|||`` and ``;`` to the leaves; a
  ``||`` node keeps it (``ir.Parallel.hidden``): its operands synchronise on the
  hidden events first, and the joint step is tau; the names leave its alphabet.
  ``call(cempty|cfull|ccount|csize, c)`` are channel queries; ``(&& i:{..}@e)`` and
  its ``||``/``xor`` forms expand over the constant index.
* Names: processes are called after the leaf (``Node(0)``), instances after their
  process (``V()[0]``, ``V()[1]`` for copies), systems after the target (``Sys``),
  properties after their text (``Sys deadlockfree``); ``Property.number`` is the
  1-based position of the assertion in the file.
* An assertion whose process unfolds without end (``UnfoldingError``: unguarded
  recursion such as ``P = a -> P [] P``) is left unchecked (``ModelFile.refused``),
  the rest of the model loads: PAT parses such a model and fails only when it checks
  that assertion (its unfolding recurses until the stack overflows).
* ``#assert Impl refines [<F>|<FD>] Spec``: a ``REFINES`` property of Impl's system
  whose ``spec`` is Spec's own system (built like a target's, not listed among the
  file's systems); ``bridge.refinement`` checks it.

* A sequential *prefix* before the asserted composition, ``Init(); (A ||| B)``: the
  prefix is an instance whose last step (its terminate under ';', a tau, or the step
  reaching Skip) sets a fresh global ``_startedK`` that guards the first locations of
  the composition's leaves.
* A composition nested in a leaf, ``init -> (A ||| B)`` or ``(A || B); C``, reached at
  most once in any run from each place (``Round(0); Round(1)`` reaches one written
  composition from two places: two sets of operands) (the leaf's locations before it and after it are disjoint, and
  the leaf cannot end before it): its operands are static instances that start
  dormant (their first location waits for a global ``_startedK`` set by the leaf's step
  that reaches the composition: no extra step). If the leaf ends there, its only step
  is a ``terminate`` that is a barrier with the operands' joint terminate
  (``Parallel`` on ``terminate``). Under ``;`` the operands park at Skip (no terminate
  step) counting a global ``_joinedK`` down, and the leaf's waiting location has C's
  edges, enabled at 0: PAT's ``Sequence`` is C at once when its first part
  ``IsSkip()``, which a composition of Skips is, so there is no tau (C re-entered later
  is that same location). The bookkeeping globals are functions of the control
  locations, so there is one state per PAT state. Barriers among the operands are
  those of the same composition at top level; the enclosing ``||`` alphabet of the
  leaf includes its operands' events (or is its ``#alphabet``).

* A ``|||`` that cannot be static instances (reached repeatedly: under recursion, in a
  loop, under a choice, guard, hiding or ``interrupt``, or with operands that read
  values bound at run time) is lowered again inside its process: an ``ILV``
  configuration holds the operands' configurations (PAT's interleaving within the
  process term), each operand steps alone, and the composition terminates in one
  step when every operand offers its terminate (a composition of Skips is Skip at
  once). ``_build_system`` retries with the term marked in ``low.inline_interleave``.
  Refused there by name: an operand inside ``atomic`` (its priority is over the whole
  system's steps), a synchronous channel between two of its operands, and nesting in
  itself deeper than ``MAX_INTERLEAVE_DEPTH``.

Rejected with ``UnsupportedError`` (named construct and span): a ``||`` composition
nested under recursion (a process call cycle leads back to it), in a loop, under a
choice, guard, ``atomic``, hiding or ``interrupt``, whose continuation is also reached
without it, or whose operands read a value bound at run time; a composition followed
by ';' with an operand that may terminate from a choice (``Skip [] a -> Skip``) or
that is ``P; (Skip ||| ...)``; hiding of events with
state-dependent components or of channel events; calls of C# library
functions bridge does not implement (``context.py`` refuses the ``#import`` of a
user's own library); ``var x = *``; ``||| {..}``; process arguments that are arrays.

PAT 3.5 as public models use it (issue 15): channel arrays are one channel per element
(``c[0]``...) plus a constant id array ``c`` for indices known only at run time; a
channel used with several arities carries each message's arity first
(``ir.Channel.arity_tag``); macros with parameters are substituted where
``call(f, ...)`` names them; PAT's library classes are ``ir.ObjectType`` values changed
by assignments of ``ir.Call`` results (``ir/library.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from bridge.diagnostics import SemanticError, UnsupportedError
from bridge.frontends.csp import syntax as s
from bridge.frontends.csp.configurations import UnfoldingError
from bridge.frontends.csp.context import (
    Lowerer,
)
from bridge.frontends.csp.expressions import (
    Ctx,
)
from bridge.frontends.csp.system import (
    SystemBuilder,
)
from bridge.frontends.csp.terms import (
    all_terms,
)
from bridge.ir import (
    Composition,
    Const,
    ModelFile,
    Property,
    PropertyKind,
    Proposition,
    RefinementModel,
    RefusedAssertion,
    SourceLanguage,
    TransitionSystem,
)


def _collect_event_names(low: Lowerer) -> None:
    """Record every event base name written in a process definition (for LTL atoms)."""
    for t in all_terms(low.defs.values()):
        if isinstance(t, s.EventPrefix) and not t.event.is_tau:
            low.event_bases.add(t.event.name)



def lower_program(program: s.Program) -> ModelFile:
    """Return the ``ModelFile`` of ``program``: one ``TransitionSystem`` per distinct
    assertion target, in order of first use (cspsharp.md sections 6-7).

    A file without assertions yields no system. Raises ``SemanticError`` /
    ``UnsupportedError`` with spans.
    """
    from bridge.frontends.csp.ltl import parse_ltl

    low = Lowerer(program)
    low.declare()
    _collect_event_names(low)
    propositions = tuple(
        Proposition(name, low._proposition(name, d.name_span), d.span)
        for name, d in low.props.items()
    )
    groups: dict[tuple, list[tuple[int, s.Assertion]]] = {}
    order: list[tuple] = []
    for number, a in enumerate(program.assertions, start=1):
        key = _target_key(low, a.target)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append((number, a))
    specs: dict[tuple, TransitionSystem] = {}

    def system_of(target: s.Target, key: tuple,
                  properties: tuple[Property, ...] = ()) -> TransitionSystem:
        builder, composition = _build_system(low, target)
        lazy = [b for _, b in builder.processes.values() if b.work]
        unfolding = None
        if lazy:
            unfolding = LazyUnfolding(builder, lambda: system_of(target, key, properties))
        system = TransitionSystem(
            name=_target_text(key),
            language=SourceLanguage.CSP,
            globals=tuple(low.global_vars) + tuple(builder.gate_vars),
            channels=tuple(low.channels.values()),
            processes=tuple(p for p, _ in builder.processes.values()),
            instances=tuple(builder.instances),
            composition=composition,
            propositions=propositions,
            properties=properties,
            enums=tuple(low.enums),
            source_files=tuple(program.sources),
            unfolding=unfolding,
        )
        if unfolding is not None:
            unfolding.system = system
        return system

    def spec_of(a: s.Assertion) -> TransitionSystem:
        assert a.spec is not None
        key = _target_key(low, a.spec)
        if key not in specs:
            specs[key] = system_of(a.spec, key)
        return specs[key]

    systems = []
    refused: list[RefusedAssertion] = []
    for key in order:
        target_text = _target_text(key)
        properties = []
        for number, a in groups[key]:
            prop = _property(low, a, number, target_text, parse_ltl)
            if a.kind == "refines":
                try:
                    prop = dataclasses.replace(prop, spec=spec_of(a))
                except UnfoldingError as error:
                    refused.append(_refused(number, prop, error))
                    continue
            properties.append(prop)
        if not properties:
            continue
        try:
            system = system_of(groups[key][0][1].target, key, tuple(properties))
        except UnfoldingError as error:
            refused.extend(_refused(p.number, p, error) for p in properties)
            continue
        systems.append(system)
    refused.sort(key=lambda r: r.number)
    return ModelFile(program.path, tuple(systems), tuple(refused))


class LazyUnfolding:
    """The ``ir.Unfolding`` of a system with leaves unfolded lazily (past
    ``MAX_LOCATIONS``): ``expand`` resumes their builders (``LeafBuilder.resume``) at
    the locations the search reached and builds the system again; with nothing
    reached, it checks that what was left out cannot matter (``final_checks``)."""

    def __init__(self, builder: SystemBuilder, rebuild: Callable[[], TransitionSystem]
                 ) -> None:
        self.builder = builder
        self.rebuild = rebuild
        self.system: TransitionSystem | None = None  # the system it belongs to

    def expand(self, reached: Mapping[str, frozenset[int]]) -> TransitionSystem:
        """Return the system with the pending locations ``reached`` unfolded (with
        nothing reached: the system as it is, ``unfolding`` None)."""
        by_name = {p.name: b for p, b in self.builder.processes.values()}
        if not any(reached.values()):
            self.builder.final_checks()
            assert self.system is not None
            return dataclasses.replace(self.system, unfolding=None)
        for name, locations in reached.items():
            by_name[name].resume(locations)
        return self.rebuild()


def _refused(number: int, prop: Property, error: UnfoldingError) -> RefusedAssertion:
    """Return the record of an assertion left unchecked because a process it needs
    unfolds without end (``UnfoldingError``: PAT fails there too)."""
    first = error.diagnostics[0]
    return RefusedAssertion(number, prop.text, prop.target or "", first.message, first.span)


def _build_system(low: Lowerer, target: s.Target) -> tuple[SystemBuilder, Composition]:
    """Return the builder and composition of ``target``. A '|||' that cannot be
    static instances (reached repeatedly, under a choice, guard, hiding or interrupt,
    or with operands reading run-time values) is lowered again inside its process
    (an ``ILV`` configuration: PAT's interleaving within the process term), and the
    system is built anew; a '||' there stays refused."""
    while True:
        ref = s.ProcRef(target.span, target.name, target.args, True)
        builder = SystemBuilder(low, target)
        try:
            node = builder.compose(ref, (), None)
            composition, _ = builder.build_node(node)
        except UnsupportedError as error:
            term = getattr(error, "nested_term", None)
            if (term is None or getattr(term, "op", None) != "|||"
                    or id(term) in low.inline_interleave):
                raise
            low.inline_interleave.add(id(term))
            continue
        return builder, composition


def _target_key(low: Lowerer, target: s.Target) -> tuple:
    d = low.definition(s.ProcRef(target.span, target.name, target.args, True))
    values = []
    for arg in target.args:
        v = low.expr(arg, Ctx())
        if not isinstance(v, Const):
            raise SemanticError.at(arg.span, "an assertion target's arguments must be constants")
        values.append(v.value)
    del d
    return (target.name, tuple(values))


def _target_text(key: tuple) -> str:
    name, values = key
    if not values:
        return name
    shown = ", ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values)
    return f"{name}({shown})"


_REFINEMENT_MODELS = {
    "": RefinementModel.TRACES,
    "F": RefinementModel.FAILURES,
    "FD": RefinementModel.FAILURES_DIVERGENCE,
}

_KINDS = {
    "deadlockfree": PropertyKind.DEADLOCK_FREE,
    "nonterminating": PropertyKind.NONTERMINATING,
    "divergencefree": PropertyKind.DIVERGENCE_FREE,
    "deterministic": PropertyKind.DETERMINISTIC,
}


def _property(low: Lowerer, a: s.Assertion, number: int, target: str, parse_ltl) -> Property:
    text = a.text.removeprefix("#assert").strip() if a.text else f"{target} {a.kind}"
    name = text
    if a.kind in _KINDS:
        return Property(name, _KINDS[a.kind], text, target=target, number=number, span=a.span)
    if a.kind == "reaches":
        assert a.proposition is not None
        pname = a.proposition
        if pname in low.props:
            cond = low._proposition(pname, a.proposition_span)
        elif pname in low.constants and isinstance(low.constants[pname], bool):
            cond = Const(low.constants[pname])
        elif pname in low.globals:
            raise SemanticError.at(
                a.proposition_span,
                f"'reaches' needs a #define proposition, not the variable '{pname}'",
                f"write '#define goal {pname} == ...;' and 'reaches goal'",
            )
        else:
            raise low._undeclared(pname, a.proposition_span, "proposition")
        optimise = None
        if a.optimise is not None:
            which, e = a.optimise
            value, t = low.typed(e, Ctx())
            if t == "bool":
                raise SemanticError.at(e.span, f"'with {which}(...)' needs an integer expression")
            optimise = (which, value)
        return Property(name, PropertyKind.REACHES, text, target=target, condition=cond,
                        optimise=optimise, number=number, span=a.span)
    if a.kind == "ltl":
        formula = parse_ltl(a.ltl_text, a.ltl_span, low)
        return Property(name, PropertyKind.LTL, text, target=target, formula=formula,
                        number=number, span=a.span)
    if a.kind == "refines":
        model = _REFINEMENT_MODELS[a.refinement]
        return Property(name, PropertyKind.REFINES, text, target=target, refinement=model,
                        number=number, span=a.span)
    raise SemanticError.at(a.span, f"unknown assertion kind '{a.kind}'")  # pragma: no cover

