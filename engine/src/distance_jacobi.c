// Jacobi for the distance constraints: their layout (runs of links with consecutive particles at
// both ends, built when the links change) and the two passes of an iteration over it, prepare
// (each link's step, and the counts) and gather (the factored steps summed per particle, then
// applied). The other kinds sum into particles.acc; the gather applies those sums too.
#include <string.h>

#include "world_internal.h"
#include "simd.h"

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
    uint32_t *restrict bucket = p->jacobi_sort, *restrict by_i = d->by_i, *restrict order = d->order;
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
    // Runs: links of one offset whose first particles follow one another.
    sinew__run *restrict runs = d->runs;
    int run_count = 0;
    for (int m = 0; m < count; ++m) {
        const sinew__distance *l = &c[order[m]];
        d->jlo[m] = l->lo;
        d->jhi[m] = l->hi;
        sinew__run *last = run_count > 0 ? &runs[run_count - 1] : NULL;
        if (last != NULL && l->j - l->i == last->offset && l->i == last->i + last->count) {
            last->count += 1;
        } else {
            runs[run_count++] = (sinew__run){m, 1, l->i, l->j - l->i};
        }
    }
    d->run_count = run_count;
    d->order_dirty = false;
}

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
    for (int r = 0; r < d->run_count; ++r) {
        for (int k0 = 0; k0 < d->runs[r].count; k0 += SINEW__CHUNK) {
            const sinew__chunk ch = chunk_of(d->runs[r], k0);
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

// Terms t s (xj - xi), t = min(1 / n_i, 1 / n_j), of a chunk of links: added to the sums of their
// i ends, kept in (tx, ty) for their j ends.
SINEW_FORCE_INLINE void gather_chunk(int len, const float *restrict inv_i, const float *restrict inv_j,
                                     const float *restrict step_x, const float *restrict step_y,
                                     double *restrict sum_x, double *restrict sum_y, float *restrict t,
                                     float *restrict tx, float *restrict ty)
{
    for (int l = 0; l < len; ++l) {
        t[l] = inv_i[l] < inv_j[l] ? inv_i[l] : inv_j[l];
        tx[l] = t[l] * step_x[l];
        ty[l] = t[l] * step_y[l];
        sum_x[l] += (double)tx[l];
        sum_y[l] += (double)ty[l];
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

// Once every kind is counted and inv_n inverted: each link adds its term min(1 / n_i, 1 / n_j)
// s (xj - xi) to the sums of its i end and subtracts it from those of its j end, then each
// particle moves by its sums times omega and its weight. Sums are kept in double: a handful of
// float terms add up exactly, so the result does not depend on the order the links were made in.
SINEW_FORCE_INLINE void gather_all(sinew_world *world, float omega, bool scattered, bool soft)
{
    sinew__particles *p = &world->particles;
    const sinew__distances *d = &world->distances;
    float *restrict lambda = d->l.lambda;
    for (int r = 0; r < d->run_count; ++r) {
        for (int k0 = 0; k0 < d->runs[r].count; k0 += SINEW__CHUNK) {
            const sinew__chunk ch = chunk_of(d->runs[r], k0);
            const int len = ch.len, m0 = ch.m0, i0 = ch.i0, j0 = ch.j0;
            float t[SINEW__CHUNK], tx[SINEW__CHUNK], ty[SINEW__CHUNK];
            gather_chunk(len, &p->inv_n[i0], &p->inv_n[j0], &d->step_x[m0], &d->step_y[m0], &p->jacobi_x[i0],
                         &p->jacobi_y[i0], t, tx, ty);
            for (int l = 0; l < len && soft; ++l) { // lambda takes the part of its step that is applied
                const uint32_t k = d->order[m0 + l];
                lambda[k] += omega * t[l] * (d->step_lambda[m0 + l] - lambda[k]);
            }
            subtract_terms(len, &p->jacobi_x[j0], &p->jacobi_y[j0], tx, ty);
        }
    }
    float *restrict x = p->x, *restrict y = p->y;
    const float *restrict w = p->w;
    double *restrict sum_x = p->jacobi_x, *restrict sum_y = p->jacobi_y;
    sinew__jacobi_sum *restrict acc = p->acc;
    for (int q = 0; q < p->count; ++q) {
        const double scale = (double)(omega * w[q]);
        double sx = sum_x[q] * scale, sy = sum_y[q] * scale;
        sum_x[q] = sum_y[q] = 0.0;
        if (scattered) {
            sx += acc[q].dx;
            sy += acc[q].dy;
            acc[q].dx = acc[q].dy = 0.0;
        }
        x[q] += (float)sx;
        y[q] += (float)sy;
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

SINEW_FORCE_INLINE void gather_kernel(sinew_world *world, float omega, bool scattered)
{
    if (sinew__links_soft(&world->distances.l)) {
        gather_all(world, omega, scattered, true);
    } else if (scattered) {
        gather_all(world, omega, true, false);
    } else {
        gather_all(world, omega, false, false);
    }
}

// The two passes are compiled for the baseline instruction set and, on x86-64, once more for
// AVX2 (SINEW__AVX2: eight floats per vector instead of four), run when world->avx2. Both are the
// same C, so they compute the same operations on every link, to the bit.
static void prepare_portable(sinew_world *world, float inv_h2) { prepare_kernel(world, inv_h2); }
static void gather_portable(sinew_world *world, float omega, bool scattered) { gather_kernel(world, omega, scattered); }

#if SINEW__X86
SINEW__AVX2 static void prepare_avx2(sinew_world *world, float inv_h2)
{
    prepare_kernel(world, inv_h2);
}

SINEW__AVX2 static void gather_avx2(sinew_world *world, float omega, bool scattered)
{
    gather_kernel(world, omega, scattered);
}
#endif

void sinew__distances_prepare(sinew_world *world, float inv_h2)
{
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
#if SINEW__X86
    if (world->avx2) {
        gather_avx2(world, omega, scattered);
        return;
    }
#endif
    gather_portable(world, omega, scattered);
}
