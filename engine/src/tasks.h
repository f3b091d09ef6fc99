// Threads: the world's task system (a user's, or the built-in pool of tasks.c) and the one way
// the stages use it, sinew__parallel_for. Never installed.
#pragma once

#include "core.h"

typedef struct sinew__pool sinew__pool;

// A spin-wait's pause between two looks at what another thread writes (x86: the pause
// instruction, which spares the core's sibling and a virtual machine's host).
static inline void sinew__relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// What the jobs spread over the workers cost the calling thread in a step, in ticks (clock.h), for
// sinew_world_profile: from handing a job out to its end, and of that the wait for the other
// workers (with a user's task system: the time in its finish callback).
typedef struct sinew__job_times {
    uint64_t parallel, wait;
    int jobs;
} sinew__job_times;

typedef struct sinew__tasks {
    int workers;                    // 1..SINEW_MAX_WORKERS
    sinew_enqueue_task_fn *enqueue; // the user's task system, or NULL
    sinew_finish_task_fn *finish;
    void *context;
    sinew__pool *pool;              // the built-in pool: workers - 1 threads, when there is no user system
    int grain;                      // divides every stage's smallest range and item: 1, the engine's; tests raise it
    sinew__job_times *times;        // the world's, added to by the thread that steps it
    bool time_jobs;                 // read the clock around every job (SINEW_PROFILE_JOBS)
} sinew__tasks;

// A stage's smallest range of items, `engine_min` divided by the grain (at least 1).
static inline int sinew__min_range(const sinew__tasks *t, int engine_min)
{
    const int m = engine_min / t->grain;
    return m > 0 ? m : 1;
}

// The size of a stage's items over `count` things: at least `least` (divided by the tests'
// grain), and large enough that there are at most `most` of them. It depends on the count, never
// on the workers, so the items' partial results are the same at any worker count.
static inline int sinew__item_size(const sinew__tasks *t, int count, int least, int most)
{
    const int need = (count + most - 1) / most, floor = sinew__min_range(t, least);
    return need > floor ? need : floor;
}

// From the def (already checked): the built-in pool's threads start here. The jobs' times go to
// *times.
sinew_status sinew__tasks_init(sinew_world *world, sinew__tasks *t, const sinew_world_def *def,
                               sinew__job_times *times);
sinew_status sinew__tasks_set_workers(sinew_world *world, sinew__tasks *t, int workers);
void sinew__tasks_free(sinew_world *world, sinew__tasks *t);
// Around a step: while it runs, the built-in pool's workers spin between its jobs (yielding now
// and then) instead of going to sleep, as waking a sleeping thread takes tens of microseconds:
// from its start when the last step handed out jobs, else from its first job.
void sinew__tasks_stepping(sinew__tasks *t, bool stepping);

// The hand-off: the built-in pool's round trip between two of its threads, measured (tasks.c)
// every SINEW__HANDOFF_EVERY steps, and its scale, which multiplies the least work a sweep's span
// is split for, before the tests' grain divides it (links.c). A split span ends in a barrier, and
// a barrier costs a round trip between the workers: on an AMD EPYC (Zen 5, 2 vCPUs, KVM) whose
// host moves between a state where the round trip is 110 to 140 ns and one where it is 430 to
// 530, spans that pay in the first lose in the second (docs/threads.md, "The hand-off"). The scale
// is the round trip over SINEW__HANDOFF_REFERENCE_NS, from 1 to 16.
#define SINEW__HANDOFF_REFERENCE_NS 128
#define SINEW__HANDOFF_EVERY 128
// The last measured round trip in ns: 0 before one, with one worker, or with a user's task system.
int sinew__tasks_handoff_ns(const sinew__tasks *t);
// For the tests: the last measure taken, kept or not (over HANDOFF_SHARED_NS, tasks.c, it is
// dropped); 0 before one, or when it gave up.
int sinew__tasks_handoff_taken_ns(const sinew__tasks *t);
// The scale of the last measure: 1 before one, with one worker, or with a user's task system.
int sinew__tasks_handoff_scale(const sinew__tasks *t);
// For the tests: sets the scale (1..16) and measures again every `every` steps (0: never). No
// effect without the built-in pool.
void sinew__tasks_set_handoff(sinew__tasks *t, int scale, int every);

// Whether a stage of `count` items in ranges of at least min_range goes over the workers (else
// sinew__parallel_for runs it inline on the calling thread).
static inline bool sinew__tasks_spread(const sinew__tasks *t, int count, int min_range)
{
    return t->workers > 1 && count >= 2 * min_range;
}

// Runs fn over the items [0, count) in ranges of at least min_range and returns when all ran:
// inline with one worker, or when count is under 2 * min_range. The items must not depend on one
// another: the results then do not depend on how the ranges fell.
void sinew__parallel_for(const sinew__tasks *t, sinew_task_fn *fn, int count, int min_range, void *context);

// A stage to run later: fn over the items [0, count) in ranges of at least min_range.
typedef struct sinew__job {
    sinew_task_fn *fn;
    int count, min_range;
    void *context;
} sinew__job;

// Runs `job` over the workers while the calling thread runs beside(beside_context), one-thread
// work the job does not wait for; the calling thread then helps with the job's items. Returns
// when both ran. They must touch disjoint data: the results are then those of one after the
// other, in either order. A NULL job (or one of no items) runs beside alone; beside may be NULL.
void sinew__parallel_for_beside(const sinew__tasks *t, const sinew__job *job, void (*beside)(void *),
                                void *beside_context);
