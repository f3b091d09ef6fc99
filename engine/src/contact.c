// Particle-particle contacts: found in the grid every sub-step, solved as min-only links by the
// link kernels, then position-based friction.
//
// Gauss-Seidel order: each contact takes the lowest colour that no other contact of its two
// (movable) particles has, and contacts are sorted by colour, so a block of 8 contacts of one
// colour shares no particle that can move and goes through the block path (links.c). Immovable
// particles are written by no one, so they take no colour.
#include <string.h>

#include "world_internal.h"

#define SINEW__OVERFLOW_COLOR 32

static int lowest_clear_bit(uint32_t used)
{
#if defined(__GNUC__)
    return used == UINT32_MAX ? SINEW__OVERFLOW_COLOR : __builtin_ctz(~used);
#else
    int c = 0;
    while (c < 32 && (used & (1u << c)) != 0u) {
        ++c;
    }
    return c;
#endif
}

static sinew_status contacts_resize(sinew_world *world, int new_capacity)
{
    sinew__contacts *k = &world->contacts;
    sinew__field fields[] = {
        {(void **)&k->l.c, sizeof(sinew__distance)},  {(void **)&k->l.block_free, sizeof(uint8_t)},
        {(void **)&k->mu_s, sizeof(float)},           {(void **)&k->mu_k, sizeof(float)},
        {(void **)&k->found, sizeof(sinew__distance)}, {(void **)&k->found_mu_s, sizeof(float)},
        {(void **)&k->found_mu_k, sizeof(float)},     {(void **)&k->found_color, sizeof(uint8_t)},
    };
    sinew_status s = sinew__block_resize(world, &k->block, &k->block_bytes, fields,
                                         (int)(sizeof fields / sizeof fields[0]), k->l.count, new_capacity);
    if (s == SINEW_OK) {
        k->capacity = new_capacity;
    }
    return s;
}

void sinew__contacts_free(sinew_world *world)
{
    sinew__free(world, world->contacts.block, world->contacts.block_bytes);
    memset(&world->contacts, 0, sizeof world->contacts);
}

void sinew__links_adjacency(sinew_world *world)
{
    sinew__distances *d = &world->distances;
    if (!d->adj_dirty) {
        return;
    }
    sinew__particles *p = &world->particles;
    memset(p->link_n, 0, sizeof(uint32_t) * (size_t)p->count);
    for (int k = 0; k < d->l.count; ++k) {
        p->link_n[d->l.c[k].i] += 1u;
        p->link_n[d->l.c[k].j] += 1u;
    }
    uint32_t total = 0;
    for (int i = 0; i < p->count; ++i) {
        p->link_start[i] = total;
        total += p->link_n[i];
        p->link_n[i] = 0u;
    }
    for (int k = 0; k < d->l.count; ++k) {
        const int i = d->l.c[k].i, j = d->l.c[k].j;
        d->adj[p->link_start[i] + p->link_n[i]++] = (uint32_t)j;
        d->adj[p->link_start[j] + p->link_n[j]++] = (uint32_t)i;
    }
    d->adj_dirty = false;
}

static bool linked(const sinew_world *world, int a, int b)
{
    const sinew__particles *p = &world->particles;
    const uint32_t *adj = world->distances.adj + p->link_start[a];
    for (uint32_t k = 0; k < p->link_n[a]; ++k) {
        if (adj[k] == (uint32_t)b) {
            return true;
        }
    }
    return false;
}

typedef struct search {
    sinew_world *world;
    const float *x, *y, *r, *w;
    const uint32_t *group, *mask;
    bool color, skip_linked;
    int count;
    int histogram[SINEW__OVERFLOW_COLOR + 1];
} search;

static void emit(search *s, int a, int b)
{
    const float dx = s->x[b] - s->x[a], dy = s->y[b] - s->y[a], r = s->r[a] + s->r[b];
    const float reach = r * SINEW__CONTACT_REACH;
    const float d2 = dx * dx + dy * dy;
    if (d2 >= reach * reach) {
        return;
    }
    if ((s->w[a] == 0.0f && s->w[b] == 0.0f) || (s->group[a] & s->mask[b]) == 0u ||
        (s->group[b] & s->mask[a]) == 0u) {
        return;
    }
    sinew_world *world = s->world;
    if (s->skip_linked && world->particles.link_n[a] != 0u && linked(world, a, b)) {
        return;
    }
    sinew__contacts *k = &world->contacts;
    if (s->count == k->capacity) {
        int cap = sinew__grow_capacity(k->capacity, s->count + 1);
        k->l.count = s->count; // what the resize keeps
        if (cap < 0 || contacts_resize(world, cap) != SINEW_OK) {
            world->dropped_contacts += 1;
            return;
        }
    }
    const int m = s->count++;
    k->found[m] = (sinew__distance){a, b, r, INFINITY};
    k->found_mu_s[m] = sqrtf(world->particles.mu_s[a] * world->particles.mu_s[b]);
    k->found_mu_k[m] = sqrtf(world->particles.mu_k[a] * world->particles.mu_k[b]);
    if (s->color) {
        uint32_t *colors = world->particles.colors;
        const uint32_t ca = s->w[a] > 0.0f ? colors[a] : 0u, cb = s->w[b] > 0.0f ? colors[b] : 0u;
        const int c = lowest_clear_bit(ca | cb);
        if (c < SINEW__OVERFLOW_COLOR) {
            colors[a] |= s->w[a] > 0.0f ? 1u << c : 0u;
            colors[b] |= s->w[b] > 0.0f ? 1u << c : 0u;
        }
        k->found_color[m] = (uint8_t)c;
        s->histogram[c] += 1;
    }
}

// Pairs of particle a with the particles of cell (cx, cy) from position `from` on.
static void pair_with_cell(search *s, int a, int cx, int cy, bool same_cell_after_a)
{
    const sinew__grid *g = &s->world->grid;
    if (cx < 0 || cx >= g->nx || cy >= g->ny) {
        return;
    }
    const int c = cy * g->nx + cx;
    const uint32_t *sorted = s->world->particles.sorted;
    uint32_t from = g->cell_start[c], to = g->cell_start[c + 1];
    for (uint32_t q = from; q < to; ++q) {
        const int b = (int)sorted[q];
        if (same_cell_after_a && b <= a) {
            continue;
        }
        emit(s, a, b);
    }
}

// Sorts the found contacts by colour into the solved arrays and marks the blocks that lie inside
// one colour (all of them independent).
static void sort_by_color(sinew_world *world, const search *s)
{
    sinew__contacts *k = &world->contacts;
    int offset[SINEW__OVERFLOW_COLOR + 2];
    offset[0] = 0;
    for (int c = 0; c <= SINEW__OVERFLOW_COLOR; ++c) {
        offset[c + 1] = offset[c] + s->histogram[c];
    }
    int cursor[SINEW__OVERFLOW_COLOR + 1];
    memcpy(cursor, offset, sizeof cursor);
    for (int m = 0; m < s->count; ++m) {
        const int to = cursor[k->found_color[m]]++;
        k->l.c[to] = k->found[m];
        k->mu_s[to] = k->found_mu_s[m];
        k->mu_k[to] = k->found_mu_k[m];
    }
    const int blocks = (s->count + SINEW__LANES - 1) / SINEW__LANES;
    int c = 0;
    for (int b = 0; b < blocks; ++b) {
        const int first = b * SINEW__LANES, last = first + SINEW__LANES - 1;
        while (offset[c + 1] <= first) {
            ++c;
        }
        k->l.block_free[b] = (uint8_t)(c < SINEW__OVERFLOW_COLOR && last < offset[c + 1]);
    }
}

void sinew__contacts_find(sinew_world *world, bool color)
{
    sinew__contacts *k = &world->contacts;
    sinew__particles *p = &world->particles;
    const sinew__grid *g = &world->grid;
    k->l.count = 0;
    if (!g->valid || g->sorted_count == 0 || !(g->max_radius > 0.0f)) {
        return;
    }
    search s = {world, p->x, p->y, p->radius, p->w, p->group, p->mask, color, world->skip_linked_pairs, 0, {0}};
    if (color) {
        memset(p->colors, 0, sizeof(uint32_t) * (size_t)p->count);
    }
    // Each cell meets itself and four of its neighbours (right, and the three above), so every
    // pair of adjacent cells is visited once.
    for (int cy = 0; cy < g->ny; ++cy) {
        for (int cx = 0; cx < g->nx; ++cx) {
            const int c = cy * g->nx + cx;
            for (uint32_t q = g->cell_start[c]; q < g->cell_start[c + 1]; ++q) {
                const int a = (int)p->sorted[q];
                pair_with_cell(&s, a, cx, cy, true);
                pair_with_cell(&s, a, cx + 1, cy, false);
                pair_with_cell(&s, a, cx - 1, cy + 1, false);
                pair_with_cell(&s, a, cx, cy + 1, false);
                pair_with_cell(&s, a, cx + 1, cy + 1, false);
            }
        }
    }
    k->l.count = s.count;
    if (color) {
        sort_by_color(world, &s);
        return;
    }
    // Jacobi: the order does not matter; the found arrays become the solved ones.
    sinew__distance *c = k->l.c;
    float *mu_s = k->mu_s, *mu_k = k->mu_k;
    k->l.c = k->found;
    k->mu_s = k->found_mu_s;
    k->mu_k = k->found_mu_k;
    k->found = c;
    k->found_mu_s = mu_s;
    k->found_mu_k = mu_k;
    if (s.count > 0) {
        memset(k->l.block_free, 0, (size_t)(s.count + SINEW__LANES - 1) / SINEW__LANES);
    }
}

void sinew__contacts_friction(sinew_world *world, bool jacobi)
{
    const sinew__contacts *k = &world->contacts;
    sinew__particles *p = &world->particles;
    float *x = p->x, *y = p->y;
    const float *px = p->px, *py = p->py, *w = p->w, *dx0 = p->dx, *dy0 = p->dy;
    for (int m = 0; m < k->l.count; ++m) {
        const int i = k->l.c[m].i, j = k->l.c[m].j;
        const float ws = w[i] + w[j];
        float dx = x[j] - x[i], dy = y[j] - y[i];
        float d = sqrtf(dx * dx + dy * dy);
        if (!(d > 0.0f) || !(ws > 0.0f)) {
            continue;
        }
        float nx = dx / d, ny = dy / d;
        // Relative motion of i against j over the sub-step, and what the solve did to it along the
        // normal: that push (the normal impulse times h) sets the friction cone.
        float rx = (x[i] - px[i]) - (x[j] - px[j]), ry = (y[i] - py[i]) - (y[j] - py[j]);
        float rn = rx * nx + ry * ny;
        float push = (dx0[i] - dx0[j]) * nx + (dy0[i] - dy0[j]) * ny - rn; // approach removed
        if (!(push > 0.0f)) {
            continue;
        }
        float tx = rx - rn * nx, ty = ry - rn * ny;
        float t = sqrtf(tx * tx + ty * ty);
        if (!(t > 0.0f)) {
            continue;
        }
        // Static: cancel it while it is inside the cone mu_s * push; kinetic: take off mu_k * push.
        float f = t < k->mu_s[m] * push ? 1.0f : fminf(k->mu_k[m] * push / t, 1.0f);
        float fi = f * w[i] / ws, fj = f * w[j] / ws;
        if (jacobi) {
            const float share = p->inv_n[i] < p->inv_n[j] ? p->inv_n[i] : p->inv_n[j];
            p->acc[i].dx -= (double)(share * fi * tx);
            p->acc[i].dy -= (double)(share * fi * ty);
            p->acc[j].dx += (double)(share * fj * tx);
            p->acc[j].dy += (double)(share * fj * ty);
        } else {
            x[i] -= fi * tx;
            y[i] -= fi * ty;
            x[j] += fj * tx;
            y[j] += fj * ty;
        }
    }
}

void sinew__contacts_velocity(sinew_world *world, bool jacobi, bool count)
{
    const sinew__contacts *k = &world->contacts;
    sinew__particles *p = &world->particles;
    const float *x = p->x, *y = p->y, *w = p->w;
    float *dx = p->dx, *dy = p->dy;
    for (int m = 0; m < k->l.count; ++m) {
        const int i = k->l.c[m].i, j = k->l.c[m].j;
        float nx = x[j] - x[i], ny = y[j] - y[i];
        float d = sqrtf(nx * nx + ny * ny);
        float ws = w[i] + w[j];
        if (!(d > 0.0f) || !(ws > 0.0f)) {
            continue;
        }
        nx /= d;
        ny /= d;
        float before = (p->dx_pre[j] - p->dx_pre[i]) * nx + (p->dy_pre[j] - p->dy_pre[i]) * ny;
        float after = (dx[j] - dx[i]) * nx + (dy[j] - dy[i]) * ny;
        float limit = before > 0.0f ? before : 0.0f;
        if (!(after > limit)) {
            continue;
        }
        if (count) {
            p->inv_n[i] += 1.0f;
            p->inv_n[j] += 1.0f;
            continue;
        }
        float excess = (after - limit) / ws;
        if (jacobi) {
            excess *= p->inv_n[i] < p->inv_n[j] ? p->inv_n[i] : p->inv_n[j];
            p->acc[i].dx += (double)(w[i] * excess * nx);
            p->acc[i].dy += (double)(w[i] * excess * ny);
            p->acc[j].dx -= (double)(w[j] * excess * nx);
            p->acc[j].dy -= (double)(w[j] * excess * ny);
        } else {
            dx[i] += w[i] * excess * nx;
            dy[i] += w[i] * excess * ny;
            dx[j] -= w[j] * excess * nx;
            dy[j] -= w[j] * excess * ny;
        }
    }
}
