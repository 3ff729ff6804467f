#!/usr/bin/python3
"""Random checkpoints for the README's screenshots of the Saturation and Training tabs (issue
33); not used by any test.

Usage: make_lab_demo.py OUT_DIR

Writes OUT_DIR/qwen3_demo (a Qwen3 shape with per-head QK-norm, 6 layers x 8 heads, its query
and key projections scaled up) and
OUT_DIR/pythia_demo/step<N> (a GPT-NeoX shape at seven "steps": the weights move from one random
draw to another as sqrt(step / last), so each head's statistics drift smoothly). The weights
are random: the pictures show what the views draw, not what a trained model does.
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "reference"))
import hf_layouts  # noqa: E402
import make_checkpoints  # noqa: E402

QWEN3 = dict(case="qwen3_demo", arch="qwen3", arch_class="Qwen3ForCausalLM", dtype="F32",
             layers=6, heads=8, kv_heads=4, hidden=128, head_dim=32, ffn=256, max_pos=64,
             lengths=[8], qk_norm_mean=1.0)
PYTHIA = dict(case="pythia_demo", arch="gpt_neox", arch_class="GPTNeoXForCausalLM",
              dtype="F32", layers=4, heads=8, hidden=128, ffn=256, max_pos=64, lengths=[8],
              rotary_pct=0.25, parallel=True)
PROJECTION_GAIN = 6.0
STEPS = [0, 1000, 2000, 4000, 8000, 16000, 32000]


def write_folder(case, folder, weights_of):
    """config.json, tokenizer files and model.safetensors from weights_of(config, vocab)."""
    os.makedirs(folder, exist_ok=True)
    vocab_size, special = make_checkpoints.write_tokenizer(case, folder)
    config = hf_layouts.CONFIG_WRITERS[case["arch"]](case, vocab_size, special)
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(config, indent=2, sort_keys=True) + "\n")
    weights = weights_of(config, vocab_size)
    make_checkpoints.write_weights(case, folder, hf_layouts.cast_for_storage(weights, "F32"))


def main():
    out = sys.argv[1]
    make = hf_layouts.WEIGHT_MAKERS
    def qwen3(config, vocab):
        # Large projections, as a trained model's grow: the QK-norm keeps the logits in range,
        # and switching it off shows what it holds back.
        weights = make["qwen3"](dict(QWEN3, seed=7), vocab, config)
        return {k: w * PROJECTION_GAIN if k.endswith(("q_proj.weight", "k_proj.weight")) else w
                for k, w in weights.items()}

    write_folder(QWEN3, os.path.join(out, "qwen3_demo"), qwen3)
    for step in STEPS:
        t = np.sqrt(step / STEPS[-1])

        def mixed(config, vocab, t=t):
            start = make["gpt_neox"](dict(PYTHIA, seed=11), vocab, config)
            end = make["gpt_neox"](dict(PYTHIA, seed=12), vocab, config)
            return {k: (1 - t) * start[k] + t * end[k] if start[k].is_floating_point() else start[k]
                    for k in start}

        write_folder(PYTHIA, os.path.join(out, "pythia_demo", f"step{step}"), mixed)
    print(f"wrote {out}/qwen3_demo and {len(STEPS)} steps in {out}/pythia_demo")


if __name__ == "__main__":
    main()
