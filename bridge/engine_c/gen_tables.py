"""The C generator's tables and layout code: channel descriptors, segment and instance
structure, ``run``, ``provided``, the property expressions, the successor function
of the whole system, priorities, claims (xr/xs) and atomic edges (issue 12).
"""
from __future__ import annotations

from typing import Any

from bridge.engine_c.gen_base import (
    MAX_PROCESSES,
    CUnsupported,
    _Ctx,
    _kind_const,
    _Place,
)
from bridge.engine_c.layout import (
    I32,
    Kind,
    kind_for_range,
    kind_of_type,
)
from bridge.ir import (
    ArrayType,
    Channel,
    Composition,
    ElseGuard,
    InstanceRef,
    Interleave,
    Parallel,
    SourceLanguage,
    Type,
)
from bridge.semantics.codegen import event_constant, event_is_constant

# CSP# barriers combined at run time (CGenerator.runtime_barriers_code): the offers of
# composition node ``node`` (kind 0 an instance, 1 '|||', 2 '||') as make_combiner
# builds them, a list of (event, offers) in the same order.
_RUNTIME_BARRIERS = r"""
typedef struct { size_t n, ecap, ocap, lcap, np, pcap; int32_t *ev; uint32_t *off, *len;
                 int32_t *parts; } bl_t;
static void bl_free(bl_t *l) { free(l->ev); free(l->off); free(l->len); free(l->parts); }
/* append (ev, a[0..na)) to l; 0 when out of memory (the search stops, as for offers) */
static int bl_push(ctx_t *c, bl_t *l, int32_t ev, const int32_t *a, uint32_t na) {
  if (!br_grow((void **)&l->ev, &l->ecap, l->n + 1, sizeof(int32_t))
      || !br_grow((void **)&l->off, &l->ocap, l->n + 1, sizeof(uint32_t))
      || !br_grow((void **)&l->len, &l->lcap, l->n + 1, sizeof(uint32_t))
      || !br_grow((void **)&l->parts, &l->pcap, l->np + na + 1, sizeof(int32_t))) {
    c->oom = 1; c->fallback = 1; return 0;
  }
  l->ev[l->n] = ev; l->off[l->n] = (uint32_t)l->np; l->len[l->n] = na;
  for (uint32_t q = 0; q < na; q++) l->parts[l->np++] = a[q];
  l->n++;
  return 1;
}
/* is ev in the sorted set[lo..hi) */
static int bn_in(const int32_t *set, int32_t lo, int32_t hi, int32_t ev) {
  int32_t end = hi;
  while (lo < hi) { int32_t mid = lo + (hi - lo) / 2;
    if (set[mid] < ev) lo = mid + 1; else hi = mid; }
  return ev >= 0 && lo < end && set[lo] == ev;
}
static int bn_shared(int32_t slot, int32_t ev) {
  return BR_BN_SOFF[slot] < BR_BN_SOFF[slot + 1]
      && bn_in(BR_BN_SHARED, BR_BN_SOFF[slot], BR_BN_SOFF[slot + 1], ev);
}
static int32_t bn_name(int node, int32_t ev) {  /* hidden above the node: tau */
  return BR_BN_HOFF[node] < BR_BN_HOFF[node + 1]
      && bn_in(BR_BN_HIDDEN, BR_BN_HOFF[node], BR_BN_HOFF[node + 1], ev) ? -1 : ev;
}
static void bn_offers(ctx_t *c, int node, bl_t *out) {
  if (c->oom) return;
  if (BR_BN_KIND[node] == 0) {
    for (size_t i = 0; i < c->noffers; i++) {
      const offer_t *o = &c->offers[i]; int32_t j = (int32_t)i;
      if (o->kind == 3 && o->pid == BR_BN_INST[node]
          && !bl_push(c, out, (int32_t)o->cid, &j, 1)) return;
    }
    return;
  }
  int32_t k0 = BR_BN_COFF[node], nk = BR_BN_COFF[node + 1] - k0;
  if (BR_BN_KIND[node] == 1) {
    for (int32_t ci = 0; ci < nk; ci++) bn_offers(c, BR_BN_KIDS[k0 + ci], out);
    return;
  }
  bl_t *kid = calloc((size_t)nk, sizeof(bl_t));
  int32_t *pend = NULL, *pick = NULL, *need = NULL, *lists = NULL;
  size_t npend = 0, pcap = 0, lcap = 0;
  if (!kid) { c->oom = 1; c->fallback = 1; return; }
  for (int32_t ci = 0; ci < nk; ci++) bn_offers(c, BR_BN_KIDS[k0 + ci], &kid[ci]);
  /* passed up in scan order; the shared events in the order first offered */
  for (int32_t ci = 0; ci < nk && !c->oom; ci++)
    for (size_t q = 0; q < kid[ci].n && !c->oom; q++) {
      int32_t ev = kid[ci].ev[q];
      if (!bn_shared(k0 + ci, ev)) {
        bl_push(c, out, bn_name(node, ev), kid[ci].parts + kid[ci].off[q], kid[ci].len[q]);
        continue;
      }
      size_t p = 0; while (p < npend && pend[p] != ev) p++;
      if (p == npend) {
        if (!br_grow((void **)&pend, &pcap, npend + 1, sizeof(int32_t))) { c->oom = 1; c->fallback = 1; break; }
        pend[npend++] = ev;
      }
    }
  need = malloc(sizeof(int32_t) * (size_t)(nk + 1));
  pick = malloc(sizeof(int32_t) * (size_t)(nk + 1));
  int32_t *start = malloc(sizeof(int32_t) * (size_t)(nk + 2));
  if (!need || !pick || !start) { c->oom = 1; c->fallback = 1; }
  for (size_t p = 0; p < npend && !c->oom; p++) {
    int32_t ev = pend[p], nn = 0; size_t nl = 0; int empty = 0;
    for (int32_t ci = 0; ci < nk && !c->oom; ci++) {
      if (!bn_shared(k0 + ci, ev)) continue;
      need[nn] = ci; start[nn] = (int32_t)nl;
      for (size_t q = 0; q < kid[ci].n; q++)
        if (kid[ci].ev[q] == ev) {
          if (!br_grow((void **)&lists, &lcap, nl + 1, sizeof(int32_t))) { c->oom = 1; c->fallback = 1; break; }
          lists[nl++] = (int32_t)q;
        }
      if ((int32_t)nl == start[nn]) empty = 1;
      nn++;
    }
    start[nn] = (int32_t)nl;
    if (empty || c->oom) continue;
    /* itertools.product order: the last operand's choice varies fastest */
    for (int32_t m = 0; m < nn; m++) pick[m] = 0;
    for (;;) {
      size_t at = out->n;
      if (!bl_push(c, out, bn_name(node, ev), NULL, 0)) break;
      for (int32_t m = 0; m < nn; m++) {
        const bl_t *l = &kid[need[m]];
        int32_t q = lists[start[m] + pick[m]];
        size_t base = out->np;
        if (!br_grow((void **)&out->parts, &out->pcap, base + l->len[q], sizeof(int32_t))) {
          c->oom = 1; c->fallback = 1; break;
        }
        for (uint32_t r = 0; r < l->len[q]; r++) out->parts[out->np++] = l->parts[l->off[q] + r];
        out->len[at] += l->len[q];
      }
      if (c->oom) break;
      int32_t m = nn - 1;
      while (m >= 0 && ++pick[m] == start[m + 1] - start[m]) { pick[m] = 0; m--; }
      if (m < 0) break;
    }
  }
  for (int32_t ci = 0; ci < nk; ci++) bl_free(&kid[ci]);
  free(kid); free(pend); free(need); free(pick); free(start); free(lists);
}
static void br_barriers(ctx_t *c, const uint8_t *s, uint32_t slen) {
  bl_t out; memset(&out, 0, sizeof out);
  bn_offers(c, 0, &out);
  for (size_t q = 0; q < out.n && !c->oom; q++) {
    size_t pos = c->nrv;
    if (pos + 1 + out.len[q] >= 999999) { br_fallback(c); break; }  /* labels run out */
    if (!br_grow((void **)&c->rv, &c->rv_cap, pos + 1 + out.len[q], sizeof(int32_t))) {
      c->oom = 1; c->fallback = 1; break;
    }
    const int32_t *parts = out.parts + out.off[q];
    c->rv[pos] = (int32_t)out.len[q];
    for (uint32_t r = 0; r < out.len[q]; r++) c->rv[pos + 1 + r] = parts[r];
    c->nrv = pos + 1 + out.len[q];
    uint8_t *t = succ_begin(c, s, slen);
    for (uint32_t r = 0; r < out.len[q]; r++) {
      const offer_t *o = &c->offers[parts[r]];
      o->apply(c, t, o->base, o->pid, NULL);
    }
    for (uint32_t r = 0; r < out.len[q]; r++) succ_proc(c, c->offers[parts[r]].pid);
    succ_commit(c, -(int32_t)(pos + 1), out.ev[q]);
  }
  bl_free(&out);
}
"""


# Remote references (statespace._rbase / _rbase_read): the instance with pid ``want``,
# or (want < 0) the running instance of the template with the lowest pid. Read, an
# instance that does not run is BR_NOBASE (reads 0, at no label); written, an error;
# a pid that runs another process is an error either way.
_REMOTE_HELPERS = r"""
static uint32_t model_base_of(const uint8_t *s, int want, int *tpl) {
  uint32_t pos = BR_STATIC_BYTES;
  for (int pid = 0; pid < want; pid++) pos += SEG_SIZE[model_template(s, pos, pid)];
  *tpl = model_template(s, pos, want);
  return pos;
}
static V remote_lowest(const uint8_t *s, int tpl) {
  uint32_t pos = BR_STATIC_BYTES; int n = model_nproc(s);
  for (int pid = 0; pid < n; pid++) { int t = model_template(s, pos, pid);
    if (t == tpl) return pid; pos += SEG_SIZE[t]; }
  return -1;
}
static uint32_t remote_base(ctx_t *c, const uint8_t *s, V want, int tpl) {
  if (want < 0) want = remote_lowest(s, tpl);
  int n = model_nproc(s), t;
  if (want < 0 || want >= n) { br_fail(c); return BR_STATIC_BYTES; }
  uint32_t pos = model_base_of(s, (int)want, &t);
  if (t != tpl) { br_fail(c); return BR_STATIC_BYTES; }
  return pos;
}
static uint32_t remote_read_base(ctx_t *c, const uint8_t *s, V want, int tpl) {
  if (want < 0) want = remote_lowest(s, tpl);
  int n = model_nproc(s), t;
  if (want < 0 || want >= n) return BR_NOBASE;
  uint32_t pos = model_base_of(s, (int)want, &t);
  if (t != tpl) { br_fail(c); return BR_NOBASE; }
  return pos;
}
"""


# enabled(q) (statespace._enabled): does instance q have an executable statement in s?
# Its location function runs in a context one level down; an error there (or asking
# about the process itself, or a rendezvous statement, or 64 levels of enabled()) is an
# error of the caller, and xr/xs violations met there are recorded as the Python
# engine's shared list records them.
_ENABLED = r"""
static ctx_t *ctx_child(ctx_t *c) {
  if (!c->sub) {
    ctx_t *d = calloc(1, sizeof *d);
    if (!d || !succ_reserve(d)) { free(d); c->oom = 1; c->fallback = 1; return NULL; }
    d->depth = c->depth + 1;
    c->sub = d;
  }
  ctx_t *d = c->sub;
  d->n = d->noffers = d->nelses = d->ntmos = 0;
  d->err = d->fallback = 0;
  perr_clear(d);
  return d;
}
static V model_enabled(ctx_t *c, const uint8_t *s, uint32_t slen, V q, int me) {
  if (q == me) { br_fail(c); return 0; }
  int n = model_nproc(s);
  if (q < 0 || q >= n) return 0;
  int tpl;
  uint32_t b = model_base_of(s, (int)q, &tpl);
  V loc = loc_at(s, b, tpl);
  if (q == n - 1 && loc_terminal(tpl, loc)) return 1;  /* it may die */
  if (!loc_code(tpl, loc)) return 0;
  if (c->depth + 1 > 64) { br_fail(c); return 0; }
  ctx_t *d = ctx_child(c);
  if (!d) return 0;
  model_instance(d, s, slen, b, (int)q, tpl);
  int r = 0;
  if (!d->err && !d->fallback) {
    if (d->n) r = 1;
    else if (d->noffers) br_fail(d);  /* enabled() of a process at a rendezvous */
    else if (d->nelses) r = 1;
    else for (size_t i = 0; i < d->ntmos && !r; i++) {
      size_t n0 = d->n;
      d->tmos[i].fn(d, s, slen, d->tmos[i].base, d->tmos[i].pid, 0);
      if (d->err || d->fallback) break;
      if (d->n > n0) r = 1;
    }
  }
  for (int w = 0; w < BR_PWORDS; w++) c->perr[w] |= d->perr[w];
  if (d->oom) c->oom = 1;
  if (d->fallback) { br_fallback(c); return 0; }
  if (d->err) { br_fail(c); return 0; }
  return r;
}
"""

# get_priority / set_priority (statespace._getprio / _setprio)
_PRIORITY = r"""
static V model_getprio(const uint8_t *s, V q) {
  int n = model_nproc(s);
  if (q < 0 || q >= n) return 0;
  int tpl;
  uint32_t b = model_base_of(s, (int)q, &tpl);
  return rd_u8(s, b + PRIO_OFF[tpl]);
}
static void model_setprio(ctx_t *c, uint8_t *t, V q, V v, int checked) {
  int n = model_nproc(t);
  if (q < 0 || q >= n) return;  /* pan: no such process, nothing happens */
  if (checked && (v < 1 || v > 255)) { br_fail(c); return; }
  int tpl;
  uint32_t b = model_base_of(t, (int)q, &tpl);
  wr_u8(t, b + PRIO_OFF[tpl], v & 255);
}
"""

# xr/xs (pan's default build; statespace._owner, _xacc, _claim): a global channel's
# claimant is recorded in its claim slots (pid + 1); a process-local channel's is the
# live instance that claims it. A violation is recorded for the accessing instance
# (for claims made by run: its creator), to count only if pan tries that instance.
_CLAIMS = r"""
static V claim_owner(ctx_t *c, const uint8_t *src, V cid, int bit) {
  if (cid >= 1 && cid <= BR_NGLOBAL)
    return (V)rd_u16(src, BR_CLAIM_OFF + 2 * (2 * ((uint32_t)cid - 1) + (uint32_t)bit - 1)) - 1;
  int n = model_nproc(src);
  uint32_t pos = BR_STATIC_BYTES;
  for (int i = 0; i < n; i++) {
    int t = model_template(src, pos, i);
    int bits[BR_MAXCLAIMS]; V cids[BR_MAXCLAIMS];
    int k = model_claims(c, src, t, pos, i, bits, cids);
    for (int j = 0; j < k; j++) if (bits[j] == bit && cids[j] == cid) return i;
    pos += SEG_SIZE[t];
  }
  return -1;
}
static void xacc(ctx_t *c, const uint8_t *src, V cid, int pid, int mask) {
  for (int bit = 1; bit <= 2; bit++)
    if (mask & bit) {
      V owner = claim_owner(c, src, cid, bit);
      if (owner >= 0 && owner != pid) perr_set(c, pid);
    }
}
static void claim_new(ctx_t *c, uint8_t *t, int tpl, uint32_t b, int pid, int creator) {
  int bits[BR_MAXCLAIMS]; V cids[BR_MAXCLAIMS];
  int k = model_claims(c, t, tpl, b, pid, bits, cids);
  for (int j = 0; j < k; j++) {
    V cid = cids[j]; int bit = bits[j];
    chan_t ch;
    if (cid == 0 || (chan_find(t, cid, &ch) && ch.cap == 0)) { perr_set(c, creator); continue; }
    if (cid >= 1 && cid <= BR_NGLOBAL) {
      uint32_t off = BR_CLAIM_OFF + 2 * (2 * ((uint32_t)cid - 1) + (uint32_t)bit - 1);
      V v = rd_u16(t, off);
      if (v == 0) wr_u16(t, off, pid + 1);
      else if (v != pid + 1) perr_set(c, creator);
      continue;
    }
    int n = model_nproc(t);
    uint32_t pos = BR_STATIC_BYTES;
    for (int i = 0; i < n; i++) {
      int u = model_template(t, pos, i);
      if (i != pid) {
        int ob[BR_MAXCLAIMS]; V oc[BR_MAXCLAIMS];
        int m = model_claims(c, t, u, pos, i, ob, oc);
        for (int q = 0; q < m; q++) if (ob[q] == bit && oc[q] == cid) perr_set(c, creator);
      }
      pos += SEG_SIZE[u];
    }
  }
}
"""


class Tables:
    """The table half of ``codegen.CGenerator`` (a mixin: its state is there)."""

    def _channel_descriptor(self, name: str, channel: Channel, off: int, cid: int) -> str:
        cap = channel.capacity
        kinds = [kind_of_type(f)[0] for f in channel.fields] or [I32]
        lk = kind_for_range(0, max(cap, 0)) or I32
        fo, pos = [], 0
        for k in kinds[: len(channel.fields)]:
            fo.append(pos)
            pos += k.width
        fk_name, fo_name = f"CHFK_{name}", f"CHFO_{name}"
        self.channel_tables.append(
            f"static const uint8_t {fk_name}[] = {{{', '.join(_kind_const(k) for k in kinds)}}};")
        self.channel_tables.append(
            f"static const uint32_t {fo_name}[] = {{{', '.join(map(str, fo)) or '0'}}};")
        return (f"((chan_t){{{off}, {cap}, {len(channel.fields)}, {cid}, {_kind_const(lk)}, "
                f"{lk.width}, {pos}, {fk_name}, {fo_name}}})")

    def channel_tables_code(self) -> list[str]:
        """Return the channel descriptors and ``chan_lookup`` (``statespace._chan``)."""
        lay = self.layout
        lines: list[str] = []
        for c in lay.channels:
            off = self.static_off(c.offset) if c.capacity > 0 else 0
            desc = self._channel_descriptor(f"G{c.id}", c.channel, off, c.id)
            lines.append(f"#define CH_G{c.id} {desc}")
        for t, p in enumerate(lay.processes):
            seg = self.packed.segments[t]
            for j, c in enumerate(p.channels):
                off = seg.offsets[c.offset] if c.capacity > 0 else 0
                desc = self._channel_descriptor(f"P{t}_{j}", c.channel, off, 0)
                lines.append(f"#define CH_P{t}_{j} {desc}")
        lines.append("static const chan_t CH_NONE = {0, 0, 0, 0, K_U8, 1, 0, NULL, NULL};")
        lines.append("static int chan_find(const uint8_t *src, V cid, chan_t *out) {")
        lines.append("  (void)src;")
        lines.append("  switch (cid) {")
        for c in lay.channels:
            lines.append(f"  case {c.id}: *out = CH_G{c.id}; return 1;")
        lines.append("  default: break;")
        lines.append("  }")
        if any(p.channels for p in lay.processes):
            lines.append(f"  V next = {len(lay.channels) + 1};")
            lines.append("  uint32_t pos = BR_STATIC_BYTES;")
            lines.append("  int n = model_nproc(src);")
            lines.append("  for (int pid = 0; pid < n; pid++) {")
            lines.append("    int tpl = model_template(src, pos, pid);")
            lines.append("    switch (tpl) {")
            for t, p in enumerate(lay.processes):
                if not p.channels:
                    continue
                lines.append(f"    case {t}:")
                for j, _ in enumerate(p.channels):
                    lines.append(f"      if (next == cid) {{ chan_t ch = CH_P{t}_{j}; "
                                 "if (ch.cap > 0) ch.off += pos; ch.id = (int32_t)cid; *out = ch; "
                                 "return 1; }")
                    lines.append("      next++;")
                lines.append("      break;")
            lines.append("    default: break;")
            lines.append("    }")
            lines.append("    pos += SEG_SIZE[tpl];")
            lines.append("  }")
        lines.append("  return 0;")
        lines.append("}")
        lines.append("static chan_t chan_lookup(ctx_t *c, const uint8_t *src, V cid) {")
        lines.append("  chan_t ch;")
        lines.append("  if (chan_find(src, cid, &ch)) return ch;")
        lines.append("  br_fail(c);")
        lines.append("  return CH_NONE;")
        lines.append("}")
        return lines

    def structure_code(self) -> list[str]:
        """Return segment sizes, instance/template helpers, remote references, ``np_``,
        "some instance at an accept location", ``is_terminal`` and ``is_valid_end``."""
        lay = self.layout
        segs = self.packed.segments
        lines = [f"static const uint32_t SEG_SIZE[{max(1, len(segs))}] = "
                 f"{{{', '.join(str(s.size) for s in segs) or '0'}}};"]
        if lay.dynamic:
            lines.append("static inline int model_nproc(const uint8_t *s) { return (int)"
                         f"{self.read_static('s', lay.layout_slot)}; }}")
            lines.append("static inline int model_template(const uint8_t *s, uint32_t pos, int pid) "
                         "{ (void)pid; return s[pos]; }")
            lines.append("static inline int model_pid_tpl(const ctx_t *c, int pid) "
                         "{ return c->ptpl[pid]; }")
        else:
            tpls = list(lay.initial_templates) or [0]
            lines.append(f"static const int STATIC_TEMPLATES[{len(tpls)}] = {{{', '.join(map(str, tpls))}}};")
            lines.append("static inline int model_nproc(const uint8_t *s) { (void)s; return "
                         f"{len(lay.initial_templates)}; }}")
            lines.append("static inline int model_template(const uint8_t *s, uint32_t pos, int pid) "
                         "{ (void)s; (void)pos; return STATIC_TEMPLATES[pid]; }")
            lines.append("static inline int model_pid_tpl(const ctx_t *c, int pid) "
                         "{ (void)c; return STATIC_TEMPLATES[pid]; }")
        lines.extend(self.location_tables())
        # a Promela trace's end states also need the system's end_condition
        # (statespace.is_valid_end); a model error evaluating it sets c->err
        condition = self.space.system.end_condition
        end_test = "1" if condition is None else self.expr(condition, _Ctx("s", None, None, None, None))
        for name, test, final in (("model_is_terminal", "loc_terminal", "1"),
                                  ("model_is_valid_end", "loc_end", end_test)):
            lines.append(f"static int {name}(ctx_t *c, const uint8_t *s, uint32_t slen) {{")
            lines.append("  (void)c; (void)slen; uint32_t pos = BR_STATIC_BYTES; int n = model_nproc(s);")
            lines.append("  for (int pid = 0; pid < n; pid++) { int tpl = model_template(s, pos, pid);")
            lines.append(f"    if (!{test}(tpl, loc_at(s, pos, tpl))) return 0; pos += SEG_SIZE[tpl]; }}")
            lines.append(f"  return ({final}) != 0;")
            lines.append("}")
        # the pid holding atomicity (Promela's exclusive slot), -1: none (search_ltl.c)
        slot = self.layout.exclusive_slot
        holder = "-1" if slot is None else f"(int){self.read_static('s', slot)}"
        lines.append(f"static inline int model_holder(const uint8_t *s) {{ (void)s; return {holder}; }}")
        lines.append("static V model_np(const uint8_t *s) {")
        lines.append("  uint32_t pos = BR_STATIC_BYTES; int n = model_nproc(s);")
        lines.append("  for (int pid = 0; pid < n; pid++) { int tpl = model_template(s, pos, pid);")
        lines.append("    if (loc_progress(tpl, loc_at(s, pos, tpl))) return 0; pos += SEG_SIZE[tpl]; }")
        lines.append("  return 1;")
        lines.append("}")
        # some running instance at an accept location (cycles._acceptance_letter)
        lines.append("static V model_accept(const uint8_t *s) {")
        lines.append("  uint32_t pos = BR_STATIC_BYTES; int n = model_nproc(s);")
        lines.append("  for (int pid = 0; pid < n; pid++) { int tpl = model_template(s, pos, pid);")
        lines.append("    if (loc_accept(tpl, loc_at(s, pos, tpl))) return 1; pos += SEG_SIZE[tpl]; }")
        lines.append("  return 0;")
        lines.append("}")
        lines.append(_REMOTE_HELPERS)
        return lines

    def location_tables(self) -> list[str]:
        """Return ``loc_at`` (an instance's location) and the location-set tests
        ``loc_terminal``, ``loc_end``, ``loc_atomic``, ``loc_progress``, ``loc_accept``
        as tables indexed by template, not code per template: a static system has a
        template per instance, and a switch over thousands of templates costs the
        compiler more than the rest of the model (issue 12 item 1). Per template a row
        of location flags (bit 1 terminal, 2 end, 4 atomic, 8 progress, 16 accept); equal
        rows are stored once."""
        lay = self.layout
        segs = self.packed.segments
        purposes = (("terminal", self.space._terminal_sets), ("end", self.space._end_sets),
                    ("atomic", self.space._atomic_sets),
                    ("progress", [frozenset(x.id for x in p.process.locations if x.progress)
                                  for p in lay.processes]),
                    ("accept", [frozenset(x.id for x in p.process.locations if x.accept)
                                for p in lay.processes]))
        flags: list[int] = []
        rows: dict[tuple[int, ...], int] = {}
        row_of, count = [], []
        for t in range(len(lay.processes)):
            marked = [x for _, sets in purposes for x in sets[t]]
            row = [0] * (max(marked, default=-1) + 1)
            for bit, (_, sets) in enumerate(purposes):
                for x in sets[t]:
                    if x < 0:
                        raise CUnsupported("a negative location id")
                    row[x] |= 1 << bit
            key = tuple(row)
            if key not in rows:
                rows[key] = len(flags)
                flags.extend(row)
            row_of.append(rows[key])
            count.append(len(row))
        ntpl = max(1, len(segs))
        lines = [
            f"static const uint8_t LOC_KIND[{ntpl}] = "
            f"{{{', '.join(_kind_const(seg.kinds[0]) for seg in segs) or '0'}}};",
            f"static const uint32_t LOC_OFF[{ntpl}] = "
            f"{{{', '.join(str(seg.offsets[0]) for seg in segs) or '0'}}};",
            f"static const uint32_t LOC_ROW[{ntpl}] = {{{', '.join(map(str, row_of)) or '0'}}};",
            f"static const uint32_t LOC_N[{ntpl}] = {{{', '.join(map(str, count)) or '0'}}};",
            f"static const uint8_t LOC_FLAGS[{max(1, len(flags))}] = "
            f"{{{', '.join(map(str, flags)) or '0'}}};",
            "static inline int loc_flag(int tpl, V loc, int bit) {",
            "  return loc >= 0 && loc < (V)LOC_N[tpl] && (LOC_FLAGS[LOC_ROW[tpl] + loc] & bit) != 0;",
            "}",
        ]
        for bit, (purpose, _) in enumerate(purposes):
            lines.append(f"static inline int loc_{purpose}(int tpl, V loc) "
                         f"{{ return loc_flag(tpl, loc, {1 << bit}); }}")
        lines.append("static inline V loc_at(const uint8_t *s, uint32_t pos, int tpl) "
                     "{ return rd_k(LOC_KIND[tpl], s, pos + LOC_OFF[tpl]); }")
        return lines

    def run_code(self) -> list[str]:
        """Return ``run_T`` per template (``statespace._run`` and ``_seginit``)."""
        lay = self.layout
        lines: list[str] = []
        nchans = [len(p.channels) for p in lay.processes]
        if not lay.dynamic:  # no run statement (it would make the layout dynamic)
            return lines
        for t, proc in enumerate(lay.processes):
            seg = self.packed.segments[t]
            p = proc.process
            lines.append(f"static V run_{t}(ctx_t *c, uint8_t *t, const V *args, int nargs, V prio, "
                         "int creator) {")
            lines.append("  (void)args; (void)nargs; (void)prio; (void)creator;")
            ctx = _Ctx("t", "b", "pid", proc, seg)
            ctx.decls = []
            body: list[str] = []
            params = p.parameters
            body.append(f"  if (nargs != {len(params)}) {{ br_fail(c); return pid; }}")
            for j, pname in enumerate(params):
                lslot = proc.locals[pname]
                place = _Place(f"b + {seg.offsets[lslot.offset]}", lslot.type, seg.kinds[lslot.offset],
                               exact=kind_of_type(lslot.type)[1])
                conv, exact = self.convert(f"args[{j}]", lslot.type)
                body.append("  " + self.write(place, conv, exact, ctx))
            for v in p.locals:
                if v.name not in params and self.library_local(v, ctx, seg, proc, body):
                    continue
                if v.name in params or v.init is None:
                    continue
                lslot = proc.locals[v.name]
                self._init_value(body, ctx, f"b + {seg.offsets[lslot.offset]}", v.type, v.init,
                                 lslot.size, seg.kinds[lslot.offset])
            for j, ch in enumerate(proc.channels):
                idx = ch.offset - 1
                body.append(f"  wr_ck(c, {_kind_const(seg.kinds[idx])}, t, b + {seg.offsets[idx]}, next_id + {j});")
            ls = self.static_off(lay.layout_slot)
            lines.append(f"  int n = (int)rd_u8(t, {ls});")
            lines.append(f"  if (n >= {min(self.system.max_instances, MAX_PROCESSES)}) {{ br_fail(c); return 0; }}")
            lines.append("  uint32_t b = c->tlen;")
            lines.append(f"  if (b + {seg.size} > BR_MAXVEC) {{ br_fallback(c); return 0; }}")
            lines.append("  int pid = n;")
            lines.append(f"  V next_id = {len(lay.channels) + 1};")
            if any(nchans):
                lines.append(f"  static const int NCH[] = {{{', '.join(map(str, nchans))}}};")
                lines.append("  { uint32_t pos = BR_STATIC_BYTES; for (int q = 0; q < n; q++) { int tq = t[pos]; next_id += NCH[tq]; pos += SEG_SIZE[tq]; } }")
            lines.append(f"  memset(t + b, 0, {seg.size});")
            lines.append(f"  t[b] = {t};")
            lines.append(f"  wr_{seg.kinds[0].name}(t, b + {seg.offsets[0]}, {p.initial});")
            lines.extend(f"  {d}" for d in ctx.decls)
            lines.extend(body)
            if proc.priority_offset is not None:
                # pan: a priority outside 1..255 is an error when the process starts
                lines.append("  if (prio < 1 || prio > 255) { br_fail(c); return pid; }")
                lines.append(f"  wr_u8(t, b + {seg.offsets[proc.priority_offset]}, prio);")
            lines.append(f"  wr_u8(t, {ls}, n + 1);")
            lines.append(f"  c->tlen = b + {seg.size};")
            if p.channel_assertions:
                lines.append(f"  claim_new(c, t, {t}, b, pid, creator);")
            lines.append("  (void)next_id;")
            lines.append("  return pid;")
            lines.append("}")
        return lines

    def _init_value(self, out: list[str], ctx: _Ctx, off: str, vtype: Type, init: Any,
                    size: int, kind: Kind) -> None:
        element = vtype
        while isinstance(element, ArrayType):
            element = element.element
        _, kexact = kind_of_type(vtype)
        if isinstance(init, tuple):
            if len(init) > size:
                raise self.unsupported(None, "too many initial values for an array")
            for j, x in enumerate(init):
                conv, exact = self.convert(self.expr(x, ctx), element, self.fold(x))
                out.append("  " + self.write(_Place(f"{off} + {j * kind.width}", element, kind,
                                                    exact=kexact), conv, exact, ctx))
        else:
            conv, exact = self.convert(self.expr(init, ctx), element, self.fold(init))
            tmp = self.fresh("_iv")
            out.append(f"  {{ V {tmp} = {conv};")
            for j in range(size):
                out.append("    " + self.write(_Place(f"{off} + {j * kind.width}", element, kind,
                                                      exact=kexact), tmp, exact, ctx))
            out.append("  }")

    def provided_code(self) -> list[str]:
        """Return ``provided_T`` per template: the guard of a Promela process's death."""
        lines: list[str] = []
        if not self.layout.dynamic:  # no process dies in a static system
            return lines
        for t, proc in enumerate(self.layout.processes):
            lines.append(f"static V provided_{t}(ctx_t *c, const uint8_t *s, uint32_t slen, uint32_t b, "
                         "int pid) {")
            lines.append("  (void)c; (void)s; (void)slen; (void)b; (void)pid;")
            if proc.process.provided is None:
                lines.append("  return 1;")
            else:
                ctx = _Ctx("s", "b", "pid", proc, self.packed.segments[t])
                lines.append(f"  return {self.expr(proc.process.provided, ctx)};")
            lines.append("}")
        return lines

    def expression_code(self) -> list[str]:
        """Return ``model_expr``: the property conditions, values and propositions."""
        cases = []
        for k, e in enumerate(self.expressions):
            ctx = _Ctx("s", None, None, None, None)
            try:
                code = self.expr(e, ctx)
            except CUnsupported:
                self.expression_ok.append(False)
                continue
            self.expression_ok.append(True)
            cases.append(f"  case {k}: return {code};")
        return (["static V model_expr(ctx_t *c, int k, const uint8_t *s, uint32_t slen) {",
                 "  (void)c; (void)s; (void)slen;", "  switch (k) {"] + cases
                + ["  default: br_fallback(c); return 0;", "  }", "}"])

    # ------------------------------------------------------------------ successors

    def runtime_barriers_code(self) -> str:
        """Return ``br_barriers``: the barrier offers (kind 3) of the state just expanded
        combined by the composition as ``statespace.make_combiner`` combines them (the
        same steps in the same order: offers passed up in scan order, then per shared
        event in first-offered order one step per choice of an offer of each operand
        with the event in its alphabet, the last operand's choice varying fastest;
        hidden events become tau), each step's offers applied in order. A step's
        offers are kept in ``c->rv`` for the fair search's units (its label)."""
        composition = self.system.composition
        assert composition is not None
        offered: set[str] = set()  # names some edge offers: only these need an id
        for pid, t in enumerate(self.layout.initial_templates):
            sync = self.space._sync_sets.get(pid, frozenset())
            with self.instance_constants(pid):
                for e in self.layout.processes[t].process.edges:
                    if e.comm is not None or e.event is None or e.data_operation:
                        continue
                    if not event_is_constant(self.pygen, e.event):
                        offered |= sync  # a name computed at run time: any of them
                    elif event_constant(self.pygen, e.event) in sync:
                        offered.add(event_constant(self.pygen, e.event))
        nodes: list[tuple[int, int, list[int], list[list[int]], list[int]]] = []

        def ids(names: Any) -> list[int]:
            return sorted(self.intern_event(n) for n in names if n in offered)

        def walk(node: Composition) -> int:
            index = len(nodes)
            nodes.append((0, 0, [], [], []))
            if isinstance(node, InstanceRef):
                nodes[index] = (0, node.instance, [], [], [])
                return index
            kids = [walk(c) for c in node.children]
            if isinstance(node, Interleave):
                nodes[index] = (1, 0, kids, [[] for _ in kids], [])
                return index
            assert isinstance(node, Parallel)
            counts: dict[str, int] = {}
            for a in node.alphabets:
                for name in a:
                    counts[name] = counts.get(name, 0) + 1
            shared = {n for n, k in counts.items() if k >= 2}
            nodes[index] = (2, 0, kids, [ids(shared & set(a)) for a in node.alphabets],
                            ids(node.hidden))
            return index

        walk(composition)
        kind, inst, coff, kids, soff, shared, hoff, hidden = [], [], [0], [], [0], [], [0], []
        for k, i, ch, sh, hid in nodes:
            kind.append(k)
            inst.append(i)
            kids += ch
            coff.append(len(kids))
            for part in sh:
                shared += part
                soff.append(len(shared))
            for _ in range(len(ch) - len(sh)):
                soff.append(len(shared))
            hidden += hid
            hoff.append(len(hidden))

        def table(name: str, values: list[int]) -> str:
            return (f"static const int32_t {name}[{max(1, len(values))}] = "
                    f"{{{', '.join(map(str, values)) or '0'}}};")

        return "\n".join([
            table("BR_BN_KIND", kind), table("BR_BN_INST", inst), table("BR_BN_COFF", coff),
            table("BR_BN_KIDS", kids), table("BR_BN_SOFF", soff), table("BR_BN_SHARED", shared),
            table("BR_BN_HOFF", hoff), table("BR_BN_HIDDEN", hidden), _RUNTIME_BARRIERS])

    def successors_code(self) -> list[str]:
        """Return ``model_successors`` (``statespace._inline_layout`` and ``post``)."""
        lay = self.layout
        space = self.space
        lines = ["static void model_successors(ctx_t *c, const uint8_t *s, uint32_t slen) {"]
        if lay.dynamic:
            own: dict[int, tuple[int, dict[int, str]]] = {}
            if space._has_barriers or any(space._hidden_sets.values()):
                if self.promela:  # instances that end: a pid's operand could change
                    raise CUnsupported("CSP barriers in a system whose processes end")
                # As the Python engine (its code specialised per pid): an initial
                # instance that may synchronise or hides events gets code of its own
                # (its pid's sync set, offers combined at run time by br_barriers);
                # the others, and every process started at run time (in no operand),
                # run the code of their template.
                self.runtime_barriers = space._has_barriers
                for pid, t in enumerate(lay.initial_templates):
                    sync = space._sync_sets.get(pid, frozenset())
                    if sync or space._hidden_sets.get(pid):
                        with self.instance_constants(pid):
                            own[pid] = t, self.gen_process(t, "b", str(pid), f"D{pid}", sync, set())
            names = [self.gen_process(t, "b", "pid", f"T{t}", frozenset(), set())
                     for t in range(len(lay.processes))]
            head = self.instance_code(names, own)
            lines[:0] = head
            if self.runtime_barriers:
                lines.append("  c->nrv = 0;")
            lines.append("  int n = model_nproc(s);")
            lines.append("  uint32_t pos = BR_STATIC_BYTES, lastb = 0; int lastt = 0;")
            if self.promela:
                lines.append("  perr_clear(c);")
            lines.append("  for (int pid = 0; pid < n; pid++) {")
            lines.append("    int tpl = s[pos]; uint32_t b = pos;")
            lines.append("    c->pbase[pid] = b; c->ptpl[pid] = (uint8_t)tpl;")
            lines.append("    model_instance(c, s, slen, b, pid, tpl);")
            if self.promela:
                # pan tries this instance or not: the error counts in select (below)
                lines.append("    if (c->err) { c->err = 0; perr_set(c, pid); }")
            lines.append("    lastb = pos; lastt = tpl; pos += SEG_SIZE[tpl];")
            lines.append("  }")
            if self.language is SourceLanguage.PROMELA:
                lines.append("  if (n > 0 && loc_terminal(lastt, loc_at(s, lastb, lastt))) {")
                lines.append("    V ok = 1;")
                lines.append("    switch (lastt) {")
                for t, proc in enumerate(lay.processes):
                    if proc.process.provided is not None:
                        lines.append(f"    case {t}: ok = provided_{t}(c, s, slen, lastb, n - 1); break;")
                lines.append("    default: break;")
                lines.append("    }")
                lines.append("    if (ok) {")
                lines.append("      uint8_t *t = succ_begin(c, s, slen);")
                lines.append("      c->tlen = lastb;")
                lines.append(f"      wr_u8(t, {self.static_off(lay.layout_slot)}, n - 1);")
                if lay.last_slot is not None:
                    lines.append(f"      wr_u8(t, {self.static_off(lay.last_slot)}, n - 1);")
                if lay.exclusive_slot is not None:
                    lines.append(f"      wr_i16(t, {self.static_off(lay.exclusive_slot)}, -1);")
                lines.append("      succ_proc(c, n - 1); succ_commit(c, -1000000 - (n - 1), -1);")
                lines.append("    }")
                lines.append("  }")
        else:
            vectors = list(space._vectors)
            vector_edges = set(space._vector_edges)
            if space._has_barriers and not vectors and self.vectors_at_run_time():
                self.runtime_barriers = True
                lines.append("  c->nrv = 0;")
            lines.extend(self.static_instances_code(vector_edges))
            # the edges of each vector (pid, edge label), for the annotation units of a
            # barrier step (search_ltl.c: ls_units)
            offsets, pairs = [0], []
            for _name, parts in vectors:
                for pid, k in parts:
                    pairs += [pid, self.edge_ids[lay.initial_templates[pid]] + k]
                offsets.append(len(pairs) // 2)
            self.vector_tables = offsets, pairs
            for vi, (name, parts) in enumerate(vectors):
                conds = []
                effects: list[str] = []
                decls: list[str] = []
                for pid, k in parts:
                    t = lay.initial_templates[pid]
                    proc = lay.processes[t]
                    seg = self.packed.segments[t]
                    base = str(self.static_bases[pid])
                    ctx = _Ctx("s", base, str(pid), proc, seg)
                    e = proc.process.edges[k]
                    self.set_instance_constants(pid)
                    conds.append(f"{self.loc_read('s', base, t)} == {e.source}")
                    if e.guard is not None and not isinstance(e.guard, ElseGuard):
                        conds.append(f"({self.cond(e.guard, ctx)})")
                    if e.target != e.source:
                        effects.append(f"    wr_{seg.kinds[0].name}(t, {base} + {seg.offsets[0]}, {e.target});")
                    d, body = self.effect(e, ctx, "    ")
                    self.pygen.consts = {}
                    decls.extend(d)
                    effects.extend(body)
                # a barrier hidden above its '||' is a tau step (make_combiner: None)
                shown = "tau" if name is None else name.replace("*/", "* /")
                lines.append(f"  /* barrier {shown} */")
                lines.append(f"  if ({' && '.join(conds)}) {{")
                lines.extend(f"    {d}" for d in decls)
                lines.append("    uint8_t *t = succ_begin(c, s, slen);")
                lines.extend(effects)
                for pid in sorted({p for p, _ in parts}):
                    lines.append(f"    succ_proc(c, {pid});")
                event = -1 if name is None else self.intern_event(name)
                lines.append(f"    succ_commit(c, {-(vi + 1)}, {event});")
                lines.append("  }")
        # post: rendezvous, deferred else, timeout (statespace.post)
        last = self.static_off(lay.last_slot) if lay.last_slot is not None else None
        lines.append("  if (c->noffers) {")
        lines.append("    for (size_t i = 0; i < c->noffers; i++) {")
        lines.append("      const offer_t *o = &c->offers[i]; if (o->kind != 1) continue;")
        lines.append("      for (size_t j = 0; j < c->noffers; j++) {")
        lines.append("        const offer_t *r = &c->offers[j]; if (r->kind != 2) continue;")
        lines.append("        if (r->cid != o->cid || r->pid == o->pid || r->nf != o->nf) continue;")
        lines.append("        int ok = 1; for (int q = 0; q < o->nf; q++) if (r->has[q] == 2 || (r->has[q] && r->msg[q] != o->msg[q])) { ok = 0; break; }")
        lines.append("        if (!ok) continue;")
        lines.append("        uint8_t *t = succ_begin(c, s, slen);")
        lines.append("        o->apply(c, t, o->base, o->pid, NULL);")
        lines.append("        if (!r->apply(c, t, r->base, r->pid, o->msg)) continue;")
        if last is not None:
            lines.append(f"        wr_u8(t, {last}, r->pid);")
        lines.append("        succ_proc(c, o->pid); succ_proc(c, r->pid);")
        # CSP# names a rendezvous after the channel and the sender's message: c.v
        # (br_chev; the fair search with the kinds of the sender's values)
        event = self.chev_call("o->cid", "'.'", "o->msg", "o->nf", "offer_kinds(o)") if self.csp else "-1"
        lines.append(f"        succ_commit(c, -2000000 - (int32_t)(i * c->noffers + j), {event});")
        lines.append("      }")
        lines.append("    }")
        lines.append("  }")
        if self.runtime_barriers:  # after the rendezvous, as statespace.post
            lines.append("  if (c->noffers) br_barriers(c, s, slen);")
            self.functions.append(self.runtime_barriers_code())
        lines.append("  for (size_t i = 0; i < c->nelses; i++) {")
        lines.append("    int busy = 0; for (size_t j = 0; j < c->n; j++) if (succ_has_proc(c, j, c->elses[i].pid)) { busy = 1; break; }")
        lines.append("    if (!busy) c->elses[i].fn(c, s, slen, c->elses[i].base, c->elses[i].pid, 0);")
        lines.append("  }")
        lines.append("  if (c->ntmos) {")
        # as statespace: timeout 0 first (pan's normal pass), 1 only if nothing moved
        lines.append("    for (size_t i = 0; i < c->ntmos; i++) c->tmos[i].fn(c, s, slen, c->tmos[i].base, c->tmos[i].pid, 0);")
        lines.append("    if (c->n == 0)")
        lines.append("      for (size_t i = 0; i < c->ntmos; i++) c->tmos[i].fn(c, s, slen, c->tmos[i].base, c->tmos[i].pid, 1);")
        lines.append("  }")
        # atomic filters
        if self.promela:
            lines.extend(self.select_code())
        elif space._any_atomic:
            # CSP# atomic: the steps of an instance at an atomic location, and (Edge.atomic,
            # an atomic part inside a process) the steps taking a flagged edge, go alone
            # while there are any (statespace: ``_AE``)
            edges = any(space._atomic_edge_sets)
            lines.append("  if (c->n) {")
            lines.append(f"    uint64_t in[BR_PWORDS] = {{0}}; int some = {int(edges)};")
            lines.append("    uint32_t pos = BR_STATIC_BYTES; int n = model_nproc(s);")
            lines.append("    for (int pid = 0; pid < n; pid++) { int tpl = model_template(s, pos, pid);")
            lines.append("      if (loc_atomic(tpl, loc_at(s, pos, tpl))) { in[pid >> 6] |= (uint64_t)1 << (pid & 63); some = 1; }")
            lines.append("      pos += SEG_SIZE[tpl]; }")
            lines.append("    if (some) {")
            lines.append("      int any = 0;")
            hit_edges = " if (!hit) hit = step_atomic_edge(c, i);" if edges else ""
            if edges:
                self.prototypes.append("static int step_atomic_edge(const ctx_t *c, size_t i);")
            lines.append("      for (size_t i = 0; i < c->n; i++) { int hit = 0; for (int w = 0; w < BR_PWORDS; w++) if (c->procs[i * BR_PWORDS + w] & in[w]) hit = 1;"
                         f"{hit_edges} c->keep[i] = (uint8_t)hit; any |= hit; }}")
            lines.append("      if (!any) for (size_t i = 0; i < c->n; i++) c->keep[i] = 1;")
            lines.append("    }")
            lines.append("  }")
        lines.append("}")
        return lines

    def select_code(self) -> list[str]:
        """Return the end of a Promela ``model_successors``: the steps pan takes and the
        model errors it meets (``statespace._select``). Priorities (pan.c
        highest_priority): only steps of an instance with the highest priority among
        those that can move (an instance whose expansion failed counts as able to);
        atomicity: the holder moves alone while it can; an instance's error counts
        only if the instance is left to try; the initial state's xr/xs error."""
        lay = self.layout
        out = ["  {", "    int best = -1, holder = -1; (void)holder;"]
        prio = "(int)rd_u8(s, c->pbase[p] + PRIO_OFF[c->ptpl[p]])"
        if self.system.priority_scheduling:
            out += [
                "    if (c->n || perr_any(c)) {",
                "      for (size_t i = 0; i < c->n; i++)",
                "        for (int w = 0; w < BR_PWORDS; w++) for (uint64_t m = c->procs[i * BR_PWORDS + w]; m; m &= m - 1) {",
                f"          int p = w * 64 + __builtin_ctzll(m), v = {prio}; if (v > best) best = v; }}",
                "      for (int w = 0; w < BR_PWORDS; w++) for (uint64_t m = c->perr[w]; m; m &= m - 1) {",
                f"        int p = w * 64 + __builtin_ctzll(m), v = {prio}; if (v > best) best = v; }}",
                "      for (size_t i = 0; i < c->n; i++) { int hit = 0;",
                "        for (int w = 0; w < BR_PWORDS; w++) for (uint64_t m = c->procs[i * BR_PWORDS + w]; m; m &= m - 1) {",
                f"          int p = w * 64 + __builtin_ctzll(m); if ({prio} == best) hit = 1; }}",
                "        c->keep[i] = (uint8_t)hit; }",
                "    }",
            ]
        if lay.exclusive_slot is not None:
            out += [
                f"    V h = {self.read_static('s', lay.exclusive_slot)};",
                "    if (h >= 0 && c->n) {",
                "      int any = 0; for (size_t i = 0; i < c->n; i++) if (c->keep[i] && succ_has_proc(c, i, (int)h)) { any = 1; break; }",
                "      if (any) { holder = (int)h; for (size_t i = 0; i < c->n; i++) c->keep[i] = (uint8_t)(c->keep[i] && succ_has_proc(c, i, (int)h)); }",
                "    }",
            ]
        out += [
            "    if (perr_any(c))",
            "      for (int w = 0; w < BR_PWORDS; w++) for (uint64_t m = c->perr[w]; m; m &= m - 1) {",
            "        int p = w * 64 + __builtin_ctzll(m);",
            f"        if ((holder < 0 || p == holder) && (best < 0 || {prio if self.system.priority_scheduling else 'best'} == best)) br_fail(c); }}",
        ]
        if self.space._initial_claim_error is not None:
            init = self.packed.pack(self.packed.canonical(self.space, self.space.initial_states()[0]))
            data = ", ".join(str(b) for b in init)
            out.insert(0, f"  static const uint8_t BR_INIT[{len(init)}] = {{{data}}};")
            out += [f"    if (slen == {len(init)} && memcmp(s, BR_INIT, slen) == 0) br_fail(c);"]
        out.append("  }")
        return out

    def instance_code(self, names: list[dict[int, str]],
                      own: dict[int, tuple[int, dict[int, str]]]) -> list[str]:
        """Return the helpers of a system that starts processes at run time:
        ``model_instance`` (the location function of one instance: the code of its
        template, or ``own[pid]``, (template, functions), an initial instance's code of
        its own), and for Promela
        ``enabled()``, priorities and ``xr``/``xs`` claims (``statespace._enabled``,
        ``_getprio``, ``_setprio``, ``_owner``, ``_xacc``, ``_claim``)."""
        lay = self.layout
        out = ["static int loc_code(int tpl, V loc) {", "  switch (tpl) {"]
        for t, nm in enumerate(names):
            if nm:
                out.append(f"  case {t}: return {' || '.join(f'loc == {x}' for x in sorted(nm))};")
        out += ["  default: return 0;", "  }", "}"]
        out.append("static void model_instance(ctx_t *c, const uint8_t *s, uint32_t slen, "
                   "uint32_t b, int pid, int tpl) {")
        for pid, (t, nm) in sorted(own.items()):
            out.append(f"  if (pid == {pid} && tpl == {t}) {{")
            out.extend(self.dispatch(nm, "b", str(pid), t, "    "))
            out.append("    return;")
            out.append("  }")
        out.append("  switch (tpl) {")
        for t, nm in enumerate(names):
            out.append(f"  case {t}:")
            out.extend(self.dispatch(nm, "b", "pid", t, "    "))
            out.append("    break;")
        out += ["  default: break;", "  }", "}"]
        out.append(_ENABLED)
        self.prototypes += [
            "static void model_instance(ctx_t *, const uint8_t *, uint32_t, uint32_t, int, int);",
            "static V model_enabled(ctx_t *, const uint8_t *, uint32_t, V, int);"]
        if self.system.priority_scheduling:
            self.prototypes += ["static V model_getprio(const uint8_t *, V);",
                                "static void model_setprio(ctx_t *, uint8_t *, V, V, int);"]
            offs = [self.packed.segments[t].offsets[p.priority_offset]
                    if p.priority_offset is not None else 0 for t, p in enumerate(lay.processes)]
            out.insert(0, f"static const uint32_t PRIO_OFF[{max(1, len(offs))}] = "
                          f"{{{', '.join(map(str, offs)) or '0'}}};")
            out.append(_PRIORITY)
        if lay.claim_slot is not None:
            out.extend(self.claims_code())
        return out

    def claims_code(self) -> list[str]:
        """Return ``model_claims`` (the xr/xs claims of an instance, evaluated in its
        segment), ``claim_owner``, ``xacc`` and ``claim_new``."""
        lay = self.layout
        most = max(len(p.channel_assertions) for p in self.system.processes)
        out = [f"#define BR_MAXCLAIMS {most}",
               f"#define BR_CLAIM_OFF {self.static_off(lay.claim_slot)}",
               f"#define BR_NGLOBAL {len(lay.channels)}"]
        out.append("static int model_claims(ctx_t *c, const uint8_t *t, int tpl, uint32_t b, "
                   "int pid, int *bits, V *cids) {")
        out.append("  (void)c; (void)t; (void)b; (void)pid; (void)bits; (void)cids;")
        out.append("  switch (tpl) {")
        for t, proc in enumerate(lay.processes):
            claims = proc.process.channel_assertions
            if not claims:
                continue
            ctx = _Ctx("t", "b", "pid", proc, self.packed.segments[t])
            out.append(f"  case {t}:")
            for j, a in enumerate(claims):
                out.append(f"    bits[{j}] = {1 if a.kind == 'xr' else 2}; "
                           f"cids[{j}] = {self.channel_id(a.channel, ctx)};")
            out.append(f"    return {len(claims)};")
        out += ["  default: return 0;", "  }", "}", _CLAIMS]
        self.prototypes += [
            "static void xacc(ctx_t *, const uint8_t *, V, int, int);",
            "static void claim_new(ctx_t *, uint8_t *, int, uint32_t, int, int);"]
        return out

    def atomic_edges_code(self) -> list[str]:
        """Return ``step_atomic_edge`` (CSP#: does successor i take an edge flagged
        ``Edge.atomic``, by itself, in a synchronisation vector, in a joint step of
        barriers combined at run time (its offers in ``c->rv``) or in a rendezvous; the
        Python engine's ``_AE`` test), or nothing when no edge is flagged."""
        flags = [int(e.atomic) for p in self.system.processes for e in p.edges]
        if not any(flags) or self.promela:
            return []
        return [f"static const uint8_t EDGE_ATOMIC[{len(flags)}] = {{{', '.join(map(str, flags))}}};",
                "static int step_atomic_edge(const ctx_t *c, size_t i) {",
                "  int32_t label = c->labels[i];",
                "  if (label >= 0) return EDGE_ATOMIC[label];",
                "  if (label <= -2000000) {  /* rendezvous: the sender's and the receiver's edge */",
                "    size_t idx = (size_t)(-2000000LL - label), n = c->noffers;",
                "    const offer_t *o = &c->offers[idx / n], *q = &c->offers[idx % n];",
                "    return EDGE_ATOMIC[EDGE_BASE[model_pid_tpl(c, o->pid)] + o->edge]",
                "        || EDGE_ATOMIC[EDGE_BASE[model_pid_tpl(c, q->pid)] + q->edge];",
                "  }",
                "  if (label > -1000000 && BR_RUNTIME_VECTORS) {  /* barriers combined at run time: the offers in c->rv */",
                "    const int32_t *parts = c->rv + (-label - 1);",
                "    for (int32_t j = 1; j <= parts[0]; j++) {",
                "      const offer_t *o = &c->offers[parts[j]];",
                "      if (EDGE_ATOMIC[EDGE_BASE[model_pid_tpl(c, o->pid)] + o->edge]) return 1;",
                "    }",
                "    return 0;",
                "  }",
                "  if (label > -1000000) {  /* synchronisation vector -(label + 1) */",
                "    int32_t v = -label - 1;",
                "    for (int32_t j = BR_VEC_OFF[v]; j < BR_VEC_OFF[v + 1]; j++)",
                "      if (EDGE_ATOMIC[BR_VEC_EDGES[2 * j + 1]]) return 1;",
                "  }",
                "  return 0;",
                "}"]
