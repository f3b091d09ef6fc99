// Jacobi for the distance constraints: their layout (runs of links with consecutive particles at
// both ends, built when the links change) and the two passes of an iteration over it, prepare
// (each link's step, and the counts) and gather (the factored steps summed per particle, then
// applied). The other kinds sum into particles.acc; the gather applies those sums too. With
// workers, both passes run in stages of their own (see "Threads" below), to the same bits.
#include <string.h>

#include "world_internal.h"
#include "simd.h"

static void build_segments(sinew_world *world);

// Exclusive prefix sums of n counts, in place: each bucket's first place.
static void bucket_starts(uint32_t *restrict bucket, int n)
{
    uint32_t at = 0;
    for (int b = 0; b < n; ++b) {
        const uint32_t size = bucket[b];
        bucket[b] = at;
        at += size;
    }
}

void sinew__distances_order(sinew_world *world)
{
    sinew__distances *d = &world->distances;
    const sinew__particles *p = &world->particles;
    const sinew__distance *restrict c = d->l.c;
    const int count = d->l.count, np = p->count;
    // The buckets, 2 np of them, in the memory of acc (16 bytes a particle), zero before and after.
    uint32_t *restrict bucket = (uint32_t *)(void *)p->acc, *restrict by_i = d->by_i, *restrict order = d->order;
    // Two stable counting sorts: by first particle, then by offset j - i (bucket offset + np - 1,
    // 2 np - 1 of them). The places follow the offset, then i, then the order of creation.
    if (np > 0) {
        memset(bucket, 0, sizeof(uint32_t) * (size_t)np);
    }
    for (int k = 0; k < count; ++k) {
        bucket[c[k].i] += 1u;
    }
    bucket_starts(bucket, np);
    for (int k = 0; k < count; ++k) {
        by_i[bucket[c[k].i]++] = (uint32_t)k;
    }
    if (np > 0) {
        memset(bucket, 0, 2 * sizeof(uint32_t) * (size_t)np);
    }
    for (int k = 0; k < count; ++k) {
        bucket[c[k].j - c[k].i + np - 1] += 1u;
    }
    bucket_starts(bucket, 2 * np - 1);
    for (int t = 0; t < count; ++t) {
        const uint32_t k = by_i[t];
        order[bucket[c[k].j - c[k].i + np - 1]++] = k;
    }
    if (np > 0) {
        memset(p->acc, 0, sizeof(sinew__jacobi_sum) * (size_t)np);
    }
    // Runs: links of one offset whose first particles follow one another. Only where each starts
    // is kept, a bit a place: a run's first particle and offset are its first link's.
    uint64_t *restrict start = d->run_start;
    if (count > 0) { // (next_run_start reads the words of places below the count only)
        memset(start, 0, sizeof(uint64_t) * (((size_t)count + 63u) / 64u));
    }
    int run_count = 0, last_i = 0, last_offset = 0;
    for (int m = 0; m < count; ++m) {
        const sinew__distance *l = &c[order[m]];
        d->jlo[m] = l->lo;
        d->jhi[m] = l->hi;
        if (m == 0 || l->j - l->i != last_offset || l->i != last_i + 1) {
            start[m / 64] |= 1ull << (m % 64);
            run_count += 1;
        }
        last_i = l->i;
        last_offset = l->j - l->i;
    }
    d->run_count = run_count;
    d->order_dirty = false;
    build_segments(world);
}

// The first place after m where a run starts, or the link count.
static inline int next_run_start(const sinew__distances *d, int m)
{
    const int n = d->l.count;
    const int from = m + 1;
    if (from >= n) {
        return n;
    }
    int w = from / 64;
    uint64_t bits = d->run_start[w] & (~0ull << (from % 64));
    const int words = (n + 63) / 64;
    while (bits == 0u) {
        if (++w >= words) {
            return n;
        }
        bits = d->run_start[w];
    }
    const int at = w * 64 + sinew__ctz64(bits);
    return at < n ? at : n;
}

// The run that starts at place m: its first particle and offset are its first link's.
SINEW_FORCE_INLINE sinew__run run_at(const sinew__distances *d, int m)
{
    const sinew__distance *l = &d->l.c[d->order[m]];
    return (sinew__run){m, next_run_start(d, m) - m, l->i, l->j - l->i};
}

sinew__run sinew__distances_run(const sinew__distances *d, int m) { return run_at(d, m); }

// Links per chunk of a run. A chunk's loops read and write contiguous arrays through restrict
// pointers, so the compiler vectorises them (four or eight links per instruction, square roots
// and divisions included).
#define SINEW__CHUNK 128

// Steps s (xj - xi) of a chunk of links and whether each is active, from the positions of their
// two ends (xi[l], yi[l]) and (xj[l], yj[l]).
SINEW_FORCE_INLINE void prepare_chunk(int len, const float *restrict xi, const float *restrict yi,
                                      const float *restrict xj, const float *restrict yj, const float *restrict wi,
                                      const float *restrict wj, const float *restrict lo, const float *restrict hi,
                                      const float *restrict stiffness, const float *restrict compliance,
                                      float *restrict lambda, float *restrict step_x, float *restrict step_y,
                                      float *restrict active, float inv_h2, bool soft)
{
    for (int l = 0; l < len; ++l) {
        float dx = xj[l] - xi[l], dy = yj[l] - yi[l];
        const float d2 = sinew__apart(&dx, &dy);
        const float wij = wi[l] + wj[l];
        const float s = soft ? sinew__correction_scale(lo[l], hi[l], stiffness[l], compliance[l], &lambda[l], d2, wij, inv_h2,
                                                true)
                             : sinew__correction_scale(lo[l], hi[l], 1.0f, 0.0f, NULL, d2, wij, inv_h2, false);
        step_x[l] = s * dx;
        step_y[l] = s * dy;
        active[l] = sinew__active_of(lo[l], hi[l], dx, dy);
    }
}

// Adds a chunk's values to n[0 .. len - 1]: the particles at one end of a run are distinct.
SINEW_FORCE_INLINE void add_counts(int len, float *restrict n, const float *restrict active)
{
    for (int l = 0; l < len; ++l) {
        n[l] += active[l];
    }
}

// The chunk of a run from its link k0: len links, at places m0.., first particles i0.., second
// particles j0...
typedef struct sinew__chunk {
    int len, m0, i0, j0;
} sinew__chunk;

SINEW_FORCE_INLINE sinew__chunk chunk_of(sinew__run run, int k0)
{
    const int len = run.count - k0 < SINEW__CHUNK ? run.count - k0 : SINEW__CHUNK;
    return (sinew__chunk){len, run.first + k0, run.i + k0, run.i + k0 + run.offset};
}

// For each link, its step s (xj - xi) and whether it is active, counted into inv_n at both ends.
SINEW_FORCE_INLINE void prepare_all(sinew_world *world, float inv_h2, bool soft)
{
    const float *x = world->particles.x, *y = world->particles.y, *w = world->particles.w;
    float *n = world->particles.inv_n;
    sinew__distances *d = &world->distances;
    const sinew__softness *f = d->l.soft;
    const float *lambda = d->l.lambda;
    for (int m = 0; m < d->l.count;) {
        const sinew__run run = run_at(d, m);
        m += run.count;
        for (int k0 = 0; k0 < run.count; k0 += SINEW__CHUNK) {
            const sinew__chunk ch = chunk_of(run, k0);
            const int len = ch.len, m0 = ch.m0, i0 = ch.i0, j0 = ch.j0;
            float stiffness[SINEW__CHUNK], compliance[SINEW__CHUNK], active[SINEW__CHUNK];
            for (int l = 0; l < len && soft; ++l) {
                const uint32_t k = d->order[m0 + l];
                stiffness[l] = f[k].stiffness;
                compliance[l] = f[k].compliance;
                d->step_lambda[m0 + l] = lambda[k];
            }
            prepare_chunk(len, &x[i0], &y[i0], &x[j0], &y[j0], &w[i0], &w[j0], &d->jlo[m0], &d->jhi[m0], stiffness,
                          compliance, &d->step_lambda[m0], &d->step_x[m0], &d->step_y[m0], active, inv_h2, soft);
            add_counts(len, &n[i0], active);
            add_counts(len, &n[j0], active);
        }
    }
}

// The terms t s (xj - xi), t = min(1 / n_i, 1 / n_j), of a chunk of links, into (tx, ty), and
// their factors t.
SINEW_FORCE_INLINE void terms_chunk(int len, const float *restrict inv_i, const float *restrict inv_j,
                                    const float *restrict step_x, const float *restrict step_y, float *restrict t,
                                    float *restrict tx, float *restrict ty)
{
    for (int l = 0; l < len; ++l) {
        t[l] = inv_i[l] < inv_j[l] ? inv_i[l] : inv_j[l];
        tx[l] = t[l] * step_x[l];
        ty[l] = t[l] * step_y[l];
    }
}

SINEW_FORCE_INLINE void subtract_terms(int len, double *restrict sum_x, double *restrict sum_y,
                                       const float *restrict tx, const float *restrict ty)
{
    for (int l = 0; l < len; ++l) {
        sum_x[l] -= (double)tx[l];
        sum_y[l] -= (double)ty[l];
    }
}

SINEW_FORCE_INLINE void add_terms(int len, double *restrict sum_x, double *restrict sum_y, const float *restrict tx,
                                  const float *restrict ty)
{
    for (int l = 0; l < len; ++l) {
        sum_x[l] += (double)tx[l];
        sum_y[l] += (double)ty[l];
    }
}

// Particles [q0, q1) move by their sums times omega and their weight (and by acc when
// `scattered`); both sums are cleared. Without `linked` (no distance constraints, whose sums are
// then zero) the distances' sums are neither read nor cleared: the same bits, as 0 + acc is acc.
// With `packed` the new positions are written in pairs too (sinew__particles.xy).
SINEW_FORCE_INLINE void apply_sums(sinew__particles *p, int q0, int q1, float omega, bool scattered, bool linked,
                                   bool packed)
{
    float *restrict x = p->x, *restrict y = p->y, *restrict xy = p->xy;
    const float *restrict w = p->w;
    double *restrict sum_x = p->jacobi_x, *restrict sum_y = p->jacobi_y;
    sinew__jacobi_sum *restrict acc = p->acc;
    for (int q = q0; q < q1; ++q) {
        const double scale = (double)(omega * w[q]);
        double sx = 0.0, sy = 0.0;
        if (linked) {
            sx = sum_x[q] * scale;
            sy = sum_y[q] * scale;
            sum_x[q] = sum_y[q] = 0.0;
        }
        if (scattered) {
            sx += acc[q].dx;
            sy += acc[q].dy;
            acc[q].dx = acc[q].dy = 0.0;
        }
        x[q] += (float)sx;
        y[q] += (float)sy;
        if (packed) {
            xy[2 * q] = x[q];
            xy[2 * q + 1] = y[q];
        }
    }
}

// Once every kind is counted and inv_n inverted: each link adds its term min(1 / n_i, 1 / n_j)
// s (xj - xi) to the sums of its i end and subtracts it from those of its j end (then each
// particle moves by its sums times omega and its weight: apply_sums, a particle pass). Sums are kept in double: a handful of
// float terms add up exactly, so the result does not depend on the order the links were made in.
SINEW_FORCE_INLINE void gather_all(sinew_world *world, float omega, bool soft)
{
    sinew__particles *p = &world->particles;
    const sinew__distances *d = &world->distances;
    float *restrict lambda = d->l.lambda;
    for (int m = 0; m < d->l.count;) {
        const sinew__run run = run_at(d, m);
        m += run.count;
        for (int k0 = 0; k0 < run.count; k0 += SINEW__CHUNK) {
            const sinew__chunk ch = chunk_of(run, k0);
            const int len = ch.len, m0 = ch.m0, i0 = ch.i0, j0 = ch.j0;
            float t[SINEW__CHUNK], tx[SINEW__CHUNK], ty[SINEW__CHUNK];
            terms_chunk(len, &p->inv_n[i0], &p->inv_n[j0], &d->step_x[m0], &d->step_y[m0], t, tx, ty);
            add_terms(len, &p->jacobi_x[i0], &p->jacobi_y[i0], tx, ty);
            for (int l = 0; l < len && soft; ++l) { // lambda takes the part of its step that is applied
                const uint32_t k = d->order[m0 + l];
                lambda[k] += omega * t[l] * (d->step_lambda[m0 + l] - lambda[k]);
            }
            subtract_terms(len, &p->jacobi_x[j0], &p->jacobi_y[j0], tx, ty);
        }
    }
}

// Threads. With workers, the passes run over items of consecutive particles. Prepare takes two
// stages with a barrier between: first each item's links (those whose i end is in it) compute
// their steps and activity, and count it into their ends that lie in the item; then each item
// counts the activity of its other links' ends (those whose i end is in another item). Counts are
// sums of zeros and ones, exact in any order. Gather is one stage: each item adds the terms of the
// links with an end in it into its particles' sums, computing each term from the link's step and
// its ends' factors as one thread does (a link whose ends lie in two items computes it twice, to
// the same bits), and moves them. An item adds them run after run, in the order one thread does
// (a run's chunks in turn; in each chunk the i ends, then the j ends), so every sum meets the same
// terms in the same order: the bits of one thread. A link's data stays with the item of its i
// end, in the cache of the worker that keeps taking that item. Which runs reach which item is a
// table of segments, built with the layout into by_i (free once the layout is built): the items'
// starts, then per segment its run (first place, first particle and offset) and the run's places
// [ia, ib) whose i end is in the item, [ja, jb) whose j end is. When the table does not fit there
// (links in very many short runs) the passes stay on one thread.
#define ITEM_PARTICLES 1024     // particles per item (the tests' grain shrinks it, to ITEM_PARTICLES_MIN)
#define ITEM_PARTICLES_MIN 32
#define SPREAD_ITEMS 8          // fewer particle items run on one thread. Measured on an Intel Xeon
                                // (family 6, model 207, 2 vCPUs, KVM), two workers, switching every 5
                                // steps in one process between this and 16 (or 6): Jacobi cloths of
                                // 90 x 90 (8 items) 0.69x and 0.89x the time, 100 x 100 0.64x to 0.70x,
                                // 120 x 120 0.64x and 0.70x; 80 x 80 (7 items) spread 1.01x and 1.04x,
                                // so it stays on one thread. (16 was measured on AMD EPYC with four
                                // barriers an iteration: a 100 x 100 cloth then ran 5% slower spread.)
#define SEGMENT 7               // uint32 per segment: the run's first place, ia, ib, ja, jb, first
                                // particle and offset (kept here: reading them from the run's
                                // first link at every stage cost a 256 x 256 Jacobi cloth 8% at two workers)

static int item_particles(const sinew_world *world)
{
    const int n = sinew__min_range(&world->tasks, ITEM_PARTICLES);
    return n > ITEM_PARTICLES_MIN ? n : ITEM_PARTICLES_MIN;
}

static int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// The particle items run r reaches: one or two disjoint intervals [lo, hi] in ascending order.
static int run_items(sinew__run r, int item, int lo[2], int hi[2])
{
    const int j0 = r.i + r.offset;
    int a_lo = r.i / item, a_hi = (r.i + r.count - 1) / item, b_lo = j0 / item, b_hi = (j0 + r.count - 1) / item;
    if (b_lo < a_lo) {
        const int lo_b = a_lo, hi_b = a_hi;
        a_lo = b_lo, a_hi = b_hi, b_lo = lo_b, b_hi = hi_b;
    }
    if (b_lo <= a_hi + 1) { // they overlap or touch
        lo[0] = a_lo;
        hi[0] = a_hi > b_hi ? a_hi : b_hi;
        return 1;
    }
    lo[0] = a_lo, hi[0] = a_hi, lo[1] = b_lo, hi[1] = b_hi;
    return 2;
}

// Counts (seg NULL) or writes the segments of every run, item by item, in run order.
static void run_segments(const sinew__distances *d, int item, uint32_t *start, uint32_t *seg)
{
    for (int m = 0; m < d->l.count;) {
        const sinew__run run = run_at(d, m);
        m += run.count;
        int lo[2], hi[2];
        const int n = run_items(run, item, lo, hi);
        for (int v = 0; v < n; ++v) {
            for (int P = lo[v]; P <= hi[v]; ++P) {
                if (seg != NULL) {
                    uint32_t *s = &seg[SEGMENT * (size_t)start[P]];
                    s[0] = (uint32_t)run.first;
                    s[1] = (uint32_t)clamp_int(P * item - run.i, 0, run.count);
                    s[2] = (uint32_t)clamp_int((P + 1) * item - run.i, 0, run.count);
                    s[3] = (uint32_t)clamp_int(P * item - run.i - run.offset, 0, run.count);
                    s[4] = (uint32_t)clamp_int((P + 1) * item - run.i - run.offset, 0, run.count);
                    s[5] = (uint32_t)run.i;
                    s[6] = (uint32_t)run.offset;
                }
                start[P] += 1u;
            }
        }
    }
}

static void build_segments(sinew_world *world)
{
    sinew__distances *d = &world->distances;
    const int item = item_particles(world), np = world->particles.count;
    const int items = (np + item - 1) / item;
    const size_t room = (size_t)d->scratch[1].capacity;
    d->seg_item = 0;
    if ((size_t)items + 1 > room || d->run_count == 0) {
        return;
    }
    uint32_t *start = d->by_i;
    memset(start, 0, sizeof(uint32_t) * ((size_t)items + 1));
    run_segments(d, item, start, NULL);
    bucket_starts(start, items + 1);
    const size_t total = start[items];
    if ((size_t)items + 1 + SEGMENT * total > room) {
        return;
    }
    run_segments(d, item, start, start + items + 1);
    for (int P = items; P > 0; --P) { // start[P] now ends item P: back to starts
        start[P] = start[P - 1];
    }
    start[0] = 0u;
    d->seg_item = item;
    d->seg_particles = np;
}

// The threaded passes run when there are workers, enough links, and a table for them.
static bool spread(sinew_world *world)
{
    sinew__distances *d = &world->distances;
    const int item = item_particles(world);
    if (world->tasks.workers <= 1 || d->l.count == 0 ||
        (world->particles.count + item - 1) / item < sinew__min_range(&world->tasks, SPREAD_ITEMS)) {
        return false;
    }
    if (d->seg_item != item || d->seg_particles != world->particles.count) {
        build_segments(world); // (the particles or the tests' grain changed since the layout)
    }
    return d->seg_item > 0;
}

// Item P's segments: [*first, *end), SEGMENT words each.
static void item_segments(const sinew__distances *d, int P, const uint32_t **first, const uint32_t **end)
{
    const int items = (d->seg_particles + d->seg_item - 1) / d->seg_item;
    const uint32_t *seg = d->by_i + items + 1;
    *first = &seg[SEGMENT * (size_t)d->by_i[P]];
    *end = &seg[SEGMENT * (size_t)d->by_i[P + 1]];
}

// A piece of a segment: places m .. m + len - 1 of a run, whose i ends (or j ends) are particles
// q .. q + len - 1; the run's offset j - i.
typedef struct piece {
    int q, m, len, offset;
    bool j_end;
} piece;
#define MAX_PIECES (2 * (ITEM_PARTICLES / SINEW__CHUNK + 2))

// The pieces of segment g in the order one thread meets them: chunk after chunk of its run, in
// each chunk the i ends before the j ends (with `j_ends` false, only the i ends). Returns how many.
SINEW_FORCE_INLINE int segment_pieces(const uint32_t *g, bool j_ends, piece *out)
{
    const sinew__run run = {(int32_t)g[0], 0, (int32_t)g[5], (int32_t)g[6]};
    const int ia = (int)g[1], ib = (int)g[2], ja = j_ends ? (int)g[3] : 0, jb = j_ends ? (int)g[4] : 0;
    int ci = ia < ib ? ia / SINEW__CHUNK : INT32_MAX, cj = ja < jb ? ja / SINEW__CHUNK : INT32_MAX, n = 0;
    while (ci != INT32_MAX || cj != INT32_MAX) {
        const int c = ci < cj ? ci : cj, lo = c * SINEW__CHUNK, hi = lo + SINEW__CHUNK;
        if (ci == c) {
            const int a = ia > lo ? ia : lo, b = ib < hi ? ib : hi;
            out[n++] = (piece){run.i + a, run.first + a, b - a, run.offset, false};
            ci = hi < ib ? c + 1 : INT32_MAX;
        }
        if (cj == c) {
            const int a = ja > lo ? ja : lo, b = jb < hi ? jb : hi;
            out[n++] = (piece){run.i + run.offset + a, run.first + a, b - a, run.offset, true};
            cj = hi < jb ? c + 1 : INT32_MAX;
        }
    }
    return n;
}

typedef struct jacobi_task {
    sinew_world *world;
    float inv_h2, omega;
    bool soft, scattered;
} jacobi_task;

// Prepare, stage 1: the step and activity (kept in active) of an i piece's links.
SINEW_FORCE_INLINE void steps_piece(const jacobi_task *t, piece c, bool soft)
{
    const float *x = t->world->particles.x, *y = t->world->particles.y, *w = t->world->particles.w;
    sinew__distances *d = &t->world->distances;
    const int m = c.m, i0 = c.q, j0 = c.q + c.offset;
    float stiffness[SINEW__CHUNK], compliance[SINEW__CHUNK];
    for (int l = 0; l < c.len && soft; ++l) {
        const uint32_t k = d->order[m + l];
        stiffness[l] = d->l.soft[k].stiffness;
        compliance[l] = d->l.soft[k].compliance;
        d->step_lambda[m + l] = d->l.lambda[k];
    }
    prepare_chunk(c.len, &x[i0], &y[i0], &x[j0], &y[j0], &w[i0], &w[j0], &d->jlo[m], &d->jhi[m], stiffness, compliance,
                  &d->step_lambda[m], &d->step_x[m], &d->step_y[m], &d->active[m], t->inv_h2, soft);
}

// Gather, for a piece of item P: the terms t s (xj - xi) of its links added to (i ends) or taken
// from (j ends) its particles' sums, as gather_all does; an i piece's links also move lambda by
// their part (each link is an i piece of one item only).
SINEW_FORCE_INLINE void sums_piece(const jacobi_task *t, piece c, bool soft)
{
    sinew__particles *p = &t->world->particles;
    sinew__distances *d = &t->world->distances;
    const int m = c.m;
    float f[SINEW__CHUNK], tx[SINEW__CHUNK], ty[SINEW__CHUNK];
    if (c.j_end) {
        terms_chunk(c.len, &p->inv_n[c.q - c.offset], &p->inv_n[c.q], &d->step_x[m], &d->step_y[m], f, tx, ty);
        subtract_terms(c.len, &p->jacobi_x[c.q], &p->jacobi_y[c.q], tx, ty);
        return;
    }
    terms_chunk(c.len, &p->inv_n[c.q], &p->inv_n[c.q + c.offset], &d->step_x[m], &d->step_y[m], f, tx, ty);
    add_terms(c.len, &p->jacobi_x[c.q], &p->jacobi_y[c.q], tx, ty);
    for (int l = 0; l < c.len && soft; ++l) { // lambda takes the part of its step that is applied
        const uint32_t k = d->order[m + l];
        d->l.lambda[k] += t->omega * f[l] * (d->step_lambda[m + l] - d->l.lambda[k]);
    }
}

// Adds the activity of places [a, b) of piece c's run (a run's places, not the piece's) to the
// counts of their j ends.
SINEW_FORCE_INLINE void count_j_ends(sinew__particles *p, const sinew__distances *d, piece c, int first, int a, int b)
{
    const int at = c.m - first; // the piece's first place in its run
    const int j0 = c.j_end ? c.q : c.q + c.offset;
    a = a > at ? a : at;
    b = b < at + c.len ? b : at + c.len;
    if (a < b) {
        add_counts(b - a, &p->inv_n[j0 + (a - at)], &d->active[c.m + (a - at)]);
    }
}

typedef enum stage { STEPS, COUNTS, SUMS } stage;

// One stage over items [start, end). STEPS works on the links whose i end is in an item (its i
// pieces), and counts their activity into the ends in the item: every i end, and the j ends in the
// item too. COUNTS then adds the activity of the item's other j ends (of links whose i end is in
// another item). Counts are sums of zeros and ones, the same in any order. SUMS adds the terms of
// all the item's pieces into its particles' sums, in the order one thread does, then moves them.
// `s` and `soft` are constants where this is inlined, so each stage compiles to its own loop.
SINEW_FORCE_INLINE void stage_items(const jacobi_task *t, int start, int end, stage s, bool soft)
{
    sinew__particles *p = &t->world->particles;
    const sinew__distances *d = &t->world->distances;
    for (int P = start; P < end; ++P) {
        const uint32_t *g, *g_end;
        item_segments(d, P, &g, &g_end);
        for (; g < g_end; g += SEGMENT) {
            piece pc[MAX_PIECES];
            const int first = (int)g[0], ia = (int)g[1], ib = (int)g[2], ja = (int)g[3], jb = (int)g[4];
            const int count = segment_pieces(g, s != STEPS, pc);
            for (int k = 0; k < count; ++k) {
                const piece c = pc[k];
                if (s == STEPS) {
                    steps_piece(t, c, soft);
                    add_counts(c.len, &p->inv_n[c.q], &d->active[c.m]);
                    count_j_ends(p, d, c, first, ja, jb);
                } else if (s == COUNTS && c.j_end) { // (its places outside [ia, ib))
                    count_j_ends(p, d, c, first, 0, ia);
                    count_j_ends(p, d, c, first, ib, INT32_MAX);
                } else if (s == SUMS) {
                    sums_piece(t, c, soft);
                }
            }
        }
        if (s == SUMS) {
            const int q0 = P * d->seg_item, q1 = q0 + d->seg_item < p->count ? q0 + d->seg_item : p->count;
            apply_sums(p, q0, q1, t->omega, t->scattered, true, false);
        }
    }
}

// A stage compiled apart for soft links (the steps and terms use their compliance) and for the
// others; `s` is a constant in each task below, so one of the two calls remains.
SINEW_FORCE_INLINE void stage_compiled(const jacobi_task *t, int start, int end, stage s)
{
    if (t->soft && s != COUNTS) {
        stage_items(t, start, end, s, true);
    } else {
        stage_items(t, start, end, s, false);
    }
}

SINEW_FORCE_INLINE void prepare_kernel(sinew_world *world, float inv_h2)
{
    if (sinew__links_soft(&world->distances.l)) {
        prepare_all(world, inv_h2, true);
    } else {
        prepare_all(world, inv_h2, false);
    }
}

// apply_sums over particles [q0, q1), each case compiled apart.
SINEW_FORCE_INLINE void apply_range(sinew_world *world, int q0, int q1, float omega, bool scattered)
{
    sinew__particles *p = &world->particles;
    if (p->xy != NULL) { // (no distances either, and the positions in pairs kept up with the moves)
        apply_sums(p, q0, q1, omega, true, false, true);
    } else if (world->distances.l.count == 0) { // (no distances: the other kinds' sums only)
        apply_sums(p, q0, q1, omega, true, false, false);
    } else if (scattered) {
        apply_sums(p, q0, q1, omega, true, true, false);
    } else {
        apply_sums(p, q0, q1, omega, false, true, false);
    }
}

// The gather on one thread: the links' terms, then (with `apply`) the moves by the sums.
SINEW_FORCE_INLINE void gather_kernel(sinew_world *world, float omega, bool scattered, bool apply)
{
    if (sinew__links_soft(&world->distances.l)) {
        gather_all(world, omega, true);
    } else if (world->distances.l.count > 0) {
        gather_all(world, omega, false);
    }
    if (apply) {
        apply_range(world, 0, world->particles.count, omega, scattered);
    }
}

// apply_sums over items of particles (see sinew__particles_for).
SINEW_FORCE_INLINE void apply_items(const jacobi_task *t, int start, int end)
{
    const int n = t->world->particles.count;
    const int q0 = start * SINEW__PARTICLE_ITEM, q1 = end * SINEW__PARTICLE_ITEM < n ? end * SINEW__PARTICLE_ITEM : n;
    apply_range(t->world, q0, q1, t->omega, t->scattered);
}

// The two passes are compiled for the baseline instruction set and, on x86-64, once more for
// AVX2 (SINEW__AVX2: eight floats per vector instead of four), run when world->avx2. Both are the
// same C, so they compute the same operations on every link, to the bit.
static void prepare_portable(sinew_world *world, float inv_h2) { prepare_kernel(world, inv_h2); }
static void gather_portable(sinew_world *world, float omega, bool scattered, bool apply)
{
    gather_kernel(world, omega, scattered, apply);
}

#if SINEW__X86
SINEW__AVX2 static void prepare_avx2(sinew_world *world, float inv_h2)
{
    prepare_kernel(world, inv_h2);
}

SINEW__AVX2 static void gather_avx2(sinew_world *world, float omega, bool scattered, bool apply)
{
    gather_kernel(world, omega, scattered, apply);
}
#endif

// The moves by the sums and the stages as tasks, compiled for the baseline and, on x86-64, for
// AVX2 (as the passes are).
SINEW__TASK_BUILDS(apply, apply_items(context, start, end))
SINEW__TASK_BUILDS(steps, stage_compiled(context, start, end, STEPS))
SINEW__TASK_BUILDS(counts, stage_compiled(context, start, end, COUNTS))
SINEW__TASK_BUILDS(sums, stage_compiled(context, start, end, SUMS))

static void run_stage(sinew_world *world, sinew_task_fn *fn, jacobi_task *t)
{
    const int items = (world->particles.count + world->distances.seg_item - 1) / world->distances.seg_item;
    sinew__parallel_for(&world->tasks, fn, items, 1, t);
}

void sinew__distances_prepare(sinew_world *world, float inv_h2)
{
    if (spread(world)) {
        jacobi_task t = {world, inv_h2, 0.0f, sinew__links_soft(&world->distances.l), false};
        run_stage(world, SINEW__TASK_FN(world, steps), &t);
        run_stage(world, SINEW__TASK_FN(world, counts), &t);
        return;
    }
#if SINEW__X86
    if (world->avx2) {
        prepare_avx2(world, inv_h2);
        return;
    }
#endif
    prepare_portable(world, inv_h2);
}

void sinew__distances_gather(sinew_world *world, float omega, bool scattered)
{
    if (spread(world)) {
        jacobi_task t = {world, 0.0f, omega, sinew__links_soft(&world->distances.l), scattered};
        run_stage(world, SINEW__TASK_FN(world, sums), &t);
        return;
    }
    // The links' terms on one thread (when there are any), then the particles move: in the
    // same loop, or, when a particle pass goes over the workers, in a pass of its own (a pile has
    // no links: this pass is all of it).
    const bool apart = sinew__particles_spread(world);
    jacobi_task t = {world, 0.0f, omega, false, scattered};
#if SINEW__X86
    if (world->avx2) {
        gather_avx2(world, omega, scattered, !apart);
        if (apart) {
            sinew__particles_for(world, apply_avx2, &t);
        }
        return;
    }
#endif
    gather_portable(world, omega, scattered, !apart);
    if (apart) {
        sinew__particles_for(world, apply_portable, &t);
    }
}
