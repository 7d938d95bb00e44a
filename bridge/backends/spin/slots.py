"""Process creation (``run``) in the explicit-pc style: one fixed *slot* per ``run``.

The explicit-pc style (``explicit.py``) gives every instance global variables (``pc_<i>``,
its locals) and lists every step of the system as one option, so it needs the set of
instances before the model runs. A Promela ``run P(args)`` that is executed at most
once in any run of the model can have such a slot: an instance of ``P`` that exists
from the start but is *not alive* (its pc holds a value no edge leaves from) until the
``run`` wakes it with its arguments. That covers the usual ``init { run A(); run B()
... }`` of Promela models, the population protocols of paper 003 among them.

Exactly as in the native engine (semantics/state.py, promela-spin.md section 6) a
process gets as pid the number of live processes when it starts, and only the youngest
live process may die. Live pids are therefore always ``0 .. n-1`` in creation order, so
if the slots are numbered in the only order in which their ``run`` statements can
execute, the pid of slot ``k`` while it lives is the number of live instances before
it: a state predicate, no bookkeeping needed. ``plan_slots`` finds that order or
refuses the model, naming the construct:

* every ``run`` must be in the code of a process that is one static instance (not a
  process that is itself started by ``run``, and not a proctype with several active
  instances);
* no ``run`` may be reachable from itself in that process's control graph, nor sit in
  a loop inside a ``d_step`` (it could then execute twice).

Two ``run`` statements that cannot reach each other are on alternative branches and
never both execute; any order between them is then correct.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge.diagnostics import UnsupportedError
from bridge.ir.expr import If, Run, Stmt, While
from bridge.ir.model import Edge, Instance, Process, TransitionSystem

__all__ = ["Slot", "plan_slots"]


@dataclass(frozen=True)
class Slot:
    """The instance a ``run`` statement starts: its index among all instances (static
    instances first), the statement, and the static instance that executes it."""

    instance: int
    run: Run
    creator: int


def plan_slots(system: TransitionSystem) -> tuple[list[Instance], dict[int, Slot]]:
    """Return the instances the ``run`` statements of ``system`` start (in creation
    order, numbered after the static instances) and the slot of each ``run`` statement
    by ``id()``; raise ``UnsupportedError`` where a ``run`` may execute more than once
    or where the creation order is not fixed."""
    creators: dict[str, list[int]] = {}
    for i, inst in enumerate(system.instances):
        creators.setdefault(inst.process, []).append(i)
    ordered: list[tuple[int, Run]] = []  # (creator instance, run) in creation order
    for process in system.processes:
        runs = _runs_in_order(process)
        if not runs:
            continue
        first = runs[0]
        owners = creators.get(process.name, [])
        if len(owners) != 1:
            why = ("a process that is itself started by run" if not owners
                   else f"a proctype with {len(owners)} instances")
            raise UnsupportedError.at(
                first.span, f"'run {first.proctype}' in {why} (explicit-pc style: each run "
                "needs a fixed instance slot)")
        if ordered:
            raise UnsupportedError.at(
                first.span, f"'run {first.proctype}': runs in more than one process start "
                "processes in an order fixed only at run time (explicit-pc style)")
        ordered = [(owners[0], r) for r in runs]
    slots: dict[int, Slot] = {}
    extra: list[Instance] = []
    for creator, run in ordered:
        if system.process(run.proctype) is None:
            raise UnsupportedError.at(run.span, f"run of unknown process '{run.proctype}'")
        k = len(system.instances) + len(extra)
        slots[id(run)] = Slot(k, run, creator)
        extra.append(Instance(run.proctype, run.args, f"{run.proctype}[{k}]", run.span))
    return extra, slots


def _runs_in_order(process: Process) -> list[Run]:
    """Return the ``run`` statements of ``process`` on reachable edges, each once, in
    the order in which they can execute (refusing any that may execute twice)."""
    out_edges: dict[int, list[Edge]] = {}
    for e in process.edges:
        out_edges.setdefault(e.source, []).append(e)
    reach_from: dict[int, set[int]] = {}

    def reachable(start: int) -> set[int]:
        seen = reach_from.get(start)
        if seen is None:
            seen, stack = {start}, [start]
            while stack:
                for e in out_edges.get(stack.pop(), []):
                    if e.target not in seen:
                        seen.add(e.target)
                        stack.append(e.target)
            reach_from[start] = seen
        return seen

    live = reachable(process.initial)
    found: dict[int, tuple[Run, Edge]] = {}
    order_in_edge: dict[int, int] = {}
    for e in process.edges:
        if e.source not in live:
            continue
        for pos, run in enumerate(_effect_runs(e.effect)):
            found.setdefault(id(run), (run, e))
            order_in_edge.setdefault(id(run), pos)
    items = list(found.values())
    for run, e in items:
        if e.source in reachable(e.target):
            raise UnsupportedError.at(
                run.span or e.span, f"'run {run.proctype}' in a loop (explicit-pc style: "
                "each run needs one instance slot, so it may execute only once)")

    def before(a: tuple[Run, Edge], b: tuple[Run, Edge]) -> bool:
        """a executes before b whenever both execute."""
        if a[1] is b[1]:
            return order_in_edge[id(a[0])] < order_in_edge[id(b[0])]
        return b[1].source in reachable(a[1].target)

    # A linear extension of "before" (selection; the lists are short).
    result: list[Run] = []
    rest = items
    while rest:
        first = next(x for x in rest if not any(before(y, x) for y in rest if y is not x))
        result.append(first[0])
        rest = [x for x in rest if x is not first]
    return result


def _effect_runs(effect: tuple[Stmt, ...]) -> list[Run]:
    """Return the ``run`` statements of an edge effect in textual order; a ``run``
    inside a loop of a ``d_step`` is refused (it could execute several times)."""
    out: list[Run] = []
    stack: list[tuple[Stmt, bool]] = [(s, False) for s in reversed(effect)]
    while stack:
        s, in_loop = stack.pop()
        if isinstance(s, Run):
            if in_loop:
                raise UnsupportedError.at(
                    s.span, f"'run {s.proctype}' in a loop (explicit-pc style: each run "
                    "needs one instance slot, so it may execute only once)")
            out.append(s)
        elif isinstance(s, If):
            stack.extend((x, in_loop) for x in reversed(s.otherwise))
            for branch in reversed(s.branches):
                stack.extend((x, in_loop) for x in reversed(branch[1]))
        elif isinstance(s, While):
            stack.extend((x, True) for x in reversed(s.body))
    return out
