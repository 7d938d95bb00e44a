/* bridge compiled engine: values of PAT's library classes (Set, Queue, Stack, List,
 * HashTable), the C twin of semantics/library.py (issue 12).
 *
 * The Python engine keeps a library value as an immutable tuple in one state slot and
 * compares states by contents. Here a value is interned by content (hash-consing): a
 * kind (0: a sequence of ints -- Set sorted, Queue front first, Stack bottom first,
 * List in order; 1: a HashTable's (key, value) pairs sorted by key, flattened; 2: a
 * whole array's cells, some of them library values, as mixed slots keep them) and its
 * 64-bit elements; equal contents get one id, so the slot holds the id and two states
 * are equal exactly when the Python tuples are. Id 0 is the empty value of every class
 * (Python's () equals ()); the others are dense from 1. A slot of a library class holds
 * only ids (the generator refuses to mix ints and ids in one slot).
 *
 * The table belongs to one search (br_handle_t, br_ltl_t: freed with it, its bytes
 * counted in the memory reported); every context of the search points to it (ctx->lib).
 * A function that cannot answer (Dequeue of an empty queue, Get out of range, Add of a
 * key already present) is a model error (br_fail): the driver asks the Python engine
 * for the exact kind and message, as for every other C model error.
 */

typedef struct br_lib {
    V *data; size_t ndata, data_cap;           /* the elements of every value, back to back */
    size_t *off; uint32_t *len; uint8_t *kind; uint64_t *hash;  /* per id (0 unused) */
    size_t n, cap;                             /* ids 1..n-1 are used */
    uint32_t *slot; size_t slots;              /* open addressing: id, 0 free; a power of 2 */
    V *tmp; size_t tmp_cap;                    /* scratch for a value being built */
    size_t room;                               /* bytes the table may hold, 0: no limit */
} br_lib_t;

static size_t br_lib_bytes(const br_lib_t *l) {
    return l->data_cap * sizeof(V) + l->cap * (sizeof(size_t) + 4 + 1 + 8) + l->slots * 4
        + l->tmp_cap * sizeof(V);
}

/* Bound the table by what the memory limit leaves it: max_memory less the bytes of the
 * search's other tables (total: every table now, this one included); the search sets
 * it before each expansion, so a value interned there never takes the search past its
 * limit (it stops with a memory limit, as the store does before it grows). */
static void br_lib_bound(br_lib_t *l, int64_t max_memory, size_t total) {
    size_t others = total - br_lib_bytes(l);
    l->room = max_memory <= 0 ? 0 : (int64_t)others < max_memory ? (size_t)max_memory - others : 1;
}

/* Whether growing array (cap elements of size bytes) to hold need fits in the room. */
static int br_lib_fits(const br_lib_t *l, size_t cap, size_t need, size_t size) {
    if (!l->room || need <= cap) return 1;
    size_t n = cap ? cap : 16;
    while (n < need) n *= 2;
    return br_lib_bytes(l) + (n - cap) * size <= l->room;
}

static void br_lib_free(br_lib_t *l) {
    free(l->data); free(l->off); free(l->len); free(l->kind); free(l->hash); free(l->slot);
    free(l->tmp);
    memset(l, 0, sizeof *l);
}

static uint64_t br_lib_hash(int kind, const V *el, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)kind ^ ((uint64_t)n << 8);
    for (size_t i = 0; i < n; i++) {
        h ^= (uint64_t)el[i];
        h *= 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    return h ^ (h >> 29);
}

static int br_lib_rehash(br_lib_t *l, size_t slots) {
    uint32_t *s = calloc(slots, 4);
    if (!s) return 0;
    for (size_t id = 1; id < l->n; id++) {
        size_t i = (size_t)l->hash[id] & (slots - 1);
        while (s[i]) i = (i + 1) & (slots - 1);
        s[i] = (uint32_t)id;
    }
    free(l->slot);
    l->slot = s;
    l->slots = slots;
    return 1;
}

/* Out of memory while building a value: the search stops with a memory limit. */
static V br_lib_oom(ctx_t *c) { c->oom = 1; c->fallback = 1; return 0; }

/* The id of the value (kind, el[0..n)), interned when new. */
static V br_lib_intern(ctx_t *c, int kind, const V *el, size_t n) {
    if (n == 0) return 0;
    br_lib_t *l = c->lib;
    if (!l) return br_lib_oom(c);
    uint64_t h = br_lib_hash(kind, el, n);
    if (l->slots) {
        for (size_t i = (size_t)h & (l->slots - 1); l->slot[i]; i = (i + 1) & (l->slots - 1)) {
            uint32_t id = l->slot[i];
            if (l->hash[id] == h && l->kind[id] == kind && l->len[id] == n
                && memcmp(l->data + l->off[id], el, n * sizeof(V)) == 0)
                return id;
        }
    }
    if (l->n == 0) l->n = 1;  /* id 0: the empty value, never stored */
    if (l->n >= 0x7FFFFFFF) return br_lib_oom(c);
    if (!br_lib_fits(l, l->data_cap, l->ndata + n, sizeof(V))
        || !br_grow((void **)&l->data, &l->data_cap, l->ndata + n, sizeof(V))) return br_lib_oom(c);
    if (l->n + 1 > l->cap) {
        size_t cap = l->cap, want = l->n + 1;
        size_t c1 = cap, c2 = cap, c3 = cap, c4 = cap;
        if (!br_lib_fits(l, cap, want, sizeof(size_t) + 4 + 1 + 8)) return br_lib_oom(c);
        if (!br_grow((void **)&l->off, &c1, want, sizeof(size_t))
            || !br_grow((void **)&l->len, &c2, want, 4)
            || !br_grow((void **)&l->kind, &c3, want, 1)
            || !br_grow((void **)&l->hash, &c4, want, 8)) return br_lib_oom(c);
        l->cap = c1;
    }
    if (2 * (l->n + 1) > l->slots) {
        size_t slots = l->slots ? 2 * l->slots : 64;
        if (!br_lib_fits(l, l->slots, slots, 4) || !br_lib_rehash(l, slots)) return br_lib_oom(c);
    }
    size_t id = l->n++;
    memcpy(l->data + l->ndata, el, n * sizeof(V));
    l->off[id] = l->ndata;
    l->ndata += n;
    l->len[id] = (uint32_t)n;
    l->kind[id] = (uint8_t)kind;
    l->hash[id] = h;
    size_t i = (size_t)h & (l->slots - 1);
    while (l->slot[i]) i = (i + 1) & (l->slots - 1);
    l->slot[i] = (uint32_t)id;
    return (V)id;
}

/* The elements of value id (*n of them; a pair counts 2); NULL when id is unknown. */
static const V *br_lib_get(const br_lib_t *l, V id, size_t *n) {
    *n = 0;
    if (id == 0) return l ? l->data : NULL;
    if (!l || id < 0 || (size_t)id >= l->n) return NULL;
    *n = l->len[id];
    return l->data + l->off[id];
}

/* A copy of value id in the scratch buffer with room for `extra` more elements (its
 * elements stay valid while values are interned); NULL on error (set in c). */
static V *br_lib_copy(ctx_t *c, V id, size_t *n, size_t extra) {
    br_lib_t *l = c->lib;
    const V *el = br_lib_get(l, id, n);
    if (!el && id != 0) { br_fail(c); return NULL; }
    if (!l) { br_lib_oom(c); return NULL; }
    if (!br_lib_fits(l, l->tmp_cap, *n + extra + 1, sizeof(V))
        || !br_grow((void **)&l->tmp, &l->tmp_cap, *n + extra + 1, sizeof(V))) { br_lib_oom(c); return NULL; }
    if (*n) memcpy(l->tmp, el, *n * sizeof(V));
    return l->tmp;
}

/* The elements of value id for reading (no copy); NULL (error set) for an unknown id. */
static const V *lib_read(ctx_t *c, V id, size_t *n) {
    const V *el = br_lib_get(c->lib, id, n);
    static const V none[1] = {0};
    if (id == 0) return none;
    if (!el) br_fail(c);
    return el;
}

static int lib_has(const V *el, size_t n, V x) {
    for (size_t i = 0; i < n; i++) if (el[i] == x) return 1;
    return 0;
}

static int lib_cmp(const void *a, const void *b) {
    V x = *(const V *)a, y = *(const V *)b;
    return (x > y) - (x < y);
}

/* ---- reading functions (any sequence class; kind 0) ---- */
__attribute__((unused)) static V lib_count(ctx_t *c, V s) { size_t n; lib_read(c, s, &n); return (V)n; }
__attribute__((unused)) static V lib_contains(ctx_t *c, V s, V x) {
    size_t n; const V *el = lib_read(c, s, &n); return el ? lib_has(el, n, x) : 0;
}
__attribute__((unused)) static V lib_at(ctx_t *c, V s, V i) {
    size_t n; const V *el = lib_read(c, s, &n);
    if (!el || i < 0 || (size_t)i >= n) { br_fail(c); return 0; }
    return el[i];
}
__attribute__((unused)) static V lib_first(ctx_t *c, V s) { return lib_at(c, s, 0); }
__attribute__((unused)) static V lib_last(ctx_t *c, V s) {
    size_t n; lib_read(c, s, &n);
    if (n == 0) { br_fail(c); return 0; }
    return lib_at(c, s, (V)n - 1);
}
__attribute__((unused)) static V lib_index_of(ctx_t *c, V s, V x) {
    size_t n; const V *el = lib_read(c, s, &n);
    for (size_t i = 0; el && i < n; i++) if (el[i] == x) return (V)i;
    return -1;
}
__attribute__((unused)) static V lib_overlap(ctx_t *c, V s, V t) {
    size_t n, m; const V *a = lib_read(c, s, &n); const V *b = lib_read(c, t, &m);
    if (!a || !b) return 0;
    for (size_t i = 0; i < n; i++) if (lib_has(b, m, a[i])) return 1;
    return 0;
}

/* ---- functions returning a new value ---- */
__attribute__((unused)) static V lib_append(ctx_t *c, V s, V x) {
    size_t n; V *t = br_lib_copy(c, s, &n, 1);
    if (!t) return 0;
    t[n] = x;
    return br_lib_intern(c, 0, t, n + 1);
}
__attribute__((unused)) static V lib_insert(ctx_t *c, V s, V i, V x) {  /* List.Insert */
    size_t n; V *t = br_lib_copy(c, s, &n, 1);
    if (!t) return 0;
    if (i < 0 || (size_t)i > n) { br_fail(c); return s; }
    memmove(t + i + 1, t + i, (n - (size_t)i) * sizeof(V));
    t[i] = x;
    return br_lib_intern(c, 0, t, n + 1);
}
__attribute__((unused)) static V lib_remove_at(ctx_t *c, V s, V i) {  /* List.RemoveAt */
    size_t n; V *t = br_lib_copy(c, s, &n, 0);
    if (!t) return 0;
    if (i < 0 || (size_t)i >= n) { br_fail(c); return s; }
    memmove(t + i, t + i + 1, (n - (size_t)i - 1) * sizeof(V));
    return br_lib_intern(c, 0, t, n - 1);
}
__attribute__((unused)) static V lib_drop_first(ctx_t *c, V s) {  /* Queue.Dequeue= */
    size_t n; lib_read(c, s, &n);
    if (n == 0) { br_fail(c); return s; }
    return lib_remove_at(c, s, 0);
}
__attribute__((unused)) static V lib_drop_last(ctx_t *c, V s) {  /* Stack.Pop= */
    size_t n; lib_read(c, s, &n);
    if (n == 0) { br_fail(c); return s; }
    return lib_remove_at(c, s, (V)n - 1);
}
__attribute__((unused)) static V lib_remove_first(ctx_t *c, V s, V x) {  /* List.Remove= */
    V i = lib_index_of(c, s, x);
    return i < 0 ? s : lib_remove_at(c, s, i);
}
__attribute__((unused)) static V lib_remove_all(ctx_t *c, V s, V x) {  /* Set.Remove= */
    size_t n; V *t = br_lib_copy(c, s, &n, 0);
    if (!t) return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) if (t[i] != x) t[k++] = t[i];
    return k == n ? s : br_lib_intern(c, 0, t, k);
}
__attribute__((unused)) static V lib_set_add(ctx_t *c, V s, V x) {  /* Set.Add=: sorted, unique */
    size_t n; V *t = br_lib_copy(c, s, &n, 1);
    if (!t) return 0;
    size_t i = 0;
    while (i < n && t[i] < x) i++;
    if (i < n && t[i] == x) return s;
    memmove(t + i + 1, t + i, (n - i) * sizeof(V));
    t[i] = x;
    return br_lib_intern(c, 0, t, n + 1);
}
/* Set.Union (op 0), Intersect (1), Substract (2): the sorted distinct elements of a
 * (and of b for a union) kept by the operation (Python's set algebra). */
__attribute__((unused)) static V lib_set_op(ctx_t *c, V a, V b, int op) {
    size_t n, m;
    const V *x = lib_read(c, a, &n);
    const V *y = lib_read(c, b, &m);
    if (!x || !y) return 0;
    br_lib_t *l = c->lib;
    if (!br_lib_fits(l, l->tmp_cap, n + m + 1, sizeof(V))
        || !br_grow((void **)&l->tmp, &l->tmp_cap, n + m + 1, sizeof(V))) return br_lib_oom(c);
    x = lib_read(c, a, &n); y = lib_read(c, b, &m);  /* the table did not move, but be safe */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int in = lib_has(y, m, x[i]);
        if (op == 0 || (op == 1) == in) l->tmp[k++] = x[i];
    }
    if (op == 0) for (size_t i = 0; i < m; i++) l->tmp[k++] = y[i];
    qsort(l->tmp, k, sizeof(V), lib_cmp);
    size_t u = 0;
    for (size_t i = 0; i < k; i++) if (u == 0 || l->tmp[u - 1] != l->tmp[i]) l->tmp[u++] = l->tmp[i];
    return br_lib_intern(c, 0, l->tmp, u);
}
__attribute__((unused)) static V lib_subset(ctx_t *c, V s, V index) {  /* Set.GetSubsetByIndex= */
    size_t n; V *t = br_lib_copy(c, s, &n, 0);
    if (!t) return 0;
    size_t k = 0;
    for (size_t i = 0; index >= 1 && i < n; i++, index /= 2)
        if (index % 2 == 1) t[k++] = t[i];
    return br_lib_intern(c, 0, t, k);
}

/* ---- HashTable: kind 1, pairs (key, value) sorted by key ---- */
__attribute__((unused)) static V lib_table_count(ctx_t *c, V h) { size_t n; lib_read(c, h, &n); return (V)(n / 2); }
__attribute__((unused)) static V lib_table_find(ctx_t *c, V h, V key, int values) {
    size_t n; const V *el = lib_read(c, h, &n);
    for (size_t i = values ? 1 : 0; el && i < n; i += 2) if (el[i] == key) return (V)i;
    return -1;
}
__attribute__((unused)) static V lib_table_get(ctx_t *c, V h, V key) {
    V i = lib_table_find(c, h, key, 0);
    if (i < 0) { br_fail(c); return 0; }
    size_t n; return lib_read(c, h, &n)[i + 1];
}
__attribute__((unused)) static V lib_table_add(ctx_t *c, V h, V key, V value) {
    if (lib_table_find(c, h, key, 0) >= 0) { br_fail(c); return h; }
    size_t n; V *t = br_lib_copy(c, h, &n, 2);
    if (!t) return 0;
    size_t i = 0;
    while (i < n && t[i] < key) i += 2;
    memmove(t + i + 2, t + i, (n - i) * sizeof(V));
    t[i] = key; t[i + 1] = value;
    return br_lib_intern(c, 1, t, n + 2);
}
__attribute__((unused)) static V lib_table_remove(ctx_t *c, V h, V key) {
    V i = lib_table_find(c, h, key, 0);
    if (i < 0) return h;
    size_t n; V *t = br_lib_copy(c, h, &n, 0);
    if (!t) return 0;
    memmove(t + i, t + i + 2, (n - (size_t)i - 2) * sizeof(V));
    return br_lib_intern(c, 1, t, n - 2);
}

/* ---- int slots that may hold a library value (gen_library.mixed_variables) ----
 * Such a slot (a 32-bit int, as the variable has no range) holds library value id as
 * BR_MIX_LIB + id, below BR_MIX_TOP, and an int from BR_MIX_TOP up: a store that
 * leaves its half makes the search fall back to the Python engine, so a slot tells an
 * int from a library value, and equal slots are equal Python values (ids are interned
 * by content, and an int never equals a tuple). */
#define BR_MIX_LIB (-(V)2147483648LL)
#define BR_MIX_TOP (-(V)1073741824LL)
__attribute__((unused)) static V mix_lib(ctx_t *c, V id) {
    if (id < 0 || id >= BR_MIX_TOP - BR_MIX_LIB) { br_fallback(c); return 0; }
    return BR_MIX_LIB + id;
}
__attribute__((unused)) static V mix_int(ctx_t *c, V v) {
    if (v < BR_MIX_TOP || v > 2147483647LL) { br_fallback(c); return 0; }
    return v;
}
/* Python's m == x of a mixed slot's value m and a library value's id x, or an int x. */
__attribute__((unused)) static inline int mix_is_lib(V m, V id) { return m < BR_MIX_TOP && m - BR_MIX_LIB == id; }
__attribute__((unused)) static inline int mix_is_int(V m, V v) { return m >= BR_MIX_TOP && m == v; }
/* A mixed slot's value m read as a number (an operand of arithmetic or of an order, an
 * index): a library value there is the Python engine's model error "value of the wrong
 * kind" (its _num/_ix), which the driver re-raises on the Python engine in that state. */
__attribute__((unused)) static inline V mix_num(ctx_t *c, V m) {
    if (m < BR_MIX_TOP) { br_fail(c); return 0; }
    return m;
}
/* A library value (its id) read as a number: always that model error. */
__attribute__((unused)) static inline V lib_num(ctx_t *c, V id) {
    (void)id;
    br_fail(c);
    return 0;
}
/* The id of the tuple of a whole array's cells that may hold library values (their
 * mixed encodings, gen_library.mixed_variables), interned so that equal ids are equal
 * Python values: all ints, a sequence (kind 0, as an array of ints); pairs of ints
 * (sets or sequences of two) with strictly ascending first items, a HashTable's pairs
 * (kind 1, flattened: Python's ((1, 2), (3, 4)) equals such a table); else kind 2,
 * the cells' mixed encodings as they are (ints, and ids below BR_MIX_TOP). */
__attribute__((unused)) static V br_lib_tuple(ctx_t *c, const V *cells, size_t n) {
    size_t libs = 0, pairs = 0;
    br_lib_t *l = c->lib;
    if (!l) return br_lib_oom(c);
    for (size_t i = 0; i < n; i++) {
        if (cells[i] >= BR_MIX_TOP) continue;
        libs++;
        V id = cells[i] - BR_MIX_LIB;
        size_t k;
        const V *el = br_lib_get(l, id, &k);
        if (!el && id != 0) { br_fail(c); return 0; }
        if (id != 0 && k == 2 && l->kind[id] == 0
            && (pairs == 0 || el[0] > l->tmp[2 * pairs - 2])) {
            if (!br_lib_fits(l, l->tmp_cap, 2 * pairs + 2, sizeof(V))
                || !br_grow((void **)&l->tmp, &l->tmp_cap, 2 * pairs + 2, sizeof(V))) return br_lib_oom(c);
            l->tmp[2 * pairs] = el[0];
            l->tmp[2 * pairs + 1] = el[1];
            pairs++;
        }
    }
    if (libs == 0) return br_lib_intern(c, 0, cells, n);
    if (pairs == n) return br_lib_intern(c, 1, l->tmp, 2 * n);
    return br_lib_intern(c, 2, cells, n);
}
/* The id a mixed slot's value m holds where a value of a library class of that kind
 * (0 a sequence, 1 a HashTable) is wanted; an int there (the Python engine would use
 * it as it is) makes the search fall back to the Python engine. */
__attribute__((unused)) static V mix_id(ctx_t *c, V m, int kind) {
    if (m >= BR_MIX_TOP) { br_fallback(c); return 0; }
    V id = m - BR_MIX_LIB;
    if (id != 0 && (id >= (V)c->lib->n || c->lib->kind[id] != kind)) { br_fallback(c); return 0; }
    return id;
}
