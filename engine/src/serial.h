// Snapshots, as the kinds see them: a writer that appends bytes (or only counts them), a reader
// that checks every byte it hands out, column encoding, and the save and load of a whole store
// (its ids and the arrays that are not derived); serial.c. The snapshot's format, which puts the
// kinds' parts together, is snapshot.c's (snapshot.h). Never installed.
#pragma once

#include "core.h"

// Appends to `data` while it has room; `size` counts every byte asked for, so a writer with no
// data measures, and one whose size passed its capacity has overflowed.
typedef struct sinew__writer {
    uint8_t *data;
    size_t capacity, size;
} sinew__writer;

// Hands out the bytes of a buffer in order. The first problem sets `status` and `error` (a
// sentence for sinew_snapshot_check), and every later read fails: a loader reads on and checks
// r->status once.
typedef struct sinew__reader {
    const uint8_t *data;
    size_t size, at;
    sinew_status status;
    const char *error;
} sinew__reader;

void sinew__put(sinew__writer *w, const void *bytes, size_t n);
static inline void sinew__put_u32(sinew__writer *w, uint32_t v) { sinew__put(w, &v, sizeof v); }
static inline void sinew__put_u64(sinew__writer *w, uint64_t v) { sinew__put(w, &v, sizeof v); }
static inline void sinew__put_f32(sinew__writer *w, float v) { sinew__put(w, &v, sizeof v); }

// False (and the reader failed, SINEW_ERR_SNAPSHOT_TRUNCATED) when fewer than n bytes are left.
bool sinew__get(sinew__reader *r, void *bytes, size_t n);
uint32_t sinew__get_u32(sinew__reader *r);
uint64_t sinew__get_u64(sinew__reader *r);
float sinew__get_f32(sinew__reader *r);
// Fails the reader with SINEW_ERR_SNAPSHOT_INVALID and `why` unless `ok`; returns `ok`.
bool sinew__expect(sinew__reader *r, bool ok, const char *why);
// Fails the reader with `status` (an allocation's, say) and `why` unless it failed already;
// returns false.
bool sinew__reader_fail(sinew__reader *r, sinew_status status, const char *why);

// n elements of `size` bytes: one byte of encoding (all zero; all equal to the first; 4-byte
// elements counting 0, 1, 2, ...; as is), then the first element, nothing, or all of them. A
// pile's weights, radii and frictions cost one value, the ids of a store nothing left nothing.
// A NULL array (an absent one) is written as zeros, and only zeros can be read into one.
void sinew__put_column(sinew__writer *w, const void *array, size_t size, int n);
bool sinew__get_column(sinew__reader *r, void *array, size_t size, int n);

// A store: its count, id pool and id slots, then each array that is not derived, as columns.
void sinew__store_save(sinew__writer *w, const sinew__store *s, void *kind, sinew__fields_fn fields, int count);
// Reads a store saved by sinew__store_save into an empty one: room for exactly its elements, ids
// checked (every live id names one element, the free list is a list). *count gets the element
// count, at most max_count. False with r failed (or an allocation status) on any problem; the
// store may then hold memory, which freeing the world gives back.
bool sinew__store_load(sinew__reader *r, sinew_world *world, sinew__store *s, void *kind, sinew__fields_fn fields,
                       int *count, int max_count);
