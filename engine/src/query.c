// Spatial queries over the particles: a grid at the current positions finds the candidates (the
// one of the last sub-step predates the last solve, so the first query after a step rebuilds it),
// the positions decide. Particles outside the grid (not colliding) are checked one by one.
#include "world_internal.h"

typedef void (*visitor)(void *ctx, int index);

// Calls visit for every particle that may lie in [min, max].
static void visit_box(const sinew_world *world, sinew_vec2 min, sinew_vec2 max, visitor visit, void *ctx)
{
    const sinew__particles *p = &world->particles;
    sinew__grid *g = (sinew__grid *)&world->grid; // scratch, rebuilt on demand (like last_error)
    if (!g->fresh) {
        // Positions moved since the grid was built (the last solve, set_position): rebuild it at
        // the current positions so that the search is exact. Fails only when it cannot grow.
        g->fresh = sinew__grid_build((sinew_world *)world, 0, 0.0f);
    }
    const bool grid = g->fresh && g->valid && g->nx > 0;
    if (grid) {
        const int cx0 = sinew__grid_cell(min.x, g->minx, g->inv_cell, g->nx), cx1 = sinew__grid_cell(max.x, g->minx, g->inv_cell, g->nx);
        const int cy0 = sinew__grid_cell(min.y, g->miny, g->inv_cell, g->ny), cy1 = sinew__grid_cell(max.y, g->miny, g->inv_cell, g->ny);
        for (int cy = cy0; cy <= cy1; ++cy) {
            for (int cx = cx0; cx <= cx1; ++cx) {
                const int c = cy * g->nx + cx;
                for (uint32_t q = g->cell_start[c]; q < g->cell_start[c + 1]; ++q) {
                    visit(ctx, (int)p->sorted[q]);
                }
            }
        }
    }
    for (int i = 0; i < p->count; ++i) {
        if (!grid || (p->flags[i] & SINEW_PARTICLE_COLLIDES) == 0u) { // (not in the grid; flags are as built)
            visit(ctx, i);
        }
    }
}

typedef struct collect {
    const sinew_world *world;
    sinew_vec2 min, max, center;
    float radius2;
    bool circle;
    sinew_particle_id *out;
    int capacity, count;
} collect;

static void collect_one(void *ctx, int i)
{
    collect *c = ctx;
    const float x = c->world->particles.x[i], y = c->world->particles.y[i];
    bool inside = c->circle ? (x - c->center.x) * (x - c->center.x) + (y - c->center.y) * (y - c->center.y) <= c->radius2
                            : x >= c->min.x && x <= c->max.x && y >= c->min.y && y <= c->max.y;
    if (inside) {
        if (c->count < c->capacity) {
            c->out[c->count] = sinew_particle_id_at(c->world, i);
        }
        c->count += 1;
    }
}

static sinew_status check_out(const sinew_world *world, const sinew_particle_id *out, int capacity, const int *count)
{
    if (world == NULL || count == NULL || (out == NULL && capacity > 0)) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "query: world, count and out (when capacity > 0) are required");
    }
    if (capacity < 0) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "query: capacity must be >= 0");
    }
    return SINEW_OK;
}

sinew_status sinew_world_query_aabb(const sinew_world *world, sinew_vec2 min, sinew_vec2 max,
                                    sinew_particle_id *out, int capacity, int *count)
{
    sinew_status s = check_out(world, out, capacity, count);
    if (s != SINEW_OK) {
        return s;
    }
    if (!sinew__finite2(min) || !sinew__finite2(max)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_world_query_aabb: min and max must be finite");
    }
    collect c = {world, min, max, {0.0f, 0.0f}, 0.0f, false, out, capacity, 0};
    visit_box(world, min, max, collect_one, &c);
    *count = c.count;
    return SINEW_OK;
}

sinew_status sinew_world_query_circle(const sinew_world *world, sinew_vec2 center, float radius,
                                      sinew_particle_id *out, int capacity, int *count)
{
    sinew_status s = check_out(world, out, capacity, count);
    if (s != SINEW_OK) {
        return s;
    }
    if (!sinew__finite2(center) || !sinew__finite(radius)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_world_query_circle: center and radius must be finite");
    }
    if (radius < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_world_query_circle: radius must be >= 0");
    }
    collect c = {world, sinew_vec2_sub(center, sinew_vec2_make(radius, radius)),
                 sinew_vec2_add(center, sinew_vec2_make(radius, radius)), center, radius * radius, true, out, capacity, 0};
    visit_box(world, c.min, c.max, collect_one, &c);
    *count = c.count;
    return SINEW_OK;
}

typedef struct nearest {
    const sinew_world *world;
    sinew_vec2 point;
    float best2;
    int best;
} nearest;

static void nearest_one(void *ctx, int i)
{
    nearest *n = ctx;
    const float dx = n->world->particles.x[i] - n->point.x, dy = n->world->particles.y[i] - n->point.y;
    const float d2 = dx * dx + dy * dy;
    if (d2 < n->best2 || (d2 == n->best2 && i < n->best)) { // ties go to the lower index: deterministic
        n->best2 = d2;
        n->best = i;
    }
}

sinew_status sinew_world_query_nearest(const sinew_world *world, sinew_vec2 point, float max_distance,
                                       sinew_particle_id *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_world_query_nearest: world and out are required");
    }
    if (!sinew__finite2(point) || !sinew__finite(max_distance)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_world_query_nearest: point and max_distance must be finite");
    }
    if (max_distance < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_world_query_nearest: max_distance must be >= 0");
    }
    nearest n = {world, point, max_distance * max_distance, -1};
    n.best2 = nextafterf(n.best2, INFINITY); // within max_distance, inclusive
    visit_box(world, sinew_vec2_sub(point, sinew_vec2_make(max_distance, max_distance)),
              sinew_vec2_add(point, sinew_vec2_make(max_distance, max_distance)), nearest_one, &n);
    *out = n.best >= 0 ? sinew_particle_id_at(world, n.best) : (sinew_particle_id)SINEW_NULL_ID;
    return SINEW_OK;
}
