// Ray casts against brute force: random scenes of particles, half-planes, discs and boxes; the
// closest hit of sinew_world_cast_ray is the closest of an independent per-shape computation in
// double (its fraction, id, point and normal), and sinew_world_cast_ray_all reports each of those
// hits once.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

// Entry of o + t d into the circle (c, r), t in [0, 1], from outside; -1 when none.
static double circle_entry(double ox, double oy, double dx, double dy, double cx, double cy, double r)
{
    const double fx = ox - cx, fy = oy - cy, a = dx * dx + dy * dy, b = fx * dx + fy * dy;
    const double k = fx * fx + fy * fy - r * r, disc = b * b - a * k;
    if (k <= 0.0 || a <= 0.0 || b >= 0.0 || disc < 0.0) {
        return -1.0;
    }
    const double t = (-b - sqrt(disc)) / a;
    return t >= 0.0 && t <= 1.0 ? t : -1.0;
}

// Entry into the half-plane n . x < offset (the solid side) from outside; -1 when none.
static double plane_entry(double ox, double oy, double dx, double dy, double nx, double ny, double offset)
{
    const double s0 = nx * ox + ny * oy - offset, s1 = nx * (ox + dx) + ny * (oy + dy) - offset;
    if (!(s0 >= 0.0 && s1 < 0.0)) {
        return -1.0;
    }
    return s0 / (s0 - s1);
}

// Entry into the box [x0, x1] x [y0, y1] (slabs) from outside, and the face's normal; -1 when none.
static double box_entry(double ox, double oy, double dx, double dy, double x0, double y0, double x1, double y1,
                        double *nx, double *ny)
{
    if (ox > x0 && ox < x1 && oy > y0 && oy < y1) {
        return -1.0; // inside
    }
    double tmin = 0.0, tmax = 1.0, fnx = 0.0, fny = 0.0;
    const double o[2] = {ox, oy}, d[2] = {dx, dy}, lo[2] = {x0, y0}, hi[2] = {x1, y1};
    for (int k = 0; k < 2; ++k) {
        if (fabs(d[k]) < 1e-12) {
            if (o[k] < lo[k] || o[k] > hi[k]) {
                return -1.0;
            }
            continue;
        }
        double t0 = (lo[k] - o[k]) / d[k], t1 = (hi[k] - o[k]) / d[k];
        double n = -1.0;
        if (t0 > t1) {
            const double tmp = t0;
            t0 = t1;
            t1 = tmp;
            n = 1.0;
        }
        if (t0 > tmin) {
            tmin = t0;
            fnx = k == 0 ? n : 0.0;
            fny = k == 1 ? n : 0.0;
        }
        tmax = t1 < tmax ? t1 : tmax;
        if (tmin > tmax) {
            return -1.0;
        }
    }
    *nx = fnx;
    *ny = fny;
    return fnx != 0.0 || fny != 0.0 ? tmin : -1.0;
}

typedef struct shapes {
    int planes, discs, boxes;
    double plane[4][3];       // nx, ny, offset
    double disc[6][3];        // cx, cy, r
    double box[6][4];         // x0, y0, x1, y1
    sinew_collider_id ids[16]; // in creation order: planes, discs, boxes
} shapes;

typedef struct expected {
    double t;
    int particle; // index, or -1
    int collider; // index into shapes.ids, or -1
    double nx, ny;
} expected;

static void consider(expected *e, double t, int particle, int collider, double nx, double ny)
{
    if (t >= 0.0 && (e->t < 0.0 || t < e->t - 1e-9)) {
        *e = (expected){t, particle, collider, nx, ny};
    }
}

static int hits_seen;
static float count_hits(const sinew_ray_hit *hit, void *context)
{
    (void)hit;
    (void)context;
    hits_seen += 1;
    return 1.0f; // every hit
}

static void the_closest_hit_matches_brute_force_on_random_scenes(void **state)
{
    (void)state;
    uint64_t rng = 11u;
    int compared = 0, hit_count = 0;
    for (int scene = 0; scene < 40; ++scene) {
        sinew_world_def def = sinew_default_world_def();
        sinew_world *w = NULL;
        assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
        const int n = 30;
        sinew_particle_id ids[30];
        for (int i = 0; i < n; ++i) {
            sinew_particle_def pd = sinew_default_particle_def();
            pd.position = uniform_vec2(&rng, -10.0, 10.0, -10.0, 10.0);
            pd.radius = (float)uniform(&rng, 0.05, 0.8);
            assert_int_equal(sinew_particle_create(w, &pd, &ids[i]), SINEW_OK);
        }
        shapes sh = {0};
        sinew_collider_def cd = sinew_default_collider_def();
        int made = 0;
        sh.planes = 1 + (int)(next_random(&rng) % 2u);
        for (int k = 0; k < sh.planes; ++k) {
            const double a = uniform(&rng, 0.0, 2.0 * SINEW_PI);
            sh.plane[k][0] = cos(a);
            sh.plane[k][1] = sin(a);
            sh.plane[k][2] = -12.0;
            const sinew_vec2 normal = sinew_vec2_make((float)sh.plane[k][0], (float)sh.plane[k][1]);
            assert_int_equal(sinew_plane_collider_create(w, &cd, normal, (float)sh.plane[k][2], &sh.ids[made++]),
                             SINEW_OK);
            sinew_collider_shape got;
            assert_int_equal(sinew_collider_get_shape(w, sh.ids[made - 1], &got), SINEW_OK);
            sh.plane[k][0] = got.normal.x; // as stored (normalised in float)
            sh.plane[k][1] = got.normal.y;
            sh.plane[k][2] = got.offset;
        }
        sh.discs = 3;
        for (int k = 0; k < sh.discs; ++k) {
            sh.disc[k][0] = uniform(&rng, -9.0, 9.0);
            sh.disc[k][1] = uniform(&rng, -9.0, 9.0);
            sh.disc[k][2] = uniform(&rng, 0.3, 2.0);
            assert_int_equal(sinew_circle_collider_create(w, &cd, sinew_vec2_make((float)sh.disc[k][0], (float)sh.disc[k][1]),
                                                          (float)sh.disc[k][2], &sh.ids[made++]),
                             SINEW_OK);
        }
        sh.boxes = 3;
        for (int k = 0; k < sh.boxes; ++k) {
            const double x = uniform(&rng, -9.0, 7.0), y = uniform(&rng, -9.0, 7.0);
            const double bw = uniform(&rng, 0.5, 2.0), bh = uniform(&rng, 0.5, 2.0);
            sh.box[k][0] = (float)x;
            sh.box[k][1] = (float)y;
            sh.box[k][2] = (float)(x + bw);
            sh.box[k][3] = (float)(y + bh);
            assert_int_equal(sinew_box_collider_create(w, &cd, sinew_vec2_make((float)sh.box[k][0], (float)sh.box[k][1]),
                                                       sinew_vec2_make((float)sh.box[k][2], (float)sh.box[k][3]),
                                                       &sh.ids[made++]),
                             SINEW_OK);
        }
        const sinew_particle_view v = sinew_world_particles(w);
        for (int ray = 0; ray < 50; ++ray) {
            const sinew_vec2 o = uniform_vec2(&rng, -11.0, 11.0, -11.0, 11.0);
            const sinew_vec2 d = uniform_vec2(&rng, -20.0, 20.0, -20.0, 20.0);
            expected e = {-1.0, -1, -1, 0.0, 0.0};
            int brute_hits = 0;
            for (int i = 0; i < v.count; ++i) {
                const double t = circle_entry(o.x, o.y, d.x, d.y, v.x[i], v.y[i], v.radius[i]);
                if (t >= 0.0) {
                    const double px = o.x + t * d.x - v.x[i], py = o.y + t * d.y - v.y[i], len = hypot(px, py);
                    consider(&e, t, i, -1, px / len, py / len);
                    brute_hits += 1;
                }
            }
            for (int k = 0; k < sh.planes; ++k) {
                const double t = plane_entry(o.x, o.y, d.x, d.y, sh.plane[k][0], sh.plane[k][1], sh.plane[k][2]);
                consider(&e, t, -1, k, sh.plane[k][0], sh.plane[k][1]);
                brute_hits += t >= 0.0;
            }
            for (int k = 0; k < sh.discs; ++k) {
                const double t = circle_entry(o.x, o.y, d.x, d.y, sh.disc[k][0], sh.disc[k][1], sh.disc[k][2]);
                if (t >= 0.0) {
                    const double px = o.x + t * d.x - sh.disc[k][0], py = o.y + t * d.y - sh.disc[k][1];
                    const double len = hypot(px, py);
                    consider(&e, t, -1, sh.planes + k, px / len, py / len);
                    brute_hits += 1;
                }
            }
            for (int k = 0; k < sh.boxes; ++k) {
                double nx = 0.0, ny = 0.0;
                const double t = box_entry(o.x, o.y, d.x, d.y, sh.box[k][0], sh.box[k][1], sh.box[k][2], sh.box[k][3],
                                           &nx, &ny);
                consider(&e, t, -1, sh.planes + sh.discs + k, nx, ny);
                brute_hits += t >= 0.0;
            }
            sinew_ray_hit hit;
            assert_int_equal(sinew_world_cast_ray(w, o, d, NULL, &hit), SINEW_OK);
            hits_seen = 0;
            assert_int_equal(sinew_world_cast_ray_all(w, o, d, NULL, count_hits, NULL), SINEW_OK);
            assert_int_equal(hits_seen, brute_hits);
            assert_true(hit.hit == (e.t >= 0.0));
            if (!hit.hit) {
                continue;
            }
            compared += 1;
            hit_count += 1;
            assert_true(fabs((double)hit.fraction - e.t) < 1e-4);
            if (e.particle >= 0) {
                assert_true(sinew_particle_index(w, hit.particle) == e.particle);
            } else {
                assert_true(hit.collider.index1 == sh.ids[e.collider].index1);
            }
            assert_true(fabs((double)hit.normal.x - e.nx) < 1e-3 && fabs((double)hit.normal.y - e.ny) < 1e-3);
            assert_true(fabs((double)hit.point.x - (o.x + e.t * d.x)) < 1e-3);
            assert_true(fabs((double)hit.point.y - (o.y + e.t * d.y)) < 1e-3);
        }
        sinew_world_destroy(w);
    }
    assert_true(compared > 1000 && hit_count > 1000);
}

static float stop_at_first(const sinew_ray_hit *hit, void *context)
{
    (void)hit;
    *(int *)context += 1;
    return 0.0f;
}

static float ignore_and_count(const sinew_ray_hit *hit, void *context)
{
    (void)hit;
    *(int *)context += 1;
    return -1.0f;
}

static float clip(const sinew_ray_hit *hit, void *context)
{
    float *closest = context;
    *closest = hit->fraction < *closest ? hit->fraction : *closest;
    return hit->fraction; // only closer hits from now on
}

static void the_callback_can_stop_and_clip_and_the_filter_selects(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    for (int k = 0; k < 5; ++k) {
        make_particle(w, 2.0f + 2.0f * (float)k, 0.0f, 1.0f); // radius 0.1, group 1
    }
    sinew_collider_def cd = sinew_default_collider_def();
    cd.group = 2u;
    sinew_collider_id wall;
    assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(-1.0f, 0.0f), -15.0f, &wall), SINEW_OK);
    const sinew_vec2 o = sinew_vec2_make(0.0f, 0.0f), d = sinew_vec2_make(20.0f, 0.0f);
    int calls = 0;
    assert_int_equal(sinew_world_cast_ray_all(w, o, d, NULL, stop_at_first, &calls), SINEW_OK);
    assert_int_equal(calls, 1);
    calls = 0; // -1 ignores each hit and goes on: the five balls and the wall
    assert_int_equal(sinew_world_cast_ray_all(w, o, d, NULL, ignore_and_count, &calls), SINEW_OK);
    assert_int_equal(calls, 6);
    sinew_collider_id far_wall;
    assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(-1.0f, 0.0f), -18.0f, &far_wall), SINEW_OK);
    sinew_ray_filter walls_only = sinew_default_ray_filter();
    walls_only.particles = false;
    calls = 0; // stopping at a collider's hit: the second wall is not reported
    assert_int_equal(sinew_world_cast_ray_all(w, o, d, &walls_only, stop_at_first, &calls), SINEW_OK);
    assert_int_equal(calls, 1);
    calls = 0;
    assert_int_equal(sinew_world_cast_ray_all(w, o, d, &walls_only, ignore_and_count, &calls), SINEW_OK);
    assert_int_equal(calls, 2);
    assert_int_equal(sinew_collider_destroy(w, far_wall), SINEW_OK);
    float closest = 1.0f;
    assert_int_equal(sinew_world_cast_ray_all(w, o, d, NULL, clip, &closest), SINEW_OK);
    assert_true(fabsf(closest - 1.9f / 20.0f) < 1e-5f);
    // The closest hit is the first ball; without particles, the wall.
    sinew_ray_hit hit;
    assert_int_equal(sinew_world_cast_ray(w, o, d, NULL, &hit), SINEW_OK);
    assert_true(hit.hit && sinew_particle_index(w, hit.particle) == 0 && hit.collider.index1 == 0u);
    sinew_ray_filter f = sinew_default_ray_filter();
    f.particles = false;
    assert_int_equal(sinew_world_cast_ray(w, o, d, &f, &hit), SINEW_OK);
    assert_true(hit.hit && hit.collider.index1 == wall.index1 && fabsf(hit.fraction - 0.75f) < 1e-6f);
    assert_true(fabsf(hit.normal.x + 1.0f) < 1e-6f);
    // A mask that meets no group hits nothing.
    f = sinew_default_ray_filter();
    f.mask = 4u;
    assert_int_equal(sinew_world_cast_ray(w, o, d, &f, &hit), SINEW_OK);
    assert_false(hit.hit);
    // A ray that starts inside a ball does not hit it.
    assert_int_equal(sinew_world_cast_ray(w, sinew_vec2_make(2.0f, 0.0f), sinew_vec2_make(0.0f, 1.0f), NULL, &hit),
                     SINEW_OK);
    assert_false(hit.hit);
    // Bad input changes nothing and says why.
    assert_int_equal(sinew_world_cast_ray(w, sinew_vec2_make(NAN, 0.0f), d, NULL, &hit), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_cast_ray(w, o, sinew_vec2_make(3e38f, 0.0f), NULL, &hit), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_world_cast_ray(w, o, d, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_cast_ray_all(w, o, d, NULL, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    sinew_world_destroy(w);
}

// A long ray past the rounded corner of a thin capsule (the fuzzer's case: the quadratic's root
// puts the hit point only roughly at the radius from the corner), and tiny and huge vectors
// through sinew_vec2_normalize: unit normals all the same.
static void normals_stay_unit_at_extreme_scales(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_collider_def cd = sinew_default_collider_def();
    sinew_collider_id cap;
    assert_int_equal(sinew_segment_collider_create(w, &cd, sinew_vec2_make(0.0f, 0.5f), sinew_vec2_make(133640.0f, 0.0166667f),
                                                   0.001f, &cap),
                     SINEW_OK);
    sinew_ray_hit hit;
    assert_int_equal(sinew_world_cast_ray(w, sinew_vec2_make(100.0f, -10.0f), sinew_vec2_make(204800.0f, -0.5f), NULL, &hit),
                     SINEW_OK);
    assert_true(hit.hit);
    assert_true(fabsf(hit.normal.x * hit.normal.x + hit.normal.y * hit.normal.y - 1.0f) < 1e-5f);
    sinew_world_destroy(w);
    const sinew_vec2 v[] = {sinew_vec2_make(3e-30f, -4e-30f), sinew_vec2_make(1e-44f, 0.0f), sinew_vec2_make(3e30f, 4e30f),
                            sinew_vec2_make(-3e38f, 3e38f), sinew_vec2_make(0.3f, -0.4f)};
    for (int k = 0; k < 5; ++k) {
        const sinew_vec2 n = sinew_vec2_normalize(v[k]);
        assert_true(fabsf(n.x * n.x + n.y * n.y - 1.0f) < 1e-6f);
        assert_true(n.x * v[k].x >= 0.0f && n.y * v[k].y >= 0.0f); // along v
    }
    const sinew_vec2 zero = sinew_vec2_normalize(sinew_vec2_make(0.0f, 0.0f));
    const sinew_vec2 nan = sinew_vec2_normalize(sinew_vec2_make(NAN, 1.0f));
    const sinew_vec2 inf = sinew_vec2_normalize(sinew_vec2_make(INFINITY, 1.0f));
    assert_true(zero.x == 0.0f && zero.y == 0.0f && nan.x == 0.0f && nan.y == 0.0f && inf.x == 0.0f && inf.y == 0.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_closest_hit_matches_brute_force_on_random_scenes),
        cmocka_unit_test(the_callback_can_stop_and_clip_and_the_filter_selects),
        cmocka_unit_test(normals_stay_unit_at_extreme_scales),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
