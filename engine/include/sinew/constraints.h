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
    float rest;               ///< rest length in metres, 0..SINEW_MAX_COORDINATE, or SINEW_REST_CURRENT (default)
    sinew_distance_mode mode; ///< default SINEW_DISTANCE_EQUAL
    float stiffness;          ///< fraction of the error removed per projection, [0, 1]; default 1
    float compliance;         ///< XPBD compliance in m/N, >= 0; 0 (default) = PBD with stiffness
    float tear_ratio;         ///< 0 (default) = never tears; else > 1: the link is removed when its
                              ///< length / rest, smoothed over steps, exceeds this (see sinew_world_tears)
    void *user_data;          ///< returned by sinew_distance_user_data; default NULL
} sinew_distance_def;

/// Defaults as documented on each field.
SINEW_API sinew_distance_def sinew_default_distance_def(void);

/// Creates a distance constraint. Errors: NULL_ARGUMENT, INVALID_ID (a or b), SAME_PARTICLE,
/// NOT_FINITE, OUT_OF_RANGE (rest < 0 other than SINEW_REST_CURRENT or > SINEW_MAX_COORDINATE,
/// stiffness outside [0, 1],
/// compliance < 0, tear_ratio neither 0 nor > 1, unknown mode), CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_distance_create(sinew_world *world, const sinew_distance_def *def,
                                             sinew_distance_id *out);

/// Destroys a distance constraint (the last one is swapped into its place, changing the
/// creation order seen by Gauss-Seidel). Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_distance_destroy(sinew_world *world, sinew_distance_id id);

/// True when `id` names a live distance constraint of `world`.
SINEW_API bool sinew_distance_is_valid(const sinew_world *world, sinew_distance_id id);

/// The constraint's user data, or NULL for an invalid id.
SINEW_API void *sinew_distance_user_data(const sinew_world *world, sinew_distance_id id);

/// Sets the user data sinew_distance_user_data returns. Errors: NULL_ARGUMENT, INVALID_ID,
/// OUT_OF_MEMORY (the first non-NULL user data makes an array for every constraint).
SINEW_API sinew_status sinew_distance_set_user_data(sinew_world *world, sinew_distance_id id, void *user_data);

/// Reads a distance constraint back (rest is the resolved length). Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_distance_get(const sinew_world *world, sinew_distance_id id, sinew_distance_def *out);

/// Changes rest length, mode, stiffness, compliance and tear ratio (the particles a and b and the
/// user data in `def` are ignored). Same errors as create; on error nothing changes.
SINEW_API sinew_status sinew_distance_set(sinew_world *world, sinew_distance_id id, const sinew_distance_def *def);

/// The current distance between the constraint's two particles, metres. Errors: NULL_ARGUMENT,
/// INVALID_ID.
SINEW_API sinew_status sinew_distance_get_length(const sinew_world *world, sinew_distance_id id, float *out);

/// The constraint's tension in newtons over the last sub-step of the last step: what it applied
/// to its particles in total, divided by the sub-step's length squared; positive when it pulled
/// them together (stretched), negative when it pushed them apart. Needs a step run with
/// `solver.link_forces` (or any soft distance constraint in the world); a constraint made since
/// reads 0. Errors: NULL_ARGUMENT, INVALID_ID, NOT_MEASURED (no such step yet, or the sum is not
/// finite: a particle of the link was reset in that sub-step).
SINEW_API sinew_status sinew_distance_get_force(const sinew_world *world, sinew_distance_id id, float *out);

/// Current length minus the nearest allowed length, in metres (positive = stretched).
/// Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_distance_get_error(const sinew_world *world, sinew_distance_id id, float *out);

/// Everything needed to create a pin/target constraint. Get one from sinew_default_pin_def().
/// On a particle of weight 0 the pin is kinematic: the particle is moved along the straight path
/// from where it was to the target over the sub-steps of a step (a hard pin, a dragged end).
/// On a particle of weight > 0 it is a constraint like any other (a mouse spring, an IK goal).
typedef struct sinew_pin_def {
    sinew_particle_id particle; ///< the pinned particle
    sinew_vec2 target;          ///< world point in metres, within +-SINEW_MAX_COORDINATE
    float stiffness;            ///< [0, 1]; default 1
    float compliance;           ///< XPBD compliance in m/N, >= 0; default 0
    float max_force;            ///< newtons > 0: the most the pin pulls with (beyond it the particle
                                ///< trails the target); default INFINITY, no limit
    void *user_data;          ///< returned by sinew_pin_user_data; default NULL
} sinew_pin_def;

/// Defaults as documented on each field.
SINEW_API sinew_pin_def sinew_default_pin_def(void);

/// Creates a pin. Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE, OUT_OF_RANGE, CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_pin_create(sinew_world *world, const sinew_pin_def *def, sinew_pin_id *out);

/// Destroys a pin. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_pin_destroy(sinew_world *world, sinew_pin_id id);

/// True when `id` names a live pin of `world`.
SINEW_API bool sinew_pin_is_valid(const sinew_world *world, sinew_pin_id id);

/// The constraint's user data, or NULL for an invalid id.
SINEW_API void *sinew_pin_user_data(const sinew_world *world, sinew_pin_id id);

/// Sets the user data sinew_pin_user_data returns. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_pin_set_user_data(sinew_world *world, sinew_pin_id id, void *user_data);

/// Moves the pin's target (metres); call every frame to drag. Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE,
/// OUT_OF_RANGE (beyond SINEW_MAX_COORDINATE).
SINEW_API sinew_status sinew_pin_set_target(sinew_world *world, sinew_pin_id id, sinew_vec2 target);

/// Reads a pin back. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_pin_get(const sinew_world *world, sinew_pin_id id, sinew_pin_def *out);

/// Changes stiffness ([0, 1]) and compliance (m/N, >= 0).
/// Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE, OUT_OF_RANGE.
SINEW_API sinew_status sinew_pin_set_stiffness(sinew_world *world, sinew_pin_id id, float stiffness, float compliance);

/// Changes the most force the pin applies, newtons > 0 (INFINITY: no limit).
/// Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE (NaN), OUT_OF_RANGE (<= 0).
SINEW_API sinew_status sinew_pin_set_max_force(sinew_world *world, sinew_pin_id id, float max_force);

/// The force in newtons the pin applied to its particle over the last sub-step of the last step
/// (what it applied in total, divided by the sub-step's length squared; toward the target). Zero
/// before the first step and on an immovable particle (a kinematic pin). Errors: NULL_ARGUMENT,
/// INVALID_ID, NOT_MEASURED (the sum is not finite: the particle was reset in that sub-step, see
/// sinew_step_stats.reset_particles).
SINEW_API sinew_status sinew_pin_get_force(const sinew_world *world, sinew_pin_id id, sinew_vec2 *out);

/// A torn distance constraint: its id (no longer valid) and the particles it joined.
typedef struct sinew_tear {
    sinew_distance_id link;
    sinew_particle_id a, b;
} sinew_tear;

/// The distance constraints torn by the last step, each reported once; `*count` gets how many.
/// Owned by the world, valid until the next step. Never NULL for a valid world (count may be 0).
SINEW_API const sinew_tear *sinew_world_tears(const sinew_world *world, int *count);

/// Everything needed to create an area constraint (the 2D form of a volume constraint). Get one
/// from sinew_default_area_def(). The ring keeps pressure * rest_area; its correction moves each
/// vertex along the ring's outward normal, weighted by the particles' weights.
typedef struct sinew_area_def {
    const sinew_particle_id *particles; ///< the ring in order, either winding; copied; no repeats
    int count;                          ///< 3 or more
    float rest_area;  ///< m^2 > 0, or SINEW_REST_CURRENT (default): the ring's area now
    float pressure;   ///< the ring keeps pressure * rest_area, > 0; default 1
    float stiffness;  ///< [0, 1]; default 1
    float compliance; ///< XPBD compliance, m^2 of area error per unit of multiplier, >= 0; default 0
    void *user_data;          ///< returned by sinew_area_user_data; default NULL
} sinew_area_def;

/// Defaults as documented on each field.
SINEW_API sinew_area_def sinew_default_area_def(void);

/// Creates an area constraint. Errors: NULL_ARGUMENT, INVALID_ID, SAME_PARTICLE (a repeated
/// particle), NOT_FINITE, OUT_OF_RANGE (count < 3, rest area not > 0, a current area of 0 with
/// SINEW_REST_CURRENT, pressure <= 0, pressure * rest area above 4 SINEW_MAX_COORDINATE^2, stiffness,
/// compliance), CAPACITY, OUT_OF_MEMORY. A refused call changes nothing. O(count).
SINEW_API sinew_status sinew_area_create(sinew_world *world, const sinew_area_def *def, sinew_area_id *out);

/// Destroys an area constraint. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_area_destroy(sinew_world *world, sinew_area_id id);

/// True when `id` names a live area constraint of `world`.
SINEW_API bool sinew_area_is_valid(const sinew_world *world, sinew_area_id id);

/// The constraint's user data, or NULL for an invalid id.
SINEW_API void *sinew_area_user_data(const sinew_world *world, sinew_area_id id);

/// Sets the user data sinew_area_user_data returns. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_area_set_user_data(sinew_world *world, sinew_area_id id, void *user_data);

/// The ring's current area in m^2 (positive, whatever the winding, unless turned inside out).
/// Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_area_get_area(const sinew_world *world, sinew_area_id id, float *out);

/// The rest area in m^2 (the ring keeps pressure * rest area). Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_area_get_rest(const sinew_world *world, sinew_area_id id, float *out);

/// Changes the rest area (m^2, > 0): grow or shrink the ring's target. Errors: NULL_ARGUMENT,
/// INVALID_ID, NOT_FINITE, OUT_OF_RANGE (not > 0, or pressure * rest area above 4
/// SINEW_MAX_COORDINATE^2).
SINEW_API sinew_status sinew_area_set_rest(sinew_world *world, sinew_area_id id, float rest_area);

/// Changes the pressure (> 0): inflate or deflate. Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE,
/// OUT_OF_RANGE (not > 0, or pressure * rest area above 4 SINEW_MAX_COORDINATE^2).
SINEW_API sinew_status sinew_area_set_pressure(sinew_world *world, sinew_area_id id, float pressure);

/// Everything needed to create an angle constraint. Get one from sinew_default_angle_def().
/// The angle at b is the signed turn from (b - a) to (c - b), in (-pi, pi]: 0 when a, b, c are in
/// line, positive turning counter-clockwise. It is kept in [min, max]; when min > max the allowed
/// range is the one through +-pi (from min up to pi, then from -pi up to max).
typedef struct sinew_angle_def {
    sinew_particle_id a, b, c; ///< the joint is at b; three different particles
    float min, max;            ///< radians in [-pi, pi]; default 0, 0 (held straight)
    float stiffness;           ///< [0, 1]; default 1
    float compliance;          ///< XPBD compliance in rad/(N m), >= 0; default 0
    void *user_data;          ///< returned by sinew_angle_user_data; default NULL
} sinew_angle_def;

/// Defaults as documented on each field.
SINEW_API sinew_angle_def sinew_default_angle_def(void);

/// Creates an angle constraint. Errors: NULL_ARGUMENT, INVALID_ID, SAME_PARTICLE, NOT_FINITE,
/// OUT_OF_RANGE (limits outside [-pi, pi], stiffness, compliance), CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_angle_create(sinew_world *world, const sinew_angle_def *def, sinew_angle_id *out);

/// Destroys an angle constraint. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_angle_destroy(sinew_world *world, sinew_angle_id id);

/// True when `id` names a live angle constraint of `world`.
SINEW_API bool sinew_angle_is_valid(const sinew_world *world, sinew_angle_id id);

/// The constraint's user data, or NULL for an invalid id.
SINEW_API void *sinew_angle_user_data(const sinew_world *world, sinew_angle_id id);

/// Sets the user data sinew_angle_user_data returns. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_angle_set_user_data(sinew_world *world, sinew_angle_id id, void *user_data);

/// The current angle at b in radians, (-pi, pi]. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_angle_get_angle(const sinew_world *world, sinew_angle_id id, float *out);

/// Changes the limits (radians in [-pi, pi]). Errors: NULL_ARGUMENT, INVALID_ID, NOT_FINITE, OUT_OF_RANGE.
SINEW_API sinew_status sinew_angle_set_limits(sinew_world *world, sinew_angle_id id, float min, float max);

/// Number of live distance constraints; they are at dense indices 0..count-1 (indices change when
/// one is destroyed; ids do not).
SINEW_API int sinew_world_distance_count(const sinew_world *world);

/// The id of the distance constraint at dense index `index`, or the null id when out of range.
SINEW_API sinew_distance_id sinew_distance_id_at(const sinew_world *world, int index);

/// Number of live pin constraints; they are at dense indices 0..count-1 (indices change when
/// one is destroyed; ids do not).
SINEW_API int sinew_world_pin_count(const sinew_world *world);

/// The id of the pin constraint at dense index `index`, or the null id when out of range.
SINEW_API sinew_pin_id sinew_pin_id_at(const sinew_world *world, int index);

/// Number of live area constraints; they are at dense indices 0..count-1 (indices change when
/// one is destroyed; ids do not).
SINEW_API int sinew_world_area_count(const sinew_world *world);

/// The id of the area constraint at dense index `index`, or the null id when out of range.
SINEW_API sinew_area_id sinew_area_id_at(const sinew_world *world, int index);

/// Number of live angle constraints; they are at dense indices 0..count-1 (indices change when
/// one is destroyed; ids do not).
SINEW_API int sinew_world_angle_count(const sinew_world *world);

/// The id of the angle constraint at dense index `index`, or the null id when out of range.
SINEW_API sinew_angle_id sinew_angle_id_at(const sinew_world *world, int index);

#ifdef __cplusplus
}
#endif
