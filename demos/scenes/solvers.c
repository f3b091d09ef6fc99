// Solvers side by side: the same rope (pinned at both ends, released taut) and the same cloth
// (pinned along its top) in two worlds, solved by Gauss-Seidel on the left and Jacobi on the
// right with the same iterations and sub-steps (the keys change both). Jacobi's averaged
// corrections converge more slowly: its rope sags lower and its cloth stretches more, which the
// strain colours and the HUD's per-world errors show. A drag pulls the same particle in both.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../scene.h"

#define OFFSET 12.0f // the right world's content sits this far right of the left one's
#define LEFT_X (-10.5f)

typedef struct half {
    demo_links rope, cloth;
} half;

typedef struct solvers_scene {
    demo_scene base;
    half halves[2];
    int drag_index; // dense index of the dragged particle (the same in both worlds), -1 when none
    sinew_pin_id pins[2];
    sinew_vec2 mouse;
    sinew_vec2 grab; // autoplay
} solvers_scene;

static void solvers_destroy(demo_scene *scene)
{
    solvers_scene *s = (solvers_scene *)scene;
    if (s == NULL) {
        return;
    }
    for (int k = 0; k < 2; ++k) {
        sinew_world_destroy(s->base.worlds[k]);
        demo_links_free(&s->halves[k].rope);
        demo_links_free(&s->halves[k].cloth);
    }
    free(s);
}

static bool build_half(sinew_world *w, float ox, half *h)
{
    sinew_rope_def rope = sinew_default_rope_def();
    rope.start = sinew_vec2_make(ox, 6.5f);
    rope.end = sinew_vec2_make(ox + 9.0f, 6.5f);
    rope.links = 36;
    rope.pin_end = true;
    sinew_cloth_def cloth = sinew_default_cloth_def();
    cloth.origin = sinew_vec2_make(ox, 4.0f);
    cloth.columns = 26;
    cloth.rows = 16;
    cloth.spacing = 9.0f / 25.0f;
    cloth.pin = SINEW_CLOTH_PIN_TOP_CORNERS;
    sinew_scene_counts rn = sinew_rope_counts(&rope), cn = sinew_cloth_counts(&cloth);
    sinew_distance_id *rope_ids = calloc((size_t)rn.distances, sizeof *rope_ids);
    sinew_distance_id *cloth_ids = calloc((size_t)cn.distances, sizeof *cloth_ids);
    sinew_rope rope_out = {0};
    rope_out.links = rope_ids;
    sinew_cloth cloth_out = {0};
    cloth_out.links = cloth_ids;
    bool ok = rope_ids != NULL && cloth_ids != NULL &&
              demo_check(sinew_rope_create(w, &rope, &rope_out), w, "sinew_rope_create") &&
              demo_check(sinew_cloth_create(w, &cloth, &cloth_out), w, "sinew_cloth_create") &&
              demo_links_add(&h->rope, w, rope_ids, rope.links) && demo_links_add(&h->cloth, w, cloth_ids, cn.distances);
    free(rope_ids);
    free(cloth_ids);
    return ok;
}

static demo_scene *solvers_create(void)
{
    solvers_scene *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    s->drag_index = -1;
    s->base.world_names[0] = "left";
    s->base.world_names[1] = "right";
    s->base.lock_mode = true;
    s->base.view_min = sinew_vec2_make(-11.0f, -3.8f);
    s->base.view_max = sinew_vec2_make(11.0f, 8.0f);
    bool ok = true;
    for (int k = 0; k < 2 && ok; ++k) {
        sinew_world_def wd = sinew_default_world_def();
        wd.solver.mode = k == 0 ? SINEW_SOLVER_GAUSS_SEIDEL : SINEW_SOLVER_JACOBI;
        wd.damping = 1.0f; // so that both settle and what stays is the solver's error, not a bounce
        wd.solver.substeps = 2;
        wd.solver.iterations = 8;
        sinew_world *w = demo_add_world(&s->base, &wd);
        ok = w != NULL && build_half(w, LEFT_X + OFFSET * (float)k, &s->halves[k]);
    }
    if (!ok) {
        solvers_destroy(&s->base);
        return NULL;
    }
    return &s->base;
}

// Total length of a rope's links over their total rest length, minus 1.
static float rope_stretch(const demo_links *l, const sinew_world *w)
{
    double len = 0.0, rest = 0.0;
    for (int k = 0; k < l->count; ++k) {
        len += sinew_vec2_distance(demo_particle_at(w, l->a[k]), demo_particle_at(w, l->b[k]));
        rest += l->rest[k];
    }
    return rest > 0.0 ? (float)(len / rest - 1.0) : 0.0f;
}

static void end_drag(solvers_scene *s)
{
    for (int k = 0; k < 2; ++k) {
        if (sinew_pin_is_valid(s->base.worlds[k], s->pins[k])) {
            sinew_pin_destroy(s->base.worlds[k], s->pins[k]);
        }
        s->pins[k] = (sinew_pin_id)SINEW_NULL_ID;
    }
    s->drag_index = -1;
}

static void solvers_update(demo_scene *scene, const demo_input *in, float dt)
{
    (void)dt;
    solvers_scene *s = (solvers_scene *)scene;
    s->mouse = in->mouse;
    const int side = in->mouse.x < 0.0f ? 0 : 1;
    // The mouse in each world's own coordinates.
    const sinew_vec2 at[2] = {sinew_vec2_make(in->mouse.x - OFFSET * (float)side, in->mouse.y),
                              sinew_vec2_make(in->mouse.x + OFFSET * (float)(1 - side), in->mouse.y)};
    if (!in->left_down && s->drag_index >= 0) {
        end_drag(s);
    }
    if (in->left_pressed && s->drag_index < 0) {
        // Pick in the world under the mouse; pull the particle with the same index in both.
        sinew_particle_id id = demo_pick(scene->worlds[side], in->mouse, in->pick_radius);
        const int index = sinew_particle_index(scene->worlds[side], id);
        for (int k = 0; k < 2 && index >= 0; ++k) {
            sinew_pin_def pin = sinew_default_pin_def();
            pin.particle = sinew_particle_id_at(scene->worlds[k], index);
            pin.target = at[k];
            pin.compliance = DEMO_DRAG_COMPLIANCE;
            demo_check(sinew_pin_create(scene->worlds[k], &pin, &s->pins[k]), scene->worlds[k], "drag: sinew_pin_create");
        }
        s->drag_index = index;
    }
    for (int k = 0; k < 2 && s->drag_index >= 0; ++k) {
        sinew_pin_set_target(scene->worlds[k], s->pins[k], at[k]);
    }
    snprintf(scene->status, sizeof scene->status,
             "            GS      Jacobi\nrope length %+5.2f%%  %+5.2f%%\ncloth strain %5.1f%%  %5.1f%%",
             100.0 * (double)rope_stretch(&s->halves[0].rope, scene->worlds[0]),
             100.0 * (double)rope_stretch(&s->halves[1].rope, scene->worlds[1]),
             100.0 * (double)demo_links_max_strain(&s->halves[0].cloth, scene->worlds[0]),
             100.0 * (double)demo_links_max_strain(&s->halves[1].cloth, scene->worlds[1]));
}

static void solvers_draw(demo_scene *scene, demo_draw *d)
{
    solvers_scene *s = (solvers_scene *)scene;
    demo_draw_segment(d, sinew_vec2_make(0.0f, -3.8f), sinew_vec2_make(0.0f, 8.0f), 2.0f, demo_rgba(70, 80, 100, 255));
    const demo_color label = demo_rgba(210, 215, 230, 255);
    for (int k = 0; k < 2; ++k) {
        sinew_world *w = scene->worlds[k];
        const float ox = LEFT_X + OFFSET * (float)k;
        char text[96];
        const sinew_solver_def sd = sinew_world_get_solver(w);
        snprintf(text, sizeof text, "%s, %d x %d", k == 0 ? "Gauss-Seidel" : "Jacobi", sd.substeps, sd.iterations);
        demo_draw_text(d, sinew_vec2_make(ox, 7.8f), text, label);
        demo_draw_world(d, w, SINEW_DRAW_LINKS, 2.0f); // green at rest length, red at 10 % stretch
        sinew_particle_view v = sinew_world_particles(w);
        for (int i = 0; i < v.count; ++i) {
            if (v.weight[i] == 0.0f) {
                demo_draw_circle(d, sinew_vec2_make(v.x[i], v.y[i]), 4.0f * demo_draw_pixel(d), demo_rgba(255, 90, 80, 255));
            }
        }
        if (s->drag_index >= 0) {
            const sinew_vec2 p = demo_particle_at(w, s->drag_index);
            const sinew_vec2 m = sinew_vec2_make(s->mouse.x + OFFSET * (float)(k - (s->mouse.x < 0.0f ? 0 : 1)), s->mouse.y);
            demo_draw_segment(d, p, m, 2.0f, demo_rgba(255, 220, 90, 255));
            demo_draw_ring(d, p, 5.0f * demo_draw_pixel(d), 2.0f, demo_rgba(255, 220, 90, 255));
        }
    }
}

// Headless script: grab the middle of the left cloth's bottom edge and pull it down and left.
static void solvers_autoplay(demo_scene *scene, demo_input *in)
{
    solvers_scene *s = (solvers_scene *)scene;
    const int f = in->frame;
    in->mouse_in_view = true;
    in->left_down = f >= 80;
    if (f == 80) {
        s->grab = demo_particle_at(scene->worlds[0], 37 + 15 * 26 + 13); // after the rope's 37: row 15, column 13
    }
    const float t = f < 80 ? 0.0f : (float)(f - 80) / 40.0f;
    in->mouse = f < 80 ? sinew_vec2_make(-6.0f, -2.0f) : sinew_vec2_add(s->grab, sinew_vec2_make(-0.5f * t, -1.0f * t));
}

const demo_def demo_solvers = {
    "solvers",
    "Gauss-Seidel | Jacobi",
    "left: Gauss-Seidel, right: Jacobi, same iterations and sub-steps\n"
    "+ -  [ ]  o p change both worlds (g and j do nothing here)\n"
    "left drag: pull the same particle in both worlds\n"
    "links turn red at 10 % stretch",
    solvers_create,
    solvers_update,
    solvers_draw,
    solvers_destroy,
    solvers_autoplay,
};
