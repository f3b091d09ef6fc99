// The particle store: the structure of arrays every kind reads and writes, and the
// integration (particle.c). Never installed.
#pragma once

#include <stdatomic.h>

#include "core.h"
#include "serial.h"

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

// Per-particle and per-link scratch comes in groups, each allocated only once the world calls for
// it (sinew__scratch_need), outside the step, and then kept and grown with its store: a
// Gauss-Seidel pile holds no Jacobi sums, a cloth that collides with nothing no grid arrays. A
// group's arrays are NULL until it is allocated.
enum {
    SINEW__NEED_COLLIDE = 1u << 0, // some particle collides, or a collider exists (sticky): the grid's
                                   // and the contacts' per-particle arrays
    SINEW__NEED_LINKED = 1u << 1,  // colliding particles and distance constraints with skip_linked_pairs
                                   // (sticky): link_start, link_n and distances.adj
    SINEW__NEED_JACOBI = 1u << 2,  // the solver was in Jacobi mode (sticky): its sums, the distances' layout
    SINEW__NEED_AREA = 1u << 3,    // an area constraint was made (sticky): grad_x, grad_y
    SINEW__NEED_EVENTS = 1u << 4,  // contact events are on (sticky): vx0, vy0
    SINEW__NEED_SPANS = 1u << 5,   // the world had workers and distances at once (sticky): span_mark
    SINEW__NEED_SHUFFLE = 1u << 6, // the shuffle order was set (sticky): distances.l.perm
};
#define SINEW__PARTICLE_GROUPS 6  // the groups with per-particle arrays: the first six bits

// One group's block: its arrays, for `capacity` elements.
typedef struct sinew__scratch {
    void *block;
    size_t bytes;
    int capacity;
} sinew__scratch;

// What every colliding particle shares, when it does (a pile of one kind of ball), so that the
// passes over contacts broadcast one value instead of loading one per particle. `known` says
// whether the rest holds: sinew__particles_materials fills it in again when it does not.
typedef struct sinew__materials {
    bool known;
    bool any;          // some particle collides (else the rest is zero)
    bool one_material; // the same weight w and frictions mu_s, mu_k (square roots, as stored)
    bool one_shape;    // the same weight w, radius, group and mask: the contact search's operands
    float w, mu_s, mu_k, radius;
    uint32_t group, mask;
} sinew__materials;

// Particle store: the particles' state in the store's block (what a swap-remove moves), and the
// other modules' per-particle scratch in blocks of their own (one per group above, as large as the
// store's capacity), never moved by a removal (whoever uses a scratch array rebuilds it, or keeps
// it zero between uses).
typedef struct sinew__particles {
    sinew__store store;
    int count;
    unsigned needs;      // SINEW__NEED_* bits the world's scratch is allocated for
    // Whether some ax, ay may be non-zero: set when a force is applied or a snapshot loaded, cleared
    // when the step clears them. While it is false every one is zero, and the step neither scans
    // nor clears them.
    bool forced;
    // Whether the optional arrays exist: ax and ay from the first force applied on, user_data
    // from the first particle given user data (none: NULL, every value zero; see with_arrays in
    // particle.c). A snapshot's load keeps them only when they hold something.
    bool with_forces, with_user_data;
    // The filters (group, mask) and the frictions (mu_s, mu_k) are arrays only once two particles
    // differ in them (with_filters, with_frictions); until then the arrays are NULL and every
    // particle holds the value below (a pile of one kind of ball saves 16 bytes a particle). Read
    // them through sinew__particle_group and its siblings.
    bool with_filters, with_frictions;
    uint32_t all_group, all_mask;
    float all_mu_s, all_mu_k;
    // What the colliding particles have in common (sinew__particles_materials), cleared when a
    // particle is created or removed, or its weight, radius, filter, frictions or flags set.
    sinew__materials materials;
    sinew__scratch scratch[SINEW__PARTICLE_GROUPS];
    float *x, *y, *px, *py, *ax, *ay, *w, *radius;
    // Displacement over the last sub-step, kept apart from x - px: far from the origin a float
    // position cannot hold g h^2, so velocity derived from rounded positions drifts. The solver's
    // correction x - x_predicted is exact (Sterbenz), and is folded into dx, dy after each sub-step.
    float *dx, *dy;
    uint32_t *flags;
    void **user_data;
    uint32_t *group, *mask;
    float *mu_s, *mu_k;  // square roots of the static and kinetic friction (a pair's is the product)

    // The positions in pairs (x, y) during a sub-step's iterations, when the contacts' AVX2
    // kernels would read them (contacts x iterations at least twice the particles, no constraint
    // of another kind but collider contacts, no iteration recorded; see
    // sinew__particles_begin_xy), else NULL: a contact's end
    // then loads and stores with one 8-byte access where x and y apart take two 4-byte ones and
    // the shuffles to put them in lanes. Gauss-Seidel's sweeps (contacts and collider contacts)
    // then read and write only xy, which lives in the motion records' memory (free during the
    // iterations) and is packed and copied back, before and after them, in the items a contact
    // touches (pack_item); Jacobi's moves write both, and xy lives in jacobi_x's memory (whose sums
    // are unused in such a world, and zero before and after).
    float *xy;
    // ---- scratch: SINEW__NEED_COLLIDE ----
    // Collision scratch, rebuilt every sub-step (grid.c, contact.c).
    sinew__motion *motion;  // contacts' response: packed after the solve (see sinew__motion)
    uint8_t *near_plane;    // sinew__collider_marks's marks: may have a collider contact
    // Per item of SINEW__PARTICLE_ITEM particles (the first of the array's entries): whether one
    // of its particles is an end of a contact this step's sub-steps solve, so that finishing a
    // sub-step packs its motion records and the response copies them back. Set again at every
    // search, and as contacts are promoted (see sinew__particles_pack_mark).
    atomic_uchar *pack_item;
    // The arrays below are written before the solve and dead after the contact searches, the
    // motion records written after the solve: they share the motion records' memory
    // (search_views in particle.c), and a query after a step builds the grid again.
    uint32_t *sorted;    // particle indices sorted by cell
    // What the contact search reads of the colliding particles, copied in `sorted` order when the
    // grid is built, so that the candidates of a range of cells are contiguous (and load as vectors).
    float *cell_x, *cell_y, *cell_r, *cell_w;
    uint32_t *cell_group, *cell_mask;
    // One array, two uses one after the other in a sub-step:
    uint32_t *cell_of;   // while the grid is built: the particle's cell, UINT32_MAX if it does not collide
    uint32_t *colors;    // then the Gauss-Seidel colour bits of the contacts on the particle
    // ---- SINEW__NEED_LINKED ----
    uint32_t *link_start, *link_n; // its distance-linked neighbours in distances.adj
    // ---- SINEW__NEED_JACOBI ----
    // The sums of the distance constraints' terms during an iteration, and of the position part
    // of the contact response (acc has its velocity part) after the iterations; zero in between.
    double *jacobi_x, *jacobi_y;
    // Jacobi sums per particle, in double so that their value, once rounded to float, does not
    // depend on the order constraints were added in: Jacobi results are order independent. Zero
    // between uses.
    sinew__jacobi_sum *acc;   // (zero between iterations; at the start of a step, the buckets of
                              // sinew__distances_order's counting sorts, two uint32 a particle)
    float *inv_n;        // Jacobi: 1 / active constraints on the particle this iteration (1 if
                         // immovable); a count while being built. Apart from acc: it stays in cache
    // ---- SINEW__NEED_AREA ----
    float *grad_x, *grad_y; // scratch of the area constraints (their gradients; grad_x marks a ring's
                            // particles while area_create checks it)
    // ---- SINEW__NEED_EVENTS ----
    float *vx0, *vy0;       // velocity at the start of the step (events.c)
    // ---- SINEW__NEED_SPANS ----
    uint32_t *span_mark;    // sinew__links_spans' marks for the distances (contacts use `colors`)
} sinew__particles;

// particle.c
// Grows the particle store to hold at least `capacity` particles (builders call it up front).
sinew_status sinew__particles_reserve(sinew_world *world, int capacity);
void sinew__particles_free(sinew_world *world);
// Allocates the scratch groups of `needs` (SINEW__NEED_* bits) that are not allocated yet, per
// particle and per distance constraint, at the stores' capacities. On failure
// (OUT_OF_MEMORY) none of them is allocated and the world is unchanged.
sinew_status sinew__scratch_need(sinew_world *world, unsigned needs);
// Frees the groups of `needs` (a refused first area's).
void sinew__scratch_drop(sinew_world *world, unsigned needs);
// The groups the world's settings and content call for (after loading a snapshot).
unsigned sinew__scratch_wanted(const sinew_world *world);
// Verlet's prediction. A particle it would carry beyond SINEW_MAX_COORDINATE (or to NaN) stays
// where the sub-step begins, at rest; returns how many did.
int sinew__particles_integrate(sinew_world *world, float h, float velocity_scale);
// Jacobi's counts: inv_n zeroed, then (once every kind counted into it) turned into 1 / n per
// particle (no count: 0; immovable particles: 1, so that they never limit a factor).
void sinew__particles_clear_counts(sinew_world *world);
void sinew__particles_invert_counts(sinew_world *world);
// The particle passes' items: PARTICLE_ITEM particles each (a multiple of the vector width).
#define SINEW__PARTICLE_ITEM 1024

// Marks, at a search, no item as packed (Gauss-Seidel: the contacts mark theirs), or every item
// (Jacobi: its response reads every particle's record).
void sinew__particles_pack_reset(sinew_world *world, bool all);
// Marks particle i's item as packed: the item of an end of a contact solved in this step.
SINEW_FORCE_INLINE void sinew__particles_pack_mark(const sinew__particles *p, int i)
{
    atomic_store_explicit(&p->pack_item[i / SINEW__PARTICLE_ITEM], (unsigned char)1, memory_order_relaxed);
}

// What the colliding particles share (see sinew__materials): scanned again only after a change
// cleared it. With no colliding particle, one_material and one_shape are false.
const sinew__materials *sinew__particles_materials(sinew_world *world);
// Largest force acceleration |(ax, ay)| on any particle (m/s^2); 0 without a scan when no force
// was applied.
float sinew__particles_max_accel(const sinew_world *world);
// After the solver: adds each particle's correction (x - predicted x) to its displacement, and
// puts any particle whose position became NaN or left SINEW_MAX_COORDINATE back where the
// sub-step began, at rest. Returns
// how many were put back. With `pack`, also fills particles.motion for the contact response, in
// the items marked packed; in the others it applies the contact speed's bound `most` at once (m
// per sub-step, INFINITY: none), which sinew__particles_unpack_motion would have applied.
int sinew__particles_finish_substep(sinew_world *world, bool pack, float most);
// Copies the position and displacement of particles.motion back to the arrays (after a Gauss-Seidel
// contact response, which writes the records), in the items marked packed. A particle the response carried out of range is put
// back where the sub-step began, at rest; returns how many were.
// `most`: while the world watches deep overlap (overlap.c), the speed bound in metres per sub-step
// (INFINITY otherwise): see sinew__speed_bound.
int sinew__particles_unpack_motion(sinew_world *world, float most);

// The contact speed's bound (overlap.c): a movable colliding particle leaves the sub-step with a
// displacement (dx, dy) no longer than its predicted one (pdx, pdy), or `most` if that is more.
SINEW_FORCE_INLINE void sinew__speed_bound(float *dx, float *dy, float pdx, float pdy, float most, uint32_t flags, float w)
{
    // Most particles move far less than the bound (2 max(|dx|, |dy|) <= most, so |d| <= most): they
    // are left as they are, without the roots and the division.
    const float ax = fabsf(*dx), ay = fabsf(*dy);
    if (!(2.0f * (ax > ay ? ax : ay) > most)) {
        return;
    }
    const float predicted = sqrtf(pdx * pdx + pdy * pdy);
    const float limit = predicted > most ? predicted : most;
    const float d = sqrtf(*dx * *dx + *dy * *dy);
    if ((flags & SINEW_PARTICLE_COLLIDES) != 0u && w > 0.0f && d > limit) {
        const float s = limit / d;
        *dx *= s;
        *dy *= s;
    }
}
// Puts every particle out of range back where the sub-step began, at rest; returns how many.
int sinew__particles_reset_escaped(sinew_world *world);
// Runs fn over the particles as a pass: items of SINEW__PARTICLE_ITEM particles (fn gets item
// indices), over the workers from 8 items on, else on this thread.
void sinew__particles_for(sinew_world *world, sinew_task_fn *fn, void *context);
// Whether such a pass goes over the workers (else it runs on the calling thread).
bool sinew__particles_spread(const sinew_world *world);
// After Jacobi's contact response has summed (see sinew__contacts_respond_range): moves every
// particle by its sums and clears them, bounding each displacement by `most` (m per sub-step,
// INFINITY: none; see sinew__speed_bound); a particle carried out of range goes back where the
// sub-step began, at rest. Returns how many did.
int sinew__particles_apply_response(sinew_world *world, float most);
// Before a sub-step's iterations: sets xy (see sinew__particles) and packs the positions into it
// when the contacts' kernels would read it (`recording`: the iterations' errors are measured
// between them, from x and y, so not then), else leaves it NULL.
void sinew__particles_begin_xy(sinew_world *world, bool recording);
// After them: with Gauss-Seidel, copies xy back to x, y; then clears xy's memory where it must be
// zero, and xy.
void sinew__particles_end_xy(sinew_world *world);
int sinew__particle_lookup(const sinew_world *world, sinew_particle_id id);

// Particle i's collision filter and frictions (square roots), from its arrays or, while every
// particle holds the same, from the one value (see sinew__particles.with_filters).
SINEW_FORCE_INLINE uint32_t sinew__particle_group(const sinew__particles *p, int i)
{
    return p->group != NULL ? p->group[i] : p->all_group;
}
SINEW_FORCE_INLINE uint32_t sinew__particle_mask(const sinew__particles *p, int i)
{
    return p->mask != NULL ? p->mask[i] : p->all_mask;
}
SINEW_FORCE_INLINE float sinew__particle_mu_s(const sinew__particles *p, int i)
{
    return p->mu_s != NULL ? p->mu_s[i] : p->all_mu_s;
}
SINEW_FORCE_INLINE float sinew__particle_mu_k(const sinew__particles *p, int i)
{
    return p->mu_k != NULL ? p->mu_k[i] : p->all_mu_k;
}
// Removes the last particles until `count` are left, without looking for constraints on them: for
// a failed builder, once every constraint it made (all those on its particles) is gone.
void sinew__particles_truncate(sinew_world *world, int count);
// Snapshots: the particle store (see sinew__kind_ops.save / load).
void sinew__particles_save(const sinew_world *world, sinew__writer *w);
bool sinew__particles_load(sinew_world *world, sinew__reader *r);
