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
    const sinew_debug_draw d = {.circle = on_circle, .segment = on_segment, .polygon = on_polygon, .point = on_point,
                                .flags = flags, .context = &t};
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
    assert_int_equal(t.polygons, 2); // the half-plane's quad and the box
    assert_int_equal(t.polygon_vertices, 8);
    assert_int_equal(t.segments, 0);
    t = draw_with(w, 0u);
    assert_int_equal(t.circles + t.segments + t.polygons + t.points, 0);
    // NULL callbacks are skipped.
    const sinew_debug_draw none = {.flags = SINEW_DRAW_ALL};
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

typedef struct captured {
    sinew_vec2 v[8];
    int n;
} captured;

static void capture_polygon(const sinew_vec2 *v, int n, float r, sinew_color col, void *ctx)
{
    (void)r, (void)col;
    captured *c = ctx;
    c->n = n;
    for (int k = 0; k < n && k < 8; ++k) {
        c->v[k] = v[k];
    }
}

// Inside a convex counter-clockwise polygon (on the left of every edge).
static bool inside(const captured *c, sinew_vec2 p)
{
    for (int k = 0; k < c->n; ++k) {
        const sinew_vec2 a = c->v[k], b = c->v[(k + 1) % c->n];
        if (sinew_vec2_cross(sinew_vec2_sub(b, a), sinew_vec2_sub(p, a)) < 0.0f) {
            return false;
        }
    }
    return true;
}

static void a_half_plane_covers_its_side_of_the_bounds(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    const sinew_vec2 n = sinew_vec2_normalize(sinew_vec2_make(0.3f, 1.0f));
    const float offset = -2.0f;
    sinew_collider_def cd = sinew_default_collider_def();
    assert_int_equal(sinew_plane_collider_create(w, &cd, n, offset, NULL), SINEW_OK);
    const sinew_vec2 lo = sinew_vec2_make(40.0f, -30.0f), hi = sinew_vec2_make(70.0f, 10.0f);
    captured c = {0};
    const sinew_debug_draw d = {NULL, NULL, capture_polygon, NULL, SINEW_DRAW_COLLIDERS, &c, lo, hi};
    assert_int_equal(sinew_world_draw(w, &d), SINEW_OK);
    assert_true(c.n >= 3 && c.n <= 5);
    double area = 0.0;
    for (int k = 0; k < c.n; ++k) {
        area += sinew_vec2_cross(c.v[k], c.v[(k + 1) % c.n]);
    }
    assert_true(area > 0.0); // counter-clockwise
    // Every point of the bounds a clear margin inside the solid side is covered, none outside.
    int solid = 0;
    for (int i = 0; i <= 30; ++i) {
        for (int j = 0; j <= 40; ++j) {
            const sinew_vec2 p = sinew_vec2_make(lo.x + i, lo.y + j);
            const float side = sinew_vec2_dot(n, p) - offset;
            if (side < -0.01f) {
                assert_true(inside(&c, p));
                ++solid;
            } else if (side > 0.01f) {
                assert_false(inside(&c, p));
            }
        }
    }
    assert_true(solid > 100 && solid < 31 * 41 - 100); // the edge crosses the bounds
    sinew_world_destroy(w);
}

// Planes far out or at a slant, with bounds up to near FLT_MAX: the polygon drawn lies in the
// bounds (finite), covers all of them when the plane is beyond, and is absent when it misses.
static void a_half_plane_is_clipped_to_the_bounds_whatever_its_offset(void **state)
{
    (void)state;
    const float offsets[] = {0.999f * SINEW_MAX_COORDINATE, -0.999f * SINEW_MAX_COORDINATE, 1.0e6f, -1.0e6f, 0.0f};
    const float extents[] = {1.0f, 1.0e35f, 3.0e38f};
    const sinew_vec2 normals[] = {sinew_vec2_make(1.0f, 0.0f), sinew_vec2_normalize(sinew_vec2_make(1.0f, 1.0f)),
                                  sinew_vec2_normalize(sinew_vec2_make(-0.2f, -1.0f))};
    for (int o = 0; o < 5; ++o) {
        for (int e = 0; e < 3; ++e) {
            for (int m = 0; m < 3; ++m) {
                sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
                sinew_collider_def cd = sinew_default_collider_def();
                assert_int_equal(sinew_plane_collider_create(w, &cd, normals[m], offsets[o], NULL), SINEW_OK);
                const sinew_vec2 lo = sinew_vec2_make(-extents[e], -extents[e]), hi = sinew_vec2_make(extents[e], 0.5f * extents[e]);
                captured c = {0};
                const sinew_debug_draw d = {NULL, NULL, capture_polygon, NULL, SINEW_DRAW_COLLIDERS, &c, lo, hi};
                assert_int_equal(sinew_world_draw(w, &d), SINEW_OK);
                for (int k = 0; k < c.n; ++k) {
                    assert_true(c.v[k].x >= lo.x && c.v[k].x <= hi.x && c.v[k].y >= lo.y && c.v[k].y <= hi.y);
                }
                double near = 0.0, far = 0.0; // the plane's side at the bounds' corners
                const sinew_vec2 corners[4] = {lo, hi, sinew_vec2_make(lo.x, hi.y), sinew_vec2_make(hi.x, lo.y)};
                for (int k = 0; k < 4; ++k) {
                    const double s = (double)normals[m].x * corners[k].x + (double)normals[m].y * corners[k].y - offsets[o];
                    near = k == 0 || s < near ? s : near;
                    far = k == 0 || s > far ? s : far;
                }
                if (far <= 0.0) {
                    assert_int_equal(c.n, 4); // all solid
                } else if (near > 0.0) {
                    assert_int_equal(c.n, 0); // all open
                } else {
                    assert_true(c.n >= 3 && c.n <= 5);
                }
                sinew_world_destroy(w);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_flag_draws_what_it_names),
        cmocka_unit_test(a_stretched_link_is_red_and_a_resting_one_green),
        cmocka_unit_test(a_half_plane_covers_its_side_of_the_bounds),
        cmocka_unit_test(a_half_plane_is_clipped_to_the_bounds_whatever_its_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
