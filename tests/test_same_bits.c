// Same bits: small scenes of every kind, in both solver modes and on both kernel paths (AVX2 and
// portable), end in states whose hashes are pinned here. A refactor must not move them; a change
// meant to change the physics updates them, and says so in its commit. The hashes were recorded
// with the engine before the kind-table redesign (issue 17) and checked unchanged after it.
//
// To print the current hashes: SINEW_PRINT_HASHES=1 build/tests/test_same_bits
#include <stdio.h>
#include <stdlib.h>

#include "support.h"
#include "world_internal.h"

// FNV-1a over the bytes of x, y, px, py of every particle.
static uint64_t state_hash(const sinew_world *w)
{
    sinew_particle_view v = sinew_world_particles(w);
    uint64_t h = 1469598103934665603ull;
    const float *a[4] = {v.x, v.y, v.px, v.py};
    for (int k = 0; k < 4; ++k) {
        const unsigned char *b = (const unsigned char *)a[k];
        for (size_t i = 0; i < 4u * (size_t)v.count; ++i) {
            h = (h ^ b[i]) * 1099511628211ull;
        }
    }
    return h;
}

// Threads for the worlds the scenes make (every_worker_count_gives_the_pinned_state): the count,
// and whether a task system of the test's own runs the tasks.
static int scene_workers = 1;
static bool scene_user_tasks = false;

// A task system that runs a task inline, in uneven ranges of at least min_range, last range
// first: any split and order of the items must give the same state.
static int user_tasks_run = 0;
static void *reversed_ranges(sinew_task_fn *task, int count, int min_range, void *task_context, void *user_context)
{
    (void)user_context;
    int bounds[64], n = 0;
    for (int start = 0; start < count && n < 63;) {
        bounds[n++] = start;
        start += min_range + (n % 3) * min_range / 2;
    }
    bounds[n] = count;
    for (int m = n - 1; m >= 0; --m) {
        task(bounds[m], bounds[m + 1] < count ? bounds[m + 1] : count, m % 4, task_context);
    }
    user_tasks_run += 1;
    return NULL;
}

static void finish_nothing(void *user_task, void *user_context)
{
    (void)user_task;
    (void)user_context;
}

static sinew_world *world_for(sinew_solver_mode mode, bool simd)
{
    sinew_world_def wd = sinew_default_world_def();
    wd.solver.mode = mode;
    wd.workers = scene_workers;
    if (scene_user_tasks) {
        wd.enqueue_task = reversed_ranges;
        wd.finish_task = finish_nothing;
    }
    sinew_world *w = NULL;
    assert_int_equal(sinew_world_create(&wd, &w), SINEW_OK);
    w->avx2 = w->avx2 && simd;
    w->tasks.grain = scene_workers > 1 ? 1000 : 1; // these scenes are small: hand out ranges of one item
    return w;
}

// A pile of balls in a box: contacts, collider contacts, the grid and the response.
static uint64_t pile(sinew_solver_mode mode, bool simd)
{
    sinew_world *w = world_for(mode, simd);
    sinew_pile_def pd = sinew_default_pile_def();
    pd.count = 600;
    assert_int_equal(sinew_pile_create(w, &pd, NULL), SINEW_OK);
    step_world(w, 150);
    const uint64_t h = state_hash(w);
    sinew_world_destroy(w);
    return h;
}

// A cloth pinned at its top corners over a circle: distances, pins, a curved collider.
static uint64_t cloth(sinew_solver_mode mode, bool simd)
{
    sinew_world *w = world_for(mode, simd);
    sinew_cloth_def cd = sinew_default_cloth_def();
    cd.columns = 24;
    cd.rows = 24;
    assert_int_equal(sinew_cloth_create(w, &cd, NULL), SINEW_OK);
    sinew_collider_def col = sinew_default_collider_def();
    assert_int_equal(sinew_circle_collider_create(w, &col, sinew_vec2_make(1.0f, -1.5f), 0.7f, NULL), SINEW_OK);
    step_world(w, 150);
    const uint64_t h = state_hash(w);
    sinew_world_destroy(w);
    return h;
}

// An IK arm driven then released, two soft bodies (springs and pressure) in a box, and one of the
// arm's particles destroyed after the release: angles, areas, kinematic pins, particle removal.
static uint64_t arm_and_soft_bodies(sinew_solver_mode mode, bool simd)
{
    sinew_world *w = world_for(mode, simd);
    sinew_ik_limit lim[6];
    for (int k = 0; k < 6; ++k) {
        lim[k].min = -1.0f;
        lim[k].max = 1.0f;
    }
    sinew_ik_arm_def d = sinew_default_ik_arm_def();
    d.target_max_force = INFINITY; // the default before SINEW_IK_ARM_TARGET_MAX_FORCE, as hashed
    d.bones = 6;
    d.limits = lim;
    arm_ids ids;
    make_arm_in(w, &d, &ids);
    const sinew_ik_arm arm = ids.arm;
    const sinew_particle_id *parts = ids.particles;
    sinew_softbody_def sb = sinew_default_softbody_def();
    sb.center.x = 5.0f;
    sb.inside = SINEW_SOFTBODY_SPRINGS;
    assert_int_equal(sinew_softbody_create(w, &sb, NULL), SINEW_OK);
    sinew_softbody_def blob = sinew_default_softbody_def();
    blob.center.x = 8.0f;
    assert_int_equal(sinew_softbody_create(w, &blob, NULL), SINEW_OK);
    sinew_collider_def col = sinew_default_collider_def();
    assert_int_equal(sinew_world_bounds_create(w, &col, sinew_vec2_make(-20, -3), sinew_vec2_make(20, 20), NULL), SINEW_OK);
    for (int s = 0; s < 300; ++s) {
        assert_int_equal(sinew_pin_set_target(w, arm.target_pin, sinew_vec2_make(1.5f + 0.01f * s, 1.0f - 0.005f * s)),
                         SINEW_OK);
        if (s > 150 && s < 200) {
            sinew_ik_def id = sinew_default_ik_def();
            assert_int_equal(sinew_ik_arm_drive(w, &arm, &id, NULL), SINEW_OK);
        }
        if (s == 200) {
            assert_int_equal(sinew_ik_arm_release(w, &arm), SINEW_OK);
        }
        if (s == 250) {
            assert_int_equal(sinew_particle_destroy(w, parts[3]), SINEW_OK);
        }
        assert_int_equal(sinew_world_step(w, 1.0f / 60.0f), SINEW_OK);
    }
    const uint64_t h = state_hash(w);
    sinew_world_destroy(w);
    return h;
}

typedef uint64_t (*scene_fn)(sinew_solver_mode mode, bool simd);

typedef struct pinned {
    const char *name;
    scene_fn run;
    uint64_t gauss_seidel, jacobi;
} pinned;

static const pinned scenes[] = {
    {"pile", pile, 0x27e4a5e7560fb9e8ull, 0x761e593c281568d9ull},
    {"cloth", cloth, 0x907fffd59ada8f63ull, 0xe704b68ccd2ff4c3ull},
    // Gauss-Seidel re-pinned when links began to be regrouped by colour once too few of their
    // blocks are independent (sinew__distances_colour, issue 21): the destroyed particle's links
    // were swap-removed, and the soft bodies' links are now laid out colour by colour. Was
    // 0x2a7b9037fd21ac9full.
    {"arm and soft bodies", arm_and_soft_bodies, 0xe65c0dbf507c28e6ull, 0x0973fd7954019ad0ull},
};

static void check(const pinned *p)
{
    uint64_t portable[2], simd[2];
    for (int mode = 0; mode < 2; ++mode) {
        portable[mode] = p->run((sinew_solver_mode)mode, false);
        simd[mode] = p->run((sinew_solver_mode)mode, true);
        if (getenv("SINEW_PRINT_HASHES") != NULL) {
            printf("%s, %s: 0x%016llxull\n", p->name, mode == 0 ? "Gauss-Seidel" : "Jacobi",
                   (unsigned long long)simd[mode]);
        }
    }
    for (int mode = 0; mode < 2; ++mode) {
        // Both kernel paths run the same IEEE operations in the same order.
        assert_true(portable[mode] == simd[mode]);
#if defined(__x86_64__)
        // The pins were recorded on x86-64; elsewhere the C library's sinf and cosf may differ.
        assert_true(simd[mode] == (mode == 0 ? p->gauss_seidel : p->jacobi));
#endif
    }
}

// Threads: the same pinned states with 2, 3, 4 and 8 workers of the built-in pool, and with a task
// system that splits and orders the items its own way.
static void every_worker_count_gives_the_pinned_state(void **state)
{
    (void)state;
    const int counts[] = {2, 3, 4, 8, 4};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        scene_workers = counts[c];
        scene_user_tasks = c == 4;
        for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; ++k) {
            for (int mode = 0; mode < 2; ++mode) {
                const uint64_t h = scenes[k].run((sinew_solver_mode)mode, true);
#if defined(__x86_64__)
                if (h != (mode == 0 ? scenes[k].gauss_seidel : scenes[k].jacobi)) {
                    fail_msg("%s, %s, %d workers%s: 0x%016llx", scenes[k].name, mode == 0 ? "Gauss-Seidel" : "Jacobi",
                             counts[c], scene_user_tasks ? " (the test's task system)" : "", (unsigned long long)h);
                }
#else
                (void)h;
#endif
            }
        }
    }
    assert_true(user_tasks_run > 0); // the test's task system was handed tasks
    scene_workers = 1;
    scene_user_tasks = false;
}

static void a_pile_ends_with_its_pinned_state(void **state)
{
    (void)state;
    check(&scenes[0]);
}

static void a_cloth_ends_with_its_pinned_state(void **state)
{
    (void)state;
    check(&scenes[1]);
}

static void an_arm_and_soft_bodies_end_with_their_pinned_state(void **state)
{
    (void)state;
    check(&scenes[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pile_ends_with_its_pinned_state),
        cmocka_unit_test(a_cloth_ends_with_its_pinned_state),
        cmocka_unit_test(an_arm_and_soft_bodies_end_with_their_pinned_state),
        cmocka_unit_test(every_worker_count_gives_the_pinned_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
