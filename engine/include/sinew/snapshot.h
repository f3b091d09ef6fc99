// sinew: save, load and clone a world, to the bit.
#pragma once

#include <stddef.h>

#include "base.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Bytes sinew_world_save writes for this world as it is now (0 for NULL). Walks the world; no
/// allocation.
SINEW_API size_t sinew_world_save_size(const sinew_world *world);

/// Writes everything that decides the world's future into `buffer` (`capacity` bytes): settings,
/// particles, constraints with their state, colliders, id generations. Stepping a world loaded
/// from it gives the same bits as stepping this one. `*written` (may be NULL) gets the size.
/// The format is versioned and checksummed (docs/snapshots.md). Errors: NULL_ARGUMENT,
/// BUFFER_TOO_SMALL (capacity < sinew_world_save_size; nothing useful is written).
SINEW_API sinew_status sinew_world_save(const sinew_world *world, void *buffer, size_t capacity, size_t *written);

/// Makes a new world from a snapshot of `size` bytes. `def` (may be NULL) supplies only what a
/// snapshot cannot hold: the allocator, the user data and the threads (workers and task system,
/// which change no result); the rest comes from the buffer. Every
/// id the saved world issued is valid in the new one. Errors (nothing is allocated, *out is
/// untouched): NULL_ARGUMENT, SNAPSHOT_TRUNCATED, SNAPSHOT_CORRUPT (checksum), SNAPSHOT_FOREIGN
/// (not a snapshot, or another byte order), SNAPSHOT_VERSION (newer format), SNAPSHOT_INVALID
/// (values no world accepts), OUT_OF_MEMORY. sinew_snapshot_check says why.
SINEW_API sinew_status sinew_world_load(const void *buffer, size_t size, const sinew_world_def *def, sinew_world **out);

/// Whether sinew_world_load would accept the buffer (it loads it into a scratch world and
/// destroys it); `*reason` (may be NULL) gets a sentence: "" when it would.
SINEW_API sinew_status sinew_snapshot_check(const void *buffer, size_t size, const char **reason);

/// A new world equal to `world` to the bit, with its allocator, user data, threads and profiling
/// level. Errors: NULL_ARGUMENT, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_world_clone(const sinew_world *world, sinew_world **out);

#ifdef __cplusplus
}
#endif
