// Scene builders: the shared build machinery, ropes and cloth. A failed build destroys what it
// made. Soft bodies are in softbody.c, ball piles in pile.c.
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

#define SINEW__MAX_ROPE_LINKS (1 << 24)
#define SINEW__MAX_CLOTH_SIDE 4096

// ---- build machinery --------------------------------------------------------------------------

// Whether `more` of a kind fit under a limit (0 = none), computed without overflow.
static bool within_limit(int limit, int count, int more) { return limit <= 0 || (int64_t)count + more <= limit; }

bool sinew__build_begin(sinew__build *b, sinew_world *world, const sinew_scene_counts *counts, sinew_particle_id *ids)
{
    const int particles = counts->particles, distances = counts->distances;
    *b = (sinew__build){world, ids, NULL, particles, 0, SINEW_OK, world->particles.count, {0}};
    for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
        b->kinds_before[sinew__kinds[t]->kind] = sinew__kinds[t]->count(world);
    }
    const int limit = world->max_constraints;
    if (!within_limit(world->max_particles, world->particles.count, particles) ||
        !within_limit(limit, world->distances.l.count, distances) ||
        !within_limit(limit, world->angles.count, counts->angles) ||
        !within_limit(limit, world->areas.count, counts->areas) || !within_limit(limit, world->pins.count, counts->pins)) {
        b->status = sinew__fail(world, SINEW_ERR_CAPACITY, "scene builder: the world's max_particles or max_constraints "
                                                           "would be passed");
        return false;
    }
    b->status = sinew__particles_reserve(world, world->particles.count + particles);
    if (b->status == SINEW_OK) {
        b->status = sinew__distances_reserve(world, world->distances.l.count + distances);
    }
    if (b->status == SINEW_OK && ids == NULL && particles > 0) {
        b->tmp = sinew__alloc(world, sizeof(sinew_particle_id) * (size_t)particles);
        b->status = b->tmp != NULL ? SINEW_OK : SINEW_ERR_OUT_OF_MEMORY;
        b->ids = b->tmp;
    }
    if (b->status != SINEW_OK) {
        sinew__fail(world, b->status, "scene builder: reserving memory failed");
    }
    return b->status == SINEW_OK;
}

int sinew__build_particle(sinew__build *b, const sinew_particle_def *def, bool pinned, sinew_pin_id *pin)
{
    if (b->status != SINEW_OK) {
        return -1;
    }
    sinew_particle_def p = *def;
    p.weight = pinned ? 0.0f : def->weight;
    sinew_particle_id id;
    b->status = sinew_particle_create(b->world, &p, &id);
    if (b->status != SINEW_OK) {
        return -1;
    }
    const int k = b->made++;
    b->ids[k] = id;
    if (pinned) {
        sinew_pin_def pd = sinew_default_pin_def();
        pd.particle = id;
        pd.target = def->position;
        sinew_pin_id made;
        b->status = sinew_pin_create(b->world, &pd, &made); // on failure the particle goes in build_end
        if (b->status == SINEW_OK && pin != NULL) {
            *pin = made;
        }
    }
    return b->status == SINEW_OK ? k : -1;
}

sinew_distance_id sinew__build_link(sinew__build *b, int a, int c, const sinew_distance_def *proto)
{
    sinew_distance_id id = SINEW_NULL_ID;
    if (b->status == SINEW_OK) {
        sinew_distance_def d = *proto;
        d.a = b->ids[a];
        d.b = b->ids[c];
        b->status = sinew_distance_create(b->world, &d, &id);
    }
    return id;
}

sinew_status sinew__build_end(sinew__build *b)
{
    if (b->status != SINEW_OK) { // back to what the world held, in time linear in what was made
        for (int t = 0; t < SINEW_KIND_COUNT; ++t) {
            if (sinew__kinds[t]->truncate != NULL) {
                sinew__kinds[t]->truncate(b->world, b->kinds_before[sinew__kinds[t]->kind]);
            }
        }
        sinew__particles_truncate(b->world, b->particles_before);
    }
    sinew__free(b->world, b->tmp, sizeof(sinew_particle_id) * (size_t)b->capacity);
    return b->status;
}

const char *sinew__material_problem(float weight, float radius, float stiffness, float compliance, sinew_status *status)
{
    if (!sinew__finite(weight) || !sinew__finite(radius) || !sinew__finite(stiffness) || !sinew__finite(compliance)) {
        *status = SINEW_ERR_NOT_FINITE;
        return "builder def: weight, radius, stiffness, compliance must be finite";
    }
    if (!(weight > 0.0f) || radius < 0.0f || radius > SINEW_MAX_COORDINATE || stiffness < 0.0f || stiffness > 1.0f ||
        compliance < 0.0f) {
        *status = SINEW_ERR_OUT_OF_RANGE;
        return "builder def: weight > 0, radius in [0, SINEW_MAX_COORDINATE], stiffness in [0, 1], compliance >= 0 "
               "required";
    }
    return NULL;
}

bool sinew__counts_start(sinew_scene_counts *c, bool have_def, const char *problem, sinew_status status)
{
    *c = (sinew_scene_counts){0};
    c->status = !have_def ? SINEW_ERR_NULL_ARGUMENT : (problem != NULL ? status : SINEW_OK);
    c->reason = problem != NULL ? problem : "";
    return c->status == SINEW_OK;
}

bool sinew__extent_ok(double x0, double y0, double x1, double y1)
{
    const double m = SINEW_MAX_COORDINATE;
    return fabs(x0) <= m && fabs(y0) <= m && fabs(x1) <= m && fabs(y1) <= m;
}

static bool unit_interval(float v) { return sinew__finite(v) && v >= 0.0f && v <= 1.0f; }

// ---- rope -------------------------------------------------------------------------------------

sinew_rope_def sinew_default_rope_def(void)
{
    sinew_rope_def def = {0};
    def.end = sinew_vec2_make(10.0f, 0.0f);
    def.links = 40;
    def.weight = 1.0f;
    def.radius = 0.05f;
    def.pin_start = true;
    def.mode = SINEW_DISTANCE_EQUAL;
    def.stiffness = 1.0f;
    return def;
}

// What is wrong with a rope def, or NULL; *status gets the error.
static const char *rope_problem(const sinew_rope_def *def, sinew_status *status)
{
    if (!sinew__finite2(def->start) || !sinew__finite2(def->end) || !sinew__finite(def->bend_stiffness)) {
        *status = SINEW_ERR_NOT_FINITE;
        return "rope def: start, end and bend_stiffness must be finite";
    }
    const char *problem = sinew__material_problem(def->weight, def->radius, def->stiffness, def->compliance, status);
    if (problem != NULL) {
        return problem;
    }
    *status = SINEW_ERR_OUT_OF_RANGE;
    if (def->mode != SINEW_DISTANCE_EQUAL && def->mode != SINEW_DISTANCE_MAX_ONLY && def->mode != SINEW_DISTANCE_MIN_ONLY) {
        return "rope def: unknown distance mode";
    }
    if (def->links < 1 || def->links > SINEW__MAX_ROPE_LINKS || !unit_interval(def->bend_stiffness)) {
        return "rope def: links in 1..2^24, bend_stiffness in [0, 1]";
    }
    if (!sinew__extent_ok(def->start.x, def->start.y, def->end.x, def->end.y) ||
        !(hypot((double)def->end.x - def->start.x, (double)def->end.y - def->start.y) <= SINEW_MAX_COORDINATE)) {
        return "rope def: start and end within SINEW_MAX_COORDINATE, and no farther apart than it (a link's rest length)";
    }
    return NULL;
}

// Tethers of particle k: one to each pinned end it is not.
static int rope_tethers_of(const sinew_rope_def *def, int k)
{
    if (!def->tethers) {
        return 0;
    }
    return (def->pin_start && k != 0) + (def->pin_end && k != def->links);
}

sinew_scene_counts sinew_rope_counts(const sinew_rope_def *def)
{
    sinew_status status = SINEW_OK;
    const char *problem = def != NULL ? rope_problem(def, &status) : "sinew_rope_counts: def is required";
    sinew_scene_counts c;
    if (!sinew__counts_start(&c, def != NULL, problem, status)) {
        return c;
    }
    const int n = def->links;
    c.particles = n + 1;
    c.distances = n;
    for (int k = 0; k <= n; ++k) {
        c.distances += rope_tethers_of(def, k);
    }
    c.angles = def->bend_stiffness > 0.0f ? n - 1 : 0;
    c.pins = (int)def->pin_start + (int)def->pin_end;
    return c;
}

sinew_status sinew_rope_create(sinew_world *world, const sinew_rope_def *def, sinew_rope *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_rope_create: world and def are required");
    }
    sinew_status s;
    const char *problem = rope_problem(def, &s);
    if (problem != NULL) {
        return sinew__fail(world, s, problem);
    }
    const sinew_scene_counts counts = sinew_rope_counts(def);
    const int n = def->links;
    sinew__build b;
    if (!sinew__build_begin(&b, world, &counts, out != NULL ? out->particles : NULL)) {
        return b.status;
    }
    sinew_pin_id pins[2] = {SINEW_NULL_ID, SINEW_NULL_ID};
    sinew_particle_def p = sinew_default_particle_def();
    p.weight = def->weight;
    p.radius = def->radius;
    p.flags = def->particle_flags;
    for (int k = 0; k <= n; ++k) {
        p.position = sinew_vec2_lerp(def->start, def->end, (float)k / (float)n);
        const bool pinned = (k == 0 && def->pin_start) || (k == n && def->pin_end);
        sinew__build_particle(&b, &p, pinned, &pins[k == 0 ? 0 : 1]);
    }
    sinew_distance_def link = sinew_default_distance_def();
    link.mode = def->mode;
    link.stiffness = def->stiffness;
    link.compliance = def->compliance;
    // Even links first, then odd: neighbours in the sweep share no particle (see docs/solver.md).
    for (int parity = 0; parity < 2; ++parity) {
        for (int k = parity; k < n; k += 2) {
            sinew_distance_id id = sinew__build_link(&b, k, k + 1, &link);
            if (out != NULL && out->links != NULL && b.status == SINEW_OK) {
                out->links[k] = id;
            }
        }
    }
    for (int k = 1; k < n && def->bend_stiffness > 0.0f && b.status == SINEW_OK; ++k) {
        sinew_angle_def ad = sinew_default_angle_def();
        ad.a = b.ids[k - 1];
        ad.b = b.ids[k];
        ad.c = b.ids[k + 1];
        ad.stiffness = def->bend_stiffness;
        sinew_angle_id id;
        b.status = sinew_angle_create(world, &ad, &id);
        if (out != NULL && out->bends != NULL && b.status == SINEW_OK) {
            out->bends[k - 1] = id;
        }
    }
    // Tethers: max-only links to each pinned end at the rest path length along the rope.
    sinew_distance_def tether = sinew_default_distance_def();
    tether.mode = SINEW_DISTANCE_MAX_ONLY;
    const float link_length = sinew_vec2_distance(def->start, def->end) / (float)n;
    int made_tethers = 0;
    for (int k = 0; k <= n && def->tethers; ++k) {
        for (int end = 0; end < 2; ++end) {
            const int anchor = end == 0 ? 0 : n;
            if (!(end == 0 ? def->pin_start : def->pin_end) || anchor == k) {
                continue;
            }
            tether.rest = fminf(link_length * (float)abs(k - anchor), SINEW_MAX_COORDINATE); // rounding at the limit
            sinew_distance_id id = sinew__build_link(&b, k, anchor, &tether);
            if (out != NULL && out->tethers != NULL && b.status == SINEW_OK) {
                out->tethers[made_tethers] = id;
            }
            made_tethers += b.status == SINEW_OK;
        }
    }
    if (b.status == SINEW_OK && out != NULL) {
        out->start_pin = def->pin_start ? pins[0] : (sinew_pin_id)SINEW_NULL_ID;
        out->end_pin = def->pin_end ? pins[1] : (sinew_pin_id)SINEW_NULL_ID;
    }
    return sinew__build_end(&b);
}

// ---- cloth ------------------------------------------------------------------------------------

sinew_cloth_def sinew_default_cloth_def(void)
{
    sinew_cloth_def def = {0};
    def.columns = 20;
    def.rows = 20;
    def.spacing = 0.25f;
    def.weight = 1.0f;
    def.radius = 0.05f;
    def.pin = SINEW_CLOTH_PIN_TOP_ROW;
    def.stiffness = 1.0f;
    def.structural = true;
    def.bend_stiffness = 0.5f;
    return def;
}

sinew_cloth_def sinew_default_jelly_def(void)
{
    sinew_cloth_def def = sinew_default_cloth_def();
    def.columns = 8;
    def.rows = 8;
    def.pin = SINEW_CLOTH_PIN_NONE;
    def.shear = true;
    def.radius = 0.1f;
    def.particle_flags = SINEW_PARTICLE_COLLIDES;
    return def;
}

// What is wrong with a cloth def, or NULL; *status gets the error.
static const char *cloth_problem(const sinew_cloth_def *def, sinew_status *status)
{
    if (!sinew__finite2(def->origin) || !sinew__finite(def->spacing) || !sinew__finite(def->bend_stiffness) ||
        !sinew__finite(def->tear_ratio)) {
        *status = SINEW_ERR_NOT_FINITE;
        return "cloth def: origin, spacing, bend_stiffness, tear_ratio must be finite";
    }
    const char *problem = sinew__material_problem(def->weight, def->radius, def->stiffness, def->compliance, status);
    if (problem != NULL) {
        return problem;
    }
    *status = SINEW_ERR_OUT_OF_RANGE;
    if (def->columns < 1 || def->rows < 1 || def->columns > SINEW__MAX_CLOTH_SIDE || def->rows > SINEW__MAX_CLOTH_SIDE ||
        def->columns * def->rows < 2 || !(def->spacing > 0.0f) || !unit_interval(def->bend_stiffness) ||
        (def->tear_ratio != 0.0f && !(def->tear_ratio > 1.0f)) ||
        (def->pin != SINEW_CLOTH_PIN_NONE && def->pin != SINEW_CLOTH_PIN_TOP_ROW && def->pin != SINEW_CLOTH_PIN_TOP_CORNERS)) {
        return "cloth def: columns and rows in 1..4096 (2 particles at least), spacing > 0, bend_stiffness in [0, 1], "
               "tear_ratio 0 or > 1, known pin";
    }
    if (!sinew__extent_ok(def->origin.x, def->origin.y, def->origin.x + (double)def->spacing * (def->columns - 1),
                          def->origin.y - (double)def->spacing * (def->rows - 1)) ||
        !((double)def->spacing * hypot(def->columns - 1, def->rows - 1) <= SINEW_MAX_COORDINATE)) {
        return "cloth def: every particle within SINEW_MAX_COORDINATE, and its diagonal (a tether's rest length) no longer";
    }
    return NULL;
}

static bool cloth_pinned(const sinew_cloth_def *def, int r, int c)
{
    if (r != 0) {
        return false;
    }
    return def->pin == SINEW_CLOTH_PIN_TOP_ROW ||
           (def->pin == SINEW_CLOTH_PIN_TOP_CORNERS && (c == 0 || c == def->columns - 1));
}

// Visits every cloth link in creation order, leaving out links whose two ends are pinned. Each
// family is made in passes whose links share no particle, so Gauss-Seidel's blocks are free:
// structural horizontal (even, odd columns), vertical (even, odd rows); shear by direction and
// row parity; bend links grouped by position mod 4. visit(ctx, a, b, family) gets particle
// indices (row-major); returns false to stop. Returns the number of links.
enum { STRUCTURAL, SHEAR, BEND };
typedef bool (*link_visitor)(void *ctx, int a, int b, int family);

static int cloth_links(const sinew_cloth_def *def, link_visitor visit, void *ctx)
{
    const int W = def->columns, H = def->rows;
    int count = 0;
#define CLOTH_LINK(r0, c0, r1, c1, family)                                                          \
    do {                                                                                          \
        if (!(cloth_pinned(def, (r0), (c0)) && cloth_pinned(def, (r1), (c1)))) {                   \
            if (visit != NULL && !visit(ctx, (r0) * W + (c0), (r1) * W + (c1), (family))) {        \
                return -1;                                                                        \
            }                                                                                     \
            ++count;                                                                              \
        }                                                                                         \
    } while (0)
    if (def->structural) {
        for (int parity = 0; parity < 2; ++parity) {
            for (int r = 0; r < H; ++r) {
                for (int c = parity; c + 1 < W; c += 2) {
                    CLOTH_LINK(r, c, r, c + 1, STRUCTURAL);
                }
            }
        }
        for (int parity = 0; parity < 2; ++parity) {
            for (int r = parity; r + 1 < H; r += 2) {
                for (int c = 0; c < W; ++c) {
                    CLOTH_LINK(r, c, r + 1, c, STRUCTURAL);
                }
            }
        }
    }
    if (def->shear) {
        for (int dir = 0; dir < 2; ++dir) {
            for (int parity = 0; parity < 2; ++parity) {
                for (int r = parity; r + 1 < H; r += 2) {
                    for (int c = 0; c + 1 < W; ++c) {
                        if (dir == 0) {
                            CLOTH_LINK(r, c, r + 1, c + 1, SHEAR);
                        } else {
                            CLOTH_LINK(r, c + 1, r + 1, c, SHEAR);
                        }
                    }
                }
            }
        }
    }
    if (def->bend) {
        for (int group = 0; group < 2; ++group) { // position mod 4 in {0, 1}, then {2, 3}
            for (int r = 0; r < H; ++r) {
                for (int c = 0; c + 2 < W; ++c) {
                    if ((c % 4 >= 2) == (group == 1)) {
                        CLOTH_LINK(r, c, r, c + 2, BEND);
                    }
                }
            }
            for (int r = 0; r + 2 < H; ++r) {
                if ((r % 4 >= 2) != (group == 1)) {
                    continue;
                }
                for (int c = 0; c < W; ++c) {
                    CLOTH_LINK(r, c, r + 2, c, BEND);
                }
            }
        }
    }
#undef CLOTH_LINK
    return count;
}

// The pinned particle nearest a particle of column c, by rest distance (the leftmost of equals);
// -1 when nothing is pinned. Every pin is in row 0, so the nearest pin to a particle of any row is
// the one of the nearest column, found in closed form (a search over the top row for every
// particle made a wide cloth's tethers quadratic).
static int cloth_anchor(const sinew_cloth_def *def, int c)
{
    switch (def->pin) {
    case SINEW_CLOTH_PIN_TOP_ROW:
        return c;
    case SINEW_CLOTH_PIN_TOP_CORNERS: {
        const int right = def->columns - 1;
        return (long)(right - c) * (right - c) < (long)c * c ? right : 0;
    }
    default:
        return -1;
    }
}

sinew_scene_counts sinew_cloth_counts(const sinew_cloth_def *def)
{
    sinew_status status = SINEW_OK;
    const char *problem = def != NULL ? cloth_problem(def, &status) : "sinew_cloth_counts: def is required";
    sinew_scene_counts c;
    if (!sinew__counts_start(&c, def != NULL, problem, status)) {
        return c;
    }
    c.particles = def->columns * def->rows;
    c.distances = cloth_links(def, NULL, NULL);
    for (int k = 0; k < def->columns; ++k) {
        c.pins += cloth_pinned(def, 0, k);
    }
    if (def->tethers && c.pins > 0) {
        c.distances += c.particles - c.pins; // every free particle, to its nearest pin
    }
    return c;
}

typedef struct cloth_ctx {
    sinew__build *b;
    const sinew_cloth_def *def;
    sinew_distance_id *links;
    int made;
} cloth_ctx;

static bool cloth_visit(void *p, int a, int c, int family)
{
    cloth_ctx *ctx = p;
    sinew_distance_def d = sinew_default_distance_def();
    d.stiffness = family == BEND ? ctx->def->bend_stiffness : ctx->def->stiffness;
    d.compliance = family == BEND ? 0.0f : ctx->def->compliance;
    d.tear_ratio = family == BEND ? 0.0f : ctx->def->tear_ratio;
    sinew_distance_id id = sinew__build_link(ctx->b, a, c, &d);
    if (ctx->b->status != SINEW_OK) {
        return false;
    }
    if (ctx->links != NULL) {
        ctx->links[ctx->made] = id;
    }
    ctx->made += 1;
    return true;
}

sinew_status sinew_cloth_create(sinew_world *world, const sinew_cloth_def *def, sinew_cloth *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_cloth_create: world and def are required");
    }
    sinew_status s;
    const char *problem = cloth_problem(def, &s);
    if (problem != NULL) {
        return sinew__fail(world, s, problem);
    }
    const sinew_scene_counts counts = sinew_cloth_counts(def);
    sinew__build b;
    if (!sinew__build_begin(&b, world, &counts, out != NULL ? out->particles : NULL)) {
        return b.status;
    }
    sinew_particle_def p = sinew_default_particle_def();
    p.weight = def->weight;
    p.radius = def->radius;
    p.flags = def->particle_flags;
    int pins_made = 0;
    for (int r = 0; r < def->rows; ++r) {
        for (int c = 0; c < def->columns; ++c) {
            p.position = sinew_vec2_make(def->origin.x + def->spacing * (float)c, def->origin.y - def->spacing * (float)r);
            const bool pinned = cloth_pinned(def, r, c);
            sinew_pin_id pin = SINEW_NULL_ID;
            sinew__build_particle(&b, &p, pinned, &pin);
            if (pinned && out != NULL && out->pins != NULL && b.status == SINEW_OK) {
                out->pins[pins_made] = pin;
            }
            pins_made += pinned;
        }
    }
    cloth_ctx ctx = {&b, def, out != NULL ? out->links : NULL, 0};
    if (b.status == SINEW_OK) {
        cloth_links(def, cloth_visit, &ctx);
    }
    // Tethers: each free particle, no farther from its nearest pin than in the flat rest pose.
    sinew_distance_def tether = sinew_default_distance_def();
    tether.mode = SINEW_DISTANCE_MAX_ONLY;
    for (int r = 0; r < def->rows && def->tethers && b.status == SINEW_OK; ++r) {
        for (int c = 0; c < def->columns; ++c) {
            const int anchor = cloth_anchor(def, c);
            if (anchor < 0 || cloth_pinned(def, r, c)) {
                continue;
            }
            tether.rest = fminf(def->spacing * sqrtf((float)(r * r + (c - anchor) * (c - anchor))), SINEW_MAX_COORDINATE);
            sinew_distance_id id = sinew__build_link(&b, r * def->columns + c, anchor, &tether);
            if (ctx.links != NULL && b.status == SINEW_OK) {
                ctx.links[ctx.made] = id;
            }
            ctx.made += b.status == SINEW_OK;
        }
    }
    return sinew__build_end(&b);
}
