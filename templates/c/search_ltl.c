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
 * set. Under a notion with items (conditions.py: step_items / item_mark) a node's edges
 * start at (system state id mod degree) as onthefly.ORDER_ROTATE, and each partial
 * component keeps the items enabled in all its states (r_all), in some state (r_some)
 * and engaged by its internal edges (r_eng):
 *   process-weak (SPIN's -f), process-strong: items are processes, an edge engages the
 *     processes that move (its procs words);
 *   weak, strong-local: items are actions (Step.action of the Python semantics): a
 *     Promela statement of an instance (pid, edge index), the death of instance pid
 *     (pid, -1), a rendezvous (the sender's and the receiver's (pid, edge)), a CSP#
 *     event name; a tau step (CSP# event -1) enables nothing and its engagement is
 *     never required. Actions are interned as met (ls_item) into bits of iwords words;
 *     a CSP# event name computed at run time is rendered and interned by the model
 *     code (br_evname, br_chev: ctx.names) into an id after the constant names; one
 *     it cannot render (-2: a value that may be a bool or an int), or a barrier of a
 *     model that is not CSP# (its action is the tuple of its edges), has an action the
 *     C search cannot name: it stops with BR_LTL_COMPUTED_ACTION (Python decides).
 * Fairness annotations (conditions.AnnotatedFairness, paper 000 Fig. 11 per mark) add
 * their units as items after the notion's (bits bw*64.. of every item set; an edge then
 * carries its items as words, e_eng): a unit per annotated event name or label, and
 * per (pid, edge) of a wl/sl edge, each with its mark (weak, strong, or f: engaged in
 * every fair loop); marks written in the model are learnt when a step taking the
 * marked edge is met, as check._AnnotationUnits learns them, and the masks of what is
 * required (m_weak, m_strong, m_always) follow. The early report, the hopeless test of
 * a complete component and the Fig. 5 prune read those masks, so the notion and the
 * annotations are judged together (conditions.AllOf); with annotations every accepting
 * complete component goes to Fig. 5 (a mark learnt after its last merge may matter).
 * Strong global fairness has no items (onthefly closed_under_steps): each edge carries
 * the index of its system step (step, target) among its state's distinct ones, each
 * part counts the (node, system step) pairs without an internal edge (r_miss; each DFS
 * frame keeps the bits of the steps its node takes inside, sat), a part with none left
 * is fair, and edges are ordered round robin (onthefly.edge_order).
 * The early report (onthefly._fair_part) needs every weak item enabled in all states
 * engaged, and every strong item enabled in some state engaged. For the weak notions a
 * complete component that is accepting and not hopeless would have been reported at
 * its last merge (its facts are those of that merge), so it never needs more; for the
 * strong notions and strong global such a component is judged by the Fig. 5 recursion
 * of paper 000 (components.search_component), here in ls_fig5: its edges recomputed
 * inside it, the states enabling an item its edges never engage pruned (strong global:
 * all of them when a system step of one of its states is not taken, Fig. 9), the rest
 * re-decomposed (Tarjan) and each accepting part judged again.
 *
 * What comes back: the verdict, the statistics, and for a report the nodes of the fair
 * part and a path from an initial node to its first node (the DFS path; after Fig. 5,
 * the DFS path to the component's first node and a shortest path inside the component
 * to the fair part) as node ids; bridge_ltl_node gives a node's system state and
 * automaton state, bridge_state a system state's vector. Python rebuilds the subgraph
 * on its own semantics, re-checks it and builds the lasso.
 */

enum { BR_LTL_NONE = 0, BR_LTL_PROCESS_WEAK = 1, BR_LTL_WEAK = 2, BR_LTL_STRONG_LOCAL = 3,
       BR_LTL_PROCESS_STRONG = 4, BR_LTL_STRONG_GLOBAL = 5 };
#define BR_ROUND (1LL << 30)
enum { BR_LTL_DONE = 0, BR_LTL_FOUND = 1, BR_LTL_MODEL_ERROR = 2, BR_LTL_LIMIT = 3,
       BR_LTL_FALLBACK = 4, BR_LTL_UNDECIDED = 5, BR_LTL_COMPUTED_EVENT = 6,
       BR_LTL_MORE_PROCESSES = 7, /* a process beyond pwords words moved: run again with more */
       BR_LTL_MORE_ITEMS = 8,     /* more actions than iwords words: run again with r->items */
       BR_LTL_COMPUTED_ACTION = 9 /* an action named at run time (weak, strong-local) */ };

typedef struct {
    int64_t max_states;     /* product states; 0: none */
    double timeout;
    int64_t max_memory;
    progress_fn progress;
    int32_t nq, q0, n_ap, fairness;
    int32_t pwords;         /* words of a process set the search keeps (1..BR_PWORDS) */
    int32_t iwords;         /* words of an action set (weak, strong-local) */
    uint64_t all_sets;
    uint64_t init_letter;   /* the event letter of the pseudo-step init */
    const int32_t *ap_expr; /* n_ap: model_expr index of each proposition, -1: an event,
                             * BR_AP_NP: SPIN's np_ in a state with a step (cycles.py),
                             * BR_AP_ACCEPT: some instance at an accept location */
    const int32_t *q_edges; /* nq + 1: edges of q are q_edges[q] .. q_edges[q+1]-1 */
    const int32_t *e_target;
    const uint64_t *e_acc;
    const int32_t *e_cubes; /* n_edges + 1 offsets into c_mask / c_value */
    const uint64_t *c_mask; /* letters: a bit per proposition, at most 64 */
    const uint64_t *c_value;
    /* event atoms: event_bits[i] are the bits of the atoms naming event i (the
     * caller interned the atoms' names first: a name met later is none of them); a
     * step whose event name is not rendered (-2) cannot be matched here: with event
     * atoms in the formula the search then falls back to Python */
    const uint64_t *event_bits;
    int32_t n_events, event_atoms;
    int32_t csp;            /* the model is CSP# (actions are event names) */
    /* fairness annotations (conditions.AnnotatedFairness, check._AnnotationUnits): the
     * units are bits n_units; 0: no annotations. A step's units are those of its event
     * (ev_unit), of the label of each edge it takes (lab_unit) and of each (pid, edge
     * label) it takes (eu_key / eu_bit, sorted). unit_mark: each unit's mark before the
     * search (0 none, 1 weak, 2 strong, 3 f); lab_mark: the model's mark on each edge
     * label (0, or that code, + 4 for wl/sl: on the (pid, edge) unit, else on the
     * unit of the step's event, or of the edge's label when the step has none), learnt
     * when a step taking the edge is met, the stronger mark kept */
    int32_t n_units;
    int32_t n_labels;
    int32_t n_edge_units;
    int32_t name_units;     /* 1: some unit names an event or label, 2: every event name is
                             * one (model marks): a name met at run time, or not rendered, stops */
    const int32_t *ev_unit;
    const int32_t *lab_unit;
    const int32_t *lab_mark;
    const int32_t *unit_mark;
    const uint64_t *eu_key;
    const int32_t *eu_bit;
    /* symmetry reduction (symmetry.c): every system state is replaced by its orbit's
     * representative before it is interned; NULL: none */
    const br_sym_t *sym;
    /* the store's flat arena before it becomes a tree (store.c): 0 the default
     * (br_flat_default), < 0 the tree from the start */
    int64_t flat_bytes;
    /* the edge log's budget (ls_log): 0 the default (LS_LOG_MAX), < 0 no log */
    int64_t log_bytes;
} br_ltl_params_t;

#define BR_FLAT_MAX ((size_t)2 << 30)

/* The flat arena's default bound: a quarter of the memory limit, else of the physical
 * memory (BR_FLAT_MAX when that is unknown). The tree costs a probe of the pair table
 * per inner node over a changed word; a flat store that fits is several times faster
 * (issue 13: the orienting rings N = 4 passed 2 GB of vectors at 26 million states,
 * and its last 40,000 states took minutes in the tree, 84% of the time in its
 * lookups). store_init bounds it by a quarter of the limit again. */
static size_t br_flat_default(int64_t max_memory) {
    if (max_memory > 0) return (size_t)max_memory / 4;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return BR_FLAT_MAX;
    return (size_t)pages * (size_t)page / 4;
}

typedef struct {
    int32_t status, limit_kind, early_report;
    uint64_t event_atoms_seen;  /* the bits of the event atoms some explored step has */
    int64_t states, transitions, sys_states, memory_bytes;
    int64_t sccs, nontrivial_sccs;
    int64_t error_node;     /* the node whose expansion met a model error */
    int64_t part_len, path_len;
    int64_t subgraphs, pruned;  /* Fig. 5: subgraphs examined, states pruned */
    int64_t items;          /* actions interned (BR_LTL_MORE_ITEMS: how many so far) */
    double seconds;
    uint8_t *units_seen;    /* n_units flags (set by the caller): some explored step has it */
    int64_t dfs_len;        /* path[0..dfs_len) is a DFS path (tree edges), the rest not */
} br_ltl_result_t;

/* The propositions over the location slots of the running instances (model_np,
 * model_accept of the generated model): SPIN's non-progress and acceptance cycles. */
#define BR_AP_NP (-2)
#define BR_AP_ACCEPT (-3)

#define BR_UNSEEN (-1)
#define BR_DEAD (-2)

typedef struct {
    store_t st;             /* first: bridge_state reads a br_ltl_t as a br_handle_t */
    br_lib_t lib;           /* second: so does bridge_lib_value */
    /* per system state its letter, in letter_bytes bytes (1, 2, 4 or 8: n_ap bits) */
    uint8_t *sys_letter; size_t sys_letter_cap; int letter_bytes;
    /* Promela atomicity (product.Product.sys_wait): 1 when the holder of atomicity in
     * the system state can move on (the automaton waits: idle edges into it), 0 when
     * it cannot or nobody holds it, 2 while unknown; NULL until a state has a holder
     * (then all 0 before it) */
    uint8_t *sys_wait; size_t sys_wait_cap;
    int32_t *node_of; size_t node_of_cap;      /* sys * nq + q -> node, -1: none */
    uint32_t *node_sys; size_t node_sys_cap;
    uint16_t *node_q; size_t node_q_cap;       /* NULL when nq = 1 (q is 0) */
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
    int items;              /* there are items (a notion with items, or annotations) */
    int act;                /* the notion's items are actions (weak, strong-local) */
    int prc;                /* the notion's items are processes (process-weak, -strong) */
    int ann;                /* annotation units follow the notion's items */
    int actions;            /* an edge carries one action (act without ann), else words */
    int strong;             /* the notion's items are strong (strong-local, process-strong) */
    int bw;                 /* words of the notion's items */
    int pw;                 /* words per item set: bw, then the annotation units */
    /* what a fair loop requires of each item (onthefly._Items): weak, strong, always */
    uint64_t *m_weak, *m_strong, *m_always;
    int32_t *umark;         /* each unit's current mark (learnt from the model) */
    int mdirty;             /* umark changed: recompute the masks */
    int closed;             /* strong global: every system step of a part's nodes taken */
    int32_t x_nsys;         /* the expansion's distinct system steps */
    int32_t *x_sys; size_t x_sys_cap;          /* per edge: its system step's index */
    int64_t *x_ids; size_t x_ids_cap;          /* per successor: its system state id */
    int32_t *x_minpid; size_t x_minpid_cap;    /* per edge: the first process of its step */
    int64_t *x_key; size_t x_key_cap;          /* round robin: sort keys */
    int32_t *x_order; size_t x_order_cap;
    uint64_t *sp_key; uint32_t *sp_t; size_t sp_key_cap, sp_t_cap;  /* distinct (step, target) */
    int32_t *e_sys; size_t e_sys_cap;
    int32_t *e_minpid; size_t e_minpid_cap;
    int64_t *r_miss; size_t r_miss_cap;        /* (node, system step) pairs lacking an edge */
    int32_t *r_in_sys; size_t r_in_sys_cap;
    int32_t *sat_off; size_t sat_off_cap;      /* per DFS frame: its bits in sat */
    uint64_t *sat; size_t nsat, sat_cap;       /* the steps each frame's node takes inside */
    int32_t *g_sys; size_t g_sys_cap;          /* Fig. 5: an edge's system step index */
    int32_t *g_nsys; size_t g_nsys_cap;        /* Fig. 5: a node's system steps */
    uint64_t *g_bits; size_t g_bits_cap;       /* Fig. 5: the steps one node takes inside */
    uint64_t *g_keys; size_t g_keys_cap;
    int32_t g_start;        /* Fig. 5: the component's first position in live */
    int32_t *live; size_t nlive, live_cap;
    int32_t *dfs_node; size_t ndfs, dfs_node_cap;
    int32_t *dfs_base; size_t dfs_base_cap;
    int32_t *e_dst; size_t ne, e_dst_cap;
    uint64_t *e_acc; size_t e_acc_cap;
    uint64_t *e_eng; size_t e_eng_cap;         /* processes: s->pw words per edge */
    int32_t *e_item; size_t e_item_cap;        /* actions: the edge's action, -1 none */
    int32_t *r_pos; size_t nr, r_pos_cap;
    int32_t *r_depth; size_t r_depth_cap;
    uint64_t *r_acc; size_t r_acc_cap;
    uint64_t *r_in_acc; size_t r_in_acc_cap;
    uint8_t *r_cyc; size_t r_cyc_cap;
    uint64_t *r_in_eng; size_t r_in_eng_cap;
    int32_t *r_in_item; size_t r_in_item_cap;
    uint64_t *r_all; size_t r_all_cap;
    uint64_t *r_some; size_t r_some_cap;
    uint64_t *r_eng; size_t r_eng_cap;
    /* one expansion: targets, acceptance, engaged items */
    int32_t *x_dst; size_t x_dst_cap;
    uint64_t *x_acc; size_t x_acc_cap;
    uint64_t *x_eng; size_t x_eng_cap;
    int32_t *x_item; size_t x_item_cap;
    int32_t *mv_q; size_t mv_q_cap;
    ctx_t c2;               /* expands a target to decide its sys_wait */
    uint8_t *cur2;
    uint64_t *idle_acc;     /* per automaton state: the marks of every edge leaving it */
    uint64_t *mv_acc; size_t mv_acc_cap;
    /* scratch item sets of s->pw words: enabled, engaged, every, some, a step's units */
    uint64_t *t_en, *t_eng, *t_every, *t_some, *t_unit;
    /* the actions met: an open-addressing table of keys + 1 and their bit */
    uint64_t *it_key; int32_t *it_bit; size_t it_cap, nitems;
    /* Fig. 5 (ls_fig5): the component's local graph and work stacks */
    int32_t *g_off; size_t g_off_cap;
    int32_t *g_dst; size_t g_dst_cap;
    uint64_t *g_acc; size_t g_acc_cap;
    uint64_t *g_eng; size_t g_eng_cap;
    int32_t *g_item; size_t g_item_cap;
    uint64_t *g_en; size_t g_en_cap;
    int32_t *g_mark; size_t g_mark_cap;        /* stamp of the set a local node is in */
    int32_t *g_pool; size_t g_pool_cap;        /* work item node lists */
    int32_t *g_work; size_t g_work_cap;        /* work items: (start, end, is_scc) */
    int32_t *g_cur; size_t g_cur_cap;
    int32_t *g_parts; size_t g_parts_cap;      /* split: the parts' nodes, in order */
    int32_t *g_pend; size_t g_pend_cap;        /* split: each part's end in g_parts */
    int32_t *t_index; size_t t_index_cap;      /* Tarjan inside the component */
    int32_t *t_low; size_t t_low_cap;
    int32_t *t_stack; size_t t_stack_cap;
    int32_t *t_call; size_t t_call_cap;        /* (node, next edge) frames */
    int32_t *fig5_nodes; size_t fig5_len, fig5_nodes_cap;   /* the fair subgraph found */
    int64_t transitions;
    double start;
    int64_t next_check;
    int found_part;         /* root index of the reported part */
    /* the edge log (Fig. 5 without re-expansion): the edges of every live node, as
     * ls_expand gave them when it was pushed, at lg_off[its live position]; its enabled
     * items and system steps per position. Logged for the notions whose complete
     * components go to Fig. 5; at most LS_LOG_MAX bytes (a quarter of the memory limit):
     * past that the nodes pushed are not logged (lg_broken, from live position
     * lg_broken_at) and their components are re-expanded, as before. */
    int lg_on, lg_broken;
    size_t lg_broken_at, lg_n;
    int32_t *lg_off; size_t lg_off_cap;
    uint64_t *lg_en; size_t lg_en_cap;
    int32_t *lg_nsys; size_t lg_nsys_cap;
    int32_t *lg_dst; size_t lg_dst_cap;
    uint64_t *lg_acc; size_t lg_acc_cap;
    int32_t *lg_item; size_t lg_item_cap;
    int32_t *lg_sys; size_t lg_sys_cap;
    uint64_t *lg_eng; size_t lg_eng_cap;
    uint8_t *sym_buf;       /* symmetry: the representative being built, and scratch */
    int64_t *sym_vals;
    int32_t *sym_sorted;    /* sym_canon scratch (scratch_n entries) */
} ls_t;

/* br_grow with its common case (room enough) inline */
#define LS_GROW(s, arr, need, per) ((size_t)(need) * (per) <= (s)->arr##_cap \
    || br_grow((void **)&(s)->arr, &(s)->arr##_cap, (size_t)(need) * (per), sizeof *(s)->arr))

static size_t ls_log_bytes(const ls_t *s) {
    return (s->lg_off_cap + s->lg_nsys_cap + s->lg_dst_cap + s->lg_item_cap + s->lg_sys_cap) * 4
        + (s->lg_en_cap + s->lg_acc_cap + s->lg_eng_cap) * 8;
}

static size_t ltl_bytes(const ls_t *s) {
    const br_ltl_t *h = s->h;
    return store_bytes(&h->st) + br_lib_bytes(&h->lib) + h->sys_letter_cap * (size_t)h->letter_bytes + h->sys_wait_cap + h->node_of_cap * 4 + h->node_sys_cap * 4
        + h->node_q_cap * 2 + h->pos_cap * 4 + s->live_cap * 4 + s->dfs_node_cap * 8
        + s->e_dst_cap * 4 + s->e_acc_cap * 8 + s->e_eng_cap * 8 + s->e_item_cap * 4
        + s->r_pos_cap * 8 + s->r_acc_cap * 16 + s->r_cyc_cap + (s->r_in_eng_cap + s->r_all_cap
        + s->r_some_cap + s->r_eng_cap) * 8 + s->r_in_item_cap * 4 + s->it_cap * 12
        + s->e_sys_cap * 4 + s->e_minpid_cap * 4 + s->r_miss_cap * 8 + s->r_in_sys_cap * 4
        + s->sat_off_cap * 4 + s->sat_cap * 8 + (size_t)s->pw * 24 + br_names_bytes()
        + ls_log_bytes(s);
}

/* Bound the library table by what the memory limit leaves it, before an expansion. */
static void ls_bound_lib(ls_t *s) {
    if (s->p->max_memory) br_lib_bound(&s->h->lib, s->p->max_memory, ltl_bytes(s));
}

/* The letter of system state t. */
static inline uint64_t ls_sys_letter(const br_ltl_t *h, size_t t) {
    if (h->letter_bytes == 1) return h->sys_letter[t];
    if (h->letter_bytes == 2) { uint16_t l; memcpy(&l, h->sys_letter + t * 2, 2); return l; }
    if (h->letter_bytes == 4) { uint32_t l; memcpy(&l, h->sys_letter + t * 4, 4); return l; }
    uint64_t l; memcpy(&l, h->sys_letter + t * 8, 8);
    return l;
}

/* The automaton state of node n. */
static inline int ls_node_q(const br_ltl_t *h, size_t n) { return h->node_q ? h->node_q[n] : 0; }

static int ls_fail(ls_t *s, int status, int limit_kind) {
    s->r->status = status;
    s->r->limit_kind = limit_kind;
    return -1;
}

static int ls_oom(ls_t *s) { return ls_fail(s, BR_LTL_LIMIT, BR_LIMIT_MEMORY); }

/* The bit of action key (interned when new); -1 with r set when it cannot be kept. */
static int32_t ls_item(ls_t *s, uint64_t key) {
    if ((s->nitems + 1) * 2 > s->it_cap) {
        size_t cap = s->it_cap ? s->it_cap * 2 : 256;
        uint64_t *keys = calloc(cap, 8);
        int32_t *bits = malloc(cap * 4);
        if (!keys || !bits) { free(keys); free(bits); return ls_oom(s); }
        for (size_t i = 0; i < s->it_cap; i++) {
            if (!s->it_key[i]) continue;
            size_t b = (size_t)((s->it_key[i] * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
            while (keys[b]) b = (b + 1) & (cap - 1);
            keys[b] = s->it_key[i]; bits[b] = s->it_bit[i];
        }
        free(s->it_key); free(s->it_bit);
        s->it_key = keys; s->it_bit = bits; s->it_cap = cap;
    }
    uint64_t k = key + 1;
    size_t b = (size_t)((k * 0x9E3779B97F4A7C15ULL) >> 17) & (s->it_cap - 1);
    while (s->it_key[b]) {
        if (s->it_key[b] == k) return s->it_bit[b];
        b = (b + 1) & (s->it_cap - 1);
    }
    if (s->nitems >= (size_t)s->bw * 64) {
        s->r->items = (int64_t)s->nitems + 1;
        return ls_fail(s, BR_LTL_MORE_ITEMS, 0);
    }
    s->it_key[b] = k;
    s->it_bit[b] = (int32_t)s->nitems;
    return (int32_t)s->nitems++;
}

/* The action of successor i of the state just expanded (Step.action of the Python
 * semantics, see the top): its bit, -2 for a tau step (no item), -1 (r set). */
static int32_t ls_action(ls_t *s, size_t i) {
    const ctx_t *c = &s->c;
    int32_t label = c->labels[i];
    if (s->p->csp) {
        int32_t ev = c->events[i];
        if (ev == -1) return -2;
        if (ev < 0) return ls_fail(s, BR_LTL_COMPUTED_ACTION, 0);
        return ls_item(s, ((uint64_t)3 << 60) | (uint32_t)ev);
    }
    if (label <= -2000000) {  /* rendezvous: (sender pid, edge), (receiver pid, edge) */
        int64_t idx = -2000000LL - label;
        size_t n = c->noffers;
        const offer_t *o = &c->offers[(size_t)idx / n], *q = &c->offers[(size_t)idx % n];
        if (o->edge < 0 || o->edge > 0xFFFF || q->edge < 0 || q->edge > 0xFFFF)
            return ls_fail(s, BR_LTL_UNDECIDED, 0);
        return ls_item(s, ((uint64_t)2 << 60) | ((uint64_t)(o->pid & 0xFFF) << 44)
                       | ((uint64_t)o->edge << 28) | ((uint64_t)(q->pid & 0xFFF) << 16)
                       | (uint64_t)q->edge);
    }
    int pid = -1;
    const uint64_t *procs = c->procs + i * BR_PWORDS;
    for (int k = 0; k < BR_PWORDS && pid < 0; k++)
        if (procs[k]) pid = k * 64 + __builtin_ctzll(procs[k]);
    int64_t edge;
    if (label <= -1000000) edge = -1;  /* death of an instance: (pid, -1) */
    else if (label >= 0) {             /* one edge: (pid, edge index) */
        int t = (int)(sizeof EDGE_BASE / sizeof EDGE_BASE[0]) - 1;
        while (t > 0 && EDGE_BASE[t] > label) t--;
        edge = label - EDGE_BASE[t];
    } else return ls_fail(s, BR_LTL_COMPUTED_ACTION, 0);  /* a barrier outside CSP# */
    return ls_item(s, ((uint64_t)1 << 60) | ((uint64_t)(uint32_t)pid << 32) | (uint32_t)edge);
}

/* ---- annotation units (check._AnnotationUnits.potential, conditions.AnnotatedFairness) */

/* The bit of the unit of (pid, edge label), or -1. */
static int32_t ls_edge_unit(const ls_t *s, int pid, int32_t lab) {
    const br_ltl_params_t *p = s->p;
    uint64_t key = ((uint64_t)(uint32_t)pid << 32) | (uint32_t)lab;
    int32_t lo = 0, hi = p->n_edge_units;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (p->eu_key[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo < p->n_edge_units && p->eu_key[lo] == key ? p->eu_bit[lo] : -1;
}

static inline void ls_unit_add(ls_t *s, uint64_t *set, int32_t u) {
    if (u < 0) return;
    set[u >> 6] |= (uint64_t)1 << (u & 63);
    if (s->r->units_seen) s->r->units_seen[u] = 1;
}

/* The units of one edge (pid, label) a step of event ev takes, and the model's mark on
 * it learnt (the stronger mark kept: _AnnotationUnits._set). */
static void ls_unit_edge(ls_t *s, uint64_t *set, int pid, int32_t lab, int32_t ev) {
    const br_ltl_params_t *p = s->p;
    if (lab < 0 || lab >= p->n_labels) return;
    ls_unit_add(s, set, p->lab_unit[lab]);
    int32_t eu = p->n_edge_units ? ls_edge_unit(s, pid, lab) : -1;
    ls_unit_add(s, set, eu);
    int32_t m = p->lab_mark[lab];
    if (!m) return;
    int32_t u = (m & 4) ? eu : ev >= 0 && ev < p->n_events ? p->ev_unit[ev] : p->lab_unit[lab];
    if (u >= 0 && (m & 3) > s->umark[u]) { s->umark[u] = m & 3; s->mdirty = 1; }
}

/* The units of successor i of the state just expanded, into set (zeroed here, at
 * word bw of an item set); 0, or -1 (r set: an event name computed at run time). */
static int ls_units(ls_t *s, size_t i, uint64_t *set) {
    const ctx_t *c = &s->c;
    const br_ltl_params_t *p = s->p;
    for (int k = s->bw; k < s->pw; k++) set[k] = 0;
    int32_t label = c->labels[i], ev = c->events[i];
    /* a name not rendered, or (every event name a unit: name_units 2) one met at run
     * time, which has no unit here */
    if (ev == -2 && p->name_units || ev >= p->n_events && p->name_units == 2)
        return ls_fail(s, BR_LTL_COMPUTED_EVENT, 0);
    if (ev >= 0 && ev < p->n_events) ls_unit_add(s, set + s->bw, p->ev_unit[ev]);
    uint64_t *u = set + s->bw;
    if (label >= 0) {
        const uint64_t *procs = c->procs + i * BR_PWORDS;
        int pid = -1;
        for (int k = 0; k < BR_PWORDS && pid < 0; k++)
            if (procs[k]) pid = k * 64 + __builtin_ctzll(procs[k]);
        ls_unit_edge(s, u, pid, label, ev);
    } else if (label <= -2000000) {  /* rendezvous: the sender's and the receiver's edge */
        int64_t idx = -2000000LL - label;
        size_t n = c->noffers;
        const offer_t *o = &c->offers[(size_t)idx / n], *q = &c->offers[(size_t)idx % n];
        ls_unit_edge(s, u, o->pid, EDGE_BASE[model_pid_tpl(c, o->pid)] + o->edge, ev);
        ls_unit_edge(s, u, q->pid, EDGE_BASE[model_pid_tpl(c, q->pid)] + q->edge, ev);
    } else if (label > -1000000 && BR_RUNTIME_VECTORS) {  /* barriers combined at run time */
        const int32_t *parts = c->rv + (-label - 1);
        for (int32_t j = 1; j <= parts[0]; j++) {
            const offer_t *o = &c->offers[parts[j]];
            ls_unit_edge(s, u, o->pid, EDGE_BASE[model_pid_tpl(c, o->pid)] + o->edge, ev);
        }
    } else if (label > -1000000) {  /* synchronisation vector -(label + 1) */
        int32_t v = -label - 1;
        for (int32_t j = BR_VEC_OFF[v]; j < BR_VEC_OFF[v + 1]; j++)
            ls_unit_edge(s, u, BR_VEC_EDGES[2 * j], BR_VEC_EDGES[2 * j + 1], ev);
    }
    return 0;
}

/* Recompute what a fair loop requires of each item (onthefly._Items.refresh) when a
 * unit's mark changed. */
static void ls_masks(ls_t *s) {
    if (!s->mdirty) return;
    s->mdirty = 0;
    for (int k = 0; k < s->pw; k++) s->m_weak[k] = s->m_strong[k] = s->m_always[k] = 0;
    if (s->act || s->prc)
        for (int k = 0; k < s->bw; k++) (s->strong ? s->m_strong : s->m_weak)[k] = ~(uint64_t)0;
    for (int32_t u = 0; u < s->p->n_units; u++) {
        uint64_t *m = s->umark[u] == 1 ? s->m_weak : s->umark[u] == 2 ? s->m_strong
            : s->umark[u] == 3 ? s->m_always : NULL;
        if (m) m[s->bw + (u >> 6)] |= (uint64_t)1 << (u & 63);
    }
}

/* Whether system state v has a step (the product does not stutter there): 1 or 0; a
 * model error there counts as a step (it is met when v is expanded, as
 * cycles._non_progress_letter); -1 out of memory, -3 fallback. */
static int ls_has_step(ls_t *s, const uint8_t *v, uint32_t len) {
    memcpy(s->cur2, v, len);
    ls_bound_lib(s);
    br_expand(&s->c2, s->cur2, len);
    if (s->c2.oom) return -1;
    if (s->c2.fallback) return -3;
    if (s->c2.err) return 1;
    for (size_t i = 0; i < s->c2.n; i++)
        if (s->c2.keep[i]) return 1;
    return 0;
}

/* The letter of a new system state: the OR of the bits of its true propositions
 * (returns 1; 0 on a model error or a fallback in one, c.err / c.fallback set; -1 out
 * of memory). */
static int ls_letter(ls_t *s, const uint8_t *v, uint32_t len, uint64_t *letter) {
    uint64_t l = 0;
    s->c.err = 0; s->c.fallback = 0;
    for (int i = 0; i < s->p->n_ap; i++) {
        int e = s->p->ap_expr[i];
        if (e == BR_AP_ACCEPT) {
            if (model_accept(v)) l |= (uint64_t)1 << i;
            continue;
        }
        if (e == BR_AP_NP) {  /* np_, false where the run ends (pan: np_ is false on
                               * the claim's stutter step) */
            if (!model_np(v)) continue;
            int live = ls_has_step(s, v, len);
            if (live == -1) return -1;
            if (live == -3) { s->c.fallback = 1; return 0; }
            if (live) l |= (uint64_t)1 << i;
            continue;
        }
        if (e < 0) continue;
        V b = model_expr(&s->c, e, v, len);
        if (s->c.err || s->c.fallback) return 0;
        if (b) l |= (uint64_t)1 << i;
    }
    *letter = l;
    return 1;
}

/* Intern a system state (canon: v is already its orbit's representative); returns its
 * id, or -1 (memory), -2 (model error in a proposition), -3 (fallback). */
static int64_t ls_intern_sys(ls_t *s, const uint8_t *v, uint32_t len, int canon) {
    br_ltl_t *h = s->h;
    int added;
    if (s->p->sym && !canon) {  /* the quotient (paper 001 Def. 4): intern the representative */
        memcpy(s->sym_buf, v, len);
        sym_canon(s->p->sym, s->sym_buf, s->sym_vals, s->sym_sorted);
        v = s->sym_buf;
    }
    int64_t id = store_insert(&h->st, v, len, UINT32_MAX, &added);
    if (id < 0) return -1;
    if (added) {
        size_t nq = (size_t)s->p->nq;
        int holder = model_holder(v) >= 0;
        int fresh = holder && !h->sys_wait;
        if (!store_grow(&h->st, (void **)&h->sys_letter, &h->sys_letter_cap, h->st.n, (size_t)h->letter_bytes)
            || ((holder || h->sys_wait)
                && !store_grow(&h->st, (void **)&h->sys_wait, &h->sys_wait_cap, h->st.n, 1))
            || !store_grow(&h->st, (void **)&h->node_of, &h->node_of_cap, h->st.n * nq, 4)) return -1;
        if (fresh) memset(h->sys_wait, 0, h->st.n);
        for (size_t q = 0; q < nq; q++) h->node_of[(size_t)id * nq + q] = -1;
        uint64_t letter;
        int ok = ls_letter(s, v, len, &letter);
        if (ok < 0) return -1;
        if (!ok) return s->c.err ? -2 : -3;
        if (h->letter_bytes == 1) h->sys_letter[id] = (uint8_t)letter;
        else if (h->letter_bytes == 2) { uint16_t l = (uint16_t)letter; memcpy(h->sys_letter + (size_t)id * 2, &l, 2); }
        else if (h->letter_bytes == 4) { uint32_t l = (uint32_t)letter; memcpy(h->sys_letter + (size_t)id * 4, &l, 4); }
        else memcpy(h->sys_letter + (size_t)id * 8, &letter, 8);
        if (h->sys_wait) h->sys_wait[id] = holder ? 2 : 0;
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
    ls_bound_lib(s);
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
    if (!store_grow(&h->st, (void **)&h->node_sys, &h->node_sys_cap, h->nn + 1, 4)
        || (s->p->nq > 1 && !store_grow(&h->st, (void **)&h->node_q, &h->node_q_cap, h->nn + 1, 2))
        || !store_grow(&h->st, (void **)&h->pos, &h->pos_cap, h->nn + 1, 4)) return ls_oom(s);
    if (s->p->max_memory && (int64_t)ltl_bytes(s) > s->p->max_memory) return ls_oom(s);
    n = (int32_t)h->nn++;
    h->node_of[k] = n;
    h->node_sys[n] = sys;
    if (h->node_q) h->node_q[n] = (uint16_t)q;
    h->pos[n] = BR_UNSEEN;
    return n;
}

/* The automaton moves of q on letter, parallel edges to one target merged (their
 * acceptance OR-ed), targets in the order of their first edge (product._moves). */
static size_t ls_moves(ls_t *s, int q, uint64_t letter) {
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

/* Expand node w into x_* and its enabled items into s->t_en: returns the number of
 * edges, or -1 (r set). intern = 0: recompute the edges of an expanded node (no node
 * is interned, no transition counted; an edge to a node never interned is left out). */
static int64_t ls_expand(ls_t *s, int32_t w, int intern) {
    br_ltl_t *h = s->h;
    uint32_t sys = h->node_sys[w];
    int q = ls_node_q(h, (size_t)w);
    uint32_t len;
    const uint8_t *v = store_vec(&h->st, sys, &len);
    memcpy(s->cur, v, len);
    ls_bound_lib(s);
    br_expand(&s->c, s->cur, len);
    if (s->c.oom) return ls_oom(s);
    if (s->c.err) { s->r->error_node = w; return ls_fail(s, BR_LTL_MODEL_ERROR, 0); }
    if (s->c.fallback) return ls_fail(s, BR_LTL_FALLBACK, 0);
    if (s->p->sym)  /* the representatives, in place (first: the prefetches need them) */
        for (size_t i = 0; i < s->c.n; i++)
            if (s->c.keep[i]) sym_canon(s->p->sym, s->c.buf + i * (size_t)BR_MAXVEC, s->sym_vals, s->sym_sorted);
    {   /* overlap the store's cache misses of the successors' lookups */
        size_t slots[BR_PREFETCH_MAX], np = 0;
        for (size_t i = 0; i < s->c.n && np < BR_PREFETCH_MAX; i++)
            if (s->c.keep[i]) {
                slots[np] = store_slot(&h->st, s->c.buf + i * (size_t)BR_MAXVEC, s->c.lens[i]);
                store_prefetch_slot(&h->st, slots[np++]);
            }
        for (size_t i = 0; i < np; i++) store_prefetch_vector(&h->st, slots[i]);
    }
    uint64_t *enabled = s->t_en;
    for (int k = 0; k < s->pw; k++) enabled[k] = 0;
    size_t nx = 0, kept = 0;
    s->x_nsys = 0;
    for (size_t i = 0; i < s->c.n; i++) kept += s->c.keep[i];
    size_t nsteps = kept ? kept : 1;
    /* the successors' system states first, in successor order (so the ids are those
     * of one pass), their letters and node entries prefetched for the edges below; the
     * first failure is met at its successor, after the steps before it */
    if (!LS_GROW(s, x_ids, s->c.n + 1, 1)) return ls_oom(s);
    for (size_t i = 0; i < s->c.n; i++) {
        if (!s->c.keep[i]) continue;
        int64_t id = ls_intern_sys(s, s->c.buf + i * (size_t)BR_MAXVEC, s->c.lens[i], 1);
        s->x_ids[i] = id;
        if (id < 0) break;  /* met below, at successor i */
        __builtin_prefetch(h->sys_letter + (size_t)id * (size_t)h->letter_bytes);
        __builtin_prefetch(h->node_of + (size_t)id * (size_t)s->p->nq);
    }
    for (size_t i = 0, done = 0; done < nsteps; i++) {
        uint32_t t;
        const uint64_t *procs = NULL;
        int32_t item = -1;
        if (kept) {
            if (!s->c.keep[i]) continue;
            int64_t id = s->x_ids[i];
            if (id == -1) return ls_oom(s);
            if (id == -2) { s->r->error_node = w; return ls_fail(s, BR_LTL_MODEL_ERROR, 0); }
            if (id == -3) return ls_fail(s, BR_LTL_FALLBACK, 0);
            t = (uint32_t)id;
            procs = s->c.procs + i * BR_PWORDS;
            if (s->act) {
                item = ls_action(s, i);
                if (item == -1) return -1;
                if (item >= 0) enabled[item >> 6] |= (uint64_t)1 << (item & 63);
                else item = -1;  /* tau: enables nothing, its engagement never counts */
            } else if (s->prc) {
                for (int k = 0; k < s->bw; k++) enabled[k] |= procs[k];
                for (int k = s->bw; k < BR_PWORDS; k++)
                    if (procs[k]) return ls_fail(s, BR_LTL_MORE_PROCESSES, 0);
            }
            if (s->ann) {
                if (ls_units(s, i, s->t_unit) < 0) return -1;
                for (int k = s->bw; k < s->pw; k++) enabled[k] |= s->t_unit[k];
            }
        } else {
            t = sys;  /* the stutter step: engages nothing */
        }
        done++;
        /* strong global: the index of (step, target) among the state's distinct system
         * steps (a step is its label and first process), and the step's first process */
        int32_t sysidx = 0, minpid = -1;
        if (s->closed) {
            if (procs)
                for (int k = 0; k < BR_PWORDS && minpid < 0; k++)
                    if (procs[k]) minpid = k * 64 + __builtin_ctzll(procs[k]);
            uint64_t key = kept ? ((uint64_t)(uint32_t)s->c.labels[i] << 32) | (uint32_t)minpid
                                : ~(uint64_t)0;
            while (sysidx < s->x_nsys && !(s->sp_key[sysidx] == key && s->sp_t[sysidx] == t)) sysidx++;
            if (sysidx == s->x_nsys) {
                if (!LS_GROW(s, sp_key, sysidx + 1, 1) || !LS_GROW(s, sp_t, sysidx + 1, 1)) return ls_oom(s);
                s->sp_key[sysidx] = key;
                s->sp_t[sysidx] = t;
                s->x_nsys++;
            }
        }
        size_t nm;
        int waits = kept && h->sys_wait && h->sys_wait[t] ? ls_waits(s, t) : 0;
        if (waits == -1) return ls_oom(s);
        if (waits == -3) return ls_fail(s, BR_LTL_FALLBACK, 0);
        if (waits) {  /* inside an atomic sequence: the automaton waits */
            if (!LS_GROW(s, mv_q, 1, 1) || !LS_GROW(s, mv_acc, 1, 1)) return ls_oom(s);
            s->mv_q[0] = q; s->mv_acc[0] = s->idle_acc[q]; nm = 1;
            goto edges;
        }
        uint64_t letter = ls_sys_letter(h, t);
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
            int64_t n2;
            if (intern) {
                n2 = ls_node(s, t, s->mv_q[j]);
                if (n2 < 0) return -1;
                __builtin_prefetch(h->pos + n2);  /* ls_push reads it */
            } else {
                n2 = h->node_of[(size_t)t * (size_t)s->p->nq + (size_t)s->mv_q[j]];
                if (n2 < 0) continue;
            }
            if (!LS_GROW(s, x_dst, nx + 1, 1) || !LS_GROW(s, x_acc, nx + 1, 1)
                || (!s->actions && !LS_GROW(s, x_eng, nx + 1, s->pw))
                || !LS_GROW(s, x_item, nx + 1, 1)) return ls_oom(s);
            s->x_dst[nx] = (int32_t)n2;
            s->x_acc[nx] = s->mv_acc[j];
            s->x_item[nx] = item;
            if (s->closed) {
                if (!LS_GROW(s, x_sys, nx + 1, 1) || !LS_GROW(s, x_minpid, nx + 1, 1)) return ls_oom(s);
                s->x_sys[nx] = sysidx;
                s->x_minpid[nx] = minpid;
            }
            if (!s->actions) {  /* the items the edge engages, as words */
                uint64_t *xe = s->x_eng + nx * (size_t)s->pw;
                for (int k = 0; k < s->pw; k++) xe[k] = 0;
                if (procs && s->prc) for (int k = 0; k < s->bw; k++) xe[k] = procs[k];
                if (s->act && item >= 0) xe[item >> 6] |= (uint64_t)1 << (item & 63);
                if (procs && s->ann) for (int k = s->bw; k < s->pw; k++) xe[k] = s->t_unit[k];
            }
            nx++;
        }
    }
    if (intern) s->transitions += (int64_t)nx;
    return (int64_t)nx;
}

/* OR the items an edge engages (procs words eng, or action item) into set. */
static inline void ls_engage(const ls_t *s, uint64_t *set, const uint64_t *eng, int32_t item) {
    if (s->actions) {
        if (item >= 0) set[item >> 6] |= (uint64_t)1 << (item & 63);
    } else if (eng) {
        for (int k = 0; k < s->pw; k++) set[k] |= eng[k];
    }
}

/* 1 when part i meets every requirement (onthefly._fair_part): the always items, the
 * weak items enabled in all its states and the strong items enabled in some state are
 * engaged. weak_only: the always and weak items only (onthefly._close's hopeless). */
static int ls_items_met(ls_t *s, size_t i, int weak_only) {
    ls_masks(s);
    const uint64_t *all = s->r_all + i * s->pw, *some = s->r_some + i * s->pw;
    const uint64_t *eng = s->r_eng + i * s->pw;
    for (int k = 0; k < s->pw; k++) {
        uint64_t need = s->m_always[k] | (s->m_weak[k] & all[k]);
        if (!weak_only) need |= s->m_strong[k] & some[k];
        if (need & ~eng[k]) return 0;
    }
    return 1;
}

static int ls_fair_part(ls_t *s, size_t i) {
    if (!s->r_cyc[i] || (s->r_acc[i] & s->p->all_sets) != s->p->all_sets) return 0;
    if (s->closed && s->r_miss[i] != 0) return 0;
    return !s->items || ls_items_met(s, i, 0);
}

/* The edge from the top DFS node to the live node at target_pos (onthefly._merge);
 * returns 1 when the merged part is reported. */
/* Mark system step j as taken inside by DFS frame f; returns 1 when it was not yet. */
static inline int ls_sat(ls_t *s, size_t f, int32_t j) {
    uint64_t *w = s->sat + s->sat_off[f] + (j >> 6);
    uint64_t bit = (uint64_t)1 << (j & 63);
    if (*w & bit) return 0;
    *w |= bit;
    return 1;
}

static int ls_merge(ls_t *s, int32_t target_pos, uint64_t acc, const uint64_t *eng_in,
                    int32_t item_in, int32_t sys_in) {
    int pw = s->pw;
    int64_t missing = 0;
    uint64_t *eng = s->t_eng, *every = s->t_every, *some = s->t_some;
    if (s->items) {
        for (int k = 0; k < pw; k++) { eng[k] = 0; every[k] = ~(uint64_t)0; some[k] = 0; }
        ls_engage(s, eng, eng_in, item_in);
    }
    size_t top = s->nr - 1;
    while (s->r_pos[top] > target_pos) {
        acc |= s->r_acc[top] | s->r_in_acc[top];
        if (s->closed) {
            /* the entering edge counts for its source's system step */
            missing += s->r_miss[top];
            missing -= ls_sat(s, (size_t)s->r_depth[top] - 1, s->r_in_sys[top]);
        }
        if (s->items) {
            for (int k = 0; k < pw; k++) {
                eng[k] |= s->r_eng[top * pw + k];
                every[k] &= s->r_all[top * pw + k];
                some[k] |= s->r_some[top * pw + k];
            }
            ls_engage(s, eng, s->actions ? NULL : s->r_in_eng + top * pw,
                      s->actions ? s->r_in_item[top] : -1);
        }
        s->nr--;
        top--;
    }
    s->r_acc[top] |= acc;
    s->r_cyc[top] = 1;
    if (s->closed) {
        missing -= ls_sat(s, s->ndfs - 1, sys_in);
        s->r_miss[top] += missing;
    }
    if (s->items)
        for (int k = 0; k < pw; k++) {
            s->r_eng[top * pw + k] |= eng[k];
            s->r_all[top * pw + k] &= every[k];
            s->r_some[top * pw + k] |= some[k];
        }
    if (ls_fair_part(s, top)) { s->found_part = (int)top; return 1; }
    return 0;
}

#define LS_LOG_MAX ((size_t)2 << 30)

/* Log the edges ls_expand just gave the node at live position pos (see ls_t); past
 * the budget the log stops until the live stack shrinks below pos. */
static void ls_log(ls_t *s, size_t pos, size_t nx) {
    if (!s->lg_on || s->lg_broken) return;
    int pw = s->pw;
    size_t need = s->lg_n + nx;
    size_t budget = s->p->log_bytes > 0 ? (size_t)s->p->log_bytes : LS_LOG_MAX;
    if (s->p->max_memory && budget > (size_t)s->p->max_memory / 4) budget = (size_t)s->p->max_memory / 4;
    size_t before = ls_log_bytes(s);
    if (!LS_GROW(s, lg_off, pos + 1, 1) || !LS_GROW(s, lg_nsys, pos + 1, 1)
        || !LS_GROW(s, lg_en, pos + 1, pw)) goto broken;
    s->lg_off[pos] = (int32_t)s->lg_n;  /* lg_off[pos] is kept even when broken below */
    if (need > INT32_MAX || before + nx * 24 > budget
        || (s->p->max_memory && ltl_bytes(s) + nx * 24 > (size_t)s->p->max_memory)
        || !LS_GROW(s, lg_dst, need, 1) || !LS_GROW(s, lg_acc, need, 1)
        || (s->actions && !LS_GROW(s, lg_item, need, 1))
        || (s->closed && !LS_GROW(s, lg_sys, need, 1))
        || (!s->actions && s->items && !LS_GROW(s, lg_eng, need, pw))
        || ls_log_bytes(s) > budget) goto broken;
    s->lg_nsys[pos] = s->x_nsys;
    memcpy(s->lg_en + pos * (size_t)pw, s->t_en, (size_t)pw * 8);
    memcpy(s->lg_dst + s->lg_n, s->x_dst, nx * 4);
    memcpy(s->lg_acc + s->lg_n, s->x_acc, nx * 8);
    if (s->actions) memcpy(s->lg_item + s->lg_n, s->x_item, nx * 4);
    if (s->closed) memcpy(s->lg_sys + s->lg_n, s->x_sys, nx * 4);
    if (!s->actions && s->items) memcpy(s->lg_eng + s->lg_n * pw, s->x_eng, nx * (size_t)pw * 8);
    s->lg_n = need;
    return;
broken:
    s->lg_broken = 1;
    s->lg_broken_at = pos;
    if (pos < s->lg_off_cap) s->lg_off[pos] = (int32_t)s->lg_n;
}

/* The live stack shrank to start (a component retired): drop its logged edges. */
static void ls_log_drop(ls_t *s, size_t start) {
    if (!s->lg_on || (s->lg_broken && start > s->lg_broken_at)) return;
    if (start < s->lg_off_cap) s->lg_n = (size_t)s->lg_off[start];
    s->lg_broken = 0;
}

/* Visit w, entered by an edge with in_acc / in_eng / in_item (onthefly._push); returns
 * 1 when a part is reported, 0, or -1 (r set). */
static int ls_push(ls_t *s, int32_t w, uint64_t in_acc, const uint64_t *in_eng, int32_t in_item,
                   int32_t in_sys, int32_t in_minpid) {
    br_ltl_t *h = s->h;
    int pw = s->pw;
    int32_t p = (int32_t)s->nlive;
    if (!LS_GROW(s, live, s->nlive + 1, 1) || !LS_GROW(s, dfs_node, s->ndfs + 1, 1)
        || !LS_GROW(s, dfs_base, s->ndfs + 1, 1)) return ls_oom(s);
    h->pos[w] = p;
    s->live[s->nlive++] = w;
    s->dfs_node[s->ndfs] = w;
    s->dfs_base[s->ndfs] = (int32_t)s->ne;
    s->ndfs++;
    int64_t nx = ls_expand(s, w, 1);
    if (nx < 0) return -1;
    ls_log(s, (size_t)p, (size_t)nx);
    size_t i = s->nr;
    if (!LS_GROW(s, r_pos, i + 1, 1) || !LS_GROW(s, r_depth, i + 1, 1) || !LS_GROW(s, r_acc, i + 1, 1)
        || !LS_GROW(s, r_in_acc, i + 1, 1) || !LS_GROW(s, r_cyc, i + 1, 1)) return ls_oom(s);
    if (s->items && (!LS_GROW(s, r_all, i + 1, pw) || !LS_GROW(s, r_some, i + 1, pw)
                     || !LS_GROW(s, r_eng, i + 1, pw))) return ls_oom(s);
    if (s->items && !s->actions && !LS_GROW(s, r_in_eng, i + 1, pw)) return ls_oom(s);
    if (s->actions && !LS_GROW(s, r_in_item, i + 1, 1)) return ls_oom(s);
    if (s->closed) {
        size_t words = ((size_t)s->x_nsys + 63) / 64;
        if (!LS_GROW(s, r_miss, i + 1, 1) || !LS_GROW(s, r_in_sys, i + 1, 1)
            || !LS_GROW(s, sat_off, s->ndfs, 1) || !LS_GROW(s, sat, s->nsat + words, 1)) return ls_oom(s);
        s->r_miss[i] = s->x_nsys;
        s->r_in_sys[i] = in_sys;
        s->sat_off[s->ndfs - 1] = (int32_t)s->nsat;
        memset(s->sat + s->nsat, 0, words * 8);
        s->nsat += words;
    }
    s->r_pos[i] = p;
    s->r_depth[i] = (int32_t)s->ndfs - 1;
    s->r_acc[i] = 0;
    s->r_cyc[i] = 0;
    s->r_in_acc[i] = in_acc;
    if (s->items) {
        for (int k = 0; k < pw; k++) {
            s->r_all[i * pw + k] = s->r_some[i * pw + k] = s->t_en[k];
            s->r_eng[i * pw + k] = 0;
        }
        if (s->actions) s->r_in_item[i] = in_item;
        else for (int k = 0; k < pw; k++) s->r_in_eng[i * pw + k] = in_eng ? in_eng[k] : 0;
    }
    s->nr++;
    size_t n = (size_t)nx;
    size_t shift = (s->items && n > 1) ? h->node_sys[w] % n : 0;
    if (s->closed && n > 1) {
        /* round robin (onthefly.edge_order): the steps of the process after the one
         * that moved last first, a stable sort by (first process - last - 1) mod 2^30 */
        if (!LS_GROW(s, x_key, n, 1) || !LS_GROW(s, x_order, n, 1)) return ls_oom(s);
        for (size_t e = 0; e < n; e++) {
            int64_t m = s->x_minpid[e];
            s->x_key[e] = m < 0 ? BR_ROUND
                : (((m - in_minpid - 1) % BR_ROUND) + BR_ROUND) % BR_ROUND;
            size_t j = e;  /* insertion sort: stable */
            while (j > 0 && s->x_key[s->x_order[j - 1]] > s->x_key[e]) {
                s->x_order[j] = s->x_order[j - 1];
                j--;
            }
            s->x_order[j] = (int32_t)e;
        }
    }
    for (size_t j = n; j-- > 0;) {
        size_t e = j + shift;
        if (e >= n) e -= n;
        if (s->closed && n > 1) e = (size_t)s->x_order[j];
        int32_t t = s->x_dst[e];
        int32_t pt = h->pos[t];
        if (pt == BR_UNSEEN) {
            if (!LS_GROW(s, e_dst, s->ne + 1, 1) || !LS_GROW(s, e_acc, s->ne + 1, 1)
                || (s->items && !s->actions && !LS_GROW(s, e_eng, s->ne + 1, pw))
                || (s->actions && !LS_GROW(s, e_item, s->ne + 1, 1))) return ls_oom(s);
            s->e_dst[s->ne] = t;
            s->e_acc[s->ne] = s->x_acc[e];
            if (s->closed) {
                if (!LS_GROW(s, e_sys, s->ne + 1, 1) || !LS_GROW(s, e_minpid, s->ne + 1, 1))
                    return ls_oom(s);
                s->e_sys[s->ne] = s->x_sys[e];
                s->e_minpid[s->ne] = s->x_minpid[e];
            }
            if (s->actions) s->e_item[s->ne] = s->x_item[e];
            else if (s->items) memcpy(s->e_eng + s->ne * pw, s->x_eng + e * pw, (size_t)pw * 8);
            s->ne++;
        } else if (pt >= 0) {
            if (ls_merge(s, pt, s->x_acc[e], s->items && !s->actions ? s->x_eng + e * pw : NULL,
                         s->x_item[e], s->closed ? s->x_sys[e] : -1)) return 1;
        }
    }
    return 0;
}

/* ---- paper 000 Fig. 5 on one complete component (components.search_component) ----
 * Local nodes 0..m-1 are live[start..start+m-1]; g_off/g_dst/... their internal edges
 * (recomputed), g_en their enabled items. */

static int ls_g_build(ls_t *s, int32_t start, size_t m) {
    br_ltl_t *h = s->h;
    int pw = s->pw;
    if (!LS_GROW(s, g_off, m + 1, 1) || !LS_GROW(s, g_en, m, pw) || !LS_GROW(s, g_nsys, m, 1))
        return ls_oom(s);
    size_t ng = 0;
    s->g_off[0] = 0;
    int logged = s->lg_on && !s->lg_broken;  /* every live node's edges are in the log */
    for (size_t i = 0; i < m; i++) {
        const int32_t *x_dst, *x_item = NULL, *x_sys = NULL;
        const uint64_t *x_acc, *x_eng = NULL;
        int64_t nx;
        size_t at = (size_t)start + i;
        if (logged) {
            size_t a = (size_t)s->lg_off[at], b = at + 1 < s->nlive ? (size_t)s->lg_off[at + 1] : s->lg_n;
            nx = (int64_t)(b - a);
            x_dst = s->lg_dst + a; x_acc = s->lg_acc + a;
            if (s->actions) x_item = s->lg_item + a;
            if (s->closed) x_sys = s->lg_sys + a;
            if (!s->actions && s->items) x_eng = s->lg_eng + a * pw;
            memcpy(s->g_en + i * pw, s->lg_en + at * pw, (size_t)pw * 8);
            s->g_nsys[i] = s->lg_nsys[at];
        } else {
            nx = ls_expand(s, s->live[at], 0);
            if (nx < 0) {  /* the node was expanded before without trouble */
                if (s->r->status == BR_LTL_MODEL_ERROR || s->r->status == BR_LTL_FALLBACK)
                    return ls_fail(s, BR_LTL_UNDECIDED, 0);
                return -1;
            }
            x_dst = s->x_dst; x_acc = s->x_acc; x_item = s->x_item; x_sys = s->x_sys;
            x_eng = s->x_eng;
            memcpy(s->g_en + i * pw, s->t_en, (size_t)pw * 8);
            s->g_nsys[i] = s->x_nsys;
        }
        for (int64_t e = 0; e < nx; e++) {
            int32_t pt = h->pos[x_dst[e]];
            if (pt < start || (size_t)(pt - start) >= m) continue;
            if (!LS_GROW(s, g_dst, ng + 1, 1) || !LS_GROW(s, g_acc, ng + 1, 1)
                || !LS_GROW(s, g_item, ng + 1, 1)
                || (!s->actions && !LS_GROW(s, g_eng, ng + 1, pw))) return ls_oom(s);
            s->g_dst[ng] = pt - start;
            s->g_acc[ng] = x_acc[e];
            s->g_item[ng] = s->actions ? x_item[e] : -1;
            if (s->closed) {
                if (!LS_GROW(s, g_sys, ng + 1, 1)) return ls_oom(s);
                s->g_sys[ng] = x_sys[e];
            }
            if (!s->actions) {
                uint64_t *ge = s->g_eng + ng * pw;
                if (x_eng) memcpy(ge, x_eng + e * pw, (size_t)pw * 8);
                else for (int k = 0; k < pw; k++) ge[k] = 0;
            }
            ng++;
        }
        s->g_off[i + 1] = (int32_t)ng;
    }
    return 0;
}

/* Split the nodes g_cur[0..n) (marked stamp in g_mark) into SCCs (Tarjan, iterative):
 * g_parts holds their nodes, g_pend[k] the end of part k; returns the number of parts. */
static int64_t ls_g_split(ls_t *s, size_t n, int32_t stamp) {
    size_t nparts = 0, np = 0, sp = 0, cp = 0;
    int32_t counter = 0;
    for (size_t r = 0; r < n; r++) s->t_index[s->g_cur[r]] = -1;
    for (size_t r = 0; r < n; r++) {
        int32_t root = s->g_cur[r];
        if (s->t_index[root] >= 0) continue;
        s->t_index[root] = s->t_low[root] = counter++;
        s->t_stack[sp++] = root;
        s->t_call[cp * 2] = root; s->t_call[cp * 2 + 1] = s->g_off[root]; cp++;
        while (cp) {
            int32_t v = s->t_call[(cp - 1) * 2];
            int32_t e = s->t_call[(cp - 1) * 2 + 1];
            int pushed = 0;
            for (; e < s->g_off[v + 1]; e++) {
                int32_t w = s->g_dst[e];
                if (s->g_mark[w] != stamp) continue;
                if (s->t_index[w] < 0) {
                    s->t_call[(cp - 1) * 2 + 1] = e + 1;
                    s->t_index[w] = s->t_low[w] = counter++;
                    s->t_stack[sp++] = w;
                    s->t_call[cp * 2] = w; s->t_call[cp * 2 + 1] = s->g_off[w]; cp++;
                    pushed = 1;
                    break;
                }
                if (s->t_index[w] >= 0 && s->t_index[w] < s->t_low[v] && s->t_low[w] != INT32_MAX)
                    s->t_low[v] = s->t_index[w];
            }
            if (pushed) continue;
            cp--;
            if (cp) {
                int32_t u = s->t_call[(cp - 1) * 2];
                if (s->t_low[v] < s->t_low[u]) s->t_low[u] = s->t_low[v];
            }
            if (s->t_low[v] == s->t_index[v]) {
                int32_t w;
                do {
                    w = s->t_stack[--sp];
                    s->t_low[w] = INT32_MAX;  /* off the stack */
                    s->g_parts[np++] = w;
                } while (w != v);
                s->g_pend[nparts++] = (int32_t)np;
            }
        }
    }
    return (int64_t)nparts;
}

static int ls_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Strong global (conditions.StrongGlobalFairness.prune): 1 when some system step
 * (s, j) of a state s of the part g_parts[pa..pb) (marked stamp) is taken by no
 * internal edge, 0 when every one is, -1 (r set). */
static int ls_closed_fails(ls_t *s, size_t pa, size_t pb, int32_t stamp) {
    br_ltl_t *h = s->h;
    int32_t start = s->g_start;
    size_t nk = 0;
    /* first node by node (no sort): a node whose internal edges take each of its steps
     * leaves nothing to its system state's other nodes; with one automaton state a
     * system state has one node, so a node that does not decides */
    int all_nodes = 1;
    for (size_t i = pa; i < pb && all_nodes; i++) {
        int32_t v = s->g_parts[i];
        size_t words = ((size_t)s->g_nsys[v] + 63) / 64;
        if (!LS_GROW(s, g_bits, words, 1)) return ls_oom(s);
        for (size_t k = 0; k < words; k++) s->g_bits[k] = 0;
        size_t taken = 0;
        for (int32_t e = s->g_off[v]; e < s->g_off[v + 1]; e++) {
            if (s->g_mark[s->g_dst[e]] != stamp) continue;
            int32_t j = s->g_sys[e];
            uint64_t bit = (uint64_t)1 << (j & 63);
            if (!(s->g_bits[j >> 6] & bit)) { s->g_bits[j >> 6] |= bit; taken++; }
        }
        if (taken != (size_t)s->g_nsys[v]) all_nodes = 0;
    }
    if (all_nodes) return 0;
    if (s->p->nq == 1) return 1;
    for (size_t i = pa; i < pb; i++) {
        int32_t v = s->g_parts[i];
        uint64_t sys = h->node_sys[s->live[(size_t)start + (size_t)v]];
        for (int32_t e = s->g_off[v]; e < s->g_off[v + 1]; e++) {
            if (s->g_mark[s->g_dst[e]] != stamp) continue;
            if (!LS_GROW(s, g_keys, nk + 1, 1)) return ls_oom(s);
            s->g_keys[nk++] = (sys << 32) | (uint32_t)s->g_sys[e];
        }
    }
    qsort(s->g_keys, nk, 8, ls_cmp_u64);
    for (size_t i = pa; i < pb; i++) {
        int32_t v = s->g_parts[i];
        uint64_t sys = h->node_sys[s->live[(size_t)start + (size_t)v]];
        for (int32_t j = 0; j < s->g_nsys[v]; j++) {
            uint64_t key = (sys << 32) | (uint32_t)j;
            if (!bsearch(&key, s->g_keys, nk, 8, ls_cmp_u64)) return 1;
        }
    }
    return 0;
}

/* Judge the complete component live[start..start+m): 1 with fig5_nodes set when it
 * has a fair accepting subgraph, 0 when not, -1 (r set). */
static int ls_fig5(ls_t *s, int32_t start, size_t m) {
    int pw = s->pw;
    s->g_start = start;
    if (ls_g_build(s, start, m) < 0) return -1;
    if (!LS_GROW(s, g_mark, m, 1) || !LS_GROW(s, g_cur, m, 1) || !LS_GROW(s, g_parts, m, 1)
        || !LS_GROW(s, g_pend, m, 1) || !LS_GROW(s, t_index, m, 1) || !LS_GROW(s, t_low, m, 1)
        || !LS_GROW(s, t_stack, m, 1) || !LS_GROW(s, t_call, m, 2)
        || !LS_GROW(s, g_pool, m, 1) || !LS_GROW(s, g_work, 3, 1)) return ls_oom(s);
    for (size_t i = 0; i < m; i++) { s->g_pool[i] = (int32_t)i; s->g_mark[i] = -1; }
    size_t pool = m, nwork = 1;
    s->g_work[0] = 0; s->g_work[1] = (int32_t)m; s->g_work[2] = 1;
    int32_t stamp = 0;
    uint64_t *eng = s->t_eng, *always = s->t_every;
    while (nwork) {
        nwork--;
        size_t a = (size_t)s->g_work[nwork * 3], b = (size_t)s->g_work[nwork * 3 + 1];
        int is_scc = s->g_work[nwork * 3 + 2];
        size_t n = b - a;
        memcpy(s->g_cur, s->g_pool + a, n * 4);
        pool = a;
        stamp++;
        for (size_t i = 0; i < n; i++) s->g_mark[s->g_cur[i]] = stamp;
        int64_t nparts;
        if (is_scc) {
            memcpy(s->g_parts, s->g_cur, n * 4);
            s->g_pend[0] = (int32_t)n;
            nparts = 1;
        } else {
            nparts = ls_g_split(s, n, stamp);
        }
        for (int64_t k = 0; k < nparts; k++) {
            size_t pa = k ? (size_t)s->g_pend[k - 1] : 0, pb = (size_t)s->g_pend[k];
            stamp++;
            for (size_t i = pa; i < pb; i++) s->g_mark[s->g_parts[i]] = stamp;
            uint64_t acc = 0;
            int internal = 0;
            for (int q = 0; q < pw; q++) { eng[q] = 0; always[q] = ~(uint64_t)0; }
            for (size_t i = pa; i < pb; i++) {
                int32_t v = s->g_parts[i];
                for (int32_t e = s->g_off[v]; e < s->g_off[v + 1]; e++) {
                    if (s->g_mark[s->g_dst[e]] != stamp) continue;
                    internal = 1;
                    acc |= s->g_acc[e];
                    ls_engage(s, eng, s->actions ? NULL : s->g_eng + (size_t)e * pw, s->g_item[e]);
                }
                for (int q = 0; q < pw; q++) always[q] &= s->g_en[(size_t)v * pw + q];
            }
            if (!internal) continue;  /* a single node without a self-loop */
            s->r->subgraphs++;
            if ((acc & s->p->all_sets) != s->p->all_sets) continue;
            /* the prune: strong items (Figs. 8; 002 bad(scg)): the states enabling an
             * item never engaged; weak items (Fig. 7; 002 Lemma 3): all or nothing */
            size_t kept = 0;
            int weak_fails = 0;
            if (s->items) {
                ls_masks(s);
                for (int q = 0; q < pw; q++)
                    if ((s->m_always[q] | (s->m_weak[q] & always[q])) & ~eng[q]) weak_fails = 1;
            }
            if (s->closed && !weak_fails) {  /* Fig. 9, all or nothing: every system step of every state taken */
                int r = ls_closed_fails(s, pa, pb, stamp);
                if (r < 0) return -1;
                weak_fails = r;
            }
            for (size_t i = pa; i < pb; i++) {
                int32_t v = s->g_parts[i];
                int bad = weak_fails;
                if (!bad && s->items)
                    for (int q = 0; q < pw; q++)
                        if (s->m_strong[q] & s->g_en[(size_t)v * pw + q] & ~eng[q]) { bad = 1; break; }
                if (!bad) s->g_parts[pa + kept++] = v;  /* compacts in place */
            }
            size_t removed = (pb - pa) - kept;
            if (!removed) {
                if (!LS_GROW(s, fig5_nodes, pb - pa, 1)) return ls_oom(s);
                memcpy(s->fig5_nodes, s->g_parts + pa, (pb - pa) * 4);
                s->fig5_len = pb - pa;
                return 1;
            }
            s->r->pruned += (int64_t)removed;
            if (kept) {
                if (!LS_GROW(s, g_pool, pool + kept, 1) || !LS_GROW(s, g_work, (nwork + 1) * 3, 1))
                    return ls_oom(s);
                memcpy(s->g_pool + pool, s->g_parts + pa, kept * 4);
                s->g_work[nwork * 3] = (int32_t)pool;
                s->g_work[nwork * 3 + 1] = (int32_t)(pool + kept);
                s->g_work[nwork * 3 + 2] = 0;
                pool += kept;
                nwork++;
            }
        }
    }
    return 0;
}

/* The report of a Fig. 5 subgraph of the component live[start..start+m), whose first
 * node was the DFS frame just popped: the path is the DFS path to it and a shortest
 * path inside the component to the subgraph; the part starts where the path ends. */
static int ls_fig5_report(ls_t *s, int32_t start, size_t m) {
    br_ltl_t *h = s->h;
    /* BFS from local 0 (parents in t_index, queue in t_stack), goal: a fig5 node */
    int32_t stamp = -7;
    for (size_t i = 0; i < m; i++) { s->t_index[i] = -1; s->g_mark[i] = 0; }
    for (size_t i = 0; i < s->fig5_len; i++) s->g_mark[s->fig5_nodes[i]] = stamp;
    size_t head = 0, tail = 0;
    int32_t goal = -1;
    s->t_stack[tail++] = 0;
    s->t_index[0] = 0;
    while (head < tail) {
        int32_t v = s->t_stack[head++];
        if (s->g_mark[v] == stamp) { goal = v; break; }
        for (int32_t e = s->g_off[v]; e < s->g_off[v + 1]; e++) {
            int32_t w = s->g_dst[e];
            if (s->t_index[w] >= 0) continue;
            s->t_index[w] = v;
            s->t_stack[tail++] = w;
        }
    }
    if (goal < 0) return ls_fail(s, BR_LTL_UNDECIDED, 0);
    size_t steps = 0;
    for (int32_t v = goal; v != 0; v = s->t_index[v]) steps++;
    size_t depth = s->ndfs;  /* dfs_node[0..ndfs] is the DFS path to local 0 */
    size_t len = depth + 1 + steps;
    h->path = malloc(len * 4);
    h->part = malloc((s->fig5_len + 1) * 4);
    if (!h->path || !h->part) return ls_oom(s);
    memcpy(h->path, s->dfs_node, depth * 4);
    h->path[depth] = s->live[start];
    size_t at = len;
    for (int32_t v = goal; v != 0; v = s->t_index[v]) h->path[--at] = s->live[(size_t)start + (size_t)v];
    h->part[0] = s->live[(size_t)start + (size_t)goal];
    size_t k = 1;
    for (size_t i = 0; i < s->fig5_len; i++)
        if (s->fig5_nodes[i] != goal) h->part[k++] = s->live[(size_t)start + (size_t)s->fig5_nodes[i]];
    s->r->part_len = (int64_t)s->fig5_len;
    s->r->path_len = (int64_t)len;
    s->r->dfs_len = (int64_t)(depth + 1);
    s->r->status = BR_LTL_FOUND;
    s->r->early_report = 0;
    return 1;
}

/* The top part is a complete SCC: retire it and judge it (onthefly._close). Returns 0,
 * 1 when Fig. 5 found a fair accepting subgraph of it (reported), or -1 (r set). */
static int ls_close(ls_t *s) {
    br_ltl_t *h = s->h;
    size_t top = s->nr - 1;
    int32_t start = s->r_pos[top];
    size_t m = s->nlive - (size_t)start;
    int cyclic = s->r_cyc[top];
    int accepting = (s->r_acc[top] & s->p->all_sets) == s->p->all_sets;
    int hopeless = 0;
    if (s->items)  /* unmet always or weak items fail every subgraph (Figs. 7, 11) */
        hopeless = !ls_items_met(s, top, 1);
    /* Strong global without items, one automaton state: a node is its system state, and
     * r_miss counts exactly the (node, system step) pairs that no internal edge takes
     * (each edge is credited when it becomes internal: at its merge, or when the part
     * it enters merges below it; an edge into a retired component never is). A
     * component that leaves one untaken is not closed, and Fig. 5's first round prunes
     * it whole (Fig. 9, all or nothing; ls_closed_fails decides per node with one
     * automaton state): its statistics are counted here without the local graph, which
     * took 28 bytes per internal edge (19 GB for the orienting rings N = 4) and, past
     * the edge log's budget, an expansion of every node again. */
    int unclosed = s->closed && !s->items && s->p->nq == 1 && s->r_miss[top] > 0;
    s->nr--;
    s->r->sccs++;
    int got = 0;
    if (cyclic) {
        s->r->nontrivial_sccs++;
        if (accepting && !hopeless) {
            if (!s->strong && !s->closed && !s->ann)
                got = ls_fail(s, BR_LTL_UNDECIDED, 0);  /* never: see the top */
            else if (unclosed) {  /* ls_fig5's statistics for it */
                s->r->subgraphs++;
                s->r->pruned += (int64_t)m;
            } else {
                got = ls_fig5(s, start, m);
                if (got == 1) got = ls_fig5_report(s, start, m);
            }
        }
    }
    for (size_t j = (size_t)start; j < s->nlive; j++) h->pos[s->live[j]] = BR_DEAD;
    s->nlive = (size_t)start;
    ls_log_drop(s, (size_t)start);
    return got;
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

/* The DFS loop (onthefly._loop): 1 a part to report, 2 reported (Fig. 5), 0 done, -1
 * stopped (r set). */
static int ls_loop(ls_t *s) {
    br_ltl_t *h = s->h;
    while (s->ndfs) {
        if (ls_tick(s) < 0) return -1;
        if ((int32_t)s->ne > s->dfs_base[s->ndfs - 1]) {
            s->ne--;
            int32_t w = s->e_dst[s->ne];
            int32_t pw = h->pos[w];
            int got = 0;
            const uint64_t *eng = s->items && !s->actions ? s->e_eng + s->ne * s->pw : NULL;
            int32_t item = s->actions ? s->e_item[s->ne] : -1;
            int32_t sys = s->closed ? s->e_sys[s->ne] : -1;
            if (pw == BR_UNSEEN)
                got = ls_push(s, w, s->e_acc[s->ne], eng, item, sys,
                              s->closed ? s->e_minpid[s->ne] : -1);
            else if (pw >= 0) got = ls_merge(s, pw, s->e_acc[s->ne], eng, item, sys);
            if (got) return got;
        } else {
            int32_t v = s->dfs_node[--s->ndfs];
            if (s->closed) s->nsat = (size_t)s->sat_off[s->ndfs];
            if (s->r_pos[s->nr - 1] == h->pos[v]) {
                int got = ls_close(s);
                if (got) return got < 0 ? -1 : 2;
            }
        }
    }
    return 0;
}

static void ls_free(ls_t *s) {
    ctx_free(&s->c);
    ctx_free(&s->c2);
    free(s->cur2); free(s->idle_acc);
    free(s->cur); free(s->live); free(s->dfs_node); free(s->dfs_base);
    free(s->e_dst); free(s->e_acc); free(s->e_eng); free(s->e_item);
    free(s->r_pos); free(s->r_depth); free(s->r_acc); free(s->r_in_acc); free(s->r_cyc);
    free(s->r_in_eng); free(s->r_in_item); free(s->r_all); free(s->r_some); free(s->r_eng);
    free(s->x_dst); free(s->x_acc); free(s->x_eng); free(s->x_item); free(s->mv_q); free(s->mv_acc);
    free(s->t_en); free(s->t_eng); free(s->t_every); free(s->t_some); free(s->t_unit);
    free(s->m_weak); free(s->m_strong); free(s->m_always); free(s->umark);
    free(s->it_key); free(s->it_bit);
    free(s->g_off); free(s->g_dst); free(s->g_acc); free(s->g_eng); free(s->g_item); free(s->g_en);
    free(s->g_mark); free(s->g_pool); free(s->g_work); free(s->g_cur); free(s->g_parts);
    free(s->g_pend); free(s->t_index); free(s->t_low); free(s->t_stack); free(s->t_call);
    free(s->fig5_nodes);
    free(s->x_sys); free(s->x_ids); free(s->x_minpid); free(s->x_key); free(s->x_order); free(s->sp_key);
    free(s->sp_t); free(s->e_sys); free(s->e_minpid); free(s->r_miss); free(s->r_in_sys);
    free(s->sat_off); free(s->sat); free(s->g_sys); free(s->g_nsys); free(s->g_keys); free(s->g_bits);
    free(s->sym_buf); free(s->sym_vals); free(s->sym_sorted);
    free(s->lg_off); free(s->lg_en); free(s->lg_nsys); free(s->lg_dst); free(s->lg_acc);
    free(s->lg_item); free(s->lg_sys); free(s->lg_eng);
}

/* Copy the report (the part's nodes, the DFS path to its first node) into the handle. */
static int ls_report(ls_t *s) {
    br_ltl_t *h = s->h;
    size_t i = (size_t)s->found_part;
    size_t from = (size_t)s->r_pos[i], depth = (size_t)s->r_depth[i];
    s->r->part_len = (int64_t)(s->nlive - from);
    s->r->path_len = s->r->dfs_len = (int64_t)(depth + 1);
    h->part = malloc((s->nlive - from + 1) * 4);
    h->path = malloc((depth + 1) * 4);
    if (!h->part || !h->path) return ls_oom(s);
    memcpy(h->part, s->live + from, (s->nlive - from) * 4);
    memcpy(h->path, s->dfs_node, (depth + 1) * 4);
    s->r->status = BR_LTL_FOUND;
    s->r->early_report = 1;
    return 1;
}

/* The buffers every expansion needs (ls_expand, ls_waits): the current vectors, the
 * marks of each automaton state's idle edges, the symmetry scratch and the successor
 * buffers; 0 out of memory (ls_free frees what was allocated). */
static int ls_alloc_expand(ls_t *s) {
    const br_ltl_params_t *p = s->p;
    s->cur = malloc(BR_MAXVEC);
    s->cur2 = malloc(BR_MAXVEC);
    s->idle_acc = calloc((size_t)p->nq + 1, sizeof *s->idle_acc);
    if (!s->cur || !s->cur2 || !s->idle_acc || !succ_reserve(&s->c) || !succ_reserve(&s->c2))
        return 0;
    for (int32_t q = 0; q < p->nq; q++) {
        uint64_t m = p->q_edges[q] < p->q_edges[q + 1] ? ~(uint64_t)0 : 0;
        for (int32_t e = p->q_edges[q]; e < p->q_edges[q + 1]; e++) m &= p->e_acc[e];
        s->idle_acc[q] = m;
    }
    if (p->sym) {
        s->sym_buf = malloc(BR_MAXVEC);
        s->sym_vals = malloc(sizeof *s->sym_vals * (size_t)(p->sym->max_cells > 0 ? p->sym->max_cells : 1));
        s->sym_sorted = malloc(sizeof *s->sym_sorted * (size_t)(p->sym->scratch_n > 0 ? p->sym->scratch_n : 1));
        if (!s->sym_buf || !s->sym_vals || !s->sym_sorted) return 0;
    }
    return 1;
}

__attribute__((visibility("default")))
void *bridge_ltl_search(const br_ltl_params_t *p, const uint8_t *init, uint32_t init_len,
                        br_ltl_result_t *r) {
    uint8_t *seen = r->units_seen;
    memset(r, 0, sizeof *r);
    r->units_seen = seen;
    r->error_node = -1;
    ls_t s;
    memset(&s, 0, sizeof s);
    s.p = p; s.r = r;
    /* CSP# event names computed at run time are rendered and interned (br_evname,
     * br_chev) when actions, event atoms or annotated names need them */
    s.c.names = p->csp && (p->fairness == BR_LTL_WEAK || p->fairness == BR_LTL_STRONG_LOCAL
                           || p->event_atoms || p->name_units);
    s.act = p->fairness == BR_LTL_WEAK || p->fairness == BR_LTL_STRONG_LOCAL;
    s.prc = p->fairness == BR_LTL_PROCESS_WEAK || p->fairness == BR_LTL_PROCESS_STRONG;
    s.ann = p->n_units > 0;
    s.items = s.act || s.prc || s.ann;  /* strong global has no items (conditions.py) */
    s.actions = s.act && !s.ann;
    s.strong = p->fairness == BR_LTL_STRONG_LOCAL || p->fairness == BR_LTL_PROCESS_STRONG;
    s.closed = p->fairness == BR_LTL_STRONG_GLOBAL;
    /* ls_close sends complete components to Fig. 5 */
    s.lg_on = (s.strong || s.closed || s.ann) && p->log_bytes >= 0;
    if (s.act) s.bw = p->iwords < 1 ? 1 : p->iwords;
    else if (s.prc) s.bw = p->pwords < 1 ? 1 : p->pwords > BR_PWORDS ? BR_PWORDS : p->pwords;
    s.pw = s.bw + (s.ann ? (p->n_units + 63) / 64 : 0);
    s.mdirty = 1;
    s.start = br_now();
    s.next_check = 1024;
    s.h = calloc(1, sizeof *s.h);
    int expand_ok = ls_alloc_expand(&s);
    size_t words = (size_t)(s.pw > 0 ? s.pw : 1) * 8;
    s.t_en = malloc(words); s.t_eng = malloc(words);
    s.t_every = malloc(words); s.t_some = malloc(words); s.t_unit = malloc(words);
    s.m_weak = malloc(words); s.m_strong = malloc(words); s.m_always = malloc(words);
    s.umark = calloc((size_t)p->n_units + 1, sizeof *s.umark);
    if (s.umark) for (int32_t u = 0; u < p->n_units; u++) s.umark[u] = p->unit_mark[u];
    if (!s.h || !expand_ok || !s.t_en || !s.t_eng || !s.t_every
        || !s.t_some || !s.t_unit || !s.m_weak || !s.m_strong || !s.m_always || !s.umark
        || !store_init(&s.h->st, BR_FIXED, BR_HIDDEN, (size_t)p->max_memory, 0, 1,
                       p->flat_bytes < 0 ? 0 : p->flat_bytes ? (size_t)p->flat_bytes
                       : br_flat_default(p->max_memory))) {
        r->status = BR_LTL_LIMIT; r->limit_kind = BR_LIMIT_MEMORY;
        goto out;
    }
    s.c.lib = s.c2.lib = &s.h->lib;
    s.h->letter_bytes = p->n_ap <= 8 ? 1 : p->n_ap <= 16 ? 2 : p->n_ap <= 32 ? 4 : 8;
    int64_t s0 = ls_intern_sys(&s, init, init_len, 0);
    if (s0 == -1) { ls_oom(&s); goto out; }
    if (s0 == -2) { ls_fail(&s, BR_LTL_MODEL_ERROR, 0); goto out; }
    if (s0 == -3) { ls_fail(&s, BR_LTL_FALLBACK, 0); goto out; }
    /* the initial nodes: the automaton's moves from q0 on the initial letter, each
     * edge separately (not merged), duplicates once (product.Product.__init__) */
    uint64_t letter = ls_sys_letter(s.h, (size_t)s0) | p->init_letter;
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
        got = ls_push(&s, roots[j], 0, NULL, -1, -1, -1);
        if (got == 0) got = ls_loop(&s);
    }
    free(roots);
    if (got == 1) ls_report(&s);
    else if (got == 0) r->status = BR_LTL_DONE;
    /* a model error: the DFS path to the failing node is the trace */
    if (r->status == BR_LTL_MODEL_ERROR && s.ndfs) {
        s.h->path = malloc(s.ndfs * 4);
        if (s.h->path) {
            memcpy(s.h->path, s.dfs_node, s.ndfs * 4);
            r->path_len = r->dfs_len = (int64_t)s.ndfs;
        }
    }
out:
    if (s.h) {
        r->states = (int64_t)s.h->nn;
        r->sys_states = (int64_t)s.h->st.n;
        r->memory_bytes = (int64_t)ltl_bytes(&s);
    }
    r->transitions = s.transitions;
    r->items = r->status == BR_LTL_MORE_ITEMS ? r->items : (int64_t)s.nitems;
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
    *q = ls_node_q(h, (size_t)n);
    return h->node_sys[n];
}

__attribute__((visibility("default")))
void bridge_ltl_free(void *hp) {
    br_ltl_t *h = hp;
    if (!h) return;
    store_free(&h->st);
    br_lib_free(&h->lib);
    free(h->sys_letter); free(h->sys_wait); free(h->node_of); free(h->node_sys); free(h->node_q); free(h->pos);
    free(h->part); free(h->path);
    free(h);
}

/* ---- the check of a reported strong globally fair part (issue 13) ----
 *
 * The C twin of fairness/terminal.py's check_terminal_part, for a part too large to
 * replay as a lasso on the Python semantics: the part is the set of nodes reached from
 * nodes[0] through the given nodes (each node's edges recomputed once, ls_expand
 * without interning); it is
 *   closed: every distinct system step (step, target) of every system state of the
 *     part is taken by an edge between two part nodes (paper 000 Fig. 9, per state;
 *     the steps of one system state are numbered alike at each of its nodes, x_sys);
 *   node_closed: every node takes each of its system steps on an internal edge (what
 *     lifting a part of a symmetry quotient needs, api._lift_quotient_part);
 *   connected: every reached node reaches nodes[0] back along internal edges;
 *   accepting: its internal edges meet every acceptance set.
 * Closed, connected and accepting make it a fair accepting part (001 Lemma 2). */

typedef struct {
    int32_t status;         /* 0 checked; BR_LTL_LIMIT (limit_kind), BR_LTL_MODEL_ERROR,
                             * BR_LTL_FALLBACK: not checked */
    int32_t limit_kind;
    int64_t nodes;          /* the part's nodes reached from nodes[0] */
    int64_t sys_states;     /* its distinct system states */
    int64_t edges;          /* its internal edges */
    uint64_t acceptance;    /* the union of their acceptance marks */
    int32_t closed, node_closed, connected, accepting;
    double seconds;
} br_part_check_t;

/* The check itself (see above) on a prepared search state s; 0, or -1 (s->r set). */
static int pc_run(ls_t *s, const int32_t *nodes, int64_t n, double timeout, br_part_check_t *out) {
    br_ltl_t *h = s->h;
    size_t nn = h->nn;
    int rc = -1;
    int32_t *at = malloc((nn ? nn : 1) * 4);       /* node -> position; -1 outside; -2 unseen member */
    int32_t *order = NULL, *src = NULL, *dst = NULL, *first = NULL, *preds = NULL, *stack = NULL;
    uint32_t *nsys = NULL;                         /* per position: its system steps */
    uint64_t *bits = NULL, *keys = NULL;           /* per position: the steps taken inside */
    size_t *boff = NULL;
    size_t order_cap = 0, src_cap = 0, dst_cap = 0, bits_cap = 0, nsys_cap = 0, boff_cap = 0;
    size_t norder = 0, ne = 0, nbits = 0;
    uint64_t acc = 0;
    int node_closed = 1;
    if (!at) { ls_oom(s); goto done; }
    for (size_t i = 0; i < nn; i++) at[i] = -1;
    for (int64_t i = 0; i < n; i++) {
        if (nodes[i] < 0 || (size_t)nodes[i] >= nn) { ls_fail(s, BR_LTL_UNDECIDED, 0); goto done; }
        at[nodes[i]] = -2;
    }
    if (n == 0) { rc = 0; goto done; }
    if (!br_grow((void **)&order, &order_cap, 1, 4)) { ls_oom(s); goto done; }
    order[norder++] = nodes[0];
    at[nodes[0]] = 0;
    for (size_t head = 0; head < norder; head++) {
        if ((head & 1023) == 0) {
            if (timeout > 0 && br_now() - s->start > timeout) { ls_fail(s, BR_LTL_LIMIT, BR_LIMIT_TIME); goto done; }
            if (s->p->max_memory && (int64_t)(ltl_bytes(s) + nn * 4 + (order_cap + src_cap + dst_cap
                    + nsys_cap) * 4 + (bits_cap + boff_cap) * 8) > s->p->max_memory) { ls_oom(s); goto done; }
        }
        int64_t nx = ls_expand(s, order[head], 0);
        if (nx < 0) goto done;
        size_t words = ((size_t)s->x_nsys + 63) / 64;
        if (!br_grow((void **)&bits, &bits_cap, nbits + words, 8)
            || !br_grow((void **)&boff, &boff_cap, head + 1, sizeof *boff)
            || !br_grow((void **)&nsys, &nsys_cap, head + 1, 4)) { ls_oom(s); goto done; }
        uint64_t *mine = bits + nbits;
        boff[head] = nbits;
        nsys[head] = (uint32_t)s->x_nsys;
        nbits += words;
        for (size_t k = 0; k < words; k++) mine[k] = 0;
        for (int64_t j = 0; j < nx; j++) {
            int32_t v = s->x_dst[j];
            if (at[v] == -1) continue;
            if (at[v] == -2) {
                if (!br_grow((void **)&order, &order_cap, norder + 1, 4)) { ls_oom(s); goto done; }
                at[v] = (int32_t)norder;
                order[norder++] = v;
            }
            if (!br_grow((void **)&src, &src_cap, ne + 1, 4)
                || !br_grow((void **)&dst, &dst_cap, ne + 1, 4)) { ls_oom(s); goto done; }
            src[ne] = (int32_t)head;
            dst[ne] = at[v];
            ne++;
            acc |= s->x_acc[j];
            mine[s->x_sys[j] >> 6] |= (uint64_t)1 << (s->x_sys[j] & 63);
        }
        size_t taken = 0;
        for (size_t k = 0; k < words; k++) taken += (size_t)__builtin_popcountll(mine[k]);
        if (taken != (size_t)s->x_nsys) node_closed = 0;
    }
    /* closed per system state: the positions sorted by system state, their bits OR-ed */
    keys = malloc(norder * 8);
    if (!keys) { ls_oom(s); goto done; }
    for (size_t i = 0; i < norder; i++) keys[i] = (uint64_t)h->node_sys[order[i]] << 32 | i;
    qsort(keys, norder, 8, ls_cmp_u64);
    int closed = 1;
    int64_t nstates = 0;
    for (size_t a = 0; a < norder;) {
        size_t b = a;
        uint32_t sys = (uint32_t)(keys[a] >> 32);
        while (b < norder && (uint32_t)(keys[b] >> 32) == sys) b++;
        nstates++;
        size_t first_pos = (uint32_t)keys[a];
        uint32_t steps = nsys[first_pos];
        for (uint32_t w = 0; w < (steps + 63) / 64 && closed; w++) {
            uint64_t all = 0;
            for (size_t k = a; k < b; k++) {
                size_t pos = (uint32_t)keys[k];
                if (nsys[pos] != steps) { ls_fail(s, BR_LTL_UNDECIDED, 0); goto done; }
                all |= bits[boff[pos] + w];
            }
            uint64_t want = steps - w * 64 >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << (steps - w * 64)) - 1;
            if (all != want) closed = 0;
        }
        a = b;
    }
    /* connected: every position reaches position 0 (a search on the reversed edges) */
    first = calloc(norder + 1, 4);
    preds = malloc((ne ? ne : 1) * 4);
    stack = malloc(norder * 4);
    if (!first || !preds || !stack) { ls_oom(s); goto done; }
    for (size_t i = 0; i < ne; i++) first[dst[i] + 1]++;
    for (size_t v = 0; v < norder; v++) first[v + 1] += first[v];
    for (size_t i = 0; i < ne; i++) preds[first[dst[i]]++] = src[i];
    for (size_t v = norder; v > 0; v--) first[v] = first[v - 1];  /* back to the starts */
    first[0] = 0;
    for (size_t v = 0; v < norder; v++) at[order[v]] = -1;       /* at: reached marks */
    size_t nstack = 0, reached = 1;
    stack[nstack++] = 0;
    at[order[0]] = 0;
    while (nstack) {
        int32_t v = stack[--nstack];
        for (int32_t i = first[v]; i < first[v + 1]; i++) {
            int32_t u = preds[i];
            if (at[order[u]] == -1) { at[order[u]] = 0; reached++; stack[nstack++] = u; }
        }
    }
    out->nodes = (int64_t)norder;
    out->sys_states = nstates;
    out->edges = (int64_t)ne;
    out->acceptance = acc;
    out->closed = closed;
    out->node_closed = node_closed;
    out->connected = reached == norder;
    out->accepting = (acc & s->p->all_sets) == s->p->all_sets;
    rc = 0;
done:
    free(at); free(order); free(src); free(dst); free(first); free(preds); free(stack);
    free(nsys); free(bits); free(boff); free(keys);
    return rc;
}

/* Check the part given by nodes[0..n) of the product of a finished search (handle hp
 * of bridge_ltl_search with the same params p, under strong global fairness without
 * annotations): see above. timeout: seconds (0: none). Returns out->status. */
__attribute__((visibility("default")))
int32_t bridge_ltl_check_part(void *hp, const br_ltl_params_t *p, const int32_t *nodes, int64_t n,
                              double timeout, br_part_check_t *out) {
    br_ltl_result_t r;
    memset(&r, 0, sizeof r);
    memset(out, 0, sizeof *out);
    ls_t s;
    memset(&s, 0, sizeof s);
    s.h = hp; s.p = p; s.r = &r;
    s.closed = 1;
    s.c.names = p->csp && p->event_atoms;
    s.start = br_now();
    s.t_en = malloc(8); s.t_unit = malloc(8);
    if (!hp || p->fairness != BR_LTL_STRONG_GLOBAL || p->n_units) {
        r.status = BR_LTL_UNDECIDED;
    } else if (!ls_alloc_expand(&s) || !s.t_en || !s.t_unit) {
        ls_oom(&s);
    } else {
        pc_run(&s, nodes, n, timeout, out);
    }
    out->status = r.status;
    out->limit_kind = r.limit_kind;
    out->seconds = br_now() - s.start;
    s.h = NULL;  /* the handle stays the caller's */
    ls_free(&s);
    return out->status;
}
