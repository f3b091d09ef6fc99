// sinew-host-gaps: how much of each CPU the machine takes away from a program that wants all of
// them, the condition under which a step's workers meet at barriers. One thread per CPU (pinned to
// it on Linux) reads the monotonic clock in a loop for the given time; two reads further apart
// than the gap threshold mean the thread was not running in between (the host ran another guest's
// vCPU, or this guest ran another thread or an interrupt). A worker off its CPU for such a gap
// holds up every barrier of a step in the meantime, so two workers give less on a machine with
// many gaps (docs/threads.md, "A shared machine"). Prints one JSON object:
//
//     sinew-host-gaps [--seconds S] [--threads N] [--gap-us G]
//
// per thread: gaps a second, the share of the time lost in them, and the longest gap; and the
// mean share over the threads. Nothing of the engine is used.
#define _GNU_SOURCE
#include <pthread.h>
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

static void *look(void *arg)
{
    const gap_task *t = arg;
    gap_count c = {-1, 0.0, 0.0, 0.0, 0};
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(t->cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0) {
        c.cpu = t->cpu;
    }
#endif
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

int main(int argc, char **argv)
{
    float seconds = 2.0f, gap_us = 10.0f;
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
        } else {
            ok = false;
        }
    }
    if (!ok) {
        fprintf(stderr, "usage: sinew-host-gaps [--seconds S in (0, 3600]] [--threads N in 1..%d] [--gap-us G > 0]\n",
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
    printf("],\"lost_share\":%.4f}\n", share);
    return 0;
}
