// sinew: a 2D Verlet particle and constraint physics engine.
//
// ## Step by step
//   1. sinew_world_def def = sinew_default_world_def();        // gravity (0, -10), 4 x 8, Gauss-Seidel
//      sinew_world *world; sinew_world_create(&def, &world);
//   2. Make particles: sinew_particle_def p = sinew_default_particle_def();
//      p.position = sinew_vec2_make(0, 5); sinew_particle_create(world, &p, &id);
//      Weight is inverse mass; 0 makes a particle immovable.
//   3. Join them: sinew_distance_def d = sinew_default_distance_def(); d.a = id0; d.b = id1;
//      sinew_distance_create(world, &d, &link). Pin one: sinew_pin_create. Or use a scene
//      builder (sinew_rope_create, sinew_cloth_create) that does all of it.
//   4. Every frame: sinew_world_step(world, 1.0f / 60.0f); then draw from
//      sinew_world_particles(world), a read-only structure-of-arrays view.
//   4b. Collisions: particles with SINEW_PARTICLE_COLLIDES (the default) collide as circles;
//      add static colliders with sinew_plane_collider_create, sinew_box_collider_create, ... or
//      sinew_world_bounds_create; sinew_pile_create drops a pile of balls into a box.
//   5. Tune: sinew_world_set_solver switches Gauss-Seidel / Jacobi, iterations, sub-steps,
//      omega and order between steps; sinew_world_stats reports the constraint error per kind,
//      sinew_world_iteration_errors the error after every iteration when recording is on,
//      sinew_world_profile the milliseconds each stage of the last step took (when the world
//      profiles: sinew_world_set_profiling).
//   6. sinew_world_destroy(world).
//
// Inverse kinematics needs no world: ik.h solves 2D chains, ik3.h 3D chains of quaternion-rotated
// links with polygonal cone limits (vec3.h has its vector and quaternion helpers).
//
// ## Error reporting
// Every call that can fail returns a sinew_status. Anything but SINEW_OK means nothing changed.
// sinew_status_string(s) says the reason in words, sinew_status_name(s) gives the enum's name, and
// sinew_world_last_error(world) says which argument broke which rule in the most recent failed
// call (a successful call leaves it as it was). Bad input (NaN, negative weight, stale id, ...) is
// refused, never stored.
//
// ## Ids out
// Every call that makes something in a world (particles, constraints, colliders, builders) writes
// its id or ids through `out` when `out` is not NULL; NULL means the caller does not want them.
//
// ## Memory
// The world allocates through the allocator in its def. Arrays grow geometrically when particles
// and constraints are created; sinew_world_step allocates nothing once capacities are reached.
//
// ## Threads
// A world is used from one thread at a time. Different worlds are independent.
#pragma once

#include "base.h"
#include "vec2.h"
#include "world.h"
#include "particle.h"
#include "constraints.h"
#include "collide.h"
#include "scene.h"
#include "ik.h"
#include "vec3.h"
#include "ik3.h"
#include "snapshot.h"

/// Library version.
#define SINEW_VERSION_MAJOR 0
#define SINEW_VERSION_MINOR 1
#define SINEW_VERSION_PATCH 0
