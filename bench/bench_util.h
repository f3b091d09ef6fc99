// bench_util: the clock and the argument parsing every benchmark program shares (header only).
// Define _POSIX_C_SOURCE 199309L or later before including it (for clock_gettime).
#ifndef SINEW_BENCH_UTIL_H
#define SINEW_BENCH_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

// Monotonic wall-clock time in seconds, for differences only.
static inline double bench_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Parses all of `s` as a decimal integer in [lo, hi] into *out; false, *out unchanged, otherwise.
static inline bool bench_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
        return false;
    }
    *out = v;
    return true;
}

// Parses all of `s` (not empty) as a float into *out (inf and nan included: the caller checks
// the range); false, *out unchanged, otherwise.
static inline bool bench_parse_float(const char *s, float *out)
{
    char *end;
    const float v = strtof(s, &end);
    if (end == s || *end != '\0') {
        return false;
    }
    *out = v;
    return true;
}

// bench_parse_long into an int.
static inline bool bench_parse_int(const char *s, int lo, int hi, int *out)
{
    long v;
    if (!bench_parse_long(s, lo, hi, &v)) {
        return false;
    }
    *out = (int)v;
    return true;
}

#endif
