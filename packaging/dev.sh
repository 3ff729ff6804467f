#!/usr/bin/env bash
# The README's two set-up commands for a fresh Debian 12 machine:
#   packaging/dev.sh run [ARGS…]   install what is needed, build, start AttnScope
#   packaging/dev.sh test          install what is needed, build with -Werror, check formatting,
#                                  run every test
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc 2>/dev/null || echo 2)"

case "${1:-}" in
run)
    shift
    packaging/install-deps.sh
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
    cmake --build build -j"$jobs"
    if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
        echo "dev.sh: no display found; to try AttnScope headless, run: xvfb-run packaging/dev.sh run" >&2
    fi
    exec build/app/attnscope "$@"
    ;;
test)
    packaging/install-deps.sh --test
    cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_WERROR=ON
    cmake --build build-test -j"$jobs"
    cmake --build build-test --target format-check
    ctest --test-dir build-test --output-on-failure -j"$jobs"
    ;;
*)
    echo "usage: packaging/dev.sh run [ARGS…] | test" >&2
    exit 2
    ;;
esac
