// Cloth: a grid hanging from its top row, links that tear when stretched past a ratio (the
// builder's tear_ratio; torn links come back from sinew_world_tears), and a right-button knife
// that destroys every link the mouse path crosses. Torn pieces fall onto the floor.
#include <stdio.h>
#include <stdlib.h>

#include "../scene.h"

#define COLUMNS 56
#define ROWS 36
#define SPACING 0.22f
#define TEAR_RATIO 1.35f

typedef struct cloth_scene {
    demo_scene base;
    demo_drag drag;
    demo_links links;
    int torn, cut;
} cloth_scene;

static void cloth_destroy(demo_scene *scene)
{
    cloth_scene *s = (cloth_scene *)scene;
    if (s == NULL) {
        return;
    }
    sinew_world_destroy(s->base.worlds[0]);
    demo_links_free(&s->links);
    free(s);
}

static demo_scene *cloth_create(void)
{
    cloth_scene *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    demo_drag_init(&s->drag);
    // A hard pull (a PBD stiffness applied every iteration), so that pulling can tear the cloth.
    s->drag.stiffness = 0.2f;
    s->drag.compliance = 0.0f;
    const float width = SPACING * (COLUMNS - 1);
    s->base.view_min = sinew_vec2_make(-0.5f * width - 1.0f, -4.6f);
    s->base.view_max = sinew_vec2_make(0.5f * width + 1.0f, 7.6f);
    sinew_world_def wd = sinew_default_world_def();
    sinew_world *w = demo_add_world(&s->base, &wd);
    if (w == NULL) {
        free(s);
        return NULL;
    }
    sinew_cloth_def def = sinew_default_cloth_def();
    def.columns = COLUMNS;
    def.rows = ROWS;
    def.spacing = SPACING;
    def.origin = sinew_vec2_make(-0.5f * width, 7.0f);
    def.radius = 0.06f;
    def.particle_flags = SINEW_PARTICLE_COLLIDES;
    def.tear_ratio = TEAR_RATIO;
    sinew_scene_counts n = sinew_cloth_counts(&def);
    sinew_distance_id *ids = calloc((size_t)n.distances, sizeof *ids);
    sinew_cloth out = {0};
    out.links = ids;
    sinew_collider_def cd = sinew_default_collider_def();
    bool ok = ids != NULL && demo_check(sinew_cloth_create(w, &def, &out), w, "sinew_cloth_create") &&
              demo_links_add(&s->links, w, ids, n.distances) &&
              demo_check(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0.0f, 1.0f), -4.0f, NULL), w, "floor");
    free(ids);
    if (!ok) {
        cloth_destroy(&s->base);
        return NULL;
    }
    return &s->base;
}

static void cloth_update(demo_scene *scene, const demo_input *in, float dt)
{
    (void)dt;
    cloth_scene *s = (cloth_scene *)scene;
    sinew_world *w = scene->worlds[0];
    int tears = 0;
    sinew_world_tears(w, &tears); // torn by the last step
    if (tears > 0) {
        s->torn += tears;
        demo_links_prune(&s->links, w);
    }
    if (in->right_down) {
        s->cut += demo_links_cut(&s->links, w, in->mouse_prev, in->mouse, 0.25f * in->pick_radius);
    }
    demo_drag_update(&s->drag, scene, in, in->left_down, in->left_pressed);
    snprintf(scene->status, sizeof scene->status, "links %d   torn %d   cut %d\ntear ratio %.2f   max strain %.0f %%",
             s->links.count, s->torn, s->cut, (double)TEAR_RATIO, 100.0 * (double)demo_links_max_strain(&s->links, w));
}

static void cloth_draw(demo_scene *scene, demo_draw *d)
{
    cloth_scene *s = (cloth_scene *)scene;
    sinew_world *w = scene->worlds[0];
    demo_draw_world(d, w, SINEW_DRAW_COLLIDERS | SINEW_DRAW_LINKS, 2.0f); // links green, red as they stretch
    // Only the pinned particles as dots: the links are the cloth.
    sinew_particle_view v = sinew_world_particles(w);
    const float px = demo_draw_pixel(d);
    for (int i = 0; i < v.count; ++i) {
        if (v.weight[i] == 0.0f) {
            demo_draw_circle(d, sinew_vec2_make(v.x[i], v.y[i]), 3.0f * px, demo_rgba(255, 90, 80, 255));
        }
    }
    demo_drag_draw(&s->drag, scene, d);
}

// Headless script: a knife stroke up the middle, then a pull on the lower left that tears.
static void cloth_autoplay(demo_scene *scene, demo_input *in)
{
    (void)scene;
    const int f = in->frame;
    const float width = SPACING * (COLUMNS - 1);
    in->mouse_in_view = true;
    if (f >= 10 && f < 40) {
        const float t = (float)(f - 10) / 29.0f;
        in->right_down = true;
        in->mouse = sinew_vec2_make(0.0f, -1.0f + 5.0f * t);
    } else if (f >= 50) {
        const float t = (float)(f - 50) / 70.0f;
        sinew_vec2 grab = sinew_vec2_make(-0.5f * width + 2.0f * SPACING, 7.0f - SPACING * (ROWS - 1));
        in->left_down = true;
        in->mouse = sinew_vec2_lerp(grab, sinew_vec2_make(-0.5f * width - 0.5f, -3.5f), t);
        if (f == 50) {
            in->mouse = demo_particle_at(scene->worlds[0], (ROWS - 1) * COLUMNS + 2);
        }
    } else {
        in->mouse = sinew_vec2_make(0.0f, -1.0f);
    }
}

const demo_def demo_cloth = {
    "cloth",
    "Cloth",
    "left drag: pull the cloth (pull hard and it tears)\n"
    "right drag: cut every link the mouse crosses\n"
    "links turn red as they stretch toward the tear ratio",
    cloth_create,
    cloth_update,
    cloth_draw,
    cloth_destroy,
    cloth_autoplay,
};
