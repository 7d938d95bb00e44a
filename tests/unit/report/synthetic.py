"""Results shaped like ``bridge check --json`` output, built without running a check:
long lassos and many processes for the report's size tests."""

from __future__ import annotations

from typing import Any


def step(number: int, process: str, *, event: str | None = None, line: int = 3,
         changes: list[dict[str, Any]] | None = None,
         messages: list[dict[str, Any]] | None = None,
         processes: list[str] | None = None, barrier: list[str] | None = None
         ) -> dict[str, Any]:
    """Return one JSON step of ``process`` at ``model.csp:line``."""
    return {"event": event if event is not None else f"e{number}",
            "processes": processes or [process], "text": f"e{number}{{x = {number};}}",
            "location": f"model.csp:{line}:1", "file": "model.csp", "line": line,
            "column": 1, "changes": changes if changes is not None else
            [{"variable": "x", "old": number - 1, "new": number}],
            "stutter": False, "messages": messages or [], "barrier": barrier or []}


def outline(processes: int) -> dict[str, Any]:
    """Return the outline of ``processes`` instances of one two-location template."""
    template = {"name": "P", "parameters": ["i"], "initial": 0, "file": "model.csp",
                "line": 2,
                "locations": [{"id": 0, "labels": [], "initial": True, "file": "model.csp",
                               "line": 2},
                              {"id": 1, "labels": [], "initial": False, "file": "model.csp",
                               "line": 2}],
                "edges": [{"index": 0, "source": 0, "target": 1, "guard": "x < 5",
                           "comm": None, "event": "a.i", "effect": ["x = x + 1"],
                           "label": None, "fairness": None, "text": "a.i{x++}",
                           "file": "model.csp", "line": 2},
                          {"index": 1, "source": 1, "target": 0, "guard": None,
                           "comm": None, "event": "b.i", "effect": [], "label": None,
                           "fairness": None, "text": "b.i", "file": "model.csp",
                           "line": 3}]}
    return {"system": "Sys", "language": "csp",
            "instances": [{"name": f"P({i})", "process": "P"} for i in range(processes)],
            "processes": [template], "channels": [], "globals": [{"name": "x", "type": "int"}],
            "sources": {"model.csp": "var x = 0;\nP(i) = a.i{x++} -> b.i -> P(i);\n"
                                     "Sys() = ||| i:{0..N}@P(i);\n#assert Sys() |= []<> x;\n"}}


def long_lasso(prefix: int, loop: int, processes: int = 3) -> dict[str, Any]:
    """Return a violated result whose lasso has ``prefix`` + ``loop`` steps, taken by
    the processes in turn, with a weak-fairness witness that records positions."""
    names = [f"P({i})" for i in range(processes)]
    steps = [step(n, names[(n - 1) % processes], line=2 + n % 2) for n in range(1, prefix + loop + 1)]
    loop_steps = steps[prefix:]
    events = sorted({s["event"] for s in loop_steps})
    index = {e: k for k, e in enumerate(events)}
    return {
        "model": "model.csp", "system": "Sys", "number": 1, "assertion": "Sys() |= []<> x",
        "verdict": "violated", "reason": "acceptance cycle", "fairness": "weak",
        "states": prefix + loop, "transitions": prefix + loop, "seconds": 0.5,
        "trace": None,
        "lasso": {"prefix": {"initial": {"x": 0, **{f"{n}@": 0 for n in names}},
                             "steps": steps[:prefix]},
                  "loop": loop_steps,
                  "witness": {"fairness": "weak", "enabled_somewhere": events,
                              "enabled_everywhere": [], "engaged": events,
                              "explanation": "weak fairness: every action enabled in every "
                                             "state of the loop is engaged in it",
                              "enabled_at": [[index[s["event"]]] for s in loop_steps],
                              "engaged_at": [[index[s["event"]]] for s in loop_steps]}},
        "notes": [], "value": None, "outline": outline(processes),
    }
