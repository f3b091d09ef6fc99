#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world_internal.h" // sinew__random_next: the engine's splitmix64

static void *counting_alloc(size_t size, void *user_data)
{
    counting_allocator *c = user_data;
    if (c->fail_after >= 0 && c->allocs >= (uint64_t)c->fail_after) {
        return NULL;
    }
    void *p = malloc(size);
    if (p != NULL) {
        c->allocs += 1;
        c->live_bytes += size;
    }
    return p;
}

static void counting_free(void *ptr, size_t size, void *user_data)
{
    counting_allocator *c = user_data;
    c->frees += 1;
    c->live_bytes -= size;
    free(ptr);
}

sinew_allocator counting_allocator_make(counting_allocator *c)
{
    memset(c, 0, sizeof *c);
    c->fail_after = -1;
    sinew_allocator a = {counting_alloc, counting_free, c};
    return a;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < n; ++k) {
        h ^= p[k];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t next_random(uint64_t *state) { return sinew__random_next(state); }

void assert_status_at(sinew_status got, sinew_status expected, const char *what_format, ...)
{
    if (got == expected) {
        return;
    }
    char what[256];
    va_list args;
    va_start(args, what_format);
    vsnprintf(what, sizeof what, what_format, args);
    va_end(args);
    fail_msg("%s: got %s, expected %s", what, sinew_status_string(got), sinew_status_string(expected));
}

double uniform(uint64_t *state, double lo, double hi)
{
    return lo + (hi - lo) * (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

sinew_vec2 uniform_vec2(uint64_t *state, double xlo, double xhi, double ylo, double yhi)
{
    const float y = (float)uniform(state, ylo, yhi);
    const float x = (float)uniform(state, xlo, xhi);
    return sinew_vec2_make(x, y);
}

uint64_t hash_positions(const sinew_world *world)
{
    sinew_particle_view v = sinew_world_particles(world);
    uint64_t h = 0xcbf29ce484222325ull;
    size_t n = (size_t)v.count * sizeof(float);
    h = fnv1a(h, v.x, n);
    h = fnv1a(h, v.y, n);
    h = fnv1a(h, v.px, n);
    h = fnv1a(h, v.py, n);
    return h;
}

void step_world(sinew_world *world, int steps)
{
    for (int s = 0; s < steps; ++s) {
        assert_int_equal(sinew_world_step(world, 1.0f / 60.0f), SINEW_OK);
    }
}

sinew_world *make_world(sinew_solver_mode mode)
{
    sinew_world_def def = sinew_default_world_def();
    def.solver.mode = mode;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    assert_non_null(w);
    return w;
}

sinew_particle_id make_particle(sinew_world *world, float x, float y, float weight)
{
    sinew_particle_def p = sinew_default_particle_def();
    p.position = sinew_vec2_make(x, y);
    p.weight = weight;
    sinew_particle_id id;
    assert_int_equal(sinew_particle_create(world, &p, &id), SINEW_OK);
    return id;
}

sinew_particle_id make_free_particle(sinew_world *world, float x, float y, float weight)
{
    sinew_particle_def p = sinew_default_particle_def();
    p.position = sinew_vec2_make(x, y);
    p.weight = weight;
    p.flags = 0;
    sinew_particle_id id;
    assert_int_equal(sinew_particle_create(world, &p, &id), SINEW_OK);
    return id;
}

sinew_distance_id make_link(sinew_world *world, sinew_particle_id a, sinew_particle_id b)
{
    sinew_distance_def d = sinew_default_distance_def();
    d.a = a;
    d.b = b;
    sinew_distance_id id;
    assert_int_equal(sinew_distance_create(world, &d, &id), SINEW_OK);
    return id;
}

sinew_vec2 position_of(const sinew_world *world, sinew_particle_id id)
{
    sinew_vec2 p;
    assert_int_equal(sinew_particle_get_position(world, id, &p), SINEW_OK);
    return p;
}

held count_by_stepping(sinew_world *w)
{
    const int particles = sinew_world_particles(w).count;
    assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    const sinew_step_stats st = sinew_world_stats(w);
    assert_int_equal(st.particles, particles);
    held h = {particles,
              st.kinds[SINEW_KIND_DISTANCE].count,
              st.kinds[SINEW_KIND_PIN].count,
              st.kinds[SINEW_KIND_AREA].count,
              st.kinds[SINEW_KIND_ANGLE].count,
              sinew_world_collider_count(w)};
    return h;
}

void assert_held(held h, sinew_scene_counts c, const char *what)
{
    if (h.particles != c.particles || h.distances != c.distances || h.pins != c.pins || h.areas != c.areas ||
        h.angles != c.angles) {
        fail_msg("%s: made %d particles, %d distances, %d pins, %d areas, %d angles; counts say %d, %d, %d, %d, %d",
                 what, h.particles, h.distances, h.pins, h.areas, h.angles, c.particles, c.distances, c.pins, c.areas,
                 c.angles);
    }
}

void make_arm_in(sinew_world *world, const sinew_ik_arm_def *def, arm_ids *out)
{
    memset(out, 0, sizeof *out);
    out->arm.particles = out->particles;
    out->arm.bones = out->bones;
    out->arm.limits = out->limits;
    out->arm.limit_values = out->limit_values;
    assert_int_equal(sinew_ik_arm_create(world, def, &out->arm), SINEW_OK);
}
