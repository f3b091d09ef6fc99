// Collisions by their properties: particle contacts (overlap resolved by weight, piles that
// settle, stacks that stand, friction, filtering), static colliders (tunnelling, the create API),
// spatial queries against brute force, no allocation once warm, determinism.
//
// Every bound below was measured first (engine at commits 129980d and 204ce92, x86-64, the same
// numbers in release and debug + ASan builds); the comment next to it gives the measured value and
// the reason for the margin. Engine bugs found while writing this file are exposed by
// a_fast_ball_does_not_pass_through_a_thin_segment and by the four tests at the end of the table;
// the huge-box query is the very last, since UBSan (halt_on_error) aborts the program in it.
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "world_internal.h" // world->avx2: both kernel paths

static const float dt = 1.0f / 60.0f;
static const float pi = 3.14159265358979f;

static const sinew_solver_mode modes[] = {SINEW_SOLVER_GAUSS_SEIDEL, SINEW_SOLVER_JACOBI};
enum { MODE_COUNT = 2 };

static const char *mode_name(sinew_solver_mode mode)
{
    return mode == SINEW_SOLVER_JACOBI ? "Jacobi" : "Gauss-Seidel";
}

// ---- helpers ----------------------------------------------------------------------------------

static sinew_world *new_world(sinew_solver_mode mode, sinew_vec2 gravity, int substeps, int iterations)
{
    sinew_world_def def = sinew_default_world_def();
    def.solver.mode = mode;
    def.solver.substeps = substeps;
    def.solver.iterations = iterations;
    def.gravity = gravity;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    return w;
}

static const sinew_vec2 no_gravity = {0.0f, 0.0f};
static const sinew_vec2 earth = {0.0f, -10.0f};

static sinew_particle_id add_ball(sinew_world *w, sinew_vec2 at, float radius, float weight)
{
    sinew_particle_def p = sinew_default_particle_def();
    p.position = at;
    p.radius = radius;
    p.weight = weight;
    sinew_particle_id id;
    assert_int_equal(sinew_particle_create(w, &p, &id), SINEW_OK);
    return id;
}

static sinew_particle_id add_moving_ball(sinew_world *w, sinew_vec2 at, sinew_vec2 velocity, float radius)
{
    sinew_particle_def p = sinew_default_particle_def();
    p.position = at;
    p.velocity = velocity;
    p.radius = radius;
    sinew_particle_id id;
    assert_int_equal(sinew_particle_create(w, &p, &id), SINEW_OK);
    return id;
}

static void step_n(sinew_world *w, int n)
{
    for (int k = 0; k < n; ++k) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
}

static bool same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static bool same_particle(sinew_particle_id a, sinew_particle_id b)
{
    return a.index1 == b.index1 && a.generation == b.generation;
}

static bool same_collider(sinew_collider_id a, sinew_collider_id b)
{
    return a.index1 == b.index1 && a.generation == b.generation;
}

static sinew_vec2 rotate(sinew_vec2 v, float degrees)
{
    const float c = cosf(degrees * pi / 180.0f), s = sinf(degrees * pi / 180.0f);
    return sinew_vec2_make(c * v.x - s * v.y, s * v.x + c * v.y);
}

static float speed_of(const sinew_world *w, sinew_particle_id id)
{
    sinew_vec2 v;
    assert_int_equal(sinew_particle_get_velocity(w, id, &v), SINEW_OK);
    return sinew_vec2_length(v);
}

// Largest overlap r_i + r_j - |x_i - x_j| over all pairs (0 when none overlap), by brute force.
static float max_pair_overlap(const sinew_world *w)
{
    sinew_particle_view v = sinew_world_particles(w);
    float worst = 0.0f;
    for (int i = 0; i < v.count; ++i) {
        for (int j = i + 1; j < v.count; ++j) {
            const float dx = v.x[j] - v.x[i], dy = v.y[j] - v.y[i], r = v.radius[i] + v.radius[j];
            const float d2 = dx * dx + dy * dy;
            if (d2 < r * r) {
                worst = fmaxf(worst, r - sqrtf(d2));
            }
        }
    }
    return worst;
}

// ---- 1. two overlapping balls -----------------------------------------------------------------

static void overlapping_balls_end_touching_moved_by_their_weights(void **state)
{
    (void)state;
    // Radii 0.5 and 0.3, centres 0.6 apart along u = (0.6, 0.8): 0.2 of overlap. No gravity, the
    // default 4 sub-steps x 8 iterations. One projection of a contact moves each end by its share
    // w_i / (w_a + w_b) of the overlap along the line of centres; nothing else acts (no relative
    // tangential motion, so no friction).
    const float ra = 0.5f, rb = 0.3f;
    const sinew_vec2 u = {0.6f, 0.8f}, a0 = {1.0f, 2.0f};
    const sinew_vec2 b0 = sinew_vec2_mul_add(a0, 0.6f, u);
    const float weights[][2] = {{1, 1}, {1, 3}, {3, 1}, {0, 1}, {1, 0}, {0.25f, 0.25f}};
    // Coordinates are below 3, where a float step (ulp) is 2.4e-7; the expected positions and the
    // engine's take a handful of roundings each: 2e-6 is about 8 ulps. (Measured: at most 1.3e-7,
    // over both steps.)
    const float tol = 2e-6f;
    float worst = 0.0f;
    for (int m = 0; m < MODE_COUNT; ++m) {
        for (size_t k = 0; k < sizeof weights / sizeof weights[0]; ++k) {
            const float wa = weights[k][0], wb = weights[k][1];
            sinew_world *w = new_world(modes[m], no_gravity, 4, 8);
            sinew_particle_id a = add_ball(w, a0, ra, wa), b = add_ball(w, b0, rb, wb);
            const float d0 = sinew_vec2_distance(a0, b0), overlap = ra + rb - d0;
            const sinew_vec2 n = sinew_vec2_scale(sinew_vec2_sub(b0, a0), 1.0f / d0);
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            sinew_vec2 pa = position_of(w, a), pb = position_of(w, b);
            assert_near(sinew_vec2_distance(pa, pb), ra + rb, tol);
            const sinew_vec2 ea = sinew_vec2_mul_add(a0, -overlap * wa / (wa + wb), n);
            const sinew_vec2 eb = sinew_vec2_mul_add(b0, overlap * wb / (wa + wb), n);
            worst = fmaxf(worst, fabsf(sinew_vec2_distance(pa, pb) - (ra + rb)));
            worst = fmaxf(worst, fmaxf(sinew_vec2_distance(pa, ea), sinew_vec2_distance(pb, eb)));
            assert_near(pa.x, ea.x, tol);
            assert_near(pa.y, ea.y, tol);
            assert_near(pb.x, eb.x, tol);
            assert_near(pb.y, eb.y, tol);
            // A weight-0 ball is never moved by the solver: to the bit.
            if (wa == 0.0f) {
                assert_true(same_bits(pa.x, a0.x) && same_bits(pa.y, a0.y));
            }
            if (wb == 0.0f) {
                assert_true(same_bits(pb.x, b0.x) && same_bits(pb.y, b0.y));
            }
            // Pushing the overlap out is not a bounce: a second step leaves them touching.
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            const float d2 = sinew_vec2_distance(position_of(w, a), position_of(w, b));
            assert_near(d2, ra + rb, tol);
            worst = fmaxf(worst, fabsf(d2 - (ra + rb)));
            sinew_world_destroy(w);
        }
    }
    print_message("two overlapping balls: largest error in the touching distance or the expected positions %.3g m\n",
                  (double)worst);
}

// Contacts are found once per step when everything moves slowly against its neighbours (with a
// motion margin that covers the later sub-steps), else every sub-step. Either way two balls
// thrown at each other meet and stop, touching: from a walking pace (the margin covers the step)
// to 2 radii per sub-step (found again every sub-step).
static void balls_thrown_at_each_other_meet_at_any_speed(void **state)
{
    (void)state;
    const float speeds[] = {0.5f, 2.0f, 8.0f, 30.0f, 120.0f}; // m/s each; 120: 0.5 m per sub-step
    for (int m = 0; m < MODE_COUNT; ++m) {
        for (size_t k = 0; k < sizeof speeds / sizeof speeds[0]; ++k) {
            sinew_world *w = new_world(modes[m], no_gravity, 4, 1);
            const float v = speeds[k], gap = 3.0f * v / 60.0f + 0.3f; // they meet in the fourth step
            sinew_particle_id a = add_moving_ball(w, sinew_vec2_make(-0.5f - gap / 2, 0), sinew_vec2_make(v, 0), 0.5f);
            sinew_particle_id b = add_moving_ball(w, sinew_vec2_make(0.5f + gap / 2, 0), sinew_vec2_make(-v, 0), 0.5f);
            float closest = INFINITY;
            for (int s = 0; s < 30; ++s) {
                assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
                closest = fminf(closest, position_of(w, b).x - position_of(w, a).x);
            }
            const float end = position_of(w, b).x - position_of(w, a).x;
            print_message("%s, balls at %g m/s each: closest centres %.4g m, at the end %.4g m (radii sum 1)\n",
                          mode_name(modes[m]), (double)v, (double)closest, (double)end);
            assert_true(closest > 0.99f); // met in time: never overlapped by 1% of the radii
            assert_near(end, 1.0f, 0.01f); // and end touching: no bounce off the contact
            sinew_world_destroy(w);
        }
    }
}

// Two balls closing at 10 m/s, 1.15 apart: at the first sub-step (when contacts are found for the
// whole step) they are beyond the contact reach, so their contact waits; at the second it is within
// reach and must be solved from then on, or they overlap by the fourth.
static void a_contact_that_comes_within_reach_during_a_step_is_solved(void **state)
{
    (void)state;
    for (int m = 0; m < MODE_COUNT; ++m) {
        sinew_world *w = new_world(modes[m], no_gravity, 4, 1);
        const float v = 5.0f, start = 1.15f;
        sinew_particle_id a = add_moving_ball(w, sinew_vec2_make(-start / 2, 0), sinew_vec2_make(v, 0), 0.5f);
        sinew_particle_id b = add_moving_ball(w, sinew_vec2_make(start / 2, 0), sinew_vec2_make(-v, 0), 0.5f);
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        const float gap = position_of(w, b).x - position_of(w, a).x;
        print_message("%s: centres %.5g m apart after one step (radii sum 1, 0.983 unsolved)\n", mode_name(modes[m]),
                      (double)gap);
        assert_true(gap > 0.999f);
        assert_int_equal(sinew_world_stats(w).kinds[SINEW_KIND_CONTACT].count, 1);
        sinew_world_destroy(w);
    }
}

// ---- 2. a pile of 2,000 balls settles ---------------------------------------------------------

enum { PILE_BALLS = 2000 };

typedef struct pile_result {
    float max_overlap;    // metres, between any two balls
    float max_wall_depth; // metres, of any ball into the floor or a wall
    float max_speed;      // m/s, over the last second
    int outside;          // centres outside [box_min, box_max]
} pile_result;

static pile_result settle_pile(sinew_solver_mode mode, int substeps, int iterations, int steps)
{
    sinew_world *w = new_world(mode, earth, substeps, iterations);
    sinew_pile_def def = sinew_default_pile_def();
    def.count = PILE_BALLS;
    sinew_particle_id *ids = malloc(sizeof(sinew_particle_id) * PILE_BALLS);
    assert_non_null(ids);
    sinew_pile pile = {0};
    pile.particles = ids;
    assert_int_equal(sinew_pile_create(w, &def, &pile), SINEW_OK);
    pile_result r = {0};
    for (int s = 0; s < steps; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        if (s >= steps - 60) {
            for (int i = 0; i < PILE_BALLS; ++i) {
                r.max_speed = fmaxf(r.max_speed, speed_of(w, ids[i]));
            }
        }
    }
    sinew_particle_view v = sinew_world_particles(w);
    assert_int_equal(v.count, PILE_BALLS);
    for (int i = 0; i < v.count; ++i) {
        const float x = v.x[i], y = v.y[i], rad = v.radius[i];
        r.outside += !(x >= pile.box_min.x && x <= pile.box_max.x && y >= pile.box_min.y && y <= pile.box_max.y);
        r.max_wall_depth = fmaxf(r.max_wall_depth, fmaxf(pile.box_min.y + rad - y,
                                                         fmaxf(pile.box_min.x + rad - x, x + rad - pile.box_max.x)));
    }
    r.max_overlap = max_pair_overlap(w);
    free(ids);
    sinew_world_destroy(w);
    return r;
}

// Settings, from measurements of 2,000 balls (max overlap / radius after 900 steps; taken before
// contacts were found once per step and near pairs stopped responding, and the choice still holds):
//   Gauss-Seidel 4x2: 8.5%, 4x4: 3.6%, 4x8 (the defaults): 0.88%, 4x12: 0.44%, 4x16: 0.51%,
//                8x4: 0.45%
//   Jacobi 4x8: 5.4%, 4x16: 0.78%, 8x4: 5.3%, 16x2: 1.4%, 8x8: 0.35%, 12x4: 0.32%
// and of when the pile stops moving (no ball faster than 0.25 m/s from then on, watched to step
// 2,400): Gauss-Seidel 4x16 and Jacobi 12x4 from step ~420. Gauss-Seidel at the defaults is
// under 1% but with little margin, and keeps rearranging: bursts of balls at up to 3.5 m/s until
// step 1,224 (4x12 and 8x4 too, until steps ~1,000-1,200; 8x8 never stops within 1,500 steps).
// Hence Gauss-Seidel 4x16 and Jacobi 12x4 (the cheapest Jacobi setting well under 1%: the cost is
// mostly per sub-step, the contact search), 600 steps (10 s) each. Under a debug + ASan build this
// test takes about 35 s; it runs 2,000 balls as asked.
static void a_pile_of_2000_balls_settles_in_both_modes(void **state)
{
    (void)state;
    const int settings[MODE_COUNT][2] = {{4, 16}, {12, 4}};
    pile_result results[MODE_COUNT];
    for (int m = 0; m < MODE_COUNT; ++m) { // both runs first, so that a failure reports both
        const pile_result r = results[m] = settle_pile(modes[m], settings[m][0], settings[m][1], 600);
        print_message("pile of %d, %s %dx%d, 600 steps: max overlap %.4g r, wall depth %.4g r, max speed over "
                      "the last second %.4g m/s\n",
                      PILE_BALLS, mode_name(modes[m]), settings[m][0], settings[m][1], (double)(r.max_overlap / 0.5f),
                      (double)(r.max_wall_depth / 0.5f), (double)r.max_speed);
    }
    for (int m = 0; m < MODE_COUNT; ++m) {
        const pile_result r = results[m];
        assert_int_equal(r.outside, 0);
        // The brief's bound: under 1% of the radius (0.5), between balls and into the container.
        assert_true(r.max_overlap < 0.01f * 0.5f);
        assert_true(r.max_wall_depth < 0.01f * 0.5f);
        // Measured over the last second, for 1,980 to 2,020 balls in steps of 10: Gauss-Seidel
        // 0.0022-0.032 m/s, Jacobi 0.097-0.196 m/s (a few balls keep trembling). The bound,
        // 0.25 m/s, is small: a ball dropped from rest reaches it in 25 ms, and the balls land at
        // up to 20 m/s. (Before near pairs stopped responding, see in_play in contact_response.c,
        // Gauss-Seidel piles kept collapsing arches: bursts at up to 3.5 m/s for most of those
        // counts.)
        assert_true(r.max_speed < 0.25f);
    }
}

// ---- 3. a column of 20 balls stands -----------------------------------------------------------

static void a_column_of_20_balls_stands_for_10_seconds(void **state)
{
    (void)state;
    enum { BALLS = 20 };
    for (int m = 0; m < MODE_COUNT; ++m) {
        sinew_world *w = new_world(modes[m], earth, 4, 8);
        sinew_collider_def cd = sinew_default_collider_def();
        assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0, 1), 0.0f, NULL), SINEW_OK);
        sinew_particle_id ids[BALLS];
        const float x0 = 2.0f;
        for (int k = 0; k < BALLS; ++k) { // radius 0.5, touching, the lowest one on the floor y = 0
            ids[k] = add_ball(w, sinew_vec2_make(x0, 0.5f + (float)k), 0.5f, 1.0f);
        }
        float sink = 0.0f, drift = 0.0f;
        for (int s = 0; s < 600; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            for (int k = 0; k < BALLS; ++k) {
                sinew_vec2 p = position_of(w, ids[k]);
                sink = fmaxf(sink, 0.5f + (float)k - p.y);
                drift = fmaxf(drift, fabsf(p.x - x0));
            }
        }
        const float top = position_of(w, ids[BALLS - 1]).y;
        print_message("column of %d, %s: max sink %.4g m, top at %.6g, max lateral drift %.3g m\n", BALLS,
                      mode_name(modes[m]), (double)sink, (double)top, (double)drift);
        // Every contact of the column is vertical, so nothing pushes sideways: x stays to the bit.
        assert_true(drift == 0.0f);
        // The stack's weight leaves the contacts slightly compressed (an error the iterations do
        // not quite remove). Measured over the 10 s, deepest sink of any ball: Gauss-Seidel 0.0072
        // m, Jacobi 0.032 m; top ball at 19.4957 and 19.4827. Bounds about 2.5x those: 0.02 m and
        // 0.08 m (4% and 16% of the radius), for the sink and for the top's height alike.
        const float bound = modes[m] == SINEW_SOLVER_JACOBI ? 0.08f : 0.02f;
        assert_true(sink < bound);
        assert_near(top, 19.5f, bound);
        sinew_world_destroy(w);
    }
}

// ---- 4. friction on a 30-degree slope ---------------------------------------------------------

typedef struct slide {
    float travel;   // metres down the slope in 2 s
    float off;      // largest |distance of the centre from the surface - radius|, metres
} slide;

// A ball of radius 0.5 resting on the half-plane through the origin whose surface rises at 30
// degrees, with the given static friction on both the ball and the plane (kinetic friction too
// when `kinetic` is not negative), for 2 s under g = 10.
static slide slide_on_slope(sinew_solver_mode mode, bool as_segment, float friction, float kinetic)
{
    sinew_world *w = new_world(mode, earth, 4, 8);
    const sinew_vec2 n = {-sinf(pi / 6.0f), cosf(pi / 6.0f)}, t = {cosf(pi / 6.0f), sinf(pi / 6.0f)};
    sinew_collider_def cd = sinew_default_collider_def();
    cd.friction = friction;
    cd.kinetic_friction = kinetic >= 0.0f ? kinetic : cd.kinetic_friction;
    if (as_segment) { // a long thin segment on the same line
        const sinew_vec2 a = sinew_vec2_scale(t, -100.0f), b = sinew_vec2_scale(t, 100.0f);
        assert_int_equal(sinew_segment_collider_create(w, &cd, a, b, 0.0f, NULL), SINEW_OK);
    } else {
        assert_int_equal(sinew_plane_collider_create(w, &cd, n, 0.0f, NULL), SINEW_OK);
    }
    sinew_particle_def p = sinew_default_particle_def();
    p.radius = 0.5f;
    p.position = sinew_vec2_add(sinew_vec2_scale(t, 5.0f), sinew_vec2_scale(n, 0.5f)); // touching
    p.friction = friction;
    p.kinetic_friction = kinetic >= 0.0f ? kinetic : p.kinetic_friction;
    sinew_particle_id id;
    assert_int_equal(sinew_particle_create(w, &p, &id), SINEW_OK);
    slide r = {0};
    for (int s = 0; s < 120; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        const sinew_vec2 at = position_of(w, id);
        r.off = fmaxf(r.off, fabsf(sinew_vec2_dot(at, n) - 0.5f));
    }
    r.travel = sinew_vec2_dot(sinew_vec2_sub(p.position, position_of(w, id)), t);
    sinew_world_destroy(w);
    return r;
}

static void friction_holds_a_ball_on_a_30_degree_slope_and_none_lets_it_slide(void **state)
{
    (void)state;
    // Frictionless: g sin(30) t^2 / 2 = 10 * 0.5 * 4 / 2 = 10 m in 2 s. Verlet over n = 480
    // sub-steps covers a h^2 n (n + 1) / 2, 0.2% more (10.02 m); 1% (0.1 m) leaves room for the
    // first sub-step's contact.
    const float expected = 10.0f * 0.5f * 2.0f * 2.0f / 2.0f;
    for (int m = 0; m < MODE_COUNT; ++m) {
        for (int seg = 0; seg < 2; ++seg) {
            slide held = slide_on_slope(modes[m], seg != 0, 0.8f, -1.0f);
            slide held_k = slide_on_slope(modes[m], seg != 0, 0.8f, 0.8f);
            slide free = slide_on_slope(modes[m], seg != 0, 0.0f, 0.0f);
            print_message("slope (%s), %s: travel with friction 0.8 %.3g m (kinetic 0.8: %.3g m), without %.6g m "
                          "(off the surface by up to %.3g / %.3g m)\n",
                          seg != 0 ? "segment" : "plane", mode_name(modes[m]), (double)held.travel,
                          (double)held_k.travel, (double)free.travel, (double)held.off, (double)free.off);
            // tan(30) = 0.577 < 0.8: static friction holds it. The kinetic coefficient is left at
            // its default 0.5 in `held`: below tan(30), so a ball that ever started to slip would
            // keep sliding, and the static hold is what is tested.
            // Measured travel: 0 on the plane, 2.4e-7 m on the segment (rounding of coordinates near
            // 5 m, ulp 4.8e-7). A slip of any kind would carry it metres. Bound: 0.1 mm.
            assert_true(fabsf(held.travel) < 1e-4f);
            assert_true(fabsf(held_k.travel) < 1e-4f);
            // Measured: 10.023 m (plane), 10.019 m (segment).
            assert_near(free.travel, expected, 0.01f * expected);
            // Resting or sliding, the ball stays on the surface. Measured: at most 3.4e-6 m, the
            // rounding of coordinates up to 10 m (ulp 9.5e-7); bound 0.1 mm.
            assert_true(held.off < 1e-4f);
            assert_true(free.off < 1e-4f);
        }
    }
}

// ---- 5. tunnelling ----------------------------------------------------------------------------

// Radius 0.1 and 100 radii per sub-step: 10 m per sub-step of 1/240 s, 2,400 m/s. The collider
// lies across the path 5 m ahead (half a sub-step), thinner than a sub-step's travel.
static const float fast_radius = 0.1f;

// Fires a ball from `from` along `dir` at 100 radii per sub-step for 5 steps (200 m of travel)
// and returns the smallest signed distance, along `normal` (pointing back toward `from`), of its
// centre from the line dot(normal, x) = offset that it must not cross.
static float fire(sinew_solver_mode mode, sinew_vec2 from, sinew_vec2 dir, sinew_vec2 normal, float offset,
                  void (*make)(sinew_world *w, const void *ctx), const void *ctx)
{
    sinew_world *w = new_world(mode, no_gravity, 4, 8);
    make(w, ctx);
    const float speed = 100.0f * fast_radius / (dt / 4.0f);
    sinew_particle_id id = add_moving_ball(w, from, sinew_vec2_scale(dir, speed), fast_radius);
    float worst = INFINITY;
    for (int s = 0; s < 5; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        worst = fminf(worst, sinew_vec2_dot(normal, position_of(w, id)) - offset);
    }
    sinew_world_destroy(w);
    return worst;
}

typedef struct segment_ctx {
    sinew_vec2 a, b;
} segment_ctx;

static void make_segment(sinew_world *w, const void *ctx)
{
    const segment_ctx *s = ctx;
    sinew_collider_def cd = sinew_default_collider_def();
    assert_int_equal(sinew_segment_collider_create(w, &cd, s->a, s->b, 0.0f, NULL), SINEW_OK);
}

typedef struct box_ctx {
    sinew_vec2 min, max;
} box_ctx;

static void make_box(sinew_world *w, const void *ctx)
{
    const box_ctx *b = ctx;
    sinew_collider_def cd = sinew_default_collider_def();
    assert_int_equal(sinew_box_collider_create(w, &cd, b->min, b->max, NULL), SINEW_OK);
}

static void a_fast_ball_does_not_pass_through_a_thin_segment(void **state)
{
    (void)state;
    float worst = INFINITY;
    int crossed = 0, runs = 0;
    for (int m = 0; m < MODE_COUNT; ++m) {
        for (int heading = 0; heading < 360; heading += 45) { // direction of flight
            for (int tilt = -60; tilt <= 60; tilt += 30) {     // angle between the path and the segment's normal
                const sinew_vec2 dir = rotate(sinew_vec2_make(1, 0), (float)heading);
                const sinew_vec2 normal = rotate(sinew_vec2_scale(dir, -1.0f), (float)tilt); // faces the ball
                const sinew_vec2 from = sinew_vec2_make(3.0f, -2.0f);
                // The segment crosses the path 5 m ahead, 1,000 m long so that a ball deflected
                // along it stays in front of it for the whole flight.
                const sinew_vec2 hit = sinew_vec2_mul_add(from, 5.0f, dir), along = sinew_vec2_perp(normal);
                segment_ctx s = {sinew_vec2_mul_add(hit, -500.0f, along), sinew_vec2_mul_add(hit, 500.0f, along)};
                const float d = fire(modes[m], from, dir, normal, sinew_vec2_dot(normal, hit), make_segment, &s);
                runs += 1;
                if (!(d > 0.0f)) {
                    crossed += 1;
                    print_message("%s, heading %d, tilt %d: the ball crossed the segment (%.4g m behind it)\n",
                                  mode_name(modes[m]), heading, tilt, (double)-d);
                } else {
                    worst = fminf(worst, d);
                }
            }
        }
    }
    print_message("thin segment: crossed in %d of %d runs; in the others the ball's centre stayed at least %.7g "
                  "m (radius %.2g) in front\n",
                  crossed, runs, (double)worst, (double)fast_radius);
    assert_int_equal(crossed, 0);
    // It stops touching the segment: its centre a radius in front, give or take rounding (the
    // segment's ends are 500 m out, where the float step is 3e-5 m). Measured: 0.0999942 m.
    assert_true(worst > 0.9f * fast_radius);
}

static void a_fast_ball_does_not_pass_through_a_thin_box(void **state)
{
    (void)state;
    float worst = INFINITY;
    // A slab 0.5 m thick (5 radii, half a sub-step of travel) across the path, hit on each of its
    // four sides in turn, at angles of approach from -60 to 60 degrees off the side's normal.
    const sinew_vec2 side_normals[4] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (int m = 0; m < MODE_COUNT; ++m) {
        for (int side = 0; side < 4; ++side) {
            const sinew_vec2 nrm = side_normals[side];
            // Slab centred at (5, 5) along the side's normal, 1,000 m long across it.
            const bool vertical = nrm.y == 0.0f;
            box_ctx b = vertical ? (box_ctx){{4.75f, -495.0f}, {5.25f, 505.0f}}
                                 : (box_ctx){{-495.0f, 4.75f}, {505.0f, 5.25f}};
            const sinew_vec2 face = sinew_vec2_add(sinew_vec2_make(5.0f, 5.0f), sinew_vec2_scale(nrm, 0.25f));
            for (int angle = -60; angle <= 60; angle += 20) {
                const sinew_vec2 dir = rotate(sinew_vec2_scale(nrm, -1.0f), (float)angle);
                const sinew_vec2 from = sinew_vec2_mul_add(face, -5.0f, dir); // 5 m before the face
                const float d = fire(modes[m], from, dir, nrm, sinew_vec2_dot(nrm, face), make_box, &b);
                if (!(d > 0.0f)) {
                    fail_msg("%s, side %d, angle %d: the ball went into or through the box (%.4g m)",
                             mode_name(modes[m]), side, angle, (double)d);
                }
                worst = fminf(worst, d);
            }
        }
    }
    print_message("thin box: the ball's centre stayed at least %.7g m (radius %.2g) outside\n", (double)worst,
                  (double)fast_radius);
    // It stops touching the face. Measured: 0.0999999 m.
    assert_true(worst > 0.9f * fast_radius);
}

// ---- 6. filtering -----------------------------------------------------------------------------

// Two balls of radius 0.5 fly at each other at 5 m/s along the x axis for 1 s without gravity,
// a from x = 0, b from x = 3; returns b.x - a.x at the end (negative: they passed through each
// other) and the most contacts any step reported.
static float head_on(sinew_solver_mode mode, uint32_t group_a, uint32_t mask_a, uint32_t group_b, uint32_t mask_b,
                     int *max_contacts)
{
    sinew_world *w = new_world(mode, no_gravity, 4, 8);
    sinew_particle_def p = sinew_default_particle_def();
    p.radius = 0.5f;
    p.position = sinew_vec2_make(0, 0);
    p.velocity = sinew_vec2_make(5, 0);
    p.group = group_a;
    p.mask = mask_a;
    sinew_particle_id a, b;
    assert_int_equal(sinew_particle_create(w, &p, &a), SINEW_OK);
    p.position = sinew_vec2_make(3, 0);
    p.velocity = sinew_vec2_make(-5, 0);
    p.group = group_b;
    p.mask = mask_b;
    assert_int_equal(sinew_particle_create(w, &p, &b), SINEW_OK);
    *max_contacts = 0;
    for (int s = 0; s < 60; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        const int c = sinew_world_stats(w).kinds[SINEW_KIND_CONTACT].count;
        *max_contacts = c > *max_contacts ? c : *max_contacts;
    }
    const float gap = position_of(w, b).x - position_of(w, a).x;
    sinew_world_destroy(w);
    return gap;
}

static void balls_whose_masks_exclude_each_other_pass_through(void **state)
{
    (void)state;
    for (int m = 0; m < MODE_COUNT; ++m) {
        int contacts;
        // Control: default group 1 and mask all bits. They meet and stay apart (an inelastic
        // contact: they end at rest touching, 1 m apart; 0.01 m leaves room for the contact's
        // error).
        float gap = head_on(modes[m], 1u, UINT32_MAX, 1u, UINT32_MAX, &contacts);
        assert_true(gap > 0.99f);
        assert_true(contacts >= 1);
        // Each mask excludes the other's group.
        gap = head_on(modes[m], 1u, ~2u, 2u, ~1u, &contacts);
        // 3 - 10: each flew 5 m untouched (1e-3 m: 240 sub-steps of rounding at coordinates up to
        // 5 m, ulp 4.8e-7, stay under 1.2e-4 m).
        assert_near(gap, -7.0f, 1e-3f);
        assert_int_equal(contacts, 0);
        // One side is enough: a pair collides only when each one's group meets the other's mask.
        gap = head_on(modes[m], 1u, ~2u, 2u, UINT32_MAX, &contacts);
        assert_near(gap, -7.0f, 1e-3f);
        assert_int_equal(contacts, 0);
        gap = head_on(modes[m], 1u, UINT32_MAX, 2u, ~1u, &contacts);
        assert_near(gap, -7.0f, 1e-3f);
        assert_int_equal(contacts, 0);
        // Groups that share a bit with the other's mask collide again.
        gap = head_on(modes[m], 3u, 2u, 2u, 1u, &contacts);
        assert_true(gap > 0.99f);
    }
}

// A ball of radius 0.5 dropped from y = 2 onto the floor y = 0 for 1 s; returns its final height.
static float drop_on_floor(sinew_solver_mode mode, uint32_t floor_group, uint32_t floor_mask, uint32_t ball_group,
                           uint32_t ball_mask)
{
    sinew_world *w = new_world(mode, earth, 4, 8);
    sinew_collider_def cd = sinew_default_collider_def();
    cd.group = floor_group;
    cd.mask = floor_mask;
    assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0, 1), 0.0f, NULL), SINEW_OK);
    sinew_particle_def p = sinew_default_particle_def();
    p.radius = 0.5f;
    p.position = sinew_vec2_make(0, 2);
    p.group = ball_group;
    p.mask = ball_mask;
    sinew_particle_id id;
    assert_int_equal(sinew_particle_create(w, &p, &id), SINEW_OK);
    step_n(w, 60);
    const float y = position_of(w, id).y;
    sinew_world_destroy(w);
    return y;
}

static void a_collider_whose_mask_excludes_a_ball_does_not_stop_it(void **state)
{
    (void)state;
    for (int m = 0; m < MODE_COUNT; ++m) {
        // Control: defaults, it lands and rests on the floor (centre at the radius: a plane
        // contact projects onto its surface exactly, so 1e-3 m is loose).
        assert_near(drop_on_floor(modes[m], 1u, UINT32_MAX, 1u, UINT32_MAX), 0.5f, 1e-3f);
        // The floor's mask leaves out the ball's group: it falls through (free fall from 2 m for
        // 1 s ends near 2 - 5 = -3 m).
        assert_true(drop_on_floor(modes[m], 1u, ~1u, 1u, UINT32_MAX) < -2.5f);
        // The ball's mask leaves out the floor's group: it falls through too.
        assert_true(drop_on_floor(modes[m], 2u, UINT32_MAX, 1u, ~2u) < -2.5f);
        // A shared bit on both sides: stopped.
        assert_near(drop_on_floor(modes[m], 6u, 1u, 1u, 4u), 0.5f, 1e-3f);
    }
}

// Two balls of radius 0.5 whose centres are 0.5 apart, joined by a distance constraint at that
// length; returns the contacts the step reports.
static int linked_overlap_contacts(sinew_solver_mode mode, bool skip_linked_pairs)
{
    sinew_world_def def = sinew_default_world_def();
    def.solver.mode = mode;
    def.gravity = no_gravity;
    def.skip_linked_pairs = skip_linked_pairs;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    sinew_particle_id a = add_ball(w, sinew_vec2_make(0, 0), 0.5f, 1.0f);
    sinew_particle_id b = add_ball(w, sinew_vec2_make(0.5f, 0), 0.5f, 1.0f);
    make_link(w, a, b);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    const int contacts = sinew_world_stats(w).kinds[SINEW_KIND_CONTACT].count;
    if (skip_linked_pairs) { // the link holds them 0.5 apart, overlapping: nothing fights it
        assert_near(sinew_vec2_distance(position_of(w, a), position_of(w, b)), 0.5f, 1e-6f);
    }
    sinew_world_destroy(w);
    return contacts;
}

static void skip_linked_pairs_decides_whether_linked_balls_collide(void **state)
{
    (void)state;
    assert_true(sinew_default_world_def().skip_linked_pairs);
    for (int m = 0; m < MODE_COUNT; ++m) {
        assert_int_equal(linked_overlap_contacts(modes[m], true), 0);
        assert_int_equal(linked_overlap_contacts(modes[m], false), 1);
    }
}

// ---- 7. queries against brute force -----------------------------------------------------------

static int compare_ints(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

// The query's result as sorted dense indices; asserts every id is live and appears once.
static int query_indices(const sinew_world *w, const sinew_particle_id *ids, int count, int *out)
{
    for (int k = 0; k < count; ++k) {
        out[k] = sinew_particle_index(w, ids[k]);
        assert_true(out[k] >= 0);
    }
    qsort(out, (size_t)count, sizeof(int), compare_ints);
    for (int k = 1; k < count; ++k) {
        assert_true(out[k] != out[k - 1]);
    }
    return count;
}

// Brute force over the bulk view, with the same float arithmetic the header promises: the box is
// closed, the disc is (x - cx)^2 + (y - cy)^2 <= r^2.
static int brute_box(const sinew_world *w, sinew_vec2 min, sinew_vec2 max, int *out)
{
    sinew_particle_view v = sinew_world_particles(w);
    int n = 0;
    for (int i = 0; i < v.count; ++i) {
        if (v.x[i] >= min.x && v.x[i] <= max.x && v.y[i] >= min.y && v.y[i] <= max.y) {
            out[n++] = i;
        }
    }
    return n;
}

static int brute_circle(const sinew_world *w, sinew_vec2 c, float radius, int *out)
{
    sinew_particle_view v = sinew_world_particles(w);
    const float r2 = radius * radius;
    int n = 0;
    for (int i = 0; i < v.count; ++i) {
        const float dx = v.x[i] - c.x, dy = v.y[i] - c.y;
        if (dx * dx + dy * dy <= r2) {
            out[n++] = i;
        }
    }
    return n;
}

// Nearest within max_distance (inclusive), ties to the lower index; -1 when none.
static int brute_nearest(const sinew_world *w, sinew_vec2 point, float max_distance)
{
    sinew_particle_view v = sinew_world_particles(w);
    const float limit = max_distance * max_distance;
    int best = -1;
    float best2 = INFINITY;
    for (int i = 0; i < v.count; ++i) {
        const float dx = v.x[i] - point.x, dy = v.y[i] - point.y, d2 = dx * dx + dy * dy;
        if (d2 <= limit && d2 < best2) {
            best2 = d2;
            best = i;
        }
    }
    return best;
}

enum { QUERY_MAX = 1024 };

typedef struct query_scratch {
    sinew_particle_id ids[QUERY_MAX];
    int got[QUERY_MAX], want[QUERY_MAX];
} query_scratch;

static void check_box(const sinew_world *w, query_scratch *q, sinew_vec2 min, sinew_vec2 max)
{
    int count = -1;
    assert_int_equal(sinew_world_query_aabb(w, min, max, q->ids, QUERY_MAX, &count), SINEW_OK);
    const int want = brute_box(w, min, max, q->want);
    assert_true(count <= QUERY_MAX);
    query_indices(w, q->ids, count, q->got);
    if (count != want || memcmp(q->got, q->want, sizeof(int) * (size_t)want) != 0) {
        fail_msg("box (%g, %g)-(%g, %g): the query found %d particles, brute force %d (or other ones)",
                 (double)min.x, (double)min.y, (double)max.x, (double)max.y, count, want);
    }
}

static void check_circle(const sinew_world *w, query_scratch *q, sinew_vec2 c, float radius)
{
    int count = -1;
    assert_int_equal(sinew_world_query_circle(w, c, radius, q->ids, QUERY_MAX, &count), SINEW_OK);
    const int want = brute_circle(w, c, radius, q->want);
    assert_true(count <= QUERY_MAX);
    query_indices(w, q->ids, count, q->got);
    if (count != want || memcmp(q->got, q->want, sizeof(int) * (size_t)want) != 0) {
        fail_msg("circle (%g, %g) r %g: the query found %d particles, brute force %d (or other ones)", (double)c.x,
                 (double)c.y, (double)radius, count, want);
    }
}

static void check_nearest(const sinew_world *w, sinew_vec2 point, float max_distance)
{
    sinew_particle_id id = {7u, 7u};
    assert_int_equal(sinew_world_query_nearest(w, point, max_distance, &id), SINEW_OK);
    const int want = brute_nearest(w, point, max_distance);
    const int got = SINEW_ID_IS_NULL(id) ? -1 : sinew_particle_index(w, id);
    assert_true(SINEW_ID_IS_NULL(id) || got >= 0);
    if (got != want) {
        fail_msg("nearest to (%g, %g) within %g: the query gave %d, brute force %d", (double)point.x,
                 (double)point.y, (double)max_distance, got, want);
    }
}

// Boxes, circles and nearest queries drawn at random over [-25, 25]^2, plus edge cases built on
// particles' exact coordinates (closed bounds, zero-size box, zero radius).
static void check_random_queries(const sinew_world *w, query_scratch *q, uint64_t *rng)
{
    for (int k = 0; k < 60; ++k) {
        const sinew_vec2 a = {uniform(rng, -25, 25), uniform(rng, -25, 25)};
        const sinew_vec2 size = {uniform(rng, 0, 15), uniform(rng, 0, 15)};
        check_box(w, q, a, sinew_vec2_add(a, size));
        check_circle(w, q, a, uniform(rng, 0, 10));
        check_nearest(w, a, uniform(rng, 0, 4));
    }
    sinew_particle_view v = sinew_world_particles(w);
    for (int k = 0; k < 20; ++k) {
        const int i = (int)(next_random(rng) % (uint64_t)v.count), j = (int)(next_random(rng) % (uint64_t)v.count);
        const sinew_vec2 pi_ = {v.x[i], v.y[i]}, pj = {v.x[j], v.y[j]};
        const sinew_vec2 lo = {fminf(pi_.x, pj.x), fminf(pi_.y, pj.y)}, hi = {fmaxf(pi_.x, pj.x), fmaxf(pi_.y, pj.y)};
        check_box(w, q, lo, hi);      // both corners' particles are on the boundary
        check_box(w, q, pi_, pi_);    // a zero-size box around one particle
        check_box(w, q, hi, lo);      // inverted: empty unless degenerate
        check_circle(w, q, pi_, 0.0f);
        check_circle(w, q, pi_, sinew_vec2_distance(pi_, pj));
        check_nearest(w, pi_, 0.0f);
    }
    check_box(w, q, sinew_vec2_make(-1000, -1000), sinew_vec2_make(1000, 1000)); // everything
    check_box(w, q, sinew_vec2_make(500, 500), sinew_vec2_make(600, 600));       // nothing
    check_circle(w, q, sinew_vec2_make(0, 0), 1000.0f);
    check_nearest(w, sinew_vec2_make(0, 0), 1000.0f);
    check_nearest(w, sinew_vec2_make(900, 900), 10.0f); // none within reach: null id
}

// 400 particles at random over [-20, 20]^2, radii 0.05..0.5, random velocities up to 3 m/s, a
// quarter without SINEW_PARTICLE_COLLIDES and a tenth immovable, under gravity; a floor at y = -15.
static sinew_world *random_query_world(sinew_solver_mode mode, uint64_t *rng)
{
    sinew_world *w = new_world(mode, earth, 4, 8);
    sinew_collider_def cd = sinew_default_collider_def();
    assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0, 1), -15.0f, NULL), SINEW_OK);
    for (int k = 0; k < 400; ++k) {
        sinew_particle_def p = sinew_default_particle_def();
        p.position = sinew_vec2_make(uniform(rng, -20, 20), uniform(rng, -20, 20));
        p.velocity = sinew_vec2_make(uniform(rng, -3, 3), uniform(rng, -3, 3));
        p.radius = uniform(rng, 0.05f, 0.5f);
        p.flags = k % 4 == 1 ? 0u : SINEW_PARTICLE_COLLIDES;
        p.weight = k % 10 == 3 ? 0.0f : 1.0f;
        sinew_particle_id id;
        assert_int_equal(sinew_particle_create(w, &p, &id), SINEW_OK);
    }
    return w;
}

static void queries_match_a_brute_force_scan(void **state)
{
    (void)state;
    query_scratch *q = malloc(sizeof *q);
    assert_non_null(q);
    for (int m = 0; m < MODE_COUNT; ++m) {
        uint64_t rng = 12345u + (uint64_t)m;
        sinew_world *w = random_query_world(modes[m], &rng);
        check_random_queries(w, q, &rng); // before any step: no grid yet
        step_n(w, 5);
        check_random_queries(w, q, &rng); // the grid of the last step
        // Particles made after the last step, colliding or not, are found too.
        for (int k = 0; k < 50; ++k) {
            sinew_particle_def p = sinew_default_particle_def();
            p.position = uniform_vec2(&rng, -20, 20, -20, 20);
            p.flags = k % 2 == 0 ? 0u : SINEW_PARTICLE_COLLIDES;
            sinew_particle_id id;
            assert_int_equal(sinew_particle_create(w, &p, &id), SINEW_OK);
        }
        check_random_queries(w, q, &rng);
        step_n(w, 3);
        check_random_queries(w, q, &rng);
        // And after destroying some (dense indices move).
        for (int k = 0; k < 40; ++k) {
            assert_int_equal(sinew_particle_destroy(w, sinew_particle_id_at(w, 7 * k)), SINEW_OK);
        }
        check_random_queries(w, q, &rng);
        step_n(w, 2);
        check_random_queries(w, q, &rng);
        sinew_world_destroy(w);
    }
    free(q);
}

static void a_query_over_capacity_reports_the_full_count(void **state)
{
    (void)state;
    uint64_t rng = 99u;
    sinew_world *w = random_query_world(SINEW_SOLVER_GAUSS_SEIDEL, &rng);
    step_n(w, 3);
    const sinew_vec2 min = {-10, -10}, max = {10, 10}, c = {0, 0};
    int want[QUERY_MAX];
    const int n_box = brute_box(w, min, max, want);
    const int n_circle = brute_circle(w, c, 8.0f, want);
    assert_true(n_box > 20 && n_circle > 20);
    const sinew_particle_id marker = {0xdeadu, 0xbeefu};
    for (int capacity = 0; capacity <= 10; capacity += 5) {
        for (int kind = 0; kind < 2; ++kind) {
            sinew_particle_id ids[16];
            for (int k = 0; k < 16; ++k) {
                ids[k] = marker;
            }
            int count = -1;
            if (kind == 0) {
                assert_int_equal(sinew_world_query_aabb(w, min, max, capacity > 0 ? ids : NULL, capacity, &count),
                                 SINEW_OK);
                assert_int_equal(count, n_box);
            } else {
                assert_int_equal(sinew_world_query_circle(w, c, 8.0f, capacity > 0 ? ids : NULL, capacity, &count),
                                 SINEW_OK);
                assert_int_equal(count, n_circle);
            }
            for (int k = 0; k < 16; ++k) {
                if (k < capacity) { // written: a live particle inside the region
                    const int i = sinew_particle_index(w, ids[k]);
                    assert_true(i >= 0);
                    const sinew_vec2 p = position_of(w, ids[k]);
                    if (kind == 0) {
                        assert_true(p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y);
                    } else {
                        assert_true(p.x * p.x + p.y * p.y <= 64.0f);
                    }
                    for (int j = 0; j < k; ++j) {
                        assert_false(same_particle(ids[j], ids[k]));
                    }
                } else { // past capacity: untouched
                    assert_true(same_particle(ids[k], marker));
                }
            }
        }
    }
    sinew_world_destroy(w);
}

static void queries_refuse_bad_arguments_and_write_nothing(void **state)
{
    (void)state;
    sinew_world *w = new_world(SINEW_SOLVER_GAUSS_SEIDEL, earth, 4, 8);
    add_ball(w, sinew_vec2_make(0, 0), 0.5f, 1.0f);
    step_n(w, 1);
    const sinew_vec2 o = {0, 0}, one = {1, 1}, nan2 = {NAN, 0}, inf2 = {0, INFINITY};
    const sinew_particle_id marker = {0xdeadu, 0xbeefu};
    sinew_particle_id ids[4] = {marker, marker, marker, marker};
    int count = -7;
    // aabb
    assert_int_equal(sinew_world_query_aabb(NULL, o, one, ids, 4, &count), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_query_aabb(w, o, one, ids, 4, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_query_aabb(w, o, one, NULL, 4, &count), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_query_aabb(w, nan2, one, ids, 4, &count), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_query_aabb(w, o, inf2, ids, 4, &count), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_query_aabb(w, o, one, ids, -1, &count), SINEW_ERR_OUT_OF_RANGE);
    // circle
    assert_int_equal(sinew_world_query_circle(NULL, o, 1.0f, ids, 4, &count), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_query_circle(w, o, 1.0f, ids, 4, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_query_circle(w, o, 1.0f, NULL, 1, &count), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_query_circle(w, nan2, 1.0f, ids, 4, &count), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_query_circle(w, o, NAN, ids, 4, &count), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_query_circle(w, o, INFINITY, ids, 4, &count), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_query_circle(w, o, -1.0f, ids, 4, &count), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_world_query_circle(w, o, 1.0f, ids, -1, &count), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(count, -7);
    for (int k = 0; k < 4; ++k) {
        assert_true(same_particle(ids[k], marker));
    }
    // nearest
    sinew_particle_id near = marker;
    assert_int_equal(sinew_world_query_nearest(NULL, o, 1.0f, &near), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_query_nearest(w, o, 1.0f, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_query_nearest(w, nan2, 1.0f, &near), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_query_nearest(w, inf2, 1.0f, &near), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_query_nearest(w, o, NAN, &near), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_query_nearest(w, o, INFINITY, &near), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_query_nearest(w, o, -1.0f, &near), SINEW_ERR_OUT_OF_RANGE);
    assert_true(same_particle(near, marker));
    // Capacity 0 with no array is a count-only query, not an error.
    assert_int_equal(sinew_world_query_aabb(w, sinew_vec2_make(-5, -5), sinew_vec2_make(5, 5), NULL, 0, &count),
                     SINEW_OK);
    assert_int_equal(count, 1);
    assert_int_equal(sinew_world_query_circle(w, o, 5.0f, NULL, 0, &count), SINEW_OK);
    assert_int_equal(count, 1);
    sinew_world_destroy(w);
}

// A coordinate's cell, as the grid computes it without floorf, is the clamped floor for every
// float: negative, -0, NaN, infinities, the top edge, values past it and the largest ones.
static void grid_cells_are_the_clamped_floor_of_every_coordinate(void **state)
{
    (void)state;
    const float values[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 0.5f, 0.999999f, 1.0f, 1.5f, 6.0f, 6.999999f, 7.0f, 7.5f, 8.0f,
                            -0.5f, -1.0f, -7.5f, 1e9f, -1e9f, 3e38f, -3e38f, INFINITY, -INFINITY, NAN, -NAN};
    const int sizes[] = {1, 2, 8, 1000, 16777216, INT32_MAX / 2};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const int n = sizes[s];
        for (size_t v = 0; v < sizeof values / sizeof values[0]; ++v) {
            for (int scale = 0; scale < 3; ++scale) {
                const float inv = scale == 0 ? 1.0f : (scale == 1 ? 0.37f : 1e6f);
                const float c = floorf((values[v] - 0.25f) * inv);
                const int expected = !(c >= 0.0f) ? 0 : (c >= (float)(n - 1) ? n - 1 : (int)c);
                assert_int_equal(sinew__grid_cell(values[v], 0.25f, inv, n), expected);
            }
        }
    }
    // And every cell of a row of 100, from just below to just above each edge.
    for (int k = 0; k < 100; ++k) {
        for (int d = -2; d <= 2; ++d) {
            const float x = nextafterf((float)k, d < 0 ? -INFINITY : INFINITY) + (float)d * 1e-3f;
            const float c = floorf(x);
            const int expected = !(c >= 0.0f) ? 0 : (c >= 99.0f ? 99 : (int)c);
            assert_int_equal(sinew__grid_cell(x, 0.0f, 1.0f, 100), expected);
        }
    }
}

// The grid's bounds are kept in eight lanes per item of particles and merged: the origin, the
// largest radius, the colliding count and the margin are those of one pass over the colliding
// particles, whether the items are whole groups of eight or not (grain 1000: items of a few
// particles), and whatever lies outside them (particles that do not collide, far away and large).
static void the_grid_bounds_are_those_of_the_colliding_particles(void **state)
{
    (void)state;
    const int counts[] = {1003, 5000};
    const int grains[] = {1, 1000};
    for (int c = 0; c < 2; ++c) {
        for (int g = 0; g < 2; ++g) {
            sinew_world_def wd = sinew_default_world_def();
            wd.workers = 2;
            sinew_world *w = NULL;
            assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
            w->tasks.grain = grains[g];
            uint32_t seed = 12345u + (uint32_t)c;
            for (int k = 0; k < counts[c]; ++k) {
                sinew_particle_def d = sinew_default_particle_def();
                seed = seed * 1664525u + 1013904223u;
                d.position = sinew_vec2_make((float)(seed >> 8) * 1e-5f - 40.0f, (float)(seed & 0xffffu) * 1e-3f - 20.0f);
                d.radius = 0.05f + (float)(seed % 97u) * 0.003f;
                if (k % 7 == 3) { // does not collide: far, large, fast
                    d.flags = 0u;
                    d.position = sinew_vec2_make(-1000.0f, 5000.0f);
                    d.radius = 5.0f;
                }
                assert_int_equal(sinew_particle_create(w, &d, NULL), SINEW_OK);
            }
            sinew__particles *p = &w->particles;
            float minx = INFINITY, miny = INFINITY, maxr = 0.0f, min_dx = 0.0f, max_dx = 0.0f, min_dy = 0.0f, max_dy = 0.0f;
            int m = 0;
            for (int i = 0; i < p->count; ++i) {
                seed = seed * 1664525u + 1013904223u;
                p->dx[i] = (float)(seed % 2001u) * 1e-5f - 0.01f;
                p->dy[i] = (p->flags[i] & SINEW_PARTICLE_COLLIDES) != 0u ? (float)(seed % 1003u) * -1e-5f : 3.0f;
                if ((p->flags[i] & SINEW_PARTICLE_COLLIDES) != 0u) {
                    minx = fminf(minx, p->x[i]);
                    miny = fminf(miny, p->y[i]);
                    maxr = fmaxf(maxr, p->radius[i]);
                    min_dx = fminf(min_dx, p->dx[i]);
                    max_dx = fmaxf(max_dx, p->dx[i]);
                    min_dy = fminf(min_dy, p->dy[i]);
                    max_dy = fmaxf(max_dy, p->dy[i]);
                    m += 1;
                }
            }
            assert_true(sinew__grid_build(w, 1, 0.0f));
            const sinew__grid *grid = &w->grid;
            assert_true(grid->minx == minx && grid->miny == miny);
            assert_true(grid->max_radius == maxr);
            assert_int_equal(grid->placed, m);
            assert_int_equal(grid->sorted_count, m);
            const float half_x = 0.5f * (max_dx - min_dx), half_y = 0.5f * (max_dy - min_dy);
            assert_true(grid->ahead == 1);
            assert_true(grid->margin == sqrtf(half_x * half_x + half_y * half_y));
            sinew_world_destroy(w);
        }
    }
}

// ---- 8. the collider API ----------------------------------------------------------------------

// Calls one create function with the given arguments (a table of refusals below).
typedef enum shape_kind { PLANE, CIRCLE, SEGMENT, BOX, POLYGON, BOUNDS } shape_kind;

typedef struct create_call {
    const char *what;
    shape_kind kind;
    bool null_world, null_def;
    sinew_collider_def def;
    sinew_vec2 a, b;       // plane: normal, -; circle: centre; segment: a, b; box/bounds: min, max
    float scalar;          // plane offset, circle/segment/polygon radius
    const sinew_vec2 *vertices;
    int count;
    sinew_status expected;
} create_call;

static sinew_status call_create(sinew_world *w, const create_call *c, sinew_collider_id *out)
{
    sinew_world *world = c->null_world ? NULL : w;
    const sinew_collider_def *def = c->null_def ? NULL : &c->def;
    switch (c->kind) {
    case PLANE:
        return sinew_plane_collider_create(world, def, c->a, c->scalar, out);
    case CIRCLE:
        return sinew_circle_collider_create(world, def, c->a, c->scalar, out);
    case SEGMENT:
        return sinew_segment_collider_create(world, def, c->a, c->b, c->scalar, out);
    case BOX:
        return sinew_box_collider_create(world, def, c->a, c->b, out);
    case POLYGON:
        return sinew_polygon_collider_create(world, def, c->vertices, c->count, c->scalar, out);
    case BOUNDS: {
        sinew_collider_id four[4] = {*out, *out, *out, *out};
        sinew_status s = sinew_world_bounds_create(world, def, c->a, c->b, four);
        for (int k = 0; k < 4 && s != SINEW_OK; ++k) {
            assert_true(same_collider(four[k], *out)); // untouched on failure
        }
        *out = four[0];
        return s;
    }
    }
    return SINEW_OK;
}

static const sinew_vec2 square[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
static const sinew_vec2 dart[4] = {{0, 0}, {2, 1}, {4, 0}, {2, 3}};        // a reflex corner at (2, 1)
static const sinew_vec2 collinear[5] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {0, 1}}; // a straight corner
static const sinew_vec2 repeated[4] = {{0, 0}, {1, 0}, {1, 0}, {0, 1}};       // a zero-length edge
static const sinew_vec2 bad_vertex[3] = {{0, 0}, {NAN, 0}, {0, 1}};
static const sinew_vec2 many[SINEW_POLYGON_MAX_VERTICES + 1] = {{0}};

static void every_collider_create_refuses_bad_input_and_creates_nothing(void **state)
{
    (void)state;
    const sinew_collider_def ok = sinew_default_collider_def();
    sinew_collider_def nan_mu = ok, inf_mu_k = ok, neg_mu = ok, neg_mu_k = ok;
    nan_mu.friction = NAN;
    inf_mu_k.kinetic_friction = INFINITY;
    neg_mu.friction = -0.1f;
    neg_mu_k.kinetic_friction = -1.0f;
    const sinew_vec2 o = {0, 0}, x1 = {1, 0}, y1 = {0, 1}, v11 = {1, 1}, nan2 = {NAN, 0}, inf2 = {0, -INFINITY};
    const create_call calls[] = {
        {"plane, world NULL", PLANE, true, false, ok, y1, o, 0, NULL, 0, SINEW_ERR_NULL_ARGUMENT},
        {"plane, def NULL", PLANE, false, true, ok, y1, o, 0, NULL, 0, SINEW_ERR_NULL_ARGUMENT},
        {"plane, NaN normal", PLANE, false, false, ok, nan2, o, 0, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"plane, infinite normal", PLANE, false, false, ok, inf2, o, 0, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"plane, NaN offset", PLANE, false, false, ok, y1, o, NAN, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"plane, zero normal", PLANE, false, false, ok, o, o, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"plane, NaN friction", PLANE, false, false, nan_mu, y1, o, 0, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"plane, infinite kinetic friction", PLANE, false, false, inf_mu_k, y1, o, 0, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"plane, negative friction", PLANE, false, false, neg_mu, y1, o, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"plane, negative kinetic friction", PLANE, false, false, neg_mu_k, y1, o, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"circle, world NULL", CIRCLE, true, false, ok, o, o, 1, NULL, 0, SINEW_ERR_NULL_ARGUMENT},
        {"circle, def NULL", CIRCLE, false, true, ok, o, o, 1, NULL, 0, SINEW_ERR_NULL_ARGUMENT},
        {"circle, NaN centre", CIRCLE, false, false, ok, nan2, o, 1, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"circle, NaN radius", CIRCLE, false, false, ok, o, o, NAN, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"circle, zero radius", CIRCLE, false, false, ok, o, o, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"circle, negative radius", CIRCLE, false, false, ok, o, o, -1, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"circle, negative friction", CIRCLE, false, false, neg_mu, o, o, 1, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"segment, world NULL", SEGMENT, true, false, ok, o, x1, 0, NULL, 0, SINEW_ERR_NULL_ARGUMENT},
        {"segment, def NULL", SEGMENT, false, true, ok, o, x1, 0, NULL, 0, SINEW_ERR_NULL_ARGUMENT},
        {"segment, NaN end", SEGMENT, false, false, ok, o, nan2, 0, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"segment, infinite radius", SEGMENT, false, false, ok, o, x1, INFINITY, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"segment, negative radius", SEGMENT, false, false, ok, o, x1, -0.1f, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"segment, a == b", SEGMENT, false, false, ok, x1, x1, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"segment, NaN friction", SEGMENT, false, false, nan_mu, o, x1, 0, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"box, world NULL", BOX, true, false, ok, o, v11, 0, NULL, 0, SINEW_ERR_NULL_ARGUMENT},
        {"box, def NULL", BOX, false, true, ok, o, v11, 0, NULL, 0, SINEW_ERR_NULL_ARGUMENT},
        {"box, NaN min", BOX, false, false, ok, nan2, v11, 0, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"box, infinite max", BOX, false, false, ok, o, inf2, 0, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"box, empty in x", BOX, false, false, ok, o, y1, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"box, empty in y", BOX, false, false, ok, o, x1, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"box, inverted", BOX, false, false, ok, v11, o, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"box, negative kinetic friction", BOX, false, false, neg_mu_k, o, v11, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"polygon, world NULL", POLYGON, true, false, ok, o, o, 0, square, 4, SINEW_ERR_NULL_ARGUMENT},
        {"polygon, def NULL", POLYGON, false, true, ok, o, o, 0, square, 4, SINEW_ERR_NULL_ARGUMENT},
        {"polygon, vertices NULL", POLYGON, false, false, ok, o, o, 0, NULL, 4, SINEW_ERR_NULL_ARGUMENT},
        {"polygon, 2 vertices", POLYGON, false, false, ok, o, o, 0, square, 2, SINEW_ERR_OUT_OF_RANGE},
        {"polygon, too many vertices", POLYGON, false, false, ok, o, o, 0, many, SINEW_POLYGON_MAX_VERTICES + 1,
         SINEW_ERR_OUT_OF_RANGE},
        {"polygon, NaN vertex", POLYGON, false, false, ok, o, o, 0, bad_vertex, 3, SINEW_ERR_NOT_FINITE},
        {"polygon, NaN radius", POLYGON, false, false, ok, o, o, NAN, square, 4, SINEW_ERR_NOT_FINITE},
        {"polygon, negative radius", POLYGON, false, false, ok, o, o, -0.5f, square, 4, SINEW_ERR_OUT_OF_RANGE},
        {"polygon, non-convex", POLYGON, false, false, ok, o, o, 0, dart, 4, SINEW_ERR_OUT_OF_RANGE},
        {"polygon, collinear corner", POLYGON, false, false, ok, o, o, 0, collinear, 5, SINEW_ERR_OUT_OF_RANGE},
        {"polygon, repeated vertex", POLYGON, false, false, ok, o, o, 0, repeated, 4, SINEW_ERR_OUT_OF_RANGE},
        {"polygon, NaN friction", POLYGON, false, false, nan_mu, o, o, 0, square, 4, SINEW_ERR_NOT_FINITE},
        {"bounds, world NULL", BOUNDS, true, false, ok, o, v11, 0, NULL, 0, SINEW_ERR_NULL_ARGUMENT},
        {"bounds, def NULL", BOUNDS, false, true, ok, o, v11, 0, NULL, 0, SINEW_ERR_NULL_ARGUMENT},
        {"bounds, NaN min", BOUNDS, false, false, ok, nan2, v11, 0, NULL, 0, SINEW_ERR_NOT_FINITE},
        {"bounds, empty", BOUNDS, false, false, ok, o, x1, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
        {"bounds, negative friction", BOUNDS, false, false, neg_mu, o, v11, 0, NULL, 0, SINEW_ERR_OUT_OF_RANGE},
    };
    sinew_world *w = new_world(SINEW_SOLVER_GAUSS_SEIDEL, earth, 4, 8);
    // One collider already there, so that "creates nothing" is checked against a non-empty store.
    sinew_collider_id first;
    assert_int_equal(sinew_circle_collider_create(w, &ok, sinew_vec2_make(9, 9), 1.0f, &first), SINEW_OK);
    const sinew_collider_id marker = {0xabcu, 0xdefu};
    for (size_t k = 0; k < sizeof calls / sizeof calls[0]; ++k) {
        sinew_collider_id out = marker;
        const sinew_status s = call_create(w, &calls[k], &out);
        assert_status(s, calls[k].expected, "%s", calls[k].what);
        assert_true(same_collider(out, marker));
        assert_int_equal(sinew_world_collider_count(w), 1);
        if (!calls[k].null_world) {
            assert_true(strlen(sinew_world_last_error(w)) > 0);
        }
    }
    assert_true(sinew_collider_is_valid(w, first));
    sinew_world_destroy(w);

    // CAPACITY: max_constraints caps the colliders too; world bounds stop half-way and undo.
    sinew_world_def def = sinew_default_world_def();
    def.max_constraints = 2;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    assert_int_equal(sinew_world_bounds_create(w, &ok, o, v11, NULL), SINEW_ERR_CAPACITY);
    assert_int_equal(sinew_world_collider_count(w), 0);
    assert_int_equal(sinew_plane_collider_create(w, &ok, y1, 0, NULL), SINEW_OK);
    assert_int_equal(sinew_circle_collider_create(w, &ok, o, 1, NULL), SINEW_OK);
    assert_int_equal(sinew_box_collider_create(w, &ok, o, v11, NULL), SINEW_ERR_CAPACITY);
    assert_int_equal(sinew_world_collider_count(w), 2);
    sinew_world_destroy(w);

    // OUT_OF_MEMORY: the first collider needs the store; an allocator that refuses leaves none.
    counting_allocator c;
    def = sinew_default_world_def();
    def.allocator = counting_allocator_make(&c);
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    c.fail_after = (int64_t)c.allocs;
    sinew_collider_id out = marker;
    assert_int_equal(sinew_plane_collider_create(w, &ok, y1, 0, &out), SINEW_ERR_OUT_OF_MEMORY);
    assert_int_equal(sinew_segment_collider_create(w, &ok, o, x1, 0, &out), SINEW_ERR_OUT_OF_MEMORY);
    assert_int_equal(sinew_polygon_collider_create(w, &ok, square, 4, 0, &out), SINEW_ERR_OUT_OF_MEMORY);
    assert_int_equal(sinew_world_bounds_create(w, &ok, o, v11, NULL), SINEW_ERR_OUT_OF_MEMORY);
    assert_true(same_collider(out, marker));
    assert_int_equal(sinew_world_collider_count(w), 0);
    c.fail_after = -1;
    assert_int_equal(sinew_plane_collider_create(w, &ok, y1, 0, &out), SINEW_OK);
    assert_int_equal(sinew_world_collider_count(w), 1);
    sinew_world_destroy(w);
    assert_true(c.live_bytes == 0u);
}

// Shoelace area (positive when counter-clockwise).
static double signed_area(const sinew_vec2 *v, int n)
{
    double a = 0.0;
    for (int k = 0; k < n; ++k) {
        a += (double)v[k].x * v[(k + 1) % n].y - (double)v[(k + 1) % n].x * v[k].y;
    }
    return 0.5 * a;
}

// True when `got` is `want` rotated (same cyclic order, any starting vertex).
static bool same_cycle(const sinew_vec2 *got, const sinew_vec2 *want, int n)
{
    for (int start = 0; start < n; ++start) {
        bool all = true;
        for (int k = 0; k < n && all; ++k) {
            all = got[(start + k) % n].x == want[k].x && got[(start + k) % n].y == want[k].y;
        }
        if (all) {
            return true;
        }
    }
    return false;
}

static void collider_shapes_read_back_as_made(void **state)
{
    (void)state;
    sinew_world *w = new_world(SINEW_SOLVER_GAUSS_SEIDEL, earth, 4, 8);
    const sinew_collider_def def = sinew_default_collider_def();
    sinew_collider_shape s;

    // Plane: the normal comes back normalised and the offset divided by its length, so that the
    // free side dot(n, x) >= offset is the same set: (3, 4) . x >= 10 is (0.6, 0.8) . x >= 2.
    sinew_collider_id plane;
    assert_int_equal(sinew_plane_collider_create(w, &def, sinew_vec2_make(3, 4), 10.0f, &plane), SINEW_OK);
    assert_int_equal(sinew_collider_get_shape(w, plane, &s), SINEW_OK);
    assert_int_equal(s.type, SINEW_COLLIDER_PLANE);
    assert_near(s.normal.x, 0.6f, 1e-6f); // one division each: within a few ulps of 1
    assert_near(s.normal.y, 0.8f, 1e-6f);
    assert_near(sinew_vec2_length(s.normal), 1.0f, 1e-6f);
    assert_near(s.offset, 2.0f, 1e-6f);

    sinew_collider_id circle;
    assert_int_equal(sinew_circle_collider_create(w, &def, sinew_vec2_make(-2, 3), 1.5f, &circle), SINEW_OK);
    assert_int_equal(sinew_collider_get_shape(w, circle, &s), SINEW_OK);
    assert_int_equal(s.type, SINEW_COLLIDER_POLYGON);
    assert_int_equal(s.vertex_count, 1);
    assert_true(s.vertices[0].x == -2.0f && s.vertices[0].y == 3.0f && s.radius == 1.5f);

    sinew_collider_id segment;
    const sinew_vec2 sa = {1, 2}, sb = {4, -1};
    assert_int_equal(sinew_segment_collider_create(w, &def, sa, sb, 0.25f, &segment), SINEW_OK);
    assert_int_equal(sinew_collider_get_shape(w, segment, &s), SINEW_OK);
    assert_int_equal(s.type, SINEW_COLLIDER_POLYGON);
    assert_int_equal(s.vertex_count, 2);
    assert_true(s.vertices[0].x == 1.0f && s.vertices[0].y == 2.0f && s.vertices[1].x == 4.0f &&
                s.vertices[1].y == -1.0f && s.radius == 0.25f);

    // Box: the four corners, counter-clockwise, radius 0.
    sinew_collider_id box;
    assert_int_equal(sinew_box_collider_create(w, &def, sinew_vec2_make(-1, 2), sinew_vec2_make(3, 5), &box), SINEW_OK);
    assert_int_equal(sinew_collider_get_shape(w, box, &s), SINEW_OK);
    assert_int_equal(s.type, SINEW_COLLIDER_POLYGON);
    assert_int_equal(s.vertex_count, 4);
    const sinew_vec2 corners[4] = {{-1, 2}, {3, 2}, {3, 5}, {-1, 5}};
    assert_true(same_cycle(s.vertices, corners, 4));
    assert_true(signed_area(s.vertices, 4) == 12.0);
    assert_true(s.radius == 0.0f);

    // Polygons in either winding come back counter-clockwise with the same vertices.
    const sinew_vec2 ccw[5] = {{0, 0}, {2, -1}, {4, 0}, {3, 2}, {1, 2}};
    sinew_vec2 cw[5];
    for (int k = 0; k < 5; ++k) {
        cw[k] = ccw[4 - k];
    }
    sinew_collider_id pa, pb;
    assert_int_equal(sinew_polygon_collider_create(w, &def, ccw, 5, 0.1f, &pa), SINEW_OK);
    assert_int_equal(sinew_polygon_collider_create(w, &def, cw, 5, 0.0f, &pb), SINEW_OK);
    cw[0] = sinew_vec2_make(99, 99); // the vertices were copied
    assert_int_equal(sinew_collider_get_shape(w, pa, &s), SINEW_OK);
    assert_int_equal(s.vertex_count, 5);
    assert_true(same_cycle(s.vertices, ccw, 5));
    assert_true(s.radius == 0.1f);
    assert_int_equal(sinew_collider_get_shape(w, pb, &s), SINEW_OK);
    assert_int_equal(s.vertex_count, 5);
    assert_true(same_cycle(s.vertices, ccw, 5));
    assert_true(signed_area(s.vertices, 5) > 0.0);
    // A triangle and a 16-gon (the most vertices allowed).
    sinew_vec2 ring[SINEW_POLYGON_MAX_VERTICES];
    for (int k = 0; k < SINEW_POLYGON_MAX_VERTICES; ++k) {
        ring[k] = rotate(sinew_vec2_make(2, 0), -360.0f * (float)k / SINEW_POLYGON_MAX_VERTICES); // clockwise
    }
    assert_int_equal(sinew_polygon_collider_create(w, &def, ring, SINEW_POLYGON_MAX_VERTICES, 0.0f, &pb), SINEW_OK);
    assert_int_equal(sinew_collider_get_shape(w, pb, &s), SINEW_OK);
    assert_int_equal(s.vertex_count, SINEW_POLYGON_MAX_VERTICES);
    assert_true(signed_area(s.vertices, SINEW_POLYGON_MAX_VERTICES) > 0.0);
    assert_int_equal(sinew_polygon_collider_create(w, &def, ring, 3, 0.0f, &pb), SINEW_OK);

    // World bounds: floor, ceiling, left, right, each facing into the box.
    sinew_collider_id four[4];
    assert_int_equal(sinew_world_bounds_create(w, &def, sinew_vec2_make(-1, -2), sinew_vec2_make(5, 7), four),
                     SINEW_OK);
    const sinew_vec2 normals[4] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};
    const float offsets[4] = {-2, -7, -1, -5};
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(sinew_collider_get_shape(w, four[k], &s), SINEW_OK);
        assert_int_equal(s.type, SINEW_COLLIDER_PLANE);
        assert_true(s.normal.x == normals[k].x && s.normal.y == normals[k].y && s.offset == offsets[k]);
    }
    assert_int_equal(sinew_world_collider_count(w), 12);
    assert_int_equal(sinew_collider_get_shape(NULL, box, &s), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_collider_get_shape(w, box, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_collider_get_shape(w, (sinew_collider_id)SINEW_NULL_ID, &s), SINEW_ERR_INVALID_ID);
    sinew_world_destroy(w);
}

static void destroying_a_collider_invalidates_its_id_and_keeps_the_others(void **state)
{
    (void)state;
    sinew_world *w = new_world(SINEW_SOLVER_GAUSS_SEIDEL, earth, 4, 8);
    sinew_collider_def def = sinew_default_collider_def();
    int tags[5];
    sinew_collider_id ids[5];
    for (int k = 0; k < 5; ++k) {
        def.user_data = &tags[k];
        assert_int_equal(sinew_circle_collider_create(w, &def, sinew_vec2_make((float)k, 0), 1.0f + (float)k, &ids[k]),
                         SINEW_OK);
        assert_true(sinew_collider_user_data(w, ids[k]) == &tags[k]);
    }
    assert_int_equal(sinew_collider_destroy(w, ids[1]), SINEW_OK); // the last one moves into its place
    assert_false(sinew_collider_is_valid(w, ids[1]));
    assert_null(sinew_collider_user_data(w, ids[1]));
    sinew_collider_shape s;
    assert_int_equal(sinew_collider_get_shape(w, ids[1], &s), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_collider_destroy(w, ids[1]), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_collider_destroy(NULL, ids[0]), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_collider_destroy(w, (sinew_collider_id)SINEW_NULL_ID), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_world_collider_count(w), 4);
    // The others keep their shapes and user data, whatever their dense index now.
    for (int k = 0; k < 5; ++k) {
        if (k == 1) {
            continue;
        }
        assert_true(sinew_collider_is_valid(w, ids[k]));
        assert_true(sinew_collider_user_data(w, ids[k]) == &tags[k]);
        assert_int_equal(sinew_collider_get_shape(w, ids[k], &s), SINEW_OK);
        assert_true(s.vertices[0].x == (float)k && s.radius == 1.0f + (float)k);
    }
    // id_at lists exactly the live ones.
    int seen = 0;
    for (int i = 0; i < sinew_world_collider_count(w); ++i) {
        sinew_collider_id id = sinew_collider_id_at(w, i);
        for (int k = 0; k < 5; ++k) {
            seen += same_collider(id, ids[k]) ? 1 << k : 0;
        }
    }
    assert_int_equal(seen, 1 + 4 + 8 + 16);
    assert_true(SINEW_ID_IS_NULL(sinew_collider_id_at(w, 4)));
    assert_true(SINEW_ID_IS_NULL(sinew_collider_id_at(w, -1)));
    // A new collider may reuse the slot, never the old id.
    sinew_collider_id again;
    assert_int_equal(sinew_circle_collider_create(w, &def, sinew_vec2_make(0, 0), 1.0f, &again), SINEW_OK);
    assert_false(same_collider(again, ids[1]));
    assert_false(sinew_collider_is_valid(w, ids[1]));
    // A destroyed collider no longer stops anything: a ball dropped through where the box was.
    sinew_collider_id box;
    assert_int_equal(sinew_box_collider_create(w, &def, sinew_vec2_make(20, -1), sinew_vec2_make(30, 0), &box),
                     SINEW_OK);
    assert_int_equal(sinew_collider_destroy(w, box), SINEW_OK);
    sinew_particle_id ball = add_ball(w, sinew_vec2_make(25, 1), 0.5f, 1.0f);
    step_n(w, 60);
    assert_true(position_of(w, ball).y < -2.0f);
    sinew_world_destroy(w);
}

// A world where no particle collides skips the grid's bounds pass (it knows from the particles'
// summary); a flag that makes one collide, a destroy and a loaded copy are each seen at the next
// step. Two overlapping balls stay overlapped while they do not collide, and are pushed apart once
// they do; turned off again, the one left colliding is placed alone and meets no one.
static void nothing_collides_until_a_flag_says_so(void **state)
{
    (void)state;
    for (int m = 0; m < MODE_COUNT; ++m) {
        const sinew_vec2 still = {0.0f, 0.0f};
        sinew_world *w = new_world(modes[m], still, 4, 8);
        const sinew_particle_id a = add_ball(w, sinew_vec2_make(0.0f, 0.0f), 0.5f, 1.0f);
        const sinew_particle_id b = add_ball(w, sinew_vec2_make(0.5f, 0.0f), 0.5f, 1.0f);
        assert_int_equal(sinew_particle_set_flags(w, a, 0u), SINEW_OK);
        assert_int_equal(sinew_particle_set_flags(w, b, 0u), SINEW_OK);
        step_n(w, 5);
        assert_false(w->particles.materials.any);
        assert_int_equal(w->grid.placed, 0);
        assert_int_equal(w->contacts.l.count, 0);
        assert_float_equal(position_of(w, b).x - position_of(w, a).x, 0.5f, 1e-6f);
        // Both collide from the next step on.
        assert_int_equal(sinew_particle_set_flags(w, a, SINEW_PARTICLE_COLLIDES), SINEW_OK);
        assert_int_equal(sinew_particle_set_flags(w, b, SINEW_PARTICLE_COLLIDES), SINEW_OK);
        step_n(w, 1);
        assert_true(w->particles.materials.any);
        assert_int_equal(w->grid.placed, 2);
        assert_int_equal(w->contacts.l.count, 1);
        step_n(w, 30);
        assert_true(position_of(w, b).x - position_of(w, a).x > 0.99f);
        // A saved copy collides as the world does.
        size_t size = sinew_world_save_size(w), written = 0;
        uint8_t *buf = malloc(size);
        assert_non_null(buf);
        assert_int_equal(sinew_world_save(w, buf, size, &written), SINEW_OK);
        // a off: b is placed alone.
        assert_int_equal(sinew_particle_set_flags(w, a, 0u), SINEW_OK);
        step_n(w, 1);
        assert_int_equal(w->grid.placed, 1);
        assert_int_equal(w->contacts.l.count, 0);
        // b gone: nothing collides any more.
        assert_int_equal(sinew_particle_destroy(w, b), SINEW_OK);
        step_n(w, 1);
        assert_false(w->particles.materials.any);
        assert_int_equal(w->grid.placed, 0);
        sinew_world *copy = NULL;
        assert_int_equal(sinew_world_load(buf, written, NULL, &copy), SINEW_OK);
        step_n(copy, 1);
        assert_true(copy->particles.materials.any);
        assert_int_equal(copy->grid.placed, 2);
        free(buf);
        sinew_world_destroy(copy);
        sinew_world_destroy(w);
    }
}

static void world_bounds_keep_balls_inside(void **state)
{
    (void)state;
    const sinew_vec2 min = {-4, -3}, max = {6, 5};
    for (int m = 0; m < MODE_COUNT; ++m) {
        sinew_world *w = new_world(modes[m], earth, 4, 8);
        sinew_collider_def def = sinew_default_collider_def();
        def.friction = def.kinetic_friction = 0.0f;
        assert_int_equal(sinew_world_bounds_create(w, &def, min, max, NULL), SINEW_OK);
        assert_int_equal(sinew_world_collider_count(w), 4);
        uint64_t rng = 7u;
        enum { BALLS = 30 };
        sinew_particle_id ids[BALLS];
        for (int k = 0; k < BALLS; ++k) { // fast, in every direction
            const float angle = (float)uniform(&rng, 0, 360); // (then the speed: see uniform_vec2)
            const sinew_vec2 v = rotate(sinew_vec2_make((float)uniform(&rng, 10, 60), 0), angle);
            ids[k] = add_moving_ball(w, uniform_vec2(&rng, -3, 5, -2, 4), v, 0.3f);
        }
        float depth = 0.0f;
        for (int s = 0; s < 300; ++s) {
            if (s % 60 == 0) { // turn gravity around now and then, so balls keep hitting every wall
                assert_int_equal(sinew_world_set_gravity(w, rotate(earth, 90.0f * (float)(s / 60))), SINEW_OK);
            }
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            for (int k = 0; k < BALLS; ++k) {
                const sinew_vec2 p = position_of(w, ids[k]);
                assert_true(p.x > min.x && p.x < max.x && p.y > min.y && p.y < max.y);
                depth = fmaxf(depth, fmaxf(fmaxf(min.x + 0.3f - p.x, p.x + 0.3f - max.x),
                                           fmaxf(min.y + 0.3f - p.y, p.y + 0.3f - max.y)));
            }
        }
        print_message("world bounds, %s: deepest a ball went into a wall %.3g m (radius 0.3)\n", mode_name(modes[m]),
                      (double)depth);
        // Other balls push a ball into a wall within the iterations. Measured: 0.0138 m (Gauss-
        // Seidel) and 0.0118 m (Jacobi), under 5% of the radius; bound 10% of the radius.
        assert_true(depth < 0.1f * 0.3f);
        sinew_world_destroy(w);
    }
}

// ---- 8b. scratch only for what the world does ---------------------------------------------------

// The arrays of a Gauss-Seidel pile: no Jacobi sums or layout, no area gradients, no event
// velocities, no adjacency (nothing is linked), no per-contact shares (one kind of ball); the
// collision scratch is the motion records' 32 bytes per particle (the grid's and the search's
// arrays live in them) and the collider marks' byte (made while the grid is sorted). Switching to Jacobi brings its arrays (kept when switching back); a cloth
// that collides with nothing holds no collision scratch.
static void a_gauss_seidel_pile_holds_no_jacobi_arrays(void **state)
{
    (void)state;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(NULL, &w), SINEW_OK);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 2000;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    for (int s = 0; s < 30; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    const sinew__particles *p = &w->particles;
    assert_true(w->contacts.l.count > 0);
    assert_null(p->acc);
    assert_null(p->inv_n);
    assert_null(p->jacobi_x);
    assert_null(p->jacobi_y);
    assert_null(p->grad_x);
    assert_null(p->vx0);
    assert_null(p->link_n);
    assert_null(w->distances.order);
    assert_null(w->distances.run_start);
    assert_null(w->distances.adj);
    assert_null(w->distances.l.perm);
    assert_null(w->contacts.share_i);
    assert_non_null(p->motion);
    assert_non_null(p->cell_x);
    assert_true(p->needs == SINEW__NEED_COLLIDE);
    // The motion records (which hold the grid's and the search's arrays), the collider marks and
    // the items' pack flags (a byte a particle each, the flags using one in 1,024 of theirs).
    assert_true(p->scratch[0].bytes <= (sizeof(sinew__motion) + 2u) * (size_t)p->store.capacity + 4u * 64u); // (each array 64-byte aligned)
    for (int g = 1; g < SINEW__PARTICLE_GROUPS; ++g) {
        assert_null(p->scratch[g].block);
    }

    sinew_solver_def sd = sinew_world_get_solver(w);
    sd.mode = SINEW_SOLVER_JACOBI;
    assert_int_equal(sinew_world_set_solver(w, &sd), SINEW_OK);
    assert_non_null(p->acc);
    assert_non_null(p->inv_n);
    assert_non_null(w->distances.order);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    sd.mode = SINEW_SOLVER_GAUSS_SEIDEL;
    assert_int_equal(sinew_world_set_solver(w, &sd), SINEW_OK);
    assert_non_null(p->acc); // kept: switching back and forth allocates nothing once warm
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    sinew_world_destroy(w);

    assert_int_equal(sinew_world_create(NULL, &w), SINEW_OK);
    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.columns = cd.rows = 20;
    assert_int_equal(sinew_cloth_create(w, &cd, NULL), SINEW_OK);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    assert_true(w->particles.needs == 0u);
    assert_null(w->particles.motion);
    assert_null(w->particles.sorted);
    assert_null(w->distances.order);
    assert_null(w->distances.adj);
    // A colliding particle brings the collision scratch, and with linked particles the adjacency.
    sinew_particle_def ball = sinew_default_particle_def();
    assert_int_equal(sinew_particle_create(w, &ball, NULL), SINEW_OK);
    assert_non_null(w->particles.motion);
    assert_non_null(w->particles.link_n);
    assert_non_null(w->distances.adj);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    sinew_world_destroy(w);
}

// A world in `mode` at 4 x 8 under earth's gravity, holding a default pile of `count` balls.
static sinew_world *pile_world(sinew_solver_mode mode, int count)
{
    sinew_world *w = new_world(mode, earth, 4, 8);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = count;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    return w;
}

// A Jacobi world whose search runs on one thread holds one contact array: the search writes into
// the solved contacts' array and the split sorts it in place (see sinew__contacts). A search in
// Gauss-Seidel mode, or one over the workers, brings the second array for good: switching back
// and forth then allocates nothing.
static void a_jacobi_pile_holds_one_contact_array(void **state)
{
    (void)state;
    sinew_world *w = pile_world(SINEW_SOLVER_JACOBI, 2000);
    step_n(w, 150);
    const sinew__contacts *k = &w->contacts;
    assert_true(k->l.count > 2000); // (it has settled into its contacts)
    assert_true(k->one_array && k->in_line && k->found == k->l.c && k->pending == k->l.c + k->l.count);
    // The solved contacts, their block flags and spans: no second array of 16 bytes a contact.
    assert_true(k->block_bytes <= (sizeof(sinew__distance) + 2u) * (size_t)k->capacity + 5u * 64u);
    const size_t one = sinew_world_byte_count(w);

    sinew_solver_def sd = sinew_world_get_solver(w);
    for (int round = 0; round < 2; ++round) {
        sd.mode = SINEW_SOLVER_GAUSS_SEIDEL;
        assert_int_equal(sinew_world_set_solver(w, &sd), SINEW_OK);
        step_n(w, 1);
        assert_true(!k->one_array && k->found != k->l.c && !k->in_line);
        sd.mode = SINEW_SOLVER_JACOBI;
        assert_int_equal(sinew_world_set_solver(w, &sd), SINEW_OK);
        step_n(w, 1);
        assert_true(!k->one_array && k->found != k->l.c && k->in_line && k->pending == k->l.c + k->l.count);
    }
    const size_t two = sinew_world_byte_count(w);
    assert_true(two >= one + sizeof(sinew__distance) * (size_t)k->capacity);
    sd.mode = SINEW_SOLVER_GAUSS_SEIDEL; // (warm: the same bytes)
    assert_int_equal(sinew_world_set_solver(w, &sd), SINEW_OK);
    step_n(w, 1);
    assert_true(sinew_world_byte_count(w) == two);
    sinew_world_destroy(w);

    // Over the workers (the tests' grain makes this pile large enough to search in bands): two.
    w = pile_world(SINEW_SOLVER_JACOBI, 2000);
    assert_int_equal(sinew_world_set_workers(w, 2), SINEW_OK);
    w->tasks.grain = 8;
    step_n(w, 30);
    assert_true(!w->contacts.one_array && w->contacts.found != w->contacts.l.c && w->contacts.in_line);
    sinew_world_destroy(w);
}

// Small balls 0.25 m apart (none within the contact reach of another) and a large one flying by:
// its speed makes the motion margin wide, so the search finds each small ball's neighbours out to
// 0.6 m, about ten pending contacts a ball, more than the motion records' memory holds while
// Jacobi's one array is split; the arrays then grow for them. The same state as with two arrays
// (over the workers, searched in bands).
static sinew_world *pending_crowd(int workers, counting_allocator *ca)
{
    sinew_world_def def = sinew_default_world_def();
    def.solver.mode = SINEW_SOLVER_JACOBI;
    def.gravity = no_gravity;
    def.workers = workers;
    if (ca != NULL) {
        def.allocator = counting_allocator_make(ca);
    }
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    w->tasks.grain = 16; // (the search runs in bands from 512 balls)
    for (int k = 0; k < 30 * 30; ++k) {
        add_ball(w, sinew_vec2_make(0.25f * (float)(k % 30), 0.25f * (float)(k / 30)), 0.1f, 1.0f);
    }
    sinew_particle_def big = sinew_default_particle_def();
    big.position = sinew_vec2_make(-8.0f, 3.5f);
    big.velocity = sinew_vec2_make(30.0f, 0.0f);
    big.radius = 1.0f;
    assert_int_equal(sinew_particle_create(w, &big, NULL), SINEW_OK);
    return w;
}

static void pending_contacts_past_the_records_grow_the_one_array(void **state)
{
    (void)state;
    sinew_world *w = pending_crowd(1, NULL);
    step_n(w, 1);
    const sinew__contacts *k = &w->contacts;
    assert_true(k->one_array);
    assert_true(k->pending_count + (k->l.count - 0) > 2 * w->particles.scratch[0].capacity);
    assert_true(k->capacity >= k->l.count + k->pending_count);
    assert_int_equal(sinew_world_stats(w).dropped_contacts, 0);
    step_n(w, 40);
    const uint64_t one = hash_positions(w);
    sinew_world_destroy(w);

    w = pending_crowd(2, NULL);
    step_n(w, 41);
    assert_false(w->contacts.one_array);
    assert_true(hash_positions(w) == one);
    sinew_world_destroy(w);

    // With no memory to grow into, the pending contacts that do not fit are dropped and counted,
    // and the world steps on.
    counting_allocator ca;
    w = pending_crowd(1, &ca);
    step_n(w, 1);
    ca.fail_after = (int64_t)ca.allocs;
    int dropped = 0;
    for (int s = 0; s < 40; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        dropped += sinew_world_stats(w).dropped_contacts;
    }
    assert_true(dropped > 0);
    for (int i = 0; i < w->particles.count; ++i) {
        assert_true(isfinite(w->particles.x[i]) && isfinite(w->particles.y[i]));
    }
    sinew_world_destroy(w);
    assert_int_equal(ca.live_bytes, 0);
}

// A world of the default def holding a pile of 200 balls, their ids in `ids`.
static sinew_world *pile_of_200(sinew_particle_id ids[200])
{
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(NULL, &w), SINEW_OK);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 200;
    sinew_pile pile = {0};
    pile.particles = ids;
    assert_int_equal(sinew_pile_create(w, &pd, &pile), SINEW_OK);
    return w;
}

// Balls of two weights: the contacts keep each one's shares and frictions.
static void a_mixed_pile_keeps_shares_per_contact(void **state)
{
    (void)state;
    sinew_particle_id ids[200];
    sinew_world *w = pile_of_200(ids);
    assert_int_equal(sinew_particle_set_weight(w, ids[0], 0.5f), SINEW_OK);
    for (int s = 0; s < 30; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    assert_false(w->contacts.one_material);
    assert_non_null(w->contacts.share_i);
    sinew_world_destroy(w);
}

// The one-material and one-shape summaries are kept between searches: every change of a
// colliding particle's weight, radius, filter, frictions or flags, a particle created or
// destroyed, and a load, make the next search look again.
static void the_one_material_summary_follows_every_change(void **state)
{
    (void)state;
    sinew_particle_id ids[200];
    sinew_world *w = pile_of_200(ids);
    const sinew_pile_def pd = sinew_default_pile_def(); // (the balls' weight, frictions and radius)
    const uint32_t collides = sinew_default_particle_def().flags;
    assert_true((collides & SINEW_PARTICLE_COLLIDES) != 0u);
    step_n(w, 5);
    assert_true(w->contacts.one_material);
    assert_int_equal(sinew_particle_set_weight(w, ids[0], 0.5f), SINEW_OK);
    step_n(w, 1);
    assert_false(w->contacts.one_material);
    assert_int_equal(sinew_particle_set_weight(w, ids[0], pd.weight), SINEW_OK);
    step_n(w, 1);
    assert_true(w->contacts.one_material);
    assert_int_equal(sinew_particle_set_friction(w, ids[1], 0.1f, 0.1f), SINEW_OK);
    step_n(w, 1);
    assert_false(w->contacts.one_material);
    assert_int_equal(sinew_particle_set_friction(w, ids[1], pd.friction, pd.kinetic_friction), SINEW_OK);
    step_n(w, 1);
    assert_true(w->contacts.one_material);
    // The search's summary (one shape) follows the radii and filters too.
    assert_true(w->grid.shape.one_shape);
    assert_int_equal(sinew_particle_set_radius(w, ids[3], 0.3f), SINEW_OK);
    step_n(w, 1);
    assert_false(w->grid.shape.one_shape);
    assert_true(w->contacts.one_material);
    assert_int_equal(sinew_particle_set_radius(w, ids[3], pd.radius_min), SINEW_OK);
    step_n(w, 1);
    assert_true(w->grid.shape.one_shape);
    const sinew_particle_def ball = sinew_default_particle_def();
    assert_int_equal(sinew_particle_set_filter(w, ids[3], ball.group, ball.mask & ~1u), SINEW_OK);
    step_n(w, 1);
    assert_false(w->grid.shape.one_shape);
    assert_int_equal(sinew_particle_set_filter(w, ids[3], ball.group, ball.mask), SINEW_OK);
    step_n(w, 1);
    assert_true(w->grid.shape.one_shape);
    // A heavier ball counts only while it collides.
    assert_int_equal(sinew_particle_set_weight(w, ids[2], 2.0f), SINEW_OK);
    assert_int_equal(sinew_particle_set_flags(w, ids[2], collides & ~(uint32_t)SINEW_PARTICLE_COLLIDES), SINEW_OK);
    step_n(w, 1);
    assert_true(w->contacts.one_material);
    assert_int_equal(sinew_particle_set_flags(w, ids[2], collides), SINEW_OK);
    step_n(w, 1);
    assert_false(w->contacts.one_material);
    assert_int_equal(sinew_particle_destroy(w, ids[2]), SINEW_OK);
    step_n(w, 1);
    assert_true(w->contacts.one_material);
    sinew_particle_def odd = sinew_default_particle_def();
    odd.position = sinew_vec2_make(3.0f, 2.0f);
    odd.radius = pd.radius_min;
    odd.weight = 3.0f;
    sinew_particle_id odd_id;
    assert_int_equal(sinew_particle_create(w, &odd, &odd_id), SINEW_OK);
    step_n(w, 1);
    assert_false(w->contacts.one_material);
    // A loaded copy looks at its own particles.
    size_t size = sinew_world_save_size(w), written = 0;
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    assert_int_equal(sinew_world_save(w, buf, size, &written), SINEW_OK);
    sinew_world *copy = NULL;
    assert_int_equal(sinew_world_load(buf, written, NULL, &copy), SINEW_OK);
    step_n(copy, 1);
    assert_false(copy->contacts.one_material);
    assert_int_equal(sinew_particle_destroy(copy, odd_id), SINEW_OK);
    step_n(copy, 1);
    assert_true(copy->contacts.one_material);
    free(buf);
    sinew_world_destroy(copy);
    sinew_world_destroy(w);
}

// ---- 9. no allocation once warm; statistics ---------------------------------------------------

static void a_warm_pile_steps_without_allocating(void **state)
{
    (void)state;
    for (int m = 0; m < MODE_COUNT; ++m) {
        counting_allocator c;
        sinew_world_def def = sinew_default_world_def();
        def.solver.mode = modes[m];
        def.allocator = counting_allocator_make(&c);
        sinew_world *w = NULL;
        assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
        sinew_pile_def pd = sinew_default_pile_def();
        pd.count = 400;
        assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
        // Warm-up: contact arrays grow while the pile falls and packs. Measured over 1,500 steps:
        // the last allocation comes at step 114 (Gauss-Seidel) and 151 (Jacobi); 300 steps leave
        // a margin.
        uint64_t last_alloc_step = 0, allocs = c.allocs;
        for (int s = 1; s <= 300; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            if (c.allocs != allocs) {
                allocs = c.allocs;
                last_alloc_step = (uint64_t)s;
            }
        }
        const uint64_t warm = c.allocs, frees = c.frees;
        for (int s = 0; s < 100; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            const sinew_step_stats st = sinew_world_stats(w);
            for (int k = SINEW_KIND_CONTACT; k <= SINEW_KIND_COLLIDER; ++k) {
                assert_true(st.kinds[k].count > 0);
                assert_true(isfinite(st.kinds[k].max_error) && st.kinds[k].max_error >= 0.0f);
                assert_true(isfinite(st.kinds[k].rms_error) && st.kinds[k].rms_error >= 0.0f);
                assert_true(st.kinds[k].rms_error <= st.kinds[k].max_error);
            }
            assert_true(isfinite(st.max_error) && st.max_error >= 0.0f);
            assert_true(isfinite(st.rms_error) && st.rms_error >= 0.0f);
            assert_int_equal(st.dropped_contacts, 0);
            assert_int_equal(st.reset_particles, 0);
        }
        print_message("pile of 400, %s: last allocation at step %d; none in the 100 steps after step 300\n",
                      mode_name(modes[m]), (int)last_alloc_step);
        assert_true(c.allocs == warm);
        assert_true(c.frees == frees);
        sinew_world_destroy(w);
        assert_true(c.live_bytes == 0u);
    }
}

// The contact arrays grow by an eighth past what a search needs (the contacts found so far and
// room for one particle's candidates, under 64 here), not by half: a pouring pile of 1,000 balls
// ends with room for at most an eighth more contacts than it ever found at once (growing by half
// left it 4,112 for 2,850).
static void the_contact_arrays_grow_close_to_what_the_pile_finds(void **state)
{
    (void)state;
    sinew_world *w = pile_world(SINEW_SOLVER_GAUSS_SEIDEL, 1000);
    int most_found = 0; // contacts found by a search (solved and pending), at most
    for (int s = 0; s < 150; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        const int found = w->contacts.l.count + w->contacts.pending_count;
        most_found = found > most_found ? found : most_found;
    }
    print_message("pile of 1,000: contact capacity %d for at most %d found\n", w->contacts.capacity, most_found);
    assert_true(most_found > 2000); // (it has settled into its contacts)
    assert_true(w->contacts.capacity <= most_found + most_found / 8 + 16 + 64);
    sinew_world_destroy(w);
}

// A search on one thread that finds far more contacts than the arrays hold grows them once: it
// counts what the rest of its scan finds, then grows them to hold it (each growth copies the
// contacts found so far; growing by an eighth as it went, this one took 41). The contacts are
// those the search over two workers finds.
static void one_search_grows_the_contact_arrays_once(void **state)
{
    (void)state;
    for (int m = 0; m < MODE_COUNT; ++m) {
        uint64_t hashes[2];
        int found[2];
        for (int workers = 1; workers <= 2; ++workers) {
            sinew_world_def def = sinew_default_world_def();
            def.solver.mode = modes[m];
            def.solver.substeps = 1;
            def.solver.iterations = 1;
            def.gravity = no_gravity;
            def.workers = workers;
            sinew_world *w = NULL;
            assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
            const float r = 0.5f;
            for (int row = 0; row < 70; ++row) { // 4,900 balls touching in a hexagonal block
                for (int col = 0; col < 70; ++col) {
                    const float x = (float)col * 2.0f * r + (row % 2 != 0 ? r : 0.0f);
                    add_ball(w, sinew_vec2_make(x, (float)row * 1.7320508f * r), r, 1.0f);
                }
            }
            const int64_t growths = w->contacts.scan_growths;
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            found[workers - 1] = w->contacts.l.count + w->contacts.pending_count;
            assert_true(found[workers - 1] > 14000); // (three contacts a ball)
            assert_int_equal(sinew_world_stats(w).dropped_contacts, 0);
            if (workers == 1) {
                print_message("%s: %d contacts found in one search from empty arrays, %d growths, room for %d\n",
                              mode_name(modes[m]), found[0], (int)(w->contacts.scan_growths - growths),
                              w->contacts.capacity);
                assert_true(w->contacts.scan_growths - growths == 1);
                assert_true(w->contacts.capacity <= found[0] + found[0] / 8 + 16 + 64);
            } else {
                assert_true(w->contacts.band_splits > 0); // (the bands found them)
            }
            hashes[workers - 1] = hash_positions(w);
            sinew_world_destroy(w);
        }
        assert_int_equal(found[0], found[1]);
        assert_true(hashes[0] == hashes[1]);
    }
}

// ---- 10. determinism --------------------------------------------------------------------------

// portable: run the portable kernels even where the AVX2 ones could; omega: Jacobi's.
static uint64_t pile_hash_ordered(sinew_solver_mode mode, int steps, bool portable, float omega, sinew_gs_order order)
{
    sinew_world *w = new_world(mode, earth, 4, 8);
    w->avx2 = w->avx2 && !portable;
    sinew_solver_def sd = sinew_world_get_solver(w);
    sd.jacobi_omega = omega;
    sd.order = order;
    assert_int_equal(sinew_world_set_solver(w, &sd), SINEW_OK);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 300;
    pd.radius_min = 0.3f; // mixed sizes, drawn from the def's seed
    pd.radius_max = 0.6f;
    pd.container = SINEW_PILE_SLOPES;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    step_n(w, steps);
    const uint64_t h = hash_positions(w);
    sinew_world_destroy(w);
    return h;
}

static uint64_t pile_hash_with(sinew_solver_mode mode, int steps, bool portable, float omega)
{
    return pile_hash_ordered(mode, steps, portable, omega, SINEW_GS_ORDER_CREATED);
}

static uint64_t pile_hash_on(sinew_solver_mode mode, int steps, bool portable)
{
    return pile_hash_with(mode, steps, portable, sinew_default_world_def().solver.jacobi_omega);
}

static uint64_t pile_hash(sinew_solver_mode mode, int steps) { return pile_hash_on(mode, steps, false); }

static void the_same_pile_gives_the_same_bits(void **state)
{
    (void)state;
    for (int m = 0; m < MODE_COUNT; ++m) {
        const uint64_t a = pile_hash(modes[m], 200), b = pile_hash(modes[m], 200);
        assert_true(a == b);
        assert_true(a != pile_hash(modes[m], 199)); // the hash does see the motion
    }
}

// The AVX2 kernels (x86-64 CPUs that have it) run the same operations in the same order as the
// portable ones: a pile of mixed balls on slopes ends the same to the bit both ways.
static void the_avx2_kernels_give_the_portable_bits(void **state)
{
    (void)state;
    sinew_world *probe = new_world(SINEW_SOLVER_GAUSS_SEIDEL, earth, 1, 1);
    print_message("AVX2 kernels %s on this machine\n", probe->avx2 ? "run" : "do not run (both runs are portable)");
    sinew_world_destroy(probe);
    for (int m = 0; m < MODE_COUNT; ++m) {
        assert_true(pile_hash_on(modes[m], 200, false) == pile_hash_on(modes[m], 200, true));
    }
    // Jacobi's factor with an omega other than 1 (the contacts' accumulate multiplies by it).
    assert_true(pile_hash_with(SINEW_SOLVER_JACOBI, 200, false, 1.5f) == pile_hash_with(SINEW_SOLVER_JACOBI, 200, true, 1.5f));
    assert_true(pile_hash_with(SINEW_SOLVER_JACOBI, 200, false, 1.5f) != pile_hash_on(SINEW_SOLVER_JACOBI, 200, false));
    // Gauss-Seidel's backward sweeps (the alternating order) take the single blocks and the
    // shared ones from the end, over the positions in pairs on the AVX2 path.
    const float omega = sinew_default_world_def().solver.jacobi_omega;
    const uint64_t alternating = pile_hash_ordered(SINEW_SOLVER_GAUSS_SEIDEL, 200, false, omega, SINEW_GS_ORDER_ALTERNATING);
    assert_true(alternating == pile_hash_ordered(SINEW_SOLVER_GAUSS_SEIDEL, 200, true, omega, SINEW_GS_ORDER_ALTERNATING));
    assert_true(alternating != pile_hash_on(SINEW_SOLVER_GAUSS_SEIDEL, 200, false));
}

// Recording the iterations' errors only observes: a pile's contact kernels then read x and y
// apart (the errors between iterations are measured from them), and otherwise the positions in
// pairs (sinew__particles.xy), so a pile recorded every other stretch of steps must end in the
// bits of one never recorded, in both modes and on both kernel paths; the pairs are used in the
// steps that are not recorded, and the contacts' errors are recorded in the others.
static uint64_t pile_recorded_hash(sinew_solver_mode mode, bool record, bool portable)
{
    sinew_world *w = new_world(mode, earth, 4, 8);
    w->avx2 = w->avx2 && !portable;
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 400;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    for (int s = 0; s < 240; ++s) {
        const bool on = record && (s / 20) % 2 == 1;
        assert_int_equal(sinew_world_record_iterations(w, on), SINEW_OK);
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
        assert_null(w->particles.xy); // (only ever set within a sub-step)
        if (on && s > 100) {
            int substeps = 0, iterations = 0;
            const sinew_error_sample *h = sinew_world_iteration_errors(w, SINEW_KIND_CONTACT, &substeps, &iterations);
            assert_non_null(h);
            // The contacts' errors, measured from x and y as the iterations move them.
            bool moved = false;
            for (int sub = 0; sub < substeps; ++sub) {
                const sinew_error_sample *row = h + sub * (iterations + 1);
                moved = moved || row[iterations].rms_error != row[0].rms_error;
            }
            assert_true(moved);
        }
    }
    const uint64_t h = hash_positions(w);
    sinew_world_destroy(w);
    return h;
}

static void recording_the_iterations_changes_no_bit_of_a_pile(void **state)
{
    (void)state;
    for (int m = 0; m < MODE_COUNT; ++m) {
        for (int portable = 0; portable < 2; ++portable) {
            assert_true(pile_recorded_hash(modes[m], false, portable != 0) ==
                        pile_recorded_hash(modes[m], true, portable != 0));
        }
    }
}

// Gauss-Seidel solves the contacts tile by tile (runs of SINEW__TILE in grid order), each tile by
// colour, and the block path takes eight contacts at once only when they share no particle that
// can move. A pile with two tiles' worth of contacts: every block marked independent must be.
static void the_contacts_of_a_large_pile_go_in_independent_blocks(void **state)
{
    (void)state;
    sinew_world *w = new_world(SINEW_SOLVER_GAUSS_SEIDEL, earth, 4, 1);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 24000;
    pd.spacing = 0.98f; // three neighbours each touch from the start
    pd.row_offset = 0.49f;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    const int n = w->particles.count;
    int *seen = calloc((size_t)n, sizeof(int));
    assert_non_null(seen);
    int free_blocks = 0, most_contacts = 0;
    for (int step = 1; step <= 20; ++step) {
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
        const sinew__links *l = &w->contacts.l;
        most_contacts = l->count > most_contacts ? l->count : most_contacts;
        for (int b = 0; b < l->count / SINEW__LANES; ++b) {
            if (!sinew__block_together(l->block_free[b])) {
                continue;
            }
            free_blocks += 1;
            for (int k = b * SINEW__LANES; k < (b + 1) * SINEW__LANES; ++k) {
                const int ends[2] = {l->c[k].i, l->c[k].j};
                for (int e = 0; e < 2; ++e) {
                    if (w->particles.w[ends[e]] > 0.0f) {
                        assert_int_not_equal(seen[ends[e]], step * n + b + 1); // not yet in this block
                        seen[ends[e]] = step * n + b + 1;
                    }
                }
            }
        }
    }
    print_message("pile of 24,000: up to %d contacts (tiles of %d), %d independent blocks checked\n", most_contacts,
                  SINEW__TILE_CONTACTS, free_blocks);
    assert_true(most_contacts > SINEW__TILE_CONTACTS); // at least two tiles
    assert_true(free_blocks > 0);
    free(seen);
    sinew_world_destroy(w);
}

// With workers, a pile's spans (runs of blocks Gauss-Seidel spreads over them) come from its
// colours: every span holds blocks that share no movable particle, over several tiles, with
// immovable balls in the pile, and for a crowd (contacts past the last colour: then they are
// found by a scan). Checked after each step, and after each search of a pile alone.
static void assert_spans_hold_independent_blocks(const sinew_world *w, int *span_of, int *block_of, int *uid)
{
    const sinew__links *l = &w->contacts.l;
    const int blocks = (l->count + SINEW__LANES - 1) / SINEW__LANES;
    assert_true(sinew__links_spread(w, l)); // (else there are none)
    assert_true(l->spans_valid);
    assert_int_equal(l->span[0], 0);
    assert_int_equal(l->span[l->span_count], blocks);
    for (int s = 0; s < l->span_count; ++s) {
        assert_true(l->span[s] < l->span[s + 1]);
        *uid += 1;
        for (int b = (int)l->span[s]; b < (int)l->span[s + 1]; ++b) {
            const int end = (b + 1) * SINEW__LANES < l->count ? (b + 1) * SINEW__LANES : l->count;
            for (int k = b * SINEW__LANES; k < end; ++k) {
                const int ends[2] = {l->c[k].i, l->c[k].j};
                for (int e = 0; e < 2; ++e) {
                    const int p = ends[e];
                    if (!(w->particles.w[p] > 0.0f)) {
                        continue;
                    }
                    assert_false(span_of[p] == *uid && block_of[p] != b); // in no other block of the span
                    span_of[p] = *uid;
                    block_of[p] = b;
                }
            }
        }
    }
}

static int64_t check_spans(sinew_world *w, int steps, int *most)
{
    *most = 0;
    const int n = w->particles.count;
    int *span_of = calloc((size_t)n, sizeof(int)), *block_of = calloc((size_t)n, sizeof(int)), uid = 0;
    assert_non_null(span_of);
    assert_non_null(block_of);
    for (int step = 0; step < steps; ++step) {
        // A search of its own, as a step's first sub-step makes one: the spans it leaves.
        assert_true(sinew__grid_place(w, 0, 0.0f));
        sinew__grid_sort(w, NULL);
        sinew__contacts_find(w, true);
        assert_spans_hold_independent_blocks(w, span_of, block_of, &uid);
        *most = w->contacts.l.count > *most ? w->contacts.l.count : *most;
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
        assert_spans_hold_independent_blocks(w, span_of, block_of, &uid); // (promotions added to them)
    }
    free(span_of);
    free(block_of);
    return w->contacts.colour_spans;
}

static void the_spans_of_a_pile_hold_independent_blocks(void **state)
{
    (void)state;
    sinew_world *w = new_world(SINEW_SOLVER_GAUSS_SEIDEL, earth, 4, 1);
    assert_int_equal(sinew_world_set_workers(w, 2), SINEW_OK);
    sinew__tasks_set_handoff(&w->tasks, 1, 0); // (the spans split at the engine's thresholds, whatever the round trip)
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 30000;
    pd.spacing = 0.98f; // three neighbours each touch from the start: two tiles
    pd.row_offset = 0.49f;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    for (int k = 0; k < pd.count; k += 7) { // immovable balls among them
        assert_int_equal(sinew_particle_set_weight(w, sinew_particle_id_at(w, k), 0.0f), SINEW_OK);
    }
    int most = 0;
    assert_true(check_spans(w, 6, &most) >= 6);
    assert_true(most > SINEW__TILE_CONTACTS); // (two tiles)
    assert_true(w->contacts.banded_colourings > 0); // (placed by colour as the bands were found, over both)
    sinew_world_destroy(w);

    // A crowd: 1,600 balls of radius 0.5, 0.18 apart, about a hundred contacts each (past the
    // colours): one search and one step, before it flies apart.
    w = new_world(SINEW_SOLVER_GAUSS_SEIDEL, earth, 4, 1);
    assert_int_equal(sinew_world_set_workers(w, 2), SINEW_OK);
    sinew__tasks_set_handoff(&w->tasks, 1, 0); // (the engine's thresholds, whatever this machine's round trip)
    for (int k = 0; k < 40 * 40; ++k) {
        sinew_particle_def d = sinew_default_particle_def();
        d.position = sinew_vec2_make(0.18f * (float)(k % 40), 1.0f + 0.18f * (float)(k / 40));
        d.radius = 0.5f;
        assert_int_equal(sinew_particle_create(w, &d, NULL), SINEW_OK);
    }
    assert_true(check_spans(w, 1, &most) == 0); // (the search had to scan: no step of the crowd found spans)
    sinew_world_destroy(w);
}

// A pile of one kind of ball (every colliding particle of one weight and friction) takes one
// share and one friction for all its contacts, and when the balls also share their radius and
// filter, the grid copies only their positions and the search broadcasts the rest; any other
// world keeps them per contact and per particle. A ball pinned far above the pile, touching
// nothing, decides which: the same as the balls, twice as heavy, with less friction, smaller, or
// in another group. It moves the same way in all of them, so the pile must end the same to the
// bit, on both paths of the search and the response.
typedef struct lone_ball {
    float weight, friction, radius;
    uint32_t group;
} lone_ball;

static uint64_t pile_with_lone_ball_hash(sinew_solver_mode mode, lone_ball b, bool portable)
{
    sinew_world *w = new_world(mode, earth, 4, 2);
    w->avx2 = w->avx2 && !portable;
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 300;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    sinew_particle_def lone = sinew_default_particle_def();
    lone.position = sinew_vec2_make(5.0f, 100.0f);
    lone.radius = b.radius;
    lone.weight = b.weight;
    lone.friction = b.friction;
    lone.group = b.group;
    sinew_pin_def pin = sinew_default_pin_def();
    assert_int_equal(sinew_particle_create(w, &lone, &pin.particle), SINEW_OK);
    pin.target = lone.position;
    sinew_pin_id pin_id;
    assert_int_equal(sinew_pin_create(w, &pin, &pin_id), SINEW_OK);
    step_n(w, 200);
    assert_true(sinew_world_stats(w).kinds[SINEW_KIND_CONTACT].count > 0);
    // The paths the last step took.
    const sinew_particle_def ball = sinew_default_particle_def();
    const bool one_material = b.weight == pd.weight && b.friction == pd.friction;
    const bool one_shape = b.weight == pd.weight && b.radius == pd.radius_min && b.group == ball.group;
    assert_true(w->contacts.one_material == one_material);
    assert_true(w->grid.shape.one_shape == one_shape);
    const uint64_t h = hash_positions(w);
    sinew_world_destroy(w);
    return h;
}

static void one_kind_of_ball_ends_as_with_per_contact_shares(void **state)
{
    (void)state;
    const uint32_t group = sinew_default_particle_def().group;
    const lone_ball alike = {1.0f, 0.6f, 0.5f, group};
    const lone_ball others[] = {
        {2.0f, 0.6f, 0.5f, group},     // heavier: neither summary
        {1.0f, 0.1f, 0.5f, group},     // less friction: one shape, not one material
        {1.0f, 0.6f, 0.25f, group},    // smaller: one material, not one shape
        {1.0f, 0.6f, 0.5f, group | 2u}, // another group
    };
    for (int m = 0; m < MODE_COUNT; ++m) {
        for (int portable = 0; portable < 2; ++portable) {
            const uint64_t same = pile_with_lone_ball_hash(modes[m], alike, portable);
            for (size_t k = 0; k < sizeof others / sizeof others[0]; ++k) {
                assert_true(same == pile_with_lone_ball_hash(modes[m], others[k], portable));
            }
        }
    }
}

// A pile in a box of half-planes, with balls fired at the floor fast enough to be swept: when
// every collider is a half-plane, a vectorised pass picks the particles that may touch one, and
// only those are tested. A circle far away turns that pass off; the pile must end the same. The
// fired balls are smaller than the pile's, or the same size (then the pass reads no radius nor
// filter: every colliding particle has the same).
static uint64_t box_pile_hash(sinew_solver_mode mode, bool far_circle, float fired_radius)
{
    sinew_world *w = new_world(mode, earth, 4, 2);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 300;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    for (int k = 0; k < 8; ++k) {
        const sinew_vec2 at = sinew_vec2_make(2.0f + 2.5f * (float)k, 30.0f);
        (void)add_moving_ball(w, at, sinew_vec2_make(40.0f * (float)k, -300.0f), fired_radius);
    }
    if (far_circle) {
        sinew_collider_def cd = sinew_default_collider_def();
        assert_int_equal(sinew_circle_collider_create(w, &cd, sinew_vec2_make(1e4f, 1e4f), 1.0f, NULL), SINEW_OK);
    }
    step_n(w, 120);
    const sinew_step_stats st = sinew_world_stats(w);
    assert_true(st.kinds[SINEW_KIND_COLLIDER].count > 0);
    assert_true(w->particles.materials.one_shape == (fired_radius == pd.radius_min));
    const uint64_t h = hash_positions(w);
    sinew_world_destroy(w);
    return h;
}

static void only_half_planes_find_the_same_collider_contacts(void **state)
{
    (void)state;
    for (int m = 0; m < MODE_COUNT; ++m) {
        for (int r = 0; r < 2; ++r) {
            const float radius = r == 0 ? 0.25f : sinew_default_pile_def().radius_min;
            assert_true(box_pile_hash(modes[m], false, radius) == box_pile_hash(modes[m], true, radius));
        }
    }
}

// Non-colliding particles far away until the world holds `count`: the next particles made start
// an item of 1,024 of their own when count is a multiple of it.
static void pad_to(sinew_world *w, int count)
{
    sinew_particle_def pad = sinew_default_particle_def();
    pad.flags = 0u;
    pad.position = sinew_vec2_make(-500.0f, 0.0f);
    while (sinew_world_particles(w).count < count) {
        assert_int_equal(sinew_particle_create(w, &pad, NULL), SINEW_OK);
    }
}

// A rope of 40 links of colliding balls at y = 300 (inside a pile's box, high above it), its balls
// set 1 m apart (four times its links' length), to be let go; with `apart`, its balls meet
// colliders but not one another.
static void stretched_rope(sinew_world *w, bool apart)
{
    sinew_rope_def rd = sinew_default_rope_def();
    rd.start = sinew_vec2_make(2.0f, 300.0f);
    rd.end = sinew_vec2_make(12.0f, 300.0f);
    rd.particle_flags = SINEW_PARTICLE_COLLIDES;
    sinew_particle_id rope[41];
    sinew_rope r = {0};
    r.particles = rope;
    assert_int_equal(sinew_rope_create(w, &rd, &r), SINEW_OK);
    for (int i = 0; i < 41; ++i) {
        if (i > 0) {
            assert_int_equal(sinew_particle_set_position(w, rope[i], sinew_vec2_make(2.0f + (float)i, 300.0f)), SINEW_OK);
        }
        if (apart) {
            assert_int_equal(sinew_particle_set_filter(w, rope[i], 2u, 1u), SINEW_OK);
        }
    }
}

// Finishing a sub-step packs the motion records only of the items of 1,024 particles that an end
// of a contact lies in, and copies only those back after the response; the other items apply the
// contact speed's bound at once. A world that packs every item (world->pack_all, as sinew did
// before) must end the same to the bit, in four scenes:
// 0. a pile poured from a lattice (most of its items touch nothing while it falls; contacts are
//    promoted as rows land);
// 1. a compressed pile switched to a stiff setting while a stretched rope in an item of its own
//    is let go (the watch's bound applies to the rope's balls in the finishing pass);
// 2. two balls whose contact is promoted during a step, the only contact of their item;
// 3. a stretched rope let go while the world watches (set before every step) and its only contact
//    is a ball's on the floor: no particle contact, so the records are not copied back and no
//    bound applies, in the finishing pass either.
static uint64_t packed_items_hash(sinew_solver_mode mode, bool pack_all, bool portable, int workers, int scene)
{
    sinew_world *w = new_world(mode, scene == 2 ? no_gravity : earth, scene == 1 ? 1 : 4, scene == 3 ? 4 : 1);
    w->avx2 = w->avx2 && !portable;
    w->pack_all = pack_all;
    assert_int_equal(sinew_world_set_workers(w, workers), SINEW_OK);
    if (scene == 0) {
        sinew_pile_def pd = sinew_default_pile_def();
        pd.count = 3000;
        assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
        step_n(w, 150);
        assert_true(sinew_world_stats(w).kinds[SINEW_KIND_CONTACT].count > 0);
    } else if (scene == 1) {
        sinew_pile_def pd = sinew_default_pile_def();
        pd.count = 1200;
        assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
        step_n(w, 300); // GS 1 x 1: the pile holds its weight only by deep overlap, and the world watches
        assert_true(w->deep_watch);
        pad_to(w, 8 * 1024); // (so that the pile's contacts, fewer than half the particles, mark their items)
        stretched_rope(w, false);
        sinew_solver_def sd = sinew_world_get_solver(w);
        sd.substeps = 4;
        sd.iterations = 8;
        assert_int_equal(sinew_world_set_solver(w, &sd), SINEW_OK);
        step_n(w, 30);
    } else if (scene == 2) {
        // Closing in at 12 m/s from 1.17 m apart and sliding past each other at 6 m/s: their
        // contact waits at the search, is promoted at the next sub-step and touches (friction) at
        // the last. A resting pair in the first item keeps the step's contacts on.
        (void)add_moving_ball(w, sinew_vec2_make(0.0f, 0.0f), sinew_vec2_make(0.0f, 0.0f), 0.5f);
        (void)add_moving_ball(w, sinew_vec2_make(0.99f, 0.0f), sinew_vec2_make(0.0f, 0.0f), 0.5f);
        pad_to(w, 1024);
        (void)add_moving_ball(w, sinew_vec2_make(100.0f, 0.0f), sinew_vec2_make(6.0f, 3.0f), 0.5f);
        (void)add_moving_ball(w, sinew_vec2_make(101.17f, 0.0f), sinew_vec2_make(-6.0f, -3.0f), 0.5f);
        step_n(w, 3);
    } else {
        sinew_collider_def cd = sinew_default_collider_def();
        assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0.0f, 1.0f), 0.0f, NULL), SINEW_OK);
        (void)add_moving_ball(w, sinew_vec2_make(0.0f, 0.5f), sinew_vec2_make(0.0f, 0.0f), 0.5f);
        pad_to(w, 1024);
        stretched_rope(w, true);
        for (int k = 0; k < 5; ++k) {
            w->deep_watch = true;
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            assert_true(sinew_world_stats(w).kinds[SINEW_KIND_COLLIDER].count == 1);
            assert_true(sinew_world_stats(w).kinds[SINEW_KIND_CONTACT].count == 0);
        }
    }
    const uint64_t h = hash_positions(w);
    sinew_world_destroy(w);
    return h;
}

static void items_no_contact_touches_skip_their_records_to_the_same_bits(void **state)
{
    (void)state;
    for (int scene = 0; scene < 4; ++scene) {
        for (int m = 0; m < MODE_COUNT; ++m) {
            const uint64_t all = packed_items_hash(modes[m], true, false, 1, scene);
            assert_true(all == packed_items_hash(modes[m], false, false, 1, scene));
            assert_true(all == packed_items_hash(modes[m], false, true, 1, scene));
            assert_true(all == packed_items_hash(modes[m], false, false, 2, scene));
        }
    }
}

static void jacobi_collisions_do_not_depend_on_creation_order(void **state)
{
    (void)state;
    enum { BALLS = 300 };
    sinew_world *w[2];
    sinew_particle_id ids[2][BALLS];
    for (int order = 0; order < 2; ++order) {
        w[order] = new_world(SINEW_SOLVER_JACOBI, earth, 4, 8);
        sinew_collider_def cd = sinew_default_collider_def();
        assert_int_equal(
            sinew_world_bounds_create(w[order], &cd, sinew_vec2_make(0, 0), sinew_vec2_make(20, 100), NULL), SINEW_OK);
        uint64_t rng = 2024u;
        sinew_particle_def defs[BALLS];
        for (int k = 0; k < BALLS; ++k) { // a loose random cloud over the box, mixed radii
            defs[k] = sinew_default_particle_def();
            defs[k].radius = uniform(&rng, 0.3f, 0.6f);
            defs[k].position = sinew_vec2_make(1.0f + (float)(k % 15) * 1.2f + uniform(&rng, -0.1f, 0.1f),
                                               1.0f + (float)(k / 15) * 1.3f);
            defs[k].velocity = uniform_vec2(&rng, -2, 2, -2, 2);
        }
        for (int k = 0; k < BALLS; ++k) {
            const int i = order == 0 ? k : BALLS - 1 - k;
            assert_int_equal(sinew_particle_create(w[order], &defs[i], &ids[order][i]), SINEW_OK);
        }
    }
    float worst = 0.0f;
    int first_difference = -1;
    for (int s = 1; s <= 300; ++s) {
        step_n(w[0], 1);
        step_n(w[1], 1);
        for (int k = 0; k < BALLS; ++k) {
            const float d = sinew_vec2_distance(position_of(w[0], ids[0][k]), position_of(w[1], ids[1][k]));
            if (d > 0.0f && first_difference < 0) {
                first_difference = s;
            }
            worst = fmaxf(worst, d);
        }
    }
    print_message("Jacobi, %d balls made in opposite orders: largest position difference over 300 steps %.3g m "
                  "(first at step %d)\n",
                  BALLS, (double)worst, first_difference);
    assert_true(worst == 0.0f);
    sinew_world_destroy(w[0]);
    sinew_world_destroy(w[1]);
}

// ---- engine bugs: these tests expose them (see the report) ------------------------------------

// A field of small balls resting on a floor, so that the grid has fine cells (2.2 radii).
static sinew_world *resting_field(sinew_solver_mode mode)
{
    sinew_world *w = new_world(mode, earth, 4, 8);
    sinew_collider_def cd = sinew_default_collider_def();
    assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0, 1), 0.0f, NULL), SINEW_OK);
    for (int k = 0; k < 100; ++k) {
        add_ball(w, sinew_vec2_make(-20.0f + 0.4f * (float)k, 0.1f), 0.1f, 1.0f);
    }
    step_n(w, 2);
    return w;
}

// The header: the query returns the particles "whose centre lies in the box"; query.c says "the
// current positions decide". A particle moved with sinew_particle_set_position since the last
// step is still listed in the grid cell it had, and the grid stays valid, so a query where it
// now is misses it.
static void queries_find_a_particle_moved_since_the_last_step(void **state)
{
    (void)state;
    query_scratch *q = malloc(sizeof *q);
    assert_non_null(q);
    for (int m = 0; m < MODE_COUNT; ++m) {
        sinew_world *w = resting_field(modes[m]);
        const sinew_particle_id moved = sinew_particle_id_at(w, 10);
        // Into the gap between the balls at x = 12.0 and 12.4, 28 m from where it was.
        assert_int_equal(sinew_particle_set_position(w, moved, sinew_vec2_make(12.2f, 0.1f)), SINEW_OK);
        check_nearest(w, sinew_vec2_make(12.2f, 0.1f), 0.05f);
        check_box(w, q, sinew_vec2_make(12.1f, 0.0f), sinew_vec2_make(12.3f, 0.2f));
        check_circle(w, q, sinew_vec2_make(12.2f, 0.1f), 0.05f);
        sinew_world_destroy(w);
    }
    free(q);
}

// The grid is built at the predicted positions of the last sub-step; the query widens its cells
// by one, which covers a solver correction of up to one cell. A fast ball stopped by a wall in
// the last sub-step is corrected by many cells (here 5.1 m with cells of about 1 m), and a query
// where it really is misses it.
static void queries_find_a_particle_the_solver_moved_far(void **state)
{
    (void)state;
    query_scratch *q = malloc(sizeof *q);
    assert_non_null(q);
    for (int m = 0; m < MODE_COUNT; ++m) {
        sinew_world *w = resting_field(modes[m]);
        sinew_collider_def cd = sinew_default_collider_def();
        // A wall at x = 25.
        assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(-1, 0), -25.0f, NULL), SINEW_OK);
        // 100 radii (10 m) per sub-step toward the wall from x = -10: at 0, 10 and 20 after three
        // sub-steps, predicted at 30 in the last one and put back to 24.9 by the wall, 5.1 m away.
        const float speed = 100.0f * 0.1f / (dt / 4.0f);
        sinew_particle_id ball = add_moving_ball(w, sinew_vec2_make(-10.0f, 5.0f), sinew_vec2_make(speed, 0), 0.1f);
        step_n(w, 1);
        const sinew_vec2 at = position_of(w, ball);
        assert_near(at.x, 24.9f, 1e-3f);
        check_nearest(w, at, 0.01f);
        const sinew_vec2 half = {0.05f, 0.05f};
        check_box(w, q, sinew_vec2_sub(at, half), sinew_vec2_add(at, half));
        check_circle(w, q, at, 0.05f);
        sinew_world_destroy(w);
    }
    free(q);
}

// Bounds are only required to be finite, so "everything" is a natural query: +-FLT_MAX. query.c
// turns (bound - grid min) / cell into an int with (int)floorf(...) and then adds or subtracts 1:
// out of int range that is undefined behaviour (a float-to-int overflow, then a signed overflow
// that UBSan reports), and on x86-64 the clamped cell range comes out empty, so the particles in
// the grid are missed.
static void a_query_larger_than_the_world_finds_every_particle(void **state)
{
    (void)state;
    query_scratch *q = malloc(sizeof *q);
    assert_non_null(q);
    sinew_world *w = resting_field(SINEW_SOLVER_GAUSS_SEIDEL);
    const float bounds[] = {1e9f, 1e30f, FLT_MAX};
    for (size_t k = 0; k < sizeof bounds / sizeof bounds[0]; ++k) {
        const float b = bounds[k];
        check_box(w, q, sinew_vec2_make(-b, -b), sinew_vec2_make(b, b));
        check_circle(w, q, sinew_vec2_make(0, 0), b);
        check_nearest(w, sinew_vec2_make(0, 0), b);
    }
    sinew_world_destroy(w);
    free(q);
}

// collide.h: OUT_OF_RANGE for "a polygon that is not strictly convex". collider.c checks that
// every corner turns left, which a self-intersecting star (a pentagram: the points of a regular
// pentagon taken two at a time) also does; it is accepted, and its edge normals then describe no
// convex shape.
static void a_self_intersecting_polygon_is_refused(void **state)
{
    (void)state;
    sinew_world *w = new_world(SINEW_SOLVER_GAUSS_SEIDEL, earth, 4, 8);
    const sinew_collider_def def = sinew_default_collider_def();
    sinew_vec2 star[5];
    for (int k = 0; k < 5; ++k) {
        star[k] = rotate(sinew_vec2_make(0, 2), 144.0f * (float)k);
    }
    sinew_collider_id id = SINEW_NULL_ID;
    assert_int_equal(sinew_polygon_collider_create(w, &def, star, 5, 0.0f, &id), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_world_collider_count(w), 0);
    sinew_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overlapping_balls_end_touching_moved_by_their_weights),
        cmocka_unit_test(balls_thrown_at_each_other_meet_at_any_speed),
        cmocka_unit_test(a_contact_that_comes_within_reach_during_a_step_is_solved),
        cmocka_unit_test(a_pile_of_2000_balls_settles_in_both_modes),
        cmocka_unit_test(a_column_of_20_balls_stands_for_10_seconds),
        cmocka_unit_test(friction_holds_a_ball_on_a_30_degree_slope_and_none_lets_it_slide),
        cmocka_unit_test(a_fast_ball_does_not_pass_through_a_thin_segment),
        cmocka_unit_test(a_fast_ball_does_not_pass_through_a_thin_box),
        cmocka_unit_test(balls_whose_masks_exclude_each_other_pass_through),
        cmocka_unit_test(a_collider_whose_mask_excludes_a_ball_does_not_stop_it),
        cmocka_unit_test(skip_linked_pairs_decides_whether_linked_balls_collide),
        cmocka_unit_test(queries_match_a_brute_force_scan),
        cmocka_unit_test(a_query_over_capacity_reports_the_full_count),
        cmocka_unit_test(queries_refuse_bad_arguments_and_write_nothing),
        cmocka_unit_test(every_collider_create_refuses_bad_input_and_creates_nothing),
        cmocka_unit_test(collider_shapes_read_back_as_made),
        cmocka_unit_test(destroying_a_collider_invalidates_its_id_and_keeps_the_others),
        cmocka_unit_test(nothing_collides_until_a_flag_says_so),
        cmocka_unit_test(world_bounds_keep_balls_inside),
        cmocka_unit_test(a_gauss_seidel_pile_holds_no_jacobi_arrays),
        cmocka_unit_test(a_jacobi_pile_holds_one_contact_array),
        cmocka_unit_test(pending_contacts_past_the_records_grow_the_one_array),
        cmocka_unit_test(grid_cells_are_the_clamped_floor_of_every_coordinate),
        cmocka_unit_test(the_grid_bounds_are_those_of_the_colliding_particles),
        cmocka_unit_test(a_mixed_pile_keeps_shares_per_contact),
        cmocka_unit_test(the_one_material_summary_follows_every_change),
        cmocka_unit_test(a_warm_pile_steps_without_allocating),
        cmocka_unit_test(the_contact_arrays_grow_close_to_what_the_pile_finds),
        cmocka_unit_test(one_search_grows_the_contact_arrays_once),
        cmocka_unit_test(the_same_pile_gives_the_same_bits),
        cmocka_unit_test(the_avx2_kernels_give_the_portable_bits),
        cmocka_unit_test(recording_the_iterations_changes_no_bit_of_a_pile),
        cmocka_unit_test(the_contacts_of_a_large_pile_go_in_independent_blocks),
        cmocka_unit_test(the_spans_of_a_pile_hold_independent_blocks),
        cmocka_unit_test(one_kind_of_ball_ends_as_with_per_contact_shares),
        cmocka_unit_test(only_half_planes_find_the_same_collider_contacts),
        cmocka_unit_test(items_no_contact_touches_skip_their_records_to_the_same_bits),
        cmocka_unit_test(jacobi_collisions_do_not_depend_on_creation_order),
        // Engine bugs, last (see the comment at the top).
        cmocka_unit_test(queries_find_a_particle_moved_since_the_last_step),
        cmocka_unit_test(queries_find_a_particle_the_solver_moved_far),
        cmocka_unit_test(a_self_intersecting_polygon_is_refused),
        cmocka_unit_test(a_query_larger_than_the_world_finds_every_particle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
