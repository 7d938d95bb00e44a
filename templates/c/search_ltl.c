/* bridge compiled engine: the on-the-fly fair emptiness check (issue 12 item 2).
 *
 * The C twin of bridge/fairness/onthefly.py (Couvreur, FM'99, in the form of Renault,
 * Duret-Lutz, Kordon and Poitrenaud, LPAR 2013: Tarjan's live stack and a root stack
 * of partial components), over the product of the model with the automaton of the
 * negation. The automaton comes from Python as a table: per state its edges, each with
 * a target, an acceptance mask and a condition given as cubes over the atomic
 * propositions (the edge is enabled by letter l when (l & mask) == value for some
 * cube). The propositions are model expressions evaluated here on each new system
 * state (model_expr), so a letter is the OR of the bits of the true propositions.
 *
 * Product nodes are (system state id, automaton state), interned in the order the
 * Python product interns them (system states in the state store, targets in successor
 * order; a node index of nq entries per system state), so both engines give the same
 * node ids, the same edge order and the same search. Without fairness the search
 * reports the first partial component that has an internal edge and every acceptance
 * set; under process-weak fairness (SPIN's -f) also every process enabled in all its
 * states must move on an internal edge (the items of conditions.ProcessWeakFairness),
 * and a node's edges start at (system state id mod degree) as onthefly.ORDER_ROTATE.
 * For these two notions a complete component that is accepting and not hopeless would
 * have been reported at its last merge, so the Fig. 5 recursion is never needed; the
 * search reports BR_LTL_UNDECIDED if that ever happened (then Python decides).
 *
 * What comes back: the verdict, the statistics, and for a report the nodes of the fair
 * part and the DFS path to its first node (node ids; bridge_ltl_node gives a node's
 * system state and automaton state, bridge_state a system state's vector). Python
 * rebuilds the subgraph on its own semantics, re-checks it and builds the lasso.
 */

enum { BR_LTL_NONE = 0, BR_LTL_PROCESS_WEAK = 1 };
enum { BR_LTL_DONE = 0, BR_LTL_FOUND = 1, BR_LTL_MODEL_ERROR = 2, BR_LTL_LIMIT = 3,
       BR_LTL_FALLBACK = 4, BR_LTL_UNDECIDED = 5, BR_LTL_COMPUTED_EVENT = 6,
       BR_LTL_MORE_PROCESSES = 7 /* a process beyond pwords words moved: run again with more */ };

typedef struct {
    int64_t max_states;     /* product states; 0: none */
    double timeout;
    int64_t max_memory;
    progress_fn progress;
    int32_t nq, q0, n_ap, fairness;
    int32_t pwords;         /* words of a process set the search keeps (1..BR_PWORDS) */
    int32_t pad;
    uint64_t all_sets;
    uint32_t init_letter;   /* the event letter of the pseudo-step init */
    const int32_t *ap_expr; /* n_ap: model_expr index of each proposition, -1: an event */
    const int32_t *q_edges; /* nq + 1: edges of q are q_edges[q] .. q_edges[q+1]-1 */
    const int32_t *e_target;
    const uint64_t *e_acc;
    const int32_t *e_cubes; /* n_edges + 1 offsets into c_mask / c_value */
    const uint32_t *c_mask;
    const uint32_t *c_value;
    /* event atoms: event_bits[i] are the bits of the atoms naming BR_EVENT_NAMES[i]; a
     * step whose event is computed at run time (-2) cannot be matched here: with event
     * atoms in the formula the search then falls back to Python */
    const uint32_t *event_bits;
    int32_t n_events, event_atoms;
} br_ltl_params_t;

typedef struct {
    int32_t status, limit_kind, early_report;
    uint32_t event_atoms_seen;  /* the bits of the event atoms some explored step has */
    int64_t states, transitions, sys_states, memory_bytes;
    int64_t sccs, nontrivial_sccs;
    int64_t error_node;     /* the node whose expansion met a model error */
    int64_t part_len, path_len;
    double seconds;
} br_ltl_result_t;

#define BR_UNSEEN (-1)
#define BR_DEAD (-2)

typedef struct {
    store_t st;             /* first: bridge_state reads a br_ltl_t as a br_handle_t */
    uint32_t *sys_letter; size_t sys_letter_cap;
    /* Promela atomicity (product.Product.sys_wait): 1 when the holder of atomicity in
     * the system state can move on (the automaton waits: idle edges into it), 0 when
     * it cannot or nobody holds it, 2 while unknown */
    uint8_t *sys_wait; size_t sys_wait_cap;
    int32_t *node_of; size_t node_of_cap;      /* sys * nq + q -> node, -1: none */
    uint32_t *node_sys; size_t node_sys_cap;
    uint16_t *node_q; size_t node_q_cap;
    int32_t *pos; size_t pos_cap;              /* BR_UNSEEN, BR_DEAD or position in live */
    size_t nn;
    int32_t *part; int32_t *path;              /* the report */
} br_ltl_t;

typedef struct {
    br_ltl_t *h;
    const br_ltl_params_t *p;
    br_ltl_result_t *r;
    ctx_t c;
    uint8_t *cur;
    int items;
    int pw;                 /* words per process set (p->pwords) */
    int32_t *live; size_t nlive, live_cap;
    int32_t *dfs_node; size_t ndfs, dfs_node_cap;
    int32_t *dfs_base; size_t dfs_base_cap;
    int32_t *e_dst; size_t ne, e_dst_cap;
    uint64_t *e_acc; size_t e_acc_cap;
    uint64_t *e_eng; size_t e_eng_cap;
    int32_t *r_pos; size_t nr, r_pos_cap;
    int32_t *r_depth; size_t r_depth_cap;
    uint64_t *r_acc; size_t r_acc_cap;
    uint64_t *r_in_acc; size_t r_in_acc_cap;
    uint8_t *r_cyc; size_t r_cyc_cap;
    uint64_t *r_in_eng; size_t r_in_eng_cap;
    uint64_t *r_all; size_t r_all_cap;
    uint64_t *r_some; size_t r_some_cap;
    uint64_t *r_eng; size_t r_eng_cap;
    /* one expansion: targets, acceptance, engaged items (s->pw words each) */
    int32_t *x_dst; size_t x_dst_cap;
    uint64_t *x_acc; size_t x_acc_cap;
    uint64_t *x_eng; size_t x_eng_cap;
    int32_t *mv_q; size_t mv_q_cap;
    ctx_t c2;               /* expands a target to decide its sys_wait */
    uint8_t *cur2;
    uint64_t *idle_acc;     /* per automaton state: the marks of every edge leaving it */
    uint64_t *mv_acc; size_t mv_acc_cap;
    int64_t transitions;
    double start;
    int64_t next_check;
    int found_part;         /* root index of the reported part */
} ls_t;

#define LS_GROW(s, arr, need, per) br_grow((void **)&(s)->arr, &(s)->arr##_cap, (size_t)(need) * (per), sizeof *(s)->arr)

static size_t ltl_bytes(const ls_t *s) {
    const br_ltl_t *h = s->h;
    return store_bytes(&h->st) + h->sys_letter_cap * 4 + h->sys_wait_cap + h->node_of_cap * 4 + h->node_sys_cap * 4
        + h->node_q_cap * 2 + h->pos_cap * 4 + s->live_cap * 4 + s->dfs_node_cap * 8
        + s->e_dst_cap * 4 + s->e_acc_cap * 8 + s->e_eng_cap * 8
        + s->r_pos_cap * 8 + s->r_acc_cap * 16 + s->r_cyc_cap + (s->r_in_eng_cap + s->r_all_cap
        + s->r_some_cap + s->r_eng_cap) * 8;
}

static int ls_fail(ls_t *s, int status, int limit_kind) {
    s->r->status = status;
    s->r->limit_kind = limit_kind;
    return -1;
}

static int ls_oom(ls_t *s) { return ls_fail(s, BR_LTL_LIMIT, BR_LIMIT_MEMORY); }

/* The letter of a new system state: the OR of the bits of its true propositions. */
static int ls_letter(ls_t *s, const uint8_t *v, uint32_t len, uint32_t *letter) {
    uint32_t l = 0;
    s->c.err = 0; s->c.fallback = 0;
    for (int i = 0; i < s->p->n_ap; i++) {
        int e = s->p->ap_expr[i];
        if (e < 0) continue;
        V b = model_expr(&s->c, e, v, len);
        if (s->c.err || s->c.fallback) return 0;
        if (b) l |= (uint32_t)1 << i;
    }
    *letter = l;
    return 1;
}

/* Intern a system state; returns its id, or -1 (memory), -2 (model error in a
 * proposition), -3 (fallback). */
static int64_t ls_intern_sys(ls_t *s, const uint8_t *v, uint32_t len) {
    br_ltl_t *h = s->h;
    int added;
    int64_t id = store_insert(&h->st, v, len, UINT32_MAX, &added);
    if (id < 0) return -1;
    if (added) {
        size_t nq = (size_t)s->p->nq;
        if (!br_grow((void **)&h->sys_letter, &h->sys_letter_cap, h->st.n, 4)
            || !br_grow((void **)&h->sys_wait, &h->sys_wait_cap, h->st.n, 1)
            || !br_grow((void **)&h->node_of, &h->node_of_cap, h->st.n * nq, 4)) return -1;
        for (size_t q = 0; q < nq; q++) h->node_of[(size_t)id * nq + q] = -1;
        uint32_t letter;
        if (!ls_letter(s, v, len, &letter)) return s->c.err ? -2 : -3;
        h->sys_letter[id] = letter;
        h->sys_wait[id] = model_holder(v) >= 0 ? 2 : 0;
    }
    return id;
}

/* Whether the holder of atomicity in system state t can move on there (product._waits):
 * 1 or 0, decided once from t's steps (a model error there: 0, it is reported when t
 * is expanded); -1 out of memory, -3 fallback. */
static int ls_waits(ls_t *s, uint32_t t) {
    br_ltl_t *h = s->h;
    if (h->sys_wait[t] != 2) return h->sys_wait[t];
    uint32_t len;
    const uint8_t *v = store_vec(&h->st, t, &len);
    memcpy(s->cur2, v, len);
    int holder = model_holder(s->cur2);
    br_expand(&s->c2, s->cur2, len);
    if (s->c2.oom) return -1;
    if (s->c2.fallback) return -3;
    int moves = 0;
    if (!s->c2.err)
        for (size_t i = 0; i < s->c2.n; i++)
            if (s->c2.keep[i] && succ_has_proc(&s->c2, i, holder)) { moves = 1; break; }
    h->sys_wait[t] = (uint8_t)moves;
    return moves;
}

/* Find or intern node (sys, q); returns its id, or -1 (limit or memory: r set). */
static int64_t ls_node(ls_t *s, uint32_t sys, int q) {
    br_ltl_t *h = s->h;
    size_t k = (size_t)sys * (size_t)s->p->nq + (size_t)q;
    int32_t n = h->node_of[k];
    if (n >= 0) return n;
    if (s->p->max_states && (int64_t)h->nn >= s->p->max_states)
        return ls_fail(s, BR_LTL_LIMIT, BR_LIMIT_STATES);
    if (h->nn >= 0x7FFFFFF0u) return ls_oom(s);
    if (!br_grow((void **)&h->node_sys, &h->node_sys_cap, h->nn + 1, 4)
        || !br_grow((void **)&h->node_q, &h->node_q_cap, h->nn + 1, 2)
        || !br_grow((void **)&h->pos, &h->pos_cap, h->nn + 1, 4)) return ls_oom(s);
    if (s->p->max_memory && (int64_t)ltl_bytes(s) > s->p->max_memory) return ls_oom(s);
    n = (int32_t)h->nn++;
    h->node_of[k] = n;
    h->node_sys[n] = sys;
    h->node_q[n] = (uint16_t)q;
    h->pos[n] = BR_UNSEEN;
    return n;
}

/* The automaton moves of q on letter, parallel edges to one target merged (their
 * acceptance OR-ed), targets in the order of their first edge (product._moves). */
static size_t ls_moves(ls_t *s, int q, uint32_t letter) {
    const br_ltl_params_t *p = s->p;
    size_t n = 0;
    for (int32_t e = p->q_edges[q]; e < p->q_edges[q + 1]; e++) {
        int on = 0;
        for (int32_t k = p->e_cubes[e]; k < p->e_cubes[e + 1]; k++)
            if ((letter & p->c_mask[k]) == p->c_value[k]) { on = 1; break; }
        if (!on) continue;
        size_t j = 0;
        while (j < n && s->mv_q[j] != p->e_target[e]) j++;
        if (j == n) {
            if (!LS_GROW(s, mv_q, n + 1, 1) || !LS_GROW(s, mv_acc, n + 1, 1)) return (size_t)-1;
            s->mv_q[n] = p->e_target[e]; s->mv_acc[n] = 0; n++;
        }
        s->mv_acc[j] |= p->e_acc[e];
    }
    return n;
}

/* Expand node w into x_*: returns the number of edges, or -1 (r set). */
static int64_t ls_expand(ls_t *s, int32_t w, uint64_t *enabled) {
    br_ltl_t *h = s->h;
    uint32_t sys = h->node_sys[w];
    int q = h->node_q[w];
    uint32_t len;
    const uint8_t *v = store_vec(&h->st, sys, &len);
    memcpy(s->cur, v, len);
    br_expand(&s->c, s->cur, len);
    if (s->c.oom) return ls_oom(s);
    if (s->c.err) { s->r->error_node = w; return ls_fail(s, BR_LTL_MODEL_ERROR, 0); }
    if (s->c.fallback) return ls_fail(s, BR_LTL_FALLBACK, 0);
    for (int k = 0; k < s->pw; k++) enabled[k] = 0;
    size_t nx = 0, kept = 0;
    for (size_t i = 0; i < s->c.n; i++) kept += s->c.keep[i];
    size_t nsteps = kept ? kept : 1;
    for (size_t i = 0, done = 0; done < nsteps; i++) {
        uint32_t t;
        const uint64_t *procs = NULL;
        if (kept) {
            if (!s->c.keep[i]) continue;
            int64_t id = ls_intern_sys(s, s->c.buf + i * (size_t)BR_MAXVEC, s->c.lens[i]);
            if (id == -1) return ls_oom(s);
            if (id == -2) { s->r->error_node = w; return ls_fail(s, BR_LTL_MODEL_ERROR, 0); }
            if (id == -3) return ls_fail(s, BR_LTL_FALLBACK, 0);
            t = (uint32_t)id;
            procs = s->c.procs + i * BR_PWORDS;
            for (int k = 0; k < s->pw; k++) enabled[k] |= procs[k];
            for (int k = s->pw; k < BR_PWORDS; k++)
                if (procs[k]) return ls_fail(s, BR_LTL_MORE_PROCESSES, 0);
        } else {
            t = sys;  /* the stutter step: engages nothing */
        }
        done++;
        size_t nm;
        int waits = kept && h->sys_wait[t] ? ls_waits(s, t) : 0;
        if (waits == -1) return ls_oom(s);
        if (waits == -3) return ls_fail(s, BR_LTL_FALLBACK, 0);
        if (waits) {  /* inside an atomic sequence: the automaton waits */
            if (!LS_GROW(s, mv_q, 1, 1) || !LS_GROW(s, mv_acc, 1, 1)) return ls_oom(s);
            s->mv_q[0] = q; s->mv_acc[0] = s->idle_acc[q]; nm = 1;
            goto edges;
        }
        uint32_t letter = h->sys_letter[t];
        if (kept && s->p->event_atoms) {
            int32_t ev = s->c.events[i];
            if (ev >= 0 && ev < s->p->n_events) {
                letter |= s->p->event_bits[ev];
                s->r->event_atoms_seen |= s->p->event_bits[ev];
            }
            else if (ev == -2) return ls_fail(s, BR_LTL_COMPUTED_EVENT, 0);
        }
        nm = ls_moves(s, q, letter);
        if (nm == (size_t)-1) return ls_oom(s);
    edges:
        for (size_t j = 0; j < nm; j++) {
            int64_t n2 = ls_node(s, t, s->mv_q[j]);
            if (n2 < 0) return -1;
            if (!LS_GROW(s, x_dst, nx + 1, 1) || !LS_GROW(s, x_acc, nx + 1, 1)
                || !LS_GROW(s, x_eng, nx + 1, s->pw)) return ls_oom(s);
            s->x_dst[nx] = (int32_t)n2;
            s->x_acc[nx] = s->mv_acc[j];
            for (int k = 0; k < s->pw; k++) s->x_eng[nx * s->pw + k] = procs ? procs[k] : 0;
            nx++;
        }
    }
    s->transitions += (int64_t)nx;
    return (int64_t)nx;
}

static int ls_fair_part(ls_t *s, size_t i) {
    if (!s->r_cyc[i] || (s->r_acc[i] & s->p->all_sets) != s->p->all_sets) return 0;
    if (s->items)
        for (int k = 0; k < s->pw; k++)
            if (s->r_all[i * s->pw + k] & ~s->r_eng[i * s->pw + k]) return 0;
    return 1;
}

/* The edge from the top DFS node to the live node at target_pos (onthefly._merge);
 * returns 1 when the merged part is reported. */
static int ls_merge(ls_t *s, int32_t target_pos, uint64_t acc, const uint64_t *eng_in) {
    uint64_t eng[BR_PWORDS], every[BR_PWORDS], some[BR_PWORDS];
    for (int k = 0; k < s->pw; k++) { eng[k] = eng_in ? eng_in[k] : 0; every[k] = ~(uint64_t)0; some[k] = 0; }
    size_t top = s->nr - 1;
    while (s->r_pos[top] > target_pos) {
        acc |= s->r_acc[top] | s->r_in_acc[top];
        if (s->items)
            for (int k = 0; k < s->pw; k++) {
                eng[k] |= s->r_eng[top * s->pw + k] | s->r_in_eng[top * s->pw + k];
                every[k] &= s->r_all[top * s->pw + k];
                some[k] |= s->r_some[top * s->pw + k];
            }
        s->nr--;
        top--;
    }
    s->r_acc[top] |= acc;
    s->r_cyc[top] = 1;
    if (s->items)
        for (int k = 0; k < s->pw; k++) {
            s->r_eng[top * s->pw + k] |= eng[k];
            s->r_all[top * s->pw + k] &= every[k];
            s->r_some[top * s->pw + k] |= some[k];
        }
    if (ls_fair_part(s, top)) { s->found_part = (int)top; return 1; }
    return 0;
}

/* Visit w, entered by an edge with in_acc / in_eng (onthefly._push); returns 1 when a
 * part is reported, 0, or -1 (r set). */
static int ls_push(ls_t *s, int32_t w, uint64_t in_acc, const uint64_t *in_eng) {
    br_ltl_t *h = s->h;
    int32_t p = (int32_t)s->nlive;
    if (!LS_GROW(s, live, s->nlive + 1, 1) || !LS_GROW(s, dfs_node, s->ndfs + 1, 1)
        || !LS_GROW(s, dfs_base, s->ndfs + 1, 1)) return ls_oom(s);
    h->pos[w] = p;
    s->live[s->nlive++] = w;
    s->dfs_node[s->ndfs] = w;
    s->dfs_base[s->ndfs] = (int32_t)s->ne;
    s->ndfs++;
    uint64_t enabled[BR_PWORDS];
    int64_t nx = ls_expand(s, w, enabled);
    if (nx < 0) return -1;
    size_t i = s->nr;
    if (!LS_GROW(s, r_pos, i + 1, 1) || !LS_GROW(s, r_depth, i + 1, 1) || !LS_GROW(s, r_acc, i + 1, 1)
        || !LS_GROW(s, r_in_acc, i + 1, 1) || !LS_GROW(s, r_cyc, i + 1, 1)) return ls_oom(s);
    if (s->items && (!LS_GROW(s, r_in_eng, i + 1, s->pw) || !LS_GROW(s, r_all, i + 1, s->pw)
                     || !LS_GROW(s, r_some, i + 1, s->pw) || !LS_GROW(s, r_eng, i + 1, s->pw))) return ls_oom(s);
    s->r_pos[i] = p;
    s->r_depth[i] = (int32_t)s->ndfs - 1;
    s->r_acc[i] = 0;
    s->r_cyc[i] = 0;
    s->r_in_acc[i] = in_acc;
    if (s->items)
        for (int k = 0; k < s->pw; k++) {
            s->r_in_eng[i * s->pw + k] = in_eng ? in_eng[k] : 0;
            s->r_all[i * s->pw + k] = s->r_some[i * s->pw + k] = enabled[k];
            s->r_eng[i * s->pw + k] = 0;
        }
    s->nr++;
    size_t n = (size_t)nx;
    size_t shift = (s->items && n > 1) ? h->node_sys[w] % n : 0;
    for (size_t j = n; j-- > 0;) {
        size_t e = j + shift;
        if (e >= n) e -= n;
        int32_t t = s->x_dst[e];
        int32_t pt = h->pos[t];
        if (pt == BR_UNSEEN) {
            if (!LS_GROW(s, e_dst, s->ne + 1, 1) || !LS_GROW(s, e_acc, s->ne + 1, 1)
                || (s->items && !LS_GROW(s, e_eng, s->ne + 1, s->pw))) return ls_oom(s);
            s->e_dst[s->ne] = t;
            s->e_acc[s->ne] = s->x_acc[e];
            if (s->items) memcpy(s->e_eng + s->ne * s->pw, s->x_eng + e * s->pw, s->pw * 8);
            s->ne++;
        } else if (pt >= 0) {
            if (ls_merge(s, pt, s->x_acc[e], s->items ? s->x_eng + e * s->pw : NULL)) return 1;
        }
    }
    return 0;
}

/* The top part is a complete SCC: retire it (onthefly._close). Returns 0, or -1 when
 * it would need the Fig. 5 recursion (never for the notions here: see the top). */
static int ls_close(ls_t *s) {
    br_ltl_t *h = s->h;
    size_t top = s->nr - 1;
    int32_t start = s->r_pos[top];
    for (size_t j = (size_t)start; j < s->nlive; j++) h->pos[s->live[j]] = BR_DEAD;
    s->nlive = (size_t)start;
    int cyclic = s->r_cyc[top];
    int accepting = (s->r_acc[top] & s->p->all_sets) == s->p->all_sets;
    int hopeless = 0;
    if (s->items)
        for (int k = 0; k < s->pw; k++)
            if (s->r_all[top * s->pw + k] & ~s->r_eng[top * s->pw + k]) hopeless = 1;
    s->nr--;
    s->r->sccs++;
    if (!cyclic) return 0;
    s->r->nontrivial_sccs++;
    if (!accepting || hopeless) return 0;
    return ls_fail(s, BR_LTL_UNDECIDED, 0);
}

static int ls_tick(ls_t *s) {
    if ((int64_t)s->h->nn < s->next_check) return 0;
    s->next_check = (int64_t)s->h->nn + 1024;
    double now = br_now();
    if (s->p->timeout > 0 && now - s->start > s->p->timeout) return ls_fail(s, BR_LTL_LIMIT, BR_LIMIT_TIME);
    if (s->p->progress && s->p->progress((int64_t)s->h->nn, s->transitions, now - s->start))
        return ls_fail(s, BR_LTL_LIMIT, BR_LIMIT_INTERRUPT);
    return 0;
}

/* The DFS loop (onthefly._loop): 1 reported, 0 done, -1 stopped (r set). */
static int ls_loop(ls_t *s) {
    br_ltl_t *h = s->h;
    while (s->ndfs) {
        if (ls_tick(s) < 0) return -1;
        if ((int32_t)s->ne > s->dfs_base[s->ndfs - 1]) {
            s->ne--;
            int32_t w = s->e_dst[s->ne];
            int32_t pw = h->pos[w];
            int got = 0;
            if (pw == BR_UNSEEN) got = ls_push(s, w, s->e_acc[s->ne], s->items ? s->e_eng + s->ne * s->pw : NULL);
            else if (pw >= 0) got = ls_merge(s, pw, s->e_acc[s->ne], s->items ? s->e_eng + s->ne * s->pw : NULL);
            if (got) return got;
        } else {
            int32_t v = s->dfs_node[--s->ndfs];
            if (s->r_pos[s->nr - 1] == h->pos[v] && ls_close(s) < 0) return -1;
        }
    }
    return 0;
}

static void ls_free(ls_t *s) {
    ctx_free(&s->c);
    ctx_free(&s->c2);
    free(s->cur2); free(s->idle_acc);
    free(s->cur); free(s->live); free(s->dfs_node); free(s->dfs_base);
    free(s->e_dst); free(s->e_acc); free(s->e_eng);
    free(s->r_pos); free(s->r_depth); free(s->r_acc); free(s->r_in_acc); free(s->r_cyc);
    free(s->r_in_eng); free(s->r_all); free(s->r_some); free(s->r_eng);
    free(s->x_dst); free(s->x_acc); free(s->x_eng); free(s->mv_q); free(s->mv_acc);
}

/* Copy the report (the part's nodes, the DFS path to its first node) into the handle. */
static int ls_report(ls_t *s) {
    br_ltl_t *h = s->h;
    size_t i = (size_t)s->found_part;
    size_t from = (size_t)s->r_pos[i], depth = (size_t)s->r_depth[i];
    s->r->part_len = (int64_t)(s->nlive - from);
    s->r->path_len = (int64_t)(depth + 1);
    h->part = malloc((s->nlive - from + 1) * 4);
    h->path = malloc((depth + 1) * 4);
    if (!h->part || !h->path) return ls_oom(s);
    memcpy(h->part, s->live + from, (s->nlive - from) * 4);
    memcpy(h->path, s->dfs_node, (depth + 1) * 4);
    s->r->status = BR_LTL_FOUND;
    s->r->early_report = 1;
    return 1;
}

__attribute__((visibility("default")))
void *bridge_ltl_search(const br_ltl_params_t *p, const uint8_t *init, uint32_t init_len,
                        br_ltl_result_t *r) {
    memset(r, 0, sizeof *r);
    r->error_node = -1;
    ls_t s;
    memset(&s, 0, sizeof s);
    s.p = p; s.r = r;
    s.items = p->fairness == BR_LTL_PROCESS_WEAK;
    s.pw = p->pwords < 1 ? 1 : p->pwords > BR_PWORDS ? BR_PWORDS : p->pwords;
    s.start = br_now();
    s.next_check = 1024;
    s.h = calloc(1, sizeof *s.h);
    s.cur = malloc(BR_MAXVEC);
    s.cur2 = malloc(BR_MAXVEC);
    s.idle_acc = calloc((size_t)p->nq + 1, sizeof *s.idle_acc);
    if (s.idle_acc)
        for (int32_t q = 0; q < p->nq; q++) {
            uint64_t m = p->q_edges[q] < p->q_edges[q + 1] ? ~(uint64_t)0 : 0;
            for (int32_t e = p->q_edges[q]; e < p->q_edges[q + 1]; e++) m &= p->e_acc[e];
            s.idle_acc[q] = m;
        }
    if (!s.h || !s.cur || !s.cur2 || !s.idle_acc || !succ_reserve(&s.c) || !succ_reserve(&s.c2)
        || !store_init(&s.h->st, BR_FIXED, BR_HIDDEN, (size_t)p->max_memory, 0)) {
        r->status = BR_LTL_LIMIT; r->limit_kind = BR_LIMIT_MEMORY;
        goto out;
    }
    int64_t s0 = ls_intern_sys(&s, init, init_len);
    if (s0 == -1) { ls_oom(&s); goto out; }
    if (s0 == -2) { ls_fail(&s, BR_LTL_MODEL_ERROR, 0); goto out; }
    if (s0 == -3) { ls_fail(&s, BR_LTL_FALLBACK, 0); goto out; }
    /* the initial nodes: the automaton's moves from q0 on the initial letter, each
     * edge separately (not merged), duplicates once (product.Product.__init__) */
    uint32_t letter = s.h->sys_letter[s0] | p->init_letter;
    int32_t *roots = NULL; size_t nroots = 0, roots_cap = 0;
    for (int32_t e = p->q_edges[p->q0]; e < p->q_edges[p->q0 + 1]; e++) {
        int on = 0;
        for (int32_t k = p->e_cubes[e]; k < p->e_cubes[e + 1]; k++)
            if ((letter & p->c_mask[k]) == p->c_value[k]) { on = 1; break; }
        if (!on) continue;
        int64_t n = ls_node(&s, (uint32_t)s0, p->e_target[e]);
        if (n < 0) { free(roots); goto out; }
        size_t j = 0;
        while (j < nroots && roots[j] != n) j++;
        if (j < nroots) continue;
        if (!br_grow((void **)&roots, &roots_cap, nroots + 1, 4)) { free(roots); ls_oom(&s); goto out; }
        roots[nroots++] = (int32_t)n;
    }
    int got = 0;
    for (size_t j = 0; j < nroots && !got; j++) {
        if (s.h->pos[roots[j]] != BR_UNSEEN) continue;
        got = ls_push(&s, roots[j], 0, NULL);
        if (got == 0) got = ls_loop(&s);
    }
    free(roots);
    if (got == 1) ls_report(&s);
    else if (got == 0) r->status = BR_LTL_DONE;
    /* a model error: the DFS path to the failing node is the trace */
    if (r->status == BR_LTL_MODEL_ERROR && s.ndfs) {
        s.h->path = malloc(s.ndfs * 4);
        if (s.h->path) { memcpy(s.h->path, s.dfs_node, s.ndfs * 4); r->path_len = (int64_t)s.ndfs; }
    }
out:
    if (s.h) {
        r->states = (int64_t)s.h->nn;
        r->sys_states = (int64_t)s.h->st.n;
        r->memory_bytes = (int64_t)ltl_bytes(&s);
    }
    r->transitions = s.transitions;
    r->seconds = br_now() - s.start;
    ls_free(&s);
    return s.h;
}

__attribute__((visibility("default")))
int32_t bridge_ltl_part(void *hp, int64_t i) { return ((br_ltl_t *)hp)->part[i]; }

__attribute__((visibility("default")))
int32_t bridge_ltl_path(void *hp, int64_t i) { return ((br_ltl_t *)hp)->path[i]; }

/* The system state id of node n; *q its automaton state. */
__attribute__((visibility("default")))
int64_t bridge_ltl_node(void *hp, int64_t n, int32_t *q) {
    br_ltl_t *h = hp;
    if (!h || n < 0 || (size_t)n >= h->nn) return -1;
    *q = h->node_q[n];
    return h->node_sys[n];
}

__attribute__((visibility("default")))
void bridge_ltl_free(void *hp) {
    br_ltl_t *h = hp;
    if (!h) return;
    store_free(&h->st);
    free(h->sys_letter); free(h->sys_wait); free(h->node_of); free(h->node_sys); free(h->node_q); free(h->pos);
    free(h->part); free(h->path);
    free(h);
}
