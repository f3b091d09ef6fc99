// sinew-tune: which solver settings reach an error budget fastest for a scene, measured.
//
//   sinew-tune --scene rope|cloth|softbody|pile|ik [--size N|WxH] | --world FILE
//              [--modes gs,gs-alt,gs-shuffle,jacobi]
//              [--omega 1.0,1.5,1.8] [--iterations 1,2,4,8,16] [--substeps 1,2,4,8]
//              [--stiffness K] [--compliance C] [--steps N] [--warmup N] [--repeat R] [--budget E]
//              [--out DIR]
//
// For every setting (mode, omega, substeps, iterations) it builds the scene with the engine's
// builders (or loads the world saved in FILE by sinew_world_save, the demos' `w` key) and runs it `repeat` times to time each step with recording off, then once more to read
// the error after every iteration from sinew_world_iteration_errors (the engine is deterministic,
// so every run follows the same trajectory). It writes DIR/results.csv, DIR/error_vs_iteration.svg
// and DIR/error_vs_time.svg and prints, for each mode, the cheapest setting that reaches the budget.
// docs/tuning.md explains the columns and the metric.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sinew/sinew.h>

#include "tune_scene.h"
#include "tune_svg.h"
#include "bench_util.h"

#define DT (1.0f / 60.0f)
#define MAX_OMEGAS 16
#define MAX_LIST 1024 // iterations and substeps are 1..1024
#define MAX_SETTINGS 20000
#define CSV_HEADER "scene,mode,omega,substeps,iterations,iteration,max_error,rms_error,ns_per_step"

typedef struct mode_info {
    const char *name;
    sinew_solver_mode mode;
    sinew_gs_order order;
} mode_info;

static const mode_info modes_known[] = {
    {"gs", SINEW_SOLVER_GAUSS_SEIDEL, SINEW_GS_ORDER_CREATED},
    {"gs-alt", SINEW_SOLVER_GAUSS_SEIDEL, SINEW_GS_ORDER_ALTERNATING},
    {"gs-shuffle", SINEW_SOLVER_GAUSS_SEIDEL, SINEW_GS_ORDER_SHUFFLE},
    {"jacobi", SINEW_SOLVER_JACOBI, SINEW_GS_ORDER_CREATED},
};
#define MODE_COUNT ((int)(sizeof modes_known / sizeof modes_known[0]))

typedef struct options {
    tune_scene_def scene;
    int modes[MODE_COUNT]; // indices into modes_known, in the order given
    int mode_count;
    double omegas[MAX_OMEGAS];
    int omega_count;
    int iterations[MAX_LIST];
    int iteration_count;
    int substeps[MAX_LIST];
    int substep_count;
    int steps, warmup, repeat;
    double budget; // relative to the scene's rest length
    const char *out;
    void *world_bytes; // --world: the file's bytes (owned)
} options;

// One setting and what was measured with it.
typedef struct result {
    int mode;      // index into modes_known
    double omega;  // Jacobi only; NaN for Gauss-Seidel
    int omega_index;
    int substeps, iterations;
    double *max_error; // iterations + 1 samples: after iteration k of the last sub-step, mean over steps
    double *rms_error; // the same for the RMS error over the constraints, mean over steps
    double ns_per_step; // the median over `repeat` interleaved rounds of each round's median step time
    double ns_lo, ns_hi; // the fastest and slowest round: the spread of the timing
    double projections; // constraint projections per step (sub-steps x iterations x constraints), mean
    long resets;        // particle sub-steps the engine reset (a diverging setting)
} result;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sinew-tune --scene rope|cloth|softbody|pile|ik [options]\n"
            "       sinew-tune --world FILE [options]\n"
            "  --world FILE       a world saved by sinew_world_save (the demos' w key): every setting\n"
            "                     starts from it; errors of every kind, in metres\n"
            "  --size N|WxH       rope links (40), cloth columns x rows (20x20), soft body points (24),\n"
            "                     pile balls (100), IK arm segments (10)\n"
            "  --modes LIST       of gs, gs-alt, gs-shuffle, jacobi (default all four)\n"
            "  --omega LIST       Jacobi over-relaxation, each in (0, 2) (default 1.0,1.5,1.8)\n"
            "  --iterations LIST  iterations per sub-step, 1..1024 (default 1,2,4,8,16)\n"
            "  --substeps LIST    sub-steps per step, 1..1024 (default 1,2,4,8)\n"
            "  --stiffness K      stiffness of the scene's links, (0, 1] (default 1; not for the pile)\n"
            "  --compliance C     XPBD compliance of the scene's links, m/N >= 0 (default 0; not for the pile)\n"
            "  --steps N          measured steps per setting (default 60; steps are 1/60 s)\n"
            "  --warmup N         steps run before measuring (default 30)\n"
            "  --repeat R         timing rounds, every setting once a round; the median counts (default 5)\n"
            "  --budget E         error budget as a fraction of the rest length, or a percentage\n"
            "                     with %% (default 0.01 = 1%%)\n"
            "  --out DIR          where results.csv and the SVG plots go (default tune-SCENE)\n"
            "A LIST is comma-separated; integer lists also take ranges: 1..8,16.\n");
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("sinew-tune: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n(sinew-tune --help lists the options)\n", stderr);
    va_end(ap);
    return 2;
}

// "1,2,4" or "1..8,16": sorted, without repeats, each in 1..1024.
static bool parse_int_list(const char *text, int *values, int *count)
{
    bool seen[MAX_LIST + 1] = {false};
    char buf[256];
    if (strlen(text) >= sizeof buf || text[0] == '\0') {
        return false;
    }
    strcpy(buf, text);
    char *save = NULL;
    int items = 0;
    for (char *item = buf;; item = NULL) {
        char *tok = strtok_r(item, ",", &save);
        if (tok == NULL) {
            break;
        }
        items += 1;
        long lo, hi;
        char *dots = strstr(tok, "..");
        if (dots != NULL) {
            *dots = '\0';
            if (!bench_parse_long(tok, 1, MAX_LIST, &lo) || !bench_parse_long(dots + 2, 1, MAX_LIST, &hi) || hi < lo) {
                return false;
            }
        } else if (!bench_parse_long(tok, 1, MAX_LIST, &lo)) {
            return false;
        } else {
            hi = lo;
        }
        for (long v = lo; v <= hi; ++v) {
            seen[v] = true;
        }
    }
    // strtok_r skips empty items; refuse them ("1,,2", ",1", "1,")
    if (strstr(text, ",,") != NULL || text[0] == ',' || text[strlen(text) - 1] == ',' || items == 0) {
        return false;
    }
    *count = 0;
    for (int v = 1; v <= MAX_LIST; ++v) {
        if (seen[v]) {
            values[(*count)++] = v;
        }
    }
    return true;
}

// Splits a comma list into at most `max` items; false on an empty item or too many.
static int split_list(const char *text, char items[][32], int max)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= 32 || n == max) {
            return -1;
        }
        memcpy(items[n], p, len);
        items[n][len] = '\0';
        n += 1;
        if (comma == NULL) {
            return n;
        }
        p = comma + 1;
    }
}

static int parse_modes(const char *text, options *o)
{
    char items[8][32];
    int n = split_list(text, items, 8);
    if (n < 0) {
        return fail("--modes takes a comma-separated list of gs, gs-alt, gs-shuffle, jacobi; got '%s'", text);
    }
    o->mode_count = 0;
    for (int k = 0; k < n; ++k) {
        int found = -1;
        for (int m = 0; m < MODE_COUNT; ++m) {
            if (strcmp(items[k], modes_known[m].name) == 0) {
                found = m;
            }
        }
        if (found < 0) {
            return fail("unknown mode '%s' (known: gs, gs-alt, gs-shuffle, jacobi)", items[k]);
        }
        bool dup = false;
        for (int j = 0; j < o->mode_count; ++j) {
            dup = dup || o->modes[j] == found;
        }
        if (!dup) {
            o->modes[o->mode_count++] = found;
        }
    }
    return 0;
}

static int parse_omegas(const char *text, options *o)
{
    char items[MAX_OMEGAS][32];
    int n = split_list(text, items, MAX_OMEGAS);
    if (n < 0) {
        return fail("--omega takes a comma-separated list of up to %d numbers in (0, 2); got '%s'", MAX_OMEGAS, text);
    }
    o->omega_count = 0;
    for (int k = 0; k < n; ++k) {
        char *end;
        errno = 0;
        double w = strtod(items[k], &end);
        if (end == items[k] || *end != '\0' || errno != 0) {
            return fail("--omega: '%s' is not a number", items[k]);
        }
        if (!(w > 0.0 && w < 2.0)) {
            return fail("Jacobi omega must be in (0, 2), got %s: at 2 and above the over-relaxed iteration "
                        "diverges, at 0 it does nothing",
                        items[k]);
        }
        bool dup = false;
        for (int j = 0; j < o->omega_count; ++j) {
            dup = dup || o->omegas[j] == w;
        }
        if (!dup) {
            o->omegas[o->omega_count++] = w;
        }
    }
    return 0;
}

// Reads a saved world into o->scene (and o->world_bytes), checking that it loads. 0, or 2 with a
// message.
static int read_world(const char *path, options *o)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return fail("cannot open --world %s: %s", path, strerror(errno));
    }
    size_t size = 0, cap = 0;
    unsigned char *bytes = NULL;
    for (;;) {
        if (size == cap) {
            cap = cap != 0 ? 2 * cap : 65536;
            unsigned char *grown = realloc(bytes, cap);
            if (grown == NULL) {
                free(bytes);
                fclose(f);
                return fail("--world %s: out of memory", path);
            }
            bytes = grown;
        }
        const size_t got = fread(bytes + size, 1, cap - size, f);
        if (got == 0) {
            break;
        }
        size += got;
    }
    const bool read_error = ferror(f) != 0;
    fclose(f);
    const char *reason = "";
    const sinew_status s = read_error ? SINEW_OK : sinew_snapshot_check(bytes, size, &reason);
    if (read_error || s != SINEW_OK) {
        free(bytes);
        return fail("--world %s: %s", path, read_error ? "read error" : reason);
    }
    o->world_bytes = bytes;
    o->scene = tune_scene_default(TUNE_WORLD);
    o->scene.snapshot = bytes;
    o->scene.snapshot_size = size;
    o->scene.path = path;
    return 0;
}

// Returns 0 to go on, 1 to exit with 0 (help), 2 on a bad argument (message printed).
static int parse_args(int argc, char **argv, options *o)
{
    const char *scene = NULL, *size = NULL, *stiffness = NULL, *compliance = NULL, *world = NULL;
    const char *modes = "gs,gs-alt,gs-shuffle,jacobi", *omegas = "1.0,1.5,1.8";
    const char *iterations = "1,2,4,8,16", *substeps = "1,2,4,8";
    char inline_value[512];
    o->steps = 60;
    o->warmup = 30;
    o->repeat = 5;
    o->budget = 0.01;
    o->out = NULL;
    for (int k = 1; k < argc; ++k) {
        const char *a = argv[k];
        const char *v = NULL;
        char name[64];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        }
        if (strncmp(a, "--", 2) != 0) {
            return fail("unexpected argument '%s' (options start with --)", a);
        }
        const char *eq = strchr(a, '=');
        if (eq != NULL) { // --name=value
            size_t len = (size_t)(eq - a);
            if (len >= sizeof name || strlen(eq + 1) >= sizeof inline_value) {
                return fail("argument too long: '%s'", a);
            }
            memcpy(name, a, len);
            name[len] = '\0';
            strcpy(inline_value, eq + 1);
            v = inline_value;
        } else {
            if (strlen(a) >= sizeof name) {
                return fail("unknown option '%s'", a);
            }
            strcpy(name, a);
        }
        static const char *const known[] = {"--scene",  "--size",  "--modes",  "--omega",     "--iterations",
                                            "--substeps", "--steps", "--warmup", "--budget",    "--out",
                                            "--stiffness", "--compliance", "--repeat", "--world"};
        bool is_known = false;
        for (size_t j = 0; j < sizeof known / sizeof known[0]; ++j) {
            is_known = is_known || strcmp(name, known[j]) == 0;
        }
        if (!is_known) {
            return fail("unknown option '%s'", name);
        }
        if (v == NULL) {
            if (k + 1 >= argc) {
                return fail("option %s needs a value", name);
            }
            v = argv[++k];
        }
        if (strcmp(name, "--scene") == 0) {
            scene = v;
        } else if (strcmp(name, "--world") == 0) {
            world = v;
        } else if (strcmp(name, "--size") == 0) {
            size = v;
        } else if (strcmp(name, "--modes") == 0) {
            modes = v;
        } else if (strcmp(name, "--omega") == 0) {
            omegas = v;
        } else if (strcmp(name, "--iterations") == 0) {
            iterations = v;
        } else if (strcmp(name, "--substeps") == 0) {
            substeps = v;
        } else if (strcmp(name, "--stiffness") == 0) {
            stiffness = v;
        } else if (strcmp(name, "--compliance") == 0) {
            compliance = v;
        } else if (strcmp(name, "--steps") == 0 || strcmp(name, "--warmup") == 0 || strcmp(name, "--repeat") == 0) {
            const bool warmup = strcmp(name, "--warmup") == 0, repeat = strcmp(name, "--repeat") == 0;
            const long hi = repeat ? 100 : 1000000;
            long n;
            if (!bench_parse_long(v, warmup ? 0 : 1, hi, &n)) {
                return fail("%s takes a whole number, %d..%ld; got '%s'", name, warmup ? 0 : 1, hi, v);
            }
            *(warmup ? &o->warmup : repeat ? &o->repeat : &o->steps) = (int)n;
        } else if (strcmp(name, "--budget") == 0) {
            char *end;
            errno = 0;
            double b = strtod(v, &end);
            const bool percent = *end == '%';
            if (end == v || errno != 0 || *(end + percent) != '\0' || !(b > 0.0) || !isfinite(b)) {
                return fail("--budget takes a positive fraction of the rest length (0.01) or a percentage (1%%); got "
                            "'%s'",
                            v);
            }
            o->budget = percent ? b / 100.0 : b;
        } else { // --out
            if (v[0] == '\0') {
                return fail("--out needs a directory name");
            }
            o->out = v;
        }
    }
    if (world != NULL) {
        if (scene != NULL || size != NULL || stiffness != NULL || compliance != NULL) {
            return fail("--world takes the world as saved: not with --scene, --size, --stiffness or --compliance");
        }
        int status = read_world(world, o);
        if (status != 0) {
            return status;
        }
    } else if (scene == NULL) {
        return fail("--scene or --world is required (known scenes: %s)", tune_scene_known());
    }
    tune_scene_kind kind = TUNE_WORLD;
    if (world == NULL && !tune_scene_parse(scene, &kind)) {
        return fail("unknown scene '%s' (known scenes: %s)", scene, tune_scene_known());
    }
    if (world == NULL) {
        o->scene = tune_scene_default(kind);
    }
    char why[160];
    if (size != NULL && !tune_scene_parse_size(&o->scene, size, why, sizeof why)) {
        return fail("bad --size '%s': %s", size, why);
    }
    if ((stiffness != NULL || compliance != NULL) && !tune_scene_has_links(kind)) {
        return fail("the %s has no links: --stiffness and --compliance do not apply", tune_scene_name(kind));
    }
    if (stiffness != NULL) {
        char *end;
        double k = strtod(stiffness, &end);
        if (end == stiffness || *end != '\0' || !(k > 0.0 && k <= 1.0)) {
            return fail("--stiffness takes a number in (0, 1]; got '%s'", stiffness);
        }
        o->scene.stiffness = (float)k;
    }
    if (compliance != NULL) {
        char *end;
        double c = strtod(compliance, &end);
        if (end == compliance || *end != '\0' || !(c >= 0.0) || !isfinite(c) || c > 1e30) {
            return fail("--compliance takes a finite number of m/N >= 0; got '%s'", compliance);
        }
        o->scene.compliance = (float)c;
    }
    int status = parse_modes(modes, o);
    if (status == 0) {
        status = parse_omegas(omegas, o);
    }
    if (status != 0) {
        return status;
    }
    if (!parse_int_list(iterations, o->iterations, &o->iteration_count)) {
        return fail("--iterations takes a list of counts 1..1024 such as 1,2,4 or 1..50; got '%s'", iterations);
    }
    if (!parse_int_list(substeps, o->substeps, &o->substep_count)) {
        return fail("--substeps takes a list of counts 1..1024 such as 1,2,4,8 or 1..8; got '%s'", substeps);
    }
    return 0;
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static sinew_solver_def solver_of(const result *r)
{
    sinew_solver_def s = sinew_default_solver_def();
    s.mode = modes_known[r->mode].mode;
    s.order = modes_known[r->mode].order;
    if (s.mode == SINEW_SOLVER_JACOBI) {
        s.jacobi_omega = (float)r->omega;
    }
    s.substeps = r->substeps;
    s.iterations = r->iterations;
    return s;
}

static bool step_checked(tune_scene *sc, char *why, size_t why_size)
{
    tune_scene_update(sc, DT);
    sinew_status s = sinew_world_step(sc->world, DT);
    if (s != SINEW_OK) {
        snprintf(why, why_size, "sinew_world_step failed: %s (%s)", sinew_status_string(s),
                 sinew_world_last_error(sc->world));
        return false;
    }
    return true;
}

// One timed run of a setting, recording off: the median time of the measured steps.
static bool time_run(const options *o, const sinew_solver_def *solver, double *times, double *median, char *why,
                     size_t why_size)
{
    tune_scene sc;
    if (tune_scene_create(&o->scene, solver, &sc, why, why_size) != SINEW_OK) {
        return false;
    }
    bool ok = true;
    for (int k = 0; k < o->warmup && ok; ++k) {
        ok = step_checked(&sc, why, why_size);
    }
    for (int k = 0; k < o->steps && ok; ++k) {
        tune_scene_update(&sc, DT);
        const double t0 = bench_now_seconds();
        sinew_status s = sinew_world_step(sc.world, DT);
        times[k] = 1e9 * (bench_now_seconds() - t0); // ns
        if (s != SINEW_OK) {
            snprintf(why, why_size, "sinew_world_step failed: %s", sinew_status_string(s));
            ok = false;
        }
    }
    tune_scene_destroy(&sc);
    if (ok) {
        qsort(times, (size_t)o->steps, sizeof *times, compare_double);
        *median = o->steps % 2 == 1 ? times[o->steps / 2] : 0.5 * (times[o->steps / 2 - 1] + times[o->steps / 2]);
    }
    return ok;
}

// Measures one setting: `repeat` timed runs (recording off; the fastest median counts, as other
// programs on the machine only ever slow a run down), then a recorded run of the same steps.
// The error after every iteration (mean over the measured steps) and the projections per step of
// a setting, from one run with recording on. Deterministic: every run follows the same trajectory.
static bool record_errors(const options *o, result *r, char *why, size_t why_size)
{
    const sinew_solver_def solver = solver_of(r);
    tune_scene sc;
    bool ok = true;
    if (tune_scene_create(&o->scene, &solver, &sc, why, why_size) != SINEW_OK) {
        return false;
    }
    for (int k = 0; k < o->warmup && ok; ++k) {
        ok = step_checked(&sc, why, why_size);
    }
    sinew_status s = sinew_world_record_iterations(sc.world, true);
    if (ok && s != SINEW_OK) {
        snprintf(why, why_size, "sinew_world_record_iterations failed: %s", sinew_status_string(s));
        ok = false;
    }
    const int n = r->iterations + 1;
    for (int k = 0; k < n; ++k) {
        r->max_error[k] = 0.0;
        r->rms_error[k] = 0.0;
    }
    const double inv_rest = 1.0 / (double)sc.rest_length;
    r->projections = 0.0;
    for (int k = 0; k < o->steps && ok; ++k) {
        ok = step_checked(&sc, why, why_size);
        const sinew_step_stats st = sinew_world_stats(sc.world);
        r->resets += ok ? st.reset_particles : 0;
        for (int kind = 0; kind < SINEW_KIND_COUNT && ok; ++kind) {
            r->projections += (double)st.substeps * st.iterations * st.kinds[kind].count;
        }
        int substeps = 0, iterations = 0;
        const sinew_error_sample *e = ok ? sinew_world_iteration_errors(sc.world, sc.metric, &substeps, &iterations)
                                         : NULL;
        if (ok && (e == NULL || substeps != r->substeps || iterations != r->iterations)) {
            snprintf(why, why_size, "sinew_world_iteration_errors gave no history of the step's settings");
            ok = false;
        }
        if (!ok) {
            break;
        }
        const sinew_error_sample *last = e + (size_t)(substeps - 1) * (size_t)n; // the last sub-step
        for (int i = 0; i < n; ++i) {
            const double mx = (double)last[i].max_error * inv_rest, rms = (double)last[i].rms_error * inv_rest;
            r->max_error[i] += mx;
            r->rms_error[i] += rms;
        }
    }
    tune_scene_destroy(&sc);
    for (int i = 0; i < n; ++i) {
        r->max_error[i] /= (double)o->steps;
        r->rms_error[i] /= (double)o->steps;
    }
    r->projections /= (double)o->steps;
    return ok;
}

// The median of n values (sorted in place).
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Times every setting in `repeat` rounds, each round running every setting once in turn (so a
// machine that slows down for a while slows every setting alike): each setting's time is the
// median of its rounds' medians, its spread their range.
static bool time_settings(const options *o, result *results, int count, double *times, char *why, size_t why_size,
                          bool progress)
{
    double *rounds = calloc((size_t)count * (size_t)o->repeat, sizeof *rounds);
    if (rounds == NULL) {
        snprintf(why, why_size, "out of memory");
        return false;
    }
    bool ok = true;
    for (int round = 0; round < o->repeat && ok; ++round) {
        for (int k = 0; k < count && ok; ++k) {
            if (progress) {
                fprintf(stderr, "\rtiming: round %d/%d, setting %d/%d   ", round + 1, o->repeat, k + 1, count);
            }
            const sinew_solver_def solver = solver_of(&results[k]);
            ok = time_run(o, &solver, times, &rounds[(size_t)k * (size_t)o->repeat + (size_t)round], why, why_size);
        }
    }
    for (int k = 0; k < count && ok; ++k) {
        double *mine = &rounds[(size_t)k * (size_t)o->repeat];
        results[k].ns_per_step = median_of(mine, o->repeat); // sorts: mine[0] is the fastest round
        results[k].ns_lo = mine[0];
        results[k].ns_hi = mine[o->repeat - 1];
    }
    free(rounds);
    return ok;
}

// "jacobi omega 1.5, 4 x 2" (short) or "jacobi omega 1.5, 4 sub-steps x 2 iterations".
static void setting_text(const result *r, bool words, char *buf, size_t size)
{
    char omega[32] = "";
    if (modes_known[r->mode].mode == SINEW_SOLVER_JACOBI) {
        snprintf(omega, sizeof omega, " omega %.3g", r->omega);
    }
    if (words) {
        snprintf(buf, size, "%s%s, %d sub-step%s x %d iteration%s", modes_known[r->mode].name, omega, r->substeps,
                 r->substeps == 1 ? "" : "s", r->iterations, r->iterations == 1 ? "" : "s");
    } else {
        snprintf(buf, size, "%s%s %dx%d", modes_known[r->mode].name, omega, r->substeps, r->iterations);
    }
}

// End-of-step error of a setting, and whether it counts (finite, nothing reset).
static double end_error(const result *r) { return r->max_error[r->iterations]; }
static bool usable(const result *r) { return r->resets == 0 && isfinite(end_error(r)); }

static bool path_join(char *buf, size_t size, const char *dir, const char *name)
{
    int n = snprintf(buf, size, "%s/%s", dir, name);
    return n > 0 && (size_t)n < size;
}

static bool write_csv(const options *o, const result *results, int count, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return false;
    }
    const char *scene = tune_scene_name(o->scene.kind);
    fprintf(f, "%s\n", CSV_HEADER);
    for (int k = 0; k < count; ++k) {
        const result *r = &results[k];
        char omega[32] = "";
        if (modes_known[r->mode].mode == SINEW_SOLVER_JACOBI) {
            snprintf(omega, sizeof omega, "%g", r->omega);
        }
        for (int i = 0; i <= r->iterations; ++i) {
            fprintf(f, "%s,%s,%s,%d,%d,%d,%.6g,%.6g,%.1f\n", scene, modes_known[r->mode].name, omega, r->substeps,
                    r->iterations, i, r->max_error[i], r->rms_error[i], r->ns_per_step);
        }
    }
    const bool ok = ferror(f) == 0;
    return fclose(f) == 0 && ok;
}

// The plots: one line per (mode, omega, substeps). Colour by mode and omega, dash by substeps.
// Results are ordered mode, omega, substeps, iterations, so a line is `per_line` consecutive results.
static bool write_plots(const options *o, const result *results, int count, char *why, size_t why_size)
{
    const int per_line = o->iteration_count;
    const int lines = count / per_line;
    const int max_iterations = o->iterations[per_line - 1];
    const size_t it_points = (size_t)lines * (size_t)(max_iterations + 1), t_points = (size_t)count;
    tune_series *series = calloc((size_t)lines * 2, sizeof *series);
    char(*labels)[96] = calloc((size_t)lines, sizeof *labels);
    double *data = calloc(2 * (it_points + t_points), sizeof *data);
    if (series == NULL || labels == NULL || data == NULL) {
        free(series);
        free(labels);
        free(data);
        snprintf(why, why_size, "out of memory");
        return false;
    }
    double *it_x = data, *it_y = data + it_points, *t_x = data + 2 * it_points, *t_y = t_x + t_points;
    for (int l = 0; l < lines; ++l) {
        const result *first = &results[l * per_line];
        const result *longest = &results[l * per_line + per_line - 1];
        int color = 0; // index of (mode, omega) among the ones measured
        for (int m = 0; m < o->mode_count; ++m) {
            if (o->modes[m] == first->mode) {
                color += first->omega_index;
                break;
            }
            color += modes_known[o->modes[m]].mode == SINEW_SOLVER_JACOBI ? o->omega_count : 1;
        }
        const char *sub = first->substeps == 1 ? "sub-step" : "sub-steps";
        if (modes_known[first->mode].mode == SINEW_SOLVER_JACOBI) {
            snprintf(labels[l], sizeof labels[l], "%s omega %.3g, %d %s", modes_known[first->mode].name, first->omega,
                     first->substeps, sub);
        } else {
            snprintf(labels[l], sizeof labels[l], "%s, %d %s", modes_known[first->mode].name, first->substeps, sub);
        }
        double *x = it_x + (size_t)l * (size_t)(max_iterations + 1), *y = it_y + (size_t)l * (size_t)(max_iterations + 1);
        for (int i = 0; i <= max_iterations; ++i) {
            x[i] = i;
            y[i] = longest->max_error[i];
        }
        // One dimension alone (a single mode and omega, or a single sub-step count) gets the colours.
        int dash = l % o->substep_count;
        if (lines == o->substep_count) {
            color = dash;
            dash = 0;
        }
        series[l] = (tune_series){labels[l], x, y, max_iterations + 1, color, dash};
        x = t_x + (size_t)l * (size_t)per_line;
        y = t_y + (size_t)l * (size_t)per_line;
        for (int j = 0; j < per_line; ++j) {
            x[j] = 1e-3 * results[l * per_line + j].ns_per_step;
            y[j] = end_error(&results[l * per_line + j]);
        }
        series[lines + l] = (tune_series){labels[l], x, y, per_line, color, dash};
    }

    char title[160], scene_title[64], x_label[200], y_label[160], budget_label[96], path[4200];
    tune_scene_title(&o->scene, scene_title, sizeof scene_title);
    snprintf(budget_label, sizeof budget_label, "budget %.3g", o->budget);
    tune_plot p = {0};
    p.y_floor = 1e-7;
    p.y_ceiling = 100.0;
    p.hline = o->budget;
    p.hline_label = budget_label;

    snprintf(title, sizeof title, "%s: error after each iteration (last sub-step)", scene_title);
    snprintf(x_label, sizeof x_label, "iteration within the sub-step (0 = before the first), %d per sub-step",
             max_iterations);
    snprintf(y_label, sizeof y_label, "%s (log scale)", tune_scene_metric_label(o->scene.kind));
    p.title = title;
    p.x_label = x_label;
    p.y_label = y_label;
    p.x_log = false;
    p.series = series;
    p.series_count = lines;
    bool ok = path_join(path, sizeof path, o->out, "error_vs_iteration.svg") && tune_plot_write(path, &p);

    char list[120] = "";
    for (int j = 0; j < per_line; ++j) {
        char item[16];
        snprintf(item, sizeof item, "%s%d", j == 0 ? "" : ",", o->iterations[j]);
        if (strlen(list) + strlen(item) + 4 >= sizeof list) {
            strcat(list, ",...");
            break;
        }
        strcat(list, item);
    }
    snprintf(title, sizeof title, "%s: error at the end of a step against its time", scene_title);
    snprintf(x_label, sizeof x_label, "\xc2\xb5s per step (log scale); points: %s iterations per sub-step", list);
    snprintf(y_label, sizeof y_label, "%s, end of step (log scale)", tune_scene_metric_label(o->scene.kind));
    p.x_log = true;
    p.series = series + lines;
    ok = ok && path_join(path, sizeof path, o->out, "error_vs_time.svg") && tune_plot_write(path, &p);
    if (!ok) {
        snprintf(why, why_size, "cannot write the plots in '%s': %s", o->out, strerror(errno));
    }
    free(series);
    free(labels);
    free(data);
    return ok;
}

// Whether setting a needs less work than setting b to reach the budget: fewer projections per
// step (deterministic), then fewer sub-steps, then fewer iterations, then the order given.
static bool less_work(const result *a, const result *b)
{
    if (a->projections != b->projections) {
        return a->projections < b->projections;
    }
    if (a->substeps != b->substeps) {
        return a->substeps < b->substeps;
    }
    return a->iterations < b->iterations;
}

// Two timings are tied when their spreads (fastest to slowest round) overlap.
static bool tied(const result *a, const result *b) { return a->ns_lo <= b->ns_hi && b->ns_lo <= a->ns_hi; }

// The verdict ranks by work, which is deterministic, so that the same inputs always give the same
// verdict; time follows, as medians with their spreads, and two settings whose spreads overlap
// are called tied rather than ranked by noise.
static void print_verdict(const options *o, const result *results, int count)
{
    int best[MODE_COUNT];
    int best_error[MODE_COUNT];
    int mode_settings[MODE_COUNT];
    for (int m = 0; m < MODE_COUNT; ++m) {
        best[m] = best_error[m] = -1;
        mode_settings[m] = 0;
    }
    for (int k = 0; k < count; ++k) {
        const result *r = &results[k];
        const int m = r->mode;
        mode_settings[m] += 1;
        if (!usable(r)) {
            continue;
        }
        if (best_error[m] < 0 || end_error(r) < end_error(&results[best_error[m]])) {
            best_error[m] = k;
        }
        if (end_error(r) <= o->budget && (best[m] < 0 || less_work(r, &results[best[m]]))) {
            best[m] = k;
        }
    }
    int winner = -1, fastest = -1;
    for (int j = 0; j < o->mode_count; ++j) {
        const int m = o->modes[j];
        if (best[m] >= 0 && (winner < 0 || less_work(&results[best[m]], &results[best[winner]]))) {
            winner = m;
        }
        if (best[m] >= 0 && (fastest < 0 || results[best[m]].ns_per_step < results[best[fastest]].ns_per_step)) {
            fastest = m;
        }
    }
    printf("budget: max error at the end of a step, mean over the measured steps, <= %.4g of the rest length\n",
           o->budget);
    printf("least work per mode that reaches it (projections per step, error; time per step: median [fastest, "
           "slowest round]):\n");
    for (int j = 0; j < o->mode_count; ++j) {
        const int m = o->modes[j];
        char text[96];
        if (best[m] >= 0) {
            const result *r = &results[best[m]];
            setting_text(r, true, text, sizeof text);
            printf("  %-44s %12.0f  %.3g  %9.2f us [%.2f, %.2f]\n", text, r->projections, end_error(r),
                   1e-3 * r->ns_per_step, 1e-3 * r->ns_lo, 1e-3 * r->ns_hi);
        } else if (best_error[m] >= 0) {
            setting_text(&results[best_error[m]], true, text, sizeof text);
            printf("  %-10s none of its %d settings reaches the budget; the best, %s, ends at %.3g\n",
                   modes_known[m].name, mode_settings[m], text, end_error(&results[best_error[m]]));
        } else {
            printf("  %-10s every one of its %d settings diverged\n", modes_known[m].name, mode_settings[m]);
        }
    }
    if (winner >= 0) {
        char text[96];
        setting_text(&results[best[winner]], true, text, sizeof text);
        printf("verdict: %s reaches the budget with the least work (%s)", modes_known[winner].name, text);
        for (int j = 0; j < o->mode_count; ++j) {
            const int m = o->modes[j];
            if (m != winner && best[m] >= 0) {
                const double ratio = results[best[m]].projections / results[best[winner]].projections;
                if (ratio < 1.005) {
                    printf("; %s needs as many", modes_known[m].name);
                } else {
                    printf("; %s needs %.2fx its projections", modes_known[m].name, ratio);
                }
            }
        }
        printf("\n");
        // Time: the fastest by median, and every mode whose spread overlaps it is tied with it.
        printf("time: fastest %s", modes_known[fastest].name);
        int ties = 0;
        for (int j = 0; j < o->mode_count; ++j) {
            const int m = o->modes[j];
            if (m != fastest && best[m] >= 0 && tied(&results[best[m]], &results[best[fastest]])) {
                printf("%s %s", ties == 0 ? ", tied with (spreads overlap):" : ",", modes_known[m].name);
                ties += 1;
            }
        }
        for (int j = 0; j < o->mode_count; ++j) {
            const int m = o->modes[j];
            if (m != fastest && best[m] >= 0 && !tied(&results[best[m]], &results[best[fastest]])) {
                printf("; %s takes %.2fx its time", modes_known[m].name,
                       results[best[m]].ns_per_step / results[best[fastest]].ns_per_step);
            }
        }
        printf("\n");
    } else {
        printf("verdict: no setting reaches the budget; try more sub-steps or iterations, or a larger --budget\n");
    }
    // Diverged settings, shortly.
    int diverged = 0;
    for (int k = 0; k < count; ++k) {
        const result *r = &results[k];
        if (!usable(r) || end_error(r) > 0.1) {
            char text[96];
            setting_text(r, false, text, sizeof text);
            if (diverged < 8) {
                printf("%s%s", diverged == 0 ? "unusable (end error above 10% of the rest length, NaN, or particles reset): " : "; ",
                       text);
            }
            diverged += 1;
        }
    }
    if (diverged > 8) {
        printf("; and %d more", diverged - 8);
    }
    if (diverged > 0) {
        printf("\n");
    }
}

static bool make_dir(const char *dir, char *why, size_t why_size)
{
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(why, why_size, "cannot create the output directory '%s': %s", dir, strerror(errno));
        return false;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "'%s' is not a directory", dir);
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    int status = parse_args(argc, argv, &o);
    if (status != 0) {
        return status == 1 ? 0 : 2;
    }
    char default_out[64];
    if (o.out == NULL) {
        snprintf(default_out, sizeof default_out, "tune-%s", tune_scene_name(o.scene.kind));
        o.out = default_out;
    }

    // Settings in the order mode, omega, substeps, iterations (the plots rely on it).
    int count = 0;
    for (int j = 0; j < o.mode_count; ++j) {
        const int omegas = modes_known[o.modes[j]].mode == SINEW_SOLVER_JACOBI ? o.omega_count : 1;
        count += omegas * o.substep_count * o.iteration_count;
    }
    if (count > MAX_SETTINGS) {
        return fail("%d settings is too many (at most %d): shorten the lists", count, MAX_SETTINGS);
    }
    char why[512];
    if (!make_dir(o.out, why, sizeof why)) {
        fprintf(stderr, "sinew-tune: %s\n", why);
        return 1;
    }
    size_t sample_count = 0; // two arrays of iterations + 1 samples per setting
    for (int j = 0; j < o.mode_count; ++j) {
        const int omegas = modes_known[o.modes[j]].mode == SINEW_SOLVER_JACOBI ? o.omega_count : 1;
        for (int i = 0; i < o.iteration_count; ++i) {
            sample_count += 2 * (size_t)(o.iterations[i] + 1) * (size_t)omegas * (size_t)o.substep_count;
        }
    }
    result *results = calloc((size_t)count, sizeof *results);
    double *times = calloc((size_t)o.steps, sizeof *times);
    double *samples = calloc(sample_count, sizeof *samples);
    if (results == NULL || times == NULL || samples == NULL) {
        fprintf(stderr, "sinew-tune: out of memory\n");
        return 1;
    }
    int k = 0;
    double *next = samples;
    for (int j = 0; j < o.mode_count; ++j) {
        const bool jacobi = modes_known[o.modes[j]].mode == SINEW_SOLVER_JACOBI;
        for (int w = 0; w < (jacobi ? o.omega_count : 1); ++w) {
            for (int s = 0; s < o.substep_count; ++s) {
                for (int i = 0; i < o.iteration_count; ++i, ++k) {
                    result *r = &results[k];
                    r->mode = o.modes[j];
                    r->omega = jacobi ? o.omegas[w] : NAN;
                    r->omega_index = jacobi ? w : 0;
                    r->substeps = o.substeps[s];
                    r->iterations = o.iterations[i];
                    r->max_error = next;
                    r->rms_error = next + r->iterations + 1;
                    next += 2 * (r->iterations + 1);
                }
            }
        }
    }

    char description[400];
    tune_scene_describe(&o.scene, description, sizeof description);
    printf("scene: %s\n", description);
    printf("measured: %d settings, each %d warm-up + %d measured steps of 1/60 s; errors from one run with recording "
           "on; time per step = median over %d interleaved rounds (every setting once a round) of each round's median, "
           "recording off\n",
           count, o.warmup, o.steps, o.repeat);
    fflush(stdout);
    const bool progress = isatty(STDERR_FILENO) != 0;
    int exit_code = 0;
    for (k = 0; k < count; ++k) {
        if (progress) {
            char text[96];
            setting_text(&results[k], false, text, sizeof text);
            fprintf(stderr, "\r[%d/%d] %-40s", k + 1, count, text);
        }
        if (!record_errors(&o, &results[k], why, sizeof why)) {
            char text[96];
            setting_text(&results[k], true, text, sizeof text);
            fprintf(stderr, "%ssinew-tune: %s: %s\n", progress ? "\n" : "", text, why);
            exit_code = 1;
            break;
        }
    }
    if (exit_code == 0 && !time_settings(&o, results, count, times, why, sizeof why, progress)) {
        fprintf(stderr, "%ssinew-tune: timing: %s\n", progress ? "\n" : "", why);
        exit_code = 1;
    }
    if (progress) {
        fprintf(stderr, "\r%60s\r", "");
    }
    char path[4200];
    if (exit_code == 0) {
        if (!path_join(path, sizeof path, o.out, "results.csv") || !write_csv(&o, results, count, path)) {
            fprintf(stderr, "sinew-tune: cannot write '%s': %s\n", path, strerror(errno));
            exit_code = 1;
        } else if (!write_plots(&o, results, count, why, sizeof why)) {
            fprintf(stderr, "sinew-tune: %s\n", why);
            exit_code = 1;
        }
    }
    if (exit_code == 0) {
        printf("wrote %s/results.csv, %s/error_vs_iteration.svg, %s/error_vs_time.svg\n", o.out, o.out, o.out);
        print_verdict(&o, results, count);
    }
    free(samples);
    free(times);
    free(results);
    free(o.world_bytes);
    return exit_code;
}
