// The ball pile builder: balls on a grid falling into a box (or onto slopes).
#include <string.h>

#include "scene_internal.h"

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

// The grid of a pile: columns and rows (64-bit, so that no size overflows).
static void pile_grid(const sinew_pile_def *def, int64_t *cols, int64_t *rows)
{
    *cols = def->columns > 0 ? def->columns : (int64_t)ceil(sqrt((double)def->count));
    *rows = ((int64_t)def->count + *cols - 1) / *cols;
}

// What is wrong with a pile def, or NULL; *status gets the error.
static const char *pile_problem(const sinew_pile_def *def, sinew_status *status)
{
    if (!sinew__finite2(def->origin) || !sinew__finite(def->spacing) || !sinew__finite(def->row_offset) ||
        !sinew__finite(def->radius_min) || !sinew__finite(def->radius_max) || !sinew__finite(def->weight) ||
        !sinew__finite(def->friction) || !sinew__finite(def->kinetic_friction)) {
        *status = SINEW_ERR_NOT_FINITE;
        return "pile def: every number must be finite";
    }
    *status = SINEW_ERR_OUT_OF_RANGE;
    if (def->count < 1 || def->count > (1 << 24) || def->columns < 0 || !(def->spacing > 0.0f) ||
        !(def->radius_min > 0.0f) || def->radius_max < def->radius_min || def->radius_max > SINEW_MAX_COORDINATE ||
        !(def->weight > 0.0f) || def->friction < 0.0f || def->kinetic_friction < 0.0f ||
        (def->container != SINEW_PILE_NONE && def->container != SINEW_PILE_BOX && def->container != SINEW_PILE_SLOPES)) {
        return "pile def: count in 1..2^24, columns >= 0, spacing > 0, 0 < radius_min <= radius_max <= "
               "SINEW_MAX_COORDINATE, weight > 0, friction >= 0, known container";
    }
    int64_t cols, rows;
    pile_grid(def, &cols, &rows);
    const double s = def->spacing, o = fabs((double)def->row_offset);
    if (!sinew__extent_ok(def->origin.x - 1.0 - o, def->origin.y - 1.0, def->origin.x + s * (double)cols + o,
                          def->origin.y + s * (double)(rows - 1) + 5.0)) {
        return "pile def: the box (every ball and wall) within SINEW_MAX_COORDINATE";
    }
    return NULL;
}

sinew_scene_counts sinew_pile_counts(const sinew_pile_def *def)
{
    sinew_status status = SINEW_OK;
    const char *problem = def != NULL ? pile_problem(def, &status) : "sinew_pile_counts: def is required";
    sinew_scene_counts c;
    if (!sinew__counts_start(&c, def != NULL, problem, status)) {
        return c;
    }
    c.particles = def->count;
    return c;
}

// The container's colliders; returns how many were made (all, or none on failure).
static int make_container(sinew_world *world, const sinew_pile_def *def, float left, float right, float floor_y,
                          sinew_collider_id *ids, sinew_status *status)
{
    sinew_collider_def cd = sinew_default_collider_def();
    cd.friction = def->friction;
    cd.kinetic_friction = def->kinetic_friction;
    int made = 0;
    sinew_status s = SINEW_OK;
    if (def->container != SINEW_PILE_NONE) {
        const sinew_vec2 normals[3] = {{0, 1}, {1, 0}, {-1, 0}};
        const float offsets[3] = {floor_y, left, -right};
        for (int k = 0; k < 3 && s == SINEW_OK; ++k) {
            s = sinew_plane_collider_create(world, &cd, normals[k], offsets[k], &ids[made]);
            made += s == SINEW_OK;
        }
    }
    if (def->container == SINEW_PILE_SLOPES && s == SINEW_OK) {
        // Two slopes from the walls, a quarter of the width up, down to a third of the way in.
        const float w = right - left, y0 = floor_y + 0.25f * w, y1 = floor_y + 0.05f * w;
        s = sinew_segment_collider_create(world, &cd, sinew_vec2_make(left, y0), sinew_vec2_make(left + w / 3.0f, y1),
                                          0.1f, &ids[made]);
        made += s == SINEW_OK;
        if (s == SINEW_OK) {
            s = sinew_segment_collider_create(world, &cd, sinew_vec2_make(right, y0),
                                              sinew_vec2_make(right - w / 3.0f, y1), 0.1f, &ids[made]);
            made += s == SINEW_OK;
        }
    }
    if (s != SINEW_OK) {
        for (int k = made - 1; k >= 0; --k) {
            sinew_collider_destroy(world, ids[k]);
        }
        made = 0;
    }
    *status = s;
    return made;
}

sinew_status sinew_pile_create(sinew_world *world, const sinew_pile_def *def, sinew_pile *out)
{
    if (world == NULL || def == NULL) {
        return sinew__fail(world, SINEW_ERR_NULL_ARGUMENT, "sinew_pile_create: world and def are required");
    }
    sinew_status s;
    const char *problem = pile_problem(def, &s);
    if (problem != NULL) {
        return sinew__fail(world, s, problem);
    }
    const int n = def->count;
    int64_t cols, rows;
    pile_grid(def, &cols, &rows);
    const float left = def->origin.x - 1.0f, floor_y = def->origin.y - 1.0f;
    const float right = def->origin.x + def->spacing * (float)cols;
    const float top = def->origin.y + def->spacing * (float)(rows - 1) + 5.0f;
    const int colliders_needed = def->container == SINEW_PILE_NONE ? 0 : (def->container == SINEW_PILE_BOX ? 3 : 5);
    if (world->max_constraints > 0 && world->colliders.count + colliders_needed > world->max_constraints) {
        return sinew__fail(world, SINEW_ERR_CAPACITY, "sinew_pile_create: the container would pass max_constraints");
    }

    const sinew_scene_counts counts = sinew_pile_counts(def);
    sinew__build b;
    if (!sinew__build_begin(&b, world, &counts, out != NULL ? out->particles : NULL)) {
        return b.status;
    }
    sinew_collider_id colliders[SINEW_PILE_MAX_COLLIDERS];
    const int made_colliders = make_container(world, def, left, right, floor_y, colliders, &b.status);
    uint64_t rng = def->seed;
    sinew_particle_def p = sinew_default_particle_def();
    p.weight = def->weight;
    p.friction = def->friction;
    p.kinetic_friction = def->kinetic_friction;
    for (int i = 0; i < n && b.status == SINEW_OK; ++i) {
        const int c = (int)(i % cols), r = (int)(i / cols);
        p.position = sinew_vec2_make(def->origin.x + def->spacing * (float)c + ((r & 1) != 0 ? def->row_offset : 0.0f),
                                     def->origin.y + def->spacing * (float)r);
        const float u = (float)(sinew__random_next(&rng) >> 40) * (1.0f / 16777216.0f);
        p.radius = def->radius_min + u * (def->radius_max - def->radius_min);
        sinew__build_particle(&b, &p, false, NULL);
    }
    if (b.status != SINEW_OK) {
        for (int k = made_colliders - 1; k >= 0; --k) {
            sinew_collider_destroy(world, colliders[k]);
        }
    } else if (out != NULL) {
        out->collider_count = made_colliders;
        memcpy(out->colliders, colliders, sizeof(sinew_collider_id) * (size_t)made_colliders);
        out->box_min = sinew_vec2_make(left, floor_y);
        out->box_max = sinew_vec2_make(right, top);
    }
    return sinew__build_end(&b);
}
