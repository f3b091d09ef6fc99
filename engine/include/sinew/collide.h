// sinew: collisions. Particles with SINEW_PARTICLE_COLLIDES are circles of their radius; every
// sub-step they are sorted into a uniform grid and each overlapping pair becomes a contact, solved
// in the same iterations as the other constraints, with position-based friction. Static colliders
// (half-planes, circles, capsules, boxes, convex polygons) stop particles, fast ones included:
// a particle that moves more than its radius in a sub-step is swept from where it was.
#pragma once

#include "base.h"
#include "vec2.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Most vertices a polygon collider may have.
#define SINEW_POLYGON_MAX_VERTICES 16

/// Material and filtering of a static collider, whatever its shape.
/// Get one from sinew_default_collider_def().
typedef struct sinew_collider_def {
    float friction;         ///< static friction coefficient >= 0, combined with the particle's as sqrt(a b); default 0.6
    float kinetic_friction; ///< kinetic friction coefficient >= 0; default 0.5
    uint32_t group;         ///< group bits of the collider; default 1
    uint32_t mask;          ///< particle groups it stops; default all bits
    void *user_data;        ///< returned by sinew_collider_user_data
    bool events;            ///< touches of particles with SINEW_PARTICLE_EVENTS make contact events; default true
} sinew_collider_def;

/// Defaults as documented on each field.
SINEW_API sinew_collider_def sinew_default_collider_def(void);

/// A half-plane: the free side is where dot(normal, x) >= offset (normal is normalised).
/// Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE (zero normal, negative friction; for every shape,
/// a coordinate, offset or radius beyond SINEW_MAX_COORDINATE), CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_plane_collider_create(sinew_world *world, const sinew_collider_def *def, sinew_vec2 normal,
                                                   float offset, sinew_collider_id *out);

/// A solid disc. Errors: as for planes; OUT_OF_RANGE for radius <= 0.
SINEW_API sinew_status sinew_circle_collider_create(sinew_world *world, const sinew_collider_def *def, sinew_vec2 center,
                                                    float radius, sinew_collider_id *out);

/// A segment a-b thickened by `radius` (a capsule; radius 0 is a thin segment that still stops
/// particles by their own radius). Errors: as for planes; OUT_OF_RANGE for radius < 0 or a == b.
SINEW_API sinew_status sinew_segment_collider_create(sinew_world *world, const sinew_collider_def *def, sinew_vec2 a,
                                                     sinew_vec2 b, float radius, sinew_collider_id *out);

/// An axis-aligned solid box. Errors: as for planes; OUT_OF_RANGE unless min < max on both axes.
SINEW_API sinew_status sinew_box_collider_create(sinew_world *world, const sinew_collider_def *def, sinew_vec2 min,
                                                 sinew_vec2 max, sinew_collider_id *out);

/// A solid convex polygon, 3..SINEW_POLYGON_MAX_VERTICES vertices in either winding, rounded by
/// `radius` >= 0. The vertices are copied. Errors: as for planes; OUT_OF_RANGE for a count out of
/// range, a polygon that is not strictly convex, or a negative radius.
SINEW_API sinew_status sinew_polygon_collider_create(sinew_world *world, const sinew_collider_def *def,
                                                     const sinew_vec2 *vertices, int count, float radius,
                                                     sinew_collider_id *out);

/// Four half-planes facing into the box [min, max]: floor, ceiling, left and right walls, written
/// to `out` in that order (`out` may be NULL). Errors: as for planes; OUT_OF_RANGE unless min < max.
SINEW_API sinew_status sinew_world_bounds_create(sinew_world *world, const sinew_collider_def *def, sinew_vec2 min,
                                                 sinew_vec2 max, sinew_collider_id out[4]);

/// Destroys a collider. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_collider_destroy(sinew_world *world, sinew_collider_id id);

/// True when `id` names a live collider of `world`.
SINEW_API bool sinew_collider_is_valid(const sinew_world *world, sinew_collider_id id);

/// The collider's user_data, or NULL for an invalid id.
SINEW_API void *sinew_collider_user_data(const sinew_world *world, sinew_collider_id id);

/// Collider geometry, for drawing.
typedef enum sinew_collider_type {
    SINEW_COLLIDER_PLANE = 0,   ///< normal, offset
    SINEW_COLLIDER_POLYGON = 1, ///< vertices (1 = disc, 2 = capsule, 3+ = polygon, counter-clockwise), radius
} sinew_collider_type;

/// Shape of a collider. Vertices point into the world: valid until the collider is destroyed.
typedef struct sinew_collider_shape {
    sinew_collider_type type;
    sinew_vec2 normal;          ///< plane: unit normal of the free side
    float offset;               ///< plane: dot(normal, x) >= offset is free
    const sinew_vec2 *vertices; ///< polygon: vertex_count points
    int vertex_count;
    float radius;               ///< polygon: rounding radius (disc radius for one vertex)
} sinew_collider_shape;

/// Number of live colliders; they are at dense indices 0..count-1.
SINEW_API int sinew_world_collider_count(const sinew_world *world);

/// The id of the collider at dense index `index`, or the null id when out of range.
SINEW_API sinew_collider_id sinew_collider_id_at(const sinew_world *world, int index);

/// Reads a collider's shape. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_collider_get_shape(const sinew_world *world, sinew_collider_id id,
                                                sinew_collider_shape *out);

/// Particles whose centre lies in the box [min, max]: writes up to `capacity` ids to `out` and
/// the number found (which may exceed capacity) to `*count`. Uses the grid of the last step.
/// Errors: NULL_ARGUMENT (world, count, or out with capacity > 0), NOT_FINITE, OUT_OF_RANGE
/// (negative capacity).
SINEW_API sinew_status sinew_world_query_aabb(const sinew_world *world, sinew_vec2 min, sinew_vec2 max,
                                              sinew_particle_id *out, int capacity, int *count);

/// Particles whose centre lies within `radius` of `center`; same conventions as query_aabb.
SINEW_API sinew_status sinew_world_query_circle(const sinew_world *world, sinew_vec2 center, float radius,
                                                sinew_particle_id *out, int capacity, int *count);

/// The particle whose centre is nearest `point` within `max_distance`, or the null id when none is
/// (for picking under the mouse). Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE (negative distance).
SINEW_API sinew_status sinew_world_query_nearest(const sinew_world *world, sinew_vec2 point, float max_distance,
                                                 sinew_particle_id *out);

/// What a ray hits: particles (as circles of their radius) and colliders whose `group` meets the
/// filter's `mask` and whose `mask` meets the filter's `group`, as contacts filter.
typedef struct sinew_ray_filter {
    uint32_t group;  ///< default all bits
    uint32_t mask;   ///< default all bits
    bool particles;  ///< default true
    bool colliders;  ///< default true
} sinew_ray_filter;

/// Defaults as documented on each field: everything is hit.
SINEW_API sinew_ray_filter sinew_default_ray_filter(void);

/// Where a ray met a particle or a collider.
typedef struct sinew_ray_hit {
    bool hit;                     ///< false: nothing on the ray (the other fields are zero)
    sinew_particle_id particle;   ///< the particle hit, or the null id
    sinew_collider_id collider;   ///< the collider hit, or the null id
    float fraction;               ///< of the translation, in [0, 1]
    sinew_vec2 point;             ///< origin + fraction * translation, metres
    sinew_vec2 normal;            ///< unit surface normal at the point, pointing back along the ray
} sinew_ray_hit;

/// The closest hit along origin + t * translation, t in [0, 1]. A ray that starts inside a
/// particle or a collider does not hit it. Ties go to the particle with the lowest index, then
/// to the collider with the lowest index (deterministic). Errors: NULL_ARGUMENT (world, out),
/// NOT_FINITE, OUT_OF_RANGE (a coordinate beyond SINEW_MAX_COORDINATE). `filter` may be NULL.
SINEW_API sinew_status sinew_world_cast_ray(const sinew_world *world, sinew_vec2 origin, sinew_vec2 translation,
                                            const sinew_ray_filter *filter, sinew_ray_hit *out);

/// Called for each hit of sinew_world_cast_ray_all, in no particular order. Return -1 to ignore
/// the hit and go on, 0 to stop, the hit's fraction to keep only closer hits from then on, or 1
/// to go on with every hit.
typedef float (*sinew_ray_fn)(const sinew_ray_hit *hit, void *context);

/// Every hit along the ray, through `fn` (particles first, then colliders, each in index order).
/// Errors: as sinew_world_cast_ray, and NULL_ARGUMENT for a NULL fn.
SINEW_API sinew_status sinew_world_cast_ray_all(const sinew_world *world, sinew_vec2 origin, sinew_vec2 translation,
                                                const sinew_ray_filter *filter, sinew_ray_fn fn, void *context);

/// A touch that began in the last step: two particles (b valid, collider null) or a particle and a
/// collider (b null). Made when either particle has SINEW_PARTICLE_EVENTS, or, against a collider,
/// when the particle has it and the collider's `events` is on.
typedef struct sinew_contact_begin_event {
    sinew_particle_id a;         ///< a particle of the pair (the lower id for two particles)
    sinew_particle_id b;         ///< the other particle, or the null id
    sinew_collider_id collider;  ///< the collider, or the null id
    sinew_vec2 point;            ///< on a's surface, towards the other, metres
    sinew_vec2 normal;           ///< unit, from a towards the other (for a collider: into it)
    float approach_speed;        ///< m/s along the normal at the start of the step (>= 0): for sounds, damage
} sinew_contact_begin_event;

/// A touch that ended in the last step (or whose particle or collider was destroyed since).
typedef struct sinew_contact_end_event {
    sinew_particle_id a, b;      ///< as in the begin event (ids may no longer be valid)
    sinew_collider_id collider;
} sinew_contact_end_event;

/// The contact events of the last step, owned by the world, valid until the next step. Begin
/// events come sorted by (a, b or collider); so do end events. Two particles touch when they are
/// closer than their radii plus 0.1%; a particle touches a collider within 0.1% of its radius.
typedef struct sinew_contact_events {
    const sinew_contact_begin_event *begin;
    int begin_count;
    const sinew_contact_end_event *end;
    int end_count;
} sinew_contact_events;

/// The contact events of the last step (empty for a NULL world or before any step).
SINEW_API sinew_contact_events sinew_world_contact_events(const sinew_world *world);

/// Turns a collider's contact events on or off. Errors: NULL_ARGUMENT, INVALID_ID.
SINEW_API sinew_status sinew_collider_set_events(sinew_world *world, sinew_collider_id id, bool events);

#ifdef __cplusplus
}
#endif
