"""Lower the instances of one process definition once (issue 13).

``||| x:{0..N-1}@Node(x)`` makes N leaves that differ only in the value of ``x``.
When ``Node``'s parameter only ever names an event component (``start.i``) or is
passed on, whole, to such a parameter of a process it calls (``NonLeader(i)``), the
value takes part in no decision of the lowering: no guard, no expression, no
configuration other than through its own identity. The leaf is then lowered once with
a sentinel in place of the value (a *template*), and each instance is the template with
the sentinel replaced in its event components (``instantiate``): a substitution in a
handful of edges, not a lowering.

Which parameters qualify is decided on the syntax (``label_parameters``), and the
first instance of every template is also lowered the ordinary way and compared with
its instantiation: on any difference the template is dropped and every instance of it
is lowered on its own (``TemplateCache.stats`` counts both).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from bridge.frontends.csp import syntax as s
from bridge.frontends.csp.configurations import Env, Leaf
from bridge.frontends.csp.context import Lowerer
from bridge.frontends.csp.leaf import LeafBuilder, build_leaf, lazy_key
from bridge.ir import Const, Edge, Event, Process

# Sentinel values stand for the instance values in a template: far from any value a
# model writes (they never take part in arithmetic, see the module docstring).
SENTINEL = -(2**61)


def label_parameters(low: Lowerer, start: str) -> frozenset[tuple[str, int]]:
    """Return the (definition, parameter position) pairs, among the definitions that
    ``start`` reaches by process calls, whose parameter is used only as a whole event
    component or passed whole to another such parameter, and receives only such a
    parameter at every call in those definitions (the greatest such set)."""
    reach: list[str] = []
    seen = {start}
    calls: dict[str, list[s.ProcRef]] = {}
    occurs: dict[str, dict[str, bool]] = {}  # def -> param -> used only as a label
    while len(reach) < len(seen):
        name = [n for n in seen if n not in reach][0]
        reach.append(name)
        d = low.defs.get(name)
        if d is None:
            continue
        params = {p.name for p in d.params}
        ok = dict.fromkeys(params, True)
        refs: list[s.ProcRef] = []
        _walk(d.body, params, ok, refs)
        calls[name] = refs
        occurs[name] = ok
        for r in refs:
            if r.name not in seen and r.name in low.defs:
                seen.add(r.name)
    # A parameter a macro could read (macros see the caller's bindings) is no label.
    macro_names: set[str] = set()
    for body in low.macros.values():
        _names(body, macro_names)
    label: set[tuple[str, int]] = set()
    for name in reach:
        d = low.defs.get(name)
        if d is None:
            continue
        for q, p in enumerate(d.params):
            if occurs[name].get(p.name) and p.name not in macro_names:
                label.add((name, q))
    changed = True
    while changed:
        changed = False
        for name in reach:
            d = low.defs.get(name)
            if d is None:
                continue
            position = {p.name: q for q, p in enumerate(d.params)}
            for r in calls[name]:
                callee = low.defs.get(r.name)
                if callee is None or len(callee.params) != len(r.args):
                    continue
                for q, arg in enumerate(r.args):
                    passed = arg.name if isinstance(arg, s.SName) else None
                    mine = position.get(passed) if passed is not None else None
                    if (r.name, q) in label and (mine is None or (name, mine) not in label):
                        label.discard((r.name, q))  # receives something else
                        changed = True
                    elif mine is not None and (name, mine) in label and (r.name, q) not in label:
                        label.discard((name, mine))  # passed to a parameter that is no label
                        changed = True
    return frozenset(label)


def _walk(node: object, params: set[str], ok: dict[str, bool], refs: list[s.ProcRef]) -> None:
    """Mark in ``ok`` the parameters used other than as a whole event component or a
    whole call argument; collect the process calls in ``refs``."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (tuple, list)):
            stack.extend(n)
            continue
        if isinstance(n, s.SName):
            if n.name in ok:
                ok[n.name] = False
            continue
        if isinstance(n, s.ProcRef):
            refs.append(n)
            stack.extend(a for a in n.args if not isinstance(a, s.SName))
            continue
        if isinstance(n, s.Hiding):
            # Hidden names are compared with event names: a value could decide.
            for name in ok:
                ok[name] = False
        if isinstance(n, s.EventPrefix):
            stack.extend(c for c in n.event.components if not isinstance(c, s.SName))
            stack.extend((n.block, n.body))
            continue
        if not dataclasses.is_dataclass(n):
            continue
        for f in dataclasses.fields(n):
            value = getattr(n, f.name)
            if f.name == "name" and isinstance(value, str) and value in ok:
                ok[value] = False  # a binder (index or local variable) of the same name
            elif dataclasses.is_dataclass(value) or isinstance(value, (tuple, list)):
                stack.append(value)


def _names(node: object, out: set[str]) -> None:
    """Add to ``out`` every name written in ``node``."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (tuple, list)):
            stack.extend(n)
        elif isinstance(n, s.SName):
            out.add(n.name)
        elif dataclasses.is_dataclass(n):
            stack.extend(getattr(n, f.name) for f in dataclasses.fields(n))


@dataclass
class Template:
    """A leaf lowered with sentinels for its label arguments."""

    builder: LeafBuilder
    process: Process
    sentinels: tuple[int, ...]
    verified: bool = False


@dataclass
class TemplateCache:
    """The templates of one system's leaves, by leaf shape (``key``)."""

    low: Lowerer
    templates: dict[tuple, Template | None] = field(default_factory=dict)
    labels: dict[str, frozenset[tuple[str, int]]] = field(default_factory=dict)
    # lowerings: leaves lowered the ordinary way; templates: lowered with sentinels;
    # instances: leaves made by substitution
    stats: dict[str, int] = field(
        default_factory=lambda: {"lowerings": 0, "templates": 0, "instances": 0})

    def lower(self, leaf: Leaf, key: tuple) -> tuple[LeafBuilder, Process]:
        """Return the builder and process of ``leaf`` (whose cache key in the system
        builder is ``key``): by instantiating its template when it has one."""
        shape = self._shape(leaf)
        if shape is None:
            return self._lower(leaf)
        tkey, env, values, sentinels = shape
        full = (tkey, *key[2:])
        if full not in self.templates:
            self.templates[full] = self._template(leaf, env, sentinels)
        template = self.templates[full]
        if template is None:
            return self._lower(leaf)
        builder, process = instantiate(template, leaf, values)
        if not template.verified:
            # The first instance is also lowered the ordinary way: they must agree.
            concrete = self._lower(leaf)
            if (concrete[1] != process
                    or concrete[0].syntactic_events != builder.syntactic_events
                    or concrete[0].dynamic_events != builder.dynamic_events):
                self.templates[full] = None
                return concrete
            template.verified = True
        self.stats["instances"] += 1
        return builder, process

    def _lower(self, leaf: Leaf) -> tuple[LeafBuilder, Process]:
        self.stats["lowerings"] += 1
        return build_leaf(self.low, leaf)

    def _shape(
        self, leaf: Leaf
    ) -> tuple[tuple, Env, tuple[int, ...], tuple[int, ...]] | None:
        """Return (template key, sentinel env, values, their sentinels) of a leaf that is a call whose
        label arguments are index or parameter names bound to integers; None if
        it has none (or hides events: a hidden name would compare the value)."""
        term = leaf.term
        if not isinstance(term, s.ProcRef) or leaf.hidden or not term.args:
            return None
        labels = self.labels.get(term.name)
        if labels is None:
            labels = self.labels[term.name] = label_parameters(self.low, term.name)
        bound = dict(leaf.env)
        names: list[str] = []
        for q, arg in enumerate(term.args):
            if (term.name, q) not in labels:
                continue
            # Every label argument is a sentinel (a value written otherwise could
            # equal another label's value: the equality pattern below would miss it).
            v = bound.get(arg.name) if isinstance(arg, s.SName) else None
            if not isinstance(v, Const) or isinstance(v.value, bool) or not isinstance(
                    v.value, int):
                return None
            names.append(arg.name)
        if not names:
            return None
        # Each such name must appear in no other argument (its value would be computed).
        written: dict[str, int] = {}
        for arg in term.args:
            found: set[str] = set()
            _names(arg, found)
            for n in found:
                written[n] = written.get(n, 0) + 1
        names = list(dict.fromkeys(names))
        if any(written.get(n) != 1 for n in names):
            return None
        # Equal values share a sentinel (they are one configuration in the lowering).
        distinct: dict[int, int] = {}
        env_items = []
        for k, v in leaf.env:
            if k in names:
                assert isinstance(v, Const)
                j = distinct.setdefault(int(v.value), len(distinct))
                env_items.append((k, Const(SENTINEL - j, v.span)))
            else:
                env_items.append((k, v))
        env: Env = tuple(env_items)
        sentinels = tuple(SENTINEL - j for j in range(len(distinct)))
        return (id(term), env), env, tuple(distinct), sentinels

    def _template(self, leaf: Leaf, env: Env, sentinels: tuple[int, ...]) -> Template | None:
        t_leaf = dataclasses.replace(leaf, env=env)
        self.stats["templates"] += 1
        builder, process = build_leaf(self.low, t_leaf)
        if builder.work:
            # unfolded lazily (leaf.py): its builder goes on unfolding its own leaf, so
            # instances could not share it; the template is dropped with its builder
            self.low.lazy_builders.pop(lazy_key(t_leaf), None)
            return None
        if builder.nested or builder.handovers:
            return None
        return Template(builder, process, sentinels)


def instantiate(
    template: Template, leaf: Leaf, values: tuple[int, ...]
) -> tuple[LeafBuilder, Process]:
    """Return the builder and process of ``leaf``: ``template``'s with each sentinel
    replaced by its value in event components and event names."""
    by_sentinel = dict(zip(template.sentinels, values, strict=False))
    texts = {str(k): str(v) for k, v in by_sentinel.items()}

    def event(ev: Event) -> Event:
        if not any(isinstance(c, Const) and c.value in by_sentinel for c in ev.components):
            return ev
        return Event(ev.base, tuple(
            Const(by_sentinel[c.value], c.span)
            if isinstance(c, Const) and c.value in by_sentinel else c
            for c in ev.components), ev.span)

    edges: list[Edge] = []
    for e in template.process.edges:
        if e.event is not None:
            ev = event(e.event)
            if ev is not e.event:
                e = _replaced(e, "event", ev)
        edges.append(e)
    process = _replaced(
        _replaced(template.process, "name", leaf.name), "edges", tuple(edges))
    builder = LeafBuilder.__new__(LeafBuilder)
    builder.__dict__.update(template.builder.__dict__)  # a shallow copy
    builder.leaf = leaf
    builder.syntactic_events = {
        ".".join(texts.get(part, part) for part in name.split("."))
        for name in template.builder.syntactic_events
    }
    builder.dynamic_events = [(event(ev), span) for ev, span in template.builder.dynamic_events]
    return builder, process


_FIELDS: dict[type, tuple[str, ...]] = {}


def _replaced(obj: Any, name: str, value: object) -> Any:
    """Return ``dataclasses.replace(obj, name=value)``, without its checks (a
    substitution per instance of thousands)."""
    cls = type(obj)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return cls(*[value if n == name else getattr(obj, n) for n in names])
