// sinew-demos: every scene of demos/scenes in one SDL2 program. A window with a HUD, mouse and
// keyboard controls, fixed 60 Hz stepping with an accumulator; or, with --headless, N steps
// rendered by SDL's software renderer into a surface and saved as BMP or PNG, with no display.
//
//   sinew-demos [--scene NAME] [--mode gs|jacobi] [--iterations N] [--substeps N] [--omega W] [--frames N]
//   sinew-demos --headless --scene NAME --frames N --screenshot FILE.png|FILE.bmp [--no-hud] [--keys KEYS]
//               [--save-world FILE.snw]
//
// Exit status: 0 fine; 1 bad arguments or SDL failure; 2 an engine call failed; 3 a particle
// position became NaN or infinite.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "scene.h"
#include "sdl_draw.h"
#include "sdl_image.h"

#define STEP_HZ 60
#define MAX_STEPS_PER_FRAME 4 // the accumulator is clamped to this many steps (no spiral of death)

static const demo_color BACKGROUND = {24, 28, 36, 255};

typedef struct app {
    // display
    bool headless, show_hud, show_help, autoplay, running;
    bool overlay; // F2 / --overlay: sinew_world_draw of everything over the scene
    int workers;  // threads every world steps with: 1 or 2 (t toggles, --threads N)
    SDL_Window *window;
    SDL_Renderer *renderer;
    SDL_Surface *target; // headless: what the software renderer draws into
    demo_draw *draw;
    int width, height;   // output pixels
    // scene
    int index;
    const demo_def *def;
    demo_scene *scene;
    sinew_solver_def solver; // settings the keys change, applied to every world
    int frame;               // steps since the scene was made
    bool paused, single_step;
    // input, latched between steps
    sinew_vec2 mouse, prev_mouse;
    bool mouse_in_view, left_down, right_down, left_click, right_click, prev_left, prev_right;
    int key;
    const char *keys; // --keys: scene keys pressed at steps 0, 1, 2, ...
    // measurements
    double step_ms, step_ms_sum;
    int step_count;
    double fps, render_ms, draw_ms; // draw: building and submitting a frame; render: also presenting it
    int fps_frames;
    uint64_t fps_since;
    // movement since creation, for the headless report
    float *start_x[DEMO_MAX_WORLDS], *start_y[DEMO_MAX_WORLDS];
    int start_n[DEMO_MAX_WORLDS];
    int exit_code;
} app;

static const char *mode_name(sinew_solver_mode m)
{
    return m == SINEW_SOLVER_JACOBI ? "Jacobi" : "Gauss-Seidel";
}

// ---------------------------------------------------------------------------------------------
// Scenes and settings

static void forget_start(app *a)
{
    for (int k = 0; k < DEMO_MAX_WORLDS; ++k) {
        free(a->start_x[k]);
        free(a->start_y[k]);
        a->start_x[k] = a->start_y[k] = NULL;
        a->start_n[k] = 0;
    }
}

static void remember_start(app *a)
{
    forget_start(a);
    for (int k = 0; k < a->scene->world_count; ++k) {
        sinew_particle_view v = sinew_world_particles(a->scene->worlds[k]);
        a->start_x[k] = malloc(sizeof(float) * (size_t)(v.count > 0 ? v.count : 1));
        a->start_y[k] = malloc(sizeof(float) * (size_t)(v.count > 0 ? v.count : 1));
        if (a->start_x[k] != NULL && a->start_y[k] != NULL) {
            memcpy(a->start_x[k], v.x, sizeof(float) * (size_t)v.count);
            memcpy(a->start_y[k], v.y, sizeof(float) * (size_t)v.count);
            a->start_n[k] = v.count;
        }
    }
}

// Largest distance any particle moved since the scene was made (particles are never destroyed
// by the scenes, so dense indices still match).
static float moved_since_start(const app *a)
{
    float best = 0.0f;
    for (int k = 0; k < a->scene->world_count; ++k) {
        sinew_particle_view v = sinew_world_particles(a->scene->worlds[k]);
        const int n = v.count < a->start_n[k] ? v.count : a->start_n[k];
        for (int i = 0; i < n; ++i) {
            const float d = hypotf(v.x[i] - a->start_x[k][i], v.y[i] - a->start_y[k][i]);
            best = d > best ? d : best;
        }
    }
    return best;
}

// The app's worker count on every world of the scene, which profiles its steps and their jobs for
// the HUD (the stages' times and the share of the step on one thread).
static bool apply_workers(app *a)
{
    for (int k = 0; k < a->scene->world_count; ++k) {
        sinew_world *w = a->scene->worlds[k];
        if (!demo_check(sinew_world_set_workers(w, a->workers), w, "sinew_world_set_workers") ||
            !demo_check(sinew_world_set_profiling(w, SINEW_PROFILE_JOBS), w, "sinew_world_set_profiling")) {
            return false;
        }
    }
    return true;
}

static bool apply_solver(app *a)
{
    for (int k = 0; k < a->scene->world_count; ++k) {
        sinew_world *w = a->scene->worlds[k];
        sinew_solver_def s = sinew_world_get_solver(w);
        if (!a->scene->lock_mode) {
            s.mode = a->solver.mode;
        }
        s.iterations = a->solver.iterations;
        s.substeps = a->solver.substeps;
        s.jacobi_omega = a->solver.jacobi_omega;
        if (!demo_check(sinew_world_set_solver(w, &s), w, "sinew_world_set_solver")) {
            return false;
        }
    }
    return apply_workers(a);
}

// Makes scene `index`; keep_settings applies the current solver settings (reset), otherwise the
// scene's own become current (switch).
static bool load_scene(app *a, int index, bool keep_settings)
{
    if (a->scene != NULL) {
        a->def->destroy(a->scene);
        a->scene = NULL;
    }
    a->index = index;
    a->def = demo_table[index];
    a->scene = a->def->create();
    if (a->scene == NULL) {
        fprintf(stderr, "sinew-demos: scene %s could not be made\n", a->def->name);
        return false;
    }
    if (keep_settings) {
        if (!apply_solver(a)) {
            return false;
        }
    } else {
        a->solver = sinew_world_get_solver(a->scene->worlds[0]);
        if (!apply_workers(a)) { // (the workers stay as they were: the scene's own are 1)
            return false;
        }
    }
    a->frame = 0;
    a->step_ms = 0.0;
    a->prev_left = a->prev_right = false;
    remember_start(a);
    if (a->window != NULL) {
        char title[128];
        snprintf(title, sizeof title, "sinew demos: %s", a->def->title);
        SDL_SetWindowTitle(a->window, title);
    }
    return true;
}

static const int ladder[] = {1,  2,  3,  4,  5,  6,  7,   8,   10,  12,  14,  16,  20,  24,  28,  32,
                             40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 384, 512, 768, 1024};
static int next_on_ladder(int v, bool up)
{
    const int n = (int)(sizeof ladder / sizeof ladder[0]);
    if (up) {
        for (int i = 0; i < n; ++i) {
            if (ladder[i] > v) {
                return ladder[i];
            }
        }
        return ladder[n - 1];
    }
    for (int i = n - 1; i >= 0; --i) {
        if (ladder[i] < v) {
            return ladder[i];
        }
    }
    return ladder[0];
}

// ---------------------------------------------------------------------------------------------
// One fixed step: input -> scene -> every world, checked.

static bool non_finite(const sinew_world *w)
{
    sinew_particle_view v = sinew_world_particles(w);
    float sum = 0.0f;
    for (int i = 0; i < v.count; ++i) {
        sum += v.x[i] * 0.0f + v.y[i] * 0.0f; // NaN or infinity anywhere makes the sum NaN
    }
    return sum != sum;
}

static bool step(app *a)
{
    const float dt = 1.0f / STEP_HZ;
    demo_input in = {0};
    in.frame = a->frame;
    in.mouse = a->mouse;
    in.mouse_in_view = a->mouse_in_view;
    in.left_down = a->left_down || a->left_click;
    in.right_down = a->right_down || a->right_click;
    if (a->autoplay && a->def->autoplay != NULL) {
        a->def->autoplay(a->scene, &in);
    }
    in.mouse_prev = a->frame > 0 ? a->prev_mouse : in.mouse;
    in.left_pressed = in.left_down && !a->prev_left;
    in.left_released = !in.left_down && a->prev_left;
    in.right_pressed = in.right_down && !a->prev_right;
    in.right_released = !in.right_down && a->prev_right;
    in.key = a->key;
    if (a->keys != NULL && a->frame < (int)strlen(a->keys)) {
        in.key = a->keys[a->frame];
    }
    in.pick_radius = 24.0f * demo_draw_pixel(a->draw);
    a->key = 0;
    a->left_click = a->right_click = false;
    a->prev_left = in.left_down;
    a->prev_right = in.right_down;
    a->prev_mouse = in.mouse;

    a->def->update(a->scene, &in, dt);

    const uint64_t t0 = SDL_GetPerformanceCounter();
    for (int k = 0; k < a->scene->world_count; ++k) {
        sinew_world *w = a->scene->worlds[k];
        if (!demo_check(sinew_world_step(w, dt), w, "sinew_world_step")) {
            a->exit_code = 2;
            return false;
        }
    }
    const double ms = 1000.0 * (double)(SDL_GetPerformanceCounter() - t0) / (double)SDL_GetPerformanceFrequency();
    a->step_ms = a->step_count == 0 || a->step_ms == 0.0 ? ms : 0.9 * a->step_ms + 0.1 * ms;
    a->step_ms_sum += ms;
    a->step_count += 1;
    for (int k = 0; k < a->scene->world_count; ++k) {
        if (non_finite(a->scene->worlds[k])) {
            fprintf(stderr, "sinew-demos: scene %s: a particle position is not finite after step %d\n",
                    a->def->name, a->frame + 1);
            a->exit_code = 3;
            return false;
        }
    }
    a->frame += 1;
    return true;
}

// ---------------------------------------------------------------------------------------------
// HUD and help

static const demo_color HUD_TEXT = {225, 230, 240, 255};
static const demo_color HUD_DIM = {140, 150, 170, 255};
static const demo_color HUD_KEY = {255, 210, 120, 255};
static const demo_color HUD_PANEL = {12, 14, 20, 255};
static const demo_color HUD_RULE = {60, 70, 90, 255};
static const demo_color HUD_SCENE = {160, 220, 190, 255};
#define DEMO_LINE 11.0f // HUD line height in font pixels
#define DEMO_PAD 4.0f   // HUD padding in font pixels

// The HUD is a strip across the top: the scene bar and flags, then the numbers on the left and
// the scene's own lines on the right. The world is framed below it, so nothing hides under it.
typedef struct hud_text {
    char left[1024], right[512], flags[128];
    bool stacked; // right block under the left one (narrow window)
    float height; // pixels, 0 when hidden
} hud_text;

static void compose_hud(app *a, hud_text *t)
{
    sinew_step_stats st[DEMO_MAX_WORLDS];
    int particles = 0, constraints = 0, n = 0;
    for (int k = 0; k < a->scene->world_count; ++k) {
        st[k] = sinew_world_stats(a->scene->worlds[k]);
        particles += sinew_world_particles(a->scene->worlds[k]).count;
        for (int kind = 0; kind < SINEW_KIND_COUNT; ++kind) {
            constraints += st[k].kinds[kind].count;
        }
    }
    const size_t cap = sizeof t->left;
    if (a->headless) {
        n += snprintf(t->left + n, cap - (size_t)n, "frame %d", a->frame);
    } else {
        n += snprintf(t->left + n, cap - (size_t)n, "fps %.0f", a->fps);
    }
    if (a->scene->world_count > 0) {
        n += snprintf(t->left + n, cap - (size_t)n, "   step %.2f ms", a->step_ms);
    }
    if (!a->headless) {
        n += snprintf(t->left + n, cap - (size_t)n, "   draw %.2f ms", a->draw_ms);
    }
    // A scene with no world (ik3) has no particles and no solver settings to show.
    if (a->scene->world_count > 0) {
        n += snprintf(t->left + n, cap - (size_t)n, "   particles %d   constraints %d\n", particles, constraints);
        if (!a->scene->lock_mode) {
            n += snprintf(t->left + n, cap - (size_t)n, "%s   ", mode_name(a->solver.mode));
        }
        n += snprintf(t->left + n, cap - (size_t)n, "iterations %d   substeps %d   omega %.2f   workers %d",
                      a->solver.iterations, a->solver.substeps, (double)a->solver.jacobi_omega, a->workers);
        // Where the last step's time went (the worlds' profiles added up), and with workers the
        // share of it that ran on one thread.
        sinew_step_profile p = {0};
        for (int k = 0; k < a->scene->world_count; ++k) {
            const sinew_step_profile q = sinew_world_profile(a->scene->worlds[k]);
            p.step += q.step;
            p.collide += q.collide;
            p.solve += q.solve;
            p.finish += q.finish;
            p.parallel += q.parallel;
        }
        n += snprintf(t->left + n, cap - (size_t)n, "\ncollide %.2f   solve %.2f   finish %.2f ms", (double)p.collide,
                      (double)p.solve, (double)p.finish);
        if (a->workers > 1 && p.step > 0.0f) {
            n += snprintf(t->left + n, cap - (size_t)n, "   on one thread %.0f%%",
                          100.0 * (double)(p.step - p.parallel) / (double)p.step);
        }
    }
    for (int k = 0; k < a->scene->world_count; ++k) {
        n += snprintf(t->left + n, cap - (size_t)n, "\n");
        if (a->scene->world_count > 1) {
            n += snprintf(t->left + n, cap - (size_t)n, "%-13s", mode_name(sinew_world_get_solver(a->scene->worlds[k]).mode));
        }
        n += snprintf(t->left + n, cap - (size_t)n, "error max %.2e   rms %.2e", (double)st[k].max_error,
                      (double)st[k].rms_error);
    }
    snprintf(t->right, sizeof t->right, "%s", a->scene->status);
    int reset = 0;
    for (int k = 0; k < a->scene->world_count; ++k) {
        reset += st[k].reset_particles;
    }
    snprintf(t->flags, sizeof t->flags, "%s%s%s%s", reset > 0 ? "DIVERGING (o: less omega)   " : "",
             a->paused ? "PAUSED (space, .)   " : "",
             (a->autoplay && !a->headless) ? "AUTOPLAY (a)   " : "", a->headless ? "" : "h: help");
    float w_left, w_right, h_left, h_right;
    demo_hud_measure(a->draw, t->left, &w_left, &h_left);
    demo_hud_measure(a->draw, t->right, &w_right, &h_right);
    const float s = (float)demo_hud_scale(a->draw);
    // The scene's lines go right of the numbers when they fit, else under them.
    t->stacked = t->right[0] != '\0' && w_left + w_right + 2.0f * DEMO_LINE * s > (float)a->width;
    const float body = t->stacked ? h_left + h_right : (h_left > h_right ? h_left : h_right);
    t->height = DEMO_LINE * s + body + 2.0f * DEMO_PAD * s;
}

static void draw_hud(app *a, const hud_text *t)
{
    demo_draw *d = a->draw;
    const float s = (float)demo_hud_scale(d), pad = DEMO_PAD * s, line = DEMO_LINE * s;
    demo_hud_rect(d, 0.0f, 0.0f, (float)a->width, t->height, HUD_PANEL);
    demo_hud_rect(d, 0.0f, t->height, (float)a->width, s, HUD_RULE);
    float x = pad;
    for (int k = 0; k < demo_count; ++k) {
        char item[64];
        snprintf(item, sizeof item, "%d %s   ", k + 1, demo_table[k]->name);
        x += demo_hud_text(d, x, pad, item, k == a->index ? HUD_KEY : HUD_DIM);
    }
    float w, h;
    demo_hud_measure(d, t->flags, &w, &h);
    demo_hud_text(d, (float)a->width - pad - w, pad, t->flags, HUD_KEY);
    demo_hud_text(d, pad, pad + line, t->left, HUD_TEXT);
    if (t->stacked) {
        demo_hud_measure(d, t->left, &w, &h);
        demo_hud_text(d, pad, pad + line + h, t->right, HUD_SCENE);
    } else {
        demo_hud_measure(d, t->right, &w, &h);
        demo_hud_text(d, (float)a->width - pad - w, pad + line, t->right, HUD_SCENE);
    }
}

static void draw_help(app *a)
{
    demo_draw *d = a->draw;
    const float s = (float)demo_hud_scale(d), pad = 10.0f * s;
    char text[2048];
    snprintf(text, sizeof text,
             "sinew demos\n"
             "\n"
             "left drag   pull the nearest particle\n"
             "1 .. %d      switch scene\n"
             "space  .    pause, single step\n"
             "r           reset the scene\n"
             "g  j        Gauss-Seidel, Jacobi\n"
             "+  -        iterations\n"
             "[  ]        substeps\n"
             "o  p        Jacobi omega down, up\n"
             "t           worker threads: 1 or 2 (the same result either way)\n"
             "a           autoplay (the scripted input)\n"
             "F2          debug overlay: contacts, pins, angle limits, areas\n"
             "F12         screenshot: sinew-%s.png\n"
             "F5          save the world: sinew-%s.snw (sinew-tune --world)\n"
             "h           this help\n"
             "esc  q      quit\n"
             "\n"
             "%s\n%s",
             demo_count, a->def->name, a->def->name, a->def->title, a->def->help);
    float w, h;
    demo_hud_measure(d, text, &w, &h);
    const float x = 0.5f * ((float)a->width - w), y = 0.5f * ((float)a->height - h);
    demo_hud_rect(d, x - pad, y - pad, w + 2.0f * pad, h + 2.0f * pad, demo_rgba(10, 12, 18, 230));
    demo_hud_text(d, x, y, text, HUD_TEXT);
}

// Draws a frame into the renderer without presenting it.
static bool render_frame(app *a)
{
    SDL_SetRenderDrawColor(a->renderer, BACKGROUND.r, BACKGROUND.g, BACKGROUND.b, 255);
    SDL_RenderClear(a->renderer);
    demo_draw_set_size(a->draw, a->width, a->height);
    hud_text hud = {0};
    if (a->show_hud) {
        compose_hud(a, &hud);
    }
    demo_draw_begin(a->draw, a->width, a->height, hud.height, a->scene->view_min, a->scene->view_max);
    a->def->draw(a->scene, a->draw);
    for (int k = 0; k < a->scene->world_count && a->overlay; ++k) {
        demo_draw_world(a->draw, a->scene->worlds[k], SINEW_DRAW_ALL & ~(uint32_t)SINEW_DRAW_COLLIDERS, 1.0f);
    }
    if (a->show_hud) {
        draw_hud(a, &hud);
    }
    if (a->show_help) {
        draw_help(a);
    }
    return demo_draw_end(a->draw);
}

static bool render(app *a)
{
    const uint64_t t0 = SDL_GetPerformanceCounter();
    if (!render_frame(a)) {
        return false;
    }
    const double ms = 1000.0 * (double)(SDL_GetPerformanceCounter() - t0) / (double)SDL_GetPerformanceFrequency();
    a->draw_ms = a->draw_ms == 0.0 ? ms : 0.9 * a->draw_ms + 0.1 * ms;
    SDL_RenderPresent(a->renderer);
    a->render_ms = 1000.0 * (double)(SDL_GetPerformanceCounter() - t0) / (double)SDL_GetPerformanceFrequency();
    return true;
}

// ---------------------------------------------------------------------------------------------
// Window mode

// Draws the frame again (after a present the back buffer's contents are undefined), reads it
// back and saves it, then presents it.
static void save_window(app *a, const char *path)
{
    SDL_Surface *shot = SDL_CreateRGBSurfaceWithFormat(0, a->width, a->height, 24, SDL_PIXELFORMAT_RGB24);
    if (shot != NULL && render_frame(a) &&
        SDL_RenderReadPixels(a->renderer, NULL, SDL_PIXELFORMAT_RGB24, shot->pixels, shot->pitch) == 0 &&
        demo_save_surface(shot, path)) {
        printf("sinew-demos: wrote %s\n", path);
    } else {
        fprintf(stderr, "sinew-demos: no screenshot: %s\n", SDL_GetError());
    }
    SDL_FreeSurface(shot);
    SDL_RenderPresent(a->renderer);
}

// Saves the scene's first world with sinew_world_save (the input of sinew-tune --world). False,
// with a message, on failure.
static bool save_world_file(const app *a, const char *path)
{
    if (a->scene->world_count == 0) {
        fprintf(stderr, "sinew-demos: scene %s has no world to save\n", a->def->name);
        return false;
    }
    const sinew_world *w = a->scene->worlds[0];
    const size_t size = sinew_world_save_size(w);
    void *buf = malloc(size);
    size_t written = 0;
    FILE *f = NULL;
    const bool ok = buf != NULL && sinew_world_save(w, buf, size, &written) == SINEW_OK &&
                    (f = fopen(path, "wb")) != NULL && fwrite(buf, 1, written, f) == written;
    if (f != NULL && fclose(f) != 0) {
        free(buf);
        fprintf(stderr, "sinew-demos: writing %s failed\n", path);
        return false;
    }
    free(buf);
    if (!ok) {
        fprintf(stderr, "sinew-demos: saving the world to %s failed\n", path);
        return false;
    }
    printf("sinew-demos: saved the world to %s (%zu bytes; tune it: sinew-tune --world %s)\n", path, written, path);
    return true;
}

static void screenshot_window(app *a)
{
    char path[256];
    snprintf(path, sizeof path, "sinew-%s.png", a->def->name);
    save_window(a, path);
}

static void handle_key(app *a, SDL_Keycode key)
{
    if (!a->running || a->scene == NULL) {
        return; // quitting, or a scene failed to load
    }
    switch (key) {
    case SDLK_ESCAPE:
    case SDLK_q: a->running = false; break;
    case SDLK_SPACE: a->paused = !a->paused; break;
    case SDLK_PERIOD: a->paused = true; a->single_step = true; break;
    case SDLK_r:
        if (!load_scene(a, a->index, true)) {
            a->running = false;
            a->exit_code = 2;
        }
        break;
    case SDLK_g: a->solver.mode = SINEW_SOLVER_GAUSS_SEIDEL; break;
    case SDLK_j: a->solver.mode = SINEW_SOLVER_JACOBI; break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS: a->solver.iterations = next_on_ladder(a->solver.iterations, true); break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: a->solver.iterations = next_on_ladder(a->solver.iterations, false); break;
    case SDLK_RIGHTBRACKET: a->solver.substeps = next_on_ladder(a->solver.substeps, true); break;
    case SDLK_LEFTBRACKET: a->solver.substeps = next_on_ladder(a->solver.substeps, false); break;
    case SDLK_t: a->workers = a->workers == 1 ? 2 : 1; break;
    case SDLK_o: a->solver.jacobi_omega = fmaxf(0.05f, a->solver.jacobi_omega - 0.05f); break;
    case SDLK_p: a->solver.jacobi_omega = fminf(1.95f, a->solver.jacobi_omega + 0.05f); break;
    case SDLK_h: a->show_help = !a->show_help; break;
    case SDLK_a: a->autoplay = !a->autoplay; a->frame = 0; break;
    case SDLK_F12: screenshot_window(a); break;
    case SDLK_F2: a->overlay = !a->overlay; break;
    case SDLK_F5: {
        char path[256];
        snprintf(path, sizeof path, "sinew-%s.snw", a->def->name);
        save_world_file(a, path);
        break;
    }
    default:
        if ((key >= SDLK_1 && key < SDLK_1 + demo_count) || (key >= SDLK_KP_1 && key < SDLK_KP_1 + demo_count)) {
            if (!load_scene(a, (int)(key >= SDLK_KP_1 ? key - SDLK_KP_1 : key - SDLK_1), false)) {
                a->running = false;
                a->exit_code = 2;
            }
        } else if (key >= SDLK_a && key <= SDLK_z) {
            a->key = (int)key; // a scene key
        }
        return;
    }
    if (a->scene != NULL && !apply_solver(a)) {
        a->running = false;
        a->exit_code = 2;
    }
}

static void read_mouse(app *a)
{
    int mx, my, ww, wh;
    const uint32_t buttons = SDL_GetMouseState(&mx, &my);
    SDL_GetWindowSize(a->window, &ww, &wh);
    // Window points to output pixels (they differ on high-DPI screens).
    const float fx = ww > 0 ? (float)a->width / (float)ww : 1.0f, fy = wh > 0 ? (float)a->height / (float)wh : 1.0f;
    a->mouse = demo_draw_to_world(a->draw, (float)mx * fx, (float)my * fy);
    a->mouse_in_view = SDL_GetMouseFocus() == a->window;
    a->left_down = (buttons & SDL_BUTTON_LMASK) != 0;
    a->right_down = (buttons & SDL_BUTTON_RMASK) != 0;
}

static int run_window(app *a, int max_frames, const char *screenshot)
{
    const uint64_t freq = SDL_GetPerformanceFrequency();
    uint64_t last = SDL_GetPerformanceCounter();
    double accumulator = 0.0;
    a->fps_since = last;
    a->running = true;
    while (a->running) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            if (e.type == SDL_QUIT) {
                a->running = false;
            } else if (e.type == SDL_KEYDOWN) {
                handle_key(a, e.key.keysym.sym);
            } else if (e.type == SDL_MOUSEBUTTONDOWN) {
                a->left_click |= e.button.button == SDL_BUTTON_LEFT;
                a->right_click |= e.button.button == SDL_BUTTON_RIGHT;
            }
        }
        if (!a->running) {
            break;
        }
        SDL_GetRendererOutputSize(a->renderer, &a->width, &a->height);
        read_mouse(a);

        const uint64_t now = SDL_GetPerformanceCounter();
        accumulator += (double)(now - last) / (double)freq;
        last = now;
        const double dt = 1.0 / STEP_HZ;
        if (accumulator > MAX_STEPS_PER_FRAME * dt) {
            accumulator = MAX_STEPS_PER_FRAME * dt;
        }
        if (a->paused) {
            accumulator = 0.0;
            if (a->single_step) {
                a->single_step = false;
                a->running = step(a);
            }
        } else {
            while (accumulator >= dt && a->running) {
                accumulator -= dt;
                a->running = step(a);
            }
        }
        if (!a->running) {
            break;
        }
        if (!render(a)) {
            a->exit_code = 1;
            break;
        }
        if (max_frames > 0 && a->frame >= max_frames) {
            // --frames in a window: stop after that many steps (smoke tests), keeping the last frame.
            if (screenshot != NULL) {
                save_window(a, screenshot);
            }
            break;
        }
        a->fps_frames += 1;
        const double since = (double)(SDL_GetPerformanceCounter() - a->fps_since) / (double)freq;
        if (since >= 0.5) {
            a->fps = a->fps_frames / since;
            a->fps_frames = 0;
            a->fps_since = SDL_GetPerformanceCounter();
        }
        // Without vsync, do not spin a core: at most about 144 frames a second.
        const double frame_s = (double)(SDL_GetPerformanceCounter() - now) / (double)freq;
        SDL_Delay(frame_s < 1.0 / 144.0 ? (uint32_t)(1000.0 * (1.0 / 144.0 - frame_s)) + 1u : 1u);
    }
    return a->exit_code;
}

// ---------------------------------------------------------------------------------------------
// Headless mode

static int run_headless(app *a, int frames, const char *screenshot, bool autoplay, const char *save_world)
{
    a->autoplay = autoplay && a->def->autoplay != NULL;
    a->fps = 0.0;
    for (int f = 0; f < frames; ++f) {
        if (!step(a)) {
            break;
        }
    }
    if (a->exit_code == 0 && !render(a)) {
        a->exit_code = 1;
    }
    sinew_step_stats total = {0};
    int constraints = 0, particles = 0;
    for (int k = 0; k < a->scene->world_count; ++k) {
        sinew_step_stats st = sinew_world_stats(a->scene->worlds[k]);
        particles += sinew_world_particles(a->scene->worlds[k]).count;
        for (int kind = 0; kind < SINEW_KIND_COUNT; ++kind) {
            constraints += st.kinds[kind].count;
        }
        total.max_error = fmaxf(total.max_error, st.max_error);
        total.rms_error = fmaxf(total.rms_error, st.rms_error);
    }
    if (screenshot != NULL && a->exit_code == 0 && !demo_save_surface(a->target, screenshot)) {
        a->exit_code = 1;
    }
    if (save_world != NULL && a->exit_code == 0 && !save_world_file(a, save_world)) {
        a->exit_code = 1;
    }
    // The workers the scene's worlds step with (0 without a world).
    const int workers = a->scene->world_count > 0 ? sinew_world_get_workers(a->scene->worlds[0]) : 0;
    printf("sinew-demos: scene=%s frames=%d particles=%d constraints=%d moved=%.3f nonfinite=%d workers=%d "
           "max_error=%.3e rms_error=%.3e step_ms=%.3f render_ms=%.1f image=%s\n",
           a->def->name, a->frame, particles, constraints, (double)moved_since_start(a), a->exit_code == 3 ? 1 : 0,
           workers, (double)total.max_error, (double)total.rms_error,
           a->step_count > 0 ? a->step_ms_sum / a->step_count : 0.0, a->render_ms, screenshot != NULL ? screenshot : "-");
    return a->exit_code;
}

// ---------------------------------------------------------------------------------------------

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sinew-demos [--scene NAME] [--mode gs|jacobi] [--iterations N] [--substeps N] [--omega W] [--threads N]\n"
            "                   [--size WxH] [--balls N] [--autoplay] [--frames N [--screenshot FILE]]\n"
            "       sinew-demos --headless --scene NAME [--frames N] [--screenshot FILE.png|FILE.bmp] [--no-hud] [--overlay]\n"
            "                   [--no-autoplay] [--keys KEYS] (scene keys pressed at the first steps, e.g. m in ik)\n"
            "                   [--save-world FILE] (the scene's world after the frames, for sinew-tune --world)\n"
            "       sinew-demos --list\n"
            "scenes:");
    for (int k = 0; k < demo_count; ++k) {
        fprintf(f, " %s", demo_table[k]->name);
    }
    fprintf(f, "\n");
}

static bool parse_int(const char *s, int lo, int hi, int *out)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > hi) {
        return false;
    }
    *out = (int)v;
    return true;
}

int main(int argc, char **argv)
{
    app a = {0};
    a.show_hud = true;
    a.workers = 1;
    a.width = 1280;
    a.height = 800;
    const char *scene_name = NULL, *screenshot = NULL, *mode = NULL, *save_world = NULL;
    int frames = -1, iterations = 0, substeps = 0;
    float omega = 0.0f;
    bool no_autoplay = false;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (strcmp(arg, "--headless") == 0) {
            a.headless = true;
        } else if (strcmp(arg, "--no-hud") == 0) {
            a.show_hud = false;
        } else if (strcmp(arg, "--overlay") == 0) {
            a.overlay = true;
        } else if (strcmp(arg, "--autoplay") == 0) {
            a.autoplay = true;
        } else if (strcmp(arg, "--no-autoplay") == 0) {
            no_autoplay = true;
        } else if (strcmp(arg, "--list") == 0) {
            for (int k = 0; k < demo_count; ++k) {
                printf("%s\n", demo_table[k]->name);
            }
            return 0;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (val == NULL) {
            ok = false;
        } else if (strcmp(arg, "--scene") == 0) {
            scene_name = val, ++i;
        } else if (strcmp(arg, "--keys") == 0) {
            a.keys = val, ++i;
        } else if (strcmp(arg, "--save-world") == 0) {
            save_world = val, ++i;
        } else if (strcmp(arg, "--screenshot") == 0) {
            screenshot = val, ++i;
        } else if (strcmp(arg, "--mode") == 0) {
            mode = val, ++i;
            ok = strcmp(mode, "gs") == 0 || strcmp(mode, "jacobi") == 0;
        } else if (strcmp(arg, "--frames") == 0) {
            ok = parse_int(val, 0, 1000000, &frames), ++i;
        } else if (strcmp(arg, "--iterations") == 0) {
            ok = parse_int(val, 1, 1024, &iterations), ++i;
        } else if (strcmp(arg, "--substeps") == 0) {
            ok = parse_int(val, 1, 1024, &substeps), ++i;
        } else if (strcmp(arg, "--threads") == 0) {
            ok = parse_int(val, 1, SINEW_MAX_WORKERS, &a.workers), ++i;
        } else if (strcmp(arg, "--omega") == 0) {
            char *end = NULL;
            omega = strtof(val, &end), ++i;
            ok = end != val && *end == '\0' && omega > 0.0f && omega < 2.0f;
        } else if (strcmp(arg, "--balls") == 0) {
            ok = parse_int(val, 1, 10000000, &demo_opts.balls), ++i;
        } else if (strcmp(arg, "--size") == 0) {
            ok = sscanf(val, "%dx%d", &a.width, &a.height) == 2 && a.width >= 64 && a.height >= 64 &&
                 a.width <= 8192 && a.height <= 8192, ++i;
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "sinew-demos: bad argument: %s%s%s\n", arg, val ? " " : "", val ? val : "");
            usage(stderr);
            return 1;
        }
    }
    int index = 0;
    if (scene_name != NULL) {
        index = -1;
        for (int k = 0; k < demo_count; ++k) {
            if (strcmp(scene_name, demo_table[k]->name) == 0) {
                index = k;
            }
        }
        if (index < 0) {
            fprintf(stderr, "sinew-demos: no scene called %s\n", scene_name);
            usage(stderr);
            return 1;
        }
    }

    if (a.headless) {
        // No display at all: SDL's software renderer drawing into a surface.
        if (SDL_Init(0) != 0) {
            fprintf(stderr, "sinew-demos: SDL_Init: %s\n", SDL_GetError());
            return 1;
        }
        a.target = SDL_CreateRGBSurfaceWithFormat(0, a.width, a.height, 32, SDL_PIXELFORMAT_RGB888);
        a.renderer = a.target != NULL ? SDL_CreateSoftwareRenderer(a.target) : NULL;
    } else {
        if (SDL_Init(SDL_INIT_VIDEO) != 0) {
            fprintf(stderr, "sinew-demos: SDL_Init: %s (no display? try --headless)\n", SDL_GetError());
            return 1;
        }
        // Without a display SDL 2 falls back to its offscreen driver: an invisible window that would
        // run forever. Say so instead, unless that driver was asked for.
        const char *driver = SDL_GetCurrentVideoDriver();
        if (driver != NULL && (strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0) &&
            SDL_getenv("SDL_VIDEODRIVER") == NULL) {
            fprintf(stderr, "sinew-demos: no display (SDL found only its %s video driver); try --headless\n", driver);
            SDL_Quit();
            return 1;
        }
        SDL_SetHint(SDL_HINT_RENDER_VSYNC, "1");
        a.window = SDL_CreateWindow("sinew demos", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, a.width, a.height,
                                    SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
        a.renderer = a.window != NULL ? SDL_CreateRenderer(a.window, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
        if (a.window != NULL && a.renderer == NULL) {
            a.renderer = SDL_CreateRenderer(a.window, -1, SDL_RENDERER_SOFTWARE);
        }
    }
    if (a.renderer == NULL) {
        fprintf(stderr, "sinew-demos: cannot make a renderer: %s\n", SDL_GetError());
        a.exit_code = 1;
    }
    if (a.exit_code == 0) {
        a.draw = demo_draw_create(a.renderer);
        a.exit_code = a.draw == NULL ? 1 : 0;
    }
    if (a.exit_code == 0) {
        if (a.window != NULL) {
            SDL_RendererInfo info;
            if (SDL_GetRendererInfo(a.renderer, &info) == 0) {
                printf("sinew-demos: SDL %s renderer; h shows the controls\n", info.name);
            }
            SDL_GetRendererOutputSize(a.renderer, &a.width, &a.height);
        }
        // The pick radius needs a frame's scale before the first step.
        if (!load_scene(&a, index, false)) {
            a.exit_code = 2;
        } else {
            demo_draw_begin(a.draw, a.width, a.height, 0.0f, a.scene->view_min, a.scene->view_max);
            if (mode != NULL || iterations > 0 || substeps > 0 || omega > 0.0f) {
                if (mode != NULL) {
                    a.solver.mode = strcmp(mode, "jacobi") == 0 ? SINEW_SOLVER_JACOBI : SINEW_SOLVER_GAUSS_SEIDEL;
                }
                a.solver.iterations = iterations > 0 ? iterations : a.solver.iterations;
                a.solver.substeps = substeps > 0 ? substeps : a.solver.substeps;
                a.solver.jacobi_omega = omega > 0.0f ? omega : a.solver.jacobi_omega;
                a.exit_code = apply_solver(&a) ? 0 : 2;
            }
        }
    }
    if (a.exit_code == 0) {
        a.exit_code = a.headless ? run_headless(&a, frames >= 0 ? frames : 120, screenshot, !no_autoplay, save_world)
                                 : run_window(&a, frames, screenshot);
    }
    if (a.scene != NULL) {
        a.def->destroy(a.scene);
    }
    forget_start(&a);
    demo_draw_destroy(a.draw);
    if (a.renderer != NULL) {
        SDL_DestroyRenderer(a.renderer);
    }
    SDL_FreeSurface(a.target);
    if (a.window != NULL) {
        SDL_DestroyWindow(a.window);
    }
    SDL_Quit();
    return a.exit_code;
}
