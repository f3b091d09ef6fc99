#!/bin/sh
# Tests of bench/sinew-tune (issue 7): the CSV has the documented columns; the error does not rise
# over the iterations of a converging case; Jacobi omega outside (0, 2) is refused; the SVG plots
# parse as XML and have one <path> per setting; bad arguments fail with a message; every scene runs.
# Also: --world runs on a world saved by sinew-bench --save-world, and refuses a file that is not
# one; the verdict line is the same on every run (it ranks by work, which is deterministic);
# sinew-bench's flags leave the argument after them alone, its line is valid JSON when a run
# made no projection, and its pile samples' moved_speed is a free fall's average speed.
# Usage: sh tests/test_tune.sh path/to/sinew-tune path/to/sinew-bench   (meson runs it as `tune`)
# Prints cmocka-style summary lines, so tests/run counts these checks with the others.
set -u
tune="${1:?usage: test_tune.sh path/to/sinew-tune path/to/sinew-bench}"
bench="${2:?usage: test_tune.sh path/to/sinew-tune path/to/sinew-bench}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/sinew-tune-test.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "[       OK ] $1"; }
bad() { failed=$((failed + 1)); echo "[  FAILED  ] $1"; }

# expect_refusal NAME PATTERN ARGS...: the tool exits non-zero, says so on stderr (matching
# PATTERN, a grep -E expression) and writes nothing to stdout.
expect_refusal() {
    name="$1"; pattern="$2"; shift 2
    "$tune" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 0 ] && grep -qE -e "$pattern" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        ok "$name (exit $rc: $(head -n 1 "$tmp/err"))"
    else
        bad "$name: exit $rc, stderr: $(cat "$tmp/err"), stdout: $(head -c 200 "$tmp/out")"
    fi
}

# --- a small run: the GS rope and Jacobi, two omegas, two sub-step counts, three iteration counts
out="$tmp/rope"
if "$tune" --scene rope --size 16 --modes gs,jacobi --omega 1.0,1.5 --iterations 1,4,8 --substeps 1,4 \
    --steps 8 --warmup 4 --repeat 1 --out "$out" >"$tmp/rope.txt" 2>"$tmp/rope.err"; then
    ok "a small rope run exits 0"
else
    bad "a small rope run failed: $(cat "$tmp/rope.err")"
fi
csv="$out/results.csv"

# The header is exactly the documented one (docs/tuning.md), and every row has its 9 fields.
header='scene,mode,omega,substeps,iterations,iteration,max_error,rms_error,ns_per_step'
if [ "$(head -n 1 "$csv" 2>/dev/null)" = "$header" ]; then
    ok "results.csv has the documented header"
else
    bad "results.csv header is '$(head -n 1 "$csv" 2>/dev/null)', expected '$header'"
fi
# Rows: per setting, iterations + 1 samples. gs: 2 sub-step counts; jacobi: 2 omegas x 2 sub-step
# counts; each with iterations 1, 4, 8: (2 + 5 + 9) x 6 = 96 rows.
if awk -F, -v want=96 '
    NR == 1 { next }
    NF != 9 { print "row " NR " has " NF " fields"; bad = 1 }
    $1 != "rope" || ($2 != "gs" && $2 != "jacobi") { print "row " NR ": scene or mode"; bad = 1 }
    ($2 == "gs" && $3 != "") || ($2 == "jacobi" && $3 != "1" && $3 != "1.5") { print "row " NR ": omega"; bad = 1 }
    $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+$/ || $6 !~ /^[0-9]+$/ || $6 > $5 { print "row " NR ": counts"; bad = 1 }
    !($7 + 0 >= 0) || !($8 + 0 >= 0) || !($8 <= $7 + 1e-12) || !($9 + 0 > 0) { print "row " NR ": values"; bad = 1 }
    { rows++ }
    END { if (rows != want) { print rows " rows, expected " want; bad = 1 } exit bad }' "$csv" >"$tmp/awk.txt"; then
    ok "results.csv has 96 rows of 9 well-formed fields (rms <= max, time > 0)"
else
    bad "results.csv rows: $(head -n 5 "$tmp/awk.txt")"
fi

# Converging cases: for Gauss-Seidel (created order) and Jacobi omega 1, within the last sub-step
# the max error after iteration k + 1 is at most that after iteration k, from iteration 1 on (the
# first sweep may raise the max: it moves the prediction's stretch from one colour of links onto
# the other; see docs/tuning.md). Allowed: float rounding of the mean over steps.
if awk -F, '
    NR == 1 { next }
    { key = $2 "," $3 "," $4 "," $5 }
    ($2 == "gs" || $3 == "1") && key == prev && $6 >= 2 && $7 > last * (1 + 1e-6) + 1e-9 {
        print key ": iteration " $6 " error " $7 " > " last; bad = 1 }
    { prev = key; last = $7 }
    END { exit bad }' "$csv" >"$tmp/awk.txt"; then
    ok "the max error does not rise over iterations 1..8 (gs and jacobi omega 1)"
else
    bad "the max error rose: $(head -n 5 "$tmp/awk.txt")"
fi
# And the iterations help: at 4 sub-steps, 8 iterations end below 1 iteration (gs).
if awk -F, '
    $2 == "gs" && $4 == 4 && $5 == 1 && $6 == 1 { one = $7 }
    $2 == "gs" && $4 == 4 && $5 == 8 && $6 == 8 { eight = $7 }
    END { exit !(one > 0 && eight < one) }' "$csv"; then
    ok "8 iterations end with less error than 1 (gs, 4 sub-steps)"
else
    bad "8 iterations did not beat 1 (gs, 4 sub-steps)"
fi

# The plots parse as XML and hold one <path> per setting (mode, omega, sub-steps): 2 + 2 x 2 = 6.
settings="$(awk -F, 'NR > 1 { print $2 "," $3 "," $4 }' "$csv" | sort -u | wc -l)"
for plot in error_vs_iteration error_vs_time; do
    svg="$out/$plot.svg"
    if ! command -v xmllint >/dev/null 2>&1; then
        bad "$plot.svg: xmllint not found (install libxml2-utils; tests/run does)"
    elif xmllint --noout "$svg" 2>"$tmp/xml.err"; then
        ok "$plot.svg parses as XML"
    else
        bad "$plot.svg is not well-formed: $(head -n 3 "$tmp/xml.err")"
    fi
    paths="$(grep -o '<path ' "$svg" 2>/dev/null | wc -l)"
    if [ "$paths" -eq "$settings" ] && [ "$settings" -eq 6 ]; then
        ok "$plot.svg has one <path> per setting ($paths)"
    else
        bad "$plot.svg has $paths paths for $settings settings (expected 6)"
    fi
    for text in 'log scale' 'gs, 1 sub-step' 'jacobi omega 1.5, 4 sub-steps' 'budget 0.01'; do
        grep -q "$text" "$svg" || bad "$plot.svg lacks '$text'"
    done
done

# The verdict names the setting of least work of each mode (projections, error, time with its
# spread) and the mode that needs the least work; a time line follows.
if grep -qE '^  gs, [0-9]+ sub-steps? x [0-9]+ iterations? +[0-9]+ +[0-9.e-]+ +[0-9.]+ us \[[0-9.]+, [0-9.]+\]' \
    "$tmp/rope.txt" && grep -qE '^  jacobi' "$tmp/rope.txt" && grep -qE '^verdict: [a-z-]+ reaches the budget with the least work' "$tmp/rope.txt" &&
    grep -qE '^time: fastest ' "$tmp/rope.txt"; then
    ok "the verdict lists each mode and names the one with the least work"
else
    bad "verdict: $(cat "$tmp/rope.txt")"
fi

# The verdict line is the same on every run: three more runs of the same small case.
for _ in 1 2 3; do
    "$tune" --scene rope --size 16 --modes gs,jacobi --omega 1.0,1.5 --iterations 1,4,8 --substeps 1,4 \
        --steps 8 --warmup 4 --repeat 2 --out "$tmp/again" 2>/dev/null | grep '^verdict' >>"$tmp/verdicts.txt"
done
grep '^verdict' "$tmp/rope.txt" >>"$tmp/verdicts.txt"
if [ "$(sort -u "$tmp/verdicts.txt" | wc -l)" -eq 1 ] && [ "$(wc -l <"$tmp/verdicts.txt")" -eq 4 ]; then
    ok "four runs print the same verdict"
else
    bad "the verdicts differ: $(sort "$tmp/verdicts.txt" | uniq -c)"
fi

# --- a saved world: sinew-bench saves a soft body's world, sinew-tune starts every setting from it
if "$bench" --scene softbody --rings 2 --n 12 --steps 20 --repeat 1 --save-world "$tmp/world.snw" >/dev/null 2>"$tmp/bench.err" &&
    "$tune" --world "$tmp/world.snw" --modes gs,jacobi --omega 1 --iterations 1,4 --substeps 2 --steps 4 --warmup 2 \
        --out "$tmp/world" >"$tmp/world.txt" 2>"$tmp/world.err" &&
    grep -q "the world saved in $tmp/world.snw" "$tmp/world.txt" && [ -s "$tmp/world/results.csv" ] &&
    [ "$(awk -F, 'NR > 1 && $1 != "world" { n++ } END { print n + 0 }' "$tmp/world/results.csv")" -eq 0 ]; then
    ok "sinew-tune --world runs on a saved world"
else
    bad "sinew-tune --world: $(cat "$tmp/bench.err" "$tmp/world.err") $(head -n 3 "$tmp/world.txt")"
fi
# sinew-bench's flags take no value: each one leaves the argument after it to be read.
if "$bench" --scene cloth --tethers --size 12x5 --link-forces --user-order --steps 2 >"$tmp/flags.json" 2>"$tmp/flags.err" &&
    grep -q '"width":12,"height":5,"link_forces":true' "$tmp/flags.json" && grep -q '"steps":2,' "$tmp/flags.json"; then
    ok "sinew-bench reads the argument after each flag"
else
    bad "sinew-bench flags: $(cat "$tmp/flags.err") $(head -c 300 "$tmp/flags.json")"
fi
# A run that ends with no constraint (a lone ball) made no projection: its figure is null, as JSON
# has no infinity, and no other number of the line is one either.
if "$bench" --scene pile --n 1 --steps 2 >"$tmp/lone.json" 2>"$tmp/lone.err" &&
    grep -q '"constraints":0,' "$tmp/lone.json" && grep -q '"ns_per_projection":null,' "$tmp/lone.json" &&
    ! grep -qiE ':-?(inf|nan)' "$tmp/lone.json"; then
    ok "sinew-bench prints valid JSON for a run with no projection"
else
    bad "sinew-bench, a lone ball: $(cat "$tmp/lone.err") $(head -c 400 "$tmp/lone.json")"
fi
# --damping sets the world's linear damping: a falling ball ends slower with it, and a negative
# or empty damping is refused.
speed_of() { sed -n 's/.*"max_speed":\([0-9.]*\).*/\1/p' "$1"; }
if "$bench" --scene pile --n 4 --steps 10 >"$tmp/free.json" 2>"$tmp/damp.err" &&
    "$bench" --scene pile --n 4 --steps 10 --damping 0.5 >"$tmp/damp.json" 2>>"$tmp/damp.err" &&
    grep -q '"damping":0.5,' "$tmp/damp.json" && grep -q '"damping":0,' "$tmp/free.json" &&
    awk -v a="$(speed_of "$tmp/damp.json")" -v b="$(speed_of "$tmp/free.json")" 'BEGIN { exit !(a > 0 && a < b) }' &&
    ! "$bench" --scene pile --n 4 --steps 2 --damping -1 >/dev/null 2>"$tmp/negative.err" &&
    grep -q "bad argument '--damping -1'" "$tmp/negative.err" &&
    ! "$bench" --scene pile --n 4 --steps 2 --damping '' >/dev/null 2>&1; then
    ok "sinew-bench --damping slows a falling ball and refuses a negative or empty damping"
else
    bad "sinew-bench --damping: $(cat "$tmp/damp.err" "$tmp/negative.err") $(head -c 300 "$tmp/damp.json")"
fi
# --sample-every: each sample's moved_speed is the largest distance a ball moved since the last
# sample over that time. A pile of 200 balls is still falling freely at the top after 40 steps:
# from rest, the first 20 steps (1/3 s) average g t / 2 = 1.67 m/s, the next 20 g (1/3 + 2/3) / 2
# = 5 m/s (Verlet's sub-steps land within 1.5% of these).
moved_of() { sed -n "${2}p" "$1" | sed -n 's/.*"moved_speed":\([0-9.]*\)}$/\1/p'; }
if "$bench" --scene pile --n 200 --steps 40 --sample-every 20 >"$tmp/moved.json" 2>"$tmp/moved.err" &&
    awk -v a="$(moved_of "$tmp/moved.json" 1)" -v b="$(moved_of "$tmp/moved.json" 2)" \
        'BEGIN { exit !(a > 1.64 && a < 1.70 && b > 4.93 && b < 5.08) }'; then
    ok "sinew-bench's samples give the fastest ball's average speed since the last sample"
else
    bad "sinew-bench moved_speed: $(cat "$tmp/moved.err") $(head -c 400 "$tmp/moved.json")"
fi
printf 'not a snapshot at all' >"$tmp/junk.snw"
expect_refusal "--world refuses a file that is not a snapshot" 'not a sinew snapshot' --world "$tmp/junk.snw" \
    --out "$tmp/never"
expect_refusal "--world refuses a missing file" 'cannot open --world' --world "$tmp/missing.snw" --out "$tmp/never"
expect_refusal "--world and --scene exclude each other" 'not with --scene' --world "$tmp/world.snw" --scene rope \
    --out "$tmp/never"

# --- every scene runs (tiny), with the links' compliance where a scene has links
for args in "--scene cloth --size 4x4" "--scene softbody --size 8 --compliance 1e-4" \
    "--scene pile --size 9" "--scene ik --size 4 --stiffness 0.5" "--scene rope --size 3 --modes gs-alt,gs-shuffle"; do
    # shellcheck disable=SC2086  # args must split into words
    if "$tune" $args --omega 1 --iterations 1,2 --substeps 2 --steps 3 --warmup 2 --out "$tmp/scene" \
        >"$tmp/scene.txt" 2>"$tmp/scene.err" && [ -s "$tmp/scene/results.csv" ] &&
        xmllint --noout "$tmp/scene/error_vs_time.svg" 2>/dev/null; then
        ok "sinew-tune $args"
    else
        bad "sinew-tune $args: $(cat "$tmp/scene.err")"
    fi
    rm -rf "$tmp/scene"
done

# --- Jacobi omega outside (0, 2) is refused
for w in 2 2.0 2.5 0 -1 1.0,2.0 nan inf; do
    expect_refusal "omega $w is refused" 'omega must be in \(0, 2\)|is not a number' \
        --scene rope --modes jacobi --omega "$w" --out "$tmp/never"
done
expect_refusal "omega 2 is refused even without jacobi in --modes" 'omega must be in \(0, 2\)' \
    --scene rope --modes gs --omega 2 --out "$tmp/never"

# --- bad arguments fail with a message
expect_refusal "no --scene" '--scene or --world is required.*rope, cloth, softbody, pile, ik'
expect_refusal "unknown scene lists the known ones" "unknown scene 'bridge'.*rope, cloth, softbody, pile, ik" \
    --scene bridge
expect_refusal "unknown option" "unknown option '--frobnicate'" --scene rope --frobnicate 3
expect_refusal "missing value" 'option --steps needs a value' --scene rope --steps
expect_refusal "unknown mode" "unknown mode 'sor'.*gs, gs-alt, gs-shuffle, jacobi" --scene rope --modes gs,sor
expect_refusal "empty list item" '--modes takes' --scene rope --modes gs,,jacobi
expect_refusal "iterations 0" '--iterations takes' --scene rope --iterations 0
expect_refusal "iterations 1025" '--iterations takes' --scene rope --iterations 1..1025
expect_refusal "backward range" '--iterations takes' --scene rope --iterations 8..2
expect_refusal "substeps not a number" '--substeps takes' --scene rope --substeps four
expect_refusal "steps 0" '--steps takes' --scene rope --steps 0
expect_refusal "repeat 0" '--repeat takes' --scene rope --repeat 0
expect_refusal "bad cloth size" "bad --size '40'.*COLUMNSxROWS" --scene cloth --size 40
expect_refusal "bad rope size" "bad --size '0'" --scene rope --size 0
expect_refusal "negative budget" '--budget takes' --scene rope --budget -0.1
expect_refusal "stiffness above 1" '--stiffness takes' --scene rope --stiffness 1.5
expect_refusal "compliance on the pile" 'the pile has no links' --scene pile --compliance 1e-3
expect_refusal "stray argument" "unexpected argument 'rope'" --scene rope rope
expect_refusal "output directory under a file" 'cannot create the output directory' \
    --scene rope --out "$csv/sub"
if [ -e "$tmp/never" ]; then
    bad "a refused run created its output directory"
fi
if "$tune" --help | grep -q 'usage: sinew-tune'; then
    ok "--help prints the usage and exits 0"
else
    bad "--help"
fi

total=$((passed + failed))
echo "[==========] $total test(s) run."
echo "[  PASSED  ] $passed test(s)."
if [ "$failed" -ne 0 ]; then
    echo "[  FAILED  ] $failed test(s)."
    exit 1
fi
