// The particle store: dense structure of arrays, stable ids, Verlet integration.
#include <stdatomic.h>
#include <string.h>

#include "world_internal.h"
#include "simd.h"

sinew_particle_def sinew_default_particle_def(void)
{
    sinew_particle_def def = {0};
    def.weight = 1.0f;
    def.radius = 0.1f;
    def.flags = SINEW_PARTICLE_COLLIDES;
    def.group = 1u;
    def.mask = UINT32_MAX;
    def.friction = 0.6f;
    def.kinetic_friction = 0.5f;
    return def;
}

// The particles' state: what the store moves when a particle is removed.
static int particle_fields(void *kind, sinew__field *f)
{
    sinew__particles *p = kind;
    const sinew__field fields[] = {
        {(void **)&p->x, sizeof(float), false, 1, false, NULL},
        {(void **)&p->y, sizeof(float), false, 1, false, NULL},
        {(void **)&p->px, sizeof(float), false, 1, false, NULL},
        {(void **)&p->py, sizeof(float), false, 1, false, NULL},
        {(void **)&p->dx, sizeof(float), false, 1, false, NULL},
        {(void **)&p->dy, sizeof(float), false, 1, false, NULL},
        {(void **)&p->ax, sizeof(float), false, 1, !p->with_forces, NULL},
        {(void **)&p->ay, sizeof(float), false, 1, !p->with_forces, NULL},
        {(void **)&p->w, sizeof(float), false, 1, false, NULL},
        {(void **)&p->radius, sizeof(float), false, 1, false, NULL},
        {(void **)&p->flags, sizeof(uint32_t), false, 1, false, NULL},
        {(void **)&p->user_data, sizeof(void *), false, 1, !p->with_user_data, NULL},
        {(void **)&p->group, sizeof(uint32_t), false, 1, !p->with_filters, &p->all_group},
        {(void **)&p->mask, sizeof(uint32_t), false, 1, !p->with_filters, &p->all_mask},
        {(void **)&p->mu_s, sizeof(float), false, 1, !p->with_frictions, &p->all_mu_s},
        {(void **)&p->mu_k, sizeof(float), false, 1, !p->with_frictions, &p->all_mu_k},
    };
    _Static_assert(sizeof fields / sizeof fields[0] <= SINEW__MAX_FIELDS, "raise SINEW__MAX_FIELDS");
    memcpy(f, fields, sizeof fields);
    return (int)(sizeof fields / sizeof fields[0]);
}

// The arrays of scratch group g (bit 1 << g of SINEW__NEED_*; see sinew__particles).
static int scratch_fields(sinew__particles *p, int g, sinew__field *f)
{
    int n = 0;
#define F(array, size) (f[n++] = (sinew__field){(void **)&p->array, (size), false, 1, false, NULL})
    switch (1u << g) {
    case SINEW__NEED_COLLIDE:
        F(motion, sizeof(sinew__motion)); // also holds the grid's and the search's arrays: see search_views
        F(near_plane, sizeof(uint8_t));
        F(pack_item, sizeof(atomic_uchar));
        break;
    case SINEW__NEED_LINKED:
        F(link_start, sizeof(uint32_t));
        F(link_n, sizeof(uint32_t));
        break;
    case SINEW__NEED_JACOBI:
        F(acc, sizeof(sinew__jacobi_sum));
        F(inv_n, sizeof(float));
        F(jacobi_x, sizeof(double));
        F(jacobi_y, sizeof(double));
        break;
    case SINEW__NEED_AREA:
        F(grad_x, sizeof(float));
        F(grad_y, sizeof(float));
        break;
    case SINEW__NEED_EVENTS:
        F(vx0, sizeof(float));
        F(vy0, sizeof(float));
        break;
    case SINEW__NEED_SPANS:
        F(span_mark, sizeof(uint32_t));
        break;
    default:
        break;
    }
#undef F
    return n;
}

// The grid's and the contact search's arrays (sorted, cell_x .. cell_mask, cell_of, colors) live
// in the block of the motion records: the grid build writes them and the
// searches read them before the solve, while the motion records are packed after the solve and
// read by the response, so the two never hold data at the same time (a later sub-step's build,
// or a query's, writes the search arrays anew; nothing reads the motion records across a build,
// nor the search arrays across a solve: a query after a step builds the grid again). Eight arrays
// of 4-byte elements, as many as the capacity: the motion records' 32 bytes per particle. The
// last holds cell_of while the grid is built, then the contacts' colours (sinew__contacts_find).
// (Only the first array is 64-byte aligned; the search's vector loads are unaligned anyway.) The
// collider search's marks have their own array: they are made while the grid is sorted.
static void search_views(sinew__particles *p)
{
    float *base = (float *)p->motion;
    _Static_assert(8 * sizeof(float) == sizeof(sinew__motion), "the search's arrays fill the motion records");
    if (base == NULL) { // (no offsets from a NULL pointer)
        p->sorted = p->cell_group = p->cell_mask = p->cell_of = p->colors = NULL;
        p->cell_x = p->cell_y = p->cell_r = p->cell_w = NULL;
        return;
    }
    const size_t stride = (size_t)p->scratch[0].capacity;
    p->sorted = (uint32_t *)base;
    p->cell_x = base + stride;
    p->cell_y = base + 2u * stride;
    p->cell_r = base + 3u * stride;
    p->cell_w = base + 4u * stride;
    p->cell_group = (uint32_t *)(base + 5u * stride);
    p->cell_mask = (uint32_t *)(base + 6u * stride);
    p->cell_of = (uint32_t *)(base + 7u * stride);
    p->colors = p->cell_of;
}

// Grows group g to `capacity` particles, keeping the first `count` of each array.
static sinew_status fit_group(sinew_world *world, int g, int capacity)
{
    sinew__particles *p = &world->particles;
    sinew__scratch *sc = &p->scratch[g];
    if (sc->block != NULL && sc->capacity >= capacity) {
        return SINEW_OK;
    }
    sinew__field f[SINEW__MAX_FIELDS];
    const int n = scratch_fields(p, g, f);
    const sinew_status s = sinew__block_resize(world, &sc->block, &sc->bytes, f, n, sc->block == NULL ? 0 : (p->count < sc->capacity ? p->count : sc->capacity),
                                               capacity);
    if (s == SINEW_OK) {
        sc->capacity = capacity;
        if ((1u << g) == SINEW__NEED_COLLIDE) {
            search_views(p);
        }
    }
    return s;
}

// Frees group g and clears its arrays' pointers.
static void drop_group(sinew_world *world, int g)
{
    sinew__particles *p = &world->particles;
    sinew__scratch *sc = &p->scratch[g];
    sinew__free(world, sc->block, sc->bytes);
    memset(sc, 0, sizeof *sc);
    sinew__field f[SINEW__MAX_FIELDS];
    const int n = scratch_fields(p, g, f);
    for (int k = 0; k < n; ++k) {
        *f[k].ptr = NULL;
    }
    if ((1u << g) == SINEW__NEED_COLLIDE) {
        search_views(p);
    }
}

// The optional arrays of the particle store (see sinew__particles).
enum {
    ARRAYS_FORCES = 1u << 0,    // ax, ay: from the first force applied on
    ARRAYS_USER_DATA = 1u << 1, // user_data: from the first particle given user data
    ARRAYS_FILTERS = 1u << 2,   // group, mask: from the first particle whose filter differs
    ARRAYS_FRICTIONS = 1u << 3, // mu_s, mu_k: from the first particle whose frictions differ
};

static unsigned arrays_of(const sinew__particles *p)
{
    return (p->with_forces ? ARRAYS_FORCES : 0u) | (p->with_user_data ? ARRAYS_USER_DATA : 0u) |
           (p->with_filters ? ARRAYS_FILTERS : 0u) | (p->with_frictions ? ARRAYS_FRICTIONS : 0u);
}

static void set_arrays(sinew__particles *p, unsigned arrays)
{
    p->with_forces = (arrays & ARRAYS_FORCES) != 0u;
    p->with_user_data = (arrays & ARRAYS_USER_DATA) != 0u;
    p->with_filters = (arrays & ARRAYS_FILTERS) != 0u;
    p->with_frictions = (arrays & ARRAYS_FRICTIONS) != 0u;
}

// Makes the optional arrays asked for (ARRAYS_* bits) exist: forces and user data all zero, filters
// and frictions holding the one value every particle had. A world whose particles never had a
// force applied nor user data, and share one filter and one pair of frictions, saves 32 bytes a
// particle. On failure (OUT_OF_MEMORY) nothing changes.
static sinew_status with_arrays(sinew_world *world, unsigned arrays)
{
    sinew__particles *p = &world->particles;
    const unsigned had = arrays_of(p);
    if ((arrays & ~had) == 0u) {
        return SINEW_OK;
    }
    set_arrays(p, had | arrays);
    const sinew_status s = sinew__store_refit(world, &p->store, p, particle_fields, p->count);
    if (s != SINEW_OK) {
        set_arrays(p, had);
    }
    return s;
}

// Whether n elements of `size` bytes all hold the first one's bits.
static bool all_alike(const void *array, size_t size, int n)
{
    const unsigned char *a = array;
    for (int i = 1; i < n; ++i) {
        if (memcmp(a, a + size * (size_t)i, size) != 0) {
            return false;
        }
    }
    return true;
}

// After a snapshot's load (which makes every optional array): drops those that hold only zeros
// (forces, user data) or one value (filters, frictions: it becomes the one value).
static void drop_unused_arrays(sinew_world *world)
{
    sinew__particles *p = &world->particles;
    bool forces = false, user_data = false;
    for (int i = 0; i < p->count; ++i) {
        forces |= p->ax[i] != 0.0f || p->ay[i] != 0.0f;
        user_data |= p->user_data[i] != NULL;
    }
    const bool filters = !all_alike(p->group, sizeof *p->group, p->count) || !all_alike(p->mask, sizeof *p->mask, p->count);
    const bool frictions = !all_alike(p->mu_s, sizeof *p->mu_s, p->count) || !all_alike(p->mu_k, sizeof *p->mu_k, p->count);
    if (p->count > 0) {
        p->all_group = p->group[0];
        p->all_mask = p->mask[0];
        p->all_mu_s = p->mu_s[0];
        p->all_mu_k = p->mu_k[0];
    }
    set_arrays(p, (forces ? ARRAYS_FORCES : 0u) | (user_data ? ARRAYS_USER_DATA : 0u) | (filters ? ARRAYS_FILTERS : 0u) |
                      (frictions ? ARRAYS_FRICTIONS : 0u));
    if (sinew__store_refit(world, &p->store, p, particle_fields, p->count) != SINEW_OK) {
        set_arrays(p, ARRAYS_FORCES | ARRAYS_USER_DATA | ARRAYS_FILTERS | ARRAYS_FRICTIONS); // (they stay as loaded)
    }
    p->forced = p->with_forces;
}

// The filter arrays a particle with this filter calls for, as it is created or set: ARRAYS_FILTERS
// when it differs from the one filter all the others hold. With `first` (the world's first
// particle being created, or its only one being set) it becomes that one filter instead.
static unsigned filter_arrays(sinew__particles *p, bool first, uint32_t group, uint32_t mask)
{
    if (first && !p->with_filters) {
        p->all_group = group;
        p->all_mask = mask;
    }
    return group != p->all_group || mask != p->all_mask ? ARRAYS_FILTERS : 0u;
}

// The same for the frictions (square roots, compared bit for bit): ARRAYS_FRICTIONS or 0.
static unsigned friction_arrays(sinew__particles *p, bool first, float mu_s, float mu_k)
{
    if (first && !p->with_frictions) {
        p->all_mu_s = mu_s;
        p->all_mu_k = mu_k;
    }
    const bool differ = memcmp(&mu_s, &p->all_mu_s, sizeof mu_s) != 0 || memcmp(&mu_k, &p->all_mu_k, sizeof mu_k) != 0;
    return differ ? ARRAYS_FRICTIONS : 0u;
}

// Room for `needed` particles and the scratch of the groups allocated. On failure the particles
// are unchanged (an OUT_OF_MEMORY may keep a store grown before the scratch could follow; the
// next reserve grows the scratch then).
static sinew_status reserve(sinew_world *world, int needed)
{
    sinew__particles *p = &world->particles;
    sinew_status s = sinew__store_reserve(world, &p->store, p, particle_fields, p->count, needed);
    for (int g = 0; g < SINEW__PARTICLE_GROUPS && s == SINEW_OK; ++g) {
        if ((p->needs & (1u << g)) != 0u) {
            s = fit_group(world, g, p->store.capacity);
        }
    }
    return s;
}

// The first `kinds` kinds' parts of the groups in `needs`, dropped.
static void kinds_scratch_drop(sinew_world *world, unsigned needs, int kinds)
{
    for (int t = 0; t < kinds; ++t) {
        if (sinew__kinds[t]->scratch_drop != NULL) {
            sinew__kinds[t]->scratch_drop(world, needs);
        }
    }
}

// Each kind's part of the fresh groups, in the order of sinew__kinds; when one fails, the parts of
// the kinds before it are dropped again (it dropped its own).
static sinew_status kinds_scratch_need(sinew_world *world, unsigned fresh)
{
    for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
        if (sinew__kinds[t]->scratch_need != NULL && sinew__kinds[t]->scratch_need(world, fresh) != SINEW_OK) {
            kinds_scratch_drop(world, fresh, t);
            return SINEW_ERR_OUT_OF_MEMORY;
        }
    }
    return SINEW_OK;
}

sinew_status sinew__scratch_need(sinew_world *world, unsigned needs)
{
    sinew__particles *p = &world->particles;
    if (((needs | p->needs) & SINEW__NEED_COLLIDE) != 0u && world->skip_linked_pairs && world->distances.l.count > 0) {
        needs |= SINEW__NEED_LINKED; // linked pairs to skip: their adjacency
    }
    const unsigned fresh = needs & ~p->needs;
    if (fresh == 0u) {
        return SINEW_OK;
    }
    sinew_status s = SINEW_OK;
    int g = 0;
    for (; g < SINEW__PARTICLE_GROUPS && s == SINEW_OK; ++g) {
        if ((fresh & (1u << g)) != 0u) {
            s = fit_group(world, g, p->store.capacity);
        }
    }
    if (s == SINEW_OK) {
        s = kinds_scratch_need(world, fresh);
    }
    if (s != SINEW_OK) {
        for (int k = 0; k < g; ++k) {
            if ((fresh & (1u << k)) != 0u) {
                drop_group(world, k);
            }
        }
        return SINEW_ERR_OUT_OF_MEMORY;
    }
    p->needs |= fresh;
    if ((fresh & SINEW__NEED_COLLIDE) != 0u) {
        world->grid.valid = world->grid.fresh = false;
    }
    if ((fresh & SINEW__NEED_LINKED) != 0u) {
        world->distances.adj_dirty = true;
    }
    if ((fresh & SINEW__NEED_JACOBI) != 0u) {
        world->distances.order_dirty = true;
    }
    return SINEW_OK;
}

void sinew__scratch_drop(sinew_world *world, unsigned needs)
{
    sinew__particles *p = &world->particles;
    const unsigned gone = needs & p->needs;
    for (int g = 0; g < SINEW__PARTICLE_GROUPS; ++g) {
        if ((gone & (1u << g)) != 0u) {
            drop_group(world, g);
        }
    }
    kinds_scratch_drop(world, gone, SINEW_KIND_COUNT);
    p->needs &= ~gone;
    if ((gone & SINEW__NEED_JACOBI) != 0u) {
        world->distances.order_dirty = true;
    }
}

unsigned sinew__scratch_wanted(const sinew_world *world)
{
    const sinew__particles *p = &world->particles;
    unsigned w = p->needs; // every group is kept once allocated
    w |= world->solver.mode == SINEW_SOLVER_JACOBI ? SINEW__NEED_JACOBI : 0u;
    w |= world->solver.order == SINEW_GS_ORDER_SHUFFLE ? SINEW__NEED_SHUFFLE : 0u;
    w |= world->areas.count > 0 ? SINEW__NEED_AREA : 0u;
    w |= world->events.enabled ? SINEW__NEED_EVENTS : 0u;
    w |= world->tasks.workers > 1 && world->distances.l.count > 0 ? SINEW__NEED_SPANS : 0u;
    bool collides = world->colliders.count > 0;
    for (int i = 0; i < p->count && !collides; ++i) {
        collides = (p->flags[i] & SINEW_PARTICLE_COLLIDES) != 0u;
    }
    w |= collides ? SINEW__NEED_COLLIDE : 0u;
    return w;
}

// The groups a particle with these flags calls for.
static unsigned flag_needs(uint32_t flags)
{
    return ((flags & SINEW_PARTICLE_COLLIDES) != 0u ? SINEW__NEED_COLLIDE : 0u) |
           ((flags & SINEW_PARTICLE_EVENTS) != 0u ? SINEW__NEED_EVENTS : 0u);
}

sinew_status sinew__particles_reserve(sinew_world *world, int capacity) { return reserve(world, capacity); }

void sinew__particles_save(const sinew_world *world, sinew__writer *w)
{
    const sinew__particles *p = &world->particles;
    sinew__store_save(w, &p->store, (void *)p, particle_fields, p->count);
}

// What sinew_particle_create and the setters accept, and what a step leaves: positions within
// SINEW_MAX_COORDINATE (a displacement within twice it), finite forces, weights, radii, frictions.
static bool particle_ok(const sinew__particles *p, int i)
{
    const float far = 2.0f * SINEW_MAX_COORDINATE;
    return sinew__coordinate_ok(p->x[i]) && sinew__coordinate_ok(p->y[i]) && sinew__coordinate_ok(p->px[i]) &&
           sinew__coordinate_ok(p->py[i]) && fabsf(p->dx[i]) <= far && fabsf(p->dy[i]) <= far &&
           (!p->with_forces || (sinew__finite(p->ax[i]) && sinew__finite(p->ay[i]))) && sinew__finite(p->w[i]) &&
           p->w[i] >= 0.0f &&
           sinew__coordinate_ok(p->radius[i]) && p->radius[i] >= 0.0f && sinew__finite(sinew__particle_mu_s(p, i)) &&
           sinew__particle_mu_s(p, i) >= 0.0f && sinew__finite(sinew__particle_mu_k(p, i)) &&
           sinew__particle_mu_k(p, i) >= 0.0f;
}

bool sinew__particles_load(sinew_world *world, sinew__reader *r)
{
    sinew__particles *p = &world->particles;
    const int most = world->max_particles > 0 ? world->max_particles : INT32_MAX / 2;
    set_arrays(p, ARRAYS_FORCES | ARRAYS_USER_DATA | ARRAYS_FILTERS | ARRAYS_FRICTIONS); // (see drop_unused_arrays)
    if (!sinew__store_load(r, world, &p->store, p, particle_fields, &p->count, most)) {
        return false;
    }
    for (int i = 0; i < p->count; ++i) {
        if (!sinew__expect(r, particle_ok(p, i), "snapshot: a particle's state is out of range")) {
            return false;
        }
    }
    const sinew_status s = reserve(world, p->count);
    if (s != SINEW_OK) {
        return sinew__reader_fail(r, s, "snapshot: allocating the particles' scratch failed");
    }
    drop_unused_arrays(world); // (sets forced when the snapshot holds forces)
    p->materials.known = false;
    return true;
}

void sinew__particles_free(sinew_world *world)
{
    sinew__store_free(world, &world->particles.store);
    for (int g = 0; g < SINEW__PARTICLE_GROUPS; ++g) {
        sinew__free(world, world->particles.scratch[g].block, world->particles.scratch[g].bytes);
    }
    memset(&world->particles, 0, sizeof world->particles);
}

int sinew__particle_lookup(const sinew_world *world, sinew_particle_id id)
{
    return sinew__store_lookup(&world->particles.store, id.index1, id.generation);
}

static bool speed_ok(sinew_vec2 v) { return fabsf(v.x) <= SINEW_MAX_SPEED && fabsf(v.y) <= SINEW_MAX_SPEED; }

sinew_status sinew_particle_create(sinew_world *world, const sinew_particle_def *def, sinew_particle_id *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_particle_create: world and def are required");
    }
    if (!sinew__finite2(def->position) || !sinew__finite2(def->velocity) || !sinew__finite(def->weight) ||
        !sinew__finite(def->radius)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "particle def: position, velocity, weight and radius must be finite");
    }
    if (def->weight < 0.0f) {
        return sinew__fail(world, SINEW_ERR_NEGATIVE_WEIGHT, "particle def: weight (inverse mass) must be >= 0");
    }
    if (def->radius < 0.0f) {
        return sinew__fail(world, SINEW_ERR_NEGATIVE_RADIUS, "particle def: radius must be >= 0");
    }
    if (!sinew__point_ok(def->position) || !sinew__coordinate_ok(def->radius) || !speed_ok(def->velocity)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE,
                           "particle def: |position| and radius <= SINEW_MAX_COORDINATE, speed <= SINEW_MAX_SPEED");
    }
    if (!sinew__finite(def->friction) || !sinew__finite(def->kinetic_friction)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "particle def: friction and kinetic_friction must be finite");
    }
    if (def->friction < 0.0f || def->kinetic_friction < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "particle def: friction and kinetic_friction must be >= 0");
    }
    sinew__particles *p = &world->particles;
    if (world->max_particles > 0 && p->count >= world->max_particles) {
        return sinew__fail(world, SINEW_ERR_CAPACITY, "sinew_particle_create: max_particles reached");
    }
    sinew_status s = reserve(world, p->count + 1);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_particle_create: growing the particle store failed");
    }
    const float mu_s = sqrtf(def->friction), mu_k = sqrtf(def->kinetic_friction); // stored as square roots: a
                                                                                     // contact's coefficient is the product
    s = with_arrays(world, (def->user_data != NULL ? ARRAYS_USER_DATA : 0u) |
                               filter_arrays(p, p->count == 0, def->group, def->mask) |
                               friction_arrays(p, p->count == 0, mu_s, mu_k));
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_particle_create: allocating the user data, filter or friction arrays failed");
    }
    s = sinew__scratch_need(world, flag_needs(def->flags));
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_particle_create: allocating the collision or event scratch failed");
    }
    const int i = p->count;
    sinew_particle_id id;
    sinew__store_push(&p->store, &p->count, &id.index1, &id.generation);
    if (out != NULL) {
        *out = id;
    }
    p->x[i] = def->position.x;
    p->y[i] = def->position.y;
    p->dx[i] = def->weight > 0.0f ? def->velocity.x * world->h_prev : 0.0f;
    p->dy[i] = def->weight > 0.0f ? def->velocity.y * world->h_prev : 0.0f;
    p->px[i] = def->position.x - p->dx[i];
    p->py[i] = def->position.y - p->dy[i];
    if (p->with_forces) {
        p->ax[i] = 0.0f;
        p->ay[i] = 0.0f;
    }
    p->w[i] = def->weight;
    p->radius[i] = def->radius;
    p->flags[i] = def->flags;
    world->events.enabled |= (def->flags & SINEW_PARTICLE_EVENTS) != 0u;
    if (p->with_user_data) {
        p->user_data[i] = def->user_data;
    }
    if (p->with_filters) {
        p->group[i] = def->group;
        p->mask[i] = def->mask;
    }
    if (p->with_frictions) {
        p->mu_s[i] = mu_s;
        p->mu_k[i] = mu_k;
    }
    p->materials.known = false;
    if (p->link_n != NULL) {
        p->link_start[i] = p->link_n[i] = 0u;
    }
    if (p->acc != NULL) {
        p->jacobi_x[i] = p->jacobi_y[i] = 0.0; // no links: Jacobi's layout stays valid
        memset(&p->acc[i], 0, sizeof p->acc[i]);
        p->inv_n[i] = 0.0f;
    }
    world->grid.valid = world->grid.fresh = false;
    return SINEW_OK;
}

void sinew__particles_truncate(sinew_world *world, int count)
{
    sinew__particles *p = &world->particles;
    while (p->count > count) {
        sinew__store_remove(&p->store, p, particle_fields, &p->count, p->count - 1);
    }
    p->materials.known = false;
    world->grid.valid = world->grid.fresh = false;
    world->distances.adj_dirty = world->distances.order_dirty = true;
}

sinew_status sinew_particle_destroy(sinew_world *world, sinew_particle_id id)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    int i = sinew__particle_lookup(world, id);
    if (i < 0) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_particle_destroy: stale or null particle id");
    }
    sinew__particles *p = &world->particles;
    int last = p->count - 1;
    // Constraints on the particle go; constraints on the last particle follow it into slot i.
    for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
        if (sinew__kinds[t]->remove_particle != NULL) {
            sinew__kinds[t]->remove_particle(world, i, last);
        }
    }
    sinew__store_remove(&p->store, p, particle_fields, &p->count, i);
    p->materials.known = false;
    world->grid.valid = world->grid.fresh = false;
    world->distances.adj_dirty = world->distances.order_dirty = true;
    return SINEW_OK;
}

bool sinew_particle_is_valid(const sinew_world *world, sinew_particle_id id)
{
    return world != NULL && sinew__particle_lookup(world, id) >= 0;
}

// Shared entry check of the per-particle accessors: world and id valid, out non-NULL.
static int checked_index(const sinew_world *world, sinew_particle_id id, const void *out, sinew_status *status,
                         const char *what)
{
    if (world == NULL || out == NULL) {
        *status = sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, what);
        return -1;
    }
    int i = sinew__particle_lookup(world, id);
    if (i < 0) {
        *status = sinew__fail(world, SINEW_ERR_INVALID_ID, what);
    }
    return i;
}

sinew_status sinew_particle_get_position(const sinew_world *world, sinew_particle_id id, sinew_vec2 *out)
{
    sinew_status s = SINEW_OK;
    int i = checked_index(world, id, out, &s, "sinew_particle_get_position: bad world, id or out");
    if (i >= 0) {
        *out = sinew_vec2_make(world->particles.x[i], world->particles.y[i]);
    }
    return s;
}

sinew_status sinew_particle_set_position(sinew_world *world, sinew_particle_id id, sinew_vec2 position)
{
    sinew_status s = SINEW_OK;
    int i = checked_index(world, id, &position, &s, "sinew_particle_set_position: bad world or id");
    if (i < 0) {
        return s;
    }
    if (!sinew__finite2(position)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_particle_set_position: position must be finite");
    }
    if (!sinew__point_ok(position)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_particle_set_position: |position| > SINEW_MAX_COORDINATE");
    }
    sinew__particles *p = &world->particles;
    p->px[i] += position.x - p->x[i];
    p->py[i] += position.y - p->y[i];
    p->x[i] = position.x;
    p->y[i] = position.y;
    world->grid.fresh = false;
    return SINEW_OK;
}

sinew_status sinew_particle_get_velocity(const sinew_world *world, sinew_particle_id id, sinew_vec2 *out)
{
    sinew_status s = SINEW_OK;
    int i = checked_index(world, id, out, &s, "sinew_particle_get_velocity: bad world, id or out");
    if (i >= 0) {
        const sinew__particles *p = &world->particles;
        float inv_h = 1.0f / world->h_prev;
        *out = sinew_vec2_make(p->dx[i] * inv_h, p->dy[i] * inv_h);
    }
    return s;
}

sinew_status sinew_particle_set_velocity(sinew_world *world, sinew_particle_id id, sinew_vec2 velocity)
{
    sinew_status s = SINEW_OK;
    int i = checked_index(world, id, &velocity, &s, "sinew_particle_set_velocity: bad world or id");
    if (i < 0) {
        return s;
    }
    if (!sinew__finite2(velocity)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_particle_set_velocity: velocity must be finite");
    }
    if (!speed_ok(velocity)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_particle_set_velocity: |velocity| > SINEW_MAX_SPEED");
    }
    sinew__particles *p = &world->particles;
    p->dx[i] = velocity.x * world->h_prev;
    p->dy[i] = velocity.y * world->h_prev;
    p->px[i] = p->x[i] - p->dx[i];
    p->py[i] = p->y[i] - p->dy[i];
    return SINEW_OK;
}

sinew_status sinew_particle_get_weight(const sinew_world *world, sinew_particle_id id, float *out)
{
    sinew_status s = SINEW_OK;
    int i = checked_index(world, id, out, &s, "sinew_particle_get_weight: bad world, id or out");
    if (i >= 0) {
        *out = world->particles.w[i];
    }
    return s;
}

sinew_status sinew_particle_set_weight(sinew_world *world, sinew_particle_id id, float weight)
{
    sinew_status s = SINEW_OK;
    int i = checked_index(world, id, &weight, &s, "sinew_particle_set_weight: bad world or id");
    if (i < 0) {
        return s;
    }
    if (!sinew__finite(weight)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_particle_set_weight: weight must be finite");
    }
    if (weight < 0.0f) {
        return sinew__fail(world, SINEW_ERR_NEGATIVE_WEIGHT, "sinew_particle_set_weight: weight must be >= 0");
    }
    world->particles.w[i] = weight;
    world->particles.materials.known = false;
    world->distances.blocks_dirty = world->distances.colour_dirty = true; // independence counts movable particles only
    return SINEW_OK;
}

sinew_status sinew_particle_get(const sinew_world *world, sinew_particle_id id, sinew_particle_def *out)
{
    sinew_status s = SINEW_OK;
    const int i = checked_index(world, id, out, &s, "sinew_particle_get: bad world, id or out");
    if (i < 0) {
        return s;
    }
    const sinew__particles *p = &world->particles;
    const float inv_h = 1.0f / world->h_prev;
    sinew_particle_def d;
    d.position = sinew_vec2_make(p->x[i], p->y[i]);
    d.velocity = sinew_vec2_make(p->dx[i] * inv_h, p->dy[i] * inv_h);
    d.weight = p->w[i];
    d.radius = p->radius[i];
    d.flags = p->flags[i];
    d.group = sinew__particle_group(p, i);
    d.mask = sinew__particle_mask(p, i);
    const float mu_s = sinew__particle_mu_s(p, i), mu_k = sinew__particle_mu_k(p, i);
    d.friction = mu_s * mu_s; // stored as square roots
    d.kinetic_friction = mu_k * mu_k;
    d.user_data = p->with_user_data ? p->user_data[i] : NULL;
    *out = d;
    return SINEW_OK;
}

sinew_status sinew_particle_set_radius(sinew_world *world, sinew_particle_id id, float radius)
{
    sinew_status s = SINEW_OK;
    const int i = checked_index(world, id, &radius, &s, "sinew_particle_set_radius: bad world or id");
    if (i < 0) {
        return s;
    }
    if (!sinew__finite(radius)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_particle_set_radius: radius must be finite");
    }
    if (radius < 0.0f) {
        return sinew__fail(world, SINEW_ERR_NEGATIVE_RADIUS, "sinew_particle_set_radius: radius must be >= 0");
    }
    if (!sinew__coordinate_ok(radius)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_particle_set_radius: radius <= SINEW_MAX_COORDINATE");
    }
    world->particles.radius[i] = radius;
    world->particles.materials.known = false;
    world->grid.valid = world->grid.fresh = false; // cell sizes and contacts follow the radii
    return SINEW_OK;
}

sinew_status sinew_particle_set_flags(sinew_world *world, sinew_particle_id id, uint32_t flags)
{
    sinew_status s = SINEW_OK;
    const int i = checked_index(world, id, &flags, &s, "sinew_particle_set_flags: bad world or id");
    if (i < 0) {
        return s;
    }
    s = sinew__scratch_need(world, flag_needs(flags));
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_particle_set_flags: allocating the collision or event scratch failed");
    }
    world->particles.flags[i] = flags;
    world->particles.materials.known = false;
    world->events.enabled |= (flags & SINEW_PARTICLE_EVENTS) != 0u;
    world->grid.valid = world->grid.fresh = false; // which particles the grid holds
    return SINEW_OK;
}

sinew_status sinew_particle_set_filter(sinew_world *world, sinew_particle_id id, uint32_t group, uint32_t mask)
{
    sinew_status s = SINEW_OK;
    const int i = checked_index(world, id, &group, &s, "sinew_particle_set_filter: bad world or id");
    if (i < 0) {
        return s;
    }
    sinew__particles *p = &world->particles;
    s = with_arrays(world, filter_arrays(p, p->count == 1, group, mask));
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_particle_set_filter: allocating the filter arrays failed");
    }
    if (p->with_filters) {
        p->group[i] = group;
        p->mask[i] = mask;
    }
    p->materials.known = false;
    world->grid.valid = world->grid.fresh = false; // the grid keeps a copy of both
    return SINEW_OK;
}

sinew_status sinew_particle_set_friction(sinew_world *world, sinew_particle_id id, float friction,
                                         float kinetic_friction)
{
    sinew_status s = SINEW_OK;
    const int i = checked_index(world, id, &friction, &s, "sinew_particle_set_friction: bad world or id");
    if (i < 0) {
        return s;
    }
    if (!sinew__finite(friction) || !sinew__finite(kinetic_friction)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_particle_set_friction: frictions must be finite");
    }
    if (friction < 0.0f || kinetic_friction < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_particle_set_friction: frictions must be >= 0");
    }
    sinew__particles *p = &world->particles;
    const float mu_s = sqrtf(friction), mu_k = sqrtf(kinetic_friction);
    s = with_arrays(world, friction_arrays(p, p->count == 1, mu_s, mu_k));
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_particle_set_friction: allocating the friction arrays failed");
    }
    if (p->with_frictions) {
        p->mu_s[i] = mu_s;
        p->mu_k[i] = mu_k;
    }
    p->materials.known = false;
    return SINEW_OK;
}

sinew_status sinew_particle_set_user_data(sinew_world *world, sinew_particle_id id, void *user_data)
{
    sinew_status s = SINEW_OK;
    const int i = checked_index(world, id, &id, &s, "sinew_particle_set_user_data: bad world or id");
    if (i < 0) {
        return s;
    }
    s = with_arrays(world, user_data != NULL ? ARRAYS_USER_DATA : 0u);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_particle_set_user_data: allocating the user data array failed");
    }
    if (world->particles.with_user_data) {
        world->particles.user_data[i] = user_data;
    }
    return SINEW_OK;
}

sinew_status sinew_particle_apply_force(sinew_world *world, sinew_particle_id id, sinew_vec2 force)
{
    sinew_status s = SINEW_OK;
    int i = checked_index(world, id, &force, &s, "sinew_particle_apply_force: bad world or id");
    if (i < 0) {
        return s;
    }
    if (!sinew__finite2(force)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_particle_apply_force: force must be finite");
    }
    s = with_arrays(world, ARRAYS_FORCES);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_particle_apply_force: allocating the force arrays failed");
    }
    sinew__particles *p = &world->particles;
    p->ax[i] += force.x * p->w[i];
    p->ay[i] += force.y * p->w[i];
    p->forced = true;
    return SINEW_OK;
}

void *sinew_particle_user_data(const sinew_world *world, sinew_particle_id id)
{
    int i = world != NULL ? sinew__particle_lookup(world, id) : -1;
    return i >= 0 && world->particles.with_user_data ? world->particles.user_data[i] : NULL;
}

int sinew_particle_index(const sinew_world *world, sinew_particle_id id)
{
    return world != NULL ? sinew__particle_lookup(world, id) : -1;
}

sinew_particle_id sinew_particle_id_at(const sinew_world *world, int index)
{
    sinew_particle_id id = SINEW_NULL_ID;
    if (world != NULL && index >= 0 && index < world->particles.count) {
        sinew__store_id(&world->particles.store, index, &id.index1, &id.generation);
    }
    return id;
}

sinew_particle_view sinew_world_particles(const sinew_world *world)
{
    sinew_particle_view v = {0};
    if (world != NULL) {
        const sinew__particles *p = &world->particles;
        v.count = p->count;
        v.x = p->x;
        v.y = p->y;
        v.px = p->px;
        v.py = p->py;
        v.weight = p->w;
        v.radius = p->radius;
        v.flags = p->flags;
    }
    return v;
}

// The loop takes plain restrict pointers: read through the store's struct, GCC does not
// vectorize it. Returns non-zero when some predicted coordinate is NaN or beyond
// SINEW_MAX_COORDINATE (checked without a branch per particle). GCC would split `px = x` off
// into a memcpy, a second pass over x: kept in the one loop, the 100,000-ball pile at 4 x 1 ran
// 3% faster at one worker and 2% at two (6 of 8 alternating pairs each).
// With `a` NULL (no force applied since the last step: every a[i] is +0), the loop reads no force
// and adds g + 0 for each, the same float as g + a[i].
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
SINEW_FORCE_INLINE unsigned integrate_arrays(int n, float *restrict x, float *restrict px, float *restrict dx,
                                 const float *restrict a, const float *restrict w, float velocity_scale, float g,
                                 float h2)
{
    unsigned out = 0u;
    if (a == NULL) {
        const float pull = (g + 0.0f) * h2;
        for (int i = 0; i < n; ++i) {
            float m = w[i] > 0.0f ? 1.0f : 0.0f;
            float d = m * (dx[i] * velocity_scale + pull);
            px[i] = x[i];
            x[i] += d;
            dx[i] = d;
            out |= (unsigned)!sinew__coordinate_ok(x[i]);
        }
        return out;
    }
    for (int i = 0; i < n; ++i) {
        // Immovable particles (weight 0) keep their place; only a kinematic pin moves them.
        float m = w[i] > 0.0f ? 1.0f : 0.0f;
        float d = m * (dx[i] * velocity_scale + (g + a[i]) * h2);
        px[i] = x[i];
        x[i] += d;
        dx[i] = d;
        out |= (unsigned)!sinew__coordinate_ok(x[i]);
    }
    return out;
}

// Puts every particle whose position is NaN or beyond SINEW_MAX_COORDINATE back where its
// sub-step began (px, py), at rest; with `pack`, its motion record too. Returns how many.
static int reset_escaped(sinew__particles *p, bool pack)
{
    int reset = 0;
    for (int i = 0; i < p->count; ++i) {
        if (!(sinew__coordinate_ok(p->x[i]) && sinew__coordinate_ok(p->y[i]))) {
            p->x[i] = p->px[i];
            p->y[i] = p->py[i];
            p->dx[i] = p->dy[i] = 0.0f;
            if (pack) { // at rest where it began, before and after the solve: the response leaves it be
                p->motion[i] = (sinew__motion){p->px[i], p->py[i], 0.0f, 0.0f, p->px[i], p->py[i], 0.0f, 0.0f};
            }
            reset += 1;
        }
    }
    return reset;
}

// Threads: the per-particle passes in items of PARTICLE_ITEM particles (a multiple of the vector
// width, so every item runs the vector loops as the whole array would), each particle on its own.
#define PARTICLE_ITEM SINEW__PARTICLE_ITEM
#define PARTICLE_MIN_ITEMS 4 // a task's least: under 8 items (8,192 particles) a pass runs on one thread

typedef struct particle_task {
    sinew_world *world;
    float h2, velocity_scale; // integrate
    bool pack;                // finish: pack the motion records; the pairs: Gauss-Seidel's (see pack_xy_items)
    float most;               // unpack: the contact speed's bound (m per sub-step), or INFINITY
    atomic_uint out; // some coordinate left the range (an OR: the same whatever the split)
} particle_task;

// The particle passes' bodies are inline, so that each is built for the baseline and, on x86-64,
// for AVX2 (SINEW__TASK_BUILDS: eight particles an instruction where the baseline takes four; the
// same operations, no contraction into FMA, so the same bits). At 32 x 1, a 1,000-link rope's
// integration and finishing took 40% of its step.
SINEW_FORCE_INLINE void integrate_items_body(int start, int end, void *context)
{
    particle_task *t = context;
    sinew__particles *p = &t->world->particles;
    const int first = start * PARTICLE_ITEM, last = end * PARTICLE_ITEM < p->count ? end * PARTICLE_ITEM : p->count;
    const int n = last - first;
    const sinew_vec2 g = t->world->gravity;
    const bool forced = p->forced;
    const unsigned out =
        integrate_arrays(n, p->x + first, p->px + first, p->dx + first, forced ? p->ax + first : NULL, p->w + first,
                         t->velocity_scale, g.x, t->h2) |
        integrate_arrays(n, p->y + first, p->py + first, p->dy + first, forced ? p->ay + first : NULL, p->w + first,
                         t->velocity_scale, g.y, t->h2);
    atomic_fetch_or(&t->out, out);
}
SINEW__TASK_BUILDS(integrate_items, integrate_items_body(start, end, context))

static int particle_items(const sinew__particles *p) { return (p->count + PARTICLE_ITEM - 1) / PARTICLE_ITEM; }

void sinew__particles_for(sinew_world *world, sinew_task_fn *fn, void *context)
{
    sinew__parallel_for(&world->tasks, fn, particle_items(&world->particles), sinew__min_range(&world->tasks, PARTICLE_MIN_ITEMS),
                        context);
}

// Runs a per-particle pass over the workers; the particles it carried out of range go back where
// the sub-step began, at rest (with their motion records when the pass packed them). Returns how many.
static int particle_pass(sinew_world *world, sinew_task_fn *fn, particle_task *t)
{
    sinew__particles_for(world, fn, t);
    return atomic_load(&t->out) != 0u ? reset_escaped(&world->particles, t->pack) : 0;
}

static void clear_counts_items(int start, int end, int worker, void *context)
{
    (void)worker;
    sinew__particles *p = &((particle_task *)context)->world->particles;
    const int first = start * PARTICLE_ITEM, last = end * PARTICLE_ITEM < p->count ? end * PARTICLE_ITEM : p->count;
    memset(p->inv_n + first, 0, sizeof(float) * (size_t)(last - first));
}

// 1 / n for the particles of items [start, end), and 1 for the immovable ones. Written so that no
// division depends on a condition (a particle without a count computes 1 / 1 - 1), and the compiler
// vectorises both loops (in one loop, the select would keep the division from running in lanes
// it does not use: a branch per particle, 2.5 times slower). The same bits on both builds.
SINEW_FORCE_INLINE void invert_counts_items_body(int start, int end, void *context)
{
    sinew__particles *p = &((particle_task *)context)->world->particles;
    const int first = start * PARTICLE_ITEM, last = end * PARTICLE_ITEM < p->count ? end * PARTICLE_ITEM : p->count;
    float *restrict inv_n = p->inv_n;
    const float *restrict w = p->w;
    for (int i = first; i < last; ++i) {
        const float none = (float)(inv_n[i] == 0.0f);
        inv_n[i] = 1.0f / (inv_n[i] + none) - none;
    }
    for (int i = first; i < last; ++i) {
        inv_n[i] = w[i] == 0.0f ? 1.0f : inv_n[i];
    }
}

SINEW__TASK_BUILDS(invert_counts_items, invert_counts_items_body(start, end, context))

bool sinew__particles_spread(const sinew_world *world)
{
    return sinew__tasks_spread(&world->tasks, particle_items(&world->particles),
                               sinew__min_range(&world->tasks, PARTICLE_MIN_ITEMS));
}

// Jacobi's contact response, summed: each particle moves by its sums (acc the velocity part,
// jacobi_x, jacobi_y the position part), which are cleared, under the contact speed's bound.
static void apply_response_items(int start, int end, int worker, void *context)
{
    (void)worker;
    particle_task *t = context;
    sinew__particles *p = &t->world->particles;
    const int first = start * PARTICLE_ITEM, last = end * PARTICLE_ITEM < p->count ? end * PARTICLE_ITEM : p->count;
    unsigned out = 0u;
    for (int i = first; i < last; ++i) {
        p->dx[i] += (float)p->acc[i].dx;
        p->dy[i] += (float)p->acc[i].dy;
        p->x[i] += (float)p->jacobi_x[i];
        p->y[i] += (float)p->jacobi_y[i];
        p->acc[i].dx = p->acc[i].dy = p->jacobi_x[i] = p->jacobi_y[i] = 0.0;
        sinew__speed_bound(&p->dx[i], &p->dy[i], p->motion[i].dx0, p->motion[i].dy0, t->most, p->flags[i], p->w[i]);
        out |= (unsigned)!(sinew__coordinate_ok(p->x[i]) && sinew__coordinate_ok(p->y[i]));
    }
    atomic_fetch_or(&t->out, out);
}

int sinew__particles_apply_response(sinew_world *world, float most)
{
    particle_task t = {world, 0.0f, 0.0f, false, most, 0u};
    return particle_pass(world, apply_response_items, &t);
}

// Gauss-Seidel (t->pack) packs and copies back the pairs only in the items a contact touches
// (pack_item, as for the motion records): the others' pairs are never read. Jacobi writes every
// particle's pair as it moves them (and so its sums' memory is cleared everywhere).
static void pack_xy_items(int start, int end, int worker, void *context)
{
    (void)worker;
    const particle_task *t = context;
    sinew__particles *p = &t->world->particles;
    float *restrict xy = p->xy;
    const float *restrict x = p->x, *restrict y = p->y;
    for (int k = start; k < end; ++k) {
        if (t->pack && !atomic_load_explicit(&p->pack_item[k], memory_order_relaxed)) {
            continue;
        }
        const int first = k * PARTICLE_ITEM, last = first + PARTICLE_ITEM < p->count ? first + PARTICLE_ITEM : p->count;
        for (int i = first; i < last; ++i) {
            xy[2 * i] = x[i];
            xy[2 * i + 1] = y[i];
        }
    }
}

static void unpack_xy_items(int start, int end, int worker, void *context)
{
    (void)worker;
    const particle_task *t = context;
    sinew__particles *p = &t->world->particles;
    for (int k = start; k < end; ++k) {
        if (t->pack && !atomic_load_explicit(&p->pack_item[k], memory_order_relaxed)) {
            continue;
        }
        const int first = k * PARTICLE_ITEM, last = first + PARTICLE_ITEM < p->count ? first + PARTICLE_ITEM : p->count;
        if (!t->pack) {
            memset(p->jacobi_x + first, 0, sizeof(double) * (size_t)(last - first)); // (Jacobi: its sums are zero again)
            continue;
        }
        const float *restrict xy = p->xy; // (Gauss-Seidel: xy is where the positions are)
        float *restrict x = p->x, *restrict y = p->y;
        for (int i = first; i < last; ++i) {
            x[i] = xy[2 * i];
            y[i] = xy[2 * i + 1];
        }
    }
}

void sinew__particles_begin_xy(sinew_world *world, bool recording)
{
    sinew__particles *p = &world->particles;
    p->xy = NULL;
    const bool jacobi = world->solver.mode == SINEW_SOLVER_JACOBI;
    // Packing costs a pass over the particles a sub-step (Jacobi also writes every pair as it moves
    // them); the pairs save a few cycles at each contact's end, every iteration. In perf samples
    // (10,000-ball Jacobi pile, 8 x 4) they paid for themselves from about 1.3 contacts x
    // iterations a particle; a pile pouring in, with few contacts yet, is not worth it.
    const int64_t work = (int64_t)world->contacts.l.count * world->solver.iterations;
    if (!world->avx2 || recording || work < 2 * (int64_t)p->count) {
        return;
    }
    for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
        const sinew_kind kind = sinew__kinds[t]->kind;
        if (kind != SINEW_KIND_CONTACT && kind != SINEW_KIND_COLLIDER && sinew__kinds[t]->count(world) > 0) {
            return;
        }
    }
    p->xy = (float *)(void *)(jacobi ? (void *)p->jacobi_x : (void *)p->motion); // (two floats a double's or a record's place)
    particle_task t = {world, 0.0f, 0.0f, !jacobi, INFINITY, 0u};
    particle_pass(world, pack_xy_items, &t);
}

void sinew__particles_end_xy(sinew_world *world)
{
    if (world->particles.xy == NULL) {
        return;
    }
    particle_task t = {world, 0.0f, 0.0f, world->solver.mode != SINEW_SOLVER_JACOBI, INFINITY, 0u};
    particle_pass(world, unpack_xy_items, &t);
    world->particles.xy = NULL;
}

void sinew__particles_clear_counts(sinew_world *world)
{
    particle_task t = {world, 0.0f, 0.0f, false, INFINITY, 0u};
    particle_pass(world, clear_counts_items, &t);
}

void sinew__particles_invert_counts(sinew_world *world)
{
    particle_task t = {world, 0.0f, 0.0f, false, INFINITY, 0u};
    particle_pass(world, SINEW__TASK_FN(world, invert_counts_items), &t);
}

int sinew__particles_integrate(sinew_world *world, float h, float velocity_scale)
{
    particle_task t = {world, h * h, velocity_scale, false, INFINITY, 0u};
    // A force, gravity or speed that carries a particle out of range (or overflows) must not reach
    // the grid nor any neighbour: it stays where the sub-step begins.
    return particle_pass(world, SINEW__TASK_FN(world, integrate_items), &t);
}

const sinew__materials *sinew__particles_materials(sinew_world *world)
{
    sinew__particles *p = &world->particles;
    sinew__materials *m = &p->materials;
    if (m->known) {
        return m;
    }
    const uint32_t *restrict flags = p->flags;
    const float *restrict w = p->w, *restrict r = p->radius;
    int first = 0;
    while (first < p->count && (flags[first] & SINEW_PARTICLE_COLLIDES) == 0u) {
        first += 1;
    }
    *m = (sinew__materials){.known = true};
    if (first == p->count) {
        return m;
    }
    m->any = true;
    m->w = w[first];
    m->mu_s = sinew__particle_mu_s(p, first);
    m->mu_k = sinew__particle_mu_k(p, first);
    m->radius = r[first];
    m->group = sinew__particle_group(p, first);
    m->mask = sinew__particle_mask(p, first);
    bool material = true, shape = true;
    for (int i = first + 1; i < p->count; ++i) {
        if ((flags[i] & SINEW_PARTICLE_COLLIDES) != 0u) {
            const bool weight = w[i] == m->w;
            material = material && weight && sinew__particle_mu_s(p, i) == m->mu_s && sinew__particle_mu_k(p, i) == m->mu_k;
            shape = shape && weight && r[i] == m->radius && sinew__particle_group(p, i) == m->group &&
                    sinew__particle_mask(p, i) == m->mask;
        }
    }
    m->one_material = material;
    m->one_shape = shape;
    return m;
}

float sinew__particles_max_accel(const sinew_world *world)
{
    const sinew__particles *p = &world->particles;
    float most = 0.0f;
    for (int i = 0; p->forced && i < p->count; ++i) {
        float a2 = p->ax[i] * p->ax[i] + p->ay[i] * p->ay[i];
        most = a2 > most ? a2 : most;
    }
    return sqrtf(most);
}

// The displacement after the solve: px + dx repeats the float addition integrate made, so it is
// the predicted position to the bit, and x - predicted is the solver's correction, exactly.
SINEW_FORCE_INLINE float finished(float x, float px, float dx) { return dx + (x - (px + dx)); }

// Adds the solver's correction to the displacement along one axis; returns non-zero when some
// coordinate is NaN or beyond SINEW_MAX_COORDINATE (checked without a branch per particle). A
// position within range over a start within range keeps the displacement finite.
SINEW_FORCE_INLINE unsigned finish_arrays(int n, const float *restrict x, const float *restrict px, float *restrict dx)
{
    unsigned out = 0u;
    for (int i = 0; i < n; ++i) {
        dx[i] = finished(x[i], px[i], dx[i]);
        out |= (unsigned)!sinew__coordinate_ok(x[i]);
    }
    return out;
}

// finish_arrays for both axes from particle `first` on, also packing each particle's motion
// record (the displacement before the solve is the one finish_arrays replaces).
static unsigned finish_and_pack(int first, int n, const float *restrict x, const float *restrict y,
                                const float *restrict px, const float *restrict py, float *restrict dx,
                                float *restrict dy, sinew__motion *restrict motion)
{
    unsigned out = 0u;
    for (int i = first; i < n; ++i) {
        const float ndx = finished(x[i], px[i], dx[i]), ndy = finished(y[i], py[i], dy[i]);
        motion[i] = (sinew__motion){x[i], y[i], ndx, ndy, px[i], py[i], dx[i], dy[i]};
        dx[i] = ndx;
        dy[i] = ndy;
        out |= (unsigned)!(sinew__coordinate_ok(x[i]) && sinew__coordinate_ok(y[i]));
    }
    return out;
}

// Copies the motion records back, with the contact speed's bound (`most`, m per sub-step: see
// sinew__speed_bound; INFINITY when the world does not watch, and then nothing is bounded);
// returns nonzero when a position left the range.
static unsigned unpack(int first, int n, const sinew__motion *restrict m, float *restrict x, float *restrict y,
                               float *restrict dx, float *restrict dy, const uint32_t *restrict flags,
                               const float *restrict w, float most)
{
    unsigned out = 0u;
    for (int i = first; i < n; ++i) {
        float ndx = m[i].dx, ndy = m[i].dy;
        sinew__speed_bound(&ndx, &ndy, m[i].dx0, m[i].dy0, most, flags[i], w[i]);
        x[i] = m[i].x;
        y[i] = m[i].y;
        dx[i] = ndx;
        dy[i] = ndy;
        out |= (unsigned)!(sinew__coordinate_ok(x[i]) && sinew__coordinate_ok(y[i]));
    }
    return out;
}

#if SINEW__X86
// finish_and_pack eight particles at a time: the same arithmetic, the eight arrays transposed
// into eight records.
SINEW__AVX2 static unsigned finish_and_pack_avx2(int n, const float *restrict x, const float *restrict y,
                                                 const float *restrict px, const float *restrict py, float *restrict dx,
                                                 float *restrict dy, sinew__motion *restrict motion)
{
    const __m256 limit = _mm256_set1_ps(SINEW_MAX_COORDINATE), sign = _mm256_set1_ps(-0.0f);
    __m256 in = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    int i = 0;
    for (; i + SINEW__LANES <= n; i += SINEW__LANES) {
        const __m256 xi = _mm256_loadu_ps(x + i), yi = _mm256_loadu_ps(y + i);
        const __m256 pxi = _mm256_loadu_ps(px + i), pyi = _mm256_loadu_ps(py + i);
        const __m256 dxi = _mm256_loadu_ps(dx + i), dyi = _mm256_loadu_ps(dy + i);
        const __m256 ndx = _mm256_add_ps(dxi, _mm256_sub_ps(xi, _mm256_add_ps(pxi, dxi)));
        const __m256 ndy = _mm256_add_ps(dyi, _mm256_sub_ps(yi, _mm256_add_ps(pyi, dyi)));
        __m256 r[SINEW__LANES] = {xi, yi, ndx, ndy, pxi, pyi, dxi, dyi};
        sinew__transpose8(r);
        for (int l = 0; l < SINEW__LANES; ++l) {
            _mm256_store_ps(&motion[i + l].x, r[l]);
        }
        _mm256_storeu_ps(dx + i, ndx);
        _mm256_storeu_ps(dy + i, ndy);
        in = _mm256_and_ps(in, _mm256_and_ps(_mm256_cmp_ps(_mm256_andnot_ps(sign, xi), limit, _CMP_LE_OQ),
                                             _mm256_cmp_ps(_mm256_andnot_ps(sign, yi), limit, _CMP_LE_OQ)));
    }
    const unsigned out = (unsigned)(_mm256_movemask_ps(in) != 0xff);
    _mm256_zeroupper(); // (see unpack_bounded_avx2)
    return out | finish_and_pack(i, n, x, y, px, py, dx, dy, motion);
}

// Stores eight new displacements (ndx, ndy) with sinew__speed_bound's operations in its order,
// against the displacements predicted before the solve (pdx, pdy), for particles [i, i + 8).
SINEW_FORCE_INLINE SINEW__AVX2 void store_bounded8(float *restrict dx, float *restrict dy, __m256 ndx, __m256 ndy,
                                                  __m256 pdx, __m256 pdy, const uint32_t *restrict flags,
                                                  const float *restrict w, __m256 bound)
{
    // Most particles move far less than the bound: when every lane has 2 max(|dx|, |dy|) <= most
    // (so |d| <= most), the eight keep their displacements without the roots and the division.
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256 reach = _mm256_mul_ps(_mm256_max_ps(_mm256_andnot_ps(sign, ndx), _mm256_andnot_ps(sign, ndy)),
                                       _mm256_set1_ps(2.0f));
    if (_mm256_movemask_ps(_mm256_cmp_ps(reach, bound, _CMP_GT_OQ)) == 0) {
        _mm256_storeu_ps(dx, ndx);
        _mm256_storeu_ps(dy, ndy);
        return;
    }
    const __m256 predicted = _mm256_sqrt_ps(_mm256_add_ps(_mm256_mul_ps(pdx, pdx), _mm256_mul_ps(pdy, pdy)));
    const __m256 most_here = _mm256_blendv_ps(bound, predicted, _mm256_cmp_ps(predicted, bound, _CMP_GT_OQ));
    const __m256 d = _mm256_sqrt_ps(_mm256_add_ps(_mm256_mul_ps(ndx, ndx), _mm256_mul_ps(ndy, ndy)));
    const __m256i f = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)flags),
                                       _mm256_set1_epi32((int)SINEW_PARTICLE_COLLIDES));
    const __m256 bounded = _mm256_and_ps(
        _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(f, _mm256_setzero_si256())),
                         _mm256_cmp_ps(_mm256_loadu_ps(w), _mm256_setzero_ps(), _CMP_GT_OQ)),
        _mm256_cmp_ps(d, most_here, _CMP_GT_OQ));
    const __m256 s = _mm256_div_ps(most_here, d);
    _mm256_storeu_ps(dx, _mm256_blendv_ps(ndx, _mm256_mul_ps(ndx, s), bounded));
    _mm256_storeu_ps(dy, _mm256_blendv_ps(ndy, _mm256_mul_ps(ndy, s), bounded));
}

// unpack eight particles at a time, with sinew__speed_bound's operations in its order.
SINEW__AVX2 static unsigned unpack_avx2(int n, const sinew__motion *restrict m, float *restrict x, float *restrict y,
                                                float *restrict dx, float *restrict dy, const uint32_t *restrict flags,
                                                const float *restrict w, float most)
{
    const __m256 limit = _mm256_set1_ps(SINEW_MAX_COORDINATE), sign = _mm256_set1_ps(-0.0f);
    const __m256 bound = _mm256_set1_ps(most);
    __m256 in = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    int i = 0;
    for (; i + SINEW__LANES <= n; i += SINEW__LANES) {
        __m256 r[SINEW__LANES];
        for (int l = 0; l < SINEW__LANES; ++l) {
            r[l] = _mm256_load_ps(&m[i + l].x);
        }
        sinew__transpose8(r); // x, y, dx, dy, px, py, dx0, dy0
        _mm256_storeu_ps(x + i, r[0]);
        _mm256_storeu_ps(y + i, r[1]);
        in = _mm256_and_ps(in, _mm256_and_ps(_mm256_cmp_ps(_mm256_andnot_ps(sign, r[0]), limit, _CMP_LE_OQ),
                                             _mm256_cmp_ps(_mm256_andnot_ps(sign, r[1]), limit, _CMP_LE_OQ)));
        store_bounded8(dx + i, dy + i, r[2], r[3], r[6], r[7], flags + i, w + i, bound);
    }
    const unsigned out = (unsigned)(_mm256_movemask_ps(in) != 0xff);
    // GCC leaves out the vzeroupper before this call (to a function built without AVX), and the
    // legacy SSE code after it (the contact promotion) then ran 2.5x slower on AMD EPYC.
    _mm256_zeroupper();
    return out | unpack(i, n, m, x, y, dx, dy, flags, w, most);
}
#endif

// finish_arrays for both axes, with the contact speed's bound `most` applied to each new
// displacement (as sinew__particles_unpack_motion applies it to a record's): the end of a sub-step
// for the particles of an item no contact touches.
static unsigned finish_bounded(int n, const float *restrict x, const float *restrict y, const float *restrict px,
                               const float *restrict py, float *restrict dx, float *restrict dy,
                               const uint32_t *restrict flags, const float *restrict w, float most)
{
    if (!(most < INFINITY)) {
        return finish_arrays(n, x, px, dx) | finish_arrays(n, y, py, dy);
    }
    unsigned out = 0u;
    for (int i = 0; i < n; ++i) {
        float ndx = finished(x[i], px[i], dx[i]), ndy = finished(y[i], py[i], dy[i]);
        sinew__speed_bound(&ndx, &ndy, dx[i], dy[i], most, flags[i], w[i]);
        dx[i] = ndx;
        dy[i] = ndy;
        out |= (unsigned)!(sinew__coordinate_ok(x[i]) && sinew__coordinate_ok(y[i]));
    }
    return out;
}

#if SINEW__X86
// finish_bounded eight particles at a time, the bound by store_bounded8 as in unpack_avx2 (the
// same operations, so the same bits as the portable path).
SINEW__AVX2 static unsigned finish_bounded_avx2(int n, const float *restrict x, const float *restrict y,
                                                const float *restrict px, const float *restrict py, float *restrict dx,
                                                float *restrict dy, const uint32_t *restrict flags,
                                                const float *restrict w, float most)
{
    const __m256 limit = _mm256_set1_ps(SINEW_MAX_COORDINATE), sign = _mm256_set1_ps(-0.0f);
    const __m256 bound = _mm256_set1_ps(most);
    __m256 in = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    int i = 0;
    for (; i + SINEW__LANES <= n; i += SINEW__LANES) {
        const __m256 xi = _mm256_loadu_ps(x + i), yi = _mm256_loadu_ps(y + i);
        const __m256 dxi = _mm256_loadu_ps(dx + i), dyi = _mm256_loadu_ps(dy + i);
        const __m256 ndx = _mm256_add_ps(dxi, _mm256_sub_ps(xi, _mm256_add_ps(_mm256_loadu_ps(px + i), dxi)));
        const __m256 ndy = _mm256_add_ps(dyi, _mm256_sub_ps(yi, _mm256_add_ps(_mm256_loadu_ps(py + i), dyi)));
        in = _mm256_and_ps(in, _mm256_and_ps(_mm256_cmp_ps(_mm256_andnot_ps(sign, xi), limit, _CMP_LE_OQ),
                                             _mm256_cmp_ps(_mm256_andnot_ps(sign, yi), limit, _CMP_LE_OQ)));
        store_bounded8(dx + i, dy + i, ndx, ndy, dxi, dyi, flags + i, w + i, bound);
    }
    const unsigned out = (unsigned)(_mm256_movemask_ps(in) != 0xff);
    _mm256_zeroupper(); // (see unpack_avx2)
    return out | finish_bounded(n - i, x + i, y + i, px + i, py + i, dx + i, dy + i, flags + i, w + i, most);
}
#endif

SINEW_FORCE_INLINE void finish_items_body(int start, int end, void *context)
{
    particle_task *t = context;
    sinew__particles *p = &t->world->particles;
    unsigned out = 0u;
    for (int k = start; k < end; ++k) {
        const int f = k * PARTICLE_ITEM, n = (f + PARTICLE_ITEM < p->count ? f + PARTICLE_ITEM : p->count) - f;
        if (!t->pack) {
            out |= finish_arrays(n, p->x + f, p->px + f, p->dx + f) | finish_arrays(n, p->y + f, p->py + f, p->dy + f);
        } else if (!atomic_load_explicit(&p->pack_item[k], memory_order_relaxed)) {
#if SINEW__X86
            if (t->world->avx2 && t->most < INFINITY) {
                out |= finish_bounded_avx2(n, p->x + f, p->y + f, p->px + f, p->py + f, p->dx + f, p->dy + f,
                                           p->flags + f, p->w + f, t->most);
                continue;
            }
#endif
            out |= finish_bounded(n, p->x + f, p->y + f, p->px + f, p->py + f, p->dx + f, p->dy + f, p->flags + f,
                                  p->w + f, t->most);
        }
#if SINEW__X86
        else if (t->world->avx2) {
            out |= finish_and_pack_avx2(n, p->x + f, p->y + f, p->px + f, p->py + f, p->dx + f, p->dy + f, p->motion + f);
        }
#endif
        else {
            out |= finish_and_pack(0, n, p->x + f, p->y + f, p->px + f, p->py + f, p->dx + f, p->dy + f, p->motion + f);
        }
    }
    atomic_fetch_or(&t->out, out);
}
SINEW__TASK_BUILDS(finish_items, finish_items_body(start, end, context))

int sinew__particles_finish_substep(sinew_world *world, bool pack, float most)
{
    particle_task t = {world, 0.0f, 0.0f, pack, most, 0u};
    // A diverging solve (say Jacobi over-relaxed at one iteration) must not spread NaN: the
    // particles it broke go back to where the sub-step began, at rest, and are counted.
    // (With records to pack, the items dispatch to their own AVX2 kernels, some of whose baseline
    // fallbacks the AVX2 build would call with the vector registers' upper halves in use.)
    return particle_pass(world, pack ? finish_items_portable : SINEW__TASK_FN(world, finish_items), &t);
}

// Items no contact touches were finished (and bounded) without records: nothing to copy back.
static void unpack_items(int start, int end, int worker, void *context)
{
    (void)worker;
    particle_task *t = context;
    sinew__particles *p = &t->world->particles;
    unsigned out = 0u;
    for (int k = start; k < end; ++k) {
        if (!atomic_load_explicit(&p->pack_item[k], memory_order_relaxed)) {
            continue;
        }
        const int f = k * PARTICLE_ITEM, n = (f + PARTICLE_ITEM < p->count ? f + PARTICLE_ITEM : p->count) - f;
#if SINEW__X86
        if (t->world->avx2) {
            out |= unpack_avx2(n, p->motion + f, p->x + f, p->y + f, p->dx + f, p->dy + f, p->flags + f, p->w + f, t->most);
            continue;
        }
#endif
        out |= unpack(0, n, p->motion + f, p->x + f, p->y + f, p->dx + f, p->dy + f, p->flags + f, p->w + f, t->most);
    }
    atomic_fetch_or(&t->out, out);
}

void sinew__particles_pack_reset(sinew_world *world, bool all)
{
    sinew__particles *p = &world->particles;
    if (p->pack_item == NULL) {
        return;
    }
    const unsigned char value = all || world->pack_all;
    for (int k = 0, items = particle_items(p); k < items; ++k) {
        atomic_store_explicit(&p->pack_item[k], value, memory_order_relaxed);
    }
}

int sinew__particles_unpack_motion(sinew_world *world, float most)
{
    particle_task t = {world, 0.0f, 0.0f, false, most, 0u};
    return particle_pass(world, unpack_items, &t);
}

int sinew__particles_reset_escaped(sinew_world *world) { return reset_escaped(&world->particles, false); }
