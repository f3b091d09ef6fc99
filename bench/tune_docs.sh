#!/bin/sh
# Regenerates the measurements of docs/tuning.md with sinew-tune: the plots (SVG, and PNG through
# ImageMagick's `convert` or `rsvg-convert`) into docs/images/, and the verdicts and tables on
# standard output, to paste into the page.
# Usage: sh bench/tune_docs.sh [path/to/sinew-tune [EXPERIMENT...]]   (default build/bench/sinew-tune)
# With experiment names (rope-verdict, cloth-modes8, order, omega, substeps, compliance, ...) only
# those run. All of them take about 40 s on a 2-core machine; runs under `nice`.
set -eu
repo="$(cd "$(dirname "$0")/.." && pwd)"
tune="${1:-$repo/build/bench/sinew-tune}"
if [ $# -gt 0 ]; then shift; fi
only=" $* "
images="$repo/docs/images"
work="$(mktemp -d "${TMPDIR:-/tmp}/sinew-tune-docs.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$images"

to_png() { # svg png
    if command -v rsvg-convert >/dev/null 2>&1; then
        rsvg-convert -b white -o "$2" "$1"
    else
        convert -background white "$1" -depth 8 -strip "$2"
    fi
}

# run NAME PLOTS ARGS...: runs the tool into $work/NAME and prints its output; keeps the plots
# named in PLOTS ("iteration time", "time", or "" for none) as docs/images/tune-NAME-PLOT.{svg,png}.
run() {
    name="$1"; plots="$2"; shift 2
    if [ "$only" != "  " ] && [ "${only#* "$name" }" = "$only" ]; then
        return 0
    fi
    echo
    echo "\$ sinew-tune $*"
    nice "$tune" "$@" --out "$work/$name"
    for plot in $plots; do
        cp "$work/$name/error_vs_$plot.svg" "$images/tune-$name-$plot.svg"
        to_png "$images/tune-$name-$plot.svg" "$images/tune-$name-$plot.png"
    done
}

# table NAME: the end-of-step error of each setting as a markdown table, rows sub-steps (with
# the mode and omega), columns iterations; then the same for microseconds per step.
table() {
    [ -f "$work/$1/results.csv" ] || return 0
    awk -F, '
        NR == 1 { next }
        $6 == $5 {
            row = $2 ($3 != "" ? " omega " $3 : "") ", " $4 " sub-step" ($4 == 1 ? "" : "s")
            if (!(row in seen)) { seen[row] = 1; rows[++nr] = row }
            if (!($5 in cseen)) { cseen[$5] = 1; cols[++nc] = $5 }
            err[row, $5] = $7; ns[row, $5] = $9
        }
        END {
            for (pass = 1; pass <= 2; pass++) {
                printf "\n| %s |", pass == 1 ? "end error" : "us per step"
                for (c = 1; c <= nc; c++) printf " %d it |", cols[c]
                printf "\n|---|"
                for (c = 1; c <= nc; c++) printf "---|"
                printf "\n"
                for (r = 1; r <= nr; r++) {
                    printf "| %s |", rows[r]
                    for (c = 1; c <= nc; c++) {
                        if (pass == 1) printf " %.3g |", err[rows[r], cols[c]]
                        else printf " %.1f |", ns[rows[r], cols[c]] / 1000
                    }
                    printf "\n"
                }
            }
        }' "$work/$1/results.csv"
}

echo "## verdicts (default modes, omegas and iterations; sub-steps 1..32)"
for scene in rope cloth softbody; do
    run "$scene-verdict" "" --scene "$scene" --substeps 1,2,4,8,16,32
done

echo "## convergence per iteration (1 sub-step) and per microsecond (8 sub-steps)"
for scene in rope cloth softbody; do
    run "$scene-modes1" iteration --scene "$scene" --modes gs,gs-alt,gs-shuffle,jacobi --omega 1.0,1.5 --substeps 1 \
        --iterations 1,2,4,8,16,32,50
    run "$scene-modes8" time --scene "$scene" --modes gs,gs-alt,gs-shuffle,jacobi --omega 1.0,1.5 --substeps 8 \
        --iterations 1,2,4,8,16
    table "$scene-modes8"
done

echo "## Gauss-Seidel order"
run order "iteration time" --scene rope --modes gs,gs-alt,gs-shuffle --substeps 4 --iterations 1..16
table order

echo "## Jacobi omega"
run omega time --scene cloth --modes jacobi --omega 0.8,1.0,1.2,1.3,1.4,1.5,1.8 --substeps 8 --iterations 1,2,4,8
run omega-fine "" --scene cloth --modes jacobi --omega 1.0,1.2,1.3,1.33,1.36,1.4,1.5,1.6,1.8,1.9 --substeps 8 \
    --iterations 1,2
table omega-fine
run omega-rope "" --scene rope --modes jacobi --omega 1.0,1.2,1.3,1.33,1.36,1.4,1.5,1.6,1.8,1.9 --substeps 8 \
    --iterations 1,2
table omega-rope

echo "## sub-steps against iterations"
run substeps time --scene cloth --modes gs --substeps 1,2,4,8,16 --iterations 1,2,4,8,16
table substeps

echo "## stiffness against compliance"
run stiffness time --scene cloth --modes gs --stiffness 0.5 --substeps 1,2,4,8,16 --iterations 1,2,4,8,16
table stiffness
run compliance time --scene cloth --modes gs --compliance 1e-5 --substeps 1,2,4,8,16 --iterations 1,2,4,8,16
table compliance

# A saved demo scene: the soft bodies of sinew-demos after 180 frames (its F5 key, or
# `sinew-demos --headless --scene softbody --frames 180 --save-world docs/images/tune-world-softbody.snw`).
run world "iteration time" --world "$images/tune-world-softbody.snw" --modes gs,gs-shuffle,jacobi --omega 1.0,1.5 \
    --substeps 2,4,8 --iterations 1,2,4,8,16
table world
