"""The transition system: globals, channels, processes as control-flow graphs, their
instances and how they are composed (DESIGN.md section 2).

A guarded-command system in the spirit of LTSmin's PINS and Storm's JANI. Each process
(Promela proctype, specialised CSP# process definition) is a graph of ``Location``s and
``Edge``s. An edge is enabled when its guard holds and its channel operation (``comm``)
can happen; taking it runs the ``effect`` atomically.

Composition (``Interleave`` / ``Parallel`` over ``InstanceRef``) says how instances step
together: interleaving everywhere, except that an event in the alphabets of several
operands of a ``Parallel`` node is a CSP barrier taken jointly by every operand whose
alphabet has it, and a rendezvous channel (capacity 0) pairs one ``Send`` edge with one
``Receive`` edge of two different instances (one step). Instances created at run time
(Promela ``run``) interleave with everything.

Data only: no evaluation here (STYLE.md section 1).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from bridge.diagnostics import Span
from bridge.ir.expr import Expr, Receive, Send, Stmt
from bridge.ir.property import Property
from bridge.ir.types import Type

LocationId = int
InstanceId = int


class SourceLanguage(enum.Enum):
    PROMELA = "promela"
    CSP = "csp"
    IR = "ir"  # built by hand (tests)


class FairnessMark(enum.Enum):
    """A per-event fairness annotation (paper 000 section 4; cspsharp.md 5.2)."""

    WF = "wf"  # weak fairness of the event
    SF = "sf"  # strong fairness of the event
    WL = "wl"  # weak liveness of this occurrence
    SL = "sl"  # strong liveness of this occurrence
    F = "f"  # unconditional: engaged infinitely often (paper 000 Fig. 11)


@dataclass(frozen=True, slots=True)
class Variable:
    """A global or process-local variable. ``init`` is one expression, a tuple of
    expressions for an array (element per slot, flattened row-major), or None (zero).
    ``hidden`` variables (CSP# ``hvar``) are kept in the state but ignored when states
    are compared (PAT semantics)."""

    name: str
    type: Type
    init: Expr | tuple[Expr, ...] | None = None
    hidden: bool = False
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Channel:
    """A channel: ``capacity`` 0 is a rendezvous, >0 a FIFO buffer of that many
    messages; ``fields`` are the message field types. Global channels get ids 1.. in
    declaration order (SPIN's numbering); a channel declared in a process is created per
    instance when the instance starts."""

    name: str
    capacity: int
    fields: tuple[Type, ...]
    span: Span | None = None
    # CSP#: a channel used with messages of different arities (``c!1.2`` and ``c!5``).
    # Every message is ``(k, v1..vk, 0...)``: its arity, its k values, padding; a
    # receive of k fields matches the arity first. Event labels show ``v1..vk`` only.
    arity_tag: bool = False


@dataclass(frozen=True, slots=True)
class Event:
    """A visible event name: ``base`` plus components evaluated when the step is taken,
    rendered ``base.c1.c2`` (CSP# ``rule1.i.(i+1)%N``). A Promela edge with a user label
    gets ``Event(label)`` when it is used as an action name."""

    base: str
    components: tuple[Expr, ...] = ()
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Location:
    """A control location of a process.

    ``atomic``: the process is inside an atomic sequence here; while it has an enabled
    edge, no other instance may step (Promela atomic; CSP# atomic{}). ``end``: a valid end
    state (Promela end label or the final location). ``terminal``: the process has
    finished (CSP# after Skip's terminate, Promela past the last statement).
    ``labels``: the source labels that name this location (for ``P@label`` and traces).
    """

    id: LocationId
    labels: tuple[str, ...] = ()
    atomic: bool = False
    end: bool = False
    terminal: bool = False
    accept: bool = False
    progress: bool = False
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Edge:
    """A guarded command between two locations of one process.

    Enabled iff ``guard`` holds (None: true; ``ElseGuard``: no sibling is enabled) and
    ``comm`` can happen. Taking it performs ``comm`` then ``effect``. ``event`` is the
    visible event of the step (None: internal/tau); ``label`` the Promela statement label;
    ``text`` the source text of the statement, for traces.
    """

    source: LocationId
    target: LocationId
    guard: Expr | None = None
    comm: Send | Receive | None = None
    effect: tuple[Stmt, ...] = ()
    event: Event | None = None
    label: str | None = None
    fairness: FairnessMark | None = None
    text: str = ""
    span: Span | None = None
    # CSP#: True for an event with a program (``e{...} -> P``, a "data operation"),
    # which never takes part in a barrier even if its name is in a shared alphabet
    # (cspsharp.md section 7). A plain CSP# event may still carry an effect that the
    # front-end adds for bookkeeping (parameter passing), and it still synchronises.
    data_operation: bool = False
    # CSP#: the step belongs to an ``atomic`` part of the process that is not the whole
    # process (an operand of a '|||' inside it): PAT gives priority to such steps (if
    # any enabled step of the system is atomic, only atomic steps are offered), like
    # every step from an ``atomic`` location (cspsharp.md section 7).
    atomic: bool = False


@dataclass(frozen=True, slots=True)
class ChannelAssertion:
    """Promela ``xr c`` (``kind == "xr"``: only this instance receives from ``c``) or
    ``xs c`` (only this instance sends to ``c``), declared in a proctype; ``channel`` is
    evaluated in the new instance when it is created.

    Checked as pan checks them in SPIN's default build (``-DNOREDUCE`` builds skip
    them): an instance claims the channel when it is created; it is a model error
    (``xr assertion violated: access to chan c`` / ``xs ...``) when another instance
    claims it too, or when another instance tries a receive (``xr``) or a send
    (``xs``) on it, or evaluates ``len``/``empty``/``nempty``/``full``/``nfull`` or a
    poll of it (either kind); the claim on a global channel stays with the claimant's
    pid for the rest of the run (pan keeps it in a table that is never reset); a
    claim on a rendezvous channel is itself an error (``xr chans cannot be used for
    rv``). "Tries" means: the instance is at a location with that statement, its
    guard holds, and it is not kept from moving by another instance's atomic
    sequence."""

    kind: str
    channel: Expr
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Process:
    """A process template: parameters (bound to locals at creation), locals, locations,
    edges. Edge ``i`` of ``edges`` is the edge id used in traces and Promela actions.

    ``provided``: a Promela ``provided (e)`` clause. The front-end already conjoins it
    to every edge's guard; the field is kept because SPIN also guards the removal of a
    finished instance by it (promela-spin.md section 6), and back-ends write it back."""

    name: str
    parameters: tuple[str, ...]
    locals: tuple[Variable, ...]
    locations: tuple[Location, ...]
    edges: tuple[Edge, ...]
    initial: LocationId
    channels: tuple[Channel, ...] = ()
    span: Span | None = None
    provided: Expr | None = None
    channel_assertions: tuple[ChannelAssertion, ...] = ()
    # Locations whose edges the front-end has not computed yet (a CSP# process unfolded
    # lazily: ``TransitionSystem.unfolding``). In a system without ``unfolding`` they
    # are unreachable (the unfolding was completed by a search of the whole system).
    pending: frozenset[LocationId] = frozenset()


@dataclass(frozen=True, slots=True)
class Instance:
    """A process instance present in the initial state: ``Node(0)``, ``P[2]``.
    ``priority``: its initial priority (Promela ``active proctype P() priority 2``),
    used when ``TransitionSystem.priority_scheduling`` is on."""

    process: str
    arguments: tuple[Expr, ...] = ()
    name: str = ""
    span: Span | None = None
    priority: int = 1


@dataclass(frozen=True, slots=True)
class InstanceRef:
    instance: InstanceId


@dataclass(frozen=True, slots=True)
class Interleave:
    children: tuple[Composition, ...]


@dataclass(frozen=True, slots=True)
class Parallel:
    """CSP# alphabetised parallel: ``alphabets[i]`` is the set of fully evaluated event
    names (``"rule1.0.1"``) of ``children[i]``; shared names are barriers.

    ``hidden``: hiding above the composition (``(P || Q) \\ {a}``): a step of the node
    whose event is one of these names, after its synchronisations, is tau. An enclosing
    composition never sees them (they are in no alphabet above this node)."""

    children: tuple[Composition, ...]
    alphabets: tuple[frozenset[str], ...]
    hidden: frozenset[str] = frozenset()


Composition = InstanceRef | Interleave | Parallel


@dataclass(frozen=True, slots=True)
class Proposition:
    """A named state proposition (``#define p expr``), usable in LTL and ``reaches``."""

    name: str
    expr: Expr
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class TransitionSystem:
    """The whole model. ``composition`` covers the initial ``instances`` (default: all
    interleaved); instances started later by ``Run`` interleave with it."""

    name: str
    language: SourceLanguage
    globals: tuple[Variable, ...]
    channels: tuple[Channel, ...]
    processes: tuple[Process, ...]
    instances: tuple[Instance, ...]
    composition: Composition | None = None
    propositions: tuple[Proposition, ...] = ()
    properties: tuple[Property, ...] = ()
    enums: tuple[tuple[str, int], ...] = ()  # symbolic constant name -> value, for printing
    source_files: tuple[str, ...] = ()
    # Promela trace/notrace: a state where no instance can move is a valid end state
    # only if this also holds (pan: "event_trace not completed" unless the trace is at
    # one of its end states). None: no such condition.
    end_condition: Expr | None = None
    max_instances: int = 255  # SPIN's limit on simultaneously running processes
    notes: tuple[str, ...] = field(default=())
    # Promela ``never { }`` claim, kept as parsed (a Process that is not an instance;
    # its ``accept`` locations and terminal location carry the claim's meaning). The
    # engine checks LTL properties with its own automata; the SPIN back-end may emit it.
    never: Process | None = None
    # Promela process priorities (SPIN 6.2 and later; the front-end turns this on when
    # the model uses ``priority``, ``get_priority``, ``set_priority`` or ``_priority``,
    # as SPIN defines HAS_PRIORITY then). Every instance carries a priority (1..255,
    # ``Instance.priority``, ``Run.priority``, ``SetPriority``), and a step of an
    # instance is possible only if no other instance with a higher priority has a step
    # in that state (pan's ``highest_priority``, applied in verification by the default
    # build; a never claim or LTL automaton is not subject to it).
    priority_scheduling: bool = False
    # A front-end's lazy unfolding of processes with ``Process.pending`` locations;
    # None: every process is complete, or its pending locations are unreachable.
    unfolding: Unfolding | None = field(default=None, compare=False, repr=False)

    def process(self, name: str) -> Process:
        """Return the process template called ``name`` (KeyError if none)."""
        for p in self.processes:
            if p.name == name:
                return p
        raise KeyError(name)


class Unfolding(Protocol):
    """The lazy unfolding of a system's processes, kept by the front-end that made it
    (CSP# leaves too big to unfold statically: cspsharp.md section 7). A search of the
    system reports the pending locations it reached; ``expand`` returns the system
    with them (and possibly more) unfolded. Called with nothing reached, it makes its
    last checks and returns the system with ``unfolding`` None (or raises a
    ``SourceError`` naming what cannot be unfolded lazily)."""

    def expand(self, reached: Mapping[str, frozenset[LocationId]]) -> TransitionSystem:
        """Return the system with the pending locations ``reached`` (by process name)
        unfolded."""
        ...


@dataclass(frozen=True, slots=True)
class RefusedAssertion:
    """An assertion the front-end cannot check although the model loads: its process
    cannot be built for a reason the reference tool fails on too when it checks that
    assertion (CSP#: a process whose unfolding does not end, where PAT 3.5's stack
    overflows). ``message``/``span``: the error, as the front-end would report it;
    ``target``: the process the assertion is about."""

    number: int
    text: str
    target: str
    message: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class ModelFile:
    """What a front-end returns for one source file: one ``TransitionSystem`` per
    distinct assertion target (CSP# ``#assert Sys ...`` vs ``#assert Node(0) ...``), in
    order of first use; a Promela file always has exactly one. Properties keep their
    1-based position in the file in ``Property.number`` (for ``--assert N``).
    ``refused``: assertions that are not checked (``RefusedAssertion``); their numbers
    are not used by any property."""

    path: str
    systems: tuple[TransitionSystem, ...]
    refused: tuple[RefusedAssertion, ...] = ()

    def properties(self) -> list[tuple[TransitionSystem, Property]]:
        """Return every (system, property) pair in file order."""
        pairs = [(s, p) for s in self.systems for p in s.properties]
        return sorted(pairs, key=lambda pair: pair[1].number)
