// sinew demos: the scene table, and the drawing interface between scenes and the SDL layer.
//
// A scene (demos/scenes/*.c) is a demo_def: {name, create, update, draw, destroy}, listed in one
// table (demos/scenes/table.c), in the manner of Chipmunk's demos. Scenes know the sinew API and
// this header only: no SDL. They hand geometry in world coordinates (metres, y up) to the
// demo_draw_* functions below, which the SDL layer (demos/sdl_draw.c) batches into triangles;
// demos/main.c turns SDL events into a demo_input and runs the fixed 60 Hz loop.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <sinew/sinew.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---------------------------------------------------------------------------------------------
// Drawing: world coordinates in metres; widths given in pixels stay crisp at any zoom.

/// An 8-bit RGBA colour (a = 255 opaque).
typedef struct demo_color {
    uint8_t r, g, b, a;
} demo_color;

/// Constructs a colour.
static inline demo_color demo_rgba(uint8_t r, uint8_t g, uint8_t b, uint8_t a)
{
    demo_color c = {r, g, b, a};
    return c;
}

/// a + t (b - a) per channel, t clamped to [0, 1].
demo_color demo_color_mix(demo_color a, demo_color b, float t);

/// The drawing target. Implemented by the SDL layer; scenes only pass it on.
typedef struct demo_draw demo_draw;

/// Filled disc, radius in metres (drawn at least a pixel or so wide).
void demo_draw_circle(demo_draw *d, sinew_vec2 center, float radius, demo_color color);

/// Many filled discs from structure-of-arrays data (a particle view): disc i at (x[i], y[i]) of
/// radius radius[i] metres (radius may be NULL: then `fixed_radius`), coloured colors[i] (colors
/// may be NULL: then `color`). One batch, however many.
void demo_draw_circles(demo_draw *d, int count, const float *x, const float *y, const float *radius,
                       float fixed_radius, const demo_color *colors, demo_color color);

/// Circle outline of `radius` metres, `width_px` pixels wide.
void demo_draw_ring(demo_draw *d, sinew_vec2 center, float radius, float width_px, demo_color color);

/// Line segment `width_px` pixels wide.
void demo_draw_segment(demo_draw *d, sinew_vec2 a, sinew_vec2 b, float width_px, demo_color color);

/// A segment thickened by `radius` metres with round ends (a bone, a capsule collider).
void demo_draw_capsule(demo_draw *d, sinew_vec2 a, sinew_vec2 b, float radius, demo_color color);

/// Filled polygon, convex or star-shaped around the mean of its points (a soft body's ring).
void demo_draw_polygon(demo_draw *d, const sinew_vec2 *points, int count, demo_color color);

/// Filled triangle.
void demo_draw_triangle(demo_draw *d, sinew_vec2 a, sinew_vec2 b, sinew_vec2 c, demo_color color);

/// Connected segments through `count` points, closed back to the first when `closed`.
void demo_draw_polyline(demo_draw *d, const sinew_vec2 *points, int count, bool closed, float width_px,
                        demo_color color);

/// Screen-aligned text whose top-left corner is at `at` (world), in the built-in bitmap font.
void demo_draw_text(demo_draw *d, sinew_vec2 at, const char *text, demo_color color);

/// Metres per pixel at the current view (for pick radii and sizes that should look the same on screen).
float demo_draw_pixel(const demo_draw *d);

/// The world rectangle visible on screen.
void demo_draw_visible(const demo_draw *d, sinew_vec2 *min, sinew_vec2 *max);

// ---------------------------------------------------------------------------------------------
// Scenes

/// Input for one fixed step, in world coordinates. "pressed"/"released" are true for the first
/// step after the event (the main loop keeps them until a step has seen them).
typedef struct demo_input {
    sinew_vec2 mouse;       ///< metres
    sinew_vec2 mouse_prev;  ///< where the mouse was at the previous step (for cuts along a path)
    bool mouse_in_view;     ///< the pointer is over the window (or a script drives it)
    bool left_down, left_pressed, left_released;
    bool right_down, right_pressed, right_released;
    int key;                ///< a scene key pressed since the last step ('a'..'z'), 0 when none
    float pick_radius;      ///< metres: how far from a particle a click still grabs it
    int frame;              ///< fixed steps since the scene was created
} demo_input;

/// Most worlds one scene runs side by side.
#define DEMO_MAX_WORLDS 2

/// The part of every scene's state that the main loop reads: embed it as the first member.
typedef struct demo_scene {
    sinew_world *worlds[DEMO_MAX_WORLDS];     ///< stepped by the main loop, in order
    const char *world_names[DEMO_MAX_WORLDS]; ///< HUD labels when there is more than one world
    int world_count;
    sinew_vec2 view_min, view_max;            ///< the world rectangle to frame on screen
    bool lock_mode;                           ///< each world keeps its own solver mode (g/j ignored)
    char status[256];                         ///< scene lines for the HUD, '\n' separated
} demo_scene;

/// One entry of the scene table.
typedef struct demo_def {
    const char *name;  ///< for --scene
    const char *title; ///< for the HUD
    const char *help;  ///< scene-specific controls for the help overlay, '\n' separated
    /// Builds the scene; NULL on failure (after saying why on stderr).
    demo_scene *(*create)(void);
    /// Turns input into API calls, once before every fixed step of `dt` seconds.
    void (*update)(demo_scene *scene, const demo_input *input, float dt);
    /// Hands the scene's geometry to the drawing interface.
    void (*draw)(demo_scene *scene, demo_draw *draw);
    /// Frees everything create made.
    void (*destroy)(demo_scene *scene);
    /// Optional: scripted input for step `input->frame` (headless runs, and the window's
    /// autoplay key): sets mouse, mouse_in_view, left_down and right_down; the main loop derives
    /// pressed/released and mouse_prev from the previous step.
    void (*autoplay)(demo_scene *scene, demo_input *input);
} demo_def;

/// The scene table, in key order (1..demo_count).
extern const demo_def *const demo_table[];
extern const int demo_count;

/// Settings the command line can give scenes (defaults 0 = the scene's own).
typedef struct demo_options {
    int balls; ///< pile: how many balls to start with
} demo_options;
extern demo_options demo_opts;

// ---------------------------------------------------------------------------------------------
// Shared scene helpers (demos/scenes/common.c): engine API only.

/// Prints "sinew-demos: what: status (last error)" on stderr when s != SINEW_OK; returns s == SINEW_OK.
bool demo_check(sinew_status s, const sinew_world *world, const char *what);

/// Creates a world from `def` into the scene's next slot (worlds[world_count++]); NULL, with the
/// reason on stderr, when it fails or the scene already holds DEMO_MAX_WORLDS.
sinew_world *demo_add_world(demo_scene *scene, const sinew_world_def *def);

/// The movable particle nearest `point` within `radius`, or the null id (sinew_world_query_nearest,
/// falling back to sinew_world_query_circle when the nearest one is immovable).
sinew_particle_id demo_pick(const sinew_world *world, sinew_vec2 point, float radius);

/// Mouse drag: a pin on the picked particle, its target moved with the mouse; the particle keeps
/// its weight, so the rest of the scene pulls back. The pin is a spring of DEMO_DRAG_COMPLIANCE
/// (XPBD, m/N: 1e-3 is 1000 N/m) rather than a stiffness fraction: a PBD stiffness is applied
/// every iteration of every sub-step and overpowers a long chain of hard links (a rope grabbed in
/// the middle stretches to twice its length), while a compliance bounds the force.
#define DEMO_DRAG_COMPLIANCE 1e-3f
typedef struct demo_drag {
    int world;                  ///< index into the scene's worlds, -1 when not dragging
    sinew_pin_id pin;
    sinew_particle_id particle;
    sinew_vec2 mouse;           ///< last target
    float stiffness, compliance;///< of the pin; init sets 1 and DEMO_DRAG_COMPLIANCE
} demo_drag;
/// No drag; the default spring.
void demo_drag_init(demo_drag *drag);
/// Starts a drag on a press of `down` over a particle, moves it while held, ends it on release.
void demo_drag_update(demo_drag *drag, demo_scene *scene, const demo_input *input, bool down, bool pressed);
/// Draws the rubber band from the dragged particle to the mouse.
void demo_drag_draw(const demo_drag *drag, const demo_scene *scene, demo_draw *d);

/// Draws what `flags` (sinew_draw_flags) names through the engine's sinew_world_draw, in its
/// colours: polygons filled translucent with a solid edge, segments `line_px` pixels wide.
void demo_draw_world(demo_draw *d, const sinew_world *world, uint32_t flags, float line_px);

/// Distance constraints a scene keeps for drawing: ids, dense particle indices and rest lengths.
typedef struct demo_links {
    int count, capacity;
    sinew_distance_id *ids;
    int *a, *b;
    float *rest;
} demo_links;
/// Appends links (reads each one back with sinew_distance_get). False when out of memory.
bool demo_links_add(demo_links *links, const sinew_world *world, const sinew_distance_id *ids, int count);
/// Forgets links that are no longer valid (torn or cut).
void demo_links_prune(demo_links *links, const sinew_world *world);
/// Destroys every link whose segment passes within `radius` of the segment p-q; returns how many.
int demo_links_cut(demo_links *links, sinew_world *world, sinew_vec2 p, sinew_vec2 q, float radius);
/// Draws the links, coloured from `color` at rest length to red at `full_strain` stretch
/// (0.1 = 10 % longer than rest); `full_strain` 0 draws them all in `color`.
void demo_links_draw(const demo_links *links, const sinew_world *world, demo_draw *d, float width_px,
                     demo_color color, float full_strain);
/// Largest length / rest - 1 over the links (0 when none).
float demo_links_max_strain(const demo_links *links, const sinew_world *world);
void demo_links_free(demo_links *links);

/// Position of the particle at dense index i.
sinew_vec2 demo_particle_at(const sinew_world *world, int i);

#ifdef __cplusplus
}
#endif
