// Internal layout of the world, shared by the engine's source files. Never installed.
#pragma once

#include "sinew/sinew.h"

#define SINEW_MAX_SETTING 1024

// Kernels take compile-time flags (XPBD or not, order); forcing the inlining is what makes each
// call site a specialised loop with no per-constraint branch on the flag.
#if defined(__GNUC__)
#define SINEW_FORCE_INLINE static inline __attribute__((always_inline))
#else
#define SINEW_FORCE_INLINE static inline
#endif

// x86-64 with GCC or Clang: the hottest kernels also exist compiled for AVX2 and BMI2 (functions
// marked SINEW__AVX2), used when the CPU has both (world->avx2). Both paths run the same IEEE
// operations in the same order, with no FMA, so they give the same bits: results do not depend
// on the CPU.
#if defined(__x86_64__) && defined(__GNUC__)
#define SINEW__X86 1
#define SINEW__AVX2 __attribute__((target("avx2,bmi2")))
#else
#define SINEW__X86 0
#endif

// Id pool: maps stable ids {slot + 1, generation} to dense indices of a store.
typedef struct sinew__id_pool {
    void *block;
    size_t block_bytes;
    uint32_t *generation; // per slot
    uint32_t *dense;      // per slot: dense index, or SINEW__FREE_BIT | next free slot
    uint32_t capacity;    // slots allocated
    uint32_t used;        // slots ever handed out
    uint32_t free_head;   // first free slot, or UINT32_MAX
} sinew__id_pool;

#define SINEW__FREE_BIT 0x80000000u

// store.c: a dense store of one kind (see the file). The element count lives with the kind (the
// kernels read it there), so the calls take it.
#define SINEW__MAX_FIELDS 40
typedef struct sinew__store {
    void *block;
    size_t block_bytes;
    int capacity;
    uint32_t *id_slot;   // dense index -> id slot
    sinew__id_pool ids;  // id slot -> dense index, generation
} sinew__store;

// Writes the kind's arrays (not id_slot) into fields[], returns how many.
typedef struct sinew__field sinew__field;
typedef int (*sinew__fields_fn)(void *kind, sinew__field *fields);

// Room for `needed` elements (geometric growth; count are kept) and one more id. On failure
// (CAPACITY, OUT_OF_MEMORY) the store's contents are unchanged.
sinew_status sinew__store_reserve(sinew_world *world, sinew__store *s, void *kind, sinew__fields_fn fields, int count,
                                  int needed);
// Appends an element at index *count (room reserved) and writes its new id.
void sinew__store_push(sinew__store *s, int *count, uint32_t *index1, uint32_t *generation);
// Removes element k: its id stops working, the last element moves into k.
void sinew__store_remove(sinew__store *s, void *kind, sinew__fields_fn fields, int *count, int k);
// Dense index of a live id, or -1.
int sinew__store_lookup(const sinew__store *s, uint32_t index1, uint32_t generation);
// The id of element k.
void sinew__store_id(const sinew__store *s, int k, uint32_t *index1, uint32_t *generation);
void sinew__store_free(sinew_world *world, sinew__store *s);


typedef struct sinew__jacobi_sum {
    double dx, dy; // corrections summed this iteration
} sinew__jacobi_sum;

// What the contact response reads of a particle, packed into one 32-byte record when the
// sub-step is finished (sinew__particles_finish_substep), so that a contact's end costs one
// cache line and one vector load instead of eight gathers: the position, the displacement over
// the sub-step, where the sub-step began and the displacement before the solve.
typedef struct sinew__motion {
    float x, y, dx, dy, px, py, dx0, dy0;
} sinew__motion;

// Particle store, one allocation for all arrays.
typedef struct sinew__particles {
    sinew__store store;
    int count;
    float *x, *y, *px, *py, *ax, *ay, *w, *radius;
    // Displacement over the last sub-step, kept apart from x - px: far from the origin a float
    // position cannot hold g h^2, so velocity derived from rounded positions drifts. The solver's
    // correction x - x_predicted is exact (Sterbenz), and is folded into dx, dy after each sub-step.
    float *dx, *dy;
    uint32_t *flags;
    void **user_data;
    // Jacobi sums per particle, in double so that their value, once rounded to float, does not
    // depend on the order constraints were added in: Jacobi results are order independent.
    uint32_t *group, *mask;
    float *mu_s, *mu_k;  // square roots of the static and kinetic friction (a pair's is the product)
    // Collision scratch, rebuilt every sub-step (grid.c, contact.c).
    uint32_t *cell_of;   // grid cell of the particle, or UINT32_MAX when it does not collide
    uint32_t *sorted;    // particle indices sorted by cell
    // What the contact search reads of the colliding particles, copied in `sorted` order when the
    // grid is built, so that the candidates of a range of cells are contiguous (and load as vectors).
    float *cell_x, *cell_y, *cell_r, *cell_w;
    uint32_t *cell_group, *cell_mask;
    uint32_t *colors;    // Gauss-Seidel colour bits of the contacts on the particle
    uint32_t *link_start, *link_n; // its distance-linked neighbours in distances.adj
    uint32_t *jacobi_sort; // 2 per particle: buckets of sinew__distances_order's counting sorts
    double *jacobi_x, *jacobi_y; // Jacobi: the sums of the distance constraints' terms (zero between iterations)
    float *grad_x, *grad_y; // scratch of the area constraints (their gradients)
    sinew__motion *motion;  // contacts' response: packed after the solve (see sinew__motion)
    uint8_t *near_plane;    // scratch of sinew__planes_find: may have a collider contact
    sinew__jacobi_sum *acc;
    sinew__jacobi_sum *acc2;  // Jacobi, contact response: position part (acc has the velocity part)
    float *inv_n;        // Jacobi: 1 / active constraints on the particle this iteration (1 if
                         // immovable); a count while being built. Apart from acc: it stays in cache
} sinew__particles;

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
    sinew__distance *c;
    sinew__softness *soft;
    float *lambda;
    uint32_t *perm;         // shuffle order
    uint8_t *block_free;    // per block of SINEW__LANES links (indexed k / lanes): 1 when the
                            // block is full and its links share no particle that can move
} sinew__links;

// Places first .. first + count - 1 of Jacobi's layout: the links (i + r, i + offset + r) for
// r = 0 .. count - 1, consecutive particles at both ends.
typedef struct sinew__run {
    int32_t first, count, i, offset;
} sinew__run;

typedef struct sinew__distances {
    sinew__store store;     // the count is l.count
    sinew__links l;
    uint8_t *mode;          // sinew_distance_mode, cold
    uint32_t *adj;          // 2 per distance: linked neighbours by particle (skip_linked_pairs)
    // Jacobi's layout, by place m: the links sorted by their offset j - i, then by i, and cut into
    // runs, so that both passes of an iteration read and write particles at consecutive indices
    // (see sinew__distances_prepare). Rebuilt when order_dirty.
    uint32_t *order;        // place m -> link k
    float *jlo, *jhi;       // the allowed lengths
    sinew__run *runs;       // run_count of them (at most one per link)
    int run_count;
    uint32_t *by_i;         // scratch of sinew__distances_order
    float *step_x, *step_y, *step_lambda; // scratch of an iteration
    float *tear;            // tear ratio, 0 = never
    float *strain;          // length / rest, smoothed over steps (tearable ones)
    int tearable;           // how many have a tear ratio
    bool adj_dirty;         // adj must be rebuilt before the next contact search
    bool order_dirty;       // links changed since Jacobi's layout was built
    bool blocks_dirty;      // a weight changed: the block flags must be recomputed before a sweep
} sinew__distances;

// Particle-particle contacts of the current sub-step: min-only links (lo = ri + rj), plus
// friction. In Gauss-Seidel mode they are sorted by colour so that blocks are independent.
typedef struct sinew__contacts {
    void *block;
    size_t block_bytes;
    int capacity;
    sinew__links l;
    // Where the search writes before the colour sort (hi holding the squared distance).
    sinew__distance *found;
    uint8_t *found_color;
    // Contacts found with the motion margin but not yet within the contact reach: not solved
    // until a later sub-step of the step brings them within it (sinew__contacts_promote).
    sinew__distance *pending;
    int pending_count;
    // Per solved contact, set when found or promoted (set_response in contact.c): each end's
    // share of a response, and the pair's static and kinetic friction. Not set when `one_material`
    // (every colliding particle alike): then every contact has one_share at both ends and the
    // frictions one_mu_s and one_mu_k.
    float *share_i, *share_j, *mu_s, *mu_k;
    bool one_material;
    float one_share, one_mu_s, one_mu_k;
} sinew__contacts;

// Area constraints: a ring of particles (indices in the shared pool) keeps a signed area.
typedef struct sinew__area {
    int32_t first, count;   // the ring is idx[first .. first + count)
    float rest;             // |rest area|, m^2
    float sign;             // +1 counter-clockwise at creation, -1 clockwise
    float pressure, stiffness, compliance;
} sinew__area;

typedef struct sinew__areas {
    sinew__store store;
    int count, soft_count;
    sinew__area *c;
    float *lambda;
    void *pool_block;       // the ring indices of all area constraints, packed
    size_t pool_bytes;
    int32_t *idx;
    int idx_count, idx_capacity;
} sinew__areas;

// Angle constraints: the turn at j from (j - i) to (k - j) kept in [min, max] (through pi when
// min > max).
typedef struct sinew__angle {
    int32_t i, j, k;
    float min, max, stiffness, compliance;
} sinew__angle;

typedef struct sinew__angles {
    sinew__store store;
    int count, soft_count;
    sinew__angle *c;
    float *lambda;
} sinew__angles;

// A particle against a static collider, linearised: dot(n, x) >= offset.
typedef struct sinew__plane_contact {
    int32_t i;
    float nx, ny, offset;
} sinew__plane_contact;

typedef struct sinew__planes {
    void *block;
    size_t block_bytes;
    int capacity, count;
    sinew__plane_contact *c;
    float *mu_s, *mu_k;
    int32_t *collider;      // index in colliders.c, for sinew__planes_refresh
} sinew__planes;

// A static collider: a half-plane, or a convex polygon (1 vertex = disc, 2 = capsule) rounded
// by `radius`, vertices counter-clockwise, edge k from v[k] to v[k + 1] with outward normal n[k].
typedef struct sinew__collider {
    sinew_collider_type type;
    int vertex_count;
    float nx, ny, offset; // plane
    float radius;
    sinew_vec2 v[SINEW_POLYGON_MAX_VERTICES];
    sinew_vec2 n[SINEW_POLYGON_MAX_VERTICES];
    float minx, miny, maxx, maxy; // bounds including the radius
    float mu_s, mu_k; // square roots of the frictions, like the particles'
    uint32_t group, mask;
    void *user_data;
} sinew__collider;

typedef struct sinew__colliders {
    sinew__store store;
    int count;
    sinew__collider *c;
} sinew__colliders;

// Uniform grid over the colliding particles, rebuilt by counting sort every sub-step.
typedef struct sinew__grid {
    void *block;
    size_t block_bytes;
    int capacity;          // cells allocated (cell_start holds capacity + 1 entries)
    uint32_t *cell_start;  // particles of cell k: sorted[cell_start[k] .. cell_start[k + 1])
    int nx, ny;
    float minx, miny, cell, inv_cell;
    float max_radius;
    float margin;          // how far any particle may move towards another before contacts are
                           // found again (m); see sinew__grid_build
    int ahead;             // further sub-steps the last build's margin covers (0: this one only)
    // Whether every colliding particle had the same weight and frictions at the last build (a pile
    // of one kind of ball); w, mu_s and mu_k are then theirs (the frictions as square roots).
    bool one_material;
    float w, mu_s, mu_k;
    int sorted_count;
    bool valid;            // matches the particle indices (no create or destroy since)
    bool fresh;            // built at the current positions (cleared by a step and by set_position)
} sinew__grid;

typedef struct sinew__pin {
    int32_t i;
    float tx, ty;
    float stiffness, compliance;
} sinew__pin;

typedef struct sinew__pins {
    sinew__store store;
    int count;
    int compliant;
    sinew__pin *c;
    float *lambda;          // 2 per pin
    float *from;            // 2 per pin: kinematic start of the current step
    uint32_t *perm;
} sinew__pins;

struct sinew_world {
    sinew_allocator allocator;
    size_t byte_count;
    const char *last_error;
    void *user_data;

    sinew_vec2 gravity;
    float damping;
    sinew_solver_def solver;
    int max_particles, max_constraints;

    float h_prev;           // length of the last sub-step, for time-corrected Verlet
    uint64_t step_count;

    bool skip_linked_pairs;
    bool avx2; // the AVX2 kernels may run (the CPU has AVX2 and BMI2); tests clear it to compare the paths

    sinew__particles particles;
    sinew__distances distances;
    sinew__pins pins;
    sinew__areas areas;
    sinew__angles angles;
    sinew__colliders colliders;
    sinew__contacts contacts;
    sinew__planes planes;
    sinew__grid grid;
    int dropped_contacts;  // this step
    void *tears_block;     // torn links of the last step; room for every tearable link
    size_t tears_bytes;
    sinew_tear *tears;
    int tear_count, tear_capacity;

    sinew_step_stats stats;

    bool record;
    void *history_block;
    size_t history_bytes;
    sinew_error_sample *history; // (SINEW_KIND_COUNT + 1) * substeps * (iterations + 1)
    int history_substeps, history_iterations;
    bool history_valid;
};

// memory.c
void *sinew__alloc(sinew_world *world, size_t size);
void sinew__free(sinew_world *world, void *ptr, size_t size);

// One array of a structure-of-arrays block: where its pointer lives and its element size.
struct sinew__field {
    void **ptr;
    size_t size;
};

// Reallocates the block holding `fields` for `new_capacity` elements, copying `count` elements of
// each array and zeroing the rest. On failure nothing changes and SINEW_ERR_OUT_OF_MEMORY is
// returned.
sinew_status sinew__block_resize(sinew_world *world, void **block, size_t *block_bytes, const sinew__field *fields,
                                 int field_count, int count, int new_capacity);

// Capacity to grow to so that `needed` elements fit (geometric growth), or -1 past INT32_MAX / 2.
int sinew__grow_capacity(int capacity, int needed);

// Records the detail message and returns the status, for one-line error exits.
sinew_status sinew__fail(const sinew_world *world, sinew_status status, const char *detail);

// id_pool.c
// Makes sure one more id can be taken.
sinew_status sinew__id_reserve(sinew_world *world, sinew__id_pool *pool);
// Takes a slot for dense index `dense`; the pool must have been reserved. Returns the new id's
// slot; its generation is pool->generation[slot].
uint32_t sinew__id_take(sinew__id_pool *pool, uint32_t dense);
void sinew__id_release(sinew__id_pool *pool, uint32_t slot);
// Dense index of a live id, or -1.
int sinew__id_lookup(const sinew__id_pool *pool, uint32_t index1, uint32_t generation);
void sinew__id_pool_free(sinew_world *world, sinew__id_pool *pool);

// particle.c
// Grows the particle store to hold at least `capacity` particles (builders call it up front).
sinew_status sinew__particles_reserve(sinew_world *world, int capacity);
void sinew__particles_free(sinew_world *world);
// Verlet's prediction. A particle it would carry beyond SINEW_MAX_COORDINATE (or to NaN) stays
// where the sub-step begins, at rest; returns how many did.
int sinew__particles_integrate(sinew_world *world, float h, float velocity_scale);
// Largest force acceleration |(ax, ay)| on any particle (m/s^2).
float sinew__particles_max_accel(const sinew_world *world);
// After the solver: adds each particle's correction (x - predicted x) to its displacement, and
// puts any particle whose position became NaN or left SINEW_MAX_COORDINATE back where the
// sub-step began, at rest. Returns
// how many were put back. With `pack`, also fills particles.motion for the contact response.
int sinew__particles_finish_substep(sinew_world *world, bool pack);
// Copies the position and displacement of particles.motion back to the arrays (after a Gauss-Seidel
// contact response, which writes the records).
void sinew__particles_unpack_motion(sinew_world *world);
int sinew__particle_lookup(const sinew_world *world, sinew_particle_id id);

// links.c: the kernels every kind stored as links runs (see sinew__links).
#define SINEW__LANES 8
void sinew__links_project(sinew_world *world, sinew__links *l, float inv_h2, bool backward, bool shuffled);
// Jacobi: adds each link's correction, times omega / max(n_i, n_j), to both ends' sums.
void sinew__links_accumulate(sinew_world *world, sinew__links *l, float inv_h2, float omega);
// Counts, into particles.inv_n (not yet inverted), the links that will correct each particle
// this iteration: those outside their allowed range.
void sinew__links_count_active(sinew_world *world, const sinew__links *l);
// Jacobi for the distance constraints, in two passes. sinew__distances_prepare computes each
// link's step and counts the active ones into inv_n, as sinew__links_count_active does; once every
// kind is counted and inv_n inverted, sinew__distances_gather sums each link's factored step into
// particles.jacobi_x, jacobi_y at both ends, then moves each particle by its sums (and by acc, which
// it clears, when `scattered`: other kinds summed into it). sinew__distances_order builds their
// layout: runs of links with consecutive particles at both ends.
void sinew__distances_order(sinew_world *world);
void sinew__distances_prepare(sinew_world *world, float inv_h2);
void sinew__distances_gather(sinew_world *world, float omega, bool scattered);
void sinew__links_error(const sinew_world *world, const sinew__links *l, float *max_error, double *sum_sq);
void sinew__links_begin_substep(sinew__links *l);
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

#if SINEW__X86
#include <immintrin.h>

// The eight links from c, transposed into lanes: unpacking {i, j, lo, hi} yields lanes
// 0 2 4 6 1 3 5 7, which one permutation puts back.
SINEW__AVX2 static inline __attribute__((always_inline)) void sinew__links_load8(const sinew__distance *c, __m256i *i,
                                                                                 __m256i *j, __m256 *lo, __m256 *hi)
{
    const __m256i *v = (const __m256i *)c;
    const __m256i c01 = _mm256_loadu_si256(v), c23 = _mm256_loadu_si256(v + 1);
    const __m256i c45 = _mm256_loadu_si256(v + 2), c67 = _mm256_loadu_si256(v + 3);
    const __m256i ij_lo = _mm256_unpacklo_epi32(c01, c23), ij_hi = _mm256_unpacklo_epi32(c45, c67);
    const __m256i lh_lo = _mm256_unpackhi_epi32(c01, c23), lh_hi = _mm256_unpackhi_epi32(c45, c67);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    *i = _mm256_permutevar8x32_epi32(_mm256_unpacklo_epi64(ij_lo, ij_hi), order);
    *j = _mm256_permutevar8x32_epi32(_mm256_unpackhi_epi64(ij_lo, ij_hi), order);
    *lo = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(_mm256_unpacklo_epi64(lh_lo, lh_hi), order));
    *hi = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(_mm256_unpackhi_epi64(lh_lo, lh_hi), order));
}

// Transposes eight rows of eight floats in place: row l holding lane l's eight values becomes
// row c holding value c of every lane, and back.
SINEW__AVX2 static inline __attribute__((always_inline)) void sinew__transpose8(__m256 r[8])
{
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee);
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee);
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee);
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// clamp(d, lo, hi) as sinew__link_error computes it (`d < lo ? lo : (d > hi ? hi : d)`), NaN included.
// sinew__apart on eight lanes.
SINEW__AVX2 static inline __attribute__((always_inline)) __m256 sinew__apart8(__m256 *dx, __m256 *dy)
{
    const __m256 apart = _mm256_set1_ps(SINEW__APART), apart2 = _mm256_set1_ps(SINEW__APART * SINEW__APART);
    const __m256 d2 = _mm256_add_ps(_mm256_mul_ps(*dx, *dx), _mm256_mul_ps(*dy, *dy));
    const __m256 together = _mm256_cmp_ps(d2, apart2, _CMP_LT_OQ);
    *dx = _mm256_andnot_ps(together, *dx);
    *dy = _mm256_blendv_ps(*dy, apart, together);
    return _mm256_blendv_ps(d2, apart2, together);
}

SINEW__AVX2 static inline __attribute__((always_inline)) __m256 sinew__clamp8(__m256 d, __m256 lo, __m256 hi)
{
    const __m256 upper = _mm256_blendv_ps(d, hi, _mm256_cmp_ps(d, hi, _CMP_GT_OQ));
    return _mm256_blendv_ps(upper, lo, _mm256_cmp_ps(d, lo, _CMP_LT_OQ));
}
#endif

// A constraint kind, as the solver, the particle store and the world see it: each kind's file
// defines one of these, and solver.c lists them in sinew__kinds, in solve order. The kernels run
// per kind (one call per kind and iteration), never per constraint.
typedef struct sinew__kind_ops {
    sinew_kind kind;
    int (*count)(const sinew_world *world);
    // Before a sub-step's iterations (resets XPBD multipliers); NULL when there is nothing to do.
    void (*begin_substep)(sinew_world *world);
    // One Gauss-Seidel sweep, backward on the alternating order's odd iterations. `shuffled`: the
    // shuffle order is on (a kind that has no shuffle keeps its order).
    void (*project)(sinew_world *world, float inv_h2, bool backward, bool shuffled);
    // Jacobi, before an iteration: adds to particles.inv_n the constraints that will correct each
    // particle (those not satisfied).
    void (*count_active)(sinew_world *world, float inv_h2);
    // Jacobi: adds each constraint's correction, times omega / n, to particles.acc. Returns
    // whether it may have written there (the distance gather then reads and clears acc).
    bool (*accumulate)(sinew_world *world, float inv_h2, float omega);
    // Largest error and sum of squared errors (the units of sinew_kind_stats).
    void (*error)(const sinew_world *world, float *max_error, double *sum_sq);
    // Particle `index` is destroyed and particle `moved_from` (the last) moves into its place;
    // NULL for kinds rebuilt every step.
    void (*remove_particle)(sinew_world *world, int index, int moved_from);
    void (*free)(sinew_world *world);
} sinew__kind_ops;

extern const sinew__kind_ops sinew__distance_kind, sinew__pin_kind, sinew__contact_kind, sinew__collider_kind,
    sinew__area_kind, sinew__angle_kind;
// solver.c: every kind once, in Gauss-Seidel's forward order.
extern const sinew__kind_ops *const sinew__kinds[SINEW_KIND_COUNT];

// distance.c / pin.c
sinew_status sinew__distances_reserve(sinew_world *world, int capacity);
sinew_status sinew__pins_reserve(sinew_world *world, int capacity);
// End of a step: removes the links whose smoothed strain passed their tear ratio, into world->tears.
void sinew__distances_tear(sinew_world *world);

void sinew__pins_begin_step(sinew_world *world);
void sinew__pins_move_kinematic(sinew_world *world, float fraction);

// Contacts are made for pairs closer than SINEW__CONTACT_REACH times the sum of their radii:
// speculative contacts, inactive until the pair overlaps, so that an overlap made by another
// correction during the iterations is solved in the same sub-step.
#define SINEW__CONTACT_REACH 1.1f

// A contact still touches after the solve within this fraction of the radii (see in_play).
#define SINEW__TOUCH_SLACK 1e-3f

#define SINEW__GUARD 1e-30f // added to a divisor that is 0 only when what it divides is 0

// Friction and the velocity clamp of one contact, from its normal n (i to j), the relative
// displacement of j against i before the solve (rel0) and after it (rel). Writes the change of the
// relative displacement due to friction (f, tangential) and in all (v = f + normal clamp).
SINEW_FORCE_INLINE void sinew__contact_response(float nx, float ny, float rel0x, float rel0y, float relx, float rely,
                                         float mu_s, float mu_k, float *fx, float *fy, float *vx, float *vy)
{
    const float before = rel0x * nx + rel0y * ny, after = relx * nx + rely * ny;
    // What the solve added along the normal (the normal impulse times h) sets the friction cone.
    float push = after - before;
    push = push > 0.0f ? push : 0.0f;
    // The solve may stop an approach, never start a separation: pushing overlap out is no bounce.
    const float limit = before > 0.0f ? before : 0.0f;
    float excess = after - limit;
    excess = excess > 0.0f ? excess : 0.0f;
    // Static friction cancels the tangential motion inside the cone mu_s * push; kinetic takes off
    // mu_k * push of it.
    const float tx = relx - after * nx, ty = rely - after * ny;
    const float t = sqrtf(tx * tx + ty * ty);
    float kinetic = mu_k * push / (t + SINEW__GUARD);
    kinetic = kinetic < 1.0f ? kinetic : 1.0f;
    const float f = t < mu_s * push ? 1.0f : kinetic;
    *fx = -f * tx;
    *fy = -f * ty;
    *vx = *fx - excess * nx;
    *vy = *fy - excess * ny;
}

// grid.c: the uniform grid of colliding particles.
// Rebuilds the grid at the current positions, with a motion margin that covers `ahead` more
// sub-steps like the last one plus `extra` metres (0, 0: exact, for this sub-step or a query).
// The margin may not pass SINEW__MARGIN_LIMIT times the largest radius (the cells would grow too
// large): it then covers fewer sub-steps, grid.ahead of them (0: this one only). Returns false
// when it could not grow (memory).
bool sinew__grid_build(sinew_world *world, int ahead, float extra);
#define SINEW__MARGIN_LIMIT 0.5f
void sinew__grid_free(sinew_world *world);
// Cell coordinate of v along an axis, clamped to [0, n - 1] before any conversion to int (a query
// box of 1e9 metres, or rounding at the far edge, must not overflow; NaN gives 0).
static inline int sinew__grid_cell(float v, float origin, float inv_cell, int n)
{
    const float c = floorf((v - origin) * inv_cell);
    return !(c >= 0.0f) ? 0 : (c >= (float)(n - 1) ? n - 1 : (int)c);
}

// contact.c: particle-particle contacts.
// Contacts per tile of Gauss-Seidel's order (see sort_by_color in contact.c). A tile of a pile
// touches about 22,000 particles, whose motion records (700 KB) and positions stay in the core's
// second-level cache while its colours are solved. Measured at 100,000 balls (4 x 1): tiles of
// 8,192, 32,768 and 65,536 contacts took 17.0-17.2, 16.5-16.6 and 16.0-16.6 ms per step; one tile
// for all, 18.0. Small tiles cost settling: at 10,000 balls, 8 x 4, tiles of 8,192 raised the
// median max overlap over twelve lattices from 0.9% to 2.3% of the radius. Such a pile (29,000
// contacts) is one tile, in the order of a colour sort of all.
#define SINEW__TILE_CONTACTS 65536
void sinew__contacts_find(sinew_world *world, bool color);
// At a sub-step that does not search: moves the pending contacts now within the contact reach (at
// the predicted positions) to the end of the solved ones, where Gauss-Seidel takes them one by one.
void sinew__contacts_promote(sinew_world *world);
// After the sub-step is finished (particles.motion packed): friction (moves positions and
// velocities) and the velocity clamp (velocities only) of every contact, in one pass. Gauss-Seidel
// changes the motion records (sinew__particles_unpack_motion copies them back); Jacobi sums into
// acc (velocity) and acc2 (position), scaled by particles.inv_n.
void sinew__contacts_respond(sinew_world *world, bool jacobi);
// Counts the contacts that respond (see in_play in contact.c) on each particle into particles.inv_n.
void sinew__contacts_count(sinew_world *world);
// Rebuilds distances.adj from the distance constraints when they changed.
void sinew__links_adjacency(sinew_world *world);

// collider.c: static colliders and particle-collider contacts.
// Finds the contacts of every particle within `margin` (m) beyond the contact reach of a collider.
void sinew__planes_find(sinew_world *world, float margin);
// Recomputes, at the current positions, the contact planes of curved or finite colliders found
// by an earlier sinew__planes_find (a half-plane's never changes).
void sinew__planes_refresh(sinew_world *world);
void sinew__planes_respond(sinew_world *world, bool jacobi);
void sinew__planes_count(sinew_world *world);
void sinew__colliders_free(sinew_world *world);

// solver.c
sinew_status sinew__history_reserve(sinew_world *world, int substeps, int iterations);
void sinew__history_free(sinew_world *world);
void sinew__shuffle(uint32_t *perm, int count, uint64_t seed);
// splitmix64: a small, well-mixed generator (shuffle order, scene builders).
uint64_t sinew__random_next(uint64_t *state);

// Validation helpers.
static inline bool sinew__finite(float v) { return isfinite(v) != 0; }
static inline bool sinew__finite2(sinew_vec2 v) { return isfinite(v.x) && isfinite(v.y); }
// |v| <= SINEW_MAX_COORDINATE (false for NaN): a coordinate, length or radius the world accepts.
static inline bool sinew__coordinate_ok(float v) { return fabsf(v) <= SINEW_MAX_COORDINATE; }
static inline bool sinew__point_ok(sinew_vec2 v) { return sinew__coordinate_ok(v.x) && sinew__coordinate_ok(v.y); }
