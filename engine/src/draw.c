// Debug draw: the world handed to a renderer's callbacks (circles, segments, polygons, points), so
// that any renderer can show it without keeping ids: colliders, area rings, links coloured by
// strain, angle limits, pins, particles, contact points. Reads the world; allocates nothing.
#include "world_internal.h"

#define DEFAULT_BOUNDS 1000.0f // metres each side of the origin, when the draw gives no bounds
#define WEDGE_LENGTH 0.3f         // metres of an angle limit's direction
#define NORMAL_LENGTH 0.2f        // metres of a contact normal

static sinew_color rgba(uint8_t r, uint8_t g, uint8_t b, uint8_t a) { return (sinew_color){r, g, b, a}; }

// Green at 1, towards red above (stretched) and blue below (squeezed), fully at +-10%.
static sinew_color strain_color(float ratio)
{
    float t = (ratio - 1.0f) * 10.0f;
    t = !(t > -1.0f) ? -1.0f : (t > 1.0f ? 1.0f : t);
    const float up = t > 0.0f ? t : 0.0f, down = t < 0.0f ? -t : 0.0f, off = up + down;
    return rgba((uint8_t)(40.0f + 210.0f * up), (uint8_t)(200.0f - 150.0f * off), (uint8_t)(60.0f + 190.0f * down), 255);
}

// A half-plane: the part of the bounds on its solid side (3 to 5 vertices, counter-clockwise;
// nothing when it misses them). Clipped in double, so every vertex lies in the bounds even when
// the plane's offset is near FLT_MAX.
static void draw_half_plane(const sinew__collider *c, const sinew_debug_draw *d, sinew_color color)
{
    sinew_vec2 lo = d->bounds_min, hi = d->bounds_max;
    if (!(lo.x < hi.x && lo.y < hi.y && sinew__finite2(lo) && sinew__finite2(hi))) {
        lo = sinew_vec2_make(-DEFAULT_BOUNDS, -DEFAULT_BOUNDS);
        hi = sinew_vec2_make(DEFAULT_BOUNDS, DEFAULT_BOUNDS);
    }
    const sinew_vec2 box[4] = {lo, sinew_vec2_make(hi.x, lo.y), hi, sinew_vec2_make(lo.x, hi.y)};
    double side[4];
    for (int k = 0; k < 4; ++k) { // below 0: solid
        side[k] = (double)c->nx * box[k].x + (double)c->ny * box[k].y - (double)c->offset;
    }
    sinew_vec2 clipped[5];
    int n = 0;
    for (int k = 0; k < 4; ++k) {
        const int next = (k + 1) & 3;
        if (side[k] <= 0.0) {
            clipped[n++] = box[k];
        }
        if ((side[k] <= 0.0) != (side[next] <= 0.0)) { // the edge crosses the plane
            const double t = side[k] / (side[k] - side[next]);
            clipped[n++] = sinew_vec2_make((float)(box[k].x + t * ((double)box[next].x - box[k].x)),
                                           (float)(box[k].y + t * ((double)box[next].y - box[k].y)));
        }
    }
    if (n >= 3) {
        d->polygon(clipped, n, 0.0f, color, d->context);
    }
}

static void draw_colliders(const sinew_world *world, const sinew_debug_draw *d)
{
    if (d->polygon == NULL) {
        return;
    }
    const sinew__colliders *cs = &world->colliders;
    const sinew_color color = rgba(120, 130, 150, 255);
    for (int k = 0; k < cs->count; ++k) {
        const sinew__collider *c = &cs->c[k];
        if (c->type == SINEW_COLLIDER_PLANE) {
            draw_half_plane(c, d, color);
        } else {
            d->polygon(c->v, c->vertex_count, c->radius, color, d->context);
        }
    }
}

// Area rings: a polygon of up to 64 vertices, longer rings as their edges; coloured by area over
// its target.
static void draw_areas(const sinew_world *world, const sinew_debug_draw *d)
{
    const sinew__areas *a = &world->areas;
    const sinew__particles *p = &world->particles;
    for (int k = 0; k < a->count; ++k) {
        const sinew__area *c = &a->c[k];
        const int32_t *idx = a->idx + c->first;
        double area = 0.0;
        for (int m = 0; m < c->count; ++m) {
            const int i = idx[m], j = idx[(m + 1) % c->count];
            area += (double)p->x[i] * p->y[j] - (double)p->x[j] * p->y[i];
        }
        const sinew_color color = strain_color((float)(0.5 * area * c->sign / ((double)c->pressure * c->rest)));
        if (c->count <= 64 && d->polygon != NULL) {
            sinew_vec2 ring[64];
            for (int m = 0; m < c->count; ++m) {
                ring[m] = sinew_vec2_make(p->x[idx[m]], p->y[idx[m]]);
            }
            d->polygon(ring, c->count, 0.0f, color, d->context);
        } else if (c->count > 64 && d->segment != NULL) {
            for (int m = 0; m < c->count; ++m) {
                const int i = idx[m], j = idx[(m + 1) % c->count];
                d->segment(sinew_vec2_make(p->x[i], p->y[i]), sinew_vec2_make(p->x[j], p->y[j]), color, d->context);
            }
        }
    }
}

static void draw_links(const sinew_world *world, const sinew_debug_draw *d)
{
    if (d->segment == NULL) {
        return;
    }
    const sinew__links *l = &world->distances.l;
    const float *x = world->particles.x, *y = world->particles.y;
    for (int k = 0; k < l->count; ++k) {
        const sinew__distance *c = &l->c[k];
        const sinew_vec2 a = sinew_vec2_make(x[c->i], y[c->i]), b = sinew_vec2_make(x[c->j], y[c->j]);
        const float len = sinew_vec2_length(sinew_vec2_sub(b, a));
        const float target = len < c->lo ? c->lo : (len > c->hi ? c->hi : len);
        d->segment(a, b, strain_color(target > 0.0f ? len / target : 1.0f), d->context);
    }
}

// The direction of `v` turned by `angle` radians, WEDGE_LENGTH long.
static sinew_vec2 turned(sinew_vec2 v, float angle)
{
    const float len = sinew_vec2_length(v);
    const float c = cosf(angle), s = sinf(angle), k = len > 0.0f ? WEDGE_LENGTH / len : 0.0f;
    return sinew_vec2_make(k * (c * v.x - s * v.y), k * (s * v.x + c * v.y));
}

static void draw_angles(const sinew_world *world, const sinew_debug_draw *d)
{
    if (d->segment == NULL) {
        return;
    }
    const sinew__angles *a = &world->angles;
    const float *x = world->particles.x, *y = world->particles.y;
    const sinew_color color = rgba(230, 180, 60, 255);
    for (int m = 0; m < a->count; ++m) {
        const sinew__angle *c = &a->c[m];
        const sinew_vec2 joint = sinew_vec2_make(x[c->j], y[c->j]);
        const sinew_vec2 in = sinew_vec2_sub(joint, sinew_vec2_make(x[c->i], y[c->i])); // the turn is from this direction
        d->segment(joint, sinew_vec2_add(joint, turned(in, c->min)), color, d->context);
        d->segment(joint, sinew_vec2_add(joint, turned(in, c->max)), color, d->context);
    }
}

static void draw_pins(const sinew_world *world, const sinew_debug_draw *d)
{
    const sinew__pins *p = &world->pins;
    const float *x = world->particles.x, *y = world->particles.y;
    const sinew_color color = rgba(220, 90, 200, 255);
    for (int k = 0; k < p->count; ++k) {
        const sinew__pin *c = &p->c[k];
        const sinew_vec2 target = sinew_vec2_make(c->tx, c->ty);
        if (d->segment != NULL) {
            d->segment(sinew_vec2_make(x[c->i], y[c->i]), target, color, d->context);
        }
        if (d->point != NULL) {
            d->point(target, color, d->context);
        }
    }
}

static void draw_particles(const sinew_world *world, const sinew_debug_draw *d)
{
    if (d->circle == NULL) {
        return;
    }
    const sinew__particles *p = &world->particles;
    for (int i = 0; i < p->count; ++i) {
        const sinew_color color = p->w[i] == 0.0f ? rgba(150, 150, 150, 255) : rgba(90, 160, 230, 255);
        d->circle(sinew_vec2_make(p->x[i], p->y[i]), p->radius[i], color, d->context);
    }
}

// Contacts that touch now: a point where they meet and the normal from there.
static void draw_contacts(const sinew_world *world, const sinew_debug_draw *d)
{
    const sinew__particles *p = &world->particles;
    const sinew__contacts *k = &world->contacts;
    const sinew_color color = rgba(250, 240, 90, 255);
    for (int m = 0; m < k->l.count; ++m) {
        const int i = k->l.c[m].i, j = k->l.c[m].j;
        const sinew_vec2 a = sinew_vec2_make(p->x[i], p->y[i]), b = sinew_vec2_make(p->x[j], p->y[j]);
        const sinew_vec2 ab = sinew_vec2_sub(b, a);
        const float len = sinew_vec2_length(ab), sum = p->radius[i] + p->radius[j];
        if (!(len < sum * (1.0f + SINEW__TOUCH_SLACK)) || !(len > 0.0f)) {
            continue;
        }
        const sinew_vec2 n = sinew_vec2_scale(ab, 1.0f / len), at = sinew_vec2_mul_add(a, p->radius[i], n);
        if (d->point != NULL) {
            d->point(at, color, d->context);
        }
        if (d->segment != NULL) {
            d->segment(at, sinew_vec2_mul_add(at, NORMAL_LENGTH, n), color, d->context);
        }
    }
    const sinew__collider_contacts *q = &world->collider_contacts;
    for (int m = 0; m < q->count; ++m) {
        const sinew__collider_contact *c = &q->c[m];
        const sinew_vec2 x = sinew_vec2_make(p->x[c->i], p->y[c->i]), n = sinew_vec2_make(c->nx, c->ny);
        if (!(sinew_vec2_dot(n, x) - c->offset < p->radius[c->i] * SINEW__TOUCH_SLACK)) {
            continue;
        }
        const sinew_vec2 at = sinew_vec2_mul_add(x, -p->radius[c->i], n);
        if (d->point != NULL) {
            d->point(at, color, d->context);
        }
        if (d->segment != NULL) {
            d->segment(at, sinew_vec2_mul_add(at, NORMAL_LENGTH, n), color, d->context);
        }
    }
}

sinew_status sinew_world_draw(const sinew_world *world, const sinew_debug_draw *draw)
{
    if (world == NULL || draw == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_world_draw: world and draw are required");
    }
    const uint32_t f = draw->flags;
    if (f & SINEW_DRAW_COLLIDERS) {
        draw_colliders(world, draw);
    }
    if (f & SINEW_DRAW_AREAS) {
        draw_areas(world, draw);
    }
    if (f & SINEW_DRAW_LINKS) {
        draw_links(world, draw);
    }
    if (f & SINEW_DRAW_ANGLES) {
        draw_angles(world, draw);
    }
    if (f & SINEW_DRAW_PINS) {
        draw_pins(world, draw);
    }
    if (f & SINEW_DRAW_PARTICLES) {
        draw_particles(world, draw);
    }
    if (f & SINEW_DRAW_CONTACTS) {
        draw_contacts(world, draw);
    }
    return SINEW_OK;
}
