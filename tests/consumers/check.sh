#!/usr/bin/env bash
# Builds tests/consumers/example.c against sinew the three ways a user can consume it and runs it:
#   installed   meson install into a temporary prefix, then cc + pkg-config
#   subproject  a meson project with sinew in subprojects/ (dependency() fallback, no wrap)
#   in-tree     engine/src/*.c compiled straight into the program (cc, cc -DSINEW_STATIC, clang)
# Prints one PASS/FAIL line per way (with the failing step's log on FAIL); exits 1 if any failed.
# Usage: bash tests/consumers/check.sh   (from any directory; touches nothing in the repo)
# shellcheck disable=SC2317  # the way_* functions are called indirectly, as "way_$way"
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
example="$here/example.c"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/sinew-consumers.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

cc="${CC:-cc}"

# Runs one step, echoing the command into the current log first.
run() {
    echo "+ $*"
    "$@"
}

way_installed() {
    local build="$tmp/build-installed" prefix="$tmp/prefix"
    run meson setup "$build" "$repo" --prefix="$prefix" \
        -Dtests=disabled -Ddemos=disabled -Dbench=false
    run meson compile -C "$build"
    run meson install -C "$build"

    local pc libdir
    pc="$(find "$prefix" -name sinew.pc -print -quit)"
    [[ -n "$pc" ]] || { echo "sinew.pc not installed under $prefix"; return 1; }
    libdir="$(dirname "$(find "$prefix" -name 'libsinew.so*' -print -quit)")"

    local flags
    flags="$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags --libs sinew)"
    echo "pkg-config: $flags"
    # shellcheck disable=SC2086  # flags must split into words
    run "$cc" -std=c11 -O2 "$example" $flags -o "$tmp/example-installed"
    LD_LIBRARY_PATH="$libdir" run "$tmp/example-installed"
}

way_subproject() {
    local sub="$tmp/sub"
    mkdir -p "$sub/subprojects"
    cp "$here/subproject/meson.build" "$example" "$sub/"
    ln -s "$repo" "$sub/subprojects/sinew"
    # Force the fallback so an installed sinew on this machine cannot stand in for the subproject.
    run meson setup "$sub/build" "$sub" --force-fallback-for=sinew
    run meson compile -C "$sub/build"
    run "$sub/build/example"
}

way_intree() {
    local compilers=("$cc")
    if command -v clang >/dev/null 2>&1; then
        compilers+=(clang)
    fi
    # The four builds are independent one-process compiles of every source: they run at once, each
    # into a log of its own (shown in order after), so that the machine's cores share them.
    local c def exe k failed_build=0
    local exes=() pids=()
    for c in "${compilers[@]}"; do
        for def in "" "-DSINEW_STATIC"; do
            exe="$tmp/example-intree-$(basename "$c")${def:+-static}"
            # shellcheck disable=SC2086  # $def is empty or one word
            run "$c" -std=c11 -O2 $def -I "$repo/engine/include" "$repo"/engine/src/*.c "$example" -lm -o "$exe" \
                >"$exe.log" 2>&1 &
            pids+=("$!")
            exes+=("$exe")
        done
    done
    for k in "${!pids[@]}"; do
        wait "${pids[$k]}" || failed_build=1
        cat "${exes[$k]}.log"
    done
    [[ $failed_build -eq 0 ]] || return 1
    for exe in "${exes[@]}"; do
        run "$exe"
    done
}

failed=0
for way in installed subproject intree; do
    log="$tmp/$way.log"
    start=$SECONDS
    # Each way runs in a subshell with errexit on, outside any `if`/`||` (which would switch it off).
    set +e
    ( set -euo pipefail; "way_$way" ) >"$log" 2>&1
    rc=$?
    set -e
    if [[ $rc -eq 0 ]]; then
        printf '%-10s PASS  (%ds) %s\n' "$way" $((SECONDS - start)) "$(grep '^sinew example:' "$log" | tail -n 1)"
    else
        printf '%-10s FAIL  (%ds), log:\n' "$way" $((SECONDS - start))
        sed 's/^/    /' "$log" | tail -n 40
        failed=1
    fi
done
exit "$failed"
