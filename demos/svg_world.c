// sinew-svg: a second renderer for sinew_world_draw, in plain C. Builds soft bodies, a rope and
// a floor, steps them, and writes the world as an SVG picture (y up, metres scaled to pixels).
//   sinew-svg [FILE.svg] [FRAMES]
#include <stdio.h>
#include <stdlib.h>

#include <sinew/sinew.h>

#define SCALE 40.0 // pixels per metre
#define WIDTH 800
#define HEIGHT 480

static double px(float x) { return WIDTH / 2 + SCALE * x; }
static double py(float y) { return HEIGHT - 40 - SCALE * y; }

static void color(FILE *f, const char *attr, sinew_color c)
{
    fprintf(f, " %s=\"rgb(%d,%d,%d)\" %s-opacity=\"%.2f\"", attr, c.r, c.g, c.b, attr, c.a / 255.0);
}

static void circle(sinew_vec2 c, float r, sinew_color col, void *ctx)
{
    fprintf(ctx, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", px(c.x), py(c.y), SCALE * r + 0.5);
    color(ctx, "fill", col);
    fprintf(ctx, "/>\n");
}

static void segment(sinew_vec2 a, sinew_vec2 b, sinew_color col, void *ctx)
{
    fprintf(ctx, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke-width=\"1.5\"", px(a.x), py(a.y),
            px(b.x), py(b.y));
    color(ctx, "stroke", col);
    fprintf(ctx, "/>\n");
}

static void polygon(const sinew_vec2 *v, int n, float radius, sinew_color col, void *ctx)
{
    const int core = n < 3; // a disc or a capsule: its core, stroked as wide as its radius
    fprintf(ctx, "<%s points=\"", core ? "polyline" : "polygon");
    for (int k = 0; k < n + core; ++k) {
        fprintf(ctx, "%.1f,%.1f ", px(v[k % n].x), py(v[k % n].y));
    }
    fprintf(ctx, "\" stroke-linecap=\"round\" stroke-linejoin=\"round\" stroke-width=\"%.1f\"",
            2.0 * SCALE * radius + 1.0 - core);
    color(ctx, "fill", (sinew_color){col.r, col.g, col.b, core ? 0 : 90});
    color(ctx, "stroke", col);
    fprintf(ctx, "/>\n");
}

static void point(sinew_vec2 p, sinew_color col, void *ctx) { circle(p, 0.05f, col, ctx); }

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "sinew-world.svg";
    const int frames = argc > 2 ? atoi(argv[2]) : 90;
    sinew_world *w = NULL;
    if (sinew_world_create(NULL, &w) != SINEW_OK) {
        return 1;
    }
    sinew_collider_def cd = sinew_default_collider_def();
    sinew_plane_collider_create(w, &cd, sinew_vec2_make(0.0f, 1.0f), 0.0f, NULL);
    sinew_circle_collider_create(w, &cd, sinew_vec2_make(3.0f, 1.0f), 0.8f, NULL);
    for (int k = 0; k < 3; ++k) {
        sinew_softbody_def sd = sinew_default_softbody_def();
        sd.center = sinew_vec2_make(-4.0f + 2.5f * (float)k, 3.0f + (float)k);
        sd.inside = (sinew_softbody_inside)k;
        sinew_softbody_create(w, &sd, NULL);
    }
    sinew_rope_def rd = sinew_default_rope_def();
    rd.start = sinew_vec2_make(1.0f, 9.0f);
    rd.end = sinew_vec2_make(6.0f, 9.0f);
    rd.links = 20;
    sinew_rope_create(w, &rd, NULL);
    for (int s = 0; s < frames; ++s) {
        sinew_world_step(w, 1.0f / 60.0f);
    }
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        sinew_world_destroy(w);
        return 1;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n", WIDTH, HEIGHT);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(24,28,36)\"/>\n");
    const sinew_debug_draw draw = {circle, segment, polygon, point, SINEW_DRAW_ALL, f,
                                   sinew_vec2_make((float)(-WIDTH / 2 / SCALE), -1.0f),
                                   sinew_vec2_make((float)(WIDTH / 2 / SCALE), (float)((HEIGHT - 40) / SCALE))};
    const sinew_status s = sinew_world_draw(w, &draw);
    fprintf(f, "</svg>\n");
    const int closed = fclose(f);
    sinew_world_destroy(w);
    printf("sinew-svg: wrote %s\n", path);
    return s == SINEW_OK && closed == 0 ? 0 : 1;
}
