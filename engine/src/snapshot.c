// Snapshots: a world saved to bytes and loaded back, or cloned, to the bit.
//
// Format (native byte order, which the header records):
//   header, 40 bytes: "SINEWSNP", version (u32), the number 0x01020304 as written (u32), the sizes
//   of float, double and a pointer (u8 each: user data is saved as the pointer's bits) and a zero
//   byte, the section count (u32), the payload size (u64) and the checksum of the payload (see sinew__snapshot_checksum)
//   (u64);
//   payload: sections, each a tag (u32), a zero (u32), its size (u64) and its bytes: the world's
//   settings, the particles, each constraint kind that is not rebuilt every step (in the order of
//   sinew__kinds), the colliders.
// What is saved is what the next steps read; what a step rebuilds (contacts, the grid, Jacobi's
// layout, block flags, XPBD multipliers, shuffle orders, every particle's scratch) is not.
#include <string.h>

#include "snapshot.h"
#include "world_internal.h"

#define SINEW__SNAPSHOT_VERSION 3u // 2: pins hold max_force, the solver link_forces; 3: the contact speed
#define SINEW__ENDIAN_MARK 0x01020304u
#define SINEW__HEADER_BYTES 40u

static const char magic[8] = {'S', 'I', 'N', 'E', 'W', 'S', 'N', 'P'};

enum { TAG_WORLD = 0x444c5257u, TAG_PARTICLES = 0x54524150u, TAG_COLLIDERS = 0x4c4c4f43u, TAG_KIND = 0x444e494bu,
       TAG_EVENTS = 0x53545645u };

// ---- the world's settings ---------------------------------------------------------------------

static void save_world(const sinew_world *world, sinew__writer *w)
{
    sinew__put_f32(w, world->gravity.x);
    sinew__put_f32(w, world->gravity.y);
    sinew__put_f32(w, world->damping);
    sinew__put_u32(w, (uint32_t)world->solver.mode);
    sinew__put_u32(w, (uint32_t)world->solver.substeps);
    sinew__put_u32(w, (uint32_t)world->solver.iterations);
    sinew__put_f32(w, world->solver.jacobi_omega);
    sinew__put_u32(w, (uint32_t)world->solver.order);
    sinew__put_u64(w, world->solver.shuffle_seed);
    sinew__put_u32(w, world->solver.link_forces ? 1u : 0u);
    sinew__put_u32(w, (uint32_t)world->max_particles);
    sinew__put_u32(w, (uint32_t)world->max_constraints);
    sinew__put_f32(w, world->h_prev);
    sinew__put_u64(w, world->step_count);
    sinew__put_u32(w, (uint32_t)world->skip_linked_pairs | (uint32_t)world->record << 1 | (uint32_t)world->deep_watch << 2);
    sinew__put_f32(w, world->contact_speed);
}

// Reads the settings into a def (allocator, user data and threads from `def_in`), then creates
// the world.
static sinew_world *load_world(sinew__reader *r, const sinew_world_def *def_in)
{
    sinew_world_def def = sinew_default_world_def();
    if (def_in != NULL) {
        def.allocator = def_in->allocator;
        def.user_data = def_in->user_data;
        def.workers = def_in->workers;
        def.enqueue_task = def_in->enqueue_task;
        def.finish_task = def_in->finish_task;
        def.task_context = def_in->task_context;
    }
    def.gravity.x = sinew__get_f32(r);
    def.gravity.y = sinew__get_f32(r);
    def.damping = sinew__get_f32(r);
    def.solver.mode = (sinew_solver_mode)sinew__get_u32(r);
    def.solver.substeps = (int)sinew__get_u32(r);
    def.solver.iterations = (int)sinew__get_u32(r);
    def.solver.jacobi_omega = sinew__get_f32(r);
    def.solver.order = (sinew_gs_order)sinew__get_u32(r);
    def.solver.shuffle_seed = sinew__get_u64(r);
    def.solver.link_forces = sinew__get_u32(r) != 0u;
    def.max_particles = (int)sinew__get_u32(r);
    def.max_constraints = (int)sinew__get_u32(r);
    const float h_prev = sinew__get_f32(r);
    const uint64_t steps = sinew__get_u64(r);
    const uint32_t flags = sinew__get_u32(r);
    def.skip_linked_pairs = (flags & 1u) != 0u;
    if (r->at < r->size) { // (version 3 on; before it, the default)
        def.contact_speed = sinew__get_f32(r);
    }
    def.particle_capacity = 0;
    def.constraint_capacity = 0;
    if (r->status != SINEW_OK) {
        return NULL;
    }
    if (!sinew__expect(r, flags <= 7u && sinew__finite(h_prev) && h_prev > 0.0f && h_prev <= SINEW_MAX_DT,
                       "snapshot: the world's settings are out of range")) {
        return NULL;
    }
    sinew_world *world = NULL;
    const sinew_status s = sinew_world_create(&def, &world);
    if (s != SINEW_OK) {
        sinew__reader_fail(r, s == SINEW_ERR_OUT_OF_MEMORY || s == SINEW_ERR_NULL_ARGUMENT ? s : SINEW_ERR_SNAPSHOT_INVALID,
             "snapshot: the world's settings are refused by sinew_world_create");
        return NULL;
    }
    world->h_prev = h_prev;
    world->step_count = steps;
    world->deep_watch = (flags & 4u) != 0u;
    world->record = (flags & 2u) != 0u;
    return world;
}

// ---- sections ---------------------------------------------------------------------------------

typedef struct section {
    uint32_t tag;
    void (*save)(const sinew_world *world, sinew__writer *w);
    bool (*load)(sinew_world *world, sinew__reader *r);
} section;

// The sections after the world's settings, in order.
static int sections(section out[SINEW_KIND_COUNT + 3])
{
    int n = 0;
    out[n++] = (section){TAG_PARTICLES, sinew__particles_save, sinew__particles_load};
    for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
        if (sinew__kinds[t]->save != NULL) {
            out[n++] = (section){TAG_KIND + (uint32_t)sinew__kinds[t]->kind, sinew__kinds[t]->save,
                                 sinew__kinds[t]->load};
        }
    }
    out[n++] = (section){TAG_COLLIDERS, sinew__colliders_save, sinew__colliders_load};
    out[n++] = (section){TAG_EVENTS, sinew__events_save, sinew__events_load};
    return n;
}

// The payload's checksum: four lanes of 64-bit words, each mixed by multiply and rotate (so a
// lane's chain of multiplies overlaps the others'), folded together with the tail bytes and the
// length. Catches any change of a bit in practice; it is no defence against a forger (nothing is).
static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v * 0x9e3779b97f4a7c15ull;
    h = (h << 31) | (h >> 33);
    return h * 0xbf58476d1ce4e5b9ull;
}

uint64_t sinew__snapshot_checksum(const uint8_t *bytes, size_t n)
{
    uint64_t lane[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull};
    size_t at = 0;
    for (; at + 32 <= n; at += 32) {
        for (int l = 0; l < 4; ++l) {
            uint64_t v;
            memcpy(&v, bytes + at + 8 * l, 8);
            lane[l] = mix(lane[l], v);
        }
    }
    uint64_t h = mix(mix(mix(lane[0], lane[1]), lane[2]), lane[3]);
    for (; at < n; ++at) {
        h = mix(h, bytes[at]);
    }
    return mix(h, (uint64_t)n);
}

// Writes the whole snapshot through w (measuring only when w->data is NULL).
static void save_all(const sinew_world *world, sinew__writer *w)
{
    section list[SINEW_KIND_COUNT + 3];
    const int n = sections(list);
    uint8_t header[SINEW__HEADER_BYTES] = {0};
    sinew__put(w, header, sizeof header); // filled in once the payload is written
    const size_t payload = w->size;
    for (int k = -1; k < n; ++k) {
        sinew__put_u32(w, k < 0 ? (uint32_t)TAG_WORLD : list[k].tag);
        sinew__put_u32(w, 0u);
        const size_t size_at = w->size;
        sinew__put_u64(w, 0u);
        const size_t start = w->size;
        if (k < 0) {
            save_world(world, w);
        } else {
            list[k].save(world, w);
        }
        const uint64_t size = (uint64_t)(w->size - start);
        if (w->data != NULL && w->size <= w->capacity) {
            memcpy(w->data + size_at, &size, sizeof size);
        }
    }
    if (w->data == NULL || w->size > w->capacity) {
        return;
    }
    const uint32_t version = SINEW__SNAPSHOT_VERSION, mark = SINEW__ENDIAN_MARK, count = (uint32_t)n + 1u;
    const uint64_t payload_size = (uint64_t)(w->size - payload), hash = sinew__snapshot_checksum(w->data + payload, w->size - payload);
    uint8_t *h = w->data;
    memcpy(h, magic, 8);
    memcpy(h + 8, &version, 4);
    memcpy(h + 12, &mark, 4);
    h[16] = (uint8_t)sizeof(float);
    h[17] = (uint8_t)sizeof(double);
    h[18] = (uint8_t)sizeof(void *);
    memcpy(h + 20, &count, 4);
    memcpy(h + 24, &payload_size, 8);
    memcpy(h + 32, &hash, 8);
}

size_t sinew_world_save_size(const sinew_world *world)
{
    if (world == NULL) {
        return 0u;
    }
    sinew__writer w = {NULL, 0u, 0u};
    save_all(world, &w);
    return w.size;
}

sinew_status sinew_world_save(const sinew_world *world, void *buffer, size_t capacity, size_t *written)
{
    if (world == NULL || buffer == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_world_save: world and buffer are required");
    }
    sinew__writer w = {buffer, capacity, 0u};
    save_all(world, &w);
    if (w.size > capacity) {
        return sinew__fail(world, SINEW_ERR_BUFFER_TOO_SMALL,
                           "sinew_world_save: the buffer is smaller than sinew_world_save_size");
    }
    if (written != NULL) {
        *written = w.size;
    }
    return SINEW_OK;
}

// Checks the header; on success r reads the payload.
static bool read_header(sinew__reader *r, uint32_t *section_count)
{
    if (r->size < SINEW__HEADER_BYTES) {
        const size_t start = r->size < 8 ? r->size : 8;
        return memcmp(r->data, magic, start) != 0
                   ? sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_FOREIGN, "snapshot: not a sinew snapshot (no SINEWSNP at the start)")
                   : sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_TRUNCATED, "snapshot: shorter than its header");
    }
    const uint8_t *h = r->data;
    uint32_t version, mark;
    uint64_t payload_size, hash;
    memcpy(&version, h + 8, 4);
    memcpy(&mark, h + 12, 4);
    memcpy(section_count, h + 20, 4);
    memcpy(&payload_size, h + 24, 8);
    memcpy(&hash, h + 32, 8);
    if (memcmp(h, magic, 8) != 0) {
        return sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_FOREIGN, "snapshot: not a sinew snapshot (no SINEWSNP at the start)");
    }
    if (mark != SINEW__ENDIAN_MARK || h[16] != sizeof(float) || h[17] != sizeof(double) || h[18] != sizeof(void *)) {
        return sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_FOREIGN,
                    "snapshot: saved on a machine with another byte order, float or pointer size");
    }
    if (version > SINEW__SNAPSHOT_VERSION) {
        return sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_VERSION, "snapshot: saved by a newer sinew (a later format version)");
    }
    if (version == 0u || h[19] != 0u) {
        return sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_CORRUPT, "snapshot: the header is damaged");
    }
    if (payload_size > (uint64_t)(r->size - SINEW__HEADER_BYTES)) {
        return sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_TRUNCATED, "snapshot: shorter than the size its header records");
    }
    if (payload_size < (uint64_t)(r->size - SINEW__HEADER_BYTES)) {
        return sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_CORRUPT, "snapshot: longer than the size its header records");
    }
    if (sinew__snapshot_checksum(h + SINEW__HEADER_BYTES, (size_t)payload_size) != hash) {
        return sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_CORRUPT, "snapshot: the checksum does not match (the bytes changed)");
    }
    r->at = SINEW__HEADER_BYTES;
    return true;
}

// The next section, whose tag must be `tag`: a reader over its bytes alone.
static bool open_section(sinew__reader *r, uint32_t tag, sinew__reader *out)
{
    const uint32_t got = sinew__get_u32(r);
    sinew__get_u32(r);
    const uint64_t size = sinew__get_u64(r);
    if (r->status != SINEW_OK) {
        return false;
    }
    if (got != tag || size > (uint64_t)(r->size - r->at)) {
        return sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_INVALID, "snapshot: its sections are not the ones this version writes");
    }
    *out = (sinew__reader){r->data + r->at, (size_t)size, 0u, SINEW_OK, NULL};
    r->at += (size_t)size;
    return true;
}

// A section read to its end, exactly.
static bool close_section(sinew__reader *r, sinew__reader *sec)
{
    if (sec->status == SINEW_OK && sec->at != sec->size) {
        sinew__reader_fail(sec, SINEW_ERR_SNAPSHOT_INVALID, "snapshot: a section holds more than its contents");
    }
    return sec->status == SINEW_OK || sinew__reader_fail(r, sec->status, sec->error);
}

static sinew_status load_all(sinew__reader *r, const sinew_world_def *def, sinew_world **out)
{
    uint32_t count = 0u; // (read_header sets it when it succeeds)
    if (!read_header(r, &count)) {
        return r->status;
    }
    section list[SINEW_KIND_COUNT + 3];
    const int n = sections(list);
    if (count != (uint32_t)n + 1u) {
        sinew__reader_fail(r, SINEW_ERR_SNAPSHOT_INVALID, "snapshot: its sections are not the ones this version writes");
        return r->status;
    }
    sinew__reader sec;
    if (!open_section(r, TAG_WORLD, &sec)) {
        return r->status;
    }
    sinew_world *world = load_world(&sec, def);
    if (world == NULL || !close_section(r, &sec)) {
        sinew_world_destroy(world);
        if (sec.status != SINEW_OK) {
            sinew__reader_fail(r, sec.status, sec.error);
        }
        return r->status;
    }
    for (int k = 0; k < n; ++k) {
        if (!open_section(r, list[k].tag, &sec)) {
            break;
        }
        list[k].load(world, &sec);
        if (!close_section(r, &sec)) {
            break;
        }
    }
    if (r->status == SINEW_OK) {
        const sinew_status s = sinew__scratch_need(world, sinew__scratch_wanted(world));
        if (s != SINEW_OK) {
            sinew__reader_fail(r, s, "snapshot: allocating the scratch failed");
        }
    }
    if (r->status == SINEW_OK && world->record) {
        world->record = false;
        const sinew_status s = sinew_world_record_iterations(world, true);
        if (s != SINEW_OK) {
            sinew__reader_fail(r, s, "snapshot: allocating the iteration history failed");
        }
    }
    if (r->status != SINEW_OK) {
        sinew_world_destroy(world);
        return r->status;
    }
    world->grid.valid = world->grid.fresh = false;
    *out = world;
    return SINEW_OK;
}

sinew_status sinew_world_load(const void *buffer, size_t size, const sinew_world_def *def, sinew_world **out)
{
    if (buffer == NULL || out == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (def != NULL && ((def->allocator.alloc == NULL) != (def->allocator.free == NULL) ||
                        (def->enqueue_task == NULL) != (def->finish_task == NULL))) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (def != NULL && (def->workers < 1 || def->workers > SINEW_MAX_WORKERS)) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    sinew__reader r = {buffer, size, 0u, SINEW_OK, NULL};
    return load_all(&r, def, out);
}

sinew_status sinew_snapshot_check(const void *buffer, size_t size, const char **reason)
{
    if (buffer == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    sinew__reader r = {buffer, size, 0u, SINEW_OK, NULL};
    sinew_world *world = NULL;
    const sinew_status s = load_all(&r, NULL, &world);
    sinew_world_destroy(world);
    if (reason != NULL) {
        *reason = s == SINEW_OK ? "" : (r.error != NULL ? r.error : sinew_status_string(s));
    }
    return s;
}

sinew_status sinew_world_clone(const sinew_world *world, sinew_world **out)
{
    if (world == NULL || out == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_world_clone: world and out are required");
    }
    sinew__writer w = {NULL, 0u, 0u};
    save_all(world, &w);
    sinew_world *mutable_world = (sinew_world *)world; // the scratch buffer's bytes are not world state
    w.data = sinew__alloc(mutable_world, w.size);
    if (w.data == NULL) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_MEMORY, "sinew_world_clone: allocating the scratch buffer failed");
    }
    w.capacity = w.size;
    w.size = 0u;
    save_all(world, &w);
    sinew_world_def def = sinew_default_world_def();
    def.allocator = world->allocator;
    def.user_data = world->user_data;
    def.workers = world->tasks.workers;
    def.enqueue_task = world->tasks.enqueue;
    def.finish_task = world->tasks.finish;
    def.task_context = world->tasks.context;
    sinew__reader r = {w.data, w.size, 0u, SINEW_OK, NULL};
    const sinew_status s = load_all(&r, &def, out);
    sinew__free(mutable_world, w.data, w.capacity);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_world_clone: loading the copy failed");
    }
    return sinew_world_set_profiling(*out, world->profiling); // (a level the world holds: accepted)
}
