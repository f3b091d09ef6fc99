// Rope: a rope pinned at one end with a heavy bob, released level so it swings and wraps round
// two pegs; and a slack rope (links that may shorten but never stretch, SINEW_DISTANCE_MAX_ONLY)
// hanging between two pins whose ends are closer than its length.
#include <stdio.h>
#include <stdlib.h>

#include "../scene.h"

typedef struct rope_scene {
    demo_scene base;
    demo_drag drag;
    demo_links swing, slack;
    sinew_particle_id bob, tip;
    sinew_vec2 grab; // autoplay: where the script grabbed the rope
} rope_scene;

// Builds a rope with the builder and keeps its links for drawing; writes the end pin (may be NULL)
// and the last particle.
static bool build_rope(rope_scene *s, const sinew_rope_def *def, demo_links *links, sinew_pin_id *end_pin,
                       sinew_particle_id *last)
{
    sinew_world *w = s->base.worlds[0];
    sinew_scene_counts n = sinew_rope_counts(def);
    sinew_particle_id *particles = calloc((size_t)n.particles, sizeof *particles);
    sinew_distance_id *ids = calloc((size_t)n.distances, sizeof *ids);
    sinew_rope out = {0};
    out.particles = particles;
    out.links = ids;
    bool ok = particles != NULL && ids != NULL && demo_check(sinew_rope_create(w, def, &out), w, "sinew_rope_create") &&
              demo_links_add(links, w, ids, def->links);
    if (ok) {
        if (end_pin != NULL) {
            *end_pin = out.end_pin;
        }
        *last = particles[def->links];
    }
    free(particles);
    free(ids);
    return ok;
}

static void rope_destroy(demo_scene *scene)
{
    rope_scene *s = (rope_scene *)scene;
    if (s == NULL) {
        return;
    }
    sinew_world_destroy(s->base.worlds[0]);
    demo_links_free(&s->swing);
    demo_links_free(&s->slack);
    free(s);
}

static demo_scene *rope_create(void)
{
    rope_scene *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    demo_drag_init(&s->drag);
    s->base.view_min = sinew_vec2_make(-10.0f, -4.5f);
    s->base.view_max = sinew_vec2_make(10.0f, 7.0f);
    sinew_world_def wd = sinew_default_world_def();
    sinew_world *w = demo_add_world(&s->base, &wd);
    if (w == NULL) {
        free(s);
        return NULL;
    }

    // Two pegs under the swing.
    sinew_collider_def cd = sinew_default_collider_def();
    bool ok = demo_check(sinew_circle_collider_create(w, &cd, sinew_vec2_make(-6.0f, -0.8f), 0.5f, NULL), w, "peg") &&
              demo_check(sinew_circle_collider_create(w, &cd, sinew_vec2_make(-2.6f, 0.2f), 0.35f, NULL), w, "peg");

    // The swinging rope: 32 links of 0.25 m, pinned at the left, colliding, a 5 kg bob at the end.
    sinew_rope_def swing = sinew_default_rope_def();
    swing.start = sinew_vec2_make(-8.0f, 5.0f);
    swing.end = sinew_vec2_make(0.0f, 5.0f);
    swing.links = 32;
    swing.radius = 0.08f;
    swing.particle_flags = SINEW_PARTICLE_COLLIDES;
    ok = ok && build_rope(s, &swing, &s->swing, NULL, &s->tip);
    if (ok) {
        sinew_particle_def bob = sinew_default_particle_def();
        bob.position = sinew_vec2_make(0.45f, 5.0f);
        bob.radius = 0.35f;
        bob.weight = 0.2f;
        sinew_distance_def link = sinew_default_distance_def();
        sinew_distance_id id;
        ok = demo_check(sinew_particle_create(w, &bob, &s->bob), w, "bob") &&
             (link.a = s->tip, link.b = s->bob, demo_check(sinew_distance_create(w, &link, &id), w, "bob link")) &&
             demo_links_add(&s->swing, w, &id, 1);
    }

    // The slack rope: 7.5 m of max-only links between pins, the right one then moved 3.5 m in.
    sinew_rope_def slack = sinew_default_rope_def();
    slack.start = sinew_vec2_make(2.0f, 5.0f);
    slack.end = sinew_vec2_make(9.5f, 5.0f);
    slack.links = 30;
    slack.pin_end = true;
    slack.mode = SINEW_DISTANCE_MAX_ONLY;
    sinew_pin_id end_pin = SINEW_NULL_ID;
    sinew_particle_id last;
    ok = ok && build_rope(s, &slack, &s->slack, &end_pin, &last) &&
         demo_check(sinew_pin_set_target(w, end_pin, sinew_vec2_make(6.0f, 5.0f)), w, "slack end");
    if (!ok) {
        rope_destroy(&s->base);
        return NULL;
    }
    return &s->base;
}

static void rope_update(demo_scene *scene, const demo_input *in, float dt)
{
    (void)dt;
    rope_scene *s = (rope_scene *)scene;
    demo_drag_update(&s->drag, scene, in, in->left_down, in->left_pressed);
    sinew_vec2 v = sinew_vec2_make(0.0f, 0.0f);
    sinew_particle_get_velocity(scene->worlds[0], s->bob, &v);
    snprintf(scene->status, sizeof scene->status, "swing: stretch %.2f %%\nbob: %.1f m/s",
             100.0 * (double)demo_links_max_strain(&s->swing, scene->worlds[0]), (double)sinew_vec2_length(v));
}

static void rope_draw(demo_scene *scene, demo_draw *d)
{
    rope_scene *s = (rope_scene *)scene;
    sinew_world *w = scene->worlds[0];
    demo_draw_world(d, w, SINEW_DRAW_COLLIDERS | SINEW_DRAW_LINKS | SINEW_DRAW_PARTICLES, 4.0f);
    sinew_vec2 bob;
    if (sinew_particle_get_position(w, s->bob, &bob) == SINEW_OK) {
        demo_draw_circle(d, bob, 0.35f, demo_rgba(235, 120, 60, 255));
    }
    demo_draw_text(d, sinew_vec2_make(-8.0f, 6.2f), "pinned rope, 5 kg bob", demo_rgba(200, 200, 210, 255));
    demo_draw_text(d, sinew_vec2_make(2.0f, 6.2f), "slack rope (max-only links)", demo_rgba(200, 200, 210, 255));
    demo_drag_draw(&s->drag, scene, d);
}

// Headless script: let it swing, then grab the middle of the swinging rope and pull it up.
static void rope_autoplay(demo_scene *scene, demo_input *in)
{
    rope_scene *s = (rope_scene *)scene;
    const int f = in->frame;
    in->mouse_in_view = true;
    in->left_down = f >= 70;
    if (f == 70) {
        s->grab = demo_particle_at(scene->worlds[0], 16); // the swing's particles come first
    }
    const float t = f < 70 ? 0.0f : (float)(f - 70) / 50.0f;
    in->mouse = f < 70 ? sinew_vec2_make(0.0f, 0.0f) : sinew_vec2_lerp(s->grab, sinew_vec2_make(-1.0f, 3.5f), t);
}

const demo_def demo_rope = {
    "rope",
    "Rope",
    "left drag: pull any particle (a spring pin on it)\n"
    "the swing wraps round the pegs; the slack rope bunches up when pushed",
    rope_create,
    rope_update,
    rope_draw,
    rope_destroy,
    rope_autoplay,
};
