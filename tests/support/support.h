// Shared helpers for the cmocka tests.
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sinew/sinew.h>

// An allocator that counts calls and live bytes, and fails on request.
typedef struct counting_allocator {
    uint64_t allocs;        // successful alloc calls so far
    uint64_t frees;         // free calls so far
    size_t live_bytes;      // bytes allocated and not freed
    int64_t fail_after;     // fail every alloc once `allocs` reaches this; -1 = never
} counting_allocator;

// Resets the counters and returns an allocator that reports to `c`.
sinew_allocator counting_allocator_make(counting_allocator *c);

// FNV-1a hash of the bytes of every particle's position and previous position.
uint64_t hash_positions(const sinew_world *world);

// Steps the world `steps` times by 1/60 s, failing the test unless each step returns SINEW_OK.
void step_world(sinew_world *world, int steps);

// splitmix64 (the engine's): the next 64 random bits from `state`, so random scenes do not
// depend on rand().
uint64_t next_random(uint64_t *state);

// Fails unless a call returned `expected`, naming the case (printf-style) and both statuses.
void assert_status_at(sinew_status got, sinew_status expected, const char *what_format, ...);
#define assert_status(got, expected, ...) assert_status_at((got), (expected), __VA_ARGS__)

// A number drawn uniformly from [lo, hi) with 53 random bits, advancing `state`.
double uniform(uint64_t *state, double lo, double hi);
// A point drawn uniformly from [xlo, xhi) x [ylo, yhi): y first, then x. Two draws written as one
// call's arguments come in the order the compiler picks (GCC's builds take arguments right to
// left, clang's left to right), and a test would meet another scenario under each; this is the
// order the tests' GCC builds have always drawn in, so their scenarios stay the ones measured.
sinew_vec2 uniform_vec2(uint64_t *state, double xlo, double xhi, double ylo, double yhi);

// A world with default settings and the given solver mode; asserts on failure.
sinew_world *make_world(sinew_solver_mode mode);

// Creates a particle at (x, y) with the given weight; asserts on failure.
sinew_particle_id make_particle(sinew_world *world, float x, float y, float weight);

// Creates a particle at (x, y) with the given weight and collisions off; asserts on failure.
sinew_particle_id make_free_particle(sinew_world *world, float x, float y, float weight);

// Links two particles at their current distance; asserts on failure.
sinew_distance_id make_link(sinew_world *world, sinew_particle_id a, sinew_particle_id b);

// Position of a particle; asserts the id is valid.
sinew_vec2 position_of(const sinew_world *world, sinew_particle_id id);

// What the world holds: particles from the view, constraints per kind from the stats of one
// step (the step moves things: take it last), colliders from their count.
typedef struct held {
    int particles, distances, pins, areas, angles, colliders;
} held;

// Steps the world once by 1/60 s and returns what it holds; asserts the step succeeds.
held count_by_stepping(sinew_world *world);

// Fails, naming `what` and every count, unless the world held what a builder's counts say.
void assert_held(held h, sinew_scene_counts c, const char *what);

// Asserts |a - b| <= tol, printing both on failure.
#define assert_near(a, b, tol)                                                                   \
    do {                                                                                         \
        double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                           \
        if (!(a_ - b_ <= t_ && b_ - a_ <= t_)) {                                                 \
            fail_msg("%s = %.9g, %s = %.9g, differ by more than %.3g", #a, a_, #b, b_, t_);     \
        }                                                                                        \
    } while (0)

// An IK arm's ids, in arrays the arm's pointers use (so the struct must not move once built).
typedef struct arm_ids {
    sinew_ik_arm arm;
    sinew_particle_id particles[SINEW_IK_MAX_BONES + 2];
    sinew_distance_id bones[SINEW_IK_MAX_BONES];
    sinew_angle_id limits[SINEW_IK_MAX_BONES];
    sinew_ik_limit limit_values[SINEW_IK_MAX_BONES];
} arm_ids;

// Builds an IK arm in `world` into `out`; asserts on failure.
void make_arm_in(sinew_world *world, const sinew_ik_arm_def *def, arm_ids *out);
