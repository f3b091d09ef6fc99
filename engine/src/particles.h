// The particle store: the structure of arrays every kind reads and writes, and the
// integration (particle.c). Never installed.
#pragma once

#include "core.h"
#include "snapshot.h"

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

// Particle store: the particles' state in the store's block (what a swap-remove moves), and the
// other modules' per-particle scratch in a block of its own, as large as the store's capacity and
// never moved by a removal (whoever uses a scratch array rebuilds it, or keeps it zero between uses).
typedef struct sinew__particles {
    sinew__store store;
    int count;
    void *scratch_block;
    size_t scratch_bytes;
    int scratch_capacity;
    float *x, *y, *px, *py, *ax, *ay, *w, *radius;
    // Displacement over the last sub-step, kept apart from x - px: far from the origin a float
    // position cannot hold g h^2, so velocity derived from rounded positions drifts. The solver's
    // correction x - x_predicted is exact (Sterbenz), and is folded into dx, dy after each sub-step.
    float *dx, *dy;
    uint32_t *flags;
    void **user_data;
    uint32_t *group, *mask;
    float *mu_s, *mu_k;  // square roots of the static and kinetic friction (a pair's is the product)

    // ---- scratch (scratch_block) ----
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
    uint8_t *near_plane;    // scratch of sinew__collider_contacts_find: may have a collider contact
    float *vx0, *vy0;       // velocity at the start of the step, when contact events are on (events.c)
    // Jacobi sums per particle, in double so that their value, once rounded to float, does not
    // depend on the order constraints were added in: Jacobi results are order independent. Zero
    // between uses.
    sinew__jacobi_sum *acc;
    sinew__jacobi_sum *acc2;  // Jacobi, contact response: position part (acc has the velocity part)
    float *inv_n;        // Jacobi: 1 / active constraints on the particle this iteration (1 if
                         // immovable); a count while being built. Apart from acc: it stays in cache
} sinew__particles;

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
// Removes the last particles until `count` are left, without looking for constraints on them: for
// a failed builder, once every constraint it made (all those on its particles) is gone.
void sinew__particles_truncate(sinew_world *world, int count);
// Snapshots: the particle store (see sinew__kind_ops.save / load).
void sinew__particles_save(const sinew_world *world, sinew__writer *w);
bool sinew__particles_load(sinew_world *world, sinew__reader *r);
