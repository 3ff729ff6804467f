#!/usr/bin/env bash
# Writes the attribution references the C++ parity test (tests/core/analysis/
# attribution_parity_test.cpp) reads, made by the independent tests/reference/
# attribution_reference.py (rules A1-A15) for one sentence per checkpoint: a post-LN BERT, a
# pre-LN GPT-2 and a grouped-query Llama 3, every method.
# usage: run_attribution_expected.sh PYTHON CHECKPOINTS_DIR OUT_DIR
set -euo pipefail
python=$1 checkpoints=$2 out=$3
here=$(dirname "$0")
mkdir -p "$out"
# attribution_parity_test.cpp reads the ids back from each file's input_ids.
run() {  # MODEL IDS
    "$python" "$here/attribution_reference.py" --model "$checkpoints/$1" --ids "$2" \
        --method all --out "$out/$1.safetensors"
}
run bert_f32 101,300,301,302,115,300,301,302,117,102
run gpt2_f32 556,300,301,302,11,300,301,302,13
run llama3_gqa4_f32 556,250,251,250,251,30,200,201
