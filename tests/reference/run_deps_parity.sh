#!/usr/bin/env bash
# Scores a model on a real treebank with attnscope-cli deps and re-scores it with the
# independent tests/reference/deps_reference.py; every count must agree.
# usage: run_deps_parity.sh CLI PYTHON MODEL_DIR TREEBANK WORKDIR [deps options…]
# Exit 77 (CTest: skipped) when the shared data is absent.
set -euo pipefail
cli=$1 python=$2 model=$3 treebank=$4 work=$5
shift 5
if [[ ! -f "$treebank" || ! -d "$model" ]]; then
    echo "skipped: $treebank or $model not found (the shared data folder is absent)"
    exit 77
fi
mkdir -p "$work"
"$cli" deps "$model" "$treebank" --out "$work/results.h5" --dump "$work/dump.h5" "$@"
"$python" "$(dirname "$0")/deps_reference.py" --conllu "$treebank" --dump "$work/dump.h5" \
    --results "$work/results.h5" "$@"
