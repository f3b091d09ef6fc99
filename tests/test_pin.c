// Pins: a constraint on weighted particles (mouse spring, IK goal), kinematic on weight-0 ones
// (a hard pin, a dragged end); PBD with stiffness, XPBD with compliance; in both solver modes.
#include <math.h>
#include <string.h>

#include "support.h"

static const float dt = 1.0f / 60.0f;

static const sinew_solver_mode modes[2] = {SINEW_SOLVER_GAUSS_SEIDEL, SINEW_SOLVER_JACOBI};

// A stiff pin (stiffness 1, compliance 0) on a lone weighted particle: in Gauss-Seidel one
// projection lands on the target up to one rounding of coordinates of a few metres (ulp 4.8e-7);
// in Jacobi each iteration multiplies the error by |1 - omega|, at most 0.5 for any omega in
// [0.5, 1.5] (the default is in there), so 8 iterations leave 1/256 of what a sub-step's
// prediction missed (free fall g h^2 = 1.7e-4 m): 7e-7 m. 1e-5 m bounds both and is still 17
// times smaller than one sub-step of free fall.
#define HOLD_TOL 1e-5

static sinew_pin_id make_pin(sinew_world *w, sinew_particle_id p, sinew_vec2 target, float stiffness, float compliance)
{
    sinew_pin_def d = sinew_default_pin_def();
    d.particle = p;
    d.target = target;
    d.stiffness = stiffness;
    d.compliance = compliance;
    sinew_pin_id id;
    assert_int_equal(sinew_pin_create(w, &d, &id), SINEW_OK);
    return id;
}

static float pin_error(const sinew_world *w, sinew_particle_id p, sinew_vec2 target)
{
    return sinew_vec2_distance(position_of(w, p), target);
}

static void default_pin_def_matches_the_header(void **state)
{
    (void)state;
    sinew_pin_def d = sinew_default_pin_def();
    assert_true(SINEW_ID_IS_NULL(d.particle));
    assert_true(d.target.x == 0.0f && d.target.y == 0.0f);
    assert_true(d.stiffness == 1.0f);
    assert_true(d.compliance == 0.0f);
    assert_true(isinf(d.max_force) && d.max_force > 0.0f);
}

// The force a rigid pin reads is what holds the particle up: m g, in both modes.
static void a_pin_reads_the_weight_it_holds_and_max_force_caps_it(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        sinew_world *w = make_world(modes[m]);
        const sinew_vec2 target = sinew_vec2_make(1.5f, 2.0f);
        const sinew_particle_id p = make_particle(w, target.x, target.y, 0.5f); // 2 kg
        const sinew_pin_id pin = make_pin(w, p, target, 1.0f, 0.0f);
        sinew_vec2 f;
        assert_int_equal(sinew_pin_get_force(w, pin, &f), SINEW_OK);
        assert_true(f.x == 0.0f && f.y == 0.0f); // before the first step
        for (int s = 0; s < 30; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        }
        assert_int_equal(sinew_pin_get_force(w, pin, &f), SINEW_OK);
        assert_near(f.x, 0.0f, 1e-3f);
        assert_near(f.y, 2.0f * 10.0f, 0.01f * 20.0f);
        // Held to 15 N, less than its 20 N weight, the pin lets the particle fall behind, pulling
        // with 15 N (and gravity wins by 5 N: about 2.5 m/s^2 down).
        assert_int_equal(sinew_pin_set_max_force(w, pin, 15.0f), SINEW_OK);
        for (int s = 0; s < 30; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            assert_int_equal(sinew_pin_get_force(w, pin, &f), SINEW_OK);
            assert_true(sinew_vec2_length(f) <= 15.0f * 1.0001f);
        }
        assert_near(sinew_vec2_length(f), 15.0f, 0.01f);
        const float fell = target.y - position_of(w, p).y; // 0.5 a t^2 = 0.31 m after 0.5 s
        assert_true(fell > 0.25f && fell < 0.4f);
        sinew_pin_def got;
        assert_int_equal(sinew_pin_get(w, pin, &got), SINEW_OK);
        assert_true(got.max_force == 15.0f);
        sinew_world_destroy(w);
    }
}

static void a_stiff_pin_holds_a_weighted_particle_under_gravity(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        sinew_world *w = make_world(modes[m]);
        const sinew_vec2 target = sinew_vec2_make(1.5f, 2.0f);
        sinew_particle_id p = make_particle(w, target.x, target.y, 1.0f);
        sinew_particle_id free_fall = make_particle(w, 5.0f, 2.0f, 1.0f); // the control
        make_pin(w, p, target, 1.0f, 0.0f);
        for (int s = 0; s < 60; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            assert_true(pin_error(w, p, target) < HOLD_TOL);
            sinew_step_stats st = sinew_world_stats(w);
            assert_int_equal(st.kinds[SINEW_KIND_PIN].count, 1);
            assert_true(st.kinds[SINEW_KIND_PIN].max_error < HOLD_TOL);
        }
        // Gravity was on: the unpinned particle fell about g t^2 / 2 = 5 m in that second.
        assert_true(position_of(w, free_fall).y < 2.0f - 4.0f);
        sinew_world_destroy(w);
    }
}

static void moving_the_target_drags_the_particle(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        sinew_world *w = make_world(modes[m]);
        sinew_particle_id p = make_particle(w, 1.0f, 0.0f, 1.0f);
        sinew_pin_id pin = make_pin(w, p, sinew_vec2_make(1.0f, 0.0f), 1.0f, 0.0f);
        // The target goes round a unit circle at 2 rad/s: 1/30 m per step.
        const float step_move = 2.0f * dt;
        for (int s = 1; s <= 120; ++s) {
            float a = 2.0f * dt * (float)s;
            sinew_vec2 target = sinew_vec2_make(cosf(a), sinf(a));
            assert_int_equal(sinew_pin_set_target(w, pin, target), SINEW_OK);
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            // Gauss-Seidel lands on the target (HOLD_TOL). Jacobi leaves at most 1/256 of what
            // a sub-step's prediction missed (see HOLD_TOL), and Verlet's carried velocity makes
            // that miss about one target move per step at worst: a 64th of a move allows a
            // factor 4 of margin.
            float tol = modes[m] == SINEW_SOLVER_GAUSS_SEIDEL ? (float)HOLD_TOL : step_move / 64.0f;
            assert_true(pin_error(w, p, target) < tol);
        }
        // Half way round (4 rad after 2 s): far from where it started.
        assert_true(sinew_vec2_distance(position_of(w, p), sinew_vec2_make(1.0f, 0.0f)) > 1.0f);
        sinew_world_destroy(w);
    }
}

static void a_pin_on_a_weight_zero_particle_is_kinematic(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        sinew_world *w = make_world(modes[m]);
        // Coordinates that are not exact binary fractions, so that exactness is not a fluke.
        const sinew_vec2 start = sinew_vec2_make(0.1f, 0.7f);
        sinew_particle_id p = make_particle(w, start.x, start.y, 0.0f);
        // A weighted particle hangs from it: the solver must still not move the pinned one.
        sinew_particle_id bob = make_particle(w, start.x, start.y - 0.5f, 1.0f);
        make_link(w, p, bob);
        sinew_pin_id pin = make_pin(w, p, start, 1.0f, 0.0f);

        sinew_vec2 from = start;
        for (int s = 0; s < 50; ++s) {
            sinew_vec2 target = sinew_vec2_make(0.1f + 0.0371f * (float)s, 0.7f - 0.0213f * (float)(s * s % 17));
            assert_int_equal(sinew_pin_set_target(w, pin, target), SINEW_OK);
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            // After the step the particle is exactly at the target.
            sinew_vec2 at = position_of(w, p);
            assert_true(at.x == target.x && at.y == target.y);

            sinew_vec2 path = sinew_vec2_sub(target, from);
            float len = sinew_vec2_length(path);
            if (len > 1e-3f) {
                // It went along the straight path: its velocity at the end of the step points
                // along target - start, with the speed of covering the path in dt.
                sinew_vec2 v;
                assert_int_equal(sinew_particle_get_velocity(w, p, &v), SINEW_OK);
                float speed = sinew_vec2_length(v);
                // The velocity is the last sub-step's displacement over h: a quarter of the path,
                // at least 2.5e-4 m here, between two positions that each carry half an ulp of a
                // coordinate below 2 m (1.2e-7 m). That is up to 1e-3 relative, in direction and
                // in speed: 2e-3.
                assert_true(fabsf(sinew_vec2_cross(v, path)) <= 2e-3f * speed * len);
                assert_true(sinew_vec2_dot(v, path) > 0.0f);
                assert_near(speed, len / dt, 2e-3 * len / dt);
                // And its previous position (start of the last sub-step) is on that segment too.
                sinew_particle_view view = sinew_world_particles(w);
                int i = sinew_particle_index(w, p);
                sinew_vec2 prev = sinew_vec2_make(view.px[i], view.py[i]);
                sinew_vec2 along = sinew_vec2_sub(prev, from);
                assert_true(fabsf(sinew_vec2_cross(along, path)) <= 2e-3f * len * len);
                float t = sinew_vec2_dot(along, path) / (len * len);
                assert_true(t > 0.0f && t < 1.0f);
            }
            from = target;
        }
        // A kinematic pin stays on target whatever hangs from it.
        sinew_step_stats st = sinew_world_stats(w);
        assert_true(st.kinds[SINEW_KIND_PIN].max_error == 0.0f);
        sinew_world_destroy(w);
    }
}

// Height a pinned particle sags to under gravity, once settled: particle A (weight 1) on a pin
// of the given compliance, particle B (weight 1) hanging 0.5 m below on a rigid link.
static float settled_sag(sinew_solver_mode mode, int iterations, float compliance)
{
    sinew_world_def def = sinew_default_world_def();
    def.solver.mode = mode;
    def.solver.iterations = iterations;
    // Damping only speeds the settling; it does not move the equilibrium. With 2/s, 5 s leave
    // e^-10 = 5e-5 of the starting swing.
    def.damping = 2.0f;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    sinew_particle_id a = make_particle(w, 0.0f, 0.0f, 1.0f);
    sinew_particle_id b = make_particle(w, 0.0f, -0.5f, 1.0f);
    make_link(w, a, b);
    make_pin(w, a, sinew_vec2_make(0.0f, 0.0f), 1.0f, compliance);
    for (int s = 0; s < 300; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    sinew_vec2 p = position_of(w, a);
    assert_true(isfinite(p.x) && isfinite(p.y));
    sinew_world_destroy(w);
    return -p.y;
}

// Compliance alpha (m/N) makes the pin a spring of stiffness 1/alpha: at rest it carries the
// weight of both particles, 2 kg * 10 m/s^2 = 20 N, so it sags alpha * 20 N (Hooke).
static void check_compliant_sag(sinew_solver_mode mode)
{
    const float alpha = 1e-3f; // 2 cm of sag: far above rounding, far below the 0.5 m link
    const float hooke = alpha * 2.0f * 10.0f;
    float stiff = settled_sag(mode, 8, 0.0f);
    float soft5 = settled_sag(mode, 5, alpha);
    float soft40 = settled_sag(mode, 40, alpha);
    // A stiff pin sags by what the last iterations leave unsolved (micrometres); the compliant
    // one by centimetres.
    assert_true(soft5 > 10.0f * fabsf(stiff));
    assert_true(soft40 > 10.0f * fabsf(stiff));
    // XPBD: the stiffness does not depend on the iteration count (within 10%).
    assert_near(soft5, soft40, 0.1f * soft40);
    // And it is the documented stiffness. A converged solve gives Hooke exactly; 5% allows for
    // the rigid link converging only partly at 5 iterations.
    assert_near(soft5, hooke, 0.05f * hooke);
    assert_near(soft40, hooke, 0.05f * hooke);
}

static void compliance_softens_a_pin_independently_of_iterations(void **state)
{
    (void)state;
    check_compliant_sag(SINEW_SOLVER_GAUSS_SEIDEL);
}

static void compliance_softens_a_pin_independently_of_iterations_in_jacobi(void **state)
{
    (void)state;
    check_compliant_sag(SINEW_SOLVER_JACOBI);
}

// The lone compliant pin in Jacobi: one constraint on the particle, so averaging divides by 1 and
// only omega could change the equilibrium; a relaxation factor must change the speed of
// convergence, never the answer.
static void jacobi_omega_does_not_change_a_compliant_pin_equilibrium(void **state)
{
    (void)state;
    const float alpha = 1e-3f, hooke = alpha * 1.0f * 10.0f; // one particle of 1 kg
    const float omegas[3] = {0.5f, 1.0f, 1.5f};
    for (int k = 0; k < 3; ++k) {
        sinew_world_def def = sinew_default_world_def();
        def.solver.mode = SINEW_SOLVER_JACOBI;
        def.solver.jacobi_omega = omegas[k];
        def.damping = 2.0f;
        sinew_world *w = NULL;
        assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
        sinew_particle_id a = make_particle(w, 0.0f, 0.0f, 1.0f);
        make_pin(w, a, sinew_vec2_make(0.0f, 0.0f), 1.0f, alpha);
        for (int s = 0; s < 300; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        }
        float sag = -position_of(w, a).y;
        sinew_world_destroy(w);
        if (!(fabsf(sag - hooke) <= 0.05f * hooke)) { // settled to 5e-5 of the swing; see above
            fail_msg("Jacobi omega %.2f: compliant pin sags %.6g m, Hooke gives %.6g m", (double)omegas[k],
                     (double)sag, (double)hooke);
        }
    }
}

static void bad_values_are_refused_and_change_nothing(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id p = make_particle(w, 0.0f, 0.0f, 1.0f);
    sinew_pin_id pin = make_pin(w, p, sinew_vec2_make(1.0f, 2.0f), 0.75f, 0.5f);

    const float bad_stiffness[][2] = {{NAN, 0.0f}, {INFINITY, 0.0f}, {-0.1f, 0.0f}, {1.1f, 0.0f},
                                      {1.0f, NAN}, {1.0f, INFINITY}, {1.0f, -1e-6f}};
    const sinew_status expected[] = {SINEW_ERR_NOT_FINITE, SINEW_ERR_NOT_FINITE, SINEW_ERR_OUT_OF_RANGE,
                                     SINEW_ERR_OUT_OF_RANGE, SINEW_ERR_NOT_FINITE, SINEW_ERR_NOT_FINITE,
                                     SINEW_ERR_OUT_OF_RANGE};
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; ++k) {
        assert_int_equal(sinew_pin_set_stiffness(w, pin, bad_stiffness[k][0], bad_stiffness[k][1]), expected[k]);
        sinew_pin_def got;
        assert_int_equal(sinew_pin_get(w, pin, &got), SINEW_OK);
        assert_true(got.stiffness == 0.75f && got.compliance == 0.5f);

        // The same values are refused at creation, and nothing is created.
        sinew_pin_def d = sinew_default_pin_def();
        d.particle = p;
        d.stiffness = bad_stiffness[k][0];
        d.compliance = bad_stiffness[k][1];
        sinew_pin_id out = {0xdeadu, 0xbeefu};
        assert_int_equal(sinew_pin_create(w, &d, &out), expected[k]);
        assert_true(out.index1 == 0xdeadu && out.generation == 0xbeefu);
    }
    // max_force: NaN, 0 and below refused, at the call and at creation.
    const float bad_force[] = {NAN, 0.0f, -1.0f, -INFINITY};
    for (size_t k = 0; k < sizeof bad_force / sizeof bad_force[0]; ++k) {
        const sinew_status e = isnan(bad_force[k]) ? SINEW_ERR_NOT_FINITE : SINEW_ERR_OUT_OF_RANGE;
        assert_int_equal(sinew_pin_set_max_force(w, pin, bad_force[k]), e);
        sinew_pin_def got;
        assert_int_equal(sinew_pin_get(w, pin, &got), SINEW_OK);
        assert_true(isinf(got.max_force));
        sinew_pin_def d = sinew_default_pin_def();
        d.particle = p;
        d.max_force = bad_force[k];
        assert_int_equal(sinew_pin_create(w, &d, NULL), e);
    }
    assert_int_equal(sinew_pin_set_max_force(NULL, pin, 1.0f), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_pin_set_max_force(w, (sinew_pin_id)SINEW_NULL_ID, 1.0f), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_pin_get_force(w, pin, NULL), SINEW_ERR_NULL_ARGUMENT);
    sinew_vec2 force;
    assert_int_equal(sinew_pin_get_force(w, (sinew_pin_id)SINEW_NULL_ID, &force), SINEW_ERR_INVALID_ID);
    // The edges of the ranges are fine.
    assert_int_equal(sinew_pin_set_stiffness(w, pin, 0.0f, 0.0f), SINEW_OK);
    assert_int_equal(sinew_pin_set_stiffness(w, pin, 0.75f, 0.5f), SINEW_OK);

    sinew_pin_def d = sinew_default_pin_def();
    d.particle = p;
    sinew_pin_id out = {0xdeadu, 0xbeefu};
    d.target = sinew_vec2_make(NAN, 0.0f);
    assert_int_equal(sinew_pin_create(w, &d, &out), SINEW_ERR_NOT_FINITE);
    d.target = sinew_vec2_make(0.0f, 0.0f);
    d.particle = (sinew_particle_id)SINEW_NULL_ID;
    assert_int_equal(sinew_pin_create(w, &d, &out), SINEW_ERR_INVALID_ID);
    d.particle = p;
    assert_int_equal(sinew_pin_create(NULL, &d, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_pin_create(w, NULL, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_true(out.index1 == 0xdeadu && out.generation == 0xbeefu);

    // Targets must be finite.
    assert_int_equal(sinew_pin_set_target(w, pin, sinew_vec2_make(0.0f, NAN)), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_pin_set_target(w, pin, sinew_vec2_make(-INFINITY, 0.0f)), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_pin_set_target(NULL, pin, sinew_vec2_make(0.0f, 0.0f)), SINEW_ERR_NULL_ARGUMENT);
    sinew_pin_def got;
    assert_int_equal(sinew_pin_get(w, pin, &got), SINEW_OK);
    assert_true(got.target.x == 1.0f && got.target.y == 2.0f);
    assert_int_equal(sinew_pin_get(w, pin, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_pin_get(NULL, pin, &got), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_pin_set_stiffness(NULL, pin, 1.0f, 0.0f), SINEW_ERR_NULL_ARGUMENT);
    assert_true(strlen(sinew_world_last_error(w)) > 0);

    // Only the one good pin exists.
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    assert_int_equal(sinew_world_stats(w).kinds[SINEW_KIND_PIN].count, 1);
    sinew_world_destroy(w);
}

static void get_returns_what_was_set(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    make_particle(w, 9.0f, 9.0f, 1.0f); // so the pinned particle is not at index 0
    sinew_particle_id p = make_particle(w, 0.0f, 0.0f, 1.0f);
    sinew_pin_id pin = make_pin(w, p, sinew_vec2_make(-3.25f, 4.5f), 0.625f, 2.5e-3f);
    sinew_pin_def got;
    assert_int_equal(sinew_pin_get(w, pin, &got), SINEW_OK);
    assert_true(got.particle.index1 == p.index1 && got.particle.generation == p.generation);
    assert_true(got.target.x == -3.25f && got.target.y == 4.5f);
    assert_true(got.stiffness == 0.625f);
    assert_true(got.compliance == 2.5e-3f);

    assert_int_equal(sinew_pin_set_target(w, pin, sinew_vec2_make(7.0f, -1.0f)), SINEW_OK);
    assert_int_equal(sinew_pin_set_stiffness(w, pin, 0.25f, 0.0f), SINEW_OK);
    assert_int_equal(sinew_pin_get(w, pin, &got), SINEW_OK);
    assert_true(got.target.x == 7.0f && got.target.y == -1.0f);
    assert_true(got.stiffness == 0.25f && got.compliance == 0.0f);
    assert_true(got.particle.index1 == p.index1 && got.particle.generation == p.generation);
    sinew_world_destroy(w);
}

static void a_destroyed_pin_lets_go(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id p = make_particle(w, 0.0f, 0.0f, 1.0f);
    sinew_pin_id pin = make_pin(w, p, sinew_vec2_make(0.0f, 0.0f), 1.0f, 0.0f);
    assert_true(sinew_pin_is_valid(w, pin));
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    assert_true(pin_error(w, p, sinew_vec2_make(0.0f, 0.0f)) < HOLD_TOL);
    assert_int_equal(sinew_pin_destroy(w, pin), SINEW_OK);
    assert_false(sinew_pin_is_valid(w, pin));
    assert_int_equal(sinew_pin_destroy(w, pin), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_pin_set_target(w, pin, sinew_vec2_make(1.0f, 1.0f)), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_pin_set_stiffness(w, pin, 1.0f, 0.0f), SINEW_ERR_INVALID_ID);
    sinew_pin_def got;
    assert_int_equal(sinew_pin_get(w, pin, &got), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_pin_destroy(NULL, pin), SINEW_ERR_NULL_ARGUMENT);
    // A new pin may take the slot, under a new id.
    sinew_pin_id again = make_pin(w, p, sinew_vec2_make(0.0f, 0.0f), 1.0f, 0.0f);
    assert_false(again.index1 == pin.index1 && again.generation == pin.generation);
    assert_false(sinew_pin_is_valid(w, pin));
    assert_int_equal(sinew_pin_destroy(w, again), SINEW_OK);
    // Free now: it falls.
    for (int s = 0; s < 30; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    assert_true(position_of(w, p).y < -0.5f); // g t^2 / 2 = 1.25 m in half a second
    assert_int_equal(sinew_world_stats(w).kinds[SINEW_KIND_PIN].count, 0);
    sinew_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_pin_def_matches_the_header),
        cmocka_unit_test(a_pin_reads_the_weight_it_holds_and_max_force_caps_it),
        cmocka_unit_test(a_stiff_pin_holds_a_weighted_particle_under_gravity),
        cmocka_unit_test(moving_the_target_drags_the_particle),
        cmocka_unit_test(a_pin_on_a_weight_zero_particle_is_kinematic),
        cmocka_unit_test(compliance_softens_a_pin_independently_of_iterations),
        cmocka_unit_test(compliance_softens_a_pin_independently_of_iterations_in_jacobi),
        cmocka_unit_test(jacobi_omega_does_not_change_a_compliant_pin_equilibrium),
        cmocka_unit_test(bad_values_are_refused_and_change_nothing),
        cmocka_unit_test(get_returns_what_was_set),
        cmocka_unit_test(a_destroyed_pin_lets_go),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
