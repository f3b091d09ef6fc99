// pile_metrics: layout and quality figures of the `pile` scene; see pile_metrics.h.
#include "pile_metrics.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

pile_layout pile_layout_make(int n)
{
    pile_layout l = {0};
    if (n < 1) {
        return l;
    }
    // cols = ceil(sqrt(n)) in integers: sqrt() gives a guess, the loops make it exact.
    int cols = (int)sqrt((double)n);
    while ((int64_t)cols * cols < n) {
        ++cols;
    }
    while (cols > 1 && (int64_t)(cols - 1) * (cols - 1) >= n) {
        --cols;
    }
    l.n = n;
    l.cols = cols;
    l.rows = (n - 1) / cols + 1;
    l.width = cols * PILE_SPACING + 1.0;
    l.height = l.rows * PILE_SPACING + 5.0;
    l.radius = PILE_RADIUS;
    return l;
}

void pile_layout_ball(const pile_layout *layout, int i, double *x, double *y)
{
    const int c = i % layout->cols, r = i / layout->cols;
    *x = 1.0 + PILE_SPACING * c + (r % 2 == 1 ? 0.3 : 0.0);
    *y = 1.0 + PILE_SPACING * r;
}

// ---- overlap: a uniform grid over the balls, filled by a counting sort ----

typedef struct overlap_grid {
    double x0, y0, cell; // cell (0, 0) starts at (x0, y0); cells are cell x cell
    int nx, ny;
    size_t *start; // nx * ny + 1 entries: the balls of cell k are at [start[k], start[k + 1])
    double *sx, *sy, *sr; // their positions and radii, sorted by cell
} overlap_grid;

// Cell coordinate of u along an axis of `count` cells. Coordinates beyond the grid are clamped to
// its border cells. Clamping moves two coordinates less than one cell apart to cells at most one
// apart, so every overlapping pair still lands in the same or neighbouring cells and the search
// stays exact; only its speed suffers if many balls lie far outside.
static int cell_of(double u, double origin, double cell, int count)
{
    double c = (u - origin) / cell;
    if (!(c > 0.0)) {
        return 0;
    }
    if (c >= (double)(count - 1)) {
        return count - 1;
    }
    return (int)c;
}

// One axis of the grid: from the balls' extent [lo, hi] cut down to the box [box_lo, box_hi]
// widened by margin, so that a few escaped balls far away do not stretch the grid (they are
// clamped into the border cells). If the balls and the box do not meet, the balls' extent.
static void grid_axis(double lo, double hi, double box_lo, double box_hi, double margin, double *origin,
                      double *span)
{
    double a = fmax(lo, box_lo - margin), b = fmin(hi, box_hi + margin); // fmax/fmin ignore a NaN box
    if (!(a <= b)) {
        a = lo;
        b = hi;
    }
    *origin = a;
    *span = b - a; // may be +inf for balls near +-DBL_MAX: handled by the caller
}

static double pair_overlap(double xa, double ya, double ra, double xb, double yb, double rb)
{
    const double dx = xb - xa, dy = yb - ya, s = ra + rb, d2 = dx * dx + dy * dy;
    if (!(d2 < s * s)) {
        return 0.0;
    }
    return (s - sqrt(d2)) / fmin(ra, rb);
}

// Max overlap ratio among the balls of cell a against those of cell b (a != b), or within a.
static double cell_pairs(const overlap_grid *g, size_t a, size_t b, double best)
{
    for (size_t i = g->start[a]; i < g->start[a + 1]; ++i) {
        const double xi = g->sx[i], yi = g->sy[i], ri = g->sr[i];
        const size_t j0 = a == b ? i + 1 : g->start[b];
        for (size_t j = j0; j < g->start[b + 1]; ++j) {
            const double o = pair_overlap(xi, yi, ri, g->sx[j], g->sy[j], g->sr[j]);
            best = o > best ? o : best;
        }
    }
    return best;
}

// The max overlap ratio over all pairs of the m balls listed in ids. Returns -1 if out of memory.
static int max_overlap(const int *ids, int m, const double *x, const double *y, const double *radius, double rmax,
                       double width, double height, double *result)
{
    *result = 0.0;
    if (m < 2 || !(rmax > 0.0)) {
        return 0;
    }
    double bx0 = INFINITY, bx1 = -INFINITY, by0 = INFINITY, by1 = -INFINITY;
    for (int k = 0; k < m; ++k) {
        const int i = ids[k];
        bx0 = fmin(bx0, x[i]);
        bx1 = fmax(bx1, x[i]);
        by0 = fmin(by0, y[i]);
        by1 = fmax(by1, y[i]);
    }

    // Any two overlapping balls are closer than 2 * rmax, so with cells that wide they lie in
    // the same or neighbouring cells. There are at most about 4 cells a ball: more and the cells
    // are widened, which keeps the search exact.
    overlap_grid g = {0};
    g.cell = 2.0 * rmax;
    double spanx, spany;
    grid_axis(bx0, bx1, 0.0, width, 2.0 * g.cell, &g.x0, &spanx);
    grid_axis(by0, by1, 0.0, height, 2.0 * g.cell, &g.y0, &spany);
    const double max_cells = fmin(4.0 * m + 1024.0, 1 << 30); // nx, ny and nx * ny fit an int
    double ux = spanx / g.cell, uy = spany / g.cell;
    if (isfinite(ux) && isfinite(uy)) {
        while ((floor(ux) + 1.0) * (floor(uy) + 1.0) > max_cells) {
            g.cell *= 2.0;
            ux *= 0.5;
            uy *= 0.5;
        }
    }
    g.nx = (int)fmin(floor(ux) + 1.0, max_cells);
    g.ny = (int)fmin(floor(uy) + 1.0, max_cells);
    while ((double)g.nx * g.ny > max_cells) { // only for an infinite span: clamping takes the rest
        if (g.nx > g.ny) {
            g.nx = (g.nx + 1) / 2;
        } else {
            g.ny = (g.ny + 1) / 2;
        }
    }
    const size_t cells = (size_t)g.nx * (size_t)g.ny;

    size_t *cell_of_ball = malloc((size_t)m * sizeof *cell_of_ball);
    g.start = calloc(cells + 1, sizeof *g.start);
    g.sx = malloc((size_t)m * sizeof *g.sx);
    g.sy = malloc((size_t)m * sizeof *g.sy);
    g.sr = malloc((size_t)m * sizeof *g.sr);
    int status = -1;
    if (cell_of_ball == NULL || g.start == NULL || g.sx == NULL || g.sy == NULL || g.sr == NULL) {
        goto done;
    }

    // Counting sort by cell. Count into start[c], turn the counts into inclusive prefix sums
    // (start[c] = end of cell c), then place the balls from the last one down, decrementing
    // start[c]: it ends at the first slot of cell c, and the balls of a cell keep their order.
    for (int k = 0; k < m; ++k) {
        const int i = ids[k];
        const size_t cx = (size_t)cell_of(x[i], g.x0, g.cell, g.nx), cy = (size_t)cell_of(y[i], g.y0, g.cell, g.ny);
        const size_t c = cy * (size_t)g.nx + cx;
        cell_of_ball[k] = c;
        ++g.start[c];
    }
    for (size_t c = 1; c < cells; ++c) {
        g.start[c] += g.start[c - 1];
    }
    g.start[cells] = (size_t)m;
    for (int k = m - 1; k >= 0; --k) {
        const int i = ids[k];
        const size_t slot = --g.start[cell_of_ball[k]];
        g.sx[slot] = x[i];
        g.sy[slot] = y[i];
        g.sr[slot] = radius[i];
    }

    // Each cell against itself and four of its neighbours: every pair of neighbouring cells once.
    double best = 0.0;
    for (int cy = 0; cy < g.ny; ++cy) {
        for (int cx = 0; cx < g.nx; ++cx) {
            const size_t a = (size_t)cy * g.nx + cx;
            if (g.start[a] == g.start[a + 1]) {
                continue;
            }
            best = cell_pairs(&g, a, a, best);
            if (cx + 1 < g.nx) {
                best = cell_pairs(&g, a, a + 1, best);
            }
            if (cy + 1 < g.ny) {
                const size_t up = a + (size_t)g.nx;
                if (cx > 0) {
                    best = cell_pairs(&g, a, up - 1, best);
                }
                best = cell_pairs(&g, a, up, best);
                if (cx + 1 < g.nx) {
                    best = cell_pairs(&g, a, up + 1, best);
                }
            }
        }
    }
    *result = best;
    status = 0;

done:
    free(cell_of_ball);
    free(g.start);
    free(g.sx);
    free(g.sy);
    free(g.sr);
    return status;
}

int pile_quality(int n, const double *x, const double *y, const double *vx, const double *vy, const double *radius,
                 double width, double height, pile_quality_result *out)
{
    if (out == NULL) {
        return -1;
    }
    memset(out, 0, sizeof *out);
    if (n < 0 || (n > 0 && (x == NULL || y == NULL || vx == NULL || vy == NULL || radius == NULL))) {
        return -1;
    }
    int *ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids); // balls that take part in the overlap search
    if (ids == NULL) {
        return -1;
    }
    int m = 0, outside = 0, nonfinite = 0, moving = 0;
    double rmax = 0.0, max_speed = 0.0, sum_speed = 0.0;
    for (int i = 0; i < n; ++i) {
        const int finite_pos = isfinite(x[i]) && isfinite(y[i]);
        const int finite_vel = isfinite(vx[i]) && isfinite(vy[i]);
        // Written so that NaN compares as outside.
        if (!(x[i] >= 0.0 && x[i] <= width && y[i] >= 0.0 && y[i] <= height)) {
            ++outside;
        }
        if (!finite_pos || !finite_vel) {
            ++nonfinite;
        }
        if (finite_vel) {
            const double s = hypot(vx[i], vy[i]);
            max_speed = s > max_speed ? s : max_speed;
            sum_speed += s;
            ++moving;
        }
        if (finite_pos && radius[i] > 0.0 && isfinite(radius[i])) {
            ids[m++] = i;
            rmax = radius[i] > rmax ? radius[i] : rmax;
        }
    }
    double overlap;
    const int status = max_overlap(ids, m, x, y, radius, rmax, width, height, &overlap);
    free(ids);
    if (status != 0) {
        return -1;
    }
    out->outside = outside;
    out->nonfinite = nonfinite;
    out->max_overlap_ratio = overlap;
    out->max_speed = max_speed;
    out->mean_speed = moving > 0 ? sum_speed / moving : 0.0;
    return 0;
}
