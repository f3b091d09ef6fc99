// Helpers shared by the scenes: error reporting, picking and dragging, drawing colliders and links.
// Engine API and demos/scene.h only.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../scene.h"

demo_options demo_opts;

demo_color demo_color_mix(demo_color a, demo_color b, float t)
{
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    demo_color c;
    c.r = (uint8_t)((float)a.r + t * ((float)b.r - (float)a.r) + 0.5f);
    c.g = (uint8_t)((float)a.g + t * ((float)b.g - (float)a.g) + 0.5f);
    c.b = (uint8_t)((float)a.b + t * ((float)b.b - (float)a.b) + 0.5f);
    c.a = (uint8_t)((float)a.a + t * ((float)b.a - (float)a.a) + 0.5f);
    return c;
}

bool demo_check(sinew_status s, const sinew_world *world, const char *what)
{
    if (s == SINEW_OK) {
        return true;
    }
    fprintf(stderr, "sinew-demos: %s: %s (%s)\n", what, sinew_status_string(s),
            world != NULL ? sinew_world_last_error(world) : "no world");
    return false;
}

sinew_world *demo_add_world(demo_scene *scene, const sinew_world_def *def)
{
    if (scene->world_count >= DEMO_MAX_WORLDS) {
        fprintf(stderr, "sinew-demos: a scene holds at most %d worlds\n", DEMO_MAX_WORLDS);
        return NULL;
    }
    sinew_world *w = NULL;
    if (!demo_check(sinew_world_create(def, &w), NULL, "sinew_world_create")) {
        return NULL;
    }
    scene->worlds[scene->world_count++] = w;
    return w;
}

sinew_vec2 demo_particle_at(const sinew_world *world, int i)
{
    sinew_particle_view v = sinew_world_particles(world);
    return (i >= 0 && i < v.count) ? sinew_vec2_make(v.x[i], v.y[i]) : sinew_vec2_make(0.0f, 0.0f);
}

sinew_particle_id demo_pick(const sinew_world *world, sinew_vec2 point, float radius)
{
    sinew_particle_id id = SINEW_NULL_ID;
    if (sinew_world_query_nearest(world, point, radius, &id) != SINEW_OK || SINEW_ID_IS_NULL(id)) {
        return (sinew_particle_id)SINEW_NULL_ID;
    }
    float w = 0.0f;
    if (sinew_particle_get_weight(world, id, &w) == SINEW_OK && w > 0.0f) {
        return id;
    }
    // The nearest one is immovable (a pinned end): take the nearest movable one instead.
    enum { CAP = 256 };
    sinew_particle_id found[CAP];
    int n = 0;
    if (sinew_world_query_circle(world, point, radius, found, CAP, &n) != SINEW_OK) {
        return (sinew_particle_id)SINEW_NULL_ID;
    }
    sinew_particle_id best = SINEW_NULL_ID;
    float best_d = INFINITY;
    for (int k = 0; k < n && k < CAP; ++k) {
        sinew_vec2 p;
        if (sinew_particle_get_weight(world, found[k], &w) != SINEW_OK || w <= 0.0f ||
            sinew_particle_get_position(world, found[k], &p) != SINEW_OK) {
            continue;
        }
        float d = sinew_vec2_distance(p, point);
        if (d < best_d) {
            best_d = d;
            best = found[k];
        }
    }
    return best;
}

static void drag_release(demo_drag *drag);

void demo_drag_init(demo_drag *drag)
{
    drag->stiffness = 1.0f;
    drag->compliance = DEMO_DRAG_COMPLIANCE;
    drag_release(drag);
}

static void drag_release(demo_drag *drag)
{
    drag->world = -1;
    drag->pin = (sinew_pin_id)SINEW_NULL_ID;
    drag->particle = (sinew_particle_id)SINEW_NULL_ID;
    drag->mouse = sinew_vec2_make(0.0f, 0.0f);
}

static void drag_end(demo_drag *drag, demo_scene *scene)
{
    if (drag->world >= 0) {
        sinew_world *w = scene->worlds[drag->world];
        if (sinew_pin_is_valid(w, drag->pin)) {
            demo_check(sinew_pin_destroy(w, drag->pin), w, "drag: sinew_pin_destroy");
        }
    }
    drag_release(drag);
}

void demo_drag_update(demo_drag *drag, demo_scene *scene, const demo_input *input, bool down, bool pressed)
{
    drag->mouse = input->mouse;
    if (drag->world >= 0 && (!down || !sinew_pin_is_valid(scene->worlds[drag->world], drag->pin))) {
        drag_end(drag, scene);
    }
    if (pressed && drag->world < 0) {
        // The nearest movable particle over every world of the scene.
        float best_d = INFINITY;
        for (int k = 0; k < scene->world_count; ++k) {
            sinew_particle_id id = demo_pick(scene->worlds[k], input->mouse, input->pick_radius);
            sinew_vec2 p;
            if (SINEW_ID_IS_NULL(id) || sinew_particle_get_position(scene->worlds[k], id, &p) != SINEW_OK) {
                continue;
            }
            float d = sinew_vec2_distance(p, input->mouse);
            if (d < best_d) {
                best_d = d;
                drag->world = k;
                drag->particle = id;
            }
        }
        if (drag->world >= 0) {
            sinew_world *w = scene->worlds[drag->world];
            sinew_pin_def pin = sinew_default_pin_def();
            pin.particle = drag->particle;
            pin.target = input->mouse;
            pin.stiffness = drag->stiffness;
            pin.compliance = drag->compliance;
            if (!demo_check(sinew_pin_create(w, &pin, &drag->pin), w, "drag: sinew_pin_create")) {
                drag_release(drag);
            }
        }
    }
    if (drag->world >= 0) {
        sinew_world *w = scene->worlds[drag->world];
        demo_check(sinew_pin_set_target(w, drag->pin, input->mouse), w, "drag: sinew_pin_set_target");
    }
}

void demo_drag_draw(const demo_drag *drag, const demo_scene *scene, demo_draw *d)
{
    sinew_vec2 p;
    if (drag->world < 0 || sinew_particle_get_position(scene->worlds[drag->world], drag->particle, &p) != SINEW_OK) {
        return;
    }
    const demo_color band = demo_rgba(255, 220, 90, 255);
    demo_draw_segment(d, p, drag->mouse, 2.0f, band);
    demo_draw_ring(d, p, 5.0f * demo_draw_pixel(d), 2.0f, band);
    demo_draw_circle(d, drag->mouse, 3.0f * demo_draw_pixel(d), band);
}

// ---------------------------------------------------------------------------------------------
// The engine's debug draw, on the SDL batches

typedef struct world_pen {
    demo_draw *d;
    float line_px;
} world_pen;

static demo_color pen_color(sinew_color c) { return demo_rgba(c.r, c.g, c.b, c.a); }

static void pen_circle(sinew_vec2 center, float radius, sinew_color color, void *context)
{
    const world_pen *pen = context;
    const float least = 1.5f * demo_draw_pixel(pen->d);
    demo_draw_circle(pen->d, center, radius > least ? radius : least, pen_color(color));
}

static void pen_segment(sinew_vec2 a, sinew_vec2 b, sinew_color color, void *context)
{
    const world_pen *pen = context;
    demo_draw_segment(pen->d, a, b, pen->line_px, pen_color(color));
}

// Filled a third opaque, with a solid edge; rounded shapes as discs and capsules.
static void pen_polygon(const sinew_vec2 *v, int n, float radius, sinew_color color, void *context)
{
    const world_pen *pen = context;
    const demo_color edge = pen_color(color), fill = demo_rgba(color.r, color.g, color.b, (uint8_t)(color.a / 3));
    const float px = demo_draw_pixel(pen->d);
    if (n == 1) {
        demo_draw_circle(pen->d, v[0], radius, edge);
        demo_draw_circle(pen->d, v[0], radius - 2.0f * px, demo_rgba(fill.r / 3, fill.g / 3, fill.b / 3, 255));
    } else if (n == 2 && radius > 0.0f) {
        demo_draw_capsule(pen->d, v[0], v[1], radius, edge);
        demo_draw_capsule(pen->d, v[0], v[1], radius - 2.0f * px, demo_rgba(fill.r / 3, fill.g / 3, fill.b / 3, 255));
    } else if (n == 2) {
        demo_draw_segment(pen->d, v[0], v[1], 3.0f, edge);
    } else {
        for (int i = 0; i < n && radius > 0.0f; ++i) {
            demo_draw_capsule(pen->d, v[i], v[(i + 1) % n], radius, fill);
        }
        demo_draw_polygon(pen->d, v, n, fill);
        demo_draw_polyline(pen->d, v, n, true, 2.0f, edge);
    }
}

static void pen_point(sinew_vec2 p, sinew_color color, void *context)
{
    const world_pen *pen = context;
    demo_draw_circle(pen->d, p, 3.0f * demo_draw_pixel(pen->d), pen_color(color));
}

void demo_draw_world(demo_draw *d, const sinew_world *world, uint32_t flags, float line_px)
{
    world_pen pen = {d, line_px};
    sinew_debug_draw draw = {pen_circle, pen_segment, pen_polygon, pen_point, flags, &pen,
                             sinew_vec2_make(0.0f, 0.0f), sinew_vec2_make(0.0f, 0.0f)};
    demo_draw_visible(d, &draw.bounds_min, &draw.bounds_max);
    sinew_world_draw(world, &draw);
}

// ---------------------------------------------------------------------------------------------
// Links

static bool links_reserve(demo_links *l, int need)
{
    if (need <= l->capacity) {
        return true;
    }
    int cap = l->capacity > 0 ? l->capacity : 64;
    while (cap < need) {
        cap *= 2;
    }
    sinew_distance_id *ids = realloc(l->ids, (size_t)cap * sizeof *ids);
    if (ids != NULL) {
        l->ids = ids;
    }
    int *a = realloc(l->a, (size_t)cap * sizeof *a);
    if (a != NULL) {
        l->a = a;
    }
    int *b = realloc(l->b, (size_t)cap * sizeof *b);
    if (b != NULL) {
        l->b = b;
    }
    float *rest = realloc(l->rest, (size_t)cap * sizeof *rest);
    if (rest != NULL) {
        l->rest = rest;
    }
    if (ids == NULL || a == NULL || b == NULL || rest == NULL) {
        return false;
    }
    l->capacity = cap;
    return true;
}

bool demo_links_add(demo_links *links, const sinew_world *world, const sinew_distance_id *ids, int count)
{
    if (!links_reserve(links, links->count + count)) {
        fprintf(stderr, "sinew-demos: out of memory\n");
        return false;
    }
    for (int k = 0; k < count; ++k) {
        sinew_distance_def def;
        if (sinew_distance_get(world, ids[k], &def) != SINEW_OK) {
            continue;
        }
        const int n = links->count++;
        links->ids[n] = ids[k];
        links->a[n] = sinew_particle_index(world, def.a);
        links->b[n] = sinew_particle_index(world, def.b);
        links->rest[n] = def.rest;
    }
    return true;
}

static void links_remove(demo_links *l, int k)
{
    const int last = --l->count;
    l->ids[k] = l->ids[last];
    l->a[k] = l->a[last];
    l->b[k] = l->b[last];
    l->rest[k] = l->rest[last];
}

void demo_links_prune(demo_links *links, const sinew_world *world)
{
    for (int k = links->count - 1; k >= 0; --k) {
        if (!sinew_distance_is_valid(world, links->ids[k])) {
            links_remove(links, k);
        }
    }
}

// Squared distance between segments p0-p1 and q0-q1 (0 when they cross).
static float segment_distance_sq(sinew_vec2 p0, sinew_vec2 p1, sinew_vec2 q0, sinew_vec2 q1)
{
    sinew_vec2 r = sinew_vec2_sub(p1, p0), s = sinew_vec2_sub(q1, q0), w = sinew_vec2_sub(q0, p0);
    float den = sinew_vec2_cross(r, s);
    if (den != 0.0f) {
        float t = sinew_vec2_cross(w, s) / den, u = sinew_vec2_cross(w, r) / den;
        if (t >= 0.0f && t <= 1.0f && u >= 0.0f && u <= 1.0f) {
            return 0.0f;
        }
    }
    // Otherwise the nearest pair has an end point of one segment.
    sinew_vec2 ends[4][3] = {{p0, q0, q1}, {p1, q0, q1}, {q0, p0, p1}, {q1, p0, p1}};
    float best = INFINITY;
    for (int k = 0; k < 4; ++k) {
        sinew_vec2 e = sinew_vec2_sub(ends[k][2], ends[k][1]);
        float len2 = sinew_vec2_length_sq(e);
        float t = len2 > 0.0f ? sinew_vec2_dot(sinew_vec2_sub(ends[k][0], ends[k][1]), e) / len2 : 0.0f;
        t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
        float d2 = sinew_vec2_length_sq(sinew_vec2_sub(ends[k][0], sinew_vec2_mul_add(ends[k][1], t, e)));
        best = d2 < best ? d2 : best;
    }
    return best;
}

int demo_links_cut(demo_links *links, sinew_world *world, sinew_vec2 p, sinew_vec2 q, float radius)
{
    sinew_particle_view v = sinew_world_particles(world);
    int cut = 0;
    for (int k = links->count - 1; k >= 0; --k) {
        const int a = links->a[k], b = links->b[k];
        if (a < 0 || b < 0 || a >= v.count || b >= v.count) {
            continue;
        }
        sinew_vec2 pa = sinew_vec2_make(v.x[a], v.y[a]), pb = sinew_vec2_make(v.x[b], v.y[b]);
        if (segment_distance_sq(pa, pb, p, q) <= radius * radius) {
            if (sinew_distance_destroy(world, links->ids[k]) == SINEW_OK) {
                ++cut;
            }
            links_remove(links, k);
        }
    }
    return cut;
}

void demo_links_draw(const demo_links *links, const sinew_world *world, demo_draw *d, float width_px,
                     demo_color color, float full_strain)
{
    sinew_particle_view v = sinew_world_particles(world);
    const demo_color hot = demo_rgba(255, 60, 40, color.a);
    for (int k = 0; k < links->count; ++k) {
        const int a = links->a[k], b = links->b[k];
        if (a < 0 || b < 0 || a >= v.count || b >= v.count) {
            continue;
        }
        sinew_vec2 pa = sinew_vec2_make(v.x[a], v.y[a]), pb = sinew_vec2_make(v.x[b], v.y[b]);
        demo_color c = color;
        if (full_strain > 0.0f && links->rest[k] > 0.0f) {
            float strain = sinew_vec2_distance(pa, pb) / links->rest[k] - 1.0f;
            c = demo_color_mix(color, hot, strain / full_strain);
        }
        demo_draw_segment(d, pa, pb, width_px, c);
    }
}

float demo_links_max_strain(const demo_links *links, const sinew_world *world)
{
    sinew_particle_view v = sinew_world_particles(world);
    float worst = 0.0f;
    for (int k = 0; k < links->count; ++k) {
        const int a = links->a[k], b = links->b[k];
        if (a < 0 || b < 0 || a >= v.count || b >= v.count || !(links->rest[k] > 0.0f)) {
            continue;
        }
        float len = sinew_vec2_distance(sinew_vec2_make(v.x[a], v.y[a]), sinew_vec2_make(v.x[b], v.y[b]));
        float strain = len / links->rest[k] - 1.0f;
        worst = strain > worst ? strain : worst;
    }
    return worst;
}

void demo_links_free(demo_links *links)
{
    free(links->ids);
    free(links->a);
    free(links->b);
    free(links->rest);
    *links = (demo_links){0};
}
