// World lifecycle and errors: default defs, refused defs and settings, refused steps, allocation
// failure at every allocation point, no allocation in a warm step, hard limits, determinism and
// the byte count.
#include <math.h>
#include <string.h>

#include "support.h"

static const float dt = 1.0f / 60.0f;

// A world pointer value no call may write: where *out must be left untouched.
static max_align_t out_marker;
#define OUT_SENTINEL ((sinew_world *)(void *)&out_marker)

static void assert_solver_equal(sinew_solver_def a, sinew_solver_def b)
{
    assert_int_equal(a.mode, b.mode);
    assert_int_equal(a.substeps, b.substeps);
    assert_int_equal(a.iterations, b.iterations);
    assert_true(a.jacobi_omega == b.jacobi_omega);
    assert_int_equal(a.order, b.order);
    assert_true(a.shuffle_seed == b.shuffle_seed);
}

// Everything a failed call must leave as it was, in one value.
typedef struct world_snapshot {
    int particles;
    uint64_t hash;
    sinew_step_stats stats;
} world_snapshot;

static world_snapshot snapshot(const sinew_world *w)
{
    world_snapshot s;
    s.particles = sinew_world_particles(w).count;
    s.hash = hash_positions(w);
    s.stats = sinew_world_stats(w);
    return s;
}

static void assert_same_world(world_snapshot a, world_snapshot b)
{
    assert_int_equal(a.particles, b.particles);
    assert_true(a.hash == b.hash);
    assert_true(a.stats.step_count == b.stats.step_count);
    assert_int_equal(a.stats.particles, b.stats.particles);
    for (int k = 0; k < SINEW_KIND_COUNT; ++k) {
        assert_int_equal(a.stats.kinds[k].count, b.stats.kinds[k].count);
    }
}

// A world over a counting allocator with capacity hints 0, so that every store and id pool has
// to grow from nothing (the most allocation points).
static sinew_world *counted_world(counting_allocator *c, sinew_solver_mode mode)
{
    sinew_world_def def = sinew_default_world_def();
    def.allocator = counting_allocator_make(c);
    def.particle_capacity = 0;
    def.constraint_capacity = 0;
    def.solver.mode = mode;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    return w;
}

static sinew_world *cloth_world(const sinew_world_def *def, int columns, int rows)
{
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(def, &w), SINEW_OK);
    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.columns = columns;
    cd.rows = rows;
    assert_int_equal(sinew_cloth_create(w, &cd, NULL), SINEW_OK);
    return w;
}

static void default_defs_match_the_headers(void **state)
{
    (void)state;
    sinew_solver_def s = sinew_default_solver_def();
    assert_int_equal(s.mode, SINEW_SOLVER_GAUSS_SEIDEL);
    assert_int_equal(s.substeps, 4);
    assert_int_equal(s.iterations, 8);
    assert_true(s.jacobi_omega == 1.0f);
    assert_int_equal(s.order, SINEW_GS_ORDER_CREATED);
    assert_true(s.shuffle_seed == 1u);

    sinew_world_def d = sinew_default_world_def();
    assert_true(d.gravity.x == 0.0f && d.gravity.y == -10.0f);
    assert_true(d.damping == 0.0f);
    assert_solver_equal(d.solver, s);
    assert_non_null(d.allocator.alloc); // "default: malloc/free from the C library"
    assert_non_null(d.allocator.free);
    assert_int_equal(d.particle_capacity, 64);
    assert_int_equal(d.constraint_capacity, 64);
    assert_int_equal(d.max_particles, 0);
    assert_int_equal(d.max_constraints, 0);
    assert_null(d.user_data);
}

static void create_with_null_def_uses_the_defaults(void **state)
{
    (void)state;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(NULL, &w), SINEW_OK);
    assert_non_null(w);
    sinew_world_def d = sinew_default_world_def();
    assert_solver_equal(sinew_world_get_solver(w), d.solver);
    sinew_vec2 g = sinew_world_get_gravity(w);
    assert_true(g.x == d.gravity.x && g.y == d.gravity.y);
    assert_null(sinew_world_user_data(w));
    assert_int_equal(sinew_world_particles(w).count, 0);
    assert_string_equal(sinew_world_last_error(w), "");
    sinew_step_stats st = sinew_world_stats(w); // all zero before the first step
    assert_true(st.step_count == 0u);
    assert_int_equal(st.particles, 0);
    assert_int_equal(st.kinds[SINEW_KIND_DISTANCE].count, 0);
    assert_int_equal(st.kinds[SINEW_KIND_PIN].count, 0);
    sinew_step_profile pr = sinew_world_profile(w); // so is the profile
    assert_true(pr.step == 0.0f && pr.solve == 0.0f && pr.jobs == 0);
    pr = sinew_world_profile(NULL);
    assert_true(pr.step == 0.0f && pr.parallel == 0.0f);
    // The default world works: a free particle falls.
    sinew_particle_id p = make_particle(w, 0.0f, 0.0f, 1.0f);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    assert_true(position_of(w, p).y < 0.0f);
    assert_true(sinew_world_profile(w).step == 0.0f); // not profiled by default
    assert_int_equal(sinew_world_set_profiling(w, SINEW_PROFILE_STAGES), SINEW_OK);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    assert_true(sinew_world_profile(w).step > 0.0f); // the step was timed
    // A step refused for bad input leaves the profile as it was.
    pr = sinew_world_profile(w);
    assert_int_equal(sinew_world_step(w, NAN), SINEW_ERR_NOT_FINITE);
    const sinew_step_profile after = sinew_world_profile(w);
    assert_memory_equal(&after, &pr, sizeof pr);
    sinew_world_destroy(w);
    sinew_world_destroy(NULL); // ignored

    // user_data comes back.
    int tag = 0;
    sinew_world_def def = sinew_default_world_def();
    def.user_data = &tag;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    assert_ptr_equal(sinew_world_user_data(w), &tag);
    sinew_world_destroy(w);
}

typedef struct bad_world_case {
    const char *what;
    void (*spoil)(sinew_world_def *def);
    sinew_status expected;
} bad_world_case;

static void spoil_gravity_x_nan(sinew_world_def *d) { d->gravity.x = NAN; }
static void spoil_gravity_y_inf(sinew_world_def *d) { d->gravity.y = INFINITY; }
static void spoil_damping_nan(sinew_world_def *d) { d->damping = NAN; }
static void spoil_damping_negative(sinew_world_def *d) { d->damping = -0.5f; }
static void spoil_substeps_0(sinew_world_def *d) { d->solver.substeps = 0; }
static void spoil_substeps_1025(sinew_world_def *d) { d->solver.substeps = 1025; }
static void spoil_iterations_0(sinew_world_def *d) { d->solver.iterations = 0; }
static void spoil_iterations_1025(sinew_world_def *d) { d->solver.iterations = 1025; }
static void spoil_omega_0(sinew_world_def *d) { d->solver.jacobi_omega = 0.0f; }
static void spoil_omega_2(sinew_world_def *d) { d->solver.jacobi_omega = 2.0f; }
static void spoil_omega_nan(sinew_world_def *d) { d->solver.jacobi_omega = NAN; }
static void spoil_mode(sinew_world_def *d) { d->solver.mode = (sinew_solver_mode)7; }
static void spoil_order(sinew_world_def *d) { d->solver.order = (sinew_gs_order)9; }
static void spoil_particle_capacity(sinew_world_def *d) { d->particle_capacity = -1; }
static void spoil_constraint_capacity(sinew_world_def *d) { d->constraint_capacity = -1; }
static void spoil_max_particles(sinew_world_def *d) { d->max_particles = -1; }
static void spoil_max_constraints(sinew_world_def *d) { d->max_constraints = -1; }
static void spoil_only_alloc(sinew_world_def *d) { d->allocator.free = NULL; }
static void spoil_only_free(sinew_world_def *d) { d->allocator.alloc = NULL; }

static void create_refuses_every_bad_def_field(void **state)
{
    (void)state;
    // NaN omega: the status list says NaN is NOT_FINITE, which is what every other setter does;
    // note sinew_world_create's comment lists NOT_FINITE only for gravity and damping.
    // One of alloc/free set: the header lists no status for it; NULL_ARGUMENT is the natural one.
    const bad_world_case cases[] = {
        {"gravity.x NaN", spoil_gravity_x_nan, SINEW_ERR_NOT_FINITE},
        {"gravity.y inf", spoil_gravity_y_inf, SINEW_ERR_NOT_FINITE},
        {"damping NaN", spoil_damping_nan, SINEW_ERR_NOT_FINITE},
        {"damping < 0", spoil_damping_negative, SINEW_ERR_OUT_OF_RANGE},
        {"substeps 0", spoil_substeps_0, SINEW_ERR_OUT_OF_RANGE},
        {"substeps 1025", spoil_substeps_1025, SINEW_ERR_OUT_OF_RANGE},
        {"iterations 0", spoil_iterations_0, SINEW_ERR_OUT_OF_RANGE},
        {"iterations 1025", spoil_iterations_1025, SINEW_ERR_OUT_OF_RANGE},
        {"omega 0", spoil_omega_0, SINEW_ERR_OUT_OF_RANGE},
        {"omega 2", spoil_omega_2, SINEW_ERR_OUT_OF_RANGE},
        {"omega NaN", spoil_omega_nan, SINEW_ERR_NOT_FINITE},
        {"unknown mode", spoil_mode, SINEW_ERR_OUT_OF_RANGE},
        {"unknown order", spoil_order, SINEW_ERR_OUT_OF_RANGE},
        {"particle_capacity < 0", spoil_particle_capacity, SINEW_ERR_OUT_OF_RANGE},
        {"constraint_capacity < 0", spoil_constraint_capacity, SINEW_ERR_OUT_OF_RANGE},
        {"max_particles < 0", spoil_max_particles, SINEW_ERR_OUT_OF_RANGE},
        {"max_constraints < 0", spoil_max_constraints, SINEW_ERR_OUT_OF_RANGE},
        {"alloc without free", spoil_only_alloc, SINEW_ERR_NULL_ARGUMENT},
        {"free without alloc", spoil_only_free, SINEW_ERR_NULL_ARGUMENT},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        counting_allocator c;
        sinew_world_def def = sinew_default_world_def();
        def.allocator = counting_allocator_make(&c);
        cases[k].spoil(&def);
        sinew_world *w = OUT_SENTINEL;
        sinew_status s = sinew_world_create(&def, &w);
        assert_status(s, cases[k].expected, "%s", cases[k].what);
        assert_ptr_equal(w, OUT_SENTINEL);
        assert_true(c.allocs == 0u); // refused before anything was allocated
    }
    assert_int_equal(sinew_world_create(NULL, NULL), SINEW_ERR_NULL_ARGUMENT);

    // The edges of the ranges are accepted.
    sinew_world_def def = sinew_default_world_def();
    def.solver.substeps = 1;
    def.solver.iterations = 1024;
    def.solver.jacobi_omega = 1.99f;
    def.particle_capacity = 0;
    def.constraint_capacity = 0;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    sinew_world_destroy(w);
}

static void set_solver_refuses_bad_settings_and_keeps_the_old_ones(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_JACOBI);
    sinew_solver_def good = sinew_world_get_solver(w);
    good.iterations = 5;
    good.substeps = 3;
    good.jacobi_omega = 1.25f;
    good.order = SINEW_GS_ORDER_SHUFFLE;
    good.shuffle_seed = 77u;
    assert_int_equal(sinew_world_set_solver(w, &good), SINEW_OK);
    assert_solver_equal(sinew_world_get_solver(w), good);

    typedef struct {
        sinew_solver_def def;
        sinew_status expected;
    } bad;
    bad cases[12];
    int n = 0;
    for (int k = 0; k < 12; ++k) {
        cases[k].def = good;
    }
    cases[n].def.substeps = 0, cases[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cases[n].def.substeps = 1025, cases[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cases[n].def.iterations = 0, cases[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cases[n].def.iterations = -3, cases[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cases[n].def.iterations = 1025, cases[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cases[n].def.jacobi_omega = 0.0f, cases[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cases[n].def.jacobi_omega = 2.0f, cases[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cases[n].def.jacobi_omega = -1.0f, cases[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cases[n].def.jacobi_omega = NAN, cases[n++].expected = SINEW_ERR_NOT_FINITE;
    cases[n].def.jacobi_omega = INFINITY, cases[n++].expected = SINEW_ERR_NOT_FINITE;
    cases[n].def.mode = (sinew_solver_mode)2, cases[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    cases[n].def.order = (sinew_gs_order)3, cases[n++].expected = SINEW_ERR_OUT_OF_RANGE;
    for (int k = 0; k < n; ++k) {
        assert_int_equal(sinew_world_set_solver(w, &cases[k].def), cases[k].expected);
        assert_solver_equal(sinew_world_get_solver(w), good);
        assert_true(strlen(sinew_world_last_error(w)) > 0);
    }
    assert_int_equal(sinew_world_set_solver(w, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_set_solver(NULL, &good), SINEW_ERR_NULL_ARGUMENT);
    assert_solver_equal(sinew_world_get_solver(w), good);

    // The next step uses the settings that were kept.
    make_particle(w, 0.0f, 0.0f, 1.0f);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    sinew_step_stats st = sinew_world_stats(w);
    assert_int_equal(st.substeps, good.substeps);
    assert_int_equal(st.iterations, good.iterations);
    assert_int_equal(st.mode, good.mode);
    sinew_world_destroy(w);
}

static void other_setters_refuse_bad_values(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_vec2 g0 = sinew_world_get_gravity(w);
    assert_int_equal(sinew_world_set_gravity(w, sinew_vec2_make(NAN, 0.0f)), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_set_gravity(w, sinew_vec2_make(0.0f, -INFINITY)), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_set_gravity(NULL, g0), SINEW_ERR_NULL_ARGUMENT);
    sinew_vec2 g1 = sinew_world_get_gravity(w);
    assert_true(g1.x == g0.x && g1.y == g0.y);
    assert_int_equal(sinew_world_set_gravity(w, sinew_vec2_make(1.0f, 2.0f)), SINEW_OK);
    g1 = sinew_world_get_gravity(w);
    assert_true(g1.x == 1.0f && g1.y == 2.0f);

    assert_int_equal(sinew_world_set_damping(w, NAN), SINEW_ERR_NOT_FINITE);
    assert_int_equal(sinew_world_set_damping(w, -1.0f), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_world_set_damping(NULL, 1.0f), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_set_damping(w, 0.0f), SINEW_OK);
    assert_int_equal(sinew_world_record_iterations(NULL, true), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_step(NULL, dt), SINEW_ERR_NULL_ARGUMENT);
    sinew_world_destroy(w);
}

static void step_refuses_bad_dt_and_changes_nothing(void **state)
{
    (void)state;
    sinew_world_def def = sinew_default_world_def();
    sinew_world *w = cloth_world(&def, 6, 5);
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    const float bad[] = {0.0f, -0.0f, -dt, NAN, INFINITY, -INFINITY};
    const sinew_status expected[] = {SINEW_ERR_OUT_OF_RANGE, SINEW_ERR_OUT_OF_RANGE, SINEW_ERR_OUT_OF_RANGE,
                                     SINEW_ERR_NOT_FINITE,   SINEW_ERR_NOT_FINITE,   SINEW_ERR_NOT_FINITE};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        world_snapshot before = snapshot(w);
        assert_int_equal(sinew_world_step(w, bad[k]), expected[k]);
        world_snapshot after = snapshot(w);
        assert_same_world(before, after);
        assert_true(after.stats.step_count == 3u);
    }
    // Nor does a refused step disturb the next good one: it matches a twin world that never saw it.
    sinew_world *twin = cloth_world(&def, 6, 5);
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(sinew_world_step(twin, dt), SINEW_OK);
    }
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    assert_true(hash_positions(w) == hash_positions(twin));
    sinew_world_destroy(twin);
    sinew_world_destroy(w);
}

static void last_error_says_something_after_a_failure(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    assert_string_equal(sinew_world_last_error(w), "");
    assert_int_equal(sinew_world_step(w, NAN), SINEW_ERR_NOT_FINITE);
    const char *e1 = sinew_world_last_error(w);
    assert_non_null(e1);
    assert_true(strlen(e1) > 0);

    sinew_particle_def p = sinew_default_particle_def();
    p.weight = -1.0f;
    sinew_particle_id id;
    assert_int_equal(sinew_particle_create(w, &p, &id), SINEW_ERR_NEGATIVE_WEIGHT);
    const char *e2 = sinew_world_last_error(w);
    assert_true(strlen(e2) > 0);
    assert_string_not_equal(e1, e2); // it names the call that failed last
    assert_string_equal(sinew_world_last_error(NULL), "");
    sinew_world_destroy(w);
}

static void world_create_out_of_memory_frees_everything(void **state)
{
    (void)state;
    // First count the allocations a successful create makes, then fail each one in turn.
    counting_allocator c;
    sinew_world_def def = sinew_default_world_def();
    def.allocator = counting_allocator_make(&c);
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    const int64_t needed = (int64_t)c.allocs;
    assert_true(needed >= 1);
    sinew_world_destroy(w);
    assert_true(c.live_bytes == 0u);

    for (int64_t budget = 0; budget < needed; ++budget) {
        def.allocator = counting_allocator_make(&c);
        c.fail_after = budget;
        w = OUT_SENTINEL;
        assert_int_equal(sinew_world_create(&def, &w), SINEW_ERR_OUT_OF_MEMORY);
        assert_ptr_equal(w, OUT_SENTINEL);
        assert_true(c.allocs == (uint64_t)budget); // it got as far as the budget allowed
        assert_true(c.frees == c.allocs);           // and gave back all of it
        assert_true(c.live_bytes == 0u);
    }
}

// Creates one more thing in `w`; returns its status. `n` counts the calls so far.
typedef sinew_status (*create_fn)(sinew_world *w, const sinew_particle_id *pool, int n);

static sinew_status create_one_particle(sinew_world *w, const sinew_particle_id *pool, int n)
{
    (void)pool;
    sinew_particle_def p = sinew_default_particle_def();
    p.position = sinew_vec2_make(0.5f * (float)n, 0.25f * (float)(n % 7));
    p.velocity = sinew_vec2_make(0.0f, (float)(n % 3));
    sinew_particle_id id = {0xdeadu, 0xbeefu};
    sinew_status s = sinew_particle_create(w, &p, &id);
    if (s != SINEW_OK) {
        assert_true(id.index1 == 0xdeadu && id.generation == 0xbeefu); // *out untouched
    }
    return s;
}

static sinew_status create_one_distance(sinew_world *w, const sinew_particle_id *pool, int n)
{
    sinew_distance_def d = sinew_default_distance_def();
    d.a = pool[n];
    d.b = pool[n + 1];
    sinew_distance_id id = {0xdeadu, 0xbeefu};
    sinew_status s = sinew_distance_create(w, &d, &id);
    if (s != SINEW_OK) {
        assert_true(id.index1 == 0xdeadu && id.generation == 0xbeefu);
    }
    return s;
}

static sinew_status create_one_pin(sinew_world *w, const sinew_particle_id *pool, int n)
{
    sinew_pin_def d = sinew_default_pin_def();
    d.particle = pool[n];
    d.target = sinew_vec2_make((float)n, 3.0f);
    sinew_pin_id id = {0xdeadu, 0xbeefu};
    sinew_status s = sinew_pin_create(w, &d, &id);
    if (s != SINEW_OK) {
        assert_true(id.index1 == 0xdeadu && id.generation == 0xbeefu);
    }
    return s;
}

#define OOM_POOL 160 // particles made up front for the constraint runs
#define OOM_CREATES 150

// Builds a world with OOM_POOL particles, steps it, then creates OOM_CREATES things with
// `create`, the allocator failing from `budget` more allocations on (-1: never). Checks that a
// failed create returns OUT_OF_MEMORY and leaves the world as it was, that the world still
// works, and that destroying it leaks nothing. Returns the allocations the creates needed.
static int64_t oom_run(create_fn create, int64_t budget, int particles_up_front)
{
    counting_allocator c;
    sinew_world *w = counted_world(&c, SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id pool[OOM_POOL];
    for (int k = 0; k < particles_up_front; ++k) {
        pool[k] = make_particle(w, (float)k, 0.0f, 1.0f);
    }
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK); // so the stats are not all zero
    const uint64_t allocs_before = c.allocs;
    c.fail_after = budget < 0 ? -1 : (int64_t)c.allocs + budget;
    int failures = 0;
    for (int n = 0; n < OOM_CREATES; ++n) {
        world_snapshot before = snapshot(w);
        sinew_status s = create(w, pool, n);
        if (s == SINEW_OK) {
            continue;
        }
        assert_int_equal(s, SINEW_ERR_OUT_OF_MEMORY);
        assert_same_world(before, snapshot(w));
        assert_true(strlen(sinew_world_last_error(w)) > 0);
        assert_true(sinew_world_byte_count(w) == c.live_bytes); // still accounted right
        // The world still steps, with exactly what it had.
        c.fail_after = -1;
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
        sinew_step_stats st = sinew_world_stats(w);
        assert_int_equal(st.particles, before.particles);
        assert_int_equal(st.kinds[SINEW_KIND_DISTANCE].count + st.kinds[SINEW_KIND_PIN].count,
                         (create == create_one_particle ? 0 : n));
        // And creating works again once memory is back.
        assert_int_equal(create(w, pool, n), SINEW_OK);
        failures += 1;
        break;
    }
    const int64_t used = (int64_t)(c.allocs - allocs_before);
    if (budget < 0) {
        assert_int_equal(failures, 0);
    } else if (budget < used) {
        assert_int_equal(failures, 1);
    }
    sinew_world_destroy(w);
    assert_true(c.live_bytes == 0u);
    assert_true(c.frees == c.allocs);
    return used;
}

static void oom_sweep(create_fn create, int particles_up_front)
{
    // An unlimited run tells how many allocations the creates need; each of them is then made
    // to fail in its own run.
    const int64_t needed = oom_run(create, -1, particles_up_front);
    assert_true(needed >= 4); // the store and the id pool each grow more than once
    for (int64_t budget = 0; budget < needed; ++budget) {
        oom_run(create, budget, particles_up_front);
    }
}

static void particle_create_out_of_memory_changes_nothing(void **state)
{
    (void)state;
    oom_sweep(create_one_particle, 3);
}

static void distance_create_out_of_memory_changes_nothing(void **state)
{
    (void)state;
    oom_sweep(create_one_distance, OOM_POOL);
}

static void pin_create_out_of_memory_changes_nothing(void **state)
{
    (void)state;
    oom_sweep(create_one_pin, OOM_POOL);
}

static void settings_out_of_memory_change_nothing(void **state)
{
    (void)state;
    counting_allocator c;
    sinew_world *w = counted_world(&c, SINEW_SOLVER_GAUSS_SEIDEL);
    make_particle(w, 0.0f, 0.0f, 1.0f);

    // Recording needs a history buffer; without memory, recording stays off.
    c.fail_after = (int64_t)c.allocs;
    assert_int_equal(sinew_world_record_iterations(w, true), SINEW_ERR_OUT_OF_MEMORY);
    c.fail_after = -1;
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    assert_null(sinew_world_iteration_errors(w, SINEW_KIND_COUNT, NULL, NULL));

    // With recording on, more iterations need a larger history: refused without memory.
    assert_int_equal(sinew_world_record_iterations(w, true), SINEW_OK);
    sinew_solver_def old = sinew_world_get_solver(w);
    sinew_solver_def bigger = old;
    bigger.iterations = old.iterations * 4;
    c.fail_after = (int64_t)c.allocs;
    assert_int_equal(sinew_world_set_solver(w, &bigger), SINEW_ERR_OUT_OF_MEMORY);
    assert_solver_equal(sinew_world_get_solver(w), old);
    c.fail_after = -1;
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    int substeps = 0, iterations = 0;
    assert_non_null(sinew_world_iteration_errors(w, SINEW_KIND_COUNT, &substeps, &iterations));
    assert_int_equal(iterations, old.iterations);
    assert_int_equal(substeps, old.substeps);
    assert_int_equal(sinew_world_set_solver(w, &bigger), SINEW_OK);
    sinew_world_destroy(w);
    assert_true(c.live_bytes == 0u);
}

static void step_allocates_nothing_once_warm(void **state)
{
    (void)state;
    counting_allocator c;
    sinew_world_def def = sinew_default_world_def();
    def.allocator = counting_allocator_make(&c);
    sinew_world *w = cloth_world(&def, 8, 8);
    sinew_rope_def rd = sinew_default_rope_def();
    rd.links = 10;
    rd.start = sinew_vec2_make(5.0f, 0.0f);
    rd.end = sinew_vec2_make(8.0f, 0.0f);
    assert_int_equal(sinew_rope_create(w, &rd, NULL), SINEW_OK);
    assert_int_equal(sinew_world_record_iterations(w, true), SINEW_OK);

    sinew_solver_def modes[4];
    for (int k = 0; k < 4; ++k) {
        modes[k] = sinew_world_get_solver(w);
    }
    modes[0].mode = SINEW_SOLVER_GAUSS_SEIDEL, modes[0].order = SINEW_GS_ORDER_CREATED;
    modes[1].mode = SINEW_SOLVER_JACOBI;
    modes[2].mode = SINEW_SOLVER_GAUSS_SEIDEL, modes[2].order = SINEW_GS_ORDER_ALTERNATING;
    modes[3].mode = SINEW_SOLVER_GAUSS_SEIDEL, modes[3].order = SINEW_GS_ORDER_SHUFFLE;
    // Warm up: every mode once.
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(sinew_world_set_solver(w, &modes[k]), SINEW_OK);
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    const uint64_t allocs = c.allocs, frees = c.frees;
    const size_t bytes = c.live_bytes;
    for (int k = 0; k < 100; ++k) {
        assert_int_equal(sinew_world_set_solver(w, &modes[k % 4]), SINEW_OK);
        assert_int_equal(sinew_world_step(w, k % 3 == 0 ? dt : 0.5f * dt), SINEW_OK);
        assert_non_null(sinew_world_iteration_errors(w, SINEW_KIND_DISTANCE, NULL, NULL));
    }
    assert_true(c.allocs == allocs);
    assert_true(c.frees == frees);
    assert_true(c.live_bytes == bytes);
    assert_true(sinew_world_stats(w).step_count == 104u);
    sinew_world_destroy(w);
    assert_true(c.live_bytes == 0u);
}

static void max_particles_and_max_constraints_give_capacity(void **state)
{
    (void)state;
    sinew_world_def def = sinew_default_world_def();
    def.max_particles = 3;
    def.max_constraints = 2;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&def, &w), SINEW_OK);
    sinew_particle_id p[3];
    for (int k = 0; k < 3; ++k) {
        p[k] = make_particle(w, (float)k, 0.0f, 1.0f);
    }
    sinew_particle_def pd = sinew_default_particle_def();
    sinew_particle_id extra = {0xdeadu, 0xbeefu};
    assert_int_equal(sinew_particle_create(w, &pd, &extra), SINEW_ERR_CAPACITY);
    assert_true(extra.index1 == 0xdeadu && extra.generation == 0xbeefu);
    assert_int_equal(sinew_world_particles(w).count, 3);

    // The limit is per kind: two distances and two pins fit, a third of either does not.
    make_link(w, p[0], p[1]);
    make_link(w, p[1], p[2]);
    sinew_distance_def dd = sinew_default_distance_def();
    dd.a = p[0];
    dd.b = p[2];
    sinew_distance_id link;
    assert_int_equal(sinew_distance_create(w, &dd, &link), SINEW_ERR_CAPACITY);
    sinew_pin_def pin = sinew_default_pin_def();
    sinew_pin_id pins[3];
    for (int k = 0; k < 2; ++k) {
        pin.particle = p[k];
        assert_int_equal(sinew_pin_create(w, &pin, &pins[k]), SINEW_OK);
    }
    pin.particle = p[2];
    assert_int_equal(sinew_pin_create(w, &pin, &pins[2]), SINEW_ERR_CAPACITY);
    assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    sinew_step_stats st = sinew_world_stats(w);
    assert_int_equal(st.particles, 3);
    assert_int_equal(st.kinds[SINEW_KIND_DISTANCE].count, 2);
    assert_int_equal(st.kinds[SINEW_KIND_PIN].count, 2);

    // A limit is a count, not a total: destroying one makes room again.
    assert_int_equal(sinew_pin_destroy(w, pins[0]), SINEW_OK);
    assert_int_equal(sinew_pin_create(w, &pin, &pins[2]), SINEW_OK);
    assert_int_equal(sinew_particle_destroy(w, p[0]), SINEW_OK); // takes link p0-p1 along
    assert_int_equal(sinew_particle_create(w, &pd, &extra), SINEW_OK);
    assert_int_equal(sinew_distance_create(w, &dd, &link), SINEW_ERR_INVALID_ID); // p[0] is gone
    dd.a = extra;
    assert_int_equal(sinew_distance_create(w, &dd, &link), SINEW_OK);
    sinew_world_destroy(w);
}

// Builds the same cloth twice, steps 200 times with `solver`, returns the hash of world A after
// asserting world B hashes the same.
static uint64_t twin_hash(sinew_solver_def solver)
{
    sinew_world_def def = sinew_default_world_def();
    def.solver = solver;
    sinew_world *a = cloth_world(&def, 10, 10);
    sinew_world *b = cloth_world(&def, 10, 10);
    // A sideways push so that the motion is not symmetric.
    sinew_particle_id corner = sinew_particle_id_at(a, 99);
    assert_int_equal(sinew_particle_set_velocity(a, corner, sinew_vec2_make(3.0f, 1.0f)), SINEW_OK);
    corner = sinew_particle_id_at(b, 99);
    assert_int_equal(sinew_particle_set_velocity(b, corner, sinew_vec2_make(3.0f, 1.0f)), SINEW_OK);
    for (int k = 0; k < 200; ++k) {
        assert_int_equal(sinew_world_step(a, dt), SINEW_OK);
        assert_int_equal(sinew_world_step(b, dt), SINEW_OK);
    }
    uint64_t ha = hash_positions(a), hb = hash_positions(b);
    assert_true(ha == hb);
    // Two worlds that blew up the same way would hash equal too: check the cloth held together.
    // A sane cloth stretches by millimetres; a diverged one by metres or NaN. One spacing
    // (0.25 m) separates the two by orders of magnitude either way.
    sinew_step_stats st = sinew_world_stats(a);
    assert_true(isfinite(st.max_error) && st.max_error < 0.25f);
    assert_int_equal(st.reset_particles, 0);
    sinew_world_destroy(a);
    sinew_world_destroy(b);
    return ha;
}

static void same_scene_same_settings_same_hash(void **state)
{
    (void)state;
    sinew_solver_def s = sinew_default_solver_def();
    uint64_t gs = twin_hash(s);
    s.order = SINEW_GS_ORDER_ALTERNATING;
    uint64_t alternating = twin_hash(s);
    s.order = SINEW_GS_ORDER_SHUFFLE;
    s.shuffle_seed = 12345u;
    uint64_t shuffle = twin_hash(s);
    s.shuffle_seed = 54321u;
    uint64_t shuffle2 = twin_hash(s);
    assert_true(shuffle != shuffle2); // the seed matters
    s = sinew_default_solver_def();
    s.mode = SINEW_SOLVER_JACOBI;
    uint64_t jacobi = twin_hash(s);
    // The orders really are different computations.
    assert_true(gs != alternating);
    assert_true(gs != shuffle);
    assert_true(gs != jacobi);
}

static void byte_count_follows_the_allocator(void **state)
{
    (void)state;
    counting_allocator c;
    sinew_world *w = counted_world(&c, SINEW_SOLVER_GAUSS_SEIDEL);
    size_t last = sinew_world_byte_count(w);
    assert_true(last > 0u);
    assert_true(last == c.live_bytes);
    int grew = 0;
    for (int k = 0; k < 200; ++k) {
        make_particle(w, (float)k, 0.0f, 1.0f);
        size_t now = sinew_world_byte_count(w);
        assert_true(now >= last); // never shrinks while particles are added
        grew += now > last;
        last = now;
        assert_true(now == c.live_bytes);
    }
    assert_true(grew >= 2); // the store grew geometrically, more than once
    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.origin = sinew_vec2_make(0.0f, 10.0f);
    assert_int_equal(sinew_cloth_create(w, &cd, NULL), SINEW_OK);
    assert_true(sinew_world_byte_count(w) > last);
    assert_true(sinew_world_byte_count(w) == c.live_bytes);
    assert_int_equal(sinew_world_record_iterations(w, true), SINEW_OK);
    assert_true(sinew_world_byte_count(w) == c.live_bytes);
    assert_int_equal(sinew_world_record_iterations(w, false), SINEW_OK);
    assert_true(sinew_world_byte_count(w) == c.live_bytes);
    assert_true(sinew_world_byte_count(NULL) == 0u);
    sinew_world_destroy(w);
    assert_true(c.live_bytes == 0u);
}

static void an_empty_world_without_capacity_steps(void **state)
{
    (void)state;
    // particle_capacity 0: no particle store exists until the first particle is made. Stepping
    // such a world is legal and does nothing but count the step. (Under UBSan with
    // halt_on_error=1, as tests/run sets, this catches the force arrays being cleared with
    // memset(NULL, 0, 0) at the end of the step.) Kept last in the table so that a sanitizer
    // abort here cannot hide the other tests.
    counting_allocator c;
    sinew_world *w = counted_world(&c, SINEW_SOLVER_GAUSS_SEIDEL);
    const uint64_t allocs = c.allocs;
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(sinew_world_step(w, dt), SINEW_OK);
    }
    sinew_step_stats st = sinew_world_stats(w);
    assert_true(st.step_count == 3u);
    assert_int_equal(st.particles, 0);
    assert_int_equal(st.kinds[SINEW_KIND_DISTANCE].count, 0);
    assert_int_equal(st.kinds[SINEW_KIND_PIN].count, 0);
    assert_true(st.max_error == 0.0f && st.rms_error == 0.0f);
    assert_true(c.allocs == allocs); // stepping an empty world allocates nothing either
    sinew_world_destroy(w);
    assert_true(c.live_bytes == 0u);
}

// Every call that makes something in a world takes a NULL `out` (the id is not wanted) and
// makes it all the same; sinew_status_name gives every status's enum name.
static void every_create_accepts_a_null_out_and_every_status_has_a_name(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_def pd = sinew_default_particle_def();
    for (int k = 0; k < 4; ++k) {
        pd.position = sinew_vec2_make((float)k, (float)(k * k % 3));
        assert_int_equal(sinew_particle_create(w, &pd, NULL), SINEW_OK);
    }
    assert_int_equal(sinew_world_particles(w).count, 4);
    const sinew_particle_id a = sinew_particle_id_at(w, 0), b = sinew_particle_id_at(w, 1);
    const sinew_particle_id c = sinew_particle_id_at(w, 2), d = sinew_particle_id_at(w, 3);
    sinew_distance_def dd = sinew_default_distance_def();
    dd.a = a;
    dd.b = b;
    assert_int_equal(sinew_distance_create(w, &dd, NULL), SINEW_OK);
    sinew_pin_def pin = sinew_default_pin_def();
    pin.particle = a;
    assert_int_equal(sinew_pin_create(w, &pin, NULL), SINEW_OK);
    sinew_angle_def ad = sinew_default_angle_def();
    ad.a = a;
    ad.b = b;
    ad.c = c;
    assert_int_equal(sinew_angle_create(w, &ad, NULL), SINEW_OK);
    const sinew_particle_id ring[4] = {a, d, c, b}; // (0, 0), (3, 0), (2, 1), (1, 1)
    sinew_area_def ar = sinew_default_area_def();
    ar.particles = ring;
    ar.count = 4;
    assert_int_equal(sinew_area_create(w, &ar, NULL), SINEW_OK);
    sinew_collider_def cd = sinew_default_collider_def();
    assert_int_equal(sinew_circle_collider_create(w, &cd, sinew_vec2_make(0.0f, -5.0f), 1.0f, NULL), SINEW_OK);
    sinew_rope_def rd = sinew_default_rope_def();
    assert_int_equal(sinew_rope_create(w, &rd, NULL), SINEW_OK);
    const held h = count_by_stepping(w);
    assert_int_equal(h.pins, 1 + 1);      // ours and the rope's start
    assert_int_equal(h.angles, 1);
    assert_int_equal(h.areas, 1);
    assert_int_equal(h.colliders, 1);
    assert_int_equal(h.distances, 1 + rd.links);
    for (int s = 0; s < SINEW_STATUS_COUNT; ++s) {
        const char *name = sinew_status_name((sinew_status)s);
        assert_true(strncmp(name, "SINEW_", 6) == 0);
    }
    assert_string_equal(sinew_status_name(SINEW_ERR_OUT_OF_RANGE), "SINEW_ERR_OUT_OF_RANGE");
    assert_string_equal(sinew_status_name((sinew_status)-3), "SINEW_STATUS_UNKNOWN");
    assert_string_equal(sinew_status_name(SINEW_STATUS_COUNT), "SINEW_STATUS_UNKNOWN");
    sinew_world_destroy(w);
}

// A program can walk the whole graph: each kind's count and id-at give every live constraint,
// and ids read that way name the constraints a builder made; a link's length reads back.
static void the_graph_can_be_walked_kind_by_kind(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_rope_def rd = sinew_default_rope_def();
    rd.links = 6;
    rd.bend_stiffness = 0.5f;
    sinew_particle_id parts[7];
    sinew_distance_id links[6];
    sinew_angle_id bends[5];
    sinew_rope rope = {0};
    rope.particles = parts;
    rope.links = links;
    rope.bends = bends;
    assert_int_equal(sinew_rope_create(w, &rd, &rope), SINEW_OK);
    sinew_softbody_def sd = sinew_default_softbody_def();
    sd.center.x = 20.0f;
    assert_int_equal(sinew_softbody_create(w, &sd, NULL), SINEW_OK);
    assert_int_equal(sinew_distance_destroy(w, links[2]), SINEW_OK); // a hole in the ids
    const held h = count_by_stepping(w);
    assert_int_equal(sinew_world_distance_count(w), h.distances);
    assert_int_equal(sinew_world_pin_count(w), h.pins);
    assert_int_equal(sinew_world_area_count(w), h.areas);
    assert_int_equal(sinew_world_angle_count(w), h.angles);
    int rope_links_seen = 0;
    for (int k = 0; k < sinew_world_distance_count(w); ++k) {
        const sinew_distance_id id = sinew_distance_id_at(w, k);
        assert_true(sinew_distance_is_valid(w, id));
        for (int m = 0; m < 6; ++m) {
            rope_links_seen += id.index1 == links[m].index1 && id.generation == links[m].generation;
        }
        float length = -1.0f, error = 0.0f;
        assert_int_equal(sinew_distance_get_length(w, id, &length), SINEW_OK);
        assert_int_equal(sinew_distance_get_error(w, id, &error), SINEW_OK);
        sinew_distance_def dd;
        assert_int_equal(sinew_distance_get(w, id, &dd), SINEW_OK);
        assert_true(length >= 0.0f);
        if (dd.mode == SINEW_DISTANCE_EQUAL) {
            assert_true(fabsf((length - dd.rest) - error) < 1e-5f);
        }
    }
    assert_int_equal(rope_links_seen, 5);
    for (int k = 0; k < sinew_world_angle_count(w); ++k) {
        assert_true(sinew_angle_is_valid(w, sinew_angle_id_at(w, k)));
    }
    for (int k = 0; k < sinew_world_pin_count(w); ++k) {
        assert_true(sinew_pin_is_valid(w, sinew_pin_id_at(w, k)));
    }
    assert_true(sinew_area_is_valid(w, sinew_area_id_at(w, 0)));
    const sinew_area_id none = sinew_area_id_at(w, sinew_world_area_count(w));
    assert_true(none.index1 == 0u && none.generation == 0u);
    assert_int_equal(sinew_world_distance_count(NULL), 0);
    float length;
    assert_int_equal(sinew_distance_get_length(w, links[2], &length), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_distance_get_length(w, links[0], NULL), SINEW_ERR_NULL_ARGUMENT);
    sinew_world_destroy(w);
}

// Every constraint kind carries user data: from its def, read back, set after creation; a stale
// id reads NULL and refuses a set.
static void every_constraint_carries_user_data(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    const sinew_particle_id a = make_particle(w, 0.0f, 0.0f, 1.0f), b = make_particle(w, 1.0f, 0.0f, 1.0f);
    const sinew_particle_id c = make_particle(w, 1.0f, 1.0f, 1.0f);
    int tags[4];
    sinew_distance_def dd = sinew_default_distance_def();
    dd.a = a;
    dd.b = b;
    dd.user_data = &tags[0];
    sinew_distance_id dist;
    assert_int_equal(sinew_distance_create(w, &dd, &dist), SINEW_OK);
    sinew_pin_def pd = sinew_default_pin_def();
    pd.particle = a;
    pd.user_data = &tags[1];
    sinew_pin_id pin;
    assert_int_equal(sinew_pin_create(w, &pd, &pin), SINEW_OK);
    sinew_angle_def ad = sinew_default_angle_def();
    ad.a = a;
    ad.b = b;
    ad.c = c;
    ad.user_data = &tags[2];
    sinew_angle_id angle;
    assert_int_equal(sinew_angle_create(w, &ad, &angle), SINEW_OK);
    const sinew_particle_id ring[3] = {a, b, c};
    sinew_area_def ar = sinew_default_area_def();
    ar.particles = ring;
    ar.count = 3;
    ar.user_data = &tags[3];
    sinew_area_id area;
    assert_int_equal(sinew_area_create(w, &ar, &area), SINEW_OK);
    assert_ptr_equal(sinew_distance_user_data(w, dist), &tags[0]);
    assert_ptr_equal(sinew_pin_user_data(w, pin), &tags[1]);
    assert_ptr_equal(sinew_angle_user_data(w, angle), &tags[2]);
    assert_ptr_equal(sinew_area_user_data(w, area), &tags[3]);
    sinew_distance_def got;
    assert_int_equal(sinew_distance_get(w, dist, &got), SINEW_OK);
    assert_ptr_equal(got.user_data, &tags[0]);
    assert_int_equal(sinew_distance_set_user_data(w, dist, &tags[3]), SINEW_OK);
    assert_int_equal(sinew_pin_set_user_data(w, pin, NULL), SINEW_OK);
    assert_int_equal(sinew_angle_set_user_data(w, angle, &tags[0]), SINEW_OK);
    assert_int_equal(sinew_area_set_user_data(w, area, &tags[1]), SINEW_OK);
    assert_ptr_equal(sinew_distance_user_data(w, dist), &tags[3]);
    assert_null(sinew_pin_user_data(w, pin));
    assert_ptr_equal(sinew_angle_user_data(w, angle), &tags[0]);
    assert_ptr_equal(sinew_area_user_data(w, area), &tags[1]);
    assert_int_equal(sinew_distance_destroy(w, dist), SINEW_OK);
    assert_null(sinew_distance_user_data(w, dist));
    assert_int_equal(sinew_distance_set_user_data(w, dist, &tags[0]), SINEW_ERR_INVALID_ID);
    sinew_world_destroy(w);
}

// The accessors refuse a NULL world or output, and ids that are null or of a generation never
// issued, with the status the header names, and change nothing: the values they would have set
// stay, and so does the world.
static void accessors_refuse_bad_ids_and_outputs_and_change_nothing(void **state)
{
    (void)state;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(NULL, &w), SINEW_OK);
    sinew_particle_id ring[3];
    for (int k = 0; k < 3; ++k) {
        sinew_particle_def d = sinew_default_particle_def();
        d.position = sinew_vec2_make((float)k, k == 1 ? 1.0f : 0.0f);
        assert_int_equal(sinew_particle_create(w, &d, &ring[k]), SINEW_OK);
    }
    int tag = 7;
    const sinew_distance_id dist = make_link(w, ring[0], ring[1]);
    sinew_pin_def pd = sinew_default_pin_def();
    pd.particle = ring[0];
    sinew_pin_id pin;
    assert_int_equal(sinew_pin_create(w, &pd, &pin), SINEW_OK);
    sinew_angle_def ad = sinew_default_angle_def();
    ad.a = ring[0];
    ad.b = ring[1];
    ad.c = ring[2];
    sinew_angle_id angle;
    assert_int_equal(sinew_angle_create(w, &ad, &angle), SINEW_OK);
    sinew_area_def ar = sinew_default_area_def();
    ar.particles = ring;
    ar.count = 3;
    ar.user_data = &tag;
    sinew_area_id area;
    assert_int_equal(sinew_area_create(w, &ar, &area), SINEW_OK);
    sinew_collider_def cd = sinew_default_collider_def();
    sinew_collider_id floor_id;
    assert_int_equal(sinew_plane_collider_create(w, &cd, sinew_vec2_make(0.0f, 1.0f), -5.0f, &floor_id), SINEW_OK);
    float rest = 0.0f;
    assert_int_equal(sinew_area_get_rest(w, area, &rest), SINEW_OK);
    const world_snapshot before = snapshot(w);

    const sinew_area_id null_area = SINEW_NULL_ID, forged_area = {area.index1, area.generation + 1u};
    const sinew_pin_id forged_pin = {pin.index1, pin.generation + 1u};
    const sinew_angle_id forged_angle = {angle.index1, angle.generation + 1u};
    const sinew_collider_id forged_collider = {floor_id.index1, floor_id.generation + 1u};
    float got = -1.0f;
    assert_int_equal(sinew_area_get_rest(NULL, area, &got), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_area_get_rest(w, area, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_area_get_rest(w, null_area, &got), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_area_get_rest(w, forged_area, &got), SINEW_ERR_INVALID_ID);
    assert_true(got == -1.0f);
    assert_int_equal(sinew_area_set_rest(w, forged_area, 2.0f * rest), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_area_set_user_data(w, forged_area, NULL), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_pin_set_user_data(w, forged_pin, &tag), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_angle_set_user_data(w, forged_angle, &tag), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_collider_set_events(w, forged_collider, true), SINEW_ERR_INVALID_ID);
    assert_int_equal(sinew_distance_get(w, dist, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_distance_set(w, dist, NULL), SINEW_ERR_NULL_ARGUMENT);
    sinew_world *copy = OUT_SENTINEL;
    assert_int_equal(sinew_world_clone(NULL, &copy), SINEW_ERR_NULL_ARGUMENT);
    assert_ptr_equal(copy, OUT_SENTINEL);
    assert_int_equal(sinew_world_clone(w, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_non_null(strstr(sinew_world_last_error(w), "sinew_world_clone"));
    // No world at all.
    assert_int_equal(sinew_area_set_rest(NULL, area, 2.0f * rest), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_area_set_user_data(NULL, area, NULL), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_pin_set_user_data(NULL, pin, &tag), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_angle_set_user_data(NULL, angle, &tag), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_distance_set_user_data(NULL, dist, &tag), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_distance_destroy(NULL, dist), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_collider_set_events(NULL, floor_id, true), SINEW_ERR_NULL_ARGUMENT);

    float still = 0.0f;
    assert_int_equal(sinew_area_get_rest(w, area, &still), SINEW_OK);
    assert_true(still == rest);
    assert_ptr_equal(sinew_area_user_data(w, area), &tag);
    assert_null(sinew_pin_user_data(w, pin));
    assert_null(sinew_angle_user_data(w, angle));
    assert_same_world(before, snapshot(w));
    sinew_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_defs_match_the_headers),
        cmocka_unit_test(create_with_null_def_uses_the_defaults),
        cmocka_unit_test(create_refuses_every_bad_def_field),
        cmocka_unit_test(set_solver_refuses_bad_settings_and_keeps_the_old_ones),
        cmocka_unit_test(other_setters_refuse_bad_values),
        cmocka_unit_test(step_refuses_bad_dt_and_changes_nothing),
        cmocka_unit_test(last_error_says_something_after_a_failure),
        cmocka_unit_test(world_create_out_of_memory_frees_everything),
        cmocka_unit_test(particle_create_out_of_memory_changes_nothing),
        cmocka_unit_test(distance_create_out_of_memory_changes_nothing),
        cmocka_unit_test(pin_create_out_of_memory_changes_nothing),
        cmocka_unit_test(settings_out_of_memory_change_nothing),
        cmocka_unit_test(step_allocates_nothing_once_warm),
        cmocka_unit_test(max_particles_and_max_constraints_give_capacity),
        cmocka_unit_test(same_scene_same_settings_same_hash),
        cmocka_unit_test(byte_count_follows_the_allocator),
        cmocka_unit_test(an_empty_world_without_capacity_steps),
        cmocka_unit_test(every_create_accepts_a_null_out_and_every_status_has_a_name),
        cmocka_unit_test(the_graph_can_be_walked_kind_by_kind),
        cmocka_unit_test(every_constraint_carries_user_data),
        cmocka_unit_test(accessors_refuse_bad_ids_and_outputs_and_change_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
