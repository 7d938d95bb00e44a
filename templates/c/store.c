/* bridge compiled engine: the state store (issue 12).
 *
 * Packed state vectors live one after the other in one growing arena (no allocation
 * per state, as in SPIN's pan and LTSmin's tree/table stores). A fixed-length model
 * needs nothing else; a model whose vectors change length (Promela run and process
 * death) keeps a 2-byte length before each vector and one 8-byte arena offset per
 * state. The visited set is an open-addressing hash table of 64-bit slots, each the
 * state id + 1 and the upper 32 bits of the key's hash; the bucket is taken from the
 * same 32 bits, so the table grows (doubling, load at most 1/2) without reading the
 * arena. Hidden variables (CSP# hvar) sit at the front of the vector and are left out
 * of the key (the first state reached with a key stands for all, as in the Python
 * engine and PAT). Parent links (4 bytes a state) give shortest traces from the BFS.
 * Every growth is checked against the memory limit and against malloc failing: the
 * search then stops with a clean "memory limit" result, never a crash.
 */

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

static size_t store_bytes(const store_t *st) {
    return st->arena_cap + st->tcap * 8 + st->cap * ((st->fixed ? 0 : 8) + (st->keep_parents ? 4 : 0));
}

static inline const uint8_t *store_vec(const store_t *st, size_t id, uint32_t *len) {
    if (st->fixed) { *len = st->fixed; return st->arena + id * st->fixed; }
    const uint8_t *p = st->arena + st->off[id];
    uint16_t l; memcpy(&l, p, 2);
    *len = l;
    return p + 2;
}

static int store_init(store_t *st, uint32_t fixed, uint32_t hidden, size_t mem_limit, int keep_parents) {
    memset(st, 0, sizeof *st);
    st->fixed = fixed; st->hidden = hidden; st->mem_limit = mem_limit;
    st->keep_parents = keep_parents;
    st->tcap = 1 << 10;
    st->table = calloc(st->tcap, 8);
    return st->table != NULL;
}

static void store_free(store_t *st) {
    free(st->arena); free(st->off); free(st->parent); free(st->table);
    memset(st, 0, sizeof *st);
}

static int store_grow_table(store_t *st) {
    size_t ncap = st->tcap * 2;
    if (ncap > ((size_t)1 << 32)) return 0;
    if (st->mem_limit && store_bytes(st) + ncap * 8 > st->mem_limit) return 0;
    uint64_t *nt = calloc(ncap, 8);
    if (!nt) return 0;
    size_t mask = ncap - 1;
    for (size_t i = 0; i < st->tcap; i++) {
        uint64_t e = st->table[i];
        if (!e) continue;
        size_t b = (size_t)(e >> 32) & mask;
        while (nt[b]) b = (b + 1) & mask;
        nt[b] = e;
    }
    free(st->table);
    st->table = nt;
    st->tcap = ncap;
    return 1;
}

static int store_reserve(store_t *st, uint32_t len) {
    size_t need = st->arena_len + len + (st->fixed ? 0 : 2);
    if (need > st->arena_cap) {
        size_t ncap = st->arena_cap ? st->arena_cap : (1 << 12);
        while (ncap < need) ncap = ncap < ((size_t)1 << 30) ? ncap * 2 : ncap + ((size_t)1 << 30);
        if (st->mem_limit && store_bytes(st) - st->arena_cap + ncap > st->mem_limit) return 0;
        uint8_t *a = realloc(st->arena, ncap);
        if (!a) return 0;
        st->arena = a; st->arena_cap = ncap;
    }
    if (st->n + 1 > st->cap) {
        size_t ncap = st->cap ? st->cap * 2 : 4096;
        size_t per = (st->fixed ? 0 : 8) + (st->keep_parents ? 4 : 0);
        if (st->mem_limit && store_bytes(st) + (ncap - st->cap) * per > st->mem_limit) return 0;
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
    uint64_t h = br_hash(v + st->hidden, len - st->hidden);
    return (size_t)(h >> 32) & (st->tcap - 1);
}

static inline void store_prefetch_slot(const store_t *st, size_t b) {
    __builtin_prefetch(&st->table[b]);
}

static inline void store_prefetch_vector(const store_t *st, size_t b) {
    uint64_t e = st->table[b];
    if (!e) return;
    uint32_t id = (uint32_t)e - 1;
    if (st->fixed) __builtin_prefetch(st->arena + (size_t)id * st->fixed);
    else __builtin_prefetch(st->off + id);
}

/* Insert a vector; returns its id, and *added = 1 when it is new. Returns -1 when the
 * memory limit (or malloc) stops the store from growing. */
static int64_t store_insert(store_t *st, const uint8_t *v, uint32_t len, uint32_t parent, int *added) {
    *added = 0;
    if ((st->n + 1) * 2 > st->tcap && !store_grow_table(st)) return -1;
    if (st->n >= 0xFFFFFFF0u) return -1;
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
        uint16_t l = (uint16_t)len;
        memcpy(st->arena + st->arena_len, &l, 2);
        memcpy(st->arena + st->arena_len + 2, v, len);
        st->arena_len += 2;
    }
    st->arena_len += len;
    if (st->keep_parents) st->parent[id] = parent;
    st->table[b] = ((uint64_t)hi << 32) | (uint64_t)(id + 1);
    *added = 1;
    return (int64_t)id;
}
