// Particle-particle contacts: found in the grid, solved as min-only links by the link kernels,
// then position-based friction (contact_response.c). Found once per step when the particles' motion margin is small
// (the grid's margin then covers the sub-steps ahead), else again after the sub-steps it covers
// (every sub-step when it covers none). A pair found within the margin but not yet within the
// contact reach waits in a pending list until a sub-step brings it within the reach
// (sinew__contacts_promote).
//
// Gauss-Seidel order: each contact takes the lowest colour that no earlier contact of its two
// (movable) particles has, and the contacts of each tile (a run of them in grid order) are
// sorted by colour, so a block of 8 contacts of one colour shares no particle that can move and
// goes through the block path (links.c). Immovable particles are written by no one, so they take
// no colour.
#include <string.h>

#include "world_internal.h"
#include "simd.h"

#define SINEW__OVERFLOW_COLOR 32

static int lowest_clear_bit(uint32_t used) { return used == UINT32_MAX ? SINEW__OVERFLOW_COLOR : sinew__ctz(~used); }

// The response block's arrays (see sinew__contacts).
static int response_fields(sinew__contacts *k, sinew__field *f)
{
    f[0] = (sinew__field){(void **)&k->share_i, sizeof(float), false, 1, false, NULL};
    f[1] = (sinew__field){(void **)&k->share_j, sizeof(float), false, 1, false, NULL};
    f[2] = (sinew__field){(void **)&k->mu_s, sizeof(float), false, 1, false, NULL};
    f[3] = (sinew__field){(void **)&k->mu_k, sizeof(float), false, 1, false, NULL};
    return 4;
}

// Resizes the response block to `capacity` (keeping the first `count` of each array).
static sinew_status response_resize(sinew_world *world, int count, int capacity)
{
    sinew__contacts *k = &world->contacts;
    sinew__field f[4];
    const int n = response_fields(k, f);
    return sinew__block_resize(world, &k->response_block, &k->response_bytes, f, n, count, capacity);
}

static sinew_status contacts_resize(sinew_world *world, int new_capacity)
{
    sinew__contacts *k = &world->contacts;
    sinew__field fields[] = {
        {(void **)&k->l.c, sizeof(sinew__distance), false, 1, false, NULL},
        {(void **)&k->l.block_free, sizeof(uint8_t), false, SINEW__LANES, false, NULL},
        {(void **)&k->found, sizeof(sinew__distance), false, 1, k->one_array, NULL},
        {(void **)&k->l.span, sizeof(uint32_t), false, SINEW__LANES, false, NULL},
    };
    // The response block follows (only while in use): it must hold as many as the solved arrays.
    if (k->response_block != NULL && response_resize(world, k->l.count, new_capacity) != SINEW_OK) {
        return SINEW_ERR_OUT_OF_MEMORY;
    }
    sinew_status s = sinew__block_resize(world, &k->block, &k->block_bytes, fields,
                                         (int)(sizeof fields / sizeof fields[0]), k->l.count, new_capacity);
    if (s == SINEW_OK) {
        k->capacity = new_capacity;
        if (k->one_array) { // (the search writes into l.c)
            k->found = k->l.c;
        }
    }
    return s;
}

// Lays the arrays out for a search that needs two arrays or not (see sinew__contacts), at its
// start (they hold nothing to keep): the first search chooses; a later one that needs two when
// there is one lays them out again, once, and they stay two, so that switching modes or workers
// back and forth allocates nothing once warm. False when memory ran out (nothing changed).
static bool contacts_layout(sinew_world *world, bool two)
{
    sinew__contacts *k = &world->contacts;
    if (k->block == NULL) {
        k->one_array = !two;
        return true;
    }
    if (!two || !k->one_array) {
        return true;
    }
    k->one_array = false;
    k->l.count = 0;
    if (contacts_resize(world, k->capacity) != SINEW_OK) {
        k->one_array = true;
        return false;
    }
    return true;
}

static void contacts_free(sinew_world *world)
{
    sinew__contacts_split_free(world);
    sinew__free(world, world->contacts.block, world->contacts.block_bytes);
    sinew__free(world, world->contacts.response_block, world->contacts.response_bytes);
    sinew__free(world, world->contacts.colour_rows, world->contacts.colour_rows_bytes);
    memset(&world->contacts, 0, sizeof world->contacts);
}

static bool linked(const sinew_world *world, int a, int b)
{
    const sinew__particles *p = &world->particles;
    const uint32_t *adj = world->distances.adj + p->link_start[a];
    for (uint32_t k = 0; k < p->link_n[a]; ++k) {
        if (adj[k] == (uint32_t)b) {
            return true;
        }
    }
    return false;
}

// Resizes the arrays to `capacity` during a search, keeping the first `keep` entries of `found`
// only: l.c, its block flags and spans are rewritten after the search (or, in find_bands'
// closing up, no longer read once the arrays grew), and copying them would double the copy. On
// failure (false) nothing changes.
static bool resize_keeping_found(sinew_world *world, int keep, int capacity)
{
    sinew__contacts *k = &world->contacts;
    sinew__distance *c = k->l.c;
    uint8_t *block_free = k->l.block_free;
    uint32_t *span = k->l.span;
    k->l.c = k->one_array ? c : NULL; // (a NULL array is not copied: it comes out zero; one array: found is l.c)
    k->l.block_free = NULL;
    k->l.span = NULL;
    k->l.count = keep;
    const bool grown = contacts_resize(world, capacity) == SINEW_OK;
    if (!grown) {
        k->l.c = c;
        k->l.block_free = block_free;
        k->l.span = span;
    }
    return grown;
}

// The capacity the arrays reach from `capacity` by steps of an eighth until it holds `needed`
// (-1 past the limit): where they grow to in one step when a search has counted what it needs, on
// one thread as with workers.
static int eighths(int capacity, int needed)
{
    if (needed > INT32_MAX / 2) {
        return -1;
    }
    int64_t grown = capacity;
    while (grown < needed) {
        grown += grown / 8 + 16;
    }
    return grown <= INT32_MAX / 2 ? (int)grown : INT32_MAX / 2;
}

// Makes room for `more` contacts after the first `count` (of `found`, during a search). False when memory ran out. The arrays
// grow by an eighth (or to what is needed, when that is more), not by half as the stores do: they
// hold two 16-byte records a contact, their count follows how the particles lie, which settles,
// and they grow only while a search writes them (which copies the contacts found so far). Growing by
// half left a settled 10,000-ball pile 20% more room than it ever needed (35,065 for at most 29,857
// contacts found at once), 11 bytes a particle.
static bool reserve(sinew_world *world, int count, int more)
{
    sinew__contacts *k = &world->contacts;
    if (count + more <= k->capacity) {
        return true;
    }
    const int needed = count + more, grown = k->capacity + k->capacity / 8 + 16;
    const int cap = needed > INT32_MAX / 2 ? -1 : (grown > needed ? grown : needed);
    return cap >= 0 && resize_keeping_found(world, count, cap);
}

// Tests the particle at place qa of the cell arrays against places [from, to) and writes the
// contacts from found[m] on as {a, b, ra + rb, squared distance} (split_pending sets hi to
// infinity); returns the new m. A dense pile makes the test a coin flip, so each pair is written
// unconditionally and the count moves on by the outcome (no branch to mispredict). Room for
// to - from contacts must have been reserved. With `one` (the grid's shape.one_shape), every particle
// has the grid's shape: one weight, radius, group and mask, which the grid did not copy: the same
// operations on them, so the same contacts.
SINEW_FORCE_INLINE int pair_range_of(const sinew_world *world, sinew__distance *restrict found, int m, uint32_t qa,
                                     uint32_t from, uint32_t to, const bool one)
{
    const sinew__particles *p = &world->particles;
    const sinew__grid *g = &world->grid;
    const float *restrict cx = p->cell_x, *restrict cy = p->cell_y, *restrict cr = p->cell_r, *restrict cw = p->cell_w;
    const uint32_t *restrict cgroup = p->cell_group, *restrict cmask = p->cell_mask, *restrict sorted = p->sorted;
    const int a = (int)sorted[qa];
    const float ax = cx[qa], ay = cy[qa], ar = one ? g->shape.radius : cr[qa];
    const uint32_t group_a = one ? g->shape.group : cgroup[qa], mask_a = one ? g->shape.mask : cmask[qa];
    const bool skip_linked = world->skip_linked_pairs && world->distances.l.count > 0 && p->link_n[a] != 0u;
    const bool movable_a = (one ? g->shape.w : cw[qa]) > 0.0f;
    const float margin2 = 2.0f * g->margin;
    for (uint32_t q = from; q < to; ++q) {
        const int b = (int)sorted[q];
        const float rb = one ? g->shape.radius : cr[q], wb = one ? g->shape.w : cw[q];
        const uint32_t group_b = one ? g->shape.group : cgroup[q], mask_b = one ? g->shape.mask : cmask[q];
        const float dx = cx[q] - ax, dy = cy[q] - ay, sum = ar + rb, d2 = dx * dx + dy * dy;
        const float reach = sum * SINEW__CONTACT_REACH + margin2;
        bool hit = (d2 < reach * reach) & (movable_a | (wb > 0.0f)) & ((group_a & mask_b) != 0u) &
                   ((group_b & mask_a) != 0u);
        if (skip_linked && hit) {
            hit = !linked(world, a, b);
        }
        found[m] = (sinew__distance){a, b, sum, d2};
        m += hit;
    }
    return m;
}

static int pair_range(const sinew_world *world, sinew__distance *restrict found, int m, uint32_t qa, uint32_t from,
                      uint32_t to)
{
    return world->grid.shape.one_shape ? pair_range_of(world, found, m, qa, from, to, true)
                                 : pair_range_of(world, found, m, qa, from, to, false);
}

#if SINEW__X86

// pair_range in AVX2 for a particle with no skipped links: eight candidates tested at a time with
// the same arithmetic (so the same hits), the hits packed to the front (BMI2 turns the hit mask
// into the lane order) and all eight written, the count moving on by the hits: the same contacts
// in the same order, and no branch on the outcome. Masked loads read no place at or past `to`.
// Room for to - from + SINEW__LANES contacts must have been reserved. With `one`, as in
// pair_range_of: only the positions and indices are loaded.
SINEW_FORCE_INLINE SINEW__AVX2 int pair_range_avx2_of(const sinew_world *world, sinew__distance *restrict found, int m,
                                                     uint32_t qa, uint32_t from, uint32_t to, const bool one)
{
    const sinew__particles *p = &world->particles;
    const sinew__grid *g = &world->grid;
    const float *restrict cx = p->cell_x, *restrict cy = p->cell_y, *restrict cr = p->cell_r, *restrict cw = p->cell_w;
    const int *restrict cgroup = (const int *)p->cell_group, *restrict cmask = (const int *)p->cell_mask;
    const int *restrict sorted = (const int *)p->sorted;
    const __m256 ax = _mm256_set1_ps(cx[qa]), ay = _mm256_set1_ps(cy[qa]);
    const __m256 ar = _mm256_set1_ps(one ? g->shape.radius : cr[qa]);
    const __m256 reach_factor = _mm256_set1_ps(SINEW__CONTACT_REACH), margin2 = _mm256_set1_ps(2.0f * g->margin);
    const __m256 zero = _mm256_setzero_ps(), all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    const bool moves_a = (one ? g->shape.w : cw[qa]) > 0.0f;
    const __m256 movable_a = moves_a ? all : zero;
    const __m256i group_a = _mm256_set1_epi32(one ? (int)g->shape.group : cgroup[qa]);
    const __m256i mask_a = _mm256_set1_epi32(one ? (int)g->shape.mask : cmask[qa]);
    const __m256i a = _mm256_set1_epi32(sorted[qa]);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), none = _mm256_setzero_si256();
    // With one shape, what the loop below tests per candidate is the same for all: the sum of the
    // radii, whether either end moves and whether the filters let them meet.
    const __m256 one_sum = _mm256_add_ps(ar, _mm256_set1_ps(g->shape.radius));
    const __m256 one_allowed = g->shape.w > 0.0f && (g->shape.group & g->shape.mask) != 0u ? all : zero;
    for (uint32_t base = from; base < to; base += SINEW__LANES) {
        const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(to - base)), lane);
        const __m256 dx = _mm256_sub_ps(_mm256_maskload_ps(cx + base, valid), ax);
        const __m256 dy = _mm256_sub_ps(_mm256_maskload_ps(cy + base, valid), ay);
        const __m256 sum = one ? one_sum : _mm256_add_ps(ar, _mm256_maskload_ps(cr + base, valid));
        const __m256 reach = _mm256_add_ps(_mm256_mul_ps(sum, reach_factor), margin2);
        const __m256 d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
        const __m256 near = _mm256_cmp_ps(d2, _mm256_mul_ps(reach, reach), _CMP_LT_OQ);
        __m256 ok;
        if (one) {
            ok = _mm256_and_ps(_mm256_and_ps(near, one_allowed), _mm256_castsi256_ps(valid));
        } else {
            const __m256 movable =
                _mm256_or_ps(movable_a, _mm256_cmp_ps(_mm256_maskload_ps(cw + base, valid), zero, _CMP_GT_OQ));
            const __m256i blocked = _mm256_or_si256(
                _mm256_cmpeq_epi32(_mm256_and_si256(group_a, _mm256_maskload_epi32(cmask + base, valid)), none),
                _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_maskload_epi32(cgroup + base, valid), mask_a), none));
            ok = _mm256_andnot_ps(_mm256_castsi256_ps(blocked),
                                  _mm256_and_ps(_mm256_and_ps(near, movable), _mm256_castsi256_ps(valid)));
        }
        const unsigned bits = (unsigned)_mm256_movemask_ps(ok);
        // Lane numbers of the hits, in order, one byte each: the hit bits spread to bytes select
        // bytes of 0x0706050403020100.
        const uint64_t spread = _pdep_u64(bits, 0x0101010101010101ull) * 0xffu;
        const __m256i pick = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)_pext_u64(0x0706050403020100ull, spread)));
        const __m256i b = _mm256_permutevar8x32_epi32(_mm256_maskload_epi32(sorted + base, valid), pick);
        const __m256i lo = _mm256_permutevar8x32_epi32(_mm256_castps_si256(sum), pick);
        const __m256i hi = _mm256_permutevar8x32_epi32(_mm256_castps_si256(d2), pick);
        // Eight {a, b, lo, hi} in place order: interleave, then put the 128-bit halves in order.
        const __m256i ab0 = _mm256_unpacklo_epi32(a, b), ab1 = _mm256_unpackhi_epi32(a, b);
        const __m256i lh0 = _mm256_unpacklo_epi32(lo, hi), lh1 = _mm256_unpackhi_epi32(lo, hi);
        const __m256i e04 = _mm256_unpacklo_epi64(ab0, lh0), e15 = _mm256_unpackhi_epi64(ab0, lh0);
        const __m256i e26 = _mm256_unpacklo_epi64(ab1, lh1), e37 = _mm256_unpackhi_epi64(ab1, lh1);
        __m256i *restrict out = (__m256i *)&found[m];
        _mm256_storeu_si256(out, _mm256_permute2x128_si256(e04, e15, 0x20));
        _mm256_storeu_si256(out + 1, _mm256_permute2x128_si256(e26, e37, 0x20));
        _mm256_storeu_si256(out + 2, _mm256_permute2x128_si256(e04, e15, 0x31));
        _mm256_storeu_si256(out + 3, _mm256_permute2x128_si256(e26, e37, 0x31));
        m += __builtin_popcount(bits);
    }
    return m;
}

SINEW__AVX2 static int pair_range_avx2(const sinew_world *world, sinew__distance *restrict found, int m, uint32_t qa,
                                       uint32_t from, uint32_t to)
{
    return world->grid.shape.one_shape ? pair_range_avx2_of(world, found, m, qa, from, to, true)
                                 : pair_range_avx2_of(world, found, m, qa, from, to, false);
}
#endif

// The colour of the contact at place m of a tile whose colours start at offset[] (sorted).
static int color_at(const int *offset, int m)
{
    int c = 0;
    while (offset[c + 1] <= m) {
        c += 1;
    }
    return c;
}

// Whether the block of contacts [first, end) (of a tile with colours at offset[]) may join a span
// of colour d's blocks: every movable particle of its contacts of other colours has no contact of
// colour d, or has it in the block.
static bool block_joins(const sinew__distance *c, const uint32_t *colors, const float *w, const int *offset,
                        int first, int end, int d)
{
    const uint32_t bit = 1u << d;
    for (int m = first; m < end; ++m) {
        if (m >= offset[d] && m < offset[d + 1]) {
            continue;
        }
        const int32_t ends[2] = {c[m].i, c[m].j};
        for (int e = 0; e < 2; ++e) {
            const int p = ends[e];
            if (!(w[p] > 0.0f) || (colors[p] & bit) == 0u) {
                continue;
            }
            bool inside = false;
            for (int q = first > offset[d] ? first : offset[d]; q < end && q < offset[d + 1]; ++q) {
                inside = inside || c[q].i == p || c[q].j == p;
            }
            if (!inside) {
                return false;
            }
        }
    }
    return true;
}

// Appends the spans of the tile [t0, t1) (colours at offset[], none past the last), from its
// colours: see color_and_sort.
static void tile_spans(sinew_world *world, int t0, int t1, const int *offset)
{
    sinew__links *l = &world->contacts.l;
    const sinew__distance *c = l->c;
    const uint32_t *colors = world->particles.colors;
    const float *w = world->particles.w;
    int color = -1;      // the colour of the current span's one-colour blocks (-1: it takes no more blocks)
    bool mixed = false;  // the current span holds a mixed block
    for (int first = t0; first < t1;) {
        const int end = first + SINEW__LANES < t1 ? first + SINEW__LANES : t1;
        const int lo = color_at(offset, first), hi = color_at(offset, end - 1);
        const uint32_t b = (uint32_t)(first / SINEW__LANES);
        if (lo == hi) {
            if (first == t0 || color != lo) {
                l->span[l->span_count++] = b;
                color = lo;
                mixed = false;
            }
            // On to the block where the colour ends: those before it hold only this colour.
            const int last = offset[lo + 1] - offset[lo + 1] % SINEW__LANES;
            first = last > first ? last : first + SINEW__LANES;
            continue;
        }
        if (first != t0 && color == lo && !mixed && block_joins(c, colors, w, offset, first, end, lo)) {
            color = -1; // (the next colour starts a span)
        } else {
            l->span[l->span_count++] = b;
            color = block_joins(c, colors, w, offset, first, end, hi) ? hi : -1;
            mixed = true;
        }
        first += SINEW__LANES;
    }
}

// The ends of contacts are colliding particles: when the grid found them all of one movable shape,
// no weight need be read.
static bool all_ends_movable(const sinew_world *world)
{
    return world->grid.shape.one_shape && world->grid.shape.w > 0.0f;
}

// The mark of the contacts' block b (of l.count contacts): SINEW__BLOCK_FIXED when one of its
// contacts has an immovable end, else 0 (never when every end is of one movable shape).
static uint8_t fixed_mark(const sinew_world *world, int b)
{
    const sinew__links *l = &world->contacts.l;
    const int first = b * SINEW__LANES, count = l->count - first < SINEW__LANES ? l->count - first : SINEW__LANES;
    const bool fixed = !all_ends_movable(world) && sinew__links_any_fixed(&l->c[first], count, world->particles.w);
    return fixed ? SINEW__BLOCK_FIXED : 0u;
}

// The greedy step of the colour sort: the lowest colour that no earlier contact of particles i and
// j has (immovable ends take none), which the contact then takes.
SINEW_FORCE_INLINE int take_colour(uint32_t *restrict colors, const float *restrict w, bool all_movable, int i, int j)
{
    const bool movable_i = all_movable || w[i] > 0.0f, movable_j = all_movable || w[j] > 0.0f;
    const int c = lowest_clear_bit((movable_i ? colors[i] : 0u) | (movable_j ? colors[j] : 0u));
    const uint32_t bit = c < SINEW__OVERFLOW_COLOR ? 1u << c : 0u;
    colors[i] |= movable_i ? bit : 0u;
    colors[j] |= movable_j ? bit : 0u;
    return c;
}

// Before the tiles of a colour sort: no block marked independent, no span.
static void begin_colour_sort(sinew__contacts *k)
{
    const int blocks = (k->l.count + SINEW__LANES - 1) / SINEW__LANES;
    if (blocks > 0) {
        memset(k->l.block_free, 0, (size_t)blocks);
    }
    k->l.span_count = 0;
}

// A tile [t0, t1) whose contacts lie in l.c by colour (colour c at [offset[c], offset[c + 1])):
// marks its blocks that lie inside one colour (independent; paired when the next one is in it
// too) and, with `spans`, appends its spans (tile_spans). Returns whether the spans may still come
// from the colours: not past a tile with contacts past the last colour (a crowd: they are scanned).
static bool finish_tile(sinew_world *world, int t0, int t1, const int *offset, bool spans)
{
    sinew__contacts *k = &world->contacts;
    uint8_t *restrict block_free = k->l.block_free;
    if (!all_ends_movable(world)) { // (the blocks with an immovable end: see SINEW__BLOCK_FIXED)
        for (int b = t0 / SINEW__LANES; b * SINEW__LANES < t1; ++b) {
            block_free[b] = fixed_mark(world, b);
        }
    }
    for (int c = 0; c < SINEW__OVERFLOW_COLOR; ++c) {
        for (int b = (offset[c] + SINEW__LANES - 1) / SINEW__LANES; (b + 1) * SINEW__LANES <= offset[c + 1]; ++b) {
            // (paired when the next block is in the colour, and not fixed)
            const bool next_too = (b + 2) * SINEW__LANES <= offset[c + 1] && block_free[b + 1] == 0u;
            block_free[b] |= next_too ? SINEW__BLOCK_FREE_PAIRED : SINEW__BLOCK_FREE;
        }
    }
    spans = spans && offset[SINEW__OVERFLOW_COLOR + 1] == offset[SINEW__OVERFLOW_COLOR];
    if (spans) {
        tile_spans(world, t0, t1, offset);
    }
    return spans;
}

// After the tiles: the spans closed, or left to refresh_spans' scan.
static void end_colour_sort(sinew__contacts *k, bool spans)
{
    if (spans) {
        sinew__links_end_spans(&k->l, k->l.span_stamp + 1u); // (a later promotion marks its span anew)
        k->colour_spans += 1;
    } else {
        k->l.spans_valid = false; // (refresh_spans scans for them)
    }
}

// Gauss-Seidel's order, tile by tile: the found contacts are cut, in the order they were found
// (the grid's, so a tile is a region of space), into tiles of SINEW__TILE_CONTACTS; each contact,
// in order, takes the lowest colour that no earlier contact of its two particles has (immovable
// particles take none), and each tile's contacts then go by colour into the solved arrays (their
// hi infinite again). Tiles are solved one after the other, so a particle's contacts in two tiles
// never meet in a block. Marks the blocks that lie inside one colour of one tile (all of them
// independent), and those followed by another of the same colour as paired (see
// project_two_avx2 in links.c). A tile's colours are counted as they are given.
//
// Why SINEW__TILE_CONTACTS is 65,536: a tile of a pile touches about 22,000 particles, whose
// motion records (700 KB) and positions stay in the core's second-level cache while its colours
// are solved. Measured at 100,000 balls (4 x 1; the CPU was not recorded):
// tiles of 8,192, 32,768 and 65,536 contacts took 17.0-17.2, 16.5-16.6 and 16.0-16.6 ms per step;
// one tile for all, 18.0. Small tiles cost settling: at 10,000 balls, 8 x 4, tiles of 8,192
// raised the median max overlap over twelve lattices from 0.9% to 2.3% of the radius. Such a pile
// (29,000 contacts) is one tile, in the order of a colour sort of all.
//
// With `spans` (the sweeps are spread over the workers), the spans come from the colours too, in
// place of a scan that marks every particle of every contact (40 us a search at 10,000 balls):
// a tile's blocks that hold one colour share no movable particle, and a block that holds the end
// of one colour and the start of the next (mixed) joins the span of one of its colours when its
// other contacts meet no contact of that colour outside it (each particle has at most one contact
// of each colour, and its colour bits say which), when that span holds no other mixed block (two
// tried to, 3 times in 600 steps of the 10,000-ball pile and its first 120 of 100,000 balls); else
// it starts a span of its own. A tile starts a span. With contacts past the last colour (a crowd),
// the spans are found by the scan.
static void color_and_sort(sinew_world *world, bool spans)
{
    sinew__contacts *k = &world->contacts;
    const int count = k->l.count;
    sinew__particles *p = &world->particles;
    sinew__distance *restrict found = k->found;
    uint32_t *restrict colors = p->colors;
    const float *restrict w = p->w;
    const bool all_movable = all_ends_movable(world);
    const int pre = k->precoloured; // (their colours are in colors[] already)
    if (pre == 0) {
        memset(colors, 0, sizeof(uint32_t) * (size_t)p->count);
    } else {
        k->resumed_colourings += 1;
    }
    begin_colour_sort(k);
    for (int t0 = 0; t0 < count; t0 += SINEW__TILE_CONTACTS) {
        const int t1 = count - t0 < SINEW__TILE_CONTACTS ? count : t0 + SINEW__TILE_CONTACTS;
        // Counted in four interleaved tallies, so that contacts in a row of one colour do not wait
        // for each other's increments.
        int tally[4][SINEW__OVERFLOW_COLOR + 2] = {{0}};
        for (int m = t0; m < t1; ++m) {
            const int c = m < pre ? (int)-found[m].hi - 1 : take_colour(colors, w, all_movable, found[m].i, found[m].j);
            found[m].hi = (float)c;
            tally[m & 3][c + 1] += 1;
        }
        int offset[SINEW__OVERFLOW_COLOR + 2];
        for (int c = 0; c < SINEW__OVERFLOW_COLOR + 2; ++c) {
            offset[c] = tally[0][c] + tally[1][c] + tally[2][c] + tally[3][c];
        }
        offset[0] = t0;
        for (int c = 0; c <= SINEW__OVERFLOW_COLOR; ++c) {
            offset[c + 1] += offset[c];
        }
        int cursor[SINEW__OVERFLOW_COLOR + 1];
        memcpy(cursor, offset, sizeof cursor);
        for (int m = t0; m < t1; ++m) {
            sinew__distance c = found[m];
            const int to = cursor[(int)c.hi]++;
            c.hi = INFINITY;
            k->l.c[to] = c;
        }
        spans = finish_tile(world, t0, t1, offset, spans);
    }
    end_colour_sort(k, spans);
}

// A place in the scan of the cells: cell c (row-major) from place q of `sorted` on.
typedef struct scan_place {
    int c;
    uint32_t q;
} scan_place;

// Contacts are counted, or scanned where the arrays have no room for them, TAIL_CHUNK at a time
// into a buffer on the stack (8 KB): see scan_chunks.
#define TAIL_CHUNK 512

static bool scan_chunks(sinew_world *world, scan_place from, int c1, sinew__distance *to, int *kept_at,
                        int *waiting_at, int64_t *found, int64_t *kept);

// How a scan that makes room as it goes (find_cells) grows the arrays: it has not counted the rest
// of its contacts yet; it has, and the arrays hold them all; or it grows them by an eighth as it
// goes (a crowd, which no chunk holds and scan_chunks cannot count, or no memory for the room the
// count asked for).
typedef enum scan_room { ROOM_UNCOUNTED, ROOM_COUNTED, ROOM_AS_IT_GOES } scan_room;

// Room for a particle at place `at` with up to `more` pairs after the m contacts found, where the
// arrays (not yet counted to hold the rest) may not hold them. Counted, the rest of the scan fits:
// its contacts are found by the same tests, and a particle's writes go at most SINEW__LANES past
// its last contact. False when memory ran out.
static bool make_scan_room(sinew_world *world, scan_place at, int c1, int m, int more, scan_room *room)
{
    int grown = -1;
    int64_t rest = 0;
    if (*room == ROOM_UNCOUNTED && scan_chunks(world, at, c1, NULL, NULL, NULL, &rest, NULL) && rest <= INT32_MAX / 4) {
        grown = eighths(world->contacts.capacity, m + (int)rest + SINEW__LANES);
    }
    const int had = world->contacts.capacity;
    const bool made = grown >= 0 ? grown <= had || resize_keeping_found(world, m, grown)
                                 : reserve(world, m, more + SINEW__LANES);
    world->contacts.scan_growths += world->contacts.capacity != had;
    *room = made && grown >= 0 ? ROOM_COUNTED : ROOM_AS_IT_GOES;
    return made;
}

// The pairs whose first particle lies at or after place `from` and before cell c1, written from
// out[m] on in the order of the scan (out NULL: the contacts' found array); returns the new m.
// With limit < 0 (and out NULL) it makes room as it goes (a particle whose room cannot be had is
// skipped, its pairs counted as dropped): when they are full, it counts what the rest of the scan
// finds (scan_chunks) and grows them once, to the room that growing by an eighth at a time would
// reach, as the search over the workers does (a crowd, which scan_chunks cannot count, grows by
// eighths as it goes). Each growth copies the contacts found so far into new memory: growing by
// eighths as it went, a falling pile of 100,000 balls grew them 64 times over its first 120
// steps, 32 times in one search, and that took 27% of its time on one worker (AMD EPYC, Zen 5,
// where memory never touched before costs about 11 us a page). Otherwise it writes below `limit`
// only (the array holds that much) and, when a particle's pairs might not fit, stops before it
// and puts its place in *stop (else stop->c = -1). Only the growing scan writes to the world.
static int find_cells(sinew_world *world, sinew__distance *out, scan_place from, int c1, int m, int limit,
                      scan_place *stop)
{
    scan_room room = ROOM_UNCOUNTED;
    const sinew__grid *g = &world->grid;
    const uint32_t *restrict start = g->cell_start;
#if SINEW__X86
    const sinew__particles *p = &world->particles;
    // Whether any particle may have linked neighbours to skip (none while there are no distances).
    const bool skip_linked = world->skip_linked_pairs && world->distances.l.count > 0;
#endif
    // Each cell meets itself and four of its neighbours (right, and the three above), so every
    // pair of adjacent cells is visited once.
    for (int c = from.c; c < c1; ++c) {
        const int cy = c / g->nx, cx = c - cy * g->nx;
        const bool right = cx + 1 < g->nx, left = cx > 0, up = cy + 1 < g->ny;
        const int cu = c + g->nx;
        for (uint32_t q = c == from.c ? from.q : start[c]; q < start[c + 1]; ++q) {
            // The rest of this cell and the right cell are contiguous in `sorted`, and so are the
            // three cells above (up-left, up, up-right).
            const uint32_t here_end = right ? start[c + 2] : start[c + 1];
            const uint32_t u0 = up ? start[left ? cu - 1 : cu] : 0u;
            const uint32_t u1 = up ? start[right ? cu + 2 : cu + 1] : 0u;
            const int more = (int)(here_end - q - 1u + (u1 - u0));
            if (limit >= 0) {
                if (more + SINEW__LANES > limit - m) {
                    *stop = (scan_place){c, q};
                    return m;
                }
            } else if (room != ROOM_COUNTED && m + more + SINEW__LANES > world->contacts.capacity &&
                       !make_scan_room(world, (scan_place){c, q}, c1, m, more, &room)) {
                world->dropped_contacts += more; // at most this many
                continue;
            }
            sinew__distance *found = out != NULL ? out : world->contacts.found; // (reserve may move it)
#if SINEW__X86
            if (world->avx2 && !(skip_linked && p->link_n[p->sorted[q]] != 0u)) {
                m = pair_range_avx2(world, found, m, q, q + 1u, here_end);
                m = pair_range_avx2(world, found, m, q, u0, u1);
                continue;
            }
#endif
            m = pair_range(world, found, m, q, q + 1u, here_end);
            m = pair_range(world, found, m, q, u0, u1);
        }
    }
    stop->c = -1;
    return m;
}

// How many pairs find_cells may test for the particles of cell c: for each, the rest of its
// cell, the cell on the right and the three above.
static uint64_t cell_bound(const sinew__grid *g, int c)
{
    const uint32_t *start = g->cell_start;
    const int cy = c / g->nx, cx = c - cy * g->nx, cu = c + g->nx;
    const bool right = cx + 1 < g->nx, left = cx > 0, up = cy + 1 < g->ny;
    const uint64_t k = start[c + 1] - start[c];
    const uint64_t here = (right ? start[c + 2] : start[c + 1]) - start[c];
    const uint64_t above = up ? start[right ? cu + 2 : cu + 1] - start[left ? cu - 1 : cu] : 0u;
    return k * here - k * (k + 1u) / 2u + k * above;
}

// cell_bound summed over cells [c0, c1) of one row that all have a left and a right neighbour and
// a row above: no division nor select per cell, and the loop vectorises (half the cells of a pile
// are empty, so the bound of a band costs about as much as searching it would without this).
static uint64_t inner_bound(const uint32_t *restrict start, int c0, int c1, int nx)
{
    uint64_t sum = 0u;
    for (int c = c0; c < c1; ++c) {
        const uint32_t k = start[c + 1] - start[c], here = start[c + 2] - start[c];
        const uint32_t above = start[c + nx + 2] - start[c + nx - 1];
        sum += (uint64_t)k * (here + above) - (uint64_t)k * (k + 1u) / 2u; // (counts < 2^31: no wrap)
    }
    return sum;
}

// cell_bound summed over cells [c0, c1), row by row.
static uint64_t cells_bound(const sinew__grid *g, int c0, int c1)
{
    uint64_t sum = 0u;
    for (int c = c0; c < c1;) {
        const int row = c / g->nx, row_end = (row + 1) * g->nx, stop = c1 < row_end ? c1 : row_end;
        const int inner0 = c == row * g->nx ? c + 1 : c, inner1 = stop == row_end ? stop - 1 : stop;
        if (row + 1 < g->ny && inner0 < inner1) {
            for (; c < inner0; ++c) {
                sum += cell_bound(g, c);
            }
            sum += inner_bound(g->cell_start, inner0, inner1, g->nx);
            c = inner1;
        }
        for (; c < stop; ++c) {
            sum += cell_bound(g, c);
        }
    }
    return sum;
}

// Whether a pair at squared distance d2 whose radii sum to `sum` is within the contact reach:
// the test of a search with no margin, shared by the split and the promotion.
SINEW_FORCE_INLINE bool within_reach(float d2, float sum)
{
    const float reach = sum * SINEW__CONTACT_REACH;
    return d2 < reach * reach;
}

// What a split leaves in a found contact's hi: infinity, or the colour that search_and_colour gave
// a kept one (-(c + 1): see band_search), which the colour sort then takes as it is.
SINEW_FORCE_INLINE float split_hi(float hi)
{
    return hi < 0.0f ? hi : INFINITY;
}

// How many of found contacts [m0, m1) are within reach (hi holding the squared distance).
static int count_within(const sinew__distance *restrict found, int m0, int m1)
{
    int kept = 0;
    for (int m = m0; m < m1; ++m) {
        kept += within_reach(found[m].hi, found[m].lo);
    }
    return kept;
}

// Found contacts [m0, m1) to `to`, in order: those within reach from place `kept` on, the others
// from place `waiting` on, each with hi as split_hi leaves it (as split_pending writes them). One write
// a contact: split_pending's second, unconditional one would land past this run's places, in
// another's, which another worker may be writing.
static void split_run(const sinew__distance *restrict found, int m0, int m1, sinew__distance *restrict to, int kept,
                      int waiting)
{
    for (int m = m0; m < m1; ++m) {
        sinew__distance c = found[m];
        const bool near = within_reach(c.hi, c.lo);
        c.hi = split_hi(c.hi);
        to[near ? kept : waiting] = c;
        kept += near;
        waiting += !near;
    }
}

// The contacts the scan from place `from` to cell c1 finds, a chunk of TAIL_CHUNK at a time
// into a buffer on the stack (the arrays untouched): counted into *found and, when `kept` is not
// NULL, those within reach into *kept; with `to` not NULL also split, in order, into `to` from
// *kept_at and *waiting_at on (moving them on), as split_pending would. False when one particle's
// candidates alone overfill a chunk (a crowd): nothing is then known.
static bool scan_chunks(sinew_world *world, scan_place from, int c1, sinew__distance *to, int *kept_at,
                        int *waiting_at, int64_t *found, int64_t *kept)
{
    sinew__distance chunk[TAIL_CHUNK];
    const int limit = sinew__min_range(&world->tasks, TAIL_CHUNK); // (tests shrink it, to overfill it)
    scan_place stop;
    *found = 0;
    if (kept != NULL) {
        *kept = 0;
    }
    do {
        const int m = find_cells(world, chunk, from, c1, 0, limit, &stop);
        if (stop.c >= 0 && m == 0) {
            return false;
        }
        if (kept != NULL || to != NULL) {
            const int near = count_within(chunk, 0, m);
            if (to != NULL) {
                split_run(chunk, 0, m, to, *kept_at, *waiting_at);
                *kept_at += near;
                *waiting_at += m - near;
            }
            if (kept != NULL) {
                *kept += near;
            }
        }
        *found += m;
        from = stop;
    } while (stop.c >= 0);
    return true;
}

// Of `candidates` pairs tested, the share that `found` contacts are (0 when none were tested).
static float share_of(int found, uint64_t candidates)
{
    return candidates > 0u ? (float)((double)found / (double)candidates) : 0.0f;
}

// The found array and l.c trade places (both hold `capacity` contacts).
static void swap_found(sinew__contacts *k)
{
    sinew__distance *found = k->found;
    k->found = k->l.c;
    k->l.c = found;
}

// Grows the arrays to room for `needed` contacts, to the capacity reserve's steps of an eighth
// would reach, in one step, keeping the first `keep` entries of `found` (the bands' stretches).
// On failure nothing changes.
static void grow_keeping_found(sinew_world *world, int keep, int needed)
{
    sinew__contacts *k = &world->contacts;
    const int count = k->l.count, grown = eighths(k->capacity, needed);
    if (grown >= 0 && resize_keeping_found(world, keep, grown)) {
        k->band_growths += 1;
    }
    k->l.count = count;
}

#define SEARCH_BAND_PARTICLES 1024 // particles a band holds, about
// Particles under which the search runs on one thread (see docs/threads.md). With the grid build and
// the collider marks from 4,096 particles on too (they were at 8,192, as the particle passes still
// are), piles of 4,200, 5,000 and 7,000 balls at 4 x 1 step 0.91x, 0.86x and 0.88x the time at two
// workers (Intel Xeon, family 6, model 207, KVM; medians of 11 alternating pairs against the build
// before). The search alone from 4,096 gained nothing at 5,000 balls (1.01x, 1.02x): it reads what
// the grid's items wrote, so both must spread. The particle passes from 4,096 too made an 80 x 80
// Jacobi cloth, whose distance passes stay on one thread, 1.26x slower at two workers than at one.
#define SEARCH_PARALLEL_MIN 4096

// Whether the search runs in bands over the workers (find_bands), and the split too.
static bool search_spreads(const sinew_world *world)
{
    return world->tasks.workers > 1 &&
           world->grid.sorted_count >= sinew__min_range(&world->tasks, SEARCH_PARALLEL_MIN);
}

typedef struct band_search {
    sinew_world *world;
    int cell[SINEW__SEARCH_BANDS_MAX + 1];  // band b: cells [cell[b], cell[b + 1])
    int first[SINEW__SEARCH_BANDS_MAX + 1]; // where each band writes in `found` (and the end of its room)
    int end[SINEW__SEARCH_BANDS_MAX];       // where it stopped
    scan_place stop[SINEW__SEARCH_BANDS_MAX]; // where its room ran out (c = -1: it did not)
    uint64_t bound[SINEW__SEARCH_BANDS_MAX];  // its candidate pairs
    int kept[SINEW__SEARCH_BANDS_MAX];        // of those it found, how many are within reach
    // A band that outgrew its room: what the rest of its cells (its tail) hold, and of those how
    // many are within reach; tail_ok false when its tail could not be scanned in chunks.
    int tail[SINEW__SEARCH_BANDS_MAX], tail_kept[SINEW__SEARCH_BANDS_MAX];
    bool tail_ok[SINEW__SEARCH_BANDS_MAX];
    // The split: band b writes its kept contacts from to[kept_at[b]] on, its waiting ones from
    // to[waiting_at[b]] on.
    sinew__distance *to;
    int kept_at[SINEW__SEARCH_BANDS_MAX], waiting_at[SINEW__SEARCH_BANDS_MAX];
    // Gauss-Seidel (`colour`): the bands are taken in order (`next`) by whoever is free, and one
    // item (search_and_colour) colours each band's kept contacts as soon as it and the bands
    // before it are found, in the order of one pass, keeping each one's colour c in its hi as
    // -(c + 1) (still within reach) and counting them in `rows`, a row of COLOUR_ROW counts for
    // each band's kept contacts in one tile (band b in tile q: row b + q). `coloured` when every
    // band was (none outgrew its room); the bands then place their kept contacts by colour and
    // close up their waiting ones, `waiting[b]` of them, at their stretch's start (place_task).
    int bands, coloured_kept; // (the kept ones coloured: all of the bands before the first that outgrew)
    bool colour, coloured;
    atomic_int next;
    atomic_bool done[SINEW__SEARCH_BANDS_MAX];
    int32_t *rows;
    int waiting[SINEW__SEARCH_BANDS_MAX];
} band_search;

#define COLOUR_ROW (SINEW__OVERFLOW_COLOR + 2) // a row of colour counts (and a tile's offsets: one more)

static void bound_task(int start, int end, int worker, void *context)
{
    (void)worker;
    band_search *t = context;
    for (int b = start; b < end; ++b) {
        t->bound[b] = cells_bound(&t->world->grid, t->cell[b], t->cell[b + 1]);
    }
}

// The first cell whose particles start at or after place q of `sorted` (cells when none).
static int cell_at(const sinew__grid *g, uint32_t q)
{
    int lo = 0, hi = g->nx * g->ny;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (g->cell_start[mid] < q) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static void search_band(band_search *t, int b)
{
    const uint32_t *cell_start = t->world->grid.cell_start;
    sinew__distance *found = t->world->contacts.found;
    const scan_place from = {t->cell[b], cell_start[t->cell[b]]};
    t->end[b] = find_cells(t->world, found, from, t->cell[b + 1], t->first[b], t->first[b + 1], &t->stop[b]);
    t->kept[b] = count_within(found, t->first[b], t->end[b]); // (while the stretch is in this core's cache)
}

static void band_task(int start, int end, int worker, void *context)
{
    (void)worker;
    for (int b = start; b < end; ++b) {
        search_band(context, b);
    }
}

// Takes the next band not yet taken and searches it; false when every band was taken.
static bool search_next_band(band_search *t)
{
    const int b = atomic_fetch_add(&t->next, 1);
    if (b >= t->bands) {
        return false;
    }
    search_band(t, b);
    atomic_store_explicit(&t->done[b], true, memory_order_release);
    return true;
}

// Searches the bands not yet taken, in order.
static void search_bands(band_search *t)
{
    while (search_next_band(t)) {
    }
}

// Colours band b's kept contacts (see band_search), the kept ones before it numbering *at; false
// when the band outgrew its room (its tail is not in its stretch yet).
static bool colour_band(band_search *t, int b, int *at)
{
    if (t->stop[b].c >= 0) {
        return false;
    }
    sinew__distance *restrict found = t->world->contacts.found;
    uint32_t *restrict colors = t->world->particles.colors;
    const float *restrict w = t->world->particles.w;
    const bool all_movable = all_ends_movable(t->world);
    int kept = *at;
    for (int m = t->first[b]; m < t->end[b]; ++m) {
        if (within_reach(found[m].hi, found[m].lo)) {
            const int c = take_colour(colors, w, all_movable, found[m].i, found[m].j);
            found[m].hi = -(float)(c + 1);
            t->rows[(b + kept / SINEW__TILE_CONTACTS) * COLOUR_ROW + c] += 1;
            kept += 1;
        }
    }
    *at = kept;
    return true;
}

// The search's job in Gauss-Seidel mode, one item a worker: item 0 colours the bands in order,
// each as soon as it is found, and searches bands while the next one to colour is not; the others
// search. However the items fall on threads (all on one, in any order), every band is searched
// once and the colours are those of one pass over the kept contacts in order.
static void search_and_colour(int start, int end, int worker, void *context)
{
    (void)worker;
    band_search *t = context;
    for (int item = start; item < end; ++item) {
        if (item > 0) {
            search_bands(t);
            continue;
        }
        memset(t->world->particles.colors, 0, sizeof(uint32_t) * (size_t)t->world->particles.count);
        int next = 0, at = 0;
        bool ok = true;
        while (ok && next < t->bands) {
            if (atomic_load_explicit(&t->done[next], memory_order_acquire)) {
                ok = colour_band(t, next, &at);
                next += 1;
                continue;
            }
            if (!search_next_band(t)) {
                sinew__relax(); // (every band is taken: the next one is being searched)
            }
        }
        t->coloured = ok;
        t->coloured_kept = at;
        search_bands(t); // (after a band that outgrew: the rest)
    }
}

// Room in the contacts' colour_rows for `rows` rows; false when memory ran out (nothing changed).
static bool colour_rows_reserve(sinew_world *world, int rows)
{
    sinew__contacts *k = &world->contacts;
    const size_t bytes = sizeof(int32_t) * COLOUR_ROW * (size_t)rows;
    if (bytes <= k->colour_rows_bytes) {
        return true;
    }
    int32_t *mem = sinew__alloc(world, bytes);
    if (mem == NULL) {
        return false;
    }
    sinew__free(world, k->colour_rows, k->colour_rows_bytes);
    k->colour_rows = mem;
    k->colour_rows_bytes = bytes;
    return true;
}

// Whether band b's kept contacts (from place kept_at[b] of all kept ones) meet tile q.
static bool band_meets_tile(const band_search *t, int b, int q)
{
    const int first = t->kept_at[b], end = first + t->kept[b];
    return end > first && first < (q + 1) * SINEW__TILE_CONTACTS && end > q * SINEW__TILE_CONTACTS;
}

// Each band's kept contacts to their places in l.c by colour (their rows hold where each colour's
// next one goes), its waiting ones closed up at its stretch's start, in order, hi infinite again.
static void place_task(int start, int end, int worker, void *context)
{
    (void)worker;
    band_search *t = context;
    sinew__distance *restrict found = t->world->contacts.found, *restrict to = t->world->contacts.l.c;
    for (int b = start; b < end; ++b) {
        int kept = t->kept_at[b], waiting = t->first[b];
        for (int m = t->first[b]; m < t->end[b]; ++m) {
            sinew__distance c = found[m];
            const float hi = c.hi;
            c.hi = INFINITY;
            if (hi < 0.0f) { // (kept: its colour)
                int32_t *row = t->rows + (b + kept / SINEW__TILE_CONTACTS) * COLOUR_ROW;
                to[row[(int)-hi - 1]++] = c;
                kept += 1;
            } else {
                found[waiting++] = c;
            }
        }
        t->waiting[b] = waiting - t->first[b];
    }
}

// The coloured bands' `kept` contacts, by colour, tile by tile, into l.c (the order of the colour
// sort), their waiting ones left in `found` as one pending run a band, in order; then the blocks
// and spans of the colour sort. Each tile's colour offsets go to the rows after the counts' rows.
static void place_by_colour(sinew_world *world, band_search *t, int kept)
{
    sinew__contacts *k = &world->contacts;
    const int tiles = (kept + SINEW__TILE_CONTACTS - 1) / SINEW__TILE_CONTACTS;
    int32_t *const tile_offsets = t->rows + (t->bands + tiles) * COLOUR_ROW;
    for (int q = 0; q < tiles; ++q) {
        int32_t *offset = tile_offsets + q * COLOUR_ROW;
        int tally[SINEW__OVERFLOW_COLOR + 1] = {0};
        for (int b = 0; b < t->bands; ++b) {
            if (band_meets_tile(t, b, q)) {
                for (int c = 0; c <= SINEW__OVERFLOW_COLOR; ++c) {
                    tally[c] += t->rows[(b + q) * COLOUR_ROW + c];
                }
            }
        }
        offset[0] = q * SINEW__TILE_CONTACTS;
        for (int c = 0; c <= SINEW__OVERFLOW_COLOR; ++c) {
            offset[c + 1] = offset[c] + tally[c];
        }
        int cursor[SINEW__OVERFLOW_COLOR + 1];
        memcpy(cursor, offset, sizeof cursor);
        for (int b = 0; b < t->bands; ++b) { // (each band's counts become where its contacts go)
            if (band_meets_tile(t, b, q)) {
                int32_t *row = t->rows + (b + q) * COLOUR_ROW;
                for (int c = 0; c <= SINEW__OVERFLOW_COLOR; ++c) {
                    const int n = row[c];
                    row[c] = cursor[c];
                    cursor[c] += n;
                }
            }
        }
    }
    sinew__parallel_for(&world->tasks, place_task, t->bands, 1, t);
    k->pending = k->found;
    k->pending_count = 0;
    k->pending_segs = 0;
    for (int b = 0; b < t->bands; ++b) {
        if (t->waiting[b] > 0) { // (at most SINEW__SEARCH_BANDS_MAX runs)
            k->pending_start[k->pending_segs] = t->first[b];
            k->pending_run[k->pending_segs] = t->waiting[b];
            k->pending_segs += 1;
            k->pending_count += t->waiting[b];
        }
    }
    k->l.count = kept;
    bool spans = sinew__links_spread(world, &k->l);
    begin_colour_sort(k);
    for (int q = 0; q < tiles; ++q) {
        const int t0 = q * SINEW__TILE_CONTACTS, t1 = kept - t0 < SINEW__TILE_CONTACTS ? kept : t0 + SINEW__TILE_CONTACTS;
        int offset[COLOUR_ROW];
        memcpy(offset, tile_offsets + q * COLOUR_ROW, sizeof offset);
        spans = finish_tile(world, t0, t1, offset, spans);
    }
    end_colour_sort(k, spans);
    k->banded_colourings += 1;
}

// Scans band b's tail (scan_chunks): with `to` NULL counts its contacts into t->tail[b] and
// t->tail_kept[b] and sets t->tail_ok[b] (false for a crowd); else splits them, in order, into
// `to` from *kept_at and *waiting_at on (moving them on). A tail is scanned twice, once to count,
// once to split into place: writing it into the arrays would need room the arrays do not have
// (that is why the band outgrew).
static void scan_tail(band_search *t, int b, sinew__distance *to, int *kept_at, int *waiting_at)
{
    int64_t found, kept;
    t->tail_ok[b] = scan_chunks(t->world, t->stop[b], t->cell[b + 1], to, kept_at, waiting_at, &found, &kept);
    if (t->tail_ok[b]) {
        t->tail[b] = (int)found;
        t->tail_kept[b] = (int)kept;
    }
}

// The outgrown bands count their tails.
static void tail_task(int start, int end, int worker, void *context)
{
    (void)worker;
    band_search *t = context;
    for (int b = start; b < end; ++b) {
        if (t->stop[b].c >= 0) {
            scan_tail(t, b, NULL, NULL, NULL);
        }
    }
}

// Each band's contacts, kept and waiting, to their places in `to`: its stretch, then its tail.
static void split_task(int start, int end, int worker, void *context)
{
    (void)worker;
    band_search *t = context;
    for (int b = start; b < end; ++b) {
        split_run(t->world->contacts.found, t->first[b], t->end[b], t->to, t->kept_at[b], t->waiting_at[b]);
        if (t->stop[b].c >= 0) {
            int kept_at = t->kept_at[b] + t->kept[b], waiting_at = t->waiting_at[b] + (t->end[b] - t->first[b] - t->kept[b]);
            scan_tail(t, b, t->to, &kept_at, &waiting_at);
        }
    }
}

// The search over bands of cells (about SEARCH_BAND_PARTICLES particles each) at once, each into
// its own stretch of `found`: the same contacts in the same order as one thread finds. A band's
// room is its candidate pairs times the share of them that were contacts in the last search (its
// own share when the bands were cut alike, else the whole search's), plus a quarter and a margin,
// or as much as the arrays hold as they are when that is less: the arrays grow only when the
// contacts need it, as on one thread (growing them for a guess, by half at a time, left a
// 10,000-ball pile 379 bytes a particle with workers against 235 without).
// The bands that outgrew their rooms then count the rest of their contacts (their tails) at
// once, in chunks on the stack (the arrays have no room for them: 100,000 balls outgrew in 99 of
// the first 120 searches, 20 bands of 98 each time, as the falling pile's contacts grow faster
// than the arrays). When every band's contacts, tails included, fit the arrays, the bands split
// them at once, each writing its kept ones and its waiting ones at their places in l.c (kept ones
// first, waiting ones after them, as split_pending would; an outgrown band scans its tail again
// to write it), and l.c becomes the found array: *split is set. Else (the arrays are too small,
// or a tail could not be scanned in chunks: one particle with more candidates than a chunk
// holds) they are closed up into l.c (which becomes the found array) on this thread, and a band
// that outgrew its room goes on there from where it stopped, within the arrays as they are (less
// what the later bands found); if they are too small for it, the scan goes on from there to the
// last cell, growing them (which keeps what lies before), and the later bands' stretches are not
// used.
// False (nothing found) when the room cannot be had, or when the world is crowded into a few
// cells (more than 32 candidates a particle, where a pile has 4 to 18: one thread, growing as it
// goes, is the safer there).
static bool find_bands(sinew_world *world, bool colour, int *count, uint64_t *candidates, bool *split, bool *placed)
{
    const sinew__grid *g = &world->grid;
    sinew__contacts *k = &world->contacts;
    sinew__tasks *tasks = &world->tasks;
    const int cells = g->nx * g->ny;
    int per_band = sinew__min_range(tasks, SEARCH_BAND_PARTICLES);
    if (g->sorted_count / per_band >= SINEW__SEARCH_BANDS_MAX) {
        per_band = g->sorted_count / (SINEW__SEARCH_BANDS_MAX - 1) + 1;
    }
    // Bands start at the cells where every per_band-th particle lies (found by bisection), and
    // their candidate pairs are counted over the workers.
    band_search t;
    t.world = world;
    const int bands = (g->sorted_count + per_band - 1) / per_band;
    t.cell[0] = 0;
    for (int b = 1; b < bands; ++b) {
        t.cell[b] = cell_at(g, (uint32_t)b * (uint32_t)per_band);
    }
    t.cell[bands] = cells;
    sinew__parallel_for(tasks, bound_task, bands, sinew__min_range(tasks, 8), &t);
    *candidates = 0u;
    for (int b = 0; b < bands; ++b) {
        *candidates += t.bound[b];
    }
    if (bands < 2 || *candidates > 32u * (uint64_t)g->sorted_count + 4096u) {
        return false;
    }
    // Each band's room: its candidates times its share and 1 + slack, plus the fixed margins.
    const bool own = k->band_per == per_band && k->bands == bands; // cut as last time: its own share
    const int margin = sinew__min_range(tasks, 4 * SINEW__LANES); // (tests shrink it, to run out of room)
    const double fixed = (double)bands * (double)(margin + SINEW__LANES);
    double expected = 0.0;
    for (int b = 0; b < bands; ++b) {
        expected += (double)t.bound[b] * (own ? k->band_share[b] : k->hit_share);
    }
    double slack = 0.25;
    if (expected * (1.0 + slack) + fixed > (double)k->capacity) {
        // What the arrays hold as they are, at most: they grow only when the scan needs it.
        slack = expected > 0.0 ? ((double)k->capacity - fixed) / expected * 0.999 - 1.0 : 0.0;
        slack = slack < -1.0 ? -1.0 : slack;
    }
    uint64_t room = 0u;
    t.first[0] = 0;
    for (int b = 0; b < bands; ++b) {
        const double share = own ? k->band_share[b] : k->hit_share;
        const uint64_t guess = (uint64_t)((double)t.bound[b] * share * (1.0 + slack)) + (uint64_t)margin;
        room += (guess < t.bound[b] ? guess : t.bound[b]) + SINEW__LANES; // vector writes go 8 at a time
        t.first[b + 1] = (int)(room < INT32_MAX ? room : INT32_MAX); // (used only when the room fits)
    }
    if (room > INT32_MAX / 4 || !reserve(world, 0, (int)room)) {
        return false;
    }
    // Gauss-Seidel: the colour sort's colouring runs in the search's job (search_and_colour), in
    // rows for each band's kept contacts in each tile they may reach (the found ones fit the arrays).
    const int tiles = k->capacity / SINEW__TILE_CONTACTS + 1;
    t.bands = bands;
    t.colour = colour && colour_rows_reserve(world, bands + 2 * tiles);
    t.coloured = false;
    t.coloured_kept = 0;
    if (t.colour) {
        t.rows = k->colour_rows;
        memset(t.rows, 0, sizeof(int32_t) * COLOUR_ROW * (size_t)(bands + tiles));
        atomic_init(&t.next, 0);
        for (int b = 0; b < bands; ++b) {
            atomic_init(&t.done[b], false);
        }
        sinew__parallel_for(tasks, search_and_colour, tasks->workers, 1, &t);
    } else {
        sinew__parallel_for(tasks, band_task, bands, 1, &t);
    }
    // When they are not placed here, the colour sort goes on from the kept ones coloured (the
    // splits keep their colours): they come first, in order, whichever way the search ends.
    k->precoloured = t.coloured_kept;
    bool outgrown = false;
    for (int b = 0; b < bands; ++b) {
        outgrown |= t.stop[b].c >= 0;
        t.tail[b] = t.tail_kept[b] = 0;
    }
    k->bands = bands;
    k->band_per = per_band;
    // The bands that outgrew their rooms count the rest of their contacts, at once.
    bool tails_ok = true;
    if (outgrown) {
        sinew__parallel_for(tasks, tail_task, bands, 1, &t);
        for (int b = 0; b < bands; ++b) {
            tails_ok &= t.stop[b].c < 0 || t.tail_ok[b];
        }
    }
    int64_t total = 0;
    for (int b = 0; b < bands; ++b) {
        total += t.end[b] - t.first[b] + t.tail[b];
    }
    if (tails_ok && total > k->capacity && total <= INT32_MAX / 4) {
        // Every contact is counted: the arrays grow once, to hold them all, keeping the stretches.
        grow_keeping_found(world, t.first[bands], (int)total);
    }
    if (tails_ok && total <= k->capacity) {
        // Every band's kept ones, then every band's waiting ones, in band order, into l.c (each
        // band's stretch, then its tail).
        int kept = 0, all = 0;
        for (int b = 0; b < bands; ++b) {
            t.kept_at[b] = kept;
            kept += t.kept[b] + t.tail_kept[b];
            all += t.end[b] - t.first[b] + t.tail[b];
        }
        for (int b = 0, waiting = kept; b < bands; ++b) {
            t.waiting_at[b] = waiting;
            waiting += t.end[b] - t.first[b] + t.tail[b] - t.kept[b] - t.tail_kept[b];
            k->band_share[b] = share_of(t.end[b] - t.first[b] + t.tail[b], t.bound[b]);
        }
        k->band_splits += 1;
        *split = true;
        *count = kept;
        if (t.coloured) { // (so none outgrew)
            place_by_colour(world, &t, kept);
            *placed = true;
            return true;
        }
        t.to = k->l.c;
        sinew__parallel_for(tasks, split_task, bands, 1, &t);
        swap_found(k);
        k->pending_count = all - kept;
        k->tail_splits += outgrown;
        return true;
    }
    k->serial_tails += 1;
    sinew__distance *stretches = k->found;
    swap_found(k);
    int m = 0;
    int later = 0; // what the bands after the current one found
    for (int b = 0; b < bands; ++b) {
        later += t.end[b] - t.first[b];
    }
    for (int b = 0; b < bands; ++b) {
        const int here = t.end[b] - t.first[b], at = m;
        if (here > 0) {
            memcpy(k->found + m, stretches + t.first[b], sizeof(sinew__distance) * (size_t)here);
        }
        m += here;
        later -= here;
        if (t.stop[b].c >= 0) {
            scan_place full;
            m = find_cells(world, k->found, t.stop[b], t.cell[b + 1], m, k->capacity - later, &full);
            if (full.c >= 0) {
                scan_place none;
                m = find_cells(world, NULL, full, cells, m, -1, &none);
                k->bands = 0; // (the later bands' shares are not known)
                break;
            }
        }
        k->band_share[b] = share_of(m - at, t.bound[b]);
    }
    *split = false;
    *count = m;
    return true;
}

// Finds every pair within reach (with the motion margin) into `found`, in the order of the scan
// of the cells: with workers by bands of cells (find_bands), else, or when that fails, on one
// thread. Either way the same contacts in the same order; *split is set when find_bands split
// them already (see there).
static int find_all(sinew_world *world, bool colour, bool *split, bool *placed)
{
    const sinew__grid *g = &world->grid;
    sinew__contacts *k = &world->contacts;
    const scan_place all = {0, 0u};
    scan_place none;
    *split = false;
    *placed = false;
    if (search_spreads(world)) {
        int count = 0;
        uint64_t candidates = 0u;
        if (!find_bands(world, colour, &count, &candidates, split, placed)) {
            count = find_cells(world, NULL, all, g->nx * g->ny, 0, -1, &none);
            k->bands = 0;
        }
        // The share for the next search's room (it moves the room and the work, never the result).
        const int found = *split ? count + k->pending_count : count;
        k->hit_share = candidates > 0u ? share_of(found, candidates) : 1.0f;
        return count;
    }
    return find_cells(world, NULL, all, g->nx * g->ny, 0, -1, &none);
}

// Keeps, in order, the found contacts already within the contact reach (what a search with no
// margin finds, by the same test) and moves the others to the pending list, also in order: the
// kept ones to `kept` (which may be `found` itself), the others to the front of `waiting` (which
// may be `found`: each is written at or before the place it was read from). Returns how many
// were kept.
static int split_pending(sinew__contacts *k, int count, sinew__distance *kept_out, sinew__distance *waiting_out)
{
    const sinew__distance *found = k->found;
    int kept = 0, waiting = 0;
    for (int m = 0; m < count; ++m) {
        sinew__distance c = found[m];
        const bool near = within_reach(c.hi, c.lo);
        c.hi = split_hi(c.hi);
        kept_out[kept] = c; // written either way; only a near one moves the count on
        waiting_out[waiting] = c;
        kept += near;
        waiting += !near;
    }
    k->pending_count = waiting;
    return kept;
}

// The place after the first n contacts of `a`: a itself when n is 0, as the array may then be NULL
// (no arithmetic on a NULL pointer).
static sinew__distance *past(sinew__distance *a, int n) { return n > 0 ? a + n : a; }

// Jacobi with one array: the found contacts [0, count) of l.c split in place as split_pending
// splits them, the kept ones at the front in order, the pending ones after them in order (hi set
// to infinity). The pending ones wait meanwhile past the found ones, as far as the arrays reach,
// then in the motion records' memory, free between the search and the sub-step's finish (see
// search_views in particle.c: two contacts a particle); when they are more, the arrays first grow
// to hold them all past the found ones (when that fails, the ones with no room are dropped, and
// counted). Returns how many were kept.
static int split_in_place(sinew_world *world, int count)
{
    sinew__contacts *k = &world->contacts;
    sinew__particles *p = &world->particles;
    if (count == 0) { // (l.c may be NULL: no contact array was allocated)
        k->pending_count = 0;
        return 0;
    }
    const int waiting = count - count_within(k->l.c, 0, count);
    int room = k->capacity - count; // past the found ones, then in the records
    sinew__distance *more = (sinew__distance *)(void *)p->motion;
    int more_room = 2 * p->scratch[0].capacity;
    if (waiting > room + more_room && reserve(world, count, waiting - more_room)) {
        room = k->capacity - count;
    }
    sinew__distance *c = k->l.c; // (the first waiting ones go to its tail)
    int kept = 0, w = 0;
    for (int m = 0; m < count; ++m) {
        sinew__distance x = c[m];
        const bool near = within_reach(x.hi, x.lo);
        x.hi = INFINITY;
        if (near) {
            c[kept++] = x;
        } else if (w < room) {
            c[count + w++] = x;
        } else if (w < room + more_room) {
            more[w++ - room] = x;
        } else {
            world->dropped_contacts += 1;
        }
    }
    const int past = w < room ? w : room;
    memmove(c + kept, c + count, sizeof(sinew__distance) * (size_t)past);
    if (w > past) {
        memcpy(c + kept + past, more, sizeof(sinew__distance) * (size_t)(w - past));
    }
    k->pending_count = w;
    return kept;
}

// The split over the workers, when the search did not split its contacts: in items of
// SPLIT_ITEM contacts or more (at most SPLIT_ITEMS, fixed by the count alone), each item counts
// its kept ones, then writes them and its waiting ones at their places in l.c, kept ones first;
// l.c then becomes the found array, as find_bands' own split leaves it. Returns how many were kept.
#define SPLIT_ITEM 4096
#define SPLIT_ITEMS 64
#define SPLIT_MIN_ITEMS 2 // a task's least: under 4 items (16,384 contacts) split_pending runs

typedef struct split_items {
    const sinew__distance *found;
    sinew__distance *to;
    int count, size;
    int kept[SPLIT_ITEMS], kept_at[SPLIT_ITEMS], waiting_at[SPLIT_ITEMS];
} split_items;

static void count_items(int start, int end, int worker, void *context)
{
    (void)worker;
    split_items *t = context;
    for (int q = start; q < end; ++q) {
        const int m0 = q * t->size, m1 = t->count - m0 < t->size ? t->count : m0 + t->size;
        t->kept[q] = count_within(t->found, m0, m1);
    }
}

static void write_items(int start, int end, int worker, void *context)
{
    (void)worker;
    split_items *t = context;
    for (int q = start; q < end; ++q) {
        const int m0 = q * t->size, m1 = t->count - m0 < t->size ? t->count : m0 + t->size;
        split_run(t->found, m0, m1, t->to, t->kept_at[q], t->waiting_at[q]);
    }
}

// Whether the split of `count` found contacts goes over the workers (split_items): as the search
// in bands, from SEARCH_PARALLEL_MIN particles on. (In a crowd of 1,291 balls with 20,000 to
// 70,000 contacts, a fuzzer input, the fuzzing build stepped 10 to 200% slower with it, for
// reasons not found; the release build did not.)
static bool split_spreads(const sinew_world *world, int count)
{
    const sinew__tasks *tasks = &world->tasks;
    const int size = sinew__item_size(tasks, count, SPLIT_ITEM, SPLIT_ITEMS);
    return search_spreads(world) && (count + size - 1) / size >= 2 * sinew__min_range(tasks, SPLIT_MIN_ITEMS);
}

static int split_items_spread(sinew_world *world, int count)
{
    sinew__contacts *k = &world->contacts;
    split_items t;
    t.found = k->found;
    t.to = k->l.c;
    t.count = count;
    t.size = sinew__item_size(&world->tasks, count, SPLIT_ITEM, SPLIT_ITEMS);
    const int items = (count + t.size - 1) / t.size, least = sinew__min_range(&world->tasks, SPLIT_MIN_ITEMS);
    sinew__parallel_for(&world->tasks, count_items, items, least, &t);
    int kept = 0;
    for (int q = 0; q < items; ++q) {
        t.kept_at[q] = kept;
        kept += t.kept[q];
    }
    for (int q = 0; q < items; ++q) {
        t.waiting_at[q] = kept + q * t.size - t.kept_at[q];
    }
    sinew__parallel_for(&world->tasks, write_items, items, least, &t);
    swap_found(k);
    k->pending_count = count - kept;
    return kept;
}

// What the response pass needs of solved contact m and stays fixed over the step: each end's
// share of a change (w_i / (w_i + w_j)), and the frictions, kept as square roots per particle so
// that the pair's is the product.
SINEW_FORCE_INLINE void set_response(sinew__contacts *restrict k, const sinew__particles *restrict p, int m)
{
    const int i = k->l.c[m].i, j = k->l.c[m].j;
    const float inv_ws = 1.0f / (p->w[i] + p->w[j] + SINEW__GUARD);
    k->share_i[m] = p->w[i] * inv_ws;
    k->share_j[m] = p->w[j] * inv_ws;
    k->mu_s[m] = sinew__particle_mu_s(p, i) * sinew__particle_mu_s(p, j);
    k->mu_k[m] = sinew__particle_mu_k(p, i) * sinew__particle_mu_k(p, j);
}

// The items whose particles' motion records the sub-steps need (sinew__particles_pack_mark): those
// of the solved contacts' ends (the promoted ones mark theirs as they are promoted). While the
// contacts are fewer than half the particles (a pile pouring in, particles in flight), each marks
// its two; with more, nearly every item holds an end anyway, and all are marked at once.
static void mark_packed(sinew_world *world)
{
    const sinew__contacts *k = &world->contacts;
    const sinew__particles *p = &world->particles;
    if (2 * (int64_t)k->l.count >= p->count) {
        sinew__particles_pack_reset(world, true);
        return;
    }
    for (int m = 0; m < k->l.count; ++m) {
        sinew__particles_pack_mark(p, k->l.c[m].i);
        sinew__particles_pack_mark(p, k->l.c[m].j);
    }
}

// With workers, the spans of independent blocks Gauss-Seidel spreads over them (links.c), for
// contacts that changed from place `from` on (0: all; else some were added there).
static void refresh_spans(sinew_world *world, int from)
{
    sinew__contacts *k = &world->contacts;
    if (sinew__links_spread(world, &k->l)) { // (a few contacts are swept on one thread: no spans)
        sinew__links_spans(world, &k->l, world->particles.colors, from);
    } else {
        k->l.spans_valid = false;
    }
}

// After Gauss-Seidel's colour sort: the spans scanned for when the colours could not give them,
// and the items of the contacts' ends marked for packing.
static void after_colour_sort(sinew_world *world)
{
    if (!world->contacts.l.spans_valid) {
        refresh_spans(world, 0);
    }
    mark_packed(world);
}

// After a search that did not place its contacts (see find_bands): the kept ones split from the
// pending ones (unless the search split them), then coloured and sorted (Gauss-Seidel, `color`)
// or cut into Jacobi's items; the pending ones are one run. Returns the kept ones' count.
static int sort_found(sinew_world *world, bool color, bool split, int found_count)
{
    sinew__contacts *k = &world->contacts;
    if (!split && split_spreads(world, found_count)) {
        found_count = split_items_spread(world, found_count);
        split = true;
    }
    if (color) {
        // The kept ones stay at the front of `found` and the pending ones go to l.c for a moment,
        // then after them, so that the colour sort can write l.c (find_all's split leaves them so).
        if (!split) {
            found_count = split_pending(k, found_count, k->found, k->l.c);
        }
        k->pending = past(k->found, found_count);
        if (!split && k->pending_count > 0) {
            memcpy(k->pending, k->l.c, sizeof(sinew__distance) * (size_t)k->pending_count);
        }
        k->l.count = found_count;
        color_and_sort(world, sinew__links_spread(world, &k->l));
        after_colour_sort(world);
    } else { // Jacobi: the kept ones at the front of l.c, the pending ones right after them.
        if (k->one_array) {
            found_count = split_in_place(world, found_count);
        } else if (!split) { // (the pending ones go to the front of `found`, then after the kept ones)
            found_count = split_pending(k, found_count, k->l.c, k->found);
            if (k->pending_count > 0) {
                memcpy(k->l.c + found_count, k->found, sizeof(sinew__distance) * (size_t)k->pending_count);
            }
        } else { // (the split left them so in `found`)
            swap_found(k);
        }
        k->pending = past(k->l.c, found_count);
        k->l.count = found_count;
        if (found_count > 0) {
            memset(k->l.block_free, 0, (size_t)(found_count + SINEW__LANES - 1) / SINEW__LANES);
        }
        sinew__contacts_split(world);
    }
    k->pending_segs = k->pending_count > 0 ? 1 : 0;
    k->pending_start[0] = 0;
    k->pending_run[0] = k->pending_count;
    return found_count;
}

void sinew__contacts_find(sinew_world *world, bool color)
{
    sinew__contacts *k = &world->contacts;
    sinew__particles *p = &world->particles;
    const sinew__grid *g = &world->grid;
    k->l.count = 0;
    k->l.spans_valid = false;
    k->pending_count = 0;
    k->pending_segs = 0;
    k->split.items = 0;
    k->precoloured = 0;
    if (!g->valid || g->sorted_count == 0 || !(g->max_radius > 0.0f)) {
        return;
    }
    // One array in Jacobi mode while the search runs on one thread (see sinew__contacts).
    if (!contacts_layout(world, color || search_spreads(world))) {
        world->dropped_contacts += g->sorted_count; // (the layout could not change: no contacts this sub-step)
        return;
    }
    bool split = false, placed = false;
    k->in_line = !color;
    int found_count = find_all(world, color, &split, &placed);
    if (placed) {
        // (the bands coloured their contacts and placed them by colour, and left the pending runs)
        after_colour_sort(world);
    } else {
        found_count = sort_found(world, color, split, found_count);
    }
    // One kind of ball: the shares and frictions are the same for every contact (and set_response
    // would give each the same bits).
    const sinew__materials *one = sinew__particles_materials(world);
    k->one_material = one->one_material;
    k->l.one_weight = one->one_material;
    k->l.one_w = one->one_material ? one->w : 0.0f;
    if (one->one_material) {
        const float inv_ws = 1.0f / (one->w + one->w + SINEW__GUARD);
        k->one_share = one->w * inv_ws;
        k->one_mu_s = one->mu_s * one->mu_s;
        k->one_mu_k = one->mu_k * one->mu_k;
    }
    if (k->one_material) {
        return;
    }
    if (k->response_block == NULL && response_resize(world, 0, k->capacity) != SINEW_OK) {
        // No room for the shares: no particle contacts this sub-step (as when the grid cannot grow).
        world->dropped_contacts += k->l.count + k->pending_count;
        k->l.count = k->pending_count = 0;
        k->split.items = 0;
        return;
    }
    for (int m = 0; m < found_count; ++m) {
        set_response(k, p, m);
    }
}

// Promotion over the workers: the pending runs are cut into pieces (PROMOTE_PIECE contacts or
// more, fixed by the pending count), and a piece is promoted in two stages with a barrier
// between: first each piece marks its contacts now within reach (hi = -INFINITY, pending ones hold
// INFINITY) and counts them; then, with every piece's place among the promoted known, each piece
// writes its promoted contacts there, in order, and closes up its waiting ones at its own start,
// which become a run of their own. The promoted contacts and their order are those of one pass.
#define PROMOTE_PIECE 2048
#define PROMOTE_MIN_PIECES 2 // a task's least: under 4 pieces (8,192 pending contacts) one thread

typedef struct promote_task {
    sinew_world *world;
    int32_t *start, *count;   // per piece: its place in pending, its contacts
    int32_t *promoted, *at;   // per piece: how many it promotes, and from which place of l.c
} promote_task;

static void mark_pieces(int start, int end, int worker, void *context)
{
    (void)worker;
    const promote_task *t = context;
    const sinew__particles *p = &t->world->particles;
    const float *restrict x = p->x, *restrict y = p->y;
    sinew__distance *restrict pending = t->world->contacts.pending;
    for (int q = start; q < end; ++q) {
        int promoted = 0;
        for (int m = t->start[q]; m < t->start[q] + t->count[q]; ++m) {
            const sinew__distance c = pending[m];
            const float dx = x[c.j] - x[c.i], dy = y[c.j] - y[c.i];
            const bool near = within_reach(dx * dx + dy * dy, c.lo);
            pending[m].hi = near ? -INFINITY : INFINITY;
            promoted += near;
        }
        t->promoted[q] = promoted;
    }
}

static void move_pieces(int start, int end, int worker, void *context)
{
    (void)worker;
    const promote_task *t = context;
    sinew__contacts *k = &t->world->contacts;
    const sinew__particles *p = &t->world->particles;
    sinew__distance *restrict pending = k->pending, *restrict solved = k->l.c;
    for (int q = start; q < end; ++q) {
        const int m1 = t->start[q] + t->count[q];
        int n = t->at[q], waiting = t->start[q], m = t->start[q];
        if (t->promoted[q] == 0) {
            continue; // all of its contacts wait, where they are
        }
        if (k->one_material) {
            // Up to its last promoted contact, each is written to both places and the counts move
            // on by the outcome (promotion is a coin flip: no branch to mispredict); the slot of
            // l.c written for a waiting one is the next promoted one's, inside this piece's.
            const int n_end = n + t->promoted[q];
            for (; n < n_end; ++m) {
                sinew__distance c = pending[m];
                const bool near = c.hi < 0.0f;
                c.hi = INFINITY;
                solved[n] = c;
                pending[waiting] = c;
                n += near;
                waiting += !near;
            }
        }
        for (; m < m1; ++m) { // (the rest of the piece, or all of it when the shares are per contact)
            sinew__distance c = pending[m];
            if (c.hi < 0.0f) {
                c.hi = INFINITY;
                solved[n] = c;
                set_response(k, p, n);
                n += 1;
            } else {
                pending[waiting++] = c;
            }
        }
        for (int s = t->at[q]; s < n; ++s) { // (the promoted ones' items pack their records)
            sinew__particles_pack_mark(p, solved[s].i);
            sinew__particles_pack_mark(p, solved[s].j);
        }
    }
}

// Jacobi (in_line): the pending contacts follow the solved ones in l.c, and those mark_pieces
// marked (hi = -INFINITY) move to the front of them, in order, where they join the solved ones;
// the waiting ones take their places, in the order the swaps leave them (one pass: the same at
// any worker count). Returns the new count of solved contacts.
static int promote_in_line(sinew_world *world)
{
    sinew__contacts *k = &world->contacts;
    const sinew__particles *p = &world->particles;
    sinew__distance *restrict c = k->l.c;
    const int end = k->l.count + k->pending_count;
    int n = k->l.count;
    for (int m = n; m < end; ++m) {
        sinew__distance x = c[m];
        if (x.hi < 0.0f) {
            x.hi = INFINITY;
            c[m] = c[n]; // (a waiting one met before, or x itself)
            c[n] = x;
            if (!k->one_material) {
                set_response(k, p, n);
            }
            sinew__particles_pack_mark(p, x.i);
            sinew__particles_pack_mark(p, x.j);
            n += 1;
        }
    }
    return n;
}

// Cuts the pending runs into pieces of at most `piece` contacts, in order, into start and count
// (as many as fit); returns how many there are.
static int cut_pieces(const sinew__contacts *k, int piece, int32_t *start, int32_t *count)
{
    int pieces = 0;
    for (int r = 0; r < k->pending_segs; ++r) {
        const int run = k->pending_run[r];
        for (int m = 0; m < run; m = run - m > piece ? m + piece : run) {
            if (pieces < SINEW__PENDING_SEGS) {
                start[pieces] = k->pending_start[r] + m;
                count[pieces] = run - m < piece ? run - m : piece;
            }
            pieces += 1;
        }
    }
    return pieces;
}

void sinew__contacts_promote(sinew_world *world)
{
    sinew__contacts *k = &world->contacts;
    const int first = k->l.count;
    if (k->pending_count == 0) {
        return;
    }
    // The pieces: each run cut into pieces of `piece` contacts (its last one shorter); when that
    // would make too many, each run is one piece (there are never more runs than pieces were).
    const int piece = sinew__item_size(&world->tasks, k->pending_count, PROMOTE_PIECE, SINEW__PENDING_SEGS / 2);
    int32_t start[SINEW__PENDING_SEGS], count[SINEW__PENDING_SEGS], promoted[SINEW__PENDING_SEGS],
        at[SINEW__PENDING_SEGS];
    int pieces = cut_pieces(k, piece, start, count);
    if (pieces > SINEW__PENDING_SEGS) {
        pieces = cut_pieces(k, INT32_MAX, start, count);
    }
    promote_task t = {world, start, count, promoted, at};
    const int min_pieces = sinew__min_range(&world->tasks, PROMOTE_MIN_PIECES);
    sinew__parallel_for(&world->tasks, mark_pieces, pieces, min_pieces, &t);
    int n = first;
    if (k->in_line) {
        n = promote_in_line(world);
        k->pending = k->l.c + n;
        k->pending_count -= n - first;
        k->pending_segs = k->pending_count > 0 ? 1 : 0;
        k->pending_start[0] = 0;
        k->pending_run[0] = k->pending_count;
    } else {
        int runs = 0, waiting = 0;
        for (int q = 0; q < pieces; ++q) {
            at[q] = n;
            n += promoted[q];
            if (count[q] > promoted[q]) { // its waiting ones stay at its start
                k->pending_start[runs] = start[q];
                k->pending_run[runs] = count[q] - promoted[q];
                waiting += k->pending_run[runs];
                runs += 1;
            }
        }
        if (n > first) { // (else no contact was marked)
            sinew__parallel_for(&world->tasks, move_pieces, pieces, min_pieces, &t);
        }
        k->pending_segs = runs;
        k->pending_count = waiting;
    }
    // The promoted contacts go one by one: no block they are in is marked independent (fixed
    // when it has an immovable end: see SINEW__BLOCK_FIXED).
    k->l.count = n;
    for (int b = first / SINEW__LANES; b < (n + SINEW__LANES - 1) / SINEW__LANES; ++b) {
        k->l.block_free[b] = fixed_mark(world, b);
    }
    if (n > first) {
        refresh_spans(world, first);
    }
}

static int contacts_count(const sinew_world *world) { return world->contacts.l.count; }

// Contacts keep their colour order whatever the order setting.
static void contacts_project(sinew_world *world, float inv_h2, bool backward, bool shuffled)
{
    (void)shuffled;
    sinew__links_project(world, &world->contacts.l, inv_h2, backward, false);
}

static void contacts_count_active(sinew_world *world, float inv_h2)
{
    (void)inv_h2;
    sinew__contacts_jacobi(world, SINEW__JACOBI_ACTIVE, 0.0f);
}

static bool contacts_accumulate(sinew_world *world, float inv_h2, float omega)
{
    (void)inv_h2; // (contacts are rigid)
    sinew__contacts_jacobi(world, SINEW__JACOBI_ACCUMULATE, omega);
    return world->contacts.l.count > 0;
}

static int contacts_error(const sinew_world *world, float beyond, float *max_error, double *sum_sq)
{
    return sinew__links_error(world, &world->contacts.l, beyond, max_error, sum_sq);
}

// Contacts are found again at every step's first sub-step: a destroyed particle's contacts go with
// the next search.
const sinew__kind_ops sinew__contact_kind = {
    .kind = SINEW_KIND_CONTACT,
    .count = contacts_count,
    .begin_substep = NULL,
    .project = contacts_project,
    .count_active = contacts_count_active,
    .accumulate = contacts_accumulate,
    .error = contacts_error,
    .remove_particle = NULL,
    .free = contacts_free,
};
