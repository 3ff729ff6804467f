"""Held-out masked-LM loss and accuracy of the exported model (its F16 weights, upcast).

Usage: evaluate.py DATA_DIR MODEL_DIR [--seed S] [--work WORK_DIR]

Two settings, both with the training masking rule (15 %, 80/10/10) and a fixed masking seed:
packed sequences of up to 128 tokens built like the training data, and each held-out sentence
alone as [CLS] sentence [SEP] (the inputs AttnScope is used on). For context it also reports
chance (uniform over the vocabulary) and a unigram baseline (training-set token frequencies,
add-one smoothed) on the very same masked positions. Results are merged into
MODEL_DIR/metrics.json under "heldout_mlm", with the training facts (WORK/train_info.json) and
the corpus sizes (DATA_DIR/corpus_stats.json).
"""

import argparse
import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

import model as bert
import train
from metrics_file import merge_metrics
import wordpiece as wp


def unigram_logprobs(train_sentences, vocab_size):
    counts = np.ones(vocab_size)
    for s in train_sentences:
        counts += np.bincount(np.asarray(s), minlength=vocab_size)
    counts[:wp.MASK + 1] = 0  # specials are never targets
    with np.errstate(divide="ignore"):  # log(0) = -inf for the specials, on purpose
        return np.log(counts / counts.sum())


@torch.no_grad()
def score(model, seqs, seed, uni, batch=32):
    tot = {"n": 0, "loss": 0.0, "correct": 0, "uni_loss": 0.0, "uni_correct": 0}
    uni_t, top = torch.from_numpy(uni), int(np.argmax(uni))
    for b in range(0, len(seqs), batch):
        ids = train.batch_tensor(seqs[b:b + batch])
        gen = torch.Generator().manual_seed(seed + b)
        inp, target = train.mask_tokens(ids, model.config["vocab_size"], gen)
        h, _ = model.encode(inp, ids != wp.PAD)
        logits = model.mlm_logits(h[target])
        gold = ids[target]
        tot["n"] += gold.numel()
        tot["loss"] += F.cross_entropy(logits, gold, reduction="sum").item()
        tot["correct"] += (logits.argmax(-1) == gold).sum().item()
        tot["uni_loss"] -= uni_t[gold].sum().item()
        tot["uni_correct"] += (gold == top).sum().item()
    n = tot["n"]
    return {"masked_tokens": n, "loss": round(tot["loss"] / n, 4),
            "accuracy": round(tot["correct"] / n, 4),
            "perplexity": round(math.exp(tot["loss"] / n), 2),
            "unigram_loss": round(tot["uni_loss"] / n, 4),
            "unigram_accuracy": round(tot["uni_correct"] / n, 4)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir")
    ap.add_argument("model_dir")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--work", default="/tmp/default_model_work/run")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)

    tok = wp.WordPiece.load(f"{a.model_dir}/vocab.txt")
    model = bert.load_exported(a.model_dir)
    v = model.config["vocab_size"]
    cache = train.token_cache(a.model_dir, a.data_dir, a.work)
    if os.path.exists(cache):
        z = np.load(cache)
        flat = z["flat"]  # each z[...] access re-reads the archive: fetch once
        train_sents = [flat]
    else:
        train_sents = train.tokenize_file(f"{a.data_dir}/train.txt", tok)
    uni = unigram_logprobs(train_sents, v)

    held = train.tokenize_file(f"{a.data_dir}/heldout.txt", tok)
    max_len = model.config["max_position_embeddings"]
    packed = train.pack(held, max_len, np.random.RandomState(a.seed))
    single = [[wp.CLS] + s[:max_len - 2] + [wp.SEP] for s in held]
    # A masking seed different from every training step's (those are seed * 1000003 + step).
    mseed = a.seed + 424242
    result = {
        "heldout_sentences": len(held),
        "heldout_tokens": int(sum(map(len, held))),
        "masking_seed": mseed,
        "chance_loss": round(math.log(v - wp.MASK - 1), 4),
        "chance_accuracy": round(1 / (v - wp.MASK - 1), 6),
        "packed_128": score(model, packed, mseed, uni),
        "single_sentences": score(model, single, mseed, uni),
    }
    print(json.dumps(result, indent=1))
    sections = {"heldout_mlm": result}
    # Training facts and corpus sizes travel with the model.
    for key, src in (("training", f"{a.work}/train_info.json"),
                     ("corpus", f"{a.data_dir}/corpus_stats.json")):
        if os.path.exists(src):
            with open(src) as f:
                sections[key] = json.load(f)
    merge_metrics(a.model_dir, sections)


if __name__ == "__main__":
    main()
