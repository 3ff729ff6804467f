#!/usr/bin/env bash
# The forward-pass benchmark from a fresh Debian 12 machine, in one command (run as root or with
# sudo, from anywhere):
#   tests/bench/run_benchmarks.sh [run_forward_bench.py options…]
# e.g. a quick smoke run (about 20 s once built and generated):
#   tests/bench/run_benchmarks.sh --models bert-base --n 8,32 --rounds 2
# Installs what is missing (packaging/install-deps.sh --bench), builds a Release tree in
# build-bench, generates the random-weight models there, installs the ONNX Runtime peer there,
# and runs the driver; results go to build-bench/tests/bench/results/ (results.md, .json).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$root/build-bench"
bench="$build/tests/bench"
jobs="$(nproc 2>/dev/null || echo 2)"

"$root/packaging/install-deps.sh" --bench
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build "$build" -j"$jobs" --target forward_bench interactive_bench

shared="$root/../shared"
models=bert-base,gpt2,llama-1b
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
    [[ "${args[i]}" == "--models" ]] && models="${args[i + 1]}"
done
/usr/bin/python3 "$root/tests/bench/make_forward_models.py" --out "$bench/models" \
    --models "$models" --shared "$shared"
# The interactive-path medians (bench-interactive) come with a full run, not with a limited one.
interactive=()
if (($# == 0)) && [[ -f "$shared/data/tokenizers/bert-base-uncased/vocab.txt" ]]; then
    /usr/bin/python3 "$root/tests/bench/make_bench_model.py" --out "$bench/bert_base_random" \
        --shared "$shared"
    interactive=(--interactive)
fi
"$root/tests/bench/setup_ort_peer.sh" "$bench/ort_peer"
exec /usr/bin/python3 "$root/tests/bench/run_forward_bench.py" --build "$build" \
    "${interactive[@]}" "$@"
