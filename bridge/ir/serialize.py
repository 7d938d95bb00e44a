"""JSON forms of the IR and of results (``bridge show --json``, ``bridge check --json``).

Two forms:
- the *tagged* form of any IR value (``to_data``/``from_data``, ``dumps``/``loads``):
  every dataclass is an object with ``"$type"`` and its non-default fields, an enum is
  ``{"$enum": "Fairness", "value": "weak"}``, a frozenset ``{"$set": [...]}`` (sorted),
  tuples are lists. ``from_data(to_data(x)) == x`` for every IR value (tested), so a
  dump can be stored and read back;
- the *flat* form of a verdict (``verdict_to_json``), the one object per assertion that
  ``bridge check --json`` prints: model, assertion, verdict, states, transitions,
  seconds, trace and lasso as plain JSON for other tools.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any

from bridge import diagnostics
from bridge.ir import expr, model, property, types, verdict
from bridge.ir.verdict import FairnessWitness, Lasso, Trace, TraceStep, Verdict

__all__ = ["dumps", "from_data", "lasso_to_json", "loads", "to_data", "trace_to_json",
           "verdict_to_json"]


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


def _step_to_json(step: TraceStep) -> dict[str, Any]:
    return {
        "event": step.event,
        "processes": list(step.processes),
        "text": step.text,
        "location": None if step.span is None else str(step.span),
        "changes": [{"variable": name, "old": _plain(old), "new": _plain(new)}
                    for name, old, new in step.changes],
        "stutter": step.stutter,
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
    }


def lasso_to_json(lasso: Lasso) -> dict[str, Any]:
    """Return an infinite run as ``{"prefix": trace, "loop": [steps], "witness": ...}``."""
    return {
        "prefix": trace_to_json(lasso.prefix),
        "loop": [_step_to_json(step) for step in lasso.loop],
        "witness": None if lasso.witness is None else _witness_to_json(lasso.witness),
    }


def verdict_to_json(result: Verdict, number: int | None = None,
                    model: str | None = None, assertion: str | None = None
                    ) -> dict[str, Any]:
    """Return the flat JSON object of one verdict (``bridge check --json``).

    ``model``: the model file's path (default: the system name); ``system`` is always
    the system name, ``number`` the assertion's 1-based position in the file,
    ``assertion`` its text as written (default: the verdict's property).
    """
    statistics = result.statistics
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
    }
