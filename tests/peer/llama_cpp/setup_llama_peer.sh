#!/usr/bin/env bash
# Installs the llama.cpp peer (npm node-llama-cpp, prebuilt CPU binaries) into DEST, a build-tree
# folder, never the repo: copies package.json + package-lock.json there and runs `npm ci` when the
# lock changed (same pattern as tests/bench/setup_ort_peer.sh).
#   --omit=optional  node-llama-cpp lists every platform/GPU binary (CUDA, Vulkan, arm, ...) as an
#                    optional dependency (~730 MB); package.json names @node-llama-cpp/linux-x64
#                    directly, so only the CPU build for this platform is installed (~85 MB).
#   --ignore-scripts node-llama-cpp's postinstall would probe the binary and may try to build
#                    llama.cpp from source; the peer loads the prebuilt one with build: "never".
#   --prefer-offline take tarballs already in npm's cache without asking the registry (the lock
#                    pins integrity hashes), so a fresh build folder installs fast and offline.
# npm's own output goes to DEST/npm-ci.log.
# Exit 0 when installed (or already up to date); exit 77 (CTest's SKIP_RETURN_CODE) with one line
# on stderr when node/npm are missing or npm fails (no registry, other platform), so the tests
# that need the peer are reported as skipped rather than failed. Usage: setup_llama_peer.sh DEST
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest=${1:?usage: setup_llama_peer.sh DEST}
skip() { echo "setup_llama_peer: $1; llama.cpp peer tests will be skipped" >&2; exit 77; }

command -v node >/dev/null 2>&1 || skip "node not found"
command -v npm >/dev/null 2>&1 || skip "npm not found"
mkdir -p "$dest" || skip "cannot create $dest"
if [[ -d "$dest/node_modules/node-llama-cpp" ]] && cmp -s "$src/package-lock.json" "$dest/package-lock.json"
then
    echo "setup_llama_peer: $dest is up to date"
    exit 0
fi
cp "$src/package.json" "$src/package-lock.json" "$dest/" || skip "cannot copy the lock file to $dest"
if ! (cd "$dest" && npm ci --omit=optional --ignore-scripts --prefer-offline --no-audit --no-fund \
        --loglevel=error >npm-ci.log 2>&1); then
    rm -f "$dest/package-lock.json"  # a failed install must not look up to date next time
    skip "npm ci failed (no npm registry reachable?), see $dest/npm-ci.log"
fi
echo "setup_llama_peer: installed node-llama-cpp into $dest"
