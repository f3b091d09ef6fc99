// The byte streams a snapshot is made of, as every kind writes and reads its part (serial.h): a
// writer, a reader that checks every byte it hands out, column encoding, and whole stores. The
// snapshot's format, its header and sections, is snapshot.c's.
#include <string.h>

#include "world_internal.h"

// ---- writer and reader ------------------------------------------------------------------------

void sinew__put(sinew__writer *w, const void *bytes, size_t n)
{
    if (n == 0) {
        return; // bytes may be an empty array's NULL
    }
    if (w->data != NULL && w->size <= w->capacity && n <= w->capacity - w->size) {
        memcpy(w->data + w->size, bytes, n);
    }
    w->size += n;
}

static bool fail(sinew__reader *r, sinew_status status, const char *why)
{
    if (r->status == SINEW_OK) {
        r->status = status;
        r->error = why;
    }
    return false;
}

bool sinew__get(sinew__reader *r, void *bytes, size_t n)
{
    if (n == 0) {
        return r->status == SINEW_OK; // bytes may be an empty array's NULL
    }
    if (r->status != SINEW_OK || n > r->size - r->at) {
        memset(bytes, 0, n);
        return fail(r, SINEW_ERR_SNAPSHOT_TRUNCATED, "snapshot: a section ends before its data");
    }
    memcpy(bytes, r->data + r->at, n);
    r->at += n;
    return true;
}

uint32_t sinew__get_u32(sinew__reader *r)
{
    uint32_t v;
    sinew__get(r, &v, sizeof v);
    return v;
}

uint64_t sinew__get_u64(sinew__reader *r)
{
    uint64_t v;
    sinew__get(r, &v, sizeof v);
    return v;
}

float sinew__get_f32(sinew__reader *r)
{
    float v;
    sinew__get(r, &v, sizeof v);
    return v;
}

bool sinew__reader_fail(sinew__reader *r, sinew_status status, const char *why) { return fail(r, status, why); }

bool sinew__expect(sinew__reader *r, bool ok, const char *why)
{
    return ok || fail(r, SINEW_ERR_SNAPSHOT_INVALID, why);
}

enum { COLUMN_ZERO = 0, COLUMN_SAME = 1, COLUMN_RAW = 2, COLUMN_IOTA = 3 };

// Whether n 4-byte elements count 0, 1, 2, ... (the ids of a store nothing was removed from).
static bool iota(const void *array, size_t size, int n)
{
    if (size != sizeof(uint32_t)) {
        return false;
    }
    const uint8_t *a = array;
    for (int k = 0; k < n; ++k) {
        uint32_t v;
        memcpy(&v, a + 4u * (size_t)k, 4);
        if (v != (uint32_t)k) {
            return false;
        }
    }
    return true;
}

// Whether `bytes` bytes are all zero: 8 at a time, OR-ed over chunks (the compiler vectorises the
// chunk), stopping at the first chunk with a set bit.
static bool all_zero(const uint8_t *a, size_t bytes)
{
    size_t at = 0;
    for (; at + 256 <= bytes; at += 256) {
        uint64_t any = 0;
        for (int k = 0; k < 32; ++k) {
            uint64_t v;
            memcpy(&v, a + at + 8 * k, 8);
            any |= v;
        }
        if (any != 0u) {
            return false;
        }
    }
    for (; at < bytes; ++at) {
        if (a[at] != 0u) {
            return false;
        }
    }
    return true;
}

// Whether n elements of `size` bytes all equal the first; 4-byte elements (most columns) compared
// in chunks like all_zero.
static bool all_same(const uint8_t *a, size_t size, int n)
{
    int k = 1;
    if (size == 4) {
        uint32_t first;
        memcpy(&first, a, 4);
        for (; k + 64 <= n; k += 64) {
            uint32_t diff = 0;
            for (int m = 0; m < 64; ++m) {
                uint32_t v;
                memcpy(&v, a + 4u * (size_t)(k + m), 4);
                diff |= v ^ first;
            }
            if (diff != 0u) {
                return false;
            }
        }
    }
    for (; k < n; ++k) {
        if (memcmp(a, a + size * (size_t)k, size) != 0) {
            return false;
        }
    }
    return true;
}

void sinew__put_column(sinew__writer *w, const void *array, size_t size, int n)
{
    const uint8_t *a = array;
    const uint8_t code = n == 0 || a == NULL || all_zero(a, size * (size_t)n) ? COLUMN_ZERO
                         : all_same(a, size, n)                   ? COLUMN_SAME
                         : iota(array, size, n)                   ? COLUMN_IOTA
                                                                  : COLUMN_RAW;
    sinew__put(w, &code, 1);
    if (code == COLUMN_SAME) {
        sinew__put(w, a, size);
    } else if (code == COLUMN_RAW) {
        sinew__put(w, a, size * (size_t)n);
    }
}

// The column of n elements that all hold `value` (`size` bytes): what sinew__put_column writes
// for an array of n copies of it.
static void put_filled_column(sinew__writer *w, const void *value, size_t size, int n)
{
    const uint8_t code = n == 0 || all_zero((const uint8_t *)value, size) ? COLUMN_ZERO : COLUMN_SAME;
    sinew__put(w, &code, 1);
    if (code == COLUMN_SAME) {
        sinew__put(w, value, size);
    }
}

bool sinew__get_column(sinew__reader *r, void *array, size_t size, int n)
{
    uint8_t code;
    if (!sinew__get(r, &code, 1)) {
        return false;
    }
    if (n == 0 || array == NULL) { // an empty store may have no arrays at all, an absent one is zero
        return code == COLUMN_ZERO || fail(r, SINEW_ERR_SNAPSHOT_INVALID, "snapshot: an empty or absent column holds data");
    }
    uint8_t *a = array;
    switch (code) {
    case COLUMN_ZERO: memset(a, 0, size * (size_t)n); return true;
    case COLUMN_SAME:
        if (!sinew__get(r, a, size)) {
            return false;
        }
        for (int k = 1; k < n; ++k) {
            memcpy(a + size * (size_t)k, a, size);
        }
        return true;
    case COLUMN_RAW: return sinew__get(r, a, size * (size_t)n);
    case COLUMN_IOTA:
        if (size != sizeof(uint32_t)) {
            return fail(r, SINEW_ERR_SNAPSHOT_INVALID, "snapshot: a counting column of elements that are not 4 bytes");
        }
        for (int k = 0; k < n; ++k) {
            const uint32_t v = (uint32_t)k;
            memcpy(a + 4u * (size_t)k, &v, 4);
        }
        return true;
    default: return fail(r, SINEW_ERR_SNAPSHOT_INVALID, "snapshot: unknown column encoding");
    }
}

// ---- stores -----------------------------------------------------------------------------------

void sinew__store_save(sinew__writer *w, const sinew__store *s, void *kind, sinew__fields_fn fields, int count)
{
    sinew__put_u32(w, (uint32_t)count);
    sinew__put_u32(w, s->ids.used);
    sinew__put_u32(w, s->ids.free_head);
    sinew__put_column(w, s->ids.generation, sizeof(uint32_t), (int)s->ids.used);
    sinew__put_column(w, s->ids.dense, sizeof(uint32_t), (int)s->ids.used);
    sinew__put_column(w, s->id_slot, sizeof(uint32_t), count);
    sinew__field f[SINEW__MAX_FIELDS];
    const int n = fields(kind, f);
    for (int k = 0; k < n; ++k) {
        if (f[k].derived) {
            continue;
        }
        if (*f[k].ptr == NULL && f[k].fill != NULL) { // absent: every element holds its fill
            put_filled_column(w, f[k].fill, f[k].size, count);
        } else {
            sinew__put_column(w, *f[k].ptr, f[k].size, count);
        }
    }
}

// Every live slot names an element whose id_slot names it back, every element has a live slot,
// and the free list visits free slots only, each once.
static bool ids_consistent(const sinew__store *s, int count)
{
    const sinew__id_pool *p = &s->ids;
    int live = 0;
    for (uint32_t slot = 0; slot < p->used; ++slot) {
        if (p->generation[slot] == 0u) {
            return false;
        }
        const uint32_t d = p->dense[slot];
        if ((d & SINEW__FREE_BIT) == 0u) {
            if (d >= (uint32_t)count || s->id_slot[d] != slot) {
                return false;
            }
            live += 1;
        }
    }
    if (live != count) {
        return false;
    }
    uint32_t at = p->free_head, visited = 0;
    while (at != 0u) {
        if (at > p->used || (p->dense[at - 1u] & SINEW__FREE_BIT) == 0u || ++visited > p->used) {
            return false;
        }
        const uint32_t next = p->dense[at - 1u] & ~SINEW__FREE_BIT;
        at = next == (UINT32_MAX & ~SINEW__FREE_BIT) ? 0u : next + 1u;
    }
    return visited == p->used - (uint32_t)count;
}

bool sinew__store_load(sinew__reader *r, sinew_world *world, sinew__store *s, void *kind, sinew__fields_fn fields,
                       int *count, int max_count)
{
    const uint32_t n = sinew__get_u32(r), used = sinew__get_u32(r), free_head = sinew__get_u32(r);
    // Every element costs at least a column byte's worth of the buffer only when raw, so sizes are
    // also bounded by what the allocator gives; the bounds here keep the arithmetic in int.
    if (!sinew__expect(r, n <= (uint32_t)max_count && used >= n && used <= (uint32_t)(INT32_MAX / 2),
                       "snapshot: a store's counts are out of range")) {
        return false;
    }
    // Room for exactly what is loaded (creating more later grows geometrically from there).
    sinew__field f[SINEW__MAX_FIELDS + 1];
    int nf = fields(kind, f);
    f[nf++] = (sinew__field){(void **)&s->id_slot, sizeof(uint32_t), false, 1, false, NULL};
    sinew_status st = n > 0u ? sinew__block_resize(world, &s->block, &s->block_bytes, f, nf, 0, (int)n) : SINEW_OK;
    if (st == SINEW_OK) {
        s->capacity = (int)n;
        st = sinew__id_reserve_slots(world, &s->ids, used);
    }
    if (st != SINEW_OK) {
        return fail(r, st, "snapshot: allocating a store failed");
    }
    s->ids.used = used;
    s->ids.free_head = free_head;
    sinew__get_column(r, s->ids.generation, sizeof(uint32_t), (int)used);
    sinew__get_column(r, s->ids.dense, sizeof(uint32_t), (int)used);
    sinew__get_column(r, s->id_slot, sizeof(uint32_t), (int)n);
    nf = fields(kind, f);
    for (int k = 0; k < nf; ++k) {
        if (!f[k].derived) {
            sinew__get_column(r, *f[k].ptr, f[k].size, (int)n);
        }
    }
    *count = (int)n;
    return r->status == SINEW_OK && sinew__expect(r, ids_consistent(s, (int)n), "snapshot: a store's ids are inconsistent");
}
