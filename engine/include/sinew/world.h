// sinew: the world, its solver settings, stepping and statistics.
#pragma once

#include "base.h"
#include "vec2.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The world: particle store, constraint graph and solver. Opaque; create with sinew_world_create.
typedef struct sinew_world sinew_world;

/// The range every accepted number is held to, so that no later step can overflow (see
/// docs/overview.md, "Limits"). A position, pin target or collider coordinate, a length or a radius
/// larger in magnitude than SINEW_MAX_COORDINATE metres (base.h) is refused with
/// SINEW_ERR_OUT_OF_RANGE, and so is a speed above SINEW_MAX_SPEED m/s. A particle that a step would
/// still carry beyond SINEW_MAX_COORDINATE (a huge force, gravity or solver push) is put back where
/// its sub-step began, at rest, and counted in sinew_step_stats.reset_particles.
/// Largest accepted speed in m/s (particle velocities).
#define SINEW_MAX_SPEED 1e15f
/// sinew_world_step accepts dt in [SINEW_MIN_DT, SINEW_MAX_DT] seconds.
#define SINEW_MIN_DT 1e-6f
/// Largest accepted step, seconds.
#define SINEW_MAX_DT 10.0f

/// How the constraint graph is solved each iteration.
typedef enum sinew_solver_mode {
    /// Project constraints one after another; each sees the result of the previous one.
    SINEW_SOLVER_GAUSS_SEIDEL = 0,
    /// Every constraint reads the same positions; its correction, times omega / max(n_i, n_j)
    /// (n = constraints on a particle) at both ends, is summed per particle and applied at the end
    /// of the iteration. Order independent and momentum conserving.
    SINEW_SOLVER_JACOBI = 1,
} sinew_solver_mode;

/// The order in which Gauss-Seidel visits constraints (ignored by Jacobi).
typedef enum sinew_gs_order {
    SINEW_GS_ORDER_CREATED = 0,     ///< every iteration in creation order (removal swaps the last one in)
    SINEW_GS_ORDER_ALTERNATING = 1, ///< even iterations forward, odd iterations backward (symmetric)
    SINEW_GS_ORDER_SHUFFLE = 2,     ///< a seeded random permutation, drawn anew every step
} sinew_gs_order;

/// Constraint kinds, used to index per-kind statistics.
typedef enum sinew_kind {
    SINEW_KIND_DISTANCE = 0, ///< distance constraints
    SINEW_KIND_PIN = 1,      ///< pin/target constraints
    SINEW_KIND_CONTACT = 2,  ///< particle-particle contacts, made each step or sub-step (docs/collisions.md)
    SINEW_KIND_COLLIDER = 3, ///< particle-collider contacts, made each step or sub-step
    SINEW_KIND_AREA = 4,     ///< area (2D volume) constraints
    SINEW_KIND_ANGLE = 5,    ///< angle constraints
    SINEW_KIND_COUNT
} sinew_kind;

/// Solver settings. Can be read and changed between steps with sinew_world_get_solver /
/// sinew_world_set_solver.
typedef struct sinew_solver_def {
    sinew_solver_mode mode; ///< default SINEW_SOLVER_GAUSS_SEIDEL
    int substeps;           ///< sub-steps per step, 1..1024; default 4
    int iterations;         ///< solver iterations per sub-step, 1..1024; default 8
    float jacobi_omega;     ///< Jacobi over-relaxation, in (0, 2); default 1 (above 4/3 diverges at 1 iteration)
    sinew_gs_order order;   ///< Gauss-Seidel order; default SINEW_GS_ORDER_CREATED
    uint64_t shuffle_seed;  ///< seed for SINEW_GS_ORDER_SHUFFLE; default 1
    /// Keep every distance constraint's force for sinew_distance_get_force: the distances run the
    /// kernels of soft links, which sum what each link applies (same positions, to the bit;
    /// docs/constraints.md gives the cost). Default false (a world with a soft link keeps them anyway).
    bool link_forces;
} sinew_solver_def;

/// Threads (docs/threads.md). The engine cuts a stage into items (blocks of particles or of
/// constraints, their size fixed by the engine, never by the worker count) and hands them to a
/// task system as a task over [0, item_count). A task function runs items [start, end) on worker
/// `worker` (0 .. workers - 1; the thread that calls sinew_world_step is one of them). A task
/// needs up to about 12 KiB of the running thread's stack (the contact search's buffers).
typedef void sinew_task_fn(int start, int end, int worker, void *task_context);

/// A task system's enqueue: run `task` over [0, item_count) in ranges of at least `min_range`
/// items (any split is fine: the results do not depend on it), on any workers, and return a
/// handle for sinew_finish_task_fn, or NULL when it ran the task inline, already finished.
typedef void *sinew_enqueue_task_fn(sinew_task_fn *task, int item_count, int min_range, void *task_context,
                                    void *user_context);

/// A task system's finish: wait until the task behind `user_task` (from the enqueue) has run.
typedef void sinew_finish_task_fn(void *user_task, void *user_context);

/// The most workers a world can use.
#define SINEW_MAX_WORKERS 64

/// Everything needed to create a world. Get one from sinew_default_world_def().
typedef struct sinew_world_def {
    sinew_vec2 gravity;       ///< m/s^2; default (0, -10)
    float damping;            ///< linear velocity damping in 1/s (v *= exp(-damping h)); default 0
    /// m/s; default 3, INFINITY: no bound. After a step that ends with more than a quarter of its
    /// contacts overlapping by more than contact_speed * h (a pile compressed deep, which a stiffer
    /// solve would launch), touching particles leave each sub-step no faster than predicted, or
    /// than this, until no contact is that deep (docs/collisions.md, "Contact speed")
    float contact_speed;
    sinew_solver_def solver;  ///< see sinew_solver_def
    sinew_allocator allocator;///< default: malloc/free from the C library
    int particle_capacity;    ///< initial capacity hint; default 64
    int constraint_capacity;  ///< initial capacity hint per constraint kind; default 64
    int max_particles;        ///< hard limit, 0 = none; creating beyond gives SINEW_ERR_CAPACITY
    int max_constraints;      ///< hard limit per kind, 0 = none
    bool skip_linked_pairs;   ///< no contact between particles joined by a distance constraint; default true
    void *user_data;          ///< returned by sinew_world_user_data
    /// Threads, 1..SINEW_MAX_WORKERS; default 1. With more than 1 and no task system below, the
    /// world starts `workers - 1` threads of its own (pthreads), stopped by sinew_world_destroy.
    /// The end state is the same, to the bit, at any worker count.
    int workers;
    sinew_enqueue_task_fn *enqueue_task; ///< a task system of yours (both or neither); default NULL
    sinew_finish_task_fn *finish_task;   ///< see enqueue_task
    void *task_context;                  ///< handed to enqueue_task and finish_task
} sinew_world_def;

/// Defaults as documented on each field.
SINEW_API sinew_world_def sinew_default_world_def(void);

/// Defaults of sinew_solver_def, as documented on each field.
SINEW_API sinew_solver_def sinew_default_solver_def(void);

/// Creates a world. `def` may be NULL for defaults. On success writes the new world to `*out`.
/// Errors: NULL_ARGUMENT (out, or only one of allocator.alloc / allocator.free set), NOT_FINITE
/// (gravity, damping, jacobi_omega, a NaN contact_speed), OUT_OF_RANGE (damping < 0, contact_speed
/// not > 0, bad solver settings, negative capacities), OUT_OF_MEMORY. On error *out is untouched.
SINEW_API sinew_status sinew_world_create(const sinew_world_def *def, sinew_world **out);

/// Destroys a world and everything in it; all its ids become invalid. NULL is ignored.
SINEW_API void sinew_world_destroy(sinew_world *world);

/// Advances the world by `dt` seconds in `substeps` sub-steps of dt / substeps, each running
/// `iterations` solver iterations. Allocates nothing once capacities are reached (collision
/// contacts may grow their arrays on the first steps). A change of dt between steps is handled
/// by time-corrected Verlet. Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE (dt outside
/// [SINEW_MIN_DT, SINEW_MAX_DT]: 1 microsecond to 10 seconds).
SINEW_API sinew_status sinew_world_step(sinew_world *world, float dt);

/// Current solver settings.
SINEW_API sinew_solver_def sinew_world_get_solver(const sinew_world *world);

/// Replaces the solver settings (mode, iterations, substeps, omega, order, seed); applies from the
/// next step. Errors: NULL_ARGUMENT, NOT_FINITE (omega), OUT_OF_RANGE (iterations or substeps
/// outside 1..1024, omega outside (0, 2), unknown mode or order), OUT_OF_MEMORY (growing the
/// iteration history).
SINEW_API sinew_status sinew_world_set_solver(sinew_world *world, const sinew_solver_def *solver);

/// Changes the worker count between steps (1..SINEW_MAX_WORKERS): the built-in pool stops and
/// starts threads to match; with a task system of yours, only the count the engine plans for.
/// Errors: NULL_ARGUMENT, OUT_OF_RANGE, OUT_OF_MEMORY (a thread could not start: the count is
/// left as it was).
SINEW_API sinew_status sinew_world_set_workers(sinew_world *world, int workers);

/// The worker count. 0 for NULL.
SINEW_API int sinew_world_get_workers(const sinew_world *world);

/// Gravity in m/s^2. Errors: NULL_ARGUMENT, NOT_FINITE.
SINEW_API sinew_status sinew_world_set_gravity(sinew_world *world, sinew_vec2 gravity);

/// Current gravity in m/s^2.
SINEW_API sinew_vec2 sinew_world_get_gravity(const sinew_world *world);

/// Linear damping in 1/s. Errors: NULL_ARGUMENT, NOT_FINITE, OUT_OF_RANGE (negative).
SINEW_API sinew_status sinew_world_set_damping(sinew_world *world, float damping);

/// The contact speed in m/s (see sinew_world_def.contact_speed); applies from the next step.
/// Errors: NULL_ARGUMENT, NOT_FINITE (NaN), OUT_OF_RANGE (not > 0; INFINITY is accepted).
SINEW_API sinew_status sinew_world_set_contact_speed(sinew_world *world, float speed);

/// The contact speed in m/s. 0 for NULL.
SINEW_API float sinew_world_get_contact_speed(const sinew_world *world);

/// A colour, 8 bits per channel, alpha 255 = opaque.
typedef struct sinew_color {
    uint8_t r, g, b, a;
} sinew_color;

/// What sinew_world_draw draws.
typedef enum sinew_draw_flags {
    SINEW_DRAW_PARTICLES = 1u << 0, ///< circles of their radius (immovable ones grey)
    SINEW_DRAW_LINKS = 1u << 1,     ///< distance constraints, green at their allowed length, red stretched, blue squeezed
    SINEW_DRAW_PINS = 1u << 2,      ///< each pin's target, and a segment to its particle
    SINEW_DRAW_AREAS = 1u << 3,     ///< area rings, coloured by area / target
    SINEW_DRAW_ANGLES = 1u << 4,    ///< angle limits as wedges: the two limit directions at each joint
    SINEW_DRAW_COLLIDERS = 1u << 5, ///< static colliders (a half-plane as the part of the bounds on its solid side)
    SINEW_DRAW_CONTACTS = 1u << 6,  ///< the last step's contact points and normals
    SINEW_DRAW_ALL = 0x7fu,
} sinew_draw_flags;

/// Callbacks of a renderer; any may be NULL (that primitive is skipped). Lengths in metres.
typedef struct sinew_debug_draw {
    void (*circle)(sinew_vec2 center, float radius, sinew_color color, void *context);
    void (*segment)(sinew_vec2 a, sinew_vec2 b, sinew_color color, void *context);
    /// A convex polygon, counter-clockwise, rounded by `radius` (0: sharp; 1 vertex: a disc;
    /// 2: a capsule). Also used for area rings (which may be concave).
    void (*polygon)(const sinew_vec2 *vertices, int count, float radius, sinew_color color, void *context);
    void (*point)(sinew_vec2 p, sinew_color color, void *context);
    uint32_t flags;  ///< sinew_draw_flags
    void *context;   ///< handed to every callback
    /// The world rectangle being shown, in metres. A half-plane is drawn as the polygon its solid
    /// side cuts from it (nothing when it misses the rectangle). When min is not below max on both
    /// axes, or either is not finite, +-1000 m around the origin.
    sinew_vec2 bounds_min, bounds_max;
} sinew_debug_draw;

/// Draws the world through `draw`'s callbacks, in a fixed order: colliders, areas, links, angles,
/// pins, particles, contacts. Allocates nothing; the vertices handed to `polygon` are valid
/// during the call only. Errors: NULL_ARGUMENT.
SINEW_API sinew_status sinew_world_draw(const sinew_world *world, const sinew_debug_draw *draw);

/// Constraint error of one kind. Distance: |length - nearest allowed length| in metres.
/// Pin: distance between the particle and its target in metres. Contact and collider:
/// penetration depth in metres. Area: |area - target area| in square metres. Angle: radians
/// outside the allowed range.
typedef struct sinew_kind_stats {
    int count;       ///< constraints of this kind
    float max_error; ///< largest error after the last iteration of the last step
    float rms_error; ///< root mean square error over the kind's constraints
} sinew_kind_stats;

/// What the last step did.
typedef struct sinew_step_stats {
    uint64_t step_count;                    ///< steps taken since creation
    int particles;                          ///< live particles
    int reset_particles;                    ///< particle sub-steps undone because the prediction or the
                                            ///< solve took the particle to NaN or beyond
                                            ///< SINEW_MAX_COORDINATE (huge forces, a diverging
                                            ///< setting); it stays where the sub-step began, at rest
    int dropped_contacts;                   ///< contacts not made because memory ran out; 0 normally
    int substeps, iterations;               ///< settings the last step used
    sinew_solver_mode mode;                 ///< mode the last step used
    sinew_kind_stats kinds[SINEW_KIND_COUNT];///< per kind, indexed by sinew_kind
    float max_error;                        ///< max over kinds
    float rms_error;                        ///< RMS over all constraints of all kinds
} sinew_step_stats;

/// Statistics of the last step (all zero before the first step). NULL world gives zeros.
SINEW_API sinew_step_stats sinew_world_stats(const sinew_world *world);

/// What sinew_world_set_profiling times in every step.
typedef enum sinew_profiling {
    SINEW_PROFILE_OFF = 0,    ///< nothing (the default): the profile stays zero
    SINEW_PROFILE_STAGES = 1, ///< the stages: a clock read five times a sub-step
    SINEW_PROFILE_JOBS = 2,   ///< the stages and, with several workers, every job spread over them
} sinew_profiling;

/// Where the last step's time went: milliseconds of wall-clock time on the thread that called
/// sinew_world_step, by stage. The six stages add up to `step`, each summed over the sub-steps.
/// All zero unless the world profiles (sinew_world_set_profiling).
typedef struct sinew_step_profile {
    float step;      ///< the whole step
    float prepare;   ///< before the sub-steps: ordering constraints that changed (colours, blocks, runs)
    float integrate; ///< predicting positions: forces, gravity, damping, kinematic pins
    float collide;   ///< the grid, finding contacts and their Gauss-Seidel colours, collider contacts
    float solve;     ///< the iterations: every kind's projections (or Jacobi's passes)
    float finish;    ///< velocities, then the contacts' friction and velocity clamp
    float end;       ///< tearing, contact events and the error statistics of sinew_world_stats
    /// At SINEW_PROFILE_JOBS with more than one worker (else 0): `parallel` is the time of the jobs
    /// spread over the workers, from handing one out to its last item's end (with any one-thread
    /// work run beside it), so step - parallel ran on one thread; `wait`, within it, the calling
    /// thread's time waiting for the other workers to finish a job (with your own task system: in
    /// its finish callback).
    float parallel, wait;
    int jobs;        ///< jobs handed to the workers (or to your task system)
    /// The built-in pool's last measured round trip between two of its threads, in ns (0 with one
    /// worker, with your own task system, or before the first measure). Measured after a job once
    /// 128 steps have passed since the last measure (about 30 us at a round trip of 500 ns); the
    /// longer it is, the larger a sweep's span must be to be split over the workers
    /// (docs/threads.md, "The hand-off"). Never changes the results.
    int handoff_ns;
} sinew_step_profile;

/// The profile of the last step (all zero before the first step, without profiling, and in a world
/// loaded or cloned before its first step). NULL world gives zeros.
SINEW_API sinew_step_profile sinew_world_profile(const sinew_world *world);

/// Sets what every step times for sinew_world_profile (off by default: the clock reads cost 1 to 2%
/// of a step with many short sub-steps, and timing every job about 1% of a busy two-worker step;
/// docs/threads.md). Errors: NULL_ARGUMENT, OUT_OF_RANGE (an unknown level).
SINEW_API sinew_status sinew_world_set_profiling(sinew_world *world, sinew_profiling level);

/// One entry of the iteration history: the error of one kind (or all) after an iteration.
typedef struct sinew_error_sample {
    float max_error; ///< metres
    float rms_error; ///< metres
} sinew_error_sample;

/// Turns recording of the error after every iteration on or off (off by default: it costs a
/// pass over the constraints per iteration). When on, each step records for every sub-step s and
/// every iteration k in 0..iterations (0 = before the first iteration) the error per kind.
/// Errors: NULL_ARGUMENT, OUT_OF_MEMORY.
SINEW_API sinew_status sinew_world_record_iterations(sinew_world *world, bool enabled);

/// The iteration history of the last step for `kind` (or SINEW_KIND_COUNT for all kinds together):
/// a read-only array of substeps * (iterations + 1) samples, sample [s * (iterations + 1) + k].
/// Writes the substep and iteration counts it was recorded with. Owned by the world, valid until
/// the next step or settings change. Returns NULL when recording is off, before the first
/// recorded step, or on a NULL world or bad kind.
SINEW_API const sinew_error_sample *sinew_world_iteration_errors(const sinew_world *world, sinew_kind kind,
                                                                 int *substeps, int *iterations);

/// Bytes the world currently holds from its allocator.
SINEW_API size_t sinew_world_byte_count(const sinew_world *world);

/// A sentence about the last failed call on this world (which argument, which rule), or "" when
/// none failed yet. A successful call leaves it as it was: it always describes the most recent
/// failure, never the last call. Owned by the world; static text.
SINEW_API const char *sinew_world_last_error(const sinew_world *world);

/// The user_data from the world def.
SINEW_API void *sinew_world_user_data(const sinew_world *world);

#ifdef __cplusplus
}
#endif
