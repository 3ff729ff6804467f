#!/usr/bin/env bash
# Attribution speed (issue 19): writes the BERT-base-sized model (make_bench_model.py) and GPT-2
# small (make_forward_models.py) when absent, then runs attribution_bench at THREADS compute
# threads (default 2), with the load average before and after (the machine should be quiet: see
# README.md here). Extra arguments go to attribution_bench (e.g. --benchmark_filter=bert).
# usage: attribution_bench.sh BENCH BERT_DIR MODELS_DIR SHARED_DIR [THREADS] [BENCH ARGS...]
set -euo pipefail
bench=$1 bert=$2 models=$3 shared=$4 threads=${5:-2}
shift $(($# < 5 ? $# : 5))
here=$(cd "$(dirname "$0")" && pwd)
python=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
"$python" "$here/make_bench_model.py" --out "$bert" --shared "$shared"
"$python" "$here/make_forward_models.py" --out "$models" --models gpt2 --shared "$shared"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(lscpu | grep -m1 'Model name')," \
    "family $(lscpu | awk -F: '/^CPU family/ {gsub(/ /, "", $2); print $2}')" \
    "model $(lscpu | awk -F: '/^Model:/ {gsub(/ /, "", $2); print $2}')"
ATTNSCOPE_THREADS=$threads OMP_NUM_THREADS=$threads ATTNSCOPE_BENCH_MODEL=$bert \
    ATTNSCOPE_BENCH_GPT2_MODEL=$models/gpt2 "$bench" --benchmark_color=false "$@"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
