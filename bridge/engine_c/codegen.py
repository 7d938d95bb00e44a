"""Generate one C translation unit per model from the IR (issue 12, DESIGN.md section 7).

The C twin of ``semantics/codegen.py`` and of the successor code that
``semantics/statespace.py`` generates in Python, with the architecture of SPIN's pan
and LTSmin's SpinS: the packed state vector of ``layout.py``, one C function per
control location of every process template (in a static system: per family of
instances whose code differs only in data, ``gen_families``; an instance that
synchronises on its events or hides them keeps its own), the successor function
of the whole system (local steps, Promela process death, CSP# barriers as precomputed
synchronisation vectors, rendezvous, deferred ``else`` and ``timeout`` options, atomic
filters), the property expressions and propositions, and the search core
(``templates/c/*.c``) in the same unit so the compiler can inline the next-state code
into the search.

Every choice mirrors the Python engine, in the same order, so both engines expand the
same successors in the same order: state and transition counts, verdicts and traces
agree. A construct this generator does not translate raises ``CUnsupported`` with the
reason; ``supports`` turns that into a refusal, and the Python engine checks the model.
"""

from __future__ import annotations

from typing import Any

import jinja2

from bridge._resources import template_dir
from bridge.diagnostics import Span
from bridge.engine_c.gen_base import (
    _NO,
    MAX_PROCESSES,
    MAX_VECTOR_BYTES,
    CUnsupported,
    _c_string,
    _message_lengths,
    check_known_fields,
    starts_processes,
)
from bridge.engine_c.gen_events import CspEvents
from bridge.engine_c.gen_expressions import Expressions
from bridge.engine_c.gen_families import Families, family_shapes
from bridge.engine_c.gen_library import LibraryValues, mixed_variables
from bridge.engine_c.gen_statements import Statements
from bridge.engine_c.gen_tables import Tables
from bridge.engine_c.layout import (
    KINDS,
    Kind,
    PackedLayout,
    pack_layout,
)
from bridge.ir import (
    Expr,
    SourceLanguage,
)
from bridge.semantics.codegen import (
    Generator,
)
from bridge.semantics.statespace import CompiledStateSpace


class CGenerator(Expressions, LibraryValues, Statements, CspEvents, Tables, Families):
    """Builds the C source of one system (see the module docstring)."""

    def __init__(self, space: CompiledStateSpace, expressions: list[Expr]) -> None:
        self.space = space
        self.system = space.system
        self.layout = space.layout
        self.language = self.system.language
        self.csp = self.language is SourceLanguage.CSP
        self.promela = self.language is SourceLanguage.PROMELA
        check_known_fields(self.system)  # before the layout: a new construct may add slots
        self.mixed = mixed_variables(self.system)
        self.packed: PackedLayout = pack_layout(self.layout, self.mixed.keys)
        self.pygen = Generator(self.layout)  # constant folding, exactly as in Python
        self._counter = 0
        self.functions: list[str] = []  # C function definitions
        self.helpers: set[str] = set()  # runtime helpers added on first use (lib_pow)
        self.prototypes: list[str] = []
        self.channel_tables: list[str] = []
        self.family_tables: list[str] = []  # gen_families: per-instance data of shared code
        self.own_code_instances = 0  # gen_families: static instances with code of their own
        self.shapes = family_shapes(self.system, self.layout)
        self.expressions = expressions
        self.expression_ok: list[bool] = []
        if self.layout.dynamic and self.system.max_instances > MAX_PROCESSES:
            raise CUnsupported(f"more than {MAX_PROCESSES} processes")
        max_seg = max((s.size for s in self.packed.segments), default=0)
        if self.layout.dynamic and starts_processes(self.system):
            self.max_vector = self.packed.static_bytes + min(
                self.system.max_instances, MAX_PROCESSES) * max_seg
        else:
            self.max_vector = self.packed.static_bytes + sum(
                self.packed.segments[t].size for t in self.layout.initial_templates)
        if self.max_vector > MAX_VECTOR_BYTES:
            raise CUnsupported(f"a state vector of up to {self.max_vector} bytes "
                               f"(the C store takes at most {MAX_VECTOR_BYTES})")
        self.max_fields = max([len(c.fields) for c in self.system.channels]
                              + [len(c.fields) for p in self.system.processes
                                 for c in p.channels] + [1] + _message_lengths(self.system))
        self.static_bases: list[int] = []
        if not self.layout.dynamic:
            b = self.packed.static_bytes
            for t in self.layout.initial_templates:
                self.static_bases.append(b)
                b += self.packed.segments[t].size
        self.event_names: dict[str, int] = {}
        self._sent_kinds: Any = None  # gen_events._sent_chans
        self._tagged = {c.id for c in self.layout.channels if c.channel.arity_tag}
        self.mixed_blocks: set[str] = set()  # gen_library.library_block: no initial value
        self.check_mixed()
        self.prototypes += ["static int32_t br_evname(ctx_t *, const char *, int, const V *, "
                            "const char *);",
                            "static int32_t br_chev(ctx_t *, V, char, const V *, int);"]
        self.vector_tables: tuple[list[int], list[int]] = ([0], [])
        # CSP# barriers combined at run time (more vectors than the Python engine
        # precomputes: gen_tables.runtime_barriers_code)
        self.runtime_barriers = False
        self.edge_ids: list[int] = []
        n = 0
        for p in self.system.processes:
            self.edge_ids.append(n)
            n += len(p.edges)

    # ------------------------------------------------------------------ helpers

    def fresh(self, prefix: str = "_v") -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def fold(self, e: Expr) -> Any:
        v = self.pygen.fold(e)
        return _NO if v is self._pyno() else v

    @staticmethod
    def _pyno() -> Any:
        from bridge.semantics import codegen as _pycodegen

        return _pycodegen._NO

    def unsupported(self, span: Span | None, what: str) -> CUnsupported:
        where = f" at {span}" if span is not None else ""
        return CUnsupported(f"{what}{where}")

    def static_kind(self, slot: int) -> Kind:
        return self.packed.static_kinds[slot]

    def static_off(self, slot: int) -> int:
        return self.packed.static_offsets[slot]

    def read_static(self, src: str, slot: int) -> str:
        return f"rd_{self.static_kind(slot).name}({src}, {self.static_off(slot)})"

    def loc_read(self, src: str, base: str, tpl: int) -> str:
        seg = self.packed.segments[tpl]
        return f"rd_{seg.kinds[0].name}({src}, {base} + {seg.offsets[0]})"

    # ------------------------------------------------------------------ the unit

    def process_words(self) -> int:
        """Return the 64-bit words of a process set: enough for every instance."""
        lay = self.layout
        count = min(self.system.max_instances, MAX_PROCESSES) if lay.dynamic \
            else len(lay.initial_templates)
        return max(1, (count + 63) // 64)

    def source(self) -> str:
        """Return the whole C translation unit."""
        succ = self.successors_code()
        structure = self.structure_code()
        chans = self.channel_tables_code()
        runs = self.run_code()
        provided = self.provided_code()
        exprs = self.expression_code()
        events = self.events_code()
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template_dir())),
                                 keep_trailing_newline=True, autoescape=False,
                                 undefined=jinja2.StrictUndefined)
        static = {name: (template_dir() / "c" / name).read_text(encoding="utf-8")
                  for name in ("runtime.h", "library.c", "store.c", "search_bfs.c", "symmetry.c",
                                   "search_refine.c", "search_ltl.c")}
        return env.get_template("c/model.c.j2").render(
            model=self.system.name.replace("*/", "* /"),
            max_vector=self.max_vector,
            max_fields=self.max_fields,
            static_bytes=self.packed.static_bytes,
            hidden_bytes=self.packed.hidden_bytes,
            fixed=0 if self.layout.dynamic else self.max_vector,
            pwords=self.process_words(),
            pslots=256 if self.layout.dynamic else 1,
            runtime=static["runtime.h"], library=static["library.c"], store=static["store.c"],
            search=static["search_bfs.c"],
            symmetry=static["symmetry.c"], search_refine=static["search_refine.c"],
            search_ltl=static["search_ltl.c"],
            structure="\n".join(structure), channels="\n".join(self.channel_tables + chans),
            prototypes="\n".join(self.prototypes),
            families="\n".join(self.family_tables),
            runs="\n".join(runs), provided="\n".join(provided),
            functions="\n\n".join(self.functions), successors="\n".join(succ),
            expressions="\n".join(exprs), events="\n".join(events),
            edge_bases=", ".join(map(str, self.edge_ids)) or "0",
            atomic_edges="\n".join(self.atomic_edges_code()),
        )


# The comment that opens the fair search's code (``templates/c/search_ltl.c``), the last
# section of the unit: the source before it is the library of the breadth-first searches
# alone (``lean_source``). Only template text follows it, never model text.
LTL_SECTION = "/* ---- the fair emptiness check of LTL properties (templates/c/search_ltl.c) ---- */"


def lean_source(source: str) -> str:
    """Return ``source`` without the fair search's code: the unit of a library that
    explores and checks the non-LTL properties only (``search_bfs.c``). That code is
    about three quarters of what the compiler spends on a small model."""
    cut = source.rfind(LTL_SECTION)
    if cut < 0:
        raise ValueError("the generated unit has no fair search section")
    return source[:cut]


def generate(space: CompiledStateSpace, expressions: list[Expr]
             ) -> tuple[str, list[bool], PackedLayout, int]:
    """Return (C source, which expressions were translated, packed layout, how many
    process templates or static instances got code of their own) of a compiled Python
    state space; raises ``CUnsupported`` naming what cannot be translated. The last is
    what the compiler's time grows with: instances sharing a family's code
    (``gen_families``) are not counted; a template of a dynamic layout is."""
    gen = CGenerator(space, expressions)
    source = gen.source()
    own = len(gen.layout.processes) if gen.layout.dynamic else gen.own_code_instances
    return source, gen.expression_ok, gen.packed, own


__all__ = ["KINDS", "LTL_SECTION", "CUnsupported", "_c_string", "check_known_fields", "generate",
           "lean_source"]

