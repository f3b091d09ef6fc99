// The IK arm: a chain of particles and distance constraints built in a world, with angle limits
// and a target pin, that the standalone solver (ik.c) can drive.
#include "ik_internal.h"
#include "scene_internal.h"

sinew_ik_arm_def sinew_default_ik_arm_def(void)
{
    sinew_ik_arm_def def = {0};
    def.bones = 4;
    def.bone_length = 0.5f;
    def.limit_stiffness = 1.0f;
    def.weight = 1.0f;
    def.radius = 0.1f;
    def.particle_flags = SINEW_PARTICLE_COLLIDES;
    def.target_at_hand = true;
    def.target_stiffness = 1.0f;
    def.target_max_force = SINEW_IK_ARM_TARGET_MAX_FORCE;
    return def;
}

static float arm_length(const sinew_ik_arm_def *def, int k) { return def->lengths != NULL ? def->lengths[k] : def->bone_length; }

// What is wrong with an arm def (not NULL), or NULL; *status gets the error.
static const char *arm_problem(const sinew_ik_arm_def *def, sinew_status *status)
{
    *status = SINEW_ERR_OUT_OF_RANGE;
    if (def->bones < 1 || def->bones > SINEW_IK_MAX_BONES) {
        return "ik arm def: bones in 1..SINEW_IK_MAX_BONES";
    }
    bool finite = sinew_vec2_is_finite(def->base) && sinew__finite(def->base_angle) && sinew__finite(def->limit_stiffness) &&
                  (def->target_at_hand || sinew_vec2_is_finite(def->target));
    for (int k = 0; k < def->bones && finite; ++k) {
        finite = sinew__finite(arm_length(def, k)) && (def->angles == NULL || sinew__finite(def->angles[k]));
    }
    if (!finite) {
        *status = SINEW_ERR_NOT_FINITE;
        return "ik arm def: base, angles, lengths, target must be finite";
    }
    const char *problem =
        sinew__material_problem(def->weight, def->radius, def->target_stiffness, def->target_compliance, status);
    if (problem != NULL) {
        return problem;
    }
    *status = SINEW_ERR_OUT_OF_RANGE;
    if (!(def->target_max_force > 0.0f)) { // NaN too
        return "ik arm def: target_max_force > 0 (INFINITY: no limit)";
    }
    if (!(def->limit_stiffness >= 0.0f && def->limit_stiffness <= 1.0f)) {
        return "ik arm def: limit_stiffness in [0, 1]";
    }
    double reach = arm_length(def, 0); // the anchor lies a first bone behind the root
    for (int k = 0; k < def->bones; ++k) {
        if (!(arm_length(def, k) > 0.0f)) {
            return "ik arm def: bone lengths must be > 0";
        }
        reach += arm_length(def, k);
    }
    if (!sinew__extent_ok(def->base.x - reach, def->base.y - reach, def->base.x + reach, def->base.y + reach) ||
        (!def->target_at_hand && !sinew__point_ok(def->target))) {
        return "ik arm def: the arm's reach and the target within SINEW_MAX_COORDINATE";
    }
    const sinew_status s = sinew__ik_check_limits(def->limits, def->bones);
    if (s != SINEW_OK) {
        *status = s;
        return "ik arm def: limits finite, in [-pi, pi], min <= max";
    }
    for (int k = 0; def->limits != NULL && k < def->bones; ++k) {
        const float a = def->angles != NULL ? sinew_ik_wrap_angle(def->angles[k]) : 0.0f;
        if (a < def->limits[k].min || a > def->limits[k].max) {
            return "ik arm def: the start pose is outside the limits";
        }
    }
    return NULL;
}

sinew_scene_counts sinew_ik_arm_counts(const sinew_ik_arm_def *def)
{
    sinew_status status = SINEW_OK;
    const char *problem = def != NULL ? arm_problem(def, &status) : "sinew_ik_arm_counts: def is required";
    sinew_scene_counts c;
    if (!sinew__counts_start(&c, def != NULL, problem, status)) {
        return c;
    }
    const bool limits = def->limits != NULL;
    c.particles = def->bones + 1 + (int)limits;
    c.distances = def->bones;
    c.angles = limits ? def->bones : 0;
    c.pins = 2 + (int)limits;
    return c;
}

sinew_status sinew_ik_arm_create(sinew_world *world, const sinew_ik_arm_def *def, sinew_ik_arm *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_ik_arm_create: world and def are required");
    }
    sinew_status s;
    const char *problem = arm_problem(def, &s);
    if (problem != NULL) {
        return sinew__fail(world, s, problem);
    }
    const sinew_scene_counts counts = sinew_ik_arm_counts(def);
    const int n = def->bones;
    const bool limits = def->limits != NULL;
    // The build's own id array (the anchor is one more than the caller's array holds).
    sinew__build b;
    if (!sinew__build_begin(&b, world, &counts, NULL)) {
        return b.status;
    }
    sinew_pin_id root_pin = SINEW_NULL_ID, anchor_pin = SINEW_NULL_ID, target_pin = SINEW_NULL_ID;
    sinew_particle_def p = sinew_default_particle_def();
    p.weight = def->weight;
    p.radius = def->radius;
    p.flags = def->particle_flags;
    double t = def->base_angle, x = def->base.x, y = def->base.y;
    for (int k = 0; k <= n; ++k) {
        p.position = sinew_vec2_make((float)x, (float)y);
        sinew__build_particle(&b, &p, k == 0, &root_pin);
        if (k < n) {
            t += def->angles != NULL ? (double)def->angles[k] : 0.0;
            x += (double)arm_length(def, k) * cos(t);
            y += (double)arm_length(def, k) * sin(t);
        }
    }
    const sinew_vec2 hand = p.position;
    if (limits) { // index n + 1: behind the root, along the base direction
        sinew_particle_def a = p;
        a.flags = 0u;
        a.position = sinew_vec2_make((float)((double)def->base.x - (double)arm_length(def, 0) * cos((double)def->base_angle)),
                                     (float)((double)def->base.y - (double)arm_length(def, 0) * sin((double)def->base_angle)));
        sinew__build_particle(&b, &a, true, &anchor_pin);
    }
    // Bones from the hand to the root: with the hand's pin (pins are solved before distances),
    // a Gauss-Seidel sweep in creation order follows the relaxation's order.
    sinew_distance_def link = sinew_default_distance_def();
    sinew_distance_id bone_ids[SINEW_IK_MAX_BONES];
    for (int k = n - 1; k >= 0; --k) {
        link.rest = arm_length(def, k);
        bone_ids[k] = sinew__build_link(&b, k, k + 1, &link);
    }
    sinew_angle_id angle_ids[SINEW_IK_MAX_BONES];
    for (int k = 0; limits && k < n && b.status == SINEW_OK; ++k) {
        sinew_angle_def ad = sinew_default_angle_def();
        ad.a = b.ids[k == 0 ? n + 1 : k - 1];
        ad.b = b.ids[k];
        ad.c = b.ids[k + 1];
        ad.min = def->limits[k].min;
        ad.max = def->limits[k].max;
        ad.stiffness = def->limit_stiffness;
        b.status = sinew_angle_create(world, &ad, &angle_ids[k]);
    }
    if (b.status == SINEW_OK) {
        sinew_pin_def pd = sinew_default_pin_def();
        pd.particle = b.ids[n];
        pd.target = def->target_at_hand ? hand : def->target;
        pd.stiffness = def->target_stiffness;
        pd.compliance = def->target_compliance;
        pd.max_force = def->target_max_force;
        b.status = sinew_pin_create(world, &pd, &target_pin);
    }
    if (b.status == SINEW_OK && out != NULL) {
        for (int k = 0; k < n; ++k) {
            if (out->particles != NULL) {
                out->particles[k] = b.ids[k];
            }
            if (out->bones != NULL) {
                out->bones[k] = bone_ids[k];
            }
            if (out->limits != NULL && limits) {
                out->limits[k] = angle_ids[k];
            }
            if (out->limit_values != NULL && limits) {
                out->limit_values[k] = def->limits[k];
            }
        }
        if (out->particles != NULL) {
            out->particles[n] = b.ids[n];
        }
        out->anchor = limits ? b.ids[n + 1] : (sinew_particle_id)SINEW_NULL_ID;
        out->anchor_pin = anchor_pin;
        out->root_pin = root_pin;
        out->target_pin = target_pin;
        out->bone_count = n;
        out->base_angle = def->base_angle;
        out->weight = def->weight;
        out->target_stiffness = def->target_stiffness;
        out->target_compliance = def->target_compliance;
    }
    return sinew__build_end(&b);
}

static sinew_status check_arm_ids(sinew_world *world, const sinew_ik_arm *arm, const char *who)
{
    if (world == NULL || arm == NULL || arm->particles == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, who);
    }
    if (arm->bone_count < 1 || arm->bone_count > SINEW_IK_MAX_BONES) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "ik arm: bone_count in 1..SINEW_IK_MAX_BONES");
    }
    for (int k = 0; k <= arm->bone_count; ++k) {
        if (!sinew_particle_is_valid(world, arm->particles[k])) {
            return sinew__fail(world, SINEW_ERR_INVALID_ID, "ik arm: a particle of the arm is gone");
        }
    }
    if (!sinew_pin_is_valid(world, arm->target_pin)) {
        return sinew__fail(world, SINEW_ERR_INVALID_ID, "ik arm: the hand's pin is gone");
    }
    return SINEW_OK;
}

sinew_status sinew_ik_arm_drive(sinew_world *world, const sinew_ik_arm *arm, const sinew_ik_def *def,
                                sinew_ik_result *out)
{
    sinew_status s = check_arm_ids(world, arm, "sinew_ik_arm_drive: world, arm, arm->particles, arm->bones, def are required");
    if (s != SINEW_OK) {
        return s;
    }
    if (arm->bones == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_ik_arm_drive: arm->bones and def are required");
    }
    const int n = arm->bone_count;
    sinew_vec2 pts[SINEW_IK_MAX_BONES + 1];
    float lengths[SINEW_IK_MAX_BONES], angles[SINEW_IK_MAX_BONES];
    for (int k = 0; k <= n; ++k) {
        sinew_particle_get_position(world, arm->particles[k], &pts[k]);
    }
    for (int k = 0; k < n; ++k) {
        sinew_distance_def dd;
        if (sinew_distance_get(world, arm->bones[k], &dd) != SINEW_OK) {
            return sinew__fail(world, SINEW_ERR_INVALID_ID, "sinew_ik_arm_drive: a bone of the arm is gone");
        }
        lengths[k] = dd.rest;
    }
    sinew_pin_def target;
    sinew_pin_get(world, arm->target_pin, &target);
    float base_angle = arm->base_angle;
    sinew_vec2 anchor;
    if (sinew_particle_get_position(world, arm->anchor, &anchor) == SINEW_OK) {
        base_angle = (float)atan2((double)pts[0].y - anchor.y, (double)pts[0].x - anchor.x);
    }
    sinew_ik_def d = *def;
    if (d.limits == NULL && !SINEW_ID_IS_NULL(arm->anchor)) { // the arm was built with limits
        d.limits = arm->limit_values;
    }
    // The start pose from the particles; a bone squeezed to nothing continues its parent.
    double ux = cos((double)base_angle), uy = sin((double)base_angle);
    for (int k = 0; k < n; ++k) {
        const double vx = (double)pts[k + 1].x - pts[k].x, vy = (double)pts[k + 1].y - pts[k].y;
        angles[k] = 0.0f;
        if (vx != 0.0 || vy != 0.0) {
            angles[k] = (float)atan2(ux * vy - uy * vx, ux * vx + uy * vy);
            ux = vx;
            uy = vy;
        }
    }
    sinew_ik_chain chain = {n, angles, lengths, NULL, pts[0], base_angle};
    s = sinew_ik_solve(&d, &chain, target.target, out);
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_ik_arm_drive: the solver refused the chain or def (see sinew_ik_solve)");
    }
    sinew_ik_chain_points(&chain, pts);
    for (int k = 1; k <= n; ++k) {
        sinew_particle_set_weight(world, arm->particles[k], 0.0f);
        sinew_particle_set_position(world, arm->particles[k], pts[k]);
    }
    sinew_pin_set_stiffness(world, arm->target_pin, 0.0f, 0.0f);
    return SINEW_OK;
}

sinew_status sinew_ik_arm_release(sinew_world *world, const sinew_ik_arm *arm)
{
    sinew_status s = check_arm_ids(world, arm, "sinew_ik_arm_release: world, arm and arm->particles are required");
    if (s != SINEW_OK) {
        return s;
    }
    if (!sinew__finite(arm->weight) || !sinew__finite(arm->target_stiffness) || !sinew__finite(arm->target_compliance)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_ik_arm_release: weight, target stiffness, compliance");
    }
    if (!(arm->weight > 0.0f) || !(arm->target_stiffness >= 0.0f && arm->target_stiffness <= 1.0f) ||
        !(arm->target_compliance >= 0.0f)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_ik_arm_release: weight > 0, stiffness in [0, 1], compliance >= 0");
    }
    float w0 = 0.0f;
    sinew_particle_get_weight(world, arm->particles[arm->bone_count], &w0);
    if (w0 > 0.0f) {
        return SINEW_OK; // not driven
    }
    for (int k = 1; k <= arm->bone_count; ++k) {
        sinew_particle_set_weight(world, arm->particles[k], arm->weight);
        sinew_particle_set_velocity(world, arm->particles[k], sinew_vec2_make(0.0f, 0.0f));
    }
    sinew_pin_set_stiffness(world, arm->target_pin, arm->target_stiffness, arm->target_compliance);
    return SINEW_OK;
}
