// Debug draw: each flag draws what it names and nothing else, one primitive per particle, link,
// pin, area, angle limit and collider; NULL callbacks are skipped; a stretched link turns red.
#include <string.h>

#include "support.h"

typedef struct tally {
    int circles, segments, polygons, points;
    int polygon_vertices;
    sinew_color last_segment;
} tally;

static void on_circle(sinew_vec2 c, float r, sinew_color col, void *ctx)
{
    (void)c, (void)r, (void)col;
    ((tally *)ctx)->circles += 1;
}

static void on_segment(sinew_vec2 a, sinew_vec2 b, sinew_color col, void *ctx)
{
    (void)a, (void)b;
    ((tally *)ctx)->segments += 1;
    ((tally *)ctx)->last_segment = col;
}

static void on_polygon(const sinew_vec2 *v, int n, float r, sinew_color col, void *ctx)
{
    (void)v, (void)r, (void)col;
    ((tally *)ctx)->polygons += 1;
    ((tally *)ctx)->polygon_vertices += n;
}

static void on_point(sinew_vec2 p, sinew_color col, void *ctx)
{
    (void)p, (void)col;
    ((tally *)ctx)->points += 1;
}

static tally draw_with(const sinew_world *w, uint32_t flags)
{
    tally t;
    memset(&t, 0, sizeof t);
    const sinew_debug_draw d = {on_circle, on_segment, on_polygon, on_point, flags, &t};
    assert_int_equal(sinew_world_draw(w, &d), SINEW_OK);
    return t;
}

static void each_flag_draws_what_it_names(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_rope_def rd = sinew_default_rope_def();
    rd.links = 5;
    rd.bend_stiffness = 0.5f; // angles at the 4 inner joints
    assert_int_equal(sinew_rope_create(w, &rd, NULL), SINEW_OK); // 6 particles, 5 links, 1 pin
    sinew_softbody_def sd = sinew_default_softbody_def();
    sd.points = 12;
    sd.center = sinew_vec2_make(20.0f, 0.0f);
    assert_int_equal(sinew_softbody_create(w, &sd, NULL), SINEW_OK); // 12 particles, 12 edges, 1 area
    sinew_collider_def cd = sinew_default_collider_def();
    assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0.0f, 1.0f), -30.0f, NULL), SINEW_OK);
    assert_int_equal(sinew_box_collider_create(w, &cd, sinew_vec2_make(40.0f, 0.0f), sinew_vec2_make(41.0f, 1.0f), NULL),
                     SINEW_OK);
    const int particles = sinew_world_particles(w).count;
    const int links = sinew_world_distance_count(w), pins = sinew_world_pin_count(w);
    const int angles = sinew_world_angle_count(w), areas = sinew_world_area_count(w);
    assert_int_equal(angles, 4);
    tally t = draw_with(w, SINEW_DRAW_PARTICLES);
    assert_int_equal(t.circles, particles);
    assert_int_equal(t.segments + t.polygons + t.points, 0);
    t = draw_with(w, SINEW_DRAW_LINKS);
    assert_int_equal(t.segments, links);
    assert_int_equal(t.circles + t.polygons + t.points, 0);
    t = draw_with(w, SINEW_DRAW_PINS);
    assert_int_equal(t.segments, pins);
    assert_int_equal(t.points, pins);
    t = draw_with(w, SINEW_DRAW_ANGLES);
    assert_int_equal(t.segments, 2 * angles); // both limits of each joint
    t = draw_with(w, SINEW_DRAW_AREAS);
    assert_int_equal(t.polygons, areas);
    assert_int_equal(t.polygon_vertices, 12);
    t = draw_with(w, SINEW_DRAW_COLLIDERS);
    assert_int_equal(t.segments, 1); // the half-plane
    assert_int_equal(t.polygons, 1); // the box
    assert_int_equal(t.polygon_vertices, 4);
    t = draw_with(w, 0u);
    assert_int_equal(t.circles + t.segments + t.polygons + t.points, 0);
    // NULL callbacks are skipped.
    const sinew_debug_draw none = {NULL, NULL, NULL, NULL, SINEW_DRAW_ALL, NULL};
    assert_int_equal(sinew_world_draw(w, &none), SINEW_OK);
    assert_int_equal(sinew_world_draw(w, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_draw(NULL, &none), SINEW_ERR_NULL_ARGUMENT);
    sinew_world_destroy(w);
}

static void a_stretched_link_is_red_and_a_resting_one_green(void **state)
{
    (void)state;
    sinew_world_def def = sinew_default_world_def();
    def.gravity = sinew_vec2_make(0.0f, 0.0f);
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    const sinew_particle_id a = make_particle(w, 0.0f, 0.0f, 1.0f), b = make_particle(w, 1.0f, 0.0f, 1.0f);
    make_link(w, a, b);
    tally t = draw_with(w, SINEW_DRAW_LINKS);
    assert_true(t.last_segment.g > t.last_segment.r && t.last_segment.g > t.last_segment.b);
    assert_int_equal(sinew_particle_set_position(w, b, sinew_vec2_make(1.5f, 0.0f)), SINEW_OK);
    t = draw_with(w, SINEW_DRAW_LINKS);
    assert_true(t.last_segment.r > t.last_segment.g && t.last_segment.r > t.last_segment.b);
    sinew_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_flag_draws_what_it_names),
        cmocka_unit_test(a_stretched_link_is_red_and_a_resting_one_green),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
