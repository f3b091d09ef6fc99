// The contact response, the last move of a Gauss-Seidel sub-step (and a pass of Jacobi's): after
// the solve, each contact that took part in it gets position-based friction and the velocity
// clamp that keeps pushing overlap out from becoming a bounce (sinew__contact_response,
// contacts.h), from the particles' packed motion records. Eight contacts at a time in AVX2 where
// the CPU has it, with the same operations in the same order as the portable loop, so the bits are
// the same on either path. Gauss-Seidel writes both ends of each contact in contact order, span
// after span over the workers as the sweeps do; Jacobi adds each end's change to its sums
// (contact_jacobi.c).
#include <string.h>

#include "world_internal.h"
#include "simd.h"

// The response pass runs on every contact of every sub-step; whether a contact needs work is a
// coin flip, so it is written without branches: guards that only ever scale a zero, 0/1 masks.

// 1 when a contact (radii summing to `sum`) took part in the solve of the sub-step, else 0:
// when the pair overlapped before it (offset o0 + rel0: where the sub-step began plus the
// displacement before the solve, which the responses do not change) or still touches after it
// (offset e). Only those respond. A pair that only came near must not: the clamp would hold it
// together, a stickiness that builds arches in a pile which later collapse (measured: bursts of
// balls at 3 m/s in a "settled" pile). (The offset before the solve cannot be had from e and the
// displacements instead: the responses of the contacts before this one changed positions and
// displacements by different amounts, and with it the pile settled measurably worse.)
SINEW_FORCE_INLINE float in_play(float o0x, float o0y, float rel0x, float rel0y, float ex, float ey, float sum)
{
    const float bx = o0x + rel0x, by = o0y + rel0y;
    const float touch = sum * (1.0f + SINEW__TOUCH_SLACK);
    return ((bx * bx + by * by < sum * sum) | (ex * ex + ey * ey < touch * touch)) ? 1.0f : 0.0f;
}

// Eight contacts' inputs, gathered, so that the arithmetic in between runs in SIMD registers.
typedef struct response_lanes {
    float ex[SINEW__LANES], ey[SINEW__LANES], o0x[SINEW__LANES], o0y[SINEW__LANES], sum[SINEW__LANES];
    float r0x[SINEW__LANES], r0y[SINEW__LANES], rx[SINEW__LANES], ry[SINEW__LANES];
    float mu_s[SINEW__LANES], mu_k[SINEW__LANES];
    float fx[SINEW__LANES], fy[SINEW__LANES], vx[SINEW__LANES], vy[SINEW__LANES], play[SINEW__LANES];
} response_lanes;

// Out of line: inlined, GCC unrolls the lane loop before it can vectorize it.
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void response_solve(response_lanes *restrict v)
{
    for (int l = 0; l < SINEW__LANES; ++l) {
        const float inv_d = 1.0f / sqrtf(v->ex[l] * v->ex[l] + v->ey[l] * v->ey[l] + SINEW__GUARD);
        sinew__contact_response(v->ex[l] * inv_d, v->ey[l] * inv_d, v->r0x[l], v->r0y[l], v->rx[l], v->ry[l],
                                v->mu_s[l], v->mu_k[l], &v->fx[l], &v->fy[l], &v->vx[l], &v->vy[l]);
        v->play[l] = in_play(v->o0x[l], v->o0y[l], v->r0x[l], v->r0y[l], v->ex[l], v->ey[l], v->sum[l]);
    }
}

// Gathers `count` contacts from `from` (the other lanes get harmless zeros) and solves them.
static void response_gather_solve(response_lanes *restrict v, const sinew__contacts *restrict k,
                                  const sinew__motion *restrict motion, int from, int count)
{
    for (int l = 0; l < count; ++l) {
        const sinew__motion *a = &motion[k->l.c[from + l].i], *b = &motion[k->l.c[from + l].j];
        v->ex[l] = b->x - a->x;
        v->ey[l] = b->y - a->y;
        v->o0x[l] = b->px - a->px;
        v->o0y[l] = b->py - a->py;
        v->sum[l] = k->l.c[from + l].lo;
        v->r0x[l] = b->dx0 - a->dx0;
        v->r0y[l] = b->dy0 - a->dy0;
        v->rx[l] = b->dx - a->dx;
        v->ry[l] = b->dy - a->dy;
        v->mu_s[l] = k->one_material ? k->one_mu_s : k->mu_s[from + l];
        v->mu_k[l] = k->one_material ? k->one_mu_k : k->mu_k[from + l];
    }
    for (int l = count; l < SINEW__LANES; ++l) {
        v->ex[l] = v->ey[l] = v->o0x[l] = v->o0y[l] = v->sum[l] = v->r0x[l] = v->r0y[l] = v->rx[l] = v->ry[l] = 0.0f;
        v->mu_s[l] = v->mu_k[l] = 0.0f;
    }
    response_solve(v);
}

// Jacobi: adds an end's changes (velocity part v, position part f) to its sums, or (held) puts
// them in e's next slot.
SINEW_FORCE_INLINE void add_response(sinew__particles *restrict p, int q, float vx, float vy, float fx, float fy,
                                     sinew__ends *e, bool held)
{
    if (held) {
        float *s = sinew__ends_take(e);
        s[0] = vx;
        s[1] = vy;
        s[2] = fx;
        s[3] = fy;
    } else {
        p->acc[q].dx += (double)vx;
        p->acc[q].dy += (double)vy;
        p->jacobi_x[q] += (double)fx;
        p->jacobi_y[q] += (double)fy;
    }
}

#if SINEW__X86

// Four columns of eight lanes in, the four values of each lane out (lane l in out[l]).
SINEW__AVX2 static inline __attribute__((always_inline)) void transpose4x8(__m256 c0, __m256 c1, __m256 c2, __m256 c3,
                                                                          __m128 out[8])
{
    const __m256 a0 = _mm256_unpacklo_ps(c0, c1), a1 = _mm256_unpackhi_ps(c0, c1);
    const __m256 a2 = _mm256_unpacklo_ps(c2, c3), a3 = _mm256_unpackhi_ps(c2, c3);
    const __m256 b0 = _mm256_shuffle_ps(a0, a2, 0x44), b1 = _mm256_shuffle_ps(a0, a2, 0xee);
    const __m256 b2 = _mm256_shuffle_ps(a1, a3, 0x44), b3 = _mm256_shuffle_ps(a1, a3, 0xee);
    out[0] = _mm256_castps256_ps128(b0);
    out[1] = _mm256_castps256_ps128(b1);
    out[2] = _mm256_castps256_ps128(b2);
    out[3] = _mm256_castps256_ps128(b3);
    out[4] = _mm256_extractf128_ps(b0, 1);
    out[5] = _mm256_extractf128_ps(b1, 1);
    out[6] = _mm256_extractf128_ps(b2, 1);
    out[7] = _mm256_extractf128_ps(b3, 1);
}

// The motion records' differences j - i of the eight contacts whose ends are ii[], jj[], one vector
// load per end, transposed: d[0..7] hold the lanes' ex, ey, rx, ry, o0x, o0y, r0x, r0y.
SINEW__AVX2 static inline __attribute__((always_inline)) void motion_differences8(const sinew__motion *restrict motion,
                                                                                 const int32_t *ii, const int32_t *jj,
                                                                                 __m256 d[SINEW__LANES])
{
    for (int l = 0; l < SINEW__LANES; ++l) {
        d[l] = _mm256_sub_ps(_mm256_load_ps(&motion[jj[l]].x), _mm256_load_ps(&motion[ii[l]].x));
    }
    sinew__transpose8(d);
}

// in_play in lanes (1 or 0), from the differences of motion_differences8, the squared offset
// after the solve e2 and the radii's sums.
SINEW__AVX2 static inline __attribute__((always_inline)) __m256 in_play8(const __m256 d[SINEW__LANES], __m256 e2, __m256 sum)
{
    const __m256 bx = _mm256_add_ps(d[4], d[6]), by = _mm256_add_ps(d[5], d[7]);
    const __m256 touch = _mm256_mul_ps(sum, _mm256_set1_ps(1.0f + SINEW__TOUCH_SLACK));
    const __m256 overlapped =
        _mm256_cmp_ps(_mm256_add_ps(_mm256_mul_ps(bx, bx), _mm256_mul_ps(by, by)), _mm256_mul_ps(sum, sum), _CMP_LT_OQ);
    const __m256 touching = _mm256_cmp_ps(e2, _mm256_mul_ps(touch, touch), _CMP_LT_OQ);
    return _mm256_and_ps(_mm256_or_ps(overlapped, touching), _mm256_set1_ps(1.0f));
}

// A block's response in lanes: its ends, the shares and the two changes (f: position, v:
// displacement) each end takes times its share.
typedef struct response8 {
    int32_t ii[SINEW__LANES], jj[SINEW__LANES];
    __m256 si, sj, fx, fy, vx, vy;
} response8;

// The response of the SINEW__LANES contacts from `from` in AVX2 registers: the loads of
// response_gather_solve, response_solve and the shares of respond_kernel, with the same IEEE
// operations in the same order, so both paths give the same bits. Each end's motion record is one
// vector load; the eight differences j - i, transposed, are the lanes' inputs. max_ps(a, 0) and
// min_ps(a, 1) are `a > 0 ? a : 0` and `a < 1 ? a : 1`, NaN included.
SINEW__AVX2 static inline __attribute__((always_inline)) void response_avx2(const sinew__particles *restrict p,
                                                                           const sinew__contacts *restrict k, int from,
                                                                           response8 *r)
{
    __m256i i, j;
    __m256 sum, hi;
    sinew__links_load8(&k->l.c[from], &i, &j, &sum, &hi);
    (void)hi; // a contact's hi is infinite
    int32_t *ii = r->ii, *jj = r->jj;
    _mm256_storeu_si256((__m256i *)ii, i);
    _mm256_storeu_si256((__m256i *)jj, j);
    __m256 d[SINEW__LANES];
    motion_differences8(p->motion, ii, jj, d);
    const __m256 ex = d[0], ey = d[1], rx = d[2], ry = d[3], r0x = d[6], r0y = d[7];
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), guard = _mm256_set1_ps(SINEW__GUARD);
    // response_solve: the normal.
    const __m256 e2 = _mm256_add_ps(_mm256_mul_ps(ex, ex), _mm256_mul_ps(ey, ey));
    const __m256 inv_d = _mm256_div_ps(one, _mm256_sqrt_ps(_mm256_add_ps(e2, guard)));
    const __m256 nx = _mm256_mul_ps(ex, inv_d), ny = _mm256_mul_ps(ey, inv_d);
    // sinew__contact_response.
    const __m256 before = _mm256_add_ps(_mm256_mul_ps(r0x, nx), _mm256_mul_ps(r0y, ny));
    const __m256 after = _mm256_add_ps(_mm256_mul_ps(rx, nx), _mm256_mul_ps(ry, ny));
    const __m256 push = _mm256_max_ps(_mm256_sub_ps(after, before), zero);
    const __m256 excess = _mm256_max_ps(_mm256_sub_ps(after, _mm256_max_ps(before, zero)), zero);
    const __m256 tx = _mm256_sub_ps(rx, _mm256_mul_ps(after, nx)), ty = _mm256_sub_ps(ry, _mm256_mul_ps(after, ny));
    const __m256 t = _mm256_sqrt_ps(_mm256_add_ps(_mm256_mul_ps(tx, tx), _mm256_mul_ps(ty, ty)));
    const __m256 mu_k = k->one_material ? _mm256_set1_ps(k->one_mu_k) : _mm256_loadu_ps(&k->mu_k[from]);
    const __m256 mu_s = k->one_material ? _mm256_set1_ps(k->one_mu_s) : _mm256_loadu_ps(&k->mu_s[from]);
    const __m256 kinetic = _mm256_min_ps(_mm256_div_ps(_mm256_mul_ps(mu_k, push), _mm256_add_ps(t, guard)), one);
    const __m256 holds = _mm256_cmp_ps(t, _mm256_mul_ps(mu_s, push), _CMP_LT_OQ);
    const __m256 neg_f = _mm256_xor_ps(_mm256_blendv_ps(kinetic, one, holds), _mm256_set1_ps(-0.0f));
    const __m256 fx = _mm256_mul_ps(neg_f, tx), fy = _mm256_mul_ps(neg_f, ty);
    const __m256 vx = _mm256_sub_ps(fx, _mm256_mul_ps(excess, nx)), vy = _mm256_sub_ps(fy, _mm256_mul_ps(excess, ny));
    const __m256 play = in_play8(d, e2, sum);
    const __m256 one_share = _mm256_set1_ps(k->one_share);
    r->si = _mm256_mul_ps(play, k->one_material ? one_share : _mm256_loadu_ps(&k->share_i[from]));
    r->sj = _mm256_mul_ps(play, k->one_material ? one_share : _mm256_loadu_ps(&k->share_j[from]));
    r->fx = fx;
    r->fy = fy;
    r->vx = vx;
    r->vy = vy;
}

// Gauss-Seidel's writes of lanes [a, b) of a block whose contacts there share no movable
// particle: each end's x, y, dx, dy (the first four values of its record) change by its lane's
// (share f, share v); an immovable end has a share of 0 and keeps its values (a block that holds
// one is fixed: it goes one contact at a time, see respond_kernel).
SINEW__AVX2 static inline __attribute__((always_inline)) void response_write_avx2(sinew__motion *restrict motion,
                                                                                 const response8 *r, int a, int b)
{
    __m128 ui[SINEW__LANES], uj[SINEW__LANES];
    transpose4x8(_mm256_mul_ps(r->si, r->fx), _mm256_mul_ps(r->si, r->fy), _mm256_mul_ps(r->si, r->vx),
                 _mm256_mul_ps(r->si, r->vy), ui);
    transpose4x8(_mm256_mul_ps(r->sj, r->fx), _mm256_mul_ps(r->sj, r->fy), _mm256_mul_ps(r->sj, r->vx),
                 _mm256_mul_ps(r->sj, r->vy), uj);
    for (int l = a; l < b; ++l) {
        _mm_store_ps(&motion[r->ii[l]].x, _mm_sub_ps(_mm_load_ps(&motion[r->ii[l]].x), ui[l]));
        _mm_store_ps(&motion[r->jj[l]].x, _mm_add_ps(_mm_load_ps(&motion[r->jj[l]].x), uj[l]));
    }
}

// Jacobi's response of a block in lanes: its ends and the eight changes per lane each end takes
// (velocity part, then position part: i's x, y, j's x, y), times 1 / max(n_i, n_j) and its share.
typedef struct jacobi_response8 {
    int32_t ii[SINEW__LANES], jj[SINEW__LANES];
    float out[8][SINEW__LANES];
} jacobi_response8;

SINEW__AVX2 static inline __attribute__((always_inline)) void jacobi_response_avx2(const sinew__particles *restrict p,
                                                                                  const sinew__contacts *restrict k,
                                                                                  int from, jacobi_response8 *o)
{
    response8 r;
    response_avx2(p, k, from, &r);
    memcpy(o->ii, r.ii, sizeof o->ii);
    memcpy(o->jj, r.jj, sizeof o->jj);
    const __m256 share = _mm256_min_ps(sinew__links_gather8(p->inv_n, &k->l.c[from], false),
                                       sinew__links_gather8(p->inv_n, &k->l.c[from], true));
    const __m256 si = _mm256_mul_ps(r.si, share), sj = _mm256_mul_ps(r.sj, share);
    _mm256_storeu_ps(o->out[0], _mm256_mul_ps(si, r.vx));
    _mm256_storeu_ps(o->out[1], _mm256_mul_ps(si, r.vy));
    _mm256_storeu_ps(o->out[2], _mm256_mul_ps(sj, r.vx));
    _mm256_storeu_ps(o->out[3], _mm256_mul_ps(sj, r.vy));
    _mm256_storeu_ps(o->out[4], _mm256_mul_ps(si, r.fx));
    _mm256_storeu_ps(o->out[5], _mm256_mul_ps(si, r.fy));
    _mm256_storeu_ps(o->out[6], _mm256_mul_ps(sj, r.fx));
    _mm256_storeu_ps(o->out[7], _mm256_mul_ps(sj, r.fy));
}

// A Jacobi block's changes added to both ends' sums, in lane order (or held, as e says).
SINEW_FORCE_INLINE void jacobi_response_write(sinew__particles *restrict p, const jacobi_response8 *o, sinew__ends *e,
                                              unsigned held)
{
    const int32_t *ii = o->ii, *jj = o->jj;
    const float(*out)[SINEW__LANES] = o->out;
    if (held != 0u) { // (subtracting a value is adding its negation, to the bit)
        for (int l = 0; l < SINEW__LANES; ++l) {
            add_response(p, ii[l], -out[0][l], -out[1][l], -out[4][l], -out[5][l], e, sinew__ends_held(held, l, false));
            add_response(p, jj[l], out[2][l], out[3][l], out[6][l], out[7][l], e, sinew__ends_held(held, l, true));
        }
        return;
    }
    sinew__jacobi_sum *restrict acc = p->acc;
    double *restrict pos_x = p->jacobi_x, *restrict pos_y = p->jacobi_y;
    for (int l = 0; l < SINEW__LANES; ++l) {
        acc[ii[l]].dx -= (double)out[0][l];
        acc[ii[l]].dy -= (double)out[1][l];
        acc[jj[l]].dx += (double)out[2][l];
        acc[jj[l]].dy += (double)out[3][l];
        pos_x[ii[l]] -= (double)out[4][l];
        pos_y[ii[l]] -= (double)out[5][l];
        pos_x[jj[l]] += (double)out[6][l];
        pos_y[jj[l]] += (double)out[7][l];
    }
}

// A whole block of SINEW__LANES contacts from `from` (sharing no movable particle unless
// Jacobi, whose block adds its changes, times 1 / max(n_i, n_j), to both ends' sums, or holds
// them as e says).
SINEW__AVX2 static void respond_block_avx2(sinew__particles *restrict p, const sinew__contacts *restrict k, int from,
                                           bool jacobi, sinew__ends *e)
{
    if (!jacobi) {
        response8 r;
        response_avx2(p, k, from, &r);
        response_write_avx2(p->motion, &r, 0, SINEW__LANES);
        return;
    }
    jacobi_response8 o;
    jacobi_response_avx2(p, k, from, &o);
    jacobi_response_write(p, &o, e, sinew__ends_block(e, from / SINEW__LANES));
}

// Two Jacobi blocks: both computed before either is added (the response only reads the motion
// records), so that their chains of loads, roots and divisions overlap.
SINEW__AVX2 static void respond_two_jacobi_avx2(sinew__particles *restrict p, const sinew__contacts *restrict k, int from,
                                                sinew__ends *e)
{
    jacobi_response8 a, b;
    jacobi_response_avx2(p, k, from, &a);
    jacobi_response_avx2(p, k, from + SINEW__LANES, &b);
    jacobi_response_write(p, &a, e, sinew__ends_block(e, from / SINEW__LANES));
    jacobi_response_write(p, &b, e, sinew__ends_block(e, from / SINEW__LANES + 1));
}

// The run [a, b) of a Gauss-Seidel block whose contacts share a movable particle (see
// sinew__block_runs): all eight lanes computed, the run's written.
SINEW__AVX2 static void respond_run_avx2(sinew__particles *restrict p, const sinew__contacts *restrict k, int first,
                                         int a, int b)
{
    response8 r;
    response_avx2(p, k, first, &r);
    response_write_avx2(p->motion, &r, a, b);
}

// Two paired blocks (Gauss-Seidel; see SINEW__BLOCK_FREE_PAIRED): both computed before either is
// written, so that their chains of roots and divisions overlap (as project_two_avx2's).
SINEW__AVX2 static void respond_two_avx2(sinew__particles *restrict p, const sinew__contacts *restrict k, int from)
{
    response8 a, b;
    response_avx2(p, k, from, &a);
    response_avx2(p, k, from + SINEW__LANES, &b);
    response_write_avx2(p->motion, &a, 0, SINEW__LANES);
    response_write_avx2(p->motion, &b, 0, SINEW__LANES);
}
#endif

// The response of the contacts of blocks [b0, b1), in order (Jacobi: ends held as e says).
SINEW_FORCE_INLINE void respond_kernel(sinew_world *world, bool jacobi, int b0, int b1, sinew__ends *e)
{
    const sinew__contacts *k = &world->contacts;
    sinew__particles *p = &world->particles;
    sinew__motion *restrict motion = p->motion;
    const float *restrict inv_n = p->inv_n;
    const float *restrict share_i = k->share_i, *restrict share_j = k->share_j;
    const int n = k->l.count;
    for (int first = b0 * SINEW__LANES; first < n && first < b1 * SINEW__LANES; first += SINEW__LANES) {
        // A block goes together when its contacts share no movable particle (Jacobi: always); a
        // full block that does (Gauss-Seidel, where one colour ends and the next begins) goes run
        // after run (sinew__block_runs), and a fixed block or the last partial one contact after
        // contact. The same bits every way: a lane computes what one contact alone would.
        const int lanes = n - first < SINEW__LANES ? n - first : SINEW__LANES;
        const uint8_t kind = k->l.block_free[first / SINEW__LANES];
        const bool together = lanes == SINEW__LANES && (jacobi || sinew__block_together(kind));
        const bool fixed = !jacobi && (kind & SINEW__BLOCK_FIXED) != 0;
        const unsigned starts = together ? 1u
                                : !jacobi && !fixed && lanes == SINEW__LANES ? sinew__block_runs(&k->l.c[first])
                                                                             : 0xffu;
        for (int a = 0, b; a < lanes; a = b) {
            b = sinew__run_end(starts, a);
            const int from = first + a, count = b - a;
#if SINEW__X86
            if (together && world->avx2) {
                const int block = first / SINEW__LANES;
                if (!jacobi && kind == SINEW__BLOCK_FREE_PAIRED && block + 1 < b1) {
                    respond_two_avx2(p, k, from);
                    first += SINEW__LANES; // (both taken)
                    continue;
                }
                if (jacobi && block + 1 < b1 && first + 2 * SINEW__LANES <= n) {
                    respond_two_jacobi_avx2(p, k, from, e);
                    first += SINEW__LANES; // (both taken)
                    continue;
                }
                respond_block_avx2(p, k, from, jacobi, e);
                continue;
            }
            if (count > 1 && world->avx2) { // (a run of a shared block)
                respond_run_avx2(p, k, first, a, b);
                continue;
            }
#endif
            response_lanes v;
            response_gather_solve(&v, k, motion, from, count);
            for (int l = 0; l < count; ++l) {
                const int i = k->l.c[from + l].i, j = k->l.c[from + l].j;
                float si = v.play[l] * (k->one_material ? k->one_share : share_i[from + l]);
                float sj = v.play[l] * (k->one_material ? k->one_share : share_j[from + l]);
                if (jacobi) { // (subtracting a value is adding its negation, to the bit)
                    const float share = inv_n[i] < inv_n[j] ? inv_n[i] : inv_n[j];
                    si *= share;
                    sj *= share;
                    const unsigned held = sinew__ends_block(e, (from + l) / SINEW__LANES);
                    const int lane = (from + l) % SINEW__LANES;
                    add_response(p, i, -(si * v.vx[l]), -(si * v.vy[l]), -(si * v.fx[l]), -(si * v.fy[l]), e,
                                 sinew__ends_held(held, lane, false));
                    add_response(p, j, sj * v.vx[l], sj * v.vy[l], sj * v.fx[l], sj * v.fy[l], e,
                                 sinew__ends_held(held, lane, true));
                } else { // (in a fixed block an immovable end, share 0, is not written: SINEW__BLOCK_FIXED)
                    if (!fixed || share_i[from + l] > 0.0f) {
                        motion[i].x -= si * v.fx[l];
                        motion[i].y -= si * v.fy[l];
                        motion[i].dx -= si * v.vx[l];
                        motion[i].dy -= si * v.vy[l];
                    }
                    if (!fixed || share_j[from + l] > 0.0f) {
                        motion[j].x += sj * v.fx[l];
                        motion[j].y += sj * v.fy[l];
                        motion[j].dx += sj * v.vx[l];
                        motion[j].dy += sj * v.vy[l];
                    }
                }
            }
        }
    }
}

static void respond_task(int start, int end, int worker, void *context)
{
    (void)worker;
    const sinew__span_sweep *s = context;
    respond_kernel(s->context, false, s->first + start, s->first + end, NULL);
}

void sinew__contacts_respond_range(sinew_world *world, int from, int to, sinew__ends *e)
{
    respond_kernel(world, true, from / SINEW__LANES, (to + SINEW__LANES - 1) / SINEW__LANES, e);
}

void sinew__contacts_respond(sinew_world *world)
{
    sinew__links *l = &world->contacts.l;
    const int blocks = (l->count + SINEW__LANES - 1) / SINEW__LANES;
    if (sinew__links_spans_split(world, l)) {
        // Gauss-Seidel writes both ends of each contact, as the sweeps do: span after span, each
        // span's blocks over the workers.
        sinew__span_sweep s = {0, world};
        sinew__links_sweep_spans(world, l, false, respond_task, &s);
    } else {
        respond_kernel(world, false, 0, blocks, NULL);
    }
}

#if SINEW__X86
// sinew__contacts_count_range's full blocks in AVX2: in_play of eight contacts at once (the
// response's loads and test), then each one's 1 or 0 added to both ends in contact order: the same
// bits.
// Contacts [first, to) (first a multiple of SINEW__LANES); returns where its partial block starts.
// in_play of the eight contacts from `from`, into play.
SINEW__AVX2 static inline __attribute__((always_inline)) void play8(const sinew_world *world, int from,
                                                                   float play[SINEW__LANES])
{
    __m256i i, j;
    __m256 sum, hi;
    sinew__links_load8(&world->contacts.l.c[from], &i, &j, &sum, &hi);
    int32_t ii[SINEW__LANES], jj[SINEW__LANES];
    _mm256_storeu_si256((__m256i *)ii, i);
    _mm256_storeu_si256((__m256i *)jj, j);
    __m256 d[SINEW__LANES];
    motion_differences8(world->particles.motion, ii, jj, d);
    const __m256 e2 = _mm256_add_ps(_mm256_mul_ps(d[0], d[0]), _mm256_mul_ps(d[1], d[1]));
    _mm256_storeu_ps(play, in_play8(d, e2, sum));
}

SINEW__AVX2 static int count_in_play_avx2(sinew_world *world, int first, int to, sinew__ends *e)
{
    const sinew__distance *c = world->contacts.l.c;
    float *restrict inv_n = world->particles.inv_n;
    const int full = first + (to - first) / SINEW__LANES * SINEW__LANES;
    int from = first;
    for (; from + 2 * SINEW__LANES <= full; from += 2 * SINEW__LANES) { // two blocks' tests, then their counts
        float a[SINEW__LANES], b[SINEW__LANES];
        play8(world, from, a);
        play8(world, from + SINEW__LANES, b);
        sinew__ends_count8(inv_n, &c[from], a, e, sinew__ends_block(e, from / SINEW__LANES));
        sinew__ends_count8(inv_n, &c[from + SINEW__LANES], b, e, sinew__ends_block(e, from / SINEW__LANES + 1));
    }
    if (from < full) {
        float a[SINEW__LANES];
        play8(world, from, a);
        sinew__ends_count8(inv_n, &c[from], a, e, sinew__ends_block(e, from / SINEW__LANES));
    }
    return full;
}
#endif

void sinew__contacts_count_range(sinew_world *world, int from, int to, sinew__ends *e)
{
    const sinew__contacts *k = &world->contacts;
    const sinew__motion *motion = world->particles.motion;
    float *inv_n = world->particles.inv_n;
#if SINEW__X86
    if (world->avx2) {
        from = count_in_play_avx2(world, from, to, e);
    }
#endif
    for (int m = from; m < to; ++m) {
        const int i = k->l.c[m].i, j = k->l.c[m].j;
        const sinew__motion *a = &motion[i], *b = &motion[j];
        const float touching = in_play(b->px - a->px, b->py - a->py, b->dx0 - a->dx0, b->dy0 - a->dy0, b->x - a->x,
                                       b->y - a->y, k->l.c[m].lo);
        const unsigned held = sinew__ends_block(e, m / SINEW__LANES);
        sinew__ends_count(inv_n, i, touching, e, sinew__ends_held(held, m % SINEW__LANES, false));
        sinew__ends_count(inv_n, j, touching, e, sinew__ends_held(held, m % SINEW__LANES, true));
    }
}

