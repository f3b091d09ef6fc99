// Issue 16: no crash, no NaN and no undefined behaviour from any input the API accepts. Each
// class of input that used to reach an overflow is either refused at the call (with its status,
// changing nothing) or stepped without a sanitizer report; coincident particles separate; a
// compressed pile stiffened under a contact speed does not launch.
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "world_internal.h"

static const float dt = 1.0f / 60.0f;

// Every particle of the world is finite and within SINEW_MAX_COORDINATE.
static void assert_all_in_range(const sinew_world *w, const char *what)
{
    const sinew_particle_view v = sinew_world_particles(w);
    for (int i = 0; i < v.count; ++i) {
        if (!(fabsf(v.x[i]) <= SINEW_MAX_COORDINATE && fabsf(v.y[i]) <= SINEW_MAX_COORDINATE)) {
            fail_msg("%s: particle %d at (%g, %g)", what, i, (double)v.x[i], (double)v.y[i]);
        }
    }
}

static sinew_world *cloth_world(sinew_solver_mode mode)
{
    sinew_world *w = make_world(mode);
    sinew_cloth_def c = sinew_default_cloth_def();
    c.columns = c.rows = 8;
    assert_int_equal(sinew_cloth_create(w, &c, NULL), SINEW_OK);
    sinew_softbody_def b = sinew_default_softbody_def();
    b.center = sinew_vec2_make(5.0f, -5.0f);
    assert_int_equal(sinew_softbody_create(w, &b, NULL), SINEW_OK);
    make_particle(w, -3.0f, 2.0f, 1.0f);
    return w;
}

static void coordinates_near_flt_max_are_refused(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id a = make_particle(w, 0.0f, 0.0f, 1.0f);
    const uint64_t h = hash_positions(w);
    const size_t bytes = sinew_world_byte_count(w);
    const float far[] = {3e38f, -3e38f, FLT_MAX, 1e16f, -2e15f};
    for (size_t k = 0; k < sizeof far / sizeof far[0]; ++k) {
        sinew_particle_def d = sinew_default_particle_def();
        d.position = sinew_vec2_make(far[k], 0.0f);
        sinew_particle_id id;
        assert_status(sinew_particle_create(w, &d, &id), SINEW_ERR_OUT_OF_RANGE, "create at x = %g", (double)far[k]);
        assert_status(sinew_particle_set_position(w, a, sinew_vec2_make(0.0f, far[k])), SINEW_ERR_OUT_OF_RANGE,
                      "move to y = %g", (double)far[k]);
        assert_status(sinew_particle_set_velocity(w, a, sinew_vec2_make(far[k], 0.0f)), SINEW_ERR_OUT_OF_RANGE,
                      "velocity %g", (double)far[k]);
        d.position = sinew_vec2_make(0.0f, 0.0f);
        d.radius = fabsf(far[k]);
        assert_status(sinew_particle_create(w, &d, &id), SINEW_ERR_OUT_OF_RANGE, "radius %g", (double)far[k]);
        sinew_pin_def pd = sinew_default_pin_def();
        pd.particle = a;
        pd.target = sinew_vec2_make(far[k], 1.0f);
        sinew_pin_id pin;
        assert_status(sinew_pin_create(w, &pd, &pin), SINEW_ERR_OUT_OF_RANGE, "pin target %g", (double)far[k]);
    }
    assert_true(hash_positions(w) == h);
    assert_true(sinew_world_byte_count(w) == bytes);
    assert_int_equal(sinew_world_particles(w).count, 1);
    // At the limit itself: accepted, and it steps.
    assert_int_equal(sinew_particle_set_position(w, a, sinew_vec2_make(SINEW_MAX_COORDINATE, -SINEW_MAX_COORDINATE)),
                     SINEW_OK);
    make_particle(w, -SINEW_MAX_COORDINATE, SINEW_MAX_COORDINATE, 1.0f);
    for (int k = 0; k < 10; ++k) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    assert_all_in_range(w, "at the limit");
    sinew_world_destroy(w);
}

static void colliders_near_flt_max_are_refused(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    const sinew_collider_def cd = sinew_default_collider_def();
    sinew_collider_id id;
    const sinew_vec2 big = sinew_vec2_make(3e38f, 3e38f), small = sinew_vec2_make(-3e38f, -3e38f);
    assert_int_equal(sinew_box_collider_create(w, &cd, small, big, &id), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_segment_collider_create(w, &cd, small, big, 0.0f, &id), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_circle_collider_create(w, &cd, sinew_vec2_make(0, 0), 3e38f, &id), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0, 1), -3e38f, &id), SINEW_ERR_OUT_OF_RANGE);
    // A tiny normal makes a huge normalised offset.
    assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0, 1e-20f), -1e3f, &id),
                     SINEW_ERR_OUT_OF_RANGE);
    const sinew_vec2 tri[3] = {{-3e38f, -3e38f}, {3e38f, -3e38f}, {0.0f, 3e38f}};
    assert_int_equal(sinew_polygon_collider_create(w, &cd, tri, 3, 0.0f, &id), SINEW_ERR_OUT_OF_RANGE);
    sinew_collider_id four[4];
    assert_int_equal(sinew_world_bounds_create(w, &cd, small, big, four), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_world_collider_count(w), 0);
    // Within range, however large: particles on and in them step without NaN.
    const float m = SINEW_MAX_COORDINATE;
    assert_int_equal(sinew_box_collider_create(w, &cd, sinew_vec2_make(-m, -m), sinew_vec2_make(m, -1.0f), &id), SINEW_OK);
    const sinew_vec2 wide[3] = {{-m, 10.0f}, {m, 10.0f}, {0.0f, m}};
    assert_int_equal(sinew_polygon_collider_create(w, &cd, wide, 3, 0.5f, &id), SINEW_OK);
    make_particle(w, 0.0f, -0.5f, 1.0f);
    make_particle(w, 3.0f, 20.0f, 1.0f); // inside the triangle
    make_particle(w, 1e14f, -1e14f, 1.0f); // deep inside the box
    for (int k = 0; k < 20; ++k) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        assert_all_in_range(w, "huge colliders");
    }
    sinew_world_destroy(w);
}

static void tiny_and_denormal_radii_step(void **state)
{
    (void)state;
    const float radii[] = {1.4e-45f, 4.6e-40f, FLT_MIN, 1e-30f};
    for (int mode = 0; mode < 2; ++mode) {
        for (size_t k = 0; k < sizeof radii / sizeof radii[0]; ++k) {
            sinew_world *w = make_world((sinew_solver_mode)mode);
            sinew_particle_def d = sinew_default_particle_def();
            d.radius = radii[k];
            sinew_particle_id id;
            for (int i = 0; i < 5; ++i) {
                d.position = sinew_vec2_make((float)i, 0.5f * (float)i);
                assert_int_equal(sinew_particle_create(w, &d, &id), SINEW_OK);
            }
            d.position = sinew_vec2_make(2.0f, 1.0f); // on top of particle 2
            assert_int_equal(sinew_particle_create(w, &d, &id), SINEW_OK);
            for (int s = 0; s < 10; ++s) {
                assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            }
            assert_all_in_range(w, "tiny radii");
            assert_int_equal(sinew_world_stats(w).reset_particles, 0);
            sinew_world_destroy(w);
        }
    }
}

static void dt_outside_its_range_is_refused_and_the_world_steps_on(void **state)
{
    (void)state;
    const float bad[] = {1e30f, 3e38f, FLT_MAX, 1e-45f, 1e-7f, 10.5f, 0.0f, -0.0f, -1.0f};
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w = cloth_world((sinew_solver_mode)mode);
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        const uint64_t h = hash_positions(w);
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
            assert_status(sinew_world_step(w, bad[k]), SINEW_ERR_OUT_OF_RANGE, "dt = %g", (double)bad[k]);
            assert_true(strlen(sinew_world_last_error(w)) > 0);
        }
        assert_true(hash_positions(w) == h);
        // The ends of the range are accepted.
        assert_int_equal(sinew_world_step(w, SINEW_MIN_DT), SINEW_OK);
        assert_int_equal(sinew_world_step(w, SINEW_MAX_DT), SINEW_OK);
        for (int s = 0; s < 30; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        }
        assert_all_in_range(w, "after the range's ends");
        sinew_world_destroy(w);
    }
}

// Forces, gravity and speeds that would carry a particle beyond SINEW_MAX_COORDINATE: the particle
// stays where its sub-step began and is counted; what it is linked to never sees it.
static void overflowing_motion_is_reset_and_counted(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w = make_world((sinew_solver_mode)mode);
        sinew_particle_id a = make_particle(w, 0.0f, 0.0f, 1.0f), b = make_particle(w, 1.0f, 0.0f, 1.0f);
        make_link(w, a, b);
        make_particle(w, 1.05f, 0.1f, 1.0f); // touches b
        assert_int_equal(sinew_particle_apply_force(w, a, sinew_vec2_make(3e38f, 0.0f)), SINEW_OK);
        assert_int_equal(sinew_particle_apply_force(w, a, sinew_vec2_make(3e38f, 0.0f)), SINEW_OK); // inf
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        assert_all_in_range(w, "huge force");
        const sinew_step_stats st = sinew_world_stats(w);
        assert_true(st.reset_particles >= 1);
        assert_true(isfinite(st.max_error) && isfinite(st.rms_error));
        // Gravity near FLT_MAX: every movable particle is held at every sub-step, and counted.
        assert_int_equal(sinew_world_set_gravity(w, sinew_vec2_make(0.0f, -3e38f)), SINEW_OK);
        assert_int_equal(sinew_world_step(w, SINEW_MAX_DT), SINEW_OK);
        assert_int_equal(sinew_world_stats(w).reset_particles, 3 * sinew_world_get_solver(w).substeps);
        assert_all_in_range(w, "huge gravity");
        // A speed at the limit with the longest step: out of range, held.
        assert_int_equal(sinew_world_set_gravity(w, sinew_vec2_make(0.0f, -10.0f)), SINEW_OK);
        assert_int_equal(sinew_particle_set_velocity(w, b, sinew_vec2_make(SINEW_MAX_SPEED, 0.0f)), SINEW_OK);
        assert_int_equal(sinew_world_step(w, SINEW_MAX_DT), SINEW_OK);
        assert_all_in_range(w, "huge speed");
        for (int s = 0; s < 60; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        }
        assert_all_in_range(w, "afterwards");
        sinew_world_destroy(w);
    }
}

static void builder_sizes_whose_products_overflow(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    // columns = INT_MAX: one row of 20 balls in a box 2.6e9 m wide, handled in 64-bit.
    sinew_pile_def p = sinew_default_pile_def();
    p.count = 20;
    p.columns = INT_MAX;
    assert_int_equal(sinew_pile_counts(&p).particles, 20);
    sinew_pile out = {0};
    assert_int_equal(sinew_pile_create(w, &p, &out), SINEW_OK);
    assert_true(out.box_max.x > 1e9f);
    for (int s = 0; s < 10; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    assert_all_in_range(w, "pile with INT_MAX columns");
    // Counts far beyond what the builders hold are refused, whatever their product.
    p.count = INT_MAX;
    p.columns = 0;
    assert_int_equal(sinew_pile_create(w, &p, NULL), SINEW_ERR_OUT_OF_RANGE);
    sinew_cloth_def c = sinew_default_cloth_def();
    c.columns = c.rows = INT_MAX;
    assert_int_equal(sinew_cloth_counts(&c).status, SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_cloth_create(w, &c, NULL), SINEW_ERR_OUT_OF_RANGE);
    sinew_rope_def r = sinew_default_rope_def();
    r.links = INT_MAX;
    assert_int_equal(sinew_rope_create(w, &r, NULL), SINEW_ERR_OUT_OF_RANGE);
    sinew_softbody_def b = sinew_default_softbody_def();
    b.points = INT_MAX;
    assert_int_equal(sinew_softbody_create(w, &b, NULL), SINEW_ERR_OUT_OF_RANGE);
    // Ends within the limit but farther apart than it: a tether's rest length would exceed it.
    const size_t bytes = sinew_world_byte_count(w);
    r = sinew_default_rope_def();
    r.start = sinew_vec2_make(-9e14f, 0.0f);
    r.end = sinew_vec2_make(9e14f, 0.0f);
    r.pin_start = r.pin_end = r.tethers = true;
    assert_int_equal(sinew_rope_counts(&r).status, SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_rope_create(w, &r, NULL), SINEW_ERR_OUT_OF_RANGE);
    c = sinew_default_cloth_def();
    c.columns = c.rows = 1000;
    c.spacing = 0.9e15f / 999.0f; // each side within the limit, the diagonal beyond it
    c.origin = sinew_vec2_make(0.0f, 0.0f);
    assert_int_equal(sinew_cloth_create(w, &c, NULL), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_world_byte_count(w), bytes); // nothing reserved
    sinew_world_destroy(w);
}

static void ik_lengths_near_flt_max_are_refused(void **state)
{
    (void)state;
    float angles[3] = {0.1f, 0.2f, 0.3f}, lengths[3] = {3e38f, 3e38f, 1.0f};
    sinew_ik_chain chain = {0};
    chain.count = 3;
    chain.angles = angles;
    chain.lengths = lengths;
    const sinew_ik_def def = sinew_default_ik_def();
    sinew_ik_result r;
    assert_int_equal(sinew_ik_solve(&def, &chain, sinew_vec2_make(1.0f, 1.0f), &r), SINEW_ERR_OUT_OF_RANGE);
    assert_true(angles[0] == 0.1f);
    // The largest accepted lengths solve to a finite distance, with every method.
    lengths[0] = lengths[1] = SINEW_MAX_COORDINATE;
    for (int method = 0; method < 3; ++method) {
        sinew_ik_def d = def;
        d.method = (sinew_ik_method)method;
        assert_int_equal(sinew_ik_solve(&d, &chain, sinew_vec2_make(1e14f, -1e14f), &r), SINEW_OK);
        assert_true(isfinite(r.distance));
    }
    assert_int_equal(sinew_ik_solve(&def, &chain, sinew_vec2_make(3e38f, 0.0f), &r), SINEW_ERR_OUT_OF_RANGE);
}

// Issue 16 §3: two colliding particles made at one point separate within a few steps, in both
// modes, the same way every time (along +y: the second above the first), on both kernel paths.
static void coincident_particles_separate(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        uint64_t hashes[2];
        for (int avx2 = 0; avx2 < 2; ++avx2) {
            sinew_world_def wd = sinew_default_world_def();
            wd.gravity = sinew_vec2_make(0.0f, 0.0f);
            wd.solver.mode = (sinew_solver_mode)mode;
            sinew_world *w = NULL;
            assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
            w->avx2 = w->avx2 && avx2 == 1;
            sinew_particle_def d = sinew_default_particle_def();
            d.radius = 0.5f;
            d.position = sinew_vec2_make(3.0f, 4.0f);
            sinew_particle_id a, b;
            assert_int_equal(sinew_particle_create(w, &d, &a), SINEW_OK);
            assert_int_equal(sinew_particle_create(w, &d, &b), SINEW_OK);
            // Eight more pairs, so that the contacts fill a block of the vector kernels.
            for (int k = 0; k < 8; ++k) {
                d.position = sinew_vec2_make(10.0f + 3.0f * (float)k, 4.0f);
                sinew_particle_id id;
                assert_int_equal(sinew_particle_create(w, &d, &id), SINEW_OK);
                assert_int_equal(sinew_particle_create(w, &d, &id), SINEW_OK);
            }
            for (int s = 0; s < 5; ++s) {
                assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            }
            const sinew_vec2 pa = position_of(w, a), pb = position_of(w, b);
            assert_true(pa.x == 3.0f && pb.x == 3.0f);
            assert_true(pb.y > pa.y);
            if (!(pb.y - pa.y >= 0.99f)) {
                fail_msg("mode %d: coincident pair only %g apart after 5 steps", mode, (double)(pb.y - pa.y));
            }
            assert_true(sinew_world_stats(w).kinds[SINEW_KIND_CONTACT].max_error < 0.01f);
            hashes[avx2] = hash_positions(w);
            sinew_world_destroy(w);
        }
        assert_true(hashes[0] == hashes[1]);
    }
}

// A particle exactly at a circle collider's centre is pushed out (up) within a few steps.
static void particle_at_a_circle_centre_leaves_it(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world_def wd = sinew_default_world_def();
        wd.gravity = sinew_vec2_make(0.0f, 0.0f);
        wd.solver.mode = (sinew_solver_mode)mode;
        sinew_world *w = NULL;
        assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
        const sinew_collider_def cd = sinew_default_collider_def();
        sinew_collider_id c;
        assert_int_equal(sinew_circle_collider_create(w, &cd, sinew_vec2_make(1.0f, 2.0f), 1.0f, &c), SINEW_OK);
        sinew_particle_id p = make_particle(w, 1.0f, 2.0f, 1.0f);
        for (int s = 0; s < 5; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        }
        const sinew_vec2 at = position_of(w, p);
        assert_true(at.x == 1.0f);
        assert_true(at.y - 2.0f >= 1.0f + 0.1f - 1e-3f); // outside: circle radius plus its own
        sinew_world_destroy(w);
    }
}

// A world made from `wd` holding a pile of `count` balls (sinew_pile_create's defaults otherwise).
static sinew_world *pile_world(const sinew_world_def *wd, int count)
{
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(wd, &w), SINEW_OK);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = count;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    return w;
}

// A copy of `w` through a snapshot of it (sinew_world_save, then sinew_world_load).
static sinew_world *snapshot_copy(const sinew_world *w)
{
    const size_t size = sinew_world_save_size(w);
    void *buffer = malloc(size);
    size_t written = 0;
    assert_int_equal(sinew_world_save(w, buffer, size, &written), SINEW_OK);
    sinew_world *copy = NULL;
    assert_int_equal(sinew_world_load(buffer, written, NULL, &copy), SINEW_OK);
    free(buffer);
    return copy;
}

// The fastest particle's speed in m/s.
static float fastest(const sinew_world *w)
{
    float most = 0.0f;
    const int n = sinew_world_particles(w).count;
    for (int i = 0; i < n; ++i) {
        sinew_vec2 v;
        assert_int_equal(sinew_particle_get_velocity(w, sinew_particle_id_at(w, i), &v), SINEW_OK);
        const float s = sqrtf(v.x * v.x + v.y * v.y);
        most = s > most ? s : most;
    }
    return most;
}

// Issue 16 §4: a 2,000-ball pile settled at the defaults, run 1,000 steps at a soft setting (it
// ends about 0.3 m deep in overlap), then switched to a stiff one. Returns the fastest speed over
// the next 3 s, and checks the world stays finite.
static float fastest_after_stiffening(float contact_speed, sinew_solver_mode soft_mode, int soft_substeps,
                                      int soft_iterations, sinew_solver_mode stiff_mode, int stiff_substeps,
                                      int stiff_iterations, float *soft_overlap)
{
    sinew_world_def wd = sinew_default_world_def();
    wd.contact_speed = contact_speed;
    sinew_world *w = pile_world(&wd, 2000);
    for (int k = 0; k < 300; ++k) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    sinew_solver_def s = sinew_world_get_solver(w);
    s.mode = soft_mode;
    s.substeps = soft_substeps;
    s.iterations = soft_iterations;
    assert_int_equal(sinew_world_set_solver(w, &s), SINEW_OK);
    for (int k = 0; k < 1000; ++k) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    *soft_overlap = sinew_world_stats(w).kinds[SINEW_KIND_CONTACT].max_error;
    assert_true(w->deep_watch == isfinite(contact_speed)); // the soft pile is compressed enough to watch
    s.mode = stiff_mode;
    s.substeps = stiff_substeps;
    s.iterations = stiff_iterations;
    assert_int_equal(sinew_world_set_solver(w, &s), SINEW_OK);
    float most = 0.0f;
    for (int k = 0; k < 180; ++k) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        const float v = fastest(w);
        most = v > most ? v : most;
    }
    assert_all_in_range(w, "stiffened pile");
    assert_int_equal(sinew_world_stats(w).reset_particles, 0);
    sinew_world_destroy(w);
    return most;
}

// With the contact speed at 3 m/s, no ball leaves the switch faster than that plus what gravity
// (10 m/s^2) adds over a second of settling; unbounded, the same switch launches balls well past it.
static void stiffening_a_compressed_pile_does_not_launch_it(void **state)
{
    (void)state;
    const float bound = 3.0f + 10.0f * 1.0f;
    const struct {
        sinew_solver_mode soft;
        int soft_substeps, soft_iterations;
        sinew_solver_mode stiff;
        int stiff_substeps, stiff_iterations;
    } cases[] = {
        {SINEW_SOLVER_GAUSS_SEIDEL, 1, 1, SINEW_SOLVER_GAUSS_SEIDEL, 7, 1},
        {SINEW_SOLVER_GAUSS_SEIDEL, 1, 1, SINEW_SOLVER_GAUSS_SEIDEL, 4, 8},
        {SINEW_SOLVER_JACOBI, 1, 3, SINEW_SOLVER_GAUSS_SEIDEL, 4, 8},
        {SINEW_SOLVER_GAUSS_SEIDEL, 1, 1, SINEW_SOLVER_JACOBI, 7, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        float overlap = 0.0f;
        const float v = fastest_after_stiffening(3.0f, cases[c].soft, cases[c].soft_substeps, cases[c].soft_iterations,
                                                 cases[c].stiff, cases[c].stiff_substeps, cases[c].stiff_iterations,
                                                 &overlap);
        if (!(overlap > 0.2f)) {
            fail_msg("case %zu: the soft setting left only %g m of overlap: the scene no longer tests a switch",
                     c, (double)overlap);
        }
        if (!(v <= bound)) {
            fail_msg("case %zu: a ball left at %g m/s (bound %g)", c, (double)v, (double)bound);
        }
    }
    float overlap = 0.0f;
    const float unbounded = fastest_after_stiffening(INFINITY, SINEW_SOLVER_GAUSS_SEIDEL, 1, 1,
                                                     SINEW_SOLVER_GAUSS_SEIDEL, 4, 8, &overlap);
    if (!(unbounded > bound)) {
        fail_msg("unbounded, the switch gave only %g m/s: the test no longer shows a launch", (double)unbounded);
    }
}

// A pile that settles well (8 x 4) never has a quarter of its contacts deep: the bound never acts,
// and the world steps to the same bits as one without it.
static void a_pile_without_deep_overlap_is_unchanged(void **state)
{
    (void)state;
    uint64_t hashes[2];
    for (int k = 0; k < 2; ++k) {
        sinew_world_def wd = sinew_default_world_def();
        wd.contact_speed = k == 0 ? 3.0f : INFINITY;
        wd.solver.substeps = 8;
        wd.solver.iterations = 4;
        sinew_world *w = pile_world(&wd, 1000);
        for (int s = 0; s < 300; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            assert_false(w->deep_watch);
        }
        hashes[k] = hash_positions(w);
        sinew_world_destroy(w);
    }
    assert_true(hashes[0] == hashes[1]);
}

// A world that watches (a Jacobi pile at 1 x 3 is compressed deep) saves that it does: the loaded
// copy steps on to the same bits.
static void the_watch_is_saved(void **state)
{
    (void)state;
    sinew_world_def wd = sinew_default_world_def();
    wd.solver.mode = SINEW_SOLVER_JACOBI;
    wd.solver.substeps = 1;
    wd.solver.iterations = 3;
    sinew_world *w = pile_world(&wd, 400);
    int s = 0;
    for (; s < 2000 && !w->deep_watch; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    assert_true(w->deep_watch);
    sinew_world *copy = snapshot_copy(w);
    assert_true(copy->deep_watch);
    for (int k = 0; k < 30; ++k) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        assert_int_equal(sinew_world_step(copy, dt), SINEW_OK);
    }
    assert_true(hash_positions(w) == hash_positions(copy));
    sinew_world_destroy(copy);
    sinew_world_destroy(w);
}

// While a world watches, its bound gives the same bits on both kernel paths and at any worker count
// (a GS pile at 1 x 1 and a Jacobi one at 1 x 3, both compressed deep).
static void the_bound_is_the_same_on_every_path(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        uint64_t first = 0;
        for (int run = 0; run < 3; ++run) {
            sinew_world_def wd = sinew_default_world_def();
            wd.solver.mode = (sinew_solver_mode)mode;
            wd.solver.substeps = 1;
            wd.solver.iterations = mode == 0 ? 1 : 3;
            wd.workers = run == 2 ? 2 : 1;
            sinew_world *w = pile_world(&wd, 3000);
            w->avx2 = w->avx2 && run != 1;
            bool watched = false;
            for (int s = 0; s < 400; ++s) {
                assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
                watched |= w->deep_watch;
            }
            assert_true(watched);
            const uint64_t hash = hash_positions(w);
            if (run == 0) {
                first = hash;
            } else if (hash != first) {
                fail_msg("mode %d run %d: the end state differs from the first run's", mode, run);
            }
            sinew_world_destroy(w);
        }
    }
}

// The contact speed setting: refused values change nothing; it is saved in snapshots.
static void contact_speed_setting(void **state)
{
    (void)state;
    sinew_world_def wd = sinew_default_world_def();
    assert_true(wd.contact_speed == 3.0f);
    sinew_world *w = NULL;
    wd.contact_speed = 0.0f;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_ERR_OUT_OF_RANGE);
    wd.contact_speed = NAN;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_ERR_NOT_FINITE);
    assert_null(w);
    wd.contact_speed = 3.0f;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
    assert_true(sinew_world_get_contact_speed(w) == 3.0f);
    assert_int_equal(sinew_world_set_contact_speed(w, NAN), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_set_contact_speed(w, -1.0f), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_world_set_contact_speed(w, -0.0f), SINEW_ERR_OUT_OF_RANGE);
    assert_true(sinew_world_get_contact_speed(w) == 3.0f);
    assert_int_equal(sinew_world_set_contact_speed(NULL, 1.0f), SINEW_ERR_NULL_ARGUMENT);
    assert_true(sinew_world_get_contact_speed(NULL) == 0.0f);
    assert_int_equal(sinew_world_set_contact_speed(w, 2.5f), SINEW_OK);
    sinew_world *loaded = snapshot_copy(w);
    assert_true(sinew_world_get_contact_speed(loaded) == 2.5f);
    sinew_world_destroy(loaded);
    assert_int_equal(sinew_world_set_contact_speed(w, INFINITY), SINEW_OK);
    assert_true(isinf(sinew_world_get_contact_speed(w)));
    sinew_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(coordinates_near_flt_max_are_refused),
        cmocka_unit_test(colliders_near_flt_max_are_refused),
        cmocka_unit_test(tiny_and_denormal_radii_step),
        cmocka_unit_test(dt_outside_its_range_is_refused_and_the_world_steps_on),
        cmocka_unit_test(overflowing_motion_is_reset_and_counted),
        cmocka_unit_test(builder_sizes_whose_products_overflow),
        cmocka_unit_test(ik_lengths_near_flt_max_are_refused),
        cmocka_unit_test(coincident_particles_separate),
        cmocka_unit_test(particle_at_a_circle_centre_leaves_it),
        cmocka_unit_test(stiffening_a_compressed_pile_does_not_launch_it),
        cmocka_unit_test(contact_speed_setting),
        cmocka_unit_test(a_pile_without_deep_overlap_is_unchanged),
        cmocka_unit_test(the_watch_is_saved),
        cmocka_unit_test(the_bound_is_the_same_on_every_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
