// Verlet integration: x' = x + (x - px) (h / h_prev) exp(-damping h) + a h^2.
#include <math.h>

#include "support.h"

static sinew_world *free_world(float gx, float gy, int substeps, float damping)
{
    sinew_world_def def = sinew_default_world_def();
    def.gravity = sinew_vec2_make(gx, gy);
    def.solver.substeps = substeps;
    def.damping = damping;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    return w;
}

static sinew_particle_id launch(sinew_world *w, sinew_vec2 x0, sinew_vec2 v0)
{
    sinew_particle_def p = sinew_default_particle_def();
    p.position = x0;
    p.velocity = v0;
    sinew_particle_id id;
    assert_int_equal(sinew_particle_create(w, &p, &id), SINEW_OK);
    return id;
}

static void free_fall_matches_the_parabola_within_the_verlet_bound(void **state)
{
    (void)state;
    // With px = x0 - v0 h, position Verlet gives x_n = x0 + v0 t + g t^2 / 2 + g h t / 2 exactly
    // (in real arithmetic): the error of the parabola is bounded by |g| h t / 2.
    const int substeps_list[] = {1, 4, 16};
    for (int s = 0; s < 3; ++s) {
        const int substeps = substeps_list[s];
        sinew_world *w = free_world(0.0f, -10.0f, substeps, 0.0f);
        const sinew_vec2 x0 = sinew_vec2_make(1.0f, 100.0f), v0 = sinew_vec2_make(2.0f, 5.0f);
        sinew_particle_id id = launch(w, x0, v0);
        const float dt = 1.0f / 60.0f;
        const double h = (double)dt / substeps;
        for (int n = 1; n <= 120; ++n) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            double t = n * (double)dt;
            sinew_vec2 p = position_of(w, id);
            double exact_y = x0.y + v0.y * t - 5.0 * t * t;
            double bound = 10.0 * h * t / 2.0;
            // float rounding of a coordinate near 100 over n * substeps additions: < 1e-3
            double slack = 1e-5 * n * substeps;
            assert_true(fabs(p.y - exact_y) <= bound + slack);
            assert_near(p.x, x0.x + v0.x * t, slack);
        }
        // The bound is tight: the error is the g h t / 2 term, so it shrinks with sub-steps.
        sinew_vec2 p = position_of(w, id);
        double t = 2.0;
        double err = fabs(p.y - (x0.y + v0.y * t - 5.0 * t * t));
        assert_near(err, 10.0 * h * t / 2.0, 0.25 * 10.0 * h * t / 2.0 + 1e-3);
        sinew_world_destroy(w);
    }
}

static void velocity_round_trips_and_constant_velocity_is_exact(void **state)
{
    (void)state;
    sinew_world *w = free_world(0.0f, 0.0f, 4, 0.0f);
    sinew_particle_id id = launch(w, sinew_vec2_make(0, 0), sinew_vec2_make(3.0f, -1.5f));
    sinew_vec2 v;
    assert_int_equal(sinew_particle_get_velocity(w, id, &v), SINEW_OK);
    assert_near(v.x, 3.0, 1e-4);
    assert_near(v.y, -1.5, 1e-4);
    // A changing dt (time-corrected Verlet) and changing sub-steps keep the velocity.
    const float dts[] = {1.0f / 60.0f, 1.0f / 30.0f, 1.0f / 144.0f, 0.05f};
    const int subs[] = {4, 1, 7, 2};
    double t = 0.0;
    for (int k = 0; k < 4; ++k) {
        sinew_solver_def s = sinew_world_get_solver(w);
        s.substeps = subs[k];
        assert_int_equal(sinew_world_set_solver(w, &s), SINEW_OK);
        assert_int_equal(sinew_world_step(w, dts[k]), SINEW_OK);
        t += dts[k];
        sinew_vec2 p = position_of(w, id);
        assert_near(p.x, 3.0 * t, 1e-4);
        assert_near(p.y, -1.5 * t, 1e-4);
        assert_int_equal(sinew_particle_get_velocity(w, id, &v), SINEW_OK);
        assert_near(v.x, 3.0, 1e-3);
        assert_near(v.y, -1.5, 1e-3);
    }
    assert_int_equal(sinew_particle_set_velocity(w, id, sinew_vec2_make(-1.0f, 0.0f)), SINEW_OK);
    sinew_vec2 before = position_of(w, id);
    sinew_world_step(w, 0.5f);
    assert_near(position_of(w, id).x, before.x - 0.5, 1e-4);
    sinew_world_destroy(w);
}

static void damping_decays_velocity_exponentially_whatever_the_substeps(void **state)
{
    (void)state;
    const float c = 2.0f; // 1/s
    for (int substeps = 1; substeps <= 16; substeps *= 4) {
        sinew_world *w = free_world(0.0f, 0.0f, substeps, c);
        sinew_particle_id id = launch(w, sinew_vec2_make(0, 0), sinew_vec2_make(1.0f, 0.0f));
        for (int n = 0; n < 60; ++n) {
            sinew_world_step(w, 1.0f / 60.0f);
        }
        sinew_vec2 v;
        sinew_particle_get_velocity(w, id, &v);
        // exp(-c t) at t = 1 s, within float rounding of 60 * substeps multiplications.
        assert_near(v.x, exp(-2.0), 1e-3);
        sinew_world_destroy(w);
    }
}

static void weight_zero_never_moves(void **state)
{
    (void)state;
    sinew_world *w = free_world(3.0f, -10.0f, 4, 0.0f);
    sinew_particle_def p = sinew_default_particle_def();
    p.position = sinew_vec2_make(2.0f, 3.0f);
    p.velocity = sinew_vec2_make(50.0f, 50.0f); // ignored: immovable particles keep their place
    p.weight = 0.0f;
    sinew_particle_id fixed;
    assert_int_equal(sinew_particle_create(w, &p, &fixed), SINEW_OK);
    sinew_particle_id mover = launch(w, sinew_vec2_make(5.0f, 3.0f), sinew_vec2_make(0, 0));
    make_link(w, fixed, mover);
    for (int n = 0; n < 200; ++n) {
        sinew_particle_apply_force(w, fixed, sinew_vec2_make(1000.0f, 1000.0f));
        sinew_world_step(w, 1.0f / 60.0f);
        sinew_vec2 q = position_of(w, fixed);
        assert_true(q.x == 2.0f && q.y == 3.0f);
    }
    sinew_world_destroy(w);
}

// A step with no force applied reads no force (every one is zero then): it must move particles
// exactly as a step whose forces are all zero does, gravity's negative zero included.
static void no_force_and_zero_forces_step_alike(void **state)
{
    (void)state;
    const float gravities[2][2] = {{0.0f, -10.0f}, {-0.0f, -9.81f}};
    for (int k = 0; k < 2; ++k) {
        sinew_world *plain = free_world(gravities[k][0], gravities[k][1], 4, 0.1f);
        sinew_world *pushed = free_world(gravities[k][0], gravities[k][1], 4, 0.1f);
        sinew_particle_id a[8], b[8];
        for (int i = 0; i < 8; ++i) {
            const sinew_vec2 x0 = sinew_vec2_make(k == 1 && i == 0 ? -0.0f : 0.5f * (float)i, 10.0f);
            const sinew_vec2 v0 = sinew_vec2_make(k == 1 ? -0.0f : 0.0f, (float)i - 4.0f);
            a[i] = launch(plain, x0, v0);
            b[i] = launch(pushed, x0, v0);
        }
        for (int n = 0; n < 60; ++n) {
            for (int i = 0; i < 8; ++i) {
                assert_int_equal(sinew_particle_apply_force(pushed, b[i], sinew_vec2_make(0.0f, 0.0f)), SINEW_OK);
            }
            assert_int_equal(sinew_world_step(plain, 1.0f / 60.0f), SINEW_OK);
            assert_int_equal(sinew_world_step(pushed, 1.0f / 60.0f), SINEW_OK);
        }
        for (int i = 0; i < 8; ++i) {
            sinew_vec2 pa, pb, va, vb;
            assert_int_equal(sinew_particle_get_position(plain, a[i], &pa), SINEW_OK);
            assert_int_equal(sinew_particle_get_position(pushed, b[i], &pb), SINEW_OK);
            assert_int_equal(sinew_particle_get_velocity(plain, a[i], &va), SINEW_OK);
            assert_int_equal(sinew_particle_get_velocity(pushed, b[i], &vb), SINEW_OK);
            assert_memory_equal(&pa, &pb, sizeof pa);
            assert_memory_equal(&va, &vb, sizeof va);
        }
        sinew_world_destroy(plain);
        sinew_world_destroy(pushed);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(free_fall_matches_the_parabola_within_the_verlet_bound),
        cmocka_unit_test(velocity_round_trips_and_constant_velocity_is_exact),
        cmocka_unit_test(damping_decays_velocity_exponentially_whatever_the_substeps),
        cmocka_unit_test(weight_zero_never_moves),
        cmocka_unit_test(no_force_and_zero_forces_step_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
