// A first sinew program, and the program tests/consumers/check.sh builds three ways
// (installed + pkg-config, meson subproject, engine/ compiled in-tree).
//
// A rope of 20 links hangs from a pinned start and falls under gravity for two seconds
// (120 steps of 1/60 s). Prints the particle count and the end particle's position. Exits 0
// when the end fell and every position is finite, 1 otherwise.
#include <sinew/sinew.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define LINKS 20

// Prints the failed call, the status name and the world's explanation, then exits.
static void check(sinew_world *world, sinew_status s, const char *what)
{
    if (s != SINEW_OK) {
        fprintf(stderr, "%s: %s (%s)\n", what, sinew_status_string(s),
                world != NULL ? sinew_world_last_error(world) : "no world");
        sinew_world_destroy(world);
        exit(1);
    }
}

int main(void)
{
    // 1. A world with the default settings: gravity (0, -10) m/s^2, 4 sub-steps x 8 iterations.
    sinew_world_def world_def = sinew_default_world_def();
    sinew_world *world = NULL;
    check(NULL, sinew_world_create(&world_def, &world), "sinew_world_create");

    // 2. A horizontal rope from (0, 0) to (5, 0); the start is pinned, the end is free.
    sinew_rope_def rope_def = sinew_default_rope_def();
    rope_def.start = sinew_vec2_make(0.0f, 0.0f);
    rope_def.end = sinew_vec2_make(5.0f, 0.0f);
    rope_def.links = LINKS;
    sinew_particle_id particles[LINKS + 1];
    sinew_distance_id links[LINKS];
    sinew_rope rope = {.particles = particles, .links = links};
    check(world, sinew_rope_create(world, &rope_def, &rope), "sinew_rope_create");

    sinew_particle_id end = particles[LINKS];
    sinew_vec2 start_pos;
    check(world, sinew_particle_get_position(world, end, &start_pos), "sinew_particle_get_position");

    // 3. Step at a fixed 60 Hz.
    for (int i = 0; i < 120; ++i) {
        check(world, sinew_world_step(world, 1.0f / 60.0f), "sinew_world_step");
    }

    // 4. Read the particles back through the structure-of-arrays view, as a renderer would.
    sinew_particle_view view = sinew_world_particles(world);
    int finite = 1;
    for (int i = 0; i < view.count; ++i) {
        finite = finite && isfinite(view.x[i]) && isfinite(view.y[i]);
    }

    sinew_vec2 end_pos;
    check(world, sinew_particle_get_position(world, end, &end_pos), "sinew_particle_get_position");
    printf("sinew example: %d particles, rope end at (%.3f, %.3f)\n", view.count, (double)end_pos.x,
           (double)end_pos.y);

    sinew_world_destroy(world);

    if (!finite) {
        fprintf(stderr, "a particle position is not finite\n");
        return 1;
    }
    if (!(end_pos.y < start_pos.y)) {
        fprintf(stderr, "the rope end did not fall (y %.3f -> %.3f)\n", (double)start_pos.y, (double)end_pos.y);
        return 1;
    }
    return 0;
}
