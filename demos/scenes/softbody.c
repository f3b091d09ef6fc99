// Soft bodies: pressure blobs (sinew_softbody_create: a ring of particles holding its area, filled
// with nothing, a centre particle and spokes, or cross springs; one of them under-inflated) and
// two jelly boxes (sinew_default_jelly_def: a colliding grid with shear links), dropped onto two
// slopes, a peg and each other in a closed box. i / u inflate and deflate the blobs.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../scene.h"

#define MAX_BODIES 8

typedef struct body {
    bool jelly;
    int columns, rows;        // jelly
    int ring_count;           // blob: particles on the ring
    int *index;               // dense particle indices: the ring (blob) or the grid, row-major (jelly)
    sinew_area_id area;       // blob
    float pressure, ring_area;// blob: the pressure now and the ring's area when made
    demo_links links;
    demo_color color;
    const char *name;
} body;

typedef struct softbody_scene {
    demo_scene base;
    demo_drag drag;
    body bodies[MAX_BODIES];
    int body_count;
} softbody_scene;

static void softbody_destroy(demo_scene *scene)
{
    softbody_scene *s = (softbody_scene *)scene;
    if (s == NULL) {
        return;
    }
    sinew_world_destroy(s->base.worlds[0]);
    for (int k = 0; k < s->body_count; ++k) {
        free(s->bodies[k].index);
        demo_links_free(&s->bodies[k].links);
    }
    free(s);
}

static bool add_blob(softbody_scene *s, sinew_vec2 at, float radius, sinew_softbody_inside inside, float pressure,
                     demo_color color, const char *name)
{
    sinew_world *w = s->base.worlds[0];
    body *b = &s->bodies[s->body_count];
    sinew_softbody_def def = sinew_default_softbody_def();
    def.center = at;
    def.radius = radius;
    def.points = 28;
    def.inside = inside;
    def.pressure = pressure;
    def.inner_stiffness = 0.05f;
    sinew_scene_counts n = sinew_softbody_counts(&def);
    sinew_particle_id *ids = calloc((size_t)n.particles, sizeof *ids);
    sinew_distance_id *links = calloc((size_t)n.distances, sizeof *links);
    b->index = calloc((size_t)n.particles, sizeof *b->index);
    sinew_softbody out = {0};
    out.particles = ids;
    out.links = links;
    bool ok = ids != NULL && links != NULL && b->index != NULL &&
              demo_check(sinew_softbody_create(w, &def, &out), w, "sinew_softbody_create") &&
              demo_links_add(&b->links, w, links, n.distances);
    if (ok) {
        for (int i = 0; i < n.particles; ++i) {
            b->index[i] = sinew_particle_index(w, ids[i]);
        }
        b->ring_count = def.points;
        b->area = out.area;
        b->pressure = pressure;
        ok = demo_check(sinew_area_get_area(w, out.area, &b->ring_area), w, "sinew_area_get_area");
        b->color = color;
        b->name = name;
    }
    free(ids);
    free(links);
    s->body_count += 1; // counted even on failure, so that destroy frees it
    return ok;
}

static bool add_jelly(softbody_scene *s, sinew_vec2 top_left, int columns, int rows, demo_color color)
{
    sinew_world *w = s->base.worlds[0];
    body *b = &s->bodies[s->body_count];
    sinew_cloth_def def = sinew_default_jelly_def();
    def.origin = top_left;
    def.columns = columns;
    def.rows = rows;
    sinew_scene_counts n = sinew_cloth_counts(&def);
    sinew_particle_id *ids = calloc((size_t)n.particles, sizeof *ids);
    sinew_distance_id *links = calloc((size_t)n.distances, sizeof *links);
    b->index = calloc((size_t)n.particles, sizeof *b->index);
    sinew_cloth out = {0};
    out.particles = ids;
    out.links = links;
    bool ok = ids != NULL && links != NULL && b->index != NULL &&
              demo_check(sinew_cloth_create(w, &def, &out), w, "jelly: sinew_cloth_create") &&
              demo_links_add(&b->links, w, links, n.distances);
    if (ok) {
        for (int i = 0; i < n.particles; ++i) {
            b->index[i] = sinew_particle_index(w, ids[i]);
        }
        b->jelly = true;
        b->columns = columns;
        b->rows = rows;
        b->color = color;
        b->name = "jelly";
    }
    free(ids);
    free(links);
    s->body_count += 1;
    return ok;
}

static demo_scene *softbody_create(void)
{
    softbody_scene *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    demo_drag_init(&s->drag);
    s->base.view_min = sinew_vec2_make(-12.5f, -7.5f);
    s->base.view_max = sinew_vec2_make(12.5f, 10.5f);
    sinew_world_def wd = sinew_default_world_def();
    sinew_world *w = demo_add_world(&s->base, &wd);
    if (w == NULL) {
        free(s);
        return NULL;
    }
    sinew_collider_def cd = sinew_default_collider_def();
    bool ok =
        demo_check(sinew_world_bounds_create(w, &cd, sinew_vec2_make(-12.0f, -7.0f), sinew_vec2_make(12.0f, 14.0f), NULL),
                   w, "bounds") &&
        demo_check(sinew_segment_collider_create(w, &cd, sinew_vec2_make(-12.0f, 2.0f), sinew_vec2_make(-3.5f, -2.5f),
                                                 0.2f, NULL), w, "slope") &&
        demo_check(sinew_segment_collider_create(w, &cd, sinew_vec2_make(12.0f, 0.5f), sinew_vec2_make(4.0f, -4.0f),
                                                 0.2f, NULL), w, "slope") &&
        demo_check(sinew_circle_collider_create(w, &cd, sinew_vec2_make(0.5f, -5.0f), 0.9f, NULL), w, "peg");
    ok = ok && add_blob(s, sinew_vec2_make(-8.5f, 5.5f), 1.4f, SINEW_SOFTBODY_EMPTY, 1.0f,
                        demo_rgba(90, 170, 250, 255), "empty");
    ok = ok && add_blob(s, sinew_vec2_make(-5.0f, 9.0f), 1.2f, SINEW_SOFTBODY_CENTER, 1.0f,
                        demo_rgba(250, 150, 70, 255), "centre");
    ok = ok && add_blob(s, sinew_vec2_make(8.0f, 5.0f), 1.3f, SINEW_SOFTBODY_SPRINGS, 1.0f,
                        demo_rgba(120, 210, 120, 255), "springs");
    ok = ok && add_blob(s, sinew_vec2_make(5.5f, 9.5f), 1.2f, SINEW_SOFTBODY_EMPTY, 0.6f,
                        demo_rgba(230, 110, 200, 255), "soft");
    ok = ok && add_jelly(s, sinew_vec2_make(-0.5f, 6.0f), 8, 8, demo_rgba(250, 210, 80, 255));
    ok = ok && add_jelly(s, sinew_vec2_make(-9.5f, 10.0f), 14, 5, demo_rgba(170, 130, 250, 255));
    if (!ok) {
        softbody_destroy(&s->base);
        return NULL;
    }
    return &s->base;
}

static void softbody_update(demo_scene *scene, const demo_input *in, float dt)
{
    (void)dt;
    softbody_scene *s = (softbody_scene *)scene;
    sinew_world *w = scene->worlds[0];
    const float factor = in->key == 'i' ? 1.15f : in->key == 'u' ? 1.0f / 1.15f : 1.0f;
    int n = snprintf(scene->status, sizeof scene->status, "area / target (i, u: pressure)\n");
    for (int k = 0; k < s->body_count; ++k) {
        body *b = &s->bodies[k];
        if (b->jelly) {
            continue;
        }
        if (factor != 1.0f) {
            const float p = fminf(3.0f, fmaxf(0.2f, b->pressure * factor));
            if (demo_check(sinew_area_set_pressure(w, b->area, p), w, "sinew_area_set_pressure")) {
                b->pressure = p;
            }
        }
        float area = 0.0f;
        sinew_area_get_area(w, b->area, &area);
        n += snprintf(scene->status + n, sizeof scene->status - (size_t)n, "%s%s %.0f%%", k == 2 ? "\n" : k > 0 ? "   " : "",
                      b->name, 100.0 * (double)area / (double)(b->pressure * b->ring_area));
    }
    demo_drag_update(&s->drag, scene, in, in->left_down, in->left_pressed);
}

static void softbody_draw(demo_scene *scene, demo_draw *d)
{
    softbody_scene *s = (softbody_scene *)scene;
    sinew_world *w = scene->worlds[0];
    demo_draw_world(d, w, SINEW_DRAW_COLLIDERS, 2.0f);
    sinew_particle_view v = sinew_world_particles(w);
    for (int k = 0; k < s->body_count; ++k) {
        const body *b = &s->bodies[k];
        const demo_color fill = demo_rgba(b->color.r, b->color.g, b->color.b, 150);
        const demo_color line = demo_color_mix(b->color, demo_rgba(255, 255, 255, 255), 0.35f);
        if (b->jelly) {
            for (int r = 0; r + 1 < b->rows; ++r) {
                for (int c = 0; c + 1 < b->columns; ++c) {
                    const int i0 = b->index[r * b->columns + c], i1 = b->index[r * b->columns + c + 1];
                    const int i2 = b->index[(r + 1) * b->columns + c + 1], i3 = b->index[(r + 1) * b->columns + c];
                    sinew_vec2 q[4] = {{v.x[i0], v.y[i0]}, {v.x[i1], v.y[i1]}, {v.x[i2], v.y[i2]}, {v.x[i3], v.y[i3]}};
                    demo_draw_triangle(d, q[0], q[1], q[2], fill);
                    demo_draw_triangle(d, q[0], q[2], q[3], fill);
                }
            }
            demo_links_draw(&b->links, w, d, 1.0f, demo_rgba(line.r, line.g, line.b, 110), 0.0f);
        } else {
            sinew_vec2 ring[64];
            const int n = b->ring_count < 64 ? b->ring_count : 64;
            for (int i = 0; i < n; ++i) {
                ring[i] = sinew_vec2_make(v.x[b->index[i]], v.y[b->index[i]]);
            }
            demo_draw_polygon(d, ring, n, fill);
            // Inner springs or spokes, faint; the ring's edges come first among the links.
            demo_links inner = b->links;
            inner.ids += n;
            inner.a += n;
            inner.b += n;
            inner.rest += n;
            inner.count = b->links.count - n;
            demo_links_draw(&inner, w, d, 1.0f, demo_rgba(line.r, line.g, line.b, 90), 0.0f);
            demo_draw_polyline(d, ring, n, true, 3.0f, line);
        }
    }
    demo_drag_draw(&s->drag, scene, d);
}

const demo_def demo_softbody = {
    "softbody",
    "Soft bodies",
    "left drag: pull a body\n"
    "i / u: inflate / deflate the blobs (pressure x 1.15)\n"
    "blobs: empty (area only), centre + spokes, cross springs, soft (pressure 0.6)\n"
    "jelly boxes: colliding grids with shear links",
    softbody_create,
    softbody_update,
    softbody_draw,
    softbody_destroy,
    NULL,
};
