/* bridge compiled engine: runtime helpers shared by every generated model (issue 12).
 *
 * Values are computed in int64_t. Every operation whose result the Python engine
 * (the reference semantics, unbounded integers) could compute but int64_t cannot
 * sets ctx->fallback: the driver then re-runs the check on the Python engine, so the
 * C engine never answers differently. A model error (index out of range, division by
 * zero, failed assert, range violation, ...) sets ctx->err and the helpers return a
 * harmless value (index 0, quotient 0), so the rest of the expansion stays inside the
 * buffers; the driver asks the Python engine for the error's exact kind and message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int64_t V;

/* ------------------------------------------------------------------ storage kinds */
enum { K_U8 = 0, K_I8 = 1, K_U16 = 2, K_I16 = 3, K_I32 = 4, K_U32 = 5 };
static const V K_LO[6] = {0, -128, 0, -32768, -2147483648LL, 0};
static const V K_HI[6] = {255, 127, 65535, 32767, 2147483647LL, 4294967295LL};
static const uint32_t K_W[6] = {1, 1, 2, 2, 4, 4};

static inline V rd_u8(const uint8_t *p, uint32_t o) { return p[o]; }
static inline V rd_i8(const uint8_t *p, uint32_t o) { return (int8_t)p[o]; }
static inline V rd_u16(const uint8_t *p, uint32_t o) { uint16_t x; memcpy(&x, p + o, 2); return x; }
static inline V rd_i16(const uint8_t *p, uint32_t o) { int16_t x; memcpy(&x, p + o, 2); return x; }
static inline V rd_u32(const uint8_t *p, uint32_t o) { uint32_t x; memcpy(&x, p + o, 4); return x; }
static inline V rd_i32(const uint8_t *p, uint32_t o) { int32_t x; memcpy(&x, p + o, 4); return x; }
static inline void wr_u8(uint8_t *p, uint32_t o, V v) { p[o] = (uint8_t)v; }
static inline void wr_i8(uint8_t *p, uint32_t o, V v) { p[o] = (uint8_t)(int8_t)v; }
static inline void wr_u16(uint8_t *p, uint32_t o, V v) { uint16_t x = (uint16_t)v; memcpy(p + o, &x, 2); }
static inline void wr_i16(uint8_t *p, uint32_t o, V v) { int16_t x = (int16_t)v; memcpy(p + o, &x, 2); }
static inline void wr_u32(uint8_t *p, uint32_t o, V v) { uint32_t x = (uint32_t)v; memcpy(p + o, &x, 4); }
static inline void wr_i32(uint8_t *p, uint32_t o, V v) { int32_t x = (int32_t)v; memcpy(p + o, &x, 4); }

static inline V rd_k(int k, const uint8_t *p, uint32_t o) {
    switch (k) {
    case K_U8: return rd_u8(p, o);
    case K_I8: return rd_i8(p, o);
    case K_U16: return rd_u16(p, o);
    case K_I16: return rd_i16(p, o);
    case K_I32: return rd_i32(p, o);
    default: return rd_u32(p, o);
    }
}

static inline void wr_k(int k, uint8_t *p, uint32_t o, V v) {
    switch (k) {
    case K_U8: wr_u8(p, o, v); break;
    case K_I8: wr_i8(p, o, v); break;
    case K_U16: wr_u16(p, o, v); break;
    case K_I16: wr_i16(p, o, v); break;
    case K_I32: wr_i32(p, o, v); break;
    default: wr_u32(p, o, v); break;
    }
}

/* ------------------------------------------------------------------ context */
typedef struct ctx ctx_t;
typedef int (*apply_fn)(ctx_t *, uint8_t *, uint32_t, int, const V *);
typedef void (*defer_fn)(ctx_t *, const uint8_t *, uint32_t, uint32_t, int, int);

#ifndef BR_MAXF
#define BR_MAXF 1
#endif

typedef struct {
    int kind;      /* 1 send, 2 receive (rendezvous offers) */
    V cid;
    int nf;
    V msg[BR_MAXF];
    uint8_t has[BR_MAXF];
    int pid, edge;
    uint32_t base;
    int known;          /* 1: kinds holds a send's value kinds as the Python engine
                         * computes them (gen_events.sent_kinds: br_chev_sent, through
                         * offer_kinds), 0: not known */
    char kinds[BR_MAXF]; /* copied: a kind computed at run time lives in the sender's block */
    apply_fn apply;
} offer_t;

typedef struct {
    int pid;
    uint32_t base;
    defer_fn fn;
} defer_t;

struct ctx {
    int err;       /* a model error was met while expanding the current state */
    int fallback;  /* a value left what the C representation holds */
    /* successors of the current state */
    uint8_t *buf;       /* n slots of BR_MAXVEC bytes */
    uint32_t *lens;
    int32_t *labels;    /* the step: see succ_commit */
    int32_t *events;    /* its visible event: an id of br_name_id (BR_EVENT_NAMES first), -1
                         * tau, -2 a name computed at run time and not rendered */
    int names;          /* 1: render computed event names (br_evname, br_chev): the fair
                         * search and deterministic ask for them */
    uint64_t *procs;    /* BR_PWORDS words per successor: the processes that move */
    uint8_t *keep;
    size_t n, cap;
    uint8_t *t;         /* the successor under construction */
    uint32_t tlen;
    /* rendezvous offers, deferred else and timeout options */
    offer_t *offers; size_t noffers, offers_cap;
    /* CSP# barriers combined at run time (BR_RUNTIME_VECTORS): per step taken, its
     * offers (kind 3) as [count, offer index...] from position -(label + 1) */
    int32_t *rv; size_t nrv, rv_cap;
    defer_t *elses; size_t nelses, elses_cap;
    defer_t *tmos; size_t ntmos, tmos_cap;
    int oom;
    /* Promela: the instances whose statements met a model error (or an xr/xs claim
     * violation) while the state was expanded; the error counts only if pan tries
     * that instance in the state (priorities, atomicity: see the generated select) */
    uint64_t perr[BR_PWORDS];
    /* the segment base and template of each live instance of the state expanded
     * (processes started at run time, at most 255: BR_PSLOTS is 256, else 1) */
    uint32_t pbase[BR_PSLOTS];
    uint8_t ptpl[BR_PSLOTS];
    /* enabled(): the context one level down (allocated on first use) and its depth */
    struct ctx *sub;
    int depth;
    /* the search's table of library values (templates/c/library.c) */
    struct br_lib *lib;
};


/* Whichever comes first counts: a model error met while every value so far was exact
 * is an error of the Python engine too (it evaluates the same operations on the same
 * values); once a value is inexact, nothing after it can be trusted. */
static inline void br_fail(ctx_t *c) { if (!c->fallback) c->err = 1; }
static inline void br_fallback(ctx_t *c) { if (!c->err) c->fallback = 1; }

static int br_grow(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 1;
    size_t n = *cap ? *cap : 16;
    while (n < need) n *= 2;
    void *q = realloc(*p, n * size);
    if (!q) return 0;
    *p = q;
    *cap = n;
    return 1;
}

static int succ_reserve(ctx_t *c) {
    if (c->n < c->cap) return 1;
    size_t n = c->cap ? c->cap * 2 : 16;
    uint8_t *buf = realloc(c->buf, n * (size_t)BR_MAXVEC);
    if (!buf) return 0;
    c->buf = buf;
    uint32_t *lens = realloc(c->lens, n * sizeof *lens);
    if (!lens) return 0;
    c->lens = lens;
    int32_t *labels = realloc(c->labels, n * sizeof *labels);
    if (!labels) return 0;
    c->labels = labels;
    int32_t *events = realloc(c->events, n * sizeof *events);
    if (!events) return 0;
    c->events = events;
    uint64_t *procs = realloc(c->procs, n * BR_PWORDS * sizeof *procs);
    if (!procs) return 0;
    c->procs = procs;
    uint8_t *keep = realloc(c->keep, n);
    if (!keep) return 0;
    c->keep = keep;
    c->cap = n;
    return 1;
}

/* Start a successor as a copy of s; returns the vector to modify. */
static inline uint8_t *succ_begin(ctx_t *c, const uint8_t *s, uint32_t slen) {
    if (c->n >= c->cap && !succ_reserve(c)) {
        /* out of memory: the search stops with a memory limit; keep writing into
         * slot 0, which exists (reserved before the search starts) */
        c->oom = 1;
        c->fallback = 1;
        c->n = 0;
    }
    uint8_t *t = c->buf + c->n * (size_t)BR_MAXVEC;
    memcpy(t, s, slen);
    c->t = t;
    c->tlen = slen;
    uint64_t *pw = c->procs + c->n * BR_PWORDS;
    for (int w = 0; w < BR_PWORDS; w++) pw[w] = 0;
    return t;
}

static inline void succ_proc(ctx_t *c, int pid) {
    c->procs[c->n * BR_PWORDS + ((unsigned)pid >> 6)] |= (uint64_t)1 << (pid & 63);
}

/* Keep the successor under construction. label: the edge taken by one instance
 * (EDGE_BASE[template] + edge index; the instance is in procs), -(v + 1) for
 * synchronisation vector v, -1000000 - pid for the death of instance pid,
 * -2000000 - (i * noffers + j) for the rendezvous of send offer i with receive offer j
 * (offers: those of the state just expanded). event: see ctx.events. */
static inline void succ_commit(ctx_t *c, int32_t label, int32_t event) {
    c->lens[c->n] = c->tlen;
    c->labels[c->n] = label;
    c->events[c->n] = event;
    c->keep[c->n] = 1;
    c->n++;
}

static inline int succ_has_proc(const ctx_t *c, size_t i, int pid) {
    return (c->procs[i * BR_PWORDS + ((unsigned)pid >> 6)] >> (pid & 63)) & 1;
}

/* An instance's model error that counts only if pan tries the instance. */
static inline void perr_set(ctx_t *c, int pid) {
    if (pid >= 0 && pid < BR_PWORDS * 64) c->perr[(unsigned)pid >> 6] |= (uint64_t)1 << (pid & 63);
}
static inline int perr_any(const ctx_t *c) {
    for (int w = 0; w < BR_PWORDS; w++) if (c->perr[w]) return 1;
    return 0;
}
static inline void perr_clear(ctx_t *c) {
    for (int w = 0; w < BR_PWORDS; w++) c->perr[w] = 0;
}

static void add_offer(ctx_t *c, int kind, V cid, int nf, const V *msg, const uint8_t *has,
                      int pid, int edge, uint32_t base, apply_fn apply, const char *kinds) {
    if (!br_grow((void **)&c->offers, &c->offers_cap, c->noffers + 1, sizeof(offer_t))) {
        c->oom = 1; c->fallback = 1; return;
    }
    offer_t *o = &c->offers[c->noffers++];
    o->kind = kind; o->cid = cid; o->nf = nf; o->pid = pid; o->edge = edge;
    o->base = base; o->apply = apply; o->known = kinds != NULL;
    for (int q = 0; kinds && q < nf && q < BR_MAXF; q++) o->kinds[q] = kinds[q];
    for (int q = 0; q < nf && q < BR_MAXF; q++) { o->msg[q] = msg[q]; o->has[q] = has ? has[q] : 1; }
}

/* The kinds of a send offer's values (br_chev_sent), NULL when not known. */
static inline const char *offer_kinds(const offer_t *o) { return o->known ? o->kinds : NULL; }

static void add_defer(ctx_t *c, defer_t **arr, size_t *n, size_t *cap, int pid, uint32_t base,
                      defer_fn fn) {
    if (!br_grow((void **)arr, cap, *n + 1, sizeof(defer_t))) { c->oom = 1; c->fallback = 1; return; }
    (*arr)[*n].pid = pid; (*arr)[*n].base = base; (*arr)[*n].fn = fn;
    (*n)++;
}

/* ------------------------------------------------------------------ arithmetic */
static inline V ck_add(ctx_t *c, V a, V b) { V r; if (__builtin_add_overflow(a, b, &r)) { br_fallback(c); return 0; } return r; }
static inline V ck_sub(ctx_t *c, V a, V b) { V r; if (__builtin_sub_overflow(a, b, &r)) { br_fallback(c); return 0; } return r; }
static inline V ck_mul(ctx_t *c, V a, V b) { V r; if (__builtin_mul_overflow(a, b, &r)) { br_fallback(c); return 0; } return r; }
static inline V ck_neg(ctx_t *c, V a) { if (a == INT64_MIN) { br_fallback(c); return 0; } return -a; }

static inline V op_div(ctx_t *c, V a, V b) {
    if (b == 0) { br_fail(c); return 0; }
    if (a == INT64_MIN && b == -1) { br_fallback(c); return 0; }
    return a / b; /* C truncates toward zero, as the Python engine's c_div */
}
static inline V op_rem(ctx_t *c, V a, V b) {
    if (b == 0) { br_fail(c); return 0; }
    if (b == -1) return 0;
    return a % b; /* the sign of the dividend, as c_rem */
}
static inline V op_mod(ctx_t *c, V a, V b) { /* PAT's mod: Python's %, the sign of the divisor */
    if (b == 0) { br_fail(c); return 0; }
    if (b == -1) return 0;
    V r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline V op_shl(ctx_t *c, V a, V b) {
    if (b < 0) { br_fail(c); return 0; }
    if (a == 0) return 0;
    if (b >= 63) { br_fallback(c); return 0; }
    V r = (V)((uint64_t)a << b);
    if ((r >> b) != a) { br_fallback(c); return 0; }
    return r;
}
static inline V op_shr(ctx_t *c, V a, V b) {
    if (b < 0) { br_fail(c); return 0; }
    if (b >= 63) return a < 0 ? -1 : 0;
    return a >> b; /* arithmetic shift (gcc), as Python's >> */
}
static inline V ix(ctx_t *c, V i, V n) {
    if (i < 0 || i >= n) { br_fail(c); return 0; }
    return i;
}
/* A remote reference to an instance that does not run reads as a zeroed process
 * (pan): its base is BR_NOBASE, beyond every vector, and rrd_k reads 0 there. */
#define BR_NOBASE 0x40000000u
static inline V rrd_k(int k, const uint8_t *p, uint32_t o) { return o >= BR_NOBASE ? 0 : rd_k(k, p, o); }
static inline V rng(ctx_t *c, V v, int has_lo, V lo, int has_hi, V hi) {
    if ((has_lo && v < lo) || (has_hi && v > hi)) br_fail(c);
    return v;
}
/* Promela's wrap-around store: ((v - lo) mod width) + lo, mod non-negative. */
static inline V wrap(ctx_t *c, V v, V lo, V width) {
    V d = ck_sub(c, v, lo);
    V m = d % width;
    if (m < 0) m += width;
    return m + lo;
}
/* Store v in a slot of kind k; a value outside the kind falls back to Python. */
static inline void wr_ck(ctx_t *c, int k, uint8_t *p, uint32_t o, V v) {
    if (v < K_LO[k] || v > K_HI[k]) { br_fallback(c); return; }
    wr_k(k, p, o, v);
}

/* ------------------------------------------------------------------ channels */
typedef struct {
    uint32_t off;     /* byte offset of the length slot in the vector (0: rendezvous) */
    int32_t cap;
    int32_t nf;
    int32_t id;
    int lk;           /* kind of the length slot */
    uint32_t lw;      /* its width */
    uint32_t msz;     /* bytes per message */
    const uint8_t *fk;   /* field kinds */
    const uint32_t *fo;  /* field offsets inside a message */
} chan_t;

static inline uint32_t ch_field(const chan_t *ch, V j, int q) {
    return ch->off + ch->lw + (uint32_t)j * ch->msz + ch->fo[q];
}
static inline V ch_len(const uint8_t *s, const chan_t *ch) {
    return ch->cap > 0 ? rd_k(ch->lk, s, ch->off) : 0;
}
static V ch_query(const uint8_t *s, const chan_t *ch, int op) {
    V n = ch_len(s, ch);
    switch (op) {
    case 0: return n;                                   /* len */
    case 1: return n == 0;                              /* empty */
    case 2: return n != 0;                              /* nempty */
    case 3: return ch->cap == 0 || n >= ch->cap;        /* full (SPIN 6.5.2: a rendezvous is full) */
    default: return ch->cap > 0 && n < ch->cap;         /* nfull */
    }
}
static int ch_matches(const uint8_t *s, const chan_t *ch, V j, const V *pat, const uint8_t *has, int np) {
    for (int q = 0; q < np; q++)
        if (has[q] == 2 || (has[q] && rd_k(ch->fk[q], s, ch_field(ch, j, q)) != pat[q])) return 0;
    return 1;
}
/* The first message matching the pattern (only the head unless random), or -1. */
static V ch_find(const uint8_t *s, const chan_t *ch, const V *pat, const uint8_t *has, int np, int random, V from) {
    V n = ch_len(s, ch);
    if (n == 0) return -1;
    if (!random) return (from == 0 && ch_matches(s, ch, 0, pat, has, np)) ? 0 : -1;
    for (V j = from; j < n; j++)
        if (ch_matches(s, ch, j, pat, has, np)) return j;
    return -1;
}
static int ch_poll(const uint8_t *s, const chan_t *ch, const V *pat, const uint8_t *has, int np, int random) {
    if (ch->cap == 0) return 0;
    return ch_find(s, ch, pat, has, np, random, 0) >= 0;
}
static void ch_take(uint8_t *t, const chan_t *ch, V j, int peek, V *msg) {
    for (int q = 0; q < ch->nf; q++) msg[q] = rd_k(ch->fk[q], t, ch_field(ch, j, q));
    if (peek) return;
    V n = rd_k(ch->lk, t, ch->off);
    uint32_t p = ch->off + ch->lw + (uint32_t)j * ch->msz;
    uint32_t end = ch->off + ch->lw + (uint32_t)n * ch->msz;
    memmove(t + p, t + p + ch->msz, end - p - ch->msz);
    memset(t + end - ch->msz, 0, ch->msz);
    wr_k(ch->lk, t, ch->off, n - 1);
}
static void ch_push(ctx_t *c, uint8_t *t, const chan_t *ch, const V *msg, int sorted) {
    V n = rd_k(ch->lk, t, ch->off);
    V j = n;
    if (sorted) {
        /* before the first message that is greater (tuples compared as Python does) */
        for (j = 0; j < n; j++) {
            int le = 1;
            for (int q = 0; q < ch->nf; q++) {
                V x = rd_k(ch->fk[q], t, ch_field(ch, j, q));
                if (x < msg[q]) { le = 1; break; }
                if (x > msg[q]) { le = 0; break; }
            }
            if (!le) break;
        }
        uint32_t p = ch->off + ch->lw + (uint32_t)j * ch->msz;
        uint32_t end = ch->off + ch->lw + (uint32_t)n * ch->msz;
        memmove(t + p + ch->msz, t + p, end - p);
    }
    for (int q = 0; q < ch->nf; q++) wr_ck(c, ch->fk[q], t, ch_field(ch, j, q), msg[q]);
    wr_k(ch->lk, t, ch->off, n + 1);
}
