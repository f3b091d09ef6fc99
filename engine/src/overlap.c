// The contact speed: a pile compressed deep into overlap, then solved stiffly, must not launch
// its particles (docs/collisions.md, "Contact speed").
//
// A contact is deep when its ends overlap by more than contact_speed * h. Deep contacts alone are
// common and harmless: an impact makes a few, a pile at 4 x 1 holds 15% of its contacts deep, and
// the response's clamp keeps each pair from parting faster than it met. A launch needs long chains
// of them, a column whose overlaps all come free at once, and chains span a pile once deep contacts
// are about a third of its contacts (bond percolation on a pile's contact network, about six
// contacts per particle). So a world starts watching when more than SINEW__DEEP_SHARE of its
// contacts are deep at the end of a step, and stops once none is. While it watches, every movable
// colliding particle leaves a sub-step no faster than it was predicted to move, or than the contact
// speed if that is more (one that touched nothing moves as predicted, and is left alone). The solve still pushes overlap out
// at full strength (a soft pile holds its weight only by that push: capping it, tried, let 2,000
// balls at 1 x 1 sink into one another); only the velocity the push leaves is bounded.
#include <math.h>

#include "world_internal.h"

void sinew__overlap_watch(sinew_world *world, int deep, int contacts)
{
    world->deep_watch = deep > 0 && (world->deep_watch || (float)deep > SINEW__DEEP_SHARE * (float)contacts);
}

// Particles per task item, and the fewest items a task takes (the pass is light).
#define BOUND_ITEM 1024
#define BOUND_MIN_ITEMS 8

typedef struct bound_task {
    sinew_world *world;
    float step;
} bound_task;

static void bound_items(int start, int end, int worker, void *context)
{
    (void)worker;
    const bound_task *t = context;
    sinew__particles *p = &t->world->particles;
    const sinew__motion *restrict motion = p->motion;
    const uint32_t *restrict flags = p->flags;
    const float *restrict w = p->w;
    float *restrict dx = p->dx, *restrict dy = p->dy;
    const int last = end * BOUND_ITEM < p->count ? end * BOUND_ITEM : p->count;
    for (int i = start * BOUND_ITEM; i < last; ++i) {
        const float predicted = sqrtf(motion[i].dx0 * motion[i].dx0 + motion[i].dy0 * motion[i].dy0);
        const float most = predicted > t->step ? predicted : t->step;
        const float d = sqrtf(dx[i] * dx[i] + dy[i] * dy[i]);
        if ((flags[i] & SINEW_PARTICLE_COLLIDES) != 0u && w[i] > 0.0f && d > most) {
            const float s = most / d;
            dx[i] *= s;
            dy[i] *= s;
        }
    }
}

void sinew__overlap_bound(sinew_world *world, float h)
{
    bound_task t = {world, world->contact_speed * h};
    const int items = (world->particles.count + BOUND_ITEM - 1) / BOUND_ITEM;
    sinew__parallel_for(&world->tasks, bound_items, items, sinew__min_range(&world->tasks, BOUND_MIN_ITEMS), &t);
}
