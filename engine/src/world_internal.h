// The world: the struct that assembles every module's state, and the solver's bookkeeping.
// Never installed. Files with SIMD kernels include simd.h as well.
#pragma once

#include "core.h"
#include "particles.h"
#include "links.h"
#include "kinds.h"
#include "contacts.h"
#include "tasks.h"

struct sinew_world {
    sinew_allocator allocator;
    size_t byte_count;
    const char *last_error;
    void *user_data;

    sinew_vec2 gravity;
    float damping;
    float contact_speed;    // m/s (+inf: unbounded); see overlap.c
    bool deep_watch;        // the next step bounds velocities (overlap.c); saved in snapshots
    sinew_solver_def solver;
    int max_particles, max_constraints;

    float h_prev;           // length of the last sub-step, for time-corrected Verlet
    uint64_t step_count;

    bool skip_linked_pairs;
    bool avx2; // the AVX2 kernels may run (the CPU has AVX2 and BMI2); tests clear it to compare the paths
    bool pack_all; // every item packs its motion records (tests set it, to compare with the marked items)
    sinew__tasks tasks; // threads: the stages hand their items to sinew__parallel_for

    sinew__particles particles;
    sinew__distances distances;
    sinew__pins pins;
    sinew__areas areas;
    sinew__angles angles;
    sinew__colliders colliders;
    sinew__contacts contacts;
    sinew__collider_contacts collider_contacts;
    sinew__grid grid;
    sinew__events events;
    int dropped_contacts;  // this step
    void *tears_block;     // torn links of the last step; room for every tearable link
    size_t tears_bytes;
    sinew_tear *tears;
    int tear_count, tear_capacity;

    sinew_step_stats stats;
    sinew_step_profile profile;
    sinew_profiling profiling;  // what the step times (sinew_world_set_profiling)
    sinew__job_times job_times; // this step's, for the profile

    bool record;
    void *history_block;
    size_t history_bytes;
    sinew_error_sample *history; // (SINEW_KIND_COUNT + 1) * substeps * (iterations + 1)
    int history_substeps, history_iterations;
    bool history_valid;
};

// solver.c
sinew_status sinew__history_reserve(sinew_world *world, int substeps, int iterations);
void sinew__history_free(sinew_world *world);
