// Contact events: after each step, the touches that involve a particle with SINEW_PARTICLE_EVENTS
// (with another particle, or with a collider whose events are on), sorted by their pair of ids and
// compared with the last step's: new ones are begin events, gone ones end events. Nothing runs
// until some particle asks for events, so a pile without them pays nothing.
#include <stdlib.h>
#include <string.h>

#include "world_internal.h"

#define SINEW__COLLIDER_KEY (1ull << 63)

static uint64_t key_of(uint32_t index1, uint32_t generation) { return (uint64_t)index1 << 32 | generation; }

static sinew_particle_id particle_of(uint64_t key)
{
    return (sinew_particle_id){(uint32_t)(key >> 32), (uint32_t)key};
}

static sinew_collider_id collider_of(uint64_t key)
{
    return (sinew_collider_id){(uint32_t)(key >> 32) & 0x7fffffffu, (uint32_t)key};
}

static int compare_touches(const void *x, const void *y)
{
    const sinew__touch *a = x, *b = y;
    if (a->a != b->a) {
        return a->a < b->a ? -1 : 1;
    }
    return a->b < b->b ? -1 : (a->b > b->b ? 1 : 0);
}

void sinew__events_free(sinew_world *world)
{
    sinew__free(world, world->events.block, world->events.block_bytes);
    const bool enabled = world->events.enabled;
    memset(&world->events, 0, sizeof world->events);
    world->events.enabled = enabled;
}

// Room for `needed` touches in each array, keeping the last step's.
static bool reserve(sinew_world *world, int needed)
{
    sinew__events *e = &world->events;
    if (needed <= e->capacity) {
        return true;
    }
    const int cap = sinew__grow_capacity(e->capacity, needed);
    sinew__field f[] = {
        {(void **)&e->prev, sizeof(sinew__touch), false, 1, false, NULL},
        {(void **)&e->now, sizeof(sinew__touch), false, 1, false, NULL},
        {(void **)&e->begin, sizeof(sinew_contact_begin_event), false, 1, false, NULL},
        {(void **)&e->end, sizeof(sinew_contact_end_event), false, 1, false, NULL},
    };
    if (cap < 0 || sinew__block_resize(world, &e->block, &e->block_bytes, f, 4, e->prev_count, cap) != SINEW_OK) {
        return false;
    }
    e->capacity = cap;
    return true;
}

void sinew__events_begin_step(sinew_world *world)
{
    if (!world->events.enabled) {
        return;
    }
    sinew__particles *p = &world->particles;
    const float inv_h = 1.0f / world->h_prev;
    for (int i = 0; i < p->count; ++i) {
        p->vx0[i] = p->dx[i] * inv_h;
        p->vy0[i] = p->dy[i] * inv_h;
    }
}

static uint64_t particle_key(const sinew__particles *p, int i)
{
    uint32_t index1, generation;
    sinew__store_id(&p->store, i, &index1, &generation);
    return key_of(index1, generation);
}

// The touches at the end of this step, into e->now; returns how many.
static int find_touches(sinew_world *world)
{
    sinew__events *e = &world->events;
    const sinew__particles *p = &world->particles;
    const float *x = p->x, *y = p->y, *r = p->radius;
    const uint32_t *flags = p->flags;
    int n = 0;
    const sinew__contacts *k = &world->contacts;
    for (int m = 0; m < k->l.count; ++m) {
        int i = k->l.c[m].i, j = k->l.c[m].j;
        if (((flags[i] | flags[j]) & SINEW_PARTICLE_EVENTS) == 0u) {
            continue;
        }
        float dx = x[j] - x[i], dy = y[j] - y[i];
        const float touch = (r[i] + r[j]) * (1.0f + SINEW__TOUCH_SLACK);
        const float d2 = sinew__apart(&dx, &dy);
        if (!(d2 < touch * touch)) {
            continue;
        }
        uint64_t ka = particle_key(p, i), kb = particle_key(p, j);
        if (kb < ka) { // the lower id first, the normal from it
            const uint64_t t = ka;
            ka = kb;
            kb = t;
            const int ti = i;
            i = j;
            j = ti;
            dx = -dx;
            dy = -dy;
        }
        const float len = sqrtf(d2), nx = dx / len, ny = dy / len;
        const float closing = -((p->vx0[j] - p->vx0[i]) * nx + (p->vy0[j] - p->vy0[i]) * ny);
        e->now[n++] = (sinew__touch){ka, kb, x[i] + nx * r[i], y[i] + ny * r[i], nx, ny, closing > 0.0f ? closing : 0.0f};
    }
    const sinew__collider_contacts *q = &world->collider_contacts;
    for (int m = 0; m < q->count; ++m) {
        const sinew__collider_contact *c = &q->c[m];
        const int i = c->i;
        const sinew__collider *shape = &world->colliders.c[q->collider[m]];
        if ((flags[i] & SINEW_PARTICLE_EVENTS) == 0u || shape->events == 0u) {
            continue;
        }
        // dot(n, x) >= offset keeps the particle out, its radius included: touching within the slack.
        if (!(c->nx * x[i] + c->ny * y[i] - c->offset < r[i] * SINEW__TOUCH_SLACK)) {
            continue;
        }
        uint32_t index1, generation;
        sinew__store_id(&world->colliders.store, q->collider[m], &index1, &generation);
        const float closing = -(p->vx0[i] * c->nx + p->vy0[i] * c->ny);
        e->now[n++] = (sinew__touch){particle_key(p, i), SINEW__COLLIDER_KEY | key_of(index1, generation),
                                     x[i] - c->nx * r[i], y[i] - c->ny * r[i], -c->nx, -c->ny,
                                     closing > 0.0f ? closing : 0.0f};
    }
    return n;
}

static sinew_contact_end_event end_of(const sinew__touch *t)
{
    sinew_contact_end_event e = {particle_of(t->a), SINEW_NULL_ID, SINEW_NULL_ID};
    if ((t->b & SINEW__COLLIDER_KEY) != 0u) {
        e.collider = collider_of(t->b);
    } else {
        e.b = particle_of(t->b);
    }
    return e;
}

void sinew__events_update(sinew_world *world)
{
    sinew__events *e = &world->events;
    e->begin_count = e->end_count = 0;
    if (!e->enabled) {
        return;
    }
    const int most = world->contacts.l.count + world->collider_contacts.count;
    if (!reserve(world, most > e->prev_count ? most : e->prev_count)) {
        return; // no memory: no events this step (the last step's touches stay)
    }
    const int n = find_touches(world);
    if (n > 1) {
        qsort(e->now, (size_t)n, sizeof *e->now, compare_touches);
    }
    int a = 0, b = 0;
    while (a < e->prev_count || b < n) {
        const int order = a == e->prev_count ? 1 : (b == n ? -1 : compare_touches(&e->prev[a], &e->now[b]));
        if (order < 0) {
            e->end[e->end_count++] = end_of(&e->prev[a++]);
        } else if (order > 0) {
            const sinew__touch *t = &e->now[b++];
            const sinew_contact_end_event ids = end_of(t);
            e->begin[e->begin_count++] = (sinew_contact_begin_event){ids.a, ids.b, ids.collider, {t->px, t->py},
                                                                      {t->nx, t->ny}, t->speed};
        } else {
            ++a;
            ++b;
        }
    }
    sinew__touch *t = e->prev;
    e->prev = e->now;
    e->now = t;
    e->prev_count = n;
}

sinew_contact_events sinew_world_contact_events(const sinew_world *world)
{
    sinew_contact_events out = {0};
    if (world != NULL) {
        out.begin = world->events.begin;
        out.begin_count = world->events.begin_count;
        out.end = world->events.end;
        out.end_count = world->events.end_count;
    }
    return out;
}

// Snapshots: whether events are on, and the touches of the last step (which decide the next
// step's events).
void sinew__events_save(const sinew_world *world, sinew__writer *w)
{
    const sinew__events *e = &world->events;
    sinew__put_u32(w, e->enabled ? 1u : 0u);
    sinew__put_u32(w, (uint32_t)e->prev_count);
    sinew__put(w, e->prev, sizeof(sinew__touch) * (size_t)e->prev_count);
}

bool sinew__events_load(sinew_world *world, sinew__reader *r)
{
    sinew__events *e = &world->events;
    const uint32_t enabled = sinew__get_u32(r), count = sinew__get_u32(r);
    if (!sinew__expect(r, enabled <= 1u && count <= (uint32_t)((r->size - r->at) / sizeof(sinew__touch)),
                       "snapshot: the contact events are out of range")) {
        return false;
    }
    e->enabled = enabled != 0u;
    if (count > 0u && !reserve(world, (int)count)) {
        return sinew__reader_fail(r, SINEW_ERR_OUT_OF_MEMORY, "snapshot: allocating the contact events failed");
    }
    if (count > 0u && !sinew__get(r, e->prev, sizeof(sinew__touch) * count)) {
        return false;
    }
    for (uint32_t k = 1; k < count; ++k) { // sorted, each pair once: the diff relies on it
        if (!sinew__expect(r, compare_touches(&e->prev[k - 1], &e->prev[k]) < 0, "snapshot: contact touches out of order")) {
            return false;
        }
    }
    e->prev_count = (int)count;
    return true;
}
