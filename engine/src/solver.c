// One step of the world, as named stages:
//   begin step -> per sub-step: integrate, kinematic pins, iterations (Gauss-Seidel or Jacobi),
//   optional error recording -> stats.
#include <math.h>
#include <string.h>

#include "clock.h"
#include "world_internal.h"

// Gauss-Seidel's forward order: pins and distances first, contacts last, so that non-penetration
// has the last word (a backward sweep runs the list backward). Jacobi sums in the same order.
extern const sinew__kind_ops sinew__pin_kind, sinew__distance_kind, sinew__angle_kind, sinew__area_kind,
    sinew__contact_kind, sinew__collider_kind;
const sinew__kind_ops *const sinew__kinds[SINEW_KIND_COUNT] = {
    &sinew__pin_kind, &sinew__distance_kind, &sinew__angle_kind,
    &sinew__area_kind, &sinew__contact_kind, &sinew__collider_kind,
};

uint64_t sinew__random_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void sinew__shuffle(uint32_t *perm, int count, uint64_t seed)
{
    uint64_t state = seed;
    for (int k = 0; k < count; ++k) {
        perm[k] = (uint32_t)k;
    }
    for (int k = count - 1; k > 0; --k) {
        int r = (int)(sinew__random_next(&state) % (uint64_t)(k + 1));
        uint32_t t = perm[k];
        perm[k] = perm[r];
        perm[r] = t;
    }
}

sinew_status sinew__history_reserve(sinew_world *world, int substeps, int iterations)
{
    if (!world->record) {
        return SINEW_OK;
    }
    size_t needed = sizeof(sinew_error_sample) * (size_t)(SINEW_KIND_COUNT + 1) * (size_t)substeps *
                    (size_t)(iterations + 1);
    if (needed <= world->history_bytes) {
        return SINEW_OK;
    }
    void *mem = sinew__alloc(world, needed);
    if (mem == NULL) {
        return SINEW_ERR_OUT_OF_MEMORY;
    }
    sinew__history_free(world);
    world->history_block = mem;
    world->history_bytes = needed;
    world->history = mem;
    return SINEW_OK;
}

void sinew__history_free(sinew_world *world)
{
    sinew__free(world, world->history_block, world->history_bytes);
    world->history_block = NULL;
    world->history = NULL;
    world->history_bytes = 0;
    world->history_valid = false;
}

// Error of every kind now; fills per-kind samples and the combined one, and (above not NULL)
// how many errors of each kind are above `beyond`.
static void measure(const sinew_world *world, sinew_error_sample out[SINEW_KIND_COUNT + 1], int counts[SINEW_KIND_COUNT],
                    float beyond, int *above)
{
    float mx[SINEW_KIND_COUNT];
    double sq[SINEW_KIND_COUNT];
    for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
        const sinew__kind_ops *kind = sinew__kinds[t];
        const int n = kind->error(world, beyond, &mx[kind->kind], &sq[kind->kind]);
        if (above != NULL) {
            above[kind->kind] = n;
        }
        counts[kind->kind] = kind->count(world);
    }
    float all_max = 0.0f;
    double all_sq = 0.0;
    int all_n = 0;
    for (int k = 0; k < SINEW_KIND_COUNT; ++k) {
        out[k].max_error = mx[k];
        out[k].rms_error = counts[k] > 0 ? (float)sqrt(sq[k] / counts[k]) : 0.0f;
        all_max = !(mx[k] <= all_max) ? mx[k] : all_max; // NaN wins: stats never hide one
        all_sq += sq[k];
        all_n += counts[k];
    }
    out[SINEW_KIND_COUNT].max_error = all_max;
    out[SINEW_KIND_COUNT].rms_error = all_n > 0 ? (float)sqrt(all_sq / all_n) : 0.0f;
}

static void record(sinew_world *world, int substep, int iteration)
{
    sinew_error_sample s[SINEW_KIND_COUNT + 1];
    int counts[SINEW_KIND_COUNT];
    measure(world, s, counts, INFINITY, NULL);
    const int per_kind = world->solver.substeps * (world->solver.iterations + 1);
    const int at = substep * (world->solver.iterations + 1) + iteration;
    for (int k = 0; k <= SINEW_KIND_COUNT; ++k) {
        world->history[k * per_kind + at] = s[k];
    }
}

// Jacobi, before each iteration: 1 / n for every particle, n = constraints that will correct it
// (those outside their range: satisfied ones do not dilute the step). Counted every iteration:
// counted once per sub-step, a link that both ends fall along counts 0 and then never acts in
// that sub-step; counting all constraints instead loses a lot of convergence where many are
// satisfied (measured: max stretch 1.135 against 1.017 for a 60 x 60 cloth at 8 x 1).
// Immovable particles get 1, the largest value, so that they never limit a constraint's factor
// omega / max(n_i, n_j). The distance constraints compute their steps in the same pass as their
// counts (sinew__distances_prepare).
static void jacobi_counts(sinew_world *world, float inv_h2)
{
    sinew__particles_clear_counts(world);
    for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
        sinew__kinds[t]->count_active(world, inv_h2);
    }
    sinew__particles_invert_counts(world);
}

// A lap of the profile's stages (clock.h), when the step is timed.
static inline void lap(bool timed, uint64_t *sum, uint64_t *last)
{
    if (timed) {
        sinew__lap(sum, last);
    }
}

static void iterate_gauss_seidel(sinew_world *world, float inv_h2, int iteration)
{
    const sinew_gs_order order = world->solver.order;
    const bool backward = order == SINEW_GS_ORDER_ALTERNATING && (iteration & 1) != 0;
    const bool shuffled = order == SINEW_GS_ORDER_SHUFFLE;
    // Kinds run in the order of sinew__kinds; a backward sweep reverses the kinds too.
    for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
        sinew__kinds[backward ? SINEW_KIND_COUNT - 1 - t : t]->project(world, inv_h2, backward, shuffled);
    }
}

// Finds particle contacts at the predicted positions of this sub-step, with a margin that covers
// `ahead` more sub-steps when it is small enough (world->grid.ahead says how many it covers), and
// collider contacts within twice that margin. The collider marks run over the workers while the
// grid's counting sort runs on one thread (they share no data).
static void find_contacts(sinew_world *world, bool color, int ahead, float extra)
{
    sinew__particles_pack_reset(world, !color); // (Gauss-Seidel: the contacts found mark their items)
    const bool placed = sinew__grid_place(world, ahead, extra);
    const float margin = world->grid.ahead > 0 ? 2.0f * world->grid.margin : 0.0f;
    sinew__job marks;
    const bool marked = sinew__collider_marks(world, margin, &marks);
    if (!placed) {
        sinew__parallel_for_beside(&world->tasks, marked ? &marks : NULL, NULL, NULL);
        world->contacts.l.count = 0; // the grid could not grow: no particle contacts this sub-step
        world->contacts.pending_count = 0;
        world->contacts.split.items = 0;
        world->dropped_contacts += world->particles.count;
    } else {
        sinew__grid_sort(world, marked ? &marks : NULL);
        sinew__contacts_find(world, color);
    }
    sinew__collider_contacts_find(world, margin, marked);
}

// The contact response, the last move of a sub-step, called only when there are contacts:
// friction and the velocity clamp of the contacts (see sinew__contacts_respond), and `most`, the
// contact speed's bound in metres per sub-step while the world watches deep overlap (overlap.c;
// INFINITY otherwise), applied as the particle contacts' response is written back. Jacobi mode
// scales each contact by 1 / max(n_i, n_j), n = contacts on the particle, and applies the sums
// together, so that it stays order independent. A particle the response carries out of range goes
// back where the sub-step began (as one the solve carried out does). Returns how many did.
static int respond_to_contacts(sinew_world *world, bool jacobi, float most)
{
    if (!jacobi) {
        int reset = 0;
        if (world->contacts.l.count > 0) {
            sinew__contacts_respond(world);
            reset += sinew__particles_unpack_motion(world, most);
        }
        if (sinew__collider_contacts_respond(world, false)) {
            reset += sinew__particles_reset_escaped(world);
        }
        return reset;
    }
    sinew__particles_clear_counts(world);
    sinew__contacts_jacobi(world, SINEW__JACOBI_IN_PLAY, 0.0f);
    sinew__collider_contacts_count(world);
    sinew__particles_invert_counts(world);
    sinew__contacts_jacobi(world, SINEW__JACOBI_RESPOND, 0.0f);
    sinew__collider_contacts_respond(world, true);
    return sinew__particles_apply_response(world, most);
}

// The kinds other than distances sum their corrections (already scaled by omega / max(n_i, n_j))
// into acc; the distance gather then moves every particle by its sums, and reads and clears acc
// only when some kind may have written it.
static void iterate_jacobi(sinew_world *world, float inv_h2)
{
    const float omega = world->solver.jacobi_omega;
    jacobi_counts(world, inv_h2);
    bool scattered = false;
    for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
        scattered |= sinew__kinds[t]->accumulate(world, inv_h2, omega);
    }
    sinew__distances_gather(world, omega, scattered);
}

// The profile's stages, in the order of sinew_step_profile's fields.
enum { STAGE_PREPARE, STAGE_INTEGRATE, STAGE_COLLIDE, STAGE_SOLVE, STAGE_FINISH, STAGE_END, STAGES };

// The profile of a step from its stages' ticks, laps[], which took `wall` seconds, and the jobs'
// ticks: in milliseconds at the ticks' rate over the step (the time-stamp counter's is not known
// otherwise).
static void write_profile(sinew_world *world, const uint64_t laps[STAGES], double wall)
{
    uint64_t ticks = 0u;
    for (int k = 0; k < STAGES; ++k) {
        ticks += laps[k];
    }
    const double ms = ticks > 0u && wall > 0.0 ? 1e3 * wall / (double)ticks : 0.0;
    sinew_step_profile *pr = &world->profile;
    pr->step = (float)((double)ticks * ms);
    pr->prepare = (float)((double)laps[STAGE_PREPARE] * ms);
    pr->integrate = (float)((double)laps[STAGE_INTEGRATE] * ms);
    pr->collide = (float)((double)laps[STAGE_COLLIDE] * ms);
    pr->solve = (float)((double)laps[STAGE_SOLVE] * ms);
    pr->finish = (float)((double)laps[STAGE_FINISH] * ms);
    pr->end = (float)((double)laps[STAGE_END] * ms);
    // The jobs lie within the step and their waits within them; the bounds hold even where the
    // time-stamp counters of two cores the thread ran on disagree.
    const uint64_t parallel = world->job_times.parallel < ticks ? world->job_times.parallel : ticks;
    const uint64_t wait = world->job_times.wait < parallel ? world->job_times.wait : parallel;
    pr->parallel = (float)((double)parallel * ms);
    pr->wait = (float)((double)wait * ms);
    pr->jobs = world->job_times.jobs;
    pr->handoff_ns = sinew__tasks_handoff_ns(&world->tasks);
}

sinew_status sinew_world_step(sinew_world *world, float dt)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (!sinew__finite(dt)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "sinew_world_step: dt must be finite");
    }
    if (!(dt >= SINEW_MIN_DT && dt <= SINEW_MAX_DT)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_world_step: dt must be in [1e-6, 10] seconds");
    }
    // The profile's laps: each stage's ticks, measured on this thread (clock.h), when it profiles.
    const bool timed = world->profiling != SINEW_PROFILE_OFF;
    const double wall_start = timed ? sinew__seconds() : 0.0;
    uint64_t last = timed ? sinew__ticks() : 0u;
    uint64_t laps[STAGES] = {0u};
    world->job_times = (sinew__job_times){0u, 0u, 0};
    sinew__tasks_stepping(&world->tasks, true);
    const sinew_solver_def solver = world->solver;
    const float h = dt / (float)solver.substeps;
    const float inv_h2 = 1.0f / (h * h);
    // Time-corrected Verlet: displacement (x - px) covered h_prev, the new sub-step is h long.
    const float damp = expf(-world->damping * h);

    if (solver.order == SINEW_GS_ORDER_SHUFFLE && solver.mode == SINEW_SOLVER_GAUSS_SEIDEL) {
        uint64_t seed = solver.shuffle_seed ^ (world->step_count * 0x9e3779b97f4a7c15ull);
        sinew__shuffle(world->distances.l.perm, world->distances.l.count, seed);
        sinew__shuffle(world->pins.perm, world->pins.count, seed + 1u);
    }
    sinew__pins_begin_step(world);
    sinew__events_begin_step(world);
    if (solver.mode == SINEW_SOLVER_GAUSS_SEIDEL && world->distances.colour_dirty) {
        sinew__distances_colour(world);
    }
    if ((world->particles.needs & SINEW__NEED_LINKED) != 0u) { // skip_linked_pairs, something collides
        sinew__distances_adjacency(world);
    }
    if (solver.mode == SINEW_SOLVER_JACOBI && world->distances.order_dirty) {
        sinew__distances_order(world);
    }
    if (world->distances.blocks_dirty) {
        sinew__links_refresh_blocks(world, &world->distances.l);
        world->distances.blocks_dirty = false;
    }
    if (!world->distances.l.spans_valid && sinew__links_spread(world, &world->distances.l) &&
        world->particles.span_mark != NULL) { // (allocated with the workers; else the sweeps stay serial)
        sinew__links_spans(world, &world->distances.l, world->particles.span_mark, 0);
    }
    world->dropped_contacts = 0;
    const bool recording = world->record && world->history != NULL;
    const bool jacobi = solver.mode == SINEW_SOLVER_JACOBI;
    int reset = 0;
    // What gravity and forces may add to a particle's motion over the sub-steps after the first,
    // beyond its displacement (see sinew__grid_build). The solver's own pushes are left to the
    // contact reach's slack.
    const float ahead_t = h * (float)(solver.substeps - 1);
    const float extra = solver.substeps > 1 ? 0.5f * (sinew_vec2_length(world->gravity) + sinew__particles_max_accel(world)) *
                                                  ahead_t * ahead_t
                                            : 0.0f;

    // The contact speed's bound per sub-step, when the last step ended with widespread deep
    // overlap (see overlap.c).
    const float bound = world->deep_watch ? world->contact_speed * h : INFINITY;
    int covered = -1; // the last sub-step the contacts found cover
    lap(timed, &laps[STAGE_PREPARE], &last);
    for (int s = 0; s < solver.substeps; ++s) {
        reset += sinew__particles_integrate(world, h, damp * (h / world->h_prev));
        world->h_prev = h;
        sinew__pins_move_kinematic(world, (float)(s + 1) / (float)solver.substeps);
        for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
            if (sinew__kinds[t]->begin_substep != NULL) {
                sinew__kinds[t]->begin_substep(world);
            }
        }
        lap(timed, &laps[STAGE_INTEGRATE], &last);
        if (s > covered) {
            // Contacts found at the first sub-step cover the rest of the step when everything
            // moves slowly against its neighbours: the search is most of a pile's cost. A particle
            // moves at most twice the margin (it is measured from a midrange that includes rest).
            // When the margin for the whole step would be too large, it covers fewer sub-steps
            // and the contacts are found again after them.
            find_contacts(world, !jacobi, solver.substeps - 1 - s, extra);
            covered = s + world->grid.ahead;
        } else {
            sinew__contacts_promote(world);
            sinew__collider_contacts_refresh(world);
        }
        lap(timed, &laps[STAGE_COLLIDE], &last);
        if (recording) {
            record(world, s, 0);
        }
        sinew__particles_begin_xy(world, recording);
        for (int it = 0; it < solver.iterations; ++it) {
            if (!jacobi) {
                iterate_gauss_seidel(world, inv_h2, it);
            } else {
                iterate_jacobi(world, inv_h2);
            }
            if (recording) {
                record(world, s, it + 1);
            }
        }
        sinew__particles_end_xy(world);
        lap(timed, &laps[STAGE_SOLVE], &last);
        const bool contacts = world->contacts.l.count > 0 || world->collider_contacts.count > 0;
        // The items no contact touches skip their records, and take the bound the copy back of
        // the records would have applied (it runs when there are particle contacts).
        const float finish_bound = !jacobi && world->contacts.l.count > 0 ? bound : INFINITY;
        reset += sinew__particles_finish_substep(world, contacts, finish_bound);
        if (contacts) {
            reset += respond_to_contacts(world, jacobi, bound);
        }
        lap(timed, &laps[STAGE_FINISH], &last);
    }

    // Forces apply to one step only.
    if (world->particles.forced && world->particles.count > 0) {
        memset(world->particles.ax, 0, sizeof(float) * (size_t)world->particles.count);
        memset(world->particles.ay, 0, sizeof(float) * (size_t)world->particles.count);
    }
    world->particles.forced = false;

    sinew__distances_tear(world);
    sinew__events_update(world);
    world->grid.fresh = false; // the solve moved the particles since the last build
    world->step_count += 1;
    world->history_valid = recording;
    world->history_substeps = solver.substeps;
    world->history_iterations = solver.iterations;

    sinew_step_stats *st = &world->stats;
    sinew_error_sample samples[SINEW_KIND_COUNT + 1];
    int counts[SINEW_KIND_COUNT], deep[SINEW_KIND_COUNT];
    measure(world, samples, counts, world->contact_speed * h, deep);
    sinew__overlap_watch(world, deep[SINEW_KIND_CONTACT] + deep[SINEW_KIND_COLLIDER],
                         counts[SINEW_KIND_CONTACT] + counts[SINEW_KIND_COLLIDER]);
    st->step_count = world->step_count;
    st->reset_particles = reset;
    st->dropped_contacts = world->dropped_contacts;
    st->particles = world->particles.count;
    st->substeps = solver.substeps;
    st->iterations = solver.iterations;
    st->mode = solver.mode;
    for (int k = 0; k < SINEW_KIND_COUNT; ++k) {
        st->kinds[k].count = counts[k];
        st->kinds[k].max_error = samples[k].max_error;
        st->kinds[k].rms_error = samples[k].rms_error;
    }
    st->max_error = samples[SINEW_KIND_COUNT].max_error;
    st->rms_error = samples[SINEW_KIND_COUNT].rms_error;
    sinew__tasks_stepping(&world->tasks, false);
    lap(timed, &laps[STAGE_END], &last);
    if (timed) {
        write_profile(world, laps, sinew__seconds() - wall_start);
    } else {
        world->profile = (sinew_step_profile){0};
    }
    return SINEW_OK;
}

sinew_step_stats sinew_world_stats(const sinew_world *world)
{
    sinew_step_stats zero = {0};
    return world != NULL ? world->stats : zero;
}

sinew_step_profile sinew_world_profile(const sinew_world *world)
{
    sinew_step_profile zero = {0};
    return world != NULL ? world->profile : zero;
}

sinew_status sinew_world_set_profiling(sinew_world *world, sinew_profiling level)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if ((unsigned)level > (unsigned)SINEW_PROFILE_JOBS) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "sinew_world_set_profiling: unknown level");
    }
    world->profiling = level;
    world->tasks.time_jobs = level == SINEW_PROFILE_JOBS;
    return SINEW_OK;
}

sinew_status sinew_world_record_iterations(sinew_world *world, bool enabled)
{
    if (world == NULL) {
        return SINEW_ERR_NULL_ARGUMENT;
    }
    if (!enabled) {
        world->record = false;
        sinew__history_free(world);
        return SINEW_OK;
    }
    world->record = true;
    sinew_status s = sinew__history_reserve(world, world->solver.substeps, world->solver.iterations);
    if (s != SINEW_OK) {
        world->record = false;
        return sinew__fail(world, s, "sinew_world_record_iterations: allocating the history failed");
    }
    return SINEW_OK;
}

const sinew_error_sample *sinew_world_iteration_errors(const sinew_world *world, sinew_kind kind, int *substeps,
                                                       int *iterations)
{
    if (world == NULL || !world->history_valid || (unsigned)kind > (unsigned)SINEW_KIND_COUNT) {
        return NULL;
    }
    if (substeps != NULL) {
        *substeps = world->history_substeps;
    }
    if (iterations != NULL) {
        *iterations = world->history_iterations;
    }
    size_t per_kind = (size_t)world->history_substeps * (size_t)(world->history_iterations + 1);
    return world->history + (size_t)kind * per_kind;
}
