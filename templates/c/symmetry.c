/* bridge compiled engine: symmetry reduction, the quotient of paper 001 Def. 4 (issue 13).
 *
 * The C twin of reductions/symmetry.py's SymmetryReduction on a static layout (CSP#, IR
 * without run): the fair search (search_ltl.c, ls_intern_sys) replaces every system
 * state by the representative of its orbit before the state store sees it, so the
 * quotient has exactly the Python engine's states. Detection and verification of the
 * group stay in Python (symmetry.detect_symmetry); Python hands over its plan as tables
 * (symmetry.GroupAction): per family the state slots of each position (segment slots
 * without parameters, then the family-array cells) and either the enumerated group
 * elements (a ring group, or the full group on a few positions) or none (the full
 * group: positions sorted by content); and the finished locations of the phases.
 *
 * The representative is the Python one: no canonicalisation until every phase process
 * is at a location without edges; then per family, in order, the least candidate in
 * Python tuple order (slot values compared as integers, slot by slot: only the moved
 * slots can differ, compared in increasing slot order), or the positions stably
 * sorted by the tuple of their cells (symmetry._Sorter).
 */

typedef struct {
    int32_t n_slots;            /* slots of the state vector */
    const int32_t *slot_off;    /* byte offset of each slot */
    const int32_t *slot_kind;   /* 0 u8, 1 i8, 2 u16, 3 i16, 4 i32, 5 u32 */
    int32_t n_phases;
    const int32_t *phase_slot;  /* the location slot of each phase instance, -1: absent */
    const int32_t *phase_off;   /* n_phases + 1 offsets into phase_done */
    const int64_t *phase_done;  /* the finished locations of each phase */
    int32_t n_fam;
    const int32_t *fam_n;       /* positions */
    const int32_t *fam_m;       /* cells per position */
    const int32_t *cell_off;    /* n_fam + 1 offsets into cells and order */
    const int32_t *cells;       /* per family: n * m slots, position p's at p * m */
    const int32_t *order;       /* per family: the indices p * m + r by increasing slot */
    const int32_t *fam_nperm;   /* enumerated group elements; 0: sort (the full group) */
    const int32_t *perm_off;    /* n_fam + 1 offsets into src */
    const int32_t *src;         /* element g (the identity first): for k < n * m, the
                                 * index into vals of the value its candidate has at
                                 * slot cells[order[k]] (position j's cell r is taken
                                 * from position perm[j]: perm[j] * m + r) */
    int32_t max_cells;          /* the largest n * m (scratch size) */
    int32_t max_n;
} br_sym_t;

static inline int64_t sym_get(const br_sym_t *y, const uint8_t *v, int32_t slot) {
    const uint8_t *q = v + y->slot_off[slot];
    int32_t kind = y->slot_kind[slot];
    /* the common kinds first, as predictable branches (a jump table here was a third
     * of the canonicalisation's time on the orienting rings) */
    if (kind == 4) { int32_t x; memcpy(&x, q, 4); return x; }
    if (kind == 0) return *q;
    switch (kind) {
    case 0: return *q;
    case 1: return (int8_t)*q;
    case 2: { uint16_t x; memcpy(&x, q, 2); return x; }
    case 3: { int16_t x; memcpy(&x, q, 2); return x; }
    case 4: { int32_t x; memcpy(&x, q, 4); return x; }
    default: { uint32_t x; memcpy(&x, q, 4); return x; }
    }
}

static inline void sym_put(const br_sym_t *y, uint8_t *v, int32_t slot, int64_t value) {
    uint8_t *q = v + y->slot_off[slot];
    int32_t kind = y->slot_kind[slot];
    if (kind >= 4) { uint32_t x = (uint32_t)value; memcpy(q, &x, 4); return; }
    if (kind <= 1) { *q = (uint8_t)value; return; }
    switch (kind) {
    case 0: case 1: *q = (uint8_t)value; break;
    case 2: case 3: { uint16_t x = (uint16_t)value; memcpy(q, &x, 2); break; }
    default: { uint32_t x = (uint32_t)value; memcpy(q, &x, 4); break; }
    }
}

/* Whether position a's cells are greater than position b's (tuple order). */
static inline int sym_greater(const int64_t *vals, int32_t m, int32_t a, int32_t b) {
    for (int32_t r = 0; r < m; r++) {
        int64_t x = vals[a * m + r], w = vals[b * m + r];
        if (x != w) return x > w;
    }
    return 0;
}

/* Replace v (a state vector) by its representative; vals holds max_cells values,
 * sorted max_n positions (scratch). */
static void sym_canon(const br_sym_t *y, uint8_t *v, int64_t *vals, int32_t *sorted) {
    for (int32_t k = 0; k < y->n_phases; k++) {
        int32_t slot = y->phase_slot[k];
        if (slot < 0) return;
        int64_t loc = sym_get(y, v, slot);
        int done = 0;
        for (int32_t j = y->phase_off[k]; j < y->phase_off[k + 1] && !done; j++)
            done = y->phase_done[j] == loc;
        if (!done) return;
    }
    for (int32_t f = 0; f < y->n_fam; f++) {
        int32_t n = y->fam_n[f], m = y->fam_m[f], nm = n * m;
        const int32_t *cells = y->cells + y->cell_off[f];
        const int32_t *order = y->order + y->cell_off[f];
        for (int32_t k = 0; k < nm; k++) vals[k] = sym_get(y, v, cells[k]);
        const int32_t *best;
        int32_t nperm = y->fam_nperm[f];
        if (nperm > 0) {
            const int32_t *src = y->src + y->perm_off[f];
            const int32_t *least = src;  /* the identity */
            for (int32_t g = 1; g < nperm; g++) {
                const int32_t *cand = src + (size_t)g * nm;
                for (int32_t k = 0; k < nm; k++) {
                    int64_t a = vals[cand[k]], b = vals[least[k]];
                    if (a != b) { if (a < b) least = cand; break; }
                }
            }
            if (least != src)
                for (int32_t k = 0; k < nm; k++)
                    if (least[k] != order[k]) sym_put(y, v, cells[order[k]], vals[least[k]]);
            continue;
        } else {  /* stable insertion sort of the positions by content */
            for (int32_t p = 0; p < n; p++) {
                int32_t j = p;
                while (j > 0 && sym_greater(vals, m, sorted[j - 1], p)) { sorted[j] = sorted[j - 1]; j--; }
                sorted[j] = p;
            }
            best = sorted;
        }
        for (int32_t j = 0; j < n; j++)
            if (best[j] != j)
                for (int32_t r = 0; r < m; r++) sym_put(y, v, cells[j * m + r], vals[best[j] * m + r]);
    }
}
