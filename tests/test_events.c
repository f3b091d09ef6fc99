// Contact events: a touch begins once (with both ids, a point, a normal and the approach speed)
// and ends once; collider touches likewise; nothing without SINEW_PARTICLE_EVENTS or with a
// collider's events off; the same events on every run, in order; a loaded world goes on without
// reporting old touches again.
#include <math.h>
#include <stdlib.h>

#include "support.h"

#define DT (1.0f / 60.0f)

static sinew_world *weightless(void)
{
    sinew_world_def def = sinew_default_world_def();
    def.gravity = sinew_vec2_make(0.0f, 0.0f);
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    return w;
}

static sinew_particle_id ball(sinew_world *w, float x, float vx, uint32_t flags)
{
    sinew_particle_def d = sinew_default_particle_def();
    d.position = sinew_vec2_make(x, 0.0f);
    d.velocity = sinew_vec2_make(vx, 0.0f);
    d.flags = flags;
    sinew_particle_id id;
    assert_int_equal(sinew_particle_create(w, &d, &id), SINEW_OK);
    return id;
}

static bool same(sinew_particle_id a, sinew_particle_id b) { return a.index1 == b.index1 && a.generation == b.generation; }

static void a_touch_begins_once_and_ends_once(void **state)
{
    (void)state;
    sinew_world *w = weightless();
    const sinew_particle_id a = ball(w, 0.0f, 2.0f, SINEW_PARTICLE_COLLIDES | SINEW_PARTICLE_EVENTS);
    const sinew_particle_id b = ball(w, 1.0f, -2.0f, SINEW_PARTICLE_COLLIDES); // events on either side suffice
    int begins = 0, ends = 0;
    for (int s = 0; s < 60; ++s) {
        assert_int_equal(sinew_world_step(w, DT), SINEW_OK);
        const sinew_contact_events e = sinew_world_contact_events(w);
        for (int k = 0; k < e.begin_count; ++k) {
            const sinew_contact_begin_event *ev = &e.begin[k];
            assert_true(same(ev->a, a) && same(ev->b, b) && ev->collider.index1 == 0u);
            assert_true(fabsf(ev->normal.x - 1.0f) < 1e-3f && fabsf(ev->normal.y) < 1e-3f);
            assert_true(fabsf(ev->point.x - (position_of(w, a).x + 0.1f)) < 1e-3f);
            // They close at 4 m/s; the speed is the one at the start of the step they met in.
            assert_true(fabsf(ev->approach_speed - 4.0f) < 0.05f);
            begins += 1;
        }
        ends += e.end_count;
    }
    assert_int_equal(begins, 1);
    assert_int_equal(ends, 0); // the inelastic contact holds them together
    // Pulled apart, the touch ends once.
    assert_int_equal(sinew_particle_set_velocity(w, a, sinew_vec2_make(-3.0f, 0.0f)), SINEW_OK);
    assert_int_equal(sinew_particle_set_velocity(w, b, sinew_vec2_make(3.0f, 0.0f)), SINEW_OK);
    for (int s = 0; s < 10; ++s) {
        assert_int_equal(sinew_world_step(w, DT), SINEW_OK);
        const sinew_contact_events e = sinew_world_contact_events(w);
        for (int k = 0; k < e.end_count; ++k) {
            assert_true(same(e.end[k].a, a) && same(e.end[k].b, b));
            ends += 1;
        }
        begins += e.begin_count;
    }
    assert_int_equal(begins, 1);
    assert_int_equal(ends, 1);
    sinew_world_destroy(w);
}

static void balls_without_events_and_colliders_with_events_off_report_nothing(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 200;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK); // particles: events off by default
    for (int s = 0; s < 120; ++s) {
        assert_int_equal(sinew_world_step(w, DT), SINEW_OK);
        const sinew_contact_events e = sinew_world_contact_events(w);
        assert_int_equal(e.begin_count + e.end_count, 0);
    }
    sinew_world_destroy(w);
    // A ball with events falling on a floor: one begin with the floor's id and about the speed it
    // fell at; with the floor's events off, none.
    for (int on = 0; on < 2; ++on) {
        w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
        sinew_collider_def cd = sinew_default_collider_def();
        sinew_collider_id floor_id;
        assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0.0f, 1.0f), 0.0f, &floor_id), SINEW_OK);
        assert_int_equal(sinew_collider_set_events(w, floor_id, on != 0), SINEW_OK);
        sinew_particle_def d = sinew_default_particle_def();
        d.position = sinew_vec2_make(0.0f, 5.0f);
        d.flags |= SINEW_PARTICLE_EVENTS;
        sinew_particle_id b;
        assert_int_equal(sinew_particle_create(w, &d, &b), SINEW_OK);
        int begins = 0;
        for (int s = 0; s < 120; ++s) {
            assert_int_equal(sinew_world_step(w, DT), SINEW_OK);
            const sinew_contact_events e = sinew_world_contact_events(w);
            for (int k = 0; k < e.begin_count; ++k) {
                assert_true(same(e.begin[k].a, b) && e.begin[k].b.index1 == 0u);
                assert_true(e.begin[k].collider.index1 == floor_id.index1);
                assert_true(fabsf(e.begin[k].normal.y + 1.0f) < 1e-3f); // into the floor
                // Dropped 4.9 m: about 9.8 m/s at the floor, give or take a step of gravity.
                assert_true(e.begin[k].approach_speed > 9.0f && e.begin[k].approach_speed < 10.5f);
                begins += 1;
            }
        }
        assert_int_equal(begins, on ? 1 : 0);
        sinew_world_destroy(w);
    }
}

// A pile of balls with events, twice: the same events, in order, both times.
typedef struct record {
    int begins, ends;
    uint64_t hash;
} record;

static record run_pile(void)
{
    sinew_world *w = make_world(SINEW_SOLVER_JACOBI);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 150;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    for (int i = 0; i < sinew_world_particles(w).count; i += 2) {
        assert_int_equal(sinew_particle_set_flags(w, sinew_particle_id_at(w, i),
                                                  SINEW_PARTICLE_COLLIDES | SINEW_PARTICLE_EVENTS),
                         SINEW_OK);
    }
    record r = {0, 0, 1469598103934665603ull};
    for (int s = 0; s < 200; ++s) {
        assert_int_equal(sinew_world_step(w, DT), SINEW_OK);
        const sinew_contact_events e = sinew_world_contact_events(w);
        for (int k = 0; k < e.begin_count; ++k) {
            if (k > 0) { // sorted by the pair's ids
                const sinew_contact_begin_event *p = &e.begin[k - 1], *q = &e.begin[k];
                assert_true(p->a.index1 < q->a.index1 || (p->a.index1 == q->a.index1 && p->a.generation <= q->a.generation));
            }
            r.hash = (r.hash ^ e.begin[k].a.index1 ^ ((uint64_t)e.begin[k].b.index1 << 20) ^
                      ((uint64_t)e.begin[k].collider.index1 << 40)) * 1099511628211ull;
        }
        r.begins += e.begin_count;
        r.ends += e.end_count;
    }
    sinew_world_destroy(w);
    return r;
}

static void the_same_events_come_on_every_run(void **state)
{
    (void)state;
    const record a = run_pile(), b = run_pile();
    assert_true(a.begins > 100);
    assert_int_equal(a.begins, b.begins);
    assert_int_equal(a.ends, b.ends);
    assert_true(a.hash == b.hash);
}

// A touch saved in a snapshot is not reported again by the loaded world; a destroyed particle's
// touches end.
static void a_loaded_world_keeps_its_touches_and_destroying_ends_them(void **state)
{
    (void)state;
    sinew_world *w = weightless();
    const sinew_particle_id a = ball(w, 0.0f, 1.0f, SINEW_PARTICLE_COLLIDES | SINEW_PARTICLE_EVENTS);
    const sinew_particle_id b = ball(w, 0.5f, -1.0f, SINEW_PARTICLE_COLLIDES);
    for (int s = 0; s < 30; ++s) {
        assert_int_equal(sinew_world_step(w, DT), SINEW_OK);
    }
    const size_t size = sinew_world_save_size(w);
    void *buf = malloc(size);
    assert_non_null(buf);
    assert_int_equal(sinew_world_save(w, buf, size, NULL), SINEW_OK);
    sinew_world *l = NULL;
    assert_int_equal(sinew_world_load(buf, size, NULL, &l), SINEW_OK);
    assert_int_equal(sinew_world_step(l, DT), SINEW_OK);
    sinew_contact_events e = sinew_world_contact_events(l);
    assert_int_equal(e.begin_count + e.end_count, 0);
    assert_int_equal(sinew_particle_destroy(l, b), SINEW_OK);
    assert_int_equal(sinew_world_step(l, DT), SINEW_OK);
    e = sinew_world_contact_events(l);
    assert_int_equal(e.end_count, 1);
    assert_true(same(e.end[0].a, a) && same(e.end[0].b, b));
    free(buf);
    sinew_world_destroy(l);
    sinew_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_touch_begins_once_and_ends_once),
        cmocka_unit_test(balls_without_events_and_colliders_with_events_off_report_nothing),
        cmocka_unit_test(the_same_events_come_on_every_run),
        cmocka_unit_test(a_loaded_world_keeps_its_touches_and_destroying_ends_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
