// sinew demos: the SDL side of the drawing interface in demos/scene.h, plus screen-space HUD
// drawing. Everything a frame draws goes into two vertex batches, the world (discs, lines,
// polygons: one texture with a disc in it, whose middle is plain white) and the HUD (text and
// panels: the font atlas), each sent with one SDL_RenderGeometry call, so that 50,000 balls are
// 50,000 quads in one call rather than 50,000 calls.
#pragma once

#include <stdbool.h>

#include <SDL.h>

#include "scene.h"

/// Creates the textures on `renderer`. NULL (after saying why) on failure.
demo_draw *demo_draw_create(SDL_Renderer *renderer);

/// Frees the textures and batches. NULL is ignored.
void demo_draw_destroy(demo_draw *d);

/// Starts a frame of `width` x `height` pixels framing the world rectangle [view_min, view_max]
/// (aspect kept, centred, a small margin) in the part of the screen below `top` pixels.
void demo_draw_begin(demo_draw *d, int width, int height, float top, sinew_vec2 view_min, sinew_vec2 view_max);

/// Screen pixel to world point under the current frame.
sinew_vec2 demo_draw_to_world(const demo_draw *d, float sx, float sy);

/// HUD text scale in pixels per font pixel (1 or 2, from the frame height).
int demo_hud_scale(const demo_draw *d);

/// Sets the frame size ahead of begin (so that the HUD can be measured before the view is framed).
void demo_draw_set_size(demo_draw *d, int width, int height);

/// Filled screen rectangle on the HUD layer.
void demo_hud_rect(demo_draw *d, float x, float y, float w, float h, demo_color color);

/// Text on the HUD layer, top-left at (x, y) pixels, at the HUD scale; '\n' starts a new line.
/// Returns the width in pixels of its longest line.
float demo_hud_text(demo_draw *d, float x, float y, const char *text, demo_color color);

/// Width and height in pixels that demo_hud_text would cover.
void demo_hud_measure(const demo_draw *d, const char *text, float *w, float *h);

/// Sends both batches to the renderer (world first, then HUD). False when SDL failed.
bool demo_draw_end(demo_draw *d);
