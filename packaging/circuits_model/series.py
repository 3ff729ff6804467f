"""Pick the shipped training series from the run's snapshots and write it to OUT_DIR/series.

Usage: series.py WORK_DIR OUT_DIR VOCAB_TXT

train.py probed every head and wrote an F16 snapshot every 50 steps (WORK_DIR/steps/step<N>,
WORK_DIR/train_info.json's probe_log). The series shows the induction head forming: with s(t)
the TransformerLens induction score of the final model's strongest induction head at step t
(its value at the last step S, at step 0 s0), the checkpoints are

  step 0                                       (initialisation)
  the last step with s(t) <  s0 + 0.10 (S - s0)  (before the head forms)
  the first step with s(t) >= s0 + 0.50 (S - s0) (half-way)
  the first step with s(t) >= s0 + 0.90 (S - s0) (formed)
  the last step                                (= the shipped model)

each as a model folder (config.json, model.safetensors, the tokenizer files) named step<N>, as
AttnScope's Training tab and `attnscope-cli series` read them. The previous series is removed.
"""

import json
import os
import shutil
import sys

import numpy as np

import default_recipe as dr
import tokenizer_files

FRACTIONS = (0.10, 0.50, 0.90)


def pick(probe_log):
    steps = [r["step"] for r in probe_log]
    final = np.array(probe_log[-1]["induction"])
    head = tuple(int(i) for i in np.unravel_index(final.argmax(), final.shape))
    s = np.array([r["induction"][head[0]][head[1]] for r in probe_log])
    s0, top = float(s[0]), float(s[-1])
    level = lambda f: s0 + f * (top - s0)
    below = [t for t, v in zip(steps, s) if v < level(FRACTIONS[0])]
    first_at = lambda f: next(t for t, v in zip(steps, s) if v >= level(f))
    # "before": the last step under 10 % that comes before the head first reaches 10 %.
    start = first_at(FRACTIONS[0])
    before = max([t for t in below if t < start], default=steps[0])
    chosen = sorted({steps[0], before, first_at(FRACTIONS[1]), first_at(FRACTIONS[2]),
                     steps[-1]})
    return chosen, head, {"head": list(head), "s0": round(s0, 4), "final": round(top, 4),
                          "fractions": list(FRACTIONS)}


def main(work_dir, out_dir, vocab_txt):
    with open(f"{work_dir}/train_info.json") as f:
        info = json.load(f)
    chosen, head, rule = pick(info["probe_log"])
    dest = f"{out_dir}/series"
    shutil.rmtree(dest, ignore_errors=True)
    for step in chosen:
        d = f"{dest}/step{step}"
        os.makedirs(d)
        for name in ("config.json", "model.safetensors"):
            shutil.copy(f"{work_dir}/steps/step{step}/{name}", d)
        tokenizer_files.write(vocab_txt, d, info["n_positions"])
    print(f"series: steps {chosen} (induction head {head[0]}-{head[1]})", flush=True)
    dr.merge_metrics(out_dir, {"series_selection": dict(rule, steps=chosen)})


if __name__ == "__main__":
    main(*sys.argv[1:4])
