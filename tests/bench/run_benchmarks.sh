#!/usr/bin/env bash
# The forward-pass benchmark from a fresh Debian 12 machine, in one command (run as root or with
# sudo, from anywhere):
#   tests/bench/run_benchmarks.sh [run_forward_bench.py options…]
# e.g. a quick smoke run (about 20 s once built and generated):
#   tests/bench/run_benchmarks.sh --models bert-base --n 8,32 --rounds 2
# Installs what is missing (packaging/install-deps.sh --bench), builds a Release tree in
# build-bench, generates the random-weight models there, installs the ONNX Runtime peer there,
# and runs the driver; results go to build-bench/tests/bench/results/ (results.md, .json).
# With --gguf-generation first: the generation benchmark against llama.cpp (below).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$root/build-bench"
bench="$build/tests/bench"
jobs="$(nproc 2>/dev/null || echo 2)"

"$root/packaging/install-deps.sh" --bench
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
# Issue 34's generation benchmark instead of the forward pass: AttnScope's KV-cached generator
# against llama.cpp's one-token-at-a-time decoding of the same GGUF files (gguf_bench.py
# --generate, Llama 3.2 1B shape in F32 and Q8_0 by default; its options follow), e.g.
#   tests/bench/run_benchmarks.sh --gguf-generation --threads 1,2 --rounds 5
if [[ "${1:-}" == "--gguf-generation" ]]; then
    shift
    cmake --build "$build" -j"$jobs" --target forward_bench
    exec /usr/bin/python3 "$root/tests/bench/gguf_bench.py" --build "$build" --generate \
        --shape 1b --types F32,Q8_0 "$@"
fi
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
