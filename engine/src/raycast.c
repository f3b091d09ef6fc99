// Ray casts: a segment from origin along translation against every particle (a circle of its
// radius) and every collider (the collider sweep with a zero radius), closest first or each hit
// through a callback. The particles are tested one by one in index order (a loop the compiler
// keeps simple); colliders are few.
#include "world_internal.h"

sinew_ray_filter sinew_default_ray_filter(void)
{
    sinew_ray_filter f;
    f.group = UINT32_MAX;
    f.mask = UINT32_MAX;
    f.particles = true;
    f.colliders = true;
    return f;
}

// First t in [0, 1] at which the segment o + t d enters the circle (c, r), from outside: false when
// it does not (it misses, moves away, or starts inside).
static bool enter_circle(sinew_vec2 o, sinew_vec2 d, sinew_vec2 c, float r, float *t)
{
    const double fx = (double)o.x - c.x, fy = (double)o.y - c.y;
    const double a = (double)d.x * d.x + (double)d.y * d.y, b = fx * d.x + fy * d.y;
    const double k = fx * fx + fy * fy - (double)r * r;
    if (!(k > 0.0) || !(a > 0.0) || b >= 0.0) {
        return false; // starts inside or on it, no motion, or moving away
    }
    const double disc = b * b - a * k;
    if (disc < 0.0) {
        return false;
    }
    const double root = (-b - sqrt(disc)) / a;
    if (!(root >= 0.0 && root <= 1.0)) {
        return false;
    }
    *t = (float)root;
    return true;
}

static bool passes(const sinew_ray_filter *f, uint32_t group, uint32_t mask)
{
    return (f->mask & group) != 0u && (mask & f->group) != 0u;
}

// Calls `report` for each hit in order (particles by index, then colliders); it returns the
// largest fraction still wanted (a hit beyond is skipped), or a negative value to stop.
typedef float (*hit_fn)(const sinew_ray_hit *hit, void *ctx);

static void cast(const sinew_world *world, sinew_vec2 o, sinew_vec2 d, const sinew_ray_filter *f, hit_fn report,
                 void *ctx)
{
    float limit = 1.0f;
    if (f->particles) {
        const sinew__particles *p = &world->particles;
        for (int i = 0; i < p->count; ++i) {
            float t;
            if (p->radius[i] > 0.0f && passes(f, sinew__particle_group(p, i), sinew__particle_mask(p, i)) &&
                enter_circle(o, d, sinew_vec2_make(p->x[i], p->y[i]), p->radius[i], &t) && t <= limit) {
                sinew_ray_hit h = {0};
                h.hit = true;
                h.particle = sinew_particle_id_at(world, i);
                h.fraction = t;
                h.point = sinew_vec2_mul_add(o, t, d);
                // (A particle so small that its squared radius underflows still gives a unit normal.)
                const sinew_vec2 out = sinew_vec2_normalize(sinew_vec2_sub(h.point, sinew_vec2_make(p->x[i], p->y[i])));
                h.normal = out.x != 0.0f || out.y != 0.0f ? out : sinew_vec2_make(0.0f, 1.0f);
                limit = report(&h, ctx);
                if (limit < 0.0f) {
                    return;
                }
            }
        }
    }
    if (f->colliders) {
        const sinew__colliders *cs = &world->colliders;
        const sinew_vec2 end = sinew_vec2_add(o, d);
        for (int k = 0; k < cs->count; ++k) {
            const sinew__collider *c = &cs->c[k];
            sinew__plane_hit plane;
            float t;
            if (passes(f, c->group, c->mask) && sinew__collider_sweep(c, o, end, 0.0f, &plane, &t) && t <= limit) {
                sinew_ray_hit h = {0};
                h.hit = true;
                h.collider = sinew_collider_id_at(world, k);
                h.fraction = t;
                h.point = sinew_vec2_mul_add(o, t, d);
                h.normal = sinew_vec2_make(plane.nx, plane.ny);
                limit = report(&h, ctx);
                if (limit < 0.0f) {
                    return;
                }
            }
        }
    }
}

static sinew_status check_ray(const sinew_world *world, sinew_vec2 origin, sinew_vec2 translation, const char *who)
{
    if (!sinew__finite2(origin) || !sinew__finite2(translation)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, who);
    }
    if (!sinew__point_ok(origin) || !sinew__point_ok(sinew_vec2_add(origin, translation))) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, who);
    }
    return SINEW_OK;
}

// Keeps the closest hit; a tie keeps the earlier (lower index, particles before colliders).
static float keep_closest(const sinew_ray_hit *hit, void *ctx)
{
    sinew_ray_hit *best = ctx;
    if (!best->hit || hit->fraction < best->fraction) {
        *best = *hit;
    }
    return best->fraction;
}

sinew_status sinew_world_cast_ray(const sinew_world *world, sinew_vec2 origin, sinew_vec2 translation,
                                  const sinew_ray_filter *filter, sinew_ray_hit *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_world_cast_ray: world and out are required");
    }
    const sinew_status s = check_ray(world, origin, translation,
                                     "sinew_world_cast_ray: origin and translation finite, within SINEW_MAX_COORDINATE");
    if (s != SINEW_OK) {
        return s;
    }
    const sinew_ray_filter f = filter != NULL ? *filter : sinew_default_ray_filter();
    sinew_ray_hit best = {0};
    cast(world, origin, translation, &f, keep_closest, &best);
    *out = best;
    return SINEW_OK;
}

typedef struct user_callback {
    sinew_ray_fn fn;
    void *context;
    float limit;
} user_callback;

// The user's answer, as cast() wants it: -1 ignores the hit (the limit stays), 0 stops, else the
// new limit.
static float call_user(const sinew_ray_hit *hit, void *ctx)
{
    user_callback *u = ctx;
    const float answer = u->fn(hit, u->context);
    if (answer == 0.0f) {
        return -1.0f;
    }
    if (answer > 0.0f && answer < u->limit) {
        u->limit = answer;
    }
    return u->limit;
}

sinew_status sinew_world_cast_ray_all(const sinew_world *world, sinew_vec2 origin, sinew_vec2 translation,
                                      const sinew_ray_filter *filter, sinew_ray_fn fn, void *context)
{
    if (world == NULL || fn == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_world_cast_ray_all: world and fn are required");
    }
    const sinew_status s = check_ray(world, origin, translation,
                                     "sinew_world_cast_ray_all: origin and translation finite, within SINEW_MAX_COORDINATE");
    if (s != SINEW_OK) {
        return s;
    }
    const sinew_ray_filter f = filter != NULL ? *filter : sinew_default_ray_filter();
    user_callback u = {fn, context, 1.0f};
    cast(world, origin, translation, &f, call_user, &u);
    return SINEW_OK;
}
