// pile_svg: see pile_svg.h. Speeds come from sinew_particle_get_velocity, as the quality figures'
// do; a ball counts as over the limit exactly when pile_quality's max_speed would count it.
#include "pile_svg.h"

#include <math.h>
#include <stdio.h>

#define SPEED_LIMIT 0.2 // m/s, the quality limit of the pile (issue 21, bench/lattices.py)

// Blue at rest through pale blue to yellow at the limit; red over it.
static void speed_colour(double speed, int rgb[3])
{
    static const int rest[3] = {40, 70, 150}, mid[3] = {150, 190, 220}, limit[3] = {235, 200, 60};
    static const int over[3] = {215, 40, 30};
    if (!(speed <= SPEED_LIMIT)) {
        for (int k = 0; k < 3; ++k) {
            rgb[k] = over[k];
        }
        return;
    }
    const double t = speed / SPEED_LIMIT;
    for (int k = 0; k < 3; ++k) {
        rgb[k] = t < 0.5 ? (int)lround(rest[k] + (mid[k] - rest[k]) * 2.0 * t)
                         : (int)lround(mid[k] + (limit[k] - mid[k]) * (2.0 * t - 1.0));
    }
}

int pile_svg_write(const sinew_world *world, const pile_layout *layout, const double *vx, const double *vy,
                   const char *path, int width)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return 1;
    }
    const sinew_particle_view v = sinew_world_particles(world);
    double top = 0.0; // the highest ball's top, so the picture ends above the pile
    for (int i = 0; i < v.count; ++i) {
        top = fmax(top, (double)v.y[i] + v.radius[i]);
    }
    const double margin = 1.0, w = layout->width + 2.0 * margin, h = fmin(top, layout->height) + 2.0 * margin + 3.0;
    const double scale = width / w;
    const int height = (int)ceil(h * scale);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", width,
            height, width, height);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    // Metres to pixels: x from the left wall less the margin, y up from the floor.
#define PX(x) (((x) + margin) * scale)
#define PY(y) (height - ((y) + margin) * scale)
    fprintf(f, "<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"#444\" "
               "stroke-width=\"2\"/>\n",
            PX(0.0), PY(h - 2.0 * margin), PX(0.0), PY(0.0), PX(layout->width), PY(0.0), PX(layout->width),
            PY(h - 2.0 * margin));
    int over = 0;
    double fastest = 0.0;
    for (int pass = 0; pass < 2; ++pass) { // the balls, then the rings over them
        for (int i = 0; i < v.count; ++i) {
            const double speed = hypot(vx[i], vy[i]);
            const double cx = PX((double)v.x[i]), cy = PY((double)v.y[i]), r = v.radius[i] * scale;
            if (pass == 0) {
                int rgb[3];
                speed_colour(speed, rgb);
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.2f\" fill=\"rgb(%d,%d,%d)\"/>\n", cx, cy, r, rgb[0],
                        rgb[1], rgb[2]);
            } else if (!(speed <= SPEED_LIMIT)) {
                over += 1;
                fastest = fmax(fastest, speed);
                // A ring, and a line the way it moves: as far as it would go in 2 s.
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.2f\" fill=\"none\" stroke=\"rgb(215,40,30)\" "
                           "stroke-width=\"1.5\"/>\n",
                        cx, cy, 3.0 * r);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"rgb(120,0,0)\" "
                           "stroke-width=\"2\"/>\n",
                        cx, cy, cx + 2.0 * vx[i] * scale, cy - 2.0 * vy[i] * scale);
            }
        }
    }
    fprintf(f, "<text x=\"10\" y=\"22\" font-family=\"sans-serif\" font-size=\"16\" fill=\"#222\">%d balls; colour: speed, "
               "blue at rest, yellow at %.1f m/s; %d over it (ringed, a line to where each would be in 2 s), the "
               "fastest %.2f m/s</text>\n",
            v.count, SPEED_LIMIT, over, fastest);
#undef PX
#undef PY
    fprintf(f, "</svg>\n");
    return fclose(f) != 0;
}
