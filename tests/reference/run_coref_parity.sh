#!/usr/bin/env bash
# Scores a model's heads on coreference with attnscope-cli coref and re-scores them with the
# independent tests/reference/coref_reference.py (own windows and tokenization, the dump's
# attention checked against torch on six windows); every count must agree.
# usage: run_coref_parity.sh CLI PYTHON MODEL_DIR TOKENIZER_JSON TREEBANK WORKDIR [coref options…]
# Exit 77 (CTest: skipped) when the shared data or the model is absent.
set -euo pipefail
cli=$1 python=$2 model=$3 tokenizer=$4 treebank=$5 work=$6
shift 6
for needed in "$treebank" "$tokenizer" "$model/config.json"; do
    if [[ ! -f "$needed" ]]; then
        echo "skipped: $needed not found (the shared data folder or the model is absent)"
        exit 77
    fi
done
mkdir -p "$work"
"$cli" coref "$model" "$treebank" --out "$work/results.h5" --dump "$work/dump.h5" "$@"
"$python" "$(dirname "$0")/coref_reference.py" --model "$model" --tokenizer "$tokenizer" \
    --conllu "$treebank" --dump "$work/dump.h5" --results "$work/results.h5" "$@"
