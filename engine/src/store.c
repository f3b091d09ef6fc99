// Dense stores: one kind's arrays in one block, a stable id per element, removal by moving the
// last element into the hole. Every kind (particles, each constraint kind, colliders) is one.
#include <string.h>

#include "core.h"

// The kind's arrays plus the store's own id_slot.
static int all_fields(sinew__store *s, void *kind, sinew__fields_fn fields, sinew__field *out)
{
    int n = fields(kind, out);
    out[n++] = (sinew__field){(void **)&s->id_slot, sizeof(uint32_t), false, 1, false, NULL};
    return n;
}

sinew_status sinew__store_reserve(sinew_world *world, sinew__store *s, void *kind, sinew__fields_fn fields, int count,
                                  int needed)
{
    if (needed > s->capacity) {
        int cap = sinew__grow_capacity(s->capacity, needed);
        if (cap < 0) {
            return SINEW_ERR_CAPACITY;
        }
        sinew__field f[SINEW__MAX_FIELDS];
        const int n = all_fields(s, kind, fields, f);
        sinew_status st = sinew__block_resize(world, &s->block, &s->block_bytes, f, n, count, cap);
        if (st != SINEW_OK) {
            return st;
        }
        s->capacity = cap;
    }
    return needed > count ? sinew__id_reserve(world, &s->ids) : SINEW_OK;
}

sinew_status sinew__store_refit(sinew_world *world, sinew__store *s, void *kind, sinew__fields_fn fields, int count)
{
    if (s->capacity == 0) {
        return SINEW_OK;
    }
    sinew__field f[SINEW__MAX_FIELDS];
    const int n = all_fields(s, kind, fields, f);
    return sinew__block_resize(world, &s->block, &s->block_bytes, f, n, count, s->capacity);
}

void sinew__store_push(sinew__store *s, int *count, uint32_t *index1, uint32_t *generation)
{
    const int k = (*count)++;
    const uint32_t slot = sinew__id_take(&s->ids, (uint32_t)k);
    s->id_slot[k] = slot;
    *index1 = slot + 1u;
    *generation = s->ids.generation[slot];
}

void sinew__store_remove(sinew__store *s, void *kind, sinew__fields_fn fields, int *count, int k)
{
    sinew__id_release(&s->ids, s->id_slot[k]);
    const int last = --*count;
    if (k != last) {
        sinew__field f[SINEW__MAX_FIELDS];
        const int n = all_fields(s, kind, fields, f);
        for (int m = 0; m < n; ++m) {
            if (f[m].per > 1 || f[m].absent) { // per block: refreshed by the kind
                continue;
            }
            unsigned char *base = *f[m].ptr;
            memcpy(base + f[m].size * (size_t)k, base + f[m].size * (size_t)last, f[m].size);
        }
        s->ids.dense[s->id_slot[k]] = (uint32_t)k;
    }
}

int sinew__store_lookup(const sinew__store *s, uint32_t index1, uint32_t generation)
{
    return sinew__id_lookup(&s->ids, index1, generation);
}

void sinew__store_id(const sinew__store *s, int k, uint32_t *index1, uint32_t *generation)
{
    const uint32_t slot = s->id_slot[k];
    *index1 = slot + 1u;
    *generation = s->ids.generation[slot];
}

void sinew__store_permute(sinew__store *s, void *kind, sinew__fields_fn fields, int count, const uint32_t *from,
                          void *temp)
{
    sinew__field f[SINEW__MAX_FIELDS];
    const int n = all_fields(s, kind, fields, f);
    unsigned char *t = temp;
    for (int m = 0; m < n; ++m) {
        if (f[m].derived || f[m].absent) {
            continue;
        }
        unsigned char *base = *f[m].ptr;
        const size_t size = f[m].size;
        for (int k = 0; k < count; ++k) {
            memcpy(t + size * (size_t)k, base + size * (size_t)from[k], size);
        }
        memcpy(base, t, size * (size_t)count);
    }
    for (int k = 0; k < count; ++k) {
        s->ids.dense[s->id_slot[k]] = (uint32_t)k;
    }
}

void sinew__store_free(sinew_world *world, sinew__store *s)
{
    sinew__free(world, s->block, s->block_bytes);
    sinew__id_pool_free(world, &s->ids);
    memset(s, 0, sizeof *s);
}
