// Basics every engine file shares: inlining and SIMD-target macros, the id pool, the dense
// store, memory and errors, validation helpers, the random generator. Never installed.
#pragma once

#include "sinew/sinew.h"

#define SINEW_MAX_SETTING 1024

// Kernels take compile-time flags (XPBD or not, order); forcing the inlining is what makes each
// call site a specialised loop with no per-constraint branch on the flag.
#if defined(__GNUC__)
#define SINEW_FORCE_INLINE static inline __attribute__((always_inline))
#else
#define SINEW_FORCE_INLINE static inline
#endif

// x86-64 with GCC or Clang: the hottest kernels also exist compiled for AVX2 and BMI2 (functions
// marked SINEW__AVX2), used when the CPU has both (world->avx2). Both paths run the same IEEE
// operations in the same order, with no FMA, so they give the same bits: results do not depend
// on the CPU. SINEW_NO_X86_KERNELS (meson -Dx86_kernels=false) builds the portable kernels alone,
// as on other CPUs, so that x86-64 machines can build and test that code too.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(SINEW_NO_X86_KERNELS)
#define SINEW__X86 1
#define SINEW__AVX2 __attribute__((target("avx2,bmi2")))
#else
#define SINEW__X86 0
#endif

// A task (sinew_task_fn) built for the baseline, name##_portable, and on x86-64 for AVX2,
// name##_avx2, from one statement `call` (inline code that may read start, end and context), so
// that the compiler vectorises it eight floats wide in the second; SINEW__TASK_FN(world, name) is
// the build the world's kernels use.
#define SINEW__TASK_PORTABLE(name, call)                                                             \
    static void name##_portable(int start, int end, int worker, void *context)                       \
    {                                                                                                \
        (void)start, (void)end, (void)worker, (void)context;                                         \
        call;                                                                                        \
    }
#if SINEW__X86
#define SINEW__TASK_BUILDS(name, call)                                                               \
    SINEW__TASK_PORTABLE(name, call)                                                                 \
    SINEW__AVX2 static void name##_avx2(int start, int end, int worker, void *context)                \
    {                                                                                                \
        (void)start, (void)end, (void)worker, (void)context;                                         \
        call;                                                                                        \
    }
#define SINEW__TASK_FN(world, name) ((world)->avx2 ? name##_avx2 : name##_portable)
#else
#define SINEW__TASK_BUILDS(name, call) SINEW__TASK_PORTABLE(name, call)
#define SINEW__TASK_FN(world, name) (name##_portable)
#endif

// Id pool: maps stable ids {slot + 1, generation} to dense indices of a store.
typedef struct sinew__id_pool {
    void *block;
    size_t block_bytes;
    uint32_t *generation; // per slot
    uint32_t *dense;      // per slot: dense index, or SINEW__FREE_BIT | next free slot
    uint32_t capacity;    // slots allocated
    uint32_t used;        // slots ever handed out
    uint32_t free_head;   // first free slot + 1, or 0 for none: an all-zero pool is an empty one
} sinew__id_pool;

#define SINEW__FREE_BIT 0x80000000u

// store.c: a dense store of one kind (see the file). The element count lives with the kind (the
// kernels read it there), so the calls take it.
#define SINEW__MAX_FIELDS 40
typedef struct sinew__store {
    void *block;
    size_t block_bytes;
    int capacity;
    uint32_t *id_slot;   // dense index -> id slot
    sinew__id_pool ids;  // id slot -> dense index, generation
} sinew__store;

// Writes the kind's arrays (not id_slot) into fields[], returns how many.
typedef struct sinew__field sinew__field;
typedef int (*sinew__fields_fn)(void *kind, sinew__field *fields);

// Room for `needed` elements (geometric growth; count are kept) and one more id. On failure
// (CAPACITY, OUT_OF_MEMORY) the store's contents are unchanged.
sinew_status sinew__store_reserve(sinew_world *world, sinew__store *s, void *kind, sinew__fields_fn fields, int count,
                                  int needed);
// Reallocates the block at its capacity for the arrays as the kind lists them now: one it made
// present is zeroed, one it made absent is dropped (nothing to do while the store has no room).
// On failure (OUT_OF_MEMORY) the store is unchanged, and the kind must list its arrays as before.
sinew_status sinew__store_refit(sinew_world *world, sinew__store *s, void *kind, sinew__fields_fn fields, int count);
// Appends an element at index *count (room reserved) and writes its new id.
void sinew__store_push(sinew__store *s, int *count, uint32_t *index1, uint32_t *generation);
// Removes element k: its id stops working, the last element moves into k.
void sinew__store_remove(sinew__store *s, void *kind, sinew__fields_fn fields, int *count, int k);
// Dense index of a live id, or -1.
int sinew__store_lookup(const sinew__store *s, uint32_t index1, uint32_t generation);
// The id of element k.
void sinew__store_id(const sinew__store *s, int k, uint32_t *index1, uint32_t *generation);
void sinew__store_free(sinew_world *world, sinew__store *s);
// Reorders the first `count` elements: element k becomes the one at from[k] (a permutation);
// derived fields are left as they are (their owner rebuilds them), ids keep naming their
// elements. `temp` must hold count times the largest field. Allocates nothing.
void sinew__store_permute(sinew__store *s, void *kind, sinew__fields_fn fields, int count, const uint32_t *from,
                          void *temp);

// memory.c
void *sinew__alloc(sinew_world *world, size_t size);
void sinew__free(sinew_world *world, void *ptr, size_t size);

// One array of a structure-of-arrays block: where its pointer lives and its element size.
// `derived`: the array is scratch rebuilt from the others (a snapshot leaves it out).
// `per`: elements per entry, 1 for most; above 1 (a block of lanes), one entry per `per`
// elements plus a closing one, and a removal leaves the array for its kind to refresh.
// `absent`: an optional array the kind does not use now, as every element holds one value: `fill`
// (`size` bytes; NULL: zero). It takes no room, its pointer is NULL, a removal does not move it and
// a snapshot holds it as that value for every element (see sinew__store_refit).
struct sinew__field {
    void **ptr;
    size_t size;
    bool derived;
    int per;
    bool absent;
    const void *fill;
};

// Entries of field f for n elements.
static inline size_t sinew__field_entries(const sinew__field *f, int n)
{
    return f->per > 1 ? (size_t)(n + f->per - 1) / (size_t)f->per + 1u : (size_t)n;
}

// Reallocates the block holding `fields` for `new_capacity` elements, copying `count` elements of
// each array and zeroing the rest (an array that was NULL comes out holding its `fill` in every
// element, zeros without one; an absent one comes out NULL). On failure nothing changes and
// SINEW_ERR_OUT_OF_MEMORY is returned.
sinew_status sinew__block_resize(sinew_world *world, void **block, size_t *block_bytes, const sinew__field *fields,
                                 int field_count, int count, int new_capacity);

// Capacity to grow to so that `needed` elements fit (geometric growth), or -1 past INT32_MAX / 2.
int sinew__grow_capacity(int capacity, int needed);

// Index of the lowest set bit of v, which must not be 0.
static inline int sinew__ctz(uint32_t v)
{
#if defined(__GNUC__)
    return __builtin_ctz(v);
#else
    int c = 0;
    while ((v & 1u) == 0u) {
        v >>= 1;
        ++c;
    }
    return c;
#endif
}

// Index of the lowest set bit of v, which must not be 0.
static inline int sinew__ctz64(uint64_t v)
{
    const uint32_t low = (uint32_t)v;
    return low != 0u ? sinew__ctz(low) : 32 + sinew__ctz((uint32_t)(v >> 32));
}

// Records the detail message and returns the status, for one-line error exits.
sinew_status sinew__fail(const sinew_world *world, sinew_status status, const char *detail);

// id_pool.c
// Makes sure one more id can be taken.
sinew_status sinew__id_reserve(sinew_world *world, sinew__id_pool *pool);
// Makes room for `slots` slots (a snapshot's pool, read back whole).
sinew_status sinew__id_reserve_slots(sinew_world *world, sinew__id_pool *pool, uint32_t slots);
// Takes a slot for dense index `dense`; the pool must have been reserved. Returns the new id's
// slot; its generation is pool->generation[slot].
uint32_t sinew__id_take(sinew__id_pool *pool, uint32_t dense);
void sinew__id_release(sinew__id_pool *pool, uint32_t slot);
// Dense index of a live id, or -1.
int sinew__id_lookup(const sinew__id_pool *pool, uint32_t index1, uint32_t generation);
void sinew__id_pool_free(sinew_world *world, sinew__id_pool *pool);

void sinew__shuffle(uint32_t *perm, int count, uint64_t seed);
// splitmix64: a small, well-mixed generator (shuffle order, scene builders).
uint64_t sinew__random_next(uint64_t *state);

// Validation helpers.
static inline bool sinew__finite(float v) { return isfinite(v) != 0; }
static inline bool sinew__finite2(sinew_vec2 v) { return isfinite(v.x) && isfinite(v.y); }
// |v| <= SINEW_MAX_COORDINATE (false for NaN): a coordinate, length or radius the world accepts.
static inline bool sinew__coordinate_ok(float v) { return fabsf(v) <= SINEW_MAX_COORDINATE; }
static inline bool sinew__point_ok(sinew_vec2 v) { return sinew__coordinate_ok(v.x) && sinew__coordinate_ok(v.y); }
