// sinew: 3D inverse kinematics. A standalone solver for a chain of links whose ball joints are
// limited by convex polygonal cones and twist ranges (no world, no allocation).
//
// ## Geometry (docs/ik.md, "3D chains", has a figure)
// Link k starts at joint k and ends at joint k + 1; joint 0 is `base`, joint `count` the end
// effector. Every link has a frame; its own axis is the frame's +x: link k's end is its start
// plus length * (world rotation of link k applied to (1, 0, 0)). Link k's `rotation` is relative to
// its parent's frame: the world rotation of link k is
//     base_rotation * links[0].rotation * ... * links[k].rotation
// (quaternion products, the rightmost applied first), so a chain of identity rotations points
// straight along base_rotation's +x. Link 0's parent frame is the base frame (base_rotation).
// A link's *direction* is its rotation applied to +x, in the parent's frame. Its *twist* is the
// rotation about its own axis left once the swing is taken out: writing rotation = swing * twist,
// with swing the minimal rotation from +x to the direction and twist a rotation about +x,
//     twist angle = 2 atan2(x, w) of the rotation (x, y, z, w), its sign flipped to make w >= 0,
// in [-pi, pi]. It turns the link's frame, hence every child, about the link's axis. It is
// undefined for a direction exactly opposite to +x (w = x = 0), where it counts as 0. A chain of
// rotations about z alone moves in the xy-plane like the 2D chain of ik.h.
//
// ## Limits
// A link's limits (sinew_ik3_limit, prepared once by sinew_ik3_limit_init; links may share one):
// - Cone: a loop of corner directions in the parent's frame (need not be unit; the first and last
//   are joined), counter-clockwise about the cone's axis (right-hand rule: thumb along the allowed
//   directions), the corners of a convex spherical polygon smaller than a hemisphere. Corner i and
//   i + 1 span an edge plane with inward normal unit(corner i x corner i + 1). The link's direction
//   must be on the inner side of every edge plane. A direction outside is turned by the minimal
//   rotation onto the closest direction of the polygon's boundary (the nearest point of every
//   edge's great-circle arc, clamped to the arc, corners included; the closest of them).
// - Twist: with twist_limited, the twist angle stays in [twist_min, twist_max] (clamped after the
//   cone, by a rotation about the link's own axis, which keeps its direction).
// Every method ends with every link inside its limits, exactly: the direction of the answer's float
// quaternion normalised in double, and its twist by the formula above, pass the edge-plane tests
// and the twist range with no tolerance (the solver nudges an answer that rounding to float put a
// hair outside back in, by 4e-8 rad or a few times that; a twist range narrower than 2e-9 rad
// keeps the nearest float instead). A start pose outside its limits is first projected into them.
//
// ## Step by step
//   sinew_ik3_limit_def ld = sinew_default_ik3_limit_def();
//   ld.cone = corners; ld.cone_count = 8;                   // e.g. an 8-gon of 30 degrees around +x
//   sinew_ik3_limit limit;
//   sinew_ik3_limit_init(&ld, &limit);                      // checked once: convex, < a hemisphere
//   sinew_ik3_link links[3];
//   for (int k = 0; k < 3; ++k) { links[k] = sinew_default_ik3_link(); links[k].limit = &limit; }
//   sinew_ik3_chain chain = {3, links, sinew_vec3_make(0, 0, 0), sinew_quat_identity()};
//   sinew_ik3_def def = sinew_default_ik3_def();            // FABRIK, 100 iterations, 1 mm
//   sinew_ik3_result r;
//   sinew_ik3_solve(&def, &chain, sinew_vec3_make(2.5f, 1, 0.5f), &r);  // rotations now reach it
//   sinew_ik3_chain_points(&chain, points);                 // joints, for drawing
// Call it every frame from the previous frame's rotations (a warm start).
//
// ## Methods
// - SINEW_IK3_CCD: from the last link to the first, each link turns by the minimal rotation that
//   aims the end effector at the target, scaled by its flexibility, and is projected into its limits.
// - SINEW_IK3_FABRIK: forward and backward reaching on joint positions (Aristidou and Lasenby 2011)
//   with link frames carried along by minimal rotations; cones in both passes (backward: link k is
//   turned so that its child's direction is inside the child's cone; forward: each link's direction
//   is projected into its own cone, twists clamped). Ignores flexibility. An iteration that gains
//   less than 10% adds one CCD sweep (as in 2D: the passes alone can lock against limits).
// - SINEW_IK3_TWO_BONE: closed form for exactly two links; the elbow bends in the plane of the base,
//   the target and `def.pole` (or, without a pole, the plane it bends in now: it never snaps to the
//   other side). With limits the closed form is projected (link 0, then link 1 re-aimed and
//   projected), and may then miss a target it could reach.
//
// ## Extrapolated aim
// CCD and FABRIK converge linearly near a solution: each iteration leaves about the same fraction
// rho of the end effector's residual (target - end). After each iteration the solver estimates rho
// from the residual's change and aims the next one past the target, at target + beta * residual
// with beta = 0.75 rho / (1 - rho) (at most 8), which lands about on it; beta is 0 (a plain
// iteration aimed at the target) for the first iteration, after an escape, and whenever the last
// one did not shrink the residual or turned it by more than about 25 degrees. The answer and its
// tests are against the target itself; an aim differs from it only while the end effector does.
// FABRIK replaces such a plain iteration, when the end effector is within a quarter of the shortest
// link of the target (a warm start), by the aim of its own linearisation about the pose: one plain
// iteration removes the residual across the last link and leaves c^2 of its part along it (c the
// product of the cosines between neighbouring links), so it aims c^2 / (1 - c^2) (at most 8) of
// that part past the target, which lands about on it in one iteration (ik3.c, fabrik_linear_aim).
//
// ## Escaping local minima
// Limited chains have local minima and slow crawls along their limits. The solver watches the best
// distance so far over windows of 8 iterations: *stuck* when it gained less than 1%, *slow* when at
// that rate the tolerance is more than 128 iterations away. CCD that is slow first adds a FABRIK
// iteration after each sweep for the rest of the solve; after that (and for FABRIK at once), slow
// or stuck restarts from the best pose with every link turned by a pseudo-random rotation (then
// projected into its limits), up to 0.25 rad, 1.5 times more at each restart up to pi. The answer
// is the best pose seen. The pseudo-random sequence is fixed: the same input gives the same bits.
// A target farther from the base than the chain's length never restarts: stuck or slow ends the
// solve with the best pose (so an unreachable target costs few iterations).
// When rounding the answer to float puts it outside the tolerance the solver was within, it goes on
// to a tolerance tighter by twice the excess (at most 3 times).
//
// ## Quaternions
// Rotations must be unit to within 1e-3 (| |q| - 1 | <= 1e-3): they are normalised, farther ones are
// refused (OUT_OF_RANGE) as a sign of a bug. The answer's rotations are unit to float rounding.
//
// ## Error reporting
// sinew_ik3_solve returns a sinew_status; on anything but SINEW_OK the chain is unchanged.
//
// ## Memory and threads
// No allocation: scratch lives on the stack (about 12 KiB at SINEW_IK3_MAX_LINKS links). The solver keeps no state; any number of threads may solve different chains at once.
#pragma once

#include "base.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Most links a chain may have (the solver's stack scratch is sized for it).
#define SINEW_IK3_MAX_LINKS 64

/// Most corners a link's cone may have.
#define SINEW_IK3_MAX_CONE_VERTICES 16

/// Most iterations a def may ask for.
#define SINEW_IK3_MAX_ITERATIONS (1 << 20)

/// How sinew_ik3_solve moves the chain.
typedef enum sinew_ik3_method {
    SINEW_IK3_FABRIK = 0,   ///< forward and backward reaching; ignores flexibility
    SINEW_IK3_CCD = 1,      ///< cyclic coordinate descent; flexibility scales each link's rotation
    SINEW_IK3_TWO_BONE = 2, ///< closed form, exactly 2 links, bend plane from the pole
} sinew_ik3_method;

/// What a link's limits are made from. Get one from sinew_default_ik3_limit_def().
typedef struct sinew_ik3_limit_def {
    const sinew_vec3 *cone; ///< NULL (default, no cone) or cone_count corner directions in the parent's
                            ///< frame, counter-clockwise about the cone's axis (right-hand rule: the
                            ///< thumb along the allowed directions), need not be unit. Read by the call only
    int cone_count;         ///< 0 (default) without a cone, else 3..SINEW_IK3_MAX_CONE_VERTICES
    bool twist_limited;     ///< default false: any twist
    float twist_min;        ///< radians in [-pi, pi], <= twist_max; default -pi
    float twist_max;        ///< radians in [-pi, pi]; default pi
} sinew_ik3_limit_def;

/// Defaults as documented on each field.
SINEW_API sinew_ik3_limit_def sinew_default_ik3_limit_def(void);

/// The corners of a regular polygonal cone about +x (the parent's axis), a circular cone of
/// `half_angle` radians approximated: corner i is (1, tan(half_angle) cos(a), tan(half_angle) sin(a)),
/// a = 2 pi i / count, counter-clockwise as sinew_ik3_limit_def wants. Writes `count` corners.
/// Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE (count outside 3..SINEW_IK3_MAX_CONE_VERTICES,
/// half_angle not in (0, pi / 2)); on error nothing is written.
SINEW_API sinew_status sinew_ik3_regular_cone(float half_angle, int count, sinew_vec3 *corners);

/// A link's limits, checked and prepared once by sinew_ik3_limit_init (so a solve does no polygon
/// work); any number of links may share one. Its fields are the solver's: read them, never write
/// them. A solve refuses (OUT_OF_RANGE) a limit that sinew_ik3_limit_init did not make.
typedef struct sinew_ik3_limit {
    int cone_count;                                  ///< corners, 0 = no cone
    bool twist_limited;                              ///< a twist range
    float twist_min, twist_max;                      ///< radians, as given
    sinew_vec3 corners[SINEW_IK3_MAX_CONE_VERTICES]; ///< as given
    double unit[SINEW_IK3_MAX_CONE_VERTICES][3];     ///< unit corners
    double normal[SINEW_IK3_MAX_CONE_VERTICES][3];   ///< unit inward edge normals: corner i x corner i + 1
    double center[3];                                ///< unit sum of the corners, strictly inside
    double cap_cos;                                  ///< a unit direction d with center . d >= cap_cos
                                                     ///< is 1e-7 rad inside every edge plane (a cap
                                                     ///< inscribed in the cone, for a quick test); 2
                                                     ///< without a cone
    double twist_half[4];                            ///< cos, sin of twist_min / 2, then of twist_max / 2
    uint32_t check;                                  ///< set by sinew_ik3_limit_init
} sinew_ik3_limit;

/// Checks a limit def and prepares `out` from it. Errors, in this order: NULL_ARGUMENT (def, out, a
/// cone_count > 0 with a NULL cone), OUT_OF_RANGE (cone_count other than 0 or
/// 3..SINEW_IK3_MAX_CONE_VERTICES), NOT_FINITE (a corner, a twist bound), OUT_OF_RANGE (a degenerate
/// polygon: a zero corner, two neighbouring corners less than 1e-6 rad apart or opposite; a polygon not convex, wound clockwise, or a hemisphere or
/// more: some corner not at least 1e-6 inside the plane of every edge it is not on; a twist range
/// outside [-pi, pi] or with min > max). On error `out` is unchanged.
SINEW_API sinew_status sinew_ik3_limit_init(const sinew_ik3_limit_def *def, sinew_ik3_limit *out);

/// One link. `rotation` is read as the start pose and written with the answer; the rest is only read.
typedef struct sinew_ik3_link {
    float length;                  ///< metres, > 0; default 1
    float flexibility;             ///< [0, 1]: the fraction of each CCD rotation the link takes (0 =
                                   ///< stiff); default 1. FABRIK and TWO_BONE ignore it
    sinew_quat rotation;           ///< unit quaternion relative to the parent's frame; default identity
    const sinew_ik3_limit *limit;  ///< NULL (default): free; else made by sinew_ik3_limit_init
} sinew_ik3_link;

/// Defaults as documented on each field.
SINEW_API sinew_ik3_link sinew_default_ik3_link(void);

/// A chain of links, given by the caller.
typedef struct sinew_ik3_chain {
    int count;                ///< links, 1..SINEW_IK3_MAX_LINKS (TWO_BONE: exactly 2)
    sinew_ik3_link *links;    ///< count links; only their rotations are written
    sinew_vec3 base;          ///< position of joint 0, metres
    sinew_quat base_rotation; ///< world rotation of the base frame (link 0's parent); unit
} sinew_ik3_chain;

/// Called by sinew_ik3_solve with the working joint positions: once with iteration 0 before the
/// first iteration, then after each iteration k = 1, 2, ... `points` holds count + 1 positions in
/// metres (joint 0 = base .. joint count = end effector), valid during the call only. Not called by
/// TWO_BONE.
typedef void sinew_ik3_iteration_fn(void *user_data, int iteration, const sinew_vec3 *points, int point_count);

/// Solver settings. Get one from sinew_default_ik3_def().
typedef struct sinew_ik3_def {
    sinew_ik3_method method;   ///< default SINEW_IK3_FABRIK
    int max_iterations;        ///< 1..SINEW_IK3_MAX_ITERATIONS; default 100 (TWO_BONE: unused)
    float tolerance;           ///< metres >= 0: stop once the end effector is this close; default 1e-3
    bool use_pole;             ///< TWO_BONE: bend toward `pole`; default false (keep the current plane)
    sinew_vec3 pole;           ///< TWO_BONE with use_pole: a point, metres, the elbow bends toward
    sinew_ik3_iteration_fn *on_iteration; ///< NULL (default), or called as documented on the type
    void *user_data;           ///< passed to on_iteration
} sinew_ik3_def;

/// Defaults as documented on each field.
SINEW_API sinew_ik3_def sinew_default_ik3_def(void);

/// What a solve did.
typedef struct sinew_ik3_result {
    int iterations; ///< iterations run (0 when the start was within tolerance, and for TWO_BONE)
    float distance; ///< metres from the answer's end effector (from the returned rotations) to the target
    bool reached;   ///< distance <= tolerance
} sinew_ik3_result;

/// Turns the chain's links so that its end effector reaches `target` (metres), or gets as close as
/// the method, the limits and max_iterations allow. `out` may be NULL.
/// Errors: NULL_ARGUMENT (def, chain, links), NOT_FINITE (target, pole with use_pole, base,
/// base_rotation, tolerance, a link's length, flexibility or rotation), OUT_OF_RANGE (count outside
/// 1..SINEW_IK3_MAX_LINKS, a length <= 0 or above SINEW_MAX_COORDINATE, a target, pole or base
/// coordinate beyond SINEW_MAX_COORDINATE, a flexibility outside [0, 1], a quaternion not unit to
/// 1e-3, a limit not made by sinew_ik3_limit_init, max_iterations outside
/// 1..SINEW_IK3_MAX_ITERATIONS, tolerance < 0, unknown method, TWO_BONE with count != 2). On error
/// nothing is written.
SINEW_API sinew_status sinew_ik3_solve(const sinew_ik3_def *def, sinew_ik3_chain *chain, sinew_vec3 target,
                                       sinew_ik3_result *out);

/// Forward kinematics: writes the count + 1 joint positions (metres) to `points`.
/// Errors: NULL_ARGUMENT (chain, links, points), NOT_FINITE, OUT_OF_RANGE (count, a length <= 0 or
/// above SINEW_MAX_COORDINATE, a base coordinate beyond it, a flexibility outside [0, 1], a
/// quaternion not unit to 1e-3; limits are not looked at).
SINEW_API sinew_status sinew_ik3_chain_points(const sinew_ik3_chain *chain, sinew_vec3 *points);

/// The twist angle of a link rotation as defined at the top of this header, radians in [-pi, pi].
SINEW_API float sinew_ik3_twist(sinew_quat rotation);

#ifdef __cplusplus
}
#endif
