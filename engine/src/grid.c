// The uniform grid: colliding particles sorted by cell with a counting sort.
// Cell size is the contact reach of two of the largest particles plus twice the motion margin
// (see sinew__grid_build), so two particles that can touch before the contacts are found
// again are in the same or adjacent cells. The number of cells is capped near two per particle:
// a particle flung far away makes the cells larger (more candidates per cell), never the grid huge.
#include <string.h>

#include "world_internal.h"

// Smallest cell (m): its inverse must stay finite in float.
#define SINEW__MIN_CELL 1e-30

static bool grid_reserve(sinew_world *world, int cells)
{
    sinew__grid *g = &world->grid;
    if (cells <= g->capacity) {
        return true;
    }
    int cap = sinew__grow_capacity(g->capacity, cells);
    if (cap < 0) {
        return false;
    }
    sinew__field f[] = {{(void **)&g->cell_start, sizeof(uint32_t), false, 1}};
    if (sinew__block_resize(world, &g->block, &g->block_bytes, f, 1, 0, cap + 1) != SINEW_OK) {
        return false;
    }
    g->capacity = cap;
    return true;
}

void sinew__grid_free(sinew_world *world)
{
    sinew__free(world, world->grid.block, world->grid.block_bytes);
    memset(&world->grid, 0, sizeof world->grid);
}

bool sinew__grid_build(sinew_world *world, int ahead, float extra)
{
    sinew__particles *p = &world->particles;
    sinew__grid *g = &world->grid;
    const int n = p->count;
    const float *restrict x = p->x, *restrict y = p->y, *restrict r = p->radius;
    const float *restrict dx = p->dx, *restrict dy = p->dy;
    const uint32_t *restrict flags = p->flags;
    float minx = INFINITY, miny = INFINITY, maxx = -INFINITY, maxy = -INFINITY, maxr = 0.0f;
    float min_dx = INFINITY, min_dy = INFINITY, max_dx = -INFINITY, max_dy = -INFINITY;
    int m = 0;
    for (int i = 0; i < n; ++i) {
        if ((flags[i] & SINEW_PARTICLE_COLLIDES) != 0u) {
            minx = x[i] < minx ? x[i] : minx;
            maxx = x[i] > maxx ? x[i] : maxx;
            miny = y[i] < miny ? y[i] : miny;
            maxy = y[i] > maxy ? y[i] : maxy;
            maxr = r[i] > maxr ? r[i] : maxr;
            min_dx = dx[i] < min_dx ? dx[i] : min_dx;
            max_dx = dx[i] > max_dx ? dx[i] : max_dx;
            min_dy = dy[i] < min_dy ? dy[i] : min_dy;
            max_dy = dy[i] > max_dy ? dy[i] : max_dy;
            m += 1;
        }
    }
    g->valid = false;
    g->sorted_count = 0;
    g->nx = g->ny = 0;
    g->max_radius = maxr;
    if (m == 0) {
        g->valid = true;
        return true;
    }
    // The motion margin: over `ahead` more sub-steps like this one, two particles close in by at
    // most |d_a - d_b| per sub-step <= |d_a - mid| + |d_b - mid| for any common `mid`, and the
    // midrange keeps the largest |d - mid| small when everything moves together. One margin for
    // all: a pushed particle moves about as fast as what pushed it, so a resting particle's own
    // motion is no bound. Rest (d = 0) is in the range, for the static colliders a particle can
    // stop on. Gravity and forces add what is common to all movable particles, plus their spread,
    // which `extra` (m) bounds. Contacts found with it cover the sub-steps ahead.
    min_dx = min_dx < 0.0f ? min_dx : 0.0f;
    max_dx = max_dx > 0.0f ? max_dx : 0.0f;
    min_dy = min_dy < 0.0f ? min_dy : 0.0f;
    max_dy = max_dy > 0.0f ? max_dy : 0.0f;
    const float half_x = 0.5f * (max_dx - min_dx), half_y = 0.5f * (max_dy - min_dy);
    // Larger cells would cost more than searching again: the margin covers as many of the
    // sub-steps ahead as fit under the limit, and the contacts are found again after those.
    const float spread = sqrtf(half_x * half_x + half_y * half_y);
    while (ahead > 0 && !(spread * (float)ahead + extra <= SINEW__MARGIN_LIMIT * maxr)) {
        ahead -= 1;
    }
    const float largest = ahead > 0 ? spread * (float)ahead + extra : 0.0f;
    g->ahead = ahead;
    g->margin = largest;
    const double w = (double)maxx - minx, h = (double)maxy - miny;
    const double limit = 2.0 * m + 64.0;
    double cell = maxr > 0.0f ? 2.0 * maxr * SINEW__CONTACT_REACH + 2.0 * largest : fmax(sqrt(w * h / m), 1e-3);
    // Denormal or tiny radii: a cell under SINEW__MIN_CELL would make inv_cell overflow in float.
    cell = fmax(cell, SINEW__MIN_CELL);
    double nxd = floor(w / cell) + 1.0, nyd = floor(h / cell) + 1.0;
    while (nxd * nyd > limit) {
        cell *= fmax(sqrt(nxd * nyd / limit), 1.01);
        nxd = floor(w / cell) + 1.0;
        nyd = floor(h / cell) + 1.0;
    }
    const int nx = (int)nxd, ny = (int)nyd, cells = nx * ny;
    if (!grid_reserve(world, cells)) {
        g->ahead = 0;
        return false;
    }
    g->nx = nx;
    g->ny = ny;
    g->minx = minx;
    g->miny = miny;
    g->cell = (float)cell;
    g->inv_cell = (float)(1.0 / cell);

    uint32_t *restrict start = g->cell_start;
    uint32_t *restrict cell_of = p->cell_of;
    memset(start, 0, sizeof(uint32_t) * (size_t)(cells + 1));
    const float inv = g->inv_cell;
    for (int i = 0; i < n; ++i) {
        if ((flags[i] & SINEW_PARTICLE_COLLIDES) == 0u) {
            cell_of[i] = UINT32_MAX;
            continue;
        }
        const int cx = sinew__grid_cell(x[i], minx, inv, nx), cy = sinew__grid_cell(y[i], miny, inv, ny);
        const uint32_t c = (uint32_t)(cy * nx + cx);
        cell_of[i] = c;
        start[c] += 1u;
    }
    for (int c = 1; c < cells; ++c) { // inclusive prefix sum: start[c] = end of cell c
        start[c] += start[c - 1];
    }
    start[cells] = (uint32_t)m;
    uint32_t *restrict sorted = p->sorted;
    for (int i = n - 1; i >= 0; --i) { // backwards, so each cell lists its particles in order
        if (cell_of[i] != UINT32_MAX) {
            sorted[--start[cell_of[i]]] = (uint32_t)i;
        }
    }
    float *restrict cx = p->cell_x, *restrict cy = p->cell_y, *restrict cr = p->cell_r, *restrict cw = p->cell_w;
    uint32_t *restrict cgroup = p->cell_group, *restrict cmask = p->cell_mask;
    const float *restrict weight = p->w;
    const uint32_t *restrict group = p->group, *restrict mask = p->mask;
    for (int q = 0; q < m; ++q) {
        const uint32_t i = sorted[q];
        cx[q] = x[i];
        cy[q] = y[i];
        cr[q] = r[i];
        cw[q] = weight[i];
        cgroup[q] = group[i];
        cmask[q] = mask[i];
    }
    g->sorted_count = m;
    g->valid = true;
    return true;
}
