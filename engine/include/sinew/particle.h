// sinew: the particle store (structure of arrays) and particle handles.
#pragma once

#include "base.h"
#include "vec2.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Particle flags (bit mask).
typedef enum sinew_particle_flags {
    SINEW_PARTICLE_COLLIDES = 1u << 0, ///< takes part in collisions
    SINEW_PARTICLE_EVENTS = 1u << 1,   ///< its touches begin and end as contact events (sinew_world_contact_events)
} sinew_particle_flags;

/// Everything needed to create a particle. Get one from sinew_default_particle_def().
typedef struct sinew_particle_def {
    sinew_vec2 position; ///< metres, each coordinate within +-SINEW_MAX_COORDINATE; default (0, 0)
    sinew_vec2 velocity; ///< m/s, each component within +-SINEW_MAX_SPEED; default (0, 0); ignored
                         ///< when weight is 0 (immovable particles rest)
    float weight;        ///< inverse mass in 1/kg, >= 0; 0 = immovable (never moved by the solver); default 1
    float radius;        ///< metres, 0..SINEW_MAX_COORDINATE; used by collisions; default 0.1
    uint32_t flags;      ///< sinew_particle_flags; default SINEW_PARTICLE_COLLIDES
    uint32_t group;      ///< collision group bits the particle belongs to; default 1
    uint32_t mask;       ///< group bits it collides with: a pair collides when each one's group
                         ///< meets the other's mask; default all bits
    float friction;      ///< static friction coefficient >= 0 (combined per contact as sqrt(a b)); default 0.6
    float kinetic_friction; ///< kinetic friction coefficient >= 0; default 0.5
    void *user_data;     ///< returned by sinew_particle_user_data
} sinew_particle_def;

/// Defaults as documented on each field.
SINEW_API sinew_particle_def sinew_default_particle_def(void);

/// Creates a particle. Errors: NULL_ARGUMENT, NOT_FINITE (position, velocity, weight, radius,
/// frictions), NEGATIVE_WEIGHT, NEGATIVE_RADIUS, OUT_OF_RANGE (negative friction, a position or
/// radius beyond SINEW_MAX_COORDINATE, a speed beyond SINEW_MAX_SPEED), CAPACITY,
/// OUT_OF_MEMORY. On error `*out` is untouched.
SINEW_API sinew_status sinew_particle_create(sinew_world *world, const sinew_particle_def *def,
                                             sinew_particle_id *out);

/// Destroys a particle and every constraint attached to it (O(constraints)). The last particle
/// is moved into its slot, so dense indices change; ids do not. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_particle_destroy(sinew_world *world, sinew_particle_id id);

/// True when `id` names a live particle of `world`.
SINEW_API bool sinew_particle_is_valid(const sinew_world *world, sinew_particle_id id);

/// Position in metres. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_particle_get_position(const sinew_world *world, sinew_particle_id id, sinew_vec2 *out);

/// Moves a particle, keeping its velocity (a teleport). Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE,
/// OUT_OF_RANGE (a coordinate beyond SINEW_MAX_COORDINATE).
SINEW_API sinew_status sinew_particle_set_position(sinew_world *world, sinew_particle_id id, sinew_vec2 position);

/// Velocity in m/s: the displacement over the last sub-step divided by its length (the engine
/// keeps that displacement exactly; x - px can differ from it by position rounding).
/// Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_particle_get_velocity(const sinew_world *world, sinew_particle_id id, sinew_vec2 *out);

/// Sets the velocity in m/s (moves the previous position). Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE,
/// OUT_OF_RANGE (a component beyond SINEW_MAX_SPEED).
SINEW_API sinew_status sinew_particle_set_velocity(sinew_world *world, sinew_particle_id id, sinew_vec2 velocity);

/// Weight (inverse mass, 1/kg). Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_particle_get_weight(const sinew_world *world, sinew_particle_id id, float *out);

/// Sets the weight (inverse mass, 1/kg, 0 = immovable). Errors: NULL_ARGUMENT, INVALID_ID,
/// NOT_FINITE, NEGATIVE_WEIGHT.
SINEW_API sinew_status sinew_particle_set_weight(sinew_world *world, sinew_particle_id id, float weight);

/// Adds a force in newtons for the next step only (acceleration += weight * force). The world's
/// first force allocates its force arrays (8 bytes a particle). Errors: NULL_ARGUMENT,
/// INVALID_ID, NOT_FINITE, OUT_OF_MEMORY (nothing applied).
SINEW_API sinew_status sinew_particle_apply_force(sinew_world *world, sinew_particle_id id, sinew_vec2 force);

/// Everything about a particle now, as a def: position, velocity (m/s, as
/// sinew_particle_get_velocity), weight, radius, flags, group, mask, frictions (stored as their
/// square roots, so read back within a float's rounding) and user data. Creating a particle from
/// it makes one like it. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_particle_get(const sinew_world *world, sinew_particle_id id, sinew_particle_def *out);

/// Sets the radius in metres, from the next step on (contacts and queries follow it). Errors:
/// NULL_ARGUMENT, INVALID_ID, NOT_FINITE, NEGATIVE_RADIUS, OUT_OF_RANGE (beyond SINEW_MAX_COORDINATE).
SINEW_API sinew_status sinew_particle_set_radius(sinew_world *world, sinew_particle_id id, float radius);

/// Sets the flags (sinew_particle_flags): clearing SINEW_PARTICLE_COLLIDES takes the particle out of
/// collisions from the next step on. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_particle_set_flags(sinew_world *world, sinew_particle_id id, uint32_t flags);

/// Sets the collision group and mask (a pair collides when each one's group meets the other's
/// mask), from the next step on. The first filter that differs from the one every other particle
/// has allocates the filter arrays (8 bytes a particle). Errors: NULL_ARGUMENT, INVALID_ID,
/// OUT_OF_MEMORY (nothing set).
SINEW_API sinew_status sinew_particle_set_filter(sinew_world *world, sinew_particle_id id, uint32_t group,
                                                 uint32_t mask);

/// Sets the static and kinetic friction coefficients (>= 0; a contact combines two as sqrt(a b)).
/// The first frictions that differ from the ones every other particle has allocate the friction
/// arrays (8 bytes a particle). Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE, OUT_OF_RANGE
/// (negative), OUT_OF_MEMORY (nothing set).
SINEW_API sinew_status sinew_particle_set_friction(sinew_world *world, sinew_particle_id id, float friction,
                                                   float kinetic_friction);

/// Sets the user data sinew_particle_user_data returns. The world's first non-NULL user data
/// allocates its user data array (8 bytes a particle). Errors: NULL_ARGUMENT, INVALID_ID,
/// OUT_OF_MEMORY (nothing set).
SINEW_API sinew_status sinew_particle_set_user_data(sinew_world *world, sinew_particle_id id, void *user_data);

/// The particle's user_data, or NULL for an invalid id.
SINEW_API void *sinew_particle_user_data(const sinew_world *world, sinew_particle_id id);

/// Dense index of a live particle in the bulk view, or -1 for an invalid id. Indices change when
/// a particle is destroyed.
SINEW_API int sinew_particle_index(const sinew_world *world, sinew_particle_id id);

/// The id of the particle at dense index `index` of the bulk view, or the null id when out of range.
SINEW_API sinew_particle_id sinew_particle_id_at(const sinew_world *world, int index);

/// Read-only view of the particle arrays (structure of arrays), `count` entries each, dense.
/// Owned by the world: valid until the next call that creates or destroys particles.
typedef struct sinew_particle_view {
    int count;
    const float *x, *y;   ///< current position, metres
    const float *px, *py; ///< position at the start of the last sub-step, metres
    const float *weight;  ///< inverse mass, 1/kg
    const float *radius;  ///< metres
    const uint32_t *flags;///< sinew_particle_flags
} sinew_particle_view;

/// The bulk view of the particle store. A NULL world gives an empty view.
SINEW_API sinew_particle_view sinew_world_particles(const sinew_world *world);

#ifdef __cplusplus
}
#endif
