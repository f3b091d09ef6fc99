// Inverse kinematics in 3D (ik3.h, vec3.h): the quaternion helpers by their properties; limits that
// hold exactly after every method over thousands of random solves with random convex polygons (3 to
// 16 corners, narrow to near a hemisphere) and twist ranges; the cone projection against a
// brute-force search of the boundary; reach rates of CCD and FABRIK on targets made from random
// poses inside the limits; a 15-link arm tracking a moving target without jumps; two-bone and its
// pole; the iteration callback; determinism; every refusal, leaving the chain unchanged.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define PI 3.14159265358979323846

// ---- helpers, in double, independent of the solver ------------------------------------------------

typedef struct d3 {
    double x, y, z;
} d3;

static d3 mk(double x, double y, double z) { d3 v = {x, y, z}; return v; }
static d3 of(sinew_vec3 v) { return mk(v.x, v.y, v.z); }
static double dot3(d3 a, d3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static d3 cross3(d3 a, d3 b) { return mk(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static d3 unit3(d3 a)
{
    const double l = sqrt(dot3(a, a));
    return mk(a.x / l, a.y / l, a.z / l);
}
static d3 add3(d3 a, d3 b) { return mk(a.x + b.x, a.y + b.y, a.z + b.z); }
static d3 scale3(d3 a, double s) { return mk(a.x * s, a.y * s, a.z * s); }

// The direction of a link rotation (ik3.h): the float quaternion normalised in double, applied to +x.
static d3 direction_of(sinew_quat f)
{
    const double l = sqrt((double)f.x * f.x + (double)f.y * f.y + (double)f.z * f.z + (double)f.w * f.w);
    const double x = f.x / l, y = f.y / l, z = f.z / l, w = f.w / l;
    return mk(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y));
}

// The twist of a link rotation (ik3.h): 2 atan2(x, w) with w made >= 0.
static double twist_of(sinew_quat f)
{
    const double x = f.w < 0.0f ? -(double)f.x : f.x, w = fabs((double)f.w);
    return 2.0 * atan2(x, w);
}

// Inside the polygon of `corners`: on the inner side of every edge plane (corner i x corner i + 1).
static bool in_cone(const sinew_vec3 *corners, int m, d3 d)
{
    for (int i = 0; i < m; ++i) {
        if (dot3(cross3(of(corners[i]), of(corners[(i + 1) % m])), d) < 0.0) {
            return false;
        }
    }
    return true;
}

// A random convex polygon: m corners on an ellipse in the plane tangent to the unit sphere at
// `axis` (gnomonic projection keeps great circles straight, so convexity carries over), half-angles
// drawn from [rmin, rmax], corners at sorted random angles, counter-clockwise about the axis.
typedef struct polygon {
    int m;
    sinew_vec3 c[SINEW_IK3_MAX_CONE_VERTICES];
    d3 axis, e1, e2;
    double ta, tb, rot;
} polygon;

static d3 plane_point(const polygon *p, double x, double y)
{
    return unit3(add3(p->axis, add3(scale3(p->e1, x), scale3(p->e2, y))));
}

static d3 random_unit(uint64_t *s)
{
    const double z = uniform(s, -1.0, 1.0), a = uniform(s, 0.0, 2.0 * PI), r = sqrt(1.0 - z * z);
    return mk(r * cos(a), r * sin(a), z);
}

static void random_polygon(uint64_t *s, polygon *p, int m, double rmin, double rmax, d3 axis)
{
    p->m = m;
    p->axis = axis;
    const d3 h = fabs(axis.x) < 0.7 ? mk(1, 0, 0) : mk(0, 1, 0);
    p->e1 = unit3(cross3(h, axis));
    p->e2 = cross3(axis, p->e1);
    p->ta = tan(uniform(s, rmin, rmax));
    p->tb = tan(uniform(s, rmin, rmax));
    p->rot = uniform(s, 0.0, 2.0 * PI);
    double ang[SINEW_IK3_MAX_CONE_VERTICES];
    for (;;) {
        for (int i = 0; i < m; ++i) {
            ang[i] = uniform(s, 0.0, 2.0 * PI);
        }
        for (int i = 1; i < m; ++i) {
            for (int j = i; j > 0 && ang[j] < ang[j - 1]; --j) {
                const double t = ang[j];
                ang[j] = ang[j - 1];
                ang[j - 1] = t;
            }
        }
        bool ok = true;
        for (int i = 0; i < m; ++i) {
            const double gap = (i + 1 < m ? ang[i + 1] : ang[0] + 2.0 * PI) - ang[i];
            ok = ok && gap > 0.05 && gap < PI - 0.05;
        }
        if (ok) {
            break;
        }
    }
    for (int i = 0; i < m; ++i) {
        const double x = p->ta * cos(ang[i]), y = p->tb * sin(ang[i]), c = cos(p->rot), sn = sin(p->rot);
        const d3 d = plane_point(p, c * x - sn * y, sn * x + c * y);
        p->c[i] = sinew_vec3_make((float)d.x, (float)d.y, (float)d.z);
    }
}

// A direction uniform over the polygon (rejection in the tangent plane's bounding square).
static d3 direction_in(uint64_t *s, const polygon *p)
{
    const double r = fmax(p->ta, p->tb);
    for (;;) {
        const double v = uniform(s, -r, r), u = uniform(s, -r, r); // (v first: see uniform_vec2)
        const d3 d = plane_point(p, u, v);
        if (in_cone(p->c, p->m, d)) {
            return d;
        }
    }
}

// The rotation: the minimal one from +x to unit d, after a twist t about +x.
static sinew_quat swing_twist(d3 d, double t)
{
    const double w = 1.0 + d.x, l = sqrt(d.y * d.y + d.z * d.z + w * w);
    const sinew_quat swing = sinew_quat_make(0.0f, (float)(-d.z / l), (float)(d.y / l), (float)(w / l));
    const sinew_quat twist = sinew_quat_make((float)sin(0.5 * t), 0.0f, 0.0f, (float)cos(0.5 * t));
    return sinew_quat_normalize(sinew_quat_mul(swing, twist));
}

static sinew_quat random_rotation(uint64_t *s)
{
    // The last first (see uniform_vec2).
    const float q3 = (float)uniform(s, -1, 1), q2 = (float)uniform(s, -1, 1), q1 = (float)uniform(s, -1, 1),
                q0 = (float)uniform(s, -1, 1);
    return sinew_quat_normalize(sinew_quat_make(q0, q1, q2, q3));
}

// A random chain: n links, random lengths, random cones on every link and twist ranges on half.
typedef struct chain_fixture {
    int n;
    sinew_ik3_link links[SINEW_IK3_MAX_LINKS];
    sinew_ik3_limit limits[SINEW_IK3_MAX_LINKS];
    polygon polys[SINEW_IK3_MAX_LINKS];
    sinew_ik3_chain chain;
} chain_fixture;

static void random_chain(uint64_t *s, chain_fixture *f, int n, double rmin, double rmax)
{
    f->n = n;
    for (int k = 0; k < n; ++k) {
        const int m = 3 + (int)(next_random(s) % 14); // 3..16
        random_polygon(s, &f->polys[k], m, rmin, rmax, uniform(s, 0, 1) < 0.5 ? mk(1, 0, 0) : random_unit(s));
        sinew_ik3_limit_def d = sinew_default_ik3_limit_def();
        d.cone = f->polys[k].c;
        d.cone_count = m;
        if (uniform(s, 0, 1) < 0.5) {
            const double a = uniform(s, -PI, PI), b = uniform(s, -PI, PI);
            d.twist_limited = true;
            d.twist_min = (float)fmin(a, b);
            d.twist_max = (float)fmax(a, b);
            if (d.twist_max - d.twist_min < 0.01f) {
                d.twist_max = d.twist_min + 0.01f;
            }
        }
        assert_status(sinew_ik3_limit_init(&d, &f->limits[k]), SINEW_OK, "random polygon %d of %d corners", k, m);
        f->links[k] = sinew_default_ik3_link();
        f->links[k].length = (float)uniform(s, 0.3, 1.0);
        f->links[k].limit = &f->limits[k];
    }
    f->chain.count = n;
    f->chain.links = f->links;
    f->chain.base = sinew_vec3_make(0.0f, 0.0f, 0.0f);
    f->chain.base_rotation = sinew_quat_identity();
}

// A random pose inside the limits of f.
static void random_pose(uint64_t *s, chain_fixture *f)
{
    for (int k = 0; k < f->n; ++k) {
        const sinew_ik3_limit *l = f->links[k].limit;
        const double t = l->twist_limited ? uniform(s, l->twist_min, l->twist_max) : uniform(s, -PI, PI);
        f->links[k].rotation = swing_twist(direction_in(s, &f->polys[k]), t);
    }
}

static sinew_vec3 end_effector(const sinew_ik3_chain *c)
{
    sinew_vec3 pts[SINEW_IK3_MAX_LINKS + 1];
    assert_status(sinew_ik3_chain_points(c, pts), SINEW_OK, "forward kinematics");
    return pts[c->count];
}

// Fails unless every link of the chain is inside its limits, exactly (no tolerance).
static void assert_limits_hold(const sinew_ik3_chain *c, const char *what, int solve)
{
    for (int k = 0; k < c->count; ++k) {
        const sinew_ik3_limit *l = c->links[k].limit;
        if (l == NULL) {
            continue;
        }
        const sinew_quat q = c->links[k].rotation;
        if (!in_cone(l->corners, l->cone_count, direction_of(q))) {
            fail_msg("%s, solve %d: link %d's direction is outside its %d-corner cone", what, solve, k, l->cone_count);
        }
        const double t = twist_of(q);
        if (l->twist_limited && !(t >= l->twist_min && t <= l->twist_max)) {
            fail_msg("%s, solve %d: link %d's twist %.12g outside [%.9g, %.9g]", what, solve, k, t, (double)l->twist_min,
                     (double)l->twist_max);
        }
        const double len = sqrt((double)sinew_quat_dot(q, q));
        if (!(fabs(len - 1.0) < 1e-6)) {
            fail_msg("%s, solve %d: link %d's rotation has length %.9g", what, solve, k, len);
        }
    }
}

static const char *const method_name[3] = {"FABRIK", "CCD", "TWO_BONE"};

// ---- vec3.h ---------------------------------------------------------------------------------------

static void quaternion_helpers_rotate_and_compose(void **state)
{
    (void)state;
    uint64_t s = 3;
    for (int k = 0; k < 2000; ++k) {
        const d3 a = random_unit(&s), b = random_unit(&s);
        const sinew_vec3 fa = sinew_vec3_make((float)a.x, (float)a.y, (float)a.z);
        const sinew_vec3 fb = sinew_vec3_make((float)b.x, (float)b.y, (float)b.z);
        // from_to takes a to b, about an axis perpendicular to both (minimal).
        const sinew_quat r = sinew_quat_from_to(fa, fb);
        assert_near(sinew_quat_length(r), 1.0, 1e-5);
        const sinew_vec3 ra = sinew_quat_rotate(r, fa);
        assert_near(sinew_vec3_distance(ra, fb), 0.0, 1e-4);
        assert_near(r.x * fa.x + r.y * fa.y + r.z * fa.z, 0.0, 1e-5);
        // Rotation keeps lengths; the conjugate undoes it; products compose right to left.
        const sinew_quat p = random_rotation(&s), q = random_rotation(&s);
        const sinew_vec3 v = sinew_vec3_scale(fa, 2.5f);
        assert_near(sinew_vec3_length(sinew_quat_rotate(p, v)), 2.5, 1e-5);
        assert_near(sinew_vec3_distance(sinew_quat_rotate(sinew_quat_conjugate(p), sinew_quat_rotate(p, v)), v), 0.0, 1e-5);
        const sinew_vec3 pq = sinew_quat_rotate(sinew_quat_mul(p, q), v);
        assert_near(sinew_vec3_distance(pq, sinew_quat_rotate(p, sinew_quat_rotate(q, v))), 0.0, 1e-5);
        // Axis-angle: the axis stays, a perpendicular turns by the angle.
        const float angle = (float)uniform(&s, -PI, PI);
        const sinew_quat aa = sinew_quat_from_axis_angle(fa, angle);
        assert_near(sinew_vec3_distance(sinew_quat_rotate(aa, fa), fa), 0.0, 1e-5);
        const sinew_vec3 perp = sinew_vec3_normalize(sinew_vec3_cross(fa, fb));
        const sinew_vec3 turned = sinew_quat_rotate(aa, perp);
        assert_near(sinew_vec3_dot(turned, perp), cos(angle), 1e-5);
        assert_near(sinew_vec3_dot(sinew_vec3_cross(perp, turned), fa), sin(angle), 1e-5);
        // nlerp: the ends, unit in between, the shorter way round.
        assert_near(fabs(sinew_quat_dot(sinew_quat_nlerp(p, q, 0.0f), p)), 1.0, 1e-5);
        assert_near(fabs(sinew_quat_dot(sinew_quat_nlerp(p, q, 1.0f), q)), 1.0, 1e-5);
        assert_near(sinew_quat_length(sinew_quat_nlerp(p, q, 0.3f)), 1.0, 1e-5);
    }
    // Opposite vectors: a half turn that still takes a to b.
    const sinew_vec3 x = sinew_vec3_make(1, 0, 0), mx = sinew_vec3_make(-1, 0, 0);
    assert_near(sinew_vec3_distance(sinew_quat_rotate(sinew_quat_from_to(x, mx), x), mx), 0.0, 1e-6);
    assert_true(sinew_vec3_length(sinew_vec3_normalize(sinew_vec3_make(0, 0, 0))) == 0.0f);
    assert_true(sinew_quat_normalize(sinew_quat_make(0, 0, 0, 0)).w == 1.0f);
}

// ---- defaults, refusals ---------------------------------------------------------------------------

static void defaults_match_the_header(void **state)
{
    (void)state;
    const sinew_ik3_def d = sinew_default_ik3_def();
    assert_int_equal(d.method, SINEW_IK3_FABRIK);
    assert_int_equal(d.max_iterations, 100);
    assert_true(d.tolerance == 1e-3f);
    assert_false(d.use_pole);
    assert_null(d.on_iteration);
    const sinew_ik3_link l = sinew_default_ik3_link();
    assert_true(l.length == 1.0f && l.flexibility == 1.0f);
    assert_true(l.rotation.w == 1.0f && l.rotation.x == 0.0f && l.rotation.y == 0.0f && l.rotation.z == 0.0f);
    assert_null(l.limit);
    const sinew_ik3_limit_def ld = sinew_default_ik3_limit_def();
    assert_null(ld.cone);
    assert_int_equal(ld.cone_count, 0);
    assert_false(ld.twist_limited);
    // The twist of a rotation about +x is its angle; a swing adds none.
    assert_near(sinew_ik3_twist(sinew_quat_from_axis_angle(sinew_vec3_make(1, 0, 0), 0.7f)), 0.7, 1e-6);
    assert_near(sinew_ik3_twist(swing_twist(unit3(mk(0.3, 0.8, -0.2)), -1.1)), -1.1, 1e-5);
}

// A square cone of 30 degrees around +x, counter-clockwise (y then z).
static void square_cone(sinew_vec3 *c, double half)
{
    const double t = tan(half);
    c[0] = sinew_vec3_make(1.0f, (float)t, (float)t);
    c[1] = sinew_vec3_make(1.0f, (float)-t, (float)t);
    c[2] = sinew_vec3_make(1.0f, (float)-t, (float)-t);
    c[3] = sinew_vec3_make(1.0f, (float)t, (float)-t);
}

// A regular cone: every corner half_angle off +x, counter-clockwise about it, accepted by
// sinew_ik3_limit_init; bad arguments refused, nothing written.
static void a_regular_cone_has_its_corners_at_the_half_angle(void **state)
{
    (void)state;
    const float halves[] = {0.05f, 0.5f, 1.2f, 1.55f};
    for (int h = 0; h < 4; ++h) {
        for (int n = 3; n <= SINEW_IK3_MAX_CONE_VERTICES; ++n) {
            sinew_vec3 c[SINEW_IK3_MAX_CONE_VERTICES];
            assert_int_equal(sinew_ik3_regular_cone(halves[h], n, c), SINEW_OK);
            for (int i = 0; i < n; ++i) {
                const double len = sqrt((double)c[i].x * c[i].x + (double)c[i].y * c[i].y + (double)c[i].z * c[i].z);
                assert_true(fabs(acos(c[i].x / len) - halves[h]) < 1e-5);
                const sinew_vec3 d = c[(i + 1) % n];
                assert_true((double)c[i].y * d.z - (double)c[i].z * d.y > 0.0); // counter-clockwise about +x
            }
            sinew_ik3_limit_def ld = sinew_default_ik3_limit_def();
            ld.cone = c;
            ld.cone_count = n;
            sinew_ik3_limit l;
            assert_int_equal(sinew_ik3_limit_init(&ld, &l), SINEW_OK);
        }
    }
    sinew_vec3 c[3] = {{7.0f, 7.0f, 7.0f}, {7.0f, 7.0f, 7.0f}, {7.0f, 7.0f, 7.0f}};
    assert_int_equal(sinew_ik3_regular_cone(0.5f, 3, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_ik3_regular_cone(NAN, 3, c), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_ik3_regular_cone(0.5f, 2, c), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_ik3_regular_cone(0.5f, SINEW_IK3_MAX_CONE_VERTICES + 1, c), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_ik3_regular_cone(0.0f, 3, c), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_ik3_regular_cone(1.5708f, 3, c), SINEW_ERR_OUT_OF_RANGE);
    assert_true(c[0].x == 7.0f && c[1].y == 7.0f && c[2].z == 7.0f);
}

static void bad_polygons_and_twist_ranges_are_refused(void **state)
{
    (void)state;
    sinew_vec3 c[SINEW_IK3_MAX_CONE_VERTICES + 1];
    for (int i = 0; i <= SINEW_IK3_MAX_CONE_VERTICES; ++i) {
        c[i] = sinew_vec3_make(1.0f, 0.0f, 0.0f);
    }
    square_cone(c, 0.5);
    sinew_ik3_limit lim, before;
    memset(&lim, 0xab, sizeof lim);
    before = lim;
    sinew_ik3_limit_def d = sinew_default_ik3_limit_def();
    d.cone = c;
    d.cone_count = 4;
    struct {
        const char *what;
        sinew_status expected;
    } cases[] = {
        {"NULL def", SINEW_ERR_NULL_ARGUMENT},      {"NULL out", SINEW_ERR_NULL_ARGUMENT},
        {"NULL cone", SINEW_ERR_NULL_ARGUMENT},     {"NaN corner", SINEW_ERR_NOT_FINITE},
        {"inf twist", SINEW_ERR_NOT_FINITE},        {"2 corners", SINEW_ERR_OUT_OF_RANGE},
        {"17 corners", SINEW_ERR_OUT_OF_RANGE},     {"negative count", SINEW_ERR_OUT_OF_RANGE},
        {"zero corner", SINEW_ERR_OUT_OF_RANGE},    {"repeated corner", SINEW_ERR_OUT_OF_RANGE},
        {"opposite corners", SINEW_ERR_OUT_OF_RANGE}, {"not convex", SINEW_ERR_OUT_OF_RANGE},
        {"clockwise", SINEW_ERR_OUT_OF_RANGE},      {"a hemisphere", SINEW_ERR_OUT_OF_RANGE},
        {"more than a hemisphere", SINEW_ERR_OUT_OF_RANGE}, {"a star", SINEW_ERR_OUT_OF_RANGE},
        {"twist min > max", SINEW_ERR_OUT_OF_RANGE}, {"twist beyond pi", SINEW_ERR_OUT_OF_RANGE},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        sinew_ik3_limit_def b = d;
        sinew_vec3 cc[SINEW_IK3_MAX_CONE_VERTICES + 1];
        memcpy(cc, c, sizeof cc);
        b.cone = cc;
        const char *w = cases[k].what;
        sinew_status got;
        if (strcmp(w, "NULL def") == 0) {
            got = sinew_ik3_limit_init(NULL, &lim);
        } else if (strcmp(w, "NULL out") == 0) {
            got = sinew_ik3_limit_init(&b, NULL);
        } else {
            if (strcmp(w, "NULL cone") == 0) {
                b.cone = NULL;
            } else if (strcmp(w, "NaN corner") == 0) {
                cc[2].y = NAN;
            } else if (strcmp(w, "inf twist") == 0) {
                b.twist_limited = true;
                b.twist_max = INFINITY;
            } else if (strcmp(w, "2 corners") == 0) {
                b.cone_count = 2;
            } else if (strcmp(w, "17 corners") == 0) {
                b.cone_count = SINEW_IK3_MAX_CONE_VERTICES + 1;
            } else if (strcmp(w, "negative count") == 0) {
                b.cone_count = -1;
            } else if (strcmp(w, "zero corner") == 0) {
                cc[1] = sinew_vec3_make(0, 0, 0);
            } else if (strcmp(w, "repeated corner") == 0) {
                cc[1] = cc[0];
            } else if (strcmp(w, "opposite corners") == 0) { // a triangle with one edge through the origin
                cc[0] = sinew_vec3_make(0, 1, 0);
                cc[1] = sinew_vec3_make(0, -1, 0);
                cc[2] = sinew_vec3_make(1, 0, 0.2f);
                b.cone_count = 3;
            } else if (strcmp(w, "not convex") == 0) { // a dart: corner 1 pulled in past the axis
                cc[1] = sinew_vec3_make(1.0f, 0.05f, 0.05f);
            } else if (strcmp(w, "clockwise") == 0) {
                const sinew_vec3 t = cc[1];
                cc[1] = cc[3];
                cc[3] = t;
            } else if (strcmp(w, "a hemisphere") == 0) { // corners on the great circle x = 0
                cc[0] = sinew_vec3_make(0, 1, 0);
                cc[1] = sinew_vec3_make(0, 0, 1);
                cc[2] = sinew_vec3_make(0, -1, 0);
                cc[3] = sinew_vec3_make(0, 0, -1);
            } else if (strcmp(w, "more than a hemisphere") == 0) { // around +x, below its equator
                cc[0] = sinew_vec3_make(-0.2f, 1, 0);
                cc[1] = sinew_vec3_make(-0.2f, 0, 1);
                cc[2] = sinew_vec3_make(-0.2f, -1, 0);
                cc[3] = sinew_vec3_make(-0.2f, 0, -1);
            } else if (strcmp(w, "a star") == 0) { // a pentagram: every second corner of a pentagon
                for (int i = 0; i < 5; ++i) {
                    const double a = 2.0 * PI * (2 * i % 5) / 5.0;
                    cc[i] = sinew_vec3_make(1.0f, (float)(0.5 * cos(a)), (float)(0.5 * sin(a)));
                }
                b.cone_count = 5;
            } else if (strcmp(w, "twist min > max") == 0) {
                b.twist_limited = true;
                b.twist_min = 0.5f;
                b.twist_max = 0.4f;
            } else if (strcmp(w, "twist beyond pi") == 0) {
                b.twist_limited = true;
                b.twist_min = -4.0f;
                b.twist_max = 0.0f;
            }
            got = sinew_ik3_limit_init(&b, &lim);
        }
        assert_status(got, cases[k].expected, "%s", w);
        assert_memory_equal(&lim, &before, sizeof lim);
    }
    // The good ones: the square, either twist, near a hemisphere, and no cone at all.
    assert_status(sinew_ik3_limit_init(&d, &lim), SINEW_OK, "the square");
    square_cone(c, 1.5);
    assert_status(sinew_ik3_limit_init(&d, &lim), SINEW_OK, "a square of 86 degrees");
    d.cone_count = 0;
    d.cone = NULL;
    d.twist_limited = true;
    d.twist_min = -0.2f;
    d.twist_max = 0.2f;
    assert_status(sinew_ik3_limit_init(&d, &lim), SINEW_OK, "twist only");
}

static void bad_input_is_refused_and_the_chain_is_unchanged(void **state)
{
    (void)state;
    sinew_vec3 c[4];
    square_cone(c, 0.5);
    sinew_ik3_limit_def ld = sinew_default_ik3_limit_def();
    ld.cone = c;
    ld.cone_count = 4;
    sinew_ik3_limit lim, zeroed;
    assert_int_equal(sinew_ik3_limit_init(&ld, &lim), SINEW_OK);
    memset(&zeroed, 0, sizeof zeroed);
    sinew_ik3_link links[3], saved[3];
    for (int k = 0; k < 3; ++k) {
        links[k] = sinew_default_ik3_link();
        links[k].limit = &lim;
        links[k].rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), 0.2f);
    }
    memcpy(saved, links, sizeof links);
    const sinew_vec3 target = sinew_vec3_make(1.5f, 1.0f, 0.5f);
    const sinew_ik3_def good = sinew_default_ik3_def();
    const sinew_ik3_chain chain0 = {3, links, sinew_vec3_make(0, 0, 0), sinew_quat_identity()};
    for (int k = 0; k < 28; ++k) {
        sinew_ik3_def def = good;
        sinew_ik3_chain chain = chain0;
        sinew_vec3 t = target;
        sinew_status expected = SINEW_ERR_OUT_OF_RANGE;
        const sinew_ik3_def *pd = &def;
        sinew_ik3_chain *pc = &chain;
        switch (k) {
        case 0: pd = NULL; expected = SINEW_ERR_NULL_ARGUMENT; break;
        case 1: pc = NULL; expected = SINEW_ERR_NULL_ARGUMENT; break;
        case 2: chain.links = NULL; expected = SINEW_ERR_NULL_ARGUMENT; break;
        case 3: t.x = NAN; expected = SINEW_ERR_NOT_FINITE; break;
        case 4: t.z = INFINITY; expected = SINEW_ERR_NOT_FINITE; break;
        case 5: chain.base.y = NAN; expected = SINEW_ERR_NOT_FINITE; break;
        case 6: chain.base_rotation.w = NAN; expected = SINEW_ERR_NOT_FINITE; break;
        case 7: links[1].length = NAN; expected = SINEW_ERR_NOT_FINITE; break;
        case 8: links[2].rotation.x = INFINITY; expected = SINEW_ERR_NOT_FINITE; break;
        case 9: def.tolerance = NAN; expected = SINEW_ERR_NOT_FINITE; break;
        case 10: def.use_pole = true; def.pole.x = NAN; expected = SINEW_ERR_NOT_FINITE; break;
        case 11: links[0].length = 0.0f; break;
        case 12: links[1].length = -1.0f; break;
        case 13: links[1].flexibility = 1.5f; break;
        case 14: links[2].rotation = sinew_quat_make(0, 0, 0, 1.1f); break;          // not unit
        case 15: chain.base_rotation = sinew_quat_make(0, 0, 0.5f, 0.5f); break;     // not unit
        case 16: links[1].limit = &zeroed; break;                                   // not made by init
        case 17: chain.count = 0; break;
        case 18: chain.count = SINEW_IK3_MAX_LINKS + 1; break;
        case 19: def.method = SINEW_IK3_TWO_BONE; break;                            // 3 links
        case 20: def.max_iterations = 0; break;
        case 21: def.tolerance = -1.0f; break;
        case 22: def.method = (sinew_ik3_method)7; break;
        case 23: def.max_iterations = SINEW_IK3_MAX_ITERATIONS + 1; break;
        case 24: links[2].length = 3e38f; break;                                     // a 3-link reach overflows float
        case 25: t.y = -2.0f * SINEW_MAX_COORDINATE; break;
        case 26: chain.base.z = 2.0f * SINEW_MAX_COORDINATE; break;
        case 27: def.use_pole = true; def.pole.x = 2.0f * SINEW_MAX_COORDINATE; break;
        default: break;
        }
        sinew_ik3_result r = {-7, -7.0f, true};
        assert_status(sinew_ik3_solve(pd, pc, t, &r), expected, "refusal case %d", k);
        assert_int_equal(r.iterations, -7);
        // Nothing written: the rotations are those the case started from.
        for (int m = 0; m < 3; ++m) {
            const sinew_quat q = links[m].rotation;
            sinew_ik3_link want = saved[m];
            if ((k == 8 && m == 2) || (k == 14 && m == 2)) {
                continue; // the case's own bad value
            }
            assert_memory_equal(&q, &want.rotation, sizeof q);
        }
        memcpy(links, saved, sizeof links);
    }
    // Slightly non-unit rotations (within 1e-3) are normalised, and the answer is unit.
    links[0].rotation = sinew_quat_make(0.0f, 0.0f, 0.0f, 1.0008f);
    sinew_ik3_chain chain = chain0;
    sinew_ik3_def def = good;
    assert_int_equal(sinew_ik3_solve(&def, &chain, target, NULL), SINEW_OK);
    assert_limits_hold(&chain, "normalised", 0);
    sinew_vec3 pts[4];
    assert_int_equal(sinew_ik3_chain_points(NULL, pts), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_ik3_chain_points(&chain, NULL), SINEW_ERR_NULL_ARGUMENT);
    chain.base.x = 2.0f * SINEW_MAX_COORDINATE;
    assert_int_equal(sinew_ik3_chain_points(&chain, pts), SINEW_ERR_OUT_OF_RANGE);
}

// ---- limits and projection ------------------------------------------------------------------------

// Thousands of solves, random chains with random polygons (3..16 corners, 0.05 rad to 1.5 rad: narrow
// to near a hemisphere), random start poses (in or out of the limits), random targets (reachable or
// not): every method leaves every link inside its limits with no tolerance.
static void limits_hold_exactly_after_every_method(void **state)
{
    (void)state;
    uint64_t s = 2026;
    chain_fixture *f = malloc(sizeof *f);
    assert_non_null(f);
    int solves = 0;
    for (int round = 0; round < 1500; ++round) {
        for (int method = 0; method < 3; ++method) {
            const int n = method == SINEW_IK3_TWO_BONE ? 2 : 1 + (int)(next_random(&s) % 6);
            random_chain(&s, f, n, 0.05, 1.5);
            for (int k = 0; k < n; ++k) {
                f->links[k].rotation = random_rotation(&s);
                f->links[k].flexibility = (float)uniform(&s, 0.2, 1.0);
            }
            const double reach = uniform(&s, 0.0, 1.3 * n); // (before the direction: see uniform_vec2)
            const d3 t = scale3(random_unit(&s), reach);
            sinew_ik3_def def = sinew_default_ik3_def();
            def.method = (sinew_ik3_method)method;
            def.max_iterations = 30;
            def.use_pole = uniform(&s, 0, 1) < 0.5;
            // z, y, then x (see uniform_vec2)
            const float pz = (float)uniform(&s, -2, 2), py = (float)uniform(&s, -2, 2), px = (float)uniform(&s, -2, 2);
            def.pole = sinew_vec3_make(px, py, pz);
            sinew_ik3_result r;
            assert_status(sinew_ik3_solve(&def, &f->chain, sinew_vec3_make((float)t.x, (float)t.y, (float)t.z), &r),
                          SINEW_OK, "%s round %d", method_name[method], round);
            assert_limits_hold(&f->chain, method_name[method], round);
            // The reported distance is the answer's.
            const sinew_vec3 e = end_effector(&f->chain);
            assert_near(sqrt((e.x - t.x) * (e.x - t.x) + (e.y - t.y) * (e.y - t.y) + (e.z - t.z) * (e.z - t.z)),
                        r.distance, 1e-4);
            ++solves;
        }
    }
    print_message("    %d solves, every link inside its limits\n", solves);
    free(f);
}

// One link aimed at a direction outside its cone ends on the closest direction of the polygon:
// no direction of a dense sampling of the boundary is closer (the corners included).
static void the_projection_is_the_closest_direction_of_the_boundary(void **state)
{
    (void)state;
    uint64_t s = 77;
    chain_fixture *f = malloc(sizeof *f);
    assert_non_null(f);
    int outside = 0, at_corner = 0;
    for (int round = 0; round < 600; ++round) {
        random_chain(&s, f, 1, 0.05, 1.5);
        const polygon *p = &f->polys[0];
        const d3 want = random_unit(&s);
        if (in_cone(p->c, p->m, want)) {
            continue;
        }
        ++outside;
        const double nearest_corner = acos(fmin(1.0, dot3(want, unit3(of(p->c[0])))));
        // The brute-force closest boundary direction: 400 samples along each edge's arc.
        double best = 10.0;
        for (int i = 0; i < p->m; ++i) {
            const d3 a = unit3(of(p->c[i])), b = unit3(of(p->c[(i + 1) % p->m]));
            for (int j = 0; j <= 400; ++j) {
                const d3 x = unit3(add3(scale3(a, 1.0 - j / 400.0), scale3(b, j / 400.0)));
                best = fmin(best, acos(fmin(1.0, dot3(x, want))));
            }
        }
        (void)nearest_corner;
        for (int method = 0; method < 2; ++method) {
            f->links[0].rotation = sinew_quat_identity();
            sinew_ik3_def def = sinew_default_ik3_def();
            def.method = (sinew_ik3_method)method;
            const double len = f->links[0].length;
            assert_int_equal(sinew_ik3_solve(&def, &f->chain,
                                             sinew_vec3_make((float)(len * want.x), (float)(len * want.y), (float)(len * want.z)),
                                             NULL),
                             SINEW_OK);
            const d3 got = direction_of(f->links[0].rotation);
            assert_true(in_cone(p->c, p->m, got));
            const double angle = acos(fmin(1.0, dot3(got, want)));
            // Never farther than the sampled boundary (sampling error is below 1e-4 rad), and on it.
            if (angle > best + 1e-5) {
                fail_msg("%s, round %d: %.9g rad from the aim, the boundary comes within %.9g", method_name[method], round,
                         angle, best);
            }
            double edge = 1.0;
            for (int i = 0; i < p->m; ++i) {
                edge = fmin(edge, dot3(unit3(cross3(of(p->c[i]), of(p->c[(i + 1) % p->m]))), got));
            }
            assert_true(edge < 1e-5);
            for (int i = 0; i < p->m && method == 0; ++i) {
                at_corner += dot3(got, unit3(of(p->c[i]))) > 1.0 - 1e-9;
            }
        }
    }
    print_message("    %d aims outside their cone projected exactly, %d onto a corner\n", outside, at_corner);
    assert_true(outside > 100 && at_corner > 10);
    free(f);
}

// A start twist outside its range is clamped onto the bound nearest on the circle (across +-pi
// too), keeping the direction: a one-link chain whose target is its own end effector, so only the
// start pose's projection moves it (the solver clamps without angles; this checks it against them).
static void a_twist_outside_its_range_goes_to_the_nearest_bound(void **state)
{
    (void)state;
    uint64_t s = 4242;
    int wrapped = 0;
    for (int round = 0; round < 2000; ++round) {
        const double a = uniform(&s, -PI, PI), b = uniform(&s, -PI, PI);
        sinew_ik3_limit_def ld = sinew_default_ik3_limit_def();
        ld.twist_limited = true;
        ld.twist_min = (float)fmin(a, b);
        ld.twist_max = (float)fmax(a, b);
        if (ld.twist_max - ld.twist_min < 0.01f) {
            continue;
        }
        sinew_ik3_limit lim;
        assert_int_equal(sinew_ik3_limit_init(&ld, &lim), SINEW_OK);
        double t;
        do {
            t = uniform(&s, -PI + 1e-3, PI - 1e-3);
        } while (t >= ld.twist_min - 1e-3 && t <= ld.twist_max + 1e-3);
        const double dlo = fabs(remainder(t - ld.twist_min, 2.0 * PI)), dhi = fabs(remainder(t - ld.twist_max, 2.0 * PI));
        if (fabs(dlo - dhi) < 1e-4) {
            continue; // too close to call in float
        }
        const double want = dlo < dhi ? ld.twist_min : ld.twist_max;
        wrapped += fabs(t - want) > PI;
        const d3 d = unit3(add3(mk(1.0, 0.0, 0.0), scale3(random_unit(&s), 0.9)));
        sinew_ik3_link link = sinew_default_ik3_link();
        link.limit = &lim;
        link.rotation = swing_twist(d, t);
        sinew_ik3_chain chain = {1, &link, sinew_vec3_make(0, 0, 0), sinew_quat_identity()};
        const sinew_vec3 target = end_effector(&chain);
        for (int method = 0; method < 2; ++method) {
            sinew_ik3_link start = link;
            sinew_ik3_def def = sinew_default_ik3_def();
            def.method = (sinew_ik3_method)method;
            sinew_ik3_result r;
            assert_int_equal(sinew_ik3_solve(&def, &chain, target, &r), SINEW_OK);
            const double got = twist_of(link.rotation);
            if (!(fabs(got - want) < 1e-5)) {
                fail_msg("%s, round %d: twist %.6f in [%.6f, %.6f] went to %.6f, not %.6f", method_name[method], round, t,
                         (double)ld.twist_min, (double)ld.twist_max, got, want);
            }
            assert_true(dot3(direction_of(link.rotation), d) > 1.0 - 1e-9);
            assert_limits_hold(&chain, method_name[method], round);
            link = start;
        }
    }
    print_message("    twists clamped to the nearest bound, %d of them across +-pi\n", wrapped);
    assert_true(wrapped > 50);
}

// ---- reach ----------------------------------------------------------------------------------------

// Targets made from random poses inside the limits, cold start (identity rotations), 1000
// iterations at most, 1 mm: CCD and FABRIK each reach at least 99.9%.
static double reach_rate(sinew_ik3_method method, int links, int solves, bool eight_gons, uint64_t seed, double *mean_it)
{
    uint64_t s = seed;
    chain_fixture *f = malloc(sizeof *f);
    assert_non_null(f);
    int reached = 0;
    long iterations = 0;
    for (int k = 0; k < solves; ++k) {
        if (eight_gons) { // 8-gons of 30 degrees around +x, 1 m links, twist +-0.5
            random_chain(&s, f, links, 0.5, 0.5);
            for (int m = 0; m < links; ++m) {
                polygon *p = &f->polys[m];
                p->m = 8;
                p->axis = mk(1, 0, 0);
                p->e1 = mk(0, 1, 0);
                p->e2 = mk(0, 0, 1);
                p->ta = p->tb = tan(PI / 6.0);
                for (int i = 0; i < 8; ++i) {
                    const d3 d = plane_point(p, p->ta * cos(2 * PI * i / 8), p->ta * sin(2 * PI * i / 8));
                    p->c[i] = sinew_vec3_make((float)d.x, (float)d.y, (float)d.z);
                }
                sinew_ik3_limit_def d = sinew_default_ik3_limit_def();
                d.cone = p->c;
                d.cone_count = 8;
                d.twist_limited = true;
                d.twist_min = -0.5f;
                d.twist_max = 0.5f;
                assert_int_equal(sinew_ik3_limit_init(&d, &f->limits[m]), SINEW_OK);
                f->links[m].length = 1.0f;
            }
        } else {
            random_chain(&s, f, links, 0.05, 1.5);
        }
        random_pose(&s, f);
        const sinew_vec3 target = end_effector(&f->chain);
        for (int m = 0; m < links; ++m) {
            f->links[m].rotation = sinew_quat_identity();
        }
        sinew_ik3_def def = sinew_default_ik3_def();
        def.method = method;
        def.max_iterations = 1000;
        sinew_ik3_result r;
        assert_int_equal(sinew_ik3_solve(&def, &f->chain, target, &r), SINEW_OK);
        assert_limits_hold(&f->chain, method_name[method], k);
        reached += r.reached;
        iterations += r.iterations;
    }
    free(f);
    *mean_it = (double)iterations / solves;
    return (double)reached / solves;
}

static void ccd_and_fabrik_reach_targets_from_poses_inside_the_limits(void **state)
{
    (void)state;
    const struct {
        int links, solves;
        bool eight_gons;
    } setups[] = {{2, 2000, false}, {3, 2000, false}, {5, 2000, false}, {8, 1000, false}, {15, 1000, true}};
    for (size_t k = 0; k < sizeof setups / sizeof setups[0]; ++k) {
        for (int method = 0; method < 2; ++method) {
            double mean_it;
            const double rate = reach_rate((sinew_ik3_method)method, setups[k].links, setups[k].solves, setups[k].eight_gons,
                                           1000 + k, &mean_it);
            print_message("    %-6s %2d links, %s: %.2f%% of %d reached, %.1f iterations on average\n", method_name[method],
                          setups[k].links, setups[k].eight_gons ? "8-gons of 30 deg" : "random polygons", 100.0 * rate,
                          setups[k].solves, mean_it);
            assert_true(rate >= 0.999);
        }
    }
}

// ---- smoothness -----------------------------------------------------------------------------------

// A 15-link arm (1 m links, 8-gon cones of 30 degrees, twist +-0.5 rad) follows a target that moves
// smoothly (the end effector of a pose moving inside the limits: each link's direction circling
// its cone at 0.35 rad, a period of 600 frames; the target moves up to 9 cm a frame), warm start
// frame after frame from the pose of the first target: every frame reaches, and no link's rotation
// turns by more than 0.1 rad from one frame to the next (no flips, no jitter).
static void a_fifteen_link_arm_follows_a_moving_target_smoothly(void **state)
{
    (void)state;
    const int n = 15, frames = 1200;
    sinew_vec3 cone[8];
    for (int i = 0; i < 8; ++i) {
        const double a = 2.0 * PI * i / 8, t = tan(PI / 6.0);
        const d3 d = unit3(mk(1.0, t * cos(a), t * sin(a)));
        cone[i] = sinew_vec3_make((float)d.x, (float)d.y, (float)d.z);
    }
    sinew_ik3_limit_def ld = sinew_default_ik3_limit_def();
    ld.cone = cone;
    ld.cone_count = 8;
    ld.twist_limited = true;
    ld.twist_min = -0.5f;
    ld.twist_max = 0.5f;
    sinew_ik3_limit lim;
    assert_int_equal(sinew_ik3_limit_init(&ld, &lim), SINEW_OK);
    for (int method = 0; method < 2; ++method) {
        sinew_ik3_link links[15];
        for (int k = 0; k < n; ++k) {
            links[k] = sinew_default_ik3_link();
            links[k].limit = &lim;
        }
        sinew_ik3_chain chain = {n, links, sinew_vec3_make(0, 0, 0), sinew_quat_identity()};
        sinew_ik3_link start[15];
        sinew_ik3_def def = sinew_default_ik3_def();
        def.method = (sinew_ik3_method)method;
        def.max_iterations = 1000;
        double worst = 0.0, moved = 0.0;
        sinew_vec3 last_target = sinew_vec3_make(0, 0, 0);
        for (int frame = 0; frame < frames; ++frame) {
            sinew_ik3_link pose[15];
            memcpy(pose, links, sizeof pose);
            for (int k = 0; k < n; ++k) {
                const double ph = 2.0 * PI * frame / 600.0 + 0.7 * k;
                pose[k].rotation = swing_twist(unit3(mk(1.0, 0.35 * cos(ph), 0.35 * sin(ph))), 0.3 * sin(ph));
            }
            sinew_ik3_chain pc = chain;
            pc.links = pose;
            const sinew_vec3 target = end_effector(&pc);
            if (frame == 0) {
                memcpy(links, pose, sizeof pose);
                memcpy(start, pose, sizeof pose);
            } else {
                moved = fmax(moved, sinew_vec3_distance(target, last_target));
            }
            last_target = target;
            sinew_ik3_link before[15];
            memcpy(before, links, sizeof before);
            sinew_ik3_result r;
            assert_int_equal(sinew_ik3_solve(&def, &chain, target, &r), SINEW_OK);
            assert_true(r.reached);
            assert_limits_hold(&chain, method_name[method], frame);
            for (int k = 0; k < n; ++k) {
                const double d = fmin(1.0, fabs((double)sinew_quat_dot(before[k].rotation, links[k].rotation)));
                const double step = 2.0 * acos(d);
                worst = fmax(worst, step);
                if (step > 0.1) {
                    fail_msg("%s, frame %d: link %d turned by %.4f rad", method_name[method], frame, k, step);
                }
            }
        }
        (void)start;
        print_message("    %s: the largest turn of a link in a frame %.4f rad (the target moves up to %.3f m a frame)\n",
                      method_name[method], worst, moved);
    }
}

// ---- two-bone -------------------------------------------------------------------------------------

static d3 elbow_of(const sinew_ik3_chain *c)
{
    sinew_vec3 pts[3];
    assert_int_equal(sinew_ik3_chain_points(c, pts), SINEW_OK);
    return of(pts[1]);
}

static void two_bone_reaches_and_bends_toward_the_pole(void **state)
{
    (void)state;
    uint64_t s = 11;
    sinew_ik3_link links[2];
    for (int round = 0; round < 2000; ++round) {
        links[0] = sinew_default_ik3_link();
        links[1] = sinew_default_ik3_link();
        links[0].length = (float)uniform(&s, 0.3, 1.5);
        links[1].length = (float)uniform(&s, 0.3, 1.5);
        links[0].rotation = random_rotation(&s);
        links[1].rotation = random_rotation(&s);
        sinew_ik3_chain c = {2, links, sinew_vec3_make(0.5f, -0.2f, 0.1f), random_rotation(&s)};
        const double l1 = links[0].length, l2 = links[1].length;
        const double dist = uniform(&s, fabs(l1 - l2) + 0.01, l1 + l2 - 0.01);
        const d3 dir = random_unit(&s);
        const d3 t = add3(of(c.base), scale3(dir, dist));
        const sinew_vec3 target = sinew_vec3_make((float)t.x, (float)t.y, (float)t.z);
        const d3 pole = add3(of(c.base), scale3(random_unit(&s), 2.0));
        sinew_ik3_def def = sinew_default_ik3_def();
        def.method = SINEW_IK3_TWO_BONE;
        def.use_pole = true;
        def.pole = sinew_vec3_make((float)pole.x, (float)pole.y, (float)pole.z);
        // The pole's side of the base-target line, the elbow's side.
        const d3 pb = add3(pole, scale3(of(c.base), -1.0));
        const d3 side = add3(pb, scale3(dir, -dot3(pb, dir)));
        if (sqrt(dot3(side, side)) < 0.05) {
            continue;
        }
        sinew_ik3_result r;
        assert_int_equal(sinew_ik3_solve(&def, &c, target, &r), SINEW_OK);
        assert_true(r.reached);
        assert_int_equal(r.iterations, 0);
        const d3 e = add3(elbow_of(&c), scale3(of(c.base), -1.0));
        assert_true(dot3(e, side) > 0.0);
        // The elbow is in the plane of base, target and pole.
        assert_near(dot3(unit3(cross3(dir, side)), e), 0.0, 1e-4);
        // Without a pole the elbow keeps its side: solving again toward a nearby target moves it little.
        def.use_pole = false;
        const d3 t2 = add3(t, scale3(random_unit(&s), 0.01));
        assert_int_equal(sinew_ik3_solve(&def, &c, sinew_vec3_make((float)t2.x, (float)t2.y, (float)t2.z), &r), SINEW_OK);
        const d3 e2 = add3(elbow_of(&c), scale3(of(c.base), -1.0));
        assert_true(dot3(e2, side) > 0.0);
    }
    // Out of reach: straight toward the target.
    links[0] = sinew_default_ik3_link();
    links[1] = sinew_default_ik3_link();
    sinew_ik3_chain c = {2, links, sinew_vec3_make(0, 0, 0), sinew_quat_identity()};
    sinew_ik3_def def = sinew_default_ik3_def();
    def.method = SINEW_IK3_TWO_BONE;
    sinew_ik3_result r;
    assert_int_equal(sinew_ik3_solve(&def, &c, sinew_vec3_make(0, 3, 4), &r), SINEW_OK);
    assert_false(r.reached);
    assert_near(r.distance, 3.0, 1e-5);
}

// ---- the rest -------------------------------------------------------------------------------------

typedef struct calls {
    int count, last, points;
} calls;

static void count_calls(void *user, int iteration, const sinew_vec3 *points, int point_count)
{
    calls *c = user;
    assert_int_equal(iteration, c->count);
    assert_non_null(points);
    c->last = iteration;
    c->points = point_count;
    ++c->count;
}

static void the_callback_sees_every_iteration_and_solves_are_deterministic(void **state)
{
    (void)state;
    uint64_t s = 5;
    chain_fixture *f = malloc(sizeof *f), *g = malloc(sizeof *g);
    assert_non_null(f);
    assert_non_null(g);
    for (int method = 0; method < 2; ++method) {
        random_chain(&s, f, 6, 0.2, 1.2);
        random_pose(&s, f);
        const sinew_vec3 target = end_effector(&f->chain);
        for (int m = 0; m < 6; ++m) {
            f->links[m].rotation = sinew_quat_identity();
        }
        memcpy(g, f, sizeof *g);
        for (int m = 0; m < 6; ++m) { // g's links point to g's limits
            g->links[m].limit = &g->limits[m];
        }
        g->chain.links = g->links;
        calls c = {0, -1, 0};
        sinew_ik3_def def = sinew_default_ik3_def();
        def.method = (sinew_ik3_method)method;
        def.max_iterations = 1000;
        def.on_iteration = count_calls;
        def.user_data = &c;
        sinew_ik3_result r1, r2;
        assert_int_equal(sinew_ik3_solve(&def, &f->chain, target, &r1), SINEW_OK);
        assert_int_equal(c.count, r1.iterations + 1);
        assert_int_equal(c.last, r1.iterations);
        assert_int_equal(c.points, 7);
        def.on_iteration = NULL;
        assert_int_equal(sinew_ik3_solve(&def, &g->chain, target, &r2), SINEW_OK);
        assert_int_equal(r1.iterations, r2.iterations);
        for (int m = 0; m < 6; ++m) {
            assert_memory_equal(&f->links[m].rotation, &g->links[m].rotation, sizeof(sinew_quat));
        }
        // A warm start on its own answer takes no iteration.
        assert_int_equal(sinew_ik3_solve(&def, &f->chain, target, &r1), SINEW_OK);
        assert_int_equal(r1.iterations, 0);
        assert_true(r1.reached);
    }
    free(f);
    free(g);
}

static void unlimited_chains_reach_and_point_at_far_targets(void **state)
{
    (void)state;
    uint64_t s = 9;
    sinew_ik3_link links[10];
    for (int method = 0; method < 2; ++method) {
        int reached = 0;
        for (int k = 0; k < 500; ++k) {
            for (int m = 0; m < 10; ++m) {
                links[m] = sinew_default_ik3_link();
                links[m].length = 0.5f;
            }
            sinew_ik3_chain c = {10, links, sinew_vec3_make(1, 2, 3), random_rotation(&s)};
            const d3 t = add3(of(c.base), scale3(random_unit(&s), 5.0 * cbrt(uniform(&s, 0.0, 0.95))));
            sinew_ik3_def def = sinew_default_ik3_def();
            def.method = (sinew_ik3_method)method;
            def.max_iterations = 1000;
            sinew_ik3_result r;
            assert_int_equal(sinew_ik3_solve(&def, &c, sinew_vec3_make((float)t.x, (float)t.y, (float)t.z), &r), SINEW_OK);
            reached += r.reached;
        }
        assert_int_equal(reached, 500);
        // Out of reach: the chain ends on the line to the target, as close as its length allows.
        sinew_ik3_chain c = {10, links, sinew_vec3_make(0, 0, 0), sinew_quat_identity()};
        sinew_ik3_def def = sinew_default_ik3_def();
        def.method = (sinew_ik3_method)method;
        sinew_ik3_result r;
        assert_int_equal(sinew_ik3_solve(&def, &c, sinew_vec3_make(0, 6, 8), &r), SINEW_OK);
        assert_false(r.reached);
        assert_near(r.distance, 5.0, 2e-3);
    }
}

// Degenerate start poses: a link turned half round about an axis across its own (its twist, x = w
// = 0, counts as 0), with and without a twist range that excludes 0; and rotations off unit by
// 5e-4 (accepted, normalised): every method answers unit rotations, within the limits, and the
// near-unit chain ends where the unit one does.
static void half_turns_and_near_unit_rotations_are_solved(void **state)
{
    (void)state;
    assert_true(sinew_ik3_twist((sinew_quat){0.0f, 1.0f, 0.0f, 0.0f}) == 0.0f);
    sinew_ik3_limit_def ld = sinew_default_ik3_limit_def();
    ld.twist_limited = true;
    ld.twist_min = 0.2f;
    ld.twist_max = 0.5f;
    sinew_ik3_limit lim;
    assert_int_equal(sinew_ik3_limit_init(&ld, &lim), SINEW_OK);
    const sinew_quat half_turns[2] = {{0.0f, 1.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 1.0f, 0.0f}};
    for (int method = 0; method < 2; ++method) {
        for (int h = 0; h < 2; ++h) {
            for (int limited = 0; limited < 2; ++limited) {
                sinew_ik3_link links[3];
                for (int k = 0; k < 3; ++k) {
                    links[k] = sinew_default_ik3_link();
                    links[k].rotation = k == 1 ? half_turns[h] : sinew_quat_identity();
                    links[k].limit = limited && k == 1 ? &lim : NULL;
                }
                sinew_ik3_chain c = {3, links, sinew_vec3_make(0, 0, 0), sinew_quat_identity()};
                sinew_ik3_def def = sinew_default_ik3_def();
                def.method = (sinew_ik3_method)method;
                sinew_ik3_result r;
                assert_int_equal(sinew_ik3_solve(&def, &c, sinew_vec3_make(1.0f, 1.5f, 0.5f), &r), SINEW_OK);
                assert_true(isfinite(r.distance));
                for (int k = 0; k < 3; ++k) {
                    const sinew_quat q = links[k].rotation;
                    assert_true(fabs(sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w) -
                                     1.0) < 1e-6);
                }
                assert_limits_hold(&c, method_name[method], h);
            }
        }
        // Near unit: the same answer as unit, to float rounding.
        uint64_t s = 77u;
        sinew_ik3_link unit[4], near[4];
        for (int k = 0; k < 4; ++k) {
            unit[k] = sinew_default_ik3_link();
            unit[k].rotation = random_rotation(&s);
            near[k] = unit[k];
            const float g = 1.0005f;
            near[k].rotation = (sinew_quat){g * unit[k].rotation.x, g * unit[k].rotation.y, g * unit[k].rotation.z,
                                            g * unit[k].rotation.w};
        }
        sinew_ik3_chain cu = {4, unit, sinew_vec3_make(0, 0, 0), sinew_quat_identity()};
        sinew_ik3_chain cn = {4, near, sinew_vec3_make(0, 0, 0), sinew_quat_identity()};
        sinew_ik3_def def = sinew_default_ik3_def();
        def.method = (sinew_ik3_method)method;
        sinew_ik3_result ru, rn;
        const sinew_vec3 target = sinew_vec3_make(1.5f, -1.0f, 2.0f);
        assert_int_equal(sinew_ik3_solve(&def, &cu, target, &ru), SINEW_OK);
        assert_int_equal(sinew_ik3_solve(&def, &cn, target, &rn), SINEW_OK);
        const d3 eu = of(end_effector(&cu)), en = of(end_effector(&cn));
        assert_true(ru.reached && rn.reached);
        assert_true(sqrt(dot3(add3(eu, scale3(en, -1.0)), add3(eu, scale3(en, -1.0)))) < 1e-5);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quaternion_helpers_rotate_and_compose),
        cmocka_unit_test(defaults_match_the_header),
        cmocka_unit_test(a_regular_cone_has_its_corners_at_the_half_angle),
        cmocka_unit_test(bad_polygons_and_twist_ranges_are_refused),
        cmocka_unit_test(bad_input_is_refused_and_the_chain_is_unchanged),
        cmocka_unit_test(limits_hold_exactly_after_every_method),
        cmocka_unit_test(the_projection_is_the_closest_direction_of_the_boundary),
        cmocka_unit_test(a_twist_outside_its_range_goes_to_the_nearest_bound),
        cmocka_unit_test(ccd_and_fabrik_reach_targets_from_poses_inside_the_limits),
        cmocka_unit_test(a_fifteen_link_arm_follows_a_moving_target_smoothly),
        cmocka_unit_test(two_bone_reaches_and_bends_toward_the_pole),
        cmocka_unit_test(the_callback_sees_every_iteration_and_solves_are_deterministic),
        cmocka_unit_test(half_turns_and_near_unit_rotations_are_solved),
        cmocka_unit_test(unlimited_chains_reach_and_point_at_far_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
