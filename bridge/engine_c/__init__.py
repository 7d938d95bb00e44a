"""The compiled engine (issue 12): the IR as one C translation unit per model, compiled
with the system C compiler into a cached shared library, with a C state store and
breadth-first search; the Python engine (``bridge.semantics``) stays the reference
semantics that every C result is checked against.

Rooms: may import ``ir``, ``semantics``, ``diagnostics`` and ``_resources``; only
``bridge.api`` imports this room.
"""

from bridge.engine_c.build import cache_dir, find_compiler
from bridge.engine_c.codegen import CUnsupported
from bridge.engine_c.driver import (
    CFallback,
    EngineDisagreement,
    SearchOptions,
    check_property_c,
    compile_model,
    explore_c,
    supports,
)

__all__ = ["CFallback", "CUnsupported", "EngineDisagreement", "SearchOptions", "cache_dir",
           "check_property_c", "compile_model", "explore_c", "find_compiler", "supports"]
