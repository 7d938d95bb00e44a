/* bridge compiled engine: breadth-first search with parent links (issue 12).
 *
 * The C twin of semantics/explore.py's _Search.run and check_property: states get
 * dense ids in the order they are found, so the BFS queue is the id counter itself;
 * each state is expanded by the generated model_successors, then judged (deadlock,
 * invalid end state, invariant, reaches), then its successors are stored. The order
 * of successors, of checks and of limits is the Python engine's, so both engines
 * visit the same states in the same order and stop at the same state.
 *
 * CSP#'s deterministic and divergencefree (check_property): a state with two steps on
 * one visible event to different states is found when it is expanded, comparing each
 * step with the last earlier step on its event, as the Python engine does; the
 * internal (tau) steps are kept as edges during the search, and once it is complete a
 * depth-first search over them finds the Python engine's cycle (_find_cycle: the same
 * roots in the same order, the same edge order), handed back as its edges.
 */

enum { BR_MODE_EXPLORE = 0, BR_MODE_DEADLOCK = 1, BR_MODE_NONTERMINATING = 2, BR_MODE_SAFETY = 3,
       BR_MODE_INVARIANT = 4, BR_MODE_REACHES = 5, BR_MODE_REACHES_MIN = 6, BR_MODE_REACHES_MAX = 7,
       BR_MODE_EXPLORE_TRACE = 8 /* explore, keeping parent links */,
       BR_MODE_DETERMINISTIC = 9, BR_MODE_DIVERGENCE = 10 };
enum { BR_DONE = 0, BR_FOUND = 1, BR_MODEL_ERROR = 2, BR_LIMIT = 3, BR_FALLBACK = 4 };
enum { BR_LIMIT_STATES = 1, BR_LIMIT_TIME = 2, BR_LIMIT_MEMORY = 3, BR_LIMIT_INTERRUPT = 4 };
enum { BR_FOUND_DEADLOCK = 1, BR_FOUND_TERMINATED = 2, BR_FOUND_INVALID_END = 3,
       BR_FOUND_INVARIANT = 4, BR_FOUND_REACHED = 5, BR_FOUND_NONDETERMINISTIC = 6,
       BR_FOUND_DIVERGENCE = 7 };

/* Called about every 1024 states; a nonzero return stops the search (Ctrl-C). */
typedef int32_t (*progress_fn)(int64_t, int64_t, double);

typedef struct {
    int64_t max_states;     /* 0: none */
    double timeout;         /* 0: none */
    int64_t max_memory;     /* bytes, 0: none */
    int32_t mode;
    int32_t ignore_end;
    int32_t pred;           /* expression index of the condition */
    int32_t value;          /* expression index of the min/max value */
    progress_fn progress;   /* may be NULL */
} br_params_t;

typedef struct {
    int32_t status, limit_kind, found_kind, in_predicate;
    int64_t state;          /* where the search stopped (found, error) */
    int64_t states, transitions, depth, explored;
    int64_t best_state, best_value;
    int64_t memory_bytes;
    double seconds;
} br_result_t;

typedef struct {
    store_t st;
    br_lib_t lib;           /* second: br_ltl_t has it at the same place */
    /* divergencefree: the tau steps (src, dst), in the order the search met them (so
     * grouped by src, ascending), then the cycle found: indexes into them */
    uint32_t *tau_src, *tau_dst; size_t ntau, tau_cap;
    size_t *cycle; size_t ncycle;
} br_handle_t;

static size_t br_extra_bytes(const br_handle_t *h) {
    return br_names_bytes() + br_lib_bytes(&h->lib) + h->tau_cap * 8
        + h->ncycle * sizeof *h->cycle;
}

static int br_add_tau(br_handle_t *h, uint32_t src, uint32_t dst) {
    if (h->ntau == h->tau_cap) {
        size_t cap = h->tau_cap ? h->tau_cap * 2 : 1024;
        uint32_t *a = realloc(h->tau_src, cap * 4);
        if (!a) return 0;
        h->tau_src = a;
        uint32_t *b = realloc(h->tau_dst, cap * 4);
        if (!b) return 0;
        h->tau_dst = b;
        h->tau_cap = cap;
    }
    h->tau_src[h->ntau] = src;
    h->tau_dst[h->ntau] = dst;
    h->ntau++;
    return 1;
}

/* The first tau step of state v (h->ntau when none): binary search, the steps being
 * grouped by source in ascending order. */
static size_t br_tau_first(const br_handle_t *h, uint32_t v) {
    size_t lo = 0, hi = h->ntau;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->tau_src[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* explore.py's _find_cycle over the tau steps of n states: an iterative depth-first
 * search from each source in ascending order; the first back edge closes the cycle
 * (h->cycle: its steps from the state the back edge enters). Returns 1 when found, 0
 * when none, -1 when out of memory (or over max_memory). */
static int br_find_cycle(br_handle_t *h, size_t n, int64_t max_memory) {
    size_t bytes = n + (2 * h->ntau + 1) * sizeof(size_t);
    if (max_memory && (int64_t)(store_bytes(&h->st) + br_extra_bytes(h) + bytes) > max_memory)
        return -1;
    uint8_t *color = calloc(n ? n : 1, 1);          /* 0 new, 1 on the stack, 2 done */
    size_t *next = malloc((h->ntau + 1) * sizeof *next);  /* stack: next step */
    size_t *path = malloc((h->ntau ? h->ntau : 1) * sizeof *path);  /* steps to the top */
    int found = 0;
    if (!color || !next || !path) { found = -1; goto done; }
    for (size_t r = 0; r < h->ntau && !found; ) {
        uint32_t root = h->tau_src[r];
        size_t after = r;
        while (after < h->ntau && h->tau_src[after] == root) after++;
        if (color[root]) { r = after; continue; }
        /* stack entry k: the vertex root (k = 0) or the target of path[k - 1], and the
         * next of its steps to try */
        color[root] = 1;
        next[0] = r;
        size_t sp = 1;
        while (sp) {
            uint32_t v = sp == 1 ? root : h->tau_dst[path[sp - 2]];
            size_t i = next[sp - 1];
            if (i < h->ntau && h->tau_src[i] == v) {
                next[sp - 1] = i + 1;
                uint32_t w = h->tau_dst[i];
                if (color[w] == 1) {
                    size_t from = sp - 1;  /* w == v: the step alone */
                    if (w != v) {
                        from = 0;
                        while (h->tau_src[path[from]] != w) from++;
                    }
                    size_t len = sp - 1 - from + 1;
                    h->cycle = malloc(len * sizeof *h->cycle);
                    if (!h->cycle) { found = -1; break; }
                    for (size_t k = from; k < sp - 1; k++) h->cycle[h->ncycle++] = path[k];
                    h->cycle[h->ncycle++] = i;
                    found = 1;
                    break;
                }
                if (color[w] == 0) {
                    color[w] = 1;
                    path[sp - 1] = i;
                    next[sp] = br_tau_first(h, w);
                    sp++;
                }
            } else {
                color[v] = 2;
                sp--;
            }
        }
        r = after;
    }
done:
    free(color); free(next); free(path);
    return found;
}

static double br_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* After a state is expanded (head of them now): the state limit (n stored), then,
 * about every 1024 states, the time limit and the progress callback (Ctrl-C), in the
 * Python engine's order; returns the BR_LIMIT_* kind that stops the search, or 0.
 * Shared by the searches of this file and search_refine.c. */
static int br_limit_after(size_t n, size_t head, size_t *next_check, int64_t max_states,
                          double timeout, progress_fn progress, int64_t transitions,
                          double start) {
    if (max_states && (int64_t)n > max_states) return BR_LIMIT_STATES;
    if (head < *next_check) return 0;
    *next_check = head + 1024;
    double now = br_now();
    if (timeout > 0 && now - start > timeout) return BR_LIMIT_TIME;
    if (progress && progress((int64_t)n, transitions, now - start)) return BR_LIMIT_INTERRUPT;
    return 0;
}

static void ctx_free(ctx_t *c) {
    free(c->buf); free(c->lens); free(c->labels); free(c->events); free(c->procs); free(c->keep);
    free(c->offers); free(c->elses); free(c->tmos); free(c->rv);
    if (c->sub) { ctx_free(c->sub); free(c->sub); c->sub = NULL; }
}

/* Expand s into c; returns the number of successors kept. */
static size_t br_expand(ctx_t *c, const uint8_t *s, uint32_t len) {
    c->n = 0; c->noffers = 0; c->nelses = 0; c->ntmos = 0;
    c->err = 0; c->fallback = 0;
    model_successors(c, s, len);
    size_t kept = 0;
    for (size_t i = 0; i < c->n; i++) kept += c->keep[i];
    return kept;
}

__attribute__((visibility("default")))
void *bridge_search(const br_params_t *p, const uint8_t *init, uint32_t init_len, br_result_t *r) {
    memset(r, 0, sizeof *r);
    r->best_state = -1;
    double start = br_now();
    int64_t transitions = 0;
    size_t head = 0;
    br_handle_t *h = calloc(1, sizeof *h);
    ctx_t c;
    memset(&c, 0, sizeof c);
    uint8_t *cur = malloc(BR_MAXVEC);
    if (!h || !cur || !succ_reserve(&c) || !store_init(&h->st, BR_FIXED, BR_HIDDEN, (size_t)p->max_memory, p->mode != BR_MODE_EXPLORE, 0, 0)) {
        free(cur);
        ctx_free(&c);
        if (h) store_free(&h->st);
        free(h);
        r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY;
        return NULL;
    }
    store_t *st = &h->st;
    c.lib = &h->lib;
    /* deterministic compares the steps' event names: render the computed ones
     * (br_evname, br_chev) */
    c.names = p->mode == BR_MODE_DETERMINISTIC;
    int added;
    if (store_insert(st, init, init_len, UINT32_MAX, &added) < 0) {
        r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY;
        goto out;
    }
    size_t level_end = st->n, next_check = 1024;
    while (head < st->n) {
        if (head == level_end) { r->depth++; level_end = st->n; }
        uint32_t len;
        const uint8_t *v = store_vec(st, head, &len);
        memcpy(cur, v, len);
        if (p->max_memory) br_lib_bound(&h->lib, p->max_memory, store_bytes(st) + br_extra_bytes(h));
        size_t kept = br_expand(&c, cur, len);
        if (c.oom) { r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY; r->state = (int64_t)head; goto out; }
        if (c.err) { r->status = BR_MODEL_ERROR; r->state = (int64_t)head; goto out; }
        if (c.fallback) { r->status = BR_FALLBACK; r->state = (int64_t)head; goto out; }
        transitions += (int64_t)kept;
        int found = 0;
        switch (p->mode) {
        case BR_MODE_DEADLOCK:
            if (!kept && !model_is_terminal(&c, cur, len)) found = BR_FOUND_DEADLOCK;
            break;
        case BR_MODE_NONTERMINATING:
            if (!kept) found = model_is_terminal(&c, cur, len) ? BR_FOUND_TERMINATED : BR_FOUND_DEADLOCK;
            break;
        case BR_MODE_SAFETY:
            if (!p->ignore_end && !kept) {
                c.err = 0; c.fallback = 0;
                int valid = model_is_valid_end(&c, cur, len);
                /* a model error in the end condition (a Promela trace): Python decides */
                if (c.err || c.fallback) { r->status = BR_FALLBACK; r->state = (int64_t)head; goto out; }
                if (!valid) found = BR_FOUND_INVALID_END;
            }
            break;
        case BR_MODE_INVARIANT:
        case BR_MODE_REACHES:
        case BR_MODE_REACHES_MIN:
        case BR_MODE_REACHES_MAX: {
            c.err = 0; c.fallback = 0;
            V holds = model_expr(&c, p->pred, cur, len);
            V value = 0;
            if (holds && !c.err && !c.fallback && p->mode >= BR_MODE_REACHES_MIN)
                value = model_expr(&c, p->value, cur, len);
            if (c.err) { r->status = BR_MODEL_ERROR; r->in_predicate = 1; r->state = (int64_t)head; goto out; }
            if (c.fallback) { r->status = BR_FALLBACK; r->state = (int64_t)head; goto out; }
            if (p->mode == BR_MODE_INVARIANT && !holds) found = BR_FOUND_INVARIANT;
            else if (p->mode == BR_MODE_REACHES && holds) found = BR_FOUND_REACHED;
            else if (holds && p->mode != BR_MODE_INVARIANT && p->mode != BR_MODE_REACHES) {
                if (r->best_state < 0 || (p->mode == BR_MODE_REACHES_MIN ? value < r->best_value : value > r->best_value)) {
                    r->best_value = value; r->best_state = (int64_t)head;
                }
            }
            break;
        }
        case BR_MODE_DETERMINISTIC:
            /* each visible step against the last earlier step on its event */
            for (size_t i = 0; i < c.n && !found; i++) {
                int32_t ev = c.events[i];
                if (!c.keep[i] || ev == -1) continue;
                if (ev < 0) {  /* a name C cannot render: the Python engine decides */
                    r->status = BR_FALLBACK; r->found_kind = BR_FOUND_NONDETERMINISTIC;
                    r->state = (int64_t)head; goto out;
                }
                for (size_t j = i; j-- > 0; ) {
                    if (!c.keep[j] || c.events[j] != ev) continue;
                    const uint8_t *a = c.buf + i * (size_t)BR_MAXVEC, *b = c.buf + j * (size_t)BR_MAXVEC;
                    if (c.lens[i] != c.lens[j]
                        || memcmp(a + BR_HIDDEN, b + BR_HIDDEN, c.lens[i] - BR_HIDDEN) != 0)
                        found = BR_FOUND_NONDETERMINISTIC;
                    break;
                }
            }
            break;
        default:
            break;
        }
        if (found) {
            r->status = BR_FOUND; r->found_kind = found; r->state = (int64_t)head;
            goto out;
        }
        /* the memory limit bounds the store and the other tables together */
        if (p->max_memory) {
            size_t extra = br_extra_bytes(h);
            st->mem_limit = (int64_t)extra < p->max_memory ? (size_t)p->max_memory - extra : 1;
        }
        for (size_t i = 0; i < c.n; i++) {
            if (!c.keep[i]) continue;
            int64_t id = store_insert(st, c.buf + i * (size_t)BR_MAXVEC, c.lens[i], (uint32_t)head, &added);
            if (id < 0 || (p->mode == BR_MODE_DIVERGENCE && c.events[i] == -1
                           && !br_add_tau(h, (uint32_t)head, (uint32_t)id))) {
                r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY; r->state = (int64_t)head;
                goto out;
            }
        }
        if (p->max_memory && (int64_t)(store_bytes(st) + br_extra_bytes(h)) > p->max_memory) {
            r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY; r->state = (int64_t)head;
            goto out;
        }
        head++;
        int limit = br_limit_after(st->n, head, &next_check, p->max_states, p->timeout,
                                   p->progress, transitions, start);
        if (limit) { r->status = BR_LIMIT; r->limit_kind = limit; break; }
    }
    if (p->mode == BR_MODE_DIVERGENCE && r->status == BR_DONE) {
        /* complete: look for a cycle of tau steps */
        int cyc = br_find_cycle(h, st->n, p->max_memory);
        if (cyc < 0) { r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY; }
        else if (cyc) {
            r->status = BR_FOUND; r->found_kind = BR_FOUND_DIVERGENCE;
            r->state = (int64_t)h->tau_src[h->cycle[0]];
        }
    }
out:
    r->transitions = transitions;
    r->explored = (int64_t)head;
    r->states = (int64_t)st->n;
    r->memory_bytes = (int64_t)(store_bytes(st) + br_extra_bytes(h));
    r->seconds = br_now() - start;
    ctx_free(&c);
    free(cur);
    return h;
}

__attribute__((visibility("default")))
int64_t bridge_parent(void *hp, int64_t id) {
    br_handle_t *h = hp;
    if (!h || !h->st.keep_parents || id < 0 || (size_t)id >= h->st.n) return -1;
    uint32_t p = h->st.parent[id];
    return p == UINT32_MAX ? -1 : (int64_t)p;
}

__attribute__((visibility("default")))
uint32_t bridge_state(void *hp, int64_t id, uint8_t *out, uint32_t cap) {
    br_handle_t *h = hp;
    if (!h || id < 0 || (size_t)id >= h->st.n) return 0;
    uint32_t len;
    const uint8_t *v = store_vec(&h->st, (size_t)id, &len);
    if (len > cap) return 0;
    memcpy(out, v, len);
    return len;
}

/* The number of steps of the tau cycle found (divergencefree), 0 when none. */
__attribute__((visibility("default")))
int64_t bridge_cycle_length(void *hp) {
    br_handle_t *h = hp;
    return h ? (int64_t)h->ncycle : 0;
}

/* Step k of the tau cycle: its source state, *dst its target; -1 when out of range. */
__attribute__((visibility("default")))
int64_t bridge_cycle_step(void *hp, int64_t k, int64_t *dst) {
    br_handle_t *h = hp;
    if (!h || k < 0 || (size_t)k >= h->ncycle) return -1;
    *dst = h->tau_dst[h->cycle[k]];
    return h->tau_src[h->cycle[k]];
}

__attribute__((visibility("default")))
void bridge_free(void *hp) {
    br_handle_t *h = hp;
    if (!h) return;
    store_free(&h->st);
    br_lib_free(&h->lib);
    free(h->tau_src); free(h->tau_dst); free(h->cycle);
    free(h);
}

/* The elements of library value id of a search (BFS or LTL handle) into out (at most
 * cap of them); returns 4 * count + kind (library.c), or -1 when id is unknown. */
__attribute__((visibility("default")))
int64_t bridge_lib_value(void *hp, int64_t id, int64_t *out, int64_t cap) {
    br_handle_t *h = hp;
    if (!h) return -1;
    size_t n;
    const V *el = br_lib_get(&h->lib, id, &n);
    if (!el && id != 0) return -1;
    for (size_t i = 0; i < n && (int64_t)i < cap; i++) out[i] = el[i];
    return 4 * (int64_t)n + (id ? h->lib.kind[id] : 0);
}

__attribute__((visibility("default")))
uint32_t bridge_max_vector(void) { return BR_MAXVEC; }

/* Event names: the constant ones (BR_EVENT_NAMES) and those met at run time
 * (br_name_id), by id. */
__attribute__((visibility("default")))
const char *bridge_event_name(int32_t i) {
    if (i >= 0 && (size_t)i < br_names.n) return br_names.name[i];
    return (i >= 0 && i < BR_EVENT_COUNT) ? BR_EVENT_NAMES[i] : NULL;
}

__attribute__((visibility("default")))
int32_t bridge_event_count(void) {
    return br_names.n > (size_t)BR_EVENT_COUNT ? (int32_t)br_names.n : BR_EVENT_COUNT;
}

/* The id of an event name (interned when new: the formula's event atoms and annotated
 * names before a fair search, so a name computed at run time equal to one of them gets
 * its id); -2 when out of memory. */
__attribute__((visibility("default")))
int32_t bridge_event_intern(const char *name) { return br_name_id(name, strlen(name)); }

/* The 64-bit words of a process set in this model (BR_PWORDS). */
__attribute__((visibility("default")))
int32_t bridge_process_words(void) { return BR_PWORDS; }
