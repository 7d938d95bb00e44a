"""The C generator's CSP# specifics: event names and their codes, the constants of a
static instance (its parameters folded into its event names) and the check that
every synchronisation vector is precomputed (issue 12).
"""
from __future__ import annotations

import contextlib
import dataclasses
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
    Call,
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
from bridge.ir.library import METHODS
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
            sent = self.sent_kinds(e.comm) if comm == "!" else None
            if sent is not None:
                return self.chev_call("_ch.id", "'!'", msg, nf, _c_string(sent))
            # br_chev reads from the channel's flags whether it can be named
            return f"br_chev(c, _ch.id, '{comm}', {msg}, {nf})"
        mixed = [isinstance(x, Var | Index) and self.is_mixed(x, ctx)
                 and not self._is_array_value(x, ctx) for x in e.event.components]
        classes = [self.library_class(x, ctx) for x in e.event.components]
        if (any(classes) or any(mixed)) and not self.library_elements_are_ints():
            return "-2"
        # a library value is its tuple (the LTL product packs a state holding one with
        # marshal, which keeps tuples): kind "l", rendered from its id; a mixed slot's
        # value "m", its id or an int (every value stored is an int: stored_value)
        kinds = ["l" if cls else "m" if mix else self.value_kind(x)
                 for x, cls, mix in zip(e.event.components, classes, mixed, strict=True)]
        if all(k not in ("i", "b", "l", "m") for k in kinds):
            return "-2"
        vals = ", ".join(self.library_value(x, ctx, cls) if cls else
                         self.read(x, ctx, mixed=True) if mix else self.expr(x, ctx)
                         for x, cls, mix in zip(e.event.components, classes, mixed,
                                                strict=True))
        n = len(kinds)
        return (f"br_evname(c, {_c_string(e.event.base)}, {n}, (const V[{max(1, n)}]){{{vals}}}, "
                f"{_c_string(_kind_string(kinds))})")

    def sent_kinds(self, st: Send) -> str | None:
        """Return the kind (``i``/``b``) of each value of a send on a static channel (the
        arity tag and padding of a channel with tags included: ints), as the Python
        engine computes it at this send
        (``value_kind``, ``i`` into a converting field: ``_add_send``'s rule for one
        site), or None when one is not known. Both searches name the send with them
        (``br_chev_sent``), even on a channel whose other sends send another kind (its
        flags then leave its steps unnamed)."""
        slot = self.static_channel(st.channel)
        if slot is None or self.mixed.channel(slot.name):
            return None  # a library value: br_chev renders it (flag 64)
        fields = slot.channel.fields
        kinds = ["i" if j < len(fields) and converting(fields[j])
                 else self.value_kind(a) for j, a in enumerate(st.args)]
        return "".join(kinds) if all(k in ("i", "b") for k in kinds) else None

    def chev_call(self, cid: str, sep: str, msg: str, nf: str, kinds: str) -> str:
        """Return C code of ``br_chev_sent`` (its prototype added once): the event of
        a send or a rendezvous, with the kinds of the sender's values (a C string or
        NULL)."""
        if _CHEV_SENT not in self.prototypes:
            self.prototypes.append(_CHEV_SENT)
        return f"br_chev_sent(c, {cid}, {sep}, {msg}, {nf}, {kinds})"

    def library_elements_are_ints(self) -> bool:
        """Return True when every int argument of every library class call of the model
        is surely an int (``value_kind``), so every element of a library value is an
        int, which ``nm_library`` renders as the Python engine does (a bool element
        would be True there)."""
        known = getattr(self, "_library_ints", None)
        if known is None:
            self._library_ints = False  # while it is computed (an element added from one)
            known = True
            for call in _calls(self.system.processes):
                sig = signature(call.function)
                if sig is None:
                    continue
                if len(sig[0]) != len(call.args):
                    known = False
                    break
                if any(t not in METHODS and self.value_kind(a) != "i"
                       for a, t in zip(call.args, sig[0], strict=True)):
                    known = False
                    break
            self._library_ints = known
        return known

    # Python's str() of a value: an int in decimal, a bool True or False. The C engine
    # holds both as integers, so a name is rendered only where the kind of each value is
    # known at generation time: ``value_kind``. Both searches of the Python engine read
    # a stored value as an int (a bool is stored as 1 or 0: semantics.codegen
    # .stored_value), so only values computed in the step itself are bools, and the
    # breadth-first search (deterministic) and the fair search render names alike.

    def value_kind(self, e: Expr) -> str | None:
        """Return ``"i"`` when the Python engine's value of ``e`` is surely an int, ``"b"``
        when surely a bool, None when it may be either (or something else): comparisons
        and logic give bools; arithmetic ints (``True + 1`` is 2); a value read from the
        state is an int (``stored_value``)."""
        v = self.fold(e)
        if v is not _NO:
            return "b" if isinstance(v, bool) else "i" if isinstance(v, int) else None
        if isinstance(e, Binary):
            if e.op in _BOOL_OPS:
                return "b"
            left = self.value_kind(e.left)
            right = self.value_kind(e.right)
            if left is None or right is None:
                return None
            if e.op in _INT_OPS:
                return "i"
            return "i" if left == right == "i" else None  # bitwise: bool op bool is a bool
        if isinstance(e, Unary):
            if e.op == "!":
                return "b"
            return "i" if e.op in ("-", "~") and self.value_kind(e.operand) is not None \
                else None
        if isinstance(e, Conditional):
            a = self.value_kind(e.then)
            b = self.value_kind(e.otherwise)
            return a if a == b else None
        if isinstance(e, Var | Index | RemoteVar):
            return "i"
        if isinstance(e, Call):
            return self._call_kind(e)
        return None

    def _call_kind(self, e: Call) -> str | None:
        """Return the kind of a library call's result as ``semantics/library.py``
        computes it: a method whose result is ``bool`` gives a bool (``x in s``), a
        count or an index an int; an element (``Get``, ``First``, ``Pop``...) an int
        where every element is one (``library_elements_are_ints``); ``Math``'s
        functions an int over ints (``Max(True, 0)`` is True)."""
        cls, _, method = e.function.partition(".")
        if cls == "Math":
            return "i" if all(self.value_kind(a) == "i" for a in e.args) else None
        sig = signature(e.function)
        if sig is None or method.endswith("="):
            return None
        if sig[1] == "bool":
            return "b"
        if sig[1] != "int":
            return None
        if method in ("Count", "IndexOf") or self.library_elements_are_ints():
            return "i"
        return None

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

    def _add_send(self, st: Send, chans: dict[int | tuple[str, str], frozenset[str]]) -> None:
        slot = self.static_channel(st.channel)
        fields = slot.channel.fields if slot is not None else ()
        local = ("local", st.channel.name) if slot is None and isinstance(st.channel, Var) \
            and st.channel.scope == "local" and ("local", st.channel.name) in chans else None
        kinds: frozenset[str] = frozenset()
        for j, a in enumerate(st.args):
            if id(a) in self.mixed.lib_args:
                continue  # a library value (br_chev renders it: flag 64), or a mixed
                # slot's value, an id or an int
            if j < len(fields) and converting(fields[j]):
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
        for i in range(n):
            if mixed[i] and not self.library_elements_are_ints():
                sent[i] = None  # a value's name is not known
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
        key = self.space._static_layout.key
        tpl, values = key[pid]
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
        ``MAX_SYNC_VECTORS`` vectors; ``statespace._plan_vectors``): the C engine then
        combines them at run time too (``runtime_barriers_code``). No vector at all (no
        barrier can ever be completed) is fine."""
        offers: dict[int, list] = {}
        lay = self.layout
        for pid, t in enumerate(lay.initial_templates):
            sync = self.space._sync_sets.get(pid, frozenset())
            if not sync:
                continue
            with self.instance_constants(pid):
                for k, e in enumerate(lay.processes[t].process.edges):
                    if (e.comm is not None or e.event is None or e.data_operation
                            or isinstance(e.guard, ElseGuard) or guard_mentions(e.guard, "timeout")
                            or not event_is_constant(self.pygen, e.event)):
                        continue
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


def _calls(node: object) -> Iterator[Call]:
    """Yield every ``Call`` in an IR node (dataclasses, lists and tuples of them)."""
    if isinstance(node, Call):
        yield node
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            yield from _calls(getattr(node, f.name))
    elif isinstance(node, list | tuple | frozenset):
        for x in node:
            yield from _calls(x)


def _kind_string(kinds: list[str | None]) -> str:
    """Return the kinds of ``br_evname``: ``i``, ``b``, ``l`` (the id of a library
    value), ``m`` (a slot of ``gen_library.mixed_variables``: an id or an int) or ``?``
    (not known) per value."""
    return "".join(k if k in ("i", "b", "l", "m") else "?" for k in kinds)


_CHEV_SENT = "static int32_t br_chev_sent(ctx_t *, V, char, const V *, int, const char *);"


# Event names met at run time (CSP#): a name whose components are computed, a channel
# step's ``c!v`` / ``c?v``, a rendezvous' ``c.v``, rendered as the Python engine renders
# them (edgecode._gen_edge, _chev) and interned in one table with the constant names
# first (the id of BR_EVENT_NAMES[i] is i), so a name has one id whichever step renders
# it, as the Python engine compares names (statespace._step_for). Only the fair search
# asks for them (ctx.names); the table lives as long as the library (ids only grow).
_NAMES = r"""
#define BR_NAME_MAX 1024
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

typedef struct { char b[BR_NAME_MAX]; size_t n; int over; } br_nm_t;

static void nm_put(br_nm_t *m, const char *s, size_t k) {
    if (m->over || m->n + k > sizeof m->b) { m->over = 1; return; }
    memcpy(m->b + m->n, s, k);
    m->n += k;
}

/* Python's str() of an int (kind 'i') or a bool (kind 'b'); see value_kind. */
static void nm_value(br_nm_t *m, V v, char kind) {
    if (kind == 'b') { if (v) nm_put(m, "True", 4); else nm_put(m, "False", 5); return; }
    char t[24];
    int k = snprintf(t, sizeof t, "%lld", (long long)v);
    nm_put(m, t, (size_t)k);
}

/* Python's str() of a library value (kind 'l': its id in c->lib): the tuple of its
 * ints, a HashTable's (key, value) pairs as pairs (semantics/library.py); an unknown
 * id leaves the name unrendered. */
static void nm_library(br_nm_t *m, const ctx_t *c, V id) {
    size_t n = 0;
    const V *el = id == 0 ? NULL : br_lib_get(c->lib, id, &n);
    if (id != 0 && !el) { m->over = 1; return; }
    int pairs = id != 0 && c->lib->kind[id] == 1;
    size_t items = pairs ? n / 2 : n;
    nm_put(m, "(", 1);
    for (size_t i = 0; i < items; i++) {
        if (i) nm_put(m, ", ", 2);
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
 * (ctx.names), too long or when a value's kind is not known ('?'). */
static int32_t br_evname(ctx_t *c, const char *base, int n, const V *vals, const char *kinds) {
    if (!c->names) return -2;
    for (int i = 0; i < n; i++) if (kinds[i] == '?') return -2;
    br_nm_t m; m.n = 0; m.over = 0;
    nm_put(&m, base, strlen(base));
    for (int i = 0; i < n; i++) {
        nm_put(&m, ".", 1);
        if (kinds[i] == 'l') nm_library(&m, c, vals[i]);
        else if (kinds[i] == 'm' && vals[i] < BR_MIX_TOP) nm_library(&m, c, vals[i] - BR_MIX_LIB);
        else nm_value(&m, vals[i], kinds[i] == 'm' ? 'i' : kinds[i]);
    }
    return m.over ? -2 : br_name_id(m.b, m.n);
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
    br_nm_t m; m.n = 0; m.over = 0;
    nm_put(&m, BR_CHAN_NAMES[cid], strlen(BR_CHAN_NAMES[cid]));
    nm_put(&m, &sep, 1);
    for (int i = from; i < to; i++) {
        if (i > from) nm_put(&m, ".", 1);
        if ((f & 64) && msg[i] < BR_MIX_TOP) nm_library(&m, c, msg[i] - BR_MIX_LIB);
        else nm_value(&m, msg[i], kind);
    }
    return m.over ? -2 : br_name_id(m.b, m.n);
}

/* The id of the event of a send c!v1.v2... or a rendezvous c.v1.v2... (sep) (br_chev;
 * a channel with arity tags shows the message's own values): value i rendered with
 * kinds[i] (the tag's and the padding's too), as the Python
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
    br_nm_t m; m.n = 0; m.over = 0;
    nm_put(&m, BR_CHAN_NAMES[cid], strlen(BR_CHAN_NAMES[cid]));
    nm_put(&m, &sep, 1);
    for (int i = from; i < to; i++) {
        if (i > from) nm_put(&m, ".", 1);
        nm_value(&m, msg[i], kinds[i]);
    }
    return m.over ? -2 : br_name_id(m.b, m.n);
}
"""
