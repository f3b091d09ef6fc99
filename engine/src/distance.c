// Distance constraints: ids, validation and storage. They are solved as links (links.c):
// Juckett's weighted relaxation in PBD (stiffness) or XPBD (compliance) form.
#include <string.h>

#include "world_internal.h"

static int is_soft(sinew__softness s) { return s.stiffness != 1.0f || s.compliance > 0.0f; }

sinew_distance_def sinew_default_distance_def(void)
{
    sinew_distance_def def = {0};
    def.rest = SINEW_REST_CURRENT;
    def.mode = SINEW_DISTANCE_EQUAL;
    def.stiffness = 1.0f;
    return def;
}

static int distance_fields(void *kind, sinew__field *f)
{
    sinew__distances *d = kind;
    f[0] = (sinew__field){(void **)&d->l.c, sizeof(sinew__distance), false, 1, false, NULL};
    f[1] = (sinew__field){(void **)&d->l.soft, sizeof(sinew__softness), false, 1, false, NULL};
    f[2] = (sinew__field){(void **)&d->l.lambda, sizeof(float), true, 1, false, NULL};
    f[3] = (sinew__field){(void **)&d->l.block_free, sizeof(uint8_t), true, SINEW__LANES, false, NULL}; // refreshed on change
    f[4] = (sinew__field){(void **)&d->mode, sizeof(uint8_t), false, 1, false, NULL};
    static const float unstrained = 1.0f;
    f[5] = (sinew__field){(void **)&d->tear, sizeof(float), false, 1, !d->with_tears, NULL};
    f[6] = (sinew__field){(void **)&d->strain, sizeof(float), false, 1, !d->with_tears, &unstrained};
    f[7] = (sinew__field){(void **)&d->user_data, sizeof(void *), false, 1, !d->with_user_data, NULL};
    f[8] = (sinew__field){(void **)&d->l.span, sizeof(uint32_t), true, SINEW__LANES, false, NULL}; // spans of independent blocks
    return 9;
}

// The per-link scratch groups (sinew__distances.scratch): their need bits and arrays, all derived
// (rebuilt when dirty, or redrawn each step).
static const unsigned group_need[3] = {SINEW__NEED_LINKED, SINEW__NEED_JACOBI, SINEW__NEED_SHUFFLE};

static int group_fields(sinew__distances *d, int g, sinew__field *f)
{
    int n = 0;
#define F(array, size) (f[n++] = (sinew__field){(void **)&d->array, (size), true, 1, false, NULL})
    if (g == 0) {
        F(adj, 2 * sizeof(uint32_t));
    } else if (g == 1) {
        F(order, sizeof(uint32_t));
        F(jlo, sizeof(float));
        F(jhi, sizeof(float));
        f[n++] = (sinew__field){(void **)&d->run_start, sizeof(uint64_t), true, 64, false, NULL}; // a bit a link
        F(by_i, sizeof(uint32_t));
        F(step_x, sizeof(float)); // scratch of a Jacobi iteration
        F(step_y, sizeof(float));
        F(step_lambda, sizeof(float));
        F(active, sizeof(float));
    } else {
        F(l.perm, sizeof(uint32_t));
    }
#undef F
    return n;
}

// Grows group g to the store's capacity.
static sinew_status fit_group(sinew_world *world, int g)
{
    sinew__distances *d = &world->distances;
    sinew__scratch *sc = &d->scratch[g];
    if (sc->block != NULL && sc->capacity >= d->store.capacity) {
        return SINEW_OK;
    }
    sinew__field f[SINEW__MAX_FIELDS];
    const int n = group_fields(d, g, f);
    const sinew_status s = sinew__block_resize(world, &sc->block, &sc->bytes, f, n, sc->block == NULL ? 0 : (d->l.count < sc->capacity ? d->l.count : sc->capacity),
                                               d->store.capacity);
    if (s == SINEW_OK) {
        sc->capacity = d->store.capacity;
    }
    return s;
}

static void drop_group(sinew_world *world, int g)
{
    sinew__distances *d = &world->distances;
    sinew__free(world, d->scratch[g].block, d->scratch[g].bytes);
    memset(&d->scratch[g], 0, sizeof d->scratch[g]);
    d->seg_item = g == 1 ? 0 : d->seg_item; // the threaded passes' table was in by_i
    sinew__field f[SINEW__MAX_FIELDS];
    const int n = group_fields(d, g, f);
    for (int k = 0; k < n; ++k) {
        *f[k].ptr = NULL;
    }
}

// Grows the store's allocated groups to its capacity.
static sinew_status fit_scratch(sinew_world *world)
{
    sinew_status s = SINEW_OK;
    for (int g = 0; g < 3 && s == SINEW_OK; ++g) {
        if ((world->particles.needs & group_need[g]) != 0u) {
            s = fit_group(world, g);
        }
    }
    return s;
}

// The links' part of the scratch groups (sinew__kind_ops.scratch_need).
static sinew_status distances_scratch_need(sinew_world *world, unsigned needs)
{
    int g = 0;
    sinew_status s = SINEW_OK;
    for (; g < 3 && s == SINEW_OK; ++g) {
        if ((needs & group_need[g]) != 0u) {
            s = fit_group(world, g);
        }
    }
    if (s != SINEW_OK) {
        for (int k = 0; k < g; ++k) {
            if ((needs & group_need[k]) != 0u && (world->particles.needs & group_need[k]) == 0u) {
                drop_group(world, k);
            }
        }
    }
    return s;
}

static void distances_scratch_drop(sinew_world *world, unsigned needs)
{
    for (int g = 0; g < 3; ++g) {
        if ((needs & group_need[g]) != 0u) {
            drop_group(world, g);
        }
    }
}

// Room for `capacity` links and their scratch. On failure (CAPACITY, OUT_OF_MEMORY) the links are
// unchanged (the store may have grown).
static sinew_status reserve(sinew_world *world, int capacity)
{
    sinew__distances *d = &world->distances;
    const sinew_status s = sinew__store_reserve(world, &d->store, d, distance_fields, d->l.count, capacity);
    return s == SINEW_OK ? fit_scratch(world) : s;
}

sinew_status sinew__distances_reserve(sinew_world *world, int capacity) { return reserve(world, capacity); }

static void distances_free(sinew_world *world)
{
    sinew__free(world, world->tears_block, world->tears_bytes);
    world->tears_block = NULL;
    world->tears = NULL;
    world->tears_bytes = 0;
    world->tear_count = world->tear_capacity = 0;
    sinew__store_free(world, &world->distances.store);
    for (int g = 0; g < 3; ++g) {
        sinew__free(world, world->distances.scratch[g].block, world->distances.scratch[g].bytes);
    }
    memset(&world->distances, 0, sizeof world->distances);
}

// Checks rest, mode, stiffness and compliance of a def; resolves lo/hi for particle indices i, j.
static sinew_status check_params(const sinew_world *world, const sinew_distance_def *def, int i, int j,
                                 sinew__distance *out, sinew__softness *soft)
{
    if (!sinew__finite(def->rest) || !sinew__finite(def->stiffness) || !sinew__finite(def->compliance)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "distance def: rest, stiffness and compliance must be finite");
    }
    if ((def->rest < 0.0f && def->rest != SINEW_REST_CURRENT) || def->rest > SINEW_MAX_COORDINATE) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE,
                           "distance def: rest must be in [0, SINEW_MAX_COORDINATE] or SINEW_REST_CURRENT");
    }
    if (def->stiffness < 0.0f || def->stiffness > 1.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "distance def: stiffness must be in [0, 1]");
    }
    if (def->compliance < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "distance def: compliance must be >= 0");
    }
    if (!sinew__finite(def->tear_ratio)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "distance def: tear_ratio must be finite");
    }
    if (def->tear_ratio != 0.0f && !(def->tear_ratio > 1.0f)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "distance def: tear_ratio must be 0 (never) or > 1");
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

// Makes the optional arrays exist (tears: tear and strain; user_data), holding every link's
// value (0, 1 and NULL). On failure (OUT_OF_MEMORY) nothing changes.
static sinew_status with_arrays(sinew_world *world, bool tears, bool user_data)
{
    sinew__distances *d = &world->distances;
    const bool had_tears = d->with_tears, had_user_data = d->with_user_data;
    if ((!tears || had_tears) && (!user_data || had_user_data)) {
        return SINEW_OK;
    }
    d->with_tears = had_tears || tears;
    d->with_user_data = had_user_data || user_data;
    const sinew_status s = sinew__store_refit(world, &d->store, d, distance_fields, d->l.count);
    if (s != SINEW_OK) {
        d->with_tears = had_tears;
        d->with_user_data = had_user_data;
    }
    return s;
}

static float tear_of(const sinew__distances *d, int k) { return d->with_tears ? d->tear[k] : 0.0f; }

// Room for `needed` tear events, so that tearing inside a step allocates nothing.
static sinew_status reserve_tears(sinew_world *world, int needed)
{
    if (needed <= world->tear_capacity) {
        return SINEW_OK;
    }
    int cap = sinew__grow_capacity(world->tear_capacity, needed);
    sinew__field f[] = {{(void **)&world->tears, sizeof(sinew_tear), false, 1, false, NULL}};
    sinew_status s = cap < 0 ? SINEW_ERR_CAPACITY
                             : sinew__block_resize(world, &world->tears_block, &world->tears_bytes, f, 1,
                                                   world->tear_count, cap);
    if (s == SINEW_OK) {
        world->tear_capacity = cap;
    }
    return s;
}

sinew_status sinew_distance_create(sinew_world *world, const sinew_distance_def *def, sinew_distance_id *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_distance_create: world and def are required");
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
    if (world->max_constraints > 0 && d->l.count >= world->max_constraints) {
        return sinew__fail(world, SINEW_ERR_CAPACITY, "sinew_distance_create: max_constraints reached");
    }
    s = reserve(world, d->l.count + 1);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_distance_create: growing the store failed");
    }
    if ((world->particles.needs & SINEW__NEED_COLLIDE) != 0u && world->skip_linked_pairs) {
        s = sinew__scratch_need(world, SINEW__NEED_LINKED); // contacts will skip linked pairs
        if (s != SINEW_OK) {
            return sinew__fail(world, s, "sinew_distance_create: allocating the adjacency failed");
        }
    }
    if (world->tasks.workers > 1 && sinew__scratch_need(world, SINEW__NEED_SPANS) != SINEW_OK) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_MEMORY, "sinew_distance_create: allocating the span marks failed");
    }
    if (def->tear_ratio > 0.0f && reserve_tears(world, d->tearable + 1) != SINEW_OK) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_MEMORY, "sinew_distance_create: growing the tear list failed");
    }
    if (with_arrays(world, def->tear_ratio > 0.0f, def->user_data != NULL) != SINEW_OK) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_MEMORY, "sinew_distance_create: allocating the tear or user data arrays failed");
    }
    const int k = d->l.count;
    sinew_distance_id id;
    sinew__store_push(&d->store, &d->l.count, &id.index1, &id.generation);
    if (out != NULL) {
        *out = id;
    }
    if (d->with_user_data) {
        d->user_data[k] = def->user_data;
    }
    if (d->with_tears) {
        d->tear[k] = def->tear_ratio;
        d->strain[k] = 1.0f;
    }
    d->tearable += def->tear_ratio > 0.0f;
    d->l.c[k] = c;
    d->l.soft[k] = soft;
    d->l.lambda[k] = 0.0f;
    d->mode[k] = (uint8_t)def->mode;
    d->l.soft_count += is_soft(soft);
    sinew__links_refresh_block(world, &d->l, k);
    d->adj_dirty = d->order_dirty = d->colour_dirty = true;
    return SINEW_OK;
}

static void remove_at(sinew_world *world, int k)
{
    sinew__distances *d = &world->distances;
    d->tearable -= tear_of(d, k) > 0.0f;
    d->l.soft_count -= is_soft(d->l.soft[k]);
    const int last = d->l.count - 1;
    sinew__store_remove(&d->store, d, distance_fields, &d->l.count, k);
    sinew__links_refresh_block(world, &d->l, k);
    sinew__links_refresh_block(world, &d->l, last);
    d->adj_dirty = d->order_dirty = d->colour_dirty = true;
}

static int lookup(const sinew_world *world, sinew_distance_id id)
{
    return world != NULL ? sinew__store_lookup(&world->distances.store, id.index1, id.generation) : -1;
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
    remove_at(world, k);
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
    const sinew__distance *c = &world->distances.l.c[k];
    out->a = sinew_particle_id_at(world, c->i);
    out->b = sinew_particle_id_at(world, c->j);
    out->mode = (sinew_distance_mode)world->distances.mode[k];
    out->rest = out->mode == SINEW_DISTANCE_MAX_ONLY ? c->hi : c->lo;
    out->tear_ratio = tear_of(&world->distances, k);
    out->stiffness = world->distances.l.soft[k].stiffness;
    out->compliance = world->distances.l.soft[k].compliance;
    out->user_data = world->distances.with_user_data ? world->distances.user_data[k] : NULL;
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
    sinew_status s = check_params(world, def, d->l.c[k].i, d->l.c[k].j, &c, &soft);
    if (s != SINEW_OK) {
        return s;
    }
    if (def->tear_ratio > 0.0f && !(tear_of(d, k) > 0.0f) && reserve_tears(world, d->tearable + 1) != SINEW_OK) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_MEMORY, "sinew_distance_set: growing the tear list failed");
    }
    if (with_arrays(world, def->tear_ratio > 0.0f, false) != SINEW_OK) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_MEMORY, "sinew_distance_set: allocating the tear arrays failed");
    }
    d->l.soft_count += is_soft(soft) - is_soft(d->l.soft[k]);
    d->tearable += (def->tear_ratio > 0.0f) - (tear_of(d, k) > 0.0f);
    d->l.c[k] = c;
    d->l.soft[k] = soft;
    if (d->with_tears) {
        d->tear[k] = def->tear_ratio;
    }
    d->mode[k] = (uint8_t)def->mode;
    d->order_dirty = true; // Jacobi's layout holds lo and hi
    return SINEW_OK;
}

sinew_status sinew_distance_get_length(const sinew_world *world, sinew_distance_id id, float *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_distance_get_length: world and out are required");
    }
    const int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_distance_get_length: stale or null id");
    }
    const sinew__distance *c = &world->distances.l.c[k];
    const float *x = world->particles.x, *y = world->particles.y;
    *out = sqrtf((x[c->j] - x[c->i]) * (x[c->j] - x[c->i]) + (y[c->j] - y[c->i]) * (y[c->j] - y[c->i]));
    return SINEW_OK;
}

sinew_status sinew_distance_get_force(const sinew_world *world, sinew_distance_id id, float *out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_distance_get_force: world and out are required");
    }
    const int k = lookup(world, id);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_distance_get_force: stale or null id");
    }
    const sinew__distances *d = &world->distances;
    if (!d->forces_kept) {
        return sinew__fail(world, SINEW_ERR_NOT_MEASURED,
                           "sinew_distance_get_force: the last step kept no link forces (set solver.link_forces)");
    }
    const float h = world->h_prev, t = h > 0.0f ? -d->l.lambda[k] / (h * h) : 0.0f;
    if (!sinew__finite(t)) { // a particle of the link was reset in that sub-step, or the sum overflowed
        return sinew__fail(world, SINEW_ERR_NOT_MEASURED, "sinew_distance_get_force: the last sub-step's sum is not finite");
    }
    *out = t;
    return SINEW_OK;
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
    *out = sinew__link_error(&world->distances.l.c[k], world->particles.x, world->particles.y);
    return SINEW_OK;
}

static void distances_remove_particle(sinew_world *world, int index, int moved_from)
{
    sinew__distances *d = &world->distances;
    for (int k = 0; k < d->l.count;) {
        sinew__distance *c = &d->l.c[k];
        if (c->i == index || c->j == index) {
            remove_at(world, k); // the last one moved into k: look at k again
            continue;
        }
        c->i = c->i == moved_from ? index : c->i;
        c->j = c->j == moved_from ? index : c->j;
        ++k;
    }
    d->blocks_dirty = d->colour_dirty = true; // once before the next sweep, not once per destroyed particle
}

// ---- regrouping for Gauss-Seidel ----------------------------------------------------------------
//
// Gauss-Seidel solves SINEW__LANES consecutive links as one block (the AVX2 kernels, or eight
// independent projections the CPU overlaps) when they share no movable particle, and one after the
// other, each waiting for the last, when they do. The builders make their links in independent
// groups (a rope's even links, then its odd ones); links a user makes in another order (a chain
// linked in sequence: each link shares a particle with the next) would all fall to the slow path.
// So whenever links were made or removed, or a weight changed, the next Gauss-Seidel step first
// looks at the blocks: when fewer than 7 in 8 full blocks are free, the links are coloured (in
// their order, each takes the lowest colour no link on either of its movable particles has; 32
// colours, the rest share a last one) and laid out colour by colour, in their order within a
// colour: a chain becomes its even links, then its odd ones, the builder's order. Worlds whose
// blocks are free (every builder scene) keep their order, to the bit. The store is permuted: ids
// keep naming their links.
#define COLOUR_COUNT 33 // 32 colours and the shared last one

void sinew__distances_colour(sinew_world *world)
{
    sinew__distances *d = &world->distances;
    d->colour_dirty = false;
    const int n = d->l.count, blocks = n / SINEW__LANES;
    if (blocks == 0) {
        return;
    }
    const sinew__distance *c = d->l.c;
    const float *w = world->particles.w;
    int free_blocks = 0;
    for (int b = 0; b < blocks; ++b) {
        free_blocks += sinew__links_block_is_free(&c[b * SINEW__LANES], w);
    }
    if (8 * free_blocks >= 7 * blocks) {
        return;
    }
    // Scratch for the regrouping only, freed before the step goes on: the colours of each particle
    // (a mask), each link's colour and the permutation, and the permutation's temporary. When it
    // cannot be had, the links keep their order and the next step tries again.
    const int np = world->particles.count;
    _Static_assert(sizeof(sinew__distance) >= sizeof(void *) && sizeof(sinew__distance) >= sizeof(sinew__softness),
                   "the permutation's temporary holds the largest field");
    const size_t bytes = sizeof(uint32_t) * (size_t)np + (sizeof(uint8_t) + sizeof(uint32_t) + sizeof(sinew__distance)) * (size_t)n;
    void *temp = sinew__alloc(world, bytes);
    if (temp == NULL) {
        d->colour_dirty = true;
        return;
    }
    sinew__distance *scratch = temp; // first: the most aligned
    uint32_t *mask = (uint32_t *)(scratch + n);
    uint32_t *from = mask + np;
    uint8_t *colour = (uint8_t *)(from + n);
    memset(mask, 0, sizeof(uint32_t) * (size_t)np);
    int start[COLOUR_COUNT + 1] = {0};
    for (int k = 0; k < n; ++k) {
        const int i = c[k].i, j = c[k].j;
        const uint32_t used = (w[i] > 0.0f ? mask[i] : 0u) | (w[j] > 0.0f ? mask[j] : 0u);
        const uint32_t col = used == UINT32_MAX ? COLOUR_COUNT - 1u : (uint32_t)sinew__ctz(~used);
        const uint32_t bit = col < 32u ? 1u << col : 0u;
        mask[i] |= w[i] > 0.0f ? bit : 0u;
        mask[j] |= w[j] > 0.0f ? bit : 0u;
        colour[k] = (uint8_t)col;
        start[col + 1] += 1;
    }
    for (int m = 0; m < COLOUR_COUNT; ++m) {
        start[m + 1] += start[m];
    }
    for (int k = 0; k < n; ++k) { // stable: in their order within a colour
        from[start[colour[k]]++] = (uint32_t)k;
    }
    sinew__store_permute(&d->store, d, distance_fields, n, from, scratch);
    sinew__free(world, temp, bytes);
    d->adj_dirty = d->order_dirty = d->blocks_dirty = true;
}

// The tearing check: the strains of items of TEAR_ITEM_LINKS links or more (at most TEAR_ITEMS,
// fixed by the link count alone) are updated at once, each item noting whether one of its links
// tore; the tearing links are then removed on one thread, in the order one pass would meet them.
#define TEAR_ITEM_LINKS 4096
#define TEAR_ITEMS 256
#define TEAR_MIN_ITEMS 8 // a task's least: under 16 items (65,536 links) the check takes one thread

typedef struct tear_task {
    sinew_world *world;
    int item_links;
    bool *torn; // per item
} tear_task;

static void strain_items(int start, int end, int worker, void *context)
{
    (void)worker;
    const tear_task *t = context;
    sinew__distances *d = &t->world->distances;
    const float *x = t->world->particles.x, *y = t->world->particles.y;
    for (int item = start; item < end; ++item) {
        const int k0 = item * t->item_links, k1 = k0 + t->item_links < d->l.count ? k0 + t->item_links : d->l.count;
        bool torn = false;
        for (int k = k0; k < k1; ++k) {
            if (!(d->tear[k] > 0.0f)) {
                continue;
            }
            const sinew__distance *c = &d->l.c[k];
            const float rest = isfinite(c->hi) ? c->hi : c->lo;
            const float len =
                sqrtf((x[c->j] - x[c->i]) * (x[c->j] - x[c->i]) + (y[c->j] - y[c->i]) * (y[c->j] - y[c->i]));
            // Smoothed over steps: one violent step moves the strain only 30% of the way.
            d->strain[k] = 0.7f * d->strain[k] + 0.3f * (rest > 0.0f ? len / rest : 1.0f);
            torn |= d->strain[k] > d->tear[k];
        }
        t->torn[item] = torn;
    }
}

void sinew__distances_tear(sinew_world *world)
{
    sinew__distances *d = &world->distances;
    world->tear_count = 0;
    if (d->tearable == 0 || d->l.count == 0) {
        return;
    }
    const int item_links = sinew__item_size(&world->tasks, d->l.count, TEAR_ITEM_LINKS, TEAR_ITEMS);
    const int items = (d->l.count + item_links - 1) / item_links;
    bool torn[TEAR_ITEMS];
    tear_task t = {world, item_links, torn};
    sinew__parallel_for(&world->tasks, strain_items, items, sinew__min_range(&world->tasks, TEAR_MIN_ITEMS), &t);
    // Backwards: a removal moves the last link into k, one already met that did not tear.
    for (int item = items - 1; item >= 0; --item) {
        const int k0 = item * item_links, k1 = k0 + item_links < d->l.count ? k0 + item_links : d->l.count;
        for (int k = k1 - 1; torn[item] && k >= k0; --k) {
            if (!(d->tear[k] > 0.0f && d->strain[k] > d->tear[k])) {
                continue;
            }
            const sinew__distance *c = &d->l.c[k];
            sinew_tear *tr = &world->tears[world->tear_count++];
            sinew__store_id(&d->store, k, &tr->link.index1, &tr->link.generation);
            tr->a = sinew_particle_id_at(world, c->i);
            tr->b = sinew_particle_id_at(world, c->j);
            remove_at(world, k);
        }
    }
}

const sinew_tear *sinew_world_tears(const sinew_world *world, int *count)
{
    if (count != NULL) {
        *count = world != NULL ? world->tear_count : 0;
    }
    static const sinew_tear none = {{0u, 0u}, {0u, 0u}, {0u, 0u}};
    return world != NULL && world->tears != NULL ? world->tears : &none;
}

void sinew__distances_adjacency(sinew_world *world)
{
    sinew__distances *d = &world->distances;
    if (!d->adj_dirty) {
        return;
    }
    sinew__particles *p = &world->particles;
    if (p->count > 0) { // a world loaded without particles has no scratch arrays
        memset(p->link_n, 0, sizeof(uint32_t) * (size_t)p->count);
    }
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

int sinew_world_distance_count(const sinew_world *world) { return world != NULL ? world->distances.l.count : 0; }

sinew_distance_id sinew_distance_id_at(const sinew_world *world, int index)
{
    sinew_distance_id id = SINEW_NULL_ID;
    if (world != NULL && index >= 0 && index < world->distances.l.count) {
        sinew__store_id(&world->distances.store, index, &id.index1, &id.generation);
    }
    return id;
}

void *sinew_distance_user_data(const sinew_world *world, sinew_distance_id id)
{
    const int k = world != NULL ? sinew__store_lookup(&world->distances.store, id.index1, id.generation) : -1;
    return k >= 0 && world->distances.with_user_data ? world->distances.user_data[k] : NULL;
}

sinew_status sinew_distance_set_user_data(sinew_world *world, sinew_distance_id id, void *user_data)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    const int k = sinew__store_lookup(&world->distances.store, id.index1, id.generation);
    if (k < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_distance_set_user_data: stale or null id");
    }
    if (with_arrays(world, false, user_data != NULL) != SINEW_OK) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_MEMORY, "sinew_distance_set_user_data: allocating the user data array failed");
    }
    if (world->distances.with_user_data) {
        world->distances.user_data[k] = user_data;
    }
    return SINEW_OK;
}

// ---- snapshots ----------------------------------------------------------------------------------

static void distances_save(const sinew_world *world, sinew__writer *w)
{
    const sinew__distances *d = &world->distances;
    sinew__put_u32(w, d->colour_dirty ? 1u : 0u); // whether the next step regroups: part of the future
    sinew__store_save(w, &d->store, (void *)d, distance_fields, d->l.count);
}

static bool distance_ok(const sinew_world *world, const sinew__distances *d, int k)
{
    const sinew__distance *c = &d->l.c[k];
    const sinew__softness *f = &d->l.soft[k];
    const int n = world->particles.count;
    const bool ends = c->i >= 0 && c->i < n && c->j >= 0 && c->j < n && c->i != c->j;
    const bool range = c->lo >= 0.0f && c->lo <= SINEW_MAX_COORDINATE && c->lo <= c->hi &&
                       (c->hi <= SINEW_MAX_COORDINATE || c->hi == INFINITY);
    const bool soft = f->stiffness >= 0.0f && f->stiffness <= 1.0f && f->compliance >= 0.0f && sinew__finite(f->compliance);
    const bool tear = (d->tear[k] == 0.0f || (d->tear[k] > 1.0f && sinew__finite(d->tear[k]))) &&
                      sinew__finite(d->strain[k]) && d->strain[k] >= 0.0f;
    return ends && range && soft && tear && d->mode[k] <= (uint8_t)SINEW_DISTANCE_MIN_ONLY;
}

// After a snapshot's load (which makes the optional arrays): drops those that hold only the value
// every link has without them (no tear ratio and a strain of 1; no user data).
static void drop_unused_arrays(sinew_world *world)
{
    sinew__distances *d = &world->distances;
    bool tears = false, user_data = false;
    for (int k = 0; k < d->l.count; ++k) {
        tears |= d->tear[k] != 0.0f || d->strain[k] != 1.0f;
        user_data |= d->user_data[k] != NULL;
    }
    d->with_tears = tears;
    d->with_user_data = user_data;
    if (sinew__store_refit(world, &d->store, d, distance_fields, d->l.count) != SINEW_OK) {
        d->with_tears = d->with_user_data = true; // (they stay as loaded)
    }
}

static bool distances_load(sinew_world *world, sinew__reader *r)
{
    sinew__distances *d = &world->distances;
    const int most = world->max_constraints > 0 ? world->max_constraints : INT32_MAX / 2;
    const uint32_t regroup = sinew__get_u32(r);
    d->with_tears = d->with_user_data = true; // (see drop_unused_arrays)
    if (!sinew__expect(r, regroup <= 1u, "snapshot: a distance flag is out of range") ||
        !sinew__store_load(r, world, &d->store, d, distance_fields, &d->l.count, most)) {
        return false;
    }
    if (fit_scratch(world) != SINEW_OK) {
        return sinew__reader_fail(r, SINEW_ERR_OUT_OF_MEMORY, "snapshot: allocating the distances' scratch failed");
    }
    for (int k = 0; k < d->l.count; ++k) {
        if (!sinew__expect(r, distance_ok(world, d, k), "snapshot: a distance constraint is out of range")) {
            return false;
        }
        d->l.soft_count += is_soft(d->l.soft[k]);
        d->tearable += d->tear[k] > 0.0f;
    }
    const sinew_status s = reserve_tears(world, d->tearable);
    if (s != SINEW_OK) {
        return sinew__reader_fail(r, s, "snapshot: allocating the tear list failed");
    }
    drop_unused_arrays(world);
    d->adj_dirty = d->order_dirty = d->blocks_dirty = true;
    d->colour_dirty = regroup != 0u;
    return true;
}

static void distances_truncate(sinew_world *world, int count)
{
    while (world->distances.l.count > count) {
        remove_at(world, world->distances.l.count - 1);
    }
}

static int distances_count(const sinew_world *world) { return world->distances.l.count; }

static void distances_begin_substep(sinew_world *world)
{
    sinew__distances *d = &world->distances;
    d->l.keep_lambda = world->solver.link_forces;
    d->forces_kept = sinew__links_soft(&d->l);
    sinew__links_begin_substep(&d->l);
}

static void distances_project(sinew_world *world, float inv_h2, bool backward, bool shuffled)
{
    sinew__links_project(world, &world->distances.l, inv_h2, backward, shuffled);
}

// Jacobi: the distances compute their steps while they count (sinew__distances_prepare) and
// apply them in the gather that ends the iteration (solver.c); they write no sums here.
static bool distances_accumulate(sinew_world *world, float inv_h2, float omega)
{
    (void)world;
    (void)inv_h2;
    (void)omega;
    return false;
}

static int distances_error(const sinew_world *world, float beyond, float *max_error, double *sum_sq)
{
    return sinew__links_error(world, &world->distances.l, beyond, max_error, sum_sq);
}

const sinew__kind_ops sinew__distance_kind = {
    .kind = SINEW_KIND_DISTANCE,
    .count = distances_count,
    .begin_substep = distances_begin_substep,
    .project = distances_project,
    .count_active = sinew__distances_prepare,
    .accumulate = distances_accumulate,
    .error = distances_error,
    .remove_particle = distances_remove_particle,
    .free = distances_free,
    .save = distances_save,
    .load = distances_load,
    .truncate = distances_truncate,
    .scratch_need = distances_scratch_need,
    .scratch_drop = distances_scratch_drop,
};
