// Ball pile: thousands of balls of mixed sizes dropped into a box with two slopes
// (sinew_pile_create with SINEW_PILE_SLOPES). Hold the left button to pour more where the mouse
// is, press b for a thousand at once; balls are coloured by speed, so the settling shows.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../scene.h"

#define DEFAULT_BALLS 3000
#define R_MIN 0.3f
#define R_MAX 0.45f
#define SPACING 1.0f

typedef struct pile_scene {
    demo_scene base;
    demo_drag drag;
    sinew_pile pile;
    uint64_t rng;
    demo_color *colors;
    int color_capacity;
    int poured;
} pile_scene;

static float random01(pile_scene *s)
{
    s->rng = s->rng * 6364136223846793005u + 1442695040888963407u;
    return (float)(s->rng >> 40) / (float)(1u << 24);
}

static void pile_destroy(demo_scene *scene)
{
    pile_scene *s = (pile_scene *)scene;
    if (s == NULL) {
        return;
    }
    sinew_world_destroy(s->base.worlds[0]);
    free(s->colors);
    free(s);
}

static demo_scene *pile_create(void)
{
    pile_scene *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    demo_drag_init(&s->drag);
    s->rng = 12345u;
    sinew_world_def wd = sinew_default_world_def();
    const int count = demo_opts.balls > 0 ? demo_opts.balls : DEFAULT_BALLS;
    wd.particle_capacity = count + 1024;
    sinew_world *w = demo_add_world(&s->base, &wd);
    if (w == NULL) {
        free(s);
        return NULL;
    }
    sinew_pile_def def = sinew_default_pile_def();
    def.count = count;
    // Wider than tall: 75 columns up to 3000 balls, then about twice as wide as tall.
    def.columns = count <= DEFAULT_BALLS ? 75 : (int)ceilf(sqrtf(2.0f * (float)count));
    def.spacing = SPACING;
    def.radius_min = R_MIN;
    def.radius_max = R_MAX;
    def.container = SINEW_PILE_SLOPES;
    if (!demo_check(sinew_pile_create(w, &def, &s->pile), w, "sinew_pile_create")) {
        pile_destroy(&s->base);
        return NULL;
    }
    s->base.view_min = sinew_vec2_sub(s->pile.box_min, sinew_vec2_make(1.0f, 1.0f));
    s->base.view_max = sinew_vec2_add(s->pile.box_max, sinew_vec2_make(1.0f, 1.0f));
    return &s->base;
}

// A ball at p unless another one is already there.
static bool spawn(pile_scene *s, sinew_vec2 p)
{
    sinew_world *w = s->base.worlds[0];
    if (p.x < s->pile.box_min.x + R_MAX || p.x > s->pile.box_max.x - R_MAX || p.y < s->pile.box_min.y + R_MAX) {
        return false;
    }
    int near = 0;
    if (sinew_world_query_circle(w, p, 2.0f * R_MAX, NULL, 0, &near) != SINEW_OK || near > 0) {
        return false;
    }
    sinew_particle_def b = sinew_default_particle_def();
    b.position = p;
    b.velocity = sinew_vec2_make(0.0f, -3.0f);
    b.radius = R_MIN + (R_MAX - R_MIN) * random01(s);
    sinew_particle_id id;
    if (!demo_check(sinew_particle_create(w, &b, &id), w, "spawn: sinew_particle_create")) {
        return false;
    }
    s->poured += 1;
    return true;
}

static void pile_update(demo_scene *scene, const demo_input *in, float dt)
{
    (void)dt;
    pile_scene *s = (pile_scene *)scene;
    sinew_world *w = scene->worlds[0];
    if (in->left_down) { // pour: a short row of balls a step
        for (int k = -2; k <= 2; ++k) {
            spawn(s, sinew_vec2_make(in->mouse.x + 2.2f * R_MAX * (float)k + 0.1f * random01(s), in->mouse.y));
        }
    }
    if (in->key == 'b') { // a thousand above the highest ball
        sinew_particle_view v = sinew_world_particles(w);
        float top = s->pile.box_min.y;
        for (int i = 0; i < v.count; ++i) {
            top = v.y[i] > top ? v.y[i] : top;
        }
        const int columns = (int)((s->pile.box_max.x - s->pile.box_min.x - 2.0f) / SPACING);
        for (int i = 0; i < 1000 && columns > 0; ++i) {
            const int c = i % columns, r = i / columns;
            spawn(s, sinew_vec2_make(s->pile.box_min.x + 1.0f + SPACING * ((float)c + 0.3f * (float)(r & 1)),
                                     top + 2.0f + SPACING * (float)r));
        }
    }
    demo_drag_update(&s->drag, scene, in, in->right_down, in->right_pressed);
    snprintf(scene->status, sizeof scene->status, "balls %d (%d poured)\nleft: pour   b: +1000",
             sinew_world_particles(w).count, s->poured);
}

static void pile_draw(demo_scene *scene, demo_draw *d)
{
    pile_scene *s = (pile_scene *)scene;
    sinew_world *w = scene->worlds[0];
    demo_draw_world(d, w, SINEW_DRAW_COLLIDERS, 2.0f);
    sinew_particle_view v = sinew_world_particles(w);
    if (v.count > s->color_capacity) {
        demo_color *c = realloc(s->colors, (size_t)v.count * 2 * sizeof *c);
        if (c == NULL) {
            return;
        }
        s->colors = c;
        s->color_capacity = v.count * 2;
    }
    // Speed from the last sub-step's displacement; blue at rest, through teal and gold to red.
    const float per_second = 60.0f * (float)sinew_world_get_solver(w).substeps;
    const demo_color slow = demo_rgba(52, 101, 164, 255), mid = demo_rgba(72, 190, 170, 255);
    const demo_color fast = demo_rgba(250, 200, 80, 255), fastest = demo_rgba(240, 80, 60, 255);
    for (int i = 0; i < v.count; ++i) {
        const float speed = hypotf(v.x[i] - v.px[i], v.y[i] - v.py[i]) * per_second;
        demo_color c = speed < 2.0f ? demo_color_mix(slow, mid, speed / 2.0f)
                     : speed < 6.0f ? demo_color_mix(mid, fast, (speed - 2.0f) / 4.0f)
                                    : demo_color_mix(fast, fastest, (speed - 6.0f) / 6.0f);
        // A little brightness noise per ball, so neighbours stay apart.
        const float shade = 0.88f + 0.12f * (float)((uint32_t)i * 2654435761u >> 28) / 15.0f;
        c.r = (uint8_t)((float)c.r * shade);
        c.g = (uint8_t)((float)c.g * shade);
        c.b = (uint8_t)((float)c.b * shade);
        s->colors[i] = c;
    }
    demo_draw_circles(d, v.count, v.x, v.y, v.radius, 0.0f, s->colors, demo_rgba(255, 255, 255, 255));
    demo_drag_draw(&s->drag, scene, d);
}

// Headless script: pour onto the left slope for a second and a half.
static void pile_autoplay(demo_scene *scene, demo_input *in)
{
    pile_scene *s = (pile_scene *)scene;
    in->mouse_in_view = true;
    in->left_down = in->frame >= 20 && in->frame < 110;
    in->mouse = sinew_vec2_make(s->pile.box_min.x + 0.3f * (s->pile.box_max.x - s->pile.box_min.x),
                                s->pile.box_max.y - 2.0f);
}

const demo_def demo_pile = {
    "pile",
    "Ball pile",
    "left hold: pour balls at the mouse\n"
    "b: a thousand balls above the pile\n"
    "right drag: pull a ball\n"
    "colour is speed: blue at rest, gold and red fast",
    pile_create,
    pile_update,
    pile_draw,
    pile_destroy,
    pile_autoplay,
};
