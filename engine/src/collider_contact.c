// The collider contacts (SINEW_KIND_COLLIDER): each particle near a static collider gets the
// collider's contact plane, found at the first sub-step of a step (with the grid's motion margin)
// or again when the margin ran out, refreshed for curved shapes at the sub-steps in between,
// projected like the other kinds, and answered by the same friction and velocity clamp as
// particle contacts.
#include <string.h>

#include "world_internal.h"

static sinew_status collider_contacts_resize(sinew_world *world, int new_capacity)
{
    sinew__collider_contacts *q = &world->collider_contacts;
    sinew__field fields[] = {
        {(void **)&q->c, sizeof(sinew__collider_contact), false, 1, false, NULL},
        {(void **)&q->mu_s, sizeof(float), false, 1, false, NULL},
        {(void **)&q->mu_k, sizeof(float), false, 1, false, NULL},
        {(void **)&q->collider, sizeof(int32_t), false, 1, false, NULL},
    };
    sinew_status s = sinew__block_resize(world, &q->block, &q->block_bytes, fields, 4, q->count, new_capacity);
    if (s == SINEW_OK) {
        q->capacity = new_capacity;
    }
    return s;
}

static void collider_contacts_free(sinew_world *world)
{
    sinew__free(world, world->collider_contacts.block, world->collider_contacts.block_bytes);
    memset(&world->collider_contacts, 0, sizeof world->collider_contacts);
}

static void emit(sinew_world *world, int i, const sinew__collider *c, const sinew__plane_hit *hit)
{
    sinew__collider_contacts *q = &world->collider_contacts;
    if (q->count == q->capacity) {
        int cap = sinew__grow_capacity(q->capacity, q->count + 1);
        if (cap < 0 || collider_contacts_resize(world, cap) != SINEW_OK) {
            world->dropped_contacts += 1;
            return;
        }
    }
    const sinew__particles *p = &world->particles;
    const int k = q->count++;
    q->c[k] = (sinew__collider_contact){i, hit->nx, hit->ny, hit->offset};
    sinew__particles_pack_mark(p, i); // (its response reads its motion record)
    q->mu_s[k] = sinew__particle_mu_s(p, i) * c->mu_s; // both square roots: sqrt(a b)
    q->mu_k[k] = sinew__particle_mu_k(p, i) * c->mu_k;
    q->collider[k] = (int32_t)(c - world->colliders.c);
}

// How far particle i moved in this sub-step (m).
static float moved_of(const sinew__particles *p, int i)
{
    return sinew_vec2_length(sinew_vec2_sub(sinew_vec2_make(p->x[i], p->y[i]), sinew_vec2_make(p->px[i], p->py[i])));
}

// The contact plane of particle i against collider c at the current positions: a particle that
// moved more than its radius in this sub-step could have skipped a thin collider, and is swept
// from where the sub-step began.
static bool find_plane(const sinew__particles *p, int i, float moved, const sinew__collider *c, float margin,
                       sinew__plane_hit *hit)
{
    const sinew_vec2 at = {p->x[i], p->y[i]}, from = {p->px[i], p->py[i]};
    const float r = p->radius[i];
    return (moved > r && sinew__collider_sweep(c, from, at, r, hit, NULL)) || sinew__collider_plane(c, at, r, margin, hit);
}

// When every collider is a half-plane (a box, the common case): marks in near_plane, in passes
// the compiler vectorises, the particles that may get a contact: those that moved about their
// radius or more (swept), and those near a plane they collide with. Both tests are looser than
// the exact ones of sinew__collider_contacts_find, which then runs on the marked particles only.
// The pass reads only the particles' state and the colliders, so the step runs it over the
// workers while the grid's counting sort runs on one thread (sinew__grid_sort).
// Particles per item of the marking pass over the workers, and the fewest items a task takes.
#define MARK_ITEM 1024
#define MARK_MIN_ITEMS 2 // (under 4 items, 4,096 particles, one thread: as the grid build and the search)

static void mark_items(int start, int end, int worker, void *context)
{
    (void)worker;
    const sinew_world *world = context;
    const sinew__colliders *cs = &world->colliders;
    const sinew__particles *p = &world->particles;
    const int first = start * MARK_ITEM, last = end * MARK_ITEM < p->count ? end * MARK_ITEM : p->count;
    const float *restrict x = p->x, *restrict y = p->y, *restrict px = p->px, *restrict py = p->py;
    const float *restrict r = p->radius;
    const uint32_t *restrict group = p->group, *restrict mask = p->mask;
    uint8_t *restrict near = p->near_plane;
    const float margin = world->collider_contacts.mark_margin;
    const sinew__materials *one = &p->materials; // (known: sinew__collider_marks looked)
    if (one->one_shape) {
        // Every colliding particle has one radius and filter: the same tests without loading them
        // (particles that do not collide may be marked too; the exact test skips them).
        const float r2 = 0.99f * one->radius * one->radius;
        for (int i = first; i < last; ++i) {
            const float mx = x[i] - px[i], my = y[i] - py[i];
            near[i] = (uint8_t)(mx * mx + my * my > r2);
        }
        const float reach = (one->radius + margin + one->radius * (SINEW__CONTACT_REACH - 1.0f)) * 1.001f + 1e-6f;
        for (int k = 0; k < cs->count; ++k) {
            const sinew__collider c = cs->c[k];
            if (((c.group & one->mask) != 0u) & ((one->group & c.mask) != 0u)) {
                for (int i = first; i < last; ++i) {
                    near[i] |= (uint8_t)!(c.nx * x[i] + c.ny * y[i] - c.offset >= reach); // NaN: close
                }
            }
        }
        return;
    }
    for (int i = first; i < last; ++i) {
        const float mx = x[i] - px[i], my = y[i] - py[i];
        near[i] = (uint8_t)(mx * mx + my * my > 0.99f * r[i] * r[i]);
    }
    for (int k = 0; k < cs->count; ++k) {
        const sinew__collider c = cs->c[k];
        if (group == NULL) { // every particle has one filter (sinew__particles.with_filters)
            if (((c.group & p->all_mask) != 0u) & ((p->all_group & c.mask) != 0u)) {
                for (int i = first; i < last; ++i) {
                    const float reach = (r[i] + margin + r[i] * (SINEW__CONTACT_REACH - 1.0f)) * 1.001f + 1e-6f;
                    near[i] |= (uint8_t)!(c.nx * x[i] + c.ny * y[i] - c.offset >= reach); // NaN: close
                }
            }
            continue;
        }
        for (int i = first; i < last; ++i) {
            const float reach = (r[i] + margin + r[i] * (SINEW__CONTACT_REACH - 1.0f)) * 1.001f + 1e-6f;
            const bool close = !(c.nx * x[i] + c.ny * y[i] - c.offset >= reach); // NaN: close, as in plane_contact
            const bool meets = ((c.group & mask[i]) != 0u) & ((group[i] & c.mask) != 0u); // (& not &&: no branch)
            near[i] |= (uint8_t)(close & meets);
        }
    }
}

bool sinew__collider_marks(sinew_world *world, float margin, sinew__job *job)
{
    const sinew__colliders *cs = &world->colliders;
    if (cs->count == 0) {
        return false;
    }
    for (int k = 0; k < cs->count; ++k) {
        if (cs->c[k].type != SINEW_COLLIDER_PLANE) {
            return false;
        }
    }
    world->collider_contacts.mark_margin = margin;
    (void)sinew__particles_materials(world); // (known before the marks read it over the workers)
    *job = (sinew__job){mark_items, (world->particles.count + MARK_ITEM - 1) / MARK_ITEM,
                        sinew__min_range(&world->tasks, MARK_MIN_ITEMS), world};
    return true;
}

// The first particle from i on that the marking pass marked, or n: eight marks at a time over the
// unmarked ones (most of a pile).
static int next_marked(const uint8_t *near, int i, int n)
{
    for (uint64_t word; i + 8 <= n; i += 8) {
        memcpy(&word, near + i, sizeof word);
        if (word != 0u) {
            break;
        }
    }
    while (i < n && near[i] == 0u) {
        ++i;
    }
    return i;
}

void sinew__collider_contacts_find(sinew_world *world, float margin, bool marked)
{
    sinew__collider_contacts *q = &world->collider_contacts;
    const sinew__particles *p = &world->particles;
    const sinew__colliders *cs = &world->colliders;
    q->count = 0;
    if (cs->count == 0) {
        return;
    }
    for (int i = 0; i < p->count; ++i) {
        if (marked) {
            i = next_marked(p->near_plane, i, p->count);
            if (i == p->count) {
                break;
            }
        }
        if ((p->flags[i] & SINEW_PARTICLE_COLLIDES) == 0u || p->w[i] == 0.0f) {
            continue; // immovable particles need no collider contact
        }
        const sinew_vec2 at = {p->x[i], p->y[i]};
        const float r = p->radius[i];
        const float moved = moved_of(p, i);
        // What the polygon bound test must allow for: the reach, the margin, and a sweep.
        const float reach = (r + (moved > r ? moved : 0.0f)) * SINEW__CONTACT_REACH + margin;
        // A half-plane against a particle that needs no sweep, the common case, without the calls.
        const float plane_margin = margin + r * (SINEW__CONTACT_REACH - 1.0f);
        for (int k = 0; k < cs->count; ++k) {
            const sinew__collider *c = &cs->c[k];
            if ((c->group & sinew__particle_mask(p, i)) == 0u || (sinew__particle_group(p, i) & c->mask) == 0u) {
                continue;
            }
            sinew__plane_hit hit;
            if (c->type == SINEW_COLLIDER_PLANE && !(moved > r)) {
                if (sinew__half_plane_contact(c, at, r, plane_margin, &hit)) {
                    emit(world, i, c, &hit);
                }
                continue;
            }
            if (c->type == SINEW_COLLIDER_POLYGON &&
                (at.x + reach < c->minx || at.x - reach > c->maxx || at.y + reach < c->miny || at.y - reach > c->maxy)) {
                continue;
            }
            if (find_plane(p, i, moved, c, margin, &hit)) {
                emit(world, i, c, &hit);
            }
        }
    }
}

void sinew__collider_contacts_refresh(sinew_world *world)
{
    sinew__collider_contacts *q = &world->collider_contacts;
    const sinew__collider *cs = world->colliders.c;
    for (int m = 0; m < q->count; ++m) {
        const sinew__collider *c = &cs[q->collider[m]];
        sinew__plane_hit hit;
        const int i = q->c[m].i;
        if (c->type != SINEW_COLLIDER_PLANE && find_plane(&world->particles, i, moved_of(&world->particles, i), c, INFINITY, &hit)) {
            q->c[m].nx = hit.nx;
            q->c[m].ny = hit.ny;
            q->c[m].offset = hit.offset;
        }
    }
}

// `shuffled` does not apply: collider contacts keep their order.
static void collider_contacts_project(sinew_world *world, float inv_h2, bool backward, bool shuffled)
{
    (void)inv_h2;
    (void)shuffled;
    const sinew__collider_contacts *q = &world->collider_contacts;
    // (While Gauss-Seidel holds the positions in pairs, in xy, they are read and written there.)
    const bool packed = world->particles.xy != NULL;
    float *x = packed ? world->particles.xy : world->particles.x;
    float *y = packed ? world->particles.xy + 1 : world->particles.y;
    const int stride = packed ? 2 : 1;
    const int n = q->count;
    for (int m = 0; m < n; ++m) {
        const sinew__collider_contact *c = &q->c[backward ? n - 1 - m : m];
        const int i = stride * c->i;
        float s = c->offset - (c->nx * x[i] + c->ny * y[i]);
        s = s > 0.0f ? s : 0.0f; // only pushes out
        x[i] += c->nx * s;
        y[i] += c->ny * s;
    }
}

static void collider_contacts_count_active(sinew_world *world, float inv_h2)
{
    (void)inv_h2;
    const sinew__collider_contacts *q = &world->collider_contacts;
    const float *x = world->particles.x, *y = world->particles.y;
    float *n = world->particles.inv_n;
    for (int m = 0; m < q->count; ++m) {
        const sinew__collider_contact *c = &q->c[m];
        n[c->i] += c->offset - (c->nx * x[c->i] + c->ny * y[c->i]) > 0.0f ? 1.0f : 0.0f;
    }
}

static bool collider_contacts_accumulate(sinew_world *world, float inv_h2, float omega)
{
    (void)inv_h2;
    const sinew__collider_contacts *q = &world->collider_contacts;
    const float *x = world->particles.x, *y = world->particles.y;
    const float *inv_n = world->particles.inv_n;
    sinew__jacobi_sum *acc = world->particles.acc;
    for (int m = 0; m < q->count; ++m) {
        const sinew__collider_contact *c = &q->c[m];
        float s = c->offset - (c->nx * x[c->i] + c->ny * y[c->i]);
        s = s > 0.0f ? omega * inv_n[c->i] * s : 0.0f;
        acc[c->i].dx += (double)(c->nx * s);
        acc[c->i].dy += (double)(c->ny * s);
    }
    return world->collider_contacts.count > 0;
}

static int collider_contacts_error(const sinew_world *world, float beyond, float *max_error, double *sum_sq)
{
    const sinew__collider_contacts *q = &world->collider_contacts;
    const float *x = world->particles.x, *y = world->particles.y;
    float mx = 0.0f;
    double sq = 0.0;
    int above = 0;
    for (int m = 0; m < q->count; ++m) {
        const sinew__collider_contact *c = &q->c[m];
        float e = c->offset - (c->nx * x[c->i] + c->ny * y[c->i]);
        e = e > 0.0f ? e : (e <= 0.0f ? 0.0f : e); // keeps NaN
        mx = !(e <= mx) ? e : mx;
        above += e > beyond;
        sq += (double)e * e;
    }
    *max_error = mx;
    *sum_sq = sq;
    return above;
}

// 1 when contact m was within the contact reach before the solve of the sub-step (at px + dx0 of
// the particle's motion record), as a contact found in that sub-step is: only those respond, not
// those found ahead with a motion margin. (Unlike particle pairs, see in_play in contact.c, a near collider does not
// make a pile sticky; limiting it to touching contacts was measured to unsettle Jacobi piles.)
static float plane_in_reach(const sinew_world *world, int m)
{
    const sinew__collider_contact *c = &world->collider_contacts.c[m];
    const sinew__particles *p = &world->particles;
    const int i = c->i;
    const sinew__motion *mo = &p->motion[i];
    const float gap = c->nx * (mo->px + mo->dx0) + c->ny * (mo->py + mo->dy0) - c->offset;
    return gap < p->radius[i] * (SINEW__CONTACT_REACH - 1.0f) ? 1.0f : 0.0f;
}

bool sinew__collider_contacts_respond(sinew_world *world, bool jacobi)
{
    unsigned out = 0u;
    const sinew__collider_contacts *q = &world->collider_contacts;
    sinew__particles *p = &world->particles;
    for (int m = 0; m < q->count; ++m) {
        const sinew__collider_contact *c = &q->c[m];
        const int i = c->i;
        float fx, fy, vx, vy; // the collider does not move: relative motion is the particle's
        const sinew__motion *mo = &p->motion[i];
        sinew__contact_response(c->nx, c->ny, mo->dx0, mo->dy0, p->dx[i], p->dy[i], q->mu_s[m], q->mu_k[m], &fx, &fy,
                                &vx, &vy);
        const float share = plane_in_reach(world, m) * (jacobi ? p->inv_n[i] : 1.0f);
        if (jacobi) {
            p->acc[i].dx += (double)(share * vx);
            p->acc[i].dy += (double)(share * vy);
            p->jacobi_x[i] += (double)(share * fx);
            p->jacobi_y[i] += (double)(share * fy);
        } else {
            p->dx[i] += share * vx;
            p->dy[i] += share * vy;
            p->x[i] += share * fx;
            p->y[i] += share * fy;
            out |= (unsigned)!(sinew__coordinate_ok(p->x[i]) && sinew__coordinate_ok(p->y[i]));
        }
    }
    return out != 0u;
}

void sinew__collider_contacts_count(sinew_world *world)
{
    const sinew__collider_contacts *q = &world->collider_contacts;
    for (int m = 0; m < q->count; ++m) {
        world->particles.inv_n[q->c[m].i] += plane_in_reach(world, m);
    }
}

static int collider_contacts_count(const sinew_world *world) { return world->collider_contacts.count; }

// Collider contacts are found again at every step's first sub-step, like particle contacts.
const sinew__kind_ops sinew__collider_kind = {
    .kind = SINEW_KIND_COLLIDER,
    .count = collider_contacts_count,
    .begin_substep = NULL,
    .project = collider_contacts_project,
    .count_active = collider_contacts_count_active,
    .accumulate = collider_contacts_accumulate,
    .error = collider_contacts_error,
    .remove_particle = NULL,
    .free = collider_contacts_free,
};
