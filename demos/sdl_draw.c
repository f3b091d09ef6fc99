// The drawing interface of demos/scene.h on SDL_RenderGeometry: every primitive becomes triangles
// in one of two batches (world, HUD), each drawn with one call at the end of the frame.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdl_draw.h"
#include "sdl_font.h"

#define DISC_SIZE 64

typedef struct batch {
    SDL_Vertex *v;
    int *idx;
    int nv, ni, cap_v, cap_i;
    bool failed; // out of memory this frame: later primitives are dropped
} batch;

struct demo_draw {
    SDL_Renderer *renderer;
    SDL_Texture *disc; // a white disc with a soft edge and a slightly darker rim; its middle is plain white
    SDL_Texture *font; // the bitmap font atlas
    int width, height;
    float scale;       // pixels per metre
    float ox, oy;      // screen x = ox + scale * x, screen y = oy - scale * y
    int hud_scale;
    batch world, hud;
};

// ---------------------------------------------------------------------------------------------
// Batches

static bool batch_reserve(batch *b, int nv, int ni)
{
    if (b->failed) {
        return false;
    }
    if (b->nv + nv > b->cap_v) {
        int cap = b->cap_v ? b->cap_v : 4096;
        while (cap < b->nv + nv) {
            cap *= 2;
        }
        SDL_Vertex *v = realloc(b->v, (size_t)cap * sizeof *v);
        if (v == NULL) {
            b->failed = true;
            return false;
        }
        b->v = v;
        b->cap_v = cap;
    }
    if (b->ni + ni > b->cap_i) {
        int cap = b->cap_i ? b->cap_i : 6144;
        while (cap < b->ni + ni) {
            cap *= 2;
        }
        int *idx = realloc(b->idx, (size_t)cap * sizeof *idx);
        if (idx == NULL) {
            b->failed = true;
            return false;
        }
        b->idx = idx;
        b->cap_i = cap;
    }
    return true;
}

static SDL_Color sdl_color(demo_color c)
{
    SDL_Color s = {c.r, c.g, c.b, c.a};
    return s;
}

static void put_vertex(batch *b, float x, float y, float u, float v, SDL_Color c)
{
    SDL_Vertex *p = &b->v[b->nv++];
    p->position.x = x;
    p->position.y = y;
    p->tex_coord.x = u;
    p->tex_coord.y = v;
    p->color = c;
}

// A quad of four screen points (in order round it) with texture corners u0..u1, v0..v1.
static void put_quad(batch *b, const float *xy, float u0, float v0, float u1, float v1, SDL_Color c)
{
    if (!batch_reserve(b, 4, 6)) {
        return;
    }
    const int base = b->nv;
    put_vertex(b, xy[0], xy[1], u0, v0, c);
    put_vertex(b, xy[2], xy[3], u1, v0, c);
    put_vertex(b, xy[4], xy[5], u1, v1, c);
    put_vertex(b, xy[6], xy[7], u0, v1, c);
    const int q[6] = {base, base + 1, base + 2, base, base + 2, base + 3};
    memcpy(b->idx + b->ni, q, sizeof q);
    b->ni += 6;
}

static bool batch_flush(SDL_Renderer *r, SDL_Texture *t, batch *b)
{
    bool ok = true;
    if (b->ni > 0) {
        ok = SDL_RenderGeometry(r, t, b->v, b->nv, b->idx, b->ni) == 0;
        if (!ok) {
            fprintf(stderr, "sinew-demos: SDL_RenderGeometry: %s\n", SDL_GetError());
        }
    }
    b->nv = 0;
    b->ni = 0;
    b->failed = false;
    return ok;
}

// ---------------------------------------------------------------------------------------------
// Setup

static SDL_Texture *make_texture(SDL_Renderer *r, int w, int h, const uint32_t *pixels, SDL_ScaleMode mode)
{
    SDL_Texture *t = SDL_CreateTexture(r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STATIC, w, h);
    if (t == NULL || SDL_UpdateTexture(t, NULL, pixels, w * (int)sizeof(uint32_t)) != 0 ||
        SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND) != 0) {
        fprintf(stderr, "sinew-demos: cannot make a texture: %s\n", SDL_GetError());
        SDL_DestroyTexture(t);
        return NULL;
    }
    SDL_SetTextureScaleMode(t, mode);
    return t;
}

demo_draw *demo_draw_create(SDL_Renderer *renderer)
{
    demo_draw *d = calloc(1, sizeof *d);
    if (d == NULL) {
        fprintf(stderr, "sinew-demos: out of memory\n");
        return NULL;
    }
    d->renderer = renderer;
    d->hud_scale = 1;

    static uint32_t disc[DISC_SIZE * DISC_SIZE];
    const float c = 0.5f * DISC_SIZE, radius = c - 1.0f;
    for (int y = 0; y < DISC_SIZE; ++y) {
        for (int x = 0; x < DISC_SIZE; ++x) {
            const float r = hypotf((float)x + 0.5f - c, (float)y + 0.5f - c);
            float alpha = radius - r + 0.5f; // one texel of soft edge
            alpha = alpha < 0.0f ? 0.0f : (alpha > 1.0f ? 1.0f : alpha);
            // Plain white to 75 % of the radius, then a shade towards the rim.
            float shade = r < 0.75f * radius ? 1.0f : 1.0f - 0.3f * (r - 0.75f * radius) / (0.25f * radius);
            shade = shade < 0.7f ? 0.7f : shade;
            const uint32_t g = (uint32_t)(255.0f * shade + 0.5f), a = (uint32_t)(255.0f * alpha + 0.5f);
            disc[y * DISC_SIZE + x] = (a << 24) | (g << 16) | (g << 8) | g;
        }
    }
    d->disc = make_texture(renderer, DISC_SIZE, DISC_SIZE, disc, SDL_ScaleModeLinear);

    static uint32_t font[DEMO_FONT_ATLAS_W * DEMO_FONT_ATLAS_H];
    demo_font_rasterize(font, DEMO_FONT_ATLAS_W, 0xffffffffu, 0x00ffffffu);
    d->font = make_texture(renderer, DEMO_FONT_ATLAS_W, DEMO_FONT_ATLAS_H, font, SDL_ScaleModeNearest);

    if (d->disc == NULL || d->font == NULL) {
        demo_draw_destroy(d);
        return NULL;
    }
    return d;
}

void demo_draw_destroy(demo_draw *d)
{
    if (d == NULL) {
        return;
    }
    SDL_DestroyTexture(d->disc);
    SDL_DestroyTexture(d->font);
    free(d->world.v);
    free(d->world.idx);
    free(d->hud.v);
    free(d->hud.idx);
    free(d);
}

void demo_draw_set_size(demo_draw *d, int width, int height)
{
    d->width = width;
    d->height = height;
    d->hud_scale = (height >= 700 && width >= 1100) ? 2 : 1;
}

void demo_draw_begin(demo_draw *d, int width, int height, float top, sinew_vec2 view_min, sinew_vec2 view_max)
{
    demo_draw_set_size(d, width, height);
    const float vw = view_max.x - view_min.x, vh = view_max.y - view_min.y, avail = (float)height - top;
    const float margin = 0.96f;
    float sx = vw > 0.0f ? (float)width / vw : 1.0f, sy = vh > 0.0f && avail > 0.0f ? avail / vh : 1.0f;
    d->scale = margin * (sx < sy ? sx : sy);
    const float cx = 0.5f * (view_min.x + view_max.x), cy = 0.5f * (view_min.y + view_max.y);
    d->ox = 0.5f * (float)width - d->scale * cx;
    d->oy = top + 0.5f * avail + d->scale * cy;
    d->world.nv = d->world.ni = 0;
    d->hud.nv = d->hud.ni = 0;
}

sinew_vec2 demo_draw_to_world(const demo_draw *d, float sx, float sy)
{
    return sinew_vec2_make((sx - d->ox) / d->scale, (d->oy - sy) / d->scale);
}

bool demo_draw_end(demo_draw *d)
{
    bool ok = batch_flush(d->renderer, d->disc, &d->world);
    ok = batch_flush(d->renderer, d->font, &d->hud) && ok;
    return ok;
}

// ---------------------------------------------------------------------------------------------
// World primitives

static inline float to_sx(const demo_draw *d, float x) { return d->ox + d->scale * x; }
static inline float to_sy(const demo_draw *d, float y) { return d->oy - d->scale * y; }

float demo_draw_pixel(const demo_draw *d)
{
    return 1.0f / d->scale;
}

void demo_draw_visible(const demo_draw *d, sinew_vec2 *min, sinew_vec2 *max)
{
    *min = demo_draw_to_world(d, 0.0f, (float)d->height);
    *max = demo_draw_to_world(d, (float)d->width, 0.0f);
}

static void disc_px(demo_draw *d, float sx, float sy, float r, SDL_Color c)
{
    // The texture's disc ends a texel inside its edge: grow the quad to match.
    r = r < 1.0f ? 1.0f : r;
    r *= (0.5f * DISC_SIZE) / (0.5f * DISC_SIZE - 1.0f);
    if (sx + r < 0.0f || sy + r < 0.0f || sx - r > (float)d->width || sy - r > (float)d->height) {
        return;
    }
    const float xy[8] = {sx - r, sy - r, sx + r, sy - r, sx + r, sy + r, sx - r, sy + r};
    put_quad(&d->world, xy, 0.0f, 0.0f, 1.0f, 1.0f, c);
}

void demo_draw_circle(demo_draw *d, sinew_vec2 center, float radius, demo_color color)
{
    disc_px(d, to_sx(d, center.x), to_sy(d, center.y), radius * d->scale, sdl_color(color));
}

void demo_draw_circles(demo_draw *d, int count, const float *x, const float *y, const float *radius,
                       float fixed_radius, const demo_color *colors, demo_color color)
{
    const SDL_Color one = sdl_color(color);
    for (int i = 0; i < count; ++i) {
        const float r = (radius != NULL ? radius[i] : fixed_radius) * d->scale;
        disc_px(d, to_sx(d, x[i]), to_sy(d, y[i]), r, colors != NULL ? sdl_color(colors[i]) : one);
    }
}

// A solid (untextured) quad: every corner samples the plain white middle of the disc texture.
static void solid_quad(demo_draw *d, const float *xy, SDL_Color c)
{
    put_quad(&d->world, xy, 0.5f, 0.5f, 0.5f, 0.5f, c);
}

static void segment_px(demo_draw *d, float ax, float ay, float bx, float by, float width, SDL_Color c)
{
    float dx = bx - ax, dy = by - ay;
    const float len = sqrtf(dx * dx + dy * dy);
    if (len <= 0.0f) {
        return;
    }
    width = width < 1.0f ? 1.0f : width;
    const float nx = -dy / len * 0.5f * width, ny = dx / len * 0.5f * width;
    const float xy[8] = {ax + nx, ay + ny, bx + nx, by + ny, bx - nx, by - ny, ax - nx, ay - ny};
    solid_quad(d, xy, c);
}

void demo_draw_segment(demo_draw *d, sinew_vec2 a, sinew_vec2 b, float width_px, demo_color color)
{
    segment_px(d, to_sx(d, a.x), to_sy(d, a.y), to_sx(d, b.x), to_sy(d, b.y), width_px, sdl_color(color));
}

void demo_draw_capsule(demo_draw *d, sinew_vec2 a, sinew_vec2 b, float radius, demo_color color)
{
    const SDL_Color c = sdl_color(color);
    const float r = radius * d->scale;
    segment_px(d, to_sx(d, a.x), to_sy(d, a.y), to_sx(d, b.x), to_sy(d, b.y), 2.0f * r, c);
    disc_px(d, to_sx(d, a.x), to_sy(d, a.y), r, c);
    disc_px(d, to_sx(d, b.x), to_sy(d, b.y), r, c);
}

void demo_draw_ring(demo_draw *d, sinew_vec2 center, float radius, float width_px, demo_color color)
{
    const SDL_Color c = sdl_color(color);
    const float sx = to_sx(d, center.x), sy = to_sy(d, center.y), r = radius * d->scale;
    int n = (int)(r * 0.5f);
    n = n < 16 ? 16 : (n > 96 ? 96 : n);
    const float r0 = r - 0.5f * width_px, r1 = r + 0.5f * width_px;
    for (int k = 0; k < n; ++k) {
        const float t0 = 6.2831853f * (float)k / (float)n, t1 = 6.2831853f * (float)(k + 1) / (float)n;
        const float c0 = cosf(t0), s0 = sinf(t0), c1 = cosf(t1), s1 = sinf(t1);
        const float xy[8] = {sx + r0 * c0, sy + r0 * s0, sx + r1 * c0, sy + r1 * s0,
                             sx + r1 * c1, sy + r1 * s1, sx + r0 * c1, sy + r0 * s1};
        solid_quad(d, xy, c);
    }
}

void demo_draw_triangle(demo_draw *d, sinew_vec2 a, sinew_vec2 b, sinew_vec2 c, demo_color color)
{
    batch *w = &d->world;
    if (!batch_reserve(w, 3, 3)) {
        return;
    }
    const SDL_Color s = sdl_color(color);
    const int base = w->nv;
    put_vertex(w, to_sx(d, a.x), to_sy(d, a.y), 0.5f, 0.5f, s);
    put_vertex(w, to_sx(d, b.x), to_sy(d, b.y), 0.5f, 0.5f, s);
    put_vertex(w, to_sx(d, c.x), to_sy(d, c.y), 0.5f, 0.5f, s);
    w->idx[w->ni++] = base;
    w->idx[w->ni++] = base + 1;
    w->idx[w->ni++] = base + 2;
}

void demo_draw_polygon(demo_draw *d, const sinew_vec2 *points, int count, demo_color color)
{
    if (count < 3) {
        return;
    }
    batch *w = &d->world;
    if (!batch_reserve(w, count + 1, 3 * count)) {
        return;
    }
    const SDL_Color s = sdl_color(color);
    sinew_vec2 mid = sinew_vec2_make(0.0f, 0.0f);
    for (int i = 0; i < count; ++i) {
        mid = sinew_vec2_add(mid, points[i]);
    }
    mid = sinew_vec2_scale(mid, 1.0f / (float)count);
    const int base = w->nv;
    put_vertex(w, to_sx(d, mid.x), to_sy(d, mid.y), 0.5f, 0.5f, s);
    for (int i = 0; i < count; ++i) {
        put_vertex(w, to_sx(d, points[i].x), to_sy(d, points[i].y), 0.5f, 0.5f, s);
    }
    for (int i = 0; i < count; ++i) {
        w->idx[w->ni++] = base;
        w->idx[w->ni++] = base + 1 + i;
        w->idx[w->ni++] = base + 1 + (i + 1) % count;
    }
}

void demo_draw_polyline(demo_draw *d, const sinew_vec2 *points, int count, bool closed, float width_px,
                        demo_color color)
{
    const SDL_Color c = sdl_color(color);
    const int n = closed ? count : count - 1;
    for (int i = 0; i < n; ++i) {
        const sinew_vec2 a = points[i], b = points[(i + 1) % count];
        segment_px(d, to_sx(d, a.x), to_sy(d, a.y), to_sx(d, b.x), to_sy(d, b.y), width_px, c);
        // Round joints so thick outlines have no notches.
        if (width_px >= 3.0f) {
            disc_px(d, to_sx(d, b.x), to_sy(d, b.y), 0.5f * width_px, c);
        }
    }
}

void demo_draw_text(demo_draw *d, sinew_vec2 at, const char *text, demo_color color)
{
    demo_hud_text(d, floorf(to_sx(d, at.x)), floorf(to_sy(d, at.y)), text, color);
}

// ---------------------------------------------------------------------------------------------
// HUD

int demo_hud_scale(const demo_draw *d)
{
    return d->hud_scale;
}

static void font_cell_uv(int ch, float *u0, float *v0, float *u1, float *v1)
{
    const int col = (ch - 32) % DEMO_FONT_COLUMNS, row = (ch - 32) / DEMO_FONT_COLUMNS;
    *u0 = (float)(col * DEMO_FONT_CELL_W) / (float)DEMO_FONT_ATLAS_W;
    *v0 = (float)(row * DEMO_FONT_CELL_H) / (float)DEMO_FONT_ATLAS_H;
    *u1 = (float)((col + 1) * DEMO_FONT_CELL_W) / (float)DEMO_FONT_ATLAS_W;
    *v1 = (float)((row + 1) * DEMO_FONT_CELL_H) / (float)DEMO_FONT_ATLAS_H;
}

void demo_hud_rect(demo_draw *d, float x, float y, float w, float h, demo_color color)
{
    float u0, v0, u1, v1;
    font_cell_uv(127, &u0, &v0, &u1, &v1);
    const float u = 0.5f * (u0 + u1), v = 0.5f * (v0 + v1);
    const float xy[8] = {x, y, x + w, y, x + w, y + h, x, y + h};
    put_quad(&d->hud, xy, u, v, u, v, sdl_color(color));
}

float demo_hud_text(demo_draw *d, float x, float y, const char *text, demo_color color)
{
    const float s = (float)d->hud_scale, cw = DEMO_FONT_CELL_W * s, ch = DEMO_FONT_CELL_H * s;
    const SDL_Color c = sdl_color(color);
    float cx = x, cy = y, widest = 0.0f;
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; ++p) {
        if (*p == '\n') {
            widest = cx - x > widest ? cx - x : widest;
            cx = x;
            cy += ch;
            continue;
        }
        const int code = (*p >= 32 && *p < 127) ? *p : '?';
        if (code != ' ') {
            float u0, v0, u1, v1;
            font_cell_uv(code, &u0, &v0, &u1, &v1);
            const float xy[8] = {cx, cy, cx + cw, cy, cx + cw, cy + ch, cx, cy + ch};
            put_quad(&d->hud, xy, u0, v0, u1, v1, c);
        }
        cx += cw;
    }
    return cx - x > widest ? cx - x : widest;
}

void demo_hud_measure(const demo_draw *d, const char *text, float *w, float *h)
{
    int lines = 1, col = 0, widest = 0;
    for (const char *p = text; *p != '\0'; ++p) {
        if (*p == '\n') {
            ++lines;
            col = 0;
        } else if (++col > widest) {
            widest = col;
        }
    }
    *w = (float)(widest * DEMO_FONT_CELL_W * d->hud_scale);
    *h = (float)(lines * DEMO_FONT_CELL_H * d->hud_scale);
}
