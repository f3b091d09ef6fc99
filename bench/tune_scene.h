// sinew-tune's scenes: built with the engine's builders (the IK arm from the public constraint
// API), each with the length its errors are measured against and the constraint kind it measures.
#pragma once

#include <stddef.h>

#include <sinew/sinew.h>

typedef enum tune_scene_kind {
    TUNE_ROPE = 0,
    TUNE_CLOTH,
    TUNE_SOFTBODY,
    TUNE_PILE,
    TUNE_IK,
    TUNE_SCENE_COUNT,
    TUNE_WORLD = TUNE_SCENE_COUNT, ///< a saved world (sinew-tune --world FILE), not a --scene
} tune_scene_kind;

/// What to build: the scene and its size (`n` for rope links, soft body points, pile balls and IK
/// segments; `columns` x `rows` for the cloth).
typedef struct tune_scene_def {
    tune_scene_kind kind;
    int n;
    int columns, rows;
    float stiffness;  ///< of the scene's distance constraints, (0, 1]; default 1
    float compliance; ///< of the scene's distance constraints, m/N >= 0; default 0 (PBD)
    // TUNE_WORLD: the snapshot every candidate starts from (sinew_world_save's bytes), and its
    // file's name; the caller owns both.
    const void *snapshot;
    size_t snapshot_size;
    const char *path;
} tune_scene_def;

/// A built scene.
typedef struct tune_scene {
    sinew_world *world;
    tune_scene_kind kind;
    float rest_length;  ///< metres: the length errors are divided by (see tune_scene_describe)
    sinew_kind metric;  ///< the kind whose error is measured (SINEW_KIND_COUNT = all kinds)
    sinew_pin_id effector; ///< IK: the pin dragging the arm's tip
    sinew_vec2 circle_center;
    float circle_radius;
    long steps;         ///< steps taken, for the IK target's path
} tune_scene;

/// The scene called `name`; false when there is none.
bool tune_scene_parse(const char *name, tune_scene_kind *out);

/// "rope", "cloth", ...
const char *tune_scene_name(tune_scene_kind kind);

/// "rope, cloth, softbody, pile, ik"
const char *tune_scene_known(void);

/// The default def of a scene.
tune_scene_def tune_scene_default(tune_scene_kind kind);

/// Reads a --size value into `def` (N, or WxH for the cloth). False on a bad value, with the
/// expected form written to `why`.
bool tune_scene_parse_size(tune_scene_def *def, const char *text, char *why, size_t why_size);

/// Whether the scene has distance constraints whose stiffness and compliance can be set (not the pile).
bool tune_scene_has_links(tune_scene_kind kind);

/// Writes a sentence describing the scene, its reference length and the measured kind.
void tune_scene_describe(const tune_scene_def *def, char *buf, size_t size);

/// Writes a short name with the size: "rope 40", "cloth 20x20".
void tune_scene_title(const tune_scene_def *def, char *buf, size_t size);

/// What the error axis shows, e.g. "max distance error / link length".
const char *tune_scene_metric_label(tune_scene_kind kind);

/// Builds the scene in a new world with `solver`. On failure writes a message to `why`.
sinew_status tune_scene_create(const tune_scene_def *def, const sinew_solver_def *solver, tune_scene *out,
                               char *why, size_t why_size);

/// Moves what the scene moves by itself (the IK target); call before each step of `dt` seconds.
void tune_scene_update(tune_scene *scene, float dt);

/// Destroys the scene's world.
void tune_scene_destroy(tune_scene *scene);
