#!/bin/sh
# Build AttnScope's default model from scratch: install the Debian packages it needs, extract an
# English corpus from them, train a WordPiece vocabulary and a 4-layer BERT masked-LM on 2 CPU
# threads, export it in Hugging Face layout, evaluate it and write its model card.
#
#   packaging/default_model/train.sh [OUT_DIR]     (default: resources/default_model)
#
# Run as root on Debian 12. Scratch files go to $WORK (default /tmp/default_model_work); an
# interrupted run resumes from $WORK/run/checkpoint.pt when started again.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/resources/default_model}
WORK=${WORK:-/tmp/default_model_work}
PY=/usr/bin/python3          # Debian's python3-torch lives here, not in a venv's python3
STEPS=${STEPS:-4500}         # 93 min here beside compilers (~3,000 tokens/s); ~80 min on quiet cores
SEED=${SEED:-20261129}

export DEBIAN_FRONTEND=noninteractive
# libopenblas0-openmp: torch otherwise uses the reference BLAS (~2 GFLOP/s instead of ~90 for
# the matrix shapes here). The OpenMP build, because the pthread one fights torch's own threads.
apt-get install -y --no-install-recommends python3-torch python3-numpy libopenblas0-openmp \
    bible-kjv bible-kjv-text fortunes fortunes-min fortune-mod debian-handbook python3-doc perl-doc \
    gnu-standards python3-h5py
export OMP_NUM_THREADS=2
# Sleeping, not spinning, OpenMP workers: on a machine shared with other jobs, spinning threads
# made a training step 4x slower (see README).
export OMP_WAIT_POLICY=PASSIVE

mkdir -p "$WORK/data" "$WORK/run" "$OUT"
cd "$HERE"
$PY prepare_data.py "$WORK/data"
$PY build_tokenizer.py "$WORK/data" "$OUT" 8000 128
$PY train.py "$WORK/data" "$OUT" "$WORK/run" "$OUT" --steps "$STEPS" --batch 32 --lr 8e-4 \
    --warmup 0.08 --seed "$SEED" --threads 2
$PY evaluate.py "$WORK/data" "$OUT" --seed "$SEED" --work "$WORK/run"

# The head analysis runs the model through AttnScope itself, so it needs the CLI built:
#   cmake -S . -B build-train -DCMAKE_BUILD_TYPE=Release && cmake --build build-train -j2 \
#       --target attnscope-cli
CLI=${CLI:-$ROOT/build-train/app/cli/attnscope-cli}
TREEBANK=${TREEBANK:-$ROOT/../shared/data/ud/UD_English-EWT/en_ewt-ud-dev.conllu}
COREF=${COREF:-$ROOT/../shared/data/ud/UD_English-GUM/en_gum-ud-dev.conllu}
if [ -x "$CLI" ] && [ -f "$TREEBANK" ]; then
    $PY check_tokenizer.py "$WORK/data" "$OUT" "$CLI" --out "$WORK/tokenizer_check.json"
    $PY analyze_heads.py "$WORK/data" "$OUT" "$CLI" "$TREEBANK" --out-md "$WORK/heads.md" \
        $([ -f "$COREF" ] && echo --coref "$COREF")
else
    echo "head analysis skipped: need $CLI and $TREEBANK"
fi
# Last, and also after a skipped analysis: the card is written from metrics.json alone and says
# which measurements are missing.
$PY write_card.py "$OUT"
