/* bridge compiled engine: breadth-first search with parent links (issue 12).
 *
 * The C twin of semantics/explore.py's _Search.run and check_property: states get
 * dense ids in the order they are found, so the BFS queue is the id counter itself;
 * each state is expanded by the generated model_successors, then judged (deadlock,
 * invalid end state, invariant, reaches), then its successors are stored. The order
 * of successors, of checks and of limits is the Python engine's, so both engines
 * visit the same states in the same order and stop at the same state.
 */

enum { BR_MODE_EXPLORE = 0, BR_MODE_DEADLOCK = 1, BR_MODE_NONTERMINATING = 2, BR_MODE_SAFETY = 3,
       BR_MODE_INVARIANT = 4, BR_MODE_REACHES = 5, BR_MODE_REACHES_MIN = 6, BR_MODE_REACHES_MAX = 7,
       BR_MODE_EXPLORE_TRACE = 8 /* explore, keeping parent links */ };
enum { BR_DONE = 0, BR_FOUND = 1, BR_MODEL_ERROR = 2, BR_LIMIT = 3, BR_FALLBACK = 4 };
enum { BR_LIMIT_STATES = 1, BR_LIMIT_TIME = 2, BR_LIMIT_MEMORY = 3, BR_LIMIT_INTERRUPT = 4 };
enum { BR_FOUND_DEADLOCK = 1, BR_FOUND_TERMINATED = 2, BR_FOUND_INVALID_END = 3,
       BR_FOUND_INVARIANT = 4, BR_FOUND_REACHED = 5 };

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
} br_handle_t;

static double br_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void ctx_free(ctx_t *c) {
    free(c->buf); free(c->lens); free(c->labels); free(c->events); free(c->procs); free(c->keep);
    free(c->offers); free(c->elses); free(c->tmos);
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
    if (!h || !cur || !succ_reserve(&c) || !store_init(&h->st, BR_FIXED, BR_HIDDEN, (size_t)p->max_memory, p->mode != BR_MODE_EXPLORE, 0)) {
        free(cur);
        ctx_free(&c);
        if (h) store_free(&h->st);
        free(h);
        r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY;
        return NULL;
    }
    store_t *st = &h->st;
    c.lib = &h->lib;
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
        default:
            break;
        }
        if (found) {
            r->status = BR_FOUND; r->found_kind = found; r->state = (int64_t)head;
            goto out;
        }
        for (size_t i = 0; i < c.n; i++) {
            if (!c.keep[i]) continue;
            if (store_insert(st, c.buf + i * (size_t)BR_MAXVEC, c.lens[i], (uint32_t)head, &added) < 0) {
                r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_MEMORY; r->state = (int64_t)head;
                goto out;
            }
        }
        head++;
        if (p->max_states && (int64_t)st->n > p->max_states) {
            r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_STATES;
            break;
        }
        if (head >= next_check) {
            next_check = head + 1024;
            double now = br_now();
            if (p->timeout > 0 && now - start > p->timeout) {
                r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_TIME;
                break;
            }
            if (p->progress && p->progress((int64_t)st->n, transitions, now - start)) {
                r->status = BR_LIMIT; r->limit_kind = BR_LIMIT_INTERRUPT;
                break;
            }
        }
    }
out:
    r->transitions = transitions;
    r->explored = (int64_t)head;
    r->states = (int64_t)st->n;
    r->memory_bytes = (int64_t)(store_bytes(st) + br_lib_bytes(&h->lib));
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

__attribute__((visibility("default")))
void bridge_free(void *hp) {
    br_handle_t *h = hp;
    if (!h) return;
    store_free(&h->st);
    br_lib_free(&h->lib);
    free(h);
}

/* The elements of library value id of a search (BFS or LTL handle) into out (at most
 * cap of them); returns 2 * count + kind (library.c), or -1 when id is unknown. */
__attribute__((visibility("default")))
int64_t bridge_lib_value(void *hp, int64_t id, int64_t *out, int64_t cap) {
    br_handle_t *h = hp;
    if (!h) return -1;
    size_t n;
    const V *el = br_lib_get(&h->lib, id, &n);
    if (!el && id != 0) return -1;
    for (size_t i = 0; i < n && (int64_t)i < cap; i++) out[i] = el[i];
    return 2 * (int64_t)n + (id ? h->lib.kind[id] : 0);
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
