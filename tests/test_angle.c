// Angle constraints by their properties: random joints end inside their ranges (ranges through
// +-pi and zero-width ones included) in both solver modes, nothing moves inside the range,
// immovable particles stay put, the angle is the header's signed turn, one projection keeps
// momentum, bad input is refused and creates nothing, limits can change, a destroyed particle
// takes its constraints with it, and a rope with bending stiffness sags less.
#include <math.h>
#include <string.h>

#include "support.h"

static const float dt = 1.0f / 60.0f;
static const double PI = 3.14159265358979323846;

static const char *const mode_names[] = {"Gauss-Seidel", "Jacobi"};

// A zero-gravity world with the given solver settings.
static sinew_world *angle_world(sinew_solver_mode mode, int substeps, int iterations)
{
    sinew_world_def def = sinew_default_world_def();
    def.gravity = sinew_vec2_make(0, 0);
    def.solver.mode = mode;
    def.solver.substeps = substeps;
    def.solver.iterations = iterations;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    return w;
}

static sinew_angle_id make_angle(sinew_world *w, sinew_particle_id a, sinew_particle_id b, sinew_particle_id c,
                                 float min, float max)
{
    sinew_angle_def d = sinew_default_angle_def();
    d.a = a;
    d.b = b;
    d.c = c;
    d.min = min;
    d.max = max;
    sinew_angle_id id;
    assert_int_equal(sinew_angle_create(w, &d, &id), SINEW_OK);
    return id;
}

static float angle_of(const sinew_world *w, sinew_angle_id id)
{
    float t = 99.0f;
    assert_int_equal(sinew_angle_get_angle(w, id, &t), SINEW_OK);
    return t;
}

static int angle_count(sinew_world *w)
{
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    return sinew_world_stats(w).kinds[SINEW_KIND_ANGLE].count;
}

// d wrapped into (-pi, pi].
static double wrap(double d)
{
    d = fmod(d + PI, 2.0 * PI);
    d = d <= 0.0 ? d + 2.0 * PI : d;
    return d - PI;
}

// How far theta is from the allowed range, in radians (0 inside), by the header: [min, max], or
// for min > max the range through pi (theta >= min or theta <= max).
static double outside_by(double theta, double min, double max)
{
    const bool inside = min <= max ? theta >= min && theta <= max : theta >= min || theta <= max;
    return inside ? 0.0 : fmin(fabs(wrap(theta - min)), fabs(wrap(theta - max)));
}

// The header's angle at b from positions, in double: the signed turn from (b - a) to (c - b).
static double turn_of(sinew_vec2 a, sinew_vec2 b, sinew_vec2 c)
{
    const double ux = (double)b.x - a.x, uy = (double)b.y - a.y, vx = (double)c.x - b.x, vy = (double)c.y - b.y;
    return atan2(ux * vy - uy * vx, ux * vx + uy * vy);
}

// A random range: ordinary, through +-pi (min > max), zero width anywhere, or held straight.
static void random_range(uint64_t *rng, float *min, float *max)
{
    const double lim = (double)(float)PI; // the float nearest pi is what the engine accepts
    switch (next_random(rng) % 4) {
    case 0: {
        double a = uniform(rng, -lim, lim), b = uniform(rng, -lim, lim);
        *min = (float)fmin(a, b);
        *max = (float)fmax(a, b);
        break;
    }
    case 1:
        *min = (float)uniform(rng, 0.3, lim);
        *max = (float)uniform(rng, -lim, -0.3);
        break;
    case 2:
        *min = *max = (float)uniform(rng, -3.0, 3.0);
        break;
    default:
        *min = *max = 0.0f;
        break;
    }
}

// A random joint: b in [-2, 2]^2, arms 0.3 .. 2 m, any turn.
static void random_joint(uint64_t *rng, double p[3][2])
{
    const double bx = uniform(rng, -2, 2), by = uniform(rng, -2, 2);
    const double phi = uniform(rng, -PI, PI), turn = uniform(rng, -PI, PI);
    const double lu = uniform(rng, 0.3, 2.0), lv = uniform(rng, 0.3, 2.0);
    p[0][0] = bx - lu * cos(phi);
    p[0][1] = by - lu * sin(phi);
    p[1][0] = bx;
    p[1][1] = by;
    p[2][0] = bx + lv * cos(phi + turn);
    p[2][1] = by + lv * sin(phi + turn);
}

static void random_joints_end_inside_their_range(void **state)
{
    (void)state;
    // 500 random joints per mode (random arms, weights, ranges of every kind), one step of the
    // default 4 sub-steps x 8 iterations. The angle must end inside its range. Tolerance 1e-3
    // rad, used for "inside" throughout this file: each projection removes the linearised error,
    // which for one constraint converges in a few iterations; measured worst 3.4e-7 rad
    // (Gauss-Seidel) and 2.4e-7 rad (Jacobi), float rounding of the angle. The get_angle check
    // (1e-5) is atan2f's rounding of arms of 0.3 m or more: measured 1.9e-7.
    for (int mode = 0; mode < 2; ++mode) {
        uint64_t rng = 2024u + (uint64_t)mode;
        double worst = 0.0, worst_start = 0.0, def_err = 0.0;
        for (int trial = 0; trial < 500; ++trial) {
            sinew_world *w = angle_world((sinew_solver_mode)mode, 4, 8);
            double p[3][2];
            random_joint(&rng, p);
            sinew_particle_id ids[3];
            for (int k = 0; k < 3; ++k) {
                ids[k] = make_free_particle(w, p[k][0], p[k][1], uniform(&rng, 0.3, 2.0));
            }
            float min, max;
            random_range(&rng, &min, &max);
            sinew_angle_id a = make_angle(w, ids[0], ids[1], ids[2], min, max);
            worst_start = fmax(worst_start, outside_by(angle_of(w, a), min, max));
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            const float theta = angle_of(w, a);
            const double off = outside_by(theta, min, max);
            // get_angle is the header's turn, to float rounding of atan2 (arms >= 0.3 m here).
            def_err = fmax(def_err, fabs(wrap(theta - turn_of(position_of(w, ids[0]), position_of(w, ids[1]),
                                                                 position_of(w, ids[2])))));
            if (!(off <= 1e-3)) {
                fail_msg("%s trial %d: range [%g, %g], angle %g is %g rad outside", mode_names[mode], trial, (double)min,
                         (double)max, (double)theta, off);
            }
            worst = fmax(worst, off);
            sinew_world_destroy(w);
        }
        print_message("%s: 500 random joints, up to %.3g rad outside at the start, %.3g after one step; "
                      "get_angle within %.3g of the turn in double\n",
                      mode_names[mode], worst_start, worst, def_err);
        assert_true(worst_start > 1.0); // the trials did start far outside
        assert_true(def_err < 1e-5);
    }
}

static void bending_is_held_straight_by_a_zero_width_range(void **state)
{
    (void)state;
    // min == max == 0: the three particles end in line, b between a and c. Several bends,
    // small to almost folded back (not exactly folded: that has no preferred side).
    const double bends[] = {0.1, 1.0, 2.0, 3.0, -2.5};
    for (int mode = 0; mode < 2; ++mode) {
        for (size_t k = 0; k < sizeof bends / sizeof bends[0]; ++k) {
            sinew_world *w = angle_world((sinew_solver_mode)mode, 4, 8);
            sinew_particle_id a = make_free_particle(w, -1, 0, 1), b = make_free_particle(w, 0, 0, 1),
                              c = make_free_particle(w, cos(bends[k]), sin(bends[k]), 1);
            sinew_angle_id id = make_angle(w, a, b, c, 0.0f, 0.0f);
            for (int s = 0; s < 10; ++s) {
                assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            }
            const sinew_vec2 pa = position_of(w, a), pb = position_of(w, b), pc = position_of(w, c);
            // In line: the turn is 0 (1e-3 rad as above), and b lies between a and c.
            assert_true(fabs(turn_of(pa, pb, pc)) < 1e-3);
            assert_true(fabs(angle_of(w, id)) < 1e-3);
            assert_true(sinew_vec2_dot(sinew_vec2_sub(pb, pa), sinew_vec2_sub(pc, pb)) > 0.0f);
            sinew_world_destroy(w);
        }
    }
}

static void inside_the_range_nothing_moves(void **state)
{
    (void)state;
    // At rest inside the range: not a bit moves. Moving inside the range: the particles follow
    // exactly the paths of a twin world without the constraint.
    uint64_t rng = 77;
    for (int mode = 0; mode < 2; ++mode) {
        for (int trial = 0; trial < 200; ++trial) {
            double p[3][2];
            random_joint(&rng, p);
            sinew_world *w = angle_world((sinew_solver_mode)mode, 4, 8);
            sinew_particle_id ids[3];
            for (int k = 0; k < 3; ++k) {
                ids[k] = make_free_particle(w, p[k][0], p[k][1], 1.0);
            }
            const double theta = turn_of(position_of(w, ids[0]), position_of(w, ids[1]), position_of(w, ids[2]));
            // A range around the current angle: ordinary, or through pi when it is near +-pi.
            float min = (float)fmax(theta - 0.2, -PI), max = (float)fmin(theta + 0.2, PI);
            if (fabs(theta) > PI - 0.2) {
                min = (float)(PI - 0.25);
                max = (float)(-PI + 0.25);
            }
            sinew_angle_id a = make_angle(w, ids[0], ids[1], ids[2], min, max);
            assert_true(outside_by(angle_of(w, a), min, max) == 0.0);
            const uint64_t h = hash_positions(w);
            for (int s = 0; s < 5; ++s) {
                assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            }
            assert_true(hash_positions(w) == h);
            sinew_world_destroy(w);
        }
    }
    // Moving: a slow turn of the end particle, which stays inside a wide range for the 30 steps.
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w[2];
        sinew_particle_id ids[2][3];
        for (int k = 0; k < 2; ++k) {
            w[k] = angle_world((sinew_solver_mode)mode, 4, 8);
            ids[k][0] = make_free_particle(w[k], -1, 0.2, 1);
            ids[k][1] = make_free_particle(w[k], 0, 0, 0.5);
            ids[k][2] = make_free_particle(w[k], 1, 0.3, 2);
            assert_int_equal(sinew_particle_set_velocity(w[k], ids[k][2], sinew_vec2_make(-0.2f, 0.5f)), SINEW_OK);
            assert_int_equal(sinew_particle_set_velocity(w[k], ids[k][0], sinew_vec2_make(0.1f, -0.1f)), SINEW_OK);
        }
        sinew_angle_id a = make_angle(w[0], ids[0][0], ids[0][1], ids[0][2], -2.5f, 2.5f);
        for (int s = 0; s < 30; ++s) {
            assert_int_equal(sinew_world_step(w[0], dt), SINEW_OK);
            assert_int_equal(sinew_world_step(w[1], dt), SINEW_OK);
            assert_true(fabsf(angle_of(w[0], a)) < 2.0f); // well inside all the way
            assert_true(hash_positions(w[0]) == hash_positions(w[1]));
        }
        sinew_world_destroy(w[0]);
        sinew_world_destroy(w[1]);
    }
}

static void immovable_particles_never_move(void **state)
{
    (void)state;
    // Weight 0 on the end a, the joint b, the end c, both ends, or all three: those particles
    // keep their positions to the bit, nothing becomes NaN, and (with an end free to move) the
    // angle ends inside its range (1e-3 rad as above, after 10 steps). With both ends immovable
    // only the joint can move, and the solve is not bounded then: convergence is left out here,
    // see a_joint_between_two_immovable_ends_stays_near.
    const int fixed_sets[][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}};
    uint64_t rng = 99;
    for (int mode = 0; mode < 2; ++mode) {
        for (size_t f = 0; f < sizeof fixed_sets / sizeof fixed_sets[0]; ++f) {
            const bool end_free = !fixed_sets[f][0] || !fixed_sets[f][2];
            double worst = 0.0;
            for (int trial = 0; trial < 60; ++trial) {
                double p[3][2];
                random_joint(&rng, p);
                sinew_world *w = angle_world((sinew_solver_mode)mode, 4, 8);
                sinew_particle_id ids[3];
                for (int k = 0; k < 3; ++k) {
                    ids[k] = make_free_particle(w, p[k][0], p[k][1], fixed_sets[f][k] ? 0.0 : uniform(&rng, 0.5, 2.0));
                }
                float min, max;
                random_range(&rng, &min, &max);
                sinew_angle_id a = make_angle(w, ids[0], ids[1], ids[2], min, max);
                sinew_vec2 start[3];
                for (int k = 0; k < 3; ++k) {
                    start[k] = position_of(w, ids[k]);
                }
                for (int s = 0; s < 10; ++s) {
                    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
                }
                for (int k = 0; k < 3; ++k) {
                    const sinew_vec2 now = position_of(w, ids[k]);
                    assert_true(isfinite(now.x) && isfinite(now.y));
                    if (fixed_sets[f][k]) {
                        assert_true(now.x == start[k].x && now.y == start[k].y);
                    }
                }
                if (end_free) {
                    worst = fmax(worst, outside_by(angle_of(w, a), min, max));
                }
                sinew_world_destroy(w);
            }
            if (end_free) {
                print_message("%s, immovable {%d %d %d}: up to %.3g rad outside after 10 steps\n", mode_names[mode],
                              fixed_sets[f][0], fixed_sets[f][1], fixed_sets[f][2], worst);
            }
            assert_true(worst <= 1e-3);
        }
    }
}

static void a_joint_between_two_immovable_ends_stays_near(void **state)
{
    (void)state;
    // ENGINE BUG (kept failing on purpose). Ends a = (0, 0) and c = (2, 0) immovable, the joint b
    // (weight 1) free, range [0, 0] (held straight), zero gravity, default solver, one step.
    // Only b can move, and angle_step (angle.c) takes the full linearised step dlambda = -C /
    // (w_b |grad_b|^2) for an error C up to pi, with no bound. grad_b = -(perp(u) / |u|^2 +
    // perp(v) / |v|^2) is small when b is off to the side (the two terms nearly cancel), and the
    // angle tends to +-pi wherever b lands far away, so the iterations run away. Measured:
    //   b = (1, 1)   (angle -1.57): converges, b = (1, -4e-8).
    //   b = (1, 1.5) (angle -1.97): b = (1, -9.5e13) after one step, angle pi.
    //   b = (3, 1)   (angle -2.68): b = (-2.0e13, -9.2e13).
    //   b = (1, 2)   (angle -2.21): every sub-step overflows and is undone by the NaN guard:
    //                               b never moves, stats.reset_particles = 12 per step (b and,
    //                               through 0 x inf in angle_apply, the two immovable ends).
    // With an end free to move the ends' gradients (1 / arm length) dominate and the same
    // joints converge (immovable_particles_never_move). A bounded step (clamp the angle error
    // used per projection, or the joint's displacement to the arm lengths) would fix it.
    const double starts[][2] = {{1.0, 1.0}, {1.0, 1.5}, {3.0, 1.0}, {1.0, 2.0}};
    bool all_good = true;
    for (size_t k = 0; k < sizeof starts / sizeof starts[0]; ++k) {
        sinew_world *w = angle_world(SINEW_SOLVER_GAUSS_SEIDEL, 4, 8);
        sinew_particle_id a = make_free_particle(w, 0, 0, 0), b = make_free_particle(w, starts[k][0], starts[k][1], 1),
                          c = make_free_particle(w, 2, 0, 0);
        sinew_angle_id id = make_angle(w, a, b, c, 0.0f, 0.0f);
        const float before = angle_of(w, id);
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        const sinew_vec2 pb = position_of(w, b);
        const int reset = sinew_world_stats(w).reset_particles;
        const float after = angle_of(w, id);
        print_message("joint from (%g, %g), angle %.3f: after one step at (%.3g, %.3g), angle %.3f, %d resets\n",
                      starts[k][0], starts[k][1], (double)before, (double)pb.x, (double)pb.y, (double)after, reset);
        // Straight means b on the segment from a to c; anywhere within 10 m of it would do here,
        // with no sub-step reset, and closer to straight than before.
        all_good = all_good && fabsf(pb.x) < 10.0f && fabsf(pb.y) < 10.0f && reset == 0 && fabsf(after) < fabsf(before);
        sinew_world_destroy(w);
    }
    assert_true(all_good);
}

static void the_angle_is_the_signed_turn_from_ab_to_bc(void **state)
{
    (void)state;
    // a = (0, 0), b = (1, 0): the first arm points along +x. c sets the turn.
    sinew_world *w = angle_world(SINEW_SOLVER_GAUSS_SEIDEL, 4, 8);
    sinew_particle_id a = make_free_particle(w, 0, 0, 1), b = make_free_particle(w, 1, 0, 1);
    const struct {
        double cx, cy, turn;
    } cases[] = {
        {2, 0, 0.0},           // straight on
        {1, 1, PI / 2},        // left: counter-clockwise, positive
        {1, -1, -PI / 2},      // right: negative
        {2, 1, PI / 4},        // half left
        {0, 1, 3 * PI / 4},    // sharp left
        {0, -1, -3 * PI / 4},  // sharp right
        {0, 1e-3, PI - 1e-3},  // nearly folded back, from the left
        {0, -1e-3, -PI + 1e-3} // ... from the right
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        sinew_particle_id c = make_free_particle(w, cases[k].cx, cases[k].cy, 1);
        sinew_angle_id id = make_angle(w, a, b, c, -3.0f, 3.0f);
        // atan2f of exact or near-exact arguments: within a few float ulps of the true turn.
        assert_near(angle_of(w, id), cases[k].turn, 1e-6);
        assert_int_equal(sinew_particle_destroy(w, c), SINEW_OK); // takes the constraint along
    }
    // The order of a and c matters: the reversed joint turns the other way.
    sinew_particle_id c = make_free_particle(w, 1, 1, 1);
    sinew_angle_id fwd = make_angle(w, a, b, c, -3.0f, 3.0f), back = make_angle(w, c, b, a, -3.0f, 3.0f);
    assert_near(angle_of(w, fwd), PI / 2, 1e-6);
    assert_near(angle_of(w, back), -PI / 2, 1e-6);
    sinew_world_destroy(w);

    // Counter-clockwise positive, for the solver too: a straight joint limited to [0.5, 1.0]
    // turns left (c ends above the line through a and b, which runs along +x).
    for (int mode = 0; mode < 2; ++mode) {
        w = angle_world((sinew_solver_mode)mode, 4, 8);
        a = make_free_particle(w, 0, 0, 1);
        b = make_free_particle(w, 1, 0, 1);
        c = make_free_particle(w, 2, 0, 1);
        sinew_angle_id id = make_angle(w, a, b, c, 0.5f, 1.0f);
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        const sinew_vec2 pa = position_of(w, a), pb = position_of(w, b), pc = position_of(w, c);
        assert_true(sinew_vec2_cross(sinew_vec2_sub(pb, pa), sinew_vec2_sub(pc, pb)) > 0.0f);
        assert_true(angle_of(w, id) >= 0.5f - 1e-3f && angle_of(w, id) <= 1.0f + 1e-3f);
        sinew_world_destroy(w);
    }
}

static void a_folded_joint_reports_plus_pi(void **state)
{
    (void)state;
    // ENGINE BUG (kept failing on purpose). The header says get_angle is in (-pi, pi]. A joint
    // folded exactly back, a = (1, 0), b = (0, 0), c = (1, 0): u = b - a = (-1, 0), v = c - b =
    // (1, 0); angle.c's joint_angle computes cross = ux vy - uy vx = (-1)(+0) - (0)(1) = -0 - 0 =
    // -0, and atan2f(-0, -1) = -pi. The mirror case a = (-1, 0), c = (-1, 0) gives +0 and +pi.
    // (No effect on the solve: wrap() treats -pi and pi alike; only the reported value breaks
    // the documented range.) A fix: add 0.0f to the cross product (turns -0 into +0), or map
    // -pi to pi.
    sinew_world *w = angle_world(SINEW_SOLVER_GAUSS_SEIDEL, 4, 8);
    sinew_particle_id a = make_free_particle(w, 1, 0, 1), b = make_free_particle(w, 0, 0, 1), c = make_free_particle(w, 1, 0, 1);
    sinew_angle_id id = make_angle(w, a, b, c, -1.0f, 1.0f);
    const float theta = angle_of(w, id);
    print_message("folded joint: get_angle %.9g\n", (double)theta);
    sinew_world_destroy(w); // before asserting: a failure must not leak the world
    assert_true(theta > -(float)PI && theta <= (float)PI);
}

static void one_projection_keeps_momentum(void **state)
{
    (void)state;
    // One projection (1 sub-step, 1 iteration, particles at rest, zero gravity) of one angle
    // constraint, random joints and weights (all > 0): sum of displacement / weight is zero in
    // real arithmetic (the gradients sum to zero; the joint's is minus the ends' sum). In float,
    // per particle and axis: half an ulp of |x| when the move is added, and the move within 3
    // roundings of 2^-24 (step times weight, times the gradient, and the joint's gradient sum).
    uint64_t rng = 4242;
    for (int mode = 0; mode < 2; ++mode) {
        double worst = 0.0;
        int moved = 0;
        for (int trial = 0; trial < 500; ++trial) {
            sinew_world *w = angle_world((sinew_solver_mode)mode, 1, 1);
            double p[3][2], wt[3];
            random_joint(&rng, p);
            sinew_particle_id ids[3];
            for (int k = 0; k < 3; ++k) {
                wt[k] = (float)uniform(&rng, 0.25, 2.0);
                ids[k] = make_free_particle(w, p[k][0], p[k][1], wt[k]);
            }
            float min, max;
            random_range(&rng, &min, &max);
            make_angle(w, ids[0], ids[1], ids[2], min, max);
            sinew_vec2 before[3];
            for (int k = 0; k < 3; ++k) {
                before[k] = position_of(w, ids[k]);
            }
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            double P[2] = {0, 0}, bound[2] = {0, 0};
            for (int k = 0; k < 3; ++k) {
                const sinew_vec2 after = position_of(w, ids[k]);
                const double d[2] = {(double)after.x - before[k].x, (double)after.y - before[k].y};
                const double x[2] = {fmax(fabs(after.x), fabs(before[k].x)), fmax(fabs(after.y), fabs(before[k].y))};
                moved += d[0] != 0.0 || d[1] != 0.0;
                for (int c = 0; c < 2; ++c) {
                    P[c] += d[c] / wt[k];
                    bound[c] += (ldexp(1.0, ilogb(fmax(x[c], 1e-30)) - 24) + 3.0 * ldexp(fabs(d[c]), -24)) / wt[k];
                }
            }
            for (int c = 0; c < 2; ++c) {
                worst = fmax(worst, fabs(P[c]) / bound[c]);
                if (!(fabs(P[c]) <= bound[c])) {
                    fail_msg("%s trial %d: momentum change %.3g, bound %.3g", mode_names[mode], trial, P[c], bound[c]);
                }
            }
            sinew_world_destroy(w);
        }
        print_message("%s: one projection: momentum change up to %.3g of its rounding bound (%d particles moved)\n",
                      mode_names[mode], worst, moved);
        assert_true(moved > 500); // most joints started outside their range and were corrected
    }
}

static void chains_of_joints_converge_in_both_modes(void **state)
{
    (void)state;
    // Chains of 6 particles joined by distance links, with 4 joints sharing particles, each with
    // its own random range (random weights; one chain in four with an immovable first
    // particle), zero gravity, 4 x 32, 120 steps. Links and joints pull against each other, so
    // this converges over steps rather than in one; in Jacobi each particle's corrections are
    // averaged (omega / n), which converges slower. Measured worst: 2.2e-4 rad Gauss-Seidel and
    // 1.1e-3 rad Jacobi (printed below; 5.7e-3 in Jacobi over twice the chains after 90 steps
    // while this was tuned). Bound: 0.01 rad (0.6 degrees), and no particle more than 10 m out
    // (the chains are at most 6 m long, start at the origin, and measured up to 4.3 m out).
    uint64_t rng = 31337;
    for (int mode = 0; mode < 2; ++mode) {
        double worst = 0.0, farthest = 0.0;
        for (int trial = 0; trial < 30; ++trial) {
            sinew_world *w = angle_world((sinew_solver_mode)mode, 4, 32);
            sinew_particle_id ids[6];
            double x = 0.0, y = 0.0, heading = uniform(&rng, -PI, PI);
            for (int k = 0; k < 6; ++k) {
                const bool fixed = k == 0 && trial % 4 == 0;
                ids[k] = make_free_particle(w, x, y, fixed ? 0.0 : uniform(&rng, 0.5, 2.0));
                heading += uniform(&rng, -2.5, 2.5);
                const double len = uniform(&rng, 0.4, 1.2);
                x += len * cos(heading);
                y += len * sin(heading);
            }
            for (int k = 0; k < 5; ++k) {
                make_link(w, ids[k], ids[k + 1]);
            }
            sinew_angle_id joints[4];
            float mins[4], maxs[4];
            for (int j = 0; j < 4; ++j) {
                random_range(&rng, &mins[j], &maxs[j]);
                joints[j] = make_angle(w, ids[j], ids[j + 1], ids[j + 2], mins[j], maxs[j]);
            }
            for (int s = 0; s < 120; ++s) {
                assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            }
            for (int j = 0; j < 4; ++j) {
                worst = fmax(worst, outside_by(angle_of(w, joints[j]), mins[j], maxs[j]));
            }
            for (int k = 0; k < 6; ++k) {
                farthest = fmax(farthest, sinew_vec2_length(position_of(w, ids[k])));
            }
            assert_int_equal(sinew_world_stats(w).reset_particles, 0);
            sinew_world_destroy(w);
        }
        print_message("%s: 30 linked chains of 4 joints: up to %.3g rad outside after 120 steps, farthest particle "
                      "%.3g m\n", mode_names[mode], worst, farthest);
        assert_true(worst <= 0.01);
        assert_true(farthest < 10.0);
    }
}

typedef struct bad_angle_case {
    const char *what;
    int a, b, c;     // indices into the world's particles; -1 = destroyed, -2 = null id
    float min, max, stiffness, compliance;
    sinew_status expected;
} bad_angle_case;

static void bad_angle_defs_are_refused_and_create_nothing(void **state)
{
    (void)state;
    const float pi = (float)PI;
    const float above = nextafterf(pi, 4.0f);
    const bad_angle_case cases[] = {
        {"a == b", 0, 0, 2, 0, 0, 1, 0, SINEW_ERR_SAME_PARTICLE},
        {"b == c", 0, 1, 1, 0, 0, 1, 0, SINEW_ERR_SAME_PARTICLE},
        {"a == c", 0, 1, 0, 0, 0, 1, 0, SINEW_ERR_SAME_PARTICLE},
        {"stale a", -1, 1, 2, 0, 0, 1, 0, SINEW_ERR_INVALID_ID},
        {"null c", 0, 1, -2, 0, 0, 1, 0, SINEW_ERR_INVALID_ID},
        {"min > pi", 0, 1, 2, above, above, 1, 0, SINEW_ERR_OUT_OF_RANGE},
        {"min < -pi", 0, 1, 2, -above, 0, 1, 0, SINEW_ERR_OUT_OF_RANGE},
        {"max 4", 0, 1, 2, 0, 4.0f, 1, 0, SINEW_ERR_OUT_OF_RANGE},
        {"max -7", 0, 1, 2, 0, -7.0f, 1, 0, SINEW_ERR_OUT_OF_RANGE},
        {"min NaN", 0, 1, 2, NAN, 0, 1, 0, SINEW_ERR_NOT_FINITE},
        {"max NaN", 0, 1, 2, 0, NAN, 1, 0, SINEW_ERR_NOT_FINITE},
        {"max inf", 0, 1, 2, 0, INFINITY, 1, 0, SINEW_ERR_NOT_FINITE},
        {"stiffness 1.5", 0, 1, 2, 0, 0, 1.5f, 0, SINEW_ERR_OUT_OF_RANGE},
        {"stiffness -0.5", 0, 1, 2, 0, 0, -0.5f, 0, SINEW_ERR_OUT_OF_RANGE},
        {"stiffness NaN", 0, 1, 2, 0, 0, NAN, 0, SINEW_ERR_NOT_FINITE},
        {"compliance -1", 0, 1, 2, 0, 0, 1, -1.0f, SINEW_ERR_OUT_OF_RANGE},
        {"compliance NaN", 0, 1, 2, 0, 0, 1, NAN, SINEW_ERR_NOT_FINITE},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        sinew_world *w = angle_world(SINEW_SOLVER_GAUSS_SEIDEL, 4, 8);
        sinew_particle_id p[3] = {make_free_particle(w, 0, 0, 1), make_free_particle(w, 1, 0, 1), make_free_particle(w, 1, 1, 1)};
        sinew_particle_id dead = make_free_particle(w, 3, 3, 1);
        assert_int_equal(sinew_particle_destroy(w, dead), SINEW_OK);
        const int which[3] = {cases[k].a, cases[k].b, cases[k].c};
        sinew_particle_id pick[3];
        for (int m = 0; m < 3; ++m) {
            pick[m] = which[m] >= 0 ? p[which[m]] : which[m] == -1 ? dead : (sinew_particle_id)SINEW_NULL_ID;
        }
        sinew_angle_def d = sinew_default_angle_def();
        d.a = pick[0];
        d.b = pick[1];
        d.c = pick[2];
        d.min = cases[k].min;
        d.max = cases[k].max;
        d.stiffness = cases[k].stiffness;
        d.compliance = cases[k].compliance;
        const uint64_t h = hash_positions(w);
        sinew_angle_id out = {77u, 77u};
        sinew_status s = sinew_angle_create(w, &d, &out);
        assert_status(s, cases[k].expected, "%s", cases[k].what);
        assert_true(out.index1 == 77u && out.generation == 77u);
        assert_true(strlen(sinew_world_last_error(w)) > 0);
        assert_true(hash_positions(w) == h);
        assert_int_equal(angle_count(w), 0);
        sinew_world_destroy(w);
    }

    sinew_world *w = angle_world(SINEW_SOLVER_GAUSS_SEIDEL, 4, 8);
    sinew_particle_id p[3] = {make_free_particle(w, 0, 0, 1), make_free_particle(w, 1, 0, 1), make_free_particle(w, 1, 1, 1)};
    sinew_angle_def d = sinew_default_angle_def();
    // The header's defaults: held straight, stiffness 1, compliance 0.
    assert_true(d.min == 0.0f && d.max == 0.0f && d.stiffness == 1.0f && d.compliance == 0.0f);
    d.a = p[0];
    d.b = p[1];
    d.c = p[2];
    sinew_angle_id out;
    assert_int_equal(sinew_angle_create(NULL, &d, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_angle_create(w, NULL, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(angle_count(w), 0);
    // The limits themselves are allowed: +-pi as a float, and min > max.
    d.min = (float)PI;
    d.max = -(float)PI;
    assert_int_equal(sinew_angle_create(w, &d, &out), SINEW_OK);
    assert_true(sinew_angle_is_valid(w, out));
    assert_int_equal(angle_count(w), 1);
    sinew_world_destroy(w);

    // max_constraints and out of memory: refused, nothing made.
    sinew_world_def def = sinew_default_world_def();
    def.max_constraints = 1;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    p[0] = make_free_particle(w, 0, 0, 1);
    p[1] = make_free_particle(w, 1, 0, 1);
    p[2] = make_free_particle(w, 1, 1, 1);
    make_angle(w, p[0], p[1], p[2], -1.0f, 1.0f);
    out = (sinew_angle_id){77u, 77u};
    d.a = p[0];
    d.b = p[1];
    d.c = p[2];
    assert_int_equal(sinew_angle_create(w, &d, &out), SINEW_ERR_CAPACITY);
    assert_true(out.index1 == 77u);
    assert_int_equal(angle_count(w), 1);
    sinew_world_destroy(w);
    for (int64_t budget = 0;; ++budget) {
        counting_allocator c;
        def = sinew_default_world_def();
        def.allocator = counting_allocator_make(&c);
        def.constraint_capacity = 0;
        assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
        p[0] = make_free_particle(w, 0, 0, 1);
        p[1] = make_free_particle(w, 1, 0, 1);
        p[2] = make_free_particle(w, 1, 1, 1);
        d.a = p[0];
        d.b = p[1];
        d.c = p[2];
        const uint64_t h = hash_positions(w);
        c.fail_after = (int64_t)c.allocs + budget;
        out = (sinew_angle_id){77u, 77u};
        sinew_status s = sinew_angle_create(w, &d, &out);
        c.fail_after = -1;
        if (s == SINEW_OK) {
            assert_true(budget >= 1); // the first one needs the store at least
            sinew_world_destroy(w);
            assert_true(c.live_bytes == 0u);
            break;
        }
        assert_int_equal(s, SINEW_ERR_OUT_OF_MEMORY);
        assert_true(out.index1 == 77u);
        assert_true(hash_positions(w) == h);
        assert_true(sinew_world_byte_count(w) == c.live_bytes);
        assert_int_equal(angle_count(w), 0);
        assert_int_equal(sinew_angle_create(w, &d, &out), SINEW_OK); // and it works once memory is back
        assert_int_equal(angle_count(w), 1);
        sinew_world_destroy(w);
        assert_true(c.live_bytes == 0u);
        assert_true(budget < 16);
    }
}

static void set_limits_changes_the_range_and_refuses_bad_limits(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w = angle_world((sinew_solver_mode)mode, 4, 8);
        sinew_particle_id a = make_free_particle(w, 0, 0, 1), b = make_free_particle(w, 1, 0, 1), c = make_free_particle(w, 2, 0.5, 1);
        sinew_angle_id id = make_angle(w, a, b, c, -1.0f, 1.0f); // the turn, ~0.46, is inside
        const sinew_angle_id null_id = SINEW_NULL_ID, forged = {id.index1, id.generation + 1u};
        assert_int_equal(sinew_angle_set_limits(NULL, id, 0, 0), SINEW_ERR_NULL_ARGUMENT);
        assert_int_equal(sinew_angle_set_limits(w, null_id, 0, 0), SINEW_ERR_INVALID_ID);
        assert_int_equal(sinew_angle_set_limits(w, forged, 0, 0), SINEW_ERR_INVALID_ID);
        assert_int_equal(sinew_angle_set_limits(w, id, NAN, 0), SINEW_ERR_NOT_FINITE);
        assert_int_equal(sinew_angle_set_limits(w, id, 0, -INFINITY), SINEW_ERR_NOT_FINITE);
        assert_int_equal(sinew_angle_set_limits(w, id, 3.5f, 0), SINEW_ERR_OUT_OF_RANGE);
        assert_int_equal(sinew_angle_set_limits(w, id, 0, -3.5f), SINEW_ERR_OUT_OF_RANGE);
        // None changed the range: at rest inside it, nothing moves.
        const uint64_t h = hash_positions(w);
        for (int s = 0; s < 5; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        }
        assert_true(hash_positions(w) == h);
        // A new range takes effect: [-1.2, -0.8] turns it right.
        assert_int_equal(sinew_angle_set_limits(w, id, -1.2f, -0.8f), SINEW_OK);
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        float t = angle_of(w, id);
        assert_true(t >= -1.2f - 1e-3f && t <= -0.8f + 1e-3f);
        // And a range through pi, [2.9, pi] and [-pi, -2.9], from about -0.8: the nearer limit
        // is -2.9 (2.1 rad away, against 2.6 to 2.9 the other way round); inside after 10 steps.
        assert_int_equal(sinew_angle_set_limits(w, id, 2.9f, -2.9f), SINEW_OK);
        for (int s = 0; s < 10; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        }
        t = angle_of(w, id);
        assert_true(outside_by(t, 2.9, -2.9) <= 1e-3);

        float out = 5.0f;
        assert_int_equal(sinew_angle_get_angle(NULL, id, &out), SINEW_ERR_NULL_ARGUMENT);
        assert_int_equal(sinew_angle_get_angle(w, id, NULL), SINEW_ERR_NULL_ARGUMENT);
        assert_int_equal(sinew_angle_get_angle(w, forged, &out), SINEW_ERR_INVALID_ID);
        assert_true(out == 5.0f);
        assert_false(sinew_angle_is_valid(NULL, id));
        assert_false(sinew_angle_is_valid(w, null_id));
        assert_int_equal(sinew_angle_destroy(w, id), SINEW_OK);
        assert_int_equal(sinew_angle_destroy(w, id), SINEW_ERR_INVALID_ID);
        assert_int_equal(sinew_angle_destroy(NULL, id), SINEW_ERR_NULL_ARGUMENT);
        assert_int_equal(sinew_angle_set_limits(w, id, 0, 0), SINEW_ERR_INVALID_ID);
        assert_int_equal(sinew_angle_get_angle(w, id, &out), SINEW_ERR_INVALID_ID);
        assert_int_equal(angle_count(w), 0);
        sinew_world_destroy(w);
    }
}

static void destroying_a_particle_destroys_its_angles(void **state)
{
    (void)state;
    // Two joints on a chain of 5 (sharing particle 2), and a third joint elsewhere. Each victim
    // takes exactly the joints that name it; the others keep measuring the same angle (their
    // particle indices are remapped when the last particle moves into the freed slot).
    const struct {
        int victim;
        bool first, second;
    } cases[] = {{0, false, true}, {2, false, false}, {4, true, false}, {1, false, true}, {3, true, false}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        sinew_world *w = angle_world(SINEW_SOLVER_GAUSS_SEIDEL, 4, 8);
        sinew_particle_id p[5];
        for (int i = 0; i < 5; ++i) {
            p[i] = make_free_particle(w, i, 0.3 * (i % 2), 1);
        }
        sinew_particle_id q[3] = {make_free_particle(w, 10, 0, 1), make_free_particle(w, 11, 0, 1), make_free_particle(w, 11, 1, 1)};
        sinew_angle_id j1 = make_angle(w, p[0], p[1], p[2], -3, 3), j2 = make_angle(w, p[2], p[3], p[4], -3, 3);
        sinew_angle_id j3 = make_angle(w, q[0], q[1], q[2], -3, 3);
        const float t1 = angle_of(w, j1), t2 = angle_of(w, j2), t3 = angle_of(w, j3);
        assert_int_equal(angle_count(w), 3);
        assert_int_equal(sinew_particle_destroy(w, p[cases[k].victim]), SINEW_OK);
        assert_true(sinew_angle_is_valid(w, j1) == cases[k].first);
        assert_true(sinew_angle_is_valid(w, j2) == cases[k].second);
        assert_true(sinew_angle_is_valid(w, j3));
        if (cases[k].first) {
            assert_true(angle_of(w, j1) == t1);
        }
        if (cases[k].second) {
            assert_true(angle_of(w, j2) == t2);
        }
        assert_true(angle_of(w, j3) == t3);
        assert_int_equal(angle_count(w), 1 + (int)cases[k].first + (int)cases[k].second);
        sinew_world_destroy(w);
    }
}

// Mean height of a rope's free end over the last second of 10 s, the rope laid out along +x from
// the origin (20 links of 0.1 m), its start pinned and, when `clamp`, its second particle made
// immovable too, so that the start is held horizontally (a cantilever).
static double tip_height(sinew_solver_mode mode, float bend, bool clamp)
{
    sinew_world_def def = sinew_default_world_def();
    def.solver.mode = mode;
    def.damping = 1.0f; // so that the swinging dies down in the time given
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    sinew_rope_def rd = sinew_default_rope_def();
    rd.links = 20;
    rd.end = sinew_vec2_make(2.0f, 0.0f);
    rd.bend_stiffness = bend;
    sinew_particle_id ids[21];
    sinew_angle_id bends[19];
    sinew_rope out = {.particles = ids, .bends = bends};
    assert_int_equal(sinew_rope_create(w, &rd, &out), SINEW_OK);
    if (clamp) {
        assert_int_equal(sinew_particle_set_weight(w, ids[1], 0.0f), SINEW_OK);
    }
    double sum = 0.0;
    for (int s = 0; s < 600; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        if (s >= 540) {
            sum += position_of(w, ids[20]).y / 60.0;
        }
    }
    assert_int_equal(sinew_world_stats(w).kinds[SINEW_KIND_ANGLE].count, bend > 0.0f ? 19 : 0);
    sinew_world_destroy(w);
    return sum;
}

static void a_stiff_rope_sags_less(void **state)
{
    (void)state;
    // Held horizontally at one end (pinned start, second particle immovable), a 2 m rope with
    // bend_stiffness 0 hangs straight down from the clamp (tip near -1.9 m); with 1 it holds
    // itself up partly (PBD bending: each joint gives a little). Measured tip heights: clamped,
    // -1.904 m free and -0.831 m stiff in Gauss-Seidel (the stiff rope sags 44% as much),
    // -1.916 and -1.700 m in Jacobi (89%: Jacobi averages each joint with the links, which
    // makes bending softer at the same settings). Asserted: the stiff rope sags less than 95%
    // as much; the runs are deterministic (the same numbers in the debug + sanitizer build).
    // Pinned at one point only, bending stiffness does not hold the rope up at all: it swings
    // down as one piece (bending is relative: there is nothing to bend against at a hinge).
    // Measured: the two hinged ropes' tips within 0.03 m of each other, both about -2.0 m.
    for (int mode = 0; mode < 2; ++mode) {
        const double free0 = tip_height((sinew_solver_mode)mode, 0.0f, true);
        const double stiff = tip_height((sinew_solver_mode)mode, 1.0f, true);
        const double hinge0 = tip_height((sinew_solver_mode)mode, 0.0f, false);
        const double hinge1 = tip_height((sinew_solver_mode)mode, 1.0f, false);
        print_message("%s: tip height, clamped: bend 0 %.3f m, bend 1 %.3f m; hinged: bend 0 %.3f m, bend 1 %.3f m\n",
                      mode_names[mode], free0, stiff, hinge0, hinge1);
        assert_true(free0 < -1.5);                 // the free rope hangs from the clamp
        assert_true(-stiff < 0.95 * -free0);       // the stiff one sags less ...
        assert_true(fabs(hinge1 - hinge0) < 0.1);  // ... unless hinged: then both hang down
        assert_true(hinge1 < -1.8);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_joints_end_inside_their_range),
        cmocka_unit_test(bending_is_held_straight_by_a_zero_width_range),
        cmocka_unit_test(inside_the_range_nothing_moves),
        cmocka_unit_test(immovable_particles_never_move),
        cmocka_unit_test(a_joint_between_two_immovable_ends_stays_near),
        cmocka_unit_test(the_angle_is_the_signed_turn_from_ab_to_bc),
        cmocka_unit_test(a_folded_joint_reports_plus_pi),
        cmocka_unit_test(one_projection_keeps_momentum),
        cmocka_unit_test(chains_of_joints_converge_in_both_modes),
        cmocka_unit_test(bad_angle_defs_are_refused_and_create_nothing),
        cmocka_unit_test(set_limits_changes_the_range_and_refuses_bad_limits),
        cmocka_unit_test(destroying_a_particle_destroys_its_angles),
        cmocka_unit_test(a_stiff_rope_sags_less),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
