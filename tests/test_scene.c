// Scene builders: counts, layout, pinned ends, refused defs, and all-or-nothing building (out of
// memory or over a hard limit mid-way leaves the world as it was).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static const float dt = 1.0f / 60.0f;

static bool same_particle(sinew_particle_id a, sinew_particle_id b)
{
    return a.index1 == b.index1 && a.generation == b.generation;
}

// Asserts what count_by_stepping found: particles, distance links and pins.
static void assert_counts(held c, int particles, int links, int pins)
{
    assert_int_equal(c.particles, particles);
    assert_int_equal(c.distances, links);
    assert_int_equal(c.pins, pins);
}

static void default_builder_defs_match_the_header(void **state)
{
    (void)state;
    sinew_rope_def r = sinew_default_rope_def();
    assert_true(r.start.x == 0.0f && r.start.y == 0.0f);
    assert_true(r.end.x == 10.0f && r.end.y == 0.0f);
    assert_int_equal(r.links, 40);
    assert_true(r.weight == 1.0f);
    assert_true(r.radius == 0.05f);
    assert_int_equal(r.particle_flags, 0u);
    assert_true(r.pin_start);
    assert_false(r.pin_end);
    assert_int_equal(r.mode, SINEW_DISTANCE_EQUAL);
    assert_true(r.stiffness == 1.0f);
    assert_true(r.compliance == 0.0f);

    sinew_cloth_def c = sinew_default_cloth_def();
    assert_true(c.origin.x == 0.0f && c.origin.y == 0.0f);
    assert_int_equal(c.columns, 20);
    assert_int_equal(c.rows, 20);
    assert_true(c.spacing == 0.25f);
    assert_true(c.weight == 1.0f);
    assert_true(c.radius == 0.05f);
    assert_int_equal(c.particle_flags, 0u);
    assert_int_equal(c.pin, SINEW_CLOTH_PIN_TOP_ROW);
    assert_true(c.stiffness == 1.0f);
    assert_true(c.compliance == 0.0f);
}

static void rope_counts_match_what_gets_created(void **state)
{
    (void)state;
    const int links[] = {1, 2, 7, 40};
    for (size_t k = 0; k < sizeof links / sizeof links[0]; ++k) {
        for (int pins = 0; pins < 4; ++pins) {
            sinew_rope_def d = sinew_default_rope_def();
            d.links = links[k];
            d.pin_start = (pins & 1) != 0;
            d.pin_end = (pins & 2) != 0;
            int np = -1, nl = -1;
            { sinew_scene_counts c_ = sinew_rope_counts(&d); np = c_.particles; nl = c_.distances; }
            // By the header: links + 1 particles, `links` links.
            assert_int_equal(np, links[k] + 1);
            assert_int_equal(nl, links[k]);
            sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
            assert_int_equal(sinew_rope_create(w, &d, NULL), SINEW_OK);
            assert_counts(count_by_stepping(w), np, nl, (int)d.pin_start + (int)d.pin_end);
            sinew_world_destroy(w);
        }
    }
    // Counts of a def that makes nothing, and NULL outputs, are harmless.
    sinew_rope_def d = sinew_default_rope_def();
    d.links = 0;
    int np = -1, nl = -1;
    { sinew_scene_counts c_ = sinew_rope_counts(&d); np = c_.particles; nl = c_.distances; }
    assert_int_equal(np, 0);
    assert_int_equal(nl, 0);
    (void)sinew_rope_counts(&d);
}

// Links of a columns x rows grid with the pinned particles given, leaving out links whose two
// ends are pinned; counted independently of the engine.
static int grid_links(int columns, int rows, sinew_cloth_pin pin)
{
    int n = 0;
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < columns; ++c) {
            bool here = r == 0 && (pin == SINEW_CLOTH_PIN_TOP_ROW ||
                                   (pin == SINEW_CLOTH_PIN_TOP_CORNERS && (c == 0 || c == columns - 1)));
            bool right = r == 0 && (pin == SINEW_CLOTH_PIN_TOP_ROW ||
                                    (pin == SINEW_CLOTH_PIN_TOP_CORNERS && (c + 1 == 0 || c + 1 == columns - 1)));
            if (c + 1 < columns && !(here && right)) {
                n += 1;
            }
            if (r + 1 < rows) { // row 1 is never pinned
                n += 1;
            }
        }
    }
    return n;
}

static int grid_pins(int columns, sinew_cloth_pin pin)
{
    switch (pin) {
    case SINEW_CLOTH_PIN_TOP_ROW: return columns;
    case SINEW_CLOTH_PIN_TOP_CORNERS: return columns > 1 ? 2 : 1;
    default: return 0;
    }
}

static void cloth_counts_match_what_gets_created(void **state)
{
    (void)state;
    const int sizes[][2] = {{2, 1}, {1, 2}, {1, 5}, {5, 1}, {2, 2}, {7, 4}, {4, 7}, {20, 20}};
    const sinew_cloth_pin pins[] = {SINEW_CLOTH_PIN_NONE, SINEW_CLOTH_PIN_TOP_ROW, SINEW_CLOTH_PIN_TOP_CORNERS};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        for (size_t p = 0; p < sizeof pins / sizeof pins[0]; ++p) {
            sinew_cloth_def d = sinew_default_cloth_def();
            d.columns = sizes[s][0];
            d.rows = sizes[s][1];
            d.pin = pins[p];
            int np = -1, nl = -1, npin = -1;
            { sinew_scene_counts c_ = sinew_cloth_counts(&d); np = c_.particles; nl = c_.distances; npin = c_.pins; }
            assert_int_equal(np, d.columns * d.rows);
            assert_int_equal(nl, grid_links(d.columns, d.rows, d.pin));
            assert_int_equal(npin, grid_pins(d.columns, d.pin));
            sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
            assert_int_equal(sinew_cloth_create(w, &d, NULL), SINEW_OK);
            assert_counts(count_by_stepping(w), np, nl, npin);
            sinew_world_destroy(w);
        }
    }
}

static void the_cloth_benchmark_scene_has_19701_links_and_100_pins(void **state)
{
    (void)state;
    sinew_cloth_def d = sinew_default_cloth_def();
    d.columns = 100;
    d.rows = 100;
    d.pin = SINEW_CLOTH_PIN_TOP_ROW;
    int np = 0, nl = 0, npin = 0;
    { sinew_scene_counts c_ = sinew_cloth_counts(&d); np = c_.particles; nl = c_.distances; npin = c_.pins; }
    assert_int_equal(np, 10000);
    assert_int_equal(nl, 19701); // 100 x 99 vertical + 99 x 99 horizontal below the pinned row
    assert_int_equal(npin, 100);

    sinew_particle_id *particles = calloc((size_t)np, sizeof *particles);
    sinew_distance_id *links = calloc((size_t)nl, sizeof *links);
    sinew_pin_id *pin_ids = calloc((size_t)npin, sizeof *pin_ids);
    assert_non_null(particles);
    assert_non_null(links);
    assert_non_null(pin_ids);
    sinew_cloth out = {particles, links, pin_ids};
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    assert_int_equal(sinew_cloth_create(w, &d, &out), SINEW_OK);
    // Every id written is live, and they are all different.
    for (int k = 0; k < nl; ++k) {
        assert_true(sinew_distance_is_valid(w, links[k]));
    }
    for (int k = 0; k < npin; ++k) {
        assert_true(sinew_pin_is_valid(w, pin_ids[k]));
        // "one per pinned particle, left to right"
        sinew_pin_def pd;
        assert_int_equal(sinew_pin_get(w, pin_ids[k], &pd), SINEW_OK);
        assert_true(same_particle(pd.particle, particles[k]));
    }
    for (int k = 0; k < np; ++k) {
        assert_true(sinew_particle_is_valid(w, particles[k]));
        assert_int_equal(sinew_particle_index(w, particles[k]), k); // created in row-major order
    }
    assert_counts(count_by_stepping(w), 10000, 19701, 100);
    sinew_world_destroy(w);
    free(particles);
    free(links);
    free(pin_ids);
}

static void rope_link_k_joins_particles_k_and_k_plus_1(void **state)
{
    (void)state;
    sinew_rope_def d = sinew_default_rope_def();
    d.links = 9; // odd, so the even and odd passes have different lengths
    d.start = sinew_vec2_make(-1.0f, 2.0f);
    d.end = sinew_vec2_make(3.5f, -4.0f);
    d.pin_end = true;
    sinew_particle_id particles[10];
    sinew_distance_id links[9];
    sinew_rope out = {.particles = particles, .links = links};
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    make_particle(w, 50.0f, 50.0f, 1.0f); // so rope indices and world indices differ
    assert_int_equal(sinew_rope_create(w, &d, &out), SINEW_OK);
    const float length = sinew_vec2_distance(d.start, d.end);
    for (int k = 0; k < d.links; ++k) {
        sinew_distance_def got;
        assert_int_equal(sinew_distance_get(w, links[k], &got), SINEW_OK);
        assert_true(same_particle(got.a, particles[k]));
        assert_true(same_particle(got.b, particles[k + 1]));
        assert_int_equal(got.mode, d.mode);
        assert_true(got.stiffness == d.stiffness && got.compliance == d.compliance);
        // Rest is the spacing, up to float rounding of lengths near 1 m.
        assert_near(got.rest, length / (float)d.links, 1e-5);
    }
    // Particles run along the segment from start to end, evenly.
    for (int k = 0; k <= d.links; ++k) {
        sinew_vec2 expect = sinew_vec2_lerp(d.start, d.end, (float)k / (float)d.links);
        sinew_vec2 at = position_of(w, particles[k]);
        assert_near(at.x, expect.x, 1e-5); // same formula; float rounding at most
        assert_near(at.y, expect.y, 1e-5);
    }
    sinew_pin_def pd;
    assert_int_equal(sinew_pin_get(w, out.start_pin, &pd), SINEW_OK);
    assert_true(same_particle(pd.particle, particles[0]));
    assert_int_equal(sinew_pin_get(w, out.end_pin, &pd), SINEW_OK);
    assert_true(same_particle(pd.particle, particles[d.links]));
    sinew_world_destroy(w);

    // A free end gives a null pin id.
    d.pin_start = false;
    d.pin_end = false;
    out.start_pin.index1 = out.end_pin.index1 = 77u;
    w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    assert_int_equal(sinew_rope_create(w, &d, &out), SINEW_OK);
    assert_true(SINEW_ID_IS_NULL(out.start_pin));
    assert_true(SINEW_ID_IS_NULL(out.end_pin));
    sinew_world_destroy(w);
}

static void cloth_layout_follows_the_header(void **state)
{
    (void)state;
    sinew_cloth_def d = sinew_default_cloth_def();
    d.columns = 6;
    d.rows = 5;
    d.origin = sinew_vec2_make(-2.0f, 3.0f);
    d.spacing = 0.5f;
    d.pin = SINEW_CLOTH_PIN_TOP_CORNERS;
    int np, nl, npin;
    { sinew_scene_counts c_ = sinew_cloth_counts(&d); np = c_.particles; nl = c_.distances; npin = c_.pins; }
    sinew_particle_id particles[30];
    sinew_distance_id links[64];
    sinew_pin_id pins[2];
    assert_true(np == 30 && nl <= 64 && npin == 2);
    sinew_cloth out = {particles, links, pins};
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    assert_int_equal(sinew_cloth_create(w, &d, &out), SINEW_OK);
    for (int r = 0; r < d.rows; ++r) {
        for (int c = 0; c < d.columns; ++c) {
            sinew_vec2 at = position_of(w, particles[r * d.columns + c]);
            // Exact: origin and spacing are binary fractions.
            assert_true(at.x == d.origin.x + d.spacing * (float)c);
            assert_true(at.y == d.origin.y - d.spacing * (float)r);
        }
    }
    // Every link joins grid neighbours at one spacing, and each neighbour pair once.
    int seen[30][30];
    memset(seen, 0, sizeof seen);
    for (int k = 0; k < nl; ++k) {
        sinew_distance_def got;
        assert_int_equal(sinew_distance_get(w, links[k], &got), SINEW_OK);
        int a = -1, b = -1;
        for (int i = 0; i < np; ++i) {
            a = same_particle(got.a, particles[i]) ? i : a;
            b = same_particle(got.b, particles[i]) ? i : b;
        }
        assert_true(a >= 0 && b >= 0);
        int ra = a / d.columns, ca = a % d.columns, rb = b / d.columns, cb = b % d.columns;
        assert_int_equal(abs(ra - rb) + abs(ca - cb), 1);
        assert_true(got.rest == d.spacing);
        seen[a][b] += 1;
        seen[b][a] += 1;
        assert_int_equal(seen[a][b], 1);
    }
    // The corners are the pinned ones, left to right.
    sinew_pin_def pd;
    assert_int_equal(sinew_pin_get(w, pins[0], &pd), SINEW_OK);
    assert_true(same_particle(pd.particle, particles[0]));
    assert_int_equal(sinew_pin_get(w, pins[1], &pd), SINEW_OK);
    assert_true(same_particle(pd.particle, particles[d.columns - 1]));
    sinew_world_destroy(w);
}

static float weight_of(const sinew_world *w, sinew_particle_id id)
{
    float m;
    assert_int_equal(sinew_particle_get_weight(w, id, &m), SINEW_OK);
    return m;
}

static void pinned_ends_have_weight_zero_and_stay_put(void **state)
{
    (void)state;
    sinew_rope_def d = sinew_default_rope_def();
    d.links = 6;
    d.weight = 0.5f;
    d.pin_end = true;
    sinew_particle_id particles[7];
    sinew_rope out = {.particles = particles, .links = NULL};
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    assert_int_equal(sinew_rope_create(w, &d, &out), SINEW_OK);
    assert_true(weight_of(w, particles[0]) == 0.0f);
    assert_true(weight_of(w, particles[6]) == 0.0f);
    for (int k = 1; k < 6; ++k) {
        assert_true(weight_of(w, particles[k]) == d.weight);
    }
    // The pins hold the ends where they were made, the rope between sags.
    sinew_pin_def pd;
    assert_int_equal(sinew_pin_get(w, out.start_pin, &pd), SINEW_OK);
    assert_true(pd.target.x == d.start.x && pd.target.y == d.start.y);
    for (int s = 0; s < 30; ++s) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    sinew_vec2 a = position_of(w, particles[0]), b = position_of(w, particles[6]), mid = position_of(w, particles[3]);
    assert_true(a.x == d.start.x && a.y == d.start.y);
    assert_true(b.x == d.end.x && b.y == d.end.y);
    assert_true(mid.y < d.start.y - 0.01f);
    sinew_world_destroy(w);

    // Cloth: the pinned particles (top row here) have weight 0, the others the def's weight.
    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.columns = 5;
    cd.rows = 4;
    cd.weight = 2.0f;
    sinew_particle_id cp[20];
    sinew_cloth cout = {cp, NULL, NULL};
    w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    assert_int_equal(sinew_cloth_create(w, &cd, &cout), SINEW_OK);
    for (int k = 0; k < 20; ++k) {
        assert_true(weight_of(w, cp[k]) == (k < cd.columns ? 0.0f : cd.weight));
    }
    sinew_world_destroy(w);

    cd.pin = SINEW_CLOTH_PIN_TOP_CORNERS;
    w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    assert_int_equal(sinew_cloth_create(w, &cd, &cout), SINEW_OK);
    for (int k = 0; k < 20; ++k) {
        bool pinned = k == 0 || k == cd.columns - 1;
        assert_true(weight_of(w, cp[k]) == (pinned ? 0.0f : cd.weight));
    }
    sinew_world_destroy(w);
}

typedef struct bad_rope_case {
    const char *what;
    sinew_rope_def def;
    sinew_status expected;
} bad_rope_case;

typedef struct bad_cloth_case {
    const char *what;
    sinew_cloth_def def;
    sinew_status expected;
} bad_cloth_case;

// A world with one particle in it, to show that a refused build leaves what was there.
static sinew_world *world_with_one_particle(sinew_particle_id *p)
{
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    *p = make_particle(w, 7.0f, 7.0f, 1.0f);
    return w;
}

static void bad_defs_are_refused_and_create_nothing(void **state)
{
    (void)state;
    const sinew_rope_def rope = sinew_default_rope_def();
    bad_rope_case rc[12];
    int n = 0;
    for (int k = 0; k < 12; ++k) {
        rc[k].def = rope;
    }
    rc[n].what = "links 0", rc[n].def.links = 0, rc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    rc[n].what = "links -3", rc[n].def.links = -3, rc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    rc[n].what = "start NaN", rc[n].def.start.x = NAN, rc[n++].expected = SINEW_ERR_NOT_FINITE;
    rc[n].what = "end inf", rc[n].def.end.y = INFINITY, rc[n++].expected = SINEW_ERR_NOT_FINITE;
    rc[n].what = "weight 0", rc[n].def.weight = 0.0f, rc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    rc[n].what = "weight < 0", rc[n].def.weight = -1.0f, rc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    rc[n].what = "weight NaN", rc[n].def.weight = NAN, rc[n++].expected = SINEW_ERR_NOT_FINITE;
    rc[n].what = "radius < 0", rc[n].def.radius = -0.5f, rc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    rc[n].what = "stiffness 2", rc[n].def.stiffness = 2.0f, rc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    rc[n].what = "compliance < 0", rc[n].def.compliance = -1.0f, rc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    rc[n].what = "unknown mode", rc[n].def.mode = (sinew_distance_mode)9, rc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    for (int k = 0; k < n; ++k) {
        sinew_particle_id p;
        sinew_world *w = world_with_one_particle(&p);
        const uint64_t h = hash_positions(w);
        sinew_status s = sinew_rope_create(w, &rc[k].def, NULL);
        assert_status(s, rc[k].expected, "rope %s", rc[k].what);
        assert_true(strlen(sinew_world_last_error(w)) > 0);
        assert_true(hash_positions(w) == h);
        assert_true(sinew_particle_is_valid(w, p));
        assert_counts(count_by_stepping(w), 1, 0, 0);
        sinew_world_destroy(w);
    }

    const sinew_cloth_def cloth = sinew_default_cloth_def();
    bad_cloth_case cc[12];
    n = 0;
    for (int k = 0; k < 12; ++k) {
        cc[k].def = cloth;
    }
    cc[n].what = "rows 0", cc[n].def.rows = 0, cc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cc[n].what = "columns 0", cc[n].def.columns = 0, cc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cc[n].what = "1 x 1", cc[n].def.rows = 1, cc[n].def.columns = 1, cc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cc[n].what = "spacing 0", cc[n].def.spacing = 0.0f, cc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cc[n].what = "spacing < 0", cc[n].def.spacing = -0.25f, cc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cc[n].what = "spacing NaN", cc[n].def.spacing = NAN, cc[n++].expected = SINEW_ERR_NOT_FINITE;
    cc[n].what = "origin NaN", cc[n].def.origin.y = NAN, cc[n++].expected = SINEW_ERR_NOT_FINITE;
    cc[n].what = "weight 0", cc[n].def.weight = 0.0f, cc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cc[n].what = "stiffness < 0", cc[n].def.stiffness = -0.5f, cc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cc[n].what = "compliance inf", cc[n].def.compliance = INFINITY, cc[n++].expected = SINEW_ERR_NOT_FINITE;
    cc[n].what = "unknown pin", cc[n].def.pin = (sinew_cloth_pin)5, cc[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    for (int k = 0; k < n; ++k) {
        sinew_particle_id p;
        sinew_world *w = world_with_one_particle(&p);
        const uint64_t h = hash_positions(w);
        sinew_status s = sinew_cloth_create(w, &cc[k].def, NULL);
        assert_status(s, cc[k].expected, "cloth %s", cc[k].what);
        assert_true(hash_positions(w) == h);
        assert_counts(count_by_stepping(w), 1, 0, 0);
        sinew_world_destroy(w);
    }

    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    assert_int_equal(sinew_rope_create(NULL, &rope, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_rope_create(w, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_cloth_create(NULL, &cloth, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_cloth_create(w, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_counts(count_by_stepping(w), 0, 0, 0);
    sinew_world_destroy(w);
}

// What a world holds before a build that must fail, to check it holds the same after.
typedef struct before_build {
    int particles;
    uint64_t hash;
    sinew_particle_id rope_particles[4];
    sinew_distance_id rope_links[3];
    sinew_pin_id rope_pin;
    bool has_rope;
} before_build;

// Optionally puts a 3-link rope (start pinned) in the world first.
static before_build prepare(sinew_world *w, bool with_rope)
{
    before_build b;
    memset(&b, 0, sizeof b);
    b.has_rope = with_rope;
    if (with_rope) {
        sinew_rope_def d = sinew_default_rope_def();
        d.links = 3;
        d.start = sinew_vec2_make(-5.0f, 1.0f);
        d.end = sinew_vec2_make(-2.0f, 1.0f);
        sinew_rope out = {.particles = b.rope_particles, .links = b.rope_links};
        assert_int_equal(sinew_rope_create(w, &d, &out), SINEW_OK);
        b.rope_pin = out.start_pin;
    }
    b.particles = sinew_world_particles(w).count;
    b.hash = hash_positions(w);
    return b;
}

// The world holds exactly what `prepare` put in it. Steps the world.
static void assert_as_before(sinew_world *w, const before_build *b)
{
    assert_int_equal(sinew_world_particles(w).count, b->particles);
    assert_true(hash_positions(w) == b->hash);
    if (b->has_rope) {
        for (int k = 0; k < 3; ++k) {
            sinew_distance_def got;
            assert_int_equal(sinew_distance_get(w, b->rope_links[k], &got), SINEW_OK);
            assert_true(same_particle(got.a, b->rope_particles[k]));
            assert_true(same_particle(got.b, b->rope_particles[k + 1]));
        }
        assert_true(sinew_pin_is_valid(w, b->rope_pin));
        assert_counts(count_by_stepping(w), 4, 3, 1);
    } else {
        assert_counts(count_by_stepping(w), 0, 0, 0);
    }
}

typedef enum builder_kind { BUILD_ROPE, BUILD_ROPE_WITH_OUT, BUILD_CLOTH, BUILD_CLOTH_WITH_OUT } builder_kind;

// Builds a 12-link rope pinned at both ends, or a 6 x 5 cloth pinned at the top corners (both
// make particles, links and pins), with or without output arrays.
static sinew_status build(sinew_world *w, builder_kind kind)
{
    static sinew_particle_id particles[64];
    static sinew_distance_id links[128];
    static sinew_pin_id pins[8];
    if (kind == BUILD_ROPE || kind == BUILD_ROPE_WITH_OUT) {
        sinew_rope_def d = sinew_default_rope_def();
        d.links = 12;
        d.pin_end = true;
        sinew_rope out = {.particles = particles, .links = links};
        return sinew_rope_create(w, &d, kind == BUILD_ROPE_WITH_OUT ? &out : NULL);
    }
    sinew_cloth_def d = sinew_default_cloth_def();
    d.columns = 6;
    d.rows = 5;
    d.pin = SINEW_CLOTH_PIN_TOP_CORNERS;
    sinew_cloth out = {particles, links, pins};
    return sinew_cloth_create(w, &d, kind == BUILD_CLOTH_WITH_OUT ? &out : NULL);
}

static void a_build_over_a_hard_limit_leaves_the_world_as_it_was(void **state)
{
    (void)state;
    // Each limit is hit at a different stage of both builds (13 particles, 12 links and 2 pins
    // for the rope; 30 particles, 49 links and 2 pins for the cloth): early particles, the last
    // rope particle (a pinned one), the second pin, early links, the last rope link.
    const struct {
        int max_particles, max_constraints;
    } limits[] = {{10, 0}, {12, 0}, {0, 1}, {0, 5}, {0, 11}, {4, 2}};
    const builder_kind kinds[] = {BUILD_ROPE, BUILD_CLOTH};
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; ++l) {
        for (size_t k = 0; k < 2; ++k) {
            for (int with_rope = 0; with_rope < 2; ++with_rope) {
                sinew_world_def def = sinew_default_world_def();
                // Room for the prepared rope (4 particles, 3 links, 1 pin) plus some of the build.
                def.max_particles = limits[l].max_particles > 0 ? limits[l].max_particles + 4 * with_rope : 0;
                def.max_constraints = limits[l].max_constraints > 0 ? limits[l].max_constraints + 3 * with_rope : 0;
                sinew_world *w = NULL;
                assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
                before_build b = prepare(w, with_rope != 0);
                sinew_status s = build(w, kinds[k]);
                if (s != SINEW_ERR_CAPACITY) {
                    fail_msg("limits %d/%d, builder %d: got %s", limits[l].max_particles, limits[l].max_constraints,
                             (int)kinds[k], sinew_status_string(s));
                }
                assert_as_before(w, &b);
                sinew_world_destroy(w);
            }
        }
    }
}

static void destroying_every_particle_a_builder_made_empties_the_world(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_rope_def rd = sinew_default_rope_def();
    rd.links = 15;
    rd.pin_end = true;
    sinew_particle_id rp[16];
    sinew_distance_id rl[15];
    sinew_rope rope = {.particles = rp, .links = rl};
    assert_int_equal(sinew_rope_create(w, &rd, &rope), SINEW_OK);

    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.columns = 8;
    cd.rows = 6;
    cd.origin = sinew_vec2_make(20.0f, 0.0f);
    int np, nl, npin;
    { sinew_scene_counts c_ = sinew_cloth_counts(&cd); np = c_.particles; nl = c_.distances; npin = c_.pins; }
    sinew_particle_id cp[48];
    sinew_distance_id cl[128];
    sinew_pin_id cpins[8];
    assert_true(np == 48 && nl <= 128 && npin == 8);
    sinew_cloth cloth = {cp, cl, cpins};
    assert_int_equal(sinew_cloth_create(w, &cd, &cloth), SINEW_OK);
    assert_counts(count_by_stepping(w), 16 + 48, 15 + nl, 2 + 8);

    // Destroy in an order unlike creation (middle out, alternating builders), so swaps happen.
    for (int k = 0; k < 48; ++k) {
        int i = (k * 17 + 5) % 48; // 17 is prime to 48: a permutation
        assert_int_equal(sinew_particle_destroy(w, cp[i]), SINEW_OK);
        if (k < 16) {
            assert_int_equal(sinew_particle_destroy(w, rp[(k * 7 + 3) % 16]), SINEW_OK);
        }
    }
    assert_int_equal(sinew_world_particles(w).count, 0);
    for (int k = 0; k < 15; ++k) {
        assert_false(sinew_distance_is_valid(w, rl[k]));
    }
    for (int k = 0; k < nl; ++k) {
        assert_false(sinew_distance_is_valid(w, cl[k]));
    }
    for (int k = 0; k < npin; ++k) {
        assert_false(sinew_pin_is_valid(w, cpins[k]));
    }
    assert_false(sinew_pin_is_valid(w, rope.start_pin));
    assert_false(sinew_pin_is_valid(w, rope.end_pin));
    assert_counts(count_by_stepping(w), 0, 0, 0);

    // The emptied world takes a new scene as if it were new.
    assert_int_equal(sinew_rope_create(w, &rd, NULL), SINEW_OK);
    assert_counts(count_by_stepping(w), 16, 15, 2);
    sinew_world_destroy(w);
}

static void counts_do_not_overflow_on_defs_the_builders_refuse(void **state)
{
    (void)state;
    // The builders refuse these defs (links above 2^24, more than 4096 columns or rows), but the
    // counts functions take any def. Their answer must at least be a count: a particle count that
    // does not fit in an int cannot be reported, and a negative one is a signed overflow (UB).
    // Kept last in the table so that a UBSan abort here cannot hide the other tests.
    sinew_rope_def r = sinew_default_rope_def();
    r.links = INT32_MAX;
    int np = 0, nl = 0;
    { sinew_scene_counts c_ = sinew_rope_counts(&r); np = c_.particles; nl = c_.distances; }
    assert_true(np >= 0);
    assert_true(nl >= 0);

    sinew_cloth_def c = sinew_default_cloth_def();
    c.columns = 50000;
    c.rows = 50000;
    np = 0;
    int npin = 0;
    // Links left out: counting them would walk 5e9 grid cells.
    { sinew_scene_counts c_ = sinew_cloth_counts(&c); np = c_.particles; npin = c_.pins; }
    assert_true(np >= 0);
    assert_true(npin >= 0);

    // And the builders do refuse them, making nothing.
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    assert_int_equal(sinew_rope_create(w, &r, NULL), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_cloth_create(w, &c, NULL), SINEW_ERR_OUT_OF_RANGE);
    assert_counts(count_by_stepping(w), 0, 0, 0);
    sinew_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_builder_defs_match_the_header),
        cmocka_unit_test(rope_counts_match_what_gets_created),
        cmocka_unit_test(cloth_counts_match_what_gets_created),
        cmocka_unit_test(the_cloth_benchmark_scene_has_19701_links_and_100_pins),
        cmocka_unit_test(rope_link_k_joins_particles_k_and_k_plus_1),
        cmocka_unit_test(cloth_layout_follows_the_header),
        cmocka_unit_test(pinned_ends_have_weight_zero_and_stay_put),
        cmocka_unit_test(bad_defs_are_refused_and_create_nothing),
        cmocka_unit_test(a_build_over_a_hard_limit_leaves_the_world_as_it_was),
        cmocka_unit_test(destroying_every_particle_a_builder_made_empties_the_world),
        cmocka_unit_test(counts_do_not_overflow_on_defs_the_builders_refuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
