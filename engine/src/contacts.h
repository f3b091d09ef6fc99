// Collision: the grid of colliding particles, particle contacts, static colliders and the
// contacts of particles with them, and the contact response they share. Never installed.
#pragma once

#include "links.h"
#include "particles.h"
#include "tasks.h"

#define SINEW__PENDING_SEGS 1024 // most runs of pending contacts (see sinew__contacts_promote)
#define SINEW__SEARCH_BANDS_MAX 256 // bands of cells a parallel search is cut into, at most (contact.c)

// Jacobi's passes over the particle contacts, split over the workers (contact_jacobi.c): the
// contacts of the last search that fill whole blocks, [0, upto), cut into `items` items of
// item_blocks blocks (the last one shorter), one a worker, which run at once. A particle's sum
// takes the parts of the first item that meets it directly; the later items hold theirs (see
// sinew__ends) in the item's slots, added item after item once all ran. The contacts from upto on
// (the partial block, those promoted since) then run on one thread. Every sum so takes its parts
// in contact order: the bits of one thread, however the contacts were cut.
#define SINEW__JACOBI_ITEMS SINEW_MAX_WORKERS
typedef struct sinew__contact_split {
    int items; // 0: the passes run on one thread
    int item_blocks, upto;
    uint16_t *held;        // per block of [0, upto): see sinew__ends
    int32_t *slot_p;       // per slot: its particle
    float (*slot)[4];      // per slot: the values a pass held
    int32_t slot_start[SINEW__JACOBI_ITEMS + 1]; // item t's slots: [slot_start[t], slot_start[t + 1])
    void *held_block, *slot_block;
    size_t held_bytes, slot_bytes;
    int held_capacity, slot_capacity;
    int64_t splits; // for the tests: searches whose contacts were split
} sinew__contact_split;

// Particle-particle contacts of the current sub-step: min-only links (lo = ri + rj), plus
// friction. In Gauss-Seidel mode they are sorted by colour so that blocks are independent.
typedef struct sinew__contacts {
    void *block;
    size_t block_bytes;
    int capacity;
    sinew__links l;
    // Where the search writes (hi holding the squared distance); once the search is over, it holds
    // the contacts found with the motion margin but not yet within the contact reach, `pending`
    // (Gauss-Seidel: after the ones solved, before their colour sort into l.c). Those are not
    // solved until a later sub-step of the step brings them within it (sinew__contacts_promote).
    // Jacobi keeps its pending contacts in l.c, right after the solved ones (`in_line`: a
    // promotion moves those now within reach to the front of them, where they join the solved),
    // and, while its search runs on one thread, has no array of its own for `found` (`one_array`:
    // found is l.c, where the search writes and the split sorts in place). The first search
    // chooses; a search in Gauss-Seidel mode or over the workers then brings the second array for
    // good.
    sinew__distance *found; // Gauss-Seidel: the colour sort keeps each one's colour in hi (or the search's runs of pending ones)
    sinew__distance *pending; // in `found` (in_line: in l.c, from l.count on)
    bool in_line, one_array;
    int pending_count;        // in all: the pending contacts are the pending_segs runs below, in order
    // The runs of `pending` that hold pending contacts: [start, start + count). One after a search;
    // a promotion splits them (it compacts each piece it hands a worker in place). In line: one.
    int pending_segs;
    int32_t pending_start[SINEW__PENDING_SEGS], pending_run[SINEW__PENDING_SEGS];
    // Per solved contact, set when found or promoted (set_response in contact.c): each end's
    // share of a response, and the pair's static and kinetic friction, in a block of their own
    // (as large as `block`) allocated only when needed: not when `one_material` (every colliding
    // particle alike), as then every contact has one_share at both ends and the frictions
    // one_mu_s and one_mu_k.
    void *response_block;
    size_t response_bytes;
    float *share_i, *share_j, *mu_s, *mu_k;
    bool one_material;
    float one_share, one_mu_s, one_mu_k;
    // Of the pairs the last search with workers tested, the share that were contacts, in all and
    // per band of cells (`bands` bands of `band_per` particles; 0: not known): the room a parallel
    // search gives each band (it sizes memory and work, never changes a result).
    float hit_share;
    int bands, band_per;
    float band_share[SINEW__SEARCH_BANDS_MAX];
    // For the tests: searches whose bands split their contacts too (all fit their rooms or were
    // counted in time), of those the ones where some bands outgrew their rooms (their tails were
    // scanned over the workers) and the ones that first grew the arrays to hold them all, searches
    // that went on on one thread past an outgrown band, and searches whose spans came from the
    // colours (not from a scan); and the growths of the arrays by a scan that makes room as it goes
    // (find_cells: one a scan, but for a crowd).
    int64_t band_splits, tail_splits, band_growths, serial_tails, colour_spans, scan_growths;
    // Gauss-Seidel with workers (see find_bands in contact.c): the searches whose contacts were
    // coloured as the bands were found and placed by colour as the bands split them, and those
    // whose colour sort went on from the colours the search gave (a band outgrew its room: it
    // coloured the kept contacts before it, `precoloured`); and the scratch that counts the kept
    // contacts per band, tile and colour (grown when the bands or the tiles need more).
    int64_t banded_colourings, resumed_colourings;
    int precoloured;
    int32_t *colour_rows;
    size_t colour_rows_bytes;
    sinew__contact_split split; // Jacobi, with workers
} sinew__contacts;

// A particle against a static collider, linearised: dot(n, x) >= offset.
typedef struct sinew__collider_contact {
    int32_t i;
    float nx, ny, offset;
} sinew__collider_contact;

typedef struct sinew__collider_contacts {
    void *block;
    size_t block_bytes;
    int capacity, count;
    sinew__collider_contact *c;
    float *mu_s, *mu_k;
    int32_t *collider;      // index in colliders.c, for sinew__collider_contacts_refresh
    float mark_margin;      // the margin of the marks sinew__collider_marks set out to make
} sinew__collider_contacts;

// A static collider: a half-plane, or a convex polygon (1 vertex = disc, 2 = capsule) rounded
// by `radius`, vertices counter-clockwise, edge k from v[k] to v[k + 1] with outward normal n[k].
typedef struct sinew__collider {
    sinew_collider_type type;
    int vertex_count;
    float nx, ny, offset; // plane
    float radius;
    sinew_vec2 v[SINEW_POLYGON_MAX_VERTICES];
    sinew_vec2 n[SINEW_POLYGON_MAX_VERTICES];
    float minx, miny, maxx, maxy; // bounds including the radius
    float mu_s, mu_k; // square roots of the frictions, like the particles'
    uint32_t group, mask;
    void *user_data;
    uint8_t events;   // 1: touches of event particles make contact events
} sinew__collider;

typedef struct sinew__colliders {
    sinew__store store;
    int count;
    sinew__collider *c;
} sinew__colliders;

// A contact plane for a particle against a collider: dot(n, x) >= offset keeps it out.
typedef struct sinew__plane_hit {
    float nx, ny, offset;
} sinew__plane_hit;

// The half-plane case of sinew__collider_plane: `margin` already includes the speculative part.
SINEW_FORCE_INLINE bool sinew__half_plane_contact(const sinew__collider *c, sinew_vec2 p, float r, float margin,
                                                  sinew__plane_hit *hit)
{
    if (c->nx * p.x + c->ny * p.y - c->offset >= r + margin) {
        return false;
    }
    *hit = (sinew__plane_hit){c->nx, c->ny, c->offset + r};
    return true;
}

// collider.c: the contact plane of a particle at p of radius r against collider c, if they are
// within SINEW__CONTACT_REACH times r plus `margin` (m; INFINITY: always, for a contact found
// before), as particle contacts are speculative.
bool sinew__collider_plane(const sinew__collider *c, sinew_vec2 p, float r, float margin, sinew__plane_hit *hit);
// Sweeps a particle of radius r from a to b against collider c: the entry plane, if it enters,
// and (fraction not NULL) where along a-b, in [0, 1].
bool sinew__collider_sweep(const sinew__collider *c, sinew_vec2 a, sinew_vec2 b, float r, sinew__plane_hit *hit,
                           float *fraction);

// Uniform grid over the colliding particles, rebuilt by counting sort every sub-step.
typedef struct sinew__grid {
    void *block;
    size_t block_bytes;
    int capacity;          // cells allocated (cell_start holds capacity + 1 entries)
    uint32_t *cell_start;  // particles of cell k: sorted[cell_start[k] .. cell_start[k + 1])
    int nx, ny;
    float minx, miny, cell, inv_cell;
    float max_radius;
    float margin;          // how far any particle may move towards another before contacts are
                           // found again (m); see sinew__grid_build
    int ahead;             // further sub-steps the last build's margin covers (0: this one only)
    int sorted_count;
    int placed;            // colliding particles placed by sinew__grid_place, for the sort
    bool valid;            // matches the particle indices (no create or destroy since)
    bool fresh;            // built at the current positions (cleared by a step and by set_position)
    // What the placed particles share, as the last build found it: with shape.one_shape the build
    // copies only the positions, and the search broadcasts the weight, radius, group and mask.
    sinew__materials shape;
} sinew__grid;

// Contacts are made for pairs closer than SINEW__CONTACT_REACH times the sum of their radii:
// speculative contacts, inactive until the pair overlaps, so that an overlap made by another
// correction during the iterations is solved in the same sub-step.
#define SINEW__CONTACT_REACH 1.1f

// A contact still touches after the solve within this fraction of the radii (see in_play).
#define SINEW__TOUCH_SLACK 1e-3f

#define SINEW__GUARD 1e-30f // added to a divisor that is 0 only when what it divides is 0

// Friction and the velocity clamp of one contact, from its normal n (i to j), the relative
// displacement of j against i before the solve (rel0) and after it (rel). Writes the change of the
// relative displacement due to friction (f, tangential) and in all (v = f + normal clamp).
SINEW_FORCE_INLINE void sinew__contact_response(float nx, float ny, float rel0x, float rel0y, float relx, float rely,
                                         float mu_s, float mu_k, float *fx, float *fy, float *vx, float *vy)
{
    const float before = rel0x * nx + rel0y * ny, after = relx * nx + rely * ny;
    // What the solve added along the normal (the normal impulse times h) sets the friction cone.
    float push = after - before;
    push = push > 0.0f ? push : 0.0f;
    // The solve may stop an approach, never start a separation: pushing overlap out is no bounce.
    const float limit = before > 0.0f ? before : 0.0f;
    float excess = after - limit;
    excess = excess > 0.0f ? excess : 0.0f;
    // Static friction cancels the tangential motion inside the cone mu_s * push; kinetic takes off
    // mu_k * push of it.
    const float tx = relx - after * nx, ty = rely - after * ny;
    const float t = sqrtf(tx * tx + ty * ty);
    float kinetic = mu_k * push / (t + SINEW__GUARD);
    kinetic = kinetic < 1.0f ? kinetic : 1.0f;
    const float f = t < mu_s * push ? 1.0f : kinetic;
    *fx = -f * tx;
    *fy = -f * ty;
    *vx = *fx - excess * nx;
    *vy = *fy - excess * ny;
}

// grid.c: the uniform grid of colliding particles.
// Rebuilds the grid at the current positions, with a motion margin that covers `ahead` more
// sub-steps like the last one plus `extra` metres (0, 0: exact, for this sub-step or a query).
// The margin may not pass SINEW__MARGIN_LIMIT times the largest radius (the cells would grow too
// large): it then covers fewer sub-steps, grid.ahead of them (0: this one only). Returns false
// when it could not grow (memory). Places (sinew__grid_place), then sorts (sinew__grid_sort).
bool sinew__grid_build(sinew_world *world, int ahead, float extra);
// The build in two parts: the grid's bounds, margin, cells and each particle's cell, then the
// counting sort by cell and the sorted copies. The sort runs on one thread, so a stage that needs
// neither (the collider marks) can run `beside` it over the workers (NULL: none). grid.margin and
// grid.ahead are known after the first part; the grid is valid after the second.
bool sinew__grid_place(sinew_world *world, int ahead, float extra);
void sinew__grid_sort(sinew_world *world, const sinew__job *beside);
#define SINEW__MARGIN_LIMIT 0.5f
void sinew__grid_free(sinew_world *world);
// Cell coordinate of v along an axis, clamped to [0, n - 1] before any conversion to int (a query
// box of 1e9 metres, or rounding at the far edge, must not overflow; NaN gives 0). Written so
// that loops over particles vectorise: no floorf (every negative coordinate gives 0, and on the
// others the conversion's truncation is the floor) and no conversion under a condition (the value
// converted is clamped first, so it cannot trap).
static inline int sinew__grid_cell(float v, float origin, float inv_cell, int n)
{
    const float c = (v - origin) * inv_cell, top = (float)(n - 1);
    const int within = (int)(c >= 0.0f ? (c < top ? c : top) : 0.0f);
    return c >= top ? n - 1 : within;
}

// contact.c: particle-particle contacts.
// Contacts per tile of Gauss-Seidel's order (see color_and_sort in contact.c, and why this size).
#define SINEW__TILE_CONTACTS 65536
void sinew__contacts_find(sinew_world *world, bool color);
// At a sub-step that does not search: moves the pending contacts now within the contact reach (at
// the predicted positions) to the end of the solved ones, where Gauss-Seidel takes them one by one.
void sinew__contacts_promote(sinew_world *world);

// contact_response.c: the contacts' friction and velocity clamp.
// After the sub-step is finished (particles.motion packed): friction (moves positions and
// velocities) and the velocity clamp (velocities only) of every contact, in one pass, the
// Gauss-Seidel way: it changes the motion records (sinew__particles_unpack_motion copies them
// back). Jacobi's response runs through sinew__contacts_jacobi (below).
void sinew__contacts_respond(sinew_world *world);
// Jacobi's response of contacts [from, to) (from a multiple of SINEW__LANES): sums into acc
// (velocity) and jacobi_x, jacobi_y (position), scaled by particles.inv_n; and the count of the
// contacts that respond (see in_play in contact_response.c) on each particle into particles.inv_n.
// Ends held as e says (NULL: none).
void sinew__contacts_respond_range(sinew_world *world, int from, int to, sinew__ends *e);
void sinew__contacts_count_range(sinew_world *world, int from, int to, sinew__ends *e);

// contact_jacobi.c: Jacobi's four passes over the particle contacts (see sinew__contact_split).
typedef enum sinew__jacobi_pass {
    SINEW__JACOBI_ACTIVE,     // the count of active contacts (sinew__links_count_active_range)
    SINEW__JACOBI_ACCUMULATE, // their corrections, times omega (sinew__links_accumulate_range)
    SINEW__JACOBI_IN_PLAY,    // the count of contacts that respond (sinew__contacts_count_range)
    SINEW__JACOBI_RESPOND     // the response (sinew__contacts_respond_range)
} sinew__jacobi_pass;
void sinew__contacts_jacobi(sinew_world *world, sinew__jacobi_pass pass, float omega);
// After a Jacobi search: splits its contacts when there are workers and enough of them (else, or
// without memory for the slots, the passes run on one thread: the same bits).
void sinew__contacts_split(sinew_world *world);
void sinew__contacts_split_free(sinew_world *world);

// overlap.c: the contact speed. At the end of a step, from how many of its `contacts` (particle
// and collider contacts) are `deep` (overlapping by more than contact_speed * h): whether the next
// step bounds velocities (world->deep_watch). A world that never watches steps exactly as one
// without the bound, to the bit.
#define SINEW__DEEP_SHARE 0.25f
void sinew__overlap_watch(sinew_world *world, int deep, int contacts);

// collider.c: static colliders and particle-collider contacts.
// When every collider is a half-plane: the marking pass of the particles that may get a contact
// within `margin` (m) as a job to run, into *job, and true (false: no colliders, or some other
// shape; nothing to run). It writes particles.near_plane only.
bool sinew__collider_marks(sinew_world *world, float margin, sinew__job *job);
// Finds the contacts of every particle within `margin` (m) beyond the contact reach of a collider;
// `marked`: the marks of sinew__collider_marks with that margin ran, and only the marked particles
// are looked at.
void sinew__collider_contacts_find(sinew_world *world, float margin, bool marked);
// Recomputes, at the current positions, the contact planes of curved or finite colliders found
// by an earlier sinew__collider_contacts_find (a half-plane's never changes).
void sinew__collider_contacts_refresh(sinew_world *world);
// The contact response against colliders; with Gauss-Seidel it moves the particles and returns
// whether one left the range (Jacobi sums it, and returns false).
bool sinew__collider_contacts_respond(sinew_world *world, bool jacobi);
void sinew__collider_contacts_count(sinew_world *world);
void sinew__colliders_free(sinew_world *world);
// Snapshots: the colliders (see sinew__kind_ops.save / load).
void sinew__colliders_save(const sinew_world *world, sinew__writer *w);
bool sinew__colliders_load(sinew_world *world, sinew__reader *r);

// events.c: contact events. A touch, keyed by the pair's ids (lower particle first; a collider's
// key has the top bit set), with what a begin event reports.
typedef struct sinew__touch {
    uint64_t a, b;
    float px, py, nx, ny, speed;
} sinew__touch;

typedef struct sinew__events {
    bool enabled;            // some particle ever had SINEW_PARTICLE_EVENTS: steps look for touches
    void *block;
    size_t block_bytes;
    int capacity;            // of each array below
    sinew__touch *prev, *now; // the touches at the end of the last step, sorted; scratch for this one
    int prev_count;
    sinew_contact_begin_event *begin;
    sinew_contact_end_event *end;
    int begin_count, end_count;
} sinew__events;

// At the start of a step: keeps every particle's velocity (the approach speeds of begin events).
void sinew__events_begin_step(sinew_world *world);
// At the end of a step: the touches now, against the last step's: begin and end events.
void sinew__events_update(sinew_world *world);
void sinew__events_free(sinew_world *world);
void sinew__events_save(const sinew_world *world, sinew__writer *w);
bool sinew__events_load(sinew_world *world, sinew__reader *r);
