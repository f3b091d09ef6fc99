// Stable ids {slot + 1, generation} over dense arrays that move elements when one is removed.
#include "core.h"

// The end of the free list, as the next slot of a free slot's dense entry.
#define SINEW__NO_SLOT (UINT32_MAX & ~SINEW__FREE_BIT)

sinew_status sinew__id_reserve(sinew_world *world, sinew__id_pool *pool)
{
    // A free slot exists, or room for one more.
    if (pool->free_head != 0u || pool->used < pool->capacity) {
        return SINEW_OK;
    }
    return sinew__id_reserve_slots(world, pool, pool->used + 1u);
}

sinew_status sinew__id_reserve_slots(sinew_world *world, sinew__id_pool *pool, uint32_t slots)
{
    if (slots <= pool->capacity) {
        return SINEW_OK;
    }
    int cap = slots > (uint32_t)INT32_MAX ? -1 : sinew__grow_capacity((int)pool->capacity, (int)slots);
    if (cap < 0) {
        return SINEW_ERR_CAPACITY;
    }
    sinew__field fields[] = {
        {(void **)&pool->generation, sizeof(uint32_t), false, 1, false, NULL},
        {(void **)&pool->dense, sizeof(uint32_t), false, 1, false, NULL},
    };
    sinew_status s = sinew__block_resize(world, &pool->block, &pool->block_bytes, fields, 2, (int)pool->used, cap);
    if (s == SINEW_OK) {
        pool->capacity = (uint32_t)cap;
    }
    return s;
}

uint32_t sinew__id_take(sinew__id_pool *pool, uint32_t dense)
{
    uint32_t slot;
    if (pool->free_head != 0u) {
        slot = pool->free_head - 1u;
        uint32_t next = pool->dense[slot] & ~SINEW__FREE_BIT;
        pool->free_head = next == SINEW__NO_SLOT ? 0u : next + 1u;
    } else {
        slot = pool->used++;
        pool->generation[slot] = 1u;
    }
    pool->dense[slot] = dense;
    return slot;
}

void sinew__id_release(sinew__id_pool *pool, uint32_t slot)
{
    pool->generation[slot] += 1u;
    if (pool->generation[slot] == 0u) {
        pool->generation[slot] = 1u; // generation 0 is never issued
    }
    uint32_t next = pool->free_head == 0u ? SINEW__NO_SLOT : pool->free_head - 1u;
    pool->dense[slot] = SINEW__FREE_BIT | next;
    pool->free_head = slot + 1u;
}

int sinew__id_lookup(const sinew__id_pool *pool, uint32_t index1, uint32_t generation)
{
    if (index1 == 0u || index1 > pool->used) {
        return -1;
    }
    uint32_t slot = index1 - 1u;
    uint32_t dense = pool->dense[slot];
    if ((dense & SINEW__FREE_BIT) != 0u || pool->generation[slot] != generation) {
        return -1;
    }
    return (int)dense;
}

void sinew__id_pool_free(sinew_world *world, sinew__id_pool *pool)
{
    sinew__free(world, pool->block, pool->block_bytes);
    *pool = (sinew__id_pool){0};
}
