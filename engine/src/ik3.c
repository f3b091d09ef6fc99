// Inverse kinematics in 3D: the standalone chain solver (CCD, FABRIK, two-bone) over links with
// quaternion rotations and convex polygonal cone limits plus twist ranges. It needs no world and
// includes only public headers. It works in double on stack scratch: per link the local rotation,
// the world rotation, the joint positions and the cone's unit corners and inward edge normals.
// No allocation.
//
// Frames (ik3.h): a link's axis is its frame's +x; rotations are relative to the parent's frame;
// world = base_rotation * q0 * ... * qk. Everything here keeps both the local rotations q[] and the
// world rotations W[] with the joints p[]; forward_kinematics() makes W and p from q.
//
// The cone (corners v_i counter-clockwise about its axis, n_i = unit(v_i x v_{i+1}) pointing in):
// a unit direction d is inside iff n_i . d >= 0 for every edge. The closest direction of the
// boundary to an outside d is the best (largest dot with d) of, per edge, the projection of d onto
// the edge's great circle when it falls on the arc between the corners, else the two corners.
// Projecting a rotation = turning it by the minimal rotation from its direction to that one, then
// clamping its twist (a rotation about the link's own +x, applied first, which keeps the
// direction).
#include <math.h>
#include <string.h>

#include "sinew/ik3.h"

#define IK3_MAX SINEW_IK3_MAX_LINKS
#define IK3_MAX_V SINEW_IK3_MAX_CONE_VERTICES

// Validation thresholds (ik3.h documents them).
#define IK3_UNIT_TOLERANCE 1e-3 // | |q| - 1 | above this is refused
#define IK3_CONE_EPS 1e-6       // corner separation and distance of a corner from an edge's plane
// The answer's margin inside each edge plane and twist range, after rounding to float: far below
// float resolution (6e-8), far above double rounding, so that any sound evaluation in double of
// the float answer agrees that it is inside.
#define IK3_OUT_MARGIN 1e-9

// Escapes from local minima: a restart when the best distance gained less than IK3_STALL_GAIN over
// IK3_STALL_WINDOW iterations (stuck), or so little that at that rate reaching the tolerance takes
// more than IK3_STALL_HORIZON iterations (slow); the first turns links by up to IK3_KICK0 rad, each
// next one by IK3_KICK_GROWTH times more, up to pi. Tuned on random chains of 2 to 15 links with
// random cones (tests/test_ik3.c): every setting reaches more than 99.9% of reachable targets.
#define IK3_STALL_WINDOW 8
#define IK3_STALL_GAIN 0.01
#define IK3_STALL_HORIZON 128.0
#define IK3_KICK0 0.25
#define IK3_KICK_GROWTH 1.5
// The aim's extrapolation (next_extrapolation): the fraction of the estimated landing extrapolation
// taken, and its most (in residuals past the target).
#define IK3_EXTRAPOLATION_SAFETY 0.75
#define IK3_EXTRAPOLATION_MAX 8.0
// FABRIK's linear aim (fabrik_linear_aim) replaces a plain iteration when the end effector is
// within this fraction of the shortest link from the target: the model drops terms of relative
// size (residual / link length), so it is trusted only where they are small (a warm start).
#define IK3_LINEAR_AIM_REACH 0.25

typedef struct dv {
    double x, y, z;
} dv;

typedef struct dq {
    double x, y, z, w;
} dq;

typedef sinew_ik3_limit ik3_lim;

// sinew_ik3_limit_init's mark on the limits it made.
#define IK3_LIMIT_CHECK 0x1c3c0e5u

typedef struct ik3_work {
    int n;
    bool limited;         // some link has a cone or a twist range
    dv base, target;
    dq base_rot;
    double reach;         // sum of lengths
    double shortest;      // least length
    double len[IK3_MAX];
    double flex[IK3_MAX];
    dq q[IK3_MAX];        // local rotations
    dq w[IK3_MAX];        // world rotations
    dv p[IK3_MAX + 1];    // joints
    dq best[IK3_MAX];     // the best pose seen (escapes)
    const ik3_lim *lim[IK3_MAX]; // NULL: free
} ik3_work;

static bool finite_f(float v) { return isfinite(v) != 0; }
static bool quat_finite(sinew_quat q) { return sinew_quat_is_finite(q) != 0; }

// ---- double vector and quaternion math ----------------------------------------------------------

static inline dv v3(double x, double y, double z) { dv r = {x, y, z}; return r; }
static inline dv vadd(dv a, dv b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline dv vsub(dv a, dv b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline dv vscale(dv a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline dv vmadd(dv a, double s, dv b) { return v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z); }
static inline double vdot(dv a, dv b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline dv vcross(dv a, dv b) { return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static inline double vlen(dv a) { return sqrt(vdot(a, a)); }

static inline dq q4(double x, double y, double z, double w) { dq r = {x, y, z, w}; return r; }
static inline dq qid(void) { return q4(0.0, 0.0, 0.0, 1.0); }
static inline dq qconj(dq q) { return q4(-q.x, -q.y, -q.z, q.w); }
static inline dq qmul(dq a, dq b)
{
    return q4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
static inline dq qnormalize(dq q)
{
    const double l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(l > 0.0)) {
        return qid();
    }
    const double inv = 1.0 / l;
    return q4(q.x * inv, q.y * inv, q.z * inv, q.w * inv);
}
// v rotated by unit q.
static inline dv qrot(dq q, dv v)
{
    const dv u = v3(q.x, q.y, q.z);
    const dv t = vscale(vcross(u, v), 2.0);
    return vadd(vmadd(v, q.w, t), vcross(u, t));
}
// v rotated by the inverse of unit q.
static inline dv qrot_inv(dq q, dv v) { return qrot(qconj(q), v); }
// Unit q applied to +x: the first column of its matrix.
static inline dv qaxis(dq q)
{
    return v3(1.0 - 2.0 * (q.y * q.y + q.z * q.z), 2.0 * (q.x * q.y + q.w * q.z), 2.0 * (q.x * q.z - q.w * q.y));
}
// The minimal rotation from unit a to unit b; a half turn about a perpendicular axis when opposite.
static dq qfrom_to(dv a, dv b)
{
    const double w = 1.0 + vdot(a, b);
    if (w < 1e-12) {
        dv p = fabs(a.x) < 0.7 ? v3(0.0, -a.z, a.y) : v3(-a.y, a.x, 0.0);
        p = vscale(p, 1.0 / vlen(p));
        return q4(p.x, p.y, p.z, 0.0);
    }
    const dv c = vcross(a, b);
    return qnormalize(q4(c.x, c.y, c.z, w));
}
// The rotation by `angle` about unit axis a.
static inline dq qaxis_angle(dv a, double angle)
{
    const double s = sin(0.5 * angle);
    return q4(a.x * s, a.y * s, a.z * s, cos(0.5 * angle));
}
// The same rotation's angle scaled by t in [0, 1] (t = 1: r itself).
static dq qscale_angle(dq r, double t)
{
    if (t == 1.0) {
        return r;
    }
    if (r.w < 0.0) {
        r = q4(-r.x, -r.y, -r.z, -r.w);
    }
    const double s = sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    if (!(s > 0.0)) {
        return qid();
    }
    const double half = t * atan2(s, r.w), k = sin(half) / s;
    return q4(r.x * k, r.y * k, r.z * k, cos(half));
}
static inline dv unit_or(dv a, dv fallback)
{
    const double l = vlen(a);
    return l > 0.0 ? vscale(a, 1.0 / l) : fallback;
}

static inline dv from_f(sinew_vec3 v) { return v3(v.x, v.y, v.z); }
static inline dv from_a(const double *a) { return v3(a[0], a[1], a[2]); }
static inline dq qfrom_f(sinew_quat q) { return q4(q.x, q.y, q.z, q.w); }

// ---- limits -------------------------------------------------------------------------------------

// Twist angle of unit (or any nonzero) q about its own +x, in [-pi, pi] (ik3.h).
static double twist_of(dq q)
{
    if (q.w < 0.0) {
        q.x = -q.x;
        q.w = -q.w;
    }
    if (q.x == 0.0 && q.w == 0.0) {
        return 0.0;
    }
    return 2.0 * atan2(q.x, q.w);
}

float sinew_ik3_twist(sinew_quat rotation) { return (float)twist_of(qfrom_f(rotation)); }

static bool cone_inside(const ik3_lim *l, dv d, double margin)
{
    for (int i = 0; i < l->cone_count; ++i) {
        if (!(vdot(from_a(l->normal[i]), d) >= margin)) {
            return false;
        }
    }
    return true;
}

// The closest direction of the cone's boundary to unit d (exact: every edge's arc, corners included).
static dv cone_closest(const ik3_lim *l, dv d)
{
    const int m = l->cone_count;
    double best = -2.0;
    dv c = from_a(l->unit[0]);
    for (int i = 0; i < m; ++i) {
        const dv a = from_a(l->unit[i]), b = from_a(l->unit[i + 1 < m ? i + 1 : 0]), nn = from_a(l->normal[i]);
        const dv p = vmadd(d, -vdot(nn, d), nn); // d projected onto the edge's plane
        const double pl = vlen(p);
        if (pl > 1e-300) {
            const dv u = vscale(p, 1.0 / pl);
            if (vdot(vcross(a, u), nn) >= 0.0 && vdot(vcross(u, b), nn) >= 0.0) { // on the arc a..b
                const double s = vdot(u, d);
                if (s > best) {
                    best = s;
                    c = u;
                }
                continue;
            }
        }
        const double sa = vdot(a, d), sb = vdot(b, d);
        if (sa > best) {
            best = sa;
            c = a;
        }
        if (sb > best) {
            best = sb;
            c = b;
        }
    }
    return c;
}

// True when the twist of q is in the limit's range, to `margin` (about half the angle): the twist's
// half angle h = atan2(x, w), w >= 0, against the range's half angles a by the sign of sin(h - a).
static bool twist_inside(const ik3_lim *l, dq q, double margin)
{
    const double x = q.w < 0.0 ? -q.x : q.x, w = fabs(q.w);
    return x * l->twist_half[0] - w * l->twist_half[1] >= margin && w * l->twist_half[3] - x * l->twist_half[2] >= margin;
}

// cone_inside with no margin, first by the inscribed cap (one dot product) and only then edge by edge.
static inline bool cone_inside_quick(const ik3_lim *l, dv d)
{
    return vdot(from_a(l->center), d) >= l->cap_cos || cone_inside(l, d, 0.0);
}

// The rotation from unit a toward unit b, (a x b, 1 + a . b), NOT normalised (length
// sqrt(2 (1 + a . b))); false when they are (nearly) opposite, where qfrom_to takes a half turn.
static inline bool qfrom_to_raw(dv a, dv b, dq *r)
{
    const double w = 1.0 + vdot(a, b);
    const dv c = vcross(a, b);
    *r = q4(c.x, c.y, c.z, w);
    return w >= 1e-12;
}

// The twist of unit q clamped into the limit's range: q turned about its own +x onto the nearest
// bound when outside. Without trigonometry: with (x, w) the twist's half angle h (w >= 0) and a, b
// the range's half angles, the bound nearer on the circle is the one with the larger cos^2 of the
// half-angle difference, and the turn by (bound - twist) has half angle (a - h), whose cosine and
// sine come from the products of the two. A twist at (x, w) = 0 counts as 0, as twist_of says.
static dq clamp_twist(const ik3_lim *l, dq q)
{
    double x = q.x, w = q.w;
    if (w < 0.0) {
        x = -x;
        w = -w;
    }
    double m2 = x * x + w * w;
    if (!(m2 > 0.0)) {
        x = 0.0; // twist 0
        w = 1.0;
        m2 = 1.0;
    }
    const double clo = l->twist_half[0], slo = l->twist_half[1], chi = l->twist_half[2], shi = l->twist_half[3];
    const double dlo = w * clo + x * slo, dhi = w * chi + x * shi; // |(x, w)| cos of h - a, h - b
    const bool lo = dlo * dlo >= dhi * dhi;
    const double c = lo ? clo : chi, sn = lo ? slo : shi;
    const double inv = 1.0 / sqrt(m2);
    const double rx = (sn * w - c * x) * inv, rw = (c * w + sn * x) * inv; // sin, cos of (bound - h)
    // q * (rx, 0, 0, rw), both unit
    return q4(q.x * rw + q.w * rx, q.y * rw + q.z * rx, q.z * rw - q.y * rx, q.w * rw - q.x * rx);
}

// q (local, unit) projected into link limits (NULL: none): the direction onto the cone by the
// minimal rotation, then the twist clamped. *changed (when not NULL) tells whether it moved.
static dq limit_rotation_ex(const ik3_lim *l, dq q, bool *changed);

// limit_rotation_ex, with the common cases inlined: the direction in the cone's inscribed cap (no
// projection), then at most a twist clamp.
static inline dq limit_rotation_fast(const ik3_lim *l, dq q, bool *changed)
{
    *changed = false;
    if (l == NULL) {
        return q;
    }
    if (l->cone_count == 0 || vdot(from_a(l->center), qaxis(q)) >= l->cap_cos) {
        if (l->twist_limited && !twist_inside(l, q, 0.0)) {
            *changed = true;
            return clamp_twist(l, q);
        }
        return q;
    }
    return limit_rotation_ex(l, q, changed);
}

__attribute__((noinline)) static dq limit_rotation_ex(const ik3_lim *l, dq q, bool *changed)
{
    bool moved = false;
    if (l != NULL) {
        if (l->cone_count > 0) {
            const dv d = qaxis(q);
            if (!cone_inside_quick(l, d)) {
                q = qnormalize(qmul(qfrom_to(d, cone_closest(l, d)), q));
                moved = true;
            }
        }
        if (l->twist_limited && !twist_inside(l, q, 0.0)) {
            q = clamp_twist(l, q);
            moved = true;
        }
    }
    if (changed != NULL) {
        *changed = moved;
    }
    return q;
}

static dq limit_rotation(const ik3_lim *l, dq q)
{
    bool changed;
    return limit_rotation_fast(l, q, &changed);
}

// ---- kinematics ---------------------------------------------------------------------------------

static void forward_kinematics(ik3_work *w)
{
    dq parent = w->base_rot;
    w->p[0] = w->base;
    for (int k = 0; k < w->n; ++k) {
        w->w[k] = qmul(parent, w->q[k]);
        w->p[k + 1] = vmadd(w->p[k], w->len[k], qaxis(w->w[k]));
        parent = w->w[k];
    }
}

static double end_distance(const ik3_work *w) { return vlen(vsub(w->p[w->n], w->target)); }

static void report(const sinew_ik3_def *def, const ik3_work *w, int iteration)
{
    sinew_vec3 pts[IK3_MAX + 1];
    for (int k = 0; k <= w->n; ++k) {
        pts[k] = sinew_vec3_make((float)w->p[k].x, (float)w->p[k].y, (float)w->p[k].z);
    }
    def->on_iteration(def->user_data, iteration, pts, w->n + 1);
}

// ---- methods ------------------------------------------------------------------------------------

// One CCD sweep, last link to first: each turns by the minimal rotation aiming the end effector at
// the target, scaled by its flexibility (when `flexible`), then projected into its limits. Only the
// end effector is carried along during the sweep (the joints and frames nearer the base do not move
// until their turn); forward kinematics rebuilds the rest at the end. Needs w->w and w->p current.
// The aiming rotation is made in the world, (a x b, |a||b| + a . b) for the end effector's and
// the target's offsets a and b, and taken into the parent's frame by turning its axis only. When
// neither its scaling nor the limits changed it, the end effector lands on the line to the target
// at its old distance from the joint, with no rotation to apply.
static void ccd_sweep(ik3_work *w, bool flexible, dv aim)
{
    const int n = w->n;
    dv e = w->p[n];
    for (int k = n - 1; k >= 0; --k) {
        const double f = flexible ? w->flex[k] : 1.0;
        if (!(f > 0.0)) {
            continue;
        }
        const dq parent = k > 0 ? w->w[k - 1] : w->base_rot;
        const dv a = vsub(e, w->p[k]), b = vsub(aim, w->p[k]);
        const double la2 = vdot(a, a), lb2 = vdot(b, b);
        if (!(la2 > 1e-24) || !(lb2 > 1e-24)) {
            continue;
        }
        const double lab = sqrt(la2 * lb2), ww = lab + vdot(a, b);
        dq r;
        if (ww >= 1e-12 * lab) {
            const dv c = qrot_inv(parent, vcross(a, b));
            r = q4(c.x, c.y, c.z, ww); // |r| = sqrt(2 lab ww): normalised with the product below
        } else { // opposite: a half turn, as qfrom_to
            const double la = sqrt(la2), lb = sqrt(lb2);
            r = qfrom_to(qrot_inv(parent, vscale(a, 1.0 / la)), qrot_inv(parent, vscale(b, 1.0 / lb)));
        }
        const bool scaled = f != 1.0;
        if (scaled) {
            r = qscale_angle(qnormalize(r), f);
        }
        bool limited = false;
        dq qn = limit_rotation_fast(w->lim[k], qnormalize(qmul(r, w->q[k])), &limited);
        if (!scaled && !limited) {
            e = vmadd(w->p[k], sqrt(la2 / lb2), b);
        } else {
            // What the link really turned by, in the parent's frame, carries the end effector.
            const dq delta = qmul(qn, qconj(w->q[k]));
            e = vadd(w->p[k], qrot(parent, qrot(delta, qrot_inv(parent, a))));
        }
        w->q[k] = qn;
    }
    forward_kinematics(w);
}

// One FABRIK iteration. Backward: the end on the target, each joint toward the base at its link's
// length; link k's frame is carried to its new direction by the minimal rotation and, when the child
// k + 1 has a cone, turned so that the child's direction is inside it. Forward: the base in place,
// each link's local rotation turned (minimally) to the direction of its next joint, projected into
// its limits; the joints follow exactly (forward kinematics).
// The child's direction in link k's carried frame, W_k^-1 R^-1 b with R the minimal rotation from
// the old direction o to the new u, is made without forming R: R is the reflection across the
// plane normal to o followed by the one normal to s = o + u, so R^-1 b = H_o(H_s(b)), with
// H_s(v) = v - (v . s) s / (1 + o . u).
static void fabrik_iteration(ik3_work *w, dv aim)
{
    const int n = w->n;
    dv *p = w->p;
    dv b = qaxis(w->w[n - 1]); // direction of the link placed last
    p[n] = aim;
    for (int k = n - 1; k >= 0; --k) {
        const dv old = qaxis(w->w[k]);
        dv u = unit_or(vsub(p[k + 1], p[k]), old);
        if (k + 1 < n && w->lim[k + 1] != NULL && w->lim[k + 1]->cone_count > 0) {
            const ik3_lim *l = w->lim[k + 1];
            const double ou = 1.0 + vdot(old, u);
            bool inside = false;
            if (ou >= 1e-6) {
                const dv sv = vadd(old, u);
                const dv v1 = vmadd(b, -vdot(b, sv) / ou, sv);
                const dv v2 = vmadd(v1, -2.0 * vdot(v1, old), old);
                inside = cone_inside_quick(l, qrot_inv(w->w[k], v2));
            }
            if (!inside) {
                dq frame = qmul(qfrom_to(old, u), w->w[k]);
                const dv c0 = qrot_inv(frame, b);
                if (!cone_inside(l, c0, 0.0)) {
                    frame = qmul(frame, qconj(qfrom_to(c0, cone_closest(l, c0))));
                    u = qaxis(frame);
                }
            }
        }
        p[k] = vmadd(p[k + 1], -w->len[k], u);
        b = u;
    }
    dq parent = w->base_rot;
    p[0] = w->base;
    for (int k = 0; k < n; ++k) {
        const dv d_old = qaxis(w->q[k]);
        const dv u = unit_or(vsub(p[k + 1], p[k]), qaxis(w->w[k]));
        const dv d = qrot_inv(parent, u);
        dq r;
        if (!qfrom_to_raw(d_old, d, &r)) {
            r = qfrom_to(d_old, d);
        }
        // The quick limit test on what is known before the normalisation: the new direction is d
        // (unit), and the twist test's signs do not change with a positive scale.
        const dq rq = qmul(r, w->q[k]);
        // A twist clamp keeps the direction: only a cone projection moves the joint off u.
        const ik3_lim *l = w->lim[k];
        bool turned = false;
        dq q;
        if (l == NULL || l->cone_count == 0 || vdot(from_a(l->center), d) >= l->cap_cos) {
            q = qnormalize(rq);
            if (l != NULL && l->twist_limited && !twist_inside(l, rq, 0.0)) {
                q = clamp_twist(l, q);
            }
        } else {
            q = limit_rotation_ex(l, qnormalize(rq), &turned);
        }
        w->q[k] = q;
        w->w[k] = qmul(parent, q);
        // Not turned by its cone, the link points along u: the joint need not wait for the frame.
        p[k + 1] = vmadd(p[k], w->len[k], turned ? qaxis(w->w[k]) : u);
        parent = w->w[k];
    }
}

// The closed form for two links: the elbow in the plane of base, target and pole (or the current
// elbow), then each link turned minimally to it and projected into its limits.
static void two_bone(ik3_work *w, const sinew_ik3_def *def)
{
    const double l1 = w->len[0], l2 = w->len[1];
    const dv t = vsub(w->target, w->base);
    const double dist = vlen(t);
    const dv th = unit_or(t, unit_or(vsub(w->p[2], w->base), qaxis(w->w[0])));
    // The bend direction: the pole (or the current elbow) off the base-target line.
    dv side = v3(0.0, 0.0, 0.0);
    if (def->use_pole) {
        const dv a = vsub(from_f(def->pole), w->base);
        side = vmadd(a, -vdot(a, th), th);
    }
    if (!(vlen(side) > 1e-9 * (l1 + l2))) {
        const dv a = vsub(w->p[1], w->base);
        side = vmadd(a, -vdot(a, th), th);
    }
    if (!(vlen(side) > 1e-9 * (l1 + l2))) { // straight along the line: the base frame's y, or z
        dv a = qrot(w->base_rot, v3(0.0, 1.0, 0.0));
        side = vmadd(a, -vdot(a, th), th);
        if (!(vlen(side) > 1e-6)) {
            a = qrot(w->base_rot, v3(0.0, 0.0, 1.0));
            side = vmadd(a, -vdot(a, th), th);
        }
    }
    side = vscale(side, 1.0 / vlen(side));
    double dc = fmin(fmax(dist, fabs(l1 - l2)), l1 + l2);
    dc = fmax(dc, 1e-12 * (l1 + l2));
    double ca = (l1 * l1 + dc * dc - l2 * l2) / (2.0 * l1 * dc);
    ca = fmin(fmax(ca, -1.0), 1.0);
    const double sa = sqrt(fmax(0.0, 1.0 - ca * ca));
    const dv u0 = vadd(vscale(th, ca), vscale(side, sa));
    // Link 0 to the elbow.
    dq q = qnormalize(qmul(qfrom_to(qaxis(w->q[0]), qrot_inv(w->base_rot, u0)), w->q[0]));
    w->q[0] = limit_rotation(w->lim[0], q);
    w->w[0] = qmul(w->base_rot, w->q[0]);
    w->p[1] = vmadd(w->base, l1, qaxis(w->w[0]));
    // Link 1 at the target from where the elbow is.
    const dv u1 = unit_or(vsub(w->target, w->p[1]), qaxis(w->w[0]));
    q = qnormalize(qmul(qfrom_to(qaxis(w->q[1]), qrot_inv(w->w[0], u1)), w->q[1]));
    w->q[1] = limit_rotation(w->lim[1], q);
    forward_kinematics(w);
}

// ---- escapes ------------------------------------------------------------------------------------

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *s) { return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0); }

// The best pose turned link by link by a pseudo-random rotation of up to `kick` rad (a uniform axis),
// projected into the limits.
static void escape(ik3_work *w, uint64_t *rng, double kick)
{
    for (int k = 0; k < w->n; ++k) {
        const double z = 2.0 * uniform01(rng) - 1.0, a = 2.0 * SINEW_PI * uniform01(rng);
        const double r = sqrt(fmax(0.0, 1.0 - z * z));
        const dv axis = v3(r * cos(a), r * sin(a), z);
        dq q = qnormalize(qmul(qaxis_angle(axis, kick * uniform01(rng)), w->best[k]));
        w->q[k] = limit_rotation(w->lim[k], q);
    }
    forward_kinematics(w);
}

// The extrapolation of the aim for the next iteration. An iteration aimed at a + beta (t - e) from
// an end effector e that leaves a fraction rho of its residual t - e (a contraction, as FABRIK and
// CCD are when they converge linearly) leaves 1 - (1 - rho)(1 + beta) of it: an aim past the
// target by rho / (1 - rho) residuals would land on it. rho is estimated from the iteration just
// run, whose residual went from r0 to r1 (the signed ratio along r0, sigma, is 1 - (1 - rho)(1 +
// beta)), and only trusted when the residual shrank and kept its direction (within 25 degrees);
// the next beta is IK3_EXTRAPOLATION_SAFETY of the landing one, at most IK3_EXTRAPOLATION_MAX;
// otherwise 0 (a plain iteration). The fixed point is the same: the aim is the target once e is.
static double next_extrapolation(const ik3_work *w, dv r0, double beta, double before, double e)
{
    const dv r1 = vsub(w->target, w->p[w->n]);
    const double n0 = vdot(r0, r0), d01 = vdot(r0, r1);
    if (!(e < before) || !(d01 > 0.9 * sqrt(n0) * e)) {
        return 0.0;
    }
    const double rho = (d01 / n0 + beta) / (1.0 + beta);
    return rho < 1.0 ? fmin(IK3_EXTRAPOLATION_MAX, IK3_EXTRAPOLATION_SAFETY * rho / (1.0 - rho)) : 0.0;
}

// FABRIK's aim for a plain iteration near a solution, from its linearisation about the pose in w
// (link world directions u_0 .. u_{n-1}). With the end effector aimed at a from e, the backward
// pass moves joint k by the projection of joint k + 1's move onto u_k (to first order: a link
// pivots about its far joint), so the base joint moves by P_0 ... P_{n-1} (a - e), P_k = u_k u_k^T;
// the forward pass puts the base back and moves each next joint by the projection of the last's
// move, so the end effector lands at a - A A^T (a - e), A = P_{n-1} ... P_0. A product of such
// projections is c u_{n-1} u_0^T with c the product of the cosines u_k . u_{k+1}, so A A^T =
// c^2 u_{n-1} u_{n-1}^T: one plain iteration removes the residual r = t - e across the last link
// and leaves c^2 of its part along it (hence FABRIK's slow crawl when the chain is nearly
// straight, c^2 near 1). Aiming at a = t + c^2 / (1 - c^2) (u_{n-1} . r) u_{n-1} lands on t to
// first order; the factor is capped at IK3_EXTRAPOLATION_MAX (a straight chain cannot lengthen to
// first order at all). Limits and the terms of order |r|^2 / length are left out: iterate() uses it
// only within IK3_LINEAR_AIM_REACH of the shortest link, and the next iteration measures the rest.
static dv fabrik_linear_aim(const ik3_work *w, dv r)
{
    double c = 1.0;
    dv u = qaxis(w->w[0]);
    for (int k = 1; k < w->n; ++k) {
        const dv v = qaxis(w->w[k]);
        c *= vdot(u, v);
        u = v;
    }
    const double c2 = c * c;
    const double g = c2 < IK3_EXTRAPOLATION_MAX * (1.0 - c2) ? c2 / (1.0 - c2) : IK3_EXTRAPOLATION_MAX;
    return vmadd(w->target, g * vdot(u, r), u);
}

// Runs CCD or FABRIK from the pose in w (forward kinematics done, end effector `e` from the target)
// until `tol` or `budget` iterations, escaping local minima; leaves the best pose in w and its
// distance in *best_out. `first` numbers the iterations for on_iteration. Returns the iterations run.
static int iterate(const sinew_ik3_def *def, ik3_work *w, double e, double tol, int budget, int first, double *best_out)
{
    if (def->on_iteration != NULL && first == 0) {
        report(def, w, 0);
    }
    const bool reachable = vlen(vsub(w->target, w->base)) <= w->reach;
    double best_e = e;
    memcpy(w->best, w->q, (size_t)w->n * sizeof w->q[0]);
    double history[IK3_STALL_WINDOW]; // best_e at the last IK3_STALL_WINDOW iterations, a ring
    int since_restart = 0, escapes = 0, iterations = 0;
    bool mixed = false;
    uint64_t rng = 0x5eed1c3ull;
    double beta = 0.0; // the aim's extrapolation (IK3_EXTRAPOLATION_*)
    for (int it = 1; it <= budget && !(best_e <= tol); ++it) {
        const dv r0 = vsub(w->target, w->p[w->n]);
        const double before = e;
        if (def->method == SINEW_IK3_FABRIK) {
            // A plain iteration near a solution is aimed by FABRIK's linear model instead; the
            // extrapolation is still estimated as after a plain one (beta 0), from what it did.
            const bool linear = beta == 0.0 && e <= IK3_LINEAR_AIM_REACH * w->shortest;
            fabrik_iteration(w, linear ? fabrik_linear_aim(w, r0) : vmadd(w->target, beta, r0));
            e = end_distance(w);
            if (w->limited && !(e < 0.9 * before)) {
                ccd_sweep(w, false, w->target);
                e = end_distance(w);
            }
        } else {
            ccd_sweep(w, true, vmadd(w->target, beta, r0));
            if (mixed) {
                fabrik_iteration(w, w->target);
            }
            e = end_distance(w);
        }
        beta = next_extrapolation(w, r0, beta, before, e);
        iterations = it;
        if (def->on_iteration != NULL) {
            report(def, w, first + it);
        }
        if (e < best_e) {
            best_e = e;
            memcpy(w->best, w->q, (size_t)w->n * sizeof w->q[0]);
        }
        // Stuck: the best distance gained less than IK3_STALL_GAIN over the window. Slow: at the
        // window's rate, reaching tol would take more than IK3_STALL_HORIZON iterations.
        const int slot = since_restart % IK3_STALL_WINDOW;
        bool stuck = false, slow = false;
        if (since_restart >= IK3_STALL_WINDOW) {
            const double gain = history[slot] / best_e; // > 1 when better
            stuck = !(gain > 1.0 / (1.0 - IK3_STALL_GAIN));
            slow = !stuck && log(best_e / tol) * IK3_STALL_WINDOW > IK3_STALL_HORIZON * log(gain);
        }
        history[slot] = best_e;
        ++since_restart;
        // CCD crawling along its limits (the minimal aiming rotation blocked, a little of it kept
        // each sweep) is first given a FABRIK iteration after each sweep for the rest of the solve;
        // what is still slow after that, or stuck, escapes.
        if (slow && def->method == SINEW_IK3_CCD && !mixed) {
            mixed = true;
            beta = 0.0;
            since_restart = 0;
            continue;
        }
        if (stuck || slow) {
            if (!reachable) {
                break; // out of reach: the best pose is the answer
            }
            escape(w, &rng, fmin(SINEW_PI, IK3_KICK0 * pow(IK3_KICK_GROWTH, escapes)));
            e = end_distance(w);
            beta = 0.0;
            ++escapes;
            since_restart = 0;
            if (e < best_e) {
                best_e = e;
                memcpy(w->best, w->q, (size_t)w->n * sizeof w->q[0]);
            }
        }
    }
    if (e > best_e) {
        memcpy(w->q, w->best, (size_t)w->n * sizeof w->q[0]);
        forward_kinematics(w);
    }
    *best_out = best_e;
    return iterations;
}

// ---- validation and setup -----------------------------------------------------------------------


static bool quat_unit(sinew_quat q)
{
    const double l2 = (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w;
    return l2 >= (1.0 - IK3_UNIT_TOLERANCE) * (1.0 - IK3_UNIT_TOLERANCE) &&
           l2 <= (1.0 + IK3_UNIT_TOLERANCE) * (1.0 + IK3_UNIT_TOLERANCE);
}

sinew_ik3_limit_def sinew_default_ik3_limit_def(void)
{
    sinew_ik3_limit_def def;
    memset(&def, 0, sizeof def);
    def.twist_min = -(float)SINEW_PI;
    def.twist_max = (float)SINEW_PI;
    return def;
}

sinew_status sinew_ik3_regular_cone(float half_angle, int count, sinew_vec3 *corners)
{
    if (corners == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (!isfinite(half_angle)) {
        return SINEW_ERR_NOT_FINITE;
    }
    if (count < 3 || count > SINEW_IK3_MAX_CONE_VERTICES || !(half_angle > 0.0f && half_angle < 0.5 * SINEW_PI)) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    const double r = tan((double)half_angle);
    for (int i = 0; i < count; ++i) {
        const double a = 2.0 * SINEW_PI * i / count;
        corners[i] = sinew_vec3_make(1.0f, (float)(r * cos(a)), (float)(r * sin(a)));
    }
    return SINEW_OK;
}

// Unit corners, inward normals and center of a cone into l; false when degenerate, not convex,
// clockwise or a hemisphere or more.
static bool prepare_cone(ik3_lim *l, const sinew_vec3 *corners, int m)
{
    dv v[IK3_MAX_V], nn[IK3_MAX_V], sum = v3(0.0, 0.0, 0.0);
    for (int i = 0; i < m; ++i) {
        const dv c = from_f(corners[i]);
        const double len = vlen(c);
        if (!(len > 0.0)) {
            return false;
        }
        v[i] = vscale(c, 1.0 / len);
        sum = vadd(sum, v[i]);
    }
    for (int i = 0; i < m; ++i) {
        const dv c = vcross(v[i], v[i + 1 < m ? i + 1 : 0]);
        const double len = vlen(c);
        if (!(len > IK3_CONE_EPS)) { // coincident or opposite neighbours
            return false;
        }
        nn[i] = vscale(c, 1.0 / len);
    }
    // Every other corner strictly inside every edge's plane: convex, counter-clockwise, and (being
    // the intersection of those half-spaces around independent corners) inside an open hemisphere.
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < m; ++j) {
            if (j != i && j != (i + 1) % m && !(vdot(nn[i], v[j]) > IK3_CONE_EPS)) {
                return false;
            }
        }
    }
    const double sl = vlen(sum);
    if (!(sl > 0.0)) {
        return false;
    }
    for (int i = 0; i < m; ++i) {
        l->unit[i][0] = v[i].x;
        l->unit[i][1] = v[i].y;
        l->unit[i][2] = v[i].z;
        l->normal[i][0] = nn[i].x;
        l->normal[i][1] = nn[i].y;
        l->normal[i][2] = nn[i].z;
        l->corners[i] = corners[i];
    }
    l->cone_count = m;
    const dv c = vscale(sum, 1.0 / sl);
    l->center[0] = c.x;
    l->center[1] = c.y;
    l->center[2] = c.z;
    // The cap around the center inside every edge plane: its angular radius rho is asin of the
    // least n_i . c = s (the center's angular distance from the nearest edge's great circle). A
    // unit direction within rho - 1e-7 of the center, cos(rho - 1e-7) ~ sqrt(1 - s^2) + 1e-7 s, is
    // at least 1e-7 rad inside every edge plane (n_i . d >= sin(1e-7)): far above double rounding,
    // and above output_rotation's margin. s >= 1e-6 (the check below), so the cap is never empty.
    double s = 1.0;
    for (int i = 0; i < m; ++i) {
        s = fmin(s, vdot(nn[i], c));
    }
    l->cap_cos = s > 0.0 ? sqrt(fmax(0.0, 1.0 - s * s)) + 1e-7 * s : 2.0;
    return cone_inside(l, c, IK3_CONE_EPS);
}

sinew_status sinew_ik3_limit_init(const sinew_ik3_limit_def *def, sinew_ik3_limit *out)
{
    if (def == NULL || out == NULL || (def->cone_count > 0 && def->cone == NULL)) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (def->cone_count != 0 && (def->cone_count < 3 || def->cone_count > IK3_MAX_V)) {
        return SINEW_ERR_OUT_OF_RANGE; // before reading the corners
    }
    for (int i = 0; i < def->cone_count; ++i) {
        if (!sinew_vec3_is_finite(def->cone[i])) {
            return SINEW_ERR_NOT_FINITE;
        }
    }
    if (def->twist_limited && (!finite_f(def->twist_min) || !finite_f(def->twist_max))) {
        return SINEW_ERR_NOT_FINITE;
    }
    if ((def->twist_limited && (def->twist_min < -(float)SINEW_PI || def->twist_max > (float)SINEW_PI ||
                                def->twist_min > def->twist_max))) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    ik3_lim l;
    memset(&l, 0, sizeof l);
    l.cap_cos = 2.0; // no cone: the quick test never passes (and is never asked)
    if (def->cone_count > 0 && !prepare_cone(&l, def->cone, def->cone_count)) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    l.twist_limited = def->twist_limited;
    l.twist_min = def->twist_limited ? def->twist_min : -(float)SINEW_PI;
    l.twist_max = def->twist_limited ? def->twist_max : (float)SINEW_PI;
    l.twist_half[0] = cos(0.5 * l.twist_min);
    l.twist_half[1] = sin(0.5 * l.twist_min);
    l.twist_half[2] = cos(0.5 * l.twist_max);
    l.twist_half[3] = sin(0.5 * l.twist_max);
    l.check = IK3_LIMIT_CHECK;
    *out = l;
    return SINEW_OK;
}

// Within SINEW_MAX_COORDINATE on every axis (finite checked first).
static bool vec3_in_range(sinew_vec3 v)
{
    return fabsf(v.x) <= SINEW_MAX_COORDINATE && fabsf(v.y) <= SINEW_MAX_COORDINATE && fabsf(v.z) <= SINEW_MAX_COORDINATE;
}

static sinew_status check_chain_basics(const sinew_ik3_chain *chain)
{
    if (chain == NULL || chain->links == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (chain->count < 1 || chain->count > IK3_MAX) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    return SINEW_OK;
}

// Everything a chain holds, in the order of sinew_ik3_solve's documented errors (limits only when
// `limits`).
static sinew_status check_chain(const sinew_ik3_chain *chain, bool limits)
{
    sinew_status s = check_chain_basics(chain);
    if (s != SINEW_OK) {
        return s;
    }
    const sinew_ik3_link *L = chain->links;
    if (!sinew_vec3_is_finite(chain->base) || !quat_finite(chain->base_rotation)) {
        return SINEW_ERR_NOT_FINITE;
    }
    for (int k = 0; k < chain->count; ++k) {
        if (!finite_f(L[k].length) || !finite_f(L[k].flexibility) || !quat_finite(L[k].rotation)) {
            return SINEW_ERR_NOT_FINITE;
        }
    }
    if (!quat_unit(chain->base_rotation)) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    if (!vec3_in_range(chain->base)) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    for (int k = 0; k < chain->count; ++k) {
        const sinew_ik3_link *l = &L[k];
        if (!(l->length > 0.0f && l->length <= SINEW_MAX_COORDINATE) || !(l->flexibility >= 0.0f && l->flexibility <= 1.0f) ||
            !quat_unit(l->rotation) ||
            (limits && l->limit != NULL && l->limit->check != IK3_LIMIT_CHECK)) {
            return SINEW_ERR_OUT_OF_RANGE;
        }
    }
    return SINEW_OK;
}

static sinew_status check_def(const sinew_ik3_def *def, const sinew_ik3_chain *chain, sinew_vec3 target)
{
    if (def == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    sinew_status s = check_chain_basics(chain);
    if (s != SINEW_OK) {
        return s;
    }
    if (!sinew_vec3_is_finite(target) || !finite_f(def->tolerance) || (def->use_pole && !sinew_vec3_is_finite(def->pole))) {
        return SINEW_ERR_NOT_FINITE;
    }
    const bool known = def->method == SINEW_IK3_FABRIK || def->method == SINEW_IK3_CCD || def->method == SINEW_IK3_TWO_BONE;
    if (!known || def->max_iterations < 1 || def->max_iterations > SINEW_IK3_MAX_ITERATIONS || def->tolerance < 0.0f ||
        !vec3_in_range(target) || (def->use_pole && !vec3_in_range(def->pole)) ||
        (def->method == SINEW_IK3_TWO_BONE && chain->count != 2)) {
        return SINEW_ERR_OUT_OF_RANGE;
    }
    return SINEW_OK;
}

// ---- the answer ---------------------------------------------------------------------------------

// A float rotation in double, normalised: it is unit to float rounding (| |q|^2 - 1 | about 1e-7),
// where two Newton steps for 1 / |q| from 1 are exact to double rounding (the error squares: 4e-15,
// then 1e-29) and do not wait for a square root and a division; farther from unit (never from
// output_rotation, whose q is unit in double) it is qnormalize.
static inline dq qnormalize_f(sinew_quat f)
{
    const dq q = qfrom_f(f);
    const double m = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(fabs(m - 1.0) < 1e-6)) {
        return qnormalize(q);
    }
    double s = 1.5 - 0.5 * m;
    s = s * (1.5 - 0.5 * m * s * s);
    return q4(q.x * s, q.y * s, q.z * s, q.w * s);
}

// q rounded to float, nudged (in double, then rounded again) until the float rotation, normalised in
// double, is inside the limits by IK3_OUT_MARGIN: toward the cone's center, toward the middle of
// the twist range, by a step that doubles from 4e-8 rad (about the rounding of a unit component to
// float, 3e-8: a smaller first step mostly fails again and costs another round). A twist range
// narrower than twice the margin cannot hold it: there the nearest float is kept.
// *normalized receives the answer normalised in double.
static sinew_quat output_rotation(const ik3_lim *l, dq q, dq *normalized)
{
    sinew_quat f = sinew_quat_make((float)q.x, (float)q.y, (float)q.z, (float)q.w);
    if (l == NULL || (l->cone_count == 0 && !l->twist_limited)) {
        *normalized = qnormalize_f(f);
        return f;
    }
    double step = 4e-8;
    for (int attempt = 0; attempt < 40; ++attempt, step *= 2.0) {
        const dq g = qnormalize_f(f);
        *normalized = g;
        bool ok = true;
        if (l->cone_count > 0) {
            const dv d = qaxis(g);
            // In the inscribed cap, the direction is 1e-7 rad inside every edge: past the margin.
            if (!(vdot(from_a(l->center), d) >= l->cap_cos) && !cone_inside(l, d, IK3_OUT_MARGIN)) {
                ok = false;
                const dv dd = qaxis(q);
                const dv to = unit_or(vmadd(dd, step, from_a(l->center)), dd);
                q = qnormalize(qmul(qfrom_to(dd, to), q));
            }
        }
        if (l->twist_limited && (double)l->twist_max - l->twist_min > 2.0 * IK3_OUT_MARGIN && !twist_inside(l, g, IK3_OUT_MARGIN)) {
            if (g.x * g.x + g.w * g.w >= 0.25) {
                // The twist is well defined (the swing at most 120 degrees): turn about +x by step
                // toward the range, with no angle computed (sin and cos of a tiny half step by
                // their series, exact in double far beyond the step's own precision).
                ok = false;
                const double x = g.w < 0.0 ? -g.x : g.x, wabs = fabs(g.w);
                const bool low = x * l->twist_half[0] - wabs * l->twist_half[1] < IK3_OUT_MARGIN; // at min
                const double h = 0.5 * (low ? step : -step), h2 = h * h;
                const double rx = h2 < 1e-6 ? h - h * h2 / 6.0 : sin(h), rw = h2 < 1e-6 ? 1.0 - 0.5 * h2 + h2 * h2 / 24.0 : cos(h);
                q = qnormalize(q4(q.x * rw + q.w * rx, q.y * rw + q.z * rx, q.z * rw - q.y * rx, q.w * rw - q.x * rx));
            } else if (!(twist_of(g) >= l->twist_min + IK3_OUT_MARGIN && twist_of(g) <= l->twist_max - IK3_OUT_MARGIN)) {
                ok = false;
                const double tq = twist_of(q), mid = 0.5 * ((double)l->twist_min + l->twist_max);
                const double to = tq + (mid > tq ? step : -step);
                q = qnormalize(qmul(q, qaxis_angle(v3(1.0, 0.0, 0.0), to - tq)));
            }
        }
        if (ok) {
            break;
        }
        f = sinew_quat_make((float)q.x, (float)q.y, (float)q.z, (float)q.w);
    }
    return f;
}

// The answer of the pose in w, in float (output_rotation), into `answer`; returns the distance of
// its end effector (from those floats) to the target. w is unchanged.
static double output(const ik3_work *w, sinew_quat *answer)
{
    dq parent = w->base_rot;
    dv p = w->base;
    for (int k = 0; k < w->n; ++k) {
        dq g;
        answer[k] = output_rotation(w->lim[k], w->q[k], &g);
        parent = qmul(parent, g);
        p = vmadd(p, w->len[k], qaxis(parent));
    }
    return vlen(vsub(p, w->target));
}

sinew_ik3_link sinew_default_ik3_link(void)
{
    sinew_ik3_link l;
    memset(&l, 0, sizeof l);
    l.length = 1.0f;
    l.flexibility = 1.0f;
    l.rotation = sinew_quat_identity();
    return l;
}

sinew_ik3_def sinew_default_ik3_def(void)
{
    sinew_ik3_def def;
    memset(&def, 0, sizeof def);
    def.method = SINEW_IK3_FABRIK;
    def.max_iterations = 100;
    def.tolerance = 1e-3f;
    return def;
}

sinew_status sinew_ik3_solve(const sinew_ik3_def *def, sinew_ik3_chain *chain, sinew_vec3 target, sinew_ik3_result *out)
{
    sinew_status s = check_def(def, chain, target);
    if (s != SINEW_OK) {
        return s;
    }
    s = check_chain(chain, true);
    if (s != SINEW_OK) {
        return s;
    }
    ik3_work w;
    const int n = chain->count;
    w.n = n;
    w.base = from_f(chain->base);
    w.target = from_f(target);
    w.base_rot = qnormalize(qfrom_f(chain->base_rotation));
    w.reach = 0.0;
    w.shortest = INFINITY;
    w.limited = false;
    for (int k = 0; k < n; ++k) {
        const sinew_ik3_link *l = &chain->links[k];
        w.len[k] = l->length;
        w.flex[k] = l->flexibility;
        w.reach += w.len[k];
        w.shortest = w.len[k] < w.shortest ? w.len[k] : w.shortest;
        w.lim[k] = l->limit;
        w.limited = w.limited || l->limit != NULL;
        w.q[k] = limit_rotation(w.lim[k], qnormalize(qfrom_f(l->rotation)));
    }
    forward_kinematics(&w);
    const double tol = def->tolerance;
    int iterations = 0;
    sinew_quat answer[IK3_MAX];
    double dist = 0.0;
    if (def->method == SINEW_IK3_TWO_BONE) {
        two_bone(&w, def);
        dist = output(&w, answer);
    } else {
        // Iterate to an internal tolerance; when rounding the answer to float puts it outside `tol`,
        // tighten the internal tolerance by twice the excess and go on from there (at most 3 times).
        double tol_in = tol, e = end_distance(&w), best = e;
        for (int round = 0; round < 4; ++round) {
            if (!(e <= tol_in) && iterations < def->max_iterations) {
                iterations += iterate(def, &w, e, tol_in, def->max_iterations - iterations, iterations, &best);
            }
            dist = output(&w, answer);
            if (dist <= tol || !(best <= tol_in) || iterations >= def->max_iterations) {
                break;
            }
            tol_in = fmax(0.0, tol_in - 2.0 * (dist - tol));
            e = best;
        }
    }
    for (int k = 0; k < n; ++k) {
        chain->links[k].rotation = answer[k];
    }
    if (out != NULL) {
        out->iterations = iterations;
        out->distance = (float)dist;
        out->reached = dist <= tol;
    }
    return SINEW_OK;
}

sinew_status sinew_ik3_chain_points(const sinew_ik3_chain *chain, sinew_vec3 *points)
{
    sinew_status s = check_chain(chain, false);
    if (s != SINEW_OK) {
        return s;
    }
    if (points == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    dq parent = qnormalize(qfrom_f(chain->base_rotation));
    dv p = from_f(chain->base);
    points[0] = chain->base;
    for (int k = 0; k < chain->count; ++k) {
        parent = qmul(parent, qnormalize(qfrom_f(chain->links[k].rotation)));
        p = vmadd(p, chain->links[k].length, qaxis(parent));
        points[k + 1] = sinew_vec3_make((float)p.x, (float)p.y, (float)p.z);
    }
    return SINEW_OK;
}
