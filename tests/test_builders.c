// Builders and tearing by their properties: a cloth pulled apart tears and reports every torn
// link exactly once with the particles it joined, a hanging cloth with a generous ratio never
// tears, one violent step does not tear a link; the *_counts functions match what every option
// combination makes; tethers reduce stretch; the jelly block keeps its shape on a floor;
// destroying every particle empties the world; bad defs are refused; and a build that runs out
// of memory leaves the world exactly as it was.
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static const float dt = 1.0f / 60.0f;

static const char *const mode_names[] = {"Gauss-Seidel", "Jacobi"};

static bool same_particle(sinew_particle_id a, sinew_particle_id b)
{
    return a.index1 == b.index1 && a.generation == b.generation;
}

static bool same_link(sinew_distance_id a, sinew_distance_id b)
{
    return a.index1 == b.index1 && a.generation == b.generation;
}

static sinew_world *world_of(sinew_solver_mode mode)
{
    sinew_world_def def = sinew_default_world_def();
    def.solver.mode = mode;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    return w;
}

// Largest |length / rest - 1| over the live links of a list.
static double max_stretch(const sinew_world *w, const sinew_distance_id *links, int n)
{
    double m = 0.0;
    for (int k = 0; k < n; ++k) {
        sinew_distance_def d;
        if (sinew_distance_get(w, links[k], &d) != SINEW_OK || !(d.rest > 0.0f)) {
            continue;
        }
        m = fmax(m, fabs(sinew_vec2_distance(position_of(w, d.a), position_of(w, d.b)) / d.rest - 1.0));
    }
    return m;
}

static bool all_finite(const sinew_world *w)
{
    sinew_particle_view v = sinew_world_particles(w);
    for (int i = 0; i < v.count; ++i) {
        if (!isfinite(v.x[i]) || !isfinite(v.y[i])) {
            return false;
        }
    }
    return true;
}

// ---- tearing ----------------------------------------------------------------------------------

static void a_cloth_pulled_apart_tears_each_link_once(void **state)
{
    (void)state;
    // A 10 x 8 cloth (structural, shear and bend links, tear ratio 1.5) pinned along the top;
    // its bottom row is made immovable and pinned too, and those pins are dragged down 5 cm a
    // step for 2 s (6 m: the cloth is 1.75 m tall). Every step: each reported tear names a link
    // of the cloth not reported before, no longer valid, joining the particles recorded for it
    // at creation; every link that is no longer valid has been reported (none vanish silently);
    // no position is NaN. The bend links (tear ratio 0 by the header) never tear.
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w = world_of((sinew_solver_mode)mode);
        sinew_cloth_def cd = sinew_default_cloth_def();
        cd.columns = 10;
        cd.rows = 8;
        cd.shear = true;
        cd.bend = true;
        cd.tear_ratio = 1.5f;
        const sinew_scene_counts counts = sinew_cloth_counts(&cd);
        sinew_particle_id particles[80];
        sinew_distance_id *links = calloc((size_t)counts.distances, sizeof *links);
        sinew_distance_def *was = calloc((size_t)counts.distances, sizeof *was);
        bool *seen = calloc((size_t)counts.distances, sizeof *seen);
        assert_true(links != NULL && was != NULL && seen != NULL);
        sinew_cloth out = {particles, links, NULL};
        assert_int_equal(sinew_cloth_create(w, &cd, &out), SINEW_OK);
        for (int k = 0; k < counts.distances; ++k) {
            assert_int_equal(sinew_distance_get(w, links[k], &was[k]), SINEW_OK);
        }
        sinew_pin_id bottom[10];
        sinew_vec2 start[10];
        for (int c = 0; c < 10; ++c) {
            const sinew_particle_id p = particles[7 * 10 + c];
            start[c] = position_of(w, p);
            assert_int_equal(sinew_particle_set_weight(w, p, 0.0f), SINEW_OK);
            sinew_pin_def pd = sinew_default_pin_def();
            pd.particle = p;
            pd.target = start[c];
            assert_int_equal(sinew_pin_create(w, &pd, &bottom[c]), SINEW_OK);
        }
        int torn = 0, torn_bend = 0, steps_with_tears = 0;
        for (int s = 1; s <= 120; ++s) {
            for (int c = 0; c < 10; ++c) {
                const sinew_vec2 t = sinew_vec2_make(start[c].x, start[c].y - 0.05f * (float)s);
                assert_int_equal(sinew_pin_set_target(w, bottom[c], t), SINEW_OK);
            }
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            assert_true(all_finite(w));
            int n = -1;
            const sinew_tear *tears = sinew_world_tears(w, &n);
            assert_non_null(tears);
            assert_true(n >= 0);
            steps_with_tears += n > 0;
            for (int t = 0; t < n; ++t) {
                int k = 0;
                while (k < counts.distances && !same_link(links[k], tears[t].link)) {
                    ++k;
                }
                if (k == counts.distances) {
                    fail_msg("step %d: tear %d names a link the cloth did not make", s, t);
                }
                if (seen[k]) {
                    fail_msg("step %d: link %d reported a second time", s, k);
                }
                seen[k] = true;
                torn += 1;
                torn_bend += fabsf(was[k].rest - 2.0f * cd.spacing) < 1e-6f;
                assert_false(sinew_distance_is_valid(w, tears[t].link));
                assert_true(same_particle(tears[t].a, was[k].a));
                assert_true(same_particle(tears[t].b, was[k].b));
            }
            for (int k = 0; k < counts.distances; ++k) {
                assert_true(sinew_distance_is_valid(w, links[k]) == !seen[k]);
            }
            assert_int_equal(sinew_world_stats(w).kinds[SINEW_KIND_DISTANCE].count, counts.distances - torn);
        }
        print_message("%s: pulled cloth: %d of %d links torn over %d steps, %d of them bend links\n", mode_names[mode],
                      torn, counts.distances, steps_with_tears, torn_bend);
        // Pulled 6 m, a 1.75 m cloth must come apart: at least one link per column (10).
        assert_true(torn >= 10);
        assert_int_equal(torn_bend, 0);
        free(links);
        free(was);
        free(seen);
        sinew_world_destroy(w);
    }
}

static void a_hanging_cloth_with_a_generous_ratio_never_tears(void **state)
{
    (void)state;
    // A 16 x 16 cloth (default otherwise) with shear links, tear ratio 3, hanging under gravity
    // for 4 s: measured longest link 1.0012 (Gauss-Seidel) and 1.016 (Jacobi) times its rest,
    // far from 3.
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w = world_of((sinew_solver_mode)mode);
        sinew_cloth_def cd = sinew_default_cloth_def();
        cd.columns = 16;
        cd.rows = 16;
        cd.shear = true;
        cd.tear_ratio = 3.0f;
        const sinew_scene_counts counts = sinew_cloth_counts(&cd);
        sinew_distance_id *links = calloc((size_t)counts.distances, sizeof *links);
        assert_non_null(links);
        sinew_cloth out = {NULL, links, NULL};
        assert_int_equal(sinew_cloth_create(w, &cd, &out), SINEW_OK);
        double stretch = 0.0;
        for (int s = 0; s < 240; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            int n = -1;
            sinew_world_tears(w, &n);
            assert_int_equal(n, 0);
            if (s % 30 == 29) {
                stretch = fmax(stretch, max_stretch(w, links, counts.distances));
            }
        }
        for (int k = 0; k < counts.distances; ++k) {
            assert_true(sinew_distance_is_valid(w, links[k]));
        }
        print_message("%s: hanging cloth, longest link %.4f of rest\n", mode_names[mode], 1.0 + stretch);
        assert_true(stretch < 0.5); // the margin to the ratio of 3 is the point; 1.5 would be plenty
        free(links);
        sinew_world_destroy(w);
    }
}

// Two immovable particles 1 m apart (x = 0 and x = 1), joined by a link with tear ratio 1.5; the
// second is pinned (kinematic) and its target set each step from `lengths` (the link's length
// that step). Returns the step (1-based) in which the link tore, or 0.
static int tear_step(sinew_solver_mode mode, const float *lengths, int steps)
{
    sinew_world *w = world_of(mode);
    sinew_particle_id a = make_particle(w, 0, 0, 0), b = make_particle(w, 1, 0, 0);
    sinew_distance_def d = sinew_default_distance_def();
    d.a = a;
    d.b = b;
    d.tear_ratio = 1.5f;
    sinew_distance_id link;
    assert_int_equal(sinew_distance_create(w, &d, &link), SINEW_OK);
    sinew_pin_def pd = sinew_default_pin_def();
    pd.particle = b;
    pd.target = sinew_vec2_make(1, 0);
    sinew_pin_id pin;
    assert_int_equal(sinew_pin_create(w, &pd, &pin), SINEW_OK);
    int at = 0;
    for (int s = 0; s < steps && at == 0; ++s) {
        assert_int_equal(sinew_pin_set_target(w, pin, sinew_vec2_make(lengths[s], 0)), SINEW_OK);
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        assert_near(sinew_vec2_distance(position_of(w, a), position_of(w, b)), lengths[s], 1e-5);
        int n = 0;
        const sinew_tear *t = sinew_world_tears(w, &n);
        if (n > 0) {
            assert_int_equal(n, 1);
            assert_true(same_link(t[0].link, link));
            at = s + 1;
        }
    }
    assert_true(sinew_distance_is_valid(w, link) == (at == 0));
    sinew_world_destroy(w);
    return at;
}

static void one_violent_step_does_not_tear_a_link(void **state)
{
    (void)state;
    // The strain that tears is smoothed over steps (distance.c), so one step at twice the rest
    // length, or even 2.5 times, does not tear a link with ratio 1.5, while the same stretch
    // held tears it within a few steps. (The link's ends are immovable, so the solver cannot
    // shorten it: its length each step is exactly the one asked for.)
    for (int mode = 0; mode < 2; ++mode) {
        const float spike2[12] = {1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1};
        const float spike25[12] = {1, 1, 2.5f, 1, 1, 1, 1, 1, 1, 1, 1, 1};
        const float two_spikes[12] = {1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1};
        const float held2[12] = {1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
        const float held16[12] = {1, 1.6f, 1.6f, 1.6f, 1.6f, 1.6f, 1.6f, 1.6f, 1.6f, 1.6f, 1.6f, 1.6f};
        const float held14[12] = {1, 1.4f, 1.4f, 1.4f, 1.4f, 1.4f, 1.4f, 1.4f, 1.4f, 1.4f, 1.4f, 1.4f};
        assert_int_equal(tear_step((sinew_solver_mode)mode, spike2, 12), 0);
        assert_int_equal(tear_step((sinew_solver_mode)mode, spike25, 12), 0);
        assert_int_equal(tear_step((sinew_solver_mode)mode, two_spikes, 12), 0);
        assert_int_equal(tear_step((sinew_solver_mode)mode, held14, 12), 0); // below the ratio: never
        const int at2 = tear_step((sinew_solver_mode)mode, held2, 12);
        const int at16 = tear_step((sinew_solver_mode)mode, held16, 12);
        print_message("%s: held at 2x rest the link tears at step %d, at 1.6x at step %d\n", mode_names[mode], at2, at16);
        // Measured: at 2x it tears in the second step at that length (step 4), at 1.6x in the
        // sixth (step 7); a held stretch tears, a smaller one later, a spike never.
        assert_true(at2 > 3 && at2 <= 6); // not in the first step at 2x, but soon after
        assert_true(at16 > at2 && at16 <= 12);
    }
}

// ---- counts match what is made ----------------------------------------------------------------

static void rope_counts_match_every_option(void **state)
{
    (void)state;
    const int link_counts[] = {1, 2, 7, 40};
    const float bends[] = {0.0f, 0.5f, 1.0f};
    for (size_t l = 0; l < sizeof link_counts / sizeof link_counts[0]; ++l) {
        for (size_t b = 0; b < sizeof bends / sizeof bends[0]; ++b) {
            for (int tethers = 0; tethers < 2; ++tethers) {
                for (int pins = 0; pins < 4; ++pins) {
                    sinew_rope_def d = sinew_default_rope_def();
                    d.links = link_counts[l];
                    d.bend_stiffness = bends[b];
                    d.tethers = tethers != 0;
                    d.pin_start = (pins & 1) != 0;
                    d.pin_end = (pins & 2) != 0;
                    d.mode = tethers ? SINEW_DISTANCE_MAX_ONLY : SINEW_DISTANCE_EQUAL;
                    const int n = d.links;
                    const sinew_scene_counts c = sinew_rope_counts(&d);
                    // By the header: n + 1 particles, n links, a bend at each of the n - 1 inner
                    // joints, a tether from every particle to each pinned end it is not.
                    const int ends = (int)d.pin_start + (int)d.pin_end;
                    const sinew_scene_counts expect = {n + 1, n + (d.tethers ? n * ends : 0), bends[b] > 0 ? n - 1 : 0,
                                                       0, ends, SINEW_OK, ""};
                    assert_held((held){c.particles, c.distances, c.pins, c.areas, c.angles, 0}, expect, "rope counts");
                    sinew_particle_id particles[41];
                    sinew_distance_id links[40], tether_ids[80];
                    sinew_angle_id bend_ids[39];
                    sinew_rope out = {particles, links, bend_ids, tether_ids, SINEW_NULL_ID, SINEW_NULL_ID};
                    sinew_world *w = world_of(SINEW_SOLVER_GAUSS_SEIDEL);
                    assert_int_equal(sinew_rope_create(w, &d, &out), SINEW_OK);
                    const int tether_count = c.distances - n;
                    for (int k = 0; k < c.angles; ++k) {
                        assert_true(sinew_angle_is_valid(w, bend_ids[k]));
                    }
                    const float spacing = sinew_vec2_distance(d.start, d.end) / (float)n;
                    for (int k = 0; k < tether_count; ++k) {
                        sinew_distance_def td;
                        assert_int_equal(sinew_distance_get(w, tether_ids[k], &td), SINEW_OK);
                        assert_int_equal(td.mode, SINEW_DISTANCE_MAX_ONLY);
                        // One end is a pinned end, and the rest is the path length along the rope.
                        const int ia = sinew_particle_index(w, td.a), ib = sinew_particle_index(w, td.b);
                        const int pa = ia - sinew_particle_index(w, particles[0]), pb = ib - sinew_particle_index(w, particles[0]);
                        const bool to_start = d.pin_start && (pa == 0 || pb == 0);
                        const bool to_end = d.pin_end && (pa == n || pb == n);
                        assert_true(to_start || to_end);
                        assert_near(td.rest, spacing * (float)abs(pa - pb), 1e-4);
                    }
                    assert_held(count_by_stepping(w), c, "rope");
                    sinew_world_destroy(w);
                }
            }
        }
    }
}

// Whether column c of a cloth's top row is pinned, from the header alone.
static bool pinned_by_hand(const sinew_cloth_def *d, int c)
{
    return d->pin == SINEW_CLOTH_PIN_TOP_ROW ||
           (d->pin == SINEW_CLOTH_PIN_TOP_CORNERS && (c == 0 || c == d->columns - 1));
}

// Distance links of a cloth def counted from the header, independently of the engine: grid
// neighbours (structural), diagonals (shear), two apart in a row or column (bend), leaving out
// links whose two ends are pinned; a tether for every free particle when anything is pinned.
static int cloth_links_by_hand(const sinew_cloth_def *d, int *pins)
{
    const int W = d->columns, H = d->rows;
    bool pinned[4096];
    int np = 0;
    for (int c = 0; c < W; ++c) {
        pinned[c] = pinned_by_hand(d, c);
        np += pinned[c];
    }
    const int offsets[6][3] = {{0, 1, 0}, {1, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 2, 2}, {2, 0, 2}}; // dr, dc, family
    const bool on[3] = {d->structural, d->shear, d->bend};
    int n = 0;
    for (int r = 0; r < H; ++r) {
        for (int c = 0; c < W; ++c) {
            for (int o = 0; o < 6; ++o) {
                const int r2 = r + offsets[o][0], c2 = c + offsets[o][1];
                if (!on[offsets[o][2]] || r2 >= H || c2 < 0 || c2 >= W) {
                    continue;
                }
                const bool both = r == 0 && r2 == 0 && pinned[c] && pinned[c2];
                n += !both;
            }
        }
    }
    if (d->tethers && np > 0) {
        n += W * H - np;
    }
    *pins = np;
    return n;
}

static void cloth_counts_match_every_option(void **state)
{
    (void)state;
    const int sizes[][2] = {{2, 1}, {1, 5}, {3, 3}, {5, 4}, {6, 7}};
    const sinew_cloth_pin pin_modes[] = {SINEW_CLOTH_PIN_NONE, SINEW_CLOTH_PIN_TOP_ROW, SINEW_CLOTH_PIN_TOP_CORNERS};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        for (size_t p = 0; p < 3; ++p) {
            for (int flags = 0; flags < 16; ++flags) {
                sinew_cloth_def d = sinew_default_cloth_def();
                d.columns = sizes[s][0];
                d.rows = sizes[s][1];
                d.pin = pin_modes[p];
                d.structural = (flags & 1) != 0;
                d.shear = (flags & 2) != 0;
                d.bend = (flags & 4) != 0;
                d.tethers = (flags & 8) != 0;
                d.tear_ratio = flags == 15 ? 2.0f : 0.0f;
                int pins = 0;
                const int links = cloth_links_by_hand(&d, &pins);
                const sinew_scene_counts c = sinew_cloth_counts(&d);
                const sinew_scene_counts expect = {d.columns * d.rows, links, 0, 0, pins, SINEW_OK, ""};
                assert_held((held){c.particles, c.distances, c.pins, c.areas, c.angles, 0}, expect, "cloth counts");
                sinew_particle_id particles[64];
                sinew_distance_id ids[512];
                sinew_pin_id pin_ids[8];
                assert_true(c.distances <= 512);
                memset(ids, 0, sizeof ids);
                sinew_cloth out = {particles, ids, pin_ids};
                sinew_world *w = world_of(SINEW_SOLVER_GAUSS_SEIDEL);
                assert_int_equal(sinew_cloth_create(w, &d, &out), SINEW_OK);
                // Every link id written is live and different from the others.
                for (int k = 0; k < c.distances; ++k) {
                    assert_true(sinew_distance_is_valid(w, ids[k]));
                    for (int m = 0; m < k; ++m) {
                        assert_false(same_link(ids[k], ids[m]));
                    }
                }
                for (int k = 0; k < c.pins; ++k) {
                    assert_true(sinew_pin_is_valid(w, pin_ids[k]));
                }
                assert_held(count_by_stepping(w), c, "cloth");
                sinew_world_destroy(w);
            }
        }
    }
}

// Each tether of a cloth joins a free particle to its nearest pin by rest distance (the leftmost
// of two as near), found here by a search over every pin, with the rest length of the flat pose.
static void cloth_tethers_join_the_nearest_pin(void **state)
{
    (void)state;
    const int widths[] = {1, 2, 3, 6, 7};
    const sinew_cloth_pin pin_modes[] = {SINEW_CLOTH_PIN_TOP_ROW, SINEW_CLOTH_PIN_TOP_CORNERS};
    for (size_t s = 0; s < sizeof widths / sizeof widths[0]; ++s) {
        for (size_t p = 0; p < 2; ++p) {
            sinew_cloth_def d = sinew_default_cloth_def();
            d.columns = widths[s];
            d.rows = 4;
            d.pin = pin_modes[p];
            d.tethers = true;
            const int W = d.columns, H = d.rows;
            bool pinned[8];
            for (int c = 0; c < W; ++c) {
                pinned[c] = pinned_by_hand(&d, c);
            }
            const sinew_scene_counts counts = sinew_cloth_counts(&d);
            sinew_particle_id particles[32];
            sinew_distance_id ids[256];
            sinew_pin_id pin_ids[8];
            assert_true(counts.distances <= 256 && W * H <= 32);
            sinew_cloth out = {particles, ids, pin_ids};
            sinew_world *w = world_of(SINEW_SOLVER_GAUSS_SEIDEL);
            assert_int_equal(sinew_cloth_create(w, &d, &out), SINEW_OK);
            // The tethers are the last links made, one per free particle in row-major order.
            int k = counts.distances;
            for (int r = 0; r < H; ++r) {
                for (int c = 0; c < W; ++c) {
                    k -= r > 0 || !pinned[c];
                }
            }
            for (int r = 0; r < H; ++r) {
                for (int c = 0; c < W; ++c) {
                    if (r == 0 && pinned[c]) {
                        continue;
                    }
                    int best = -1;
                    for (int q = 0; q < W; ++q) {
                        if (pinned[q] && (best < 0 || abs(c - q) < abs(c - best))) {
                            best = q;
                        }
                    }
                    sinew_distance_def td;
                    assert_int_equal(sinew_distance_get(w, ids[k++], &td), SINEW_OK);
                    assert_true(same_particle(td.a, particles[r * W + c]));
                    assert_true(same_particle(td.b, particles[best]));
                    const float rest = d.spacing * sqrtf((float)(r * r + (c - best) * (c - best)));
                    assert_float_equal(td.rest, rest, 1e-6f * (1.0f + rest));
                    assert_int_equal(td.mode, SINEW_DISTANCE_MAX_ONLY);
                }
            }
            assert_int_equal(k, counts.distances);
            sinew_world_destroy(w);
        }
    }
}

// Ring distance between ring positions i and j of an n-ring.
static int ring_distance(int i, int j, int n)
{
    const int d = abs(i - j) % n;
    return d < n - d ? d : n - d;
}

static void soft_body_counts_match_every_inside(void **state)
{
    (void)state;
    const int points[] = {3, 4, 5, 7, 8, 9, 24};
    for (size_t p = 0; p < sizeof points / sizeof points[0]; ++p) {
        for (int inside = 0; inside < 3; ++inside) {
            sinew_softbody_def d = sinew_default_softbody_def();
            d.points = points[p];
            d.inside = (sinew_softbody_inside)inside;
            const int n = d.points;
            const sinew_scene_counts c = sinew_softbody_counts(&d);
            assert_int_equal(c.particles, n + (inside == SINEW_SOFTBODY_CENTER));
            assert_int_equal(c.areas, 1);
            assert_int_equal(c.pins, 0);
            assert_int_equal(c.angles, 0);
            if (inside == SINEW_SOFTBODY_EMPTY) {
                assert_int_equal(c.distances, n);
            } else if (inside == SINEW_SOFTBODY_CENTER) {
                assert_int_equal(c.distances, 2 * n);
            } else if (n == 3) {
                // In a triangle every pair is an edge already: no spring is added (it would
                // duplicate an edge link).
                assert_int_equal(c.distances, n);
            } else {
                assert_true(c.distances > n);
            }
            sinew_particle_id particles[25];
            sinew_distance_id links[80];
            assert_true(c.distances <= 80);
            sinew_softbody out = {particles, links, SINEW_NULL_ID};
            sinew_world *w = world_of(SINEW_SOLVER_GAUSS_SEIDEL);
            assert_int_equal(sinew_softbody_create(w, &d, &out), SINEW_OK);
            assert_true(sinew_area_is_valid(w, out.area));
            // The ring's edges come first: edge k joins ring neighbours.
            const int first = sinew_particle_index(w, particles[0]);
            for (int k = 0; k < c.distances; ++k) {
                sinew_distance_def ld;
                assert_int_equal(sinew_distance_get(w, links[k], &ld), SINEW_OK);
                const int a = sinew_particle_index(w, ld.a) - first, b = sinew_particle_index(w, ld.b) - first;
                if (k < n) {
                    assert_int_equal(ring_distance(a, b, n), 1);
                } else if (inside == SINEW_SOFTBODY_CENTER) {
                    assert_true(a == n || b == n); // a spoke from the centre
                }
            }
            assert_held(count_by_stepping(w), c, "soft body");
            sinew_world_destroy(w);
        }
    }
}

static void every_soft_body_particle_gets_its_springs(void **state)
{
    (void)state;
    // ENGINE BUG (minor, kept failing on purpose). The header: SINEW_SOFTBODY_SPRINGS joins
    // "each particle ... to the ones a quarter and half way round". softbody.c makes the half-way
    // springs for k < n / 2 only (k to k + n / 2): for an even n that is every particle, for an
    // odd n it is not. n = 9: springs (0,4) (1,5) (2,6) (3,7); particle 8 has no half-way
    // spring, so the body is stiffer on one side. (And n = 3 gets a "spring" (0,1) on top of the
    // edge (0,1).) Either every k (n pairs for odd n) or the header's wording should change.
    const int points[] = {8, 24, 9, 25};
    int missing = 0;
    for (size_t p = 0; p < sizeof points / sizeof points[0]; ++p) {
        sinew_softbody_def d = sinew_default_softbody_def();
        d.points = points[p];
        d.inside = SINEW_SOFTBODY_SPRINGS;
        const int n = d.points;
        const sinew_scene_counts c = sinew_softbody_counts(&d);
        sinew_particle_id particles[25];
        sinew_distance_id links[80];
        sinew_softbody out = {particles, links, SINEW_NULL_ID};
        sinew_world *w = world_of(SINEW_SOLVER_GAUSS_SEIDEL);
        assert_int_equal(sinew_softbody_create(w, &d, &out), SINEW_OK);
        bool quarter[25] = {false}, half[25] = {false};
        const int first = sinew_particle_index(w, particles[0]);
        for (int k = n; k < c.distances; ++k) {
            sinew_distance_def ld;
            assert_int_equal(sinew_distance_get(w, links[k], &ld), SINEW_OK);
            const int a = sinew_particle_index(w, ld.a) - first, b = sinew_particle_index(w, ld.b) - first;
            const int r = ring_distance(a, b, n);
            if (r == n / 4) {
                quarter[a] = quarter[b] = true;
            }
            if (r == n / 2) {
                half[a] = half[b] = true;
            }
        }
        int missing_quarter = 0, missing_half = 0;
        for (int k = 0; k < n; ++k) {
            missing_quarter += !quarter[k];
            missing_half += !half[k];
        }
        print_message("%d points: %d particles without a quarter-way spring, %d without a half-way one\n", n,
                      missing_quarter, missing_half);
        sinew_world_destroy(w); // before asserting: a failure must not leak the world
        missing += missing_quarter + missing_half;
    }
    assert_int_equal(missing, 0);
}

// ---- behaviour of what the builders make -------------------------------------------------------

static void tethers_reduce_stretch(void **state)
{
    (void)state;
    // A 200-link rope, 20 m, hanging from its pinned start (laid out straight down, so it settles
    // without swinging), 5 s at the default 4 x 8: without tethers the links stretch under the
    // weight below them (the solver does not converge over 200 links in 32 iterations); the
    // tethers cap each particle's distance from the pin at its path length. Measured longest
    // link: 8.3% (Gauss-Seidel) and 8.7% (Jacobi) over rest without tethers, ~0 with them.
    // Asserted: with tethers at most a quarter of the stretch without, and the tip no lower than
    // the rope's length (1 mm of rounding and solver slack).
    for (int mode = 0; mode < 2; ++mode) {
        double stretch[2], tip[2];
        for (int t = 0; t < 2; ++t) {
            sinew_world *w = world_of((sinew_solver_mode)mode);
            sinew_rope_def d = sinew_default_rope_def();
            d.links = 200;
            d.start = sinew_vec2_make(0, 0);
            d.end = sinew_vec2_make(0, -20);
            d.tethers = t != 0;
            sinew_particle_id particles[201];
            sinew_distance_id links[200];
            sinew_rope out = {.particles = particles, .links = links};
            assert_int_equal(sinew_rope_create(w, &d, &out), SINEW_OK);
            for (int s = 0; s < 300; ++s) {
                assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            }
            stretch[t] = max_stretch(w, links, 200);
            tip[t] = position_of(w, particles[200]).y;
            sinew_world_destroy(w);
        }
        print_message("%s: 200-link rope: longest link %.3g%% over rest without tethers (tip at %.3f m), %.3g%% with "
                      "(tip at %.3f m)\n",
                      mode_names[mode], 100.0 * stretch[0], tip[0], 100.0 * stretch[1], tip[1]);
        assert_true(stretch[0] > 0.01); // the comparison means something
        assert_true(stretch[1] < 0.25 * stretch[0]);
        assert_true(tip[1] > -20.001);
        assert_true(tip[0] < tip[1]);
    }
}

static void the_jelly_block_keeps_its_shape_on_a_floor(void **state)
{
    (void)state;
    // sinew_default_jelly_def: 8 x 8 particles 0.25 m apart (1.75 m square), structural and
    // shear links, colliding, no pins. Dropped from 1.25 m onto a floor. Its bounding box must
    // stay within 20% of 1.75 m on both axes all the way (measured worst 5.9%, Jacobi at the
    // landing) and within 5% once settled (measured 0.3%), resting on the floor (its lowest
    // centre one particle radius, 0.1 m, up; 0.02 m of contact slop).
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w = world_of((sinew_solver_mode)mode);
        const sinew_collider_def cd = sinew_default_collider_def();
        sinew_collider_id floor;
        assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0, 1), 0.0f, &floor), SINEW_OK);
        sinew_cloth_def jd = sinew_default_jelly_def();
        assert_int_equal(jd.pin, SINEW_CLOTH_PIN_NONE);
        assert_true((jd.particle_flags & SINEW_PARTICLE_COLLIDES) != 0);
        assert_true(jd.structural && jd.shear);
        assert_true(jd.radius < 0.5f * jd.spacing);
        jd.origin = sinew_vec2_make(0, 3);
        assert_int_equal(sinew_cloth_create(w, &jd, NULL), SINEW_OK);
        const double side = jd.spacing * (jd.columns - 1);
        double worst = 0.0, worst_settled = 0.0, lowest = 0.0;
        for (int s = 0; s < 300; ++s) {
            assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
            sinew_particle_view v = sinew_world_particles(w);
            double x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9;
            for (int i = 0; i < v.count; ++i) {
                x0 = fmin(x0, v.x[i]);
                x1 = fmax(x1, v.x[i]);
                y0 = fmin(y0, v.y[i]);
                y1 = fmax(y1, v.y[i]);
            }
            const double e = fmax(fabs((x1 - x0) / side - 1.0), fabs((y1 - y0) / side - 1.0));
            worst = fmax(worst, e);
            if (s >= 240) {
                worst_settled = fmax(worst_settled, e);
                lowest = y0;
            }
        }
        print_message("%s: jelly: bounding box off by up to %.3g%% (%.3g%% settled), lowest y %.4f\n", mode_names[mode],
                      100.0 * worst, 100.0 * worst_settled, lowest);
        assert_true(worst < 0.2);
        assert_true(worst_settled < 0.05);
        assert_true(lowest > 0.08 && lowest < 0.12);
        sinew_world_destroy(w);
    }
}

// ---- destroying everything --------------------------------------------------------------------

static void destroying_every_particle_empties_the_world(void **state)
{
    (void)state;
    // One of each builder with every option that makes constraints: a rope with bends and
    // tethers pinned at both ends, a cloth with every link family, tethers and tearing, soft
    // bodies (springs, centre), a pile without a container (only particles). Then every particle
    // they returned is destroyed in a scrambled order.
    sinew_world *w = world_of(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id ids[512];
    int n = 0;

    sinew_rope_def rd = sinew_default_rope_def();
    rd.links = 12;
    rd.pin_end = true;
    rd.bend_stiffness = 0.5f;
    rd.tethers = true;
    sinew_rope rope = {.particles = ids + n};
    assert_int_equal(sinew_rope_create(w, &rd, &rope), SINEW_OK);
    n += sinew_rope_counts(&rd).particles;

    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.columns = 7;
    cd.rows = 6;
    cd.origin = sinew_vec2_make(20, 0);
    cd.pin = SINEW_CLOTH_PIN_TOP_CORNERS;
    cd.shear = cd.bend = cd.tethers = true;
    cd.tear_ratio = 2.0f;
    sinew_cloth cloth = {ids + n, NULL, NULL};
    assert_int_equal(sinew_cloth_create(w, &cd, &cloth), SINEW_OK);
    n += sinew_cloth_counts(&cd).particles;

    for (int inside = 1; inside < 3; ++inside) {
        sinew_softbody_def sd = sinew_default_softbody_def();
        sd.center = sinew_vec2_make(-10.0f - 5.0f * (float)inside, 0);
        sd.inside = (sinew_softbody_inside)inside;
        sinew_softbody body = {ids + n, NULL, SINEW_NULL_ID};
        assert_int_equal(sinew_softbody_create(w, &sd, &body), SINEW_OK);
        n += sinew_softbody_counts(&sd).particles;
    }

    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 30;
    pd.origin = sinew_vec2_make(40, 0);
    pd.container = SINEW_PILE_NONE;
    sinew_pile pile = {0};
    pile.particles = ids + n;
    assert_int_equal(sinew_pile_create(w, &pd, &pile), SINEW_OK);
    n += pd.count;

    held h = count_by_stepping(w);
    assert_int_equal(h.particles, n);
    assert_true(h.distances > 0 && h.pins == 4 && h.areas == 2 && h.angles == 11);
    for (int k = 0; k < n; ++k) {
        const int i = (k * 37 + 11) % n; // 37 is prime to n unless it divides it
        if (sinew_particle_is_valid(w, ids[i])) {
            assert_int_equal(sinew_particle_destroy(w, ids[i]), SINEW_OK);
        }
    }
    for (int k = 0; k < n; ++k) { // whatever the permutation missed
        if (sinew_particle_is_valid(w, ids[k])) {
            assert_int_equal(sinew_particle_destroy(w, ids[k]), SINEW_OK);
        }
    }
    assert_int_equal(sinew_world_particles(w).count, 0);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    const sinew_step_stats st = sinew_world_stats(w);
    assert_int_equal(st.particles, 0);
    for (int k = 0; k < SINEW_KIND_COUNT; ++k) {
        assert_int_equal(st.kinds[k].count, 0);
    }
    assert_false(sinew_pin_is_valid(w, rope.start_pin));
    sinew_world_destroy(w);
}

// ---- refused defs -----------------------------------------------------------------------------

typedef enum builder { ROPE, CLOTH, SOFTBODY, PILE } builder;

typedef struct bad_def {
    const char *what;
    builder kind;
    sinew_rope_def rope;
    sinew_cloth_def cloth;
    sinew_softbody_def body;
    sinew_pile_def pile;
    sinew_status expected;
} bad_def;

static sinew_status build_with(sinew_world *w, const bad_def *b, sinew_particle_id *ids, sinew_distance_id *links)
{
    switch (b->kind) {
    case ROPE: {
        sinew_rope out = {.particles = ids, .links = links};
        return sinew_rope_create(w, &b->rope, &out);
    }
    case CLOTH: {
        sinew_cloth out = {ids, links, NULL};
        return sinew_cloth_create(w, &b->cloth, &out);
    }
    case SOFTBODY: {
        sinew_softbody out = {ids, links, SINEW_NULL_ID};
        return sinew_softbody_create(w, &b->body, &out);
    }
    default: {
        sinew_pile out = {0};
        out.particles = ids;
        return sinew_pile_create(w, &b->pile, &out);
    }
    }
}

static sinew_scene_counts counts_of(const bad_def *b)
{
    switch (b->kind) {
    case ROPE: return sinew_rope_counts(&b->rope);
    case CLOTH: return sinew_cloth_counts(&b->cloth);
    case SOFTBODY: return sinew_softbody_counts(&b->body);
    default: return sinew_pile_counts(&b->pile);
    }
}

// Every bad def of the table, for each builder; `n` gets how many.
static bad_def *bad_defs(int *n)
{
    static bad_def t[64];
    int k = 0;
#define BAD(KIND, FIELD, TYPE, WHAT, EXPECTED, ...)                                                \
    do {                                                                                          \
        t[k].what = WHAT;                                                                         \
        t[k].kind = KIND;                                                                         \
        t[k].rope = sinew_default_rope_def();                                                     \
        t[k].cloth = sinew_default_cloth_def();                                                   \
        t[k].body = sinew_default_softbody_def();                                                 \
        t[k].pile = sinew_default_pile_def();                                                     \
        t[k].pile.count = 20;                                                                     \
        { TYPE *d_ = &t[k].FIELD; __VA_ARGS__; }                                                  \
        t[k++].expected = EXPECTED;                                                               \
    } while (0)
    BAD(ROPE, rope, sinew_rope_def, "rope bend NaN", SINEW_ERR_NOT_FINITE, d_->bend_stiffness = NAN);
    BAD(ROPE, rope, sinew_rope_def, "rope bend 1.5", SINEW_ERR_OUT_OF_RANGE, d_->bend_stiffness = 1.5f);
    BAD(ROPE, rope, sinew_rope_def, "rope bend -0.1", SINEW_ERR_OUT_OF_RANGE, d_->bend_stiffness = -0.1f);
    BAD(ROPE, rope, sinew_rope_def, "rope weight NaN", SINEW_ERR_NOT_FINITE, d_->weight = NAN);
    BAD(ROPE, rope, sinew_rope_def, "rope links 0", SINEW_ERR_OUT_OF_RANGE, d_->links = 0);
    BAD(ROPE, rope, sinew_rope_def, "rope start inf", SINEW_ERR_NOT_FINITE, d_->start.x = INFINITY);
    BAD(ROPE, rope, sinew_rope_def, "rope compliance -1", SINEW_ERR_OUT_OF_RANGE, d_->compliance = -1.0f);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth tear 1", SINEW_ERR_OUT_OF_RANGE, d_->tear_ratio = 1.0f);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth tear 0.5", SINEW_ERR_OUT_OF_RANGE, d_->tear_ratio = 0.5f);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth tear -2", SINEW_ERR_OUT_OF_RANGE, d_->tear_ratio = -2.0f);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth tear NaN", SINEW_ERR_NOT_FINITE, d_->tear_ratio = NAN);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth tear inf", SINEW_ERR_NOT_FINITE, d_->tear_ratio = INFINITY);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth bend 1.5", SINEW_ERR_OUT_OF_RANGE, d_->bend_stiffness = 1.5f);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth bend NaN", SINEW_ERR_NOT_FINITE, d_->bend_stiffness = NAN);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth columns 5000", SINEW_ERR_OUT_OF_RANGE, d_->columns = 5000);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth rows -1", SINEW_ERR_OUT_OF_RANGE, d_->rows = -1);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth radius -1", SINEW_ERR_OUT_OF_RANGE, d_->radius = -1.0f);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth weight inf", SINEW_ERR_NOT_FINITE, d_->weight = INFINITY);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth pin 3", SINEW_ERR_OUT_OF_RANGE, d_->pin = (sinew_cloth_pin)3);
    BAD(SOFTBODY, body, sinew_softbody_def, "body points 2", SINEW_ERR_OUT_OF_RANGE, d_->points = 2);
    BAD(SOFTBODY, body, sinew_softbody_def, "body radius 0", SINEW_ERR_OUT_OF_RANGE, d_->radius = 0.0f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body radius NaN", SINEW_ERR_NOT_FINITE, d_->radius = NAN);
    BAD(SOFTBODY, body, sinew_softbody_def, "body pressure 0", SINEW_ERR_OUT_OF_RANGE, d_->pressure = 0.0f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body pressure NaN", SINEW_ERR_NOT_FINITE, d_->pressure = NAN);
    BAD(SOFTBODY, body, sinew_softbody_def, "body area stiffness 1.5", SINEW_ERR_OUT_OF_RANGE, d_->area_stiffness = 1.5f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body area compliance -1", SINEW_ERR_OUT_OF_RANGE, d_->area_compliance = -1.0f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body area compliance inf", SINEW_ERR_NOT_FINITE, d_->area_compliance = INFINITY);
    BAD(SOFTBODY, body, sinew_softbody_def, "body edge stiffness 2", SINEW_ERR_OUT_OF_RANGE, d_->edge_stiffness = 2.0f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body edge stiffness NaN", SINEW_ERR_NOT_FINITE, d_->edge_stiffness = NAN);
    BAD(SOFTBODY, body, sinew_softbody_def, "body edge compliance -1", SINEW_ERR_OUT_OF_RANGE, d_->edge_compliance = -1.0f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body inner stiffness -0.1", SINEW_ERR_OUT_OF_RANGE, d_->inner_stiffness = -0.1f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body inner stiffness NaN", SINEW_ERR_NOT_FINITE, d_->inner_stiffness = NAN);
    BAD(SOFTBODY, body, sinew_softbody_def, "body weight 0", SINEW_ERR_OUT_OF_RANGE, d_->weight = 0.0f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body particle radius -1", SINEW_ERR_OUT_OF_RANGE, d_->particle_radius = -1.0f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body inside 7", SINEW_ERR_OUT_OF_RANGE, d_->inside = (sinew_softbody_inside)7);
    BAD(SOFTBODY, body, sinew_softbody_def, "body centre NaN", SINEW_ERR_NOT_FINITE, d_->center.y = NAN);
    BAD(PILE, pile, sinew_pile_def, "pile count 0", SINEW_ERR_OUT_OF_RANGE, d_->count = 0);
    BAD(PILE, pile, sinew_pile_def, "pile columns -1", SINEW_ERR_OUT_OF_RANGE, d_->columns = -1);
    BAD(PILE, pile, sinew_pile_def, "pile spacing 0", SINEW_ERR_OUT_OF_RANGE, d_->spacing = 0.0f);
    BAD(PILE, pile, sinew_pile_def, "pile spacing NaN", SINEW_ERR_NOT_FINITE, d_->spacing = NAN);
    BAD(PILE, pile, sinew_pile_def, "pile radius_min 0", SINEW_ERR_OUT_OF_RANGE, d_->radius_min = 0.0f);
    BAD(PILE, pile, sinew_pile_def, "pile radius_max < min", SINEW_ERR_OUT_OF_RANGE, d_->radius_max = 0.25f);
    BAD(PILE, pile, sinew_pile_def, "pile weight 0", SINEW_ERR_OUT_OF_RANGE, d_->weight = 0.0f);
    BAD(PILE, pile, sinew_pile_def, "pile friction -1", SINEW_ERR_OUT_OF_RANGE, d_->friction = -1.0f);
    BAD(PILE, pile, sinew_pile_def, "pile kinetic friction NaN", SINEW_ERR_NOT_FINITE, d_->kinetic_friction = NAN);
    BAD(PILE, pile, sinew_pile_def, "pile container 9", SINEW_ERR_OUT_OF_RANGE, d_->container = (sinew_pile_container)9);
    BAD(PILE, pile, sinew_pile_def, "pile origin inf", SINEW_ERR_NOT_FINITE, d_->origin.x = -INFINITY);
    BAD(PILE, pile, sinew_pile_def, "pile row offset NaN", SINEW_ERR_NOT_FINITE, d_->row_offset = NAN);
    // Issue 16: numbers that are finite but would put particles or walls beyond
    // SINEW_MAX_COORDINATE, or whose products overflow.
    BAD(ROPE, rope, sinew_rope_def, "rope end 3e38", SINEW_ERR_OUT_OF_RANGE, d_->end.x = 3e38f);
    BAD(ROPE, rope, sinew_rope_def, "rope radius 3e38", SINEW_ERR_OUT_OF_RANGE, d_->radius = 3e38f);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth spacing 1e38", SINEW_ERR_OUT_OF_RANGE, d_->spacing = 1e38f);
    BAD(CLOTH, cloth, sinew_cloth_def, "cloth origin -3e38", SINEW_ERR_OUT_OF_RANGE, d_->origin.y = -3e38f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body radius 3e38", SINEW_ERR_OUT_OF_RANGE, d_->radius = 3e38f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body area underflows", SINEW_ERR_OUT_OF_RANGE,
        d_->center = sinew_vec2_make(1000.0f, 1000.0f), d_->radius = 1e-30f);
    BAD(SOFTBODY, body, sinew_softbody_def, "body area denormal", SINEW_ERR_OUT_OF_RANGE, d_->radius = 4.6e-40f);
    BAD(PILE, pile, sinew_pile_def, "pile spacing 1e30", SINEW_ERR_OUT_OF_RANGE, d_->spacing = 1e30f);
    BAD(PILE, pile, sinew_pile_def, "pile count 2^24 + 1", SINEW_ERR_OUT_OF_RANGE, d_->count = (1 << 24) + 1);
    BAD(PILE, pile, sinew_pile_def, "pile count INT_MAX", SINEW_ERR_OUT_OF_RANGE, d_->count = INT_MAX);
    BAD(PILE, pile, sinew_pile_def, "pile columns INT_MAX far away", SINEW_ERR_OUT_OF_RANGE, d_->columns = INT_MAX,
        d_->spacing = 1e7f);
    BAD(PILE, pile, sinew_pile_def, "pile radius 3e38", SINEW_ERR_OUT_OF_RANGE, d_->radius_max = 3e38f);
#undef BAD
    *n = k;
    return t;
}

static void bad_defs_are_refused_and_create_nothing(void **state)
{
    (void)state;
    int n = 0;
    const bad_def *t = bad_defs(&n);
    for (int k = 0; k < n; ++k) {
        // A world with a particle, a link and a collider in it: a refused build leaves them.
        sinew_world *w = world_of(SINEW_SOLVER_GAUSS_SEIDEL);
        sinew_particle_id p0 = make_particle(w, 7, 7, 1), p1 = make_particle(w, 8, 7, 1);
        make_link(w, p0, p1);
        const sinew_collider_def cd = sinew_default_collider_def();
        sinew_collider_id floor;
        assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0, 1), -50.0f, &floor), SINEW_OK);
        const uint64_t h = hash_positions(w);
        const size_t bytes = sinew_world_byte_count(w);
        static sinew_particle_id ids[512];
        static sinew_distance_id links[1024];
        for (int i = 0; i < 512; ++i) {
            ids[i] = (sinew_particle_id){99u, 99u};
        }
        sinew_status s = build_with(w, &t[k], ids, links);
        assert_status(s, t[k].expected, "%s", t[k].what);
        assert_true(strlen(sinew_world_last_error(w)) > 0);
        assert_true(ids[0].index1 == 99u); // nothing written
        assert_true(hash_positions(w) == h);
        if (sinew_world_byte_count(w) != bytes) {
            fail_msg("%s: the refused build changed the byte count from %zu to %zu", t[k].what, bytes,
                     sinew_world_byte_count(w));
        }
        const held got = count_by_stepping(w);
        const held expect = {2, 1, 0, 0, 0, 1};
        assert_memory_equal(&got, &expect, sizeof got);
        sinew_world_destroy(w);
    }
    // NULL world or def.
    sinew_world *w = world_of(SINEW_SOLVER_GAUSS_SEIDEL);
    const sinew_rope_def rd = sinew_default_rope_def();
    const sinew_cloth_def cd = sinew_default_cloth_def();
    const sinew_softbody_def sd = sinew_default_softbody_def();
    const sinew_pile_def pd = sinew_default_pile_def();
    assert_int_equal(sinew_rope_create(NULL, &rd, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_rope_create(w, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_cloth_create(NULL, &cd, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_cloth_create(w, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_softbody_create(NULL, &sd, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_softbody_create(w, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_pile_create(NULL, &pd, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_pile_create(w, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    const held got = count_by_stepping(w), none = {0, 0, 0, 0, 0, 0};
    assert_memory_equal(&got, &none, sizeof got);
    // NULL defs count nothing, and say why.
    const sinew_scene_counts null_counts[5] = {sinew_rope_counts(NULL), sinew_cloth_counts(NULL),
                                               sinew_softbody_counts(NULL), sinew_pile_counts(NULL),
                                               sinew_ik_arm_counts(NULL)};
    for (int k = 0; k < 5; ++k) {
        const sinew_scene_counts c = null_counts[k];
        assert_true(c.particles == 0 && c.distances == 0 && c.angles == 0 && c.areas == 0 && c.pins == 0);
        assert_int_equal(c.status, SINEW_ERR_NULL_ARGUMENT);
        assert_true(strlen(c.reason) > 0);
    }
    sinew_world_destroy(w);
}

// Issue 16: a def the builder refuses counts nothing and says why, with the status the builder
// returns, so that no program sizes its arrays from an invalid def.
static void counts_of_a_refused_def_are_zero_with_the_reason(void **state)
{
    (void)state;
    int n = 0;
    const bad_def *t = bad_defs(&n);
    for (int k = 0; k < n; ++k) {
        const sinew_scene_counts c = counts_of(&t[k]);
        if (c.particles != 0 || c.distances != 0 || c.angles != 0 || c.areas != 0 || c.pins != 0) {
            fail_msg("%s: counts %d particles, %d distances although refused", t[k].what, c.particles, c.distances);
        }
        assert_status(c.status, t[k].expected, "%s: counts status", t[k].what);
        assert_true(c.reason != NULL && strlen(c.reason) > 0);
    }
    // The arm: NaN lengths, a negative radius, limits with min > max, a start pose outside them.
    const float nan_lengths[2] = {0.5f, NAN};
    const sinew_ik_limit crossed[2] = {{0.5f, -0.5f}, {-1.0f, 1.0f}}, narrow[2] = {{0.1f, 0.2f}, {-1.0f, 1.0f}};
    for (int bad = 0; bad < 5; ++bad) {
        sinew_ik_arm_def d = sinew_default_ik_arm_def();
        d.bones = 2;
        sinew_status expected = SINEW_ERR_OUT_OF_RANGE;
        switch (bad) {
        case 0: d.lengths = nan_lengths; expected = SINEW_ERR_NOT_FINITE; break;
        case 1: d.radius = -1.0f; break;
        case 2: d.limits = crossed; break;
        case 3: d.limits = narrow; break; // the straight start pose (0) is outside [0.1, 0.2]
        default: d.bone_length = 3e38f; break;
        }
        const sinew_scene_counts c = sinew_ik_arm_counts(&d);
        assert_true(c.particles == 0 && c.distances == 0 && c.angles == 0 && c.pins == 0);
        assert_int_equal(c.status, expected);
        sinew_world *w = world_of(SINEW_SOLVER_GAUSS_SEIDEL);
        assert_int_equal(sinew_ik_arm_create(w, &d, NULL), expected);
        assert_string_equal(sinew_world_last_error(w), c.reason);
        sinew_world_destroy(w);
    }
    // Valid defs say so.
    const sinew_rope_def rd = sinew_default_rope_def();
    const sinew_ik_arm_def ad = sinew_default_ik_arm_def();
    const sinew_scene_counts good[2] = {sinew_rope_counts(&rd), sinew_ik_arm_counts(&ad)};
    for (int k = 0; k < 2; ++k) {
        assert_int_equal(good[k].status, SINEW_OK);
        assert_string_equal(good[k].reason, "");
        assert_true(good[k].particles > 0);
    }
}

// ---- out of memory ----------------------------------------------------------------------------

typedef enum oom_kind { OOM_ROPE, OOM_CLOTH, OOM_BODY_EMPTY, OOM_BODY_SPRINGS, OOM_BODY_CENTER, OOM_PILE, OOM_KINDS } oom_kind;

// Builds one scene of each option that allocates: a rope with bends and tethers pinned at both
// ends, a cloth with every link family, tethers and tearing, the three soft bodies, a pile in
// a box with slopes. With or without output arrays.
static sinew_status oom_build(sinew_world *w, oom_kind kind, bool with_out)
{
    static sinew_particle_id particles[128];
    static sinew_distance_id links[512];
    static sinew_angle_id bends[64];
    static sinew_pin_id pins[16];
    switch (kind) {
    case OOM_ROPE: {
        sinew_rope_def d = sinew_default_rope_def();
        d.links = 12;
        d.pin_end = true;
        d.bend_stiffness = 0.7f;
        d.tethers = true;
        sinew_rope out = {particles, links, bends, links + 12, SINEW_NULL_ID, SINEW_NULL_ID};
        return sinew_rope_create(w, &d, with_out ? &out : NULL);
    }
    case OOM_CLOTH: {
        sinew_cloth_def d = sinew_default_cloth_def();
        d.columns = 6;
        d.rows = 5;
        d.pin = SINEW_CLOTH_PIN_TOP_CORNERS;
        d.shear = d.bend = d.tethers = true;
        d.tear_ratio = 2.0f;
        sinew_cloth out = {particles, links, pins};
        return sinew_cloth_create(w, &d, with_out ? &out : NULL);
    }
    case OOM_PILE: {
        sinew_pile_def d = sinew_default_pile_def();
        d.count = 20;
        d.container = SINEW_PILE_SLOPES;
        sinew_pile out = {0};
        out.particles = particles;
        return sinew_pile_create(w, &d, with_out ? &out : NULL);
    }
    default: {
        sinew_softbody_def d = sinew_default_softbody_def();
        d.points = 12;
        d.inside = kind == OOM_BODY_EMPTY ? SINEW_SOFTBODY_EMPTY
                   : kind == OOM_BODY_SPRINGS ? SINEW_SOFTBODY_SPRINGS
                                              : SINEW_SOFTBODY_CENTER;
        sinew_softbody out = {particles, links, SINEW_NULL_ID};
        return sinew_softbody_create(w, &d, with_out ? &out : NULL);
    }
    }
}

// Content put in the world before the build that fails: a small soft body (an area in the pool)
// and a 3-link rope with a bend and tethers, so the rollback has other constraints of every
// kind to leave alone.
static void prepare(sinew_world *w)
{
    sinew_softbody_def sd = sinew_default_softbody_def();
    sd.points = 5;
    sd.center = sinew_vec2_make(-8, 3);
    assert_int_equal(sinew_softbody_create(w, &sd, NULL), SINEW_OK);
    sinew_rope_def rd = sinew_default_rope_def();
    rd.links = 3;
    rd.start = sinew_vec2_make(-5, 1);
    rd.end = sinew_vec2_make(-2, 1);
    rd.bend_stiffness = 0.5f;
    rd.tethers = true;
    assert_int_equal(sinew_rope_create(w, &rd, NULL), SINEW_OK);
}

static sinew_world *oom_world(counting_allocator *c)
{
    sinew_world_def def = sinew_default_world_def();
    def.allocator = counting_allocator_make(c);
    // Stores as small as they go, so the build has the most allocation points. The particle
    // store gets 1, not 0: stepping a world whose particle store was never allocated is the
    // memset(NULL, 0, 0) of test_world's an_empty_world_without_capacity_steps, and under
    // UBSan's halt_on_error it would end this whole program instead of one test.
    def.particle_capacity = 1;
    def.constraint_capacity = 0;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    return w;
}

// The build of `kind` with the allocator failing from `budget` allocations on (-1: never), into
// an empty world or one holding `prepare`'s content; returns the allocations the build made. On
// failure the world must hold exactly what it held: same positions, same counts, and the same
// future, step for step, as a twin that never tried.
static int64_t oom_run(oom_kind kind, bool with_out, bool prepared, int64_t budget)
{
    counting_allocator c, c2;
    sinew_world *w = oom_world(&c), *twin = oom_world(&c2);
    if (prepared) {
        prepare(w);
        prepare(twin);
    }
    const uint64_t h = hash_positions(w);
    assert_true(h == hash_positions(twin));
    const uint64_t allocs = c.allocs;
    c.fail_after = budget < 0 ? -1 : (int64_t)c.allocs + budget;
    const sinew_status s = oom_build(w, kind, with_out);
    const int64_t used = (int64_t)(c.allocs - allocs);
    c.fail_after = -1;
    if (budget < 0) {
        assert_int_equal(s, SINEW_OK);
    } else {
        if (s != SINEW_ERR_OUT_OF_MEMORY) {
            fail_msg("builder %d (out arrays %d, prepared %d) with %lld allocations left: got %s", (int)kind,
                     (int)with_out, (int)prepared, (long long)budget, sinew_status_string(s));
        }
        assert_true(sinew_world_byte_count(w) == c.live_bytes);
        assert_true(hash_positions(w) == h);
        assert_int_equal(sinew_world_collider_count(w), 0);
        for (int step = 0; step < 5; ++step) {
            const held a = count_by_stepping(w), b = count_by_stepping(twin);
            assert_memory_equal(&a, &b, sizeof a);
            assert_true(hash_positions(w) == hash_positions(twin));
        }
        assert_int_equal(oom_build(w, kind, with_out), SINEW_OK); // and it builds once memory is back
    }
    sinew_world_destroy(w);
    sinew_world_destroy(twin);
    assert_true(c.live_bytes == 0u && c.frees == c.allocs);
    return used;
}

static void a_build_that_runs_out_of_memory_leaves_the_world_as_it_was(void **state)
{
    (void)state;
    for (int kind = 0; kind < OOM_KINDS; ++kind) {
        for (int variant = 0; variant < 4; ++variant) {
            const bool with_out = (variant & 1) != 0, prepared = (variant & 2) != 0;
            const int64_t needed = oom_run((oom_kind)kind, with_out, prepared, -1);
            assert_true(needed >= 2);
            for (int64_t budget = 0; budget < needed; ++budget) {
                oom_run((oom_kind)kind, with_out, prepared, budget);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_cloth_pulled_apart_tears_each_link_once),
        cmocka_unit_test(a_hanging_cloth_with_a_generous_ratio_never_tears),
        cmocka_unit_test(one_violent_step_does_not_tear_a_link),
        cmocka_unit_test(rope_counts_match_every_option),
        cmocka_unit_test(cloth_counts_match_every_option),
        cmocka_unit_test(cloth_tethers_join_the_nearest_pin),
        cmocka_unit_test(soft_body_counts_match_every_inside),
        cmocka_unit_test(every_soft_body_particle_gets_its_springs),
        cmocka_unit_test(tethers_reduce_stretch),
        cmocka_unit_test(the_jelly_block_keeps_its_shape_on_a_floor),
        cmocka_unit_test(destroying_every_particle_empties_the_world),
        cmocka_unit_test(bad_defs_are_refused_and_create_nothing),
        cmocka_unit_test(counts_of_a_refused_def_are_zero_with_the_reason),
        cmocka_unit_test(a_build_that_runs_out_of_memory_leaves_the_world_as_it_was),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
