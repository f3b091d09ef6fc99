// sinew: 3D vectors and rotation quaternions as static inline value functions (float), for the 3D
// IK chain solver (ik3.h).
//
// A quaternion q = (x, y, z, w) = w + xi + yj + zk rotates a vector v as q v q* (Hamilton
// convention, right-handed, counter-clockwise about the axis when it points at you). Products
// compose right to left: sinew_quat_mul(a, b) rotates by b first, then by a; so a child's world
// rotation is sinew_quat_mul(parent_world, child_local).
#pragma once

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SINEW_PI
/// Pi, as a double literal: (float)SINEW_PI where a float is wanted.
#define SINEW_PI 3.14159265358979323846
#endif

/// A 3D vector or point, in metres unless a field says otherwise.
typedef struct sinew_vec3 {
    float x, y, z;
} sinew_vec3;

/// A rotation quaternion (x, y, z, w): w is the scalar part; unit length for a rotation.
typedef struct sinew_quat {
    float x, y, z, w;
} sinew_quat;

/// Constructs a vector.
static inline sinew_vec3 sinew_vec3_make(float x, float y, float z) { sinew_vec3 v = {x, y, z}; return v; }
/// a + b
static inline sinew_vec3 sinew_vec3_add(sinew_vec3 a, sinew_vec3 b) { return sinew_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
/// a - b
static inline sinew_vec3 sinew_vec3_sub(sinew_vec3 a, sinew_vec3 b) { return sinew_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
/// s * v
static inline sinew_vec3 sinew_vec3_scale(sinew_vec3 v, float s) { return sinew_vec3_make(v.x * s, v.y * s, v.z * s); }
/// a + s * b
static inline sinew_vec3 sinew_vec3_mul_add(sinew_vec3 a, float s, sinew_vec3 b) { return sinew_vec3_make(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z); }
/// -v
static inline sinew_vec3 sinew_vec3_neg(sinew_vec3 v) { return sinew_vec3_make(-v.x, -v.y, -v.z); }
/// Dot product.
static inline float sinew_vec3_dot(sinew_vec3 a, sinew_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
/// Cross product a x b (right-handed).
static inline sinew_vec3 sinew_vec3_cross(sinew_vec3 a, sinew_vec3 b)
{
    return sinew_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
/// Squared length.
static inline float sinew_vec3_length_sq(sinew_vec3 v) { return v.x * v.x + v.y * v.y + v.z * v.z; }
/// Length.
static inline float sinew_vec3_length(sinew_vec3 v) { return sqrtf(v.x * v.x + v.y * v.y + v.z * v.z); }
/// Distance between two points.
static inline float sinew_vec3_distance(sinew_vec3 a, sinew_vec3 b) { return sinew_vec3_length(sinew_vec3_sub(b, a)); }
/// Linear interpolation a + t (b - a).
static inline sinew_vec3 sinew_vec3_lerp(sinew_vec3 a, sinew_vec3 b, float t)
{
    return sinew_vec3_make(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z));
}
/// Unit vector along v, or (0, 0, 0) when v has zero length.
static inline sinew_vec3 sinew_vec3_normalize(sinew_vec3 v)
{
    float len = sinew_vec3_length(v);
    return len > 0.0f ? sinew_vec3_scale(v, 1.0f / len) : sinew_vec3_make(0.0f, 0.0f, 0.0f);
}
/// True when every component is finite (not NaN, not infinite).
static inline int sinew_vec3_is_finite(sinew_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/// Constructs a quaternion from its components (w is the scalar part).
static inline sinew_quat sinew_quat_make(float x, float y, float z, float w) { sinew_quat q = {x, y, z, w}; return q; }
/// The identity rotation (0, 0, 0, 1).
static inline sinew_quat sinew_quat_identity(void) { return sinew_quat_make(0.0f, 0.0f, 0.0f, 1.0f); }
/// Hamilton product a b: the rotation b, then a.
static inline sinew_quat sinew_quat_mul(sinew_quat a, sinew_quat b)
{
    return sinew_quat_make(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                           a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                           a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                           a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
/// Conjugate (-x, -y, -z, w): the inverse rotation of a unit quaternion.
static inline sinew_quat sinew_quat_conjugate(sinew_quat q) { return sinew_quat_make(-q.x, -q.y, -q.z, q.w); }
/// Four-component dot product.
static inline float sinew_quat_dot(sinew_quat a, sinew_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
/// Length (1 for a rotation).
static inline float sinew_quat_length(sinew_quat q) { return sqrtf(sinew_quat_dot(q, q)); }
/// q scaled to unit length, or the identity when q has zero length.
static inline sinew_quat sinew_quat_normalize(sinew_quat q)
{
    float len = sinew_quat_length(q);
    if (!(len > 0.0f)) {
        return sinew_quat_identity();
    }
    float inv = 1.0f / len;
    return sinew_quat_make(q.x * inv, q.y * inv, q.z * inv, q.w * inv);
}
/// v rotated by the unit quaternion q (q v q*).
static inline sinew_vec3 sinew_quat_rotate(sinew_quat q, sinew_vec3 v)
{
    // v + 2w (u x v) + 2 u x (u x v), u = (x, y, z)
    sinew_vec3 u = sinew_vec3_make(q.x, q.y, q.z);
    sinew_vec3 t = sinew_vec3_scale(sinew_vec3_cross(u, v), 2.0f);
    return sinew_vec3_add(sinew_vec3_mul_add(v, q.w, t), sinew_vec3_cross(u, t));
}
/// The rotation by `angle` radians about the unit vector `axis` (counter-clockwise seen from its tip).
static inline sinew_quat sinew_quat_from_axis_angle(sinew_vec3 axis, float angle)
{
    float s = sinf(0.5f * angle);
    return sinew_quat_make(axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle));
}
/// The minimal rotation taking unit vector a to unit vector b (about a x b); for opposite vectors a
/// half turn about an axis perpendicular to a.
static inline sinew_quat sinew_quat_from_to(sinew_vec3 a, sinew_vec3 b)
{
    // (a x b, 1 + a.b) normalised is the rotation by the angle between them: its half angle.
    float w = 1.0f + sinew_vec3_dot(a, b);
    if (w < 1e-6f) { // opposite: any axis perpendicular to a
        sinew_vec3 p = fabsf(a.x) < 0.7f ? sinew_vec3_make(0.0f, -a.z, a.y) : sinew_vec3_make(-a.y, a.x, 0.0f);
        p = sinew_vec3_normalize(p);
        return sinew_quat_make(p.x, p.y, p.z, 0.0f);
    }
    sinew_vec3 c = sinew_vec3_cross(a, b);
    return sinew_quat_normalize(sinew_quat_make(c.x, c.y, c.z, w));
}
/// Normalised linear interpolation from a to b by t in [0, 1], along the shorter arc (b's sign flipped
/// when a . b < 0).
static inline sinew_quat sinew_quat_nlerp(sinew_quat a, sinew_quat b, float t)
{
    float s = sinew_quat_dot(a, b) < 0.0f ? -t : t;
    return sinew_quat_normalize(sinew_quat_make(a.x + (s * b.x - t * a.x), a.y + (s * b.y - t * a.y),
                                                a.z + (s * b.z - t * a.z), a.w + (s * b.w - t * a.w)));
}
/// True when every component is finite.
static inline int sinew_quat_is_finite(sinew_quat q) { return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w); }

#ifdef __cplusplus
}
#endif
