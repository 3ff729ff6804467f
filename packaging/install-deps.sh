#!/usr/bin/env bash
# Installs everything AttnScope needs from Debian 12 packages (and, with --test, the test-only
# node package used as the tokenizer reference; with --bench, what tests/bench/run_benchmarks.sh
# needs on top of the tests; with --deb, the tools packaging/deb.sh builds and checks the Debian
# package with; with --install-test, those and what packaging/install_test.sh needs).
# Idempotent: installs only what is missing.
# Usage: packaging/install-deps.sh [--test] [--bench] [--deb] [--install-test]
set -euo pipefail

want_tests=0 want_bench=0 want_deb=0 want_install_test=0
for arg in "$@"; do
    case "$arg" in
    --test) want_tests=1 ;;
    --bench) want_tests=1 want_bench=1 ;;
    --deb) want_deb=1 ;;
    --install-test) want_deb=1 want_install_test=1 ;;
    *)
        echo "usage: packaging/install-deps.sh [--test] [--bench] [--deb] [--install-test]" >&2
        exit 2
        ;;
    esac
done

build_pkgs=(g++ cmake make pkg-config git
    libeigen3-dev libhdf5-dev nlohmann-json3-dev libutf8proc-dev libpcre2-dev libcli11-dev
    libsentencepiece-dev qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev libgl-dev fonts-dejavu-core)
test_pkgs=(libgtest-dev libgmock-dev libbenchmark-dev python3-torch python3-numpy python3-h5py python3-sentencepiece
    qemu-user xvfb xauth clang-format bc)
# dpkg-shlibdeps (dpkg-dev) and file find the package's dependencies for CPack; help2man writes
# the man pages; the rest check the package and its desktop files.
deb_pkgs=(dpkg-dev file help2man lintian appstream desktop-file-utils)
install_test_pkgs=(mmdebstrap qemu-user)

pkgs=("${build_pkgs[@]}")
if ((want_tests)); then
    pkgs+=("${test_pkgs[@]}")
    # The machine image may ship Node.js with its own npm; Debian's npm conflicts with it.
    command -v npm >/dev/null || pkgs+=(nodejs npm)
fi
# The OpenMP OpenBLAS gives the PyTorch peer a real BLAS (Debian's torch otherwise runs on the
# reference BLAS, ~5 GFLOP/s); the pthread build would fight torch's own OpenMP pool.
((want_bench)) && pkgs+=(libopenblas0-openmp ccache)
((want_deb)) && pkgs+=("${deb_pkgs[@]}")
((want_install_test)) && pkgs+=("${install_test_pkgs[@]}")

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

if ((want_bench)); then
    blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 || true)
    if [[ "$blas" != *openblas-openmp* ]]; then
        echo "install-deps: warning: libblas.so.3 is $blas, not the OpenMP OpenBLAS; for a fair" \
            "PyTorch peer run: update-alternatives --config libblas.so.3-x86_64-linux-gnu" >&2
    fi
fi
