// sinew-bench: speed and quality of the benchmark scenes of shared/PEERS.md, one JSON object a line.
//
//   sinew-bench --scene rope|cloth|pile [--n N | --size WxH] [--mode gs|gs-alt|gs-shuffle|jacobi]
//               [--iterations K] [--substeps S] [--omega W] [--steps N] [--repeat R]
//
// Settings default to the engine's, except the pile: 4 sub-steps x 1 iteration.
#define _POSIX_C_SOURCE 199309L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sinew/sinew.h>

#include "pile_metrics.h"

typedef struct options {
    const char *scene;
    int n, width, height;
    const char *mode;
    int iterations, substeps, steps, repeat;
    float omega;
} options;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: sinew-bench --scene rope|cloth|pile [--n N | --size WxH] [--mode gs|gs-alt|gs-shuffle|jacobi]\n"
               "                   [--iterations K] [--substeps S] [--omega W] [--steps N] [--repeat R]\n");
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi) {
        return 0;
    }
    *out = (int)v;
    return 1;
}

static int set_mode(const char *mode, sinew_solver_def *s)
{
    if (strcmp(mode, "gs") == 0) {
        s->mode = SINEW_SOLVER_GAUSS_SEIDEL;
        s->order = SINEW_GS_ORDER_CREATED;
    } else if (strcmp(mode, "gs-alt") == 0) {
        s->mode = SINEW_SOLVER_GAUSS_SEIDEL;
        s->order = SINEW_GS_ORDER_ALTERNATING;
    } else if (strcmp(mode, "gs-shuffle") == 0) {
        s->mode = SINEW_SOLVER_GAUSS_SEIDEL;
        s->order = SINEW_GS_ORDER_SHUFFLE;
    } else if (strcmp(mode, "jacobi") == 0) {
        s->mode = SINEW_SOLVER_JACOBI;
    } else {
        return 0;
    }
    return 1;
}

// Length of every distance constraint over its rest length: sum and max.
static void link_stretch(const sinew_world *world, const sinew_distance_id *links, int count, double *sum_len,
                         double *max_ratio)
{
    sinew_particle_view v = sinew_world_particles(world);
    *sum_len = 0.0;
    *max_ratio = 0.0;
    for (int k = 0; k < count; ++k) {
        sinew_distance_def d;
        sinew_distance_get(world, links[k], &d);
        int a = sinew_particle_index(world, d.a), b = sinew_particle_index(world, d.b);
        double len = hypot((double)v.x[b] - v.x[a], (double)v.y[b] - v.y[a]);
        *sum_len += len;
        double ratio = len / d.rest;
        *max_ratio = ratio > *max_ratio ? ratio : *max_ratio;
    }
}

// The pile's quality figures from the world's particles (see pile_metrics.h).
static int pile_quality_of(const sinew_world *world, const pile_layout *layout, pile_quality_result *q)
{
    sinew_particle_view v = sinew_world_particles(world);
    const size_t n = (size_t)v.count;
    double *buf = malloc(5 * n * sizeof *buf + 1);
    if (buf == NULL) {
        return -1;
    }
    double *x = buf, *y = buf + n, *vx = buf + 2 * n, *vy = buf + 3 * n, *r = buf + 4 * n;
    for (int i = 0; i < v.count; ++i) {
        sinew_vec2 vel = {0.0f, 0.0f};
        sinew_particle_get_velocity(world, sinew_particle_id_at(world, i), &vel);
        x[i] = v.x[i];
        y[i] = v.y[i];
        vx[i] = vel.x;
        vy[i] = vel.y;
        r[i] = v.radius[i];
    }
    int status = pile_quality(v.count, x, y, vx, vy, r, layout->width, layout->height, q);
    free(buf);
    return status;
}

static int run(const options *o, int iteration)
{
    sinew_world_def wd = sinew_default_world_def();
    wd.solver.iterations = o->iterations;
    wd.solver.substeps = o->substeps;
    wd.solver.jacobi_omega = o->omega;
    set_mode(o->mode, &wd.solver);
    sinew_world *world;
    if (sinew_world_create(&wd, &world) != SINEW_OK) {
        fprintf(stderr, "sinew-bench: world creation failed\n");
        return 1;
    }
    int links = 0, particles = 0;
    sinew_distance_id *ids = NULL;
    sinew_status s;
    const int is_rope = strcmp(o->scene, "rope") == 0, is_pile = strcmp(o->scene, "pile") == 0;
    pile_layout layout = pile_layout_make(o->n);
    if (is_pile) {
        sinew_pile_def pd = sinew_default_pile_def(); // its defaults are the PEERS.md layout
        pd.count = o->n;
        particles = o->n;
        s = sinew_pile_create(world, &pd, NULL);
    } else if (is_rope) {
        sinew_rope_def rd = sinew_default_rope_def();
        rd.links = o->n;
        rd.start = sinew_vec2_make(0.0f, 0.0f);
        rd.end = sinew_vec2_make(0.25f * (float)o->n, 0.0f);
        sinew_scene_counts counts = sinew_rope_counts(&rd);
        particles = counts.particles;
        links = counts.distances;
        ids = calloc((size_t)links, sizeof *ids);
        sinew_rope r = {0};
        r.links = ids;
        s = sinew_rope_create(world, &rd, &r);
    } else {
        sinew_cloth_def cd = sinew_default_cloth_def();
        cd.columns = o->width;
        cd.rows = o->height;
        sinew_scene_counts counts = sinew_cloth_counts(&cd);
        particles = counts.particles;
        links = counts.distances;
        ids = calloc((size_t)links, sizeof *ids);
        sinew_cloth c = {0};
        c.links = ids;
        s = sinew_cloth_create(world, &cd, &c);
    }
    if (s != SINEW_OK) {
        fprintf(stderr, "sinew-bench: building the scene failed: %s (%s)\n", sinew_status_string(s),
                sinew_world_last_error(world));
        return 1;
    }
    const float dt = 1.0f / 60.0f;
    double t0 = now_seconds();
    for (int k = 0; k < o->steps; ++k) {
        sinew_world_step(world, dt);
    }
    double elapsed = now_seconds() - t0;
    double sum_len = 0.0, max_ratio = 0.0;
    link_stretch(world, ids, links, &sum_len, &max_ratio);
    sinew_step_stats st = sinew_world_stats(world);
    if (is_pile) {
        links = st.kinds[SINEW_KIND_CONTACT].count + st.kinds[SINEW_KIND_COLLIDER].count;
    }
    double steps = (double)o->steps;
    double projections = steps * o->substeps * o->iterations * (double)links;
    printf("{\"scene\":\"%s\",\"particles\":%d,\"constraints\":%d,", o->scene, particles, links);
    if (is_rope || is_pile) {
        printf("\"n\":%d,", o->n);
    } else {
        printf("\"width\":%d,\"height\":%d,", o->width, o->height);
    }
    printf("\"mode\":\"%s\",\"omega\":%.3g,\"substeps\":%d,\"iterations\":%d,\"steps\":%d,\"run\":%d,\"threads\":1,"
           "\"ms_per_step\":%.4f,\"ns_per_projection\":%.3f,\"ns_per_particle_step\":%.2f,",
           o->mode, (double)o->omega, o->substeps, o->iterations, o->steps, iteration, 1e3 * elapsed / steps,
           1e9 * elapsed / projections, 1e9 * elapsed / (steps * particles));
    if (is_rope) {
        printf("\"stretch\":%.5f,", sum_len / (0.25 * o->n));
    }
    if (is_pile) {
        pile_quality_result q;
        if (pile_quality_of(world, &layout, &q) != 0) {
            fprintf(stderr, "sinew-bench: measuring the pile failed\n");
            return 1;
        }
        printf("\"ns_per_particle_substep\":%.2f,\"outside\":%d,\"max_overlap_ratio\":%.5f,\"max_speed\":%.4f,"
               "\"mean_speed\":%.5f,",
               1e9 * elapsed / (steps * o->substeps * particles), q.outside, q.max_overlap_ratio, q.max_speed,
               q.mean_speed);
    } else {
        printf("\"max_stretch\":%.5f,", max_ratio);
    }
    printf("\"max_error\":%.6g,\"rms_error\":%.6g}\n", (double)st.max_error, (double)st.rms_error);
    fflush(stdout);
    free(ids);
    sinew_world_destroy(world);
    return 0;
}

int main(int argc, char **argv)
{
    const sinew_solver_def defaults = sinew_default_solver_def();
    options o = {"rope", 1000, 100, 100, "gs", defaults.iterations, defaults.substeps, 600, 1, defaults.jacobi_omega};
    int steps_given = 0, substeps_given = 0, iterations_given = 0;
    for (int k = 1; k < argc; ++k) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        int ok = 1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (v == NULL) {
            ok = 0;
        } else if (strcmp(a, "--scene") == 0) {
            o.scene = v;
        } else if (strcmp(a, "--n") == 0) {
            ok = parse_int(v, 1, 10000000, &o.n);
        } else if (strcmp(a, "--size") == 0) {
            ok = sscanf(v, "%dx%d", &o.width, &o.height) == 2 && o.width >= 1 && o.height >= 2 &&
                 o.width <= 4096 && o.height <= 4096;
        } else if (strcmp(a, "--mode") == 0) {
            sinew_solver_def tmp;
            o.mode = v;
            ok = set_mode(v, &tmp);
        } else if (strcmp(a, "--iterations") == 0) {
            ok = parse_int(v, 1, 1024, &o.iterations);
            iterations_given = 1;
        } else if (strcmp(a, "--substeps") == 0) {
            ok = parse_int(v, 1, 1024, &o.substeps);
            substeps_given = 1;
        } else if (strcmp(a, "--steps") == 0) {
            ok = parse_int(v, 1, 1000000, &o.steps);
            steps_given = 1;
        } else if (strcmp(a, "--repeat") == 0) {
            ok = parse_int(v, 1, 1000, &o.repeat);
        } else if (strcmp(a, "--omega") == 0) {
            char *end;
            o.omega = strtof(v, &end);
            ok = *end == '\0' && o.omega > 0.0f && o.omega < 2.0f;
        } else {
            ok = 0;
        }
        if (!ok) {
            fprintf(stderr, "sinew-bench: bad argument '%s%s%s'\n", a, v ? " " : "", v ? v : "");
            usage(stderr);
            return 2;
        }
        ++k;
    }
    if (strcmp(o.scene, "rope") != 0 && strcmp(o.scene, "cloth") != 0 && strcmp(o.scene, "pile") != 0) {
        fprintf(stderr, "sinew-bench: unknown scene '%s' (known: rope, cloth, pile)\n", o.scene);
        return 2;
    }
    if (!steps_given) {
        o.steps = strcmp(o.scene, "cloth") == 0 ? 300 : 600;
    }
    if (strcmp(o.scene, "pile") == 0) { // the pile's own defaults (issue: 4 sub-steps, 1 iteration)
        o.substeps = substeps_given ? o.substeps : 4;
        o.iterations = iterations_given ? o.iterations : 1;
    }
    for (int r = 0; r < o.repeat; ++r) {
        if (run(&o, r) != 0) {
            return 1;
        }
    }
    return 0;
}
