// sinew-tune's scenes. Each is built by the engine's builders, as sinew-bench builds them, except
// the IK arm, which is made from particles, distance, angle and pin constraints of the public API.
#define _POSIX_C_SOURCE 200809L // bench_util.h

#include "tune_scene.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TUNE_PI 3.14159265358979323846

static const char *const scene_names[TUNE_SCENE_COUNT] = {"rope", "cloth", "softbody", "pile", "ik"};

// Scene geometry, shared by create and describe.
#define ROPE_LINK 0.25f         // metres per rope link
#define SOFTBODY_DROP 1.5f      // metres between the soft body's lowest point and the floor
#define IK_SEGMENT 0.5f         // metres per arm segment
#define IK_JOINT_LIMIT 0.6f     // radians each joint may bend either way
#define IK_PERIOD 3.0f          // seconds per turn of the target round its circle
#define IK_GOAL_COMPLIANCE 1e-3f // m/N: the tip's pin is a soft goal, the links stay hard

bool tune_scene_parse(const char *name, tune_scene_kind *out)
{
    for (int k = 0; k < TUNE_SCENE_COUNT; ++k) {
        if (strcmp(name, scene_names[k]) == 0) {
            *out = (tune_scene_kind)k;
            return true;
        }
    }
    return false;
}

const char *tune_scene_name(tune_scene_kind kind)
{
    return (unsigned)kind < TUNE_SCENE_COUNT ? scene_names[kind] : (kind == TUNE_WORLD ? "world" : "?");
}

const char *tune_scene_known(void) { return "rope, cloth, softbody, pile, ik"; }

tune_scene_def tune_scene_default(tune_scene_kind kind)
{
    tune_scene_def def = {kind, 0, 0, 0, 1.0f, 0.0f, NULL, 0u, NULL};
    switch (kind) {
    case TUNE_ROPE: def.n = 40; break;
    case TUNE_CLOTH: def.columns = 20; def.rows = 20; break;
    case TUNE_SOFTBODY: def.n = 24; break;
    case TUNE_PILE: def.n = 100; break;
    case TUNE_IK: def.n = 10; break;
    default: break;
    }
    return def;
}

bool tune_scene_parse_size(tune_scene_def *def, const char *text, char *why, size_t why_size)
{
    switch (def->kind) {
    case TUNE_CLOTH: {
        char buf[64];
        const char *x = strchr(text, 'x');
        size_t len = x != NULL ? (size_t)(x - text) : 0;
        if (x != NULL && len < sizeof buf) {
            memcpy(buf, text, len);
            buf[len] = '\0';
            if (bench_parse_int(buf, 2, 1024, &def->columns) && bench_parse_int(x + 1, 2, 1024, &def->rows)) {
                return true;
            }
        }
        snprintf(why, why_size, "the cloth's size is COLUMNSxROWS, each 2..1024 (say 20x20)");
        return false;
    }
    case TUNE_ROPE:
        if (bench_parse_int(text, 1, 100000, &def->n)) {
            return true;
        }
        snprintf(why, why_size, "the rope's size is its number of links, 1..100000");
        return false;
    case TUNE_SOFTBODY:
        if (bench_parse_int(text, 3, 10000, &def->n)) {
            return true;
        }
        snprintf(why, why_size, "the soft body's size is its number of ring points, 3..10000");
        return false;
    case TUNE_PILE:
        if (bench_parse_int(text, 1, 100000, &def->n)) {
            return true;
        }
        snprintf(why, why_size, "the pile's size is its number of balls, 1..100000");
        return false;
    case TUNE_IK:
        if (bench_parse_int(text, 2, 10000, &def->n)) {
            return true;
        }
        snprintf(why, why_size, "the IK arm's size is its number of segments, 2..10000");
        return false;
    default:
        snprintf(why, why_size, "unknown scene");
        return false;
    }
}

bool tune_scene_has_links(tune_scene_kind kind) { return kind != TUNE_PILE; }

static float softbody_edge(int points)
{
    return (float)(2.0 * sin(TUNE_PI / points)); // the builder's ring has radius 1
}

void tune_scene_describe(const tune_scene_def *def, char *buf, size_t size)
{
    switch (def->kind) {
    case TUNE_ROPE:
        snprintf(buf, size,
                 "rope of %d links (sinew_rope_create, start pinned, released horizontal); "
                 "error: distance constraints / link length %.3g m",
                 def->n, (double)ROPE_LINK);
        break;
    case TUNE_CLOTH:
        snprintf(buf, size,
                 "cloth %dx%d (sinew_cloth_create defaults: top row pinned, hanging); "
                 "error: distance constraints / spacing 0.25 m",
                 def->columns, def->rows);
        break;
    case TUNE_SOFTBODY:
        snprintf(buf, size,
                 "soft body of %d points (sinew_softbody_create defaults: ring + area constraint) dropped "
                 "%.3g m onto a floor; error: distance constraints / ring edge %.3g m",
                 def->n, (double)SOFTBODY_DROP, (double)softbody_edge(def->n));
        break;
    case TUNE_PILE:
        snprintf(buf, size,
                 "pile of %d balls (sinew_pile_create defaults, box); error: contacts and colliders "
                 "(penetration) / ball diameter 1 m",
                 def->n);
        break;
    case TUNE_WORLD:
        snprintf(buf, size,
                 "the world saved in %s (%zu bytes), every candidate loaded from it with its own solver "
                 "settings; error: every constraint kind, in metres (radians for angles, m^2 for areas)",
                 def->path != NULL ? def->path : "?", def->snapshot_size);
        break;
    case TUNE_IK:
        snprintf(buf, size,
                 "IK arm of %d segments (distance + angle constraints +-%.2g rad, base pinned, tip pulled "
                 "by a pin of compliance %.3g m/N to a target circling in %.3g s, no gravity); error: "
                 "distance constraints / segment %.3g m",
                 def->n, (double)IK_JOINT_LIMIT, (double)IK_GOAL_COMPLIANCE, (double)IK_PERIOD, (double)IK_SEGMENT);
        break;
    default:
        snprintf(buf, size, "?");
        break;
    }
    if (def->stiffness != 1.0f || def->compliance != 0.0f) {
        const size_t used = strlen(buf);
        snprintf(buf + used, size - used, "; links with stiffness %.3g, compliance %.3g m/N", (double)def->stiffness,
                 (double)def->compliance);
    }
}

void tune_scene_title(const tune_scene_def *def, char *buf, size_t size)
{
    if (def->kind == TUNE_CLOTH) {
        snprintf(buf, size, "cloth %dx%d", def->columns, def->rows);
    } else if (def->kind == TUNE_WORLD) {
        const char *slash = def->path != NULL ? strrchr(def->path, '/') : NULL;
        snprintf(buf, size, "world %s", slash != NULL ? slash + 1 : (def->path != NULL ? def->path : "?"));
    } else {
        snprintf(buf, size, "%s %d", tune_scene_name(def->kind), def->n);
    }
    size_t used = strlen(buf);
    if (def->stiffness != 1.0f && used < size) {
        snprintf(buf + used, size - used, ", stiffness %.3g", (double)def->stiffness);
        used = strlen(buf);
    }
    if (def->compliance != 0.0f && used < size) {
        snprintf(buf + used, size - used, ", compliance %.3g", (double)def->compliance);
    }
}

const char *tune_scene_metric_label(tune_scene_kind kind)
{
    switch (kind) {
    case TUNE_ROPE: return "max distance error / link length";
    case TUNE_CLOTH: return "max distance error / spacing";
    case TUNE_SOFTBODY: return "max distance error / ring edge";
    case TUNE_PILE: return "max penetration / ball diameter";
    case TUNE_IK: return "max distance error / segment length";
    case TUNE_WORLD: return "max error of any kind (m)";
    default: return "max error";
    }
}

// The IK arm: an anchor particle behind the base fixes the base direction; particles 0..n along
// +x, links made even ones first (independent Gauss-Seidel blocks, see docs/solver.md); an angle
// constraint at every particle but the tip; a kinematic pin on the base and the anchor, a
// constraint pin on the tip.
static sinew_status build_ik(tune_scene *sc, const tune_scene_def *def, char *why, size_t why_size)
{
    sinew_world *w = sc->world;
    const int n = def->n;
    sinew_particle_id *ids = calloc((size_t)n + 2, sizeof *ids);
    if (ids == NULL) {
        return SINEW_ERR_OUT_OF_MEMORY;
    }
    sinew_status s = SINEW_OK;
    const char *what = "";
    sinew_particle_def pd = sinew_default_particle_def();
    pd.flags = 0;
    pd.radius = 0.05f;
    // ids[0] is the anchor, ids[1 + k] the arm's particle k.
    for (int k = 0; k <= n + 1 && s == SINEW_OK; ++k) {
        pd.position = sinew_vec2_make(IK_SEGMENT * (float)(k - 1), 0.0f);
        pd.weight = k <= 1 ? 0.0f : 1.0f;
        s = sinew_particle_create(w, &pd, &ids[k]);
        what = "a particle";
    }
    for (int k = 0; k <= 1 && s == SINEW_OK; ++k) {
        sinew_pin_def pin = sinew_default_pin_def();
        pin.particle = ids[k];
        pin.target = sinew_vec2_make(IK_SEGMENT * (float)(k - 1), 0.0f);
        sinew_pin_id unused;
        s = sinew_pin_create(w, &pin, &unused);
        what = "a base pin";
    }
    for (int parity = 0; parity < 2; ++parity) {
        for (int k = parity; k < n && s == SINEW_OK; k += 2) { // link k joins arm particles k, k + 1
            sinew_distance_def dd = sinew_default_distance_def();
            dd.a = ids[1 + k];
            dd.b = ids[2 + k];
            dd.stiffness = def->stiffness;
            dd.compliance = def->compliance;
            sinew_distance_id unused;
            s = sinew_distance_create(w, &dd, &unused);
            what = "a link";
        }
    }
    for (int k = 0; k < n && s == SINEW_OK; ++k) { // joint at arm particle k
        sinew_angle_def ad = sinew_default_angle_def();
        ad.a = ids[k];
        ad.b = ids[k + 1];
        ad.c = ids[k + 2];
        ad.min = -IK_JOINT_LIMIT;
        ad.max = IK_JOINT_LIMIT;
        sinew_angle_id unused;
        s = sinew_angle_create(w, &ad, &unused);
        what = "an angle constraint";
    }
    const float reach = IK_SEGMENT * (float)n;
    sc->circle_center = sinew_vec2_make(0.5f * reach, 0.2f * reach);
    sc->circle_radius = 0.3f * reach;
    if (s == SINEW_OK) {
        sinew_pin_def pin = sinew_default_pin_def();
        pin.particle = ids[n + 1];
        pin.compliance = IK_GOAL_COMPLIANCE;
        pin.target = sinew_vec2_make(sc->circle_center.x + sc->circle_radius, sc->circle_center.y);
        s = sinew_pin_create(w, &pin, &sc->effector);
        what = "the tip's pin";
    }
    if (s != SINEW_OK) {
        snprintf(why, why_size, "creating %s failed: %s (%s)", what, sinew_status_string(s), sinew_world_last_error(w));
    }
    free(ids);
    return s;
}

sinew_status tune_scene_create(const tune_scene_def *def, const sinew_solver_def *solver, tune_scene *out,
                               char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    out->kind = def->kind;
    out->metric = SINEW_KIND_DISTANCE;
    if (def->kind == TUNE_WORLD) { // the saved world, with the candidate's solver settings
        out->metric = SINEW_KIND_COUNT;
        out->rest_length = 1.0f;
        sinew_status s = sinew_world_load(def->snapshot, def->snapshot_size, NULL, &out->world);
        if (s == SINEW_OK) {
            s = sinew_world_set_solver(out->world, solver);
        }
        if (s != SINEW_OK) {
            const char *reason = "";
            sinew_snapshot_check(def->snapshot, def->snapshot_size, &reason);
            snprintf(why, why_size, "loading %s failed: %s (%s)", def->path, sinew_status_string(s), reason);
            tune_scene_destroy(out);
        }
        return s;
    }
    sinew_world_def wd = sinew_default_world_def();
    wd.solver = *solver;
    if (def->kind == TUNE_IK) {
        wd.gravity = sinew_vec2_make(0.0f, 0.0f);
        wd.damping = 2.0f;
    }
    sinew_status s = sinew_world_create(&wd, &out->world);
    if (s != SINEW_OK) {
        snprintf(why, why_size, "creating the world failed: %s", sinew_status_string(s));
        out->world = NULL;
        return s;
    }
    sinew_world *w = out->world;
    switch (def->kind) {
    case TUNE_ROPE: {
        sinew_rope_def rd = sinew_default_rope_def();
        rd.links = def->n;
        rd.start = sinew_vec2_make(0.0f, 0.0f);
        rd.end = sinew_vec2_make(ROPE_LINK * (float)def->n, 0.0f);
        rd.stiffness = def->stiffness;
        rd.compliance = def->compliance;
        out->rest_length = ROPE_LINK;
        s = sinew_rope_create(w, &rd, NULL);
        break;
    }
    case TUNE_CLOTH: {
        sinew_cloth_def cd = sinew_default_cloth_def();
        cd.columns = def->columns;
        cd.rows = def->rows;
        cd.stiffness = def->stiffness;
        cd.compliance = def->compliance;
        out->rest_length = cd.spacing;
        s = sinew_cloth_create(w, &cd, NULL);
        break;
    }
    case TUNE_SOFTBODY: {
        sinew_softbody_def sd = sinew_default_softbody_def();
        sd.points = def->n;
        sd.edge_stiffness = def->stiffness;
        sd.edge_compliance = def->compliance;
        out->rest_length = softbody_edge(def->n) * sd.radius;
        s = sinew_softbody_create(w, &sd, NULL);
        if (s == SINEW_OK) {
            sinew_collider_def cd = sinew_default_collider_def();
            const float floor_y = sd.center.y - sd.radius - sd.particle_radius - SOFTBODY_DROP;
            s = sinew_plane_collider_create(w, &cd, sinew_vec2_make(0.0f, 1.0f), floor_y, NULL);
        }
        break;
    }
    case TUNE_PILE: {
        sinew_pile_def pd = sinew_default_pile_def();
        pd.count = def->n;
        out->rest_length = 2.0f * pd.radius_max;
        out->metric = SINEW_KIND_COUNT; // contacts and colliders: the only constraints a pile has
        s = sinew_pile_create(w, &pd, NULL);
        break;
    }
    case TUNE_IK:
        out->rest_length = IK_SEGMENT;
        s = build_ik(out, def, why, why_size);
        if (s != SINEW_OK) {
            tune_scene_destroy(out);
            return s;
        }
        break;
    default:
        s = SINEW_ERR_OUT_OF_RANGE;
        break;
    }
    if (s != SINEW_OK) {
        snprintf(why, why_size, "building the %s failed: %s (%s)", tune_scene_name(def->kind), sinew_status_string(s),
                 sinew_world_last_error(w));
        tune_scene_destroy(out);
    }
    return s;
}

void tune_scene_update(tune_scene *scene, float dt)
{
    if (scene->kind == TUNE_IK) {
        const double t = (double)scene->steps * (double)dt;
        const double a = 2.0 * TUNE_PI * t / IK_PERIOD;
        sinew_vec2 target = sinew_vec2_make(scene->circle_center.x + scene->circle_radius * (float)cos(a),
                                            scene->circle_center.y + scene->circle_radius * (float)sin(a));
        sinew_pin_set_target(scene->world, scene->effector, target);
    }
    scene->steps += 1;
}

void tune_scene_destroy(tune_scene *scene)
{
    sinew_world_destroy(scene->world);
    scene->world = NULL;
}
