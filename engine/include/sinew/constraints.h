// sinew: constraints of the graph (distance, pin/target). Each kind is stored in its own dense
// arrays; ids stay valid until the constraint, or a particle it names, is destroyed.
//
// Stiffness or compliance: every constraint has both. With compliance 0 (the default) the
// constraint is PBD: each projection removes `stiffness` (0..1) of the error, so the effective
// stiffness depends on iterations and sub-steps. With compliance alpha > 0 (m/N) it is XPBD: a
// Lagrange multiplier is accumulated over the iterations of a sub-step, with alpha / h^2, which
// makes the stiffness independent of iterations and time step; `stiffness` then scales the
// correction (leave it at 1).
#pragma once

#include "base.h"
#include "vec2.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Which lengths a distance constraint allows.
typedef enum sinew_distance_mode {
    SINEW_DISTANCE_EQUAL = 0,    ///< length == rest (a rod, a cloth link)
    SINEW_DISTANCE_MAX_ONLY = 1, ///< length <= rest (a slack rope, a tether)
    SINEW_DISTANCE_MIN_ONLY = 2, ///< length >= rest (a strut that only pushes)
} sinew_distance_mode;

/// Use as `rest` to take the particles' current distance.
#define SINEW_REST_CURRENT (-1.0f)

/// Everything needed to create a distance constraint. Get one from sinew_default_distance_def().
typedef struct sinew_distance_def {
    sinew_particle_id a, b;   ///< the two particles; must differ
    float rest;               ///< rest length in metres >= 0, or SINEW_REST_CURRENT (default)
    sinew_distance_mode mode; ///< default SINEW_DISTANCE_EQUAL
    float stiffness;          ///< fraction of the error removed per projection, [0, 1]; default 1
    float compliance;         ///< XPBD compliance in m/N, >= 0; 0 (default) = PBD with stiffness
} sinew_distance_def;

/// Defaults as documented on each field.
SINEW_API sinew_distance_def sinew_default_distance_def(void);

/// Creates a distance constraint. Errors: NULL_ARGUMENT, INVALID_ID (a or b), SAME_PARTICLE,
/// NOT_FINITE, OUT_OF_RANGE (rest < 0 other than SINEW_REST_CURRENT, stiffness outside [0, 1],
/// compliance < 0, unknown mode), CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_distance_create(sinew_world *world, const sinew_distance_def *def,
                                             sinew_distance_id *out);

/// Destroys a distance constraint (the last one is swapped into its place, changing the
/// creation order seen by Gauss-Seidel). Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_distance_destroy(sinew_world *world, sinew_distance_id id);

/// True when `id` names a live distance constraint of `world`.
SINEW_API bool sinew_distance_is_valid(const sinew_world *world, sinew_distance_id id);

/// Reads a distance constraint back (rest is the resolved length). Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_distance_get(const sinew_world *world, sinew_distance_id id, sinew_distance_def *out);

/// Changes rest length, mode, stiffness and compliance (the particles a and b in `def` are
/// ignored). Same errors as create; on error nothing changes.
SINEW_API sinew_status sinew_distance_set(sinew_world *world, sinew_distance_id id, const sinew_distance_def *def);

/// Current length minus the nearest allowed length, in metres (positive = stretched).
/// Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_distance_get_error(const sinew_world *world, sinew_distance_id id, float *out);

/// Everything needed to create a pin/target constraint. Get one from sinew_default_pin_def().
/// On a particle of weight 0 the pin is kinematic: the particle is moved along the straight path
/// from where it was to the target over the sub-steps of a step (a hard pin, a dragged end).
/// On a particle of weight > 0 it is a constraint like any other (a mouse spring, an IK goal).
typedef struct sinew_pin_def {
    sinew_particle_id particle; ///< the pinned particle
    sinew_vec2 target;          ///< world point in metres
    float stiffness;            ///< [0, 1]; default 1
    float compliance;           ///< XPBD compliance in m/N, >= 0; default 0
} sinew_pin_def;

/// Defaults as documented on each field.
SINEW_API sinew_pin_def sinew_default_pin_def(void);

/// Creates a pin. Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE, OUT_OF_RANGE, CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_pin_create(sinew_world *world, const sinew_pin_def *def, sinew_pin_id *out);

/// Destroys a pin. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_pin_destroy(sinew_world *world, sinew_pin_id id);

/// True when `id` names a live pin of `world`.
SINEW_API bool sinew_pin_is_valid(const sinew_world *world, sinew_pin_id id);

/// Moves the pin's target (metres); call every frame to drag. Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE.
SINEW_API sinew_status sinew_pin_set_target(sinew_world *world, sinew_pin_id id, sinew_vec2 target);

/// Reads a pin back. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_pin_get(const sinew_world *world, sinew_pin_id id, sinew_pin_def *out);

/// Changes stiffness ([0, 1]) and compliance (m/N, >= 0).
/// Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE, OUT_OF_RANGE.
SINEW_API sinew_status sinew_pin_set_stiffness(sinew_world *world, sinew_pin_id id, float stiffness, float compliance);

#ifdef __cplusplus
}
#endif
