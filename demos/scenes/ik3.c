// 3D IK arm: the standalone 3D solver (sinew/ik3.h) on a 15-link arm standing on the ground, each
// ball joint limited by a regular 8-gon cone of 30 degrees (to its corners) around its parent's
// axis and a twist range of +-0.5 rad, as in sinew-bench --scene ik3. Every step the arm is solved
// toward the target with sinew_ik3_solve, warm started from the last answer. m switches CCD and
// FABRIK (two-bone is for two links only, so it is not offered on this arm).
//
// The scene has no world: nothing here is simulated. It draws in perspective through a pinhole
// camera of its own (below) onto the 2D drawing interface: the image plane at the distance of the
// point the camera looks at is the scene's 2D coordinate system, in metres, so the mouse maps back
// exactly onto the plane through that point facing the camera, where the target follows it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <sinew/ik3.h>

#include "../scene.h"

#define LINKS 15
#define LINK_LENGTH 0.3f
#define CONE_CORNERS 8
#define CONE_HALF 0.5235988f // radians from the parent's axis to each corner (30 degrees)
#define TWIST 0.5f           // radians either way
#define CONE_DRAWN 0.75f     // a cone is drawn this many link lengths along its corner directions
#define ON_EDGE 1e-3f        // a link whose direction is this close to an edge plane (rad) is on its limit

// The pinhole camera: it looks at `look` from `distance` metres away, `yaw` about the vertical,
// `pitch` above the horizon. right, up, forward are its unit axes in the world (y up).
typedef struct camera {
    sinew_vec3 eye, look, right, up, forward;
    float distance;
} camera;

typedef struct ik3_scene {
    demo_scene base;
    sinew_ik3_limit limit;
    sinew_ik3_link links[LINKS];
    sinew_ik3_chain chain;
    sinew_ik3_method method;
    sinew_ik3_result result;
    sinew_vec3 target;
    sinew_vec3 points[LINKS + 1];
    bool on_limit[LINKS];
    int on_limit_count;
    float yaw, pitch;
    bool orbit;       // the camera turns slowly about the arm
    double solve_us;  // smoothed time of one sinew_ik3_solve
    camera cam;
} ik3_scene;

static const demo_color BACKGROUND = {24, 28, 36, 255}; // demos/main.c's: far lines fade toward it

static const char *method_name(sinew_ik3_method m)
{
    return m == SINEW_IK3_CCD ? "CCD" : "FABRIK";
}

// ---------------------------------------------------------------------------------------------
// Camera and projection

static camera camera_make(float yaw, float pitch)
{
    camera c;
    c.look = sinew_vec3_make(0.0f, 1.5f, 0.0f);
    c.distance = 10.0f;
    const sinew_vec3 back = sinew_vec3_make(cosf(pitch) * sinf(yaw), sinf(pitch), cosf(pitch) * cosf(yaw));
    c.eye = sinew_vec3_mul_add(c.look, c.distance, back);
    c.forward = sinew_vec3_neg(back);
    c.right = sinew_vec3_normalize(sinew_vec3_cross(c.forward, sinew_vec3_make(0.0f, 1.0f, 0.0f)));
    c.up = sinew_vec3_cross(c.right, c.forward);
    return c;
}

#define NEAR 0.1f // metres in front of the eye: nearer points are clipped

// Depth of p in front of the camera (metres along forward).
static float depth(const camera *c, sinew_vec3 p)
{
    return sinew_vec3_dot(sinew_vec3_sub(p, c->eye), c->forward);
}

// p on the image plane at the look point's distance (the scene's 2D metres); p must be in front.
static sinew_vec2 project(const camera *c, sinew_vec3 p)
{
    const sinew_vec3 d = sinew_vec3_sub(p, c->eye);
    const float s = c->distance / sinew_vec3_dot(d, c->forward);
    return sinew_vec2_make(s * sinew_vec3_dot(d, c->right), s * sinew_vec3_dot(d, c->up));
}

// The point under 2D position m on the plane through the look point facing the camera.
static sinew_vec3 unproject(const camera *c, sinew_vec2 m)
{
    return sinew_vec3_mul_add(sinew_vec3_mul_add(c->look, m.x, c->right), m.y, c->up);
}

// Farther things fade toward the background: full colour in front of the look point, 60% at the
// far side of the ground grid.
static demo_color fog(const camera *c, sinew_vec3 p, demo_color color)
{
    const float t = (depth(c, p) - (c->distance - 2.0f)) / 8.0f;
    return demo_color_mix(color, demo_rgba(BACKGROUND.r, BACKGROUND.g, BACKGROUND.b, color.a),
                          0.6f * fminf(fmaxf(t, 0.0f), 1.0f));
}

// A 3D segment, clipped at the near plane, `width_px` pixels wide at the look point's distance
// (wider nearer), fogged by its middle's depth.
static void segment3(demo_draw *d, const camera *c, sinew_vec3 a, sinew_vec3 b, float width_px, demo_color color)
{
    float za = depth(c, a), zb = depth(c, b);
    if (za < NEAR && zb < NEAR) {
        return;
    }
    if (za < NEAR) {
        a = sinew_vec3_lerp(a, b, (NEAR - za) / (zb - za));
        za = NEAR;
    } else if (zb < NEAR) {
        b = sinew_vec3_lerp(b, a, (NEAR - zb) / (za - zb));
        zb = NEAR;
    }
    const float w = width_px * 2.0f * c->distance / (za + zb);
    demo_draw_segment(d, project(c, a), project(c, b), w, fog(c, sinew_vec3_lerp(a, b, 0.5f), color));
}

// A ball of `radius` metres.
static void dot3(demo_draw *d, const camera *c, sinew_vec3 p, float radius, demo_color color)
{
    const float z = depth(c, p);
    if (z >= NEAR) {
        demo_draw_circle(d, project(c, p), radius * c->distance / z, fog(c, p, color));
    }
}

// ---------------------------------------------------------------------------------------------
// Scene

static void ik3_destroy(demo_scene *scene)
{
    free(scene);
}

static demo_scene *ik3_create(void)
{
    ik3_scene *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    s->base.view_min = sinew_vec2_make(-4.0f, -2.4f);
    s->base.view_max = sinew_vec2_make(4.0f, 2.6f);
    s->method = SINEW_IK3_FABRIK;
    s->yaw = 0.6f;
    s->pitch = 0.45f;
    s->orbit = true;

    // The cone: a regular 8-gon around +x (the parent's axis), counter-clockwise about it (y to z).
    sinew_vec3 cone[CONE_CORNERS];
    sinew_ik3_regular_cone(CONE_HALF, CONE_CORNERS, cone);
    sinew_ik3_limit_def ld = sinew_default_ik3_limit_def();
    ld.cone = cone;
    ld.cone_count = CONE_CORNERS;
    ld.twist_limited = true;
    ld.twist_min = -TWIST;
    ld.twist_max = TWIST;
    sinew_status st = sinew_ik3_limit_init(&ld, &s->limit);
    if (st != SINEW_OK) {
        fprintf(stderr, "sinew-demos: sinew_ik3_limit_init: %s\n", sinew_status_string(st));
        free(s);
        return NULL;
    }
    // The arm stands up from the origin (the base frame turns +x to +y), a slight curve in its
    // start pose.
    for (int k = 0; k < LINKS; ++k) {
        s->links[k] = sinew_default_ik3_link();
        s->links[k].length = LINK_LENGTH;
        s->links[k].limit = &s->limit;
        s->links[k].rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0.0f, 0.0f, 1.0f), k == 0 ? 0.0f : 0.08f);
    }
    s->chain.count = LINKS;
    s->chain.links = s->links;
    s->chain.base = sinew_vec3_make(0.0f, 0.0f, 0.0f);
    s->chain.base_rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0.0f, 0.0f, 1.0f), 0.5f * (float)SINEW_PI);
    st = sinew_ik3_chain_points(&s->chain, s->points);
    if (st != SINEW_OK) {
        fprintf(stderr, "sinew-demos: sinew_ik3_chain_points: %s\n", sinew_status_string(st));
        free(s);
        return NULL;
    }
    s->target = s->points[LINKS];
    s->cam = camera_make(s->yaw, s->pitch);
    return &s->base;
}

// The scripted target (headless, autoplay, and whenever the mouse is away): a Lissajous curve
// around the arm that sweeps from far out near the ground, where the arm stretches and leans on
// its root cone, to high and close in, where it must curl against every cone.
static sinew_vec3 scripted_target(int frame)
{
    const float t = (float)frame / 60.0f;
    const float around = 0.9f * t + 3.85f;                     // azimuth about the vertical
    const float out = 2.0f + 1.3f * sinf(0.77f * t + 1.63f);   // 0.7 .. 3.3 m from the axis
    const float height = 2.1f + 1.5f * sinf(1.31f * t + 1.2f); // 0.6 .. 3.6 m
    return sinew_vec3_make(out * cosf(around), height, out * sinf(around));
}

static void ik3_update(demo_scene *scene, const demo_input *in, float dt)
{
    ik3_scene *s = (ik3_scene *)scene;
    if (in->key == 'm') {
        s->method = s->method == SINEW_IK3_FABRIK ? SINEW_IK3_CCD : SINEW_IK3_FABRIK;
    } else if (in->key == 'c') {
        s->orbit = !s->orbit;
    }
    // Left drag turns the camera (the target stays); otherwise the camera orbits slowly.
    if (in->left_down && !in->left_pressed) {
        s->yaw -= 0.6f * (in->mouse.x - in->mouse_prev.x);
        s->pitch = fminf(fmaxf(s->pitch - 0.6f * (in->mouse.y - in->mouse_prev.y), 0.05f), 1.4f);
    } else if (s->orbit) {
        s->yaw += 0.15f * dt;
    }
    s->cam = camera_make(s->yaw, s->pitch);
    if (!in->left_down) {
        s->target = in->mouse_in_view ? unproject(&s->cam, in->mouse) : scripted_target(in->frame);
    }

    sinew_ik3_def def = sinew_default_ik3_def();
    def.method = s->method;
    def.tolerance = 1e-3f * (float)LINKS * LINK_LENGTH; // 1e-3 of the arm's length, as sinew-bench
    struct timespec t0, t1;
    timespec_get(&t0, TIME_UTC);
    const sinew_status st = sinew_ik3_solve(&def, &s->chain, s->target, &s->result);
    timespec_get(&t1, TIME_UTC);
    if (st != SINEW_OK) {
        fprintf(stderr, "sinew-demos: sinew_ik3_solve: %s\n", sinew_status_string(st));
    }
    const double us = 1e6 * (double)(t1.tv_sec - t0.tv_sec) + 1e-3 * (double)(t1.tv_nsec - t0.tv_nsec);
    s->solve_us = s->solve_us == 0.0 ? us : 0.95 * s->solve_us + 0.05 * us;
    sinew_ik3_chain_points(&s->chain, s->points);

    // A link sits on its cone when its direction (in the parent's frame) is on an edge plane.
    s->on_limit_count = 0;
    for (int k = 0; k < LINKS; ++k) {
        const sinew_vec3 dir = sinew_quat_rotate(s->links[k].rotation, sinew_vec3_make(1.0f, 0.0f, 0.0f));
        double inside = 1.0;
        for (int i = 0; i < s->limit.cone_count; ++i) {
            const double *n = s->limit.normal[i];
            const double dn = n[0] * dir.x + n[1] * dir.y + n[2] * dir.z;
            inside = dn < inside ? dn : inside;
        }
        s->on_limit[k] = inside < ON_EDGE;
        s->on_limit_count += s->on_limit[k];
    }
    snprintf(scene->status, sizeof scene->status,
             "m: %s   iterations %d\ndistance %.4f m   %s\nsolve %.1f us   links on a cone edge %d of %d",
             method_name(s->method), s->result.iterations, (double)s->result.distance,
             s->result.reached ? "reached" : "not reached", s->solve_us, s->on_limit_count, LINKS);
}

static void ik3_draw(demo_scene *scene, demo_draw *d)
{
    ik3_scene *s = (ik3_scene *)scene;
    const camera *c = &s->cam;

    // Ground grid, 0.5 m squares, with the two axes through the base brighter.
    const float half = 4.5f;
    for (int i = -9; i <= 9; ++i) {
        const float u = 0.5f * (float)i;
        const demo_color g = i == 0 ? demo_rgba(90, 100, 125, 255) : demo_rgba(52, 60, 78, 255);
        segment3(d, c, sinew_vec3_make(u, 0.0f, -half), sinew_vec3_make(u, 0.0f, half), 1.0f, g);
        segment3(d, c, sinew_vec3_make(-half, 0.0f, u), sinew_vec3_make(half, 0.0f, u), 1.0f, g);
    }
    // Shadows straight down on the ground: the arm, and the target with a line down to it.
    const demo_color shadow = demo_rgba(12, 14, 20, 255);
    for (int k = 0; k < LINKS; ++k) {
        const sinew_vec3 a = s->points[k], b = s->points[k + 1];
        segment3(d, c, sinew_vec3_make(a.x, 0.0f, a.z), sinew_vec3_make(b.x, 0.0f, b.z), 4.0f, shadow);
    }
    const sinew_vec3 tt = s->target, foot = sinew_vec3_make(tt.x, 0.0f, tt.z);
    segment3(d, c, sinew_vec3_make(foot.x - 0.15f, 0.0f, foot.z), sinew_vec3_make(foot.x + 0.15f, 0.0f, foot.z), 3.0f, shadow);
    segment3(d, c, sinew_vec3_make(foot.x, 0.0f, foot.z - 0.15f), sinew_vec3_make(foot.x, 0.0f, foot.z + 0.15f), 3.0f, shadow);
    for (int i = 0; i < 24; i += 2) { // dashed
        segment3(d, c, sinew_vec3_lerp(tt, foot, (float)i / 24.0f), sinew_vec3_lerp(tt, foot, (float)(i + 1) / 24.0f),
                 1.0f, demo_rgba(150, 130, 80, 255));
    }
    // The base.
    for (int i = 0; i < 16; ++i) {
        const float a0 = 2.0f * (float)SINEW_PI * (float)i / 16.0f, a1 = 2.0f * (float)SINEW_PI * (float)(i + 1) / 16.0f;
        segment3(d, c, sinew_vec3_make(0.25f * cosf(a0), 0.0f, 0.25f * sinf(a0)),
                 sinew_vec3_make(0.25f * cosf(a1), 0.0f, 0.25f * sinf(a1)), 2.0f, demo_rgba(110, 125, 150, 255));
    }

    // Cones: joint k's allowed directions for link k, in the frame of its parent (the base frame
    // for link 0) turned into the world; red while link k sits on an edge.
    sinew_quat parent = s->chain.base_rotation;
    for (int k = 0; k < LINKS; ++k) {
        const sinew_vec3 at = s->points[k];
        const demo_color edge = s->on_limit[k] ? demo_rgba(255, 110, 90, 255) : demo_rgba(110, 170, 255, 200);
        const demo_color fill = s->on_limit[k] ? demo_rgba(240, 80, 60, 70) : demo_rgba(110, 170, 255, 40);
        sinew_vec3 corner[CONE_CORNERS];
        sinew_vec2 flat[CONE_CORNERS];
        bool visible = true;
        for (int i = 0; i < CONE_CORNERS; ++i) {
            const sinew_vec3 u = sinew_vec3_make((float)s->limit.unit[i][0], (float)s->limit.unit[i][1],
                                                 (float)s->limit.unit[i][2]);
            corner[i] = sinew_vec3_mul_add(at, CONE_DRAWN * LINK_LENGTH, sinew_quat_rotate(parent, u));
            visible = visible && depth(c, corner[i]) >= NEAR;
            flat[i] = visible ? project(c, corner[i]) : sinew_vec2_make(0.0f, 0.0f);
        }
        if (visible) {
            demo_draw_polygon(d, flat, CONE_CORNERS, fog(c, at, fill));
        }
        for (int i = 0; i < CONE_CORNERS; ++i) {
            segment3(d, c, at, corner[i], 1.0f, edge);
            segment3(d, c, corner[i], corner[(i + 1) % CONE_CORNERS], 1.5f, edge);
        }
        parent = sinew_quat_mul(parent, s->links[k].rotation);
    }
    // Links and joints, base to end effector.
    for (int k = 0; k < LINKS; ++k) {
        const float f = (float)k / (float)(LINKS - 1);
        segment3(d, c, s->points[k], s->points[k + 1], 4.0f - 1.5f * f,
                 demo_color_mix(demo_rgba(200, 210, 230, 255), demo_rgba(150, 220, 170, 255), f));
    }
    for (int k = 0; k <= LINKS; ++k) {
        dot3(d, c, s->points[k], k == LINKS ? 0.06f : 0.04f, k == LINKS ? demo_rgba(150, 220, 170, 255) : demo_rgba(225, 230, 240, 255));
    }
    // The target: a cross along the three axes and a ring.
    const demo_color tc = s->result.reached ? demo_rgba(255, 210, 90, 255) : demo_rgba(255, 140, 70, 255);
    const float arm = 0.22f;
    segment3(d, c, sinew_vec3_make(tt.x - arm, tt.y, tt.z), sinew_vec3_make(tt.x + arm, tt.y, tt.z), 2.0f, tc);
    segment3(d, c, sinew_vec3_make(tt.x, tt.y - arm, tt.z), sinew_vec3_make(tt.x, tt.y + arm, tt.z), 2.0f, tc);
    segment3(d, c, sinew_vec3_make(tt.x, tt.y, tt.z - arm), sinew_vec3_make(tt.x, tt.y, tt.z + arm), 2.0f, tc);
    const float z = depth(c, tt);
    if (z >= NEAR) {
        demo_draw_ring(d, project(c, tt), 0.12f * c->distance / z, 2.0f, fog(c, tt, tc));
    }
}

// Headless script: the mouse is away, so the target follows its Lissajous curve.
static void ik3_autoplay(demo_scene *scene, demo_input *in)
{
    (void)scene;
    in->mouse_in_view = false;
    in->left_down = false;
    in->right_down = false;
}

const demo_def demo_ik3 = {
    "ik3",
    "3D IK arm",
    "the target follows the mouse in the plane facing the camera\n"
    "(a Lissajous curve when the mouse is away)\n"
    "m: FABRIK <-> CCD\n"
    "left drag: turn the camera   c: camera orbit on / off\n"
    "cones: each joint's allowed directions, red on an edge",
    ik3_create,
    ik3_update,
    ik3_draw,
    ik3_destroy,
    ik3_autoplay,
};
