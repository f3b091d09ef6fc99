// World lifecycle and settings.
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "world_internal.h"

static void *default_alloc(size_t size, void *user_data)
{
    (void)user_data;
    return malloc(size);
}

static void default_free(void *ptr, size_t size, void *user_data)
{
    (void)size;
    (void)user_data;
    free(ptr);
}

sinew_solver_def sinew_default_solver_def(void)
{
    sinew_solver_def s = {0};
    s.mode = SINEW_SOLVER_GAUSS_SEIDEL;
    s.substeps = 4;
    s.iterations = 8;
    s.jacobi_omega = 1.0f;
    s.order = SINEW_GS_ORDER_CREATED;
    s.shuffle_seed = 1u;
    return s;
}

sinew_world_def sinew_default_world_def(void)
{
    sinew_world_def def = {0};
    def.gravity = sinew_vec2_make(0.0f, -10.0f);
    def.damping = 0.0f;
    def.contact_speed = 3.0f;
    def.solver = sinew_default_solver_def();
    def.allocator.alloc = default_alloc;
    def.allocator.free = default_free;
    def.particle_capacity = 64;
    def.constraint_capacity = 64;
    def.skip_linked_pairs = true;
    def.workers = 1;
    return def;
}

static sinew_status check_solver(const sinew_world *world, const sinew_solver_def *s)
{
    if (s->mode != SINEW_SOLVER_GAUSS_SEIDEL && s->mode != SINEW_SOLVER_JACOBI) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "solver: unknown mode");
    }
    if (s->substeps < 1 || s->substeps > SINEW_MAX_SETTING) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "solver: substeps must be in 1..1024");
    }
    if (s->iterations < 1 || s->iterations > SINEW_MAX_SETTING) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "solver: iterations must be in 1..1024");
    }
    if (!sinew__finite(s->jacobi_omega)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "solver: jacobi_omega must be finite");
    }
    if (!(s->jacobi_omega > 0.0f && s->jacobi_omega < 2.0f)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "solver: jacobi_omega must be in (0, 2)");
    }
    if (s->order != SINEW_GS_ORDER_CREATED && s->order != SINEW_GS_ORDER_ALTERNATING &&
        s->order != SINEW_GS_ORDER_SHUFFLE) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "solver: unknown Gauss-Seidel order");
    }
    return SINEW_OK;
}

sinew_status sinew_world_create(const sinew_world_def *def_in, sinew_world **out)
{
    if (out == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    sinew_world_def def = def_in != NULL ? *def_in : sinew_default_world_def();
    if ((def.allocator.alloc == NULL) != (def.allocator.free == NULL) ||
        (def.enqueue_task == NULL) != (def.finish_task == NULL)) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (def.allocator.alloc == NULL) {
        def.allocator.alloc = default_alloc;
        def.allocator.free = default_free;
    }
    if (!sinew__finite2(def.gravity) || !sinew__finite(def.damping) || def.contact_speed != def.contact_speed) {
        return SINEW_ERR_NOT_FINITE;
    }
    if (!(def.contact_speed > 0.0f) || def.damping < 0.0f || def.particle_capacity < 0 || def.constraint_capacity < 0 || def.max_particles < 0 ||
        def.max_constraints < 0 || def.workers < 1 || def.workers > SINEW_MAX_WORKERS) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    sinew_status s = check_solver(NULL, &def.solver);
    if (s != SINEW_OK) {
        return s;
    }
    sinew_world *w = def.allocator.alloc(sizeof *w, def.allocator.user_data);
    if (w == NULL) {
        return SINEW_ERR_OUT_OF_MEMORY;
    }
    memset(w, 0, sizeof *w);
    w->allocator = def.allocator;
    w->byte_count = sizeof *w;
    w->last_error = "";
    w->user_data = def.user_data;
    w->gravity = def.gravity;
    w->damping = def.damping;
    w->contact_speed = def.contact_speed;
    w->solver = def.solver;
    w->max_particles = def.max_particles;
    w->max_constraints = def.max_constraints;
    w->h_prev = (1.0f / 60.0f) / (float)def.solver.substeps;
    w->skip_linked_pairs = def.skip_linked_pairs;
#if SINEW__X86
    __builtin_cpu_init();
    // SINEW_PORTABLE in the environment: the portable kernels, for measuring them (the results are
    // the same to the bit either way).
    w->avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && getenv("SINEW_PORTABLE") == NULL;
#endif
    if (sinew__tasks_init(w, &w->tasks, &def, &w->job_times) != SINEW_OK ||
        sinew__particles_reserve(w, def.particle_capacity) != SINEW_OK ||
        sinew__distances_reserve(w, def.constraint_capacity) != SINEW_OK ||
        sinew__pins_reserve(w, def.constraint_capacity > 16 ? 16 : def.constraint_capacity) != SINEW_OK ||
        sinew__scratch_need(w, sinew__scratch_wanted(w)) != SINEW_OK) {
        sinew_world_destroy(w);
        return SINEW_ERR_OUT_OF_MEMORY;
    }
    *out = w;
    return SINEW_OK;
}

void sinew_world_destroy(sinew_world *world)
{
    if (world == NULL) {
        return;
    }
    sinew__tasks_free(world, &world->tasks);
    sinew__history_free(world);
    sinew__grid_free(world);
    for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
        sinew__kinds[t]->free(world);
    }
    sinew__colliders_free(world);
    sinew__events_free(world);
    sinew__particles_free(world);
    sinew_allocator a = world->allocator;
    a.free(world, sizeof *world, a.user_data);
}

sinew_status sinew_world_set_workers(sinew_world *world, int workers)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (workers < 1 || workers > SINEW_MAX_WORKERS) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_world_set_workers: workers in 1..SINEW_MAX_WORKERS");
    }
    // The distances' span marks first (kept once allocated): a failure changes nothing.
    if (workers > 1 && world->distances.l.count > 0 && sinew__scratch_need(world, SINEW__NEED_SPANS) != SINEW_OK) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_MEMORY, "sinew_world_set_workers: allocating the span marks failed");
    }
    const sinew_status s = sinew__tasks_set_workers(world, &world->tasks, workers);
    return s == SINEW_OK ? s : sinew__fail(world, s, "sinew_world_set_workers: a worker thread could not start");
}

int sinew_world_get_workers(const sinew_world *world) { return world != NULL ? world->tasks.workers : 0; }

sinew_solver_def sinew_world_get_solver(const sinew_world *world)
{
    return world != NULL ? world->solver : sinew_default_solver_def();
}

sinew_status sinew_world_set_solver(sinew_world *world, const sinew_solver_def *solver)
{
    if (world == NULL || solver == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_world_set_solver: world and solver are required");
    }
    sinew_status s = check_solver(world, solver);
    if (s != SINEW_OK) {
        return s;
    }
    s = sinew__history_reserve(world, solver->substeps, solver->iterations);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_world_set_solver: growing the iteration history failed");
    }
    // The scratch of the new mode and order (it may fail). Kept when the mode changes back: a world
    // switched between modes allocates nothing once it has run in each.
    const sinew_solver_def old = world->solver;
    world->solver = *solver;
    const unsigned wanted = sinew__scratch_wanted(world);
    s = sinew__scratch_need(world, wanted);
    if (s != SINEW_OK) {
        world->solver = old;
        return sinew__fail(world, s, "sinew_world_set_solver: allocating the mode's scratch failed");
    }
    world->history_valid = false;
    return SINEW_OK;
}

sinew_status sinew_world_set_gravity(sinew_world *world, sinew_vec2 gravity)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (!sinew__finite2(gravity)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_world_set_gravity: gravity must be finite");
    }
    world->gravity = gravity;
    return SINEW_OK;
}

sinew_vec2 sinew_world_get_gravity(const sinew_world *world)
{
    return world != NULL ? world->gravity : sinew_vec2_make(0.0f, 0.0f);
}

sinew_status sinew_world_set_damping(sinew_world *world, float damping)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (!sinew__finite(damping)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_world_set_damping: damping must be finite");
    }
    if (damping < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_world_set_damping: damping must be >= 0");
    }
    world->damping = damping;
    return SINEW_OK;
}

sinew_status sinew_world_set_contact_speed(sinew_world *world, float speed)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (speed != speed) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_world_set_contact_speed: speed is NaN");
    }
    if (!(speed > 0.0f)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_world_set_contact_speed: speed must be > 0 (INFINITY: unbounded)");
    }
    world->contact_speed = speed;
    return SINEW_OK;
}

float sinew_world_get_contact_speed(const sinew_world *world) { return world != NULL ? world->contact_speed : 0.0f; }

size_t sinew_world_byte_count(const sinew_world *world) { return world != NULL ? world->byte_count : 0u; }

const char *sinew_world_last_error(const sinew_world *world) { return world != NULL ? world->last_error : ""; }

void *sinew_world_user_data(const sinew_world *world) { return world != NULL ? world->user_data : NULL; }
