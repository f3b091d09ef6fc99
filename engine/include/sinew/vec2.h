// sinew: 2D vector math as static inline value functions (float).
#pragma once

#include <float.h>
#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Pi, as a double literal: (float)SINEW_PI where a float is wanted.
#define SINEW_PI 3.14159265358979323846

/// A 2D vector or point, in metres unless a field says otherwise.
typedef struct sinew_vec2 {
    float x, y;
} sinew_vec2;

/// Constructs a vector.
static inline sinew_vec2 sinew_vec2_make(float x, float y) { sinew_vec2 v = {x, y}; return v; }
/// a + b
static inline sinew_vec2 sinew_vec2_add(sinew_vec2 a, sinew_vec2 b) { return sinew_vec2_make(a.x + b.x, a.y + b.y); }
/// a - b
static inline sinew_vec2 sinew_vec2_sub(sinew_vec2 a, sinew_vec2 b) { return sinew_vec2_make(a.x - b.x, a.y - b.y); }
/// s * v
static inline sinew_vec2 sinew_vec2_scale(sinew_vec2 v, float s) { return sinew_vec2_make(v.x * s, v.y * s); }
/// a + s * b
static inline sinew_vec2 sinew_vec2_mul_add(sinew_vec2 a, float s, sinew_vec2 b) { return sinew_vec2_make(a.x + s * b.x, a.y + s * b.y); }
/// Dot product.
static inline float sinew_vec2_dot(sinew_vec2 a, sinew_vec2 b) { return a.x * b.x + a.y * b.y; }
/// 2D cross product (z of the 3D cross): a.x * b.y - a.y * b.x.
static inline float sinew_vec2_cross(sinew_vec2 a, sinew_vec2 b) { return a.x * b.y - a.y * b.x; }
/// Squared length.
static inline float sinew_vec2_length_sq(sinew_vec2 v) { return v.x * v.x + v.y * v.y; }
/// Length.
static inline float sinew_vec2_length(sinew_vec2 v) { return sqrtf(v.x * v.x + v.y * v.y); }
/// Distance between two points.
static inline float sinew_vec2_distance(sinew_vec2 a, sinew_vec2 b) { return sinew_vec2_length(sinew_vec2_sub(b, a)); }
/// Linear interpolation a + t (b - a).
static inline sinew_vec2 sinew_vec2_lerp(sinew_vec2 a, sinew_vec2 b, float t) { return sinew_vec2_make(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)); }
/// Counter-clockwise perpendicular (-y, x).
static inline sinew_vec2 sinew_vec2_perp(sinew_vec2 v) { return sinew_vec2_make(-v.y, v.x); }
/// Unit vector along v, or (0, 0) when v is zero or not finite. A vector so short (or so long)
/// that its squared length leaves float's normal range is scaled by its largest component first,
/// so any other v gives a unit vector.
static inline sinew_vec2 sinew_vec2_normalize(sinew_vec2 v)
{
    const float len2 = v.x * v.x + v.y * v.y;
    if (len2 >= FLT_MIN && len2 <= FLT_MAX) {
        return sinew_vec2_scale(v, 1.0f / sqrtf(len2));
    }
    const float ax = fabsf(v.x), ay = fabsf(v.y), m = ax > ay ? ax : ay;
    if (!(m > 0.0f && m <= FLT_MAX && ax <= FLT_MAX && ay <= FLT_MAX)) { // zero, infinite or NaN
        return sinew_vec2_make(0.0f, 0.0f);
    }
    const sinew_vec2 u = sinew_vec2_make(v.x / m, v.y / m); // (a division: 1 / m may overflow)
    return sinew_vec2_scale(u, 1.0f / sqrtf(u.x * u.x + u.y * u.y));
}
/// True when both components are finite (not NaN, not infinite).
static inline int sinew_vec2_is_finite(sinew_vec2 v) { return isfinite(v.x) && isfinite(v.y); }

#ifdef __cplusplus
}
#endif
