/* bridge compiled engine: symmetry reduction, the quotient of paper 001 Def. 4 (issue 13).
 *
 * The C twin of reductions/symmetry.py's SymmetryReduction: the fair search
 * (search_ltl.c, ls_intern_sys) replaces every system state by the representative of
 * its orbit before the state store sees it, so the quotient has exactly the Python
 * engine's states. Detection and verification of the group stay in Python
 * (symmetry.detect_symmetry); Python hands over its plan as tables
 * (symmetry.GroupAction): per family the state slots of each position (segment slots
 * without parameters, then the family-array cells) and either the enumerated group
 * elements (a ring group, or the full group on a few positions) or none (the full
 * group: positions sorted by content); and the finished locations of the phases.
 *
 * A dynamic layout (Promela: run starts processes, the youngest dies first) has a plan
 * per runtime layout in Python (SymmetryReduction._plan); here the same plan is found
 * per state: the segments are walked from the live-instance count and the template
 * bytes, a family takes part only when every member is alive with its own template
 * (else the plan leaves it alone), a phase that has died is done, and a segment
 * cell is found at its member's segment. The Python slot order (static
 * slots, then segments in pid order) is the byte order, so the comparisons agree.
 *
 * The representative is the Python one: no canonicalisation until every phase process
 * is at a location without edges; then per family, in order, the least candidate in
 * Python tuple order (slot values compared as integers, slot by slot: only the moved
 * slots can differ, compared in increasing slot order), or the positions stably
 * sorted by the tuple of their cells (symmetry._Sorter).
 */

typedef struct {
    int32_t n_slots;            /* slots of the state vector (dynamic: of its static part) */
    const int32_t *slot_off;    /* byte offset of each slot */
    const int32_t *slot_kind;   /* 0 u8, 1 i8, 2 u16, 3 i16, 4 i32, 5 u32 */
    int32_t n_phases;
    const int32_t *phase_slot;  /* the location slot of each phase instance, -1: it has
                                 * died (done); dynamic: the phase's pid, its location is
                                 * slot 0 of its segment, and it has died when the pid is
                                 * not live or holds another template than phase_tpl */
    const int32_t *phase_off;   /* n_phases + 1 offsets into phase_done */
    const int64_t *phase_done;  /* the finished locations of each phase */
    int32_t n_fam;
    const int32_t *fam_n;       /* positions */
    const int32_t *fam_m;       /* cells per position */
    const int32_t *cell_off;    /* n_fam + 1 offsets into cells and order */
    const int32_t *cells;       /* per family: n * m slots, position p's at p * m
                                 * (dynamic: a segment cell is the slot of its member's
                                 * segment, see cell_pid) */
    const int32_t *order;       /* per family: the indices p * m + r by increasing slot */
    const int32_t *fam_nperm;   /* enumerated group elements; 0: sort (the full group) */
    const int32_t *perm_off;    /* n_fam + 1 offsets into src */
    const int32_t *src;         /* element g (the identity first): for k < n * m, the
                                 * index into vals of the value its candidate has at
                                 * slot cells[order[k]] (position j's cell r is taken
                                 * from position perm[j]: perm[j] * m + r) */
    int32_t max_cells;          /* the largest n * m (scratch size) */
    int32_t max_n;
    /* dynamic layouts only */
    int32_t dynamic;
    int32_t count_slot;         /* the static slot of the number of live instances */
    int32_t static_bytes;       /* the first segment's byte offset */
    const int32_t *tpl_size;    /* per template: its segment's bytes (template byte included) */
    const int32_t *tpl_first;   /* per template: its slot 0's index in seg_off, seg_kind */
    const int32_t *seg_off;     /* per template slot: byte offset in its segment */
    const int32_t *seg_kind;
    const int32_t *fam_tpl;     /* per family: its members' template */
    const int32_t *fam_top;     /* per family: its largest member pid */
    const int32_t *cell_pid;    /* per cell (as cells): the member pid of a segment cell,
                                 * -1: a static slot */
    const int32_t *phase_tpl;   /* per phase: its template */
    const int32_t *cell_byte;   /* static layouts: per cell, its byte offset and kind */
    const int32_t *cell_kind;
    int32_t top;                /* the largest pid a family or a phase names */
    int32_t scratch_n;          /* int32 scratch entries sym_canon needs */
} br_sym_t;

static inline int64_t sym_read(const uint8_t *q, int32_t kind) {
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

static inline void sym_write(uint8_t *q, int32_t kind, int64_t value) {
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

/* Whether a phase location is one of phase k's finished locations. */
static inline int sym_done(const br_sym_t *y, int32_t k, int64_t loc) {
    for (int32_t j = y->phase_off[k]; j < y->phase_off[k + 1]; j++)
        if (y->phase_done[j] == loc) return 1;
    return 0;
}

/* Rearrange family f's positions of v into the representative: the cell k of the
 * family is at byte off[k] of v with kind kind[k]. */
static void sym_family(const br_sym_t *y, int32_t f, uint8_t *v, const int32_t *off,
                       const int32_t *kind, int64_t *vals, int32_t *sorted) {
    int32_t n = y->fam_n[f], m = y->fam_m[f], nm = n * m;
    const int32_t *order = y->order + y->cell_off[f];
    for (int32_t k = 0; k < nm; k++) vals[k] = sym_read(v + off[k], kind[k]);
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
                if (least[k] != order[k]) sym_write(v + off[order[k]], kind[order[k]], vals[least[k]]);
        return;
    }
    for (int32_t p = 0; p < n; p++) {  /* stable insertion sort of the positions by content */
        int32_t j = p;
        while (j > 0 && sym_greater(vals, m, sorted[j - 1], p)) { sorted[j] = sorted[j - 1]; j--; }
        sorted[j] = p;
    }
    for (int32_t j = 0; j < n; j++)
        if (sorted[j] != j)
            for (int32_t r = 0; r < m; r++)
                sym_write(v + off[j * m + r], kind[j * m + r], vals[sorted[j] * m + r]);
}

/* sym_canon of a dynamic layout: the plan of v's runtime layout. */
static void sym_canon_dynamic(const br_sym_t *y, uint8_t *v, int64_t *vals, int32_t *scratch) {
    int32_t *sorted = scratch, *off = sorted + y->max_n, *kind = off + y->max_cells;
    int32_t *base = kind + y->max_cells, *tpl = base + y->top + 1;
    int32_t live = (int32_t)sym_read(v + y->slot_off[y->count_slot], y->slot_kind[y->count_slot]);
    int32_t pos = y->static_bytes;
    for (int32_t i = 0; i < live && i <= y->top; i++) {
        base[i] = pos;
        tpl[i] = v[pos];
        pos += y->tpl_size[tpl[i]];
    }
    for (int32_t k = 0; k < y->n_phases; k++) {
        int32_t pid = y->phase_slot[k];
        if (pid >= live || tpl[pid] != y->phase_tpl[k]) continue;  /* it has died: done */
        int32_t s0 = y->tpl_first[tpl[pid]];
        if (!sym_done(y, k, sym_read(v + base[pid] + y->seg_off[s0], y->seg_kind[s0]))) return;
    }
    for (int32_t f = 0; f < y->n_fam; f++) {
        if (y->fam_top[f] >= live) continue;  /* a member is dead */
        int32_t nm = y->fam_n[f] * y->fam_m[f], c0 = y->cell_off[f], fits = 1;
        for (int32_t k = 0; k < nm && fits; k++) {
            int32_t pid = y->cell_pid[c0 + k], slot = y->cells[c0 + k];
            if (pid < 0) { off[k] = y->slot_off[slot]; kind[k] = y->slot_kind[slot]; continue; }
            fits = tpl[pid] == y->fam_tpl[f];  /* else the pid went to another template */
            int32_t s = y->tpl_first[y->fam_tpl[f]] + slot;
            off[k] = base[pid] + y->seg_off[s];
            kind[k] = y->seg_kind[s];
        }
        if (fits) sym_family(y, f, v, off, kind, vals, sorted);
    }
}

/* Replace v (a state vector) by its representative; vals holds max_cells values,
 * scratch scratch_n entries. */
static void sym_canon(const br_sym_t *y, uint8_t *v, int64_t *vals, int32_t *scratch) {
    if (y->dynamic) { sym_canon_dynamic(y, v, vals, scratch); return; }
    for (int32_t k = 0; k < y->n_phases; k++) {
        int32_t slot = y->phase_slot[k];
        if (slot < 0) continue;  /* it has died: done */
        if (!sym_done(y, k, sym_read(v + y->slot_off[slot], y->slot_kind[slot]))) return;
    }
    for (int32_t f = 0; f < y->n_fam; f++)
        sym_family(y, f, v, y->cell_byte + y->cell_off[f], y->cell_kind + y->cell_off[f], vals,
                   scratch);
}
