// Shared by the scene builders (scene.c, softbody.c, pile.c). Never installed.
#pragma once

#include "world_internal.h"

// A build in progress: the particles made so far (into the caller's id array or a temporary
// one), so that a failure destroys them, and with them every constraint attached to them.
typedef struct sinew__build {
    sinew_world *world;
    sinew_particle_id *ids;
    sinew_particle_id *tmp;
    int capacity, made;
    sinew_status status;
    // What the world held when the build began: a failed build truncates back to it (everything a
    // builder makes is last in its store, and nothing else touches its particles).
    int particles_before;
    int kinds_before[SINEW_KIND_COUNT];
} sinew__build;

// Checks what the build makes against the world's max_particles and max_constraints, reserves
// room for its particles and distance constraints and sets up the id array (the caller's when not
// NULL). False (with b->status) on failure; a refusal for the limits changes nothing.
bool sinew__build_begin(sinew__build *b, sinew_world *world, const sinew_scene_counts *counts, sinew_particle_id *ids);

// Makes the next particle; pinned ones get weight 0 and a kinematic pin (written to *pin when
// not NULL). Returns its index in the build, or -1 once the build has failed.
int sinew__build_particle(sinew__build *b, const sinew_particle_def *def, bool pinned, sinew_pin_id *pin);

// A distance constraint between build particles a and b; null id once the build has failed.
sinew_distance_id sinew__build_link(sinew__build *b, int a, int c, const sinew_distance_def *proto);

// Finishes: on failure destroys what was made. Frees the temporary. Returns the status.
sinew_status sinew__build_end(sinew__build *b);

// What is wrong with the numbers every builder shares, or NULL; *status gets the error.
const char *sinew__material_problem(float weight, float radius, float stiffness, float compliance, sinew_status *status);
// Starts a builder's counts at zero: SINEW_OK and "" for a valid def; for a missing one
// (have_def false) NULL_ARGUMENT, else the builder's `problem` and `status`, as its create would
// refuse it. Returns true when the def is valid (the caller then fills the counts in).
bool sinew__counts_start(sinew_scene_counts *c, bool have_def, const char *problem, sinew_status status);
// True when the box (x0, y0)-(x1, y1), in double so that nothing overflows, lies within
// SINEW_MAX_COORDINATE: where a builder would put particles or colliders.
bool sinew__extent_ok(double x0, double y0, double x1, double y1);
