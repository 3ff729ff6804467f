#!/usr/bin/env bash
# Writes the ablation references the C++ parity test (tests/core/forward/ablation_parity_test.cpp)
# reads: for each fixture checkpoint, one pass with zero and sink ablations (a query head and a
# key/value group) and one with mean ablations (means pooled over a two-sentence corpus), made by
# the independent tests/reference/ablation_reference.py, with the effect measures: masked LMs are
# given the ids with the mask token at positions 2 and 7 (--targets: their original ids), causal
# LMs a logit difference (--logit-diff 4:7:9).
# usage: run_ablation_expected.sh PYTHON CHECKPOINTS_DIR OUT_DIR
. "$(dirname "$0")/expected_common.sh"
ids=3,17,9,4,12,8,21,5,2,30,11  # ablation_parity_test.cpp's kIds: every fixture vocabulary has them
printf '3,17,9,4,12,8\n21,5,2,30,11,7,6\n' > "$out/mean_corpus.txt"
for model in bert_f32 gpt2_f32 roberta_f32 distilbert_f16 llama3_gqa4_f32 qwen2_gqa2_bf16 \
             mistral_mqa_window_f32; do
    case $model in
        bert_* | roberta_* | distilbert_*)
            # The mask id of the checkpoint's own tokenizer files, as the reference reads it.
            mask=$("$python" -c 'import sys; sys.path.insert(0, sys.argv[1]); import ablation_reference
print(ablation_reference.mask_token_id(sys.argv[2]))' "$here" "$checkpoints/$model")
            [[ $mask =~ ^[0-9]+$ ]] || { echo "$model: no mask token id ($mask)" >&2; exit 1; }
            model_ids=3,17,$mask,4,12,8,21,$mask,2,30,11
            measures=(--targets 2:9,7:5) ;;
        *)
            model_ids=$ids
            measures=(--logit-diff 4:7:9) ;;
    esac
    reference ablation_reference.py "$model" "$model.zero_sink" --ids "$model_ids" \
        --ablate 0-1:zero,1-g0:sink "${measures[@]}"
    reference ablation_reference.py "$model" "$model.mean" --ids "$model_ids" \
        --ablate 1-0:mean,0-g0:mean --mean-corpus "$out/mean_corpus.txt" "${measures[@]}"
done
