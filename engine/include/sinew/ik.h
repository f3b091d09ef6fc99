// sinew: inverse kinematics. A standalone solver for a chain of bones (no world, no allocation)
// and an IK arm built from particles and constraints in a world.
//
// ## The chain
// Bone k starts at joint k and ends at joint k + 1; joint 0 is the base, joint `count` the end
// effector. Each bone has a length and a local angle: bone 0's is measured from `base_angle`,
// bone k's from bone k - 1's direction, counter-clockwise positive. So the world direction of
// bone k is base_angle + angles[0] + ... + angles[k], and a chain of zeros points straight along
// base_angle. This local angle is exactly what an angle constraint measures at joint k
// (sinew_angle_def: the turn from (joint k - joint k-1) to (joint k+1 - joint k)).
//
// ## Step by step
//   float angles[3] = {0}, lengths[3] = {1, 1, 0.5f};
//   sinew_ik_chain chain = {3, angles, lengths, NULL, sinew_vec2_make(0, 0), 0.0f};
//   sinew_ik_def def = sinew_default_ik_def();            // FABRIK, 100 iterations, 1 mm
//   sinew_ik_result r;
//   sinew_ik_solve(&def, &chain, sinew_vec2_make(1.2f, 1.0f), &r);  // angles now reach the target
//   sinew_ik_chain_points(&chain, points);                 // joint positions, for drawing
// Call it every frame with the previous frame's angles (a warm start): a target that moved a
// little takes a few iterations, one that did not move takes none.
//
// ## Methods
// - SINEW_IK_RELAXATION: Juckett's constraint relaxation over joint positions (what the world's
//   solver does to an IK arm); uses the weights. Robust, slowest to converge.
// - SINEW_IK_FABRIK: forward and backward reaching (Aristidou and Lasenby 2011); fewest
//   iterations, cheapest per iteration; ignores the weights. With limits, an iteration that
//   gains less than 10% adds one CCD sweep (the two passes alone can lock: joints near the end at
//   their limits, joints near the base left straight).
// - SINEW_IK_CCD: cyclic coordinate descent, end joint to base, each rotation scaled by the
//   joint's weight; favours the joints near the end.
// - SINEW_IK_TWO_BONE: the closed-form answer for exactly two bones, on the side set by `bend`.
//
// ## Local minima
// With limits a chain can settle curled against a limit on the side away from the target, every
// joint's own best turn blocked. Each iterative method escapes: CCD and the relaxation take one
// FABRIK iteration when an iteration gains less than 1%; every method restarts from a new pose
// inside the limits when 16 iterations gain less than 10%. A restart's pose is kept only when it
// reaches the target, so a target out of reach never makes the chain jump: it gets the best pose
// of the descent from its start pose. Measured: 4 bones of 1.0/0.8/0.6/0.4 m at +-45 degrees,
// targets from random poses inside the limits, cold start, 1,000 iterations: every method reaches
// at least 99.9% (tests/test_ik.c); the relaxation missed 1% and CCD 0.3% before.
//
// ## Limits
// With `def.limits`, every local angle ends inside its [min, max] (min <= max, in [-pi, pi]) for
// every method: the iterative methods project the joints into their limits inside each
// iteration (FABRIK in both passes), and the answer's angles are clamped exactly. A start pose
// outside the limits is first clamped into them. Unlike sinew_angle_def, min > max is an error
// here, not a range through pi.
//
// ## Straight start poses
// A straight chain is the singular pose of every method: it bends toward a target near its own
// line only slowly. Without `def.limits`, when every joint but the first is within 1e-3 rad of
// straight, the solver first bends them by 0.1 rad toward `bend` (+1 when 0).
//
// ## Unreachable targets
// When the start pose is not within tolerance, the target is at least the chain's length minus
// the tolerance from the base and the straight pose is inside the limits, every iterative method
// returns the chain pointing straight at the target, computed directly (no iteration, independent
// of the start pose): a target sitting just out of reach gives the same pose frame after frame,
// no jitter. TWO_BONE does the same by its closed form.
//
// ## Error reporting
// sinew_ik_solve returns a sinew_status; on anything but SINEW_OK the chain is unchanged.
//
// ## Memory and threads
// No allocation: scratch lives on the stack (about 20 KiB at SINEW_IK_MAX_BONES bones). The
// solver keeps no state; any number of threads may solve different chains at once.
#pragma once

#include "base.h"
#include "vec2.h"
#include "world.h"
#include "constraints.h"
#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Most bones a chain may have (the solver's stack scratch is sized for it).
#define SINEW_IK_MAX_BONES 256

/// Most iterations a def may ask for.
#define SINEW_IK_MAX_ITERATIONS (1 << 20)

/// How sinew_ik_solve moves the chain.
typedef enum sinew_ik_method {
    SINEW_IK_RELAXATION = 0, ///< Juckett's constraint relaxation; uses the weights
    SINEW_IK_FABRIK = 1,     ///< forward and backward reaching; ignores the weights
    SINEW_IK_CCD = 2,        ///< cyclic coordinate descent; weights scale each joint's rotation
    SINEW_IK_TWO_BONE = 3,   ///< closed form, exactly 2 bones; ignores the weights
} sinew_ik_method;

/// A chain of bones, given by the caller. `angles` is read as the start pose and written with the
/// answer; the other arrays are only read.
typedef struct sinew_ik_chain {
    int count;            ///< bones, 1..SINEW_IK_MAX_BONES (SINEW_IK_TWO_BONE: exactly 2)
    float *angles;        ///< count local angles in radians (see the top of this header); any
                          ///< finite value is accepted, the answer is wrapped to [-pi, pi]
    const float *lengths; ///< count bone lengths in metres, > 0
    const float *weights; ///< count joint weights in [0, 1], or NULL for all 1. weights[k] belongs to
                          ///< joint k (where bone k starts). RELAXATION: how far joint k moves when a
                          ///< distance constraint is resolved (relative to its neighbour; 0 = not at
                          ///< all; weights[0] is unused, the base never moves). CCD: the fraction of
                          ///< the aiming rotation joint k takes each iteration (0 = stiff, 1 = full).
                          ///< FABRIK and TWO_BONE ignore them.
    sinew_vec2 base;      ///< position of joint 0 in metres
    float base_angle;     ///< world direction bone 0's local angle is measured from, radians
} sinew_ik_chain;

/// Limits of one local angle, radians: min <= max, both in [-pi, pi].
typedef struct sinew_ik_limit {
    float min, max;
} sinew_ik_limit;

/// Called by sinew_ik_solve with the working joint positions: once with iteration 0 before the
/// first iteration, then after each iteration k = 1, 2, ... `points` holds count + 1 positions in
/// metres (joint 0 = base .. joint count = end effector), valid during the call only. For
/// RELAXATION these are the relaxed positions themselves, whose bones need not have their exact
/// lengths yet (the answer's angles take only their directions). Not called by TWO_BONE, nor
/// when the target is out of reach and the straight pose is returned.
typedef void sinew_ik_iteration_fn(void *user_data, int iteration, const sinew_vec2 *points, int point_count);

/// Solver settings. Get one from sinew_default_ik_def().
typedef struct sinew_ik_def {
    sinew_ik_method method;         ///< default SINEW_IK_FABRIK
    int max_iterations;             ///< 1..SINEW_IK_MAX_ITERATIONS; default 100 (TWO_BONE: unused)
    float tolerance;                ///< metres >= 0: stop once the end effector is this close to the
                                    ///< target; default 1e-3
    const sinew_ik_limit *limits;   ///< NULL (default): no limits; else `count` entries, [k] for
                                    ///< bone k's local angle. Read during the call only
    int bend;                       ///< -1, 0 or +1; default 0. TWO_BONE: +1 puts the elbow (bone 1's
                                    ///< local angle) >= 0 (counter-clockwise), -1 <= 0, 0 keeps the side
                                    ///< of the start pose (+1 when straight) while that side reaches: it
                                    ///< never snaps to the other solution, unless limits block its own
                                    ///< side and the other comes closer. Other methods: +1 / -1 lets joints 1.. bend only that
                                    ///< way (a one-sided limit, intersected with `limits`), 0 both ways
    sinew_ik_iteration_fn *on_iteration; ///< NULL (default), or called as documented on the type
    void *user_data;                ///< passed to on_iteration
} sinew_ik_def;

/// Defaults as documented on each field.
SINEW_API sinew_ik_def sinew_default_ik_def(void);

/// What a solve did.
typedef struct sinew_ik_result {
    int iterations; ///< iterations run (0 when the start was within tolerance, for TWO_BONE, and
                    ///< for the straight pose toward an out-of-reach target)
    float distance; ///< metres from the answer's end effector (from the returned angles) to the target
    bool reached;   ///< distance <= tolerance
} sinew_ik_result;

/// Moves the chain's local angles so that its end effector reaches `target` (metres), or gets as
/// close as the method, the limits and max_iterations allow. `out` may be NULL.
/// Errors: NULL_ARGUMENT (def, chain, angles, lengths), NOT_FINITE (target, base, base_angle,
/// angles, lengths, weights, limits, tolerance), OUT_OF_RANGE (count outside
/// 1..SINEW_IK_MAX_BONES, a length <= 0, a weight outside [0, 1], max_iterations outside
/// 1..SINEW_IK_MAX_ITERATIONS, tolerance < 0, unknown method, TWO_BONE with count != 2, bend not
/// in {-1, 0, 1}, a limit outside [-pi, pi], min > max, or a range that `bend` leaves empty).
/// On error nothing is written.
SINEW_API sinew_status sinew_ik_solve(const sinew_ik_def *def, sinew_ik_chain *chain, sinew_vec2 target,
                                      sinew_ik_result *out);

/// Forward kinematics: writes the count + 1 joint positions of the chain (metres) to `points`.
/// Errors: NULL_ARGUMENT (chain, its arrays, points), OUT_OF_RANGE (count), NOT_FINITE.
SINEW_API sinew_status sinew_ik_chain_points(const sinew_ik_chain *chain, sinew_vec2 *points);

/// The inverse: sets the chain's local angles from count + 1 joint positions (only the bone
/// directions are used; lengths and base are not changed). The angles are in [-pi, pi].
/// Errors: NULL_ARGUMENT, OUT_OF_RANGE (count, or two consecutive points that coincide),
/// NOT_FINITE. On error the angles are unchanged.
SINEW_API sinew_status sinew_ik_chain_set_points(sinew_ik_chain *chain, const sinew_vec2 *points);

/// `angle` wrapped to [-pi, pi] (radians): angle + 2 pi k for the integer k that puts it there;
/// pi stays pi. NaN and infinities give NaN.
SINEW_API float sinew_ik_wrap_angle(float angle);

/// An IK arm in a world: bones + 1 particles (root, joints, hand) joined by distance constraints
/// (the bones), the root pinned, a pin (target constraint) on the hand, and, with limits, an angle
/// constraint per joint, bone 0's measured from an immovable anchor particle behind the root.
/// Stepping the world solves it (the world's solver is then the relaxation method: Gauss-Seidel or
/// Jacobi), and it takes part in the physics: gravity bends it, balls push it, a rope tied to the
/// hand swings. sinew_ik_arm_drive solves it with the standalone solver instead.
/// The default most force of an arm's hand pin, newtons (sinew_pin_def.max_force). When the target
/// asks for more than the arm can give (behind a limit, out of reach), an unlimited pin and the
/// rigid bones and limits fight, and Gauss-Seidel's compromise squashes bones: by up to 48% in a
/// 4-bone arm of 1 kg particles at the default solver settings, a limit overshot by 0.07 rad.
/// Held to this force the hand gives way instead: bones stay within 1.4% of their length and
/// limits within 0.003 rad there (tests/test_ik.c), while a reachable target moving at 1.3 m/s is
/// still tracked within 0.1 mm on average, as by the unlimited pin. A pin's force scales with the particle's mass: scale this with
/// yours (it suits about 1 kg per particle). INFINITY gives the unlimited pin back.
#define SINEW_IK_ARM_TARGET_MAX_FORCE 2000.0f

typedef struct sinew_ik_arm_def {
    sinew_vec2 base;              ///< the root, metres; default (0, 0)
    float base_angle;             ///< direction of a straight arm, radians; default 0 (+x)
    int bones;                    ///< 1..SINEW_IK_MAX_BONES; default 4
    float bone_length;            ///< metres > 0, used when `lengths` is NULL; default 0.5
    const float *lengths;         ///< NULL (default) or `bones` lengths in metres, > 0
    const float *angles;          ///< NULL (default, straight) or `bones` local angles of the start pose
    const sinew_ik_limit *limits; ///< NULL (default) or `bones` limits (as in sinew_ik_def; the start
                                  ///< pose must be inside them): made into angle constraints
    float limit_stiffness;        ///< stiffness of the angle constraints [0, 1]; default 1
    float weight;                 ///< inverse mass of each free particle, 1/kg, > 0; default 1
    float radius;                 ///< particle radius in metres, >= 0; default 0.1
    uint32_t particle_flags;      ///< default SINEW_PARTICLE_COLLIDES (the anchor never collides)
    bool target_at_hand;          ///< true (default): the hand's pin starts where the hand is
    sinew_vec2 target;            ///< the pin's target when target_at_hand is false, metres
    float target_stiffness;       ///< the hand's pin, [0, 1]; default 1
    float target_compliance;      ///< the hand's pin, m/N >= 0; default 0
    float target_max_force;       ///< the hand's pin, newtons > 0; default SINEW_IK_ARM_TARGET_MAX_FORCE
} sinew_ik_arm_def;

/// Defaults as documented on each field.
SINEW_API sinew_ik_arm_def sinew_default_ik_arm_def(void);

/// Ids an arm builder made. The arrays are the caller's, sized by sinew_ik_arm_counts; NULL ones
/// are not written (sinew_ik_arm_drive needs `particles` and `bones`). The builder fills the rest.
typedef struct sinew_ik_arm {
    sinew_particle_id *particles; ///< bones + 1 entries: [0] the root, [k] joint k, [bones] the hand
    sinew_distance_id *bones;     ///< `bones` entries: bone k joins particles k and k + 1
    sinew_angle_id *limits;       ///< `bones` entries when the def has limits: [k] limits bone k's local angle
    sinew_ik_limit *limit_values; ///< `bones` entries when the def has limits: the builder copies them
                                  ///< here, sinew_ik_arm_drive reads them (keep them in step with the
                                  ///< angle constraints if you change those with sinew_angle_set_limits)
    sinew_particle_id anchor;     ///< with limits: the pinned, immovable particle behind the root; else null
    sinew_pin_id anchor_pin;      ///< the anchor's pin, or null
    sinew_pin_id root_pin;        ///< kinematic pin of the root: move its target to move the arm
    sinew_pin_id target_pin;      ///< the hand's pin: sinew_pin_set_target moves the IK target
    int bone_count;               ///< bones
    float base_angle;             ///< from the def; used by the drive when there is no anchor
    float weight;                 ///< from the def; restored by sinew_ik_arm_release
    float target_stiffness;       ///< from the def; restored by sinew_ik_arm_release
    float target_compliance;      ///< from the def; restored by sinew_ik_arm_release
} sinew_ik_arm;

/// What an arm def makes: bones + 1 particles (+1 anchor with limits), `bones` distances,
/// `bones` angles with limits (else 0), 2 pins (+1 with limits).
SINEW_API sinew_scene_counts sinew_ik_arm_counts(const sinew_ik_arm_def *def);

/// Builds an arm. `out` may be NULL. A failed build leaves the world as it was.
/// Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE (bones, lengths, limits as in sinew_ik_solve, a
/// start pose outside the limits, weight <= 0, radius < 0, stiffnesses, compliance), CAPACITY,
/// OUT_OF_MEMORY.
SINEW_API sinew_status sinew_ik_arm_create(sinew_world *world, const sinew_ik_arm_def *def, sinew_ik_arm *out);

/// Solves the arm with the standalone solver (any method; for TWO_BONE the arm has 2 bones) toward
/// its hand pin's target and puts its particles there. Call it before each sinew_world_step to
/// drive the arm. The start pose is read from the particles; bone lengths from the distance
/// constraints; the base direction from anchor -> root (else arm->base_angle); the limits from
/// def->limits, or when that is NULL from arm->limit_values (NULL: none). The joints and the hand
/// become kinematic (weight 0) and the hand's pin is switched off (stiffness 0), so the world's
/// solver leaves the arm alone while what hangs from it still swings; sinew_ik_arm_release hands
/// the arm back to the world. `out` may be NULL.
/// Errors: NULL_ARGUMENT (world, arm, arm->particles, arm->bones, def), INVALID_ID (an arm id),
/// and those of sinew_ik_solve. On error nothing changes.
SINEW_API sinew_status sinew_ik_arm_drive(sinew_world *world, const sinew_ik_arm *arm, const sinew_ik_def *def,
                                          sinew_ik_result *out);

/// Hands a driven arm back to the world's solver: the joints and the hand get arm->weight back and
/// zero velocity, the hand's pin its stiffness and compliance. Harmless on an arm that was never
/// driven. Errors: NULL_ARGUMENT (world, arm, arm->particles), INVALID_ID.
SINEW_API sinew_status sinew_ik_arm_release(sinew_world *world, const sinew_ik_arm *arm);

#ifdef __cplusplus
}
#endif
