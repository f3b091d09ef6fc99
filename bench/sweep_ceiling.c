// sinew-sweep-ceiling: what a second thread can give, on this machine, a Gauss-Seidel sweep that
// meets a barrier after every colour, by the colour's size. Nothing of the engine is used: a
// lattice of balls in rows of 100 (a pile's crystal), the contacts between neighbours coloured
// greedily (six colours, each in the order of its balls), and a scalar kernel that pushes two
// balls apart, swept colour after colour. With one thread the sweep runs straight through; with N,
// each thread takes an even, fixed part of every colour (the parts that meet share a row of balls
// at most) and all meet at a spin barrier before the next colour. So the speed-up it measures is
// the most any solver of that shape gets from N threads at that colour size, here: what the
// barriers cost, what the host's gaps hold up, and what moving the lines both threads write costs
// (docs/threads.md, "A shared machine"). Prints one JSON object a line, one per lattice size:
//
//     sinew-sweep-ceiling [--balls N,N,...] [--threads T] [--rounds R] [--seconds S]
//
// with the microseconds a colour takes on one thread and on T (medians over R rounds, which count
// runs first alternating), and the median, least and largest of the rounds' speed-ups.
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_THREADS 64
#define MAX_SIZES 16
#define MAX_COLOURS 16
#define COLUMNS 100
#define SPACING 0.98f // the lattice starts a little squeezed, so the first sweeps push

typedef struct lattice {
    int balls, contacts, colours;
    float *x, *y;
    int *a, *b;                    // the contacts' balls, colour after colour
    int start[MAX_COLOURS + 1];    // colour c's contacts are [start[c], start[c + 1])
} lattice;

// A sense-counting barrier: the last thread in resets the count and opens the next generation.
typedef struct barrier {
    _Alignas(64) atomic_int count;
    _Alignas(64) atomic_int generation;
} barrier;

typedef struct sweep_task {
    lattice *l;
    barrier *bar;
    pthread_barrier_t *start;
    int thread, threads;
    long sweeps;
} sweep_task;

static void barrier_wait(barrier *b, int threads)
{
    const int g = atomic_load(&b->generation);
    if (atomic_fetch_add(&b->count, 1) == threads - 1) {
        atomic_store(&b->count, 0);
        atomic_store(&b->generation, g + 1);
        return;
    }
    for (int spins = 1; atomic_load(&b->generation) == g; ++spins) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (spins % 256 == 0) {
            sched_yield(); // (more threads than CPUs: let the one the others wait for run, as sinew's pool does)
        }
    }
}

// Lays out `balls` balls in rows of COLUMNS, every other row shifted by half a ball, and colours
// the contacts with each one's right and upper neighbours: each takes the first colour neither of
// its balls has yet. False when out of memory or the colours run out.
static bool lattice_make(lattice *l, int balls)
{
    memset(l, 0, sizeof *l);
    l->balls = balls;
    const int most = 3 * balls;
    l->x = malloc(sizeof(float) * (size_t)balls);
    l->y = malloc(sizeof(float) * (size_t)balls);
    int *ga = malloc(sizeof(int) * (size_t)most), *gb = malloc(sizeof(int) * (size_t)most);
    int *colour = malloc(sizeof(int) * (size_t)most);
    unsigned *used = calloc((size_t)balls, sizeof(unsigned)); // colours each ball has, as bits
    l->a = malloc(sizeof(int) * (size_t)most);
    l->b = malloc(sizeof(int) * (size_t)most);
    bool ok = l->x && l->y && ga && gb && colour && used && l->a && l->b;
    int m = 0;
    for (int i = 0; ok && i < balls; ++i) {
        const int r = i / COLUMNS, c = i % COLUMNS;
        l->x[i] = SPACING * ((float)c + 0.5f * (float)(r & 1));
        l->y[i] = SPACING * 0.8660254f * (float)r;
        int with[3], k = 0;
        if (c + 1 < COLUMNS && i + 1 < balls) {
            with[k++] = i + 1;
        }
        const int side = (r & 1) != 0 ? c + 1 : c - 1; // the other upper neighbour
        if (i + COLUMNS < balls) {
            with[k++] = i + COLUMNS;
        }
        if (side >= 0 && side < COLUMNS && (r + 1) * COLUMNS + side < balls) {
            with[k++] = (r + 1) * COLUMNS + side;
        }
        for (int q = 0; q < k && ok; ++q) {
            const unsigned both = used[i] | used[with[q]];
            int col = 0;
            while (col < MAX_COLOURS && (both & (1u << col)) != 0u) {
                col += 1;
            }
            ok = col < MAX_COLOURS;
            if (ok) {
                used[i] |= 1u << col;
                used[with[q]] |= 1u << col;
                ga[m] = i;
                gb[m] = with[q];
                colour[m] = col;
                l->colours = col + 1 > l->colours ? col + 1 : l->colours;
                m += 1;
            }
        }
    }
    if (ok) { // colour after colour, each in the order the contacts were made (by their balls)
        l->contacts = m;
        int at = 0;
        for (int col = 0; col < l->colours; ++col) {
            l->start[col] = at;
            for (int k = 0; k < m; ++k) {
                if (colour[k] == col) {
                    l->a[at] = ga[k];
                    l->b[at] = gb[k];
                    at += 1;
                }
            }
        }
        l->start[l->colours] = at;
    }
    free(ga);
    free(gb);
    free(colour);
    free(used);
    return ok;
}

static void lattice_free(lattice *l)
{
    free(l->x);
    free(l->y);
    free(l->a);
    free(l->b);
}

// Pushes the balls of contacts [k0, k1) apart to one diameter, without a branch.
static void project(lattice *l, int k0, int k1)
{
    float *restrict x = l->x, *restrict y = l->y;
    const int *restrict a = l->a, *restrict b = l->b;
    for (int k = k0; k < k1; ++k) {
        const int i = a[k], j = b[k];
        const float dx = x[j] - x[i], dy = y[j] - y[i];
        const float d = sqrtf(dx * dx + dy * dy);
        float s = 0.5f * (d - 1.0f) / (d + 1e-12f);
        s = s < 0.0f ? s : 0.0f;
        x[i] += s * dx;
        y[i] += s * dy;
        x[j] -= s * dx;
        y[j] -= s * dy;
    }
}

static void *sweep(void *arg)
{
    const sweep_task *t = arg;
    lattice *l = t->l;
    if (t->start != NULL) {
        pthread_barrier_wait(t->start);
    }
    for (long s = 0; s < t->sweeps; ++s) {
        for (int c = 0; c < l->colours; ++c) {
            const int first = l->start[c], n = l->start[c + 1] - first;
            const int from = first + (int)((long)n * t->thread / t->threads);
            project(l, from, first + (int)((long)n * (t->thread + 1) / t->threads));
            if (t->threads > 1) {
                barrier_wait(t->bar, t->threads);
            }
        }
    }
    return NULL;
}

// Seconds for `sweeps` sweeps of l on `threads` threads (the calling one among them); < 0 when a
// thread would not start, after which the caller must exit.
static double timed_sweeps(lattice *l, int threads, long sweeps)
{
    static barrier bar;
    atomic_store(&bar.count, 0);
    atomic_store(&bar.generation, 0);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    sweep_task tasks[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    for (int k = 0; k < threads; ++k) {
        tasks[k] = (sweep_task){l, &bar, k > 0 ? &start : NULL, k, threads, sweeps}; // (thread 0: below)
    }
    for (int k = 1; k < threads; ++k) {
        if (pthread_create(&ids[k], NULL, sweep, &tasks[k]) != 0) {
            return -1.0; // (the caller exits: the threads that started wait at `start` for good)
        }
    }
    if (threads > 1) {
        pthread_barrier_wait(&start);
    }
    const double begin = bench_now_seconds();
    sweep(&tasks[0]);
    const double seconds = bench_now_seconds() - begin; // (the calling thread passed the last barrier)
    for (int k = 1; k < threads; ++k) {
        pthread_join(ids[k], NULL);
    }
    pthread_barrier_destroy(&start);
    return seconds;
}

static int compare_double(const void *p, const void *q)
{
    const double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return (n & 1) != 0 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int sizes[MAX_SIZES] = {2500, 5000, 10000, 20000, 40000}, size_count = 5;
    int threads = 2, rounds = 5;
    float seconds = 0.3f;
    bool ok = true;
    for (int k = 1; k < argc && ok; ++k) {
        if (strcmp(argv[k], "--balls") == 0 && k + 1 < argc) {
            char list[256];
            ok = strlen(argv[++k]) < sizeof list;
            size_count = 0;
            if (ok) {
                strcpy(list, argv[k]);
                for (char *s = strtok(list, ","); s != NULL && ok; s = strtok(NULL, ",")) {
                    ok = size_count < MAX_SIZES && bench_parse_int(s, 2 * COLUMNS, 10000000, &sizes[size_count++]);
                }
                ok = ok && size_count > 0;
            }
        } else if (strcmp(argv[k], "--threads") == 0 && k + 1 < argc) {
            ok = bench_parse_int(argv[++k], 2, MAX_THREADS, &threads);
        } else if (strcmp(argv[k], "--rounds") == 0 && k + 1 < argc) {
            ok = bench_parse_int(argv[++k], 1, 1000, &rounds);
        } else if (strcmp(argv[k], "--seconds") == 0 && k + 1 < argc) {
            ok = bench_parse_float(argv[++k], &seconds) && seconds > 0.0f && seconds <= 60.0f;
        } else {
            ok = false;
        }
    }
    if (!ok) {
        fprintf(stderr, "usage: sinew-sweep-ceiling [--balls N,N,... (each in %d..10000000, at most %d)] "
                        "[--threads T in 2..%d] [--rounds R in 1..1000] [--seconds S in (0, 60]]\n",
                2 * COLUMNS, MAX_SIZES, MAX_THREADS);
        return 2;
    }
    for (int z = 0; z < size_count; ++z) {
        lattice l;
        if (!lattice_make(&l, sizes[z])) {
            fprintf(stderr, "sinew-sweep-ceiling: no memory for %d balls\n", sizes[z]);
            lattice_free(&l);
            return 1;
        }
        // As many sweeps as take about `seconds` on one thread (after one sweep to warm the caches).
        timed_sweeps(&l, 1, 1);
        long sweeps = 1;
        double once;
        while ((once = timed_sweeps(&l, 1, sweeps)) < 0.05 * seconds) {
            sweeps *= 2;
        }
        sweeps = (long)((double)sweeps * seconds / once) + 1;
        double one[1000], many[1000], ratio[1000];
        for (int r = 0; r < rounds; ++r) {
            const bool one_first = (r & 1) == 0;
            const double first = timed_sweeps(&l, one_first ? 1 : threads, sweeps);
            const double second = timed_sweeps(&l, one_first ? threads : 1, sweeps);
            if (first < 0.0 || second < 0.0) {
                fprintf(stderr, "sinew-sweep-ceiling: a thread would not start\n");
                lattice_free(&l);
                return 1;
            }
            one[r] = one_first ? first : second;
            many[r] = one_first ? second : first;
            ratio[r] = one[r] / many[r];
        }
        const double per_colour = 1e6 / ((double)sweeps * l.colours);
        const double ns_per_contact = 1e9 * median(one, rounds) / ((double)sweeps * l.contacts);
        const double us1 = per_colour * median(one, rounds), usn = per_colour * median(many, rounds);
        const double speedup = median(ratio, rounds); // (sorts ratio: least first)
        printf("{\"tool\":\"sweep_ceiling\",\"balls\":%d,\"contacts\":%d,\"colours\":%d,\"threads\":%d,\"rounds\":%d,"
               "\"sweeps\":%ld,\"ns_per_contact_1\":%.3f,\"us_per_colour_1\":%.3f,\"us_per_colour_n\":%.3f,"
               "\"speedup\":%.3f,\"speedup_min\":%.3f,\"speedup_max\":%.3f}\n",
               l.balls, l.contacts, l.colours, threads, rounds, sweeps, ns_per_contact, us1, usn, speedup, ratio[0],
               ratio[rounds - 1]);
        fflush(stdout);
        lattice_free(&l);
    }
    return 0;
}
