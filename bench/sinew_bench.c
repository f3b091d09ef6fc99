// sinew-bench: speed and quality of the benchmark scenes of shared/PEERS.md, one JSON object a line.
//
//   sinew-bench --scene rope|cloth|pile|softbody|cloth-tear [--n N | --size WxH] [--rings K]
//               [--mode gs|gs-alt|gs-shuffle|jacobi] [--iterations K] [--substeps S] [--omega W]
//               [--steps N] [--repeat R] [--tethers]
//
// softbody: K rings (--rings, default 100) of N particles (--n, default 24) falling into a box.
// cloth-tear: a W x H cloth (tear ratio 1.5) whose bottom row is dragged down until it tears.
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
    int n, width, height, rings, tethers;
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
    fprintf(f, "usage: sinew-bench --scene rope|cloth|pile|softbody|cloth-tear [--n N | --size WxH] [--rings K]\n"
               "                   [--mode gs|gs-alt|gs-shuffle|jacobi] [--iterations K] [--substeps S] [--omega W]\n"
               "                   [--steps N] [--repeat R] [--tethers]\n");
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
    int measured = 0; // the rope's or cloth's own links, first in `ids` (tethers come after)
    sinew_distance_id *ids = NULL;
    sinew_status s;
    const int is_rope = strcmp(o->scene, "rope") == 0, is_pile = strcmp(o->scene, "pile") == 0;
    pile_layout layout = pile_layout_make(o->n);
    const int is_soft = strcmp(o->scene, "softbody") == 0, is_tear = strcmp(o->scene, "cloth-tear") == 0;
    sinew_area_id *areas = NULL;
    sinew_pin_id *bottom = NULL;
    float rest_area = 0.0f;
    if (is_soft) {
        // K rings on a grid, 2.5 radii apart, over a floor between two walls.
        const int cols = (int)ceil(sqrt((double)o->rings));
        const float pitch = 2.5f;
        sinew_collider_def cd = sinew_default_collider_def();
        s = sinew_plane_collider_create(world, &cd, sinew_vec2_make(0, 1), 0.0f, NULL);
        if (s == SINEW_OK) {
            s = sinew_plane_collider_create(world, &cd, sinew_vec2_make(1, 0), 0.0f, NULL);
        }
        if (s == SINEW_OK) {
            s = sinew_plane_collider_create(world, &cd, sinew_vec2_make(-1, 0), -(pitch * (float)cols + 1.0f), NULL);
        }
        areas = calloc((size_t)o->rings, sizeof *areas);
        for (int k = 0; k < o->rings && s == SINEW_OK; ++k) {
            sinew_softbody_def sd = sinew_default_softbody_def();
            sd.points = o->n;
            sd.center = sinew_vec2_make(1.5f + pitch * (float)(k % cols), 1.5f + pitch * (float)(k / cols));
            sinew_softbody sb = {0};
            s = sinew_softbody_create(world, &sd, &sb);
            areas[k] = sb.area;
            particles += o->n;
        }
        if (s == SINEW_OK) {
            sinew_area_get_area(world, areas[0], &rest_area);
        }
    } else if (is_tear) {
        sinew_cloth_def cd = sinew_default_cloth_def();
        cd.columns = o->width;
        cd.rows = o->height;
        cd.tear_ratio = 1.5f;
        sinew_scene_counts counts = sinew_cloth_counts(&cd);
        particles = counts.particles;
        links = counts.distances;
        sinew_particle_id *pids = calloc((size_t)particles, sizeof *pids);
        sinew_cloth c = {0};
        c.particles = pids;
        s = sinew_cloth_create(world, &cd, &c);
        bottom = calloc((size_t)o->width, sizeof *bottom);
        for (int k = 0; k < o->width && s == SINEW_OK; ++k) { // the bottom row, dragged by pins
            sinew_pin_def pd = sinew_default_pin_def();
            pd.particle = pids[(o->height - 1) * o->width + k];
            sinew_particle_get_position(world, pd.particle, &pd.target);
            pd.stiffness = 0.5f;
            s = sinew_pin_create(world, &pd, &bottom[k]);
        }
        free(pids);
    } else if (is_pile) {
        sinew_pile_def pd = sinew_default_pile_def(); // its defaults are the PEERS.md layout
        pd.count = o->n;
        particles = o->n;
        s = sinew_pile_create(world, &pd, NULL);
    } else if (is_rope) {
        sinew_rope_def rd = sinew_default_rope_def();
        rd.links = o->n;
        rd.start = sinew_vec2_make(0.0f, 0.0f);
        rd.end = sinew_vec2_make(0.25f * (float)o->n, 0.0f);
        rd.tethers = o->tethers != 0;
        sinew_scene_counts counts = sinew_rope_counts(&rd);
        particles = counts.particles;
        links = counts.distances;
        measured = o->n;
        ids = calloc((size_t)links, sizeof *ids);
        sinew_rope r = {0};
        r.links = ids;
        s = sinew_rope_create(world, &rd, &r);
    } else {
        sinew_cloth_def cd = sinew_default_cloth_def();
        cd.columns = o->width;
        cd.rows = o->height;
        cd.tethers = o->tethers != 0;
        sinew_scene_counts counts = sinew_cloth_counts(&cd);
        particles = counts.particles;
        links = counts.distances;
        measured = links - (cd.tethers ? counts.particles - counts.pins : 0);
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
    int torn = 0;
    for (int k = 0; k < o->steps; ++k) {
        if (is_tear) { // drag the bottom row down at 4 m/s
            for (int m = 0; m < o->width; ++m) {
                sinew_pin_def pd;
                sinew_pin_get(world, bottom[m], &pd);
                sinew_pin_set_target(world, bottom[m], sinew_vec2_make(pd.target.x, pd.target.y - 4.0f * dt));
            }
        }
        sinew_world_step(world, dt);
        int count = 0;
        sinew_world_tears(world, &count);
        torn += count;
    }
    double elapsed = now_seconds() - t0;
    double sum_len = 0.0, max_ratio = 0.0;
    link_stretch(world, ids, measured, &sum_len, &max_ratio);
    sinew_step_stats st = sinew_world_stats(world);
    if (is_pile) {
        links = st.kinds[SINEW_KIND_CONTACT].count + st.kinds[SINEW_KIND_COLLIDER].count;
    }
    if (is_soft || is_tear) {
        links = 0;
        for (int k = 0; k < SINEW_KIND_COUNT; ++k) {
            links += st.kinds[k].count;
        }
    }
    double steps = (double)o->steps;
    double projections = steps * o->substeps * o->iterations * (double)links;
    printf("{\"scene\":\"%s\",\"particles\":%d,\"constraints\":%d,", o->scene, particles, links);
    if (is_soft) {
        printf("\"rings\":%d,\"n\":%d,", o->rings, o->n);
    } else if (is_rope || is_pile) {
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
    } else if (is_soft) {
        double min_ratio = 1e9, sum_ratio = 0.0;
        for (int k = 0; k < o->rings; ++k) {
            float a = 0.0f;
            sinew_area_get_area(world, areas[k], &a);
            min_ratio = fmin(min_ratio, a / rest_area);
            sum_ratio += a / rest_area;
        }
        printf("\"min_area_ratio\":%.5f,\"mean_area_ratio\":%.5f,", min_ratio, sum_ratio / o->rings);
    } else if (is_tear) {
        printf("\"torn\":%d,\"links_left\":%d,", torn, st.kinds[SINEW_KIND_DISTANCE].count);
    } else {
        printf("\"max_stretch\":%.5f,", max_ratio);
    }
    printf("\"max_error\":%.6g,\"rms_error\":%.6g}\n", (double)st.max_error, (double)st.rms_error);
    fflush(stdout);
    free(ids);
    free(areas);
    free(bottom);
    sinew_world_destroy(world);
    return 0;
}

int main(int argc, char **argv)
{
    const sinew_solver_def defaults = sinew_default_solver_def();
    options o = {"rope", 1000, 100, 100, 100, 0, "gs", defaults.iterations, defaults.substeps, 600, 1, defaults.jacobi_omega};
    int steps_given = 0, substeps_given = 0, iterations_given = 0, n_given = 0;
    for (int k = 1; k < argc; ++k) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        int ok = 1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--tethers") == 0) {
            o.tethers = 1;
            continue;
        } else if (v == NULL) {
            ok = 0;
        } else if (strcmp(a, "--scene") == 0) {
            o.scene = v;
        } else if (strcmp(a, "--rings") == 0) {
            ok = parse_int(v, 1, 100000, &o.rings);
        } else if (strcmp(a, "--n") == 0) {
            ok = parse_int(v, 1, 10000000, &o.n);
            n_given = 1;
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
    const char *known[] = {"rope", "cloth", "pile", "softbody", "cloth-tear"};
    int found = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k) {
        found |= strcmp(o.scene, known[k]) == 0;
    }
    if (!found) {
        fprintf(stderr, "sinew-bench: unknown scene '%s' (known: rope, cloth, pile, softbody, cloth-tear)\n", o.scene);
        return 2;
    }
    if (strcmp(o.scene, "softbody") == 0 && !n_given) {
        o.n = 24;
    }
    if (!steps_given) {
        o.steps = strcmp(o.scene, "cloth") == 0 || strcmp(o.scene, "cloth-tear") == 0 ? 300 : 600;
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
