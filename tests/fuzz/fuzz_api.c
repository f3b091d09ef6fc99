// libFuzzer harness: the input bytes are a program of public API calls on one world.
//
// Layout of an input (every read past the end gives 0, and the program ends at the first op
// boundary with no byte left):
//   header: world flags, allocator mode and parameter, world def edits
//   ops:    up to MAX_OPS of [opcode byte, arguments...]
// Values come from tables chosen by a byte (sane, extreme, NaN/inf) or, now and then, raw bytes.
// Ids returned by the engine go into small rings per kind; ops pick from them by an index byte,
// so later ops see live, destroyed and made-up ids.
//
// Invariants checked here (a failure prints a message and aborts, or fails the cmocka test in
// replay mode): a call that does not return SINEW_OK changes neither sinew_world_byte_count nor
// the particle count; after a call that returns SINEW_OK every particle position is finite;
// sinew_status_string never returns NULL; a standalone IK solve that returns SINEW_OK gives a
// finite distance; a builder that succeeds makes as many particles as its *_counts said; the
// world gives back through the allocator every byte it took.
//
// Built two ways (tests/fuzz/meson.build): with clang's -fsanitize=fuzzer as sinew-fuzz, and with
// -DSINEW_FUZZ_REPLAY as the cmocka program test_fuzz_corpus, which replays every file of a
// directory (tests/fuzz/corpus) as one test each.
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sinew/sinew.h>

#include "snapshot.h" // the engine's internal header: sinew__snapshot_checksum, to re-seal edited buffers
#include "world_internal.h" // and the world's: the tasks' grain (see make_world)

#ifdef SINEW_FUZZ_REPLAY
#include <dirent.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
static const char *replay_file = "";
#endif

// Bounds on one program, so that one input runs well under a second under ASan.
#define MAX_OPS 64
#define STEP_PARTICLES_MAX 3000    // no step once the world holds more (an exploded pile in one grid cell costs n^2 tests)
#define STEP_WORK_MAX 4.0e6        // substeps * iterations * (particles + constraints) per step
#define INPUT_WORK_MAX 6.0e6       // the same, summed over an input's steps (no step past it)
#define ALLOC_CAP ((size_t)64 << 20) // the fuzz allocator refuses to hold more than 64 MiB
#define HINT_CAP 65536 // the largest capacity hint given with the C library's allocator (see make_world)
#define ARRAY_MAX (1 << 22)        // builder output arrays above this many entries are not passed
#define IK_WORK_MAX 2.0e6          // bones * max_iterations of one IK solve
#define SLOTS 16                   // ids remembered per kind
#define ARMS 4                     // IK arms remembered (with their arrays)

// ---- failure --------------------------------------------------------------------------------

static void fuzz_fail(const char *format, ...)
{
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
#ifdef SINEW_FUZZ_REPLAY
    fail_msg("%s: %s", replay_file, message);
#else
    fprintf(stderr, "sinew-fuzz: invariant broken: %s\n", message);
    abort();
#endif
}

// ---- byte reader ----------------------------------------------------------------------------

typedef struct reader {
    const uint8_t *data;
    size_t size, at;
} reader;

static bool more(const reader *r) { return r->at < r->size; }

static uint8_t u8(reader *r) { return r->at < r->size ? r->data[r->at++] : 0u; }

static uint32_t u32(reader *r)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
        v |= (uint32_t)u8(r) << (8 * k);
    }
    return v;
}

static const float sane_floats[16] = {
    0.0f, 0.5f, 1.0f, -1.0f, 0.1f, 10.0f, 1.0f / 60.0f, 2.0f,
    -0.5f, 0.25f, 3.0f, 100.0f, -10.0f, 0.01f, 1e-3f, 5.0f,
};

static const float extreme_floats[16] = {
    3e38f, -3e38f, FLT_MAX, -FLT_MAX, 1e30f, 1e-45f, 4.6e-40f, FLT_MIN,
    -0.0f, 1e-30f, 1e15f, -1e15f, 1e20f, -1e20f, 1.0000001e15f, 3.4e38f,
};

// A float: mostly sane, sometimes extreme or not finite, sometimes four raw bytes.
static float fl(reader *r)
{
    const uint8_t b = u8(r);
    if (b < 160) {
        return sane_floats[b & 15];
    }
    if (b < 208) {
        return extreme_floats[b & 15];
    }
    if (b < 224) {
        switch (b & 3) {
        case 0: return NAN;
        case 1: return INFINITY;
        case 2: return -INFINITY;
        default: return -NAN;
        }
    }
    const uint32_t bits = u32(r);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static const int extreme_ints[16] = {
    0, -1, INT_MAX, INT_MIN, INT_MAX - 1, 1 << 20, 1 << 24, 4096,
    4097, 65536, 46341, 1 << 30, 257, 1024, 1025, 256,
};

// An int: mostly small (-8..55), sometimes extreme, sometimes four raw bytes.
static int in(reader *r)
{
    const uint8_t b = u8(r);
    if (b < 128) {
        return (int)(b & 63) - 8;
    }
    if (b < 224) {
        return extreme_ints[b & 15];
    }
    const uint32_t bits = u32(r);
    int v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

// The product of two ints, wrapped to int (sizes that overflow when multiplied).
static int product(reader *r)
{
    const int64_t a = in(r);
    const int64_t b = in(r);
    return (int)(uint32_t)(uint64_t)(a * b);
}

static sinew_vec2 v2(reader *r)
{
    const float x = fl(r);
    const float y = fl(r);
    return sinew_vec2_make(x, y);
}

static bool bit(reader *r) { return (u8(r) & 1u) != 0; }

// ---- allocator: counts live bytes, caps them, fails on request --------------------------------

typedef enum fail_mode {
    FAIL_NEVER = 0,
    FAIL_AFTER = 1,  // every call once `calls` reaches `param`
    FAIL_ONCE = 2,   // only call number `param`
    FAIL_RANDOM = 3, // about one call in eight, from a seeded generator
} fail_mode;

typedef struct fuzz_alloc {
    size_t live;
    uint64_t calls;
    fail_mode mode;
    uint64_t param;
    uint64_t rng;
} fuzz_alloc;

static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void *fuzz_alloc_fn(size_t size, void *user_data)
{
    fuzz_alloc *a = user_data;
    const uint64_t call = a->calls++;
    if ((a->mode == FAIL_AFTER && call >= a->param) || (a->mode == FAIL_ONCE && call == a->param) ||
        (a->mode == FAIL_RANDOM && (splitmix(&a->rng) & 7u) == 0u)) {
        return NULL;
    }
    if (size > ALLOC_CAP || a->live > ALLOC_CAP - size) {
        return NULL;
    }
    void *p = malloc(size == 0 ? 1 : size);
    if (p != NULL) {
        a->live += size;
    }
    return p;
}

static void fuzz_free_fn(void *ptr, size_t size, void *user_data)
{
    fuzz_alloc *a = user_data;
    if (ptr == NULL) {
        return;
    }
    if (size > a->live) {
        fuzz_fail("allocator: free of %zu bytes with only %zu live", size, a->live);
    }
    a->live -= size;
    free(ptr);
}

static void set_fail_mode(fuzz_alloc *a, reader *r)
{
    const uint8_t b = u8(r);
    a->mode = (fail_mode)(b & 3u);
    const uint8_t p = u8(r);
    a->param = (b & 4u) ? a->calls + p : (uint64_t)p * 16u;
    a->rng = p;
}

// ---- the program's state ----------------------------------------------------------------------

typedef struct snapshot {
    size_t bytes;
    int particles;
} snapshot;

typedef struct arm_slot {
    bool used;
    sinew_ik_arm arm;
} arm_slot;

typedef struct state {
    sinew_world *world;
    fuzz_alloc alloc;
    bool counted;            // the world uses `alloc`
    double constraints;      // constraints made so far (an upper bound on those alive)
    double contacts;         // contacts of the last step
    double work;             // step work of the steps taken (see INPUT_WORK_MAX)
    sinew_particle_id particles[SLOTS];
    sinew_distance_id distances[SLOTS];
    sinew_pin_id pins[SLOTS];
    sinew_area_id areas[SLOTS];
    sinew_angle_id angles[SLOTS];
    sinew_collider_id colliders[SLOTS];
    unsigned n_particles, n_distances, n_pins, n_areas, n_angles, n_colliders;
    arm_slot arms[ARMS];
    unsigned n_arms;
    void *arm_buffers[ARMS][4];
    snapshot before;         // taken by CALL
} state;

// Picks an id of a kind: one remembered (live, destroyed or still null), or a made-up one.
#define PICK_ID(type, r, table)                                                                 \
    static type pick_##table(state *s, reader *r)                                               \
    {                                                                                           \
        const uint8_t b = u8(r);                                                                \
        type id = {0u, 0u};                                                                     \
        if (b < 224) {                                                                          \
            return s->table[b % SLOTS];                                                         \
        }                                                                                       \
        switch (b & 7u) {                                                                       \
        case 0: break;                                                                          \
        case 1: id.index1 = 1u; break;                                                          \
        case 2: id.index1 = UINT32_MAX; id.generation = UINT32_MAX; break;                      \
        case 3: id.index1 = 1u; id.generation = 7u; break;                                      \
        case 4: id.index1 = 0u; id.generation = 1u; break;                                      \
        case 5: id.index1 = (uint32_t)u8(r) + 1u; id.generation = u8(r); break;                \
        case 6: id.index1 = u32(r); id.generation = u32(r); break;                              \
        default: id.index1 = 1u << 31; id.generation = 1u; break;                               \
        }                                                                                       \
        return id;                                                                              \
    }
PICK_ID(sinew_particle_id, r, particles)
PICK_ID(sinew_distance_id, r, distances)
PICK_ID(sinew_pin_id, r, pins)
PICK_ID(sinew_area_id, r, areas)
PICK_ID(sinew_angle_id, r, angles)
PICK_ID(sinew_collider_id, r, colliders)

#define REMEMBER(s, table, id) ((s)->table[(s)->n_##table++ % SLOTS] = (id))

// ---- invariants -------------------------------------------------------------------------------


static snapshot snap(const state *s)
{
    snapshot sn = {sinew_world_byte_count(s->world), sinew_world_particles(s->world).count};
    return sn;
}

// Reads the particle view from index `from` on (so ASan sees every element) and checks positions are
// finite and in range.
static void check_particles(const state *s, int from, const char *after)
{
    const sinew_particle_view v = sinew_world_particles(s->world);
    if (v.count < 0) {
        fuzz_fail("%s: particle view count %d", after, v.count);
    }
    float sum = 0.0f;
    for (int i = from; i < v.count; ++i) {
        if (!isfinite(v.x[i]) || !isfinite(v.y[i])) {
            fuzz_fail("%s: particle %d of %d at (%g, %g): not finite", after, i, v.count, (double)v.x[i],
                      (double)v.y[i]);
        }
        if (!(fabsf(v.x[i]) <= SINEW_MAX_COORDINATE && fabsf(v.y[i]) <= SINEW_MAX_COORDINATE)) {
            fuzz_fail("%s: particle %d of %d at (%g, %g): beyond SINEW_MAX_COORDINATE", after, i, v.count,
                      (double)v.x[i], (double)v.y[i]);
        }
        sum += v.px[i] + v.py[i] + v.weight[i] + v.radius[i] + (float)v.flags[i];
    }
    volatile float sink = sum;
    (void)sink;
}

// SINEW_FUZZ_LAX_BYTES=1 in the environment: a call that fails with CAPACITY may keep capacity
// it grew (by default only OUT_OF_MEMORY may, as base.h allows).
static bool lax_bytes(void)
{
    static int lax = -1;
    if (lax < 0) {
        const char *e = getenv("SINEW_FUZZ_LAX_BYTES");
        lax = e != NULL && e[0] == '1';
    }
    return lax != 0;
}

// SINEW_FUZZ_TRACE=1 in the environment: every checked call and its status on stderr.
static bool trace(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("SINEW_FUZZ_TRACE");
        on = e != NULL && e[0] == '1';
    }
    return on != 0;
}

// Checks the invariants around a call that returned `status`. After a call that succeeded, the
// particles are checked: all of them, or with `appends` (sinew_particle_create, which appends one
// and moves none) only the new one, as checking all of them after each of thousands of creates made
// some inputs quadratic (0.5 s in the release build, 14 s under the fuzzer's instrumentation). Any
// other call, and the end of the input, check them all again.
static sinew_status verify_call(state *s, sinew_status status, snapshot before, const char *what, bool appends)
{
    if (sinew_status_string(status) == NULL) {
        fuzz_fail("%s: sinew_status_string(%d) is NULL", what, (int)status);
    }
    if ((unsigned)status >= (unsigned)SINEW_STATUS_COUNT) {
        fuzz_fail("%s: returned status %d, not a sinew_status", what, (int)status);
    }
    if (sinew_world_last_error(s->world) == NULL) {
        fuzz_fail("%s: sinew_world_last_error is NULL", what);
    }
    const snapshot after = snap(s);
    if (trace()) {
        fprintf(stderr, "sinew-fuzz: %s -> %s; %d particles, %zu bytes\n", what, sinew_status_string(status),
                after.particles, after.bytes);
    }
    if (s->counted && after.bytes != s->alloc.live) {
        fuzz_fail("%s: sinew_world_byte_count %zu, but the allocator holds %zu bytes for the world", what,
                  after.bytes, s->alloc.live);
    }
    if (status != SINEW_OK) {
        // base.h: a call that returns OUT_OF_MEMORY may keep capacity it had already grown.
        // SINEW_FUZZ_LAX_BYTES=1: so may a call that fails with CAPACITY.
        const bool may_keep_capacity =
            after.bytes >= before.bytes &&
            (status == SINEW_ERR_OUT_OF_MEMORY || (lax_bytes() && status == SINEW_ERR_CAPACITY));
        if ((after.bytes != before.bytes && !may_keep_capacity) || after.particles != before.particles) {
            fuzz_fail("%s returned %s (%s) but changed the world: bytes %zu -> %zu, particles %d -> %d", what,
                      sinew_status_string(status), sinew_world_last_error(s->world), before.bytes, after.bytes,
                      before.particles, after.particles);
        }
    } else {
        const bool appended = appends && after.particles == before.particles + 1;
        check_particles(s, appended ? before.particles : 0, what);
    }
    return status;
}

static sinew_status verify(state *s, sinew_status status, snapshot before, const char *what)
{
    return verify_call(s, status, before, what, false);
}

// Runs one status-returning call on the world and checks the invariants around it.
// The comma sequences the snapshot before the call (function arguments have no order).
#define CALL(s, call) ((s)->before = snap(s), verify((s), (call), (s)->before, #call))
// The same for sinew_particle_create, which appends one particle (see verify_call).
#define CALL_CREATE(s, call) ((s)->before = snap(s), verify_call((s), (call), (s)->before, #call, true))

// ---- defs from bytes: start from the defaults, then edit a few fields -------------------------

static int edits(reader *r) { return u8(r) % 8; }

static void edit_solver_field(sinew_solver_def *d, int field, reader *r)
{
    switch (field) {
    case 0: d->mode = (sinew_solver_mode)in(r); break;
    case 1: d->substeps = in(r); break;
    case 2: d->iterations = in(r); break;
    case 3: d->jacobi_omega = fl(r); break;
    case 4: d->order = (sinew_gs_order)in(r); break;
    default:
        d->shuffle_seed = (uint64_t)u32(r) * 0x100000001ull;
        // link_forces follows the seed's bit 1, so that it reads no byte of its own: the corpus
        // decodes as it did before the field existed.
        d->link_forces = (d->shuffle_seed & 2u) != 0u;
        break;
    }
}

static sinew_particle_def particle_def(reader *r)
{
    sinew_particle_def d = sinew_default_particle_def();
    for (int n = edits(r); n > 0; --n) {
        switch (u8(r) % 12) {
        case 0: d.position.x = fl(r); break;
        case 1: d.position.y = fl(r); break;
        case 2: d.velocity.x = fl(r); break;
        case 3: d.velocity.y = fl(r); break;
        case 4: d.weight = fl(r); break;
        case 5: d.radius = fl(r); break;
        case 6: d.flags = u8(r); break;
        case 7: d.group = u32(r); break;
        case 8: d.mask = u32(r); break;
        case 9: d.friction = fl(r); break;
        case 10: d.kinetic_friction = fl(r); break;
        default: d.user_data = (void *)(uintptr_t)u8(r); break;
        }
    }
    return d;
}

static void edit_distance_def(sinew_distance_def *d, reader *r)
{
    for (int n = edits(r); n > 0; --n) {
        switch (u8(r) % 5) {
        case 0: d->rest = fl(r); break;
        case 1: d->mode = (sinew_distance_mode)in(r); break;
        case 2: d->stiffness = fl(r); break;
        case 3: d->compliance = fl(r); break;
        default: d->tear_ratio = fl(r); break;
        }
    }
}

static sinew_collider_def collider_def(reader *r)
{
    sinew_collider_def d = sinew_default_collider_def();
    for (int n = edits(r) / 2; n > 0; --n) {
        switch (u8(r) % 5) {
        case 0: d.friction = fl(r); break;
        case 1: d.kinetic_friction = fl(r); break;
        case 2: d.group = u32(r); break;
        case 3: d.mask = u32(r); break;
        default: d.user_data = (void *)(uintptr_t)u8(r); break;
        }
    }
    return d;
}

// An array of exactly n elements for the engine to fill (NULL when n is 0, negative or huge, or
// when the input asks for NULL), so ASan sees any write past what *_counts promised.
static void *exact_array(int n, size_t element, bool want_null)
{
    if (want_null || n <= 0 || n > ARRAY_MAX) {
        return NULL;
    }
    return calloc((size_t)n, element);
}

// ---- ops --------------------------------------------------------------------------------------

static void op_particle_create(state *s, reader *r)
{
    const sinew_particle_def d = particle_def(r);
    sinew_particle_id id = {0u, 0u};
    if (CALL_CREATE(s, sinew_particle_create(s->world, bit(r) ? NULL : &d, &id)) == SINEW_OK) {
        REMEMBER(s, particles, id);
    }
}

static void op_particle_misc(state *s, reader *r, int which)
{
    const sinew_particle_id id = pick_particles(s, r);
    sinew_world *w = s->world;
    switch (which) {
    case 0: CALL(s, sinew_particle_destroy(w, id)); break;
    case 1: CALL(s, sinew_particle_set_position(w, id, v2(r))); break;
    case 2: CALL(s, sinew_particle_set_velocity(w, id, v2(r))); break;
    case 3: CALL(s, sinew_particle_set_weight(w, id, fl(r))); break;
    case 4: CALL(s, sinew_particle_apply_force(w, id, v2(r))); break;
    default: {
        sinew_vec2 p;
        float f;
        CALL(s, sinew_particle_get_position(w, id, &p));
        CALL(s, sinew_particle_get_velocity(w, id, &p));
        CALL(s, sinew_particle_get_weight(w, id, &f));
        CALL(s, sinew_particle_get_position(w, id, NULL));
        (void)sinew_particle_user_data(w, id);
        const int index = sinew_particle_index(w, id);
        const bool valid = sinew_particle_is_valid(w, id);
        if (valid != (index >= 0)) {
            fuzz_fail("particle_is_valid %d but particle_index %d", (int)valid, index);
        }
        const sinew_particle_id back = sinew_particle_id_at(w, index);
        if (valid && (back.index1 != id.index1 || back.generation != id.generation)) {
            fuzz_fail("particle_id_at(particle_index(id)) is not id");
        }
        (void)sinew_particle_id_at(w, in(r));
        break;
    }
    }
}

// The particle setters past weight, position and velocity, and sinew_particle_get, which reads
// back what they set (a refused call must leave the particle as it was: checked through the
// byte count and the particle count like every call).
static void op_particle_set(state *s, reader *r)
{
    const sinew_particle_id id = pick_particles(s, r);
    sinew_world *w = s->world;
    switch (u8(r) % 6) {
    case 0: CALL(s, sinew_particle_set_radius(w, id, fl(r))); break;
    case 1: {
        const uint32_t group = u32(r);
        CALL(s, sinew_particle_set_filter(w, id, group, u32(r)));
        break;
    }
    case 2: CALL(s, sinew_particle_set_flags(w, id, u8(r))); break;
    case 3: {
        const float friction = fl(r);
        CALL(s, sinew_particle_set_friction(w, id, friction, fl(r)));
        break;
    }
    case 4: CALL(s, sinew_particle_set_user_data(w, id, (void *)(uintptr_t)u8(r))); break;
    default: {
        sinew_particle_def d;
        CALL(s, sinew_particle_get(w, id, bit(r) ? NULL : &d));
        break;
    }
    }
}

static void op_distance(state *s, reader *r, int which)
{
    sinew_world *w = s->world;
    switch (which) {
    case 0: {
        sinew_distance_def d = sinew_default_distance_def();
        d.a = pick_particles(s, r);
        d.b = pick_particles(s, r);
        edit_distance_def(&d, r);
        sinew_distance_id id = {0u, 0u};
        if (CALL(s, sinew_distance_create(w, &d, &id)) == SINEW_OK) {
            REMEMBER(s, distances, id);
            s->constraints += 1;
        }
        break;
    }
    case 1: CALL(s, sinew_distance_destroy(w, pick_distances(s, r))); break;
    case 2: {
        const sinew_distance_id id = pick_distances(s, r);
        sinew_distance_def d = sinew_default_distance_def();
        if (bit(r)) {
            (void)sinew_distance_get(w, id, &d);
        }
        edit_distance_def(&d, r);
        CALL(s, sinew_distance_set(w, id, &d));
        break;
    }
    default: {
        const sinew_distance_id id = pick_distances(s, r);
        sinew_distance_def d;
        float e;
        CALL(s, sinew_distance_get(w, id, &d));
        CALL(s, sinew_distance_get_error(w, id, &e));
        CALL(s, sinew_distance_get_error(w, id, NULL));
        (void)sinew_distance_is_valid(w, id);
        // User data (read from no input byte, so the corpus decodes as before): NULL for half the
        // ids, which leaves the optional array unmade.
        void *tag = (void *)(uintptr_t)((id.generation & 1u) != 0u ? id.index1 : 0u);
        if (CALL(s, sinew_distance_set_user_data(w, id, tag)) == SINEW_OK && sinew_distance_user_data(w, id) != tag) {
            fuzz_fail("sinew_distance_user_data does not return what was set");
        }
        break;
    }
    }
}

static void op_pin(state *s, reader *r, int which)
{
    sinew_world *w = s->world;
    switch (which) {
    case 0: {
        sinew_pin_def d = sinew_default_pin_def();
        d.particle = pick_particles(s, r);
        d.target = v2(r);
        for (int n = edits(r) / 2; n > 0; --n) {
            if (bit(r)) {
                d.stiffness = fl(r);
            } else {
                d.compliance = fl(r);
            }
        }
        // A compliance above 1 m/N (too soft to matter) doubles as max_force in newtons, any value,
        // NaN and negatives too: no byte of its own, so the corpus decodes as it did before.
        d.max_force = !(d.compliance <= 1.0f) ? d.compliance : d.max_force;
        sinew_pin_id id = {0u, 0u};
        if (CALL(s, sinew_pin_create(w, &d, &id)) == SINEW_OK) {
            REMEMBER(s, pins, id);
            s->constraints += 1;
        }
        break;
    }
    case 1: CALL(s, sinew_pin_destroy(w, pick_pins(s, r))); break;
    case 2: {
        const sinew_pin_id id = pick_pins(s, r);
        CALL(s, sinew_pin_set_target(w, id, v2(r)));
        break;
    }
    default: {
        const sinew_pin_id id = pick_pins(s, r);
        const float stiffness = fl(r);
        const float compliance = fl(r);
        CALL(s, sinew_pin_set_stiffness(w, id, stiffness, compliance));
        CALL(s, sinew_pin_set_max_force(w, id, stiffness * 1e4f)); // no byte of its own (see op_pin 0)
        sinew_pin_def d;
        CALL(s, sinew_pin_get(w, id, &d));
        (void)sinew_pin_is_valid(w, id);
        break;
    }
    }
}

// A count for an array the caller passes, and how many elements to allocate for it: exactly the
// count when it is in 1..limit, else 3 (then the count is out of the documented range and the
// engine must refuse it without reading the array, or the caller skips the call).
static int array_count(reader *r, int *allocated, int limit)
{
    const int n = in(r);
    *allocated = (n > 0 && n <= limit) ? n : 3;
    return n;
}

static void op_area(state *s, reader *r, int which)
{
    sinew_world *w = s->world;
    switch (which) {
    case 0: {
        sinew_area_def d = sinew_default_area_def();
        int allocated;
        d.count = array_count(r, &allocated, 4096);
        if (d.count > 4096) { // no documented maximum: the engine would read that many ids
            return;
        }
        sinew_particle_id *ring = calloc((size_t)allocated, sizeof *ring);
        const bool fresh = bit(r); // a ring of new particles on a circle, else picked ids
        for (int k = 0; k < allocated; ++k) {
            if (fresh) {
                sinew_particle_def p = sinew_default_particle_def();
                const float t = 6.2831853f * (float)k / (float)allocated;
                p.position = sinew_vec2_make(cosf(t), sinf(t));
                if (CALL_CREATE(s, sinew_particle_create(w, &p, &ring[k])) == SINEW_OK) {
                    REMEMBER(s, particles, ring[k]);
                }
            } else {
                ring[k] = pick_particles(s, r);
            }
        }
        for (int n = edits(r) / 2; n > 0; --n) {
            switch (u8(r) % 4) {
            case 0: d.rest_area = fl(r); break;
            case 1: d.pressure = fl(r); break;
            case 2: d.stiffness = fl(r); break;
            default: d.compliance = fl(r); break;
            }
        }
        d.particles = bit(r) && u8(r) == 0 ? NULL : ring;
        sinew_area_id id = {0u, 0u};
        if (CALL(s, sinew_area_create(w, &d, &id)) == SINEW_OK) {
            REMEMBER(s, areas, id);
            s->constraints += 1;
        }
        free(ring);
        break;
    }
    case 1: CALL(s, sinew_area_destroy(w, pick_areas(s, r))); break;
    default: {
        const sinew_area_id id = pick_areas(s, r);
        float a;
        CALL(s, sinew_area_set_pressure(w, id, fl(r)));
        CALL(s, sinew_area_get_area(w, id, &a));
        (void)sinew_area_is_valid(w, id);
        break;
    }
    }
}

static void op_angle(state *s, reader *r, int which)
{
    sinew_world *w = s->world;
    switch (which) {
    case 0: {
        sinew_angle_def d = sinew_default_angle_def();
        d.a = pick_particles(s, r);
        d.b = pick_particles(s, r);
        d.c = pick_particles(s, r);
        for (int n = edits(r) / 2; n > 0; --n) {
            switch (u8(r) % 4) {
            case 0: d.min = fl(r); break;
            case 1: d.max = fl(r); break;
            case 2: d.stiffness = fl(r); break;
            default: d.compliance = fl(r); break;
            }
        }
        sinew_angle_id id = {0u, 0u};
        if (CALL(s, sinew_angle_create(w, &d, &id)) == SINEW_OK) {
            REMEMBER(s, angles, id);
            s->constraints += 1;
        }
        break;
    }
    case 1: CALL(s, sinew_angle_destroy(w, pick_angles(s, r))); break;
    default: {
        const sinew_angle_id id = pick_angles(s, r);
        const float lo = fl(r);
        const float hi = fl(r);
        float a;
        CALL(s, sinew_angle_set_limits(w, id, lo, hi));
        CALL(s, sinew_angle_get_angle(w, id, &a));
        (void)sinew_angle_is_valid(w, id);
        break;
    }
    }
}

static void op_collider(state *s, reader *r, int which)
{
    sinew_world *w = s->world;
    const sinew_collider_def d = collider_def(r);
    const sinew_collider_def *dp = (u8(r) == 255) ? NULL : &d;
    sinew_collider_id id = {0u, 0u};
    sinew_status st = SINEW_ERR_NULL_ARGUMENT;
    switch (which) {
    case 0: {
        const sinew_vec2 n = v2(r);
        st = CALL(s, sinew_plane_collider_create(w, dp, n, fl(r), &id));
        break;
    }
    case 1: {
        const sinew_vec2 c = v2(r);
        st = CALL(s, sinew_circle_collider_create(w, dp, c, fl(r), &id));
        break;
    }
    case 2: {
        const sinew_vec2 a = v2(r);
        const sinew_vec2 b = v2(r);
        st = CALL(s, sinew_segment_collider_create(w, dp, a, b, fl(r), &id));
        break;
    }
    case 3: {
        const sinew_vec2 lo = v2(r);
        const sinew_vec2 hi = v2(r);
        st = CALL(s, sinew_box_collider_create(w, dp, lo, hi, &id));
        break;
    }
    case 4: {
        int allocated;
        const int count = array_count(r, &allocated, 64); // at most 16 are accepted
        sinew_vec2 *v = calloc((size_t)allocated, sizeof *v);
        if (bit(r)) { // a regular polygon around a centre: convex unless the numbers break it
            const sinew_vec2 c = v2(r);
            const float radius = fl(r);
            const float turn = bit(r) ? 1.0f : -1.0f;
            for (int k = 0; k < allocated; ++k) {
                const float t = turn * 6.2831853f * (float)k / (float)allocated;
                v[k] = sinew_vec2_make(c.x + radius * cosf(t), c.y + radius * sinf(t));
            }
        } else {
            for (int k = 0; k < allocated; ++k) {
                v[k] = v2(r);
            }
        }
        const float radius = fl(r);
        st = CALL(s, sinew_polygon_collider_create(w, dp, u8(r) == 255 ? NULL : v, count, radius, &id));
        free(v);
        break;
    }
    case 5: {
        const sinew_vec2 lo = v2(r);
        const sinew_vec2 hi = v2(r);
        sinew_collider_id four[4] = {{0u, 0u}, {0u, 0u}, {0u, 0u}, {0u, 0u}};
        const bool null_out = bit(r);
        st = CALL(s, sinew_world_bounds_create(w, dp, lo, hi, null_out ? NULL : four));
        if (st == SINEW_OK) {
            for (int k = 0; k < 4; ++k) {
                REMEMBER(s, colliders, four[k]);
            }
        }
        return;
    }
    default: {
        const sinew_collider_id c = pick_colliders(s, r);
        sinew_collider_shape shape;
        if (CALL(s, sinew_collider_get_shape(w, c, &shape)) == SINEW_OK) {
            if (shape.type == SINEW_COLLIDER_POLYGON) {
                if (shape.vertex_count < 1 || shape.vertex_count > SINEW_POLYGON_MAX_VERTICES ||
                    shape.vertices == NULL) {
                    fuzz_fail("collider shape with %d vertices", shape.vertex_count);
                }
                float sum = 0.0f;
                for (int k = 0; k < shape.vertex_count; ++k) {
                    sum += shape.vertices[k].x + shape.vertices[k].y;
                }
                volatile float sink = sum;
                (void)sink;
            }
        }
        (void)sinew_collider_user_data(w, c);
        (void)sinew_collider_is_valid(w, c);
        const int count = sinew_world_collider_count(w);
        (void)sinew_collider_id_at(w, count > 0 ? u8(r) % count : in(r));
        (void)sinew_collider_id_at(w, in(r));
        CALL(s, sinew_collider_destroy(w, c));
        return;
    }
    }
    if (st == SINEW_OK) {
        REMEMBER(s, colliders, id);
    }
}

// Checks that a successful builder made what its counts said, and remembers a few of its ids.
// On a world with the C library's allocator (no cap on what it holds), a build this big is
// skipped: it could take gigabytes and minutes.
static bool too_big(const state *s, sinew_scene_counts c)
{
    return !s->counted && ((double)c.particles + c.distances + c.angles + c.pins > 400000.0);
}

// A def its *_counts refused must be refused by the builder with the same status.
static void refused_as_counted(const char *what, sinew_scene_counts c, sinew_status got)
{
    if (c.reason == NULL) {
        fuzz_fail("%s: counts with a NULL reason", what);
    }
    if (c.status != SINEW_OK && got != c.status) {
        fuzz_fail("%s returned %s, its counts said %s (%s)", what, sinew_status_string(got),
                  sinew_status_string(c.status), c.reason);
    }
    if (c.status != SINEW_OK && (c.particles != 0 || c.distances != 0 || c.angles != 0 || c.areas != 0 ||
                                 c.pins != 0)) {
        fuzz_fail("%s: counts refused the def (%s) but are not all 0", what, c.reason);
    }
}

static void built(state *s, const char *what, snapshot before, sinew_scene_counts c,
                  const sinew_particle_id *particles, int n)
{
    const int made = sinew_world_particles(s->world).count - before.particles;
    if (made != c.particles) {
        fuzz_fail("%s made %d particles, its counts said %d", what, made, c.particles);
    }
    s->constraints += (double)c.distances + c.angles + c.areas + c.pins;
    if (particles != NULL && n > 0) {
        REMEMBER(s, particles, particles[0]);
        REMEMBER(s, particles, particles[n / 2]);
        REMEMBER(s, particles, particles[n - 1]);
        for (int k = 0; k < n; ++k) {
            if (!sinew_particle_is_valid(s->world, particles[k])) {
                fuzz_fail("%s: particle id %d of %d it wrote is not valid", what, k, n);
            }
        }
    }
}

static void op_rope(state *s, reader *r)
{
    sinew_rope_def d = sinew_default_rope_def();
    for (int n = edits(r); n > 0; --n) {
        switch (u8(r) % 15) {
        case 0: d.start = v2(r); break;
        case 1: d.end = v2(r); break;
        case 2: d.links = in(r); break;
        case 3: d.weight = fl(r); break;
        case 4: d.radius = fl(r); break;
        case 5: d.particle_flags = u8(r); break;
        case 6: d.pin_start = bit(r); break;
        case 7: d.pin_end = bit(r); break;
        case 8: d.mode = (sinew_distance_mode)in(r); break;
        case 9: d.stiffness = fl(r); break;
        case 10: d.compliance = fl(r); break;
        case 11: d.bend_stiffness = fl(r); break;
        case 12: d.tethers = bit(r); break;
        case 13: d.links = product(r); break;
        default: d.links = (int)u8(r) * 64; break;
        }
    }
    const sinew_scene_counts c = sinew_rope_counts(&d);
    if (too_big(s, c)) {
        return;
    }
    const uint8_t nulls = u8(r);
    const int links = c.particles > 0 ? c.particles - 1 : 0;
    sinew_rope out;
    memset(&out, 0, sizeof out);
    out.particles = exact_array(c.particles, sizeof *out.particles, nulls & 1u);
    out.links = exact_array(links, sizeof *out.links, nulls & 2u);
    out.bends = exact_array(c.angles, sizeof *out.bends, nulls & 4u);
    out.tethers = exact_array(c.distances - links, sizeof *out.tethers, nulls & 8u);
    const snapshot before = snap(s);
    const sinew_status st = verify(s, sinew_rope_create(s->world, &d, (nulls & 16u) ? NULL : &out), before,
                                   "sinew_rope_create");
    refused_as_counted("sinew_rope_create", c, st);
    if (st == SINEW_OK) {
        built(s, "sinew_rope_create", before, c, (nulls & 16u) ? NULL : out.particles, c.particles);
        if (!(nulls & 16u)) {
            REMEMBER(s, pins, out.start_pin);
            REMEMBER(s, pins, out.end_pin);
            if (out.links != NULL && links > 0) {
                REMEMBER(s, distances, out.links[links - 1]);
            }
            if (out.bends != NULL && c.angles > 0) {
                REMEMBER(s, angles, out.bends[0]);
            }
        }
    }
    free(out.particles);
    free(out.links);
    free(out.bends);
    free(out.tethers);
}

static void op_cloth(state *s, reader *r, bool jelly)
{
    sinew_cloth_def d = jelly ? sinew_default_jelly_def() : sinew_default_cloth_def();
    for (int n = edits(r); n > 0; --n) {
        switch (u8(r) % 18) {
        case 0: d.origin = v2(r); break;
        case 1: d.columns = in(r); break;
        case 2: d.rows = in(r); break;
        case 3: d.spacing = fl(r); break;
        case 4: d.weight = fl(r); break;
        case 5: d.radius = fl(r); break;
        case 6: d.particle_flags = u8(r); break;
        case 7: d.pin = (sinew_cloth_pin)in(r); break;
        case 8: d.stiffness = fl(r); break;
        case 9: d.compliance = fl(r); break;
        case 10: d.structural = bit(r); break;
        case 11: d.shear = bit(r); break;
        case 12: d.bend = bit(r); break;
        case 13: d.bend_stiffness = fl(r); break;
        case 14: d.tear_ratio = fl(r); break;
        case 15: d.tethers = bit(r); break;
        case 16: d.columns = (int)u8(r) * 16; d.rows = (int)u8(r) * 16; break;
        default: d.columns = in(r); d.rows = in(r); break;
        }
    }
    const sinew_scene_counts c = sinew_cloth_counts(&d);
    if (too_big(s, c)) {
        return;
    }
    const uint8_t nulls = u8(r);
    sinew_cloth out;
    out.particles = exact_array(c.particles, sizeof *out.particles, nulls & 1u);
    out.links = exact_array(c.distances, sizeof *out.links, nulls & 2u);
    out.pins = exact_array(c.pins, sizeof *out.pins, nulls & 4u);
    const char *what = jelly ? "sinew_cloth_create (jelly)" : "sinew_cloth_create";
    const snapshot before = snap(s);
    const sinew_status st = verify(s, sinew_cloth_create(s->world, &d, (nulls & 16u) ? NULL : &out), before, what);
    refused_as_counted(what, c, st);
    if (st == SINEW_OK) {
        built(s, what, before, c, (nulls & 16u) ? NULL : out.particles, c.particles);
        if (!(nulls & 16u)) {
            if (out.links != NULL && c.distances > 0) {
                REMEMBER(s, distances, out.links[0]);
                REMEMBER(s, distances, out.links[c.distances - 1]);
            }
            if (out.pins != NULL && c.pins > 0) {
                REMEMBER(s, pins, out.pins[c.pins - 1]);
            }
        }
    }
    free(out.particles);
    free(out.links);
    free(out.pins);
}

static void op_softbody(state *s, reader *r)
{
    sinew_softbody_def d = sinew_default_softbody_def();
    for (int n = edits(r); n > 0; --n) {
        switch (u8(r) % 14) {
        case 0: d.center = v2(r); break;
        case 1: d.radius = fl(r); break;
        case 2: d.points = in(r); break;
        case 3: d.weight = fl(r); break;
        case 4: d.particle_radius = fl(r); break;
        case 5: d.particle_flags = u8(r); break;
        case 6: d.pressure = fl(r); break;
        case 7: d.area_stiffness = fl(r); break;
        case 8: d.area_compliance = fl(r); break;
        case 9: d.edge_stiffness = fl(r); break;
        case 10: d.edge_compliance = fl(r); break;
        case 11: d.inside = (sinew_softbody_inside)in(r); break;
        case 12: d.inner_stiffness = fl(r); break;
        default: d.points = (int)u8(r) * 32; break;
        }
    }
    const sinew_scene_counts c = sinew_softbody_counts(&d);
    if (too_big(s, c)) {
        return;
    }
    const uint8_t nulls = u8(r);
    sinew_softbody out;
    memset(&out, 0, sizeof out);
    out.particles = exact_array(c.particles, sizeof *out.particles, nulls & 1u);
    out.links = exact_array(c.distances, sizeof *out.links, nulls & 2u);
    const snapshot before = snap(s);
    const sinew_status st = verify(s, sinew_softbody_create(s->world, &d, (nulls & 16u) ? NULL : &out), before,
                                   "sinew_softbody_create");
    refused_as_counted("sinew_softbody_create", c, st);
    if (st == SINEW_OK) {
        built(s, "sinew_softbody_create", before, c, (nulls & 16u) ? NULL : out.particles, c.particles);
        if (!(nulls & 16u)) {
            REMEMBER(s, areas, out.area);
            if (out.links != NULL && c.distances > 0) {
                REMEMBER(s, distances, out.links[0]);
            }
        }
    }
    free(out.particles);
    free(out.links);
}

static void op_pile(state *s, reader *r)
{
    sinew_pile_def d = sinew_default_pile_def();
    for (int n = edits(r); n > 0; --n) {
        switch (u8(r) % 15) {
        case 0: d.count = in(r); break;
        case 1: d.columns = in(r); break;
        case 2: d.origin = v2(r); break;
        case 3: d.spacing = fl(r); break;
        case 4: d.row_offset = fl(r); break;
        case 5: d.radius_min = fl(r); break;
        case 6: d.radius_max = fl(r); break;
        case 7: d.seed = u32(r); break;
        case 8: d.weight = fl(r); break;
        case 9: d.friction = fl(r); break;
        case 10: d.kinetic_friction = fl(r); break;
        case 11: d.container = (sinew_pile_container)in(r); break;
        case 12: d.count = (int)u8(r) * 64; break;
        case 13: d.count = product(r); break;
        default: d.radius_min = fl(r); d.radius_max = fl(r); break;
        }
    }
    const uint8_t nulls = u8(r);
    sinew_pile out;
    memset(&out, 0, sizeof out);
    const sinew_scene_counts c = sinew_pile_counts(&d);
    if (too_big(s, c)) {
        return;
    }
    out.particles = exact_array(c.particles, sizeof *out.particles, nulls & 1u);
    const bool null_out = (nulls & 16u) != 0;
    const snapshot before = snap(s);
    const sinew_status st =
        verify(s, sinew_pile_create(s->world, &d, null_out ? NULL : &out), before, "sinew_pile_create");
    refused_as_counted("sinew_pile_create", c, st);
    if (st == SINEW_OK) {
        built(s, "sinew_pile_create", before, c, null_out ? NULL : out.particles, c.particles);
        if (!null_out) {
            if (out.collider_count < 0 || out.collider_count > SINEW_PILE_MAX_COLLIDERS) {
                fuzz_fail("sinew_pile_create: collider_count %d", out.collider_count);
            }
            for (int k = 0; k < out.collider_count; ++k) {
                REMEMBER(s, colliders, out.colliders[k]);
            }
        }
    }
    free(out.particles);
}

static float *float_array(reader *r, int n)
{
    if (n <= 0) {
        return NULL;
    }
    float *a = calloc((size_t)n, sizeof *a);
    const uint8_t how = u8(r) % 4;
    const float same = fl(r);
    for (int k = 0; k < n; ++k) {
        a[k] = how == 0 ? fl(r) : how == 1 ? same * (float)(k + 1) / (float)n : same;
    }
    return a;
}

static sinew_ik_limit *limit_array(reader *r, int n)
{
    if (n <= 0) {
        return NULL;
    }
    sinew_ik_limit *a = calloc((size_t)n, sizeof *a);
    const uint8_t how = u8(r) % 3;
    const float lo = fl(r);
    const float hi = fl(r);
    for (int k = 0; k < n; ++k) {
        if (how == 0) {
            a[k].min = fl(r);
            a[k].max = fl(r);
        } else {
            a[k].min = how == 1 ? lo : -1.0f;
            a[k].max = how == 1 ? hi : 1.0f;
        }
    }
    return a;
}

static void ik_iteration(void *user_data, int iteration, const sinew_vec2 *points, int point_count)
{
    const int expected = *(const int *)user_data;
    if (point_count != expected || iteration < 0 || points == NULL) {
        fuzz_fail("ik on_iteration: %d points (expected %d), iteration %d", point_count, expected, iteration);
    }
    float sum = 0.0f;
    for (int k = 0; k < point_count; ++k) {
        sum += points[k].x + points[k].y;
    }
    volatile float sink = sum;
    (void)sink;
}

// An IK def from bytes; max_iterations is cut so that bones * iterations stays bounded.
static sinew_ik_def ik_def(reader *r, int bones, int *callback_points)
{
    sinew_ik_def d = sinew_default_ik_def();
    for (int n = edits(r); n > 0; --n) {
        switch (u8(r) % 6) {
        case 0: d.method = (sinew_ik_method)in(r); break;
        case 1: d.max_iterations = in(r); break;
        case 2: d.tolerance = fl(r); break;
        case 3: d.bend = in(r); break;
        case 4: d.on_iteration = ik_iteration; d.user_data = callback_points; break;
        default: d.max_iterations = bit(r) ? SINEW_IK_MAX_ITERATIONS : SINEW_IK_MAX_ITERATIONS + 1; break;
        }
    }
    const int b = bones > 0 ? bones : 1;
    if (d.max_iterations > 0 && (double)d.max_iterations * b > IK_WORK_MAX) {
        d.max_iterations = (int)(IK_WORK_MAX / b);
    }
    return d;
}

// The same chain in 3D, from what op_ik_solve read (no byte of its own, so the corpus decodes as
// before): each link turned about z by its angle, a regular cone of half its limit's range (or
// none), the target in the z = 0 plane lifted by the base angle, the 2D method as a 3D one. A
// solve that returns OK gives a finite distance and unit rotations.
static void ik3_from_2d(const sinew_ik_chain *chain, int allocated, const sinew_ik_limit *limits, const sinew_ik_def *d,
                        sinew_vec2 target)
{
    int n = chain->count < allocated ? chain->count : allocated; // the arrays hold `allocated`
    n = n < SINEW_IK3_MAX_LINKS ? n : SINEW_IK3_MAX_LINKS;
    if (n < 1) {
        return;
    }
    sinew_ik3_link links[SINEW_IK3_MAX_LINKS];
    sinew_ik3_limit lim[SINEW_IK3_MAX_LINKS];
    for (int k = 0; k < n; ++k) {
        links[k] = sinew_default_ik3_link();
        links[k].length = chain->lengths[k];
        const float a = chain->angles[k];
        links[k].rotation = sinew_quat_make(0.0f, 0.0f, sinf(0.5f * a), cosf(0.5f * a));
        if (limits != NULL) {
            sinew_vec3 corners[SINEW_IK3_MAX_CONE_VERTICES];
            const int corner_count = 3 + k % (SINEW_IK3_MAX_CONE_VERTICES - 2);
            sinew_ik3_limit_def ld = sinew_default_ik3_limit_def();
            if (sinew_ik3_regular_cone(0.5f * (limits[k].max - limits[k].min), corner_count, corners) == SINEW_OK) {
                ld.cone = corners;
                ld.cone_count = corner_count;
            }
            ld.twist_limited = (k & 1) != 0;
            ld.twist_min = limits[k].min;
            ld.twist_max = limits[k].max;
            if (sinew_ik3_limit_init(&ld, &lim[k]) == SINEW_OK) {
                links[k].limit = &lim[k];
            }
        }
    }
    sinew_ik3_chain c3 = {n, links, sinew_vec3_make(chain->base.x, chain->base.y, 0.0f), sinew_quat_identity()};
    sinew_ik3_def d3 = sinew_default_ik3_def();
    d3.method = (sinew_ik3_method)((unsigned)d->method % 3u);
    d3.max_iterations = d->max_iterations; // bounded like the 2D solve's, ten times tighter (a 3D link costs more)
    if (d3.max_iterations > 0 && (double)d3.max_iterations * n > 0.1 * IK_WORK_MAX) {
        d3.max_iterations = (int)(0.1 * IK_WORK_MAX / n);
    }
    d3.tolerance = d->tolerance;
    sinew_ik3_result res;
    const sinew_status st = sinew_ik3_solve(&d3, &c3, sinew_vec3_make(target.x, target.y, chain->base_angle), &res);
    if (sinew_status_string(st) == NULL) {
        fuzz_fail("sinew_status_string(%d) is NULL", (int)st);
    }
    if (st == SINEW_OK) {
        if (!isfinite(res.distance)) {
            fuzz_fail("sinew_ik3_solve returned SINEW_OK with distance %g", (double)res.distance);
        }
        for (int k = 0; k < n; ++k) {
            const sinew_quat q = links[k].rotation;
            const float m = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
            if (!(fabsf(m - 1.0f) < 1e-4f)) {
                fuzz_fail("sinew_ik3_solve returned SINEW_OK with rotation %d of norm^2 %g", k, (double)m);
            }
        }
    }
}

static void op_ik_solve(reader *r)
{
    int allocated;
    sinew_ik_chain chain;
    chain.count = array_count(r, &allocated, 300); // at most SINEW_IK_MAX_BONES are accepted
    if (u8(r) >= 192) { // chains longer than array_count gives: up to SINEW_IK_MAX_BONES + 1
        chain.count = 1 + (int)u8(r);
        chain.count += (int)(u8(r) & 1u);
        allocated = chain.count;
    }
    float *angles = float_array(r, allocated);
    float *lengths = float_array(r, allocated);
    float *weights = bit(r) ? float_array(r, allocated) : NULL;
    sinew_ik_limit *limits = bit(r) ? limit_array(r, allocated) : NULL;
    chain.angles = angles;
    chain.lengths = lengths;
    chain.weights = weights;
    chain.base = v2(r);
    chain.base_angle = fl(r);
    int callback_points = chain.count < INT_MAX ? chain.count + 1 : INT_MAX;
    sinew_ik_def d = ik_def(r, chain.count, &callback_points);
    d.limits = limits;
    const sinew_vec2 target = v2(r);
    sinew_ik_result result;
    const sinew_status st = sinew_ik_solve(u8(r) == 255 ? NULL : &d, &chain, target, &result);
    if (sinew_status_string(st) == NULL) {
        fuzz_fail("sinew_status_string(%d) is NULL", (int)st);
    }
    if (st == SINEW_OK) {
        if (!isfinite(result.distance)) {
            fuzz_fail("sinew_ik_solve returned SINEW_OK with distance %g", (double)result.distance);
        }
        for (int k = 0; k < chain.count; ++k) {
            if (!isfinite(angles[k])) {
                fuzz_fail("sinew_ik_solve returned SINEW_OK with angle %d = %g", k, (double)angles[k]);
            }
        }
    }
    // Forward kinematics into exactly count + 1 points, then back.
    if (chain.count >= 0 && chain.count <= 300) {
        sinew_vec2 *points = calloc((size_t)chain.count + 1u, sizeof *points);
        const sinew_status fk = sinew_ik_chain_points(&chain, points);
        if (fk == SINEW_OK && bit(r)) {
            for (int k = 0; k <= chain.count; ++k) {
                if (bit(r)) {
                    points[k] = v2(r);
                }
            }
        }
        (void)sinew_ik_chain_set_points(&chain, points);
        free(points);
    }
    (void)sinew_ik_wrap_angle(fl(r));
    ik3_from_2d(&chain, allocated, limits, &d, target);
    free(angles);
    free(lengths);
    free(weights);
    free(limits);
}

static void op_ik_arm_create(state *s, reader *r)
{
    sinew_ik_arm_def d = sinew_default_ik_arm_def();
    bool want_lengths = false, want_angles = false, want_limits = false;
    for (int n = edits(r); n > 0; --n) {
        switch (u8(r) % 17) {
        case 0: d.base = v2(r); break;
        case 1: d.base_angle = fl(r); break;
        case 2: d.bones = in(r); break;
        case 3: d.bone_length = fl(r); break;
        case 4: want_lengths = true; break;
        case 5: want_angles = true; break;
        case 6: want_limits = true; break;
        case 7: d.limit_stiffness = fl(r); break;
        case 8: d.weight = fl(r); break;
        case 9: d.radius = fl(r); break;
        case 10: d.particle_flags = u8(r); break;
        case 11: d.target_at_hand = bit(r); break;
        case 12: d.target = v2(r); break;
        case 13: d.target_stiffness = fl(r); break;
        case 14: d.target_compliance = fl(r); break;
        case 15: d.bones = 2; break;
        default: d.bones = 1 + u8(r); break;
        }
    }
    // Arrays of exactly `bones` entries (one entry when bones is out of range: the engine must
    // refuse the def without reading them).
    const int entries = d.bones > 0 && d.bones <= 300 ? d.bones : 1;
    float *lengths = want_lengths ? float_array(r, entries) : NULL;
    float *angles = want_angles ? float_array(r, entries) : NULL;
    sinew_ik_limit *limits = want_limits ? limit_array(r, entries) : NULL;
    d.lengths = lengths;
    d.angles = angles;
    d.limits = limits;
    const sinew_scene_counts c = sinew_ik_arm_counts(&d);
    const uint8_t nulls = u8(r);
    const unsigned slot = s->n_arms++ % ARMS;
    arm_slot *a = &s->arms[slot];
    for (int k = 0; k < 4; ++k) {
        free(s->arm_buffers[slot][k]);
        s->arm_buffers[slot][k] = NULL;
    }
    memset(a, 0, sizeof *a);
    // The arm's particle array holds bones + 1 entries (the anchor is a field of its own).
    const int chain_particles = c.particles - (c.angles > 0 ? 1 : 0);
    a->arm.particles = exact_array(chain_particles, sizeof *a->arm.particles, nulls & 1u);
    a->arm.bones = exact_array(c.distances, sizeof *a->arm.bones, nulls & 2u);
    a->arm.limits = exact_array(c.angles, sizeof *a->arm.limits, nulls & 4u);
    a->arm.limit_values = exact_array(c.angles, sizeof *a->arm.limit_values, nulls & 8u);
    s->arm_buffers[slot][0] = a->arm.particles;
    s->arm_buffers[slot][1] = a->arm.bones;
    s->arm_buffers[slot][2] = a->arm.limits;
    s->arm_buffers[slot][3] = a->arm.limit_values;
    const bool null_out = (nulls & 16u) != 0;
    const snapshot before = snap(s);
    const sinew_status st =
        verify(s, sinew_ik_arm_create(s->world, &d, null_out ? NULL : &a->arm), before, "sinew_ik_arm_create");
    refused_as_counted("sinew_ik_arm_create", c, st);
    if (st == SINEW_OK) {
        built(s, "sinew_ik_arm_create", before, c, null_out ? NULL : a->arm.particles, chain_particles);
        if (!null_out) {
            a->used = true;
            REMEMBER(s, pins, a->arm.target_pin);
            REMEMBER(s, pins, a->arm.root_pin);
            if (a->arm.limits != NULL && c.angles > 0) {
                REMEMBER(s, angles, a->arm.limits[0]);
            }
        }
    }
    free(lengths);
    free(angles);
    free(limits);
}

static void op_ik_arm_drive(state *s, reader *r, bool release)
{
    const uint8_t b = u8(r);
    arm_slot *a = &s->arms[b % ARMS];
    if (!a->used) {
        if (release) {
            CALL(s, sinew_ik_arm_release(s->world, NULL));
        }
        return;
    }
    if (release) {
        CALL(s, sinew_ik_arm_release(s->world, (b & 128u) ? NULL : &a->arm));
        return;
    }
    int callback_points = a->arm.bone_count + 1;
    sinew_ik_def d = ik_def(r, a->arm.bone_count, &callback_points);
    sinew_ik_limit *limits = bit(r) ? limit_array(r, a->arm.bone_count) : NULL;
    d.limits = limits;
    sinew_ik_result result;
    const snapshot before = snap(s);
    const sinew_status st =
        verify(s, sinew_ik_arm_drive(s->world, &a->arm, (b & 128u) ? NULL : &d, &result), before,
               "sinew_ik_arm_drive");
    if (st == SINEW_OK && !isfinite(result.distance)) {
        fuzz_fail("sinew_ik_arm_drive returned SINEW_OK with distance %g", (double)result.distance);
    }
    free(limits);
}

// Contacts the next step will make, estimated from up to 64 sampled colliding particles and how
// many particles overlap each (a heap of coincident balls makes n^2 / 2 of them).
static double estimate_contacts(const state *s)
{
    const sinew_particle_view v = sinew_world_particles(s->world);
    if (v.count < 2) {
        return 0.0;
    }
    const int samples = v.count < 64 ? v.count : 64;
    // The search keeps the pairs within 1.1 (r_i + r_j) plus twice its motion margin, which is at
    // most half the largest radius: those pending pairs cost memory and work too.
    float max_r = 0.0f;
    for (int j = 0; j < v.count; ++j) {
        max_r = v.radius[j] > max_r ? v.radius[j] : max_r;
    }
    double overlaps = 0.0;
    for (int k = 0; k < samples; ++k) {
        const int i = (int)((long long)k * v.count / samples);
        if (!(v.flags[i] & SINEW_PARTICLE_COLLIDES)) {
            continue;
        }
        for (int j = 0; j < v.count; ++j) {
            const float dx = v.x[j] - v.x[i], dy = v.y[j] - v.y[i], reach = 1.1f * (v.radius[i] + v.radius[j]) + max_r;
            if (j != i && (v.flags[j] & SINEW_PARTICLE_COLLIDES) && dx * dx + dy * dy <= reach * reach) {
                overlaps += 1.0;
            }
        }
    }
    return overlaps * v.count / samples / 2.0;
}

// A step's profile: finite times, none negative; the stages add up to the step, and the jobs'
// wait lies within their time, which lies within the step.
static void check_profile(sinew_step_profile p)
{
    const float t[9] = {p.step, p.prepare, p.integrate, p.collide, p.solve, p.finish, p.end, p.parallel, p.wait};
    double stages = 0.0;
    for (int k = 0; k < 9; ++k) {
        if (!(t[k] >= 0.0f && t[k] < INFINITY)) {
            fuzz_fail("profile: time %d is %g", k, (double)t[k]);
        }
        stages += k >= 1 && k <= 6 ? t[k] : 0.0;
    }
    const double slack = 1e-4 * p.step + 1e-6;
    if (fabs(stages - p.step) > slack || p.parallel > p.step + slack || p.wait > p.parallel + slack || p.jobs < 0) {
        fuzz_fail("profile: stages %g, step %g, parallel %g, wait %g, jobs %d", stages, (double)p.step,
                  (double)p.parallel, (double)p.wait, p.jobs);
    }
}

static void op_step(state *s, reader *r)
{
    const int steps = 1 + (u8(r) & 3u);
    for (int k = 0; k < steps; ++k) {
        const float dt = fl(r);
        const sinew_solver_def solver = sinew_world_get_solver(s->world);
        const int particles = sinew_world_particles(s->world).count;
        if (particles > STEP_PARTICLES_MAX) {
            return;
        }
        const double estimate = estimate_contacts(s);
        const double contacts = estimate > s->contacts ? estimate : s->contacts;
        const double work = (double)solver.substeps * solver.iterations * (particles + s->constraints + contacts + 1.0);
        if (work > STEP_WORK_MAX || s->work + work > INPUT_WORK_MAX) {
            return;
        }
        s->work += work;
        if (CALL(s, sinew_world_step(s->world, dt)) == SINEW_OK) {
            // Contacts are only known after a step: a heap of coincident balls has n^2 of them.
            const sinew_step_stats st = sinew_world_stats(s->world);
            s->contacts = (double)st.kinds[SINEW_KIND_CONTACT].count + st.kinds[SINEW_KIND_COLLIDER].count;
            check_profile(sinew_world_profile(s->world));
        }
    }
}

static void op_solver(state *s, reader *r)
{
    sinew_solver_def d = bit(r) ? sinew_world_get_solver(s->world) : sinew_default_solver_def();
    for (int n = edits(r); n > 0; --n) {
        edit_solver_field(&d, u8(r) % 6, r);
    }
    CALL(s, sinew_world_set_solver(s->world, u8(r) == 255 ? NULL : &d));
}

static void op_iteration_errors(state *s, reader *r)
{
    CALL(s, sinew_world_record_iterations(s->world, bit(r)));
    const sinew_kind kind = (sinew_kind)in(r);
    int substeps = -1, iterations = -1;
    const sinew_error_sample *e = sinew_world_iteration_errors(s->world, kind, &substeps, &iterations);
    if (e != NULL) {
        if (substeps < 1 || iterations < 1) {
            fuzz_fail("iteration_errors: %d substeps, %d iterations", substeps, iterations);
        }
        float sum = 0.0f;
        for (long k = 0; k < (long)substeps * (iterations + 1); ++k) {
            sum += e[k].max_error + e[k].rms_error;
        }
        volatile float sink = sum;
        (void)sink;
    }
    (void)sinew_world_iteration_errors(s->world, kind, NULL, NULL);
}

static void op_query(state *s, reader *r, int which)
{
    sinew_world *w = s->world;
    if (which == 2) {
        sinew_particle_id id;
        const sinew_vec2 p = v2(r);
        const float max_distance = fl(r);
        if (CALL(s, sinew_world_query_nearest(w, p, max_distance, u8(r) == 255 ? NULL : &id)) == SINEW_OK &&
            !SINEW_ID_IS_NULL(id) && !sinew_particle_is_valid(w, id)) {
            fuzz_fail("query_nearest gave an invalid particle id");
        }
        return;
    }
    const int capacity = in(r);
    const bool null_out = bit(r);
    sinew_particle_id *out = null_out ? NULL : exact_array(capacity, sizeof *out, false);
    int count = -1;
    sinew_status st;
    if (which == 0) {
        const sinew_vec2 lo = v2(r);
        const sinew_vec2 hi = v2(r);
        st = CALL(s, sinew_world_query_aabb(w, lo, hi, out, capacity, &count));
    } else {
        const sinew_vec2 c = v2(r);
        st = CALL(s, sinew_world_query_circle(w, c, fl(r), out, capacity, &count));
    }
    if (st == SINEW_OK) {
        if (count < 0) {
            fuzz_fail("query found %d particles", count);
        }
        const int written = count < capacity ? count : capacity;
        for (int k = 0; out != NULL && k < written; ++k) {
            if (!sinew_particle_is_valid(w, out[k])) {
                fuzz_fail("query wrote an invalid particle id at %d of %d", k, written);
            }
        }
    }
    free(out);
}

// Debug draw callbacks: every coordinate they are handed must be finite.
static void finite_or_fail(sinew_vec2 p, const char *what)
{
    if (!isfinite(p.x) || !isfinite(p.y)) {
        fuzz_fail("world_draw: a %s at (%g, %g)", what, (double)p.x, (double)p.y);
    }
}
static void draw_circle(sinew_vec2 c, float r, sinew_color col, void *ctx)
{
    (void)col;
    finite_or_fail(c, "circle");
    finite_or_fail(sinew_vec2_make(r, 0.0f), "circle radius");
    *(int *)ctx += 1;
}
static void draw_segment(sinew_vec2 a, sinew_vec2 b, sinew_color col, void *ctx)
{
    (void)col;
    finite_or_fail(a, "segment");
    finite_or_fail(b, "segment");
    *(int *)ctx += 1;
}
static void draw_polygon(const sinew_vec2 *v, int n, float r, sinew_color col, void *ctx)
{
    (void)col;
    for (int k = 0; k < n; ++k) {
        finite_or_fail(v[k], "polygon vertex");
    }
    finite_or_fail(sinew_vec2_make(r, (float)n), "polygon radius");
    *(int *)ctx += 1;
}
static void draw_point(sinew_vec2 p, sinew_color col, void *ctx)
{
    (void)col;
    finite_or_fail(p, "point");
    *(int *)ctx += 1;
}

// cast_ray_all's callback: checks each hit as cast_ray's is checked, keeps the closest fraction.
typedef struct ray_hits {
    state *s;
    int count;
    float closest;
} ray_hits;

static float count_hit(const sinew_ray_hit *hit, void *context)
{
    ray_hits *h = context;
    const sinew_world *w = h->s->world;
    const bool named = sinew_particle_is_valid(w, hit->particle) != sinew_collider_is_valid(w, hit->collider);
    const float n2 = hit->normal.x * hit->normal.x + hit->normal.y * hit->normal.y;
    if (!hit->hit || !named || !(hit->fraction >= 0.0f && hit->fraction <= 1.0f) || !isfinite(hit->point.x) ||
        !isfinite(hit->point.y) || !(fabsf(n2 - 1.0f) < 1e-3f)) {
        fuzz_fail("cast_ray_all: hit %d at %g with normal length^2 %g", h->count, (double)hit->fraction, (double)n2);
    }
    h->count += 1;
    h->closest = hit->fraction < h->closest ? hit->fraction : h->closest;
    return 1.0f;
}

static void op_inspect(state *s, reader *r)
{
    sinew_world *w = s->world;
    int count = -1;
    const sinew_tear *tears = sinew_world_tears(w, &count);
    if (tears == NULL || count < 0) {
        fuzz_fail("world_tears: %p, count %d", (const void *)tears, count);
    }
    for (int k = 0; k < count; ++k) {
        if (sinew_distance_is_valid(w, tears[k].link)) {
            fuzz_fail("world_tears: torn link %d is still valid", k);
        }
    }
    const sinew_step_stats st = sinew_world_stats(w);
    if (st.particles < 0 || st.reset_particles < 0 || st.dropped_contacts < 0) {
        fuzz_fail("stats: negative counts");
    }
    (void)sinew_world_get_gravity(w);
    (void)sinew_world_get_solver(w);
    (void)sinew_world_user_data(w);
    (void)sinew_world_collider_count(w);
    (void)sinew_world_byte_count(w);
    if (sinew_world_last_error(w) == NULL) {
        fuzz_fail("world_last_error is NULL");
    }
    check_particles(s, 0, "inspect");
    // A ray cast: a hit names a live particle or collider, at a fraction in [0, 1], with a finite
    // point and a unit normal.
    const sinew_vec2 origin = v2(r), translation = v2(r);
    sinew_ray_filter f = sinew_default_ray_filter();
    f.mask = bit(r) ? u32(r) : f.mask;
    f.particles = bit(r);
    sinew_ray_hit hit;
    if (CALL(s, sinew_world_cast_ray(w, origin, translation, &f, &hit)) == SINEW_OK && hit.hit) {
        const bool named = sinew_particle_is_valid(w, hit.particle) != sinew_collider_is_valid(w, hit.collider);
        const float n2 = hit.normal.x * hit.normal.x + hit.normal.y * hit.normal.y;
        if (!named || !(hit.fraction >= 0.0f && hit.fraction <= 1.0f) || !isfinite(hit.point.x) ||
            !isfinite(hit.point.y) || !(fabsf(n2 - 1.0f) < 1e-3f)) {
            fuzz_fail("cast_ray: a hit at %g with normal length^2 %g", (double)hit.fraction, (double)n2);
        }
    }
    // Every hit along the same ray, from no byte of its own: each as sound as the closest one, and
    // the closest of them at the fraction cast_ray found.
    ray_hits all = {s, 0, 2.0f};
    if (CALL(s, sinew_world_cast_ray_all(w, origin, translation, &f, count_hit, &all)) == SINEW_OK && hit.hit &&
        all.closest != hit.fraction) {
        fuzz_fail("cast_ray_all: closest hit at %g, cast_ray at %g", (double)all.closest, (double)hit.fraction);
    }
    // The last step's contact events (particles made with SINEW_PARTICLE_EVENTS): a particle and
    // exactly one other (a particle or a collider), a unit normal, a finite point, a speed >= 0,
    // each list sorted.
    const sinew_contact_events events = sinew_world_contact_events(w);
    if (events.begin_count < 0 || events.end_count < 0 || (events.begin_count > 0 && events.begin == NULL) ||
        (events.end_count > 0 && events.end == NULL)) {
        fuzz_fail("contact_events: %d begin, %d end", events.begin_count, events.end_count);
    }
    for (int k = 0; k < events.begin_count; ++k) {
        const sinew_contact_begin_event *e = &events.begin[k];
        const float n2 = e->normal.x * e->normal.x + e->normal.y * e->normal.y;
        if (SINEW_ID_IS_NULL(e->a) || SINEW_ID_IS_NULL(e->b) == SINEW_ID_IS_NULL(e->collider) ||
            !(fabsf(n2 - 1.0f) < 1e-3f) || !isfinite(e->point.x) || !isfinite(e->point.y) ||
            !(e->approach_speed >= 0.0f) || !isfinite(e->approach_speed)) {
            fuzz_fail("contact_events: begin event %d malformed", k);
        }
    }
    for (int k = 0; k < events.end_count; ++k) {
        const sinew_contact_end_event *e = &events.end[k];
        if (SINEW_ID_IS_NULL(e->a) || SINEW_ID_IS_NULL(e->b) == SINEW_ID_IS_NULL(e->collider)) {
            fuzz_fail("contact_events: end event %d malformed", k);
        }
    }
    // Readings and the debug draw, from no byte of their own: forces finite (or not measured),
    // every primitive drawn finite. The readings are checked as a whole (the world unchanged after
    // all of them), not call by call: a check of every particle per link is quadratic.
    const snapshot before_readings = snap(s);
    for (int k = 0; k < sinew_world_pin_count(w); ++k) {
        sinew_vec2 force = {0.0f, 0.0f};
        const sinew_status st = sinew_pin_get_force(w, sinew_pin_id_at(w, k), &force);
        if (!(st == SINEW_OK || st == SINEW_ERR_NOT_MEASURED) || !isfinite(force.x) || !isfinite(force.y)) {
            fuzz_fail("pin_get_force: pin %d: %s, (%g, %g)", k, sinew_status_name(st), (double)force.x, (double)force.y);
        }
    }
    for (int k = 0; k < sinew_world_distance_count(w); ++k) {
        float t = 0.0f;
        const sinew_status st = sinew_distance_get_force(w, sinew_distance_id_at(w, k), &t);
        if (!(st == SINEW_OK || st == SINEW_ERR_NOT_MEASURED) || !isfinite(t)) {
            fuzz_fail("distance_get_force: link %d: %s, %g", k, sinew_status_name(st), (double)t);
        }
    }
    verify(s, SINEW_OK, before_readings, "pin_get_force and distance_get_force of every constraint");
    if (snap(s).bytes != before_readings.bytes) {
        fuzz_fail("force readings changed the world's bytes");
    }
    int drawn = 0;
    const sinew_debug_draw draw = {draw_circle, draw_segment, draw_polygon, draw_point, SINEW_DRAW_ALL, &drawn,
                                   origin, sinew_vec2_add(origin, translation)};
    CALL(s, sinew_world_draw(w, &draw));
}

// ---- snapshots --------------------------------------------------------------------------------

static bool documented_load_status(sinew_status st)
{
    return st == SINEW_OK || st == SINEW_ERR_SNAPSHOT_TRUNCATED || st == SINEW_ERR_SNAPSHOT_CORRUPT ||
           st == SINEW_ERR_SNAPSHOT_FOREIGN || st == SINEW_ERR_SNAPSHOT_VERSION || st == SINEW_ERR_SNAPSHOT_INVALID ||
           st == SINEW_ERR_OUT_OF_MEMORY;
}

// A snapshot of `size` bytes the same as `expected`: a saved copy must save the same bytes.
static void check_saves_as(const sinew_world *copy, const uint8_t *expected, size_t size, const char *what)
{
    const size_t n = sinew_world_save_size(copy);
    uint8_t *again = malloc(n == 0 ? 1 : n);
    if (again == NULL) {
        return;
    }
    size_t written = 0;
    if (n != size || sinew_world_save(copy, again, n, &written) != SINEW_OK || memcmp(again, expected, size) != 0) {
        fuzz_fail("%s: the copy saves %zu bytes unlike the original's %zu", what, n, size);
    }
    free(again);
}

// Loads `buf` on a counting allocator of its own: a documented status, no leak, and a world that
// loads steps (small ones) with finite positions.
static void load_and_step(const uint8_t *buf, size_t size)
{
    fuzz_alloc alloc;
    memset(&alloc, 0, sizeof alloc);
    sinew_world_def def = sinew_default_world_def();
    def.allocator.alloc = fuzz_alloc_fn;
    def.allocator.free = fuzz_free_fn;
    def.allocator.user_data = &alloc;
    sinew_world *w = NULL;
    const sinew_status st = sinew_world_load(buf, size, &def, &w);
    if (!documented_load_status(st)) {
        fuzz_fail("sinew_world_load returned %s", sinew_status_string(st));
    }
    if ((st == SINEW_OK) != (w != NULL)) {
        fuzz_fail("sinew_world_load returned %s and %s world", sinew_status_string(st), w != NULL ? "a" : "no");
    }
    if (st != SINEW_OK) {
        if (alloc.live != 0) {
            fuzz_fail("sinew_world_load returned %s and kept %zu bytes", sinew_status_string(st), alloc.live);
        }
        return;
    }
    const sinew_solver_def solver = sinew_world_get_solver(w);
    const sinew_particle_view v = sinew_world_particles(w);
    if (v.count <= 500 && solver.substeps * solver.iterations <= 64) {
        if (sinew_world_step(w, 1.0f / 60.0f) != SINEW_OK) {
            fuzz_fail("a loaded world refused a step");
        }
        const sinew_particle_view after = sinew_world_particles(w);
        for (int i = 0; i < after.count; ++i) {
            if (!isfinite(after.x[i]) || !isfinite(after.y[i])) {
                fuzz_fail("a loaded world stepped particle %d to a non-finite position", i);
            }
        }
    }
    sinew_world_destroy(w);
    if (alloc.live != 0) {
        fuzz_fail("destroying a loaded world left %zu bytes", alloc.live);
    }
}

// Saves the world, then: loads it back (the copy saves the same bytes); clones it; or edits a few
// bytes of the buffer (re-sealing its checksum or not) and loads that.
static void op_snapshot(state *s, reader *r)
{
    sinew_world *w = s->world;
    const uint8_t mode = u8(r) % 4u;
    const size_t size = sinew_world_save_size(w);
    if (size == 0 || size > ALLOC_CAP) {
        return;
    }
    uint8_t *buf = malloc(size);
    if (buf == NULL) {
        return;
    }
    size_t written = 0;
    if (sinew_world_save(w, buf, size - 1, &written) != SINEW_ERR_BUFFER_TOO_SMALL || written != 0) {
        fuzz_fail("sinew_world_save into %zu of %zu bytes did not refuse", size - 1, size);
    }
    if (sinew_world_save(w, buf, size, &written) != SINEW_OK || written != size) {
        fuzz_fail("sinew_world_save of %zu bytes failed", size);
    }
    if (mode == 0) {
        sinew_world *copy = NULL;
        const sinew_status st = sinew_world_load(buf, size, NULL, &copy);
        if (st != SINEW_OK) {
            const char *why = NULL;
            (void)sinew_snapshot_check(buf, size, &why);
            fuzz_fail("a world's own snapshot does not load: %s (%s)", sinew_status_string(st), why != NULL ? why : "");
        }
        check_saves_as(copy, buf, size, "load");
        sinew_world_destroy(copy);
    } else if (mode == 1) {
        const size_t live = s->alloc.live, bytes = sinew_world_byte_count(w);
        sinew_world *copy = NULL;
        const sinew_status st = sinew_world_clone(w, &copy);
        if (st == SINEW_OK) {
            check_saves_as(copy, buf, size, "clone");
            sinew_world_destroy(copy);
        } else if (st != SINEW_ERR_OUT_OF_MEMORY || copy != NULL) {
            fuzz_fail("sinew_world_clone returned %s", sinew_status_string(st));
        }
        if (sinew_world_byte_count(w) != bytes || (s->counted && s->alloc.live != live)) {
            fuzz_fail("sinew_world_clone changed what the world holds");
        }
    } else {
        for (int n = 1 + u8(r) % 8; n > 0; --n) {
            const size_t at = (size_t)u32(r) % size;
            buf[at] = (uint8_t)(u8(r) == 0 ? 0xffu : buf[at] ^ (1u << (u8(r) % 8u)));
        }
        if (mode == 3 && size >= 40) {
            const uint64_t h = sinew__snapshot_checksum(buf + 40, size - 40);
            memcpy(buf + 32, &h, 8);
        }
        load_and_step(buf, size);
    }
    free(buf);
}

static void op_status_string(reader *r)
{
    const int v = in(r);
    if (sinew_status_string((sinew_status)v) == NULL) {
        fuzz_fail("sinew_status_string(%d) is NULL", v);
    }
}

// ---- one program ------------------------------------------------------------------------------

enum { N_OPS = 49 };

static void run_op(state *s, reader *r, int op)
{
    sinew_world *w = s->world;
    switch (op) {
    case 0: op_particle_create(s, r); break;
    case 1: case 2: case 3: case 4: case 5: case 6: op_particle_misc(s, r, op - 1); break;
    case 7: case 8: case 9: case 10: op_distance(s, r, op - 7); break;
    case 11: case 12: case 13: case 14: op_pin(s, r, op - 11); break;
    case 15: case 16: case 17: op_area(s, r, op - 15); break;
    case 18: case 19: case 20: op_angle(s, r, op - 18); break;
    case 21: case 22: case 23: case 24: case 25: case 26: case 27: op_collider(s, r, op - 21); break;
    case 28: op_rope(s, r); break;
    case 29: op_cloth(s, r, false); break;
    case 30: op_cloth(s, r, true); break;
    case 31: op_softbody(s, r); break;
    case 32: op_pile(s, r); break;
    case 33: op_ik_arm_create(s, r); break;
    case 34: op_ik_arm_drive(s, r, false); break;
    case 35: op_ik_arm_drive(s, r, true); break;
    case 36: op_step(s, r); break;
    case 37: op_solver(s, r); break;
    case 38: {
        CALL(s, sinew_world_set_gravity(w, v2(r)));
        break;
    }
    case 39: { // the same value as a damping and a contact speed (no byte of its own: the corpus decodes as before)
        const float f = fl(r);
        CALL(s, sinew_world_set_damping(w, f));
        CALL(s, sinew_world_set_contact_speed(w, f));
        break;
    }
    case 40: op_iteration_errors(s, r); break;
    case 41: case 42: case 43: op_query(s, r, op - 41); break;
    case 44: op_inspect(s, r); break;
    case 45: op_snapshot(s, r); break;
    case 46: op_ik_solve(r); break;
    case 47: op_status_string(r); (void)sinew_ik_wrap_angle(fl(r)); break;
    case 48: set_fail_mode(&s->alloc, r); break;
    default: op_particle_set(s, r); break;
    }
}

// Opcode bytes 0..244 are ops 0..48 (the byte modulo 49, as before this op existed, so the corpus
// decodes as it did); 245..255 are the particle setters.
static int opcode(reader *r)
{
    const uint8_t b = u8(r);
    return b >= 245u ? N_OPS : b % N_OPS;
}

static bool make_world(state *s, reader *r)
{
    const uint8_t flags = u8(r);
    sinew_world_def d = sinew_default_world_def();
    for (int n = edits(r) * ((flags & 64u) ? 2 : 1); n > 0; --n) {
        const int field = u8(r) % 16;
        switch (field) {
        case 0: d.gravity.x = fl(r); break;
        case 1: d.gravity.y = fl(r); break;
        case 2: d.damping = fl(r); break;
        case 3: d.particle_capacity = in(r); break;
        case 4: d.constraint_capacity = in(r); break;
        case 5: d.max_particles = in(r); break;
        case 6: d.max_constraints = in(r); break;
        case 7: d.skip_linked_pairs = bit(r); break;
        case 8: d.user_data = (void *)(uintptr_t)u8(r); break;
        default: edit_solver_field(&d.solver, field - 9, r); break;
        }
    }
    // Flag bit 7: two workers (the built-in pool). It reads no byte of its own, and a world ends in
    // the same state at any worker count, so every input decodes and runs as before the bit was
    // read; the threaded stages it reaches at these sizes are Gauss-Seidel's spans (512 links on).
    d.workers = (flags & 128u) ? 2 : 1;
    // Allocator: 0-3 counting with a failure mode, 4 the C library's (fields NULL), 5 half set.
    const uint8_t which = (flags >> 1) & 7u;
    // The C library's allocator (4) is asked for all that the hints say, and under the sanitizers
    // a request it cannot meet aborts the process instead of returning NULL (a constraint hint
    // from the fuzzer asked for 52 GB): its hints stay under HINT_CAP. The counting allocators,
    // which refuse past ALLOC_CAP, take any hint, and sinew_world_create must fail cleanly there.
    if (which == 4) {
        d.particle_capacity = d.particle_capacity > HINT_CAP ? HINT_CAP : d.particle_capacity;
        d.constraint_capacity = d.constraint_capacity > HINT_CAP ? HINT_CAP : d.constraint_capacity;
    }
    memset(&s->alloc, 0, sizeof s->alloc);
    s->counted = !(flags & 1u) && which != 4 && which != 5; // a NULL def uses malloc
    if (s->counted) {
        d.allocator.alloc = fuzz_alloc_fn;
        d.allocator.free = fuzz_free_fn;
        d.allocator.user_data = &s->alloc;
        if (which <= 3) {
            set_fail_mode(&s->alloc, r);
        }
    } else if (which == 4) {
        d.allocator.alloc = NULL;
        d.allocator.free = NULL;
    } else {
        d.allocator.alloc = fuzz_alloc_fn;
        d.allocator.free = NULL;
        d.allocator.user_data = &s->alloc;
    }
    sinew_world *world = NULL;
    const sinew_status st = sinew_world_create((flags & 1u) ? NULL : &d, &world);
    if (sinew_status_string(st) == NULL) {
        fuzz_fail("sinew_status_string(%d) is NULL", (int)st);
    }
    if (st != SINEW_OK) {
        if (world != NULL) {
            fuzz_fail("sinew_world_create returned %s but wrote a world", sinew_status_string(st));
        }
        if (s->alloc.live != 0) {
            fuzz_fail("sinew_world_create returned %s and kept %zu bytes", sinew_status_string(st),
                      s->alloc.live);
        }
        // Go on with a default world on a counting allocator that never fails.
        memset(&s->alloc, 0, sizeof s->alloc);
        d = sinew_default_world_def();
        d.allocator.alloc = fuzz_alloc_fn;
        d.allocator.free = fuzz_free_fn;
        d.allocator.user_data = &s->alloc;
        s->counted = true;
        if (sinew_world_create(&d, &world) != SINEW_OK) {
            fuzz_fail("sinew_world_create with the defaults failed");
        }
    } else if (world == NULL) {
        fuzz_fail("sinew_world_create returned SINEW_OK and no world");
    }
    // With two workers, the stages hand out items 64 times smaller than the engine's (as the
    // threaded tests do), so that an input's small worlds reach the threaded paths too (Jacobi's
    // contact parts, the search's bands, the particle passes): the same state at any item size.
    if ((flags & 128u) != 0u) {
        world->tasks.grain = 64;
    }
    // Every world profiles its steps (sinew_world_profile), with two workers their jobs too, reading
    // no byte either.
    sinew_world_set_profiling(world, (flags & 128u) != 0u ? SINEW_PROFILE_JOBS : SINEW_PROFILE_STAGES);
    s->world = world;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // An input that is a snapshot (it starts with the magic) is loaded as it is, and once more with
    // its checksum re-sealed, so that the fuzzer mutates snapshots past the checksum too.
    if (size >= 8 && memcmp(data, "SINEWSNP", 8) == 0) {
        load_and_step(data, size);
        if (size >= 40) {
            uint8_t *sealed = malloc(size);
            if (sealed != NULL) {
                memcpy(sealed, data, size);
                const uint64_t h = sinew__snapshot_checksum(sealed + 40, size - 40);
                memcpy(sealed + 32, &h, 8);
                load_and_step(sealed, size);
                free(sealed);
            }
        }
        return 0;
    }
    reader r = {data, size, 0};
    state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return 0;
    }
    make_world(s, &r);
    for (int ops = 0; ops < MAX_OPS && more(&r); ++ops) {
        run_op(s, &r, opcode(&r));
    }
    check_particles(s, 0, "the end of the input");
    sinew_world_destroy(s->world);
    if (s->counted && s->alloc.live != 0) {
        fuzz_fail("sinew_world_destroy left %zu bytes allocated", s->alloc.live);
    }
    for (int k = 0; k < ARMS; ++k) {
        for (int j = 0; j < 4; ++j) {
            free(s->arm_buffers[k][j]);
        }
    }
    free(s);
    return 0;
}

// ---- replay: one cmocka test per corpus file --------------------------------------------------

#ifdef SINEW_FUZZ_REPLAY

static void replay_one(void **state)
{
    const char *path = *state;
    replay_file = path;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fail_msg("%s: cannot open", path);
    }
    uint8_t *data = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            cap = cap ? 2 * cap : 4096;
            data = realloc(data, cap);
            assert_non_null(data);
        }
        const size_t got = fread(data + size, 1, cap - size, f);
        if (got == 0) {
            break;
        }
        size += got;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (dir == NULL) {
        fprintf(stderr, "%s: cannot open directory %s\n", argv[0], argv[1]);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.') {
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            names = realloc(names, cap * sizeof *names);
        }
        const size_t len = strlen(e->d_name) + 1;
        names[n] = malloc(len);
        memcpy(names[n++], e->d_name, len);
    }
    closedir(dir);
    if (n == 0) {
        fprintf(stderr, "%s: no corpus files in %s\n", argv[0], argv[1]);
        return 1;
    }
    qsort(names, n, sizeof *names, by_name);
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    char **paths = calloc(n, sizeof *paths);
    for (size_t k = 0; k < n; ++k) {
        const size_t len = strlen(argv[1]) + strlen(names[k]) + 2;
        paths[k] = malloc(len);
        snprintf(paths[k], len, "%s/%s", argv[1], names[k]);
        tests[k].name = names[k];
        tests[k].test_func = replay_one;
        tests[k].initial_state = paths[k];
    }
    const int failed = _cmocka_run_group_tests("fuzz_corpus", tests, n, NULL, NULL);
    for (size_t k = 0; k < n; ++k) {
        free(names[k]);
        free(paths[k]);
    }
    free(names);
    free(paths);
    free(tests);
    return failed;
}

#endif
