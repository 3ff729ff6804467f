#!/usr/bin/env bash
# Dependency scoring speed: attnscope-cli deps on UD English EWT dev with a BERT-base-sized
# random-weight model, 1 and 2 threads, interleaved, median of REPEATS runs each; prints
# sentences per second. usage: deps_bench.sh CLI MODEL_DIR TREEBANK [REPEATS] [MAX_SENTENCES]
set -euo pipefail
cli=$1 model=$2 treebank=$3 repeats=${4:-3} max=${5:-}
limit=()
[[ -n "$max" ]] && limit=(--max-sentences "$max")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A times
for ((r = 0; r < repeats; ++r)); do
    for t in 1 2; do
        start=$(date +%s.%N)
        "$cli" deps "$model" "$treebank" --threads "$t" "${limit[@]}" --out "$out/r.csv" 2>"$out/log"
        end=$(date +%s.%N)
        times[$t]+="$(echo "$end - $start" | bc) "
    done
done
scored=$(grep -o 'scored [0-9]*' "$out/log" | grep -o '[0-9]*')
for t in 1 2; do
    median=$(echo "${times[$t]}" | tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '%d thread(s): median %.1f s for %d sentences = %.1f sentences/s (runs: %s)\n' \
        "$t" "$median" "$scored" "$(echo "$scored / $median" | bc -l)" "${times[$t]}"
done
