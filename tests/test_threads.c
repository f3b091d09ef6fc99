// Threads: the worker count and task system in the def, changed between steps, refused when bad;
// the same end state at any worker count, with the count changed every few steps, with several
// worlds (each with its own pool) stepped at once from their own threads, after a load and a clone.
// Runs under ThreadSanitizer in tests/run.
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "world_internal.h"


// A world of the default def in solver `mode` with `workers` workers, whose stages hand out
// `grain` times smaller items than the engine's (1: the engine's own). The hand-off is not
// measured: spans split at the engine's thresholds, whatever this machine's round trip.
static sinew_world *threaded_world(sinew_solver_mode mode, int workers, int grain)
{
    sinew_world_def wd = sinew_default_world_def();
    wd.solver.mode = mode;
    wd.workers = workers;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
    w->tasks.grain = grain;
    sinew__tasks_set_handoff(&w->tasks, 1, 0);
    return w;
}

// The world's solver with other sub-steps and iterations.
static void set_steps(sinew_world *w, int substeps, int iterations)
{
    sinew_solver_def sd = sinew_world_get_solver(w);
    sd.substeps = substeps;
    sd.iterations = iterations;
    assert_int_equal(sinew_world_set_solver(w, &sd), SINEW_OK);
}

// A pile and a cloth over it, both solver modes: distances, contacts, collider contacts. Small:
// the world's stages hand out items of a thousandth of the engine's size, so that every one splits.
static void add_scene(sinew_world *w)
{
    w->tasks.grain = 1000;
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 400;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.columns = cd.rows = 20;
    cd.origin = sinew_vec2_make(2.0f, 30.0f);
    assert_int_equal(sinew_cloth_create(w, &cd, NULL), SINEW_OK);
}

static sinew_world *scene(sinew_solver_mode mode, int workers)
{
    sinew_world *w = threaded_world(mode, workers, 1);
    add_scene(w);
    return w;
}

static uint64_t run(sinew_solver_mode mode, int workers, bool change_workers)
{
    sinew_world *w = scene(mode, workers);
    for (int s = 0; s < 90; ++s) {
        if (change_workers && s % 10 == 0) {
            assert_int_equal(sinew_world_set_workers(w, 1 + (s / 10) % 4), SINEW_OK);
        }
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    }
    if (mode == SINEW_SOLVER_JACOBI) { // the table of the threaded Jacobi passes was built (they ran)
        assert_true(w->distances.seg_item > 0);
    }
    const uint64_t h = hash_positions(w);
    sinew_world_destroy(w);
    return h;
}

static void any_worker_count_gives_the_same_state(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        const uint64_t one = run((sinew_solver_mode)mode, 1, false);
        for (int workers = 2; workers <= 5; ++workers) {
            assert_true(run((sinew_solver_mode)mode, workers, false) == one);
        }
        assert_true(run((sinew_solver_mode)mode, 2, true) == one); // the count changed every 10 steps
    }
}

// A net of links made both ways, (i, j) and (j, i): Jacobi's layout then holds runs of negative
// offsets too, whose j ends lie in items before their i ends. With items of 32 particles (the
// grain of 1000), many links have their two ends in two items, and every count and sum must meet
// the same parts at any worker count, rigid and soft links alike.
static uint64_t two_way_net(int workers)
{
    sinew_world *w = threaded_world(SINEW_SOLVER_JACOBI, workers, 1000);
    enum { SIDE = 24 };
    sinew_particle_id ids[SIDE * SIDE];
    for (int r = 0; r < SIDE; ++r) {
        for (int c = 0; c < SIDE; ++c) {
            sinew_particle_def pd = sinew_default_particle_def();
            pd.position = sinew_vec2_make(0.25f * (float)c, -0.25f * (float)r);
            pd.weight = r == 0 && c % 6 == 0 ? 0.0f : 1.0f;
            pd.flags = 0u;
            assert_int_equal(sinew_particle_create(w, &pd, &ids[r * SIDE + c]), SINEW_OK);
        }
    }
    for (int r = 0; r < SIDE; ++r) {
        for (int c = 0; c < SIDE; ++c) {
            const int k = r * SIDE + c;
            sinew_distance_def dd = sinew_default_distance_def();
            dd.compliance = k % 3 == 0 ? 1e-4f : 0.0f;
            const bool forwards = (r / 4) % 2 == 0; // (bands of four rows: runs long enough for the table)
            if (c + 1 < SIDE) { // across
                dd.a = ids[forwards ? k : k + 1];
                dd.b = ids[forwards ? k + 1 : k];
                assert_int_equal(sinew_distance_create(w, &dd, NULL), SINEW_OK);
            }
            if (r + 1 < SIDE) { // down
                dd.a = ids[forwards ? k : k + SIDE];
                dd.b = ids[forwards ? k + SIDE : k];
                assert_int_equal(sinew_distance_create(w, &dd, NULL), SINEW_OK);
            }
        }
    }
    step_world(w, 40);
    assert_true(w->distances.seg_item > 0 || workers == 1); // the threaded passes ran
    const uint64_t h = hash_positions(w);
    sinew_world_destroy(w);
    return h;
}

static void links_made_both_ways_give_the_same_state_at_any_count(void **state)
{
    (void)state;
    const uint64_t one = two_way_net(1);
    for (int workers = 2; workers <= 4; ++workers) {
        assert_true(two_way_net(workers) == one);
    }
}

// A cloth alone collides with nothing, so it holds no search arrays: its spans are found with the
// span marks the workers bring, and it gives the same bits over workers as on one thread.
static void a_cloth_that_collides_with_nothing_spreads_over_workers(void **state)
{
    (void)state;
    uint64_t hashes[2];
    for (int workers = 1; workers <= 2; ++workers) {
        sinew_world *w = threaded_world(SINEW_SOLVER_GAUSS_SEIDEL, workers, 1000);
        sinew_cloth_def cd = sinew_default_cloth_def();
        cd.columns = cd.rows = 30;
        assert_int_equal(sinew_cloth_create(w, &cd, NULL), SINEW_OK);
        step_world(w, 30);
        assert_null(w->particles.colors);
        assert_true((w->particles.span_mark != NULL) == (workers > 1));
        assert_true(w->distances.l.spans_valid == (workers > 1));
        hashes[workers - 1] = hash_positions(w);
        sinew_world_destroy(w);
    }
    assert_true(hashes[0] == hashes[1]);
}

// The span marks are the distances' (the contacts' spans come from their colours): a pile with
// workers holds none; the first distance of a world with workers brings them, and so do workers
// given to a world with distances. Without the memory, either call fails and changes nothing.
static void span_marks_come_with_workers_and_distances(void **state)
{
    (void)state;
    sinew_world *w = threaded_world(SINEW_SOLVER_GAUSS_SEIDEL, 2, 1);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 500;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    step_world(w, 5);
    assert_null(w->particles.span_mark);
    sinew_distance_def dd = sinew_default_distance_def();
    dd.a = sinew_particle_id_at(w, 0);
    dd.b = sinew_particle_id_at(w, 1);
    assert_int_equal(sinew_distance_create(w, &dd, NULL), SINEW_OK);
    assert_non_null(w->particles.span_mark);
    sinew_world_destroy(w);

    counting_allocator c;
    sinew_world_def wd = sinew_default_world_def();
    wd.allocator = counting_allocator_make(&c);
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
    sinew_rope_def rd = sinew_default_rope_def();
    assert_int_equal(sinew_rope_create(w, &rd, NULL), SINEW_OK);
    assert_null(w->particles.span_mark);
    c.fail_after = (int64_t)c.allocs;
    assert_int_equal(sinew_world_set_workers(w, 2), SINEW_ERR_OUT_OF_MEMORY);
    assert_int_equal(sinew_world_get_workers(w), 1);
    assert_int_equal(sinew_world_set_workers(w, 1), SINEW_OK); // (one worker needs no marks)
    c.fail_after = -1;
    assert_int_equal(sinew_world_set_workers(w, 2), SINEW_OK);
    assert_non_null(w->particles.span_mark);
    sinew_world_destroy(w);

    assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
    assert_int_equal(sinew_world_set_workers(w, 2), SINEW_OK);
    sinew_particle_def d = sinew_default_particle_def();
    for (int k = 0; k < 2; ++k) {
        d.position = sinew_vec2_make((float)k, 0.0f);
        assert_int_equal(sinew_particle_create(w, &d, k == 0 ? &dd.a : &dd.b), SINEW_OK);
    }
    // Each allocation of the first distance failing in turn, the span marks' last.
    int failures = 0;
    for (;; ++failures) {
        c.fail_after = (int64_t)c.allocs + failures;
        const sinew_status st = sinew_distance_create(w, &dd, NULL);
        c.fail_after = -1;
        if (st == SINEW_OK) {
            break;
        }
        assert_int_equal(st, SINEW_ERR_OUT_OF_MEMORY);
        assert_int_equal(sinew_world_distance_count(w), 0);
        assert_null(w->particles.span_mark);
    }
    assert_true(failures >= 1);
    assert_int_equal(sinew_world_distance_count(w), 1);
    assert_non_null(w->particles.span_mark);
    sinew_world_destroy(w);
    assert_true(c.live_bytes == 0u);
}

// Links whose spans are all too short to split (under twice a task's least blocks) are swept in
// one pass, as on one thread: the rings of 100 soft bodies come in short spans. A cloth's spans
// are long and go over the workers. The soft bodies end in the same bits at both counts.
static void short_spans_are_swept_in_one_pass(void **state)
{
    (void)state;
    uint64_t hashes[2];
    for (int workers = 1; workers <= 2; ++workers) {
        sinew_world *w = threaded_world(SINEW_SOLVER_GAUSS_SEIDEL, workers, 1); // the engine's own sizes
        for (int k = 0; k < 100; ++k) {
            sinew_softbody_def sd = sinew_default_softbody_def();
            sd.points = 24;
            sd.center = sinew_vec2_make(2.5f * (float)(k % 10), 1.5f + 2.5f * (float)(k / 10));
            sinew_softbody sb = {0};
            assert_int_equal(sinew_softbody_create(w, &sd, &sb), SINEW_OK);
        }
        step_world(w, 20);
        const sinew__links *l = &w->distances.l;
        if (workers > 1) {
            assert_true(l->spans_valid && sinew__links_spread(w, l)); // (spans were found)
            assert_false(sinew__links_spans_split(w, l));
        }
        hashes[workers - 1] = hash_positions(w);
        sinew_world_destroy(w);
    }
    assert_true(hashes[0] == hashes[1]);
    sinew_world *w = threaded_world(SINEW_SOLVER_GAUSS_SEIDEL, 2, 1);
    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.columns = cd.rows = 64;
    assert_int_equal(sinew_cloth_create(w, &cd, NULL), SINEW_OK);
    step_world(w, 2);
    assert_true(sinew__links_spans_split(w, &w->distances.l));
    sinew_world_destroy(w);
}

// A cloth whose bottom row is dragged down until it tears: at any worker count the same links
// tear in the same order, every step, and the error statistics are the same numbers.
static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull; }

static uint64_t tearing_run(sinew_solver_mode mode, int workers)
{
    // Items of a few links: the strains and the statistics split over the workers.
    sinew_world *w = threaded_world(mode, workers, 1000);
    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.columns = cd.rows = 24;
    cd.tear_ratio = 1.3f;
    sinew_particle_id ids[24 * 24];
    sinew_cloth c = {0};
    c.particles = ids;
    assert_int_equal(sinew_cloth_create(w, &cd, &c), SINEW_OK);
    sinew_pin_id bottom[24];
    for (int k = 0; k < 24; ++k) {
        sinew_pin_def pd = sinew_default_pin_def();
        pd.particle = ids[23 * 24 + k];
        sinew_particle_get_position(w, pd.particle, &pd.target);
        assert_int_equal(sinew_pin_create(w, &pd, &bottom[k]), SINEW_OK);
    }
    uint64_t h = 0xcbf29ce484222325ull;
    int torn = 0;
    for (int s = 0; s < 120; ++s) {
        for (int k = 0; k < 24; ++k) { // dragged down at 6 m/s
            sinew_pin_def pd;
            assert_int_equal(sinew_pin_get(w, bottom[k], &pd), SINEW_OK);
            assert_int_equal(sinew_pin_set_target(w, bottom[k], sinew_vec2_make(pd.target.x, pd.target.y - 0.1f)),
                             SINEW_OK);
        }
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
        int count = 0;
        const sinew_tear *tears = sinew_world_tears(w, &count);
        for (int t = 0; t < count; ++t) {
            h = mix(h, ((uint64_t)tears[t].link.index1 << 32) | tears[t].link.generation);
            h = mix(h, ((uint64_t)tears[t].a.index1 << 32) | tears[t].b.index1);
        }
        torn += count;
        const sinew_step_stats st = sinew_world_stats(w);
        uint32_t bits[4];
        memcpy(&bits[0], &st.max_error, 4);
        memcpy(&bits[1], &st.rms_error, 4);
        memcpy(&bits[2], &st.kinds[SINEW_KIND_DISTANCE].max_error, 4);
        memcpy(&bits[3], &st.kinds[SINEW_KIND_DISTANCE].rms_error, 4);
        for (int b = 0; b < 4; ++b) {
            h = mix(h, bits[b]);
        }
    }
    assert_true(torn > 24); // it tore, and more than one row's worth
    h = mix(h, hash_positions(w));
    sinew_world_destroy(w);
    return h;
}

static void tears_and_statistics_are_the_same_at_any_count(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        const uint64_t one = tearing_run((sinew_solver_mode)mode, 1);
        for (int workers = 2; workers <= 4; ++workers) {
            assert_true(tearing_run((sinew_solver_mode)mode, workers) == one);
        }
    }
}

// How often the parallel search's bands split their contacts, split their tails over the workers,
// and went on on one thread.
typedef struct band_paths {
    int64_t splits, tails, growths, serial;
    int64_t placed, resumed; // Gauss-Seidel: searches that coloured and placed their contacts, or began to
} band_paths;

// Steps `w` `steps` times, reads its band counters into `paths`, destroys it and returns the hash
// of its positions.
static uint64_t step_and_hash(sinew_world *w, int steps, band_paths *paths)
{
    step_world(w, steps);
    const uint64_t h = hash_positions(w);
    *paths = (band_paths){w->contacts.band_splits, w->contacts.tail_splits, w->contacts.band_growths,
                          w->contacts.serial_tails, w->contacts.banded_colourings, w->contacts.resumed_colourings};
    sinew_world_destroy(w);
    return h;
}

// Adds a ball of the default particle def at (x, y) m with `radius` m.
static void add_ball(sinew_world *w, float x, float y, float radius)
{
    sinew_particle_def d = sinew_default_particle_def();
    d.position = sinew_vec2_make(x, y);
    d.radius = radius;
    assert_int_equal(sinew_particle_create(w, &d, NULL), SINEW_OK);
}

// A crowd that touches from its first search (balls 0.9 of a diameter apart): the parallel
// search has no share to size its bands by, so they run out of room; with bands of a particle or
// two and tail chunks of one contact (the grain of 1000), no outgrown band's tail can be scanned
// in chunks, so they are closed up and go on on one thread, and, as the contacts outgrow the
// arrays, the scan goes on there, growing them. The same state as one thread's.
static uint64_t crowd_run(int workers, int64_t *serial_tails)
{
    sinew_world *w = threaded_world(SINEW_SOLVER_GAUSS_SEIDEL, workers, 1000);
    for (int k = 0; k < 40 * 40; ++k) {
        add_ball(w, 0.18f * (float)(k % 40), 1.0f + 0.18f * (float)(k / 40), sinew_default_particle_def().radius);
    }
    band_paths paths;
    const uint64_t h = step_and_hash(w, 20, &paths);
    *serial_tails = paths.serial;
    return h;
}

static void a_crowd_found_at_once_gives_the_same_state(void **state)
{
    (void)state;
    int64_t serial = 0;
    const uint64_t one = crowd_run(1, &serial);
    assert_true(crowd_run(2, &serial) == one);
    assert_true(serial > 0);
    assert_true(crowd_run(3, &serial) == one);
}

// Bands of 128 particles (the tests' grain of 8): once the shares are known the contacts fit
// their bands' room, or the bands that outgrew it count the rest of their contacts (their tails,
// in chunks of 64), and the bands split them into kept and waiting ones at once; when they would
// not fit the arrays, the arrays first grow, once, to hold them all (keeping the bands' stretches).
// In Gauss-Seidel mode one worker colours the bands as they are found: when none outgrew, the
// bands place their contacts by colour; else the colour sort goes on from the last colour given.
// The same state as one thread's, at two and three workers, in both modes, every path taken.
static uint64_t banded_run(sinew_solver_mode mode, int workers, band_paths *paths)
{
    sinew_world *w = threaded_world(mode, workers, 8);
    set_steps(w, sinew_default_solver_def().substeps, 2);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 2000;
    pd.radius_min = 0.3f; // (mixed sizes)
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    return step_and_hash(w, 120, paths);
}

static void bands_that_split_their_contacts_give_the_same_state(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        band_paths paths;
        const uint64_t one = banded_run((sinew_solver_mode)mode, 1, &paths);
        assert_true(paths.splits == 0 && paths.tails == 0 && paths.serial == 0);
        assert_true(paths.placed == 0 && paths.resumed == 0);
        for (int workers = 2; workers <= 3; ++workers) {
            assert_true(banded_run((sinew_solver_mode)mode, workers, &paths) == one);
            assert_true(paths.splits > paths.tails); // some searches fit their rooms,
            assert_true(paths.tails > 0);            // some split their bands' tails too,
            assert_true(paths.growths > 0);          // some grew the arrays for them first,
            assert_true(paths.serial == 0);          // and none went on on one thread
            if (mode == SINEW_SOLVER_GAUSS_SEIDEL) { // some were coloured and placed as they were found,
                assert_true(paths.placed > 0);       // and some sorts went on from the search's colours
                assert_true(paths.resumed > 0);
            } else {
                assert_true(paths.placed == 0 && paths.resumed == 0);
            }
        }
    }
}

// A pile with immovable balls among its movable ones (every seventh), whose contacts fill two
// tiles of the colour sort (three neighbours touch each ball from the start), at one sub-step (so
// that a step's contacts are those of its one search). An immovable ball is in blocks that two
// workers solve at once, and no kernel writes it (the threaded tests run under ThreadSanitizer);
// the bands colour the contacts as they are found and place them by colour, tile by tile. The
// same state as one thread's.
static uint64_t pinned_balls_run(int workers, int *placed_over_two)
{
    sinew_world *w = threaded_world(SINEW_SOLVER_GAUSS_SEIDEL, workers, 1);
    set_steps(w, 1, 2);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 30000;
    pd.spacing = 0.98f;
    pd.row_offset = 0.49f;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    for (int k = 0; k < pd.count; k += 7) {
        assert_int_equal(sinew_particle_set_weight(w, sinew_particle_id_at(w, k), 0.0f), SINEW_OK);
    }
    *placed_over_two = 0;
    for (int s = 0; s < 8; ++s) {
        const int64_t placed = w->contacts.banded_colourings;
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
        *placed_over_two += w->contacts.banded_colourings > placed && w->contacts.l.count > SINEW__TILE_CONTACTS;
    }
    const uint64_t h = hash_positions(w);
    sinew_world_destroy(w);
    return h;
}

static void immovable_balls_and_two_tiles_give_the_same_state(void **state)
{
    (void)state;
    int placed = 0;
    const uint64_t one = pinned_balls_run(1, &placed);
    assert_int_equal(placed, 0);
    assert_true(pinned_balls_run(2, &placed) == one);
    assert_true(placed > 0);
}

// When the arrays cannot grow for the bands' counted contacts, the search goes on on one thread
// as it did before the growth at once (dropping, and counting, the contacts it has no room for):
// every step goes on, every position stays finite, and nothing leaks.
static void bands_whose_arrays_cannot_grow_go_on_on_one_thread(void **state)
{
    (void)state;
    counting_allocator ca;
    sinew_world_def wd = sinew_default_world_def();
    wd.workers = 2;
    wd.allocator = counting_allocator_make(&ca);
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
    w->tasks.grain = 8;
    set_steps(w, sinew_default_solver_def().substeps, 2);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 2000;
    pd.radius_min = 0.3f;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    step_world(w, 5);
    const int64_t growths = w->contacts.band_growths, serial = w->contacts.serial_tails;
    ca.fail_after = (int64_t)ca.allocs; // every allocation from here on fails
    int dropped = 0;
    for (int s = 0; s < 115; ++s) {
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
        dropped += sinew_world_stats(w).dropped_contacts;
    }
    assert_true(w->contacts.band_growths == growths); // none could grow,
    assert_true(w->contacts.serial_tails > serial);   // so the search went on on one thread,
    assert_true(dropped > 0);                         // and said what it could not keep
    for (int i = 0; i < w->particles.count; ++i) {
        assert_true(isfinite(w->particles.x[i]) && isfinite(w->particles.y[i]));
    }
    sinew_world_destroy(w);
    assert_int_equal(ca.live_bytes, 0);
}

// Piles of mixed balls with a clump dropped into them (seeded), bands of 128 particles and tail
// chunks of 64 contacts (the grain of 8): the bands outgrow their rooms at various places, their
// tails are split over the workers or, where the clump overfills a chunk, the search goes on on one
// thread. The same state at 1, 2 and 3 workers, in both modes, and both paths taken.
static uint64_t clumped_run(sinew_solver_mode mode, int seed, int workers, band_paths *paths)
{
    sinew_world *w = threaded_world(mode, workers, 8);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 1500 + 100 * seed;
    pd.radius_min = 0.2f;
    pd.radius_max = 0.6f;
    pd.seed = (uint64_t)seed;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    for (int k = 0; k < 80; ++k) { // a clump, 0.05 m apart, somewhere over the pile
        add_ball(w, 4.0f + 7.0f * (float)seed + 0.05f * (float)(k % 9), 30.0f + 0.05f * (float)(k / 9), 0.3f);
    }
    return step_and_hash(w, 60, paths);
}

static void clumped_piles_give_the_same_state_at_any_count(void **state)
{
    (void)state;
    int64_t tails = 0, serial = 0;
    for (int seed = 1; seed <= 2; ++seed) {
        const sinew_solver_mode mode = seed % 2 ? SINEW_SOLVER_GAUSS_SEIDEL : SINEW_SOLVER_JACOBI;
        band_paths paths;
        const uint64_t one = clumped_run(mode, seed, 1, &paths);
        for (int workers = 2; workers <= 3; ++workers) {
            assert_true(clumped_run(mode, seed, workers, &paths) == one);
            tails += paths.tails;
            serial += paths.serial;
        }
    }
    assert_true(tails > 0);
    assert_true(serial > 0);
}

static void *run_inline(sinew_task_fn *task, int count, int min_range, void *task_context, void *user_context);
static void finish_inline(void *user_task, void *user_context);

// Whether some particle is held (see sinew__ends) by two items of the split: its parts come from
// three items, and the later two's slots must be added in item order.
static bool held_by_two_items(const sinew_world *w)
{
    const sinew__contact_split *sp = &w->contacts.split;
    int *item_of = malloc(sizeof(int) * (size_t)w->particles.count);
    assert_non_null(item_of);
    for (int p = 0; p < w->particles.count; ++p) {
        item_of[p] = -1;
    }
    bool twice = false;
    for (int t = 0; t < sp->items; ++t) {
        for (int s = sp->slot_start[t]; s < sp->slot_start[t + 1]; ++s) {
            const int p = sp->slot_p[s];
            twice |= item_of[p] >= 0 && item_of[p] != t;
            item_of[p] = t;
        }
    }
    free(item_of);
    return twice;
}

// Jacobi's contact passes over the workers (contact_jacobi.c): a pile's contacts cut into one item
// a worker, and what an item would add to a particle an earlier item meets held and added after,
// in order. The same state as one thread's at 2 and 3 workers of the pool and at 64 workers of
// a task system that runs tasks inline (items of about 50 contacts: some particles are held by two
// items), on both kernel paths, with one material and with mixed weights and frictions (the
// response's per-contact shares). What this catches is a part added twice, lost, or raced on
// (ThreadSanitizer); not the order of the held parts: the sums are doubles of float parts, exact
// in almost any order (adding the held parts backwards, or giving a particle to the last item that
// meets it, left these states the same). The next test checks the order.
typedef struct split_seen {
    int64_t splits; // searches whose contacts were split
    int items;      // of the last one
    bool twice;     // some particle was held by two items at the last step
} split_seen;

static uint64_t split_run(int workers, bool inline_tasks, bool avx2, bool mixed, split_seen *seen)
{
    sinew_world_def wd = sinew_default_world_def();
    wd.solver.mode = SINEW_SOLVER_JACOBI;
    wd.workers = workers;
    wd.enqueue_task = inline_tasks ? run_inline : NULL;
    wd.finish_task = inline_tasks ? finish_inline : NULL;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
    w->tasks.grain = 64; // items of 4 blocks or more
    w->avx2 = w->avx2 && avx2;
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 1200;
    sinew_particle_id ids[1200];
    sinew_pile out = {.particles = ids};
    assert_int_equal(sinew_pile_create(w, &pd, &out), SINEW_OK);
    for (int k = 0; mixed && k < pd.count; k += 3) {
        assert_int_equal(sinew_particle_set_weight(w, ids[k], 0.5f), SINEW_OK);
        assert_int_equal(sinew_particle_set_friction(w, ids[k], 0.3f, 0.2f), SINEW_OK);
    }
    step_world(w, 60);
    *seen = (split_seen){w->contacts.split.splits, w->contacts.split.items, held_by_two_items(w)};
    const uint64_t h = hash_positions(w);
    sinew_world_destroy(w);
    return h;
}

static void jacobi_contacts_split_over_workers_give_the_same_state(void **state)
{
    (void)state;
    for (int mixed = 0; mixed < 2; ++mixed) {
        split_seen seen;
        const uint64_t one = split_run(1, false, true, mixed, &seen);
        assert_int_equal(seen.splits, 0);
        for (int avx2 = 0; avx2 < 2; ++avx2) {
            const int counts[] = {2, 3};
            for (int c = 0; c < 2; ++c) {
                if (split_run(counts[c], false, avx2, mixed, &seen) != one) {
                    fail_msg("%d workers, %s kernels, %s: the state differs from one thread's", counts[c],
                             avx2 ? "AVX2" : "portable", mixed ? "mixed" : "one material");
                }
                assert_true(seen.splits > 0);
                assert_int_equal(seen.items, counts[c]);
            }
            assert_true(split_run(64, true, avx2, mixed, &seen) == one);
            assert_true(seen.splits > 0 && seen.items > 8);
            assert_true(seen.twice);
        }
    }
}

// The held parts are added in contact order: with every sum started at a million (from 0, the
// double sums of float parts are exact in almost any order; from a million, parts of a tenth of a
// millimetre lose their last bits, differently in another order), a pass split over the workers
// leaves the sums of one pass on one thread to the bit, for the corrections (accumulate) and for
// both sums of the response. Adding the held parts backwards fails this, and so does giving each
// particle to the last part that meets it.
static void start_sums(sinew_world *w)
{
    sinew__particles *p = &w->particles;
    for (int i = 0; i < p->count; ++i) {
        p->acc[i].dx = p->acc[i].dy = 1e6 + (double)(i % 7);
        p->jacobi_x[i] = p->jacobi_y[i] = -1e6 - (double)(i % 5);
    }
}

static bool same_sums(const sinew__particles *p, const sinew__jacobi_sum *acc, const double *pos)
{
    return memcmp(acc, p->acc, sizeof *acc * (size_t)p->count) == 0 &&
           memcmp(pos, p->jacobi_x, sizeof *pos * (size_t)p->count) == 0 &&
           memcmp(pos + p->count, p->jacobi_y, sizeof *pos * (size_t)p->count) == 0;
}

static void held_parts_are_added_in_contact_order(void **state)
{
    (void)state;
    sinew_world_def wd = sinew_default_world_def();
    wd.solver.mode = SINEW_SOLVER_JACOBI;
    wd.workers = 3;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
    w->tasks.grain = 64;
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 1200;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    step_world(w, 60);
    sinew__contact_split *sp = &w->contacts.split;
    assert_int_equal(sp->items, 3);
    assert_true(sp->slot_start[sp->items] > 0);
    sinew__particles *p = &w->particles;
    const int n = p->count;
    sinew__jacobi_sum *acc = malloc(sizeof *acc * (size_t)n);
    double *pos = malloc(sizeof *pos * 2u * (size_t)n);
    float *inv_n = malloc(sizeof *inv_n * (size_t)n);
    assert_non_null(acc);
    assert_non_null(pos);
    assert_non_null(inv_n);
    sinew__contacts_jacobi(w, SINEW__JACOBI_IN_PLAY, 0.0f); // (counts for the response's shares)
    memcpy(inv_n, p->inv_n, sizeof *inv_n * (size_t)n);
    for (int pass = 0; pass < 2; ++pass) {
        const sinew__jacobi_pass kind = pass == 0 ? SINEW__JACOBI_ACCUMULATE : SINEW__JACOBI_RESPOND;
        const int items = sp->items;
        for (int split = 0; split < 2; ++split) { // one thread first, then the parts
            sp->items = split ? items : 0;
            memcpy(p->inv_n, inv_n, sizeof *inv_n * (size_t)n);
            start_sums(w);
            sinew__contacts_jacobi(w, kind, 1.5f);
            if (!split) {
                memcpy(acc, p->acc, sizeof *acc * (size_t)n);
                memcpy(pos, p->jacobi_x, sizeof *pos * (size_t)n);
                memcpy(pos + n, p->jacobi_y, sizeof *pos * (size_t)n);
            }
        }
        assert_true(same_sums(p, acc, pos));
    }
    free(acc);
    free(pos);
    free(inv_n);
    sinew_world_destroy(w);
}

// The parallel search's room is what the arrays hold already, unless the contacts need more: a
// 10,000-ball pile holds about as many bytes with workers as on one thread (growing the arrays
// for a guess once left it 237 bytes a particle against 196 after 100 steps, and 379 against 235
// after 600 steps at 8 x 4).
static void the_parallel_search_holds_what_one_thread_holds(void **state)
{
    (void)state;
    size_t bytes[2];
    uint64_t hashes[2];
    for (int workers = 1; workers <= 2; ++workers) {
        sinew_world *w = threaded_world(SINEW_SOLVER_GAUSS_SEIDEL, workers, 1);
        set_steps(w, 4, 1);
        sinew_pile_def pd = sinew_default_pile_def();
        pd.count = 10000;
        assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
        step_world(w, 100);
        bytes[workers - 1] = sinew_world_byte_count(w);
        hashes[workers - 1] = hash_positions(w);
        sinew_world_destroy(w);
    }
    assert_true(hashes[0] == hashes[1]);
    assert_true((double)bytes[1] <= 1.05 * (double)bytes[0]);
}

// sinew__parallel_for_beside (the grid's counting sort beside the collider marks): every item of
// the job runs once and the one-thread work once, with the built-in pool at 1 to 3 workers and
// with a task system that runs tasks inline; a job of no items, or none, runs the work alone.
typedef struct beside_counts {
    int items[5000];
    int beside_runs;
} beside_counts;

static void count_items_once(int start, int end, int worker, void *context)
{
    (void)worker;
    beside_counts *b = context;
    for (int k = start; k < end; ++k) {
        b->items[k] += 1;
    }
}

static void count_beside(void *context) { ((beside_counts *)context)->beside_runs += 1; }

static void *run_inline(sinew_task_fn *task, int count, int min_range, void *task_context, void *user_context)
{
    (void)min_range;
    (void)user_context;
    task(0, count, 0, task_context);
    return NULL;
}

static void finish_inline(void *user_task, void *user_context)
{
    (void)user_task;
    (void)user_context;
}

static void a_job_beside_one_thread_work_runs_every_item_once(void **state)
{
    (void)state;
    for (int setup = 0; setup < 4; ++setup) {
        sinew_world_def wd = sinew_default_world_def();
        wd.workers = setup < 3 ? setup + 1 : 2;
        if (setup == 3) {
            wd.enqueue_task = run_inline;
            wd.finish_task = finish_inline;
        }
        sinew_world *w = NULL;
        assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
        beside_counts *b = calloc(1, sizeof *b);
        assert_non_null(b);
        const sinew__job job = {count_items_once, 5000, 16, b};
        for (int round = 0; round < 20; ++round) {
            sinew__parallel_for_beside(&w->tasks, &job, count_beside, b);
        }
        for (int k = 0; k < 5000; ++k) {
            assert_int_equal(b->items[k], 20);
        }
        assert_int_equal(b->beside_runs, 20);
        const sinew__job none = {count_items_once, 0, 16, b};
        sinew__parallel_for_beside(&w->tasks, &none, count_beside, b);
        sinew__parallel_for_beside(&w->tasks, NULL, count_beside, b);
        sinew__parallel_for_beside(&w->tasks, &job, NULL, NULL);
        assert_int_equal(b->beside_runs, 22);
        assert_int_equal(b->items[0], 21);
        assert_int_equal(b->items[4999], 21);
        free(b);
        sinew_world_destroy(w);
    }
}

// Steps a pile of `balls`, or a cloth of `side` x `side` hung from its top row when `side` > 0, at
// `workers` (with a task system of the user's when `users`) `steps` times, the hand-off measured
// every step it may be; the step at which the first measure was taken, or -1. Every report is the
// pool's, with its scale; a measure taken is reported unless it is over 4 us (two threads on one
// CPU: tasks.c), when the last one kept stands. *jobs: the jobs of the first step.
static int first_hand_off(int workers, bool users, int balls, int side, int steps, int *jobs)
{
    sinew_world_def wd = sinew_default_world_def();
    wd.workers = workers;
    wd.enqueue_task = users ? run_inline : NULL;
    wd.finish_task = users ? finish_inline : NULL;
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
    assert_int_equal(sinew_world_set_profiling(w, SINEW_PROFILE_STAGES), SINEW_OK);
    sinew__tasks_set_handoff(&w->tasks, 1, 1);
    if (side > 0) {
        sinew_cloth_def cd = sinew_default_cloth_def();
        cd.columns = cd.rows = side;
        assert_int_equal(sinew_cloth_create(w, &cd, NULL), SINEW_OK);
    } else {
        sinew_pile_def pd = sinew_default_pile_def();
        pd.count = balls;
        assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    }
    int first = -1;
    for (int s = 0; s < steps; ++s) {
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
        if (s == 0) {
            *jobs = sinew_world_profile(w).jobs;
        }
        const int ns = sinew_world_profile(w).handoff_ns, scale = sinew__tasks_handoff_scale(&w->tasks);
        const int taken = sinew__tasks_handoff_taken_ns(&w->tasks);
        assert_int_equal(ns, sinew__tasks_handoff_ns(&w->tasks));
        if (taken > 0 && first < 0) {
            first = s;
        }
        if (taken > 0 && taken <= 4000) {
            assert_int_equal(ns, taken);
        }
        const int expect = ns / SINEW__HANDOFF_REFERENCE_NS;
        assert_int_equal(scale, ns == 0 || expect < 1 ? 1 : expect > 16 ? 16 : expect);
    }
    if (first >= 0) { // another worker count is another pool, measured again from nothing
        assert_int_equal(sinew_world_set_workers(w, 3), SINEW_OK);
        assert_int_equal(sinew__tasks_handoff_ns(&w->tasks), 0);
        assert_int_equal(sinew__tasks_handoff_scale(&w->tasks), 1);
    }
    sinew_world_destroy(w);
    return first;
}

// The hand-off (tasks.h): with the built-in pool's workers the world measures a round trip between
// them and reports it in the profile; with one worker, or a task system of the user's, it measures
// nothing. A 64 x 64 cloth hands out jobs from its first step (its spans split), and its measures
// come after them (due at every step, so that one that gave up, a worker held off its core, does
// not fail the test). A pile of 200 hands out none, and its workers sleep: the first measure wakes
// them only after 32 times the steps between measures.
static void the_hand_off_is_measured_with_the_pool(void **state)
{
    (void)state;
    int jobs = 0;
    assert_int_equal(first_hand_off(1, false, 0, 64, 40, &jobs), -1);
    assert_int_equal(first_hand_off(2, true, 0, 64, 40, &jobs), -1);
    const int with_jobs = first_hand_off(2, false, 0, 64, 100, &jobs);
    assert_true(jobs > 0);
    assert_true(with_jobs >= 0);
    assert_true(first_hand_off(2, false, 200, 0, 200, &jobs) >= 31);
    assert_int_equal(jobs, 0);
}

// Runs add_scene's pile and cloth for 90 steps at `workers`, with items an eighth of the engine's
// (so that its contacts and links split as a pile of 3,200 balls and a 56 x 56 cloth would), the
// hand-off's scale set at every step by `scales` (in turn; the measure off). Counts the jobs
// handed out in the steps at the first scale and at the others in jobs[2]. The state's hash.
static uint64_t run_scaled(sinew_solver_mode mode, int workers, const int *scales, int n_scales, int jobs[2])
{
    sinew_world *w = threaded_world(mode, workers, 1);
    assert_int_equal(sinew_world_set_profiling(w, SINEW_PROFILE_STAGES), SINEW_OK);
    add_scene(w);
    w->tasks.grain = 8;
    jobs[0] = jobs[1] = 0;
    for (int s = 0; s < 90; ++s) {
        sinew__tasks_set_handoff(&w->tasks, scales[s % n_scales], 0);
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
        jobs[s % n_scales == 0 ? 0 : 1] += sinew_world_profile(w).jobs;
    }
    const uint64_t h = hash_positions(w);
    sinew_world_destroy(w);
    return h;
}

// The hand-off's scale only decides which spans are split over the workers: changed at every step,
// from the engine's thresholds (1) to sixteen times them, the state is the one of one worker, in
// both modes. At 16 fewer jobs are handed out than at 1 (the pile's contacts and the cloth's spans
// run on one thread).
static void the_hand_off_scale_changes_nothing_but_the_splits(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        const int one[1] = {1}, turns[3] = {1, 16, 3};
        int jobs[2], jobs_one[2];
        const uint64_t h1 = run_scaled((sinew_solver_mode)mode, 1, one, 1, jobs_one);
        assert_int_equal(jobs_one[0], 0);
        assert_true(run_scaled((sinew_solver_mode)mode, 2, turns, 3, jobs) == h1);
        assert_true(jobs[0] > 0 && jobs[1] > 0);
        if (mode == SINEW_SOLVER_GAUSS_SEIDEL) { // (Jacobi's passes are not spans)
            int at_one[2], at_sixteen[2];
            const int sixteen[1] = {16};
            assert_true(run_scaled((sinew_solver_mode)mode, 2, one, 1, at_one) == h1);
            assert_true(run_scaled((sinew_solver_mode)mode, 2, sixteen, 1, at_sixteen) == h1);
            assert_true(at_sixteen[0] < at_one[0]);
        }
    }
}

// The step's profile: its six stages add up to the step; the jobs are counted at any worker count
// (none with one worker) and, when timed, their wait lies within their time, which lies within the
// step; without profiling it stays zero; profiling changes nothing of the state.
static void the_profile_adds_up_and_profiling_changes_nothing(void **state)
{
    (void)state;
    const sinew_profiling levels[3] = {SINEW_PROFILE_JOBS, SINEW_PROFILE_STAGES, SINEW_PROFILE_OFF};
    for (int setup = 0; setup < 3; ++setup) {
        const int workers = setup == 0 ? 1 : 2;
        sinew_world *w[3];
        for (int k = 0; k < 3; ++k) {
            w[k] = scene(SINEW_SOLVER_GAUSS_SEIDEL, workers);
            if (setup == 2) { // a task system of the user's, which runs the tasks inline
                w[k]->tasks.enqueue = run_inline;
                w[k]->tasks.finish = finish_inline;
            }
            assert_int_equal(sinew_world_set_profiling(w[k], levels[k]), SINEW_OK);
        }
        for (int s = 0; s < 30; ++s) {
            sinew_step_profile p[3];
            for (int k = 0; k < 3; ++k) {
                assert_int_equal(sinew_world_step(w[k], 1.0f / 60.0f), SINEW_OK);
                p[k] = sinew_world_profile(w[k]);
            }
            for (int k = 0; k < 2; ++k) {
                const float stages[6] = {p[k].prepare, p[k].integrate, p[k].collide, p[k].solve, p[k].finish, p[k].end};
                double sum = 0.0;
                for (int t = 0; t < 6; ++t) {
                    assert_true(stages[t] > 0.0f && isfinite(stages[t])); // (every stage is timed)
                    sum += stages[t];
                }
                assert_true(p[k].step > 0.0f && isfinite(p[k].step));
                assert_true(fabs(sum - p[k].step) <= 1e-4 * p[k].step);
            }
            assert_int_equal(p[0].jobs, p[1].jobs); // the same work, its jobs timed or not
            assert_true(p[1].parallel == 0.0f && p[1].wait == 0.0f);
            assert_memory_equal(&p[2], &(sinew_step_profile){0}, sizeof p[2]); // not profiled
            if (workers == 1) {
                assert_int_equal(p[0].jobs, 0);
                assert_true(p[0].parallel == 0.0f && p[0].wait == 0.0f);
            } else {
                assert_true(p[0].jobs > 0);
                assert_true(p[0].wait >= 0.0f && p[0].wait <= p[0].parallel);
                assert_true(p[0].parallel <= p[0].step * (1.0f + 1e-5f));
            }
        }
        assert_true(hash_positions(w[0]) == hash_positions(w[2]));
        assert_true(hash_positions(w[1]) == hash_positions(w[2]));
        // Each stage's time is its own: at 60 iterations a sub-step, the iterations take most of a
        // step (in the best of five, in case the thread was held up in another stage).
        set_steps(w[0], 2, 60);
        float best = 0.0f;
        for (int s = 0; s < 5; ++s) {
            assert_int_equal(sinew_world_step(w[0], 1.0f / 60.0f), SINEW_OK);
            const sinew_step_profile p = sinew_world_profile(w[0]);
            best = fmaxf(best, p.solve / p.step);
        }
        assert_true(best > 0.5f);
        // An unknown level is refused and changes nothing: the world still times its jobs.
        assert_int_equal(sinew_world_set_profiling(w[0], (sinew_profiling)3), SINEW_ERR_OUT_OF_RANGE);
        assert_int_equal(sinew_world_set_profiling(w[0], (sinew_profiling)-1), SINEW_ERR_OUT_OF_RANGE);
        assert_int_equal(sinew_world_step(w[0], 1.0f / 60.0f), SINEW_OK);
        assert_true(sinew_world_profile(w[0]).step > 0.0f);
        assert_true(w[0]->tasks.time_jobs);
        for (int k = 0; k < 3; ++k) {
            sinew_world_destroy(w[k]);
        }
    }
    assert_int_equal(sinew_world_set_profiling(NULL, SINEW_PROFILE_STAGES), SINEW_ERR_NULL_ARGUMENT);
}

static void bad_thread_settings_are_refused(void **state)
{
    (void)state;
    sinew_world_def wd = sinew_default_world_def();
    sinew_world *w = NULL;
    wd.workers = 0;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_ERR_OUT_OF_RANGE);
    wd.workers = SINEW_MAX_WORKERS + 1;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_ERR_OUT_OF_RANGE);
    wd.workers = 2;
    wd.finish_task = NULL;
    wd.enqueue_task = (sinew_enqueue_task_fn *)NULL;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK); // neither: the built-in pool
    assert_int_equal(sinew_world_get_workers(w), 2);
    assert_int_equal(sinew_world_set_workers(w, 0), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_world_set_workers(w, SINEW_MAX_WORKERS + 1), SINEW_ERR_OUT_OF_RANGE);
    assert_int_equal(sinew_world_get_workers(w), 2);
    assert_int_equal(sinew_world_set_workers(NULL, 2), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_get_workers(NULL), 0);
    assert_non_null(w->tasks.pool); // the pool exists
    assert_int_equal(sinew_world_set_workers(w, 1), SINEW_OK);
    assert_null(w->tasks.pool); // and stops at one worker
    sinew_world_destroy(w);
}

// A snapshot taken with 3 workers loads with 1 and with 2, and a clone keeps the count (and the
// profiling level, where a load starts unprofiled): the same future everywhere.
static void loads_and_clones_keep_the_state_at_any_count(void **state)
{
    (void)state;
    sinew_world *w = scene(SINEW_SOLVER_GAUSS_SEIDEL, 3);
    assert_int_equal(sinew_world_set_profiling(w, SINEW_PROFILE_JOBS), SINEW_OK);
    step_world(w, 30);
    const size_t n = sinew_world_save_size(w);
    void *buf = malloc(n);
    assert_non_null(buf);
    size_t written = 0;
    assert_int_equal(sinew_world_save(w, buf, n, &written), SINEW_OK);
    sinew_world *copy = NULL, *loaded = NULL;
    assert_int_equal(sinew_world_clone(w, &copy), SINEW_OK);
    assert_int_equal(sinew_world_get_workers(copy), 3);
    sinew_world_def d = sinew_default_world_def();
    d.workers = 2;
    assert_int_equal(sinew_world_load(buf, written, &d, &loaded), SINEW_OK);
    assert_int_equal(sinew_world_get_workers(loaded), 2);
    d.workers = 0;
    sinew_world *refused = NULL;
    assert_int_equal(sinew_world_load(buf, written, &d, &refused), SINEW_ERR_OUT_OF_RANGE);
    assert_null(refused);
    for (int s = 0; s < 30; ++s) {
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
        assert_int_equal(sinew_world_step(copy, 1.0f / 60.0f), SINEW_OK);
        assert_int_equal(sinew_world_step(loaded, 1.0f / 60.0f), SINEW_OK);
    }
    assert_true(copy->profiling == SINEW_PROFILE_JOBS && copy->tasks.time_jobs);
    assert_true(sinew_world_profile(copy).step > 0.0f);
    assert_true(loaded->profiling == SINEW_PROFILE_OFF && !loaded->tasks.time_jobs);
    assert_true(sinew_world_profile(loaded).step == 0.0f);
    assert_true(hash_positions(w) == hash_positions(copy));
    assert_true(hash_positions(w) == hash_positions(loaded));
    free(buf);
    sinew_world_destroy(w);
    sinew_world_destroy(copy);
    sinew_world_destroy(loaded);
}

// Several worlds at once, each stepped by its own thread with its own pool of 2 workers.
typedef struct job {
    sinew_solver_mode mode;
    uint64_t hash;
} job;

static void *step_one(void *arg)
{
    job *j = arg;
    j->hash = run(j->mode, 2, false);
    return NULL;
}

static void several_worlds_step_at_once(void **state)
{
    (void)state;
    job jobs[3] = {{SINEW_SOLVER_GAUSS_SEIDEL, 0}, {SINEW_SOLVER_JACOBI, 0}, {SINEW_SOLVER_GAUSS_SEIDEL, 0}};
    pthread_t t[3];
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(pthread_create(&t[k], NULL, step_one, &jobs[k]), 0);
    }
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(pthread_join(t[k], NULL), 0);
    }
    assert_true(jobs[0].hash == jobs[2].hash);
    assert_true(jobs[0].hash == run(SINEW_SOLVER_GAUSS_SEIDEL, 1, false));
    assert_true(jobs[1].hash == run(SINEW_SOLVER_JACOBI, 1, false));
}

// A task system of the user's own, as a game's would be: threads of its own that take ranges of
// a task from a shared queue (under a mutex), a handle from enqueue, and a finish that runs the
// ranges still queued on the calling thread (worker 0), then waits for the others. Every seventh
// task, and any of one range, it runs inline instead (NULL handle), as the header allows.
typedef struct user_pool {
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    pthread_t threads[3];
    int thread_count;
    bool stop;
    // The one task in flight (the engine finishes each before it enqueues the next).
    sinew_task_fn *task;
    void *task_context;
    int count, range, next, running; // items, items a range, next item to hand out, ranges not done
    bool in_flight;
    // What the pool saw: handles given out and finished, tasks run inline, bad calls.
    int handles, finished, inline_runs, bad, elsewhere; // (elsewhere: ranges run on the pool's threads)
} user_pool;

// Takes the next range under the lock; false when the task has none left.
static bool take_range(user_pool *u, int *start, int *end)
{
    if (!u->in_flight || u->next >= u->count) {
        return false;
    }
    *start = u->next;
    *end = u->next + u->range < u->count ? u->next + u->range : u->count;
    u->next = *end;
    return true;
}

static void run_range(user_pool *u, int start, int end, int worker)
{
    sinew_task_fn *task = u->task;
    void *context = u->task_context;
    pthread_mutex_unlock(&u->lock);
    task(start, end, worker, context);
    pthread_mutex_lock(&u->lock);
    u->elsewhere += worker > 0;
    if (--u->running == 0) {
        pthread_cond_broadcast(&u->done);
    }
}

typedef struct user_thread {
    user_pool *pool;
    int worker;
} user_thread;

static void *user_thread_main(void *arg)
{
    const user_thread *t = arg;
    user_pool *u = t->pool;
    pthread_mutex_lock(&u->lock);
    while (!u->stop) {
        int start, end;
        if (take_range(u, &start, &end)) {
            run_range(u, start, end, t->worker);
        } else {
            pthread_cond_wait(&u->work, &u->lock);
        }
    }
    pthread_mutex_unlock(&u->lock);
    return NULL;
}

static void *user_enqueue(sinew_task_fn *task, int count, int min_range, void *task_context, void *user_context)
{
    user_pool *u = user_context;
    pthread_mutex_lock(&u->lock);
    u->bad += u->in_flight || count <= 0 || min_range <= 0;
    const int workers = u->thread_count + 1;
    int range = count / (3 * workers);
    range = range > min_range ? range : min_range;
    if (range >= count || (u->handles + u->inline_runs) % 7 == 6) { // run it here
        u->inline_runs += 1;
        pthread_mutex_unlock(&u->lock);
        task(0, count, 0, task_context);
        return NULL;
    }
    u->task = task;
    u->task_context = task_context;
    u->count = count;
    u->range = range;
    u->next = 0;
    u->running = (count + range - 1) / range;
    u->in_flight = true;
    u->handles += 1;
    pthread_cond_broadcast(&u->work);
    pthread_mutex_unlock(&u->lock);
    return u;
}

static void user_finish(void *user_task, void *user_context)
{
    user_pool *u = user_context;
    pthread_mutex_lock(&u->lock);
    u->bad += user_task != u || !u->in_flight;
    int start, end;
    while (take_range(u, &start, &end)) {
        run_range(u, start, end, 0);
    }
    while (u->running > 0) {
        pthread_cond_wait(&u->done, &u->lock);
    }
    u->in_flight = false;
    u->finished += 1;
    pthread_mutex_unlock(&u->lock);
}

static void user_pool_start(user_pool *u, user_thread *args, int threads)
{
    memset(u, 0, sizeof *u);
    assert_int_equal(pthread_mutex_init(&u->lock, NULL), 0);
    assert_int_equal(pthread_cond_init(&u->work, NULL), 0);
    assert_int_equal(pthread_cond_init(&u->done, NULL), 0);
    u->thread_count = threads;
    for (int k = 0; k < threads; ++k) {
        args[k] = (user_thread){u, k + 1};
        assert_int_equal(pthread_create(&u->threads[k], NULL, user_thread_main, &args[k]), 0);
    }
}

static void user_pool_stop(user_pool *u)
{
    pthread_mutex_lock(&u->lock);
    u->stop = true;
    pthread_cond_broadcast(&u->work);
    pthread_mutex_unlock(&u->lock);
    for (int k = 0; k < u->thread_count; ++k) {
        assert_int_equal(pthread_join(u->threads[k], NULL), 0);
    }
    pthread_cond_destroy(&u->done);
    pthread_cond_destroy(&u->work);
    pthread_mutex_destroy(&u->lock);
}

// The scene of any_worker_count_gives_the_same_state (a pile and a cloth over it) in both modes,
// stepped through a task system of the user's own with 1 and 3 threads besides the stepping one:
// the state of the built-in pool's one worker, every handle finished once, and some tasks run
// on the user's threads.
static void a_task_system_of_the_users_own_gives_the_same_state(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        const uint64_t one = run((sinew_solver_mode)mode, 1, false);
        for (int threads = 1; threads <= 3; threads += 2) {
            user_pool u;
            user_thread args[3];
            user_pool_start(&u, args, threads);
            sinew_world_def wd = sinew_default_world_def();
            wd.solver.mode = (sinew_solver_mode)mode;
            wd.workers = threads + 1;
            wd.enqueue_task = user_enqueue;
            wd.finish_task = user_finish;
            wd.task_context = &u;
            sinew_world *w = NULL;
            assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
            add_scene(w);
            step_world(w, 90);
            assert_true(hash_positions(w) == one);
            sinew_world_destroy(w);
            user_pool_stop(&u);
            assert_int_equal(u.bad, 0);
            assert_true(u.handles > 1000);
            assert_int_equal(u.finished, u.handles);
            assert_true(u.elsewhere > 0 && u.inline_runs > 0);
        }
    }
}

// With an argument "K/N" (1 <= K <= N), only the tests whose place in the list is K modulo N run:
// tests/run runs the threaded tests under ThreadSanitizer in two such parts at once.
int main(int argc, char **argv)
{
    // In an order in which every other test makes two parts of about the same time under
    // ThreadSanitizer (measured one by one on 2026-11-28: 68 and 68 s of the whole's 136).
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(any_worker_count_gives_the_same_state),
        cmocka_unit_test(jacobi_contacts_split_over_workers_give_the_same_state),
        cmocka_unit_test(several_worlds_step_at_once),
        cmocka_unit_test(tears_and_statistics_are_the_same_at_any_count),
        cmocka_unit_test(the_parallel_search_holds_what_one_thread_holds),
        cmocka_unit_test(clumped_piles_give_the_same_state_at_any_count),
        cmocka_unit_test(links_made_both_ways_give_the_same_state_at_any_count),
        cmocka_unit_test(bands_that_split_their_contacts_give_the_same_state),
        cmocka_unit_test(immovable_balls_and_two_tiles_give_the_same_state),
        cmocka_unit_test(short_spans_are_swept_in_one_pass),
        cmocka_unit_test(loads_and_clones_keep_the_state_at_any_count),
        cmocka_unit_test(held_parts_are_added_in_contact_order),
        cmocka_unit_test(a_crowd_found_at_once_gives_the_same_state),
        cmocka_unit_test(span_marks_come_with_workers_and_distances),
        cmocka_unit_test(a_cloth_that_collides_with_nothing_spreads_over_workers),
        cmocka_unit_test(a_job_beside_one_thread_work_runs_every_item_once),
        cmocka_unit_test(bands_whose_arrays_cannot_grow_go_on_on_one_thread),
        cmocka_unit_test(bad_thread_settings_are_refused),
        cmocka_unit_test(the_profile_adds_up_and_profiling_changes_nothing),
        cmocka_unit_test(the_hand_off_is_measured_with_the_pool),
        cmocka_unit_test(the_hand_off_scale_changes_nothing_but_the_splits),
        cmocka_unit_test(a_task_system_of_the_users_own_gives_the_same_state),
    };
    const int count = (int)(sizeof tests / sizeof tests[0]);
    int part = 1, parts = 1;
    if (argc > 1 && (sscanf(argv[1], "%d/%d", &part, &parts) != 2 || parts < 1 || part < 1 || part > parts)) {
        fprintf(stderr, "test_threads: the argument must be K/N with 1 <= K <= N, not %s\n", argv[1]);
        return 2;
    }
    struct CMUnitTest chosen[sizeof tests / sizeof tests[0]];
    int n = 0;
    for (int k = 0; k < count; ++k) {
        if (k % parts == part - 1) {
            chosen[n++] = tests[k];
        }
    }
    return _cmocka_run_group_tests("test_threads", chosen, (size_t)n, NULL, NULL);
}
