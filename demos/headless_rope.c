// sinew-rope-headless: steps a pinned rope for three seconds and prints where it is, once a
// second, as text. Needs no display; demos/run falls back to it when SDL2 cannot open a window.
#include <stdio.h>

#include <sinew/sinew.h>

int main(void)
{
    sinew_world *world = NULL;
    sinew_status s = sinew_world_create(NULL, &world);
    if (s != SINEW_OK) {
        fprintf(stderr, "sinew_world_create: %s\n", sinew_status_string(s));
        return 1;
    }
    sinew_rope_def rope = sinew_default_rope_def();
    rope.links = 30;
    rope.start = sinew_vec2_make(0.0f, 0.0f);
    rope.end = sinew_vec2_make(7.5f, 0.0f);
    s = sinew_rope_create(world, &rope, NULL);
    if (s != SINEW_OK) {
        fprintf(stderr, "sinew_rope_create: %s (%s)\n", sinew_status_string(s), sinew_world_last_error(world));
        return 1;
    }
    printf("A 30-link rope (7.5 m) pinned at the origin, released horizontally; 60 Hz, 4 sub-steps x 8 iterations.\n");
    for (int frame = 1; frame <= 180; ++frame) {
        sinew_world_step(world, 1.0f / 60.0f);
        if (frame % 60 != 0) {
            continue;
        }
        sinew_particle_view v = sinew_world_particles(world);
        sinew_step_stats st = sinew_world_stats(world);
        printf("t = %d s: end at (%6.3f, %6.3f), max link error %.2e m, rms %.2e m\n", frame / 60,
               (double)v.x[v.count - 1], (double)v.y[v.count - 1], (double)st.max_error, (double)st.rms_error);
    }
    sinew_world_destroy(world);
    return 0;
}
