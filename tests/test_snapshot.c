// Snapshots: a world saved after step k and stepped to k + n ends exactly as the one loaded from
// the buffer and stepped n (every builder scene, both modes, every Gauss-Seidel order, tearing, a
// driven IK arm, destroyed ids, clones); ids stay valid; bad buffers are refused with their status
// and leak nothing; a rollback loop matches a straight run.
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "snapshot.h"

#define DT (1.0f / 60.0f)

static void step(sinew_world *w, int n)
{
    for (int s = 0; s < n; ++s) {
        assert_int_equal(sinew_world_step(w, DT), SINEW_OK);
    }
}

// The world's snapshot, in a malloc'd buffer of *size bytes.
static uint8_t *save(const sinew_world *w, size_t *size)
{
    *size = sinew_world_save_size(w);
    uint8_t *buf = malloc(*size);
    assert_non_null(buf);
    size_t written = 0;
    assert_int_equal(sinew_world_save(w, buf, *size, &written), SINEW_OK);
    assert_true(written == *size);
    return buf;
}

static sinew_world *load(const uint8_t *buf, size_t size)
{
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_load(buf, size, NULL, &w), SINEW_OK);
    return w;
}

// Two worlds hold the same state: their snapshots are the same bytes (everything that decides the
// future), and their positions hash alike.
static void assert_same_world(const sinew_world *a, const sinew_world *b)
{
    size_t na, nb;
    uint8_t *sa = save(a, &na), *sb = save(b, &nb);
    assert_true(na == nb);
    assert_memory_equal(sa, sb, na);
    assert_true(hash_positions(a) == hash_positions(b));
    free(sa);
    free(sb);
}

// A world's two copies as it is now: loaded from its save, and its clone.
typedef struct copies {
    sinew_world *loaded, *clone;
} copies;

static copies copies_of(const sinew_world *w)
{
    size_t size;
    uint8_t *buf = save(w, &size);
    copies c = {load(buf, size), NULL};
    assert_int_equal(sinew_world_clone(w, &c.clone), SINEW_OK);
    free(buf);
    return c;
}

// Steps the world and its copies `n` steps: all three end alike.
static void step_alike(sinew_world *w, copies c, int n)
{
    step(w, n);
    step(c.loaded, n);
    step(c.clone, n);
    assert_same_world(w, c.loaded);
    assert_same_world(w, c.clone);
}

// Saves after `before` steps (and clones the world there), then steps the world, the loaded save
// and the clone `after` more: all three end alike. Destroys `w`.
static void check_same_future(sinew_world *w, int before, int after)
{
    step(w, before);
    const copies c = copies_of(w);
    step_alike(w, c, after);
    sinew_world_destroy(c.loaded);
    sinew_world_destroy(c.clone);
    sinew_world_destroy(w);
}

static sinew_world *world_with(sinew_solver_mode mode, sinew_gs_order order)
{
    sinew_world *w = make_world(mode);
    sinew_solver_def s = sinew_world_get_solver(w);
    s.order = order;
    s.shuffle_seed = 7u;
    assert_int_equal(sinew_world_set_solver(w, &s), SINEW_OK);
    return w;
}

typedef void (*build_fn)(sinew_world *w);

static void build_rope(sinew_world *w)
{
    sinew_rope_def d = sinew_default_rope_def();
    d.tethers = true;
    assert_int_equal(sinew_rope_create(w, &d, NULL), SINEW_OK);
}

static void build_tearing_cloth(sinew_world *w)
{
    sinew_cloth_def d = sinew_default_cloth_def();
    d.columns = 20;
    d.rows = 14;
    d.tear_ratio = 1.05f;
    assert_int_equal(sinew_cloth_create(w, &d, NULL), SINEW_OK);
    sinew_collider_def c = sinew_default_collider_def();
    assert_int_equal(sinew_circle_collider_create(w, &c, sinew_vec2_make(2.4f, -2.0f), 1.0f, NULL), SINEW_OK);
}

static void build_jelly(sinew_world *w)
{
    sinew_cloth_def d = sinew_default_jelly_def();
    assert_int_equal(sinew_cloth_create(w, &d, NULL), SINEW_OK);
    sinew_collider_def c = sinew_default_collider_def();
    assert_int_equal(sinew_world_bounds_create(w, &c, sinew_vec2_make(-10, -5), sinew_vec2_make(10, 10), NULL),
                     SINEW_OK);
}

static void build_soft_bodies(sinew_world *w)
{
    for (int k = 0; k < 3; ++k) {
        sinew_softbody_def d = sinew_default_softbody_def();
        d.center = sinew_vec2_make(-3.0f + 3.0f * k, 2.0f);
        d.inside = (sinew_softbody_inside)k;
        assert_int_equal(sinew_softbody_create(w, &d, NULL), SINEW_OK);
    }
    sinew_collider_def c = sinew_default_collider_def();
    const sinew_vec2 tri[3] = {{-8.0f, -2.0f}, {8.0f, -2.0f}, {0.0f, -1.0f}};
    assert_int_equal(sinew_polygon_collider_create(w, &c, tri, 3, 0.05f, NULL), SINEW_OK);
    assert_int_equal(sinew_world_bounds_create(w, &c, sinew_vec2_make(-10, -5), sinew_vec2_make(10, 10), NULL),
                     SINEW_OK);
}

static void build_pile(sinew_world *w)
{
    sinew_pile_def d = sinew_default_pile_def();
    d.count = 300;
    d.container = SINEW_PILE_SLOPES;
    assert_int_equal(sinew_pile_create(w, &d, NULL), SINEW_OK);
}

static const build_fn builders[] = {build_rope, build_tearing_cloth, build_jelly, build_soft_bodies, build_pile};
#define BUILDERS ((int)(sizeof builders / sizeof builders[0]))

static void every_builder_scene_has_the_same_future_after_a_load_in_every_mode_and_order(void **state)
{
    (void)state;
    const sinew_gs_order orders[] = {SINEW_GS_ORDER_CREATED, SINEW_GS_ORDER_ALTERNATING, SINEW_GS_ORDER_SHUFFLE};
    for (int b = 0; b < BUILDERS; ++b) {
        for (int o = 0; o < 3; ++o) {
            sinew_world *w = world_with(SINEW_SOLVER_GAUSS_SEIDEL, orders[o]);
            builders[b](w);
            check_same_future(w, 40, 60);
        }
        sinew_world *w = world_with(SINEW_SOLVER_JACOBI, SINEW_GS_ORDER_CREATED);
        builders[b](w);
        check_same_future(w, 40, 60);
    }
}

// The bottom row of a cloth, dragged down at 4 m/s by pins (as sinew-bench's cloth-tear), so that
// its links tear.
static void drag_bottom_row(sinew_world *w, const sinew_pin_id *pins, int columns)
{
    for (int c = 0; c < columns; ++c) {
        sinew_pin_def pd;
        assert_int_equal(sinew_pin_get(w, pins[c], &pd), SINEW_OK);
        assert_int_equal(sinew_pin_set_target(w, pins[c], sinew_vec2_make(pd.target.x, pd.target.y - 4.0f * DT)),
                         SINEW_OK);
    }
}

static void a_tearing_cloth_tears_the_same_links_after_a_load(void **state)
{
    (void)state;
    enum { COLUMNS = 16, ROWS = 10 };
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *w = make_world((sinew_solver_mode)mode);
        sinew_cloth_def d = sinew_default_cloth_def();
        d.columns = COLUMNS;
        d.rows = ROWS;
        d.tear_ratio = 1.5f;
        sinew_particle_id parts[COLUMNS * ROWS];
        sinew_cloth cloth = {0};
        cloth.particles = parts;
        assert_int_equal(sinew_cloth_create(w, &d, &cloth), SINEW_OK);
        sinew_pin_id pins[COLUMNS];
        for (int c = 0; c < COLUMNS; ++c) {
            sinew_pin_def pd = sinew_default_pin_def();
            pd.particle = parts[(ROWS - 1) * COLUMNS + c];
            pd.target = position_of(w, pd.particle);
            pd.stiffness = 0.5f;
            assert_int_equal(sinew_pin_create(w, &pd, &pins[c]), SINEW_OK);
        }
        for (int s = 0; s < 10; ++s) {
            drag_bottom_row(w, pins, COLUMNS);
            step(w, 1);
        }
        size_t size;
        uint8_t *buf = save(w, &size);
        sinew_world *loaded = load(buf, size);
        int torn = 0;
        for (int s = 0; s < 120; ++s) {
            drag_bottom_row(w, pins, COLUMNS);
            drag_bottom_row(loaded, pins, COLUMNS);
            step(w, 1);
            step(loaded, 1);
            int na = 0, nb = 0;
            const sinew_tear *ta = sinew_world_tears(w, &na), *tb = sinew_world_tears(loaded, &nb);
            assert_int_equal(na, nb);
            for (int k = 0; k < na; ++k) {
                assert_true(ta[k].link.index1 == tb[k].link.index1);
                assert_true(ta[k].link.generation == tb[k].link.generation);
            }
            torn += na;
        }
        assert_true(torn > 0); // the scene does tear
        assert_same_world(w, loaded);
        free(buf);
        sinew_world_destroy(loaded);
        sinew_world_destroy(w);
    }
}

// An arm driven by the IK solver every step, saved mid-drive: the loaded copy, driven the same
// way through the same ids, ends alike.
static void a_driven_ik_arm_has_the_same_future_after_a_load(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; ++mode) {
        sinew_world *worlds[2] = {make_world((sinew_solver_mode)mode), NULL};
        sinew_ik_limit lim[5];
        for (int k = 0; k < 5; ++k) {
            lim[k] = (sinew_ik_limit){-1.2f, 1.2f};
        }
        sinew_ik_arm_def d = sinew_default_ik_arm_def();
        d.bones = 5;
        d.limits = lim;
        arm_ids ids;
        make_arm_in(worlds[0], &d, &ids);
        const sinew_ik_arm arm = ids.arm;
        size_t size = 0;
        uint8_t *buf = NULL;
        for (int s = 0; s < 140; ++s) {
            if (s == 60) {
                buf = save(worlds[0], &size);
                worlds[1] = load(buf, size);
            }
            for (int k = 0; k < 2; ++k) {
                if (worlds[k] == NULL) {
                    continue;
                }
                const float t = 0.05f * (float)s;
                assert_int_equal(sinew_pin_set_target(worlds[k], arm.target_pin,
                                                      sinew_vec2_make(1.2f + 0.6f * cosf(t), 0.8f * sinf(t))),
                                 SINEW_OK);
                sinew_ik_def id = sinew_default_ik_def();
                assert_int_equal(sinew_ik_arm_drive(worlds[k], &arm, &id, NULL), SINEW_OK);
                step(worlds[k], 1);
            }
        }
        assert_same_world(worlds[0], worlds[1]);
        free(buf);
        sinew_world_destroy(worlds[0]);
        sinew_world_destroy(worlds[1]);
    }
}

// Ids survive a load: live ones stay valid and name the same things, destroyed ones stay
// refused, and the next ids issued are the same in both worlds.
static void ids_stay_valid_and_destroyed_ids_stay_refused_after_a_load(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_particle_id p[12];
    for (int k = 0; k < 12; ++k) {
        p[k] = make_particle(w, 0.3f * (float)k, 1.0f, 1.0f);
    }
    sinew_distance_id d[11];
    for (int k = 0; k < 11; ++k) {
        d[k] = make_link(w, p[k], p[k + 1]);
    }
    sinew_pin_def pd = sinew_default_pin_def();
    pd.particle = p[0];
    pd.target = position_of(w, p[0]);
    sinew_pin_id pin;
    assert_int_equal(sinew_pin_create(w, &pd, &pin), SINEW_OK);
    assert_int_equal(sinew_particle_destroy(w, p[3]), SINEW_OK); // takes d[2] and d[3] with it
    assert_int_equal(sinew_distance_destroy(w, d[7]), SINEW_OK);
    assert_int_equal(sinew_particle_destroy(w, p[9]), SINEW_OK);
    step(w, 20);
    size_t size;
    uint8_t *buf = save(w, &size);
    sinew_world *l = load(buf, size);
    for (int k = 0; k < 12; ++k) {
        assert_true(sinew_particle_is_valid(w, p[k]) == sinew_particle_is_valid(l, p[k]));
        if (sinew_particle_is_valid(w, p[k])) {
            assert_true(sinew_particle_index(w, p[k]) == sinew_particle_index(l, p[k]));
        }
    }
    for (int k = 0; k < 11; ++k) {
        assert_true(sinew_distance_is_valid(w, d[k]) == sinew_distance_is_valid(l, d[k]));
    }
    assert_false(sinew_particle_is_valid(l, p[3]));
    assert_false(sinew_distance_is_valid(l, d[7]));
    assert_true(sinew_pin_is_valid(l, pin));
    // The next ids come from the same free slots with the same generations.
    const sinew_particle_id na = make_particle(w, 5.0f, 5.0f, 1.0f), nb = make_particle(l, 5.0f, 5.0f, 1.0f);
    assert_true(na.index1 == nb.index1 && na.generation == nb.generation);
    step(w, 30);
    step(l, 30);
    assert_same_world(w, l);
    free(buf);
    sinew_world_destroy(l);
    sinew_world_destroy(w);
}

// ---- refusals ---------------------------------------------------------------------------------

static sinew_world *small_world(void)
{
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    build_soft_bodies(w);
    build_rope(w);
    step(w, 5);
    return w;
}

// Loads with a counting allocator: the status, and nothing left allocated on failure.
static sinew_status load_counted(const uint8_t *buf, size_t size)
{
    counting_allocator c;
    sinew_world_def def = sinew_default_world_def();
    def.allocator = counting_allocator_make(&c);
    sinew_world *w = NULL;
    const sinew_status s = sinew_world_load(buf, size, &def, &w);
    if (s == SINEW_OK) {
        assert_non_null(w);
        sinew_world_destroy(w);
    } else {
        assert_null(w);
    }
    assert_true(c.live_bytes == 0u);
    return s;
}

// Re-seals a buffer after an edit of its payload (bytes from 40 on), as a forger would.
static void reseal(uint8_t *buf, size_t size)
{
    const uint64_t h = sinew__snapshot_checksum(buf + 40, size - 40);
    memcpy(buf + 32, &h, 8);
}

static void truncated_buffers_are_refused_and_leak_nothing(void **state)
{
    (void)state;
    sinew_world *w = small_world();
    size_t size;
    uint8_t *buf = save(w, &size);
    for (size_t cut = 0; cut < size; cut += 1 + cut / 8) {
        const sinew_status s = load_counted(buf, cut);
        assert_true(s == SINEW_ERR_SNAPSHOT_TRUNCATED || (cut < 8 && s == SINEW_ERR_SNAPSHOT_TRUNCATED));
    }
    assert_int_equal(load_counted(buf, size), SINEW_OK);
    free(buf);
    sinew_world_destroy(w);
}

// An enqueue callback for a def that lacks its finish (never called: the def is refused).
static void *half_enqueue(sinew_task_fn *task, int count, int min_range, void *task_context, void *user_context)
{
    (void)min_range;
    (void)user_context;
    task(0, count, 0, task_context);
    return NULL;
}

static void corrupted_foreign_and_newer_buffers_are_refused_with_their_status(void **state)
{
    (void)state;
    sinew_world *w = small_world();
    size_t size;
    uint8_t *buf = save(w, &size);
    uint8_t *bad = malloc(size + 16);
    assert_non_null(bad);
    // Any flipped payload bit: the checksum.
    for (size_t at = 40; at < size; at += 1 + at / 16) {
        memcpy(bad, buf, size);
        bad[at] ^= 0x10u;
        assert_int_equal(load_counted(bad, size), SINEW_ERR_SNAPSHOT_CORRUPT);
    }
    // Trailing bytes.
    memcpy(bad, buf, size);
    assert_int_equal(load_counted(bad, size + 16), SINEW_ERR_SNAPSHOT_CORRUPT);
    // Not a snapshot at all, and another byte order.
    memcpy(bad, buf, size);
    bad[0] = 'X';
    assert_int_equal(load_counted(bad, size), SINEW_ERR_SNAPSHOT_FOREIGN);
    memcpy(bad, buf, size);
    const uint32_t swapped = 0x04030201u;
    memcpy(bad + 12, &swapped, 4);
    assert_int_equal(load_counted(bad, size), SINEW_ERR_SNAPSHOT_FOREIGN);
    // A later format version.
    memcpy(bad, buf, size);
    uint32_t version;
    memcpy(&version, bad + 8, 4);
    version += 1u;
    memcpy(bad + 8, &version, 4);
    assert_int_equal(load_counted(bad, size), SINEW_ERR_SNAPSHOT_VERSION);
    const char *why = NULL;
    assert_int_equal(sinew_snapshot_check(bad, size, &why), SINEW_ERR_SNAPSHOT_VERSION);
    assert_true(why != NULL && strstr(why, "newer") != NULL);
    // Random bytes.
    uint64_t rng = 3u;
    for (size_t k = 0; k < size; ++k) {
        bad[k] = (uint8_t)next_random(&rng);
    }
    assert_int_equal(load_counted(bad, size), SINEW_ERR_SNAPSHOT_FOREIGN);
    // Shorter than the header: foreign unless it begins as a snapshot does (then truncated).
    for (size_t cut = 1; cut < 24; cut += 5) {
        assert_int_equal(load_counted(bad, cut), SINEW_ERR_SNAPSHOT_FOREIGN);
        assert_int_equal(load_counted(buf, cut), SINEW_ERR_SNAPSHOT_TRUNCATED);
    }
    // No buffer, no out, or a def whose allocator or task system is half given: refused before
    // reading.
    sinew_world *out = NULL;
    assert_int_equal(sinew_world_load(NULL, size, NULL, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_load(buf, size, NULL, NULL), SINEW_ERR_NULL_ARGUMENT);
    sinew_world_def half = sinew_default_world_def();
    counting_allocator c;
    half.allocator = counting_allocator_make(&c);
    half.allocator.free = NULL;
    assert_int_equal(sinew_world_load(buf, size, &half, &out), SINEW_ERR_NULL_ARGUMENT);
    half = sinew_default_world_def();
    half.finish_task = NULL;
    half.enqueue_task = half_enqueue;
    assert_int_equal(sinew_world_load(buf, size, &half, &out), SINEW_ERR_NULL_ARGUMENT);
    assert_null(out);
    assert_int_equal(sinew_snapshot_check(NULL, size, &why), SINEW_ERR_NULL_ARGUMENT);
    free(bad);
    free(buf);
    sinew_world_destroy(w);
}

// A forged buffer with a valid checksum but values no world holds (a NaN position, a link to a
// particle that is not there, a solver setting out of range) is refused as invalid.
static void forged_values_are_refused_as_invalid(void **state)
{
    (void)state;
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    const sinew_particle_id a = make_particle(w, 1.25f, 2.5f, 1.0f), b = make_particle(w, 1.75f, 2.5f, 1.0f);
    make_link(w, a, b);
    size_t size;
    uint8_t *buf = save(w, &size);
    uint8_t *bad = malloc(size);
    assert_non_null(bad);
    int forged = 0;
    // Every 4-byte word of the payload set to a NaN, then to a huge index: each either still loads
    // (a word no check reads as a float, say a generation) or is refused as invalid or truncated
    // (a count that now claims more than is there); none crashes or leaks.
    const uint32_t words[2] = {0x7fc00000u, 0x7ffffff0u};
    for (int v = 0; v < 2; ++v) {
        for (size_t at = 40; at + 4 <= size; at += 4) {
            memcpy(bad, buf, size);
            memcpy(bad + at, &words[v], 4);
            reseal(bad, size);
            const sinew_status s = load_counted(bad, size);
            assert_true(s == SINEW_OK || s == SINEW_ERR_SNAPSHOT_INVALID || s == SINEW_ERR_SNAPSHOT_TRUNCATED ||
                        s == SINEW_ERR_OUT_OF_MEMORY || s == SINEW_ERR_CAPACITY);
            forged += s == SINEW_ERR_SNAPSHOT_INVALID;
        }
    }
    assert_true(forged > 10);
    free(bad);
    free(buf);
    sinew_world_destroy(w);
}

static void save_into_a_small_buffer_is_refused(void **state)
{
    (void)state;
    sinew_world *w = small_world();
    const size_t need = sinew_world_save_size(w);
    uint8_t *buf = malloc(need);
    assert_non_null(buf);
    size_t written = 12345u;
    assert_int_equal(sinew_world_save(w, buf, need - 1, &written), SINEW_ERR_BUFFER_TOO_SMALL);
    assert_true(written == 12345u);
    assert_int_equal(sinew_world_save(NULL, buf, need, &written), SINEW_ERR_NULL_ARGUMENT);
    assert_int_equal(sinew_world_save(w, NULL, need, &written), SINEW_ERR_NULL_ARGUMENT);
    assert_true(sinew_world_save_size(NULL) == 0u);
    free(buf);
    sinew_world_destroy(w);
}

// A force applied before the save is part of the state: the loaded copy and the clone push with it
// for one step, as the world does, and then no more.
static void a_force_applied_before_a_save_acts_once_in_the_copies(void **state)
{
    (void)state;
    sinew_world *w = world_with(SINEW_SOLVER_GAUSS_SEIDEL, SINEW_GS_ORDER_CREATED);
    build_pile(w);
    step(w, 30);
    const sinew_particle_id ball = sinew_particle_id_at(w, sinew_world_particles(w).count - 1);
    assert_int_equal(sinew_particle_apply_force(w, ball, sinew_vec2_make(400.0f, 900.0f)), SINEW_OK);
    const copies c = copies_of(w);
    sinew_vec2 before, after;
    assert_int_equal(sinew_particle_get_position(w, ball, &before), SINEW_OK);
    step_alike(w, c, 1);
    assert_int_equal(sinew_particle_get_position(w, ball, &after), SINEW_OK);
    assert_true(after.y - before.y > 0.05f); // the push (15 m/s^2 up over 1/60 s) acted
    step_alike(w, c, 40); // and is spent: the force is not applied again
    sinew_world_destroy(c.loaded);
    sinew_world_destroy(c.clone);
    sinew_world_destroy(w);
}

// Two worlds with the same pile, stepped alike for 20 steps.
static void twin_piles(sinew_world **a, sinew_world **b)
{
    *a = world_with(SINEW_SOLVER_GAUSS_SEIDEL, SINEW_GS_ORDER_CREATED);
    *b = world_with(SINEW_SOLVER_GAUSS_SEIDEL, SINEW_GS_ORDER_CREATED);
    build_pile(*a);
    build_pile(*b);
    step(*a, 20);
    step(*b, 20);
}

// The particles' optional arrays (forces, user data) are saved as zeros when absent: a world that
// has them, all zero, saves the same bytes as one that never had them, and its copies leave them
// out (as many bytes as the copies of the other). A copy of a world whose particles hold user data
// and a force keeps both.
static void absent_forces_and_user_data_save_as_zeros_and_load_absent(void **state)
{
    (void)state;
    int tag = 0;
    sinew_world *bare, *zeroed;
    twin_piles(&bare, &zeroed);
    const sinew_particle_id ball = sinew_particle_id_at(zeroed, 5);
    assert_int_equal(sinew_particle_set_user_data(zeroed, ball, &tag), SINEW_OK);
    assert_int_equal(sinew_particle_set_user_data(zeroed, ball, NULL), SINEW_OK);
    assert_int_equal(sinew_particle_apply_force(zeroed, ball, sinew_vec2_make(0.0f, 0.0f)), SINEW_OK);
    assert_true(sinew_world_byte_count(zeroed) > sinew_world_byte_count(bare));
    assert_same_world(bare, zeroed);
    const copies cb = copies_of(bare), cz = copies_of(zeroed);
    const size_t loaded_bytes = sinew_world_byte_count(cb.loaded);
    assert_true(sinew_world_byte_count(cz.loaded) == loaded_bytes);
    assert_true(sinew_world_byte_count(cz.clone) == sinew_world_byte_count(cb.clone));
    step_alike(zeroed, cz, 10);
    step_alike(bare, cb, 10);
    assert_same_world(bare, cz.loaded);

    assert_int_equal(sinew_particle_set_user_data(zeroed, ball, &tag), SINEW_OK);
    assert_int_equal(sinew_particle_apply_force(zeroed, ball, sinew_vec2_make(0.0f, 900.0f)), SINEW_OK);
    const copies used = copies_of(zeroed);
    const size_t count = (size_t)sinew_world_particles(zeroed).count;
    assert_true(sinew_world_byte_count(used.loaded) >= loaded_bytes + (2u * sizeof(float) + sizeof(void *)) * count);
    assert_ptr_equal(sinew_particle_user_data(used.loaded, ball), &tag);
    assert_ptr_equal(sinew_particle_user_data(used.clone, ball), &tag);
    assert_null(sinew_particle_user_data(used.loaded, sinew_particle_id_at(used.loaded, 6)));
    step_alike(zeroed, used, 1); // (the force acts in the copies too)
    sinew_world *copies_made[] = {cb.loaded, cb.clone, cz.loaded, cz.clone, used.loaded, used.clone, bare, zeroed};
    for (int k = 0; k < (int)(sizeof copies_made / sizeof copies_made[0]); ++k) {
        sinew_world_destroy(copies_made[k]);
    }
}

// The filters and frictions are saved as the arrays would be when every particle holds one value
// and there are none: a world that has the arrays, all alike, saves the same bytes as one that
// never had them, and its copies leave them out. A copy of a world whose particles differ keeps
// each particle's own.
static void one_filter_and_friction_save_as_arrays_and_load_without_them(void **state)
{
    (void)state;
    sinew_world *bare, *alike;
    twin_piles(&bare, &alike);
    const sinew_particle_id ball = sinew_particle_id_at(alike, 5);
    sinew_particle_def was;
    assert_int_equal(sinew_particle_get(alike, ball, &was), SINEW_OK);
    assert_int_equal(sinew_particle_set_filter(alike, ball, 2u, 3u), SINEW_OK);
    assert_int_equal(sinew_particle_set_friction(alike, ball, 0.05f, 0.04f), SINEW_OK);
    assert_int_equal(sinew_particle_set_filter(alike, ball, was.group, was.mask), SINEW_OK);
    assert_int_equal(sinew_particle_set_friction(alike, ball, was.friction, was.kinetic_friction), SINEW_OK);
    assert_true(sinew_world_byte_count(alike) > sinew_world_byte_count(bare));
    assert_same_world(bare, alike);
    const copies cb = copies_of(bare), ca = copies_of(alike);
    assert_true(sinew_world_byte_count(ca.loaded) == sinew_world_byte_count(cb.loaded));
    assert_true(sinew_world_byte_count(ca.clone) == sinew_world_byte_count(cb.clone));
    step_alike(alike, ca, 10);
    step_alike(bare, cb, 10);
    assert_same_world(bare, ca.loaded);

    assert_int_equal(sinew_particle_set_filter(alike, ball, 2u, 3u), SINEW_OK);
    assert_int_equal(sinew_particle_set_friction(alike, ball, 0.05f, 0.04f), SINEW_OK);
    const copies differ = copies_of(alike), plain = copies_of(bare);
    const size_t count = (size_t)sinew_world_particles(alike).count;
    assert_true(sinew_world_byte_count(differ.loaded) >=
                sinew_world_byte_count(plain.loaded) + (2u * sizeof(uint32_t) + 2u * sizeof(float)) * count);
    sinew_world *made[] = {differ.loaded, differ.clone};
    for (int k = 0; k < 2; ++k) {
        sinew_particle_def got;
        assert_int_equal(sinew_particle_get(made[k], ball, &got), SINEW_OK);
        assert_true(got.group == 2u && got.mask == 3u);
        assert_float_equal(got.friction, 0.05f, 1e-6f);
        assert_int_equal(sinew_particle_get(made[k], sinew_particle_id_at(made[k], 6), &got), SINEW_OK);
        assert_true(got.group == was.group && got.mask == was.mask);
        assert_float_equal(got.friction, was.friction, 1e-6f);
    }
    step_alike(alike, differ, 10);
    sinew_world *copies_made[] = {cb.loaded, cb.clone,     ca.loaded,   ca.clone, differ.loaded,
                                  differ.clone, plain.loaded, plain.clone, bare,     alike};
    for (int k = 0; k < (int)(sizeof copies_made / sizeof copies_made[0]); ++k) {
        sinew_world_destroy(copies_made[k]);
    }
}

// ---- rollback ---------------------------------------------------------------------------------

// A player's input at frame f: where a kinematic pin holds the end of a rope, and a push on a
// ball. `late` is the input that arrives late, from frame 20 on, in place of the prediction.
static void apply_input(sinew_world *w, sinew_pin_id hand, sinew_particle_id ball, int frame, bool late)
{
    const float x = late && frame >= 20 ? -2.0f + 0.05f * (float)frame : 0.02f * (float)frame;
    assert_int_equal(sinew_pin_set_target(w, hand, sinew_vec2_make(x, 0.0f)), SINEW_OK);
    const float push = late && frame >= 20 ? -30.0f : 30.0f;
    assert_int_equal(sinew_particle_apply_force(w, ball, sinew_vec2_make(push, 0.0f)), SINEW_OK);
}

static sinew_world *rollback_scene(sinew_pin_id *hand, sinew_particle_id *ball)
{
    sinew_world *w = make_world(SINEW_SOLVER_GAUSS_SEIDEL);
    sinew_rope_def d = sinew_default_rope_def();
    d.links = 20;
    d.end = sinew_vec2_make(4.0f, 0.0f);
    sinew_particle_id parts[21];
    sinew_rope rope = {0};
    rope.particles = parts;
    assert_int_equal(sinew_rope_create(w, &d, &rope), SINEW_OK);
    *hand = rope.start_pin;
    build_pile(w);
    *ball = sinew_particle_id_at(w, sinew_world_particles(w).count - 1);
    return w;
}

// The loop of rollback netcode: save every frame into a ring of 9; at frame 28 the input of frame
// 20 arrives and differs from the prediction, so go back 8 frames and step them again with it.
// The result is the straight run that knew the input all along.
static void a_rollback_loop_matches_a_straight_run(void **state)
{
    (void)state;
    sinew_pin_id hand;
    sinew_particle_id ball;
    sinew_world *straight = rollback_scene(&hand, &ball);
    for (int f = 0; f < 60; ++f) {
        apply_input(straight, hand, ball, f, true);
        step(straight, 1);
    }
    sinew_world *w = rollback_scene(&hand, &ball);
    enum { RING = 9 };
    uint8_t *ring[RING] = {NULL};
    size_t ring_size[RING] = {0};
    bool corrected = false;
    for (int f = 0; f < 60; ++f) {
        if (f == 28 && !corrected) {
            const int back = f - 8;
            sinew_world *old = load(ring[back % RING], ring_size[back % RING]);
            sinew_world_destroy(w);
            w = old;
            for (int g = back; g < f; ++g) {
                apply_input(w, hand, ball, g, true);
                step(w, 1);
                free(ring[(g + 1) % RING]);
                ring[(g + 1) % RING] = save(w, &ring_size[(g + 1) % RING]);
            }
            corrected = true;
        }
        free(ring[f % RING]);
        ring[f % RING] = save(w, &ring_size[f % RING]); // the state at the start of frame f
        apply_input(w, hand, ball, f, corrected);
        step(w, 1);
    }
    assert_same_world(straight, w);
    for (int k = 0; k < RING; ++k) {
        free(ring[k]);
    }
    sinew_world_destroy(w);
    sinew_world_destroy(straight);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_builder_scene_has_the_same_future_after_a_load_in_every_mode_and_order),
        cmocka_unit_test(a_tearing_cloth_tears_the_same_links_after_a_load),
        cmocka_unit_test(a_driven_ik_arm_has_the_same_future_after_a_load),
        cmocka_unit_test(ids_stay_valid_and_destroyed_ids_stay_refused_after_a_load),
        cmocka_unit_test(truncated_buffers_are_refused_and_leak_nothing),
        cmocka_unit_test(corrupted_foreign_and_newer_buffers_are_refused_with_their_status),
        cmocka_unit_test(forged_values_are_refused_as_invalid),
        cmocka_unit_test(save_into_a_small_buffer_is_refused),
        cmocka_unit_test(a_force_applied_before_a_save_acts_once_in_the_copies),
        cmocka_unit_test(absent_forces_and_user_data_save_as_zeros_and_load_absent),
        cmocka_unit_test(one_filter_and_friction_save_as_arrays_and_load_without_them),
        cmocka_unit_test(a_rollback_loop_matches_a_straight_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
