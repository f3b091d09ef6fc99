// sinew demos: the built-in bitmap font (printable ASCII, 5 x 7 glyphs with 2-row descenders in a
// 6 x 11 cell), drawn by us, so the demos need no font file and no SDL2_ttf (see docs/demos.md).
#pragma once

#include <stdint.h>

/// Cell size in pixels at scale 1, spacing included.
#define DEMO_FONT_CELL_W 6
#define DEMO_FONT_CELL_H 11
/// Atlas layout: 16 cells a row, 6 rows (ASCII 32..127; 127 is a solid block used for panels).
#define DEMO_FONT_COLUMNS 16
#define DEMO_FONT_ROWS 6
#define DEMO_FONT_ATLAS_W (DEMO_FONT_COLUMNS * DEMO_FONT_CELL_W)
#define DEMO_FONT_ATLAS_H (DEMO_FONT_ROWS * DEMO_FONT_CELL_H)

/// Writes the atlas as DEMO_FONT_ATLAS_W x DEMO_FONT_ATLAS_H RGBA8888 pixels (white, alpha = ink),
/// `pitch` pixels a row. Character c (32..127) is the cell at column (c - 32) % 16, row (c - 32) / 16.
void demo_font_rasterize(uint32_t *pixels, int pitch, uint32_t ink, uint32_t paper);
