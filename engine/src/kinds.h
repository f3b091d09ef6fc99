// The constraint kinds: how the solver sees a kind (sinew__kind_ops, the table sinew__kinds),
// and the storage of the kinds other than contacts (distances, pins, areas, angles). Never installed.
#pragma once

#include "links.h"
#include "particles.h"
#include "serial.h"

typedef struct sinew__distances {
    sinew__store store;     // the count is l.count
    sinew__links l;         // l.perm: SINEW__NEED_SHUFFLE scratch
    uint8_t *mode;          // sinew_distance_mode, cold
    // Per-link scratch in blocks of their own, allocated with their groups (see sinew__particles):
    // [0] SINEW__NEED_LINKED (adj), [1] SINEW__NEED_JACOBI (the layout), [2] SINEW__NEED_SHUFFLE (l.perm).
    sinew__scratch scratch[3];
    uint32_t *adj;          // 2 per distance: linked neighbours by particle (skip_linked_pairs)
    // Jacobi's layout, by place m: the links sorted by their offset j - i, then by i, and cut into
    // runs, so that both passes of an iteration read and write particles at consecutive indices
    // (see sinew__distances_prepare). Rebuilt when order_dirty. SINEW__NEED_JACOBI.
    uint32_t *order;        // place m -> link k
    float *jlo, *jhi;       // the allowed lengths
    // Where the runs start: bit m % 64 of word m / 64 is set when a run starts at place m (the
    // runs are read through sinew__distances_run); bits from l.count on are clear.
    uint64_t *run_start;
    int run_count;
    // Scratch of sinew__distances_order, then the threaded passes' table (distance_jacobi.c):
    // which runs reach each item of seg_item particles (seg_item 0: no table, one thread).
    uint32_t *by_i;
    int seg_item, seg_particles; // built for that item size and particle count
    float *step_x, *step_y, *step_lambda, *active; // scratch of an iteration
    // Optional arrays, made when first needed (see with_arrays in distance.c): until then NULL,
    // and every link holds the value in brackets. A cloth that never tears and has no user data
    // saves 16 bytes a link.
    float *tear;            // tear ratio, 0 = never (0): from the first tear ratio set on
    float *strain;          // length / rest, smoothed over steps (tearable ones; 1): with tear
    bool with_tears, with_user_data;
    int tearable;           // how many have a tear ratio
    bool adj_dirty;         // adj must be rebuilt before the next contact search
    bool order_dirty;       // links changed since Jacobi's layout was built
    bool blocks_dirty;      // a weight changed: the block flags must be recomputed before a sweep
    bool colour_dirty;      // links were made or removed: regroup them (sinew__distances_colour)
    bool forces_kept;       // the last sub-step ran the soft kernels: lambda holds the forces
    void **user_data;       // returned by sinew_distance_user_data (cold; NULL): from the first set
} sinew__distances;

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
    void **user_data;       // returned by sinew_area_user_data (cold)
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
    void **user_data;       // returned by sinew_angle_user_data (cold)
} sinew__angles;

typedef struct sinew__pin {
    int32_t i;
    float tx, ty;
    float stiffness, compliance;
    float max_force; // newtons; INFINITY: no limit
} sinew__pin;

typedef struct sinew__pins {
    sinew__store store;
    int count;
    sinew__pin *c;
    float *lambda;          // 2 per pin: what the pin applied this sub-step, kg m (force h^2)
    float *from;            // 2 per pin: kinematic start of the current step
    uint32_t *perm;
    void **user_data;       // returned by sinew_pin_user_data (cold)
} sinew__pins;

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
    // Largest error and sum of squared errors (the units of sinew_kind_stats); returns how many
    // errors are above `beyond` (INFINITY: none).
    int (*error)(const sinew_world *world, float beyond, float *max_error, double *sum_sq);
    // Particle `index` is destroyed and particle `moved_from` (the last) moves into its place;
    // NULL for kinds rebuilt every step.
    void (*remove_particle)(sinew_world *world, int index, int moved_from);
    // Removes the last elements until `count` are left, each in O(1) (a failed builder's rollback:
    // what it made is last). NULL for kinds rebuilt every step.
    void (*truncate)(sinew_world *world, int count);
    void (*free)(sinew_world *world);
    // The kind's part of the scratch groups (sinew__scratch_need and sinew__scratch_drop in
    // particle.c): room for its per-element arrays of the groups in `needs`, and their release. On
    // failure none of those `needs` asked for is allocated. NULL for kinds with no per-element
    // scratch.
    sinew_status (*scratch_need)(sinew_world *world, unsigned needs);
    void (*scratch_drop)(sinew_world *world, unsigned needs);
    // Snapshots (snapshot.c, through serial.h's streams): writes the kind's state; reads it back
    // into a world that has its particles and no constraint of the kind, checking every value
    // (false, r failed, when the snapshot is invalid). NULL for kinds rebuilt every step.
    void (*save)(const sinew_world *world, sinew__writer *w);
    bool (*load)(sinew_world *world, sinew__reader *r);
} sinew__kind_ops;

// solver.c: every kind once, in Gauss-Seidel's forward order.
extern const sinew__kind_ops *const sinew__kinds[SINEW_KIND_COUNT];

// distance_jacobi.c
// Jacobi for the distance constraints, in two passes. sinew__distances_prepare computes each
// link's step and counts the active ones into inv_n, as sinew__links_count_active_range does; once every
// kind is counted and inv_n inverted, sinew__distances_gather sums each link's factored step into
// particles.jacobi_x, jacobi_y at both ends, then moves each particle by its sums (and by acc, which
// it clears, when `scattered`: other kinds summed into it). sinew__distances_order builds their
// layout: runs of links with consecutive particles at both ends.
void sinew__distances_order(sinew_world *world);
// The run of Jacobi's layout that starts at place m (a place whose run_start bit is set).
sinew__run sinew__distances_run(const sinew__distances *d, int m);
void sinew__distances_prepare(sinew_world *world, float inv_h2);
void sinew__distances_gather(sinew_world *world, float omega, bool scattered);

// distance.c / pin.c
// Rebuilds distances.adj (each particle's distance-linked neighbours, for skip_linked_pairs)
// from the distance constraints when they changed.
void sinew__distances_adjacency(sinew_world *world);
// Regroups the links (outside the step, when they changed) so that Gauss-Seidel's blocks share no
// movable particle; see distance.c.
void sinew__distances_colour(sinew_world *world);
sinew_status sinew__distances_reserve(sinew_world *world, int capacity);
sinew_status sinew__pins_reserve(sinew_world *world, int capacity);
// End of a step: removes the links whose smoothed strain passed their tear ratio, into world->tears.
void sinew__distances_tear(sinew_world *world);

void sinew__pins_begin_step(sinew_world *world);
void sinew__pins_move_kinematic(sinew_world *world, float fraction);
