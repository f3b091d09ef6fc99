// Inverse kinematics: the standalone solver (two bones against the closed form, ten bones reaching
// random targets with every method, limits that hold, determinism, Juckett's relaxation step by
// step against a reference written here, local/world conversion, angle wrapping, unreachable
// targets, every error path) and the IK arm in a world (counts, pinned root, reaching with the
// world's solver in both modes, driving with FABRIK and CCD, a ball on a rope swinging).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define PI 3.14159265358979323846
#define PI_F 3.14159265358979323846f

static const float dt = 1.0f / 60.0f;

// ---- helpers ----------------------------------------------------------------------------------

// End effector of a chain, in double, from its float angles.
static void end_of(const sinew_ik_chain *c, double *ex, double *ey)
{
    double t = c->base_angle, x = c->base.x, y = c->base.y;
    for (int k = 0; k < c->count; ++k) {
        t += c->angles[k];
        x += c->lengths[k] * cos(t);
        y += c->lengths[k] * sin(t);
    }
    *ex = x;
    *ey = y;
}

static double end_distance(const sinew_ik_chain *c, sinew_vec2 target)
{
    double ex, ey;
    end_of(c, &ex, &ey);
    return hypot(ex - target.x, ey - target.y);
}

static double chain_length(const float *lengths, int n)
{
    double s = 0.0;
    for (int k = 0; k < n; ++k) {
        s += lengths[k];
    }
    return s;
}

// A target the chain reaches for sure: the end effector of random angles inside `limits` (or
// anywhere when NULL).
static sinew_vec2 reachable_target(uint64_t *s, const sinew_ik_chain *c, const sinew_ik_limit *limits)
{
    double t = c->base_angle, x = c->base.x, y = c->base.y;
    for (int k = 0; k < c->count; ++k) {
        t += limits != NULL ? uniform(s, limits[k].min, limits[k].max) : uniform(s, -PI, PI);
        x += c->lengths[k] * cos(t);
        y += c->lengths[k] * sin(t);
    }
    return sinew_vec2_make((float)x, (float)y);
}

// A target uniform over the disc of radius `fraction` of the reach around the base.
static sinew_vec2 disc_target(uint64_t *s, const sinew_ik_chain *c, double fraction)
{
    const double r = fraction * chain_length(c->lengths, c->count) * sqrt(uniform(s, 0.0, 1.0)), a = uniform(s, -PI, PI);
    return sinew_vec2_make((float)(c->base.x + r * cos(a)), (float)(c->base.y + r * sin(a)));
}

static void assert_within_limits(const float *angles, const sinew_ik_limit *limits, int n)
{
    for (int k = 0; k < n; ++k) {
        if (!(angles[k] >= limits[k].min && angles[k] <= limits[k].max)) {
            fail_msg("joint %d: angle %.9g outside [%.9g, %.9g]", k, (double)angles[k], (double)limits[k].min,
                     (double)limits[k].max);
        }
    }
}

static const sinew_ik_method iterative[3] = {SINEW_IK_RELAXATION, SINEW_IK_FABRIK, SINEW_IK_CCD};
static const char *const method_name[4] = {"relaxation", "fabrik", "ccd", "two-bone"};

// ---- defaults, wrapping, conversion -----------------------------------------------------------

static void defaults_match_the_header(void **state)
{
    (void)state;
    sinew_ik_def d = sinew_default_ik_def();
    assert_int_equal(d.method, SINEW_IK_FABRIK);
    assert_int_equal(d.max_iterations, 100);
    assert_true(d.tolerance == 1e-3f);
    assert_null(d.limits);
    assert_int_equal(d.bend, 0);
    assert_null(d.on_iteration);
    assert_null(d.user_data);

    sinew_ik_arm_def a = sinew_default_ik_arm_def();
    assert_true(a.base.x == 0.0f && a.base.y == 0.0f);
    assert_true(a.base_angle == 0.0f);
    assert_int_equal(a.bones, 4);
    assert_true(a.bone_length == 0.5f);
    assert_null(a.lengths);
    assert_null(a.angles);
    assert_null(a.limits);
    assert_true(a.limit_stiffness == 1.0f);
    assert_true(a.weight == 1.0f);
    assert_true(a.radius == 0.1f);
    assert_int_equal(a.particle_flags, SINEW_PARTICLE_COLLIDES);
    assert_true(a.target_at_hand);
    assert_true(a.target_stiffness == 1.0f);
    assert_true(a.target_compliance == 0.0f);
    assert_true(a.target_max_force == SINEW_IK_ARM_TARGET_MAX_FORCE);
}

static void angles_wrap_into_minus_pi_pi(void **state)
{
    (void)state;
    // Inside the range: unchanged, to the bit (pi and -pi included).
    const float inside[] = {0.0f, -0.0f, 1.0f, -3.0f, PI_F, -PI_F, 3.14159f};
    for (size_t k = 0; k < sizeof inside / sizeof inside[0]; ++k) {
        assert_true(sinew_ik_wrap_angle(inside[k]) == inside[k]);
    }
    // Outside: a value in [-pi, pi] that differs by a whole number of turns.
    uint64_t s = 7;
    for (int k = 0; k < 10000; ++k) {
        const float a = (float)uniform(&s, -1000.0, 1000.0);
        const float w = sinew_ik_wrap_angle(a);
        assert_true(w >= -PI_F && w <= PI_F);
        const double turns = ((double)a - w) / (2.0 * PI);
        assert_near(turns, round(turns), 1e-4);
    }
    assert_near(fabs(sinew_ik_wrap_angle(3.0f * PI_F)), PI, 1e-5);
    assert_near(fabs(sinew_ik_wrap_angle(-3.0f * PI_F)), PI, 1e-5);
    assert_near(sinew_ik_wrap_angle(2.0f * PI_F + 0.5f), 0.5, 1e-6);
    assert_near(sinew_ik_wrap_angle(-2.0f * PI_F - 0.5f), -0.5, 1e-6);
    assert_true(isnan(sinew_ik_wrap_angle(NAN)));
    assert_true(isnan(sinew_ik_wrap_angle(INFINITY)));

    // The solver's answer is wrapped too, whatever angles it was given.
    float angles[3] = {7.0f, -9.0f, 20.0f}, lengths[3] = {1.0f, 1.0f, 1.0f};
    sinew_ik_chain c = {3, angles, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
    sinew_ik_def d = sinew_default_ik_def();
    d.tolerance = 100.0f; // already "reached": the answer is the start pose, wrapped
    sinew_ik_result r;
    assert_int_equal(sinew_ik_solve(&d, &c, sinew_vec2_make(1.0f, 1.0f), &r), SINEW_OK);
    assert_int_equal(r.iterations, 0);
    assert_near(angles[0], 7.0 - 2.0 * PI, 1e-6);
    assert_near(angles[1], -9.0 + 2.0 * PI, 1e-6);
    assert_near(angles[2], 20.0 - 6.0 * PI, 1e-6);
}

static void local_and_world_conversions_round_trip(void **state)
{
    (void)state;
    uint64_t s = 11;
    for (int trial = 0; trial < 500; ++trial) {
        const int n = 1 + (int)(uniform(&s, 0.0, 1.0) * 12.0);
        float angles[12], lengths[12], back[12];
        for (int k = 0; k < n; ++k) {
            angles[k] = (float)uniform(&s, -PI, PI);
            lengths[k] = (float)uniform(&s, 0.1, 2.0);
        }
        const sinew_vec2 base = uniform_vec2(&s, -5, 5, -5, 5);
        sinew_ik_chain c = {n, angles, lengths, NULL, base, (float)uniform(&s, -PI, PI)};
        sinew_vec2 pts[13], pts2[13];
        assert_int_equal(sinew_ik_chain_points(&c, pts), SINEW_OK);
        assert_true(pts[0].x == c.base.x && pts[0].y == c.base.y);
        for (int k = 0; k < n; ++k) { // each bone has its length
            assert_near(sinew_vec2_distance(pts[k], pts[k + 1]), lengths[k], 1e-5);
        }
        sinew_ik_chain c2 = c;
        c2.angles = back;
        assert_int_equal(sinew_ik_chain_set_points(&c2, pts), SINEW_OK);
        for (int k = 0; k < n; ++k) { // the same angles, up to a whole turn and float rounding
            assert_true(back[k] >= -PI_F && back[k] <= PI_F);
            assert_near(fabs(sinew_ik_wrap_angle(back[k] - angles[k])), 0.0, 2e-4);
        }
        assert_int_equal(sinew_ik_chain_points(&c2, pts2), SINEW_OK);
        for (int k = 0; k <= n; ++k) {
            assert_near(pts2[k].x, pts[k].x, 1e-4);
            assert_near(pts2[k].y, pts[k].y, 1e-4);
        }
    }
    // A straight chain along the base direction has zero angles.
    float zeros[3] = {1.0f, 1.0f, 1.0f}, lengths[3] = {1.0f, 2.0f, 3.0f};
    sinew_ik_chain c = {3, zeros, lengths, NULL, sinew_vec2_make(1.0f, 1.0f), PI_F / 2.0f};
    sinew_vec2 line[4] = {{1, 1}, {1, 2}, {1, 4}, {1, 7}};
    assert_int_equal(sinew_ik_chain_set_points(&c, line), SINEW_OK);
    for (int k = 0; k < 3; ++k) {
        assert_near(zeros[k], 0.0, 1e-6);
    }
}

// ---- two bones --------------------------------------------------------------------------------

static void two_bones_match_the_closed_form(void **state)
{
    (void)state;
    uint64_t s = 3;
    for (int trial = 0; trial < 2000; ++trial) {
        float lengths[2] = {(float)uniform(&s, 0.2, 2.0), (float)uniform(&s, 0.2, 2.0)};
        float angles[2] = {(float)uniform(&s, -PI, PI), (float)uniform(&s, -PI, PI)};
        const sinew_vec2 base = uniform_vec2(&s, -3, 3, -3, 3);
        sinew_ik_chain c = {2, angles, lengths, NULL, base, (float)uniform(&s, -PI, PI)};
        // A target strictly inside the annulus the two bones reach.
        const double lo = fabs(lengths[0] - lengths[1]), hi = lengths[0] + lengths[1];
        const double d = uniform(&s, lo + 0.01 * (hi - lo), hi - 0.01 * (hi - lo)), a = uniform(&s, -PI, PI);
        const sinew_vec2 target = sinew_vec2_make((float)(base.x + d * cos(a)), (float)(base.y + d * sin(a)));
        sinew_ik_def def = sinew_default_ik_def();
        def.method = SINEW_IK_TWO_BONE;
        def.bend = uniform(&s, 0.0, 1.0) < 0.5 ? -1 : 1;
        sinew_ik_result r;
        assert_int_equal(sinew_ik_solve(&def, &c, target, &r), SINEW_OK);
        assert_int_equal(r.iterations, 0);
        assert_true(r.reached);
        assert_true(r.distance < 1e-4f);
        assert_near(end_distance(&c, target), 0.0, 1e-4);
        assert_true(def.bend > 0 ? angles[1] >= 0.0f : angles[1] <= 0.0f);
        // The elbow is where the circles of radius l1 round the base and l2 round the target
        // cross, on the side the bend asks for (counter-clockwise bend: elbow right of base->target).
        const double tx = (double)target.x - base.x, ty = (double)target.y - base.y, dd = hypot(tx, ty);
        const double l1 = lengths[0], l2 = lengths[1];
        const double along = (dd * dd + l1 * l1 - l2 * l2) / (2.0 * dd), off = sqrt(fmax(l1 * l1 - along * along, 0.0));
        const double side = def.bend > 0 ? -1.0 : 1.0;
        const double exx = base.x + along * tx / dd + side * off * -ty / dd;
        const double exy = base.y + along * ty / dd + side * off * tx / dd;
        sinew_vec2 pts[3];
        assert_int_equal(sinew_ik_chain_points(&c, pts), SINEW_OK);
        assert_near(pts[1].x, exx, 2e-4);
        assert_near(pts[1].y, exy, 2e-4);
    }
}

static void two_bones_keep_their_side_and_stretch_toward_far_targets(void **state)
{
    (void)state;
    float lengths[2] = {1.0f, 1.0f};
    float angles[2] = {0.3f, -0.4f}; // bent clockwise
    sinew_ik_chain c = {2, angles, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
    sinew_ik_def def = sinew_default_ik_def();
    def.method = SINEW_IK_TWO_BONE; // bend 0: keep the start's side
    sinew_ik_result r;
    for (int k = 0; k < 100; ++k) { // a target sweeping round: never snaps to the other side
        const double a = 2.0 * PI * k / 100.0;
        assert_int_equal(sinew_ik_solve(&def, &c, sinew_vec2_make((float)(1.2 * cos(a)), (float)(1.2 * sin(a))), &r), SINEW_OK);
        assert_true(r.reached);
        assert_true(angles[1] < 0.0f);
    }
    // Out of reach: straight at the target.
    assert_int_equal(sinew_ik_solve(&def, &c, sinew_vec2_make(0.0f, 5.0f), &r), SINEW_OK);
    assert_false(r.reached);
    assert_near(r.distance, 3.0, 1e-5);
    assert_near(angles[0], PI / 2.0, 1e-6);
    assert_near(angles[1], 0.0, 1e-6);
    // Limits: the elbow stops at its limit, the shoulder aims as well as it can.
    sinew_ik_limit lim[2] = {{-PI_F, PI_F}, {-0.5f, 0.5f}};
    def.limits = lim;
    def.bend = 1;
    assert_int_equal(sinew_ik_solve(&def, &c, sinew_vec2_make(0.5f, 0.0f), &r), SINEW_OK);
    assert_within_limits(angles, lim, 2);
    assert_near(angles[1], 0.5, 1e-6);
    assert_false(r.reached);
}

// ---- ten bones --------------------------------------------------------------------------------

// Solves `trials` targets from the straight rest pose with each iterative method; asserts the
// limits hold and the answer is deterministic; returns the reached count per method and writes
// the mean iterations.
typedef struct reach_stats {
    int reached[3];
    double mean_iterations[3];
    int max_iterations[3];
} reach_stats;

static reach_stats reach_random_targets(int n, const sinew_ik_limit *limits, int trials, const int caps[3],
                                        bool disc, uint64_t seed)
{
    reach_stats st = {{0}, {0}, {0}};
    float lengths[16];
    uint64_t s = seed;
    for (int k = 0; k < n; ++k) {
        lengths[k] = (float)uniform(&s, 0.5, 1.5);
    }
    const double tol = 1e-3 * chain_length(lengths, n);
    for (int trial = 0; trial < trials; ++trial) {
        float rest[16] = {0};
        sinew_ik_chain probe = {n, rest, lengths, NULL, sinew_vec2_make(1.0f, -2.0f), 0.25f};
        const sinew_vec2 target = disc ? disc_target(&s, &probe, 0.9) : reachable_target(&s, &probe, limits);
        for (int m = 0; m < 3; ++m) {
            float a[16] = {0}, b[16] = {0};
            sinew_ik_chain c = probe, c2 = probe;
            c.angles = a;
            c2.angles = b;
            sinew_ik_def def = sinew_default_ik_def();
            def.method = iterative[m];
            def.max_iterations = caps[m];
            def.tolerance = (float)tol;
            def.limits = limits;
            sinew_ik_result r, r2;
            assert_int_equal(sinew_ik_solve(&def, &c, target, &r), SINEW_OK);
            assert_int_equal(sinew_ik_solve(&def, &c2, target, &r2), SINEW_OK);
            assert_memory_equal(a, b, sizeof a); // deterministic, to the bit
            assert_int_equal(r.iterations, r2.iterations);
            if (limits != NULL) {
                assert_within_limits(a, limits, n);
            }
            // The result tells the truth about the returned angles.
            assert_near(r.distance, end_distance(&c, target), 1e-5);
            assert_true(r.reached == (r.distance <= (float)tol));
            st.reached[m] += r.reached;
            st.mean_iterations[m] += r.iterations;
            st.max_iterations[m] = r.iterations > st.max_iterations[m] ? r.iterations : st.max_iterations[m];
        }
    }
    for (int m = 0; m < 3; ++m) {
        st.mean_iterations[m] /= trials;
        print_message("    %-10s reached %d/%d, mean %.1f iterations, max %d (cap %d)\n", method_name[m], st.reached[m],
                      trials, st.mean_iterations[m], st.max_iterations[m], caps[m]);
    }
    return st;
}

static void ten_bones_reach_random_targets_with_every_method(void **state)
{
    (void)state;
    const int caps[3] = {2000, 400, 2000};
    print_message("  10 bones, 300 targets uniform over 0.9 of the reach, no limits:\n");
    reach_stats st = reach_random_targets(10, NULL, 300, caps, true, 101);
    for (int m = 0; m < 3; ++m) {
        assert_int_equal(st.reached[m], 300);
    }
    // FABRIK needs the fewest iterations, as in Aristidou and Lasenby's comparison.
    assert_true(st.mean_iterations[1] < st.mean_iterations[2]);
    assert_true(st.mean_iterations[1] < st.mean_iterations[0]);
}

static void ten_bones_with_moderate_limits_reach_and_the_limits_hold(void **state)
{
    (void)state;
    sinew_ik_limit limits[10];
    uint64_t s = 5;
    for (int k = 0; k < 10; ++k) { // asymmetric, about +-0.5 rad
        limits[k].min = (float)uniform(&s, -0.6, -0.3);
        limits[k].max = (float)uniform(&s, 0.3, 0.6);
    }
    const int caps[3] = {20000, 1000, 2000};
    print_message("  10 bones, limits about +-0.5 rad, 300 targets made by random poses inside them:\n");
    reach_stats st = reach_random_targets(10, limits, 300, caps, false, 202);
    for (int m = 0; m < 3; ++m) {
        assert_int_equal(st.reached[m], 300);
    }
}

static void ten_bones_with_wide_limits_keep_them(void **state)
{
    (void)state;
    // Wide limits let the chain curl into local minima (CCD reached 210 to 299 of these before the
    // escapes of ik.c); the escapes bring every method out of them, and the limits hold.
    sinew_ik_limit limits[10];
    for (int k = 0; k < 10; ++k) {
        limits[k].min = -1.5f;
        limits[k].max = k == 0 ? 1.5f : 1.0f;
    }
    const int caps[3] = {5000, 1000, 5000};
    print_message("  10 bones, limits [-1.5, 1.0] rad, 300 targets made by random poses inside them:\n");
    reach_stats st = reach_random_targets(10, limits, 300, caps, false, 303);
    for (int m = 0; m < 3; ++m) {
        assert_int_equal(st.reached[m], 300);
    }
}

// The new user's case: 4 bones of 1.0, 0.8, 0.6 and 0.4 m, +-45 degrees on every angle, targets
// from random poses inside the limits, a cold (straight) start, 1,000 iterations. Without the
// escapes the relaxation missed 1% (by up to 0.19 m) and CCD 0.3%; every method must reach 99.9%.
static void four_bones_at_45_degrees_reach_from_a_cold_start(void **state)
{
    (void)state;
    float lengths[4] = {1.0f, 0.8f, 0.6f, 0.4f};
    sinew_ik_limit limits[4];
    for (int k = 0; k < 4; ++k) {
        limits[k].min = -(float)(PI / 4);
        limits[k].max = (float)(PI / 4);
    }
    enum { TRIALS = 3000 };
    int reached[3] = {0};
    uint64_t s = 404;
    for (int trial = 0; trial < TRIALS; ++trial) {
        float rest[4] = {0};
        const sinew_ik_chain probe = {4, rest, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
        const sinew_vec2 target = reachable_target(&s, &probe, limits);
        for (int m = 0; m < 3; ++m) {
            float a[4] = {0};
            sinew_ik_chain c = probe;
            c.angles = a;
            sinew_ik_def def = sinew_default_ik_def();
            def.method = iterative[m];
            def.max_iterations = 1000;
            def.limits = limits;
            sinew_ik_result r;
            assert_int_equal(sinew_ik_solve(&def, &c, target, &r), SINEW_OK);
            assert_within_limits(a, limits, 4);
            assert_near(r.distance, end_distance(&c, target), 1e-5);
            reached[m] += r.reached;
        }
    }
    for (int m = 0; m < 3; ++m) {
        print_message("    %-10s reached %d/%d\n", method_name[m], reached[m], TRIALS);
        assert_true(reached[m] * 1000 >= TRIALS * 999);
    }
}

// Two bones with limits and bend 0 from a straight start: the limits can block the side the elbow
// starts on; the solver takes the side that reaches. When both sides reach, the elbow keeps its
// side (no snap).
static void two_bones_with_limits_take_the_side_that_reaches(void **state)
{
    (void)state;
    float lengths[2] = {1.0f, 0.8f};
    const sinew_ik_limit limits[2] = {{-(float)(PI / 4), (float)(PI / 4)}, {-(float)(PI / 4), (float)(PI / 4)}};
    uint64_t s = 505;
    int kept = 0;
    for (int trial = 0; trial < 1000; ++trial) {
        float a[2] = {0};
        sinew_ik_chain c = {2, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
        const sinew_vec2 target = reachable_target(&s, &c, limits);
        sinew_ik_def def = sinew_default_ik_def();
        def.method = SINEW_IK_TWO_BONE;
        def.limits = limits;
        sinew_ik_result r;
        assert_int_equal(sinew_ik_solve(&def, &c, target, &r), SINEW_OK);
        assert_true(r.reached);
        assert_within_limits(a, limits, 2);
        // Both sides reach when the mirrored pose is inside the limits too: then the elbow keeps
        // the side it started on, for either start side.
        // The same end effector with the elbow flipped: the shoulder mirrored about the target's direction.
        const float mirrored0 = 2.0f * atan2f(target.y, target.x) - a[0];
        if (fabsf(mirrored0) <= limits[0].max - 1e-3f && fabsf(a[1]) > 1e-2f) {
            for (int side = -1; side <= 1; side += 2) {
                float b[2] = {0.0f, 0.05f * (float)side};
                sinew_ik_chain d = {2, b, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
                assert_int_equal(sinew_ik_solve(&def, &d, target, &r), SINEW_OK);
                assert_true(r.reached);
                assert_true(b[1] * (float)side > 0.0f);
            }
            kept += 1;
        }
    }
    assert_true(kept > 100); // the no-snap case was exercised
}

static void a_bend_direction_bends_the_joints_one_way(void **state)
{
    (void)state;
    uint64_t s = 9;
    for (int bend = -1; bend <= 1; bend += 2) {
        for (int trial = 0; trial < 100; ++trial) {
            float lengths[6] = {1, 1, 1, 1, 1, 1};
            for (int m = 0; m < 3; ++m) {
                float a[6] = {0};
                sinew_ik_chain c = {6, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
                sinew_ik_def def = sinew_default_ik_def();
                def.method = iterative[m];
                def.bend = bend;
                def.max_iterations = 500;
                const sinew_vec2 t = disc_target(&s, &c, 0.8);
                assert_int_equal(sinew_ik_solve(&def, &c, t, NULL), SINEW_OK);
                for (int k = 1; k < 6; ++k) {
                    assert_true(bend > 0 ? a[k] >= 0.0f : a[k] <= 0.0f);
                }
            }
        }
    }
}

static void a_start_pose_outside_the_limits_is_clamped_into_them(void **state)
{
    (void)state;
    float lengths[3] = {1, 1, 1};
    sinew_ik_limit lim[3] = {{-0.2f, 0.2f}, {0.1f, 0.3f}, {-0.3f, -0.1f}};
    for (int m = 0; m < 3; ++m) {
        float a[3] = {2.0f, -2.0f, 2.0f};
        sinew_ik_chain c = {3, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
        sinew_ik_def def = sinew_default_ik_def();
        def.method = iterative[m];
        def.limits = lim;
        def.tolerance = 100.0f; // reached at once: the answer is the clamped start pose
        assert_int_equal(sinew_ik_solve(&def, &c, sinew_vec2_make(2.0f, 0.0f), NULL), SINEW_OK);
        assert_true(a[0] == 0.2f && a[1] == 0.1f && a[2] == -0.1f);
    }
}

static void a_straight_chain_bends_toward_a_target_on_its_own_line(void **state)
{
    (void)state;
    // The singular pose: straight, the target on the chain's line inside the reach.
    for (int n = 2; n <= 10; n += 8) {
        for (int m = 0; m < 3; ++m) {
            for (int bend = -1; bend <= 1; ++bend) {
                float a[10] = {0}, lengths[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
                sinew_ik_chain c = {n, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
                sinew_ik_def def = sinew_default_ik_def();
                def.method = iterative[m];
                def.bend = bend;
                def.tolerance = 1e-3f * (float)n;
                sinew_ik_result r;
                assert_int_equal(sinew_ik_solve(&def, &c, sinew_vec2_make(0.8f * (float)n, 0.0f), &r), SINEW_OK);
                if (!r.reached) {
                    fail_msg("%d bones, %s, bend %d: %d iterations, %g m short", n, method_name[m], bend, r.iterations,
                             (double)r.distance);
                }
                for (int k = 1; k < n && bend != 0; ++k) {
                    assert_true(bend > 0 ? a[k] >= 0.0f : a[k] <= 0.0f);
                }
            }
        }
    }
}

// Targets on the chain's own joints (the base of the last bone, the base, the middle joint), from
// a chain folded back onto itself (a bone at pi from its parent, a joint on its grandparent) or
// not, with limits of the whole circle or none: every iterative method answers finite angles in
// [-pi, pi], and the chain keeps its lengths.
static void targets_on_the_joints_and_folded_chains_stay_finite(void **state)
{
    (void)state;
    const float folds[3] = {0.0f, 3.14159265f, -3.14159265f};
    for (int m = 0; m < 3; ++m) {
        for (int limited = 0; limited < 2; ++limited) {
            for (int fold = 0; fold < 3; ++fold) {
                for (int at = 0; at < 3; ++at) {
                    const int n = 4;
                    float a[4] = {0.3f, folds[fold], 0.2f, folds[fold]}, lengths[4] = {1.0f, 1.0f, 0.5f, 0.5f};
                    sinew_ik_chain c = {n, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
                    sinew_vec2 pts[5];
                    sinew_ik_chain_points(&c, pts);
                    const sinew_vec2 target = pts[at == 0 ? n - 1 : (at == 1 ? 0 : 2)];
                    sinew_ik_limit lim[4] = {{-3.2f, 3.2f}, {-3.2f, 3.2f}, {-3.2f, 3.2f}, {-3.2f, 3.2f}};
                    for (int k = 0; k < n && limited; ++k) {
                        lim[k] = (sinew_ik_limit){-3.14159265f, 3.14159265f};
                    }
                    sinew_ik_def def = sinew_default_ik_def();
                    def.method = iterative[m];
                    def.limits = limited ? lim : NULL;
                    def.max_iterations = 50;
                    sinew_ik_result r;
                    assert_int_equal(sinew_ik_solve(&def, &c, target, &r), SINEW_OK);
                    assert_true(isfinite(r.distance));
                    for (int k = 0; k < n; ++k) {
                        if (!isfinite(a[k]) || a[k] < -3.1416f || a[k] > 3.1416f) {
                            fail_msg("%s, limits %d, fold %d, target %d: angle %d is %g", method_name[m], limited, fold,
                                     at, k, (double)a[k]);
                        }
                    }
                    sinew_ik_chain_points(&c, pts);
                    for (int k = 0; k < n; ++k) {
                        assert_true(fabsf(sinew_vec2_distance(pts[k], pts[k + 1]) - lengths[k]) < 1e-4f);
                    }
                }
            }
        }
    }
}

// ---- weights ----------------------------------------------------------------------------------

static void weights_damp_ccd_and_weight_zero_joints_do_not_turn(void **state)
{
    (void)state;
    float lengths[4] = {1, 1, 1, 1};
    float weights[4] = {1.0f, 0.0f, 1.0f, 0.5f};
    float a[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    sinew_ik_chain c = {4, a, lengths, weights, sinew_vec2_make(0.0f, 0.0f), 0.0f};
    sinew_ik_def def = sinew_default_ik_def();
    def.method = SINEW_IK_CCD;
    def.max_iterations = 1000;
    sinew_ik_result r;
    assert_int_equal(sinew_ik_solve(&def, &c, sinew_vec2_make(1.0f, 2.5f), &r), SINEW_OK);
    assert_true(r.reached);
    assert_near(a[1], 0.2, 1e-6); // the stiff joint kept its angle
    // All weights zero: nothing turns, nothing is reached.
    float none[4] = {0, 0, 0, 0};
    float b[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    c.angles = b;
    c.weights = none;
    def.max_iterations = 10;
    assert_int_equal(sinew_ik_solve(&def, &c, sinew_vec2_make(1.0f, 2.5f), &r), SINEW_OK);
    assert_false(r.reached);
    assert_near(b[0], 0.1, 1e-6);
    assert_near(b[3], 0.4, 1e-6);
}

// ---- Juckett's relaxation, step by step -------------------------------------------------------

// The reference, written from the description in issue 5 (and Juckett's article): joint positions
// in a common space; each iteration (1) moves the final bone so that it points from its base at
// the target with its end on the target, (2) resolves the distance constraint of each bone from
// the last but one down to bone 1 (the first child), moving its two end joints by their relaxation
// weights (w_a / (w_a + w_b) of the correction to a, w_b / (w_a + w_b) to b; skipped when both
// weigh 0 or the joints coincide), (3) puts the first child back at bone 0's length from the root,
// which never moves. At the end the local angles come from the bone directions.
typedef struct juckett {
    int n;
    double x[17], y[17], len[16], w[16];
} juckett;

static void juckett_iteration(juckett *j, double tx, double ty)
{
    const int n = j->n;
    if (n > 1) {
        const double dx = tx - j->x[n - 1], dy = ty - j->y[n - 1], d = hypot(dx, dy);
        j->x[n - 1] = tx - j->len[n - 1] * dx / d;
        j->y[n - 1] = ty - j->len[n - 1] * dy / d;
    }
    j->x[n] = tx;
    j->y[n] = ty;
    for (int b = n - 2; b >= 1; --b) {
        const double wa = j->w[b], wb = j->w[b + 1];
        const double dx = j->x[b + 1] - j->x[b], dy = j->y[b + 1] - j->y[b], d = hypot(dx, dy);
        if (wa + wb == 0.0 || d == 0.0) {
            continue;
        }
        const double change = d - j->len[b]; // > 0: too long, pull the ends together
        const double ux = dx / d * change, uy = dy / d * change;
        j->x[b] += ux * wa / (wa + wb);
        j->y[b] += uy * wa / (wa + wb);
        j->x[b + 1] -= ux * wb / (wa + wb);
        j->y[b + 1] -= uy * wb / (wa + wb);
    }
    const double dx = j->x[1] - j->x[0], dy = j->y[1] - j->y[0], d = hypot(dx, dy);
    j->x[1] = j->x[0] + j->len[0] * dx / d;
    j->y[1] = j->y[0] + j->len[0] * dy / d;
}

typedef struct recorder {
    int calls, n;
    sinew_vec2 pts[64][17];
} recorder;

static void record_iteration(void *user_data, int iteration, const sinew_vec2 *points, int count)
{
    recorder *r = user_data;
    assert_int_equal(iteration, r->calls);
    assert_int_equal(count, r->n + 1);
    assert_true(iteration < 64);
    memcpy(r->pts[iteration], points, sizeof(sinew_vec2) * (size_t)count);
    r->calls += 1;
}

static void relaxation_matches_juckett_step_by_step(void **state)
{
    (void)state;
    uint64_t s = 17;
    recorder *rec = malloc(sizeof *rec);
    assert_non_null(rec);
    for (int trial = 0; trial < 200; ++trial) {
        const int n = 1 + (int)(uniform(&s, 0.0, 1.0) * 12.0);
        float angles[16], lengths[16], weights[16];
        juckett j = {.n = n};
        for (int k = 0; k < n; ++k) {
            angles[k] = (float)uniform(&s, -1.0, 1.0);
            lengths[k] = (float)uniform(&s, 0.3, 1.5);
            weights[k] = (float)uniform(&s, 0.05, 1.0);
            j.len[k] = lengths[k];
            j.w[k] = weights[k];
        }
        const sinew_vec2 base = uniform_vec2(&s, -2, 2, -2, 2);
        sinew_ik_chain c = {n, angles, lengths, weights, base, (float)uniform(&s, -PI, PI)};
        const sinew_vec2 target = reachable_target(&s, &c, NULL);
        // The reference starts from the same pose, in double.
        double t = c.base_angle;
        j.x[0] = c.base.x;
        j.y[0] = c.base.y;
        for (int k = 0; k < n; ++k) {
            t += angles[k];
            j.x[k + 1] = j.x[k] + j.len[k] * cos(t);
            j.y[k + 1] = j.y[k] + j.len[k] * sin(t);
        }
        const int iterations = 1 + (int)(uniform(&s, 0.0, 1.0) * 40.0);
        memset(rec, 0, sizeof *rec);
        rec->n = n;
        sinew_ik_def def = sinew_default_ik_def();
        def.method = SINEW_IK_RELAXATION;
        def.max_iterations = iterations;
        def.tolerance = 0.0f; // run every iteration
        def.on_iteration = record_iteration;
        def.user_data = rec;
        sinew_ik_result r;
        assert_int_equal(sinew_ik_solve(&def, &c, target, &r), SINEW_OK);
        if (hypot((double)target.x - c.base.x, (double)target.y - c.base.y) >= chain_length(lengths, n)) {
            continue; // straight at the target, no iteration: nothing to compare
        }
        // Every iteration runs, unless the end lands on the target exactly (distance 0 in double).
        assert_true(r.iterations == iterations || (r.iterations < iterations && r.distance < 1e-6f));
        if (rec->calls != r.iterations + 1) {
            fail_msg("trial %d: n %d, calls %d, iterations %d, distance %g, target %g from base, reach %g", trial, n, rec->calls,
                     r.iterations, (double)r.distance, hypot((double)target.x - c.base.x, (double)target.y - c.base.y), chain_length(lengths, n));
        }
        const double tol = 1e-5 * chain_length(lengths, n);
        for (int it = 0; it <= r.iterations; ++it) {
            if (it > 0) {
                juckett_iteration(&j, target.x, target.y);
            }
            for (int k = 0; k <= n; ++k) {
                assert_near(rec->pts[it][k].x, j.x[k], tol);
                assert_near(rec->pts[it][k].y, j.y[k], tol);
            }
        }
        // The answer's angles are the reference's bone directions.
        double ux = cos((double)c.base_angle), uy = sin((double)c.base_angle);
        for (int k = 0; k < n; ++k) {
            const double vx = j.x[k + 1] - j.x[k], vy = j.y[k + 1] - j.y[k];
            assert_near(angles[k], atan2(ux * vy - uy * vx, ux * vx + uy * vy), 1e-4);
            ux = vx;
            uy = vy;
        }
    }
    free(rec);
}

static void the_iteration_callback_sees_every_iteration(void **state)
{
    (void)state;
    for (int m = 0; m < 3; ++m) {
        recorder *rec = calloc(1, sizeof *rec);
        assert_non_null(rec);
        rec->n = 5;
        float a[5] = {0.1f, 0.1f, 0.1f, 0.1f, 0.1f}, lengths[5] = {1, 1, 1, 1, 1};
        sinew_ik_chain c = {5, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
        sinew_ik_def def = sinew_default_ik_def();
        def.method = iterative[m];
        def.max_iterations = 30;
        def.on_iteration = record_iteration;
        def.user_data = rec;
        sinew_ik_result r;
        assert_int_equal(sinew_ik_solve(&def, &c, sinew_vec2_make(1.0f, 2.0f), &r), SINEW_OK);
        assert_int_equal(rec->calls, r.iterations + 1);
        for (int it = 0; it < rec->calls; ++it) {
            assert_true(rec->pts[it][0].x == 0.0f && rec->pts[it][0].y == 0.0f); // the base never moves
        }
        free(rec);
    }
}

// ---- unreachable targets, warm starts ---------------------------------------------------------

static void unreachable_targets_point_the_chain_straight_and_stay_put(void **state)
{
    (void)state;
    float lengths[5] = {1.0f, 0.5f, 1.0f, 0.5f, 1.0f};
    for (int m = 0; m < 3; ++m) {
        uint64_t s = 23;
        float prev0 = 0.0f;
        for (int frame = 0; frame < 200; ++frame) {
            float a[5];
            for (int k = 0; k < 5; ++k) { // any start pose
                a[k] = (float)uniform(&s, -PI, PI);
            }
            sinew_ik_chain c = {5, a, lengths, NULL, sinew_vec2_make(1.0f, 1.0f), 0.3f};
            // A target sitting just out of reach, drifting slowly.
            const double ang = 1.0 + 1e-3 * frame, r = 4.01 + 5e-3 * sin(frame);
            const sinew_vec2 t = sinew_vec2_make((float)(1.0 + r * cos(ang)), (float)(1.0 + r * sin(ang)));
            sinew_ik_def def = sinew_default_ik_def();
            def.method = iterative[m];
            sinew_ik_result res;
            assert_int_equal(sinew_ik_solve(&def, &c, t, &res), SINEW_OK);
            assert_false(res.reached);
            assert_int_equal(res.iterations, 0);
            assert_near(res.distance, hypot(t.x - 1.0, t.y - 1.0) - 4.0, 1e-5);
            assert_near(a[0], ang - 0.3, 1e-5); // straight at the target
            for (int k = 1; k < 5; ++k) {
                assert_true(a[k] == 0.0f);
            }
            // From its own answer: the same answer, to the bit.
            float again[5];
            memcpy(again, a, sizeof a);
            c.angles = again;
            assert_int_equal(sinew_ik_solve(&def, &c, t, &res), SINEW_OK);
            assert_memory_equal(again, a, sizeof a);
            // Frame to frame the pose moves as little as the target: no jitter.
            if (frame > 0) {
                assert_near(a[0] - prev0, 1e-3, 1e-5);
            }
            prev0 = a[0];
        }
    }
    // Limits that forbid the straight pose: the best the method finds, inside the limits.
    sinew_ik_limit lim[5] = {{-1, 1}, {0.2f, 1}, {0.2f, 1}, {-1, 1}, {-1, 1}};
    for (int m = 0; m < 3; ++m) {
        float a[5] = {0.0f, 0.2f, 0.2f, 0.0f, 0.0f};
        sinew_ik_chain c = {5, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
        sinew_ik_def def = sinew_default_ik_def();
        def.method = iterative[m];
        def.limits = lim;
        sinew_ik_result res;
        assert_int_equal(sinew_ik_solve(&def, &c, sinew_vec2_make(10.0f, 0.0f), &res), SINEW_OK);
        assert_false(res.reached);
        assert_within_limits(a, lim, 5);
    }
}

static void a_warm_start_on_its_own_answer_takes_no_iteration(void **state)
{
    (void)state;
    uint64_t s = 31;
    float lengths[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (int m = 0; m < 3; ++m) {
        float a[10] = {0};
        sinew_ik_chain c = {10, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
        sinew_ik_def def = sinew_default_ik_def();
        def.method = iterative[m];
        def.max_iterations = 5000;
        def.tolerance = 0.01f;
        for (int frame = 0; frame < 300; ++frame) {
            // A target moving along a curve; each frame starts from the previous answer.
            const double ph = 0.02 * frame;
            const sinew_vec2 t = sinew_vec2_make((float)(5.0 * cos(ph) + 1.0 * cos(3.1 * ph)), (float)(5.0 * sin(ph) + 1.0 * sin(2.3 * ph)));
            sinew_ik_result r;
            assert_int_equal(sinew_ik_solve(&def, &c, t, &r), SINEW_OK);
            assert_true(r.reached);
            float copy[10];
            memcpy(copy, a, sizeof a);
            assert_int_equal(sinew_ik_solve(&def, &c, t, &r), SINEW_OK);
            assert_int_equal(r.iterations, 0);
            assert_memory_equal(copy, a, sizeof a);
        }
        (void)s;
    }
}

// ---- errors -----------------------------------------------------------------------------------

static void every_bad_input_is_refused_and_changes_nothing(void **state)
{
    (void)state;
    float a[3] = {0.1f, 0.2f, 0.3f}, lengths[3] = {1, 1, 1}, weights[3] = {1, 1, 1};
    const float a0[3] = {0.1f, 0.2f, 0.3f};
    sinew_ik_limit lim[3] = {{-1, 1}, {-1, 1}, {-1, 1}};
    const sinew_vec2 t = sinew_vec2_make(1.0f, 1.0f);
    sinew_ik_result r = {-7, -7.0f, true};
#define CHECK(expected, chain_expr, def_expr, target)                                                \
    do {                                                                                           \
        sinew_ik_chain c = {3, a, lengths, weights, sinew_vec2_make(0.0f, 0.0f), 0.0f};            \
        sinew_ik_def d = sinew_default_ik_def();                                                   \
        chain_expr;                                                                                \
        def_expr;                                                                                  \
        assert_int_equal(sinew_ik_solve(&d, &c, (target), &r), (expected));                        \
        assert_memory_equal(a, a0, sizeof a0);                                                     \
        assert_int_equal(r.iterations, -7);                                                        \
    } while (0)
    CHECK(SINEW_ERR_OUT_OF_RANGE, c.count = 0, (void)0, t);
    CHECK(SINEW_ERR_OUT_OF_RANGE, c.count = -1, (void)0, t);
    CHECK(SINEW_ERR_OUT_OF_RANGE, c.count = SINEW_IK_MAX_BONES + 1, (void)0, t);
    CHECK(SINEW_ERR_NULL_ARGUMENT, c.angles = NULL, (void)0, t);
    CHECK(SINEW_ERR_NULL_ARGUMENT, c.lengths = NULL, (void)0, t);
    lengths[1] = 0.0f;
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, (void)0, t); // zero length
    lengths[1] = -1.0f;
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, (void)0, t); // negative length
    lengths[1] = NAN;
    CHECK(SINEW_ERR_NOT_FINITE, (void)0, (void)0, t);
    lengths[1] = 1.0f;
    CHECK(SINEW_ERR_NOT_FINITE, (void)0, (void)0, sinew_vec2_make(NAN, 1.0f)); // NaN target
    CHECK(SINEW_ERR_NOT_FINITE, (void)0, (void)0, sinew_vec2_make(1.0f, INFINITY));
    CHECK(SINEW_ERR_NOT_FINITE, c.base = sinew_vec2_make(NAN, 0.0f), (void)0, t);
    CHECK(SINEW_ERR_NOT_FINITE, c.base_angle = INFINITY, (void)0, t);
    weights[2] = -0.1f;
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, (void)0, t);
    weights[2] = 1.5f;
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, (void)0, t);
    weights[2] = NAN;
    CHECK(SINEW_ERR_NOT_FINITE, (void)0, (void)0, t);
    weights[2] = 1.0f;
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, d.max_iterations = 0, t);
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, d.max_iterations = SINEW_IK_MAX_ITERATIONS + 1, t);
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, d.tolerance = -1e-3f, t);
    CHECK(SINEW_ERR_NOT_FINITE, (void)0, d.tolerance = NAN, t);
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, d.method = (sinew_ik_method)99, t);
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, d.method = SINEW_IK_TWO_BONE, t); // 3 bones
    CHECK(SINEW_ERR_OUT_OF_RANGE, c.count = 1, d.method = SINEW_IK_TWO_BONE, t);
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, d.bend = 2, t);
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, d.bend = -2, t);
    lim[1] = (sinew_ik_limit){0.5f, -0.5f}; // min > max: an error for IK limits
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, d.limits = lim, t);
    lim[1] = (sinew_ik_limit){-4.0f, 0.5f}; // beyond -pi
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, d.limits = lim, t);
    lim[1] = (sinew_ik_limit){-0.5f, 3.5f}; // beyond pi
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, d.limits = lim, t);
    lim[1] = (sinew_ik_limit){NAN, 0.5f};
    CHECK(SINEW_ERR_NOT_FINITE, (void)0, d.limits = lim, t);
    lim[1] = (sinew_ik_limit){-1.0f, -0.5f}; // bend +1 leaves nothing of [-1, -0.5]
    CHECK(SINEW_ERR_OUT_OF_RANGE, (void)0, (d.limits = lim, d.bend = 1), t);
    lim[1] = (sinew_ik_limit){-1.0f, 1.0f};
    a[0] = NAN;
    {
        sinew_ik_chain c = {3, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
        sinew_ik_def d = sinew_default_ik_def();
        assert_int_equal(sinew_ik_solve(&d, &c, t, &r), SINEW_ERR_NOT_FINITE);
        assert_true(isnan(a[0]));
    }
    a[0] = 0.1f;
    {
        sinew_ik_chain c = {3, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
        assert_int_equal(sinew_ik_solve(NULL, &c, t, &r), SINEW_ERR_NULL_ARGUMENT);
        sinew_ik_def d = sinew_default_ik_def();
        assert_int_equal(sinew_ik_solve(&d, NULL, t, &r), SINEW_ERR_NULL_ARGUMENT);
        assert_int_equal(sinew_ik_solve(&d, &c, t, NULL), SINEW_OK); // out is optional
    }
#undef CHECK
    // The conversions.
    float b[3] = {0.1f, 0.2f, 0.3f};
    sinew_ik_chain c = {3, b, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
    sinew_vec2 pts[4];
    assert_int_equal(sinew_ik_chain_points(NULL, pts), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_ik_chain_points(&c, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_ik_chain_points(&c, pts), SINEW_OK);
    sinew_vec2 bad[4] = {{0, 0}, {1, 0}, {1, 0}, {2, 0}}; // two points coincide
    assert_int_equal(sinew_ik_chain_set_points(&c, bad), SINEW_ERR_OUT_OF_RANGE);
    bad[2] = sinew_vec2_make(NAN, 0.0f);
    assert_int_equal(sinew_ik_chain_set_points(&c, bad), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_ik_chain_set_points(&c, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_ik_chain_set_points(NULL, pts), SINEW_ERR_NULL_ARGUMENT);
    c.count = 0;
    assert_int_equal(sinew_ik_chain_points(&c, pts), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_ik_chain_set_points(&c, pts), SINEW_ERR_OUT_OF_RANGE);
    assert_true(b[0] == 0.1f && b[1] == 0.2f && b[2] == 0.3f);
}

static void the_largest_chain_solves(void **state)
{
    (void)state;
    static float a[SINEW_IK_MAX_BONES], lengths[SINEW_IK_MAX_BONES];
    for (int k = 0; k < SINEW_IK_MAX_BONES; ++k) {
        a[k] = 0.0f;
        lengths[k] = 0.1f;
    }
    for (int m = 0; m < 3; ++m) {
        memset(a, 0, sizeof a);
        sinew_ik_chain c = {SINEW_IK_MAX_BONES, a, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
        sinew_ik_def def = sinew_default_ik_def();
        def.method = iterative[m];
        def.max_iterations = iterative[m] == SINEW_IK_RELAXATION ? 100000 : 20000; // relaxation: ~40000
        def.tolerance = 0.0256f;
        sinew_ik_result r;
        assert_int_equal(sinew_ik_solve(&def, &c, sinew_vec2_make(5.0f, 12.0f), &r), SINEW_OK);
        assert_true(r.reached);
    }
}

// ---- the arm in a world -----------------------------------------------------------------------

typedef struct arm_fixture {
    sinew_world *world;
    arm_ids ids;
} arm_fixture;

static arm_fixture *make_arm(sinew_solver_mode mode, const sinew_ik_arm_def *def)
{
    arm_fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->world = make_world(mode);
    make_arm_in(f->world, def, &f->ids);
    return f;
}

static void free_arm(arm_fixture *f)
{
    sinew_world_destroy(f->world);
    free(f);
}

static sinew_vec2 hand_of(const arm_fixture *f) { return position_of(f->world, f->ids.particles[f->ids.arm.bone_count]); }

// Drives a default arm (4 bones of 0.5 m, 1 kg particles) with bone 0 limited to +-lim by its hand
// pin, at the default solver settings: 1 s from the hand to the circle's start, then 3 laps of
// 4 s. Returns the largest |length / rest - 1| of a bone and sets *over to the largest excess of
// bone 0's angle over its limit (radians).
static double drive_around(float max_force, float lim, float cx, float cy, float radius, double *over)
{
    sinew_ik_limit limits[4] = {{-lim, lim}, {-3.0f, 3.0f}, {-3.0f, 3.0f}, {-3.0f, 3.0f}};
    sinew_ik_arm_def d = sinew_default_ik_arm_def();
    d.limits = limits;
    d.particle_flags = 0;
    d.target_max_force = max_force;
    arm_fixture *f = make_arm(SINEW_SOLVER_GAUSS_SEIDEL, &d);
    double strain = 0.0;
    *over = 0.0;
    for (int frame = 0; frame < 780; ++frame) {
        const double t = frame < 60 ? 0.0 : (frame - 60) * dt * 2.0 * PI / 4.0;
        sinew_vec2 target = sinew_vec2_make(cx + radius * (float)cos(t), cy + radius * (float)sin(t));
        if (frame < 60) {
            target = sinew_vec2_lerp(sinew_vec2_make(2.0f, 0.0f), target, (float)frame / 60.0f);
        }
        assert_int_equal(sinew_pin_set_target(f->world, f->ids.arm.target_pin, target), SINEW_OK);
        assert_int_equal(sinew_world_step(f->world, dt), SINEW_OK);
        sinew_vec2 p[5];
        for (int k = 0; k <= 4; ++k) {
            p[k] = position_of(f->world, f->ids.particles[k]);
        }
        for (int k = 0; k < 4; ++k) {
            strain = fmax(strain, fabs(sinew_vec2_distance(p[k], p[k + 1]) / 0.5 - 1.0));
        }
        const sinew_vec2 u = sinew_vec2_sub(p[0], position_of(f->world, f->ids.arm.anchor)), v = sinew_vec2_sub(p[1], p[0]);
        const double angle = atan2(sinew_vec2_cross(u, v), sinew_vec2_dot(u, v));
        *over = fmax(*over, fabs(angle) - lim);
    }
    free_arm(f);
    return strain;
}

// The new user's case: the arm at the defaults, its target driven around circles within reach
// that cross where bone 0's limit cannot follow, so that the arm folds against it. With the hand
// pin unlimited a bone was squashed by 35% and the limit overshot by 0.039 rad; at the defaults
// (SINEW_IK_ARM_TARGET_MAX_FORCE) bones stay within 2% and the limit within 0.01 rad.
static void an_arm_driven_against_its_limit_keeps_its_bones_and_limits(void **state)
{
    (void)state;
    const float circles[][3] = {{0.0f, 0.0f, 1.2f}, {0.0f, 1.0f, 0.8f}, {0.0f, 0.0f, 1.9f}, {0.5f, 0.0f, 0.5f}};
    const float lims[] = {0.3f, 0.5f, 1.0f};
    double worst_unlimited = 0.0;
    for (size_t c = 0; c < sizeof circles / sizeof circles[0]; ++c) {
        for (size_t l = 0; l < sizeof lims / sizeof lims[0]; ++l) {
            double over, over_unlimited;
            const double strain = drive_around(SINEW_IK_ARM_TARGET_MAX_FORCE, lims[l], circles[c][0], circles[c][1],
                                               circles[c][2], &over);
            const double unlimited = drive_around(INFINITY, lims[l], circles[c][0], circles[c][1], circles[c][2],
                                                  &over_unlimited);
            print_message("    circle (%.1f, %.1f) r %.1f, limit %.1f: strain %.2f%%, over %.4f rad "
                          "(unlimited pin: %.1f%%, %.4f rad)\n",
                          (double)circles[c][0], (double)circles[c][1], (double)circles[c][2], (double)lims[l],
                          100.0 * strain, over, 100.0 * unlimited, over_unlimited);
            assert_true(strain < 0.02);
            assert_true(over < 0.01);
            worst_unlimited = fmax(worst_unlimited, unlimited);
        }
    }
    assert_true(worst_unlimited > 0.1); // the drive is a real test: an unlimited pin squashes bones
}

static void arm_counts_match_what_gets_created(void **state)
{
    (void)state;
    sinew_ik_limit lim[6];
    for (int k = 0; k < 6; ++k) {
        lim[k] = (sinew_ik_limit){-1.0f, 1.0f};
    }
    for (int with_limits = 0; with_limits < 2; ++with_limits) {
        for (int bones = 1; bones <= 6; ++bones) {
            sinew_ik_arm_def d = sinew_default_ik_arm_def();
            d.bones = bones;
            d.limits = with_limits ? lim : NULL;
            const sinew_scene_counts c = sinew_ik_arm_counts(&d);
            assert_int_equal(c.particles, bones + 1 + with_limits);
            assert_int_equal(c.distances, bones);
            assert_int_equal(c.angles, with_limits ? bones : 0);
            assert_int_equal(c.pins, 2 + with_limits);
            assert_int_equal(c.areas, 0);
            arm_fixture *f = make_arm(SINEW_SOLVER_GAUSS_SEIDEL, &d);
            assert_int_equal(f->ids.arm.bone_count, bones);
            assert_int_equal(sinew_world_particles(f->world).count, c.particles);
            assert_int_equal(sinew_world_step(f->world, dt), SINEW_OK);
            const sinew_step_stats st = sinew_world_stats(f->world);
            assert_int_equal(st.kinds[SINEW_KIND_DISTANCE].count, c.distances);
            assert_int_equal(st.kinds[SINEW_KIND_ANGLE].count, c.angles);
            assert_int_equal(st.kinds[SINEW_KIND_PIN].count, c.pins);
            assert_true(SINEW_ID_IS_NULL(f->ids.arm.anchor) == !with_limits);
            for (int k = 0; k < bones; ++k) { // bone k joins particles k and k + 1 at its length
                sinew_distance_def dd;
                assert_int_equal(sinew_distance_get(f->world, f->ids.bones[k], &dd), SINEW_OK);
                assert_int_equal(dd.a.index1, f->ids.particles[k].index1);
                assert_int_equal(dd.b.index1, f->ids.particles[k + 1].index1);
                assert_true(dd.rest == 0.5f);
            }
            free_arm(f);
        }
    }
    sinew_ik_arm_def bad = sinew_default_ik_arm_def();
    bad.bones = 0;
    const sinew_scene_counts none = sinew_ik_arm_counts(&bad);
    assert_int_equal(none.particles + none.distances + none.pins, 0);
}

static void bad_arm_defs_are_refused_and_leave_the_world_as_it_was(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    float lengths[3] = {1.0f, 0.0f, 1.0f};
    float angles[3] = {0.0f, 2.0f, 0.0f};
    sinew_ik_limit lim[3] = {{-1, 1}, {-1, 1}, {-1, 1}};
    sinew_ik_limit inverted[3] = {{-1, 1}, {1, -1}, {-1, 1}};
    const uint64_t before = hash_positions(w);
#define REFUSED(expected, edit)                                                                   \
    do {                                                                                         \
        sinew_ik_arm_def d = sinew_default_ik_arm_def();                                         \
        d.bones = 3;                                                                             \
        edit;                                                                                    \
        assert_int_equal(sinew_ik_arm_create(w, &d, NULL), (expected));                          \
        assert_int_equal(sinew_world_particles(w).count, 0);                                     \
    } while (0)
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.bones = 0);
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.bones = SINEW_IK_MAX_BONES + 1);
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.lengths = lengths);
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.bone_length = -1.0f);
    REFUSED(SINEW_ERR_NOT_FINITE, d.base = sinew_vec2_make(NAN, 0.0f));
    REFUSED(SINEW_ERR_NOT_FINITE, (d.target_at_hand = false, d.target = sinew_vec2_make(0.0f, INFINITY)));
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.limits = inverted);
    REFUSED(SINEW_ERR_OUT_OF_RANGE, (d.limits = lim, d.angles = angles)); // start pose outside
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.weight = 0.0f);
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.radius = -0.1f);
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.target_stiffness = 2.0f);
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.limit_stiffness = -0.5f);
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.target_max_force = 0.0f);
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.target_max_force = -1.0f);
    REFUSED(SINEW_ERR_OUT_OF_RANGE, d.target_max_force = NAN);
#undef REFUSED
    assert_int_equal(sinew_ik_arm_create(NULL, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_ik_arm_create(w, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_true(hash_positions(w) == before);
    // Out of memory half way: nothing is left behind.
    counting_allocator ca;
    for (int64_t fail = 0; fail < 40; ++fail) {
        sinew_world_def wd = sinew_default_world_def();
        wd.allocator = counting_allocator_make(&ca);
        wd.particle_capacity = 1;
        wd.constraint_capacity = 1;
        sinew_world *fw;
        assert_int_equal(sinew_world_create(&wd, &fw), SINEW_OK);
        ca.fail_after = (int64_t)ca.allocs + fail;
        sinew_ik_arm_def d = sinew_default_ik_arm_def();
        d.bones = 6;
        d.limits = NULL;
        sinew_status s = sinew_ik_arm_create(fw, &d, NULL);
        assert_true(s == SINEW_OK || s == SINEW_ERR_OUT_OF_MEMORY);
        if (s != SINEW_OK) {
            assert_int_equal(sinew_world_particles(fw).count, 0);
        }
        sinew_world_destroy(fw);
        assert_int_equal(ca.live_bytes, 0);
    }
    sinew_world_destroy(w);
}

// The world's solver reaches a reachable target with the arm: Gauss-Seidel and Jacobi.
static void the_world_solver_reaches_a_target_and_the_root_stays_pinned(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        for (int with_limits = 0; with_limits < 2; ++with_limits) {
            sinew_ik_limit lim[4] = {{-2.0f, 2.0f}, {-1.5f, 1.5f}, {-1.5f, 1.5f}, {-1.5f, 1.5f}};
            sinew_ik_arm_def d = sinew_default_ik_arm_def();
            d.base = sinew_vec2_make(1.0f, 2.0f);
            d.base_angle = 0.3f;
            d.limits = with_limits ? lim : NULL;
            d.particle_flags = 0;
            arm_fixture *f = make_arm((sinew_solver_mode)mode, &d);
            sinew_solver_def sd = sinew_world_get_solver(f->world);
            sd.iterations = mode == SINEW_SOLVER_JACOBI ? 32 : 8;
            assert_int_equal(sinew_world_set_solver(f->world, &sd), SINEW_OK);
            const sinew_vec2 target = sinew_vec2_make(2.2f, 3.0f); // 1.56 m from the base; reach 2 m
            assert_int_equal(sinew_pin_set_target(f->world, f->ids.arm.target_pin, target), SINEW_OK);
            for (int k = 0; k < 240; ++k) {
                assert_int_equal(sinew_world_step(f->world, dt), SINEW_OK);
                const sinew_vec2 root = position_of(f->world, f->ids.particles[0]);
                assert_true(root.x == 1.0f && root.y == 2.0f);
            }
            const double miss = sinew_vec2_distance(hand_of(f), target);
            print_message("    world %s%s: hand %.2e m from the target after 4 s\n", mode ? "jacobi" : "gauss-seidel",
                          with_limits ? ", limits" : "", miss);
            assert_true(miss < 2e-3); // 1e-3 of the reach
            const sinew_step_stats st = sinew_world_stats(f->world);
            assert_true(st.kinds[SINEW_KIND_DISTANCE].max_error < 2e-3f);
            if (with_limits) {
                assert_true(st.kinds[SINEW_KIND_ANGLE].max_error < 1e-2f);
            }
            free_arm(f);
        }
    }
}

static void driving_the_arm_with_fabrik_and_ccd_reaches_and_hands_it_back(void **state)
{
    (void)state;
    sinew_ik_limit lim[5] = {{-2.0f, 2.0f}, {-1.5f, 1.5f}, {-1.5f, 1.5f}, {-1.5f, 1.5f}, {-1.5f, 1.5f}};
    for (int mode = 0; mode < 2; ++mode) {
        sinew_ik_arm_def d = sinew_default_ik_arm_def();
        d.bones = 5;
        d.base = sinew_vec2_make(0.0f, 1.0f);
        d.base_angle = PI_F / 2.0f;
        d.limits = lim;
        arm_fixture *f = make_arm((sinew_solver_mode)mode, &d);
        const sinew_ik_method methods[4] = {SINEW_IK_FABRIK, SINEW_IK_CCD, SINEW_IK_RELAXATION, SINEW_IK_FABRIK};
        for (int phase = 0; phase < 4; ++phase) { // switch the method live
            sinew_ik_def def = sinew_default_ik_def();
            def.method = methods[phase];
            def.max_iterations = 500;
            def.tolerance = 2.5e-3f;
            for (int k = 0; k < 60; ++k) {
                const double ph = 0.05 * (phase * 60 + k);
                const sinew_vec2 t = sinew_vec2_make((float)(1.2 * cos(ph)), (float)(2.5 + 0.8 * sin(ph)));
                assert_int_equal(sinew_pin_set_target(f->world, f->ids.arm.target_pin, t), SINEW_OK);
                sinew_ik_result r;
                assert_int_equal(sinew_ik_arm_drive(f->world, &f->ids.arm, &def, &r), SINEW_OK);
                assert_true(r.reached);
                assert_int_equal(sinew_world_step(f->world, dt), SINEW_OK);
                // Kinematic: the step leaves the driven arm where the solver put it.
                assert_near(sinew_vec2_distance(hand_of(f), t), 0.0, 2.6e-3);
                for (int b = 0; b < 5; ++b) {
                    assert_near(sinew_vec2_distance(position_of(f->world, f->ids.particles[b]),
                                                    position_of(f->world, f->ids.particles[b + 1])),
                                0.5, 1e-5);
                }
                float theta;
                for (int b = 0; b < 5; ++b) { // the world's angle constraints agree: inside
                    assert_int_equal(sinew_angle_get_angle(f->world, f->ids.limits[b], &theta), SINEW_OK);
                    assert_true(theta >= lim[b].min - 1e-5f && theta <= lim[b].max + 1e-5f);
                }
                const sinew_vec2 root = position_of(f->world, f->ids.particles[0]);
                assert_true(root.x == 0.0f && root.y == 1.0f);
            }
        }
        // Back to the world's solver: weights and the hand's pin come back, the arm keeps reaching.
        assert_int_equal(sinew_ik_arm_release(f->world, &f->ids.arm), SINEW_OK);
        float w;
        assert_int_equal(sinew_particle_get_weight(f->world, f->ids.particles[3], &w), SINEW_OK);
        assert_true(w == 1.0f);
        sinew_pin_def pd;
        assert_int_equal(sinew_pin_get(f->world, f->ids.arm.target_pin, &pd), SINEW_OK);
        assert_true(pd.stiffness == 1.0f);
        for (int k = 0; k < 120; ++k) {
            assert_int_equal(sinew_world_step(f->world, dt), SINEW_OK);
        }
        assert_true(sinew_vec2_distance(hand_of(f), pd.target) < 1e-2f);
        assert_int_equal(sinew_ik_arm_release(f->world, &f->ids.arm), SINEW_OK); // harmless twice
        // Errors change nothing.
        const uint64_t before = hash_positions(f->world);
        sinew_ik_def def = sinew_default_ik_def();
        assert_int_equal(sinew_ik_arm_drive(NULL, &f->ids.arm, &def, NULL), SINEW_ERR_NULL_ARGUMENT);
        assert_int_equal(sinew_ik_arm_drive(f->world, NULL, &def, NULL), SINEW_ERR_NULL_ARGUMENT);
        assert_int_equal(sinew_ik_arm_drive(f->world, &f->ids.arm, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
        def.method = SINEW_IK_TWO_BONE; // five bones
        assert_int_equal(sinew_ik_arm_drive(f->world, &f->ids.arm, &def, NULL), SINEW_ERR_OUT_OF_RANGE);
        sinew_ik_arm broken = f->ids.arm;
        broken.bones = NULL;
        assert_int_equal(sinew_ik_arm_drive(f->world, &broken, &def, NULL), SINEW_ERR_NULL_ARGUMENT);
        def.method = SINEW_IK_FABRIK;
        const int bone_counts[] = {0, -1, SINEW_IK_MAX_BONES + 1};
        for (int k = 0; k < 3; ++k) {
            broken = f->ids.arm;
            broken.bone_count = bone_counts[k];
            assert_int_equal(sinew_ik_arm_drive(f->world, &broken, &def, NULL), SINEW_ERR_OUT_OF_RANGE);
            assert_int_equal(sinew_ik_arm_release(f->world, &broken), SINEW_ERR_OUT_OF_RANGE);
            assert_non_null(strstr(sinew_world_last_error(f->world), "SINEW_IK_MAX_BONES"));
        }
        // Values to restore on release that no def would have been given: refused as the def's are.
        const float bad_values[][3] = {{NAN, 1.0f, 0.0f}, {1.0f, INFINITY, 0.0f}, {1.0f, 1.0f, NAN},
                                       {0.0f, 1.0f, 0.0f}, {1.0f, 1.5f, 0.0f}, {1.0f, -0.1f, 0.0f},
                                       {1.0f, 1.0f, -1.0f}};
        for (int k = 0; k < 7; ++k) {
            broken = f->ids.arm;
            broken.weight = bad_values[k][0];
            broken.target_stiffness = bad_values[k][1];
            broken.target_compliance = bad_values[k][2];
            assert_int_equal(sinew_ik_arm_release(f->world, &broken), k < 3 ? SINEW_ERR_NOT_FINITE : SINEW_ERR_OUT_OF_RANGE);
        }
        // A bone destroyed under the arm: driving refuses before it moves anything.
        sinew_distance_def bone;
        assert_int_equal(sinew_distance_get(f->world, f->ids.arm.bones[1], &bone), SINEW_OK);
        assert_int_equal(sinew_distance_destroy(f->world, f->ids.arm.bones[1]), SINEW_OK);
        assert_int_equal(sinew_ik_arm_drive(f->world, &f->ids.arm, &def, NULL), SINEW_ERR_INVALID_ID);
        assert_non_null(strstr(sinew_world_last_error(f->world), "bone"));
        assert_true(hash_positions(f->world) == before);
        assert_int_equal(sinew_particle_get_weight(f->world, f->ids.particles[3], &w), SINEW_OK);
        assert_true(w == 1.0f);
        assert_int_equal(sinew_particle_destroy(f->world, f->ids.particles[2]), SINEW_OK);
        def.method = SINEW_IK_FABRIK;
        assert_int_equal(sinew_ik_arm_drive(f->world, &f->ids.arm, &def, NULL), SINEW_ERR_INVALID_ID);
        assert_int_equal(sinew_ik_arm_release(f->world, &f->ids.arm), SINEW_ERR_INVALID_ID);
        free_arm(f);
    }
}

static void two_bone_drive_and_no_limits(void **state)
{
    (void)state;
    sinew_ik_arm_def d = sinew_default_ik_arm_def();
    d.bones = 2;
    d.bone_length = 1.0f;
    arm_fixture *f = make_arm(SINEW_SOLVER_GAUSS_SEIDEL, &d);
    f->ids.arm.limits = NULL;
    f->ids.arm.limit_values = NULL;
    sinew_ik_def def = sinew_default_ik_def();
    def.method = SINEW_IK_TWO_BONE;
    def.bend = -1;
    assert_int_equal(sinew_pin_set_target(f->world, f->ids.arm.target_pin, sinew_vec2_make(1.0f, 1.0f)), SINEW_OK);
    sinew_ik_result r;
    assert_int_equal(sinew_ik_arm_drive(f->world, &f->ids.arm, &def, &r), SINEW_OK);
    assert_true(r.reached);
    assert_near(sinew_vec2_distance(hand_of(f), sinew_vec2_make(1.0f, 1.0f)), 0.0, 1e-5);
    const sinew_vec2 elbow = position_of(f->world, f->ids.particles[1]);
    assert_near(elbow.x, 0.0, 1e-5); // clockwise bend: the elbow left of the line base-target
    assert_near(elbow.y, 1.0, 1e-5);
    free_arm(f);
}

// x of the ball minus x of the hand, and their sign changes: the swing.
static int count_swings(arm_fixture *f, sinew_particle_id ball, int steps, const sinew_ik_def *drive)
{
    int changes = 0;
    double prev = 0.0;
    for (int k = 0; k < steps; ++k) {
        if (drive != NULL) {
            assert_int_equal(sinew_ik_arm_drive(f->world, &f->ids.arm, drive, NULL), SINEW_OK);
        }
        assert_int_equal(sinew_world_step(f->world, dt), SINEW_OK);
        const double dx = (double)position_of(f->world, ball).x - hand_of(f).x;
        if (getenv("IK_DEBUG") && k % 10 == 0) {
            print_message("      %d: hand %g %g ball %g %g\n", k, (double)hand_of(f).x, (double)hand_of(f).y,
                          (double)position_of(f->world, ball).x, (double)position_of(f->world, ball).y);
        }
        if (k > 0 && ((dx > 0.0) != (prev > 0.0)) && fabs(dx) > 1e-3) {
            changes += 1;
        }
        if (fabs(dx) > 1e-3) {
            prev = dx;
        }
    }
    return changes;
}

static void a_ball_on_a_rope_from_the_hand_swings(void **state)
{
    (void)state;
    for (int driven = 0; driven < 2; ++driven) {
        sinew_ik_arm_def d = sinew_default_ik_arm_def();
        d.particle_flags = 0;
        d.base = sinew_vec2_make(0.0f, 3.0f);
        arm_fixture *f = make_arm(SINEW_SOLVER_GAUSS_SEIDEL, &d);
        // A rope of 6 links hanging from the hand, its last particle a heavy ball.
        const sinew_vec2 hand = hand_of(f);
        sinew_rope_def rd = sinew_default_rope_def();
        rd.start = sinew_vec2_make(hand.x, hand.y - 0.2f);
        rd.end = sinew_vec2_make(hand.x, hand.y - 1.4f);
        rd.links = 6;
        rd.pin_start = false;
        sinew_particle_id rope[7];
        sinew_rope r = {0};
        r.particles = rope;
        assert_int_equal(sinew_rope_create(f->world, &rd, &r), SINEW_OK);
        make_link(f->world, f->ids.particles[f->ids.arm.bone_count], rope[0]);
        assert_int_equal(sinew_particle_set_weight(f->world, rope[6], 0.2f), SINEW_OK);
        sinew_ik_def def = sinew_default_ik_def();
        def.method = SINEW_IK_FABRIK;
        // Yank the target sideways over half a second, then hold it still.
        for (int k = 0; k < 30; ++k) {
            const sinew_vec2 t = sinew_vec2_make(hand.x - 0.6f * (float)k / 30.0f, hand.y + 0.3f * (float)k / 30.0f);
            assert_int_equal(sinew_pin_set_target(f->world, f->ids.arm.target_pin, t), SINEW_OK);
            if (driven) {
                assert_int_equal(sinew_ik_arm_drive(f->world, &f->ids.arm, &def, NULL), SINEW_OK);
            }
            assert_int_equal(sinew_world_step(f->world, dt), SINEW_OK);
        }
        const int swings = count_swings(f, rope[6], 300, driven ? &def : NULL);
        print_message("    %s arm: the ball crossed below the hand %d times in 5 s\n", driven ? "FABRIK-driven" : "world-solved",
                      swings);
        assert_true(swings >= 3);
        free_arm(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_match_the_header),
        cmocka_unit_test(angles_wrap_into_minus_pi_pi),
        cmocka_unit_test(local_and_world_conversions_round_trip),
        cmocka_unit_test(two_bones_match_the_closed_form),
        cmocka_unit_test(two_bones_keep_their_side_and_stretch_toward_far_targets),
        cmocka_unit_test(ten_bones_reach_random_targets_with_every_method),
        cmocka_unit_test(ten_bones_with_moderate_limits_reach_and_the_limits_hold),
        cmocka_unit_test(ten_bones_with_wide_limits_keep_them),
        cmocka_unit_test(four_bones_at_45_degrees_reach_from_a_cold_start),
        cmocka_unit_test(two_bones_with_limits_take_the_side_that_reaches),
        cmocka_unit_test(a_bend_direction_bends_the_joints_one_way),
        cmocka_unit_test(a_start_pose_outside_the_limits_is_clamped_into_them),
        cmocka_unit_test(a_straight_chain_bends_toward_a_target_on_its_own_line),
        cmocka_unit_test(targets_on_the_joints_and_folded_chains_stay_finite),
        cmocka_unit_test(weights_damp_ccd_and_weight_zero_joints_do_not_turn),
        cmocka_unit_test(relaxation_matches_juckett_step_by_step),
        cmocka_unit_test(the_iteration_callback_sees_every_iteration),
        cmocka_unit_test(unreachable_targets_point_the_chain_straight_and_stay_put),
        cmocka_unit_test(a_warm_start_on_its_own_answer_takes_no_iteration),
        cmocka_unit_test(every_bad_input_is_refused_and_changes_nothing),
        cmocka_unit_test(the_largest_chain_solves),
        cmocka_unit_test(arm_counts_match_what_gets_created),
        cmocka_unit_test(bad_arm_defs_are_refused_and_leave_the_world_as_it_was),
        cmocka_unit_test(the_world_solver_reaches_a_target_and_the_root_stays_pinned),
        cmocka_unit_test(an_arm_driven_against_its_limit_keeps_its_bones_and_limits),
        cmocka_unit_test(driving_the_arm_with_fabrik_and_ccd_reaches_and_hands_it_back),
        cmocka_unit_test(two_bone_drive_and_no_limits),
        cmocka_unit_test(a_ball_on_a_rope_from_the_hand_swings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
