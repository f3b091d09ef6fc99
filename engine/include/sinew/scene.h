// sinew: scene builders. Each takes a def with defaults, creates particles and constraints in a
// world and writes the ids it made into arrays the caller owns (any of them may be NULL; size
// them with the matching *_counts function). A builder that fails destroys what it had made, so
// the world is left as it was.
#pragma once

#include "base.h"
#include "vec2.h"
#include "world.h"
#include "constraints.h"
#include "collide.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A rope: `links` distance constraints joining links + 1 particles on the segment start..end.
/// Links are created in two passes (even links, then odd links): consecutive constraints share no
/// particle, which lets Gauss-Seidel overlap their arithmetic; see docs/solver.md.
typedef struct sinew_rope_def {
    sinew_vec2 start, end;     ///< metres; default (0, 0) and (10, 0)
    int links;                 ///< >= 1; default 40
    float weight;              ///< inverse mass of each free particle, 1/kg, > 0; default 1
    float radius;              ///< particle radius in metres; default 0.05
    uint32_t particle_flags;   ///< default 0 (ropes do not collide unless asked)
    bool pin_start, pin_end;   ///< pinned ends get weight 0 and a kinematic pin; default true, false
    sinew_distance_mode mode;  ///< SINEW_DISTANCE_MAX_ONLY makes a slack rope; default EQUAL
    float stiffness;           ///< link stiffness [0, 1]; default 1
    float compliance;          ///< link compliance m/N; default 0
} sinew_rope_def;

/// Defaults as documented on each field.
SINEW_API sinew_rope_def sinew_default_rope_def(void);

/// Ids a rope builder made. Arrays are the caller's; NULL ones are not written.
typedef struct sinew_rope {
    sinew_particle_id *particles; ///< links + 1 entries, from start to end
    sinew_distance_id *links;     ///< `links` entries, link k joins particles k and k + 1
    sinew_pin_id start_pin, end_pin; ///< null when that end is free
} sinew_rope;

/// Particles and distance constraints a rope def makes.
SINEW_API void sinew_rope_counts(const sinew_rope_def *def, int *particles, int *links);

/// Builds a rope. `out` may be NULL. Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE (links < 1,
/// weight <= 0, radius < 0, stiffness, compliance), CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_rope_create(sinew_world *world, const sinew_rope_def *def, sinew_rope *out);

/// Which cloth particles are pinned (weight 0, kinematic pin).
typedef enum sinew_cloth_pin {
    SINEW_CLOTH_PIN_NONE = 0,
    SINEW_CLOTH_PIN_TOP_ROW = 1,     ///< every particle of row 0
    SINEW_CLOTH_PIN_TOP_CORNERS = 2, ///< the two ends of row 0
} sinew_cloth_pin;

/// A cloth: a grid of columns x rows particles, row r at y = origin.y - spacing r, column c at
/// x = origin.x + spacing c, joined by horizontal and vertical links. Links whose two ends are
/// both pinned are left out (they could never act). For 100 x 100 with the top row pinned this is
/// the `cloth` benchmark scene (19,701 links).
typedef struct sinew_cloth_def {
    sinew_vec2 origin;       ///< position of row 0, column 0, metres; default (0, 0)
    int columns, rows;       ///< >= 1 each, at least 2 particles; default 20 x 20
    float spacing;           ///< metres > 0; default 0.25
    float weight;            ///< inverse mass of each free particle, 1/kg, > 0; default 1
    float radius;            ///< metres; default 0.05
    uint32_t particle_flags; ///< default 0
    sinew_cloth_pin pin;     ///< default SINEW_CLOTH_PIN_TOP_ROW
    float stiffness;         ///< link stiffness [0, 1]; default 1
    float compliance;        ///< link compliance m/N; default 0
} sinew_cloth_def;

/// Defaults as documented on each field.
SINEW_API sinew_cloth_def sinew_default_cloth_def(void);

/// Ids a cloth builder made. Arrays are the caller's; NULL ones are not written.
typedef struct sinew_cloth {
    sinew_particle_id *particles; ///< columns * rows entries, row-major: [r * columns + c]
    sinew_distance_id *links;     ///< every link, in creation order
    sinew_pin_id *pins;           ///< one per pinned particle, left to right
} sinew_cloth;

/// Particles, links and pins a cloth def makes.
SINEW_API void sinew_cloth_counts(const sinew_cloth_def *def, int *particles, int *links, int *pins);

/// Builds a cloth. `out` may be NULL. Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE, CAPACITY,
/// OUT_OF_MEMORY.
SINEW_API sinew_status sinew_cloth_create(sinew_world *world, const sinew_cloth_def *def, sinew_cloth *out);

/// What a pile is dropped into.
typedef enum sinew_pile_container {
    SINEW_PILE_NONE = 0,   ///< nothing: bring your own colliders
    SINEW_PILE_BOX = 1,    ///< a floor and two walls (half-planes)
    SINEW_PILE_SLOPES = 2, ///< the box, plus two slopes from the walls down toward the middle
} sinew_pile_container;

/// A pile of balls on a grid, filled row by row from the bottom: ball i (column c = i mod columns,
/// row r = i / columns) starts at rest at origin + (spacing c + row_offset if r is odd, spacing r).
/// The box's floor is at origin.y - 1, its walls at origin.x - 1 and origin.x + columns spacing.
/// With the defaults and N balls this is the `pile` benchmark scene (radius 0.5, 1.2 apart, floor
/// y = 0, walls x = 0 and x = 1.2 columns + 1).
typedef struct sinew_pile_def {
    int count;                    ///< balls, >= 1; default 100
    int columns;                  ///< balls per row, 0 = ceil(sqrt(count)); default 0
    sinew_vec2 origin;            ///< centre of ball 0, metres; default (1, 1)
    float spacing;                ///< metres between grid points, > 0; default 1.2
    float row_offset;             ///< x shift of odd rows, metres; default 0.3
    float radius_min, radius_max; ///< radius drawn uniformly per ball, 0 < min <= max; default 0.5, 0.5
    uint64_t seed;                ///< seed of the radius draw; default 1
    float weight;                 ///< inverse mass of each ball, 1/kg, > 0; default 1
    float friction;               ///< static friction of the balls and the container; default 0.6
    float kinetic_friction;       ///< kinetic friction; default 0.5
    sinew_pile_container container; ///< default SINEW_PILE_BOX
} sinew_pile_def;

/// Defaults as documented on each field.
SINEW_API sinew_pile_def sinew_default_pile_def(void);

/// Most colliders a pile container has.
#define SINEW_PILE_MAX_COLLIDERS 5

/// Ids a pile builder made. `particles` is the caller's array (count entries) or NULL.
typedef struct sinew_pile {
    sinew_particle_id *particles;                       ///< ball i at [i]
    sinew_collider_id colliders[SINEW_PILE_MAX_COLLIDERS]; ///< floor, left wall, right wall, slopes
    int collider_count;
    sinew_vec2 box_min, box_max; ///< the container's inside: floor and walls; top = top row + 5
} sinew_pile;

/// Builds a pile. `out` may be NULL. Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE (count < 1,
/// columns < 0, spacing <= 0, radii, weight <= 0, negative friction, unknown container),
/// CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_pile_create(sinew_world *world, const sinew_pile_def *def, sinew_pile *out);

#ifdef __cplusplus
}
#endif
