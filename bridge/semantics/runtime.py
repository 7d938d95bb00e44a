"""The runtime helpers bound into the namespace of the Python code that
``statespace.CompiledStateSpace`` generates (channels, ``run``, library calls,
violations with their spans, claims)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bridge.diagnostics import ModelRuntimeError, Span
from bridge.ir import (
    BoolType,
    RecvBind,
)
from bridge.semantics.codegen import (
    c_div,
    c_rem,
    stored_value,
)
from bridge.semantics.library import LibraryError
from bridge.semantics.successors import Step

if TYPE_CHECKING:
    from bridge.semantics.statespace import CompiledStateSpace


# ---------------------------------------------------------------------------------
# Runtime helpers bound into the generated code's namespace


def runtime_helpers(space: CompiledStateSpace) -> dict[str, Any]:
    lay = space.layout
    spans_holder: dict[str, list[Span | None]] = {}

    def span(sid: int) -> Span | None:
        spans = space._gen.spans
        return spans[sid] if 0 <= sid < len(spans) else None

    def violation(kind: str, sid: int, message: str) -> ModelRuntimeError:
        sp = span(sid)
        where = f" at {sp}" if sp is not None else ""
        return ModelRuntimeError(f"{message}{where}", sp, kind)

    def fail(kind: str, sid: int, message: str | None = None):
        raise violation(kind, sid, message or kind)

    def _fail(kind: str, sid: int):
        fail(kind, sid)

    def _assert_fail(text: str, sid: int):
        fail("assertion violated", sid, f"assertion violated{': ' + text if text else ''}")

    def _libcall(fn, sid: int, *args):
        try:
            return fn(*args)
        except LibraryError as error:
            fail("library error", sid, str(error))

    def _ix(i: int, n: int, sid: int) -> int:
        if type(i) is tuple:
            fail("value of the wrong kind", sid, "a library value or a whole array "
                 "used as an index")
        if 0 <= i < n:
            return i
        fail("index out of range", sid, f"index {i} out of range 0..{n - 1}")
        return 0

    def _num(v: Any, sid: int) -> Any:
        if type(v) is tuple:
            fail("value of the wrong kind", sid, "a library value or a whole array used "
                 "as a number")
        return v

    def _div(a: int, b: int, sid: int) -> int:
        if b == 0:
            fail("division by zero", sid)
        return c_div(a, b)

    def _rem(a: int, b: int, sid: int) -> int:
        if b == 0:
            fail("division by zero", sid)
        return c_rem(a, b)

    def _mod(a: int, b: int, sid: int) -> int:
        if b == 0:
            fail("division by zero", sid)
        return a % b

    def _shift(a: int, b: int, left: bool, sid: int) -> int:
        if b < 0:
            fail("negative shift count", sid)
        return a << b if left else a >> b

    def _rng(v: int, lo: int | None, hi: int | None, sid: int) -> int:
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            fail("range violation", sid, f"value {int(v)} outside the range "
                 f"{'' if lo is None else lo}..{'' if hi is None else hi}")
        return v

    layouts = space._layouts
    ls = lay.layout_slot

    def _chan(src, cid: int, sid: int):
        rl = space._static_layout if ls is None else layouts[src[ls]]
        rec = rl.chans.get(cid)
        if rec is None:
            fail("invalid channel", sid, f"invalid channel id {cid}")
        return rec

    def _cquery(src, ch, op: str):
        off, cap, nf, _ = ch
        n = src[off] if cap > 0 else 0
        if op == "len":
            return n
        if op == "empty":
            return n == 0
        if op == "nempty":
            return n != 0
        if op == "full":
            return cap == 0 or n >= cap  # SPIN 6.5.2: a rendezvous port is full
        if op == "nfull":
            return cap > 0 and n < cap
        fail("unknown channel query", -1, f"unknown channel query '{op}'")

    def _matches(src, off: int, nf: int, j: int, pattern) -> bool:
        p = off + 1 + j * nf
        for q, want in enumerate(pattern):
            if want is not None and src[p + q] != want:
                return False
        return True

    def _find(src, ch, pattern, random: bool) -> int:
        off, cap, nf, _ = ch
        n = src[off]
        if n == 0:
            return -1
        if not random:
            return 0 if _matches(src, off, nf, 0, pattern) else -1
        for j in range(n):
            if _matches(src, off, nf, j, pattern):
                return j
        return -1

    def _candidates(src, ch, pattern, random: bool) -> list[int]:
        off, cap, nf, _ = ch
        n = src[off]
        if not random:
            return [0] if n and _matches(src, off, nf, 0, pattern) else []
        return [j for j in range(n) if _matches(src, off, nf, j, pattern)]

    def _poll(src, ch, pattern, random: bool) -> bool:
        if ch[1] == 0:
            return False
        return _find(src, ch, pattern, random) >= 0

    def _take(t, ch, j: int, peek: bool):
        off, cap, nf, _ = ch
        p = off + 1 + j * nf
        msg = tuple(t[p: p + nf])
        if not peek:
            n = t[off]
            end = off + 1 + n * nf
            t[p: end - nf] = t[p + nf: end]
            t[end - nf: end] = [0] * nf
            t[off] = n - 1
        return msg

    def _push(t, ch, msg, sorted_: bool) -> None:
        off, cap, nf, _ = ch
        n = t[off]
        if sorted_:
            j = 0
            while j < n and tuple(t[off + 1 + j * nf: off + 1 + (j + 1) * nf]) <= tuple(msg):
                j += 1
            p = off + 1 + j * nf
            end = off + 1 + n * nf
            t[p + nf: end + nf] = t[p:end]
            t[p: p + nf] = list(msg)
        else:
            p = off + 1 + n * nf
            t[p: p + nf] = list(msg)
        t[off] = n + 1

    def _arity(src, ch, msg, sid: int) -> None:
        # pan's qsend: a send whose number of values differs from the channel's fields
        # is an error when it executes (a full buffered channel blocks it first).
        if ch[1] == 0 or src[ch[0]] < ch[1]:
            few = "few" if len(msg) < ch[2] else "many"
            fail(f"too {few} parameters in send stmnt", sid,
                 f"too {few} parameters in send stmnt: {len(msg)} value(s) sent on "
                 f"{_chan_name(ch[3])}, which has {ch[2]} field(s)")

    def _chan_name(cid: int) -> str:
        return _all_chan_names().get(cid, f"channel {cid}")

    def _send_now(t, ch, msg, sorted_: bool, sid: int) -> None:
        if len(msg) != ch[2]:
            _arity(t, ch, msg, sid)
        if ch[1] == 0:
            fail("block in d_step", sid, "rendezvous send inside an atomic effect")
        if t[ch[0]] >= ch[1]:
            fail("block in d_step", sid, "send to a full channel inside an atomic effect")
        _push(t, ch, msg, sorted_)

    def _recv_now(t, ch, pattern, random: bool, peek: bool, sid: int):
        if ch[1] == 0:
            fail("block in d_step", sid, "rendezvous receive inside an atomic effect")
        j = _find(t, ch, pattern, random)
        if j < 0:
            fail("block in d_step", sid, "receive that blocks inside an atomic effect")
        return _take(t, ch, j, peek)

    # Channels whose messages carry their arity first (ir.Channel.arity_tag): the
    # event shows the message's own values only.
    tagged = frozenset(c.id for c in lay.channels if c.channel.arity_tag)

    def _chev(ch, sep: str, msg) -> str:
        if ch[3] in tagged:
            msg = msg[1:1 + msg[0]]
        rl = space._static_layout if space._static_layout is not None else None
        names = rl.chan_names if rl is not None else _all_chan_names()
        return f"{names.get(ch[3], str(ch[3]))}{sep}{'.'.join(str(v) for v in msg)}"

    def _all_chan_names() -> dict[int, str]:
        names: dict[int, str] = {}
        for rl in layouts:
            names.update(rl.chan_names)
        return names

    step_for = space._step_for

    def _mkstep(event, pid: int, k: int) -> Step:
        return step_for(event, ((pid, k),))

    def _run(t, tpl: int, args, sid: int, priority: int = 1, creator: int = -1) -> int:
        rl = layouts[t[ls]]
        if rl.n >= space.system.max_instances:
            fail("too many processes", sid)
        templates = rl.templates + (tpl,)
        _, _, _, seg_ids, _ = space._geometry(templates)
        pid = rl.n
        b = len(t)
        t.extend([0] * lay.processes[tpl].size)
        space._seg_init[tpl](t, b, pid, args, seg_ids[pid])
        offset = lay.processes[tpl].priority_offset
        if offset is not None:
            if not 1 <= priority <= 255:
                fail("priority is out of range", sid,
                     f"priority is out of range: {priority} (valid: 1..255)")
            t[b + offset] = priority
        t[ls] = space._layout_for(rl.key + ((tpl, space.const_values(t, tpl, b)),)).id
        if claimers[tpl] is not None:
            _claim(t, tpl, b, pid, creator)
        return pid

    def _instance_of(src, pid: int, tpl: int, sid: int):
        """Return the runtime layout if ``pid`` runs an instance of ``tpl``, None if it
        does not run; a pid running another process is a model error."""
        rl = layouts[src[ls]]
        if not 0 <= pid < rl.n:
            return None
        if rl.templates[pid] != tpl:
            other = lay.processes[rl.templates[pid]].process.name
            fail("invalid remote reference", sid,
                 f"invalid remote reference: pid {pid} runs {other}, not "
                 f"{lay.processes[tpl].process.name}")
        return rl

    def _lowest(src, tpl: int) -> int:
        rl = layouts[src[ls]]
        for i, t in enumerate(rl.templates):
            if t == tpl:
                return i
        return -1

    def _rbase(src, pid: int, tpl: int, sid: int) -> int:
        # a remote reference that is written: the instance must run
        if pid < 0:
            pid = _lowest(src, tpl)
        rl = _instance_of(src, pid, tpl, sid)
        if rl is None:
            fail("invalid remote reference", sid,
                 f"no running instance {pid} of process '{lay.processes[tpl].process.name}'")
        return rl.bases[pid]

    def _rbase_read(src, pid: int, tpl: int, sid: int) -> int:
        # SPIN (pan.c Pptr, f_pid): P@L / P:x name the running instance of P with the
        # lowest pid; an instance that does not run reads as a zeroed process. The
        # base returned for it lies past the end of the state, which _rd and _rloc
        # read as 0 and "at no location".
        if pid < 0:
            pid = _lowest(src, tpl)
        rl = _instance_of(src, pid, tpl, sid)
        return len(src) if rl is None else rl.bases[pid]

    def _rd(src, off: int, size: int):
        if off >= len(src):
            return 0 if size == 1 else (0,) * size
        return src[off] if size == 1 else tuple(src[off:off + size])

    def _rloc(src, b: int) -> int:
        return src[b] if b < len(src) else -1

    enabled_depth = [0]

    def _enabled(src, q: int, me: int, sid: int) -> bool:
        # pan.c enabled(): does instance q have an executable statement? (TstOnly)
        if q == me:
            fail("enabled() of the process itself", sid, "used: enabled(pid=thisproc): a "
                 "process may not ask whether it is itself enabled")
        rl = layouts[src[ls]]
        if not 0 <= q < rl.n:
            return False
        fns, b, pid, _atom, term = rl.runners[q]
        loc = src[b]
        if q == rl.n - 1 and loc in term:
            return True  # it may die (pan: -end- is executable for the youngest)
        f = fns[loc] if loc < len(fns) else None
        if f is None:
            return False
        enabled_depth[0] += 1
        try:
            if enabled_depth[0] > 64:
                fail("enabled() recursion", sid, "enabled() nested more than 64 deep (the "
                     "guards of processes ask enabled() of each other in a cycle)")
            out: list = []
            aux: list = []
            f(src, b, pid, out, aux)
            if out:
                return True
            for item in aux:
                if item[0] == 4:
                    return True  # else: no other statement of q is executable
                if item[0] == 5:
                    found: list = []
                    item[2](src, item[3], pid, found, [], False)  # timeout read as false
                    if found:
                        return True
                elif item[0] in (1, 2):
                    fail("enabled() with rendezvous", sid,
                         "enabled() of a process at a rendezvous statement")
            return False
        finally:
            enabled_depth[0] -= 1

    def _getprio(src, pid: int) -> int:
        rl = layouts[src[ls]]
        if 0 <= pid < rl.n:
            return src[rl.prio_slots[pid]]
        return 0

    def _setprio(t, pid: int, value: int, checked: bool, sid: int) -> None:
        rl = layouts[t[ls]]
        if not 0 <= pid < rl.n:
            return  # pan: no such process, nothing happens
        if checked and not 1 <= value <= 255:
            fail("priority is out of range", sid,
                 f"priority is out of range: {value} (valid: 1..255)")
        t[rl.prio_slots[pid]] = value & 255

    exclusive = lay.exclusive_slot
    scheduling = space.system.priority_scheduling

    def _select(s, out, rl):
        """Return the steps of Promela state ``s`` that pan takes, and raise the model
        error (met while computing them, in ``_XP``) of an instance whose statements
        pan tries in ``s``.

        Priorities (pan.c highest_priority): an instance moves only if no other one
        with a higher priority can; an instance whose evaluation failed counts as able
        to move. Atomicity: the instance holding it moves alone while it can. Only the
        instances left are tried: another's error (a failing assert, an xr/xs claim...)
        is not reached by pan in this state.
        """
        errors = pending
        best = -1
        if scheduling and (out or errors):
            slots = rl.prio_slots
            for st, _ in out:
                for p in st.processes:
                    if s[slots[p]] > best:
                        best = s[slots[p]]
            for p, _ in errors:
                if s[slots[p]] > best:
                    best = s[slots[p]]
            out = [x for x in out if any(s[slots[p]] == best for p in x[0].processes)]
        holder = -1
        if exclusive is not None and out:
            h = s[exclusive]
            if h >= 0:
                chosen = [x for x in out if h in x[0].processes]
                if chosen:
                    out = chosen
                    holder = h
        if errors:
            for p, error in errors:
                if (holder < 0 or p == holder) and (best < 0 or s[rl.prio_slots[p]] == best):
                    raise error
        initial = space._initial_claim_error
        if initial is not None and s == space._initial:
            raise initial
        return out

    # ----- xr / xs channel assertions (pan's default build: q_R_check, q_S_check)

    claimers = space._claimers
    pending = space._claim_pending
    kinds = {1: "xr", 2: "xs"}
    nglobal = len(lay.channels)

    def _owner(src, cid: int, bit: int) -> int:
        """Return the pid holding the ``xr`` (bit 1) or ``xs`` (bit 2) claim on channel
        ``cid`` (-1: none): recorded in the claim slots for a global channel, the live
        claimant for a channel created by a process."""
        if 1 <= cid <= nglobal:
            return src[lay.claim_slot + 2 * (cid - 1) + (bit - 1)] - 1
        rl = layouts[src[ls]]
        for i, (t, b) in enumerate(zip(rl.templates, rl.bases, strict=True)):
            if claimers[t] is not None:
                for kbit, kcid, _ in claimers[t](src, b, i):
                    if kbit == bit and kcid == cid:
                        return i
        return -1

    def _claim_message(kind: str, cid: int, who: int, owner: int, src) -> str:
        return (f"{kind} assertion violated: access to chan {_chan_name(cid)} by "
                f"{space.instance_name(who, tuple(src))}, which "
                f"{space.instance_name(owner, tuple(src))} claimed with {kind}")

    def _xacc(src, cid: int, pid: int, mask: int, sid: int) -> bool:
        for bit in (1, 2):
            if mask & bit:
                owner = _owner(src, cid, bit)
                if owner >= 0 and owner != pid:
                    pending.append((pid, violation(
                        f"{kinds[bit]} assertion violated", sid,
                        _claim_message(kinds[bit], cid, pid, owner, src))))
        return True

    def _xq(src, cid: int, pid: int, mask: int, sid: int, value):
        _xacc(src, cid, pid, mask, sid)
        return value

    def _claim(t, tpl: int, b: int, pid: int, creator: int) -> None:
        # pan's setq_claim, when the instance is created
        rl = layouts[t[ls]]
        for bit, cid, sid in claimers[tpl](t, b, pid):
            kind = kinds[bit]
            if cid == 0:
                pending.append((creator, violation(
                    "x[rs] claim on uninitialized channel", sid,
                    f"x[rs] claim on uninitialized channel ({kind} by "
                    f"{space.instance_name(pid, tuple(t))})")))
                continue
            record = rl.chans.get(cid)
            if record is not None and record[1] == 0:
                pending.append((creator, violation(
                    f"{kind} chans cannot be used for rv", sid,
                    f"{kind} chans cannot be used for rv: {_chan_name(cid)} is a "
                    "rendezvous channel")))
                continue
            if 1 <= cid <= nglobal:
                slot = lay.claim_slot + 2 * (cid - 1) + (bit - 1)
                if t[slot] == 0:
                    t[slot] = pid + 1
                elif t[slot] != pid + 1:
                    pending.append((creator, violation(
                        f"{kind} assertion violated", sid,
                        _claim_message(kind, cid, pid, t[slot] - 1, t))))
                continue
            for i, (u, ub) in enumerate(zip(rl.templates, rl.bases, strict=True)):
                if i != pid and claimers[u] is not None and any(
                        kbit == bit and kcid == cid for kbit, kcid, _ in claimers[u](t, ub, i)):
                    pending.append((creator, violation(
                        f"{kind} assertion violated", sid, _claim_message(kind, cid, pid, i, t))))

    progress_sets = [frozenset(x.id for x in p.process.locations if x.progress)
                     for p in lay.processes]

    def _np(src) -> bool:
        rl = space.layout_of(src)
        return not any(src[b] in progress_sets[t] for t, b in zip(rl.templates, rl.bases, strict=True))

    del spans_holder
    return {
        "_fail": _fail, "_assert_fail": _assert_fail, "_ix": _ix, "_num": _num, "_div": _div,
        "_libcall": _libcall, "_stored": stored_value,
        "_rem": _rem, "_mod": _mod, "_shift": _shift, "_rng": _rng, "_chan": _chan,
        "_cquery": _cquery, "_find": _find, "_candidates": _candidates, "_poll": _poll, "_take": _take,
        "_push": _push, "_send_now": _send_now, "_recv_now": _recv_now, "_chev": _chev,
        "_mkstep": _mkstep, "_run": _run, "_rbase": _rbase, "_rbase_read": _rbase_read,
        "_rd": _rd, "_rloc": _rloc, "_enabled": _enabled, "_getprio": _getprio,
        "_setprio": _setprio, "_select": _select, "_arity": _arity, "_MRE": ModelRuntimeError,
        "_xacc": _xacc, "_xq": _xq, "_XP": pending, "_np": _np,
        "_LAYOUTS": layouts, "BoolType": BoolType, "RecvBind": RecvBind,
    }


