// Particles: ids with generations, the dense store and its bulk view, refused input, forces and
// immovable (weight 0) particles.
#include <math.h>
#include <string.h>

#include "support.h"

static const float dt = 1.0f / 60.0f;

// The header defines the velocity as (x - previous x) / h, h = 1/240 s by default. Read that
// way, each of the two float roundings of a coordinate of at most 10 m is half an ulp (4.8e-7),
// divided by h about 1.1e-4 m/s: 5e-4 m/s covers both with margin. (The engine keeps the
// displacement apart and is much closer than this; the tolerance holds for either reading.)
#define VELOCITY_TOL 5e-4

static bool same_id(sinew_particle_id a, sinew_particle_id b)
{
    return a.index1 == b.index1 && a.generation == b.generation;
}

static sinew_world *zero_gravity_world(sinew_solver_mode mode)
{
    sinew_world *w = make_world(mode);
    assert_int_equal(sinew_world_set_gravity(w, sinew_vec2_make(0.0f, 0.0f)), SINEW_OK);
    return w;
}

static sinew_vec2 velocity_of(const sinew_world *w, sinew_particle_id id)
{
    sinew_vec2 v;
    assert_int_equal(sinew_particle_get_velocity(w, id, &v), SINEW_OK);
    return v;
}

static float weight_of(const sinew_world *w, sinew_particle_id id)
{
    float m;
    assert_int_equal(sinew_particle_get_weight(w, id, &m), SINEW_OK);
    return m;
}

static void default_particle_def_matches_the_header(void **state)
{
    (void)state;
    sinew_particle_def d = sinew_default_particle_def();
    assert_true(d.position.x == 0.0f && d.position.y == 0.0f);
    assert_true(d.velocity.x == 0.0f && d.velocity.y == 0.0f);
    assert_true(d.weight == 1.0f);
    assert_true(d.radius == 0.1f);
    assert_int_equal(d.flags, SINEW_PARTICLE_COLLIDES);
    assert_null(d.user_data);
}

static void create_get_set_round_trip(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    int tag = 0;
    sinew_particle_def d = sinew_default_particle_def();
    d.position = sinew_vec2_make(1.25f, -3.5f);
    d.velocity = sinew_vec2_make(2.0f, -0.75f);
    d.weight = 0.5f;
    d.radius = 0.3f;
    d.flags = 0u;
    d.user_data = &tag;
    sinew_particle_id id = SINEW_NULL_ID;
    assert_int_equal(sinew_particle_create(w, &d, &id), SINEW_OK);
    assert_false(SINEW_ID_IS_NULL(id));
    assert_true(sinew_particle_is_valid(w, id));

    sinew_vec2 p = position_of(w, id);
    assert_true(p.x == 1.25f && p.y == -3.5f); // stored as given
    sinew_vec2 v = velocity_of(w, id);
    assert_near(v.x, 2.0f, VELOCITY_TOL);
    assert_near(v.y, -0.75f, VELOCITY_TOL);
    assert_true(weight_of(w, id) == 0.5f);
    assert_ptr_equal(sinew_particle_user_data(w, id), &tag);

    assert_int_equal(sinew_particle_set_position(w, id, sinew_vec2_make(-7.0f, 0.125f)), SINEW_OK);
    p = position_of(w, id);
    assert_true(p.x == -7.0f && p.y == 0.125f);
    assert_int_equal(sinew_particle_set_velocity(w, id, sinew_vec2_make(-1.5f, 4.0f)), SINEW_OK);
    v = velocity_of(w, id);
    assert_near(v.x, -1.5f, VELOCITY_TOL);
    assert_near(v.y, 4.0f, VELOCITY_TOL);
    p = position_of(w, id); // setting the velocity does not move the particle
    assert_true(p.x == -7.0f && p.y == 0.125f);
    assert_int_equal(sinew_particle_set_weight(w, id, 2.0f), SINEW_OK);
    assert_true(weight_of(w, id) == 2.0f);
    assert_int_equal(sinew_particle_set_weight(w, id, 0.0f), SINEW_OK); // 0 is allowed
    assert_true(weight_of(w, id) == 0.0f);

    // Radius and flags come back through the bulk view.
    sinew_particle_view view = sinew_world_particles(w);
    int i = sinew_particle_index(w, id);
    assert_true(view.radius[i] == 0.3f);
    assert_int_equal(view.flags[i], 0u);
    sinew_world_destroy(w);
}

static void set_position_keeps_velocity(void **state)
{
    (void)state;
    sinew_world *w = zero_gravity_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id id = make_particle(w, 0.0f, 0.0f, 1.0f);
    const sinew_vec2 v0 = sinew_vec2_make(3.0f, -2.0f);
    assert_int_equal(sinew_particle_set_velocity(w, id, v0), SINEW_OK);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK); // moving for real, not just set
    sinew_vec2 before = velocity_of(w, id);
    assert_near(before.x, v0.x, VELOCITY_TOL);
    assert_near(before.y, v0.y, VELOCITY_TOL);

    assert_int_equal(sinew_particle_set_position(w, id, sinew_vec2_make(4.0f, 2.0f)), SINEW_OK);
    sinew_vec2 after = velocity_of(w, id);
    assert_near(after.x, before.x, VELOCITY_TOL);
    assert_near(after.y, before.y, VELOCITY_TOL);
    // And the next step carries on from the new place with the old velocity: x += v dt, exact
    // in real arithmetic with no gravity. Four sub-steps each add v h to a coordinate near 4 m
    // (4 roundings of 2.4e-7 m), on top of a velocity good to VELOCITY_TOL over dt (8e-6 m):
    // 2e-5 m.
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    sinew_vec2 p = position_of(w, id);
    assert_near(p.x, 4.0f + v0.x * dt, 2e-5);
    assert_near(p.y, 2.0f + v0.y * dt, 2e-5);
    sinew_world_destroy(w);
}

// Every accessor refuses `id` with INVALID_ID and writes nothing.
static void assert_refused_everywhere(sinew_world *w, sinew_particle_id id)
{
    assert_false(sinew_particle_is_valid(w, id));
    sinew_vec2 v = sinew_vec2_make(123.0f, 456.0f);
    float f = 789.0f;
    assert_int_equal(sinew_particle_get_position(w, id, &v), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_particle_get_velocity(w, id, &v), SINEW_ERR_INVALID_ID);
    assert_true(v.x == 123.0f && v.y == 456.0f);
    assert_int_equal(sinew_particle_get_weight(w, id, &f), SINEW_ERR_INVALID_ID);
    assert_true(f == 789.0f);
    uint64_t h = hash_positions(w);
    assert_int_equal(sinew_particle_set_position(w, id, sinew_vec2_make(1.0f, 1.0f)), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_particle_set_velocity(w, id, sinew_vec2_make(1.0f, 1.0f)), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_particle_set_weight(w, id, 3.0f), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_particle_apply_force(w, id, sinew_vec2_make(1.0f, 1.0f)), SINEW_ERR_INVALID_ID);
    int count = sinew_world_particles(w).count;
    assert_int_equal(sinew_particle_destroy(w, id), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_world_particles(w).count, count);
    assert_true(hash_positions(w) == h);
    assert_null(sinew_particle_user_data(w, id));
    assert_int_equal(sinew_particle_index(w, id), -1);
    // A constraint cannot name it either.
    sinew_particle_id other = sinew_particle_id_at(w, 0);
    if (!SINEW_ID_IS_NULL(other)) {
        sinew_distance_def d = sinew_default_distance_def();
        d.a = other;
        d.b = id;
        sinew_distance_id link;
        assert_int_equal(sinew_distance_create(w, &d, &link), SINEW_ERR_INVALID_ID);
    }
    sinew_pin_def pd = sinew_default_pin_def();
    pd.particle = id;
    sinew_pin_id pin;
    assert_int_equal(sinew_pin_create(w, &pd, &pin), SINEW_ERR_INVALID_ID);
}

static void destroyed_ids_stay_invalid_after_the_slot_is_reused(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    int tags[3];
    sinew_particle_def d = sinew_default_particle_def();
    sinew_particle_id ids[3];
    for (int k = 0; k < 3; ++k) {
        d.position = sinew_vec2_make((float)k, 0.0f);
        d.user_data = &tags[k];
        assert_int_equal(sinew_particle_create(w, &d, &ids[k]), SINEW_OK);
    }
    sinew_particle_id dead = ids[1];
    assert_int_equal(sinew_particle_destroy(w, dead), SINEW_OK);
    assert_refused_everywhere(w, dead);

    // The next particle takes the freed slot but gets a new generation.
    d.position = sinew_vec2_make(9.0f, 9.0f);
    d.user_data = NULL;
    sinew_particle_id reborn;
    assert_int_equal(sinew_particle_create(w, &d, &reborn), SINEW_OK);
    assert_false(same_id(reborn, dead));
    assert_true(sinew_particle_is_valid(w, reborn));
    assert_refused_everywhere(w, dead); // still dead, even with its slot alive again
    sinew_vec2 p = position_of(w, reborn);
    assert_true(p.x == 9.0f && p.y == 9.0f);

    // The survivors are untouched.
    p = position_of(w, ids[0]);
    assert_true(p.x == 0.0f && p.y == 0.0f);
    p = position_of(w, ids[2]);
    assert_true(p.x == 2.0f && p.y == 0.0f);
    assert_ptr_equal(sinew_particle_user_data(w, ids[2]), &tags[2]);

    // Reuse many times: every id issued is distinct from every dead one.
    sinew_particle_id graveyard[20];
    sinew_particle_id cur = reborn;
    for (int k = 0; k < 20; ++k) {
        graveyard[k] = cur;
        assert_int_equal(sinew_particle_destroy(w, cur), SINEW_OK);
        cur = make_particle(w, 0.0f, 0.0f, 1.0f);
        for (int j = 0; j <= k; ++j) {
            assert_false(same_id(cur, graveyard[j]));
            assert_false(sinew_particle_is_valid(w, graveyard[j]));
        }
    }
    assert_int_equal(sinew_world_particles(w).count, 3);

    // An id that was never issued (a slot beyond the pool) is invalid too.
    sinew_particle_id never = {1000u, 1u};
    assert_refused_everywhere(w, never);
    sinew_world_destroy(w);
}

static void the_null_id_is_invalid(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id null_id = SINEW_NULL_ID;
    assert_true(SINEW_ID_IS_NULL(null_id));
    assert_refused_everywhere(w, null_id); // in an empty world
    make_particle(w, 0.0f, 0.0f, 1.0f);
    assert_refused_everywhere(w, null_id); // and in one with a particle in slot 0
    // Generation 0 is never issued, index alone does not make an id.
    sinew_particle_id gen0 = {1u, 0u};
    assert_refused_everywhere(w, gen0);
    assert_false(sinew_particle_is_valid(NULL, sinew_particle_id_at(w, 0)));
    sinew_world_destroy(w);
}

static void destroy_takes_its_constraints_and_keeps_the_others_right(void **state)
{
    (void)state;
    sinew_world *w = zero_gravity_world(SINEW_SOLVER_GAUSS_SEIDEL);
    // Six particles at pairwise different distances, so a constraint on the wrong pair shows up
    // in its error.
    const float xs[6] = {0.0f, 1.0f, 3.0f, 6.0f, 10.0f, 15.0f};
    sinew_particle_id p[6];
    for (int k = 0; k < 6; ++k) {
        p[k] = make_particle(w, xs[k], 0.5f * (float)(k * k), 1.0f);
    }
    sinew_distance_id l01 = make_link(w, p[0], p[1]);
    sinew_distance_id l12 = make_link(w, p[1], p[2]);
    sinew_distance_id l23 = make_link(w, p[2], p[3]);
    sinew_distance_id l45 = make_link(w, p[4], p[5]);
    sinew_distance_id l50 = make_link(w, p[5], p[0]);
    sinew_distance_id l31 = make_link(w, p[3], p[1]);
    sinew_pin_def pd = sinew_default_pin_def();
    sinew_pin_id pin[6];
    for (int k = 0; k < 6; ++k) {
        pd.particle = p[k];
        pd.target = sinew_vec2_make(xs[k], 100.0f + (float)k);
        assert_int_equal(sinew_pin_create(w, &pd, &pin[k]), SINEW_OK);
    }
    // Stretch every link differently so each error names its own pair.
    sinew_distance_def dd = sinew_default_distance_def();
    const sinew_distance_id links[] = {l01, l12, l23, l45, l50, l31};
    for (int k = 0; k < 6; ++k) {
        assert_int_equal(sinew_distance_get(w, links[k], &dd), SINEW_OK);
        dd.rest *= 0.5f + 0.05f * (float)k;
        assert_int_equal(sinew_distance_set(w, links[k], &dd), SINEW_OK);
    }

    // p1 is in the middle of the store: destroying it moves p5 (the last) into its slot.
    assert_int_equal(sinew_particle_index(w, p[5]), 5);
    assert_int_equal(sinew_particle_destroy(w, p[1]), SINEW_OK);
    assert_int_equal(sinew_particle_index(w, p[5]), 1);
    assert_false(sinew_distance_is_valid(w, l01));
    assert_false(sinew_distance_is_valid(w, l12));
    assert_false(sinew_distance_is_valid(w, l31));
    assert_int_equal(sinew_distance_get(w, l01, &dd), SINEW_ERR_INVALID_ID);
    assert_false(sinew_pin_is_valid(w, pin[1]));

    struct {
        sinew_distance_id link;
        sinew_particle_id a, b;
    } kept[] = {{l23, p[2], p[3]}, {l45, p[4], p[5]}, {l50, p[5], p[0]}};
    for (size_t k = 0; k < sizeof kept / sizeof kept[0]; ++k) {
        assert_true(sinew_distance_is_valid(w, kept[k].link));
        assert_int_equal(sinew_distance_get(w, kept[k].link, &dd), SINEW_OK);
        assert_true(same_id(dd.a, kept[k].a));
        assert_true(same_id(dd.b, kept[k].b));
        // The error is measured between the right particles.
        float err;
        assert_int_equal(sinew_distance_get_error(w, kept[k].link, &err), SINEW_OK);
        float d = sinew_vec2_distance(position_of(w, kept[k].a), position_of(w, kept[k].b));
        assert_near(err, d - dd.rest, 1e-5); // same float arithmetic on lengths below 20 m
    }
    const int pins_kept[] = {0, 2, 3, 4, 5};
    for (size_t k = 0; k < sizeof pins_kept / sizeof pins_kept[0]; ++k) {
        int j = pins_kept[k];
        sinew_pin_def got;
        assert_true(sinew_pin_is_valid(w, pin[j]));
        assert_int_equal(sinew_pin_get(w, pin[j], &got), SINEW_OK);
        assert_true(same_id(got.particle, p[j]));
        assert_true(got.target.x == xs[j] && got.target.y == 100.0f + (float)j);
    }
    // The step counts the survivors only.
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    sinew_step_stats st = sinew_world_stats(w);
    assert_int_equal(st.particles, 5);
    assert_int_equal(st.kinds[SINEW_KIND_DISTANCE].count, 3);
    assert_int_equal(st.kinds[SINEW_KIND_PIN].count, 5);

    // Destroying p0 takes l50 and pin 0; l45 still joins p4 and p5.
    assert_int_equal(sinew_particle_destroy(w, p[0]), SINEW_OK);
    assert_false(sinew_distance_is_valid(w, l50));
    assert_false(sinew_pin_is_valid(w, pin[0]));
    assert_int_equal(sinew_distance_get(w, l45, &dd), SINEW_OK);
    assert_true(same_id(dd.a, p[4]) && same_id(dd.b, p[5]));
    assert_int_equal(sinew_distance_get(w, l23, &dd), SINEW_OK);
    assert_true(same_id(dd.a, p[2]) && same_id(dd.b, p[3]));
    sinew_pin_def got;
    assert_int_equal(sinew_pin_get(w, pin[5], &got), SINEW_OK);
    assert_true(same_id(got.particle, p[5]));

    // The solver moves the right particles too: with the links gone, one step of stiff pins
    // (stiffness 1, weight 1: each projection lands on the target) puts every survivor on its
    // own target, up to the rounding of x + (t - x) near 100 m (ulp 7.6e-6).
    assert_int_equal(sinew_distance_destroy(w, l23), SINEW_OK);
    assert_int_equal(sinew_distance_destroy(w, l45), SINEW_OK);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    const int survivors[] = {2, 3, 4, 5};
    for (size_t k = 0; k < sizeof survivors / sizeof survivors[0]; ++k) {
        int j = survivors[k];
        sinew_vec2 at = position_of(w, p[j]);
        assert_near(at.x, xs[j], 2e-5);
        assert_near(at.y, 100.0f + (float)j, 2e-5);
    }

    // Destroying the last particle in the store moves nothing.
    sinew_particle_id last = sinew_particle_id_at(w, sinew_world_particles(w).count - 1);
    sinew_particle_id first = sinew_particle_id_at(w, 0);
    assert_int_equal(sinew_particle_destroy(w, last), SINEW_OK);
    assert_int_equal(sinew_world_particles(w).count, 3);
    assert_int_equal(sinew_particle_index(w, first), 0);
    sinew_world_destroy(w);
}

static void index_and_id_at_are_inverse(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id ids[12];
    for (int k = 0; k < 12; ++k) {
        ids[k] = make_particle(w, (float)k, 0.0f, 1.0f);
    }
    // Punch holes so that indices get shuffled by the swaps.
    assert_int_equal(sinew_particle_destroy(w, ids[0]), SINEW_OK);
    assert_int_equal(sinew_particle_destroy(w, ids[5]), SINEW_OK);
    assert_int_equal(sinew_particle_destroy(w, ids[6]), SINEW_OK);
    ids[0] = make_particle(w, 100.0f, 0.0f, 1.0f);
    const int count = sinew_world_particles(w).count;
    assert_int_equal(count, 10);
    for (int i = 0; i < count; ++i) {
        sinew_particle_id id = sinew_particle_id_at(w, i);
        assert_true(sinew_particle_is_valid(w, id));
        assert_int_equal(sinew_particle_index(w, id), i);
    }
    for (int k = 0; k < 12; ++k) {
        if (k == 5 || k == 6) {
            assert_int_equal(sinew_particle_index(w, ids[k]), -1);
            continue;
        }
        int i = sinew_particle_index(w, ids[k]);
        assert_true(i >= 0 && i < count);
        assert_true(same_id(sinew_particle_id_at(w, i), ids[k]));
    }
    assert_true(SINEW_ID_IS_NULL(sinew_particle_id_at(w, -1)));
    assert_true(SINEW_ID_IS_NULL(sinew_particle_id_at(w, count)));
    assert_true(SINEW_ID_IS_NULL(sinew_particle_id_at(NULL, 0)));
    assert_int_equal(sinew_particle_index(NULL, ids[1]), -1);
    sinew_world_destroy(w);
}

static void the_view_agrees_with_the_getters(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_view empty = sinew_world_particles(w);
    assert_int_equal(empty.count, 0);
    assert_int_equal(sinew_world_particles(NULL).count, 0);
    sinew_particle_def d = sinew_default_particle_def();
    sinew_particle_id ids[40];
    for (int k = 0; k < 40; ++k) {
        d.position = sinew_vec2_make(0.5f * (float)k, -0.25f * (float)k);
        d.velocity = sinew_vec2_make((float)(k % 5), 1.0f);
        d.weight = (float)(k % 4) * 0.5f;
        d.radius = 0.01f * (float)k;
        d.flags = (uint32_t)(k % 2);
        assert_int_equal(sinew_particle_create(w, &d, &ids[k]), SINEW_OK);
    }
    for (int k = 0; k < 40; k += 3) {
        assert_int_equal(sinew_particle_destroy(w, ids[k]), SINEW_OK);
    }
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK); // px differs from x after a step
    const float h = dt / (float)sinew_world_get_solver(w).substeps;
    sinew_particle_view v = sinew_world_particles(w);
    assert_int_equal(v.count, 40 - 14);
    for (int k = 0; k < 40; ++k) {
        if (k % 3 == 0) {
            continue;
        }
        int i = sinew_particle_index(w, ids[k]);
        assert_true(i >= 0 && i < v.count);
        sinew_vec2 p = position_of(w, ids[k]);
        assert_true(v.x[i] == p.x && v.y[i] == p.y);
        assert_true(v.weight[i] == weight_of(w, ids[k]));
        assert_true(v.radius[i] == 0.01f * (float)k);
        assert_int_equal(v.flags[i], (uint32_t)(k % 2));
        // The documented velocity: (x - px) / h, h the last sub-step. The engine keeps the
        // displacement apart from the positions, so the two agree up to the rounding of x and px
        // (coordinates below 20 m: half an ulp is 9.5e-7 each, divided by h = 1/240 gives
        // 2.3e-4 each): 1e-3 m/s.
        sinew_vec2 vel = velocity_of(w, ids[k]);
        assert_near(vel.x, (v.x[i] - v.px[i]) / h, 1e-3);
        assert_near(vel.y, (v.y[i] - v.py[i]) / h, 1e-3);
    }
    sinew_world_destroy(w);
}

typedef struct bad_particle_case {
    const char *what;
    sinew_particle_def def;
    sinew_status expected;
} bad_particle_case;

static void create_refuses_bad_defs_and_changes_nothing(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    make_particle(w, 1.0f, 2.0f, 1.0f);
    const sinew_particle_def ok = sinew_default_particle_def();
    bad_particle_case cases[10];
    for (int k = 0; k < 10; ++k) {
        cases[k].def = ok;
    }
    int n = 0;
    cases[n].what = "position.x NaN", cases[n].def.position.x = NAN, cases[n++].expected = SINEW_ERR_NOT_FINITE;
    cases[n].what = "position.y inf", cases[n].def.position.y = INFINITY, cases[n++].expected = SINEW_ERR_NOT_FINITE;
    cases[n].what = "velocity.x NaN", cases[n].def.velocity.x = NAN, cases[n++].expected = SINEW_ERR_NOT_FINITE;
    cases[n].what = "velocity.y -inf", cases[n].def.velocity.y = -INFINITY, cases[n++].expected = SINEW_ERR_NOT_FINITE;
    cases[n].what = "weight NaN", cases[n].def.weight = NAN, cases[n++].expected = SINEW_ERR_NOT_FINITE;
    cases[n].what = "weight inf", cases[n].def.weight = INFINITY, cases[n++].expected = SINEW_ERR_NOT_FINITE;
    cases[n].what = "radius NaN", cases[n].def.radius = NAN, cases[n++].expected = SINEW_ERR_NOT_FINITE;
    cases[n].what = "weight < 0", cases[n].def.weight = -1.0f, cases[n++].expected = SINEW_ERR_NEGATIVE_WEIGHT;
    cases[n].what = "radius < 0", cases[n].def.radius = -0.1f, cases[n++].expected = SINEW_ERR_NEGATIVE_RADIUS;
    cases[n].what = "weight -0 is 0", cases[n].def.weight = -0.0f, cases[n++].expected = SINEW_OK;
    for (int k = 0; k < n; ++k) {
        const uint64_t h = hash_positions(w);
        const int count = sinew_world_particles(w).count;
        sinew_particle_id id = {0xdeadu, 0xbeefu};
        sinew_status s = sinew_particle_create(w, &cases[k].def, &id);
        assert_status(s, cases[k].expected, "%s", cases[k].what);
        if (s == SINEW_OK) {
            assert_int_equal(sinew_world_particles(w).count, count + 1);
            continue;
        }
        assert_true(id.index1 == 0xdeadu && id.generation == 0xbeefu);
        assert_int_equal(sinew_world_particles(w).count, count);
        assert_true(hash_positions(w) == h);
        assert_true(strlen(sinew_world_last_error(w)) > 0);
    }
    sinew_particle_id id = {0xdeadu, 0xbeefu};
    const int count = sinew_world_particles(w).count;
    assert_int_equal(sinew_particle_create(NULL, &ok, &id), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_create(w, NULL, &id), SINEW_ERR_NULL_ARGUMENT);
    assert_true(id.index1 == 0xdeadu && id.generation == 0xbeefu);
    assert_int_equal(sinew_world_particles(w).count, count);
    sinew_world_destroy(w);
}

static void setters_and_getters_refuse_bad_input_and_change_nothing(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id id = make_particle(w, 1.0f, 2.0f, 0.5f);
    sinew_particle_id twin = make_particle(w, 5.0f, 2.0f, 0.5f); // gets no bad calls
    assert_int_equal(sinew_particle_set_velocity(w, id, sinew_vec2_make(1.0f, 0.0f)), SINEW_OK);
    assert_int_equal(sinew_particle_set_velocity(w, twin, sinew_vec2_make(1.0f, 0.0f)), SINEW_OK);
    const uint64_t h = hash_positions(w);
    const sinew_vec2 v0 = velocity_of(w, id);

    assert_int_equal(sinew_particle_set_position(w, id, sinew_vec2_make(NAN, 0.0f)), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_particle_set_position(w, id, sinew_vec2_make(0.0f, INFINITY)), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_particle_set_velocity(w, id, sinew_vec2_make(NAN, 0.0f)), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_particle_set_velocity(w, id, sinew_vec2_make(0.0f, -INFINITY)), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_particle_set_weight(w, id, NAN), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_particle_set_weight(w, id, INFINITY), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_particle_set_weight(w, id, -2.0f), SINEW_ERR_NEGATIVE_WEIGHT);
    assert_int_equal(sinew_particle_apply_force(w, id, sinew_vec2_make(NAN, 1.0f)), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_particle_apply_force(w, id, sinew_vec2_make(1.0f, INFINITY)), SINEW_ERR_NOT_FINITE);
    assert_true(strlen(sinew_world_last_error(w)) > 0);

    assert_int_equal(sinew_particle_set_position(NULL, id, sinew_vec2_make(0.0f, 0.0f)), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_set_velocity(NULL, id, sinew_vec2_make(0.0f, 0.0f)), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_set_weight(NULL, id, 1.0f), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_apply_force(NULL, id, sinew_vec2_make(0.0f, 0.0f)), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_destroy(NULL, id), SINEW_ERR_NULL_ARGUMENT);
    sinew_vec2 out;
    float f;
    assert_int_equal(sinew_particle_get_position(w, id, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_get_position(NULL, id, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_get_velocity(w, id, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_get_velocity(NULL, id, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_get_weight(w, id, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_get_weight(NULL, id, &f), SINEW_ERR_NULL_ARGUMENT);
    assert_false(sinew_particle_is_valid(NULL, id));
    assert_null(sinew_particle_user_data(NULL, id));

    // Nothing changed: same bytes, same velocity and weight...
    assert_true(hash_positions(w) == h);
    sinew_vec2 v = velocity_of(w, id);
    assert_true(v.x == v0.x && v.y == v0.y);
    assert_true(weight_of(w, id) == 0.5f);
    assert_int_equal(sinew_world_particles(w).count, 2);
    // ...and no force was stored: after a step the particle moved exactly like its twin, which
    // started 4 m to the right.
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    sinew_vec2 a = position_of(w, id), b = position_of(w, twin);
    assert_near(b.x - a.x, 4.0f, 1e-5); // one rounding of coordinates near 5 m
    assert_true(a.y == b.y);
    sinew_world_destroy(w);
}

static void apply_force_accelerates_by_weight_times_force_for_one_step(void **state)
{
    (void)state;
    sinew_world *w = zero_gravity_world(SINEW_SOLVER_GAUSS_SEIDEL);
    const float weights[3] = {1.0f, 0.5f, 2.0f};
    sinew_particle_id p[3];
    for (int k = 0; k < 3; ++k) {
        p[k] = make_particle(w, 0.0f, (float)k, weights[k]);
    }
    sinew_particle_id idle = make_particle(w, 0.0f, 5.0f, 1.0f);
    const sinew_vec2 force = sinew_vec2_make(6.0f, -3.0f);
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(sinew_particle_apply_force(w, p[k], force), SINEW_OK);
    }
    // Two calls in one step add up.
    assert_int_equal(sinew_particle_apply_force(w, p[0], force), SINEW_OK);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);

    // Verlet from rest under constant a for the n sub-steps of one step ends with velocity
    // n a h = a dt, exactly in real arithmetic; only float rounding is left (see VELOCITY_TOL),
    // against velocities of 0.025 to 0.2 m/s.
    sinew_vec2 v1[3];
    for (int k = 0; k < 3; ++k) {
        float times = k == 0 ? 2.0f : 1.0f;
        v1[k] = velocity_of(w, p[k]);
        assert_near(v1[k].x, weights[k] * force.x * times * dt, VELOCITY_TOL);
        assert_near(v1[k].y, weights[k] * force.y * times * dt, VELOCITY_TOL);
    }
    sinew_vec2 iv = velocity_of(w, idle);
    assert_true(iv.x == 0.0f && iv.y == 0.0f);

    // The force is gone after that step: the velocity stays what it was.
    for (int s = 0; s < 3; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    for (int k = 0; k < 3; ++k) {
        sinew_vec2 v = velocity_of(w, p[k]);
        assert_near(v.x, v1[k].x, VELOCITY_TOL);
        assert_near(v.y, v1[k].y, VELOCITY_TOL);
    }
    sinew_world_destroy(w);
}

// A ball pile of `n` particles (every third given `tag` as user data when tag is not NULL) in a
// world on the counting allocator `c`.
static sinew_world *tagged_pile(counting_allocator *c, int n, void *tag)
{
    sinew_world_def def = sinew_default_world_def();
    def.allocator = counting_allocator_make(c);
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    sinew_particle_def d = sinew_default_particle_def();
    d.radius = 0.1f;
    d.flags = SINEW_PARTICLE_COLLIDES;
    for (int k = 0; k < n; ++k) {
        d.position = sinew_vec2_make(0.25f * (float)(k % 20), 0.25f * (float)(k / 20));
        d.user_data = k % 3 == 0 ? tag : NULL;
        assert_int_equal(sinew_particle_create(w, &d, NULL), SINEW_OK);
    }
    return w;
}

// The force arrays (ax, ay) and the user data array exist only once used: 16 bytes a particle
// less until then, the same steps either way, user data that follows its particle when another
// is destroyed, and a first use that fails for memory changes nothing.
static void forces_and_user_data_take_memory_only_once_used(void **state)
{
    (void)state;
    enum { N = 300 };
    int tag = 0;
    counting_allocator ca, cb;
    sinew_world *a = tagged_pile(&ca, N, NULL), *b = tagged_pile(&cb, N, NULL);
    const size_t bare = sinew_world_byte_count(a);
    assert_true(sinew_world_byte_count(b) == bare);
    const sinew_particle_id first = sinew_particle_id_at(b, 0), last = sinew_particle_id_at(b, N - 1);
    assert_null(sinew_particle_user_data(b, last));
    // Setting NULL needs no array; a zero force makes the force arrays (and acts as no force).
    assert_int_equal(sinew_particle_set_user_data(b, last, NULL), SINEW_OK);
    assert_true(sinew_world_byte_count(b) == bare);
    assert_int_equal(sinew_particle_apply_force(b, first, sinew_vec2_make(0.0f, 0.0f)), SINEW_OK);
    const size_t forces = sinew_world_byte_count(b) - bare;
    assert_true(forces >= 2u * sizeof(float) * N && forces <= 2u * sizeof(float) * 2 * N + 128u);
    assert_int_equal(sinew_particle_set_user_data(b, last, &tag), SINEW_OK);
    const size_t both = sinew_world_byte_count(b) - bare;
    assert_true(both - forces >= sizeof(void *) * N && both - forces <= sizeof(void *) * 2 * N + 64u);
    assert_ptr_equal(sinew_particle_user_data(b, last), &tag);
    for (int k = 0; k < N - 1; ++k) {
        assert_null(sinew_particle_user_data(b, sinew_particle_id_at(b, k)));
    }
    for (int s = 0; s < 60; ++s) {
        assert_int_equal(sinew_world_step(a, dt), SINEW_OK);
        assert_int_equal(sinew_world_step(b, dt), SINEW_OK);
        assert_true(hash_positions(a) == hash_positions(b));
    }
    // The last particle moves into the place of the one destroyed, and its user data with it.
    assert_int_equal(sinew_particle_destroy(b, sinew_particle_id_at(b, 7)), SINEW_OK);
    assert_ptr_equal(sinew_particle_user_data(b, last), &tag);
    sinew_particle_def got;
    assert_int_equal(sinew_particle_get(b, last, &got), SINEW_OK);
    assert_ptr_equal(got.user_data, &tag);
    assert_int_equal(sinew_particle_get(b, first, &got), SINEW_OK);
    assert_null(got.user_data);
    sinew_world_destroy(b);
    assert_true(cb.live_bytes == 0u);

    // A first use that finds no memory fails and changes nothing; it works once memory is back.
    const sinew_particle_id ball = sinew_particle_id_at(a, N / 2);
    const uint64_t h = hash_positions(a);
    ca.fail_after = (int64_t)ca.allocs;
    assert_int_equal(sinew_particle_set_user_data(a, ball, &tag), SINEW_ERR_OUT_OF_MEMORY);
    assert_int_equal(sinew_particle_apply_force(a, ball, sinew_vec2_make(5.0f, 0.0f)), SINEW_ERR_OUT_OF_MEMORY);
    sinew_particle_def d = sinew_default_particle_def();
    d.user_data = &tag;
    assert_int_equal(sinew_particle_create(a, &d, NULL), SINEW_ERR_OUT_OF_MEMORY);
    ca.fail_after = -1;
    assert_int_equal(sinew_world_particles(a).count, N);
    assert_null(sinew_particle_user_data(a, ball));
    assert_true(sinew_world_byte_count(a) == ca.live_bytes);
    assert_true(hash_positions(a) == h);
    // The refused force did not act: a steps on as a pile that has user data and was never pushed.
    counting_allocator cc;
    sinew_world *c = tagged_pile(&cc, N, &tag);
    assert_true(sinew_world_byte_count(c) > bare + sizeof(void *) * N);
    step_world(c, 60);
    assert_int_equal(sinew_world_step(a, dt), SINEW_OK);
    assert_int_equal(sinew_world_step(c, dt), SINEW_OK);
    assert_true(hash_positions(a) == hash_positions(c));
    assert_ptr_equal(sinew_particle_user_data(c, sinew_particle_id_at(c, 3)), &tag);
    assert_null(sinew_particle_user_data(c, sinew_particle_id_at(c, 4)));
    assert_int_equal(sinew_particle_set_user_data(a, ball, &tag), SINEW_OK);
    assert_ptr_equal(sinew_particle_user_data(a, ball), &tag);
    assert_int_equal(sinew_particle_apply_force(a, ball, sinew_vec2_make(5.0f, 0.0f)), SINEW_OK);
    sinew_world_destroy(a);
    sinew_world_destroy(c);
    assert_true(ca.live_bytes == 0u && cc.live_bytes == 0u);
}

// The filters (group, mask) and the frictions are arrays only once two particles differ in them:
// 16 bytes a particle less until then. A particle that differs (created so, or set) makes them,
// holding the one value for every other particle; the same steps either way; a setter or a
// create that cannot have the memory fails and changes nothing; the only particle of a world
// changes the one value itself.
static void one_filter_and_one_friction_take_no_arrays(void **state)
{
    (void)state;
    enum { N = 300 };
    counting_allocator ca, cb;
    sinew_world *a = tagged_pile(&ca, N, NULL), *b = tagged_pile(&cb, N, NULL);
    const size_t bare = sinew_world_byte_count(a);
    const sinew_particle_def dflt = sinew_default_particle_def();
    const sinew_particle_id ball = sinew_particle_id_at(b, N / 2), other = sinew_particle_id_at(b, 3);
    // The values every particle holds already: no arrays.
    assert_int_equal(sinew_particle_set_filter(b, ball, dflt.group, dflt.mask), SINEW_OK);
    assert_int_equal(sinew_particle_set_friction(b, ball, dflt.friction, dflt.kinetic_friction), SINEW_OK);
    assert_true(sinew_world_byte_count(b) == bare);
    // Another filter: the filter arrays, the others keep the one value.
    assert_int_equal(sinew_particle_set_filter(b, ball, 2u, 0xffu), SINEW_OK);
    const size_t filters = sinew_world_byte_count(b) - bare;
    assert_true(filters >= 2u * sizeof(uint32_t) * N && filters <= 2u * sizeof(uint32_t) * 2 * N + 128u);
    sinew_particle_def got;
    assert_int_equal(sinew_particle_get(b, ball, &got), SINEW_OK);
    assert_true(got.group == 2u && got.mask == 0xffu);
    assert_int_equal(sinew_particle_get(b, other, &got), SINEW_OK);
    assert_true(got.group == dflt.group && got.mask == dflt.mask);
    // Other frictions: the friction arrays.
    assert_int_equal(sinew_particle_set_friction(b, ball, 0.25f, 0.16f), SINEW_OK);
    const size_t both = sinew_world_byte_count(b) - bare;
    assert_true(both - filters >= 2u * sizeof(float) * N && both - filters <= 2u * sizeof(float) * 2 * N + 128u);
    assert_int_equal(sinew_particle_get(b, ball, &got), SINEW_OK);
    assert_float_equal(got.friction, 0.25f, 1e-6f);
    assert_float_equal(got.kinetic_friction, 0.16f, 1e-6f);
    assert_int_equal(sinew_particle_get(b, other, &got), SINEW_OK);
    assert_float_equal(got.friction, dflt.friction, 1e-6f);
    assert_float_equal(got.kinetic_friction, dflt.kinetic_friction, 1e-6f);
    // Back to the one value: the arrays stay, and the pile steps as the one that never had them.
    assert_int_equal(sinew_particle_set_filter(b, ball, dflt.group, dflt.mask), SINEW_OK);
    assert_int_equal(sinew_particle_set_friction(b, ball, dflt.friction, dflt.kinetic_friction), SINEW_OK);
    assert_true(sinew_world_byte_count(b) == bare + both);
    for (int s = 0; s < 60; ++s) {
        assert_int_equal(sinew_world_step(a, dt), SINEW_OK);
        assert_int_equal(sinew_world_step(b, dt), SINEW_OK);
        assert_true(hash_positions(a) == hash_positions(b));
    }
    // A filter that follows its particle when another is destroyed.
    const sinew_particle_id last = sinew_particle_id_at(b, N - 1);
    assert_int_equal(sinew_particle_set_filter(b, last, 4u, 0x7u), SINEW_OK);
    assert_int_equal(sinew_particle_destroy(b, sinew_particle_id_at(b, 7)), SINEW_OK);
    assert_int_equal(sinew_particle_get(b, last, &got), SINEW_OK);
    assert_true(got.group == 4u && got.mask == 0x7u);
    sinew_world_destroy(b);
    assert_true(cb.live_bytes == 0u);

    // Without memory for the arrays: refused, and nothing changes.
    const uint64_t h = hash_positions(a);
    const size_t held = sinew_world_byte_count(a);
    ca.fail_after = (int64_t)ca.allocs;
    assert_int_equal(sinew_particle_set_filter(a, other, 2u, 2u), SINEW_ERR_OUT_OF_MEMORY);
    assert_int_equal(sinew_particle_set_friction(a, other, 0.9f, 0.8f), SINEW_ERR_OUT_OF_MEMORY);
    sinew_particle_def d = sinew_default_particle_def();
    d.friction = 0.1f;
    assert_int_equal(sinew_particle_create(a, &d, NULL), SINEW_ERR_OUT_OF_MEMORY);
    ca.fail_after = -1;
    assert_int_equal(sinew_world_particles(a).count, N);
    assert_int_equal(sinew_particle_get(a, sinew_particle_id_at(a, 3), &got), SINEW_OK);
    assert_true(got.group == dflt.group && got.mask == dflt.mask);
    assert_float_equal(got.friction, dflt.friction, 1e-6f);
    assert_true(sinew_world_byte_count(a) == held && hash_positions(a) == h);
    // Created with another friction: the arrays, and the others keep theirs.
    assert_int_equal(sinew_particle_create(a, &d, NULL), SINEW_OK);
    assert_true(sinew_world_byte_count(a) > held + 2u * sizeof(float) * N);
    assert_int_equal(sinew_particle_get(a, sinew_particle_id_at(a, N), &got), SINEW_OK);
    assert_float_equal(got.friction, 0.1f, 1e-6f);
    assert_int_equal(sinew_particle_get(a, sinew_particle_id_at(a, 0), &got), SINEW_OK);
    assert_float_equal(got.friction, dflt.friction, 1e-6f);
    sinew_world_destroy(a);
    assert_true(ca.live_bytes == 0u);

    // The only particle of a world: its filter and frictions are the one value, no arrays.
    sinew_world *one = tagged_pile(&ca, 1, NULL);
    const size_t alone = sinew_world_byte_count(one);
    const sinew_particle_id only = sinew_particle_id_at(one, 0);
    assert_int_equal(sinew_particle_set_filter(one, only, 8u, 9u), SINEW_OK);
    assert_int_equal(sinew_particle_set_friction(one, only, 0.3f, 0.2f), SINEW_OK);
    assert_true(sinew_world_byte_count(one) == alone);
    assert_int_equal(sinew_particle_get(one, only, &got), SINEW_OK);
    assert_true(got.group == 8u && got.mask == 9u);
    assert_float_equal(got.friction, 0.3f, 1e-6f);
    assert_float_equal(got.kinetic_friction, 0.2f, 1e-6f);
    // A second particle with the first's values needs none; one with the defaults does.
    d = sinew_default_particle_def();
    d.group = 8u;
    d.mask = 9u;
    d.friction = 0.3f;
    d.kinetic_friction = 0.2f;
    assert_int_equal(sinew_particle_create(one, &d, NULL), SINEW_OK);
    const size_t two = sinew_world_byte_count(one);
    assert_int_equal(sinew_particle_create(one, &dflt, NULL), SINEW_OK);
    assert_true(sinew_world_byte_count(one) > two);
    assert_int_equal(sinew_particle_get(one, only, &got), SINEW_OK);
    assert_true(got.group == 8u && got.mask == 9u);
    assert_int_equal(sinew_particle_get(one, sinew_particle_id_at(one, 2), &got), SINEW_OK);
    assert_true(got.group == dflt.group && got.mask == dflt.mask);
    assert_float_equal(got.friction, dflt.friction, 1e-6f);
    sinew_world_destroy(one);
    assert_true(ca.live_bytes == 0u);
}

static void weight_zero_never_moves(void **state)
{
    (void)state;
    const sinew_solver_mode modes[2] = {SINEW_SOLVER_GAUSS_SEIDEL, SINEW_SOLVER_JACOBI};
    for (int m = 0; m < 2; ++m) {
        sinew_world *w = make_world(modes[m]); // default gravity (0, -10)
        sinew_particle_id anchor = make_particle(w, 1.5f, 2.25f, 0.0f);
        // Particles pulling on the anchor through links, one of them stretched from the start.
        sinew_particle_id a = make_particle(w, 2.5f, 2.25f, 1.0f);
        sinew_particle_id b = make_particle(w, 1.5f, 4.0f, 1.0f);
        make_link(w, anchor, a);
        sinew_distance_def d = sinew_default_distance_def();
        d.a = b;
        d.b = anchor;
        d.rest = 0.5f;
        sinew_distance_id link;
        assert_int_equal(sinew_distance_create(w, &d, &link), SINEW_OK);
        // A second immovable particle linked to the first: a link with no weight at either end.
        sinew_particle_id anchor2 = make_particle(w, 0.0f, 0.0f, 0.0f);
        d.a = anchor;
        d.b = anchor2;
        d.rest = 1.0f;
        assert_int_equal(sinew_distance_create(w, &d, &link), SINEW_OK);
        for (int s = 0; s < 60; ++s) {
            assert_int_equal(sinew_particle_apply_force(w, anchor, sinew_vec2_make(50.0f, 80.0f)), SINEW_OK);
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            sinew_vec2 p = position_of(w, anchor);
            assert_true(p.x == 1.5f && p.y == 2.25f); // to the bit
            p = position_of(w, anchor2);
            assert_true(p.x == 0.0f && p.y == 0.0f);
        }
        sinew_vec2 v = velocity_of(w, anchor);
        assert_true(v.x == 0.0f && v.y == 0.0f);
        // The free particles did move (the test is not vacuous).
        sinew_vec2 pa = position_of(w, a), pb = position_of(w, b);
        assert_true(sinew_vec2_distance(pa, sinew_vec2_make(2.5f, 2.25f)) > 0.1f);
        assert_true(sinew_vec2_distance(pb, sinew_vec2_make(1.5f, 4.0f)) > 0.1f);
        sinew_world_destroy(w);
    }
}

// sinew_particle_get returns what was made and set; the setters refuse bad values and change
// nothing then; each setting takes effect at the next step.
static void a_particle_reads_back_as_a_def_and_its_settings_change_after_creation(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_def d = sinew_default_particle_def();
    d.position = sinew_vec2_make(1.5f, -2.0f);
    d.velocity = sinew_vec2_make(3.0f, 0.5f);
    d.weight = 2.0f;
    d.radius = 0.25f;
    d.group = 6u;
    d.mask = 0xf0u;
    d.friction = 0.81f;
    d.kinetic_friction = 0.25f;
    d.user_data = &d;
    sinew_particle_id id;
    assert_int_equal(sinew_particle_create(w, &d, &id), SINEW_OK);
    sinew_particle_def got;
    assert_int_equal(sinew_particle_get(w, id, &got), SINEW_OK);
    assert_true(got.position.x == d.position.x && got.position.y == d.position.y);
    assert_true(fabsf(got.velocity.x - 3.0f) < 1e-4f && fabsf(got.velocity.y - 0.5f) < 1e-4f);
    assert_true(got.weight == 2.0f && got.radius == 0.25f && got.flags == d.flags);
    assert_true(got.group == 6u && got.mask == 0xf0u && got.user_data == &d);
    assert_true(fabsf(got.friction - 0.81f) < 1e-6f && fabsf(got.kinetic_friction - 0.25f) < 1e-6f);

    assert_int_equal(sinew_particle_set_radius(w, id, 0.5f), SINEW_OK);
    assert_int_equal(sinew_particle_set_flags(w, id, 0u), SINEW_OK);
    assert_int_equal(sinew_particle_set_filter(w, id, 1u, 2u), SINEW_OK);
    assert_int_equal(sinew_particle_set_friction(w, id, 0.0f, 0.0f), SINEW_OK);
    assert_int_equal(sinew_particle_set_user_data(w, id, NULL), SINEW_OK);
    assert_int_equal(sinew_particle_get(w, id, &got), SINEW_OK);
    assert_true(got.radius == 0.5f && got.flags == 0u && got.group == 1u && got.mask == 2u);
    assert_true(got.friction == 0.0f && got.kinetic_friction == 0.0f && got.user_data == NULL);

    // Refused: nothing changes.
    assert_int_equal(sinew_particle_set_radius(w, id, -1.0f), SINEW_ERR_NEGATIVE_RADIUS);
    assert_int_equal(sinew_particle_set_radius(w, id, NAN), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_particle_set_radius(w, id, 2e15f), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_particle_set_friction(w, id, -0.1f, 0.0f), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_particle_set_friction(w, id, 0.1f, INFINITY), SINEW_ERR_NOT_FINITE);
    const sinew_particle_id none = SINEW_NULL_ID;
    assert_int_equal(sinew_particle_set_flags(w, none, 1u), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_particle_get(w, id, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_particle_get(w, id, &got), SINEW_OK);
    assert_true(got.radius == 0.5f && got.friction == 0.0f && got.flags == 0u);
    sinew_world_destroy(w);
}

// Two balls made on top of each other: they separate while both collide; with COLLIDES cleared
// on one, or with filters that do not meet, they stay where they are; a larger radius pushes them
// further apart.
static float settle_gap(uint32_t flags_b, uint32_t mask_b, float radius_b)
{
    sinew_world_def def = sinew_default_world_def();
    def.gravity = sinew_vec2_make(0.0f, 0.0f);
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    const sinew_particle_id a = make_particle(w, 0.0f, 0.0f, 1.0f), b = make_particle(w, 0.05f, 0.0f, 1.0f);
    assert_int_equal(sinew_particle_set_flags(w, b, flags_b), SINEW_OK);
    assert_int_equal(sinew_particle_set_filter(w, b, 1u, mask_b), SINEW_OK);
    assert_int_equal(sinew_particle_set_radius(w, b, radius_b), SINEW_OK);
    for (int s = 0; s < 30; ++s) {
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    }
    const float gap = position_of(w, b).x - position_of(w, a).x;
    sinew_world_destroy(w);
    return gap;
}

static void the_settings_take_effect_at_the_next_step(void **state)
{
    (void)state;
    const float both = settle_gap(SINEW_PARTICLE_COLLIDES, UINT32_MAX, 0.1f);
    assert_true(fabsf(both - 0.2f) < 1e-3f); // radii 0.1 + 0.1
    assert_true(fabsf(settle_gap(0u, UINT32_MAX, 0.1f) - 0.05f) < 1e-6f); // b does not collide
    assert_true(fabsf(settle_gap(SINEW_PARTICLE_COLLIDES, 0u, 0.1f) - 0.05f) < 1e-6f); // masks do not meet
    assert_true(fabsf(settle_gap(SINEW_PARTICLE_COLLIDES, UINT32_MAX, 0.4f) - 0.5f) < 1e-3f); // 0.1 + 0.4
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_particle_def_matches_the_header),
        cmocka_unit_test(create_get_set_round_trip),
        cmocka_unit_test(a_particle_reads_back_as_a_def_and_its_settings_change_after_creation),
        cmocka_unit_test(the_settings_take_effect_at_the_next_step),
        cmocka_unit_test(set_position_keeps_velocity),
        cmocka_unit_test(destroyed_ids_stay_invalid_after_the_slot_is_reused),
        cmocka_unit_test(the_null_id_is_invalid),
        cmocka_unit_test(destroy_takes_its_constraints_and_keeps_the_others_right),
        cmocka_unit_test(index_and_id_at_are_inverse),
        cmocka_unit_test(the_view_agrees_with_the_getters),
        cmocka_unit_test(create_refuses_bad_defs_and_changes_nothing),
        cmocka_unit_test(setters_and_getters_refuse_bad_input_and_change_nothing),
        cmocka_unit_test(apply_force_accelerates_by_weight_times_force_for_one_step),
        cmocka_unit_test(weight_zero_never_moves),
        cmocka_unit_test(forces_and_user_data_take_memory_only_once_used),
        cmocka_unit_test(one_filter_and_one_friction_take_no_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
