// The built-in pool of worker threads (pthreads) and sinew__parallel_for.
//
// One job at a time: the thread that steps the world writes the job (fn, context, ranges, least),
// opens it (an odd generation), takes chunks itself, waits until every chunk is done, closes it
// (the next, even generation) and waits until no worker still looks at it; only then may the next
// job be written. The items are cut into one range per worker, in order, and each range into
// chunks that halve (see chunk_items); each worker takes the chunks of its own range first, then
// helps with the others' (at their far ends: range_cursor). The stages hand out items in the
// order of their data (a pile's contacts by region, particles by index), so a worker keeps coming
// back to the same part of the data from one job to the next and finds it in its own cache, where
// one shared counter sent each chunk to whoever came first (measured: the 10,000-ball pile at 8 x
// 4 spent a fifth more CPU in its sweeps at two workers than at one). While a step with jobs runs,
// workers spin between its jobs (its one-thread stretches can last a millisecond, and a sleeping
// worker takes tens of microseconds to wake: the 100,000-ball pile at 4 x 1 ran 5% faster at two
// workers for it); between steps, and through steps that hand out no job, they spin for a few
// microseconds, then sleep on a condition variable.
// Who runs what never changes the results: the stages hand out items that do not depend on one
// another.
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "world_internal.h"

#define SPIN_ROUNDS 2000 // about 5 to 10 us of spinning before a worker sleeps, between steps
#define YIELD_ROUNDS 256 // while a step runs, workers spin on, yielding the core this often
// The hand-off (tasks.h): batches of round trips between the stepping thread and worker 1, the
// median batch's mean taken, about 30 us on a host whose round trip is 500 ns. Once
// SINEW__HANDOFF_EVERY steps passed since the last, the next job ends with a measure if the workers
// are awake; waking a sleeping one for it took 0.1 to 1.7 ms on an AMD EPYC (Zen 5, KVM), longer
// than a rope of 1,000 links takes for 40 steps, so only after HANDOFF_WAKE_AFTER times that many
// steps without a chance (a step that hands out no job leaves them asleep) does a step begin with
// one. A measure waits at most HANDOFF_ARRIVE_S for the worker's first answer, then at most
// HANDOFF_GIVE_UP_S for any other (a worker held off its core), and is otherwise dropped: the last
// measure stands. So is one over HANDOFF_SHARED_NS: the two threads then shared one CPU (the
// scheduler may put a worker it wakes beside the thread that woke it, until it balances the load;
// seen once here at 12.7 us), which says nothing of the cores.
#define HANDOFF_BATCHES 7
#define HANDOFF_TRIPS 8
#define HANDOFF_WAKE_AFTER 32
#define HANDOFF_ARRIVE_S 5e-3
#define HANDOFF_GIVE_UP_S 1e-3
#define HANDOFF_MAX_SCALE 16
#define HANDOFF_SHARED_NS 4000

// One worker's range of items and its chunks not yet taken, [front, back) in one word (see
// chunk_items): its owner takes them from the front, the largest first. A worker that helps takes
// them from the back, the smallest first, so that the owner keeps most of its range, whose data
// it finds in its own cache, and a helper moves the least of it to its own: measured on an AMD
// EPYC (Zen 5, 2 vCPUs, KVM), two workers, farm-bench pairs against helping from the front, the
// 10,000-ball pile at 8 x 4 0.940 to 0.970 of the time (25 of 26 pairs faster), the 100,000-ball
// pile 0.984, the 256 x 256 cloth 0.968 to 0.991. With more workers than cores, a worker can be
// off its core for a whole time slice, and a helper takes the largest chunks first instead (from
// the back, the cloth took 1.13 times as long at three workers on the 2 cores). 64 bytes, so that
// two workers' cursors never share a cache line.
typedef struct range_cursor {
    _Atomic uint64_t chunks; // front in the low 32 bits, back in the high
    int first, count;        // the range's items
    char pad[64 - sizeof(uint64_t) - 2 * sizeof(int)];
} range_cursor;

struct sinew__pool {
    int threads; // workers - 1
    bool help_from_back; // no more workers than cores: helpers take the smallest chunks (range_cursor)
    pthread_t ids[SINEW_MAX_WORKERS];
    pthread_mutex_t lock;
    pthread_cond_t wake;
    // the job: written only while it is closed and no worker is busy
    sinew_task_fn *fn;
    void *context;
    int least;              // the fewest items a chunk takes
    atomic_int pending;     // chunks not yet finished
    range_cursor range[SINEW_MAX_WORKERS]; // worker w's range of items and its chunks
    atomic_uint generation; // odd: a job is open
    atomic_int busy;        // workers looking at the open job
    atomic_int sleepers;
    atomic_bool stepping;   // a step with jobs runs: workers keep spinning between them
    int step_jobs, last_step_jobs; // jobs handed out in this step and the last (the stepping thread's)
    bool in_step;           // between sinew__tasks_stepping(true) and (false) (the stepping thread's)
    atomic_bool stop;
    bool ping;              // the open job is a measure of the hand-off (written as the job's fields)
    // the hand-off (tasks.h), the stepping thread's: the last measure kept, its scale, the steps
    // between measures (0: none), the steps since the last, and the last measure taken (0: it gave
    // up; it may have been dropped)
    int handoff_ns, handoff_scale, handoff_every, handoff_steps, handoff_taken_ns;
    // The measure's ball: the stepping thread serves odd numbers, worker 1 returns the next even
    // one; negative when the measure is over. A cache line's length from any other field.
    char volley_before[64];
    atomic_int volley;
    char volley_after[64 - sizeof(atomic_int)];
};

// A range's chunks: each takes half of what is left while more than twice `least` is left, the
// last takes the rest, so the chunks taken last (by the owner or by a worker that helps) are the
// small ones and the workers end a job close together. Chunk k of the range of n items from
// `first` is [*start, *end); returns how many chunks there are when k is past them.
static int chunk_items(int first, int n, int least, int k, int *start, int *end)
{
    int at = first, left = n, c = 0;
    for (;;) {
        const int take = left > 2 * least ? left / 2 : left;
        if (c == k || take == left) {
            *start = at;
            *end = at + take;
            return c + 1;
        }
        at += take;
        left -= take;
        c += 1;
    }
}

// Takes a chunk of r, from its front (its owner) or its back (a worker that helps): its index,
// or -1 when none is left.
static int take_chunk(range_cursor *r, bool front)
{
    uint64_t seen = atomic_load(&r->chunks);
    for (;;) {
        const uint32_t lo = (uint32_t)seen, hi = (uint32_t)(seen >> 32);
        if (lo >= hi) {
            return -1;
        }
        const uint64_t taken = front ? seen + 1u : seen - ((uint64_t)1 << 32);
        if (atomic_compare_exchange_weak(&r->chunks, &seen, taken)) {
            return (int)(front ? lo : hi - 1u);
        }
    }
}

// Runs chunks of the open job until none is left untaken: those of its own range, then the
// others' ranges in turn.
static void run_chunks(sinew__pool *p, int worker)
{
    const int workers = p->threads + 1;
    for (int k = 0; k < workers; ++k) {
        range_cursor *r = &p->range[(worker + k) % workers];
        for (int c; (c = take_chunk(r, k == 0 || !p->help_from_back)) >= 0;) {
            int start, end;
            chunk_items(r->first, r->count, p->least, c, &start, &end);
            p->fn(start, end, worker, p->context);
            atomic_fetch_sub(&p->pending, 1);
        }
    }
}

// Worker 1's part of a measure of the hand-off: returns every serve until the measure is over. The
// exchange fails only when the stepping thread gave up meanwhile.
static void return_volleys(sinew__pool *p)
{
    for (int v = 1;; v += 2) {
        int seen = atomic_load(&p->volley);
        for (int spins = 1; seen >= 0 && seen < v; ++spins) {
            sinew__relax();
            if (spins % YIELD_ROUNDS == 0) {
                sched_yield(); // (more threads than cores: let the stepping thread run)
            }
            seen = atomic_load(&p->volley);
        }
        if (seen != v || !atomic_compare_exchange_strong(&p->volley, &seen, v + 1)) {
            return;
        }
    }
}

typedef struct worker_arg {
    sinew__pool *pool;
    int worker;
} worker_arg;

// Waits until the generation is not `seen` (or the pool stops); returns it.
static unsigned wait_for_change(sinew__pool *p, unsigned seen)
{
    for (int spins = 0; spins < SPIN_ROUNDS || atomic_load(&p->stepping); ++spins) {
        const unsigned g = atomic_load(&p->generation);
        if (g != seen || atomic_load(&p->stop)) {
            return g;
        }
        sinew__relax();
        if (spins >= SPIN_ROUNDS && spins % YIELD_ROUNDS == 0) {
            sched_yield(); // (more threads than cores: let the stepping thread run)
        }
    }
    pthread_mutex_lock(&p->lock);
    atomic_fetch_add(&p->sleepers, 1);
    while (atomic_load(&p->generation) == seen && !atomic_load(&p->stop)) {
        pthread_cond_wait(&p->wake, &p->lock);
    }
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->lock);
    return atomic_load(&p->generation);
}

static void *worker_main(void *arg)
{
    sinew__pool *p = ((worker_arg *)arg)->pool;
    const int worker = ((worker_arg *)arg)->worker;
    // The generation pool_start began at, not the one now: a thread that starts after the first
    // jobs opened (a busy host can delay it by milliseconds) then joins the job open now instead of
    // taking it for one it has seen.
    unsigned seen = 0u;
    for (;;) {
        seen = wait_for_change(p, seen);
        if (atomic_load(&p->stop)) {
            return NULL;
        }
        if ((seen & 1u) == 0u) {
            continue; // closed: wait for the next one
        }
        atomic_fetch_add(&p->busy, 1);
        if (atomic_load(&p->generation) == seen) { // still open: its fields hold still until busy is 0
            if (!p->ping) {
                run_chunks(p, worker);
            } else if (worker == 1) {
                return_volleys(p);
            }
        }
        atomic_fetch_sub(&p->busy, 1);
    }
}

static void pool_stop(sinew_world *world, sinew__pool *p)
{
    if (p == NULL) {
        return;
    }
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->stop, true);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int k = 0; k < p->threads; ++k) {
        pthread_join(p->ids[k], NULL);
    }
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    sinew__free(world, p, sizeof *p + sizeof(worker_arg) * SINEW_MAX_WORKERS);
}

// A pool of `threads` threads, or NULL (memory, or a thread that would not start).
static sinew__pool *pool_start(sinew_world *world, int threads)
{
    const size_t bytes = sizeof(sinew__pool) + sizeof(worker_arg) * SINEW_MAX_WORKERS;
    sinew__pool *p = sinew__alloc(world, bytes);
    if (p == NULL) {
        return NULL;
    }
    memset(p, 0, bytes);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    p->help_from_back = cores <= 0 || threads + 1 <= cores;
    worker_arg *args = (worker_arg *)(p + 1);
    for (int w = 0; w < SINEW_MAX_WORKERS; ++w) {
        atomic_init(&p->range[w].chunks, 0u);
    }
    atomic_init(&p->pending, 0);
    atomic_init(&p->generation, 0u);
    atomic_init(&p->busy, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->stepping, false);
    atomic_init(&p->stop, false);
    atomic_init(&p->volley, -1);
    p->handoff_scale = 1;
    p->handoff_every = SINEW__HANDOFF_EVERY;
    p->handoff_steps = SINEW__HANDOFF_EVERY; // (due at the first job)
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        sinew__free(world, p, bytes);
        return NULL;
    }
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        sinew__free(world, p, bytes);
        return NULL;
    }
    for (int k = 0; k < threads; ++k) {
        args[k] = (worker_arg){p, k + 1};
        if (pthread_create(&p->ids[k], NULL, worker_main, &args[k]) != 0) {
            p->threads = k;
            pool_stop(world, p);
            return NULL;
        }
        p->threads = k + 1;
    }
    return p;
}

// Opens the job whose fields were written (an odd generation), waking the workers that sleep.
static void open_job(sinew__pool *p)
{
    atomic_fetch_add(&p->generation, 1u);
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
}

// Closes the open job (the next, even generation) and waits until no worker looks at it: then its
// fields may be written again.
static void close_job(sinew__pool *p)
{
    atomic_fetch_add(&p->generation, 1u);
    while (atomic_load(&p->busy) > 0) {
        sinew__relax();
    }
}

// Runs the job over the workers; the calling thread first runs beside (when not NULL), then takes
// chunks (its own range first, unless a worker took it meanwhile). Returns the ticks at which it
// had no chunk left to take, from when it waited for the workers (when `timed`; else 0).
static uint64_t pool_run(sinew__pool *p, sinew_task_fn *fn, int count, int min_range, void *context,
                         void (*beside)(void *), void *beside_context, bool timed)
{
    const int workers = p->threads + 1;
    // Each worker's range of items, cut into halving chunks of at least min_range items.
    p->fn = fn;
    p->context = context;
    p->least = min_range > 0 ? min_range : 1;
    int chunks = 0;
    for (int w = 0; w < workers; ++w) {
        range_cursor *r = &p->range[w];
        r->first = (int)((int64_t)count * w / workers);
        r->count = (int)((int64_t)count * (w + 1) / workers) - r->first;
        int start, end;
        const int n = r->count > 0 ? chunk_items(r->first, r->count, p->least, INT32_MAX, &start, &end) : 0;
        atomic_store(&r->chunks, (uint64_t)n << 32);
        chunks += n;
    }
    atomic_store(&p->pending, chunks);
    if (p->step_jobs++ == 0 && p->in_step) {
        atomic_store(&p->stepping, true); // (a step whose first job this is: spin to its end)
    }
    open_job(p);
    if (beside != NULL) {
        beside(beside_context);
    }
    run_chunks(p, 0);
    const uint64_t done = timed ? sinew__ticks() : 0u;
    while (atomic_load(&p->pending) > 0) {
        sinew__relax();
    }
    close_job(p);
    return done;
}

// Waits until worker 1 returns serve v; false when that took longer than `limit` seconds.
static bool await_return(sinew__pool *p, int v, double limit)
{
    double since = 0.0;
    for (int spins = 1; atomic_load(&p->volley) != v + 1; ++spins) {
        sinew__relax();
        if (spins % YIELD_ROUNDS == 0) {
            const double now = sinew__seconds();
            if (since == 0.0) {
                since = now;
            } else if (now - since > limit) {
                return false;
            }
            sched_yield(); // (more threads than cores: let worker 1 run)
        }
    }
    return true;
}

// The round trip between the calling thread and worker 1 in ns: the median of HANDOFF_BATCHES
// batches' mean trips (after one trip that lets the worker arrive); 0 when the worker did not answer
// in time.
static int round_trip(sinew__pool *p)
{
    p->ping = true;
    atomic_store(&p->volley, 0);
    open_job(p);
    double batch[HANDOFF_BATCHES];
    int v = 1;
    atomic_store(&p->volley, v);
    bool answered = await_return(p, v, HANDOFF_ARRIVE_S);
    for (int b = 0; b < HANDOFF_BATCHES && answered; ++b) {
        const double start = sinew__seconds();
        for (int k = 0; k < HANDOFF_TRIPS && answered; ++k) {
            v += 2;
            atomic_store(&p->volley, v);
            answered = await_return(p, v, HANDOFF_GIVE_UP_S);
        }
        batch[b] = (sinew__seconds() - start) / HANDOFF_TRIPS;
    }
    atomic_store(&p->volley, -1); // over: worker 1 leaves
    close_job(p);
    p->ping = false;
    if (!answered) {
        return 0;
    }
    for (int a = 1; a < HANDOFF_BATCHES; ++a) { // (sorted, for the median)
        for (int b = a; b > 0 && batch[b - 1] > batch[b]; --b) {
            const double swap = batch[b];
            batch[b] = batch[b - 1];
            batch[b - 1] = swap;
        }
    }
    const double ns = 1e9 * batch[HANDOFF_BATCHES / 2];
    return ns < 1.0 ? 1 : ns > 1e9 ? 1000000000 : (int)ns;
}

// Measures the hand-off; a measure that gave up, or found the threads on one CPU, leaves the last
// one standing.
static void measure_handoff(sinew__pool *p)
{
    p->handoff_steps = 0;
    const int ns = round_trip(p);
    p->handoff_taken_ns = ns;
    if (ns > 0 && ns <= HANDOFF_SHARED_NS) {
        const int scale = ns / SINEW__HANDOFF_REFERENCE_NS;
        p->handoff_ns = ns;
        p->handoff_scale = scale < 1 ? 1 : scale > HANDOFF_MAX_SCALE ? HANDOFF_MAX_SCALE : scale;
    }
}

int sinew__tasks_handoff_ns(const sinew__tasks *t)
{
    return t->pool != NULL ? t->pool->handoff_ns : 0;
}

int sinew__tasks_handoff_taken_ns(const sinew__tasks *t)
{
    return t->pool != NULL ? t->pool->handoff_taken_ns : 0;
}

int sinew__tasks_handoff_scale(const sinew__tasks *t)
{
    return t->pool != NULL ? t->pool->handoff_scale : 1;
}

void sinew__tasks_set_handoff(sinew__tasks *t, int scale, int every)
{
    if (t->pool != NULL) {
        t->pool->handoff_scale = scale;
        t->pool->handoff_every = every;
        t->pool->handoff_steps = 0;
    }
}

sinew_status sinew__tasks_init(sinew_world *world, sinew__tasks *t, const sinew_world_def *def,
                               sinew__job_times *times)
{
    memset(t, 0, sizeof *t);
    t->times = times;
    t->workers = 1;
    t->enqueue = def->enqueue_task;
    t->finish = def->finish_task;
    t->context = def->task_context;
    t->grain = 1;
    return sinew__tasks_set_workers(world, t, def->workers);
}

sinew_status sinew__tasks_set_workers(sinew_world *world, sinew__tasks *t, int workers)
{
    if (t->enqueue == NULL && workers != t->workers) {
        sinew__pool *p = NULL;
        if (workers > 1) {
            p = pool_start(world, workers - 1);
            if (p == NULL) {
                return SINEW_ERR_OUT_OF_MEMORY;
            }
        }
        pool_stop(world, t->pool); // (the new pool measures its own hand-off)
        t->pool = p;
    }
    t->workers = workers;
    return SINEW_OK;
}

void sinew__tasks_stepping(sinew__tasks *t, bool stepping)
{
    sinew__pool *p = t->pool;
    if (p == NULL) {
        return;
    }
    if (!stepping) {
        p->last_step_jobs = p->step_jobs;
    }
    p->step_jobs = 0;
    p->in_step = stepping;
    // A step that hands out no job leaves the workers asleep, as one worker would: in one that does
    // they spin from its first job on, and from its start when the last step had jobs.
    atomic_store(&p->stepping, stepping && p->last_step_jobs > 0);
    if (stepping) {
        p->handoff_steps += p->handoff_steps < INT32_MAX;
        // (Not with the tests' grain: they choose what splits.)
        if (t->grain == 1 && p->handoff_every > 0 && p->handoff_steps / HANDOFF_WAKE_AFTER >= p->handoff_every) {
            measure_handoff(p); // (no job woke the workers for a long time)
        }
    }
}

void sinew__tasks_free(sinew_world *world, sinew__tasks *t)
{
    pool_stop(world, t->pool);
    t->pool = NULL;
}

// Counts a job spread over the workers, ending now; when the jobs are timed, it was handed out at
// `start` and its calling thread began to wait for the others at `done`.
static void job_ended(const sinew__tasks *t, uint64_t start, uint64_t done)
{
    sinew__job_times *times = t->times;
    times->jobs += 1;
    if (t->time_jobs) {
        const uint64_t end = sinew__ticks();
        times->parallel += end > start ? end - start : 0u;
        times->wait += end > done ? end - done : 0u;
    }
}

// The one dispatch of both: inline (one worker, or too few items for two ranges), the user's task
// system, or the built-in pool.
void sinew__parallel_for_beside(const sinew__tasks *t, const sinew__job *job, void (*beside)(void *),
                                void *beside_context)
{
    const bool items = job != NULL && job->count > 0;
    if (!items || !sinew__tasks_spread(t, job->count, job->min_range)) {
        if (beside != NULL) {
            beside(beside_context);
        }
        if (items) {
            job->fn(0, job->count, 0, job->context);
        }
    } else if (t->enqueue != NULL) {
        const uint64_t start = t->time_jobs ? sinew__ticks() : 0u;
        void *task = t->enqueue(job->fn, job->count, job->min_range, job->context, t->context);
        if (beside != NULL) {
            beside(beside_context);
        }
        const uint64_t done = t->time_jobs ? sinew__ticks() : 0u;
        if (task != NULL) {
            t->finish(task, t->context);
        }
        job_ended(t, start, done);
    } else {
        const uint64_t start = t->time_jobs ? sinew__ticks() : 0u;
        sinew__pool *p = t->pool;
        const uint64_t done = pool_run(p, job->fn, job->count, job->min_range, job->context, beside,
                                       beside_context, t->time_jobs);
        job_ended(t, start, done);
        if (t->grain == 1 && p->handoff_every > 0 && p->handoff_steps >= p->handoff_every &&
            atomic_load(&p->sleepers) == 0) {
            measure_handoff(p); // (the workers are awake: spinning since this job)
        }
    }
}

void sinew__parallel_for(const sinew__tasks *t, sinew_task_fn *fn, int count, int min_range, void *context)
{
    const sinew__job job = {fn, count, min_range, context};
    sinew__parallel_for_beside(t, &job, NULL, NULL);
}
