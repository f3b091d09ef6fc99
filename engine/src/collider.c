// Static colliders and particle-collider contacts.
//
// One shape model covers every collider but the half-plane: a convex polygon rounded by a radius
// (1 vertex = disc, 2 = capsule, 3+ = polygon, counter-clockwise). A particle of radius r meets
// the shape inflated by radius + r; the contact is linearised into a plane dot(n, x) >= offset at
// the nearest point. A particle that moved more than its radius in the sub-step is also swept
// from its previous position, so it cannot pass through a thin collider between two sub-steps.
#include <string.h>

#include "world_internal.h"

sinew_collider_def sinew_default_collider_def(void)
{
    sinew_collider_def def = {0};
    def.friction = 0.6f;
    def.kinetic_friction = 0.5f;
    def.group = 1u;
    def.mask = UINT32_MAX;
    def.events = true;
    return def;
}

static int collider_fields(void *kind, sinew__field *f)
{
    sinew__colliders *c = kind;
    f[0] = (sinew__field){(void **)&c->c, sizeof(sinew__collider), false, 1, false, NULL};
    return 1;
}


void sinew__colliders_save(const sinew_world *world, sinew__writer *w)
{
    const sinew__colliders *cs = &world->colliders;
    sinew__store_save(w, &cs->store, (void *)cs, collider_fields, cs->count);
}

static bool finite_vec(sinew_vec2 v) { return sinew__finite(v.x) && sinew__finite(v.y); }

// What the create functions make: a known type, a vertex count within the array, geometry within
// SINEW_MAX_COORDINATE, unit normals, finite bounds and frictions.
static bool collider_ok(const sinew__collider *c)
{
    const bool common = c->events <= 1u && c->mu_s >= 0.0f && sinew__finite(c->mu_s) && c->mu_k >= 0.0f && sinew__finite(c->mu_k) &&
                        sinew__finite(c->minx) && sinew__finite(c->miny) && sinew__finite(c->maxx) &&
                        sinew__finite(c->maxy);
    if (c->type == SINEW_COLLIDER_PLANE) {
        const float len2 = c->nx * c->nx + c->ny * c->ny;
        return common && sinew__finite(len2) && fabsf(len2 - 1.0f) < 1e-3f && sinew__coordinate_ok(c->offset);
    }
    if (c->type != SINEW_COLLIDER_POLYGON || c->vertex_count < 1 || c->vertex_count > SINEW_POLYGON_MAX_VERTICES ||
        !sinew__coordinate_ok(c->radius) || c->radius < 0.0f || !common) {
        return false;
    }
    for (int k = 0; k < c->vertex_count; ++k) {
        const float len2 = c->n[k].x * c->n[k].x + c->n[k].y * c->n[k].y;
        if (!sinew__point_ok(c->v[k]) || !finite_vec(c->n[k]) || !(len2 <= 1.001f)) {
            return false;
        }
    }
    return true;
}

bool sinew__colliders_load(sinew_world *world, sinew__reader *r)
{
    sinew__colliders *cs = &world->colliders;
    if (!sinew__store_load(r, world, &cs->store, cs, collider_fields, &cs->count, INT32_MAX / 2)) {
        return false;
    }
    for (int k = 0; k < cs->count; ++k) {
        if (!sinew__expect(r, collider_ok(&cs->c[k]), "snapshot: a collider is out of range")) {
            return false;
        }
    }
    return true;
}

void sinew__colliders_free(sinew_world *world)
{
    sinew__store_free(world, &world->colliders.store);
    memset(&world->colliders, 0, sizeof world->colliders);
}

static sinew_status check_def(const sinew_world *world, const sinew_collider_def *def)
{
    if (!sinew__finite(def->friction) || !sinew__finite(def->kinetic_friction)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "collider def: friction and kinetic_friction must be finite");
    }
    if (def->friction < 0.0f || def->kinetic_friction < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "collider def: friction and kinetic_friction must be >= 0");
    }
    return SINEW_OK;
}

// Refuses geometry beyond SINEW_MAX_COORDINATE (points and radius, already known finite), so that
// no contact with it can overflow.
static sinew_status range_check(const sinew_world *world, const sinew_vec2 *points, int count, float radius,
                                const char *what)
{
    bool ok = sinew__coordinate_ok(radius);
    for (int k = 0; k < count; ++k) {
        ok = ok && sinew__point_ok(points[k]);
    }
    return ok ? SINEW_OK : sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, what);
}

// Stores a collider whose geometry is filled in; computes its bounds.
static sinew_status add(sinew_world *world, const sinew_collider_def *def, sinew__collider *c, sinew_collider_id *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "collider create: world and def are required");
    }
    sinew_status s = check_def(world, def);
    if (s != SINEW_OK) {
        return s;
    }
    sinew__colliders *cs = &world->colliders;
    if (world->max_constraints > 0 && cs->count >= world->max_constraints) {
        return sinew__fail(world, SINEW_ERR_CAPACITY, "collider create: max_constraints reached");
    }
    s = sinew__store_reserve(world, &cs->store, cs, collider_fields, cs->count, cs->count + 1);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "collider create: growing the store failed");
    }
    s = sinew__scratch_need(world, SINEW__NEED_COLLIDE); // contacts with colliders use the particles' collision scratch
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "collider create: allocating the collision scratch failed");
    }
    c->mu_s = sqrtf(def->friction); // stored as square roots: a contact's coefficient is the product
    c->mu_k = sqrtf(def->kinetic_friction);
    c->group = def->group;
    c->mask = def->mask;
    c->user_data = def->user_data;
    c->events = def->events ? 1u : 0u;
    if (c->type == SINEW_COLLIDER_POLYGON) {
        c->minx = c->maxx = c->v[0].x;
        c->miny = c->maxy = c->v[0].y;
        for (int k = 1; k < c->vertex_count; ++k) {
            c->minx = fminf(c->minx, c->v[k].x);
            c->maxx = fmaxf(c->maxx, c->v[k].x);
            c->miny = fminf(c->miny, c->v[k].y);
            c->maxy = fmaxf(c->maxy, c->v[k].y);
        }
        c->minx -= c->radius;
        c->miny -= c->radius;
        c->maxx += c->radius;
        c->maxy += c->radius;
    }
    const int k = cs->count;
    sinew_collider_id id;
    sinew__store_push(&cs->store, &cs->count, &id.index1, &id.generation);
    cs->c[k] = *c;
    if (out != NULL) {
        *out = id;
    }
    return SINEW_OK;
}

sinew_status sinew_plane_collider_create(sinew_world *world, const sinew_collider_def *def, sinew_vec2 normal,
                                         float offset, sinew_collider_id *out)
{
    if (!sinew__finite2(normal) || !sinew__finite(offset)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "plane collider: normal and offset must be finite");
    }
    float len = sinew_vec2_length(normal);
    if (!(len > 0.0f) || !sinew__finite(len)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "plane collider: the normal must not be zero");
    }
    sinew__collider c = {0};
    c.type = SINEW_COLLIDER_PLANE;
    c.nx = normal.x / len;
    c.ny = normal.y / len;
    c.offset = offset / len;
    if (!sinew__coordinate_ok(c.offset)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "plane collider: |offset / |normal|| > SINEW_MAX_COORDINATE");
    }
    return add(world, def, &c, out);
}

// Fills edge normals for a counter-clockwise polygon (or both sides of a segment).
static void edge_normals(sinew__collider *c)
{
    const int m = c->vertex_count;
    for (int k = 0; k < m && m >= 2; ++k) {
        sinew_vec2 a = c->v[k], b = c->v[(k + 1) % m];
        c->n[k] = sinew_vec2_normalize(sinew_vec2_make(b.y - a.y, a.x - b.x));
    }
}

static sinew_status polygon(sinew_world *world, const sinew_collider_def *def, const sinew_vec2 *v, int count,
                            float radius, sinew_collider_id *out)
{
    sinew__collider c = {0};
    c.type = SINEW_COLLIDER_POLYGON;
    c.vertex_count = count;
    c.radius = radius;
    memcpy(c.v, v, sizeof(sinew_vec2) * (size_t)count);
    edge_normals(&c);
    return add(world, def, &c, out);
}

sinew_status sinew_circle_collider_create(sinew_world *world, const sinew_collider_def *def, sinew_vec2 center,
                                          float radius, sinew_collider_id *out)
{
    if (!sinew__finite2(center) || !sinew__finite(radius)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "circle collider: center and radius must be finite");
    }
    if (!(radius > 0.0f)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "circle collider: radius must be > 0");
    }
    if (range_check(world, &center, 1, radius, "circle collider: center and radius within SINEW_MAX_COORDINATE") !=
        SINEW_OK) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    return polygon(world, def, &center, 1, radius, out);
}

sinew_status sinew_segment_collider_create(sinew_world *world, const sinew_collider_def *def, sinew_vec2 a,
                                           sinew_vec2 b, float radius, sinew_collider_id *out)
{
    if (!sinew__finite2(a) || !sinew__finite2(b) || !sinew__finite(radius)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "segment collider: a, b and radius must be finite");
    }
    if (radius < 0.0f || (a.x == b.x && a.y == b.y)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "segment collider: radius >= 0 and a != b required");
    }
    sinew_vec2 v[2] = {a, b};
    if (range_check(world, v, 2, radius, "segment collider: a, b and radius within SINEW_MAX_COORDINATE") != SINEW_OK) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    return polygon(world, def, v, 2, radius, out);
}

sinew_status sinew_box_collider_create(sinew_world *world, const sinew_collider_def *def, sinew_vec2 min,
                                       sinew_vec2 max, sinew_collider_id *out)
{
    if (!sinew__finite2(min) || !sinew__finite2(max)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "box collider: min and max must be finite");
    }
    if (!(min.x < max.x && min.y < max.y)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "box collider: min < max required on both axes");
    }
    sinew_vec2 v[4] = {min, {max.x, min.y}, max, {min.x, max.y}};
    if (range_check(world, v, 4, 0.0f, "box collider: min and max within SINEW_MAX_COORDINATE") != SINEW_OK) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    return polygon(world, def, v, 4, 0.0f, out);
}

sinew_status sinew_polygon_collider_create(sinew_world *world, const sinew_collider_def *def,
                                           const sinew_vec2 *vertices, int count, float radius,
                                           sinew_collider_id *out)
{
    if (vertices == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "polygon collider: vertices are required");
    }
    if (count < 3 || count > SINEW_POLYGON_MAX_VERTICES) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "polygon collider: 3..SINEW_POLYGON_MAX_VERTICES vertices");
    }
    if (!sinew__finite(radius)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "polygon collider: radius must be finite");
    }
    sinew_vec2 v[SINEW_POLYGON_MAX_VERTICES];
    double area = 0.0;
    for (int k = 0; k < count; ++k) {
        if (!sinew__finite2(vertices[k])) {
            return sinew__fail(world, SINEW_ERR_NOT_FINITE, "polygon collider: vertices must be finite");
        }
    }
    if (range_check(world, vertices, count, radius, "polygon collider: vertices and radius within SINEW_MAX_COORDINATE") !=
        SINEW_OK) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    for (int k = 0; k < count; ++k) {
        sinew_vec2 a = vertices[k], b = vertices[(k + 1) % count];
        area += (double)a.x * b.y - (double)b.x * a.y;
    }
    for (int k = 0; k < count; ++k) { // counter-clockwise
        v[k] = area > 0.0 ? vertices[k] : vertices[count - 1 - k];
    }
    // Strictly convex: every other vertex lies left of every edge (turning left at each corner
    // is not enough: a star turns left everywhere and winds twice).
    for (int k = 0; k < count; ++k) {
        const sinew_vec2 a = v[k], b = v[(k + 1) % count];
        for (int m = 0; m < count; ++m) {
            if (m != k && m != (k + 1) % count &&
                !(sinew_vec2_cross(sinew_vec2_sub(b, a), sinew_vec2_sub(v[m], a)) > 0.0f)) {
                return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE,
                                   "polygon collider: vertices must form a strictly convex polygon");
            }
        }
    }
    if (radius < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "polygon collider: radius must be >= 0");
    }
    return polygon(world, def, v, count, radius, out);
}

sinew_status sinew_world_bounds_create(sinew_world *world, const sinew_collider_def *def, sinew_vec2 min,
                                       sinew_vec2 max, sinew_collider_id out[4])
{
    if (!sinew__finite2(min) || !sinew__finite2(max)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "world bounds: min and max must be finite");
    }
    if (!(min.x < max.x && min.y < max.y)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "world bounds: min < max required on both axes");
    }
    const sinew_vec2 corners[2] = {min, max};
    if (range_check(world, corners, 2, 0.0f, "world bounds: min and max within SINEW_MAX_COORDINATE") != SINEW_OK) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    if (world != NULL && world->max_constraints > 0 && world->colliders.count + 4 > world->max_constraints) {
        return sinew__fail(world, SINEW_ERR_CAPACITY, "world bounds: max_constraints would be passed");
    }
    const sinew_vec2 normals[4] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};
    const float offsets[4] = {min.y, -max.y, min.x, -max.x};
    sinew_collider_id ids[4] = {SINEW_NULL_ID, SINEW_NULL_ID, SINEW_NULL_ID, SINEW_NULL_ID};
    for (int k = 0; k < 4; ++k) {
        sinew_status s = sinew_plane_collider_create(world, def, normals[k], offsets[k], &ids[k]);
        if (s != SINEW_OK) {
            for (int m = 0; m < k; ++m) {
                sinew_collider_destroy(world, ids[m]);
            }
            return s;
        }
    }
    if (out != NULL) {
        memcpy(out, ids, sizeof ids);
    }
    return SINEW_OK;
}

static int lookup(const sinew_world *world, sinew_collider_id id)
{
    return world != NULL ? sinew__store_lookup(&world->colliders.store, id.index1, id.generation) : -1;
}

sinew_status sinew_collider_set_events(sinew_world *world, sinew_collider_id id, bool events)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    const int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_collider_set_events: stale or null id");
    }
    world->colliders.c[k].events = events ? 1u : 0u;
    return SINEW_OK;
}

sinew_status sinew_collider_destroy(sinew_world *world, sinew_collider_id id)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_collider_destroy: stale or null id");
    }
    sinew__colliders *cs = &world->colliders;
    sinew__store_remove(&cs->store, cs, collider_fields, &cs->count, k);
    return SINEW_OK;
}

bool sinew_collider_is_valid(const sinew_world *world, sinew_collider_id id) { return lookup(world, id) >= 0; }

void *sinew_collider_user_data(const sinew_world *world, sinew_collider_id id)
{
    int k = lookup(world, id);
    return k >= 0 ? world->colliders.c[k].user_data : NULL;
}

int sinew_world_collider_count(const sinew_world *world) { return world != NULL ? world->colliders.count : 0; }

sinew_collider_id sinew_collider_id_at(const sinew_world *world, int index)
{
    sinew_collider_id id = SINEW_NULL_ID;
    if (world != NULL && index >= 0 && index < world->colliders.count) {
        sinew__store_id(&world->colliders.store, index, &id.index1, &id.generation);
    }
    return id;
}

sinew_status sinew_collider_get_shape(const sinew_world *world, sinew_collider_id id, sinew_collider_shape *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_collider_get_shape: world and out are required");
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_collider_get_shape: stale or null id");
    }
    const sinew__collider *c = &world->colliders.c[k];
    out->type = c->type;
    out->normal = sinew_vec2_make(c->nx, c->ny);
    out->offset = c->offset;
    out->vertices = c->type == SINEW_COLLIDER_POLYGON ? c->v : NULL;
    out->vertex_count = c->type == SINEW_COLLIDER_POLYGON ? c->vertex_count : 0;
    out->radius = c->radius;
    return SINEW_OK;
}

// Lengths at or below this are treated as zero where a direction is divided by them (1 / 1e-30
// is still finite in float; the inverse of a denormal is not).
#define SINEW__TINY_LENGTH 1e-30f

// ---- geometry ---------------------------------------------------------------------------------

// Nearest point to p on the segment a-b.
static sinew_vec2 closest_on_segment(sinew_vec2 p, sinew_vec2 a, sinew_vec2 b)
{
    sinew_vec2 ab = sinew_vec2_sub(b, a);
    float len2 = sinew_vec2_length_sq(ab);
    float t = len2 > 0.0f ? sinew_vec2_dot(sinew_vec2_sub(p, a), ab) / len2 : 0.0f;
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    return sinew_vec2_mul_add(a, t, ab);
}

bool sinew__collider_plane(const sinew__collider *c, sinew_vec2 p, float r, float margin, sinew__plane_hit *hit)
{
    margin += r * (SINEW__CONTACT_REACH - 1.0f);
    if (c->type == SINEW_COLLIDER_PLANE) {
        return sinew__half_plane_contact(c, p, r, margin, hit);
    }
    const int m = c->vertex_count;
    const float reach = c->radius + r;
    if (m >= 3) { // inside the polygon: out through the nearest face
        float best = -INFINITY;
        int face = 0;
        for (int k = 0; k < m; ++k) {
            float s = sinew_vec2_dot(c->n[k], sinew_vec2_sub(p, c->v[k]));
            if (s > best) {
                best = s;
                face = k;
            }
        }
        if (best <= 0.0f) {
            *hit = (sinew__plane_hit){c->n[face].x, c->n[face].y, sinew_vec2_dot(c->n[face], c->v[face]) + reach};
            return true;
        }
    }
    sinew_vec2 q = c->v[0];
    float best2 = sinew_vec2_length_sq(sinew_vec2_sub(p, q));
    const int edges = m >= 3 ? m : m - 1;
    for (int k = 0; k < edges; ++k) {
        sinew_vec2 e = closest_on_segment(p, c->v[k], c->v[(k + 1) % m]);
        float d2 = sinew_vec2_length_sq(sinew_vec2_sub(p, e));
        if (d2 < best2) {
            best2 = d2;
            q = e;
        }
    }
    if (best2 >= (reach + margin) * (reach + margin)) {
        return false;
    }
    float d = sqrtf(best2);
    // Closer than SINEW__TINY_LENGTH (a denormal distance, whose inverse overflows): the fallback
    // direction, as for a particle exactly on the shape's core.
    sinew_vec2 n = d > SINEW__TINY_LENGTH ? sinew_vec2_scale(sinew_vec2_sub(p, q), 1.0f / d)
                            : (m == 2 ? c->n[0] : sinew_vec2_make(0.0f, 1.0f));
    *hit = (sinew__plane_hit){n.x, n.y, sinew_vec2_dot(n, q) + reach};
    return true;
}

// How far inside a surface a sweep may start and still count as entering it: a particle sliding
// along a face sits on it, give or take rounding, and must not be let through.
#define SINEW__SWEEP_SLOP 1e-3f

// First time t in [0, 1] at which the segment a + t (b - a) enters the disc (center, radius),
// coming from outside (or from within the slop of its edge); returns false when it does not.
static bool ray_circle(sinew_vec2 a, sinew_vec2 d, sinew_vec2 center, float radius, float *t)
{
    sinew_vec2 f = sinew_vec2_sub(a, center);
    float A = sinew_vec2_dot(d, d), B = sinew_vec2_dot(f, d), C = sinew_vec2_dot(f, f) - radius * radius;
    const float inner = radius * (1.0f - SINEW__SWEEP_SLOP);
    if (B >= 0.0f || !(A > 0.0f) || sinew_vec2_dot(f, f) < inner * inner) { // moving away, or deep inside
        return false;
    }
    if (C <= 0.0f) { // on the edge already, moving in
        *t = 0.0f;
        return true;
    }
    float disc = B * B - A * C;
    if (disc < 0.0f) {
        return false;
    }
    float root = (-B - sqrtf(disc)) / A;
    if (root < 0.0f || root > 1.0f) {
        return false;
    }
    *t = root;
    return true;
}

bool sinew__collider_sweep(const sinew__collider *c, sinew_vec2 a, sinew_vec2 b, float r, sinew__plane_hit *hit,
                           float *fraction)
{
    sinew_vec2 d = sinew_vec2_sub(b, a);
    if (c->type == SINEW_COLLIDER_PLANE) {
        float s0 = c->nx * a.x + c->ny * a.y - c->offset, s1 = c->nx * b.x + c->ny * b.y - c->offset;
        if (s0 >= r * (1.0f - SINEW__SWEEP_SLOP) && s1 < r) {
            *hit = (sinew__plane_hit){c->nx, c->ny, c->offset + r};
            if (fraction != NULL) {
                const float t = (s0 - r) / (s0 - s1);
                *fraction = t > 0.0f ? t : 0.0f;
            }
            return true;
        }
        return false;
    }
    const int m = c->vertex_count;
    const float reach = c->radius + r;
    float best = 2.0f;
    sinew_vec2 n = {0.0f, 0.0f}, at = {0.0f, 0.0f};
    for (int k = 0; k < m; ++k) { // the rounded corners
        float t;
        if (reach > SINEW__TINY_LENGTH && ray_circle(a, d, c->v[k], reach, &t) && t < best) {
            best = t;
            at = sinew_vec2_mul_add(a, t, d);
            // Along the corner to the hit point, normalised: a long sweep past a small corner puts
            // the point only roughly at `reach` (the root of the quadratic loses digits).
            n = sinew_vec2_normalize(sinew_vec2_sub(at, c->v[k]));
            n = n.x != 0.0f || n.y != 0.0f ? n : sinew_vec2_normalize(sinew_vec2_scale(d, -1.0f));
        }
    }
    const int edges = m >= 2 ? m : 0; // a capsule has two faces: v0->v1 and v1->v0
    for (int k = 0; k < edges; ++k) {
        sinew_vec2 nk = c->n[k];
        float dn = sinew_vec2_dot(d, nk);
        if (!(dn < 0.0f)) {
            continue; // not moving into this face
        }
        sinew_vec2 e0 = sinew_vec2_mul_add(c->v[k], reach, nk), e1 = sinew_vec2_mul_add(c->v[(k + 1) % m], reach, nk);
        // The start's height over the face: outside, or on it within the slop, counts.
        float above = sinew_vec2_dot(nk, a) - sinew_vec2_dot(nk, e0);
        if (above < -SINEW__SWEEP_SLOP * reach) {
            continue;
        }
        float t = above > 0.0f ? -above / dn : 0.0f;
        if (t > 1.0f || t >= best) {
            continue;
        }
        sinew_vec2 p = sinew_vec2_mul_add(a, t, d), edge = sinew_vec2_sub(e1, e0);
        float u = sinew_vec2_dot(sinew_vec2_sub(p, e0), edge);
        if (u < 0.0f || u > sinew_vec2_length_sq(edge)) {
            continue; // past the face's ends: the corners handle it
        }
        best = t;
        at = p;
        n = nk;
    }
    if (best > 1.0f) {
        return false;
    }
    *hit = (sinew__plane_hit){n.x, n.y, sinew_vec2_dot(n, at)};
    if (fraction != NULL) {
        *fraction = best;
    }
    return true;
}
