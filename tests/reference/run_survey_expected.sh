#!/usr/bin/env bash
# Writes the survey references the C++ parity test (tests/core/analysis/survey_parity_test.cpp)
# reads, made by the independent tests/reference/survey_reference.py (rules S1-S12) on two small
# corpora: one in the BERT fixture's vocabulary ([CLS] 101, [SEP] 102), one in the GPT-2 / Llama 3
# / Mistral fixtures' (<|endoftext|> 556 as BOS and special). Repeated spans make the duplicate and
# induction detectors fire; a small --rare-top leaves some sentences eligible for S10. Probe length
# 4 keeps the S7 stripe (offset N - 1 = 3) inside the Mistral fixture's sliding window of 5.
# usage: run_survey_expected.sh PYTHON CHECKPOINTS_DIR OUT_DIR
. "$(dirname "$0")/expected_common.sh"
# survey_parity_test.cpp reads these files and passes the same options to the C++ survey.
cat > "$out/corpus_bert.txt" <<'IDS'
101,300,301,302,115,300,301,302,117,102
101,250,251,250,251,124,102
101,200,201,202,203,200,201,202,203,117,102
101,150,150,150,115,160,117,102
101,350,351,352,353,354,355,117,102
101,300,250,300,250,102
IDS
# At most 20 ids: the GPT-2 fixture has 21 positions.
cat > "$out/corpus_causal.txt" <<'IDS'
556,300,301,302,11,300,301,302,13
556,250,251,250,251,30
556,200,201,202,203,200,201,202,203,13
556,150,150,150,11,160,13
556,350,351,352,353,354,355,13
300,250,300,250,13,556
IDS
run() {  # MODEL CORPUS [options]
    local model=$1 corpus=$2
    shift 2
    reference survey_reference.py "$model" "$model" --corpus "$out/$corpus" --rare-top 5 \
        --probe-repeats 3 --probe-length 4 --probe-seed 11 "$@"
}
run bert_f32 corpus_bert.txt --special-ids 101,102 --punct-ids 104,115,124 --period-ids 117
for m in gpt2_f32 llama3_gqa4_f32 mistral_mqa_window_f32; do
    run "$m" corpus_causal.txt --special-ids 556 --punct-ids 0,11,13,30 --period-ids 13 \
        --bos-id 556
done
# The training series' induction probe (core_survey_parity_test's SeriesProbeParity): S7 with its
# defaults (4 repeats, N = 10, seed 0) on each Pythia-shaped series checkpoint; one short sentence
# keeps the rest of the survey cheap.
echo "556,300,301,302" > "$out/corpus_series.txt"
for step in 0 512 4096; do
    reference survey_reference.py "pythia_series_step${step}_f32" "series_step${step}" \
        --corpus "$out/corpus_series.txt" --rare-top 5 --special-ids 556 --bos-id 556
done
