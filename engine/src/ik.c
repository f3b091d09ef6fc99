// Inverse kinematics: the standalone chain solver (relaxation, FABRIK, CCD, two-bone); it needs
// no world and includes only the public headers (the arm built in a world is ik_arm.c). It works in double on stack scratch: joint positions (x, y),
// bone lengths and, with limits, per joint the range [lo, hi] of its local angle. No allocation.
//
// How each method keeps the limits:
// - FABRIK projects each bone direction as it places it, in both passes, without trigonometry:
//   the allowed directions of bone k are an arc of half-width h around the direction `mid` (the
//   parent's direction turned by (lo + hi) / 2), and a unit direction v is inside iff
//   dot(v, mid) >= cos h. Outside, v goes to the nearer end of the arc: hi when v is
//   counter-clockwise of mid, else lo. Positions after the forward pass are inside the limits.
// - CCD clamps each joint's turn to the nearest angle of its range.
// - The relaxation treats them as angle constraints among the others (limit_pass).
// - TWO_BONE clamps its closed form (and with bend 0 takes the other side when its own is blocked).
// - Every iterative method escapes local minima (escape, below).
// Whatever the method, the answer's angles are clamped into the limits at the end (a no-op but for
// rounding, except for the relaxation, whose positions satisfy its soft limits only as well as it
// converged), and the reported distance is measured from the clamped angles.
#include <math.h>

#include "ik_internal.h"

#define IK_MAX SINEW_IK_MAX_BONES

typedef struct ik_limit {
    double lo, hi;  // local angle range, radians
    double mc, ms;  // cos and sin of (lo + hi) / 2
    double ch;      // cos of (hi - lo) / 2
} ik_limit;

typedef struct ik_work {
    int n;
    bool limited;
    double bx, by, bcx, bcy; // base position and direction (cos, sin of base_angle)
    double ba;               // base angle
    double tx, ty;           // target
    double reach;            // sum of lengths
    const float *weights;    // NULL = all 1
    double x[IK_MAX + 1], y[IK_MAX + 1];
    double len[IK_MAX];
    double ang[IK_MAX];      // local angles (CCD keeps them up to date; the others fill them at the end)
    ik_limit lim[IK_MAX];
    // With limits: escapes from local minima (see escape) and the best pose met on the way.
    int restarts;
    double window_e;         // the end distance IK_WINDOW iterations ago
    double best_e;
    double best_x[IK_MAX + 1], best_y[IK_MAX + 1];
} ik_work;

// ---- small helpers ----------------------------------------------------------------------------

static bool finite_f(float v) { return isfinite(v) != 0; }

static bool point_ok(sinew_vec2 p) { return fabsf(p.x) <= SINEW_MAX_COORDINATE && fabsf(p.y) <= SINEW_MAX_COORDINATE; }

// Wraps into [-pi, pi]; pi rounded to float counts as inside, so that a float angle of +-pi keeps
// its sign from solve to solve.
static double wrap_d(double a)
{
    if (a >= -(double)(float)SINEW_PI && a <= (double)(float)SINEW_PI) {
        return a;
    }
    return remainder(a, 2.0 * SINEW_PI);
}

float sinew_ik_wrap_angle(float angle)
{
    if (!finite_f(angle)) {
        return NAN;
    }
    if (angle >= -(float)SINEW_PI && angle <= (float)SINEW_PI) {
        return angle;
    }
    return (float)remainder((double)angle, 2.0 * SINEW_PI);
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }

static double weight_of(const ik_work *w, int k) { return w->weights != NULL ? (double)w->weights[k] : 1.0; }

// Sets (ux, uy) to the unit vector along (dx, dy); leaves it as it is when (dx, dy) is zero.
static void unit_or_keep(double dx, double dy, double *ux, double *uy)
{
    const double d = sqrt(dx * dx + dy * dy);
    if (d > 0.0) {
        const double inv = 1.0 / d;
        *ux = dx * inv;
        *uy = dy * inv;
    }
}

// Projects the unit direction (*vx, *vy) of bone k into its limits, given the unit direction
// (ux, uy) of its parent. Returns true when it moved.
static bool limit_dir(const ik_limit *l, double ux, double uy, double *vx, double *vy)
{
    const double mx = ux * l->mc - uy * l->ms, my = ux * l->ms + uy * l->mc;
    if (mx * *vx + my * *vy >= l->ch) {
        return false;
    }
    const double a = mx * *vy - my * *vx >= 0.0 ? l->hi : l->lo;
    const double c = cos(a), s = sin(a);
    *vx = ux * c - uy * s;
    *vy = ux * s + uy * c;
    return true;
}

// The same for the reverse relation: given bone k + 1's unit direction (bx, by), keeps bone k's
// direction v such that bone k + 1's local angle (from v to b) stays in [lo, hi] of l.
static void limit_dir_reverse(const ik_limit *l, double bx, double by, double *vx, double *vy)
{
    // v must be b turned by -angle, angle in [lo, hi]: an arc around b turned by -mid.
    const double mx = bx * l->mc + by * l->ms, my = -bx * l->ms + by * l->mc;
    if (mx * *vx + my * *vy >= l->ch) {
        return;
    }
    const double a = mx * *vy - my * *vx >= 0.0 ? -l->lo : -l->hi;
    const double c = cos(a), s = sin(a);
    *vx = bx * c - by * s;
    *vy = bx * s + by * c;
}

// Joint positions from the local angles in w->ang.
static void forward_kinematics(ik_work *w)
{
    double t = w->ba;
    w->x[0] = w->bx;
    w->y[0] = w->by;
    for (int k = 0; k < w->n; ++k) {
        t += w->ang[k];
        w->x[k + 1] = w->x[k] + w->len[k] * cos(t);
        w->y[k + 1] = w->y[k] + w->len[k] * sin(t);
    }
}

// Local angles into w->ang from the bone directions of the joint positions. A bone of zero length
// counts as continuing its parent's direction.
static void angles_from_points(ik_work *w)
{
    double ux = w->bcx, uy = w->bcy;
    for (int k = 0; k < w->n; ++k) {
        const double vx = w->x[k + 1] - w->x[k], vy = w->y[k + 1] - w->y[k];
        if (vx == 0.0 && vy == 0.0) {
            w->ang[k] = 0.0;
            continue;
        }
        w->ang[k] = atan2(ux * vy - uy * vx, ux * vx + uy * vy);
        ux = vx;
        uy = vy;
    }
}

// Where the end effector is with every bone at its exact length along the directions of the
// working positions (the relaxation's positions need not have exact lengths).
static double rigid_end_distance(const ik_work *w)
{
    double ex = w->bx, ey = w->by, ux = w->bcx, uy = w->bcy;
    for (int k = 0; k < w->n; ++k) {
        unit_or_keep(w->x[k + 1] - w->x[k], w->y[k + 1] - w->y[k], &ux, &uy);
        ex += w->len[k] * ux;
        ey += w->len[k] * uy;
    }
    return sqrt((ex - w->tx) * (ex - w->tx) + (ey - w->ty) * (ey - w->ty));
}

// The end effector of the answer the working positions give: their local angles, clamped into
// the limits, at the exact bone lengths.
static double clamped_end_distance(const ik_work *w)
{
    double ux = w->bcx, uy = w->bcy, t = w->ba, ex = w->bx, ey = w->by;
    for (int k = 0; k < w->n; ++k) {
        const double vx = w->x[k + 1] - w->x[k], vy = w->y[k + 1] - w->y[k];
        double a = 0.0;
        if (vx != 0.0 || vy != 0.0) {
            a = atan2(ux * vy - uy * vx, ux * vx + uy * vy);
            ux = vx;
            uy = vy;
        }
        t += clampd(a, w->lim[k].lo, w->lim[k].hi);
        ex += w->len[k] * cos(t);
        ey += w->len[k] * sin(t);
    }
    return hypot(ex - w->tx, ey - w->ty);
}

static double end_distance(const ik_work *w)
{
    const double dx = w->x[w->n] - w->tx, dy = w->y[w->n] - w->ty;
    return sqrt(dx * dx + dy * dy);
}

static void report(const sinew_ik_def *def, const ik_work *w, int iteration)
{
    sinew_vec2 pts[IK_MAX + 1];
    for (int k = 0; k <= w->n; ++k) {
        pts[k] = sinew_vec2_make((float)w->x[k], (float)w->y[k]);
    }
    def->on_iteration(def->user_data, iteration, pts, w->n + 1);
}

// ---- limits -----------------------------------------------------------------------------------

// Turns (x, y) about (ox, oy) by `a` radians.
static void rotate_about(double ox, double oy, double a, double *x, double *y)
{
    const double c = cos(a), s = sin(a), rx = *x - ox, ry = *y - oy;
    *x = ox + c * rx - s * ry;
    *y = oy + s * rx + c * ry;
}

// The relaxation's limits, as constraints like the others (the world's angle constraint): where
// joint k's local angle is outside its range by c, joints k - 1, k and k + 1 move along the
// angle's gradients g = (perp(u) / |u|^2, -(both), perp(v) / |v|^2), u and v the two bones,
// scaled by their weights (the root and bone 0's parent direction do not move; the end effector
// weighs 1). Root to end.
static void limit_pass(ik_work *w)
{
    for (int k = 0; k < w->n; ++k) {
        double ux = w->bcx, uy = w->bcy;
        if (k > 0) {
            ux = w->x[k] - w->x[k - 1];
            uy = w->y[k] - w->y[k - 1];
        }
        const double vx = w->x[k + 1] - w->x[k], vy = w->y[k + 1] - w->y[k];
        const double lu2 = ux * ux + uy * uy, lv2 = vx * vx + vy * vy;
        if (!(lu2 > 0.0) || !(lv2 > 0.0)) {
            continue;
        }
        const double th = atan2(ux * vy - uy * vx, ux * vx + uy * vy);
        const double c = th - clampd(th, w->lim[k].lo, w->lim[k].hi);
        if (c == 0.0) {
            continue;
        }
        if (k == 0) { // only joint 1 can move: turn it about the root
            rotate_about(w->x[0], w->y[0], -c, &w->x[1], &w->y[1]);
            continue;
        }
        const double wi = k >= 2 ? weight_of(w, k - 1) : 0.0, wj = weight_of(w, k);
        const double wk = k + 1 < w->n ? weight_of(w, k + 1) : 1.0;
        const double gix = -uy / lu2, giy = ux / lu2, gkx = -vy / lv2, gky = vx / lv2;
        const double gjx = -(gix + gkx), gjy = -(giy + gky);
        const double den = wi * (gix * gix + giy * giy) + wj * (gjx * gjx + gjy * gjy) + wk * (gkx * gkx + gky * gky);
        if (!(den > 0.0)) {
            continue;
        }
        const double l = -c / den;
        w->x[k - 1] += l * wi * gix;
        w->y[k - 1] += l * wi * giy;
        w->x[k] += l * wj * gjx;
        w->y[k] += l * wj * gjy;
        w->x[k + 1] += l * wk * gkx;
        w->y[k + 1] += l * wk * gky;
    }
}

// ---- methods ----------------------------------------------------------------------------------

// One iteration of Juckett's constraint relaxation.
static void relax_iteration(ik_work *w)
{
    const int n = w->n;
    // 1. The last bone points from its base at the target, its end on the target (the root
    //    never moves: a one-bone chain only moves its end).
    if (n >= 2) {
        double dx = w->tx - w->x[n - 1], dy = w->ty - w->y[n - 1];
        double d = sqrt(dx * dx + dy * dy);
        if (!(d > 0.0)) { // the target is on the base of the last bone: keep its direction
            dx = w->x[n] - w->x[n - 1];
            dy = w->y[n] - w->y[n - 1];
            d = sqrt(dx * dx + dy * dy);
        }
        if (d > 0.0) {
            w->x[n - 1] = w->tx - w->len[n - 1] * dx / d;
            w->y[n - 1] = w->ty - w->len[n - 1] * dy / d;
        }
    }
    w->x[n] = w->tx;
    w->y[n] = w->ty;
    // 2. Relax the distance constraints of bones n - 2 .. 1, end to root, by the joint weights.
    for (int k = n - 2; k >= 1; --k) {
        const double wa = weight_of(w, k), wb = weight_of(w, k + 1), ws = wa + wb;
        const double dx = w->x[k + 1] - w->x[k], dy = w->y[k + 1] - w->y[k];
        const double d2 = dx * dx + dy * dy;
        if (!(ws > 0.0) || !(d2 > 0.0)) {
            continue;
        }
        const double d = sqrt(d2);
        const double f = (d - w->len[k]) / d;
        const double cx = f * dx, cy = f * dy;
        w->x[k] += wa / ws * cx;
        w->y[k] += wa / ws * cy;
        w->x[k + 1] -= wb / ws * cx;
        w->y[k + 1] -= wb / ws * cy;
    }
    // 3. The first child at bone 0's length from the root, which does not move.
    const double dx = w->x[1] - w->x[0], dy = w->y[1] - w->y[0];
    const double d = sqrt(dx * dx + dy * dy);
    if (d > 0.0) {
        w->x[1] = w->x[0] + w->len[0] * dx / d;
        w->y[1] = w->y[0] + w->len[0] * dy / d;
    }
    if (w->limited) {
        limit_pass(w);
    }
}

// One FABRIK iteration without limits. Each bone is placed as base + (length / d) * (end - base):
// one square root and one division per bone and pass, the whole cost of an iteration.
static void fabrik_iteration_free(ik_work *w)
{
    const int n = w->n;
    double *restrict x = w->x, *restrict y = w->y;
    const double *restrict len = w->len;
    x[n] = w->tx;
    y[n] = w->ty;
    for (int k = n - 1; k >= 0; --k) {
        const double dx = x[k + 1] - x[k], dy = y[k + 1] - y[k]; // bone k, base to end
        const double d2 = dx * dx + dy * dy;
        if (d2 > 0.0) {
            const double s = len[k] / sqrt(d2);
            x[k] = x[k + 1] - s * dx;
            y[k] = y[k + 1] - s * dy;
        } else { // the joints coincide: continue the bone placed last (or the base direction)
            const double fx = k + 1 < n ? (x[k + 2] - x[k + 1]) / len[k + 1] : w->bcx;
            const double fy = k + 1 < n ? (y[k + 2] - y[k + 1]) / len[k + 1] : w->bcy;
            x[k] = x[k + 1] - len[k] * fx;
            y[k] = y[k + 1] - len[k] * fy;
        }
    }
    x[0] = w->bx;
    y[0] = w->by;
    for (int k = 0; k < n; ++k) {
        const double dx = x[k + 1] - x[k], dy = y[k + 1] - y[k];
        const double d2 = dx * dx + dy * dy;
        if (d2 > 0.0) {
            const double s = len[k] / sqrt(d2);
            x[k + 1] = x[k] + s * dx;
            y[k + 1] = y[k] + s * dy;
        } else { // continue the parent (or the base direction)
            const double fx = k > 0 ? (x[k] - x[k - 1]) / len[k - 1] : w->bcx;
            const double fy = k > 0 ? (y[k] - y[k - 1]) / len[k - 1] : w->bcy;
            x[k + 1] = x[k] + len[k] * fx;
            y[k + 1] = y[k] + len[k] * fy;
        }
    }
}

// One FABRIK iteration with limits: backward (end on the target, toward the root), then forward
// (root on the base, toward the end), each projecting every joint into its limits.
static void fabrik_iteration_limited(ik_work *w)
{
    const int n = w->n;
    double *restrict x = w->x, *restrict y = w->y;
    const double *restrict len = w->len;
    // Direction of the bone placed last, the fallback when two joints coincide.
    double px = w->bcx, py = w->bcy;
    x[n] = w->tx;
    y[n] = w->ty;
    for (int k = n - 1; k >= 0; --k) {
        double vx = px, vy = py;
        unit_or_keep(x[k + 1] - x[k], y[k + 1] - y[k], &vx, &vy); // bone k, base to end
        if (k + 1 < n) {
            limit_dir_reverse(&w->lim[k + 1], px, py, &vx, &vy);
        }
        x[k] = x[k + 1] - len[k] * vx;
        y[k] = y[k + 1] - len[k] * vy;
        px = vx;
        py = vy;
    }
    double ux = w->bcx, uy = w->bcy;
    x[0] = w->bx;
    y[0] = w->by;
    for (int k = 0; k < n; ++k) {
        double vx = ux, vy = uy;
        unit_or_keep(x[k + 1] - x[k], y[k + 1] - y[k], &vx, &vy);
        limit_dir(&w->lim[k], ux, uy, &vx, &vy);
        x[k + 1] = x[k] + len[k] * vx;
        y[k + 1] = y[k] + len[k] * vy;
        ux = vx;
        uy = vy;
    }
}

// The angle of [lo, hi] nearest to `a` on the circle (a in [-pi, pi]).
static double nearest_in_range(double a, const ik_limit *l)
{
    if (a >= l->lo && a <= l->hi) {
        return a;
    }
    return fabs(wrap_d(a - l->lo)) <= fabs(wrap_d(a - l->hi)) ? l->lo : l->hi;
}

// Turns joints k + 1 .. n about joint k by the rotation (c, s).
static void rotate_tail(ik_work *w, int k, double c, double s)
{
    const double ox = w->x[k], oy = w->y[k];
    for (int m = k + 1; m <= w->n; ++m) {
        const double rx = w->x[m] - ox, ry = w->y[m] - oy;
        w->x[m] = ox + c * rx - s * ry;
        w->y[m] = oy + s * rx + c * ry;
    }
}

// One CCD sweep: from the last joint to the base, each joint turns to aim the end effector at the
// target, by its weight's share of the angle (when `weighted`), and not past its limits. With
// limits, w->ang must hold the local angles (it is kept up to date).
static void ccd_iteration(ik_work *w, bool weighted)
{
    const int n = w->n;
    for (int k = n - 1; k >= 0; --k) {
        const double ex = w->x[n] - w->x[k], ey = w->y[n] - w->y[k];
        const double gx = w->tx - w->x[k], gy = w->ty - w->y[k];
        const double dot = ex * gx + ey * gy, cross = ex * gy - ey * gx;
        const double wk = weighted ? weight_of(w, k) : 1.0;
        if (dot == 0.0 && cross == 0.0) {
            continue;
        }
        double c, s;
        if (!w->limited && wk == 1.0) {
            const double inv = 1.0 / sqrt(dot * dot + cross * cross);
            c = dot * inv;
            s = cross * inv;
        } else {
            double turn = wk * atan2(cross, dot);
            if (w->limited) {
                turn = nearest_in_range(wrap_d(w->ang[k] + turn), &w->lim[k]) - w->ang[k];
            }
            if (turn == 0.0) {
                continue;
            }
            w->ang[k] += turn;
            c = cos(turn);
            s = sin(turn);
        }
        rotate_tail(w, k, c, s);
    }
}

// The closed form for two bones: the elbow on side `side`, then both clamped into the limits
// (the shoulder re-aimed at the target with the clamped elbow).
static void two_bone(ik_work *w, int side)
{
    const double l1 = w->len[0], l2 = w->len[1];
    const double dx = w->tx - w->bx, dy = w->ty - w->by;
    const double d2 = dx * dx + dy * dy;
    double ce = (d2 - l1 * l1 - l2 * l2) / (2.0 * l1 * l2);
    ce = clampd(ce, -1.0, 1.0);
    double elbow = (double)side * acos(ce);
    if (w->limited) {
        elbow = clampd(elbow, w->lim[1].lo, w->lim[1].hi);
    }
    // With the target on the base, any shoulder direction is as good: keep the current one.
    const double aim = d2 > 0.0 ? atan2(dy, dx) : w->ba + w->ang[0];
    const double shoulder = aim - atan2(l2 * sin(elbow), l1 + l2 * cos(elbow));
    double a0 = wrap_d(shoulder - w->ba);
    if (w->limited) {
        a0 = clampd(a0, w->lim[0].lo, w->lim[0].hi);
    }
    w->ang[0] = a0;
    w->ang[1] = elbow;
}

// ---- solve ------------------------------------------------------------------------------------

static sinew_status check_chain(const sinew_ik_chain *chain)
{
    if (chain == NULL || chain->angles == NULL || chain->lengths == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (chain->count < 1 || chain->count > IK_MAX) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    if (!sinew_vec2_is_finite(chain->base) || !finite_f(chain->base_angle)) {
        return SINEW_ERR_NOT_FINITE;
    }
    for (int k = 0; k < chain->count; ++k) {
        if (!finite_f(chain->angles[k]) || !finite_f(chain->lengths[k]) ||
            (chain->weights != NULL && !finite_f(chain->weights[k]))) {
            return SINEW_ERR_NOT_FINITE;
        }
    }
    for (int k = 0; k < chain->count; ++k) {
        if (!(chain->lengths[k] > 0.0f) || chain->lengths[k] > SINEW_MAX_COORDINATE ||
            (chain->weights != NULL && !(chain->weights[k] >= 0.0f && chain->weights[k] <= 1.0f))) {
            return SINEW_ERR_OUT_OF_RANGE;
        }
    }
    return point_ok(chain->base) ? SINEW_OK : SINEW_ERR_OUT_OF_RANGE;
}

sinew_status sinew__ik_check_limits(const sinew_ik_limit *limits, int count)
{
    for (int k = 0; limits != NULL && k < count; ++k) {
        if (!finite_f(limits[k].min) || !finite_f(limits[k].max)) {
            return SINEW_ERR_NOT_FINITE;
        }
    }
    for (int k = 0; limits != NULL && k < count; ++k) {
        const float lo = limits[k].min, hi = limits[k].max;
        if (lo < -(float)SINEW_PI || hi > (float)SINEW_PI || lo > hi) {
            return SINEW_ERR_OUT_OF_RANGE;
        }
    }
    return SINEW_OK;
}

static sinew_status check_def(const sinew_ik_def *def, const sinew_ik_chain *chain, sinew_vec2 target)
{
    if (def == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    sinew_status s = check_chain(chain);
    if (s != SINEW_OK) {
        return s;
    }
    if (!sinew_vec2_is_finite(target) || !finite_f(def->tolerance)) {
        return SINEW_ERR_NOT_FINITE;
    }
    if (!point_ok(target)) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    s = sinew__ik_check_limits(def->limits, chain->count);
    if (s != SINEW_OK) {
        return s;
    }
    const bool known = def->method == SINEW_IK_RELAXATION || def->method == SINEW_IK_FABRIK ||
                       def->method == SINEW_IK_CCD || def->method == SINEW_IK_TWO_BONE;
    if (!known || def->max_iterations < 1 || def->max_iterations > SINEW_IK_MAX_ITERATIONS ||
        def->tolerance < 0.0f || def->bend < -1 || def->bend > 1 ||
        (def->method == SINEW_IK_TWO_BONE && chain->count != 2)) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    return SINEW_OK;
}

// Fills w from the chain and def (already checked). Returns OUT_OF_RANGE when `bend` leaves a
// joint no range.
static sinew_status setup(ik_work *w, const sinew_ik_def *def, const sinew_ik_chain *chain, sinew_vec2 target)
{
    const int n = chain->count;
    w->n = n;
    w->bx = chain->base.x;
    w->by = chain->base.y;
    w->ba = chain->base_angle;
    w->bcx = cos(w->ba);
    w->bcy = sin(w->ba);
    w->tx = target.x;
    w->ty = target.y;
    w->weights = chain->weights;
    w->reach = 0.0;
    for (int k = 0; k < n; ++k) {
        w->len[k] = chain->lengths[k];
        w->reach += w->len[k];
        w->ang[k] = wrap_d(chain->angles[k]);
    }
    const bool one_sided = def->bend != 0 && def->method != SINEW_IK_TWO_BONE && n > 1;
    w->limited = def->limits != NULL || one_sided;
    if (!w->limited) {
        return SINEW_OK;
    }
    for (int k = 0; k < n; ++k) {
        ik_limit *l = &w->lim[k];
        l->lo = def->limits != NULL ? (double)def->limits[k].min : -SINEW_PI;
        l->hi = def->limits != NULL ? (double)def->limits[k].max : SINEW_PI;
        if (one_sided && k > 0) {
            l->lo = def->bend > 0 ? fmax(l->lo, 0.0) : l->lo;
            l->hi = def->bend < 0 ? fmin(l->hi, 0.0) : l->hi;
        }
        if (l->lo > l->hi) {
            return SINEW_ERR_OUT_OF_RANGE;
        }
        const double mid = 0.5 * (l->lo + l->hi), half = 0.5 * (l->hi - l->lo);
        l->mc = cos(mid);
        l->ms = sin(mid);
        l->ch = half >= SINEW_PI ? -2.0 : cos(half); // the full circle: everything is inside
        w->ang[k] = clampd(w->ang[k], l->lo, l->hi);
    }
    return SINEW_OK;
}

// The straight pose toward the target, when it is allowed: true when it was taken.
static bool straight_toward_target(ik_work *w)
{
    const double dx = w->tx - w->bx, dy = w->ty - w->by;
    if (!(dx != 0.0 || dy != 0.0)) {
        return false;
    }
    const double a0 = atan2(w->bcx * dy - w->bcy * dx, w->bcx * dx + w->bcy * dy);
    if (w->limited) {
        if (a0 < w->lim[0].lo || a0 > w->lim[0].hi) {
            return false;
        }
        for (int k = 1; k < w->n; ++k) {
            if (w->lim[k].lo > 0.0 || w->lim[k].hi < 0.0) {
                return false;
            }
        }
    }
    w->ang[0] = a0;
    for (int k = 1; k < w->n; ++k) {
        w->ang[k] = 0.0;
    }
    return true;
}

// A straight chain bends toward a target on (or near) its own line only very slowly, or not at
// all: it is the singular pose of every method (443, 146 and 943 iterations for relaxation,
// FABRIK and CCD, 4 bones, a target on the line 1% inside the reach; 2 bones never leave it).
// Without limits (`bend` alone is fine), when every joint but the first is within IK_STRAIGHT of
// straight, they are bent toward `bend` (+1 when 0) and the positions recomputed. With limits the
// start pose is left alone: the kick can send a limited chain into the wrong curl. Returns true
// when it changed the pose.
#define IK_STRAIGHT 1e-3
#define IK_KICK 0.1
static bool unbend(ik_work *w, const sinew_ik_def *def)
{
    if (w->n < 2 || def->limits != NULL) {
        return false;
    }
    for (int k = 1; k < w->n; ++k) {
        if (fabs(w->ang[k]) >= IK_STRAIGHT) {
            return false;
        }
    }
    // Joints 1.. bend by the kick, and bone 0 turns back: with a bend preference by half their sum
    // (an arc whose chord keeps the chain's direction, so that pulling the end along the line keeps
    // the arc on the allowed side), else by a hundredth of the kick (bending joints 1.. alone leaves
    // joint 1 on the line, where FABRIK and the relaxation pull a two-bone chain straight again).
    // A long chain curls into a spiral (0.1 rad a joint): a compact start that FABRIK unfolds in
    // fewer iterations than a nearly straight one (100 bones, targets over the disc it reaches:
    // about 15 mean iterations, against about 67 with the kick spread over 1 rad in all).
    const double kick = def->bend < 0 ? -IK_KICK : IK_KICK;
    w->ang[0] = wrap_d(w->ang[0] - (def->bend != 0 ? 0.5 * (double)(w->n - 1) : 0.01) * kick);
    for (int k = 1; k < w->n; ++k) {
        w->ang[k] = kick;
    }
    forward_kinematics(w);
    return true;
}

// With limits every method can settle in a local minimum: the chain curled against a limit on
// the side away from the target, each joint's own best turn blocked (1% of reachable targets
// missed by up to 0.19 m for the relaxation, 0.3% for CCD, 4 bones at +-45 degrees). When an
// iteration gains less than 1 - IK_STALL:
// - CCD and the relaxation first take one limited FABRIK iteration, whose passes place whole
//   bones toward the target and the base;
// - when that does not help either (or for FABRIK, whose own CCD sweep did not), the chain starts
//   again from a new pose inside the limits: every joint at the fraction f of its range, f
//   walking 0.5, 0.12, 0.74, 0.36, ... (the golden ratio's sequence), alternate joints mirrored
//   on odd restarts. The best pose met is kept, so a restart never makes the answer worse.
// Returns the new end distance; w->ang is kept up to date for CCD.
#define IK_STALL 0.99
#define IK_WINDOW 16
#define IK_WINDOW_GAIN 0.9
static double escape(ik_work *w, bool restart)
{
    if (!restart) {
        fabrik_iteration_limited(w);
    } else {
        const double f = fmod(0.5 + 0.6180339887498949 * (double)w->restarts, 1.0);
        for (int k = 0; k < w->n; ++k) {
            const double g = (w->restarts & 1) && (k & 1) ? 1.0 - f : f;
            w->ang[k] = w->lim[k].lo + g * (w->lim[k].hi - w->lim[k].lo);
        }
        w->restarts += 1;
        forward_kinematics(w);
    }
    angles_from_points(w);
    return end_distance(w);
}

static void keep_best(ik_work *w, double e)
{
    if (e < w->best_e) {
        w->best_e = e;
        for (int k = 0; k <= w->n; ++k) {
            w->best_x[k] = w->x[k];
            w->best_y[k] = w->y[k];
        }
    }
}

// Runs the iterative method from the pose in w (positions from forward_kinematics, end effector
// `e` from the target) until the tolerance or max_iterations; leaves the answer's local angles in
// w->ang. Returns the iterations run.
static int iterate(const sinew_ik_def *def, ik_work *w, double e)
{
    const double tol = def->tolerance;
    if (def->on_iteration != NULL) {
        report(def, w, 0);
    }
    w->restarts = 0;
    w->window_e = e;
    w->best_e = INFINITY;
    if (w->limited) {
        keep_best(w, e);
    }
    int iterations = 0;
    for (int it = 1; it <= def->max_iterations && !(e <= tol); ++it) {
        const double before = e;
        switch (def->method) {
        case SINEW_IK_RELAXATION:
            relax_iteration(w);
            e = w->limited ? clamped_end_distance(w) : rigid_end_distance(w);
            break;
        case SINEW_IK_FABRIK:
            if (w->limited) {
                fabrik_iteration_limited(w);
            } else {
                fabrik_iteration_free(w);
            }
            e = end_distance(w);
            // With limits the two passes can lock: the joints near the end sit at their limits
            // and those near the base stay as they were, iteration after iteration. When an
            // iteration gains less than 10%, one CCD sweep turns the free joints.
            if (w->limited && !(e < 0.9 * before)) {
                angles_from_points(w);
                ccd_iteration(w, false);
                e = end_distance(w);
            }
            break;
        default:
            ccd_iteration(w, true);
            e = end_distance(w);
            break;
        }
        if (w->limited && !(e <= tol) && it % IK_WINDOW == 0) {
            if (!(e < IK_WINDOW_GAIN * w->window_e)) {
                e = escape(w, true);
            }
            w->window_e = e;
        } else if (w->limited && !(e < IK_STALL * before) && !(e <= tol) && def->method != SINEW_IK_FABRIK) {
            e = escape(w, false);
        }
        if (w->limited && w->restarts == 0) {
            keep_best(w, e);
        }
        iterations = it;
        if (def->on_iteration != NULL) {
            report(def, w, it);
        }
    }
    // Not reached: the best pose of the descent from the start pose (a restart's pose is taken only
    // when it reaches the target, so that a target out of reach never makes the chain jump).
    if (w->limited && !(e <= tol)) {
        for (int k = 0; k <= w->n; ++k) {
            w->x[k] = w->best_x[k];
            w->y[k] = w->best_y[k];
        }
    }
    if (iterations > 0) {
        angles_from_points(w);
    }
    return iterations;
}

sinew_ik_def sinew_default_ik_def(void)
{
    sinew_ik_def def = {0};
    def.method = SINEW_IK_FABRIK;
    def.max_iterations = 100;
    def.tolerance = 1e-3f;
    return def;
}

sinew_status sinew_ik_solve(const sinew_ik_def *def, sinew_ik_chain *chain, sinew_vec2 target, sinew_ik_result *out)
{
    sinew_status s = check_def(def, chain, target);
    if (s != SINEW_OK) {
        return s;
    }
    ik_work w;
    s = setup(&w, def, chain, target);
    if (s != SINEW_OK) {
        return s;
    }
    const double tol = def->tolerance;
    int iterations = 0;
    if (def->method == SINEW_IK_TWO_BONE) {
        const int side = def->bend != 0 ? def->bend : (w.ang[1] >= 0.0 ? 1 : -1);
        const double a0 = w.ang[0], a1 = w.ang[1];
        two_bone(&w, side);
        // bend 0 with limits: the elbow stays on its side while that side reaches, else takes the
        // other side when it comes closer (the limits can block one side and not the other).
        if (def->bend == 0 && w.limited) {
            forward_kinematics(&w);
            const double here = end_distance(&w), kept0 = w.ang[0], kept1 = w.ang[1];
            if (!(here <= tol)) {
                w.ang[0] = a0;
                w.ang[1] = a1;
                two_bone(&w, -side);
                forward_kinematics(&w);
                if (!(end_distance(&w) < here - tol)) {
                    w.ang[0] = kept0;
                    w.ang[1] = kept1;
                }
            }
        }
    } else {
        forward_kinematics(&w);
        const double e = end_distance(&w);
        // Out of reach (or within tolerance of it): straight at the target, whatever the start.
        const bool straight = !(e <= tol) && hypot(w.tx - w.bx, w.ty - w.by) >= w.reach - tol &&
                              straight_toward_target(&w);
        if (!straight) {
            iterations = iterate(def, &w, unbend(&w, def) ? end_distance(&w) : e);
        }
    }
    // The answer: wrapped, exactly inside the limits, in float; its end effector measured from
    // those float angles.
    for (int k = 0; k < w.n; ++k) {
        double a = wrap_d(w.ang[k]);
        if (w.limited) {
            a = clampd(a, w.lim[k].lo, w.lim[k].hi);
        }
        chain->angles[k] = (float)a;
        w.ang[k] = chain->angles[k];
    }
    forward_kinematics(&w);
    const double dist = end_distance(&w);
    if (out != NULL) {
        out->iterations = iterations;
        out->distance = (float)dist;
        out->reached = dist <= tol;
    }
    return SINEW_OK;
}

sinew_status sinew_ik_chain_points(const sinew_ik_chain *chain, sinew_vec2 *points)
{
    sinew_status s = check_chain(chain);
    if (s != SINEW_OK || points == NULL) {
        return points == NULL && s == SINEW_OK ? SINEW_ERR_NULL_ARGUMENT : s;
    }
    double t = chain->base_angle, x = chain->base.x, y = chain->base.y;
    points[0] = chain->base;
    for (int k = 0; k < chain->count; ++k) {
        t += chain->angles[k];
        x += chain->lengths[k] * cos(t);
        y += chain->lengths[k] * sin(t);
        points[k + 1] = sinew_vec2_make((float)x, (float)y);
    }
    return SINEW_OK;
}

sinew_status sinew_ik_chain_set_points(sinew_ik_chain *chain, const sinew_vec2 *points)
{
    if (chain == NULL || chain->angles == NULL || points == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (chain->count < 1 || chain->count > IK_MAX) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    if (!finite_f(chain->base_angle)) {
        return SINEW_ERR_NOT_FINITE;
    }
    for (int k = 0; k <= chain->count; ++k) {
        if (!sinew_vec2_is_finite(points[k])) {
            return SINEW_ERR_NOT_FINITE;
        }
    }
    for (int k = 0; k < chain->count; ++k) {
        if (points[k + 1].x == points[k].x && points[k + 1].y == points[k].y) {
            return SINEW_ERR_OUT_OF_RANGE;
        }
    }
    double ux = cos((double)chain->base_angle), uy = sin((double)chain->base_angle);
    for (int k = 0; k < chain->count; ++k) {
        const double vx = (double)points[k + 1].x - points[k].x, vy = (double)points[k + 1].y - points[k].y;
        chain->angles[k] = (float)atan2(ux * vy - uy * vx, ux * vx + uy * vy);
        ux = vx;
        uy = vy;
    }
    return SINEW_OK;
}
