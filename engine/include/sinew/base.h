// sinew: export macro, status codes, allocator and id types shared by every header.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#if defined(SINEW_STATIC)
#define SINEW_API
#elif defined(_WIN32)
#if defined(SINEW_BUILD)
#define SINEW_API __declspec(dllexport)
#else
#define SINEW_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define SINEW_API __attribute__((visibility("default")))
#else
#define SINEW_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Every reason a sinew call can fail, as one X-macro list: X(name, message).
/// A call that returns anything but SINEW_OK has changed nothing (one exception: a call that
/// returns SINEW_ERR_OUT_OF_MEMORY may keep capacity it had already grown, which
/// sinew_world_byte_count shows; every particle and constraint it made is gone).
#define SINEW_STATUS_LIST(X)                                                                   \
    X(SINEW_OK, "ok")                                                                          \
    X(SINEW_ERR_NULL_ARGUMENT, "a required pointer argument is NULL")                          \
    X(SINEW_ERR_INVALID_ID, "the id is null, was destroyed, or was never issued by this world") \
    X(SINEW_ERR_NOT_FINITE, "a value is NaN or infinite")                                      \
    X(SINEW_ERR_NEGATIVE_WEIGHT, "a particle weight (inverse mass) is negative")               \
    X(SINEW_ERR_NEGATIVE_RADIUS, "a particle radius is negative")                              \
    X(SINEW_ERR_OUT_OF_RANGE, "a value is outside its documented range")                       \
    X(SINEW_ERR_SAME_PARTICLE, "a constraint names the same particle twice")                   \
    X(SINEW_ERR_CAPACITY, "the world reached the maximum count set in its def")                \
    X(SINEW_ERR_OUT_OF_MEMORY, "the allocator returned NULL")                                  \
    X(SINEW_ERR_BUFFER_TOO_SMALL, "the buffer is smaller than what is to be written into it")  \
    X(SINEW_ERR_SNAPSHOT_TRUNCATED, "the snapshot is cut short")                              \
    X(SINEW_ERR_SNAPSHOT_CORRUPT, "the snapshot's bytes changed (checksum or header mismatch)") \
    X(SINEW_ERR_SNAPSHOT_FOREIGN, "not a sinew snapshot, or saved with another byte order")    \
    X(SINEW_ERR_SNAPSHOT_VERSION, "the snapshot was saved by a newer sinew")                   \
    X(SINEW_ERR_SNAPSHOT_INVALID, "the snapshot holds values no world can hold")               \
    X(SINEW_ERR_NOT_MEASURED, "the last step did not measure what is asked (enable it first)")

/// Result of every call that can fail.
typedef enum sinew_status {
#define SINEW_X_ENUM(name, msg) name,
    SINEW_STATUS_LIST(SINEW_X_ENUM)
#undef SINEW_X_ENUM
    SINEW_STATUS_COUNT
} sinew_status;

/// Short English description of a status; never NULL (unknown values give "unknown status").
SINEW_API const char *sinew_status_string(sinew_status status);

/// The enum's name of a status ("SINEW_ERR_OUT_OF_RANGE"); never NULL ("SINEW_STATUS_UNKNOWN" for
/// values outside the enum).
SINEW_API const char *sinew_status_name(sinew_status status);

/// Largest coordinate or length in metres any call accepts (world.h tells what it bounds; the
/// standalone IK solvers hold their lengths, bases and targets to it too).
#define SINEW_MAX_COORDINATE 1e15f

/// Memory hooks. `alloc` returns `size` bytes aligned for any type, or NULL on failure;
/// `free` receives a pointer from `alloc` with the same size. Both get `user_data`.
typedef struct sinew_allocator {
    void *(*alloc)(size_t size, void *user_data);
    void (*free)(void *ptr, size_t size, void *user_data);
    void *user_data;
} sinew_allocator;

/// Particle handle. All-zero is the null id; a destroyed particle's id stops working.
typedef struct sinew_particle_id {
    uint32_t index1;     ///< slot + 1, so zero is null
    uint32_t generation; ///< bumped when the slot is reused
} sinew_particle_id;

/// Distance constraint handle. All-zero is null.
typedef struct sinew_distance_id {
    uint32_t index1;
    uint32_t generation;
} sinew_distance_id;

/// Pin/target constraint handle. All-zero is null.
typedef struct sinew_pin_id {
    uint32_t index1;
    uint32_t generation;
} sinew_pin_id;

/// Area (2D volume) constraint handle. All-zero is null.
typedef struct sinew_area_id {
    uint32_t index1;
    uint32_t generation;
} sinew_area_id;

/// Angle constraint handle. All-zero is null.
typedef struct sinew_angle_id {
    uint32_t index1;
    uint32_t generation;
} sinew_angle_id;

/// Static collider handle. All-zero is null.
typedef struct sinew_collider_id {
    uint32_t index1;
    uint32_t generation;
} sinew_collider_id;

/// The null ids, for initialising variables.
#define SINEW_NULL_ID {0u, 0u}

/// True when an id of any kind is the null id.
#define SINEW_ID_IS_NULL(id) ((id).index1 == 0u)

#ifdef __cplusplus
}
#endif
