"""Compose the asserted process into instances (cspsharp.md section 7).

``SystemBuilder`` unfolds an assertion target through ``|||``/``||`` (binary,
indexed, nested ones flattened) into a composition tree whose leaves become process
instances, with their alphabets, sequential prefixes and nested compositions.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field

from bridge.diagnostics import SemanticError, Span, UnsupportedError
from bridge.frontends.csp import syntax as s
from bridge.frontends.csp.configurations import (
    MAX_LOCATIONS,
    MAX_UNFOLD,
    TERMINATE,
    Env,
    Leaf,
    Nested,
    UnfoldingError,
    nested_unsupported,
    parks,
)
from bridge.frontends.csp.context import (
    Lowerer,
)
from bridge.frontends.csp.expressions import (
    Ctx,
)
from bridge.frontends.csp.leaf import (
    LeafBuilder,
)
from bridge.frontends.csp.template import TemplateCache
from bridge.frontends.csp.terms import all_terms
from bridge.ir import (
    Binary,
    BoolType,
    Composition,
    Const,
    Expr,
    Instance,
    InstanceRef,
    Interleave,
    IntType,
    Overflow,
    Parallel,
    Process,
    Var,
    Variable,
)


def leaves(node: Node, final: bool = False) -> list[Leaf]:
    """Return the leaves of ``node``; ``final``: only those that end it (not the prefix
    of a ``;`` node)."""
    out: list[Leaf] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.leaf is not None:
            out.append(n.leaf)
        if final and n.op == ";":
            stack.append(n.children[1])
        else:
            stack.extend(n.children)
    return out


@dataclass
class Node:
    """A composition node under construction: ``op`` "|||"/"||" or a leaf."""

    op: str | None
    children: list[Node] = field(default_factory=list)
    leaf: Leaf | None = None
    # a '||' node under hiding: its steps with these events are tau (ir.Parallel)
    hidden: frozenset[str] = frozenset()
    hidden_bases: frozenset[str] = frozenset()


def hide(node: Node, names: frozenset[str], bases: frozenset[str]) -> None:
    """Hide the events ``names`` (of base names ``bases``) in ``node`` (cspsharp.md
    section 7: ``P \\ A`` relabels P's steps with events in A as tau). Hiding
    distributes over '|||' and ';' (their operands never synchronise with each
    other), so it goes down to the leaves, which hide the events themselves; a '||'
    node keeps it, since its operands still synchronise on hidden events first."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.leaf is not None:
            n.leaf.hidden = n.leaf.hidden | names
            n.leaf.hidden_bases = n.leaf.hidden_bases | bases
        elif n.op == "||":
            n.hidden = n.hidden | names
            n.hidden_bases = n.hidden_bases | bases
        else:
            stack.extend(n.children)


class SystemBuilder:
    def __init__(self, low: Lowerer, target: s.Target) -> None:
        self.low = low
        self.target = target
        self.leaf_count = itertools.count(1)
        self.processes: dict[tuple, tuple[Process, LeafBuilder]] = {}
        # Leaves that differ only in label values are lowered once (template.py).
        self.templates = TemplateCache(low)
        self.instances: list[Instance] = []
        # Kept as the maps grow (a thousand nodes would otherwise rescan both lists at
        # every leaf): the process names taken, and per process its instances so far.
        self._names_taken: set[str] = set()
        self._instances_of: dict[str, list[int]] = {}
        self.instance_builders: list[LeafBuilder] = []
        self.instance_leaves: list[Leaf] = []
        self.gates = 0
        self.gate_vars: list[Variable] = []
        self._nesting: list[int] = []  # nested compositions being unfolded (term ids)
        self.owner: dict[int, int] = {}  # operand instance -> the instance that starts it
        # instance -> the events hidden by '||' nodes above it built so far (they are in
        # no alphabet above those nodes)
        self.hidden_below: dict[int, frozenset[str]] = {}
        # The '||' nodes built: the instances under each operand, and its alphabets.
        self.parallels: list[tuple[list[list[int]], list[frozenset[str]]]] = []

    def compose(self, term: s.Term, env: Env, def_name: str | None, depth: int = 0) -> Node:
        low = self.low
        if depth > MAX_UNFOLD:
            raise UnfoldingError.at(term.span, "process definition unfolds without end")
        if isinstance(term, s.ProcRef):
            d = low.definition(term)
            if is_composition(low, d.body):
                values: dict[str, Expr] = {}
                for p, arg in zip(d.params, term.args, strict=True):
                    v = low.expr(arg, Ctx(env=env))
                    if not isinstance(v, Const):
                        raise SemanticError.at(
                            arg.span,
                            f"argument of '{term.name}' must be a constant: it selects the "
                            "operands of a parallel composition",
                        )
                    values[p.name] = Const(v.value)
                return self.compose(d.body, tuple(sorted(values.items())), d.name, depth + 1)
            return self.leaf(term, env, d.name)
        if (
            isinstance(term, s.Binary) and term.op == ";"
            and is_composition(low, term.operands[-1])
        ):
            # ``Init(); (A ||| B)``: the prefix runs first; its last step hands over
            # (``Skip ; Q`` behaves as Q directly, so there is no extra step).
            # A composition inside the prefix is a nested one (the prefix leaf's).
            prefix_term = (
                term.operands[0] if len(term.operands) == 2
                else low.seq_prefix(term, len(term.operands) - 1)
            )
            prefix = self.leaf(prefix_term, env, def_name)
            rest = self.compose(term.operands[-1], env, def_name, depth + 1)
            return Node(";", [prefix, rest])
        if isinstance(term, s.Binary) and term.op in ("|||", "||"):
            node = Node(term.op)
            for op in term.operands:
                self._add_child(node, self.compose(op, env, def_name, depth + 1))
            return node
        if isinstance(term, s.Hiding) and is_composition(low, term.body):
            node = self.compose(term.body, env, def_name, depth + 1)
            for item in term.events:
                if item.event.name in low.channels:
                    raise UnsupportedError.at(
                        item.span, "unsupported construct: hiding channel events"
                    )
            names = frozenset(low.alphabet_items(term.events, env))
            bases = frozenset(item.event.name for item in term.events)
            hide(node, names, bases)
            return node
        if isinstance(term, s.Indexed) and term.op in ("|||", "||"):
            node = Node(term.op)
            if term.index.count is not None and term.op == "||":
                raise SemanticError.at(term.index.span, "'{n}' replication is only for '|||'")
            for e in low.index_envs(term.index, env):
                self._add_child(node, self.compose(term.body, e, def_name, depth + 1))
            return node
        return self.leaf(term, env, def_name)

    @staticmethod
    def _add_child(node: Node, child: Node) -> None:
        if child.op == node.op and not child.hidden:
            node.children.extend(child.children)
        else:
            node.children.append(child)

    def leaf(self, term: s.Term, env: Env, def_name: str | None) -> Node:
        low = self.low
        if isinstance(term, s.ProcRef):
            shown = []
            for arg in term.args:
                v = low.expr(arg, Ctx(env=env))
                shown.append(str(int(v.value)) if isinstance(v, Const) and not isinstance(
                    v.value, bool) else (str(v.value).lower() if isinstance(v, Const) else "?"))
            name = f"{term.name}({', '.join(shown)})"
            def_name = term.name
        else:
            name = f"{def_name or 'P'}.{next(self.leaf_count)}"
        return Node(None, leaf=Leaf(term, env, name, def_name, term.span))

    def build_node(self, node: Node) -> tuple[Composition, list[int]]:
        """Return the composition of ``node`` and the instance ids under it."""
        if node.leaf is not None:
            leaf = node.leaf
            leaf.fresh_global = self._fresh_global
            key = (id(leaf.term), leaf.env, leaf.gate, leaf.gate_set, leaf.hidden, leaf.park)
            cached = self.processes.get(key)
            if cached is not None and cached[1].nested:
                # Its nested compositions have their own operands and globals.
                key = (*key, len(self.instances))
                cached = None
            if cached is None:
                builder, process = self.templates.lower(leaf, key)
                names = self._names_taken
                if process.name in names:
                    k = 2
                    while f"{process.name}#{k}" in names:
                        k += 1
                    process = dataclasses.replace(process, name=f"{process.name}#{k}")
                self.processes[key] = (process, builder)
                names.add(process.name)
            process, builder = self.processes[key]
            iid = len(self.instances)
            siblings = self._instances_of.setdefault(process.name, [])
            same = len(siblings)
            siblings.append(iid)
            iname = process.name if same == 0 else f"{process.name}[{same}]"
            if same == 1:
                first = siblings[0]
                self.instances[first] = dataclasses.replace(
                    self.instances[first], name=f"{process.name}[0]"
                )
            self.instances.append(Instance(process.name, (), iname, leaf.span))
            self.instance_builders.append(builder)
            self.instance_leaves.append(leaf)
            comp: Composition = InstanceRef(iid)
            ids = [iid]
            for rec in builder.nested.values():
                comp, more = self._nested_node(comp, iid, process, builder, rec, leaf)
                ids.extend(more)
            return comp, ids
        if node.op == ";":
            prefix, rest = node.children
            assert prefix.leaf is not None
            gate = self._fresh_global("_started")
            prefix.leaf.gate_set = gate
            self.gate_vars.append(
                Variable(gate, BoolType(), Const(False), span=prefix.leaf.span)
            )
            first, first_ids = self.build_node(prefix)
            # The rest starts when the prefix's last step sets the flag, or when a
            # composition that ends the prefix has ended (no step of its own).
            start: Expr = Var(gate, "global")
            for handover in self.instance_builders[first_ids[0]].handovers:
                start = Binary("||", start, handover)
            for leaf in leaves(rest):
                leaf.gate = start
                leaf.behind_prefix = True
            second, second_ids = self.build_node(rest)
            return Interleave((first, second)), first_ids + second_ids
        parts = [self.build_node(c) for c in node.children]
        children = tuple(c for c, _ in parts)
        ids = [i for _, xs in parts for i in xs]
        terminating = any(self.instance_builders[i].can_terminate for i in ids)
        if node.op == "|||":
            if terminating and len(children) > 1:
                return Parallel(children, tuple(frozenset({TERMINATE}) for _ in children)), ids
            return Interleave(children), ids
        alphabets = []
        unknown: list[dict[str, tuple[int, Span | None]]] = []
        for _, xs in parts:
            alpha: set[str] = set()
            dynamic: dict[str, tuple[int, Span | None]] = {}
            inside = set(xs)
            for i in xs:
                source = self._alphabet_source(i, inside)
                alpha |= self.alphabet(source) - self.hidden_below.get(i, frozenset())
                for base, span in self.dynamic_bases(source).items():
                    dynamic.setdefault(base, (source, span))
            if terminating:
                alpha.add(TERMINATE)
            alphabets.append(frozenset(alpha))
            unknown.append(dynamic)
        self._check_dynamic_alphabets(alphabets, unknown)
        self.parallels.append(([xs for _, xs in parts], alphabets))
        if node.hidden:
            for dynamic in unknown:
                for base, (_, span) in dynamic.items():
                    if base in node.hidden_bases:
                        raise UnsupportedError.at(
                            span, f"unsupported construct: hiding event '{base}' whose "
                            "components depend on the state")
            for i in ids:
                self.hidden_below[i] = self.hidden_below.get(i, frozenset()) | node.hidden
        return Parallel(children, tuple(alphabets), node.hidden), ids

    def final_checks(self) -> None:
        """Refuse a leaf unfolded lazily, with locations left unexpanded (unreachable),
        whose alphabet in a '||' is not known: PAT's alphabet has every event of the
        process's definition, the unreachable part's too. An event of another operand
        whose base name the leaf's definitions write but that its unfolded part does
        not offer would be a barrier in PAT (blocked forever) and is not one here."""
        for operands, alphabets in self.parallels:
            for k, ids in enumerate(operands):
                others = set().union(*(a for j, a in enumerate(alphabets) if j != k))
                for iid in ids:
                    builder = self.instance_builders[iid]
                    if not builder.work or self._declares_alphabet(iid):
                        continue
                    leaf = self.instance_leaves[iid]
                    written = event_bases(self.low, leaf.term)
                    for name in sorted(others - alphabets[k]):
                        if name.split(".", 1)[0] in written:
                            raise UnsupportedError.at(
                                leaf.span,
                                f"unsupported construct: process '{leaf.name}' is unfolded "
                                f"lazily (more than {MAX_LOCATIONS} control locations) and "
                                f"its alphabet in '||' is not known: its definition has "
                                f"events named '{name.split('.', 1)[0]}', which another "
                                f"operand synchronises on ('{name}')",
                                f"declare it with '#alphabet {leaf.def_name or leaf.name} "
                                "{ ... };'",
                            )

    def _check_dynamic_alphabets(
        self, alphabets: list[frozenset[str]],
        unknown: list[dict[str, tuple[int, Span | None]]],
    ) -> None:
        """Refuse an event with a state-dependent component in an operand of '||'
        (its name, hence whether it is a barrier, is known only at run time) unless no
        other operand has an event of the same base name: then it can never be shared,
        whatever the values, and interleaves (cspsharp.md section 7)."""
        for k, dynamic in enumerate(unknown):
            if not dynamic:
                continue
            others: set[str] = set()
            for j, alpha in enumerate(alphabets):
                if j != k:
                    others |= {name.split(".", 1)[0] for name in alpha}
                    others |= set(unknown[j])
            for base, (iid, span) in dynamic.items():
                if base in others:
                    leaf = self.instance_leaves[iid]
                    raise SemanticError.at(
                        span,
                        f"the alphabet of '{leaf.name}' in '||' cannot be computed: event "
                        f"'{base}' has a component that depends on the state, and another "
                        "operand has an event of that name",
                        f"declare it with '#alphabet {leaf.def_name or leaf.name} {{ ... }};'",
                    )

    def _fresh_global(self, base: str) -> str:
        """Return a new bookkeeping global name ``baseK`` that no declaration uses."""
        low = self.low
        while True:
            name = f"{base}{self.gates}"
            self.gates += 1
            if name not in low.globals and name not in low.constants and (
                name not in low.props and name not in low.channels
            ):
                return name

    def _nested_node(
        self, comp: Composition, owner: int, process: Process, builder: LeafBuilder,
        rec: Nested, leaf: Leaf,
    ) -> tuple[Composition, list[int]]:
        """Return ``comp`` (the leaf's composition so far) composed with the static
        instances of the nested composition ``rec``, and those instances' ids.

        The operands start dormant: the edges of their first location wait for
        ``rec.start`` (the flag set by the leaf's step that reaches the composition,
        or the end of the composition before it), so starting costs no step. "tail":
        ``Parallel`` on ``terminate`` with the leaf, whose only step there is its
        terminate (PAT's joint termination). "seq": the operands park at Skip,
        counting ``rec.join`` down, and at 0 the leaf's waiting location offers the
        continuation's steps (PAT's ``Sequence`` of a composition of Skips is its
        continuation, with no tau). Operands and leaf never run at the same time, and
        barriers between operands are those of the composition at top level
        (cspsharp.md section 7)."""
        term = rec.cfg[1]
        check_reached_once(process, builder, rec)
        if id(term) in self._nesting:
            raise nested_unsupported(term, "recursion (a process call cycle leads back to it)")
        self._nesting.append(id(term))
        try:
            node = self.compose(term, rec.cfg[2], leaf.def_name)
            for op_leaf in leaves(node):
                op_leaf.gate = rec.start
                op_leaf.nested_op = True
            # Under ';' the operands park on the composition's count-down; a leaf
            # that itself parks and ends in a composition hands its count to them.
            park = rec.join if rec.kind == "seq" else leaf.park
            if park is not None:
                for op_leaf in leaves(node, final=True):
                    op_leaf.park = park
            sub, ids = self.build_node(node)
        finally:
            self._nesting.pop()
        for i in ids:
            self.owner.setdefault(i, owner)
        if rec.flag is not None:
            self.gate_vars.append(Variable(rec.flag, BoolType(), Const(False), span=rec.span))
        if rec.kind == "tail":
            if leaf.park is not None:
                return Interleave((comp, sub)), ids
            both = frozenset({TERMINATE})
            return Parallel((comp, sub), (both, both)), ids
        assert rec.join is not None
        waiting = 0
        for i in ids:
            op_leaf = self.instance_leaves[i]
            if op_leaf.park != rec.join:
                continue
            if not parks(self.instance_builders[i].cfgs[0]):
                waiting += 1
            elif op_leaf.behind_prefix:
                # Done from its start, but only once the prefix has handed over:
                # the count cannot see that.
                raise UnsupportedError.at(
                    op_leaf.span,
                    "unsupported construct: an operand 'P; (Skip ||| ...)' of a "
                    "composition followed by ';' (a sequential prefix before operands "
                    "that are Skip)",
                )
        self.gate_vars.append(
            Variable(rec.join, IntType(0, waiting, Overflow.ERROR, "var"), Const(waiting),
                     span=rec.span)
        )
        return Interleave((comp, sub)), ids

    def _declares_alphabet(self, iid: int) -> bool:
        leaf = self.instance_leaves[iid]
        return leaf.def_name is not None and leaf.def_name in self.low.alphabets and (
            isinstance(leaf.term, s.ProcRef) or not leaf.nested_op
        )

    def _alphabet_source(self, iid: int, inside: set[int]) -> int:
        """Return the instance whose alphabet stands for ``iid`` in an operand made of
        the instances ``inside``: the outermost process, in that operand, whose nested
        composition created ``iid`` and that has an ``#alphabet``, else ``iid``."""
        best = iid
        j = iid
        while j in self.owner:
            j = self.owner[j]
            if j in inside and self._declares_alphabet(j):
                best = j
        return best

    def alphabet(self, iid: int) -> set[str]:
        leaf = self.instance_leaves[iid]
        builder = self.instance_builders[iid]
        if self._declares_alphabet(iid):
            decl = self.low.alphabets[leaf.def_name]
            env = leaf.env
            if isinstance(leaf.term, s.ProcRef):
                d = self.low.definition(leaf.term)
                vals = {}
                for p, arg in zip(d.params, leaf.term.args, strict=True):
                    vals[p.name] = self.low.expr(arg, Ctx(env=env))
                env = tuple(sorted(vals.items()))
            return self.low.alphabet_items(decl.items, env)
        return set(builder.syntactic_events)

    def dynamic_bases(self, iid: int) -> dict[str, Span | None]:
        """Return the base names of the events of ``iid`` whose names are known only at
        run time (a component depends on the state), with where each is written; none
        if the alphabet is declared."""
        if self._declares_alphabet(iid):
            return {}
        out: dict[str, Span | None] = {}
        for ev, span in self.instance_builders[iid].dynamic_events:
            out.setdefault(ev.base, span)
        return out


def event_bases(low: Lowerer, term: s.Term) -> set[str]:
    """Return the base names of the events written in ``term`` and in the definitions
    it reaches through process references."""
    out: set[str] = set()
    seen: set[str] = set()
    stack = [term]
    while stack:
        body = stack.pop()
        for t in all_terms([s.ProcDef("", (), body, body.span, body.span)]):
            if isinstance(t, s.EventPrefix) and not t.event.is_tau:
                out.add(t.event.name)
            elif isinstance(t, s.ProcRef) and t.name not in seen:
                seen.add(t.name)
                stack.append(low.definition(t).body)
    return out


def check_reached_once(process: Process, builder: LeafBuilder, rec: Nested) -> None:
    """Refuse the nested composition ``rec`` unless its operands exist exactly when
    PAT's term has them: the leaf's locations before it (reachable without entering
    it) and after it (reachable from it) are disjoint, only steps from before enter it,
    only steps from after reach its continuation, and the leaf cannot end before it.
    A composition started when a previous one ends ("chain") is checked with that one.
    """
    term = rec.cfg[1]
    locs = [i for i, c in enumerate(builder.cfgs) if c == rec.key]
    if not locs:
        return  # chained behind another composition (checked with that one)
    if len(locs) != 1:
        raise nested_unsupported(term, "two different continuations")
    if builder.alias_conflict is not None:
        raise nested_unsupported(
            term, "recursion, a loop or a choice (what follows it is also reached "
            "without it)"
        )
    target = locs[0]
    succ: dict[int, list[int]] = {loc.id: [] for loc in process.locations}
    for e in process.edges:
        succ[e.source].append(e.target)

    def reach(start: int, avoid: int | None) -> set[int]:
        seen = {start}
        stack = [start]
        while stack:
            x = stack.pop()
            for w in succ[x]:
                if w != avoid and w not in seen:
                    seen.add(w)
                    stack.append(w)
        return seen

    after = reach(target, None)
    before = set() if target == process.initial else reach(process.initial, target)
    for e in process.edges:
        if e.source in before and e.target != target and process.locations[e.target].terminal:
            raise nested_unsupported(
                term, "a choice (the process may end without starting it)"
            )
    if before & after:
        raise nested_unsupported(
            term, "a choice or loop (a part of the process is reached both before and "
            "after it)"
        )
    for e in process.edges:
        if e.target != target:
            continue
        if id(e) in builder.alias_edges:
            if e.source not in after:
                raise nested_unsupported(
                    term, "a choice (what follows it is also reached without it)"
                )
        elif e.source in after:
            raise nested_unsupported(term, "recursion or a loop (it may be reached twice)")


def is_composition(low: Lowerer, term: s.Term, depth: int = 0) -> bool:
    if isinstance(term, (s.Binary, s.Indexed)) and term.op in ("|||", "||"):
        return True
    if isinstance(term, s.Hiding):
        return is_composition(low, term.body, depth + 1)
    if isinstance(term, s.Binary) and term.op == ";":
        return is_composition(low, term.operands[-1], depth + 1)
    if isinstance(term, s.ProcRef) and depth < MAX_UNFOLD:
        d = low.defs.get(term.name)
        return d is not None and is_composition(low, d.body, depth + 1)
    return False
