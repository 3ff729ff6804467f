#!/bin/sh
# Build AttnScope's circuits demo model from scratch: a 2-layer GPT-2 causal LM trained on the
# default model's corpus mixed with repeated sequences, so that a previous-token head and an
# induction head form; exported in Hugging Face layout with a series of training checkpoints,
# analysed (PyTorch and AttnScope's CLI) and given a model card.
#
#   packaging/circuits_model/train.sh [OUT_DIR]     (default: resources/circuits_model)
#
# Run as root on Debian 12. Scratch files go to $WORK (default /tmp/circuits_model_work); an
# interrupted run resumes from $WORK/run/checkpoint.pt when started again.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/resources/circuits_model}
WORK=${WORK:-/tmp/circuits_model_work}
PY=/usr/bin/python3          # Debian's python3-torch lives here, not in a venv's python3
STEPS=${STEPS:-5000}          # the learning-rate schedule's length
STOP=${STOP:-2500}            # where the run ends (README ▸ Why it is written this way)
SEED=${SEED:-20261207}
# The default model's vocabulary (packaging/default_model/build_tokenizer.py made it).
VOCAB=${VOCAB:-$ROOT/resources/default_model/vocab.txt}

export DEBIAN_FRONTEND=noninteractive
# The default model's packages (packaging/default_model/train.sh): torch, the OpenMP OpenBLAS,
# the corpus packages, and h5py, which the default recipe's analysis uses.
apt-get install -y --no-install-recommends python3-torch python3-numpy libopenblas0-openmp \
    bible-kjv bible-kjv-text fortunes fortunes-min fortune-mod debian-handbook python3-doc perl-doc \
    gnu-standards python3-h5py
export OMP_NUM_THREADS=2
# Sleeping, not spinning, OpenMP workers on a machine shared with other jobs (see
# packaging/default_model/README.md).
export OMP_WAIT_POLICY=PASSIVE
# glibc hands every large free() straight back to the kernel, so each step's 16 MB-130 MB
# logits were page-faulted in anew: 2.4-3.0 s a step, a third of it in the kernel. Keeping
# the memory in the heap made it 0.45 s (README ▸ Why it is written this way).
export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=17179869184 \
    MALLOC_TOP_PAD_=536870912

mkdir -p "$WORK/data" "$WORK/run" "$WORK/analysis" "$OUT"
cd "$HERE"
$PY ../default_model/prepare_data.py "$WORK/data"
$PY tokenizer_files.py "$VOCAB" "$OUT" 64
nice $PY train.py "$WORK/data" "$VOCAB" "$WORK/run" "$OUT" --steps "$STEPS" --stop "$STOP" \
    --seed "$SEED" \
    --threads 2
$PY series.py "$WORK/run" "$OUT" "$VOCAB"

# AttnScope's half of the analysis needs the CLI built:
#   cmake -S . -B build-train -DCMAKE_BUILD_TYPE=Release && cmake --build build-train -j2 \
#       --target attnscope-cli
CLI=${CLI:-$ROOT/build-train/app/cli/attnscope-cli}
TREEBANK=${TREEBANK:-$ROOT/../shared/data/ud/UD_English-EWT/en_ewt-ud-dev.conllu}
[ -x "$CLI" ] || echo "AttnScope checks skipped: no $CLI"
WORK="$WORK" nice $PY analyze.py "$WORK/data" "$OUT" "$WORK/analysis" --cli "$CLI" \
    --treebank "$TREEBANK"
# Last, also after skipped checks: the card is written from metrics.json alone.
$PY write_card.py "$OUT"
