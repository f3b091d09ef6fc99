// pile_svg: a picture of a pile's end state for docs/collisions.md (sinew-bench --svg FILE): every
// ball coloured by its speed on the scale of the quality limit (0.2 m/s), the balls over it ringed.
#ifndef SINEW_BENCH_PILE_SVG_H
#define SINEW_BENCH_PILE_SVG_H

#include <sinew/sinew.h>

#include "pile_metrics.h"

// Writes the SVG to `path`, `width` pixels wide; vx, vy: each ball's velocity (m/s), in the
// particle store's order. 0, or 1 when the file could not be written.
int pile_svg_write(const sinew_world *world, const pile_layout *layout, const double *vx, const double *vy,
                   const char *path, int width);

#endif
