#!/usr/bin/env bash
# Installs everything AttnScope needs from Debian 12 packages (and, with --test, the test-only
# node package used as the tokenizer reference). Idempotent: installs only what is missing.
# Usage: packaging/install-deps.sh [--test]
set -euo pipefail

want_tests=0
[[ "${1:-}" == "--test" ]] && want_tests=1

build_pkgs=(g++ cmake make pkg-config git
    libeigen3-dev libhdf5-dev nlohmann-json3-dev libutf8proc-dev libpcre2-dev libcli11-dev
    libsentencepiece-dev qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev libgl-dev fonts-dejavu-core)
test_pkgs=(libgtest-dev libgmock-dev libbenchmark-dev python3-torch python3-numpy python3-h5py
    xvfb xauth clang-format bc)

pkgs=("${build_pkgs[@]}")
if ((want_tests)); then
    pkgs+=("${test_pkgs[@]}")
    # The machine image may ship Node.js with its own npm; Debian's npm conflicts with it.
    command -v npm >/dev/null || pkgs+=(nodejs npm)
fi

missing=()
for p in "${pkgs[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    echo "install-deps: installing ${missing[*]}"
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ((want_tests)); then
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    ref="$here/tests/reference/tokenizer_ref"
    if [[ -f "$ref/package-lock.json" && ! -d "$ref/node_modules" ]]; then
        (cd "$ref" && npm ci --no-audit --no-fund --loglevel=error)
    fi
fi
