// sinew-host-gaps: how much of each CPU the machine takes away from a program that wants all of
// them, the condition under which a step's workers meet at barriers. One thread per CPU (pinned to
// it on Linux) reads the monotonic clock in a loop for the given time; two reads further apart
// than the gap threshold mean the thread was not running in between (the host ran another guest's
// vCPU, or this guest ran another thread or an interrupt). A worker off its CPU for such a gap
// holds up every barrier of a step in the meantime, so two workers give less on a machine with
// many gaps (docs/threads.md, "A shared machine"). Then two threads pinned to the first two CPUs
// hand a flag back and forth (one cache line, written by each in turn) a given number of times: the
// round trip is what every barrier of a two-worker step pays at least, and it changes with where the
// host runs the two vCPUs. Prints one JSON object:
//
//     sinew-host-gaps [--seconds S] [--threads N] [--gap-us G] [--round-trips K]
//
// per thread: gaps a second, the share of the time lost in them, and the longest gap; the mean
// share over the threads; and the round trip's 10th, 50th and 90th percentiles in nanoseconds
// (none with one CPU or --round-trips 0). Nothing of the engine is used.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_THREADS 64

typedef struct gap_count {
    int cpu;          // the CPU it was pinned to (-1: not pinned)
    double seconds;   // how long it looked, and of that:
    double lost;      // seconds in gaps
    double longest;   // seconds, the longest gap
    long gaps;
} gap_count;

typedef struct gap_task {
    gap_count *out;
    double seconds, threshold;
    int cpu;
    pthread_barrier_t *start;
} gap_task;

// Pins the calling thread to `cpu` (Linux); false where it cannot.
static bool pin(int cpu)
{
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
#else
    (void)cpu;
    return false;
#endif
}

static void *look(void *arg)
{
    const gap_task *t = arg;
    gap_count c = {-1, 0.0, 0.0, 0.0, 0};
    if (pin(t->cpu)) {
        c.cpu = t->cpu;
    }
    pthread_barrier_wait(t->start);
    const double begin = bench_now_seconds(), end = begin + t->seconds;
    double last = begin;
    for (;;) {
        const double at = bench_now_seconds();
        const double d = at - last;
        if (d > t->threshold) {
            c.gaps += 1;
            c.lost += d;
            c.longest = d > c.longest ? d : c.longest;
        }
        last = at;
        if (at >= end) {
            break;
        }
    }
    c.seconds = last - begin;
    *t->out = c;
    return NULL;
}

// The flag the two threads hand back and forth: odd, the answering thread's turn; even, the
// asking one's. Alone on its cache line.
typedef struct round_trip {
    _Alignas(64) atomic_long flag;
    long trips;
} round_trip;

static void wait_for(const atomic_long *flag, long value)
{
    while (atomic_load(flag) != value) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

static void *answer(void *arg)
{
    round_trip *t = arg;
    pin(1);
    for (long k = 0; k < t->trips; ++k) {
        wait_for(&t->flag, 2 * k + 1);
        atomic_store(&t->flag, 2 * k + 2);
    }
    return NULL;
}

static int compare_double(const void *p, const void *q)
{
    const double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

// The round trips' 10th, 50th and 90th percentiles in ns, between CPUs 0 and 1; false when a
// thread or the memory is missing.
static bool round_trips(long trips, double out[3])
{
    double *at = malloc(sizeof(double) * (size_t)trips);
    round_trip t;
    atomic_init(&t.flag, 0);
    t.trips = trips;
    pthread_t id;
    if (at == NULL || pthread_create(&id, NULL, answer, &t) != 0) {
        free(at);
        return false;
    }
    pin(0);
    for (long k = 0; k < trips; ++k) {
        const double begin = bench_now_seconds();
        atomic_store(&t.flag, 2 * k + 1);
        wait_for(&t.flag, 2 * k + 2);
        at[k] = bench_now_seconds() - begin;
    }
    pthread_join(id, NULL);
    qsort(at, (size_t)trips, sizeof *at, compare_double);
    for (int q = 0; q < 3; ++q) {
        out[q] = 1e9 * at[(long)((double)trips * (q == 0 ? 0.1 : q == 1 ? 0.5 : 0.9))];
    }
    free(at);
    return true;
}

int main(int argc, char **argv)
{
    float seconds = 2.0f, gap_us = 10.0f;
    long trips = 100000;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus > 0 && cpus <= MAX_THREADS ? (int)cpus : 1;
    bool ok = true;
    for (int k = 1; k < argc && ok; ++k) {
        if (strcmp(argv[k], "--seconds") == 0 && k + 1 < argc) {
            ok = bench_parse_float(argv[++k], &seconds) && seconds > 0.0f && seconds <= 3600.0f;
        } else if (strcmp(argv[k], "--threads") == 0 && k + 1 < argc) {
            ok = bench_parse_int(argv[++k], 1, MAX_THREADS, &threads);
        } else if (strcmp(argv[k], "--gap-us") == 0 && k + 1 < argc) {
            ok = bench_parse_float(argv[++k], &gap_us) && gap_us > 0.0f && gap_us < 1e9f;
        } else if (strcmp(argv[k], "--round-trips") == 0 && k + 1 < argc) {
            ok = bench_parse_long(argv[++k], 0, 100000000, &trips);
        } else {
            ok = false;
        }
    }
    if (!ok) {
        fprintf(stderr,
                "usage: sinew-host-gaps [--seconds S in (0, 3600]] [--threads N in 1..%d] [--gap-us G > 0]"
                " [--round-trips K in 0..100000000]\n",
                MAX_THREADS);
        return 2;
    }
    pthread_t ids[MAX_THREADS];
    gap_task tasks[MAX_THREADS];
    gap_count counts[MAX_THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    for (int k = 0; k < threads; ++k) {
        tasks[k] = (gap_task){&counts[k], seconds, 1e-6 * gap_us, cpus > 0 ? (int)(k % cpus) : 0, &start};
        if (k > 0 && pthread_create(&ids[k], NULL, look, &tasks[k]) != 0) {
            fprintf(stderr, "sinew-host-gaps: a thread would not start\n");
            return 1;
        }
    }
    look(&tasks[0]);
    for (int k = 1; k < threads; ++k) {
        pthread_join(ids[k], NULL);
    }
    pthread_barrier_destroy(&start);
    double share = 0.0;
    printf("{\"tool\":\"host_gaps\",\"threads\":%d,\"seconds\":%g,\"gap_us\":%g,\"per_thread\":[", threads,
           (double)seconds, (double)gap_us);
    for (int k = 0; k < threads; ++k) {
        const gap_count *c = &counts[k];
        const double lost_share = c->seconds > 0.0 ? c->lost / c->seconds : 0.0;
        share += lost_share / threads;
        printf("%s{\"cpu\":%d,\"gaps_per_s\":%.1f,\"lost_share\":%.4f,\"longest_ms\":%.3f}", k > 0 ? "," : "", c->cpu,
               c->seconds > 0.0 ? (double)c->gaps / c->seconds : 0.0, lost_share, 1e3 * c->longest);
    }
    printf("],\"lost_share\":%.4f", share);
    double rt[3];
    if (trips > 0 && cpus > 1 && round_trips(trips, rt)) {
        printf(",\"round_trip_ns\":{\"p10\":%.0f,\"median\":%.0f,\"p90\":%.0f}", rt[0], rt[1], rt[2]);
    }
    printf("}\n");
    return 0;
}
