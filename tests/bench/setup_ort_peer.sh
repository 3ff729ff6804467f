#!/usr/bin/env bash
# Installs the ONNX Runtime peer's npm packages into DIR (a build-tree folder, never the repo):
# copies package.json + package-lock.json there and runs `npm ci` when the lock changed.
# --onnxruntime-node-install=skip: the CPU library ships inside the package; the postinstall
# step would only try a GPU download (benchmarking.md). Usage: setup_ort_peer.sh DIR
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/ort_peer" && pwd)"
dest=$1
mkdir -p "$dest"
if [[ -d "$dest/node_modules/onnxruntime-node" ]] && cmp -s "$src/package-lock.json" "$dest/package-lock.json"; then
    exit 0
fi
cp "$src/package.json" "$src/package-lock.json" "$dest/"
(cd "$dest" && npm ci --onnxruntime-node-install=skip --no-audit --no-fund --loglevel=error)
