/* bridge compiled engine: CSP# refinement, `Impl refines Spec` in the traces, stable
 * failures and failures-divergence models (issue 12).
 *
 * The C twin of refinement/product.py (Roscoe's algorithm, Understanding Concurrent
 * Systems section 16.1): a breadth-first search over pairs (implementation state,
 * node of the specification's normal form). The normal form is built by the Python
 * engine (refinement/table.py) and handed over as a table: node x event -> node
 * (-1: the specification cannot do it), the minimal acceptances of each node (sets
 * of the specification's events, n_words 64-bit words each) and its divergent flag;
 * the implementation's events reach it through code_event (the C event id of a name
 * -> its index among the specification's events, -1 none; the names were interned
 * before the search, so an id past the table is a name the specification never does).
 * A pair is stored as the implementation's packed vector followed by its node (4
 * bytes), hidden bytes in front left out of the key as in every search. The order of
 * successors, of checks and of limits is product.py's (_ProductSearch.run), so both
 * engines store the same pairs in the same order and stop at the same pair.
 *
 * Divergence (failures-divergence): whether an implementation state lies on a cycle
 * of tau steps, decided lazily by Tarjan's algorithm over the tau steps reachable
 * from it (graph.py TauCycles), in a store of its own; states decided by an earlier
 * call are left out, as their components are closed.
 */

enum { BR_RF_TRACES = 0, BR_RF_FAILURES = 1, BR_RF_FD = 2 };
enum { BR_RF_FOUND_TRACE = 1, BR_RF_FOUND_FAILURE = 2, BR_RF_FOUND_DIVERGENCE = 3 };

typedef struct {
    int64_t max_states;         /* pairs, 0: none */
    double timeout;             /* 0: none */
    int64_t max_memory;         /* bytes, 0: none */
    int32_t model;              /* BR_RF_* */
    int32_t n_nodes, n_events, n_words, n_codes;
    const int32_t *code_event;  /* n_codes: C event id -> the specification's event, -1 */
    const int32_t *after;       /* n_nodes * n_events: -> node, -1 */
    const int32_t *acc_first;   /* n_nodes + 1: node -> its first acceptance */
    const uint64_t *acc_sets;   /* acceptance k: words k * n_words .. */
    const uint8_t *divergent;   /* n_nodes */
    progress_fn progress;       /* may be NULL */
} br_rf_params_t;

typedef struct {
    int32_t status, limit_kind, found_kind, event;  /* event: trace, the C event id */
    int64_t pair;               /* where the search stopped (found, model error) */
    int64_t pairs, transitions, depth, explored, tau_states, memory_bytes;
    double seconds;
} br_rf_result_t;

typedef struct {
    store_t st;                 /* the pairs (first, as in br_handle_t: bridge_parent) */
    br_lib_t lib;               /* second, as in br_handle_t: bridge_lib_value */
    store_t tau;                /* divergence: the implementation states met */
    uint8_t *cyc; size_t cyc_cap;       /* per tau state: 0 open, 1 not on a cycle, 2 on one */
    uint32_t *num, *low; size_t num_cap, low_cap;  /* Tarjan: visit number (0 none), low link */
    uint32_t *stk; size_t nstk, stk_cap;           /* Tarjan's stack */
    uint32_t *fr_node; size_t nfr, fr_cap;        /* the DFS frames: node, its tau targets */
    size_t *fr_start, *fr_next, *fr_end; size_t fr_start_cap, fr_next_cap, fr_end_cap;
    uint8_t *fr_self; size_t fr_self_cap;
    uint32_t *pool; size_t npool, pool_cap;        /* the open frames' tau targets */
    uint32_t counter;
    ctx_t c2;                   /* expands for the tau search */
    uint8_t *tbuf;
} br_rf_handle_t;

static size_t rf_bytes(const br_rf_handle_t *h) {
    return store_bytes(&h->st) + store_bytes(&h->tau) + br_names_bytes() + br_lib_bytes(&h->lib)
        + h->cyc_cap + (h->num_cap + h->low_cap + h->stk_cap + h->fr_cap + h->pool_cap) * 4
        + (h->fr_start_cap + h->fr_next_cap + h->fr_end_cap) * sizeof(size_t) + h->fr_self_cap;
}

/* Push tau state id as a new frame: number it, expand it, keep its open tau targets.
 * Returns 0, or -1 out of memory, -2 a model error, -3 a fallback. */
static int rf_push(br_rf_handle_t *h, uint32_t id) {
    size_t need = (size_t)id + 1;
    if (!br_grow((void **)&h->num, &h->num_cap, need, 4) || !br_grow((void **)&h->low, &h->low_cap, need, 4)
        || !br_grow((void **)&h->stk, &h->stk_cap, h->nstk + 1, 4)
        || !br_grow((void **)&h->fr_node, &h->fr_cap, h->nfr + 1, 4)
        || !br_grow((void **)&h->fr_start, &h->fr_start_cap, h->nfr + 1, sizeof(size_t))
        || !br_grow((void **)&h->fr_next, &h->fr_next_cap, h->nfr + 1, sizeof(size_t))
        || !br_grow((void **)&h->fr_end, &h->fr_end_cap, h->nfr + 1, sizeof(size_t))
        || !br_grow((void **)&h->fr_self, &h->fr_self_cap, h->nfr + 1, 1)) return -1;
    h->num[id] = h->low[id] = ++h->counter;
    h->stk[h->nstk++] = id;
    uint32_t len;
    const uint8_t *v = store_vec(&h->tau, id, &len);
    memcpy(h->tbuf, v, len);
    br_expand(&h->c2, h->tbuf, len);
    if (h->c2.oom) return -1;
    if (h->c2.err) return -2;
    if (h->c2.fallback) return -3;
    size_t start = h->npool;
    uint8_t self = 0;
    for (size_t i = 0; i < h->c2.n; i++) {
        if (!h->c2.keep[i] || h->c2.events[i] != -1) continue;
        int added;
        int64_t w = store_insert(&h->tau, h->c2.buf + i * (size_t)BR_MAXVEC, h->c2.lens[i], UINT32_MAX, &added);
        if (w < 0 || !br_grow((void **)&h->cyc, &h->cyc_cap, h->tau.n, 1)) return -1;
        if (added) {
            h->cyc[w] = 0;
            if (!br_grow((void **)&h->num, &h->num_cap, h->tau.n, 4)) return -1;
            h->num[w] = 0;
        }
        if ((uint32_t)w == id) self = 1;
        if (h->cyc[w]) continue;  /* decided earlier: its component is closed */
        if (!br_grow((void **)&h->pool, &h->pool_cap, h->npool + 1, 4)) return -1;
        h->pool[h->npool++] = (uint32_t)w;
    }
    h->fr_node[h->nfr] = id;
    h->fr_start[h->nfr] = start;
    h->fr_next[h->nfr] = start;
    h->fr_end[h->nfr] = h->npool;
    h->fr_self[h->nfr] = self;
    h->nfr++;
    return 0;
}

/* 1 when the implementation state v lies on a cycle of tau steps, 0 when not; -1 out
 * of memory, -2 a model error, -3 a fallback (met expanding a state tau-reachable
 * from v). */
static int rf_on_cycle(br_rf_handle_t *h, const uint8_t *v, uint32_t len) {
    int added;
    int64_t root = store_insert(&h->tau, v, len, UINT32_MAX, &added);
    if (root < 0 || !br_grow((void **)&h->cyc, &h->cyc_cap, h->tau.n, 1)
        || !br_grow((void **)&h->num, &h->num_cap, h->tau.n, 4)) return -1;
    if (added) { h->cyc[root] = 0; h->num[root] = 0; }
    if (h->cyc[root]) return h->cyc[root] == 2;
    h->nfr = 0; h->npool = 0; h->nstk = 0;
    int e = rf_push(h, (uint32_t)root);
    if (e) return e;
    while (h->nfr) {
        size_t f = h->nfr - 1;
        uint32_t u = h->fr_node[f];
        if (h->fr_next[f] < h->fr_end[f]) {
            uint32_t w = h->pool[h->fr_next[f]++];
            if (h->num[w] == 0) {
                e = rf_push(h, w);
                if (e) return e;
            } else if (h->cyc[w] == 0 && h->num[w] < h->low[u]) {
                h->low[u] = h->num[w];  /* w is on the stack */
            }
            continue;
        }
        h->nfr--;
        h->npool = h->fr_start[f];  /* the deeper frames are gone: their targets too */
        if (h->low[u] == h->num[u]) {
            size_t top = h->nstk;
            while (h->stk[top - 1] != u) top--;
            top--;
            uint8_t mark = (h->nstk - top > 1 || h->fr_self[f]) ? 2 : 1;
            for (size_t k = top; k < h->nstk; k++) h->cyc[h->stk[k]] = mark;
            h->nstk = top;
        }
        if (h->nfr) {
            uint32_t p = h->fr_node[h->nfr - 1];
            if (h->low[u] < h->low[p]) h->low[p] = h->low[u];
        }
    }
    return h->cyc[root] == 2;
}

static void rf_free(br_rf_handle_t *h) {
    store_free(&h->st);
    store_free(&h->tau);
    br_lib_free(&h->lib);
    ctx_free(&h->c2);
    free(h->cyc); free(h->num); free(h->low); free(h->stk); free(h->fr_node); free(h->fr_start); free(h->fr_next);
    free(h->fr_end); free(h->fr_self); free(h->pool); free(h->tbuf);
    free(h);
}

__attribute__((visibility("default")))
void *bridge_refine_search(const br_rf_params_t *p, const uint8_t *init, uint32_t init_len,
                           br_rf_result_t *r) {
    memset(r, 0, sizeof *r);
    r->event = -1;
    double start = br_now();
    int64_t transitions = 0;
    size_t head = 0;
    int failures = p->model != BR_RF_TRACES, divergence = p->model == BR_RF_FD;
    br_rf_handle_t *h = calloc(1, sizeof *h);
    ctx_t c;
    memset(&c, 0, sizeof c);
    uint8_t *cur = malloc(BR_MAXVEC + 4), *pv = malloc(BR_MAXVEC + 4);
    uint64_t *offered = calloc((size_t)(p->n_words > 0 ? p->n_words : 1), 8);
    if (h) h->tbuf = malloc(BR_MAXVEC);
    if (!h || !cur || !pv || !offered || !h->tbuf || !succ_reserve(&c) || !succ_reserve(&h->c2)
        || !store_init(&h->st, BR_FIXED ? BR_FIXED + 4 : 0, BR_HIDDEN, (size_t)p->max_memory, 1, 0, 0)
        || (divergence && !store_init(&h->tau, BR_FIXED, BR_HIDDEN, (size_t)p->max_memory, 0, 0, 0))) {
        free(cur); free(pv); free(offered);
        ctx_free(&c);
        if (h) rf_free(h);
        r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY;
        return NULL;
    }
    store_t *st = &h->st;
    c.lib = h->c2.lib = &h->lib;
    /* event names computed at run time are rendered and interned, so they meet the
     * specification's names (interned before the search) by id */
    c.names = h->c2.names = 1;
    int added;
    int32_t zero = 0;
    memcpy(pv, init, init_len);
    memcpy(pv + init_len, &zero, 4);
    if (store_insert(st, pv, init_len + 4, UINT32_MAX, &added) < 0) {
        r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY;
        goto out;
    }
    size_t level_end = st->n, next_check = 1024;
    while (head < st->n) {
        if (head == level_end) { r->depth++; level_end = st->n; }
        uint32_t len;
        const uint8_t *v = store_vec(st, head, &len);
        memcpy(cur, v, len);
        uint32_t vlen = len - 4;
        int32_t node;
        memcpy(&node, cur + vlen, 4);
        if (divergence && p->divergent[node]) { head++; continue; }  /* anything goes */
        if (p->max_memory) br_lib_bound(&h->lib, p->max_memory, rf_bytes(h));
        size_t kept = br_expand(&c, cur, vlen);
        if (c.oom) { r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY; r->pair = (int64_t)head; goto out; }
        if (c.err) { r->status = BR_MODEL_ERROR; r->pair = (int64_t)head; goto out; }
        if (c.fallback) { r->status = BR_FALLBACK; r->pair = (int64_t)head; goto out; }
        transitions += (int64_t)kept;
        for (size_t i = 0; i < c.n; i++)
            if (c.keep[i] && c.events[i] < -1) {  /* a name C did not render */
                r->status = BR_FALLBACK; r->pair = (int64_t)head; goto out;
            }
        if (divergence) {
            int oc = rf_on_cycle(h, cur, vlen);
            if (oc == -1) { r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY; r->pair = (int64_t)head; goto out; }
            if (oc == -2) { r->status = BR_MODEL_ERROR; r->pair = (int64_t)head; goto out; }
            if (oc == -3) { r->status = BR_FALLBACK; r->pair = (int64_t)head; goto out; }
            if (oc) { r->status = BR_FOUND; r->found_kind = BR_RF_FOUND_DIVERGENCE; r->pair = (int64_t)head; goto out; }
        }
        if (failures) {
            int stable = 1;
            for (size_t i = 0; i < c.n; i++) if (c.keep[i] && c.events[i] == -1) { stable = 0; break; }
            if (stable) {
                memset(offered, 0, (size_t)(p->n_words > 0 ? p->n_words : 1) * 8);
                for (size_t i = 0; i < c.n; i++) {
                    int32_t ev = c.events[i];
                    if (!c.keep[i] || ev < 0 || ev >= p->n_codes || p->code_event[ev] < 0) continue;
                    int32_t k = p->code_event[ev];
                    offered[k >> 6] |= (uint64_t)1 << (k & 63);
                }
                int accepted = 0;
                for (int32_t a = p->acc_first[node]; a < p->acc_first[node + 1] && !accepted; a++) {
                    const uint64_t *set = p->acc_sets + (size_t)a * (size_t)p->n_words;
                    int sub = 1;
                    for (int32_t w = 0; w < p->n_words; w++)
                        if (set[w] & ~offered[w]) { sub = 0; break; }
                    accepted = sub;
                }
                if (!accepted) {
                    r->status = BR_FOUND; r->found_kind = BR_RF_FOUND_FAILURE; r->pair = (int64_t)head;
                    goto out;
                }
            }
        }
        if (p->max_memory) {
            size_t extra = rf_bytes(h) - store_bytes(st);
            st->mem_limit = (int64_t)extra < p->max_memory ? (size_t)p->max_memory - extra : 1;
        }
        for (size_t i = 0; i < c.n; i++) {
            if (!c.keep[i]) continue;
            int32_t ev = c.events[i], next = node;
            if (ev >= 0) {
                int32_t k = ev < p->n_codes ? p->code_event[ev] : -1;
                next = k < 0 ? -1 : p->after[(size_t)node * (size_t)p->n_events + (size_t)k];
                if (next < 0) {
                    r->status = BR_FOUND; r->found_kind = BR_RF_FOUND_TRACE; r->event = ev;
                    r->pair = (int64_t)head;
                    goto out;
                }
            }
            memcpy(pv, c.buf + i * (size_t)BR_MAXVEC, c.lens[i]);
            memcpy(pv + c.lens[i], &next, 4);
            if (store_insert(st, pv, c.lens[i] + 4, (uint32_t)head, &added) < 0) {
                r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY; r->pair = (int64_t)head;
                goto out;
            }
        }
        if (p->max_memory && (int64_t)rf_bytes(h) > p->max_memory) {
            r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY; r->pair = (int64_t)head;
            goto out;
        }
        head++;
        int limit = br_limit_after(st->n, head, &next_check, p->max_states, p->timeout,
                                   p->progress, transitions, start);
        if (limit) { r->status = BR_LIMIT; r->limit_kind = limit; break; }
    }
out:
    r->transitions = transitions;
    r->explored = (int64_t)head;
    r->pairs = (int64_t)st->n;
    r->tau_states = (int64_t)h->tau.n;
    r->memory_bytes = (int64_t)rf_bytes(h);
    r->seconds = br_now() - start;
    ctx_free(&c);
    free(cur); free(pv); free(offered);
    return h;
}

/* The implementation's vector of pair id into out (its length; 0 when unknown or
 * longer than cap) and the pair's node into *node. */
__attribute__((visibility("default")))
uint32_t bridge_refine_pair(void *hp, int64_t id, uint8_t *out, uint32_t cap, int32_t *node) {
    br_rf_handle_t *h = hp;
    if (!h || id < 0 || (size_t)id >= h->st.n) return 0;
    uint32_t len;
    const uint8_t *v = store_vec(&h->st, (size_t)id, &len);
    if (len < 4 || len - 4 > cap) return 0;
    memcpy(out, v, len - 4);
    memcpy(node, v + len - 4, 4);
    return len - 4;
}

__attribute__((visibility("default")))
void bridge_refine_free(void *hp) {
    if (hp) rf_free(hp);
}
