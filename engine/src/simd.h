// AVX2 helpers for the files with SIMD kernels (links.c, contact.c, contact_response.c,
// distance_jacobi.c, particle.c), and only those: <immintrin.h> stays out of the rest of the
// engine. Never installed.
#pragma once

#include "links.h"

#if SINEW__X86
#include <immintrin.h>

// The eight links from c, transposed into lanes: unpacking {i, j, lo, hi} yields lanes
// 0 2 4 6 1 3 5 7, which one permutation puts back.
SINEW__AVX2 static inline __attribute__((always_inline)) void sinew__links_load8(const sinew__distance *c, __m256i *i,
                                                                                 __m256i *j, __m256 *lo, __m256 *hi)
{
    const __m256i *v = (const __m256i *)c;
    const __m256i c01 = _mm256_loadu_si256(v), c23 = _mm256_loadu_si256(v + 1);
    const __m256i c45 = _mm256_loadu_si256(v + 2), c67 = _mm256_loadu_si256(v + 3);
    const __m256i ij_lo = _mm256_unpacklo_epi32(c01, c23), ij_hi = _mm256_unpacklo_epi32(c45, c67);
    const __m256i lh_lo = _mm256_unpackhi_epi32(c01, c23), lh_hi = _mm256_unpackhi_epi32(c45, c67);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    *i = _mm256_permutevar8x32_epi32(_mm256_unpacklo_epi64(ij_lo, ij_hi), order);
    *j = _mm256_permutevar8x32_epi32(_mm256_unpackhi_epi64(ij_lo, ij_hi), order);
    *lo = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(_mm256_unpacklo_epi64(lh_lo, lh_hi), order));
    *hi = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(_mm256_unpackhi_epi64(lh_lo, lh_hi), order));
}

// base[c[l].i] (or base[c[l].j], `j_end`) for the eight links from c, as eight scalar loads put
// into one vector: on AMD's Zen 3 cores the gather instruction costs more than that (the
// 10,000-ball pile at 8 x 4 ran 1.3x faster with its block kernel's gathers replaced so).
SINEW__AVX2 static inline __attribute__((always_inline)) __m256 sinew__links_gather8(const float *base,
                                                                                    const sinew__distance *c, bool j_end)
{
    if (j_end) {
        return _mm256_setr_ps(base[c[0].j], base[c[1].j], base[c[2].j], base[c[3].j], base[c[4].j], base[c[5].j],
                              base[c[6].j], base[c[7].j]);
    }
    return _mm256_setr_ps(base[c[0].i], base[c[1].i], base[c[2].i], base[c[3].i], base[c[4].i], base[c[5].i],
                          base[c[6].i], base[c[7].i]);
}

// (x, y) of the eight links' i (or j, `j_end`) ends from xy, the positions packed in pairs
// (xy[2 q], xy[2 q + 1]): eight 8-byte loads, where x and y apart take sixteen 4-byte ones. The
// pairs are loaded and stored as __m64, whose type may alias the floats they are read as elsewhere.
SINEW__AVX2 static inline __attribute__((always_inline)) void sinew__links_gather8_xy(const float *xy,
                                                                                      const sinew__distance *c,
                                                                                      bool j_end, __m256 *x, __m256 *y)
{
    __m128 p[4];
    for (int h = 0; h < 4; ++h) {
        const int a = j_end ? c[2 * h].j : c[2 * h].i, b = j_end ? c[2 * h + 1].j : c[2 * h + 1].i;
        p[h] = _mm_loadh_pi(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)(xy + 2 * a))),
                            (const __m64 *)(const void *)(xy + 2 * b));
    }
    const __m256 lo = _mm256_insertf128_ps(_mm256_castps128_ps256(p[0]), p[2], 1); // x0 y0 x1 y1 | x4 y4 x5 y5
    const __m256 hi = _mm256_insertf128_ps(_mm256_castps128_ps256(p[1]), p[3], 1); // x2 y2 x3 y3 | x6 y6 x7 y7
    *x = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    *y = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
}

// Stores the eight lanes' (x, y) into xy at the i (or j, `j_end`) ends of the eight links.
SINEW__AVX2 static inline __attribute__((always_inline)) void sinew__links_scatter8_xy(float *xy,
                                                                                       const sinew__distance *c,
                                                                                       bool j_end, __m256 x, __m256 y)
{
    const __m256 a = _mm256_unpacklo_ps(x, y), b = _mm256_unpackhi_ps(x, y); // x0 y0 x1 y1 | x4 y4 x5 y5, ...
    const __m128 p[4] = {_mm256_castps256_ps128(a), _mm256_castps256_ps128(b), _mm256_extractf128_ps(a, 1),
                         _mm256_extractf128_ps(b, 1)};
    for (int h = 0; h < 4; ++h) {
        const int l0 = 2 * h, l1 = 2 * h + 1;
        _mm_storel_pi((__m64 *)(void *)(xy + 2 * (j_end ? c[l0].j : c[l0].i)), p[h]);
        _mm_storeh_pi((__m64 *)(void *)(xy + 2 * (j_end ? c[l1].j : c[l1].i)), p[h]);
    }
}

// Transposes eight rows of eight floats in place: row l holding lane l's eight values becomes
// row c holding value c of every lane, and back.
SINEW__AVX2 static inline __attribute__((always_inline)) void sinew__transpose8(__m256 r[8])
{
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee);
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee);
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee);
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// clamp(d, lo, hi) as sinew__link_error computes it (`d < lo ? lo : (d > hi ? hi : d)`), NaN included.
// sinew__apart on eight lanes.
SINEW__AVX2 static inline __attribute__((always_inline)) __m256 sinew__apart8(__m256 *dx, __m256 *dy)
{
    const __m256 apart = _mm256_set1_ps(SINEW__APART), apart2 = _mm256_set1_ps(SINEW__APART * SINEW__APART);
    const __m256 d2 = _mm256_add_ps(_mm256_mul_ps(*dx, *dx), _mm256_mul_ps(*dy, *dy));
    const __m256 together = _mm256_cmp_ps(d2, apart2, _CMP_LT_OQ);
    *dx = _mm256_andnot_ps(together, *dx);
    *dy = _mm256_blendv_ps(*dy, apart, together);
    return _mm256_blendv_ps(d2, apart2, together);
}

SINEW__AVX2 static inline __attribute__((always_inline)) __m256 sinew__clamp8(__m256 d, __m256 lo, __m256 hi)
{
    const __m256 upper = _mm256_blendv_ps(d, hi, _mm256_cmp_ps(d, hi, _CMP_GT_OQ));
    return _mm256_blendv_ps(upper, lo, _mm256_cmp_ps(d, lo, _CMP_LT_OQ));
}
#endif
