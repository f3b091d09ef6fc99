// sinew-demos, headless: every scene for 120 frames. Each must exit 0, report no NaN or infinite
// position and particles that moved, and leave a screenshot that is not blank (enough pixels
// differ from the most common colour, the background). The BMP is read here, not by the program.
// A scene with no world (ik3: the standalone 3D IK solver) has no particles to move: its picture
// after 120 frames must differ from its picture after 60 instead.
//
// Usage: test_demos PATH_TO_SINEW_DEMOS OUTPUT_DIR. Without a program (the build had no SDL2) it
// exits 77, which meson reports as skipped.
#define _POSIX_C_SOURCE 200809L // popen, pclose, access

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FRAMES 120

static const char *program;
static const char *outdir;

static const char *const scenes[] = {"rope", "cloth", "pile", "softbody", "ik", "solvers", "ik3"};
#define SCENE_COUNT ((int)(sizeof scenes / sizeof scenes[0]))

// Scenes that hold no world (they draw what a standalone solver computes).
static bool without_world(const char *scene)
{
    return strcmp(scene, "ik3") == 0;
}

// Runs a shell command; returns its exit status (-1 when it did not exit) and its stdout in out.
static int run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (p == NULL) {
        return -1;
    }
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool field(const char *report, const char *key, double *value)
{
    const char *at = strstr(report, key);
    return at != NULL && sscanf(at + strlen(key), "%lf", value) == 1;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int compare_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

// Reads an uncompressed 24- or 32-bit BMP into 0xRRGGBB values. Returns the pixel count, 0 on failure.
static size_t read_bmp(const char *path, uint32_t **pixels, int *width, int *height)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return 0;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = size > 54 ? malloc((size_t)size) : NULL;
    size_t got = buf != NULL ? fread(buf, 1, (size_t)size, f) : 0;
    fclose(f);
    size_t count = 0;
    if (got == (size_t)size && buf[0] == 'B' && buf[1] == 'M') {
        const uint32_t offset = le32(buf + 10), compression = le32(buf + 30);
        const int w = (int)le32(buf + 18), h_signed = (int32_t)le32(buf + 22), bpp = buf[28] | buf[29] << 8;
        const int h = h_signed < 0 ? -h_signed : h_signed;
        const size_t stride = ((size_t)w * (size_t)bpp + 31) / 32 * 4;
        if ((bpp == 24 || bpp == 32) && (compression == 0 || compression == 3) && w > 0 && h > 0 &&
            offset + stride * (size_t)h <= (size_t)size) {
            *pixels = malloc(sizeof(uint32_t) * (size_t)w * (size_t)h);
            for (int y = 0; *pixels != NULL && y < h; ++y) {
                const uint8_t *row = buf + offset + stride * (size_t)y;
                for (int x = 0; x < w; ++x) {
                    const uint8_t *px = row + (size_t)x * (size_t)(bpp / 8); // B, G, R
                    (*pixels)[(size_t)y * (size_t)w + (size_t)x] = (uint32_t)px[2] << 16 | (uint32_t)px[1] << 8 | px[0];
                }
            }
            count = *pixels != NULL ? (size_t)w * (size_t)h : 0;
            *width = w;
            *height = h;
        }
    }
    free(buf);
    return count;
}

// Runs `scene` headless for `frames` steps into the BMP `image`; checks the exit status and the
// report's frames and nonfinite fields; returns the report's particles and moved.
static void shoot(const char *scene, int frames, const char *image, double *particles, double *moved)
{
    char cmd[4096], report[8192];
    remove(image);
    snprintf(cmd, sizeof cmd, "'%s' --headless --scene %s --frames %d --no-hud --screenshot '%s'", program, scene,
             frames, image);
    const int status = run(cmd, report, sizeof report);
    print_message("%s", report);
    assert_int_equal(status, 0);

    double done = 0, nonfinite = 1;
    assert_true(field(report, "frames=", &done));
    assert_true(field(report, "particles=", particles));
    assert_true(field(report, "moved=", moved));
    assert_true(field(report, "nonfinite=", &nonfinite));
    assert_int_equal((int)done, frames);
    assert_int_equal((int)nonfinite, 0);
}

static void test_scene(void **state)
{
    const char *scene = *state;
    char image[1024];
    snprintf(image, sizeof image, "%s/test_demos_%s.bmp", outdir, scene);
    double particles = 0, moved = 0;
    shoot(scene, FRAMES, image, &particles, &moved);
    if (without_world(scene)) {
        // No particles; the scene did something when its picture changed from halfway.
        assert_true(particles == 0);
        char half[1024];
        snprintf(half, sizeof half, "%s/test_demos_%s_half.bmp", outdir, scene);
        shoot(scene, FRAMES / 2, half, &particles, &moved);
        uint32_t *a = NULL, *b = NULL;
        int wa = 0, ha = 0, wb = 0, hb = 0;
        const size_t na = read_bmp(image, &a, &wa, &ha), nb = read_bmp(half, &b, &wb, &hb);
        assert_true(na > 0 && na == nb);
        size_t changed = 0;
        for (size_t i = 0; i < na; ++i) {
            changed += a[i] != b[i];
        }
        print_message("%s: %zu pixels (%.2f %%) changed from frame %d to %d\n", scene, changed,
                      100.0 * (double)changed / (double)na, FRAMES / 2, FRAMES);
        assert_true(changed >= na / 500); // at least 0.2 % of the image moved
        free(a);
        free(b);
        remove(half);
    } else {
        assert_true(particles > 0);
        assert_true(moved > 0.1); // metres: the scene did something
    }

    uint32_t *pixels = NULL;
    int w = 0, h = 0;
    const size_t n = read_bmp(image, &pixels, &w, &h);
    assert_true(n > 0);
    // The background is the most common colour; count the pixels that are not it.
    uint32_t *sorted = malloc(sizeof(uint32_t) * n);
    assert_non_null(sorted);
    memcpy(sorted, pixels, sizeof(uint32_t) * n);
    qsort(sorted, n, sizeof(uint32_t), compare_u32);
    uint32_t mode = sorted[0];
    size_t best = 0, run_len = 0, colours = 0;
    for (size_t i = 0; i < n; ++i) {
        run_len = (i > 0 && sorted[i] == sorted[i - 1]) ? run_len + 1 : 1;
        colours += run_len == 1;
        if (run_len > best) {
            best = run_len;
            mode = sorted[i];
        }
    }
    const size_t differ = n - best;
    print_message("%s: %dx%d, background #%06x, %zu pixels (%.2f %%) differ, %zu colours\n", scene, w, h,
                  (unsigned)mode, differ, 100.0 * (double)differ / (double)n, colours);
    assert_true(differ >= n / 200); // at least 0.5 % of the image is scene
    assert_true(colours >= 3);
    free(sorted);
    free(pixels);
    remove(image);
}

// The program lists exactly the scenes tested here, in this order.
static void test_list(void **state)
{
    (void)state;
    char cmd[4096], out[4096], expected[512] = "";
    snprintf(cmd, sizeof cmd, "'%s' --list", program);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    for (int k = 0; k < SCENE_COUNT; ++k) {
        strcat(expected, scenes[k]);
        strcat(expected, "\n");
    }
    assert_string_equal(out, expected);
}

// --threads N steps the scene's worlds with N workers, alone or with other solver settings, in
// the scene it starts with.
static void test_threads_flag(void **state)
{
    (void)state;
    const char *extra[2] = {"", " --iterations 2"};
    for (int k = 0; k < 2; ++k) {
        char cmd[4096], report[8192];
        snprintf(cmd, sizeof cmd, "'%s' --headless --scene pile --frames 3 --no-hud --threads 2%s", program, extra[k]);
        assert_int_equal(run(cmd, report, sizeof report), 0);
        double workers = 0;
        assert_true(field(report, "workers=", &workers));
        assert_int_equal((int)workers, 2);
    }
}

// Bad arguments fail with status 1 and change nothing.
static void test_bad_arguments(void **state)
{
    (void)state;
    char cmd[4096], out[4096];
    snprintf(cmd, sizeof cmd, "'%s' --headless --scene no-such-scene 2>/dev/null", program);
    assert_int_equal(run(cmd, out, sizeof out), 1);
    snprintf(cmd, sizeof cmd, "'%s' --headless --frames -3 2>/dev/null", program);
    assert_int_equal(run(cmd, out, sizeof out), 1);
}

int main(int argc, char **argv)
{
    program = argc > 1 ? argv[1] : NULL;
    outdir = argc > 2 ? argv[2] : ".";
    if (program == NULL || access(program, X_OK) != 0) {
        printf("sinew-demos was not built (no SDL2): skipped\n");
        return 77;
    }
#define SCENE_TEST(name) {"scene_" name, test_scene, NULL, NULL, (void *)name}
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_threads_flag),
        SCENE_TEST("rope"),
        SCENE_TEST("cloth"),
        SCENE_TEST("pile"),
        SCENE_TEST("softbody"),
        SCENE_TEST("ik"),
        SCENE_TEST("solvers"),
        SCENE_TEST("ik3"),
    };
    return cmocka_run_group_tests_name("demos", tests, NULL, NULL);
}
