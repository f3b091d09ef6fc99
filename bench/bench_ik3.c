// sinew-bench --scene ik3: the standalone 3D chain solver (ik3.h).
//
// The chain: n links of 1 m from the origin along +x, each limited by a regular 8-gon cone of
// half-angle 30 degrees (to its corners) around its parent's +x and a twist range of +-0.5 rad.
// cold: every solve starts from the rest pose (identity rotations); the targets are the end
//       effectors of random poses inside the limits (a direction uniform over the cone's polygon,
//       a twist uniform over its range), drawn from a fixed seed: all reachable.
// warm: the arm starts in the pose that made the first target, then every solve starts from the
//       previous answer; the target is the end effector of a pose
//       that moves smoothly inside the limits (each link's direction circling its cone at 0.35 rad,
//       a period of 600 solves, links out of phase): a reachable target on a closed curve.
// The tolerance is 1e-3 of the chain's length (15 mm for 15 links), as in the ik scene.
// Besides speed it reports limit_violations (links of the answers outside their limits, by the
// plane tests and twist range of ik3.h evaluated in double: must be 0) and, warm,
// max_joint_step: the largest rotation of one link's local rotation from one solve to the next
// (radians). The targets are made before the clock starts; only the solves are timed.
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sinew/sinew.h>

#include "bench_ik3.h"
#include "bench_util.h"

#define CONE_N 8
#define CONE_HALF 0.5235987755982988 // 30 degrees
#define TWIST 0.5f

typedef struct dir3 {
    double x, y, z;
} dir3;

int bench_ik3_method_known(const char *name)
{
    return strcmp(name, "ccd") == 0 || strcmp(name, "fabrik") == 0 || strcmp(name, "two-bone") == 0;
}

static double uniform01(uint64_t *s) // xorshift64*
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

// The rotation that takes +x to unit d by the minimal rotation, then twists by t about the link axis.
static sinew_quat swing_twist(dir3 d, double t)
{
    const double w = 1.0 + d.x, l = sqrt(d.y * d.y + d.z * d.z + w * w);
    const sinew_quat swing = sinew_quat_make(0.0f, (float)(-d.z / l), (float)(d.y / l), (float)(w / l));
    const sinew_quat twist = sinew_quat_make((float)sin(0.5 * t), 0.0f, 0.0f, (float)cos(0.5 * t));
    return sinew_quat_normalize(sinew_quat_mul(swing, twist));
}

// The direction at angle (a, b) in the cone's tangent plane: tan-space offsets from +x.
static dir3 tangent_dir(double y, double z)
{
    const double l = sqrt(1.0 + y * y + z * z);
    dir3 d = {1.0 / l, y / l, z / l};
    return d;
}

// Number of links of the answer outside their limits (ik3.h's tests, in double, no tolerance).
static int violations(const sinew_ik3_link *links, int n)
{
    int bad = 0;
    for (int k = 0; k < n; ++k) {
        const sinew_quat f = links[k].rotation;
        const double l = sqrt((double)f.x * f.x + (double)f.y * f.y + (double)f.z * f.z + (double)f.w * f.w);
        const double x = f.x / l, y = f.y / l, z = f.z / l, w = f.w / l;
        const dir3 d = {1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y)};
        int out = 0;
        const sinew_ik3_limit *lim = links[k].limit;
        for (int i = 0; i < lim->cone_count; ++i) {
            const sinew_vec3 a = lim->corners[i], b = lim->corners[(i + 1) % lim->cone_count];
            const double nx = (double)a.y * b.z - (double)a.z * b.y, ny = (double)a.z * b.x - (double)a.x * b.z,
                         nz = (double)a.x * b.y - (double)a.y * b.x;
            out |= nx * d.x + ny * d.y + nz * d.z < 0.0;
        }
        const double t = 2.0 * atan2(w < 0.0 ? -x : x, fabs(w));
        out |= lim->twist_limited && (t < lim->twist_min || t > lim->twist_max);
        bad += out;
    }
    return bad;
}

int bench_ik3_run(const char *method_name, const char *start, int n, int solves, int cap, int run)
{
    const sinew_ik3_method method = strcmp(method_name, "ccd") == 0        ? SINEW_IK3_CCD
                                    : strcmp(method_name, "two-bone") == 0 ? SINEW_IK3_TWO_BONE
                                                                           : SINEW_IK3_FABRIK;
    const int warm = strcmp(start, "warm") == 0;
    n = n > 0 ? n : (method == SINEW_IK3_TWO_BONE ? 2 : 15);
    solves = solves > 0 ? solves : 20000;
    if (n > SINEW_IK3_MAX_LINKS || (method == SINEW_IK3_TWO_BONE && n != 2)) {
        fprintf(stderr, "sinew-bench: ik3 takes 1..%d links (two-bone: exactly 2)\n", SINEW_IK3_MAX_LINKS);
        return 2;
    }
    sinew_vec3 cone[CONE_N];
    sinew_ik3_regular_cone((float)CONE_HALF, CONE_N, cone);
    const double r = tan(CONE_HALF); // the corners' distance from +x in the tangent plane
    sinew_ik3_limit_def ld = sinew_default_ik3_limit_def();
    ld.cone = cone;
    ld.cone_count = CONE_N;
    ld.twist_limited = true;
    ld.twist_min = -TWIST;
    ld.twist_max = TWIST;
    sinew_ik3_limit limit;
    if (sinew_ik3_limit_init(&ld, &limit) != SINEW_OK) {
        fprintf(stderr, "sinew-bench: the limit was refused\n");
        return 1;
    }
    sinew_ik3_link links[SINEW_IK3_MAX_LINKS];
    sinew_quat first_pose[SINEW_IK3_MAX_LINKS]; // warm: the pose that made target 0, where the arm starts
    sinew_quat previous[SINEW_IK3_MAX_LINKS];
    for (int k = 0; k < n; ++k) {
        links[k] = sinew_default_ik3_link();
        links[k].limit = &limit;
    }
    sinew_ik3_chain chain = {n, links, sinew_vec3_make(0.0f, 0.0f, 0.0f), sinew_quat_identity()};
    sinew_vec3 *targets = malloc((size_t)solves * sizeof *targets);
    sinew_vec3 points[SINEW_IK3_MAX_LINKS + 1];
    if (targets == NULL) {
        fprintf(stderr, "sinew-bench: out of memory\n");
        return 1;
    }
    // The inscribed radius of the 8-gon in the tangent plane: random directions are drawn in the
    // square around it and kept when inside the polygon.
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)(run + 1);
    for (int s = 0; s < solves; ++s) {
        for (int k = 0; k < n; ++k) {
            dir3 d;
            double t;
            if (warm) {
                const double ph = 2.0 * 3.14159265358979323846 * s / 600.0 + 0.7 * k;
                d = tangent_dir(0.35 * cos(ph), 0.35 * sin(ph));
                t = 0.3 * sin(ph);
            } else {
                for (;;) {
                    const double y = r * (2.0 * uniform01(&seed) - 1.0), z = r * (2.0 * uniform01(&seed) - 1.0);
                    // inside the regular 8-gon of circumradius r: every edge's half-plane
                    int in = 1;
                    for (int i = 0; i < CONE_N && in; ++i) {
                        const double a = 2.0 * 3.14159265358979323846 * (i + 0.5) / CONE_N;
                        in = y * cos(a) + z * sin(a) <= r * cos(3.14159265358979323846 / CONE_N);
                    }
                    if (in) {
                        d = tangent_dir(y, z);
                        break;
                    }
                }
                t = TWIST * (2.0 * uniform01(&seed) - 1.0);
            }
            links[k].rotation = swing_twist(d, t);
        }
        sinew_ik3_chain_points(&chain, points);
        targets[s] = points[n];
        for (int k = 0; s == 0 && k < n; ++k) {
            first_pose[k] = links[k].rotation;
        }
    }
    sinew_ik3_def def = sinew_default_ik3_def();
    def.method = method;
    def.max_iterations = cap;
    def.tolerance = (float)(1e-3 * n); // 1e-3 of the chain's length, as the ik scene
    for (int k = 0; k < n; ++k) {
        links[k].rotation = warm ? first_pose[k] : sinew_quat_identity();
    }
    long iterations = 0;
    int reached = 0, bad = 0;
    double distance = 0.0, max_step = 0.0;
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    const double t0 = bench_now_seconds();
    for (int s = 0; s < solves; ++s) {
        if (!warm) {
            for (int k = 0; k < n; ++k) {
                links[k].rotation = sinew_quat_identity();
            }
        }
        sinew_ik3_result res;
        if (sinew_ik3_solve(&def, &chain, targets[s], &res) != SINEW_OK) {
            fprintf(stderr, "sinew-bench: the solver refused the chain\n");
            free(targets);
            return 1;
        }
        iterations += res.iterations;
        reached += res.reached;
        distance += res.distance;
    }
    const double elapsed = bench_now_seconds() - t0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    const double cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    // Quality, untimed: the same solves again, checking limits (and, warm, the step per solve).
    for (int k = 0; k < n; ++k) {
        links[k].rotation = warm ? first_pose[k] : sinew_quat_identity();
    }
    for (int s = 0; s < solves; ++s) {
        for (int k = 0; k < n; ++k) {
            previous[k] = links[k].rotation;
            if (!warm) {
                links[k].rotation = sinew_quat_identity();
            }
        }
        sinew_ik3_solve(&def, &chain, targets[s], NULL);
        bad += violations(links, n);
        for (int k = 0; warm && k < n; ++k) {
            const double dot = fabs((double)sinew_quat_dot(previous[k], links[k].rotation));
            const double step = 2.0 * acos(dot < 1.0 ? dot : 1.0);
            max_step = step > max_step ? step : max_step;
        }
    }
    printf("{\"scene\":\"ik3\",\"links\":%d,\"method\":\"%s\",\"start\":\"%s\",\"solves\":%d,\"cap\":%d,"
           "\"tolerance\":%.4g,\"run\":%d,\"threads\":1,\"us_per_solve\":%.4f,\"wall_us_per_solve\":%.4f,"
           "\"mean_iterations\":%.3f,\"reached_ratio\":%.5f,\"mean_distance\":%.4g,\"limit_violations\":%d",
           n, method_name, start, solves, cap, (double)def.tolerance, run, 1e6 * cpu / solves, 1e6 * elapsed / solves,
           (double)iterations / solves, (double)reached / solves, distance / solves, bad);
    if (warm) {
        printf(",\"max_joint_step\":%.5f", max_step);
    }
    printf("}\n");
    fflush(stdout);
    free(targets);
    return 0;
}
