// Two-particle links with allowed lengths [lo, hi], the storage shared by the distance
// constraints and the particle contacts, and their kernels (links.c). Never installed.
#pragma once

#include "core.h"

// Hot data of a distance constraint: allowed lengths are [lo, hi], so one formula covers the
// three modes (equal: lo = hi = rest; max-only: lo = 0; min-only: hi = +inf).
typedef struct sinew__distance {
    int32_t i, j;
    float lo, hi;
} sinew__distance;

// Stiffness and compliance, read only by the "soft" kernel: while every constraint of the kind is
// rigid (stiffness 1, compliance 0) the solver streams 16 bytes per constraint, not 24.
typedef struct sinew__softness {
    float stiffness, compliance;
} sinew__softness;

// Two-particle links whose length must stay in [lo, hi]: the distance constraints and the
// particle-particle contacts are both stored this way and share the kernels in links.c.
typedef struct sinew__links {
    int count;
    int soft_count;         // how many are not rigid (selects the soft kernel)
    bool keep_lambda;       // run the soft kernel anyway, for the links' forces (distances only)
    sinew__distance *c;
    sinew__softness *soft;
    float *lambda;
    uint32_t *perm;         // shuffle order
    uint8_t *block_free;    // per block of SINEW__LANES links (indexed k / lanes): a sinew__block_kind,
                            // nonzero when the block is full and its links share no movable particle
    // Spans: runs of consecutive blocks that share no movable particle with one another, which
    // workers may sweep in any split: span s is blocks [span[s], span[s + 1]). Per-link capacity.
    uint32_t *span;
    int span_count;
    int span_widest;        // blocks in the longest span (see sinew__links_spans_split)
    uint32_t span_stamp;    // the last span's mark (see sinew__links_spans)
    bool spans_valid;       // for the links as they are now (cleared by any change)
    // Every particle the links join has weight one_w (the contacts of one material): the AVX2
    // block kernel broadcasts it instead of gathering it (distances: never).
    bool one_weight;
    float one_w;
} sinew__links;

// Places first .. first + count - 1 of Jacobi's layout: the links (i + r, i + offset + r) for
// r = 0 .. count - 1, consecutive particles at both ends.
typedef struct sinew__run {
    int32_t first, count, i, offset;
} sinew__run;

// links.c: the kernels every kind stored as links runs (see sinew__links).
#define SINEW__LANES 8
// What a block of links is (sinew__links.block_free): links sharing a movable particle, or free,
// and then how its particles lie, for the AVX2 kernels: anywhere (gathered), a run (link l joins
// i0 + l and i0 + off + l, |off| >= 8), or pairs (link l joins i0 + 2l and i0 + 2l + 1). Free and
// paired: anywhere, and the next block is free and shares no movable particle with this one (the
// contacts' blocks inside one colour), so the AVX2 kernels may take the two together.
// A block of any kind with an immovable end (weight 0) also holds SINEW__BLOCK_FIXED: it is
// projected one link at a time, writing no immovable end, because other blocks of its span (which
// another worker may solve at once) may hold that end too; a block before one is never paired.
enum sinew__block_kind {
    SINEW__BLOCK_SHARED = 0,
    SINEW__BLOCK_FREE = 1,
    SINEW__BLOCK_RUN = 2,
    SINEW__BLOCK_PAIRS = 3,
    SINEW__BLOCK_FREE_PAIRED = 4,
    SINEW__BLOCK_FIXED = 0x80
};
// Whether a block's links may go through a block kernel together (any kind but shared, not fixed).
static inline bool sinew__block_together(uint8_t kind)
{
    return kind != SINEW__BLOCK_SHARED && (kind & SINEW__BLOCK_FIXED) == 0;
}
// The runs of a full block of links that share a movable particle (a contacts' block where one
// colour ends and the next begins): bit l is set when lane l starts a run, bit 0 always. The links
// of a run share no particle, so a block kernel may take them together, and the runs one after
// another are the links one after another, to the bit. (Not for a fixed block: see above.)
static inline unsigned sinew__block_runs(const sinew__distance *c)
{
    unsigned starts = 1u;
    int run = 0;
    for (int l = 1; l < SINEW__LANES; ++l) {
        for (int m = run; m < l; ++m) {
            if (c[m].i == c[l].i || c[m].i == c[l].j || c[m].j == c[l].i || c[m].j == c[l].j) {
                starts |= 1u << l;
                run = l;
                break;
            }
        }
    }
    return starts;
}
// The end of the run of `starts` (sinew__block_runs) that begins at lane a.
static inline int sinew__run_end(unsigned starts, int a)
{
    int b = a + 1;
    while (b < SINEW__LANES && (starts & (1u << b)) == 0u) {
        b += 1;
    }
    return b;
}
// The start of the run of `starts` that ends before lane b (b > 0).
static inline int sinew__run_start(unsigned starts, int b)
{
    int a = b - 1;
    while ((starts & (1u << a)) == 0u) {
        a -= 1;
    }
    return a;
}
// Whether any of the links [first, first + count) has an immovable end (weights w).
bool sinew__links_any_fixed(const sinew__distance *c, int count, const float *w);
void sinew__links_project(sinew_world *world, sinew__links *l, float inv_h2, bool backward, bool shuffled);

// Where a Jacobi pass over part of the contacts puts what it would add to a particle that an
// earlier part also adds to (contact_jacobi.c): such an end is `held`, and its values go to the
// next slot, in the order the pass meets them, to be added once the earlier parts are done. Every
// particle's sum then takes its parts in contact order, as one pass over all of them gives.
typedef struct sinew__ends {
    const uint16_t *held; // per block: bit 2l set when lane l's i end is held, bit 2l + 1 its j end
    float (*slot)[4];     // the next slot
} sinew__ends;
// Lane l's i end (j: its j end) of block b is held (e NULL: none is).
SINEW_FORCE_INLINE unsigned sinew__ends_block(const sinew__ends *e, int b) { return e != NULL ? e->held[b] : 0u; }
SINEW_FORCE_INLINE bool sinew__ends_held(unsigned held, int l, bool j) { return ((held >> (2 * l + (j ? 1 : 0))) & 1u) != 0u; }
// The next slot (its values set by the caller).
SINEW_FORCE_INLINE float *sinew__ends_take(sinew__ends *e) { return *e->slot++; }
// Adds v to particle p's count (Jacobi's inv_n), or (held) puts it in e's next slot.
SINEW_FORCE_INLINE void sinew__ends_count(float *restrict n, int p, float v, sinew__ends *e, bool held)
{
    if (held) {
        sinew__ends_take(e)[0] = v;
    } else {
        n[p] += v;
    }
}
// A block's counts: a[l] to both ends of its link l, in lane order.
SINEW_FORCE_INLINE void sinew__ends_count8(float *restrict n, const sinew__distance *cb, const float *a, sinew__ends *e,
                                           unsigned held)
{
    if (held == 0u) {
        for (int l = 0; l < SINEW__LANES; ++l) {
            n[cb[l].i] += a[l];
            n[cb[l].j] += a[l];
        }
        return;
    }
    for (int l = 0; l < SINEW__LANES; ++l) {
        sinew__ends_count(n, cb[l].i, a[l], e, sinew__ends_held(held, l, false));
        sinew__ends_count(n, cb[l].j, a[l], e, sinew__ends_held(held, l, true));
    }
}
// Jacobi's passes over rigid links [from, to) (from a multiple of SINEW__LANES; to one, or l's
// count), ends held as `e` says (NULL: none): accumulate adds each link's correction, times
// omega / max(n_i, n_j), to both ends' sums (particles.acc); count_active counts into
// particles.inv_n (not yet inverted) the links that will correct each particle this iteration,
// those outside their allowed range. (The particle contacts' passes: contact_jacobi.c.)
void sinew__links_accumulate_range(sinew_world *world, const sinew__links *l, float omega, int from, int to, sinew__ends *e);
void sinew__links_count_active_range(sinew_world *world, const sinew__links *l, int from, int to, sinew__ends *e);
// Largest error and sum of squared errors of l; returns how many errors are above `beyond`.
int sinew__links_error(const sinew_world *world, const sinew__links *l, float beyond, float *max_error, double *sum_sq);
void sinew__links_begin_substep(sinew__links *l);
// Whether Gauss-Seidel's sweeps of l are spread over the workers (more than one, enough blocks for
// two tasks, and for the contacts enough work per search: see links.c): only then are its spans
// found and used.
bool sinew__links_spread(const sinew_world *world, const sinew__links *l);
// Finds the spans of l (mark: a per-particle scratch array, left dirty). With valid spans and
// `from` > 0, links were only added, from place `from` on: only the spans from the one holding
// `from` on are found again.
void sinew__links_spans(const sinew_world *world, sinew__links *l, uint32_t *mark, int from);
// Closes the spans found (span[0 .. span_count - 1] their starts): the end of the last, the last
// span's mark `stamp`, valid, and the longest span's length.
void sinew__links_end_spans(sinew__links *l, uint32_t stamp);
// Whether the sweeps over l go span by span over the workers: its spans are found, it is spread,
// and some span is long enough to be split (else every span would run inline, and one sweep over
// all the blocks does the same work, in the same order, without the spans' overhead).
bool sinew__links_spans_split(const sinew_world *world, const sinew__links *l);
// A sweep over l's blocks as tasks, span after span: fn's items are the blocks of one span from
// `first` on (set before each span's tasks run), `context` the caller's. Blocks of one span share
// no movable particle, so any split of them over the workers gives the sequential sweep's result.
typedef struct sinew__span_sweep {
    int first;
    void *context;
} sinew__span_sweep;
// Runs fn (with s as its context) over the blocks of l's spans (found, and spread: see above), in
// order or, backward, last span first; returns when all ran.
void sinew__links_sweep_spans(sinew_world *world, const sinew__links *l, bool backward, sinew_task_fn *fn,
                              sinew__span_sweep *s);
// Whether the soft kernels run: some link is soft, or lambda is kept for the forces.
static inline bool sinew__links_soft(const sinew__links *l) { return l->soft_count > 0 || l->keep_lambda; }
// True when the SINEW__LANES links from c share no particle that can move (weight > 0).
bool sinew__links_block_is_free(const sinew__distance *c, const float *w);
// Recomputes the block flag of the block holding link k; or of every block.
void sinew__links_refresh_block(const sinew_world *world, sinew__links *l, int k);
void sinew__links_refresh_blocks(const sinew_world *world, sinew__links *l);
// Two ends closer than SINEW__APART (coincident ones included) have no direction to be pushed
// apart along: the link's kernels take (0, SINEW__APART) instead of (xj - xi, yj - yi), so that two
// particles made at one point separate along +y (j up, i down), deterministically. Its square is a
// normal float, so the length computed from it is SINEW__APART again. Returns the squared length
// of the vector the kernel then uses (0 * 0 + SINEW__APART^2 for a coincident pair), computed once.
#define SINEW__APART 1e-15f
SINEW_FORCE_INLINE float sinew__apart(float *dx, float *dy)
{
    const float d2 = *dx * *dx + *dy * *dy, apart2 = SINEW__APART * SINEW__APART;
    const bool together = d2 < apart2;
    *dx = together ? 0.0f : *dx;
    *dy = together ? SINEW__APART : *dy;
    return together ? apart2 : d2;
}

// Length minus the nearest allowed length.
static inline float sinew__link_error(const sinew__distance *c, const float *x, const float *y)
{
    float dx = x[c->j] - x[c->i], dy = y[c->j] - y[c->i];
    float d = sqrtf(dx * dx + dy * dy);
    float clamped = d < c->lo ? c->lo : (d > c->hi ? c->hi : d);
    return d - clamped;
}

// Smallest denominator d (wi + wj + a) used; see sinew__correction_scale.
#define SINEW__TINY 1e-20f

// Scale s of the correction (see the top of links.c) from plain values, so that the scalar
// path and the SIMD lanes run the same arithmetic; updates lambda in the XPBD form.
// d2 is the squared length of the link's vector, from sinew__apart.
SINEW_FORCE_INLINE float sinew__correction_scale(float lo, float hi, float stiffness, float compliance, float *restrict lambda,
                                          float d2, float wij, float inv_h2, bool xpbd)
{
    float d = sqrtf(d2);
    float clamped = d < lo ? lo : (d > hi ? hi : d);
    float num = d - clamped;
    float denom = wij;
    if (xpbd) {
        float a = compliance * inv_h2;
        num += a * *lambda;
        denom += a;
    }
    // Total weight 0 (wij = wi + wj = 0): the clamp keeps s finite and the correction, s dx times a
    // weight, is exactly zero. No branch. (Coincident ends never come here: see sinew__apart.)
    float q = d * denom;
    q = q > SINEW__TINY ? q : SINEW__TINY;
    float s = stiffness * num / q;
    if (xpbd) {
        *lambda -= s * d;
    }
    return s;
}

// 1 when the length of (dx, dy) is outside [lo, hi], else 0: compared squared, no square root.
SINEW_FORCE_INLINE float sinew__active_of(float lo, float hi, float dx, float dy)
{
    const float d2 = dx * dx + dy * dy;
    return ((d2 < lo * lo) | (d2 > hi * hi)) ? 1.0f : 0.0f;
}
