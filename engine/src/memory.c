// Allocation through the world's allocator, and structure-of-arrays blocks that grow atomically.
#include <string.h>

#include "world_internal.h"

#define SINEW__ALIGN 64u

void *sinew__alloc(sinew_world *world, size_t size)
{
    void *p = world->allocator.alloc(size, world->allocator.user_data);
    if (p != NULL) {
        world->byte_count += size;
    }
    return p;
}

void sinew__free(sinew_world *world, void *ptr, size_t size)
{
    if (ptr != NULL) {
        world->allocator.free(ptr, size, world->allocator.user_data);
        world->byte_count -= size;
    }
}

static size_t align_up(size_t n) { return (n + (SINEW__ALIGN - 1u)) & ~(size_t)(SINEW__ALIGN - 1u); }

sinew_status sinew__block_resize(sinew_world *world, void **block, size_t *block_bytes, const sinew__field *fields,
                                 int field_count, int count, int new_capacity)
{
    size_t total = SINEW__ALIGN; // room to align the first array whatever the allocator returns
    for (int f = 0; f < field_count; ++f) {
        total += fields[f].absent ? 0u : align_up(fields[f].size * sinew__field_entries(&fields[f], new_capacity));
    }
    unsigned char *mem = sinew__alloc(world, total);
    if (mem == NULL) {
        return SINEW_ERR_OUT_OF_MEMORY;
    }
    // Every byte is written once: an array's kept entries copied, the rest zeroed (or filled), and
    // the gaps between arrays zeroed (a grown contact array is mostly copy: zeroing it all first
    // wrote it twice).
    const uintptr_t base = (uintptr_t)mem;
    uintptr_t cursor = (base + (SINEW__ALIGN - 1u)) & ~(uintptr_t)(SINEW__ALIGN - 1u);
    memset(mem, 0, (size_t)(cursor - base));
    for (int f = 0; f < field_count; ++f) {
        if (fields[f].absent) {
            *fields[f].ptr = NULL;
            continue;
        }
        unsigned char *dst = (unsigned char *)cursor;
        const size_t room = fields[f].size * sinew__field_entries(&fields[f], new_capacity);
        size_t kept = 0u;
        if (*fields[f].ptr != NULL && count > 0) {
            kept = fields[f].size * sinew__field_entries(&fields[f], count < new_capacity ? count : new_capacity);
            memcpy(dst, *fields[f].ptr, kept);
        } else if (*fields[f].ptr == NULL && fields[f].fill != NULL) { // an absent array made present
            for (size_t e = 0, n = sinew__field_entries(&fields[f], new_capacity); e < n; ++e) {
                memcpy(dst + e * fields[f].size, fields[f].fill, fields[f].size);
            }
            kept = room;
        }
        const size_t span = align_up(room);
        memset(dst + kept, 0, span - kept);
        *fields[f].ptr = dst;
        cursor += span;
    }
    memset((void *)cursor, 0, (size_t)(base + total - cursor));
    sinew__free(world, *block, *block_bytes);
    *block = mem;
    *block_bytes = total;
    return SINEW_OK;
}

int sinew__grow_capacity(int capacity, int needed)
{
    if (needed > INT32_MAX / 2) {
        return -1;
    }
    // 1.5x the old capacity, or what is needed when that is more: a builder's one reservation
    // gets exactly its count (doubling from 16 gave a 10,000-ball pile room for 16,384), while
    // one-by-one growth stays amortised.
    const int grown = capacity < 16 ? 16 : (capacity > INT32_MAX / 3 ? INT32_MAX / 2 : capacity + capacity / 2);
    return grown > needed ? grown : needed;
}

sinew_status sinew__fail(const sinew_world *world, sinew_status status, const char *detail)
{
    if (world != NULL) {
        // The detail is bookkeeping, not world state: const callers may record it too.
        ((sinew_world *)world)->last_error = detail;
    }
    return status;
}
