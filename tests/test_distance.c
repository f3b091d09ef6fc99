// Distance constraints: one projection against Juckett's equations, worked by hand.
//   d = |xj - xi|, u = (rest - d) (xj - xi) / d, xi -= u wi / (wi + wj), xj += u wj / (wi + wj).
// A world with no gravity, one sub-step and one iteration makes sinew_world_step run exactly one
// projection on particles at rest (integration leaves resting particles where they are).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "world_internal.h"

static sinew_world *one_projection_world(sinew_solver_mode mode, float omega)
{
    sinew_world_def def = sinew_default_world_def();
    def.gravity = sinew_vec2_make(0.0f, 0.0f);
    def.solver.substeps = 1;
    def.solver.iterations = 1;
    def.solver.mode = mode;
    def.solver.jacobi_omega = omega;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    return w;
}

typedef struct pair {
    sinew_particle_id a, b;
    sinew_distance_id link;
} pair;

static pair make_pair(sinew_world *w, sinew_vec2 pa, sinew_vec2 pb, float wa, float wb, float rest,
                      sinew_distance_mode mode, float stiffness, float compliance)
{
    pair p;
    p.a = make_particle(w, pa.x, pa.y, wa);
    p.b = make_particle(w, pb.x, pb.y, wb);
    sinew_distance_def d = sinew_default_distance_def();
    d.a = p.a;
    d.b = p.b;
    d.rest = rest;
    d.mode = mode;
    d.stiffness = stiffness;
    d.compliance = compliance;
    assert_int_equal(sinew_distance_create(w, &d, &p.link), SINEW_OK);
    return p;
}

// Expected positions from Juckett's equations, computed in double.
static void juckett(sinew_vec2 xi, sinew_vec2 xj, double wi, double wj, double rest, sinew_vec2 *oi, sinew_vec2 *oj)
{
    double dx = (double)xj.x - xi.x, dy = (double)xj.y - xi.y;
    double d = sqrt(dx * dx + dy * dy);
    double ux = (rest - d) * dx / d, uy = (rest - d) * dy / d;
    *oi = sinew_vec2_make((float)(xi.x - ux * wi / (wi + wj)), (float)(xi.y - uy * wi / (wi + wj)));
    *oj = sinew_vec2_make((float)(xj.x + ux * wj / (wi + wj)), (float)(xj.y + uy * wj / (wi + wj)));
}

static void check_case(sinew_vec2 xi, sinew_vec2 xj, float wi, float wj, float rest)
{
    sinew_world *w = one_projection_world(SINEW_SOLVER_GAUSS_SEIDEL, 1.0f);
    pair p = make_pair(w, xi, xj, wi, wj, rest, SINEW_DISTANCE_EQUAL, 1.0f, 0.0f);
    assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    sinew_vec2 ei, ej;
    juckett(xi, xj, wi, wj, rest, &ei, &ej);
    sinew_vec2 gi = position_of(w, p.a), gj = position_of(w, p.b);
    // float arithmetic on coordinates of size ~5: a few ulps.
    assert_near(gi.x, ei.x, 2e-6);
    assert_near(gi.y, ei.y, 2e-6);
    assert_near(gj.x, ej.x, 2e-6);
    assert_near(gj.y, ej.y, 2e-6);
    if (wi == 0.0f) { // a weight-0 end never moves, to the bit
        assert_true(gi.x == xi.x && gi.y == xi.y);
    }
    if (wj == 0.0f) {
        assert_true(gj.x == xj.x && gj.y == xj.y);
    }
    sinew_world_destroy(w);
}

static void projection_matches_juckett_for_every_weight_case(void **state)
{
    (void)state;
    const sinew_vec2 a = sinew_vec2_make(1.0f, 1.0f), b = sinew_vec2_make(4.0f, 5.0f); // d = 5
    const float weights[][2] = {{1, 1}, {0, 1}, {1, 0}, {1, 3}, {0.25f, 2}, {2, 0.5f}};
    const float rests[] = {2.5f, 5.0f, 7.0f, 0.0f};
    for (size_t k = 0; k < sizeof weights / sizeof weights[0]; ++k) {
        for (size_t r = 0; r < sizeof rests / sizeof rests[0]; ++r) {
            check_case(a, b, weights[k][0], weights[k][1], rests[r]);
            check_case(b, a, weights[k][0], weights[k][1], rests[r]);
        }
    }
}

static void hand_computed_numbers(void **state)
{
    (void)state;
    // (1,1)-(4,5), d = 5, rest 2.5, equal weights: u = (-1.5, -2); each end moves half of it.
    sinew_world *w = one_projection_world(SINEW_SOLVER_GAUSS_SEIDEL, 1.0f);
    pair p = make_pair(w, sinew_vec2_make(1, 1), sinew_vec2_make(4, 5), 1, 1, 2.5f, SINEW_DISTANCE_EQUAL, 1, 0);
    sinew_world_step(w, 1.0f / 60.0f);
    sinew_vec2 a = position_of(w, p.a), b = position_of(w, p.b);
    assert_near(a.x, 1.75, 1e-6);
    assert_near(a.y, 2.0, 1e-6);
    assert_near(b.x, 3.25, 1e-6);
    assert_near(b.y, 4.0, 1e-6);
    sinew_world_destroy(w);

    // (0,0)-(3,0), rest 2, weights 1 and 3: u = (-1, 0); i moves 1/4, j moves 3/4.
    w = one_projection_world(SINEW_SOLVER_GAUSS_SEIDEL, 1.0f);
    p = make_pair(w, sinew_vec2_make(0, 0), sinew_vec2_make(3, 0), 1, 3, 2.0f, SINEW_DISTANCE_EQUAL, 1, 0);
    sinew_world_step(w, 1.0f / 60.0f);
    assert_near(position_of(w, p.a).x, 0.25, 1e-6);
    assert_near(position_of(w, p.b).x, 2.25, 1e-6);
    sinew_world_destroy(w);
}

// Total weight zero: nothing moves. Coincident ends (issue 16): no direction of their own, they
// separate along +y (b, the second end, up), to the rest length in one projection.
static void total_weight_zero_is_skipped_and_coincident_ends_separate(void **state)
{
    (void)state;
    sinew_world *w = one_projection_world(SINEW_SOLVER_GAUSS_SEIDEL, 1.0f);
    pair p = make_pair(w, sinew_vec2_make(0, 0), sinew_vec2_make(3, 0), 0, 0, 1.0f, SINEW_DISTANCE_EQUAL, 1, 0);
    pair q = make_pair(w, sinew_vec2_make(7, 7), sinew_vec2_make(7, 7), 1, 1, 1.0f, SINEW_DISTANCE_EQUAL, 1, 0);
    assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    assert_true(position_of(w, p.a).x == 0.0f && position_of(w, p.b).x == 3.0f);
    sinew_vec2 qa = position_of(w, q.a), qb = position_of(w, q.b);
    assert_true(qa.x == 7.0f && qb.x == 7.0f);
    assert_near(qa.y, 6.5, 1e-6);
    assert_near(qb.y, 7.5, 1e-6);
    sinew_step_stats st = sinew_world_stats(w);
    assert_true(isfinite(st.max_error) && isfinite(st.rms_error));
    sinew_world_destroy(w);
}

static void stiffness_scales_the_correction(void **state)
{
    (void)state;
    // d = 3, rest 2, equal weights, stiffness 0.5: each end moves 0.25 instead of 0.5.
    sinew_world *w = one_projection_world(SINEW_SOLVER_GAUSS_SEIDEL, 1.0f);
    pair p = make_pair(w, sinew_vec2_make(0, 0), sinew_vec2_make(3, 0), 1, 1, 2.0f, SINEW_DISTANCE_EQUAL, 0.5f, 0);
    sinew_world_step(w, 1.0f / 60.0f);
    assert_near(position_of(w, p.a).x, 0.25, 1e-6);
    assert_near(position_of(w, p.b).x, 2.75, 1e-6);
    sinew_world_destroy(w);
}

static void one_sided_modes(void **state)
{
    (void)state;
    // max-only: a slack link (d = 3 < rest 4) does nothing; a taut one (d = 3 > rest 2) pulls.
    sinew_world *w = one_projection_world(SINEW_SOLVER_GAUSS_SEIDEL, 1.0f);
    pair slack = make_pair(w, sinew_vec2_make(0, 0), sinew_vec2_make(3, 0), 1, 1, 4.0f, SINEW_DISTANCE_MAX_ONLY, 1, 0);
    pair taut = make_pair(w, sinew_vec2_make(0, 5), sinew_vec2_make(3, 5), 1, 1, 2.0f, SINEW_DISTANCE_MAX_ONLY, 1, 0);
    // min-only: pushes apart when too close (d = 3 < rest 4), ignores d = 3 > rest 2.
    pair push = make_pair(w, sinew_vec2_make(0, 10), sinew_vec2_make(3, 10), 1, 1, 4.0f, SINEW_DISTANCE_MIN_ONLY, 1, 0);
    pair free_ = make_pair(w, sinew_vec2_make(0, 15), sinew_vec2_make(3, 15), 1, 1, 2.0f, SINEW_DISTANCE_MIN_ONLY, 1, 0);
    sinew_world_step(w, 1.0f / 60.0f);
    assert_true(position_of(w, slack.a).x == 0.0f && position_of(w, slack.b).x == 3.0f);
    assert_near(position_of(w, taut.a).x, 0.5, 1e-6);
    assert_near(position_of(w, taut.b).x, 2.5, 1e-6);
    assert_near(position_of(w, push.a).x, -0.5, 1e-6);
    assert_near(position_of(w, push.b).x, 3.5, 1e-6);
    assert_true(position_of(w, free_.a).x == 0.0f && position_of(w, free_.b).x == 3.0f);
    float e;
    assert_int_equal(sinew_distance_get_error(w, slack.link, &e), SINEW_OK);
    assert_true(e == 0.0f);
    sinew_world_destroy(w);
}

static void compliance_follows_xpbd(void **state)
{
    (void)state;
    // One XPBD iteration from lambda = 0: dlambda = -C / (wi + wj + alpha / h^2); each end moves
    // w * |dlambda| along the link. C = 1, weights 1, alpha = 1e-3, h = 1/60: a~ = 3.6.
    const float alpha = 1e-3f, h = 1.0f / 60.0f;
    sinew_world *w = one_projection_world(SINEW_SOLVER_GAUSS_SEIDEL, 1.0f);
    pair p = make_pair(w, sinew_vec2_make(0, 0), sinew_vec2_make(3, 0), 1, 1, 2.0f, SINEW_DISTANCE_EQUAL, 1, alpha);
    sinew_world_step(w, h);
    double move = 1.0 / (2.0 + (double)alpha / ((double)h * h));
    assert_near(position_of(w, p.a).x, move, 1e-5);
    assert_near(position_of(w, p.b).x, 3.0 - move, 1e-5);
    sinew_world_destroy(w);
}

static void jacobi_applies_omega_times_the_average(void **state)
{
    (void)state;
    // A single link: each end has count 1, so Jacobi moves it omega times the GS correction.
    const float omegas[] = {1.0f, 0.5f, 1.5f};
    for (size_t k = 0; k < 3; ++k) {
        sinew_world *w = one_projection_world(SINEW_SOLVER_JACOBI, omegas[k]);
        pair p = make_pair(w, sinew_vec2_make(0, 0), sinew_vec2_make(3, 0), 1, 1, 2.0f, SINEW_DISTANCE_EQUAL, 1, 0);
        sinew_world_step(w, 1.0f / 60.0f);
        assert_near(position_of(w, p.a).x, 0.5 * omegas[k], 1e-6);
        assert_near(position_of(w, p.b).x, 3.0 - 0.5 * omegas[k], 1e-6);
        sinew_world_destroy(w);
    }
    // A chain a - m - b, both links stretched (d = 3, rest 2). Each constraint is scaled by
    // omega / max(n_i, n_j) at both ends, n = constraints on a particle: here 1 / 2 for both links.
    // m gets two equal and opposite corrections and stays; a and b move 0.5 * 0.5 = 0.25.
    // The two ends of a link always get the same factor, so momentum is conserved.
    sinew_world *w = one_projection_world(SINEW_SOLVER_JACOBI, 1.0f);
    sinew_particle_id a = make_particle(w, -3, 0, 1), m = make_particle(w, 0, 0, 1), b = make_particle(w, 3, 0, 1);
    sinew_distance_def d = sinew_default_distance_def();
    d.rest = 2.0f;
    sinew_distance_id ids[2];
    d.a = a;
    d.b = m;
    assert_int_equal(sinew_distance_create(w, &d, &ids[0]), SINEW_OK);
    d.a = m;
    d.b = b;
    assert_int_equal(sinew_distance_create(w, &d, &ids[1]), SINEW_OK);
    sinew_world_step(w, 1.0f / 60.0f);
    assert_true(position_of(w, m).x == 0.0f);
    assert_near(position_of(w, a).x, -2.75, 1e-6);
    assert_near(position_of(w, b).x, 2.75, 1e-6);
    sinew_world_destroy(w);

    // n counts only the constraints that correct the particle: a satisfied link (m - c at its
    // rest length) does not dilute m's step, and a - m moves by the full omega.
    w = one_projection_world(SINEW_SOLVER_JACOBI, 1.0f);
    a = make_particle(w, 0, 0, 1);
    m = make_particle(w, 3, 0, 1);
    sinew_particle_id c = make_particle(w, 3, 2, 1);
    d.a = a;
    d.b = m;
    d.rest = 2.0f;
    assert_int_equal(sinew_distance_create(w, &d, &ids[0]), SINEW_OK);
    d.a = m;
    d.b = c;
    d.rest = SINEW_REST_CURRENT;
    assert_int_equal(sinew_distance_create(w, &d, &ids[1]), SINEW_OK);
    sinew_world_step(w, 1.0f / 60.0f);
    assert_near(position_of(w, a).x, 0.5, 1e-6);
    assert_near(position_of(w, m).x, 2.5, 1e-6);
    assert_true(position_of(w, c).y == 2.0f);
    sinew_world_destroy(w);

    // Unequal counts: m has two stretched links, a and c one each. Per-particle averaging would
    // move a by 0.5 and m by 0.25 (momentum not conserved); the shared factor omega / max(n) =
    // 1/2 moves both ends of each link by 0.25.
    w = one_projection_world(SINEW_SOLVER_JACOBI, 1.0f);
    a = make_particle(w, 0, 0, 1);
    m = make_particle(w, 3, 0, 1);
    c = make_particle(w, 3, 3, 1);
    d.a = a;
    d.b = m;
    d.rest = 2.0f;
    assert_int_equal(sinew_distance_create(w, &d, &ids[0]), SINEW_OK);
    d.a = m;
    d.b = c;
    assert_int_equal(sinew_distance_create(w, &d, &ids[1]), SINEW_OK);
    sinew_world_step(w, 1.0f / 60.0f);
    sinew_vec2 pa = position_of(w, a), pm = position_of(w, m), pc = position_of(w, c);
    assert_near(pa.x, 0.25, 1e-6);
    assert_near(pm.x, 2.75, 1e-6);
    assert_near(pm.y, 0.25, 1e-6);
    assert_near(pc.y, 2.75, 1e-6);
    assert_near(pa.x + pm.x + pc.x, 6.0, 1e-6); // momentum: the sum of positions is unchanged
    assert_near(pa.y + pm.y + pc.y, 3.0, 1e-6);
    sinew_world_destroy(w);
}

static void rest_defaults_to_current_distance_and_bad_defs_are_refused(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id a = make_particle(w, 0, 0, 1), b = make_particle(w, 3, 4, 1);
    sinew_distance_id id = make_link(w, a, b);
    sinew_distance_def got;
    assert_int_equal(sinew_distance_get(w, id, &got), SINEW_OK);
    assert_near(got.rest, 5.0, 1e-6);
    assert_true(got.a.index1 == a.index1 && got.b.index1 == b.index1);

    sinew_distance_def d = sinew_default_distance_def();
    d.a = a;
    d.b = b;
    sinew_distance_id out = {0, 0};
    sinew_distance_def bad = d;
    bad.rest = NAN;
    assert_int_equal(sinew_distance_create(w, &bad, &out), SINEW_ERR_NOT_FINITE);
    bad = d;
    bad.rest = -2.0f;
    assert_int_equal(sinew_distance_create(w, &bad, &out), SINEW_ERR_OUT_OF_RANGE);
    bad = d;
    bad.stiffness = 1.5f;
    assert_int_equal(sinew_distance_create(w, &bad, &out), SINEW_ERR_OUT_OF_RANGE);
    bad = d;
    bad.compliance = -1.0f;
    assert_int_equal(sinew_distance_create(w, &bad, &out), SINEW_ERR_OUT_OF_RANGE);
    bad = d;
    bad.compliance = INFINITY;
    assert_int_equal(sinew_distance_create(w, &bad, &out), SINEW_ERR_NOT_FINITE);
    bad = d;
    bad.mode = (sinew_distance_mode)7;
    assert_int_equal(sinew_distance_create(w, &bad, &out), SINEW_ERR_OUT_OF_RANGE);
    bad = d;
    bad.b = a;
    assert_int_equal(sinew_distance_create(w, &bad, &out), SINEW_ERR_SAME_PARTICLE);
    bad = d;
    bad.b = (sinew_particle_id){0, 0};
    assert_int_equal(sinew_distance_create(w, &bad, &out), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_distance_create(w, NULL, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_true(out.index1 == 0u); // never written by a refused call
    assert_true(strlen(sinew_world_last_error(w)) > 0);

    // set: refused values change nothing; accepted ones apply.
    bad = got;
    bad.stiffness = -0.1f;
    assert_int_equal(sinew_distance_set(w, id, &bad), SINEW_ERR_OUT_OF_RANGE);
    sinew_distance_def again;
    sinew_distance_get(w, id, &again);
    assert_true(again.stiffness == got.stiffness && again.rest == got.rest);
    got.rest = 2.0f;
    got.mode = SINEW_DISTANCE_MAX_ONLY;
    assert_int_equal(sinew_distance_set(w, id, &got), SINEW_OK);
    sinew_distance_get(w, id, &again);
    assert_true(again.rest == 2.0f && again.mode == SINEW_DISTANCE_MAX_ONLY);

    assert_int_equal(sinew_distance_destroy(w, id), SINEW_OK);
    assert_false(sinew_distance_is_valid(w, id));
    assert_int_equal(sinew_distance_destroy(w, id), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_distance_get(w, id, &again), SINEW_ERR_INVALID_ID);
    sinew_world_destroy(w);
}

// Gauss-Seidel projects a block of 8 constraints that share no particle together; that must be
// the same, to the bit, as projecting them one after another. World 0 takes the blocks as the
// engine marks them; world 1 has every block marked as shared, so it takes them run after run
// where the AVX2 kernels run (see sinew__block_runs: a free block is one run of eight, a chain's
// block eight runs of one), and world 2 the same marks on the portable kernels, link after link.
static void blocked_sweeps_equal_sequential_sweeps(void **state)
{
    (void)state;
    const sinew_gs_order orders[] = {SINEW_GS_ORDER_CREATED, SINEW_GS_ORDER_ALTERNATING};
    for (int o = 0; o < 2; ++o) {
        for (int xpbd = 0; xpbd < 2; ++xpbd) {
            sinew_world *w[3];
            for (int k = 0; k < 3; ++k) {
                sinew_world_def def = sinew_default_world_def();
                def.solver.order = orders[o];
                assert_int_equal(sinew_world_create(&def, &w[k]), SINEW_OK);
                w[k]->avx2 = w[k]->avx2 && k < 2;
                sinew_cloth_def cd = sinew_default_cloth_def();
                cd.columns = 17; // odd sizes leave partial and mixed blocks too
                cd.rows = 13;
                cd.compliance = xpbd ? 1e-4f : 0.0f;
                assert_int_equal(sinew_cloth_create(w[k], &cd, NULL), SINEW_OK);
                // A chain linked in sequence: every block of it shares particles, so it must
                // never take the block path.
                sinew_particle_id prev = make_particle(w[k], 10.0f, 0.0f, 0.0f);
                for (int m = 1; m <= 20; ++m) {
                    sinew_particle_id next = make_particle(w[k], 10.0f + 0.3f * m, 0.0f, 1.0f);
                    make_link(w[k], prev, next);
                    prev = next;
                }
            }
            for (int k = 0; k < 3; ++k) { // the regrouping the first step would do, done now
                sinew__distances_colour(w[k]);
                sinew__links_refresh_blocks(w[k], &w[k]->distances.l);
                w[k]->distances.blocks_dirty = false;
            }
            int free_blocks = 0, runs = 0;
            for (int k = 1; k < 3; ++k) {
                sinew__links *d = &w[k]->distances.l;
                for (int b = 0; b * 8 < d->count; ++b) {
                    free_blocks += k == 1 && sinew__block_together(d->block_free[b]);
                    runs += k == 1 && (d->block_free[b] == SINEW__BLOCK_RUN || d->block_free[b] == SINEW__BLOCK_PAIRS);
                    d->block_free[b] = (uint8_t)(d->block_free[b] & SINEW__BLOCK_FIXED); // shared
                }
            }
            const int blocks = (w[1]->distances.l.count + 7) / 8;
            assert_true(free_blocks > blocks / 2); // the builder's order makes most blocks free
            assert_true(free_blocks < blocks);     // the odd sizes leave some that are not
            assert_true(runs > 0);                 // and some are laid out for plain loads
            for (int n = 0; n < 60; ++n) {
                for (int k = 0; k < 3; ++k) {
                    sinew_world_step(w[k], 1.0f / 60.0f);
                }
            }
            assert_true(hash_positions(w[0]) == hash_positions(w[1]));
            assert_true(hash_positions(w[0]) == hash_positions(w[2]));
            for (int k = 0; k < 3; ++k) {
                sinew_world_destroy(w[k]);
            }
        }
    }
}

// The runs of a shared block (sinew__block_runs): a run starts at a lane that shares a particle
// with a lane of the run before it, and only there, so the lanes of a run share no particle; they
// are walked forward (sinew__run_end) and backward (sinew__run_start) alike.
static void shared_blocks_split_into_runs_without_a_shared_particle(void **state)
{
    (void)state;
    uint64_t seed = 12345u;
    for (int trial = 0; trial < 2000; ++trial) {
        sinew__distance c[SINEW__LANES];
        for (int l = 0; l < SINEW__LANES; ++l) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            c[l].i = (int32_t)((seed >> 33) % 12u);
            c[l].j = (int32_t)((seed >> 45) % 12u);
            c[l].j = c[l].j == c[l].i ? (c[l].i + 1) % 12 : c[l].j; // (a link joins two particles)
            c[l].lo = c[l].hi = 1.0f;
        }
        const unsigned starts = sinew__block_runs(c);
        assert_true((starts & 1u) != 0u);
        int covered = 0;
        for (int a = 0, b; a < SINEW__LANES; a = b) {
            b = sinew__run_end(starts, a);
            assert_true(b > a && b <= SINEW__LANES);
            covered += b - a;
            for (int l = a; l < b; ++l) {
                for (int m = a; m < l; ++m) { // no particle twice in a run
                    assert_false(c[m].i == c[l].i || c[m].i == c[l].j || c[m].j == c[l].i || c[m].j == c[l].j);
                }
            }
            if (b < SINEW__LANES) { // the next lane could not have joined: it shares with this run
                bool shares = false;
                for (int m = a; m < b; ++m) {
                    shares = shares || c[m].i == c[b].i || c[m].i == c[b].j || c[m].j == c[b].i || c[m].j == c[b].j;
                }
                assert_true(shares);
            }
        }
        assert_int_equal(covered, SINEW__LANES);
        // Backward (sinew__run_start), the same runs last first.
        for (int b = SINEW__LANES, a; b > 0; b = a) {
            a = sinew__run_start(starts, b);
            assert_true(a >= 0 && a < b);
            assert_true((starts & (1u << a)) != 0u);
            assert_int_equal(sinew__run_end(starts, a), b);
        }
    }
}

// A scene for Jacobi's layout: a cloth with every kind of builder link (runs of offsets 1, 2, W - 1,
// W, W + 1, 2 W; 150 columns make runs longer than a chunk), a chain linked in sequence with every
// third link made backwards (negative offsets), one link made twice, and, when asked, a pin on a
// moving particle (other kinds' sums then reach the particles too) and compliant links.
static sinew_world *layout_world(bool avx2, bool xpbd, bool pinned, sinew_distance_id *cloth_links)
{
    sinew_world_def def = sinew_default_world_def();
    def.solver.mode = SINEW_SOLVER_JACOBI;
    def.solver.substeps = 4;
    def.solver.iterations = 3;
    def.solver.jacobi_omega = 1.5f;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    w->avx2 = w->avx2 && avx2;
    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.columns = 150;
    cd.rows = 11;
    cd.shear = cd.bend = true;
    cd.compliance = xpbd ? 1e-4f : 0.0f;
    sinew_particle_id corner[150 * 11];
    sinew_cloth c = {0};
    c.particles = corner;
    c.links = cloth_links;
    assert_int_equal(sinew_cloth_create(w, &cd, &c), SINEW_OK);
    sinew_particle_id chain[21];
    chain[0] = make_particle(w, 50.0f, 0.0f, 0.0f);
    for (int m = 1; m <= 20; ++m) {
        chain[m] = make_particle(w, 50.0f + 0.3f * m, 0.0f, 1.0f);
        if (m % 3 == 0) {
            make_link(w, chain[m], chain[m - 1]);
        } else {
            make_link(w, chain[m - 1], chain[m]);
        }
    }
    make_link(w, chain[4], chain[5]);
    if (pinned) {
        sinew_pin_def pd = sinew_default_pin_def();
        pd.particle = corner[150 * 11 - 1];
        pd.target = sinew_vec2_make(40.0f, -5.0f);
        pd.stiffness = 0.5f;
        sinew_pin_id pin;
        assert_int_equal(sinew_pin_create(w, &pd, &pin), SINEW_OK);
    }
    return w;
}

// Jacobi's layout: every link once, each run holding links (i + r, i + offset + r), runs sorted by
// offset then first particle, and the lengths of each place those of its link.
static void check_layout(const sinew_world *w)
{
    const sinew__distances *d = &w->distances;
    int seen = 0, runs = 0;
    sinew__run prev = {0, 0, 0, 0};
    while (seen < d->l.count) {
        const sinew__run run = sinew__distances_run(d, seen);
        assert_true(run.count > 0 && run.first == seen);
        if (runs > 0) { // (a link twice over the same pair starts a run at the last one's end)
            assert_true(prev.offset < run.offset || (prev.offset == run.offset && run.i >= prev.i + prev.count - 1));
        }
        prev = run;
        runs += 1;
        for (int k = 0; k < run.count; ++k) {
            const int m = run.first + k;
            const sinew__distance *c = &d->l.c[d->order[m]];
            assert_int_equal(c->i, run.i + k);
            assert_int_equal(c->j, run.i + run.offset + k);
            assert_true(d->jlo[m] == c->lo && d->jhi[m] == c->hi);
        }
        seen += run.count;
    }
    assert_int_equal(seen, d->l.count);
    assert_int_equal(runs, d->run_count);
    bool *placed = calloc((size_t)d->l.count, sizeof *placed);
    assert_non_null(placed);
    for (int m = 0; m < d->l.count; ++m) {
        assert_false(placed[d->order[m]]);
        placed[d->order[m]] = true;
    }
    free(placed);
}

static void jacobi_layout_is_runs_of_consecutive_particles(void **state)
{
    (void)state;
    sinew_distance_id links[8 * 150 * 11]; // more than the cloth makes
    sinew_world *w = layout_world(false, false, false, links);
    assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    check_layout(w);
    // The cloth's links fall into few runs: per row for the links along a row, one run for each
    // kind of link between rows (two for the bend links); the chain adds a few.
    assert_true(w->distances.run_count < 11 * 4 + 12 + 20);
    // Destroying links and particles reorders the store; the next step lays it out again.
    assert_int_equal(sinew_distance_destroy(w, links[200]), SINEW_OK);
    assert_int_equal(sinew_particle_destroy(w, sinew_particle_id_at(w, 700)), SINEW_OK);
    assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    check_layout(w);
    sinew_world_destroy(w);
}

// On x86-64 the Jacobi passes are compiled twice, for the baseline instruction set and for AVX2;
// a world runs the AVX2 build when the CPU has it. Both must move every particle to the same bits.
static void jacobi_avx2_and_portable_kernels_agree(void **state)
{
    (void)state;
    sinew_world *probe = make_world(SINEW_SOLVER_JACOBI);
    const bool cpu = probe->avx2;
    sinew_world_destroy(probe);
    print_message("AVX2 kernels %s on this CPU\n", cpu ? "run" : "do not run: comparing the portable ones with themselves");
    for (int xpbd = 0; xpbd < 2; ++xpbd) {
        for (int pinned = 0; pinned < 2; ++pinned) {
            sinew_world *w[2] = {layout_world(cpu, xpbd, pinned, NULL), layout_world(false, xpbd, pinned, NULL)};
            for (int n = 0; n < 60; ++n) {
                assert_int_equal(sinew_world_step(w[0], 1.0f / 60.0f), SINEW_OK);
                assert_int_equal(sinew_world_step(w[1], 1.0f / 60.0f), SINEW_OK);
            }
            assert_true(hash_positions(w[0]) == hash_positions(w[1]));
            for (int k = 0; k < w[0]->distances.l.count; ++k) {
                assert_true(w[0]->distances.l.lambda[k] == w[1]->distances.l.lambda[k]);
            }
            sinew_world_destroy(w[0]);
            sinew_world_destroy(w[1]);
        }
    }
}

// A chain of three 2 kg particles hanging from a fixed one: the links carry 3, 2 and 1 times
// m g from the top down, in both modes; without link_forces (and no soft link) there is no
// reading; keeping the forces changes no position, to the bit.
static void link_forces_read_the_tension_and_change_nothing(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w[2];
        sinew_distance_id links[2][3];
        for (int keep = 0; keep < 2; ++keep) {
            sinew_world_def def = sinew_default_world_def();
            def.solver.mode = (sinew_solver_mode)mode;
            def.solver.iterations = mode == SINEW_SOLVER_JACOBI ? 64 : 16;
            def.solver.link_forces = keep == 1;
            assert_int_equal(sinew_world_create(&def, &w[keep]), SINEW_OK);
            sinew_particle_id prev = make_particle(w[keep], 0.0f, 0.0f, 0.0f);
            for (int k = 0; k < 3; ++k) {
                const sinew_particle_id p = make_particle(w[keep], 0.0f, -0.5f * (float)(k + 1), 0.5f);
                links[keep][k] = make_link(w[keep], prev, p);
                prev = p;
            }
        }
        float t;
        assert_int_equal(sinew_distance_get_force(w[1], links[1][0], &t), SINEW_ERR_NOT_MEASURED); // no step yet
        for (int s = 0; s < 120; ++s) {
            assert_int_equal(sinew_world_step(w[0], 1.0f / 60.0f), SINEW_OK);
            assert_int_equal(sinew_world_step(w[1], 1.0f / 60.0f), SINEW_OK);
        }
        assert_true(hash_positions(w[0]) == hash_positions(w[1]));
        assert_int_equal(sinew_distance_get_force(w[0], links[0][0], &t), SINEW_ERR_NOT_MEASURED);
        for (int k = 0; k < 3; ++k) {
            assert_int_equal(sinew_distance_get_force(w[1], links[1][k], &t), SINEW_OK);
            const float expected = 2.0f * 10.0f * (float)(3 - k);
            print_message("    %s link %d: %.3f N (m g times %d: %.0f N)\n", mode ? "jacobi" : "gauss-seidel", k,
                          (double)t, 3 - k, (double)expected);
            assert_near(t, expected, 0.02f * expected);
        }
        // A link holding a particle up from below pushes: it reads -m g.
        const sinew_particle_id base = make_particle(w[1], 5.0f, 0.0f, 0.0f), top = make_particle(w[1], 5.0f, 0.5f, 0.5f);
        const sinew_distance_id strut = make_link(w[1], base, top);
        for (int s = 0; s < 30; ++s) {
            assert_int_equal(sinew_world_step(w[1], 1.0f / 60.0f), SINEW_OK);
        }
        assert_int_equal(sinew_distance_get_force(w[1], strut, &t), SINEW_OK);
        assert_near(t, -20.0f, 0.4f);
        assert_int_equal(sinew_distance_get_force(NULL, links[1][0], &t), SINEW_ERR_NULL_ARGUMENT);
        assert_int_equal(sinew_distance_get_force(w[1], links[1][0], NULL), SINEW_ERR_NULL_ARGUMENT);
        assert_int_equal(sinew_distance_get_force(w[1], (sinew_distance_id)SINEW_NULL_ID, &t), SINEW_ERR_INVALID_ID);
        sinew_world_destroy(w[0]);
        sinew_world_destroy(w[1]);
    }
}

// Links made in sequence, (0,1), (1,2), ..., share a particle with their neighbours: before the
// first Gauss-Seidel step they are regrouped so that every full block of 8 is independent (the
// fast block path), ids still name their links, and a builder's rope is left in its order.
static void links_made_in_any_order_are_regrouped_into_independent_blocks(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    enum { N = 203 };
    sinew_particle_id p[N + 1];
    sinew_distance_id id[N];
    for (int k = 0; k <= N; ++k) {
        p[k] = make_particle(w, 0.25f * (float)k, 0.0f, k == 0 ? 0.0f : 1.0f);
    }
    for (int k = 0; k < N; ++k) {
        id[k] = make_link(w, p[k], p[k + 1]);
    }
    const sinew__links *l = &w->distances.l;
    int free_before = 0;
    for (int b = 0; b < N / SINEW__LANES; ++b) {
        free_before += sinew__block_together(l->block_free[b]);
    }
    assert_int_equal(free_before, 0); // each block of the sequence shares particles
    assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    int free_after = 0;
    for (int b = 0; b < N / SINEW__LANES; ++b) {
        free_after += sinew__block_together(l->block_free[b]);
    }
    print_message("    %d links in sequence: %d of %d full blocks independent before, %d after\n", N, free_before,
                  N / SINEW__LANES, free_after);
    assert_true(free_after >= N / SINEW__LANES - 2); // all but the unfilled remainders' blocks
    for (int k = 0; k < N; ++k) { // every id still names its own link
        sinew_distance_def d;
        assert_int_equal(sinew_distance_get(w, id[k], &d), SINEW_OK);
        assert_true(d.a.index1 == p[k].index1 && d.b.index1 == p[k + 1].index1);
    }
    sinew_world_destroy(w);

    // A builder's rope is already in independent groups: its order stays, to the bit.
    w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_rope_def rd = sinew_default_rope_def();
    rd.links = 300;
    assert_int_equal(sinew_rope_create(w, &rd, NULL), SINEW_OK);
    sinew__distance *before = malloc(sizeof *before * (size_t)w->distances.l.count);
    assert_non_null(before);
    memcpy(before, w->distances.l.c, sizeof *before * (size_t)w->distances.l.count);
    assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    for (int k = 0; k < w->distances.l.count; ++k) {
        assert_true(before[k].i == w->distances.l.c[k].i && before[k].j == w->distances.l.c[k].j);
    }
    free(before);
    sinew_world_destroy(w);
}


// A link's tear ratio, strain and user data live in arrays of their own, made when a first link
// needs them: until then no memory, and every link reads 0, 1 and NULL. Making them keeps every
// link's values; a failed allocation refuses the call and changes nothing; a snapshot's load makes
// only those its links use, and saves again to the same bytes.
static void tear_and_user_data_arrays_are_made_when_first_needed(void **state)
{
    (void)state;
    counting_allocator ca;
    sinew_world_def def = sinew_default_world_def();
    def.allocator = counting_allocator_make(&ca);
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    sinew_particle_id p[6];
    for (int k = 0; k < 6; ++k) {
        p[k] = make_particle(w, (float)k, 0.0f, 1.0f);
    }
    sinew_distance_id links[5];
    sinew_distance_def dd = sinew_default_distance_def();
    for (int k = 0; k < 4; ++k) {
        dd.a = p[k];
        dd.b = p[k + 1];
        assert_int_equal(sinew_distance_create(w, &dd, &links[k]), SINEW_OK);
    }
    const sinew__distances *d = &w->distances;
    assert_null(d->tear);
    assert_null(d->strain);
    assert_null(d->user_data);
    const size_t plain = w->distances.store.block_bytes;
    step_world(w, 3);
    sinew_distance_def got;
    assert_int_equal(sinew_distance_get(w, links[1], &got), SINEW_OK);
    assert_true(got.tear_ratio == 0.0f && got.user_data == NULL);
    assert_null(sinew_distance_user_data(w, links[1]));

    // A failed allocation: refused, nothing changed.
    int tag = 7;
    ca.fail_after = (int64_t)ca.allocs;
    assert_int_equal(sinew_distance_set_user_data(w, links[2], &tag), SINEW_ERR_OUT_OF_MEMORY);
    got.tear_ratio = 2.0f;
    assert_int_equal(sinew_distance_set(w, links[1], &got), SINEW_ERR_OUT_OF_MEMORY);
    dd.a = p[4];
    dd.b = p[5];
    dd.user_data = &tag;
    assert_int_equal(sinew_distance_create(w, &dd, &links[4]), SINEW_ERR_OUT_OF_MEMORY);
    assert_int_equal(sinew_world_distance_count(w), 4);
    assert_null(d->tear);
    assert_null(d->user_data);
    assert_int_equal(d->tearable, 0);
    ca.fail_after = -1;

    // Made: the other links keep their values.
    assert_int_equal(sinew_distance_set_user_data(w, links[2], &tag), SINEW_OK);
    assert_non_null(d->user_data);
    assert_null(d->tear);
    assert_ptr_equal(sinew_distance_user_data(w, links[2]), &tag);
    assert_null(sinew_distance_user_data(w, links[0]));
    assert_int_equal(sinew_distance_set(w, links[1], &got), SINEW_OK);
    assert_non_null(d->tear);
    assert_true(w->distances.store.block_bytes > plain);
    for (int k = 0; k < 4; ++k) {
        const int i = sinew__store_lookup(&d->store, links[k].index1, links[k].generation);
        assert_true(d->tear[i] == (k == 1 ? 2.0f : 0.0f));
        assert_true(d->strain[i] == 1.0f);
        assert_int_equal(sinew_distance_get(w, links[k], &got), SINEW_OK);
        assert_true(got.tear_ratio == (k == 1 ? 2.0f : 0.0f));
    }
    assert_int_equal(d->tearable, 1);
    step_world(w, 3);

    // Loads make what the links use, and save to the same bytes.
    for (int round = 0; round < 2; ++round) {
        const size_t size = sinew_world_save_size(w);
        unsigned char *a = malloc(size), *b = malloc(size);
        assert_non_null(a);
        assert_non_null(b);
        size_t wrote = 0, again = 0;
        assert_int_equal(sinew_world_save(w, a, size, &wrote), SINEW_OK);
        sinew_world *loaded = NULL;
        assert_int_equal(sinew_world_load(a, wrote, NULL, &loaded), SINEW_OK);
        assert_true((loaded->distances.tear != NULL) == (round == 0));
        assert_true((loaded->distances.user_data != NULL) == (round == 0));
        assert_int_equal(sinew_world_save(loaded, b, size, &again), SINEW_OK);
        assert_int_equal(again, wrote);
        assert_memory_equal(a, b, wrote);
        sinew_world_destroy(loaded);
        free(a);
        free(b);
        // Without a tear ratio (the strain back at 1) and user data, the next load has neither.
        got.tear_ratio = 0.0f;
        assert_int_equal(sinew_distance_set(w, links[1], &got), SINEW_OK);
        const int i = sinew__store_lookup(&d->store, links[1].index1, links[1].generation);
        w->distances.strain[i] = 1.0f;
        assert_int_equal(sinew_distance_set_user_data(w, links[2], NULL), SINEW_OK);
    }
    sinew_world_destroy(w);
    assert_int_equal(ca.live_bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(projection_matches_juckett_for_every_weight_case),
        cmocka_unit_test(hand_computed_numbers),
        cmocka_unit_test(total_weight_zero_is_skipped_and_coincident_ends_separate),
        cmocka_unit_test(stiffness_scales_the_correction),
        cmocka_unit_test(one_sided_modes),
        cmocka_unit_test(compliance_follows_xpbd),
        cmocka_unit_test(jacobi_applies_omega_times_the_average),
        cmocka_unit_test(rest_defaults_to_current_distance_and_bad_defs_are_refused),
        cmocka_unit_test(blocked_sweeps_equal_sequential_sweeps),
        cmocka_unit_test(shared_blocks_split_into_runs_without_a_shared_particle),
        cmocka_unit_test(jacobi_layout_is_runs_of_consecutive_particles),
        cmocka_unit_test(jacobi_avx2_and_portable_kernels_agree),
        cmocka_unit_test(link_forces_read_the_tension_and_change_nothing),
        cmocka_unit_test(links_made_in_any_order_are_regrouped_into_independent_blocks),
        cmocka_unit_test(tear_and_user_data_arrays_are_made_when_first_needed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
