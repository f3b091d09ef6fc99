// The soft body builder: a ring of particles with edge links and an area constraint, empty (a
// pressure blob), filled with springs, or held by spokes from a centre particle.
#include "scene_internal.h"


sinew_softbody_def sinew_default_softbody_def(void)
{
    sinew_softbody_def def = {0};
    def.radius = 1.0f;
    def.points = 24;
    def.weight = 1.0f;
    def.particle_radius = 0.1f;
    def.particle_flags = SINEW_PARTICLE_COLLIDES;
    def.pressure = 1.0f;
    def.area_stiffness = 1.0f;
    def.edge_stiffness = 1.0f;
    def.inside = SINEW_SOFTBODY_EMPTY;
    def.inner_stiffness = 0.1f;
    return def;
}

// Ring particle k of n, counter-clockwise from +x.
static sinew_vec2 ring_point(const sinew_softbody_def *def, int k)
{
    const double t = 2.0 * SINEW_PI * k / def->points;
    return sinew_vec2_make(def->center.x + def->radius * (float)cos(t), def->center.y + def->radius * (float)sin(t));
}

// The area the area constraint will measure at creation, computed as it does (area.c): in double
// over the float positions. A ring whose area rounds to 0 in float is refused there.
static double ring_area(const sinew_softbody_def *def)
{
    double area = 0.0;
    sinew_vec2 a = ring_point(def, 0);
    for (int k = 0; k < def->points; ++k) {
        const sinew_vec2 b = ring_point(def, k + 1 < def->points ? k + 1 : 0);
        area += (double)a.x * b.y - (double)b.x * a.y;
        a = b;
    }
    return 0.5 * area;
}

// What is wrong with a soft body def, or NULL; *status gets the error.
static const char *softbody_problem(const sinew_softbody_def *def, sinew_status *status)
{
    if (!sinew__finite2(def->center) || !sinew__finite(def->radius) || !sinew__finite(def->pressure) ||
        !sinew__finite(def->area_stiffness) || !sinew__finite(def->area_compliance) ||
        !sinew__finite(def->inner_stiffness)) {
        *status = SINEW_ERR_NOT_FINITE;
        return "soft body def: every number must be finite";
    }
    const char *problem = sinew__material_problem(def->weight, def->particle_radius, def->edge_stiffness,
                                                  def->edge_compliance, status);
    if (problem != NULL) {
        return problem;
    }
    *status = SINEW_ERR_OUT_OF_RANGE;
    if (def->points < 3 || def->points > (1 << 20) ||
        (def->inside != SINEW_SOFTBODY_EMPTY && def->inside != SINEW_SOFTBODY_SPRINGS && def->inside != SINEW_SOFTBODY_CENTER) ||
        !(def->radius > 0.0f) || !(def->pressure > 0.0f) || def->area_stiffness < 0.0f || def->area_stiffness > 1.0f ||
        def->area_compliance < 0.0f || def->inner_stiffness < 0.0f || def->inner_stiffness > 1.0f) {
        return "soft body def: points >= 3, radius > 0, pressure > 0, stiffnesses in [0, 1], compliances >= 0, "
               "known inside";
    }
    const double r = def->radius;
    if (!sinew__extent_ok(def->center.x - r, def->center.y - r, def->center.x + r, def->center.y + r)) {
        return "soft body def: the circle within SINEW_MAX_COORDINATE";
    }
    const double area = ring_area(def);
    if (area == 0.0 || !((float)fabs(area) > 0.0f)) {
        return "soft body def: the ring's area rounds to 0 (radius too small for its centre)";
    }
    // The area constraint's own bound (area.c): pressure times the area kept, at most a square of
    // side 2 SINEW_MAX_COORDINATE.
    if ((double)def->pressure * (float)fabs(area) > 4.0 * (double)SINEW_MAX_COORDINATE * (double)SINEW_MAX_COORDINATE) {
        return "soft body def: pressure * area above 4 SINEW_MAX_COORDINATE^2";
    }
    return NULL;
}

// Springs join particle k to k + n/4 (when that is not a neighbour) and to k + n/2, the one
// across: each pair once. With n even the pairs across are n/2; with n odd every particle starts
// one (k to k + n/2 mod n), so each has its own. No spring doubles an edge (n >= 4 for across).
static int quarter_springs(int n) { return n / 4 >= 2 ? n : 0; }
static int across_springs(int n) { return n / 2 >= 2 ? ((n & 1) == 0 ? n / 2 : n) : 0; }
static int spring_count(int n) { return quarter_springs(n) + across_springs(n); }

sinew_scene_counts sinew_softbody_counts(const sinew_softbody_def *def)
{
    sinew_status status = SINEW_OK;
    const char *problem = def != NULL ? softbody_problem(def, &status) : "sinew_softbody_counts: def is required";
    sinew_scene_counts c;
    if (!sinew__counts_start(&c, def != NULL, problem, status)) {
        return c;
    }
    const int n = def->points;
    c.particles = n + (def->inside == SINEW_SOFTBODY_CENTER);
    c.distances = n + (def->inside == SINEW_SOFTBODY_SPRINGS ? spring_count(n) : 0) +
                  (def->inside == SINEW_SOFTBODY_CENTER ? n : 0);
    c.areas = 1;
    return c;
}

sinew_status sinew_softbody_create(sinew_world *world, const sinew_softbody_def *def, sinew_softbody *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_softbody_create: world and def are required");
    }
    sinew_status s;
    const char *problem = softbody_problem(def, &s);
    if (problem != NULL) {
        return sinew__fail(world, s, problem);
    }
    const sinew_scene_counts counts = sinew_softbody_counts(def);
    const int n = def->points;
    sinew__build b;
    if (!sinew__build_begin(&b, world, &counts, out != NULL ? out->particles : NULL)) {
        return b.status;
    }
    sinew_particle_def p = sinew_default_particle_def();
    p.weight = def->weight;
    p.radius = def->particle_radius;
    p.flags = def->particle_flags;
    for (int k = 0; k < n; ++k) { // counter-clockwise
        p.position = ring_point(def, k);
        sinew__build_particle(&b, &p, false, NULL);
    }
    if (def->inside == SINEW_SOFTBODY_CENTER) {
        p.position = def->center;
        sinew__build_particle(&b, &p, false, NULL);
    }
    sinew_distance_def edge = sinew_default_distance_def();
    edge.stiffness = def->edge_stiffness;
    edge.compliance = def->edge_compliance;
    sinew_distance_def inner = sinew_default_distance_def();
    inner.stiffness = def->inner_stiffness;
    int made = 0;
    sinew_distance_id *links = out != NULL ? out->links : NULL;
#define SOFT_LINK(a, c, proto)                                                                      \
    do {                                                                                          \
        sinew_distance_id id_ = sinew__build_link(&b, (a), (c), (proto));                          \
        if (links != NULL && b.status == SINEW_OK) {                                              \
            links[made] = id_;                                                                    \
        }                                                                                         \
        made += b.status == SINEW_OK;                                                             \
    } while (0)
    for (int parity = 0; parity < 2; ++parity) { // even edges, then odd (an odd last edge shares)
        for (int k = parity; k < n; k += 2) {
            SOFT_LINK(k, (k + 1) % n, &edge);
        }
    }
    if (def->inside == SINEW_SOFTBODY_SPRINGS) {
        for (int k = 0; k < quarter_springs(n); ++k) {
            SOFT_LINK(k, (k + n / 4) % n, &inner);
        }
        for (int k = 0; k < across_springs(n); ++k) {
            SOFT_LINK(k, (k + n / 2) % n, &inner);
        }
    } else if (def->inside == SINEW_SOFTBODY_CENTER) {
        for (int k = 0; k < n; ++k) {
            SOFT_LINK(n, k, &inner);
        }
    }
#undef SOFT_LINK
    if (b.status == SINEW_OK) {
        sinew_area_def ad = sinew_default_area_def();
        ad.particles = b.ids;
        ad.count = n;
        ad.pressure = def->pressure;
        ad.stiffness = def->area_stiffness;
        ad.compliance = def->area_compliance;
        sinew_area_id area;
        b.status = sinew_area_create(world, &ad, &area);
        if (b.status == SINEW_OK && out != NULL) {
            out->area = area;
        }
    }
    return sinew__build_end(&b);
}
