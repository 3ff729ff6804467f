#!/usr/bin/python3
"""Independent PyTorch reference for head importance on a corpus (issue 17): the exact loss change
of ablating each head (or key/value group) alone, and Michel et al.'s pruning curve.

Written from the rules of core/include/attnscope/analysis/head_importance.h with torch only, on
the forward passes with interventions of ablation_reference.py (run_pass, Ablation, head_plan,
mean_vectors), which are checked against Hugging Face head_mask semantics there.

Objective. Masked LM (model_type bert, roberta, distilbert): sentence s (its index among the id
lists of the file) gets a seeded masking: its candidates are the positions whose id is not in
--special-ids; of those m, k = max(1, floor(f*m + 0.5)) (at most m) are chosen by a partial
Fisher-Yates shuffle driven by SplitMix64 seeded with seed + s (mod 2^64), replaced by the mask
id, and the model predicts the original ids there. Causal LM (every other model): position i < n-1
predicts id i+1. A sentence with no target (no candidate; a single id) is skipped and counted.
loss = sum of -log p(target) over every target of the corpus / number of targets (token-weighted,
float64 from the float32 passes' logits); accuracy = share of targets whose argmax (lowest id on
ties) is the target.

Units: query heads, or key/value groups with --kv-groups (every query head sharing the group).
delta_loss[l, u] = loss with unit u of layer l ablated (--kind) - clean loss. Mean ablation uses
each head's clean context rows pooled over every position of every item's input (the masked ids
for a masked LM: what the model is given). Pruning: units sorted by increasing delta_loss (ties:
lower layer, then lower unit), computed once; at fraction f the first floor(f*N + 0.5) units are
ablated together, N = layers * units.

CLI:
  importance_reference.py --model DIR --corpus FILE --special-ids 101,102 [--mask-id N]
      [--fraction 0.15] [--seed 0] [--kind zero|mean|sink] [--kv-groups]
      [--pruning 0,0.1,...,1] --out FILE.safetensors
FILE: one comma-separated id list per line (blank lines skipped; the sentence index counts the
lists). Output tensors: clean_loss, clean_accuracy F64 [1]; ablated_loss, delta_loss,
ablated_accuracy F64 [L,U]; order I64 [L*U] (unit index l*U + u, least important first);
pruning_fraction F64, pruning_removed I64, pruning_loss, pruning_accuracy F64 [steps];
masked_ids I64 (every item's input, concatenated), item_offsets I64 [items+1], item_sentences I64
[items]; target_positions, target_ids I64 (positions within their item), target_offsets I64
[items+1]. Metadata: model, model_type, objective, kind, kv_groups, fraction, seed, mask_id,
special_ids, sentences, skipped, targets, units.

  importance_reference.py --self-test CHECKPOINTS_DIR   invariants (importance_selftest.py).
"""

import collections
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ablation_reference as ar  # noqa: E402
import reference_main  # noqa: E402
import st_io  # noqa: E402

MASK64 = (1 << 64) - 1
DEFAULT_PRUNING = [i / 10 for i in range(11)]  # i/10 is the double nearest to 0.i, as in C++

# ids: the model's input; targets: [(position, id to predict)]; sentence: index in the corpus.
Item = collections.namedtuple("Item", "ids targets sentence")


class SplitMix64:
    def __init__(self, state):
        self.state = state & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)


def mask_count(fraction, m):
    return min(m, max(1, math.floor(fraction * m + 0.5)))


def masked_positions(candidates, fraction, seed, sentence):
    """The chosen candidates, sorted (head_importance.h maskedPositions)."""
    c = list(candidates)
    m = len(c)
    if m == 0:
        return []
    rng = SplitMix64(seed + sentence)
    k = mask_count(fraction, m)
    for i in range(k):
        j = i + rng.next() % (m - i)
        c[i], c[j] = c[j], c[i]
    return sorted(c[:k])


def build_items(corpus, masked_lm, special, mask_id, fraction, seed):
    """(items, skipped) for a list of id lists."""
    items, skipped = [], 0
    for s, ids in enumerate(corpus):
        if masked_lm:
            chosen = masked_positions([p for p, t in enumerate(ids) if t not in special],
                                      fraction, seed, s)
            inputs = [mask_id if p in chosen else t for p, t in enumerate(ids)]
            targets = [(p, ids[p]) for p in chosen]
        else:
            inputs, targets = list(ids), [(p, ids[p + 1]) for p in range(len(ids) - 1)]
        if targets:
            items.append(Item(inputs, targets, s))
        else:
            skipped += 1
    return items, skipped


class Corpus:
    """A checkpoint and its items: corpus loss and accuracy under any set of ablated units."""

    def __init__(self, folder, items, kind, kv_groups):
        self.folder, self.items, self.kind = folder, items, kind
        self.cfg = ar.load_config(folder)
        self.counts = ar.head_counts(self.cfg)
        layers, heads, kv_heads = self.counts
        self.layers, self.units = layers, kv_heads if kv_groups else heads
        self.kv_groups = kv_groups
        self.loaded = st_io.load_checkpoint(folder)
        self.mu = None
        if kind == "mean":
            self.mu = ar.mean_vectors(folder, [it.ids for it in items], torch.float32,
                                      self.loaded)

    def intervention(self, unit):
        layer, u = divmod(unit, self.units)
        return ar.Intervention(layer, self.kind, None if self.kv_groups else u,
                               u if self.kv_groups else None)

    def evaluate(self, units):
        """(loss, accuracy, targets) with `units` (indices l*U + u) ablated together."""
        plan = ar.head_plan([self.intervention(u) for u in units], self.counts)
        nll, correct, count = 0.0, 0, 0
        for it in self.items:
            ablation = ar.Ablation(plan, self.mu) if plan else None
            lm = ar.run_pass(self.folder, it.ids, torch.float32, self.loaded, ablation).lm
            if lm is None:
                raise ValueError(f"{self.folder}: the checkpoint has no prediction head")
            pos = torch.tensor([p for p, _ in it.targets], dtype=torch.int64)
            tok = torch.tensor([t for _, t in it.targets], dtype=torch.int64)
            logp = lm.double().log_softmax(-1)
            nll -= logp[pos, tok].sum().item()
            # torch.argmax returns the first maximal index: the lowest id on ties.
            correct += int((lm[pos].argmax(-1) == tok).sum().item())
            count += len(it.targets)
        return nll / count, correct / count, count


def pruning_order(delta):
    """Unit indices by increasing delta; ties by index (lower layer, then lower unit)."""
    return sorted(range(len(delta)), key=lambda u: (delta[u], u))


def removed_count(fraction, units):
    return math.floor(fraction * units + 0.5)


def importance(corpus, fractions):
    """Every output of the CLI as Python values."""
    clean_loss, clean_acc, targets = corpus.evaluate([])
    n = corpus.layers * corpus.units
    ablated = [corpus.evaluate([u]) for u in range(n)]
    delta = [a[0] - clean_loss for a in ablated]
    order = pruning_order(delta)
    by_count = {0: (clean_loss, clean_acc)}
    pruning = []
    for f in fractions:
        removed = removed_count(f, n)
        if removed not in by_count:
            by_count[removed] = corpus.evaluate(order[:removed])[:2]
        pruning.append((f, removed, *by_count[removed]))
    return {"clean_loss": clean_loss, "clean_accuracy": clean_acc, "targets": targets,
            "ablated_loss": [a[0] for a in ablated], "ablated_accuracy": [a[1] for a in ablated],
            "delta_loss": delta, "order": order, "pruning": pruning}


# ---- CLI ----

def parse_fractions(text, where):
    try:
        values = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise ValueError(f"{where}: '{text}' is not a comma-separated list of numbers") from None
    if not values or not all(0.0 <= v <= 1.0 for v in values):
        raise ValueError(f"{where}: every fraction must lie in [0, 1]")
    return values


def check_lengths(cfg, corpus, path):
    limit = cfg.get("max_position_embeddings", cfg.get("n_positions"))
    if cfg["model_type"] == "roberta" and limit is not None:
        limit -= cfg.get("pad_token_id", 1) + 1
    for s, ids in enumerate(corpus):
        if limit is not None and len(ids) > limit:
            raise ValueError(f"{path}: id list {s + 1} has {len(ids)} ids; the model takes at "
                             f"most {limit}")


def f64(values, shape=None):
    t = torch.tensor(values, dtype=torch.float64)
    return t.reshape(shape) if shape else t


def i64(values):
    return torch.tensor(values, dtype=torch.int64)


def offsets(lengths):
    out = [0]
    for n in lengths:
        out.append(out[-1] + n)
    return out


def write_reference(args):
    cfg = ar.load_config(args.model)
    masked_lm = cfg["model_type"] in ar.MASKED_LM
    corpus = ar.read_corpus(args.corpus, cfg["vocab_size"])
    check_lengths(cfg, corpus, args.corpus)
    if not 0.0 < args.fraction <= 1.0:
        raise ValueError(f"--fraction: {args.fraction} is outside (0, 1]")
    special = set(ar.parse_ids(args.special_ids, "--special-ids"))
    mask_id = args.mask_id if args.mask_id is not None else ar.mask_token_id(args.model)
    if masked_lm and mask_id is None:
        raise ValueError(f"{args.model}: no mask token in the tokenizer files; give --mask-id")
    items, skipped = build_items(corpus, masked_lm, special, mask_id, args.fraction, args.seed)
    if not items:
        raise ValueError(f"{args.corpus}: no sentence has a target")
    c = Corpus(args.model, items, args.kind, args.kv_groups)
    r = importance(c, parse_fractions(args.pruning, "--pruning"))
    shape = [c.layers, c.units]
    out = {"clean_loss": f64([r["clean_loss"]]), "clean_accuracy": f64([r["clean_accuracy"]]),
           "ablated_loss": f64(r["ablated_loss"], shape),
           "delta_loss": f64(r["delta_loss"], shape),
           "ablated_accuracy": f64(r["ablated_accuracy"], shape), "order": i64(r["order"]),
           "pruning_fraction": f64([p[0] for p in r["pruning"]]),
           "pruning_removed": i64([p[1] for p in r["pruning"]]),
           "pruning_loss": f64([p[2] for p in r["pruning"]]),
           "pruning_accuracy": f64([p[3] for p in r["pruning"]]),
           "masked_ids": i64([t for it in items for t in it.ids]),
           "item_offsets": i64(offsets(len(it.ids) for it in items)),
           "item_sentences": i64([it.sentence for it in items]),
           "target_positions": i64([p for it in items for p, _ in it.targets]),
           "target_ids": i64([t for it in items for _, t in it.targets]),
           "target_offsets": i64(offsets(len(it.targets) for it in items))}
    st_io.save_file(out, args.out, metadata={
        "model": os.path.abspath(args.model), "model_type": cfg["model_type"],
        "objective": "masked LM" if masked_lm else "causal LM", "kind": args.kind,
        "kv_groups": str(int(args.kv_groups)), "fraction": repr(args.fraction),
        "seed": str(args.seed), "mask_id": "" if mask_id is None else str(mask_id),
        "special_ids": ",".join(map(str, sorted(special))), "sentences": str(len(corpus)),
        "skipped": str(skipped), "targets": str(r["targets"]), "units": f"{c.layers}x{c.units}",
        "compute_dtype": "float32", "loss_dtype": "float64"})
    print(f"{args.out}: {len(items)} items ({skipped} skipped), {r['targets']} targets, "
          f"{c.layers}x{c.units} units, clean loss {r['clean_loss']:.6f}")


def main():
    parser = reference_main.parser(__doc__, self_test=True, model_required=False)
    reference_main.add_id_corpus(parser, "--corpus")
    parser.add_argument("--special-ids", default="", help="ids never masked, e.g. 101,102")
    reference_main.add_mask_id(parser)
    parser.add_argument("--fraction", type=float, default=0.15, help="masked share (0, 1]")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kind", choices=ar.KINDS, default="zero")
    parser.add_argument("--kv-groups", action="store_true", help="units are key/value groups")
    parser.add_argument("--pruning", default=",".join(map(repr, DEFAULT_PRUNING)),
                        help="pruning fractions, comma-separated")
    args = reference_main.parse_self_tested(parser, "importance_selftest", "--corpus")
    if args.seed < 0:
        parser.error("--seed must be >= 0")
    reference_main.write_or_exit(write_reference, args, "importance_reference.py")


if __name__ == "__main__":
    main()
