/* bridge compiled engine: the state store (issue 12).
 *
 * Packed state vectors live one after the other in one growing arena (no allocation
 * per state, as in SPIN's pan and LTSmin's tree/table stores). A fixed-length model
 * needs nothing else; a model whose vectors change length (Promela run and process
 * death) keeps a length before each vector (br_vlen_t, below: 2 bytes, or 4 when the
 * model's longest vector needs them) and one 8-byte arena offset per state. The
 * visited set is an open-addressing hash table of 64-bit slots, each the
 * state id + 1 and the upper 32 bits of the key's hash; the bucket is taken from the
 * same 32 bits, so the table grows (doubling, load at most 1/2) without reading the
 * arena. Hidden variables (CSP# hvar) sit at the front of the vector and are left out
 * of the key (the first state reached with a key stands for all, as in the Python
 * engine and PAT). Parent links (4 bytes a state) give shortest traces from the BFS.
 * Every growth is checked against the memory limit and against malloc failing: the
 * search then stops with a clean "memory limit" result, never a crash.
 *
 * Tree compression (store_init with compact = 1: the fair search of search_ltl.c, on a
 * fixed-length model without hidden bytes), after LTSmin's tree table (Laarman, van de
 * Pol and Weber, "Parallel recursive state compression for free", SPIN 2011): the
 * vector, cut into 32-bit words, is the leaves of a fixed binary tree; each inner node
 * is the pair (left, right) of its children's values (a word at a leaf, else the index
 * of the child's pair), interned in one table of pairs shared by all positions (the
 * position decides how a pair decodes, so sharing is sound). A state is its root pair:
 * 8 bytes a state in root[], plus its slot; inner pairs are shared between states, so
 * TC_R's 101-byte vectors cost a few bytes each. The table then holds at most 3/4 of
 * its slots, and the per-state arrays grow by a quarter past 64 MB (instead of
 * doubling). Lookups and decoding are incremental: the last vector decoded (the state
 * being expanded) is the reference, and only the subtrees over the words a vector
 * changes are recomputed (the pairs of the others are the reference's). Ids, and so
 * the search order and every count, are those of the flat store.
 *
 * Flat first (issue 13): a lookup in the tree costs a probe of the pair table per
 * inner node over a changed word (cache misses the flat store does not have: on the
 * orienting rings, 65-byte vectors, 17 words, the tree was about 60% of the fair
 * search's time). So a compact store starts flat, its successors' slots prefetched,
 * and turns into the tree (store_to_tree: the roots computed in id order, the table
 * rebuilt, the arena freed; ids unchanged) when its arena would pass flat_max bytes
 * (by default a quarter of the memory limit, or of the physical memory without one;
 * search_ltl.c br_flat_default): the rows that need the compression still get it,
 * the others the flat store's speed.
 */

#if BR_MAXVEC + 4 <= 65535  /* + 4: the refinement search's pairs (search_refine.c) */
typedef uint16_t br_vlen_t;  /* the length before each vector of a dynamic model */
#else
typedef uint32_t br_vlen_t;
#endif

typedef struct {
    uint8_t *arena; size_t arena_len, arena_cap;
    uint64_t *off;          /* dynamic models: arena offset of state i's length */
    uint32_t *parent;       /* parent id (UINT32_MAX: root) */
    size_t n, cap;          /* states stored, capacity of off/parent */
    uint64_t *table; size_t tcap;
    uint32_t fixed;         /* vector length of a fixed-length model, else 0 */
    uint32_t hidden;        /* bytes before the key */
    size_t mem_limit;       /* 0: none */
    int keep_parents;
    int compact;            /* table load 3/4, slow growth past 64 MB (see the top) */
    /* tree compression (see the top); tree = 0: the flat arena */
    int tree;
    uint32_t words;         /* leaves: 32-bit words of the vector, padded with zeros */
    uint64_t *root;         /* per state: its root pair */
    uint64_t *pairs; size_t npairs, pairs_cap;  /* inner pairs: index -> pair */
    uint64_t *ptable; size_t ptcap;             /* their index: hash32 << 32 | index + 1 */
    int32_t *t_lo, *t_hi, *t_l, *t_r;           /* inner node j: words lo..hi, children
                                                 * (an inner node, or -(word + 1)) */
    uint32_t *ref_w, *ref_n, *pre, *wbuf;       /* the reference: its words, its inner
                                                 * nodes' values; scratch */
    int ref_ok;
    /* flat first (see the top): a compact fixed-length store without hidden bytes keeps
     * flat vectors until its arena would pass flat_max bytes, then becomes a tree */
    int treeable;
    size_t flat_max;
} store_t;

static inline uint64_t br_hash(const uint8_t *p, uint32_t len) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)len * 0xFF51AFD7ED558CCDULL);
    uint32_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w; memcpy(&w, p + i, 8);
        h ^= w * 0x87C37B91114253D5ULL;
        h = (h << 31) | (h >> 33);
        h *= 0x4CF5AD432745937FULL;
    }
    uint64_t w = 0;
    memcpy(&w, p + i, len - i);
    h ^= w * 0x87C37B91114253D5ULL;
    h ^= h >> 33; h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33; h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return h;
}

/* Bytes a state costs in the per-state arrays (arena offsets, parents, root pairs). */
static inline size_t store_per_state(const store_t *st) {
    return (st->fixed ? 0 : 8) + (st->keep_parents ? 4 : 0) + (st->tree ? 8 : 0);
}

static size_t store_bytes(const store_t *st) {
    return st->arena_cap + st->tcap * 8 + st->cap * store_per_state(st)
        + st->pairs_cap * 8 + st->ptcap * 8;
}

/* The next capacity of an array of cap elements of size bytes that needs need: double,
 * or (compact) a quarter more once it holds 64 MB. */
static inline size_t store_next_cap(const store_t *st, size_t cap, size_t need, size_t size) {
    size_t n = cap ? cap : 4096;
    while (n < need) n = st->compact && n * size >= ((size_t)64 << 20) ? n + n / 4 : n * 2;
    return n;
}

/* br_grow for the arrays that hold an entry per state or node: with compact, a
 * quarter more once they hold 64 MB. */
static int store_grow(const store_t *st, void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 1;
    size_t n = store_next_cap(st, *cap, need, size);
    void *q = realloc(*p, n * size);
    if (!q) return 0;
    *p = q;
    *cap = n;
    return 1;
}

static inline uint64_t br_hash_pair(uint64_t x) {
    x *= 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 32;
    return x;
}

/* Decode the subtree of inner node j whose pair is pair into ref_w / ref_n; a child
 * whose value the reference already has is the same subtree, and is skipped. */
static void tree_decode(store_t *st, int32_t j, uint64_t pair, int all) {
    int32_t c[2] = { st->t_l[j], st->t_r[j] };
    uint32_t v[2] = { (uint32_t)(pair >> 32), (uint32_t)pair };
    for (int i = 0; i < 2; i++) {
        if (c[i] < 0) { st->ref_w[-c[i] - 1] = v[i]; continue; }
        if (!all && st->ref_n[c[i]] == v[i]) continue;
        st->ref_n[c[i]] = v[i];
        tree_decode(st, c[i], st->pairs[v[i]], all);
    }
}

static inline const uint8_t *store_vec(store_t *st, size_t id, uint32_t *len) {
    if (st->tree) {  /* the vector becomes the reference of the next lookups */
        tree_decode(st, 0, st->root[id], !st->ref_ok);
        st->ref_ok = 1;
        *len = st->fixed;
        return (const uint8_t *)st->ref_w;
    }
    if (st->fixed) { *len = st->fixed; return st->arena + id * st->fixed; }
    const uint8_t *p = st->arena + st->off[id];
    br_vlen_t l; memcpy(&l, p, sizeof l);
    *len = l;
    return p + sizeof l;
}

/* The inner nodes over words lo..hi (preorder from *next); returns the child value
 * code of that range: an inner node, or -(word + 1) for a single word. */
static int32_t tree_shape(store_t *st, int32_t lo, int32_t hi, int32_t *next) {
    if (hi - lo == 1) return -lo - 1;
    int32_t j = (*next)++;
    int32_t mid = lo + (hi - lo + 1) / 2;
    st->t_lo[j] = lo; st->t_hi[j] = hi;
    st->t_l[j] = tree_shape(st, lo, mid, next);
    st->t_r[j] = tree_shape(st, mid, hi, next);
    return j;
}

/* The tree's shape and tables (st->tree is set by the caller). */
static int tree_setup(store_t *st) {
    uint32_t k = (st->fixed + 3) / 4;
    if (k < 2) k = 2;
    st->words = k;
    st->t_lo = malloc(k * 4); st->t_hi = malloc(k * 4);
    st->t_l = malloc(k * 4); st->t_r = malloc(k * 4);
    st->ref_w = calloc(k, 4); st->ref_n = calloc(k, 4);
    st->pre = malloc((k + 1) * 4); st->wbuf = calloc(k, 4);
    st->ptcap = 1 << 10;
    st->ptable = calloc(st->ptcap, 8);
    if (!st->t_lo || !st->t_hi || !st->t_l || !st->t_r || !st->ref_w || !st->ref_n || !st->pre
        || !st->wbuf || !st->ptable) return 0;
    int32_t next = 0;
    tree_shape(st, 0, (int32_t)k, &next);
    return 1;
}

/* compact = 1: the fair search's store (see the top); when the vectors have a fixed
 * length and no hidden bytes, flat until the arena would pass flat_max bytes (at most
 * a quarter of the memory limit), then the tree (flat_max 0: the tree from the start). */
static int store_init(store_t *st, uint32_t fixed, uint32_t hidden, size_t mem_limit, int keep_parents,
                      int compact, size_t flat_max) {
    memset(st, 0, sizeof *st);
    st->fixed = fixed; st->hidden = hidden; st->mem_limit = mem_limit;
    st->keep_parents = keep_parents;
    st->compact = compact;
    st->tcap = 1 << 10;
    st->table = calloc(st->tcap, 8);
    if (!st->table) return 0;
    if (compact && fixed && !hidden) {
        if (mem_limit && flat_max > mem_limit / 4) flat_max = mem_limit / 4;
        st->flat_max = flat_max;
        st->treeable = 1;
        if (!flat_max) {
            st->tree = 1;
            if (!tree_setup(st)) return 0;
        }
    }
    return 1;
}

static void store_free(store_t *st) {
    free(st->arena); free(st->off); free(st->parent); free(st->table);
    free(st->root); free(st->pairs); free(st->ptable);
    free(st->t_lo); free(st->t_hi); free(st->t_l); free(st->t_r);
    free(st->ref_w); free(st->ref_n); free(st->pre); free(st->wbuf);
    memset(st, 0, sizeof *st);
}

/* Rehash an open-addressing table of hash32 << 32 | index + 1 slots into ncap slots. */
static uint64_t *store_rehash(const uint64_t *t, size_t cap, size_t ncap) {
    uint64_t *nt = calloc(ncap, 8);
    if (!nt) return NULL;
    size_t mask = ncap - 1;
    for (size_t i = 0; i < cap; i++) {
        uint64_t e = t[i];
        if (!e) continue;
        size_t b = (size_t)(e >> 32) & mask;
        while (nt[b]) b = (b + 1) & mask;
        nt[b] = e;
    }
    return nt;
}

/* Probe a table of hash32 << 32 | index + 1 slots (cap of them) whose keys are
 * keys[index] for key x of hash32 hi: its index, or -1 with *slot the empty slot. */
static inline int64_t store_probe(const uint64_t *table, size_t cap, const uint64_t *keys, uint64_t x,
                                  uint32_t hi, size_t *slot) {
    size_t mask = cap - 1;
    size_t b = hi & mask;
    for (;;) {
        uint64_t e = table[b];
        if (!e) break;
        if ((uint32_t)(e >> 32) == hi && keys[(uint32_t)e - 1] == x) return (uint32_t)e - 1;
        b = (b + 1) & mask;
    }
    *slot = b;
    return -1;
}

/* The index of inner pair x (interned when new), or -1 when the memory limit (or
 * malloc) stops the table from growing. */
static int64_t tree_pair(store_t *st, uint64_t x) {
    if ((st->npairs + 1) * 2 > st->ptcap) {
        size_t ncap = st->ptcap * 2;
        if (ncap > ((size_t)1 << 32)) return -1;
        if (st->mem_limit && store_bytes(st) + ncap * 8 > st->mem_limit) return -1;
        uint64_t *nt = store_rehash(st->ptable, st->ptcap, ncap);
        if (!nt) return -1;
        free(st->ptable);
        st->ptable = nt; st->ptcap = ncap;
    }
    uint32_t hi = (uint32_t)(br_hash_pair(x) >> 32);
    size_t b;
    int64_t found = store_probe(st->ptable, st->ptcap, st->pairs, x, hi, &b);
    if (found >= 0) return found;
    if (st->npairs >= 0xFFFFFFF0u) return -1;
    if (st->npairs + 1 > st->pairs_cap) {
        size_t ncap = store_next_cap(st, st->pairs_cap, st->npairs + 1, 8);
        if (st->mem_limit && store_bytes(st) + (ncap - st->pairs_cap) * 8 > st->mem_limit) return -1;
        uint64_t *np = realloc(st->pairs, ncap * 8);
        if (!np) return -1;
        st->pairs = np; st->pairs_cap = ncap;
    }
    size_t id = st->npairs++;
    st->pairs[id] = x;
    st->ptable[b] = ((uint64_t)hi << 32) | (uint64_t)(id + 1);
    return (int64_t)id;
}

/* The value of child c (an inner node, or -(word + 1)) of the vector in wbuf: the
 * reference's where none of its words differ; -1 out of memory. */
static int64_t tree_value(store_t *st, int32_t c) {
    if (c < 0) return st->wbuf[-c - 1];
    if (st->ref_ok && st->pre[st->t_hi[c]] == st->pre[st->t_lo[c]]) return st->ref_n[c];
    int64_t a = tree_value(st, st->t_l[c]);
    if (a < 0) return -1;
    int64_t b = tree_value(st, st->t_r[c]);
    if (b < 0) return -1;
    return tree_pair(st, ((uint64_t)a << 32) | (uint64_t)b);
}

/* The root pair of vector v (its inner pairs interned); 0 with *ok = 0 out of memory. */
static uint64_t tree_root(store_t *st, const uint8_t *v, uint32_t len, int *ok) {
    uint32_t *w = st->wbuf;
    w[st->words - 2] = w[st->words - 1] = 0;  /* the padding */
    memcpy(w, v, len);
    if (st->ref_ok) {
        uint32_t d = 0;
        st->pre[0] = 0;
        for (uint32_t i = 0; i < st->words; i++) { d += w[i] != st->ref_w[i]; st->pre[i + 1] = d; }
    }
    int64_t a = tree_value(st, st->t_l[0]);
    int64_t b = a < 0 ? -1 : tree_value(st, st->t_r[0]);
    *ok = b >= 0;
    return ((uint64_t)(uint32_t)a << 32) | (uint64_t)(uint32_t)b;
}

static int store_grow_table(store_t *st) {
    size_t ncap = st->tcap * 2;
    if (ncap > ((size_t)1 << 32)) return 0;
    if (st->mem_limit && store_bytes(st) + ncap * 8 > st->mem_limit) return 0;
    uint64_t *nt = store_rehash(st->table, st->tcap, ncap);
    if (!nt) return 0;
    free(st->table);
    st->table = nt;
    st->tcap = ncap;
    return 1;
}

static int store_reserve(store_t *st, uint32_t len) {
    size_t need = st->tree ? 0 : st->arena_len + len + (st->fixed ? 0 : sizeof(br_vlen_t));
    if (need > st->arena_cap) {
        size_t ncap = st->arena_cap ? st->arena_cap : (1 << 12);
        while (ncap < need) ncap = ncap < ((size_t)1 << 30) ? ncap * 2 : ncap + ((size_t)1 << 30);
        if (st->mem_limit && store_bytes(st) - st->arena_cap + ncap > st->mem_limit) return 0;
        uint8_t *a = realloc(st->arena, ncap);
        if (!a) return 0;
        st->arena = a; st->arena_cap = ncap;
    }
    if (st->n + 1 > st->cap) {
        size_t per = store_per_state(st);
        size_t ncap = store_next_cap(st, st->cap, st->n + 1, per ? per : 1);
        if (st->mem_limit && store_bytes(st) + (ncap - st->cap) * per > st->mem_limit) return 0;
        if (st->tree) {
            uint64_t *r = realloc(st->root, ncap * 8);
            if (!r) return 0;
            st->root = r;
        }
        if (!st->fixed) {
            uint64_t *o = realloc(st->off, ncap * 8);
            if (!o) return 0;
            st->off = o;
        }
        if (st->keep_parents) {
            uint32_t *p = realloc(st->parent, ncap * 4);
            if (!p) return 0;
            st->parent = p;
        }
        st->cap = ncap;
    }
    return 1;
}

/* Prefetch hints for the lookups of a state's successors (issue 13: the LTL search is
 * bound by the store's cache misses; a state's successors are looked up one after the
 * other, so their misses overlap when the slots, then the vectors they name, are
 * requested first). Hints only: nothing is read that a later insert depends on. */
#define BR_PREFETCH_MAX 64
static inline size_t store_slot(const store_t *st, const uint8_t *v, uint32_t len) {
    if (st->tree) return 0;  /* the slot depends on the root pair: no hint */
    uint64_t h = br_hash(v + st->hidden, len - st->hidden);
    return (size_t)(h >> 32) & (st->tcap - 1);
}

static inline void store_prefetch_slot(const store_t *st, size_t b) {
    if (st->tree) return;
    __builtin_prefetch(&st->table[b]);
}

static inline void store_prefetch_vector(const store_t *st, size_t b) {
    if (st->tree) return;
    uint64_t e = st->table[b];
    if (!e) return;
    uint32_t id = (uint32_t)e - 1;
    if (st->fixed) {  /* every cache line it touches (65 bytes or more span three) */
        const uint8_t *a = st->arena + (size_t)id * st->fixed;
        for (uint32_t o = 0; o < st->fixed; o += 64) __builtin_prefetch(a + o);
        __builtin_prefetch(a + st->fixed - 1);
    }
    else __builtin_prefetch(st->off + id);
}

/* store_insert on a tree store. */
static int64_t tree_insert(store_t *st, const uint8_t *v, uint32_t len, uint32_t parent, int *added) {
    int ok;
    uint64_t x = tree_root(st, v, len, &ok);
    if (!ok) return -1;
    uint32_t hi = (uint32_t)(br_hash_pair(x) >> 32);
    size_t b;
    int64_t found = store_probe(st->table, st->tcap, st->root, x, hi, &b);
    if (found >= 0) return found;
    if (!store_reserve(st, len)) return -1;
    size_t id = st->n++;
    st->root[id] = x;
    if (st->keep_parents) st->parent[id] = parent;
    st->table[b] = ((uint64_t)hi << 32) | (uint64_t)(id + 1);
    *added = 1;
    return (int64_t)id;
}

/* The tree's parts freed: the store is flat again (store_to_tree failed). */
static void tree_undo(store_t *st) {
    free(st->root); free(st->pairs); free(st->ptable);
    free(st->t_lo); free(st->t_hi); free(st->t_l); free(st->t_r);
    free(st->ref_w); free(st->ref_n); free(st->pre); free(st->wbuf);
    st->root = st->pairs = st->ptable = NULL;
    st->t_lo = st->t_hi = st->t_l = st->t_r = NULL;
    st->ref_w = st->ref_n = st->pre = st->wbuf = NULL;
    st->npairs = st->pairs_cap = st->ptcap = 0;
    st->tree = 0; st->ref_ok = 0;
}

/* The flat store becomes the tree (see the top): every stored vector's root, in id
 * order (each decoded as the reference of the next: neighbours share subtrees), the
 * table rebuilt on the roots, the arena freed. Ids do not change. When the memory
 * limit (or malloc) stops it, the store stays flat (and is not converted again). */
static void store_to_tree(store_t *st) {
    st->treeable = 0;
    st->tree = 1;
    if (!tree_setup(st) || (st->mem_limit && store_bytes(st) > st->mem_limit)
        || !(st->root = malloc((st->cap ? st->cap : 1) * 8))) { tree_undo(st); return; }
    for (size_t id = 0; id < st->n; id++) {
        int ok;
        uint64_t x = tree_root(st, st->arena + id * st->fixed, st->fixed, &ok);
        if (!ok) { tree_undo(st); return; }
        st->root[id] = x;
        tree_decode(st, 0, x, !st->ref_ok);
        st->ref_ok = 1;
    }
    memset(st->table, 0, st->tcap * 8);
    size_t mask = st->tcap - 1;
    for (size_t id = 0; id < st->n; id++) {
        uint32_t hi = (uint32_t)(br_hash_pair(st->root[id]) >> 32);
        size_t b = hi & mask;
        while (st->table[b]) b = (b + 1) & mask;
        st->table[b] = ((uint64_t)hi << 32) | (uint64_t)(id + 1);
    }
    free(st->arena);
    st->arena = NULL;
    st->arena_len = st->arena_cap = 0;
}

/* Insert a vector; returns its id, and *added = 1 when it is new. Returns -1 when the
 * memory limit (or malloc) stops the store from growing. */
static int64_t store_insert(store_t *st, const uint8_t *v, uint32_t len, uint32_t parent, int *added) {
    *added = 0;
    if (st->treeable && st->arena_len + len > st->flat_max) store_to_tree(st);
    if ((st->compact ? (st->n + 1) * 4 > st->tcap * 3 : (st->n + 1) * 2 > st->tcap)
        && !store_grow_table(st)) return -1;
    if (st->n >= 0xFFFFFFF0u) return -1;
    if (st->tree) return tree_insert(st, v, len, parent, added);
    const uint8_t *key = v + st->hidden;
    uint32_t klen = len - st->hidden;
    uint64_t h = br_hash(key, klen);
    uint32_t hi = (uint32_t)(h >> 32);
    size_t mask = st->tcap - 1;
    size_t b = hi & mask;
    for (;;) {
        uint64_t e = st->table[b];
        if (!e) break;
        if ((uint32_t)(e >> 32) == hi) {
            uint32_t id = (uint32_t)e - 1, olen;
            const uint8_t *o = store_vec(st, id, &olen);
            if (olen == len && memcmp(o + st->hidden, key, klen) == 0) return id;
        }
        b = (b + 1) & mask;
    }
    if (!store_reserve(st, len)) return -1;
    size_t id = st->n++;
    if (st->fixed) {
        memcpy(st->arena + st->arena_len, v, len);
    } else {
        st->off[id] = st->arena_len;
        br_vlen_t l = (br_vlen_t)len;
        memcpy(st->arena + st->arena_len, &l, sizeof l);
        memcpy(st->arena + st->arena_len + sizeof l, v, len);
        st->arena_len += sizeof l;
    }
    st->arena_len += len;
    if (st->keep_parents) st->parent[id] = parent;
    st->table[b] = ((uint64_t)hi << 32) | (uint64_t)(id + 1);
    *added = 1;
    return (int64_t)id;
}
