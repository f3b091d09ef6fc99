// chipmunk-pile: the `pile` scene of shared/PEERS.md in Chipmunk 7, one JSON object a line with
// the keys sinew-bench prints for the pile, so the two can be set side by side.
//
//   chipmunk-pile --n N [--steps S] [--repeat R]
//
// Chipmunk at its own defaults (friction 0, elasticity 0, collision slop 0.1, no sleeping, no
// damping) except as PEERS.md notes: 10 iterations and the spatial hash (cell 1.0 = one ball
// diameter, N * 10 buckets). Balls: radius 0.5, mass 1, moment of a solid disc. The box: static
// segments of radius 0 for the floor y = 0, x in [0, W], and the walls x = 0 and x = W from y = 0
// to y = 2 H (there is no ceiling; nothing gets near 2 H). Layout and quality figures come from
// bench/pile_metrics.c, shared with sinew-bench.
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <chipmunk/chipmunk.h>

#include "pile_metrics.h"
#include "bench_util.h"

_Static_assert(sizeof(cpFloat) == sizeof(double), "chipmunk-pile expects Chipmunk built with doubles");

enum { ITERATIONS = 10 };
#define HASH_CELL 1.0

typedef struct options {
    int n, steps, repeat;
} options;

static void usage(FILE *f)
{
    fprintf(f, "usage: chipmunk-pile --n N [--steps S] [--repeat R]\n");
}

// A JSON number, or null for NaN and infinities (which JSON cannot spell).
static void print_number(const char *key, double v, const char *format)
{
    printf(",\"%s\":", key);
    if (isfinite(v)) {
        printf(format, v);
    } else {
        printf("null");
    }
}

static int run(const options *o, int iteration)
{
    const pile_layout layout = pile_layout_make(o->n);
    const int n = layout.n;

    cpSpace *space = cpSpaceNew();
    cpSpaceSetIterations(space, ITERATIONS);
    cpSpaceSetGravity(space, cpv(0.0, PILE_GRAVITY_Y));
    cpSpaceUseSpatialHash(space, HASH_CELL, n * 10);

    cpBody *ground = cpSpaceGetStaticBody(space);
    const double w = layout.width, top = 2.0 * layout.height;
    cpShape *walls[3] = {
        cpSegmentShapeNew(ground, cpv(0.0, 0.0), cpv(w, 0.0), 0.0),
        cpSegmentShapeNew(ground, cpv(0.0, 0.0), cpv(0.0, top), 0.0),
        cpSegmentShapeNew(ground, cpv(w, 0.0), cpv(w, top), 0.0),
    };
    for (int k = 0; k < 3; ++k) {
        cpSpaceAddShape(space, walls[k]);
    }

    cpBody **bodies = calloc((size_t)n, sizeof *bodies);
    cpShape **shapes = calloc((size_t)n, sizeof *shapes);
    double *buf = malloc((size_t)n * 5 * sizeof *buf); // x, y, vx, vy, radius for pile_quality
    int status = 1;
    if (bodies == NULL || shapes == NULL || buf == NULL) {
        fprintf(stderr, "chipmunk-pile: out of memory\n");
        goto done;
    }
    const cpFloat mass = 1.0;
    const cpFloat moment = cpMomentForCircle(mass, 0.0, layout.radius, cpvzero);
    for (int i = 0; i < n; ++i) {
        double x, y;
        pile_layout_ball(&layout, i, &x, &y);
        bodies[i] = cpSpaceAddBody(space, cpBodyNew(mass, moment));
        cpBodySetPosition(bodies[i], cpv(x, y));
        shapes[i] = cpSpaceAddShape(space, cpCircleShapeNew(bodies[i], layout.radius, cpvzero));
    }

    const cpFloat dt = 1.0 / PILE_HZ;
    const double t0 = bench_now_seconds();
    for (int k = 0; k < o->steps; ++k) {
        cpSpaceStep(space, dt);
    }
    const double elapsed = bench_now_seconds() - t0;

    double *x = buf, *y = buf + n, *vx = buf + 2 * (size_t)n, *vy = buf + 3 * (size_t)n, *r = buf + 4 * (size_t)n;
    for (int i = 0; i < n; ++i) {
        const cpVect p = cpBodyGetPosition(bodies[i]), v = cpBodyGetVelocity(bodies[i]);
        x[i] = p.x;
        y[i] = p.y;
        vx[i] = v.x;
        vy[i] = v.y;
        r[i] = cpCircleShapeGetRadius(shapes[i]);
    }
    pile_quality_result q;
    if (pile_quality(n, x, y, vx, vy, r, layout.width, layout.height, &q) != 0) {
        fprintf(stderr, "chipmunk-pile: pile_quality failed (out of memory)\n");
        goto done;
    }

    const double steps = (double)o->steps, substeps = 1.0;
    printf("{\"engine\":\"chipmunk\",\"scene\":\"pile\",\"particles\":%d,\"mode\":\"chipmunk\",\"substeps\":1,"
           "\"iterations\":%d,\"steps\":%d,\"run\":%d,\"threads\":1",
           n, ITERATIONS, o->steps, iteration);
    print_number("ms_per_step", 1e3 * elapsed / steps, "%.4f");
    print_number("ns_per_particle_step", 1e9 * elapsed / (steps * n), "%.2f");
    print_number("ns_per_particle_substep", 1e9 * elapsed / (steps * substeps * n), "%.2f");
    printf(",\"outside\":%d", q.outside);
    print_number("max_overlap_ratio", q.max_overlap_ratio, "%.5f");
    print_number("max_speed", q.max_speed, "%.5g");
    print_number("mean_speed", q.mean_speed, "%.5g");
    printf("}\n");
    fflush(stdout);
    if (q.nonfinite > 0) {
        fprintf(stderr, "chipmunk-pile: run %d: %d balls with a NaN or infinite position or velocity\n", iteration,
                q.nonfinite);
    }
    status = 0;

done:
    cpSpaceFree(space); // frees the static body, not the shapes and bodies added to the space
    for (int i = 0; bodies != NULL && shapes != NULL && i < n; ++i) {
        cpShapeFree(shapes[i]); // both accept NULL
        cpBodyFree(bodies[i]);
    }
    for (int k = 0; k < 3; ++k) {
        cpShapeFree(walls[k]);
    }
    free(buf);
    free(shapes);
    free(bodies);
    return status;
}

// Debian's libchipmunk is built without NDEBUG: the first cpSpaceNew() prints a "Debug Enabled"
// banner on stdout. Let it happen once with stdout sent to stderr, so stdout stays JSON lines.
static void banner_to_stderr(void)
{
    fflush(stdout);
    const int saved = dup(STDOUT_FILENO);
    if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        return;
    }
    cpSpaceFree(cpSpaceNew());
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
}

int main(int argc, char **argv)
{
    options o = {0, PILE_STEPS, 1};
    for (int k = 1; k < argc; ++k) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        int ok = 1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (v == NULL) {
            ok = 0;
        } else if (strcmp(a, "--n") == 0) {
            ok = bench_parse_int(v, 1, 10000000, &o.n);
        } else if (strcmp(a, "--steps") == 0) {
            ok = bench_parse_int(v, 1, 1000000, &o.steps);
        } else if (strcmp(a, "--repeat") == 0) {
            ok = bench_parse_int(v, 1, 1000, &o.repeat);
        } else {
            ok = 0;
        }
        if (!ok) {
            fprintf(stderr, "chipmunk-pile: bad argument '%s%s%s'\n", a, v ? " " : "", v ? v : "");
            usage(stderr);
            return 2;
        }
        ++k;
    }
    if (o.n < 1) {
        fprintf(stderr, "chipmunk-pile: --n is required\n");
        usage(stderr);
        return 2;
    }
    banner_to_stderr();
    for (int r = 0; r < o.repeat; ++r) {
        if (run(&o, r) != 0) {
            return 1;
        }
    }
    return 0;
}
