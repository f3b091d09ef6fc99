// Link kernels: Gauss-Seidel projection, Jacobi accumulation, activity counts and errors over
// a set of two-particle links with allowed lengths [lo, hi] (distance constraints, contacts).
//
// The error is C = d - clamp(d, lo, hi). The projection moves i by +wi s (xj - xi) and j by
// -wj s (xj - xi), with s = k (C + a lambda) / (d (wi + wj + a)), a = compliance / h^2. With a = 0
// this is u = (rest - d)(xj - xi) / d, xi -= u wi / (wi + wj), xj += u wj / (wi + wj): a weight-0
// end never moves, equal weights move equal distances.
#include <string.h>

#include "world_internal.h"
#include "simd.h"

// True when the SINEW__LANES links from `c` share no particle that can move. Immovable particles
// (weight 0) keep their values (their correction is w s dx = 0), so sharing them within a block is
// harmless; a block that holds one is also marked SINEW__BLOCK_FIXED (see there).
bool sinew__links_block_is_free(const sinew__distance *c, const float *w)
{
    int32_t idx[2 * SINEW__LANES];
    int n = 0;
    for (int l = 0; l < SINEW__LANES; ++l) {
        idx[n] = c[l].i;
        n += w[c[l].i] > 0.0f;
        idx[n] = c[l].j;
        n += w[c[l].j] > 0.0f;
    }
    for (int a = 1; a < n; ++a) {
        for (int b = 0; b < a; ++b) {
            if (idx[a] == idx[b]) {
                return false;
            }
        }
    }
    return true;
}

// The layout of a free block's particles (see sinew__block_kind), for the AVX2 kernels' loads.
static uint8_t run_of(const sinew__distance *c)
{
    const int32_t i0 = c[0].i, off = c[0].j - c[0].i;
    bool one = off >= SINEW__LANES || off <= -SINEW__LANES, two = off == 1;
    for (int l = 1; l < SINEW__LANES; ++l) {
        one = one && c[l].i == i0 + l && c[l].j == c[l].i + off;
        two = two && c[l].i == i0 + 2 * l && c[l].j == c[l].i + 1;
    }
    return one ? SINEW__BLOCK_RUN : (two ? SINEW__BLOCK_PAIRS : SINEW__BLOCK_FREE);
}

bool sinew__links_any_fixed(const sinew__distance *c, int count, const float *w)
{
    bool fixed = false;
    for (int l = 0; l < count; ++l) {
        fixed |= !(w[c[l].i] > 0.0f) | !(w[c[l].j] > 0.0f);
    }
    return fixed;
}

// Recomputes the flag of the block holding link k (a partial block is never free).
void sinew__links_refresh_block(const sinew_world *world, sinew__links *d, int k)
{
    int first = k - k % SINEW__LANES;
    const int count = d->count - first < SINEW__LANES ? d->count - first : SINEW__LANES;
    const float *w = world->particles.w;
    const bool free = count == SINEW__LANES && sinew__links_block_is_free(&d->c[first], w);
    const uint8_t fixed = sinew__links_any_fixed(&d->c[first], count, w) ? SINEW__BLOCK_FIXED : 0u;
    d->block_free[first / SINEW__LANES] = (uint8_t)((free ? run_of(&d->c[first]) : SINEW__BLOCK_SHARED) | fixed);
    d->spans_valid = false;
}

void sinew__links_refresh_blocks(const sinew_world *world, sinew__links *d)
{
    for (int k = 0; k < d->count; k += SINEW__LANES) {
        sinew__links_refresh_block(world, d, k);
    }
}

void sinew__links_begin_substep(sinew__links *l)
{
    if (sinew__links_soft(l) && l->count > 0) { // (no links: lambda may be NULL)
        memset(l->lambda, 0, sizeof(float) * (size_t)l->count);
    }
}

// The element k of a link kind's softness or multiplier array, for the soft kernels; NULL for the
// rigid ones, which never read them (contacts have no such arrays: no offset is applied to NULL).
#define SOFT_AT(array, k) (soft ? &(array)[k] : NULL)

// Rigid kernels (soft = false) never touch the softness array or lambda.
SINEW_FORCE_INLINE float scale_of(const sinew__distance *restrict c, const sinew__softness *restrict f,
                                  float *restrict lambda, float d2, float wi, float wj, float inv_h2, bool soft)
{
    return soft ? sinew__correction_scale(c->lo, c->hi, f->stiffness, f->compliance, lambda, d2, wi + wj, inv_h2, true)
                : sinew__correction_scale(c->lo, c->hi, 1.0f, 0.0f, lambda, d2, wi + wj, inv_h2, false);
}

// Positions at x[stride * i], y[stride * i]: stride 1 for the arrays, 2 for the pairs of
// sinew__particles.xy (x = xy, y = xy + 1). `fixed`: the link is in a fixed block (see
// SINEW__BLOCK_FIXED), whose immovable ends are not written (the same bits: they keep their values).
SINEW_FORCE_INLINE void project_one(const sinew__distance *restrict c, const sinew__softness *restrict f, float *restrict lambda, float *restrict x,
                                   float *restrict y, const float *restrict w, float inv_h2, bool soft, int stride,
                                   bool fixed)
{
    const int i = c->i, j = c->j, si = stride * i, sj = stride * j;
    float dx = x[sj] - x[si], dy = y[sj] - y[si];
    const float d2 = sinew__apart(&dx, &dy);
    float wi = w[i], wj = w[j];
    float s = scale_of(c, f, lambda, d2, wi, wj, inv_h2, soft);
    if (!fixed || wi > 0.0f) {
        x[si] += wi * s * dx;
        y[si] += wi * s * dy;
    }
    if (!fixed || wj > 0.0f) {
        x[sj] -= wj * s * dx;
        y[sj] -= wj * s * dy;
    }
}

// A block: SINEW__LANES consecutive constraints, gathered first, then solved, then scattered.
// The eight square roots and divides have no dependency on one another, so the CPU overlaps
// them (they are the expensive part); a sweep of single projections chains each one behind the
// last store. Every lane computes exactly what project_one would: results do not depend on the
// path taken. On x86-64 with AVX2, rigid blocks run project_block_avx2 instead, which puts the
// scalar loads into vectors and solves the eight in AVX2 registers.
typedef struct block {
    int i[SINEW__LANES], j[SINEW__LANES];
    float dx[SINEW__LANES], dy[SINEW__LANES], d2[SINEW__LANES], wi[SINEW__LANES], wj[SINEW__LANES], s[SINEW__LANES];
} block;

SINEW_FORCE_INLINE void block_solve(block *restrict b, const sinew__distance *restrict c, const sinew__softness *restrict f, float *restrict lambda,
                                    const float *restrict x, const float *restrict y, const float *restrict w,
                                    float inv_h2, bool soft)
{
    for (int l = 0; l < SINEW__LANES; ++l) {
        const int i = c[l].i, j = c[l].j;
        b->i[l] = i;
        b->j[l] = j;
        b->dx[l] = x[j] - x[i];
        b->dy[l] = y[j] - y[i];
        b->d2[l] = sinew__apart(&b->dx[l], &b->dy[l]);
        b->wi[l] = w[i];
        b->wj[l] = w[j];
    }
    for (int l = 0; l < SINEW__LANES; ++l) {
        b->s[l] = scale_of(&c[l], SOFT_AT(f, l), SOFT_AT(lambda, l), b->d2[l], b->wi[l], b->wj[l], inv_h2, soft);
    }
}

// Gauss-Seidel on a block whose constraints share no particle: projecting them together is
// projecting them one after another, to the bit.
SINEW_FORCE_INLINE void project_block(const sinew__distance *restrict c, const sinew__softness *restrict f, float *restrict lambda, float *restrict x,
                                      float *restrict y, const float *restrict w, float inv_h2, bool soft)
{
    block b;
    block_solve(&b, c, f, lambda, x, y, w, inv_h2, soft);
    for (int l = 0; l < SINEW__LANES; ++l) {
        x[b.i[l]] += b.wi[l] * b.s[l] * b.dx[l];
        y[b.i[l]] += b.wi[l] * b.s[l] * b.dy[l];
        x[b.j[l]] -= b.wj[l] * b.s[l] * b.dx[l];
        y[b.j[l]] -= b.wj[l] * b.s[l] * b.dy[l];
    }
}

#if SINEW__X86
// The eight links' end positions and weights, loaded by one of the three layouts.
typedef struct ends8 {
    __m256 xi, yi, wi, xj, yj, wj;
} ends8;

// The new positions of both ends: the same IEEE operations in the same order as correction_scale
// and project_block, so the same bits. The max_ps reproduces the select of correction_scale, NaN
// included. Writes the i ends into e->xi, e->yi and the j ends into e->xj, e->yj.
SINEW__AVX2 static inline __attribute__((always_inline)) void solve8(ends8 *e, __m256 lo, __m256 hi)
{
    __m256 dx = _mm256_sub_ps(e->xj, e->xi), dy = _mm256_sub_ps(e->yj, e->yi);
    const __m256 d = _mm256_sqrt_ps(sinew__apart8(&dx, &dy));
    const __m256 clamped = sinew__clamp8(d, lo, hi);
    const __m256 q = _mm256_max_ps(_mm256_mul_ps(d, _mm256_add_ps(e->wi, e->wj)), _mm256_set1_ps(SINEW__TINY));
    const __m256 s = _mm256_div_ps(_mm256_sub_ps(d, clamped), q);
    const __m256 si = _mm256_mul_ps(e->wi, s), sj = _mm256_mul_ps(e->wj, s);
    e->xi = _mm256_add_ps(e->xi, _mm256_mul_ps(si, dx));
    e->yi = _mm256_add_ps(e->yi, _mm256_mul_ps(si, dy));
    e->xj = _mm256_sub_ps(e->xj, _mm256_mul_ps(sj, dx));
    e->yj = _mm256_sub_ps(e->yj, _mm256_mul_ps(sj, dy));
}

// A run: link l joins i0 + l and i0 + off + l, |off| >= 8 (a cloth's vertical links): plain loads
// and stores of two disjoint stretches.
SINEW__AVX2 static void project_run_avx2(const sinew__distance *restrict c, float *restrict x, float *restrict y,
                                         const float *restrict w)
{
    __m256i i, j;
    __m256 lo, hi;
    sinew__links_load8(c, &i, &j, &lo, &hi);
    const int32_t a = c[0].i, b = c[0].j;
    ends8 e = {_mm256_loadu_ps(x + a), _mm256_loadu_ps(y + a), _mm256_loadu_ps(w + a),
               _mm256_loadu_ps(x + b), _mm256_loadu_ps(y + b), _mm256_loadu_ps(w + b)};
    solve8(&e, lo, hi);
    _mm256_storeu_ps(x + a, e.xi);
    _mm256_storeu_ps(y + a, e.yi);
    _mm256_storeu_ps(x + b, e.xj);
    _mm256_storeu_ps(y + b, e.yj);
}

// Pairs: link l joins i0 + 2l and i0 + 2l + 1 (a rope's or a cloth row's links of one parity):
// sixteen consecutive particles, loaded as two vectors each and split into even and odd lanes.
SINEW__AVX2 static inline __attribute__((always_inline)) void split8(const float *p, __m256 *even, __m256 *odd)
{
    const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + SINEW__LANES);
    *even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xd8));
    *odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xdd)), 0xd8));
}

SINEW__AVX2 static inline __attribute__((always_inline)) void join8(float *p, __m256 even, __m256 odd)
{
    const __m256 lo = _mm256_unpacklo_ps(even, odd), hi = _mm256_unpackhi_ps(even, odd);
    _mm256_storeu_ps(p, _mm256_permute2f128_ps(lo, hi, 0x20));
    _mm256_storeu_ps(p + SINEW__LANES, _mm256_permute2f128_ps(lo, hi, 0x31));
}

SINEW__AVX2 static void project_pairs_avx2(const sinew__distance *restrict c, float *restrict x, float *restrict y,
                                           const float *restrict w)
{
    __m256i i, j;
    __m256 lo, hi;
    sinew__links_load8(c, &i, &j, &lo, &hi);
    const int32_t a = c[0].i;
    ends8 e;
    split8(x + a, &e.xi, &e.xj);
    split8(y + a, &e.yi, &e.yj);
    split8(w + a, &e.wi, &e.wj);
    solve8(&e, lo, hi);
    join8(x + a, e.xi, e.xj);
    join8(y + a, e.yi, e.yj);
}

// project_block for rigid links (stiffness 1, compliance 0) in AVX2 registers, over `blocks`
// consecutive free blocks that share no movable particle (1, or 2 when paired), loading the ends'
// positions one by one (any layout; see sinew__links_gather8), and their weights with the gather
// instruction, unless every end weighs one_w (uniform). (Weights loaded one by one too made the
// compiler keep sixteen more addresses on the stack, and the pile's blocks 11% slower.) Two blocks
// together keep two chains of square roots and divisions in flight where one block's wait for its
// loads, then its roots, then its stores: the 10,000-ball pile at 8 x 4 ran 11% faster (four
// blocks: 5%, their vectors no longer fit the registers).
// `packed`: the positions are the pairs of sinew__particles.xy (x = xy, y = xy + 1), each end
// loaded and stored with one 8-byte access instead of two 4-byte ones (in the 10,000-ball pile
// the blocks took 0.54 to 0.70 of the time in a throwaway benchmark of its sweeps, 2026-11-28).
// Lanes [lane_a, lane_b) are written back: all eight of every block, or one block's run (see
// project_lanes_avx2).
SINEW__AVX2 static inline __attribute__((always_inline)) void project_blocks_avx2(const sinew__distance *restrict c,
                                                                                 float *restrict x, float *restrict y,
                                                                                 const float *restrict w, bool uniform,
                                                                                 float one_w, const int blocks,
                                                                                 const bool packed, const int lane_a,
                                                                                 const int lane_b)
{
    ends8 e[2];
    __m256 lo[2], hi[2];
    const __m256 same = _mm256_set1_ps(one_w);
    for (int k = 0; k < blocks; ++k) {
        const sinew__distance *cb = c + k * SINEW__LANES;
        __m256i i, j;
        sinew__links_load8(cb, &i, &j, &lo[k], &hi[k]);
        e[k].wi = uniform ? same : _mm256_i32gather_ps(w, i, 4);
        e[k].wj = uniform ? same : _mm256_i32gather_ps(w, j, 4);
        if (packed) {
            sinew__links_gather8_xy(x, cb, false, &e[k].xi, &e[k].yi);
            sinew__links_gather8_xy(x, cb, true, &e[k].xj, &e[k].yj);
        } else {
            e[k].xi = sinew__links_gather8(x, cb, false);
            e[k].yi = sinew__links_gather8(y, cb, false);
            e[k].xj = sinew__links_gather8(x, cb, true);
            e[k].yj = sinew__links_gather8(y, cb, true);
        }
    }
    for (int k = 0; k < blocks; ++k) {
        solve8(&e[k], lo[k], hi[k]);
    }
    if (lane_a != 0 || lane_b != SINEW__LANES) { // one block's run (see project_lanes_avx2): its lanes alone
        float out[4][SINEW__LANES];
        _mm256_storeu_ps(out[0], e[0].xi);
        _mm256_storeu_ps(out[1], e[0].yi);
        _mm256_storeu_ps(out[2], e[0].xj);
        _mm256_storeu_ps(out[3], e[0].yj);
        const int stride = packed ? 2 : 1;
        for (int l = lane_a; l < lane_b; ++l) {
            x[stride * c[l].i] = out[0][l];
            y[stride * c[l].i] = out[1][l];
            x[stride * c[l].j] = out[2][l];
            y[stride * c[l].j] = out[3][l];
        }
        return;
    }
    for (int k = 0; k < blocks; ++k) {
        const sinew__distance *cb = c + k * SINEW__LANES;
        // No movable particle twice in the blocks; an immovable one keeps its value (w s dx = 0).
        if (packed) {
            sinew__links_scatter8_xy(x, cb, false, e[k].xi, e[k].yi);
            sinew__links_scatter8_xy(x, cb, true, e[k].xj, e[k].yj);
            continue;
        }
        float out[4][SINEW__LANES];
        _mm256_storeu_ps(out[0], e[k].xi);
        _mm256_storeu_ps(out[1], e[k].yi);
        _mm256_storeu_ps(out[2], e[k].xj);
        _mm256_storeu_ps(out[3], e[k].yj);
        for (int l = 0; l < SINEW__LANES; ++l) {
            x[cb[l].i] = out[0][l];
            y[cb[l].i] = out[1][l];
            x[cb[l].j] = out[2][l];
            y[cb[l].j] = out[3][l];
        }
    }
}

// The run [a, b) of a shared block (see sinew__block_runs) through project_blocks_avx2: all eight
// lanes are loaded and solved, and the run's lanes alone written back. The same bits as
// project_one link after link.
SINEW__AVX2 static void project_lanes_avx2(const sinew__distance *restrict c, float *restrict x, float *restrict y,
                                           const float *restrict w, bool uniform, float one_w, bool packed, int a,
                                           int b)
{
    if (packed) {
        project_blocks_avx2(c, x, x + 1, w, uniform, one_w, 1, true, a, b);
    } else {
        project_blocks_avx2(c, x, y, w, uniform, one_w, 1, false, a, b);
    }
}

SINEW__AVX2 static void project_block_avx2(const sinew__distance *restrict c, float *restrict x, float *restrict y,
                                           const float *restrict w, bool uniform, float one_w)
{
    project_blocks_avx2(c, x, y, w, uniform, one_w, 1, false, 0, SINEW__LANES);
}

SINEW__AVX2 static void project_two_avx2(const sinew__distance *restrict c, float *restrict x, float *restrict y,
                                         const float *restrict w, bool uniform, float one_w)
{
    project_blocks_avx2(c, x, y, w, uniform, one_w, 2, false, 0, SINEW__LANES);
}

SINEW__AVX2 static void project_block_xy_avx2(const sinew__distance *restrict c, float *restrict xy,
                                              const float *restrict w, bool uniform, float one_w)
{
    project_blocks_avx2(c, xy, xy + 1, w, uniform, one_w, 1, true, 0, SINEW__LANES);
}

SINEW__AVX2 static void project_two_xy_avx2(const sinew__distance *restrict c, float *restrict xy,
                                            const float *restrict w, bool uniform, float one_w)
{
    project_blocks_avx2(c, xy, xy + 1, w, uniform, one_w, 2, true, 0, SINEW__LANES);
}
#endif

// One free block: the AVX2 kernel for rigid links where it may run, by the block's layout.
// `packed` (only ever with AVX2, for contacts: rigid, and free or paired): x is xy.
SINEW_FORCE_INLINE void project_free_block(const sinew__distance *restrict c, const sinew__softness *restrict f,
                                           float *restrict lambda, float *restrict x, float *restrict y,
                                           const float *restrict w, float inv_h2, bool soft, bool avx2, uint8_t kind,
                                           const sinew__links *l, bool packed)
{
#if SINEW__X86
    if (packed) {
        project_block_xy_avx2(c, x, w, l->one_weight, l->one_w);
        return;
    }
    if (avx2 && !soft) {
        if (kind == SINEW__BLOCK_RUN) {
            project_run_avx2(c, x, y, w);
        } else if (kind == SINEW__BLOCK_PAIRS) {
            project_pairs_avx2(c, x, y, w);
        } else {
            project_block_avx2(c, x, y, w, l->one_weight, l->one_w);
        }
        return;
    }
#endif
    (void)avx2;
    (void)kind;
    (void)l;
    (void)packed;
    project_block(c, f, lambda, x, y, w, inv_h2, soft);
}

#if SINEW__X86
// The run [a, b) of a full rigid block without an immovable end (see sinew__block_runs): one link
// alone, or two or more through the block kernel.
SINEW_FORCE_INLINE void project_run(const sinew__links *d, int first, float *restrict x, float *restrict y,
                                    const float *restrict w, float inv_h2, bool packed, int a, int b)
{
    if (b - a == 1) {
        project_one(&d->c[first + a], NULL, NULL, x, y, w, inv_h2, false, packed ? 2 : 1, false);
    } else {
        project_lanes_avx2(&d->c[first], x, y, w, d->one_weight, d->one_w, packed, a, b);
    }
}
#endif

// A block whose links share a movable particle, in the sweep's direction: link after link, or, for
// full rigid blocks without an immovable end on AVX2, run after run (sinew__block_runs), the runs
// of two links or more through the block kernel. The same bits either way. In the 10,000-ball pile
// at 8 x 4 about nine such blocks a sweep, where one colour ends and the next begins, cost 233
// cycles each link after link on one worker and 575 at two, where they run on one thread.
SINEW_FORCE_INLINE void project_shared_block(const sinew__links *d, int first, const sinew__softness *restrict f,
                                             float *restrict lambda, float *restrict x, float *restrict y,
                                             const float *restrict w, float inv_h2, bool soft, bool avx2, bool packed,
                                             bool backward)
{
    const sinew__distance *restrict c = d->c;
    const int stride = packed ? 2 : 1;
    const bool fixed = (d->block_free[first / SINEW__LANES] & SINEW__BLOCK_FIXED) != 0;
    const int end = first + SINEW__LANES <= d->count ? first + SINEW__LANES : d->count;
#if SINEW__X86
    if (avx2 && !soft && !fixed && end - first == SINEW__LANES) {
        const unsigned starts = sinew__block_runs(&c[first]);
        if (backward) {
            for (int b = SINEW__LANES, a; b > 0; b = a) {
                a = sinew__run_start(starts, b);
                project_run(d, first, x, y, w, inv_h2, packed, a, b);
            }
        } else {
            for (int a = 0, b; a < SINEW__LANES; a = b) {
                b = sinew__run_end(starts, a);
                project_run(d, first, x, y, w, inv_h2, packed, a, b);
            }
        }
        return;
    }
#endif
    (void)avx2;
    if (backward) {
        for (int k = end - 1; k >= first; --k) {
            project_one(&c[k], SOFT_AT(f, k), SOFT_AT(lambda, k), x, y, w, inv_h2, soft, stride, fixed);
        }
    } else {
        for (int k = first; k < end; ++k) {
            project_one(&c[k], SOFT_AT(f, k), SOFT_AT(lambda, k), x, y, w, inv_h2, soft, stride, fixed);
        }
    }
}

// Blocks [b0, b1) of one Gauss-Seidel sweep, forward or backward, specialised at compile time on
// the XPBD flag and on `packed`: the contacts' sweeps read and write the positions in pairs while
// the particles hold them so (sinew__particles.xy).
SINEW_FORCE_INLINE void sweep_blocks_of(sinew_world *world, sinew__links *d, int b0, int b1, float inv_h2,
                                        bool backward, bool soft, bool packed)
{
    float *restrict x = packed ? world->particles.xy : world->particles.x;
    float *restrict y = packed ? world->particles.xy + 1 : world->particles.y;
    const float *restrict w = world->particles.w;
    const sinew__distance *restrict c = d->c;
    const sinew__softness *restrict f = d->soft;
    float *restrict lambda = d->lambda;
    const uint8_t *restrict block_free = d->block_free;
    const bool avx2 = world->avx2;
    if (backward) {
        for (int b = b1 - 1; b >= b0; --b) {
            const int first = b * SINEW__LANES;
            if (sinew__block_together(block_free[b])) {
                project_free_block(&c[first], SOFT_AT(f, first), SOFT_AT(lambda, first), x, y, w, inv_h2, soft, avx2,
                                   block_free[b], d, packed);
                continue;
            }
            project_shared_block(d, first, f, lambda, x, y, w, inv_h2, soft, avx2, packed, true);
        }
    } else {
        for (int b = b0; b < b1; ++b) {
            const int first = b * SINEW__LANES;
#if SINEW__X86
            if (avx2 && !soft && block_free[b] == SINEW__BLOCK_FREE_PAIRED && b + 1 < b1) {
                if (packed) {
                    project_two_xy_avx2(&c[first], x, w, d->one_weight, d->one_w);
                } else {
                    project_two_avx2(&c[first], x, y, w, d->one_weight, d->one_w);
                }
                ++b; // (both taken)
                continue;
            }
#endif
            if (sinew__block_together(block_free[b])) {
                project_free_block(&c[first], SOFT_AT(f, first), SOFT_AT(lambda, first), x, y, w, inv_h2, soft, avx2,
                                   block_free[b], d, packed);
                continue;
            }
            project_shared_block(d, first, f, lambda, x, y, w, inv_h2, soft, avx2, packed, false);
        }
    }
}

SINEW_FORCE_INLINE void sweep_blocks(sinew_world *world, sinew__links *d, int b0, int b1, float inv_h2, bool backward,
                                     bool soft)
{
    if (!soft && world->particles.xy != NULL && d == &world->contacts.l) {
        sweep_blocks_of(world, d, b0, b1, inv_h2, backward, false, true);
    } else {
        sweep_blocks_of(world, d, b0, b1, inv_h2, backward, soft, false);
    }
}

// A span's blocks as a task (see sinew__links_sweep_spans): they share no movable particle with
// one another, so any split of them across workers gives the sequential sweep's result.
typedef struct span_task {
    sinew_world *world;
    sinew__links *links;
    float inv_h2;
    bool backward;
} span_task;

static void span_task_rigid(int start, int end, int worker, void *context)
{
    (void)worker;
    const sinew__span_sweep *s = context;
    const span_task *t = s->context;
    sweep_blocks(t->world, t->links, s->first + start, s->first + end, t->inv_h2, t->backward, false);
}

static void span_task_soft(int start, int end, int worker, void *context)
{
    (void)worker;
    const sinew__span_sweep *s = context;
    const span_task *t = s->context;
    sweep_blocks(t->world, t->links, s->first + start, s->first + end, t->inv_h2, t->backward, true);
}

#define SPAN_MIN_BLOCKS 32 // blocks a task takes at least (sinew__min_range)
// A span of distance links is split over the workers from this many blocks on; a shorter one runs
// inline. Each split span ends in a barrier, about a microsecond at two workers. Measured on an
// Intel Xeon (family 6, model 207, 2 vCPUs, KVM), two workers: with spans split from 64 blocks on,
// a 40 x 40 Gauss-Seidel cloth (spans of about 95 blocks) stepped 1.15x the time of one worker (7
// alternating pairs, none faster); splitting only spans from 192 blocks on made it 0.84x to 0.90x
// as long (three runs switching every 5 steps in one process), a 48 x 48 cloth (about 140)
// 0.84x to 1.01x, a 56 x 56 cloth (about 190) 1.23x to 1.35x (so its spans must split) and a 64 x
// 64 cloth (about 250) 0.97x to 1.02x. At 160 the four cloths stepped 1.01x, 1.00x, 0.92x and
// 0.81x the time of one worker (11 alternating pairs each). The contacts' spans keep splitting
// from 64 blocks on: their blocks cost more, and splitting from 160 made piles of 3,000, 10,000
// and 100,000 balls 1.05x to 1.06x, 1.01x to 1.02x and 1.04x to 1.05x slower.
#define SPAN_SPLIT_BLOCKS 160
// The contacts' spans are found again at every search, and each span of a sweep ends in a barrier:
// a second thread pays for that only when the sweeps are long and many. Contacts spread from
// blocks x sub-steps x iterations of SPREAD_MIN_CONTACT_WORK on. Measured on AMD EPYC (2 vCPUs),
// two workers, alternating runs against a threshold of 32,768 (taken while workers slept between
// jobs): piles at 4 x 1 of 2,000 balls (about 700 contact blocks: 2,800) 14% faster, 3,000 13%,
// 10,000 25%, 20,000 26%, 100,000 (120 steps, falling) 2.5%; a threshold of 1,024 made the
// 1,000-ball pile 2% slower (6 of 6 pairs), and 2,048 leaves it on one thread.
#define SPREAD_MIN_CONTACT_WORK 2048
// And any links from this many blocks on: a rope of 1,000 links (125 blocks) gained nothing from a
// second worker (0.049 / 0.050 ms), a 40 x 40 cloth (about 760 blocks) did (0.187 / 0.172; AMD
// EPYC: on the Intel Xeon of SPAN_SPLIT_BLOCKS it lost, and its spans now run inline).
#define SPREAD_MIN_BLOCKS 256

bool sinew__links_spread(const sinew_world *world, const sinew__links *l)
{
    const int blocks = (l->count + SINEW__LANES - 1) / SINEW__LANES;
    const bool contacts = l == &world->contacts.l;
    const sinew__tasks *t = &world->tasks; // (the minimums shrink with the tests' grain, as every stage's do)
    return t->workers > 1 && blocks >= sinew__min_range(t, SPREAD_MIN_BLOCKS) &&
           blocks >= 2 * sinew__min_range(t, SPAN_MIN_BLOCKS) &&
           (!contacts || (int64_t)blocks * world->solver.substeps * world->solver.iterations >=
                             sinew__min_range(t, SPREAD_MIN_CONTACT_WORK * sinew__tasks_handoff_scale(t)));
}

// Marks make a span: each particle of the current span's blocks holds the span's stamp, so a block
// that finds one of its movable particles stamped starts the next span. A stale mark that happens
// to equal the stamp only starts a span early (still a valid cut), never lets two blocks that share
// a particle into one span.
void sinew__links_spans(const sinew_world *world, sinew__links *l, uint32_t *mark, int from)
{
    const int n = l->count, blocks = (n + SINEW__LANES - 1) / SINEW__LANES;
    const float *w = world->particles.w;
    int b = from / SINEW__LANES;
    uint32_t stamp;
    if (!l->spans_valid || b == 0 || l->span_count == 0) {
        memset(mark, 0, sizeof(uint32_t) * (size_t)world->particles.count);
        stamp = 1u;
        b = 0;
        l->span_count = blocks > 0 ? 1 : 0;
        l->span[0] = 0u;
    } else {
        // Links were added from `from` on: the spans before the one holding block b stand; that one
        // is marked again, up to b, with a stamp of its own, and the scan goes on from b.
        int s = l->span_count - 1;
        while (s > 0 && (int)l->span[s] > b) {
            s -= 1;
        }
        stamp = l->span_stamp + 1u;
        for (int k = (int)l->span[s] * SINEW__LANES; k < b * SINEW__LANES; ++k) {
            mark[l->c[k].i] = stamp;
            mark[l->c[k].j] = stamp;
        }
        l->span_count = s + 1;
    }
    for (; b < blocks; ++b) {
        const int first = b * SINEW__LANES, end = first + SINEW__LANES <= n ? first + SINEW__LANES : n;
        bool shared = false;
        for (int k = first; k < end && !shared; ++k) {
            const int i = l->c[k].i, j = l->c[k].j;
            shared = (w[i] > 0.0f && mark[i] == stamp) || (w[j] > 0.0f && mark[j] == stamp);
        }
        if (shared) {
            stamp += 1u;
            l->span[l->span_count++] = (uint32_t)b;
        }
        for (int k = first; k < end; ++k) {
            mark[l->c[k].i] = stamp;
            mark[l->c[k].j] = stamp;
        }
    }
    sinew__links_end_spans(l, stamp);
}

void sinew__links_end_spans(sinew__links *l, uint32_t stamp)
{
    l->span[l->span_count] = (uint32_t)((l->count + SINEW__LANES - 1) / SINEW__LANES);
    l->span_stamp = stamp;
    l->spans_valid = true;
    int widest = 0;
    for (int s = 0; s < l->span_count; ++s) {
        const int length = (int)(l->span[s + 1] - l->span[s]);
        widest = length > widest ? length : widest;
    }
    l->span_widest = widest;
}

// The fewest blocks a span of l must hold to be split over the workers (see SPAN_SPLIT_BLOCKS), the
// engine's times the hand-off's scale (tasks.h).
static int span_split_blocks(const sinew_world *world, const sinew__links *l)
{
    const sinew__tasks *t = &world->tasks;
    const int scale = sinew__tasks_handoff_scale(t);
    const int pair = 2 * sinew__min_range(t, SPAN_MIN_BLOCKS * scale);
    if (l == &world->contacts.l) {
        return pair;
    }
    const int least = sinew__min_range(t, SPAN_SPLIT_BLOCKS * scale);
    return least > pair ? least : pair;
}

bool sinew__links_spans_split(const sinew_world *world, const sinew__links *l)
{
    return l->spans_valid && sinew__links_spread(world, l) && l->span_widest >= span_split_blocks(world, l);
}

void sinew__links_sweep_spans(sinew_world *world, const sinew__links *l, bool backward, sinew_task_fn *fn,
                              sinew__span_sweep *s)
{
    const int split = span_split_blocks(world, l);
    for (int m = 0; m < l->span_count; ++m) {
        const int k = backward ? l->span_count - 1 - m : m;
        s->first = (int)l->span[k];
        const int blocks = (int)l->span[k + 1] - s->first;
        if (blocks < split) {
            fn(0, blocks, 0, s);
        } else {
            sinew__parallel_for(&world->tasks, fn, blocks, sinew__min_range(&world->tasks, SPAN_MIN_BLOCKS), s);
        }
    }
}

// One Gauss-Seidel sweep. With workers and spans, span after span (in the sweep's direction), each
// span's blocks spread over the workers.
SINEW_FORCE_INLINE void project_sweep(sinew_world *world, sinew__links *d, float inv_h2, bool backward, bool shuffled,
                                      bool soft)
{
    const int n = d->count;
    const int blocks = (n + SINEW__LANES - 1) / SINEW__LANES;
    if (shuffled) {
        float *restrict x = world->particles.x, *restrict y = world->particles.y;
        const float *restrict w = world->particles.w;
        const uint32_t *restrict perm = d->perm;
        for (int k = 0; k < n; ++k) {
            uint32_t m = perm[backward ? n - 1 - k : k];
            project_one(&d->c[m], SOFT_AT(d->soft, m), SOFT_AT(d->lambda, m), x, y, w, inv_h2, soft, 1, false);
        }
    } else if (sinew__links_spans_split(world, d)) {
        span_task t = {world, d, inv_h2, backward};
        sinew__span_sweep s = {0, &t};
        sinew__links_sweep_spans(world, d, backward, soft ? span_task_soft : span_task_rigid, &s);
    } else {
        sweep_blocks(world, d, 0, blocks, inv_h2, backward, soft);
    }
}

void sinew__links_project(sinew_world *world, sinew__links *l, float inv_h2, bool backward, bool shuffled)
{
    if (sinew__links_soft(l)) {
        project_sweep(world, l, inv_h2, backward, shuffled, true);
    } else {
        project_sweep(world, l, inv_h2, backward, shuffled, false);
    }
}

// Both ends get the same factor omega / max(n_i, n_j), so the two corrections stay equal and
// opposite (weighted): momentum is conserved, which per-particle averaging does not do.
SINEW_FORCE_INLINE float jacobi_factor(const float *restrict inv_n, int i, int j, float omega)
{
    float inv = inv_n[i] < inv_n[j] ? inv_n[i] : inv_n[j];
    return omega * inv;
}

// Adds (vx, vy) to particle p's sum, or (held) puts them in e's next slot.
SINEW_FORCE_INLINE void add_sum(sinew__jacobi_sum *restrict acc, int p, float vx, float vy, sinew__ends *e, bool held)
{
    if (held) {
        float *v = sinew__ends_take(e);
        v[0] = vx;
        v[1] = vy;
    } else {
        acc[p].dx += (double)vx;
        acc[p].dy += (double)vy;
    }
}

// Subtracting a value is adding its negation, to the bit: the j end adds -(wj f dx).
SINEW_FORCE_INLINE void accumulate_one(sinew__jacobi_sum *restrict acc, const float *restrict inv_n, int i, int j,
                                       float wi, float wj, float s, float dx, float dy, float omega, sinew__ends *e,
                                       unsigned held, int lane)
{
    float f = jacobi_factor(inv_n, i, j, omega) * s;
    add_sum(acc, i, wi * f * dx, wi * f * dy, e, sinew__ends_held(held, lane, false));
    add_sum(acc, j, -(wj * f * dx), -(wj * f * dy), e, sinew__ends_held(held, lane, true));
}

// Jacobi reads positions it does not write, so every full block goes through the block path,
// shared particles or not. Rigid links [from, to) (from a multiple of SINEW__LANES: the AVX2 path
// took the full blocks before it; to a multiple of it, or the count).
SINEW_FORCE_INLINE void accumulate_all(sinew_world *world, const sinew__links *d, float omega, int from, int to,
                                       sinew__ends *e)
{
    const float *restrict x = world->particles.x, *restrict y = world->particles.y;
    const float *restrict w = world->particles.w;
    sinew__jacobi_sum *restrict acc = world->particles.acc;
    const float *restrict inv_n = world->particles.inv_n;
    const sinew__distance *restrict c = d->c;
    const int full = from + (to - from) / SINEW__LANES * SINEW__LANES;
    for (int first = from; first < full; first += SINEW__LANES) {
        const unsigned held = sinew__ends_block(e, first / SINEW__LANES);
        block b;
        block_solve(&b, &c[first], NULL, NULL, x, y, w, 0.0f, false); // (rigid: no softness, lambda or inv_h2)
        for (int l = 0; l < SINEW__LANES; ++l) {
            accumulate_one(acc, inv_n, b.i[l], b.j[l], b.wi[l], b.wj[l], b.s[l], b.dx[l], b.dy[l], omega, e, held, l);
        }
    }
    for (int k = full; k < to; ++k) {
        const int i = c[k].i, j = c[k].j;
        float dx = x[j] - x[i], dy = y[j] - y[i];
        const float d2 = sinew__apart(&dx, &dy);
        const float wi = w[i], wj = w[j];
        const float s = scale_of(&c[k], NULL, NULL, d2, wi, wj, 0.0f, false);
        accumulate_one(acc, inv_n, i, j, wi, wj, s, dx, dy, omega, e, sinew__ends_block(e, k / SINEW__LANES),
                       k % SINEW__LANES);
    }
}

#if SINEW__X86
// The eight links' xj - xi and yj - yi (Jacobi's passes: positions only read), from the pairs
// while the particles hold them (sinew__particles.xy), else from x and y.
SINEW__AVX2 static inline __attribute__((always_inline)) void differences8(const sinew__particles *p,
                                                                          const sinew__distance *cb, __m256 *dx,
                                                                          __m256 *dy)
{
    if (p->xy != NULL) {
        __m256 xi, yi, xj, yj;
        sinew__links_gather8_xy(p->xy, cb, false, &xi, &yi);
        sinew__links_gather8_xy(p->xy, cb, true, &xj, &yj);
        *dx = _mm256_sub_ps(xj, xi);
        *dy = _mm256_sub_ps(yj, yi);
        return;
    }
    *dx = _mm256_sub_ps(sinew__links_gather8(p->x, cb, true), sinew__links_gather8(p->x, cb, false));
    *dy = _mm256_sub_ps(sinew__links_gather8(p->y, cb, true), sinew__links_gather8(p->y, cb, false));
}

// One block's corrections for accumulate_rigid_avx2: the i ends' (ix, iy) and the j ends' (jx,
// jy), each lane's to be added to (i) or subtracted from (j) its end's sums. The weights are
// broadcast when every end weighs one_w (a pile of one kind of ball), as in the projection.
typedef struct accumulate8 {
    float ix[SINEW__LANES], iy[SINEW__LANES], jx[SINEW__LANES], jy[SINEW__LANES];
} accumulate8;

SINEW__AVX2 static inline __attribute__((always_inline)) void accumulate_block_avx2(const sinew_world *world,
                                                                                   const sinew__links *d,
                                                                                   const sinew__distance *cb, __m256 om,
                                                                                   accumulate8 *out)
{
    const float *restrict w = world->particles.w, *restrict inv_n = world->particles.inv_n;
    __m256i vi, vj;
    __m256 lo, hi;
    sinew__links_load8(cb, &vi, &vj, &lo, &hi);
    const __m256 same = _mm256_set1_ps(d->one_w);
    const __m256 wi = d->one_weight ? same : sinew__links_gather8(w, cb, false);
    const __m256 wj = d->one_weight ? same : sinew__links_gather8(w, cb, true);
    __m256 dx, dy;
    differences8(&world->particles, cb, &dx, &dy);
    const __m256 dist = _mm256_sqrt_ps(sinew__apart8(&dx, &dy));
    const __m256 q = _mm256_max_ps(_mm256_mul_ps(dist, _mm256_add_ps(wi, wj)), _mm256_set1_ps(SINEW__TINY));
    const __m256 s = _mm256_div_ps(_mm256_sub_ps(dist, sinew__clamp8(dist, lo, hi)), q);
    // jacobi_factor: omega * (n_i < n_j ? n_i : n_j), which is what min_ps selects.
    const __m256 inv = _mm256_min_ps(sinew__links_gather8(inv_n, cb, false), sinew__links_gather8(inv_n, cb, true));
    const __m256 f = _mm256_mul_ps(_mm256_mul_ps(om, inv), s);
    const __m256 fi = _mm256_mul_ps(wi, f), fj = _mm256_mul_ps(wj, f);
    _mm256_storeu_ps(out->ix, _mm256_mul_ps(fi, dx));
    _mm256_storeu_ps(out->iy, _mm256_mul_ps(fi, dy));
    _mm256_storeu_ps(out->jx, _mm256_mul_ps(fj, dx));
    _mm256_storeu_ps(out->jy, _mm256_mul_ps(fj, dy));
}

// A block's corrections added to its ends' sums, in lane order (or held, as e says).
SINEW_FORCE_INLINE void accumulate_write(sinew__jacobi_sum *restrict acc, const sinew__distance *cb, const accumulate8 *a,
                                         sinew__ends *e, unsigned held)
{
    if (held == 0u) {
        for (int l = 0; l < SINEW__LANES; ++l) {
            const int i = cb[l].i, j = cb[l].j;
            acc[i].dx += (double)a->ix[l];
            acc[i].dy += (double)a->iy[l];
            acc[j].dx -= (double)a->jx[l];
            acc[j].dy -= (double)a->jy[l];
        }
        return;
    }
    for (int l = 0; l < SINEW__LANES; ++l) {
        add_sum(acc, cb[l].i, a->ix[l], a->iy[l], e, sinew__ends_held(held, l, false));
        add_sum(acc, cb[l].j, -a->jx[l], -a->jy[l], e, sinew__ends_held(held, l, true));
    }
}

// accumulate_all's full blocks of rigid links in AVX2 registers, two blocks at a time (both
// computed before either is added, so that their chains of loads, roots and divisions overlap:
// positions are only read here). The ends are loaded one by one into vectors, then the eight
// corrections (solve8's scale, then accumulate_one's factor and products) with the same IEEE
// operations in the same order; the double sums are added lane by lane, in the portable order, so
// the same bits. Links [from, to) (from a multiple of SINEW__LANES); returns where its partial
// block starts.
SINEW__AVX2 static int accumulate_rigid_avx2(sinew_world *world, const sinew__links *d, float omega, int from, int to,
                                             sinew__ends *e)
{
    sinew__jacobi_sum *restrict acc = world->particles.acc;
    const sinew__distance *restrict c = d->c;
    const int full = from + (to - from) / SINEW__LANES * SINEW__LANES;
    const __m256 om = _mm256_set1_ps(omega);
    int first = from;
    for (; first + 2 * SINEW__LANES <= full; first += 2 * SINEW__LANES) {
        accumulate8 a, b;
        accumulate_block_avx2(world, d, &c[first], om, &a);
        accumulate_block_avx2(world, d, &c[first + SINEW__LANES], om, &b);
        accumulate_write(acc, &c[first], &a, e, sinew__ends_block(e, first / SINEW__LANES));
        accumulate_write(acc, &c[first + SINEW__LANES], &b, e, sinew__ends_block(e, first / SINEW__LANES + 1));
    }
    if (first < full) {
        accumulate8 a;
        accumulate_block_avx2(world, d, &c[first], om, &a);
        accumulate_write(acc, &c[first], &a, e, sinew__ends_block(e, first / SINEW__LANES));
    }
    return full;
}

// sinew__links_count_active_range's full blocks in AVX2: the eight tests at once (the same squares and
// comparisons), then each link's 1 or 0 added to both ends, in link order (no branch: in a pile
// whether a contact is active is a coin flip). Links [from, to) (from a multiple of
// SINEW__LANES); returns where its partial block starts.
SINEW__AVX2 static int count_active_avx2(sinew_world *world, const sinew__links *d, int from, int to, sinew__ends *e)
{
    float *restrict n = world->particles.inv_n;
    const sinew__distance *restrict c = d->c;
    const int full = from + (to - from) / SINEW__LANES * SINEW__LANES;
    for (int first = from; first < full; first += SINEW__LANES) {
        const sinew__distance *cb = &c[first];
        __m256i vi, vj;
        __m256 lo, hi;
        sinew__links_load8(cb, &vi, &vj, &lo, &hi);
        __m256 dx, dy;
        differences8(&world->particles, cb, &dx, &dy);
        const __m256 d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
        const __m256 active = _mm256_or_ps(_mm256_cmp_ps(d2, _mm256_mul_ps(lo, lo), _CMP_LT_OQ),
                                           _mm256_cmp_ps(d2, _mm256_mul_ps(hi, hi), _CMP_GT_OQ));
        float a[SINEW__LANES];
        _mm256_storeu_ps(a, _mm256_and_ps(active, _mm256_set1_ps(1.0f)));
        sinew__ends_count8(n, cb, a, e, sinew__ends_block(e, first / SINEW__LANES));
    }
    return full;
}
#endif

void sinew__links_accumulate_range(sinew_world *world, const sinew__links *l, float omega, int from, int to, sinew__ends *e)
{
#if SINEW__X86
    if (world->avx2) {
        from = accumulate_rigid_avx2(world, l, omega, from, to, e);
    }
#endif
    accumulate_all(world, l, omega, from, to, e); // (AVX2: the partial block)
}

void sinew__links_count_active_range(sinew_world *world, const sinew__links *d, int from, int to, sinew__ends *e)
{
    const float *restrict x = world->particles.x, *restrict y = world->particles.y;
    float *restrict n = world->particles.inv_n;
    const sinew__distance *restrict c = d->c;
    int k = from;
#if SINEW__X86
    if (world->avx2) {
        k = count_active_avx2(world, d, from, to, e);
    }
#endif
    for (; k < to; ++k) {
        const int i = c[k].i, j = c[k].j;
        const float active = sinew__active_of(c[k].lo, c[k].hi, x[j] - x[i], y[j] - y[i]);
        const unsigned held = sinew__ends_block(e, k / SINEW__LANES);
        sinew__ends_count(n, i, active, e, sinew__ends_held(held, k % SINEW__LANES, false));
        sinew__ends_count(n, j, active, e, sinew__ends_held(held, k % SINEW__LANES, true));
    }
}

// The error statistics keep SINEW__LANES partial results, link k in lane k % SINEW__LANES, and
// combine them in lane order: the same numbers on both paths, and no long chain of double additions.
#if SINEW__X86
SINEW__AVX2 static int links_error_avx2(const sinew__distance *c, int blocks, const float *x, const float *y, float beyond,
                                        float mx[SINEW__LANES], double sq[SINEW__LANES])
{
    int above = 0;
    const __m256 limit = _mm256_set1_ps(beyond);
    __m256 most = _mm256_loadu_ps(mx);
    __m256d sq_lo = _mm256_loadu_pd(sq), sq_hi = _mm256_loadu_pd(sq + 4);
    const __m256 sign = _mm256_set1_ps(-0.0f);
    for (int b = 0; b < blocks; ++b) {
        __m256i i, j;
        __m256 lo, hi;
        const sinew__distance *cb = &c[b * SINEW__LANES];
        sinew__links_load8(cb, &i, &j, &lo, &hi);
        const __m256 dx = _mm256_sub_ps(sinew__links_gather8(x, cb, true), sinew__links_gather8(x, cb, false));
        const __m256 dy = _mm256_sub_ps(sinew__links_gather8(y, cb, true), sinew__links_gather8(y, cb, false));
        const __m256 d = _mm256_sqrt_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)));
        const __m256 e = _mm256_andnot_ps(sign, _mm256_sub_ps(d, sinew__clamp8(d, lo, hi)));
        most = _mm256_blendv_ps(most, e, _mm256_cmp_ps(e, most, _CMP_NLE_UQ)); // !(e <= most): NaN wins
        above += __builtin_popcount((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(e, limit, _CMP_GT_OQ)));
        const __m256d e_lo = _mm256_cvtps_pd(_mm256_castps256_ps128(e)), e_hi = _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1));
        sq_lo = _mm256_add_pd(sq_lo, _mm256_mul_pd(e_lo, e_lo));
        sq_hi = _mm256_add_pd(sq_hi, _mm256_mul_pd(e_hi, e_hi));
    }
    _mm256_storeu_ps(mx, most);
    _mm256_storeu_pd(sq, sq_lo);
    _mm256_storeu_pd(sq + 4, sq_hi);
    return above;
}
#endif

// The statistics in items of ERROR_ITEM_BLOCKS blocks or more (at most ERROR_ITEMS items, fixed by
// the link count alone), each with its own lanes; the items are combined in order, so the numbers
// do not depend on the worker count.
#define ERROR_ITEM_BLOCKS 1024
#define ERROR_ITEMS 64
#define ERROR_MIN_ITEMS 8 // a task's least: under 16 items (131,072 links) the statistics take one thread

typedef struct error_part {
    float mx[SINEW__LANES];
    double sq[SINEW__LANES];
    int above;
} error_part;

typedef struct error_task {
    const sinew_world *world;
    const sinew__links *links;
    float beyond;
    int item_blocks;
    error_part *part;
} error_task;

static void error_items(int start, int end, int worker, void *context)
{
    (void)worker;
    const error_task *t = context;
    const sinew__links *d = t->links;
    const float *x = t->world->particles.x, *y = t->world->particles.y;
    for (int item = start; item < end; ++item) {
        error_part *e = &t->part[item];
        memset(e, 0, sizeof *e);
        const int blocks = (d->count + SINEW__LANES - 1) / SINEW__LANES;
        const int b0 = item * t->item_blocks, b1 = b0 + t->item_blocks < blocks ? b0 + t->item_blocks : blocks;
        const int stop = b1 * SINEW__LANES < d->count ? b1 * SINEW__LANES : d->count; // (the last takes the partial block)
        int k = b0 * SINEW__LANES;
#if SINEW__X86
        if (t->world->avx2) {
            const int full = d->count / SINEW__LANES, vector_end = b1 < full ? b1 : full;
            e->above = links_error_avx2(&d->c[k], vector_end - b0, x, y, t->beyond, e->mx, e->sq);
            k = vector_end * SINEW__LANES;
        }
#endif
        for (; k < stop; ++k) {
            const int l = k % SINEW__LANES;
            const float err = fabsf(sinew__link_error(&d->c[k], x, y));
            e->mx[l] = !(err <= e->mx[l]) ? err : e->mx[l]; // NaN wins: stats never hide one
            e->sq[l] += (double)err * err;
            e->above += err > t->beyond;
        }
    }
}

int sinew__links_error(const sinew_world *world, const sinew__links *d, float beyond, float *max_error, double *sum_sq)
{
    const int blocks = (d->count + SINEW__LANES - 1) / SINEW__LANES;
    const int item_blocks = sinew__item_size(&world->tasks, blocks, ERROR_ITEM_BLOCKS, ERROR_ITEMS);
    const int items = (blocks + item_blocks - 1) / item_blocks;
    error_part part[ERROR_ITEMS];
    error_task t = {world, d, beyond, item_blocks, part};
    sinew__parallel_for(&world->tasks, error_items, items, sinew__min_range(&world->tasks, ERROR_MIN_ITEMS), &t);
    float most = 0.0f;
    double sum = 0.0;
    int above = 0;
    for (int item = 0; item < items; ++item) {
        above += part[item].above;
        for (int l = 0; l < SINEW__LANES; ++l) {
            most = !(part[item].mx[l] <= most) ? part[item].mx[l] : most;
            sum += part[item].sq[l];
        }
    }
    *max_error = most;
    *sum_sq = sum;
    return above;
}
