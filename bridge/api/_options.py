"""The options of ``bridge.api``'s verbs and the look-up of rooms (``_room``): what every
part of the api shares."""

from __future__ import annotations

import dataclasses
import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bridge.diagnostics import ConfigurationError
from bridge.ir.model import FairnessMark
from bridge.ir.property import Fairness
from bridge.ir.verdict import Statistics


class NotAvailableError(ConfigurationError):
    """A verb needs a room (front-end, engine, back-end) that this build does not have."""


# ---------------------------------------------------------------------------------
# Options


Progress = Callable[[int, int, float], None]
"""A callback ``progress(states, transitions, seconds)`` a long run calls now and then."""


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """Options of ``check``, ``explore`` and ``simulate``.

    ``fairness``: None takes the fairness written with the property, else none.
    ``annotations``: extra per-event fairness (``(FairnessMark.SF, "rule1.0.1")``).
    ``max_states``/``timeout`` (seconds) apply to each property separately.
    ``ignore_end_states``: a Promela deadlock at a non-end location is not an error
    (SPIN's ``-E``). ``por``/``symmetry``: ask for the reductions (used only where
    sound; the verdict's notes say when one was not used). ``counter_abstraction``:
    check LTL properties on the process counter abstraction (paper 002), counts above
    ``cutoff`` becoming omega; ``unbounded``: the process families are unbounded.
    ``engine``: ``auto`` (the compiled C engine when a C compiler is present and it
    supports the model and property, else the Python engine, with a note saying why),
    ``c`` (the C engine or a ``ConfigurationError`` saying why not) or ``python`` (the
    reference engine). ``max_memory``: bytes for the state store (C engine) or the
    process's resident memory (Python engine); reaching it is an UNKNOWN verdict.
    """

    fairness: Fairness | None = None
    annotations: tuple[tuple[FairnessMark, str], ...] = ()
    max_states: int | None = None
    timeout: float | None = None
    ignore_end_states: bool = False
    por: bool = False
    symmetry: bool = False
    counter_abstraction: bool = False
    cutoff: int | None = None
    unbounded: bool = False
    progress: Progress | None = None
    engine: str = "auto"
    max_memory: int | None = None


ENGINES = ("auto", "c", "python")


# ---------------------------------------------------------------------------------
# Rooms


def _room(module: str, attribute: str, what: str) -> Any:
    """Return ``module.attribute``, or raise ``NotAvailableError`` naming ``what``."""
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as error:
        missing = error.name or module
        if module == missing or module.startswith(missing + "."):
            raise NotAvailableError(f"{what} is not available in this build "
                                    f"(module {module} is missing)") from None
        raise NotAvailableError(f"{what} is not available: {module} needs the "
                                f"Python module {missing!r}, which is not installed") from None
    found = getattr(loaded, attribute, None)
    if found is None:
        raise NotAvailableError(f"{what} is not available in this build "
                                f"({module}.{attribute} is missing)")
    return found


def _options(cls: type, progress: Progress | None = None, **values: Any) -> Any:
    """Return ``cls(**values)``, plus ``progress`` when ``cls`` has such a field.

    The progress callback is an optional extra of the rooms' options; every other value
    is part of their fixed interface (COMMON.md), so a missing field is an error here,
    never silently dropped.
    """
    if progress is not None and dataclasses.is_dataclass(cls) and any(
            f.name == "progress" for f in dataclasses.fields(cls)):
        values["progress"] = progress
    return cls(**values)


def _remaining(options: CheckOptions, started: float) -> float | None:
    if options.timeout is None:
        return None
    return max(0.001, options.timeout - (time.perf_counter() - started))


def _tagged(statistics: Statistics, notes: list[str]) -> Statistics:
    extra = (("engine", "python"),) + tuple(("engine_note", n) for n in notes)
    return dataclasses.replace(statistics, extra=tuple(statistics.extra) + extra)
