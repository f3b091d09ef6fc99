// A small SVG line-plot writer for sinew-tune: log-scale y, linear or log x, labelled axes, a
// legend, one <path> per series (nothing else in the file is a <path>), no dependencies.
#pragma once

#include <stdbool.h>

/// One line of a plot. Points with a y that is not finite or not positive are drawn at the edge of
/// the plot (top for NaN, infinity and values above the range; bottom for 0).
typedef struct tune_series {
    const char *label;
    const double *x, *y;
    int count;
    int color; ///< index into the palette (cycles)
    int dash;  ///< index into the dash patterns (cycles): 0 solid, 1 dashed, 2 dotted, ...
} tune_series;

/// A plot: the series plus titles.
typedef struct tune_plot {
    const char *title;
    const char *x_label, *y_label;
    bool x_log;         ///< log-scale x axis (y is always log scale)
    double y_floor;     ///< smallest y drawn (values below are drawn at it), > 0
    double y_ceiling;   ///< largest y drawn, > y_floor
    double hline;       ///< a horizontal reference line (the error budget), <= 0 for none
    const char *hline_label;
    const tune_series *series;
    int series_count;
} tune_plot;

/// Writes the plot to `path`. Returns false when the file cannot be written.
bool tune_plot_write(const char *path, const tune_plot *plot);
