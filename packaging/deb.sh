#!/usr/bin/env bash
# Builds the Debian package attnscope_<version>_amd64.deb with CMake and CPack (install rules and
# package settings: packaging/CMakeLists.txt), then checks it with lintian, desktop-file-validate
# and appstreamcli. Run as root on Debian 12 (it apt-get installs the tools it needs).
# Usage: packaging/deb.sh [BUILD_DIR]   (default: build-deb in the repository; the .deb is left
#                                        there, its path is the last line printed)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath -m "${1:-$root/build-deb}")"
cd "$root"
jobs="$(nproc 2>/dev/null || echo 2)"

packaging/install-deps.sh --deb

# Debian's hardening flags (stack protector, fortified libc calls, format checks, full RELRO,
# bind now), as dpkg-buildflags gives every Debian package. Its -O2 and -g are left out: the
# Release build type sets the optimisation, and CPack strips the binaries anyway.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
drop_opt_and_debug() {
    local flag kept=()
    for flag in $1; do
        [[ $flag == -O2 || $flag == -g ]] || kept+=("$flag")
    done
    echo "${kept[*]}"
}
cppflags="$(dpkg-buildflags --get CPPFLAGS)"
cflags="$cppflags $(drop_opt_and_debug "$(dpkg-buildflags --get CFLAGS)")"
cxxflags="$cppflags $(drop_opt_and_debug "$(dpkg-buildflags --get CXXFLAGS)")"
ldflags="$(dpkg-buildflags --get LDFLAGS)"

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_BUILD_TESTS=OFF \
    -DATTNSCOPE_CPU=portable -DCMAKE_INSTALL_PREFIX=/usr -DATTNSCOPE_MAN_PAGES=ON \
    -DCMAKE_C_FLAGS="$cflags" -DCMAKE_CXX_FLAGS="$cxxflags" -DCMAKE_EXE_LINKER_FLAGS="$ldflags"
cmake --build "$build" -j"$jobs"
rm -f "$build"/attnscope_*.deb
(cd "$build" && cpack -G DEB)
deb="$(ls "$build"/attnscope_*.deb)"

echo "deb.sh: checking $deb"
# lintian fails on errors only; packaging/README.md explains every warning it still prints.
lintian --fail-on error --display-info "$deb"
# The desktop entry and metainfo exactly as the package installs them.
check="$build/package-check"
rm -rf "$check" && mkdir -p "$check" && dpkg-deb -x "$deb" "$check"
desktop-file-validate "$check"/usr/share/applications/*.desktop
appstreamcli validate --no-net --explain "$check"/usr/share/metainfo/*.metainfo.xml
rm -rf "$check"

echo "deb.sh: built $deb"
echo "$deb"
