"""The C generator's library values: calls of the operations of PAT's library classes
(``Set``, ``Queue``, ``Stack``, ``List``, ``HashTable``; ``ir/library.py``) and the
stores and comparisons of their values (the C twin of ``semantics/library.py``;
issue 12).

A library value lives in the state as an id of ``templates/c/library.c``'s table
(values interned by content: equal contents, equal ids, so the C state counts are the
Python engine's). The generator types every expression that yields such a value (a
variable of an ``ObjectType``, a call returning a class) and lets it go only where an id
means the same as the Python tuple: into a variable of that class, as the object or a
class argument of a library call, on either side of ``==``/``!=`` with another
library value (never equal to an int), into a block variable of that class, and as a
component of an event name (``gen_events.event_code``: rendered from the id).

Where Python puts one into a slot that holds ints too (a CSP# process parameter bound
to a set, a message of a channel that carries sets or whole arrays, the variable that
receives it: ``mixed_variables``), the slot keeps ids below ``BR_MIX_TOP`` and ints
from there up (``templates/c/library.c``), so ``==``, event names and the states the
driver turns back are Python's. Such a slot, or a library value, read as a number
(``Expressions.number``: ``mix_num``/``lib_num``) is an int, or the Python engine's
model error "value of the wrong kind" met in the same state; as a receive pattern on
an int-only channel it matches no message while it holds a library value. Processes
started at run time hold them as static instances do (``run_argument``,
``library_local``; their slots found per state: ``PackedLayout.value_slots``). Anywhere
else (a library local of such a process without an initial value, a channel known only
at run time) the model is refused by name, and the Python engine checks it. A channel declared in a
process is found by its name (every instance's channel of that name).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bridge.engine_c.gen_base import MAX_LOCAL_ARRAY, CUnsupported, _Ctx, _Place, flatten
from bridge.engine_c.layout import Segment
from bridge.ir import (
    ArrayType,
    Assign,
    Call,
    Conditional,
    Expr,
    Index,
    IntType,
    LocalVar,
    ObjectType,
    Overflow,
    Receive,
    RecvBind,
    RemoteVar,
    Run,
    Send,
    Stmt,
    TransitionSystem,
    Type,
    Var,
    Variable,
    scalar_count,
)
from bridge.ir.library import METHODS
from bridge.semantics.state import ProcessLayout

# The C code of each function of ``semantics/library.FUNCTIONS`` but the math ones:
# {0} is the object (or the first argument), {1}, {2} the others, as the IR passes them.
# ``tests/unit/engine_c/test_gen_library.py`` checks that every library function the IR
# can call has its line here.
_CLEAR = "((void)({0}), (V)0)"
C_FUNCTIONS: dict[str, str] = {
    "Set.Add": "((V)!lib_contains(c, {0}, {1}))",
    "Set.Add=": "lib_set_add(c, {0}, {1})",
    "Set.Remove": "lib_contains(c, {0}, {1})",
    "Set.Remove=": "lib_remove_all(c, {0}, {1})",
    "Set.Contains": "lib_contains(c, {0}, {1})",
    "Set.Count": "lib_count(c, {0})",
    "Set.Get": "lib_at(c, {0}, {1})",
    "Set.IsOverlapping": "lib_overlap(c, {0}, {1})",
    "Set.IsDisjoint": "((V)!lib_overlap(c, {0}, {1}))",
    "Set.Union": "((void)({0}), lib_set_op(c, {1}, {2}, 0))",
    "Set.Intersect": "((void)({0}), lib_set_op(c, {1}, {2}, 1))",
    "Set.Substract": "((void)({0}), lib_set_op(c, {1}, {2}, 2))",
    "Set.GetSubsetByIndex=": "lib_subset(c, {0}, {1})",
    "Queue.Enqueue=": "lib_append(c, {0}, {1})",
    "Queue.Dequeue": "lib_first(c, {0})",
    "Queue.Dequeue=": "lib_drop_first(c, {0})",
    "Queue.First": "lib_first(c, {0})",
    "Queue.Last": "lib_last(c, {0})",
    "Queue.Count": "lib_count(c, {0})",
    "Queue.Contains": "lib_contains(c, {0}, {1})",
    "Queue.Clear=": _CLEAR,
    "Stack.Push=": "lib_append(c, {0}, {1})",
    "Stack.Pop": "lib_last(c, {0})",
    "Stack.Pop=": "lib_drop_last(c, {0})",
    "Stack.Peek": "lib_last(c, {0})",
    "Stack.Count": "lib_count(c, {0})",
    "Stack.Contains": "lib_contains(c, {0}, {1})",
    "Stack.Clear=": _CLEAR,
    "List.Add=": "lib_append(c, {0}, {1})",
    "List.Insert=": "lib_insert(c, {0}, {1}, {2})",
    "List.Remove": "lib_contains(c, {0}, {1})",
    "List.Remove=": "lib_remove_first(c, {0}, {1})",
    "List.RemoveAt=": "lib_remove_at(c, {0}, {1})",
    "List.Get": "lib_at(c, {0}, {1})",
    "List.Contains": "lib_contains(c, {0}, {1})",
    "List.IndexOf": "lib_index_of(c, {0}, {1})",
    "List.Count": "lib_count(c, {0})",
    "List.Clear=": _CLEAR,
    "HashTable.Add=": "lib_table_add(c, {0}, {1}, {2})",
    "HashTable.Remove=": "lib_table_remove(c, {0}, {1})",
    "HashTable.ContainsKey": "((V)(lib_table_find(c, {0}, {1}, 0) >= 0))",
    "HashTable.ContainsValue": "((V)(lib_table_find(c, {0}, {1}, 1) >= 0))",
    "HashTable.GetValue": "lib_table_get(c, {0}, {1})",
    "HashTable.Count": "lib_table_count(c, {0})",
    "HashTable.Clear=": _CLEAR,
    **{f"{cls}.new": "((V)0)" for cls in METHODS},
}


def signature(function: str) -> tuple[tuple[str, ...], str] | None:
    """Return ``(parameter types, result type)`` of a library class function as the IR
    calls it (the object first; ``C.M=`` returns the new object, ``C.new`` takes
    nothing), or None for a function of no library class (``Math.*``)."""
    cls, _, method = function.partition(".")
    if cls not in METHODS:
        return None
    if method == "new":
        return (), cls
    op = METHODS[cls].get(method.rstrip("="))
    if op is None:
        return None
    return (cls, *op.params), cls if method.endswith("=") else op.result


MixKey = tuple[str, str]
"""A variable by scope and name: ``("global", name)`` or ``("local", name)``, or a
global channel, ``("channel", name)`` (a local
name stands for the local of that name in every process: a family of instances shares
its code, so every instance treats it alike)."""


@dataclass(frozen=True, slots=True)
class Mixed:
    """The int variables a library value may be stored into (``mixed_variables``):
    ``classes`` names them with the library classes of the values stored there (the
    other values stored there are ints: a bool is stored as 1 or 0)."""

    classes: dict[MixKey, frozenset[str]]
    lib_args: frozenset[int] = frozenset()  # id() of each library value sent

    @property
    def keys(self) -> frozenset[MixKey]:
        return frozenset(self.classes)

    def channel(self, name: str) -> bool:
        """Return True when global channel ``name``'s messages may carry a library
        value (every field of every message is then kept as a mixed slot is)."""
        return ("channel", name) in self.classes


ARRAY = frozenset({"array"})
"""The class ``mixed_variables`` gives a whole array sent in a message: the tuple of its
cells, interned in ``templates/c/library.c`` as a sequence (Python's tuple equals a
Queue's or a List's of the same ints)."""


def _root(e: Expr) -> Expr:
    while isinstance(e, Index):
        e = e.base
    return e


def _element(t: Type) -> Type:
    while isinstance(t, ArrayType):
        t = t.element
    return t


def mixed_variables(system: TransitionSystem) -> Mixed:
    """Return the variables of an int type that the Python engine may store a library
    value into (a CSP# process parameter bound to a set: ``Q(t) = ...`` called as
    ``Q(s)`` assigns ``t = s``): an assignment of a library value (a variable of a
    library class, a call returning one, a variable already found) to a variable that
    is not of a library class, iterated to a fixpoint. The C engine keeps such a
    variable in its int slot with the ids of ``templates/c/library.c`` in a range of
    their own (``BR_MIX_LIB``: below every int the slot may hold), so a slot tells an
    int from a library value as Python's ``==`` and ``str`` do."""
    globals_t = {v.name: v.type for v in system.globals}
    procs = []
    for p in system.processes:
        stmts = [st for e in p.edges
                 for st in ([e.comm] if e.comm is not None else []) + list(flatten(e.effect))
                 if isinstance(st, Assign | Send | Receive | Run)]
        blocks: dict[str, frozenset[str]] = {}
        for e in p.edges:
            for st in flatten(e.effect):
                if isinstance(st, LocalVar) and isinstance(st.type, ObjectType):
                    blocks[st.name] = blocks.get(st.name, frozenset()) | {st.type.library}
        procs.append(({v.name: v.type for v in p.locals}, blocks, stmts))
    classes: dict[MixKey, frozenset[str]] = {}

    def key(e: Expr, local_t: dict[str, Type], blocks: dict[str, frozenset[str]]
            ) -> MixKey | None:
        r = _root(e)
        if not isinstance(r, Var) or r.scope == "block" or (
                r.scope != "global" and r.name in blocks):
            return None
        t = globals_t.get(r.name) if r.scope == "global" else local_t.get(r.name, IntType())
        if t is None or isinstance(_element(t), ObjectType):
            return None
        return ("global" if r.scope == "global" else "local", r.name)

    def library(e: Expr, local_t: dict[str, Type], blocks: dict[str, frozenset[str]]
                ) -> frozenset[str]:
        """The classes of the library values ``e`` may yield (none: an int)."""
        if isinstance(e, Call):
            sig = signature(e.function)
            return frozenset({sig[1]}) if sig is not None and sig[1] in METHODS \
                else frozenset()
        if isinstance(e, Conditional):
            return library(e.then, local_t, blocks) | library(e.otherwise, local_t, blocks)
        r = _root(e)
        if not isinstance(r, Var):
            return frozenset()
        if r.scope != "global" and r.name in blocks:
            return blocks[r.name]
        t = _element(globals_t.get(r.name) if r.scope == "global"
                     else local_t.get(r.name, IntType()))
        if isinstance(t, ObjectType):
            return frozenset({t.library})
        return classes.get(key(e, local_t, blocks), frozenset())  # type: ignore[arg-type]

    def whole_array(e: Expr, local_t: dict[str, Type], blocks: dict[str, frozenset[str]]
                    ) -> bool:
        """A whole array of ints of the state, or a row of one (Python sends the tuple
        of its cells)."""
        r, depth = e, 0
        while isinstance(r, Index):
            r, depth = r.base, depth + 1
        if not isinstance(r, Var) or r.scope == "block" or (
                r.scope != "global" and r.name in blocks):
            return False
        t = globals_t.get(r.name) if r.scope == "global" else local_t.get(r.name)
        for _ in range(depth):
            t = t.element if isinstance(t, ArrayType) else None
        # an array of one cell is sent as its cell (semantics.codegen.read)
        return isinstance(t, ArrayType) and scalar_count(t) > 1 \
            and not isinstance(_element(t), ObjectType)

    run_params = {p.name: {n: {v.name: v.type for v in p.locals}.get(n, IntType())
                           for n in p.parameters} for p in system.processes}
    local_channels = {c.name for p in system.processes for c in p.channels}
    global_channels = [c.name for c in system.channels]

    def channels(e: Expr) -> list[MixKey]:
        if isinstance(e, Var) and e.scope == "global" and e.name not in globals_t:
            return [("channel", e.name)]
        if isinstance(e, Var) and e.scope == "local" and e.name in local_channels:
            return [("channel", e.name)]  # a process channel (every instance's, by name)
        # a CSP# channel array's element chosen at run time (``c[i]``): any of them
        return [("channel", n) for n in array_channels(e, global_channels, globals_t)]

    def stores(st: Stmt, local_t: dict[str, Type], blocks: dict[str, frozenset[str]]
               ) -> Iterator[tuple[MixKey | None, frozenset[str], Expr | None]]:
        """Yield (where, the library classes stored, the value stored, or for a
        receive the channel) of each store of ``st``."""
        if isinstance(st, Assign):
            yield key(st.target, local_t, blocks), library(st.value, local_t, blocks), st.value
        elif isinstance(st, Send):
            for a in st.args:
                found = library(a, local_t, blocks) or (
                    ARRAY if whole_array(a, local_t, blocks) else frozenset())
                for k in channels(st.channel) or [None]:
                    yield k, found, a
        elif isinstance(st, Run):  # each parameter of the new instance takes its argument
            target = run_params.get(st.proctype, {})
            for pname, a in zip(target, st.args, strict=False):
                if not isinstance(_element(target[pname]), ObjectType):
                    yield ("local", pname), library(a, local_t, blocks), a
        elif isinstance(st, Receive):
            got = frozenset().union(*(classes.get(k, frozenset())
                                      for k in channels(st.channel)))
            for a in st.args:
                if isinstance(a, RecvBind) and a.target is not None:
                    yield key(a.target, local_t, blocks), got, st.channel

    # the elements a channel chosen at run time may be (``c[i]!1``): one encoding must
    # serve them all, so a library value sent to one of them (``c[0]!s``) makes every
    # one a mixed channel (its ints kept as such a slot keeps them)
    groups = [keys for _, _, stmts in procs for st in stmts
              if isinstance(st, Send | Receive) and len(keys := channels(st.channel)) > 1]
    changed = True
    while changed:
        changed = False
        for local_t, blocks, stmts in procs:
            for st in stmts:
                for k, found, _ in stores(st, local_t, blocks):
                    if k is not None and found and not found <= classes.get(k, frozenset()):
                        classes[k] = classes.get(k, frozenset()) | found
                        changed = True
        for keys in groups:
            found = frozenset().union(*(classes.get(k, frozenset()) for k in keys))
            for k in keys:
                if found and not found <= classes.get(k, frozenset()):
                    classes[k] = classes.get(k, frozenset()) | found
                    changed = True
    lib_args: set[int] = set()
    for local_t, blocks, stmts in procs:
        for st in stmts:
            for _, found, value in stores(st, local_t, blocks):
                if found and isinstance(st, Send):
                    lib_args.add(id(value))
    return Mixed(classes, frozenset(lib_args))


def array_channels(e: Expr, names: list[str], globals_t: dict[str, Type]) -> list[str]:
    """Return the global channels an element of a CSP# channel array chosen at run time
    (``c[i]``, ``c[i][j]``: the front-end names them ``c[0]``, ``c[1]``, ...) may be,
    or [] when ``e`` is no such element."""
    base = e
    while isinstance(base, Index):
        base = base.base
    if base is e or not isinstance(base, Var) or base.scope != "global" \
            or not isinstance(globals_t.get(base.name), ArrayType):
        return []  # (the array is a global array of the elements' channel ids)
    return [n for n in names if n.startswith(base.name + "[")]


def plain_int(t: Type) -> bool:
    """Return True when a store into a variable of type ``t`` keeps the value as it is
    (an int variable without a range or a wrap-around: ``store_code``'s identity)."""
    return isinstance(t, IntType) and t.overflow is not Overflow.ERROR and not (
        t.overflow is Overflow.WRAP and t.lo is not None and t.hi is not None)


class LibraryValues:
    """The library half of ``codegen.CGenerator`` (a mixin: its state is there)."""

    def library_class(self, e: Expr, ctx: _Ctx) -> str | None:
        """Return the library class of the value ``e`` yields, or None when it yields
        an int (or the generator cannot tell: then it is treated as an int)."""
        if isinstance(e, Call):
            sig = signature(e.function)
            return sig[1] if sig is not None and sig[1] in METHODS else None
        if isinstance(e, Var | Index | RemoteVar):
            if self.is_channel_name(e, ctx):
                return None
            try:
                t = self.place(e, ctx).type
            except CUnsupported:
                return None
            return t.library if isinstance(t, ObjectType) else None
        if isinstance(e, Conditional):
            return self.library_class(e.then, ctx) or self.library_class(e.otherwise, ctx)
        return None

    def library_value(self, e: Expr, ctx: _Ctx, want: str) -> str:
        """Return C code (type V) of the id of the library value ``e`` of class
        ``want``; refuses anything else by name."""
        if isinstance(e, Var | Index) and self.is_mixed(e, ctx) \
                and self.mixed_class(e, ctx) == want:
            # Python takes whatever the variable holds: an int there is left to it
            kind = 1 if want == "HashTable" else 0
            return f"mix_id(c, {self.read(e, ctx, mixed=True)}, {kind})"
        cls = self.library_class(e, ctx)
        if cls != want:
            got = "an integer" if cls is None else f"a value of library class {cls}"
            raise self.unsupported(getattr(e, "span", None),
                                   f"{got} where a value of library class {want} is expected")
        if isinstance(e, Call):
            return self.library_call(e, ctx)
        if isinstance(e, Conditional):
            return (f"(({self.cond(e.cond, ctx)}) ? ({self.library_value(e.then, ctx, want)}) "
                    f": ({self.library_value(e.otherwise, ctx, want)}))")
        return self.read(e, ctx, library=True)

    def library_call(self, e: Call, ctx: _Ctx) -> str:
        """Return C code of a call of a library class function (``semantics/library.py``
        in ``templates/c/library.c``): an int, or the id of the value it returns. A
        function that cannot answer is a model error (``br_fail``)."""
        sig = signature(e.function)
        code = C_FUNCTIONS.get(e.function)
        if sig is None or code is None or len(sig[0]) != len(e.args):
            raise self.unsupported(e.span, f"Call of the library function '{e.function}'")
        args = [self.library_value(a, ctx, t) if t in METHODS else self.expr(a, ctx)
                for a, t in zip(e.args, sig[0], strict=True)]
        return code.format(*args)

    def library_store(self, target: Expr, value: Expr, ctx: _Ctx, out: list[str],
                      ind: str) -> None:
        """Emit ``target = value`` for a variable of a library class: the id, whose
        slot holds every id (``layout.LIBRARY_ID_MAX``)."""
        p = self.place(target, ctx, write=True)
        assert isinstance(p.type, ObjectType)
        out.append(ind + self.write(p, self.library_value(value, ctx, p.type.library), True,
                                    ctx))

    def library_compare(self, op: str, left: Expr, right: Expr, ctx: _Ctx) -> str | None:
        """Return C code of ``left op right`` when a side is a library value (Python
        compares the tuples: by contents, so by id here), None when neither is."""
        a, b = self.library_class(left, ctx), self.library_class(right, ctx)
        if a is None and b is None:
            return None
        span = getattr(left, "span", None)
        if op in ("==", "!=") and (a is None or b is None):
            # Python: a tuple never equals an int (or a bool); both sides are evaluated
            lib, other = (left, right) if a is not None else (right, left)
            return (f"((void)({self.library_value(lib, ctx, a or b)}), "
                    f"(void)({self.expr(other, ctx)}), (V){int(op == '!=')})")
        if op not in ("==", "!=", "xor"):
            return None  # a number wanted: ``Expressions.number``'s model error
        if op == "xor":
            raise self.unsupported(span, f"operator '{op}' with a value of library class "
                                         f"{a or b} and {'an integer' if None in (a, b) else b}")
        # the classes may differ: kind 0 (sequences) against kind 0 compares as the
        # tuples do, a HashTable (kind 1) equals a sequence only when both are empty
        return (f"((V)(({self.library_value(left, ctx, a)}) {op} "
                f"({self.library_value(right, ctx, b)})))")

    def library_block(self, st: LocalVar, ctx: _Ctx, out: list[str], ind: str) -> None:
        """Emit a block variable of a library class (``semantics.codegen``'s
        ``LocalVar``: a Python local holding the tuple, here a C local holding its id),
        initialised from a library value; without one Python holds the int 0 there
        until a library value is stored: then the C local is kept as a mixed slot is
        (``mixed_blocks``: ids below ``BR_MIX_TOP``, the int 0 as it is)."""
        assert isinstance(st.type, ObjectType) and ctx.decls is not None
        if isinstance(st.init, tuple):
            raise self.unsupported(st.span, "a block variable of a library class "
                                            "initialised with an array")
        cname = self.fresh("_bl")
        if st.init is None:
            self.mixed_blocks.add(cname)
            ctx.decls.append(f"V {cname} = 0;")
            ctx.block[st.name] = (cname, st.type)
            out.append(f"{ind}{cname} = 0;")
            return
        init = self.library_value(st.init, ctx, st.type.library)
        ctx.decls.append(f"V {cname} = 0;")
        ctx.block[st.name] = (cname, st.type)
        out.append(f"{ind}{cname} = {init};")

    # ------------------------------------------------------------------ mixed slots

    def is_mixed(self, e: Expr, ctx: _Ctx) -> bool:
        """Return True when ``e`` reads or names a variable of ``mixed_variables``, or
        a block variable of a library class declared without a value (``library_block``)."""
        r = _root(e)
        if self.mixed_blocks and isinstance(r, Var) and (r.scope == "block" or (
                r.scope != "global" and r.name in ctx.block)) and r.name in ctx.block:
            return ctx.block[r.name][0] in self.mixed_blocks
        if not self.mixed.keys:
            return False
        if isinstance(r, RemoteVar):
            return ("local", r.name) in self.mixed.keys
        if not isinstance(r, Var) or r.scope == "block" or (
                r.scope != "global" and r.name in ctx.block):
            return False
        if r.scope == "global":
            return ("global", r.name) in self.mixed.keys
        return ("local", r.name) in self.mixed.keys

    def mixed_read(self, e: Expr, ctx: _Ctx) -> bool:
        """Return True when ``e`` reads one scalar variable of ``mixed_variables``."""
        return isinstance(e, Var | Index | RemoteVar) and self.is_mixed(e, ctx) \
            and not self._is_array_value(e, ctx)

    def mixed_class(self, e: Expr, ctx: _Ctx) -> str | None:
        """Return the one library class a variable of ``mixed_variables`` may hold a
        value of (None: several); a block variable's is its declared class."""
        r = _root(e)
        assert isinstance(r, Var | RemoteVar)
        if isinstance(r, Var) and r.scope != "global" and r.name in ctx.block:
            t = ctx.block[r.name][1]
            return t.library if isinstance(t, ObjectType) else None
        found = self.mixed.classes.get(("global" if isinstance(r, Var) and r.scope == "global"
                                        else "local", r.name), frozenset())
        return next(iter(found)) if len(found) == 1 else None

    def check_mixed(self) -> None:
        """Refuse by name a variable of ``mixed_variables`` whose slot is not a plain
        32-bit int (a range, a wrap-around, an array a value is copied into whole)."""
        declared = [(("global", v.name), v.type) for v in self.system.globals] + [
            (("local", v.name), v.type) for p in self.system.processes for v in p.locals] + [
            (("channel", c.name), f) for c in self.layout.channels for f in c.channel.fields]
        declared += [(("channel", c.name), f) for p in self.system.processes
                     for c in p.channels for f in c.fields]
        known = {c.name for c in self.layout.channels}
        local = {c.name for p in self.system.processes for c in p.channels}
        for kind, name in self.mixed.keys:
            if kind == "channel" and name in known and name in local:
                raise CUnsupported(f"a library value sent on channel '{name}', the name of a "
                                   "global channel and of a process channel")
        for k, t in declared:
            if k in self.mixed.keys and not plain_int(_element(t)):
                raise CUnsupported(f"a value of a library class stored in '{k[1]}', a "
                                   f"variable of type {t}")

    def mixed_store(self, target: Expr, value: Expr, ctx: _Ctx, out: list[str],
                    ind: str) -> None:
        """Emit ``target = value`` into a variable of ``mixed_variables``: a library
        value as its id moved below ``BR_MIX_TOP`` (``mix_lib``), an int as it is
        (``mix_int``: one the range of ids would take makes the search fall back to
        the Python engine), a value of another such variable as it is."""
        p = self.place(target, ctx, write=True)
        if isinstance(p.type, ArrayType) or self._is_array_value(value, ctx):
            raise self.unsupported(getattr(target, "span", None), "a whole array stored "
                                   "into a variable that may hold a library value")
        cls = self.library_class(value, ctx)
        if isinstance(value, Var | Index) and self.is_mixed(value, ctx):
            code = self.read(value, ctx, mixed=True)
        elif cls is not None:
            code = f"mix_lib(c, {self.library_value(value, ctx, cls)})"
        else:
            code = f"mix_int(c, {self.expr(value, ctx)})"
        out.append(ind + self.write(p, code, False, ctx))

    def library_local(self, v: Variable, ctx: _Ctx, seg: Segment, proc: ProcessLayout,
                      out: list[str]) -> bool:
        """Emit the initial value of local ``v`` of a process started at run time when
        it is of a library class (``edgecode._gen_segment_init``: each cell takes the
        value as it is) and return True; False for another local. Without an initial
        value Python's cells hold the int 0, which no id stands for: refused by name."""
        t = _element(v.type)
        if not isinstance(t, ObjectType):
            return False
        if v.init is None:
            raise CUnsupported(f"local '{v.name}' of library class {t.library} without an "
                               f"initial value in process {proc.process.name} started at run "
                               "time")
        slot = proc.locals[v.name]
        kind = seg.kinds[slot.offset]
        inits = v.init if isinstance(v.init, tuple) else (v.init,) * slot.size
        if len(inits) > slot.size:
            raise CUnsupported("too many initial values for an array")
        for j, x in enumerate(inits):
            place = _Place(f"b + {seg.offsets[slot.offset] + j * kind.width}", t, kind,
                           exact=True)
            out.append("  " + self.write(place, self.library_value(x, ctx, t.library), True,
                                         ctx))
        return True

    def run_argument(self, tpl: int, j: int, a: Expr, ctx: _Ctx) -> str:
        """Return C code of argument ``j``, ``a``, of a ``run`` of template ``tpl`` as
        its parameter's slot keeps it (``statespace._run`` stores the value as it is):
        the id of a library value for a parameter of a library class, a value of a
        parameter of ``mixed_variables`` encoded as ``message_value`` does, else the
        int."""
        proc = self.layout.processes[tpl].process
        if j < len(proc.parameters):
            pname = proc.parameters[j]
            ptype = _element(next((v.type for v in proc.locals if v.name == pname),
                                  IntType()))
            if isinstance(ptype, ObjectType):
                return self.library_value(a, ctx, ptype.library)
            if ("local", pname) in self.mixed.keys:
                return self.message_value(a, ctx)  # encoded as a message field is
        return self.expr(a, ctx)

    def mixed_operand(self, e: Expr, ctx: _Ctx) -> tuple[str, str]:
        """Return ``(kind, C code)`` of an operand of ``==``: ``m`` a variable of
        ``mixed_variables`` (its slot as it is), ``l`` a library value (its id) or a
        whole array (the id of the tuple of its cells, as ``c!a`` sends it), ``i`` an
        int."""
        if isinstance(e, Var | Index) and self.is_mixed(e, ctx) \
                and not self._is_array_value(e, ctx):
            return "m", self.read(e, ctx, mixed=True)
        if self._is_tuple_value(e, ctx):
            return "l", self.array_value(e, ctx)
        cls = self.library_class(e, ctx)
        if cls is not None:
            return "l", self.library_value(e, ctx, cls)
        return "i", self.expr(e, ctx)

    def mixed_compare(self, op: str, left: Expr, right: Expr, ctx: _Ctx) -> str | None:
        """Return C code of ``left op right`` when a side is a scalar variable of
        ``mixed_variables`` and ``op`` is ``==``/``!=`` (Python: a tuple equals a tuple
        of the same contents, never an int), None otherwise."""
        if op not in ("==", "!=") or not any(
                isinstance(x, Var | Index) and self.is_mixed(x, ctx)
                and not self._is_array_value(x, ctx) for x in (left, right)):
            return None
        (ka, a), (kb, b) = self.mixed_operand(left, ctx), self.mixed_operand(right, ctx)
        if ka != "m":
            (ka, a), (kb, b) = (kb, b), (ka, a)
        same = {"m": f"({a}) == ({b})", "l": f"mix_is_lib({a}, {b})",
                "i": f"mix_is_int({a}, {b})"}[kb]
        return f"((V)({'' if op == '==' else '!'}({same})))"

    def mixed_channel(self, channel: Expr) -> bool:
        """Return True when the messages of ``channel`` may carry a library value
        (``Mixed.channel``: each of their values is kept as a mixed slot keeps it)."""
        if not any(k[0] == "channel" for k in self.mixed.keys):
            return False
        slot = self.static_channel(channel)
        if slot is not None:
            return self.mixed.channel(slot.name)
        if isinstance(channel, Var) and channel.scope == "local" and any(
                c.name == channel.name for p in self.system.processes for c in p.channels):
            return self.mixed.channel(channel.name)  # a process channel, by its name
        # an element of a channel array chosen at run time: mixed_variables marks every
        # element a library value may be sent to; one encoding must serve them all
        elements = array_channels(channel, [c.name for c in self.system.channels],
                                  {v.name: v.type for v in self.system.globals})
        mixed = {self.mixed.channel(n) for n in elements}
        if len(mixed) == 1:
            return mixed.pop()
        raise self.unsupported(getattr(channel, "span", None), "a channel known at run "
                               "time in a model that sends library values")

    def message_value(self, a: Expr, ctx: _Ctx) -> str:
        """Return C code of a value sent on (or matched against a message of) a channel
        of ``mixed_channel``: a library value's id below ``BR_MIX_TOP``, an int as it
        is, a mixed slot's value as it is."""
        if self._is_tuple_value(a, ctx):
            return f"mix_lib(c, {self.array_value(a, ctx)})"
        if isinstance(a, Var | Index) and self.is_mixed(a, ctx):
            return self.read(a, ctx, mixed=True)
        cls = self.library_class(a, ctx)
        if cls is not None:
            return f"mix_lib(c, {self.library_value(a, ctx, cls)})"
        return f"mix_int(c, {self.expr(a, ctx)})"

    def array_value(self, a: Expr, ctx: _Ctx) -> str:
        """Return C code of the id of the tuple of a whole array's cells (the Python
        engine's value of an array of the state or of a block, or a row of one, read
        whole), interned as a sequence; an array whose cells may hold library values
        by ``br_lib_tuple`` (their mixed encodings)."""
        p = self.place(a, ctx)
        n = scalar_count(p.type)
        if p.remote or (p.kind is None and p.block is None) \
                or not isinstance(a, Var | Index):
            raise self.unsupported(getattr(a, "span", None), "a whole array used as a value")
        intern = "br_lib_tuple(c, {}, {})" if self.is_mixed(a, ctx) \
            else "br_lib_intern(c, 0, {}, {})"
        if n > MAX_LOCAL_ARRAY:
            # a loop, the cells off the C stack (br_lib_intern copies them)
            tmp, j = self.fresh("_av"), self.fresh("_aj")
            return (f"({{ static V {tmp}[{n}]; int {j}; for ({j} = 0; {j} < {n}; {j}++) "
                    f"{tmp}[{j}] = {self._element(p, j, ctx)}; {intern.format(tmp, n)}; }})")
        cells = ", ".join(self._element(p, j, ctx) for j in range(n))
        return intern.format(f"(const V[{n}]){{{cells}}}", n)
