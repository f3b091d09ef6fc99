// Pin/target constraints. On a weight-0 particle the pin is kinematic: the solver never moves
// such a particle, so the pin carries it along the straight path from its position at the start
// of the step to the target, a fraction per sub-step. On a particle with weight w > 0 it is a
// constraint C = x - target (per axis) with the same PBD/XPBD form as distances:
// x += k w (target - x - a lambda) / (w + a), a = compliance / h^2. lambda, reset every sub-step,
// sums what the pin applied (kg m); lambda / h^2 is its force, held to max_force.
#include <math.h>
#include <string.h>

#include "world_internal.h"

sinew_pin_def sinew_default_pin_def(void)
{
    sinew_pin_def def = {0};
    def.stiffness = 1.0f;
    def.max_force = INFINITY;
    return def;
}

static int pin_fields(void *kind, sinew__field *f)
{
    sinew__pins *p = kind;
    f[0] = (sinew__field){(void **)&p->c, sizeof(sinew__pin), false, 1, false, NULL};
    f[1] = (sinew__field){(void **)&p->lambda, 2 * sizeof(float), true, 1, false, NULL};
    f[2] = (sinew__field){(void **)&p->from, 2 * sizeof(float), true, 1, false, NULL};
    f[3] = (sinew__field){(void **)&p->perm, sizeof(uint32_t), true, 1, false, NULL};
    f[4] = (sinew__field){(void **)&p->user_data, sizeof(void *), false, 1, false, NULL};
    return 5;
}

sinew_status sinew__pins_reserve(sinew_world *world, int capacity)
{
    sinew__pins *p = &world->pins;
    return sinew__store_reserve(world, &p->store, p, pin_fields, p->count, capacity);
}

static void pins_free(sinew_world *world)
{
    sinew__store_free(world, &world->pins.store);
    memset(&world->pins, 0, sizeof world->pins);
}

static sinew_status check_max_force(const sinew_world *world, float max_force)
{
    if (isnan(max_force)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "pin: max_force must not be NaN");
    }
    if (!(max_force > 0.0f)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "pin: max_force must be > 0 (INFINITY: no limit)");
    }
    return SINEW_OK;
}

static sinew_status check_stiffness(const sinew_world *world, float stiffness, float compliance)
{
    if (!sinew__finite(stiffness) || !sinew__finite(compliance)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "pin: stiffness and compliance must be finite");
    }
    if (stiffness < 0.0f || stiffness > 1.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "pin: stiffness must be in [0, 1]");
    }
    if (compliance < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "pin: compliance must be >= 0");
    }
    return SINEW_OK;
}

sinew_status sinew_pin_create(sinew_world *world, const sinew_pin_def *def, sinew_pin_id *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_pin_create: world and def are required");
    }
    int i = sinew__particle_lookup(world, def->particle);
    if (i < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "pin def: particle is not a live particle");
    }
    if (!sinew__finite2(def->target)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "pin def: target must be finite");
    }
    if (!sinew__point_ok(def->target)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "pin def: |target| > SINEW_MAX_COORDINATE");
    }
    sinew_status s = check_stiffness(world, def->stiffness, def->compliance);
    if (s == SINEW_OK) {
        s = check_max_force(world, def->max_force);
    }
    if (s != SINEW_OK) {
        return s;
    }
    sinew__pins *p = &world->pins;
    if (world->max_constraints > 0 && p->count >= world->max_constraints) {
        return sinew__fail(world, SINEW_ERR_CAPACITY, "sinew_pin_create: max_constraints reached");
    }
    s = sinew__store_reserve(world, &p->store, p, pin_fields, p->count, p->count + 1);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_pin_create: growing the store failed");
    }
    const int k = p->count;
    sinew_pin_id id;
    sinew__store_push(&p->store, &p->count, &id.index1, &id.generation);
    if (out != NULL) {
        *out = id;
    }
    p->user_data[k] = def->user_data;
    p->c[k] = (sinew__pin){i, def->target.x, def->target.y, def->stiffness, def->compliance, def->max_force};
    p->lambda[2 * k] = p->lambda[2 * k + 1] = 0.0f;
    p->from[2 * k] = world->particles.x[i];
    p->from[2 * k + 1] = world->particles.y[i];
    return SINEW_OK;
}

static void remove_at(sinew__pins *p, int k)
{
    sinew__store_remove(&p->store, p, pin_fields, &p->count, k);
}

static int lookup(const sinew_world *world, sinew_pin_id id)
{
    return world != NULL ? sinew__store_lookup(&world->pins.store, id.index1, id.generation) : -1;
}

sinew_status sinew_pin_destroy(sinew_world *world, sinew_pin_id id)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_pin_destroy: stale or null id");
    }
    remove_at(&world->pins, k);
    return SINEW_OK;
}

bool sinew_pin_is_valid(const sinew_world *world, sinew_pin_id id) { return lookup(world, id) >= 0; }

sinew_status sinew_pin_set_target(sinew_world *world, sinew_pin_id id, sinew_vec2 target)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_pin_set_target: stale or null id");
    }
    if (!sinew__finite2(target)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_pin_set_target: target must be finite");
    }
    if (!sinew__point_ok(target)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_pin_set_target: |target| > SINEW_MAX_COORDINATE");
    }
    world->pins.c[k].tx = target.x;
    world->pins.c[k].ty = target.y;
    return SINEW_OK;
}

sinew_status sinew_pin_get(const sinew_world *world, sinew_pin_id id, sinew_pin_def *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_pin_get: world and out are required");
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_pin_get: stale or null id");
    }
    const sinew__pin *c = &world->pins.c[k];
    out->particle = sinew_particle_id_at(world, c->i);
    out->target = sinew_vec2_make(c->tx, c->ty);
    out->stiffness = c->stiffness;
    out->compliance = c->compliance;
    out->max_force = c->max_force;
    out->user_data = world->pins.user_data[k];
    return SINEW_OK;
}

sinew_status sinew_pin_set_max_force(sinew_world *world, sinew_pin_id id, float max_force)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_pin_set_max_force: stale or null id");
    }
    sinew_status s = check_max_force(world, max_force);
    if (s == SINEW_OK) {
        world->pins.c[k].max_force = max_force;
    }
    return s;
}

sinew_status sinew_pin_get_force(const sinew_world *world, sinew_pin_id id, sinew_vec2 *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_pin_get_force: world and out are required");
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_pin_get_force: stale or null id");
    }
    const float h = world->h_prev, moves = world->particles.w[world->pins.c[k].i] > 0.0f ? 1.0f : 0.0f;
    const float scale = h > 0.0f ? moves / (h * h) : 0.0f;
    const sinew_vec2 f = sinew_vec2_make(world->pins.lambda[2 * k] * scale, world->pins.lambda[2 * k + 1] * scale);
    if (!sinew__finite2(f)) { // the particle was reset in that sub-step, or the sum overflowed
        return sinew__fail(world, SINEW_ERR_NOT_MEASURED, "sinew_pin_get_force: the last sub-step's sum is not finite");
    }
    *out = f;
    return SINEW_OK;
}

sinew_status sinew_pin_set_stiffness(sinew_world *world, sinew_pin_id id, float stiffness, float compliance)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_pin_set_stiffness: stale or null id");
    }
    sinew_status s = check_stiffness(world, stiffness, compliance);
    if (s != SINEW_OK) {
        return s;
    }
    sinew__pins *p = &world->pins;
    p->c[k].stiffness = stiffness;
    p->c[k].compliance = compliance;
    return SINEW_OK;
}

static void pins_remove_particle(sinew_world *world, int index, int moved_from)
{
    sinew__pins *p = &world->pins;
    for (int k = 0; k < p->count;) {
        if (p->c[k].i == index) {
            remove_at(p, k);
            continue;
        }
        p->c[k].i = p->c[k].i == moved_from ? index : p->c[k].i;
        ++k;
    }
}

void sinew__pins_begin_step(sinew_world *world)
{
    sinew__pins *p = &world->pins;
    for (int k = 0; k < p->count; ++k) {
        p->from[2 * k] = world->particles.x[p->c[k].i];
        p->from[2 * k + 1] = world->particles.y[p->c[k].i];
    }
}

void sinew__pins_move_kinematic(sinew_world *world, float fraction)
{
    sinew__pins *p = &world->pins;
    float *x = world->particles.x, *y = world->particles.y;
    const float *w = world->particles.w;
    for (int k = 0; k < p->count; ++k) {
        const sinew__pin *c = &p->c[k];
        if (w[c->i] == 0.0f) {
            float gx = p->from[2 * k] + fraction * (c->tx - p->from[2 * k]);
            float gy = p->from[2 * k + 1] + fraction * (c->ty - p->from[2 * k + 1]);
            x[c->i] += c->stiffness * (gx - x[c->i]);
            y[c->i] += c->stiffness * (gy - y[c->i]);
        }
    }
}

static void pins_begin_substep(sinew_world *world)
{
    if (world->pins.count > 0) {
        memset(world->pins.lambda, 0, 2 * sizeof(float) * (size_t)world->pins.count);
    }
}

// Correction of pin k along x and y (zero for a kinematic pin); updates lambda.
static inline void pin_correction(const sinew__pin *c, float *lambda, float xi, float yi, float w, float inv_h2,
                                  float *cx, float *cy)
{
    float a = c->compliance * inv_h2;
    float denom = w + a;
    float s = denom > 0.0f ? c->stiffness / denom : 0.0f;
    float dlx = s * ((c->tx - xi) - a * lambda[0]);
    float dly = s * ((c->ty - yi) - a * lambda[1]);
    if (c->max_force < INFINITY) { // the sub-step's sum held to max_force h^2
        const float lx = lambda[0] + dlx, ly = lambda[1] + dly, most = c->max_force / inv_h2;
        const float len = sqrtf(lx * lx + ly * ly);
        if (len > most) {
            const float f = most / len;
            dlx = f * lx - lambda[0];
            dly = f * ly - lambda[1];
        }
    }
    lambda[0] += dlx;
    lambda[1] += dly;
    *cx = w * dlx;
    *cy = w * dly;
}

static void pins_project(sinew_world *world, float inv_h2, bool backward, bool shuffled)
{
    sinew__pins *p = &world->pins;
    float *x = world->particles.x, *y = world->particles.y;
    const float *w = world->particles.w;
    const int n = p->count;
    for (int k = 0; k < n; ++k) {
        int idx = backward ? n - 1 - k : k;
        int m = shuffled ? (int)p->perm[idx] : idx;
        const sinew__pin *c = &p->c[m];
        float cx, cy;
        pin_correction(c, &p->lambda[2 * m], x[c->i], y[c->i], w[c->i], inv_h2, &cx, &cy);
        x[c->i] += cx;
        y[c->i] += cy;
    }
}

static bool pins_accumulate(sinew_world *world, float inv_h2, float omega)
{
    sinew__pins *p = &world->pins;
    const float *x = world->particles.x, *y = world->particles.y;
    const float *w = world->particles.w;
    sinew__jacobi_sum *acc = world->particles.acc;
    bool moves = false;
    for (int k = 0; k < p->count; ++k) {
        const sinew__pin *c = &p->c[k];
        float lam[2] = {p->lambda[2 * k], p->lambda[2 * k + 1]};
        float cx, cy;
        pin_correction(c, lam, x[c->i], y[c->i], w[c->i], inv_h2, &cx, &cy);
        // One end: the factor is omega / n of the particle; lambda takes the applied part.
        float f = omega * world->particles.inv_n[c->i];
        acc[c->i].dx += (double)(f * cx);
        acc[c->i].dy += (double)(f * cy);
        p->lambda[2 * k] += f * (lam[0] - p->lambda[2 * k]);
        p->lambda[2 * k + 1] += f * (lam[1] - p->lambda[2 * k + 1]);
        moves |= w[c->i] > 0.0f;
    }
    return moves;
}

static void pins_count_active(sinew_world *world, float inv_h2)
{
    (void)inv_h2;
    const sinew__pins *p = &world->pins;
    const float *x = world->particles.x, *y = world->particles.y;
    float *n = world->particles.inv_n;
    for (int k = 0; k < p->count; ++k) {
        const sinew__pin *c = &p->c[k];
        n[c->i] += ((x[c->i] != c->tx) | (y[c->i] != c->ty)) ? 1.0f : 0.0f;
    }
}

static int pins_error(const sinew_world *world, float beyond, float *max_error, double *sum_sq)
{
    const sinew__pins *p = &world->pins;
    const float *x = world->particles.x, *y = world->particles.y;
    float mx = 0.0f;
    double sq = 0.0;
    int above = 0;
    for (int k = 0; k < p->count; ++k) {
        const sinew__pin *c = &p->c[k];
        float dx = x[c->i] - c->tx, dy = y[c->i] - c->ty;
        float e2 = dx * dx + dy * dy;
        float e = sqrtf(e2);
        mx = !(e <= mx) ? e : mx;
        above += e > beyond; // NaN wins: stats never hide one
        sq += (double)e2;
    }
    *max_error = mx;
    *sum_sq = sq;
    return above;
}

int sinew_world_pin_count(const sinew_world *world) { return world != NULL ? world->pins.count : 0; }

sinew_pin_id sinew_pin_id_at(const sinew_world *world, int index)
{
    sinew_pin_id id = SINEW_NULL_ID;
    if (world != NULL && index >= 0 && index < world->pins.count) {
        sinew__store_id(&world->pins.store, index, &id.index1, &id.generation);
    }
    return id;
}

void *sinew_pin_user_data(const sinew_world *world, sinew_pin_id id)
{
    const int k = world != NULL ? sinew__store_lookup(&world->pins.store, id.index1, id.generation) : -1;
    return k >= 0 ? world->pins.user_data[k] : NULL;
}

sinew_status sinew_pin_set_user_data(sinew_world *world, sinew_pin_id id, void *user_data)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    const int k = sinew__store_lookup(&world->pins.store, id.index1, id.generation);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_pin_set_user_data: stale or null id");
    }
    world->pins.user_data[k] = user_data;
    return SINEW_OK;
}

// ---- snapshots ----------------------------------------------------------------------------------

static void pins_save(const sinew_world *world, sinew__writer *w)
{
    const sinew__pins *p = &world->pins;
    sinew__store_save(w, &p->store, (void *)p, pin_fields, p->count);
}

static bool pins_load(sinew_world *world, sinew__reader *r)
{
    sinew__pins *p = &world->pins;
    const int most = world->max_constraints > 0 ? world->max_constraints : INT32_MAX / 2;
    if (!sinew__store_load(r, world, &p->store, p, pin_fields, &p->count, most)) {
        return false;
    }
    for (int k = 0; k < p->count; ++k) {
        const sinew__pin *c = &p->c[k];
        const bool ok = c->i >= 0 && c->i < world->particles.count && sinew__coordinate_ok(c->tx) &&
                        sinew__coordinate_ok(c->ty) && c->stiffness >= 0.0f && c->stiffness <= 1.0f &&
                        c->compliance >= 0.0f && sinew__finite(c->compliance) && c->max_force > 0.0f;
        if (!sinew__expect(r, ok, "snapshot: a pin is out of range")) {
            return false;
        }
    }
    return true;
}

static void pins_truncate(sinew_world *world, int count)
{
    while (world->pins.count > count) {
        remove_at(&world->pins, world->pins.count - 1);
    }
}

static int pins_count(const sinew_world *world) { return world->pins.count; }

const sinew__kind_ops sinew__pin_kind = {
    .kind = SINEW_KIND_PIN,
    .count = pins_count,
    .begin_substep = pins_begin_substep,
    .project = pins_project,
    .count_active = pins_count_active,
    .accumulate = pins_accumulate,
    .error = pins_error,
    .remove_particle = pins_remove_particle,
    .free = pins_free,
    .save = pins_save,
    .load = pins_load,
    .truncate = pins_truncate,
};
