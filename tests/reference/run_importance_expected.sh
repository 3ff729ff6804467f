#!/usr/bin/env bash
# Writes the importance references the C++ parity test (tests/core/analysis/
# importance_parity_test.cpp) reads, made by the independent tests/reference/importance_reference.py
# on one small corpus: per-head zero ablation on BERT, GPT-2 and Llama 3 (query heads), key/value
# groups on Qwen2, mean ablation on BERT (another seed and fraction) and sink ablation of Llama 3's
# key/value groups.
# usage: run_importance_expected.sh PYTHON CHECKPOINTS_DIR OUT_DIR
. "$(dirname "$0")/expected_common.sh"
# importance_parity_test.cpp reads this file. Line 1 is specials only (no masked-LM target, so the
# masking seeds of later lines still count it); the last line repeats one id, so that tied
# embeddings predict some targets and accuracy is not 0 everywhere.
cat > "$out/corpus.txt" <<'IDS'
101,371,316,259,291,252,193,380,246,102
101,102
101,160,117,231,300,318,233,102
101,360,266,309,174,386,135,175,204,181,376,390,211,102
101,273,380,167,139,262,313,145,363,346,176,102
101,313,363,276,113,325,294,396,102
101,130,285,129,348,295,400,106,311,226,163,389,102
101,300,300,300,300,300,300,300,300,300,102
IDS
run() {  # NAME MODEL [options]
    local name=$1 model=$2
    shift 2
    reference importance_reference.py "$model" "$name" --corpus "$out/corpus.txt" \
        --special-ids 101,102 --mask-id 103 "$@"
}
run bert_f32.zero bert_f32
run gpt2_f32.zero gpt2_f32
run llama3_gqa4_f32.zero llama3_gqa4_f32
run qwen2_gqa2_bf16.zero_kv qwen2_gqa2_bf16 --kv-groups
run bert_f32.mean bert_f32 --kind mean --seed 5 --fraction 0.3
run llama3_gqa4_f32.sink_kv llama3_gqa4_f32 --kind sink --kv-groups
