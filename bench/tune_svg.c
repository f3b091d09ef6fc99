// SVG line plots for sinew-tune. Layout: title on top, the plot area on the left with grid lines
// at the major ticks, the legend on the right (outside the plot, so it never hides a line).
// Only the data lines are <path> elements; frame, grid, ticks and legend swatches are <line>,
// <rect>, <circle> and <text>, so a reader can count the series by counting paths.
#include "tune_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// Geometry in SVG pixels.
#define PLOT_LEFT 84.0
#define PLOT_TOP 62.0
#define PLOT_WIDTH 540.0
#define PLOT_HEIGHT 380.0
#define LEGEND_LEFT (PLOT_LEFT + PLOT_WIDTH + 24.0)
#define LEGEND_WIDTH 300.0
#define LEGEND_ROW 19.0
#define WIDTH (LEGEND_LEFT + LEGEND_WIDTH)
#define BOTTOM_MARGIN 64.0
#define MAX_MARKED 24 // series with more points get no point markers

// Tableau 10: distinguishable, and still tellable apart in grey scale by the dash patterns.
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
static const char *const dashes[] = {"", "9,4", "2,3", "10,3,2,3", "5,5", "14,4,2,4,2,4"};
#define PALETTE_SIZE ((int)(sizeof palette / sizeof palette[0]))
#define DASH_SIZE ((int)(sizeof dashes / sizeof dashes[0]))

typedef struct axis {
    bool log;
    double lo, hi;   // range shown (log axes: 1, 2 or 5 times a power of ten)
    double px0, px1; // pixel coordinates of lo and hi
} axis;

static double axis_map(const axis *a, double v)
{
    double t = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) : (v - a->lo) / (a->hi - a->lo);
    return a->px0 + t * (a->px1 - a->px0);
}

static void put_escaped(FILE *f, const char *s)
{
    for (; *s != '\0'; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

static void text(FILE *f, double x, double y, const char *anchor, const char *extra, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
    put_escaped(f, s);
    fputs("</text>\n", f);
}

// The clamped y of a point: non-finite and too-large values at the ceiling, the rest at least floor.
static double clamp_y(const tune_plot *p, double y)
{
    if (!(y == y) || y > p->y_ceiling) {
        return p->y_ceiling;
    }
    return y < p->y_floor ? p->y_floor : y;
}

// Which ticks of a log axis carry a label (and a grid line): decades on a wide axis (every other
// one past ten decades; the two ends too, when not next to a decade), 1, 2 and 5 on an axis of up to
// two and a half decades, every digit on one under a decade.
typedef enum log_labels { LABEL_DECADES, LABEL_125, LABEL_DIGITS } log_labels;

static log_labels labels_for(const axis *a)
{
    const double span = log10(a->hi / a->lo);
    return span > 2.5 ? LABEL_DECADES : span > 0.7 ? LABEL_125 : LABEL_DIGITS;
}

// The shown range: from the largest 1, 2 or 5 times a power of ten at or below lo to the smallest
// at or above hi, so that a narrow range is not squeezed into a corner of the plot.
static void log_range(double lo, double hi, double *out_lo, double *out_hi)
{
    int dlo = (int)floor(log10(lo) + 1e-9), dhi = (int)ceil(log10(hi) - 1e-9);
    if (dhi <= dlo) {
        dhi = dlo + 1;
    }
    *out_lo = pow(10.0, dlo);
    *out_hi = pow(10.0, dhi);
    {
        static const double steps[] = {1.0, 2.0, 5.0, 10.0};
        for (int k = 0; k < 3; ++k) {
            if (steps[k] * pow(10.0, dlo) <= lo * (1.0 + 1e-9)) {
                *out_lo = steps[k] * pow(10.0, dlo);
            }
        }
        const int dtop = (int)floor(log10(hi) - 1e-9);
        for (int k = 3; k >= 1; --k) {
            if (steps[k] * pow(10.0, dtop) >= hi * (1.0 - 1e-9)) {
                *out_hi = steps[k] * pow(10.0, dtop);
            }
        }
    }
}

// A tick value as a label: 0.001 .. 10000 written out, others as 2e-5.
static void tick_label(int digit, int d, char *buf, size_t size)
{
    if (d >= -4 && d <= 4) {
        snprintf(buf, size, "%g", digit * pow(10.0, d));
    } else {
        snprintf(buf, size, "%de%d", digit, d);
    }
}

// Ticks of a log axis at every digit times a power of ten; labelled ones get a grid line.
static void log_ticks(FILE *f, const axis *a, bool vertical)
{
    const log_labels mode = labels_for(a);
    const int dlo = (int)floor(log10(a->lo) + 1e-9), dhi = (int)ceil(log10(a->hi) - 1e-9);
    const int every = (dhi - dlo) > 10 ? 2 : 1;
    const double bottom = PLOT_TOP + PLOT_HEIGHT;
    for (int d = dlo; d <= dhi; ++d) {
        for (int m = 1; m <= 9; ++m) {
            const double v = m * pow(10.0, d);
            if (v < a->lo * (1.0 - 1e-9) || v > a->hi * (1.0 + 1e-9)) {
                continue;
            }
            // An end of the axis is labelled when at least 30 px from the decade label inside it.
            const bool at_lo = fabs(v / a->lo - 1.0) < 1e-9, at_hi = fabs(v / a->hi - 1.0) < 1e-9;
            const double decade = pow(10.0, at_hi ? d : d + 1);
            const bool end = (at_lo || at_hi) && m != 1 && fabs(axis_map(a, v) - axis_map(a, decade)) >= 30.0;
            const bool major = mode == LABEL_DIGITS || (m == 1 && (d - dlo) % every == 0) ||
                               (mode == LABEL_125 && (m == 2 || m == 5)) || end;
            const double p = axis_map(a, v), len = major ? 6.0 : 3.0;
            char label[32];
            tick_label(m, d, label, sizeof label);
            if (vertical) {
                if (major) {
                    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", PLOT_LEFT,
                            p, PLOT_LEFT + PLOT_WIDTH, p);
                    text(f, PLOT_LEFT - 9.0, p + 4.5, "end", "", label);
                }
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", PLOT_LEFT - len,
                        p, PLOT_LEFT, p);
            } else {
                if (major) {
                    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", p,
                            PLOT_TOP, p, bottom);
                    text(f, p, bottom + 21.0, "middle", "", label);
                }
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", p, bottom, p,
                        bottom + len);
            }
        }
    }
}

// Ticks of a linear x axis at 1, 2 or 5 times a power of ten (whole numbers when the data are).
static void linear_ticks(FILE *f, const axis *a, bool integer)
{
    double raw = (a->hi - a->lo) / 6.0;
    double mag = pow(10.0, floor(log10(raw)));
    double norm = raw / mag;
    double step = (norm < 1.5 ? 1.0 : norm < 3.5 ? 2.0 : norm < 7.5 ? 5.0 : 10.0) * mag;
    if (integer && step < 1.0) {
        step = 1.0;
    }
    const double bottom = PLOT_TOP + PLOT_HEIGHT;
    for (long k = (long)ceil(a->lo / step - 1e-9); k * step <= a->hi + 1e-9 * step; ++k) {
        const double v = (double)k * step;
        const double p = axis_map(a, v);
        char label[32];
        snprintf(label, sizeof label, "%g", v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", p, PLOT_TOP, p, bottom);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", p, bottom, p,
                bottom + 6.0);
        text(f, p, bottom + 21.0, "middle", "", label);
    }
}

static void stroke_style(FILE *f, const tune_series *s)
{
    const int c = ((s->color % PALETTE_SIZE) + PALETTE_SIZE) % PALETTE_SIZE;
    const int d = ((s->dash % DASH_SIZE) + DASH_SIZE) % DASH_SIZE;
    fprintf(f, " stroke=\"%s\" stroke-width=\"2\" fill=\"none\"", palette[c]);
    if (dashes[d][0] != '\0') {
        fprintf(f, " stroke-dasharray=\"%s\"", dashes[d]);
    }
}

static const char *color_of(const tune_series *s)
{
    return palette[((s->color % PALETTE_SIZE) + PALETTE_SIZE) % PALETTE_SIZE];
}

bool tune_plot_write(const char *path, const tune_plot *p)
{
    // Ranges over the data that can be drawn.
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    bool integer_x = true;
    for (int k = 0; k < p->series_count; ++k) {
        const tune_series *s = &p->series[k];
        for (int i = 0; i < s->count; ++i) {
            const double x = s->x[i];
            if (!isfinite(x) || (p->x_log && !(x > 0.0))) {
                continue;
            }
            xlo = x < xlo ? x : xlo;
            xhi = x > xhi ? x : xhi;
            integer_x = integer_x && x == floor(x);
            const double y = clamp_y(p, s->y[i]);
            ylo = y < ylo ? y : ylo;
            yhi = y > yhi ? y : yhi;
        }
    }
    if (p->hline > 0.0) {
        ylo = p->hline < ylo ? p->hline : ylo;
        yhi = p->hline > yhi ? p->hline : yhi;
    }
    if (!(xlo <= xhi)) { // nothing to draw: an empty frame
        xlo = p->x_log ? 1.0 : 0.0;
        xhi = p->x_log ? 10.0 : 1.0;
        integer_x = false;
    }
    if (!(ylo <= yhi)) {
        ylo = p->y_floor;
        yhi = p->y_ceiling;
    }
    axis ax = {p->x_log, xlo, xhi, PLOT_LEFT, PLOT_LEFT + PLOT_WIDTH};
    axis ay = {true, 0.0, 0.0, PLOT_TOP + PLOT_HEIGHT, PLOT_TOP};
    log_range(ylo, yhi, &ay.lo, &ay.hi);
    if (p->x_log) {
        log_range(xlo, xhi, &ax.lo, &ax.hi);
    } else if (xhi - xlo <= 0.0) {
        ax.lo = xlo - 1.0;
        ax.hi = xhi + 1.0;
    }

    const int legend_rows = p->series_count + (p->hline > 0.0 ? 1 : 0);
    double height = PLOT_TOP + PLOT_HEIGHT + BOTTOM_MARGIN;
    const double legend_bottom = PLOT_TOP + 8.0 + LEGEND_ROW * (legend_rows + 0.5);
    height = legend_bottom + 10.0 > height ? legend_bottom + 10.0 : height;

    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return false;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"13\">\n",
            WIDTH, height, WIDTH, height);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", WIDTH, height);
    text(f, PLOT_LEFT + 0.5 * PLOT_WIDTH, 26.0, "middle", " font-size=\"16\" font-weight=\"bold\"", p->title);

    // Grid and ticks, then the frame over them.
    log_ticks(f, &ay, true);
    if (p->x_log) {
        log_ticks(f, &ax, false);
    } else {
        linear_ticks(f, &ax, integer_x);
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n", PLOT_LEFT,
            PLOT_TOP, PLOT_WIDTH, PLOT_HEIGHT);
    text(f, PLOT_LEFT + 0.5 * PLOT_WIDTH, PLOT_TOP + PLOT_HEIGHT + 48.0, "middle", "", p->x_label);
    // The y label sits above the axis, unrotated: readable, and drawn alike by every renderer.
    text(f, PLOT_LEFT - 60.0, PLOT_TOP - 16.0, "start", "", p->y_label);

    // The budget line.
    if (p->hline > 0.0) {
        const double y = axis_map(&ay, p->hline);
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" stroke-width=\"1.5\" "
                "stroke-dasharray=\"3,3\"/>\n",
                PLOT_LEFT, y, PLOT_LEFT + PLOT_WIDTH, y);
    }

    // One path per series; markers where the points are few enough to tell apart.
    for (int k = 0; k < p->series_count; ++k) {
        const tune_series *s = &p->series[k];
        fputs("<path d=\"", f);
        int drawn = 0;
        for (int i = 0; i < s->count; ++i) {
            if (!isfinite(s->x[i]) || (p->x_log && !(s->x[i] > 0.0))) {
                continue;
            }
            fprintf(f, "%s%.2f %.2f", drawn == 0 ? "M" : " L", axis_map(&ax, s->x[i]), axis_map(&ay, clamp_y(p, s->y[i])));
            drawn += 1;
        }
        fputc('"', f);
        stroke_style(f, s);
        fputs(" stroke-linejoin=\"round\">", f);
        fputs("<title>", f);
        put_escaped(f, s->label);
        fputs("</title></path>\n", f);
        if (s->count <= MAX_MARKED) {
            for (int i = 0; i < s->count; ++i) {
                if (!isfinite(s->x[i]) || (p->x_log && !(s->x[i] > 0.0))) {
                    continue;
                }
                fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"%s\" stroke=\"none\"/>\n", axis_map(&ax, s->x[i]),
                        axis_map(&ay, clamp_y(p, s->y[i])), color_of(s));
            }
        }
    }

    // Legend.
    double y = PLOT_TOP + 8.0 + LEGEND_ROW * 0.5;
    for (int k = 0; k < p->series_count; ++k, y += LEGEND_ROW) {
        const tune_series *s = &p->series[k];
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", LEGEND_LEFT, y, LEGEND_LEFT + 36.0, y);
        stroke_style(f, s);
        fputs("/>\n", f);
        if (s->count <= MAX_MARKED) {
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" stroke=\"none\"/>\n", LEGEND_LEFT + 18.0, y,
                    color_of(s));
        }
        text(f, LEGEND_LEFT + 44.0, y + 4.5, "start", "", s->label);
    }
    if (p->hline > 0.0) {
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" stroke-width=\"1.5\" "
                "stroke-dasharray=\"3,3\"/>\n",
                LEGEND_LEFT, y, LEGEND_LEFT + 36.0, y);
        text(f, LEGEND_LEFT + 44.0, y + 4.5, "start", "", p->hline_label != NULL ? p->hline_label : "");
    }
    fputs("</svg>\n", f);
    const bool ok = ferror(f) == 0;
    return fclose(f) == 0 && ok;
}
