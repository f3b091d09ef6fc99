// Area constraints: the 2D form of a volume constraint. A closed ring p_0 .. p_{n-1} keeps its
// signed area A = 1/2 sum cross(p_k, p_{k+1}) at sign * pressure * rest. The gradient at p_k is
// 1/2 perp(p_{k+1} - p_{k-1}), along the ring's outward normal there; the gradients sum to zero,
// so the correction keeps momentum. PBD/XPBD like the other kinds:
//   dlambda = k (-C - a lambda) / (sum w |grad|^2 + a),  p_k += w_k dlambda grad_k.
#include <string.h>

#include "world_internal.h"

sinew_area_def sinew_default_area_def(void)
{
    sinew_area_def def = {0};
    def.rest_area = SINEW_REST_CURRENT;
    def.pressure = 1.0f;
    def.stiffness = 1.0f;
    return def;
}

static int is_soft(const sinew__area *a) { return a->stiffness != 1.0f || a->compliance > 0.0f; }

static int area_fields(void *kind, sinew__field *f)
{
    sinew__areas *a = kind;
    f[0] = (sinew__field){(void **)&a->c, sizeof(sinew__area), false, 1, false, NULL};
    f[1] = (sinew__field){(void **)&a->lambda, sizeof(float), true, 1, false, NULL};
    f[2] = (sinew__field){(void **)&a->user_data, sizeof(void *), false, 1, false, NULL};
    return 3;
}

static sinew_status pool_reserve(sinew_world *world, int needed)
{
    sinew__areas *a = &world->areas;
    if (needed <= a->idx_capacity) {
        return SINEW_OK;
    }
    int cap = sinew__grow_capacity(a->idx_capacity, needed);
    if (cap < 0) {
        return SINEW_ERR_CAPACITY;
    }
    sinew__field f[] = {{(void **)&a->idx, sizeof(int32_t), false, 1, false, NULL}};
    sinew_status s = sinew__block_resize(world, &a->pool_block, &a->pool_bytes, f, 1, a->idx_count, cap);
    if (s == SINEW_OK) {
        a->idx_capacity = cap;
    }
    return s;
}

static void areas_free(sinew_world *world)
{
    sinew__areas *a = &world->areas;
    sinew__store_free(world, &a->store);
    sinew__free(world, a->pool_block, a->pool_bytes);
    memset(a, 0, sizeof *a);
}

// Signed area of a ring given by particle indices.
static double ring_area(const sinew_world *world, const int32_t *idx, int n)
{
    const float *x = world->particles.x, *y = world->particles.y;
    double area = 0.0;
    for (int k = 0; k < n; ++k) {
        const int i = idx[k], j = idx[k + 1 < n ? k + 1 : 0];
        area += (double)x[i] * y[j] - (double)x[j] * y[i];
    }
    return 0.5 * area;
}

// Largest area kept (pressure times rest area), m^2: a square of side 2 SINEW_MAX_COORDINATE, the
// most any ring within range can hold. Beyond it the correction would overflow.
#define SINEW__MAX_AREA (4.0 * (double)SINEW_MAX_COORDINATE * (double)SINEW_MAX_COORDINATE)

static sinew_status check_target(const sinew_world *world, float pressure, float rest)
{
    return (double)pressure * rest <= SINEW__MAX_AREA
               ? SINEW_OK
               : sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "area: pressure * rest area above 4 SINEW_MAX_COORDINATE^2");
}

static sinew_status check_scalars(const sinew_world *world, float pressure, float stiffness, float compliance)
{
    if (!sinew__finite(pressure) || !sinew__finite(stiffness) || !sinew__finite(compliance)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "area def: pressure, stiffness and compliance must be finite");
    }
    if (!(pressure > 0.0f) || stiffness < 0.0f || stiffness > 1.0f || compliance < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE,
                           "area def: pressure > 0, stiffness in [0, 1] and compliance >= 0 required");
    }
    return SINEW_OK;
}

static sinew_status area_create(sinew_world *world, const sinew_area_def *def, sinew_area_id *out)
{
    if (world == NULL || def == NULL || (def->particles == NULL && def->count > 0)) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_area_create: world, def and particles are required");
    }
    if (def->count < 3 || def->count > (1 << 24)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "area def: a ring needs 3 or more particles");
    }
    if (!sinew__finite(def->rest_area)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "area def: rest_area must be finite");
    }
    sinew_status s = check_scalars(world, def->pressure, def->stiffness, def->compliance);
    if (s != SINEW_OK) {
        return s;
    }
    sinew__areas *a = &world->areas;
    if (world->max_constraints > 0 && a->count >= world->max_constraints) {
        return sinew__fail(world, SINEW_ERR_CAPACITY, "sinew_area_create: max_constraints reached");
    }
    // Validate first, so that a refused ring changes nothing (the byte count included). A
    // duplicate is found by marking each particle in grad_x, the areas' scratch that every use
    // writes before it reads: O(n) for rings of any size.
    float *mark = world->particles.grad_x;
    bool ok = true;
    for (int k = 0; k < def->count && ok; ++k) {
        const int i = sinew__particle_lookup(world, def->particles[k]);
        ok = i >= 0;
        if (ok) {
            mark[i] = 0.0f;
        }
    }
    if (!ok) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "area def: a particle of the ring is not live");
    }
    double current = 0.0; // the ring's signed area, as ring_area computes it
    for (int k = 0; k < def->count; ++k) {
        const int i = sinew__particle_lookup(world, def->particles[k]);
        const int j = sinew__particle_lookup(world, def->particles[k + 1 < def->count ? k + 1 : 0]);
        ok = ok && mark[i] == 0.0f;
        mark[i] = 1.0f;
        current += (double)world->particles.x[i] * world->particles.y[j] -
                   (double)world->particles.x[j] * world->particles.y[i];
    }
    current *= 0.5;
    if (!ok) {
        return sinew__fail(world, SINEW_ERR_SAME_PARTICLE, "area def: a particle appears twice in the ring");
    }
    float rest = def->rest_area;
    if (rest == SINEW_REST_CURRENT) {
        rest = (float)fabs(current);
    }
    if (!(rest > 0.0f) || current == 0.0) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "area def: the rest area and the ring's area must not be 0");
    }
    s = check_target(world, def->pressure, rest);
    if (s != SINEW_OK) {
        return s;
    }
    s = pool_reserve(world, a->idx_count + def->count);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_area_create: growing the index pool failed");
    }
    s = sinew__store_reserve(world, &a->store, a, area_fields, a->count, a->count + 1);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_area_create: growing the store failed");
    }
    int32_t *idx = a->idx + a->idx_count;
    for (int k = 0; k < def->count; ++k) {
        idx[k] = sinew__particle_lookup(world, def->particles[k]);
    }
    const int k = a->count;
    sinew_area_id id;
    sinew__store_push(&a->store, &a->count, &id.index1, &id.generation);
    if (out != NULL) {
        *out = id;
    }
    a->user_data[k] = def->user_data;
    a->c[k] = (sinew__area){a->idx_count, def->count, rest, current > 0.0 ? 1.0f : -1.0f, def->pressure,
                            def->stiffness, def->compliance};
    a->idx_count += def->count;
    a->lambda[k] = 0.0f;
    a->soft_count += is_soft(&a->c[k]);
    return SINEW_OK;
}

sinew_status sinew_area_create(sinew_world *world, const sinew_area_def *def, sinew_area_id *out)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    // The areas' scratch (and the mark above) comes with the first area; a refused first area
    // leaves none.
    const bool had = (world->particles.needs & SINEW__NEED_AREA) != 0u;
    sinew_status s = sinew__scratch_need(world, SINEW__NEED_AREA);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_area_create: allocating the areas' scratch failed");
    }
    s = area_create(world, def, out);
    if (s != SINEW_OK && !had) {
        sinew__scratch_drop(world, SINEW__NEED_AREA);
    }
    return s;
}

// Removes constraint k: its indices leave the pool (the pool is packed), the last record moves in.
static void remove_at(sinew__areas *a, int k)
{
    const int32_t first = a->c[k].first, n = a->c[k].count;
    memmove(a->idx + first, a->idx + first + n, sizeof(int32_t) * (size_t)(a->idx_count - first - n));
    a->idx_count -= n;
    for (int m = 0; m < a->count; ++m) {
        a->c[m].first -= a->c[m].first > first ? n : 0;
    }
    a->soft_count -= is_soft(&a->c[k]);
    sinew__store_remove(&a->store, a, area_fields, &a->count, k);
}

static int lookup(const sinew_world *world, sinew_area_id id)
{
    return world != NULL ? sinew__store_lookup(&world->areas.store, id.index1, id.generation) : -1;
}

sinew_status sinew_area_destroy(sinew_world *world, sinew_area_id id)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_area_destroy: stale or null id");
    }
    remove_at(&world->areas, k);
    return SINEW_OK;
}

bool sinew_area_is_valid(const sinew_world *world, sinew_area_id id) { return lookup(world, id) >= 0; }

sinew_status sinew_area_get_area(const sinew_world *world, sinew_area_id id, float *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_area_get_area: world and out are required");
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_area_get_area: stale or null id");
    }
    const sinew__area *c = &world->areas.c[k];
    *out = (float)(c->sign * ring_area(world, world->areas.idx + c->first, c->count));
    return SINEW_OK;
}

sinew_status sinew_area_set_pressure(sinew_world *world, sinew_area_id id, float pressure)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_area_set_pressure: stale or null id");
    }
    sinew__area *c = &world->areas.c[k];
    sinew_status s = check_scalars(world, pressure, c->stiffness, c->compliance);
    if (s == SINEW_OK) {
        s = check_target(world, pressure, c->rest);
    }
    if (s == SINEW_OK) {
        c->pressure = pressure;
    }
    return s;
}

sinew_status sinew_area_get_rest(const sinew_world *world, sinew_area_id id, float *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_area_get_rest: world and out are required");
    }
    const int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_area_get_rest: stale or null id");
    }
    *out = world->areas.c[k].rest;
    return SINEW_OK;
}

sinew_status sinew_area_set_rest(sinew_world *world, sinew_area_id id, float rest_area)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    const int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_area_set_rest: stale or null id");
    }
    if (!sinew__finite(rest_area)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_area_set_rest: rest area must be finite");
    }
    if (!(rest_area > 0.0f)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_area_set_rest: rest area must be > 0");
    }
    sinew__area *c = &world->areas.c[k];
    const sinew_status s = check_target(world, c->pressure, rest_area);
    if (s == SINEW_OK) {
        c->rest = rest_area;
    }
    return s;
}

static void areas_remove_particle(sinew_world *world, int index, int moved_from)
{
    sinew__areas *a = &world->areas;
    for (int k = 0; k < a->count;) {
        const sinew__area *c = &a->c[k];
        bool uses = false;
        for (int m = 0; m < c->count && !uses; ++m) {
            uses = a->idx[c->first + m] == index;
        }
        if (uses) {
            remove_at(a, k);
            continue;
        }
        ++k;
    }
    for (int m = 0; m < a->idx_count; ++m) {
        a->idx[m] = a->idx[m] == moved_from ? index : a->idx[m];
    }
}

static void areas_begin_substep(sinew_world *world)
{
    if (world->areas.soft_count > 0) {
        memset(world->areas.lambda, 0, sizeof(float) * (size_t)world->areas.count);
    }
}

// Error C (signed area minus target), the multiplier step dlambda (already times stiffness),
// from the ring's current positions. Returns false when nothing can move.
static bool area_step(const sinew_world *world, const sinew__area *c, float lambda, float inv_h2, float *dlambda)
{
    const int32_t *idx = world->areas.idx + c->first;
    const float *x = world->particles.x, *y = world->particles.y, *w = world->particles.w;
    const int n = c->count;
    double area = 0.0, denom = 0.0, reach = 0.0; // reach: largest w |grad| of a vertex
    for (int k = 0; k < n; ++k) {
        const int prev = idx[k > 0 ? k - 1 : n - 1], cur = idx[k], next = idx[k + 1 < n ? k + 1 : 0];
        area += (double)x[cur] * y[next] - (double)x[next] * y[cur];
        const double gx = 0.5 * ((double)y[next] - y[prev]), gy = 0.5 * ((double)x[prev] - x[next]);
        const double g2 = gx * gx + gy * gy;
        denom += w[cur] * g2;
        const double r = w[cur] * sqrt(g2);
        reach = r > reach ? r : reach; // (fmax's result, NaN included, without its call)
    }
    const double C = c->sign * 0.5 * area - c->pressure * c->rest;
    const double a = c->compliance * inv_h2;
    denom += a;
    if (!(denom > 0.0) || C == 0.0) {
        *dlambda = 0.0f;
        return false;
    }
    double step = c->stiffness * (-C - a * lambda) / denom;
    // The step is linearised: for a ring crushed toward a point its gradients vanish and it would
    // be huge. No vertex moves more than the radius of the larger of the current and target
    // areas in one projection (any real correction moves less); a collapsed ring grows back over a
    // few iterations instead of exploding.
    const double target = c->pressure * c->rest;
    const double half = fabs(0.5 * area);
    const double limit = sqrt((half > target ? half : target) / SINEW_PI); // (fmax's result for a NaN area too)
    if (fabs(step) * reach > limit) {
        step = step > 0.0 ? limit / reach : -limit / reach;
    }
    *dlambda = (float)step;
    return true;
}

// Adds scale * w_k * grad_k to the ring's particles (positions or Jacobi sums).
static void area_apply(sinew_world *world, const sinew__area *c, float step, bool accumulate)
{
    const int32_t *idx = world->areas.idx + c->first;
    sinew__particles *p = &world->particles;
    const int n = c->count;
    const float s = c->sign * step;
    // Gradients from the positions before any of this constraint's moves: compute them first.
    for (int k = 0; k < n; ++k) {
        const int prev = idx[k > 0 ? k - 1 : n - 1], cur = idx[k], next = idx[k + 1 < n ? k + 1 : 0];
        const float gx = 0.5f * (p->y[next] - p->y[prev]), gy = 0.5f * (p->x[prev] - p->x[next]);
        p->grad_x[cur] = gx;
        p->grad_y[cur] = gy;
    }
    for (int k = 0; k < n; ++k) {
        const int cur = idx[k];
        const float f = s * p->w[cur];
        if (accumulate) {
            p->acc[cur].dx += (double)(f * p->grad_x[cur]);
            p->acc[cur].dy += (double)(f * p->grad_y[cur]);
        } else {
            p->x[cur] += f * p->grad_x[cur];
            p->y[cur] += f * p->grad_y[cur];
        }
    }
}

// `shuffled` does not apply: the areas keep their order.
static void areas_project(sinew_world *world, float inv_h2, bool backward, bool shuffled)
{
    (void)shuffled;
    sinew__areas *a = &world->areas;
    for (int m = 0; m < a->count; ++m) {
        const int k = backward ? a->count - 1 - m : m;
        float dlambda;
        if (area_step(world, &a->c[k], a->lambda[k], inv_h2, &dlambda)) {
            a->lambda[k] += dlambda;
            area_apply(world, &a->c[k], dlambda, false);
        }
    }
}

// One factor for the whole ring, omega / max n over its vertices, so momentum is kept.
static float ring_factor(const sinew_world *world, const sinew__area *c, float omega)
{
    const int32_t *idx = world->areas.idx + c->first;
    float inv = 1.0f;
    for (int k = 0; k < c->count; ++k) {
        const float v = world->particles.inv_n[idx[k]];
        inv = v < inv ? v : inv;
    }
    return omega * inv;
}

static bool areas_accumulate(sinew_world *world, float inv_h2, float omega)
{
    sinew__areas *a = &world->areas;
    for (int k = 0; k < a->count; ++k) {
        float dlambda;
        if (area_step(world, &a->c[k], a->lambda[k], inv_h2, &dlambda)) {
            const float f = ring_factor(world, &a->c[k], omega);
            a->lambda[k] += f * dlambda;
            area_apply(world, &a->c[k], f * dlambda, true);
        }
    }
    return world->areas.count > 0;
}

static void areas_count_active(sinew_world *world, float inv_h2)
{
    (void)inv_h2;
    const sinew__areas *a = &world->areas;
    for (int k = 0; k < a->count; ++k) {
        const sinew__area *c = &a->c[k];
        const double C = c->sign * ring_area(world, a->idx + c->first, c->count) - c->pressure * c->rest;
        if (C != 0.0) {
            for (int m = 0; m < c->count; ++m) {
                world->particles.inv_n[a->idx[c->first + m]] += 1.0f;
            }
        }
    }
}

static int areas_error(const sinew_world *world, float beyond, float *max_error, double *sum_sq)
{
    const sinew__areas *a = &world->areas;
    float mx = 0.0f;
    double sq = 0.0;
    int above = 0;
    for (int k = 0; k < a->count; ++k) {
        const sinew__area *c = &a->c[k];
        const float e = (float)fabs(c->sign * ring_area(world, a->idx + c->first, c->count) - c->pressure * c->rest);
        mx = !(e <= mx) ? e : mx;
        above += e > beyond;
        sq += (double)e * e;
    }
    *max_error = mx;
    *sum_sq = sq;
    return above;
}

int sinew_world_area_count(const sinew_world *world) { return world != NULL ? world->areas.count : 0; }

sinew_area_id sinew_area_id_at(const sinew_world *world, int index)
{
    sinew_area_id id = SINEW_NULL_ID;
    if (world != NULL && index >= 0 && index < world->areas.count) {
        sinew__store_id(&world->areas.store, index, &id.index1, &id.generation);
    }
    return id;
}

void *sinew_area_user_data(const sinew_world *world, sinew_area_id id)
{
    const int k = world != NULL ? sinew__store_lookup(&world->areas.store, id.index1, id.generation) : -1;
    return k >= 0 ? world->areas.user_data[k] : NULL;
}

sinew_status sinew_area_set_user_data(sinew_world *world, sinew_area_id id, void *user_data)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    const int k = sinew__store_lookup(&world->areas.store, id.index1, id.generation);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_area_set_user_data: stale or null id");
    }
    world->areas.user_data[k] = user_data;
    return SINEW_OK;
}

// ---- snapshots ----------------------------------------------------------------------------------

static void areas_save(const sinew_world *world, sinew__writer *w)
{
    const sinew__areas *a = &world->areas;
    sinew__store_save(w, &a->store, (void *)a, area_fields, a->count);
    sinew__put_u32(w, (uint32_t)a->idx_count);
    sinew__put_column(w, a->idx, sizeof(int32_t), a->idx_count);
}

static bool area_ok(const sinew_world *world, const sinew__area *c)
{
    return c->count >= 3 && c->first >= 0 && c->first <= world->areas.idx_count - c->count && sinew__finite(c->rest) &&
           c->rest > 0.0f && (c->sign == 1.0f || c->sign == -1.0f) && sinew__finite(c->pressure) &&
           c->pressure > 0.0f && (double)c->pressure * c->rest <= SINEW__MAX_AREA && c->stiffness >= 0.0f &&
           c->stiffness <= 1.0f && c->compliance >= 0.0f && sinew__finite(c->compliance);
}

// The rings lie in the pool one after the other, each place of the pool in exactly one ring (the
// pool is packed: removing a ring moves the ones after it). `owner` has room for idx_count.
static bool rings_tile_pool(const sinew__areas *a, uint8_t *owner)
{
    memset(owner, 0, (size_t)a->idx_count);
    long long covered = 0;
    for (int k = 0; k < a->count; ++k) {
        for (int m = a->c[k].first; m < a->c[k].first + a->c[k].count; ++m) {
            if (owner[m] != 0u) {
                return false;
            }
            owner[m] = 1u;
        }
        covered += a->c[k].count;
    }
    return covered == a->idx_count;
}

static bool areas_load(sinew_world *world, sinew__reader *r)
{
    sinew__areas *a = &world->areas;
    const int most = world->max_constraints > 0 ? world->max_constraints : INT32_MAX / 2;
    if (!sinew__store_load(r, world, &a->store, a, area_fields, &a->count, most)) {
        return false;
    }
    const uint32_t pool = sinew__get_u32(r);
    if (!sinew__expect(r, pool <= (uint32_t)(INT32_MAX / 2), "snapshot: the area pool is out of range")) {
        return false;
    }
    if (pool_reserve(world, (int)pool) != SINEW_OK) {
        return sinew__reader_fail(r, SINEW_ERR_OUT_OF_MEMORY, "snapshot: allocating the area pool failed");
    }
    a->idx_count = (int)pool;
    if (!sinew__get_column(r, a->idx, sizeof(int32_t), a->idx_count)) {
        return false;
    }
    for (int m = 0; m < a->idx_count; ++m) {
        if (!sinew__expect(r, a->idx[m] >= 0 && a->idx[m] < world->particles.count,
                           "snapshot: an area names a particle that is not there")) {
            return false;
        }
    }
    for (int k = 0; k < a->count; ++k) {
        if (!sinew__expect(r, area_ok(world, &a->c[k]), "snapshot: an area constraint is out of range")) {
            return false;
        }
        a->soft_count += is_soft(&a->c[k]);
    }
    uint8_t *owner = a->idx_count > 0 ? sinew__alloc(world, (size_t)a->idx_count) : NULL;
    if (a->idx_count > 0 && owner == NULL) {
        return sinew__reader_fail(r, SINEW_ERR_OUT_OF_MEMORY, "snapshot: allocating a check of the area pool failed");
    }
    const bool tiled = a->idx_count == 0 ? a->count == 0 : rings_tile_pool(a, owner);
    sinew__free(world, owner, (size_t)a->idx_count);
    return sinew__expect(r, tiled, "snapshot: the area rings overlap or leave gaps in their pool");
}

static void areas_truncate(sinew_world *world, int count)
{
    while (world->areas.count > count) {
        remove_at(&world->areas, world->areas.count - 1);
    }
}

static int areas_count(const sinew_world *world) { return world->areas.count; }

const sinew__kind_ops sinew__area_kind = {
    .kind = SINEW_KIND_AREA,
    .count = areas_count,
    .begin_substep = areas_begin_substep,
    .project = areas_project,
    .count_active = areas_count_active,
    .accumulate = areas_accumulate,
    .error = areas_error,
    .remove_particle = areas_remove_particle,
    .free = areas_free,
    .save = areas_save,
    .load = areas_load,
    .truncate = areas_truncate,
};
