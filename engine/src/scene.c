// Scene builders over the public API: ropes, cloth, ball piles. A failed build destroys what it made.
#include <string.h>

#include "world_internal.h"

#define SINEW__MAX_ROPE_LINKS (1 << 24)
#define SINEW__MAX_CLOTH_SIDE 4096

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
    return def;
}

// Destroys the first `count` particles of `ids` (their constraints go with them).
static void rollback(sinew_world *world, const sinew_particle_id *ids, int count)
{
    for (int k = count - 1; k >= 0; --k) {
        sinew_particle_destroy(world, ids[k]);
    }
}

// Checks the fields every builder shares.
static sinew_status check_common(sinew_world *world, float weight, float radius, float stiffness, float compliance)
{
    if (!sinew__finite(weight) || !sinew__finite(radius) || !sinew__finite(stiffness) || !sinew__finite(compliance)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "builder def: weight, radius, stiffness, compliance must be finite");
    }
    if (!(weight > 0.0f) || radius < 0.0f || stiffness < 0.0f || stiffness > 1.0f || compliance < 0.0f) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE,
                           "builder def: weight > 0, radius >= 0, stiffness in [0, 1], compliance >= 0 required");
    }
    return SINEW_OK;
}

// Makes one particle, pinned (weight 0 plus a kinematic pin) when asked.
static sinew_status make_particle(sinew_world *world, sinew_vec2 at, float weight, float radius, uint32_t flags,
                                  bool pinned, sinew_particle_id *id, sinew_pin_id *pin)
{
    sinew_particle_def p = sinew_default_particle_def();
    p.position = at;
    p.weight = pinned ? 0.0f : weight;
    p.radius = radius;
    p.flags = flags;
    sinew_status s = sinew_particle_create(world, &p, id);
    if (s != SINEW_OK || !pinned) {
        return s;
    }
    sinew_pin_def pd = sinew_default_pin_def();
    pd.particle = *id;
    pd.target = at;
    s = sinew_pin_create(world, &pd, pin);
    if (s != SINEW_OK) {
        sinew_particle_destroy(world, *id);
    }
    return s;
}

static sinew_status make_link(sinew_world *world, sinew_particle_id a, sinew_particle_id b, sinew_distance_mode mode,
                              float stiffness, float compliance, sinew_distance_id *out)
{
    sinew_distance_def d = sinew_default_distance_def();
    d.a = a;
    d.b = b;
    d.mode = mode;
    d.stiffness = stiffness;
    d.compliance = compliance;
    return sinew_distance_create(world, &d, out);
}

void sinew_rope_counts(const sinew_rope_def *def, int *particles, int *links)
{
    // Defs the builder refuses count as nothing (and cannot overflow).
    int n = def != NULL && def->links >= 1 && def->links <= SINEW__MAX_ROPE_LINKS ? def->links : 0;
    if (particles != NULL) {
        *particles = n > 0 ? n + 1 : 0;
    }
    if (links != NULL) {
        *links = n;
    }
}

sinew_status sinew_rope_create(sinew_world *world, const sinew_rope_def *def, sinew_rope *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_rope_create: world and def are required");
    }
    if (!sinew__finite2(def->start) || !sinew__finite2(def->end)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "rope def: start and end must be finite");
    }
    sinew_status s = check_common(world, def->weight, def->radius, def->stiffness, def->compliance);
    if (s != SINEW_OK) {
        return s;
    }
    if (def->mode != SINEW_DISTANCE_EQUAL && def->mode != SINEW_DISTANCE_MAX_ONLY && def->mode != SINEW_DISTANCE_MIN_ONLY) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "rope def: unknown distance mode");
    }
    if (def->links < 1 || def->links > SINEW__MAX_ROPE_LINKS) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE, "rope def: links must be in 1..2^24");
    }
    const int n = def->links;
    s = sinew__particles_reserve(world, world->particles.count + n + 1);
    if (s == SINEW_OK) {
        s = sinew__distances_reserve(world, world->distances.l.count + n);
    }
    // The particle ids go to the caller's array when given, else to a temporary one.
    sinew_particle_id *ids = out != NULL && out->particles != NULL ? out->particles : NULL;
    sinew_particle_id *tmp = NULL;
    if (s == SINEW_OK && ids == NULL) {
        tmp = sinew__alloc(world, sizeof(sinew_particle_id) * (size_t)(n + 1));
        s = tmp != NULL ? SINEW_OK : SINEW_ERR_OUT_OF_MEMORY;
        ids = tmp;
    }
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_rope_create: reserving memory failed");
    }
    sinew_pin_id pins[2] = {SINEW_NULL_ID, SINEW_NULL_ID};
    int made = 0;
    for (int k = 0; k <= n && s == SINEW_OK; ++k) {
        bool pinned = (k == 0 && def->pin_start) || (k == n && def->pin_end);
        sinew_vec2 at = sinew_vec2_lerp(def->start, def->end, (float)k / (float)n);
        s = make_particle(world, at, def->weight, def->radius, def->particle_flags, pinned, &ids[k],
                          &pins[k == 0 ? 0 : 1]);
        made += s == SINEW_OK;
    }
    // Even links first, then odd: neighbours in the sweep share no particle (see docs/solver.md).
    for (int parity = 0; parity < 2 && s == SINEW_OK; ++parity) {
        for (int k = parity; k < n && s == SINEW_OK; k += 2) {
            sinew_distance_id link;
            s = make_link(world, ids[k], ids[k + 1], def->mode, def->stiffness, def->compliance, &link);
            if (s == SINEW_OK && out != NULL && out->links != NULL) {
                out->links[k] = link;
            }
        }
    }
    if (s != SINEW_OK) {
        rollback(world, ids, made);
    } else if (out != NULL) {
        out->start_pin = def->pin_start ? pins[0] : (sinew_pin_id)SINEW_NULL_ID;
        out->end_pin = def->pin_end ? pins[1] : (sinew_pin_id)SINEW_NULL_ID;
    }
    sinew__free(world, tmp, sizeof(sinew_particle_id) * (size_t)(n + 1));
    return s;
}

static bool cloth_pinned(const sinew_cloth_def *def, int r, int c)
{
    if (r != 0) {
        return false;
    }
    return def->pin == SINEW_CLOTH_PIN_TOP_ROW ||
           (def->pin == SINEW_CLOTH_PIN_TOP_CORNERS && (c == 0 || c == def->columns - 1));
}

// Calls visit(r0, c0, r1, c1) for every cloth link in creation order: horizontal links of even
// then odd columns, then vertical links of even then odd rows, leaving out links whose two ends
// are pinned. Consecutive links share no particle. Returns the number of links.
typedef bool (*link_visitor)(void *ctx, int a, int b);
static int cloth_links(const sinew_cloth_def *def, link_visitor visit, void *ctx)
{
    const int W = def->columns, H = def->rows;
    int count = 0;
    for (int parity = 0; parity < 2; ++parity) {
        for (int r = 0; r < H; ++r) {
            for (int c = parity; c + 1 < W; c += 2) {
                if (cloth_pinned(def, r, c) && cloth_pinned(def, r, c + 1)) {
                    continue;
                }
                if (visit != NULL && !visit(ctx, r * W + c, r * W + c + 1)) {
                    return -1;
                }
                ++count;
            }
        }
    }
    for (int parity = 0; parity < 2; ++parity) {
        for (int r = parity; r + 1 < H; r += 2) {
            for (int c = 0; c < W; ++c) {
                if (cloth_pinned(def, r, c) && cloth_pinned(def, r + 1, c)) {
                    continue;
                }
                if (visit != NULL && !visit(ctx, r * W + c, (r + 1) * W + c)) {
                    return -1;
                }
                ++count;
            }
        }
    }
    return count;
}

void sinew_cloth_counts(const sinew_cloth_def *def, int *particles, int *links, int *pins)
{
    // Defs the builder refuses count as nothing (and cannot overflow).
    bool ok = def != NULL && def->columns >= 1 && def->rows >= 1 && def->columns <= SINEW__MAX_CLOTH_SIDE &&
              def->rows <= SINEW__MAX_CLOTH_SIDE;
    int np = 0;
    for (int c = 0; ok && c < def->columns; ++c) {
        np += cloth_pinned(def, 0, c);
    }
    if (particles != NULL) {
        *particles = ok ? def->columns * def->rows : 0;
    }
    if (links != NULL) {
        *links = ok ? cloth_links(def, NULL, NULL) : 0;
    }
    if (pins != NULL) {
        *pins = np;
    }
}

typedef struct cloth_ctx {
    sinew_world *world;
    const sinew_cloth_def *def;
    const sinew_particle_id *ids;
    sinew_distance_id *links;
    int made;
    sinew_status status;
} cloth_ctx;

static bool cloth_visit(void *p, int a, int b)
{
    cloth_ctx *ctx = p;
    sinew_distance_id link;
    ctx->status = make_link(ctx->world, ctx->ids[a], ctx->ids[b], SINEW_DISTANCE_EQUAL, ctx->def->stiffness,
                            ctx->def->compliance, &link);
    if (ctx->status != SINEW_OK) {
        return false;
    }
    if (ctx->links != NULL) {
        ctx->links[ctx->made] = link;
    }
    ctx->made += 1;
    return true;
}

sinew_status sinew_cloth_create(sinew_world *world, const sinew_cloth_def *def, sinew_cloth *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_cloth_create: world and def are required");
    }
    if (!sinew__finite2(def->origin) || !sinew__finite(def->spacing)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "cloth def: origin and spacing must be finite");
    }
    sinew_status s = check_common(world, def->weight, def->radius, def->stiffness, def->compliance);
    if (s != SINEW_OK) {
        return s;
    }
    if (def->columns < 1 || def->rows < 1 || def->columns > SINEW__MAX_CLOTH_SIDE || def->rows > SINEW__MAX_CLOTH_SIDE ||
        def->columns * def->rows < 2 || !(def->spacing > 0.0f) ||
        (def->pin != SINEW_CLOTH_PIN_NONE && def->pin != SINEW_CLOTH_PIN_TOP_ROW &&
         def->pin != SINEW_CLOTH_PIN_TOP_CORNERS)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE,
                           "cloth def: columns and rows in 1..4096 (2 particles at least), spacing > 0, known pin");
    }
    int np, nl;
    sinew_cloth_counts(def, &np, &nl, NULL);
    s = sinew__particles_reserve(world, world->particles.count + np);
    if (s == SINEW_OK) {
        s = sinew__distances_reserve(world, world->distances.l.count + nl);
    }
    sinew_particle_id *ids = out != NULL && out->particles != NULL ? out->particles : NULL;
    sinew_particle_id *tmp = NULL;
    if (s == SINEW_OK && ids == NULL) {
        tmp = sinew__alloc(world, sizeof(sinew_particle_id) * (size_t)np);
        s = tmp != NULL ? SINEW_OK : SINEW_ERR_OUT_OF_MEMORY;
        ids = tmp;
    }
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_cloth_create: reserving memory failed");
    }
    int made = 0, pins_made = 0;
    for (int r = 0; r < def->rows && s == SINEW_OK; ++r) {
        for (int c = 0; c < def->columns && s == SINEW_OK; ++c) {
            sinew_vec2 at = sinew_vec2_make(def->origin.x + def->spacing * (float)c,
                                            def->origin.y - def->spacing * (float)r);
            bool pinned = cloth_pinned(def, r, c);
            sinew_pin_id pin = SINEW_NULL_ID;
            s = make_particle(world, at, def->weight, def->radius, def->particle_flags, pinned, &ids[made], &pin);
            if (s == SINEW_OK) {
                made += 1;
                if (pinned && out != NULL && out->pins != NULL) {
                    out->pins[pins_made] = pin;
                }
                pins_made += pinned;
            }
        }
    }
    if (s == SINEW_OK) {
        cloth_ctx ctx = {world, def, ids, out != NULL ? out->links : NULL, 0, SINEW_OK};
        cloth_links(def, cloth_visit, &ctx);
        s = ctx.status;
    }
    if (s != SINEW_OK) {
        rollback(world, ids, made);
    }
    sinew__free(world, tmp, sizeof(sinew_particle_id) * (size_t)np);
    return s;
}

sinew_pile_def sinew_default_pile_def(void)
{
    sinew_pile_def def = {0};
    def.count = 100;
    def.origin = sinew_vec2_make(1.0f, 1.0f);
    def.spacing = 1.2f;
    def.row_offset = 0.3f;
    def.radius_min = 0.5f;
    def.radius_max = 0.5f;
    def.seed = 1u;
    def.weight = 1.0f;
    def.friction = 0.6f;
    def.kinetic_friction = 0.5f;
    def.container = SINEW_PILE_BOX;
    return def;
}

static sinew_status check_pile(sinew_world *world, const sinew_pile_def *def)
{
    if (!sinew__finite2(def->origin) || !sinew__finite(def->spacing) || !sinew__finite(def->row_offset) ||
        !sinew__finite(def->radius_min) || !sinew__finite(def->radius_max) || !sinew__finite(def->weight) ||
        !sinew__finite(def->friction) || !sinew__finite(def->kinetic_friction)) {
        return sinew__fail(world, SINEW_ERR_NOT_FINITE, "pile def: every number must be finite");
    }
    if (def->count < 1 || def->count > (1 << 24) || def->columns < 0 || !(def->spacing > 0.0f) ||
        !(def->radius_min > 0.0f) || def->radius_max < def->radius_min || !(def->weight > 0.0f) ||
        def->friction < 0.0f || def->kinetic_friction < 0.0f ||
        (def->container != SINEW_PILE_NONE && def->container != SINEW_PILE_BOX && def->container != SINEW_PILE_SLOPES)) {
        return sinew__fail(world, SINEW_ERR_OUT_OF_RANGE,
                           "pile def: count in 1..2^24, columns >= 0, spacing > 0, 0 < radius_min <= radius_max, "
                           "weight > 0, friction >= 0, known container");
    }
    return SINEW_OK;
}

sinew_status sinew_pile_create(sinew_world *world, const sinew_pile_def *def, sinew_pile *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_pile_create: world and def are required");
    }
    sinew_status s = check_pile(world, def);
    if (s != SINEW_OK) {
        return s;
    }
    const int n = def->count;
    const int cols = def->columns > 0 ? def->columns : (int)ceil(sqrt((double)n));
    const int rows = (n + cols - 1) / cols;
    const float left = def->origin.x - 1.0f, floor_y = def->origin.y - 1.0f;
    const float right = def->origin.x + def->spacing * (float)cols;
    const float top = def->origin.y + def->spacing * (float)(rows - 1) + 5.0f;

    s = sinew__particles_reserve(world, world->particles.count + n);
    sinew_particle_id *ids = out != NULL && out->particles != NULL ? out->particles : NULL;
    sinew_particle_id *tmp = NULL;
    if (s == SINEW_OK && ids == NULL) {
        tmp = sinew__alloc(world, sizeof(sinew_particle_id) * (size_t)n);
        s = tmp != NULL ? SINEW_OK : SINEW_ERR_OUT_OF_MEMORY;
        ids = tmp;
    }
    if (s != SINEW_OK) {
        return sinew__fail(world, s, "sinew_pile_create: reserving memory failed");
    }
    sinew_collider_id colliders[SINEW_PILE_MAX_COLLIDERS];
    int made_colliders = 0;
    if (def->container != SINEW_PILE_NONE) {
        sinew_collider_def cd = sinew_default_collider_def();
        cd.friction = def->friction;
        cd.kinetic_friction = def->kinetic_friction;
        s = sinew_plane_collider_create(world, &cd, sinew_vec2_make(0, 1), floor_y, &colliders[made_colliders]);
        made_colliders += s == SINEW_OK;
        if (s == SINEW_OK) {
            s = sinew_plane_collider_create(world, &cd, sinew_vec2_make(1, 0), left, &colliders[made_colliders]);
            made_colliders += s == SINEW_OK;
        }
        if (s == SINEW_OK) {
            s = sinew_plane_collider_create(world, &cd, sinew_vec2_make(-1, 0), -right, &colliders[made_colliders]);
            made_colliders += s == SINEW_OK;
        }
        if (s == SINEW_OK && def->container == SINEW_PILE_SLOPES) {
            // Two slopes from the walls, a quarter of the width up, down to a third of the way in.
            const float w = right - left, y0 = floor_y + 0.25f * w, y1 = floor_y + 0.05f * w;
            s = sinew_segment_collider_create(world, &cd, sinew_vec2_make(left, y0),
                                              sinew_vec2_make(left + w / 3.0f, y1), 0.1f, &colliders[made_colliders]);
            made_colliders += s == SINEW_OK;
            if (s == SINEW_OK) {
                s = sinew_segment_collider_create(world, &cd, sinew_vec2_make(right, y0),
                                                  sinew_vec2_make(right - w / 3.0f, y1), 0.1f,
                                                  &colliders[made_colliders]);
                made_colliders += s == SINEW_OK;
            }
        }
    }
    uint64_t rng = def->seed;
    int made = 0;
    for (int i = 0; i < n && s == SINEW_OK; ++i) {
        const int c = i % cols, r = i / cols;
        sinew_particle_def p = sinew_default_particle_def();
        p.position = sinew_vec2_make(def->origin.x + def->spacing * (float)c + ((r & 1) != 0 ? def->row_offset : 0.0f),
                                     def->origin.y + def->spacing * (float)r);
        float u = (float)(sinew__random_next(&rng) >> 40) * (1.0f / 16777216.0f);
        p.radius = def->radius_min + u * (def->radius_max - def->radius_min);
        p.weight = def->weight;
        p.friction = def->friction;
        p.kinetic_friction = def->kinetic_friction;
        s = sinew_particle_create(world, &p, &ids[i]);
        made += s == SINEW_OK;
    }
    if (s != SINEW_OK) {
        rollback(world, ids, made);
        for (int k = made_colliders - 1; k >= 0; --k) {
            sinew_collider_destroy(world, colliders[k]);
        }
    } else if (out != NULL) {
        out->collider_count = made_colliders;
        memcpy(out->colliders, colliders, sizeof(sinew_collider_id) * (size_t)made_colliders);
        out->box_min = sinew_vec2_make(left, floor_y);
        out->box_max = sinew_vec2_make(right, top);
    }
    sinew__free(world, tmp, sizeof(sinew_particle_id) * (size_t)n);
    return s;
}
