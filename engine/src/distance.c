// Distance constraints: Juckett's weighted relaxation, in PBD (stiffness) or XPBD (compliance) form.
//
// Allowed lengths are [lo, hi]; the error is C = d - clamp(d, lo, hi). The projection moves
// i by +wi s (xj - xi) and j by -wj s (xj - xi), with s = k (C + a lambda) / (d (wi + wj + a)),
// a = compliance / h^2. With a = 0 this is u = (rest - d)(xj - xi) / d, xi -= u wi / (wi + wj),
// xj += u wj / (wi + wj): a weight-0 end never moves, equal weights move equal distances.
#include <string.h>

#include "world_internal.h"

// Smallest denominator d (wi + wj + a) used; see correction_scale.
#define SINEW__TINY 1e-20f
// Constraints per SIMD block (8 floats: one AVX register, two SSE registers).
#define SINEW__LANES 8

sinew_distance_def sinew_default_distance_def(void)
{
    sinew_distance_def def = {0};
    def.rest = SINEW_REST_CURRENT;
    def.mode = SINEW_DISTANCE_EQUAL;
    def.stiffness = 1.0f;
    return def;
}

static sinew_status distances_resize(sinew_world *world, int new_capacity)
{
    sinew__distances *d = &world->distances;
    sinew__field fields[] = {
        {(void **)&d->c, sizeof(sinew__distance)}, {(void **)&d->soft, sizeof(sinew__softness)},
        {(void **)&d->lambda, sizeof(float)},
        {(void **)&d->perm, sizeof(uint32_t)},     {(void **)&d->mode, sizeof(uint8_t)},
        {(void **)&d->id_slot, sizeof(uint32_t)},  {(void **)&d->block_free, sizeof(uint8_t)},
    };
    sinew_status s = sinew__block_resize(world, &d->block, &d->block_bytes, fields,
                                         (int)(sizeof fields / sizeof fields[0]), d->count, new_capacity);
    if (s == SINEW_OK) {
        d->capacity = new_capacity;
    }
    return s;
}

sinew_status sinew__distances_reserve(sinew_world *world, int capacity)
{
    if (capacity <= world->distances.capacity) {
        return SINEW_OK;
    }
    return distances_resize(world, capacity);
}

void sinew__distances_free(sinew_world *world)
{
    sinew__free(world, world->distances.block, world->distances.block_bytes);
    sinew__id_pool_free(world, &world->distances.ids);
    memset(&world->distances, 0, sizeof world->distances);
    world->distances.ids.free_head = UINT32_MAX;
}

// Checks rest, mode, stiffness and compliance of a def; resolves lo/hi for particle indices i, j.
static sinew_status check_params(const sinew_world *world, const sinew_distance_def *def, int i, int j,
                                 sinew__distance *out, sinew__softness *soft)
{
    if (!sinew__finite(def->rest) || !sinew__finite(def->stiffness) || !sinew__finite(def->compliance)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "distance def: rest, stiffness and compliance must be finite");
    }
    if (def->rest < 0.0f && def->rest != SINEW_REST_CURRENT) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "distance def: rest must be >= 0 or SINEW_REST_CURRENT");
    }
    if (def->stiffness < 0.0f || def->stiffness > 1.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "distance def: stiffness must be in [0, 1]");
    }
    if (def->compliance < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "distance def: compliance must be >= 0");
    }
    float rest = def->rest;
    if (rest == SINEW_REST_CURRENT) {
        const sinew__particles *p = &world->particles;
        float dx = p->x[j] - p->x[i], dy = p->y[j] - p->y[i];
        rest = sqrtf(dx * dx + dy * dy);
        if (!sinew__finite(rest)) {
            return sinew__fail(world, SINEW_ERR_NOT_FINITE, "distance def: current distance overflows");
        }
    }
    switch (def->mode) {
    case SINEW_DISTANCE_EQUAL: out->lo = rest; out->hi = rest; break;
    case SINEW_DISTANCE_MAX_ONLY: out->lo = 0.0f; out->hi = rest; break;
    case SINEW_DISTANCE_MIN_ONLY: out->lo = rest; out->hi = INFINITY; break;
    default: return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "distance def: unknown mode");
    }
    out->i = i;
    out->j = j;
    soft->stiffness = def->stiffness;
    soft->compliance = def->compliance;
    return SINEW_OK;
}

// True when the SINEW__LANES constraints from `first` name 2 * SINEW__LANES distinct particles.
static int is_soft(sinew__softness s) { return s.stiffness != 1.0f || s.compliance > 0.0f; }

static bool block_is_free(const sinew__distance *c)
{
    int32_t idx[2 * SINEW__LANES];
    for (int l = 0; l < SINEW__LANES; ++l) {
        idx[2 * l] = c[l].i;
        idx[2 * l + 1] = c[l].j;
    }
    for (int a = 1; a < 2 * SINEW__LANES; ++a) {
        for (int b = 0; b < a; ++b) {
            if (idx[a] == idx[b]) {
                return false;
            }
        }
    }
    return true;
}

// Recomputes the flag of the block holding constraint k (a partial block is never free).
static void refresh_block(sinew__distances *d, int k)
{
    int first = k - k % SINEW__LANES;
    d->block_free[first / SINEW__LANES] =
        (uint8_t)(first + SINEW__LANES <= d->count && block_is_free(&d->c[first]));
}

sinew_status sinew_distance_create(sinew_world *world, const sinew_distance_def *def, sinew_distance_id *out)
{
    if (world == NULL || def == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_distance_create: world, def and out are required");
    }
    int i = sinew__particle_lookup(world, def->a);
    int j = sinew__particle_lookup(world, def->b);
    if (i < 0 || j < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "distance def: particle a or b is not a live particle");
    }
    if (i == j) {
        return sinew__fail(world, SINEW_ERR_SAME_PARTICLE, "distance def: a and b are the same particle");
    }
    sinew__distance c;
    sinew__softness soft;
    sinew_status s = check_params(world, def, i, j, &c, &soft);
    if (s != SINEW_OK) {
        return s;
    }
    sinew__distances *d = &world->distances;
    if (world->max_constraints > 0 && d->count >= world->max_constraints) {
        return sinew__fail(world, SINEW_ERR_CAPACITY, "sinew_distance_create: max_constraints reached");
    }
    if (d->count == d->capacity) {
        int cap = sinew__grow_capacity(d->capacity, d->count + 1);
        if (cap < 0) {
            return sinew__fail(world, SINEW_ERR_CAPACITY, "sinew_distance_create: too many constraints");
        }
        if (distances_resize(world, cap) != SINEW_OK) {
            return sinew__fail(world, SINEW_ERR_OUT_OF_MEMORY, "sinew_distance_create: growing the store failed");
        }
    }
    s = sinew__id_reserve(world, &d->ids);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_distance_create: growing the id pool failed");
    }
    int k = d->count++;
    d->c[k] = c;
    d->soft[k] = soft;
    d->lambda[k] = 0.0f;
    d->mode[k] = (uint8_t)def->mode;
    d->soft_count += is_soft(soft);
    refresh_block(d, k);
    uint32_t slot = sinew__id_take(&d->ids, (uint32_t)k);
    d->id_slot[k] = slot;
    out->index1 = slot + 1u;
    out->generation = d->ids.generation[slot];
    return SINEW_OK;
}

static void remove_at(sinew__distances *d, int k)
{
    d->soft_count -= is_soft(d->soft[k]);
    sinew__id_release(&d->ids, d->id_slot[k]);
    int last = --d->count;
    if (k != last) {
        d->c[k] = d->c[last];
        d->soft[k] = d->soft[last];
        d->lambda[k] = d->lambda[last];
        d->mode[k] = d->mode[last];
        d->id_slot[k] = d->id_slot[last];
        d->ids.dense[d->id_slot[k]] = (uint32_t)k;
    }
    refresh_block(d, k);
    refresh_block(d, last);
}

static int lookup(const sinew_world *world, sinew_distance_id id)
{
    return world != NULL ? sinew__id_lookup(&world->distances.ids, id.index1, id.generation) : -1;
}

sinew_status sinew_distance_destroy(sinew_world *world, sinew_distance_id id)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_distance_destroy: stale or null id");
    }
    remove_at(&world->distances, k);
    return SINEW_OK;
}

bool sinew_distance_is_valid(const sinew_world *world, sinew_distance_id id) { return lookup(world, id) >= 0; }

sinew_status sinew_distance_get(const sinew_world *world, sinew_distance_id id, sinew_distance_def *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_distance_get: world and out are required");
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_distance_get: stale or null id");
    }
    const sinew__distance *c = &world->distances.c[k];
    out->a = sinew_particle_id_at(world, c->i);
    out->b = sinew_particle_id_at(world, c->j);
    out->mode = (sinew_distance_mode)world->distances.mode[k];
    out->rest = out->mode == SINEW_DISTANCE_MAX_ONLY ? c->hi : c->lo;
    out->stiffness = world->distances.soft[k].stiffness;
    out->compliance = world->distances.soft[k].compliance;
    return SINEW_OK;
}

sinew_status sinew_distance_set(sinew_world *world, sinew_distance_id id, const sinew_distance_def *def)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_distance_set: world and def are required");
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_distance_set: stale or null id");
    }
    sinew__distances *d = &world->distances;
    sinew__distance c;
    sinew__softness soft;
    sinew_status s = check_params(world, def, d->c[k].i, d->c[k].j, &c, &soft);
    if (s != SINEW_OK) {
        return s;
    }
    d->soft_count += is_soft(soft) - is_soft(d->soft[k]);
    d->c[k] = c;
    d->soft[k] = soft;
    d->mode[k] = (uint8_t)def->mode;
    return SINEW_OK;
}

// Error of one constraint: length minus the nearest allowed length.
static inline float distance_error(const sinew__distance *c, const float *x, const float *y)
{
    float dx = x[c->j] - x[c->i], dy = y[c->j] - y[c->i];
    float d = sqrtf(dx * dx + dy * dy);
    float clamped = d < c->lo ? c->lo : (d > c->hi ? c->hi : d);
    return d - clamped;
}

sinew_status sinew_distance_get_error(const sinew_world *world, sinew_distance_id id, float *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_distance_get_error: world and out are required");
    }
    int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_distance_get_error: stale or null id");
    }
    *out = distance_error(&world->distances.c[k], world->particles.x, world->particles.y);
    return SINEW_OK;
}

void sinew__distances_remove_particle(sinew_world *world, int index, int moved_from)
{
    sinew__distances *d = &world->distances;
    for (int k = 0; k < d->count;) {
        sinew__distance *c = &d->c[k];
        if (c->i == index || c->j == index) {
            remove_at(d, k); // the last one moved into k: look at k again
            continue;
        }
        c->i = c->i == moved_from ? index : c->i;
        c->j = c->j == moved_from ? index : c->j;
        ++k;
    }
    for (int k = 0; k < d->count; k += SINEW__LANES) {
        refresh_block(d, k);
    }
}

void sinew__distances_begin_substep(sinew_world *world)
{
    if (world->distances.soft_count > 0) {
        memset(world->distances.lambda, 0, sizeof(float) * (size_t)world->distances.count);
    }
}

// Scale s of the correction (see the top of the file) from plain values, so that the scalar
// path and the SIMD lanes run the same arithmetic; updates lambda in the XPBD form.
SINEW_FORCE_INLINE float correction_scale(float lo, float hi, float stiffness, float compliance, float *restrict lambda,
                                          float dx, float dy, float wi, float wj, float inv_h2, bool xpbd)
{
    float d = sqrtf(dx * dx + dy * dy);
    float clamped = d < lo ? lo : (d > hi ? hi : d);
    float num = d - clamped;
    float denom = wi + wj;
    if (xpbd) {
        float a = compliance * inv_h2;
        num += a * *lambda;
        denom += a;
    }
    // Coincident ends (dx = dy = 0) or total weight 0 (wi = wj = 0): the clamp keeps s finite and
    // the correction, s dx times a weight, is exactly zero. No branch.
    float q = d * denom;
    q = q > SINEW__TINY ? q : SINEW__TINY;
    float s = stiffness * num / q;
    if (xpbd) {
        *lambda -= s * d;
    }
    return s;
}

// Rigid kernels (soft = false) never touch the softness array or lambda.
SINEW_FORCE_INLINE float scale_of(const sinew__distance *restrict c, const sinew__softness *restrict f,
                                  float *restrict lambda, float dx, float dy, float wi, float wj, float inv_h2, bool soft)
{
    return soft ? correction_scale(c->lo, c->hi, f->stiffness, f->compliance, lambda, dx, dy, wi, wj, inv_h2, true)
                : correction_scale(c->lo, c->hi, 1.0f, 0.0f, lambda, dx, dy, wi, wj, inv_h2, false);
}

SINEW_FORCE_INLINE void project_one(const sinew__distance *restrict c, const sinew__softness *restrict f, float *restrict lambda, float *restrict x,
                                   float *restrict y, const float *restrict w, float inv_h2, bool soft)
{
    const int i = c->i, j = c->j;
    float dx = x[j] - x[i], dy = y[j] - y[i];
    float wi = w[i], wj = w[j];
    float s = scale_of(c, f, lambda, dx, dy, wi, wj, inv_h2, soft);
    x[i] += wi * s * dx;
    y[i] += wi * s * dy;
    x[j] -= wj * s * dx;
    y[j] -= wj * s * dy;
}

// A block: SINEW__LANES consecutive constraints, gathered first, then solved, then scattered.
// The eight square roots and divides have no dependency on one another, so the CPU overlaps
// them (they are the expensive part); a sweep of single projections chains each one behind the
// last store. Every lane computes exactly what project_one would: results do not depend on the
// path taken. (Explicit SIMD was measured slower: building vectors from gathered scalars costs
// more shuffles or store-forwarding stalls than the divider time it saves.)
typedef struct block {
    int i[SINEW__LANES], j[SINEW__LANES];
    float dx[SINEW__LANES], dy[SINEW__LANES], wi[SINEW__LANES], wj[SINEW__LANES], s[SINEW__LANES];
} block;

SINEW_FORCE_INLINE void block_solve(block *restrict b, const sinew__distance *restrict c, const sinew__softness *restrict f, float *restrict lambda,
                                    const float *restrict x, const float *restrict y, const float *restrict w,
                                    float inv_h2, bool soft)
{
    for (int l = 0; l < SINEW__LANES; ++l) {
        const int i = c[l].i, j = c[l].j;
        b->i[l] = i;
        b->j[l] = j;
        b->dx[l] = x[j] - x[i];
        b->dy[l] = y[j] - y[i];
        b->wi[l] = w[i];
        b->wj[l] = w[j];
    }
    for (int l = 0; l < SINEW__LANES; ++l) {
        b->s[l] = scale_of(&c[l], &f[l], &lambda[l], b->dx[l], b->dy[l], b->wi[l], b->wj[l], inv_h2, soft);
    }
}

// Gauss-Seidel on a block whose constraints share no particle: projecting them together is
// projecting them one after another, to the bit.
SINEW_FORCE_INLINE void project_block(const sinew__distance *restrict c, const sinew__softness *restrict f, float *restrict lambda, float *restrict x,
                                      float *restrict y, const float *restrict w, float inv_h2, bool soft)
{
    block b;
    block_solve(&b, c, f, lambda, x, y, w, inv_h2, soft);
    for (int l = 0; l < SINEW__LANES; ++l) {
        x[b.i[l]] += b.wi[l] * b.s[l] * b.dx[l];
        y[b.i[l]] += b.wi[l] * b.s[l] * b.dy[l];
        x[b.j[l]] -= b.wj[l] * b.s[l] * b.dx[l];
        y[b.j[l]] -= b.wj[l] * b.s[l] * b.dy[l];
    }
}

// One Gauss-Seidel sweep, specialised at compile time on the XPBD flag.
SINEW_FORCE_INLINE void project_sweep(sinew_world *world, float inv_h2, bool backward, bool shuffled, bool soft)
{
    sinew__distances *d = &world->distances;
    float *restrict x = world->particles.x, *restrict y = world->particles.y;
    const float *restrict w = world->particles.w;
    const sinew__distance *restrict c = d->c;
    const sinew__softness *restrict f = d->soft;
    float *restrict lambda = d->lambda;
    const uint8_t *restrict block_free = d->block_free;
    const int n = d->count;
    const int blocks = (n + SINEW__LANES - 1) / SINEW__LANES;
    if (shuffled) {
        const uint32_t *restrict perm = d->perm;
        for (int k = 0; k < n; ++k) {
            uint32_t m = perm[backward ? n - 1 - k : k];
            project_one(&c[m], &f[m], &lambda[m], x, y, w, inv_h2, soft);
        }
    } else if (backward) {
        for (int b = blocks - 1; b >= 0; --b) {
            const int first = b * SINEW__LANES;
            if (block_free[b]) {
                project_block(&c[first], &f[first], &lambda[first], x, y, w, inv_h2, soft);
                continue;
            }
            const int last = first + SINEW__LANES <= n ? first + SINEW__LANES - 1 : n - 1;
            for (int k = last; k >= first; --k) {
                project_one(&c[k], &f[k], &lambda[k], x, y, w, inv_h2, soft);
            }
        }
    } else {
        for (int b = 0; b < blocks; ++b) {
            const int first = b * SINEW__LANES;
            if (block_free[b]) {
                project_block(&c[first], &f[first], &lambda[first], x, y, w, inv_h2, soft);
                continue;
            }
            const int end = first + SINEW__LANES <= n ? first + SINEW__LANES : n;
            for (int k = first; k < end; ++k) {
                project_one(&c[k], &f[k], &lambda[k], x, y, w, inv_h2, soft);
            }
        }
    }
}

void sinew__distances_project(sinew_world *world, float inv_h2, bool backward, bool shuffled)
{
    if (world->distances.soft_count > 0) {
        project_sweep(world, inv_h2, backward, shuffled, true);
    } else {
        project_sweep(world, inv_h2, backward, shuffled, false);
    }
}

// Both ends get the same factor omega / max(n_i, n_j), so the two corrections stay equal and
// opposite (weighted): momentum is conserved, which per-particle averaging does not do.
SINEW_FORCE_INLINE float jacobi_factor(const float *restrict inv_n, int i, int j, float omega)
{
    float inv = inv_n[i] < inv_n[j] ? inv_n[i] : inv_n[j];
    return omega * inv;
}

SINEW_FORCE_INLINE void accumulate_one(sinew__jacobi_sum *restrict acc, const float *restrict inv_n, int i, int j,
                                       float wi, float wj, float s, float dx, float dy, float omega)
{
    float f = jacobi_factor(inv_n, i, j, omega) * s;
    acc[i].dx += (double)(wi * f * dx);
    acc[i].dy += (double)(wi * f * dy);
    acc[j].dx -= (double)(wj * f * dx);
    acc[j].dy -= (double)(wj * f * dy);
}

// Jacobi reads positions it does not write, so every full block goes through the block path,
// shared particles or not.
SINEW_FORCE_INLINE void accumulate_all(sinew_world *world, float inv_h2, float omega, bool soft)
{
    sinew__distances *d = &world->distances;
    const float *restrict x = world->particles.x, *restrict y = world->particles.y;
    const float *restrict w = world->particles.w;
    sinew__jacobi_sum *restrict acc = world->particles.acc;
    const float *restrict inv_n = world->particles.inv_n;
    const sinew__distance *restrict c = d->c;
    const sinew__softness *restrict f = d->soft;
    float *restrict lambda = d->lambda;
    const int n = d->count;
    const int full = n - n % SINEW__LANES;
    for (int first = 0; first < full; first += SINEW__LANES) {
        block b;
        float lam[SINEW__LANES];
        for (int l = 0; l < SINEW__LANES && soft; ++l) {
            lam[l] = lambda[first + l];
        }
        block_solve(&b, &c[first], &f[first], lam, x, y, w, inv_h2, soft);
        for (int l = 0; l < SINEW__LANES; ++l) {
            accumulate_one(acc, inv_n, b.i[l], b.j[l], b.wi[l], b.wj[l], b.s[l], b.dx[l], b.dy[l], omega);
            if (soft) { // lambda takes the part of its step that is applied
                lambda[first + l] += jacobi_factor(inv_n, b.i[l], b.j[l], omega) * (lam[l] - lambda[first + l]);
            }
        }
    }
    for (int k = full; k < n; ++k) {
        const int i = c[k].i, j = c[k].j;
        float dx = x[j] - x[i], dy = y[j] - y[i];
        float wi = w[i], wj = w[j];
        float lam = soft ? lambda[k] : 0.0f;
        float s = scale_of(&c[k], &f[k], &lam, dx, dy, wi, wj, inv_h2, soft);
        accumulate_one(acc, inv_n, i, j, wi, wj, s, dx, dy, omega);
        if (soft) {
            lambda[k] += jacobi_factor(inv_n, i, j, omega) * (lam - lambda[k]);
        }
    }
}

void sinew__distances_accumulate(sinew_world *world, float inv_h2, float omega)
{
    if (world->distances.soft_count > 0) {
        accumulate_all(world, inv_h2, omega, true);
    } else {
        accumulate_all(world, inv_h2, omega, false);
    }
}

void sinew__distances_count_active(sinew_world *world)
{
    const sinew__distances *d = &world->distances;
    const float *restrict x = world->particles.x, *restrict y = world->particles.y;
    float *restrict n = world->particles.inv_n;
    const sinew__distance *restrict c = d->c;
    for (int k = 0; k < d->count; ++k) {
        // Active when the length is outside [lo, hi]: compared squared, no square root.
        const int i = c[k].i, j = c[k].j;
        float dx = x[j] - x[i], dy = y[j] - y[i];
        float d2 = dx * dx + dy * dy;
        float active = (d2 < c[k].lo * c[k].lo) | (d2 > c[k].hi * c[k].hi) ? 1.0f : 0.0f;
        n[i] += active;
        n[j] += active;
    }
}

void sinew__distances_error(const sinew_world *world, float *max_error, double *sum_sq)
{
    const sinew__distances *d = &world->distances;
    const float *x = world->particles.x, *y = world->particles.y;
    float mx = 0.0f;
    double sq = 0.0;
    for (int k = 0; k < d->count; ++k) {
        float e = fabsf(distance_error(&d->c[k], x, y));
        mx = !(e <= mx) ? e : mx; // NaN wins: stats never hide one
        sq += (double)e * e;
    }
    *max_error = mx;
    *sum_sq = sq;
}
