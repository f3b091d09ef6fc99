// Angle constraints: the joint at j between segments i-j and j-k. The angle is the signed turn
// from u = xj - xi to v = xk - xj, theta = atan2(cross(u, v), dot(u, v)) in (-pi, pi], kept in
// [min, max] (or, when min > max, in the range through pi). Outside it, C = theta - the nearest
// limit (wrapped), with gradients grad_i = perp(u) / |u|^2, grad_k = perp(v) / |v|^2 and
// grad_j = -(grad_i + grad_k), perp(u) = (-u.y, u.x): they sum to zero, momentum is kept.
#include <string.h>

#include "world_internal.h"


sinew_angle_def sinew_default_angle_def(void)
{
    sinew_angle_def def = {0};
    def.stiffness = 1.0f;
    return def;
}

static int is_soft(const sinew__angle *a) { return a->stiffness != 1.0f || a->compliance > 0.0f; }

static int angle_fields(void *kind, sinew__field *f)
{
    sinew__angles *a = kind;
    f[0] = (sinew__field){(void **)&a->c, sizeof(sinew__angle), false, 1, false, NULL};
    f[1] = (sinew__field){(void **)&a->lambda, sizeof(float), true, 1, false, NULL};
    f[2] = (sinew__field){(void **)&a->user_data, sizeof(void *), false, 1, false, NULL};
    return 3;
}

static void angles_free(sinew_world *world)
{
    sinew__angles *a = &world->angles;
    sinew__store_free(world, &a->store);
    memset(a, 0, sizeof *a);
}

static sinew_status check_limits(const sinew_world *world, float min, float max)
{
    if (!sinew__finite(min) || !sinew__finite(max)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "angle: limits must be finite");
    }
    if (min < -(float)SINEW_PI || min > (float)SINEW_PI || max < -(float)SINEW_PI || max > (float)SINEW_PI) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "angle: limits must be in [-pi, pi]");
    }
    return SINEW_OK;
}

sinew_status sinew_angle_create(sinew_world *world, const sinew_angle_def *def, sinew_angle_id *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_angle_create: world and def are required");
    }
    const int i = sinew__particle_lookup(world, def->a), j = sinew__particle_lookup(world, def->b),
              k = sinew__particle_lookup(world, def->c);
    if (i < 0 || j < 0 || k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "angle def: a, b and c must be live particles");
    }
    if (i == j || j == k || i == k) {
        return sinew__fail(world, SINEW_ERR_SAME_PARTICLE, "angle def: a, b and c must differ");
    }
    sinew_status s = check_limits(world, def->min, def->max);
    if (s != SINEW_OK) {
        return s;
    }
    if (!sinew__finite(def->stiffness) || !sinew__finite(def->compliance)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "angle def: stiffness and compliance must be finite");
    }
    if (def->stiffness < 0.0f || def->stiffness > 1.0f || def->compliance < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "angle def: stiffness in [0, 1], compliance >= 0");
    }
    sinew__angles *a = &world->angles;
    if (world->max_constraints > 0 && a->count >= world->max_constraints) {
        return sinew__fail(world, SINEW_ERR_CAPACITY, "sinew_angle_create: max_constraints reached");
    }
    s = sinew__store_reserve(world, &a->store, a, angle_fields, a->count, a->count + 1);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_angle_create: growing the store failed");
    }
    const int m = a->count;
    sinew_angle_id id;
    sinew__store_push(&a->store, &a->count, &id.index1, &id.generation);
    if (out != NULL) {
        *out = id;
    }
    a->user_data[m] = def->user_data;
    a->c[m] = (sinew__angle){i, j, k, def->min, def->max, def->stiffness, def->compliance};
    a->lambda[m] = 0.0f;
    a->soft_count += is_soft(&a->c[m]);
    return SINEW_OK;
}

static void remove_at(sinew__angles *a, int k)
{
    a->soft_count -= is_soft(&a->c[k]);
    sinew__store_remove(&a->store, a, angle_fields, &a->count, k);
}

static int lookup(const sinew_world *world, sinew_angle_id id)
{
    return world != NULL ? sinew__store_lookup(&world->angles.store, id.index1, id.generation) : -1;
}

sinew_status sinew_angle_destroy(sinew_world *world, sinew_angle_id id)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_angle_destroy: stale or null id");
    }
    remove_at(&world->angles, k);
    return SINEW_OK;
}

bool sinew_angle_is_valid(const sinew_world *world, sinew_angle_id id) { return lookup(world, id) >= 0; }

// theta at the joint, and the two arms.
static float joint_angle(const sinew_world *world, const sinew__angle *c, float *ux, float *uy, float *vx, float *vy)
{
    const float *x = world->particles.x, *y = world->particles.y;
    *ux = x[c->j] - x[c->i];
    *uy = y[c->j] - y[c->i];
    *vx = x[c->k] - x[c->j];
    *vy = y[c->k] - y[c->j];
    const float theta = atan2f(*ux * *vy - *uy * *vx, *ux * *vx + *uy * *vy);
    return theta == -(float)SINEW_PI ? (float)SINEW_PI : theta; // a fold (cross -0) is +pi: the range is (-pi, pi]
}

// Wraps an angle difference into (-pi, pi].
static float wrap(float d)
{
    d = fmodf(d + (float)SINEW_PI, 2.0f * (float)SINEW_PI);
    d = d < 0.0f ? d + 2.0f * (float)SINEW_PI : d;
    return d - (float)SINEW_PI;
}

// How far theta is outside the allowed range (signed, 0 inside): theta minus the nearest limit.
static float outside(float theta, float min, float max)
{
    const bool inside = min <= max ? (theta >= min && theta <= max) : (theta >= min || theta <= max);
    if (inside) {
        return 0.0f;
    }
    const float to_min = wrap(theta - min), to_max = wrap(theta - max);
    return fabsf(to_min) < fabsf(to_max) ? to_min : to_max;
}

sinew_status sinew_angle_get_angle(const sinew_world *world, sinew_angle_id id, float *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_angle_get_angle: world and out are required");
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_angle_get_angle: stale or null id");
    }
    float ux, uy, vx, vy;
    *out = joint_angle(world, &world->angles.c[k], &ux, &uy, &vx, &vy);
    return SINEW_OK;
}

sinew_status sinew_angle_set_limits(sinew_world *world, sinew_angle_id id, float min, float max)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_angle_set_limits: stale or null id");
    }
    sinew_status s = check_limits(world, min, max);
    if (s == SINEW_OK) {
        world->angles.c[k].min = min;
        world->angles.c[k].max = max;
    }
    return s;
}

static void angles_remove_particle(sinew_world *world, int index, int moved_from)
{
    sinew__angles *a = &world->angles;
    for (int k = 0; k < a->count;) {
        sinew__angle *c = &a->c[k];
        if (c->i == index || c->j == index || c->k == index) {
            remove_at(a, k);
            continue;
        }
        c->i = c->i == moved_from ? index : c->i;
        c->j = c->j == moved_from ? index : c->j;
        c->k = c->k == moved_from ? index : c->k;
        ++k;
    }
}

static void angles_begin_substep(sinew_world *world)
{
    if (world->angles.soft_count > 0) {
        memset(world->angles.lambda, 0, sizeof(float) * (size_t)world->angles.count);
    }
}

typedef struct joint_step {
    float dlambda;           // already times stiffness
    float gix, giy, gkx, gky; // gradients at i and k (j's is minus their sum)
} joint_step;

static bool angle_step(const sinew_world *world, const sinew__angle *c, float lambda, float inv_h2, joint_step *out)
{
    float ux, uy, vx, vy;
    const float theta = joint_angle(world, c, &ux, &uy, &vx, &vy);
    const float C = outside(theta, c->min, c->max);
    const float lu2 = ux * ux + uy * uy, lv2 = vx * vx + vy * vy;
    if (C == 0.0f || !(lu2 > 0.0f) || !(lv2 > 0.0f)) {
        return false;
    }
    out->gix = -uy / lu2;
    out->giy = ux / lu2;
    out->gkx = -vy / lv2;
    out->gky = vx / lv2;
    const float *w = world->particles.w;
    const float gjx = -(out->gix + out->gkx), gjy = -(out->giy + out->gky);
    const float a = c->compliance * inv_h2;
    const float denom = w[c->i] * (out->gix * out->gix + out->giy * out->giy) +
                        w[c->k] * (out->gkx * out->gkx + out->gky * out->gky) + w[c->j] * (gjx * gjx + gjy * gjy) + a;
    if (!(denom > 0.0f)) {
        return false;
    }
    out->dlambda = c->stiffness * (-C - a * lambda) / denom;
    // The step is linearised: when the gradients nearly cancel (arms folding onto each other, or
    // the middle of two immovable ends) it would be huge. No particle moves more than the shorter
    // arm's length in one projection.
    const float gi = sqrtf(out->gix * out->gix + out->giy * out->giy), gk = sqrtf(out->gkx * out->gkx + out->gky * out->gky);
    const float reach = fmaxf(fmaxf(w[c->i] * gi, w[c->k] * gk), w[c->j] * sqrtf(gjx * gjx + gjy * gjy));
    const float limit = sqrtf(fminf(lu2, lv2));
    if (fabsf(out->dlambda) * reach > limit) {
        out->dlambda = out->dlambda > 0.0f ? limit / reach : -limit / reach;
    }
    return true;
}

static void angle_apply(sinew_world *world, const sinew__angle *c, const joint_step *s, float step, bool accumulate)
{
    sinew__particles *p = &world->particles;
    const int idx[3] = {c->i, c->j, c->k};
    const float gx[3] = {s->gix, -(s->gix + s->gkx), s->gkx}, gy[3] = {s->giy, -(s->giy + s->gky), s->gky};
    for (int m = 0; m < 3; ++m) {
        const float f = step * p->w[idx[m]];
        if (accumulate) {
            p->acc[idx[m]].dx += (double)(f * gx[m]);
            p->acc[idx[m]].dy += (double)(f * gy[m]);
        } else {
            p->x[idx[m]] += f * gx[m];
            p->y[idx[m]] += f * gy[m];
        }
    }
}

// `shuffled` does not apply: the angles keep their order.
static void angles_project(sinew_world *world, float inv_h2, bool backward, bool shuffled)
{
    (void)shuffled;
    sinew__angles *a = &world->angles;
    for (int m = 0; m < a->count; ++m) {
        const int k = backward ? a->count - 1 - m : m;
        joint_step s;
        if (angle_step(world, &a->c[k], a->lambda[k], inv_h2, &s)) {
            a->lambda[k] += s.dlambda;
            angle_apply(world, &a->c[k], &s, s.dlambda, false);
        }
    }
}

static bool angles_accumulate(sinew_world *world, float inv_h2, float omega)
{
    sinew__angles *a = &world->angles;
    const float *inv_n = world->particles.inv_n;
    for (int k = 0; k < a->count; ++k) {
        joint_step s;
        const sinew__angle *c = &a->c[k];
        if (angle_step(world, c, a->lambda[k], inv_h2, &s)) {
            float inv = inv_n[c->i] < inv_n[c->j] ? inv_n[c->i] : inv_n[c->j];
            inv = inv_n[c->k] < inv ? inv_n[c->k] : inv;
            a->lambda[k] += omega * inv * s.dlambda;
            angle_apply(world, c, &s, omega * inv * s.dlambda, true);
        }
    }
    return world->angles.count > 0;
}

static void angles_count_active(sinew_world *world, float inv_h2)
{
    (void)inv_h2;
    const sinew__angles *a = &world->angles;
    float *inv_n = world->particles.inv_n;
    for (int k = 0; k < a->count; ++k) {
        const sinew__angle *c = &a->c[k];
        float ux, uy, vx, vy;
        const float active = outside(joint_angle(world, c, &ux, &uy, &vx, &vy), c->min, c->max) != 0.0f ? 1.0f : 0.0f;
        inv_n[c->i] += active;
        inv_n[c->j] += active;
        inv_n[c->k] += active;
    }
}

static int angles_error(const sinew_world *world, float beyond, float *max_error, double *sum_sq)
{
    const sinew__angles *a = &world->angles;
    float mx = 0.0f;
    double sq = 0.0;
    int above = 0;
    for (int k = 0; k < a->count; ++k) {
        const sinew__angle *c = &a->c[k];
        float ux, uy, vx, vy;
        const float e = fabsf(outside(joint_angle(world, c, &ux, &uy, &vx, &vy), c->min, c->max));
        mx = !(e <= mx) ? e : mx;
        above += e > beyond;
        sq += (double)e * e;
    }
    *max_error = mx;
    *sum_sq = sq;
    return above;
}

int sinew_world_angle_count(const sinew_world *world) { return world != NULL ? world->angles.count : 0; }

sinew_angle_id sinew_angle_id_at(const sinew_world *world, int index)
{
    sinew_angle_id id = SINEW_NULL_ID;
    if (world != NULL && index >= 0 && index < world->angles.count) {
        sinew__store_id(&world->angles.store, index, &id.index1, &id.generation);
    }
    return id;
}

void *sinew_angle_user_data(const sinew_world *world, sinew_angle_id id)
{
    const int k = world != NULL ? sinew__store_lookup(&world->angles.store, id.index1, id.generation) : -1;
    return k >= 0 ? world->angles.user_data[k] : NULL;
}

sinew_status sinew_angle_set_user_data(sinew_world *world, sinew_angle_id id, void *user_data)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    const int k = sinew__store_lookup(&world->angles.store, id.index1, id.generation);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_angle_set_user_data: stale or null id");
    }
    world->angles.user_data[k] = user_data;
    return SINEW_OK;
}

// ---- snapshots ----------------------------------------------------------------------------------

static void angles_save(const sinew_world *world, sinew__writer *w)
{
    const sinew__angles *a = &world->angles;
    sinew__store_save(w, &a->store, (void *)a, angle_fields, a->count);
}

static bool angles_load(sinew_world *world, sinew__reader *r)
{
    sinew__angles *a = &world->angles;
    const int most = world->max_constraints > 0 ? world->max_constraints : INT32_MAX / 2;
    if (!sinew__store_load(r, world, &a->store, a, angle_fields, &a->count, most)) {
        return false;
    }
    const int n = world->particles.count;
    const float pi = (float)SINEW_PI;
    for (int m = 0; m < a->count; ++m) {
        const sinew__angle *c = &a->c[m];
        const bool ends = c->i >= 0 && c->i < n && c->j >= 0 && c->j < n && c->k >= 0 && c->k < n && c->i != c->j &&
                          c->j != c->k && c->i != c->k;
        const bool ok = ends && c->min >= -pi && c->min <= pi && c->max >= -pi && c->max <= pi &&
                        c->stiffness >= 0.0f && c->stiffness <= 1.0f && c->compliance >= 0.0f &&
                        sinew__finite(c->compliance);
        if (!sinew__expect(r, ok, "snapshot: an angle constraint is out of range")) {
            return false;
        }
        a->soft_count += is_soft(c);
    }
    return true;
}

static void angles_truncate(sinew_world *world, int count)
{
    while (world->angles.count > count) {
        remove_at(&world->angles, world->angles.count - 1);
    }
}

static int angles_count(const sinew_world *world) { return world->angles.count; }

const sinew__kind_ops sinew__angle_kind = {
    .kind = SINEW_KIND_ANGLE,
    .count = angles_count,
    .begin_substep = angles_begin_substep,
    .project = angles_project,
    .count_active = angles_count_active,
    .accumulate = angles_accumulate,
    .error = angles_error,
    .remove_particle = angles_remove_particle,
    .free = angles_free,
    .save = angles_save,
    .load = angles_load,
    .truncate = angles_truncate,
};
