// The contact speed: overlap deep enough that pushing it out would launch particles leaves them
// no faster than world->contact_speed (docs/collisions.md, "Contact speed"). Off (INFINITY) by
// default: on, it also bounds impacts faster than the contact speed, and a pile at 8 x 4 settles
// measurably worse (the docs give the figures).
//
// The solve still pushes deep overlap out at full strength: a pile under a soft setting holds
// its weight only through that push (capping it, tried, lets such a pile sink into itself). What
// is bounded is the velocity the push leaves. A contact is deep when its ends overlapped by more
// than contact_speed * h where the sub-step began; every particle of an island (particles joined
// by solved contacts, immovable ones joining nothing) that holds a deep contact leaves the
// sub-step no faster than it was predicted to move, or contact_speed if that is more. Whole
// islands, as a push travels along a chain of shallow contacts too; the bound per particle, not
// per contact, as per-contact bounds add up along a column (the response's per-contact clamp
// already holds a single pair).
#include <math.h>
#include <string.h>

#include "world_internal.h"

// After the response the motion records are dead but for dx0, dy0 (the displacement predicted
// before the solve): x holds a particle's parent in the islands (a union-find), y a deep mark.
static uint32_t parent_of(const sinew__motion *m, uint32_t i)
{
    uint32_t u;
    memcpy(&u, &m[i].x, sizeof u);
    return u;
}

static void set_parent(sinew__motion *m, uint32_t i, uint32_t parent) { memcpy(&m[i].x, &parent, sizeof parent); }

static uint32_t root_of(sinew__motion *m, uint32_t i)
{
    for (uint32_t parent = parent_of(m, i); parent != i; parent = parent_of(m, i)) {
        const uint32_t grand = parent_of(m, parent);
        set_parent(m, i, grand); // path halving
        i = grand;
    }
    return i;
}

// The lower index becomes the root: an island's root is its lowest particle, whatever the order
// the contacts come in (Jacobi's results must not depend on it).
static void join(sinew__motion *m, uint32_t a, uint32_t b)
{
    a = root_of(m, a);
    b = root_of(m, b);
    if (a < b) {
        set_parent(m, b, a);
    } else if (b < a) {
        set_parent(m, a, b);
    }
}

bool sinew__overlap_possible(const sinew_world *world, float h)
{
    const float step = world->contact_speed * h;
    const sinew_step_stats *st = &world->stats;
    return st->kinds[SINEW_KIND_CONTACT].max_error > SINEW__DEEP_WATCH * step ||
           st->kinds[SINEW_KIND_COLLIDER].max_error > SINEW__DEEP_WATCH * step;
}

void sinew__overlap_bound(sinew_world *world, float h)
{
    const float step = world->contact_speed * h;
    sinew__particles *p = &world->particles;
    const sinew__links *l = &world->contacts.l;
    const sinew__collider_contacts *q = &world->collider_contacts;
    sinew__motion *motion = p->motion;
    const float *px = p->px, *py = p->py, *w = p->w;
    float *dx = p->dx, *dy = p->dy;
    for (int i = 0; i < p->count; ++i) {
        set_parent(motion, (uint32_t)i, (uint32_t)i);
        motion[i].y = 0.0f;
    }
    bool any = false;
    const float deep = step;
    for (int m = 0; m < l->count; ++m) {
        const int i = l->c[m].i, j = l->c[m].j;
        const float sx = px[j] - px[i], sy = py[j] - py[i], reach = l->c[m].lo - deep;
        if (reach > 0.0f && sx * sx + sy * sy < reach * reach) {
            motion[i].y = motion[j].y = 1.0f;
            any = true;
        }
        if (w[i] > 0.0f && w[j] > 0.0f) {
            join(motion, (uint32_t)i, (uint32_t)j);
        }
    }
    for (int m = 0; m < q->count; ++m) {
        const sinew__collider_contact *c = &q->c[m];
        if (c->offset - (c->nx * px[c->i] + c->ny * py[c->i]) > deep) {
            motion[c->i].y = 1.0f;
            any = true;
        }
    }
    if (!any) {
        return;
    }
    for (int i = 0; i < p->count; ++i) {
        if (motion[i].y != 0.0f) {
            motion[root_of(motion, (uint32_t)i)].y = 1.0f;
        }
    }
    for (int i = 0; i < p->count; ++i) {
        if (w[i] > 0.0f && motion[root_of(motion, (uint32_t)i)].y != 0.0f) {
            const float predicted = sqrtf(motion[i].dx0 * motion[i].dx0 + motion[i].dy0 * motion[i].dy0);
            const float most = predicted > step ? predicted : step;
            const float d = sqrtf(dx[i] * dx[i] + dy[i] * dy[i]);
            if (d > most) {
                const float s = most / d;
                dx[i] *= s;
                dy[i] *= s;
            }
        }
    }
}
