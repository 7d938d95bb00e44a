"""The C generator's CSP# specifics: event names and their codes, the constants of a
static instance (its parameters folded into its event names) and the check that
every synchronisation vector is precomputed (issue 12).
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from bridge.engine_c.gen_base import (
    _NO,
    _c_string,
    _Ctx,
    edge_statements,
)
from bridge.engine_c.gen_library import signature
from bridge.ir import (
    Binary,
    Builtin,
    Call,
    ChanPoll,
    ChanQuery,
    Conditional,
    Edge,
    ElseGuard,
    Expr,
    Index,
    RemoteVar,
    Send,
    Unary,
    Var,
)
from bridge.semantics.codegen import (
    converting,
    event_constant,
    event_is_constant,
    guard_mentions,
)
from bridge.semantics.statespace import MAX_SYNC_VECTORS, make_combiner


class CspEvents:
    """The CSP# half of ``codegen.CGenerator`` (a mixin: its state is there)."""

    def intern_event(self, name: str) -> int:
        """Return the index of a constant event name in ``BR_EVENT_NAMES``."""
        if name not in self.event_names:
            self.event_names[name] = len(self.event_names)
        return self.event_names[name]

    def event_id(self, e: Edge, comm: bool = False) -> int:
        """Return the event code of a step of one edge, as the Python engine names it
        (``edgecode._gen_edge``): -1 tau, -2 a name computed at run time (a CSP#
        channel step without an event, or components that are not constant), which
        ``event_code`` renders."""
        if e.event is None:
            return -2 if comm and self.csp else -1
        if not event_is_constant(self.pygen, e.event):
            return -2
        return self.intern_event(event_constant(self.pygen, e.event))

    def event_code(self, e: Edge, ctx: _Ctx, comm: str = "", msg: str = "",
                   nf: str = "") -> str:
        """Return a C expression of the event code of a step of one edge: its constant
        id, or for a name computed at run time the id ``br_evname`` interns it under
        (components evaluated in ``ctx`` whether or not the search asks for names, as
        the Python engine evaluates them: their model errors count), or for a CSP#
        channel step without an event (``comm`` is ``!`` or ``?``) the id of
        ``br_chev`` over the message ``msg`` of ``nf`` values; -2 when the name cannot
        be rendered as the Python engine renders it (``value_kind``)."""
        if self._family_events is not None and id(e) in self._family_events:
            return self.family_event(self._family_events[id(e)], str(ctx.pid))
        ev = self.event_id(e, comm=bool(comm))
        if ev != -2:
            return str(ev)
        if e.event is None:
            assert e.comm is not None
            sent = self.sent_kinds(e.comm, ctx) if comm == "!" else None
            if sent is not None:
                return self.chev_call("_ch.id", "'!'", msg, nf, sent)
            # br_chev reads from the channel's flags whether it can be named
            return f"br_chev(c, _ch.id, '{comm}', {msg}, {nf})"
        arrays = [self._is_tuple_value(x, ctx) for x in e.event.components]
        mixed = [isinstance(x, Var | Index) and self.is_mixed(x, ctx) and not arr
                 for x, arr in zip(e.event.components, arrays, strict=True)]
        classes = [self.library_class(x, ctx) for x in e.event.components]
        # a library value is its tuple (the LTL product packs a state holding one with
        # marshal, which keeps tuples): kind "l", rendered from its id, and so is a
        # whole array of the state (the tuple of its cells, interned as a sequence:
        # ``e.a`` is ``e.(1, 2)``); a mixed slot's value "m", its id or an int (every
        # value stored is an int: stored_value)
        kinds = ["'l'" if cls or arr else "'m'" if mix
                 else _kind_char(self.kind_code(x, ctx))
                 for x, cls, mix, arr in zip(e.event.components, classes, mixed, arrays,
                                             strict=True)]
        if all(k == "'?'" for k in kinds):
            return "-2"
        vals = ", ".join(self.array_value(x, ctx) if arr else
                         self.library_value(x, ctx, cls) if cls else
                         self.read(x, ctx, mixed=True) if mix else self.expr(x, ctx)
                         for x, cls, mix, arr in zip(e.event.components, classes, mixed,
                                                     arrays, strict=True))
        n = len(kinds)
        return (f"br_evname(c, {_c_string(e.event.base)}, {n}, (const V[{max(1, n)}]){{{vals}}}, "
                f"{_kinds_code(kinds)})")

    def sent_kinds(self, st: Send, ctx: _Ctx) -> str | None:
        """Return C code of the kinds (``i``/``b``, a C string) of the values of a send
        (the arity tag and padding of a channel with tags included: ints), as the
        Python engine computes them at this send (``kind_code``, ``i`` into a
        converting field: ``_add_send``'s rule for one site; a channel known only at
        run time has unbounded int fields, which keep a bool), or None when one is not
        known. Both searches name the send with them (``br_chev_sent``), even on a
        channel whose other sends send another kind (its flags then leave its steps
        unnamed)."""
        slot = self.static_channel(st.channel)
        # a channel of library values (flag 64): br_chev_sent renders a value below
        # BR_MIX_TOP from its id, whatever its kind here (message_value)
        mixed = slot is not None and self.mixed.channel(slot.name)
        kinds = ["'i'" if self._sent_as_int(st, j)
                 or mixed and (self.library_class(a, ctx) is not None
                               or self._is_tuple_value(a, ctx))
                 else _kind_char(self.kind_code(a, ctx)) for j, a in enumerate(st.args)]
        return None if "'?'" in kinds else _kinds_code(kinds)

    def chev_call(self, cid: str, sep: str, msg: str, nf: str, kinds: str) -> str:
        """Return C code of ``br_chev_sent`` (its prototype added once): the event of
        a send or a rendezvous, with the kinds of the sender's values (a C string or
        NULL)."""
        if _CHEV_SENT not in self.prototypes:
            self.prototypes.append(_CHEV_SENT)
        return f"br_chev_sent(c, {cid}, {sep}, {msg}, {nf}, {kinds})"

    # Python's str() of a value: an int in decimal, a bool True or False. The C engine
    # holds both as integers, so each value of a name carries its kind: known when the
    # code is generated (``value_kind``), or computed next to the value at run time
    # (``kind_code``: a conditional's chosen branch, a bitwise operation over two values
    # that may be bools). Both searches of the Python engine read a stored value as an
    # int (a bool is stored as 1 or 0: semantics.codegen.stored_value, library elements
    # too: semantics.library.element), so only values computed in the step itself are
    # bools, and the breadth-first search (deterministic) and the fair search render
    # names alike.

    def value_kind(self, e: Expr) -> str | None:
        """Return ``"i"`` when the Python engine's value of ``e`` is surely an int, ``"b"``
        when surely a bool, None when it may be either, as decided at run time
        (``kind_code``), or something else."""
        return {"0": "i", "1": "b"}.get(self.kind_code(e) or "")

    def kind_code(self, e: Expr, ctx: _Ctx | None = None) -> str | None:
        """Return a C expression that is 1 when the Python engine's value of ``e`` is a
        bool and 0 when it is an int (``"1"``/``"0"`` when that is known here), or None
        when it may be something else (a library value's tuple). Comparisons and logic
        give bools; arithmetic ints (``True + 1`` is 2, ``-True`` is -1); ``&``, ``|``,
        ``^`` a bool only when both operands are bools (``True & 3`` is 1, ``True &
        False`` False); a conditional its chosen branch's kind (evaluated again: C
        expressions have no effects but their model errors, which the value met first);
        ``Math.Max``/``Min`` the kind of the operand they pick (Python's ``max(a, b)`` is
        ``a`` unless ``b > a``); a value read from the state an int (``stored_value``).
        Without ``ctx`` a kind known only at run time is ``"?"``."""
        v = self.fold(e)
        if v is not _NO:
            return "1" if isinstance(v, bool) else "0" if isinstance(v, int) else None
        if isinstance(e, Binary):
            if e.op in _BOOL_OPS:
                return "1"
            left = self.kind_code(e.left, ctx)
            right = self.kind_code(e.right, ctx)
            if left is None or right is None:
                return None
            if e.op in _INT_OPS:
                return "0"
            if e.op not in ("&", "|", "^"):
                return None
            if "0" in (left, right):
                return "0"
            if left == "1" or right == "1":
                return right if left == "1" else left
            return _at_run_time(ctx, f"({left} && {right})")
        if isinstance(e, Unary):
            if e.op == "!":
                return "1"
            return "0" if e.op in ("-", "~") and self.kind_code(e.operand) is not None \
                else None
        if isinstance(e, Conditional):
            a = self.kind_code(e.then, ctx)
            b = self.kind_code(e.otherwise, ctx)
            if a is None or b is None:
                return None
            if a == b:
                return a
            return _at_run_time(ctx, f"({self.cond(e.cond, ctx)} ? {a} : {b})"
                                if ctx is not None else "")
        if isinstance(e, Var | Index | RemoteVar):
            return "0"
        if isinstance(e, ChanQuery):
            return "0" if e.op == "len" else "1"  # statespace._cquery
        if isinstance(e, ChanPoll):
            return "1"
        if isinstance(e, Builtin) and e.name in ("_pid", "_nr_pr", "_last"):
            return "0"
        if isinstance(e, Call):
            return self._call_kind(e, ctx)
        return None

    def _call_kind(self, e: Call, ctx: _Ctx | None) -> str | None:
        """Return ``kind_code`` of a library call's result as ``semantics/library.py``
        computes it: a method whose result is ``bool`` gives a bool (``x in s``), a
        count, an index or an element an int (an element is stored as an int:
        ``library.element``); ``Math.Abs``/``Pow`` an int, ``Math.Max``/``Min`` the
        kind of the operand they pick (``Max(True, 0)`` is True)."""
        cls, _, method = e.function.partition(".")
        if cls == "Math":
            kinds = [self.kind_code(a, ctx) for a in e.args]
            if None in kinds:
                return None
            if method in ("Max", "Min") and len(kinds) == 2 and kinds[0] != kinds[1]:
                if ctx is None:
                    return "?"
                a, b = (self.expr(x, ctx) for x in e.args)
                pick = ">=" if method == "Max" else "<="
                return f"(({a}) {pick} ({b}) ? {kinds[0]} : {kinds[1]})"
            if method in ("Max", "Min"):
                return kinds[0] if kinds else None
            return "0" if method in ("Abs", "Pow") else None
        sig = signature(e.function)
        if sig is None or method.endswith("="):
            return None
        return {"bool": "1", "int": "0"}.get(sig[1])

    def chan_kind(self, cid: int | tuple[str, str]) -> str | None:
        """Return the kind every value sent on static channel ``cid`` has, as the
        Python engine computes it at the send (``"i"`` or ``"b"``; ``br_chev`` renders
        it), None when the channel's sends cannot be named in C (values of both
        kinds); a process channel by ``("local", name)``, its name in every instance.
        What a receive takes is an int (``stored_value``)."""
        kinds = self._sent_chans().get(cid, _BOTH)
        if kinds <= {"i"}:
            return "i"
        return "b" if kinds == {"b"} else None

    def _sent_chans(self) -> dict[int | tuple[str, str], frozenset[str]]:
        """Return per static channel id, and per process channel name (``("local",
        name)``), the kinds of the values sent on it."""
        if self._sent_kinds is None:
            chans: dict[int | tuple[str, str], frozenset[str]] = {
                c.id: frozenset() for c in self.layout.channels}
            # a process channel by its name, unless that name is also a variable
            # (which may hold any channel's id: its sends count for every channel)
            variables = {v.name for p in self.system.processes for v in p.locals} | {
                n for p in self.system.processes for n in p.parameters}
            chans.update({("local", c.name): frozenset() for p in self.system.processes
                          for c in p.channels if c.name not in variables})
            for st in edge_statements(self.system):
                if isinstance(st, Send):
                    self._add_send(st, chans)
            self._sent_kinds = chans
        return self._sent_kinds

    def _sent_as_int(self, st: Send, j: int) -> bool:
        """Return whether the Python engine turns value ``j`` of send ``st`` into an int
        before it names the step (``_gen_comm_edge``: ``store_code`` into a converting
        field; a channel known only at run time has unbounded int fields, which keep a
        bool; a constant is folded to an int in both engines: ``c!(1 == 1)`` is
        ``c!1``)."""
        slot = self.static_channel(st.channel)
        fields = slot.channel.fields if slot is not None else ()
        return j < len(fields) and converting(fields[j])

    def _add_send(self, st: Send, chans: dict[int | tuple[str, str], frozenset[str]]) -> None:
        slot = self.static_channel(st.channel)
        local = ("local", st.channel.name) if slot is None and isinstance(st.channel, Var) \
            and st.channel.scope == "local" and ("local", st.channel.name) in chans else None
        kinds: frozenset[str] = frozenset()
        for j, a in enumerate(st.args):
            if id(a) in self.mixed.lib_args:
                continue  # a library value (br_chev renders it: flag 64), or a mixed
                # slot's value, an id or an int
            if self._sent_as_int(st, j):
                kinds |= _INT
            else:
                k = self.value_kind(a)
                kinds |= frozenset((k,)) if k in ("i", "b") else _BOTH
        keys = [slot.id] if slot is not None else [local] if local is not None else list(chans)
        for key in keys:
            chans[key] = chans.get(key, frozenset()) | kinds

    def events_code(self) -> list[str]:
        names = list(self.event_names) or [""]
        quoted = ", ".join(_c_string(n) for n in names)
        offsets, pairs = self.vector_tables
        return [f"#define BR_EVENT_COUNT {len(self.event_names)}",
                f"#define BR_RUNTIME_VECTORS {int(self.runtime_barriers)}",
                f"static const char *const BR_EVENT_NAMES[{len(names)}] = {{{quoted}}};",
                *self.channel_names_code(),
                _NAMES,
                "/* the edges of synchronisation vector v: pairs (pid, edge label) "
                "BR_VEC_OFF[v] .. BR_VEC_OFF[v + 1] - 1 of BR_VEC_EDGES */",
                f"static const int32_t BR_VEC_OFF[{len(offsets)}] = "
                f"{{{', '.join(map(str, offsets))}}};",
                f"static const int32_t BR_VEC_EDGES[{max(1, len(pairs))}] = "
                f"{{{', '.join(map(str, pairs)) or '0'}}};"]

    def channel_names_code(self) -> list[str]:
        """Return the channel tables of ``br_chev`` (CSP#, ``statespace._chev``): per
        channel id its name, whether its messages carry their arity first
        (``Channel.arity_tag``) and whether its messages can be rendered, their values
        as ints or as bools (``chan_kind``)."""
        rl = self.space._static_layout
        table = dict(rl.chan_names) if self.csp and rl is not None else {}
        n = max(table, default=-1) + 1
        # a process channel's id (after the global ones) by its name in the process
        globals_ = {c.id for c in self.layout.channels}
        keys = {i: i if i in globals_ else ("local", table[i].rsplit(".", 1)[-1])
                for i in table}
        sent = [self.chan_kind(keys[i]) if i in table else None for i in range(n)]
        names = ", ".join(_c_string(table[i]) if i in table else "NULL" for i in range(n))
        mixed = [i in table and self.mixed.channel(table[i] if i in globals_ else keys[i][1])
                 for i in range(n)]
        flags = ", ".join(str(int(i in self._tagged) | 8 * int(sent[i] is not None)
                              | 16 * int(sent[i] == "b") | 32 * int(i in table)
                              | 64 * int(mixed[i]))
                          for i in range(n))
        return [f"#define BR_NCHAN {n}",
                f"static const char *const BR_CHAN_NAMES[{max(1, n)}] = {{{names or 'NULL'}}};",
                "/* per channel id: 1 its messages carry their arity first; as the Python "
                "engine computes the values sent, 8 they can be named, 16 bools (a value "
                "received is read from the state: an int); 32 the channel has a name; 64 a "
                "value below BR_MIX_TOP is a library value's id (templates/c/library.c) */",
                f"static const uint8_t BR_CHAN_FLAGS[{max(1, n)}] = {{{flags or '0'}}};"]

    # ------------------------------------------------------------------ instances

    def set_instance_constants(self, pid: int) -> None:
        """Fold the never-assigned locals of static instance ``pid`` (parameters, mostly)
        as the Python engine does for its specialised instance code: CSP# event names
        such as ``rule1.i.(i+1)%N`` become constants, so barriers are precomputed."""
        rl = self.space._static_layout
        if rl is None:  # started at run time: the initial instances' (they never end)
            rl = self.space.layout_of(self.space.initial_states()[0])
        tpl, values = rl.key[pid]
        names = [n for n, _ in self.space._const_locals[tpl]]
        self.pygen.consts = dict(zip(names, values, strict=True))

    @contextlib.contextmanager
    def instance_constants(self, pid: int) -> Iterator[None]:
        self.set_instance_constants(pid)
        try:
            yield
        finally:
            self.pygen.consts = {}

    def vectors_at_run_time(self) -> bool:
        """Return True when the Python engine combines barriers at run time (more than
        ``MAX_SYNC_VECTORS`` vectors, or a process that may synchronise names an event
        at run time; ``statespace._plan_vectors``): the C engine then combines them at
        run time too (``runtime_barriers_code``). No vector at all (no barrier can ever
        be completed) is fine."""
        offers: dict[int, list] = {}
        lay = self.layout
        for pid, t in enumerate(lay.initial_templates):
            sync = self.space._sync_sets.get(pid, frozenset())
            if not sync:
                continue
            with self.instance_constants(pid):
                for k, e in enumerate(lay.processes[t].process.edges):
                    if (e.comm is not None or e.event is None or e.data_operation
                            or isinstance(e.guard, ElseGuard) or guard_mentions(e.guard, "timeout")):
                        continue
                    if not event_is_constant(self.pygen, e.event):
                        return True
                    name = event_constant(self.pygen, e.event)
                    if name in sync:
                        offers.setdefault(pid, []).append((name, ((pid, k),)))
        composition = self.system.composition
        return composition is not None and \
            len(make_combiner(composition)(offers)) > MAX_SYNC_VECTORS


_BOOL_OPS = frozenset({"==", "!=", "<", "<=", ">", ">=", "&&", "||", "xor"})
_INT_OPS = frozenset({"+", "-", "*", "/", "%", "mod", "<<", ">>"})


# The kinds a value may have: "i" an int, "b" a bool (Python's str() tells them apart).
_INT = frozenset({"i"})
_BOTH = frozenset({"i", "b"})


def _at_run_time(ctx: _Ctx | None, code: str) -> str:
    """Return ``code`` (a kind computed at run time), or ``"?"`` without a context."""
    return "?" if ctx is None else code


def _kind_char(code: str | None) -> str:
    """Return a C char expression of a value's kind from its ``kind_code``: ``'i'``,
    ``'b'``, chosen at run time, or ``'?'`` (not an int or a bool)."""
    if code is None or code == "?":
        return "'?'"
    return {"0": "'i'", "1": "'b'"}.get(code, f"(({code}) ? 'b' : 'i')")


def _kinds_code(kinds: list[str]) -> str:
    """Return C code of the kinds of ``br_evname``/``br_chev_sent`` from one char
    expression per value: ``i``, ``b``, ``l`` (the id of a library value), ``m`` (a
    slot of ``gen_library.mixed_variables``: an id or an int) or ``?`` (not known): a
    C string when every kind is known here, else a char array filled at run time."""
    if all(len(k) == 3 for k in kinds):
        return _c_string("".join(k[1] for k in kinds))
    return f"(const char[{max(1, len(kinds))}]){{{', '.join(kinds)}}}"


_CHEV_SENT = "static int32_t br_chev_sent(ctx_t *, V, char, const V *, int, const char *);"


# Event names met at run time (CSP#): a name whose components are computed, a channel
# step's ``c!v`` / ``c?v``, a rendezvous' ``c.v``, rendered as the Python engine renders
# them (edgecode._gen_edge, _chev) and interned in one table with the constant names
# first (the id of BR_EVENT_NAMES[i] is i), so a name has one id whichever step renders
# it, as the Python engine compares names (statespace._step_for). Only the fair search
# asks for them (ctx.names); the table lives as long as the library (ids only grow).
_NAMES = r"""
#define BR_NAME_MAX 1024  /* on the stack; a longer name grows on the heap (nm_put) */
static struct { char **name; uint32_t *len; size_t n, cap; int32_t *slot; size_t slots; size_t text; } br_names;

/* The bytes the table holds (counted against the searches' memory limit). */
static size_t br_names_bytes(void) {
    return br_names.cap * (sizeof *br_names.name + sizeof *br_names.len)
        + br_names.slots * sizeof *br_names.slot + br_names.text;
}

static uint64_t br_name_hash(const char *s, size_t len) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) { h ^= (uint8_t)s[i]; h *= 1099511628211ULL; }
    return h;
}

/* The id of the name s[0..len-1], interned when new; -2 when out of memory. */
static int32_t br_name_id(const char *s, size_t len);

static int br_names_seed(void) {
    br_names.slots = 256;
    while (br_names.slots < 4 * (size_t)BR_EVENT_COUNT) br_names.slots *= 2;
    br_names.slot = malloc(br_names.slots * sizeof *br_names.slot);
    if (!br_names.slot) { br_names.slots = 0; return 0; }
    for (size_t i = 0; i < br_names.slots; i++) br_names.slot[i] = -1;
    for (int32_t i = 0; i < BR_EVENT_COUNT; i++)
        if (br_name_id(BR_EVENT_NAMES[i], strlen(BR_EVENT_NAMES[i])) != i) return 0;
    return 1;
}

static int32_t br_name_id(const char *s, size_t len) {
    if (!br_names.slots && !br_names_seed()) return -2;
    size_t mask = br_names.slots - 1, b = (size_t)br_name_hash(s, len) & mask;
    for (int32_t id; (id = br_names.slot[b]) >= 0; b = (b + 1) & mask)
        if (br_names.len[id] == len && memcmp(br_names.name[id], s, len) == 0) return id;
    if (br_names.n >= 0x7FFFFFF0) return -2;
    if (br_names.n == br_names.cap) {
        size_t cap = br_names.cap ? br_names.cap * 2 : 64;
        char **name = realloc(br_names.name, cap * sizeof *name);
        if (!name) return -2;
        br_names.name = name;
        uint32_t *lens = realloc(br_names.len, cap * sizeof *lens);
        if (!lens) return -2;
        br_names.len = lens;
        br_names.cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) return -2;
    memcpy(copy, s, len);
    copy[len] = 0;
    br_names.text += len + 1;
    int32_t id = (int32_t)br_names.n++;
    br_names.name[id] = copy;
    br_names.len[id] = (uint32_t)len;
    br_names.slot[b] = id;
    if (br_names.n * 2 > br_names.slots) {  /* grow: rehash every id */
        size_t slots = br_names.slots * 2;
        int32_t *slot = malloc(slots * sizeof *slot);
        if (slot) {
            for (size_t i = 0; i < slots; i++) slot[i] = -1;
            for (size_t i = 0; i < br_names.n; i++) {
                size_t h = (size_t)br_name_hash(br_names.name[i], br_names.len[i]) & (slots - 1);
                while (slot[h] >= 0) h = (h + 1) & (slots - 1);
                slot[h] = (int32_t)i;
            }
            free(br_names.slot);
            br_names.slot = slot;
            br_names.slots = slots;
        }
    }
    return id;
}

/* A name being rendered: in s, then on the heap once longer than BR_NAME_MAX bytes
 * (a long library value, many parameters: no length falls back); over: unrendered (an
 * unknown library id, or out of memory). nm_id frees it. */
typedef struct { char *b; size_t n, cap; int over; char s[BR_NAME_MAX]; } br_nm_t;

static inline void nm_init(br_nm_t *m) { m->b = m->s; m->n = 0; m->cap = sizeof m->s; m->over = 0; }

static void nm_put(br_nm_t *m, const char *s, size_t k) {
    if (m->over) return;
    if (m->n + k > m->cap) {
        size_t cap = m->cap * 2;
        while (cap < m->n + k) cap *= 2;
        char *b = m->b == m->s ? malloc(cap) : realloc(m->b, cap);
        if (!b) { m->over = 1; return; }
        if (m->b == m->s) memcpy(b, m->s, m->n);
        m->b = b; m->cap = cap;
    }
    memcpy(m->b + m->n, s, k);
    m->n += k;
}

/* The id of the name rendered (-2: unrendered), its heap buffer freed. */
static int32_t nm_id(br_nm_t *m) {
    int32_t id = m->over ? -2 : br_name_id(m->b, m->n);
    if (m->b != m->s) free(m->b);
    return id;
}

/* Python's str() of an int (kind 'i') or a bool (kind 'b'); see value_kind. */
static void nm_value(br_nm_t *m, V v, char kind) {
    if (kind == 'b') { if (v) nm_put(m, "True", 4); else nm_put(m, "False", 5); return; }
    char t[24];
    int k = snprintf(t, sizeof t, "%lld", (long long)v);
    nm_put(m, t, (size_t)k);
}

/* Python's str() of a library value (kind 'l': its id in c->lib): the tuple of its
 * ints, a HashTable's (key, value) pairs as pairs (semantics/library.py), a whole
 * array's cells that may hold library values each by its kind (br_lib_tuple); an
 * unknown id leaves the name unrendered. */
static void nm_library(br_nm_t *m, const ctx_t *c, V id) {
    size_t n = 0;
    const V *el = id == 0 ? NULL : br_lib_get(c->lib, id, &n);
    if (id != 0 && !el) { m->over = 1; return; }
    int pairs = id != 0 && c->lib->kind[id] == 1, cells = id != 0 && c->lib->kind[id] == 2;
    size_t items = pairs ? n / 2 : n;
    nm_put(m, "(", 1);
    for (size_t i = 0; i < items; i++) {
        if (i) nm_put(m, ", ", 2);
        if (cells && el[i] < BR_MIX_TOP) { nm_library(m, c, el[i] - BR_MIX_LIB); continue; }
        if (!pairs) { nm_value(m, el[i], 'i'); continue; }
        nm_put(m, "(", 1);
        nm_value(m, el[2 * i], 'i');
        nm_put(m, ", ", 2);
        nm_value(m, el[2 * i + 1], 'i');
        nm_put(m, ")", 1);
    }
    if (items == 1) nm_put(m, ",", 1);
    nm_put(m, ")", 1);
}

/* The id of the event base.v1.v2... (statespace event_code); -2 when not asked for
 * (ctx.names), out of memory or when a value's kind is not known ('?'). */
static int32_t br_evname(ctx_t *c, const char *base, int n, const V *vals, const char *kinds) {
    if (!c->names) return -2;
    for (int i = 0; i < n; i++) if (kinds[i] == '?') return -2;
    br_nm_t m; nm_init(&m);
    nm_put(&m, base, strlen(base));
    for (int i = 0; i < n; i++) {
        nm_put(&m, ".", 1);
        if (kinds[i] == 'l') nm_library(&m, c, vals[i]);
        else if (kinds[i] == 'm' && vals[i] < BR_MIX_TOP) nm_library(&m, c, vals[i] - BR_MIX_LIB);
        else nm_value(&m, vals[i], kinds[i] == 'm' ? 'i' : kinds[i]);
    }
    return nm_id(&m);
}

/* The id of the event of a channel step (statespace._chev): the channel's name, sep
 * ('!' send, '?' receive, '.' rendezvous), the message's values joined by '.' (a
 * channel with arity tags shows the message's own values only); -2 when not asked for
 * or when the channel cannot be named (BR_CHAN_FLAGS). */
static int32_t br_chev(ctx_t *c, V cid, char sep, const V *msg, int nf) {
    if (!c->names || cid < 0 || cid >= BR_NCHAN || !(BR_CHAN_FLAGS[cid] & 32)) return -2;
    int f = BR_CHAN_FLAGS[cid];
    char kind;
    if (sep == '?') kind = 'i';  /* read from the state, where a bool is stored as 1 or 0 */
    else { if (!(f & 8)) return -2; kind = (f & 16) ? 'b' : 'i'; }
    int from = 0, to = nf;
    if (BR_CHAN_FLAGS[cid] & 1) {
        if (nf < 1 || msg[0] < 0 || msg[0] > nf - 1) return -2;
        from = 1; to = 1 + (int)msg[0];
    }
    br_nm_t m; nm_init(&m);
    nm_put(&m, BR_CHAN_NAMES[cid], strlen(BR_CHAN_NAMES[cid]));
    nm_put(&m, &sep, 1);
    for (int i = from; i < to; i++) {
        if (i > from) nm_put(&m, ".", 1);
        if ((f & 64) && msg[i] < BR_MIX_TOP) nm_library(&m, c, msg[i] - BR_MIX_LIB);
        else nm_value(&m, msg[i], kind);
    }
    return nm_id(&m);
}

/* The id of the event of a send c!v1.v2... or a rendezvous c.v1.v2... (sep) (br_chev;
 * a channel with arity tags shows the message's own values): value i rendered with
 * kinds[i] (the tag's and the padding's too; a library value's id on a channel of
 * flag 64 from the id), as the Python
 * engine computes it at the send (gen_events.sent_kinds), whatever the channel's other
 * sends send; kinds NULL reads the channel's flags (br_chev). */
static int32_t br_chev_sent(ctx_t *c, V cid, char sep, const V *msg, int nf,
                            const char *kinds) {
    if (!kinds) return br_chev(c, cid, sep, msg, nf);
    if (!c->names || cid < 0 || cid >= BR_NCHAN || !(BR_CHAN_FLAGS[cid] & 32)) return -2;
    int from = 0, to = nf;
    if (BR_CHAN_FLAGS[cid] & 1) {  /* the arity first: the message's own values only */
        if (nf < 1 || msg[0] < 0 || msg[0] > nf - 1) return -2;
        from = 1; to = 1 + (int)msg[0];
    }
    br_nm_t m; nm_init(&m);
    nm_put(&m, BR_CHAN_NAMES[cid], strlen(BR_CHAN_NAMES[cid]));
    nm_put(&m, &sep, 1);
    for (int i = from; i < to; i++) {
        if (i > from) nm_put(&m, ".", 1);
        if ((BR_CHAN_FLAGS[cid] & 64) && msg[i] < BR_MIX_TOP) nm_library(&m, c, msg[i] - BR_MIX_LIB);
        else nm_value(&m, msg[i], kinds[i]);
    }
    return nm_id(&m);
}
"""
