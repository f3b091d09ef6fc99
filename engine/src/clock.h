// The profile's clock (sinew_world_profile): a tick counter cheap enough to read around every stage
// and job of a step, turned into milliseconds by the wall clock read at the step's start and end.
// Never installed.
#pragma once

#include <stdint.h>
#include <time.h>

// Seconds of the C11 wall clock.
static inline double sinew__seconds(void)
{
    struct timespec t;
    if (timespec_get(&t, TIME_UTC) != TIME_UTC) {
        return 0.0;
    }
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// Ticks at a rate that holds over a step: the time-stamp counter on x86 (a few nanoseconds to
// read), else nanoseconds of the wall clock.
static inline uint64_t sinew__ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec t;
    if (timespec_get(&t, TIME_UTC) != TIME_UTC) {
        return 0u;
    }
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}

// Adds the ticks since *last to *sum and moves *last to now (a lap of the step's stages).
static inline void sinew__lap(uint64_t *sum, uint64_t *last)
{
    const uint64_t now = sinew__ticks();
    *sum += now > *last ? now - *last : 0u;
    *last = now;
}
