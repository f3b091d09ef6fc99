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
    sinew__field f[] = {{(void **)&g->cell_start, sizeof(uint32_t), false, 1, false, NULL}};
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

// Threads: the bounds, each particle's cell and the sorted copies run in items of particles
// (GRID_ITEM or more, at most GRID_ITEMS of them, fixed by the particle count; the tests' grain
// shrinks them); the counting sort between them stays on one thread, while the other workers run
// a stage handed to sinew__grid_sort (the step's collider marks). Every result is the one
// thread's: the bounds are minima and maxima (merged in item order), the rest is per particle.
#define GRID_ITEM 1024
#define GRID_ITEMS 256
#define GRID_MIN_ITEMS 2 // a task's least: under 4 items (4,096 particles) all of it runs on one thread

typedef struct grid_bounds {
    float minx, miny, maxx, maxy, maxr, min_dx, min_dy, max_dx, max_dy;
    int m; // colliding particles
} grid_bounds;

typedef struct grid_task {
    sinew_world *world;
    int item;
    grid_bounds *part;
    float minx, miny, inv;
    int nx, ny, m;
} grid_task;

static void merge_bounds(grid_bounds *b, const grid_bounds *o)
{
    b->minx = o->minx < b->minx ? o->minx : b->minx;
    b->maxx = o->maxx > b->maxx ? o->maxx : b->maxx;
    b->miny = o->miny < b->miny ? o->miny : b->miny;
    b->maxy = o->maxy > b->maxy ? o->maxy : b->maxy;
    b->maxr = o->maxr > b->maxr ? o->maxr : b->maxr;
    b->min_dx = o->min_dx < b->min_dx ? o->min_dx : b->min_dx;
    b->max_dx = o->max_dx > b->max_dx ? o->max_dx : b->max_dx;
    b->min_dy = o->min_dy < b->min_dy ? o->min_dy : b->min_dy;
    b->max_dy = o->max_dy > b->max_dy ? o->max_dy : b->max_dy;
    b->m += o->m;
}

// An item's bounds are kept in eight lanes (particle i0 + k in lane k % 8), merged in lane order
// at the end: without the loop-carried minimum and maximum of one running value the loop
// vectorises (it took 3 ns a particle). A select `v < lo ? v : lo` skips NaN as the running one
// did, so the result is the same minimum, up to the sign of a zero (which the grid's origin and
// margin do not see: both zeros give the same cells and the same margin).
#define BOUND_LANES 8
SINEW_FORCE_INLINE void bound_lane(int l, bool in, float x, float y, float r, float dx, float dy, float *restrict minx,
                                   float *restrict miny, float *restrict maxx, float *restrict maxy, float *restrict maxr,
                                   float *restrict min_dx, float *restrict min_dy, float *restrict max_dx,
                                   float *restrict max_dy, int *restrict m)
{
    // A particle that does not collide takes part as NaN, which no select takes.
    x = in ? x : NAN;
    y = in ? y : NAN;
    r = in ? r : NAN;
    dx = in ? dx : NAN;
    dy = in ? dy : NAN;
    minx[l] = x < minx[l] ? x : minx[l];
    maxx[l] = x > maxx[l] ? x : maxx[l];
    miny[l] = y < miny[l] ? y : miny[l];
    maxy[l] = y > maxy[l] ? y : maxy[l];
    maxr[l] = r > maxr[l] ? r : maxr[l];
    min_dx[l] = dx < min_dx[l] ? dx : min_dx[l];
    max_dx[l] = dx > max_dx[l] ? dx : max_dx[l];
    min_dy[l] = dy < min_dy[l] ? dy : min_dy[l];
    max_dy[l] = dy > max_dy[l] ? dy : max_dy[l];
    m[l] += in ? 1 : 0;
}

static void bounds_items(int start, int end, int worker, void *context)
{
    (void)worker;
    const grid_task *t = context;
    const sinew__particles *p = &t->world->particles;
    const float *restrict x = p->x, *restrict y = p->y, *restrict r = p->radius;
    const float *restrict dx = p->dx, *restrict dy = p->dy;
    const uint32_t *restrict flags = p->flags;
    for (int k = start; k < end; ++k) {
        float minx[BOUND_LANES], miny[BOUND_LANES], maxx[BOUND_LANES], maxy[BOUND_LANES], maxr[BOUND_LANES];
        float min_dx[BOUND_LANES], min_dy[BOUND_LANES], max_dx[BOUND_LANES], max_dy[BOUND_LANES];
        int m[BOUND_LANES];
        for (int l = 0; l < BOUND_LANES; ++l) {
            minx[l] = miny[l] = min_dx[l] = min_dy[l] = INFINITY;
            maxx[l] = maxy[l] = max_dx[l] = max_dy[l] = -INFINITY;
            maxr[l] = 0.0f;
            m[l] = 0;
        }
        const int i0 = k * t->item, i1 = i0 + t->item < p->count ? i0 + t->item : p->count;
        for (int q = i0; q < i1; q += BOUND_LANES) {
            if (q + BOUND_LANES <= i1) { // a whole group: a count of eight, which vectorises
                for (int l = 0; l < BOUND_LANES; ++l) {
                    bound_lane(l, (flags[q + l] & SINEW_PARTICLE_COLLIDES) != 0u, x[q + l], y[q + l], r[q + l], dx[q + l], dy[q + l],
                               minx, miny, maxx, maxy, maxr, min_dx, min_dy, max_dx, max_dy, m);
                }
            } else {
                for (int l = 0; q + l < i1; ++l) {
                    bound_lane(l, (flags[q + l] & SINEW_PARTICLE_COLLIDES) != 0u, x[q + l], y[q + l], r[q + l], dx[q + l], dy[q + l],
                               minx, miny, maxx, maxy, maxr, min_dx, min_dy, max_dx, max_dy, m);
                }
            }
        }
        grid_bounds b = {INFINITY, INFINITY, -INFINITY, -INFINITY, 0.0f, INFINITY, INFINITY, -INFINITY, -INFINITY, 0};
        for (int l = 0; l < BOUND_LANES; ++l) {
            const grid_bounds lane = {minx[l], miny[l], maxx[l], maxy[l], maxr[l], min_dx[l], min_dy[l], max_dx[l], max_dy[l], m[l]};
            merge_bounds(&b, &lane);
        }
        t->part[k] = b;
    }
}

// Each particle's cell (UINT32_MAX: it does not collide).
static void cell_items(int start, int end, int worker, void *context)
{
    (void)worker;
    const grid_task *t = context;
    sinew__particles *p = &t->world->particles;
    const float *restrict x = p->x, *restrict y = p->y;
    const uint32_t *restrict flags = p->flags;
    uint32_t *restrict cell_of = p->cell_of;
    const int i0 = start * t->item, i1 = end * t->item < p->count ? end * t->item : p->count;
    const float minx = t->minx, miny = t->miny, inv = t->inv; // (locals: the loop vectorises)
    const int nx = t->nx, ny = t->ny;
    for (int i = i0; i < i1; ++i) {
        const int cx = sinew__grid_cell(x[i], minx, inv, nx), cy = sinew__grid_cell(y[i], miny, inv, ny);
        cell_of[i] = (flags[i] & SINEW_PARTICLE_COLLIDES) != 0u ? (uint32_t)(cy * nx + cx) : UINT32_MAX;
    }
}

// The sorted particles' copies, places [start, end) items.
static void copy_items(int start, int end, int worker, void *context)
{
    (void)worker;
    const grid_task *t = context;
    sinew__particles *p = &t->world->particles;
    float *restrict cx = p->cell_x, *restrict cy = p->cell_y, *restrict cr = p->cell_r, *restrict cw = p->cell_w;
    uint32_t *restrict cgroup = p->cell_group, *restrict cmask = p->cell_mask;
    const float *restrict x = p->x, *restrict y = p->y, *restrict r = p->radius, *restrict weight = p->w;
    const uint32_t *restrict group = p->group, *restrict mask = p->mask, *restrict sorted = p->sorted;
    const int q0 = start * t->item, q1 = end * t->item < t->m ? end * t->item : t->m;
    if (t->world->grid.shape.one_shape) { // (the search broadcasts the rest)
        for (int q = q0; q < q1; ++q) {
            const uint32_t i = sorted[q];
            cx[q] = x[i];
            cy[q] = y[i];
        }
        return;
    }
    for (int q = q0; q < q1; ++q) {
        const uint32_t i = sorted[q];
        cx[q] = x[i];
        cy[q] = y[i];
        cr[q] = r[i];
        cw[q] = weight[i];
        cgroup[q] = group != NULL ? group[i] : p->all_group; // (NULL: every particle has one filter)
        cmask[q] = mask != NULL ? mask[i] : p->all_mask;
    }
}

bool sinew__grid_place(sinew_world *world, int ahead, float extra)
{
    sinew__particles *p = &world->particles;
    sinew__grid *g = &world->grid;
    const int n = p->count;
    grid_task t = {world, sinew__item_size(&world->tasks, n, GRID_ITEM, GRID_ITEMS), NULL, 0.0f, 0.0f, 0.0f, 0, 0, 0};
    // When no particle collides (a rope or a cloth of its builder's defaults: the pass was 18% of
    // a 100 x 100 cloth's step at 8 x 1), the bounds are those of nothing without a pass.
    const int items = sinew__particles_materials(world)->any ? (n + t.item - 1) / t.item : 0;
    grid_bounds part[GRID_ITEMS];
    t.part = part;
    sinew__parallel_for(&world->tasks, bounds_items, items, sinew__min_range(&world->tasks, GRID_MIN_ITEMS), &t);
    grid_bounds b = {INFINITY, INFINITY, -INFINITY, -INFINITY, 0.0f, INFINITY, INFINITY, -INFINITY, -INFINITY, 0};
    for (int k = 0; k < items; ++k) { // in item order: the minima and maxima one pass finds
        merge_bounds(&b, &part[k]);
    }
    float minx = b.minx, miny = b.miny, maxx = b.maxx, maxy = b.maxy, maxr = b.maxr;
    float min_dx = b.min_dx, min_dy = b.min_dy, max_dx = b.max_dx, max_dy = b.max_dy;
    const int m = b.m;
    g->valid = false;
    g->sorted_count = 0;
    g->placed = m;
    g->nx = g->ny = 0;
    g->max_radius = maxr;
    if (m == 0) {
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

    t.minx = minx;
    t.miny = miny;
    t.inv = g->inv_cell;
    t.nx = nx;
    t.ny = ny;
    sinew__parallel_for(&world->tasks, cell_items, items, sinew__min_range(&world->tasks, GRID_MIN_ITEMS), &t);
    return true;
}

// The counting sort of the placed particles by cell (one thread).
static void counting_sort(void *context)
{
    sinew_world *world = context;
    const sinew__particles *p = &world->particles;
    const sinew__grid *g = &world->grid;
    const int n = p->count, cells = g->nx * g->ny;
    const uint32_t *restrict cell_of = p->cell_of;
    uint32_t *restrict start = g->cell_start;
    memset(start, 0, sizeof(uint32_t) * (size_t)(cells + 1));
    for (int i = 0; i < n; ++i) {
        if (cell_of[i] != UINT32_MAX) {
            start[cell_of[i]] += 1u;
        }
    }
    for (int c = 1; c < cells; ++c) { // inclusive prefix sum: start[c] = end of cell c
        start[c] += start[c - 1];
    }
    start[cells] = (uint32_t)g->placed;
    uint32_t *restrict sorted = p->sorted;
    for (int i = n - 1; i >= 0; --i) { // backwards, so each cell lists its particles in order
        if (cell_of[i] != UINT32_MAX) {
            sorted[--start[cell_of[i]]] = (uint32_t)i;
        }
    }
}

void sinew__grid_sort(sinew_world *world, const sinew__job *beside)
{
    sinew__grid *g = &world->grid;
    const int m = g->placed;
    if (m == 0) {
        sinew__parallel_for_beside(&world->tasks, beside, NULL, NULL);
        g->valid = true;
        return;
    }
    sinew__parallel_for_beside(&world->tasks, beside, counting_sort, world);
    g->shape = *sinew__particles_materials(world);
    grid_task t = {world, sinew__item_size(&world->tasks, world->particles.count, GRID_ITEM, GRID_ITEMS), NULL,
                   0.0f, 0.0f, 0.0f, 0, 0, m};
    sinew__parallel_for(&world->tasks, copy_items, (m + t.item - 1) / t.item, sinew__min_range(&world->tasks, GRID_MIN_ITEMS),
                        &t);
    g->sorted_count = m;
    g->valid = true;
}

bool sinew__grid_build(sinew_world *world, int ahead, float extra)
{
    if (!sinew__grid_place(world, ahead, extra)) {
        return false;
    }
    sinew__grid_sort(world, NULL);
    return true;
}
