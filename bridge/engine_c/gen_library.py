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
library value, and as a component of an event name (``gen_events.event_code``: rendered
from the id). Anywhere else (a channel message, a process argument, an int variable)
the model is refused by name, and the Python engine checks it.
"""
from __future__ import annotations

from bridge.engine_c.gen_base import CUnsupported, _Ctx
from bridge.ir import Call, Conditional, Expr, Index, LocalVar, ObjectType, RemoteVar, Var
from bridge.ir.library import METHODS

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
        if op not in ("==", "!=") or a is None or b is None:
            raise self.unsupported(span, f"operator '{op}' with a value of library class "
                                         f"{a or b} and {'an integer' if None in (a, b) else b}")
        # the classes may differ: kind 0 (sequences) against kind 0 compares as the
        # tuples do, a HashTable (kind 1) equals a sequence only when both are empty
        return (f"((V)(({self.library_value(left, ctx, a)}) {op} "
                f"({self.library_value(right, ctx, b)})))")

    def library_block(self, st: LocalVar, ctx: _Ctx, out: list[str], ind: str) -> None:
        """Emit a block variable of a library class (``semantics.codegen``'s
        ``LocalVar``: a Python local holding the tuple, here a C local holding its id),
        initialised from a library value; without one Python holds the int 0 there,
        which no library slot holds, so that stays refused by name."""
        assert isinstance(st.type, ObjectType) and ctx.decls is not None
        if st.init is None or isinstance(st.init, tuple):
            raise self.unsupported(st.span, "a block variable of a library class without "
                                            "an initial value")
        cname = self.fresh("_bl")
        init = self.library_value(st.init, ctx, st.type.library)
        ctx.decls.append(f"V {cname} = 0;")
        ctx.block[st.name] = (cname, st.type)
        out.append(f"{ind}{cname} = {init};")
