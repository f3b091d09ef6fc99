// sinew-bench: speed and quality of the benchmark scenes of shared/PEERS.md, one JSON object a line.
//
//   sinew-bench --scene rope|cloth|pile|softbody|cloth-tear [--n N | --size WxH] [--rings K]
//               [--mode gs|gs-alt|gs-shuffle|jacobi] [--iterations K] [--substeps S] [--omega W]
//               [--steps N] [--repeat R] [--tethers] [--link-forces] [--user-order]
//               [--sample-every K]
//
//   sinew-bench --scene ik [--n BONES] --method relaxation|fabrik|ccd|two-bone --start cold|warm
//               [--cap K] [--steps SOLVES] [--repeat R]
//
//   sinew-bench --scene ik3 [--n LINKS] --method ccd|fabrik|two-bone --start cold|warm
//               [--cap K] [--steps SOLVES] [--repeat R]        (bench/bench_ik3.c)
//
// --sample-every K (pile only): every K steps, one more JSON line with the pile's quality then
// (sample_step, max overlap / r, max and mean speed, balls outside, and moved_speed: the largest
// distance a ball moved since the last sample over those K steps' time), before the run's line;
// the sampling is not timed. bench/lattices.py --window reads them.
// softbody: K rings (--rings, default 100) of N particles (--n, default 24) falling into a box.
// cloth-tear: a W x H cloth (tear ratio 1.5) whose bottom row is dragged down until it tears.
//
// Settings default to the engine's, except the pile: 4 sub-steps x 1 iteration.
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sinew/sinew.h>

#include "pile_metrics.h"
#include "pile_svg.h"
#include "bench_util.h"
#include "bench_ik3.h"

typedef struct options {
    const char *scene;
    int n, width, height, rings, tethers, link_forces, user_order, threads;
    const char *mode;
    int iterations, substeps, steps, repeat;
    float omega;
    const char *method, *start; // ik: solver method and start pose
    int cap;                    // ik: max iterations per solve
    const char *save_world;     // --save-world FILE: the world after the run, for sinew-tune --world
    const char *svg;            // --svg FILE (pile): a picture of the end state, balls coloured by speed
    float contact_speed;        // m/s, see sinew_world_def.contact_speed
    float damping;              // 1/s, see sinew_world_def.damping
    int sample_every;           // --sample-every K: the pile's quality every K steps (0: none)
    int profile;                // --profile stages|jobs: sinew_world_set_profiling (0: off)
} options;

static void usage(FILE *f)
{
    fprintf(f, "usage: sinew-bench --scene rope|cloth|pile|softbody|cloth-tear [--n N | --size WxH] [--rings K]\n"
               "                   [--mode gs|gs-alt|gs-shuffle|jacobi] [--iterations K] [--substeps S] [--omega W]\n"
               "                   [--steps N] [--repeat R] [--tethers] [--link-forces] [--user-order] [--threads N] [--profile stages|jobs] [--contact-speed M_PER_S|inf] [--damping PER_S] [--save-world FILE] [--svg FILE]\n"
               "                   [--sample-every K] (pile)\n"
               "       sinew-bench --scene ik [--n BONES] --method relaxation|fabrik|ccd|two-bone --start cold|warm\n"
               "                   [--cap K] [--steps SOLVES] [--repeat R]\n"
               "       sinew-bench --scene ik3 [--n LINKS] --method ccd|fabrik|two-bone --start cold|warm\n"
               "                   [--cap K] [--steps SOLVES] [--repeat R]\n");
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

// Adds a step's profile to a sum of them.
static void add_profile(sinew_step_profile *sum, sinew_step_profile p)
{
    sum->step += p.step;
    sum->prepare += p.prepare;
    sum->integrate += p.integrate;
    sum->collide += p.collide;
    sum->solve += p.solve;
    sum->finish += p.finish;
    sum->end += p.end;
    sum->parallel += p.parallel;
    sum->wait += p.wait;
    sum->jobs += p.jobs;
    sum->handoff_ns = p.handoff_ns; // (the last step's: the last measure)
}

// FNV-1a over the bits of every particle's position and previous position: two runs (or two
// builds) ended in the same state exactly when their hashes agree.
static uint64_t state_hash(const sinew_world *world)
{
    const sinew_particle_view v = sinew_world_particles(world);
    uint64_t h = 1469598103934665603ull;
    const float *arrays[4] = {v.x, v.y, v.px, v.py};
    for (int a = 0; a < 4; ++a) {
        const unsigned char *bytes = (const unsigned char *)arrays[a];
        for (size_t k = 0; k < sizeof(float) * (size_t)v.count; ++k) {
            h = (h ^ bytes[k]) * 1099511628211ull;
        }
    }
    return h;
}

// The balls' positions, velocities and radii, in doubles: x, y, vx, vy and radius, `count` each,
// one after the other in one block (free it), or NULL without memory. What pile_quality and
// pile_svg_write read.
static double *pile_state(const sinew_world *world)
{
    sinew_particle_view v = sinew_world_particles(world);
    const size_t n = (size_t)v.count;
    double *buf = malloc(5 * n * sizeof *buf + 1);
    if (buf == NULL) {
        return NULL;
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
    return buf;
}

// The pile's quality figures from the world's particles (see pile_metrics.h).
static int pile_quality_of(const sinew_world *world, const pile_layout *layout, pile_quality_result *q)
{
    const int n = sinew_world_particles(world).count;
    double *s = pile_state(world);
    if (s == NULL) {
        return -1;
    }
    const int status = pile_quality(n, s, s + n, s + 2 * n, s + 3 * n, s + 4 * n, layout->width, layout->height, q);
    free(s);
    return status;
}

// The picture of the pile (pile_svg.h) to `path`. 0, or 1 when it could not be made.
static int pile_picture(const sinew_world *world, const pile_layout *layout, const char *path)
{
    const int n = sinew_world_particles(world).count;
    double *s = pile_state(world);
    const int status = s != NULL ? pile_svg_write(world, layout, s + 2 * n, s + 3 * n, path, 1200) : 1;
    free(s);
    return status;
}

// The largest distance a ball moved since the positions in `last` (x then y, `count` each), over
// `seconds`: the average speed of the ball that moved most in that time, m/s. `last` becomes the
// positions now. A pile at rest can hold a ball over 0.2 m/s at the step's end (a loose ball
// rattling by a few millimetres between its neighbours) while no ball goes anywhere: this tells
// the two apart.
static double moved_speed(const sinew_world *world, float *last, int count, double seconds)
{
    const sinew_particle_view v = sinew_world_particles(world);
    double most = 0.0;
    for (int i = 0; i < count && i < v.count; ++i) {
        most = fmax(most, hypot((double)v.x[i] - last[i], (double)v.y[i] - last[count + i]));
        last[i] = v.x[i];
        last[count + i] = v.y[i];
    }
    return most / seconds;
}

// Prints the pile's quality fields ("outside" to "mean_speed", no comma after); 1 when measuring
// failed (said on stderr).
static int print_pile_quality(const sinew_world *world, const pile_layout *layout)
{
    pile_quality_result q;
    if (pile_quality_of(world, layout, &q) != 0) {
        fprintf(stderr, "sinew-bench: measuring the pile failed\n");
        return 1;
    }
    printf("\"outside\":%d,\"max_overlap_ratio\":%.5f,\"max_speed\":%.4f,\"mean_speed\":%.5f", q.outside,
           q.max_overlap_ratio, q.max_speed, q.mean_speed);
    return 0;
}

// Writes the world's snapshot to `path`. 0, or 1 on failure.
static int save_world_file(const sinew_world *world, const char *path)
{
    const size_t size = sinew_world_save_size(world);
    void *buf = malloc(size);
    size_t written = 0;
    FILE *f = NULL;
    int bad = buf == NULL || sinew_world_save(world, buf, size, &written) != SINEW_OK || (f = fopen(path, "wb")) == NULL ||
              fwrite(buf, 1, written, f) != written;
    if (f != NULL) {
        bad |= fclose(f) != 0;
    }
    free(buf);
    return bad;
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// The world's snapshot figures: bytes per particle, and the time of a save and of a load (the new
// world it makes, not its destroy), each the median of 9, per particle. Returns 0, or 1 on failure.
static int snapshot_figures(const sinew_world *world, int particles, double *bytes, double *save_ns, double *load_ns)
{
    const size_t size = sinew_world_save_size(world);
    void *buf = malloc(size);
    if (buf == NULL) {
        return 1;
    }
    double saves[9], loads[9];
    for (int k = 0; k < 9; ++k) {
        double t0 = bench_now_seconds();
        size_t written = 0;
        const sinew_status s = sinew_world_save(world, buf, size, &written);
        double t1 = bench_now_seconds();
        sinew_world *copy = NULL;
        const sinew_status l = sinew_world_load(buf, size, NULL, &copy);
        double t2 = bench_now_seconds();
        sinew_world_destroy(copy);
        if (s != SINEW_OK || l != SINEW_OK || written != size) {
            free(buf);
            return 1;
        }
        saves[k] = t1 - t0;
        loads[k] = t2 - t1;
    }
    free(buf);
    qsort(saves, 9, sizeof saves[0], compare_doubles);
    qsort(loads, 9, sizeof loads[0], compare_doubles);
    *bytes = (double)size / particles;
    *save_ns = 1e9 * saves[4] / particles;
    *load_ns = 1e9 * loads[4] / particles;
    return 0;
}

// value printed with fmt into out, or null when it is not finite: JSON has no infinity or NaN.
static void json_number(char *out, size_t size, const char *fmt, double value)
{
    if (isfinite(value)) {
        snprintf(out, size, fmt, value);
    } else {
        snprintf(out, size, "null");
    }
}

static int run(const options *o, int iteration)
{
    sinew_world_def wd = sinew_default_world_def();
    wd.solver.iterations = o->iterations;
    wd.solver.substeps = o->substeps;
    wd.solver.jacobi_omega = o->omega;
    set_mode(o->mode, &wd.solver);
    wd.solver.link_forces = o->link_forces != 0;
    wd.workers = o->threads;
    wd.contact_speed = o->contact_speed;
    wd.damping = o->damping;
    sinew_world *world;
    if (sinew_world_create(&wd, &world) != SINEW_OK) {
        fprintf(stderr, "sinew-bench: world creation failed\n");
        return 1;
    }
    sinew_world_set_profiling(world, (sinew_profiling)o->profile);
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
        sinew_particle_id *pids = calloc((size_t)particles, sizeof *pids);
        sinew_rope r = {0};
        r.links = ids;
        r.particles = pids;
        s = sinew_rope_create(world, &rd, &r);
        // --user-order: the links made again as a user would, in sequence (0,1), (1,2), ...
        // rather than the builder's evens then odds.
        for (int k = 0; k < o->n && s == SINEW_OK && o->user_order; ++k) {
            s = sinew_distance_destroy(world, ids[k]);
        }
        for (int k = 0; k < o->n && s == SINEW_OK && o->user_order; ++k) {
            sinew_distance_def dd = sinew_default_distance_def();
            dd.a = pids[k];
            dd.b = pids[k + 1];
            s = sinew_distance_create(world, &dd, &ids[k]);
        }
        free(pids);
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
    // --sample-every: the positions at the last sample (or the start), for moved_speed.
    float *last = NULL;
    if (is_pile && o->sample_every > 0) {
        const sinew_particle_view v = sinew_world_particles(world);
        last = malloc(2 * (size_t)particles * sizeof *last + 1);
        if (last == NULL) {
            fprintf(stderr, "sinew-bench: out of memory\n");
            return 1;
        }
        for (int i = 0; i < particles; ++i) {
            last[i] = v.x[i];
            last[particles + i] = v.y[i];
        }
    }
    double t0 = bench_now_seconds(), sampling = 0.0;
    int torn = 0;
    sinew_step_profile prof = {0}; // summed over the steps
    for (int k = 0; k < o->steps; ++k) {
        if (is_tear) { // drag the bottom row down at 4 m/s
            for (int m = 0; m < o->width; ++m) {
                sinew_pin_def pd;
                sinew_pin_get(world, bottom[m], &pd);
                sinew_pin_set_target(world, bottom[m], sinew_vec2_make(pd.target.x, pd.target.y - 4.0f * dt));
            }
        }
        sinew_world_step(world, dt);
        add_profile(&prof, sinew_world_profile(world));
        if (is_pile && o->sample_every > 0 && (k + 1) % o->sample_every == 0) {
            const double s0 = bench_now_seconds();
            printf("{\"scene\":\"pile\",\"n\":%d,\"sample_step\":%d,", o->n, k + 1);
            if (print_pile_quality(world, &layout) != 0) {
                return 1;
            }
            printf(",\"moved_speed\":%.4f}\n", moved_speed(world, last, particles, o->sample_every * (double)dt));
            sampling += bench_now_seconds() - s0;
        }
        int count = 0;
        sinew_world_tears(world, &count);
        torn += count;
    }
    double elapsed = bench_now_seconds() - t0 - sampling;
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
    printf("\"link_forces\":%s,", o->link_forces ? "true" : "false");
    // An unbounded contact speed is null; so is the time per projection of a run that ended with
    // no constraint (a lone ball), which made none.
    char speed_text[32], projection_text[32];
    json_number(speed_text, sizeof speed_text, "%.3g", (double)o->contact_speed);
    json_number(projection_text, sizeof projection_text, "%.3f", 1e9 * elapsed / projections);
    if (is_rope) {
        printf("\"user_order\":%s,", o->user_order ? "true" : "false");
    }
    printf("\"mode\":\"%s\",\"contact_speed\":%s,\"damping\":%.3g,\"omega\":%.3g,\"substeps\":%d,\"iterations\":%d,\"steps\":%d,\"run\":%d,\"threads\":%d,"
           "\"ms_per_step\":%.4f,\"ns_per_projection\":%s,\"ns_per_particle_step\":%.2f,",
           o->mode, speed_text, (double)o->damping, (double)o->omega, o->substeps, o->iterations, o->steps, iteration, o->threads, 1e3 * elapsed / steps,
           projection_text, 1e9 * elapsed / (steps * particles));
    if (is_rope) {
        printf("\"stretch\":%.5f,", sum_len / (0.25 * o->n));
    }
    if (is_pile) {
        printf("\"ns_per_particle_substep\":%.2f,", 1e9 * elapsed / (steps * o->substeps * particles));
        if (print_pile_quality(world, &layout) != 0) {
            return 1;
        }
        if (o->svg != NULL && iteration == 0 && pile_picture(world, &layout, o->svg) != 0) {
            fprintf(stderr, "sinew-bench: cannot write the picture to %s\n", o->svg);
            return 1;
        }
        printf(",");
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
    double snap_bytes = 0.0, save_ns = 0.0, load_ns = 0.0;
    if (snapshot_figures(world, particles, &snap_bytes, &save_ns, &load_ns) != 0) {
        fprintf(stderr, "sinew-bench: saving or loading the world failed\n");
        return 1;
    }
    // With --profile, where the steps' time went (sinew_world_profile), ms a step; with jobs, the
    // shares of the steps that ran on one thread and that the stepping thread waited for the others.
    if (o->profile != SINEW_PROFILE_OFF) {
        printf("\"profile\":{\"prepare\":%.4f,\"integrate\":%.4f,\"collide\":%.4f,\"solve\":%.4f,\"finish\":%.4f,"
               "\"end\":%.4f,\"jobs_per_step\":%.1f",
               (double)prof.prepare / steps, (double)prof.integrate / steps, (double)prof.collide / steps,
               (double)prof.solve / steps, (double)prof.finish / steps, (double)prof.end / steps, (double)prof.jobs / steps);
        if (o->profile == SINEW_PROFILE_JOBS && prof.step > 0.0f) {
            printf(",\"one_thread_share\":%.4f,\"wait_share\":%.4f,\"handoff_ns\":%d",
                   1.0 - (double)prof.parallel / prof.step, (double)prof.wait / prof.step, prof.handoff_ns);
        }
        printf("},");
    }
    printf("\"bytes_per_particle\":%.1f,", (double)sinew_world_byte_count(world) / particles);
    printf("\"snapshot_bytes_per_particle\":%.2f,\"save_ns_per_particle\":%.2f,\"load_ns_per_particle\":%.2f,",
           snap_bytes, save_ns, load_ns);
    if (o->save_world != NULL && iteration == 0 && save_world_file(world, o->save_world) != 0) {
        fprintf(stderr, "sinew-bench: cannot save the world to %s\n", o->save_world);
        return 1;
    }
    printf("\"max_error\":%.6g,\"rms_error\":%.6g,\"state_hash\":\"%016llx\"}\n", (double)st.max_error,
           (double)st.rms_error, (unsigned long long)state_hash(world));
    fflush(stdout);
    free(ids);
    free(areas);
    free(bottom);
    free(last);
    sinew_world_destroy(world);
    return 0;
}

// ---- ik (issue 5) -----------------------------------------------------------------------------

static int compare_ints(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int ik_method_of(const char *name)
{
    static const char *const names[] = {"relaxation", "fabrik", "ccd", "two-bone"};
    static const sinew_ik_method methods[] = {SINEW_IK_RELAXATION, SINEW_IK_FABRIK, SINEW_IK_CCD, SINEW_IK_TWO_BONE};
    for (int k = 0; k < 4; ++k) {
        if (strcmp(name, names[k]) == 0) {
            return (int)methods[k];
        }
    }
    return -1;
}

// The standalone solver on a chain of n bones of 1 m, based at the origin along +x, tolerance
// 1e-3 of the chain's length, at most o->cap iterations a solve, no limits, weights 1.
// cold: every solve starts from the straight rest pose; targets uniform over the disc the chain
//       reaches (area-uniform, radius up to the full length), drawn from a fixed seed.
// warm: every solve starts from the previous solution; the target moves along a closed curve
//       (radius 0.30 to 0.80 of the length), about 1% of the length per solve (60 Hz frames).
// The targets are made before the clock starts; only the solves are timed.
static int run_ik(const options *o, int iteration, int n_given, int steps_given)
{
    const int method = ik_method_of(o->method);
    const int warm = strcmp(o->start, "warm") == 0;
    const int n = n_given ? o->n : (method == SINEW_IK_TWO_BONE ? 2 : 10);
    if (n > SINEW_IK_MAX_BONES || (method == SINEW_IK_TWO_BONE && n != 2)) {
        fprintf(stderr, "sinew-bench: ik takes 1..%d bones (two-bone: exactly 2)\n", SINEW_IK_MAX_BONES);
        return 2;
    }
    const int solves = steps_given ? o->steps : 20000;
    float *angles = calloc((size_t)n, sizeof *angles), *lengths = malloc((size_t)n * sizeof *lengths);
    sinew_vec2 *targets = malloc((size_t)solves * sizeof *targets);
    int *used = malloc((size_t)solves * sizeof *used);
    if (angles == NULL || lengths == NULL || targets == NULL || used == NULL) {
        fprintf(stderr, "sinew-bench: out of memory\n");
        free(angles);
        free(lengths);
        free(targets);
        free(used);
        return 1;
    }
    for (int k = 0; k < n; ++k) {
        lengths[k] = 1.0f;
    }
    const double reach = (double)n;
    uint64_t seed = 0x1234567u + (uint64_t)iteration;
    for (int k = 0; k < solves; ++k) {
        if (warm) {
            const double ph = 2.0 * 3.14159265358979323846 * (double)k / 600.0;
            targets[k] = sinew_vec2_make((float)(reach * (0.55 * cos(ph) + 0.25 * cos(3.0 * ph))),
                                         (float)(reach * (0.55 * sin(ph) + 0.25 * sin(2.0 * ph))));
        } else { // xorshift64*: two uniforms per target
            double u[2];
            for (int m = 0; m < 2; ++m) {
                seed ^= seed >> 12;
                seed ^= seed << 25;
                seed ^= seed >> 27;
                u[m] = (double)((seed * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
            }
            const double r = reach * sqrt(u[0]), a = 2.0 * 3.14159265358979323846 * u[1];
            targets[k] = sinew_vec2_make((float)(r * cos(a)), (float)(r * sin(a)));
        }
    }
    sinew_ik_chain chain = {n, angles, lengths, NULL, sinew_vec2_make(0.0f, 0.0f), 0.0f};
    sinew_ik_def def = sinew_default_ik_def();
    def.method = (sinew_ik_method)method;
    def.max_iterations = o->cap;
    def.tolerance = (float)(1e-3 * reach);
    if (warm) { // start on the curve
        sinew_ik_solve(&def, &chain, targets[0], NULL);
    }
    long iterations = 0;
    int reached = 0, worst = 0;
    double distance = 0.0;
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    const double t0 = bench_now_seconds();
    for (int k = 0; k < solves; ++k) {
        if (!warm) {
            memset(angles, 0, (size_t)n * sizeof *angles);
        }
        sinew_ik_result r;
        if (sinew_ik_solve(&def, &chain, targets[k], &r) != SINEW_OK) {
            fprintf(stderr, "sinew-bench: the solver refused the chain\n");
            free(angles);
            free(lengths);
            free(targets);
            free(used);
            return 1;
        }
        iterations += r.iterations;
        used[k] = r.iterations;
        worst = r.iterations > worst ? r.iterations : worst;
        reached += r.reached;
        distance += r.distance;
    }
    const double elapsed = bench_now_seconds() - t0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    const double cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    qsort(used, (size_t)solves, sizeof *used, compare_ints);
    // us_per_solve is thread CPU time (a shared machine's other load does not count); wall time too.
    printf("{\"scene\":\"ik\",\"bones\":%d,\"method\":\"%s\",\"start\":\"%s\",\"solves\":%d,\"cap\":%d,"
           "\"tolerance\":%.4g,\"run\":%d,\"threads\":1,\"us_per_solve\":%.4f,\"wall_us_per_solve\":%.4f,"
           "\"mean_iterations\":%.3f,\"median_iterations\":%d,\"p99_iterations\":%d,\"max_iterations\":%d,"
           "\"reached_ratio\":%.5f,\"mean_distance\":%.4g}\n",
           n, o->method, o->start, solves, o->cap, (double)def.tolerance, iteration, 1e6 * cpu / solves,
           1e6 * elapsed / solves, (double)iterations / solves, used[solves / 2], used[(int)(0.99 * (solves - 1))], worst,
           (double)reached / solves, distance / solves);
    fflush(stdout);
    free(angles);
    free(lengths);
    free(targets);
    free(used);
    return 0;
}

int main(int argc, char **argv)
{
    const sinew_solver_def defaults = sinew_default_solver_def();
    options o = {"rope", 1000, 100, 100, 100, 0, 0, 0, 1, "gs", defaults.iterations, defaults.substeps, 600, 1, defaults.jacobi_omega,
                 "fabrik", "cold", 1000, NULL, NULL, sinew_default_world_def().contact_speed, 0.0f, 0, 0};
    int steps_given = 0, substeps_given = 0, iterations_given = 0, n_given = 0;
    for (int k = 1; k < argc; ++k) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        int ok = 1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--tethers") == 0) { // (flags take no value: `continue` keeps the next argument)
            o.tethers = 1;
            continue;
        } else if (strcmp(a, "--link-forces") == 0) {
            o.link_forces = 1;
            continue;
        } else if (strcmp(a, "--user-order") == 0) {
            o.user_order = 1;
            continue;
        } else if (v == NULL) {
            ok = 0;
        } else if (strcmp(a, "--scene") == 0) {
            o.scene = v;
        } else if (strcmp(a, "--save-world") == 0) {
            o.save_world = v;
        } else if (strcmp(a, "--svg") == 0) {
            o.svg = v;
        } else if (strcmp(a, "--rings") == 0) {
            ok = bench_parse_int(v, 1, 100000, &o.rings);
        } else if (strcmp(a, "--n") == 0) {
            ok = bench_parse_int(v, 1, 10000000, &o.n);
            n_given = 1;
        } else if (strcmp(a, "--size") == 0) {
            ok = sscanf(v, "%dx%d", &o.width, &o.height) == 2 && o.width >= 1 && o.height >= 2 &&
                 o.width <= 4096 && o.height <= 4096;
        } else if (strcmp(a, "--mode") == 0) {
            sinew_solver_def tmp;
            o.mode = v;
            ok = set_mode(v, &tmp);
        } else if (strcmp(a, "--iterations") == 0) {
            ok = bench_parse_int(v, 1, 1024, &o.iterations);
            iterations_given = 1;
        } else if (strcmp(a, "--substeps") == 0) {
            ok = bench_parse_int(v, 1, 1024, &o.substeps);
            substeps_given = 1;
        } else if (strcmp(a, "--steps") == 0) {
            ok = bench_parse_int(v, 1, 1000000, &o.steps);
            steps_given = 1;
        } else if (strcmp(a, "--repeat") == 0) {
            ok = bench_parse_int(v, 1, 1000, &o.repeat);
        } else if (strcmp(a, "--sample-every") == 0) {
            ok = bench_parse_int(v, 1, 1000000, &o.sample_every);
        } else if (strcmp(a, "--profile") == 0) {
            o.profile = strcmp(v, "stages") == 0 ? SINEW_PROFILE_STAGES : strcmp(v, "jobs") == 0 ? SINEW_PROFILE_JOBS : -1;
            ok = o.profile >= 0;
        } else if (strcmp(a, "--threads") == 0) {
            ok = bench_parse_int(v, 1, SINEW_MAX_WORKERS, &o.threads);
        } else if (strcmp(a, "--method") == 0) {
            o.method = v;
            ok = ik_method_of(v) >= 0;
        } else if (strcmp(a, "--start") == 0) {
            o.start = v;
            ok = strcmp(v, "cold") == 0 || strcmp(v, "warm") == 0;
        } else if (strcmp(a, "--cap") == 0) {
            ok = bench_parse_int(v, 1, SINEW_IK_MAX_ITERATIONS, &o.cap);
        } else if (strcmp(a, "--contact-speed") == 0) { // (inf: unbounded)
            ok = bench_parse_float(v, &o.contact_speed) && o.contact_speed > 0.0f;
        } else if (strcmp(a, "--damping") == 0) {
            ok = bench_parse_float(v, &o.damping) && o.damping >= 0.0f && o.damping < 1e6f;
        } else if (strcmp(a, "--omega") == 0) {
            ok = bench_parse_float(v, &o.omega) && o.omega > 0.0f && o.omega < 2.0f;
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
    const char *known[] = {"rope", "cloth", "pile", "softbody", "cloth-tear", "ik", "ik3"};
    int found = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k) {
        found |= strcmp(o.scene, known[k]) == 0;
    }
    if (!found) {
        fprintf(stderr, "sinew-bench: unknown scene '%s' (known: rope, cloth, pile, softbody, cloth-tear, ik, ik3)\n", o.scene);
        return 2;
    }
    if (strcmp(o.scene, "softbody") == 0 && !n_given) {
        o.n = 24;
    }
    if (!steps_given) {
        o.steps = strcmp(o.scene, "cloth") == 0 || strcmp(o.scene, "cloth-tear") == 0 ? 300 : 600;
    }
    if (o.sample_every > 0 && strcmp(o.scene, "pile") != 0) {
        fprintf(stderr, "sinew-bench: --sample-every applies to the pile only\n");
        return 2;
    }
    if (strcmp(o.scene, "pile") == 0) { // the pile's own defaults (issue: 4 sub-steps, 1 iteration)
        o.substeps = substeps_given ? o.substeps : 4;
        o.iterations = iterations_given ? o.iterations : 1;
    }
    if (strcmp(o.scene, "ik3") == 0 && !bench_ik3_method_known(o.method)) {
        fprintf(stderr, "sinew-bench: ik3 takes --method ccd|fabrik|two-bone\n");
        return 2;
    }
    for (int r = 0; r < o.repeat; ++r) {
        if (strcmp(o.scene, "ik3") == 0) {
            const int status = bench_ik3_run(o.method, o.start, n_given ? o.n : 0, steps_given ? o.steps : 0, o.cap, r);
            if (status != 0) {
                return status;
            }
            continue;
        }
        if (strcmp(o.scene, "ik") == 0 ? run_ik(&o, r, n_given, steps_given) != 0 : run(&o, r) != 0) {
            return 1;
        }
    }
    return 0;
}
