// pile_metrics: the `pile` benchmark scene of shared/PEERS.md, shared by sinew-bench and the peer
// benchmarks in bench/peers/, so that every engine is set up and judged by the same code.
//
// Layout. N balls of radius 0.5; cols = ceil(sqrt(N)), rows = ceil(N / cols). The box is a floor
// at y = 0 and walls at x = 0 and x = W, W = cols * 1.2 + 1; the quality box is [0, W] x [0, H],
// H = rows * 1.2 + 5. Ball i (c = i mod cols, r = i div cols) starts at rest at
// x = 1 + 1.2 c + 0.3 (r odd), y = 1 + 1.2 r. Gravity (0, -10), 60 Hz, 600 steps.
//
//     pile_layout l = pile_layout_make(n);
//     for (int i = 0; i < l.n; ++i) {
//         double x, y;
//         pile_layout_ball(&l, i, &x, &y);
//         // add a ball of radius l.radius at (x, y)
//     }
//
// Quality, after the run: pile_quality() over the final positions and velocities (see below).
//
// Everything is in double. An engine that stores floats converts on the way in; the conversion
// is exact, so the figures do not depend on the engine's precision beyond its own results.
// C11, needs libm only.
#ifndef SINEW_BENCH_PILE_METRICS_H
#define SINEW_BENCH_PILE_METRICS_H

#define PILE_RADIUS 0.5
#define PILE_SPACING 1.2
#define PILE_GRAVITY_Y (-10.0)
#define PILE_HZ 60
#define PILE_STEPS 600

typedef struct pile_layout {
    int n;         // balls
    int cols;      // ceil(sqrt(n))
    int rows;      // ceil(n / cols)
    double width;  // W = cols * 1.2 + 1: the right wall is at x = W
    double height; // H = rows * 1.2 + 5: the top of the quality box (there is no ceiling)
    double radius; // 0.5
} pile_layout;

// The layout for n balls (n >= 1; n < 1 gives a layout of 0 balls, 0 x 0).
pile_layout pile_layout_make(int n);

// The start position of ball i, 0 <= i < layout->n.
void pile_layout_ball(const pile_layout *layout, int i, double *x, double *y);

typedef struct pile_quality_result {
    // Balls whose centre is not in [0, W] x [0, H]: escaped, or tunnelled through the floor or a
    // wall; a ball with a NaN or infinite coordinate counts here too. Must be 0.
    int outside;
    // Balls with a non-finite position or velocity (already counted in `outside` when the
    // position is the non-finite part). Not a PEERS.md figure: a diagnostic for blow-ups.
    int nonfinite;
    // Max over all overlapping pairs (i, j) of (r_i + r_j - |p_i - p_j|) / min(r_i, r_j): the
    // depth over the radius (all radii are equal in the pile). 0 if no pair overlaps. Exact:
    // every pair closer than r_i + r_j is examined. Balls with a non-finite position, or a
    // radius that is not > 0 and finite, take no part.
    double max_overlap_ratio;
    // |v| over the balls with a finite velocity: max and mean (0 if there are none).
    double max_speed;
    double mean_speed;
} pile_quality_result;

// The quality figures of the pile at the end of a run. x, y, vx, vy and radius are arrays of n
// doubles (ball i is x[i], y[i], ...); width and height are the layout's W and H. Finds the
// overlapping pairs with a uniform grid (cell = 2 * max radius, counting sort), so it runs in
// O(n) for a settled pile of 100,000 balls, not O(n^2). Allocates scratch memory with malloc and
// frees it before returning. Returns 0, or -1 (and leaves *out zeroed) if n < 0, an array is
// NULL while n > 0, or memory runs out.
int pile_quality(int n, const double *x, const double *y, const double *vx, const double *vy, const double *radius,
                 double width, double height, pile_quality_result *out);

#endif
