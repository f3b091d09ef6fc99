// IK arm: a 15-joint arm (sinew_ik_arm_create) whose hand follows the mouse, with a ball on a
// rope hanging from the hand. Three ways to solve it, switched with m:
//   relaxation: the world's own solver (Gauss-Seidel or Jacobi) on the arm's constraints: bones
//               are distance constraints, the hand a pin of stiffness 0.5 toward the mouse, the
//               joint limits angle constraints (Juckett's constraint relaxation);
//   FABRIK, CCD: sinew_ik_arm_drive solves the chain with the standalone solver before each step
//               and makes the arm kinematic, while the rope and ball still swing in the world.
// Each joint's allowed range is drawn as a wedge; it turns red while the joint sits on a limit.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <sinew/ik.h>

#include "../scene.h"

#define BONES 15
#define BONE_LENGTH 0.5f
#define JOINT_LIMIT 0.6f // radians either way, joints 1..14
#define ROOT_LIMIT 1.0f  // radians either way from straight up, joint 0
#define ROPE_LINKS 8
#define ROPE_LINK 0.25f

typedef struct ik_scene {
    demo_scene base;
    demo_drag drag;
    sinew_ik_arm arm;
    sinew_particle_id particles[BONES + 1];
    sinew_distance_id bones[BONES];
    sinew_angle_id limit_ids[BONES];
    sinew_ik_limit limits[BONES];
    sinew_particle_id rope[ROPE_LINKS]; // the last one is the ball
    sinew_ik_method method;
    bool driven; // the arm was last solved by sinew_ik_arm_drive
    sinew_ik_result result;
    sinew_vec2 target;
} ik_scene;

static const char *method_name(sinew_ik_method m)
{
    return m == SINEW_IK_FABRIK ? "FABRIK" : m == SINEW_IK_CCD ? "CCD" : "relaxation (world solver)";
}

static void ik_destroy(demo_scene *scene)
{
    ik_scene *s = (ik_scene *)scene;
    if (s == NULL) {
        return;
    }
    sinew_world_destroy(s->base.worlds[0]);
    free(s);
}

static demo_scene *ik_create(void)
{
    ik_scene *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    demo_drag_init(&s->drag);
    s->method = SINEW_IK_RELAXATION;
    s->base.view_min = sinew_vec2_make(-8.5f, -4.5f);
    s->base.view_max = sinew_vec2_make(8.5f, 4.8f);
    sinew_world_def wd = sinew_default_world_def();
    wd.damping = 0.5f;
    wd.solver.iterations = 16;
    sinew_world *w = demo_add_world(&s->base, &wd);
    if (w == NULL) {
        free(s);
        return NULL;
    }

    // The arm stands up from the floor, a slight curve in its start pose.
    float angles[BONES];
    s->limits[0] = (sinew_ik_limit){-ROOT_LIMIT, ROOT_LIMIT};
    angles[0] = 0.0f;
    for (int k = 1; k < BONES; ++k) {
        s->limits[k] = (sinew_ik_limit){-JOINT_LIMIT, JOINT_LIMIT};
        angles[k] = -0.12f;
    }
    sinew_ik_arm_def def = sinew_default_ik_arm_def();
    def.base = sinew_vec2_make(0.0f, -4.0f);
    def.base_angle = 1.5707963f;
    def.bones = BONES;
    def.bone_length = BONE_LENGTH;
    def.angles = angles;
    def.limits = s->limits;
    def.radius = 0.1f;
    def.particle_flags = SINEW_PARTICLE_COLLIDES; // the floor stops the arm, and the ball
    def.target_stiffness = 0.5f;
    s->arm.particles = s->particles;
    s->arm.bones = s->bones;
    s->arm.limits = s->limit_ids;
    s->arm.limit_values = s->limits;
    sinew_collider_def floor = sinew_default_collider_def();
    floor.group = 2u;
    bool ok = demo_check(sinew_ik_arm_create(w, &def, &s->arm), w, "sinew_ik_arm_create") &&
              demo_check(sinew_plane_collider_create(w, &floor, sinew_vec2_make(0.0f, 1.0f), -4.1f, NULL), w, "floor");

    // A rope from the hand with a ball at its end.
    sinew_vec2 hand = demo_particle_at(w, ok ? sinew_particle_index(w, s->particles[BONES]) : 0);
    sinew_particle_id prev = s->particles[BONES];
    for (int k = 0; k < ROPE_LINKS && ok; ++k) {
        sinew_particle_def p = sinew_default_particle_def();
        const bool ball = k == ROPE_LINKS - 1;
        p.position = sinew_vec2_make(hand.x + ROPE_LINK * (float)(k + 1), hand.y);
        p.radius = ball ? 0.3f : 0.05f;
        p.weight = ball ? 0.5f : 2.0f;
        p.flags = ball ? SINEW_PARTICLE_COLLIDES : 0;
        p.group = 4u;
        p.mask = 2u; // the ball meets the floor (group 2), not the arm (group 1)
        sinew_distance_def link = sinew_default_distance_def();
        ok = demo_check(sinew_particle_create(w, &p, &s->rope[k]), w, "rope particle") &&
             (link.a = prev, link.b = s->rope[k], link.mode = SINEW_DISTANCE_MAX_ONLY,
              demo_check(sinew_distance_create(w, &link, NULL), w, "rope link"));
        prev = s->rope[k];
    }
    if (!ok) {
        ik_destroy(&s->base);
        return NULL;
    }
    s->target = hand;
    return &s->base;
}

static void ik_update(demo_scene *scene, const demo_input *in, float dt)
{
    (void)dt;
    ik_scene *s = (ik_scene *)scene;
    sinew_world *w = scene->worlds[0];
    if (in->key == 'm') {
        s->method = s->method == SINEW_IK_RELAXATION ? SINEW_IK_FABRIK
                  : s->method == SINEW_IK_FABRIK     ? SINEW_IK_CCD
                                                     : SINEW_IK_RELAXATION;
    }
    // The target: the mouse while it is over the window, else a slow figure of eight.
    const float t = (float)in->frame / 60.0f;
    s->target = in->mouse_in_view ? in->mouse : sinew_vec2_make(4.0f * sinf(0.7f * t), 0.5f + 1.5f * sinf(1.4f * t));
    demo_check(sinew_pin_set_target(w, s->arm.target_pin, s->target), w, "sinew_pin_set_target");

    if (s->method == SINEW_IK_RELAXATION) {
        if (s->driven) {
            demo_check(sinew_ik_arm_release(w, &s->arm), w, "sinew_ik_arm_release");
            s->driven = false;
        }
        // The arm's motors hold it up against gravity (the rope and ball still fall).
        const sinew_vec2 g = sinew_world_get_gravity(w);
        for (int k = 1; k <= BONES; ++k) {
            sinew_particle_apply_force(w, s->particles[k], sinew_vec2_scale(g, -1.0f));
        }
        sinew_vec2 hand;
        sinew_particle_get_position(w, s->particles[BONES], &hand);
        s->result.distance = sinew_vec2_distance(hand, s->target);
        s->result.iterations = sinew_world_get_solver(w).iterations;
    } else {
        sinew_ik_def def = sinew_default_ik_def();
        def.method = s->method;
        def.max_iterations = 50;
        demo_check(sinew_ik_arm_drive(w, &s->arm, &def, &s->result), w, "sinew_ik_arm_drive");
        s->driven = true;
    }
    demo_drag_update(&s->drag, scene, in, in->right_down, in->right_pressed);
    int at_limit = 0;
    for (int k = 0; k < BONES; ++k) {
        float a = 0.0f;
        if (sinew_angle_get_angle(w, s->limit_ids[k], &a) == SINEW_OK &&
            (a <= s->limits[k].min + 0.02f || a >= s->limits[k].max - 0.02f)) {
            ++at_limit;
        }
    }
    snprintf(scene->status, sizeof scene->status, "m: %s\nhand to target %.3f m\njoints on a limit %d of %d",
             method_name(s->method), (double)s->result.distance, at_limit, BONES);
}

// A filled wedge at `at` from angle a0 to a1 (radians), `r` metres.
static void wedge(demo_draw *d, sinew_vec2 at, float a0, float a1, float r, demo_color c)
{
    enum { N = 12 };
    sinew_vec2 pts[N + 2];
    pts[0] = at;
    for (int k = 0; k <= N; ++k) {
        const float a = a0 + (a1 - a0) * (float)k / (float)N;
        pts[k + 1] = sinew_vec2_add(at, sinew_vec2_make(r * cosf(a), r * sinf(a)));
    }
    for (int k = 1; k <= N; ++k) {
        demo_draw_triangle(d, pts[0], pts[k], pts[k + 1], c);
    }
}

static void ik_draw(demo_scene *scene, demo_draw *d)
{
    ik_scene *s = (ik_scene *)scene;
    sinew_world *w = scene->worlds[0];
    const float px = demo_draw_pixel(d);
    sinew_vec2 p[BONES + 1], anchor;
    for (int k = 0; k <= BONES; ++k) {
        sinew_particle_get_position(w, s->particles[k], &p[k]);
    }
    sinew_particle_get_position(w, s->arm.anchor, &anchor);

    demo_draw_world(d, w, SINEW_DRAW_COLLIDERS, 2.0f);
    demo_draw_capsule(d, sinew_vec2_make(-0.4f, -4.0f), sinew_vec2_make(0.4f, -4.0f), 0.1f, demo_rgba(110, 125, 150, 255));

    // Joint limits: the range bone k may take, measured from bone k - 1 (bone 0 from the anchor).
    for (int k = 0; k < BONES; ++k) {
        const sinew_vec2 from = k == 0 ? sinew_vec2_sub(p[0], anchor) : sinew_vec2_sub(p[k], p[k - 1]);
        const sinew_vec2 dir = sinew_vec2_sub(p[k + 1], p[k]);
        const float base = atan2f(from.y, from.x);
        const float local = atan2f(sinew_vec2_cross(from, dir), sinew_vec2_dot(from, dir));
        const bool at_limit = local <= s->limits[k].min + 0.02f || local >= s->limits[k].max - 0.02f;
        const float lo = base + s->limits[k].min, hi = base + s->limits[k].max, r = 0.42f;
        const demo_color fill = at_limit ? demo_rgba(240, 80, 60, 120) : demo_rgba(110, 170, 255, 60);
        const demo_color edge = at_limit ? demo_rgba(255, 110, 90, 255) : demo_rgba(110, 170, 255, 170);
        wedge(d, p[k], lo, hi, r, fill);
        demo_draw_segment(d, p[k], sinew_vec2_add(p[k], sinew_vec2_make(r * cosf(lo), r * sinf(lo))), 1.5f, edge);
        demo_draw_segment(d, p[k], sinew_vec2_add(p[k], sinew_vec2_make(r * cosf(hi), r * sinf(hi))), 1.5f, edge);
    }
    // Rope and ball.
    demo_draw_world(d, w, SINEW_DRAW_LINKS, 2.0f);
    sinew_vec2 ball;
    sinew_particle_get_position(w, s->rope[ROPE_LINKS - 1], &ball);
    demo_draw_circle(d, ball, 0.3f, demo_rgba(235, 120, 60, 255));
    // Bones and joints.
    for (int k = 0; k < BONES; ++k) {
        const float f = (float)k / (float)(BONES - 1);
        demo_draw_capsule(d, p[k], p[k + 1], 0.09f - 0.04f * f,
                          demo_color_mix(demo_rgba(200, 210, 230, 255), demo_rgba(150, 220, 170, 255), f));
    }
    for (int k = 0; k <= BONES; ++k) {
        demo_draw_circle(d, p[k], 3.0f * px, demo_rgba(30, 36, 48, 255));
    }
    // The target.
    const demo_color tc = demo_rgba(255, 210, 90, 255);
    demo_draw_ring(d, s->target, 10.0f * px, 2.0f, tc);
    demo_draw_segment(d, sinew_vec2_add(s->target, sinew_vec2_make(-16.0f * px, 0.0f)),
                      sinew_vec2_add(s->target, sinew_vec2_make(16.0f * px, 0.0f)), 2.0f, tc);
    demo_draw_segment(d, sinew_vec2_add(s->target, sinew_vec2_make(0.0f, -16.0f * px)),
                      sinew_vec2_add(s->target, sinew_vec2_make(0.0f, 16.0f * px)), 2.0f, tc);
    demo_drag_draw(&s->drag, scene, d);
}

// Headless script: the target sweeps along its figure of eight (the same as when the mouse is away).
static void ik_autoplay(demo_scene *scene, demo_input *in)
{
    (void)scene;
    const float t = (float)in->frame / 60.0f;
    in->mouse_in_view = true;
    in->mouse = sinew_vec2_make(4.0f * sinf(0.7f * t), 0.5f + 1.5f * sinf(1.4f * t));
}

const demo_def demo_ik = {
    "ik",
    "IK arm",
    "the hand follows the mouse (a figure of eight when the mouse is away)\n"
    "m: relaxation (world solver) -> FABRIK -> CCD\n"
    "right drag: pull the ball or a joint\n"
    "wedges: each joint's allowed range, red on a limit",
    ik_create,
    ik_update,
    ik_draw,
    ik_destroy,
    ik_autoplay,
};
