"""JSON forms of the IR and of results (``bridge show --json``, ``bridge check --json``).

Two forms:
- the *tagged* form of any IR value (``to_data``/``from_data``, ``dumps``/``loads``):
  every dataclass is an object with ``"$type"`` and its non-default fields, an enum is
  ``{"$enum": "Fairness", "value": "weak"}``, a frozenset ``{"$set": [...]}`` (sorted),
  tuples are lists. ``from_data(to_data(x)) == x`` for every IR value (tested), so a
  dump can be stored and read back;
- the *flat* form of a verdict (``verdict_to_json``), the one object per assertion that
  ``bridge check --json`` prints: model, assertion, verdict, states, transitions,
  seconds, trace and lasso as plain JSON for other tools. Each step has its source
  position (``location`` as ``file:line:col``, and ``file``/``line``/``column``), its
  channel ``messages`` and the participants of a CSP ``barrier``; a witness says where
  in the loop each action is enabled and engaged. With ``outline`` (``system_outline``)
  the object also carries the system's instances and processes as control-flow graphs,
  for ``bridge report``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any

from bridge import diagnostics
from bridge.ir import expr, model, property, types, verdict
from bridge.ir.model import TransitionSystem
from bridge.ir.printer import print_comm, print_event, print_expr, print_stmt, print_type
from bridge.ir.verdict import FairnessWitness, Lasso, Message, Trace, TraceStep, Verdict

__all__ = ["dumps", "from_data", "lasso_to_json", "loads", "system_outline", "to_data",
           "trace_to_json", "verdict_to_json"]


def _registry() -> tuple[dict[str, type], dict[str, type[enum.Enum]]]:
    classes: dict[str, type] = {}
    enums: dict[str, type[enum.Enum]] = {}
    for module in (diagnostics, types, expr, property, model, verdict):
        for name, value in vars(module).items():
            if not isinstance(value, type) or value.__module__ != module.__name__:
                continue
            if issubclass(value, enum.Enum):
                enums[name] = value
            elif dataclasses.is_dataclass(value):
                classes[name] = value
    return classes, enums


_CLASSES, _ENUMS = _registry()


def to_data(value: Any) -> Any:
    """Return ``value`` (IR node, verdict, tuple of them...) in the tagged JSON form."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return {"$enum": type(value).__name__, "value": value.value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if _CLASSES.get(name) is not type(value):
            raise TypeError(f"not an IR class: {type(value).__qualname__}")
        data: dict[str, Any] = {"$type": name}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if f.default is not dataclasses.MISSING and item == f.default:
                continue
            if (f.default_factory is not dataclasses.MISSING
                    and item == f.default_factory()):
                continue
            data[f.name] = to_data(item)
        return data
    if isinstance(value, tuple | list):
        return [to_data(item) for item in value]
    if isinstance(value, frozenset | set):
        items = [to_data(item) for item in value]
        return {"$set": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
    raise TypeError(f"cannot serialise {type(value).__qualname__}")


def from_data(data: Any) -> Any:
    """Return the IR value whose tagged form is ``data`` (the inverse of ``to_data``)."""
    if isinstance(data, list):
        return tuple(from_data(item) for item in data)
    if not isinstance(data, dict):
        return data
    if "$type" in data:
        cls = _CLASSES.get(data["$type"])
        if cls is None:
            raise ValueError(f"unknown IR class {data['$type']!r}")
        fields = {k: from_data(v) for k, v in data.items() if k != "$type"}
        return cls(**fields)
    if "$enum" in data:
        enum_class = _ENUMS.get(data["$enum"])
        if enum_class is None:
            raise ValueError(f"unknown IR enum {data['$enum']!r}")
        return enum_class(data["value"])
    if "$set" in data:
        return frozenset(from_data(item) for item in data["$set"])
    raise ValueError(f"untagged object in IR data: keys {sorted(data)}")


def dumps(value: Any, indent: int | None = 1) -> str:
    """Return the tagged JSON text of an IR value."""
    return json.dumps(to_data(value), indent=indent, sort_keys=True)


def loads(text: str) -> Any:
    """Return the IR value of tagged JSON text (see ``dumps``)."""
    return from_data(json.loads(text))


# ---------------------------------------------------------------------------------
# Flat verdict form


def _plain(value: Any) -> Any:
    """Return a JSON-safe copy of a model value (ints, bools, nested arrays)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _message_to_json(message: Message) -> dict[str, Any]:
    return {
        "channel": message.channel,
        "sender": message.sender,
        "receiver": message.receiver,
        "values": None if message.values is None else _plain(message.values),
    }


def _step_to_json(step: TraceStep) -> dict[str, Any]:
    span = step.span
    rendezvous = any(m.sender is not None and m.receiver is not None
                     for m in step.messages)
    return {
        "event": step.event,
        "processes": list(step.processes),
        "text": step.text,
        "location": None if span is None else str(span),
        "file": None if span is None else span.file,
        "line": None if span is None else span.line,
        "column": None if span is None else span.col,
        "changes": [{"variable": name, "old": _plain(old), "new": _plain(new)}
                    for name, old, new in step.changes],
        "stutter": step.stutter,
        "messages": [_message_to_json(m) for m in step.messages],
        # several processes moving together without a rendezvous: a CSP barrier
        "barrier": list(step.processes) if len(step.processes) > 1 and not rendezvous
        else [],
    }


def trace_to_json(trace: Trace) -> dict[str, Any]:
    """Return a finite run as ``{"initial": {name: value}, "steps": [...]}``."""
    return {
        "initial": {name: _plain(value) for name, value in trace.initial},
        "steps": [_step_to_json(step) for step in trace.steps],
    }


def _witness_to_json(witness: FairnessWitness) -> dict[str, Any]:
    return {
        "fairness": witness.fairness,
        "enabled_somewhere": list(witness.enabled_somewhere),
        "enabled_everywhere": list(witness.enabled_everywhere),
        "engaged": list(witness.engaged),
        "explanation": witness.explanation,
        "enabled_at": [list(units) for units in witness.enabled_at],
        "engaged_at": [list(units) for units in witness.engaged_at],
    }


def lasso_to_json(lasso: Lasso) -> dict[str, Any]:
    """Return an infinite run as ``{"prefix": trace, "loop": [steps], "witness": ...}``."""
    return {
        "prefix": trace_to_json(lasso.prefix),
        "loop": [_step_to_json(step) for step in lasso.loop],
        "witness": None if lasso.witness is None else _witness_to_json(lasso.witness),
    }


def verdict_to_json(result: Verdict, number: int | None = None,
                    model: str | None = None, assertion: str | None = None,
                    outline: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return the flat JSON object of one verdict (``bridge check --json``).

    ``model``: the model file's path (default: the system name); ``system`` is always
    the system name, ``number`` the assertion's 1-based position in the file,
    ``assertion`` its text as written (default: the verdict's property). ``outline``
    (``system_outline``), when given, is added under the key ``outline``.
    """
    statistics = result.statistics
    extra = {} if outline is None else {"outline": outline}
    return {
        "model": model if model is not None else result.model,
        "system": result.model,
        "number": number,
        "assertion": assertion if assertion is not None else result.property,
        "verdict": result.outcome.value,
        "reason": result.reason,
        "fairness": result.fairness,
        "states": statistics.states,
        "transitions": statistics.transitions,
        "seconds": round(statistics.seconds, 6),
        "trace": None if result.trace is None else trace_to_json(result.trace),
        "lasso": None if result.lasso is None else lasso_to_json(result.lasso),
        "notes": list(result.notes),
        "value": _plain(result.value),
        "refusal": None if result.refusal is None else list(result.refusal),
        "statistics": {"peak_memory_bytes": statistics.peak_memory_bytes,
                       "depth": statistics.depth,
                       **{str(k): _plain(v) for k, v in statistics.extra}},
        **extra,
    }


def _position(span: Any) -> dict[str, Any]:
    if span is None:
        return {"file": None, "line": None}
    return {"file": span.file, "line": span.line}


def system_outline(system: TransitionSystem,
                   sources: dict[str, str] | None = None) -> dict[str, Any]:
    """Return the system's structure as plain JSON, for reports.

    ``instances``: the initial process instances (``name`` as traces print it,
    ``process`` the template); ``processes``: each template as a control-flow graph,
    its locations (id, labels, flags) and edges (source, target, guard, channel
    operation, event, effect as text, source position), as SPIN's automaton view shows
    a proctype; ``channels`` and ``globals`` by name; ``sources``: the text of the
    model's source files when given (file name -> text), so the report links each step
    to its line without the files at hand.
    """
    processes = []
    for process in system.processes:
        locations = [{
            "id": loc.id,
            "labels": list(loc.labels),
            "initial": loc.id == process.initial,
            **{flag: True for flag in ("atomic", "end", "terminal", "accept", "progress")
               if getattr(loc, flag)},
            **_position(loc.span),
        } for loc in process.locations]
        edges = [{
            "index": k,
            "source": e.source,
            "target": e.target,
            "guard": None if e.guard is None else print_expr(e.guard),
            "comm": None if e.comm is None else print_comm(e.comm),
            "event": None if e.event is None else print_event(e.event),
            "effect": [line for stmt in e.effect for line in print_stmt(stmt)],
            "label": e.label,
            "fairness": None if e.fairness is None else e.fairness.value,
            "text": e.text,
            **_position(e.span),
        } for k, e in enumerate(process.edges)]
        processes.append({"name": process.name, "parameters": list(process.parameters),
                          "initial": process.initial, "locations": locations,
                          "edges": edges, **_position(process.span)})
    return {
        "system": system.name,
        "language": system.language.value,
        "instances": [{"name": inst.name or f"{inst.process}({i})", "process": inst.process}
                      for i, inst in enumerate(system.instances)],
        "processes": processes,
        "channels": [{"name": c.name, "capacity": c.capacity} for c in system.channels],
        "globals": [{"name": v.name, "type": print_type(v.type)} for v in system.globals],
        "sources": dict(sources or {}),
    }
