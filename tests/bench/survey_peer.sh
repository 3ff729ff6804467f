#!/usr/bin/env bash
# The survey against its independent reference as a peer (issue 18): attnscope-cli survey and
# tests/reference/survey_reference.py (numpy float64 on PyTorch's float32 passes) on the same first
# N sentences of a treebank (default 20: the reference keeps every map and builds a heads x heads x
# n x n array per sentence, and Debian's PyTorch runs on the reference BLAS), interleaved, ROUNDS
# rounds (default 2), both limited to THREADS threads (default 2: --threads, OMP_NUM_THREADS).
# Prints every run's wall time and the medians' ratio. The ids come from survey_bench --ids-out,
# so both programs see the same tokens and the same special, punctuation and period ids.
# usage: survey_peer.sh CLI SURVEY_BENCH MODEL_DIR TREEBANK [N] [ROUNDS] [THREADS] [PYTHON]
set -euo pipefail
cli=$1 bench=$2 model=$3 treebank=$4 n=${5:-20} rounds=${6:-2} threads=${7:-2}
python=${8:-/usr/bin/python3}
reference=$(dirname "$0")/../reference/survey_reference.py
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$bench" --model "$model" --treebank "$treebank" --sentences "$n" --ids-out "$out/ids" >/dev/null
read -r -a ids_options <"$out/ids.options"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $n sentences, $threads threads"
declare -A walls
timed() {  # NAME COMMAND...: appends the wall time to walls[NAME]
    local name=$1
    shift
    /usr/bin/time -f '%e %P' -o "$out/time" "$@" >"$out/stdout" 2>"$out/log" ||
        { cat "$out/log" >&2; exit 1; }
    read -r wall cpu <"$out/time"
    printf '%-10s %8s s wall, %s CPU\n' "$name" "$wall" "$cpu"
    walls[$name]+="$wall "
}
for ((r = 0; r < rounds; ++r)); do
    timed attnscope "$cli" survey "$model" "$treebank" --max-sentences "$n" --threads "$threads" \
        --out "$out/survey.h5"
    timed reference env OMP_NUM_THREADS="$threads" "$python" "$reference" --model "$model" \
        --corpus "$out/ids" "${ids_options[@]}" --out "$out/reference.safetensors"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
ours=$(echo "${walls[attnscope]}" | median)
peer=$(echo "${walls[reference]}" | median)
printf 'median: attnscope %s s, reference %s s; attnscope / reference = %.3f\n' "$ours" "$peer" \
    "$(echo "$ours / $peer" | bc -l)"
