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

/// What a builder makes, to size the caller's arrays. A def the builder would refuse counts 0
/// everywhere and says why in `status` and `reason`, so that no array is sized from a bad def.
/// (The counts cannot know the world: its max_particles / max_constraints may still refuse.)
typedef struct sinew_scene_counts {
    int particles;
    int distances; ///< every distance constraint (links, shear, bend links, tethers, inner springs)
    int angles;
    int areas;
    int pins;
    sinew_status status; ///< SINEW_OK, or the error the builder would return for this def
    const char *reason;  ///< "" when the def is valid, else which rule it breaks (static text)
} sinew_scene_counts;

/// A rope: `links` distance constraints joining links + 1 particles on the segment start..end.
/// Links are created in two passes (even links, then odd links): consecutive constraints share no
/// particle, which lets Gauss-Seidel overlap their arithmetic; see docs/solver.md.
typedef struct sinew_rope_def {
    sinew_vec2 start, end;     ///< metres, within +-SINEW_MAX_COORDINATE and at most SINEW_MAX_COORDINATE apart; default (0, 0) and (10, 0)
    int links;                 ///< >= 1; default 40
    float weight;              ///< inverse mass of each free particle, 1/kg, > 0; default 1
    float radius;              ///< particle radius in metres, 0..SINEW_MAX_COORDINATE; default 0.05
    uint32_t particle_flags;   ///< default 0 (ropes do not collide unless asked)
    bool pin_start, pin_end;   ///< pinned ends get weight 0 and a kinematic pin; default true, false
    sinew_distance_mode mode;  ///< SINEW_DISTANCE_MAX_ONLY makes a slack rope; default EQUAL
    float stiffness;           ///< link stiffness [0, 1]; default 1
    float compliance;          ///< link compliance m/N; default 0
    float bend_stiffness;      ///< 0 (default): no bending resistance; else the stiffness [0, 1] of an
                               ///< angle constraint holding each joint straight
    bool tethers;              ///< long-range attachments (Kim et al. 2012): each particle may be no
                               ///< farther from each pinned end than its rest path length; default false
} sinew_rope_def;

/// Defaults as documented on each field.
SINEW_API sinew_rope_def sinew_default_rope_def(void);

/// Ids a rope builder made. Arrays are the caller's (sized by sinew_rope_counts); NULL ones are
/// not written.
typedef struct sinew_rope {
    sinew_particle_id *particles; ///< links + 1 entries, from start to end
    sinew_distance_id *links;     ///< `links` entries, link k joins particles k and k + 1
    sinew_angle_id *bends;        ///< links - 1 entries when bend_stiffness > 0: joint k + 1
    sinew_distance_id *tethers;   ///< the tethers, in particle order
    sinew_pin_id start_pin, end_pin; ///< null when that end is free
} sinew_rope;

/// What a rope def makes.
SINEW_API sinew_scene_counts sinew_rope_counts(const sinew_rope_def *def);

/// Builds a rope. `out` may be NULL. Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE (links < 1,
/// weight <= 0, radius < 0, stiffness, compliance, bend_stiffness, unknown mode), CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_rope_create(sinew_world *world, const sinew_rope_def *def, sinew_rope *out);

/// Which cloth particles are pinned (weight 0, kinematic pin).
typedef enum sinew_cloth_pin {
    SINEW_CLOTH_PIN_NONE = 0,
    SINEW_CLOTH_PIN_TOP_ROW = 1,     ///< every particle of row 0
    SINEW_CLOTH_PIN_TOP_CORNERS = 2, ///< the two ends of row 0
} sinew_cloth_pin;

/// A cloth: a grid of columns x rows particles, row r at y = origin.y - spacing r, column c at
/// x = origin.x + spacing c. Structural links join grid neighbours, shear links the diagonals,
/// bend links particles two apart in a row or column; each family can be switched off. Links
/// whose two ends are both pinned are left out (they could never act). Every particle must lie
/// within +-SINEW_MAX_COORDINATE, and the diagonal be no longer. For 100 x 100 with the top
/// row pinned and the defaults this is the `cloth` benchmark scene (19,701 links).
typedef struct sinew_cloth_def {
    sinew_vec2 origin;       ///< position of row 0, column 0, metres; default (0, 0)
    int columns, rows;       ///< 1..4096 each, at least 2 particles; default 20 x 20
    float spacing;           ///< metres > 0; default 0.25
    float weight;            ///< inverse mass of each free particle, 1/kg, > 0; default 1
    float radius;            ///< metres; default 0.05
    uint32_t particle_flags; ///< default 0
    sinew_cloth_pin pin;     ///< default SINEW_CLOTH_PIN_TOP_ROW
    float stiffness;         ///< structural and shear link stiffness [0, 1]; default 1
    float compliance;        ///< structural and shear link compliance m/N; default 0
    bool structural;         ///< horizontal and vertical links; default true
    bool shear;              ///< diagonal links; default false
    bool bend;               ///< links two apart (bending resistance); default false
    float bend_stiffness;    ///< stiffness of the bend links [0, 1]; default 0.5
    float tear_ratio;        ///< structural and shear links tear past this (see sinew_distance_def); default 0
    bool tethers;            ///< long-range attachments to the nearest pinned particle; default false
} sinew_cloth_def;

/// Defaults as documented on each field.
SINEW_API sinew_cloth_def sinew_default_cloth_def(void);

/// A "jelly box": a cloth def for a free, colliding block of particles held by structural and
/// shear links (no pins, particles collide, radius a bit under half the spacing). Build it with
/// sinew_cloth_create; origin is its top-left corner.
SINEW_API sinew_cloth_def sinew_default_jelly_def(void);

/// Ids a cloth builder made. Arrays are the caller's; NULL ones are not written.
typedef struct sinew_cloth {
    sinew_particle_id *particles; ///< columns * rows entries, row-major: [r * columns + c]
    sinew_distance_id *links;     ///< every distance constraint, in creation order
    sinew_pin_id *pins;           ///< one per pinned particle, left to right
} sinew_cloth;

/// What a cloth def makes.
SINEW_API sinew_scene_counts sinew_cloth_counts(const sinew_cloth_def *def);

/// Builds a cloth. `out` may be NULL. Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE, CAPACITY,
/// OUT_OF_MEMORY.
SINEW_API sinew_status sinew_cloth_create(sinew_world *world, const sinew_cloth_def *def, sinew_cloth *out);

/// What fills a soft body's ring.
typedef enum sinew_softbody_inside {
    SINEW_SOFTBODY_EMPTY = 0,   ///< nothing: the area constraint alone holds it (a pressure blob)
    SINEW_SOFTBODY_SPRINGS = 1, ///< each particle joined to the ones a quarter and half way round
                                ///< (where those are not its neighbours: a triangle gets none)
    SINEW_SOFTBODY_CENTER = 2,  ///< a centre particle with a spoke to every particle of the ring
} sinew_softbody_inside;

/// A soft body: a ring of `points` particles on a circle, joined by edge links, keeping its area
/// (times `pressure`) with an area constraint, optionally filled with springs or a centre. The
/// circle must lie within +-SINEW_MAX_COORDINATE and its area must not round to 0 in float.
typedef struct sinew_softbody_def {
    sinew_vec2 center;         ///< metres; default (0, 0)
    float radius;              ///< ring radius in metres, > 0; default 1
    int points;                ///< particles on the ring, >= 3; default 24
    float weight;              ///< inverse mass of each particle, 1/kg, > 0; default 1
    float particle_radius;     ///< collision radius, >= 0; default 0.1
    uint32_t particle_flags;   ///< default SINEW_PARTICLE_COLLIDES
    float pressure;            ///< the area kept, as a multiple of the circle's; > 0; default 1
    float area_stiffness;      ///< [0, 1]; default 1
    float area_compliance;     ///< >= 0; default 0
    float edge_stiffness;      ///< ring links [0, 1]; default 1
    float edge_compliance;     ///< >= 0; default 0
    sinew_softbody_inside inside; ///< default SINEW_SOFTBODY_EMPTY
    float inner_stiffness;     ///< springs or spokes [0, 1]; default 0.1
} sinew_softbody_def;

/// Defaults as documented on each field.
SINEW_API sinew_softbody_def sinew_default_softbody_def(void);

/// Ids a soft body builder made. Arrays are the caller's; NULL ones are not written.
typedef struct sinew_softbody {
    sinew_particle_id *particles; ///< the ring in counter-clockwise order, then the centre if any
    sinew_distance_id *links;     ///< the ring's edges, then the springs or spokes
    sinew_area_id area;
} sinew_softbody;

/// What a soft body def makes.
SINEW_API sinew_scene_counts sinew_softbody_counts(const sinew_softbody_def *def);

/// Builds a soft body. `out` may be NULL. Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE,
/// CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_softbody_create(sinew_world *world, const sinew_softbody_def *def, sinew_softbody *out);

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
/// y = 0, walls x = 0 and x = 1.2 columns + 1). The box must lie within +-SINEW_MAX_COORDINATE.
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

/// What a pile def makes: `count` particles (its colliders are not counted).
SINEW_API sinew_scene_counts sinew_pile_counts(const sinew_pile_def *def);

/// Builds a pile. `out` may be NULL. Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE (count not in
/// 1..2^24, columns < 0, spacing <= 0, radii, weight <= 0, negative friction, unknown container, a
/// box beyond SINEW_MAX_COORDINATE), CAPACITY, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_pile_create(sinew_world *world, const sinew_pile_def *def, sinew_pile *out);

#ifdef __cplusplus
}
#endif
