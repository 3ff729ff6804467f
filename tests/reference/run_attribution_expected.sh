#!/usr/bin/env bash
# Writes the attribution references the C++ parity test (tests/core/analysis/
# attribution_parity_test.cpp) reads, made by the independent tests/reference/
# attribution_reference.py (rules A1-A15) for one sentence per checkpoint: a post-LN BERT, a
# pre-LN GPT-2 and a grouped-query Llama 3, every method; and the same GPT-2 with its transformed
# value vectors 36 times larger (attribution_large_values.py), where the norm-based maps reach
# ||f|| ~ 135 and their float32 error outgrows an absolute 1e-5.
# usage: run_attribution_expected.sh PYTHON CHECKPOINTS_DIR OUT_DIR
. "$(dirname "$0")/expected_common.sh"
# attribution_parity_test.cpp reads the ids back from each file's input_ids.
run() {  # MODEL IDS
    reference attribution_reference.py "$1" "$1" --ids "$2" --method all
}
run bert_f32 101,300,301,302,115,300,301,302,117,102
run gpt2_f32 556,300,301,302,11,300,301,302,13
run llama3_gqa4_f32 556,250,251,250,251,30,200,201
# The GPT-2 of large values: its checkpoint lives beside the references.
"$python" "$here/attribution_large_values.py" "$checkpoints/gpt2_f32" \
    "$out/checkpoints/gpt2_f32_values_x6" 6
"$python" "$here/attribution_reference.py" --model "$out/checkpoints/gpt2_f32_values_x6" \
    --ids 556,300,301,302,11,300,301,302,13 --method all --out "$out/gpt2_f32_values_x6.safetensors"
