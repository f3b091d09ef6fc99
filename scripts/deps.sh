# Sourced by tests/run and demos/run: installs what a build needs and is missing, with apt-get.
# Usage: sinew_install_deps PACKAGE... (Debian package names); checks each one first.

sinew_have_pkg() {
    case "$1" in
        meson) command -v meson >/dev/null 2>&1 ;;
        ninja-build) command -v ninja >/dev/null 2>&1 ;;
        pkg-config) command -v pkg-config >/dev/null 2>&1 ;;
        gcc) command -v cc >/dev/null 2>&1 ;;
        libcmocka-dev) pkg-config --exists cmocka 2>/dev/null ;;
        libsdl2-dev) pkg-config --exists sdl2 2>/dev/null ;;
        *) dpkg -s "$1" >/dev/null 2>&1 ;;
    esac
}

sinew_install_deps() {
    local missing=() p
    for p in "$@"; do
        sinew_have_pkg "$p" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "sinew: installing ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "sinew: need root or sudo to install ${missing[*]}" >&2; return 1; }
        sudo="sudo"
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}
