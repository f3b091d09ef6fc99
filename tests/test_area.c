// Area constraints by their properties: soft bodies keep their area on a floor in both modes, a
// free soft body keeps its momentum, pressure inflates, either winding works, a crushed ring
// recovers without turning inside out, one projection matches the formula by hand, every error
// path creates nothing, and destroying a particle of the ring destroys the constraint.
#include <math.h>
#include <string.h>

#include "support.h"

static const float dt = 1.0f / 60.0f;

static const char *const mode_names[] = {"Gauss-Seidel", "Jacobi"};
static const char *const inside_names[] = {"empty", "springs", "centre"};
static const char *const order_names[] = {"created", "alternating", "shuffle"};

static sinew_world *world_with(sinew_solver_mode mode, sinew_vec2 gravity)
{
    sinew_world_def def = sinew_default_world_def();
    def.solver.mode = mode;
    def.gravity = gravity;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    return w;
}

// No gravity, one sub-step of one iteration: a step is one projection of each constraint.
static sinew_world *one_projection_world(sinew_solver_mode mode)
{
    sinew_world_def def = sinew_default_world_def();
    def.gravity = sinew_vec2_make(0, 0);
    def.solver.mode = mode;
    def.solver.substeps = 1;
    def.solver.iterations = 1;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    return w;
}

static float area_of(const sinew_world *w, sinew_area_id id)
{
    float a = -1.0f;
    assert_int_equal(sinew_area_get_area(w, id, &a), SINEW_OK);
    return a;
}

static int area_count(sinew_world *w)
{
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    return sinew_world_stats(w).kinds[SINEW_KIND_AREA].count;
}

// Area of the regular n-gon of circumradius r, in double.
static double polygon_area(int n, double r) { return 0.5 * n * r * r * sin(2.0 * 3.14159265358979323846 / n); }

// A ring of n particles on a circle (counter-clockwise unless `clockwise`), collisions off.
static void make_ring(sinew_world *w, int n, double cx, double cy, double r, bool clockwise, sinew_particle_id *ids)
{
    for (int k = 0; k < n; ++k) {
        const double t = 2.0 * 3.14159265358979323846 * k / n * (clockwise ? -1.0 : 1.0);
        ids[k] = make_free_particle(w, (float)(cx + r * cos(t)), (float)(cy + r * sin(t)), 1.0f);
    }
}

static sinew_area_id make_area(sinew_world *w, const sinew_particle_id *ids, int n, float rest, float pressure)
{
    sinew_area_def d = sinew_default_area_def();
    d.particles = ids;
    d.count = n;
    d.rest_area = rest;
    d.pressure = pressure;
    sinew_area_id id;
    assert_int_equal(sinew_area_create(w, &d, &id), SINEW_OK);
    return id;
}

static void soft_bodies_keep_their_area_on_a_floor(void **state)
{
    (void)state;
    // The bound is 2% of the rest area once settled; the lead measured about 0.1%. Each
    // body is dropped from 0.3 m onto a floor in a world with a little damping (1 / s, so it
    // comes to rest in the time given) and its area is checked at the end of every step of 6 s:
    // the landing included, and the last second, by which time it rests on the floor.
    for (int mode = 0; mode < 2; ++mode) {
        for (int inside = 0; inside < 3; ++inside) {
            sinew_world_def def = sinew_default_world_def();
            def.solver.mode = (sinew_solver_mode)mode;
            def.damping = 1.0f;
            sinew_world *w = NULL;
            assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
            const sinew_collider_def cd = sinew_default_collider_def();
            sinew_collider_id floor;
            assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0, 1), 0.0f, &floor), SINEW_OK);
            sinew_softbody_def d = sinew_default_softbody_def();
            d.center = sinew_vec2_make(0.0f, 1.4f); // lowest particle 0.3 m above the floor
            d.inside = (sinew_softbody_inside)inside;
            sinew_particle_id ids[25];
            sinew_softbody out = {.particles = ids};
            assert_int_equal(sinew_softbody_create(w, &d, &out), SINEW_OK);
            const int n = sinew_softbody_counts(&d).particles;
            const float rest = area_of(w, out.area);
            // The rest area is the polygon's, to float rounding of the vertices (~1e-7 relative).
            assert_near(rest, polygon_area(d.points, d.radius), 1e-5);
            double worst = 0.0, worst_settled = 0.0, lowest = 1e9, sink = 0.0;
            for (int s = 0; s < 360; ++s) {
                assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
                const double e = fabs(area_of(w, out.area) - rest) / rest;
                worst = fmax(worst, e);
                if (s >= 300) {
                    worst_settled = fmax(worst_settled, e);
                    sinew_particle_view v = sinew_world_particles(w);
                    double vy = 0.0;
                    for (int i = 0; i < n; ++i) {
                        sinew_vec2 vel;
                        assert_int_equal(sinew_particle_get_velocity(w, ids[i], &vel), SINEW_OK);
                        vy += vel.y / (double)n;
                        lowest = fmin(lowest, v.y[sinew_particle_index(w, ids[i])]);
                    }
                    sink = fmax(sink, fabs(vy));
                }
            }
            print_message("%s, %s: area error up to %.3g%% of rest over 6 s, %.3g%% in the last second; "
                          "lowest y %.4f, vertical speed up to %.3g m/s\n",
                          mode_names[mode], inside_names[inside], 100.0 * worst, 100.0 * worst_settled, lowest, sink);
            // Resting on the floor: the lowest centre one particle radius (0.1 m) up, +- 0.02
            // for contact slop (measured 0.097 .. 0.100), and no vertical motion left to speak of
            // (landing speed 2.4 m/s; measured at most 0.016 m/s in the last second). The area
            // error measured: up to 0.05% in Gauss-Seidel, 0.34% in Jacobi, landing included.
            assert_true(lowest > 0.08 && lowest < 0.12);
            assert_true(sink < 0.1);
            assert_true(worst < 0.02);
            sinew_world_destroy(w);
        }
    }
}

// Half an ulp of a float of magnitude up to |v| (for v > 0), in double.
static double half_ulp(double v) { return ldexp(1.0, ilogb(v) - 24); }

typedef struct momentum_run {
    double worst_e, worst_u; // largest per-step error over its bound (<= 1 when conserved)
    double drift;            // centre-of-mass distance from its first line after all the steps
} momentum_run;

// A free soft body in zero gravity, spun (2 rad/s) and breathing (0.5 / s outward) about its
// centre (zero net momentum), plus a uniform velocity `drift_v`, stepped `steps` times.
//
// Every projection moves the centre of mass by zero in real arithmetic (the weighted gradients
// of each constraint sum to zero, and Jacobi's factor is the same at all its particles), so only
// float rounding changes the momentum. Each step k is checked on its own: the centre of mass
// must move by the mean velocity times dt (error e_k) and the mean velocity must stay (error
// u_k), both up to the rounding that step can make. Per sub-step and coordinate a particle gets
// at most R = 1 + iterations (2 + m) roundings, m the most constraints on one particle (the
// integration; per iteration each correction as computed, its sum and its addition), each at
// most half an ulp of the largest |x| (corrections are much smaller than the coordinates), plus
// half an ulp of the largest displacement when the displacement is kept as the velocity. Verlet
// turns a position error into a velocity error, so within a step of S sub-steps the position
// error of sub-step s is carried by the S - s later ones: S (S + 1) / 2 for e_k, S for u_k (over
// h). The velocities read back are within 2^-23 relative (1 / h and the product both round).
//
// Over many steps those roundings accumulate, through the velocity, quadratically in time; the
// drift from the first line is measured and printed, not asserted (see the test).
static momentum_run free_body_momentum(sinew_solver_mode mode, sinew_gs_order order, sinew_softbody_inside inside,
                                       sinew_vec2 drift_v, int steps)
{
    sinew_world_def def = sinew_default_world_def();
    def.gravity = sinew_vec2_make(0, 0);
    def.solver.mode = mode;
    def.solver.order = order;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    sinew_softbody_def d = sinew_default_softbody_def();
    d.center = sinew_vec2_make(0.5f, -0.25f);
    d.inside = inside;
    sinew_particle_id ids[25];
    sinew_softbody out = {.particles = ids};
    assert_int_equal(sinew_softbody_create(w, &d, &out), SINEW_OK);
    const int n = sinew_softbody_counts(&d).particles;
    for (int i = 0; i < n; ++i) {
        sinew_vec2 r = sinew_vec2_sub(position_of(w, ids[i]), d.center);
        sinew_vec2 v = sinew_vec2_add(sinew_vec2_scale(sinew_vec2_perp(r), 2.0f), sinew_vec2_scale(r, 0.5f));
        assert_int_equal(sinew_particle_set_velocity(w, ids[i], sinew_vec2_add(v, drift_v)), SINEW_OK);
    }
    // Most constraints on one particle: the centre's spokes, or 2 edges + 3 springs + the area.
    const int most = inside == SINEW_SOFTBODY_CENTER ? d.points : 6;
    const int S = def.solver.substeps;
    const double h = (double)dt / S, R = 1.0 + def.solver.iterations * (2.0 + most);
    momentum_run run = {0, 0, 0};
    double c[2], v[2], c0[2] = {0, 0}, v0[2] = {0, 0};
    for (int s = 0; s <= steps; ++s) {
        // Centre of mass, mean velocity (equal masses) and the magnitudes the bounds need.
        double cn[2] = {0, 0}, vn[2] = {0, 0}, largest = 0.0, largest_d = 0.0, vmax = 0.0;
        sinew_particle_view view = sinew_world_particles(w);
        for (int i = 0; i < n; ++i) {
            sinew_vec2 vel;
            assert_int_equal(sinew_particle_get_velocity(w, ids[i], &vel), SINEW_OK);
            const int k = sinew_particle_index(w, ids[i]);
            cn[0] += view.x[k] / (double)n;
            cn[1] += view.y[k] / (double)n;
            vn[0] += vel.x / (double)n;
            vn[1] += vel.y / (double)n;
            largest = fmax(largest, fmax(fabs(view.x[k]), fabs(view.y[k])));
            largest_d = fmax(largest_d, fmax(fabs(vel.x), fabs(vel.y)) * h);
            vmax = fmax(vmax, fmax(fabs(vel.x), fabs(vel.y)));
        }
        if (s == 0) {
            memcpy(c0, cn, sizeof c0);
            memcpy(v0, vn, sizeof v0);
        } else {
            // largest (and largest_d) is taken after the step; before it they were about the
            // same: 2 of each cover both (a doubling moves ilogb by one, the bound by 2).
            const double per_substep = 2.0 * (R * half_ulp(largest) + half_ulp(largest_d));
            const double e_bound = S * (S + 1) / 2.0 * per_substep + (double)dt * vmax * ldexp(1.0, -23);
            const double u_bound = S * per_substep / h + 2.0 * vmax * ldexp(1.0, -23);
            for (int a = 0; a < 2; ++a) {
                run.worst_e = fmax(run.worst_e, fabs(cn[a] - (c[a] + v[a] * dt)) / e_bound);
                run.worst_u = fmax(run.worst_u, fabs(vn[a] - v[a]) / u_bound);
            }
        }
        memcpy(c, cn, sizeof c);
        memcpy(v, vn, sizeof v);
        if (s < steps) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        }
    }
    const double t = steps * (double)dt;
    run.drift = fmax(fabs(c[0] - (c0[0] + v0[0] * t)), fabs(c[1] - (c0[1] + v0[1] * t)));
    assert_int_equal(sinew_world_stats(w).reset_particles, 0);
    sinew_world_destroy(w);
    return run;
}

static void a_free_soft_body_keeps_its_momentum(void **state)
{
    (void)state;
    // Every step of 1000 (Jacobi) or 300 (Gauss-Seidel, each of its three orders: 18 runs, kept
    // short for the sanitizer build) keeps the momentum to its rounding bound (each projection
    // alone keeps momentum, whatever order they come in). Measured: every step within 1/60 of
    // its bound in both errors (the largest, 0.015, with the shuffled order), in every mode and
    // order.
    //
    // What is not asserted: the centre of mass over the whole run. Each rounding of a position
    // becomes, through Verlet, a velocity error that the later steps carry, so the drift grows
    // with the square of the time, and it is biased (a correction smaller than half an ulp of x
    // vanishes, more often where the ulp is coarser, so a spinning body pushes itself toward
    // its coarse side): measured 3e-4 .. 0.044 m after 1000 Jacobi steps here near the origin
    // (printed below), and 2.9 m for the same body (springs, Jacobi) centred at x = 64.5, where
    // the ulp is 7.6e-6 m. The worst-case bound, N^2 / 2 R half-ulps over N = 4000 sub-steps,
    // is metres: nothing to test against.
    const sinew_vec2 drifts[2] = {{0.0f, 0.0f}, {0.7f, -0.4f}};
    for (int mode = 0; mode < 2; ++mode) {
        for (int order = 0; order < (mode == 0 ? 3 : 1); ++order) {
            for (int inside = 0; inside < 3; ++inside) {
                for (int v = 0; v < 2; ++v) {
                    const int steps = mode == 0 ? 300 : 1000;
                    momentum_run r = free_body_momentum((sinew_solver_mode)mode, (sinew_gs_order)order,
                                                        (sinew_softbody_inside)inside, drifts[v], steps);
                    print_message("%s%s%s, %s, momentum %s: per step, error / bound: position %.3g, velocity "
                                  "%.3g; centre of mass after %d steps %.3g m off its line\n",
                                  mode_names[mode], mode == 0 ? " " : "", mode == 0 ? order_names[order] : "",
                                  inside_names[inside], v == 0 ? "zero" : "nonzero", r.worst_e, r.worst_u, steps,
                                  r.drift);
                    assert_true(r.worst_e <= 1.0);
                    assert_true(r.worst_u <= 1.0);
                }
            }
        }
    }
}

// A random star-shaped ring of n points (either winding) around a random centre.
static void random_ring(uint64_t *rng, int n, double (*p)[2])
{
    const double cx = uniform(rng, -3, 3), cy = uniform(rng, -3, 3);
    const double turn = next_random(rng) & 1 ? 1.0 : -1.0;
    for (int k = 0; k < n; ++k) {
        const double t = turn * 2.0 * 3.14159265358979323846 * (k + uniform(rng, -0.3, 0.3)) / n;
        const double r = uniform(rng, 0.5, 1.5);
        p[k][0] = cx + r * cos(t);
        p[k][1] = cy + r * sin(t);
    }
}

static void one_projection_keeps_momentum(void **state)
{
    (void)state;
    // One projection of one area constraint on a random ring with random weights (all > 0):
    // sum over particles of displacement / weight (mass times displacement) is zero in real
    // arithmetic. In float, per particle and axis: half an ulp of |x| when the move is added,
    // and the move itself within 4 roundings (2^-24 relative each: weight times step, times the
    // gradient, the gradient's difference, Jacobi's sum cast to float).
    uint64_t rng = 12345;
    double worst = 0.0;
    for (int mode = 0; mode < 2; ++mode) {
        for (int trial = 0; trial < 300; ++trial) {
            sinew_world *w = one_projection_world((sinew_solver_mode)mode);
            const int n = 3 + (int)(next_random(&rng) % 10);
            double p[16][2], wt[16];
            random_ring(&rng, n, p);
            sinew_particle_id ids[16];
            for (int k = 0; k < n; ++k) {
                wt[k] = (float)uniform(&rng, 0.25, 2.0); // as held
                ids[k] = make_free_particle(w, (float)p[k][0], (float)p[k][1], (float)wt[k]);
            }
            sinew_area_def ad = sinew_default_area_def();
            ad.particles = ids;
            ad.count = n;
            ad.pressure = (float)uniform(&rng, 0.6, 1.6);
            sinew_area_id a;
            assert_int_equal(sinew_area_create(w, &ad, &a), SINEW_OK);
            sinew_vec2 before[16];
            for (int k = 0; k < n; ++k) {
                before[k] = position_of(w, ids[k]);
            }
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            double P[2] = {0, 0}, bound[2] = {0, 0};
            for (int k = 0; k < n; ++k) {
                const sinew_vec2 after = position_of(w, ids[k]);
                const double d[2] = {(double)after.x - before[k].x, (double)after.y - before[k].y};
                const double x[2] = {fmax(fabs(after.x), fabs(before[k].x)), fmax(fabs(after.y), fabs(before[k].y))};
                for (int c = 0; c < 2; ++c) {
                    P[c] += d[c] / wt[k];
                    bound[c] += (half_ulp(x[c]) + 4.0 * ldexp(fabs(d[c]), -24)) / wt[k];
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
    }
    print_message("one projection: momentum change up to %.3g of its rounding bound\n", worst);
}

static void pressure_inflates_and_set_pressure_changes_it(void **state)
{
    (void)state;
    // A ring with nothing but its area constraint reaches pressure * rest: nothing resists it.
    // (0.6, not 0.5, after 2: halving the radius in one sub-step is the collapse of
    // a_ring_collapsing_to_a_point_does_not_explode.)
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w = world_with((sinew_solver_mode)mode, sinew_vec2_make(0, 0));
        enum { N = 16 };
        sinew_particle_id ids[N];
        make_ring(w, N, 0.0, 0.0, 1.0, false, ids);
        sinew_area_id a = make_area(w, ids, N, SINEW_REST_CURRENT, 2.0f);
        const float rest = area_of(w, a);
        const float targets[3] = {2.0f, 0.6f, 1.0f};
        for (int t = 0; t < 3; ++t) {
            if (t > 0) {
                assert_int_equal(sinew_area_set_pressure(w, a, targets[t]), SINEW_OK);
            }
            double worst = 0.0;
            for (int s = 0; s < 30; ++s) {
                assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
                worst = fmax(worst, fabs(area_of(w, a) / (targets[t] * rest) - 1.0));
            }
            print_message("%s: bare ring at pressure %.1f: area / target - 1 up to %.3g over 0.5 s\n", mode_names[mode],
                          (double)targets[t], worst);
            // A lone constraint is solved to float rounding within the first sub-step (it is
            // the only one, so 8 iterations converge); 1e-4 leaves room and is far below 1%.
            assert_true(worst < 1e-4);
        }
        sinew_world_destroy(w);
    }

    // A default soft body: pressure 1.5 pulls against the edges, and the area grows from the
    // rest area toward 1.5 rest (Gauss-Seidel projects the area after the edges, so it gets
    // there; Jacobi averages the two). Checked: at least half way, and not past the target by
    // more than 1%. Measured over the last second: 1.5002 rest (Gauss-Seidel) and 1.482 rest
    // (Jacobi), steady.
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w = world_with((sinew_solver_mode)mode, sinew_vec2_make(0, 0));
        sinew_softbody_def d = sinew_default_softbody_def();
        sinew_softbody out = {0};
        assert_int_equal(sinew_softbody_create(w, &d, &out), SINEW_OK);
        const float rest = area_of(w, out.area);
        for (int s = 0; s < 60; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        }
        const float at_one = area_of(w, out.area);
        assert_int_equal(sinew_area_set_pressure(w, out.area, 1.5f), SINEW_OK);
        double least = 1e9, most = 0.0;
        for (int s = 0; s < 120; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            if (s >= 60) {
                least = fmin(least, area_of(w, out.area) / rest);
                most = fmax(most, area_of(w, out.area) / rest);
            }
        }
        print_message("%s: soft body: area / rest %.5f at pressure 1; at 1.5, between %.4f and %.4f\n",
                      mode_names[mode], (double)(at_one / rest), least, most);
        assert_true(fabsf(at_one / rest - 1.0f) < 0.02f); // pressure 1 keeps the rest area (the 2%)
        assert_true(least > 1.25);
        assert_true(most < 1.5 * 1.01);
        sinew_world_destroy(w);
    }
}

static void a_ring_collapsing_to_a_point_does_not_explode(void **state)
{
    (void)state;
    // ENGINE BUG (kept failing on purpose). A bare ring (16 particles on the unit circle, an area
    // constraint and nothing else, zero gravity, default solver) made with pressure 0.25: the
    // first sub-step halves its radius, which gives every vertex the velocity that carries it
    // onto the centre in the second sub-step. All vertices then sit (to rounding) on one point:
    // the gradients are ~0, and area_step (area.c) divides C (~-2.3 m^2) by sum w |grad|^2 ~ 1e-14,
    // checking only that the denominator is > 0. Measured: after one step the particles are
    // 1.2e6 .. 3.6e6 m out, moving at 2.9e8 m/s, and it never recovers. Pressure 0.2 or 0.3 is
    // fine (the predicted ring is then inverted through the centre, which has the same signed
    // area, or just smaller). A collapsed ring has no outward direction; like a distance
    // constraint with coincident ends it should not be corrected (or the correction be bounded).
    double worst = 0.0;
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w = world_with((sinew_solver_mode)mode, sinew_vec2_make(0, 0));
        enum { N = 16 };
        sinew_particle_id ids[N];
        make_ring(w, N, 0.0, 0.0, 1.0, false, ids);
        sinew_area_id a = make_area(w, ids, N, SINEW_REST_CURRENT, 0.25f);
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        double farthest = 0.0;
        for (int k = 0; k < N; ++k) {
            farthest = fmax(farthest, sinew_vec2_length(position_of(w, ids[k])));
        }
        print_message("%s: bare ring at pressure 0.25, after one step: farthest particle %.3g m, area %.3g m^2\n",
                      mode_names[mode], farthest, (double)area_of(w, a));
        sinew_world_destroy(w); // before asserting: a failure must not leak the world
        worst = fmax(worst, farthest);
    }
    // The ring belongs near radius 0.5 (area 0.25 of the unit circle's); 2 m is far out.
    assert_true(worst < 2.0);
}

static void either_winding_works_alike(void **state)
{
    (void)state;
    // The same ring of points, its area constraint given counter-clockwise in one world and
    // clockwise (the same particles in reverse order) in the other, with edges between them. The
    // two solves are the same arithmetic up to the order of sums, so the particles follow the same
    // paths to float rounding.
    for (int mode = 0; mode < 2; ++mode) {
        enum { N = 12 };
        sinew_world *w[2];
        sinew_particle_id ids[2][N];
        sinew_area_id area[2];
        for (int k = 0; k < 2; ++k) {
            w[k] = world_with((sinew_solver_mode)mode, sinew_vec2_make(0, -10));
            make_ring(w[k], N, 0.3, -0.2, 1.0, false, ids[k]);
            for (int i = 0; i < N; ++i) {
                sinew_distance_def dd = sinew_default_distance_def();
                dd.a = ids[k][i];
                dd.b = ids[k][(i + 1) % N];
                dd.compliance = 1e-4f; // stretchable edges, so the area target moves the ring
                sinew_distance_id link;
                assert_int_equal(sinew_distance_create(w[k], &dd, &link), SINEW_OK);
            }
            sinew_particle_id ring[N];
            for (int i = 0; i < N; ++i) {
                ring[i] = ids[k][k == 0 ? i : N - 1 - i];
            }
            const float current = (float)polygon_area(N, 1.0);
            area[k] = make_area(w[k], ring, N, 1.3f * current, 1.0f);
            // Positive whatever the winding.
            assert_near(area_of(w[k], area[k]), current, 1e-5);
        }
        double worst = 0.0;
        for (int s = 0; s < 120; ++s) {
            for (int k = 0; k < 2; ++k) {
                assert_int_equal(sinew_world_step(w[k], dt), SINEW_OK);
            }
            for (int i = 0; i < N; ++i) {
                sinew_vec2 p = position_of(w[0], ids[0][i]), q = position_of(w[1], ids[1][i]);
                worst = fmax(worst, fmax(fabs(p.x - q.x), fabs(p.y - q.y)));
            }
        }
        const float a0 = area_of(w[0], area[0]), a1 = area_of(w[1], area[1]);
        print_message("%s: counter-clockwise area %.6f, clockwise %.6f, largest position difference %.3g m\n",
                      mode_names[mode], (double)a0, (double)a1, worst);
        assert_true(a0 > 0.0f && a1 > 0.0f);
        // Both grew toward 1.3 times the polygon's area (they start at 1.0 times it).
        assert_true(a0 > 1.1f * (float)polygon_area(N, 1.0));
        // Same paths: the solves differ only in summation order, so by a few float roundings per
        // projection; 1e-4 m over 2 s is far above that and far below any real difference
        // (measured: no difference at all, the paths are identical to the bit here).
        assert_true(worst < 1e-4);
        assert_near(a0, a1, 1e-3);
        for (int k = 0; k < 2; ++k) {
            sinew_world_destroy(w[k]);
        }
    }

    // A ring and its mirror image (y -> -y: clockwise in creation order), zero gravity, each
    // given in creation order: mirrored data makes mirrored arithmetic (negation is exact), so
    // the two must stay mirror images; 1e-5 m allows for a stray rounding difference.
    for (int mode = 0; mode < 2; ++mode) {
        enum { N = 10 };
        sinew_world *w[2];
        sinew_particle_id ids[2][N];
        sinew_area_id area[2];
        for (int k = 0; k < 2; ++k) {
            w[k] = world_with((sinew_solver_mode)mode, sinew_vec2_make(0, 0));
            make_ring(w[k], N, 0.3, 0.0, 1.0, k == 1, ids[k]);
            for (int i = 0; i < N; ++i) {
                sinew_distance_def dd = sinew_default_distance_def();
                dd.a = ids[k][i];
                dd.b = ids[k][(i + 1) % N];
                dd.compliance = 1e-4f;
                sinew_distance_id link;
                assert_int_equal(sinew_distance_create(w[k], &dd, &link), SINEW_OK);
            }
            area[k] = make_area(w[k], ids[k], N, SINEW_REST_CURRENT, 1.4f);
        }
        double worst = 0.0;
        for (int s = 0; s < 60; ++s) {
            for (int k = 0; k < 2; ++k) {
                assert_int_equal(sinew_world_step(w[k], dt), SINEW_OK);
            }
            for (int i = 0; i < N; ++i) {
                sinew_vec2 p = position_of(w[0], ids[0][i]), q = position_of(w[1], ids[1][i]);
                worst = fmax(worst, fmax(fabs(p.x - q.x), fabs(p.y + q.y)));
            }
        }
        const float a0 = area_of(w[0], area[0]), a1 = area_of(w[1], area[1]);
        print_message("%s: ring %.6f, its mirror image %.6f, largest difference from mirrored %.3g m\n",
                      mode_names[mode], (double)a0, (double)a1, worst);
        assert_true(a0 > 1.2f * (float)polygon_area(N, 1.0) && a1 > 1.2f * (float)polygon_area(N, 1.0));
        assert_true(worst < 1e-5);
        for (int k = 0; k < 2; ++k) {
            sinew_world_destroy(w[k]);
        }
    }
}

static void a_crushed_ring_recovers_and_never_turns_inside_out(void **state)
{
    (void)state;
    // Two crushes of a default soft body at rest in zero gravity, by teleporting its particles
    // inward (never past the centre): flattened to 15% of its height, and a deep dent (a quarter
    // of the ring pulled to 20% of the radius). Each step the signed area must stay positive
    // (get_area is positive unless the ring is inside out) and within 2 s it is back within the
    // issue's 2% of rest.
    for (int mode = 0; mode < 2; ++mode) {
        for (int crush = 0; crush < 2; ++crush) {
            for (int inside = 0; inside < 3; ++inside) {
                sinew_world *w = world_with((sinew_solver_mode)mode, sinew_vec2_make(0, 0));
                sinew_softbody_def d = sinew_default_softbody_def();
                d.inside = (sinew_softbody_inside)inside;
                sinew_particle_id ids[25];
                sinew_softbody out = {.particles = ids};
                assert_int_equal(sinew_softbody_create(w, &d, &out), SINEW_OK);
                const float rest = area_of(w, out.area);
                for (int k = 0; k < d.points; ++k) {
                    sinew_vec2 p = position_of(w, ids[k]);
                    if (crush == 0) {
                        p.y *= 0.15f;
                    } else if (k < d.points / 4) {
                        p = sinew_vec2_scale(p, 0.2f);
                    }
                    assert_int_equal(sinew_particle_set_position(w, ids[k], p), SINEW_OK);
                }
                const float crushed = area_of(w, out.area);
                assert_true(crushed > 0.0f && crushed < 0.9f * rest);
                float smallest = crushed;
                for (int s = 0; s < 120; ++s) {
                    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
                    const float a = area_of(w, out.area);
                    smallest = fminf(smallest, a);
                    assert_true(a > 0.0f);
                }
                const float end = area_of(w, out.area);
                print_message("%s, %s, %s: crushed to %.3f of rest, smallest %.3f, after 2 s %.4f\n",
                              mode_names[mode], crush == 0 ? "flattened" : "dented", inside_names[inside],
                              (double)(crushed / rest), (double)(smallest / rest), (double)(end / rest));
                assert_true(fabsf(end / rest - 1.0f) < 0.02f);
                sinew_world_destroy(w);
            }
        }
    }
}

// One projection by the formula of area.c's header comment, in double: C = sign A - pressure
// rest, grad_k = 1/2 perp(p_{k+1} - p_{k-1}), dlambda = stiffness (-C) / sum w |grad|^2,
// p_k += w_k sign dlambda grad_k (sign: +1 counter-clockwise, -1 clockwise).
static void project_by_hand(int n, const double (*p)[2], const double *w, double rest, double pressure, double (*out)[2])
{
    double area = 0.0;
    for (int k = 0; k < n; ++k) {
        const int j = (k + 1) % n;
        area += 0.5 * (p[k][0] * p[j][1] - p[j][0] * p[k][1]);
    }
    const double sign = area > 0.0 ? 1.0 : -1.0;
    const double C = sign * area - pressure * rest;
    double g[16][2], denom = 0.0;
    for (int k = 0; k < n; ++k) {
        const int next = (k + 1) % n, prev = (k + n - 1) % n;
        g[k][0] = 0.5 * (p[next][1] - p[prev][1]);
        g[k][1] = 0.5 * (p[prev][0] - p[next][0]);
        denom += w[k] * (g[k][0] * g[k][0] + g[k][1] * g[k][1]);
    }
    const double dl = -C / denom;
    for (int k = 0; k < n; ++k) {
        out[k][0] = p[k][0] + w[k] * sign * dl * g[k][0];
        out[k][1] = p[k][1] + w[k] * sign * dl * g[k][1];
    }
}

static void one_projection_matches_the_formula(void **state)
{
    (void)state;
    // Unit square, weights 1, rest area 2: C = -1, each |grad|^2 = 1/2, dlambda = 1/2, so every
    // corner moves by (1/2)(1/2)(1, 1)/... = 0.25 along each axis outward: the square becomes
    // [-0.25, 1.25]^2. Also an irregular quad with unequal weights (one immovable), and the
    // square given clockwise. One sub-step, one iteration, zero gravity, particles at rest: the
    // integration moves nothing, so the step is exactly one projection.
    const double square[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    const double square_cw[4][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
    const double quad[4][2] = {{-0.3, 0.1}, {1.2, -0.2}, {0.9, 0.8}, {0.1, 1.1}};
    const double ones[4] = {1, 1, 1, 1}, mixed[4] = {1, 0.5, 2, 0};
    const struct {
        const double (*p)[2];
        const double *w;
        double rest, pressure;
    } cases[] = {{square, ones, 2.0, 1.0}, {square_cw, ones, 2.0, 1.0}, {quad, mixed, 1.7, 1.0}, {quad, mixed, 1.0, 0.5}};
    for (int mode = 0; mode < 2; ++mode) {
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            sinew_world *w = one_projection_world((sinew_solver_mode)mode);
            sinew_particle_id ids[4];
            for (int k = 0; k < 4; ++k) {
                ids[k] = make_free_particle(w, (float)cases[c].p[k][0], (float)cases[c].p[k][1], (float)cases[c].w[k]);
            }
            make_area(w, ids, 4, (float)cases[c].rest, (float)cases[c].pressure);
            double from[4][2], expect[4][2], area = 0.0;
            for (int k = 0; k < 4; ++k) { // the float positions, as the engine holds them
                sinew_vec2 p = position_of(w, ids[k]);
                from[k][0] = p.x;
                from[k][1] = p.y;
            }
            for (int k = 0; k < 4; ++k) { // signed, positive counter-clockwise
                area += 0.5 * (from[k][0] * from[(k + 1) % 4][1] - from[(k + 1) % 4][0] * from[k][1]);
            }
            project_by_hand(4, (const double (*)[2])from, cases[c].w, cases[c].rest, cases[c].pressure, expect);
            if (c == 0) { // the square by hand: corners 0.25 out along both axes
                assert_near(expect[0][0], -0.25, 1e-15);
                assert_near(expect[2][1], 1.25, 1e-15);
            }
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            for (int k = 0; k < 4; ++k) {
                sinew_vec2 got = position_of(w, ids[k]);
                // The engine sums the area in double and the gradients and products in float:
                // a few float roundings (1.2e-7 relative) of coordinates and moves of order 1.
                assert_near(got.x, expect[k][0], 1e-6);
                assert_near(got.y, expect[k][1], 1e-6);
                // Outward: the move has a positive component along the outward normal, which
                // is the gradient of the area (times the winding sign).
                const double mx = got.x - from[k][0], my = got.y - from[k][1];
                if (cases[c].w[k] > 0.0) {
                    const int next = (k + 1) % 4, prev = (k + 3) % 4;
                    double nx = from[next][1] - from[prev][1], ny = from[prev][0] - from[next][0];
                    const double grow = cases[c].pressure * cases[c].rest > fabs(area) ? 1.0 : -1.0;
                    const double sign = area > 0.0 ? 1.0 : -1.0; // the winding
                    assert_true(grow * sign * (mx * nx + my * ny) > 0.0);
                } else {
                    assert_true(mx == 0.0 && my == 0.0); // weight 0 never moves
                }
            }
            sinew_world_destroy(w);
        }
    }
}

typedef struct bad_area_case {
    const char *what;
    int count;
    int ring[4];  // indices into the world's particles; -1 = a destroyed particle, -2 = null id
    float rest, pressure, stiffness, compliance;
    bool null_particles;
    sinew_status expected;
} bad_area_case;

static void bad_area_defs_are_refused_and_create_nothing(void **state)
{
    (void)state;
    const float R = SINEW_REST_CURRENT;
    const bad_area_case cases[] = {
        {"null particles", 3, {0, 1, 2}, R, 1, 1, 0, true, SINEW_ERR_NULL_ARGUMENT},
        {"stale id", 3, {0, 1, -1}, R, 1, 1, 0, false, SINEW_ERR_INVALID_ID},
        {"null id", 3, {-2, 1, 2}, R, 1, 1, 0, false, SINEW_ERR_INVALID_ID},
        {"repeated particle", 4, {0, 1, 2, 0}, R, 1, 1, 0, false, SINEW_ERR_SAME_PARTICLE},
        {"repeated neighbours", 3, {0, 1, 1}, R, 1, 1, 0, false, SINEW_ERR_SAME_PARTICLE},
        {"count 2", 2, {0, 1}, R, 1, 1, 0, false, SINEW_ERR_OUT_OF_RANGE},
        {"count 0", 0, {0}, R, 1, 1, 0, false, SINEW_ERR_OUT_OF_RANGE},
        {"count -1", -1, {0}, R, 1, 1, 0, false, SINEW_ERR_OUT_OF_RANGE},
        {"zero-area ring", 3, {0, 1, 3}, R, 1, 1, 0, false, SINEW_ERR_OUT_OF_RANGE},
        {"rest 0", 3, {0, 1, 2}, 0.0f, 1, 1, 0, false, SINEW_ERR_OUT_OF_RANGE},
        {"rest -2", 3, {0, 1, 2}, -2.0f, 1, 1, 0, false, SINEW_ERR_OUT_OF_RANGE},
        {"rest NaN", 3, {0, 1, 2}, NAN, 1, 1, 0, false, SINEW_ERR_NOT_FINITE},
        {"rest inf", 3, {0, 1, 2}, INFINITY, 1, 1, 0, false, SINEW_ERR_NOT_FINITE},
        {"pressure 0", 3, {0, 1, 2}, R, 0, 1, 0, false, SINEW_ERR_OUT_OF_RANGE},
        {"pressure -1", 3, {0, 1, 2}, R, -1, 1, 0, false, SINEW_ERR_OUT_OF_RANGE},
        {"pressure NaN", 3, {0, 1, 2}, R, NAN, 1, 0, false, SINEW_ERR_NOT_FINITE},
        {"pressure inf", 3, {0, 1, 2}, R, INFINITY, 1, 0, false, SINEW_ERR_NOT_FINITE},
        {"stiffness 1.5", 3, {0, 1, 2}, R, 1, 1.5f, 0, false, SINEW_ERR_OUT_OF_RANGE},
        {"stiffness -0.1", 3, {0, 1, 2}, R, 1, -0.1f, 0, false, SINEW_ERR_OUT_OF_RANGE},
        {"stiffness NaN", 3, {0, 1, 2}, R, 1, NAN, 0, false, SINEW_ERR_NOT_FINITE},
        {"compliance -1", 3, {0, 1, 2}, R, 1, 1, -1.0f, false, SINEW_ERR_OUT_OF_RANGE},
        {"compliance inf", 3, {0, 1, 2}, R, 1, 1, INFINITY, false, SINEW_ERR_NOT_FINITE},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        sinew_world *w = world_with(SINEW_SOLVER_GAUSS_SEIDEL, sinew_vec2_make(0, 0));
        // Particles 0, 1, 2 make a triangle; 3 is on the line through 0 and 1.
        sinew_particle_id p[4] = {make_particle(w, 0, 0, 1), make_particle(w, 1, 0, 1), make_particle(w, 0, 1, 1),
                                  make_particle(w, 2, 0, 1)};
        sinew_particle_id dead = make_particle(w, 5, 5, 1);
        assert_int_equal(sinew_particle_destroy(w, dead), SINEW_OK);
        sinew_particle_id ring[4];
        for (int k = 0; k < 4; ++k) {
            const int i = cases[c].ring[k];
            ring[k] = i >= 0 ? p[i] : i == -1 ? dead : (sinew_particle_id)SINEW_NULL_ID;
        }
        sinew_area_def d = sinew_default_area_def();
        d.particles = cases[c].null_particles ? NULL : ring;
        d.count = cases[c].count;
        d.rest_area = cases[c].rest;
        d.pressure = cases[c].pressure;
        d.stiffness = cases[c].stiffness;
        d.compliance = cases[c].compliance;
        const uint64_t h = hash_positions(w);
        sinew_area_id out = {77u, 77u};
        sinew_status s = sinew_area_create(w, &d, &out);
        assert_status(s, cases[c].expected, "%s", cases[c].what);
        assert_true(out.index1 == 77u && out.generation == 77u); // untouched
        assert_true(strlen(sinew_world_last_error(w)) > 0);
        assert_true(hash_positions(w) == h);
        assert_int_equal(area_count(w), 0);
        sinew_world_destroy(w);
    }

    // NULL world, def and out.
    sinew_world *w = world_with(SINEW_SOLVER_GAUSS_SEIDEL, sinew_vec2_make(0, 0));
    sinew_particle_id p[3] = {make_particle(w, 0, 0, 1), make_particle(w, 1, 0, 1), make_particle(w, 0, 1, 1)};
    sinew_area_def d = sinew_default_area_def();
    d.particles = p;
    d.count = 3;
    sinew_area_id out = {0};
    assert_int_equal(sinew_area_create(NULL, &d, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_area_create(w, NULL, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(area_count(w), 0);
    // The defaults are the header's, and they make a working constraint.
    assert_true(d.rest_area == SINEW_REST_CURRENT && d.pressure == 1.0f && d.stiffness == 1.0f && d.compliance == 0.0f);
    assert_int_equal(sinew_area_create(w, &d, &out), SINEW_OK);
    assert_true(sinew_area_is_valid(w, out));
    assert_int_equal(area_count(w), 1);
    sinew_world_destroy(w);
}

static void a_zero_area_ring_is_refused_even_with_a_rest_area(void **state)
{
    (void)state;
    // A ring whose area is 0 now has no winding, so its constraint could not tell outward from
    // inward; the engine refuses it whatever the rest area. (The header's list names only "a
    // current area of 0 with SINEW_REST_CURRENT"; the refusal with an explicit rest is what
    // area.c does, and the safe choice.)
    sinew_world *w = world_with(SINEW_SOLVER_GAUSS_SEIDEL, sinew_vec2_make(0, 0));
    sinew_particle_id p[3] = {make_particle(w, 0, 0, 1), make_particle(w, 1, 0, 1), make_particle(w, 2, 0, 1)};
    sinew_area_def d = sinew_default_area_def();
    d.particles = p;
    d.count = 3;
    d.rest_area = 1.0f;
    sinew_area_id out = {0};
    assert_int_equal(sinew_area_create(w, &d, &out), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(area_count(w), 0);
    sinew_world_destroy(w);
}

static void set_pressure_and_get_area_refuse_bad_input(void **state)
{
    (void)state;
    sinew_world *w = world_with(SINEW_SOLVER_GAUSS_SEIDEL, sinew_vec2_make(0, 0));
    enum { N = 8 };
    sinew_particle_id ids[N];
    make_ring(w, N, 0.0, 0.0, 1.0, false, ids);
    sinew_area_id a = make_area(w, ids, N, SINEW_REST_CURRENT, 1.0f);
    const float rest = area_of(w, a);
    const sinew_area_id null_id = SINEW_NULL_ID;
    const sinew_area_id forged = {a.index1, a.generation + 1u};

    assert_int_equal(sinew_area_set_pressure(NULL, a, 2.0f), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_area_set_pressure(w, null_id, 2.0f), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_area_set_pressure(w, forged, 2.0f), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_area_set_pressure(w, a, 0.0f), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_area_set_pressure(w, a, -1.0f), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_area_set_pressure(w, a, NAN), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_area_set_pressure(w, a, INFINITY), SINEW_ERR_NOT_FINITE);
    // None of them changed the pressure: the ring at rest keeps its rest area (to float rounding
    // of the rest area itself, 1e-7 relative; 1e-5 leaves room and is far below a change).
    for (int s = 0; s < 10; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    assert_near(area_of(w, a), rest, 1e-5 * rest);

    float out = 123.0f;
    assert_int_equal(sinew_area_get_area(NULL, a, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_area_get_area(w, a, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_area_get_area(w, null_id, &out), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_area_get_area(w, forged, &out), SINEW_ERR_INVALID_ID);
    assert_true(out == 123.0f); // untouched
    assert_false(sinew_area_is_valid(w, null_id));
    assert_false(sinew_area_is_valid(NULL, a));
    assert_false(sinew_area_is_valid(w, forged));

    // Destroyed: every call on the id refuses it.
    assert_int_equal(sinew_area_destroy(w, a), SINEW_OK);
    assert_false(sinew_area_is_valid(w, a));
    assert_int_equal(sinew_area_destroy(w, a), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_area_destroy(NULL, a), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_area_set_pressure(w, a, 2.0f), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_area_get_area(w, a, &out), SINEW_ERR_INVALID_ID);
    assert_int_equal(area_count(w), 0);
    sinew_world_destroy(w);
}

static void limits_and_out_of_memory_create_nothing(void **state)
{
    (void)state;
    // max_constraints: the second area constraint is over the limit.
    sinew_world_def def = sinew_default_world_def();
    def.max_constraints = 1;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    sinew_particle_id ids[6];
    make_ring(w, 6, 0.0, 0.0, 1.0, false, ids);
    make_area(w, ids, 6, SINEW_REST_CURRENT, 1.0f);
    sinew_area_def d = sinew_default_area_def();
    d.particles = ids;
    d.count = 6;
    sinew_area_id out = {77u, 77u};
    assert_int_equal(sinew_area_create(w, &d, &out), SINEW_ERR_CAPACITY);
    assert_true(out.index1 == 77u);
    assert_int_equal(area_count(w), 1);
    sinew_world_destroy(w);

    // Out of memory at every allocation the creation makes: nothing is created, and the world
    // still creates it once memory is back.
    for (int64_t budget = 0;; ++budget) {
        counting_allocator c;
        def = sinew_default_world_def();
        def.allocator = counting_allocator_make(&c);
        def.constraint_capacity = 0;
        w = NULL;
        assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
        sinew_particle_id ring[40];
        make_ring(w, 40, 0.0, 0.0, 1.0, false, ring);
        sinew_area_id first = make_area(w, ring, 40, SINEW_REST_CURRENT, 1.0f); // the pool holds one ring
        const uint64_t h = hash_positions(w);
        c.fail_after = (int64_t)c.allocs + budget;
        d.particles = ring;
        d.count = 40;
        out = (sinew_area_id){77u, 77u};
        sinew_status s = sinew_area_create(w, &d, &out);
        c.fail_after = -1;
        if (s == SINEW_OK) {
            assert_true(budget >= 1); // the second ring needs room in the pool at least
            assert_int_equal(area_count(w), 2);
            sinew_world_destroy(w);
            assert_true(c.live_bytes == 0u);
            break;
        }
        assert_int_equal(s, SINEW_ERR_OUT_OF_MEMORY);
        assert_true(out.index1 == 77u);
        assert_true(hash_positions(w) == h);
        assert_true(sinew_world_byte_count(w) == c.live_bytes);
        assert_int_equal(area_count(w), 1);
        assert_true(sinew_area_is_valid(w, first));
        assert_int_equal(sinew_area_create(w, &d, &out), SINEW_OK);
        assert_int_equal(area_count(w), 2);
        sinew_world_destroy(w);
        assert_true(c.live_bytes == 0u);
        assert_true(budget < 16); // a creation makes a handful of allocations, not more
    }
}

static void destroying_a_ring_particle_destroys_the_constraint(void **state)
{
    (void)state;
    // Two rings; particles of the first are destroyed one way or another, the second must be
    // untouched (its area the same before and after: the dense indices it holds are remapped
    // when the last particle moves into a freed slot).
    const int victims[] = {0, 3, 5}; // first, middle, last particle of the first ring
    for (size_t v = 0; v < sizeof victims / sizeof victims[0]; ++v) {
        sinew_world *w = world_with(SINEW_SOLVER_GAUSS_SEIDEL, sinew_vec2_make(0, 0));
        sinew_particle_id r1[6], r2[7];
        make_ring(w, 6, 0.0, 0.0, 1.0, false, r1);
        make_ring(w, 7, 5.0, 0.0, 0.7, true, r2);
        sinew_area_id a1 = make_area(w, r1, 6, SINEW_REST_CURRENT, 1.0f);
        sinew_area_id a2 = make_area(w, r2, 7, SINEW_REST_CURRENT, 1.0f);
        const float before = area_of(w, a2);
        assert_int_equal(area_count(w), 2);
        assert_int_equal(sinew_particle_destroy(w, r1[victims[v]]), SINEW_OK);
        assert_false(sinew_area_is_valid(w, a1));
        assert_true(sinew_area_is_valid(w, a2));
        assert_true(area_of(w, a2) == before);
        assert_int_equal(area_count(w), 1);
        // The second ring still works: a pressure change moves it, and only it.
        assert_int_equal(sinew_area_set_pressure(w, a2, 1.5f), SINEW_OK);
        for (int s = 0; s < 30; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        }
        assert_near(area_of(w, a2), 1.5 * before, 0.01 * before);
        // Destroying a particle of the second ring (the last one made: no swap) ends it too.
        assert_int_equal(sinew_particle_destroy(w, r2[6]), SINEW_OK);
        assert_false(sinew_area_is_valid(w, a2));
        assert_int_equal(area_count(w), 0);
        sinew_world_destroy(w);
    }
}

// The rest area reads back and can be changed: the ring then grows to the new target; bad values
// are refused and change nothing.
static void the_rest_area_reads_back_and_a_new_one_is_reached(void **state)
{
    (void)state;
    sinew_world_def def = sinew_default_world_def();
    def.gravity = sinew_vec2_make(0.0f, 0.0f);
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    sinew_particle_id ids[16];
    make_ring(w, 16, 0.0, 0.0, 1.0, false, ids);
    const sinew_area_id a = make_area(w, ids, 16, SINEW_REST_CURRENT, 1.0f);
    float rest = 0.0f, area = 0.0f;
    assert_int_equal(sinew_area_get_rest(w, a, &rest), SINEW_OK);
    assert_int_equal(sinew_area_get_area(w, a, &area), SINEW_OK);
    assert_true(fabsf(rest - area) < 1e-5f * rest);
    assert_int_equal(sinew_area_set_rest(w, a, 0.0f), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_area_set_rest(w, a, NAN), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_area_set_rest(w, a, 1e31f), SINEW_ERR_OUT_OF_RANGE);
    float again = 0.0f;
    assert_int_equal(sinew_area_get_rest(w, a, &again), SINEW_OK);
    assert_true(again == rest);
    assert_int_equal(sinew_area_set_rest(w, a, 1.5f * rest), SINEW_OK);
    for (int s = 0; s < 120; ++s) {
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    }
    assert_int_equal(sinew_area_get_area(w, a, &area), SINEW_OK);
    assert_true(fabsf(area - 1.5f * rest) < 0.02f * rest);
    sinew_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(soft_bodies_keep_their_area_on_a_floor),
        cmocka_unit_test(the_rest_area_reads_back_and_a_new_one_is_reached),
        cmocka_unit_test(a_free_soft_body_keeps_its_momentum),
        cmocka_unit_test(one_projection_keeps_momentum),
        cmocka_unit_test(pressure_inflates_and_set_pressure_changes_it),
        cmocka_unit_test(a_ring_collapsing_to_a_point_does_not_explode),
        cmocka_unit_test(either_winding_works_alike),
        cmocka_unit_test(a_crushed_ring_recovers_and_never_turns_inside_out),
        cmocka_unit_test(one_projection_matches_the_formula),
        cmocka_unit_test(bad_area_defs_are_refused_and_create_nothing),
        cmocka_unit_test(a_zero_area_ring_is_refused_even_with_a_rest_area),
        cmocka_unit_test(set_pressure_and_get_area_refuse_bad_input),
        cmocka_unit_test(limits_and_out_of_memory_create_nothing),
        cmocka_unit_test(destroying_a_ring_particle_destroys_the_constraint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
