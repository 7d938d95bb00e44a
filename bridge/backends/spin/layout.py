"""The body of one structured proctype: IR locations and edges back to Promela text
shaped like hand-written Promela, so that SPIN builds the same automaton and stores the
same states (issue 5 item 6: the round trip keeps pan's ``-DNOREDUCE`` count).

Rules (each checked against SPIN 6.5.2 on ``tests/models/promela``):

* A location with one incoming edge is *inlined* after the statement that leads to it:
  no label, no extra statement (a label is a possible jump target and stops SPIN from
  merging statements; on a constant ``assert`` it costs a state, m06). Branching
  locations become ``if`` with one option per edge; every other target is reached by
  ``goto`` (compiled away by SPIN).
* Atomic locations (``Location.atomic``: inside an atomic sequence, after its first
  statement) are written back as ``atomic { ... }`` blocks: an edge from an ordinary
  location into an inlined atomic location opens ``atomic { stmt; ...`` and the
  inlined atomic locations after it form the block. When every edge leaving the block
  goes to one location X that nothing else reaches, X follows the block's ``}`` (so
  ``atomic { a; b }; c`` comes out as written); otherwise an edge out of the block is a
  ``goto`` (a jump out of an atomic sequence ends it, as in SPIN). An atomic location
  reached from several places is a block of its own, ``atomic { false; L: ... }`` (SPIN
  refuses a label on the first statement of an atomic sequence), entered by
  ``goto`` from inside another block or by ``atomic { stmt; goto L }`` from outside.
* Locations that nothing reaches are left out (the atomic entry location the front-end
  copies onto its predecessor, for instance) unless the model labels them (a remote
  reference may name the label).
* The only step of a location, doing nothing and going back to it (a CSP# ``c -> R()``
  loop whose event carries no data), is written
  ``assert(1)``: pan refuses ``L: skip; goto L`` as an unconditional self-loop.
* One unlabelled terminal location reached from one root's code only is not written at
  all: that root goes last and its code falls through to the closing ``}`` (a
  ``L: ;`` would cost SPIN a state).

Nesting follows the model's own if/do nesting with a worklist, not recursion (a model
with thousands of statements in sequence must not hit Python's recursion limit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bridge.diagnostics import UnsupportedError
from bridge.ir.model import Edge, Process

__all__ = ["BodyWriter"]


@dataclass(frozen=True)
class BodyWriter:
    """Callbacks into the emitter: ``edge_text(e)`` is the Promela statement of an edge,
    ``tag(e, text)`` its source-map comment, ``labels(lid)`` every label of a location
    (its ``L<id>`` jump label included, first the ones SPIN gives meaning)."""

    edge_text: Callable[[Edge], str]
    tag: Callable[[Edge, str], str]
    labels: Callable[[int], list[str]]

    def body(self, process: Process) -> list[str]:
        """Return the lines of ``process``'s body (without the proctype header)."""
        return _Body(self, process).lines()


class _Body:
    def __init__(self, writer: BodyWriter, process: Process) -> None:
        self.w = writer
        self.p = process
        self.by_id = {loc.id: loc for loc in process.locations}
        self.out: dict[int, list[Edge]] = {lid: [] for lid in self.by_id}
        for e in process.edges:
            self.out[e.source].append(e)
        reach = {process.initial}
        stack = [process.initial]
        while stack:
            for e in self.out[stack.pop()]:
                if e.target not in reach:
                    reach.add(e.target)
                    stack.append(e.target)
        self.kept = [loc.id for loc in process.locations
                     if loc.id in reach or loc.labels]
        self.indegree = dict.fromkeys(self.by_id, 0)
        for lid in self.kept:
            for e in self.out[lid]:
                self.indegree[e.target] += 1
        self._blocks()

    # -- classification -----------------------------------------------------------
    def atomic(self, lid: int) -> bool:
        return self.by_id[lid].atomic

    def single_entry(self, t: int) -> bool:
        """A location that may be written right after its only incoming statement."""
        return (t != self.p.initial and self.indegree[t] == 1
                and not self.by_id[t].terminal and bool(self.out[t]))

    def _blocks(self) -> None:
        """Find the atomic blocks (start location -> the location after its ``}``,
        if any) and the set of inlined locations."""
        self.after: dict[int, int] = {}
        self.inlined: set[int] = set()
        starts: list[int] = []
        for lid in self.kept:
            if self.atomic(lid):
                if self.single_entry(lid):
                    self.inlined.add(lid)
                    if not any(self.atomic(e.source) for e in self.p.edges
                               if e.target == lid and e.source in self.kept):
                        starts.append(lid)
                elif self.out[lid]:
                    starts.append(lid)
            elif self.single_entry(lid):
                (pred,) = (e for s in self.kept for e in self.out[s] if e.target == lid)
                if not self.atomic(pred.source):
                    self.inlined.add(lid)
        for start in starts:
            members, stack = {start}, [start]
            exits: list[Edge] = []
            while stack:
                for e in self.out[stack.pop()]:
                    if not self.atomic(e.target):
                        exits.append(e)
                    elif e.target in self.inlined and e.target not in members:
                        members.add(e.target)
                        stack.append(e.target)
            targets = {e.target for e in exits}
            if len(targets) == 1:
                (x,) = targets
                if (x != self.p.initial and not self.by_id[x].terminal and self.out[x]
                        and self.indegree[x] == len(exits)):
                    self.after[start] = x
                    self.inlined.add(x)

    # -- writing ------------------------------------------------------------------
    def lines(self) -> list[str]:
        p = self.p
        roots = [p.initial] + [lid for lid in self.kept if lid != p.initial
                               and lid not in self.inlined
                               and not (self.by_id[lid].terminal and not self.out[lid])]
        terminal = [lid for lid in self.kept if self.by_id[lid].terminal
                    and lid not in roots and not self.out[lid]]
        self.fall_through: int | None = None
        if len(terminal) == 1 and not self.by_id[terminal[0]].labels:
            owners = {root for root in roots if self._reaches(root, terminal[0])}
            # Its owner goes last, unless the owner is the initial location with other
            # roots after it (the body must start at the initial location).
            if len(owners) == 1 and (p.initial not in owners or len(roots) == 1):
                self.fall_through = terminal[0]
                roots = [r for r in roots if r not in owners] + sorted(owners)
        out: list[str] = []
        for root in roots:
            self._root(root, out)
        for lid in terminal:
            if lid != self.fall_through:
                out.append(f"{': '.join(self.w.labels(lid))}: ;")
        return out

    def _reaches(self, root: int, target: int) -> bool:
        """Return True if ``root``'s code (itself and what is inlined in it) has an
        edge to ``target``."""
        seen, stack = set(), [root]
        while stack:
            lid = stack.pop()
            if lid in seen:
                continue
            seen.add(lid)
            for e in self.out[lid]:
                if e.target == target:
                    return True
                if e.target in self.inlined:
                    stack.append(e.target)
        return False

    def _root(self, root: int, out: list[str]) -> None:
        # Work items: ("loc", location, depth, block) writes a location (``block``: the
        # start of the atomic block it is in, or None); ("text", line) writes a line.
        if self.atomic(root) and root == self.p.initial:
            # A process cannot start inside an atomic sequence in Promela (the IR of a
            # Promela model never does; emit.py writes other models explicit-pc).
            raise UnsupportedError.at(
                self.by_id[root].span, f"process {self.p.name} starts inside an atomic "
                "sequence (structured style)")
        if self.atomic(root):
            # SPIN refuses a label on the first statement of an atomic sequence; the
            # never executable "false" before it costs no state (checked with pan).
            work: list[tuple] = [("close", root, 1), ("loc", root, 2, root),
                                 ("text", "  atomic { false;")]
        else:
            work = [("loc", root, 1, None)]
        while work:
            item = work.pop()
            if item[0] == "text":
                out.append(item[1])
            elif item[0] == "close":
                _, start, depth = item
                out.append("  " * depth + "};")
                if start in self.after:
                    work.append(("loc", self.after[start], depth, None))
            else:
                work.extend(reversed(self._location(*item[1:])))

    def _location(self, lid: int, depth: int, block: int | None) -> list[tuple]:
        pad = "  " * depth
        labels = self.w.labels(lid)
        if lid in self.inlined or self.indegree[lid] == 0:
            # Only labels the model names (or SPIN gives meaning) where no goto jumps.
            labels = [lab for lab in labels if lab != f"L{lid}"]
        edges = self.out[lid]
        head = [("text", f"{pad[:-2]}{': '.join(labels)}:")] if labels else []
        if not edges:
            return [*head, ("text", f"{pad}false;")]
        # A goto may not target the inside of a d_step: wrap a labelled d_step in a
        # one-option if (same state count in SPIN).
        single = len(edges) == 1 and not (
            labels and self.w.edge_text(edges[0]).startswith("d_step"))
        pending: list[tuple] = list(head)
        if not single:
            pending.append(("text", f"{pad}if"))
        for e in edges:
            lead = pad if single else f"{pad}:: "
            inner = pad if single else pad + "   "
            sub = depth + (0 if single else 2)
            text = self.w.edge_text(e)
            if e.target == lid and len(edges) == 1 and text in ("skip", "true", "(1)"):
                # pan refuses an unconditional self-loop ("has unconditional
                # self-loop"); assert(1) is the same do-nothing step to pan
                text = "assert(1)"
            tag = self.w.tag(e, text)
            t = e.target
            if block is None and self.atomic(t) and t in self.inlined:
                # Opens an atomic block: the statement, the block, what follows it.
                pending.append(("text", f"{lead}atomic {{"))
                pending.append(("text", f"{inner}  {text}; {tag}"))
                pending.append(("loc", t, sub + 1, t))
                pending.append(("close", t, sub))
                continue
            if block is None and self.atomic(t):
                pending.append(("text", f"{lead}atomic {{ {text}; goto L{t} }}; {tag}"))
                continue
            pending.append(("text", f"{lead}{text}; {tag}"))
            if t in self.inlined and (self.atomic(t) or block is None):
                pending.append(("loc", t, sub, block))
            elif t == self.fall_through or (block is not None and self.after.get(block) == t):
                pass  # falls through (to the end of the body, or out of the block)
            else:
                pending.append(("text", f"{inner}goto L{t};"))
        if not single:
            pending.append(("text", f"{pad}fi;"))
        return pending
