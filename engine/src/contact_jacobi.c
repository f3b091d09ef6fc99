// Jacobi's passes over the particle contacts, over the workers (see sinew__contact_split).
//
// A pass adds each contact's part to both ends' sums, in contact order, and a particle's sum is a
// chain of additions: any other order changes its bits. The contacts of a search lie in the grid's
// order, so an item of consecutive contacts meets a region of the pile, and only the particles on
// the border of two regions are met by more than one item (about 480 ends for each border of a
// 10,000-ball pile, of 58,000). Each particle belongs to the first item that meets it: that item
// adds to its sum directly, while the later ones hold their parts in slots, in order. Once every
// item ran, the slots are added on one thread, item after item: each sum has then taken its parts
// in contact order, as one thread gives, however the contacts were cut. So the cut may follow the
// workers: one item each, as few borders as there can be (the held parts' additions are the one
// part of a pass left on one thread; measured on a 10,000-ball pile at two workers, 4.8 to 5.2 ms
// a step with 2 items, against 5.1 to 5.5 with 4 and 5.3 to 9.3 with 8).
#include <string.h>

#include "world_internal.h"

#define SPLIT_ITEM_BLOCKS 256 // an item's least: 2,048 contacts; split from 4,096

static void pass_range(sinew_world *world, sinew__jacobi_pass pass, float omega, int from, int to, sinew__ends *e)
{
    switch (pass) {
    case SINEW__JACOBI_ACTIVE:
        sinew__links_count_active_range(world, &world->contacts.l, from, to, e);
        break;
    case SINEW__JACOBI_ACCUMULATE:
        sinew__links_accumulate_range(world, &world->contacts.l, omega, from, to, e);
        break;
    case SINEW__JACOBI_IN_PLAY:
        sinew__contacts_count_range(world, from, to, e);
        break;
    case SINEW__JACOBI_RESPOND:
        sinew__contacts_respond_range(world, from, to, e);
        break;
    }
}

// Item t's contacts: [*from, *to).
static void item_range(const sinew__contact_split *sp, int t, int *from, int *to)
{
    const int per = sp->item_blocks * SINEW__LANES;
    *from = t * per;
    *to = *from + per < sp->upto ? *from + per : sp->upto;
}

typedef struct pass_task {
    sinew_world *world;
    sinew__jacobi_pass pass;
    float omega;
} pass_task;

static void pass_items(int start, int end, int worker, void *context)
{
    (void)worker;
    const pass_task *t = context;
    const sinew__contact_split *sp = &t->world->contacts.split;
    for (int item = start; item < end; ++item) {
        sinew__ends e = {sp->held, sp->slot + sp->slot_start[item]};
        int from, to;
        item_range(sp, item, &from, &to);
        pass_range(t->world, t->pass, t->omega, from, to, &e);
    }
}

// The held parts, added in slot order: item after item, each in contact order.
static void add_held(sinew_world *world, sinew__jacobi_pass pass)
{
    const sinew__contact_split *sp = &world->contacts.split;
    const int n = sp->slot_start[sp->items];
    const int32_t *restrict at = sp->slot_p;
    const float(*restrict v)[4] = (const float(*)[4])sp->slot;
    sinew__particles *p = &world->particles;
    switch (pass) {
    case SINEW__JACOBI_ACTIVE:
    case SINEW__JACOBI_IN_PLAY:
        for (int s = 0; s < n; ++s) {
            p->inv_n[at[s]] += v[s][0];
        }
        break;
    case SINEW__JACOBI_ACCUMULATE:
        for (int s = 0; s < n; ++s) {
            p->acc[at[s]].dx += (double)v[s][0];
            p->acc[at[s]].dy += (double)v[s][1];
        }
        break;
    case SINEW__JACOBI_RESPOND:
        for (int s = 0; s < n; ++s) {
            p->acc[at[s]].dx += (double)v[s][0];
            p->acc[at[s]].dy += (double)v[s][1];
            p->jacobi_x[at[s]] += (double)v[s][2];
            p->jacobi_y[at[s]] += (double)v[s][3];
        }
        break;
    }
}

void sinew__contacts_jacobi(sinew_world *world, sinew__jacobi_pass pass, float omega)
{
    const sinew__contact_split *sp = &world->contacts.split;
    int from = 0;
    if (sp->items > 0 && world->tasks.workers > 1 && sp->upto <= world->contacts.l.count) {
        pass_task t = {world, pass, omega};
        sinew__parallel_for(&world->tasks, pass_items, sp->items, 1, &t);
        add_held(world, pass);
        from = sp->upto;
    }
    pass_range(world, pass, omega, from, world->contacts.l.count, NULL);
}

// Grows *block to hold `count` elements of `size` bytes (with room to spare: the counts move a
// little from search to search); false when there is no memory.
static bool room_for(sinew_world *world, void **block, size_t *bytes, int *capacity, int count, size_t size)
{
    if (count <= *capacity) {
        return true;
    }
    const int64_t want = (int64_t)count + count / 4 + 256;
    if (want > INT32_MAX) {
        return false;
    }
    const int grown = (int)want;
    void *mem = sinew__alloc(world, size * (size_t)grown);
    if (mem == NULL) {
        return false;
    }
    sinew__free(world, *block, *bytes);
    *block = mem;
    *bytes = size * (size_t)grown;
    *capacity = grown;
    return true;
}

// Each block's held ends (the particle's first item is not this one) and each item's count of them.
static void mark_held(int start, int end, int worker, void *context)
{
    (void)worker;
    sinew_world *world = context;
    sinew__contact_split *sp = &world->contacts.split;
    const sinew__distance *restrict c = world->contacts.l.c;
    const float *restrict first = world->particles.inv_n;
    for (int item = start; item < end; ++item) {
        int from, to, count = 0;
        item_range(sp, item, &from, &to);
        const float own = (float)item;
        for (int b = from / SINEW__LANES; b < to / SINEW__LANES; ++b) {
            unsigned held = 0u;
            for (int l = 0; l < SINEW__LANES; ++l) {
                const sinew__distance *k = &c[b * SINEW__LANES + l];
                held |= (first[k->i] != own ? 1u : 0u) << (2 * l);
                held |= (first[k->j] != own ? 1u : 0u) << (2 * l + 1);
            }
            sp->held[b] = (uint16_t)held;
            count += __builtin_popcount(held);
        }
        sp->slot_start[item + 1] = count; // (made a prefix sum on one thread)
    }
}

// Each slot's particle, in the order the passes fill the slots.
static void place_held(int start, int end, int worker, void *context)
{
    (void)worker;
    sinew_world *world = context;
    sinew__contact_split *sp = &world->contacts.split;
    const sinew__distance *restrict c = world->contacts.l.c;
    for (int item = start; item < end; ++item) {
        int from, to, s = sp->slot_start[item];
        item_range(sp, item, &from, &to);
        for (int b = from / SINEW__LANES; b < to / SINEW__LANES; ++b) {
            const unsigned held = sp->held[b];
            for (int l = 0; held != 0u && l < SINEW__LANES; ++l) {
                const sinew__distance *k = &c[b * SINEW__LANES + l];
                if (sinew__ends_held(held, l, false)) {
                    sp->slot_p[s++] = k->i;
                }
                if (sinew__ends_held(held, l, true)) {
                    sp->slot_p[s++] = k->j;
                }
            }
        }
    }
}

void sinew__contacts_split(sinew_world *world)
{
    sinew__contact_split *sp = &world->contacts.split;
    sp->items = 0;
    const int blocks = world->contacts.l.count / SINEW__LANES;
    if (world->tasks.workers < 2 || blocks == 0 || world->particles.inv_n == NULL) {
        return;
    }
    const int item_blocks = sinew__item_size(&world->tasks, blocks, SPLIT_ITEM_BLOCKS, world->tasks.workers);
    const int items = (blocks + item_blocks - 1) / item_blocks;
    if (items < 2 || !room_for(world, &sp->held_block, &sp->held_bytes, &sp->held_capacity, blocks, sizeof(uint16_t))) {
        return;
    }
    sp->held = sp->held_block;
    sp->item_blocks = item_blocks;
    sp->upto = blocks * SINEW__LANES;
    // Each particle's first item, in inv_n (free until the iteration's counts; the items' numbers
    // are exact floats): the contacts taken last to first, so that the first item writes last.
    float *restrict first = world->particles.inv_n;
    const sinew__distance *restrict c = world->contacts.l.c;
    const int per = item_blocks * SINEW__LANES;
    for (int m = sp->upto - 1; m >= 0; --m) {
        first[c[m].i] = first[c[m].j] = (float)(m / per);
    }
    sp->items = items; // (for item_range)
    sinew__parallel_for(&world->tasks, mark_held, items, 1, world);
    sp->slot_start[0] = 0;
    for (int t = 0; t < items; ++t) {
        sp->slot_start[t + 1] += sp->slot_start[t];
    }
    const int slots = sp->slot_start[items] > 0 ? sp->slot_start[items] : 1; // (never a NULL block: parts apart hold none)
    if (!room_for(world, &sp->slot_block, &sp->slot_bytes, &sp->slot_capacity, slots, sizeof(float[4]) + sizeof(int32_t))) {
        sp->items = 0;
        return;
    }
    sp->slot = sp->slot_block;
    sp->slot_p = (int32_t *)(sp->slot + sp->slot_capacity);
    sinew__parallel_for(&world->tasks, place_held, items, 1, world);
    sp->splits += 1;
}

void sinew__contacts_split_free(sinew_world *world)
{
    sinew__contact_split *sp = &world->contacts.split;
    sinew__free(world, sp->held_block, sp->held_bytes);
    sinew__free(world, sp->slot_block, sp->slot_bytes);
    memset(sp, 0, sizeof *sp);
}
